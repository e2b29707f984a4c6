"""`atmsim reproduce all` and `atmsim report DIR`: every reproduction lands in its folder with
an index linking them, a second `reproduce all` on the same folder runs nothing new, and a
report rebuilt from the stored runs (no simulation) is the same comparison as the one the
runs produced.

`reproduce all --quick` runs on the session's quick reproductions (conftest.py), which the
per-paper tests share: the paper runs are made once a session, here or there, and the command
finds them all in its run cache (``DIR/<name>/runs/``). The tests that use it are marked
`reproduction` (both papers' quick runs, about 30 s of 2 cores); the refusal of a folder that
is not a result needs no reproduction and is not."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import NamedTuple

import pytest

from atmsim.reproduce import available
from conftest import run_cli
from htmlpage import parse_file


class AllRun(NamedTuple):
    out: Path
    #: ``{name: {run folder: mtime of its run.json}}`` before and after `reproduce all`.
    before: dict[str, dict[str, int]]
    after: dict[str, dict[str, int]]


def _stored_runs(out: Path) -> dict[str, dict[str, int]]:
    return {
        name: {
            p.name: (p / "run.json").stat().st_mtime_ns
            for p in (out / name / "runs").iterdir()
            if (p / "run.json").is_file()
        }
        for name in available()
    }


@pytest.fixture(scope="module")
def all_run(quick_reproductions) -> AllRun:
    for name in available():
        _, code = quick_reproductions(name)
        assert code == 0, name
    out = quick_reproductions.root
    before = _stored_runs(out)
    proc = run_cli("reproduce", "all", "--quick", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return AllRun(out, before, _stored_runs(out))


@pytest.fixture(scope="module")
def all_quick(all_run: AllRun) -> Path:
    return all_run.out


@pytest.mark.reproduction
def test_a_second_reproduce_all_runs_nothing_new(all_run: AllRun) -> None:
    assert all(all_run.before.values()), all_run.before
    assert all_run.after == all_run.before


@pytest.mark.reproduction
def test_every_reproduction_and_an_index(all_quick: Path) -> None:
    names = available()
    assert {"fang1994", "cheon1998", "kalyanaraman1996", "an1997", "goyal1998"} <= set(names)
    index = parse_file(all_quick / "index.html")
    for name in names:
        assert (all_quick / name / "report.html").is_file(), name
        assert (all_quick / name / "reproduction.json").is_file(), name
    hrefs = [a.attrs["href"] for a in index.all("a")]
    assert hrefs == [f"{name}/report.html" for name in names]


@pytest.mark.reproduction
def test_the_status_lines_are_counted_from_each_comparison(all_quick: Path) -> None:
    """status.md (docs/status.md is a copy from a full run) says, per reproduction, how many
    comparison rows agree: counted from comparison.csv, not typed in."""
    import csv
    import re

    text = (all_quick / "status.md").read_text("utf-8")
    # Each table row's two numbers, read back by the row's shape (its name, then "A of N").
    counts = {
        m["name"]: (int(m["agree"]), int(m["total"]))
        for m in re.finditer(
            r"^\| `(?P<name>[^`]+)` \| (?P<agree>\d+) of (?P<total>\d+) \|", text, re.M
        )
    }
    # status.json holds the same counts, and how many runs each reproduction has and made.
    entries = {e["name"]: e["result"] for e in json.loads((all_quick / "status.json").read_text())}
    for name, (agree, total) in counts.items():
        assert (entries[name]["agree"], entries[name]["rows"]) == (agree, total)
        assert entries[name]["runs"] >= entries[name]["runs_made_now"] >= 0
    for name in available():
        with (all_quick / name / "comparison.csv").open(newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        agree = sum(r["agrees"] == "true" for r in rows)
        assert counts[name] == (agree, len(rows)), text


@pytest.mark.reproduction
def test_report_rebuilds_from_stored_runs(all_quick: Path, tmp_path: Path, cli) -> None:
    fang = tmp_path / "fang1994"  # a copy: the session's reproductions stay as they were made
    shutil.copytree(all_quick / "fang1994", fang)
    before = (fang / "comparison.csv").read_text("utf-8")
    (fang / "report.html").unlink()
    shutil.rmtree(fang / "figures")
    proc = cli("report", str(fang))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (fang / "report.html").is_file()
    # Each written file is announced once (it was twice: by the reproduction and the CLI).
    said = proc.stdout + proc.stderr
    assert said.count(f"wrote {fang / 'report.html'}") == 1, said[-2000:]
    assert (fang / "figures" / "fig12.png").is_file()
    assert (fang / "comparison.csv").read_text("utf-8") == before


def test_report_refuses_a_folder_that_is_not_a_result(tmp_path: Path, cli) -> None:
    proc = cli("report", str(tmp_path))
    assert proc.returncode == 2
    assert "neither a reproduction" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.reproduction
def test_report_names_missing_runs(all_quick: Path, tmp_path: Path, cli) -> None:
    copy = tmp_path / "cheon"
    shutil.copytree(all_quick / "cheon1998", copy)
    victim = sorted((copy / "runs").iterdir())[0]
    label = json.loads((victim / "run.json").read_text("utf-8"))["label"]
    shutil.rmtree(victim)
    proc = cli("report", str(copy))
    assert proc.returncode == 2
    assert label in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.reproduction
def test_index_renders_in_headless_chromium(all_quick: Path, browser) -> None:
    dom = browser(all_quick / "index.html")
    links = re.findall(r'<a href="([^"]+)/report.html"', dom)
    assert sorted(links) == sorted(available())
