"""`atmsim reproduce all` and `atmsim report DIR`: every reproduction lands in its folder with
an index linking them, and a report rebuilt from the stored runs (no simulation) is the same
comparison as the one the runs produced."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from atmsim.reproduce import available


@pytest.fixture(scope="module")
def all_quick(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from conftest import run_cli

    out = tmp_path_factory.mktemp("all")
    proc = run_cli("reproduce", "all", "--quick", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


def test_every_reproduction_and_an_index(all_quick: Path) -> None:
    names = available()
    assert {"fang1994", "cheon1998"} <= set(names)
    index = (all_quick / "index.html").read_text("utf-8")
    for name in names:
        assert (all_quick / name / "report.html").is_file(), name
        assert (all_quick / name / "reproduction.json").is_file(), name
        assert f'href="{name}/report.html"' in index


def test_report_rebuilds_from_stored_runs(all_quick: Path, cli) -> None:
    before = (all_quick / "fang1994" / "comparison.csv").read_text("utf-8")
    (all_quick / "fang1994" / "report.html").unlink()
    shutil.rmtree(all_quick / "fang1994" / "figures")
    proc = cli("report", str(all_quick / "fang1994"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (all_quick / "fang1994" / "report.html").is_file()
    assert (all_quick / "fang1994" / "figures" / "fig12.png").is_file()
    assert (all_quick / "fang1994" / "comparison.csv").read_text("utf-8") == before


def test_report_refuses_a_folder_that_is_not_a_result(tmp_path: Path, cli) -> None:
    proc = cli("report", str(tmp_path))
    assert proc.returncode == 2
    assert "neither a reproduction" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_report_names_missing_runs(all_quick: Path, tmp_path: Path, cli) -> None:
    copy = tmp_path / "cheon"
    shutil.copytree(all_quick / "cheon1998", copy)
    victim = sorted((copy / "runs").iterdir())[0]
    label = json.loads((victim / "run.json").read_text("utf-8"))["label"]
    shutil.rmtree(victim)
    proc = cli("report", str(copy))
    assert proc.returncode == 2
    assert label in proc.stderr and "Traceback" not in proc.stderr


def test_index_renders_in_headless_chromium(all_quick: Path, browser) -> None:
    dom = browser(all_quick / "index.html")
    links = re.findall(r'<a href="([^"]+)/report.html"', dom)
    assert sorted(links) == sorted(available())
