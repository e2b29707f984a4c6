"""The scheme atlas's round-trip spread study sets the parking lot's round trips it says it
sets: read back from the validated scenario (every link of each connection's path, both
ways), the short group's propagation round trip is 10 ms and the long group's R times that,
the middle group's halfway; AN2 credits on each access link follow the atlas's rule; and a
ratio the paths cannot give is refused."""

from __future__ import annotations

import math

import pytest
import tomllib

import atmsim
from atmsim.reproduce.atlas import (
    NETWORKS,
    SCHEMES,
    model_facts,
    spread_access_delays,
    spread_overrides,
)
from atmsim.reproduce.atlas.config import SPREAD_SHORT_RTT_MS
from atmsim.reproduce.atlas.measure import SPREAD_NET

UNIT_S = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12}


def _seconds(text: str) -> float:
    value, unit = text.split()
    return float(value) * UNIT_S[unit]


def _round_trips(ratio: int, scheme: str, buffer: int) -> tuple[dict[str, float], dict]:
    net = NETWORKS[SPREAD_NET]
    sch = SCHEMES[scheme]
    ov = {**sch.overrides(net, buffer), **spread_overrides(ratio, sch, buffer)}
    sc = tomllib.loads(atmsim.validate(net.scenario, overrides=ov))
    delay = {tuple(sorted(link["between"])): _seconds(link["delay"]) for link in sc["link"]}
    rtts = {}
    for c in sc["connection"]:
        nodes = [c["from"], *c.get("via", []), c["to"]]
        rtts[c["name"]] = 2 * sum(
            delay[tuple(sorted(p))] for p in zip(nodes, nodes[1:], strict=False)
        )
    return rtts, sc


@pytest.mark.parametrize("ratio", [1, 2, 3, 4])
def test_groups_get_the_round_trips_of_the_ratio(ratio: int) -> None:
    rtts, _ = _round_trips(ratio, "epd", 2000)
    groups = NETWORKS[SPREAD_NET].groups
    assert groups is not None
    short = SPREAD_SHORT_RTT_MS * 1e-3
    want = (ratio * short, (1 + ratio) / 2 * short, short)
    for group, rtt in zip(groups, want, strict=True):
        for conn in group:
            assert rtts[conn] == pytest.approx(rtt, abs=1e-9), conn


def test_credits_on_each_access_link_follow_the_atlas_rule() -> None:
    net = NETWORKS[SPREAD_NET]
    per_vc = 250 // len(net.tcp)
    _, sc = _round_trips(4, "credits", 250)
    access = spread_access_delays(4)
    checked = 0
    for link in sc["link"]:
        key = tuple(link["between"])
        if key in access:
            cells = max(5, math.ceil(2 * access[key] * model_facts(SPREAD_NET)["cell_rate"]))
            assert link["credits"] == f"{min(cells, per_vc)} cells"
            checked += 1
    assert checked == len(net.tcp)


def test_a_ratio_the_paths_cannot_give_is_refused() -> None:
    with pytest.raises(ValueError, match="shorter than its path"):
        spread_access_delays(0.2)


def test_vbr_to_nominal_is_the_runs_range() -> None:
    """The notes' VBR delivered / nominal is the range over the runs that have a VBR source
    (it can pass 1: a ratio of rates, not a share), and absent when no run has one."""
    from types import SimpleNamespace

    import pandas as pd

    from atmsim.reproduce.atlas.notes import vbr_to_nominal

    runs = pd.DataFrame({"vbr_delivered_to_nominal": [float("nan"), 1.000012, 0.9993, 1.0]})
    got = vbr_to_nominal(SimpleNamespace(runs=runs))
    assert got == {"lo": 0.9993, "hi": 1.000012, "runs": 3}
    none = pd.DataFrame({"vbr_delivered_to_nominal": [float("nan")]})
    assert vbr_to_nominal(SimpleNamespace(runs=none)) is None
    assert vbr_to_nominal(SimpleNamespace(runs=pd.DataFrame({"x": [1.0]}))) is None
