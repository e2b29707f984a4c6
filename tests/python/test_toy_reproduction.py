"""Adding a reproduction takes one package of a few small files (``toy_reproduction/``: the
description in ``__init__.py`` and ``notes.md.j2``): the framework runs it, publishes the
comparison, tables, notes and report, and rebuilds them from the stored runs."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from atmsim.reproduce.framework import COMPARISON_COLUMNS, notes
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
