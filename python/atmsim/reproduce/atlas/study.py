"""The atlas's readings, as data: per network the schemes in order of each measure, the
round-trip spread study, each paper's ordering on every network, and the parking lot's EPD
and ESPD under the closest reading of Cheon & Panwar's TCP."""

from __future__ import annotations

from typing import Any

import numpy as np

from atmsim.reproduce.atlas.config import SPREAD_SHORT_RTT_MS
from atmsim.reproduce.atlas.measure import (
    BEST_SHARE,
    SPREAD_NET,
    Atlas,
    capacity_mbps,
    model_facts,
)
from atmsim.reproduce.atlas.networks import NETWORKS
from atmsim.reproduce.atlas.schemes import SCHEMES

#: How close to 1/R a long/short ratio must be to be read as "in inverse proportion to the
#: round trip": 0.05, about the seed-to-seed sd of the ratio at R = 4 (0.00-0.11 over the
#: schemes, three seeds).
SPREAD_NEAR = 0.05

#: "The link practically never idles": a bottleneck utilisation of at least 0.99.
BUSY = 0.99

#: Each paper's ordering of its schemes, to look for on every network: (paper, measure,
#: schemes in the claimed order, True when higher is better).
ORDERINGS = (
    ("Fang 1994", "goodput_share", ("credits", "drop_whole", "ppd", "cell_drop"), True),
    ("Cheon & Panwar 1998", "goodput_share", ("espd", "epd"), True),
    ("An 1997", "max_queue_cells", ("fmmra", "erica"), False),
    ("An 1997", "max_queue_cells", ("fmmra", "efci"), False),
)


def _order(a: Atlas, nk: str, col: str, reverse: bool = True) -> list[tuple[str, float]]:
    ref = a.reference(nk)
    vals = [(sk, a.mean(nk, sk, col, ref)) for sk in a.cfg.schemes if a.has(nk, sk)]
    vals = [(k, v) for k, v in vals if not np.isnan(v)]
    return sorted(vals, key=lambda kv: kv[1], reverse=reverse)


def _named(vals: list[tuple[str, float]]) -> list[dict[str, Any]]:
    return [{"scheme": SCHEMES[k].label, "value": float(v)} for k, v in vals]


def network_reading(a: Atlas, nk: str) -> dict[str, Any]:
    """The schemes on network ``nk`` at its reference buffer, in order of each measure."""
    net = NETWORKS[nk]
    grid = a.cfg.buffers(net, a.quick)
    g = _order(a, nk, "goodput_share")
    out: dict[str, Any] = {"title": net.title, "ran": bool(g)}
    if not g:
        return out
    z = [(sk, a.buffer_for_zero_loss(nk, sk)) for sk in a.cfg.schemes if a.has(nk, sk)]
    b = [(sk, a.buffer_for_best(nk, sk)) for sk in a.cfg.schemes if a.has(nk, sk)]
    abr = [(k, v) for k, v in _order(a, nk, "source_queue_max_cells") if SCHEMES[k].family == "abr"]
    out.update(
        reference=a.reference(nk),
        max_goodput_mbps=capacity_mbps(net),
        vbr=net.vbr is not None,
        goodput=_named(g),
        fairness=_named(_order(a, nk, "fairness")),
        group_ratio=_named(_order(a, nk, "group_ratio")) if net.groups else None,
        zero_loss=_named(sorted([(k, v) for k, v in z if not np.isnan(v)], key=lambda kv: kv[1])),
        zero_loss_never=[SCHEMES[k].label for k, v in z if np.isnan(v)],
        largest_buffer=max(grid),
        best=a.best(nk),
        best_reach=_named(sorted([(k, v) for k, v in b if not np.isnan(v)], key=lambda kv: kv[1])),
        best_miss=[SCHEMES[k].label for k, v in b if np.isnan(v)],
        best_share=100 * BEST_SHARE,
        p99_delay=_named(_order(a, nk, "p99_delay_ms", reverse=False)),
        abr_source_queue=_named(abr),
        source_side=_named(_order(a, nk, "source_side_max_cells")),
    )
    return out


def spread_reading(a: Atlas) -> dict[str, Any] | None:
    """The round-trip spread study (None: not run)."""
    from atmsim.reproduce.atlas.runs import spread_access_delays

    d = a.spread
    if d is None or not len(d):
        return None
    lo, hi = int(d["ratio"].min()), int(d["ratio"].max())
    ref = a.reference(SPREAD_NET)
    m = d.groupby(["scheme", "ratio"])[["group_ratio", "fairness"]].mean()
    schemes = [sk for sk in a.cfg.schemes if sk in m.index.get_level_values(0)]
    order = sorted(schemes, key=lambda sk: m.loc[(sk, hi), "group_ratio"], reverse=True)
    out: dict[str, Any] = {
        "reference": ref,
        "ratios": [int(r) for r in sorted(d["ratio"].unique())],
        "short_rtt_ms": SPREAD_SHORT_RTT_MS,
        "lo": lo,
        "hi": hi,
        "group_ratio": [
            {
                "scheme": SCHEMES[sk].label,
                "lo": float(m.loc[(sk, lo), "group_ratio"]),
                "hi": float(m.loc[(sk, hi), "group_ratio"]),
            }
            for sk in order
        ],
        "fairness_hi": [
            {"scheme": SCHEMES[sk].label, "value": float(m.loc[(sk, hi), "fairness"])}
            for sk in sorted(schemes, key=lambda sk: m.loc[(sk, hi), "fairness"], reverse=True)
        ],
        "inverse": None,
    }
    if hi > lo:
        inv = 1 / hi
        at_hi = {sk: m.loc[(sk, hi), "group_ratio"] for sk in order}
        out["inverse"] = {
            "inv": inv,
            "near_by": SPREAD_NEAR,
            "near": [SCHEMES[sk].label for sk in order if abs(at_hi[sk] - inv) <= SPREAD_NEAR],
            "above": [SCHEMES[sk].label for sk in order if at_hi[sk] > inv + SPREAD_NEAR],
            "below": [SCHEMES[sk].label for sk in order if at_hi[sk] < inv - SPREAD_NEAR],
        }
    drops = d.groupby(["scheme", "ratio"])["switch_drops"].mean()
    ratios = sorted(d["ratio"].unique())
    never = [sk for sk in schemes if all(drops[(sk, r)] == 0 for r in ratios)]
    out["drops"] = {
        "never": [SCHEMES[sk].label for sk in never],
        "later": [
            {
                "scheme": SCHEMES[sk].label,
                "first": int(next(r for r in ratios if drops[(sk, r)] > 0)),
                "at_hi": float(drops[(sk, hi)]),
            }
            for sk in schemes
            if sk not in never and drops[(sk, ratios[0])] == 0
        ],
        "always": [
            SCHEMES[sk].label for sk in schemes if sk not in never and drops[(sk, ratios[0])] > 0
        ],
    }
    out["credits"] = None
    if "credits" in schemes:
        net = NETWORKS[SPREAD_NET]
        facts = model_facts(SPREAD_NET)
        per_vc = ref // (len(net.tcp) + (net.vbr is not None))
        longest = max(spread_access_delays(hi).values())
        cap = per_vc / (2 * longest) / facts["cell_rate"] * facts["cell_rate_mbps"]
        fair = facts["cell_rate_mbps"] / len(net.tcp)
        out["credits"] = {
            "per_vc": per_vc,
            "longest_ms": longest * 1e3,
            "cap_mbps": cap,
            "fair_mbps": fair,
            "below_fair": cap < fair,
        }
    return out


def orderings_reading(a: Atlas) -> list[dict[str, Any]]:
    """Whether each paper's ordering holds on each network of the atlas (reference buffer,
    means over seeds; ties count as holding only for Fang's credits >= drop-whole; maximum
    queues that reach the buffer's limit are not compared)."""
    out = []
    for paper, col, order, higher in ORDERINGS:
        rel_ = " > " if higher else " < "
        parts = []
        for nk in a.cfg.networks:
            if not a.has(nk, *order):
                continue
            ref = a.reference(nk)
            v = [a.mean(nk, s, col, ref) for s in order]
            ok = all(
                (x >= y if (higher and i == 0 and paper.startswith("Fang")) else
                 (x > y if higher else x < y))
                for i, (x, y) in enumerate(zip(v, v[1:], strict=False))
            )  # fmt: skip
            # A maximum the buffer's limit cut off says nothing about the order.
            cut = col == "max_queue_cells" and max(v) >= ref
            status = "not comparable" if cut else "holds" if ok else "does not hold"
            parts.append({"network": nk, "status": status, "values": v, "reference": ref})
        if parts:
            names = SCHEMES[order[0]].label
            for i, s in enumerate(order[1:]):
                first_fang = i == 0 and paper.startswith("Fang")
                names += (" >= " if first_fang else rel_) + SCHEMES[s].label
            out.append(
                {
                    "paper": paper,
                    "goodput": col == "goodput_share",
                    "names": names,
                    "parts": parts,
                }
            )
    return out


def cheon_reading(a: Atlas) -> dict[str, Any] | None:
    """Mean EPD and ESPD goodput share and long/short ratio under ``CHEON_READING``, and
    whether each of Cheon & Panwar's orderings holds there (None: not run)."""
    d = a.reading
    if d is None or not {"epd", "espd"} <= set(d["scheme"]):
        return None
    m = d.groupby("scheme")[["goodput_share", "group_ratio"]].mean()
    e, s = m.loc["epd"], m.loc["espd"]
    return {
        "epd_share": float(e["goodput_share"]),
        "espd_share": float(s["goodput_share"]),
        "epd_ratio": float(e["group_ratio"]),
        "espd_ratio": float(s["group_ratio"]),
        "share_holds": bool(s["goodput_share"] > e["goodput_share"]),
        "ratio_holds": bool(s["group_ratio"] > e["group_ratio"]),
    }


def epd_busy(a: Atlas) -> dict[str, Any] | None:
    """The parking lot's bottleneck utilisation under EPD at the reference buffer, and
    whether the link practically never idles (None: EPD not run there)."""
    if "parking" not in a.cfg.networks or not a.has("parking", "epd"):
        return None
    u = a.mean("parking", "epd", "utilization", a.reference("parking"))
    return {"utilisation": u, "busy": bool(u >= BUSY), "busy_at": BUSY}
