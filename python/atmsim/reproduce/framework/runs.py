"""Running a reproduction's runs through the run cache, and reading them back.

A reproduction names its runs as :class:`Job` values (a scenario, overrides, a seed, a
label); :func:`run_many` runs them through the sweep engine's cache (one process per core,
or a Dask cluster), so an interrupted reproduction resumes where it stopped and a repeated
one runs nothing; :func:`load_results` reads them back without running anything, checking
each against its manifest.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from atmsim.storage import atomic_write

__all__ = [
    "RUN_INFO",
    "Job",
    "Stopwatch",
    "load_results",
    "make_runs",
    "read_run_info",
    "read_runs",
    "run_many",
    "run_path",
    "runs_digest",
    "scenario_texts",
    "write_run_info",
]


@dataclass
class Job:
    """One run: a scenario (built-in name or path), overrides and an optional seed.

    ``label`` names the run in messages and in its ``run.json`` (default: the scenario name);
    two jobs of one reproduction must not share a label. ``metrics`` / ``entities``, when
    given, keep only those series in the returned results, and the run cache keeps only
    those for this job (none when either is empty, :attr:`wants_series`); a later job that
    reads other series of the same run has it made again.
    """

    scenario: str
    overrides: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None
    label: str | None = None
    metrics: tuple[str, ...] | None = None
    entities: tuple[str, ...] | None = None

    @property
    def name(self) -> str:
        return self.label or Path(str(self.scenario)).stem

    @property
    def wants_series(self) -> bool:
        """Whether the job reads any series: not when ``metrics`` or ``entities`` is empty.
        Its run is then cached without them (writing every series was about 7% of a run's
        time, and most of the run cache's disk)."""
        return not (
            (self.metrics is not None and not self.metrics)
            or (self.entities is not None and not self.entities)
        )


def _requests(jobs: Sequence[Job]) -> list[Any]:
    from atmsim.sweep import RunRequest

    return [
        RunRequest(
            j.scenario,
            dict(j.overrides),
            j.seed,
            j.name,
            metrics=None if j.metrics is None else tuple(j.metrics),
            entities=None if j.entities is None else tuple(j.entities),
        )
        for j in jobs
    ]


def run_many(
    jobs: Sequence[Job],
    workers: int | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    *,
    scheduler: str | None = None,
    progress: bool | None = None,
    tally: dict[str, int] | None = None,
) -> list[Any]:
    """Run every job through the sweep engine's cache and return their ``atmsim.Results``
    in the order of ``jobs``.

    ``out_dir``: the run cache (``out_dir/<hash>/``, see :mod:`atmsim.sweep.cache`); a job
    already there is not run again, so an interrupted reproduction resumes where it stopped
    and a repeated one runs nothing. Without ``out_dir`` the runs go to a temporary cache.
    ``workers``: local processes (default every core; 1 runs in this process);
    ``scheduler``: a Dask scheduler address instead. ``progress``: a progress bar on stderr
    (default: when stderr is a terminal). ``tally``: if given, receives how many runs
    were made now (``"ran"``), how many jobs were found in the cache or share a run another
    job made (``"cached"``) and how many distinct runs the jobs are (``"distinct"``). A
    failing run raises with its label and message.
    """
    import tempfile

    with tempfile.TemporaryDirectory(prefix="atmsim-runs-") as tmp:
        cache_dir = Path(out_dir) if out_dir is not None else Path(tmp)
        outcomes = make_runs(
            jobs, workers, cache_dir, scheduler=scheduler, progress=progress, tally=tally
        )
        return read_runs(jobs, outcomes)


def make_runs(
    jobs: Sequence[Job],
    workers: int | None,
    cache_dir: str | os.PathLike[str],
    *,
    scheduler: str | None = None,
    progress: bool | None = None,
    tally: dict[str, int] | None = None,
    cancel: Any = None,
) -> list[Any]:
    """The first half of :func:`run_many`: every job made or found in the run cache
    ``cache_dir``; returns the ``RunOutcome`` of each, in the order of ``jobs`` (nothing read).
    ``cancel``: see ``atmsim.sweep.run_cached``."""
    import sys

    from atmsim.sweep import run_cached

    names = [job.name for job in jobs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"two jobs share the label(s) {dupes}; give each a distinct label")
    show = sys.stderr.isatty() if progress is None else progress
    outcomes = run_cached(
        _requests(jobs),
        Path(cache_dir),
        workers=workers,
        scheduler=scheduler,
        progress=show,
        cancel=cancel,
    )
    if tally is not None:
        tally["ran"] = sum(o.status == "ran" for o in outcomes)
        tally["cached"] = sum(o.status == "cached" for o in outcomes)
        tally["distinct"] = len({o.hash for o in outcomes if o.hash is not None})
    failed = [(j, o) for j, o in zip(jobs, outcomes, strict=True) if not o.ok]
    if failed:
        lines = "; ".join(f"{j.name} ({j.scenario}): {o.error}" for j, o in failed[:5])
        raise RuntimeError(f"{len(failed)} run(s) failed: {lines}")
    return outcomes


def read_runs(jobs: Sequence[Job], outcomes: Sequence[Any]) -> list[Any]:
    """The second half of :func:`run_many`: each job's ``atmsim.Results`` (its series of
    ``metrics`` and ``entities`` only), read from the cache."""
    return [o.results(j.metrics, j.entities) for j, o in zip(jobs, outcomes, strict=True)]


def runs_digest(outcomes: Sequence[Any]) -> str:
    """One hash of the runs a reproduction read, in order (each run's identity)."""
    import hashlib

    return hashlib.sha256("\n".join(o.hash for o in outcomes).encode()).hexdigest()


def run_path(job: Job, runs_dir: str | os.PathLike[str]) -> Path:
    """The cache folder that holds (or will hold) ``job``'s run."""
    from atmsim.sweep import identify

    return Path(runs_dir) / identify(_requests([job])[0]).hash


RUN_INFO = "reproduction.json"


def write_run_info(
    out_dir: str | os.PathLike[str],
    name: str,
    quick: bool,
    runs_s: float,
    workers: int,
    *,
    runs: int | None = None,
    ran: int | None = None,
    distinct: int | None = None,
) -> Path:
    """Record how a reproduction's runs were made (``DIR/reproduction.json``: ``workers`` 0
    when they ran on a Dask cluster; ``runs`` jobs, ``distinct`` distinct runs among them
    (jobs that are the same scenario and seed share one), ``ran`` made now, the rest found
    in the cache), so that ``atmsim report DIR`` can rebuild its report from the stored runs
    without running them, and ``atmsim reproduce all`` can say how long a reproduction takes
    when none of its runs is cached."""
    from atmsim import __version__, build_id

    path = Path(out_dir) / RUN_INFO
    info = {
        "reproduction": name,
        "quick": bool(quick),
        "atmsim_version": __version__,
        "build_id": build_id(),
        "runs_wall_s": round(float(runs_s), 3),
        "workers": int(workers),
    }
    if runs is not None:
        info["runs"] = int(runs)
    if ran is not None:
        info["runs_made_now"] = int(ran)
    if distinct is not None:
        info["runs_distinct"] = int(distinct)
    return atomic_write(path, json.dumps(info, indent=2) + "\n")


def read_run_info(out_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """The record :func:`write_run_info` left, or ``FileNotFoundError`` saying what is
    missing."""
    from atmsim.errors import ResultsError

    path = Path(out_dir) / RUN_INFO
    if not path.is_file():
        raise FileNotFoundError(
            f"{path}: not found; {out_dir} is not the output of `atmsim reproduce NAME --out DIR`"
        )
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(info, dict) or not isinstance(info.get("reproduction"), str):
            raise ValueError("no reproduction named")
        return info
    except (OSError, ValueError) as exc:
        raise ResultsError(f"{path}: damaged ({exc}); rerun the reproduction") from None


def load_results(jobs: Sequence[Job], runs_dir: str | os.PathLike[str]) -> list[Any]:
    """The stored results of ``jobs`` (from the run cache ``runs_dir``), in order, each
    checked against its manifest; raises ``FileNotFoundError`` naming every run that is
    missing, or ``atmsim.ResultsError`` naming every run that is damaged (a file missing,
    truncated or edited, or stored by an atmsim without manifests). Nothing is run."""
    from atmsim.api import Results
    from atmsim.errors import ResultsError

    paths = [run_path(j, runs_dir) for j in jobs]
    missing = [j.name for j, p in zip(jobs, paths, strict=True) if not p.exists()]
    if missing:
        import atmsim

        raise FileNotFoundError(
            f"{runs_dir}: no stored results of this build ({atmsim.build_id()}) for "
            f"{_some(missing)}; runs of another build are never reused: "
            "`atmsim reproduce` with the same --out makes them"
        )
    out, damaged = [], []
    for j, p in zip(jobs, paths, strict=True):
        try:
            out.append(Results.read(p, metrics=j.metrics, entities=j.entities))
        except ResultsError as exc:
            what = str(exc).removeprefix(f"{p}: ").split(" (")[0]
            damaged.append(f"{j.name} (run {p.name[:16]}: {what})")
    if damaged:
        raise ResultsError(
            f"{runs_dir}: stored runs not whole, not used: {_some(damaged)}; "
            "`atmsim reproduce` with the same --out makes them again"
        )
    return out


def _some(names: Sequence[str], n: int = 5) -> str:
    """The first ``n`` of ``names``, and how many more."""
    more = f" and {len(names) - n} more" if len(names) > n else ""
    return ", ".join(names[:n]) + more


def scenario_texts(jobs: Sequence[Job]) -> dict[str, str]:
    """``{job.name: TOML text}`` for the report: the scenario file as written (with its
    comments on where each parameter comes from), headed by the overrides and seed the
    reproduction applied to it; a file that names a ``base`` is followed by the whole
    scenario it resolves to (what ``atmsim scenario show`` prints), so every value shows."""
    import re

    from atmsim.api import scenario_text, validate

    out: dict[str, str] = {}
    for job in jobs:
        text, _ = scenario_text(job.scenario)
        head = []
        if job.overrides:
            head.append("# Overrides applied by the reproduction (atmsim run --set):")
            head += [f"#   {k} = {v}" for k, v in job.overrides.items()]
        if job.seed is not None:
            head.append(f"# Seed: {job.seed}")
        if re.search(r"^base\s*=", text, flags=re.M):
            text += (
                f"\n\n# ---- {job.scenario} resolved (atmsim scenario show {job.scenario}) ----\n\n"
                + validate(job.scenario)
            )
        out[job.name] = ("\n".join(head) + "\n\n" + text) if head else text
    return out


class Stopwatch:
    """Wall time since creation, for the report's metadata."""

    def __init__(self) -> None:
        self.start = time.perf_counter()

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.start
