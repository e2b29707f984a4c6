"""Notes values about EFCI's fairness with the 1,500-cell buffer (Figs. 4.14-4.16): its
unstated marking thresholds, where the losses fall (lone slow starts, overflows), the tests of
the mechanism and how firm the ordering is. Plain data; the template words them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from atmsim.reproduce.an1997.criteria import EFCI_CRITERIA, efci_criteria
from atmsim.reproduce.an1997.findings_rows import enough_seeds, row_seeds, wide_pair
from atmsim.reproduce.an1997.findings_seeds import AFTER_VBR, verdict
from atmsim.reproduce.an1997.measure import (
    Measured,
    _wins,
    collapse_sync,
    lone_repeats,
    model_facts,
    overflow_stats,
    sign_test,
    solo_collapses,
    source_goodput,
    starved_share,
)
from atmsim.reproduce.an1997.schemes import (
    BOTTLENECK,
    NAMES,
    SCHEMES,
    TRANSIENT_S,
    VBR_START_S,
    label,
)
from atmsim.reproduce.an1997.studies import (
    EFCI_DEFAULT,
    EFCI_RATE_GRID,
    FINE_SAMPLE,
    LATE_START_S,
    LATE_START_SCHEMES,
    LONG_ACCESS_SCHEMES,
    PER_VC_BUFFER,
    PER_VC_SCHEMES,
    PERTURB_SCHEMES,
    PERTURB_SEEDS,
    PERTURBATIONS,
    VISIBLE,
    efci_grid,
    efci_key,
    efci_rate_key,
    late_start_key,
    long_access_key,
    per_vc_key,
    perturb_key,
)


def _tos(run: Any) -> list[int]:
    return [int(x) for x in run.connections.drop(index="vbr", errors="ignore")["timeouts"]]


def served_less_tally(
    m: Measured, key: str, seeds: tuple[int, ...]
) -> tuple[tuple[int, int], tuple[int, int]]:
    """Over the 1,500-cell runs of ``key`` (a scheme or an EFCI setting) on ``seeds``: (runs
    where the source served less timed out more, runs where the two sources' timeouts differ),
    and the same for lone slow starts (:func:`solo_collapses`)."""
    to, solo = [0, 0], [0, 0]
    for x in seeds:
        r = m.run_of("buffer", key, x)
        c = r.connections.drop(index="vbr", errors="ignore")
        gp = c["goodput_mbps"].astype(float)
        lo, hi = gp.idxmin(), gp.idxmax()
        for tally, count in ((to, c["timeouts"].astype(float)), (solo, solo_collapses(r))):
            if count[lo] != count[hi]:
                tally[0] += int(count[lo] > count[hi])
                tally[1] += 1
    return (to[0], to[1]), (solo[0], solo[1])


def thresholds(m: Measured, quick: bool) -> dict[str, Any]:
    """Whether EFCI's unstated marking thresholds explain the 1,500-cell fairness row on every
    claim about EFCI (``cause``), and what was measured. A threshold explains the row only if,
    on the wide seeds, ERICA is the fairer on the Jain index and on the visible measure
    (:data:`.studies.VISIBLE`: fewer spans with a source under half of another's)."""
    scored = [((hi, lo), efci_criteria(m, efci_key(hi, lo))) for hi, lo in efci_grid(quick)]
    least = EFCI_CRITERIA[5]
    explaining = [st for st, c in scored if all(ok for ok, _ in c.values())]
    default_fails = [k for k, (ok, _) in dict(scored)[EFCI_DEFAULT].items() if not ok]
    lost = {st: m.dropped("buffer", efci_key(*st)) for st, _ in scored}
    fewest = min(lost, key=lambda st: lost[st])
    out: dict[str, Any] = {
        "n_seeds": len(m.seeds()),
        "grid_whole": not quick,
        "settings": [
            {"high": hi, "low": lo, "jain": c[least][1], "lost": lost[(hi, lo)]}
            for (hi, lo), c in scored
        ],
        "fewest": None,
        "outcomes": bool(explaining) and default_fails == [least],
        "explaining": [],
        "cause": False,
        "enough_seeds": enough_seeds(m),
    }
    if lost[fewest] > 0:
        acr = m.acr("buffer", efci_key(*fewest))
        acr = acr[acr.index >= TRANSIENT_S[0]]
        out["fewest"] = {
            "high": fewest[0],
            "low": fewest[1],
            "lost": lost[fewest],
            "acr_lo": float(acr.min().min()),
            "acr_hi": float(acr.max().max()),
            "rif_step": model_facts()["efci_rif_step_mbps"],
        }
    if out["outcomes"]:
        seeds = m.wide_seeds()
        erica = [m.row_measure("buffer", "erica", x) for x in seeds]

        def spans_of(key: str) -> list[float]:
            return [
                starved_share(
                    m.run_of("buffer", key, x), VISIBLE["samples"], VISIBLE["ratio"], AFTER_VBR
                )
                for x in seeds
            ]

        erica_spans = spans_of("erica")
        (ew, en), _ = served_less_tally(m, "erica", seeds)
        out.update(first=seeds[0], last=seeds[-1], erica_to=[ew, en])
        out["erica_p"] = sign_test(ew, en) if en else 1.0
        found = False
        for st in explaining:
            key = efci_key(*st)
            xe = [m.row_measure("buffer", key, x) for x in seeds]
            diff = float(np.mean(erica) - np.mean(xe))
            (tw, tn), (sw, sn) = served_less_tally(m, key, seeds)
            p = sign_test(tw, tn) if tn else 1.0
            shows = tn > 0 and tw > tn / 2 and p < 0.05
            jain = verdict(erica, xe, higher=True)["verdict"]
            spans = verdict(erica_spans, spans_of(key), higher=False)["verdict"]
            found = found or (jain == "holds" and shows and spans == "holds")
            rep = [lone_repeats(m.run_of("buffer", key, x)) for x in seeds]
            out["explaining"].append(
                {
                    "high": st[0],
                    "low": st[1],
                    "diff": diff,
                    "jain": jain,
                    "spans": spans,
                    "less": _wins(erica, xe),
                    "n": len(seeds),
                    "to": [tw, tn],
                    "p": p,
                    "solo": [sw, sn],
                    "same": sum(r[0] for r in rep),
                    "pairs": sum(r[1] for r in rep),
                }
            )
        # a cause is named only on enough seeds, with every criterion measured to hold
        out["cause"] = found and out["enough_seeds"]
        out["found"] = found
    return out


@dataclass
class SoloStats:
    """Lone slow starts on the 1,500-cell network over the wide seeds: per scheme, the mean
    count a run, (runs where the source served less had more, runs where the two sources'
    counts differ, runs counted), (consecutive lone slow starts on the same source, all
    consecutive pairs) and (runs with more repeats than alternations, runs where they differ)."""

    seeds: list[int]
    per_run: dict[str, float]
    behind: dict[str, tuple[int, int, int]]
    repeats: dict[str, tuple[int, int]]
    repeat_runs: dict[str, tuple[int, int]]

    def follows(self) -> bool:
        """Whether, under EFCI and ERICA, the source served less is mostly the one with more."""
        return all(
            self.behind[s][1] and self.behind[s][0] > self.behind[s][1] / 2
            for s in ("efci", "erica")
        )


def solo_stats(m: Measured) -> SoloStats | None:
    """How often one source alone goes back to slow start, per scheme, over the wide seeds of
    the 1,500-cell network, and whether the source served less is the one that did so more."""
    seeds = [x for x in m.wide_seeds() if m.run_of("buffer", "efci", x) is not None]
    per_run, behind, repeats, repeat_runs = {}, {}, {}, {}
    for s in SCHEMES:
        counts, tally, rep, runs = [], [0, 0], [0, 0], [0, 0]
        for x in seeds:
            r = m.run_of("buffer", s, x)
            try:
                solo = solo_collapses(r)
            except KeyError:  # a run made without the windows
                continue
            gp = r.connections["goodput_mbps"]  # after the warm-up
            counts.append(sum(solo.values()))
            lo, hi = min(solo, key=lambda c: gp[c]), max(solo, key=lambda c: gp[c])
            if solo[lo] != solo[hi]:
                tally[0] += solo[lo] > solo[hi]
                tally[1] += 1
            same, pairs = lone_repeats(r)
            rep[0], rep[1] = rep[0] + same, rep[1] + pairs
            if 2 * same != pairs:
                runs[0] += 2 * same > pairs
                runs[1] += 1
        if not counts:
            return None
        per_run[s], behind[s] = float(np.mean(counts)), (tally[0], tally[1], len(counts))
        repeats[s], repeat_runs[s] = (rep[0], rep[1]), (runs[0], runs[1])
    return SoloStats(seeds, per_run, behind, repeats, repeat_runs)


def solo(m: Measured) -> dict[str, Any] | None:
    """:func:`solo_stats` as plain data, with the readings of it the notes branch on."""
    st = solo_stats(m)
    if st is None:
        return None
    shown = [s for s in ("efci", "erica") if st.repeats[s][1]]
    share = {s: st.repeats[s][0] / st.repeats[s][1] for s in shown}
    return {
        "first": st.seeds[0],
        "last": st.seeds[-1],
        "n": min(b[2] for b in st.behind.values()),
        "per_run": [{"scheme": NAMES[s], "count": st.per_run[s]} for s in SCHEMES],
        "efci_per_run": st.per_run["efci"],
        "erica_per_run": st.per_run["erica"],
        "behind": [
            {"scheme": NAMES[s], "more": st.behind[s][0], "differ": st.behind[s][1]}
            for s in ("efci", "erica")
        ],
        "follows": st.follows(),
        "efci_fewer": st.per_run["efci"] < st.per_run["erica"],
        "repeats": [
            {
                "scheme": NAMES[s],
                "same": st.repeats[s][0],
                "pairs": st.repeats[s][1],
                "share": share[s],
                "runs_more": st.repeat_runs[s][0],
                "runs_differ": st.repeat_runs[s][1],
                "p": sign_test(*st.repeat_runs[s]) if st.repeat_runs[s][1] else 1.0,
            }
            for s in shown
        ],
        "alternate": bool(shown) and all(v < 0.5 for v in share.values()),
        "repeat": bool(shown) and all(v > 0.5 for v in share.values()),
        "both_alternate": len(shown) == 2 and all(v < 0.5 for v in share.values()),
    }


def overflow(m: Measured) -> dict[str, Any] | None:
    """The shared buffer's overflows under EFCI and ERICA (counts, lengths, one source only)."""
    seeds, per = overflow_stats(m)
    if not per:
        return None
    e, r = per["efci"], per["erica"]
    return {
        "sample": FINE_SAMPLE,
        "first": seeds[0],
        "last": seeds[-1],
        "efci": {"count": e[0], "ms": e[1], "one": e[2]},
        "erica": {"count": r[0], "ms": r[1], "one": r[2]},
        "efci_longer_both": e[1] > r[1] and e[2] < r[2],
    }


def where(m: Measured) -> dict[str, Any]:
    """The 1,500-cell runs' fairness per seed and how the losses pair up (seed 1)."""
    seeds = m.seeds()
    j = {s: m.seed_fairness("buffer", s) for s in SCHEMES}
    lowest = min(SCHEMES, key=lambda s: min(j[s]))
    sync = {s: collapse_sync(m, "buffer", s) for s in ("efci", "erica")}
    return {
        "n": len(seeds),
        "jain": [{"scheme": NAMES[s], "values": j[s]} for s in SCHEMES],
        "lowest": min(j[lowest]),
        "lowest_scheme": NAMES[lowest],
        "efci_less": _wins(j["erica"], j["efci"]),
        "sync_efci": sync["efci"],
        "sync_erica": sync["erica"],
        "paired": sync["efci"] >= 0.5,
        "to_efci": _tos(m.r("buffer", "efci")),
        "to_erica": _tos(m.r("buffer", "erica")),
    }


def perturb(m: Measured) -> dict[str, Any] | None:
    """How the 1,500-cell ordering of EFCI and ERICA moves when one detail moves a step."""
    done = [p for p in PERTURBATIONS if label("buffer", perturb_key("efci", p), 1) in m.res]
    if not done:
        return None
    seeds = [x for x in PERTURB_SEEDS if label("buffer", perturb_key("efci", done[0]), x) in m.res]

    def stats(what: str, runs: dict[str, list[Any]]) -> dict[str, Any]:
        j = {s: [float(r.totals["fairness_index"]) for r in runs[s]] for s in PERTURB_SCHEMES}
        solo = {s: float(np.mean([sum(solo_collapses(r).values()) for r in runs[s]])) for s in j}
        diff = float(np.mean(j["erica"]) - np.mean(j["efci"]))
        return {
            "what": what,
            "less": sum(e < r for e, r in zip(j["efci"], j["erica"], strict=True)),
            "diff": diff,
            "solo_efci": solo["efci"],
            "solo_erica": solo["erica"],
            "consistent": (solo["efci"] > solo["erica"]) == (diff > 0),
        }

    main = stats("", {s: [m.run_of("buffer", s, x) for x in seeds] for s in PERTURB_SCHEMES})
    each = [
        stats(
            PERTURBATIONS[p][0],
            {
                s: [m.res[label("buffer", perturb_key(s, p), x)] for x in seeds]
                for s in PERTURB_SCHEMES
            },
        )
        for p in done
    ]
    lowest = min(
        float(m.res[label("buffer", perturb_key("efci", p), x)].totals["fairness_index"])
        for p in done
        for x in seeds
    )
    return {
        "first": seeds[0],
        "last": seeds[-1],
        "n": len(seeds),
        "main": main,
        "each": each,
        "lowest": lowest,
        "turned": [e["what"] for e in each if e["diff"] > 0],
        "consistent": sum(st["consistent"] for st in (main, *each)),
        "settings": len(each) + 1,
    }


def starved(m: Measured) -> dict[str, Any]:
    """How often one source is starved while the other takes the link, per scheme."""
    seeds = m.wide_seeds()
    share = {
        s: float(np.mean([starved_share(m.run_of("buffer", s, x)) for x in seeds])) for s in SCHEMES
    }
    most = max(share, key=lambda s: share[s])
    return {
        "first": seeds[0],
        "last": seeds[-1],
        "shares": [{"scheme": NAMES[s], "share": share[s]} for s in SCHEMES],
        "most": NAMES[most],
        "most_is_efci": most == "efci",
    }


def late_start(m: Measured) -> dict[str, Any] | None:
    """The late-start test: the second source's share after it starts, in slow start."""
    if any(label("buffer", late_start_key(s)) not in m.res for s in LATE_START_SCHEMES):
        return None
    first, later = {}, {}
    for s in LATE_START_SCHEMES:
        a, b = [], []
        for x in m.seeds():
            g = source_goodput(m.r("buffer", late_start_key(s), x))
            end = float(g.index.max())
            for out, (lo, hi) in (
                (a, (LATE_START_S, LATE_START_S + 0.25)),
                (b, (LATE_START_S + 0.25, end)),
            ):
                w = g[(g.index > lo + 1e-9) & (g.index <= hi + 1e-9)].mean()
                out.append(float(w.iloc[1] / w.sum()) if w.sum() > 0 else float("nan"))
        first[s], later[s] = float(np.nanmean(a)), float(np.nanmean(b))
    return {
        "start": LATE_START_S,
        "n": len(m.seeds()),
        "shares": [
            {"scheme": NAMES[s], "first": first[s], "later": later[s]} for s in LATE_START_SCHEMES
        ],
        "behind": later["efci"] < 0.45,
    }


def efci_rate(m: Measured) -> dict[str, Any]:
    """EFCI with other end-system steps: what they lose, deliver and how fairly."""
    grid = [g for g in EFCI_RATE_GRID if label("buffer", efci_rate_key(*g)) in m.res]
    erica = float(np.mean(m.seed_fairness("buffer", "erica")))
    settings, lossless = [], []
    for g in grid:
        key = efci_rate_key(*g)
        lost = sum(int(m.r("buffer", key, x).totals["cells_dropped"]) for x in m.seeds())
        good = float(np.mean([m.r("buffer", key, x).totals["goodput_mbps"] for x in m.seeds()]))
        jain = float(np.mean(m.seed_fairness("buffer", key)))
        settings.append({"rif": g[0], "rdf": g[1], "high": g[2], "lost": lost, "goodput": good})
        settings[-1]["jain"] = jain
        if lost == 0:
            lossless.append((g, good, jain))
    out: dict[str, Any] = {
        "n": len(m.seeds()),
        "main_goodput": m.total("buffer", "efci"),
        "settings": settings,
        "lossless": len(lossless),
    }
    if lossless:
        g0 = lossless[0][0]
        r0 = m.r("buffer", efci_rate_key(*g0))
        acr = r0.wide("acr_mbps", "abr")
        acr = acr[acr.index > VBR_START_S + 1e-9]
        q = r0.wide("queue_cells", "port")[BOTTLENECK]
        q = q[q.index > VBR_START_S + 1e-9]
        out.update(
            lo=min(x[1] for x in lossless),
            hi=max(x[1] for x in lossless),
            fmmra=m.total("buffer", "fmmra"),
            ordered=sum(x[2] < erica for x in lossless),
            erica=erica,
            rif0=g0[0],
            rdf0=g0[1],
            acr_low=float((acr < 1.0).to_numpy().mean()),
            queue_empty=float((q == 0).mean()),
            timeouts=_tos(r0),
        )
    return out


def per_vc(m: Measured) -> dict[str, Any] | None:
    """The per-VC-buffer test: do the paired losses need a shared buffer?"""
    got = {}
    for s in PER_VC_SCHEMES:
        k = per_vc_key(s)
        if label("buffer", k) not in m.res:
            return None
        got[s] = (
            float(np.mean(m.seed_fairness("buffer", k))),
            [collapse_sync(m, "buffer", k, seed=x) for x in m.seeds()],
            _tos(m.r("buffer", k)),
        )
    e, r = got["efci"], got["erica"]
    return {
        "buffer": PER_VC_BUFFER["switch.*.vc_buffer"],
        "first": m.seeds()[0],
        "last": m.seeds()[-1],
        "paired": float(np.nanmean(e[1])) >= 0.5,
        "sync_efci": e[1],
        "sync_shared": [collapse_sync(m, "buffer", "efci", seed=x) for x in m.seeds()],
        "sync_erica": r[1],
        "to_efci": e[2],
        "to_erica": r[2],
        "jain_efci": e[0],
        "jain_erica": r[0],
        "efci_less": e[0] < r[0],
    }


def long_access(m: Measured) -> dict[str, Any] | None:
    """The unequal-round-trip test: does EFCI leave an asymmetry uncorrected?"""
    if any(label("buffer", long_access_key(s)) not in m.res for s in LONG_ACCESS_SCHEMES):
        return None
    j = {s: m.seed_fairness("buffer", long_access_key(s)) for s in LONG_ACCESS_SCHEMES}
    mean = {s: float(np.mean(v)) for s, v in j.items()}
    c = m.r("buffer", long_access_key("efci")).connections.drop(index="vbr", errors="ignore")
    gp = [float(x) for x in c["goodput_mbps"]]
    to = [int(x) for x in c["timeouts"]]
    least = min(mean, key=lambda s: mean[s])
    lo, hi = int(np.argmin(gp)), int(np.argmax(gp))
    return {
        "n": len(m.seeds()),
        "efci": mean["efci"],
        "erica": mean["erica"],
        "fmmra": mean["fmmra"],
        "efci_seeds": j["efci"],
        "efci_less": _wins(j["erica"], j["efci"]),
        "goodput": gp,
        "timeouts": to,
        "efci_least": least == "efci",
        # the thesis's account needs the source served less to time out more (seed 1)
        "served_less_times_out_more": to[lo] > to[hi],
    }


def summary(m: Measured, cause: bool) -> dict[str, Any]:
    """The 1,500-cell EFCI row in short, from the measures the section gives at length."""
    st = solo_stats(m)
    ov = overflow(m)
    erica, efci = m.wide_pair("buffer", "erica", "efci")
    seeds = m.wide_seeds()
    return {
        "first": seeds[0],
        "last": seeds[-1],
        "pair": wide_pair(m, "buffer", "erica", "efci"),
        "hundred": row_seeds(m),
        "efci_fairer_fewer_lone": bool(
            st is not None
            and ov
            and float(np.mean(efci)) > float(np.mean(erica))
            and st.follows()
            and st.per_run["efci"] < st.per_run["erica"]
            and ov["efci"]["ms"] > ov["erica"]["ms"]
        ),
        "cause": cause,
    }
