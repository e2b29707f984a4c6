"""Sweeps: the sweep file's checks, the run cache (no run twice, nothing lost to SIGKILL),
recorded failures, identical tables from a local pool, in-process runs and a real Dask
cluster on loopback, and the sweep report."""

from __future__ import annotations

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
    RunRequest,
    SweepError,
    identify,
    load_spec,
    parse_spec,
    run_cached,
    run_sweep,
)
from conftest import ROOT, rendered, run_cli

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
        for p in (worker, scheduler):
            if p is not None:
                p.terminate()
        for p in (worker, scheduler):
            if p is not None:
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()


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
    dom = browser(tmp_path / "out" / "report.html")
    attrs = rendered(dom)
    assert attrs["images"] == attrs["images-rendered"] == "1"
    assert "512 cells" in dom


def test_a_cached_run_is_the_run_atmsim_run_makes(tmp_path: Path) -> None:
    """Workers run the canonical text after overrides; it must be the same simulation."""
    import atmsim

    over = {"run.duration": "0.3 s", "run.warmup": "0.1 s", "switch.*.vc_buffer": "300 cells"}
    [out] = run_cached([RunRequest("fang1994-cell-drop", over, 7)], tmp_path / "c", workers=1)
    direct = atmsim.run("fang1994-cell-drop", seed=7, overrides=over).summary
    cached = out.results().summary
    for key in ("fingerprint", "events", "cell_hops", "totals", "connections"):
        assert cached[key] == direct[key], key
