"""A toy reproduction, the smallest a paper's package can be: two runs of the fang1994 network
(AN2 credits against cell drop, a few milliseconds each), one published number, one claim, a
table and a notes template. ``test_toy_reproduction.py`` runs it through the framework."""

from __future__ import annotations

from typing import Any

import pandas as pd

from atmsim.reproduce.framework import Job, Published, Reproduction, absolute, compare

#: "no cell is lost under credit flow control" (a made-up citation for the toy).
NO_LOSS = Published(0, "Toy paper, section 1", "cells")


def jobs(quick: bool) -> list[Job]:
    over = {"run.duration": "20 ms" if quick else "50 ms", "run.warmup": "5 ms"}
    return [
        Job("fang1994-an2-n2", over, label="credits"),
        # Its results are read for their totals alone: cached without series.
        Job("fang1994-cell-drop-n2", over, label="cell-drop", metrics=()),
    ]


def measure(js: list[Job], results: list[Any], quick: bool) -> dict[str, dict[str, float]]:
    return {
        j.name: {
            "dropped": float(r.totals["cells_dropped"]),
            "goodput": float(r.totals["goodput_mbps"]),
        }
        for j, r in zip(js, results, strict=True)
    }


def claims(m: dict[str, dict[str, float]], quick: bool) -> list[Any]:
    return [
        compare(
            "Section 1: no cell is lost under credits",
            paper=NO_LOSS.value,
            measured=m["credits"]["dropped"],
            unit=NO_LOSS.unit,
            tol=absolute(0),
            id="credits-lose-nothing",
        )
    ]


def notes(m: dict[str, dict[str, float]], rows: Any, quick: bool) -> dict[str, Any]:
    return {"runs": m, "more": m["credits"]["goodput"] > m["cell-drop"]["goodput"]}


REPRODUCTION = Reproduction(
    name="toy",
    title="A toy reproduction",
    citation="Toy paper",
    intro="Credits against cell drop on the fang1994 network, for the framework's tests.",
    package=__name__,
    jobs=jobs,
    measure=measure,
    claims=claims,
    notes=notes,
    mode=lambda quick: "quick" if quick else "full",
    tables=lambda m, quick: pd.DataFrame([{"run": k, **v} for k, v in m.items()]),
)

main = REPRODUCTION.main
report = REPRODUCTION.report
