"""Traces of a run: pcap-ng packet files (written by the simulator as it runs) and the cell
trace (collected by the simulator, written here as Parquet). See docs/traces.md."""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from atmsim.errors import ArgumentError, ScenarioWarning

#: Drop reasons, by the code the simulator records (the model's ``DropReason``).
DROP_REASONS = (
    "vc_buffer_full",
    "port_buffer_full",
    "frame_tail",
    "purged",
    "early_discard",
    "selective",
)
#: Cell kinds, by code (the model's ``CellKind``).
CELL_KINDS = ("data", "forward_rm", "backward_rm")
EOM, CLP, EFCI = 1, 2, 4


def check_path(value: Any, what: str) -> str | None:
    """``value`` as a path string (None stays None); anything else is refused."""
    if value is None:
        return None
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    raise ArgumentError(f"{what}: expected a path (str or os.PathLike) or None; got {value!r}")


def cell_table(trace: Mapping[str, Any]) -> Any:
    """The cell trace the simulator collected as an Arrow table (one row per cell event)."""
    import numpy as np
    import pyarrow as pa

    cols = trace["cells"]
    time_ps = np.asarray(cols["time_ps"], dtype=np.uint64)

    def names(codes: Any, values: list[str] | tuple[str, ...]) -> Any:
        return pa.DictionaryArray.from_arrays(
            pa.array(np.asarray(codes, dtype=np.int32)), pa.array(list(values), pa.string())
        )

    reason = np.asarray(cols["reason"], dtype=np.int32)
    sent = reason == 255
    flags = np.asarray(cols["flags"], dtype=np.uint8)
    reverse = np.asarray(cols["reverse"], dtype=np.int32)
    return pa.table(
        {
            "time_s": pa.array(time_ps.astype(np.float64) / 1e12),
            "time_ps": pa.array(time_ps),
            "port": names(cols["port"], trace["port_names"]),
            "connection": names(cols["connection"], trace["connection_names"]),
            "direction": names(reverse, ("data", "reverse")),
            "event": names(np.asarray(cols["event"], dtype=np.int32), ("sent", "dropped")),
            "reason": pa.DictionaryArray.from_arrays(
                pa.array(np.where(sent, 0, reason), mask=sent),
                pa.array(list(DROP_REASONS), pa.string()),
            ),
            "kind": names(cols["kind"], CELL_KINDS),
            "eom": pa.array((flags & EOM) != 0),
            "clp": pa.array((flags & CLP) != 0),
            "efci": pa.array((flags & EFCI) != 0),
            "queue_cells": pa.array(np.asarray(cols["queue"], dtype=np.uint32)),
        }
    )


def write_cell_trace(
    path: str | os.PathLike[str], trace: Mapping[str, Any], *, scenario: str, max_rows: int
) -> Path:
    """Writes the cell trace to ``path`` (Parquet). Its metadata says whether the row limit
    cut it short (``atmsim.truncated``, ``atmsim.truncated_at_s``, ``atmsim.not_recorded``);
    a cut trace also raises a :class:`ScenarioWarning`."""
    import pyarrow.parquet as pq

    table = cell_table(trace)
    at = trace.get("cells_truncated_at_s")
    meta = {
        "atmsim.scenario": scenario,
        "atmsim.cell_max_rows": str(max_rows),
        "atmsim.truncated": "true" if at is not None else "false",
        "atmsim.truncated_at_s": "" if at is None else repr(float(at)),
        "atmsim.not_recorded": str(int(trace.get("cells_not_recorded", 0))),
    }
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), **meta})
    out = Path(path)
    if out.parent != Path():
        out.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, out)
    if at is not None:
        warnings.warn(
            f"{out}: the cell trace reached [trace] cell_max_rows = {max_rows} at {at:.6g} s "
            f"and stopped recording ({trace.get('cells_not_recorded', 0)} later cell events "
            "not recorded); raise cell_max_rows or narrow cell_vcs, cell_ports, from/until",
            ScenarioWarning,
            stacklevel=4,
        )
    return out


def run_traced(
    text: str,
    source: str,
    pairs: list[tuple[str, str]],
    seed: int | None,
    progress: Any,
    pcap: Any,
    cell_trace: Any,
) -> Any:
    """:func:`atmsim.run` with a trace: packets into the folder ``pcap``, cells into the
    Parquet file ``cell_trace`` (either may be None)."""
    import tomllib

    from atmsim import _core
    from atmsim.api import run_core

    pcap_dir = check_path(pcap, "pcap")
    cells_path = check_path(cell_trace, "cell_trace")
    res, raw = run_core(
        text, source, pairs, seed, progress, pcap=pcap_dir, cell_trace=cells_path is not None
    )
    trace = raw["trace"]
    info: dict[str, Any] = {
        "pcap_files": [(Path(p), n) for p, n in trace["pcap_files"]],
        "cell_trace": None,
        "cell_rows": 0,
    }
    if cells_path is not None:
        canonical = tomllib.loads(_core.validate(text, source, pairs))
        max_rows = int(canonical.get("trace", {}).get("cell_max_rows", 1_000_000))
        info["cell_trace"] = write_cell_trace(
            cells_path, trace, scenario=res.summary.get("scenario", ""), max_rows=max_rows
        )
        info["cell_rows"] = len(trace["cells"]["time_ps"])
    res.trace = info
    return res


def describe_written(info: Mapping[str, Any]) -> str:
    """One line per output of a traced run (what ``atmsim run`` prints)."""
    lines = [f"pcap: {p} ({n} packets)" for p, n in info["pcap_files"]]
    if info.get("cell_trace") is not None:
        lines.append(f"cell trace: {info['cell_trace']} ({info['cell_rows']} rows)")
    return "\n".join(lines)
