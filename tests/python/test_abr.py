"""TCP over ABR through the Python API: the ABR summary fields and series, and the source
queue of Kalyanaraman et al. 1996 (Table 1, row 4) on a short horizon."""

from __future__ import annotations

import atmsim

SHORT = {"run.duration": "0.6 s", "run.warmup": "0.3 s"}


def test_tcp_over_abr_reports_acr_source_queues_and_erica_series() -> None:
    res = atmsim.run("kalyanaraman1996-table1", overrides=SHORT)
    s = res.summary
    conns = s["connections"]
    assert len(conns) == 15
    for c in conns:
        assert c["service"] == "abr"
        # ERICA's fair share of 0.9 x 155.52 Mb/s is 9.3 Mb/s a source; the load factor may
        # settle up to 1 + delta above it.
        assert 8.0 < c["acr_mbps"] < 11.0, c
        assert c["cells_lost_at_source"] == 0
        assert c["rm_cells_sent"] > 0
        # The window (24,576 cells) builds up at the source, not in the network.
        assert c["source_queue_max_cells"] > 1000
    assert s["totals"]["cells_dropped"] == 0
    ab = next(p for p in s["ports"] if p["name"] == "A->B")
    assert ab["rate_control"] == "erica"
    df = res.series
    kinds = set(df["kind"])
    assert {"abr", "erica"} <= kinds
    erica = df[(df["kind"] == "erica") & (df["entity"] == "A->B")]
    assert set(erica["metric"]) >= {"load_factor", "active_vcs", "fair_share_mbps"}
    n = erica[erica["metric"] == "active_vcs"]["value"]
    assert n.iloc[-1] > 14.0


def test_a_small_source_buffer_loses_cells_at_the_source_not_in_the_switch() -> None:
    res = atmsim.run(
        "kalyanaraman1996-table1", overrides={**SHORT, "abr.source_buffer": "100 cells"}
    )
    conns = res.summary["connections"]
    assert all(c["source_queue_max_cells"] == 100 for c in conns)
    assert sum(c["cells_lost_at_source"] for c in conns) > 0
    ab = next(p for p in res.summary["ports"] if p["name"] == "A->B")
    assert ab["cells_dropped"] == 0
