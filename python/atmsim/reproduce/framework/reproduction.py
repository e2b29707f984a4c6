"""A reproduction as a description, and what every reproduction does with it, written once.

A paper's package builds one :class:`Reproduction`: its name, title and citation, its runs
(``jobs(quick)``), how to measure them (``measure``), its claims, tables and figures, and the
values its notes template (``notes.md.j2`` in the package) is rendered with. Running
(:meth:`Reproduction.main`), rebuilding from stored runs (:meth:`Reproduction.report`) and
publishing (:func:`publish`: comparison.csv/.json, tables.csv, notes.md with
notes-values.json, report.html, the claim table on stdout) are the framework's, the same for
every paper.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import platform
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from atmsim.reproduce.framework import plan as plans
from atmsim.reproduce.framework.claims import Claim, Claims, fmt_ci, fmt_value
from atmsim.reproduce.framework.notes import write_notes, write_values
from atmsim.reproduce.framework.runs import (
    RUN_INFO,
    Job,
    Stopwatch,
    load_results,
    make_runs,
    read_run_info,
    read_runs,
    runs_digest,
    scenario_texts,
    write_run_info,
)
from atmsim.storage import atomic_write, file_record

__all__ = [
    "COMPARISON_COLUMNS",
    "OUTPUTS_FILE",
    "Figure",
    "HtmlTable",
    "Made",
    "Reproduction",
    "format_claims",
    "publish",
    "write_claims_json",
    "write_comparison",
]

#: The columns of ``comparison.csv``, in order (the public contract of every reproduction).
#: ``measured_ci`` (the half-width of the 95 % interval of the mean) and ``seeds`` are
#: filled for rows measured over several seeds, empty for single runs; files written before
#: they existed lack both, and the readers take that as single runs.
COMPARISON_COLUMNS = (
    "claim",
    "paper",
    "measured",
    "measured_ci",
    "seeds",
    "unit",
    "tolerance",
    "agrees",
)


@dataclass(frozen=True)
class Figure:
    """A figure the reproduction drew: the PNG's path and its caption."""

    path: Path
    caption: str


@dataclass(frozen=True)
class HtmlTable:
    """A table of the report: caption, header and rows of text (paper | ours cells)."""

    caption: str
    header: list[str]
    rows: list[list[str]]


@dataclass(frozen=True)
class Made:
    """A reproduction's runs, made or found in its cache (:meth:`Reproduction.make`): what
    :meth:`Reproduction.finish` writes the outputs from. ``runs_s``: the wall time of making
    them; ``workers``: the local workers they had (0 on a Dask cluster); ``ran``: how many
    were made rather than found; ``distinct``: the distinct runs among the jobs (jobs that
    are the same scenario and seed share one); ``clock``: started before the runs."""

    out: Path
    quick: bool
    jobs: list[Job]
    outcomes: list[Any]
    runs_s: float
    workers: int
    ran: int
    clock: Stopwatch
    distinct: int | None = None


@dataclass(frozen=True)
class Reproduction:
    """What a paper's package declares; the framework does the rest.

    - ``jobs(quick) -> list[Job]``: the runs, in a fixed order;
    - ``measure(jobs, results, quick)``: the package's measurements of them (any object);
    - ``claims(m, quick) -> list[Claim]``: the comparison rows;
    - ``notes(m, claims, quick) -> dict``: the values (plain data) ``notes.md.j2`` is
      rendered with; ``claims`` (every row as a dict), ``agree``, ``total`` and ``quick`` are
      added by the framework;
    - ``tables(m, quick) -> pandas.DataFrame``: ``tables.csv``;
    - ``figures(m, folder, quick) -> list[Figure]``; ``html_tables(m, quick)``;
    - ``mode(quick)``: the report's words for the run length;
    - ``shown(jobs)``: the runs whose scenarios the report shows (default: the first of each
      scenario file);
    - ``extra(m, out, quick)``: further files of the package's own (the atlas's tables).
    """

    name: str
    title: str
    citation: str
    intro: str
    package: str
    jobs: Callable[[bool], list[Job]]
    measure: Callable[[list[Job], list[Any], bool], Any]
    claims: Callable[[Any, bool], list[Claim]]
    notes: Callable[[Any, Claims, bool], Mapping[str, Any]]
    mode: Callable[[bool], str]
    tables: Callable[[Any, bool], Any] | None = None
    figures: Callable[[Any, Path, bool], list[Figure]] | None = None
    html_tables: Callable[[Any, bool], list[HtmlTable]] | None = None
    shown: Callable[[list[Job]], list[Job]] | None = None
    extra: Callable[[Any, Path, bool], None] | None = None
    meta: Mapping[str, str] = field(default_factory=dict)

    # ----------------------------------------------------------------------------------------

    def main(
        self,
        out_dir: str | os.PathLike[str],
        quick: bool = False,
        *,
        workers: int | None = None,
        scheduler: str | None = None,
    ) -> int:
        """Run the reproduction into ``out_dir`` (run cache ``runs/``, on ``workers`` local
        processes, default every core, or on the Dask cluster at ``scheduler``) and write its
        outputs; returns 0 (rows that disagree are results, reported in comparison.csv).
        Before the runs it prints its plan (:meth:`plan`). The two halves are :meth:`make`
        and :meth:`finish`."""
        return self.finish(self.make(out_dir, quick, workers=workers, scheduler=scheduler))

    def make(
        self,
        out_dir: str | os.PathLike[str],
        quick: bool = False,
        *,
        workers: int | None = None,
        scheduler: str | None = None,
        cancel: Any = None,
    ) -> Made:
        """The first half of :meth:`main`: its plan printed, then every run made or found in
        the run cache. ``cancel``: an ``atmsim._core.CancelToken`` another thread may cancel
        (local workers only; ``atmsim.errors.Cancelled`` is then raised, the finished runs
        kept)."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        clock = Stopwatch()
        js = list(self.jobs(quick))
        n_used = self.workers_used(len(js), workers, scheduler)
        print(self.plan(out, quick, workers=workers, scheduler=scheduler).line(), flush=True)
        tally: dict[str, int] = {}
        outcomes = make_runs(
            js,
            n_used or None,
            out / "runs",
            scheduler=scheduler,
            progress=None,
            tally=tally,
            cancel=cancel,
        )
        return Made(
            out, quick, js, outcomes, clock.seconds, n_used, tally["ran"], clock, tally["distinct"]
        )

    def finish(self, made: Made) -> int:
        """The second half of :meth:`main`: the outputs of the runs ``made`` (nothing is made
        again when the folder's outputs are this build's, from these runs, unchanged)."""
        out, quick, js = made.out, made.quick, made.jobs
        digest = runs_digest(made.outcomes)
        if made.ran == 0 and outputs_current(out, quick, digest):
            print(self.up_to_date_line(out, len(js)), file=sys.stderr, flush=True)
            return 0
        results = read_runs(js, made.outcomes)
        write_run_info(
            out,
            self.name,
            quick,
            made.runs_s,
            made.workers,
            runs=len(js),
            ran=made.ran,
            distinct=made.distinct,
        )
        status = self.build(out, quick, js, results, made.runs_s, made.workers, made.clock)
        write_outputs(out, quick, digest)
        return status

    def up_to_date_line(self, out: Path, runs: int) -> str:
        """What a rerun that has nothing to do says."""
        agree, rows = _agreeing(out / "comparison.csv")
        return (
            f"{self.name}: up to date: its {runs:,} runs were all in its cache, and the outputs "
            f"in {out} are this build's, from these runs, unchanged ({agree} of {rows} rows "
            f"agree); `atmsim report {out}` makes them again"
        )

    @staticmethod
    def workers_used(runs: int, workers: int | None, scheduler: str | None) -> int:
        """The local workers ``runs`` runs get (0 on a Dask cluster)."""
        return 0 if scheduler else min(workers or os.cpu_count() or 1, runs)

    def plan(
        self,
        out_dir: str | os.PathLike[str],
        quick: bool = False,
        *,
        workers: int | None = None,
        scheduler: str | None = None,
        last: Mapping[str, Any] | None = None,
    ) -> plans.Plan:
        """What :meth:`main` with these arguments would run: its runs, how many are in the
        cache of ``out_dir`` already, and the estimated wall time of the rest (from ``last``,
        default: this reproduction's entry in the package's record of the last full run)."""
        js = list(self.jobs(quick))
        if last is None:
            last = plans.last_full_runs().get(self.name)
        n_used = self.workers_used(len(js), workers, scheduler)
        return plans.plan(self.name, js, out_dir, quick, n_used, last)

    def report(self, out_dir: str | os.PathLike[str]) -> int:
        """Rebuild the outputs of an earlier run from the runs stored in ``out_dir``; nothing
        is run."""
        out = Path(out_dir)
        info = read_run_info(out)
        quick = bool(info["quick"])
        js = list(self.jobs(quick))
        results = load_results(js, out / "runs")
        return self.build(out, quick, js, results, float(info["runs_wall_s"]), int(info["workers"]))

    def evaluate(self, js: list[Job], results: list[Any], quick: bool) -> tuple[Any, Claims]:
        """The measurements and the claims of stored runs (what tests check)."""
        m = self.measure(js, results, quick)
        return m, Claims(self.claims(m, quick))

    def notes_values(self, m: Any, rows: Claims, quick: bool) -> dict[str, Any]:
        """The values ``notes.md.j2`` is rendered with."""
        values = dict(self.notes(m, rows, quick))
        values.update(
            quick=quick,
            agree=rows.agreeing,
            total=len(rows),
            claims=[{**r.as_row(), "agrees": r.agrees, "note": r.note, "id": r.id} for r in rows],
        )
        return values

    def build(
        self,
        out: Path,
        quick: bool,
        js: list[Job],
        results: list[Any],
        runs_s: float,
        n_workers: int,
        clock: Stopwatch | None = None,
    ) -> int:
        """Everything after the runs: measurements, claims, tables, figures, notes, report.
        The record of finished outputs (:data:`OUTPUTS_FILE`) goes first: until
        :meth:`main` writes it again, a rerun makes the outputs again."""
        (out / OUTPUTS_FILE).unlink(missing_ok=True)
        m, rows = self.evaluate(js, results, quick)
        if self.tables is not None:
            atomic_write(out / "tables.csv", self.tables(m, quick).to_csv(index=False))
        if self.extra is not None:
            self.extra(m, out, quick)
        figs = self.figures(m, out / "figures", quick) if self.figures else []
        html = self.html_tables(m, quick) if self.html_tables else None
        values = self.notes_values(m, rows, quick)
        write_values(values, out)
        write_notes(self.package, values, out)
        meta = {"paper": self.citation, "mode": self.mode(quick), **self.meta}
        shown = self.shown(js) if self.shown else None
        return publish(
            out, self, rows, figs, js, meta, quick=quick, runs_s=runs_s, n_workers=n_workers,
            tables=html, clock=clock or Stopwatch(), results=results, scenarios=shown,
        )  # fmt: skip


# --------------------------------------------------------------------------------------------
# Outputs that are up to date

#: Written last by :meth:`Reproduction.main`: the build and the runs (:func:`runs_digest`)
#: the outputs come from, the code that made them from the runs (:func:`analysis_id`), and
#: each output file's SHA-256 and size. A rerun whose runs were all cached and that finds this
#: record true makes nothing again.
OUTPUTS_FILE = "outputs.json"

#: The files of the package whose code or templates turn runs into a reproduction's outputs.
_ANALYSIS_SUFFIXES = (".py", ".j2", ".toml", ".css", ".html")


def analysis_id(root: Path | None = None) -> str:
    """SHA-256 of the atmsim package's Python code and templates (every file ending in
    :data:`_ANALYSIS_SUFFIXES`, by name; ``root``: the package's folder). The build id covers
    only what makes a run; the measurements, claims, tables, figures and notes of a
    reproduction are made by the rest of the package, so a change there makes the outputs
    again even where every run is cached."""
    root = root or Path(__file__).resolve().parents[2]
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.suffix not in _ANALYSIS_SUFFIXES or "__pycache__" in p.parts or not p.is_file():
            continue
        data = p.read_bytes()
        name = p.relative_to(root).as_posix().encode("utf-8")
        h.update(name + b"\0" + len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def _output_names(out: Path) -> list[str]:
    """The files a reproduction wrote in ``out``: all but its run cache, its records and
    temporary files."""
    names = []
    for p in sorted(out.rglob("*")):
        rel = p.relative_to(out)
        if rel.parts[0] == "runs" or rel.name in (RUN_INFO, OUTPUTS_FILE) or not p.is_file():
            continue
        if any(part.startswith(".") for part in rel.parts):
            continue
        names.append(rel.as_posix())
    return names


def write_outputs(out: Path, quick: bool, digest: str) -> Path:
    """Record that the outputs in ``out`` are this build's, from the runs ``digest``."""
    from atmsim import build_id

    record = {
        "build_id": build_id(),
        "analysis_id": analysis_id(),
        "quick": bool(quick),
        "runs_digest": digest,
        "files": {name: file_record(out / name) for name in _output_names(out)},
    }
    return atomic_write(out / OUTPUTS_FILE, json.dumps(record, indent=1, sort_keys=True) + "\n")


def outputs_current(out: Path, quick: bool, digest: str) -> bool:
    """Whether ``out`` holds the outputs this build and this package's analysis code make from
    the runs ``digest``, each file as it was written (none missing, edited or added since)."""
    from atmsim import build_id
    from atmsim.storage import check_files

    try:
        record = json.loads((out / OUTPUTS_FILE).read_text(encoding="utf-8"))
        files = record["files"]
        same = (
            record["build_id"] == build_id()
            and record["analysis_id"] == analysis_id()
            and record["quick"] == bool(quick)
            and record["runs_digest"] == digest
            and isinstance(files, dict)
            and "comparison.csv" in files
            and (out / RUN_INFO).is_file()
        )
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return same and sorted(files) == _output_names(out) and not check_files(out, files)


def _agreeing(path: Path) -> tuple[int, int]:
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return sum(r.get("agrees") == "true" for r in rows), len(rows)


# --------------------------------------------------------------------------------------------
# Publishing


def _table(t: HtmlTable | tuple[str, list[str], list[list[str]]]) -> tuple[Any, ...]:
    return (t.caption, t.header, t.rows) if isinstance(t, HtmlTable) else tuple(t)


def write_comparison(rows: Sequence[Claim], path: str | os.PathLike[str]) -> Path:
    """Write ``comparison.csv`` with exactly the columns of :data:`COMPARISON_COLUMNS`
    (``agrees`` is ``true``/``false``)."""
    buf = io.StringIO(newline="")
    writer = csv.DictWriter(buf, fieldnames=list(COMPARISON_COLUMNS))
    writer.writeheader()
    for row in rows:
        writer.writerow(row.as_row())
    return atomic_write(path, buf.getvalue())


def write_claims_json(rows: Sequence[Claim], path: str | os.PathLike[str]) -> Path:
    """The comparison with ids and notes, as JSON (for tools; the CSV is the contract); a row
    over several seeds also gives each seed's value (``by_seed``)."""
    data = []
    for r in rows:
        item = {"id": r.id, **r.as_row(), "agrees": r.agrees, "note": r.note}
        if r.over_seeds:
            item["by_seed"] = {str(k): v for k, v in r.by_seed.items()}
        data.append(item)
    return atomic_write(path, json.dumps(data, indent=2) + "\n")


def format_claims(rows: Sequence[Claim], width: int | None = None) -> str:
    """A plain-text table of the comparison for the terminal (a mean over seeds with the
    half-width of its interval: ``x ±h``). A claim longer than its column (``width``,
    default: what the terminal leaves beside the numbers) wraps onto further lines; nothing
    is cut."""
    import shutil
    import textwrap

    if width is None:
        width = max(40, shutil.get_terminal_size((120, 24)).columns - 58)
    lines = [f"{'':3}{'claim':<{width}} {'paper':>10} {'measured':>18} {'unit':<6} tolerance"]
    for r in rows:
        mark = "ok" if r.agrees else "XX"
        text = textwrap.wrap(r.claim, width) or [""]
        measured = fmt_value(r.measured)
        if r.over_seeds:
            measured += f" ±{fmt_ci(r.ci, r.measured)}"
        lines.append(
            f"{mark:2} {text[0]:<{width}} {fmt_value(r.paper):>10} {measured:>18} "
            f"{r.unit:<6} {r.tolerance}"
        )
        lines.extend(f"{'':3}{more}" for more in text[1:])
    agree = sum(r.agrees for r in rows)
    lines.append(f"{agree} of {len(rows)} claims agree within their tolerances")
    return "\n".join(lines)


def _run_spans(results: Sequence[Any]) -> dict[str, str]:
    """The seeds, simulated times and warm-ups of the runs, as the report lists them."""
    seeds = sorted({int(r.summary["seed"]) for r in results})
    shown = (
        ", ".join(map(str, seeds)) if len(seeds) <= 12 else f"{len(seeds)}: {seeds[0]}-{seeds[-1]}"
    )
    spans = sorted({float(r.summary["simulated_s"]) for r in results})
    warm = sorted({float(r.summary["warmup_s"]) for r in results})
    return {
        "seeds": shown,
        "simulated time per run": ", ".join(f"{x:g} s" for x in spans),
        "warm-up": ", ".join(f"{x:g} s" for x in warm),
    }


def publish(
    out: Path,
    repro: Reproduction,
    rows: Sequence[Claim],
    figs: Sequence[Figure],
    js: Sequence[Job],
    meta: dict[str, Any],
    *,
    quick: bool,
    runs_s: float,
    n_workers: int,
    tables: Any = None,
    clock: Stopwatch,
    results: Sequence[Any] | None = None,
    scenarios: Sequence[Job] | None = None,
) -> int:
    """comparison.csv / .json and report.html (``meta`` first, then the version, runs, wall
    time, the model's own wall time summed over ``results``, Python and the command), the
    claim table on stdout; returns 0. notes.md is written before this, from its template. The
    report shows the scenarios of ``scenarios`` (default: the first job of each scenario) and
    a picture of each distinct network the jobs run (``network-1.svg``, ... beside it)."""
    import atmsim
    from atmsim.pictures import network_pictures
    from atmsim.report import write_report

    write_comparison(rows, out / "comparison.csv")
    write_claims_json(rows, out / "comparison.json")
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
        meta.update(_run_spans(results))
    meta["python"] = f"{platform.python_implementation()} {platform.python_version()}"
    meta["command"] = (
        f"atmsim reproduce {repro.name}" + (" --quick" if quick else "") + f" --out {out}"
    )
    if scenarios is None:
        firsts: dict[str, Job] = {}
        for j in js:
            firsts.setdefault(j.scenario, j)
        scenarios = list(firsts.values())
    notes = (out / "notes.md").read_text(encoding="utf-8")
    networks = network_pictures(
        [(Path(str(j.scenario)).stem, j.scenario, j.overrides) for j in js], out
    )
    write_report(
        out,
        repro.title,
        list(rows),
        [(f.path, f.caption) for f in figs],
        notes,
        scenario_texts(list(scenarios)),
        meta,
        intro=repro.intro,
        tables=None if tables is None else [_table(t) for t in tables],
        networks=networks,
    )
    print(format_claims(rows))
    print(f"{repro.name}: wrote {out / 'report.html'} ({clock.seconds:.1f} s)", file=sys.stderr)
    return 0
