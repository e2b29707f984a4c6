"""The run cache's series file, ``series.parquet``: the sampled series as the simulator
hands them over, one Parquet column per series.

The user-facing results (``Results.write``, ``atmsim run --out``) keep the long table of the
results contract (``timeseries.parquet``: ``time_s, kind, entity, metric, value``, one row
per sample and series). A cached run is written and read far more often than it is looked
at, and mostly for a few of its series, so the cache stores them wide:

- column ``time_s`` (float64), then one float64 column per series, in the simulator's
  column order, named ``kind:entity:metric`` (for people who open the file with pandas);
- the exact names in the file's key-value metadata under ``atmsim.series``: JSON
  ``{"format": "atmsim-wide-series", "version": 1, "columns": [[kind, entity, metric],
  ...]}`` (the reader trusts these, not the column names);
- row groups of whole samples, about :data:`GROUP_VALUES` values each (memory holds one
  group while writing), zstd-compressed, no dictionaries or statistics.

Reading some series decodes only their columns. On a Kalyanaraman atlas run (3,001 samples
x 484 series) writing took 0.10 s against the long table's 0.27 s, the file 0.70 MB against
1.90 MB, and reading two series 8 ms against 103 ms (medians of five, one process).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = ["FORMAT", "GROUP_VALUES", "META_KEY", "VERSION", "read", "write"]

FORMAT = "atmsim-wide-series"
VERSION = 1
META_KEY = b"atmsim.series"
#: Values per row group (16 MiB of float64); a group holds at least one sample.
GROUP_VALUES = 1 << 21


def column_name(kind: str, entity: str, metric: str) -> str:
    return f"{kind}:{entity}:{metric}"


def _schema(kinds: Sequence[str], entities: Sequence[str], metrics: Sequence[str]) -> Any:
    import pyarrow as pa

    names = [column_name(*c) for c in zip(kinds, entities, metrics, strict=True)]
    twice = [n for n, k in Counter(names).items() if k > 1]
    if twice:
        raise ValueError(f"series: {twice[0]!r} is sampled twice")
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "columns": [list(c) for c in zip(kinds, entities, metrics, strict=True)],
    }
    fields = [pa.field("time_s", pa.float64())]
    fields += [pa.field(n, pa.float64()) for n in names]
    return pa.schema(fields, metadata={META_KEY: json.dumps(meta, separators=(",", ":"))})


def write(
    where: Any,
    kinds: Sequence[str],
    entities: Sequence[str],
    metrics: Sequence[str],
    blocks: Iterable[tuple[np.ndarray, np.ndarray]],
) -> None:
    """Write the series to ``where`` (a path or a binary file object): ``blocks`` yields
    ``(time_s, values)`` pieces of whole samples (``values``: rows x columns), each written
    as one row group (:func:`group_rows` says how many samples make one). With no blocks
    the file holds the columns and no rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = _schema(kinds, entities, metrics)
    c = len(kinds)
    with pq.ParquetWriter(
        where,
        schema,
        compression="zstd",
        compression_level=1,
        use_dictionary=False,
        write_statistics=False,
    ) as writer:
        for time_s, block in blocks:
            block = np.asarray(block, dtype=np.float64).reshape(len(time_s), c)
            by_column = np.ascontiguousarray(block.T)
            arrays = [pa.array(np.asarray(time_s, dtype=np.float64))]
            arrays += [pa.array(by_column[i]) for i in range(c)]
            writer.write_table(pa.Table.from_arrays(arrays, schema=schema))


def group_rows(columns: int) -> int:
    """Samples per row group for ``columns`` series."""
    return max(1, GROUP_VALUES // max(columns, 1))


def _columns(parquet: Any, where: str) -> list[tuple[str, str, str]]:
    # From the file's own key-value metadata and column count: building the Arrow schema
    # (twice, as ``schema_arrow`` does each time it is asked) took a fifth of reading a
    # file of a few hundred series.
    meta_data = parquet.metadata
    raw = (meta_data.metadata or {}).get(META_KEY)
    if raw is None:
        raise ValueError(f"{where}: not an atmsim series file (no {META_KEY.decode()} metadata)")
    meta = json.loads(raw)
    if meta.get("format") != FORMAT or meta.get("version") != VERSION:
        raise ValueError(
            f"{where}: series file format {meta.get('format')!r} version "
            f"{meta.get('version')!r}; this atmsim reads {FORMAT!r} version {VERSION}"
        )
    columns = [tuple(c) for c in meta["columns"]]
    if len(columns) + 1 != meta_data.num_columns:
        raise ValueError(
            f"{where}: {meta_data.num_columns - 1} series columns, its metadata "
            f"names {len(columns)}"
        )
    return columns  # type: ignore[return-value]


def read(
    source: Any,
    metrics: Iterable[str] | None = None,
    entities: Iterable[str] | None = None,
    where: str = "series.parquet",
) -> tuple[np.ndarray, list[str], list[str], list[str], np.ndarray]:
    """``(time_s, kinds, entities, metrics, values)`` of a series file (a path or a binary
    file object), with only the series of ``metrics`` and ``entities`` (all when None):
    only their columns are decoded. ``values`` is samples x kept series."""
    import pyarrow.parquet as pq

    parquet = pq.ParquetFile(source)
    columns = _columns(parquet, where)
    ms = None if metrics is None else set(metrics)
    es = None if entities is None else set(entities)
    keep = [
        i
        for i, (_, e, m) in enumerate(columns)
        if (ms is None or m in ms) and (es is None or e in es)
    ]
    names = ["time_s"] + [column_name(*columns[i]) for i in keep]
    table = parquet.read(columns=names, use_threads=False)
    time_s = table.column(0).to_numpy().astype(np.float64, copy=False)
    values = np.empty((len(time_s), len(keep)), dtype=np.float64)
    for j in range(len(keep)):
        values[:, j] = table.column(j + 1).to_numpy()
    kept = [columns[i] for i in keep]
    return (
        time_s,
        [k for k, _, _ in kept],
        [e for _, e, _ in kept],
        [m for _, _, m in kept],
        values,
    )
