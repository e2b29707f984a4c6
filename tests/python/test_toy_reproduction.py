"""Adding a reproduction takes one package of a few small files (``toy_reproduction/``: the
description in ``__init__.py`` and ``notes.md.j2``): the framework runs it, publishes the
comparison, tables, notes and report, and rebuilds them from the stored runs."""

from __future__ import annotations

import csv
import json
from pathlib import Path

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
