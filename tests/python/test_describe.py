"""atmsim.describe(...)["network"]: the resolved network in numbers, as the model computes it.

Each expected value is worked out here from what the built-in scenario states (its header and
its TOML), so that a change in the model's arithmetic, or in a scenario, shows up.
"""

from __future__ import annotations

import json
import math

import pytest

import atmsim
from atmsim import scenarios
from conftest import SHORT, run_cli

CELL_BITS = 424  # one 53-byte cell
PAYLOAD_BITS = 384  # its 48 bytes of payload
OC3 = 155.52e6
SONET = 26 / 27  # of the line rate that carries cells in a SONET payload

PORT_KEYS = [
    "name",
    "node",
    "to",
    "node_kind",
    "link",
    "line_rate_bps",
    "framing",
    "cell_time_s",
    "cells_per_s",
    "payload_bps",
    "delay_s",
    "credits",
    "vc_buffer_cells",
    "port_buffer_cells",
]
CONNECTION_KEYS = [
    "name",
    "service",
    "source",
    "tcp_variant",
    "path",
    "route",
    "reverse_route",
    "mss_bytes",
    "header_bytes",
    "aal_overhead_bytes",
    "segment_cells",
    "ack_cells",
    "peak_cells_per_s",
    "mean_cells_per_s",
    "rtt_propagation_s",
    "rtt_switching_s",
    "bottleneck",
    "bottleneck_cells_per_s",
    "max_goodput_bps",
    "bdp_cells",
    "congestion_control",
    "ecn",
    "hystart",
]

# The simulation's cell time is whole picoseconds: cell rates agree with the nominal ones to
# 2e-7 (0.5 ps in 2.7 us), well inside this.
REL = 1e-6


def approx(x: float) -> object:
    return pytest.approx(x, rel=REL)


def network(name: str, **kw: object) -> dict:
    return atmsim.describe(name, **kw)["network"]


def port(net: dict, name: str) -> dict:
    return next(p for p in net["ports"] if p["name"] == name)


def conn(net: dict, name: str) -> dict:
    return next(c for c in net["connections"] if c["name"] == name)


def cells(nbytes: int) -> int:
    """Cells of an AAL5 frame of ``nbytes`` (headers and trailer included), padded to 48."""
    return math.ceil(nbytes / 48)


@pytest.mark.parametrize("name", scenarios.names())
def test_keys_types_and_json(name: str) -> None:
    d = atmsim.describe(name)
    net = d["network"]
    # The counts stay as they were, beside the lists.
    assert d["links"] * 2 == len(net["ports"])
    assert d["connections"] == len(net["connections"])
    assert all(list(p) == PORT_KEYS for p in net["ports"])
    assert all(list(c) == CONNECTION_KEYS for c in net["connections"])
    # Plain Python values only: the dict survives JSON unchanged.
    assert json.loads(json.dumps(d)) == d
    for p in net["ports"]:
        assert type(p["cells_per_s"]) is float and type(p["link"]) is int
    for c in net["connections"]:
        assert c["bottleneck"] in c["route"]
        assert type(c["max_goodput_bps"]) is float


def test_goyal1998_fifo() -> None:
    net = network("goyal1998-fifo")
    # 31 links (S1-S2, and one per source and per destination), two ports each.
    assert len(net["ports"]) == 62 and len(net["connections"]) == 15
    # Every link: 155.52 Mb/s with SONET framing, so cells ride 26/27 of it (149.76 Mb/s):
    # 149.76e6 / 424 = 353,207.5 cells/s; 5 ms of propagation.
    rate = OC3 * SONET / CELL_BITS
    s1s2 = port(net, "S1->S2")
    assert (s1s2["node"], s1s2["to"], s1s2["node_kind"]) == ("S1", "S2", "switch")
    assert s1s2["line_rate_bps"] == OC3 and s1s2["framing"] == "sonet"
    assert s1s2["cells_per_s"] == approx(rate)
    assert s1s2["cell_time_s"] == approx(1 / rate)
    assert s1s2["payload_bps"] == approx(rate * PAYLOAD_BITS)
    assert s1s2["delay_s"] == approx(0.005)
    assert (s1s2["port_buffer_cells"], s1s2["vc_buffer_cells"]) == (48000, None)
    assert s1s2["credits"] is None
    adapter = port(net, "s1->S1")
    assert adapter["node_kind"] == "host" and adapter["port_buffer_cells"] is None
    for c in net["connections"]:
        i = c["name"][1:]
        assert c["path"] == [f"s{i}", "S1", "S2", f"d{i}"]
        assert c["route"] == [f"s{i}->S1", "S1->S2", f"S2->d{i}"]
        assert c["reverse_route"] == [f"d{i}->S2", "S2->S1", f"S1->s{i}"]
        assert (c["service"], c["source"], c["tcp_variant"]) == ("ubr", "tcp", "sack")
        # Every link is as fast: the bottleneck is the one all fifteen share.
        assert c["bottleneck"] == "S1->S2"
        # MSS 1024 + 40 TCP/IP + 8 AAL5 trailer = 1072 B = 22.3 -> 23 cells; a bare ACK 48 B,
        # one cell.
        assert (c["mss_bytes"], c["header_bytes"], c["aal_overhead_bytes"]) == (1024, 40, 8)
        assert (c["segment_cells"], c["ack_cells"]) == (cells(1024 + 40 + 8), 1) == (23, 1)
        # Three 5 ms links each way: the paper's 30 ms round trip; no switching delay.
        assert c["rtt_propagation_s"] == approx(0.030)
        assert c["rtt_switching_s"] == 0.0
        # 353,207.5 cells/s x 1024 B x 8 / 23 cells = 125.8 Mb/s.
        assert c["max_goodput_bps"] == approx(rate * 1024 * 8 / 23)
        # 149.76e6 / 424 x 0.030 = 10,596.2 cells in flight on the round trip.
        assert c["bdp_cells"] == approx(149.76e6 / 424 * 0.030)
        assert c["peak_cells_per_s"] is None and c["mean_cells_per_s"] is None


def test_overrides_reach_the_description() -> None:
    # Without framing every bit of 155.52 Mb/s carries cells: 366,792.5 cells/s.
    net = network("goyal1998-fifo", overrides={"link.*.framing": "none", "tcp.mss": "512 B"})
    c = conn(net, "s1")
    assert c["bottleneck_cells_per_s"] == approx(OC3 / CELL_BITS)
    # 512 + 40 + 8 = 560 B = 11.7 -> 12 cells.
    assert c["segment_cells"] == 12
    assert c["max_goodput_bps"] == approx(OC3 / CELL_BITS * 512 * 8 / 12)


def test_cheon1998_epd_500() -> None:
    net = network("cheon1998-epd-500")
    # 155.52 Mb/s without framing (366,792 cells/s, the rate the paper's maxima assume), 1 ms.
    rate = OC3 / CELL_BITS
    trunk = port(net, "sw3->sw4")
    assert trunk["framing"] == "none" and trunk["cells_per_s"] == approx(rate)
    assert trunk["port_buffer_cells"] == 2000 and trunk["delay_s"] == approx(0.001)
    # Groups of five enter at sw1, sw2, sw3: 5, 4 and 3 links each way, 10, 8 and 6 ms.
    for name, hops in [("s1", 5), ("s6", 4), ("s11", 3)]:
        c = conn(net, name)
        assert len(c["route"]) == hops
        assert c["rtt_propagation_s"] == approx(2 * hops * 0.001)
        # Every link is as fast; sw3->sw4 is the one all fifteen cross.
        assert c["bottleneck"] == "sw3->sw4"
        assert c["bdp_cells"] == approx(rate * 2 * hops * 0.001)
        # 500 B + 40 B TCP/IP + the paper's 14 B of AAL overhead = 554 B -> 12 cells; a bare
        # ACK 40 + 14 = 54 B -> 2 cells.
        assert (c["mss_bytes"], c["aal_overhead_bytes"]) == (500, 14)
        assert (c["segment_cells"], c["ack_cells"]) == (cells(554), cells(54)) == (12, 2)
        # 366,792.5 cells/s x 500 B x 8 / 12 cells = 122.26 Mb/s.
        assert c["max_goodput_bps"] == approx(rate * 500 * 8 / 12)
        assert (c["service"], c["tcp_variant"]) == ("ubr", "reno")
    assert conn(net, "s1")["route"] == [
        "src1->sw1",
        "sw1->sw2",
        "sw2->sw3",
        "sw3->sw4",
        "sw4->dst1",
    ]


def test_fang1994_an2() -> None:
    net = network("fang1994-an2")
    # Links given by their cell time, 2.75 us (363,636 cells/s; 154.18 Mb/s of 424-bit
    # cells), 500 ns of propagation, 5 credits per VC; switches 4 us, 256 cells per VC.
    ab = port(net, "A->B")
    assert ab["cell_time_s"] == approx(2.75e-6)
    assert ab["cells_per_s"] == approx(1 / 2.75e-6)
    assert ab["line_rate_bps"] == approx(CELL_BITS / 2.75e-6)
    assert ab["framing"] == "none"
    assert ab["credits"] == 5
    assert (ab["vc_buffer_cells"], ab["port_buffer_cells"]) == (256, None)
    c = conn(net, "s1")
    assert c["path"][1:3] == ["A", "B"]
    assert c["bottleneck"] == "A->B"
    # MSS 8192, no LLC/SNAP: 8192 + 40 + 8 = 8240 B = 171.7 -> 172 cells.
    assert c["segment_cells"] == cells(8240) == 172
    # Three 500 ns links each way; A and B each switch for 4 us, out and back.
    assert c["rtt_propagation_s"] == approx(6 * 500e-9)
    assert c["rtt_switching_s"] == approx(4 * 4e-6)
    assert c["max_goodput_bps"] == approx(8192 * 8 / 172 / 2.75e-6)
    assert c["bdp_cells"] == approx(6 * 500e-9 / 2.75e-6)
    assert c["tcp_variant"] == "tahoe"


def test_kalyanaraman1996_table1() -> None:
    net = network("kalyanaraman1996-table1")
    rate = OC3 / CELL_BITS
    for c in net["connections"]:
        assert (c["service"], c["source"], c["tcp_variant"]) == ("abr", "tcp", "reno")
        # PCR 155.52 Mb/s: 366,792.5 cells/s, the most the adapter sends.
        assert c["peak_cells_per_s"] == approx(rate)
        # MSS 512 with LLC/SNAP: 512 + 40 + 8 + 8 = 568 B = 11.8 -> 12 cells; a bare ACK
        # 40 + 8 + 8 = 56 B -> 2 cells.
        assert c["header_bytes"] == 48
        assert (c["segment_cells"], c["ack_cells"]) == (cells(568), cells(56)) == (12, 2)
        # Three 5 ms links each way.
        assert c["rtt_propagation_s"] == approx(0.030)
        assert c["bottleneck"] == "A->B"
        assert c["max_goodput_bps"] == approx(rate * 512 * 8 / 12)
        assert c["bdp_cells"] == approx(rate * 0.030)


def test_an1997_n2_10ms() -> None:
    net = network("an1997-n2-10ms")
    rate = OC3 / CELL_BITS
    vbr = conn(net, "vbr")
    assert (vbr["service"], vbr["source"], vbr["tcp_variant"]) == ("vbr", "on_off", None)
    assert (vbr["congestion_control"], vbr["ecn"], vbr["hystart"]) == (None, None, None)
    assert vbr["segment_cells"] is None and vbr["mss_bytes"] is None
    # 100 Mb/s of cells, ON half of every 20 ms.
    assert vbr["peak_cells_per_s"] == approx(100e6 / CELL_BITS)
    assert vbr["mean_cells_per_s"] == approx(100e6 / CELL_BITS / 2)
    # A cell source's goodput counts 48 payload bytes per cell.
    assert vbr["max_goodput_bps"] == approx(rate * PAYLOAD_BITS)
    assert vbr["bottleneck"] == "A->B"
    s1 = conn(net, "s1")
    # MSS 9180 with LLC/SNAP: 9180 + 40 + 8 + 8 = 9236 B = 192.4 -> 193 cells.
    assert s1["segment_cells"] == cells(9236) == 193
    # Three 5 us links each way.
    assert s1["rtt_propagation_s"] == approx(6 * 5e-6)
    assert s1["bottleneck"] == "A->B"
    assert s1["max_goodput_bps"] == approx(rate * 9180 * 8 / 193)


def test_names_are_the_results_names() -> None:
    net = network("fang1994-an2")
    res = atmsim.run("fang1994-an2", overrides=SHORT)
    assert [p["name"] for p in net["ports"]] == [p["name"] for p in res.summary["ports"]]
    assert [c["name"] for c in net["connections"]] == [
        c["name"] for c in res.summary["connections"]
    ]


def test_validate_prints_the_bottlenecks_and_connections() -> None:
    proc = run_cli("validate", "goyal1998-fifo")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "S1->S2" in out and "155.52 Mb/s sonet" in out and "353,207.5" in out
    assert "sack" in out and "1024 B = 23 cells" in out and "30 ms" in out
    # Eight connections listed, the rest counted.
    assert "... and 7 more connections" in out


def test_todays_tcp_options_are_described_and_validate_shows_them() -> None:
    for c in network("goyal1998-fifo")["connections"]:
        assert (c["congestion_control"], c["ecn"], c["hystart"]) == ("reno", False, False)
    over = {"tcp.congestion_control": "cubic", "tcp.ecn": "true", "tcp.hystart": "true"}
    for c in network("goyal1998-fifo", overrides=over)["connections"]:
        assert (c["congestion_control"], c["ecn"], c["hystart"]) == ("cubic", True, True)
    args = [f"--set={k}={v}" for k, v in over.items()]
    proc = run_cli("validate", "goyal1998-fifo", *args)
    assert proc.returncode == 0, proc.stderr
    assert "ubr sack cubic ecn hystart" in proc.stdout
    plain = run_cli("validate", "goyal1998-fifo").stdout
    assert "ubr sack " in plain and "cubic" not in plain and "ecn" not in plain
