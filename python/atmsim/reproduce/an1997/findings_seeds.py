"""Notes values of the An 1997 rows scored again: the fairness rows scored on the wide
seeds as mean +- sd of the Jain index and on the visible measure fixed in
:data:`.studies.VISIBLE` (both readings of "the transient" for N = 5), and the minimum-RTO
readings scored on every claim at once."""

from __future__ import annotations

import math
from typing import Any

from atmsim.reproduce.an1997.claims import claims, pair_of
from atmsim.reproduce.an1997.findings_rows import MIN_CAUSE_SEEDS, readings
from atmsim.reproduce.an1997.measure import (
    AFTER_VBR,
    Measured,
    starved_share,
    verdict,
    window_jain,
)
from atmsim.reproduce.an1997.schemes import FAMILIES, NAMES
from atmsim.reproduce.an1997.studies import (
    FAIRNESS_PAIRS,
    MIN_RTO_READINGS,
    TRANSIENTS,
    VISIBLE,
)
from atmsim.reproduce.framework import Claim


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
                    "pair": (fam, a, b),
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
    for i, st in enumerate(settings):
        g = per_reading.get(st["key"])
        if g is None:
            continue
        turned = {pair_of(r["claim"]) for r in g["moved"] if r["agrees"]} - {None}
        # sensitivity: a setting's neighbours (the next value below and above) that reverse,
        # on either measure, a row it turns round
        st["reversed_by"] = [
            settings[j]["label"]
            for j in (i - 1, i + 1)
            if 0 <= j < len(settings)
            and any(
                f["pair"] in turned
                and f["main_window"]
                and "reversed" in (f["jain"]["verdict"], f["visible"]["verdict"])
                for f in settings[j]["fair"]
            )
        ]
        st["candidate"], st["fails"] = candidate(g, st["fair"], enough, st["reversed_by"])
    return {"settings": settings, "table": table, "enough": enough}


def scenario_min_rto() -> str:
    """The minimum RTO the built-in An 1997 scenarios set, as their canonical TOML writes it."""
    import tomllib

    import atmsim

    return str(tomllib.loads(atmsim.validate(FAMILIES["n5"][0]))["tcp"]["min_rto"])


def candidate(
    g: dict[str, Any], fair: list[dict[str, Any]], enough: bool, reversed_by: list[str]
) -> tuple[bool, list[str]]:
    """Whether reading ``g`` is a candidate cause by the package's rule, on what its runs
    measure, and the criteria it fails: it turns a disagreeing row round, breaks none, every
    fairness row it turns holds on the wide seeds (at least MIN_CAUSE_SEEDS of them) and on
    the visible measure there, and (sensitivity) no neighbouring setting of the same parameter
    reverses a row it turns. A candidate is a cause only where the
    section on the row it turns also shows the thesis's account of it (the mechanism)."""
    fails = []
    if not enough:
        fails.append("seeds")
    if not g["turned"]:
        fails.append("turns none")
    if g["broken"]:
        fails.append("breaks a row")
    if g["unheld"]:
        fails.append("unheld")
    turned = {pair_of(r["claim"]) for r in g["moved"] if r["agrees"]} - {None}
    if any(
        f["pair"] in turned and f["main_window"] and f["visible"]["verdict"] != "holds"
        for f in fair
    ):
        fails.append("spans")
    if reversed_by:
        fails.append("neighbours reverse")
    return not fails, fails


def causes(
    m: Measured, rows: list[Claim], quick: bool, rto: dict[str, Any] | None
) -> list[dict[str, Any]]:
    """Each reading run, whether it is a candidate cause (:func:`candidate`; the minimum-RTO
    readings with their neighbours from ``rto``, the output of :func:`min_rto`)."""
    enough = len(m.wide_seeds()) >= MIN_CAUSE_SEEDS
    neighbours = {st["key"]: st.get("reversed_by", []) for st in (rto or {}).get("settings", [])}
    out = []
    for g in readings(m, rows, quick):
        fair = fairness_rows(m, None, g["key"])["rows"]
        ok, fails = candidate(g, fair, enough, neighbours.get(g["key"], []))
        out.append(
            {
                "what": g["what"],
                "agree": g["agree"],
                "total": g["total"],
                "candidate": ok,
                "fails": fails,
                "reversed_by": neighbours.get(g["key"], []),
            }
        )
    return out
