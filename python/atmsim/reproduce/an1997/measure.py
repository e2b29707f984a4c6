"""Measurements of the An 1997 runs: the runs by label (:class:`Measured`, with the main
model's runs replaced by a reading's), goodput windows and fairness, responses to a VBR change,
window collapses (lone slow starts), the shared buffer's overflows, and a sign test."""

from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
import pandas as pd

from atmsim.reproduce.an1997.schemes import (
    BOTTLENECK,
    FAIRNESS_FAMILIES,
    FAIRNESS_SEEDS,
    TRANSIENT_S,
    VBR_START_S,
    WIDE_SEEDS,
    WITHIN,
    label,
    row_label,
    wide_label,
)
from atmsim.reproduce.an1997.studies import (
    FINE_SCHEMES,
    OVERFLOW_GAP_S,
    READINGS,
    STARVED_RATIO,
    STARVED_SAMPLES,
    VISIBLE,
    fine_key,
    reading_families,
    reading_label,
)
from atmsim.reproduce.framework import Job, jain

#: The 1,500-cell rows' span: every sample after the VBR start, to the run's end.
AFTER_VBR = (VBR_START_S, math.inf)

# Measurements


@dataclass
class Measured:
    res: dict[str, Any]

    def r(self, fam: str, s: str, seed: int = 1) -> Any:
        return self.res[label(fam, s, seed)]

    def under(self, reading: str) -> Measured:
        """The main runs with those that ``reading`` ran again in their place, on the fairness
        seeds and on the wide ones (the runs made only for the wide seeds keep their mark, so
        the fairness rows under a reading are scored on the same seeds as the main model's)."""
        prefix, wide = reading_label(reading, ""), wide_label("")
        wide_prefix = wide_label(prefix)

        def main_run(k: str) -> bool:  # the main model's, on the fairness or the wide seeds
            return ":" not in k.removeprefix(wide)

        res = {k: v for k, v in self.res.items() if main_run(k)}
        for k, v in self.res.items():
            if k.startswith(prefix):
                res[k[len(prefix) :]] = v
            elif k.startswith(wide_prefix):
                res[wide_label(k[len(wide_prefix) :])] = v
        return Measured(res)

    def seeds(self) -> tuple[int, ...]:
        """The seeds the fairness claims were run with (those present in the runs)."""
        fam = FAIRNESS_FAMILIES[0]
        return tuple(x for x in FAIRNESS_SEEDS if label(fam, "fmmra", x) in self.res)

    def run_of(self, fam: str, s: str, seed: int, reading: str | None = None) -> Any:
        """Scheme ``s``'s run on ``fam`` with ``seed`` (under ``reading`` where it touches
        ``s``), from the main runs or from those made for the wider seeds; None if absent."""
        lab = label(fam, s, seed)
        if reading is not None and s in READINGS[reading][2] and fam in reading_families(reading):
            lab = reading_label(reading, lab)
        for key in (lab, wide_label(lab), row_label(lab)):
            if key in self.res:
                return self.res[key]
        return None

    def readings(self) -> tuple[str, ...]:
        """The readings of :data:`READINGS` that were run."""
        return tuple(
            r for r in READINGS if any(k.startswith(reading_label(r, "")) for k in self.res)
        )

    def wide_seeds(self) -> tuple[int, ...]:
        """The seeds of :data:`WIDE_SEEDS` that were run (the fairness seeds among them)."""
        fam = FAIRNESS_FAMILIES[0]
        return tuple(x for x in WIDE_SEEDS if self.run_of(fam, "fmmra", x) is not None)

    def row_measure(self, fam: str, s: str, seed: int, reading: str | None = None) -> float:
        """What a fairness row compares, for one run: on ``n5`` the Jain index of the sources'
        mean goodput over the transient, on ``buffer`` the index after the warm-up."""
        r = self.run_of(fam, s, seed, reading)
        if fam == "n5":
            return window_jain(r, TRANSIENT_S)
        return float(r.totals["fairness_index"])

    def wide_pair(
        self, fam: str, a: str, b: str, reading: str | None = None
    ) -> tuple[list[float], list[float]]:
        """A fairness row's measure for schemes ``a`` and ``b``, one per wide seed."""
        seeds = self.wide_seeds()
        return (
            [self.row_measure(fam, a, x, reading) for x in seeds],
            [self.row_measure(fam, b, x, reading) for x in seeds],
        )

    def seed_fairness(self, fam: str, s: str) -> list[float]:
        """Jain index after the warm-up, one per seed of ``seeds()``."""
        return [float(self.r(fam, s, x).totals["fairness_index"]) for x in self.seeds()]

    def seed_transient_fairness(self, fam: str, s: str) -> list[float]:
        """Jain index of the sources' mean goodput over the transient, one per seed."""
        return [self.transient_fairness(fam, s, seed=x) for x in self.seeds()]

    def max_queue(self, fam: str, s: str) -> int:
        return int(self.r(fam, s).ports.loc[BOTTLENECK, "max_queue_cells"])

    def queue(self, fam: str, s: str) -> pd.Series:
        return self.r(fam, s).wide("queue_cells", "port")[BOTTLENECK]

    def goodput(self, fam: str, s: str, seed: int = 1) -> pd.DataFrame:
        return source_goodput(self.r(fam, s, seed))

    def acr(self, fam: str, s: str) -> pd.DataFrame:
        return self.r(fam, s).wide("acr_mbps", "abr")

    def total(self, fam: str, s: str) -> float:
        return float(self.r(fam, s).totals["goodput_mbps"])

    def fairness(self, fam: str, s: str) -> float:
        return float(self.r(fam, s).totals["fairness_index"])

    def dropped(self, fam: str, s: str) -> int:
        return int(self.r(fam, s).totals["cells_dropped"])

    def transient_fairness(
        self, fam: str, s: str, window: tuple[float, float] = TRANSIENT_S, seed: int = 1
    ) -> float:
        """Jain index of the sources' mean goodput over ``window``."""
        return window_jain(self.r(fam, s, seed), window)

    def in_transient(self, fam: str, s: str, metric: str, kind: str) -> pd.Series:
        """Each source's mean of ``metric`` over the transient (the VBR source left out)."""
        w = self.r(fam, s).wide(metric, kind)
        w = w[[c for c in w.columns if c != "vbr"]]
        return w[(w.index > TRANSIENT_S[0] + 1e-9) & (w.index <= TRANSIENT_S[1] + 1e-9)].mean()

    def short_term_fairness(self, fam: str, s: str, samples: int = 1, seed: int = 1) -> float:
        """Mean over the transient of the Jain index of the sources' goodput averaged over
        ``samples`` consecutive samples (5 ms each): fairness as the curves of Figs. 4.8-4.10
        show it at each moment, with the curves smoothed over 5 ms x ``samples``."""
        g = source_goodput(self.run_of(fam, s, seed))
        g = g[(g.index > TRANSIENT_S[0]) & (g.index <= TRANSIENT_S[1])]
        return float(np.mean([jain(row) for row in span_means(g, samples)]))


def _wins(a: list[float], b: list[float]) -> int:
    """Seeds in which ``a`` is above ``b``."""
    return sum(x > y for x, y in zip(a, b, strict=True))


def source_goodput(run: Any) -> pd.DataFrame:
    """The TCP sources' goodput series of ``run`` (the VBR source left out)."""
    w = run.wide("goodput_mbps", "connection")
    return w[[c for c in w.columns if c != "vbr"]]


def span_means(g: pd.DataFrame, samples: int) -> np.ndarray:
    """Each source's mean over consecutive spans of ``samples`` samples (a row per span; a
    last, shorter span is left out)."""
    x = g.to_numpy(dtype=float)
    n = len(x) // samples * samples
    return x[:n].reshape(-1, samples, x.shape[1]).mean(axis=1)


#: Per run (an ``atmsim.Results``, not changed once read), the values of the functions under
#: :func:`_once_per_run` by their arguments. The fairness rows, their readings and their seed
#: studies ask for the same run's measures many times: 49,000 times for an1997's 3,826 runs.
_PER_RUN: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], float]] = weakref.WeakKeyDictionary()


def _once_per_run(fn: Callable[..., float]) -> Callable[..., float]:
    """``fn(run, ...)`` computed once per run and arguments, then remembered with the run."""

    @functools.wraps(fn)
    def once(run: Any, *args: Any, **kwargs: Any) -> float:
        memo = _PER_RUN.setdefault(run, {})
        key = (fn.__name__, args, tuple(sorted(kwargs.items())))
        if key not in memo:
            memo[key] = fn(run, *args, **kwargs)
        return memo[key]

    return once


@_once_per_run
def window_jain(run: Any, window: tuple[float, float]) -> float:
    """Jain index of the sources' mean goodput over ``window`` (s)."""
    g = source_goodput(run)
    g = g[(g.index > window[0] + 1e-9) & (g.index <= window[1] + 1e-9)]
    return jain(g.mean().to_numpy(dtype=float))


@_once_per_run
def starved_share(
    run: Any,
    samples: int = STARVED_SAMPLES,
    ratio: float = STARVED_RATIO,
    window: tuple[float, float] = (VBR_START_S, math.inf),
) -> float:
    """Share of the spans of ``samples`` samples in ``window`` (s; by default after the VBR
    source starts) in which one source's mean goodput is below ``ratio`` of another's (one
    source starved while another takes the link)."""
    g = source_goodput(run)
    g = g[(g.index > window[0] + 1e-9) & (g.index <= window[1] + 1e-9)]
    b = span_means(g, samples)
    if not len(b):
        return float("nan")
    return float(np.mean(b.min(axis=1) < ratio * b.max(axis=1)))


def measure(js: list[Job], results: list[Any], quick: bool = False) -> Measured:
    return Measured({j.name: r for j, r in zip(js, results, strict=True)})


def response_times(acr: pd.Series, period_s: float, start_s: float) -> list[float]:
    """For each ON or OFF phase of the VBR source after ``start_s`` (each ``period_s`` long),
    the time from the phase's start until ``acr`` is, and stays for the rest of the phase,
    within ``WITHIN`` of where it settles: the median over the phase's last fifth. A phase
    that never settles counts as the whole phase."""
    t = acr.index.to_numpy(dtype=float)
    v = acr.to_numpy(dtype=float)
    out = []
    k = 0
    while start_s + (k + 1) * period_s <= t[-1] + 1e-9:
        a, b = start_s + k * period_s, start_s + (k + 1) * period_s
        sel = (t > a + 1e-9) & (t <= b + 1e-9)
        tt, vv = t[sel], v[sel]
        k += 1
        if len(vv) < 5:
            continue
        settled = float(np.median(vv[-max(1, len(vv) // 5) :]))
        ok = np.abs(vv - settled) <= WITHIN * max(abs(settled), 1e-9)
        # The first sample from which every later one is within the band.
        bad = np.nonzero(~ok)[0]
        first = 0 if len(bad) == 0 else bad[-1] + 1
        out.append(float(tt[first] - a) if first < len(tt) else period_s)
    return out


def mean_response(m: Measured, s: str) -> float:
    acr = m.acr("acr", s)
    times = [x for c in acr.columns for x in response_times(acr[c], 0.1, VBR_START_S)]
    return float(np.mean(times)) if times else float("nan")


#: The thesis's claims about FMMRA, as (short name, test on a setting's runs): each FMMRA
def collapse_times(run: Any) -> dict[str, np.ndarray]:
    """Each TCP source's window collapses after the VBR start: the samples where its cwnd is
    below 60% of the sample before (a retransmission timeout, the only loss response of the
    thesis's TCP)."""
    w = run.wide("cwnd_bytes", "connection")
    w = w[[c for c in w.columns if c != "vbr"]]
    w = w[w.index > VBR_START_S]
    t = w.index.to_numpy(dtype=float)
    out = {}
    for c in w.columns:
        x = w[c].to_numpy(dtype=float)
        out[c] = t[1:][x[1:] < 0.6 * x[:-1]]
    return out


def collapse_sync(m: Measured, fam: str, s: str, within_s: float = 0.01, seed: int = 1) -> float:
    """Share of the first source's window collapses (cwnd below 60% of the sample before,
    after 0.3 s) that come within ``within_s`` of a collapse of another source."""
    falls = list(collapse_times(m.r(fam, s, seed)).values())
    if len(falls) < 2 or not len(falls[0]):
        return float("nan")
    others = np.concatenate(falls[1:])
    return float(np.mean([np.any(np.abs(others - x) <= within_s) for x in falls[0]]))


def lone_collapses(run: Any, within_s: float = 0.01) -> list[tuple[float, str]]:
    """The window collapses with no collapse of another source within ``within_s`` (the times
    a source alone went back to slow start), as (time, source) in time order."""
    falls = collapse_times(run)
    out = []
    for c, x in falls.items():
        others = [v for k, v in falls.items() if k != c]
        o = np.concatenate(others) if others else np.array([])
        out += [(float(t), c) for t in x if not np.any(np.abs(o - t) <= within_s)]
    return sorted(out)


def solo_collapses(run: Any, within_s: float = 0.01) -> dict[str, int]:
    """Per source, how many times it alone went back to slow start (:func:`lone_collapses`)."""
    out = dict.fromkeys(collapse_times(run), 0)
    for _, c in lone_collapses(run, within_s):
        out[c] += 1
    return out


def lone_repeats(run: Any) -> tuple[int, int]:
    """Of the consecutive pairs of lone slow starts in a run, (those whose second falls on the
    same source as the first, all pairs): the thesis's account has a source that went back to
    slow start alone meet the next congestion at a disadvantage, which makes it the one to go
    back again."""
    seq = [c for _, c in lone_collapses(run)]
    return sum(a == b for a, b in pairwise(seq)), max(len(seq) - 1, 0)


def overflows(run: Any, gap_s: float = OVERFLOW_GAP_S) -> list[tuple[float, np.ndarray]]:
    """The overflows after the VBR start as (duration in s, cells dropped per TCP source): runs
    of samples in which the sources lose cells, gaps shorter than ``gap_s`` joined."""
    w = run.wide("cells_dropped", "connection")
    w = w[[c for c in w.columns if c != "vbr"]]
    t = w.index.to_numpy(dtype=float)
    x = np.diff(w.to_numpy(dtype=float), axis=0)  # cumulative counts -> per sample
    t = t[1:]
    keep = t > VBR_START_S
    t, x = t[keep], x[keep]
    step = float(np.median(np.diff(t))) if len(t) > 1 else 0.0
    hit = np.flatnonzero(x.sum(axis=1) > 0)
    if not len(hit):
        return []
    # a new overflow starts at each sample with drops that follows the last by gap_s or more
    parts = np.split(hit, np.flatnonzero(np.diff(t[hit]) >= gap_s) + 1)
    return [(t[p[-1]] - t[p[0]] + step, x[p[0] : p[-1] + 1].sum(axis=0)) for p in parts]


def overflow_stats(m: Measured) -> tuple[list[int], dict[str, tuple[float, float, float]]]:
    """Per scheme of FINE_SCHEMES: overflows a run, their median length (ms) and the share of
    them that take cells of one source only, over the fairness seeds (empty if not run)."""
    seeds = [x for x in m.seeds() if label("buffer", fine_key("efci"), x) in m.res]
    per: dict[str, tuple[float, float, float]] = {}
    for s in FINE_SCHEMES if seeds else ():
        ov = [o for x in seeds for o in overflows(m.r("buffer", fine_key(s), x))]
        if not ov:
            return seeds, {}
        one = np.mean([int((c > 0).sum()) == 1 for _, c in ov])
        per[s] = (len(ov) / len(seeds), 1_000 * float(np.median([d for d, _ in ov])), float(one))
    return seeds, per


def verdict(claimed: list[float], other: list[float], higher: bool) -> dict[str, Any]:
    """A fairness row over seeds by :data:`.studies.VISIBLE`'s rule: ``claimed`` (the scheme
    the thesis names) against ``other``, the claim being that ``claimed`` is higher
    (``higher``) or lower. "holds": on the thesis's side of the mean with a two-sided sign test
    below the rule's level; "reversed": the other side with that level; else "not separated"."""
    a, b = np.asarray(claimed, dtype=float), np.asarray(other, dtype=float)
    d = (a - b) if higher else (b - a)  # > 0: the thesis's side
    wins, n = int((d > 0).sum()), int((d != 0).sum())
    p = sign_test(wins, n) if n else 1.0
    side = float(d.mean()) if len(d) else 0.0
    if side > 0 and p < VISIBLE["p"]:
        word = "holds"
    elif side < 0 and p < VISIBLE["p"]:
        word = "reversed"
    else:
        word = "not separated"
    return {
        "claimed": {"mean": float(a.mean()), "sd": float(a.std(ddof=1)) if len(a) > 1 else 0.0},
        "other": {"mean": float(b.mean()), "sd": float(b.std(ddof=1)) if len(b) > 1 else 0.0},
        "diff": float(a.mean() - b.mean()),
        "wins": wins,
        "n": len(d),
        "p": p,
        "verdict": word,
    }


def row_window(fam: str) -> tuple[float, float]:
    """The span a fairness row of ``fam`` is measured over: the transient after the VBR
    source starts on N = 5, every sample after the VBR start (to the run's end) on the
    1,500-cell network."""
    return TRANSIENT_S if fam == "n5" else AFTER_VBR


def sign_test(wins: int, n: int) -> float:
    """Two-sided sign test: the chance of ``wins`` or more (or as few) of ``n`` seeds going one
    way when either way is equally likely."""
    k = max(wins, n - wins)
    tail = sum(math.comb(n, i) for i in range(k, n + 1)) / 2**n
    return min(1.0, 2 * tail)


def model_facts() -> dict[str, float]:
    """The facts of atmsim's model the notes need, from ``atmsim.describe`` of the N = 5
    network: its first source's segment and ACK cells, the line and payload bits of a cell on
    its access link, the number of TCP sources, and the stated per-sample interval."""
    import atmsim
    from atmsim.reproduce.an1997.published import WINDOW_KB
    from atmsim.reproduce.an1997.schemes import EFCI_RIF, FAMILIES, SAMPLE_S

    net = atmsim.describe(FAMILIES["n5"][0])["network"]
    tcps = [c for c in net["connections"] if c["mss_bytes"] is not None]
    first = tcps[0]
    port = next(p for p in net["ports"] if p["name"] == first["route"][0])
    line_bits = round(port["line_rate_bps"] / port["cells_per_s"])  # whole bits a cell
    payload_bits = round(port["payload_bps"] / port["cells_per_s"])
    return {
        # a cell's bits on the line over its payload bits
        "cell_over_payload": line_bits / payload_bits,
        # the stated window (64 KB) of every TCP source, in cells of payload
        "n5_windows_cells": len(tcps) * WINDOW_KB.value * 1024 * 8 / payload_bits,
        # one segment in one sample, in Mb/s
        "segment_mbps_per_sample": first["mss_bytes"] * 8 / SAMPLE_S / 1e6,
        # the ACR step of one unmarked backward RM cell under EFCI: PCR x RIF
        "efci_rif_step_mbps": first["peak_cells_per_s"] * line_bits * EFCI_RIF / 1e6,
        "cells_per_segment": first["segment_cells"],
        "cells_per_ack": first["ack_cells"],
    }
