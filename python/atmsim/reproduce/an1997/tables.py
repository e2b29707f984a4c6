"""tables.csv (every main run) and the report's tables."""

from __future__ import annotations

import pandas as pd

from atmsim.reproduce.an1997.criteria import CRITERIA, EFCI_CRITERIA, efci_criteria, fmmra_criteria
from atmsim.reproduce.an1997.measure import Measured
from atmsim.reproduce.an1997.schemes import FAMILIES, NAMES
from atmsim.reproduce.an1997.studies import (
    EFCI_GRID,
    FAIRNESS_VARIANTS,
    FMMRA_GRID,
    WIDE_WINDOW_KIB,
    efci_grid,
    efci_key,
    fmmra_key,
    grid,
)
from atmsim.reproduce.framework import HtmlTable


def scheme_name(s: str) -> str:
    """A scheme key as the report names it."""
    if s in NAMES:
        return NAMES[s]
    for hi, lo in EFCI_GRID:
        if s == efci_key(hi, lo):
            return f"EFCI (marking from {hi:,} cells, clearing at {lo:,})"
    for setting in FMMRA_GRID:
        if s == fmmra_key(*setting):
            return f"FMMRA (target {setting[0]:g}, QT/DQT {setting[1]:,}/{setting[2]:,})"
    base, extra = FAIRNESS_VARIANTS[s]
    what = (
        "CCR measured by the port"
        if "measured-ccr" in s
        else f"{WIDE_WINDOW_KIB} KB TCP windows"
        if "window" in s
        else "ABR capacity less the VBR load"
        if "vbr-subtracted" in s
        else "averaging interval 10 ms / 1,000 cells"
    )
    return f"{NAMES[base]} ({what})"


def runs(m: Measured) -> list[tuple[str, str]]:
    """Every run as (family, scheme key), in the order of the jobs (a reading's runs are
    reported with the reading)."""
    return [tuple(k.split("-", 1)) for k in m.res if ":" not in k]  # type: ignore[misc]


def tables(m: Measured, quick: bool = False) -> pd.DataFrame:
    """tables.csv: every main run (a reading's runs and the wider seeds' left out)."""
    rows = []
    for fam, s in runs(m):
        scenario, n, p, _ = FAMILIES[fam]
        rows.append(
            {
                "family": fam,
                "scenario": scenario,
                "sources": n,
                "vbr_on_off_ms": p,
                "scheme": s,
                "max_queue_cells": m.max_queue(fam, s),
                "goodput_mbps": round(m.total(fam, s), 3),
                "fairness_index": round(m.fairness(fam, s), 4),
                "cells_dropped": m.dropped(fam, s),
            }
        )
    return pd.DataFrame(rows)


def html_tables(m: Measured, quick: bool) -> list[HtmlTable]:
    body = []
    for fam, (_, n, p, schemes) in FAMILIES.items():
        for s in schemes:
            body.append(
                [
                    f"N = {n}, VBR {p} ms" + (", 1,500-cell buffer" if fam == "buffer" else ""),
                    NAMES[s],
                    f"{m.max_queue(fam, s):,}",
                    f"{m.total(fam, s):.1f}",
                    f"{m.fairness(fam, s):.4f}",
                    f"{m.dropped(fam, s):,}",
                ]
            )
    grid_body = []
    for setting in grid(quick):
        c = fmmra_criteria(m, fmmra_key(*setting))
        grid_body.append(
            [f"{setting[0]:g}", f"{setting[1]:,} / {setting[2]:,}"]
            + [f"{v} {'yes' if ok else 'NO'}" for ok, v in c.values()]
        )
    efci_body = []
    for hi, lo in efci_grid(quick):
        c = efci_criteria(m, efci_key(hi, lo))
        efci_body.append(
            [f"{hi:,} / {lo:,}"] + [f"{v} {'yes' if ok else 'NO'}" for ok, v in c.values()]
        )
    fair_body = [
        [
            scheme_name(s),
            f"{m.transient_fairness('n5', s):.4f}",
            f"{m.short_term_fairness('n5', s):.4f}",
        ]
        for s in ("erica", "fmmra", "efci", *FAIRNESS_VARIANTS)
    ]
    return [
        HtmlTable(
            "Every run: the bottleneck's largest ABR queue, the TCPs' goodput and Jain index "
            "after 0.3 s, and cells lost (the thesis has no table to set beside these)",
            ["network", "scheme", "max queue (cells)", "goodput (Mb/s)", "Jain", "cells lost"],
            body,
        ),
        HtmlTable(
            "FMMRA's unstated settings against every claim of the thesis about FMMRA (each "
            "cell: the measured value, and whether the claim holds)",
            ["target", "QT / DQT (cells)", *CRITERIA],
            grid_body,
        ),
        HtmlTable(
            "EFCI's unstated marking thresholds against every claim of the thesis about EFCI "
            "(each cell: the measured value, and whether the claim holds; fairness: mean over "
            "seeds)",
            ["marking from / clearing at (cells)", *EFCI_CRITERIA],
            efci_body,
        ),
        HtmlTable(
            "Transient fairness at N = 5 (0.3-0.6 s) under choices the thesis leaves open: "
            "Jain index of the mean goodputs, and the mean of the Jain index of each 5 ms sample",
            ["run", "Jain of means", "mean of 5 ms Jain"],
            fair_body,
        ),
    ]
