"""scripts/bare_loop_bound.py: a reproduction's runs timed against the bare loop of their
scenarios, and scaled to the last full run's wall time.

Two of fang1994's runs keep it short; the last full run is replaced by a known one, so the
scaling (the last run's time times the sample's ratio) can be checked from the printed row.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bare_loop_bound.py"


def _load():
    spec = importlib.util.spec_from_file_location("bare_loop_bound", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_sample_is_timed_and_scaled_to_the_last_full_run(monkeypatch, capsys):
    from atmsim.reproduce.framework import plan

    monkeypatch.setattr(plan, "last_full_runs", lambda: {"fang1994": {"runs_wall_s": 1000.0}})
    assert _load().main(["--sample", "2", "fang1994"]) == 0
    out = capsys.readouterr().out
    number = r"\s+([\d.]+)"
    row = re.search(rf"^fang1994\s+2{number * 3}\s+16 min 40 s\s+(.+)$", out, re.M)
    assert row, out
    model, bound, ratio = (float(row.group(i)) for i in (1, 2, 3))
    assert model > 0 and bound > 0
    # Each printed to three places: half a unit of the last place on each.
    assert abs(ratio - bound / model) <= 0.0005 + 0.0005 * (1 + ratio) / model
    # The bound of 1,000 s of runs: 1,000 s times the ratio (printed to whole seconds, the
    # ratio to three places: 0.5 s).
    assert abs(_seconds(row.group(4)) - 1000.0 * ratio) <= 2
    assert "runs of the last full run: 16 min 40 s; at the bare loop's speed per hop:" in out


def _seconds(text: str) -> float:
    m = re.fullmatch(r"\s*(?:(\d+) min)?\s*(?:(\d+) s)?\s*", text)
    assert m, text
    return 60 * int(m.group(1) or 0) + int(m.group(2) or 0)
