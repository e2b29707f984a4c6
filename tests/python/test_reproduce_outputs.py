"""A reproduction rerun whose runs are all cached, and whose outputs are this build's from
those runs and unchanged, makes nothing again; anything else makes the outputs again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from atmsim.reproduce.framework import reproduction as repro
from atmsim.reproduce.framework.runs import RUN_INFO
from conftest import run_cli


def _outputs(tmp_path: Path) -> Path:
    out = tmp_path / "r"
    (out / "figures").mkdir(parents=True)
    (out / "runs" / "abc").mkdir(parents=True)
    (out / "comparison.csv").write_text("claim,agrees\nx,true\ny,false\n", "utf-8")
    (out / "figures" / "f.png").write_bytes(b"png")
    (out / "runs" / "abc" / "run.json").write_text("{}", "utf-8")
    (out / RUN_INFO).write_text("{}", "utf-8")
    repro.write_outputs(out, True, "d1")
    return out


def test_the_record_holds_for_the_same_build_runs_mode_and_files(tmp_path: Path) -> None:
    out = _outputs(tmp_path)
    record = json.loads((out / repro.OUTPUTS_FILE).read_text("utf-8"))
    assert sorted(record["files"]) == ["comparison.csv", "figures/f.png"]
    assert repro.outputs_current(out, True, "d1")
    # The run cache and the records are not outputs: changing them changes nothing here.
    (out / "runs" / "abc" / "run.json").write_text('{"x": 1}', "utf-8")
    assert repro.outputs_current(out, True, "d1")


@pytest.mark.parametrize(
    "change",
    [
        "other runs",
        "full mode",
        "other build",
        "other analysis code",
        "file edited",
        "file gone",
        "file added",
        "no run info",
    ],
)
def test_anything_else_makes_the_outputs_again(
    tmp_path: Path, change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _outputs(tmp_path)
    quick, digest = True, "d1"
    if change == "other runs":
        digest = "d2"
    elif change == "full mode":
        quick = False
    elif change == "other build":
        monkeypatch.setattr("atmsim.build_id", lambda: "0" * 16)
    elif change == "other analysis code":
        # a reproduction's measurements, claims or notes template changed, the runs did not
        monkeypatch.setattr(repro, "analysis_id", lambda: "0" * 64)
    elif change == "file edited":
        (out / "figures" / "f.png").write_bytes(b"PNG")
    elif change == "file gone":
        (out / "figures" / "f.png").unlink()
    elif change == "file added":
        (out / "notes.md").write_text("new", "utf-8")
    elif change == "no run info":
        (out / RUN_INFO).unlink()
    assert not repro.outputs_current(out, quick, digest)


def test_the_analysis_code_identity_covers_the_reproduction_packages(tmp_path: Path) -> None:
    """The identity changes with a paper package's code or notes template, not with compiled
    caches or data; the build id, which keys the runs, covers none of the packages."""
    from atmsim import _build

    pkg = tmp_path / "atmsim"
    (pkg / "reproduce" / "paper" / "__pycache__").mkdir(parents=True)
    (pkg / "api.py").write_text("x = 1\n", "utf-8")
    notes = pkg / "reproduce" / "paper" / "notes.md.j2"
    notes.write_text("{{ a }}\n", "utf-8")
    first = repro.analysis_id(pkg)
    (pkg / "reproduce" / "paper" / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"x")
    (pkg / "reproduce" / "status.json").write_text("[]", "utf-8")
    assert repro.analysis_id(pkg) == first
    notes.write_text("{{ a }} and {{ b }}\n", "utf-8")
    assert repro.analysis_id(pkg) != first
    assert len(repro.analysis_id()) == 64
    assert not any(n.startswith("reproduce/") for n, _ in _build.python_files())


def test_a_damaged_record_means_not_up_to_date(tmp_path: Path) -> None:
    out = _outputs(tmp_path)
    (out / repro.OUTPUTS_FILE).write_text("[1, 2", "utf-8")
    assert not repro.outputs_current(out, True, "d1")
    (out / repro.OUTPUTS_FILE).write_text('{"files": 3}', "utf-8")
    assert not repro.outputs_current(out, True, "d1")


#: About 10 s: one rerun that finds everything current, one that remakes a quick Fang report.
@pytest.mark.slow
def test_a_rerun_of_a_current_reproduction_makes_nothing_and_an_edit_is_remade(
    quick_reproductions, tmp_path: Path
) -> None:
    src, code = quick_reproductions("fang1994")
    assert code == 0
    out = tmp_path / "fang1994"
    shutil.copytree(src, out)
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    proc = run_cli("reproduce", "fang1994", "--quick", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "fang1994: up to date: its 50 runs were all in its cache" in proc.stderr
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} == stamps
    notes = (out / "notes.md").read_text("utf-8")
    (out / "notes.md").write_text(notes + "\nedited\n", "utf-8")
    proc = run_cli("reproduce", "fang1994", "--quick", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "up to date" not in proc.stderr
    assert (out / "notes.md").read_text("utf-8") == notes
    assert repro.outputs_current(
        out, True, json.loads((out / repro.OUTPUTS_FILE).read_text("utf-8"))["runs_digest"]
    )
