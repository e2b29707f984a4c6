"""Today's TCP on the ATM networks, through the Python API: CUBIC (``tcp.congestion_control``)
and ECN (``tcp.ecn`` with a switch's ``efci_threshold``), checked by what they change in the
summary and the per-connection series (docs/scenarios.md)."""

from __future__ import annotations

import pytest

import atmsim

#: One SACK TCP h1 -> A -> r1 over a 10 Mb/s bottleneck, a 100 ms round trip, an EPD port
#: of 1,000 cells (threshold 800); ``{extra}`` adds keys to ``[tcp]``.
ONE = """name = "one"
[run]
duration = "8 s"
warmup = "0 s"
sample_every = "10 ms"
[tcp]
variant = "sack"
mss = "1000 B"
max_window = "1 MiB"
min_rto = "200 ms"
initial_ssthresh = "100000 B"
{extra}
[[switch]]
name = "A"
port_buffer = "1000 cells"
policy = {{ kind = "epd", threshold = 0.8 }}
{switch}
[[link]]
between = ["h1", "A"]
rate = "155.52 Mb/s"
delay = "25 ms"
[[link]]
between = ["A", "r1"]
rate = "10 Mb/s"
delay = "25 ms"
[[connection]]
name = "s1"
from = "h1"
to = "r1"
via = ["A"]
"""


def _run(tmp_path, extra: str = "", switch: str = ""):
    path = tmp_path / "s.toml"
    path.write_text(ONE.format(extra=extra, switch=switch))
    return atmsim.run(str(path))


def test_ecn_counters_appear_with_ecn_and_the_marks_replace_the_losses(tmp_path) -> None:
    marking = 'efci_threshold = "100 cells"'
    on = _run(tmp_path, "ecn = true", marking).summary
    c = on["connections"][0]
    assert c["ecn_window_reductions"] >= 1
    assert c["ecn_ce_frames"] >= c["ecn_window_reductions"]
    # The echoes of one window make one reduction.
    assert c["ecn_ece_acks"] > c["ecn_window_reductions"]
    assert c["fast_retransmits"] == c["timeouts"] == c["cells_dropped"] == 0
    port = next(p for p in on["ports"] if p["name"] == "A->r1")
    assert port["efci_marked"] > 0
    off = _run(tmp_path, "", marking).summary
    c = off["connections"][0]
    assert "ecn_ce_frames" not in c and "ecn_window_reductions" not in c
    assert c["fast_retransmits"] + c["timeouts"] > 0
    plain = _run(tmp_path).summary
    assert "efci_marked" not in next(p for p in plain["ports"] if p["name"] == "A->r1")


def test_cubic_reduces_by_beta_where_reno_halves(tmp_path) -> None:
    # The window just after the first loss response, from the cwnd series: CUBIC keeps
    # 0.7 of the window at the loss, Reno's control half (SACK's recovery: cwnd = ssthresh).
    def after_first_loss(extra: str) -> float:
        res = _run(tmp_path, extra)
        cwnd = res.wide("cwnd_bytes", kind="connection").iloc[:, 0].to_numpy()
        drops = [i for i in range(1, len(cwnd)) if cwnd[i] < 0.8 * cwnd[i - 1]]
        assert drops, "a loss response"
        i = drops[0]
        return cwnd[i] / max(cwnd[i - 3 : i])

    assert after_first_loss('congestion_control = "cubic"') == pytest.approx(0.7, abs=0.05)
    assert after_first_loss('congestion_control = "reno"') == pytest.approx(0.5, abs=0.05)


def test_red_marks_instead_of_dropping_with_ecn_mark(tmp_path) -> None:
    """RED with ``ecn_mark``: the frames its random rule chooses are admitted marked, so an
    ECN TCP reduces its window without a loss where the same RED without marking drops
    (RFC 3168 section 7). w_q = 0.02: the average follows a 100 ms round trip's queue."""
    red = 'kind = "red", min_th = 0.1, max_th = 0.6, w_q = 0.02, packet_size = "22 cells"'

    def run(mark: bool):
        policy = red + (", ecn_mark = true" if mark else "")
        text = ONE.replace('kind = "epd", threshold = 0.8', policy)
        path = tmp_path / f"red-{mark}.toml"
        path.write_text(text.format(extra="ecn = true", switch=""))
        return atmsim.run(str(path)).summary

    marked, dropped = run(True), run(False)
    port = next(p for p in marked["ports"] if p["name"] == "A->r1")
    c = marked["connections"][0]
    assert port["efci_marked"] > 0
    assert c["ecn_window_reductions"] >= 1
    assert c["ecn_ce_frames"] > 0
    assert port["drops_by_reason"]["early_discard"] == 0
    plain = next(p for p in dropped["ports"] if p["name"] == "A->r1")
    assert "efci_marked" not in plain
    assert plain["drops_by_reason"]["early_discard"] > 0
    assert dropped["connections"][0]["fast_retransmits"] > c["fast_retransmits"]
