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

__all__ = [
    "bars",
    "cumulative_mean",
    "figure",
    "lines",
    "moving_average",
    "palette",
    "save",
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
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=dpi, format="png")
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
) -> None:
    """Grouped bars: one group per category, one bar per entry of ``groups`` (label ->
    values, one per category). NaN values leave a gap."""
    n = len(groups)
    x = np.arange(len(categories), dtype=float)
    width = 0.8 / max(n, 1)
    cs = list(colors) if colors is not None else palette(n)
    for i, (label, values) in enumerate(groups.items()):
        pos = x - 0.4 + width * (i + 0.5)
        vals = np.asarray(values, dtype=float)
        rects = ax.bar(pos, vals, width * 0.95, label=label, color=cs[i % len(cs)])
        if annotate:
            for rect, v in zip(rects, vals, strict=True):
                if np.isfinite(v):
                    ax.annotate(
                        fmt.format(v),
                        (rect.get_x() + rect.get_width() / 2, rect.get_height()),
                        ha="center",
                        va="bottom",
                        fontsize="x-small",
                        xytext=(0, 1),
                        textcoords="offset points",
                    )
    ax.set_xticks(x, list(categories))
    ax.legend(fontsize="small")
