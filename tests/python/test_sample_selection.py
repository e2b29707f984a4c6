"""`run.sample_kinds`, `run.sample_entities`, `run.sample_metrics`: the series keep a subset of
their columns, the same columns with the same values as selecting them from a full run, and
nothing else about the run changes; names that do not exist are refused with the field."""

from __future__ import annotations

import pytest

import atmsim
from atmsim import ScenarioError

SHORT = {"run.duration": "0.3 s", "run.warmup": "0.1 s"}
BOTTLENECK = "sw3->sw4"


def _sorted(df):
    cols = list(df.columns)
    return df.sort_values(cols).reset_index(drop=True)


@pytest.mark.parametrize(
    "selection",
    [
        {"sample_metrics": ["queue_cells", "goodput_mbps"], "sample_entities": [BOTTLENECK, "s1"]},
        {"sample_kinds": ["port"], "sample_metrics": ["utilization", "cells_dropped"]},
        {"sample_kinds": ["connection"]},
        {"sample_entities": ["s11", "s12"]},
    ],
)
def test_a_selection_keeps_what_selecting_afterwards_keeps(selection: dict) -> None:
    full = atmsim.run("bench-parking-lot", overrides=SHORT)
    kept = atmsim.run(
        "bench-parking-lot",
        overrides={**SHORT, **{f"run.{k}": v for k, v in selection.items()}},
    )
    want = full.series
    if "sample_kinds" in selection:
        want = want[want["kind"].isin(selection["sample_kinds"])]
    if "sample_entities" in selection:
        want = want[want["entity"].isin(selection["sample_entities"])]
    if "sample_metrics" in selection:
        want = want[want["metric"].isin(selection["sample_metrics"])]
    assert len(kept.series) == len(want) > 0
    assert _sorted(kept.series).equals(_sorted(want))
    for key in ("events", "fingerprint", "cell_hops"):
        assert kept.summary.get(key) == full.summary.get(key), key
    assert kept.connections.equals(full.connections)


def test_abr_and_rate_control_columns_can_be_selected() -> None:
    ov = {"run.duration": "0.2 s", "run.warmup": "0 s"}
    res = atmsim.run(
        "kalyanaraman1996-table1",
        overrides={**ov, "run.sample_kinds": ["abr", "rate_control"]},
    )
    assert set(res.series["kind"]) == {"abr", "rate_control"}
    assert {"acr_mbps", "load_factor"} <= set(res.series["metric"])


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"run.sample_kinds": ["ports"]}, r"run\.sample_kinds\[0\]: \"ports\" is not a kind"),
        ({"run.sample_entities": ["s1", "sw9->sw1"]}, r"run\.sample_entities\[1\]: \"sw9->sw1\""),
        ({"run.sample_metrics": ["goodput"]}, r"run\.sample_metrics\[0\].*allowed: goodput_mbps"),
        ({"run.sample_metrics": []}, r"run\.sample_metrics: an empty list keeps nothing"),
        (
            {"run.sample_kinds": ["port"], "run.sample_metrics": ["goodput_mbps"]},
            r"not a metric of the sampled kinds.*allowed: queue_cells",
        ),
    ],
)
def test_names_that_do_not_exist_are_refused(override: dict, message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        atmsim.run("bench-parking-lot", overrides={**SHORT, **override})


def test_the_canonical_scenario_keeps_the_selection(tmp_path) -> None:
    text = atmsim.validate("bench-parking-lot", overrides={"run.sample_kinds": ["port"]})
    assert 'sample_kinds = ["port"]' in text
    assert "sample_entities" not in atmsim.validate("bench-parking-lot")
    path = tmp_path / "kept.toml"
    path.write_text(text, encoding="utf-8")
    assert atmsim.validate(str(path)) == text
    res = atmsim.run(str(path), overrides=SHORT)
    assert set(res.series["kind"]) == {"port"}
