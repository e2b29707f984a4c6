"""``report.html`` for a sweep folder, from its stored tables (nothing is run): the grid
points with mean ± sd of the main totals, a figure of them, every run with its status and
fingerprint, the sweep file and what is needed to rerun it. One self-contained page, from the
template atmsim/templates/sweep_report.html.j2 (rendered by atmsim.report.render)."""

from __future__ import annotations

import json
import math
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from atmsim.errors import ResultsError
from atmsim.storage import atomic_write

__all__ = ["write_sweep_report"]

METRICS = (
    ("totals.goodput_mbps", "goodput (Mb/s)"),
    ("totals.cell_loss_pct", "cell loss (%)"),
    ("totals.retransmission_pct", "retransmission (%)"),
    ("totals.fairness_index", "fairness index"),
)


def _pm(mean: Any, sd: Any) -> str:
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "–"
    text = f"{mean:.4g}"
    if sd is not None and not (isinstance(sd, float) and math.isnan(sd)):
        text += f" ± {sd:.2g}"
    return text


def _rerun_file(spec: dict[str, Any], out: Path) -> Path:
    """The sweep file to rerun: the one the sweep was run from, where it still is (its
    scenario path is read from its own folder), else the copy in ``out``."""
    source = Path(str(spec.get("source", "")))
    if source.name and source.is_file():
        return source.resolve()
    return (out / "sweep.toml").resolve()


def point_labels(values: list[Any]) -> dict[str, str]:
    """``{table cell: short label}`` for the values of one grid key: a table value (an inline
    table such as ``{ kind = "erica" }``) is named by what differs between the key's values
    (``erica``; ``kind=epd, threshold=0.8`` when several entries differ), any other value by
    its text."""
    from atmsim.sweep.tables import grid_cell

    tables = [v for v in values if isinstance(v, dict)]
    differing = sorted({k for t in tables for k in t if len({repr(u.get(k)) for u in tables}) > 1})
    out = {}
    for v in values:
        if isinstance(v, dict) and differing:
            parts = [(k, v.get(k)) for k in differing if k in v]
            out[grid_cell(v)] = (
                str(parts[0][1]) if len(parts) == 1 else ", ".join(f"{k}={x}" for k, x in parts)
            )
        else:
            out[grid_cell(v)] = grid_cell(v)
    return out


def _seeds_text(spec: dict[str, Any], results: pd.DataFrame) -> str:
    """The seeds as the sweep file gave them, or its ``until`` rule and the seeds it ran."""
    until = spec.get("until")
    if not until:
        return ", ".join(str(s) for s in spec.get("seeds", []))
    per_point = results.groupby("point")["seed"].count()
    return (
        f"until the mean of {until['of']} is known to ±{until['relative']:.0%} "
        f"(first {until['first']}, at most {until['max']}): "
        f"{per_point.min()}-{per_point.max()} seeds per point"
    )


def _read(path: Path, reader: Any) -> Any:
    """``reader(path)``, or :class:`ResultsError` naming a file that is missing or cannot be
    read (truncated, overwritten): one line, no traceback from the CLI."""
    try:
        return reader(path)
    except FileNotFoundError:
        raise ResultsError(f"{path}: missing; rerun the sweep to write it") from None
    except Exception as exc:  # noqa: BLE001 - any reader's error on a damaged file
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ResultsError(f"{path}: damaged ({first}); rerun the sweep to write it") from None


def _network_uses(spec: dict[str, Any]) -> list[tuple[str, Any, dict[str, Any]]]:
    """``(scenario name, scenario, overrides)`` of every grid point of the stored sweep, for
    its network pictures (one per distinct network: one unless the grid changes it)."""
    import itertools

    scenario = spec.get("scenario")
    if not isinstance(scenario, str):
        return []
    name = Path(scenario).stem
    grid = spec.get("grid") or {}
    keys = list(grid)
    fixed = dict(spec.get("set") or {})
    return [
        (name, scenario, {**fixed, **dict(zip(keys, combo, strict=True))})
        for combo in itertools.product(*(grid[k] for k in keys))
    ]


def write_sweep_report(out_dir: str | os.PathLike[str]) -> Path:
    """Write ``out_dir/report.html`` for the sweep stored in ``out_dir``."""
    from atmsim import __version__, plots
    from atmsim.pictures import network_pictures
    from atmsim.report import data_table, figure, network_figure, render

    out = Path(out_dir)
    results = _read(out / "results.parquet", pd.read_parquet)
    aggregate = _read(out / "aggregate.parquet", pd.read_parquet)
    spec = _read(out / "sweep.json", lambda p: json.loads(p.read_text(encoding="utf-8")))
    if not isinstance(spec, dict):
        raise ResultsError(f"{out / 'sweep.json'}: damaged (no JSON object); rerun the sweep")
    keys = list(spec.get("grid", {}))
    name = spec.get("name", "sweep")

    short = {k: point_labels(spec["grid"][k]) for k in keys}

    def label(row: Any) -> str:
        return ", ".join(f"{k.split('.')[-1]}={short[k][row[k]]}" for k in keys) or name

    labels = [label(r) for _, r in aggregate.iterrows()]
    metrics = [(c, t) for c, t in METRICS if f"{c}.mean" in aggregate.columns]
    # The spread shown: the mean's confidence interval, or the sd for tables made before
    # aggregate.parquet had one.
    spread = "ci" if all(f"{c}.ci" in aggregate.columns for c, _ in metrics) else "std"
    level = float(spec.get("confidence", 0.95))
    spread_text = f"{level:.0%} confidence interval of the mean" if spread == "ci" else "sd"

    fig_path = None
    if metrics and len(aggregate):
        fig, axes = plots.figure(1, len(metrics), size=(3.6 * len(metrics), 3.8))
        axes = np.atleast_1d(axes)
        x = np.arange(len(aggregate))
        for ax, (col, title) in zip(axes, metrics, strict=True):
            ax.errorbar(
                x,
                aggregate[f"{col}.mean"],
                yerr=np.nan_to_num(aggregate[f"{col}.{spread}"].to_numpy(dtype=float)),
                fmt="o",
                capsize=3,
            )
            ax.set_xticks(x, labels, rotation=30, ha="right", fontsize="x-small")
            ax.set_title(title, fontsize="small")
        fig.suptitle(f"{name}: mean ± {spread_text} over seeds per grid point")
        fig_path = plots.save(fig, out / "figures" / "sweep.png")

    head = [*keys, "runs", "failed", *(t for _, t in metrics)]
    body = []
    for _, row in aggregate.iterrows():
        body.append(
            [*(short[k][row[k]] for k in keys), int(row["runs"]), int(row["failed"])]
            + [_pm(row[f"{c}.mean"], row[f"{c}.{spread}"]) for c, _ in metrics]
        )
    run_head = [*keys, "seed", "status", "goodput (Mb/s)", "fingerprint", "error"]
    run_body = []
    for _, r in results.iterrows():
        good = r.get("totals.goodput_mbps", math.nan)
        run_body.append(
            [
                *(short[k][r[k]] for k in keys),
                int(r["seed"]),
                r["status"],
                "–" if pd.isna(good) else f"{good:.4g}",
                r.get("fingerprint") or "–",
                r["error"] or "",
            ]
        )
    n_ok = int((results["status"] == "ok").sum())
    sweep_text = ""
    if (out / "sweep.toml").is_file():
        sweep_text = (out / "sweep.toml").read_text(encoding="utf-8")
    meta = {
        "base scenario": spec.get("scenario"),
        "seeds": _seeds_text(spec, results),
        "grid": "; ".join(f"{k} = {v}" for k, v in spec.get("grid", {}).items()) or "(none)",
        "fixed overrides": "; ".join(f"{k} = {v}" for k, v in spec.get("set", {}).items())
        or "(none)",
        "runs": f"{n_ok} ok, {len(results) - n_ok} failed, of {len(results)}",
        "atmsim version": __version__,
        "atmsim build of the runs": spec.get("build_id", "not recorded"),
        "rerun": f"atmsim sweep {_rerun_file(spec, out)} --out {out.resolve()}",
        "report written": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }
    networks = network_pictures(_network_uses(spec), out)
    page = render(
        "sweep_report.html.j2",
        title=f"Sweep {name}",
        description=spec.get("description") or "",
        points=data_table(f"mean ± {spread_text} over the seeds of each point", head, body),
        sweep_figure=(
            figure(fig_path, f"The main totals per grid point (mean ± {spread_text}).")
            if fig_path is not None
            else None
        ),
        networks=[network_figure(n) for n in networks],
        runs=data_table("every run, in grid order then seed order", run_head, run_body),
        sweep_text=sweep_text,
        meta={str(k): str(v) for k, v in meta.items()},
    )
    return atomic_write(out / "report.html", page)
