"""The sensitivity study of the Cheon & Panwar 1998 reproduction: each choice the paper
leaves open (and two combinations of them), and AAL5's own 8-byte trailer in place of the
paper's stated 14 bytes (what atmsim's model used before it followed the paper there), run on
the points that carry the paper's five criteria and scored on all five at once.

The criteria, each with the paper's value and the rule it is held to:

1. **Totals**: the sum of effective throughput, as a share of the maximum, of Tables 1-4 at
   their first column (EPD 95% and ESPD 95/90, 500 and 1,500 B): each within 5 points.
2. **Threshold insensitivity**: EPD's best sum minus its worst over the thresholds 95, 90, 80
   and 70% of the buffer (Tables 1 and 2), the measure Section 4 states ("the best ... gets
   only an 1% improvement over the worst ... within the threshold range of 70 to 95%"; 3%
   at 1,500 B): no larger than the paper's 1 and 3 points plus 2 (the paper's claim is that
   EPD is *not* sensitive; a smaller spread agrees with it). The main comparison's
   "spread of the sums over thresholds 70-95%" rows hold the same rule.
3. **Round-trip group shares**: each group's share of the packets under EPD and ESPD at
   500 B (Tables 1 and 3, first column): within 5 points of the paper's.
4. **ESPD's gain over EPD**: ESPD's sum minus EPD's at 500 and 1,500 B positive, as the paper
   finds (15 and 3 points).
5. **Window synchronisation**: under EPD (500 B) most sessions cut together (of the other
   sessions, more than half cut their windows within one RTT of a session's cut), and ESPD
   coordinates the cuts less than EPD (that share's excess over independence is smaller).

A variant explains the paper only if all five hold with the paper's five seeds; it is named
as the cause only if they hold again on each set of further seeds (``SEEDS_HELD_OUT``), run for
the readings in ``HELD_OUT_VARIANTS``. The tolerances are the main reproduction's (reasons in
``cheon1998``). The main model is the faithful reading and stays as it is; the study reports
which choice, if any, reproduces the paper's behaviour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from atmsim.reproduce.common import Job

#: (table, column) of the runs the criteria need: EPD 95, 90, 80 and 70% (Tables 1-2), ESPD
#: 95/90 (Tables 3-4).
POINTS = ((1, 0), (1, 1), (1, 2), (1, 3), (2, 0), (2, 1), (2, 2), (2, 3), (3, 0), (4, 0))
#: The threshold columns of Tables 1-2 over which Section 4 measures EPD's sensitivity
#: (95, 90, 80, 70%), and its best-minus-worst there, by table, as the text states it.
THRESHOLD_COLUMNS = (0, 1, 2, 3)
PAPER_THRESHOLD_SPREAD = {1: 1, 2: 3}
#: The paper's five seeds (its tables are means over five runs).
SEEDS_FULL = (1, 2, 3, 4, 5)
SEEDS_QUICK = (1,)
#: Further sets of five seeds on which the readings of ``HELD_OUT_VARIANTS`` are scored again,
#: so that a reading holding every criterion is not one the paper's seeds happen to favour.
#: A reading is named only if it holds on every set. The second set was added together with
#: the best-minus-worst threshold criterion, before it had been run: on the first set the
#: closest reading held that criterion by less than its seed-to-seed noise.
SEEDS_HELD_OUT = ((6, 7, 8, 9, 10), (11, 12, 13, 14, 15))
#: Ten more sets of five (seeds 16-65) on which the readings of ``HELD_OUT_VARIANTS`` are
#: scored, added after the held-out sets had been run: how often a reading that held on the
#: paper's seeds holds on a set of five, and what it gives over fifty seeds pooled. They say
#: how typical the paper's seeds are of a reading; the rule by which one is named (every
#: criterion on SEEDS_FULL and on each of SEEDS_HELD_OUT) stays as it was.
SEEDS_FURTHER = tuple(tuple(range(16 + 5 * i, 21 + 5 * i)) for i in range(10))

#: The variants: name -> (what it changes, overrides for every point, overrides for the
#: EPD points only).
VARIANTS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "main": ("the main model (the paper's stated parameters, standard choices elsewhere)", {}, {}),
    "ack_timer_only": (
        "receivers acknowledge in-order data only when the 12.5 ms wait expires "
        "(tcp.ack_every = 0)",
        {"tcp.ack_every": 0},
        {},
    ),
    "ack_periodic": (
        "receivers' held ACKs go out at the ticks of a 12.5 ms clock every host shares (the "
        "paper's 'at most 12.5 ms' read as BSD's periodic fast timer; tcp.ack_clock = "
        '"periodic")',
        {"tcp.ack_clock": "periodic"},
        {},
    ),
    "ack_periodic_timer_only": (
        "the periodic 12.5 ms clock as the only acknowledger of in-order data "
        '(tcp.ack_clock = "periodic", tcp.ack_every = 0)',
        {"tcp.ack_clock": "periodic", "tcp.ack_every": 0},
        {},
    ),
    "ack_periodic_per_host_timer_only": (
        "timer-only ACKs from a periodic 12.5 ms clock whose phase differs from host to host "
        '(tcp.ack_clock = "periodic_per_host", tcp.ack_every = 0): what the shared clock\'s '
        "common phase does to the readings above",
        {"tcp.ack_clock": "periodic_per_host", "tcp.ack_every": 0},
        {},
    ),
    "ack_every_8": (
        "receivers acknowledge every 8th in-order segment at once (tcp.ack_every = 8)",
        {"tcp.ack_every": 8},
        {},
    ),
    "coarse_timer": (
        'a BSD 500 ms retransmission timer (tcp.timer = "500 ms")',
        {"tcp.timer": "500 ms"},
        {},
    ),
    "min_rto_500ms": (
        'a 500 ms minimum RTO (tcp.min_rto = "500 ms")',
        {"tcp.min_rto": "500 ms"},
        {},
    ),
    "classic_reno": (
        "4.3BSD-Reno without RFC 6582's check on recover (tcp.recover_guard = false)",
        {"tcp.recover_guard": False},
        {},
    ),
    "discard_ooo": (
        'receivers that discard segments beyond a hole (tcp.out_of_order = "discard")',
        {"tcp.out_of_order": "discard"},
        {},
    ),
    "sonet": (
        "links that carry cells at the SONET payload rate, 149.76 of 155.52 Mb/s "
        '(link.*.framing = "sonet"; maxima still counted at 155.52)',
        {"link.*.framing": "sonet"},
        {},
    ),
    "rfc793_reno": (
        "the paper's TCP read literally: OPNET's RFC 793 model, whose receivers may drop "
        "segments beyond a hole, with 4.3BSD-Reno's algorithms added, no check on recover "
        '(tcp.out_of_order = "discard", tcp.recover_guard = false; fine timer as stated)',
        {"tcp.out_of_order": "discard", "tcp.recover_guard": False},
        {},
    ),
    "aal5_trailer": (
        "AAL5's 8-byte trailer alone instead of the paper's 14 bytes per datagram (the same "
        'cells per data packet, a bare ACK in one cell instead of two; host.aal_overhead = "8 B")',
        {"host.aal_overhead": "8 B"},
        {},
    ),
    "epd_exceeds": (
        "EPD refuses frames only above the threshold, as the paper words it "
        '(policy compare = "above")',
        {},
        {"switch.*.policy.compare": "above"},
    ),
    "growth_per_segment": (
        "cwnd grown by one step per segment each ACK acknowledges, not per ACK, as Reno's "
        "algorithms added to an RFC 793 model might count them "
        '(tcp.cwnd_growth = "per_segment")',
        {"tcp.cwnd_growth": "per_segment"},
        {},
    ),
    "ack_timer_only+growth_per_segment": (
        "timer-only ACKs with cwnd grown per segment acknowledged, so that the sparse ACKs "
        "do not also slow the windows' growth "
        '(tcp.ack_every = 0, tcp.cwnd_growth = "per_segment")',
        {"tcp.ack_every": 0, "tcp.cwnd_growth": "per_segment"},
        {},
    ),
    "reno_eighth": (
        "Reno's congestion avoidance as 4.3BSD-Reno and 4.4BSD had it, MSS^2/cwnd + MSS/8 per "
        'ACK (tcp.cwnd_growth = "per_ack_plus_eighth")',
        {"tcp.cwnd_growth": "per_ack_plus_eighth"},
        {},
    ),
    "reno_eighth_periodic": (
        "that avoidance step with held ACKs sent at the ticks of a 12.5 ms clock every host "
        'shares (tcp.cwnd_growth = "per_ack_plus_eighth", tcp.ack_clock = "periodic")',
        {"tcp.cwnd_growth": "per_ack_plus_eighth", "tcp.ack_clock": "periodic"},
        {},
    ),
    "bsd_reno": (
        "BSD's Reno as TCP/IP Illustrated vol. 1 (in the paper's references) describes it: "
        "avoidance steps of MSS^2/cwnd + MSS/8 per ACK, held ACKs sent at the ticks of a "
        "periodic clock (12.5 ms here), no check on recover "
        '(tcp.cwnd_growth = "per_ack_plus_eighth", tcp.ack_clock = "periodic", '
        "tcp.recover_guard = false)",
        {
            "tcp.cwnd_growth": "per_ack_plus_eighth",
            "tcp.ack_clock": "periodic",
            "tcp.recover_guard": False,
        },
        {},
    ),
    "bsd_reno_per_host_clock": (
        "bsd_reno with each receiving host's delayed-ACK clock at a phase of its own: "
        "whether its match needs every host's clock to tick together "
        '(tcp.cwnd_growth = "per_ack_plus_eighth", tcp.ack_clock = "periodic_per_host", '
        "tcp.recover_guard = false)",
        {
            "tcp.cwnd_growth": "per_ack_plus_eighth",
            "tcp.ack_clock": "periodic_per_host",
            "tcp.recover_guard": False,
        },
        {},
    ),
    "ip_both_ways": (
        "the paper's IP service rate (10,500 or 4,000 packets/s) applied to received packets "
        "too, one FIFO with the sent ones, so ACKs wait behind the segments a window "
        'released (host.ip_directions = "both"; the paper says only that IP serves that rate)',
        {"host.ip_directions": "both"},
        {},
    ),
    "bsd_reno+ip_both_ways": (
        "bsd_reno with the IP service on both directions "
        '(tcp.cwnd_growth = "per_ack_plus_eighth", tcp.ack_clock = "periodic", '
        'tcp.recover_guard = false, host.ip_directions = "both")',
        {
            "tcp.cwnd_growth": "per_ack_plus_eighth",
            "tcp.ack_clock": "periodic",
            "tcp.recover_guard": False,
            "host.ip_directions": "both",
        },
        {},
    ),
    "ack_timer_only+coarse_timer": (
        "timer-only ACKs with a 500 ms timer (the two that lower the totals most together)",
        {"tcp.ack_every": 0, "tcp.timer": "500 ms"},
        {},
    ),
    "simple_1990s_tcp": (
        "a simple simulator TCP of the 1990s: 500 ms timer, no recover check, out-of-order "
        "segments discarded",
        {"tcp.timer": "500 ms", "tcp.recover_guard": False, "tcp.out_of_order": "discard"},
        {},
    ),
}
#: Quick mode scores the main model and the reading the notes discuss (cheon1998.ALTERNATIVE).
QUICK_VARIANTS = ("main", "bsd_reno")
#: The readings scored again on SEEDS_HELD_OUT (full mode): those that held all five criteria
#: on the paper's seeds when the MSS/8 readings were first run.
HELD_OUT_VARIANTS = ("bsd_reno", "reno_eighth_periodic")

CRITERIA = (
    "totals",
    "threshold insensitivity",
    "group shares",
    "ESPD gain",
    "synchronisation",
)


def variants(quick: bool) -> tuple[str, ...]:
    return QUICK_VARIANTS if quick else tuple(VARIANTS)


def seeds(quick: bool) -> tuple[int, ...]:
    return SEEDS_QUICK if quick else SEEDS_FULL


def label(variant: str, table: int, col: int, seed: int) -> str:
    return f"study-{variant}-t{table}c{col}-s{seed}"


def held_out(quick: bool) -> tuple[str, ...]:
    """The variants scored again on SEEDS_HELD_OUT (none in quick mode)."""
    return () if quick else HELD_OUT_VARIANTS


def jobs(tables: Any, quick: bool) -> list[Job]:
    """The study's runs (``tables``: the reproduction's TABLES)."""
    out = []
    runs = [(v, seeds(quick)) for v in variants(quick)]
    runs += [(v, seed_set) for v in held_out(quick) for seed_set in SEEDS_HELD_OUT + SEEDS_FURTHER]
    for v, seed_set in runs:
        _, every, epd_only = VARIANTS[v]
        for number, col in POINTS:
            t = tables[number - 1]
            extra = epd_only if t.scheme == "epd" else {}
            for seed in seed_set:
                out.append(
                    Job(
                        t.base,
                        {**t.overrides(col), **every, **extra, "run.sample_every": "100 ms"},
                        seed=seed,
                        label=label(v, number, col, seed),
                        metrics=(),
                        entities=(),
                    )
                )
    return out


@dataclass
class Score:
    """One variant on the five criteria: (holds, "paper | ours" text) each, with the seeds
    it was scored on (empty: the study's own)."""

    variant: str
    criteria: dict[str, tuple[bool, str]]
    seeds: tuple[int, ...] = ()

    @property
    def explains(self) -> bool:
        return all(ok for ok, _ in self.criteria.values())


@dataclass
class Scored:
    """Every score the study makes: the variants on the study's seeds (``scores``), and the
    HELD_OUT_VARIANTS on each set of SEEDS_HELD_OUT (``held``), on the study's seeds and those
    pooled (``both``), on each set of SEEDS_FURTHER (``further``) and on those pooled
    (``further_pooled``)."""

    scores: list[Score]
    held: list[Score] = field(default_factory=list)
    both: list[Score] = field(default_factory=list)
    further: list[Score] = field(default_factory=list)
    further_pooled: list[Score] = field(default_factory=list)


def score(
    variant: str,
    by_label: dict[str, Any],
    tables: Any,
    point: Any,
    max_packets: Any,
    tolerances: dict[str, Any],
    quick: bool,
    seed_set: tuple[int, ...] | None = None,
) -> Score:
    """Scores ``variant`` from its runs (``point``, ``max_packets``: the reproduction's
    summaries; ``tolerances``: its rules, by name) on ``seed_set`` (default: the study's)."""
    use = seed_set if seed_set is not None else seeds(quick)
    pts = {(n, c): point([by_label[label(variant, n, c, s)] for s in use]) for n, c in POINTS}

    def pct(n: int, c: int) -> float:
        p = pts[(n, c)]
        return float((p.sums / max_packets(tables[n - 1].packet, p.measured_s) * 100).mean())

    crit: dict[str, tuple[bool, str]] = {}
    tot = [(n, tables[n - 1].sum_pct[0], pct(n, 0)) for n in (1, 2, 3, 4)]
    crit["totals"] = (
        all(tolerances["sum"].check(o, p) for _, p, o in tot),
        " / ".join(f"{p} | {o:.0f}" for _, p, o in tot),
    )
    spreads = []
    ends = []
    for n in (1, 2):
        vals = [pct(n, c) for c in THRESHOLD_COLUMNS]
        spreads.append((PAPER_THRESHOLD_SPREAD[n], max(vals) - min(vals)))
        t = tables[n - 1]
        first, last = THRESHOLD_COLUMNS[0], THRESHOLD_COLUMNS[-1]
        ends.append((abs(t.sum_pct[first] - t.sum_pct[last]), abs(vals[0] - vals[-1])))
    crit["threshold insensitivity"] = (
        all(o <= p + tolerances["spread_slack"] for p, o in spreads),
        " / ".join(f"{p} | {o:.1f}" for p, o in spreads)
        # 95% against 70% alone: the criterion's form before it followed the text.
        + " (95 vs 70%: "
        + " / ".join(f"{p} | {o:.1f}" for p, o in ends)
        + ")",
    )
    shares_ok = True
    texts = []
    for n in (1, 3):
        t = tables[n - 1]
        paper = np.array([t.groups[g][0] for g in range(3)], dtype=float)
        paper = paper / paper.sum() * 100
        p = pts[(n, 0)]
        g = p.groups.mean(axis=0)
        ours = g / g.sum() * 100
        shares_ok &= all(
            tolerances["share"].check(float(o), float(q)) for o, q in zip(ours, paper, strict=True)
        )
        runs = p.groups / p.groups.sum(axis=1, keepdims=True) * 100
        spread = (
            " (sd per run " + "/".join(f"{x:.1f}" for x in runs.std(axis=0, ddof=1)) + ")"
            if len(runs) > 1
            else ""
        )
        texts.append(
            "/".join(f"{q:.0f}" for q in paper)
            + " | "
            + "/".join(f"{o:.0f}" for o in ours)
            + spread
        )
    crit["group shares"] = (shares_ok, " ; ".join(texts))
    gains = [
        (tables[2].sum_pct[0] - tables[0].sum_pct[0], pct(3, 0) - pct(1, 0)),
        (tables[3].sum_pct[0] - tables[1].sum_pct[0], pct(4, 0) - pct(2, 0)),
    ]
    crit["ESPD gain"] = (
        all(o > 0 for _, o in gains),
        " / ".join(f"{p:+d} | {o:+.1f}" for p, o in gains),
    )
    epd, espd = pts[(1, 0)], pts[(3, 0)]
    together = epd.mean(epd.together)
    desync = (together - epd.mean(epd.together_expected)) - (
        espd.mean(espd.together) - espd.mean(espd.together_expected)
    )
    ok = not math.isnan(together) and not math.isnan(desync) and together > 50 and desync > 0
    crit["synchronisation"] = (
        ok,
        f"> 50%, > 0 | {together:.0f}% (runs {np.min(epd.together):.0f}-"
        f"{np.max(epd.together):.0f}), {desync:+.0f} points",
    )
    return Score(variant, crit, tuple(seed_set) if seed_set is not None else ())


def table(scores: list[Score]) -> tuple[str, list[str], list[list[str]]]:
    """The report's table: one row per variant, the criteria as columns (paper | ours)."""
    body = []
    for s in scores:
        body.append(
            [s.variant, VARIANTS[s.variant][0]]
            + [f"{'yes' if ok else 'NO'}: {txt}" for ok, txt in s.criteria.values()]
            + ["yes" if s.explains else "no"]
        )
    return (
        "Sensitivity study: each unstated choice scored on the paper's five criteria at once "
        "(each cell: holds?, then paper | ours; totals of Tables 1-4 in % of the maximum; "
        "EPD's best sum minus its worst over 95-70% for Tables 1-2; group shares in % under "
        "EPD ; ESPD at 500 B; ESPD minus EPD in points at 500 / 1,500 B; synchronisation: "
        "the other sessions cutting within one RTT of a cut under EPD, and EPD's excess over "
        "independence minus ESPD's)",
        ["variant", "what it changes", *CRITERIA, "explains the paper"],
        body,
    )


def _fails(s: Score) -> str:
    return ", ".join(f"{c} (paper | ours {t})" for c, (ok, t) in s.criteria.items() if not ok)


def seed_text(seed_set: tuple[int, ...]) -> str:
    return f"{seed_set[0]}-{seed_set[-1]}"


def named(scores: list[Score], held: list[Score]) -> list[str]:
    """The readings named as the cause: every criterion held on the paper's seeds and again
    on each set of held-out seeds (``held``: scores with their ``seeds``)."""

    def again(v: str) -> bool:
        got = {h.seeds: h.explains for h in held if h.variant == v}
        return all(got.get(s, False) for s in SEEDS_HELD_OUT)

    return [s.variant for s in scores if s.explains and again(s.variant)]


def further_text(variant: str, further: list[Score], pooled: Score | None = None) -> str:
    """How ``variant`` fares on the sets of SEEDS_FURTHER (``further``: scores with their
    seeds) and, with ``pooled``, over all their seeds together; empty if it was not run there."""
    fs = [f for f in further if f.variant == variant]
    if not fs:
        return ""
    seeds_run = sorted(x for f in fs for x in f.seeds)
    per = {c: sum(f.criteria[c][0] for f in fs) for c in CRITERIA}
    k, n = sum(f.explains for f in fs), len(fs)
    text = (
        f"On {n} further sets of five seeds ({seeds_run[0]}-{seeds_run[-1]}), run to see how "
        f"often it holds on a set of five, {variant} holds all five criteria in {k} of {n} ("
        + ", ".join(f"{c} in {per[c]}" for c in CRITERIA)
        + ")"
    )
    if pooled is not None:
        verdicts = [
            f"{c} {'holds' if ok else 'fails'} (paper | ours {t})"
            for c, (ok, t) in pooled.criteria.items()
        ]
        text += f"; over those {len(pooled.seeds)} seeds together: " + "; ".join(verdicts)
    text += "."
    if 2 * k < n:
        missed = [c for c in CRITERIA if 2 * per[c] < n]
        text += " Its match with the paper's seeds is not typical of it: on most sets of five "
        text += (
            "it misses the paper on " + ", ".join(missed) + "."
            if missed
            else "one criterion or another fails."
        )
    return text


def notes(scored: Scored, quick: bool) -> str:
    """The notes' section on the study."""
    scores, again = scored.scores, scored.held
    lines = [
        "## Sensitivity study: the unstated choices against every criterion",
        "",
        "Each variant changes one choice the paper leaves open (or two or three together; "
        "`aal5_trailer` undoes a stated one, to show what following the paper there moved) and "
        "runs the points behind the paper's five criteria (totals, threshold insensitivity, "
        "round-trip group shares, ESPD's gain, synchronisation), "
        + (
            "one seed each (quick mode: two variants)."
            if quick
            else "the paper's five seeds each (1-5)."
        )
        + " A variant explains the paper only if all five hold (the table in the report); it "
        "is named as the cause only if all five hold again on each set of further seeds ("
        + ", ".join(seed_text(x) for x in SEEDS_HELD_OUT)
        + ").",
        "",
    ]
    for s in scores:
        held = [c for c, (ok, _) in s.criteria.items() if ok]
        failed = [c for c, (ok, _) in s.criteria.items() if not ok]
        lines.append(
            f"- **{s.variant}** ({VARIANTS[s.variant][0]}): holds on "
            + (", ".join(held) if held else "none")
            + "; fails on "
            + (", ".join(failed) if failed else "none")
            + "."
        )
    explaining = [s.variant for s in scores if s.explains]
    lines.append("")
    if explaining:
        lines.append(
            "Variants that reproduce the paper on every criterion with its five seeds: "
            + ", ".join(explaining)
            + "."
        )
        for h in again:
            lines.append(
                f"On seeds {seed_text(h.seeds)}, {h.variant} "
                + (
                    "holds on all five again."
                    if h.explains
                    else "holds on "
                    + ", ".join(c for c, (ok, _) in h.criteria.items() if ok)
                    + " and fails on "
                    + _fails(h)
                    + "."
                )
            )
        for v in dict.fromkeys(f.variant for f in scored.further):
            pooled = next((p for p in scored.further_pooled if p.variant == v), None)
            lines.append(further_text(v, scored.further, pooled))
        if scored.further_pooled:
            whole = [p.variant for p in scored.further_pooled if p.explains]
            lines.append(
                "Over the further seeds pooled, "
                + (
                    ", ".join(whole) + " holds all five criteria: the closest over many seeds, "
                    "though not on every set of five."
                    if whole
                    else "none of these readings holds all five criteria."
                )
            )
        cause = named(scores, again)
        lines.append(
            ("Named as the cause (every criterion on every seed set): " + ", ".join(cause) + ".")
            if cause
            else "None holds every criterion on every seed set, so none is named as the cause; "
            "those that hold on the paper's seeds are the closest readings found there."
        )
    else:
        closer = [s.variant for s in scores if s.variant != "main" and s.criteria["totals"][0]]
        lines.append(
            "No variant reproduces the paper on every criterion, so none is named as the "
            "cause of the differences"
            + (
                f" (the totals alone are matched by {', '.join(closer)}, which fail elsewhere)"
                if closer
                else ""
            )
            + ". What the paper's simulator did differently is not known."
        )
        most = max(sum(ok for ok, _ in x.criteria.values()) for x in scores)
        best = [x for x in scores if sum(ok for ok, _ in x.criteria.values()) == most]
        lines.append(
            f"The most criteria any variant holds is {most} of {len(CRITERIA)}: "
            + "; ".join(
                f"{x.variant} (fails on "
                + ", ".join(f"{c}: paper | ours {t}" for c, (ok, t) in x.criteria.items() if not ok)
                + ")"
                for x in best
            )
            + "."
        )
    return "\n".join(lines)
