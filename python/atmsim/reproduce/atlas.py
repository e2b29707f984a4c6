"""The scheme atlas: every switching scheme atmsim has, with TCP on top, on the networks of
the studies it reproduces, measured the same way (issue 15).

Schemes (each with the parameters of the paper that studied it, ``_atlas_setup.SCHEMES``):
UBR with cell drop, drop-tail (PPD) and drop-whole on per-VC queues (Fang 1994); EPD and
ESPD on a shared FIFO (Cheon & Panwar 1998); Selective Drop and FBA (atmsim's UBR+
defaults); the GFR buffer policy (Goyal et al. 1998); AN2 credits (Fang 1994); ABR with
EFCI and FMMRA (An 1997) and ERICA and ERICA+ (Kalyanaraman et al. 1996).

Networks: Fang's LAN, Cheon & Panwar's parking lot, and Kalyanaraman's 15 sources on
1000 km links with and without a VBR ON-OFF background; each swept over the switch buffer,
with several seeds. Measured per run: TCP goodput as a share of what the bottleneck can
carry, Jain's fairness, the long/short round-trip group ratio, cell loss, the bottleneck's
maximum and 99th-percentile queue (the p99 of the sampled queue, as a delay at the rate the
port drains it), the ABR sources' queues. Per (scheme, network): the smallest buffer of the
grid with no switch loss and the smallest from which on the goodput reaches 95% of the
network's best.

Checks (``comparison.csv``): each paper's ordering of its own schemes on its own network,
with its own settings (Fang, Cheon & Panwar, Kalyanaraman, An).

``atmsim reproduce atlas [--quick] --out DIR``: full mode 3 seeds and 6-7 buffer sizes per
network; quick one seed and three buffer sizes.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from atmsim import plots
from atmsim.reproduce._atlas_setup import (
    AN_BOTTLENECK,
    AN_SCENARIO,
    CHEON_READING,
    CHEON_READING_PREFIX,
    DEFAULT,
    NETWORKS,
    SCHEMES,
    SPREAD_NET,
    SPREAD_PREFIX,
    SPREAD_RUN,
    SPREAD_SHORT_RTT_MS,
    Config,
    Network,
    build_jobs,
    cell_rate,
    max_goodput_mbps,
    vbr_cell_rate,
)
from atmsim.reproduce.common import (
    Claim,
    Job,
    Stopwatch,
    above,
    absolute,
    at_least,
    below,
    compare,
    publish,
    rebuild_reproduction,
    run_reproduction,
)
from atmsim.storage import atomic_write

__all__ = ["main", "report", "jobs", "measure", "claims", "summary_table", "Config", "Atlas"]

TITLE = "The scheme atlas: every ATM switching scheme with TCP, on the studies' own networks"

#: The share of the network's best goodput that "buffer for 95% of the best" asks for.
BEST_SHARE = 0.95

# Tolerances of the ordering checks, fixed before measuring: each paper's claim is an
# ordering, so each row is a difference (or ratio) against the sign (or 1) the claim implies.
#: "credits >= drop-whole": not below.
TOL_NOT_BELOW = at_least(0.0)
#: "A > B": strictly above.
TOL_ABOVE = above(0.0)
#: Zero cell loss (credits; ERICA with unlimited sources): exact.
TOL_ZERO = absolute(0.0)
#: "below": a ratio under 1.
TOL_RATIO_BELOW = below(1.0)
#: "the queue moves to the sources": the largest source queue over the largest switch queue
#: above 1 (the paper: 23,901 against 17,171 cells).
TOL_RATIO_ABOVE = above(1.0)


def jobs(quick: bool, cfg: Config = DEFAULT) -> list[Job]:
    """Every run of the atlas (``cfg``: a reduced atlas, for tests)."""
    return build_jobs(quick, cfg)


# --------------------------------------------------------------------------------------------
# Measurements


def _jain(x: np.ndarray) -> float:
    x = np.asarray(x, dtype=float)
    s2 = float((x**2).sum())
    return float(x.sum() ** 2 / (len(x) * s2)) if s2 > 0 else float("nan")


def measure_run(net: Network, res: Any, rate: float) -> dict[str, Any]:
    """The atlas's measures of one run (see docs/atlas.md for each definition)."""
    conns = res.connections
    measured_s = float(res.summary["simulated_s"]) - float(res.summary["warmup_s"])
    vbr_cells = float("nan")
    if net.vbr is not None:
        vbr_cells = float(conns.loc[net.vbr, "cells_delivered"]) / measured_s
    best_possible = max_goodput_mbps(net, None if net.vbr is None else vbr_cells)
    drops_series = res.wide("cells_dropped", "port")[net.bottleneck]
    tcp = conns.loc[list(net.tcp)]
    g = tcp["goodput_mbps"].to_numpy(dtype=float)
    ports = res.ports
    sw = ports[ports["node"].isin(net.switches)]
    warm = float(res.summary["warmup_s"])
    q = res.wide("queue_cells", "port")[net.bottleneck]
    q = q[q.index > warm]
    p99 = float(np.percentile(q.to_numpy(dtype=float), 99)) if len(q) else float("nan")
    srcq = (
        float(tcp["source_queue_max_cells"].max())
        if "source_queue_max_cells" in tcp
        else float("nan")
    )
    hosts = ports[~ports["node"].isin(net.switches) & (ports["node"] != (net.vbr or ""))]
    host_q = float(hosts["max_queue_cells"].max()) if len(hosts) else float("nan")
    sent = float(tcp["cells_sent"].sum())
    row = {
        "goodput_mbps": float(g.sum()),
        "goodput_share": float(g.sum()) / best_possible,
        "fairness": _jain(g),
        "group_ratio": float("nan"),
        "cell_loss_pct": 100 * float(tcp["cells_dropped"].sum()) / sent if sent else float("nan"),
        "switch_drops": int(sw["cells_dropped"].sum()),
        # cumulative from time 0: the losses of the start (slow start) included
        "bottleneck_drops_from_start": int(drops_series.iloc[-1]) if len(drops_series) else 0,
        "vbr_delivered_share": vbr_cells / vbr_cell_rate(net) if net.vbr else float("nan"),
        "max_queue_cells": float(ports.loc[net.bottleneck, "max_queue_cells"]),
        "p99_queue_cells": p99,
        # drained at what the link leaves after the priority VBR source, where there is one
        "p99_delay_ms": p99 / (rate - (vbr_cells if net.vbr is not None else 0.0)) * 1e3,
        "source_queue_max_cells": srcq,
        "host_queue_max_cells": host_q,
        "source_side_max_cells": float(np.nanmax([srcq, host_q])),
        "timeouts": int(tcp["timeouts"].sum()),
        "utilization": float(ports.loc[net.bottleneck, "utilization"]),
    }
    if net.groups:
        gs = tcp["goodput_mbps"]
        long_, short = net.groups[0], net.groups[-1]
        row["group_ratio"] = float(gs[list(long_)].mean() / gs[list(short)].mean())
    if net.vbr is not None:
        from atmsim.reproduce.kalyanaraman1996 import divergent

        full = res.wide("queue_cells", "port")[net.bottleneck]
        row["divergent"] = bool(divergent(full)[0])
    return row


@dataclass
class Atlas:
    """Every run's measures (``runs``: one row per run) and the An 1997 check runs."""

    runs: pd.DataFrame
    an: dict[str, list[int]]
    quick: bool
    cfg: Config
    #: The parking lot's EPD and ESPD runs under ``CHEON_READING`` (same columns).
    reading: pd.DataFrame | None = None
    #: The round-trip spread study: one row per run, with its ratio R (same measures).
    spread: pd.DataFrame | None = None

    def spread_curve(self, scheme: str, col: str) -> pd.DataFrame:
        """Mean and sd over seeds of ``col`` against the round-trip ratio R."""
        d = self.spread
        if d is None or not len(d):
            return pd.DataFrame({"mean": [], "sd": []})
        g = d[d["scheme"] == scheme].groupby("ratio")[col]
        return pd.DataFrame({"mean": g.mean(), "sd": g.std(ddof=1)})

    def at(self, net: str, scheme: str, buffer: int | None = None) -> pd.DataFrame:
        r = self.runs
        sel = (r["network"] == net) & (r["scheme"] == scheme)
        if buffer is not None:
            sel &= r["buffer"] == buffer
        return r[sel]

    def mean(self, net: str, scheme: str, col: str, buffer: int | None = None) -> float:
        x = self.at(net, scheme, buffer)[col]
        return float(x.mean()) if len(x) else float("nan")

    def reference(self, net: str) -> int:
        return self.cfg.reference(NETWORKS[net], self.quick)

    def has(self, net: str, *schemes: str) -> bool:
        return all(len(self.at(net, s)) for s in schemes)

    def curve(self, net: str, scheme: str, col: str = "goodput_share") -> pd.DataFrame:
        """Mean and sd over seeds of ``col`` against the buffer."""
        d = self.at(net, scheme).groupby("buffer")[col]
        return pd.DataFrame({"mean": d.mean(), "sd": d.std(ddof=1)})

    def best(self, net: str) -> float:
        r = self.runs[self.runs["network"] == net]
        return float(r.groupby(["scheme", "buffer"])["goodput_share"].mean().max())

    def buffer_for_zero_loss(self, net: str, scheme: str) -> float:
        """The smallest buffer of the grid at which no seed lost a cell in a switch: none at
        any switch port after the warm-up, none at the bottleneck from time 0 (NaN: none of
        the grid)."""
        r = self.at(net, scheme)
        d = (r["switch_drops"] + r["bottleneck_drops_from_start"]).groupby(r["buffer"]).max()
        ok = d[d == 0]
        return float(ok.index.min()) if len(ok) else float("nan")

    def buffer_for_best(self, net: str, scheme: str) -> float:
        """The smallest buffer of the grid from which on the mean goodput reaches 95% of the
        best mean goodput any scheme reaches on the network, at that buffer and every larger
        one of the grid (NaN: not so at the largest)."""
        c = self.curve(net, scheme)["mean"].sort_index()
        ok = (c >= BEST_SHARE * self.best(net)).to_numpy()
        if not len(ok) or not ok[-1]:
            return float("nan")
        i = len(ok) - 1
        while i > 0 and ok[i - 1]:
            i -= 1
        return float(c.index[i])


def measure(js: list[Job], results: list[Any], quick: bool, cfg: Config = DEFAULT) -> Atlas:
    rows = []
    reading = []
    spread = []
    an: dict[str, list[int]] = {}
    rates = {k: cell_rate(n) for k, n in NETWORKS.items()}
    for j, res in zip(js, results, strict=True):
        if j.name.startswith(SPREAD_PREFIX + "-"):
            # label: spread-rRATIO-SCHEME-sSEED (scheme keys hold no dash)
            _, r, sk, s = j.name.split("-")
            row = {"ratio": int(r[1:]), "scheme": sk, "seed": int(s[1:])}
            row.update(measure_run(NETWORKS[SPREAD_NET], res, rates[SPREAD_NET]))
            spread.append(row)
            continue
        if j.name.startswith(CHEON_READING_PREFIX + "-"):
            sk, b, s = j.name[len(CHEON_READING_PREFIX) + 1 :].split("-")
            row = {"network": "parking", "scheme": sk, "buffer": int(b[1:]), "seed": int(s[1:])}
            row.update(measure_run(NETWORKS["parking"], res, rates["parking"]))
            reading.append(row)
            continue
        if j.scenario == AN_SCENARIO:
            scheme = j.name.split("-")[1]
            an.setdefault(scheme, []).append(int(res.ports.loc[AN_BOTTLENECK, "max_queue_cells"]))
            continue
        # label: NETWORK-SCHEME-bBUFFER-sSEED (network keys may hold a dash)
        head, b, s = j.name.rsplit("-", 2)
        nk = next(k for k in sorted(NETWORKS, key=len, reverse=True) if head.startswith(k + "-"))
        sk = head[len(nk) + 1 :]
        net = NETWORKS[nk]
        row = {"network": nk, "scheme": sk, "buffer": int(b[1:]), "seed": int(s[1:])}
        row.update(measure_run(net, res, rates[nk]))
        rows.append(row)
    return Atlas(
        pd.DataFrame(rows),
        an,
        quick,
        cfg,
        pd.DataFrame(reading) if reading else None,
        pd.DataFrame(spread) if spread else None,
    )


# --------------------------------------------------------------------------------------------
# The table

#: The table's measures: (column, header, format).
MEASURES = (
    ("goodput_share", "goodput / max", "{:.3f}"),
    ("fairness", "Jain fairness", "{:.3f}"),
    ("group_ratio", "long/short RTT", "{:.2f}"),
    ("cell_loss_pct", "cell loss %", "{:.2f}"),
    ("max_queue_cells", "max queue (cells)", "{:,.0f}"),
    ("p99_delay_ms", "p99 queueing delay (ms)", "{:.3f}"),
    ("source_side_max_cells", "max source-side queue (cells)", "{:,.0f}"),
    ("vbr_delivered_share", "VBR delivered / nominal", "{:.3f}"),
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


def html_tables(a: Atlas) -> list[tuple[str, list[str], list[list[str]]]]:
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
            (
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
            (
                f"Round-trip spread on the parking lot at {a.reference(SPREAD_NET):,} cells: "
                "the long group's goodput over the short group's (mean ± sd over seeds), and "
                "in brackets Jain's index, by R (the long group's round trip over the short "
                f"group's {SPREAD_SHORT_RTT_MS} ms)",
                ["scheme", *(f"R = {r}" for r in ratios)],
                rows,
            )
        )
    return out


# --------------------------------------------------------------------------------------------
# Checks against each paper's own ordering


def claims(a: Atlas) -> list[Claim]:
    rows: list[Claim] = []
    if "fang" in a.cfg.networks and a.has("fang", "credits", "drop_whole", "ppd", "cell_drop"):
        ref = a.reference("fang")
        per_vc = ref // len(NETWORKS["fang"].tcp)
        g = {
            s: a.mean("fang", s, "goodput_mbps", ref)
            for s in ("credits", "drop_whole", "ppd", "cell_drop")
        }
        where = f"Fang LAN, {per_vc} cells per VC"
        for hi, lo, tol, word in (
            ("credits", "drop_whole", TOL_NOT_BELOW, ">="),
            ("drop_whole", "ppd", TOL_ABOVE, ">"),
            ("ppd", "cell_drop", TOL_ABOVE, ">"),
        ):
            rows.append(
                compare(
                    f"Fang 1994: goodput of {SCHEMES[hi].label} {word} {SCHEMES[lo].label} "
                    f"({where}): difference",
                    paper=f"{word} 0",
                    measured=g[hi] - g[lo],
                    unit="Mb/s",
                    tol=tol,
                    note=f"{SCHEMES[hi].label} {g[hi]:.2f} Mb/s, {SCHEMES[lo].label} "
                    f"{g[lo]:.2f} Mb/s (mean over seeds).",
                )
            )
        rows.append(
            compare(
                f"Fang 1994: AN2 credits lose no cell ({where})",
                paper=0,
                measured=a.mean("fang", "credits", "cell_loss_pct", ref),
                unit="%",
                tol=TOL_ZERO,
                note=f"switch drops {a.at('fang', 'credits', ref)['switch_drops'].sum():,}.",
            )
        )
    if "parking" in a.cfg.networks and a.has("parking", "epd", "espd"):
        ref = a.reference("parking")
        e, s = (a.mean("parking", k, "goodput_share", ref) for k in ("epd", "espd"))
        rows.append(
            compare(
                f"Cheon & Panwar 1998: ESPD (95/90) above EPD (95%) on the parking lot, "
                f"{ref:,} cells: goodput share difference",
                paper="> 0 (92% vs 77%)",
                measured=100 * (s - e),
                unit="points",
                tol=TOL_ABOVE,
                note=f"EPD {100 * e:.1f}%, ESPD {100 * s:.1f}% of the maximum.",
            )
        )
        re_, rs = (a.mean("parking", k, "group_ratio", ref) for k in ("epd", "espd"))
        rows.append(
            compare(
                "Cheon & Panwar 1998: ESPD helps the long-RTT group more than the short: "
                "long/short goodput ratio under ESPD minus under EPD",
                paper="> 0",
                measured=rs - re_,
                unit="ratio",
                tol=TOL_ABOVE,
                note=f"long/short ratio EPD {re_:.3f}, ESPD {rs:.3f}.",
            )
        )
    if "kaly" in a.cfg.networks and a.has("kaly", "erica"):
        ref = a.reference("kaly")
        d = a.at("kaly", "erica", ref)
        rows.append(
            compare(
                f"Kalyanaraman 1996, Table 1: ERICA loses no cell in the switches "
                f"({ref:,}-cell buffers, unlimited sources)",
                paper=0,
                measured=float((d["switch_drops"] + d["bottleneck_drops_from_start"]).sum()),
                unit="cells",
                tol=TOL_ZERO,
                note=f"max switch queue {d['max_queue_cells'].mean():,.0f} cells (paper 17,171; "
                "the paper's buffers are unlimited, and its queue stays under 3 round trips, "
                f"which {ref:,} cells about are); cells lost counted from time 0, the start "
                "included.",
            )
        )
        ratio = float((d["source_queue_max_cells"] / d["max_queue_cells"]).mean())
        rows.append(
            compare(
                "Kalyanaraman 1996, Table 1: under ERICA the queue moves to the sources: "
                "largest source queue / largest switch queue",
                paper="23,901 / 17,171",
                measured=ratio,
                unit="ratio",
                tol=TOL_RATIO_ABOVE,
                note=f"largest source queue {d['source_queue_max_cells'].mean():,.0f} cells, "
                f"switch {d['max_queue_cells'].mean():,.0f} cells.",
            )
        )
    if "kaly-vbr" in a.cfg.networks and a.has("kaly-vbr", "erica_plus"):
        ref = a.reference("kaly-vbr")
        d = a.at("kaly-vbr", "erica_plus", ref)
        # The paper's buffers are unlimited: a run here shows a bounded queue only if it
        # diverges by no test and never met the finite buffer's limit (no cell lost from
        # time 0), so that the limit did not bound it.
        lost = d["switch_drops"] + d["bottleneck_drops_from_start"]
        unbounded = d["divergent"].astype(bool) | (lost > 0)
        rows.append(
            compare(
                "Kalyanaraman 1996, Table 2 (d 0.8, p 100 ms): ERICA+ keeps the switch queue "
                "bounded with VBR: runs whose queue diverges or reaches the buffer's limit",
                paper=0,
                measured=float(unbounded.sum()),
                unit="runs",
                tol=TOL_ZERO,
                note=f"max switch queue {d['max_queue_cells'].mean():,.0f} cells (paper "
                f"5,217), cells lost from time 0 {int(lost.sum()):,} at {ref:,} cells; "
                "divergence by the stated test of the kalyanaraman1996 reproduction.",
            )
        )
    if a.an:
        fm = float(np.mean(a.an.get("fmmra", [np.nan])))
        for other in ("erica", "efci"):
            o = float(np.mean(a.an.get(other, [np.nan])))
            rows.append(
                compare(
                    f"An 1997 (N = 5, 10 ms VBR): FMMRA's maximum queue below "
                    f"{other.upper()}'s: ratio",
                    paper="< 1",
                    measured=fm / o if o else float("nan"),
                    unit="ratio",
                    tol=TOL_RATIO_BELOW,
                    note=f"FMMRA {fm:,.0f} cells, {other.upper()} {o:,.0f} cells (mean over "
                    "seeds; unlimited buffers as the thesis).",
                )
            )
    return rows


# --------------------------------------------------------------------------------------------
# Figures

MARKERS = "os^vD<>pPX*hd"


def _colors() -> dict[str, Any]:
    return dict(zip(SCHEMES, plots.palette(len(SCHEMES), "tab20"), strict=True))


def figures(a: Atlas, out: Path) -> list[tuple[Path, str]]:
    figs = []
    nets = list(a.cfg.networks)
    colors = _colors()
    ncol = min(2, len(nets))
    nrow = (len(nets) + ncol - 1) // ncol
    fig, axes = plots.figure(nrow, ncol, size=(7 * ncol, 4.2 * nrow))
    axes = np.atleast_1d(axes)
    for ax, nk in zip(axes.flat, nets, strict=False):
        for i, sk in enumerate(a.cfg.schemes):
            c = a.curve(nk, sk)
            if not len(c):
                continue
            ax.errorbar(c.index, c["mean"], yerr=c["sd"].fillna(0), marker=MARKERS[i % 13],
                        ms=4, lw=1.1, color=colors[sk], label=SCHEMES[sk].label)  # fmt: skip
        ax.axhline(BEST_SHARE * a.best(nk), color="grey", lw=0.7, ls=":")
        ax.set_xscale("log", base=2)
        ax.set_title(NETWORKS[nk].title, fontsize="small")
        ax.set_xlabel("switch buffer (cells per port)")
        ax.set_ylabel("TCP goodput / maximum")
    for ax in list(axes.flat)[len(nets) :]:
        ax.set_visible(False)
    axes.flat[0].legend(fontsize="x-small", ncol=2)
    figs.append(
        (
            plots.save(fig, out / "goodput-vs-buffer.png"),
            "TCP goodput as a share of what the bottleneck can carry, against the switch "
            "buffer (cells per output port; per-VC schemes get an equal part per VC), mean "
            "± sd over seeds. Dotted: 95% of the network's best.",
        )
    )
    if a.spread is not None and len(a.spread):
        fig, axes = plots.figure(1, 2, size=(13, 4.6))
        for ax, col, ylabel in (
            (axes[0], "fairness", "Jain fairness of TCP goodput"),
            (axes[1], "group_ratio", "long / short group goodput"),
        ):
            for i, sk in enumerate(a.cfg.schemes):
                c = a.spread_curve(sk, col)
                if not len(c):
                    continue
                ax.errorbar(c.index, c["mean"], yerr=c["sd"].fillna(0), marker=MARKERS[i % 13],
                            ms=4, lw=1.1, color=colors[sk], label=SCHEMES[sk].label)  # fmt: skip
            ax.set_xticks(sorted(a.spread["ratio"].unique()))
            ax.set_xlabel(
                f"R: the long group's round trip over the short group's ({SPREAD_SHORT_RTT_MS} ms)"
            )
            ax.set_ylabel(ylabel)
        axes[1].axhline(1.0, color="grey", lw=0.7, ls=":")
        rs = np.linspace(1, float(a.spread["ratio"].max()), 50)
        (inverse,) = axes[1].plot(rs, 1 / rs, color="grey", lw=0.9, ls="--", label="1 / R")
        axes[1].legend(handles=[inverse], fontsize="x-small", loc="upper right")
        axes[0].legend(fontsize="x-small", ncol=2)
        ref = a.reference(SPREAD_NET)
        figs.append(
            (
                plots.save(fig, out / "fairness-vs-rtt-spread.png"),
                f"Fairness against round-trip spread: the parking lot at {ref:,} cells per "
                f"port, the short group's propagation round trip {SPREAD_SHORT_RTT_MS} ms and "
                "the long group's R times that (the middle group's halfway), set by the "
                "sources' access links; mean ± sd over seeds. Left: Jain's index over the 15 "
                "TCPs; right: the long group's mean goodput over the short group's (dotted: "
                "no bias; dashed: 1 / R, goodput in inverse proportion to the round trip). At "
                "R = 1 only the topology differs: the long group crosses three loaded ports, "
                "the short group one.",
            )
        )
    fig, axes = plots.figure(nrow, ncol, size=(7 * ncol, 4.2 * nrow))
    axes = np.atleast_1d(axes)
    for ax, nk in zip(axes.flat, nets, strict=False):
        r = a.runs[a.runs["network"] == nk].copy()
        r["buffering"] = r["max_queue_cells"] + r["source_side_max_cells"].fillna(0)
        pts = r.groupby(["scheme", "buffer"])[["buffering", "goodput_share"]].mean()
        for sk in a.cfg.schemes:
            if sk in pts.index.get_level_values(0):
                p = pts.loc[sk]
                ax.scatter(p["buffering"], p["goodput_share"], color=colors[sk], s=18,
                           label=SCHEMES[sk].label)  # fmt: skip
        pts = pts.sort_values("buffering")
        front = pts[pts["goodput_share"] >= pts["goodput_share"].cummax()]
        ax.step(front["buffering"], front["goodput_share"], where="post", color="k", lw=0.9)
        ax.set_xscale("symlog", linthresh=10)
        ax.set_title(NETWORKS[nk].title, fontsize="small")
        ax.set_xlabel("cells buffered: max switch queue + largest source-side queue")
        ax.set_ylabel("TCP goodput / maximum")
    for ax in list(axes.flat)[len(nets) :]:
        ax.set_visible(False)
    axes.flat[0].legend(fontsize="x-small", ncol=2)
    figs.append(
        (
            plots.save(fig, out / "frontier.png"),
            "Efficiency against buffering, per network: every (scheme, buffer size) point "
            "(mean over seeds) at the cells it buffered, in the bottleneck switch and at the "
            "sources (an ABR source queue or a host adapter's queue, where credits hold "
            "data back); the black step is the frontier (the most goodput for at most that "
            "much buffering).",
        )
    )
    return figs


# --------------------------------------------------------------------------------------------
# Notes


def _order(a: Atlas, nk: str, col: str, reverse: bool = True) -> list[tuple[str, float]]:
    ref = a.reference(nk)
    vals = [(sk, a.mean(nk, sk, col, ref)) for sk in a.cfg.schemes if a.has(nk, sk)]
    vals = [(k, v) for k, v in vals if not np.isnan(v)]
    return sorted(vals, key=lambda kv: kv[1], reverse=reverse)


def _names(vals: list[tuple[str, float]], fmt: str) -> str:
    return ", ".join(f"{SCHEMES[k].label} {fmt.format(v)}" for k, v in vals)


def network_text(a: Atlas, nk: str) -> list[str]:
    net = NETWORKS[nk]
    ref = a.reference(nk)
    grid = a.cfg.buffers(net, a.quick)
    g = _order(a, nk, "goodput_share")
    lines = [f"### {net.title}", ""]
    if not g:
        return lines
    lines.append(
        f"- At {ref:,} cells per port, goodput as a share of the maximum "
        f"({max_goodput_mbps(net):.1f} Mb/s"
        + (
            " beside the VBR source's nominal mean; each run's own VBR cells count"
            if net.vbr
            else ""
        )
        + f"), best first: {_names(g, '{:.3f}')}."
    )
    f = _order(a, nk, "fairness")
    lines.append(f"- Jain fairness, best first: {_names(f, '{:.3f}')}.")
    if net.groups:
        r = _order(a, nk, "group_ratio")
        lines.append(
            f"- Long/short round-trip group goodput ratio (1 = no bias against the long "
            f"round trips), highest first: {_names(r, '{:.2f}')}."
        )
    z = [(sk, a.buffer_for_zero_loss(nk, sk)) for sk in a.cfg.schemes if a.has(nk, sk)]
    lossless = [(k, v) for k, v in z if not np.isnan(v)]
    never = [SCHEMES[k].label for k, v in z if np.isnan(v)]
    lines.append(
        "- Smallest buffer of the grid with no switch loss: "
        + (_names(sorted(lossless, key=lambda kv: kv[1]), "{:,.0f}") if lossless else "none")
        + (f"; none up to {max(grid):,} cells for {', '.join(never)}" if never else "")
        + "."
    )
    b = [(sk, a.buffer_for_best(nk, sk)) for sk in a.cfg.schemes if a.has(nk, sk)]
    reach = sorted([(k, v) for k, v in b if not np.isnan(v)], key=lambda kv: kv[1])
    miss = [SCHEMES[k].label for k, v in b if np.isnan(v)]
    lines.append(
        f"- Smallest buffer reaching 95% of the best goodput ({a.best(nk):.3f}): "
        + (_names(reach, "{:,.0f}") if reach else "none")
        + (f"; never within the grid: {', '.join(miss)}" if miss else "")
        + "."
    )
    d = _order(a, nk, "p99_delay_ms", reverse=False)
    lines.append(f"- 99th-percentile queueing delay at the bottleneck (ms), lowest first: "
                 f"{_names(d, '{:.3f}')}.")  # fmt: skip
    s = [(k, v) for k, v in _order(a, nk, "source_queue_max_cells") if SCHEMES[k].family == "abr"]
    if s:
        lines.append(f"- Largest ABR source queue (cells): {_names(s, '{:,.0f}')}.")
    h = _order(a, nk, "source_side_max_cells")
    if h:
        lines.append(
            "- Largest source-side queue (cells; an ABR source queue or a host adapter's "
            f"queue), largest first: {_names(h, '{:,.0f}')}."
        )
    return lines + [""]


#: How close to 1/R a long/short ratio must be to be read as "in inverse proportion to the
#: round trip": 0.05, about the seed-to-seed sd of the ratio at R = 4 (0.00-0.11 over the
#: schemes, three seeds).
SPREAD_NEAR = 0.05


def spread_text(a: Atlas) -> list[str]:
    """The round-trip spread study in words, from its runs (empty: not run)."""
    from atmsim.reproduce._atlas_setup import spread_access_delays

    d = a.spread
    if d is None or not len(d):
        return []
    lo, hi = int(d["ratio"].min()), int(d["ratio"].max())
    ref = a.reference(SPREAD_NET)
    m = d.groupby(["scheme", "ratio"])[["group_ratio", "fairness"]].mean()
    schemes = [sk for sk in a.cfg.schemes if sk in m.index.get_level_values(0)]
    order = sorted(schemes, key=lambda sk: m.loc[(sk, hi), "group_ratio"], reverse=True)
    lines = [
        f"### Round-trip spread (parking lot at {ref:,} cells, R = "
        + ", ".join(str(r) for r in sorted(d["ratio"].unique()))
        + ")",
        "",
        f"The short group's propagation round trip is {SPREAD_SHORT_RTT_MS} ms and the long "
        "group's R times that (the middle group's halfway), set by the sources' access "
        "links; at R = 1 only the topology separates the groups (the long group crosses "
        "three loaded ports, the short group one).",
        "",
        f"- Long/short group goodput at R = {lo} and R = {hi} (mean over seeds), highest at "
        f"R = {hi} first: "
        + ", ".join(
            f"{SCHEMES[sk].label} {m.loc[(sk, lo), 'group_ratio']:.2f} -> "
            f"{m.loc[(sk, hi), 'group_ratio']:.2f}"
            for sk in order
        )
        + ".",
        f"- Jain fairness at R = {hi}, best first: "
        + ", ".join(
            f"{SCHEMES[sk].label} {m.loc[(sk, hi), 'fairness']:.3f}"
            for sk in sorted(schemes, key=lambda sk: m.loc[(sk, hi), "fairness"], reverse=True)
        )
        + ".",
    ]
    if hi > lo:
        inv = 1 / hi
        near = [sk for sk in order if abs(m.loc[(sk, hi), "group_ratio"] - inv) <= SPREAD_NEAR]
        above_ = [sk for sk in order if m.loc[(sk, hi), "group_ratio"] > inv + SPREAD_NEAR]
        below_ = [sk for sk in order if m.loc[(sk, hi), "group_ratio"] < inv - SPREAD_NEAR]
        parts = []
        for what, group in (
            (f"within {SPREAD_NEAR} of 1/R ({inv:.2f}: goodput in inverse proportion to the "
             "round trip)", near),
            ("above it", above_),
            ("below it", below_),
        ):  # fmt: skip
            if group:
                parts.append(f"{what}: " + ", ".join(SCHEMES[sk].label for sk in group))
        lines.append(f"- At R = {hi} the long/short ratio is " + "; ".join(parts) + ".")
    drops = d.groupby(["scheme", "ratio"])["switch_drops"].mean()
    ratios = sorted(d["ratio"].unique())
    never = [sk for sk in schemes if all(drops[(sk, r)] == 0 for r in ratios)]
    later = [
        (sk, next(r for r in ratios if drops[(sk, r)] > 0))
        for sk in schemes
        if sk not in never and drops[(sk, ratios[0])] == 0
    ]
    always = [sk for sk in schemes if sk not in never and drops[(sk, ratios[0])] > 0]
    parts = []
    if never:
        parts.append("none at any R: " + ", ".join(SCHEMES[sk].label for sk in never))
    parts += [
        f"first at R = {r}: {SCHEMES[sk].label} ({drops[(sk, hi)]:,.0f} at R = {hi})"
        for sk, r in later
    ]
    if always:
        parts.append("at every R: " + ", ".join(SCHEMES[sk].label for sk in always))
    lines.append("- Cells lost in the switches (mean over seeds): " + "; ".join(parts) + ".")
    if "credits" in schemes:
        net = NETWORKS[SPREAD_NET]
        per_vc = ref // (len(net.tcp) + (net.vbr is not None))
        longest = max(spread_access_delays(hi).values())
        cap = per_vc / (2 * longest) * 424 / 1e6
        lines.append(
            f"- AN2 credits hold a VC to its credits per round trip of each link: at {ref:,} "
            f"cells a VC's part of the buffer, {per_vc} cells, is all a link can credit it, "
            f"which on the long group's {longest * 1e3:g} ms access link at R = {hi} allows "
            f"at most {cap:.2f} Mb/s of cells per session (a fair share is "
            f"{cell_rate(net) * 424 / 1e6 / len(net.tcp):.2f}): credits need buffer in "
            "proportion to a link's round trip."
        )
    return lines + [""]


#: Each paper's ordering of its schemes, to look for on every network: (paper, measure,
#: schemes in the claimed order, True when higher is better).
ORDERINGS = (
    ("Fang 1994", "goodput_share", ("credits", "drop_whole", "ppd", "cell_drop"), True),
    ("Cheon & Panwar 1998", "goodput_share", ("espd", "epd"), True),
    ("An 1997", "max_queue_cells", ("fmmra", "erica"), False),
    ("An 1997", "max_queue_cells", ("fmmra", "efci"), False),
)


def orderings_text(a: Atlas) -> list[str]:
    """Whether each paper's ordering holds on each network of the atlas (reference buffer,
    means over seeds; ties count as holding only for Fang's credits >= drop-whole; maximum
    queues that reach the buffer's limit are not compared)."""
    lines = []
    for paper, col, order, higher in ORDERINGS:
        word = "goodput" if col == "goodput_share" else "maximum queue"
        rel_ = " > " if higher else " < "
        parts = []
        for nk in a.cfg.networks:
            if not a.has(nk, *order):
                continue
            ref = a.reference(nk)
            v = [a.mean(nk, s, col, ref) for s in order]
            ok = all(
                (x >= y if (higher and i == 0 and paper.startswith("Fang")) else
                 (x > y if higher else x < y))
                for i, (x, y) in enumerate(zip(v, v[1:], strict=False))
            )  # fmt: skip
            fmt = "{:.3f}" if col == "goodput_share" else "{:,.0f}"
            vals = ", ".join(fmt.format(x) for x in v)
            if col == "max_queue_cells" and max(v) >= ref:
                # A maximum the buffer's limit cut off says nothing about the order.
                parts.append(
                    f"{nk} not comparable (a queue reaches the {ref:,}-cell limit: {vals})"
                )
                continue
            parts.append(f"{nk} {'holds' if ok else 'does not hold'} ({vals})")
        if parts:
            names = SCHEMES[order[0]].label
            for i, s in enumerate(order[1:]):
                names += (" >= " if i == 0 and paper.startswith("Fang") else rel_) + SCHEMES[
                    s
                ].label
            lines.append(f"- {paper}, {word} {names}: " + "; ".join(parts) + ".")
    return lines


def notes_md(rows: list[Claim], a: Atlas) -> str:
    from atmsim.reproduce._atlas_setup import credit_cells

    agree = sum(r.agrees for r in rows)
    n_seeds = len(a.cfg.seed_list(a.quick))
    lines = [
        "# The scheme atlas: notes",
        "",
        f"{agree} of {len(rows)} ordering checks agree with the papers "
        + (
            f"({'quick mode: ' if a.quick else ''}{n_seeds} seed(s) per point, "
            f"{len(a.runs)} atlas runs)."
            if len(a.runs)
            else "."
        ),  # fmt: skip
        "",
        "## How it is measured",
        "",
        "- Goodput: the TCPs' goodput after the warm-up, summed, over the most the bottleneck "
        "can carry in full segments (its cell rate less the VBR cells the run delivered, in the "
        "scenario's MSS plus 40 B of TCP/IP, LLC/SNAP where the hosts add it and the "
        "hosts' adaptation-layer overhead (AAL5's 8 B trailer; Cheon & Panwar's 14 B on their "
        "network), padded to cells). RM cells and ABR rate targets are not deducted: "
        "they count against the scheme. Goodput is in-order data handed to the receiving "
        "application after the warm-up, so data held behind a hole at the warm-up counts when "
        "the hole fills: with large windows and a short measurement a share can exceed 1 "
        "slightly.",
        "- Fairness: Jain's index over the TCPs' goodputs. Group ratio (parking lot only): "
        "the mean goodput of sessions 1-5 (10 ms round trip) over that of sessions 11-15 "
        "(6 ms). Cell loss: cells of the TCP connections lost anywhere, over cells sent.",
        "- Switch buffer: cells per switch output port. Shared-FIFO schemes get it as the "
        "port buffer; per-VC schemes (cell drop, drop-tail, drop-whole, credits, Fang's "
        "queueing) as an equal part per VC. 'Buffer for zero loss' is the smallest size of "
        "the grid at which, in every seed, no switch port lost a cell after the warm-up and "
        "the bottleneck port lost none from time 0 (its cumulative drop series: the start's "
        "slow-start losses count); 'buffer for 95% of the "
        "best' the smallest from which on (it and every larger buffer of the grid) the "
        "scheme's mean goodput reaches 95% of the best mean any scheme reaches on that "
        "network at any buffer of the grid.",
        "- 99th-percentile queueing delay: the 99th percentile of the bottleneck port's "
        "queue length as the series samples it (instantaneous, every sample period after the "
        "warm-up), divided by the rate the port drains it at (its cell rate, less the VBR "
        "cells the run delivered where a priority VBR source shares it). It is a percentile "
        "of sampled queue "
        "lengths, not of the delays cells met: a queue that fills and empties between "
        "samples is seen only at the sample instants.",
        "- Source buffering: the largest queue any ABR source held (cells), and the "
        "source-side queue of every scheme: the larger of that and the largest queue at a "
        "host's adapter port (where a TCP's window waits when the network holds it back, "
        "as AN2 credits do).",
        "- VBR delivered / nominal (Kalyanaraman with VBR): the VBR cells delivered after the "
        "warm-up over the source's nominal mean. The VBR VC has strict priority at every "
        "switch and is not credited (AN2 credits best-effort traffic only), so it sends its "
        "nominal mean under every scheme.",
        "",
        "## Run lengths",
        "",
        "Seeds move the TCPs' start times: within the first 1 ms (Fang; Kalyanaraman, whose "
        "sources start at one instant in the paper, which would make every seed the same "
        "run) or 10 ms (parking lot, as its scenario).",
        "",
    ]
    for nk in a.cfg.networks:
        net = NETWORKS[nk]
        dur, warm = a.cfg.run or (net.quick_run if a.quick else net.full_run)
        grid = ", ".join(f"{b:,}" for b in a.cfg.buffers(net, a.quick))
        lines.append(
            f"- {net.title}: {dur} runs, statistics from {warm}, queue sampled every "
            f"{net.sample_every}; buffer grid {grid} "
            f"cells; AN2 credits {credit_cells(net):,} cells per VC per hop, or the VC's part "
            "of the buffer when that is less."
        )
    if a.spread is not None and len(a.spread):
        dur, warm = a.cfg.run or SPREAD_RUN
        lines.append(
            f"- The round-trip spread study (parking lot at {a.reference(SPREAD_NET):,} cells): "
            f"{dur} runs, statistics from {warm}, so that the long round trips' windows have "
            "regained their size after the start (in the 3 s runs the long group's share "
            "measures how far it has recovered)."
        )
    lines += ["", "## What the atlas shows", ""]
    for nk in a.cfg.networks:
        lines += network_text(a, nk)
    lines += spread_text(a)
    lines += [
        "## Each paper's ordering on every network",
        "",
        "The papers' orderings of their own schemes, looked for on every network of the atlas "
        "at its reference buffer (values in the order named; goodput as a share of the "
        "maximum, queues in cells):",
        "",
        *orderings_text(a),
        "",
        "## The papers' own orderings on their own networks (the checks)",
        "",
    ]
    alt = reading_text(a)
    for r in rows:
        verdict = "agrees" if r.agrees else "**disagrees**"
        lines.append(f"- {r.claim}: paper {r.paper}, atlas {r.measured:.4g} {r.unit} "
                     f"({verdict}). {r.note}")  # fmt: skip
        if not r.agrees:
            lines.append(f"  - {cause(r, a)}")
    if alt:
        title = "## Sensitivity: Cheon & Panwar's TCP read as the BSD Reno of its time"
        lines += ["", title, "", alt]
    return "\n".join(lines) + "\n"


def _reading(a: Atlas) -> tuple[pd.Series, pd.Series] | None:
    """Mean EPD and ESPD measures under ``CHEON_READING`` (None: not run)."""
    d = a.reading
    if d is None or not {"epd", "espd"} <= set(d["scheme"]):
        return None
    m = d.groupby("scheme")[["goodput_share", "group_ratio"]].mean()
    return m.loc["epd"], m.loc["espd"]


#: What CHEON_READING is, for the notes.
READING_TEXT = (
    f"the reading of the paper's TCP closest to its results with the paper's five seeds in "
    f"atmsim's cheon1998 reproduction (`{CHEON_READING}`: BSD's Reno as TCP/IP Illustrated "
    "vol. 1 describes it, avoidance steps of MSS²/cwnd + MSS/8 per ACK, held ACKs sent at the "
    "ticks of a periodic 12.5 ms clock, no check on `recover`; "
    '`tcp.cwnd_growth = "per_ack_plus_eighth"`, `tcp.ack_clock = "periodic"`, '
    "`tcp.recover_guard = false`)"
)
#: Whether CHEON_READING is the cause is cheon1998's question (its sensitivity study).
READING_NOT_CAUSE = (
    "The atlas does not name it as the cause: atmsim's cheon1998 reproduction settles that, "
    "naming a reading only if it holds on every one of the paper's five criteria with the "
    "paper's five seeds and again on each of two further sets of five (its notes say how "
    "this one fares)."
)


def reading_text(a: Atlas) -> str:
    """What the parking lot's EPD and ESPD give under ``CHEON_READING``."""
    got = _reading(a)
    if got is None:
        return ""
    e, s = got
    g_ok = s["goodput_share"] > e["goodput_share"]
    r_ok = s["group_ratio"] > e["group_ratio"]
    return (
        "EPD (95%) and ESPD (95/90) on the parking lot at the reference buffer, run again "
        f"under {READING_TEXT}: goodput EPD {100 * e['goodput_share']:.1f}%, ESPD "
        f"{100 * s['goodput_share']:.1f}% of the maximum, so ESPD above EPD "
        f"{'holds' if g_ok else 'does not hold'} there; long/short ratio EPD "
        f"{e['group_ratio']:.3f}, ESPD {s['group_ratio']:.3f}, so ESPD helping the long round "
        f"trips more {'holds' if r_ok else 'does not hold'}. " + READING_NOT_CAUSE
    )


def cause(r: Claim, a: Atlas) -> str:
    """What is known of a disagreeing check's cause (recorded where it was found)."""
    got = _reading(a)
    if r.claim.startswith("Cheon") and "above EPD" in r.claim:
        text = (
            "Recorded by atmsim's cheon1998 reproduction: with atmsim's standard TCP the link "
            "practically never idles under EPD, so the paper's 'low activity periods' do not "
            "occur and ESPD has nothing to win back."
        )
        if got is not None:
            e, s = got
            text += (
                f" Under {READING_TEXT} the atlas's own runs give EPD "
                f"{100 * e['goodput_share']:.1f}% and ESPD {100 * s['goodput_share']:.1f}%: "
                + ("the ordering holds there. " + READING_NOT_CAUSE
                   if s["goodput_share"] > e["goodput_share"] else
                   "the ordering does not hold there either; no cause is established here.")
            )  # fmt: skip
        return text
    if r.claim.startswith("Cheon"):
        text = (
            "Recorded by atmsim's cheon1998 reproduction: ESPD gives the long-RTT group about "
            "what the paper's ESPD gives it; the gain over EPD vanishes because atmsim's EPD "
            "does not collapse (the link never idles)."
        )
        if got is not None:
            e, s = got
            text += (
                f" Under the same reading the ratio is EPD {e['group_ratio']:.3f}, ESPD "
                f"{s['group_ratio']:.3f}: "
                + ("the ordering holds there. " + READING_NOT_CAUSE
                   if s["group_ratio"] > e["group_ratio"] else
                   "the ordering does not hold there either; no cause is established here.")
            )  # fmt: skip
        return text
    if r.claim.startswith("Kalyanaraman") and "sources" in r.claim:
        return "No cause established here; the kalyanaraman1996 reproduction measures Table 1."
    return "No cause established; see the measured values above."


# --------------------------------------------------------------------------------------------


def main(
    out_dir: str | os.PathLike[str],
    quick: bool = False,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    cfg: Config = DEFAULT,
) -> int:
    """Run the atlas and write its outputs into ``out_dir``; returns 0."""
    return run_reproduction(
        "atlas", jobs(quick, cfg), partial(build, cfg=cfg), out_dir, quick, workers, scheduler
    )


CONFIG_FILE = "atlas-config.json"


def report(out_dir: str | os.PathLike[str]) -> int:
    """Rebuild the outputs of an earlier run from the runs stored in ``out_dir`` (with the
    configuration it ran, ``atlas-config.json``)."""
    path = Path(out_dir) / CONFIG_FILE
    cfg = DEFAULT
    if path.is_file():
        raw = json.loads(path.read_text(encoding="utf-8"))
        cfg = Config(**{k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()})
    return rebuild_reproduction(partial(jobs, cfg=cfg), partial(build, cfg=cfg), out_dir)


def build(
    out: Path,
    quick: bool,
    js: list[Job],
    results: list[Any],
    runs_s: float,
    n_workers: int,
    clock: Stopwatch | None = None,
    *,
    cfg: Config = DEFAULT,
) -> int:
    a = measure(js, results, quick, cfg)
    atomic_write(out / CONFIG_FILE, json.dumps(asdict(cfg), indent=2) + "\n")
    atomic_write(out / "runs.csv", a.runs.to_csv(index=False))
    if a.spread is not None:
        atomic_write(out / "spread.csv", a.spread.to_csv(index=False))
    atomic_write(out / "atlas.csv", summary_table(a).to_csv(index=False))
    rows = claims(a)
    figs = figures(a, out / "figures")
    meta = {
        "networks": ", ".join(cfg.networks),
        "schemes": ", ".join(SCHEMES[s].label for s in cfg.schemes),
        "mode": "quick (one seed, three buffer sizes)" if quick else "full (3 seeds)",
    }
    param_rows = [[s.label, s.params, s.source] for s in (SCHEMES[k] for k in cfg.schemes)]
    net_rows = [
        [n.title, n.scenario, n.source, f"{max_goodput_mbps(n):.2f}", n.bottleneck]
        for n in (NETWORKS[k] for k in cfg.networks)
    ]
    tables = [
        *html_tables(a),
        ("Schemes: parameters and where they come from", ["scheme", "parameters", "source"],
         param_rows),
        ("Networks", ["network", "built-in scenario", "source", "max goodput (Mb/s)",
                      "bottleneck"], net_rows),
    ]  # fmt: skip
    intro = (
        "Every switching scheme atmsim has, with greedy TCPs on top, on the networks of the "
        "studies it reproduces, each scheme with its own paper's parameters and each network "
        "with its own paper's TCP. Rows: schemes; columns: measures; one table per network. "
        "The comparison checks each paper's own ordering of its schemes on its own network."
    )
    return publish(
        out, "atlas", TITLE, rows, figs, notes_md(rows, a), js, meta,
        quick=quick, runs_s=runs_s, n_workers=n_workers, intro=intro,
        tables=tables, clock=clock or Stopwatch(),
    )  # fmt: skip
