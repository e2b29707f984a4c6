"""The Python API's dict input, fuzzed: any nesting of dicts, lists and scalars (deep
nesting included) either validates or raises ScenarioError; never RecursionError, TypeError
or a crash of the native module."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import atmsim
from atmsim import ScenarioError

KEYS = st.sampled_from(
    ["name", "run", "tcp", "switch", "link", "connection", "merge", "host", "duration", "mss",
     "between", "rate", "policy", "kind", "share", "threshold", "x", ""]
)  # fmt: skip
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["1 s", "155.52 Mb/s", "500 cells", "8192 B", "gfr", "sack"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(KEYS, children, max_size=4)
    ),
    max_leaves=25,
)


def _validate(d: Any) -> None:
    try:
        atmsim.validate(d)
    except ScenarioError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(KEYS, VALUES, max_size=6))
def test_arbitrary_dicts_validate_or_raise_scenario_error(d: dict) -> None:
    _validate(d)


def test_deep_nesting_raises_scenario_error() -> None:
    """3,000 levels raised RecursionError before; now a ScenarioError naming the path."""
    d: dict = {}
    x = d
    for _ in range(3_000):
        x["a"] = {}
        x = x["a"]
    with pytest.raises(ScenarioError, match="nested more than"):
        atmsim.validate(d)
    lst: list = []
    y = lst
    for _ in range(3_000):
        y.append([])
        y = y[0]
    with pytest.raises(ScenarioError, match="nested more than"):
        atmsim.validate({"name": "deep", "link": lst})
    with pytest.raises(ScenarioError, match="nested more than"):
        atmsim.validate("fang1994-cell-drop", overrides={"switch.*.policy": d})
