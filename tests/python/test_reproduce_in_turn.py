"""``atmsim reproduce all`` makes the reproductions' runs on one pool of workers, in turn, and
builds each reproduction's outputs while the next ones' runs are made
(``atmsim.reproduce.framework.pipeline``): the same runs and the same outputs as each
reproduction made alone, batches handed to the workers in order, and a failing reproduction
stops the rest without leaving a thread waiting."""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path

import pytest

from atmsim.reproduce.framework import Job
from atmsim.reproduce.framework.pipeline import reproduce_in_turn
from atmsim.sweep import RunPool, RunRequest, run_cached
from toy_reproduction import REPRODUCTION as TOY

OUTPUTS = ("comparison.csv", "tables.csv", "notes-values.json", "notes.md")


def _toys() -> list:
    """Two toy reproductions of different names, with runs of different lengths."""
    longer = dataclasses.replace(
        TOY,
        name="toy-longer",
        jobs=lambda quick: [
            dataclasses.replace(j, overrides={**j.overrides, "run.duration": "30 ms"})
            for j in TOY.jobs(quick)
        ],
    )
    return [TOY, longer]


def test_in_turn_writes_what_each_reproduction_writes_alone(tmp_path: Path) -> None:
    toys = _toys()
    assert reproduce_in_turn(tmp_path / "all", toys, quick=True, workers=2) == 0
    for rep in toys:
        alone = tmp_path / "alone" / rep.name
        assert rep.main(alone, quick=True, workers=1) == 0
        together = tmp_path / "all" / rep.name
        for name in OUTPUTS:
            assert (together / name).read_bytes() == (alone / name).read_bytes(), (rep.name, name)
        assert sorted(p.name for p in (together / "runs").iterdir()) == sorted(
            p.name for p in (alone / "runs").iterdir()
        )
    # A second call finds every run and every output current: it makes nothing again.
    stamps = {p: p.stat().st_mtime_ns for p in (tmp_path / "all").rglob("comparison.csv")}
    assert reproduce_in_turn(tmp_path / "all", toys, quick=True, workers=2) == 0
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps


def test_a_batch_waits_for_the_earlier_tickets(tmp_path: Path) -> None:
    """The second ticket's call, started first, hands its runs over only after the first
    ticket's call has handed over its own: the first batch's runs start no later."""
    requests = {
        k: [
            RunRequest("fang1994-cell-drop-n2", {"run.duration": d, "run.warmup": "0 s"}, seed)
            for seed in (1, 2)
        ]
        for k, d in (("first", "30 ms"), ("second", "10 ms"))
    }
    outcomes: dict[str, list] = {}
    with RunPool(2) as pool:
        tickets = {"first": pool.ticket(), "second": pool.ticket()}

        def batch(k: str) -> None:
            outcomes[k] = run_cached(requests[k], tmp_path / k, pool=pool, ticket=tickets[k])

        second = threading.Thread(target=batch, args=("second",))
        second.start()
        time.sleep(0.3)  # the second call is waiting for its turn by now
        assert "second" not in outcomes
        batch("first")
        second.join(timeout=60)
    assert not second.is_alive()
    assert all(o.status == "ran" for k in outcomes for o in outcomes[k])
    started = {k: min(o.stored_at - o.wall_s for o in outcomes[k]) for k in outcomes}
    assert started["first"] <= started["second"]
    # The same runs as a call of its own makes.
    alone = run_cached(requests["second"], tmp_path / "alone", workers=1)
    assert [o.hash for o in alone] == [o.hash for o in outcomes["second"]]


def test_a_failing_reproduction_stops_the_rest_and_keeps_what_was_stored(tmp_path: Path) -> None:
    good, longer = _toys()
    bad = dataclasses.replace(
        TOY,
        name="toy-bad",
        jobs=lambda quick: [Job("no-such-scenario-anywhere", label="missing")],
    )
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="no-such-scenario-anywhere"):
        reproduce_in_turn(tmp_path, [good, bad, longer], quick=True, workers=2)
    assert time.monotonic() - started < 60
    # The first reproduction, before the failing one, was made whole.
    assert (tmp_path / good.name / "comparison.csv").is_file()
