"""Speed of the simulator on reference networks (``atmsim bench``).

For each case the model runs the scenario and, right after it in the same process, the *bare
loop* moves cells over the same network with the engine alone (``_core.bare_loop``: two
events per cell-hop, a FIFO per port, the link lanes; no TCP, AAL5, policy, routing or
statistics). A row reports the model's cell-hops (a cell crossing one link), events and
simulated seconds per wall second, the bare loop's cell-hops per second, and their ratio: how
close to the engine's limit the model runs on this machine. ``wall_s`` times the run alone,
not the parsing of the scenario nor the conversion of results. With ``repeat`` above one the
pairs are run in turn and each figure is the median.

The cases: Fang's 6-session LAN, the 15-connection parking lot, the same with a VBR ON-OFF
source beside the TCPs, the parking lot with 1,000 connections, the parking lot with
50 ms inter-switch links (a WAN: far more cells in flight per link), and Kalyanaraman et al.'s
15 TCPs over ABR with ERICA (1000 km links, 30 ms round trip: pacing at ACR and RM cells).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from atmsim import _core, topologies
from atmsim.api import normalize_overrides, run, scenario_text

__all__ = [
    "BENCH_SCENARIOS",
    "CASES",
    "QUICK_OVERRIDES",
    "BenchCase",
    "bench",
    "format_table",
    "ratios",
]


@dataclass(frozen=True)
class BenchCase:
    """A reference network: a name, a scenario (built-in name or dict) and overrides."""

    name: str
    scenario: Any
    overrides: dict[str, str] = field(default_factory=dict)


def _parking_lot_1000() -> dict[str, Any]:
    sc = topologies.parking_lot(
        name="bench-parking-lot-1000",
        description="The bench parking lot with 1,000 greedy Reno TCPs (334 + 333 + 333).",
        per_group=(334, 333, 333),
        start_jitter="1 ms",
    )
    return sc


_WAN = {f"link.{a}-{b}.delay": "50 ms" for a, b in (("sw1", "sw2"), ("sw2", "sw3"), ("sw3", "sw4"))}

#: The reference networks, in the order `atmsim bench` prints them.
CASES: tuple[BenchCase, ...] = (
    BenchCase("fang1994-cell-drop", "fang1994-cell-drop"),
    BenchCase("bench-parking-lot", "bench-parking-lot"),
    BenchCase("bench-parking-lot-vbr", "bench-parking-lot-vbr"),
    BenchCase("parking-lot-1000", _parking_lot_1000()),
    BenchCase("parking-lot-wan", "bench-parking-lot", _WAN),
    BenchCase("kalyanaraman-abr-15", "kalyanaraman1996-table1"),
)

#: The names of the cases.
BENCH_SCENARIOS = tuple(c.name for c in CASES)

#: `--quick`: a short horizon (and no warm-up, which may be longer than the horizon).
QUICK_OVERRIDES = {"run.duration": "0.3 s", "run.warmup": "0 s"}


def _measure(case: BenchCase, quick: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    overrides = {**case.overrides, **(QUICK_OVERRIDES if quick else {})}
    summary = run(case.scenario, overrides=overrides).summary
    text, source = scenario_text(case.scenario)
    bare = _core.bare_loop(text, source, normalize_overrides(overrides))
    return summary, bare


def bench(
    quick: bool = False, cases: tuple[BenchCase, ...] = CASES, repeat: int = 1
) -> list[dict[str, Any]]:
    """Run each case (model, then the bare loop) ``repeat`` times in turn; one row per case
    with the median of each figure."""
    samples: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {c.name: [] for c in cases}
    for _ in range(max(1, repeat)):
        for case in cases:
            samples[case.name].append(_measure(case, quick))
    rows = []
    for case in cases:
        pairs = samples[case.name]
        summary = pairs[0][0]
        walls = [max(float(s["wall_s"]), 1e-9) for s, _ in pairs]
        bare_rates = [b["cell_hops"] / max(b["wall_s"], 1e-9) for _, b in pairs]
        wall = statistics.median(walls)
        rate = summary["cell_hops"] / wall
        bare_rate = statistics.median(bare_rates)
        rows.append(
            {
                "scenario": case.name,
                "connections": len(summary["connections"]),
                "simulated_s": summary["simulated_s"],
                "wall_s": wall,
                "events": summary["events"],
                "cell_hops": summary["cell_hops"],
                "cell_hops_per_s": rate,
                "events_per_s": summary["events"] / wall,
                "simulated_s_per_wall_s": summary["simulated_s"] / wall,
                "bare_cell_hops_per_s": bare_rate,
                "ratio_to_bare": statistics.median(
                    (s["cell_hops"] / max(float(s["wall_s"]), 1e-9))
                    / (b["cell_hops"] / max(b["wall_s"], 1e-9))
                    for s, b in pairs
                ),
            }
        )
    return rows


def ratios(rows: list[dict[str, Any]]) -> dict[str, float]:
    """The figures the speed targets are stated in: the parking lot's ratio to the bare loop,
    and the 1,000-connection parking lot's speed per cell-hop over the 15-connection one's."""
    by = {r["scenario"]: r for r in rows}
    out: dict[str, float] = {}
    if "bench-parking-lot" in by:
        out["parking_lot_to_bare_loop"] = by["bench-parking-lot"]["ratio_to_bare"]
    if "bench-parking-lot" in by and "parking-lot-1000" in by:
        out["connections_1000_to_15_per_hop"] = (
            by["parking-lot-1000"]["cell_hops_per_s"] / by["bench-parking-lot"]["cell_hops_per_s"]
        )
    return out


def format_table(rows: list[dict[str, Any]]) -> str:
    head = (
        f"{'scenario':<22} {'conns':>5} {'simulated':>10} {'wall':>8} {'cell-hops/s':>12} "
        f"{'events/s':>11} {'sim s/wall s':>12} {'bare loop/s':>12} {'ratio':>6}"
    )
    lines = [head]
    for r in rows:
        lines.append(
            f"{r['scenario']:<22} {r['connections']:>5} {r['simulated_s']:>9.3f}s "
            f"{r['wall_s']:>7.3f}s {r['cell_hops_per_s']:>12.4g} {r['events_per_s']:>11.4g} "
            f"{r['simulated_s_per_wall_s']:>12.4g} {r['bare_cell_hops_per_s']:>12.4g} "
            f"{r['ratio_to_bare']:>6.3f}"
        )
    for k, v in ratios(rows).items():
        lines.append(f"{k}: {v:.3f}")
    return "\n".join(lines)
