"""Reproduction of Liping An 1997 (M.S. thesis, NJIT), "TCP/IP traffic over ATM networks
with ABR flow and congestion control": greedy TCPs over ABR share a LAN backbone with a VBR
ON-OFF source that has strict priority, under three switch schemes: EFCI (binary), ERICA
(explicit rate) and FMMRA (fast max-min rate allocation); Figs. 4.2-4.18.

The thesis gives its results as figures and sentences, not tables: each of its claims
becomes a measured comparison row. ``atmsim reproduce an1997 [--quick] --out DIR`` writes the
run cache, ``figures/``, ``comparison.csv`` / ``comparison.json``, ``tables.csv``,
``notes.md`` (from ``notes.md.j2``, with ``notes-values.json``) and ``report.html``. Full mode
runs 1.5 s per run (statistics from 0.3 s, when the VBR source starts); ``quick`` runs 0.9 s.

The parts: :mod:`.published` (the thesis's numbers), :mod:`.schemes` (schemes, networks,
seeds, labels), :mod:`.studies` (grids, readings and tests of the mechanism, as data),
:mod:`.runs` (the jobs), :mod:`.measure`, :mod:`.criteria` (every claim about FMMRA and about
EFCI, for the grids), :mod:`.claims`, :mod:`.tables`, :mod:`.figures`, and the notes' values
(:mod:`.notes` with :mod:`.findings`).
"""

from __future__ import annotations

from atmsim.reproduce.an1997.claims import claims, pair_of
from atmsim.reproduce.an1997.criteria import (
    CRITERIA,
    EFCI_CRITERIA,
    efci_criteria,
    fmmra_criteria,
)
from atmsim.reproduce.an1997.figures import figures
from atmsim.reproduce.an1997.measure import (
    Measured,
    collapse_sync,
    lone_repeats,
    measure,
    overflows,
    response_times,
    sign_test,
    solo_collapses,
    starved_share,
)
from atmsim.reproduce.an1997.notes import notes
from atmsim.reproduce.an1997.published import CITATION
from atmsim.reproduce.an1997.runs import jobs
from atmsim.reproduce.an1997.schemes import (
    FAIRNESS_FAMILIES,
    FAMILIES,
    FMMRA_FAMILIES,
    QUICK_FAIRNESS_SEEDS,
    QUICK_OVERRIDES,
    QUICK_WIDE_SEEDS,
    SCHEMES,
    label,
)
from atmsim.reproduce.an1997.studies import (
    EFCI_GRID,
    FMMRA_GRID,
    LONG_ACCESS_SCHEMES,
    PER_VC_SCHEMES,
    QUICK_EFCI_GRID,
    QUICK_EFCI_RATE_GRID,
    QUICK_FMMRA_GRID,
    READINGS,
    efci_key,
    efci_rate_key,
    fmmra_key,
    long_access_key,
    per_vc_key,
    reading_families,
    reading_label,
    reading_overrides,
    readings,
)
from atmsim.reproduce.an1997.tables import html_tables, tables
from atmsim.reproduce.framework import Reproduction

TITLE = "An 1997: TCP over ABR with VBR background, EFCI, ERICA and FMMRA compared"


def mode(quick: bool) -> str:
    return "quick (0.9 s runs)" if quick else "full (1.5 s runs)"


REPRODUCTION = Reproduction(
    name="an1997",
    title=TITLE,
    citation=CITATION,
    intro=(
        "Greedy TCPs over ABR share a LAN backbone with a 100 Mb/s VBR ON-OFF source that has "
        "priority, under EFCI, ERICA and FMMRA. The thesis reports figures and sentences; each "
        "sentence is a row below, measured on the same networks."
    ),
    package=__name__,
    jobs=jobs,
    measure=measure,
    claims=claims,
    notes=notes,
    mode=mode,
    tables=tables,
    figures=figures,
    html_tables=html_tables,
)
main = REPRODUCTION.main
report = REPRODUCTION.report

__all__ = [
    "CRITERIA",
    "EFCI_CRITERIA",
    "EFCI_GRID",
    "FAIRNESS_FAMILIES",
    "FAMILIES",
    "FMMRA_FAMILIES",
    "FMMRA_GRID",
    "LONG_ACCESS_SCHEMES",
    "PER_VC_SCHEMES",
    "QUICK_EFCI_GRID",
    "QUICK_EFCI_RATE_GRID",
    "QUICK_FAIRNESS_SEEDS",
    "QUICK_FMMRA_GRID",
    "QUICK_OVERRIDES",
    "QUICK_WIDE_SEEDS",
    "READINGS",
    "REPRODUCTION",
    "SCHEMES",
    "Measured",
    "claims",
    "collapse_sync",
    "efci_criteria",
    "efci_key",
    "efci_rate_key",
    "fmmra_criteria",
    "fmmra_key",
    "jobs",
    "label",
    "lone_repeats",
    "long_access_key",
    "main",
    "measure",
    "overflows",
    "pair_of",
    "per_vc_key",
    "reading_families",
    "reading_label",
    "reading_overrides",
    "readings",
    "report",
    "response_times",
    "sign_test",
    "solo_collapses",
    "starved_share",
]
