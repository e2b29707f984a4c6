"""Two options of issue 36 run on small scenarios: the ABR destination's CI rule
(``abr.destination_ci``) and exponential host CPU times (``host.processing_distribution``),
each checked by what it changes in the run (docs/scenarios.md)."""

from __future__ import annotations

import pytest

import atmsim

#: One TCP from h1 to h2 through one switch; the hosts' CPU (1 ms a packet, for the data
#: segment or ACK sent or received) is the bottleneck, and the window holds two segments.
CPU_BOUND = """name = "cpu-bound"
[run]
duration = "3 s"
warmup = "0.5 s"
[tcp]
variant = "tahoe"
mss = "9180 B"
max_window = "18360 B"
[host]
processing_delay = "1 ms"
[[switch]]
name = "S"
[[link]]
between = ["h1", "S"]
rate = "155.52 Mb/s"
[[link]]
between = ["S", "h2"]
rate = "155.52 Mb/s"
[[connection]]
name = "c"
from = "h1"
to = "h2"
via = ["S"]
"""


def _run_text(tmp_path, text: str, **kw):
    path = tmp_path / "s.toml"
    path.write_text(text)
    return atmsim.run(str(path), **kw)


def test_exponential_cpu_times_make_a_cpu_bound_tcp_slower_and_seed_dependent(tmp_path) -> None:
    # With fixed CPU times the two hosts' CPUs (each 2 ms of work a segment: the data and its
    # ACK) pipeline the two segments of the window, one segment per 2 ms. With exponential
    # times of the same mean the two CPUs wait on each other (a closed queue of two stations
    # and two customers: 2/3 of the rate for exponential service), so the goodput falls, and
    # it depends on the host's random stream (the seed), which fixed times never draw from.
    fixed = _run_text(tmp_path, CPU_BOUND).summary
    exp = {"host.processing_distribution": "exponential"}
    e1 = _run_text(tmp_path, CPU_BOUND, overrides=exp).summary
    e2 = _run_text(tmp_path, CPU_BOUND, overrides=exp, seed=2).summary
    g = fixed["connections"][0]["goodput_mbps"]
    # one 9,180-byte segment a 2 ms: 36.7 Mb/s
    assert g == pytest.approx(9180 * 8 / 2e-3 / 1e6, rel=0.02)
    for e in (e1, e2):
        assert e["connections"][0]["goodput_mbps"] < 0.85 * g, (e, g)
        assert e["connections"][0]["goodput_mbps"] > 0.5 * g, (e, g)
    assert e1["fingerprint"] != e2["fingerprint"]
    fixed2 = _run_text(tmp_path, CPU_BOUND, seed=2).summary
    assert fixed2["fingerprint"] == fixed["fingerprint"]


def test_an_exponential_cpu_time_with_a_jitter_is_refused_naming_the_field(tmp_path) -> None:
    with pytest.raises(atmsim.ScenarioError) as e:
        _run_text(
            tmp_path,
            CPU_BOUND,
            overrides={
                "host.processing_distribution": "exponential",
                "host.processing_jitter": "50 us",
            },
        )
    assert "host.processing_jitter" in str(e.value)


#: EFCI on An 1997's 1,500-cell network, short.
EFCI = {
    "run.duration": "0.9 s",
    "switch.*.rate_control": {"kind": "efci"},
    "abr.rif": "0.1",
    "abr.rdf": "0.0625",
}


def test_any_efci_since_the_rm_cell_sets_ci_more_often_than_the_last_cells() -> None:
    # TM 4.0's rule (the default) sets CI from the last data cell before each forward RM cell;
    # with "any_since_rm" a marked cell anywhere in the RM cell's group sets it. The switches
    # mark while their ABR queue is long, so some groups have marked cells and an unmarked
    # last one: the share of RM cells turned round with CI set rises.
    def shares(extra):
        s = atmsim.run("an1997-n2-buffer1500", overrides={**EFCI, **extra}).summary
        data = [c for c in s["connections"] if c.get("rm_cells_turned_ci") is not None]
        assert data
        for c in data:
            assert 0 <= c["rm_cells_turned_ci"] <= c["rm_cells_turned"], c
        return sum(c["rm_cells_turned_ci"] for c in data) / sum(
            c["rm_cells_turned"] for c in data
        ), s["fingerprint"]

    last, f_last = shares({})
    same, f_same = shares({"abr.destination_ci": "last_cell"})
    anyc, f_any = shares({"abr.destination_ci": "any_since_rm"})
    assert f_same == f_last, "last_cell is the default"
    assert last > 0, "the switches mark"
    assert anyc > last, (anyc, last)
    assert f_any != f_last


def test_a_bad_destination_ci_rule_names_the_field_and_the_words() -> None:
    with pytest.raises(atmsim.ScenarioError) as e:
        atmsim.run("an1997-n2-buffer1500", overrides={**EFCI, "abr.destination_ci": "first_cell"})
    assert "abr.destination_ci" in str(e.value)
    assert "any_since_rm" in str(e.value)
