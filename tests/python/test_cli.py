"""The `atmsim` command line, run as a subprocess: outputs, round trips, and errors that
name the problem (exit 2, one line on stderr, never a traceback)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pandas as pd
import pytest
import tomli_w

import atmsim
from conftest import SHORT_SET, run_cli

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def _sets(pairs: list[str]) -> list[str]:
    return [arg for kv in pairs for arg in ("--set", kv)]


def _assert_usage_error(proc: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith("atmsim: error: "), proc.stderr
    for needle in needles:
        assert needle in proc.stderr, (needle, proc.stderr)


def test_run_writes_summary_and_parquet(builtin: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = run_cli("run", builtin, "--out", str(out), "--seed", "3", *_sets(SHORT_SET))
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["seed"] == 3
    series = pd.read_parquet(out / "timeseries.parquet")
    assert list(series.columns) == ["time_s", "kind", "entity", "metric", "value"]
    for conn in summary["connections"]:
        assert conn["name"] in proc.stdout
    assert "total" in proc.stdout and "fairness" in proc.stdout


def test_run_csv(builtin: str, tmp_path: Path) -> None:
    proc = run_cli("run", builtin, "--out", str(tmp_path), "--csv", *_sets(SHORT_SET))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "timeseries.csv").exists()
    assert not (tmp_path / "timeseries.parquet").exists()


def test_validate(builtin: str) -> None:
    proc = run_cli("validate", builtin)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok: ")
    assert re.search(r"\d+ connections?", proc.stdout)
    assert re.search(r"\d+ links?", proc.stdout)


def test_scenario_list_names_every_builtin() -> None:
    proc = run_cli("scenario", "list")
    assert proc.returncode == 0, proc.stderr
    listed = [line.split()[0] for line in proc.stdout.splitlines() if line.strip()]
    assert listed == atmsim.scenarios.names()


def test_scenario_show_round_trips_through_run(builtin: str, tmp_path: Path) -> None:
    proc = run_cli("scenario", "show", builtin, *_sets(SHORT_SET))
    assert proc.returncode == 0, proc.stderr
    tomllib.loads(proc.stdout)  # valid TOML
    path = tmp_path / "shown.toml"
    path.write_text(proc.stdout)
    again = run_cli("scenario", "show", str(path))
    assert again.returncode == 0 and again.stdout == proc.stdout
    ran = run_cli("run", str(path), "--out", str(tmp_path / "out"))
    assert ran.returncode == 0, ran.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["simulated_s"] == pytest.approx(0.2)


def test_version_and_console_script() -> None:
    proc = run_cli("--version")
    assert proc.returncode == 0 and atmsim.__version__ in proc.stdout
    script = Path(sysconfig.get_path("scripts")) / "atmsim"
    if not script.exists():
        pytest.skip(f"no console script at {script} (not installed by pip here)")
    proc = subprocess.run([str(script), "--version"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and atmsim.__version__ in proc.stdout


# -- errors -----------------------------------------------------------------------------


@pytest.fixture
def canonical(builtin: str) -> str:
    return atmsim.validate(builtin, overrides=dict(s.split("=", 1) for s in SHORT_SET))


def _with_run_key(text: str, key: str, new_line: str) -> str:
    """Replace the line `key = ...` of the [run] table."""
    out, in_run, done = [], False, False
    for line in text.splitlines():
        if line.startswith("["):
            in_run = line.strip() == "[run]"
        if in_run and not done and re.match(rf"{key}\s*=", line):
            line, done = new_line, True
        out.append(line)
    assert done, f"no {key} in [run] of the canonical TOML"
    return "\n".join(out) + "\n"


def test_misspelt_key_names_the_field(canonical: str, tmp_path: Path) -> None:
    path = tmp_path / "typo.toml"
    path.write_text(_with_run_key(canonical, "duration", 'duraton = "0.2 s"'))
    _assert_usage_error(run_cli("run", str(path), "--out", str(tmp_path)), "typo.toml", "duraton")
    _assert_usage_error(run_cli("validate", str(path)), "duraton")


def test_bad_unit_names_the_field(canonical: str, tmp_path: Path) -> None:
    path = tmp_path / "unit.toml"
    path.write_text(_with_run_key(canonical, "duration", 'duration = "0.2 parsecs"'))
    _assert_usage_error(run_cli("validate", str(path)), "unit.toml", "duration")


def test_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "missing.toml"
    _assert_usage_error(run_cli("run", str(missing), "--out", str(tmp_path)), "missing.toml")
    _assert_usage_error(run_cli("validate", "no-such-builtin"), "no-such-builtin", "built-ins")


def test_unknown_set_key(builtin: str, tmp_path: Path) -> None:
    proc = run_cli("run", builtin, "--out", str(tmp_path), "--set", "run.bogus_key=1")
    _assert_usage_error(proc, "bogus_key")


def test_bad_set_syntax(builtin: str, tmp_path: Path) -> None:
    _assert_usage_error(run_cli("validate", builtin, "--set", "run.duration"), "KEY=VALUE")


def test_route_through_a_missing_link(builtin: str, tmp_path: Path) -> None:
    doc = tomllib.loads(atmsim.validate(builtin))
    conn = next(c for c in doc["connection"] if len(c.get("via", [])) >= 2)
    # Skip the first switches: the source host has no link to the last one.
    conn["via"] = conn["via"][-1:]
    path = tmp_path / "route.toml"
    path.write_text(tomli_w.dumps(doc))
    _assert_usage_error(run_cli("validate", str(path)), "route.toml", "via")


def test_unknown_reproduction(tmp_path: Path) -> None:
    _assert_usage_error(run_cli("reproduce", "no-such-paper", "--out", str(tmp_path)), "available")


def test_reproduce_refuses_a_bad_place_to_run(tmp_path: Path) -> None:
    out = str(tmp_path / "out")
    _assert_usage_error(
        run_cli("reproduce", "fang1994", "--workers", "0", "--out", out), "--workers"
    )
    both = run_cli("reproduce", "fang1994", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1",
                   "--out", out)  # fmt: skip
    _assert_usage_error(both, "--scheduler")
    assert not (tmp_path / "out").exists()


def test_argparse_errors_exit_2_without_traceback() -> None:
    proc = run_cli("run")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    proc = run_cli("frobnicate")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_fingerprint_outside_a_checkout_says_the_record_is_missing(tmp_path: Path) -> None:
    """Before, every built-in was reported NEW (and the command failed) when the record was
    not where a checkout keeps it."""
    proc = run_cli("fingerprint", cwd=tmp_path)
    assert proc.returncode == 2
    assert "no fingerprint record here" in proc.stderr and "NEW" not in proc.stdout


def test_the_claim_table_keeps_a_space_after_the_mark() -> None:
    from atmsim.reproduce.framework import absolute, compare, format_claims

    row = compare("Table 1: a claim", paper=1.0, measured=1.0, unit="x", tol=absolute(0))
    line = format_claims([row]).splitlines()[1]
    assert line.startswith("ok Table 1: a claim"), line


def test_ctrl_c_stops_a_long_run_within_half_a_second(tmp_path: Path) -> None:
    """A 60 s run (which validate rightly allows) stops on SIGINT, as Ctrl-C sends it, with
    exit status 130, a one-line message and no traceback."""
    import os
    import signal
    import time

    cmd = [sys.executable, "-m", "atmsim.cli", "run", "fang1994-cell-drop"]
    cmd += ["--set", "run.duration=60 s", "--out", str(tmp_path / "out")]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, start_new_session=True)
    try:
        time.sleep(2.0)  # past start-up, inside the simulation
        assert proc.poll() is None, "the run ended before it could be interrupted"
        os.killpg(proc.pid, signal.SIGINT)
        start = time.monotonic()
        code = proc.wait(timeout=30)
        took = time.monotonic() - start
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    stderr = proc.stderr.read().decode()
    assert code == 130 and "interrupted" in stderr and "Traceback" not in stderr, stderr
    assert took < 0.5, f"Ctrl-C took {took:.2f} s"


def test_run_draws_no_progress_bar_into_a_pipe(tmp_path: Path) -> None:
    proc = run_cli("run", "fang1994-cell-drop", *_sets(SHORT_SET), "--out", str(tmp_path / "o"))
    assert proc.returncode == 0, proc.stderr
    assert "sim s" not in proc.stderr and "\r" not in proc.stderr


def test_scenario_show_prints_a_derived_file_whole(tmp_path: Path) -> None:
    # A file with a built-in base and one change: shown whole, the change applied, and the same
    # text as the built-in with that --set.
    path = tmp_path / "mine.toml"
    path.write_text(
        'base = "cheon1998-epd-500"\nname = "cheon1998-epd-500"\n'
        '[set]\n"switch.sw2.port_buffer" = "1000 cells"\n'
    )
    proc = run_cli("scenario", "show", str(path), "--set", "run.duration=2 s")
    assert proc.returncode == 0, proc.stderr
    doc = tomllib.loads(proc.stdout)
    assert "base" not in doc and "set" not in doc
    assert [s["port_buffer"] for s in doc["switch"]] == ["2000 cells", "1000 cells"] + [
        "2000 cells"
    ] * 2
    assert doc["run"]["duration"] == "2 s"
    builtin = run_cli(
        "scenario",
        "show",
        "cheon1998-epd-500",
        "--set",
        "switch.sw2.port_buffer=1000 cells",
        "--set",
        "run.duration=2 s",
    )
    assert builtin.stdout == proc.stdout
    # A missing base names the file and `base`.
    path.write_text('base = "no-such-scenario"\nname = "x"\n')
    bad = run_cli("scenario", "show", str(path))
    assert bad.returncode == 2
    assert "mine.toml:1: base: no built-in scenario `no-such-scenario`" in bad.stderr
