"""Two options run on small scenarios: the ABR destination's CI rule
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
    # ACK) pipeline the two segments of the window. With exponential times of the same mean
    # the two CPUs wait on each other (a closed queue of two stations and two customers), so
    # the round trip grows and the goodput falls, and the run depends on the host's random
    # stream (the seed), which fixed times never draw from.
    fixed = _run_text(tmp_path, CPU_BOUND).summary
    exp = {"host.processing_distribution": "exponential"}
    e1 = _run_text(tmp_path, CPU_BOUND, overrides=exp).summary
    e2 = _run_text(tmp_path, CPU_BOUND, overrides=exp, seed=2).summary
    g = fixed["connections"][0]["goodput_mbps"]
    for run in (fixed, e1, e2):
        c = run["connections"][0]
        # window-bound: two segments a round trip
        assert c["goodput_mbps"] == pytest.approx(2 * 9180 * 8 / c["mean_rtt_ms"] / 1e3, rel=0.02)
    for e in (e1, e2):
        c = e["connections"][0]
        assert 0.5 * g < c["goodput_mbps"] < 0.85 * g, (c, g)
        assert c["mean_rtt_ms"] > fixed["connections"][0]["mean_rtt_ms"]
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
    # with "any_since_rm" a marked cell anywhere in the RM cell's group sets it. With the
    # sources' rates pinned at PCR (MCR = ICR = PCR) CI changes nothing else: the two runs are
    # the same event for event, and the RM cells turned round with CI set are more under
    # "any_since_rm" (groups whose marking stopped before their last cell).
    pinned = {
        **EFCI,
        "abr.icr": "pcr",
        "connection.s1.mcr": "155.52 Mb/s",
        "connection.s2.mcr": "155.52 Mb/s",
    }

    def abr(extra):
        s = atmsim.run("an1997-n2-buffer1500", overrides=extra).summary
        data = {c["name"]: c for c in s["connections"] if c.get("rm_cells_turned") is not None}
        assert set(data) == {"s1", "s2"}
        for c in data.values():
            assert 0 <= c["rm_cells_turned_ci"] <= c["rm_cells_turned"], c
        return data, s["fingerprint"]

    last, f_last = abr(pinned)
    same, f_same = abr({**pinned, "abr.destination_ci": "last_cell"})
    anyc, f_any = abr({**pinned, "abr.destination_ci": "any_since_rm"})
    assert same == last and f_same == f_last, "last_cell is the default"
    assert f_any == f_last, "CI moves no rate here"
    for name, c in anyc.items():
        assert c["rm_cells_turned"] == last[name]["rm_cells_turned"]
        assert c["rm_cells_turned_ci"] > last[name]["rm_cells_turned_ci"] > 0, name
    # With the rates free the CI bits cut them, and the runs part.
    _, free_last = abr(EFCI)
    _, free_any = abr({**EFCI, "abr.destination_ci": "any_since_rm"})
    assert free_any != free_last


def test_a_bad_destination_ci_rule_names_the_field_and_the_words() -> None:
    with pytest.raises(atmsim.ScenarioError) as e:
        atmsim.run("an1997-n2-buffer1500", overrides={**EFCI, "abr.destination_ci": "first_cell"})
    assert "abr.destination_ci" in str(e.value)
    assert "any_since_rm" in str(e.value)
