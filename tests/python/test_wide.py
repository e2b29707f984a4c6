"""The run cache's series file (atmsim.wide): one Parquet column per series, read back as the
same long table, only the asked-for columns decoded."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import atmsim
from atmsim import wide
from atmsim.api import Results, _read_wide, _Sampled

SHORT = {"run.duration": "0.3 s", "run.warmup": "0.1 s", "run.sample_every": "10 ms"}


@pytest.fixture(scope="module")
def fang() -> Results:
    return atmsim.run("fang1994-an2", overrides=SHORT, seed=2)


def _round_trip(res: Results, **keep) -> Results:
    return Results(res.summary, _read_wide(io.BytesIO(res.series_wide_parquet()), **keep))


def test_the_file_reads_back_as_the_runs_long_table(fang: Results) -> None:
    back = _round_trip(fang)
    pd.testing.assert_frame_equal(back.series, fang.series)
    assert back.metrics == fang.metrics
    for metric in ("queue_cells", "goodput_mbps"):
        pd.testing.assert_frame_equal(back.wide(metric), fang.wide(metric))


@pytest.mark.parametrize(
    "keep",
    [
        {"metrics": ["queue_cells"]},
        {"entities": ["A->B", "s1"]},
        {"metrics": ["queue_cells", "cells_dropped"], "entities": ["A->B"]},
        {"metrics": ["no_such_metric"]},
    ],
)
def test_a_filtered_read_is_select_of_the_whole(fang: Results, keep: dict) -> None:
    back = _round_trip(fang, **keep)
    pd.testing.assert_frame_equal(back.series, fang.select(**keep).series)


def test_row_groups_hold_whole_samples_and_read_back_the_same(
    fang: Results, monkeypatch: pytest.MonkeyPatch
) -> None:
    columns = len(fang._sampled.metrics)
    monkeypatch.setattr(wide, "GROUP_VALUES", columns * 7)
    data = fang.series_wide_parquet()
    meta = pq.ParquetFile(io.BytesIO(data)).metadata
    samples = len(fang._sampled.time_s)
    assert meta.num_row_groups == -(-samples // 7)
    assert meta.row_group(0).num_rows == 7
    pd.testing.assert_frame_equal(_round_trip(fang).series, fang.series)


def test_the_columns_are_named_for_people_and_the_names_kept_exactly(fang: Results) -> None:
    table = pd.read_parquet(io.BytesIO(fang.series_wide_parquet()))
    s = fang._sampled
    assert list(table.columns[:2]) == ["time_s", f"{s.kinds[0]}:{s.entities[0]}:{s.metrics[0]}"]
    assert np.array_equal(table["time_s"].to_numpy(), s.time_s)
    assert table.shape == (len(s.time_s), len(s.metrics) + 1)


def test_a_long_table_converts_to_the_same_file(fang: Results) -> None:
    from_long = Results(fang.summary, fang.series.copy())
    assert from_long._sampled is None
    back = _round_trip(from_long)
    pd.testing.assert_frame_equal(back.series, fang.series)


def test_no_samples_give_the_columns_and_no_rows() -> None:
    empty = _Sampled(np.empty(0), ["port"], ["A->B"], ["queue_cells"], np.empty((0, 1)))
    buf = io.BytesIO()
    empty.write_wide(buf)
    time_s, kinds, entities, metrics, values = wide.read(io.BytesIO(buf.getvalue()))
    assert (kinds, entities, metrics) == (["port"], ["A->B"], ["queue_cells"])
    assert time_s.shape == (0,) and values.shape == (0, 1)


def test_a_parquet_file_that_is_not_a_series_file_is_refused_by_name() -> None:
    buf = io.BytesIO()
    pq.write_table(pa.table({"time_s": [0.0], "x": [1.0]}), buf)
    with pytest.raises(ValueError, match="runs/ab/series.parquet: not an atmsim series file"):
        wide.read(io.BytesIO(buf.getvalue()), where="runs/ab/series.parquet")


def test_a_series_sampled_twice_is_refused() -> None:
    twice = _Sampled(np.zeros(1), ["port"] * 2, ["A->B"] * 2, ["queue_cells"] * 2, np.zeros((1, 2)))
    with pytest.raises(ValueError, match="'port:A->B:queue_cells' is sampled twice"):
        twice.write_wide(io.BytesIO())
