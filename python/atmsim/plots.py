"""Small matplotlib helpers for results and reproductions.

The figures are built with the object API (``matplotlib.figure.Figure``), never pyplot, so
they need no display, share no global state and work the same in worker processes and
tests (the Agg renderer draws the PNGs).

>>> from atmsim import plots
>>> fig, ax = plots.figure()                                           # doctest: +SKIP
>>> plots.lines(ax, res.wide("goodput_mbps", kind="connection"))       # doctest: +SKIP
>>> plots.save(fig, "goodput.png")                                     # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from atmsim.storage import atomic_path

__all__ = [
    "bars",
    "cumulative_mean",
    "cumulative_percent",
    "curve",
    "figure",
    "lines",
    "marks",
    "moving_average",
    "palette",
    "reference",
    "save",
    "sweep",
]

#: Colours for two compared schemes and their per-entity shades.
SCHEME_COLORS = {"an2": "#1f5fa8", "cell-drop": "#c0392b"}


def figure(
    nrows: int = 1, ncols: int = 1, *, size: tuple[float, float] | None = None, **kw: Any
) -> tuple[Figure, Any]:
    """A figure with an Agg canvas and its axes (an ``Axes`` when 1x1, else an array)."""
    if size is None:
        size = (7.0 * ncols if ncols > 1 else 7.5, 4.2 * nrows)
    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=True, **kw)
    return fig, axes


def save(fig: Figure, path: str | os.PathLike[str], dpi: int = 110) -> Path:
    """Write ``fig`` as PNG (folders created as needed); returns the path."""
    out = Path(path)
    with atomic_path(out) as tmp:  # written whole, then renamed into place
        fig.savefig(tmp, dpi=dpi, format="png")
    return out


def palette(n: int, base: str = "tab10") -> list[Any]:
    """``n`` distinct colours from a matplotlib colormap name."""
    from matplotlib import colormaps

    cmap = colormaps[base]
    if getattr(cmap, "N", 256) < 32:  # a qualitative map: take its colours in order
        return [cmap(i % cmap.N) for i in range(n)]
    return [cmap(x) for x in np.linspace(0.35, 0.95, max(n, 1))][:n]


def cumulative_mean(wide: pd.DataFrame) -> pd.DataFrame:
    """The running mean since the first sample of interval-rate series (``wide``: indexed by
    time, one column per entity, each value the rate over the interval ending there):
    ``sum(rate_i * dt_i) / (t - t0)``. The first sample (an empty interval) is dropped."""
    if wide.empty:
        return wide
    t = wide.index.to_numpy(dtype=float)
    dt = np.diff(t, prepend=t[0])
    span = t - t[0]
    weighted = wide.mul(dt, axis=0).cumsum()
    out = weighted.div(np.where(span > 0, span, np.nan), axis=0)
    return out.iloc[1:]


def moving_average(wide: pd.DataFrame, window_s: float) -> pd.DataFrame:
    """A trailing moving average over ``window_s`` seconds (by sample count, assuming
    the regular sampling of ``run.sample_every``)."""
    if len(wide) < 2:
        return wide
    step = float(np.median(np.diff(wide.index.to_numpy(dtype=float))))
    n = max(1, int(round(window_s / step)))
    return wide.rolling(n, min_periods=1).mean()


def lines(
    ax: Axes,
    wide: pd.DataFrame,
    *,
    labels: Mapping[str, str] | str | None = None,
    colors: Sequence[Any] | Any | None = None,
    style: str = "-",
    width: float = 1.4,
    alpha: float = 1.0,
    legend: bool = False,
) -> None:
    """One line per column of ``wide`` (indexed by time). ``labels``: a mapping column ->
    label, a format string with ``{}`` for the column name, or None for the names.
    ``colors``: one colour for all, or one per column."""
    cols = list(wide.columns)
    if colors is None:
        cs: list[Any] = palette(len(cols))
    elif isinstance(colors, (list, tuple)) and len(colors) == len(cols) and len(cols) > 0:
        cs = list(colors)
    else:
        cs = [colors] * len(cols)
    for col, color in zip(cols, cs, strict=True):
        if isinstance(labels, Mapping):
            label = labels.get(col, str(col))
        elif isinstance(labels, str):
            label = labels.format(col)
        else:
            label = str(col)
        ax.plot(wide.index, wide[col], style, color=color, lw=width, alpha=alpha, label=label)
    if legend:
        ax.legend(fontsize="small")


def bars(
    ax: Axes,
    categories: Sequence[str],
    groups: Mapping[str, Sequence[float]],
    *,
    colors: Sequence[Any] | None = None,
    annotate: bool = True,
    fmt: str = "{:.3g}",
    errors: Mapping[str, Sequence[float]] | None = None,
    targets: Mapping[str, Sequence[float]] | None = None,
    target_label: str = "paper",
) -> None:
    """Grouped bars: one group per category, one bar per entry of ``groups`` (label ->
    values, one per category). NaN values leave a gap. ``errors`` (label -> one half-width
    per category, e.g. a confidence interval over seeds) draws error bars on those bars (NaN:
    none); ``targets`` (label -> one value per category) marks a reference value on each of
    those bars (a black bar across it, in the legend as ``target_label``), e.g. the paper's
    number for the measured bar."""
    n = len(groups)
    x = np.arange(len(categories), dtype=float)
    width = 0.8 / max(n, 1)
    cs = list(colors) if colors is not None else palette(n)
    marked = False
    for i, (label, values) in enumerate(groups.items()):
        pos = x - 0.4 + width * (i + 0.5)
        vals = np.asarray(values, dtype=float)
        err = None
        if errors is not None and label in errors:
            err = np.asarray(errors[label], dtype=float)
        rects = ax.bar(
            pos,
            vals,
            width * 0.95,
            label=label,
            color=cs[i % len(cs)],
            yerr=None if err is None else np.nan_to_num(err, nan=0.0),
            capsize=3 if err is not None else 0,
            error_kw={"elinewidth": 1, "ecolor": "black"},
        )
        if targets is not None and label in targets:
            ax.hlines(
                np.asarray(targets[label], dtype=float),
                pos - width * 0.475,
                pos + width * 0.475,
                colors="black",
                linewidth=2.2,
                label="_nolegend_" if marked else target_label,
                zorder=4,
            )
            marked = True
        if annotate:
            tops = vals if err is None else vals + np.nan_to_num(err, nan=0.0)
            for rect, v, top in zip(rects, vals, tops, strict=True):
                if np.isfinite(v):
                    ax.annotate(
                        fmt.format(v),
                        (rect.get_x() + rect.get_width() / 2, top),
                        ha="center",
                        va="bottom",
                        fontsize="x-small",
                        xytext=(0, 1),
                        textcoords="offset points",
                    )
    ax.set_xticks(x, list(categories))
    ax.legend(fontsize="small")


# --------------------------------------------------------------------------------------------
# Reference lines, cumulative percentages, single curves with symbols and parameter sweeps
# (first used by the packet-discard figures of the Fang 1994 reproduction, Figs. 9-12).


def reference(
    ax: Axes,
    y: float,
    text: str,
    *,
    color: Any = "0.35",
    style: str = ":",
    width: float = 1.1,
    at: str = "right",
    below: bool = False,
) -> None:
    """A horizontal reference line at ``y`` (e.g. a value a paper states), labelled with
    ``text`` at the ``"right"`` or ``"left"`` end of the axes, above the line (or
    ``below`` it, to keep two close lines' labels apart)."""
    ax.axhline(y, color=color, ls=style, lw=width)
    ax.annotate(
        text,
        (1.0 if at == "right" else 0.0, y),
        xycoords=("axes fraction", "data"),
        ha=at,
        va="top" if below else "bottom",
        fontsize="x-small",
        color=color,
        bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.7},
    )


def cumulative_percent(numerator: pd.DataFrame, denominator: pd.DataFrame) -> pd.Series:
    """``100 * sum(numerator) / sum(denominator)`` at each time, the sums over the columns
    of two wide frames of cumulative counters (e.g. cells dropped and cells sent of every
    session). Times where the denominator is still 0 are left out."""
    num = numerator.sum(axis=1)
    den = denominator.sum(axis=1)
    return (100 * num / den.where(den > 0)).dropna()


def curve(
    ax: Axes,
    series: pd.Series,
    *,
    label: str,
    color: Any,
    style: str = "-",
    marker: str | None = None,
    symbols: int = 12,
    width: float = 1.8,
) -> None:
    """One time series as a line; with ``marker``, about ``symbols`` evenly spaced symbols
    on it (to tell curves apart in print, as the papers do)."""
    every = max(1, len(series) // max(symbols, 1)) if marker else None
    ax.plot(
        series.index,
        series.to_numpy(),
        style,
        color=color,
        lw=width,
        marker=marker,
        markevery=every,
        markersize=5,
        label=label,
    )


def sweep(
    ax: Axes,
    x: Sequence[float],
    ys: Mapping[str, Sequence[float]],
    *,
    colors: Sequence[Any] | None = None,
    marker: str = "o",
    style: str = "-",
    ticks: bool = True,
    errors: Mapping[str, Sequence[float]] | None = None,
) -> None:
    """One line with symbols per entry of ``ys`` (label -> one value per ``x``) against a
    swept parameter ``x``; x ticks at the swept values when ``ticks``. NaN leaves a gap.
    ``errors`` (label -> one half-width per ``x``, e.g. a confidence interval over seeds)
    draws error bars on those lines (NaN: none)."""
    cs = list(colors) if colors is not None else palette(len(ys))
    for i, (label, values) in enumerate(ys.items()):
        err = None
        if errors is not None and label in errors:
            err = np.nan_to_num(np.asarray(errors[label], dtype=float), nan=0.0)
        ax.errorbar(
            list(x),
            np.asarray(values, dtype=float),
            yerr=err,
            fmt=style,
            marker=marker,
            color=cs[i % len(cs)],
            capsize=3 if err is not None else 0,
            label=label,
        )
    if ticks:
        ax.set_xticks(list(x))


def marks(
    ax: Axes,
    x: Sequence[float],
    y: Sequence[float],
    *,
    label: str,
    color: Any = "black",
    marker: str = "*",
    size: float = 11,
) -> None:
    """Isolated points, e.g. the values a paper states in its text, drawn as large symbols
    with a dark edge over the measured curves."""
    ax.plot(
        list(x),
        list(y),
        ls="none",
        marker=marker,
        markersize=size,
        markerfacecolor=color,
        markeredgecolor="black",
        markeredgewidth=0.7,
        label=label,
        zorder=5,
    )
