"""Measurements of the Fang et al. 1994 runs, and the model facts the comparison needs."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from atmsim.reproduce.fang1994.runs import BOTTLENECK, CELL_DROP, SCENARIO_SEED, unseeded
from atmsim.reproduce.framework import Estimate, Job, over_seeds

__all__ = [
    "ModelFacts",
    "Measured",
    "cv_pct",
    "farthest",
    "linear_r2",
    "longest_idle_s",
    "measure",
    "model_facts",
]


@dataclass(frozen=True)
class ModelFacts:
    """Facts of the model (the built-in scenarios as atmsim runs them), not measurements."""

    #: One cell's serialisation time on every link [s].
    cell_time_s: float
    #: Cell rate of a link [Mb/s of cells], and its cell payload rate [Mb/s] (48 of every 53
    #: bytes at one cell per cell time).
    cell_rate_mbps: float
    payload_rate_mbps: float
    #: TCP payload (MSS) of an 8 KB session [bytes], and the bytes of cell payload that carry
    #: one full segment (its cells x 48).
    mss_bytes: int
    segment_payload_bytes: int
    #: A full 8 KB segment as AAL5 carries it (TCP/IP headers and the AAL5 trailer) [bytes].
    frame_bytes: int
    #: Cells per full 8 KB segment (TCP/IP headers and the AAL5 trailer included), and per
    #: 64-byte segment.
    cells_per_segment: int
    cells_per_64b_segment: int
    #: Cells of one 64 KB window (8 segments).
    window_cells: int
    #: A sender's CPU time per segment: the segment and its ACK [s].
    cpu_per_segment_s: float

    @property
    def goodput_fraction(self) -> float:
        """TCP payload per byte of cell payload of a full segment."""
        return self.mss_bytes / self.segment_payload_bytes

    @property
    def session_ceiling_mbps(self) -> float:
        """The goodput ceiling of one of six sessions sharing a link [Mb/s]."""
        return self.payload_rate_mbps * self.goodput_fraction / 6

    @property
    def cpu_bound_8k_mbps(self) -> float:
        """A lone 8 KB session's goodput bound by the host CPU [Mb/s]."""
        return self.mss_bytes * 8 / self.cpu_per_segment_s / 1e6

    @property
    def cpu_bound_64_mbps(self) -> float:
        """A lone 64-byte session's goodput bound by the host CPU [Mb/s]."""
        return 64 * 8 / self.cpu_per_segment_s / 1e6


def model_facts() -> ModelFacts:
    """The model facts the comparison, figures and notes use, in one place, from
    ``atmsim.describe`` of ``fang1994-an2`` (and ``fang1994-mss64`` for its 64-byte session);
    the window (64 KiB, 8 segments) and the hosts' CPU time (300 us a packet, a segment's and
    its ACK's) are the scenarios' stated settings."""
    import atmsim

    net = atmsim.describe("fang1994-an2")["network"]
    port = next(p for p in net["ports"] if p["name"] == BOTTLENECK)
    conn = net["connections"][0]
    small = next(
        c for c in atmsim.describe("fang1994-mss64")["network"]["connections"] if c["name"] == "s1"
    )
    payload_bytes = round(port["payload_bps"] / port["cells_per_s"] / 8)  # whole bytes a cell
    return ModelFacts(
        cell_time_s=port["cell_time_s"],
        cell_rate_mbps=port["line_rate_bps"] / 1e6,
        payload_rate_mbps=port["payload_bps"] / 1e6,
        mss_bytes=conn["mss_bytes"],
        segment_payload_bytes=conn["segment_cells"] * payload_bytes,
        frame_bytes=conn["mss_bytes"] + conn["header_bytes"] + conn["aal_overhead_bytes"],
        cells_per_segment=conn["segment_cells"],
        cells_per_64b_segment=small["segment_cells"],
        window_cells=WINDOW_SEGMENTS * conn["segment_cells"],
        cpu_per_segment_s=2 * CPU_PER_PACKET_S,
    )


#: The scenarios' TCP window (64 KiB) in segments, and each host's CPU time a packet [s].
WINDOW_SEGMENTS = 8
CPU_PER_PACKET_S = 300e-6


@dataclass
class Measured:
    """Everything the comparison, the figures and the notes read, by run name, of one seed's
    runs (``seed``); ``runs`` holds every seed's, this one first (:func:`measure` returns the
    first seed's)."""

    res: dict[str, Any]
    facts: ModelFacts
    seed: int = 1
    runs: list[Measured] = field(default_factory=list, repr=False, compare=False)

    @property
    def seeds(self) -> list[int]:
        return [x.seed for x in self.runs] if self.runs else [self.seed]

    def over(self, value: Callable[[Measured], float]) -> Estimate:
        """``value`` of each seed's runs, as a mean with its confidence interval."""
        return over_seeds(float(value(x)) for x in (self.runs or [self]))

    def conns(self, name: str) -> pd.DataFrame:
        return self.res[name].connections

    def totals(self, name: str) -> dict[str, Any]:
        return self.res[name].totals

    def port(self, name: str, port: str = BOTTLENECK) -> pd.Series:
        return self.res[name].ports.loc[port]

    def goodputs(self, name: str) -> pd.Series:
        return self.conns(name)["goodput_mbps"].astype(float)

    def mean_goodput(self, name: str) -> float:
        return float(self.goodputs(name).mean())

    def mean_rtt(self, name: str) -> float:
        return float(self.conns(name)["mean_rtt_ms"].astype(float).mean())

    def timeouts(self, name: str) -> int:
        return int(self.conns(name)["timeouts"].sum())

    def fast_retransmits(self, name: str) -> int:
        return int(self.conns(name)["fast_retransmits"].sum())

    def has(self, metric: str, name: str = CELL_DROP) -> bool:
        return bool((self.res[name].series["metric"] == metric).any())

    def drops_by_reason(self, name: str) -> dict[str, int]:
        """Cells dropped at the bottleneck port by reason (reasons with none left out)."""
        p = self.port(name)
        return {
            k.removeprefix("drops_by_reason."): int(v)
            for k, v in p.items()
            if str(k).startswith("drops_by_reason.") and int(v) > 0
        }

    def longest_idle_s(self, name: str) -> float:
        """The longest stretch without goodput of any session after warm-up [s]."""
        g = self.res[name].wide("goodput_mbps", kind="connection")
        g = g[g.index > float(self.res[name].summary["warmup_s"])]
        return max((longest_idle_s(g[col]) for col in g.columns), default=0.0)

    def mean_cwnd_segments(self, name: str) -> float | None:
        """The sessions' mean congestion window after warm-up [segments], or None when the
        run kept no cwnd series."""
        if not self.has("cwnd_bytes", name):
            return None
        g = self.res[name].wide("goodput_mbps", kind="connection")
        g = g[g.index > float(self.res[name].summary["warmup_s"])]
        cw = self.res[name].wide("cwnd_bytes", kind="connection")
        return float(cw[cw.index > g.index.min()].mean().mean()) / self.facts.mss_bytes


def measure(js: list[Job], results: list[Any], quick: bool = False) -> Measured:
    """The runs of every seed, each seed's by run name; the first seed's :class:`Measured`,
    with all of them in ``runs``."""
    facts = model_facts()
    by_seed: dict[int, dict[str, Any]] = {}
    for j, r in zip(js, results, strict=True):
        seed = SCENARIO_SEED if j.seed is None else int(j.seed)
        by_seed.setdefault(seed, {})[unseeded(j.name, seed)] = r
    runs = [Measured(res, facts, seed) for seed, res in by_seed.items()]
    for x in runs:
        x.runs = runs
    return runs[0]


def cv_pct(x: pd.Series) -> float:
    """Coefficient of variation (population std / mean) in %."""
    mean = float(x.mean())
    return float(x.std(ddof=0)) / mean * 100 if mean > 0 else math.nan


def linear_r2(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Slope, intercept and R^2 of a least-squares line."""
    slope, intercept = np.polyfit(x, y, 1)
    fit = slope * x + intercept
    ss_res = float(np.sum((y - fit) ** 2))
    ss_tot = float(np.sum((y - y.mean()) ** 2))
    return float(slope), float(intercept), (1 - ss_res / ss_tot) if ss_tot > 0 else math.nan


def farthest(values: pd.Series, lo: float, hi: float | None = None) -> float:
    """The value farthest from the target ``lo`` (or from the range ``[lo, hi]``)."""
    hi = lo if hi is None else hi
    dist = values.apply(lambda v: max(lo - v, v - hi, -min(v - lo, hi - v)))
    return float(values.loc[dist.idxmax()])


def longest_idle_s(goodput: pd.Series) -> float:
    """The longest stretch of consecutive zero-goodput samples, in seconds."""
    t = goodput.index.to_numpy(dtype=float)
    if len(t) < 2:
        return 0.0
    step = float(np.median(np.diff(t)))
    best = run = 0
    for v in goodput.to_numpy():
        run = run + 1 if v == 0 else 0
        best = max(best, run)
    return best * step
