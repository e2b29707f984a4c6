"""The values the Cheon & Panwar 1998 notes (``notes.md.j2``) are rendered with: plain data
computed from the measurements, the claims and the sensitivity study's scores."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import numpy as np

from atmsim.reproduce.cheon1998.claims import TOL_GROUP, TOL_SUM_PCT, claims
from atmsim.reproduce.cheon1998.measure import Measured, Point, episodes, model_facts, pct_of
from atmsim.reproduce.cheon1998.published import ESPD_GAIN, TABLES
from atmsim.reproduce.cheon1998.runs import (
    ALTERNATIVE,
    FIG2,
    FIG3,
    GROUPS,
    SENSITIVITY,
    TRACE_SEED,
    columns,
)
from atmsim.reproduce.cheon1998.scoring import Score, Scored, named
from atmsim.reproduce.cheon1998.study import (
    CRITERIA,
    READING_BASES,
    READINGS_1990S,
    SEEDS_HELD_OUT,
    VARIANTS,
)
from atmsim.reproduce.framework import Claims

__all__ = ["SATURATED_PCT", "episode_values", "notes", "study_values", "verdict_values"]

#: A link carrying at least this share of its maximum [%] is called saturated in the notes
#: (idle less than 1% of the measured time).
SATURATED_PCT = 99.0


def episode_values(res: Any) -> dict[str, Any] | None:
    """How many sessions a congestion episode cuts in a traced run (seed 1): mean, most and
    the number of episodes; None when no window falls after the warm-up."""
    n = episodes(res)
    if not n:
        return None
    return {"mean": float(np.mean(n)), "max": int(max(n)), "count": len(n)}


def _pct(src: dict[tuple[int, int], Point], n: int, c: int) -> float:
    return float(pct_of(TABLES[n - 1], src[(n, c)]).mean())


def _criteria(s: Score) -> list[dict[str, Any]]:
    return [
        {"name": name, "ok": bool(c[0]), "evidence": c.evidence} for name, c in s.criteria.items()
    ]


def _seed_text(seed_set: tuple[int, ...]) -> str:
    return f"{seed_set[0]}-{seed_set[-1]}"


def further_values(variant: str, further: list[Score], pooled: Score | None) -> dict | None:
    """How ``variant`` fares on the sets of SEEDS_FURTHER and over them pooled; None if it
    was not run there."""
    fs = [f for f in further if f.variant == variant]
    if not fs:
        return None
    seeds_run = sorted(x for f in fs for x in f.seeds)
    per = {c: sum(f.criteria[c][0] for f in fs) for c in CRITERIA}
    k, n = sum(f.explains for f in fs), len(fs)
    return {
        "variant": variant,
        "sets": n,
        "held": k,
        "first": seeds_run[0],
        "last": seeds_run[-1],
        "per": [{"name": c, "held": per[c]} for c in CRITERIA],
        "pooled": None
        if pooled is None
        else {"seeds": len(pooled.seeds), "criteria": _criteria(pooled)},
        "atypical": 2 * k < n,
        "missed": [c for c in CRITERIA if 2 * per[c] < n],
    }


def verdict_values(scored: Scored | None) -> dict[str, Any]:
    """What the sensitivity study says of ``ALTERNATIVE`` as a cause. ``kind``: "unscored"
    (not in the study), "fails" (a criterion fails on the paper's seeds), "unheld" (all hold,
    no further seeds run), "named" (all hold on every held-out set), "not_named"."""
    found = [] if scored is None else [x for x in scored.scores if x.variant == ALTERNATIVE]
    if not found:
        return {"kind": "unscored"}
    s = found[0]
    failed = [c for c, (ok, _) in s.criteria.items() if not ok]
    if failed:
        return {"kind": "fails", "failed": failed}
    hs = [x for x in scored.held if x.variant == ALTERNATIVE]
    if not hs:
        return {"kind": "unheld"}
    held_sets = [_seed_text(x) for x in SEEDS_HELD_OUT]
    if named([s], hs):
        return {"kind": "named", "held_sets": held_sets}
    b = next((x for x in scored.both if x.variant == ALTERNATIVE), None)
    pooled = None
    if b is not None:
        pooled = {
            "seeds": len(b.seeds),
            "explains": b.explains,
            "held": [c for c, (ok, _) in b.criteria.items() if ok],
            "criteria": _criteria(b),
        }
    misses = [
        {"seeds": _seed_text(h.seeds), "fails": [c for c in _criteria(h) if not c["ok"]]}
        for h in hs
        if not h.explains
    ]
    further_pooled = next((p for p in scored.further_pooled if p.variant == ALTERNATIVE), None)
    return {
        "kind": "not_named",
        "misses": misses,
        "pooled": pooled,
        "further": further_values(ALTERNATIVE, scored.further, further_pooled),
    }


def readings_values(scores: list[Score], again: list[Score]) -> list[dict[str, Any]]:
    """The 1990s-stack readings the study ran (READINGS_1990S, in its order): why each is
    one, every criterion with its numbers, the loss responses, whether it was scored on the
    held-out seeds and whether it is named."""
    by = {s.variant: s for s in scores}
    named_ones = named(scores, again)
    main = by.get("main")

    def totals(x: Score) -> list[float]:
        return [o for _, o in x.criteria["totals"].evidence["pairs"]]

    def change(x: Score, base: Score | None) -> list[float] | None:
        if base is None:
            return None
        return [o - m for o, m in zip(totals(x), totals(base), strict=True)]

    return [
        {
            "name": v,
            "why": why,
            "what": VARIANTS[v][0],
            "criteria": _criteria(by[v]),
            "held": sum(ok for ok, _ in by[v].criteria.values()),
            "explains": by[v].explains,
            "held_out_run": any(h.variant == v for h in again),
            "named": v in named_ones,
            "losses": by[v].losses,
            # each of the four totals' change from the main model's [points]
            "totals_change": change(by[v], main),
            # against the variant it combines the readings with (READING_BASES), if run
            "base": READING_BASES.get(v) if READING_BASES.get(v) in by else None,
            "base_change": change(by[v], by.get(READING_BASES.get(v, ""))),
        }
        for v, why in READINGS_1990S.items()
        if v in by
    ]


def study_values(scored: Scored, quick: bool) -> dict[str, Any]:
    """The notes' section on the sensitivity study."""
    scores, again = scored.scores, scored.held
    out: dict[str, Any] = {
        "held_out_sets": [_seed_text(x) for x in SEEDS_HELD_OUT],
        "variants": [
            {
                "name": s.variant,
                "what": VARIANTS[s.variant][0],
                "criteria": [{"name": c, "ok": bool(ok)} for c, (ok, _) in s.criteria.items()],
            }
            for s in scores
        ],
        "explaining": [s.variant for s in scores if s.explains],
        "held": [
            {
                "variant": h.variant,
                "seeds": _seed_text(h.seeds),
                "explains": h.explains,
                "held": [c for c, (ok, _) in h.criteria.items() if ok],
                "fails": [c for c in _criteria(h) if not c["ok"]],
            }
            for h in again
        ],
        "further": [
            further_values(
                v, scored.further, next((p for p in scored.further_pooled if p.variant == v), None)
            )
            for v in dict.fromkeys(f.variant for f in scored.further)
        ],
        "further_pooled": bool(scored.further_pooled),
        "further_pooled_whole": [p.variant for p in scored.further_pooled if p.explains],
        "named": named(scores, again),
        "readings": readings_values(scores, again),
        "main_losses": next((s.losses for s in scores if s.variant == "main"), None),
        "closer": [s.variant for s in scores if s.variant != "main" and s.criteria["totals"][0]],
        "criteria_count": len(CRITERIA),
    }
    if scores:
        most = max(sum(ok for ok, _ in x.criteria.values()) for x in scores)
        out["most"] = most
        out["best"] = [
            {"variant": x.variant, "fails": [c for c in _criteria(x) if not c["ok"]]}
            for x in scores
            if sum(ok for ok, _ in x.criteria.values()) == most
        ]
    return out


def notes(m: Measured, rows: Claims, quick: bool) -> dict[str, Any]:
    """The values of ``notes.md.j2``."""
    t1, t2, t3, t4 = TABLES[:4]
    epd, espd = m.points[(1, 0)], m.points[(3, 0)]
    util = [_pct(m.points, n, c) for n, c in SENSITIVITY]
    sens = [_pct(m.sensitivity, n, c) for n, c in SENSITIVITY]
    paper_util = [TABLES[n - 1].sum_pct[c] for n, c in SENSITIVITY]
    together = {
        "epd": epd.mean(epd.together),
        "epd_expected": epd.mean(epd.together_expected),
        "espd": espd.mean(espd.together),
        "espd_expected": espd.mean(espd.together_expected),
    }
    excess = [
        together["epd"] - together["epd_expected"],
        together["espd"] - together["espd_expected"],
    ]
    g_epd = [epd.mean(epd.groups[:, g]) for g in range(3)]
    g_espd = [espd.mean(espd.groups[:, g]) for g in range(3)]
    alt_ep = {k: episode_values(m.alt_traces[f]) for k, f in (("epd", 2), ("espd", 3))
              if f in m.alt_traces}  # fmt: skip
    main_ep = {"epd": episode_values(m.traces[2]), "espd": episode_values(m.traces[3])}

    def claim(prefix: str) -> list[dict[str, Any]]:
        return [_row(r) for r in rows if r.claim.startswith(prefix)]

    # Every column run: our sums and the paper's, and the long-RTT group's share by table.
    ours_pct = [_pct(m.points, t.number, c) for t in TABLES for c in columns(t, quick)]
    paper_pct = [t.sum_pct[c] for t in TABLES for c in columns(t, quick)]
    long_above = 0
    for t in TABLES:
        cols = columns(t, quick)
        ours = np.mean([m.points[(t.number, c)].mean(m.points[(t.number, c)].groups[:, 0])
                        / m.points[(t.number, c)].mean(m.points[(t.number, c)].sums)
                        for c in cols])  # fmt: skip
        paper = np.mean([t.groups[0][c] / t.sums[c] for c in cols])
        long_above += bool(ours > paper)
    alt_full = None
    if not quick:
        alt = Claims(claims(dataclasses.replace(m, points=m.sensitivity, alt_traces={}), quick))
        alt_full = {
            "agree": alt.agreeing,
            "total": len(alt),
            "section": [_row(r) for r in alt if r.claim.startswith(("Sec.", "Fig"))],
        }
    facts = {p: model_facts(p) for p in (t1.packet, t2.packet)}
    max_rows = [r for r in rows if "maximum packets" in r.claim]
    return {
        "alternative": ALTERNATIVE,
        "alternative_overrides": [
            f"{k} = {json.dumps(v)}" for k, v in VARIANTS[ALTERNATIVE][1].items()
        ],
        "measured_s": epd.measured_s,
        "trace_seed": TRACE_SEED,
        "sessions": len(sum(GROUPS, ())),
        "cells_small": facts[t1.packet]["cells_per_packet"],
        "cells_large": facts[t2.packet]["cells_per_packet"],
        "packet_small": t1.packet,
        "packet_large": t2.packet,
        "maxima_agree": bool(max_rows) and all(r.agrees for r in max_rows),
        "util": util,
        "paper_util": paper_util,
        "saturated": min(util[0], util[2]) >= SATURATED_PCT,
        "saturated_pct": SATURATED_PCT,
        "episodes": main_ep,
        "alt_episodes": alt_ep,
        "timeouts_epd": epd.mean(epd.timeouts),
        "fast_retransmits_epd": epd.mean(epd.fast_retransmits),
        "sens": sens,
        "alt_moves": any(abs(a - b) > TOL_SUM_PCT.a for a, b in zip(sens, util, strict=True)),
        "sum_tolerance": TOL_SUM_PCT.a,
        "alt_together": [m.sensitivity[k].mean(m.sensitivity[k].together) for k in (FIG2, FIG3)],
        "alt_gain": [sens[2] - sens[0], sens[3] - sens[1]],
        "paper_gain_range": [
            min(p.value for p in ESPD_GAIN.values()),
            max(p.value for p in ESPD_GAIN.values()),
        ],
        "paper_gain": [t3.sum_pct[0] - t1.sum_pct[0], t4.sum_pct[0] - t2.sum_pct[0]],
        "verdict": verdict_values(m.scored),
        "alt_full": alt_full,
        "g_epd": g_epd,
        "g_espd": g_espd,
        "paper_g_epd": [t1.groups[g][0] for g in range(3)],
        "paper_g_espd": [t3.groups[g][0] for g in range(3)],
        "espd_long_like_paper": TOL_GROUP.check(g_espd[0], t3.groups[0][0]),
        "epd_long_above_paper": g_epd[0] > t1.groups[0][0],
        "long_gain": (g_espd[0] / g_epd[0] - 1) * 100,
        "fairness": [r for r in claim("Sec. 4.3: ESPD high 100%") if "fairer" in r["claim"]],
        "together": together,
        "most_together": all(r["agrees"] for r in claim("Fig. 2:")),
        "espd_less": excess[1] < excess[0],
        "gains_positive": all(r["agrees"] for r in claim("Sec. 4: best ESPD")),
        "disagreeing": [
            _row(r, agrees=False) for r in rows if not r.agrees and not r.claim.startswith("Table")
        ],
        "bad": sum(not r.agrees for r in rows),
        "sums_range": [min(ours_pct), max(ours_pct)],
        "paper_sums_range": [min(paper_pct), max(paper_pct)],
        "long_share_above": long_above,
        "tables": len(TABLES),
        "study": None if m.scored is None or not m.scored.scores else study_values(m.scored, quick),
    }


def _row(r: Any, agrees: bool = True) -> dict[str, Any]:
    """A claim row as the notes quote it."""
    row = {"claim": _text(r.claim), "paper": r.as_row()["paper"], "measured": r.measured}
    row["unit"] = r.unit
    if agrees:
        row["agrees"] = r.agrees
    return row


def _text(claim: str) -> str:
    """A claim's text as the notes quote it: its colons made dashes, so that a quoted row
    reads as one sentence with its measured value."""
    return claim.replace(": ", " — ")
