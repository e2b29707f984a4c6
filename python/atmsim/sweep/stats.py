"""Replication statistics of a sweep: the confidence interval of a mean over seeds, and the
rule that runs seeds until that interval is narrow enough.

The interval is Student's t: ``mean ± t(1 - (1 - level) / 2, n - 1) · s / sqrt(n)``, with
``s`` the sample standard deviation of the ``n`` runs; it needs two runs or more (NaN
otherwise). It assumes the runs' values are independent draws: each seed is its own
replication, as the sweep runs them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["Until", "half_width", "seeds_wanted"]


def half_width(values: Sequence[float] | np.ndarray, level: float) -> float:
    """The half-width of the ``level`` confidence interval of the mean of ``values`` (NaNs
    left out); NaN with fewer than two values."""
    # Student's t quantile from scipy.special: the function scipy.stats.t.ppf evaluates,
    # without importing scipy.stats (about a second a process).
    from scipy.special import stdtrit

    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    n = len(x)
    if n < 2:
        return math.nan
    return float(stdtrit(n - 1, 1 - (1 - level) / 2) * x.std(ddof=1) / math.sqrt(n))


@dataclass(frozen=True)
class Until:
    """``seeds = { until = "5%", of = COLUMN, first = 3, max = 30 }``: run seeds 1, 2, 3, ...
    at every grid point until the confidence interval of the mean of ``of`` (a column of
    results.parquet) has a half-width of at most ``relative`` times the mean's magnitude, or
    ``max`` seeds have run."""

    relative: float
    of: str = "totals.goodput_mbps"
    first: int = 3
    max: int = 30


def seeds_wanted(values: Sequence[float], until: Until, level: float) -> int:
    """How many seeds a grid point whose ``of`` values so far are ``values`` should have:
    its current count when the interval is narrow enough (or ``max`` is reached), else the
    count the current spread predicts, at least one more and at most ``max``. A mean of zero
    with no spread is precise; a run that gave no value (NaN) counts as a seed run."""
    n = len(values)
    if n >= until.max:
        return n
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if len(x) < 2:
        return min(until.max, max(n + 1, until.first))
    hw = half_width(x, level)
    mean = abs(float(x.mean()))
    if hw <= until.relative * mean or (hw == 0 and mean == 0):
        return n
    sd = float(x.std(ddof=1))
    # With the normal quantile as a first guess (t's is larger for few seeds, so the count is
    # checked again after they run).
    z = _normal_quantile(1 - (1 - level) / 2)
    need = math.ceil((z * sd / (until.relative * mean)) ** 2) if mean > 0 else until.max
    return int(min(until.max, max(n + 1, need)))


def _normal_quantile(p: float) -> float:
    from scipy.special import ndtri  # scipy.stats.norm.ppf's function

    return float(ndtri(p))
