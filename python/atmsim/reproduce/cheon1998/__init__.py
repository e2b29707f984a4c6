"""Reproduction of Cheon & Panwar 1998, "On the Performance of ATM-UBR with Early Selective
Packet Discard" (the extended version of their LCN'97 paper, "Early Selective Packet Discard
for Alternating Resource Access of TCP over ATM-UBR"): fifteen greedy Reno connections in
three round-trip groups (10, 8 and 6 ms) cross the last link of a four-switch parking lot
(Fig. 1); the switches discard packets with EPD or with the authors' ESPD. Tables 1-8 and
Figs. 2-3.

``atmsim reproduce cheon1998 [--quick] --out DIR`` calls :func:`main`, which writes into DIR
the runs (``runs/<hash>/``), ``tables.csv`` (every table cell, paper and ours: mean and
standard deviation over seeds), ``figures/`` (fig2, fig3 and again under the alternative
reading, sync, tables), ``comparison.csv`` / ``.json``, ``notes.md`` and ``report.html``.

Full mode: the eight tables' five columns, five seeds each (200 runs of 3 simulated seconds,
statistics from 0.5 s, as the paper), every column again under the alternative reading of
the paper's TCP (:data:`ALTERNATIVE`), and the sensitivity study (:mod:`.study`, scored by
:mod:`.scoring`). ``quick``: the first two columns of every table with two seeds. The
alternative runs are evidence for the notes; ``comparison.csv`` holds the main model only.

Parts: :mod:`.published` (the paper's numbers), :mod:`.runs`, :mod:`.measure`,
:mod:`.claims` (tolerances and rows), :mod:`.tables`, :mod:`.figures`, :mod:`.study` and
:mod:`.scoring` (the sensitivity study), :mod:`.notes` (the values of ``notes.md.j2``).
"""

from __future__ import annotations

from atmsim.reproduce.cheon1998.claims import claims
from atmsim.reproduce.cheon1998.figures import figures
from atmsim.reproduce.cheon1998.measure import Measured, episodes, measure, model_facts
from atmsim.reproduce.cheon1998.notes import notes as notes_values
from atmsim.reproduce.cheon1998.published import CITATION, TABLES, Table
from atmsim.reproduce.cheon1998.runs import (
    ALTERNATIVE,
    QUICK_COLUMNS,
    QUICK_SEEDS,
    jobs,
    seeds,
    shown,
)
from atmsim.reproduce.cheon1998.scoring import Score, Scored, study_scores
from atmsim.reproduce.cheon1998.study import VARIANTS
from atmsim.reproduce.cheon1998.tables import html_tables, table_rows
from atmsim.reproduce.framework import Reproduction

__all__ = [
    "ALTERNATIVE",
    "QUICK_COLUMNS",
    "QUICK_SEEDS",
    "REPRODUCTION",
    "TABLES",
    "VARIANTS",
    "Measured",
    "Score",
    "Scored",
    "Table",
    "claims",
    "episodes",
    "jobs",
    "main",
    "measure",
    "model_facts",
    "report",
    "study_scores",
]

TITLE = "Cheon & Panwar 1998: EPD against Early Selective Packet Discard on a UBR parking lot"

INTRO = (
    "Fifteen greedy Reno sessions in three round-trip groups share the last link of a "
    "four-switch parking lot; the switches discard packets with EPD or ESPD. Each table "
    "below shows the paper's number and ours (mean ± sd over seeds) side by side; each "
    "comparison row states the tolerance fixed before measuring (reasons in "
    "`atmsim/reproduce/cheon1998/claims.py`)."
)


def mode(quick: bool) -> str:
    seeds_run = ", ".join(str(s) for s in seeds(quick))
    if quick:
        return f"quick (2 columns per table, 2 seeds: {seeds_run})"
    return f"full (5 columns, 5 seeds: {seeds_run})"


REPRODUCTION = Reproduction(
    name="cheon1998",
    title=TITLE,
    citation=CITATION,
    intro=INTRO,
    package=__name__,
    jobs=jobs,
    measure=measure,
    claims=claims,
    notes=notes_values,
    mode=mode,
    tables=table_rows,
    figures=figures,
    html_tables=html_tables,
    shown=shown,
    meta={"simulated time per run": "3 s, statistics from 0.5 s"},
)

main = REPRODUCTION.main
report = REPRODUCTION.report
