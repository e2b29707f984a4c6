"""The runs of the Goyal et al. 1998 reproduction: Fig. 3's window-controlled TCP (and the
same counted from time 0), Tables 1-3's per-VC thresholds, Tables 4-5's VC merging, and the
sensitivity runs of Tables 4-5 (Fig. 4's 30 ms round trip, the GFR policy's unstated parameters)."""

from __future__ import annotations

from typing import Any

from atmsim.reproduce.framework import Job
from atmsim.reproduce.goyal1998.published import TABLE1, TABLE4

FIG3 = "goyal1998-fig3"
FIFO = "goyal1998-fifo"
MERGE = "goyal1998-merge"
BOTTLENECK = "S1->S2"

#: Fig. 3: the windows at which a segment is lost ("off": never).
#: Fig. 3's loss windows W [bytes] (None: no loss window).
FIG3_WINDOWS = (125_000, 250_000, 500_000, None)
FIG3_CASES = tuple("off" if w is None else f"{w} B" for w in FIG3_WINDOWS)

#: Sensitivity of Fig. 3 to its measurement window, which the paper does not give: the
#: throughput counted from time 0 (slow start included) over runs of these lengths.
FROM_ZERO_S = (10, 20)
FROM_ZERO_DURATIONS = tuple(f"{s} s" for s in FROM_ZERO_S)

SEEDS_FULL = (1, 2, 3)
#: Quick mode: one seed, shorter runs.
QUICK = {"fig3": {"run.duration": "20 s"}, "tables": {"run.duration": "8 s", "run.warmup": "3 s"}}

#: Sensitivity of Tables 4-5 to what the paper does not give for Fig. 7: the distances. The
#: main runs read its text (LANs joined by a backbone; the edge devices at the LANs' border;
#: one backbone link, S1-S2, of 1000 km: about a 10 ms round trip); here Fig. 4's 30 ms round
#: trip, with 1000 km from each edge switch to the backbone as well.
FIG4_ROUND_TRIP = {
    **{f"link.L{g}-S1.delay": "5 ms" for g in range(1, 6)},
    **{f"link.S2-R{g}.delay": "5 ms" for g in range(1, 6)},
}

#: Sensitivity of threshold set 1 (the lowest, the one that fails with Fig. 4's 30 ms round
#: trip) to the GFR policy's parameters the paper leaves open, each against the main runs'
#: choice, on the main runs' distances: the weights
#: W_i (section 4 says a VC with a higher threshold should see a higher drop probability: here
#: W_i in proportion to R_i, the largest 1) and the port threshold R (here the sum of the R_i
#: instead of the whole buffer).
FIFO_BUFFER_CELLS = 48_000
POLICY_VARIANTS: dict[str, str] = {
    "weights": "W_i in proportion to R_i (W_5 = 1)",
    "r_sum": "R = the sum of the R_i",
}


def policy_overrides(key: str, s: int) -> dict[str, Any]:
    th = TABLE4[s]
    if key == "weights":
        return {f"merge.vc{g}.share.weight": th[g - 1] / max(th) for g in range(1, 6)}
    policy = {"kind": "gfr", "z": 1.5, "threshold": sum(th) / FIFO_BUFFER_CELLS}
    return {"switch.S1.policy": policy, "switch.S2.policy": policy}


def seeds(quick: bool) -> tuple[int, ...]:
    return (1,) if quick else SEEDS_FULL


def fifo_overrides(exp: int) -> dict[str, Any]:
    return {
        f"connection.s{i}.share.threshold": f"{TABLE1[exp][(i - 1) // 3]} cells"
        for i in range(1, 16)
    }


def merge_overrides(s: int) -> dict[str, Any]:
    return {f"merge.vc{g}.share.threshold": f"{TABLE4[s][g - 1]} cells" for g in range(1, 6)}


def fig3_label(k: int) -> str:
    return f"fig3-{k}"


def from_zero_label(k: int, duration: str) -> str:
    return f"fig3-{k}-from0-{FROM_ZERO_S[FROM_ZERO_DURATIONS.index(duration)]}s"


def jobs(quick: bool) -> list[Job]:
    """The runs of the reproduction, in a fixed order."""
    out = []
    q3 = QUICK["fig3"] if quick else {}
    qt = QUICK["tables"] if quick else {}
    for k, at in enumerate(FIG3_CASES):
        out.append(Job(FIG3, {**q3, "tcp.drop_at_cwnd": at}, label=fig3_label(k)))
    for d in FROM_ZERO_DURATIONS:
        for k, at in enumerate(FIG3_CASES[:3]):
            ov = {"tcp.drop_at_cwnd": at, "run.duration": d, "run.warmup": "0 s"}
            ov["run.sample_every"] = "0 s"
            out.append(Job(FIG3, ov, label=from_zero_label(k, d)))
    for exp in range(4):
        for seed in seeds(quick):
            out.append(Job(FIFO, {**qt, **fifo_overrides(exp)}, seed, label=f"fifo{exp}-s{seed}"))
    for s in range(3):
        for seed in seeds(quick):
            out.append(Job(MERGE, {**qt, **merge_overrides(s)}, seed, label=f"merge{s}-s{seed}"))
        ov = {**qt, **merge_overrides(s), **FIG4_ROUND_TRIP}
        for seed in seeds(quick):
            out.append(Job(MERGE, ov, seed, label=f"merge{s}-rt30-s{seed}"))
    for key in POLICY_VARIANTS:
        ov = {**qt, **merge_overrides(0), **policy_overrides(key, 0)}
        for seed in seeds(quick):
            out.append(Job(MERGE, ov, seed, label=f"merge0-{key}-s{seed}"))
    return out
