"""The values the Goyal et al. 1998 notes (``notes.md.j2``) are rendered with: plain data."""

from __future__ import annotations

from typing import Any

from atmsim.reproduce.framework import CONFIDENCE, Claims, fmt_ci, fmt_value
from atmsim.reproduce.goyal1998.measure import Measured, model_facts
from atmsim.reproduce.goyal1998.runs import seeds
from atmsim.reproduce.goyal1998.study import fig3_reading, merge_reading


def cause(claim_id: str) -> str:
    """What is known of a disagreeing row: "fig3" (the Fig. 3 reading), "distance" (a Tables
    4-5 row: the readings of Fig. 7's distances are below) or "none"."""
    if claim_id.startswith("fig3"):
        return "fig3"
    if claim_id.startswith(("table5", "tables4-5")):
        return "distance"
    return "none"


def notes(m: Measured, rows: Claims, quick: bool) -> dict[str, Any]:
    merge = merge_reading(m)
    disagree = [
        {
            "claim": r.claim,
            "paper": r.paper,
            "measured": r.measured,
            "unit": r.unit,
            "note": r.note,
            "cause": cause(r.id),
        }
        for r in rows
        if not r.agrees
    ]
    over = [r for r in rows if r.over_seeds]
    unsettled = [
        {
            "claim": r.claim,
            "measured": fmt_value(r.measured),
            "ci": fmt_ci(r.ci, r.measured),
            "tolerance": r.tolerance,
            "agrees": r.agrees,
        }
        for r in over
        if r.settled is False
    ]
    return {
        "n_seeds": len(seeds(quick)),
        "level": CONFIDENCE,
        "rows_over_seeds": len(over),
        "unsettled": unsettled,
        "max_goodput_mbps": model_facts()["max_goodput_mbps"],
        "disagree": disagree,
        "fig3": fig3_reading(m),
        "merge": merge,
    }
