"""The series streamed to a file during the run: the values of a run kept in memory, to the
bit; an interrupted or damaged file refused; the default groups of series at scale."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import atmsim
from atmsim import _core, topologies
from atmsim.api import SeriesFile, normalize_overrides, run_core, scenario_text
from atmsim.errors import ResultsError

SHORT = {"run.duration": "0.2 s", "run.warmup": "0 s"}


def _in_memory(name: str, overrides: dict[str, str]) -> dict:
    text, source = scenario_text(name)
    return _core.run(text, source, normalize_overrides(overrides))[1]


def test_a_streamed_run_has_the_values_of_one_kept_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``atmsim.run`` streams the series to a file, maps it and removes its folder at once;
    the values are those of the same run kept in memory, bit for bit (NaN included)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    res = atmsim.run("kalyanaraman1996-table1", overrides=SHORT)
    assert list(tmp_path.iterdir()) == [], "the series folder is removed once mapped"
    raw = _in_memory("kalyanaraman1996-table1", SHORT)
    s = res._sampled
    assert s is not None and isinstance(s.values, np.memmap)
    want = np.asarray(raw["values"]).reshape(len(raw["time_s"]), -1)
    assert s.values.shape == want.shape
    assert np.array_equal(s.values.view(np.uint64), want.view(np.uint64))
    assert np.array_equal(s.time_s, raw["time_s"])
    # Read back in blocks (what writing uses), the file gives the same rows.
    blocks = np.concatenate([b for _, b in s._blocks(rows=7 * s.values.shape[1])])
    assert np.array_equal(blocks.view(np.uint64), want.view(np.uint64))


def test_series_folders_of_killed_processes_are_removed_and_live_ones_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process killed during a run (SIGKILL, SIGTERM's default action) never reaches the
    ``finally`` that removes its series folder; the first run of a later process removes the
    folders whose process is gone, and leaves those of live processes and other names."""
    import subprocess
    import sys

    from atmsim import storage

    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead_pid = int(gone.stdout)
    dead = tmp_path / f"atmsim-series-{storage.HOST}-{dead_pid}-abc123"
    live = tmp_path / f"atmsim-series-{storage.HOST}-{os.getpid()}-def456"
    other = tmp_path / "atmsim-series-made-by-an-older-version"
    for d in (dead, live, other):
        d.mkdir()
        (d / "s.bin").write_bytes(b"x" * 1000)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(storage, "_scratch_cleaned", set())
    atmsim.run("kalyanaraman1996-table1", overrides=SHORT)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, other.name])
    # Only the first run of a process looks: a folder left later stays until the next one.
    dead.mkdir()
    atmsim.run("kalyanaraman1996-table1", overrides=SHORT)
    assert dead.exists()
    assert storage.clean_scratch("atmsim-series", tmp_path) == 1
    assert not dead.exists() and live.exists() and other.exists()


def test_results_written_from_the_file_read_back_as_the_run(tmp_path: Path) -> None:
    res = atmsim.run("fang1994-cell-drop", overrides=SHORT)
    res.write(tmp_path / "out")
    back = atmsim.Results.read(tmp_path / "out")
    pd.testing.assert_frame_equal(back.series, res.series)
    wide = res.wide("queue_cells", kind="port")
    assert list(wide.index) == list(res._sampled.time_s)


def test_an_interrupted_run_leaves_a_file_marked_incomplete(tmp_path: Path) -> None:
    """A run stopped midway leaves its series file saying it is incomplete: it is refused,
    never read as a whole run."""
    text, source = scenario_text("fang1994-cell-drop")
    path = tmp_path / "s.bin"

    class Stop(Exception):
        pass

    def stop(now: float, duration: float) -> None:
        if now > 0.05:
            raise Stop

    with pytest.raises(Stop):
        _core.run(text, source, normalize_overrides(SHORT), None, None, stop, series_file=str(path))
    assert path.read_bytes()[:8] == b"ATMSERS1"
    with pytest.raises(ResultsError, match="incomplete series file"):
        SeriesFile(path)


def test_a_damaged_file_is_refused(tmp_path: Path) -> None:
    text, source = scenario_text("fang1994-cell-drop")
    path = tmp_path / "s.bin"
    raw = _core.run(text, source, normalize_overrides(SHORT), series_file=str(path))[1]
    assert raw["file"]["rows"] == len(raw["time_s"])
    assert SeriesFile(path).values.shape == (len(raw["time_s"]), len(raw["columns"]))
    with open(path, "r+b") as fh:
        fh.truncate(os.path.getsize(path) - 8)
    with pytest.raises(ResultsError, match="damaged series file"):
        SeriesFile(path)
    path.write_bytes(b"PAR1" + bytes(100))
    with pytest.raises(ResultsError, match="not a series file"):
        SeriesFile(path)


def _port_groups(scenario: dict, overrides: dict) -> tuple[set[str], set[str], set[str]]:
    """(host-link ports, other ports, sampled ports) of a run."""
    info = atmsim.describe(scenario, overrides=overrides)
    ports = info["network"]["ports"]
    hosts = {p["node"] for p in ports if p["node_kind"] == "host"}
    host_link = {p["name"] for p in ports if p["node"] in hosts or p["to"] in hosts}
    res, _ = run_core(*scenario_text(scenario), normalize_overrides(overrides), None)
    s = res._sampled
    sampled = {e for e, k in zip(s.entities, s.kinds, strict=True) if k == "port"}
    return host_link, {p["name"] for p in ports} - host_link, sampled


def test_large_scenarios_sample_connections_and_switch_ports_by_default() -> None:
    """Above 100 connections the ports of links to hosts are sampled only when ``run.series``
    asks for them; every connection and the ports between switches always are."""
    lot = topologies.parking_lot(name="lot-102", per_group=(34, 34, 34))
    short = {"run.duration": "20 ms", "run.warmup": "0 s"}
    host_link, between, sampled = _port_groups(lot, short)
    assert between and sampled == between
    host_link, between, sampled = _port_groups(lot, {**short, "run.series": ["all"]})
    assert sampled == host_link | between
    res = atmsim.run(lot, overrides=short)
    conns = {
        e
        for e, k in zip(res._sampled.entities, res._sampled.kinds, strict=True)
        if k == "connection"
    }
    assert len(conns) == 102
