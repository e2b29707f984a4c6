"""The figures of the Cheon & Panwar 1998 reproduction: the traced runs' windows (Figs. 2
and 3, again under the alternative reading), window synchronisation in every column, and the
sums per table against the paper's."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from atmsim import plots
from atmsim.reproduce.cheon1998.measure import Measured
from atmsim.reproduce.cheon1998.published import GROUP_NAMES, TABLES
from atmsim.reproduce.cheon1998.runs import ALTERNATIVE, GROUPS, columns
from atmsim.reproduce.framework import Figure


def figures(m: Measured, fig_dir: Path, quick: bool) -> list[Figure]:
    fig_dir.mkdir(parents=True, exist_ok=True)
    out: list[Figure] = []
    colors = {0: "#1f5fa8", 1: "#2e8b57", 2: "#c0392b"}
    figs = [
        (fig_no, what, m.traces[fig_no], "")
        for fig_no, what in ((2, "EPD, threshold 95%"), (3, "ESPD, high 95%, low 90%"))
    ]
    figs += [
        (fig_no, what, m.alt_traces[fig_no], ALTERNATIVE)
        for fig_no, what in ((2, "EPD, threshold 95%"), (3, "ESPD, high 95%, low 90%"))
        if fig_no in m.alt_traces
    ]
    for fig_no, what, res, reading in figs:
        w = res.wide("cwnd_bytes") / 1024
        fig, ax = plots.figure(size=(9, 4.5))
        for g, names in enumerate(GROUPS):
            cols = [n for n in names if n in w.columns]
            plots.lines(ax, w[cols], colors=colors[g], width=0.8, labels="_nolegend_")
            ax.plot([], [], color=colors[g], label=GROUP_NAMES[g])
        ax.set(
            xlabel="time [s]",
            ylabel="congestion window [KB]",
            title=f"Fig. {fig_no}: session windows, {what}, 500 B packets (seed 1)"
            + (f", {reading}" if reading else ""),
        )
        ax.legend(fontsize="small", loc="upper right")
        name = f"fig{fig_no}" + (f"_{reading}" if reading else "")
        path = plots.save(fig, fig_dir / f"{name}.png")
        tot = res.totals
        out.append(
            Figure(
                path,
                f"Fig. {fig_no}: congestion windows of the 15 sessions, {what}, 500 B, seed 1"
                + (f", under the alternative reading {reading}" if reading else "")
                + ". "
                f"Decreases within one RTT of another session's: "
                f"{tot['window_sync_pct']:.0f}% (independence baseline "
                f"{tot['window_sync_expected_pct']:.0f}%); other sessions cutting within one "
                f"RTT of a cut: {tot['window_sync_sessions_pct']:.0f}% (baseline "
                f"{tot['window_sync_sessions_expected_pct']:.0f}%).",
            )
        )
    # Synchronisation across every column.
    fig, axes = plots.figure(2, 1, size=(10, 7))
    labels = [f"T{t.number}\n{t.columns[c] * 100:g}" for t in TABLES for c in columns(t, quick)]
    pts = [m.points[(t.number, c)] for t in TABLES for c in columns(t, quick)]
    x = np.arange(len(labels))
    bar_colors = ["#c0392b" if lb.startswith(("T1\n", "T2\n")) else "#1f5fa8" for lb in labels]
    panels = (
        ("sync", "sync_expected", "cuts within one RTT\nof another's [%]"),
        ("together", "together_expected", "other sessions cutting\nwithin one RTT [%]"),
    )
    for ax, (key, base_key, ylabel) in zip(np.ravel(axes), panels, strict=True):
        vals = [p.mean(getattr(p, key)) for p in pts]
        err = [0 if len(getattr(p, key)) < 2 else p.sd(getattr(p, key)) for p in pts]
        base = [p.mean(getattr(p, base_key)) for p in pts]
        ax.bar(x, vals, 0.7, yerr=err, color=bar_colors, label="measured")
        ax.plot(x, base, "k_", markersize=12, label="independence baseline")
        ax.set_xticks(x, labels, fontsize="x-small")
        ax.set(ylabel=ylabel, ylim=(0, 100))
    axes[1].axhline(50, color="grey", lw=0.8, ls="--", label="half the sessions")
    axes[0].set_title("Window synchronisation: EPD (red, Tables 1-2) and ESPD (blue, Tables 3-8)")
    axes[1].legend(fontsize="small")
    out.append(
        Figure(
            plots.save(fig, fig_dir / "sync.png"),
            "Window synchronisation for every column of Tables 1-8 (mean ± sd over seeds), "
            "each against what independent decreases would give. Top: the share of window "
            "decreases with another session's decrease within one RTT (do cuts cluster in "
            "time?). Bottom: the other sessions that cut within one RTT of a cut, as a share "
            "of all of them (do many sessions cut together, as the paper's Fig. 2 shows?).",
        )
    )
    # Sums per table, paper against ours.
    fig, axes = plots.figure(2, 4, size=(12, 6))
    for ax, t in zip(np.ravel(axes), TABLES, strict=True):
        cols = columns(t, quick)
        xs = [t.columns[c] * 100 for c in cols]
        ours = [float(m.pct(t, c).mean()) for c in cols]
        sds = [m.points[(t.number, c)].sd(m.pct(t, c)) for c in cols]
        ax.plot(xs, [t.sum_pct[c] for c in cols], "o--", color="0.4", label="paper")
        ax.errorbar(xs, ours, yerr=np.nan_to_num(sds), fmt="s-", color="#1f5fa8", label="atmsim")
        ax.set(title=f"Table {t.number} ({t.scheme.upper()}, {t.packet} B)",
               xlabel=f"{t.varied} [% of buffer]", ylim=(60, 102))  # fmt: skip
        ax.tick_params(labelsize="x-small")
    np.ravel(axes)[0].set_ylabel("% of maximum")
    np.ravel(axes)[0].legend(fontsize="x-small")
    out.append(
        Figure(
            plots.save(fig, fig_dir / "tables.png"),
            "Sum of effective throughput (% of the maximum) per table column: the paper's "
            "numbers and ours (mean ± sd over seeds).",
        )
    )
    return out
