"""Speed of the simulator on two reference scenarios (``atmsim bench``).

Reports, per scenario, cell-hops per wall second (a cell crossing one link), events per wall
second and simulated seconds per wall second, from the summary counters ``cell_hops``,
``events``, ``simulated_s`` and ``wall_s`` (``wall_s`` times the model run alone, not the
parsing of the scenario nor the conversion of results).
"""

from __future__ import annotations

from typing import Any

from atmsim.api import run

__all__ = ["BENCH_SCENARIOS", "QUICK_OVERRIDES", "bench", "format_table"]

#: The scenarios `atmsim bench` measures: Fang's 6-session LAN, a 15-source parking lot, and
#: the same parking lot with a VBR ON-OFF source beside the TCPs (what a VBR cell costs).
BENCH_SCENARIOS = ("fang1994-cell-drop", "bench-parking-lot", "bench-parking-lot-vbr")

#: `--quick`: a short horizon (and no warm-up, which may be longer than the horizon).
QUICK_OVERRIDES = {"run.duration": "0.3 s", "run.warmup": "0 s"}


def bench(
    quick: bool = False, scenarios: tuple[str, ...] = BENCH_SCENARIOS
) -> list[dict[str, Any]]:
    """Run each scenario once; return one row of measurements per scenario."""
    rows = []
    for name in scenarios:
        summary = run(name, overrides=QUICK_OVERRIDES if quick else None).summary
        wall = max(float(summary["wall_s"]), 1e-9)
        rows.append(
            {
                "scenario": name,
                "simulated_s": summary["simulated_s"],
                "wall_s": summary["wall_s"],
                "events": summary["events"],
                "cell_hops": summary["cell_hops"],
                "cell_hops_per_s": summary["cell_hops"] / wall,
                "events_per_s": summary["events"] / wall,
                "simulated_s_per_wall_s": summary["simulated_s"] / wall,
            }
        )
    return rows


def format_table(rows: list[dict[str, Any]]) -> str:
    head = (
        f"{'scenario':<22} {'simulated':>10} {'wall':>8} {'cell-hops/s':>13} "
        f"{'events/s':>13} {'sim s/wall s':>13}"
    )
    lines = [head]
    for r in rows:
        lines.append(
            f"{r['scenario']:<22} {r['simulated_s']:>9.3f}s {r['wall_s']:>7.3f}s "
            f"{r['cell_hops_per_s']:>13.4g} {r['events_per_s']:>13.4g} "
            f"{r['simulated_s_per_wall_s']:>13.4g}"
        )
    return "\n".join(lines)
