"""Packet traces (pcap-ng) and cell traces (docs/traces.md), read back with dpkt and pyarrow
and held against the run's own counters."""

from __future__ import annotations

import os
import shutil
import socket
import struct
import subprocess
import warnings
from pathlib import Path

import pytest

import atmsim
from atmsim.cli import main

dpkt = pytest.importorskip("dpkt")
pq = pytest.importorskip("pyarrow.parquet")

SCENARIO = "fang1994-cell-drop"
# Six 1 MB transfers that finish well inside the run, so every packet sent is received or
# lost by the end and the counters and the files describe the same packets.
QUIET_END = {
    "run.warmup": "0 s",
    "run.duration": "1.5 s",
    "connection.*.app": '{ bytes = "1 MB" }',
}


def read_pcapng(path: Path) -> list[dict]:
    """Every packet of a pcap-ng file: time, IP and TCP headers, original length, comment."""
    with open(path, "rb") as f:
        stamps = [ts for ts, _ in dpkt.pcapng.Reader(f)]
    raw = path.read_bytes()
    out, at = [], 0
    while at < len(raw):
        kind, size = struct.unpack_from("<II", raw, at)
        block = raw[at : at + size]
        at += size
        if kind != dpkt.pcapng.PCAPNG_BT_EPB:
            continue
        epb = dpkt.pcapng.EnhancedPacketBlockLE(block)
        comment = next((o.text for o in epb.opts if o.code == dpkt.pcapng.PCAPNG_OPT_COMMENT), None)
        ip = dpkt.ip.IP(epb.pkt_data)
        out.append(
            {
                "ts": stamps[len(out)],
                "data": epb.pkt_data,
                "orig_len": epb.pkt_len,
                "comment": comment,
                "ip": ip,
                "tcp": ip.data,
            }
        )
    return out


def payload_len(p: dict) -> int:
    ip, tcp = p["ip"], p["tcp"]
    return ip.len - ip.hl * 4 - tcp.off * 4


def ones_complement(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def checksums_ok(p: dict) -> bool:
    data, ip = p["data"], p["ip"]
    hl = ip.hl * 4
    tcp_len = ip.len - hl
    pseudo = ip.src + ip.dst + struct.pack("!BBH", 0, 6, tcp_len)
    # The payload is not captured; its checksum is that of zero bytes (docs/traces.md).
    return ones_complement(data[:hl]) == 0xFFFF and ones_complement(pseudo + data[hl:]) == 0xFFFF


def addr(p: dict, key: str) -> str:
    return socket.inet_ntoa(getattr(p["ip"], key))


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    out = tmp_path_factory.mktemp("pcap")
    res = atmsim.run(SCENARIO, overrides=QUIET_END, pcap=out)
    return res, out


def test_a_trace_changes_nothing_in_the_run(traced):
    res, _ = traced
    plain = atmsim.run(SCENARIO, overrides=QUIET_END)
    a = {k: v for k, v in res.summary.items() if k != "wall_s"}
    b = {k: v for k, v in plain.summary.items() if k != "wall_s"}
    assert a == b
    assert res.summary["fingerprint"] == plain.summary["fingerprint"]


def test_every_segment_and_ack_of_the_run_is_in_its_hosts_files(traced):
    res, out = traced
    hosts = atmsim.describe(SCENARIO)["network"]
    names = sorted(p.name for p, _ in res.trace["pcap_files"])
    assert names == sorted(f"{h}.pcapng" for i in range(1, 7) for h in (f"h{i}", f"r{i}"))
    conns = res.connections
    mss = 8192
    for i in range(1, 7):
        c = conns.loc[f"s{i}"]
        assert c["packets_distinct"] * mss >= 1_000_000, "the transfer finished"
        sent = read_pcapng(out / f"h{i}.pcapng")
        recv = read_pcapng(out / f"r{i}.pcapng")
        for pkts in (sent, recv):
            assert all(checksums_ok(p) for p in pkts)
            assert all(len(p["data"]) < p["orig_len"] or payload_len(p) == 0 for p in pkts)
            # The synthetic handshake first, commented; then no other SYN.
            syn, synack = pkts[0]["tcp"], pkts[1]["tcp"]
            assert syn.flags & dpkt.tcp.TH_SYN and not syn.flags & dpkt.tcp.TH_ACK
            assert synack.flags & dpkt.tcp.TH_SYN and synack.flags & dpkt.tcp.TH_ACK
            assert all("synthetic" in p["comment"] for p in pkts[:2])
            assert not any(p["tcp"].flags & dpkt.tcp.TH_SYN for p in pkts[2:])
            opts = dict(dpkt.tcp.parse_opts(syn.opts))
            assert struct.unpack("!H", opts[dpkt.tcp.TCP_OPT_MSS])[0] == mss
            assert pkts[0]["tcp"].sport == 1024 + i - 1 and pkts[0]["tcp"].dport == 5001
        src, dst = addr(sent[0], "src"), addr(sent[0], "dst")
        data_out = [p for p in sent[2:] if addr(p, "src") == src and payload_len(p) > 0]
        data_in = [p for p in recv[2:] if addr(p, "dst") == dst and payload_len(p) > 0]
        acks_out = [p for p in recv[2:] if addr(p, "src") == dst]
        acks_in = [p for p in sent[2:] if addr(p, "dst") == src]
        assert len(data_out) == c["packets_sent"]
        assert len(data_in) == c["packets_delivered"]
        assert all(payload_len(p) == 0 for p in acks_out + acks_in)
        assert len(acks_in) <= len(acks_out)
        # Sequence numbers: each new segment starts where the last new one ended; the
        # others are retransmissions, as many as the run counted.
        isn = sent[0]["tcp"].seq
        offsets = [(p["tcp"].seq - isn - 1) % 2**32 for p in data_out]
        high, retx = 0, 0
        for off, p in zip(offsets, data_out, strict=True):
            if off == high:
                high += payload_len(p)
            else:
                assert off < high
                retx += 1
        assert retx == c["retransmissions"] > 0
        assert high >= 1_000_000
        # ACK numbers: never past what arrived in order before the ACK left, never going
        # back, and the last one acknowledges everything.
        arrived = sorted(
            (p["ts"], (p["tcp"].seq - isn - 1) % 2**32, payload_len(p)) for p in data_in
        )
        last = 0
        for p in acks_out:
            ack = (p["tcp"].ack - isn - 1) % 2**32
            nxt, ranges = 0, sorted((o, o + n) for t, o, n in arrived if t <= p["ts"])
            for a, b in ranges:
                if a <= nxt:
                    nxt = max(nxt, b)
            assert last <= ack <= nxt
            last = ack
        assert last == high
        # The ACKs the sender received are those the receiver sent, in order, less the lost.
        sent_acks = iter(p["data"][20:] for p in acks_out)
        assert all(any(a == b for b in sent_acks) for a in (p["data"][20:] for p in acks_in))
        assert res.ports.loc["B->A", "cells_dropped"] == 0
        assert len(acks_in) == len(acks_out), "no ACK is lost on the way back"
        # Host addresses follow the nodes' order (docs/traces.md).
        names_in_order = [p["node"] for p in hosts["ports"] if p["node_kind"] == "host"]
        k = names_in_order.index(f"h{i}")
        assert src == f"10.0.0.{k + 1}"


def test_filters_pick_connections_links_and_a_window(tmp_path):
    over = {
        **QUIET_END,
        "trace.connections": '["s2"]',
        "trace.links": '["A->B", "B->A"]',
        "trace.from": "0.2 s",
        "trace.until": "0.6 s",
    }
    res = atmsim.run(SCENARIO, overrides=over, pcap=tmp_path)
    names = sorted(p.name for p, _ in res.trace["pcap_files"])
    assert names == ["A_B.pcapng", "B_A.pcapng", "h2.pcapng", "r2.pcapng"]
    ab = read_pcapng(tmp_path / "A_B.pcapng")
    ba = read_pcapng(tmp_path / "B_A.pcapng")
    for pkts in (ab, ba, read_pcapng(tmp_path / "h2.pcapng")):
        assert pkts and all(0.2 <= p["ts"] < 0.6 for p in pkts)
        assert all({p["tcp"].sport, p["tcp"].dport} == {1025, 5001} for p in pkts)
    # The forward link sees the data (and the SYN), the backward one the ACKs (and SYN-ACK).
    assert all(payload_len(p) > 0 for p in ab[1:]) and ab[0]["tcp"].flags & dpkt.tcp.TH_SYN
    assert all(payload_len(p) == 0 for p in ba)
    # Frames cut at the bottleneck carry a comment and are not received.
    damaged = [p for p in ab if p["comment"] and "AAL5 frame lost" in p["comment"]]
    assert damaged, "this window holds cell losses at A->B"
    recv = read_pcapng(tmp_path / "r2.pcapng")
    assert len([p for p in recv if payload_len(p) > 0]) <= len(ab) - 1 - len(damaged)


def test_bad_trace_input_is_refused_with_the_allowed_names(tmp_path):
    cases = [
        ({"trace.hosts": '["nope"]'}, ["trace.hosts[0]", "allowed", "h1"]),
        ({"trace.links": '["A-B"]'}, ["trace.links[0]", "A->B"]),
        ({"trace.connections": '["s9"]'}, ["trace.connections[0]", "s1"]),
        ({"trace.cell_ports": '["X->Y"]'}, ["trace.cell_ports[0]", "A->B"]),
        ({"trace.until": "0 s"}, ["trace.until", "after from"]),
        ({"trace.bogus": "1"}, ["trace", "bogus", "cell_max_rows"]),
        ({"trace.cell_max_rows": "0"}, ["trace.cell_max_rows"]),
    ]
    for over, words in cases:
        with pytest.raises(atmsim.ScenarioError) as e:
            atmsim.run(SCENARIO, overrides=over, pcap=tmp_path)
        for w in words:
            assert w in str(e.value), (over, str(e.value))
    assert main(["run", SCENARIO, "--out", str(tmp_path / "o"), "--set", "trace.hosts=[1]"]) == 2


def test_the_cli_writes_traces(tmp_path, capsys):
    args = ["run", SCENARIO, "--quiet", "--out", str(tmp_path / "out")]
    args += ["--set", "run.warmup=0 s", "--set", "run.duration=20 ms"]
    args += ["--pcap", str(tmp_path / "pcap"), "--cell-trace", str(tmp_path / "c.parquet")]
    assert main(args) == 0
    said = capsys.readouterr().out
    assert "pcap:" in said and "cell trace:" in said
    assert (tmp_path / "pcap" / "h1.pcapng").exists() and (tmp_path / "c.parquet").exists()


def test_cell_rows_match_the_port_counters(tmp_path):
    over = {"run.warmup": "0 s", "run.duration": "30 ms"}
    res = atmsim.run(SCENARIO, overrides=over, cell_trace=tmp_path / "c.parquet")
    t = pq.read_table(tmp_path / "c.parquet").to_pandas()
    assert len(t) == res.trace["cell_rows"] > 0
    meta = pq.read_schema(tmp_path / "c.parquet").metadata
    assert meta[b"atmsim.truncated"] == b"false"
    sent = t[t.event == "sent"].groupby("port", observed=True).size()
    dropped = t[t.event == "dropped"].groupby("port", observed=True).size()
    ports = res.ports
    assert ports["cells_dropped"].sum() > 0, "the window holds drops"
    for name, row in ports.iterrows():
        assert sent.get(name, 0) == row["cells_sent"], name
        assert dropped.get(name, 0) == row["cells_dropped"], name
    d = t[t.event == "dropped"]
    assert set(d.reason.astype(str)) <= {"vc_buffer_full"}
    assert t[t.event == "sent"].reason.isna().all()
    assert set(t.direction.astype(str)) == {"data", "reverse"}
    assert (t.time_s.diff().dropna() >= 0).all()


def test_cell_filters_and_the_row_limit(tmp_path):
    over = {
        "run.warmup": "0 s",
        "run.duration": "30 ms",
        "trace.cell_vcs": '["s1"]',
        "trace.cell_ports": '["A->B"]',
        "trace.from": "5 ms",
    }
    res = atmsim.run(SCENARIO, overrides=over, cell_trace=tmp_path / "c.parquet")
    t = pq.read_table(tmp_path / "c.parquet").to_pandas()
    assert len(t) > 0
    assert set(t.port.astype(str)) == {"A->B"} and set(t.connection.astype(str)) == {"s1"}
    assert t.time_s.min() >= 0.005
    n = len(t)
    limit = {**over, "trace.cell_max_rows": str(n // 2)}
    with pytest.warns(atmsim.ScenarioWarning, match="cell_max_rows"):
        res = atmsim.run(SCENARIO, overrides=limit, cell_trace=tmp_path / "d.parquet")
    d = pq.read_table(tmp_path / "d.parquet")
    assert d.num_rows == n // 2 == res.trace["cell_rows"]
    meta = d.schema.metadata
    assert meta[b"atmsim.truncated"] == b"true"
    assert int(meta[b"atmsim.not_recorded"]) == n - n // 2
    assert d.to_pandas().equals(t.iloc[: n // 2].reset_index(drop=True))


@pytest.mark.slow  # two tshark start-ups, about 2 s
# .ci/run installs tshark: in CI (CI=true) a missing tshark is a failure, not a skip.
@pytest.mark.skipif(
    shutil.which("tshark") is None and not os.environ.get("CI"), reason="tshark is not installed"
)
def test_tshark_reads_the_files_without_malformed_packets(traced):
    _, out = traced
    for name in ("h1.pcapng", "r1.pcapng"):
        done = subprocess.run(
            ["tshark", "-r", str(out / name), "-q", "-z", "conv,tcp", "-z", "expert"],
            capture_output=True,
            text=True,
            check=True,
        )
        assert "Malformed" not in done.stdout, done.stdout
        assert "10.0.0." in done.stdout


def test_no_trace_without_the_options():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = atmsim.run(SCENARIO, overrides={"run.warmup": "0 s", "run.duration": "10 ms"})
    assert res.trace is None


def test_sack_blocks_and_a_scaled_window_are_in_the_headers(tmp_path):
    over = {
        **QUIET_END,
        "tcp.variant": "sack",
        "tcp.max_window": "1 MiB",
        "trace.connections": '["s1"]',
        "trace.hosts": '["r1"]',
    }
    res = atmsim.run(SCENARIO, overrides=over, pcap=tmp_path)
    pkts = read_pcapng(tmp_path / "r1.pcapng")
    syn = dict(dpkt.tcp.parse_opts(pkts[0]["tcp"].opts))
    assert syn[dpkt.tcp.TCP_OPT_WSCALE] == b"\x05"  # 1 MiB = 65535 x 2^5 at most
    assert dpkt.tcp.TCP_OPT_SACKOK in syn
    isn = pkts[0]["tcp"].seq
    data = [p for p in pkts[2:] if payload_len(p) > 0]
    acks = [p for p in pkts[2:] if payload_len(p) == 0]
    assert all(p["tcp"].win == (1 << 20) >> 5 for p in acks)
    with_sack = 0
    for a in acks:
        ack = (a["tcp"].ack - isn - 1) % 2**32
        blocks = dict(dpkt.tcp.parse_opts(a["tcp"].opts)).get(dpkt.tcp.TCP_OPT_SACK)
        # The model charges 2 + 8 bytes per block, padded to 4: the header is that long.
        if blocks is None:
            assert a["tcp"].off * 4 == 20
            continue
        with_sack += 1
        n = len(blocks) // 8
        assert a["tcp"].off * 4 == 20 + (2 + 8 * n + 3) // 4 * 4
        got = set()
        for p in data:
            if p["ts"] <= a["ts"]:
                o = (p["tcp"].seq - isn - 1) % 2**32
                got.update(range(o, o + payload_len(p), 8192))
        for k in range(n):
            left, right = struct.unpack_from("!II", blocks, 8 * k)
            left, right = (left - isn - 1) % 2**32, (right - isn - 1) % 2**32
            assert ack < left < right, "a SACK block lies above the cumulative ACK"
            assert all(x in got for x in range(left, right, 8192)), "and holds received data"
    assert with_sack > 0
    assert res.connections.loc["s1", "retransmissions"] > 0


#: One ECN SACK connection h1 -> A -> r1, 10 Mb/s bottleneck, 100 ms round trip; the port
#: marks EFCI from 100 cells on (docs/scenarios.md), far below its EPD threshold.
ECN_SCENARIO = """name = "ecn-trace"
[run]
duration = "3 s"
warmup = "0 s"
[tcp]
variant = "sack"
mss = "1000 B"
max_window = "1 MiB"
initial_ssthresh = "100000 B"
ecn = true
[[switch]]
name = "A"
port_buffer = "1000 cells"
policy = { kind = "epd", threshold = 0.8 }
efci_threshold = "100 cells"
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


@pytest.fixture(scope="module")
def ecn_traced(tmp_path_factory):
    out = tmp_path_factory.mktemp("ecn")
    path = out / "ecn.toml"
    path.write_text(ECN_SCENARIO)
    res = atmsim.run(
        str(path),
        overrides={"trace.hosts": '["h1", "r1"]', "trace.links": '["A->r1"]'},
        pcap=out,
    )
    return res, out


def ecn_field(p: dict) -> int:
    return p["ip"].tos & 0b11


def test_ecn_codepoints_and_flags_are_in_the_headers(ecn_traced):
    res, out = ecn_traced
    c = res.summary["connections"][0]
    assert c["ecn_window_reductions"] >= 1 and c["retransmissions"] == 0
    cwr, ece = dpkt.tcp.TH_CWR, dpkt.tcp.TH_ECE
    for name in ("h1", "r1"):
        pkts = read_pcapng(out / f"{name}.pcapng")
        assert all(checksums_ok(p) for p in pkts)
        # The ECN-setup handshake: SYN with ECE and CWR, SYN-ACK with ECE only.
        syn, synack = pkts[0]["tcp"], pkts[1]["tcp"]
        assert syn.flags & ece and syn.flags & cwr
        assert synack.flags & ece and not synack.flags & cwr
    sent = read_pcapng(out / "h1.pcapng")[2:]
    src = addr(sent[0], "src")
    data_out = [p for p in sent if addr(p, "src") == src]
    acks_in = [p for p in sent if addr(p, "dst") == src]
    # New data leaves ECT(0), one segment with CWR per reduction (all new: nothing was lost).
    assert {ecn_field(p) for p in data_out} == {0b10}
    assert sum(bool(p["tcp"].flags & cwr) for p in data_out) == c["ecn_window_reductions"]
    # ACKs are Not-ECT; those with ECE are the ones the sender counted.
    assert {ecn_field(p) for p in acks_in} == {0}
    assert sum(bool(p["tcp"].flags & ece) for p in acks_in) == c["ecn_ece_acks"]
    # The receiver's file: the data as its TCP saw them, CE where a cell carried EFCI.
    recv = read_pcapng(out / "r1.pcapng")[2:]
    data_in = [p for p in recv if addr(p, "dst") == addr(recv[0], "dst") and payload_len(p)]
    ce_in = [p for p in data_in if ecn_field(p) == 0b11]
    assert len(ce_in) == c["ecn_ce_frames"] > 0
    assert {ecn_field(p) for p in data_in} == {0b10, 0b11}
    # The bottleneck link marks them: its file shows CE on the same segments.
    link = [p for p in read_pcapng(out / "A_r1.pcapng")[1:] if payload_len(p)]
    seqs = lambda pkts: sorted(p["tcp"].seq for p in pkts if ecn_field(p) == 0b11)  # noqa: E731
    assert seqs(link) == seqs(ce_in)


@pytest.mark.slow  # two tshark start-ups
@pytest.mark.skipif(
    shutil.which("tshark") is None and not os.environ.get("CI"), reason="tshark is not installed"
)
def test_tshark_dissects_the_ecn_fields(ecn_traced):
    res, out = ecn_traced
    c = res.summary["connections"][0]

    def count(name: str, display_filter: str) -> int:
        done = subprocess.run(
            [
                "tshark",
                "-r",
                str(out / name),
                "-Y",
                display_filter,
                "-T",
                "fields",
                "-e",
                "frame.number",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        return len(done.stdout.split())

    assert count("r1.pcapng", "ip.dsfield.ecn == 3 && tcp.len > 0") == c["ecn_ce_frames"]
    assert count("h1.pcapng", "tcp.flags.cwr == 1 && tcp.len > 0") == c["ecn_window_reductions"]
    assert (
        count("h1.pcapng", "tcp.flags.ece == 1 && tcp.len == 0 && tcp.flags.syn == 0")
        == (c["ecn_ece_acks"])
    )
    assert count("h1.pcapng", "tcp.flags.syn == 1 && tcp.flags.ece == 1 && tcp.flags.cwr == 1") == 1
