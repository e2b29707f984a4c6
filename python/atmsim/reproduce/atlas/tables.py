"""The atlas's tables: atlas.csv (one row per network and scheme), runs.csv and spread.csv
(every run's measures), and the report's tables."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from atmsim.reproduce.atlas.axis import tcp_table
from atmsim.reproduce.atlas.config import SPREAD_SHORT_RTT_MS
from atmsim.reproduce.atlas.measure import SPREAD_NET, Atlas, capacity_mbps
from atmsim.reproduce.atlas.networks import NETWORKS
from atmsim.reproduce.atlas.schemes import SCHEMES
from atmsim.reproduce.atlas.tcps import TCPS
from atmsim.reproduce.framework import HtmlTable
from atmsim.storage import atomic_write

#: The table's measures: (column, header, format).
MEASURES = (
    ("goodput_share", "goodput / max", "{:.3f}"),
    ("fairness", "Jain fairness", "{:.3f}"),
    ("group_ratio", "long/short RTT", "{:.2f}"),
    ("cell_loss_pct", "cell loss %", "{:.2f}"),
    ("max_queue_cells", "max queue (cells)", "{:,.0f}"),
    ("p99_delay_ms", "p99 queueing delay (ms)", "{:.3f}"),
    ("source_side_max_cells", "max source-side queue (cells)", "{:,.0f}"),
    ("vbr_delivered_to_nominal", "VBR delivered / nominal", "{:.3f}"),
)


def _pm(x: pd.Series, fmt: str) -> str:
    x = x.dropna()
    if not len(x):
        return "n/a"
    if len(x) < 2:
        return fmt.format(x.mean())
    return f"{fmt.format(x.mean())} ± {fmt.format(x.std(ddof=1))}"


def summary_table(a: Atlas) -> pd.DataFrame:
    """One row per (network, scheme): the measures at the network's reference buffer (mean
    and sd over seeds) and the two buffer sizes."""
    rows = []
    for nk in a.cfg.networks:
        ref = a.reference(nk)
        for sk in a.cfg.schemes:
            d = a.at(nk, sk, ref)
            if not len(d):
                continue
            row: dict[str, Any] = {
                "network": nk,
                "scheme": sk,
                "reference_buffer_cells": ref,
                "seeds": len(d),
            }
            for col, _, _ in MEASURES:
                row[f"{col}_mean"] = float(d[col].mean())
                row[f"{col}_sd"] = float(d[col].std(ddof=1)) if len(d) > 1 else float("nan")
            row["buffer_zero_loss_cells"] = a.buffer_for_zero_loss(nk, sk)
            row["buffer_95pct_best_cells"] = a.buffer_for_best(nk, sk)
            rows.append(row)
    return pd.DataFrame(rows)


def _buf(x: float, grid: tuple[int, ...]) -> str:
    return f"> {max(grid):,}" if np.isnan(x) else f"{x:,.0f}"


def html_tables(a: Atlas, quick: bool) -> list[HtmlTable]:
    out = []
    for nk in a.cfg.networks:
        net = NETWORKS[nk]
        ref = a.reference(nk)
        grid = a.cfg.buffers(net, a.quick)
        rows = []
        for sk in a.cfg.schemes:
            d = a.at(nk, sk, ref)
            if not len(d):
                continue
            cells = [SCHEMES[sk].label]
            cells += [_pm(d[col], fmt) for col, _, fmt in MEASURES]
            cells += [
                _buf(a.buffer_for_zero_loss(nk, sk), grid),
                _buf(a.buffer_for_best(nk, sk), grid),
            ]
            rows.append(cells)
        head = ["scheme", *(h for _, h, _ in MEASURES), "buffer for 0 loss", "buffer for 95% best"]
        out.append(
            HtmlTable(
                f"{net.title}: at {ref:,} cells per switch port (mean ± sd over seeds); "
                f"buffers in cells per port, grid {', '.join(f'{b:,}' for b in grid)}",
                head,
                rows,
            )
        )
    if a.spread is not None and len(a.spread):
        ratios = sorted(a.spread["ratio"].unique())
        rows = []
        for sk in a.cfg.schemes:
            d = a.spread[a.spread["scheme"] == sk]
            if not len(d):
                continue
            cells = [SCHEMES[sk].label]
            for r in ratios:
                x = d[d["ratio"] == r]
                cells.append(f"{_pm(x['group_ratio'], '{:.2f}')} ({x['fairness'].mean():.3f})")
            rows.append(cells)
        out.append(
            HtmlTable(
                f"Round-trip spread on the parking lot at {a.reference(SPREAD_NET):,} cells: "
                "the long group's goodput over the short group's (mean ± sd over seeds), and "
                "in brackets Jain's index, by R (the long group's round trip over the short "
                f"group's {SPREAD_SHORT_RTT_MS} ms)",
                ["scheme", *(f"R = {r}" for r in ratios)],
                rows,
            )
        )
    if len(a.tcps()) > 1:
        t = tcp_table(a)
        tcps = a.tcps()
        for nk in a.cfg.networks:
            d = t[t["network"] == nk]
            if not len(d) or d["tcp"].nunique() < 2:
                continue
            rows = []
            for sk in dict.fromkeys(d["scheme"]):
                cells = [SCHEMES[sk].label]
                for tk in tcps:
                    x = d[(d["scheme"] == sk) & (d["tcp"] == tk)]
                    cells.append(
                        f"{x['goodput_share'].iloc[0]:.3f} ({x['fairness'].iloc[0]:.3f})"
                        if len(x)
                        else ""
                    )
                rows.append(cells)
            out.append(
                HtmlTable(
                    f"TCP axis, {NETWORKS[nk].title}, at {a.reference(nk):,} cells: goodput / "
                    "max and in brackets Jain's index (mean over seeds), by TCP",
                    ["scheme", *(TCPS[tk].label for tk in tcps)],
                    rows,
                )
            )
    param_rows = [[s.label, s.params, s.source] for s in (SCHEMES[k] for k in a.cfg.schemes)]
    net_rows = [
        [n.title, n.scenario, n.source, f"{capacity_mbps(n):.2f}", n.bottleneck]
        for n in (NETWORKS[k] for k in a.cfg.networks)
    ]
    out.append(
        HtmlTable(
            "Schemes: parameters and where they come from",
            ["scheme", "parameters", "source"],
            param_rows,
        )
    )
    out.append(
        HtmlTable(
            "Networks",
            ["network", "built-in scenario", "source", "max goodput (Mb/s)", "bottleneck"],
            net_rows,
        )
    )
    return out


#: The configuration the atlas ran, beside its outputs (``report`` rebuilds with it).
CONFIG_FILE = "atlas-config.json"


def extra(a: Atlas, out: Path, quick: bool) -> None:
    """The atlas's own files: its configuration, every run's measures (runs.csv), the spread
    study's (spread.csv), the table (atlas.csv) and the TCP axis's (tcp-axis.csv: every
    scheme at each network's reference buffer under each TCP setting)."""
    atomic_write(out / CONFIG_FILE, json.dumps(asdict(a.cfg), indent=2) + "\n")
    atomic_write(out / "runs.csv", a.runs.to_csv(index=False))
    if a.spread is not None:
        atomic_write(out / "spread.csv", a.spread.to_csv(index=False))
    atomic_write(out / "atlas.csv", summary_table(a).to_csv(index=False))
    if len(a.tcps()) > 1:
        atomic_write(out / "tcp-axis.csv", tcp_table(a).to_csv(index=False))
