"""The values the atlas's notes (``notes.md.j2``) are rendered with: plain data."""

from __future__ import annotations

from typing import Any

from atmsim.reproduce.atlas import config
from atmsim.reproduce.atlas.axis import tcp_axis
from atmsim.reproduce.atlas.measure import SPREAD_NET, Atlas
from atmsim.reproduce.atlas.networks import NETWORKS
from atmsim.reproduce.atlas.schemes import credit_cells
from atmsim.reproduce.atlas.study import (
    cheon_reading,
    epd_busy,
    network_reading,
    orderings_reading,
    spread_reading,
)
from atmsim.reproduce.atlas.tcps import ECN_MARK_SHARE
from atmsim.reproduce.framework import Claims


def cause(claim_id: str) -> str:
    """Which of the notes' accounts of a disagreeing check applies: "cheon-share" and
    "cheon-ratio" (Cheon & Panwar's two orderings: what the atlas's runs show of EPD's link
    and of the closest reading of the paper's TCP), "kaly-sources" or "none"."""
    if claim_id == "cheon-espd-above-epd":
        return "cheon-share"
    if claim_id.startswith("cheon-"):
        return "cheon-ratio"
    if claim_id == "kaly-queue-at-sources":
        return "kaly-sources"
    return "none"


def run_lengths(a: Atlas) -> list[dict[str, Any]]:
    out = []
    for nk in a.cfg.networks:
        net = NETWORKS[nk]
        dur, warm = a.cfg.run or (net.quick_run if a.quick else net.full_run)
        out.append(
            {
                "title": net.title,
                "duration": dur,
                "warmup": warm,
                "sample_every": net.sample_every,
                "grid": list(a.cfg.buffers(net, a.quick)),
                "credits": credit_cells(net),
            }
        )
    return out


def vbr_to_nominal(a: Atlas) -> dict[str, float] | None:
    """The smallest and largest VBR delivered / nominal over every run that has a VBR
    source (None: no such run)."""
    col = "vbr_delivered_to_nominal"
    if col not in a.runs:
        return None
    x = a.runs[col].dropna()
    return {"lo": float(x.min()), "hi": float(x.max()), "runs": len(x)} if len(x) else None


def notes(a: Atlas, rows: Claims, quick: bool) -> dict[str, Any]:
    spread_run = None
    if a.spread is not None and len(a.spread):
        dur, warm = a.cfg.run or config.spread_run(quick)
        net = NETWORKS[SPREAD_NET]
        spread_run = {
            "reference": a.reference(SPREAD_NET),
            "duration": dur,
            "warmup": warm,
            "main_duration": (net.quick_run if quick else net.full_run)[0],
        }
    return {
        "n_seeds": len(a.cfg.seed_list(a.quick)),
        "n_runs": len(a.runs),
        "run_lengths": run_lengths(a),
        "spread_run": spread_run,
        "networks": [network_reading(a, nk) for nk in a.cfg.networks],
        "spread": spread_reading(a),
        "orderings": orderings_reading(a),
        "causes": {r.id: cause(r.id) for r in rows},
        "reading": cheon_reading(a),
        "epd": epd_busy(a),
        "tcp_axis": tcp_axis(a, quick),
        "ecn_share": ECN_MARK_SHARE,
        "vbr_nominal": vbr_to_nominal(a),
    }
