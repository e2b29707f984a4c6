"""Compares the wall time of two builds of the `hops` example, run at the same time.

    python scripts/hops_pair.py [--pairs N] BUILD_A BUILD_B -- NETWORK SECONDS

Each pair starts A and B together, each pinned to a core of its own (`taskset`), and the cores
are swapped every pair; the ratio of a pair is A's wall time over B's, both as the example
prints them (the run alone, without process start). On a shared two-core machine, whose speed
drifts by up to 2x from one second to the next, runs made one after the other give ratios
that spread that much; two runs made at once meet the same drift, and a build against itself
then spreads about +-5%. The script prints the ratios' quartiles, and fails if the two builds
disagree on the run (cell-hops, events, fingerprint).

Build the two binaries first, each with the flags the project builds with
(`.cargo/config.toml`), from separate checkouts:

    cargo build --release --example hops -p atmsim-model
    cp target/release/examples/hops /tmp/hops-a
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys

WALL = re.compile(r"([0-9.]+) s wall")
RUN = re.compile(r"(\d+) cell-hops, (\d+) events, .*fingerprint (\w+)")


def _run_pair(a: str, b: str, args: list[str], swap: bool) -> tuple[float, float]:
    cores = ("1", "0") if swap else ("0", "1")
    procs = [
        subprocess.Popen(["taskset", "-c", core, exe, *args], stdout=subprocess.PIPE, text=True)
        for exe, core in zip((a, b), cores, strict=True)
    ]
    outs = [p.communicate()[0] for p in procs]
    for exe, p, out in zip((a, b), procs, outs, strict=True):
        if p.returncode != 0 or not WALL.search(out):
            sys.exit(f"{exe} {' '.join(args)} failed (exit {p.returncode}): {out.strip()}")
    ra, rb = (RUN.search(o) for o in outs)
    if ra is None or rb is None or ra.groups() != rb.groups():
        sys.exit(f"the builds made different runs:\n  A: {outs[0].strip()}\n  B: {outs[1].strip()}")
    wa, wb = (float(WALL.search(o).group(1)) for o in outs)
    return wa, wb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=12, help="pairs to run (default 12)")
    parser.add_argument("a", help="build A (its wall time is the numerator)")
    parser.add_argument("b", help="build B")
    parser.add_argument("args", nargs="+", help="the example's arguments, after --")
    ns = parser.parse_args(argv)
    if shutil.which("taskset") is None:
        sys.exit("taskset (util-linux) is needed to pin each build to a core")
    if ns.pairs < 1:
        sys.exit("--pairs: at least 1")
    ratios = []
    for i in range(ns.pairs):
        wa, wb = _run_pair(ns.a, ns.b, ns.args, swap=i % 2 == 1)
        ratios.append(wa / wb)
        print(f"pair {i + 1:2d}: A {wa:.3f} s, B {wb:.3f} s, A/B {wa / wb:.3f}")
    q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
    print(
        f"A/B over {len(ratios)} pairs: min {min(ratios):.3f}, quartiles "
        f"{q[0]:.3f} / {q[1]:.3f} / {q[2]:.3f}, max {max(ratios):.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
