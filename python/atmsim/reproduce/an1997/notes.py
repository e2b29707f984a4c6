"""The values the An 1997 notes (``notes.md.j2``) are rendered with: plain data computed from
the runs (:mod:`.findings_rows`, :mod:`.findings_fair`, :mod:`.findings_efci`), the thesis's
numbers from :mod:`.published` and the settings atmsim chose."""

from __future__ import annotations

from typing import Any

from atmsim.reproduce.an1997 import findings_efci as efci
from atmsim.reproduce.an1997 import findings_fair as fair
from atmsim.reproduce.an1997 import findings_seeds as seeds
from atmsim.reproduce.an1997 import published as pub
from atmsim.reproduce.an1997.findings_rows import MIN_CAUSE_SEEDS, readings, wide_section
from atmsim.reproduce.an1997.measure import Measured, model_facts
from atmsim.reproduce.an1997.schemes import (
    FAMILIES,
    QUICK_RUN_S,
    TRANSIENT_S,
    VBR_START_S,
    WITHIN,
)
from atmsim.reproduce.an1997.studies import STARVED_SAMPLES
from atmsim.reproduce.framework import Claims

#: Full mode's run length (the scenarios' own), quick mode's from QUICK_OVERRIDES.
FULL_RUN_S = 1.5


def _kind(claim: str) -> str:
    """Which study a disagreeing row's notes point to."""
    if "FMMRA's ABR queue exceeds 3,000" in claim:
        return "n10"
    if "shares throughput more fairly" in claim:
        return "start"
    if "EFCI is the least fair" in claim:
        return "efci"
    return ""


def thesis() -> dict[str, Any]:
    """The thesis's set-up numbers the notes cite."""
    return {
        "link": pub.LINK_MBPS.value,
        "backbone_km": pub.BACKBONE_KM.value,
        "vbr": pub.VBR_MBPS.value,
        "vbr_start_ms": pub.VBR_START_MS.value,
        "periods": list(pub.VBR_PERIODS_MS.value),
        "mss": pub.MSS.value,
        "window_kb": pub.WINDOW_KB.value,
        "processing": list(pub.PROCESSING_US.value),
        "icr": pub.ICR_MBPS.value,
        "n10_erica": pub.PAPER_N10_ERICA.value,
        "n10_fmmra": pub.PAPER_N10_FMMRA.value,
    }


def method() -> dict[str, Any]:
    """The constants of the measures the notes describe (method, not results)."""
    return {
        "sample_ms": 5,  # the scenarios' sampling interval
        "buffer": 1_500,  # the switch buffer of Figs. 4.14-4.16
        "seed": 1,
        "n_big": FAMILIES["n10"][1],
        "n_five": FAMILIES["n5"][1],
        "n_two": FAMILIES["buffer"][1],
        "sync_ms": 10,  # collapse_sync / lone_collapses: within_s
        "starve_ms": 5 * STARVED_SAMPLES,
        "late_first_ms": 250,  # findings_efci.late_start's first span
        "long_km": 100,  # studies.LONG_ACCESS: 500 us
        "acr_equal": 0.05,
        "acr_match": 0.1,
        "held_ratio": 1.5,
        "peak_share": 0.8,
        "acr_floor": 1.0,
        "differ": 0.99,
        "sign_level": 0.05,
    }


def notes(m: Measured, rows: Claims, quick: bool) -> dict[str, Any]:
    facts = model_facts()
    n10 = fair.n10_queue(m, quick)
    starts = fair.starts(m, rows, quick)
    thresholds = efci.thresholds(m, quick)
    causes = {
        "n10": n10,
        "start": starts or {"cause": False, "holds": False},
        "efci": {"cause": thresholds["cause"], "holds": thresholds.get("found", False)},
    }
    rto = seeds.min_rto(m, list(rows), quick)
    causes_seen = seeds.causes(m, list(rows), quick, rto)
    bad = []
    for r in rows:
        if r.agrees:
            continue
        kind = _kind(r.claim)
        study = causes.get(kind, {"cause": False, "holds": False})
        bad.append(
            {
                "claim": r.claim,
                "paper": r.paper,
                "measured": r.measured,
                "unit": r.unit,
                "note": r.note,
                "kind": kind,
                "cause": bool(study["cause"]),
                "holds": bool(study["holds"]),
            }
        )
    return {
        "k": method(),
        "thesis": thesis(),
        "facts": facts,
        "run_s": QUICK_RUN_S if quick else FULL_RUN_S,
        "stats_from_s": VBR_START_S,
        "transient": list(TRANSIENT_S),
        "within": WITHIN,
        "n_seeds": len(m.seeds()),
        "n_wide": len(m.wide_seeds()),
        "min_cause_seeds": MIN_CAUSE_SEEDS,
        "bad": bad,
        "wide": wide_section(m),
        "readings": readings(m, rows, quick),
        "seeds40": seeds.fairness_rows(m, list(rows)),
        "visible": seeds.VISIBLE,
        "min_rto": rto,
        "causes": causes_seen,
        "sensitive": {c["what"]: c["reversed_by"] for c in causes_seen},
        "cause_of": {c["what"]: c for c in causes_seen},
        "n10": n10,
        "starts": starts,
        "fairness": fair.transient(m, bool(starts and starts["cause"])),
        "efci": {
            "summary": efci.summary(m, thresholds["cause"]),
            "where": efci.where(m),
            "overflow": efci.overflow(m),
            "solo": efci.solo(m),
            "per_vc": efci.per_vc(m),
            "long_access": efci.long_access(m),
            "rate": efci.efci_rate(m),
            "starved": efci.starved(m),
            "late_start": efci.late_start(m),
            "perturb": efci.perturb(m),
            "thresholds": thresholds,
        },
    }
