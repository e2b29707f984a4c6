"""Compares the wall time of two builds of the `hops` example, run at the same time.

    python scripts/hops_pair.py [--pairs N] BUILD_A BUILD_B -- NETWORK SECONDS

Each pair starts A and B together, each pinned to a core of its own (`taskset`), and the cores
are swapped every pair; the ratio of a pair is A's wall time over B's, both as the example
prints them (the run alone, without process start). On a shared two-core machine, whose speed
drifts by up to 2x from one second to the next, runs made one after the other give ratios
that spread that much; two runs made at once meet the same drift, and a build against itself
then spreads about +-5%. The script prints the ratios' quartiles, and fails if the two builds
disagree on the run (cell-hops, events, fingerprint).

With `--perf`, each run is also sampled by `perf record -e cpu-clock` (a timer, so it works
where the machine offers no hardware counters) and the script sums the samples per function
over all pairs: where the time of one build went that the other's did not. Instruction
counts (valgrind) miss what this shows, such as loads that wait for the stores before them.
`perf annotate -i FILE --stdio SYMBOL` on the files kept with `--keep DIR` then points at the
instructions.

With `--bare`, both builds run the example's bare loop of the network instead (`HOPS_BARE=1`:
the same cell model without ports' policies, TCP or statistics, events in the wheel), the
reference `atmsim bench` divides by: a change to the engine moves it too.

The two builds may instead be of the `scenario_hops` example of atmsim-scenario, which runs a
scenario file and prints the same line: `-- FILE.toml` then times a real run (write it out in
full first: `atmsim scenario show NAME --set KEY=VALUE > FILE.toml`).

Build the two binaries first, each with the flags the project builds with
(`.cargo/config.toml`), from separate checkouts:

    cargo build --release --example hops -p atmsim-model
    cp target/release/examples/hops /tmp/hops-a
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

WALL = re.compile(r"([0-9.]+) s wall")
#: What both builds must agree on: cell-hops, events and (the model's runs; the bare loop
#: prints none) the fingerprint.
RUN = re.compile(r"(\d+) cell-hops, (\d+) events(?:, .*fingerprint (\w+))?")


def _run_pair(
    a: str,
    b: str,
    args: list[str],
    swap: bool,
    perf: tuple[Path, Path] | None = None,
    bare: bool = False,
) -> tuple[float, float]:
    cores = ("1", "0") if swap else ("0", "1")
    env = dict(os.environ)
    env.pop("HOPS_BARE", None)
    if bare:
        env["HOPS_BARE"] = "1"
    procs = []
    for exe, core, data in zip((a, b), cores, perf or (None, None), strict=True):
        cmd = [exe, *args]
        if data is not None:
            cmd = ["perf", "record", "-q", "-e", "cpu-clock", "-F", "4000", "-o", str(data), *cmd]
        procs.append(
            subprocess.Popen(
                ["taskset", "-c", core, *cmd],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                env=env,
            )
        )
    outs = [p.communicate()[0] for p in procs]
    for exe, p, out in zip((a, b), procs, outs, strict=True):
        if p.returncode != 0 or not WALL.search(out):
            sys.exit(f"{exe} {' '.join(args)} failed (exit {p.returncode}): {out.strip()}")
    ra, rb = (RUN.search(o) for o in outs)
    if ra is None or rb is None or ra.groups() != rb.groups():
        sys.exit(f"the builds made different runs:\n  A: {outs[0].strip()}\n  B: {outs[1].strip()}")
    wa, wb = (float(WALL.search(o).group(1)) for o in outs)
    return wa, wb


def samples_per_function(report: str) -> collections.Counter[str]:
    """Samples per function from `perf report --stdio -F sample,sym -t '|'`."""
    counts: collections.Counter[str] = collections.Counter()
    for line in report.splitlines():
        if line.startswith("#") or "|" not in line:
            continue
        n, sym = line.split("|", 1)
        sym = re.sub(r"^\[.\]\s*", "", sym.strip())
        if n.strip().isdigit() and sym:
            counts[sym] += int(n)
    return counts


def _perf_samples(data: Path) -> collections.Counter[str]:
    out = subprocess.run(
        ["perf", "report", "-i", str(data), "--stdio", "-F", "sample,sym", "-t", "|"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return samples_per_function(out)


def print_samples(a: collections.Counter[str], b: collections.Counter[str], top: int) -> None:
    """The functions with the most samples in A and B together, then the totals."""
    names = sorted(set(a) | set(b), key=lambda k: -(a[k] + b[k]))[:top]
    print(f"{'samples per function, all pairs':72s} {'A':>8s} {'B':>8s}  A/B")
    for k in names:
        ratio = f"{a[k] / b[k]:.3f}" if b[k] else "-"
        print(f"{k[-72:]:72s} {a[k]:8d} {b[k]:8d}  {ratio}")
    ta, tb = sum(a.values()), sum(b.values())
    print(f"{'total':72s} {ta:8d} {tb:8d}  {ta / tb if tb else float('nan'):.3f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=12, help="pairs to run (default 12)")
    parser.add_argument(
        "--perf", action="store_true", help="also sum perf's timer samples per function"
    )
    parser.add_argument("--top", type=int, default=8, help="functions listed with --perf")
    parser.add_argument("--keep", type=Path, help="keep the perf.data files in this folder")
    parser.add_argument(
        "--bare", action="store_true", help="run the network's bare loop (HOPS_BARE=1) instead"
    )
    parser.add_argument("a", help="build A (its wall time is the numerator)")
    parser.add_argument("b", help="build B")
    parser.add_argument("args", nargs="+", help="the example's arguments, after --")
    ns = parser.parse_args(argv)
    if shutil.which("taskset") is None:
        sys.exit("taskset (util-linux) is needed to pin each build to a core")
    if ns.perf and shutil.which("perf") is None:
        sys.exit("--perf: the perf tool (linux-perf) is not installed")
    if ns.pairs < 1:
        sys.exit("--pairs: at least 1")
    ratios = []
    samples: tuple[collections.Counter[str], collections.Counter[str]] = (
        collections.Counter(),
        collections.Counter(),
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = ns.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(ns.pairs):
            perf = (folder / f"a-{i + 1}.data", folder / f"b-{i + 1}.data") if ns.perf else None
            wa, wb = _run_pair(ns.a, ns.b, ns.args, swap=i % 2 == 1, perf=perf, bare=ns.bare)
            ratios.append(wa / wb)
            print(f"pair {i + 1:2d}: A {wa:.3f} s, B {wb:.3f} s, A/B {wa / wb:.3f}")
            if perf is not None:
                for total, data in zip(samples, perf, strict=True):
                    total.update(_perf_samples(data))
    q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
    print(
        f"A/B over {len(ratios)} pairs: min {min(ratios):.3f}, quartiles "
        f"{q[0]:.3f} / {q[1]:.3f} / {q[2]:.3f}, max {max(ratios):.3f}"
    )
    if ns.perf:
        print_samples(*samples, ns.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
