"""Numbers you can trust: the build that made a run is part of its key, every stored run has a
manifest (each file's SHA-256 and size) and is reused only when its files match it, a damaged
run is made again (one line on stderr) with the same tables as an undamaged rerun, a report
never tracebacks on a damaged file, and an interrupted write never leaves a folder that reads
back as complete but is not (Results.write, the cache, the reproductions' files).

The sweeps here are tiny (two 50 ms runs of Fang's LAN); the tests that rerun a reproduction
or interrupt a real `atmsim run` with signals are marked `slow`."""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import atmsim
from atmsim import Results, ResultsError, storage
from atmsim.sweep import cache as run_cache
from atmsim.sweep import run_sweep
from conftest import ROOT, run_cli

TINY = """
name = "tiny"
scenario = "fang1994-cell-drop"
seeds = [1]
[set]
"run.duration" = "50 ms"
"run.warmup" = "0 s"
[grid]
"switch.*.vc_buffer" = ["256 cells", "512 cells"]
"""

TABLES = ("results.parquet", "aggregate.parquet")


def _tables(out: Path) -> dict[str, bytes]:
    return {name: (out / name).read_bytes() for name in TABLES}


@pytest.fixture(scope="module")
def tiny_sweep(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, bytes]]:
    """A finished tiny sweep (its file, its folder) and its tables, the same bytes on an
    undamaged rerun. Tests work on copies of the folder."""
    root = tmp_path_factory.mktemp("tiny-sweep")
    path = root / "tiny.toml"
    path.write_text(TINY, encoding="utf-8")
    out = root / "out"
    first = run_sweep(path, out, workers=1, progress=False)
    assert (first.ran, first.cached, first.failed) == (2, 0, 0)
    tables = _tables(out)
    again = run_sweep(path, out, workers=1, progress=False)
    assert (again.ran, again.cached) == (0, 2)
    assert _tables(out) == tables, "an undamaged rerun writes the same tables"
    return path, out, tables


def _copy(tiny_sweep, tmp_path: Path) -> tuple[Path, Path, list[str]]:
    path, out, _ = tiny_sweep
    copy = tmp_path / "out"
    shutil.copytree(out, copy)
    hashes = list(pd.read_parquet(copy / "results.parquet")["hash"])
    return path, copy, hashes


# --------------------------------------------------------------------------------------------
# Build identity


def test_build_id_is_short_hex_and_the_rust_half_hashes_the_sources() -> None:
    """atmsim.build_id() is 16 hex digits; _core.build_id() is the SHA-256 of the Rust sources
    the extension was built from, by the scheme of crates/atmsim-py/build.rs (recomputed here
    from this checkout: a failure means the installed extension is stale, or build.rs and
    this recomputation disagree)."""
    bid = atmsim.build_id()
    assert len(bid) == 16 and int(bid, 16) >= 0
    crates = ROOT / "crates"
    if not crates.is_dir():
        pytest.skip("not run from a checkout of atmsim")
    files = [ROOT / "Cargo.toml", ROOT / "Cargo.lock"]
    for krate in sorted(p for p in crates.iterdir() if p.is_dir()):
        if (krate / "Cargo.toml").is_file():
            files.append(krate / "Cargo.toml")
        files += [p for p in (krate / "src").rglob("*") if p.is_file()]
    h = hashlib.sha256()
    for name, p in sorted({p.relative_to(ROOT).as_posix(): p for p in files}.items()):
        data = p.read_bytes()
        h.update(name.encode() + b"\0" + len(data).to_bytes(8, "little") + data)
    assert atmsim._core.build_id() == h.hexdigest(), "rebuild the extension: pip install -e ."


def test_the_python_half_hashes_the_installed_package_files() -> None:
    """The Python hash comes from the package's own files (site-packages in a wheel install),
    each .py and each built-in scenario: changing any of them changes the build id."""
    from atmsim import _build

    package = Path(atmsim.__file__).resolve().parent
    names = [name for name, _ in _build.python_files()]
    assert "api.py" in names and "sweep/cache.py" in names and "sweep/execute.py" in names
    # Reports and reproductions read runs; editing them keeps the cache.
    assert "reproduce/framework/claims.py" not in names and "report.py" not in names
    assert "scenarios/fang1994-cell-drop.toml" in names
    assert all((package / n).is_file() for n in names)
    h = hashlib.sha256()
    for name, p in _build.python_files():
        data = p.read_bytes()
        h.update(name.encode() + b"\0" + len(data).to_bytes(8, "little") + data)
    assert _build.python_id() == h.hexdigest()
    rust = atmsim._core.build_id()
    key = f"rust {rust}\npython {h.hexdigest()}\n".encode()
    assert atmsim.build_id() == hashlib.sha256(key).hexdigest()[:16]


def test_version_output_and_run_records_name_the_build(tiny_sweep) -> None:
    proc = run_cli("--version")
    assert proc.returncode == 0
    assert f"build {atmsim.build_id()}" in proc.stdout
    _, out, _ = tiny_sweep
    for h in pd.read_parquet(out / "results.parquet")["hash"]:
        info = json.loads((out / "runs" / h / "run.json").read_text("utf-8"))
        assert info["build_id"] == atmsim.build_id()
        summary = json.loads((out / "runs" / h / "summary.json").read_text("utf-8"))
        assert summary["build_id"] == atmsim.build_id()
    assert json.loads((out / "sweep.json").read_text("utf-8"))["build_id"] == atmsim.build_id()


def test_a_sweep_rerun_after_a_build_change_recomputes_every_run(
    tiny_sweep, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, out, old_hashes = _copy(tiny_sweep, tmp_path)
    monkeypatch.setattr(atmsim, "build_id", lambda: "0123456789abcdef")
    res = run_sweep(path, out, workers=1, progress=False)
    assert (res.ran, res.cached, res.failed) == (2, 0, 0)
    new_hashes = list(res.results["hash"])
    assert not set(new_hashes) & set(old_hashes)
    for h in new_hashes:
        assert json.loads((out / "runs" / h / "run.json").read_text("utf-8"))["build_id"] == (
            "0123456789abcdef"
        )
    # The same build again: everything cached.
    again = run_sweep(path, out, workers=1, progress=False)
    assert (again.ran, again.cached) == (0, 2)


# --------------------------------------------------------------------------------------------
# Damaged runs in a sweep


def _json_edit(value: float):
    def edit(p: Path) -> None:
        data = json.loads(p.read_text("utf-8"))
        data["totals"]["goodput_mbps"] = value
        p.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")

    return edit


def _truncate(p: Path) -> None:
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])


def _garbage(p: Path) -> None:
    p.write_bytes(random.Random(7).randbytes(max(p.stat().st_size, 64)))


DAMAGE = {
    "summary-truncated": ("summary.json", _truncate),
    "summary-garbage": ("summary.json", _garbage),
    "summary-deleted": ("summary.json", Path.unlink),
    "summary-goodput-999": ("summary.json", _json_edit(999.0)),
    "summary-goodput-nan": ("summary.json", _json_edit(math.nan)),
    "series-garbage": (run_cache.SERIES, _garbage),
    "series-truncated": (run_cache.SERIES, _truncate),
    "series-deleted": (run_cache.SERIES, Path.unlink),
    "run-json-empty": ("run.json", lambda p: p.write_bytes(b"")),
    "run-json-garbage": ("run.json", _garbage),
    "run-json-not-a-manifest": ("run.json", lambda p: p.write_text("[1, 2]", "utf-8")),
}


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_a_damaged_cached_run_is_recomputed_with_one_line_and_the_same_tables(
    case: str, tiny_sweep, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, out, hashes = _copy(tiny_sweep, tmp_path)
    name, damage = DAMAGE[case]
    victim = hashes[1]
    damage(out / "runs" / victim / name)
    capsys.readouterr()
    res = run_sweep(path, out, workers=1, progress=False)
    err = capsys.readouterr().err
    assert err.splitlines() == [f"atmsim: run {victim[:16]} damaged: {name}; recomputing"], err
    assert (res.ran, res.cached, res.failed) == (1, 1, 0)
    assert _tables(out) == tiny_sweep[2], "the tables of an undamaged rerun, byte for byte"
    assert run_cache.check(out / "runs", victim).ok, "the run's folder was replaced whole"
    assert not [p for p in (out / "runs").iterdir() if p.name.startswith(".")]
    again = run_sweep(path, out, workers=1, progress=False)
    assert (again.ran, again.cached) == (0, 2)
    assert capsys.readouterr().err == ""


def test_the_cli_names_a_damaged_run_and_recomputes_it_without_a_traceback(
    tiny_sweep, tmp_path: Path
) -> None:
    path, out, hashes = _copy(tiny_sweep, tmp_path)
    _truncate(out / "runs" / hashes[0] / "summary.json")
    proc = run_cli("sweep", str(path), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert f"atmsim: run {hashes[0][:16]} damaged: summary.json; recomputing" in proc.stderr
    assert "(1 run now, 1 cached, 0 failed)" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert _tables(out) == tiny_sweep[2]


def test_a_run_cached_without_a_manifest_is_not_trusted(
    tiny_sweep, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run stored by an atmsim without manifests (run.json lists no files) is made again."""
    path, out, hashes = _copy(tiny_sweep, tmp_path)
    info_path = out / "runs" / hashes[0] / "run.json"
    info = json.loads(info_path.read_text("utf-8"))
    del info["files"]
    info_path.write_text(json.dumps(info), encoding="utf-8")
    capsys.readouterr()
    res = run_sweep(path, out, workers=1, progress=False)
    assert (res.ran, res.cached) == (1, 1)
    assert f"run {hashes[0][:16]} has no manifest" in capsys.readouterr().err
    assert _tables(out) == tiny_sweep[2]


def test_a_run_folder_copied_under_another_hash_is_damaged(tiny_sweep, tmp_path: Path) -> None:
    _, out, hashes = _copy(tiny_sweep, tmp_path)
    runs = out / "runs"
    shutil.rmtree(runs / hashes[1])
    shutil.copytree(runs / hashes[0], runs / hashes[1])
    assert run_cache.check(runs, hashes[1]).files == ("run.json",)
    assert run_cache.check(runs, hashes[0]).ok


def test_the_sweep_report_names_a_damaged_table_without_a_traceback(
    tiny_sweep, tmp_path: Path
) -> None:
    _, out, _ = _copy(tiny_sweep, tmp_path)
    _garbage(out / "results.parquet")
    proc = run_cli("report", str(out))
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    [line] = proc.stderr.strip().splitlines()
    assert "results.parquet: damaged" in line


# --------------------------------------------------------------------------------------------
# Reproductions


def _fang_copy(quick_reproductions, tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    """A copy of the session's quick Fang 1994 reproduction and its run folders by label."""
    src, code = quick_reproductions("fang1994")
    assert code == 0
    out = tmp_path / "fang1994"
    shutil.copytree(src, out)
    runs = {}
    for p in (out / "runs").iterdir():
        runs[json.loads((p / "run.json").read_text("utf-8"))["label"]] = p
    return out, runs


@pytest.mark.slow  # rebuilds a quick reproduction's report: ten seconds
def test_report_names_a_damaged_run_of_a_reproduction_and_exits_2(
    quick_reproductions, tmp_path: Path
) -> None:
    out, runs = _fang_copy(quick_reproductions, tmp_path)
    label, victim = sorted(runs.items())[0]
    _garbage(victim / run_cache.SERIES)
    proc = run_cli("report", str(out))
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    [line] = proc.stderr.strip().splitlines()
    assert label in line and f"damaged: {run_cache.SERIES}" in line, line


#: About 10 s: a quick Fang 1994 rerun (its figures and report) and `atmsim report`.
@pytest.mark.slow
def test_a_reproduction_rerun_recomputes_damaged_runs_and_gives_the_same_comparison(
    quick_reproductions, tmp_path: Path
) -> None:
    out, runs = _fang_copy(quick_reproductions, tmp_path)
    before = (out / "comparison.csv").read_bytes()
    (a_label, a), (b_label, b) = sorted(runs.items())[:2]
    _json_edit(999.0)(a / "summary.json")
    _garbage(b / run_cache.SERIES)
    untouched = {
        p.name: (p / "run.json").stat().st_mtime_ns for p in runs.values() if p not in (a, b)
    }
    proc = run_cli("reproduce", "fang1994", "--quick", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    assert f"run {a.name[:16]} damaged: summary.json; recomputing" in proc.stderr
    assert f"run {b.name[:16]} damaged: {run_cache.SERIES}; recomputing" in proc.stderr
    assert (out / "comparison.csv").read_bytes() == before
    assert run_cache.check(out / "runs", a.name).ok and run_cache.check(out / "runs", b.name).ok
    after = {name: (out / "runs" / name / "run.json").stat().st_mtime_ns for name in untouched}
    assert after == untouched, "only the damaged runs were made again"
    proc = run_cli("report", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (out / "comparison.csv").read_bytes() == before


# --------------------------------------------------------------------------------------------
# Results.write / Results.read


@pytest.fixture(scope="module")
def two_results() -> tuple[Results, Results]:
    over = {"run.duration": "50 ms", "run.warmup": "0 s"}
    return (
        atmsim.run("fang1994-cell-drop", seed=1, overrides=over),
        atmsim.run("fang1994-cell-drop", seed=2, overrides=over),
    )


def _same(res: Results, ref: Results, *, same_run: bool = True) -> bool:
    """The same summary and the same series, every row. ``same_run=False``: ``ref`` is
    another run of the same scenario and seed, whose wall time differs."""
    a_sum, b_sum = dict(res.summary), dict(ref.summary)
    if not same_run:
        a_sum.pop("wall_s", None), b_sum.pop("wall_s", None)
    if a_sum != b_sum:
        return False
    a, b = res.series.reset_index(drop=True), ref.series.reset_index(drop=True)
    try:
        pd.testing.assert_frame_equal(a, b, check_dtype=False)
    except AssertionError:
        return False
    return True


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_results_read_refuses_a_folder_that_does_not_match_its_manifest(
    two_results, tmp_path: Path, fmt: str
) -> None:
    res = two_results[0]
    out = tmp_path / "r"
    res.write(out, series_format=fmt)
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    assert set(manifest["files"]) == {"summary.json", f"timeseries.{fmt}"}
    assert manifest["build_id"] == atmsim.build_id()
    assert _same(Results.read(out), res)
    series = out / f"timeseries.{fmt}"
    good = series.read_bytes()
    series.write_bytes(good[: len(good) // 2])
    with pytest.raises(ResultsError, match=f"damaged: timeseries.{fmt}"):
        Results.read(out)
    series.write_bytes(good)
    _json_edit(999.0)(out / "summary.json")
    with pytest.raises(ResultsError, match="damaged: summary.json"):
        Results.read(out)
    (out / "manifest.json").unlink()
    with pytest.raises(ResultsError, match="incomplete: no manifest"):
        Results.read(out)
    (out / "manifest.json").write_text("{", encoding="utf-8")
    with pytest.raises(ResultsError, match="damaged: manifest.json"):
        Results.read(out)
    # Results written before manifests can still be read, unchecked, when asked for.
    assert Results.read(out, verify=False).totals["goodput_mbps"] == 999.0


def _write_interrupted_at(res: Results, out: Path, n: int) -> bool:
    """``res.write(out)`` with KeyboardInterrupt raised at the ``n``-th line it executes in
    atmsim's own code (api.py, storage.py): a Ctrl-C at that moment. True if it was
    interrupted (False: it finished in fewer lines)."""
    files = {str(Path(atmsim.api.__file__).resolve()), str(Path(storage.__file__).resolve())}
    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
            if count == n:
                raise KeyboardInterrupt
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code.co_filename in files else None

    sys.settrace(tracer)
    try:
        res.write(out)
    except KeyboardInterrupt:
        return True
    finally:
        sys.settrace(None)
    return False


def test_an_interrupt_at_any_line_of_results_write_never_leaves_a_false_complete_folder(
    two_results, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over every line Results.write executes, an interrupt there leaves a folder that reads
    back as the complete previous results, the complete new ones, or raises ResultsError."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)  # durability is not the question here
    old, new = two_results
    pristine, out = tmp_path / "old", tmp_path / "r"
    old.write(pristine)
    seen = {"old": 0, "new": 0, "refused": 0}
    n = 0
    while True:
        n += 1
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(pristine, out)
        interrupted = _write_interrupted_at(new, out, n)
        try:
            back = Results.read(out)
        except ResultsError:
            seen["refused"] += 1
        else:
            if _same(back, old):
                seen["old"] += 1
            else:
                assert _same(back, new), f"interrupt at line {n}: neither old nor new results"
                seen["new"] += 1
        if not interrupted:
            break
        assert n < 5000
    assert seen["old"] > 10 and seen["refused"] > 0 and seen["new"] >= 1, seen
    assert not [p for p in out.iterdir() if ".tmp-" in p.name], "no temporary file left"


def _big_scenario(path: Path) -> Path:
    """The 1,000-connection parking lot of `atmsim bench`, 0.1 s sampled every ms: about 3
    million series rows, whose writing takes a good half second."""
    from atmsim import bench, topologies

    sc = bench._parking_lot_1000()
    sc["run"].update({"duration": "0.1 s", "warmup": "0 s", "sample_every": "1 ms"})
    path.write_text(topologies.to_toml(sc), encoding="utf-8")
    return path


def _entries(folder: Path) -> set[tuple[str, int, int]]:
    out = set()
    for p in folder.iterdir():
        try:
            st = p.stat()
        except FileNotFoundError:
            continue
        out.add((p.name, st.st_mtime_ns, st.st_size))
    return out


#: About 40 s: `atmsim run` of 1,000 connections, interrupted by SIGINT or SIGKILL at random
#: moments of writing its results, eight times.
@pytest.mark.slow
def test_a_signal_at_a_random_moment_of_atmsim_run_out_never_leaves_a_false_complete_folder(
    tmp_path: Path,
) -> None:
    scenario = _big_scenario(tmp_path / "big.toml")
    refs = {}
    for seed in (1, 2):
        ref = tmp_path / f"ref{seed}"
        proc = run_cli("run", str(scenario), "--seed", str(seed), "--out", str(ref), "--quiet")
        assert proc.returncode == 0, proc.stderr
        refs[seed] = Results.read(ref)
    rng = random.Random(20240601)
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    outcomes = []
    for trial in range(8):
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(tmp_path / "ref1", out)
        before = _entries(out)
        cmd = [sys.executable, "-m", "atmsim.cli", "run", str(scenario), "--seed", "2"]
        proc = subprocess.Popen([*cmd, "--out", str(out), "--quiet"], env=env)
        # Wait for the writing to start (any entry of the folder new or changed), then a
        # random moment.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if _entries(out) != before:
                break
            time.sleep(0.002)
        time.sleep(rng.uniform(0.0, 0.8))
        sig = signal.SIGINT if trial % 2 == 0 else signal.SIGKILL
        if proc.poll() is None:
            proc.send_signal(sig)
        proc.wait(timeout=120)
        try:
            back = Results.read(out)
        except ResultsError:
            outcomes.append("refused")
            continue
        if back.summary["seed"] == 1:
            assert _same(back, refs[1]), f"trial {trial}: previous results not whole"
            outcomes.append("old")
        else:
            assert _same(back, refs[2], same_run=False), f"trial {trial}: new results not whole"
            outcomes.append("new")
    assert "old" in outcomes or "refused" in outcomes, outcomes  # some signal hit the write


_TOY_VALUES = {
    "agree": 1,
    "total": 1,
    "runs": {"credits": {"goodput": 1.0}, "cell-drop": {"goodput": 0.5}},
    "more": True,
}


def _writers(tmp: Path) -> dict[str, tuple[Path, object]]:
    """Each writer of a result file: the file it writes, and a call that writes it."""
    from atmsim import plots, report
    from atmsim.reproduce import framework as common
    from atmsim.reproduce.framework import notes as fw_notes
    from atmsim.sweep.tables import write_table

    rows = [common.compare("x", paper=1.0, measured=1.0, unit="", tol=common.rel(0.1))]

    def figure(path: Path) -> None:
        fig, ax = plots.figure()
        ax.plot([0, 1], [0, 1])
        plots.save(fig, path)

    return {
        "comparison.csv": (tmp / "comparison.csv", lambda p: common.write_comparison(rows, p)),
        "comparison.json": (tmp / "comparison.json", lambda p: common.write_claims_json(rows, p)),
        "notes.md": (
            tmp / "notes.md",
            lambda p: fw_notes.write_notes("toy_reproduction", _TOY_VALUES, p.parent),
        ),
        "notes-values.json": (
            tmp / "notes-values.json",
            lambda p: fw_notes.write_values(_TOY_VALUES, p.parent),
        ),
        "reproduction.json": (
            tmp / "reproduction.json",
            lambda p: common.write_run_info(p.parent, "fang1994", True, 1.0, 1),
        ),
        "figure.png": (tmp / "figure.png", figure),
        "results.parquet": (
            tmp / "results.parquet",
            lambda p: write_table(pd.DataFrame({"a": [1.0]}), p),
        ),
        "report.html": (
            tmp / "report.html",
            lambda p: report.write_report(p.parent, "t", [], [], "", {}, {}),
        ),
        "index.html": (tmp / "index.html", lambda p: report.write_index(p.parent, [])),
    }


@pytest.mark.parametrize(
    "name",
    [
        "comparison.csv",
        "comparison.json",
        "notes.md",
        "reproduction.json",
        "figure.png",
        "results.parquet",
        "report.html",
        "index.html",
    ],
)
def test_a_result_file_is_replaced_whole_or_not_at_all(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Interrupted at its rename (the last step), a writer leaves the old file as it was and
    no temporary file; uninterrupted, it replaces the file."""
    path, write = _writers(tmp_path)[name]
    path.write_bytes(b"OLD")

    def interrupted(src: object, dst: object) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(os, "replace", interrupted)
        with pytest.raises(KeyboardInterrupt):
            write(path)  # type: ignore[operator]
    assert path.read_bytes() == b"OLD"
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    write(path)  # type: ignore[operator]
    assert path.read_bytes() != b"OLD" and path.stat().st_size > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


@pytest.mark.parametrize("sort_keys,end", [(False, "\n"), (True, "")])
def test_write_json_streams_the_bytes_json_dumps_gives(
    sort_keys: bool, end: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A document of more batches than one (the batch made small), with nesting, text beyond
    ASCII, non-finite and tiny floats, empty containers and unsorted keys: the file holds
    ``json.dumps``'s bytes, and the record returned is the file's."""
    monkeypatch.setattr(storage, "_JSON_PIECES", 7)
    doc = {
        "z": [1, 2.5, float("inf"), float("nan"), -0.0, 1e-300],
        "a": {"ü": "Grüße ✓", "list": [], "map": {}, "none": None, "t": True},
        "connections": [{"name": f"c{i}", "goodput_mbps": i / 3} for i in range(50)],
    }
    path = tmp_path / "doc.json"
    record = storage.write_json(path, doc, sort_keys=sort_keys, end=end)
    expected = (json.dumps(doc, indent=2, sort_keys=sort_keys) + end).encode("utf-8")
    assert path.read_bytes() == expected
    assert record == storage.file_record(path) == storage.bytes_record(expected)
