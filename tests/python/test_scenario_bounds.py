"""What a scenario may cost and hold, checked where it is read: each case here validated
before, then ran for an hour, aborted, failed at run time or silently ignored a value. Now
`atmsim run` and `atmsim validate` refuse it at once (exit 2, one line naming the file, the
field and what is allowed) and `atmsim.validate` raises `ScenarioError`."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

import atmsim
from atmsim import ScenarioError
from conftest import run_cli

#: An ON-OFF source switching every half picosecond: 6.0e10 events for 30 ms (it ran for
#: about an hour).
FAST_ON_OFF = """name = "fast-on-off"
[run]
duration = "30 ms"
[[link]]
between = ["h", "r"]
rate = "155.52 Mb/s"
[[connection]]
name = "v"
from = "h"
to = "r"
service = "vbr"
pcr = "100 Mb/s"
source = { kind = "on_off", period = "1 ps", duty_cycle = 0.5 }
"""

#: A greedy cell source into A's unlimited buffer towards a 1 Mb/s link for 500 s (it aborted:
#: "memory allocation of 1610612736 bytes failed", a Rust backtrace, nothing written).
FLOOD = """name = "greedy-flood"
[run]
duration = "500 s"
[[switch]]
name = "A"
[[link]]
between = ["h", "A"]
rate = "155.52 Mb/s"
[[link]]
between = ["A", "r"]
rate = "1 Mb/s"
[[connection]]
name = "g"
from = "h"
to = "r"
via = ["A"]
source = "greedy"
"""

#: Cell sources only: no TCP connection, no ABR connection.
CELLS_ONLY = """name = "cells-only"
[run]
duration = "10 ms"
[[link]]
between = ["h", "r"]
rate = "155.52 Mb/s"
[[connection]]
name = "v"
from = "h"
to = "r"
service = "cbr"
pcr = "10 Mb/s"
source = "cbr"
"""


def _refused(proc: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "panicked" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith("atmsim: error: "), proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    for needle in needles:
        assert needle in proc.stderr, (needle, proc.stderr)


def test_run_of_an_on_off_source_switching_every_half_picosecond_exits_2_at_once(
    tmp_path: Path,
) -> None:
    path = tmp_path / "fast.toml"
    path.write_text(FAST_ON_OFF)
    start = time.monotonic()
    proc = run_cli("run", str(path), "--out", str(tmp_path / "out"))
    took = time.monotonic() - start
    _refused(
        proc,
        "fast.toml",
        "run.max_events",
        "6.0e10 events",
        "connection 'v': on_off source switching every 0.5 ps: 6.0e10 events over 30 ms",
        "--set run.max_events=61000000000",
    )
    assert took < 30, f"refused after {took:.1f} s"
    assert not (tmp_path / "out").exists()


def test_run_of_a_greedy_source_into_an_unlimited_buffer_exits_2_at_once(
    tmp_path: Path,
) -> None:
    path = tmp_path / "flood.toml"
    path.write_text(FLOOD)
    start = time.monotonic()
    proc = run_cli("run", str(path), "--out", str(tmp_path / "out"))
    took = time.monotonic() - start
    _refused(
        proc,
        "flood.toml",
        "run.max_queued_cells",
        "1.8e8 cells",
        "port A->r",
        "switch A",
        "run.max_queued_cells = 50000000",
    )
    assert took < 30, f"refused after {took:.1f} s"
    # The remedies it names let it through.
    for fix in ["switch.A.port_buffer=2000 cells", "run.max_queued_cells=190000000"]:
        assert run_cli("validate", str(path), "--set", fix).returncode == 0, fix


def test_validate_and_describe_give_the_estimates() -> None:
    d = atmsim.describe("fang1994-cell-drop")
    assert 1e7 < d["estimated_events"] < d["max_events"] / 100
    assert d["max_events"] == 50_000_000_000 and d["max_queued_cells"] == 50_000_000
    assert d["estimated_events_largest"].startswith("port ")
    assert 0 < d["estimated_queued_cells"] < d["max_queued_cells"]
    assert d["estimated_queue_largest"].startswith("port A->B: ")
    proc = run_cli("validate", "fang1994-cell-drop")
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"estimated at most [\d.]+e\d+ events \(run.max_events = ", proc.stdout)


@pytest.mark.parametrize(
    "overrides",
    [
        {"abr.nrm": 1},
        {"abr.rif": -5},
        {"abr.tbe": "0 cells"},
    ],
)
def test_abr_defaults_are_checked_in_a_scenario_without_abr(overrides: dict) -> None:
    (key,) = overrides
    with pytest.raises(ScenarioError) as info:
        atmsim.validate("fang1994-cell-drop", overrides=overrides)
    assert info.value.field == key, str(info.value)


def test_tcp_defaults_are_checked_in_a_scenario_without_tcp(tmp_path: Path) -> None:
    for line, field in [("sack_blocks = 9", "tcp.sack_blocks"), ('mss = "0 B"', "tcp.mss")]:
        text = f"{CELLS_ONLY}[tcp]\n{line}\n"
        at = text.splitlines().index(line) + 1
        path = tmp_path / "cells.toml"
        path.write_text(text)
        _refused(run_cli("validate", str(path)), f"cells.toml:{at}: {field}: ")


def test_a_sweep_over_an_unused_abr_default_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "nrm.toml"
    path.write_text('scenario = "fang1994-cell-drop"\n[grid]\n"abr.nrm" = [1]\n')
    proc = run_cli("sweep", str(path), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2, proc.stderr
    assert "abr.nrm" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "value",
    [
        '{ kind = "erica", interval_cells = 0 }',
        '{ kind = "erica_plus", interval_cells = 0 }',
        '{ kind = "fmmra", interval_cells = 0 }',
    ],
)
def test_an_averaging_interval_of_0_cells_is_refused(value: str) -> None:
    proc = run_cli("validate", "kalyanaraman1996-table1", "--set", f"switch.A.rate_control={value}")
    _refused(proc, "switch[0].rate_control.interval_cells", "1 or more ABR cells")
    proc = run_cli(
        "validate", "kalyanaraman1996-table1", "--set", "switch.A.rate_control.interval_cells=0"
    )
    _refused(proc, "switch[0].rate_control.interval_cells")


def test_a_number_written_as_a_string_is_refused(tmp_path: Path) -> None:
    text = atmsim.scenarios.text("fang1994-cell-drop")
    path = tmp_path / "ws.toml"
    path.write_text(text.replace("[tcp]\n", '[tcp]\nwindow_scale = "3"\n', 1))
    _refused(run_cli("validate", str(path)), "tcp.window_scale", "is a string")
    # As abr.nrm always was; and the number itself is fine.
    for key, value in [("tcp.window_scale", '"3"'), ("abr.nrm", '"32"')]:
        proc = run_cli("validate", "fang1994-cell-drop", "--set", f"{key}={value}")
        _refused(proc, key)
    assert run_cli("validate", "fang1994-cell-drop", "--set", "tcp.window_scale=3").returncode == 0


@pytest.mark.slow
def test_100000_tcp_connections_through_one_port_are_refused_by_validate(
    tmp_path: Path,
) -> None:
    """It validated (33 s), then `run` exited 3 after 48 s: "port A->B carries more than
    65,536 VCs"."""
    head = (
        'name = "many"\n[run]\nduration = "10 ms"\n[[switch]]\nname = "A"\n'
        '[[link]]\nbetween = ["h", "A"]\nrate = "155.52 Mb/s"\n'
        '[[link]]\nbetween = ["A", "r"]\nrate = "155.52 Mb/s"\n'
    )
    conns = "".join(
        f'[[connection]]\nname = "c{i}"\nfrom = "h"\nto = "r"\nvia = ["A"]\n'
        for i in range(100_000)
    )
    path = tmp_path / "many.toml"
    path.write_text(head + conns)
    proc = subprocess.run(
        [sys.executable, "-m", "atmsim.cli", "run", str(path), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    _refused(
        proc,
        "many.toml:",
        "connection[65536]",
        "port h->A would carry 100000 VCs",
        "65,536",
    )
