"""Reproduction of Goyal, Jain, Fahmy & Vandalore 1998 (LCN'98), "Providing Rate Guarantees
to TCP over the ATM GFR Service": SACK TCPs whose rates a FIFO switch controls through
per-VC buffer thresholds.

- Fig. 3: one TCP losing a segment each time its window reaches 125,000 / 250,000 /
  500,000 bytes (or never): throughput against equation 1 (8e-6 x average cwnd / RTT).
- Tables 1-3: fifteen TCPs, each its own VC, in a 48,000-cell FIFO that drops one frame of
  a VC each time its occupancy crosses its threshold (four threshold sets): per-group
  throughput, total, and the ratio of throughput share to threshold share.
- Tables 4-5: the same TCPs merged three to a VC at edge switches, the GFR buffer policy
  (Z = 1.5) on the backbone (three threshold sets): ratios, utilisation, maximum queue.

``atmsim reproduce goyal1998 [--quick] --out DIR`` writes the run cache, ``figures/``,
``comparison.csv`` / ``comparison.json``, ``tables.csv``, ``notes.md`` and ``report.html``.
The paper's numbers are single runs; the tables here are means over seeds (full mode: 3,
quick: 1) with the standard deviation beside them, and the comparison rows of Tables 2-5 are
those means with their 95 % confidence intervals (``measured_ci``, ``seeds``).

Parts: :mod:`.published` (the paper's numbers), :mod:`.runs`, :mod:`.measure`,
:mod:`.claims`, :mod:`.study` (the readings), :mod:`.tables`, :mod:`.figures`, :mod:`.notes`
with ``notes.md.j2``.
"""

from __future__ import annotations

from atmsim.reproduce.framework import Reproduction
from atmsim.reproduce.goyal1998.claims import claims
from atmsim.reproduce.goyal1998.figures import figures
from atmsim.reproduce.goyal1998.measure import Measured, measure, model_facts
from atmsim.reproduce.goyal1998.notes import notes
from atmsim.reproduce.goyal1998.published import CITATION, TABLE1, TABLE4
from atmsim.reproduce.goyal1998.runs import QUICK, jobs
from atmsim.reproduce.goyal1998.tables import html_tables, table_rows

__all__ = [
    "QUICK",
    "REPRODUCTION",
    "TABLE1",
    "TABLE4",
    "Measured",
    "claims",
    "jobs",
    "main",
    "measure",
    "model_facts",
    "report",
]

TITLE = "Goyal et al. 1998: rate guarantees to SACK TCP over GFR by FIFO buffer management"

INTRO = (
    "SACK TCPs share a FIFO switch buffer whose policy drops frames by per-VC thresholds; "
    "their throughputs follow the thresholds. One TCP per VC (Tables 1-3), then three "
    "TCPs merged per VC under the GFR buffer policy (Tables 4-5), and the window-"
    "controlled single TCP of Fig. 3."
)


def mode(quick: bool) -> str:
    return "quick (one seed, shorter runs)" if quick else "full (3 seeds)"


REPRODUCTION = Reproduction(
    name="goyal1998",
    title=TITLE,
    citation=CITATION,
    intro=INTRO,
    package=__name__,
    jobs=jobs,
    measure=measure,
    claims=claims,
    notes=notes,
    mode=mode,
    tables=table_rows,
    figures=figures,
    html_tables=html_tables,
)

main = REPRODUCTION.main
report = REPRODUCTION.report
