"""Built-in scenarios: packaged, listed, described, and each runs briefly (smoke tests)."""

from __future__ import annotations

import sys

import pytest

import atmsim
from atmsim import ScenarioError, scenarios
from conftest import SHORT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

NAMES = scenarios.names()


def test_builtins_are_packaged() -> None:
    assert NAMES, "python/atmsim/scenarios/*.toml must be installed with the package"
    assert NAMES == sorted(NAMES)
    for name in NAMES:
        assert scenarios.text(name).strip()


def test_resolve_builtin_and_errors(tmp_path) -> None:
    text, source = scenarios.resolve(NAMES[0])
    assert source == f"{NAMES[0]}.toml" and text == scenarios.text(NAMES[0])
    assert scenarios.resolve(f"{NAMES[0]}.toml")[0] == text
    with pytest.raises(ScenarioError) as err:
        scenarios.resolve("definitely-not-a-scenario")
    for name in NAMES:
        assert name in str(err.value)
    with pytest.raises(ScenarioError, match="directory"):
        scenarios.resolve(tmp_path)
    with pytest.raises(ScenarioError, match="no such file"):
        scenarios.resolve(tmp_path / "missing.toml")


@pytest.mark.parametrize("name", NAMES)
def test_builtin_runs_briefly(name: str) -> None:
    res = atmsim.run(name, overrides=SHORT)
    assert res.summary["events"] > 0
    assert res.summary["connections"]


@pytest.mark.parametrize("name", NAMES)
def test_builtin_canonical_form_round_trips(name: str) -> None:
    text = atmsim.validate(name)
    assert atmsim.validate(tomllib.loads(text)) == text
