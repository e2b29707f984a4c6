"""Speed of the simulator on reference networks (``atmsim bench``).

For each case the model runs the scenario and, right after it in the same process, the *bare
loop* moves cells over the same network with the engine alone (``_core.bare_loop``: two
events per cell-hop, a FIFO per port, the link lanes; no TCP, AAL5, policy, routing or
statistics). A row reports the model's cell-hops (a cell crossing one link), events and
simulated seconds per wall second, the bare loop's cell-hops per second, and their ratio: how
close to the engine's limit the model runs on this machine. ``wall_s`` times the run alone,
not the parsing of the scenario nor the conversion of results. With ``repeat`` above one the
pairs are run in turn and each figure is the median.

Beside each run the bench writes as many float64 values as the run's series hold, row by row,
into fresh memory (``series_mb``, ``series_write_s``): the least any recorder of those series
spends, however cheaply it reads the model. From it and the two 1,000-connection rows comes
``connections_1000_to_15_per_hop_limit_default_series``: the per-hop ratio the default series
would allow if sampling cost nothing but that writing.

The cases: Fang's 6-session LAN, the 15-connection parking lot, the same with a VBR ON-OFF
source beside the TCPs, the parking lot with 1,000 connections (with the default series:
every connection and the trunk ports, the series streamed to a file as ``atmsim.run`` does;
and with the trunk ports' series only), the parking lot with
50 ms inter-switch links (a WAN: far more cells in flight per link), and Kalyanaraman et al.'s
15 TCPs over ABR with ERICA (1000 km links, 30 ms round trip: pacing at ACR and RM cells).

With ``memory=True`` (``atmsim bench --memory``) it also measures the peak resident memory of
a whole run (the simulation, its results in Python and their files written) in a fresh
process per case: the parking lot over 6 s and 60 s of simulated time, with its default
sampling (memory should not grow with run length), and the parking lot with 15 and 1,000
connections, built alike: the extra peak over the extra connections is the memory per
connection. ``--large`` adds the 10,000-connection parking lot (:data:`LARGE_CASES`, and with
``--memory`` :data:`LARGE_MEMORY_CASES`), which takes a minute or two.

:data:`TARGETS` are the figures the engine is held to, each with where it was set;
:func:`targets` says of each whether its figure (from :func:`ratios`) meets it.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any

from atmsim import _core, topologies
from atmsim.api import normalize_overrides, scenario_text

__all__ = [
    "BENCH_SCENARIOS",
    "CASES",
    "LARGE_CASES",
    "LARGE_MEMORY_CASES",
    "MEMORY_CASES",
    "QUICK_OVERRIDES",
    "TARGETS",
    "BenchCase",
    "Target",
    "bench",
    "format_table",
    "format_targets",
    "memory",
    "ratios",
    "targets",
]


@dataclass(frozen=True)
class BenchCase:
    """A reference network: a name, a scenario (built-in name or dict) and overrides."""

    name: str
    scenario: Any
    overrides: dict[str, str] = field(default_factory=dict)


def _parking_lot_n(n: int) -> dict[str, Any]:
    """The bench parking lot with ``n`` greedy Reno TCPs, as even as three groups allow."""
    per_group = (n - 2 * (n // 3), n // 3, n // 3)
    return topologies.parking_lot(
        name=f"bench-parking-lot-{n}",
        description=f"The bench parking lot with {n:,} greedy Reno TCPs "
        f"({' + '.join(f'{g:,}' for g in per_group)}).",
        per_group=per_group,
        start_jitter="1 ms",
        aal_overhead="8 B",  # as bench-parking-lot: AAL5's trailer alone
    )


def _parking_lot_1000() -> dict[str, Any]:
    return _parking_lot_n(1000)


_TRUNKS = (("sw1", "sw2"), ("sw2", "sw3"), ("sw3", "sw4"))
_WAN = {f"link.{a}-{b}.delay": "50 ms" for a, b in _TRUNKS}
#: The 1,000-connection parking lot with series of the trunk ports only (both directions): the
#: same simulation without the 10,000 columns of the connections (the default series at this
#: size: the 20,000 of the ports of links to hosts are left out above 100 connections), so
#: the two rows show what the default sampling costs at that size.
_TRUNK_SERIES = {
    "run.sample_entities": [f"{x}->{y}" for a, b in _TRUNKS for x, y in ((a, b), (b, a))]
}

#: The reference networks, in the order `atmsim bench` prints them.
CASES: tuple[BenchCase, ...] = (
    BenchCase("fang1994-cell-drop", "fang1994-cell-drop"),
    BenchCase("bench-parking-lot", "bench-parking-lot"),
    BenchCase("bench-parking-lot-vbr", "bench-parking-lot-vbr"),
    BenchCase("parking-lot-1000", _parking_lot_1000()),
    BenchCase("parking-lot-1000-trunks", _parking_lot_1000(), _TRUNK_SERIES),
    BenchCase("parking-lot-wan", "bench-parking-lot", _WAN),
    BenchCase("kalyanaraman-abr-15", "kalyanaraman1996-table1"),
)

#: The names of the cases.
BENCH_SCENARIOS = tuple(c.name for c in CASES)

#: `--large`: the parking lot with 10,000 connections (default series), after the others. It
#: takes a minute or so (the run, its bare loop and 300,030 series), so it is not run by
#: default.
LARGE_CASES: tuple[BenchCase, ...] = (BenchCase("parking-lot-10000", _parking_lot_n(10_000)),)

#: `--quick`: a short horizon (and no warm-up, which may be longer than the horizon).
QUICK_OVERRIDES = {"run.duration": "0.3 s", "run.warmup": "0 s"}


#: Memory cases: each runs in a process of its own, so its peak is its own.
MEMORY_CASES: tuple[BenchCase, ...] = (
    BenchCase("parking-lot-6s", "bench-parking-lot", {"run.duration": "6 s"}),
    BenchCase("parking-lot-60s", "bench-parking-lot", {"run.duration": "60 s"}),
    BenchCase("parking-lot-15", _parking_lot_n(15)),
    BenchCase("parking-lot-1000", _parking_lot_1000()),
)

#: `--memory --large`: the 10,000-connection parking lot in a process of its own.
LARGE_MEMORY_CASES: tuple[BenchCase, ...] = (
    BenchCase("parking-lot-10000", _parking_lot_n(10_000)),
)

#: The connections of the parking-lot memory cases that memory per connection is computed
#: from: the extra peak memory of the 1,000 (10,000) connections over that of the 15.
MEMORY_CONNECTIONS = {"parking-lot-15": 15, "parking-lot-1000": 1000, "parking-lot-10000": 10_000}

#: `--quick` for the memory cases: a tenth of each run (the figures then say little; it
#: checks that the measurement works).
QUICK_MEMORY_DURATIONS = {"parking-lot-6s": "0.6 s", "parking-lot-60s": "6 s"}

# Runs one case and prints its peak resident set. On Linux it reads VmHWM, the high-water mark
# of this program's own memory: ru_maxrss would start from the parent's peak, which exec keeps.
# Elsewhere ru_maxrss (bytes on macOS, KiB on other systems).
_PEAK_PROGRAM = """
import json, resource, sys, tempfile
import atmsim
case = json.loads(sys.stdin.read())
res = atmsim.run(case["scenario"], overrides=case["overrides"])
with tempfile.TemporaryDirectory() as d:
    res.write(d)
try:
    with open("/proc/self/status") as f:
        line = next(x for x in f if x.startswith("VmHWM:"))
    peak = int(line.split()[1]) * 1024
except OSError:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    peak *= 1 if sys.platform == "darwin" else 1024
print(json.dumps({"peak_bytes": peak, "simulated_s": res.summary["simulated_s"]}))
"""


def memory(
    quick: bool = False, cases: tuple[BenchCase, ...] = MEMORY_CASES
) -> list[dict[str, Any]]:
    """Peak resident memory of each case, run in a fresh Python process: one row per case
    (``peak_mb``: MiB, the interpreter and its libraries included)."""
    rows = []
    for case in cases:
        overrides = dict(case.overrides)
        if quick:
            overrides["run.duration"] = QUICK_MEMORY_DURATIONS.get(case.name, "0.3 s")
            overrides["run.warmup"] = "0 s"
        proc = subprocess.run(
            [sys.executable, "-c", _PEAK_PROGRAM],
            input=json.dumps({"scenario": case.scenario, "overrides": overrides}),
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
            raise RuntimeError(f"memory case {case.name} failed: {last}")
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        rows.append(
            {
                "case": case.name,
                "simulated_s": out["simulated_s"],
                "peak_mb": out["peak_bytes"] / 2**20,
            }
        )
    return rows


def _measure(case: BenchCase, quick: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """One model run of ``case``, then its bare loop and the writing of as many series values
    as the run kept (``bare["series_values"]``, ``bare["series_write_s"]``)."""
    overrides = normalize_overrides({**case.overrides, **(QUICK_OVERRIDES if quick else {})})
    text, source = scenario_text(case.scenario)
    with tempfile.TemporaryDirectory(prefix="atmsim-bench-") as folder:
        # As `atmsim.run` does: the series streamed to a file during the run.
        path = os.path.join(folder, "series.bin")
        summary_json, series = _core.run(text, source, overrides, series_file=path)
    summary = json.loads(summary_json)
    rows, columns = len(series["time_s"]), len(series["columns"])
    del series
    bare = _core.bare_loop(text, source, overrides)
    bare["series_values"] = rows * columns
    bare["series_write_s"] = _core.series_write(columns, rows)
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
                "series_mb": pairs[0][1]["series_values"] * 8 / 2**20,
                "series_write_s": statistics.median(b["series_write_s"] for _, b in pairs),
                "ratio_to_bare": statistics.median(
                    (s["cell_hops"] / max(float(s["wall_s"]), 1e-9))
                    / (b["cell_hops"] / max(b["wall_s"], 1e-9))
                    for s, b in pairs
                ),
            }
        )
    return rows


def ratios(
    rows: list[dict[str, Any]], memory_rows: list[dict[str, Any]] | None = None
) -> dict[str, float]:
    """The figures the targets are stated in: the parking lot's ratio to the bare loop, the
    1,000-connection parking lot's speed per cell-hop over the 15-connection one's (default
    sampling; and with series of the trunk ports only, when that row was run, beside the
    limit the default series' writing alone sets; and the bare loop's own such ratio) and,
    with the
    memory rows, the 60 s run's peak memory over the 6 s run's and the 1,000-connection
    run's peak (MiB)."""
    by = {r["scenario"]: r for r in rows}
    out: dict[str, float] = {}
    mem = {r["case"]: r["peak_mb"] for r in memory_rows or []}
    if "parking-lot-6s" in mem and "parking-lot-60s" in mem:
        out["memory_60s_to_6s"] = mem["parking-lot-60s"] / mem["parking-lot-6s"]
    if "parking-lot-1000" in mem:
        out["memory_1000_connections_mb"] = mem["parking-lot-1000"]
    if "parking-lot-15" in mem:
        for case, n in MEMORY_CONNECTIONS.items():
            if case in mem and n > MEMORY_CONNECTIONS["parking-lot-15"]:
                extra = n - MEMORY_CONNECTIONS["parking-lot-15"]
                out[f"memory_per_connection_kib_{n}"] = (
                    (mem[case] - mem["parking-lot-15"]) * 1024 / extra
                )
    for case, key in (
        ("bench-parking-lot", "parking_lot_to_bare_loop"),
        ("kalyanaraman-abr-15", "kalyanaraman_abr_15_to_bare_loop"),
        ("fang1994-cell-drop", "fang1994_to_bare_loop"),
    ):
        if case in by:
            out[key] = by[case]["ratio_to_bare"]
    for n in (1000, 10_000):
        if "bench-parking-lot" in by and f"parking-lot-{n}" in by:
            many, few = by[f"parking-lot-{n}"], by["bench-parking-lot"]
            out[f"connections_{n}_to_15_per_hop"] = many["cell_hops_per_s"] / few["cell_hops_per_s"]
            # The same for the bare loop: what the engine alone loses per hop at that size
            # (its events and per-port state outgrow the caches), beside the model's figure.
            out[f"connections_{n}_to_15_per_hop_bare_loop"] = (
                many["bare_cell_hops_per_s"] / few["bare_cell_hops_per_s"]
            )
    if "bench-parking-lot" in by and "parking-lot-1000-trunks" in by:
        out["connections_1000_to_15_per_hop_trunk_series"] = (
            by["parking-lot-1000-trunks"]["cell_hops_per_s"]
            / by["bench-parking-lot"]["cell_hops_per_s"]
        )
        if "parking-lot-1000" in by:
            # The trunk-series run with its few series swapped for the default ones, at the
            # cost of writing their values once and nothing else.
            full, trunks = by["parking-lot-1000"], by["parking-lot-1000-trunks"]
            floor_wall = trunks["wall_s"] - trunks["series_write_s"] + full["series_write_s"]
            out["connections_1000_to_15_per_hop_limit_default_series"] = (
                full["cell_hops"] / floor_wall / by["bench-parking-lot"]["cell_hops_per_s"]
            )
    return out


@dataclass(frozen=True)
class Target:
    """A speed or memory target: the figure of :func:`ratios` it bounds, ``at_least`` (the
    figure must be at least ``bound``) or at most, and the words it was set in."""

    figure: str
    bound: float
    at_least: bool
    unit: str
    source: str

    def holds(self, value: float | None) -> bool | None:
        """Whether ``value`` meets the target (None: not measured)."""
        if value is None:
            return None
        return value >= self.bound if self.at_least else value <= self.bound

    @property
    def text(self) -> str:
        return f"{'>=' if self.at_least else '<='} {self.bound:g}{self.unit}"


_ISSUE = "engine v3 target"
#: The targets the bench is held to, each with where it was set. Figures measured only with
#: ``--memory`` or ``--large`` are reported "not measured" without them.
TARGETS: tuple[Target, ...] = (
    Target(
        "parking_lot_to_bare_loop", 0.8, True, "",
        f"{_ISSUE}: the parking lot runs at >= 0.8 of the bare loop",
    ),
    Target(
        "kalyanaraman_abr_15_to_bare_loop", 0.6, True, "",
        f"{_ISSUE}: ABR as fast as UBR; kalyanaraman-abr-15 at >= 0.6 of the bare loop",
    ),
    Target(
        "fang1994_to_bare_loop", 0.8, True, "",
        f"{_ISSUE}: Fang's LAN at >= 0.8 of the bare loop",
    ),
    Target(
        "connections_1000_to_15_per_hop", 0.8, True, "",
        f"{_ISSUE}: 1,000 connections at >= 0.8 of 15 per cell-hop, with the default series",
    ),
    Target(
        "connections_10000_to_15_per_hop", 0.6, True, "",
        f"{_ISSUE}: 10,000 connections at >= 0.6 of 15 per cell-hop (--large)",
    ),
    Target(
        "memory_per_connection_kib_1000", 30, False, " KiB",
        f"{_ISSUE}: memory <= 30 KB per connection (1,000 connections; --memory)",
    ),
    Target(
        "memory_per_connection_kib_10000", 30, False, " KiB",
        f"{_ISSUE}: memory <= 30 KB per connection (10,000 connections; --memory --large)",
    ),
    Target(
        "memory_60s_to_6s", 1.1, False, "x",
        f"{_ISSUE}: a 60 s parking-lot run in <= 1.1x the memory of a 6 s run, default "
        "sampling (--memory)",
    ),
)  # fmt: skip


def targets(figures: dict[str, float]) -> list[dict[str, Any]]:
    """One row per target of :data:`TARGETS`: its figure's value in ``figures`` (from
    :func:`ratios`; None when not measured) and whether it holds (None: not measured)."""
    return [
        {
            "figure": t.figure,
            "target": t.text,
            "value": figures.get(t.figure),
            "holds": t.holds(figures.get(t.figure)),
            "source": t.source,
        }
        for t in TARGETS
    ]


def format_targets(rows: list[dict[str, Any]]) -> list[str]:
    """The targets' lines of the table: figure, value, target, verdict, source."""
    lines = [f"{'target on':<36} {'value':>9} {'target':>10} {'holds':>12}  source"]
    for r in rows:
        value = "-" if r["value"] is None else f"{r['value']:.3f}"
        verdict = {True: "yes", False: "NO", None: "not measured"}[r["holds"]]
        lines.append(f"{r['figure']:<36} {value:>9} {r['target']:>10} {verdict:>12}  {r['source']}")
    return lines


def format_table(
    rows: list[dict[str, Any]], memory_rows: list[dict[str, Any]] | None = None
) -> str:
    head = (
        f"{'scenario':<24} {'conns':>5} {'simulated':>10} {'wall':>8} {'cell-hops/s':>12} "
        f"{'events/s':>11} {'sim s/wall s':>12} {'bare loop/s':>12} {'ratio':>6} "
        f"{'series MiB':>10} {'write':>7}"
    )
    lines = [head]
    for r in rows:
        lines.append(
            f"{r['scenario']:<24} {r['connections']:>5} {r['simulated_s']:>9.3f}s "
            f"{r['wall_s']:>7.3f}s {r['cell_hops_per_s']:>12.4g} {r['events_per_s']:>11.4g} "
            f"{r['simulated_s_per_wall_s']:>12.4g} {r['bare_cell_hops_per_s']:>12.4g} "
            f"{r['ratio_to_bare']:>6.3f} {r['series_mb']:>10.1f} {r['series_write_s']:>6.3f}s"
        )
    if memory_rows:
        lines.append("")
        lines.append(f"{'memory case':<24} {'simulated':>10} {'peak MiB':>9}")
        for r in memory_rows:
            lines.append(f"{r['case']:<24} {r['simulated_s']:>9.3f}s {r['peak_mb']:>9.1f}")
    figures = ratios(rows, memory_rows)
    for k, v in figures.items():
        lines.append(f"{k}: {v:.3f}")
    lines.append("")
    lines.extend(format_targets(targets(figures)))
    return "\n".join(lines)
