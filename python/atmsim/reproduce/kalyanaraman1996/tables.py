"""Tables of the Kalyanaraman et al. 1996 reproduction: ``tables.csv`` and the report's
paper | ours tables."""

from __future__ import annotations

from typing import Any

import pandas as pd

from atmsim.reproduce.framework import HtmlTable
from atmsim.reproduce.kalyanaraman1996.measure import Measured
from atmsim.reproduce.kalyanaraman1996.published import T1, T2, T3, T4
from atmsim.reproduce.kalyanaraman1996.runs import (
    READINGS,
    T4_NAMES,
    reading_seeds,
    t1_name,
    t1_reading,
    t2_name,
    t3_delays,
    t3_name,
    t4_name,
)


def _t1_row(m: Measured, name: str, buf: int, **where: Any) -> dict[str, Any]:
    """Table 1's row of source buffer ``buf`` measured from run ``name`` (``where``: the
    reading and seed it ran with, for a reading's row)."""
    src_q, _, sw_q, mbps = T1[buf]
    return {
        "table": 1,
        "case": f"source buffer {buf} cells",
        **where,
        "paper_throughput_mbps": mbps,
        "throughput_mbps": round(m.goodput(name), 3),
        "paper_max_source_queue": src_q,
        "max_source_queue": m.source_queue(name),
        "paper_max_switch_queue": sw_q,
        "max_switch_queue": m.max_queue(name),
        "cells_lost_at_source": m.lost_at_source(name),
    }


def table_rows(m: Measured, quick: bool) -> pd.DataFrame:
    """Every table's rows, the paper's beside atmsim's; Table 1 also under each reading of the
    sources' side (``reading``, with each ``seed`` it ran with; empty: the main runs)."""
    rows = [_t1_row(m, t1_name(buf), buf) for buf in T1]
    for reading in READINGS:
        for seed in reading_seeds(reading, quick):
            for buf in T1:
                name = t1_reading(buf, reading, seed=seed)
                rows.append(_t1_row(m, name, buf, reading=reading, seed=seed))
    for (d, p), q in T2.items():
        n = t2_name(d, p)
        rows.append(
            {
                "table": 2,
                "case": f"d {d}, p {p} ms",
                "paper_max_switch_queue": q if q is not None else "DIVERGENT",
                "max_switch_queue": m.max_queue(n),
                "divergent": m.divergent(n)[0],
            }
        )
    for fb in t3_delays(quick):
        n = t3_name(fb)
        rows.append(
            {
                "table": 3,
                "case": f"d 0.8, p 10 ms, feedback delay {fb} ms",
                "paper_max_switch_queue": "DIVERGENT" if T3[fb] else "small",
                "max_switch_queue": m.max_queue(n),
                "divergent": m.divergent(n)[0],
            }
        )
    for setting, q in T4.items():
        n = t4_name(setting)
        rows.append(
            {
                "table": 4,
                "case": f"d 0.7, p 20 ms, {T4_NAMES[setting]}",
                "paper_max_switch_queue": q if q is not None else "(formerly divergent)",
                "max_switch_queue": m.max_queue(n),
                "divergent": m.divergent(n)[0],
            }
        )
    return pd.DataFrame(rows)


def html_tables(m: Measured, quick: bool) -> list[HtmlTable]:
    t1 = [
        [
            f"{buf:,}",
            f"{src_q:,}{' (overflow)' if ov else ''} | {m.source_queue(t1_name(buf)):,}"
            f"{' (overflow)' if m.lost_at_source(t1_name(buf)) else ''}",
            f"{sw_q:,} | {m.max_queue(t1_name(buf)):,}",
            f"{mbps:.2f} | {m.goodput(t1_name(buf)):.2f}",
        ]
        for buf, (src_q, ov, sw_q, mbps) in T1.items()
    ]

    def q_text(name: str, paper: int | None) -> str:
        div = m.divergent(name)[0]
        ours = "DIVERGENT" if div else f"{m.max_queue(name):,}"
        return f"{'DIVERGENT' if paper is None else f'{paper:,}'} | {ours}"

    t2 = [[f"{d}", f"{p}", q_text(t2_name(d, p), q)] for (d, p), q in T2.items()]
    t3 = [
        [f"{fb}", f"{'DIVERGENT' if T3[fb] else 'small'} | "
         f"{'DIVERGENT' if m.divergent(t3_name(fb))[0] else f'{m.max_queue(t3_name(fb)):,}'}"]
        for fb in t3_delays(quick)
    ]  # fmt: skip
    t4 = [[T4_NAMES[s], q_text(t4_name(s), q)] for s, q in T4.items()]
    t4.append(
        [T4_NAMES["na-z-reset"] + " (sensitivity)", q_text(t4_name("na-z-reset"), T4["na-z"])]
    )
    return [
        HtmlTable(
            "Table 1: 15 TCPs over ABR, ERICA (500 cells, 5 ms, Na averaged), no VBR "
            "(paper | ours)",
            ["source buffer (cells)", "max source queue", "max switch queue", "throughput Mb/s"],
            t1,
        ),
        HtmlTable(
            "Table 2: ERICA+ (100 cells, 1 ms) with VBR ON-OFF: max switch queue (paper | ours)",
            ["duty cycle d", "period p (ms)", "max switch queue (cells)"],
            t2,
        ),
        HtmlTable(
            "Table 3: d = 0.8, p = 10 ms, feedback delay varied (paper's text | ours)",
            ["feedback delay (ms)", "switch queue"],
            t3,
        ),
        HtmlTable(
            "Table 4: d = 0.7, p = 20 ms, averaging options (paper | ours)",
            ["ERICA+ setting", "max switch queue (cells)"],
            t4,
        ),
    ]
