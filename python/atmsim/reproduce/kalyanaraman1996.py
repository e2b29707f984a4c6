"""Reproduction of Kalyanaraman, Jain, Fahmy, Goyal, Jiang & Kim 1996, "Performance of TCP
over ABR on ATM backbone and with various VBR traffic patterns" (ATM Forum 96-1294): fifteen
greedy TCPs over ABR share one OC-3 bottleneck on 1000 km links; Table 1 (source queues under
ERICA), Table 2 (switch queues under ERICA+ with a VBR ON-OFF background), Table 3 (the
feedback delay) and Table 4 (averaging the number of sources and the load factor).

``atmsim reproduce kalyanaraman1996 [--quick] --out DIR`` calls :func:`main`, which writes
into DIR the run cache (``runs/``), ``figures/``, ``comparison.csv`` / ``comparison.json``,
``tables.csv``, ``notes.md`` and ``report.html``, as every reproduction does.

Full mode runs every scenario for 3 s (statistics from 1 s); ``quick`` runs 1.5 s
(statistics from 0.5 s) and skips Table 3's 5 ms feedback delay (500 km links). For the notes,
Table 1's rows also run over 20 s (statistics from 5 s; quick: 6 s from 3 s), and the rows
whose source queues overflow run again with queues that lose whole frames
(:func:`t1_variants`, :func:`t1_runs_text`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from atmsim import plots
from atmsim.reproduce.common import (
    Claim,
    Job,
    Stopwatch,
    absolute,
    at_most,
    between,
    compare,
    factor,
    publish,
    rebuild_reproduction,
    rel,
    run_reproduction,
)
from atmsim.storage import atomic_write

__all__ = ["main", "report", "jobs", "claims", "divergent", "QUICK_OVERRIDES"]

TITLE = (
    "Kalyanaraman et al. 1996: TCP over ABR on an ATM backbone, and with VBR ON-OFF "
    "background (ERICA, ERICA+)"
)

TABLE1 = "kalyanaraman1996-table1"
TABLE2 = "kalyanaraman1996-table2"
BOTTLENECK = "A->B"
SOURCES = tuple(f"s{i}" for i in range(1, 16))

FULL_OVERRIDES = {"run.duration": "3 s", "run.warmup": "1 s"}
#: --quick: 1.5 s runs, statistics from 0.5 s.
QUICK_OVERRIDES = {"run.duration": "1.5 s", "run.warmup": "0.5 s"}

# --------------------------------------------------------------------------------------------
# The paper's numbers (section 4 of 96-1294)

#: The receiver window, 1024 KB = 24,576 cells (section 2), and the round trip, 30 ms =
#: 11,040 cells at 368 cells/ms (section 4.1.1).
WINDOW_CELLS = 24_576
RTT_CELLS = 11_040
#: 155.52 x 0.9 x 48/53 x 512/568 x 31/32 (section 4.1.1).
MAX_TCP_MBPS = 155.52 * 0.9 * 48 / 53 * 512 / 568 * 31 / 32

#: Table 1: source buffer [cells] -> (max source queue, overflow, max switch queue, Mb/s).
PAPER_T1 = {
    100: (100, True, 8_624, 73.27),
    1_000: (1_000, True, 17_171, 83.79),
    10_000: (10_000, True, 17_171, 95.48),
    100_000: (23_901, False, 17_171, 110.90),
}
#: Table 2: (duty cycle, period ms) -> max switch queue [cells], None = DIVERGENT.
PAPER_T2: dict[tuple[float, int], int | None] = {
    (0.95, 100): 2_588,
    (0.8, 100): 5_217,
    (0.7, 100): 5_688,
    (0.95, 10): 2_709,
    (0.8, 10): None,
    (0.7, 10): None,
    (0.95, 1): 2_589,
    (0.8, 1): 4_077,
    (0.7, 1): 2_928,
}
#: Table 3 (its values are not in our copy of the paper, only its text): the divergent case
#: of Table 2 with the feedback delay varied. Feedback delay [ms] -> divergent (text: "the
#: queues are small when the feedback delay is 1 ms"; "entries 2 and 3 have a feedback delay
#: longer than the OFF time. This is one of the factors causing the divergence"). The paper's
#: links "may assume values 1000, 500, 100 and 1 km", and the feedback delay is twice the
#: source-to-switch link: 10, 5, 1 and 0.01 ms. Entry 1 is 1 ms (100 km); the two longer than
#: the 2 ms OFF time are 5 ms (500 km) and 10 ms (1000 km, Table 2's own run).
T3_CASE = (0.8, 10)
PAPER_T3 = {1: False, 5: True, 10: True}
#: Table 4: d = 0.7, p = 20 ms; setting -> max switch queue (both converge). "none" is the
#: same case without averaging, which the text calls "a formerly divergent case".
T4_CASE = (0.7, 20)
PAPER_T4: dict[str, int | None] = {"none": None, "na-z": 5_223, "na-500": 5_637}
T4_RATE_CONTROL = {
    "none": {"kind": "erica_plus", "interval_cells": 100, "interval": "1 ms"},
    "na-z": {
        "kind": "erica_plus",
        "interval_cells": 100,
        "interval": "1 ms",
        "source_decay": 0.9,
        "load_averaging": {"method": "ratio", "az": 0.2},
    },
    "na-500": {
        "kind": "erica_plus",
        "interval_cells": 500,
        "interval": "5 ms",
        "source_decay": 0.9,
    },
}
#: Table 4 row 1 again, with z averaged by the other method the paper describes (an
#: exponential average of z itself, restarted at 0 or infinity): the paper does not say
#: which of its two methods the row used; ours runs the ratio method (the one it calls
#: theoretically right) and reports this one beside it.
T4_SENSITIVITY = {
    "na-z-reset": {
        "kind": "erica_plus",
        "interval_cells": 100,
        "interval": "1 ms",
        "source_decay": 0.9,
        "load_averaging": {"method": "reset", "az": 0.2},
    }
}
T4_NAMES = {
    "none": "no averaging, (100 cells, 1 ms)",
    "na-z": "Na (An 0.9) and z (Az 0.2) averaged, (100 cells, 1 ms)",
    "na-500": "Na averaged, (500 cells, 5 ms)",
    "na-z-reset": "Na and z averaged, z by an average of z itself (method 1), (100 cells, 1 ms)",
}

# --------------------------------------------------------------------------------------------
# Tolerances, fixed with their reasons; never widened to make a row agree.

#: Table 1 row 4 throughput, 110.9 Mb/s: 10 % (the project issue's "about 110.9"). It is the
#: link arithmetic of a 90 % target, which ERICA reaches only to within its overload band
#: (z up to 1 + delta), so the band must hold more than framing rounding.
TOL_T1_MAX_RATE = rel(0.10)
#: Table 1 rows 1-3 throughput: 15 %. These are set by TCP's timeouts after source-queue
#: overflows, whose cost hangs on the timer tick and minimum RTO the paper does not state.
TOL_T1_LOSSY_RATE = rel(0.15)
#: Maximum queues (switch and source): a factor of 2. A maximum is one extreme of a transient
#: (TCP slow start meeting ERICA's first intervals, or a VBR burst): it depends on start
#: times and on the unstated TCP details; a factor of 2 keeps its order of magnitude (small
#: fractions of an RTT against many RTTs) without pretending to pin down the transient.
TOL_MAX_QUEUE = factor(2)
#: The source queue of a buffer that overflows equals the buffer: exact.
TOL_EXACT = absolute(0)
#: "about one receiver window" (0.97 Win): between 0.9 and 1.0 of the window.
TOL_ONE_WINDOW = between(0.9, 1.0)
#: "The switch buffering requirement is under 3 x RTT": at most 3 RTTs of cells.
TOL_UNDER_3RTT = at_most(3 * RTT_CELLS)


# --------------------------------------------------------------------------------------------
# Scenarios and runs


def _vbr(d: float, p_ms: int) -> dict[str, Any]:
    return {"kind": "on_off", "rate": "124.416 Mb/s", "period": f"{p_ms} ms", "duty_cycle": d}


def t1_name(buf: int) -> str:
    return f"table1-buf{buf}"


def t1_variant(buf: int, drop: str, long: bool) -> str:
    """A Table 1 row run again: its source queue losing ``drop`` ("cells", as the paper says,
    or whole "frames"), over the table's run or over :data:`LONG_OVERRIDES`' longer one."""
    return f"table1-buf{buf}-{drop}" + ("-long" if long else "")


def t2_name(d: float, p: int) -> str:
    return f"table2-d{d}-p{p}"


def t3_name(fb: int) -> str:
    return t2_name(*T3_CASE) if fb == 10 else f"table3-fb{fb}ms"


def t4_name(setting: str) -> str:
    return f"table4-{setting}"


def t3_delays(quick: bool) -> tuple[int, ...]:
    return (1, 10) if quick else (1, 5, 10)


_QUEUE = ("queue_cells",)
_ABR = ("queue_cells", "acr_mbps", "source_queue_cells", "load_factor")
#: Table 1 row 4 again without ERICA's overload band (delta = 0): a sensitivity run for the
#: notes (the table's ERICA: (500 cells, 5 ms), Na averaged).
T1_DELTA0 = "table1-buf100000-delta0"
_T1_RATE_CONTROL = {
    "kind": "erica",
    "target_utilization": 0.9,
    "interval_cells": 500,
    "interval": "5 ms",
    "source_decay": 0.9,
}


#: Table 1's rows run again for the notes (not the paper's rows: it gives no run length and
#: says only that "cells are dropped" at the source): over a longer run, with throughput from
#: well after the start-up, and with the source queues losing whole frames. Totals only.
LONG_OVERRIDES = {"run.duration": "20 s", "run.warmup": "5 s", "run.sample_every": "1 s"}
QUICK_LONG_OVERRIDES = {"run.duration": "6 s", "run.warmup": "3 s", "run.sample_every": "1 s"}
#: The rows whose source queues overflow, which the frame-dropping runs repeat.
T1_OVERFLOWING = tuple(b for b, row in PAPER_T1.items() if row[1])


def t1_variants(quick: bool) -> list[tuple[int, str, bool, dict[str, Any]]]:
    """(buffer, drop, long, overrides) of each extra Table 1 run."""
    ov = dict(QUICK_OVERRIDES if quick else FULL_OVERRIDES)
    long = dict(QUICK_LONG_OVERRIDES if quick else LONG_OVERRIDES)
    out = [(buf, "cells", True, long) for buf in PAPER_T1]
    for is_long, base in ((False, {**ov, "run.sample_every": "1 s"}), (True, long)):
        out += [(buf, "frames", is_long, base) for buf in T1_OVERFLOWING]
    return out


def jobs(quick: bool) -> list[Job]:
    """The runs of the reproduction, in a fixed order."""
    ov = dict(QUICK_OVERRIDES if quick else FULL_OVERRIDES)
    out = []
    for buf in PAPER_T1:
        over = {**ov, "abr.source_buffer": f"{buf} cells"}
        out.append(
            Job(TABLE1, over, label=t1_name(buf), metrics=_ABR, entities=(*SOURCES, BOTTLENECK))
        )
    for buf, drop, long, base in t1_variants(quick):
        over = {**base, "abr.source_buffer": f"{buf} cells", "abr.source_drop": drop}
        out.append(Job(TABLE1, over, label=t1_variant(buf, drop, long), metrics=(), entities=()))
    over = {
        **ov,
        "abr.source_buffer": "100000 cells",
        "switch.*.rate_control": {**_T1_RATE_CONTROL, "delta": 0.0},
    }
    out.append(Job(TABLE1, over, label=T1_DELTA0, metrics=_ABR, entities=(BOTTLENECK,)))
    for d, p in PAPER_T2:
        over = {**ov, "connection.vbr.source": _vbr(d, p)}
        out.append(Job(TABLE2, over, label=t2_name(d, p), metrics=_QUEUE, entities=(BOTTLENECK,)))
    for fb in t3_delays(quick):
        if fb == 10:
            continue  # Table 2's own run
        # Feedback delay = twice the source-to-switch link: each link fb/2 long.
        over = {
            **ov,
            "connection.vbr.source": _vbr(*T3_CASE),
            "link.*.delay": f"{fb / 2:g} ms",
        }
        out.append(Job(TABLE2, over, label=t3_name(fb), metrics=_QUEUE, entities=(BOTTLENECK,)))
    for setting, rc in {**T4_RATE_CONTROL, **T4_SENSITIVITY}.items():
        over = {
            **ov,
            "connection.vbr.source": _vbr(*T4_CASE),
            "switch.*.rate_control": rc,
        }
        out.append(
            Job(TABLE2, over, label=t4_name(setting), metrics=_QUEUE, entities=(BOTTLENECK,))
        )
    return out


# --------------------------------------------------------------------------------------------
# The divergence test


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


# --------------------------------------------------------------------------------------------
# Measurements


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

    def mean_load(self, name: str) -> float:
        """ERICA's load factor at the bottleneck, averaged over the samples after warm-up."""
        r = self.res[name]
        z = r.wide("load_factor", "rate_control")[BOTTLENECK]
        warm = float(r.summary["warmup_s"])
        return float(z[z.index > warm].mean())


def measure(js: list[Job], results: list[Any]) -> Measured:
    return Measured({j.name: r for j, r in zip(js, results, strict=True)})


def _yn(x: bool) -> str:
    return "divergent" if x else "converges"


def _queue_rows(
    m: Measured,
    name: str,
    paper_max: int | None,
    div_claim: str,
    max_claim: str | None,
    note_extra: str = "",
) -> list[Claim]:
    """The rows of one switch-queue case: converges or diverges (the paper's `paper_max` is
    None for a divergent queue), and, when it converges and `max_claim` is given, its
    maximum."""
    div, why = m.divergent(name)
    rows = [
        compare(
            div_claim,
            paper=float(paper_max is None),
            measured=float(div),
            unit="div=1",
            tol=TOL_EXACT,
            note=why + note_extra,
        )
    ]
    if paper_max is not None and max_claim is not None:
        rows.append(
            compare(
                max_claim,
                paper=float(paper_max),
                measured=float(m.max_queue(name)),
                unit="cells",
                tol=TOL_MAX_QUEUE,
            )
        )
    return rows


def claims(m: Measured, quick: bool = False) -> list[Claim]:
    """The comparison rows, each naming its table."""
    rows: list[Claim] = []

    # Table 1.
    for buf, (src_q, overflow, sw_q, mbps) in PAPER_T1.items():
        name = t1_name(buf)
        lossy = overflow
        rows.append(
            compare(
                f"Table 1, source buffer {buf:,} cells: aggregate TCP throughput",
                paper=mbps,
                measured=m.goodput(name),
                unit="Mb/s",
                tol=TOL_T1_LOSSY_RATE if lossy else TOL_T1_MAX_RATE,
                note=f"goodput of the 15 TCPs after the warm-up ({name}).",
            )
        )
        rows.append(
            compare(
                f"Table 1, source buffer {buf:,} cells: the source queue overflows "
                f"({'yes' if overflow else 'no'}; 1 = yes)",
                paper=float(overflow),
                measured=float(m.lost_at_source(name) > 0),
                unit="yes=1",
                tol=TOL_EXACT,
                note=f"cells lost at the sources: {m.lost_at_source(name):,}.",
            )
        )
        if overflow:
            rows.append(
                compare(
                    f"Table 1, source buffer {buf:,} cells: max source queue = the buffer",
                    paper=float(src_q),
                    measured=float(m.source_queue(name)),
                    unit="cells",
                    tol=TOL_EXACT,
                )
            )
        else:
            rows.append(
                compare(
                    "Table 1, source buffer 100,000 cells: max source queue is about one "
                    "receiver window (23,901 = 0.97 Win)",
                    paper=src_q / WINDOW_CELLS,
                    measured=m.source_queue(name) / WINDOW_CELLS,
                    unit="windows",
                    tol=TOL_ONE_WINDOW,
                    note=f"{m.source_queue(name):,} cells; Win = {WINDOW_CELLS:,} cells.",
                )
            )
        rows.append(
            compare(
                f"Table 1, source buffer {buf:,} cells: max switch queue",
                paper=float(sw_q),
                measured=float(m.max_queue(name)),
                unit="cells",
                tol=TOL_MAX_QUEUE,
            )
        )
    worst = max(m.max_queue(t1_name(b)) for b in PAPER_T1)
    rows.append(
        compare(
            "Table 1: the switch queue stays under 3 x RTT (33,120 cells) in every row",
            paper="< 33,120",
            measured=float(worst),
            unit="cells",
            tol=TOL_UNDER_3RTT,
        )
    )

    # Table 2.
    for (d, p), q in PAPER_T2.items():
        where = f"Table 2, d = {d}, p = {p} ms"
        rows += _queue_rows(
            m,
            t2_name(d, p),
            q,
            f"{where}: the switch queue {_yn(q is None)} (1 = divergent)",
            f"{where}: max switch queue",
        )

    # Table 3.
    for fb in t3_delays(quick):
        want = PAPER_T3[fb]
        rows += _queue_rows(
            m,
            t3_name(fb),
            None if want else 0,
            f"Table 3, d = 0.8, p = 10 ms, feedback delay {fb} ms: the switch queue "
            f"{_yn(want)} (1 = divergent)",
            None,
            note_extra=f"; max {m.max_queue(t3_name(fb)):,} cells.",
        )

    # Table 4.
    for setting, q in PAPER_T4.items():
        where = f"Table 4, d = 0.7, p = 20 ms, {T4_NAMES[setting]}"
        rows += _queue_rows(
            m,
            t4_name(setting),
            q,
            f"{where}: the switch queue {_yn(q is None)} (1 = divergent)",
            f"{where}: max switch queue",
        )
    rows += _queue_rows(
        m,
        t4_name("na-z-reset"),
        PAPER_T4["na-z"],
        "Table 4 row 1 with z averaged by the paper's first method (sensitivity: the "
        "paper does not say which method the row used): the switch queue converges "
        "(1 = divergent)",
        "Table 4 row 1 with z averaged by the paper's first method (sensitivity): max switch queue",
    )
    return rows


# --------------------------------------------------------------------------------------------
# Tables, figures, notes


def table_rows(m: Measured, quick: bool) -> pd.DataFrame:
    rows = []
    for buf, (src_q, _, sw_q, mbps) in PAPER_T1.items():
        n = t1_name(buf)
        rows.append(
            {
                "table": 1,
                "case": f"source buffer {buf} cells",
                "paper_throughput_mbps": mbps,
                "throughput_mbps": round(m.goodput(n), 3),
                "paper_max_source_queue": src_q,
                "max_source_queue": m.source_queue(n),
                "paper_max_switch_queue": sw_q,
                "max_switch_queue": m.max_queue(n),
                "cells_lost_at_source": m.lost_at_source(n),
            }
        )
    for (d, p), q in PAPER_T2.items():
        n = t2_name(d, p)
        rows.append(
            {
                "table": 2,
                "case": f"d {d}, p {p} ms",
                "paper_max_switch_queue": q if q is not None else "DIVERGENT",
                "max_switch_queue": m.max_queue(n),
                "divergent": m.divergent(n)[0],
            }
        )
    for fb in t3_delays(quick):
        n = t3_name(fb)
        rows.append(
            {
                "table": 3,
                "case": f"d 0.8, p 10 ms, feedback delay {fb} ms",
                "paper_max_switch_queue": "DIVERGENT" if PAPER_T3[fb] else "small",
                "max_switch_queue": m.max_queue(n),
                "divergent": m.divergent(n)[0],
            }
        )
    for setting, q in PAPER_T4.items():
        n = t4_name(setting)
        rows.append(
            {
                "table": 4,
                "case": f"d 0.7, p 20 ms, {T4_NAMES[setting]}",
                "paper_max_switch_queue": q if q is not None else "(formerly divergent)",
                "max_switch_queue": m.max_queue(n),
                "divergent": m.divergent(n)[0],
            }
        )
    return pd.DataFrame(rows)


def html_tables(m: Measured, quick: bool) -> list[tuple[str, list[str], list[list[str]]]]:
    t1 = [
        [
            f"{buf:,}",
            f"{src_q:,}{' (overflow)' if ov else ''} | {m.source_queue(t1_name(buf)):,}"
            f"{' (overflow)' if m.lost_at_source(t1_name(buf)) else ''}",
            f"{sw_q:,} | {m.max_queue(t1_name(buf)):,}",
            f"{mbps:.2f} | {m.goodput(t1_name(buf)):.2f}",
        ]
        for buf, (src_q, ov, sw_q, mbps) in PAPER_T1.items()
    ]

    def q_text(name: str, paper: int | None) -> str:
        div = m.divergent(name)[0]
        ours = "DIVERGENT" if div else f"{m.max_queue(name):,}"
        return f"{'DIVERGENT' if paper is None else f'{paper:,}'} | {ours}"

    t2 = [[f"{d}", f"{p}", q_text(t2_name(d, p), q)] for (d, p), q in PAPER_T2.items()]
    t3 = [
        [f"{fb}", f"{'DIVERGENT' if PAPER_T3[fb] else 'small'} | "
         f"{'DIVERGENT' if m.divergent(t3_name(fb))[0] else f'{m.max_queue(t3_name(fb)):,}'}"]
        for fb in t3_delays(quick)
    ]  # fmt: skip
    t4 = [[T4_NAMES[s], q_text(t4_name(s), q)] for s, q in PAPER_T4.items()]
    t4.append(
        [T4_NAMES["na-z-reset"] + " (sensitivity)", q_text(t4_name("na-z-reset"), PAPER_T4["na-z"])]
    )
    return [
        (
            "Table 1: 15 TCPs over ABR, ERICA (500 cells, 5 ms, Na averaged), no VBR "
            "(paper | ours)",
            ["source buffer (cells)", "max source queue", "max switch queue", "throughput Mb/s"],
            t1,
        ),
        (
            "Table 2: ERICA+ (100 cells, 1 ms) with VBR ON-OFF: max switch queue (paper | ours)",
            ["duty cycle d", "period p (ms)", "max switch queue (cells)"],
            t2,
        ),
        (
            "Table 3: d = 0.8, p = 10 ms, feedback delay varied (paper's text | ours)",
            ["feedback delay (ms)", "switch queue"],
            t3,
        ),
        (
            "Table 4: d = 0.7, p = 20 ms, averaging options (paper | ours)",
            ["ERICA+ setting", "max switch queue (cells)"],
            t4,
        ),
    ]


def figures(m: Measured, out: Path, quick: bool) -> list[tuple[Path, str]]:
    figs: list[tuple[Path, str]] = []
    fig, axes = plots.figure(3, 3, size=(13, 9), sharex=True)
    for k, ((d, p), q) in enumerate(PAPER_T2.items()):
        ax = axes[k // 3][k % 3]
        name = t2_name(d, p)
        ax.plot(m.queue(name).index, m.queue(name).to_numpy(), lw=0.8, color="#1f5fa8")
        fl = queue_floor(m.queue(name))
        ax.plot(fl.index, fl.to_numpy(), "o", ms=3, color="#c0392b")
        tag = "DIVERGENT" if q is None else f"{q:,}"
        ax.set_title(f"d {d}, p {p} ms (paper: {tag})", fontsize="small")
        if k % 3 == 0:
            ax.set_ylabel("A->B queue (cells)")
        if k >= 6:
            ax.set_xlabel("time (s)")
    figs.append(
        (
            plots.save(fig, out / "table2-queues.png"),
            "Table 2: the bottleneck's queue under ERICA+ against time for each VBR pattern; "
            "red dots: the queue's floor (minimum per 100 ms) that the divergence test fits.",
        )
    )

    name = t1_name(100_000)
    res = m.res[name]
    fig, (ax1, ax2) = plots.figure(2, 1, size=(8, 7), sharex=True)
    plots.lines(ax1, res.wide("acr_mbps", "abr"), width=0.8)
    ax1.set_ylabel("ACR (Mb/s)")
    ax1.set_title("Table 1, source buffer 100,000 cells: ACR of the 15 sources")
    plots.lines(ax2, res.wide("source_queue_cells", "abr"), width=0.8)
    ax2.axhline(WINDOW_CELLS, color="k", ls="--", lw=0.8)
    ax2.text(0.01, WINDOW_CELLS, " one receiver window", va="bottom", fontsize="small")
    ax2.set_ylabel("source queue (cells)")
    ax2.set_xlabel("time (s)")
    figs.append(
        (
            plots.save(fig, out / "table1-acr-source-queue.png"),
            "Table 1, row 4: ERICA brings every source to its share within a few round trips; "
            "the TCP windows then wait at the sources, each up to about one receiver window.",
        )
    )

    fig, axes = plots.figure(1, 2, size=(12, 4))
    for fb in t3_delays(quick):
        q = m.queue(t3_name(fb))
        axes[0].plot(q.index, q.to_numpy(), lw=0.8, label=f"feedback delay {fb} ms")
    axes[0].set_title("Table 3: d 0.8, p 10 ms")
    for s in (*PAPER_T4, *T4_SENSITIVITY):
        q = m.queue(t4_name(s))
        axes[1].plot(q.index, q.to_numpy(), lw=0.8, label=T4_NAMES[s])
    axes[1].set_title("Table 4: d 0.7, p 20 ms")
    for ax in axes:
        ax.set_xlabel("time (s)")
        ax.set_ylabel("A->B queue (cells)")
        ax.legend(fontsize="small")
    figs.append(
        (
            plots.save(fig, out / "tables3-4-queues.png"),
            "Tables 3 and 4: the bottleneck's queue with the feedback delay varied, and with "
            "the averaging options of ERICA+.",
        )
    )
    return figs


def notes_md(rows: list[Claim], m: Measured, quick: bool) -> str:
    agree = sum(r.agrees for r in rows)
    t1max = t1_name(100_000)
    lines = [
        "# Kalyanaraman et al. 1996: notes",
        "",
        f"{agree} of {len(rows)} comparison rows agree within their tolerances"
        + (" (quick mode: 1.5 s runs)." if quick else " (3 s runs)."),
        "",
        "## What the paper states and atmsim follows",
        "",
        "- 15 greedy TCPs over ABR, one VC each; one bottleneck (A->B); every link 155.52 Mb/s "
        "(366,792 cells/s, the paper's 368 cells/ms) and 1000 km (5 ms): a 30 ms round trip "
        "and 10 ms of feedback delay.",
        "- TCP: MSS 512 B; 20 + 20 + 8 (LLC/SNAP) + 8 (AAL5) = 56 B of headers, so a segment "
        "is 12 cells; a 1024 KB window (24,576 cells; window scaling); no fast retransmit.",
        "- ERICA: target utilisation 0.9; intervals of (100 cells, 1 ms), or (500 cells, 5 ms) "
        "with the number of active sources averaged (An = 0.9) for Table 1. ERICA+: target 1, "
        "T0 = 500 us, a = 1.15, b = 1.05, QDLF = 0.5; Az = 0.2.",
        "- VBR: ON-OFF at 124.416 Mb/s (80% of the link) from 2 ms, duty cycle d and period p, "
        "strict priority over ABR.",
        "",
        "## Choices the paper leaves open",
        "",
        "- TCP: Reno without fast retransmit (dupack_threshold 0), an ACK per segment, a "
        "100 ms timer tick, a 200 ms minimum RTO, initial window 1 segment.",
        "- ABR end systems: TM 4.0's defaults (ICR = PCR, Nrm 32, Mrm 2, Trm 100 ms, "
        "RIF = RDF = 1/16, ADTF 0.5 s, TBE 16,777,215, CDF 1/16, TCR 10 cells/s), FRTT the "
        "path's 30 ms. The ACK VC is ABR too; each destination turns forward RM cells round "
        "in rate onto the opposite VC (TM 4.0 source rule 3b).",
        "- ERICA's overload hysteresis delta = 0.1 and its max-min step (in underload, at "
        "least the largest ER of the previous interval), as in its complete description; no "
        "one-feedback-per-interval option.",
        "- Switch buffers unlimited; priority scheduler with FIFO queues per class.",
        "- Run length and statistics: "
        + ("1.5 s, throughput from 0.5 s" if quick else "3 s, throughput from 1 s")
        + " (the paper gives neither); maxima over the whole run.",
        "- Divergence: decided by the stated trend test in `divergent()` (the floor of the "
        "queue, its minimum per 100 ms after the first third of the run, climbs steadily and "
        "never returns to zero in the last half), not by a threshold on its size.",
        "",
        "## Rows that disagree, and what is known about them",
        "",
    ]
    bad = [r for r in rows if not r.agrees]
    if not bad:
        lines.append("None.")
    for r in bad:
        lines.append(f"- **{r.claim}**: paper {r.paper}, ours {r.measured:g} {r.unit}. {r.note}")
    lines += [
        "",
        "### Table 1 throughput and ERICA's overload band",
        "",
        f"With a 100,000-cell source queue our 15 TCPs get {m.goodput(t1max):.1f} Mb/s, above "
        "the paper's 110.9 Mb/s (its 90% target in link arithmetic: the product it gives, "
        f"155.52 x 0.9 x 48/53 x 512/568 x 31/32, is {MAX_TCP_MBPS:.2f} Mb/s). The ERICA "
        "series of the run show why the rate settles above 90%: the load factor z at A->B "
        f"averages {m.mean_load(t1max):.3f} over the measured second, inside ERICA's band "
        "1 < z <= 1 + delta, where ERICA gives every VC at least the largest rate it gave in "
        "the previous interval, so the sources keep their rates. The same run with delta = 0 "
        f"(`{T1_DELTA0}`) gives {m.goodput(T1_DELTA0):.1f} Mb/s (z "
        f"{m.mean_load(T1_DELTA0):.3f}), a source-queue maximum of "
        f"{m.source_queue(T1_DELTA0):,} cells and a switch-queue maximum of "
        f"{m.max_queue(T1_DELTA0):,} cells (paper 17,171; ours with the band "
        f"{m.max_queue(t1max):,}). Whether the paper's ERICA had this band for this table is "
        "not stated, and the switch-queue maximum is below the paper's either way, so the "
        "band is not named as the cause; we keep delta = 0.1 (the ERICA description's "
        "value) and report the difference.",
        "",
        "### Table 1 rows 1-3: small source queues",
        "",
        "With source queues smaller than a window, the throughput is set by how TCP recovers "
        "from the cells the full queue drops: every frame that meets the full queue loses "
        "cells, so a window that overflows loses many segments at once, and our TCP (no fast "
        "retransmit, as the paper's) recovers by timeouts with backoff. The paper gives "
        "neither its TCP timer and RTO floor nor its run length, and these rows move with "
        "them: in these runs the 1,000-cell row gets "
        f"{m.goodput(t1_name(1_000)):.1f} Mb/s with a Jain index of "
        f"{m.fairness(t1_name(1_000)):.2f} (some sources recover early and take the rate "
        "ERICA re-allocates), while the 10,000-cell row loses "
        f"{m.lost_at_source(t1_name(10_000)) / len(SOURCES):,.0f} cells per source and gets "
        f"{m.goodput(t1_name(10_000)):.1f} Mb/s (backed-off timeouts); the quick and full "
        "runs order them differently. What the paper's rows show (a full source queue drops cells, "
        "the switch queue stays bounded, throughput below the maximum) holds in every row; "
        "the throughputs themselves are not reproduced, and we do not know which of the "
        "unstated TCP details is responsible. The switch-queue maximum of the 100-cell row "
        "is also far below the paper's (a 100-cell source queue lets each source put little "
        "more than its share into the network while TCP is still in slow start); the paper "
        "does not say what raised its own to 0.78 RTT.",
        "",
        t1_runs_text(m, quick),
        "",
        "### Table 4 row 1: which average of the load factor",
        "",
        "The paper describes two ways of averaging the load factor z (an exponential average "
        "of z restarted at 0 or infinity, and the ratio of the separately averaged input rate "
        "and capacity, which it calls the theoretically right one) but does not say which "
        "Table 4 used. Ours runs the ratio method, averaging rates as the paper words it (an "
        "interval here ends after 100 ABR cells or 1 ms, so intervals differ in length about "
        "fourfold between the VBR source's OFF and ON periods, and averaging their cell counts "
        "instead would weight the ON periods' long intervals about four times more). Row 1: "
        + _t4_verdict(m, "na-z")
        + "; with the first method: "
        + _t4_verdict(m, "na-z-reset")
        + ". Row 2 (longer intervals, Na averaged, z not): "
        + _t4_verdict(m, "na-500")
        + ".",
    ]
    return "\n".join(lines) + "\n"


def t1_runs_text(m: Measured, quick: bool) -> str:
    """What Table 1's rows give run again: longer, and with whole frames lost at the source.
    Every sentence that explains follows from the runs' own numbers (the quick runs are too
    short for some of them)."""
    long = QUICK_LONG_OVERRIDES if quick else LONG_OVERRIDES
    span = f"{long['run.duration']}, throughput from {long['run.warmup']}"
    bufs = list(PAPER_T1)

    def mbps(names: list[str]) -> str:
        return " / ".join(f"{m.goodput(n):.1f}" for n in names)

    def agrees(name: str, buf: int) -> bool:
        return TOL_T1_LOSSY_RATE.check(m.goodput(name), PAPER_T1[buf][3])

    paper = " / ".join(f"{row[3]:g}" for row in PAPER_T1.values())
    long_cells = [t1_variant(b, "cells", True) for b in bufs]
    rates = [m.goodput(n) for n in long_cells]
    rising = all(a < b for a, b in zip(rates, rates[1:], strict=False))
    above = sum(r > row[3] for r, row in zip(rates, PAPER_T1.values(), strict=True))
    out = [
        f"Over a longer run ({span}; not the paper's rows, which give no run length) the "
        f"four rows give {mbps(long_cells)} Mb/s (source queues of "
        + " / ".join(f"{b:,}" for b in bufs)
        + f" cells; paper {paper}; the table's own runs here {mbps([t1_name(b) for b in bufs])}): "
        + (
            "rising with the source queue, as the paper observes"
            if rising
            else "not rising with the source queue at every step, as the paper observes it does"
        )
        + f", and above the paper's value in {above} of {len(bufs)} rows."
    ]
    row3 = 10_000
    std, lng = t1_name(row3), t1_variant(row3, "cells", True)
    # A start-up episode: the table's span has the row's timeouts, the longer run's later span
    # has none, and the row gets less than half of what it gets there.
    startup = m.timeouts(std) >= 1 and m.timeouts(lng) == 0 and m.goodput(std) < m.goodput(lng) / 2
    out.append(
        f"In the table's run the {row3:,}-cell row gets {m.goodput(std):.1f} Mb/s: each source "
        f"times out {m.timeouts(std):.1f} times in the measured span, "
        f"{m.corrupted(std):,} frames reach the receivers corrupted, and "
        f"{m.lost_at_source(std) / len(SOURCES):,.0f} cells a source are lost at the source "
        f"queue from the start; over the longer run, after {long['run.warmup']}, "
        f"{m.timeouts(lng):.1f} timeouts a source and {m.corrupted(lng):,} corrupted frames, "
        f"at {m.goodput(lng):.1f} Mb/s"
        + (
            ": the table's figure is the row's start-up, slow start overflowing every source "
            "queue once, caught in the measured span."
            if startup
            else "."
        )
    )
    frames = [t1_variant(b, "frames", False) for b in T1_OVERFLOWING]
    frames_long = [t1_variant(b, "frames", True) for b in T1_OVERFLOWING]
    fr3 = t1_variant(row3, "frames", False)
    corrupted = sum(m.corrupted(n) for n in frames + frames_long)
    merged = m.timeouts(fr3) < m.timeouts(std) and m.corrupted(std) > 0 == m.corrupted(fr3)
    out.append(
        'With the source queues losing whole frames (`abr.source_drop = "frames"`: a frame '
        "that does not fit whole is lost whole, as a host or edge router that queues packets "
        "would; the paper says cells are dropped) the overflowing rows give "
        f"{mbps(frames)} Mb/s in the table's runs (paper "
        + " / ".join(f"{PAPER_T1[b][3]:g}" for b in T1_OVERFLOWING)
        + f") and {mbps(frames_long)} Mb/s over the longer run, with "
        + ("no frame corrupted" if corrupted == 0 else f"{corrupted:,} frames corrupted")
        + f". In the {row3:,}-cell row the timeouts a source in the measured span go from "
        f"{m.timeouts(std):.1f} to {m.timeouts(fr3):.1f} and the throughput from "
        f"{m.goodput(std):.1f} to {m.goodput(fr3):.1f} Mb/s"
        + (
            ": a frame that lost its last cells in the full queue corrupts the next frame of "
            "its VC at the receiver's AAL5, and when that next frame is a retransmission it "
            "too goes unacknowledged and the backed-off timer must fire again; whole-frame "
            "losses corrupt nothing and save that timeout."
            if merged
            else "."
        )
    )
    named = [
        reading
        for reading, names in (("the longer run", long_cells[:3]), ("whole frames", frames))
        if all(agrees(n, b) for n, b in zip(names, T1_OVERFLOWING, strict=True))
    ]
    out.append(
        "Neither reading gives the paper's throughputs for the overflowing rows within the "
        "table's 15%, so neither is named as the cause."
        if not named
        else f"Within the table's 15% the overflowing rows agree under: {', '.join(named)}."
    )
    return "### Table 1 run again: longer, and losing whole frames at the source\n\n" + " ".join(
        out
    )


def _t4_verdict(m: Measured, setting: str) -> str:
    """Whether a Table 4 run's switch queue converges, and its maximum, for the notes."""
    name = t4_name(setting)
    div, _ = m.divergent(name)
    paper = PAPER_T4.get(setting)
    return (
        ("the queue keeps growing" if div else "the queue converges")
        + f", maximum {m.max_queue(name):,} cells"
        + (f" (paper {paper:,})" if paper else "")
    )


# --------------------------------------------------------------------------------------------
# Entry points


def main(
    out_dir: str | os.PathLike[str],
    quick: bool = False,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
) -> int:
    """Run the reproduction and write its outputs into ``out_dir``; returns 0 (rows that
    disagree are results, reported in comparison.csv and notes.md)."""
    return run_reproduction(
        "kalyanaraman1996", jobs(quick), build, out_dir, quick, workers, scheduler
    )


def report(out_dir: str | os.PathLike[str]) -> int:
    """Rebuild the outputs of an earlier run from the runs stored in ``out_dir``."""
    return rebuild_reproduction(jobs, build, out_dir)


def build(
    out: Path,
    quick: bool,
    js: list[Job],
    results: list[Any],
    runs_s: float,
    n_workers: int,
    clock: Stopwatch | None = None,
) -> int:
    """Everything after the runs: measurements, comparison, tables, figures, notes, report."""
    m = measure(js, results)
    rows = claims(m, quick)
    atomic_write(out / "tables.csv", table_rows(m, quick).to_csv(index=False))
    figs = figures(m, out / "figures", quick)
    meta = {
        "paper": "Kalyanaraman, Jain, Fahmy, Goyal, Jiang & Kim, ATM Forum 96-1294 (1996)",
        "mode": "quick (1.5 s runs)" if quick else "full (3 s runs)",
    }
    intro = (
        "Fifteen greedy TCPs over ABR share one OC-3 bottleneck on 1000 km links. Table 1: "
        "ERICA pushes the TCP windows out to the sources' queues; Tables 2-4: ERICA+ against "
        "a VBR ON-OFF background, where some patterns make the switch queue diverge. Each "
        "row states its tolerance, fixed before measuring (reasons in "
        "`atmsim/reproduce/kalyanaraman1996.py`)."
    )
    return publish(
        out, "kalyanaraman1996", TITLE, rows, figs, notes_md(rows, m, quick), js, meta,
        quick=quick, runs_s=runs_s, n_workers=n_workers, intro=intro,
        tables=html_tables(m, quick), clock=clock or Stopwatch(), results=results,
        scenarios=[js[0], js[len(PAPER_T1)]],
    )  # fmt: skip
