"""Early packet discard written in Python, run beside the built-in (Rust) EPD.

The plug-in (``PythonEpd``) is the decision rule of ``crates/atmsim-model/src/port/policy/
epd.rs``: a frame is refused whole at its first cell when the buffer the thresholds refer to
(the port's shared buffer if it is bounded, else the VC's own) holds at least ``threshold``
of its size. The rest is the port's, as for the Rust EPD: the rest of a refused frame is
dropped, and an admitted frame that overflows the buffer loses its tail (partial packet
discard, the EOM kept). So the plug-in is called once per frame, and the two runs make the
same decisions: they agree exactly, cell for cell.

Run from the repository (the README's set-up)::

    python examples/python_epd.py                 # cheon1998-epd-500, 3 s
    python examples/python_epd.py --duration 0.5s

A scenario names the plug-in as ``policy = { kind = "python", class = "python_epd:PythonEpd",
params = { threshold = 0.95 } }``; the module must be importable (this script puts its own
folder on ``sys.path``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any


class PythonEpd:
    """EPD: refuse a frame at its first cell when the buffer is at or above the threshold."""

    def __init__(self, params: dict[str, Any], port: Any) -> None:
        self.threshold = float(params["threshold"])
        if not 0.0 < self.threshold <= 1.0:
            raise ValueError(f"threshold {self.threshold} is not in (0, 1]")

    def on_frame(self, now: float, view: Any, label: int) -> str | None:
        # The buffer thresholds refer to: the shared port buffer if bounded, else the VC's.
        if view.port_limit is not None:
            level, size = view.occupancy, view.port_limit
        elif view.vc_limit is not None:
            level, size = view.vc_count, view.vc_limit
        else:
            return None
        return "early_discard" if level >= self.threshold * size else None


def jain(xs: list[float]) -> float:
    """Jain's fairness index of the values."""
    s = sum(xs)
    q = sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q > 0 else 1.0


def compare(scenario: str, threshold: float, duration: str | None) -> dict[str, Any]:
    """Runs `scenario` with the Rust EPD and with `PythonEpd`; returns both results."""
    import atmsim

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    base: dict[str, Any] = {} if duration is None else {"run.duration": duration}
    plugin = {
        "kind": "python",
        "class": "python_epd:PythonEpd",
        "params": {"threshold": threshold},
    }
    rust = {"kind": "epd", "threshold": threshold}
    out = {}
    for name, policy in (("rust", rust), ("python", plugin)):
        started, cpu = time.perf_counter(), time.thread_time()
        res = atmsim.run(scenario, overrides={**base, "switch.*.policy": policy})
        wall = time.perf_counter() - started
        # The run holds this thread (without the GIL): its CPU time is the run's, whatever
        # else the machine does; loading the scenario and making the tables are in it too.
        cpu = time.thread_time() - cpu
        goodput = [float(x) for x in res.connections["goodput_mbps"]]
        out[name] = {
            "goodput": goodput,
            "total": sum(goodput),
            "jain": jain(goodput),
            "early_discards": res.summary["totals"]["drops_by_reason"]["early_discard"],
            "wall_s": wall,
            # Cells moved (cell-hops) per CPU second.
            "cells_per_s": res.summary["cell_hops"] / cpu,
            "fingerprint": res.summary["fingerprint"],
        }
    # The same decisions make the same run: the same fingerprint (a hash of every event).
    out["agree"] = (
        out["rust"]["goodput"] == out["python"]["goodput"]
        and out["rust"]["fingerprint"] == out["python"]["fingerprint"]
    )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenario", default="cheon1998-epd-500")
    ap.add_argument("--threshold", type=float, default=0.95)
    ap.add_argument("--duration", default=None, help="e.g. 0.5s (default: the scenario's)")
    a = ap.parse_args()
    r = compare(a.scenario, a.threshold, a.duration)
    print(f"{a.scenario}, EPD threshold {a.threshold}")
    print(f"{'connection':>10} {'Rust EPD Mb/s':>14} {'Python EPD Mb/s':>16}")
    for i, (x, y) in enumerate(zip(r["rust"]["goodput"], r["python"]["goodput"], strict=True)):
        print(f"{i + 1:>10} {x:>14.4f} {y:>16.4f}")
    for k, label in (("total", "total"), ("jain", "Jain index"), ("wall_s", "wall [s]")):
        print(f"{label:>10} {r['rust'][k]:>14.4f} {r['python'][k]:>16.4f}")
    print(
        f"{'EPD drops':>10} {r['rust']['early_discards']:>14} {r['python']['early_discards']:>16}"
    )
    rust, py = r["rust"]["cells_per_s"], r["python"]["cells_per_s"]
    print(f"{'cells/cpu-s':>10} {rust:>14.3e} {py:>16.3e}   (Python / Rust: {py / rust:.2f})")
    print(f"{'print':>10} {r['rust']['fingerprint']:>14} {r['python']['fingerprint']:>16}")
    print("agree exactly (every goodput, the run's fingerprint):", "yes" if r["agree"] else "NO")
    return 0 if r["agree"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
