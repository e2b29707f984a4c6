"""Figures of the Kalyanaraman et al. 1996 reproduction."""

from __future__ import annotations

from pathlib import Path

from atmsim import plots
from atmsim.reproduce.framework import Figure
from atmsim.reproduce.kalyanaraman1996.measure import Measured, queue_floor
from atmsim.reproduce.kalyanaraman1996.published import T2, T4, WINDOW
from atmsim.reproduce.kalyanaraman1996.runs import (
    T4_NAMES,
    T4_SENSITIVITY,
    t1_name,
    t2_name,
    t3_delays,
    t3_name,
    t4_name,
)

WINDOW_CELLS = WINDOW.value


def figures(m: Measured, out: Path, quick: bool) -> list[Figure]:
    figs: list[Figure] = []
    fig, axes = plots.figure(3, 3, size=(13, 9), sharex=True)
    for k, ((d, p), q) in enumerate(T2.items()):
        ax = axes[k // 3][k % 3]
        name = t2_name(d, p)
        ax.plot(m.queue(name).index, m.queue(name).to_numpy(), lw=0.8, color="#1f5fa8")
        fl = queue_floor(m.queue(name))
        ax.plot(fl.index, fl.to_numpy(), "o", ms=3, color="#c0392b")
        tag = "DIVERGENT" if q is None else f"{q:,}"
        ax.set_title(f"d {d}, p {p} ms (paper: {tag})", fontsize="small")
        if k % 3 == 0:
            ax.set_ylabel("A->B queue (cells)")
        if k >= 6:
            ax.set_xlabel("time (s)")
    figs.append(
        Figure(
            plots.save(fig, out / "table2-queues.png"),
            "Table 2: the bottleneck's queue under ERICA+ against time for each VBR pattern; "
            "red dots: the queue's floor (minimum per 100 ms) that the divergence test fits.",
        )
    )

    name = t1_name(100_000)
    res = m.res[name]
    fig, (ax1, ax2) = plots.figure(2, 1, size=(8, 7), sharex=True)
    plots.lines(ax1, res.wide("acr_mbps", "abr"), width=0.8)
    ax1.set_ylabel("ACR (Mb/s)")
    ax1.set_title("Table 1, source buffer 100,000 cells: ACR of the 15 sources")
    plots.lines(ax2, res.wide("source_queue_cells", "abr"), width=0.8)
    ax2.axhline(WINDOW_CELLS, color="k", ls="--", lw=0.8)
    ax2.text(0.01, WINDOW_CELLS, " one receiver window", va="bottom", fontsize="small")
    ax2.set_ylabel("source queue (cells)")
    ax2.set_xlabel("time (s)")
    figs.append(
        Figure(
            plots.save(fig, out / "table1-acr-source-queue.png"),
            "Table 1, row 4: ERICA brings every source to its share within a few round trips; "
            "the TCP windows then wait at the sources, each up to about one receiver window.",
        )
    )

    fig, axes = plots.figure(1, 2, size=(12, 4))
    for fb in t3_delays(quick):
        q = m.queue(t3_name(fb))
        axes[0].plot(q.index, q.to_numpy(), lw=0.8, label=f"feedback delay {fb} ms")
    axes[0].set_title("Table 3: d 0.8, p 10 ms")
    for s in (*T4, *T4_SENSITIVITY):
        q = m.queue(t4_name(s))
        axes[1].plot(q.index, q.to_numpy(), lw=0.8, label=T4_NAMES[s])
    axes[1].set_title("Table 4: d 0.7, p 20 ms")
    for ax in axes:
        ax.set_xlabel("time (s)")
        ax.set_ylabel("A->B queue (cells)")
        ax.legend(fontsize="small")
    figs.append(
        Figure(
            plots.save(fig, out / "tables3-4-queues.png"),
            "Tables 3 and 4: the bottleneck's queue with the feedback delay varied, and with "
            "the averaging options of ERICA+.",
        )
    )
    return figs
