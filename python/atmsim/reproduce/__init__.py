"""Paper reproductions: one package per paper (``atmsim reproduce NAME``).

Each package ``atmsim.reproduce.<name>`` declares a
:class:`~atmsim.reproduce.framework.Reproduction` (``REPRODUCTION``: its runs, measures,
claims, tables, figures and notes template) and exports its ``main(out_dir, quick)`` and
``report(out_dir)``; :mod:`atmsim.reproduce.framework` runs, rebuilds and publishes every one
the same way (``comparison.csv``, ``tables.csv``, ``notes.md``, ``report.html``).

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
- ``atlas``: every scheme of the five studies side by side on the same networks.
"""

from __future__ import annotations

__all__ = ["available", "get"]

#: Subpackages and modules that are not reproductions.
_NOT_REPRODUCTIONS = {"framework", "common", "util", "utils"}


def available() -> list[str]:
    """The names of the reproductions in this package."""
    import pkgutil

    return sorted(
        info.name
        for info in pkgutil.iter_modules(__path__)
        if not info.name.startswith("_") and info.name not in _NOT_REPRODUCTIONS
    )


def get(name: str):  # -> Reproduction
    """The :class:`~atmsim.reproduce.framework.Reproduction` called ``name``."""
    import importlib

    if name not in available():
        raise KeyError(f"no reproduction named {name!r}; available: {', '.join(available())}")
    return importlib.import_module(f"{__name__}.{name}").REPRODUCTION
