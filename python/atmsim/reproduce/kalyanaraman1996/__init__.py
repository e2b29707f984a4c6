"""Reproduction of Kalyanaraman, Jain, Fahmy, Goyal, Jiang & Kim 1996, "Performance of TCP
over ABR on ATM backbone and with various VBR traffic patterns" (ATM Forum 96-1294): fifteen
greedy TCPs over ABR share one OC-3 bottleneck on 1000 km links; Table 1 (source queues under
ERICA), Table 2 (switch queues under ERICA+ with a VBR ON-OFF background), Table 3 (the
feedback delay) and Table 4 (averaging the number of sources and the load factor).

``atmsim reproduce kalyanaraman1996 [--quick] --out DIR`` runs it. Full mode runs every
scenario for 3 s (statistics from 1 s); ``quick`` runs 1.5 s (statistics from 0.5 s) and
skips Table 3's 5 ms feedback delay (500 km links). For the notes, Table 1's rows also run
over 20 s (statistics from 5 s; quick: 6 s from 3 s), and the rows whose source queues
overflow run again with queues that lose whole frames; every row of Table 1 runs again under
three readings of the sources' side (an edge router fed over a 155.52 Mb/s access line,
starts drawn from [0, 30 ms], both), and the overflowing rows over the long run under the
first, whose 10 ms series give the account of the overflow cycles.

The parts: :mod:`.published` (the paper's numbers), :mod:`.runs`, :mod:`.measure` (with the
stated divergence test), :mod:`.claims`, :mod:`.tables`, :mod:`.figures`, :mod:`.notes` (the
values of ``notes.md.j2``).
"""

from __future__ import annotations

from atmsim.reproduce.framework import Reproduction
from atmsim.reproduce.kalyanaraman1996 import figures, notes, published, tables
from atmsim.reproduce.kalyanaraman1996.claims import claims
from atmsim.reproduce.kalyanaraman1996.measure import divergent, measure
from atmsim.reproduce.kalyanaraman1996.published import T1, T2, T3, T4
from atmsim.reproduce.kalyanaraman1996.runs import (
    ACCOUNT_METRICS,
    LONG_READING,
    QUICK_LONG_OVERRIDES,
    QUICK_OVERRIDES,
    READINGS,
    T1_OVERFLOWING,
    jobs,
    shown,
    t1_name,
    t1_reading,
    t1_variant,
)

__all__ = [
    "ACCOUNT_METRICS",
    "LONG_READING",
    "QUICK_LONG_OVERRIDES",
    "QUICK_OVERRIDES",
    "READINGS",
    "REPRODUCTION",
    "T1",
    "T1_OVERFLOWING",
    "T2",
    "T3",
    "T4",
    "claims",
    "divergent",
    "jobs",
    "main",
    "report",
    "t1_name",
    "t1_reading",
    "t1_variant",
]

REPRODUCTION = Reproduction(
    name="kalyanaraman1996",
    title=(
        "Kalyanaraman et al. 1996: TCP over ABR on an ATM backbone, and with VBR ON-OFF "
        "background (ERICA, ERICA+)"
    ),
    citation=published.CITATION,
    intro=(
        "Fifteen greedy TCPs over ABR share one OC-3 bottleneck on 1000 km links. Table 1: "
        "ERICA pushes the TCP windows out to the sources' queues; Tables 2-4: ERICA+ against "
        "a VBR ON-OFF background, where some patterns make the switch queue diverge. Each "
        "row states its tolerance, fixed before measuring (reasons in "
        "`atmsim/reproduce/kalyanaraman1996/claims.py`)."
    ),
    package=__name__,
    jobs=jobs,
    measure=measure,
    claims=claims,
    notes=notes.values,
    mode=lambda quick: "quick (1.5 s runs)" if quick else "full (3 s runs)",
    tables=tables.table_rows,
    figures=figures.figures,
    html_tables=tables.html_tables,
    shown=shown,
)

main = REPRODUCTION.main
report = REPRODUCTION.report
