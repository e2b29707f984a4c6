"""How long each reproduction's runs would take if the model moved cells as fast per hop as
the bare loop does on the same network: a bound on what engine work alone can give
`atmsim reproduce all`.

    python scripts/bare_loop_bound.py [--sample N] [--seed S] [NAME ...]

For a random sample of each reproduction's full-mode runs, the script runs the model
(`atmsim.api.run_core`, the run the reproduction makes, without its cache) and then the bare
loop of the same scenario (`atmsim._core.bare_loop`, the reference `atmsim bench` divides by).
A run's bound is its model cell-hops at the bare loop's cell-hops per second; the sample's
ratio is the sum of the bounds over the sum of the model's run times (the runs' own wall time,
`wall_s` of their summaries). Scaled by the wall time of the runs in the last full
`atmsim reproduce all` (the package's `reproduce/status.json`), it gives what those runs would
take at the bare loop's speed on the same workers.

The runs are made one after the other in this process, so keep the machine otherwise quiet.
The sample is uniform over runs, so the ratio weighs each kind of run by how often the
reproduction makes it; a sample of 60 runs per reproduction takes a few minutes.
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys

REPRODUCTIONS = ("an1997", "atlas", "cheon1998", "fang1994", "goyal1998", "kalyanaraman1996")


def ratio(name: str, sample: int, seed: int) -> tuple[float, float, int]:
    """(model seconds, seconds at the bare loop's speed per hop, runs) over a sample of
    ``name``'s full-mode runs."""
    from atmsim import _core
    from atmsim.api import run_core
    from atmsim.sweep import RunRequest
    from atmsim.sweep.execute import identify

    jobs = importlib.import_module(f"atmsim.reproduce.{name}.runs").jobs(False)
    picked = random.Random(seed).sample(jobs, min(sample, len(jobs)))
    model = bound = 0.0
    for job in picked:
        r = identify(RunRequest(job.scenario, dict(job.overrides), job.seed, job.name))
        res, _ = run_core(r.canonical, r.source, [], job.seed)
        bare = _core.bare_loop(r.canonical, r.source, [])
        model += res.summary["wall_s"]
        bound += res.summary["cell_hops"] / (bare["cell_hops"] / max(bare["wall_s"], 1e-9))
    return model, bound, len(picked)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("names", nargs="*", default=list(REPRODUCTIONS), metavar="NAME")
    p.add_argument("--sample", type=int, default=60, help="runs per reproduction (60)")
    p.add_argument("--seed", type=int, default=11, help="seed of the sample (11)")
    args = p.parse_args(argv)
    from atmsim.reproduce.framework.plan import last_full_runs, seconds_text

    last = last_full_runs()
    print(f"{'reproduction':18} {'runs':>5} {'model s':>8} {'bound s':>8} {'ratio':>6} "
          f"{'last full run':>14} {'at the bound':>13}")  # fmt: skip
    total = total_bound = 0.0
    for name in args.names:
        model, bound, n = ratio(name, args.sample, args.seed)
        wall = (last.get(name) or {}).get("runs_wall_s")
        at = "" if wall is None else seconds_text(wall * bound / model)
        if wall is not None:
            total += wall
            total_bound += wall * bound / model
        print(
            f"{name:18} {n:>5} {model:8.3f} {bound:8.3f} {bound / model:6.3f} "
            f"{seconds_text(wall) if wall is not None else '?':>14} {at:>13}",
            flush=True,
        )
    if total:
        print(f"runs of the last full run: {seconds_text(total)}; at the bare loop's speed per "
              f"hop: {seconds_text(total_bound)} ({total_bound / total:.3f})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
