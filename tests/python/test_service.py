"""Service categories, traffic descriptors, cell sources, schedulers and per-port settings:
a VBR source under strict priority beside TCPs, and bad input for every new key refused with
the field named (ScenarioError in Python, exit 2 on the command line)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import atmsim
from atmsim import scenarios
from conftest import run_cli

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

VBR = "vbr-priority-5tcp"
OC3_CELL_US = 424 / 155.52


def test_vbr_under_strict_priority_loses_nothing_and_tcps_share_the_rest() -> None:
    res = atmsim.run(VBR, overrides={"run.duration": "1 s", "run.warmup": "0.2 s"})
    conns = res.connections
    vbr = conns.loc["vbr"]
    assert (vbr["service"], vbr["source"]) == ("vbr", "on_off")
    assert vbr["cells_sent"] > 50_000
    assert vbr["cells_dropped"] == 0
    # Three links of one cell time each plus 1 ms + 2 x 10 us of propagation, and at most
    # one cell time waiting at A->B for a cell already on the wire.
    base = 3 * OC3_CELL_US + 1020.0
    assert base - 1e-6 <= vbr["cell_delay_mean_us"] <= vbr["cell_delay_max_us"]
    assert vbr["cell_delay_max_us"] <= base + OC3_CELL_US + 1e-6
    tcps = conns[conns["source"] == "tcp"]
    assert len(tcps) == 5 and (tcps["goodput_mbps"] > 0).all()
    assert res.summary["totals"]["goodput_mbps"] == pytest.approx(tcps["goodput_mbps"].sum())
    # The series of a cell source are named like a connection's.
    metrics = set(res.series[res.series["entity"] == "vbr"]["metric"])
    assert {"throughput_mbps", "cells_sent", "cells_dropped"} <= metrics


def _vbr_dict() -> dict:
    return tomllib.loads(scenarios.text(VBR))


@pytest.mark.parametrize(
    ("overrides", "field", "needle"),
    [
        ({"connection.vbr.service": "xbr"}, "connection[0].service", "ubr"),
        (
            {"connection.s1.service": "abr", "connection.s1.abr.rdf": "2"},
            "connection[1].abr.rdf",
            "allowed 0 < rdf <= 1",
        ),
        ({"connection.s1.service": "abr", "abr.nrm": "3"}, "abr.nrm", "2, 4, 8, ..., 256"),
        (
            {"connection.s1.service": "abr", "connection.s1.mcr": "200 Mb/s"},
            "connection[1].mcr",
            "is above the PCR",
        ),
        (
            {"connection.s1.service": "abr", "abr.icr": "1 Gb/s"},
            "abr.icr",
            "outside [MCR, PCR]",
        ),
        ({"connection.s1.abr.nrm": "16"}, "connection[1].abr", "only to a connection of the ABR"),
        (
            {"switch.A.rate_control": '{ kind = "erica", target_utilization = 1.5 }'},
            "switch[0].rate_control.target_utilization",
            "0 < target_utilization <= 1",
        ),
        (
            {"switch.A.rate_control": '{ kind = "erica_plus", qdlf = 0 }'},
            "switch[0].rate_control.qdlf",
            "0 < qdlf <= 1",
        ),
        (
            {"switch.A.rate_control": '{ kind = "efci", high = "100 cells", low = "200 cells" }'},
            "switch[0].rate_control.low",
            "allowed low <= high",
        ),
        ({"host.aal_overhead": "4 B"}, "host.aal_overhead", "AAL5's trailer"),
        ({"tcp.out_of_order": "drop"}, "tcp.out_of_order", "`keep` or `discard`"),
        ({"tcp.ack_clock": "bsd"}, "tcp.ack_clock", "`periodic`, `periodic_per_host`"),
        (
            {"switch.A.rate_control": '{ kind = "erica", ccr = "acr" }'},
            "switch[0].rate_control",
            "`rm_cell` or `measured`",
        ),
        ({"link.A-B.framing": "atm"}, "link[0].framing", "`none` or `sonet`"),
        (
            {"host.processing_delay": "100 us", "host.processing_jitter": "200 us"},
            "host.processing_jitter",
            "processing_jitter <= processing_delay",
        ),
        (
            {"switch.A.rate_control": '{ kind = "efci", high = "0 cells" }'},
            "switch[0].rate_control.high",
            "at least 1 cell",
        ),
        (
            {"switch.A.rate_control": '{ kind = "erica", interval_cell = 5 }'},
            "switch[0].rate_control",
            "interval_cells",
        ),
        ({"connection.vbr.pcr": "fast"}, "connection[0].pcr", "Mb/s"),
        ({"connection.s1.scr": "10 Mb/s"}, "connection[1].scr", "not a parameter of the ubr"),
        (
            {
                "connection.s1.service": "gfr",
                "connection.s1.pcr": "10 Mb/s",
                "connection.s1.mcr": "20 Mb/s",
            },
            "connection[1].mcr",
            "must not exceed pcr",
        ),
        (
            {"connection.s1.service": "gfr", "connection.s1.mfs": "0 cells"},
            "connection[1].mfs",
            "at least 1 cell",
        ),
        ({"connection.vbr.source": '{ kind = "bursty" }'}, "connection[0].source", "on_off"),
        (
            {
                "connection.vbr.source": '{ kind = "on_off", period = "10 ms", '
                'duty_cycle = 0.5, durations = "poisson" }'
            },
            "connection[0].source",
            "`fixed` or `exponential`",
        ),
        (
            {"switch.A.rate_control": '{ kind = "efci", mark = "exit" }'},
            "switch[0].rate_control",
            "`arrival` or `departure`",
        ),
        (
            {"connection.vbr.source": '{ kind = "on_off", period = "10 ms" }'},
            "connection[0].source",
            "duty_cycle",
        ),
        (
            {"connection.vbr.source": '{ kind = "on_off", period = "10 ms", duty_cycle = 1.5 }'},
            "connection[0].source.duty_cycle",
            "share of the period",
        ),
        (
            {"connection.vbr.source": '{ kind = "cbr", rate = "150 Mb/s" }'},
            "connection[0].source.rate",
            "above the VC's pcr",
        ),
        (
            {
                "connection.vbr.source": (
                    '{ kind = "on_off", period = "1 ms", duty_cycle = 0.5, burst = 3 }'
                )
            },
            "connection[0].source",
            "burst",
        ),
        ({"connection.vbr.tcp.mss": "1000 B"}, "connection[0].tcp", "only to a TCP source"),
        ({"connection.s1.source": "cbr"}, "connection[1].source.rate", "give the source's rate"),
        ({"switch.A.scheduler": "lifo"}, "switch[0].scheduler", "round_robin"),
        (
            {"switch.A.scheduler": '{ kind = "priority", ubr = "fifo" }'},
            "switch[0].scheduler",
            "ubr_gfr",
        ),
        (
            {"switch.A.scheduler": '{ kind = "priority", abr = "lifo" }'},
            "switch[0].scheduler",
            "round_robin",
        ),
        (
            {"switch.A.ports.nowhere.policy": '{ kind = "cell_drop" }'},
            "switch[0].ports.nowhere",
            "has no link to nowhere",
        ),
        ({"switch.A.ports.B.buffer": "10 cells"}, "switch[0].ports.B", "buffer"),
        (
            {"switch.A.ports.B.policy": '{ kind = "epd", threshold = 0.5, compare = "over" }'},
            "switch[0].ports.B.policy",
            "at_or_above",
        ),
        (
            {"switch.A.ports.B.policy": '{ kind = "epd", threshold = 2 }'},
            "switch[0].ports.B.policy.threshold",
            "allowed 0 < threshold <= 1",
        ),
        ({"switch.A.ports.B.port_buffer": "0 cells"}, "switch[0].ports.B.port_buffer", "0 cells"),
    ],
)
def test_bad_service_source_and_scheduler_keys_name_the_field(
    overrides: dict, field: str, needle: str
) -> None:
    with pytest.raises(atmsim.ScenarioError) as err:
        atmsim.validate(VBR, overrides=overrides)
    message = str(err.value)
    assert field in message, message
    assert needle in message, message


def test_cbr_and_vbr_need_a_peak_cell_rate() -> None:
    d = _vbr_dict()
    del d["connection"][0]["pcr"]
    with pytest.raises(atmsim.ScenarioError, match=r"connection\[0\]\.pcr: a vbr VC needs"):
        atmsim.validate(d)


def test_per_port_settings_apply_to_one_port_only() -> None:
    canon = atmsim.validate(VBR, overrides={"switch.A.ports.B.port_buffer": "500 cells"})
    assert 'ports = { B = { port_buffer = "500 cells" } }' in canon
    res = atmsim.run(
        VBR,
        overrides={
            "run.duration": "0.3 s",
            "run.warmup": "0 s",
            "switch.A.ports.B.port_buffer": "500 cells",
        },
    )
    ports = res.ports
    assert ports.loc["A->B", "max_queue_cells"] <= 500 + 1  # the UBR queue, plus one VBR cell


def test_credits_on_a_fifo_port_are_refused_before_running() -> None:
    proc = run_cli("validate", "fang1994-an2", "--set", "switch.*.scheduler=fifo")
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert "switch[0].scheduler" in proc.stderr and "per-VC queues" in proc.stderr


def test_credits_hold_best_effort_vcs_only_not_the_priority_vbr_source() -> None:
    """AN2 credits flow-control best-effort traffic; a VBR VC (served first, FIFO in its
    class) is not credited: it is accepted on credit links and sends at its own rate, while
    the TCPs' per-VC queues run on credits and lose nothing."""
    over = {
        "run.duration": "0.6 s",
        "run.warmup": "0.1 s",
        "switch.*.scheduler": {"kind": "priority", "cbr_vbr": "fifo", "abr": "round_robin",
                               "ubr_gfr": "round_robin"},
        "switch.*.vc_buffer": "40 cells",
        "link.*.credits": "40 cells",
    }  # fmt: skip
    res = atmsim.run(VBR, overrides=over)
    free = atmsim.run(VBR, overrides={**over, "link.*.credits": "off"})
    vbr, vbr_free = res.connections.loc["vbr"], free.connections.loc["vbr"]
    # The VBR source sends as it would without credits: the same cells, none lost.
    assert vbr["cells_delivered"] == vbr_free["cells_delivered"] > 10_000
    assert vbr["cells_dropped"] == 0
    # The TCPs are credited: no switch loses a cell of theirs.
    assert res.totals["cells_dropped"] == 0
    assert free.totals["cells_dropped"] > 0


def test_the_old_queueing_key_points_at_scheduler() -> None:
    with pytest.raises(atmsim.ScenarioError, match=r"unknown field `queueing`.*`scheduler`"):
        atmsim.validate("fang1994-cell-drop", overrides={"switch.*.queueing": "fifo"})


@pytest.mark.parametrize(
    ("key", "field"),
    [
        ("switch.A.rate_control={ kind = 'erica_plus', a = 0.5 }", "switch[0].rate_control.a"),
        ("switch.A.rate_control={ kind = 'erica', delta = -1 }", "switch[0].rate_control.delta"),
        ("switch.A.scheduler=lifo", "switch[0].scheduler"),
        ("connection.vbr.source={ kind = 'bursty' }", "connection[0].source"),
        ("connection.s1.mfs=10 cells", "connection[1].mfs"),
    ],
)
def test_new_keys_exit_2_on_the_command_line(key: str, field: str) -> None:
    proc = run_cli("validate", VBR, "--set", key)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("atmsim: error: ") and field in proc.stderr, proc.stderr


@pytest.mark.parametrize(
    ("key", "field", "needle"),
    [
        ("abr.rdf=1.5", "abr.rdf", "allowed 0 < rdf <= 1"),
        ("abr.nrm=1", "abr.nrm", "2, 4, 8, ..., 256"),
        ("abr.source_buffer=0 cells", "abr.source_buffer", "0 cells"),
        ("connection.s3.mcr=200 Mb/s", "connection[2].mcr", "must not exceed pcr"),
        ("abr.icr=fast", "abr.icr", '"pcr"'),
    ],
)
def test_bad_abr_parameters_exit_2_naming_the_field(key: str, field: str, needle: str) -> None:
    proc = run_cli("validate", "kalyanaraman1996-table1", "--set", key)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert field in proc.stderr and needle in proc.stderr, proc.stderr


def test_exponential_on_off_periods_keep_their_means_and_follow_the_seed() -> None:
    """`durations = "exponential"`: ON and OFF periods drawn with the stated means, so the
    source sends about as much as the fixed one over many periods, but not the same cells;
    the seed sets the draws (the same seed, the same run)."""
    src = '{ kind = "on_off", period = "20 ms", duty_cycle = 0.5, durations = "exponential" }'
    ov = {"run.duration": "4 s", "run.warmup": "0 s", "run.sample_every": "1 ms"}
    fixed = atmsim.run(VBR, overrides=ov).connections.loc["vbr", "cells_sent"]
    runs = [
        atmsim.run(VBR, seed=seed, overrides={**ov, "connection.vbr.source": src})
        for seed in (1, 1, 2)
    ]
    sent = [r.connections.loc["vbr", "cells_sent"] for r in runs]
    assert sent[0] == sent[1] and runs[0].summary["fingerprint"] == runs[1].summary["fingerprint"]
    assert sent[0] != sent[2]
    # About 200 ON periods of mean 10 ms: the share ON is within a few points of a half
    # (sd about 3.5 points), here within 15% of the fixed source's cells.
    for n in (sent[0], sent[2]):
        assert abs(n / fixed - 1) < 0.15, (n, fixed)
    # The ON spells vary: measured on the 1 ms throughput series, some last well over
    # the fixed 10 ms and some far less.
    tput = runs[0].wide("throughput_mbps", "connection")["vbr"].to_numpy()
    on = tput > 1.0
    edges = np.flatnonzero(np.diff(on.astype(int)))
    spells = np.diff(edges)[on[edges[:-1] + 1]]
    assert spells.max() >= 25 and spells.min() <= 4, (spells.min(), spells.max())
