"""The runs of the Cheon & Panwar 1998 reproduction: Tables 1-8, column by column, on five
seeds (quick: the first two columns, two seeds), the same columns again under the
alternative reading of the paper's TCP (:data:`ALTERNATIVE`), and the sensitivity study's
runs (:mod:`.study`)."""

from __future__ import annotations

from typing import Any

from atmsim.reproduce.cheon1998.published import TABLES, Table
from atmsim.reproduce.framework import Job

GROUPS = (tuple(f"s{i}" for i in range(1, 6)), tuple(f"s{i}" for i in range(6, 11)),
          tuple(f"s{i}" for i in range(11, 16)))  # fmt: skip
BOTTLENECK = "sw3->sw4"

FULL_SEEDS = (1, 2, 3, 4, 5)
QUICK_SEEDS = (1, 2)
QUICK_COLUMNS = (0, 1)
#: The seed of the traced runs of Figs. 2 and 3 (FIG2, FIG3: EPD at 95%, ESPD 95/90, 500 B).
TRACE_SEED = 1
FIG2 = (1, 0)
FIG3 = (3, 0)
#: The alternative reading every column is run again under: a variant of the sensitivity
#: study (the one holding the most of the paper's five criteria; of those holding all five on
#: the paper's seeds, the one that is BSD's Reno of the time throughout).
ALTERNATIVE = "bsd_reno"
#: Sensitivity set: (table, column) run again under ALTERNATIVE -- in full mode every column
#: of every table, in quick mode these four (the summary table of the report).
SENSITIVITY = ((1, 0), (2, 0), (3, 0), (4, 0))


def base(table: Table) -> str:
    """The table's built-in scenario."""
    return f"cheon1998-{table.scheme}-{table.packet}"


def label(table: Table, col: int, seed: int) -> str:
    return f"t{table.number}-{int(round(table.columns[col] * 100))}-s{seed}"


def overrides(table: Table, col: int) -> dict[str, Any]:
    """The switch policy of one column of ``table``."""
    fields = {**table.fixed, table.varied: table.columns[col]}
    return {f"switch.*.policy.{k}": v for k, v in fields.items()}


def columns(table: Table, quick: bool) -> tuple[int, ...]:
    return QUICK_COLUMNS if quick else tuple(range(len(table.columns)))


def seeds(quick: bool) -> tuple[int, ...]:
    return QUICK_SEEDS if quick else FULL_SEEDS


def sensitivity_points(quick: bool) -> tuple[tuple[int, int], ...]:
    if quick:
        return SENSITIVITY
    return tuple((t.number, c) for t in TABLES for c in range(len(t.columns)))


def _traced(table: Table, col: int, seed: int) -> bool:
    return seed == TRACE_SEED and (table.number, col) in (FIG2, FIG3)


def _job(table: Table, col: int, seed: int, over: dict[str, Any], prefix: str = "") -> Job:
    traced = _traced(table, col, seed)
    # Sampling only reads the model (the totals are the same at any interval): fine for the
    # traced runs of Figs. 2-3, coarse for the rest to keep the cache small.
    return Job(
        base(table),
        {**over, "run.sample_every": "2 ms" if traced else "100 ms"},
        seed=seed,
        label=prefix + label(table, col, seed),
        metrics=("cwnd_bytes", "queue_cells") if traced else (),
        entities=(*sum(GROUPS, ()), BOTTLENECK) if traced else (),
    )


def jobs(quick: bool = False) -> list[Job]:
    """Every run of the reproduction: tables x columns x seeds, then the sensitivity set,
    then the study's runs."""
    from atmsim.reproduce.cheon1998 import study

    out: list[Job] = []
    for t in TABLES:
        for col in columns(t, quick):
            for seed in seeds(quick):
                out.append(_job(t, col, seed, overrides(t, col)))
    _, every, epd_only = study.VARIANTS[ALTERNATIVE]
    for number, col in sensitivity_points(quick):
        t = TABLES[number - 1]
        extra = epd_only if t.scheme == "epd" else {}
        for seed in seeds(quick):
            out.append(_job(t, col, seed, {**overrides(t, col), **every, **extra}, "alt-"))
    out.extend(study.jobs(quick))
    return out


def shown(js: list[Job]) -> list[Job]:
    """The runs whose scenarios the report shows: every run of the trace seed."""
    return [j for j in js if j.seed == TRACE_SEED]
