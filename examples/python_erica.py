"""ERICA written in Python, run beside the built-in (Rust) ERICA on Kalyanaraman's network.

The plug-in (``PythonErica``) re-expresses ``crates/atmsim-model/src/abr/erica.rs`` in its
basic configuration (the Rust defaults: the max-min steps, the capacity net of CBR/VBR
cells, CCR from forward RM cells, no load averaging), plus the activity decay
(``source_decay``) that the Kalyanaraman scenarios use:

- at the end of an averaging interval of length T (after ``interval_cells`` ABR cells or
  ``interval_s``, whichever first; the port counts them in Rust):
  capacity C = (U x link rate x T - CBR/VBR cells)+ / T, load factor z = ABR cells /
  (C T), N = the VCs seen (or the sum of their decayed activity), fair share C / N;
- at each backward RM cell: ER = max(fair share, CCR / z), in underload (z <= 1 + delta) at
  least the previous interval's largest ER; a VC below the fair share is held to it; never
  above C, never above the ER the cell carries.

Run from the repository (the README's set-up)::

    python examples/python_erica.py                   # kalyanaraman1996-table1, 2 s
    python examples/python_erica.py --duration 1.2s

It prints each source's goodput and the Jain index under both; they agree within the stated
tolerance (1% of the total, 0.01 on the Jain index) -- in practice exactly, as the plug-in
does the same arithmetic in the same order as the Rust scheme.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

#: The agreement the comparison asks for: total goodput within this share, Jain within this.
TOTAL_TOLERANCE = 0.01
JAIN_TOLERANCE = 0.01


class PythonErica:
    """ERICA at one output port (Jain, Kalyanaraman et al., ATM Forum 96-1172)."""

    #: (seconds, ABR cells): the averaging interval ends after either, whichever first.
    interval = (0.001, 100)

    def __init__(self, params: dict[str, Any], port: Any) -> None:
        self.u = float(params.get("target_utilization", 0.9))
        self.delta = float(params.get("delta", 0.1))
        self.decay = params.get("source_decay")  # None: N = the VCs seen in the interval
        self.interval = (
            float(params.get("interval_s", 0.001)),
            int(params.get("interval_cells", 100)),
        )
        self.link_rate = port.link_rate
        # Before the first measurement: C = U x link rate, N = 1, z = 1.
        self.capacity = self.u * self.link_rate
        self.z = 1.0
        self.n_active = 1.0
        self.fair_share = self.capacity
        self.max_alloc_previous = 0.0
        self.max_alloc_current = self.capacity
        self.ccr: list[float] = []
        self.activity: list[float] = []

    def add_vc(self, vc: int) -> None:
        self.ccr.append(0.0)
        self.activity.append(0.0)

    def on_forward_rm(self, vc: int, queue: int, rm: Any) -> None:
        self.ccr[vc] = rm.ccr

    def end_interval(self, now: float, queue: int, m: Any) -> None:
        t = m.duration_s
        cap_cells = max(self.u * self.link_rate * t - m.rt_cells, 0.0)
        self.capacity = cap_cells / t
        self.z = m.abr_cells / cap_cells if cap_cells > 0 else math.inf
        if self.decay is None:
            n = float(sum(1 for c in m.vc_cells if c > 0))
        else:
            n = 0.0
            for i, c in enumerate(m.vc_cells):
                self.activity[i] = 1.0 if c > 0 else self.activity[i] * self.decay
                n += self.activity[i]
        self.n_active = max(n, 1.0)
        self.fair_share = self.capacity / self.n_active
        self.max_alloc_previous = self.max_alloc_current
        self.max_alloc_current = self.fair_share

    def on_backward_rm(self, vc: int, queue: int, rm: Any) -> None:
        ccr, c, fs, z = self.ccr[vc], self.capacity, self.fair_share, self.z
        if c <= 0.0:
            er = 0.0
        elif math.isinf(z):
            er = fs
        elif z <= 0.0:
            er = max(fs, self.max_alloc_previous)
        elif z > 1.0 + self.delta:
            er = max(fs, ccr / z)
        else:
            er = max(max(fs, ccr / z), self.max_alloc_previous)
        self.max_alloc_current = max(self.max_alloc_current, er)
        if er > fs and ccr < fs:
            er = fs
        rm.er = min(min(er, c), rm.er)

    def stats(self) -> dict[str, float]:
        return {
            "load_factor": self.z,
            "active_vcs": self.n_active,
            "fair_rate": self.fair_share,
            "capacity": self.capacity,
        }


def jain(xs: list[float]) -> float:
    """Jain's fairness index of the values."""
    s = sum(xs)
    q = sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q > 0 else 1.0


def compare(scenario: str, duration: str | None) -> dict[str, Any]:
    """Runs `scenario` (its switches' ERICA) and again with `PythonErica` in its place."""
    import atmsim

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    base: dict[str, Any] = {} if duration is None else {"run.duration": duration}
    # The scenario's own ERICA settings, handed to the plug-in.
    rc = tomllib.loads(atmsim.validate(scenario, overrides=base))["switch"][0]["rate_control"]
    if rc["kind"] != "erica":
        raise SystemExit(f"{scenario}: its switches run {rc['kind']}, not ERICA")
    params = {
        "target_utilization": rc["target_utilization"],
        "delta": rc["delta"],
        "interval_cells": rc["interval_cells"],
        "interval_s": _seconds(rc["interval"]),
    }
    if "source_decay" in rc:
        params["source_decay"] = rc["source_decay"]
    plugin = {"kind": "python", "class": "python_erica:PythonErica", "params": params}
    out: dict[str, Any] = {"params": params}
    for name, over in (("rust", {}), ("python", {"switch.*.rate_control": plugin})):
        started, cpu = time.perf_counter(), time.thread_time()
        res = atmsim.run(scenario, overrides={**base, **over})
        wall = time.perf_counter() - started
        # The run holds this thread (without the GIL): its CPU time is the run's, whatever
        # else the machine does; loading the scenario and making the tables are in it too.
        cpu = time.thread_time() - cpu
        goodput = [float(x) for x in res.connections["goodput_mbps"]]
        out[name] = {
            "goodput": goodput,
            "total": sum(goodput),
            "jain": jain(goodput),
            "wall_s": wall,
            # Cells moved (cell-hops) per CPU second.
            "cells_per_s": res.summary["cell_hops"] / cpu,
            "fingerprint": res.summary["fingerprint"],
        }
    r, p = out["rust"], out["python"]
    out["exact"] = r["fingerprint"] == p["fingerprint"]
    out["agree"] = (
        abs(r["total"] - p["total"]) <= TOTAL_TOLERANCE * r["total"]
        and abs(r["jain"] - p["jain"]) <= JAIN_TOLERANCE
    )
    return out


def _seconds(text: str) -> float:
    """A time as the canonical TOML writes it ("5 ms", "1 s", "500 us") in seconds."""
    value, unit = text.split()
    scale = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12}[unit]
    return float(value) * scale


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenario", default="kalyanaraman1996-table1")
    ap.add_argument("--duration", default=None, help="e.g. 1.2s (default: the scenario's)")
    a = ap.parse_args()
    r = compare(a.scenario, a.duration)
    print(f"{a.scenario}: ERICA {r['params']}")
    print(f"{'source':>8} {'Rust ERICA Mb/s':>16} {'Python ERICA Mb/s':>18}")
    for i, (x, y) in enumerate(zip(r["rust"]["goodput"], r["python"]["goodput"], strict=True)):
        print(f"{i + 1:>8} {x:>16.4f} {y:>18.4f}")
    for k, label in (("total", "total"), ("jain", "Jain"), ("wall_s", "wall [s]")):
        print(f"{label:>8} {r['rust'][k]:>16.4f} {r['python'][k]:>18.4f}")
    rust, py = r["rust"]["cells_per_s"], r["python"]["cells_per_s"]
    print(f"{'cells/cpu-s':>8} {rust:>16.3e} {py:>18.3e}   (Python / Rust: {py / rust:.2f})")
    print(f"{'print':>8} {r['rust']['fingerprint']:>16} {r['python']['fingerprint']:>18}")
    print(
        f"agree within {TOTAL_TOLERANCE:.0%} of the total and {JAIN_TOLERANCE} on Jain:",
        "yes" if r["agree"] else "NO",
        "(exactly: the same run fingerprint)" if r["exact"] else "",
    )
    return 0 if r["agree"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
