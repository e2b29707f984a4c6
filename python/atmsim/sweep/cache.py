"""The run cache: one folder per finished run, named by the run's identity.

A run is identified by the SHA-256 of (its scenario's canonical TOML after overrides, with
every default written out; its seed; the atmsim version). Two requests that describe the same
simulation therefore share one entry however they were written (a built-in name or a path,
overrides or an edited file), and a new atmsim version never reuses an old result.

Layout of a cache folder::

    <cache>/<hash>/summary.json        the run's summary (Results.summary)
    <cache>/<hash>/timeseries.parquet  its sampled series (long format)
    <cache>/<hash>/run.json            scenario, overrides, seed, version, label, wall time

Guarantees: a run folder appears in one ``os.rename`` of a complete temporary folder
(``.tmp-<hash>-<host>-<pid>-<n>``) in the same parent, so a folder named by a hash is always
whole; an interrupted write (SIGKILL included) leaves only a temporary entry, which is never
read and is removed by the next :func:`clean_stale` (unless the process that made it, on this
machine, is still running). A pool worker writes a run's files into such a folder itself
(:func:`stage`) and this process makes it final (:func:`commit`). A run stored without its
series (``keep_series=False``) gets its ``timeseries.parquet`` later by one ``os.replace``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import shutil
import socket
import time
from pathlib import Path
from typing import Any

__all__ = [
    "clean_stale",
    "commit",
    "has_series",
    "is_done",
    "load",
    "run_hash",
    "stage",
    "store",
    "summary_text",
]

_counter = itertools.count()
_HOST = re.sub(r"[^A-Za-z0-9]", "", socket.gethostname())[:32] or "host"
#: A temporary entry whose writer cannot be checked (another machine) is left alone for this
#: long before it is taken as abandoned.
FOREIGN_STALE_S = 24 * 3600.0
SERIES = "timeseries.parquet"


def run_hash(canonical_toml: str, seed: int | None, version: str) -> str:
    """The identity of a run (64 hex digits)."""
    key = json.dumps(
        {"scenario": canonical_toml, "seed": seed, "atmsim": version},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def is_done(cache: Path, digest: str) -> bool:
    """A finished run is stored under ``digest`` (``run.json`` is written last)."""
    return (cache / digest / "run.json").is_file()


def has_series(cache: Path, digest: str) -> bool:
    return (cache / digest / SERIES).is_file()


def _tmp_name(digest: str, suffix: str = "") -> str:
    return f".tmp-{digest[:16]}-{_HOST}-{os.getpid()}-{next(_counter)}{suffix}"


def _abandoned(entry: Path) -> bool:
    """Whether a temporary entry's writer is gone: a dead process on this machine, or an
    entry from another machine untouched for :data:`FOREIGN_STALE_S`."""
    # ".tmp-<hash>-<host>-<pid>-<n>[.parquet]"; older atmsim wrote ".tmp-<hash>-<pid>-<n>".
    parts = entry.name.split(".")[1].split("-")
    host, pid = None, ""
    if len(parts) == 5:
        host, pid = parts[2], parts[3]
    elif len(parts) == 4:
        host, pid = _HOST, parts[2]
    if host != _HOST or not pid.isdigit():
        try:
            return time.time() - entry.stat().st_mtime > FOREIGN_STALE_S
        except OSError:
            return False
    if int(pid) == os.getpid():
        return False  # this process writes it now (another thread)
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # it exists (owned by someone else)
    return False


def clean_stale(cache: Path) -> int:
    """Remove the temporary entries that interrupted writes left; returns how many."""
    if not cache.is_dir():
        return 0
    n = 0
    for entry in cache.iterdir():
        if entry.name.startswith(".tmp-") and _abandoned(entry):
            if entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
            n += 1
    return n


def summary_text(summary_json: str) -> str:
    """The stored form of a summary (sorted keys, indented): the same bytes from any executor."""
    return json.dumps(json.loads(summary_json), indent=2, sort_keys=True)


def stage(cache: Path, digest: str, summary_json: str, series_parquet: bytes | None) -> Path:
    """Write a run's summary (and series, unless None) into a new temporary folder in
    ``cache``, named for this process; returns it. Nothing reads it until :func:`commit`."""
    cache.mkdir(parents=True, exist_ok=True)
    tmp = cache / _tmp_name(digest)
    tmp.mkdir()
    try:
        _write(tmp / "summary.json", summary_text(summary_json).encode("utf-8"))
        if series_parquet is not None:
            _write(tmp / SERIES, series_parquet)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return tmp


def commit(cache: Path, digest: str, staged: Path, info: dict[str, Any]) -> Path:
    """Make a staged run the finished run ``digest``: ``run.json`` is written last, the folder
    synced, then renamed into place in one step. If another writer finished the same run
    first, its copy is kept (both are the same run) and only a series it lacks is moved in
    (one ``os.replace``). The staged folder is gone afterwards."""
    final = cache / digest
    try:
        if not is_done(cache, digest):
            _write(
                staged / "run.json", (json.dumps(info, indent=2, sort_keys=True) + "\n").encode()
            )
            _fsync_dir(staged)
            try:
                os.rename(staged, final)
            except OSError:
                if not is_done(cache, digest):
                    # A partial folder with this name cannot exist (renames are atomic), but
                    # a foreign one might: refuse to guess.
                    raise
            else:
                _fsync_dir(cache)
                return final
        if (staged / SERIES).is_file() and not has_series(cache, digest):
            os.replace(staged / SERIES, final / SERIES)
            _fsync_dir(final)
    finally:
        if staged.exists():
            shutil.rmtree(staged, ignore_errors=True)
    return final


def store(
    cache: Path,
    digest: str,
    summary_json: str,
    series_parquet: bytes | None,
    info: dict[str, Any],
) -> Path:
    """Write one finished run atomically (:func:`stage`, then :func:`commit`); returns its
    folder. ``series_parquet`` None stores the summary only."""
    return commit(cache, digest, stage(cache, digest, summary_json, series_parquet), info)


def load(cache: Path, digest: str) -> Any:
    """The stored run as ``atmsim.Results``."""
    from atmsim.api import Results

    return Results.read(cache / digest)


def info(cache: Path, digest: str) -> dict[str, Any]:
    return json.loads((cache / digest / "run.json").read_text(encoding="utf-8"))


def _write(path: Path, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
