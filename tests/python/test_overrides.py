"""Overrides and series shaping, without running the simulator (property tests)."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from atmsim.api import _Sampled, _toml_literal, normalize_overrides

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

keys = st.from_regex(r"[a-z_]{1,8}(\.[a-z_0-9]{1,8}){0,3}", fullmatch=True)
scalars = (
    st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False)
    | st.text()
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(min_size=1), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(values)
def test_toml_literal_parses_back(value) -> None:
    assert tomllib.loads(f"v = {_toml_literal(value)}")["v"] == value


@given(st.dictionaries(keys, st.text(alphabet=st.characters(blacklist_characters="\r\n"))))
def test_string_overrides_pass_through(overrides: dict[str, str]) -> None:
    as_pairs = normalize_overrides(overrides)
    assert [k for k, _ in as_pairs] == list(overrides)
    assert all(v == overrides[k] for k, v in as_pairs)
    as_strings = normalize_overrides([f"{k}={v.strip()}" for k, v in overrides.items()])
    assert as_strings == [(k, v.strip()) for k, v in overrides.items()]


def test_non_string_overrides_become_toml() -> None:
    got = dict(normalize_overrides({"a": 3, "b": True, "c": 0.5, "d": ["x", 2]}))
    assert got == {"a": "3", "b": "true", "c": "0.5", "d": '["x", 2]'}


@given(st.integers(0, 20), st.integers(0, 5), st.integers(1, 7))
def test_long_series_shape(n: int, ncols: int, piece: int) -> None:
    time_s = np.array([0.01 * (i + 1) for i in range(n)])
    columns = [("connection", f"c{j}", "m", None) for j in range(ncols)]
    # Row major, as the simulator hands them over: sample i, column j is 100 j + i.
    values = np.array([[100.0 * j + i for j in range(ncols)] for i in range(n)]).reshape(-1)
    raw = {"time_s": time_s, "columns": [c[:3] for c in columns], "values": values}
    sampled = _Sampled.from_core(raw)
    df = sampled.long()
    assert list(df.columns) == ["time_s", "kind", "entity", "metric", "value"]
    assert len(df) == n * ncols
    if n and ncols:
        assert np.allclose(df["time_s"].to_numpy()[::ncols], time_s)
        for j in range(ncols):
            col = df[df["entity"] == f"c{j}"]["value"].to_numpy()
            assert col.tolist() == [100.0 * j + i for i in range(n)]
        # The pieces put together are the whole table.
        whole = pd.concat(list(sampled.chunks(rows=piece * ncols)), ignore_index=True)
        pd.testing.assert_frame_equal(whole, df)
