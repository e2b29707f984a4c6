"""The scheme atlas's networks, schemes and jobs (see :mod:`atmsim.reproduce.atlas`).

Each network is a built-in scenario with overrides; each scheme is a set of overrides that
switches the network's TCP connections to that service and its switches to that policy,
scheduler and rate control, at a given switch buffer. The parameters of each scheme are
those of the paper that studied it; ``Scheme.source`` names it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import tomllib

from atmsim.reproduce.common import Job

SEEDS_FULL = (1, 2, 3)
SEEDS_QUICK = (1,)

#: Adaptation-layer overhead (the default, AAL5's trailer, where the scenario sets no
#: `host.aal_overhead`), TCP/IP headers per segment (bytes), LLC/SNAP when the host adds it:
#: the framing the scenarios' hosts apply (docs/scenarios.md, `[host]`).
AAL5_TRAILER = 8
TCPIP_HEADERS = 40
LLC_SNAP = 8

#: AN2 credits per VC per hop (Fang 1994, Table 1).
FANG_CREDITS = 5

PRIORITY_FIFO = {"kind": "priority", "cbr_vbr": "fifo", "abr": "fifo", "ubr_gfr": "fifo"}
PRIORITY_PER_VC = {
    "kind": "priority",
    "cbr_vbr": "round_robin",
    "abr": "round_robin",
    "ubr_gfr": "round_robin",
}


@dataclass(frozen=True)
class Network:
    """One network family of the atlas, derived from a built-in scenario by overrides."""

    key: str
    title: str
    scenario: str
    source: str
    base: dict[str, Any]
    tcp: tuple[str, ...]
    switches: tuple[str, ...]
    bottleneck: str
    grid: tuple[int, ...]
    quick_grid: tuple[int, ...]
    reference: int
    full_run: tuple[str, str]
    quick_run: tuple[str, str]
    sample_every: str
    #: RTT groups, longest first (None: every TCP has the same round trip).
    groups: tuple[tuple[str, ...], ...] | None = None
    vbr: str | None = None

    def run_overrides(self, quick: bool) -> dict[str, Any]:
        dur, warm = self.quick_run if quick else self.full_run
        return {
            **self.base,
            "run.duration": dur,
            "run.warmup": warm,
            "run.sample_every": self.sample_every,
        }

    def buffers(self, quick: bool) -> tuple[int, ...]:
        return self.quick_grid if quick else self.grid


def _tcps(n: int) -> tuple[str, ...]:
    return tuple(f"s{i}" for i in range(1, n + 1))


#: Kalyanaraman et al.'s sources all start at once, which makes every seed the same run; the
#: atlas spreads their starts over the first millisecond (as Fang's scenario does), drawn
#: from the seed, so that the seeds differ.
KALY_JITTER = {f"connection.s{i}.start_jitter": "1 ms" for i in range(1, 16)}

#: The Kalyanaraman VBR background of the atlas: Table 2's (d 0.8, p 100 ms) case, one the
#: paper finds bounded under ERICA+ (its (0.8, 10 ms) case, the built-in's, diverges).
KALY_VBR_SOURCE = {"kind": "on_off", "rate": "124.416 Mb/s", "period": "100 ms", "duty_cycle": 0.8}

#: Run length and warm-up on the Kalyanaraman networks (see the `kaly` network below).
KALY_RUN = ("8 s", "3 s")
KALY_QUICK_RUN = ("6 s", "2 s")

NETWORKS: dict[str, Network] = {
    n.key: n
    for n in (
        Network(
            key="fang",
            title="Fang LAN (6 sessions, 2 switches, 100 m links)",
            scenario="fang1994-cell-drop",
            source="Fang, Chen & Hutchins 1994, Fig. 2 and Table 1",
            base={},
            tcp=_tcps(6),
            switches=("A", "B"),
            bottleneck="A->B",
            # Cells per port; per-VC schemes get 1/6 of it per VC (1536 = Fang's 256 per VC).
            grid=(192, 384, 768, 1536, 3072, 6144, 12288),
            quick_grid=(384, 1536, 12288),
            reference=1536,
            full_run=("10 s", "1 s"),
            quick_run=("5 s", "1 s"),
            sample_every="5 ms",
        ),
        Network(
            key="parking",
            title="Cheon & Panwar parking lot (15 sessions, RTT 10 / 8 / 6 ms)",
            scenario="cheon1998-epd-500",
            source="Cheon & Panwar 1998, Fig. 1 and section 2 (500 B packets)",
            base={},
            tcp=_tcps(15),
            switches=("sw1", "sw2", "sw3", "sw4"),
            bottleneck="sw3->sw4",
            grid=(250, 500, 1000, 2000, 4000, 8000, 16000),
            quick_grid=(500, 2000, 8000),
            reference=2000,
            full_run=("3 s", "0.5 s"),
            quick_run=("3 s", "0.5 s"),
            sample_every="2 ms",
            groups=(
                _tcps(5),
                tuple(f"s{i}" for i in range(6, 11)),
                tuple(f"s{i}" for i in range(11, 16)),
            ),
        ),
        Network(
            key="kaly",
            title="Kalyanaraman WAN (15 sessions, 1000 km links), no VBR",
            scenario="kalyanaraman1996-table1",
            source="Kalyanaraman et al. 1996, section 2 (Table 1's network)",
            base=KALY_JITTER,
            tcp=_tcps(15),
            switches=("A", "B"),
            bottleneck="A->B",
            grid=(1024, 2048, 4096, 8192, 16384, 32768),
            quick_grid=(2048, 8192, 32768),
            reference=32768,
            # With 15 windows of 1 MiB, no fast retransmit and a 200 ms minimum RTO, the UBR
            # schemes take seconds to recover from their slow-start losses: measured from 1 s
            # their shares are still climbing (cell drop at 32,768 cells 0.35 in 3 s runs,
            # 0.99 from 3 s in 8 s runs, 1.00 from 4 s in 12 s runs).
            full_run=KALY_RUN,
            quick_run=KALY_QUICK_RUN,
            sample_every="2 ms",
        ),
        Network(
            key="kaly-vbr",
            title="Kalyanaraman WAN with VBR ON-OFF (d 0.8, p 100 ms)",
            scenario="kalyanaraman1996-table2",
            source="Kalyanaraman et al. 1996, section 2 and Table 2 (row d 0.8, p 100 ms)",
            base={**KALY_JITTER, "connection.vbr.source": KALY_VBR_SOURCE},
            tcp=_tcps(15),
            switches=("A", "B"),
            bottleneck="A->B",
            grid=(1024, 2048, 4096, 8192, 16384, 32768),
            quick_grid=(2048, 8192, 32768),
            reference=32768,
            full_run=KALY_RUN,
            quick_run=KALY_QUICK_RUN,
            sample_every="2 ms",
            vbr="vbr",
        ),
    )
}


@dataclass(frozen=True)
class Scheme:
    """One switching scheme: its service, queueing, policy, rate control and end-system
    settings, and the paper its parameters come from."""

    key: str
    label: str
    family: str  # "ubr", "gfr", "credit" or "abr"
    queueing: str  # "fifo" (one shared queue per class) or "per_vc" (round robin)
    source: str
    params: str
    policy: dict[str, Any] = field(default_factory=lambda: {"kind": "cell_drop"})
    rate_control: dict[str, Any] | None = None
    abr: dict[str, Any] = field(default_factory=dict)

    @property
    def service(self) -> str:
        return {"ubr": "ubr", "credit": "ubr", "gfr": "gfr", "abr": "abr"}[self.family]

    def overrides(self, net: Network, buffer: int) -> dict[str, Any]:
        """The overrides that put ``net`` under this scheme with ``buffer`` cells per switch
        output port (per-VC queueing: ``buffer / VCs`` cells per VC, the VBR source's VC
        counted where there is one)."""
        n = len(net.tcp) + (net.vbr is not None)
        ov: dict[str, Any] = {}
        if self.queueing == "per_vc":
            ov["switch.*.scheduler"] = PRIORITY_PER_VC
            ov["switch.*.vc_buffer"] = f"{buffer // n} cells"
            ov["switch.*.port_buffer"] = "unlimited"
        else:
            ov["switch.*.scheduler"] = PRIORITY_FIFO
            ov["switch.*.vc_buffer"] = "unlimited"
            ov["switch.*.port_buffer"] = f"{buffer} cells"
        ov["switch.*.policy"] = self.policy
        ov["switch.*.rate_control"] = self.rate_control or {"kind": "none"}
        # AN2 credits reserve buffer at the next hop: never more than the VC's part of it.
        credits = min(credit_cells(net), buffer // n)
        ov["link.*.credits"] = f"{credits} cells" if self.family == "credit" else "off"
        for c in net.tcp:
            ov[f"connection.{c}.service"] = self.service
            if self.family == "gfr":
                ov[f"connection.{c}.share"] = {"threshold": f"{buffer // len(net.tcp)} cells"}
        if self.family == "abr":
            ov["abr.source_buffer"] = "unlimited"
            ov.update(self.abr)
        return ov


FANG = "Fang, Chen & Hutchins 1994 (Table 1 and the text)"
CHEON = "Cheon & Panwar 1998 (section 3, Tables 1 and 3)"
KALY = "Kalyanaraman et al. 1996 (ATM Forum 96-1294, sections 2-4)"
AN = "An 1997 (NJIT thesis, section 4.2)"
GOYAL = "Goyal, Jain, Fahmy & Vandalore 1998 (section 4)"
UBRPLUS = "atmsim's defaults for the UBR+ policies (docs/scenarios.md)"

#: An 1997's end-system settings (section 4.2), for the schemes the atlas takes from it.
AN_ABR = {
    "abr.icr": "10 Mb/s",
    "abr.nrm": 32,
    "abr.mrm": 2,
    "abr.trm": "100 ms",
    "abr.tcr": "10 cells/s",
    "abr.tbe": "640 cells",
    "abr.cdf": 0.5,
}

SCHEMES: dict[str, Scheme] = {
    s.key: s
    for s in (
        Scheme("cell_drop", "UBR cell drop", "ubr", "per_vc", FANG,
               "per-VC queues served round robin; a cell that finds its VC's queue full is "
               "dropped", {"kind": "cell_drop"}),
        Scheme("ppd", "drop-tail (PPD)", "ubr", "per_vc", FANG,
               "per-VC queues; after a frame loses a cell the rest of it is dropped, its "
               "EOM kept (keep_eom = true)", {"kind": "ppd", "keep_eom": True}),
        Scheme("drop_whole", "drop-whole", "ubr", "per_vc", FANG,
               "per-VC queues; an overflowing frame also loses its queued cells",
               {"kind": "drop_whole"}),
        Scheme("epd", "EPD", "ubr", "fifo", CHEON,
               "shared FIFO; threshold 95% of the buffer", {"kind": "epd", "threshold": 0.95}),
        Scheme("espd", "ESPD", "ubr", "fifo", CHEON,
               "shared FIFO; high 95%, low 90% of the buffer",
               {"kind": "espd", "high": 0.95, "low": 0.9}),
        Scheme("selective_drop", "Selective Drop", "ubr", "fifo", UBRPLUS,
               "shared FIFO; R = 0.9, Z = 0.8",
               {"kind": "selective_drop", "threshold": 0.9, "z": 0.8}),
        Scheme("fba", "FBA", "ubr", "fifo", UBRPLUS,
               "shared FIFO; R = 0.9, Z = 0.8", {"kind": "fba", "threshold": 0.9, "z": 0.8}),
        Scheme("gfr", "GFR buffer policy", "gfr", "fifo", GOYAL,
               "shared FIFO, GFR service; Z = 1.5, R = the whole buffer, equal per-VC "
               "thresholds R_i = buffer / sessions, W_i = 1, no tagging",
               {"kind": "gfr", "threshold": 1.0, "z": 1.5}),
        Scheme("credits", "AN2 credits", "credit", "per_vc", FANG,
               "per-VC queues; credits per VC on every link, host links included: Fang's 5 "
               "cells, or the cells the hop's propagation round trip holds when more, "
               "but never more than the VC's part of the buffer (credits reserve it)",
               {"kind": "cell_drop"}),
        Scheme("efci", "ABR EFCI", "abr", "fifo", AN,
               "EFCI marking from 500 cells down to 250 (atmsim's defaults, the thesis gives "
               "none); RIF 0.1, RDF 1/16, ICR 10 Mb/s, TBE 640 cells, CDF 0.5",
               {"kind": "cell_drop"}, {"kind": "efci"},
               {**AN_ABR, "abr.rif": 0.1, "abr.rdf": 0.0625}),
        Scheme("erica", "ABR ERICA", "abr", "fifo", KALY,
               "ERICA, target utilisation 0.9, averaging (500 cells, 5 ms), An = 0.9; "
               "end systems at atmsim's TM 4.0 defaults (ICR = PCR, RIF = RDF = 1/16; the "
               "paper states none but Nrm = 32)",
               {"kind": "cell_drop"},
               {"kind": "erica", "target_utilization": 0.9, "interval_cells": 500,
                "interval": "5 ms", "source_decay": 0.9}),
        Scheme("erica_plus", "ABR ERICA+", "abr", "fifo", KALY,
               "ERICA+, target utilisation 1, T0 = 500 us, a = 1.15, b = 1.05, QDLF = 0.5, "
               "averaging (100 cells, 1 ms); end systems at atmsim's TM 4.0 defaults",
               {"kind": "cell_drop"},
               {"kind": "erica_plus", "interval_cells": 100, "interval": "1 ms"}),
        Scheme("fmmra", "ABR FMMRA", "abr", "fifo", AN,
               "FMMRA, alpha 1/8 and atmsim's defaults for what the thesis leaves open; "
               "RIF 1, RDF 1/512, ICR 10 Mb/s, TBE 640 cells, CDF 0.5",
               {"kind": "cell_drop"}, {"kind": "fmmra"},
               {**AN_ABR, "abr.rif": 1.0, "abr.rdf": 0.001953125}),
    )
}  # fmt: skip

#: An 1997's own network for its ordering check (FMMRA's maximum queue below ERICA's and
#: EFCI's): N = 5 TCPs beside the 10 ms VBR ON-OFF source, unlimited buffers, the three
#: schemes as `atmsim reproduce an1997` runs them.
AN_SCENARIO = "an1997-n5-10ms"
AN_BOTTLENECK = "A->B"


#: The reading of Cheon & Panwar's TCP closest to the paper in the cheon1998 reproduction's
#: sensitivity study (cheon1998.ALTERNATIVE): BSD's Reno as TCP/IP Illustrated vol. 1
#: describes it (avoidance steps of MSS^2/cwnd + MSS/8, a periodic delayed-ACK clock, no
#: check on recover). The atlas runs EPD and ESPD on the parking lot again under it.
CHEON_READING = "bsd_reno"
CHEON_READING_PREFIX = "cheon-bsd-reno"


def cheon_reading() -> dict[str, Any]:
    """The overrides of ``CHEON_READING`` (from the cheon1998 sensitivity study)."""
    from atmsim.reproduce.cheon1998 import VARIANTS

    return dict(VARIANTS[CHEON_READING][1])


def an_schemes() -> dict[str, dict[str, Any]]:
    from atmsim.reproduce.an1997 import SCHEMES as AN_SCHEMES

    return AN_SCHEMES


def seeds(quick: bool) -> tuple[int, ...]:
    return SEEDS_QUICK if quick else SEEDS_FULL


#: Fairness against round-trip spread, with the spread as the controlled variable: the
#: parking lot at its reference buffer, every scheme, with the short group's propagation
#: round trip (sessions 11-15) ``SPREAD_SHORT_RTT_MS`` and the long group's (1-5) R times
#: that, the middle group's halfway, set by the sources' access links (the switches' links
#: stay as the paper has them). At R = 1 every session has the same round trip and what is
#: left is the topology: the long group crosses three loaded ports, the short one one.
SPREAD_NET = "parking"
SPREAD_SHORT_RTT_MS = 10
SPREADS_FULL = (1, 2, 3, 4)
SPREADS_QUICK = (1, 4)
SPREAD_PREFIX = "spread"
#: Run length and warm-up of the spread study, in both modes. The parking lot's 3 s runs
#: measure how far each group has recovered from its start: after an early timeout a TCP
#: of 500 B segments regains its window by one segment per round trip, which takes seconds
#: at 40 ms (at R = 4 under ERICA+, seed 1, a long/short ratio of 0.16 measured from 0.5 to 3 s,
#: 0.70 from 3 to 10 s, 1.00 from 10 to 20 s and from 20 to 40 s).
SPREAD_RUN = ("20 s", "10 s")


def spread_label(ratio: int, scheme: str, seed: int) -> str:
    return f"{SPREAD_PREFIX}-r{ratio}-{scheme}-s{seed}"


def _path_links(scenario: dict[str, Any], conn: str) -> list[tuple[str, str]]:
    c = next(x for x in scenario["connection"] if x["name"] == conn)
    nodes = [c["from"], *c.get("via", []), c["to"]]
    return list(zip(nodes, nodes[1:], strict=False))


def _link_delay_s(scenario: dict[str, Any], a: str, b: str) -> float:
    for link in scenario.get("link", []):
        if sorted(link["between"]) == sorted((a, b)):
            return _quantity(link.get("delay", "0 s"), _TIMES)
    raise ValueError(f"no link {a}-{b}")


def spread_access_delays(ratio: float) -> dict[tuple[str, str], float]:
    """The access links' one-way delays (s), by (host, switch), that give the parking lot's
    RTT groups propagation round trips from ``SPREAD_SHORT_RTT_MS`` (the last group) to
    ``ratio`` times that (the first), evenly spaced; every other link as in the scenario."""
    net = NETWORKS[SPREAD_NET]
    groups = net.groups
    assert groups is not None
    sc = _scenario(net.scenario)
    short = SPREAD_SHORT_RTT_MS * 1e-3
    out: dict[tuple[str, str], float] = {}
    last = len(groups) - 1
    for k, group in enumerate(groups):
        rtt = short * (1 + (ratio - 1) * (last - k) / last)
        for conn in group:
            links = _path_links(sc, conn)
            rest = sum(_link_delay_s(sc, a, b) for a, b in links[1:])
            access = rtt / 2 - rest
            if access < 0:
                raise ValueError(f"{conn}: a {rtt * 1e3:g} ms round trip is shorter than its path")
            out[links[0]] = access
    return out


def spread_overrides(ratio: float, scheme: Scheme, buffer: int) -> dict[str, Any]:
    """The access-link delays of ``ratio``, and for AN2 credits each access link's own
    credits by the rule of ``Scheme.overrides`` (its round trip in cells, at most the VC's
    part of the buffer)."""
    net = NETWORKS[SPREAD_NET]
    n = len(net.tcp) + (net.vbr is not None)
    ov: dict[str, Any] = {}
    for (host, sw), d in spread_access_delays(ratio).items():
        ns = round(d * 1e9)
        ov[f"link.{host}-{sw}.delay"] = f"{ns // 1000} us" if ns % 1000 == 0 else f"{ns} ns"
        if scheme.family == "credit":
            cells = max(FANG_CREDITS, math.ceil(2 * d * cell_rate(net)))
            ov[f"link.{host}-{sw}.credits"] = f"{min(cells, buffer // n)} cells"
    return ov


def label(net: str, scheme: str, buffer: int, seed: int) -> str:
    return f"{net}-{scheme}-b{buffer}-s{seed}"


@dataclass(frozen=True)
class Config:
    """What an atlas runs: networks, schemes, buffer grids, seeds and run lengths. The
    default is the atlas; tests build a reduced one."""

    networks: tuple[str, ...] = tuple(NETWORKS)
    schemes: tuple[str, ...] = tuple(SCHEMES)
    #: Replace each network's grid (None: the network's own, full or quick).
    grid: tuple[int, ...] | None = None
    seeds: tuple[int, ...] | None = None
    #: Replace each network's run length: (duration, warm-up).
    run: tuple[str, str] | None = None
    an_check: bool = True
    #: EPD and ESPD on the parking lot again under ``CHEON_READING``, the reading of Cheon &
    #: Panwar's TCP closest to their results in atmsim's cheon1998 reproduction.
    cheon_check: bool = True
    #: The round-trip spread study's ratios R (None: ``SPREADS_FULL`` or ``SPREADS_QUICK``;
    #: empty: no study). It runs when the parking lot is among ``networks``.
    spreads: tuple[int, ...] | None = None

    def buffers(self, net: Network, quick: bool) -> tuple[int, ...]:
        return self.grid if self.grid is not None else net.buffers(quick)

    def seed_list(self, quick: bool) -> tuple[int, ...]:
        return self.seeds if self.seeds is not None else seeds(quick)

    def reference(self, net: Network, quick: bool) -> int:
        grid = self.buffers(net, quick)
        return net.reference if net.reference in grid else max(grid)

    def spread_list(self, quick: bool) -> tuple[int, ...]:
        if SPREAD_NET not in self.networks:
            return ()
        if self.spreads is not None:
            return self.spreads
        return SPREADS_QUICK if quick else SPREADS_FULL


DEFAULT = Config()


def build_jobs(quick: bool, cfg: Config = DEFAULT) -> list[Job]:
    out: list[Job] = []
    for nk in cfg.networks:
        net = NETWORKS[nk]
        base = net.run_overrides(quick)
        if cfg.run is not None:
            base = {**base, "run.duration": cfg.run[0], "run.warmup": cfg.run[1]}
        for sk in cfg.schemes:
            sch = SCHEMES[sk]
            for b in cfg.buffers(net, quick):
                for seed in cfg.seed_list(quick):
                    out.append(
                        Job(
                            net.scenario,
                            {**base, **sch.overrides(net, b)},
                            seed,
                            label=label(nk, sk, b, seed),
                            metrics=("queue_cells", "cells_dropped"),
                            entities=(net.bottleneck,),
                        )
                    )
    if cfg.cheon_check:
        net = NETWORKS["parking"]
        base = net.run_overrides(quick)
        if cfg.run is not None:
            base = {**base, "run.duration": cfg.run[0], "run.warmup": cfg.run[1]}
        ref = cfg.reference(net, quick)
        for sk in ("epd", "espd"):
            for seed in cfg.seed_list(quick):
                ov = {**base, **SCHEMES[sk].overrides(net, ref), **cheon_reading()}
                out.append(
                    Job(
                        net.scenario,
                        ov,
                        seed,
                        label=f"{CHEON_READING_PREFIX}-{sk}-b{ref}-s{seed}",
                        metrics=("queue_cells", "cells_dropped"),
                        entities=(net.bottleneck,),
                    )
                )
    spreads = cfg.spread_list(quick)
    if spreads:
        net = NETWORKS[SPREAD_NET]
        dur, warm = cfg.run if cfg.run is not None else SPREAD_RUN
        base = {**net.run_overrides(quick), "run.duration": dur, "run.warmup": warm}
        ref = cfg.reference(net, quick)
        for ratio in spreads:
            for sk in cfg.schemes:
                sch = SCHEMES[sk]
                for seed in cfg.seed_list(quick):
                    ov = {**base, **sch.overrides(net, ref), **spread_overrides(ratio, sch, ref)}
                    out.append(
                        Job(
                            net.scenario,
                            ov,
                            seed,
                            label=spread_label(ratio, sk, seed),
                            metrics=("queue_cells", "cells_dropped"),
                            entities=(net.bottleneck,),
                        )
                    )
    if cfg.an_check:
        ov = {"run.duration": cfg.run[0], "run.warmup": cfg.run[1]} if cfg.run else {}
        for sk, sov in an_schemes().items():
            for seed in cfg.seed_list(quick):
                out.append(
                    Job(
                        AN_SCENARIO,
                        {**ov, **sov},
                        seed,
                        label=f"an1997-{sk}-s{seed}",
                        metrics=("queue_cells",),
                        entities=(AN_BOTTLENECK,),
                    )
                )
    return out


# --------------------------------------------------------------------------------------------
# What the scenario files say (read from them, not typed here)

_UNITS = {"b/s": 1.0, "kb/s": 1e3, "mb/s": 1e6, "gb/s": 1e9}
_TIMES = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def _quantity(text: str, units: dict[str, float]) -> float:
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*(\S+)\s*", str(text))
    if not m or m.group(2).lower() not in units:
        raise ValueError(f"cannot read {text!r}")
    return float(m.group(1)) * units[m.group(2).lower()]


@cache
def _scenario(name: str) -> dict[str, Any]:
    from atmsim.api import scenario_text

    return tomllib.loads(scenario_text(name)[0])


def cell_rate(net: Network) -> float:
    """Cells per second of the bottleneck link, from the scenario's link."""
    a, b = net.bottleneck.split("->")
    for link in _scenario(net.scenario).get("link", []):
        if sorted(link["between"]) == sorted((a, b)):
            if "cell_time" in link:
                return 1.0 / _quantity(link["cell_time"], _TIMES)
            rate = _quantity(link["rate"], _UNITS)
            if link.get("framing", "none") == "sonet":
                rate *= 26 / 27
            return rate / 424
    raise ValueError(f"{net.scenario}: no link {a}-{b}")


def bottleneck_delay(net: Network) -> float:
    """Propagation delay of the bottleneck link (s), from the scenario."""
    a, b = net.bottleneck.split("->")
    for link in _scenario(net.scenario).get("link", []):
        if sorted(link["between"]) == sorted((a, b)):
            return _quantity(link.get("delay", "0 s"), _TIMES)
    raise ValueError(f"{net.scenario}: no link {a}-{b}")


def credit_cells(net: Network) -> int:
    """AN2 credits per VC per hop: Fang's 5 cells, or the cells one hop's propagation round
    trip holds at the link's cell rate when that is more (5 cells cover the round trip of
    Fang's 100 m links; on the 1 ms and 5 ms links of the other networks they would cap
    each VC far below the link rate). Every link of a network has the same delay."""
    return max(FANG_CREDITS, math.ceil(2 * bottleneck_delay(net) * cell_rate(net)))


def cells_per_segment(net: Network) -> int:
    sc = _scenario(net.scenario)
    mss = int(_quantity(sc["tcp"]["mss"], {"b": 1.0}))
    host = sc.get("host", {})
    llc = LLC_SNAP if host.get("llc_snap", False) else 0
    aal = (
        int(_quantity(host["aal_overhead"], {"b": 1.0})) if "aal_overhead" in host else AAL5_TRAILER
    )
    return math.ceil((mss + TCPIP_HEADERS + llc + aal) / 48)


def payload_bits_per_cell(net: Network) -> float:
    """TCP payload bits per cell in full segments of the scenario's MSS."""
    mss = int(_quantity(_scenario(net.scenario)["tcp"]["mss"], {"b": 1.0}))
    return mss * 8 / cells_per_segment(net)


def vbr_cell_rate(net: Network) -> float:
    """The VBR source's nominal mean cell rate (0 without one), from its ON-OFF source."""
    if net.vbr is None:
        return 0.0
    src = net.base.get(f"connection.{net.vbr}.source")
    if src is None:
        sc = _scenario(net.scenario)
        src = next(c for c in sc["connection"] if c["name"] == net.vbr)["source"]
    return _quantity(src["rate"], _UNITS) * float(src["duty_cycle"]) / 424


def max_goodput_mbps(net: Network, vbr_cells_per_s: float | None = None) -> float:
    """The most TCP payload the bottleneck can carry: its cell rate, less the VBR cells
    (``vbr_cells_per_s``, by default the source's nominal mean), in full segments of the
    scenario's MSS (RM cells and any rate target not deducted: what a scheme spends on them
    counts against it)."""
    vbr = vbr_cell_rate(net) if vbr_cells_per_s is None else vbr_cells_per_s
    return (cell_rate(net) - vbr) * payload_bits_per_cell(net) / 1e6
