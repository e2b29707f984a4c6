"""Measurements of the atlas's runs (docs/atlas.md defines each), the model facts they use,
and the :class:`Atlas` of every run's measures."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from atmsim.reproduce.atlas.networks import NETWORKS, Network
from atmsim.reproduce.framework import Job, jain

if TYPE_CHECKING:
    from atmsim.reproduce.atlas.config import Config

__all__ = ["BEST_SHARE", "Atlas", "capacity_mbps", "measure", "measure_run", "model_facts"]

#: The share of the network's best goodput that "buffer for 95% of the best" asks for.
BEST_SHARE = 0.95

#: The atlas's label prefixes of its extra runs (see :mod:`.runs`).
SPREAD_PREFIX = "spread"
CHEON_READING_PREFIX = "cheon-bsd-reno"
#: The TCP axis's runs: ``tcp-TCP-`` before the label of the same run with the paper's TCP.
TCP_PREFIX = "tcp"
SPREAD_NET = "parking"
#: An 1997's own network for its ordering check (FMMRA's maximum queue below ERICA's and
#: EFCI's): N = 5 TCPs beside the 10 ms VBR ON-OFF source, unlimited buffers, the three
#: schemes as `atmsim reproduce an1997` runs them.
AN_SCENARIO = "an1997-n5-10ms"
AN_BOTTLENECK = "A->B"


# The model's facts of each network, as the old atlas computed them from the scenario files
# (values recorded here, not re-derived): the bottleneck's cell rate, the cells a hop's
# propagation round trip holds, the cells per segment of the scenario's MSS with its TCP/IP,
# LLC/SNAP and adaptation-layer framing, the TCP payload bits per cell in full segments, the
# VBR source's nominal mean cell rate (0 without one), the most TCP payload the bottleneck
# carries beside that mean, and the bottleneck's cell rate as Mb/s of cells.
@functools.cache
def _described(network: str) -> dict[str, Any]:
    """``atmsim.describe`` of ``network``'s scenario with the atlas's base overrides."""
    import atmsim

    net = NETWORKS[network]
    return atmsim.describe(net.scenario, overrides=net.base)["network"]


def model_facts(
    network: str, access_delays: dict[tuple[str, str], float] | None = None
) -> dict[str, Any]:
    """What the model's configuration of ``network`` (its scenario with the atlas's base
    overrides) implies, not measured, from ``atmsim.describe``: the bottleneck's cell rate
    (cells/s, as simulated), delay and the cells of its propagation round trip; the first TCP's
    cells per segment and payload bits per cell; the VBR source's mean cell rate; the most
    goodput the TCPs can have beside it; the bottleneck's line rate; per connection its access
    link and the one-way propagation of the rest of its path. With ``access_delays`` ((host,
    switch) -> one-way delay in s, overriding those links), also ``access_round_trip_cells``:
    the cells each such link's propagation round trip holds at the network's cell rate."""
    net = NETWORKS[network]
    d = _described(network)
    port = next(p for p in d["ports"] if p["name"] == net.bottleneck)
    conns = {c["name"]: c for c in d["connections"]}
    first = conns[net.tcp[0]]
    cell_rate = port["cells_per_s"]
    payload_bits = first["mss_bytes"] * 8 / first["segment_cells"]
    vbr = conns[net.vbr]["mean_cells_per_s"] if net.vbr else 0.0
    delays = {p["name"]: p["delay_s"] for p in d["ports"]}
    facts: dict[str, Any] = {
        "cell_rate": cell_rate,
        "bottleneck_delay_s": port["delay_s"],
        "hop_round_trip_cells": math.ceil(2 * port["delay_s"] * cell_rate),
        "cells_per_segment": first["segment_cells"],
        "payload_bits_per_cell": payload_bits,
        "vbr_cells_per_s": vbr,
        "max_goodput_mbps": (cell_rate - vbr) * payload_bits / 1e6,
        "cell_rate_mbps": port["line_rate_bps"] / 1e6,
        # each connection's access link (host, switch) and the one-way propagation delay of
        # the rest of its path (s)
        "access": {
            name: (
                tuple(conns[name]["route"][0].split("->")),
                sum(delays[p] for p in conns[name]["route"][1:]),
            )
            for name in net.tcp
        },
    }
    if access_delays is not None:
        facts["access_round_trip_cells"] = {
            link: math.ceil(2 * d * facts["cell_rate"]) for link, d in access_delays.items()
        }
    return facts


def capacity_mbps(net: Network, vbr_cells_per_s: float | None = None) -> float:
    """The most TCP payload the bottleneck can carry: its cell rate, less the VBR cells
    (``vbr_cells_per_s``, by default the source's nominal mean), in full segments of the
    scenario's MSS (RM cells and any rate target not deducted: what a scheme spends on them
    counts against it)."""
    facts = model_facts(net.key)
    if vbr_cells_per_s is None:
        return facts["max_goodput_mbps"]
    return (facts["cell_rate"] - vbr_cells_per_s) * facts["payload_bits_per_cell"] / 1e6


def measure_run(net: Network, res: Any, rate: float) -> dict[str, Any]:
    """The atlas's measures of one run (see docs/atlas.md for each definition)."""
    facts = model_facts(net.key)
    conns = res.connections
    measured_s = float(res.summary["simulated_s"]) - float(res.summary["warmup_s"])
    vbr_cells = float("nan")
    if net.vbr is not None:
        vbr_cells = float(conns.loc[net.vbr, "cells_delivered"]) / measured_s
    best_possible = capacity_mbps(net, None if net.vbr is None else vbr_cells)
    drops_series = res.wide("cells_dropped", "port")[net.bottleneck]
    tcp = conns.loc[list(net.tcp)]
    g = tcp["goodput_mbps"].to_numpy(dtype=float)
    ports = res.ports
    sw = ports[ports["node"].isin(net.switches)]
    warm = float(res.summary["warmup_s"])
    q = res.wide("queue_cells", "port")[net.bottleneck]
    q = q[q.index > warm]
    p99 = float(np.percentile(q.to_numpy(dtype=float), 99)) if len(q) else float("nan")
    srcq = (
        float(tcp["source_queue_max_cells"].max())
        if "source_queue_max_cells" in tcp
        else float("nan")
    )
    hosts = ports[~ports["node"].isin(net.switches) & (ports["node"] != (net.vbr or ""))]
    host_q = float(hosts["max_queue_cells"].max()) if len(hosts) else float("nan")
    # Every cell the span could lose: sent in it, or inside the network when it began.
    sent = float(tcp["cells_sent"].sum() + tcp["cells_in_flight_at_warmup"].sum())
    row = {
        "goodput_mbps": float(g.sum()),
        "goodput_share": float(g.sum()) / best_possible,
        "fairness": jain(g, empty=math.nan),
        "group_ratio": float("nan"),
        "cell_loss_pct": 100 * float(tcp["cells_dropped"].sum()) / sent if sent else float("nan"),
        "switch_drops": int(sw["cells_dropped"].sum()),
        # cumulative from time 0: the losses of the start (slow start) included
        "bottleneck_drops_from_start": int(drops_series.iloc[-1]) if len(drops_series) else 0,
        "vbr_delivered_to_nominal": vbr_cells / facts["vbr_cells_per_s"]
        if net.vbr
        else float("nan"),
        "max_queue_cells": float(ports.loc[net.bottleneck, "max_queue_cells"]),
        "p99_queue_cells": p99,
        # drained at what the link leaves after the priority VBR source, where there is one
        "p99_delay_ms": p99 / (rate - (vbr_cells if net.vbr is not None else 0.0)) * 1e3,
        "source_queue_max_cells": srcq,
        "host_queue_max_cells": host_q,
        "source_side_max_cells": float(np.nanmax([srcq, host_q])),
        "timeouts": int(tcp["timeouts"].sum()),
        "utilization": float(ports.loc[net.bottleneck, "utilization"]),
    }
    if net.groups:
        gs = tcp["goodput_mbps"]
        long_, short = net.groups[0], net.groups[-1]
        row["group_ratio"] = float(gs[list(long_)].mean() / gs[list(short)].mean())
    if net.vbr is not None:
        from atmsim.reproduce.kalyanaraman1996 import divergent

        full = res.wide("queue_cells", "port")[net.bottleneck]
        row["divergent"] = bool(divergent(full)[0])
    return row


@dataclass
class Atlas:
    """Every run's measures (``runs``: one row per run) and the An 1997 check runs."""

    runs: pd.DataFrame
    an: dict[str, list[int]]
    quick: bool
    cfg: Config
    #: The parking lot's EPD and ESPD runs under ``CHEON_READING`` (same columns).
    reading: pd.DataFrame | None = None
    #: The round-trip spread study: one row per run, with its ratio R (same measures).
    spread: pd.DataFrame | None = None
    #: The TCP axis: one row per run, with its TCP setting (same measures), at each
    #: network's reference buffer; and An's check runs under each setting.
    tcp: pd.DataFrame | None = None
    tcp_an: dict[str, dict[str, list[int]]] = field(default_factory=dict)

    def tcps(self) -> tuple[str, ...]:
        """The TCP settings measured: the paper's, then those the axis ran."""
        ran = () if self.tcp is None else tuple(dict.fromkeys(self.tcp["tcp"]))
        return ("paper", *ran)

    def under_tcp(self, tk: str) -> Atlas:
        """The atlas as TCP setting ``tk`` measured it: its runs at the reference buffers (the
        atlas's own for the paper's TCP) and its An check runs."""
        if tk == "paper":
            return self
        d = self.tcp[self.tcp["tcp"] == tk].drop(columns="tcp") if self.tcp is not None else None
        return Atlas(
            d if d is not None else self.runs.iloc[0:0],
            self.tcp_an.get(tk, {}),
            self.quick,
            self.cfg,
        )

    def spread_curve(self, scheme: str, col: str) -> pd.DataFrame:
        """Mean and sd over seeds of ``col`` against the round-trip ratio R."""
        d = self.spread
        if d is None or not len(d):
            return pd.DataFrame({"mean": [], "sd": []})
        g = d[d["scheme"] == scheme].groupby("ratio")[col]
        return pd.DataFrame({"mean": g.mean(), "sd": g.std(ddof=1)})

    def at(self, net: str, scheme: str, buffer: int | None = None) -> pd.DataFrame:
        r = self.runs
        sel = (r["network"] == net) & (r["scheme"] == scheme)
        if buffer is not None:
            sel &= r["buffer"] == buffer
        return r[sel]

    def mean(self, net: str, scheme: str, col: str, buffer: int | None = None) -> float:
        x = self.at(net, scheme, buffer)[col]
        return float(x.mean()) if len(x) else float("nan")

    def reference(self, net: str) -> int:
        return self.cfg.reference(NETWORKS[net], self.quick)

    def has(self, net: str, *schemes: str) -> bool:
        return all(len(self.at(net, s)) for s in schemes)

    def curve(self, net: str, scheme: str, col: str = "goodput_share") -> pd.DataFrame:
        """Mean and sd over seeds of ``col`` against the buffer."""
        d = self.at(net, scheme).groupby("buffer")[col]
        return pd.DataFrame({"mean": d.mean(), "sd": d.std(ddof=1)})

    def best(self, net: str) -> float:
        r = self.runs[self.runs["network"] == net]
        return float(r.groupby(["scheme", "buffer"])["goodput_share"].mean().max())

    def buffer_for_zero_loss(self, net: str, scheme: str) -> float:
        """The smallest buffer of the grid at which no seed lost a cell in a switch: none at
        any switch port after the warm-up, none at the bottleneck from time 0 (NaN: none of
        the grid)."""
        r = self.at(net, scheme)
        d = (r["switch_drops"] + r["bottleneck_drops_from_start"]).groupby(r["buffer"]).max()
        ok = d[d == 0]
        return float(ok.index.min()) if len(ok) else float("nan")

    def buffer_for_best(self, net: str, scheme: str) -> float:
        """The smallest buffer of the grid from which on the mean goodput reaches 95% of the
        best mean goodput any scheme reaches on the network, at that buffer and every larger
        one of the grid (NaN: not so at the largest)."""
        c = self.curve(net, scheme)["mean"].sort_index()
        ok = (c >= BEST_SHARE * self.best(net)).to_numpy()
        if not len(ok) or not ok[-1]:
            return float("nan")
        i = len(ok) - 1
        while i > 0 and ok[i - 1]:
            i -= 1
        return float(c.index[i])


def measure(js: list[Job], results: list[Any], quick: bool, cfg: Config | None = None) -> Atlas:
    rows = []
    reading = []
    spread = []
    tcp_rows: list[dict[str, Any]] = []
    an: dict[str, list[int]] = {}
    tcp_an: dict[str, dict[str, list[int]]] = {}
    if cfg is None:
        from atmsim.reproduce.atlas.config import DEFAULT as cfg
    rates = {k: model_facts(k)["cell_rate"] for k in NETWORKS}
    for j, res in zip(js, results, strict=True):
        tk = "paper"
        name = j.name
        if name.startswith(TCP_PREFIX + "-"):
            # label: tcp-TCP-<the label with the paper's TCP> (TCP keys hold no dash)
            _, tk, name = name.split("-", 2)
        if j.scenario == AN_SCENARIO:
            scheme = name.split("-")[1]
            q = int(res.ports.loc[AN_BOTTLENECK, "max_queue_cells"])
            (an if tk == "paper" else tcp_an.setdefault(tk, {})).setdefault(scheme, []).append(q)
            continue
        if tk != "paper":
            head, b, s = name.rsplit("-", 2)
            nk = next(
                k for k in sorted(NETWORKS, key=len, reverse=True) if head.startswith(k + "-")
            )
            row = {"tcp": tk, "network": nk, "scheme": head[len(nk) + 1 :]}
            row.update(buffer=int(b[1:]), seed=int(s[1:]))
            row.update(measure_run(NETWORKS[nk], res, rates[nk]))
            tcp_rows.append(row)
            continue
        if j.name.startswith(SPREAD_PREFIX + "-"):
            # label: spread-rRATIO-SCHEME-sSEED (scheme keys hold no dash)
            _, r, sk, s = j.name.split("-")
            row = {"ratio": int(r[1:]), "scheme": sk, "seed": int(s[1:])}
            row.update(measure_run(NETWORKS[SPREAD_NET], res, rates[SPREAD_NET]))
            spread.append(row)
            continue
        if j.name.startswith(CHEON_READING_PREFIX + "-"):
            sk, b, s = j.name[len(CHEON_READING_PREFIX) + 1 :].split("-")
            row = {"network": "parking", "scheme": sk, "buffer": int(b[1:]), "seed": int(s[1:])}
            row.update(measure_run(NETWORKS["parking"], res, rates["parking"]))
            reading.append(row)
            continue
        # label: NETWORK-SCHEME-bBUFFER-sSEED (network keys may hold a dash)
        head, b, s = j.name.rsplit("-", 2)
        nk = next(k for k in sorted(NETWORKS, key=len, reverse=True) if head.startswith(k + "-"))
        sk = head[len(nk) + 1 :]
        net = NETWORKS[nk]
        row = {"network": nk, "scheme": sk, "buffer": int(b[1:]), "seed": int(s[1:])}
        row.update(measure_run(net, res, rates[nk]))
        rows.append(row)
    return Atlas(
        pd.DataFrame(rows),
        an,
        quick,
        cfg,
        pd.DataFrame(reading) if reading else None,
        pd.DataFrame(spread) if spread else None,
        pd.DataFrame(tcp_rows) if tcp_rows else None,
        tcp_an,
    )
