"""Tables of the Goyal et al. 1998 reproduction: ``tables.csv`` and the report's paper | ours
tables."""

from __future__ import annotations

import pandas as pd

from atmsim.reproduce.framework import HtmlTable
from atmsim.reproduce.goyal1998.measure import Measured, fifo_ratios, merge_ratios, pm
from atmsim.reproduce.goyal1998.published import (
    FIG3_PAPER,
    TABLE1,
    TABLE2,
    TABLE2_TOTAL,
    TABLE3,
    TABLE4,
    TABLE5,
    TABLE5_MAX_QUEUE,
)
from atmsim.reproduce.goyal1998.runs import FIG3_CASES


def table_rows(m: Measured, quick: bool) -> pd.DataFrame:
    rows = []
    for k, at in enumerate(FIG3_CASES):
        g, cwnd, rtt = m.fig3(k)
        rows.append(
            {
                "part": "fig3",
                "setting": at,
                "entity": "s1",
                "goodput_mbps": round(g, 3),
                "mean_cwnd_bytes": round(cwnd),
                "mean_srtt_ms": round(rtt * 1e3, 3),
                "paper": FIG3_PAPER[k],
            }
        )
    for exp in range(4):
        g = m.fifo_groups(exp)
        r = fifo_ratios(m, exp)
        for grp in range(5):
            rows.append(
                {
                    "part": "table2-3",
                    "setting": f"experiment {exp + 1}",
                    "entity": f"TCPs {3 * grp + 1}-{3 * grp + 3}",
                    "goodput_mbps": round(float(g[:, grp].mean()), 3),
                    "ratio": round(float(r[:, grp].mean()), 3),
                    "paper": TABLE2[exp][grp],
                    "paper_ratio": TABLE3[exp][grp],
                }
            )
    for s in range(3):
        r = merge_ratios(m, s)
        rt30 = merge_ratios(m, s, m.merge_runs(s, True)).mean(axis=0)
        for vc in range(5):
            rows.append(
                {
                    "part": "table5",
                    "setting": f"set {s + 1}",
                    "entity": f"VC {vc + 1}",
                    "ratio": round(float(r[:, vc].mean()), 3),
                    "ratio_rt30": round(float(rt30[vc]), 3),
                    "paper_ratio": TABLE5[s][vc],
                }
            )
    return pd.DataFrame(rows)


def html_tables(m: Measured, quick: bool) -> list[HtmlTable]:
    t23 = []
    for exp in range(4):
        g = m.fifo_groups(exp)
        r = fifo_ratios(m, exp)
        for grp in range(5):
            t23.append(
                [
                    f"{exp + 1}",
                    f"{3 * grp + 1}-{3 * grp + 3}",
                    f"{TABLE1[exp][grp]:,}",
                    f"{TABLE2[exp][grp]} | {pm(g[:, grp])}",
                    f"{TABLE3[exp][grp]:.2f} | {pm(r[:, grp])}",
                ]
            )
        tot = m.fifo_groups(exp).sum(axis=1) * 3
        t23.append(
            [
                f"{exp + 1}",
                "total",
                f"{sum(TABLE1[exp]) * 3:,}",
                f"{TABLE2_TOTAL[exp]} | {pm(tot)}",
                "",
            ]
        )
    t5 = []
    for s in range(3):
        r = merge_ratios(m, s)
        rt30 = merge_ratios(m, s, m.merge_runs(s, True)).mean(axis=0)
        for vc in range(5):
            t5.append(
                [
                    f"{s + 1}",
                    f"{vc + 1}",
                    f"{TABLE4[s][vc]:,}",
                    f"{TABLE5[s][vc]:.2f} | {pm(r[:, vc])}",
                    f"{rt30[vc]:.2f}",
                ]
            )
        mq = m.ports(m.merge_runs(s), "max_queue_cells")
        t5.append(
            [
                f"{s + 1}",
                "max queue",
                f"{sum(TABLE4[s]):,}",
                f"{TABLE5_MAX_QUEUE[s]:,} | {pm(mq, '{:,.0f}')}",
                f"{m.mean_port(s, 'max_queue_cells', True):,.0f}",
            ]
        )
    return [
        HtmlTable(
            "Tables 1-3: fifteen TCPs, per-VC thresholds in a FIFO (paper | atmsim, mean ± sd "
            "over seeds)",
            ["experiment", "TCPs", "threshold (cells)", "throughput per TCP (Mb/s)", "ratio"],
            t23,
        ),
        HtmlTable(
            "Tables 4-5: VC merging, GFR buffer policy with Z = 1.5 (paper | atmsim; the last "
            "column: the same with Fig. 4's 30 ms round trip)",
            ["set", "VC", "threshold (cells)", "ratio", "30 ms round trip"],
            t5,
        ),
    ]
