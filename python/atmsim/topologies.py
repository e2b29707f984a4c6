"""Builders for the papers' networks, as scenario dictionaries.

Each builder returns a plain ``dict`` in the scenario format (the same keys as the TOML
files), which :func:`atmsim.run` accepts directly and :func:`to_toml` writes out. Change any
value before running, e.g.::

    from atmsim import run, topologies
    sc = topologies.parking_lot(per_group=5, policy={"kind": "espd", "high": 0.95, "low": 0.9})
    sc["tcp"]["mss"] = "1500 B"
    res = run(sc, seed=3)
"""

from __future__ import annotations

from typing import Any

import tomli_w

__all__ = ["parking_lot", "to_toml"]


def parking_lot(
    *,
    name: str = "parking-lot",
    description: str = "",
    switches: int = 4,
    per_group: int | tuple[int, ...] = 5,
    entry: tuple[int, ...] = (1, 2, 3),
    rate: str = "155.52 Mb/s",
    delay: str = "1 ms",
    port_buffer: str = "2000 cells",
    policy: dict[str, Any] | None = None,
    mss: str = "500 B",
    ip_rate: str = "unlimited",
    aal_overhead: str = "14 B",
    duration: str = "3 s",
    warmup: str = "0.5 s",
    start_jitter: str = "10 ms",
    seed: int = 1,
) -> dict[str, Any]:
    """Switches ``sw1..swN`` in a chain; ``per_group`` sources enter at each switch listed in
    ``entry`` (1-based; ``per_group`` may give one count per entry) and every connection
    leaves at the last switch, so all of them cross the last inter-switch link. Sources are
    numbered from the group entering first.

    ::

        src1..5 ─ sw1 ── sw2 ── sw3 ══ sw4 ─ dst1..15
                  src6..10 ┘    │
                       src11..15┘

    Defaults are Cheon & Panwar 1998 (section 2): 155.52 Mb/s links of 1 ms, output buffers
    of 2,000 cells per port shared by its VCs (FIFO), Reno with fast retransmit and recovery,
    delayed ACK of at most 12.5 ms, minimum RTO 50 ms, 64 KB window, no TCP processing time,
    14 bytes of adaptation-layer overhead per datagram (a bare ACK takes two cells).
    """
    if not (1 <= min(entry) and max(entry) < switches):
        raise ValueError("entry switches must lie before the last switch")
    counts = (per_group,) * len(entry) if isinstance(per_group, int) else tuple(per_group)
    if len(counts) != len(entry):
        raise ValueError("per_group gives one count per entry switch")
    sw = [f"sw{i}" for i in range(1, switches + 1)]
    links: list[dict[str, Any]] = [
        {"between": [a, b], "rate": rate, "delay": delay}
        for a, b in zip(sw[:-1], sw[1:], strict=True)
    ]
    conns: list[dict[str, Any]] = []
    i = 0
    for e, count in zip(entry, counts, strict=True):
        for _ in range(count):
            i += 1
            src, dst = f"src{i}", f"dst{i}"
            links.append({"between": [src, sw[e - 1]], "rate": rate, "delay": delay})
            links.append({"between": [sw[-1], dst], "rate": rate, "delay": delay})
            conns.append(
                {
                    "name": f"s{i}",
                    "from": src,
                    "to": dst,
                    "via": sw[e - 1 :],
                    "start_jitter": start_jitter,
                }
            )
    return {
        "name": name,
        "description": description,
        "run": {"duration": duration, "warmup": warmup, "seed": seed, "sample_every": "10 ms"},
        "tcp": {
            "variant": "reno",
            "mss": mss,
            "max_window": "64 KiB",
            "timer": "exact",
            "min_rto": "50 ms",
            "initial_rto": "1 s",
            "delayed_ack": "12.5 ms",
            "dupack_threshold": 3,
            "initial_cwnd": 1,
        },
        "host": {
            "processing_delay": "0 s",
            "sar_delay": "0 s",
            "ip_rate": ip_rate,
            "aal_overhead": aal_overhead,
        },
        "switch": [
            {
                "name": s,
                "scheduler": "fifo",
                "port_buffer": port_buffer,
                "policy": policy or {"kind": "cell_drop"},
            }
            for s in sw
        ],
        "link": links,
        "connection": conns,
    }


def to_toml(scenario: dict[str, Any], header: str = "") -> str:
    """The scenario as TOML text, after an optional comment header."""
    head = "".join(f"# {line}".rstrip() + "\n" for line in header.splitlines())
    return head + ("\n" if head else "") + tomli_w.dumps(scenario)
