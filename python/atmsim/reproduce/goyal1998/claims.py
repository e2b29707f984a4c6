"""The comparison rows of the Goyal et al. 1998 reproduction, each naming its figure or table,
with the tolerances fixed (and argued) before measuring; never widened to make a row agree."""

from __future__ import annotations

from atmsim.reproduce.framework import Claim, Tolerance, between, compare, over_seeds, rel
from atmsim.reproduce.goyal1998.measure import Measured, fifo_ratios, merge_ratios, pm_sd
from atmsim.reproduce.goyal1998.published import (
    FIG3_FORMULA,
    FIG3_PAPER,
    TABLE2,
    TABLE2_TOTAL,
    TABLE3,
    TABLE4,
    TABLE5,
    TABLE5_MAX_QUEUE,
    UTILISATION,
)
from atmsim.reproduce.goyal1998.runs import FIG3_CASES

#: Fig. 3 against the paper's simulation and against equation 1: the issue's 5%; the
#: paper's own simulation and formula differ by 2-3%.
TOL_FIG3 = rel(0.05)
#: Ratios of Tables 3 and 5: within the spread the paper itself reports (0.80-1.16), and
#: for the lower threshold sets, where the paper finds the throughputs "in proportion to the
#: buffer allocations", within 0.9-1.1.
TOL_RATIO = between(0.80, 1.16)
TOL_RATIO_LOW = between(0.90, 1.10)
#: Totals of Table 2: 3% (the paper's four totals span 122.97-125.21 Mb/s, 1.8%).
TOL_TOTAL = rel(0.03)
#: "the achieved link utilization was almost 100%": at least 97% (up to 1.01: a port that is
#: never idle reports a utilisation a hair above 1, the cell on the wire at the end).
TOL_UTIL = between(0.97, 1.01)
#: The maximum queue of a single run is the extreme of a random process: within 25%.
TOL_MAX_QUEUE = rel(0.25)


def fifo_tol(exp: int) -> Tolerance:
    return TOL_RATIO_LOW if exp < 2 else TOL_RATIO


def merge_tol(s: int) -> Tolerance:
    return TOL_RATIO_LOW if s < 2 else TOL_RATIO


def case_name(at: str) -> str:
    return "no loss" if at == "off" else f"a loss at {at}"


def claims(m: Measured, quick: bool) -> list[Claim]:
    rows: list[Claim] = []
    for k, at in enumerate(FIG3_CASES):
        g, cwnd, rtt = m.fig3(k)
        name = case_name(at)
        rows.append(
            compare(
                f"Fig. 3: one SACK TCP, {name}: throughput (paper's simulation)",
                paper=FIG3_PAPER[k],
                measured=g,
                unit="Mb/s",
                tol=TOL_FIG3,
                note=f"average cwnd {cwnd:,.0f} B, smoothed RTT {rtt * 1e3:.2f} ms.",
                id=f"fig3-sim-{k}",
            )
        )
        eq1 = 8e-6 * cwnd / rtt
        if at != "off":
            rows.append(
                compare(
                    f"Fig. 3: one SACK TCP, {name}: throughput against equation 1 from "
                    "this run's average window and RTT",
                    paper=round(eq1, 2),
                    measured=g,
                    unit="Mb/s",
                    tol=TOL_FIG3,
                    note=f"the paper's equation-1 value (its own windows, 30 ms): "
                    f"{FIG3_FORMULA[k]} Mb/s.",
                    id=f"fig3-eq1-{k}",
                )
            )
    for exp in range(4):
        r = fifo_ratios(m, exp)
        for grp in range(5):
            rows.append(
                compare(
                    f"Table 3, experiment {exp + 1}: TCPs {3 * grp + 1}-{3 * grp + 3} "
                    "(throughput share / threshold share)",
                    paper=TABLE3[exp][grp],
                    measured=over_seeds(r[:, grp]),
                    unit="ratio",
                    tol=fifo_tol(exp),
                    note=f"per-TCP throughput {pm_sd(m.fifo_groups(exp)[:, grp])} Mb/s "
                    f"(paper {TABLE2[exp][grp]}).",
                    id=f"table3-exp{exp + 1}-group{grp + 1}",
                )
            )
        totals = m.fifo_groups(exp).sum(axis=1) * 3
        rows.append(
            compare(
                f"Table 2, experiment {exp + 1}: total throughput of the 15 TCPs",
                paper=TABLE2_TOTAL[exp],
                measured=over_seeds(totals),
                unit="Mb/s",
                tol=TOL_TOTAL,
                note=f"{pm_sd(totals)} Mb/s.",
                id=f"table2-exp{exp + 1}-total",
            )
        )
    for s in range(3):
        r = merge_ratios(m, s)
        rt30 = merge_ratios(m, s, m.merge_runs(s, True)).mean(axis=0)
        for vc in range(5):
            rows.append(
                compare(
                    f"Table 5, threshold set {s + 1} (total {sum(TABLE4[s]):,} cells): VC "
                    f"{vc + 1} (throughput share / threshold share)",
                    paper=TABLE5[s][vc],
                    measured=over_seeds(r[:, vc]),
                    unit="ratio",
                    tol=merge_tol(s),
                    note=f"with Fig. 4's 30 ms round trip: {rt30[vc]:.2f}.",
                    id=f"table5-set{s + 1}-vc{vc + 1}",
                )
            )
        util = m.ports(m.merge_runs(s), "utilization")
        rows.append(
            compare(
                f"Tables 4-5, threshold set {s + 1}: bottleneck utilisation 'almost 100%'",
                paper=UTILISATION.value,
                measured=over_seeds(util),
                unit="fraction",
                tol=TOL_UTIL,
                note=f"{pm_sd(util, '{:.3f}')}.",
                id=f"tables4-5-set{s + 1}-utilisation",
            )
        )
        mq = m.ports(m.merge_runs(s), "max_queue_cells")
        rows.append(
            compare(
                f"Tables 4-5, threshold set {s + 1}: maximum queue at the first backbone switch",
                paper=TABLE5_MAX_QUEUE[s],
                measured=over_seeds(mq),
                unit="cells",
                tol=TOL_MAX_QUEUE,
                note=f"{pm_sd(mq, '{:,.0f}')} cells; with Fig. 4's 30 ms round trip "
                f"{m.mean_port(s, 'max_queue_cells', True):,.0f}.",
                id=f"tables4-5-set{s + 1}-max-queue",
            )
        )
    return rows
