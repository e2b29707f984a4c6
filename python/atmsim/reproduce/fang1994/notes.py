"""The values ``notes.md.j2`` is rendered with: plain data computed from the runs, the model
facts and the paper's numbers (also written beside the notes as notes-values.json)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from atmsim.reproduce.fang1994 import published as P
from atmsim.reproduce.fang1994.measure import Measured, ModelFacts
from atmsim.reproduce.fang1994.runs import (
    AN2,
    BOTTLENECK,
    CELL_DROP,
    DROP_NAMES,
    DROP_SCHEMES,
    NS,
    PAPER_BUFFER,
    WINDOW_BUFFER,
    buffer_name,
    buffers,
    sweep_name,
)
from atmsim.reproduce.fang1994.tolerances import TOL_NO_WASTE, TOL_RATE
from atmsim.reproduce.framework import CONFIDENCE, Claim, fmt_ci, fmt_value

__all__ = [
    "cell_drop_values",
    "conflict_values",
    "discard_values",
    "facts_values",
    "paper_values",
    "seeds_values",
    "values",
]

#: Tahoe's fast retransmit needs three duplicate ACKs, so at least four segments in flight.
FAST_RETRANSMIT_SEGMENTS = 4
#: "Nearly every loss is recovered by a timeout": timeouts at least this many times the fast
#: retransmits.
MOSTLY_TIMEOUTS = 10
#: Our AN2 run "at the ceiling of our framing": within 1 % of it (the ceiling is exact link
#: arithmetic; 1 % leaves room for the start-up after warm-up, nothing more).
AT_CEILING = 0.01


def paper_values() -> dict[str, Any]:
    """The paper's numbers the notes quote, by name (published.py)."""
    names = (
        "CELL_TIME", "PAYLOAD_RATE", "CPU_PER_PACKET", "PAPER_CELLS_PER_SEGMENT", "AN2_SESSION",
        "FLOW_RATE", "MSS64_ALONE", "DW_RETX", "DW_256_RETX", "WINDOW_CELLS", "DW_OF_OPTIMAL",
    )  # fmt: skip
    return {n.lower(): getattr(P, n).value for n in names}


def facts_values(f: ModelFacts) -> dict[str, Any]:
    """The model facts the notes quote."""
    return {
        "cell_time_us": f.cell_time_s * 1e6,
        "cell_rate_mbps": f.cell_rate_mbps,
        "payload_rate_mbps": f.payload_rate_mbps,
        "mss_bytes": f.mss_bytes,
        "frame_bytes": f.frame_bytes,
        "segment_payload_bytes": f.segment_payload_bytes,
        "cells_per_segment": f.cells_per_segment,
        "cells_per_64b_segment": f.cells_per_64b_segment,
        "window_cells": f.window_cells,
        "goodput_ceiling_mbps": f.payload_rate_mbps * f.goodput_fraction,
        "session_ceiling_mbps": f.session_ceiling_mbps,
        "cpu_per_segment_us": f.cpu_per_segment_s * 1e6,
        "cpu_bound_8k_mbps": f.cpu_bound_8k_mbps,
        "cpu_bound_64_mbps": f.cpu_bound_64_mbps,
        "buffer": PAPER_BUFFER,
        "buffer_segments": PAPER_BUFFER / f.cells_per_segment,
        "window_buffer": WINDOW_BUFFER,
    }


def conflict_values(f: ModelFacts, n1_mbps: float, alone_64_mbps: float) -> dict[str, Any]:
    """The paper's Table 2 footnote against its Fig. 7 curve (what per-segment host cost each
    implies), and where our two lone sessions sit against our CPU bounds (within the 5 % rate
    band counts as "at the bound")."""
    per_seg_64 = 64 * 8 / P.MSS64_ALONE.value  # us per 64-B segment
    per_seg_8k = f.mss_bytes * 8 / P.PAYLOAD_RATE.value  # us per 8 KB at the paper's link rate
    n1_ratio = n1_mbps / f.cpu_bound_8k_mbps
    b64_ratio = alone_64_mbps / f.cpu_bound_64_mbps
    return {
        "per_seg_64_us": per_seg_64,
        "per_seg_8k_us": per_seg_8k,
        "cap_8k_mbps": f.mss_bytes * 8 / per_seg_64,
        "wire_64_us": f.cells_per_64b_segment * f.cell_time_s * 1e6,
        "n1_mbps": n1_mbps,
        "alone_64_mbps": alone_64_mbps,
        "n1_at_bound": abs(n1_ratio - 1) <= TOL_RATE.a,
        "b64_at_bound": abs(b64_ratio - 1) <= TOL_RATE.a,
        "b64_above_bound": alone_64_mbps > f.cpu_bound_64_mbps,
    }


def cell_drop_values(m: Measured) -> dict[str, Any]:
    """What drives the cell-drop numbers, from the six-session cell-drop run's counters."""
    timeouts, fast = m.timeouts(CELL_DROP), m.fast_retransmits(CELL_DROP)
    cwnd = m.mean_cwnd_segments(CELL_DROP)
    return {
        "dropped": int(m.totals(CELL_DROP)["cells_dropped"]),
        "timeouts": timeouts,
        "fast_retransmits": fast,
        "mostly_timeouts": timeouts >= MOSTLY_TIMEOUTS * max(fast, 1),
        "cwnd_segments": cwnd,
        "cwnd_too_small": cwnd is not None and cwnd < FAST_RETRANSMIT_SEGMENTS,
        "fast_retransmit_segments": FAST_RETRANSMIT_SEGMENTS,
        "longest_idle_s": m.longest_idle_s(CELL_DROP),
    }


def discard_values(m: Measured, quick: bool) -> dict[str, Any]:
    """What drives the packet-discard numbers (Figs. 9-12), from the runs' counters."""
    schemes = []
    for scheme in DROP_SCHEMES:
        name = buffer_name(scheme, PAPER_BUFFER)
        p = m.port(name)
        schemes.append(
            {
                "name": DROP_NAMES[scheme],
                "goodput_mbps": m.mean_goodput(name),
                "timeouts": m.timeouts(name),
                "fast_retransmits": m.fast_retransmits(name),
                "raw_pct": float(p["utilization"]) * 100,
                "effective_pct": float(p["effective_utilization"]) * 100,
            }
        )
    dw = buffer_name("drop-whole", PAPER_BUFFER)
    reasons = m.drops_by_reason(dw)
    whole = reasons.get("purged", 0) + reasons.get("frame_tail", 0)
    p_dw, p_an2 = m.port(dw), m.port(AN2)
    waste = (float(p_dw["utilization"]) - float(p_dw["effective_utilization"])) * 100
    dw512 = buffer_name("drop-whole", 512)
    big = [
        {
            "name": DROP_NAMES[s],
            "dropped": int(m.totals(buffer_name(s, WINDOW_BUFFER))["cells_dropped"]),
            "max_port_queue": int(m.port(buffer_name(s, WINDOW_BUFFER))["max_queue_cells"]),
        }
        for s in DROP_SCHEMES
    ]
    return {
        "schemes": schemes,
        "reasons": [{"reason": k, "cells": v} for k, v in reasons.items()],
        "whole_frame_share": whole / max(sum(reasons.values()), 1),
        "waste_points": waste,
        "no_waste": TOL_NO_WASTE.check(waste),
        "dw_raw_pct": float(p_dw["utilization"]) * 100,
        "an2_raw_pct": float(p_an2["utilization"]) * 100,
        "dw_timeouts": m.timeouts(dw),
        "dw512": {
            "timeouts": m.timeouts(dw512),
            "fast_retransmits": m.fast_retransmits(dw512),
            "goodput_mbps": m.mean_goodput(dw512),
            "buffer": 512,
        },
        "big": big,
        "big_all_lossless": all(b["dropped"] == 0 for b in big),
        "buffers": list(buffers(quick)),
    }


def _seed_row(r: Claim, first: int) -> dict[str, Any]:
    return {
        "claim": r.claim,
        "id": r.id,
        "unit": r.unit,
        "single": fmt_value(r.by_seed[first]),
        "single_agrees": r.agrees_alone(first),
        "measured": fmt_value(r.measured),
        "ci": fmt_ci(r.ci, r.measured),
        "agrees": r.agrees,
        "tolerance": r.tolerance,
    }


def scenario_randomness() -> dict[str, Any]:
    """What the seed draws in the fang1994 scenarios, from the canonical text of
    fang1994-cell-drop (every other fang1994 scenario is it with changes that add no random
    draw): the connections' start jitter and the hosts' CPU jitter."""
    import tomllib

    import atmsim

    spec = tomllib.loads(atmsim.validate(CELL_DROP))
    starts = sorted({str(c.get("start_jitter", "0 s")) for c in spec["connection"]})
    cpu = str(spec["host"]["processing_jitter"])  # canonical: "<number> <unit>"
    return {
        "start_jitter": ", ".join(starts),
        "cpu_jitter": cpu,
        "cpu_jitter_zero": float(cpu.split()[0]) == 0,
    }


def seeds_values(m: Measured, rows: Sequence[Claim]) -> dict[str, Any]:
    """What running several seeds changes against seed 1 alone (the single run of a
    one-seed reproduction): rows whose verdict or shown value differs, rows whose interval
    reaches across their tolerance's edge, and how much each run's mean goodput moves
    between seeds, for the runs that lost cells and for those that lost none."""
    seeds = m.seeds
    first = seeds[0]
    over = [r for r in rows if r.over_seeds]
    same = [r for r in over if len({fmt_value(v) for v in r.by_seed.values()}) == 1]
    changed = [r for r in over if fmt_value(r.by_seed[first]) != fmt_value(r.measured)]
    verdict = [r for r in over if r.agrees_alone(first) != r.agrees]
    unsettled = [r for r in over if r.settled is False]
    lossy, lossless = [], []
    for name in m.res:
        g = [x.mean_goodput(name) for x in m.runs or [m]]
        lost = any(int(x.totals(name)["cells_dropped"]) > 0 for x in m.runs or [m])
        spread = (max(g) - min(g)) / (sum(g) / len(g)) if sum(g) > 0 else 0.0
        (lossy if lost else lossless).append(spread)
    return {
        "n": len(seeds),
        "first": first,
        "list": seeds,
        "level": CONFIDENCE,
        **scenario_randomness(),
        "rows_over_seeds": len(over),
        "same": len(same),
        "changed": [_seed_row(r, first) for r in changed],
        "verdict_changed": [_seed_row(r, first) for r in verdict],
        "unsettled": [_seed_row(r, first) for r in unsettled],
        "lossless_runs": len(lossless),
        "lossy_runs": len(lossy),
        "lossless_spread": max(lossless, default=0.0),
        "lossy_spread": max(lossy, default=0.0),
    }


def _agrees(rows: Sequence[Claim], id: str) -> bool:
    return next(r.agrees for r in rows if r.id == id)


def values(m: Measured, rows: Sequence[Claim], quick: bool) -> dict[str, Any]:
    """Every value notes.md.j2 uses."""
    f = m.facts
    an2 = m.mean_goodput(AN2)
    n1 = m.mean_goodput(sweep_name("an2", 1))
    alone_64 = float(m.goodputs("fang1994-mss64-alone").iloc[0])
    return {
        "paper": paper_values(),
        "facts": facts_values(f),
        "bottleneck": BOTTLENECK,
        "rate_band": TOL_RATE.a,
        "ns": list(NS),
        "conflict": conflict_values(f, n1, alone_64),
        "cell_drop": cell_drop_values(m),
        "discard": discard_values(m, quick),
        "an2_mbps": an2,
        "an2_at_ceiling": abs(an2 / f.session_ceiling_mbps - 1) <= AT_CEILING,
        "dw_loss_equals_retx": _agrees(rows, "fig11-loss-equals-retx"),
        "spread_more_under_cell_drop": _agrees(rows, "fig4-spread"),
        "seeds": seeds_values(m, rows),
    }
