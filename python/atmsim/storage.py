"""Writing result files so that an interrupt never leaves one that reads back as complete but
is not, and checking files against the manifest that lists them.

Every file atmsim writes as a result (a run's summary and series, the sweep tables, a
reproduction's tables, comparison, notes, figures and report) goes through
:func:`atomic_write` or :func:`atomic_path`: the bytes go to a temporary file in the same
folder (``.<name>.tmp-<host>-<pid>-<n>``), are flushed to disk, and the file is renamed over
its final name in one step. A reader therefore sees the old file or the new one, whole, never
a part; Ctrl-C or SIGKILL at any moment leaves at worst a temporary file, which no reader
opens and :func:`clean_temporaries` removes once its writer is gone.

A folder whose files belong together (a run) also gets a *manifest*, written last: the
SHA-256 and size of each file (:func:`file_record`). :func:`check_files` compares a folder
with its manifest; a file missing, truncated, edited or replaced does not match.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import shutil
import socket
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = [
    "atomic_path",
    "atomic_write",
    "bytes_record",
    "check_files",
    "clean_scratch",
    "clean_temporaries",
    "file_record",
    "fsync_dir",
    "matches",
    "scratch_folder",
    "sha256_bytes",
    "sync_file",
    "tmp_path",
    "tmp_suffix",
    "valid_manifest",
    "write_json",
    "writer_gone",
]

HOST = re.sub(r"[^A-Za-z0-9]", "", socket.gethostname())[:32] or "host"
#: A temporary entry whose writer cannot be checked (another machine) is left alone for this
#: long before it is taken as abandoned.
FOREIGN_STALE_S = 24 * 3600.0
_counter = itertools.count()
_CHUNK = 1 << 20
#: Pieces of encoded JSON joined per write in :func:`write_json`.
_JSON_PIECES = 1 << 16


def tmp_suffix() -> str:
    """``<host>-<pid>-<n>``: unique to this writer, and enough to tell later whether the
    writer is still alive (:func:`writer_gone`)."""
    return f"{HOST}-{os.getpid()}-{next(_counter)}"


def writer_gone(host: str | None, pid: str, path: Path) -> bool:
    """Whether the writer of the temporary entry ``path`` (process ``pid`` on ``host``) is
    gone: a dead process on this machine, or, for another machine (or a name that cannot be
    read), an entry untouched for :data:`FOREIGN_STALE_S`."""
    if host != HOST or not pid.isdigit():
        try:
            return time.time() - path.stat().st_mtime > FOREIGN_STALE_S
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


_TMP_FILE = re.compile(r"^\.(?P<name>.+)\.tmp-(?P<host>[A-Za-z0-9]+)-(?P<pid>\d+)-\d+$")


def clean_temporaries(folder: str | os.PathLike[str]) -> int:
    """Remove the temporary files that interrupted :func:`atomic_write` calls left in
    ``folder`` (those whose writer is gone); returns how many."""
    base = Path(folder)
    if not base.is_dir():
        return 0
    n = 0
    for entry in base.iterdir():
        m = _TMP_FILE.match(entry.name)
        if m and entry.is_file() and writer_gone(m.group("host"), m.group("pid"), entry):
            entry.unlink(missing_ok=True)
            n += 1
    return n


#: Prefixes :func:`scratch_folder` has cleaned in this process.
_scratch_cleaned: set[str] = set()


def scratch_folder(prefix: str) -> Path:
    """A new folder in the system's temporary directory, ``<prefix>-<host>-<pid>-<random>``,
    for files the caller removes itself when done (a run's series file while it runs). The
    first call for a ``prefix`` in a process also removes that prefix's folders whose process
    is gone (:func:`clean_scratch`): a process killed before its ``finally`` ran (SIGKILL,
    SIGTERM's default action, the out-of-memory killer) leaves its folder behind."""
    if prefix not in _scratch_cleaned:
        _scratch_cleaned.add(prefix)
        clean_scratch(prefix)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}-{HOST}-{os.getpid()}-"))


def clean_scratch(prefix: str, folder: str | os.PathLike[str] | None = None) -> int:
    """Remove the :func:`scratch_folder` folders of ``prefix`` in ``folder`` (default: the
    system's temporary directory) whose process is gone (:func:`writer_gone`); returns how
    many. Folders of a live process, and names of another form, are left alone."""
    base = Path(folder if folder is not None else tempfile.gettempdir())
    n = 0
    try:
        entries = list(base.iterdir())
    except OSError:
        return 0
    for entry in entries:
        rest = entry.name[len(prefix) + 1 :].split("-")
        if not entry.name.startswith(prefix + "-") or len(rest) < 3 or not rest[1].isdigit():
            continue
        if entry.is_dir() and writer_gone(rest[0], rest[1], entry):
            shutil.rmtree(entry, ignore_errors=True)
            n += 1
    return n


def fsync_dir(path: str | os.PathLike[str]) -> None:
    """Make a folder's entries (a rename into it) durable; a no-op where folders cannot be
    opened."""
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


def tmp_path(path: str | os.PathLike[str]) -> Path:
    """A fresh temporary name next to ``path`` (``.<name>.tmp-<host>-<pid>-<n>``), for a
    writer that renames it into place itself."""
    out = Path(path)
    return out.with_name(f".{out.name}.tmp-{tmp_suffix()}")


def sync_file(path: str | os.PathLike[str]) -> None:
    """Flush a written file's bytes to disk (before it is renamed into place)."""
    with open(path, "rb+") as fh:
        os.fsync(fh.fileno())


@contextmanager
def atomic_path(path: str | os.PathLike[str], *, sync: bool = True) -> Iterator[Path]:
    """A temporary path next to ``path`` for a writer that wants a file name (a Parquet
    writer, ``savefig``); when the block ends without an exception the file is synced and
    renamed over ``path`` in one step, otherwise removed. Folders are created as needed.

    >>> with atomic_path("out/fig.png") as tmp:       # doctest: +SKIP
    ...     fig.savefig(tmp, format="png")
    """
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = tmp_path(out)
    try:
        yield tmp
        if sync:
            sync_file(tmp)
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if sync:
        fsync_dir(out.parent)


def atomic_write(path: str | os.PathLike[str], data: bytes | str, *, sync: bool = True) -> Path:
    """Write ``data`` (text is UTF-8, written as is: no newline translation) to ``path``
    through a temporary file in the same folder and one rename: a reader, or an interrupt at
    any moment, sees the old file or the new one whole. Returns ``path``."""
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    with atomic_path(path, sync=sync) as tmp:
        tmp.write_bytes(raw)
    return Path(path)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_record(path: str | os.PathLike[str]) -> dict[str, Any]:
    """``{"sha256": hex, "size": bytes}`` of a file, read once."""
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
            size += len(chunk)
    return {"sha256": h.hexdigest(), "size": size}


def write_json(
    path: str | os.PathLike[str],
    obj: Any,
    *,
    indent: int = 2,
    sort_keys: bool = False,
    end: str = "\n",
    sync: bool = False,
) -> dict[str, Any]:
    """Write ``json.dumps(obj, indent=indent, sort_keys=sort_keys) + end`` to ``path``, the
    same bytes, a few hundred kilobytes at a time (flushed to disk with ``sync``); returns
    the file's :func:`file_record`.

    ``json.dumps`` with an indent builds the whole text from a list of every token first: for
    a 10,000-connection summary (25 MB of text) that list costs about 140 MB at its peak,
    more than the rest of writing the run's results. Here memory holds one batch of tokens,
    and the batches are hashed as they are written."""
    h = hashlib.sha256()
    size = 0
    pieces = json.JSONEncoder(indent=indent, sort_keys=sort_keys).iterencode(obj)
    with open(path, "wb") as fh:
        while batch := "".join(itertools.islice(pieces, _JSON_PIECES)):
            data = batch.encode("utf-8")
            h.update(data)
            fh.write(data)
            size += len(data)
        tail = end.encode("utf-8")
        fh.write(tail)
        h.update(tail)
        size += len(tail)
        if sync:
            fh.flush()
            os.fsync(fh.fileno())
    return {"sha256": h.hexdigest(), "size": size}


def bytes_record(data: bytes) -> dict[str, Any]:
    """:func:`file_record` of bytes held in memory."""
    return {"sha256": sha256_bytes(data), "size": len(data)}


def valid_manifest(files: Any) -> bool:
    """Whether ``files`` has the shape of a manifest: ``{name: {"sha256": 64 hex, "size":
    int}}`` with plain file names (no folder, no ``..``)."""
    if not isinstance(files, Mapping) or not files:
        return False
    for name, rec in files.items():
        if not isinstance(name, str) or not name or "/" in name or "\\" in name:
            return False
        if name in (".", "..") or not isinstance(rec, Mapping):
            return False
        digest, size = rec.get("sha256"), rec.get("size")
        if not isinstance(digest, str) or not re.fullmatch(r"[0-9a-f]{64}", digest):
            return False
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            return False
    return True


def matches(data: bytes | None, rec: Mapping[str, Any]) -> bool:
    """Whether ``data`` (None: the file is missing) is the file ``rec`` describes."""
    return data is not None and len(data) == rec.get("size") and sha256_bytes(data) == rec["sha256"]


def check_files(folder: str | os.PathLike[str], files: Mapping[str, Any]) -> list[str]:
    """The names in the manifest ``files`` whose file in ``folder`` is missing or does not
    have the recorded size and SHA-256 (each file read once; a size that differs is found
    without reading)."""
    base = Path(folder)
    bad = []
    for name, rec in files.items():
        path = base / name
        try:
            if not path.is_file() or path.stat().st_size != rec.get("size"):
                bad.append(name)
            elif file_record(path)["sha256"] != rec.get("sha256"):
                bad.append(name)
        except OSError:
            bad.append(name)
    return bad
