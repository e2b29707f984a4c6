"""Paper reproductions: one module per paper (``atmsim reproduce NAME``).

Each module ``atmsim.reproduce.<name>`` exposes ``main(out_dir, quick) -> int``: it runs the
paper's scenarios, draws its figures, compares the measurements with the paper's numbers
(``comparison.csv``), writes the modelling notes (``notes.md``) and an HTML report
(``report.html``). ``common`` holds what every reproduction shares: the parallel runner,
the comparison rows with their tolerance rules and the output writers.

Reproductions available:

- ``fang1994``: Fang, Chen & Hutchins 1994, TCP over a congested ATM LAN, simple cell drop
  against AN2 credit flow control (Figs. 3-8, Table 2), and partial / whole packet drop
  with the per-VC buffer sweep (Figs. 9-12).
- ``cheon1998``: Cheon & Panwar 1998, EPD against Early Selective Packet Discard on a UBR
  parking lot (Tables 1-8, Figs. 2-3, a window-synchronisation figure, and a sensitivity set
  on the receivers' delayed-ACK rule).
- ``an1997``: An 1997 (NJIT thesis), TCP over ABR with a VBR ON-OFF background under EFCI,
  ERICA and FMMRA (Figs. 4.2-4.18, each claim of the thesis a measured row).
- ``kalyanaraman1996``: Kalyanaraman, Jain et al. 1996 (ATM Forum 96-1294), TCP over ABR on
  1000 km links: source queues under ERICA (Table 1), switch queues under ERICA+ with VBR
  ON-OFF background and a stated test for divergence (Tables 2-4).
- ``goyal1998``: Goyal, Jain, Fahmy & Vandalore 1998 (LCN'98), rate guarantees to SACK TCP
  by FIFO buffer management: the window-controlled TCP of Fig. 3, per-VC thresholds (Tables
  1-3), VC merging under the GFR buffer policy (Tables 4-5).
"""

from __future__ import annotations

__all__ = ["available"]


def available() -> list[str]:
    """The names of the reproductions in this package (modules other than ``common``)."""
    import pkgutil

    return sorted(
        info.name
        for info in pkgutil.iter_modules(__path__)
        if not info.name.startswith("_") and info.name not in {"common", "util", "utils"}
    )
