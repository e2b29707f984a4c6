"""Figures of the scheme atlas."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from atmsim import plots
from atmsim.reproduce.atlas.config import SPREAD_SHORT_RTT_MS
from atmsim.reproduce.atlas.measure import BEST_SHARE, SPREAD_NET, Atlas
from atmsim.reproduce.atlas.networks import NETWORKS
from atmsim.reproduce.atlas.schemes import SCHEMES
from atmsim.reproduce.framework import Figure

MARKERS = "os^vD<>pPX*hd"


def _colors() -> dict[str, Any]:
    return dict(zip(SCHEMES, plots.palette(len(SCHEMES), "tab20"), strict=True))


def figures(a: Atlas, out: Path, quick: bool) -> list[Figure]:
    figs: list[Figure] = []
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
        Figure(
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
            Figure(
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
        Figure(
            plots.save(fig, out / "frontier.png"),
            "Efficiency against buffering, per network: every (scheme, buffer size) point "
            "(mean over seeds) at the cells it buffered, in the bottleneck switch and at the "
            "sources (an ABR source queue or a host adapter's queue, where credits hold "
            "data back); the black step is the frontier (the most goodput for at most that "
            "much buffering).",
        )
    )
    return figs
