"""What a reproduction is about to do, said before it starts: its runs, how many of them its
run cache already holds, and how long the rest should take.

The estimate comes from the package's copy of the last full ``atmsim reproduce all``
(``atmsim/reproduce/status.json``): that run's wall time over the runs it made then, times
the distinct runs left now (the jobs left, as many distinct runs per job as that run's jobs
were: jobs that are the same scenario and seed share one run), scaled by its workers over
the workers now. Without such a record (a
reproduction never run in full, ``--quick``, a run on a Dask cluster, or one whose runs were
all found in its cache) the estimate is unknown.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from atmsim.reproduce.framework.runs import Job, run_path

__all__ = ["STATUS_FILE", "Plan", "format_plans", "last_full_runs", "plan", "seconds_text"]

#: The record of the last full ``atmsim reproduce all``, in the ``atmsim.reproduce`` package.
STATUS_FILE = "status.json"


def last_full_runs() -> dict[str, dict[str, Any]]:
    """The package's copy of the last full ``atmsim reproduce all``'s status.json, by name
    (empty when there is none)."""
    path = Path(__file__).parent.parent / STATUS_FILE
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {e["name"]: e["result"] for e in entries if e.get("result")}


@dataclass(frozen=True)
class Plan:
    """A reproduction's runs (``runs``), those found in its cache (``cached``), the workers
    they will run on (0: a Dask cluster) and the estimated wall time of the rest
    (``estimate_s``; None: unknown, ``why`` says why)."""

    name: str
    runs: int
    cached: int
    workers: int
    estimate_s: float | None
    why: str = ""

    @property
    def left(self) -> int:
        return self.runs - self.cached

    def line(self) -> str:
        """``NAME: R runs, C in its cache, L to run on W worker(s); estimated T``."""
        where = "a Dask cluster" if self.workers == 0 else f"{self.workers} worker(s)"
        return (
            f"{self.name}: {self.runs:,} runs, {self.cached:,} in its cache, {self.left:,} to "
            f"run on {where}; estimated {self.estimate_text()}"
        )

    def estimate_text(self) -> str:
        if self.estimate_s is None:
            return f"unknown ({self.why})" if self.why else "unknown"
        return seconds_text(self.estimate_s)


def seconds_text(seconds: float) -> str:
    """A wall time as people say it: ``17 s``, ``4 min 35 s``, ``1 h 12 min``."""
    s = round(seconds)
    if s < 60:
        return f"{seconds:.0f} s" if seconds >= 1 else f"{seconds:.1f} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s" if s % 60 else f"{s // 60} min"
    return f"{s // 3600} h {s % 3600 // 60} min"


def _stored(job: Job, runs_dir: Path) -> bool:
    """Whether the cache holds ``job``'s run with the series it reads (its ``run.json``,
    written last, says so; the files are checked when the run is read). A job that does not
    validate is not."""
    import atmsim
    from atmsim.sweep import cache

    try:
        with warnings.catch_warnings():
            # The run shows the scenario's warnings; the plan does not repeat them.
            warnings.simplefilter("ignore", atmsim.ScenarioWarning)
            path = run_path(job, runs_dir)
        info = json.loads((path / cache.RUN_INFO).read_bytes())
        files = info["files"]
    except Exception:  # noqa: BLE001 - not stored (the run itself reports what is wrong)
        return False
    return cache.covers(cache.stored_kept(info, files), cache.kept(job.metrics, job.entities))


def plan(
    name: str,
    jobs: Sequence[Job],
    out_dir: str | os.PathLike[str],
    quick: bool,
    workers: int,
    last: Mapping[str, Any] | None,
) -> Plan:
    """The plan of reproduction ``name`` running ``jobs`` into ``out_dir`` (its cache
    ``out_dir/runs``) on ``workers`` local workers (0: a Dask cluster), estimated from
    ``last``, its entry of the last full run's status.json (None: none)."""
    runs_dir = Path(out_dir) / "runs"
    cached = sum(_stored(j, runs_dir) for j in jobs) if runs_dir.is_dir() else 0
    left = len(jobs) - cached
    estimate: float | None = None
    why = ""
    made = int(last.get("runs_made_now") or 0) if last else 0
    if left == 0:
        estimate = 0.0
    elif quick:
        why = "the last full run's times do not apply to --quick"
    elif not last or last.get("runs_wall_s") is None:
        why = "no full run recorded"
    elif made == 0:
        why = "the last full run made none of its runs"
    elif workers == 0:
        why = "on a Dask cluster"
    else:
        per_run = float(last["runs_wall_s"]) / made
        last_jobs = int(last.get("runs") or 0)
        distinct = last.get("runs_distinct")
        per_job = int(distinct) / last_jobs if distinct is not None and last_jobs > 0 else 1.0
        estimate = per_run * left * per_job * max(1, int(last.get("workers") or 1)) / workers
    return Plan(name, len(jobs), cached, workers, estimate, why)


def format_plans(plans: Sequence[Plan], overlap: bool = False) -> str:
    """The plan of ``atmsim reproduce all``: a line per reproduction, then the totals (the
    estimate unknown if any reproduction's is). ``overlap``: each one's runs start while the
    one before writes its outputs (the estimate, from runs alone, holds either way)."""
    order = (
        "each one's runs made while the one before writes its outputs"
        if overlap
        else "run one after the other"
    )
    lines = [f"plan: {len(plans)} reproduction(s), {order}:"]
    lines += [f"  {p.line()}" for p in plans]
    runs = sum(p.runs for p in plans)
    cached = sum(p.cached for p in plans)
    known = [p.estimate_s for p in plans if p.estimate_s is not None]
    total = seconds_text(sum(known)) if len(known) == len(plans) else "unknown"
    if known and len(known) < len(plans):
        total += f" (at least {seconds_text(sum(known))})"
    lines.append(
        f"  all: {runs:,} runs, {cached:,} in their caches, {runs - cached:,} to run; "
        f"estimated {total}"
    )
    return "\n".join(lines)
