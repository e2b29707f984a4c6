"""Python plug-ins (docs/plugins.md): an admission policy and a rate-control scheme written
as Python classes and named in a scenario, run through the same port hooks as the Rust ones.

The examples' twins (EPD and ERICA in Python) must reproduce the Rust schemes' runs; the
hooks must be called where the docs say; a plug-in's errors must come back as clear
errors, never a traceback of the simulator."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

import atmsim
from atmsim.errors import ScenarioError, SimulationError
from atmsim.scenarios import tomllib

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
EPD = "cheon1998-epd-500"
#: Past the scenario's 0.5 s warm-up.
EPD_SHORT = {"run.duration": "0.7 s"}
ERICA = "kalyanaraman1996-table1"


@pytest.fixture(autouse=True)
def _importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plug-in classes of these tests (plugin_classes.py) and the examples import."""
    monkeypatch.syspath_prepend(str(HERE))
    monkeypatch.syspath_prepend(str(ROOT / "examples"))


def example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def plugin(cls: str, **params: object) -> dict[str, object]:
    return {"kind": "python", "class": f"plugin_classes:{cls}", "params": params}


def test_python_epd_makes_the_same_run_as_the_rust_epd() -> None:
    r = example("python_epd").compare(EPD, 0.95, "0.7 s")
    assert r["python"]["early_discards"] > 0, "EPD refused nothing: the test shows nothing"
    assert r["python"]["fingerprint"] == r["rust"]["fingerprint"]
    assert r["python"]["goodput"] == r["rust"]["goodput"]
    assert r["agree"]


def test_python_erica_agrees_with_the_rust_erica() -> None:
    r = example("python_erica").compare(ERICA, "1.15 s")
    assert r["params"]["source_decay"] == 0.9, "the scenario's own ERICA settings"
    assert r["agree"], r
    # Same arithmetic in the same order: the same run, event for event.
    assert r["exact"]
    assert min(r["python"]["goodput"]) > 0


def test_a_per_cell_policy_that_accepts_every_cell_is_cell_drop() -> None:
    rust = atmsim.run(EPD, overrides={**EPD_SHORT, "switch.*.policy": {"kind": "cell_drop"}})
    py = atmsim.run(EPD, overrides={**EPD_SHORT, "switch.*.policy": plugin("AcceptEveryCell")})
    assert py.summary["fingerprint"] == rust.summary["fingerprint"]
    assert rust.summary["totals"]["drops_by_reason"]["port_buffer_full"] > 0
    from plugin_classes import SEEN

    # Every data cell through sw4 (at least) was shown to the last port made.
    assert SEEN["AcceptEveryCell"].calls > 1000


def test_a_plug_in_draws_from_its_ports_seeded_stream() -> None:
    from plugin_classes import SEEN

    over = {**EPD_SHORT, "switch.*.policy": plugin("RandomFrameDrop", p=0.02)}
    a = atmsim.run(EPD, overrides=over)
    b = atmsim.run(EPD, overrides=over)
    c = atmsim.run(EPD, overrides=over, seed=2)
    assert a.summary["fingerprint"] == b.summary["fingerprint"]
    assert a.summary["fingerprint"] != c.summary["fingerprint"]
    assert a.summary["totals"]["drops_by_reason"]["selective"] > 0
    # It has on_departure, so the ports told it of departures.
    assert sum(p.departures for p in SEEN["RandomFrameDrop"]) > 0


def test_a_rate_control_plug_in_gets_intervals_and_may_only_lower_the_er() -> None:
    from plugin_classes import SEEN

    SEEN.pop("HalveEr", None)
    over = {
        "run.duration": "0.05 s",
        "run.warmup": "0 s",
        "switch.*.rate_control": plugin("HalveEr"),
    }
    res = atmsim.run(ERICA, overrides=over)
    made = SEEN["HalveEr"]
    assert len(made) >= 2, "one instance per switch port"
    assert sum(m.intervals for m in made) >= 10
    assert sum(m.cells for m in made) > 0
    assert res.summary["totals"]["goodput_mbps"] > 0
    marked = [p.get("rm_cells_marked") for p in res.summary["ports"] if p.get("rm_cells_marked")]
    assert marked, "the halved ERs count as the port's feedback"


def test_a_rate_control_may_see_every_abr_cell_and_its_stats_are_the_series() -> None:
    from plugin_classes import SEEN

    SEEN.pop("CountsCells", None)
    over = {"run.duration": "0.05 s", "run.warmup": "0 s"}
    atmsim.run(ERICA, overrides={**over, "switch.*.rate_control": plugin("CountsCells")})
    made = SEEN["CountsCells"]
    seen = sum(m.seen for m in made)
    reported = sum(m.reported for m in made)
    # Every cell the intervals counted was shown; the last interval is still open at the end.
    assert 0 < reported <= seen
    assert set().union(*(m.kinds for m in made)) == {"data", "forward_rm", "backward_rm"}
    res = atmsim.run(ERICA, overrides={**over, "switch.*.rate_control": plugin("HalveEr")})
    assert (res.wide("load_factor", kind="rate_control") == 0.5).all().all()


def test_a_plug_in_scenario_validates_to_canonical_toml_that_runs() -> None:
    over = {**EPD_SHORT, "switch.*.policy": plugin("RandomFrameDrop", p=0.02)}
    text = atmsim.validate(EPD, overrides=over)
    policy = tomllib.loads(text)["switch"][0]["policy"]
    assert policy == {
        "kind": "python",
        "class": "plugin_classes:RandomFrameDrop",
        "params": {"p": 0.02},
    }
    again = atmsim.run(tomllib.loads(text))
    assert again.summary["fingerprint"] == atmsim.run(EPD, overrides=over).summary["fingerprint"]


@pytest.mark.parametrize(
    ("cls", "message"),
    [
        (
            "no_such_module:X",
            r"switch\[0\]\.policy\.class: cannot import module \"no_such_module\"",
        ),
        ("plugin_classes:Nope", r"policy\.class: module \"plugin_classes\" has no attribute"),
        ("plugin_classes", r"policy\.class: .* is not a class name: allowed \"module:Class\""),
        ("plugin_classes:NoHooks", r"policy\.class: .* is not a policy plug-in: no on_frame"),
    ],
)
def test_a_bad_class_is_a_scenario_error_naming_the_field(cls: str, message: str) -> None:
    over = {**EPD_SHORT, "switch.*.policy": {"kind": "python", "class": cls}}
    with pytest.raises(ScenarioError, match=message):
        atmsim.run(EPD, overrides=over)


def test_a_bad_class_in_a_file_names_the_file_and_line(tmp_path: Path) -> None:
    f = tmp_path / "mine.toml"
    f.write_text(
        f'base = "{EPD}"\n\n[[switch]]\nname = "sw1"\nscheduler = "fifo"\n'
        'port_buffer = "2000 cells"\n'
        'policy = { kind = "python", class = "plugin_classes:NoHooks" }\n'
    )
    with pytest.raises(ScenarioError) as e:
        atmsim.validate(f)
    assert "mine.toml" in str(e.value) and "policy.class" in str(e.value), str(e.value)


def test_a_rate_control_without_its_hooks_is_refused() -> None:
    over = {"switch.*.rate_control": plugin("RandomFrameDrop")}
    with pytest.raises(ScenarioError, match=r"rate_control\.class: .* no `interval` attribute"):
        atmsim.validate(ERICA, overrides=over)


def test_an_exception_in_a_hook_stops_the_run_with_class_hook_and_traceback() -> None:
    over = {**EPD_SHORT, "switch.*.policy": plugin("Raises")}
    with pytest.raises(SimulationError) as e:
        atmsim.run(EPD, overrides=over)
    text = str(e.value)
    assert "plugin_classes:Raises" in text
    assert "on_frame(now, view, label)" in text
    assert "Traceback" in text and "ZeroDivisionError: the tenth frame" in text
    assert "plugin_classes.py" in text


def test_an_exception_in_rate_control_feedback_stops_the_run() -> None:
    over = {"run.duration": "0.05 s", "run.warmup": "0 s"}
    over["switch.*.rate_control"] = plugin("FeedbackRaises")  # type: ignore[assignment]
    with pytest.raises(SimulationError, match=r"(?s)FeedbackRaises: on_backward_rm.*no feedback"):
        atmsim.run(ERICA, overrides=over)


def test_a_bad_verdict_and_a_failing_constructor_are_simulation_errors() -> None:
    with pytest.raises(SimulationError, match=r"on_frame.* returned 42: allowed None"):
        atmsim.run(EPD, overrides={**EPD_SHORT, "switch.*.policy": plugin("BadVerdict")})
    with pytest.raises(SimulationError, match=r"(?s)port sw1->sw2: .*BadInit.*__init__.*KeyError"):
        atmsim.run(EPD, overrides={**EPD_SHORT, "switch.*.policy": plugin("BadInit")})
