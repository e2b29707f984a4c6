"""The Python API: run a scenario and look at its results.

>>> import atmsim
>>> res = atmsim.run("fang1994-cell-drop", overrides={"run.duration": "0.5 s"})  # doctest: +SKIP
>>> res.connections[["goodput_mbps", "cell_loss_pct"]]                         # doctest: +SKIP
>>> res.wide("cwnd_bytes", kind="connection").plot()                            # doctest: +SKIP

A scenario is a built-in name (``atmsim scenario list``), a path to a TOML file, or a dict
with the same structure as the TOML. The scenario crosses into Rust once, as TOML text; the
Rust crate ``atmsim-scenario`` is the one schema and does all validation.
"""

from __future__ import annotations

import datetime
import io
import json
import math
import mmap
import os
import re
import reprlib
import shutil
import struct
from collections.abc import Callable, Iterable, Iterator, Mapping
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import tomli_w

from atmsim import _core, _lazy, scenarios, storage
from atmsim.errors import ArgumentError, ResultsError, ScenarioError

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = _lazy.module("pandas")  # a third of a second to import: only when a table is made

__all__ = [
    "Results",
    "ScenarioLike",
    "OverridesLike",
    "SeriesFile",
    "SeriesFormat",
    "run",
    "validate",
    "describe",
    "normalize_overrides",
    "scenario_text",
]

ScenarioLike = str | os.PathLike[str] | Mapping[str, Any]
OverridesLike = Mapping[str, Any] | Iterable[str] | Iterable[tuple[str, Any]] | None
SeriesFormat = Literal["parquet", "csv"]
Kind = Literal["connection", "port"]

SERIES_COLUMNS = ("time_s", "kind", "entity", "metric", "value")
_SERIES_FORMATS = ("parquet", "csv")
_DICT_SOURCE = "<dict>"


# --------------------------------------------------------------------------------------------
# Inputs


#: The deepest nesting of tables and arrays a scenario (or an override value) may have: a
#: scenario needs 4 (connection -> tcp -> ...); deeper input is refused before it reaches
#: the TOML writer, whose recursion would otherwise fail with RecursionError.
MAX_NESTING = 32

#: TOML's integers are signed 64-bit.
_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1

_EXPECTED_VALUE = "expected a string with a unit, a number, a boolean, a table or an array"
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 60


class _Unwritable(Exception):
    """A value TOML cannot hold: ``path`` is where, as the user wrote it (``""`` for the value
    itself), ``reason`` what is wrong and what is allowed."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(path, reason)
        self.path, self.reason = path, reason


def _show(value: Any) -> str:
    """A short repr of ``value`` for a message (never fails, never thousands of digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 100:
        # Python refuses str() of an int of more than 4300 digits; count them instead.
        size, digits = abs(value), max(int((value.bit_length() - 1) * math.log10(2)), 1)
        while size >= 10**digits:
            digits += 1
        return f"{'a negative' if value < 0 else 'an'} integer of {digits} digits"
    try:
        return _REPR.repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the real error
        return f"a {type(value).__name__} object"


def _got(value: Any) -> str:
    """``value`` and its type, for "got ..." in an argument's message."""
    return "None" if value is None else f"{type(value).__name__} {_show(value)}"


def _key_path(path: str, key: str) -> str:
    """``path.key``, the key quoted as in TOML when it is not a bare key."""
    part = key if _BARE_KEY.fullmatch(key) else _toml_string(key)
    return f"{path}.{part}" if path else part


def _plain(value: Any, path: str = "", depth: int = 0) -> Any:
    """``value`` as the plain Python a TOML writer takes: numpy booleans, integers, floats
    and strings (scalars, 0-d arrays) as ``bool``, ``int``, ``float``, ``str``; numpy arrays
    as lists; tables as dicts, arrays as lists; a subclass of int, float or str as its base
    type. Plain input comes back equal, so the TOML written from it is unchanged.

    Raises :class:`_Unwritable` naming the path of the first value TOML cannot hold (None,
    sets, bytes, timedeltas, an integer outside 64 bits, any other object), of a table key
    that is not a string, or of a table or array nested more than :data:`MAX_NESTING`
    levels deep."""
    if isinstance(value, np.ndarray):
        value = value[()] if value.ndim == 0 else list(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        value = int(value)
    elif isinstance(value, np.floating):
        return float(value)
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if not _I64_MIN <= value <= _I64_MAX:
            raise _Unwritable(
                path, f"{_show(value)} is outside TOML's integers (-2^63 to 2^63 - 1)"
            )
        return value if type(value) is int else int(value)
    if isinstance(value, float):
        return value if type(value) is float else float(value)
    if isinstance(value, str):
        return value if type(value) is str else str.__str__(value)
    if isinstance(value, (datetime.datetime, datetime.date, Decimal)):
        return value  # TOML values that tomli-w writes (no scenario key takes them)
    if isinstance(value, datetime.time):
        if value.tzinfo is not None:
            raise _Unwritable(path, f"{_show(value)}: TOML has no time of day with an offset")
        return value
    if isinstance(value, (Mapping, list, tuple)) and depth >= MAX_NESTING:
        raise _Unwritable(
            path,
            f"nested more than {MAX_NESTING} levels deep; a scenario's tables and arrays "
            "nest a few levels",
        )
    if isinstance(value, Mapping):
        table: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise _Unwritable(
                    path, f"key {_got(key)} is not a string; a table's keys are strings"
                )
            key = key if type(key) is str else str.__str__(key)
            table[key] = _plain(item, _key_path(path, key), depth + 1)
        return table
    if isinstance(value, (list, tuple)):
        return [_plain(item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value)]
    what = "None" if value is None else f"{_show(value)} ({type(value).__name__})"
    raise _Unwritable(path, f"{what} cannot be written in a scenario; {_EXPECTED_VALUE}")


def scenario_text(scenario: ScenarioLike) -> tuple[str, str]:
    """``(toml_text, source)`` for a built-in name, a path or a dict.

    Raises :class:`ArgumentError` when ``scenario`` is none of these and
    :class:`ScenarioError` naming the field when a dict holds a value TOML cannot."""
    if isinstance(scenario, Mapping):
        try:
            doc = _plain(scenario)
        except _Unwritable as exc:
            raise ScenarioError(f"{_DICT_SOURCE}: {exc.path or '(top)'}: {exc.reason}") from None
        try:
            return tomli_w.dumps(doc), _DICT_SOURCE
        except (TypeError, ValueError) as exc:
            raise ScenarioError(f"{_DICT_SOURCE}: cannot be written as TOML: {exc}") from None
    if isinstance(scenario, (str, os.PathLike)):
        return scenarios.resolve(scenario)
    raise ArgumentError(
        "scenario: expected a built-in name, a path to a TOML file or a dict shaped like "
        f"the TOML, got {_got(scenario)}"
    )


def _toml_string(text: str) -> str:
    """A TOML basic string (tomli-w does the escaping)."""
    return _tomli_w_literal(text)


def _tomli_w_literal(value: Any) -> str:
    """tomli-w's inline form of a string, a date or time or a Decimal."""
    return tomli_w.dumps({"v": value}).removeprefix("v = ").rstrip("\n")


def _literal(value: Any) -> str:
    """The TOML inline literal of a value :func:`_plain` returned."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, dict):
        inner = ", ".join(f"{_toml_string(k)} = {_literal(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    return _tomli_w_literal(value)


def _toml_literal(value: Any) -> str:
    """A TOML inline literal for a nested override value."""
    try:
        return _literal(_plain(value))
    except _Unwritable as exc:
        raise ScenarioError(f"override value: {exc.path or '(top)'}: {exc.reason}") from None


def _override_value(key: str, value: Any) -> str:
    # A top-level string goes as written, exactly like `--set KEY=VALUE` on the command line
    # ("0.2 s", "reno", "2000"); anything else becomes its TOML literal. An error names the
    # key and the place in the value, as the core names an override ("--set: KEY: ...").
    try:
        plain = _plain(value)
    except _Unwritable as exc:
        where = key + ("" if not exc.path or exc.path.startswith("[") else ".") + exc.path
        raise ScenarioError(f"--set: {where}: {exc.reason}") from None
    return plain if isinstance(plain, str) else _literal(plain)


_OVERRIDES_ALLOWED = (
    "a dict {'key.path': value}, a list of 'KEY=VALUE' strings or of (key, value) pairs, or None"
)


def normalize_overrides(overrides: OverridesLike) -> list[tuple[str, str]]:
    """Overrides as ``[(key, value_text)]``.

    Accepts a dict ``{"run.duration": "1 s", "switch.sw1.buffer": 512}``, a list of
    ``"KEY=VALUE"`` strings (as given to ``--set``) or a list of ``(key, value)`` pairs.
    Raises :class:`ArgumentError` for anything else, and :class:`ScenarioError` naming the
    key for a value TOML cannot hold.
    """
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        items: Iterable[Any] = overrides.items()
    elif isinstance(overrides, str):
        items = [overrides]
    elif isinstance(overrides, Iterable) and not isinstance(overrides, (bytes, bytearray)):
        items = overrides
    else:
        raise ArgumentError(f"overrides: expected {_OVERRIDES_ALLOWED}; got {_got(overrides)}")
    out: list[tuple[str, str]] = []
    for item in items:
        if isinstance(item, str):
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise ScenarioError(f"--set: expected KEY=VALUE, got {item!r}")
            out.append((key.strip(), value.strip()))
        elif isinstance(item, tuple) and len(item) == 2:
            key, value = item
            if not isinstance(key, str):
                raise ArgumentError(
                    f"overrides: key {_got(key)}: expected a string such as 'run.duration'"
                )
            if not key.strip():
                raise ScenarioError(f"override key {key!r}: expected a non-empty string")
            out.append((key.strip(), _override_value(key.strip(), value)))
        else:
            raise ArgumentError(
                f"overrides: {_got(item)}: expected a 'KEY=VALUE' string or a (key, value) pair"
            )
    return out


def _check_seed(seed: Any) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, np.ndarray) and seed.ndim == 0:
        seed = seed[()]
    if isinstance(seed, np.integer):
        seed = int(seed)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ArgumentError(f"seed: expected a non-negative integer or None, got {_got(seed)}")
    if not 0 <= seed <= _I64_MAX:
        # The seed is written back into TOML (canonical form), whose integers are i64.
        raise ScenarioError(f"seed: expected an integer from 0 to 2^63 - 1, got {_show(seed)}")
    return int(seed)


def _check_progress(progress: Any) -> None:
    if progress is not None and not callable(progress):
        raise ArgumentError(
            "progress: expected a function called as progress(simulated_s, duration_s), "
            f"or None; got {_got(progress)}"
        )


# --------------------------------------------------------------------------------------------
# Results


#: The series file's header (docs/CONTRACTS.md, "Time series"): magic, format version,
#: state (1: complete), columns, rows, rows per row group; 64 bytes in all.
_SERIES_FILE_HEADER = struct.Struct("<8sIIQQQ")
_SERIES_FILE_MAGIC = b"ATMSERS1"
_SERIES_FILE_VERSION = 1
_SERIES_FILE_VALUES_AT = 64
#: How far around the rows it read :meth:`SeriesFile.rows` lets go of the map's pages.
_MAP_MARGIN = 8 << 20


class SeriesFile:
    """A complete series file: ``time_s`` (n), ``values`` (an ``n x c`` float64
    ``numpy.memmap`` of the file: nothing copied, one file descriptor held by the map) and
    :meth:`rows`, which copies a block of rows out and lets go of the pages it read (what
    writing the long table uses, so that memory holds one block, not every page of the file).

    The layout: a 64-byte header (``ATMSERS1``, u32 version 1, u32 state 1 once complete, u64
    columns, u64 rows, u64 rows per row group; little-endian), the rows of float64 values
    (row major), then each row's time [s]. A file whose run was interrupted says so (state
    0) and is refused with :class:`atmsim.ResultsError`, as is one of another size than its
    header implies."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        with open(self.path, "rb") as fh:
            head = fh.read(_SERIES_FILE_VALUES_AT)
            if len(head) < _SERIES_FILE_VALUES_AT:
                raise ResultsError(f"{self.path}: not a series file (too short)")
            magic, version, state, c, n, group = _SERIES_FILE_HEADER.unpack_from(head)
            if magic != _SERIES_FILE_MAGIC:
                raise ResultsError(f"{self.path}: not a series file")
            if version != _SERIES_FILE_VERSION:
                raise ResultsError(
                    f"{self.path}: series file format {version}; this atmsim reads format "
                    f"{_SERIES_FILE_VERSION}"
                )
            if state != 1:
                raise ResultsError(
                    f"{self.path}: incomplete series file: the run writing it did not finish"
                )
            size = os.fstat(fh.fileno()).st_size
            want = _SERIES_FILE_VALUES_AT + n * (c + 1) * 8
            if size != want:
                raise ResultsError(
                    f"{self.path}: damaged series file: {size} bytes, its header says {want}"
                )
            fh.seek(_SERIES_FILE_VALUES_AT + n * c * 8)
            times = np.fromfile(fh, dtype="<f8", count=n)
        self.columns, self.group_rows = int(c), int(group)
        self.time_s = times.astype(np.float64, copy=False)
        if n * c:
            self.values: np.ndarray = np.memmap(
                self.path, dtype="<f8", mode="r", offset=_SERIES_FILE_VALUES_AT, shape=(n, c)
            )
        else:
            self.values = np.empty((n, c), dtype=np.float64)

    def rows(self, first: int, stop: int) -> np.ndarray:
        """Rows ``first`` to ``stop`` (excluded), copied into fresh memory; the pages of the
        map they were read from are let go (read again from the file if touched again)."""
        block = np.array(self.values[first:stop], dtype=np.float64)
        mm = getattr(self.values, "_mmap", None)
        if mm is not None and hasattr(mm, "madvise") and hasattr(mmap, "MADV_DONTNEED"):
            # numpy maps the file from offset 0 (the header is less than a page). The kernel
            # maps pages around the ones read too (before them, and ahead of a sequential
            # read): a margin each side covers those.
            begin = _SERIES_FILE_VALUES_AT + first * self.columns * 8
            end = _SERIES_FILE_VALUES_AT + stop * self.columns * 8
            begin = max(0, begin - begin % mmap.PAGESIZE - _MAP_MARGIN)
            mm.madvise(mmap.MADV_DONTNEED, begin, min(len(mm), end + _MAP_MARGIN) - begin)
        return block


class _Sampled:
    """The sampled series as the simulator hands them over: ``time_s`` (n samples), one name
    per column (kind, entity, metric) and an ``n x c`` matrix of values (a memory map of the
    run's series file, or a view of one buffer; no per-value Python object). The long table
    is made from it only when asked for, its names taken from one copy of each distinct name
    (never a Python string per row), sample by sample."""

    __slots__ = ("time_s", "kinds", "entities", "metrics", "values", "_names", "_file", "_dicts")

    def __init__(
        self,
        time_s: np.ndarray,
        kinds: list[str],
        entities: list[str],
        metrics: list[str],
        values: np.ndarray,
        file: SeriesFile | None = None,
    ) -> None:
        self.time_s = time_s
        self.kinds, self.entities, self.metrics = kinds, entities, metrics
        self.values = values
        self._file = file
        self._names: dict[str, tuple[np.ndarray, pd.Index]] | None = None
        self._dicts: list[Any] | None = None

    @classmethod
    def from_core(cls, raw: Mapping[str, Any]) -> _Sampled:
        columns = list(raw.get("columns", []))
        kinds = [k for k, _, _ in columns]
        entities = [e for _, e, _ in columns]
        metrics = [m for _, _, m in columns]
        c = len(columns)
        if raw.get("file") is not None:
            file = SeriesFile(raw["file"]["path"])
            n = len(raw.get("time_s", []))
            if (len(file.time_s), file.columns) != (n, c):
                raise ResultsError(
                    f"{file.path}: {len(file.time_s)} samples x {file.columns} columns, the "
                    f"run reported {n} x {c}"
                )
            return cls(file.time_s, kinds, entities, metrics, file.values, file)
        time_s = np.asarray(raw.get("time_s", []), dtype=np.float64)
        n = len(time_s)
        values = np.asarray(raw.get("values", []), dtype=np.float64)
        if values.size != n * c:
            raise ValueError(f"series: {values.size} values for {n} samples x {c} columns")
        return cls(time_s, kinds, entities, metrics, values.reshape(n, c))

    @classmethod
    def from_long(cls, df: pd.DataFrame) -> _Sampled:
        """The samples of a long table (columns in first-seen order of kind, entity, metric;
        samples in first-seen order of time)."""
        keys = list(dict.fromkeys(zip(df["kind"], df["entity"], df["metric"], strict=True)))
        times = pd.unique(df["time_s"])
        table = df.pivot(index="time_s", columns=["kind", "entity", "metric"], values="value")
        values = table.reindex(index=times, columns=pd.MultiIndex.from_tuples(keys))
        return cls(
            np.asarray(times, dtype=np.float64),
            [k for k, _, _ in keys],
            [e for _, e, _ in keys],
            [m for _, _, m in keys],
            values.to_numpy(dtype=np.float64) if keys else np.empty((len(times), 0)),
        )

    def write_wide(self, where: Any) -> None:
        """The run cache's series file (:mod:`atmsim.wide`), a row group at a time."""
        from atmsim import wide

        c = len(self.metrics)
        blocks = self._blocks(wide.group_rows(c) * max(c, 1)) if len(self.time_s) else ()
        wide.write(where, self.kinds, self.entities, self.metrics, blocks)

    def select(self, keep: list[int]) -> _Sampled:
        return _Sampled(
            self.time_s,
            [self.kinds[i] for i in keep],
            [self.entities[i] for i in keep],
            [self.metrics[i] for i in keep],
            np.ascontiguousarray(self.values[:, keep]),
        )

    def names(self) -> dict[str, tuple[np.ndarray, pd.Index]]:
        """For each name column of the long table: each sampled column's code and the
        distinct names (in pandas' default string dtype), computed once."""
        if self._names is None:
            # Built aside and kept whole: an interrupt (Ctrl-C) meanwhile leaves no half.
            made = {}
            for key, names in (
                ("kind", self.kinds),
                ("entity", self.entities),
                ("metric", self.metrics),
            ):
                codes, uniques = pd.factorize(np.asarray(names, dtype=object))
                made[key] = (codes.astype(np.int32), pd.Index(list(uniques)))
            self._names = made
        return self._names

    def long(self) -> pd.DataFrame:
        """The long table: sample by sample, each sample's columns in column order."""
        n, c = len(self.time_s), len(self.metrics)
        if n == 0 or c == 0:
            return _empty_long()
        return self._frame(self.time_s, np.asarray(self.values))

    def _frame(self, time_s: np.ndarray, block: np.ndarray) -> pd.DataFrame:
        """The long table of the samples at ``time_s``, whose values are the rows of
        ``block``."""
        r = len(time_s)
        names = {
            key: uniques.take(np.tile(codes, r)) for key, (codes, uniques) in self.names().items()
        }
        c = len(self.metrics)
        return pd.DataFrame({"time_s": np.repeat(time_s, c), **names, "value": block.reshape(-1)})

    def _arrow(self, time_s: np.ndarray, block: np.ndarray) -> Any:
        """:meth:`_frame` as an Arrow table whose name columns are dictionary-encoded (the
        schema of :func:`write_series_parquet`)."""
        import pyarrow as pa

        if self._dicts is None:
            self._dicts = [
                pa.array(np.asarray(uniques, dtype=object), type=pa.string())
                for _, uniques in self.names().values()
            ]
        r, c = len(time_s), len(self.metrics)
        arrays = [pa.array(np.repeat(time_s, c))]
        for (codes, _), dictionary in zip(self.names().values(), self._dicts, strict=True):
            index = pa.array(np.tile(codes, r))
            arrays.append(pa.DictionaryArray.from_arrays(index, dictionary))
        arrays.append(pa.array(block.reshape(-1)))
        return pa.Table.from_arrays(arrays, schema=_series_schema())

    def _blocks(self, rows: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(times, values) of whole samples, about ``rows`` values at a time: read from the
        series file block by block when there is one (memory holds one block)."""
        n, c = len(self.time_s), len(self.metrics)
        step = max(1, rows // max(c, 1))
        for first in range(0, n, step):
            stop = min(n, first + step)
            block = (
                self._file.rows(first, stop) if self._file is not None else self.values[first:stop]
            )
            yield self.time_s[first:stop], block

    def chunks(self, rows: int = 1 << 15) -> Iterator[pd.DataFrame]:
        """The long table in pieces of whole samples, about ``rows`` rows each."""
        if len(self.time_s) == 0 or len(self.metrics) == 0:
            yield _empty_long()
            return
        for time_s, block in self._blocks(rows):
            yield self._frame(time_s, block)

    def arrow_chunks(self, rows: int = 1 << 15) -> Iterator[Any]:
        """The long table as Arrow tables of whole samples, about ``rows`` rows each."""
        if len(self.time_s) == 0 or len(self.metrics) == 0:
            yield _empty_long()
            return
        for time_s, block in self._blocks(rows):
            yield self._arrow(time_s, block)


#: The text columns of the long series table.
_LONG_TEXT = ("kind", "entity", "metric")


def _read_long_parquet(
    source: Any, metrics: Iterable[str] | None = None, entities: Iterable[str] | None = None
) -> pd.DataFrame:
    """The long series table of a parquet file; with ``metrics`` / ``entities``, only their
    rows: the text columns are decoded as dictionaries (a few distinct names over many
    rows), filtered in Arrow, and only the kept rows become text, giving the frame
    ``pd.read_parquet`` followed by the same filter gives."""
    if metrics is None and entities is None:
        return pd.read_parquet(source)
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    names = pq.read_schema(source).names
    if hasattr(source, "seek"):
        source.seek(0)
    table = pq.read_table(source, read_dictionary=[c for c in _LONG_TEXT if c in names])
    mask = None
    for col, wanted in (("metric", metrics), ("entity", entities)):
        if wanted is None:
            continue
        values = pa.array(sorted(set(wanted)), pa.string())
        column = table[col]
        if pa.types.is_dictionary(column.type):
            # Decide once per distinct name, then spread the answers over the rows.
            hit = pa.chunked_array(
                [
                    pc.take(pc.is_in(c.dictionary, value_set=values), c.indices)
                    for c in column.chunks
                ],
                pa.bool_(),
            )
        else:
            hit = pc.is_in(column, value_set=values)
        mask = hit if mask is None else pc.and_(mask, hit)
    if mask is not None:
        table = table.filter(mask)
    plain = pa.schema(
        [
            pa.field(f.name, f.type.value_type) if pa.types.is_dictionary(f.type) else f
            for f in table.schema
        ],
        metadata=table.schema.metadata,
    )
    return table.cast(plain).to_pandas()


def _empty_long() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "time_s": np.empty(0, dtype=np.float64),
            "kind": pd.Series([], dtype=object),
            "entity": pd.Series([], dtype=object),
            "metric": pd.Series([], dtype=object),
            "value": np.empty(0, dtype=np.float64),
        }
    )


SUMMARY_FILE = "summary.json"
#: The run cache's series file (:mod:`atmsim.wide`); results a user writes hold the long
#: table, ``timeseries.parquet`` or ``.csv``.
WIDE_SERIES_FILE = "series.parquet"
#: What :meth:`Results.write` writes last: the SHA-256 and size of each file it wrote.
MANIFEST_FILE = "manifest.json"


def _manifest_text(files: Mapping[str, Any]) -> str:
    from atmsim._build import build_id

    record = {
        "atmsim_version": _core.version(),
        "build_id": build_id(),
        "files": dict(files),
    }
    return json.dumps(record, indent=2, sort_keys=True) + "\n"


def _manifest_files(base: Path) -> dict[str, Any]:
    """The file list of ``base``'s manifest (``manifest.json``, or a cached run's
    ``run.json``), or :class:`ResultsError` saying why there is none to trust."""
    for name in (MANIFEST_FILE, "run.json"):
        path = base / name
        if path.is_file():
            break
    else:
        if not base.is_dir():
            raise ResultsError(f"{base}: no such folder")
        if (base / SUMMARY_FILE).exists():
            raise ResultsError(
                f"{base}: incomplete: no manifest ({MANIFEST_FILE}, or a cached run's run.json): "
                "its write was interrupted, or an atmsim older than manifests wrote it "
                "(Results.read(..., verify=False) reads it unchecked)"
            )
        raise ResultsError(f"{base}: no results here (no {MANIFEST_FILE})")
    try:
        record = json.loads(path.read_bytes())
    except (OSError, ValueError):
        raise ResultsError(f"{base}: damaged: {name} (unreadable)") from None
    files = record.get("files") if isinstance(record, dict) else None
    if files is None and isinstance(record, dict):
        raise ResultsError(
            f"{base}: stored by an atmsim older than manifests ({name} lists no files); "
            "run it again"
        )
    if not storage.valid_manifest(files):
        raise ResultsError(f"{base}: damaged: {name} (no valid list of files)")
    return dict(files)


def _read_wide(
    source: Any, metrics: Iterable[str] | None = None, entities: Iterable[str] | None = None
) -> _Sampled:
    """The samples of a run cache's series file, only the series of ``metrics`` and
    ``entities`` decoded (all when both are None)."""
    from atmsim import wide

    time_s, kinds, entities_, metrics_, values = wide.read(source, metrics, entities)
    return _Sampled(time_s, kinds, entities_, metrics_, values)


_SERIES_SCHEMA = None


def _series_schema() -> Any:
    """The long table as written to Parquet: the names dictionary-encoded."""
    global _SERIES_SCHEMA
    if _SERIES_SCHEMA is None:
        import pyarrow as pa

        name = pa.dictionary(pa.int32(), pa.string())
        _SERIES_SCHEMA = pa.schema(
            [
                ("time_s", pa.float64()),
                ("kind", name),
                ("entity", name),
                ("metric", name),
                ("value", pa.float64()),
            ]
        )
    return _SERIES_SCHEMA


def write_series_parquet(chunks: Iterable[Any], where: Any) -> None:
    """Write long-table pieces (Arrow tables or DataFrames) to one Parquet file (a path or a
    binary file object), one row group per piece: memory holds one piece at a time. The
    names are dictionary-encoded in the file and read back as plain strings (no Arrow schema
    is stored, so readers see Parquet's own string columns)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = _series_schema()
    with pq.ParquetWriter(where, schema, store_schema=False) as writer:
        for chunk in chunks:
            if isinstance(chunk, pd.DataFrame):
                chunk = pa.Table.from_pandas(chunk, schema=schema, preserve_index=False)
            writer.write_table(chunk)


class Results:
    """What one run produced: the summary (a dict, the public results contract) and the
    sampled time series.

    - ``summary``: the dict written to ``summary.json``;
    - ``connections``, ``ports``: one row per connection / output port, indexed by name;
    - ``totals``: the ``totals`` dict of the summary;
    - ``series``: long table with columns ``time_s, kind, entity, metric, value`` (made on
      first use from the compact samples the simulator hands over);
    - ``wide(metric)``: one metric, indexed by ``time_s``, one column per entity.
    """

    def __init__(self, summary: dict[str, Any], series: pd.DataFrame | _Sampled) -> None:
        self.summary = summary
        #: What a traced run wrote (``atmsim.run(..., pcap=, cell_trace=)``): ``pcap_files``
        #: [(path, packets)], ``cell_trace`` (path or None), ``cell_rows``; else None.
        self.trace: dict[str, Any] | None = None
        self._sampled = series if isinstance(series, _Sampled) else None
        self._series = None if isinstance(series, _Sampled) else series

    @classmethod
    def _from_core(cls, summary_json: str, raw: Mapping[str, Any]) -> Results:
        return cls(json.loads(summary_json), _Sampled.from_core(raw))

    @classmethod
    def read(
        cls,
        out_dir: str | os.PathLike[str],
        *,
        verify: bool = True,
        metrics: Iterable[str] | None = None,
        entities: Iterable[str] | None = None,
    ) -> Results:
        """Load results that :meth:`write` (or ``atmsim run --out``) wrote, or a run of the
        sweep cache (``runs/<hash>/``).

        Every file is checked against the folder's manifest (``manifest.json``; a cached
        run's ``run.json``) and parsed from the very bytes checked. A folder without a
        manifest (a write that was interrupted, or results of an atmsim older than manifests)
        or with a file missing, truncated or changed raises :class:`atmsim.ResultsError`
        naming the folder and the files: never a partial result. ``verify=False`` reads the
        files as they are, unchecked (for results written before manifests).

        ``metrics`` / ``entities``: keep only those series, as :meth:`select` would, but
        decoded from the file alone (a reproduction reading a few series of many runs reads
        them several times faster)."""
        base = Path(out_dir)
        keep = (metrics, entities)
        if not verify:
            return cls._read_unchecked(base, keep)
        files = _manifest_files(base)
        blobs: dict[str, bytes | None] = {}
        for name in files:
            try:
                blobs[name] = (base / name).read_bytes()
            except OSError:
                blobs[name] = None
        bad = [name for name, rec in files.items() if not storage.matches(blobs[name], rec)]
        if bad:
            raise ResultsError(
                f"{base}: damaged: {', '.join(bad)} (missing or not the file its manifest "
                "lists); write or run these results again"
            )
        if SUMMARY_FILE not in files:
            raise ResultsError(f"{base}: damaged: its manifest lists no {SUMMARY_FILE}")
        try:
            summary = json.loads(blobs[SUMMARY_FILE])  # type: ignore[arg-type]
            if not isinstance(summary, dict):
                raise ValueError(f"{SUMMARY_FILE} holds no JSON object")
            if WIDE_SERIES_FILE in files:
                series = _read_wide(io.BytesIO(blobs[WIDE_SERIES_FILE]), *keep)  # type: ignore[arg-type]
            elif "timeseries.parquet" in files:
                series = _read_long_parquet(io.BytesIO(blobs["timeseries.parquet"]), *keep)  # type: ignore[arg-type]
            elif "timeseries.csv" in files:
                series = pd.read_csv(io.BytesIO(blobs["timeseries.csv"]))  # type: ignore[arg-type]
            else:
                series = _empty_long()
        except Exception as exc:  # noqa: BLE001 - reported as the folder's damage
            raise ResultsError(
                f"{base}: unreadable although it matches its manifest: {exc}"
            ) from None
        return cls(summary, series)._kept(*keep)

    @classmethod
    def _read_unchecked(
        cls, base: Path, keep: tuple[Iterable[str] | None, Iterable[str] | None]
    ) -> Results:
        summary = json.loads((base / SUMMARY_FILE).read_text(encoding="utf-8"))
        parquet, csv = base / "timeseries.parquet", base / "timeseries.csv"
        if (base / WIDE_SERIES_FILE).exists():
            series = _read_wide(base / WIDE_SERIES_FILE, *keep)
        elif parquet.exists():
            series = _read_long_parquet(parquet, *keep)
        elif csv.exists():
            series = pd.read_csv(csv)
        else:
            series = _empty_long()
        return cls(summary, series)._kept(*keep)

    def _kept(self, metrics: Iterable[str] | None, entities: Iterable[str] | None) -> Results:
        """``select(metrics, entities)``, or these results when both are None (a parquet
        series was filtered as it was read: selecting again keeps every row)."""
        return self if metrics is None and entities is None else self.select(metrics, entities)

    # -- views --------------------------------------------------------------------------

    @property
    def series(self) -> pd.DataFrame:
        """Long table: ``time_s, kind, entity, metric, value`` (one row per sample).

        It has a row per sample of every column: for a large run, take what you need first
        (:meth:`wide`, :meth:`select`). The 10,000-connection parking lot's default series
        over 3 s are 30 million rows: about 2.2 GB in pandas, 2.7 GB at the peak of making it."""
        if self._series is None:
            assert self._sampled is not None
            self._series = self._sampled.long()
        return self._series

    @property
    def connections(self) -> pd.DataFrame:
        """Per-connection summary, indexed by connection name."""
        return _table(self.summary.get("connections", []))

    @property
    def ports(self) -> pd.DataFrame:
        """Per-port summary, indexed by port name (``A->B``); ``drops_by_reason`` is spread
        into ``drops_by_reason.<reason>`` columns."""
        return _table(self.summary.get("ports", []))

    @property
    def totals(self) -> dict[str, Any]:
        return dict(self.summary.get("totals", {}))

    @property
    def metrics(self) -> list[str]:
        """The sampled metric names, in first-seen order."""
        if self._sampled is not None:
            return list(dict.fromkeys(self._sampled.metrics))
        return list(pd.unique(self.series["metric"]))

    def select(
        self, metrics: Iterable[str] | None = None, entities: Iterable[str] | None = None
    ) -> Results:
        """These results with only the series of ``metrics`` and ``entities`` (all when
        None)."""
        ms = None if metrics is None else set(metrics)
        es = None if entities is None else set(entities)
        if self._sampled is not None:
            s = self._sampled
            keep = [
                i
                for i in range(len(s.metrics))
                if (ms is None or s.metrics[i] in ms) and (es is None or s.entities[i] in es)
            ]
            return Results(self.summary, s.select(keep))
        df = self.series
        mask = pd.Series(True, index=df.index)
        if ms is not None:
            mask &= df["metric"].isin(ms)
        if es is not None:
            mask &= df["entity"].isin(es)
        return Results(self.summary, df[mask].reset_index(drop=True))

    def wide(self, metric: str, kind: Kind | None = None) -> pd.DataFrame:
        """One sampled metric as a table indexed by ``time_s`` with one column per entity
        (connection or port name), in the order the simulator reports them."""
        if self._sampled is not None:
            return self._wide_sampled(metric, kind)
        df = self.series
        rows = df[df["metric"] == metric]
        if kind is not None:
            rows = rows[rows["kind"] == kind]
        if rows.empty:
            self._no_series(metric, kind)
        if kind is None and rows["kind"].nunique() > 1:
            clash = set(rows.loc[rows["kind"] == "connection", "entity"]) & set(
                rows.loc[rows["kind"] == "port", "entity"]
            )
            self._check_clash(metric, clash)
        order = list(pd.unique(rows["entity"]))
        table = rows.pivot(index="time_s", columns="entity", values="value")
        table = table[order]
        table.columns.name = None
        return table

    def _wide_sampled(self, metric: str, kind: Kind | None) -> pd.DataFrame:
        s = self._sampled
        assert s is not None
        cols = [
            i
            for i in range(len(s.metrics))
            if s.metrics[i] == metric and (kind is None or s.kinds[i] == kind)
        ]
        if not cols or len(s.time_s) == 0:
            self._no_series(metric, kind)
        if kind is None:
            conns = {s.entities[i] for i in cols if s.kinds[i] == "connection"}
            ports = {s.entities[i] for i in cols if s.kinds[i] == "port"}
            self._check_clash(metric, conns & ports)
        names = [s.entities[i] for i in cols]
        table = pd.DataFrame(
            s.values[:, cols], index=pd.Index(s.time_s, name="time_s"), columns=names
        )
        return table

    def _no_series(self, metric: str, kind: Kind | None) -> None:
        where = f" for kind {kind!r}" if kind is not None else ""
        raise KeyError(f"no series {metric!r}{where}; sampled metrics: {', '.join(self.metrics)}")

    @staticmethod
    def _check_clash(metric: str, clash: set[str]) -> None:
        if clash:
            raise ValueError(
                f"{metric!r} names {sorted(clash)} as both a connection and a port; "
                "pass kind='connection' or kind='port'"
            )

    # -- output -------------------------------------------------------------------------

    def _chunks(self, arrow: bool = False) -> Iterator[Any]:
        if self._sampled is not None and self._series is None:
            yield from self._sampled.arrow_chunks() if arrow else self._sampled.chunks()
        else:
            yield self.series

    def series_wide_parquet(self) -> bytes:
        """The series as the bytes of the run cache's series file (:mod:`atmsim.wide`: one
        column per series)."""
        sampled = self._sampled if self._sampled is not None else _Sampled.from_long(self.series)
        buf = io.BytesIO()
        sampled.write_wide(buf)
        return buf.getvalue()

    def series_parquet(self) -> bytes:
        """The series as the bytes of a Parquet file (long table, one row group per piece)."""
        buf = io.BytesIO()
        write_series_parquet(self._chunks(arrow=True), buf)
        return buf.getvalue()

    def write(
        self, out_dir: str | os.PathLike[str], series_format: SeriesFormat = "parquet"
    ) -> list[Path]:
        """Write ``summary.json`` and ``timeseries.parquet`` (or ``.csv``) into ``out_dir``
        (created if needed), then ``manifest.json`` (each file's SHA-256 and size); returns
        the paths of the two results. The series are written piece by piece, so a long run's
        never has to be held as one long table.

        Each file is written under a temporary name and renamed into place; the old
        manifest is removed before the first rename and the new one written last. So an
        interrupt at any moment leaves the previous results whole (nothing renamed yet), the
        new ones whole, or a folder without a manifest, which :meth:`read` refuses: never
        one that reads back as complete but is not."""
        if series_format not in _SERIES_FORMATS:
            raise ValueError(
                f"series_format: expected one of {', '.join(_SERIES_FORMATS)}, "
                f"got {series_format!r}"
            )
        base = Path(out_dir)
        base.mkdir(parents=True, exist_ok=True)
        storage.clean_temporaries(base)
        summary_path = base / SUMMARY_FILE
        series_path = base / f"timeseries.{series_format}"
        staged = [(storage.tmp_path(summary_path), summary_path)]
        staged.append((storage.tmp_path(series_path), series_path))
        try:
            summary_record = storage.write_json(staged[0][0], self.summary)
            if series_format == "parquet":
                write_series_parquet(self._chunks(arrow=True), staged[1][0])
            else:
                with open(staged[1][0], "w", encoding="utf-8", newline="") as fh:
                    for k, chunk in enumerate(self._chunks()):
                        chunk.to_csv(fh, index=False, header=k == 0)
            for tmp, _ in staged:
                storage.sync_file(tmp)
            files = {
                SUMMARY_FILE: summary_record,
                series_path.name: storage.file_record(staged[1][0]),
            }
            # From here until the new manifest is written the folder holds no complete
            # results, and says so: read() refuses a folder without a manifest.
            (base / MANIFEST_FILE).unlink(missing_ok=True)
            storage.fsync_dir(base)
            for tmp, final in staged:
                os.replace(tmp, final)
        except BaseException:
            for tmp, _ in staged:
                tmp.unlink(missing_ok=True)
            raise
        storage.atomic_write(base / MANIFEST_FILE, _manifest_text(files))
        return [summary_path, series_path]

    def __repr__(self) -> str:
        s = self.summary
        totals = s.get("totals", {})
        return (
            f"<Results {s.get('scenario', '?')!s} seed={s.get('seed')} "
            f"simulated={s.get('simulated_s', 0):g}s connections={len(s.get('connections', []))} "
            f"goodput={totals.get('goodput_mbps', float('nan')):.3f}Mb/s>"
        )


def _table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    if not rows:
        return pd.DataFrame()
    table = pd.json_normalize(rows, sep=".")
    return table.set_index("name") if "name" in table.columns else table


# --------------------------------------------------------------------------------------------
# Entry points


def run(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    overrides: OverridesLike = None,
    progress: Callable[[float, float], Any] | None = None,
    pcap: str | os.PathLike[str] | None = None,
    cell_trace: str | os.PathLike[str] | None = None,
) -> Results:
    """Run a scenario to its end and return its :class:`Results`.

    ``scenario``: a built-in name, a path to a TOML file, or a dict shaped like the TOML.
    ``seed``: replaces the scenario's ``run.seed``.
    ``overrides``: ``{"key.path": value}`` or ``["key.path=value", ...]`` applied to the
    scenario before validation (``atmsim run --set``).
    ``progress``: called every few milliseconds of work as ``progress(simulated_s,
    duration_s)`` (``atmsim run`` draws its progress bar with it).
    ``pcap``: a folder for pcap-ng packet traces; ``cell_trace``: a Parquet file for the
    cell trace; both as the scenario's ``[trace]`` says (docs/traces.md). Neither changes
    the run. ``Results.trace`` then lists what was written.

    Raises :class:`ScenarioError` (a ``ValueError``) for any bad input: its subclass
    :class:`ArgumentError` (also a ``TypeError``) when an argument has a type not listed
    here. Raises ``SimulationError`` (a ``RuntimeError``) if the model fails.
    """
    text, source = scenario_text(scenario)
    pairs = normalize_overrides(overrides)
    seed = _check_seed(seed)
    _check_progress(progress)
    if pcap is not None or cell_trace is not None:
        from atmsim import trace

        return trace.run_traced(text, source, pairs, seed, progress, pcap, cell_trace)
    return run_core(text, source, pairs, seed, progress)[0]


def run_core(
    text: str,
    source: str,
    pairs: list[tuple[str, str]],
    seed: int | None,
    progress: Any = None,
    cancel: Any = None,
    **kw: Any,
) -> tuple[Results, dict[str, Any]]:
    """``_core.run`` with the series streamed to a file in a fresh temporary folder
    (``TMPDIR``, :func:`storage.scratch_folder`), then mapped; returns the results and the
    raw dict. The folder is removed at once: the open file and its mapping keep the values
    for as long as the results live. Folders that killed processes left are removed the first
    time a process runs."""
    folder = storage.scratch_folder("atmsim-series")
    try:
        path = os.path.join(folder, "s.bin")
        summary_json, raw = _core.run(
            text, source, pairs, seed, cancel, progress, series_file=path, **kw
        )
        return Results._from_core(summary_json, raw), raw
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def validate(scenario: ScenarioLike, *, overrides: OverridesLike = None) -> str:
    """Validate a scenario (with overrides); return its canonical TOML, every default
    written out. The text runs as it is: ``run(tomllib.loads(text))`` or from a file."""
    text, source = scenario_text(scenario)
    return _core.validate(text, source, normalize_overrides(overrides))


def describe(scenario: ScenarioLike, *, overrides: OverridesLike = None) -> dict[str, Any]:
    """Counts of a validated scenario's parts: ``nodes``, ``hosts``, ``switches``, ``links``,
    ``connections``; its ``duration_s``, ``warmup_s`` and ``seed``; and what running it is
    estimated to cost against the ceilings that refuse it: ``estimated_events`` (with
    ``estimated_events_largest``, its largest part in words) against ``max_events``, and
    ``estimated_queued_cells`` (with ``estimated_queue_largest``) against
    ``max_queued_cells`` (docs/scenarios.md, ``[run]``).

    ``network`` is the resolved network in numbers, computed by the model from the same
    resolved configuration the run uses (never re-derived in Python): a dict of two lists.

    ``network["ports"]``, one per direction of each link, in the results' order: ``name``
    (``"A->B"``, as the results' ``ports``), ``node``, ``to``, ``node_kind`` (``"switch"`` or
    ``"host"``), ``link`` (index of its ``[[link]]``), ``line_rate_bps`` (as written; for a link
    given by its cell time, 424 bits per cell time), ``framing`` (``"sonet"``: cells fill 26/27
    of the line rate; ``"none"``), ``cell_time_s`` (as simulated, whole picoseconds),
    ``cells_per_s`` (1 / cell_time_s), ``payload_bps`` (cells_per_s x 384: 48 bytes per cell),
    ``delay_s`` (propagation), ``credits`` (AN2 credits per VC, or None),
    ``vc_buffer_cells`` and ``port_buffer_cells`` (a switch port's limits; None: unlimited, as
    a host adapter always is).

    ``network["connections"]``, in the scenario's order: ``name`` (as the results'),
    ``service`` (``"ubr"``, ``"abr"``, ...), ``source`` (``"tcp"``, ``"cbr"``, ``"on_off"``,
    ``"greedy"``), ``tcp_variant`` (or None), ``path`` (node names), ``route`` (port names its
    data cells cross), ``reverse_route`` (those of its ACKs or backward RM cells);
    for TCP ``mss_bytes``, ``header_bytes`` (TCP/IP 40, + 8 with LLC/SNAP),
    ``aal_overhead_bytes`` (AAL5's trailer: 8), ``segment_cells`` (cells of a full segment's
    frame) and ``ack_cells`` (of a bare ACK), all None for a cell source;
    ``peak_cells_per_s`` (the lower of the source's rate and the PCR, or None) and
    ``mean_cells_per_s`` (a CBR or ON-OFF source's mean, or None); ``rtt_propagation_s`` and
    ``rtt_switching_s`` (the round trip's propagation and switching delays, out and back);
    ``bottleneck`` (the port of ``route`` with the fewest cells/s; among equal ones the one most
    connections cross) and ``bottleneck_cells_per_s``; ``max_goodput_bps`` (what the path
    allows: bottleneck_cells_per_s x mss_bytes x 8 / segment_cells, or x 384 for a cell
    source) and ``bdp_cells`` (bottleneck_cells_per_s x rtt_propagation_s);
    ``congestion_control`` (``"reno"`` or ``"cubic"``), ``ecn`` and ``hystart`` (a TCP
    connection's settings; None for a cell source)."""
    text, source = scenario_text(scenario)
    info = dict(_core.describe(text, source, normalize_overrides(overrides)))
    info["source"] = source
    return info
