"""Notes values about FMMRA's queue with 10 sources (Figs. 4.17-4.18) and the transient
fairness of FMMRA against ERICA (Figs. 4.8-4.10): the grid of FMMRA's settings, the start-time
readings, ERICA's variants and what limits the TCPs. Plain data; the template words them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from atmsim.reproduce.an1997.claims import claims, pair_of
from atmsim.reproduce.an1997.criteria import CRITERIA, fmmra_criteria
from atmsim.reproduce.an1997.findings_rows import enough_seeds, wide_holds, wide_pair
from atmsim.reproduce.an1997.findings_seeds import row as seeds_row
from atmsim.reproduce.an1997.measure import Measured, _wins, model_facts, sign_test, source_goodput
from atmsim.reproduce.an1997.schemes import FAMILIES, MSS_BYTES, NAMES, SCHEMES, TRANSIENT_S
from atmsim.reproduce.an1997.studies import (
    FMMRA_GRID,
    SMOOTHING,
    START_READINGS,
    WIDE_WINDOW_KIB,
    fmmra_key,
    grid,
)
from atmsim.reproduce.an1997.tables import scheme_name
from atmsim.reproduce.framework import Claim


def _span(x: pd.Series) -> list[float]:
    return [float(x.min()), float(x.max())]


def n10_queue(m: Measured, quick: bool) -> dict[str, Any]:
    """Whether FMMRA's unstated settings explain the N = 10 queue row on every other claim
    about FMMRA, on the whole grid and enough seeds (``cause``)."""
    scored = [(st, fmmra_criteria(m, fmmra_key(*st))) for st in grid(quick)]
    others = [c for c in CRITERIA if c != CRITERIA[2]]
    explaining = [st for st, c in scored if all(c[k][0] for k in others)]
    default_fails = [k for k in others if not scored[0][1][k][0]]
    holds = bool(explaining) and default_fails == [CRITERIA[6]]
    return {
        "settings": [
            {"u": st[0], "qt": st[1], "dqt": st[2], "queue": c[CRITERIA[6]][1]} for st, c in scored
        ],
        "default": {"u": FMMRA_GRID[0][0], "qt": FMMRA_GRID[0][1], "dqt": FMMRA_GRID[0][2]},
        "explaining": [{"u": st[0], "qt": st[1], "dqt": st[2]} for st in explaining],
        "holds": holds,
        "fairness_fails_everywhere": all(not c[CRITERIA[2]][0] for _, c in scored),
        "grid_whole": not quick,
        "enough_seeds": enough_seeds(m),
        "cause": holds and not quick and enough_seeds(m),
    }


def late_share(m: Measured, reading: str, s: str) -> float | None:
    """Under start-time ``reading`` on the N = 5 network: for each source that starts within the
    transient (at or after the VBR source), its mean goodput from its start to the end of the
    transient over the mean goodput of the sources started before the VBR source over the same
    span; the mean over those sources and the fairness seeds. None if no source starts in the
    transient."""
    d = START_READINGS[reading]
    starts = {f"s{i}": (i - 1) * d / 1_000 for i in range(1, FAMILIES["n5"][1] + 1)}
    lo, hi = TRANSIENT_S
    late = [c for c, t in starts.items() if lo - 1e-9 <= t < hi - 1e-9]
    early = [c for c, t in starts.items() if t < lo - 1e-9]
    if not late or not early:
        return None
    out = []
    for x in m.seeds():
        g = source_goodput(m.run_of("n5", s, x, reading))
        for c in late:
            w = g[(g.index > starts[c] + 1e-9) & (g.index <= hi + 1e-9)]
            out.append(float(w[c].mean() / w[early].to_numpy().mean()))
    return float(np.mean(out))


def starts(m: Measured, rows: list[Claim], quick: bool) -> dict[str, Any] | None:
    """Whether the sources' start times explain the transient-fairness row on every criterion
    and on enough seeds (``cause``), and what the start-time readings show. A late spacing
    counts only if the row it turns holds on the wide seeds on the Jain index and on the
    visible measure (:data:`.studies.VISIBLE`) in the row's own window."""
    runs_ = [r for r in m.readings() if r in START_READINGS]
    if not runs_:
        return None
    main = {r.claim: r for r in rows}
    claim = next(c for c in main if pair_of(c) == ("n5", "fmmra", "erica"))
    spacings, late_ok, early_ok = [], [], []
    for r in sorted(runs_, key=lambda x: START_READINGS[x]):
        d = START_READINGS[r]
        under = {c.claim: c for c in claims(m.under(r), quick, sensitivity=False)}
        broken = [c for c in under if main[c].agrees and not under[c].agrees]
        row = under[claim]
        held = wide_holds(m, "n5", "fmmra", "erica", r)
        spans = seeds_row(m, "n5", "fmmra", "erica", TRANSIENT_S, r)["visible"]["verdict"]
        shares = {s: late_share(m, r, s) for s in SCHEMES}
        if shares["erica"] is None:
            early_ok.append(not held)
        else:
            late_ok.append(
                row.agrees
                and not broken
                and held
                and spans == "holds"
                and shares["erica"] < shares["fmmra"]  # type: ignore[operator]
            )
        spacings.append(
            {
                "ms": d,
                "last_s": 4 * d / 1_000,
                "diff": row.measured,
                "wide": wide_pair(m, "n5", "fmmra", "erica", r),
                "broken": broken,
                "spans": spans,
                "shares": None
                if shares["erica"] is None
                else [{"scheme": NAMES[s], "share": shares[s]} for s in ("erica", "fmmra", "efci")],
            }
        )
    holds = bool(late_ok) and all(late_ok) and all(early_ok)
    return {
        "n_seeds": len(m.seeds()),
        "first": m.wide_seeds()[0],
        "last": m.wide_seeds()[-1],
        "n_wide": len(m.wide_seeds()),
        "spacings": spacings,
        "end_s": TRANSIENT_S[1],
        "holds": holds,
        "enough_seeds": enough_seeds(m),
        "cause": holds and enough_seeds(m),
    }


def _both(m: Measured, s: str) -> dict[str, Any]:
    return {
        "name": scheme_name(s),
        "jain": m.transient_fairness("n5", s),
        "sampled": m.short_term_fairness("n5", s),
    }


def smoothed(m: Measured) -> dict[str, Any]:
    """ERICA's and FMMRA's fairness in the transient with the curves smoothed over 5-100 ms."""
    seeds = m.wide_seeds()
    spans = []
    for k in SMOOTHING:
        e = [m.short_term_fairness("n5", "erica", k, x) for x in seeds]
        f = [m.short_term_fairness("n5", "fmmra", k, x) for x in seeds]
        w = _wins(f, e)
        spans.append(
            {
                "ms": k * 5,
                "erica": float(np.mean(e)),
                "fmmra": float(np.mean(f)),
                "wins": w,
                "beyond_chance": float(np.mean(f)) > float(np.mean(e))
                and w > len(seeds) / 2
                and sign_test(w, len(seeds)) < 0.05,
            }
        )
    return {"n": len(seeds), "spans": spans, "any": any(s["beyond_chance"] for s in spans)}


def limits(m: Measured) -> dict[str, Any]:
    """What limits the TCPs over the transient at N = 5: their windows or their ACRs."""
    facts = model_facts()
    out: dict[str, Any] = {"schemes": []}
    seen = {}
    for s in ("erica", "fmmra"):
        acr = m.in_transient("n5", s, "acr_mbps", "abr")
        good = m.goodput("n5", s)
        good = good[(good.index > TRANSIENT_S[0] + 1e-9) & (good.index <= TRANSIENT_S[1] + 1e-9)]
        good = good.mean()
        srtt = m.in_transient("n5", s, "srtt_ms", "connection")
        queue = m.in_transient("n5", s, "source_queue_cells", "abr")
        seen[s] = (acr, good, queue, m.max_queue("n5", s))
        out["schemes"].append(
            {
                "scheme": NAMES[s],
                "acr": _span(acr),
                "goodput": _span(good),
                "srtt": _span(srtt),
                "queue": _span(queue),
                "peak": seen[s][3],
            }
        )
    windows = facts["n5_windows_cells"]
    acr, good, _, peak = seen["erica"]
    out["windows"] = windows
    out["erica_window_held"] = bool(acr.min() > 1.5 * good.max() and peak > 0.8 * windows)
    acr, good, queue, _ = seen["fmmra"]
    ratio = float((acr / (good * facts["cell_over_payload"])).max())
    out["fmmra_acr_held"] = bool(queue.min() > 100 and ratio < 1.1 and acr.max() < 1.05 * acr.min())
    return out


def wide_windows(m: Measured) -> dict[str, Any]:
    """The mechanism test: ERICA with windows large enough that the ACRs hold the TCPs."""
    key = "erica-window256"
    acr = m.in_transient("n5", key, "acr_mbps", "abr")
    queue = m.in_transient("n5", key, "source_queue_cells", "abr")
    held = bool(queue.min() > 1_000)
    fair = m.transient_fairness("n5", key) >= m.transient_fairness("n5", "fmmra")
    return {
        "kib": WIDE_WINDOW_KIB,
        "queue": _span(queue),
        "acr": _span(acr),
        "jain": m.transient_fairness("n5", key),
        "held": held,
        "equal_acrs": held and bool(acr.max() < 1.05 * acr.min()),
        "fair": held and fair,
    }


def vbr_subtracted(m: Measured) -> dict[str, Any]:
    """ERICA read with its own ABR capacity (the VBR load subtracted)."""
    key = "erica-vbr-subtracted"
    j = m.transient_fairness("n5", key)
    peak, fmmra_peak = m.max_queue("n5", key), m.max_queue("n5", "fmmra")
    # One of five sources 10% above the others lowers the index by 0.0015, one segment more
    # over the transient by 3e-5: a gap under 0.001 is taken as no difference.
    gap = m.transient_fairness("n5", "fmmra") - j
    return {
        "queue": _span(m.in_transient("n5", key, "source_queue_cells", "abr")),
        "acr": _span(m.in_transient("n5", key, "acr_mbps", "abr")),
        "jain": j,
        "fmmra": m.transient_fairness("n5", "fmmra"),
        "peak": peak,
        "fmmra_peak": fmmra_peak,
        "less_fair": gap >= 0.001,
        "queue_below_fmmra": peak < fmmra_peak,
    }


def transient(m: Measured, start_cause: bool) -> dict[str, Any]:
    """What is known about the transient-fairness rows, from the runs that test it."""
    ericas = ("erica", "erica-interval10", "erica-measured-ccr")
    lowest = min(m.transient_fairness("n5", s) for s in ericas)
    acr = m.in_transient("n5", "erica", "acr_mbps", "abr")
    sampled = [m.short_term_fairness("n5", s) for s in SCHEMES]
    return {
        "erica": _both(m, "erica"),
        "fmmra": _both(m, "fmmra"),
        "efci": _both(m, "efci"),
        "efci_least": m.transient_fairness("n5", "efci")
        < min(m.transient_fairness("n5", s) for s in ("erica", "fmmra")),
        "equal_acrs": bool(acr.max() < 1.05 * acr.min()),
        "erica_acr": _span(acr),
        "interval10": _both(m, "erica-interval10"),
        "measured_ccr": _both(m, "erica-measured-ccr"),
        "lowest": lowest,
        "n_ericas": len(ericas),
        "erica_fair": lowest > 0.999,
        "segment_bytes": MSS_BYTES,
        "segment_mbps": model_facts()["segment_mbps_per_sample"],
        "samples_differ": max(sampled) < 0.99,
        "smoothed": smoothed(m),
        "limits": limits(m),
        "wide_windows": wide_windows(m),
        "vbr_subtracted": vbr_subtracted(m),
        "start_cause": start_cause,
    }
