"""SACK TCP (RFC 2018 / RFC 6675) and the artificial loss at a window (Goyal et al. 1998,
Fig. 3) from a scenario: one TCP over a 155.52 Mb/s path with a 30 ms round trip and no
congestion loss, losing segments only where `drop_at_cwnd` says.
"""

from __future__ import annotations

from typing import Any

import pytest

import atmsim
from atmsim import ScenarioError


def scenario(variant: str, **tcp: Any) -> dict:
    return {
        "name": "drop-hook",
        "run": {"duration": "3 s", "warmup": "0.5 s", "sample_every": "0 s"},
        "tcp": {
            "variant": variant,
            "mss": "1024 B",
            "max_window": "600000 B",
            "min_rto": "200 ms",
            **tcp,
        },
        "switch": [{"name": "A", "scheduler": "fifo"}, {"name": "B", "scheduler": "fifo"}],
        "link": [
            {"between": ["A", "B"], "rate": "155.52 Mb/s", "delay": "5 ms"},
            {"between": ["s", "A"], "rate": "155.52 Mb/s", "delay": "5 ms"},
            {"between": ["B", "d"], "rate": "155.52 Mb/s", "delay": "5 ms"},
        ],
        "connection": [{"name": "c", "from": "s", "to": "d", "via": ["A", "B"]}],
    }


def test_sack_recovers_three_losses_in_one_window_without_a_timeout() -> None:
    """Three consecutive segments lost each time cwnd reaches 100,000 B. Reno's fast
    recovery ends at the first new ACK and the other two holes wait for the timer; SACK
    retransmits each hole once and keeps the window's ACK clock."""
    runs = {
        v: atmsim.run(scenario(v, drop_at_cwnd="100000 B", drop_count=3)).connections.loc["c"]
        for v in ("reno", "sack")
    }
    reno, sack = runs["reno"], runs["sack"]
    assert reno["timeouts"] >= 1
    assert sack["timeouts"] == 0
    assert sack["retransmissions"] == 3 * sack["fast_retransmits"], "each hole resent once"
    assert sack["goodput_mbps"] > 1.1 * reno["goodput_mbps"]


def test_the_loss_at_a_window_gives_equation_1s_throughput() -> None:
    """Goyal et al.'s equation 1: throughput = 8e-6 x average cwnd / RTT. With one segment
    lost each time cwnd reaches 100,000 B, the window saws between about 50,000 and 100,000 B
    and the measured goodput is within 5% of the equation fed with the run's own average
    window and smoothed RTT (the paper's four runs differ from it by 2-3%)."""
    s = scenario("sack", drop_at_cwnd="100000 B")
    s["run"]["sample_every"] = "1 ms"
    res = atmsim.run(s)
    after = res.wide("cwnd_bytes", "connection")["c"].index > 0.5
    cwnd = res.wide("cwnd_bytes", "connection")["c"][after].mean()
    rtt_s = res.wide("srtt_ms", "connection")["c"][after].mean() / 1e3
    assert 60_000 < cwnd < 85_000, cwnd  # about 3/4 of 100,000 B
    c = res.connections.loc["c"]
    assert c["goodput_mbps"] == pytest.approx(8e-6 * cwnd / rtt_s, rel=0.05)
    assert c["timeouts"] == 0


@pytest.mark.parametrize(
    ("tcp", "field", "message"),
    [
        ({"variant": "sack", "sack_blocks": 5}, "tcp.sack_blocks", "1 to 4"),
        ({"drop_at_cwnd": "1000000 B"}, "tcp.drop_at_cwnd", "max_window"),
        ({"drop_at_cwnd": "100 B"}, "tcp.drop_at_cwnd", "one MSS"),
        ({"drop_at_cwnd": "soon"}, "tcp.drop_at_cwnd", '"off"'),
        ({"drop_count": 0}, "tcp.drop_count", "1 to 10000"),
        ({"variant": "vegas"}, "tcp.variant", "sack"),
    ],
)
def test_bad_tcp_input_is_refused_with_the_field(tcp: dict, field: str, message: str) -> None:
    s = scenario("reno")
    s["tcp"].update(tcp)
    with pytest.raises(ScenarioError) as e:
        atmsim.validate(s)
    assert field in str(e.value) and message in str(e.value), str(e.value)
