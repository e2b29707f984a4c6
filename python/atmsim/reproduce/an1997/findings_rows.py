"""Notes values about the rows: the fairness rows on the wider seeds (and the 1,500-cell row
on a hundred), and what each reading of the thesis's simulator does to every claim."""

from __future__ import annotations

from typing import Any

import numpy as np

from atmsim.reproduce.an1997.claims import claims, pair_of
from atmsim.reproduce.an1997.measure import Measured, _wins, sign_test
from atmsim.reproduce.an1997.schemes import NAMES, ROW_SCHEMES, ROW_SEEDS, SCHEMES
from atmsim.reproduce.an1997.studies import FAIRNESS_PAIRS, READINGS, VISIBLE
from atmsim.reproduce.framework import Claim

#: Seeds on which a cause may be named: a fairness row's sign over fewer (the quick mode's 2-3)
#: is the seeds' as often as not (a 2-seed mean of 0.898 for EFCI's index at one threshold
#: setting became 0.988 on 20), so with fewer the notes say what was measured and name nothing.
MIN_CAUSE_SEEDS = 20


def enough_seeds(m: Measured) -> bool:
    """Whether the wider seeds run are enough to name a cause (:data:`MIN_CAUSE_SEEDS`)."""
    return len(m.wide_seeds()) >= MIN_CAUSE_SEEDS


def wide_pair(m: Measured, fam: str, a: str, b: str, reading: str | None = None) -> dict[str, Any]:
    """One fairness row over the wide seeds: the mean difference and the seeds it holds in."""
    xa, xb = m.wide_pair(fam, a, b, reading)
    return {
        "where": "transient" if fam == "n5" else "buffer",
        "a": NAMES[a],
        "b": NAMES[b],
        "diff": float(np.mean(xa) - np.mean(xb)),
        "wins": _wins(xa, xb),
        "n": len(xa),
    }


def wide_holds(m: Measured, fam: str, a: str, b: str, reading: str | None = None) -> bool:
    """Whether a fairness row holds over the wide seeds on its own measure by the rule fixed
    in :data:`.studies.VISIBLE`: ``a`` fairer on the mean, and a two-sided sign test over the
    seeds with p below its level."""
    xa, xb = m.wide_pair(fam, a, b, reading)
    d = np.asarray(xa, dtype=float) - np.asarray(xb, dtype=float)
    wins, n = int((d > 0).sum()), int((d != 0).sum())
    p = sign_test(wins, n) if n else 1.0
    return float(d.mean()) > 0 and p < VISIBLE["p"]


def wide_pairs(m: Measured, reading: str | None = None) -> list[dict[str, Any]]:
    return [wide_pair(m, fam, a, b, reading) for fam, a, b in FAIRNESS_PAIRS]


def row_seeds(m: Measured) -> dict[str, Any] | None:
    """The 1,500-cell fairness row on :data:`ROW_SEEDS`, where they were run (full mode)."""
    a, b = ROW_SCHEMES
    seeds = [x for x in ROW_SEEDS if all(m.run_of("buffer", s, x) is not None for s in (a, b))]
    if len(seeds) < len(ROW_SEEDS):
        return None
    d = np.array([m.row_measure("buffer", a, x) - m.row_measure("buffer", b, x) for x in seeds])
    wins, n = int((d > 0).sum()), int((d != 0).sum())
    p = sign_test(wins, n) if n else 1.0
    return {
        "first": seeds[0],
        "last": seeds[-1],
        "a": NAMES[a],
        "b": NAMES[b],
        "diff": float(d.mean()),
        "se": float(d.std(ddof=1) / np.sqrt(len(d))),
        "wins": wins,
        "n": n,
        "p": p,
        "significant": p < 0.05,
        "better": NAMES[a] if 2 * wins > n else NAMES[b],
    }


def wide_section(m: Measured) -> dict[str, Any]:
    """The wide seeds' span and the fairness rows of the main model on them."""
    seeds = m.wide_seeds()
    return {"first": seeds[0], "last": seeds[-1], "pairs": wide_pairs(m)}


def reading_rows(m: Measured, quick: bool) -> dict[str, list[Claim]]:
    """Every claim (but the sensitivity row) under each reading of :data:`READINGS`."""
    return {r: claims(m.under(r), quick, sensitivity=False) for r in m.readings()}


def readings(m: Measured, rows: list[Claim], quick: bool) -> list[dict[str, Any]]:
    """What each reading does to every claim, from its runs."""
    main = {r.claim: r for r in rows}
    out = []
    for reading, under in reading_rows(m, quick).items():
        what, why, per_scheme = READINGS[reading]
        moved = [r for r in under if r.agrees != main[r.claim].agrees]
        turned = [r for r in moved if r.agrees]
        broken = any(not r.agrees for r in moved)
        unheld = [
            r.claim
            for r in turned
            if pair_of(r.claim) is not None and not wide_holds(m, *pair_of(r.claim), reading)
        ]
        under_m = m.under(reading)
        out.append(
            {
                "key": reading,
                "what": what,
                "why": why,
                "agree": sum(r.agrees for r in under),
                "total": len(under),
                "main_agree": sum(main[r.claim].agrees for r in under),
                "moved": [
                    {
                        "claim": r.claim,
                        "agrees": r.agrees,
                        "measured": r.measured,
                        "unit": r.unit,
                        "main": main[r.claim].measured,
                    }
                    for r in moved
                ],
                "held": [
                    {"claim": r.claim, "measured": r.measured, "unit": r.unit}
                    for r in under
                    if not r.agrees
                ],
                "lost": [
                    {
                        "scheme": NAMES[s],
                        "cells": under_m.dropped("buffer", s),
                        "main": m.dropped("buffer", s),
                    }
                    for s in SCHEMES
                    if s in per_scheme
                ],
                "pairs": wide_pairs(m, reading),
                "turned": bool(turned),
                "broken": broken,
                "unheld": unheld,
            }
        )
    return out
