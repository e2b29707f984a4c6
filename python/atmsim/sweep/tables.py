"""The sweep's tables, built from the cache (never from the order in which runs finished),
so a sweep gives the same tables wherever and however often its runs were made.

``results.parquet``, one row per run in grid order then seed order:

- ``point`` (grid point index), one column per grid key (the value as written in the sweep
  file, as text), ``seed``, ``hash``, ``status`` (``ok`` or ``failed``), ``error``;
- ``events``, ``cell_hops``, ``fingerprint``, ``simulated_s``;
- ``totals.<name>`` for every number in the summary's totals (goodput_mbps, cell_loss_pct,
  retransmission_pct, fairness_index, window_sync_pct, ...);
- ``goodput_mbps.<connection>`` per connection.

``aggregate.parquet``, one row per grid point: ``point``, the grid columns, ``runs`` (runs
that succeeded), ``failed``, ``distinct`` (how many different runs they were, by
fingerprint: 1 with several seeds means the seeds changed nothing), and ``<column>.mean`` /
``<column>.std`` (sample standard deviation; NaN with one run) / ``<column>.ci`` (the
half-width of the mean's Student-t confidence interval at the sweep's ``confidence`` level,
0.95 unless set; NaN with one run) for every numeric column of ``results`` except ``point``
and ``seed``.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from atmsim.storage import atomic_path
from atmsim.sweep.stats import half_width

__all__ = ["aggregate_table", "grid_cell", "results_table", "write_table"]

_ID_COLUMNS = ("point", "seed", "hash", "status", "error")


def grid_cell(value: Any) -> str:
    """A grid value as the text of a table cell."""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def results_table(spec: Any, plan: Sequence[Any], outcomes: Sequence[Any]) -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    for (point, seed, _), outcome in zip(plan, outcomes, strict=True):
        row: dict[str, Any] = {"point": point.index}
        row.update({key: grid_cell(v) for key, v in point.values})
        row.update(
            {
                "seed": seed,
                "hash": outcome.hash or "",
                "status": "ok" if outcome.ok else "failed",
                "error": outcome.error,
            }
        )
        if outcome.ok:
            summary = json.loads((outcome.path / "summary.json").read_text(encoding="utf-8"))
            for key in ("events", "cell_hops", "fingerprint", "simulated_s"):
                row[key] = summary.get(key)
            for key, value in sorted(summary.get("totals", {}).items()):
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    row[f"totals.{key}"] = value
            for conn in summary.get("connections", []):
                row[f"goodput_mbps.{conn['name']}"] = conn.get("goodput_mbps")
        rows.append(row)
    df = pd.DataFrame.from_records(rows)
    for col in df.columns:
        if col.startswith(("totals.", "goodput_mbps.")) or col == "simulated_s":
            df[col] = pd.to_numeric(df[col], errors="coerce").astype("float64")
        elif col in ("events", "cell_hops"):
            df[col] = pd.to_numeric(df[col], errors="coerce").astype("Int64")
    df["point"] = df["point"].astype("int64")
    df["seed"] = df["seed"].astype("int64")
    return df


def aggregate_table(spec: Any, results: pd.DataFrame) -> pd.DataFrame:
    keys = ["point", *spec.grid]
    numeric = [
        c
        for c in results.columns
        if c not in _ID_COLUMNS and c not in keys and pd.api.types.is_numeric_dtype(results[c])
    ]
    out_rows = []
    for _, group in results.groupby("point", sort=True):
        ok = group[group["status"] == "ok"]
        row: dict[str, Any] = {k: group[k].iloc[0] for k in keys}
        row["runs"] = len(ok)
        row["failed"] = int((group["status"] != "ok").sum())
        row["distinct"] = int(ok["fingerprint"].nunique()) if "fingerprint" in ok else len(ok)
        for col in numeric:
            vals = ok[col].astype("float64").to_numpy()
            vals = vals[~np.isnan(vals)]
            row[f"{col}.mean"] = float(vals.mean()) if len(vals) else math.nan
            row[f"{col}.std"] = float(vals.std(ddof=1)) if len(vals) > 1 else math.nan
            row[f"{col}.ci"] = half_width(vals, spec.confidence)
        out_rows.append(row)
    return pd.DataFrame.from_records(out_rows)


def write_table(df: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Write a parquet file atomically (a temporary file, synced, then a rename)."""
    out = Path(path)
    with atomic_path(out) as tmp:
        df.to_parquet(tmp, index=False)
    return out
