"""The comparison rows of the Kalyanaraman et al. 1996 reproduction, each naming its table,
with the tolerances fixed (and argued) before measuring; never widened to make a row agree."""

from __future__ import annotations

from collections.abc import Callable

from atmsim.reproduce.framework import Claim, absolute, at_most, between, compare, factor, rel
from atmsim.reproduce.kalyanaraman1996.measure import Measured
from atmsim.reproduce.kalyanaraman1996.published import (
    RTT,
    SWITCH_BOUND_RTTS,
    T1,
    T2,
    T3,
    T4,
    WINDOW,
)
from atmsim.reproduce.kalyanaraman1996.runs import (
    T4_NAMES,
    t1_name,
    t2_name,
    t3_delays,
    t3_name,
    t4_name,
)

RTT_CELLS = RTT.value
WINDOW_CELLS = WINDOW.value

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
TOL_UNDER_3RTT = at_most(SWITCH_BOUND_RTTS.value * RTT_CELLS)


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


def table1_rows(m: Measured, name_of: Callable[[int], str] = t1_name) -> list[Claim]:
    """Table 1's rows (every criterion of every row, and the 3 x RTT bound over the rows) for
    the runs ``name_of(buffer)``: the table's own, or a reading's."""
    rows: list[Claim] = []
    for buf, (src_q, overflow, sw_q, mbps) in T1.items():
        name = name_of(buf)
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
    worst = max(m.max_queue(name_of(b)) for b in T1)
    rows.append(
        compare(
            "Table 1: the switch queue stays under 3 x RTT (33,120 cells) in every row",
            paper="< 33,120",
            measured=float(worst),
            unit="cells",
            tol=TOL_UNDER_3RTT,
        )
    )
    return rows


def claims(m: Measured, quick: bool = False) -> list[Claim]:
    """The comparison rows, each naming its table."""
    rows: list[Claim] = []

    # Table 1.
    rows += table1_rows(m)

    # Table 2.
    for (d, p), q in T2.items():
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
        want = T3[fb]
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
    for setting, q in T4.items():
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
        T4["na-z"],
        "Table 4 row 1 with z averaged by the paper's first method (sensitivity: the "
        "paper does not say which method the row used): the switch queue converges "
        "(1 = divergent)",
        "Table 4 row 1 with z averaged by the paper's first method (sensitivity): max switch queue",
    )
    return rows
