"""The Python API's inputs at their edges (found by a hostile tester): an argument of the
wrong type raises ``atmsim.ArgumentError`` (a ``ScenarioError`` and a ``TypeError``) naming
the argument; numpy scalars are the numbers and booleans they hold; a value no TOML can
hold names its field as the user wrote it; valid input is written exactly as before.

Before, ``run(None)`` raised a bare TypeError, ``overrides=5`` "'int' object is not
iterable", numpy scalars "cannot be written as TOML" with no field, and ``10**100`` named
line 171 of a generated TOML the user never sees."""

from __future__ import annotations

import copy
import datetime
import pickle
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st

import atmsim
from atmsim import ArgumentError, ScenarioError, scenarios
from atmsim.api import _check_seed, normalize_overrides, scenario_text
from atmsim.sweep import SweepError, parse_spec

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

BASE = "fang1994-cell-drop"
#: A built-in with numbers and booleans in it (abr.nrm, abr.rif, host.llc_snap, run.seed).
NUMERIC = "an1997-n10-10ms"
SHORT = {"run.duration": "0.02 s", "run.warmup": "0 s"}


def _dict(name: str = BASE) -> dict[str, Any]:
    return tomllib.loads(scenarios.text(name))


def _run(scenario: Any = BASE, **kwargs: Any) -> atmsim.Results:
    kwargs.setdefault("overrides", SHORT)
    return atmsim.run(scenario, **kwargs)


ENTRIES = {
    "run": lambda scenario, **kw: atmsim.run(scenario, **kw),
    "validate": lambda scenario, **kw: atmsim.validate(scenario, **kw),
    "describe": lambda scenario, **kw: atmsim.describe(scenario, **kw),
}


def _argument_error(info: pytest.ExceptionInfo[Any], argument: str) -> str:
    e = info.value
    assert type(e) is ArgumentError, type(e)
    assert isinstance(e, ScenarioError) and isinstance(e, TypeError)
    message = str(e)
    assert message.startswith(f"{argument}: expected "), message
    return message


# --------------------------------------------------------------------------------------------
# Arguments of the wrong type


def test_argument_error_is_a_scenario_error_and_a_type_error_and_pickles() -> None:
    assert issubclass(ArgumentError, ScenarioError) and issubclass(ArgumentError, TypeError)
    assert atmsim.errors.ArgumentError is ArgumentError
    e = ArgumentError("seed: expected a non-negative integer or None, got str '1'")
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is ArgumentError and str(back) == str(e)


@pytest.mark.parametrize("entry", list(ENTRIES))
@pytest.mark.parametrize(
    "scenario",
    [None, 123, 1.5, [1, 2], ("fang1994-cell-drop",), b"fang1994-cell-drop", object()],
    ids=["None", "int", "float", "list", "tuple", "bytes", "object"],
)
def test_a_scenario_of_the_wrong_type_is_an_argument_error(entry: str, scenario: Any) -> None:
    with pytest.raises(ArgumentError) as info:
        ENTRIES[entry](scenario)
    message = _argument_error(info, "scenario")
    assert "a built-in name, a path to a TOML file or a dict" in message
    assert f"got {'None' if scenario is None else type(scenario).__name__}" in message


@pytest.mark.parametrize("entry", list(ENTRIES))
@pytest.mark.parametrize(
    "overrides",
    [5, 0.5, True, b"run.duration=1 s", object()],
    ids=["int", "float", "bool", "bytes", "object"],
)
def test_overrides_of_the_wrong_type_are_an_argument_error(entry: str, overrides: Any) -> None:
    with pytest.raises(ArgumentError) as info:
        ENTRIES[entry](BASE, overrides=overrides)
    message = _argument_error(info, "overrides")
    assert "a dict {'key.path': value}" in message and type(overrides).__name__ in message


@pytest.mark.parametrize(
    "overrides",
    [[5], [None], [("run.duration", "1 s", "x")], [["run.duration", "1 s"]], [b"a=1"]],
    ids=["int", "None", "triple", "list-pair", "bytes"],
)
def test_an_override_item_of_the_wrong_type_is_an_argument_error(overrides: Any) -> None:
    with pytest.raises(ArgumentError, match=r"^overrides: .*: expected a 'KEY=VALUE' string"):
        atmsim.validate(BASE, overrides=overrides)


@pytest.mark.parametrize(
    "overrides", [{1: "2 s"}, [(None, "2 s")], [(b"run.duration", "2 s")]], ids=str
)
def test_an_override_key_that_is_no_string_is_an_argument_error(overrides: Any) -> None:
    with pytest.raises(ArgumentError, match=r"^overrides: key .*: expected a string"):
        atmsim.validate(BASE, overrides=overrides)


@pytest.mark.parametrize(
    "seed",
    ["1", 1.0, True, np.bool_(True), np.float64(1.0), [1], np.array([1]), Decimal(1)],
    ids=["str", "float", "bool", "np.bool_", "np.float64", "list", "array", "Decimal"],
)
def test_a_seed_of_the_wrong_type_is_an_argument_error(seed: Any) -> None:
    with pytest.raises(ArgumentError) as info:
        _run(seed=seed)
    assert "a non-negative integer or None" in _argument_error(info, "seed")


@pytest.mark.parametrize(
    "seed", [-1, 2**63, 10**100, 10**5000], ids=["-1", "2^63", "1e100", "1e5000"]
)
def test_a_seed_out_of_range_is_a_scenario_error_naming_the_seed(seed: int) -> None:
    # 10**5000 raised ValueError before: Python refuses str() of an int of 5,000 digits.
    with pytest.raises(ScenarioError, match=r"^seed: expected an integer from 0 to 2\^63 - 1"):
        _run(seed=seed)


@pytest.mark.parametrize("seed", [np.int64(7), np.uint8(7), np.array(7), 7])
def test_numpy_integer_seeds_are_the_integers(seed: Any) -> None:
    assert _check_seed(seed) == 7 and type(_check_seed(seed)) is int


def test_a_numpy_seed_runs_as_the_plain_seed() -> None:
    assert _run(seed=np.int64(7)).summary["seed"] == 7


@pytest.mark.parametrize("progress", [5, "bar", object()], ids=["int", "str", "object"])
def test_a_progress_that_is_not_callable_is_an_argument_error(progress: Any) -> None:
    # Before, the run started and the first report raised "'int' object is not callable".
    with pytest.raises(ArgumentError) as info:
        _run(progress=progress)
    assert "progress(simulated_s, duration_s)" in _argument_error(info, "progress")


# --------------------------------------------------------------------------------------------
# numpy scalars


NUMPY_FIELDS = [
    # (path in the scenario / override key, numpy value, the plain value it is)
    (("abr", "nrm"), np.int64(16), 16),
    (("abr", "nrm"), np.int32(16), 16),
    (("abr", "nrm"), np.uint16(16), 16),
    (("abr", "rif"), np.float32(0.5), 0.5),
    (("abr", "rif"), np.float64(0.25), 0.25),
    (("abr", "cdf"), np.array(0.125), 0.125),  # a 0-d array
    (("host", "llc_snap"), np.bool_(False), False),
    (("host", "llc_snap"), np.array(True), True),
    (("run", "seed"), np.int64(3), 3),
    (("tcp", "mss"), np.str_("4096 B"), "4096 B"),
]
NUMPY_IDS = [f"{'.'.join(p)}={type(v).__name__}" for p, v, _ in NUMPY_FIELDS]


@pytest.mark.parametrize(("path", "value", "plain"), NUMPY_FIELDS, ids=NUMPY_IDS)
def test_numpy_scalars_in_a_dict_are_the_plain_numbers(path, value, plain) -> None:
    with_numpy, with_plain = _dict(NUMERIC), _dict(NUMERIC)
    with_numpy.setdefault(path[0], {})[path[1]] = value
    with_plain.setdefault(path[0], {})[path[1]] = plain
    assert atmsim.validate(with_numpy) == atmsim.validate(with_plain)
    assert scenario_text(with_numpy) == scenario_text(with_plain)


@pytest.mark.parametrize(("path", "value", "plain"), NUMPY_FIELDS, ids=NUMPY_IDS)
def test_numpy_scalars_in_overrides_are_the_plain_numbers(path, value, plain) -> None:
    key = ".".join(path)
    canonical = atmsim.validate(NUMERIC, overrides={key: plain})
    assert atmsim.validate(NUMERIC, overrides={key: value}) == canonical
    assert atmsim.validate(NUMERIC, overrides=[(key, value)]) == canonical


def test_numpy_values_nested_in_dicts_lists_and_tuples() -> None:
    rate = {"kind": "erica", "target_utilization": 0.75, "interval_cells": 50}
    np_rate = {
        "kind": np.str_("erica"),
        "target_utilization": np.float32(0.75),
        "interval_cells": np.int16(50),
    }
    with_plain, with_numpy = _dict(NUMERIC), _dict(NUMERIC)
    for sw in with_plain["switch"]:
        sw["rate_control"] = dict(rate)
    with_numpy["switch"] = tuple(
        {**sw, "rate_control": dict(np_rate)} for sw in with_numpy["switch"]
    )
    via = with_plain["connection"][0]["via"]
    with_numpy["connection"][0]["via"] = np.array(via)  # an array of numpy strings
    canonical = atmsim.validate(with_plain)
    assert atmsim.validate(with_numpy) == canonical
    over = atmsim.validate(NUMERIC, overrides={"switch.*.rate_control": np_rate})
    assert over == atmsim.validate(NUMERIC, overrides={"switch.*.rate_control": rate})
    assert dict(normalize_overrides({"x": [np.int8(1), (np.float64(0.5), np.bool_(True))]})) == {
        "x": "[1, [0.5, true]]"
    }


def test_a_numpy_scenario_runs_as_the_plain_one() -> None:
    d = _dict()
    d["run"].update(duration="0.02 s", warmup="0 s", seed=np.int64(4))
    d["tcp"]["initial_cwnd"] = np.int32(2)
    plain = _dict()
    plain["run"].update(duration="0.02 s", warmup="0 s", seed=4)
    plain["tcp"]["initial_cwnd"] = 2
    a, b = atmsim.run(d).summary, atmsim.run(plain).summary
    a.pop("wall_s"), b.pop("wall_s")
    assert a == b


# --------------------------------------------------------------------------------------------
# Values no TOML holds


UNWRITABLE = [
    (None, "None cannot be written in a scenario"),
    ({1, 2}, "{1, 2} (set) cannot be written"),
    (frozenset(), "(frozenset) cannot be written"),
    (b"8192 B", "b'8192 B' (bytes) cannot be written"),
    (datetime.timedelta(seconds=1), "(timedelta) cannot be written"),
    (1 + 2j, "(complex) cannot be written"),
    (object(), "(object) cannot be written"),
    (np.datetime64("2020-01-01"), "(datetime64) cannot be written"),
    (10**100, "an integer of 101 digits is outside TOML's integers (-2^63 to 2^63 - 1)"),
    (-(10**100), "a negative integer of 101 digits is outside TOML's integers"),
    (2**63, "9223372036854775808 is outside TOML's integers"),
    (10**5000, "an integer of 5001 digits is outside TOML's integers"),
    (np.uint64(2**64 - 1), "18446744073709551615 is outside TOML's integers"),
]
UNWRITABLE_IDS = [
    "None", "set", "frozenset", "bytes", "timedelta", "complex", "object", "datetime64",
    "1e100", "-1e100", "2^63", "1e5000", "uint64-max",
]  # fmt: skip


def _scenario_error(info: pytest.ExceptionInfo[Any]) -> ScenarioError:
    e = info.value
    assert type(e) is ScenarioError, type(e)
    return e


@pytest.mark.parametrize(("value", "says"), UNWRITABLE, ids=UNWRITABLE_IDS)
def test_an_unwritable_value_in_a_dict_names_its_field(value: Any, says: str) -> None:
    d = _dict()
    d["connection"][0]["tcp"] = {"mss": value}
    with pytest.raises(ScenarioError) as info:
        atmsim.validate(d)
    e = _scenario_error(info)
    assert str(e).startswith("<dict>: connection[0].tcp.mss: "), str(e)
    assert says in str(e)
    assert (e.file, e.line, e.field) == ("<dict>", None, "connection[0].tcp.mss")
    if "cannot be written" in says:
        assert str(e).endswith(
            "expected a string with a unit, a number, a boolean, a table or an array"
        )


@pytest.mark.parametrize(("value", "says"), UNWRITABLE, ids=UNWRITABLE_IDS)
def test_an_unwritable_override_value_names_its_key(value: Any, says: str) -> None:
    for overrides in ({"run.duration": value}, [("run.duration", value)]):
        with pytest.raises(ScenarioError) as info:
            atmsim.validate(BASE, overrides=overrides)
        e = _scenario_error(info)
        # Through the API the overrides are the `overrides` argument (the CLI says --set).
        assert str(e).startswith("overrides: run.duration: ") and says in str(e), str(e)
        assert (e.file, e.field) == ("overrides", "run.duration")


def _via_none(d: dict) -> None:
    d["connection"][0]["via"] = ["A", None]


def _threshold_set(d: dict) -> None:
    d["switch"][1]["policy"]["threshold"] = {1, 2}


def _quoted_key(d: dict) -> None:
    d["my key"] = {"x": None}


def _run_array(d: dict) -> None:
    d["run"] = [None]


@pytest.mark.parametrize(
    ("put", "field"),
    [
        (_via_none, "connection[0].via[1]"),
        (_threshold_set, "switch[1].policy.threshold"),
        (_quoted_key, '"my key".x'),
        (_run_array, "run[0]"),
    ],
    ids=["list item", "inline table", "quoted key", "array"],
)
def test_the_field_path_follows_tables_arrays_and_quoted_keys(put, field) -> None:
    d = _dict()
    put(d)
    with pytest.raises(ScenarioError, match="cannot be written") as info:
        atmsim.validate(d)
    assert str(_scenario_error(info)).startswith(f"<dict>: {field}: ")


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ({"kind": "epd", "threshold": None}, "switch.*.policy.threshold"),
        ({"kind": "epd", "threshold": [1, b"x"]}, "switch.*.policy.threshold[1]"),
        ([None], "switch.*.policy[0]"),
    ],
)
def test_a_nested_override_value_names_the_key_and_its_place(value: Any, field: str) -> None:
    with pytest.raises(ScenarioError) as info:
        atmsim.validate(BASE, overrides={"switch.*.policy": value})
    e = _scenario_error(info)
    assert str(e).startswith(f"overrides: {field}: ") and e.field == field


def test_a_key_that_is_no_string_inside_a_dict_names_its_table() -> None:
    d = _dict()
    d["run"][1] = "x"
    with pytest.raises(ScenarioError, match=r"^<dict>: run: key int 1 is not a string"):
        atmsim.validate(d)
    with pytest.raises(ScenarioError, match=r"^overrides: switch\.\*\.policy: key int 1 is not"):
        atmsim.validate(BASE, overrides={"switch.*.policy": {1: "x"}})


# --------------------------------------------------------------------------------------------
# Valid input is written as before


def test_every_builtin_as_a_dict_is_written_as_tomli_w_writes_it() -> None:
    """The TOML text made from a valid dict is what ``tomli_w.dumps`` made before (so the
    canonical TOML, and with it every cached sweep run's hash, does not move)."""
    for name in scenarios.names():
        d = _dict(name)
        text, source = scenario_text(d)
        assert text == tomli_w.dumps(d) and source == "<dict>", name


TOML_KEYS = st.text(max_size=6)
TOML_SCALARS = (
    st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats()
    | st.text(max_size=8)
    | st.dates()
    | st.decimals(allow_nan=False, places=3)
)
TOML_VALUES = st.recursive(
    TOML_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(TOML_KEYS, inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(TOML_KEYS, TOML_VALUES, max_size=5))
def test_any_valid_dict_is_written_as_tomli_w_writes_it(d: dict[str, Any]) -> None:
    assert scenario_text(d)[0] == tomli_w.dumps(d)


def test_plain_override_values_are_written_as_before() -> None:
    got = dict(normalize_overrides({"a": 3, "b": True, "c": 0.5, "d": ["x", 2], "e": "2 s"}))
    assert got == {"a": "3", "b": "true", "c": "0.5", "d": '["x", 2]', "e": "2 s"}
    # np.float64 is a float; its repr ("np.float64(0.5)") was written before, which the
    # core then read as a string.
    assert normalize_overrides({"c": np.float64(0.5)}) == [("c", "0.5")]


def test_a_valid_dict_is_not_changed_in_place() -> None:
    d = _dict(NUMERIC)
    d["abr"]["nrm"] = np.int64(16)
    before = copy.deepcopy(d)
    atmsim.validate(d)
    assert d.keys() == before.keys() and type(d["abr"]["nrm"]) is np.int64


# --------------------------------------------------------------------------------------------
# The sweep file's values


def _spec(body: str, tmp_path: Path) -> Any:
    return parse_spec(f'scenario = "{BASE}"\n' + body, str(tmp_path / "s.toml"), tmp_path)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("seeds = [100000000000000000000000]\n", ":2: seeds: expected a list of seeds"),
        ("seeds = [9223372036854775808]\n", ":2: seeds: expected a list of seeds"),
        (
            '[grid]\n"tcp.initial_cwnd" = [1, 100000000000000000000000]\n',
            ":3: grid.tcp.initial_cwnd[1]: 100000000000000000000000 is outside TOML's integers",
        ),
        (
            '[set]\n"switch.*.policy" = { kind = "epd", threshold = -100000000000000000000 }\n',
            ":3: set.switch.*.policy.threshold: -100000000000000000000 is outside",
        ),
        ("seeds = [" + "1" * 5000 + "]\n", ": cannot be read as TOML: Exceeds the limit"),
    ],
    ids=["seed 1e23", "seed 2^63", "grid value", "set value", "5000 digits"],
)
def test_a_sweep_file_with_an_integer_beyond_64_bits_names_its_field(body, says, tmp_path) -> None:
    # Before: a seed beyond 2^63 crashed the sweep's tables with OverflowError after the
    # runs, a grid value failed its run as 'invalid type: string', 5000 digits ValueError.
    with pytest.raises(SweepError) as info:
        _spec(body, tmp_path)
    assert says in str(info.value)


def test_a_dict_scenarios_schema_error_names_no_line_of_the_generated_toml() -> None:
    """A bad value in a dict scenario named line 20 of a TOML text the user never saw; the
    field path is what locates it."""
    scenario = tomllib.loads(atmsim.validate("fang1994-cell-drop"))
    scenario["connection"][0]["tcp"] = {"mss": "lots"}
    with pytest.raises(ScenarioError) as info:
        atmsim.validate(scenario)
    e = info.value
    assert (e.file, e.line, e.field) == ("<dict>", None, "connection[0].tcp.mss")
    assert str(e).startswith("<dict>: connection[0].tcp.mss: ")
