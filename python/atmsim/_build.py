"""The identity of this build of atmsim: which code made a run.

``atmsim.build_id()`` (16 hex digits) combines two hashes:

- the Rust sources the extension was built from (``atmsim._core.build_id()``: the SHA-256
  of every file under ``crates/*/src``, every ``crates/*/Cargo.toml``, the workspace
  ``Cargo.toml`` and ``Cargo.lock``, computed by ``crates/atmsim-py/build.rs``);
- the Python code on the way from a scenario to a stored run (:func:`python_id`: the modules
  of :data:`RUN_PATH` and the built-in ``scenarios/*.toml`` of the installed package, read
  once, on first use).

Both are hashes of sources, so the same code gives the same identity on every machine (a
wheel install and a checkout of the same commit agree), and any change to the simulator or
to the Python that runs it and stores its results gives another. It is part of the key of
every cached run (``atmsim.sweep.cache.run_hash``): a new build never reuses an old build's
runs. The rest of the package (reports, figures, notes, the reproductions' claims) reads
stored runs and makes nothing stored in them, so editing it keeps the cache: a
reproduction's scenarios enter each run's key whole, as their canonical TOML.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

__all__ = ["build_id", "python_id", "python_files"]

_PACKAGE = Path(__file__).resolve().parent


#: The modules that turn a scenario and a seed into a stored run: reading the scenario
#: (built-in names, dicts, overrides), running it, converting and writing its results, and the
#: run cache.
RUN_PATH = (
    "__init__.py",
    "_build.py",
    "api.py",
    "errors.py",
    "scenarios.py",
    "storage.py",
    "sweep/cache.py",
    "sweep/execute.py",
)


def python_files(package: Path = _PACKAGE) -> list[tuple[str, Path]]:
    """``(name relative to the package, path)`` of every file :func:`python_id` hashes, in
    the order it hashes them."""
    paths = [package / name for name in RUN_PATH]
    paths += list((package / "scenarios").glob("*.toml"))
    named = {p.relative_to(package).as_posix(): p for p in paths if p.is_file()}
    return sorted(named.items())


@functools.cache
def python_id() -> str:
    """SHA-256 (64 hex digits) of the Python package's code: each file's name, a NUL, its
    length (8 bytes, little-endian) and its bytes, in name order (the scheme build.rs uses
    for the Rust sources)."""
    h = hashlib.sha256()
    for name, path in python_files():
        data = path.read_bytes()
        h.update(name.encode("utf-8") + b"\0" + len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


@functools.cache
def build_id() -> str:
    """This build's identity, 16 hex digits: SHA-256 of the Rust sources' hash and the
    Python code's hash."""
    from atmsim import _core

    key = f"rust {_core.build_id()}\npython {python_id()}\n"
    return hashlib.sha256(key.encode("ascii")).hexdigest()[:16]
