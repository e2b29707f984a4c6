"""TCP over ABR through the Python API: the ABR summary fields and series, and the source
queue of Kalyanaraman et al. 1996 (Table 1, row 4) on a short horizon."""

from __future__ import annotations

import pytest

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
    # ERICA at A->B lowers the ER of the backward RM cells of the data VCs (their PCR is the
    # link rate, their share a fifteenth of it); every forward RM cell that arrives is
    # turned round, so turned <= sent, and most are.
    assert ab["rm_cells_marked"] > 0
    for c in conns:
        assert 0.9 * c["rm_cells_sent"] <= c["rm_cells_turned"] <= c["rm_cells_sent"], c
    df = res.series
    kinds = set(df["kind"])
    assert {"abr", "rate_control"} <= kinds
    erica = df[(df["kind"] == "rate_control") & (df["entity"] == "A->B")]
    assert set(erica["metric"]) >= {"load_factor", "active_vcs", "fair_rate_mbps"}
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


def test_a_source_that_drops_whole_frames_leaves_no_frame_corrupted() -> None:
    # 100-cell source queues overflow within the first round trips. Losing single cells, some
    # frames lose their last cells and reach the receiver merged with the next one (corrupted);
    # losing whole frames, every frame that enters the queue arrives whole, and a frame's
    # cells are lost together (a multiple of its 12 cells a source).
    over = {**SHORT, "run.warmup": "0 s", "abr.source_buffer": "100 cells"}
    by_cell = atmsim.run("kalyanaraman1996-table1", overrides=over).summary
    by_frame = atmsim.run(
        "kalyanaraman1996-table1", overrides={**over, "abr.source_drop": "frames"}
    ).summary
    assert sum(c["frames_corrupted"] for c in by_cell["connections"]) > 0
    assert sum(c["frames_corrupted"] for c in by_frame["connections"]) == 0
    lost = [c["cells_lost_at_source"] for c in by_frame["connections"]]
    assert sum(lost) > 0
    assert all(n % 12 == 0 for n in lost), lost
    for s in (by_cell, by_frame):
        t = s["totals"]
        assert t["cells_sent"] == t["cells_delivered"] + t["cells_dropped"] + t["cells_in_flight"]


def test_an_access_line_feeds_the_edge_routers_source_queue_at_its_rate() -> None:
    # Kalyanaraman et al. 1996's edge router: the source queue fed by the TCP host over an
    # access line. A slow line (7.776 Mb/s: a twentieth of the PCR, below ERICA's share of
    # 9.3 Mb/s) brings each window's cells one line cell time apart, and the source, sending
    # at ACR, takes each cell as it comes: the queue that holds a third of a window without
    # the line holds a cell or two, and each source's goodput is the line's payload rate.
    direct = atmsim.run("kalyanaraman1996-table1", overrides=SHORT).summary["connections"]
    res = atmsim.run(
        "kalyanaraman1996-table1", overrides={**SHORT, "abr.access_rate": "7.776 Mb/s"}
    )
    conns = res.summary["connections"]
    tcp_mbps = 7.776 * 48 / 53 * 512 / 568
    for d, c in zip(direct, conns, strict=True):
        assert d["source_queue_max_cells"] > 1000, d
        assert c["source_queue_max_cells"] <= 2, c
        assert 0.95 * tcp_mbps < c["goodput_mbps"] < tcp_mbps, c
        assert c["cells_lost_at_source"] == 0 and c["source_overflows"] == 0
    # A small source queue fed over a line at the PCR still overflows, in episodes.
    res = atmsim.run(
        "kalyanaraman1996-table1",
        overrides={**SHORT, "abr.access_rate": "155.52 Mb/s", "abr.source_buffer": "100 cells"},
    )
    conns = res.summary["connections"]
    assert all(c["source_queue_max_cells"] == 100 for c in conns)
    assert all(1 <= c["source_overflows"] for c in conns)
    assert sum(c["source_overflows"] for c in conns) < sum(c["cells_lost_at_source"] for c in conns)


def test_access_rate_errors_name_the_field(cli) -> None:
    r = cli("validate", "kalyanaraman1996-table1", "--set", "abr.access_rate=fast")
    assert r.returncode != 0
    assert "abr.access_rate" in r.stderr and '"off" or a rate' in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize(
    ("key", "field", "needle"),
    [
        ("tcp.window_scale=0", "tcp.window_scale", "advertises at most 65535 B"),
        ("tcp.window_scale=3", "tcp.window_scale", "advertises at most 524280 B"),
        ("tcp.window_scale=15", "tcp.window_scale", "at most 14"),
        ("tcp.window_scale=big", "tcp.window_scale", '"auto"'),
        ("tcp.max_window=2 GiB", "tcp.max_window", "65,535 x 2^14"),
    ],
)
def test_windows_beyond_64_kb_need_window_scaling(cli, key: str, field: str, needle: str) -> None:
    """RFC 7323: the window field is 16 bits in units of 2^shift bytes. The 1024 KB window
    of Kalyanaraman et al. needs a shift of at least 5 ("auto" picks it); a fixed shift
    too small for the window, or one above 14, is refused naming the field."""
    proc = cli("validate", "kalyanaraman1996-table1", "--set", key)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert field in proc.stderr and needle in proc.stderr, proc.stderr


def test_window_scaling_rounds_the_window_to_its_unit() -> None:
    # A shift of 5 advertises in units of 32 B: 1,048,576 B is a multiple; the run is the
    # same as with "auto" (which picks 5), event for event.
    a = atmsim.run("kalyanaraman1996-table1", overrides={**SHORT, "tcp.window_scale": "5"})
    b = atmsim.run("kalyanaraman1996-table1", overrides=SHORT)
    assert a.summary["fingerprint"] == b.summary["fingerprint"]


def test_host_processing_jitter_is_seeded_and_moves_the_run() -> None:
    """A uniform CPU time per packet (An 1997: 200 us +- 50 us) draws from each host's own
    stream: the same seed gives the same run, another seed another one, and no jitter leaves
    the run as without the key."""
    ov = {**SHORT, "host.processing_delay": "200 us"}
    jit = {**ov, "host.processing_jitter": "50 us"}
    a = atmsim.run("kalyanaraman1996-table1", overrides=jit, seed=1)
    b = atmsim.run("kalyanaraman1996-table1", overrides=jit, seed=1)
    c = atmsim.run("kalyanaraman1996-table1", overrides=jit, seed=2)
    d = atmsim.run("kalyanaraman1996-table1", overrides=ov, seed=1)
    e = atmsim.run("kalyanaraman1996-table1", overrides=ov, seed=2)
    assert a.summary["fingerprint"] == b.summary["fingerprint"]
    assert a.summary["fingerprint"] != c.summary["fingerprint"]
    assert a.summary["fingerprint"] != d.summary["fingerprint"]
    # Without jitter nothing random is drawn (start jitter is 0 here): the seed changes nothing.
    assert d.summary["fingerprint"] == e.summary["fingerprint"]


def test_tcp_over_abr_at_nrm_2_is_warned_about_and_stalls() -> None:
    """Nrm = 2 is valid (TM 4.0 allows 2 to 256) but leaves TCP over ABR no data cell once
    both VCs' RM cells circulate (docs/scenarios.md, "Small Nrm starves TCP over ABR"):
    validation warns, naming the field, and a run (Table 1's 2 s, statistics from 1 s) shows
    why: no goodput, and half of every connection's cells forward RM cells."""
    small = {"abr.nrm": 2, "abr.mrm": 1}
    with pytest.warns(atmsim.ScenarioWarning, match=r"kalyanaraman1996-table1\.toml: abr\.nrm: 2"):
        atmsim.validate("kalyanaraman1996-table1", overrides=small)
    with pytest.warns(atmsim.ScenarioWarning):
        res = atmsim.run("kalyanaraman1996-table1", overrides=small)
    t = res.totals
    assert t["goodput_mbps"] == 0.0 and t["fairness_index"] is None
    for c in res.summary["connections"]:
        # cells_sent: both VCs' cells; rm_cells_sent: the data VC's forward RM cells over the
        # whole run, one in two of its cells.
        assert c["rm_cells_sent"] >= 0.45 * c["cells_sent"], c


def test_nrm_4_and_abr_cell_sources_are_not_warned_about(recwarn: pytest.WarningsRecorder) -> None:
    atmsim.validate("kalyanaraman1996-table1", overrides={"abr.nrm": 4})
    greedy = {
        "name": "abr-cells",
        "abr": {"nrm": 2, "mrm": 1},
        "switch": [{"name": "A"}],
        "link": [
            {"between": ["h1", "A"], "rate": "155.52 Mb/s"},
            {"between": ["A", "h2"], "rate": "155.52 Mb/s"},
        ],
        "connection": [
            {"name": "s1", "from": "h1", "to": "h2", "via": ["A"], "service": "abr",
             "source": "greedy"}
        ],
    }  # fmt: skip
    atmsim.validate(greedy)
    assert not [w for w in recwarn if issubclass(w.category, atmsim.ScenarioWarning)]


def test_the_cli_prints_a_scenario_warning_on_one_line_and_goes_on(cli) -> None:
    proc = cli("validate", "kalyanaraman1996-table1", "--set", "abr.nrm=2", "--set", "abr.mrm=1")
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert lines and lines[0].startswith(
        "atmsim: warning: kalyanaraman1996-table1.toml: abr.nrm: 2 starves 15 TCP connections"
    ), proc.stderr
    assert "Traceback" not in proc.stderr
