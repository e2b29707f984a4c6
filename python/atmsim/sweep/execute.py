"""Running many runs through the cache: in this process, on local worker threads, or on a
Dask distributed cluster, by one code path.

Each request is first resolved, in the client, to its canonical scenario text (the base
scenario with the overrides applied and every default written out) and its hash. Only that
text and the seed travel to a worker, so a worker needs atmsim installed but none of the
client's files. Local workers are threads of this process: the simulator releases the GIL
while it runs, so they run in parallel with no process to start (a sweep of short runs never
pays a start-up) and none to leave behind; each writes its run's files into a temporary folder
of the cache. A Dask worker, which may not see the cache, returns the summary and the series
and the client writes them. Either way the client alone makes a run final (``run.json``, then
one rename), in the same bytes, so the results do not depend on where the runs went.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from atmsim.sweep import cache
from atmsim.sweep.progress import Progress

__all__ = ["RunOutcome", "RunRequest", "estimated_cost", "identify", "longest_first", "run_cached"]


@dataclass(frozen=True)
class RunRequest:
    """One run: a scenario (built-in name, path or dict), overrides and a seed. ``label`` is
    only carried along (for messages and ``run.json``); it is not part of the identity.
    ``metrics`` / ``entities``: the series the cache must keep for this request, those of
    these metrics and entities (None: every one; an empty tuple: none, the summary alone).
    A run is stored with the series every request for it asks for; a later request for
    series the stored run lacks makes it again, keeping both."""

    scenario: Any
    overrides: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None
    label: str | None = None
    metrics: tuple[str, ...] | None = None
    entities: tuple[str, ...] | None = None

    @property
    def kept(self) -> cache.Kept:
        """The series this request needs stored (:data:`cache.Kept`)."""
        return cache.kept(self.metrics, self.entities)

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

    def results(
        self, metrics: Iterable[str] | None = None, entities: Iterable[str] | None = None
    ) -> Any:
        """The run's ``atmsim.Results``, read from the cache (only the series of ``metrics``
        and ``entities`` when given)."""
        if not self.ok or self.path is None:
            raise RuntimeError(f"run {self.request.describe()} failed: {self.error}")
        return cache.load(self.cache_dir, self.hash, metrics, entities)  # type: ignore[arg-type]


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
    digest = cache.run_hash(canonical, request.seed, atmsim.__version__, atmsim.build_id())
    return _Resolved(canonical, source, digest)


def _simulate(
    canonical: str,
    source: str,
    seed: int | None,
    keep: cache.Kept | None = cache.ALL,
    cancel: Any = None,
) -> tuple[str, bytes | None, float]:
    """Worker: run one canonical scenario; returns (summary JSON, series file bytes or None,
    wall s). The series file holds the series ``keep`` names (None: no file). The summary
    gains ``build_id``: the build that ran it (the client refuses a run made by another
    build than its own). ``cancel``: an ``atmsim._core.CancelToken`` that stops the run."""
    import atmsim
    from atmsim.api import run_core

    start = time.perf_counter()
    with warnings.catch_warnings():
        # The sweep validated this scenario, and showed its warnings, before any run.
        warnings.simplefilter("ignore", atmsim.ScenarioWarning)
        res, _ = run_core(canonical, source, [], seed, cancel=cancel)
    wall = time.perf_counter() - start
    summary_json = json.dumps({**res.summary, "build_id": atmsim.build_id()})
    if keep is None:
        return summary_json, None, wall
    if keep != cache.ALL:
        res = res.select(*keep)
    return summary_json, res.series_wide_parquet(), wall


def _simulate_into(
    cache_dir: str,
    digest: str,
    canonical: str,
    source: str,
    seed: int | None,
    keep: cache.Kept | None,
    cancel: Any = None,
) -> tuple[str, str, float]:
    """Local worker: run one canonical scenario and write its files into a temporary folder of
    the cache (:func:`cache.stage`); returns ``("staged", folder, wall s)`` or
    ``("error", message, 0)``. A cancelled run raises ``atmsim.errors.Cancelled``."""
    from atmsim import errors

    try:
        summary_json, parquet, wall = _simulate(canonical, source, seed, keep, cancel)
        staged = cache.stage(Path(cache_dir), digest, summary_json, parquet)
    except errors.Cancelled:
        raise
    except Exception as exc:  # noqa: BLE001 - recorded as the run's failure
        return "error", _error_text(exc), 0.0
    return "staged", str(staged), wall


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
    keep_series: bool = True,
    on_done: Callable[[RunOutcome], None] | None = None,
    cancel: Any = None,
) -> list[RunOutcome]:
    """Run every request that is not in the cache yet; return one outcome per request, in
    order.

    ``requests``: the runs (:class:`RunRequest`: scenario, overrides, seed, label).
    ``cache_dir``: the cache folder (created if needed); each run is stored in
    ``cache_dir/<hash>/`` and read back from there (:meth:`RunOutcome.results`).
    ``workers``: local worker threads (default: every core; 1 runs in this thread). ``scheduler``:
    the address of a Dask distributed scheduler (``tcp://host:port``); the runs then go
    there instead. ``progress``: show a progress bar on stderr (or pass a :class:`Progress`).
    ``keep_series``: store each new run's time series (``series.parquet``): those its
    requests ask for (``RunRequest.metrics``, ``entities``; a later request for others runs
    it again to add them); with False only the summary is stored.
    ``on_done``: called in this process after each run is stored (e.g. to rewrite a table).
    ``cancel``: an ``atmsim._core.CancelToken`` that another thread may cancel (local workers
    only): the queued runs are then dropped, the running ones stopped, and
    ``atmsim.errors.Cancelled`` raised, every run finished so far kept.

    A request that fails (bad scenario or override, simulation error) gets a ``"failed"``
    outcome and does not stop the others. Requests that resolve to the same run are run once.
    Ctrl-C raises ``KeyboardInterrupt`` within milliseconds and keeps every run finished so
    far (queued runs dropped, running ones stopped; the simulator looks for it every few
    milliseconds); on Dask the client closes, which releases the cluster's tasks.
    """
    import atmsim

    if cancel is not None and scheduler:
        raise ValueError("cancel: only runs on local workers can be cancelled, not on a cluster")
    base = Path(cache_dir)
    base.mkdir(parents=True, exist_ok=True)
    cache.clean_stale(base)
    build = atmsim.build_id()
    bar = (
        progress if isinstance(progress, Progress) else Progress(len(requests), quiet=not progress)
    )
    outcomes: list[RunOutcome] = []
    resolved: dict[int, _Resolved] = {}
    # What the cache holds, per hash: each stored run is checked (read and hashed) once.
    stored_state: dict[str, cache.Stored] = {}
    for i, req in enumerate(requests):
        try:
            r = identify(req)
        except Exception as exc:  # noqa: BLE001 - a bad request is recorded, not raised
            outcomes.append(RunOutcome(req, None, "failed", _error_text(exc), base))
            bar.failed()
            continue
        resolved[i] = r
        st = stored_state.get(r.hash)
        if st is None:
            st = stored_state[r.hash] = cache.check(base, r.hash)
            if st.state in ("damaged", "old"):
                print(f"atmsim: {st.describe(r.hash)}", file=sys.stderr, flush=True)
        stored = st.ok and (not keep_series or cache.covers(st.kept, req.kept))
        status = "cached" if stored else "pending"
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
    # The series each run keeps: every pending request's, and those a stored copy has.
    keeps: dict[str, cache.Kept | None] = {}
    for digest, indexes in pending.items():
        k = stored_state[digest].kept if stored_state[digest].ok else None
        for i in indexes:
            k = cache.union(k, requests[i].kept)
        keeps[digest] = k if keep_series else None
    bar.start()

    def finish(digest: str, first: int, result: Any) -> None:
        """Record one job's result: an exception, ``("error", message, 0)``, ``("staged",
        folder, wall)`` from a local worker, or ``("returned", summary JSON, parquet, wall)``
        from a Dask worker."""
        indexes = pending[digest]
        error = None
        if isinstance(result, BaseException) or result[0] == "error":
            error = _error_text(result) if isinstance(result, BaseException) else result[1]
        else:
            if result[0] == "staged":
                staged, wall = Path(result[1]), result[2]
            else:
                _, summary_json, parquet, wall = result
                staged = cache.stage(base, digest, summary_json, parquet)
            summary = json.loads((staged / "summary.json").read_text(encoding="utf-8"))
            made_by = summary.get("build_id")
            if made_by != build:
                # Its key says this build made it: a run of another build is not stored.
                shutil.rmtree(staged, ignore_errors=True)
                error = (
                    f"made by atmsim build {made_by}, not this one ({build}): the workers "
                    "need the same atmsim code as the client"
                )
            else:
                req = requests[first]
                info = {
                    "hash": digest,
                    "scenario": req.scenario if isinstance(req.scenario, str) else "<dict>",
                    "source": resolved[first].source,
                    "overrides": {k: _jsonable(v) for k, v in dict(req.overrides).items()},
                    "seed": req.seed,
                    "label": req.label,
                    "atmsim_version": summary.get("atmsim_version"),
                    "build_id": build,
                    "wall_s": round(wall, 6),
                }
                if keeps[digest] is not None and keeps[digest] != cache.ALL:
                    info["series_kept"] = cache.kept_record(keeps[digest])  # type: ignore[arg-type]
                cache.commit(base, digest, staged, info)
                outcomes[first].status = "ran"
                outcomes[first].wall_s = wall
                bar.done(wall)
        if error is not None:
            for i in indexes:
                outcomes[i].status = "failed"
                outcomes[i].error = error
            bar.failed(len(indexes))
        if on_done is not None:
            for i in indexes:
                on_done(outcomes[i])

    try:
        # One argument tuple per job: the run's canonical text, source, seed, and the
        # series to keep (None: none).
        calls = [
            (digest, first, (r.canonical, r.source, requests[first].seed, keeps[digest]))
            for digest, first in jobs
            for r in (resolved[first],)
        ]
        if scheduler or ((workers or os.cpu_count() or 1) > 1 and len(calls) > 1):
            calls = longest_first(calls)
        if not calls:
            pass  # everything was in the cache (or failed up front): no executor to start
        elif scheduler:
            # Dask workers may not see this file system: they return the run, we store it.
            _run_dask(scheduler, calls, finish)
        elif (workers or os.cpu_count() or 1) <= 1 or len(jobs) <= 1:
            for digest, first, args in calls:
                _raise_if_cancelled(cancel)
                finish(digest, first, _simulate_into(str(base), digest, *args, cancel))
        else:
            _run_threads(workers or os.cpu_count() or 1, base, calls, finish, cancel)
    finally:
        bar.close()
    return outcomes


def estimated_cost(canonical: str, source: str) -> float:
    """What a run is expected to cost: the scenario layer's estimate of its events
    (``atmsim.describe``'s ``estimated_events``); 0 where it cannot be estimated."""
    import atmsim
    from atmsim import _core

    try:
        with warnings.catch_warnings():
            # The sweep validated this scenario, and showed its warnings, before any run.
            warnings.simplefilter("ignore", atmsim.ScenarioWarning)
            return float(_core.describe(canonical, source, [])["estimated_events"])
    except Exception:  # noqa: BLE001 - an unestimated run is merely handed out last
        return 0.0


def longest_first(calls: list[tuple[str, int, tuple]]) -> list[tuple[str, int, tuple]]:
    """The jobs in the order workers get them: the costliest first (by
    :func:`estimated_cost`; equal ones in request order), so that no long run starts when
    the others are done and leaves the other workers idle to the end. Each run is stored
    under its own hash and the outcomes stay in request order: the order the runs are made
    in changes no result and no file."""
    cost = {digest: estimated_cost(args[0], args[1]) for digest, _, args in calls}
    return sorted(calls, key=lambda c: -cost[c[0]])


def _raise_if_cancelled(cancel: Any) -> None:
    from atmsim import errors

    if cancel is not None and cancel.cancelled:
        raise errors.Cancelled("the runs were cancelled")


def _run_threads(
    n: int, base: Path, calls: list[tuple[str, int, tuple]], finish: Callable, cancel: Any = None
) -> None:
    """Runs the jobs on ``n`` worker threads (the simulator releases the GIL, so they run in
    parallel); results are recorded in this thread as they come. On Ctrl-C, on ``cancel``
    (a ``CancelToken`` another thread cancels) or any error here, the queued jobs are dropped
    and the running ones cancelled before re-raising."""
    from atmsim import _core, errors

    token = cancel if cancel is not None else _core.CancelToken()
    pool = ThreadPoolExecutor(max_workers=min(n, len(calls)), thread_name_prefix="atmsim-run")
    futures: dict[Future[Any], tuple[str, int]] = {}
    try:
        for digest, first, args in calls:
            futures[pool.submit(_simulate_into, str(base), digest, *args, token)] = (digest, first)
        remaining = set(futures)
        while remaining:
            _raise_if_cancelled(token)
            # A timeout keeps this thread responsive to Ctrl-C (and `cancel`) while it waits.
            done, remaining = wait(remaining, timeout=0.2, return_when=FIRST_COMPLETED)
            for fut in sorted(done, key=lambda f: futures[f][1]):
                result = _result(fut)
                if isinstance(result, errors.Cancelled):
                    continue  # stopped by `cancel`: not a failure of the run (raised above)
                finish(*futures.pop(fut), result)
        _raise_if_cancelled(token)
    except BaseException:
        token.cancel()
        pool.shutdown(wait=True, cancel_futures=True)
        # Runs that finished while this thread stopped are stored too: none is lost.
        for fut, job in sorted(futures.items(), key=lambda item: item[1][1]):
            result = _result(fut) if fut.done() and not fut.cancelled() else None
            if isinstance(result, tuple) and result[0] == "staged":
                finish(*job, result)
        raise
    pool.shutdown(wait=True)


def _run_dask(address: str, calls: list[tuple[str, int, tuple]], finish: Callable) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise RuntimeError(
            "--scheduler needs Dask distributed: pip install 'atmsim[dask]'"
        ) from exc
    # The workers only simulate: they get the canonical text and seed and return the summary
    # and series; this process writes the cache (the workers need no access to it).
    with Client(address, timeout="20s") as client:
        futures = {
            client.submit(_simulate, *args, key=f"atmsim-run-{digest}", pure=False): (
                digest,
                first,
            )
            for digest, first, args in calls
        }
        for fut in as_completed(list(futures)):
            job = futures.pop(fut)
            result = _result(fut)
            fut.release()  # its result need not stay in the cluster's memory
            finish(*job, result if isinstance(result, BaseException) else ("returned", *result))


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
