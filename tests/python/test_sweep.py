"""Sweeps: the sweep file's checks, the run cache (no run twice, nothing lost to SIGKILL),
recorded failures, identical tables from a local pool, in-process runs and a real Dask
cluster on loopback, and the sweep report."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from atmsim.sweep import (
    Progress,
    RunRequest,
    SweepError,
    identify,
    load_spec,
    parse_spec,
    run_cached,
    run_sweep,
    write_sweep_report,
)
from atmsim.sweep import cache as run_cache
from atmsim.sweep import requests as sweep_requests
from conftest import ROOT, rendered, run_cli
from htmlpage import (
    assert_self_contained,
    data_tables,
    embedded_pngs,
    meta,
    network_svgs,
    parse_file,
    svg_texts,
)

EXAMPLE = ROOT / "examples" / "sweep-fang-buffers.toml"


def _sweep_file(tmp: Path, body: str, name: str = "s.toml") -> Path:
    path = tmp / name
    path.write_text(body, encoding="utf-8")
    return path


SMALL = """
name = "small"
scenario = "fang1994-cell-drop"
seeds = [1, 2]
[set]
"run.duration" = "0.3 s"
"run.warmup" = "0.1 s"
[grid]
"switch.*.vc_buffer" = ["256 cells", "512 cells"]
"""


# --------------------------------------------------------------------------------------------
# The sweep file


def test_example_parses_to_a_2x2_grid_with_2_seeds() -> None:
    spec = load_spec(EXAMPLE)
    assert spec.scenario == "fang1994-cell-drop"
    assert len(spec.grid) == 2 and all(len(v) == 2 for v in spec.grid.values())
    assert spec.seeds == [1, 2] and spec.size == 8
    assert [p.index for p in spec.points()] == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ('scenario = "fang1994-an2"\nseed = [1]\n', ":2: seed: unknown key (allowed: name,"),
        ("seeds = [1]\n", "scenario: missing"),
        ('scenario = "fang1994-an2"\nseeds = [-1]\n', "seeds: expected a list of seeds"),
        ('scenario = "fang1994-an2"\nseeds = [1, 1]\n', "seeds: a seed is listed twice"),
        ('scenario = "x"\n[grid]\n"tcp.mss" = "8192 B"\n', "grid.tcp.mss: expected a non-empty"),
        ('scenario = "x"\n[grid]\n"tcp.mss" = []\n', "grid.tcp.mss: expected a non-empty list"),
        ('scenario = "x"\n[set]\n"a" = 1\n[grid]\n"a" = [1, 2]\n', "also set in [set]"),
        ("scenario = \n", "not valid TOML"),
    ],
)
def test_bad_sweep_files_are_refused_with_the_field(body: str, needle: str) -> None:
    with pytest.raises(SweepError) as err:
        parse_spec(body, "f.toml")
    assert needle in str(err.value)
    assert str(err.value).startswith("f.toml")


def test_cli_refuses_a_bad_sweep_file_without_a_traceback(tmp_path: Path) -> None:
    path = _sweep_file(tmp_path, 'scenario = "fang1994-an2"\nseeds = "1"\n')
    proc = run_cli("sweep", str(path), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert f"{path}:2: seeds: expected a list of seeds" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = run_cli("sweep", str(tmp_path / "missing.toml"), "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and "no such sweep file" in proc.stderr


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ('scenario = "no-such-scenario"\n', ":1: scenario: no-such-scenario: no such built-in"),
        (
            'scenario = "fang1994-an2"\n[set]\n"run.durashun" = "1 s"\n',
            ":3: set.run.durashun: overrides: run.durashun: unknown field `durashun`",
        ),
        (
            'scenario = "fang1994-an2"\n[grid]\n"switch.*.vc_bufer" = ["1 cells"]\n',
            ":3: grid.switch.*.vc_bufer: no grid point validates",
        ),
    ],
)
def test_a_sweep_nothing_of_which_can_run_stops_before_running(
    tmp_path: Path, body: str, needle: str
) -> None:
    path = _sweep_file(tmp_path, body)
    proc = run_cli("sweep", str(path), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2, proc.stderr
    assert f"atmsim: error: {path}{needle}" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists(), "nothing is written for an unusable sweep"


def test_a_relative_scenario_path_is_read_from_the_sweep_files_folder(tmp_path: Path) -> None:
    from atmsim import scenarios

    (tmp_path / "sweeps" / "scen").mkdir(parents=True)
    text = scenarios.text("fang1994-an2")
    (tmp_path / "sweeps" / "scen" / "mine.toml").write_text(text, encoding="utf-8")
    (tmp_path / "sweeps" / "here.toml").write_text(text, encoding="utf-8")
    short = '[set]\n"run.duration" = "0.2 s"\n"run.warmup" = "0 s"\n'
    a = _sweep_file(tmp_path / "sweeps", 'scenario = "scen/mine.toml"\n' + short, "a.toml")
    b = _sweep_file(tmp_path / "sweeps", 'scenario = "here.toml"\n', "b.toml")
    c = _sweep_file(tmp_path / "sweeps", 'scenario = "fang1994-an2.toml"\n', "c.toml")
    assert load_spec(a).scenario == str(tmp_path / "sweeps" / "scen" / "mine.toml")
    assert load_spec(b).scenario == str(tmp_path / "sweeps" / "here.toml")
    assert load_spec(c).scenario == "fang1994-an2.toml", "a built-in, not a missing file"
    # From another working directory, the file next to the sweep file is the one run.
    proc = run_cli("sweep", str(a), "--out", str(tmp_path / "out"), "--quiet", cwd=ROOT / "docs")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == proc.stderr == "", "--quiet prints nothing when all is well"
    [run_dir] = (tmp_path / "out" / "runs").iterdir()
    assert json.loads((run_dir / "run.json").read_text("utf-8"))["source"] == str(
        tmp_path / "sweeps" / "scen" / "mine.toml"
    )


# --------------------------------------------------------------------------------------------
# Identity and cache


def test_identity_is_the_run_not_its_spelling() -> None:
    plain = identify(RunRequest("fang1994-cell-drop", {}, 1))
    same = identify(RunRequest("fang1994-cell-drop", {"switch.*.vc_buffer": "256 cells"}, 1))
    other_seed = identify(RunRequest("fang1994-cell-drop", {}, 2))
    other_buf = identify(RunRequest("fang1994-cell-drop", {"switch.*.vc_buffer": "257 cells"}, 1))
    assert plain.hash == same.hash, "the override restates the default"
    assert len({plain.hash, other_seed.hash, other_buf.hash}) == 3


def test_second_run_of_a_sweep_runs_nothing(tmp_path: Path) -> None:
    path = _sweep_file(tmp_path, SMALL)
    first = run_sweep(path, tmp_path / "out", workers=2, progress=False)
    assert (first.ran, first.cached, first.failed) == (4, 0, 0)
    second = run_sweep(path, tmp_path / "out", workers=2, progress=False)
    assert (second.ran, second.cached, second.failed) == (0, 4, 0)
    pd.testing.assert_frame_equal(first.results, second.results)
    on_disk = pd.read_parquet(tmp_path / "out" / "results.parquet")
    pd.testing.assert_frame_equal(on_disk, first.results)
    runs = [p for p in (tmp_path / "out" / "runs").iterdir()]
    assert len(runs) == 4 and all((p / "run.json").is_file() for p in runs)


def test_tables_have_the_documented_columns(tmp_path: Path) -> None:
    res = run_sweep(_sweep_file(tmp_path, SMALL), tmp_path / "out", workers=1, progress=False)
    r = pd.read_parquet(tmp_path / "out" / "results.parquet")
    for col in ("point", "switch.*.vc_buffer", "seed", "hash", "status", "error", "fingerprint"):
        assert col in r.columns, col
    assert "totals.goodput_mbps" in r.columns and "goodput_mbps.s1" in r.columns
    assert list(r["seed"]) == [1, 2, 1, 2]
    a = pd.read_parquet(tmp_path / "out" / "aggregate.parquet")
    assert list(a["runs"]) == [2, 2]
    g = r.groupby("point")["totals.goodput_mbps"]
    assert a["totals.goodput_mbps.mean"].tolist() == pytest.approx(g.mean().tolist())
    assert a["totals.goodput_mbps.std"].tolist() == pytest.approx(g.std(ddof=1).tolist())
    assert res.results["status"].eq("ok").all()


def test_a_failing_run_is_recorded_and_the_others_finish(tmp_path: Path) -> None:
    body = SMALL.replace('["256 cells", "512 cells"]', '["256 cells", "-3 cells"]')
    path = _sweep_file(tmp_path, body)
    proc = run_cli("sweep", str(path), "--out", str(tmp_path / "out"), "--quiet")
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr
    r = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert r["status"].tolist() == ["ok", "ok", "failed", "failed"]
    assert (
        r.loc[2, "error"].startswith("ScenarioError")
        and "must not be negative" in r.loc[2, "error"]
    )
    assert r.loc[0:1, "totals.goodput_mbps"].gt(0).all()


def test_killed_sweep_resumes_with_every_run_exactly_once(tmp_path: Path) -> None:
    body = SMALL.replace('"0.3 s"', '"2 s"').replace("[1, 2]", "[1, 2, 3, 4]")
    path = _sweep_file(tmp_path, body)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "atmsim.cli", "sweep", str(path), "--out", str(out)]
    proc = subprocess.Popen([*cmd, "--workers", "1", "--quiet"], stderr=subprocess.PIPE)
    runs = out / "runs"
    deadline = time.monotonic() + 120
    finished: list[Path] = []
    while time.monotonic() < deadline and proc.poll() is None:
        if runs.is_dir():
            finished = [p for p in runs.iterdir() if not p.name.startswith(".")]
            if finished:
                break
        time.sleep(0.01)
    assert proc.poll() is None, "the sweep ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = {p.name for p in runs.iterdir() if not p.name.startswith(".")}
    assert 1 <= len(before) < 8
    assert all((runs / h / "run.json").is_file() for h in before), "a whole folder per run"
    resumed = run_sweep(path, out, workers=2, progress=False)
    assert resumed.cached == len(before) and resumed.ran == 8 - len(before)
    assert not [p for p in runs.iterdir() if p.name.startswith(".")], "stale temporary folders"
    table = pd.read_parquet(out / "results.parquet")
    assert len(table) == 8 and table["hash"].is_unique and table["status"].eq("ok").all()
    assert set(table["hash"]) == {p.name for p in runs.iterdir()}


SHORT_RUN = {"run.duration": "0.2 s", "run.warmup": "0 s"}


def test_keep_series_false_stores_the_summary_only_and_true_adds_the_series(
    tmp_path: Path,
) -> None:
    req = [RunRequest("fang1994-an2", SHORT_RUN, 3, "x")]
    cache_dir = tmp_path / "cache"
    [bare] = run_cached(req, cache_dir, workers=1, keep_series=False)
    assert bare.status == "ran"
    assert not (bare.path / "series.parquet").exists()
    assert bare.results().series.empty and bare.results().totals["goodput_mbps"] > 0
    summary = (bare.path / "summary.json").read_bytes()
    [again] = run_cached(req, cache_dir, workers=1, keep_series=False)
    assert again.status == "cached"
    [full] = run_cached(req, cache_dir, workers=1)
    assert full.status == "ran", "the series was missing, so the run is made again"
    assert full.hash == bare.hash
    assert (full.path / "summary.json").read_bytes() == summary, "the stored run is kept"
    series = full.results().series
    assert set(series["kind"]) == {"connection", "port"} and len(series) > 0
    [last] = run_cached(req, cache_dir, workers=1)
    assert last.status == "cached"
    assert not [p for p in cache_dir.iterdir() if p.name.startswith(".")]


def test_a_request_stores_the_series_it_asks_for(tmp_path: Path) -> None:
    """`RunRequest.metrics` / `entities`: the cache keeps the series the run's requests ask
    for (an empty tuple: none, the summary alone); a request for series the stored run lacks
    makes it again, keeping those it had too; one for fewer finds it."""
    cache_dir = tmp_path / "cache"

    def req(seed: int, metrics=None, entities=None, label: str = "") -> RunRequest:
        return RunRequest("fang1994-an2", SHORT_RUN, seed, label or f"s{seed}", metrics, entities)

    bare, other, keeps = req(3, ()), req(4, ()), req(4, ("goodput_mbps",), label="keeps")
    a, b, c = run_cached([bare, other, keeps], cache_dir, workers=1)
    # The run of seed 4 is made once, for both its requests, with the series one asks for.
    assert (a.status, b.status, c.status) == ("ran", "ran", "cached")
    assert not (a.path / "series.parquet").exists()
    assert a.results().series.empty and a.results().totals["goodput_mbps"] > 0
    assert b.path == c.path
    assert set(c.results().series["metric"]) == {"goodput_mbps"}
    info = json.loads((c.path / "run.json").read_text())
    assert info["series_kept"] == {"metrics": ["goodput_mbps"], "entities": None}
    summary = (c.path / "summary.json").read_bytes()
    # Fewer series than stored: found. Others: made again, keeping both.
    [fewer] = run_cached([req(4, ("goodput_mbps",), ("s1",))], cache_dir, workers=1)
    assert fewer.status == "cached"
    [more] = run_cached([req(4, ("cwnd_bytes",))], cache_dir, workers=1)
    assert more.status == "ran" and (more.path / "summary.json").read_bytes() == summary
    assert set(more.results().series["metric"]) == {"goodput_mbps", "cwnd_bytes"}
    [every] = run_cached([req(4)], cache_dir, workers=1)
    assert every.status == "ran"
    assert "series_kept" not in json.loads((every.path / "run.json").read_text())
    assert len(set(every.results().series["metric"])) > 2
    assert run_cached([req(4, ("srtt_ms",))], cache_dir, workers=1)[0].status == "cached"
    assert run_cached([bare], cache_dir, workers=1)[0].status == "cached"
    [full] = run_cached([req(3)], cache_dir, workers=1)
    assert full.status == "ran" and (full.path / "series.parquet").is_file()
    assert not [p for p in cache_dir.iterdir() if p.name.startswith(".")]


def test_which_series_cover_which() -> None:
    keep = run_cache.kept
    assert run_cache.covers(run_cache.ALL, keep(["a"], ["x"]))
    assert run_cache.covers(keep(["a", "b"], None), keep(["a"], ["x"]))
    assert not run_cache.covers(keep(["a"], None), keep(["a", "b"], None))
    assert not run_cache.covers(keep(["a"], ["x"]), keep(["a"], None))
    assert run_cache.covers(None, keep([], None)) and not run_cache.covers(None, keep(["a"], None))
    assert run_cache.union(keep(["b"], ["x"]), keep(["a"], None)) == (("a", "b"), None)
    assert run_cache.union(None, keep((), None)) is None
    assert run_cache.union(keep(["a"], None), None) == (("a",), None)


def test_stale_temporary_entries_are_removed_but_not_those_of_live_writers(
    tmp_path: Path,
) -> None:
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    host = run_cache._HOST
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        entries = {
            "dead": cache_dir / f".tmp-{'a' * 16}-{host}-{dead.pid}-0",
            "dead-series": cache_dir / f".tmp-{'b' * 16}-{host}-{dead.pid}-1.parquet",
            "older-format": cache_dir / f".tmp-{'c' * 16}-{dead.pid}-0",
            "live": cache_dir / f".tmp-{'d' * 16}-{host}-{live.pid}-0",
            "other-host-new": cache_dir / f".tmp-{'e' * 16}-elsewhere-{dead.pid}-0",
            "other-host-old": cache_dir / f".tmp-{'f' * 16}-elsewhere-{dead.pid}-1",
        }
        for name, path in entries.items():
            if name.endswith("series"):
                path.write_bytes(b"partial")
            else:
                path.mkdir()
                (path / "summary.json").write_text("{", encoding="utf-8")
        old = time.time() - run_cache.FOREIGN_STALE_S - 60
        os.utime(entries["other-host-old"], (old, old))
        assert run_cache.clean_stale(cache_dir) == 4
        left = {p.name for p in cache_dir.iterdir()}
        assert left == {entries["live"].name, entries["other-host-new"].name}
        # A run with the same hash prefix as a live writer's entry is still stored and found.
        [out] = run_cached([RunRequest("fang1994-an2", SHORT_RUN, 1)], cache_dir, workers=1)
        assert out.status == "ran" and run_cache.is_done(cache_dir, out.hash)
    finally:
        live.kill()
        live.wait()


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


LONG = SMALL.replace('"0.3 s"', '"40 s"').replace("[1, 2]", "[1, 2, 3, 4]")


#: About 6 s: it lets 40 s runs start on 2 workers before it interrupts them.
@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_ctrl_c_stops_a_pool_sweep_at_once_and_keeps_what_finished(tmp_path: Path) -> None:
    path = _sweep_file(tmp_path, LONG)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "atmsim.cli", "sweep", str(path), "--out", str(out)]
    proc = subprocess.Popen(
        [*cmd, "--workers", "2", "--quiet"], stderr=subprocess.PIPE, start_new_session=True
    )
    children: set[int] = set()
    started = time.monotonic()
    try:
        deadline = started + 120
        while time.monotonic() < deadline and proc.poll() is None:
            children.update(_children(proc.pid))
            if (out / "runs").is_dir() and any(
                not p.name.startswith(".") for p in (out / "runs").iterdir()
            ):
                break
            time.sleep(0.02)
        first_run_s = time.monotonic() - started
        assert proc.poll() is None, "the sweep ended before it could be interrupted"
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        start = time.monotonic()
        code = proc.wait(timeout=60)
        took = time.monotonic() - start
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    stderr = proc.stderr.read().decode()
    assert code == 130 and "interrupted" in stderr and "Traceback" not in stderr, stderr
    # At least 6 runs were left, three rounds of the 2 workers: finishing them (what the pool
    # does when it is only shut down) would take about 3 x first_run_s.
    assert took < max(1.0, 0.8 * first_run_s), f"Ctrl-C took {took:.1f} s"
    assert not children, "the local workers are threads: no process is started"
    finished = {p.name for p in (out / "runs").iterdir() if not p.name.startswith(".")}
    assert 1 <= len(finished) < 8
    assert all(run_cache.is_done(out / "runs", h) for h in finished), "a whole folder per run"
    # A resume finds exactly those (identify() is what run_cached checks the cache with).
    hashes = {identify(req).hash for _, _, req in sweep_requests(load_spec(path))}
    assert finished <= hashes and len(hashes) == 8


#: About 3 s.
@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_a_killed_pool_sweep_leaves_no_process_behind(tmp_path: Path) -> None:
    """The local workers are threads of the sweep's process (the simulator releases the
    GIL): there is no worker process to start, and none to outlive a SIGKILL."""
    path = _sweep_file(tmp_path, LONG)
    cmd = [sys.executable, "-m", "atmsim.cli", "sweep", str(path), "--out", str(tmp_path / "o")]
    proc = subprocess.Popen([*cmd, "--workers", "2", "--quiet"], stderr=subprocess.DEVNULL)
    children: set[int] = set()
    try:
        deadline = time.monotonic() + 2.5  # parsing, then two 40 s runs under way
        while time.monotonic() < deadline and proc.poll() is None:
            children.update(_children(proc.pid))
            time.sleep(0.05)
        assert proc.poll() is None
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not children, "no worker process"


# --------------------------------------------------------------------------------------------
# Progress


def test_progress_without_a_terminal_prints_plain_lines_with_counts_and_time_left() -> None:
    import io

    stream = io.StringIO()
    bar = Progress(4, stream=stream, label="sweep t", every_s=0)
    bar.cached()  # found in the cache before the runs start: no line yet
    bar.start()
    bar.done(0.1)
    bar.failed()
    bar.done(0.1)
    bar.close()
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("sweep t: 1/4 (0 run, 1 cached, 0 failed)")
    assert lines[1].startswith("sweep t: 2/4 (1 run, 1 cached, 0 failed)") and "left" in lines[1]
    assert lines[-1].startswith("sweep t: 4/4 (2 run, 1 cached, 1 failed)")
    assert "\r" not in stream.getvalue() and "\x1b" not in stream.getvalue()
    quiet = io.StringIO()
    q = Progress(2, stream=quiet, quiet=True, every_s=0)
    q.start()
    q.done()
    q.failed()
    q.close()
    assert quiet.getvalue() == ""


def test_progress_on_a_terminal_is_a_bar_that_starts_after_the_cached_runs() -> None:
    import io

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Tty()
    bar = Progress(3, stream=stream, label="sweep t")
    bar.cached()
    bar.start()
    assert bar._bar is not None and bar._bar.n == 1 and bar._bar.initial == 1
    bar.done(0.1)
    bar.failed()
    bar.close()
    text = stream.getvalue()
    assert "\r" in text and "3/3" in text and "cached 1, failed 1" in text


# --------------------------------------------------------------------------------------------
# Executors


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def dask_cluster():
    pytest.importorskip("distributed", reason="Dask distributed is not installed")
    from distributed import Client

    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = dict(os.environ, DASK_DISTRIBUTED__WORKER__DAEMON="False")
    common = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    scheduler = subprocess.Popen(
        ["dask", "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        **common,
    )
    worker = None
    try:
        worker = subprocess.Popen(
            ["dask", "worker", address, "--nworkers", "2", "--nthreads", "1", "--no-dashboard"],
            **common,
        )
        with Client(address, timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)
        yield address
    finally:
        # The worker first, while its scheduler is there to say goodbye to (else it waits).
        for p in (worker, scheduler):
            if p is not None:
                p.terminate()
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


#: About 7 s: a Dask scheduler and two workers on loopback, and the example sweep run 3 ways.
@pytest.mark.slow
def test_local_pool_in_process_and_dask_give_identical_tables(tmp_path: Path, dask_cluster) -> None:
    local = run_sweep(EXAMPLE, tmp_path / "local", progress=False)
    inline = run_sweep(EXAMPLE, tmp_path / "inline", workers=1, progress=False)
    proc = run_cli("sweep", str(EXAMPLE), "--out", str(tmp_path / "dask"), "--scheduler",
                   dask_cluster, "--quiet")  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert local.ran == 8 and local.failed == 0
    on_dask = pd.read_parquet(tmp_path / "dask" / "results.parquet")
    pd.testing.assert_frame_equal(local.results, inline.results)
    pd.testing.assert_frame_equal(local.results, on_dask)
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "local" / "aggregate.parquet"),
        pd.read_parquet(tmp_path / "dask" / "aggregate.parquet"),
    )
    for name in ("results.parquet", "aggregate.parquet"):
        local_bytes = (tmp_path / "local" / name).read_bytes()
        assert local_bytes == (tmp_path / "dask" / name).read_bytes(), name
    # A rerun through the cluster finds everything in the cache and runs nothing.
    again = run_sweep(EXAMPLE, tmp_path / "dask", scheduler=dask_cluster, progress=False)
    assert (again.ran, again.cached, again.failed) == (0, 8, 0)
    # The same runs, byte for byte.
    for h in local.results["hash"]:
        a = (tmp_path / "local" / "runs" / h / "summary.json").read_text("utf-8")
        b = (tmp_path / "dask" / "runs" / h / "summary.json").read_text("utf-8")
        strip = re.compile(r'"wall_s": [0-9.e-]+')
        assert strip.sub("", a) == strip.sub("", b)


def test_run_cached_outcomes_follow_the_requests(tmp_path: Path) -> None:
    reqs = [
        RunRequest("fang1994-an2", {"run.duration": "0.2 s", "run.warmup": "0 s"}, 1, "a"),
        RunRequest("fang1994-an2", {"run.duration": "0.2 s", "run.warmup": "0 s"}, 1, "b"),
        RunRequest("no-such-scenario", {}, 1, "c"),
    ]
    out = run_cached(reqs, tmp_path / "cache", workers=2)
    assert [o.status for o in out] == ["ran", "cached", "failed"]
    assert out[0].hash == out[1].hash
    assert "no-such-scenario" in out[2].error
    assert out[1].results().summary["fingerprint"] == out[0].results().summary["fingerprint"]


# --------------------------------------------------------------------------------------------
# Report


def test_sweep_report_renders(tmp_path: Path, browser) -> None:
    run_sweep(_sweep_file(tmp_path, SMALL), tmp_path / "out", workers=2, progress=False)
    proc = run_cli("report", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    attrs = rendered(browser(tmp_path / "out" / "report.html"))
    # the figure and the network picture
    assert attrs["images"] == attrs["images-rendered"] == "2"


def test_sweep_report_structure(tmp_path: Path) -> None:
    """A row per grid point and per run, the figure embedded, nothing fetched."""
    out = tmp_path / "out"
    run_sweep(_sweep_file(tmp_path, SMALL), out, workers=2, progress=False)
    page = parse_file(write_sweep_report(out))
    (_, points_head, points), (_, runs_head, runs) = data_tables(page)
    assert [r[0] for r in points] == ["256 cells", "512 cells"]
    assert points_head[:3] == ["switch.*.vc_buffer", "runs", "failed"]
    assert [r[:3] for r in runs] == [[b, s, "ok"] for b in ("256 cells", "512 cells") for s in "12"]
    assert runs_head[:3] == ["switch.*.vc_buffer", "seed", "status"]
    assert len(embedded_pngs(page)) == 1
    # One network picture: the grid changes buffers, not the network.
    [svg] = network_svgs(page)
    assert svg == (out / "network-1.svg").read_bytes()
    assert "A->B" in " ".join(svg_texts(svg))
    assert meta(page)["runs"] == "4 ok, 0 failed, of 4"
    assert_self_contained(page)


def test_a_cached_run_is_the_run_atmsim_run_makes(tmp_path: Path) -> None:
    """Workers run the canonical text after overrides; it must be the same simulation."""
    import atmsim

    over = {"run.duration": "0.3 s", "run.warmup": "0.1 s", "switch.*.vc_buffer": "300 cells"}
    [out] = run_cached([RunRequest("fang1994-cell-drop", over, 7)], tmp_path / "c", workers=1)
    direct = atmsim.run("fang1994-cell-drop", seed=7, overrides=over).summary
    cached = out.results().summary
    for key in ("fingerprint", "events", "cell_hops", "totals", "connections"):
        assert cached[key] == direct[key], key


#: About 10 s: the quick Fang 1994 reproduction on the loopback cluster, against the session's
#: local one (conftest.py).
@pytest.mark.slow
def test_a_reproduction_on_a_dask_cluster_is_the_local_one(
    tmp_path: Path, dask_cluster, quick_reproductions
) -> None:
    local, code = quick_reproductions("fang1994")
    assert code == 0
    out = tmp_path / "fang-dask"
    proc = run_cli(
        "reproduce", "fang1994", "--quick", "--scheduler", dask_cluster, "--out", str(out)
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads((out / "reproduction.json").read_text("utf-8"))["workers"] == 0
    shown = meta(parse_file(out / "report.html"))
    assert shown["wall time of the runs"].endswith("on a Dask cluster")
    a = (local / "comparison.csv").read_text("utf-8")
    assert a == (out / "comparison.csv").read_text("utf-8")


def test_a_sweep_over_tables_writes_a_readable_report_that_reruns_from_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A grid of inline tables: `atmsim sweep` itself writes report.html, without a library
    warning; its points are named by what differs (``kind=epd, threshold=0.8``, ``cell_drop``),
    not cut JSON; its rerun line names the sweep file by an absolute path that exists, so it
    works from any folder."""
    import warnings

    body = (
        'scenario = "fang1994-cell-drop-n2"\nseeds = [1]\n'
        '[set]\n"run.duration" = "20 ms"\n"run.warmup" = "5 ms"\n[grid]\n'
        '"switch.*.policy" = [{ kind = "epd", threshold = 0.8 }, '
        '{ kind = "epd", threshold = 0.5 }, { kind = "cell_drop" }]\n'
    )
    (tmp_path / "sweeps").mkdir()
    path = _sweep_file(tmp_path / "sweeps", body)
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run_sweep(Path("sweeps") / "s.toml", Path("out"), workers=1, progress=False)
    page = parse_file(tmp_path / "out" / "report.html")
    points = next(rows for caption, _, rows in data_tables(page) if caption.startswith("mean"))
    assert [r[0] for r in points] == [
        "kind=epd, threshold=0.8",
        "kind=epd, threshold=0.5",
        "cell_drop",
    ]
    rerun = meta(page)["rerun"].split()
    assert rerun[:2] == ["atmsim", "sweep"] and Path(rerun[2]) == path.resolve()
    assert Path(rerun[2]).is_absolute() and Path(rerun[-1]) == (tmp_path / "out").resolve()


@pytest.mark.parametrize("workers", [1, 2])
def test_a_cancel_token_stops_the_runs_and_keeps_those_finished(
    tmp_path: Path, workers: int
) -> None:
    """`run_cached(cancel=token)`: once another thread cancels the token (here the first
    stored run's callback does), no further run starts, the running ones stop, and
    `Cancelled` is raised; the runs stored before stay whole in the cache."""
    from atmsim import _core
    from atmsim.errors import Cancelled

    token = _core.CancelToken()
    reqs = [
        RunRequest(
            "fang1994-cell-drop-n2",
            {"run.duration": "200 ms", "run.warmup": "0 s"},
            seed,
            f"s{seed}",
        )
        for seed in range(1, 9)
    ]
    stored: list[str] = []

    def on_done(outcome) -> None:
        assert outcome.status == "ran", outcome.error
        stored.append(outcome.hash)
        token.cancel()

    cache = tmp_path / "runs"
    with pytest.raises(Cancelled):
        run_cached(reqs, cache, workers=workers, on_done=on_done, cancel=token)
    finished = {p.name for p in cache.iterdir() if not p.name.startswith(".")}
    assert finished == set(stored)
    # One worker stops before its next run. Two may also finish, and store, the runs they were
    # making when the token was cancelled (a few, never the queued rest).
    assert len(finished) == 1 if workers == 1 else 1 <= len(finished) < len(reqs)
    assert all(run_cache.is_done(cache, h) for h in finished)
    with pytest.raises(ValueError, match="only runs on local workers"):
        run_cached(reqs, cache, scheduler="tcp://127.0.0.1:1", cancel=token)
