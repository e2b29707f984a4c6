"""The run cache: one folder per finished run, named by the run's identity.

A run is identified by the SHA-256 of (its scenario's canonical TOML after overrides, with
every default written out; its seed; the atmsim version; the build, ``atmsim.build_id()``: a
hash of the Rust sources and of the Python package's code). Two requests that describe the
same simulation therefore share one entry however they were written (a built-in name or a
path, overrides or an edited file), and a changed simulator never reuses an old result.

Layout of a cache folder::

    <cache>/<hash>/summary.json        the run's summary (Results.summary, with build_id)
    <cache>/<hash>/series.parquet      its sampled series, one column per series
                                       (:mod:`atmsim.wide`; ``Results.read`` reads it)
    <cache>/<hash>/run.json            scenario, overrides, seed, version, build, label,
                                       wall time, the series kept ("series_kept", absent
                                       when every series is), and the manifest: "files",
                                       the SHA-256 and size of each other file; written last

A run's series file holds every series, or only those of some metrics and entities when
every request for the run asked for no more (:data:`Kept`); a request for series the
stored run lacks makes the run again, keeping both.

Guarantees: a run folder appears in one ``os.rename`` of a complete temporary folder
(``.tmp-<hash>-<host>-<pid>-<n>``) in the same parent; an interrupted write (SIGKILL
included) leaves only a temporary entry, which is never read and is removed by the next
:func:`clean_stale` (unless the process that made it, on this machine, is still running). A
pool worker writes a run's files into such a folder itself (:func:`stage`) and this process
makes it final (:func:`commit`). A stored run is trusted only when :func:`check` finds it
whole: ``run.json`` parses and each file it lists is there with its size and SHA-256. One
that is not (a file deleted, truncated, edited or replaced; a run of an atmsim without
manifests) is made again and its folder replaced (:func:`commit`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from atmsim import storage

__all__ = [
    "ALL",
    "Kept",
    "Stored",
    "check",
    "clean_stale",
    "commit",
    "covers",
    "has_series",
    "is_done",
    "kept",
    "kept_record",
    "load",
    "run_hash",
    "stage",
    "store",
    "stored_kept",
    "union",
]

#: A temporary entry whose writer cannot be checked (another machine) is left alone for this
#: long before it is taken as abandoned.
FOREIGN_STALE_S = storage.FOREIGN_STALE_S
_HOST = storage.HOST
SUMMARY = "summary.json"
#: The series file (:mod:`atmsim.wide`). Runs stored by atmsim 0.1 builds before it held the
#: long table, ``timeseries.parquet``; ``Results.read`` still reads those.
SERIES = "series.parquet"
LONG_SERIES = "timeseries.parquet"
#: The record of a finished run, written last: how it was made, and its manifest.
RUN_INFO = "run.json"

#: Which series a run's file holds, or a request needs: those of ``(metrics, entities)``,
#: each a sorted tuple of names or None for every one (so an empty tuple: none).
Kept = tuple[tuple[str, ...] | None, tuple[str, ...] | None]
#: Every series.
ALL: Kept = (None, None)


def kept(metrics: Iterable[str] | None, entities: Iterable[str] | None) -> Kept:
    """The :data:`Kept` of these metrics and entities (None: every one)."""
    return (
        None if metrics is None else tuple(sorted(set(metrics))),
        None if entities is None else tuple(sorted(set(entities))),
    )


def _none(k: Kept | None) -> bool:
    return k is None or any(axis is not None and not axis for axis in k)


def covers(have: Kept | None, want: Kept | None) -> bool:
    """Whether series ``have`` (None: no series file) hold every series of ``want`` (None:
    none wanted)."""
    if _none(want):
        return True
    if _none(have):
        return False
    return all(
        h is None or (w is not None and set(w) <= set(h))
        for h, w in zip(have, want, strict=True)  # type: ignore[arg-type]
    )


def union(a: Kept | None, b: Kept | None) -> Kept | None:
    """The least :data:`Kept` that covers ``a`` and ``b`` (None: no series)."""
    if _none(a):
        return None if _none(b) else b
    if _none(b):
        return a
    return tuple(  # type: ignore[return-value]
        None if x is None or y is None else tuple(sorted(set(x) | set(y)))
        for x, y in zip(a, b, strict=True)  # type: ignore[arg-type]
    )


def kept_record(k: Kept) -> dict[str, list[str] | None] | None:
    """``run.json``'s ``series_kept`` for series ``k`` (None, not written, for every one)."""
    if k == ALL:
        return None
    return {"metrics": None if k[0] is None else list(k[0]),
            "entities": None if k[1] is None else list(k[1])}  # fmt: skip


def stored_kept(info: dict[str, Any], files: Any) -> Kept | None:
    """The series a stored run's file holds (None: it has none)."""
    if SERIES not in files and LONG_SERIES not in files:
        return None
    rec = info.get("series_kept")
    if not isinstance(rec, dict):
        return ALL
    return kept(rec.get("metrics"), rec.get("entities"))


def run_hash(canonical_toml: str, seed: int | None, version: str, build: str) -> str:
    """The identity of a run (64 hex digits): its canonical scenario, its seed, the atmsim
    version and the build (``atmsim.build_id()``) that makes it."""
    key = json.dumps(
        {"scenario": canonical_toml, "seed": seed, "atmsim": version, "build": build},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Stored:
    """What the cache holds under one hash (:func:`check`). ``state``: ``"missing"`` (no
    folder), ``"ok"`` (``run.json`` parses and every file it lists is there with its
    recorded size and SHA-256), ``"damaged"`` (``files`` names what is wrong) or ``"old"``
    (stored by an atmsim without manifests: not trusted)."""

    state: str
    files: tuple[str, ...] = ()
    #: The series its file holds (None: no series file).
    kept: Kept | None = None
    info: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.state == "ok"

    @property
    def has_series(self) -> bool:
        return self.kept is not None

    def describe(self, digest: str) -> str:
        """The one line a rerun prints for a run it does not trust."""
        if self.state == "old":
            return f"run {digest[:16]} has no manifest (stored by an older atmsim); recomputing"
        return f"run {digest[:16]} damaged: {', '.join(self.files)}; recomputing"


def check(cache: Path, digest: str) -> Stored:
    """Whether the run ``digest`` is stored whole: ``run.json`` (written last) parses, names
    this hash, and lists files (its manifest) that are all there, each with the recorded size
    and SHA-256. Reads every file of the run once."""
    folder = cache / digest
    if not os.path.lexists(folder):
        return Stored("missing")
    try:
        info = json.loads((folder / RUN_INFO).read_bytes())
    except (OSError, ValueError):
        return Stored("damaged", (RUN_INFO,))
    if not isinstance(info, dict):
        return Stored("damaged", (RUN_INFO,))
    files = info.get("files")
    if files is None:
        return Stored("old")
    if not storage.valid_manifest(files) or info.get("hash") != digest or SUMMARY not in files:
        return Stored("damaged", (RUN_INFO,))
    bad = storage.check_files(folder, files)
    if bad:
        return Stored("damaged", tuple(bad))
    return Stored("ok", (), stored_kept(info, files), info)


def is_done(cache: Path, digest: str) -> bool:
    """A finished run is stored whole under ``digest`` (:func:`check`)."""
    return check(cache, digest).ok


def has_series(cache: Path, digest: str) -> bool:
    """Whether the run's manifest lists its series (the file is checked by :func:`check`)."""
    st = check(cache, digest)
    return st.ok and st.has_series


def _tmp_name(digest: str) -> str:
    return f".tmp-{digest[:16]}-{storage.tmp_suffix()}"


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
    return storage.writer_gone(host, pid, entry)


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


def stage(cache: Path, digest: str, summary_json: str, series_parquet: bytes | None) -> Path:
    """Write a run's summary (and series file, :mod:`atmsim.wide`, unless None) into a new
    temporary folder in
    ``cache``, named for this process; returns it. Nothing reads it until :func:`commit`."""
    cache.mkdir(parents=True, exist_ok=True)
    tmp = cache / _tmp_name(digest)
    tmp.mkdir()
    try:
        # The stored form of a summary, the same bytes from any executor: sorted keys,
        # indented, no final newline. Written as it is encoded (a large run's summary is tens
        # of megabytes of text, whose encoding in one piece would cost several times that).
        storage.write_json(
            tmp / SUMMARY, json.loads(summary_json), sort_keys=True, end="", sync=True
        )
        if series_parquet is not None:
            _write(tmp / SERIES, series_parquet)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return tmp


def commit(cache: Path, digest: str, staged: Path, info: dict[str, Any]) -> Path:
    """Make a staged run the finished run ``digest``.

    ``run.json`` (``info`` and the manifest: each file's SHA-256 and size) is written last,
    the folder synced, then renamed into place in one step. If the cache already holds this
    run whole (another writer finished it first) with every series this one brings, that copy
    is kept; if it lacks some, its summary and record are kept and this one's series file
    (``info["series_kept"]``: which series it holds, absent for all) put in. A
    folder under this hash that is damaged (or lacks a manifest) is replaced: moved aside,
    then the new one renamed in (an interrupt between the two leaves the run missing, to be
    made again: never a mix). The staged folder is gone afterwards."""
    final = cache / digest
    try:
        for _attempt in range(5):
            current = check(cache, digest)
            brings = stored_kept(info, [SERIES] if (staged / SERIES).is_file() else [])
            if current.ok and covers(current.kept, brings):
                return final  # stored whole already (by another writer): keep it
            record = dict(info)
            if current.ok:
                # The stored run lacks series this one brings: keep its summary and record,
                # put ours in.
                _write(staged / SUMMARY, (final / SUMMARY).read_bytes())
                record = {**(current.info or {}), "label": info.get("label")}
                record.pop("series_kept", None)
                if info.get("series_kept") is not None:
                    record["series_kept"] = info["series_kept"]
            record["files"] = {
                name: storage.file_record(staged / name)
                for name in (SUMMARY, SERIES)
                if (staged / name).is_file()
            }
            _write(
                staged / RUN_INFO, (json.dumps(record, indent=2, sort_keys=True) + "\n").encode()
            )
            storage.fsync_dir(staged)
            aside = None
            if os.path.lexists(final):
                aside = cache / _tmp_name(digest)
                try:
                    os.rename(final, aside)
                except FileNotFoundError:
                    aside = None  # another writer moved it first
            try:
                os.rename(staged, final)
            except OSError:
                # Another writer put a folder there meanwhile: look at it again.
                if aside is not None:
                    shutil.rmtree(aside, ignore_errors=True)
                if not os.path.lexists(final):
                    raise
                continue
            storage.fsync_dir(cache)
            if aside is not None:
                shutil.rmtree(aside, ignore_errors=True)
            return final
        raise OSError(f"{final}: other writers kept replacing this run; not stored")
    finally:
        if staged.exists():
            shutil.rmtree(staged, ignore_errors=True)


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


def load(
    cache: Path,
    digest: str,
    metrics: Iterable[str] | None = None,
    entities: Iterable[str] | None = None,
) -> Any:
    """The stored run as ``atmsim.Results``, checked against its manifest (raises
    ``atmsim.ResultsError`` if it is not whole); with ``metrics`` / ``entities``, only
    those series (:meth:`atmsim.Results.read`)."""
    from atmsim.api import Results

    return Results.read(cache / digest, metrics=metrics, entities=entities)


def info(cache: Path, digest: str) -> dict[str, Any]:
    return json.loads((cache / digest / RUN_INFO).read_text(encoding="utf-8"))


def _write(path: Path, data: bytes) -> None:
    """Write a file of a folder nobody reads yet (a staged run), synced."""
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
