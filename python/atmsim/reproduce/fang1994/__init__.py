"""Reproduction of Fang, Chen & Hutchins 1994, "A simulation study of TCP performance in
ATM networks": six greedy TCP sessions share one inter-switch link of an ATM LAN, with simple
cell drop or with AN2 credit-based per-VC per-hop flow control, or with the selective
"drop-tail" and "drop-whole" packet discard; Figures 3-12 and Table 2.

``atmsim reproduce fang1994 [--quick] --out DIR`` calls :func:`main`, which writes into DIR
the runs (``runs/<hash>/``, the sweep engine's cache), ``figures/fig3.png`` ...
``fig12.png`` and ``table2.png``, ``comparison.csv`` / ``.json``, ``notes.md`` (with
``notes-values.json``) and ``report.html``; :func:`report` rebuilds them from the stored runs.
Every run is made with several seeds (:func:`seeds`); each comparison row is the mean of the
values each seed's runs give, with its 95 % confidence interval.

The parts: :mod:`.published` (the paper's numbers), :mod:`.runs` (the jobs),
:mod:`.measure` (measurements and model facts), :mod:`.tolerances` and :mod:`.claims` /
:mod:`.claims_discard` (the comparison), :mod:`.figures` / :mod:`.figures_discard`,
:mod:`.notes` with ``notes.md.j2``.
"""

from __future__ import annotations

from atmsim.reproduce.fang1994 import figures, notes
from atmsim.reproduce.fang1994.claims import claims
from atmsim.reproduce.fang1994.measure import Measured, measure, model_facts
from atmsim.reproduce.fang1994.published import CITATION
from atmsim.reproduce.fang1994.runs import (
    BUFFERS,
    DROP_SCHEMES,
    QUICK_BUFFERS,
    QUICK_OVERRIDES,
    buffer_name,
    buffers,
    jobs,
    mode,
    seeds,
    sweep_name,
)
from atmsim.reproduce.framework import Reproduction

__all__ = [
    "BUFFERS",
    "DROP_SCHEMES",
    "QUICK_BUFFERS",
    "QUICK_OVERRIDES",
    "REPRODUCTION",
    "Measured",
    "buffer_name",
    "buffers",
    "claims",
    "jobs",
    "main",
    "measure",
    "model_facts",
    "report",
    "seeds",
    "sweep_name",
]

TITLE = (
    "Fang, Chen & Hutchins 1994: TCP over a congested ATM LAN, cell drop, packet discard "
    "and AN2 credits"
)

INTRO = (
    "Six greedy TCP sessions share the inter-switch link of Fang et al.'s ATM LAN (Fig. 2) "
    "under simple cell drop, AN2 credit flow control, or the selective drop-tail and "
    "drop-whole packet discard (Figs. 9-12, also against the per-VC buffer). Each row "
    "below states one claim of the paper, our measurement, and the tolerance fixed "
    "before measuring (the reasons are in `atmsim/reproduce/fang1994/tolerances.py`; the "
    "modelling choices and the causes of disagreements are under *Modelling notes*)."
)

REPRODUCTION = Reproduction(
    name="fang1994",
    title=TITLE,
    citation=CITATION,
    intro=INTRO,
    package=__name__,
    jobs=jobs,
    measure=measure,
    claims=claims,
    notes=notes.values,
    mode=mode,
    figures=figures.figures,
    shown=list,
)

main = REPRODUCTION.main
report = REPRODUCTION.report
