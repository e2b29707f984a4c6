"""Adding a reproduction takes one package of a few small files (``toy_reproduction/``: the
description in ``__init__.py`` and ``notes.md.j2``): the framework runs it, publishes the
comparison, tables, notes and report, and rebuilds them from the stored runs."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from atmsim.reproduce.framework import COMPARISON_COLUMNS, Job, notes
from toy_reproduction import REPRODUCTION


def test_a_toy_reproduction_runs_publishes_and_rebuilds(tmp_path: Path) -> None:
    out = tmp_path / "toy"
    assert REPRODUCTION.main(out, quick=True, workers=1) == 0
    for name in ("comparison.csv", "comparison.json", "tables.csv", "notes.md", "report.html"):
        assert (out / name).is_file(), name
    with (out / "comparison.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert tuple(rows[0]) == COMPARISON_COLUMNS
    claim = json.loads((out / "comparison.json").read_text(encoding="utf-8"))[0]
    assert claim["id"] == "credits-lose-nothing" and claim["agrees"] is True
    values = json.loads((out / notes.NOTES_VALUES).read_text(encoding="utf-8"))
    assert values["agree"] == values["total"] == 1
    assert values["runs"]["credits"]["dropped"] == 0
    assert notes.lint(notes.template_source("toy_reproduction")) == []
    # A job that reads no series (metrics=()) has its run cached without them.
    from atmsim.reproduce.framework.runs import run_path

    credits, cell_drop = REPRODUCTION.jobs(True)
    assert credits.wants_series and not cell_drop.wants_series
    assert (run_path(credits, out / "runs") / "series.parquet").is_file()
    assert not (run_path(cell_drop, out / "runs") / "series.parquet").exists()
    first = (out / "comparison.csv").read_bytes(), (out / "tables.csv").read_bytes()
    # Rebuilt from the stored runs (nothing run), the outputs are the same.
    assert REPRODUCTION.report(out) == 0
    assert ((out / "comparison.csv").read_bytes(), (out / "tables.csv").read_bytes()) == first


def test_runs_are_handed_out_longest_first_and_the_outputs_do_not_change(tmp_path: Path) -> None:
    """On two workers the runs start costliest first (the scenario layer's estimate of their
    events); the order they are made in changes no output: the toy on two workers writes the
    same comparison, tables, notes values and run folders as on one."""
    from atmsim.reproduce.framework.runs import _requests
    from atmsim.sweep.execute import estimated_cost, identify, longest_first

    short, long = (
        Job("fang1994-cell-drop-n2", {"run.duration": d, "run.warmup": "0 s"}, label=d)
        for d in ("10 ms", "40 ms")
    )
    calls = [
        (r.hash, i, (r.canonical, r.source, None, True))
        for i, r in enumerate(identify(q) for q in _requests([short, long]))
    ]
    costs = [estimated_cost(args[0], args[1]) for _, _, args in calls]
    assert 0 < costs[0] < costs[1]
    assert [first for _, first, _ in longest_first(calls)] == [1, 0]
    assert [first for _, first, _ in longest_first(calls[::-1])] == [1, 0]

    outputs = {}
    for workers in (1, 2):
        out = tmp_path / f"toy-{workers}"
        assert REPRODUCTION.main(out, quick=True, workers=workers) == 0
        files = ("comparison.csv", "tables.csv", notes.NOTES_VALUES)
        outputs[workers] = (
            {name: (out / name).read_bytes() for name in files},
            sorted(p.name for p in (out / "runs").iterdir()),
        )
    assert outputs[1] == outputs[2]


#: A record of a last full run of the toy, as `atmsim reproduce all` writes status.json:
#: 3 s for its 2 runs on 2 workers.
TOY_LAST = {"runs": 2, "runs_made_now": 2, "runs_wall_s": 3.0, "workers": 2, "quick": False}


def test_the_plan_counts_runs_and_cached_ones_and_estimates_the_rest(tmp_path: Path) -> None:
    """The plan's estimate is the last full run's time per run made, times the runs left,
    scaled by its workers over the workers now; unknown without a record or with --quick;
    nothing left to run takes no time."""
    out = tmp_path / "toy"
    p = REPRODUCTION.plan(out, quick=False, workers=1, last=TOY_LAST)
    assert (p.runs, p.cached, p.left, p.workers) == (2, 0, 2, 1)
    assert p.estimate_s == pytest.approx(3.0 / 2 * 2 * 2 / 1)
    assert p.line() == "toy: 2 runs, 0 in its cache, 2 to run on 1 worker(s); estimated 6 s"
    assert REPRODUCTION.plan(out, workers=2, last=TOY_LAST).estimate_s == pytest.approx(3.0)
    # The last run's two jobs were one run (the same scenario and seed): made once, in 3 s.
    shared = {**TOY_LAST, "runs_distinct": 1, "runs_made_now": 1}
    assert REPRODUCTION.plan(out, workers=2, last=shared).estimate_s == pytest.approx(3.0)
    unknown = REPRODUCTION.plan(out, quick=False, workers=1, last={})
    assert unknown.estimate_s is None and "estimated unknown (no full run" in unknown.line()
    quick = REPRODUCTION.plan(out, quick=True, workers=1, last=TOY_LAST)
    assert quick.estimate_s is None and "unknown" in quick.line()
    assert REPRODUCTION.main(out, quick=True, workers=1) == 0
    again = REPRODUCTION.plan(out, quick=True, workers=1, last=TOY_LAST)
    assert (again.cached, again.left, again.estimate_s) == (2, 0, 0.0)
    # The full runs are other runs (50 ms, not 20 ms): none of them is in the cache.
    assert REPRODUCTION.plan(out, quick=False, workers=1, last=TOY_LAST).cached == 0


@pytest.fixture
def toy_cli(monkeypatch: pytest.MonkeyPatch):
    """`atmsim reproduce` in this process with the toy as its one reproduction, and a record
    of its last full run."""
    import sys

    import toy_reproduction
    from atmsim import cli
    from atmsim.reproduce.framework import plan

    monkeypatch.setitem(sys.modules, "atmsim.reproduce.toy", toy_reproduction)
    monkeypatch.setattr(cli, "_reproductions", lambda: ["toy"])
    monkeypatch.setattr(plan, "last_full_runs", lambda: {"toy": TOY_LAST})
    return cli.main


def test_reproduce_prints_its_plan_before_it_starts(
    tmp_path: Path, toy_cli, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "toy"
    assert toy_cli(["reproduce", "toy", "--out", str(out), "--workers", "1"]) == 0
    said = capsys.readouterr().out
    first = "toy: 2 runs, 0 in its cache, 2 to run on 1 worker(s); estimated 6 s"
    assert said.splitlines()[0] == first, said
    assert toy_cli(["reproduce", "toy", "--out", str(out), "--workers", "1"]) == 0
    again = "toy: 2 runs, 2 in its cache, 0 to run on 1 worker(s); estimated 0.0 s"
    assert capsys.readouterr().out.splitlines()[0] == again


def test_reproduce_all_prints_the_plan_of_every_reproduction_first(
    tmp_path: Path, toy_cli, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "all"
    argv = ["reproduce", "all", "--quick", "--out", str(out), "--workers", "2"]
    assert toy_cli(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == [
        "plan: 1 reproduction(s), each one's runs made while the one before writes its outputs:",
        "  toy: 2 runs, 0 in its cache, 2 to run on 2 worker(s); estimated unknown (the last "
        "full run's times do not apply to --quick)",
        "  all: 2 runs, 0 in their caches, 2 to run; estimated unknown",
    ]
    assert toy_cli(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:3] == [
        "  toy: 2 runs, 2 in its cache, 0 to run on 2 worker(s); estimated 0.0 s",
        "  all: 2 runs, 2 in their caches, 0 to run; estimated 0.0 s",
    ]


def test_reproduce_all_makes_the_next_runs_while_it_writes_outputs(
    tmp_path: Path, toy_cli, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With two reproductions, the second's runs start before the first's outputs are
    written; each folder gets the outputs `atmsim reproduce NAME` writes alone."""
    import sys

    import toy_reproduction
    from atmsim import cli

    monkeypatch.setitem(sys.modules, "atmsim.reproduce.toy_again", toy_reproduction)
    monkeypatch.setattr(cli, "_reproductions", lambda: ["toy", "toy_again"])
    out = tmp_path / "all"
    assert toy_cli(["reproduce", "all", "--quick", "--out", str(out), "--workers", "2"]) == 0
    said = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("== ")]
    assert said == [
        "== reproduce toy: runs",
        "== reproduce toy_again: runs",
        "== reproduce toy: outputs",
        "== reproduce toy_again: outputs",
    ]
    alone = tmp_path / "alone"
    assert REPRODUCTION.main(alone, quick=True, workers=2) == 0
    files = ("comparison.csv", "tables.csv", notes.NOTES_VALUES)
    for name in ("toy", "toy_again"):
        assert {f: (out / name / f).read_bytes() for f in files} == {
            f: (alone / f).read_bytes() for f in files
        }, name
    assert (out / "index.html").is_file() and (out / "status.md").is_file()
