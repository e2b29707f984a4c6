"""`atmsim bench`: the command runs and its rows are consistent. Nothing here asserts a speed:
a timing on a shared, noisy machine is not a test (read the numbers, do not assert them)."""

from __future__ import annotations

import json

import pytest

from atmsim.bench import BENCH_SCENARIOS, MEMORY_CASES, QUICK_OVERRIDES, TARGETS, targets
from conftest import run_cli

pytestmark = pytest.mark.benchmark


def test_bench_quick_reports_every_reference_scenario() -> None:
    proc = run_cli("bench", "--quick", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    rows = out["rows"]
    assert [r["scenario"] for r in rows] == list(BENCH_SCENARIOS)
    assert set(out["ratios"]) == {
        "parking_lot_to_bare_loop",
        "kalyanaraman_abr_15_to_bare_loop",
        "fang1994_to_bare_loop",
        "connections_1000_to_15_per_hop",
        "connections_1000_to_15_per_hop_bare_loop",
        "connections_1000_to_15_per_hop_trunk_series",
        "connections_1000_to_15_per_hop_limit_default_series",
    }
    horizon = float(QUICK_OVERRIDES["run.duration"].split()[0])
    for r in rows:
        assert r["simulated_s"] == pytest.approx(horizon), r
        assert r["wall_s"] > 0 and r["events"] > 0 and r["cell_hops"] > 0, r
        assert r["cell_hops_per_s"] == pytest.approx(r["cell_hops"] / r["wall_s"]), r
        assert r["events_per_s"] == pytest.approx(r["events"] / r["wall_s"]), r
        assert r["simulated_s_per_wall_s"] == pytest.approx(r["simulated_s"] / r["wall_s"]), r
        assert r["bare_cell_hops_per_s"] > 0 and r["ratio_to_bare"] > 0, r
    assert [r["connections"] for r in rows][3] == 1000
    # Keeping fewer series does not change the simulation.
    every, trunks = rows[3], rows[4]
    assert trunks["scenario"] == "parking-lot-1000-trunks"
    assert (trunks["events"], trunks["cell_hops"]) == (every["events"], every["cell_hops"])
    # The series each run kept, as float64 values: one sample every 10 ms (the default) from
    # time zero; the trunk run keeps five metrics of six ports, the default run (above 100
    # connections the ports of links to hosts are left out) five of each of the six
    # switch-to-switch ports and ten of each of 1,000 connections.
    samples = round(horizon / 0.010) + 1
    mib = 8 / 2**20
    assert trunks["series_mb"] == pytest.approx(6 * 5 * samples * mib)
    assert every["series_mb"] == pytest.approx((6 * 5 + 1_000 * 10) * samples * mib)
    assert all(r["series_write_s"] > 0 for r in rows)
    # The limit swaps the trunk run's series writing for the default run's, nothing else.
    floor_wall = trunks["wall_s"] - trunks["series_write_s"] + every["series_write_s"]
    assert out["ratios"]["connections_1000_to_15_per_hop_limit_default_series"] == pytest.approx(
        every["cell_hops"] / floor_wall / rows[1]["cell_hops_per_s"]
    )
    by = {r["scenario"]: r for r in rows}
    assert out["ratios"]["connections_1000_to_15_per_hop_bare_loop"] == pytest.approx(
        every["bare_cell_hops_per_s"] / rows[1]["bare_cell_hops_per_s"]
    )
    for name, figure in (
        ("bench-parking-lot", "parking_lot_to_bare_loop"),
        ("kalyanaraman-abr-15", "kalyanaraman_abr_15_to_bare_loop"),
        ("fang1994-cell-drop", "fang1994_to_bare_loop"),
    ):
        assert out["ratios"][figure] == by[name]["ratio_to_bare"]
    # A row per target, its verdict computed from the figure; those of --memory and --large
    # not measured.
    _check_targets(out)
    not_run = {"connections_10000_to_15_per_hop", "memory_per_connection_kib_1000"}
    not_run |= {"memory_per_connection_kib_10000", "memory_60s_to_6s"}
    assert {t["figure"] for t in out["targets"] if t["value"] is None} == not_run
    table = run_cli("bench", "--quick")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].split()[0] == "scenario" and "cell-hops/s" in lines[0]
    assert [line.split()[0] for line in lines[1 : 1 + len(rows)]] == list(BENCH_SCENARIOS)
    assert "parking_lot_to_bare_loop" in table.stdout
    shown = {line.split()[0]: line for line in lines[lines.index("") + 1 :] if line}
    for t in TARGETS:
        line = shown[t.figure]
        assert t.source in line and ("not measured" in line) == (t.figure in not_run), line


def _check_targets(out: dict) -> None:
    """``--json``'s targets: one per target of the table, in its order, each with the figure
    of ``ratios`` (None when not measured) and the verdict that figure gives."""
    assert [t["figure"] for t in out["targets"]] == [t.figure for t in TARGETS]
    for row, t in zip(out["targets"], TARGETS, strict=True):
        value = out["ratios"].get(t.figure)
        assert row["value"] == value and row["source"] == t.source, row
        if value is None:
            assert row["holds"] is None, row
        else:
            assert row["holds"] == (value >= t.bound if t.at_least else value <= t.bound), row


def test_a_targets_verdict_is_its_figure_against_its_bound() -> None:
    """Each target holds at its bound and on its side of it, fails past it, and is not
    measured without its figure."""
    for t in TARGETS:
        step = 0.01 if t.at_least else -0.01
        for value, holds in ((t.bound, True), (t.bound + step, True), (t.bound - step, False)):
            (row,) = (r for r in targets({t.figure: value}) if r["figure"] == t.figure)
            assert (row["value"], row["holds"]) == (value, holds), (t, value)
    assert all(r["value"] is None and r["holds"] is None for r in targets({}))


def test_bench_memory_measures_each_case_in_its_own_process() -> None:
    """`--memory` adds a row per memory case (run in a process of its own) and the two memory
    figures computed from those rows; no size is asserted beyond a sane range."""
    proc = run_cli("bench", "--quick", "--memory", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert [r["case"] for r in out["memory"]] == [c.name for c in MEMORY_CASES]
    mem = {r["case"]: r for r in out["memory"]}
    assert mem["parking-lot-60s"]["simulated_s"] == pytest.approx(
        10 * mem["parking-lot-6s"]["simulated_s"]
    )
    for r in out["memory"]:
        assert 20 < r["peak_mb"] < 4096, r
    assert out["ratios"]["memory_60s_to_6s"] == pytest.approx(
        mem["parking-lot-60s"]["peak_mb"] / mem["parking-lot-6s"]["peak_mb"]
    )
    assert out["ratios"]["memory_1000_connections_mb"] == mem["parking-lot-1000"]["peak_mb"]
    # Memory per connection: the extra peak of 1,000 connections over 15, per extra one.
    assert out["ratios"]["memory_per_connection_kib_1000"] == pytest.approx(
        (mem["parking-lot-1000"]["peak_mb"] - mem["parking-lot-15"]["peak_mb"]) * 1024 / 985
    )
    _check_targets(out)
    measured = {t["figure"] for t in out["targets"] if t["value"] is not None}
    assert {"memory_per_connection_kib_1000", "memory_60s_to_6s"} <= measured
