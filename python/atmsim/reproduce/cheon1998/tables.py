"""The tables of the Cheon & Panwar 1998 reproduction: every cell of Tables 1-8, paper and
ours (tables.csv), and the report's tables side by side (paper | ours mean ± sd), with the
alternative reading's sums and the sensitivity study's scores."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from atmsim.reproduce.cheon1998.measure import Measured, max_packets, pct_of
from atmsim.reproduce.cheon1998.published import GROUP_NAMES, PAPER_MAX, TABLES
from atmsim.reproduce.cheon1998.runs import ALTERNATIVE, SENSITIVITY, columns
from atmsim.reproduce.cheon1998.study import CRITERIA, VARIANTS
from atmsim.reproduce.framework import HtmlTable


def _pm(mean: float, sd: float, fmt: str = "{:.0f}") -> str:
    return fmt.format(mean) + ("" if math.isnan(sd) else " ± " + fmt.format(sd))


def table_rows(m: Measured, quick: bool) -> pd.DataFrame:
    """Every cell of Tables 1-8: paper and ours (mean, sd)."""
    recs = []
    for t in TABLES:
        for col in columns(t, quick):
            p = m.points[(t.number, col)]
            pct = m.pct(t, col)
            base = {"table": t.number, "packet_B": t.packet, "column": t.column_name(col)}
            items = [(GROUP_NAMES[g], t.groups[g][col], p.groups[:, g]) for g in range(3)]
            items += [
                ("sum", t.sums[col], p.sums),
                ("sum % of maximum", t.sum_pct[col], pct),
                ("fairness index", t.fairness[col], p.fairness),
                ("window sync %", math.nan, p.sync),
                ("sessions cutting together %", math.nan, p.together),
                ("timeouts (all sessions)", math.nan, p.timeouts),
            ]
            for row, paper, ours in items:
                recs.append(
                    {
                        **base,
                        "row": row,
                        "paper": paper,
                        "ours_mean": float(np.mean(ours)),
                        "ours_sd": float(np.std(ours, ddof=1)) if len(ours) > 1 else math.nan,
                    }
                )
            recs.append(
                {**base, "row": "sd of sum", "paper": t.sd[col], "ours_mean": p.sd(p.sums),
                 "ours_sd": math.nan}
            )  # fmt: skip
    return pd.DataFrame.from_records(recs)


def html_tables(m: Measured, quick: bool) -> list[HtmlTable]:
    out = []
    for t in TABLES:
        cols = columns(t, quick)
        header = ["paper | ours (mean ± sd)"] + [t.column_name(c) for c in cols]
        body: list[list[str]] = []
        pts = [m.points[(t.number, c)] for c in cols]
        for g in range(3):
            body.append(
                [GROUP_NAMES[g]]
                + [
                    f"{t.groups[g][c]:,} | {_pm(p.mean(p.groups[:, g]), p.sd(p.groups[:, g]))}"
                    for c, p in zip(cols, pts, strict=True)
                ]
            )
        body.append(
            ["sum"]
            + [
                f"{t.sums[c]:,} | {_pm(p.mean(p.sums), p.sd(p.sums))}"
                for c, p in zip(cols, pts, strict=True)
            ]
        )
        body.append(
            ["% of maximum"]
            + [
                f"{t.sum_pct[c]} | {_pm(float(m.pct(t, c).mean()), p.sd(m.pct(t, c)), '{:.1f}')}"
                for c, p in zip(cols, pts, strict=True)
            ]
        )
        if all((t.number, c) in m.sensitivity for c in cols):
            alt = [m.sensitivity[(t.number, c)] for c in cols]
            body.append(
                [f"% of maximum, {ALTERNATIVE}"]
                + [
                    f"{t.sum_pct[c]} | {_pm(pct_of(t, a).mean(), a.sd(pct_of(t, a)), '{:.1f}')}"
                    for c, a in zip(cols, alt, strict=True)
                ]
            )
        body.append(
            ["sd of sum"]
            + [f"{t.sd[c]:,} | {p.sd(p.sums):.0f}" for c, p in zip(cols, pts, strict=True)]
        )
        body.append(
            ["fairness index"]
            + [
                f"{t.fairness[c]:.3f} | {_pm(p.mean(p.fairness), p.sd(p.fairness), '{:.3f}')}"
                for c, p in zip(cols, pts, strict=True)
            ]
        )
        body.append(
            ["window sync % (baseline)"]
            + [
                f"– | {p.mean(p.sync):.0f} ({p.mean(p.sync_expected):.0f})"
                for c, p in zip(cols, pts, strict=True)
            ]
        )
        body.append(
            ["sessions cutting together % (baseline)"]
            + [
                f"– | {p.mean(p.together):.0f} ({p.mean(p.together_expected):.0f})"
                for c, p in zip(cols, pts, strict=True)
            ]
        )
        caption = t.caption + f" — maximum {PAPER_MAX[t.packet].value:,} packets"
        out.append(HtmlTable(caption, header, body))
    # Sensitivity.
    header = ["TCP"] + [f"Table {n}, {TABLES[n - 1].column_name(c)}" for n, c in SENSITIVITY]
    rows = [["paper (% of maximum)"] + [str(TABLES[n - 1].sum_pct[c]) for n, c in SENSITIVITY]]
    for name, src in (("main model (BSD reassembly queue, RFC 6582 recover check)", m.points),
                      (f"{ALTERNATIVE} (BSD Reno: MSS/8 avoidance step, periodic ACK "
                       "clock, no recover check)",
                       m.sensitivity)):  # fmt: skip
        cells = []
        for n, c in SENSITIVITY:
            p = src[(n, c)]
            pct = p.sums / max_packets(TABLES[n - 1].packet, p.measured_s) * 100
            cells.append(
                f"{_pm(float(pct.mean()), p.sd(pct), '{:.1f}')}, fairness {p.mean(p.fairness):.3f}"
            )
        rows.append([name] + cells)
    out.append(
        HtmlTable(
            "Sensitivity: sum of effective throughput under the two readings of the paper's TCP",
            header,
            rows,
        )
    )
    if m.scored is not None:
        out.append(study_table(m.scored.scores))
    return out


def study_table(scores: list[Any]) -> HtmlTable:
    """The report's table: one row per variant, the criteria as columns (paper | ours)."""
    body = []
    for s in scores:
        body.append(
            [s.variant, VARIANTS[s.variant][0]]
            + [f"{'yes' if ok else 'NO'}: {txt}" for ok, txt in s.criteria.values()]
            + ["yes" if s.explains else "no"]
        )
    return HtmlTable(
        "Sensitivity study: each unstated choice scored on the paper's five criteria at once "
        "(each cell: holds?, then paper | ours; totals of Tables 1-4 in % of the maximum; "
        "EPD's best sum minus its worst over 95-70% for Tables 1-2; group shares in % under "
        "EPD ; ESPD at 500 B; ESPD minus EPD in points at 500 / 1,500 B; synchronisation: "
        "the other sessions cutting within one RTT of a cut under EPD, and EPD's excess over "
        "independence minus ESPD's)",
        ["variant", "what it changes", *CRITERIA, "explains the paper"],
        body,
    )
