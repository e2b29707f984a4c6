"""The per-VC buffer policies of a shared FIFO (Goyal et al. 1998's threshold and GFR
policies, Selective Drop, Fair Buffer Allocation) run from a scenario, and their bad input
is refused with the field named.

The scenario: three greedy TCPs (MSS 1,024 B, windows to 1 MB) from 10 ms access links into
one 155.52 Mb/s FIFO with 48,000 cells of buffer, per-VC thresholds 300 / 600 / 900 cells.
"""

from __future__ import annotations

from typing import Any

import pytest

import atmsim
from atmsim import ScenarioError


def scenario(policy: dict[str, Any], shares: tuple[Any, ...] = (300, 600, 900)) -> dict:
    links = [{"between": ["A", "B"], "rate": "155.52 Mb/s", "delay": "5 ms"}]
    conns = []
    for i, t in enumerate(shares, start=1):
        links.append({"between": [f"s{i}", "A"], "rate": "155.52 Mb/s", "delay": "5 ms"})
        links.append({"between": ["B", f"d{i}"], "rate": "155.52 Mb/s", "delay": "5 us"})
        c = {"name": f"c{i}", "from": f"s{i}", "to": f"d{i}", "via": ["A", "B"]}
        if t is not None:
            c["share"] = {"threshold": f"{t} cells"}
        conns.append(c)
    return {
        "name": "buffer-policies",
        "run": {"duration": "4 s", "warmup": "1 s", "sample_every": "0 s"},
        "tcp": {
            "variant": "new_reno",
            "mss": "1024 B",
            "max_window": "1000000 B",
            "min_rto": "200 ms",
        },
        "switch": [
            {"name": "A", "scheduler": "fifo", "port_buffer": "48000 cells", "policy": policy},
            {"name": "B", "scheduler": "fifo", "port_buffer": "48000 cells"},
        ],
        "link": links,
        "connection": conns,
    }


@pytest.mark.parametrize("kind", ["threshold", "gfr"])
def test_throughput_follows_the_per_vc_thresholds(kind: str) -> None:
    """Goyal et al.'s mechanism: in a FIFO a VC's output share is its share of the queue, and
    the policy holds each VC's occupancy near its threshold, so goodput orders as the
    thresholds do (1 : 2 : 3 here), while the link stays busy."""
    res = atmsim.run(scenario({"kind": kind}))
    g = res.connections["goodput_mbps"]
    assert g["c1"] < g["c2"] < g["c3"], g
    assert g.sum() > 100  # of about 126 Mb/s of TCP payload an OC-3 carries
    assert res.ports.loc["A->B", "max_queue_cells"] < 48_000, "no buffer overflow needed"


def test_selective_drop_and_fba_leave_frames_alone_below_their_threshold() -> None:
    """Windows of 300,000 B (three of them about 19,000 cells) stay under R = 0.9 of the
    48,000-cell buffer: neither policy drops, and the link is used."""
    for kind in ("selective_drop", "fba"):
        s = scenario({"kind": kind}, shares=(None, None, None))
        s["tcp"]["max_window"] = "300000 B"
        res = atmsim.run(s)
        assert res.ports.loc["A->B", "cells_dropped"] == 0, kind
        assert res.connections["goodput_mbps"].sum() > 100, kind


@pytest.mark.parametrize(
    ("edit", "field", "message"),
    [
        (
            lambda s: s["switch"][0].update(port_buffer="unlimited"),
            "switch[0].policy.kind",
            "port_buffer",
        ),
        (
            lambda s: s["connection"][0].update(share={"threshold": "0 cells"}),
            "connection[0].share.threshold",
            "at least 1 cell",
        ),
        (
            lambda s: s["connection"][0].update(share={"weight": -1.0}),
            "connection[0].share.weight",
            ">= 0",
        ),
        (
            lambda s: s["connection"][0].update(share={"thresold": "5 cells"}),
            "connection[0].share",
            "thresold",
        ),
        (
            lambda s: s["switch"][0].update(policy={"kind": "gfr", "z": 1.0}),
            "switch[0].policy.z",
            "above 1",
        ),
        (
            lambda s: s["switch"][0].update(policy={"kind": "fba", "threshold": 1.0}),
            "switch[0].policy.threshold",
            "below the buffer size",
        ),
    ],
)
def test_bad_input_is_refused_with_the_field(edit: Any, field: str, message: str) -> None:
    s = scenario({"kind": "gfr"})
    edit(s)
    with pytest.raises(ScenarioError) as e:
        atmsim.validate(s)
    assert field in str(e.value) and message in str(e.value), str(e.value)
