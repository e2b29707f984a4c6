"""The figures of the Fang et al. 1994 reproduction: Figs. 3-8 and Table 2 here, Figs. 9-12
in :mod:`.figures_discard`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from atmsim import plots
from atmsim.reproduce.fang1994 import published as P
from atmsim.reproduce.fang1994.figures_discard import figures_packet_drop, wide
from atmsim.reproduce.fang1994.measure import Measured, linear_r2
from atmsim.reproduce.fang1994.runs import (
    AN2,
    BOTTLENECK,
    CELL_DROP,
    MSS64,
    MSS64_ALONE,
    NS,
    SCHEMES,
    SESSIONS,
    sweep_name,
)
from atmsim.reproduce.framework import CONFIDENCE, Estimate, Figure

__all__ = ["figures"]


def _paper_line(ax: Any, y: float, text: str) -> None:
    ax.axhline(y, color="0.35", ls=":", lw=1.1)
    ax.annotate(
        text,
        (1.0, y),
        xycoords=("axes fraction", "data"),
        ha="right",
        va="bottom",
        fontsize="x-small",
        color="0.25",
        bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.7},
    )


def _err(values: list[Estimate]) -> list[float]:
    """The half-widths of ``values``' intervals for error bars (none for a single seed)."""
    return [0.0 if e.ci != e.ci else e.ci for e in values]


def _scheme_colors(n: int) -> dict[str, list[Any]]:
    return {"an2": plots.palette(n, "Blues"), "cell-drop": plots.palette(n, "Reds")}


def figures(m: Measured, fig_dir: Path, quick: bool) -> list[Figure]:
    """Draw every figure, in the paper's order."""
    f = m.facts
    us = f"{f.cpu_per_segment_s * 1e6:.0f} us"
    out: list[tuple[Path, str]] = []
    runs = {"an2": m.res[AN2], "cell-drop": m.res[CELL_DROP]}
    mode = " (--quick: 3 s runs)" if quick else ""
    n = len(m.seeds)
    means = (
        f"Points and bars: the mean over {n} seeds; error bars: its {CONFIDENCE:.0%} "
        "confidence interval."
    )
    seed1 = f" Seed {m.seed}'s runs (of {n} seeds)."

    # Fig. 3: the baseline.
    fig, ax = plots.figure()
    for scheme, style in (("an2", "-"), ("cell-drop", "--")):
        res = m.res[sweep_name(scheme, 1)]
        w = wide(res, "goodput_mbps", "connection")
        color = plots.SCHEME_COLORS[scheme]
        plots.lines(
            ax,
            plots.moving_average(w, 0.1),
            colors=color,
            alpha=0.25,
            width=0.8,
            labels="_nolegend_",
        )
        plots.lines(
            ax,
            plots.cumulative_mean(w),
            colors=color,
            style=style,
            width=2,
            labels=f"{SCHEMES[scheme]} (mean since t = 0)",
        )
    _paper_line(ax, f.payload_rate_mbps, f"link payload rate {f.payload_rate_mbps:.1f} Mb/s")
    _paper_line(ax, f.cpu_bound_8k_mbps, f"CPU bound {f.mss_bytes} B / {us}")
    ax.set(
        xlabel="simulation time (s)",
        ylabel="TCP goodput (Mb/s)",
        ylim=(0, 160),
        title="Fig. 3: baseline, one session alone" + mode,
    )
    ax.legend(fontsize="small", loc="lower right")
    out.append(
        (
            plots.save(fig, fig_dir / "fig3.png"),
            "Fig. 3 - baseline: one TCP session alone (fang1994-*-n1). Thick lines: mean "
            "goodput since t = 0; thin: 100 ms moving average. The two schemes coincide: "
            "without congestion the credits never stall the session. Our session is "
            f"bounded by the host CPU model (one segment per {us}), not by the link.",
        )
    )

    # Fig. 4: per-session goodput, both schemes.
    fig, axes = plots.figure(2, 1, size=(8, 8), sharex=True)
    colors = _scheme_colors(len(SESSIONS))
    for scheme, res in runs.items():
        w = wide(res, "goodput_mbps", "connection", SESSIONS)
        short = "AN2" if scheme == "an2" else "cell drop"
        plots.lines(
            axes[0], plots.cumulative_mean(w), colors=colors[scheme], labels=f"{short} {{}}"
        )
        plots.lines(
            axes[1],
            plots.moving_average(w, 0.25),
            colors=colors[scheme],
            width=0.9,
            labels="_nolegend_",
        )
    for ax in axes:
        _paper_line(ax, P.AN2_SESSION.value, "paper: AN2 23.3 Mb/s")
        _paper_line(
            ax,
            P.AN2_SESSION.value * (1 - P.CD_REDUCTION.value / 100),
            "paper: cell drop 36% lower",
        )
        ax.set(ylabel="TCP goodput (Mb/s)")
    axes[0].set(title="Fig. 4: six sessions, mean goodput since t = 0" + mode, ylim=(0, 40))
    axes[1].set(title="250 ms moving average", xlabel="simulation time (s)", ylim=(0, 40))
    axes[0].legend(fontsize="x-small", ncol=6, loc="upper center", columnspacing=1.0)
    out.append(
        (
            plots.save(fig, fig_dir / "fig4.png"),
            "Fig. 4 - goodput of each of the six sessions (blue: AN2 credits, red: simple "
            "cell drop). Top: running mean since t = 0; bottom: 250 ms moving average. "
            "Dotted: the paper's 23.3 Mb/s and 36% below it.",
        )
    )

    # Fig. 5: cumulative cell loss and retransmission percentages.
    fig, ax = plots.figure()
    for scheme, res in runs.items():
        sent = wide(res, "cells_sent", "connection", SESSIONS).sum(axis=1)
        drop = wide(res, "cells_dropped", "connection", SESSIONS).sum(axis=1)
        segs = wide(res, "packets_sent", "connection", SESSIONS).sum(axis=1)
        retx = wide(res, "retransmissions", "connection", SESSIONS).sum(axis=1)
        loss_pct = (100 * drop / sent.where(sent > 0)).dropna()
        retx_pct = (100 * retx / segs.where(segs > 0)).dropna()
        c = plots.SCHEME_COLORS[scheme]
        ax.plot(
            loss_pct.index, loss_pct, "-", color=c, lw=1.8, label=f"{SCHEMES[scheme]}: cell loss"
        )
        ax.plot(
            retx_pct.index,
            retx_pct,
            "--",
            color=c,
            lw=1.8,
            label=f"{SCHEMES[scheme]}: TCP retransmission",
        )
    _paper_line(ax, P.CD_RETX.value, "paper: cell drop 38% retransmission")
    _paper_line(ax, P.CD_LOSS.value, "paper: cell drop 6.5% cell loss")
    ax.set(
        xlabel="simulation time (s)",
        ylabel="cumulative %",
        ylim=(-1, 50),
        title="Fig. 5: cell loss and TCP retransmission" + mode,
    )
    ax.legend(fontsize="small", loc="center right")
    out.append(
        (
            plots.save(fig, fig_dir / "fig5.png"),
            "Fig. 5 - cumulative cell loss (cells dropped / cells sent, all six VCs) and "
            "TCP retransmission (segments retransmitted / segments sent) since t = 0, "
            "from the cumulative counters cells_sent, cells_dropped, packets_sent and "
            "retransmissions. AN2 stays at 0 for both.",
        )
    )

    # Fig. 6: smoothed RTT.
    fig, ax = plots.figure()
    for scheme, res in runs.items():
        w = wide(res, "srtt_ms", "connection", SESSIONS)
        c = plots.SCHEME_COLORS[scheme]
        plots.lines(ax, w, colors=c, alpha=0.25, width=0.7, labels="_nolegend_")
        ax.plot(
            w.index, w.mean(axis=1), color=c, lw=2, label=f"{SCHEMES[scheme]} (mean of 6 sessions)"
        )
    ax.set(
        xlabel="simulation time (s)",
        ylabel="TCP smoothed RTT (ms)",
        ylim=(0, None),
        title="Fig. 6: TCP round-trip time" + mode,
    )
    ax.legend(fontsize="small")
    out.append(
        (
            plots.save(fig, fig_dir / "fig6.png"),
            "Fig. 6 - TCP's smoothed RTT estimate (srtt) per session (thin) and its mean "
            "(thick). Under AN2 the back-pressure holds each window at the sending "
            "host's adapter, so the RTT includes that queue; under cell drop TCP samples "
            "only segments that got through.",
        )
    )

    # Fig. 7: N sessions.
    ns = np.asarray(NS, dtype=float)
    g = {
        s: [m.over(lambda x, k=k, s=s: x.mean_goodput(sweep_name(s, k))) for k in NS]
        for s in SCHEMES
    }
    r = {s: [m.over(lambda x, k=k, s=s: x.mean_rtt(sweep_name(s, k))) for k in NS] for s in SCHEMES}
    fig, axes = plots.figure(1, 2, size=(12, 4.6))
    ax = axes[0]
    nn = np.linspace(1, 6, 100)
    ax.plot(
        nn, P.PAYLOAD_RATE.value / nn, ":", color="0.3", label="paper: link / N (139.5 Mb/s / N)"
    )
    ax.axhline(
        f.cpu_bound_8k_mbps,
        color="0.6",
        ls="-.",
        lw=1,
        label=f"our CPU bound, {f.mss_bytes} B / {us}",
    )
    for s in SCHEMES:
        ax.errorbar(ns, [e.mean for e in g[s]], yerr=_err(g[s]), fmt="o-", capsize=3,
                    color=plots.SCHEME_COLORS[s], label=SCHEMES[s])  # fmt: skip
    ax.set(
        xlabel="N, concurrent sessions",
        ylabel="mean TCP goodput per session (Mb/s)",
        title="Fig. 7a: goodput vs N" + mode,
        ylim=(0, 150),
    )
    ax.legend(fontsize="small")
    ax = axes[1]
    slope, intercept, r2 = linear_r2(ns, np.asarray([e.mean for e in r["an2"]]))
    ax.plot(nn, slope * nn + intercept, ":", color="0.3",
            label=f"line fit to AN2's means (R² = {r2:.3f})")  # fmt: skip
    for s in SCHEMES:
        ax.errorbar(ns, [e.mean for e in r[s]], yerr=_err(r[s]), fmt="o-", capsize=3,
                    color=plots.SCHEME_COLORS[s], label=SCHEMES[s])  # fmt: skip
    ax.set(
        xlabel="N, concurrent sessions",
        ylabel="mean TCP RTT (ms)",
        title="Fig. 7b: RTT vs N" + mode,
        ylim=(0, None),
    )
    ax.legend(fontsize="small")
    out.append(
        (
            plots.save(fig, fig_dir / "fig7.png"),
            "Fig. 7 - mean goodput (a) and mean TCP RTT (b) of N = 1..6 concurrent "
            "sessions (fang1994-an2-nN, fang1994-cell-drop-nN). AN2 follows link/N from "
            "N = 2; at N = 1 both schemes sit at our host CPU bound. " + means,
        )
    )

    # Fig. 8: the inter-switch link.
    fig, ax = plots.figure()
    for scheme, res in runs.items():
        c = plots.SCHEME_COLORS[scheme]
        for metric, style, what in (
            ("utilization", "-", "raw"),
            ("effective_utilization", "--", "effective"),
        ):
            w = wide(res, metric, "port", (BOTTLENECK,)) * 100
            cm = plots.cumulative_mean(w)[BOTTLENECK]
            ax.plot(cm.index, cm, style, color=c, lw=1.8, label=f"{SCHEMES[scheme]}: {what}")
    _paper_line(ax, P.CD_EFFECTIVE.value, "paper: cell drop effective 63%")
    _paper_line(ax, 100.0, "paper: AN2 effective -> 100%")
    ax.set(
        xlabel="simulation time (s)",
        ylabel=f"utilisation of {BOTTLENECK} (%)",
        ylim=(0, 105),
        title="Fig. 8: inter-switch link utilisation" + mode,
    )
    ax.legend(fontsize="small", loc="lower right")
    out.append(
        (
            plots.save(fig, fig_dir / "fig8.png"),
            f"Fig. 8 - utilisation of the inter-switch port {BOTTLENECK}, mean since "
            "t = 0: raw (every cell sent) and effective (cells of frames that later "
            "arrived intact). The gap under cell drop is bandwidth spent on cells of "
            "frames already corrupted by a drop.",
        )
    )

    # Table 2.
    g64 = m.goodputs(MSS64)
    busy = m.over(lambda x: float(x.goodputs(MSS64).iloc[0]))
    alone = m.over(lambda x: float(x.goodputs(MSS64_ALONE).iloc[0]))
    fig, axes = plots.figure(1, 2, size=(12, 4.4), width_ratios=[1, 2.4])
    plots.bars(
        axes[0],
        ["with 5 x 8 KB", "alone"],
        {
            "paper": [P.MSS64_BUSY.value, P.MSS64_ALONE.value],
            "atmsim": [busy.mean, alone.mean],
        },
        errors={"atmsim": [busy.ci, alone.ci]},
        colors=["0.6", plots.SCHEME_COLORS["an2"]],
        fmt="{:.3f}",
    )
    axes[0].axhline(
        f.cpu_bound_64_mbps,
        color="0.3",
        ls=":",
        lw=1,
        label=f"our CPU bound, 64 B / {us}",
    )
    axes[0].legend(fontsize="small", loc="upper center", ncol=2)
    axes[0].set(ylabel="goodput (Mb/s)", title="64-B session (s1)", ylim=(0, 1.3))
    big = [m.over(lambda x, i=i: float(x.goodputs(MSS64).iloc[i])) for i in range(1, len(g64))]
    plots.bars(
        axes[1],
        list(g64.index[1:]),
        {"paper": list(P.MSS8K.value), "atmsim": [e.mean for e in big]},
        errors={"atmsim": [e.ci for e in big]},
        colors=["0.6", plots.SCHEME_COLORS["an2"]],
    )
    axes[1].set(ylabel="goodput (Mb/s)", title="8-KB sessions", ylim=(0, 34))
    fig.suptitle("Table 2: one 64-B session among five 8-KB sessions, AN2" + mode)
    out.append(
        (
            plots.save(fig, fig_dir / "table2.png"),
            "Table 2 - goodput of the 64-byte-MSS session s1 and the five 8 KB sessions "
            "under AN2 (fang1994-mss64), and of s1 alone (fang1994-mss64-alone); grey: "
            "the paper, blue: atmsim. Dotted: our CPU bound for 64-B segments, "
            f"64 B / {us} = {f.cpu_bound_64_mbps:.3f} Mb/s. " + means,
        )
    )
    against_time = ("fig3", "fig4", "fig5", "fig6", "fig8")
    out = [(p, c + seed1 if p.stem in against_time else c) for p, c in out]
    out += figures_packet_drop(m, fig_dir, quick)
    return [Figure(path, caption) for path, caption in out]
