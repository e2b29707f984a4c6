"""Measurements of the Kalyanaraman et al. 1996 runs, and the stated test for a divergent
queue."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from atmsim.reproduce.framework import Job
from atmsim.reproduce.kalyanaraman1996.runs import BOTTLENECK

__all__ = ["FLOOR_WINDOW_S", "Measured", "divergent", "measure", "queue_floor", "queue_swing"]


#: Window over which the queue's floor is taken [s].
FLOOR_WINDOW_S = 0.1


def queue_floor(q: pd.Series) -> pd.Series:
    """The queue's floor: its minimum in each ``FLOOR_WINDOW_S`` window from the first third
    of the run on (the start-up transient left out), indexed by the window's middle."""
    g, start = _windows(q)
    floor = g.min()
    floor.index = start + (floor.index.to_numpy(dtype=float) + 0.5) * FLOOR_WINDOW_S
    return floor


def _windows(q: pd.Series) -> Any:
    t = q.index.to_numpy(dtype=float)
    start = t[0] + (t[-1] - t[0]) / 3
    q = q[q.index >= start]
    bins = np.floor((q.index.to_numpy(dtype=float) - start) / FLOOR_WINDOW_S)
    return q.groupby(bins), start


def queue_swing(q: pd.Series) -> float:
    """The queue's typical swing within one window: the median of (max - min) per window."""
    g, _ = _windows(q)
    return float((g.max() - g.min()).median())


def divergent(q: pd.Series) -> tuple[bool, str]:
    """Whether the queue ``q`` (sampled against time) grows without bound, and why.

    The stated test (not a threshold on the queue's size): take the floor of the queue, its
    minimum over each 100 ms window after the first third of the run. A queue that only
    swings with its load comes back down to its floor again and again; one that diverges
    leaves a backlog that is never cleared, so its floor climbs. The queue is *divergent*
    when (1) a least-squares line through the floors rises, (2) the rise it implies over the
    windows is more than three times the floors' scatter about the line and more than the
    queue's typical swing within one window (the median of max - min per window: a bounded
    queue's floor may drift by less than it swings), and (3) the floor never returns to zero
    in the last half of those windows.
    """
    floor = queue_floor(q)
    if len(floor) < 3:
        return False, "too short a run to judge"
    swing = float(queue_swing(q))
    x, y = floor.index.to_numpy(dtype=float), floor.to_numpy(dtype=float)
    slope, intercept = np.polyfit(x, y, 1)
    resid = y - (slope * x + intercept)
    rise = slope * (x[-1] - x[0])
    scatter = float(resid.std(ddof=0))
    never_empty = bool((y[len(y) // 2 :] > 0).all())
    verdict = bool(slope > 0 and rise > 3 * scatter and rise > swing and never_empty)
    why = (
        f"floor {y[0]:,.0f} -> {y[-1]:,.0f} cells over {len(y)} windows, slope "
        f"{slope:,.0f} cells/s, rise {rise:,.0f} vs 3 x scatter {3 * scatter:,.0f} and "
        f"swing {swing:,.0f}, {'never' if never_empty else 'sometimes'} empty in the last half"
    )
    return verdict, why


@dataclass
class Measured:
    res: dict[str, Any]

    def queue(self, name: str) -> pd.Series:
        return self.res[name].wide("queue_cells", "port")[BOTTLENECK]

    def max_queue(self, name: str) -> int:
        return int(self.res[name].ports.loc[BOTTLENECK, "max_queue_cells"])

    def conns(self, name: str) -> pd.DataFrame:
        return self.res[name].connections

    def goodput(self, name: str) -> float:
        return float(self.res[name].totals["goodput_mbps"])

    def source_queue(self, name: str) -> int:
        return int(self.conns(name)["source_queue_max_cells"].astype(float).max())

    def lost_at_source(self, name: str) -> int:
        return int(self.conns(name)["cells_lost_at_source"].astype(float).sum())

    def divergent(self, name: str) -> tuple[bool, str]:
        return divergent(self.queue(name))

    def fairness(self, name: str) -> float:
        return float(self.res[name].totals["fairness_index"])

    def timeouts(self, name: str) -> float:
        """Retransmission timeouts after the warm-up, mean over the sources."""
        return float(self.conns(name)["timeouts"].astype(float).mean())

    def corrupted(self, name: str) -> int:
        """Frames that reached a receiver corrupted (cells missing, or merged with the next
        frame) after the warm-up, all connections."""
        return int(self.conns(name)["frames_corrupted"].astype(float).sum())

    def measured_s(self, name: str) -> float:
        """The span the run's statistics cover: from the warm-up to its end [s]."""
        summary = self.res[name].summary
        return float(summary["simulated_s"]) - float(summary["warmup_s"])

    def mean_load(self, name: str) -> float:
        """ERICA's load factor at the bottleneck, averaged over the samples after warm-up."""
        r = self.res[name]
        z = r.wide("load_factor", "rate_control")[BOTTLENECK]
        warm = float(r.summary["warmup_s"])
        return float(z[z.index > warm].mean())

    def utilization(self, name: str) -> float:
        """The bottleneck's utilisation after the warm-up."""
        return float(self.res[name].ports.loc[BOTTLENECK, "utilization"])

    def overflows(self, name: str) -> float:
        """Overflow episodes of the source queues over the whole run, mean over the sources
        (``source_overflows``: losses from a first lost cell until the queue has fallen to half
        its size)."""
        return float(self.conns(name)["source_overflows"].astype(float).mean())

    def account(self, name: str) -> dict[str, float]:
        """The overflow cycles of a long run, per source (means over the sources): overflow
        episodes and timeouts per second (episodes over the whole run, timeouts after the
        warm-up), and the share of the measured span without progress (10 ms samples after
        the warm-up in which the source's receiver got no new in-order data)."""
        r = self.res[name]
        warm = float(r.summary["warmup_s"])
        total = float(r.summary["simulated_s"])
        g = r.wide("goodput_mbps", "connection")
        g = g[g.index > warm]
        stalled = (g <= 0).mean()
        return {
            "mbps": self.goodput(name),
            "utilization": self.utilization(name),
            "overflows_per_s": self.overflows(name) / total,
            "timeouts_per_s": self.timeouts(name) / (total - warm),
            "stalled": float(stalled.mean()),
            "stalled_min": float(stalled.min()),
            "stalled_max": float(stalled.max()),
        }


def measure(js: list[Job], results: list[Any], quick: bool = False) -> Measured:
    return Measured({j.name: r for j, r in zip(js, results, strict=True)})
