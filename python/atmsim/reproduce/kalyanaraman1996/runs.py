"""The runs of the Kalyanaraman et al. 1996 reproduction: Table 1's source buffers under
ERICA, Table 2's VBR patterns under ERICA+, Table 3's feedback delays, Table 4's averaging
options, and the reruns the notes use (Table 1 longer, and with whole frames lost at the
source)."""

from __future__ import annotations

from typing import Any

from atmsim.reproduce.framework import Job
from atmsim.reproduce.kalyanaraman1996.published import T1, T2, T3_CASE, T4_CASE

TABLE1 = "kalyanaraman1996-table1"
TABLE2 = "kalyanaraman1996-table2"
BOTTLENECK = "A->B"
SOURCES = tuple(f"s{i}" for i in range(1, 16))

FULL_OVERRIDES = {"run.duration": "3 s", "run.warmup": "1 s"}
#: The series of the long runs' account (:data:`LONG_OVERRIDES`).
ACCOUNT_METRICS = ["goodput_mbps", "source_queue_cells"]
#: --quick: 1.5 s runs, statistics from 0.5 s.
QUICK_OVERRIDES = {"run.duration": "1.5 s", "run.warmup": "0.5 s"}

#: Table 1's rows run again for the notes (not the paper's rows: it gives no run length and
#: says only that "cells are dropped" at the source): over a longer run, with throughput from
#: well after the start-up, and with the source queues losing whole frames. Totals only.
#: The series they keep, every 10 ms, are the account of their overflow cycles: each source's
#: goodput (a sample with none is a span without progress) and its source queue.
_ACCOUNT_SERIES = {"run.sample_every": "10 ms", "run.sample_metrics": ACCOUNT_METRICS}
LONG_OVERRIDES = {"run.duration": "20 s", "run.warmup": "5 s", **_ACCOUNT_SERIES}
QUICK_LONG_OVERRIDES = {"run.duration": "6 s", "run.warmup": "3 s", **_ACCOUNT_SERIES}
#: The rows whose source queues overflow, which the frame-dropping runs repeat.
T1_OVERFLOWING = tuple(b for b, row in T1.items() if row[1])

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

_QUEUE = ("queue_cells",)
_ABR = ("queue_cells", "acr_mbps", "source_queue_cells", "load_factor")


def _vbr(d: float, p_ms: int) -> dict[str, Any]:
    return {"kind": "on_off", "rate": "124.416 Mb/s", "period": f"{p_ms} ms", "duty_cycle": d}


#: Table 1's readings of the sources' side (sensitivity readings: none is the main one, see
#: the notes). "edge": the source queue is an edge router's, fed by its TCP host over a
#: 155.52 Mb/s access line (the paper's "edge routers which are not directly connected to TCP
#: sources"; every link of its network runs at 155 Mb/s), so a window reaches the queue at the
#: line's rate, cell by cell, not at once. "jitter": the 15 TCPs start at times drawn
#: uniformly from [0, 30 ms] (one round trip; the paper states no start times, the main runs
#: start all at 0). "edge-jitter": both. "jitter-300" and "edge-jitter-300": the starts
#: spread over ten round trips instead, [0, 300 ms] (every source still started well before
#: the statistics begin at 1 s): whether a wider spread, not only a first one, moves a row.
EDGE = {"abr.access_rate": "155.52 Mb/s"}
JITTER = {"connection.*.start_jitter": "30 ms"}
WIDE_JITTER = {"connection.*.start_jitter": "300 ms"}
READINGS: dict[str, dict[str, str]] = {
    "edge": EDGE,
    "jitter": JITTER,
    "edge-jitter": {**EDGE, **JITTER},
    "jitter-300": WIDE_JITTER,
    "edge-jitter-300": {**EDGE, **WIDE_JITTER},
}
READING_NAMES = {
    "edge": "an edge router fed by a 155.52 Mb/s access line",
    "jitter": "starts drawn from [0, 30 ms]",
    "edge-jitter": "both",
    "jitter-300": "starts drawn from [0, 300 ms]",
    "edge-jitter-300": "the edge router and starts from [0, 300 ms]",
}
#: The readings with random starts run with these seeds (the scenario's seed 1 first; --quick:
#: seed 1 only): one draw of the starts is one case of many.
READING_SEEDS = (1, 2, 3, 4, 5)
#: The reading whose long runs (:data:`LONG_OVERRIDES`) the overflow account repeats.
LONG_READING = "edge"


def _account(long: bool) -> tuple[str, ...]:
    """The series a Table 1 rerun keeps: the account's over the long run, none otherwise."""
    return tuple(ACCOUNT_METRICS) if long else ()


def t1_name(buf: int) -> str:
    return f"table1-buf{buf}"


def t1_variant(buf: int, drop: str, long: bool) -> str:
    """A Table 1 row run again: its source queue losing ``drop`` ("cells", as the paper says,
    or whole "frames"), over the table's run or over :data:`LONG_OVERRIDES`' longer one."""
    return f"table1-buf{buf}-{drop}" + ("-long" if long else "")


def t1_reading(buf: int, reading: str, long: bool = False, seed: int = 1) -> str:
    """A Table 1 row under one of :data:`READINGS`, over the table's run or the long one, with
    the scenario's seed (1) or another."""
    return (
        f"table1-buf{buf}-{reading}"
        + ("-long" if long else "")
        + (f"-seed{seed}" if seed != 1 else "")
    )


def reading_seeds(reading: str, quick: bool) -> tuple[int, ...]:
    """The seeds a reading runs with: :data:`READING_SEEDS` if its starts are random (full
    mode), the scenario's seed 1 otherwise."""
    random = "connection.*.start_jitter" in READINGS[reading]
    return READING_SEEDS if random and not quick else (1,)


def t1_readings(quick: bool) -> list[tuple[int, str, bool, int]]:
    """(buffer, reading, long, seed) of each reading's run: every row of Table 1 under every
    reading and each of its seeds, and the overflowing rows over the long run under
    :data:`LONG_READING` (--quick: the 1,000-cell row only, the one the account compares
    with the paper)."""
    out = [
        (buf, r, False, seed) for r in READINGS for seed in reading_seeds(r, quick) for buf in T1
    ]
    return out + [(buf, LONG_READING, True, 1) for buf in account_rows(quick)]


def account_rows(quick: bool) -> tuple[int, ...]:
    """The rows the long account runs under :data:`LONG_READING`."""
    return (1_000,) if quick else T1_OVERFLOWING


def t2_name(d: float, p: int) -> str:
    return f"table2-d{d}-p{p}"


def t3_name(fb: int) -> str:
    return t2_name(*T3_CASE) if fb == 10 else f"table3-fb{fb}ms"


def t4_name(setting: str) -> str:
    return f"table4-{setting}"


def t3_delays(quick: bool) -> tuple[int, ...]:
    return (1, 10) if quick else (1, 5, 10)


def long_overrides(quick: bool) -> dict[str, str]:
    return dict(QUICK_LONG_OVERRIDES if quick else LONG_OVERRIDES)


def t1_variants(quick: bool) -> list[tuple[int, str, bool, dict[str, Any]]]:
    """(buffer, drop, long, overrides) of each extra Table 1 run."""
    ov = dict(QUICK_OVERRIDES if quick else FULL_OVERRIDES)
    long = long_overrides(quick)
    out = [(buf, "cells", True, long) for buf in T1]
    for is_long, base in ((False, {**ov, "run.sample_every": "1 s"}), (True, long)):
        out += [(buf, "frames", is_long, base) for buf in T1_OVERFLOWING]
    return out


def jobs(quick: bool) -> list[Job]:
    """The runs of the reproduction, in a fixed order."""
    ov = dict(QUICK_OVERRIDES if quick else FULL_OVERRIDES)
    out = []
    for buf in T1:
        over = {**ov, "abr.source_buffer": f"{buf} cells"}
        out.append(
            Job(TABLE1, over, label=t1_name(buf), metrics=_ABR, entities=(*SOURCES, BOTTLENECK))
        )
    for buf, drop, long, base in t1_variants(quick):
        over = {**base, "abr.source_buffer": f"{buf} cells", "abr.source_drop": drop}
        name = t1_variant(buf, drop, long)
        out.append(Job(TABLE1, over, label=name, metrics=_account(long), entities=SOURCES))
    for buf, reading, long, seed in t1_readings(quick):
        base = long_overrides(quick) if long else ov
        over = {**base, "abr.source_buffer": f"{buf} cells", **READINGS[reading]}
        name = t1_reading(buf, reading, long, seed)
        job = Job(
            TABLE1,
            over,
            seed=None if seed == 1 else seed,
            label=name,
            metrics=_account(long),
            entities=SOURCES,
        )
        out.append(job)
    over = {
        **ov,
        "abr.source_buffer": "100000 cells",
        "switch.*.rate_control": {**_T1_RATE_CONTROL, "delta": 0.0},
    }
    out.append(Job(TABLE1, over, label=T1_DELTA0, metrics=_ABR, entities=(BOTTLENECK,)))
    for d, p in T2:
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


def shown(js: list[Job]) -> list[Job]:
    """The runs whose scenarios the report shows: Table 1's and Table 2's first."""
    return [js[0], js[len(T1)]]
