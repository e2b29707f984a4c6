"""The exceptions live in the package (atmsim.errors), so they pickle: a run that fails in
another process reaches the caller as the same class with the same message as in-process
(before, a pool worker's failure surfaced as "PicklingError: Can't pickle
<class '_core.SimulationError'>")."""

from __future__ import annotations

import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor

import pytest

import atmsim
from atmsim import ScenarioError, SimulationError, _core
from atmsim.errors import Cancelled

BAD = {"tcp.mss": "-3 B"}


def _run_bad() -> None:
    atmsim.run("fang1994-cell-drop", overrides=BAD)


def test_the_native_module_raises_the_packages_classes() -> None:
    assert _core.ScenarioError is ScenarioError
    assert _core.SimulationError is SimulationError
    assert _core.Cancelled is Cancelled
    assert issubclass(ScenarioError, ValueError) and issubclass(SimulationError, RuntimeError)


@pytest.mark.parametrize("cls", [ScenarioError, SimulationError, Cancelled])
def test_every_exception_pickles_with_its_message(cls: type[Exception]) -> None:
    e = cls("t.toml:3: tcp.mss: must not be negative")
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is cls and str(back) == str(e)


def test_a_scenario_error_names_file_line_and_field(tmp_path) -> None:
    path = tmp_path / "bad.toml"
    text = atmsim.scenarios.text("fang1994-cell-drop").replace('mss = "8192 B"', 'mss = "-3 B"')
    assert 'mss = "-3 B"' in text
    path.write_text(text)
    with pytest.raises(ScenarioError) as info:
        atmsim.validate(path)
    e = info.value
    assert e.file == str(path) and e.field == "tcp.mss" and isinstance(e.line, int)
    back = pickle.loads(pickle.dumps(e))
    assert (back.file, back.line, back.field) == (e.file, e.line, e.field)


def test_a_failure_in_a_worker_process_arrives_as_in_process() -> None:
    with pytest.raises(ScenarioError) as here:
        _run_bad()
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
        with pytest.raises(ScenarioError) as there:
            pool.submit(_run_bad).result(timeout=120)
    assert str(there.value) == str(here.value)
    assert there.value.field == here.value.field == "tcp.mss"


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        # A segment's cell count overflowed before: AAL5 carries at most 65,535 bytes.
        ({"tcp.mss": "70000 B", "tcp.max_window": "1000000 B"}, "tcp.mss", "65487 B"),
        ({"tcp.mss": "4294967295 B", "tcp.max_window": "1000000000 B"}, "tcp.mss", "65,535"),
        # Memory grew to gigabytes and the process aborted before.
        ({"run.sample_every": "1 ps"}, "run.sample_every", "at least 20 us"),
    ],
)
def test_quantities_beyond_the_models_bounds_are_refused(
    overrides: dict, field: str, message: str
) -> None:
    with pytest.raises(ScenarioError) as info:
        atmsim.validate("fang1994-cell-drop", overrides=overrides)
    assert info.value.field == field and message in str(info.value), str(info.value)
