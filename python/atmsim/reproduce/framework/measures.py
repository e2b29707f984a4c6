"""Measures every reproduction shares, written once: Jain's fairness index, a series cut
into windows, goodput by connection label, and the mean and spread of a value over seeds
(:func:`mean_sd`, and :func:`over_seeds` for the mean with its confidence interval: the
Student-t interval of :func:`atmsim.sweep.stats.half_width`, the one the sweeps use)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "CONFIDENCE",
    "Estimate",
    "MeanSd",
    "by_label",
    "jain",
    "mean_sd",
    "over_seeds",
    "window_means",
]

#: The confidence level of the intervals a reproduction reports (comparison.csv's
#: ``measured_ci``, the figures' error bars).
CONFIDENCE = 0.95


def jain(values: Any, *, empty: float = 0.0) -> float:
    """Jain's fairness index ``(sum x)^2 / (n sum x^2)`` of ``values``; ``empty`` when every
    value is zero (some studies report 0 there, others NaN: a caller says which)."""
    x = np.asarray(values, dtype=float)
    sq = float((x**2).sum())
    return float(x.sum() ** 2 / (len(x) * sq)) if sq > 0 else float(empty)


@dataclass(frozen=True)
class MeanSd:
    """A value's mean over seeds, its sample standard deviation (ddof 1; NaN for one seed)
    and the standard error of the mean."""

    mean: float
    sd: float
    n: int

    @property
    def se(self) -> float:
        return self.sd / math.sqrt(self.n) if self.n > 1 else math.nan

    def as_dict(self) -> dict[str, float]:
        return {"mean": self.mean, "sd": self.sd, "se": self.se, "n": self.n}


def mean_sd(values: Iterable[float]) -> MeanSd:
    """The mean and spread of ``values`` (one per seed)."""
    x = np.asarray(list(values), dtype=float)
    sd = float(x.std(ddof=1)) if len(x) > 1 else math.nan
    return MeanSd(float(x.mean()) if len(x) else math.nan, sd, len(x))


@dataclass(frozen=True)
class Estimate:
    """A value measured over seeds: the mean of the seeds' values, the half-width of its
    ``level`` confidence interval (NaN with fewer than two values) and the number of values
    (NaNs left out of all three)."""

    mean: float
    ci: float
    n: int
    level: float = CONFIDENCE

    @property
    def low(self) -> float:
        return self.mean - self.ci

    @property
    def high(self) -> float:
        return self.mean + self.ci


def over_seeds(values: Iterable[float], level: float = CONFIDENCE) -> Estimate:
    """The mean of ``values`` (one per seed) with the half-width of its Student-t interval at
    ``level`` (:func:`atmsim.sweep.stats.half_width`); NaNs are left out."""
    from atmsim.sweep.stats import half_width

    x = np.asarray(list(values), dtype=float)
    x = x[~np.isnan(x)]
    mean = float(x.mean()) if len(x) else math.nan
    return Estimate(mean, half_width(x, level), len(x), level)


def window_means(series: Any, start: float, width: float) -> Any:
    """A time-indexed pandas Series (or DataFrame) averaged over consecutive windows of
    ``width`` seconds from ``start``, indexed by each window's start; samples before
    ``start`` are left out."""
    kept = series[series.index >= start]
    bins = np.floor((kept.index.to_numpy(dtype=float) - start) / width)
    out = kept.groupby(bins).mean()
    out.index = start + out.index.to_numpy(dtype=float) * width
    return out


def by_label(results: Any, labels: Sequence[str], column: str = "goodput_mbps") -> dict[str, float]:
    """``column`` of each connection in ``labels`` from a run's per-connection table."""
    conns = results.connections
    return {label: float(conns.loc[label, column]) for label in labels}
