"""Measurements of the Goyal et al. 1998 runs: Fig. 3's throughput, window and round trip,
the per-group and per-VC throughputs and their ratios to the thresholds, the bottleneck
port's utilisation and maximum queue."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from atmsim.reproduce.framework import Job
from atmsim.reproduce.goyal1998.published import TABLE1, TABLE4
from atmsim.reproduce.goyal1998.runs import BOTTLENECK, fig3_label, from_zero_label, seeds

__all__ = [
    "Measured",
    "fifo_ratios",
    "measure",
    "merge_ratios",
    "model_facts",
    "pm",
    "pm_sd",
    "ratios",
]


def model_facts() -> dict[str, float]:
    """What the model's configuration implies (not measured), for the notes, from
    ``atmsim.describe``: the cells a connection's propagation round trip holds at its
    bottleneck's cell rate (goyal1998-fifo, Fig. 4's 30 ms; goyal1998-merge, the main reading
    of Fig. 7's distances) and that round trip, and the most goodput s1 can have alone on
    goyal1998-fig3 (1,024-byte segments over SONET)."""
    import atmsim

    fifo = atmsim.describe("goyal1998-fifo")["network"]["connections"][0]
    merge = atmsim.describe("goyal1998-merge")["network"]["connections"][0]
    fig3 = atmsim.describe("goyal1998-fig3")["network"]["connections"]
    s1 = next(c for c in fig3 if c["name"] == "s1")
    return {
        "bdp_cells": fifo["bdp_cells"],
        "merge_bdp_cells": merge["bdp_cells"],
        "merge_rtt_ms": 1e3 * (merge["rtt_propagation_s"] + merge["rtt_switching_s"]),
        "max_goodput_mbps": s1["max_goodput_bps"] / 1e6,
    }


@dataclass
class Measured:
    res: dict[str, Any]
    quick: bool

    def fig3(self, k: int) -> tuple[float, float, float]:
        """(goodput Mb/s, mean cwnd B, mean smoothed RTT s) after the warm-up."""
        r = self.res[fig3_label(k)]
        warm = float(r.summary["warmup_s"])
        cwnd = r.wide("cwnd_bytes", "connection")["s1"]
        rtt = r.wide("srtt_ms", "connection")["s1"]
        sel = cwnd.index > warm
        return (
            float(r.connections.loc["s1", "goodput_mbps"]),
            float(cwnd[sel].mean()),
            float(rtt[sel].mean()) / 1e3,
        )

    def fig3_warmup_s(self) -> float:
        """The warm-up of Fig. 3's main runs, before which nothing is counted (s)."""
        return float(self.res[fig3_label(0)].summary["warmup_s"])

    def from_zero(self, k: int, duration: str) -> float:
        """Fig. 3's throughput counted from time 0 over a run of ``duration`` (Mb/s)."""
        return float(self.res[from_zero_label(k, duration)].connections.loc["s1", "goodput_mbps"])

    def cwnd_trace(self, label: str, conn: str) -> pd.Series:
        return self.res[label].wide("cwnd_bytes", "connection")[conn]

    def fifo_groups(self, exp: int) -> np.ndarray:
        """Per-TCP mean goodput of each group, one row per seed (Mb/s)."""
        rows = []
        for seed in seeds(self.quick):
            g = self.res[f"fifo{exp}-s{seed}"].connections["goodput_mbps"]
            rows.append(
                [g[[f"s{i}" for i in range(3 * k + 1, 3 * k + 4)]].mean() for k in range(5)]
            )
        return np.array(rows)

    def merge_vcs(self, label: str) -> np.ndarray:
        g = self.res[label].connections["goodput_mbps"]
        return np.array([g[[f"s{v}_{i}" for i in (1, 2, 3)]].sum() for v in range(1, 6)])

    def merge_runs(self, s: int, rt30: bool = False, variant: str | None = None) -> list[str]:
        """The labels of threshold set `s`'s runs: the main distances, Fig. 4's 30 ms round
        trip (`rt30`) or a GFR policy variant."""
        kind = "-rt30" if rt30 else f"-{variant}" if variant else ""
        return [f"merge{s}{kind}-s{seed}" for seed in seeds(self.quick)]

    def mean_port(self, s: int, field: str, rt30: bool = False) -> float:
        return float(np.mean([self.port(lb, field) for lb in self.merge_runs(s, rt30)]))

    def ports(self, labels: list[str], field: str) -> np.ndarray:
        return np.array([self.port(lb, field) for lb in labels])

    def port(self, label: str, field: str) -> float:
        return float(self.res[label].ports.loc[BOTTLENECK, field])

    def timeouts(self, label: str) -> int:
        return int(self.res[label].connections["timeouts"].sum())


def ratios(per_entity: np.ndarray, thresholds: tuple[int, ...]) -> np.ndarray:
    """(mu_i / mu) / (r_i / r) for each row of per-entity throughputs."""
    th = np.asarray(thresholds, dtype=float)
    x = np.atleast_2d(per_entity)
    return (x / x.sum(axis=1, keepdims=True)) / (th / th.sum())


def measure(js: list[Job], results: list[Any], quick: bool) -> Measured:
    return Measured({j.name: r for j, r in zip(js, results, strict=True)}, quick)


def fifo_ratios(m: Measured, exp: int) -> np.ndarray:
    # Groups' per-TCP throughput x 3 is the group's; ratios use group shares.
    return ratios(m.fifo_groups(exp) * 3, TABLE1[exp])


def merge_ratios(m: Measured, s: int, labels: list[str] | None = None) -> np.ndarray:
    labels = labels or m.merge_runs(s)
    return ratios(np.array([m.merge_vcs(lb) for lb in labels]), TABLE4[s])


def pm(x: np.ndarray, fmt: str = "{:.2f}") -> str:
    """Mean ± sample standard deviation over seeds, as text (the mean alone for one seed)."""
    x = np.asarray(x, dtype=float)
    if len(x) < 2:
        return fmt.format(x.mean())
    return f"{fmt.format(x.mean())} ± {fmt.format(x.std(ddof=1))}"


def pm_sd(x: np.ndarray, fmt: str = "{:.2f}") -> str:
    """:func:`pm` saying what its ± is: "(mean ± sd over N seeds)" after it when there are
    two seeds or more (a comparison row's own ± is its confidence interval)."""
    n = len(np.asarray(x))
    return pm(x, fmt) + (f" (mean ± sd over {n} seeds)" if n > 1 else "")
