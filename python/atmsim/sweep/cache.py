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
(``.tmp-<hash>-<pid>-<n>``) in the same parent, so a folder named by a hash is always whole;
an interrupted write (SIGKILL included) leaves only a temporary folder, which is never read
and is removed by the next :func:`clean_stale`.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import os
import shutil
from pathlib import Path
from typing import Any

__all__ = ["clean_stale", "is_done", "load", "run_hash", "store"]

_counter = itertools.count()


def run_hash(canonical_toml: str, seed: int | None, version: str) -> str:
    """The identity of a run (64 hex digits)."""
    key = json.dumps(
        {"scenario": canonical_toml, "seed": seed, "atmsim": version},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def is_done(cache: Path, digest: str) -> bool:
    return (cache / digest / "run.json").is_file()


def clean_stale(cache: Path) -> int:
    """Remove temporary folders that interrupted writes left; returns how many."""
    if not cache.is_dir():
        return 0
    n = 0
    for entry in cache.iterdir():
        if entry.name.startswith(".tmp-"):
            shutil.rmtree(entry, ignore_errors=True)
            n += 1
    return n


def store(
    cache: Path, digest: str, summary_json: str, series_parquet: bytes, info: dict[str, Any]
) -> Path:
    """Write one finished run atomically; returns its folder. If another writer finished the
    same run first, its copy is kept (both are the same run)."""
    cache.mkdir(parents=True, exist_ok=True)
    final = cache / digest
    if is_done(cache, digest):
        return final
    tmp = cache / f".tmp-{digest[:16]}-{os.getpid()}-{next(_counter)}"
    tmp.mkdir()
    try:
        _write(tmp / "summary.json", summary_json.encode("utf-8"))
        _write(tmp / "timeseries.parquet", series_parquet)
        # run.json last: the marker of a complete folder.
        _write(tmp / "run.json", (json.dumps(info, indent=2, sort_keys=True) + "\n").encode())
        _fsync_dir(tmp)
        try:
            os.rename(tmp, final)
        except OSError:
            if not is_done(cache, digest):
                # A partial folder with this name cannot exist (renames are atomic), but a
                # foreign one might: refuse to guess.
                raise
        else:
            _fsync_dir(cache)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return final


def load(cache: Path, digest: str) -> Any:
    """The stored run as ``atmsim.Results``."""
    from atmsim.api import Results

    return Results.read(cache / digest)


def info(cache: Path, digest: str) -> dict[str, Any]:
    return json.loads((cache / digest / "run.json").read_text(encoding="utf-8"))


def series_to_parquet(series: Any) -> bytes:
    buf = io.BytesIO()
    series.to_parquet(buf, index=False)
    return buf.getvalue()


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
