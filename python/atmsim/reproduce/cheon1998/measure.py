"""Measurements of the Cheon & Panwar 1998 runs: per table column, every seed's packets by
round-trip group, fairness, window synchronisation and timeouts; the traced runs of Figs. 2-3
and their congestion episodes; the sensitivity study's scores."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from atmsim.reproduce.cheon1998.published import TABLES, Table
from atmsim.reproduce.cheon1998.runs import (
    FIG2,
    FIG3,
    GROUPS,
    TRACE_SEED,
    columns,
    label,
    seeds,
    sensitivity_points,
)
from atmsim.reproduce.framework import Job, jain

__all__ = [
    "EPISODE_GAP_S",
    "Measured",
    "Point",
    "episodes",
    "max_packets",
    "measure",
    "model_facts",
    "point",
]


def model_facts(payload: int) -> dict[str, float]:
    """The model's facts the reproduction needs for ``payload``-byte packets, from
    ``atmsim.describe`` of the ``cheon1998-epd-<payload>`` scenario: ``cells_per_packet`` (a
    full segment's AAL5 cells: 12 for 500 B, 33 for 1,500 B, as the paper counts) and
    ``cells_per_s``, the bottleneck sw3->sw4's cell rate (its 155.52 Mb/s line carries cells
    without SONET framing, as the paper's maxima count them)."""
    net = _described(f"cheon1998-epd-{payload}")
    conn = net["connections"][0]
    port = next(p for p in net["ports"] if p["name"] == conn["bottleneck"])
    return {"cells_per_packet": conn["segment_cells"], "cells_per_s": port["cells_per_s"]}


@functools.cache
def _described(scenario: str) -> dict[str, Any]:
    import atmsim

    return atmsim.describe(scenario)["network"]


def max_packets(payload: int, measured_s: float) -> int:
    """Packets the link can carry in ``measured_s`` (the paper's "maximum value")."""
    f = model_facts(payload)
    return int(f["cells_per_s"] * measured_s / f["cells_per_packet"])


@dataclass
class Point:
    """One column of one table: every seed's run summarised."""

    groups: np.ndarray  # seeds x 3, distinct packets per RTT group
    fairness: np.ndarray  # per seed
    sync: np.ndarray  # per seed, window_sync_pct
    sync_expected: np.ndarray
    together: np.ndarray  # per seed, window_sync_sessions_pct
    together_expected: np.ndarray
    timeouts: np.ndarray
    measured_s: float
    fast_retransmits: np.ndarray = field(default_factory=lambda: np.zeros(0))  # all sessions

    @property
    def sums(self) -> np.ndarray:
        return self.groups.sum(axis=1)

    def mean(self, x: np.ndarray) -> float:
        return float(np.mean(x))

    def sd(self, x: np.ndarray) -> float:
        return float(np.std(x, ddof=1)) if len(x) > 1 else math.nan


def point(results: list[Any]) -> Point:
    """The :class:`Point` of one column's runs (one per seed)."""
    groups, fair, sync, expd, tos, tog, toge, frs = [], [], [], [], [], [], [], []
    for r in results:
        c = r.connections
        pk = c["packets_distinct"].astype(float)
        groups.append([float(pk.loc[list(g)].sum()) for g in GROUPS])
        fair.append(jain(pk.to_numpy(), empty=math.nan))
        tot = r.totals
        sync.append(float(tot.get("window_sync_pct", math.nan)))
        expd.append(float(tot.get("window_sync_expected_pct", math.nan)))
        tog.append(float(tot.get("window_sync_sessions_pct", math.nan)))
        toge.append(float(tot.get("window_sync_sessions_expected_pct", math.nan)))
        tos.append(float(c["timeouts"].sum()))
        frs.append(float(c["fast_retransmits"].sum()))
    s = results[0].summary
    return Point(
        np.array(groups),
        np.array(fair),
        np.array(sync),
        np.array(expd),
        np.array(tog),
        np.array(toge),
        np.array(tos),
        float(s["simulated_s"]) - float(s["warmup_s"]),
        np.array(frs),
    )


def pct_of(table: Table, p: Point) -> np.ndarray:
    """Each seed's sum as a share of the maximum [%]."""
    return p.sums / max_packets(table.packet, p.measured_s) * 100


#: Window decreases more than this far apart belong to different congestion episodes (above
#: the longest round trip, 10 ms plus the 2,000-cell buffer's 5.8 ms).
EPISODE_GAP_S = 0.015


def episodes(res: Any, warmup_s: float = 0.5) -> list[int]:
    """The sessions whose window falls in each congestion episode of a traced run: window
    decreases (cwnd below the sample before) after the warm-up, grouped into episodes split
    by gaps longer than EPISODE_GAP_S; one count of distinct sessions per episode."""
    w = res.wide("cwnd_bytes", "connection")
    w = w[[c for c in sum(GROUPS, ()) if c in w.columns]]
    w = w[w.index >= warmup_s]
    fell = (w.diff() < 0).to_numpy()
    t = w.index.to_numpy(dtype=float)
    out: list[set[int]] = []
    last = -math.inf
    for i in np.flatnonzero(fell.any(axis=1)):
        if t[i] - last > EPISODE_GAP_S:
            out.append(set())
        out[-1].update(np.flatnonzero(fell[i]).tolist())
        last = t[i]
    return [len(s) for s in out]


@dataclass
class Measured:
    points: dict[tuple[int, int], Point]  # (table, column) -> point
    sensitivity: dict[tuple[int, int], Point]
    traces: dict[int, Any]  # 2, 3 -> Results with cwnd series
    #: The same runs under ALTERNATIVE (when its sensitivity set holds them).
    alt_traces: dict[int, Any] = field(default_factory=dict)
    #: The sensitivity study's scores (a scoring.Scored), when measured.
    scored: Any = None

    def pct(self, table: Table, col: int) -> np.ndarray:
        return pct_of(table, self.points[(table.number, col)])


def measure(js: list[Job], results: list[Any], quick: bool) -> Measured:
    from atmsim.reproduce.cheon1998 import scoring

    by = {j.name: r for j, r in zip(js, results, strict=True)}
    pts: dict[tuple[int, int], Point] = {}
    sens: dict[tuple[int, int], Point] = {}
    traces: dict[int, Any] = {}
    for t in TABLES:
        for col in columns(t, quick):
            pts[(t.number, col)] = point([by[label(t, col, s)] for s in seeds(quick)])
    for number, col in sensitivity_points(quick):
        t = TABLES[number - 1]
        sens[(number, col)] = point([by["alt-" + label(t, col, s)] for s in seeds(quick)])
    alt: dict[int, Any] = {}
    for fig, (number, col) in ((2, FIG2), (3, FIG3)):
        traces[fig] = by[label(TABLES[number - 1], col, TRACE_SEED)]
        if (number, col) in sens:
            alt[fig] = by["alt-" + label(TABLES[number - 1], col, TRACE_SEED)]
    return Measured(pts, sens, traces, alt, scoring.scored(js, results, quick))
