"""Regression fingerprints: each built-in scenario's event count and event hash at a short
horizon must match tests/fingerprints.csv. A change that moves them must say why."""

from __future__ import annotations

from atmsim import fingerprint
from conftest import ROOT

RECORD = ROOT / "tests" / "fingerprints.csv"
HOW_TO_UPDATE = (
    "if the change is intended, run `atmsim fingerprint --accept` from the repository root "
    "and commit tests/fingerprints.csv on its own, saying why the events moved"
)


def test_fingerprints_match_the_record() -> None:
    recorded = fingerprint.read(RECORD)
    assert recorded, f"{RECORD} is missing or empty; {HOW_TO_UPDATE}"
    until = {row.until for row in recorded}
    assert len(until) == 1, f"{RECORD}: rows recorded at different horizons {sorted(until)}"
    measured = fingerprint.measure(until_s=until.pop())
    diffs = fingerprint.compare(recorded, measured)
    assert not diffs, "fingerprints differ:\n  " + "\n  ".join(diffs) + f"\n{HOW_TO_UPDATE}"


def test_compare_reports_each_kind_of_difference() -> None:
    row = fingerprint.Row("a", 1, 0.2, 10, "00ff")
    assert fingerprint.compare([row], [row]) == []
    moved = fingerprint.Row("a", 1, 0.2, 11, "00fe")
    assert "10 -> 11" in fingerprint.compare([row], [moved])[0]
    assert "new" in fingerprint.compare([], [row])[0]
    assert "not a built-in" in fingerprint.compare([row], [])[0]


def test_write_read_round_trip(tmp_path) -> None:
    rows = [fingerprint.Row("b", 2, 0.2, 5, "abcd"), fingerprint.Row("a", 1, 0.2, 10, "00ff")]
    path = tmp_path / "fp.csv"
    fingerprint.write(rows, path)
    assert path.read_text().splitlines()[0] == "scenario,seed,until,events,fingerprint"
    assert fingerprint.read(path) == sorted(rows, key=lambda r: r.scenario)
