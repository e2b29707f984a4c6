"""Regression fingerprints: each built-in scenario's event count and event-sequence hash at
a short horizon, recorded in ``tests/fingerprints.csv`` (``atmsim fingerprint``).

A change that moves a fingerprint must say why: accept the new values with
``atmsim fingerprint --accept`` and commit that change on its own.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path

from atmsim import scenarios
from atmsim.api import run

__all__ = [
    "DEFAULT_FILE",
    "DEFAULT_UNTIL_S",
    "FIELDS",
    "Row",
    "compare",
    "measure",
    "read",
    "write",
]

DEFAULT_FILE = Path("tests") / "fingerprints.csv"
#: Simulated seconds each scenario runs for its fingerprint.
DEFAULT_UNTIL_S = 0.2
FIELDS = ("scenario", "seed", "until", "events", "fingerprint")


@dataclass(frozen=True)
class Row:
    scenario: str
    seed: int
    until: float
    events: int
    fingerprint: str

    def as_csv(self) -> dict[str, str]:
        return {
            "scenario": self.scenario,
            "seed": str(self.seed),
            "until": f"{self.until:g}",
            "events": str(self.events),
            "fingerprint": self.fingerprint,
        }


def measure(names: list[str] | None = None, until_s: float = DEFAULT_UNTIL_S) -> list[Row]:
    """Run each built-in scenario (all by default) for ``until_s`` simulated seconds with its
    own seed and no warm-up; return its fingerprint row."""
    overrides = {"run.duration": f"{until_s:g} s", "run.warmup": "0 s"}
    rows = []
    for name in names if names is not None else scenarios.names():
        summary = run(name, overrides=overrides).summary
        rows.append(
            Row(
                name,
                int(summary["seed"]),
                until_s,
                int(summary["events"]),
                str(summary["fingerprint"]),
            )
        )
    return rows


def read(path: str | os.PathLike[str] = DEFAULT_FILE) -> list[Row]:
    """The rows recorded in ``path`` (none if it does not exist)."""
    p = Path(path)
    if not p.exists():
        return []
    with p.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = set(FIELDS) - set(reader.fieldnames or ())
        if missing:
            raise ValueError(f"{p}: missing columns {', '.join(sorted(missing))}")
        return [
            Row(
                r["scenario"], int(r["seed"]), float(r["until"]), int(r["events"]), r["fingerprint"]
            )
            for r in reader
        ]


def write(rows: list[Row], path: str | os.PathLike[str] = DEFAULT_FILE) -> None:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        for row in sorted(rows, key=lambda r: r.scenario):
            writer.writerow(row.as_csv())


def compare(expected: list[Row], actual: list[Row]) -> list[str]:
    """Human-readable differences between recorded and measured rows (empty if equal)."""
    want = {r.scenario: r for r in expected}
    have = {r.scenario: r for r in actual}
    diffs = []
    for name in sorted(want.keys() | have.keys()):
        w, h = want.get(name), have.get(name)
        if w is None:
            diffs.append(f"{name}: new (not in the file): events {h.events}, {h.fingerprint}")
        elif h is None:
            diffs.append(f"{name}: in the file but not a built-in scenario any more")
        elif (w.seed, w.until) != (h.seed, h.until):
            diffs.append(
                f"{name}: recorded at seed {w.seed}, until {w.until:g} s; "
                f"measured at seed {h.seed}, until {h.until:g} s"
            )
        elif (w.events, w.fingerprint) != (h.events, h.fingerprint):
            diffs.append(
                f"{name}: events {w.events} -> {h.events}, "
                f"fingerprint {w.fingerprint} -> {h.fingerprint}"
            )
    return diffs
