"""Figs. 9-12 of the Fang et al. 1994 reproduction: the selective schemes at 256 cells per
VC against time, as the paper plots them, and the per-VC buffer sweep."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from atmsim import plots
from atmsim.reproduce.fang1994 import published as P
from atmsim.reproduce.fang1994.measure import Measured
from atmsim.reproduce.fang1994.runs import (
    AN2,
    CELL_DROP,
    DROP_NAMES,
    DROP_SCHEMES,
    PAPER_BUFFER,
    SESSIONS,
    WINDOW_BUFFER,
    buffer_name,
    buffers,
)
from atmsim.reproduce.framework import CONFIDENCE

__all__ = ["figures_packet_drop", "wide"]


def wide(res: Any, metric: str, kind: str, entities: tuple[str, ...] | None = None) -> Any:
    """``metric`` of ``res`` against time, one column per entity (only ``entities``, in
    that order, when given)."""
    w = res.wide(metric, kind=kind)
    if entities is not None:
        w = w[[e for e in entities if e in w.columns]]
    return w


DROP_COLORS = {"cell-drop": "#c0392b", "drop-tail": "#e67e22", "drop-whole": "#2e8b57"}
_DROP_SHADES = {"drop-tail": "Oranges", "drop-whole": "Greens"}


def _loss_and_retx(res: Any) -> tuple[pd.Series, pd.Series]:
    """Cumulative cell loss % and TCP retransmission % of the six sessions since t = 0."""
    sent = wide(res, "cells_sent", "connection", SESSIONS)
    drop = wide(res, "cells_dropped", "connection", SESSIONS)
    segs = wide(res, "packets_sent", "connection", SESSIONS)
    retx = wide(res, "retransmissions", "connection", SESSIONS)
    return plots.cumulative_percent(drop, sent), plots.cumulative_percent(retx, segs)


def figures_packet_drop(m: Measured, fig_dir: Path, quick: bool) -> list[tuple[Path, str]]:
    """Figs. 9-12: the selective schemes at 256 cells per VC against time (as the paper
    plots them), then the per-VC buffer sweep."""
    out: list[tuple[Path, str]] = []
    mode = " (--quick: 3 s runs)" if quick else ""
    at256 = {s: buffer_name(s, PAPER_BUFFER) for s in DROP_SCHEMES}
    n = len(m.seeds)
    ci = f"{CONFIDENCE:.0%} confidence interval"
    seed1 = f"seed {m.seed}'s runs (of {n} seeds)"

    # Fig. 9: each session's goodput under drop-tail and drop-whole against time, and the
    # four schemes' means.
    fig, axes = plots.figure(1, 2, size=(13, 4.8), width_ratios=[2.1, 1])
    ax = axes[0]
    for scheme, shades in _DROP_SHADES.items():
        w = wide(m.res[at256[scheme]], "goodput_mbps", "connection", SESSIONS)
        plots.lines(
            ax,
            plots.cumulative_mean(w),
            colors=plots.palette(len(SESSIONS), shades),
            labels=f"{scheme} {{}}",
        )
    plots.reference(ax, P.DW_RATE.value, "paper: drop-whole mean 22.5 Mb/s")
    plots.reference(ax, P.DT_RATE.value, "paper: drop-tail mean 18.5 Mb/s")
    ax.set(
        xlabel="simulation time (s)",
        ylabel="TCP goodput, mean since t = 0 (Mb/s)",
        ylim=(0, 32),
        title="Fig. 9: the two selective cell-drop schemes, 256 cells per VC" + mode,
    )
    ax.legend(fontsize="x-small", ncol=6, loc="upper center", columnspacing=1.0)
    names = ["AN2", "cell drop", "drop-tail", "drop-whole"]
    ours = [m.over(lambda x: x.mean_goodput(AN2))]
    ours += [m.over(lambda x, s=s: x.mean_goodput(at256[s])) for s in DROP_SCHEMES]
    paper = [
        P.AN2_SESSION.value,
        P.AN2_SESSION.value * (1 - P.CD_REDUCTION.value / 100),
        P.DT_RATE.value,
        P.DW_RATE.value,
    ]
    plots.bars(
        axes[1],
        names,
        {"paper": paper, "atmsim": [e.mean for e in ours]},
        errors={"atmsim": [e.ci for e in ours]},
        colors=["0.6", DROP_COLORS["drop-whole"]],
        fmt="{:.1f}",
    )
    axes[1].set(ylabel="mean goodput per session (Mb/s)", ylim=(0, 30), title="Means")
    out.append(
        (
            plots.save(fig, fig_dir / "fig9.png"),
            "Fig. 9 - left: goodput of each of the six sessions (running mean since t = 0) "
            "under drop-tail (orange) and drop-whole (green), 256-cell per-VC queues; dotted: "
            "the paper's means. Right: mean goodput per session of the four schemes, the "
            "paper's (its cell-drop bar is 36% below its AN2 value, as Fig. 4's text says) "
            f"and ours, the mean over {n} seeds with its {ci}. Left: {seed1}.",
        )
    )

    # Figs. 10 and 11: cumulative cell loss and retransmission against time, as Fig. 5.
    cd_loss, cd_retx = _loss_and_retx(m.res[CELL_DROP])
    for fig_no, scheme, p_loss, p_retx in (
        (10, "drop-tail", P.DT_LOSS.value, P.DT_RETX.value),
        (11, "drop-whole", P.DW_LOSS.value, P.DW_RETX.value),
    ):
        loss, retx = _loss_and_retx(m.res[at256[scheme]])
        c = DROP_COLORS[scheme]
        fig, ax = plots.figure()
        plots.curve(ax, loss, label=f"{scheme}: cell loss", color=c, marker="o")
        plots.curve(ax, retx, label=f"{scheme}: TCP retransmission", color=c, style="--")
        plots.curve(ax, cd_loss, label="simple cell drop: cell loss (Fig. 5)", color="0.65",
                    marker="o", width=1)  # fmt: skip
        plots.curve(ax, cd_retx, label="simple cell drop: TCP retransmission (Fig. 5)",
                    color="0.65", style="--", width=1)  # fmt: skip
        plots.reference(ax, p_retx, f"paper: {scheme} {p_retx:g}% retransmission")
        plots.reference(ax, p_loss, f"paper: {scheme} {p_loss:g}% cell loss", below=True)
        ax.set(
            xlabel="simulation time (s)",
            ylabel="cumulative %",
            ylim=(-1, 50),
            title=f"Fig. {fig_no}: {scheme}, cell loss and TCP retransmission" + mode,
        )
        ax.legend(fontsize="small", loc="upper right")
        out.append(
            (
                plots.save(fig, fig_dir / f"fig{fig_no}.png"),
                f"Fig. {fig_no} - {scheme} at 256 cells per VC: cumulative cell loss (with "
                "symbols; cells dropped"
                + (", purged ones included," if scheme == "drop-whole" else "")
                + " / cells sent on the six VCs) and TCP retransmission (segments "
                "retransmitted / segments sent) since t = 0. Grey: simple cell drop (Fig. 5); "
                f"dotted: the paper's averages. {seed1[0].upper() + seed1[1:]}.",
            )
        )

    # Fig. 12: goodput, retransmission and cell loss against the per-VC buffer.
    bufs = buffers(quick)
    colors = [DROP_COLORS[s] for s in DROP_SCHEMES]

    def by_buffer(value: Any) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
        """The mean over seeds of ``value(measured, run name)`` per scheme and buffer, and
        the half-widths of their intervals."""
        est = {
            DROP_NAMES[s]: [
                m.over(lambda x, b=b, s=s: float(value(x, buffer_name(s, b)))) for b in bufs
            ]
            for s in DROP_SCHEMES
        }
        return (
            {k: [e.mean for e in v] for k, v in est.items()},
            {k: [e.ci for e in v] for k, v in est.items()},
        )

    fig, axes = plots.figure(1, 3, size=(16, 4.6))
    for ax, value in zip(
        axes,
        (
            lambda x, name: x.mean_goodput(name),
            lambda x, name: x.totals(name)["retransmission_pct"],
            lambda x, name: x.totals(name)["cell_loss_pct"],
        ),
        strict=True,
    ):
        ys, errs = by_buffer(value)
        plots.sweep(ax, bufs, ys, colors=colors, errors=errs)
    axes[0].axhline(m.over(lambda x: x.mean_goodput(AN2)).mean, color=plots.SCHEME_COLORS["an2"],
                    lw=1, label="AN2 credits (ours)")  # fmt: skip
    # The values the paper's text states for this figure (256 cells: Figs. 5 and 9-11).
    top = WINDOW_BUFFER
    plots.marks(axes[0], [top, PAPER_BUFFER, PAPER_BUFFER],
                [P.FLOW_RATE.value, P.DT_RATE.value, P.DW_RATE.value],
                label="paper (text): 23.2 at 1368; 18.5, 22.5 at 256")  # fmt: skip
    plots.marks(axes[1], [top, PAPER_BUFFER, PAPER_BUFFER, PAPER_BUFFER, 512],
                [0, P.CD_RETX.value, P.DT_RETX.value, P.DW_RETX.value,
                 P.DW_512_RETX.value],
                label="paper (text): 38, 25, 18 at 256; 7.5 at 512; 0 at 1368")  # fmt: skip
    plots.marks(axes[2], [top, PAPER_BUFFER, PAPER_BUFFER, PAPER_BUFFER],
                [0, P.CD_LOSS.value, P.DT_LOSS.value, P.DW_LOSS.value],
                label="paper (text): 6.5, 7.5, 17 at 256; 0 at 1368")  # fmt: skip
    axes[0].set(ylabel="mean TCP goodput per session (Mb/s)", title="(a) TCP throughput",
                ylim=(0, 27))  # fmt: skip
    axes[1].set(ylabel="retransmitted segments (%)", title="(b) TCP retransmission",
                ylim=(-1, 45))  # fmt: skip
    axes[2].set(ylabel="cells dropped (%)", title="(c) cell loss (not plotted in the paper)",
                ylim=(-0.5, 20))  # fmt: skip
    for ax in axes:
        ax.set(xlabel="per-VC buffer (cells)")
        ax.legend(fontsize="x-small")
    fig.suptitle("Fig. 12: effect of the per-VC queue size" + mode)
    out.append(
        (
            plots.save(fig, fig_dir / "fig12.png"),
            "Fig. 12 - (a) mean session goodput and (b) TCP retransmission rate against the "
            "per-VC buffer for simple cell drop, drop-tail and drop-whole, as in the paper; "
            "(c) their cell loss. Stars: the values the paper's text states (1368 cells "
            f"holds one 64 KB window); buffers {', '.join(map(str, bufs))} cells. Points: the "
            f"mean over {n} seeds; error bars: its {ci}.",
        )
    )
    return out
