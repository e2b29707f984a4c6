"""Sweeps: a grid of overrides times seeds over one base scenario, run through a cache so
that nothing finished is ever run twice or lost, on a local process pool or a Dask cluster.

::

    from atmsim.sweep import run_sweep
    res = run_sweep("examples/sweep-fang-buffers.toml", "out/fang-buffers")
    res.results      # one row per run      (also out/fang-buffers/results.parquet)
    res.aggregate    # mean/std per point   (also out/fang-buffers/aggregate.parquet)

``atmsim sweep FILE --out DIR`` is the same from the command line. The lower-level
:func:`run_cached` runs any list of :class:`RunRequest` through the cache; the paper
reproductions use it. The sweep file format, the cache layout and its guarantees and the
tables' columns are described in ``docs/sweeps.md``.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from atmsim.storage import atomic_write
from atmsim.sweep.execute import RunOutcome, RunRequest, identify, run_cached
from atmsim.sweep.progress import Progress
from atmsim.sweep.report import write_sweep_report
from atmsim.sweep.spec import (
    GridPoint,
    SweepError,
    SweepSpec,
    check_spec,
    load_spec,
    parse_spec,
)
from atmsim.sweep.stats import seeds_wanted
from atmsim.sweep.tables import aggregate_table, results_table, write_table

__all__ = [
    "GridPoint",
    "Progress",
    "RunOutcome",
    "RunRequest",
    "SweepError",
    "SweepResult",
    "SweepSpec",
    "check_spec",
    "identify",
    "load_spec",
    "parse_spec",
    "run_cached",
    "run_sweep",
    "write_sweep_report",
]


@dataclass
class SweepResult:
    spec: SweepSpec
    out_dir: Path
    outcomes: list[RunOutcome]
    results: pd.DataFrame
    aggregate: pd.DataFrame

    @property
    def ran(self) -> int:
        return sum(o.status == "ran" for o in self.outcomes)

    @property
    def cached(self) -> int:
        return sum(o.status == "cached" for o in self.outcomes)

    @property
    def failed(self) -> int:
        return sum(o.status == "failed" for o in self.outcomes)


def requests(
    spec: SweepSpec, seeds: dict[int, list[int]] | None = None
) -> list[tuple[GridPoint, int, RunRequest]]:
    """The sweep's runs in table order: grid points (first key slowest), then seeds
    (``seeds[point index]`` where given, else the sweep's)."""
    out = []
    for point in spec.points():
        for seed in (seeds or {}).get(point.index, spec.seeds):
            overrides = {**spec.fixed, **point.overrides()}
            label = ",".join(f"{k}={v}" for k, v in point.values) or spec.name
            out.append((point, seed, RunRequest(spec.scenario, overrides, seed, label)))
    return out


def run_sweep(
    spec_or_path: SweepSpec | str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = True,
) -> SweepResult:
    """Run a sweep into ``out_dir`` (created if needed) and write its tables.

    ``spec_or_path``: a sweep file or a parsed :class:`SweepSpec`. ``workers``: local
    processes (default every core; 1 runs in this process); ``scheduler``: a Dask scheduler
    address (``tcp://host:port``) to run on instead. ``progress``: a bar (on a terminal) or
    periodic lines on stderr. Raises :class:`SweepError` (nothing run) when the sweep cannot
    be used at all (see :func:`check_spec`); a run that fails is recorded in its outcome and
    in the tables, and the others go on.

    Writes ``out_dir/runs/<hash>/`` per run (see :mod:`atmsim.sweep.cache`),
    ``results.parquet``, ``aggregate.parquet``, ``sweep.toml`` (the sweep file, when given a
    path), ``sweep.json`` (the parsed sweep) and ``report.html`` (``atmsim report DIR``
    rebuilds it). Runs already in ``out_dir/runs`` are not
    run again.
    """
    spec = spec_or_path if isinstance(spec_or_path, SweepSpec) else load_spec(spec_or_path)
    check_spec(spec)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if not isinstance(spec_or_path, SweepSpec):
        src = Path(spec_or_path)
        if src.resolve() != (out / "sweep.toml").resolve():
            atomic_write(out / "sweep.toml", src.read_bytes())
    _write_json(out / "sweep.json", _spec_json(spec))
    per_point = {p.index: list(spec.seeds) for p in spec.points()}
    ran: set[str] = set()
    while True:
        plan = requests(spec, per_point)
        bar = Progress(len(plan), quiet=not progress, label=f"sweep {spec.name}")
        outcomes = run_cached(
            [r for _, _, r in plan],
            out / "runs",
            workers=workers,
            scheduler=scheduler,
            progress=bar,
        )
        ran |= {o.hash for o in outcomes if o.status == "ran" and o.hash}
        results = results_table(spec, plan, outcomes)
        if spec.until is None or not _more_seeds(spec, results, per_point):
            break
    # A run made in an earlier round of `until` counts as run now, not as found in the cache.
    outcomes = [
        dataclasses.replace(o, status="ran") if o.status == "cached" and o.hash in ran else o
        for o in outcomes
    ]
    aggregate = aggregate_table(spec, results)
    _warn_if_seeds_change_nothing(spec, aggregate)
    write_table(results, out / "results.parquet")
    write_table(aggregate, out / "aggregate.parquet")
    write_sweep_report(out)
    return SweepResult(spec, out, outcomes, results, aggregate)


def _warn_if_seeds_change_nothing(spec: SweepSpec, aggregate: pd.DataFrame) -> None:
    """A ScenarioWarning when several seeds of a grid point gave one and the same run (one
    fingerprint): the scenario has no random element, and a spread of 0 over its seeds says
    nothing about precision."""
    import warnings

    from atmsim.errors import ScenarioWarning

    same = aggregate[(aggregate["runs"] > 1) & (aggregate["distinct"] == 1)]
    if len(same):
        which = (
            "every grid point"
            if len(same) == len(aggregate)
            else (
                f"{len(same)} of {len(aggregate)} grid points ("
                + ", ".join(map(str, same["point"]))
                + ")"
            )
        )
        warnings.warn(
            ScenarioWarning(
                f"{spec.source}: seeds: at {which} the seeds gave identical runs (one "
                "fingerprint): the scenario has no random element, so its standard deviation "
                "and confidence interval of 0 say nothing about precision; give it one "
                "(e.g. random start times) or run one seed"
            ),
            stacklevel=3,
        )


def _more_seeds(spec: SweepSpec, results: pd.DataFrame, per_point: dict[int, list[int]]) -> bool:
    """Grow ``per_point`` where a grid point's interval is still too wide (``spec.until``);
    whether any grew."""
    until = spec.until
    assert until is not None
    if until.of not in results.columns:
        known = ", ".join(c for c in results.columns if c.startswith(("totals.", "goodput_mbps.")))
        raise SweepError(
            f"{spec.source}: seeds.of: no column {until.of!r} in the results ({known})"
        )
    grew = False
    for index, seeds in per_point.items():
        rows = results[results["point"] == index]
        values = rows[until.of].where(rows["status"] == "ok").astype("float64").to_numpy()
        want = seeds_wanted(values, until, spec.confidence)
        if want > len(seeds):
            per_point[index] = list(range(1, want + 1))
            grew = True
    return grew


def _spec_json(spec: SweepSpec) -> dict[str, Any]:
    import atmsim

    return {
        "name": spec.name,
        "description": spec.description,
        "scenario": spec.scenario,
        "seeds": spec.seeds,
        "until": None if spec.until is None else dataclasses.asdict(spec.until),
        "confidence": spec.confidence,
        "set": spec.fixed,
        "grid": spec.grid,
        # the sweep file, absolute where it is a file (the report's rerun line uses it)
        "source": str(Path(spec.source).resolve()) if Path(spec.source).is_file() else spec.source,
        # The build whose runs the tables hold (part of every run's key).
        "atmsim_version": atmsim.__version__,
        "build_id": atmsim.build_id(),
    }


def _write_json(path: Path, data: Any) -> None:
    atomic_write(path, json.dumps(data, indent=2, default=str) + "\n")
