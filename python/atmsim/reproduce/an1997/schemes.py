"""The An 1997 networks and schemes as atmsim runs them: the thesis's three switch schemes
(section 4.2), the figure families (Fig. 4.1's network with N sources), the seeds and the runs'
labels."""

from __future__ import annotations

from typing import Any

BOTTLENECK = "A->B"
#: The thesis's MSS (section 4.2), as its built-in scenarios set it.
MSS_BYTES = 9180
#: The series' sample interval (the scenarios' run.sample_every) [s].
SAMPLE_S = 0.005
#: EFCI's rate increase factor as the thesis sets it (section 4.2).
EFCI_RIF = 0.1
VBR_START_S = 0.3
#: --quick: shorter runs [s].
QUICK_RUN_S = 0.9
QUICK_OVERRIDES = {"run.duration": f"{QUICK_RUN_S:g} s"}
#: The fairness claims (Figs. 4.8-4.10 and 4.14-4.16) compare Jain indices that differ in the
#: third or fourth decimal between runs that differ only in the seed (the hosts' processing
#: jitter): they are judged on the mean over these seeds, each scheme run with every one of
#: them (seed 1 is the run every other claim and figure uses).
FAIRNESS_SEEDS = (1, 2, 3, 4, 5)
QUICK_FAIRNESS_SEEDS = (1, 2)
#: The families whose fairness claims use FAIRNESS_SEEDS.
FAIRNESS_FAMILIES = ("n5", "buffer")

#: The three schemes as the thesis sets them (section 4.2): ERICA and FMMRA with RIF 1 and
#: RDF 1/512, EFCI with RIF 0.1 and RDF 1/16. ERICA as the thesis states it (equations 3.1-3.6):
#: capacity U x link bandwidth (3.2) with U = 0.9 (the first of its "typical values"),
#: ER = max(FairShare, CCR / z) (3.5). FMMRA and EFCI with atmsim's defaults for what the
#: thesis leaves open (see docs/scenarios.md).
SCHEMES: dict[str, dict[str, Any]] = {
    "efci": {
        "switch.*.rate_control": {"kind": "efci"},
        "abr.rif": "0.1",
        "abr.rdf": "0.0625",
    },
    "erica": {
        "switch.*.rate_control": {
            "kind": "erica",
            "target_utilization": 0.9,
            "max_min_steps": False,
            "subtract_real_time": False,
        },
        "abr.rif": "1.0",
        "abr.rdf": "0.001953125",
    },
    "fmmra": {
        "switch.*.rate_control": {"kind": "fmmra"},
        "abr.rif": "1.0",
        "abr.rdf": "0.001953125",
    },
}
NAMES = {
    "efci": "EFCI",
    "erica": "ERICA",
    "fmmra": "FMMRA",
}
COLORS = {"efci": "#c0392b", "erica": "#1f5fa8", "fmmra": "#2e8b57"}

#: The figure families: (built-in scenario, N, VBR ON/OFF ms, schemes).
FAMILIES = {
    "n2": ("an1997-n2-10ms", 2, 10, tuple(SCHEMES)),
    "n5": ("an1997-n5-10ms", 5, 10, tuple(SCHEMES)),
    "acr": ("an1997-n2-100ms", 2, 100, tuple(SCHEMES)),
    "buffer": ("an1997-n2-buffer1500", 2, 10, tuple(SCHEMES)),
    "n10": ("an1997-n10-10ms", 10, 10, ("erica", "fmmra")),
}
#: The families a FMMRA setting of the sensitivity grid runs on.
FMMRA_FAMILIES = ("n2", "n5", "acr", "buffer", "n10")
#: The transient of Figs. 4.8-4.10 (fairness "during the transient period"): the first
#: 300 ms after the VBR source starts.
TRANSIENT_S = (0.3, 0.6)
#: Response to a VBR change (Figs. 4.11-4.13): the time until the sources' ACR is within 10%
#: of where it settles in that ON or OFF phase.
WITHIN = 0.10


#: Seeds on which the fairness rows (Figs. 4.8-4.10 and 4.14-4.16) are scored again: the
#: fairness seeds and thirty-five more. The indices differ by a few thousandths from seed to
#: seed, so the sign of a mean difference over five seeds may be the seeds'; a reading that
#: turns a fairness row round on the fairness seeds could be a cause only if it holds on these
#: too. Forty, not twenty: the 1,500-cell row's Jain difference is a few thousandths, within
#: what one unstated setting (the minimum RTO) moves, so the rows are scored on enough seeds
#: to separate the schemes (:data:`.studies.VISIBLE` fixes how).
#: Run for the main model and for every reading, on the schemes it touches (goodput only).
WIDE_SEEDS = tuple(range(1, 41))
QUICK_WIDE_SEEDS = (1, 2, 3)


def wide_seeds(quick: bool) -> tuple[int, ...]:
    return QUICK_WIDE_SEEDS if quick else WIDE_SEEDS


def wide_label(lab: str) -> str:
    """The label of a run made only for the wider seeds (kept out of the tables and of
    :meth:`Measured.under`)."""
    return f"wide:{lab}"


#: Seeds on which the 1,500-cell fairness row's two schemes (ERICA, EFCI) run once more with
#: the main model (no series): the difference is a few thousandths with a seed-to-seed spread
#: as large, so twenty seeds leave its sign to chance by a sign test; a hundred give its
#: standard error. Full mode only.
ROW_SEEDS = tuple(range(1, 101))
ROW_SCHEMES = ("erica", "efci")


def row_label(lab: str) -> str:
    """The label of a run made only for :data:`ROW_SEEDS`."""
    return f"row:{lab}"


def label(family: str, scheme: str, seed: int = 1) -> str:
    return f"{family}-{scheme}" + ("" if seed == 1 else f"-s{seed}")


def fairness_seeds(quick: bool) -> tuple[int, ...]:
    return QUICK_FAIRNESS_SEEDS if quick else FAIRNESS_SEEDS
