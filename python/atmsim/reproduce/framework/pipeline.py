"""Several reproductions on one pool of local workers (``atmsim reproduce all``).

Made one after the other, each reproduction leaves a core idle twice: while its last runs
finish on fewer workers than it has, and while its outputs (measurements, figures, notes,
report: Python in one thread) are built. Here their runs go to one
:class:`atmsim.sweep.RunPool` in turn (each reproduction's longest first, as alone), so the
workers go from one reproduction's last runs to the next one's first without waiting, and
each reproduction's outputs are built in the calling thread as soon as its own runs are
made, while the workers go on with the next ones. Every run is the one the reproduction
makes alone (same scenario, seed and cache entry): only when they are made changes, so the
outputs are the same files.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from atmsim.reproduce.framework.reproduction import Reproduction
from atmsim.sweep.progress import Progress

__all__ = ["reproduce_in_turn"]


class _SharedBar(Progress):
    """One progress bar over every reproduction's runs: one reproduction's batch ending does
    not close it."""

    def close(self) -> None:
        pass

    def close_all(self) -> None:
        super().close()


def reproduce_in_turn(
    out: str | os.PathLike[str],
    reps: Sequence[Reproduction],
    quick: bool,
    workers: int | None = None,
    *,
    progress: bool | None = None,
) -> int:
    """Each of ``reps`` into ``out/<its name>/``, as its ``main(out/name, quick)`` would, on
    ``workers`` local worker threads shared by all (default: every core); returns the largest
    status. Each reproduction's outputs are built as soon as its runs are made, in the order
    of ``reps``, and it prints ``== reproduce NAME`` when they start. A reproduction whose
    runs fail raises its error here and stops the rest (every run stored so far is kept).
    ``progress``: one bar over all the runs on stderr (default: when stderr is a terminal)."""
    from atmsim.sweep import RunPool

    root = Path(out)
    total = sum(len(rep.jobs(quick)) for rep in reps)
    show = sys.stderr.isatty() if progress is None else progress
    bar = _SharedBar(total, quiet=not show, label="runs")
    made: list[Any] = [None] * len(reps)
    failed: list[BaseException | None] = [None] * len(reps)
    ready = [threading.Event() for _ in reps]
    status = 0
    try:
        with RunPool(workers or os.cpu_count() or 1) as pool:
            tickets = [pool.ticket() for _ in reps]

            def make(i: int) -> None:
                try:
                    made[i] = reps[i].make(
                        root / reps[i].name, quick, pool=pool, ticket=tickets[i], progress=bar
                    )
                except BaseException as exc:  # noqa: BLE001 - raised in the calling thread
                    failed[i] = exc
                finally:
                    pool.give_up(tickets[i])
                    ready[i].set()

            for i, rep in enumerate(reps):
                name = f"atmsim-{rep.name}"
                threading.Thread(target=make, args=(i,), name=name, daemon=True).start()
            for i, rep in enumerate(reps):
                while not ready[i].wait(0.2):  # a timeout keeps Ctrl-C responsive
                    pass
                error = failed[i]
                if error is not None:
                    raise error
                print(f"== reproduce {rep.name}", file=sys.stderr, flush=True)
                result = rep.complete(made[i])
                status = max(status, result if isinstance(result, int) else 0)
    finally:
        bar.close_all()
    return status
