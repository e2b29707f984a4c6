"""The runs of the scheme atlas: every (network, scheme, buffer, seed) of its configuration,
the parking lot's EPD and ESPD again under the closest reading of Cheon & Panwar's TCP, the
round-trip spread study, and An 1997's own runs of its ordering check."""

from __future__ import annotations

from typing import Any

from atmsim.reproduce.atlas.config import DEFAULT, SPREAD_SHORT_RTT_MS, Config, spread_run
from atmsim.reproduce.atlas.measure import (
    AN_BOTTLENECK,
    AN_SCENARIO,
    CHEON_READING_PREFIX,
    SPREAD_NET,
    SPREAD_PREFIX,
    TCP_PREFIX,
    model_facts,
)
from atmsim.reproduce.atlas.networks import NETWORKS
from atmsim.reproduce.atlas.published import FANG_CREDITS
from atmsim.reproduce.atlas.schemes import SCHEMES, Scheme
from atmsim.reproduce.atlas.tcps import AN_ECN_BUFFER, TCPS
from atmsim.reproduce.framework import Job

#: The reading of Cheon & Panwar's TCP closest to the paper in the cheon1998 reproduction's
#: sensitivity study (cheon1998.ALTERNATIVE): BSD's Reno as TCP/IP Illustrated vol. 1
#: describes it (avoidance steps of MSS^2/cwnd + MSS/8, a periodic delayed-ACK clock, no
#: check on recover). The atlas runs EPD and ESPD on the parking lot again under it.
CHEON_READING = "bsd_reno"


def cheon_reading() -> dict[str, Any]:
    """The overrides of ``CHEON_READING`` (from the cheon1998 sensitivity study)."""
    from atmsim.reproduce.cheon1998 import VARIANTS

    return dict(VARIANTS[CHEON_READING][1])


def an_schemes() -> dict[str, dict[str, Any]]:
    from atmsim.reproduce.an1997 import SCHEMES as AN_SCHEMES

    return AN_SCHEMES


def spread_label(ratio: int, scheme: str, seed: int) -> str:
    return f"{SPREAD_PREFIX}-r{ratio}-{scheme}-s{seed}"


def spread_access_delays(ratio: float) -> dict[tuple[str, str], float]:
    """The access links' one-way delays (s), by (host, switch), that give the parking lot's
    RTT groups propagation round trips from ``SPREAD_SHORT_RTT_MS`` (the last group) to
    ``ratio`` times that (the first), evenly spaced; every other link as in the scenario."""
    net = NETWORKS[SPREAD_NET]
    groups = net.groups
    assert groups is not None
    access = model_facts(SPREAD_NET)["access"]
    short = SPREAD_SHORT_RTT_MS * 1e-3
    out: dict[tuple[str, str], float] = {}
    last = len(groups) - 1
    for k, group in enumerate(groups):
        rtt = short * (1 + (ratio - 1) * (last - k) / last)
        for conn in group:
            link, rest = access[conn]
            delay = rtt / 2 - rest
            if delay < 0:
                raise ValueError(f"{conn}: a {rtt * 1e3:g} ms round trip is shorter than its path")
            out[link] = delay
    return out


def spread_overrides(ratio: float, scheme: Scheme, buffer: int) -> dict[str, Any]:
    """The access-link delays of ``ratio``, and for AN2 credits each access link's own
    credits by the rule of ``Scheme.overrides`` (its round trip in cells, at most the VC's
    part of the buffer)."""
    net = NETWORKS[SPREAD_NET]
    n = len(net.tcp) + (net.vbr is not None)
    ov: dict[str, Any] = {}
    delays = spread_access_delays(ratio)
    cells_rtt = model_facts(SPREAD_NET, delays)["access_round_trip_cells"]
    for (host, sw), d in delays.items():
        ns = round(d * 1e9)
        ov[f"link.{host}-{sw}.delay"] = f"{ns // 1000} us" if ns % 1000 == 0 else f"{ns} ns"
        if scheme.family == "credit":
            cells = max(FANG_CREDITS.value, cells_rtt[(host, sw)])
            ov[f"link.{host}-{sw}.credits"] = f"{min(cells, buffer // n)} cells"
    return ov


def label(net: str, scheme: str, buffer: int, seed: int) -> str:
    return f"{net}-{scheme}-b{buffer}-s{seed}"


def jobs(quick: bool, cfg: Config = DEFAULT) -> list[Job]:
    """Every run of the atlas (``cfg``: a reduced atlas, for tests)."""
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
        dur, warm = cfg.run if cfg.run is not None else spread_run(quick)
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
    for tk in cfg.tcp_list():
        tcp = TCPS[tk]
        for nk in cfg.networks:
            net = NETWORKS[nk]
            base = net.run_overrides(quick)
            if cfg.run is not None:
                base = {**base, "run.duration": cfg.run[0], "run.warmup": cfg.run[1]}
            ref = cfg.reference(net, quick)
            for sk in cfg.tcp_schemes(nk, quick):
                sov = SCHEMES[sk].overrides(net, ref)
                tov = tcp.overrides(ref, sov["switch.*.policy"])
                for seed in cfg.seed_list(quick):
                    out.append(
                        Job(
                            net.scenario,
                            {**base, **sov, **tov},
                            seed,
                            label=f"{TCP_PREFIX}-{tk}-{label(nk, sk, ref, seed)}",
                            metrics=("queue_cells", "cells_dropped"),
                            entities=(net.bottleneck,),
                        )
                    )
    if cfg.an_check:
        ov = {"run.duration": cfg.run[0], "run.warmup": cfg.run[1]} if cfg.run else {}
        # An's check on its own network: the thesis's TCP, and each TCP of the axis
        for tk in ("paper", *cfg.tcp_list()):
            tov = TCPS[tk].overrides(AN_ECN_BUFFER) if tk != "paper" else {}
            prefix = "" if tk == "paper" else f"{TCP_PREFIX}-{tk}-"
            for sk, sov in an_schemes().items():
                for seed in cfg.seed_list(quick):
                    out.append(
                        Job(
                            AN_SCENARIO,
                            {**ov, **sov, **tov},
                            seed,
                            label=f"{prefix}an1997-{sk}-s{seed}",
                            metrics=("queue_cells",),
                            entities=(AN_BOTTLENECK,),
                        )
                    )
    return out
