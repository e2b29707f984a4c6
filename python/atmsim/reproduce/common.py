"""What every paper reproduction shares: a parallel runner, comparison rows with explicit
tolerance rules, and the writers for ``comparison.csv``, ``notes.md``, the per-run results
and the HTML report.

A reproduction module typically does::

    jobs = [Job("fang1994-an2", {"run.duration": "3 s"}), ...]
    results = run_many(jobs, out_dir=out / "runs")          # one process per core
    rows = [compare("Fig 4: ...", paper=23.3, measured=x, unit="Mb/s", tol=REL_10PCT)]
    write_comparison(rows, out / "comparison.csv")

Tolerances
----------
A :class:`Tolerance` is fixed *before* anything is measured: reproduction modules define
their tolerances as module-level constants, each with the reason for its width written next
to it, and :func:`compare` only applies them. Nothing here adjusts a tolerance after seeing
a measurement, and a reproduction must never widen one to make a row agree: a row that
disagrees stays in the table, with the modelling cause in its note.

The rules (``measured`` m, the paper's value p):

- ``rel(f)``: ``|m - p| <= f * |p|`` (a relative band around the paper's number);
- ``absolute(d)``: ``|m - p| <= d`` in the row's unit (``absolute(0)`` is exact equality,
  used for the paper's exact zeros: zero cell loss under credit flow control);
- ``between(lo, hi)``: ``lo <= m <= hi``, for a band stated outright (e.g. by the issue);
- ``factor(k)``: ``p / k <= m <= p * k``, for quantities the paper reads off one run of a
  different simulator and that depend on details it leaves open;
- ``above(x)`` / ``below(x)``: ``m > x`` / ``m < x`` for qualitative claims ("higher",
  "lower"), with ``x`` the threshold the claim implies (usually 0 or 1);
- ``at_least(x)`` / ``at_most(x)``: ``m >= x`` / ``m <= x``.

A NaN or missing measurement never agrees.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from atmsim.storage import atomic_write

__all__ = [
    "COMPARISON_COLUMNS",
    "publish",
    "Claim",
    "Job",
    "Stopwatch",
    "Tolerance",
    "above",
    "absolute",
    "at_least",
    "at_most",
    "below",
    "between",
    "compare",
    "factor",
    "format_claims",
    "load_results",
    "read_run_info",
    "rebuild_reproduction",
    "rel",
    "run_many",
    "run_path",
    "run_reproduction",
    "scenario_texts",
    "write_claims_json",
    "write_comparison",
    "write_notes",
    "write_run_info",
]

#: The columns of ``comparison.csv``, in order (the public contract of every reproduction).
COMPARISON_COLUMNS = ("claim", "paper", "measured", "unit", "tolerance", "agrees")


# --------------------------------------------------------------------------------------------
# Running


@dataclass
class Job:
    """One run: a scenario (built-in name or path), overrides and an optional seed.

    ``label`` names the run in messages and in its ``run.json`` (default: the scenario name);
    two jobs of one reproduction must not share a label. ``metrics`` / ``entities``, when
    given, keep only those series in the returned results (the cache keeps them all).
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


def _filtered(job: Job, res: Any) -> Any:
    """Keep only the series ``job`` asks for (``metrics`` / ``entities``)."""
    if job.metrics is None and job.entities is None:
        return res
    return res.select(metrics=job.metrics, entities=job.entities)


def _requests(jobs: Sequence[Job]) -> list[Any]:
    from atmsim.sweep import RunRequest

    return [RunRequest(j.scenario, dict(j.overrides), j.seed, j.name) for j in jobs]


def run_many(
    jobs: Sequence[Job],
    workers: int | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    *,
    scheduler: str | None = None,
    progress: bool | None = None,
) -> list[Any]:
    """Run every job through the sweep engine's cache and return their ``atmsim.Results``
    in the order of ``jobs``.

    ``out_dir``: the run cache (``out_dir/<hash>/``, see :mod:`atmsim.sweep.cache`); a job
    already there is not run again, so an interrupted reproduction resumes where it stopped
    and a repeated one runs nothing. Without ``out_dir`` the runs go to a temporary cache.
    ``workers``: local processes (default every core; 1 runs in this process);
    ``scheduler``: a Dask scheduler address instead. ``progress``: a progress bar on stderr
    (default: when stderr is a terminal). A failing run raises with its label and message.
    """
    import sys
    import tempfile

    from atmsim.sweep import run_cached

    names = [job.name for job in jobs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"two jobs share the label(s) {dupes}; give each a distinct label")
    show = sys.stderr.isatty() if progress is None else progress
    with tempfile.TemporaryDirectory(prefix="atmsim-runs-") as tmp:
        cache_dir = Path(out_dir) if out_dir is not None else Path(tmp)
        outcomes = run_cached(
            _requests(jobs), cache_dir, workers=workers, scheduler=scheduler, progress=show
        )
        failed = [(j, o) for j, o in zip(jobs, outcomes, strict=True) if not o.ok]
        if failed:
            lines = "; ".join(f"{j.name} ({j.scenario}): {o.error}" for j, o in failed[:5])
            raise RuntimeError(f"{len(failed)} run(s) failed: {lines}")
        return [_filtered(j, o.results()) for j, o in zip(jobs, outcomes, strict=True)]


def run_path(job: Job, runs_dir: str | os.PathLike[str]) -> Path:
    """The cache folder that holds (or will hold) ``job``'s run."""
    from atmsim.sweep import identify

    return Path(runs_dir) / identify(_requests([job])[0]).hash


RUN_INFO = "reproduction.json"


def write_run_info(
    out_dir: str | os.PathLike[str], name: str, quick: bool, runs_s: float, workers: int
) -> Path:
    """Record how a reproduction's runs were made (``DIR/reproduction.json``: ``workers`` 0
    when they ran on a Dask cluster), so that ``atmsim report DIR`` can rebuild its report
    from the stored runs without running them."""
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


def run_reproduction(
    name: str,
    jobs: Sequence[Job],
    build: Any,
    out_dir: str | os.PathLike[str],
    quick: bool,
    workers: int | None = None,
    scheduler: str | None = None,
) -> int:
    """What every reproduction's ``main`` does: run ``jobs`` through the cache in
    ``out_dir/runs`` (on ``workers`` local processes, default every core, or on the Dask
    cluster whose scheduler is at ``scheduler``), record how (:func:`write_run_info`), then
    call ``build(out, quick, jobs, results, runs_s, workers, clock)`` for everything else
    (``workers`` 0: the runs went to a Dask cluster)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    clock = Stopwatch()
    js = list(jobs)
    n_used = 0 if scheduler else min(workers or os.cpu_count() or 1, len(js))
    where = f"the Dask cluster at {scheduler}" if scheduler else f"{n_used} worker(s)"
    print(f"{name}: {len(js)} runs{' (--quick)' if quick else ''} on {where} ...", flush=True)
    results = run_many(js, workers=n_used or None, out_dir=out / "runs", scheduler=scheduler)
    runs_s = clock.seconds
    write_run_info(out, name, quick, runs_s, n_used)
    return build(out, quick, js, results, runs_s, n_used, clock)


def rebuild_reproduction(jobs_for: Any, build: Any, out_dir: str | os.PathLike[str]) -> int:
    """What every reproduction's ``report`` does: rebuild its outputs from the runs stored
    in ``out_dir`` (``jobs_for(quick)`` names them); nothing is run."""
    out = Path(out_dir)
    info = read_run_info(out)
    quick = bool(info["quick"])
    js = jobs_for(quick)
    results = load_results(js, out / "runs")
    return build(out, quick, js, results, float(info["runs_wall_s"]), int(info["workers"]))


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
            out.append(_filtered(j, Results.read(p)))
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
    reproduction applied to it."""
    from atmsim.api import scenario_text

    out: dict[str, str] = {}
    for job in jobs:
        text, _ = scenario_text(job.scenario)
        head = []
        if job.overrides:
            head.append("# Overrides applied by the reproduction (atmsim run --set):")
            head += [f"#   {k} = {v}" for k, v in job.overrides.items()]
        if job.seed is not None:
            head.append(f"# Seed: {job.seed}")
        out[job.name] = ("\n".join(head) + "\n\n" + text) if head else text
    return out


# --------------------------------------------------------------------------------------------
# Tolerances and claims


@dataclass(frozen=True)
class Tolerance:
    """An agreement rule (see the module docstring); build one with :func:`rel`,
    :func:`absolute`, :func:`between`, :func:`factor`, :func:`above`, :func:`below`,
    :func:`at_least` or :func:`at_most`. Immutable: a rule is fixed before measuring."""

    kind: str
    a: float = 0.0
    b: float = 0.0

    def check(self, measured: float, paper: float | None = None) -> bool:
        m = _number(measured)
        if m is None:
            return False
        p = _number(paper)
        k = self.kind
        if k in ("rel", "abs", "factor") and p is None:
            raise ValueError(f"tolerance {self.describe()} needs a numeric paper value")
        if k == "rel":
            return abs(m - p) <= self.a * abs(p)
        if k == "abs":
            return abs(m - p) <= self.a
        if k == "factor":
            lo, hi = sorted((p / self.a, p * self.a))
            return lo <= m <= hi
        if k == "between":
            return self.a <= m <= self.b
        if k == "above":
            return m > self.a
        if k == "below":
            return m < self.a
        if k == "at_least":
            return m >= self.a
        if k == "at_most":
            return m <= self.a
        raise ValueError(f"unknown tolerance kind {k!r}")

    def describe(self, unit: str = "") -> str:
        u = f" {unit}" if unit and unit != "%" else unit
        k = self.kind
        if k == "rel":
            return f"±{_g(self.a * 100)}% of paper"
        if k == "abs":
            return "exact" if self.a == 0 else f"±{_g(self.a)}{u}"
        if k == "factor":
            return f"within a factor of {_g(self.a)} of paper"
        if k == "between":
            return f"{_g(self.a)}-{_g(self.b)}{u}"
        if k == "above":
            return f"> {_g(self.a)}{u}"
        if k == "below":
            return f"< {_g(self.a)}{u}"
        if k == "at_least":
            return f">= {_g(self.a)}{u}"
        if k == "at_most":
            return f"<= {_g(self.a)}{u}"
        return k


def rel(fraction: float) -> Tolerance:
    """``|measured - paper| <= fraction * |paper|``."""
    return Tolerance("rel", float(fraction))


def absolute(delta: float) -> Tolerance:
    """``|measured - paper| <= delta`` (``absolute(0)``: exact)."""
    return Tolerance("abs", float(delta))


def between(lo: float, hi: float) -> Tolerance:
    """``lo <= measured <= hi``."""
    return Tolerance("between", float(lo), float(hi))


def factor(k: float) -> Tolerance:
    """``paper / k <= measured <= paper * k``."""
    if k < 1:
        raise ValueError("factor(k) needs k >= 1")
    return Tolerance("factor", float(k))


def above(x: float) -> Tolerance:
    """``measured > x``."""
    return Tolerance("above", float(x))


def below(x: float) -> Tolerance:
    """``measured < x``."""
    return Tolerance("below", float(x))


def at_least(x: float) -> Tolerance:
    """``measured >= x``."""
    return Tolerance("at_least", float(x))


def at_most(x: float) -> Tolerance:
    """``measured <= x``."""
    return Tolerance("at_most", float(x))


@dataclass
class Claim:
    """One row of the comparison with the paper.

    ``claim`` names the figure or table and states what the paper says; ``paper`` is the
    paper's number (or a short text such as ``"> AN2"`` for a qualitative claim);
    ``measured`` is ours; ``tolerance`` is the rule's text; ``note`` (not in the CSV, shown
    in the report) says where the measurement comes from and, for a disagreement, the
    modelling cause.
    """

    claim: str
    paper: float | str
    measured: float
    unit: str
    tolerance: str
    agrees: bool
    note: str = ""

    def as_row(self) -> dict[str, str]:
        return {
            "claim": self.claim,
            "paper": _fmt(self.paper),
            "measured": _fmt(self.measured),
            "unit": self.unit,
            "tolerance": self.tolerance,
            "agrees": "true" if self.agrees else "false",
        }


def compare(
    claim: str,
    *,
    paper: float | str,
    measured: float,
    unit: str,
    tol: Tolerance,
    paper_value: float | None = None,
    tolerance_text: str | None = None,
    note: str = "",
) -> Claim:
    """A :class:`Claim` with ``agrees`` decided by ``tol``.

    ``paper`` is what the table shows; ``paper_value`` is the number the rule compares with
    when that differs from ``paper`` (e.g. ``paper="0.63"`` shown, ``paper_value=63`` in %),
    and defaults to ``paper`` when it is a number. ``tolerance_text`` replaces the rule's
    own description (keep it faithful to the rule: it is what the CSV reports).
    """
    ref = paper_value if paper_value is not None else _number(paper)
    agrees = tol.check(measured, ref)
    return Claim(
        claim=claim,
        paper=paper,
        measured=float(measured) if _number(measured) is not None else math.nan,
        unit=unit,
        tolerance=tolerance_text or tol.describe(unit),
        agrees=bool(agrees),
        note=note,
    )


def write_comparison(rows: Sequence[Claim], path: str | os.PathLike[str]) -> Path:
    """Write ``comparison.csv`` with exactly the columns ``claim, paper, measured, unit,
    tolerance, agrees`` (``agrees`` is ``true``/``false``)."""
    buf = io.StringIO(newline="")
    writer = csv.DictWriter(buf, fieldnames=list(COMPARISON_COLUMNS))
    writer.writeheader()
    for row in rows:
        writer.writerow(row.as_row())
    return atomic_write(path, buf.getvalue())


def write_claims_json(rows: Sequence[Claim], path: str | os.PathLike[str]) -> Path:
    """The comparison with notes, as JSON (for tools; the CSV is the contract)."""
    data = [{**r.as_row(), "agrees": r.agrees, "note": r.note} for r in rows]
    return atomic_write(path, json.dumps(data, indent=2) + "\n")


def format_claims(rows: Sequence[Claim], width: int = 64) -> str:
    """A plain-text table of the comparison for the terminal."""
    lines = [f"{'':3}{'claim':<{width}} {'paper':>10} {'measured':>10} {'unit':<6} tolerance"]
    for r in rows:
        mark = "ok" if r.agrees else "XX"
        text = r.claim if len(r.claim) <= width else r.claim[: width - 1] + "…"
        lines.append(
            f"{mark:2} {text:<{width}} {_fmt(r.paper):>10} {_fmt(r.measured):>10} "
            f"{r.unit:<6} {r.tolerance}"
        )
    agree = sum(r.agrees for r in rows)
    lines.append(f"{agree} of {len(rows)} claims agree within their tolerances")
    return "\n".join(lines)


def write_notes(text: str, path: str | os.PathLike[str]) -> Path:
    return atomic_write(path, text.rstrip() + "\n")


def publish(
    out: Path,
    name: str,
    title: str,
    rows: Sequence[Claim],
    figs: list[tuple[Path, str]],
    notes: str,
    js: Sequence[Job],
    meta: dict[str, Any],
    *,
    quick: bool,
    runs_s: float,
    n_workers: int,
    intro: str,
    tables: Any = None,
    clock: Stopwatch,
    results: Sequence[Any] | None = None,
    scenarios: Sequence[Job] | None = None,
) -> int:
    """What every reproduction writes after its measurements: comparison.csv / .json,
    notes.md and report.html (``meta`` first, then the version, runs, wall time, the model's
    own wall time summed over ``results`` when given, Python and the command), the claim table
    on stdout; returns 0. The report shows the scenarios of ``scenarios`` (default: the first
    job of each scenario file)."""
    import platform

    import atmsim
    from atmsim.report import write_report

    write_comparison(rows, out / "comparison.csv")
    write_claims_json(rows, out / "comparison.json")
    write_notes(notes, out / "notes.md")
    meta = {
        **meta,
        "atmsim version": atmsim.__version__,
        "atmsim build": atmsim.build_id(),
        "runs": len(js),
        "wall time of the runs": f"{runs_s:.1f} s on "
        + (f"{n_workers} worker(s)" if n_workers else "a Dask cluster"),
    }
    if results is not None:
        summed = sum(float(r.summary["wall_s"]) for r in results)
        meta["model wall time, summed"] = f"{summed:.1f} s"
    meta["python"] = f"{platform.python_implementation()} {platform.python_version()}"
    meta["command"] = f"atmsim reproduce {name}" + (" --quick" if quick else "") + f" --out {out}"
    if scenarios is None:
        firsts: dict[str, Job] = {}
        for j in js:
            firsts.setdefault(j.scenario, j)
        scenarios = list(firsts.values())
    write_report(
        out,
        title,
        list(rows),
        figs,
        notes,
        scenario_texts(list(scenarios)),
        meta,
        intro=intro,
        tables=tables,
    )
    print(format_claims(rows))
    print(f"{name}: wrote {out / 'report.html'} ({clock.seconds:.1f} s)", file=sys.stderr)
    return 0


class Stopwatch:
    """Wall time since creation, for the report's metadata."""

    def __init__(self) -> None:
        self.start = time.perf_counter()

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.start


# --------------------------------------------------------------------------------------------
# Small helpers


def _number(x: Any) -> float | None:
    if x is None or isinstance(x, bool):
        return None
    if isinstance(x, str):
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


def _g(x: float) -> str:
    return f"{x:.6g}"


def _fmt(x: Any) -> str:
    if isinstance(x, str):
        return x
    v = _number(x)
    if v is None:
        return "nan"
    if v == 0:
        return "0"
    return f"{v:.4g}" if abs(v) < 1e4 else f"{v:.0f}"
