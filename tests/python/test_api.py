"""The Python API: atmsim.run, Results and their views, the summary contract."""

from __future__ import annotations

import json
import sys

import numpy as np
import pandas as pd
import pytest

import atmsim
from atmsim import Results, ScenarioError, SimulationError
from conftest import SHORT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# The public results contract (docs/CONTRACTS.md). The summary
# may gain fields, so these are the names that must be there, spelt exactly so.
SUMMARY_KEYS = {
    "scenario",
    "atmsim_version",
    "seed",
    "simulated_s",
    "warmup_s",
    "wall_s",
    "events",
    "cell_hops",
    "fingerprint",
    "connections",
    "ports",
    "totals",
}
CONNECTION_KEYS = {
    "name",
    "goodput_mbps",
    "throughput_mbps",
    "packets_sent",
    "packets_delivered",
    "retransmissions",
    "retransmission_pct",
    "timeouts",
    "fast_retransmits",
    "cells_sent",
    "cells_delivered",
    "cells_dropped",
    "cell_loss_pct",
    "frames_corrupted",
    "mean_rtt_ms",
    "max_cwnd_bytes",
}
PORT_KEYS = {
    "name",
    "node",
    "to",
    "max_queue_cells",
    "cells_sent",
    "cells_dropped",
    "drops_by_reason",
    "utilization",
    "effective_utilization",
}
TOTALS_KEYS = {
    "goodput_mbps",
    "throughput_mbps",
    "cell_loss_pct",
    "retransmission_pct",
    "fairness_index",
    "cells_sent",
    "cells_delivered",
    "cells_dropped",
    "cells_in_flight",
    "cells_in_flight_at_warmup",
}
CONNECTION_METRICS = {
    "goodput_mbps",
    "throughput_mbps",
    "cwnd_bytes",
    "ssthresh_bytes",
    "srtt_ms",
    "rto_ms",
    "retransmissions",
    "cells_sent",
    "cells_dropped",
}
PORT_METRICS = {
    "queue_cells",
    "utilization",
    "effective_utilization",
    "cells_sent",
    "cells_dropped",
}


@pytest.fixture(scope="module")
def res(builtin: str) -> Results:
    return atmsim.run(builtin, overrides=SHORT)


def test_summary_has_the_contract_fields(res: Results) -> None:
    s = res.summary
    assert SUMMARY_KEYS <= set(s), SUMMARY_KEYS - set(s)
    assert s["connections"], "a built-in scenario has connections"
    for c in s["connections"]:
        assert CONNECTION_KEYS <= set(c), CONNECTION_KEYS - set(c)
    for p in s["ports"]:
        assert PORT_KEYS <= set(p), PORT_KEYS - set(p)
        assert p["name"] == f"{p['node']}->{p['to']}"
        assert isinstance(p["drops_by_reason"], dict)
    assert TOTALS_KEYS <= set(s["totals"]), TOTALS_KEYS - set(s["totals"])


def test_summary_values_are_sane(res: Results, builtin: str) -> None:
    s = res.summary
    assert s["scenario"] == builtin
    assert s["atmsim_version"] == atmsim.__version__
    assert s["simulated_s"] == pytest.approx(0.2)
    assert s["warmup_s"] == 0
    assert s["wall_s"] > 0, "the bindings time the model run"
    assert s["events"] > 0 and s["cell_hops"] > 0
    assert len(s["fingerprint"]) == 16 and int(s["fingerprint"], 16) >= 0
    for c in s["connections"]:
        assert 0 <= c["cell_loss_pct"] <= 100 and 0 <= c["retransmission_pct"] <= 100
    assert 0 < s["totals"]["fairness_index"] <= 1 + 1e-12


def test_cells_are_conserved(res: Results) -> None:
    # With no warm-up every cell sent is delivered, dropped or still in flight (docs/CONTRACTS.md).
    t = res.summary["totals"]
    assert t["cells_in_flight_at_warmup"] == 0
    assert t["cells_sent"] == t["cells_delivered"] + t["cells_dropped"] + t["cells_in_flight"]


def test_cell_counts_after_a_warm_up_balance_with_what_was_in_flight_then() -> None:
    # The counts start when the warm-up ends; the cells inside the network then close the
    # balance (docs/CONTRACTS.md).
    r = atmsim.run("cheon1998-epd-500", overrides={"run.duration": "60 ms", "run.warmup": "30 ms"})
    t = r.summary["totals"]
    assert t["cells_in_flight_at_warmup"] > 0, "windows are open at 30 ms"
    assert (
        t["cells_sent"] + t["cells_in_flight_at_warmup"]
        == t["cells_delivered"] + t["cells_dropped"] + t["cells_in_flight"]
    )


def test_ip_service_on_both_directions_is_cpu_work_of_one_over_the_rate() -> None:
    # host.ip_directions = "both" makes the IP service CPU work for every packet sent or
    # received: the same run, event for event, as an unlimited IP output and a CPU time of
    # 1/ip_rate (docs/scenarios.md). The default (an output queue) is a different run.
    short = {"run.duration": "0.8 s", "run.warmup": "0.5 s"}
    both = atmsim.run(
        "cheon1998-epd-500", overrides={**short, "host.ip_directions": "both"}
    ).summary
    cpu = atmsim.run(
        "cheon1998-epd-500",
        overrides={**short, "host.ip_rate": "unlimited", "host.processing_delay": "95238095 ps"},
    ).summary
    out = atmsim.run("cheon1998-epd-500", overrides=short).summary
    assert both["fingerprint"] == cpu["fingerprint"]
    assert both["fingerprint"] != out["fingerprint"]


def test_series_is_a_long_table_of_contract_metrics(res: Results) -> None:
    df = res.series
    assert list(df.columns) == ["time_s", "kind", "entity", "metric", "value"]
    assert not df.empty
    assert set(df["kind"]) <= {"connection", "port"}
    conn = set(df.loc[df["kind"] == "connection", "metric"])
    port = set(df.loc[df["kind"] == "port", "metric"])
    assert CONNECTION_METRICS <= conn
    assert PORT_METRICS <= port
    names = {c["name"] for c in res.summary["connections"]}
    assert set(df.loc[df["kind"] == "connection", "entity"]) == names
    times = df["time_s"].unique()
    assert (times >= 0).all() and (times <= 0.2 + 1e-9).all()
    assert (pd.Series(times).diff().dropna() > 0).all()


def test_wide_has_one_column_per_entity(res: Results) -> None:
    wide = res.wide("goodput_mbps", kind="connection")
    assert list(wide.columns) == [c["name"] for c in res.summary["connections"]]
    assert wide.index.name == "time_s"
    assert wide.index.is_monotonic_increasing
    queue = res.wide("queue_cells")
    assert set(queue.columns) <= {p["name"] for p in res.summary["ports"]}
    with pytest.raises(KeyError, match="sampled metrics"):
        res.wide("no_such_metric")


def test_connection_and_port_tables(res: Results) -> None:
    conns = res.connections
    assert list(conns.index) == [c["name"] for c in res.summary["connections"]]
    assert "goodput_mbps" in conns.columns
    ports = res.ports
    assert list(ports.index) == [p["name"] for p in res.summary["ports"]]
    assert {"max_queue_cells", "utilization", "effective_utilization"} <= set(ports.columns)
    assert res.totals == res.summary["totals"]


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_write_and_read_back(res: Results, tmp_path, fmt: str) -> None:
    paths = res.write(tmp_path / "out", series_format=fmt)
    assert [p.name for p in paths] == ["summary.json", f"timeseries.{fmt}"]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary == res.summary
    back = Results.read(tmp_path / "out")
    assert back.summary == res.summary
    pd.testing.assert_frame_equal(
        back.series.reset_index(drop=True),
        res.series.reset_index(drop=True),
        check_dtype=False,
        check_exact=False,
    )


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
@pytest.mark.parametrize("verify", [True, False])
def test_read_with_a_selection_is_read_then_select(
    res: Results, tmp_path, fmt: str, verify: bool
) -> None:
    """Reading only some series (as reproductions read their cached runs) gives exactly the
    frame that reading everything and selecting gives: same rows, order, index and dtypes."""
    res.write(tmp_path / "out", series_format=fmt)
    whole = Results.read(tmp_path / "out", verify=verify)
    port = res.summary["ports"][0]["name"]
    conn = res.summary["connections"][0]["name"]
    for metrics, entities in [
        (["cwnd_bytes"], None),
        (None, [port]),
        (["queue_cells", "cells_dropped"], [port, conn]),
        (["no_such_metric"], None),
    ]:
        part = Results.read(tmp_path / "out", verify=verify, metrics=metrics, entities=entities)
        want = whole.select(metrics=metrics, entities=entities).series
        assert len(want) > 0 or metrics == ["no_such_metric"]
        pd.testing.assert_frame_equal(part.series, want)
        assert part.summary == whole.summary


def test_write_rejects_unknown_format(res: Results, tmp_path) -> None:
    with pytest.raises(ValueError, match="parquet"):
        res.write(tmp_path, series_format="xlsx")  # type: ignore[arg-type]


def test_same_seed_same_summary(builtin: str) -> None:
    a = atmsim.run(builtin, seed=7, overrides=SHORT).summary
    b = atmsim.run(builtin, seed=7, overrides=SHORT).summary
    a.pop("wall_s"), b.pop("wall_s")
    assert a == b
    assert a["seed"] == 7


def test_seed_argument_replaces_the_scenario_seed(builtin: str) -> None:
    assert atmsim.run(builtin, seed=12345, overrides=SHORT).summary["seed"] == 12345


def test_dict_scenario_runs_like_its_file(builtin: str) -> None:
    doc = tomllib.loads(atmsim.validate(builtin))
    from_dict = atmsim.run(doc, overrides=SHORT).summary
    from_name = atmsim.run(builtin, overrides=SHORT).summary
    for s in (from_dict, from_name):
        s.pop("wall_s"), s.pop("scenario")
    assert from_dict == from_name


def test_overrides_as_dict_or_strings_agree(builtin: str) -> None:
    a = atmsim.run(builtin, overrides=SHORT).summary
    b = atmsim.run(builtin, overrides=[f"{k}={v}" for k, v in SHORT.items()]).summary
    a.pop("wall_s"), b.pop("wall_s")
    assert a == b


def test_path_scenario(builtin: str, tmp_path) -> None:
    path = tmp_path / "copy.toml"
    path.write_text(atmsim.validate(builtin))
    res = atmsim.run(path, overrides=SHORT)
    assert res.summary["scenario"] == tomllib.loads(path.read_text())["name"]
    res2 = atmsim.run(str(path), overrides=SHORT)
    assert res2.summary["events"] == res.summary["events"]


def test_validate_is_canonical_and_idempotent(builtin: str, tmp_path) -> None:
    text = atmsim.validate(builtin, overrides=SHORT)
    path = tmp_path / "canon.toml"
    path.write_text(text)
    assert atmsim.validate(path) == text


def test_describe_counts(builtin: str) -> None:
    d = atmsim.describe(builtin, overrides=SHORT)
    assert d["connections"] >= 1 and d["links"] >= 1
    assert d["nodes"] == d["hosts"] + d["switches"]
    assert d["duration_s"] == pytest.approx(0.2)


def test_errors_are_scenario_errors(builtin: str) -> None:
    assert issubclass(ScenarioError, ValueError)
    assert issubclass(SimulationError, RuntimeError)
    with pytest.raises(ScenarioError, match="built-ins are"):
        atmsim.run("no-such-scenario")
    with pytest.raises(ScenarioError, match="bogus_key"):
        atmsim.run(builtin, overrides={"run.bogus_key": 1})
    with pytest.raises(ScenarioError, match="KEY=VALUE"):
        atmsim.run(builtin, overrides=["run.duration"])
    with pytest.raises(ScenarioError, match="seed"):
        atmsim.run(builtin, seed=-1)


def test_runs_in_threads_agree(builtin: str) -> None:
    # The bindings release the GIL while the model runs; parallel runs must not interfere.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=2) as pool:
        summaries = list(
            pool.map(lambda s: atmsim.run(builtin, seed=s, overrides=SHORT).summary, [5, 5, 6])
        )
    for s in summaries:
        s.pop("wall_s")
    assert summaries[0] == summaries[1]
    assert summaries[2]["seed"] == 6


def test_progress_is_reported_in_simulated_time_and_can_stop_the_run() -> None:
    """``progress(simulated_s, duration_s)`` is called as the run goes (``atmsim run`` draws
    its terminal progress bar with it); an exception it raises ends the run and propagates."""
    seen: list[tuple[float, float]] = []
    atmsim.run(
        "fang1994-cell-drop",
        overrides={"run.duration": "2 s"},
        progress=lambda s, d: seen.append((s, d)),
    )
    assert len(seen) > 5
    assert all(d == 2.0 for _, d in seen)
    times = [s for s, _ in seen]
    assert times == sorted(times) and 0 < times[0] and times[-1] < 2.0

    class Stop(Exception):
        pass

    def stop(s: float, d: float) -> None:
        raise Stop

    with pytest.raises(Stop):
        atmsim.run("fang1994-cell-drop", overrides={"run.duration": "2 s"}, progress=stop)


def test_long_table_holds_each_sample_in_turn(res: Results) -> None:
    """The long table made from the compact samples: row ``i * c + j`` is column ``j`` of
    sample ``i``, with that column's names, and the names are in pandas' own string dtype
    (the one a table read back from disk has)."""
    raw = res._sampled
    assert raw is not None
    df = raw.long()
    n, c = raw.values.shape
    assert len(df) == n * c
    for i in (0, n // 2, n - 1):
        rows = df.iloc[i * c : (i + 1) * c]
        assert rows["kind"].tolist() == raw.kinds and rows["entity"].tolist() == raw.entities
        assert rows["metric"].tolist() == raw.metrics
        assert np.array_equal(rows["value"].to_numpy(), raw.values[i], equal_nan=True)
        assert (rows["time_s"] == raw.time_s[i]).all()
    default = pd.Series(["x"]).dtype
    assert all(df[k].dtype == default for k in ("kind", "entity", "metric"))
    # Pieces of whole samples, read from the series file, make up the same table.
    pieces = pd.concat(list(raw.chunks(rows=3 * c)), ignore_index=True)
    pd.testing.assert_frame_equal(pieces, df)


def test_parquet_from_samples_and_from_a_table_read_back_alike(res: Results, tmp_path) -> None:
    """Written from the compact samples (Arrow pieces) or from a DataFrame (results read back
    and selected), the file reads back as the same long table, names as plain strings, and
    keeps them dictionary-encoded on disk."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    res.write(tmp_path / "a")
    back = Results.read(tmp_path / "a")
    pd.testing.assert_frame_equal(back.series, res.series)
    back.select(metrics=["cwnd_bytes"]).write(tmp_path / "b")
    pd.testing.assert_frame_equal(
        Results.read(tmp_path / "b").series, res.select(metrics=["cwnd_bytes"]).series
    )
    path = tmp_path / "a" / "timeseries.parquet"
    schema = pq.read_schema(path)
    assert all(schema.field(k).type == pa.string() for k in ("kind", "entity", "metric"))
    meta = pq.ParquetFile(path).metadata
    entity = meta.row_group(0).column(2)
    assert entity.path_in_schema == "entity"
    assert any("DICTIONARY" in e for e in entity.encodings), entity.encodings
    # No series kept: an empty table, written and read back.
    res.select(metrics=["no_such_metric"]).write(tmp_path / "c")
    empty = Results.read(tmp_path / "c").series
    assert list(empty.columns) == ["time_s", "kind", "entity", "metric", "value"] and empty.empty
