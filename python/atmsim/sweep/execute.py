"""Running many runs through the cache: in this process, on a local process pool, or on a
Dask distributed cluster, by one code path.

Each request is first resolved, in the client, to its canonical scenario text (the base
scenario with the overrides applied and every default written out) and its hash. Only that
text and the seed travel to a worker, so a worker needs atmsim installed but none of the
client's files; the worker returns the summary and the series, and the client writes them
into the cache. The results therefore do not depend on where the runs went.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from atmsim.sweep import cache
from atmsim.sweep.progress import Progress

__all__ = ["RunOutcome", "RunRequest", "identify", "run_cached"]


@dataclass(frozen=True)
class RunRequest:
    """One run: a scenario (built-in name, path or dict), overrides and a seed. ``label`` is
    only carried along (for messages and ``run.json``); it is not part of the identity."""

    scenario: Any
    overrides: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None
    label: str | None = None

    def describe(self) -> str:
        name = self.label or (self.scenario if isinstance(self.scenario, str) else "<dict>")
        return f"{name} (seed {self.seed})" if self.seed is not None else str(name)


@dataclass
class RunOutcome:
    """What became of one request. ``status``: ``"ran"`` (simulated now), ``"cached"`` (found
    in the cache) or ``"failed"`` (``error`` says why; nothing was cached)."""

    request: RunRequest
    hash: str | None
    status: str
    error: str = ""
    cache_dir: Path | None = None
    wall_s: float = math.nan

    @property
    def ok(self) -> bool:
        return self.status != "failed"

    @property
    def path(self) -> Path | None:
        return None if self.hash is None or self.cache_dir is None else self.cache_dir / self.hash

    def results(self) -> Any:
        """The run's ``atmsim.Results``, read from the cache."""
        if not self.ok or self.path is None:
            raise RuntimeError(f"run {self.request.describe()} failed: {self.error}")
        return cache.load(self.cache_dir, self.hash)  # type: ignore[arg-type]


@dataclass(frozen=True)
class _Resolved:
    canonical: str
    source: str
    hash: str


def identify(request: RunRequest) -> _Resolved:
    """Validate a request and compute its identity (raises ``ScenarioError``)."""
    import atmsim
    from atmsim.api import normalize_overrides, scenario_text

    text, source = scenario_text(request.scenario)
    canonical = atmsim._core.validate(text, source, normalize_overrides(request.overrides))
    digest = cache.run_hash(canonical, request.seed, atmsim.__version__)
    return _Resolved(canonical, source, digest)


def _simulate(canonical: str, source: str, seed: int | None) -> tuple[str, bytes, float]:
    """Worker: run one canonical scenario; returns (summary JSON, series parquet, wall s)."""
    from atmsim import _core
    from atmsim.api import Results

    start = time.perf_counter()
    summary_json, raw = _core.run(canonical, source, [], seed)
    res = Results._from_core(summary_json, raw)
    return summary_json, cache.series_to_parquet(res.series), time.perf_counter() - start


def _error_text(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text if type(exc).__name__ in text else f"{type(exc).__name__}: {text}"


def run_cached(
    requests: Sequence[RunRequest],
    cache_dir: str | os.PathLike[str],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool | Progress = False,
    on_done: Callable[[RunOutcome], None] | None = None,
) -> list[RunOutcome]:
    """Run every request that is not in the cache yet; return one outcome per request, in
    order.

    ``workers``: local processes (default: every core; 1 runs in this process). ``scheduler``:
    the address of a Dask distributed scheduler (``tcp://host:port``); the runs then go
    there instead. ``progress``: show a progress bar on stderr (or pass a :class:`Progress`).
    ``on_done``: called in this process after each run is stored (e.g. to rewrite a table).
    A request that fails (bad scenario or override, simulation error) gets a ``"failed"``
    outcome and does not stop the others. Requests that resolve to the same run are run once.
    """
    base = Path(cache_dir)
    base.mkdir(parents=True, exist_ok=True)
    cache.clean_stale(base)
    bar = (
        progress if isinstance(progress, Progress) else Progress(len(requests), quiet=not progress)
    )
    outcomes: list[RunOutcome] = []
    resolved: dict[int, _Resolved] = {}
    for i, req in enumerate(requests):
        try:
            r = identify(req)
        except Exception as exc:  # noqa: BLE001 - a bad request is recorded, not raised
            outcomes.append(RunOutcome(req, None, "failed", _error_text(exc), base))
            bar.failed()
            continue
        resolved[i] = r
        status = "cached" if cache.is_done(base, r.hash) else "pending"
        outcomes.append(RunOutcome(req, r.hash, status, "", base))
        if status == "cached":
            bar.cached()
    # One simulation per distinct pending hash, in request order.
    pending: dict[str, list[int]] = {}
    for i, out in enumerate(outcomes):
        if out.status == "pending":
            pending.setdefault(out.hash, []).append(i)  # type: ignore[arg-type]
    for indexes in pending.values():
        for extra in indexes[1:]:
            outcomes[extra].status = "cached"  # another request runs it
            bar.cached()
    jobs = [(digest, indexes[0]) for digest, indexes in pending.items()]

    def finish(digest: str, first: int, result: tuple[str, bytes, float] | BaseException) -> None:
        indexes = pending[digest]
        if isinstance(result, BaseException):
            for i in indexes:
                outcomes[i].status = "failed"
                outcomes[i].error = _error_text(result)
            bar.failed(len(indexes))
        else:
            summary_json, parquet, wall = result
            req = requests[first]
            info = {
                "hash": digest,
                "scenario": req.scenario if isinstance(req.scenario, str) else "<dict>",
                "source": resolved[first].source,
                "overrides": {k: _jsonable(v) for k, v in dict(req.overrides).items()},
                "seed": req.seed,
                "label": req.label,
                "atmsim_version": json.loads(summary_json).get("atmsim_version"),
                "wall_s": round(wall, 6),
            }
            summary = json.dumps(json.loads(summary_json), indent=2, sort_keys=True)
            cache.store(base, digest, summary, parquet, info)
            outcomes[first].status = "ran"
            outcomes[first].wall_s = wall
            bar.done(wall)
        if on_done is not None:
            for i in indexes:
                on_done(outcomes[i])

    try:
        if scheduler:
            _run_dask(scheduler, jobs, resolved, requests, finish)
        elif (workers or os.cpu_count() or 1) <= 1 or len(jobs) <= 1:
            for digest, first in jobs:
                r = resolved[first]
                try:
                    result: Any = _simulate(r.canonical, r.source, requests[first].seed)
                except Exception as exc:  # noqa: BLE001
                    result = exc
                finish(digest, first, result)
        else:
            _run_pool(workers or os.cpu_count() or 1, jobs, resolved, requests, finish)
    finally:
        bar.close()
    return outcomes


def _run_pool(n, jobs, resolved, requests, finish) -> None:
    import multiprocessing

    # Spawned workers inherit no threads or locks from this process (pandas, Arrow).
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(n, len(jobs)), mp_context=ctx) as pool:
        futures: dict[Future[Any], tuple[str, int]] = {}
        for digest, first in jobs:
            r = resolved[first]
            fut = pool.submit(_simulate, r.canonical, r.source, requests[first].seed)
            futures[fut] = (digest, first)
        remaining = set(futures)
        while remaining:
            done, remaining = wait(remaining, return_when=FIRST_COMPLETED)
            for fut in sorted(done, key=lambda f: futures[f][1]):
                finish(*futures[fut], _result(fut))


def _run_dask(address, jobs, resolved, requests, finish) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise RuntimeError(
            "--scheduler needs Dask distributed: pip install 'atmsim[dask]'"
        ) from exc
    with Client(address, timeout="20s") as client:
        futures = {}
        for digest, first in jobs:
            r = resolved[first]
            fut = client.submit(
                _simulate,
                r.canonical,
                r.source,
                requests[first].seed,
                key=f"atmsim-run-{digest}",
                pure=False,
            )
            futures[fut] = (digest, first)
        for fut in as_completed(list(futures)):
            finish(*futures[fut], _result(fut))


def _result(fut: Any) -> Any:
    """A finished future's value, or the exception it raised (recorded, not raised)."""
    try:
        return fut.result()
    except Exception as exc:  # noqa: BLE001
        return exc


def _jsonable(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, Iterable):
        return [_jsonable(v) for v in value]
    return str(value)
