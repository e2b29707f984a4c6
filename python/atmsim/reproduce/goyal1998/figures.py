"""Figures of the Goyal et al. 1998 reproduction."""

from __future__ import annotations

from pathlib import Path

from atmsim import plots
from atmsim.reproduce.framework import CONFIDENCE, Figure, over_seeds
from atmsim.reproduce.goyal1998.measure import Measured, fifo_ratios, merge_ratios
from atmsim.reproduce.goyal1998.published import TABLE3, TABLE5
from atmsim.reproduce.goyal1998.runs import FIG3_CASES, seeds


def figures(m: Measured, out: Path, quick: bool) -> list[Figure]:
    figs: list[Figure] = []
    fig, axes = plots.figure(2, 2, size=(12, 7))
    for k, (ax, at) in enumerate(zip(axes.flat, FIG3_CASES, strict=True)):
        w = m.cwnd_trace(f"fig3-{k}", "s1")
        ax.plot(w.index, w.to_numpy() / 1e3, lw=0.8, color="#1f5fa8")
        ax.set_title(f"loss at {at}" if at != "off" else "no loss", fontsize="small")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cwnd (kB)")
    figs.append(
        Figure(
            plots.save(fig, out / "fig3-cwnd.png"),
            "Fig. 3: the congestion window of one SACK TCP losing a segment each time cwnd "
            "reaches the value above.",
        )
    )
    fig, axes = plots.figure(2, 2, size=(12, 7), sharex=True)
    for exp, ax in enumerate(axes.flat):
        label = f"fifo{exp}-s1"
        for grp in range(5):
            w = m.cwnd_trace(label, f"s{3 * grp + 1}")
            ax.plot(w.index, w.to_numpy() / 1e3, lw=0.8, label=f"TCP {3 * grp + 1}")
        ax.set_title(f"experiment {exp + 1}", fontsize="small")
        ax.set_ylabel("cwnd (kB)")
        ax.set_xlabel("time (s)")
    axes.flat[0].legend(fontsize="x-small")
    figs.append(
        Figure(
            plots.save(fig, out / "fig5-cwnd.png"),
            "Fig. 5: the congestion window of one TCP of each group in the four experiments "
            "(seed 1).",
        )
    )
    fig, axes = plots.figure(1, 2, size=(13, 4.4))
    n_seeds = len(seeds(quick))
    fifo = {e: [over_seeds(col) for col in fifo_ratios(m, e).T] for e in range(4)}
    merge = {s: [over_seeds(col) for col in merge_ratios(m, s).T] for s in range(3)}
    plots.bars(
        axes[0],
        [f"TCPs {3 * g + 1}-{3 * g + 3}" for g in range(5)],
        {f"exp. {e + 1}": [x.mean for x in fifo[e]] for e in range(4)},
        errors={f"exp. {e + 1}": [x.ci for x in fifo[e]] for e in range(4)},
        targets={f"exp. {e + 1}": list(TABLE3[e]) for e in range(4)},
        target_label="paper (Table 3)",
        annotate=False,
    )
    axes[0].axhline(1.0, color="grey", lw=0.8)
    axes[0].set_ylabel("throughput share / threshold share")
    axes[0].set_title("Table 3 (per-VC thresholds, one TCP per VC)", fontsize="small")
    plots.bars(
        axes[1],
        [f"VC {v + 1}" for v in range(5)],
        {f"set {s + 1}": [x.mean for x in merge[s]] for s in range(3)},
        errors={f"set {s + 1}": [x.ci for x in merge[s]] for s in range(3)},
        targets={f"set {s + 1}": list(TABLE5[s]) for s in range(3)},
        target_label="paper (Table 5)",
        fmt="{:.2f}",
    )
    axes[1].axhline(1.0, color="grey", lw=0.8)
    axes[1].set_ylabel("throughput share / threshold share")
    axes[1].set_title("Table 5 (VC merging, GFR policy)", fontsize="small")
    spread = (
        f"mean over {n_seeds} seeds, error bars its {CONFIDENCE:.0%} confidence interval"
        if n_seeds > 1
        else "one seed (quick mode), no interval"
    )
    figs.append(
        Figure(
            plots.save(fig, out / "tables3-5-ratios.png"),
            "Tables 3 and 5: each group's or VC's share of the throughput over its share of "
            f"the thresholds (1 = in proportion); bars: atmsim, {spread}; black marks: the "
            "paper's values.",
        )
    )
    return figs
