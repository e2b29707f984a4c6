"""The figures of the An 1997 reproduction (Figs. 4.2-4.18 as atmsim draws them)."""

from __future__ import annotations

from pathlib import Path

from atmsim import plots
from atmsim.reproduce.an1997.measure import Measured
from atmsim.reproduce.an1997.schemes import COLORS, FAMILIES, NAMES, SCHEMES
from atmsim.reproduce.framework import Figure


def figures(m: Measured, out: Path, quick: bool = False) -> list[Figure]:
    figs = []
    fig, axes = plots.figure(2, 3, size=(14, 7), sharex=True)
    for row, fam in enumerate(("n2", "n5")):
        for col, s in enumerate(SCHEMES):
            ax = axes[row][col]
            q = m.queue(fam, s)
            ax.plot(q.index, q.to_numpy(), lw=0.8, color=COLORS[s])
            ax.set_title(f"{NAMES[s]}, N = {FAMILIES[fam][1]}", fontsize="small")
            if col == 0:
                ax.set_ylabel("ABR queue (cells)")
            if row == 1:
                ax.set_xlabel("time (s)")
    figs.append(
        Figure(
            plots.save(fig, out / "figs4.2-4.7-queues.png"),
            "Figs 4.2-4.7: the ABR queue at the backbone against time, VBR ON/OFF 10 ms.",
        )
    )
    fig, axes = plots.figure(1, 3, size=(14, 4), sharey=True)
    for ax, s in zip(axes, SCHEMES, strict=True):
        plots.lines(ax, plots.moving_average(m.goodput("n5", s), 0.05), width=0.8)
        ax.set_title(f"{NAMES[s]}, N = 5", fontsize="small")
        ax.set_xlabel("time (s)")
    axes[0].set_ylabel("goodput (Mb/s, 50 ms average)")
    figs.append(
        Figure(
            plots.save(fig, out / "figs4.8-4.10-goodput.png"),
            "Figs 4.8-4.10: each source's effective throughput against time, N = 5.",
        )
    )
    fig, axes = plots.figure(1, 3, size=(14, 4), sharey=True)
    for ax, s in zip(axes, SCHEMES, strict=True):
        plots.lines(ax, m.acr("acr", s), width=0.8)
        ax.set_title(f"{NAMES[s]}, N = 2, VBR 100 ms", fontsize="small")
        ax.set_xlabel("time (s)")
    axes[0].set_ylabel("ACR (Mb/s)")
    figs.append(
        Figure(
            plots.save(fig, out / "figs4.11-4.13-acr.png"),
            "Figs 4.11-4.13: the sources' ACR against time as the VBR source turns ON and OFF "
            "every 100 ms.",
        )
    )
    fig, axes = plots.figure(1, 3, size=(14, 4), sharey=True)
    for ax, s in zip(axes, SCHEMES, strict=True):
        plots.lines(ax, plots.moving_average(m.goodput("buffer", s), 0.05), width=0.8)
        ax.set_title(f"{NAMES[s]}, N = 2, 1,500-cell buffer", fontsize="small")
        ax.set_xlabel("time (s)")
    axes[0].set_ylabel("goodput (Mb/s, 50 ms average)")
    figs.append(
        Figure(
            plots.save(fig, out / "figs4.14-4.16-buffer.png"),
            "Figs 4.14-4.16: effective throughput per source with 1,500-cell switch buffers.",
        )
    )
    fig, ax = plots.figure()
    for s in ("erica", "fmmra"):
        q = m.queue("n10", s)
        ax.plot(q.index, q.to_numpy(), lw=0.8, color=COLORS[s], label=NAMES[s])
    ax.set_xlabel("time (s)")
    ax.set_ylabel("ABR queue (cells)")
    ax.legend()
    figs.append(
        Figure(
            plots.save(fig, out / "figs4.17-4.18-n10.png"),
            "Figs 4.17-4.18: the ABR queue with 10 TCPs and the 10 ms VBR source.",
        )
    )
    return figs
