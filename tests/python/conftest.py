"""Shared fixtures: a built-in scenario, short-horizon overrides and a CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from atmsim import scenarios

ROOT = Path(__file__).resolve().parents[2]

#: Overrides that make any scenario short: tests check plumbing, not the model's numbers.
SHORT = {"run.duration": "0.2 s", "run.warmup": "0 s"}
SHORT_SET = [f"{k}={v}" for k, v in SHORT.items()]

#: The scenario the API and CLI tests run (Fang's LAN, small and quick); any built-in would do.
PREFERRED = "fang1994-cell-drop"


@pytest.fixture(scope="session")
def builtin() -> str:
    names = scenarios.names()
    if not names:
        pytest.fail("no built-in scenarios are installed (python/atmsim/scenarios/*.toml)")
    return PREFERRED if PREFERRED in names else names[0]


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run `python -m atmsim.cli ARGS` and capture its output (never raises on failure)."""
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    return subprocess.run(
        [sys.executable, "-m", "atmsim.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=600,
        check=False,
    )


@pytest.fixture
def cli():
    return run_cli
