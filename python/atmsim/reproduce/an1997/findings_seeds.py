"""Notes values of issue 36's pass over the An 1997 rows: the fairness rows scored on the wide
seeds as mean +- sd of the Jain index and on the visible measure fixed in
:data:`.studies.VISIBLE` (both readings of "the transient" for N = 5), and the minimum-RTO
readings scored on every claim at once."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from atmsim.reproduce.an1997.claims import claims, pair_of
from atmsim.reproduce.an1997.findings_rows import MIN_CAUSE_SEEDS, readings
from atmsim.reproduce.an1997.measure import Measured, sign_test, starved_share, window_jain
from atmsim.reproduce.an1997.schemes import FAMILIES, NAMES, VBR_START_S
from atmsim.reproduce.an1997.studies import (
    FAIRNESS_PAIRS,
    MIN_RTO_READINGS,
    TRANSIENTS,
    VISIBLE,
)
from atmsim.reproduce.framework import Claim

#: The 1,500-cell rows' span: every sample after the VBR start, to the run's end.
AFTER_VBR = (VBR_START_S, math.inf)


def verdict(claimed: list[float], other: list[float], higher: bool) -> dict[str, Any]:
    """A row over seeds by :data:`VISIBLE`'s rule: ``claimed`` (the scheme the thesis names)
    against ``other``, the claim being that ``claimed`` is higher (``higher``) or lower."""
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


def _measures(run: Any, window: tuple[float, float]) -> tuple[float, float]:
    """(Jain index of the sources' mean goodput, visible share) of ``run`` over ``window``;
    after the VBR start the index is the run's own (the claims' measure)."""
    return (
        float(run.totals["fairness_index"]) if window == AFTER_VBR else window_jain(run, window),
        starved_share(run, VISIBLE["samples"], VISIBLE["ratio"], window=window),
    )


def row(m: Measured, fam: str, a: str, b: str, window: tuple[float, float], reading=None):
    """Fairness row (``a`` claimed fairer than ``b`` on ``fam``) over the wide seeds, in
    ``window``: the Jain index and the visible share, each by :func:`verdict`."""
    seeds = m.wide_seeds()
    per = {s: [_measures(m.run_of(fam, s, x, reading), window) for x in seeds] for s in (a, b)}
    jain = verdict([j for j, _ in per[a]], [j for j, _ in per[b]], higher=True)
    visible = verdict([v for _, v in per[a]], [v for _, v in per[b]], higher=False)
    return {"a": NAMES[a], "b": NAMES[b], "jain": jain, "visible": visible}


def fairness_rows(m: Measured, rows: list[Claim] | None = None, reading=None):
    """Every fairness row on the wide seeds; for N = 5 under both readings of the transient.
    ``rows`` (the claims) give each row's verdict before (the mean over the fairness seeds)."""
    before = {pair_of(r.claim): r.agrees for r in rows or () if pair_of(r.claim) is not None}
    out = []
    for fam, a, b in FAIRNESS_PAIRS:
        windows = TRANSIENTS.items() if fam == "n5" else [("after the VBR start", AFTER_VBR)]
        for name, window in windows:
            out.append(
                {
                    "where": "N = 5, transient" if fam == "n5" else "1,500-cell buffer",
                    "window": name,
                    "from_s": window[0],
                    "to_s": None if math.isinf(window[1]) else window[1],
                    "before": before.get((fam, a, b)),
                    # the claims' own window (the transient after the VBR start on N = 5)
                    "main_window": name == "after the VBR start",
                    **row(m, fam, a, b, window, reading),
                }
            )
    seeds = m.wide_seeds()
    return {"first": seeds[0], "last": seeds[-1], "n": len(seeds), "rows": out}


def min_rto(m: Measured, rows: list[Claim], quick: bool) -> dict[str, Any] | None:
    """The minimum-RTO readings beside the main model's 1 ms, each scored on every claim (but
    the sensitivity row) and on the fairness rows over the wide seeds; None where none ran."""
    ran = [r for r in MIN_RTO_READINGS if r in m.readings()]
    if not ran:
        return None
    main = claims(m, quick, sensitivity=False)
    under = {r: claims(m.under(r), quick, sensitivity=False) for r in ran}
    per_reading = {g["key"]: g for g in readings(m, rows, quick)}
    settings = [{"label": scenario_min_rto(), "key": None}] + [
        {"label": f"{MIN_RTO_READINGS[r]} ms", "key": r} for r in ran
    ]
    table = []
    for k, c in enumerate(main):
        cells = [{"measured": c.measured, "agrees": c.agrees}] + [
            {"measured": under[r][k].measured, "agrees": under[r][k].agrees} for r in ran
        ]
        table.append({"claim": c.claim, "unit": c.unit, "paper": c.paper, "cells": cells})
    enough = len(m.wide_seeds()) >= MIN_CAUSE_SEEDS
    for st in settings:
        rs = main if st["key"] is None else under[st["key"]]
        st["agree"] = sum(r.agrees for r in rs)
        st["total"] = len(rs)
        st["fair"] = fairness_rows(m, None, st["key"])["rows"]
        g = per_reading.get(st["key"])
        st["cause"] = bool(g is not None and named_cause(g, st["fair"], enough))
    return {"settings": settings, "table": table, "enough": enough}


def scenario_min_rto() -> str:
    """The minimum RTO the built-in An 1997 scenarios set, as their canonical TOML writes it."""
    import tomllib

    import atmsim

    return str(tomllib.loads(atmsim.validate(FAMILIES["n5"][0]))["tcp"]["min_rto"])


def named_cause(g: dict[str, Any], fair: list[dict[str, Any]], enough: bool) -> bool:
    """The package's rule for naming reading ``g`` a cause, on what the runs measure: it turns
    a disagreeing row round, breaks none, every fairness row it turns holds on the wide seeds
    (at least MIN_CAUSE_SEEDS of them), and no fairness row is reversed on the visible
    measure."""
    return (
        enough
        and g["turned"]
        and not g["broken"]
        and not g["unheld"]
        and not any(f["visible"]["verdict"] == "reversed" for f in fair)
    )


def causes(m: Measured, rows: list[Claim], quick: bool) -> list[dict[str, Any]]:
    """Each reading run, whether the rule of :func:`named_cause` names it a cause."""
    enough = len(m.wide_seeds()) >= MIN_CAUSE_SEEDS
    out = []
    for g in readings(m, rows, quick):
        fair = fairness_rows(m, None, g["key"])["rows"]
        out.append(
            {
                "what": g["what"],
                "agree": g["agree"],
                "total": g["total"],
                "cause": named_cause(g, fair, enough),
                "fair": fair,
            }
        )
    return out
