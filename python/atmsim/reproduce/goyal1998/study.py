"""The readings of the Goyal et al. 1998 reproduction, as data: Fig. 3 against the paper's
simulation (windows, round trips, the throughput counted from time 0), and Tables 4-5
under two readings of Fig. 7's distances and the GFR policy's unstated parameters."""

from __future__ import annotations

from typing import Any

from atmsim.reproduce.goyal1998.claims import TOL_FIG3, TOL_MAX_QUEUE, TOL_UTIL, merge_tol
from atmsim.reproduce.goyal1998.measure import Measured, merge_ratios, model_facts
from atmsim.reproduce.goyal1998.published import (
    FIG3_FORMULA,
    FIG3_PAPER,
    RTT_S,
    TABLE4,
    TABLE5_MAX_QUEUE,
)
from atmsim.reproduce.goyal1998.runs import (
    FIG3_CASES,
    FIG3_WINDOWS,
    FROM_ZERO_DURATIONS,
    POLICY_VARIANTS,
)

#: "Close to 3W/4" (the average of equation 2's sawtooth between W/2 and W): within 0.05 W.
NEAR_3W4 = 0.05


def fig3_reading(m: Measured) -> dict[str, Any]:
    """Fig. 3's lossy cases against the paper's simulation: our throughput, average window
    (in units of the loss window W) and RTT against the paper's, and the throughput counted
    from time 0."""
    cases = []
    for k, at in enumerate(FIG3_CASES[:3]):
        g, cwnd, rtt = m.fig3(k)
        w = float(FIG3_WINDOWS[k])
        paper_avg = FIG3_FORMULA[k] * RTT_S.value / 8e-6
        cases.append(
            {
                "case": at,
                "goodput": g,
                "paper": FIG3_PAPER[k],
                "off_pct": 100 * (g / FIG3_PAPER[k] - 1),
                "window_w": cwnd / w,
                "paper_window_w": paper_avg / w,
                "rtt_ms": rtt * 1e3,
                "paper_sim_vs_eq1_pct": 100 * (FIG3_PAPER[k] / FIG3_FORMULA[k] - 1),
                "eq1_agrees": TOL_FIG3.check(g, round(8e-6 * cwnd / rtt, 2)),
            }
        )
    from_zero = []
    for d in FROM_ZERO_DURATIONS:
        vals = []
        for k in range(3):
            g = m.from_zero(k, d)
            vals.append(
                {
                    "goodput": g,
                    "off_pct": 100 * (g / FIG3_PAPER[k] - 1),
                    "agrees": TOL_FIG3.check(g, FIG3_PAPER[k]),
                }
            )
        from_zero.append({"duration": d, "values": vals})
    return {
        "cases": cases,
        "eq1_all_agree": all(c["eq1_agrees"] for c in cases),
        "windows_near_3w4": all(abs(c["window_w"] - 0.75) <= NEAR_3W4 for c in cases),
        "paper_windows_lower": all(c["paper_window_w"] < c["window_w"] for c in cases),
        "paper_sim_below_eq1": all(c["paper_sim_vs_eq1_pct"] < 0 for c in cases),
        "from_zero": from_zero,
        "from_zero_within": all(v["agrees"] for f in from_zero for v in f["values"]),
        "tol_pct": 100 * TOL_FIG3.a,
        "warmup_s": m.fig3_warmup_s(),
    }


def _run_set(m: Measured, s: int, labels: list[str]) -> dict[str, Any]:
    return {
        "ratios": [float(x) for x in merge_ratios(m, s, labels).mean(axis=0)],
        "utilisation": float(m.ports(labels, "utilization").mean()),
        "max_queue": float(m.ports(labels, "max_queue_cells").mean()),
    }


def _criteria(s: int, r: dict[str, Any]) -> dict[str, bool]:
    """Every criterion the paper gives for one threshold set of Tables 4-5: each VC's ratio in
    its band, the utilisation 'almost 100%', the maximum queue near Table 5's."""
    return {
        "ratios": all(merge_tol(s).check(x) for x in r["ratios"]),
        "utilisation": TOL_UTIL.check(r["utilisation"]),
        "max_queue": TOL_MAX_QUEUE.check(r["max_queue"], TABLE5_MAX_QUEUE[s]),
    }


def merge_reading(m: Measured) -> dict[str, Any]:
    """Tables 4-5 under the main reading of Fig. 7's distances and under Fig. 4's 30 ms round
    trip; for each, which criteria (the ratios, the utilisation, the maximum queue) hold in
    each set, and whether all hold in every set; set 1 under the GFR policy's other
    parameters."""
    sets = []
    for s in range(3):
        main = _run_set(m, s, m.merge_runs(s))
        rt30 = _run_set(m, s, m.merge_runs(s, True))
        main["criteria"] = _criteria(s, main)
        rt30["criteria"] = _criteria(s, rt30)
        main["ok"] = all(main["criteria"].values())
        rt30["ok"] = all(rt30["criteria"].values())
        sets.append(
            {
                "set": s + 1,
                "main": main,
                "rt30": rt30,
                "paper_max_queue": TABLE5_MAX_QUEUE[s],
            }
        )
    facts = model_facts()
    lowest = sum(TABLE4[0])
    set1 = sets[0]["rt30"]
    variants = []
    for key, what in POLICY_VARIANTS.items():
        v = _run_set(m, 0, m.merge_runs(0, variant=key))
        v.update(what=what, ok=all(merge_tol(0).check(x) for x in v["ratios"]))
        variants.append(v)
    return {
        "sets": sets,
        "main_ok": all(x["main"]["ok"] for x in sets),
        "rt30_ok": all(x["rt30"]["ok"] for x in sets),
        "lowest_cells": lowest,
        "bdp_cells": facts["bdp_cells"],
        "lowest_of_bdp": lowest / facts["bdp_cells"],
        "main_bdp_cells": facts["merge_bdp_cells"],
        "main_rtt_ms": facts["merge_rtt_ms"],
        "lowest_of_main_bdp": lowest / facts["merge_bdp_cells"],
        "rt30_set1_utilisation_below_1": set1["utilisation"] < 1.0,
        "rt30_set1_largest_vc_ratio": set1["ratios"][-1],
        "variants": variants,
        "band": [merge_tol(0).a, merge_tol(0).b],
        "tol_max_queue_pct": 100 * TOL_MAX_QUEUE.a,
        "util_min": TOL_UTIL.a,
    }
