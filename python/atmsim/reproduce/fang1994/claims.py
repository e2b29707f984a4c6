"""The comparison rows of the Fang et al. 1994 reproduction, each naming its figure or
table, with the tolerances of :mod:`.tolerances` (fixed, and argued, before measuring). A
row's note says where its measurement comes from; a cause is added only when it disagrees.
Figs. 9-12 are in :mod:`.claims_discard`."""

from __future__ import annotations

import math

import numpy as np

from atmsim.reproduce.fang1994 import published as P
from atmsim.reproduce.fang1994.claims_discard import claims_packet_drop
from atmsim.reproduce.fang1994.measure import Measured, cv_pct, farthest, linear_r2
from atmsim.reproduce.fang1994.runs import (
    AN2,
    BOTTLENECK,
    CELL_DROP,
    MSS64,
    MSS64_ALONE,
    NS,
    sweep_name,
)
from atmsim.reproduce.fang1994.tolerances import (
    CAUSE_LOSS,
    TOL_AN2_EFFECTIVE,
    TOL_CD_EFFECTIVE,
    TOL_CD_REDUCTION,
    TOL_FIG4_SESSION,
    TOL_LINEAR,
    TOL_LOSS_DYNAMICS,
    TOL_POSITIVE,
    TOL_RATE,
    TOL_RATIO_ABOVE_1,
    TOL_RATIO_BELOW_1,
    TOL_ZERO,
    Adder,
    cause_64b,
    cause_an2,
    cause_cpu,
)
from atmsim.reproduce.framework import Claim, between, combine_seeds, with_causes

__all__ = ["claims", "claims_packet_drop", "seed_claims"]


def claims(m: Measured, quick: bool = False) -> list[Claim]:
    """The comparison rows over every seed's runs: each row's value is computed from each
    seed's runs alone (:func:`seed_claims`), and the row shows their mean with its
    confidence interval, judged by the row's tolerance on the mean
    (``framework.combine_seeds``); a disagreeing row's note names its cause."""
    per_seed = [seed_claims(x, quick) for x in (m.runs or [m])]
    return with_causes(combine_seeds(per_seed, m.seeds))


def seed_claims(m: Measured, quick: bool = False) -> list[Claim]:
    """The comparison rows of one seed's runs, in a fixed order (Figs. 3-8, Table 2, then
    Figs. 9-12)."""
    rows: list[Claim] = []
    add = Adder(rows, quick)
    f = m.facts
    an2_1, cd_1 = sweep_name("an2", 1), sweep_name("cell-drop", 1)

    # Fig. 3: one session alone; cell drop and AN2 give the same throughput.
    g_an2_1, g_cd_1 = m.mean_goodput(an2_1), m.mean_goodput(cd_1)
    add(
        "Fig 3: baseline (one session) goodput is the same under cell drop and AN2 "
        "(ratio cell drop / AN2)",
        id="fig3-ratio",
        paper=1.0,
        measured=g_cd_1 / g_an2_1,
        unit="ratio",
        tol=TOL_RATE,
        note=f"AN2 {g_an2_1:.2f} Mb/s, cell drop {g_cd_1:.2f} Mb/s ({an2_1}, {cd_1}).",
        cause=CAUSE_LOSS,
        loss=True,
    )
    add(
        "Fig 3: baseline under cell drop has no congestion, so no cell loss",
        id="fig3-no-loss",
        paper=0.0,
        measured=float(m.totals(cd_1)["cell_loss_pct"]),
        unit="%",
        tol=TOL_ZERO,
        note=f"cells dropped: {m.totals(cd_1)['cells_dropped']}.",
    )

    # Fig. 4: six sessions.
    g_an2, g_cd = m.goodputs(AN2), m.goodputs(CELL_DROP)
    add(
        "Fig 4: AN2, each of the 6 sessions gets ~1/6 of the link, 23.3 Mb/s "
        "(session farthest from it)",
        id="fig4-an2-session",
        paper=P.AN2_SESSION.value,
        measured=farthest(g_an2, P.AN2_SESSION.value),
        unit="Mb/s",
        tol=TOL_FIG4_SESSION,
        note=(
            f"sessions {', '.join(f'{v:.2f}' for v in g_an2)} Mb/s; our TCP goodput ceiling "
            f"is {f.payload_rate_mbps:.2f} x {f.mss_bytes}/{f.segment_payload_bytes} / 6 = "
            f"{f.session_ceiling_mbps:.2f} Mb/s per session."
        ),
        cause="The AN2 share is set by link arithmetic; see notes.md on framing.",
    )
    add(
        "Fig 4: cell-drop mean goodput is 36% below AN2's",
        id="fig4-cd-reduction",
        paper=P.CD_REDUCTION.value,
        measured=(1 - g_cd.mean() / g_an2.mean()) * 100,
        unit="%",
        tol=TOL_CD_REDUCTION,
        note=f"means: AN2 {g_an2.mean():.2f} Mb/s, cell drop {g_cd.mean():.2f} Mb/s.",
        cause=CAUSE_LOSS,
        loss=True,
    )
    cv_an2, cv_cd = cv_pct(g_an2), cv_pct(g_cd)
    add(
        "Fig 4: sessions' goodputs spread more under cell drop than under AN2 "
        "(CV cell drop - CV AN2)",
        id="fig4-spread",
        paper="> 0",
        measured=cv_cd - cv_an2,
        unit="% pts",
        tol=TOL_POSITIVE,
        note=(
            f"coefficient of variation (std/mean): cell drop {cv_cd:.2f}%, AN2 {cv_an2:.3f}%; "
            f"Jain fairness: cell drop {m.totals(CELL_DROP)['fairness_index']:.3f}, "
            f"AN2 {m.totals(AN2)['fairness_index']:.4f}."
        ),
        cause=CAUSE_LOSS,
        loss=True,
    )

    # Fig. 5: cell loss and retransmission.
    t_an2, t_cd = m.totals(AN2), m.totals(CELL_DROP)
    add(
        "Fig 5: AN2 has zero cell loss",
        id="fig5-an2-loss",
        paper=0.0,
        measured=float(t_an2["cell_loss_pct"]),
        unit="%",
        tol=TOL_ZERO,
        note=f"cells dropped anywhere: {t_an2['cells_dropped']}.",
    )
    add(
        "Fig 5: AN2 has zero TCP retransmission",
        id="fig5-an2-retx",
        paper=0.0,
        measured=float(t_an2["retransmission_pct"]),
        unit="%",
        tol=TOL_ZERO,
    )
    add(
        "Fig 5: cell drop loses 6.5% of cells",
        id="fig5-cd-loss",
        paper=P.CD_LOSS.value,
        measured=float(t_cd["cell_loss_pct"]),
        unit="%",
        tol=TOL_LOSS_DYNAMICS,
        note="cells dropped / cells sent on the sessions' VCs, after warm-up.",
        cause=CAUSE_LOSS,
        loss=True,
    )
    add(
        "Fig 5: cell drop retransmits 38% of TCP segments",
        id="fig5-cd-retx",
        paper=P.CD_RETX.value,
        measured=float(t_cd["retransmission_pct"]),
        unit="%",
        tol=TOL_LOSS_DYNAMICS,
        note="segments retransmitted / segments sent, after warm-up.",
        cause=CAUSE_LOSS,
        loss=True,
    )
    add(
        "Fig 5: a small cell loss becomes a large retransmission rate "
        "(retransmission % / cell loss %, 38/6.5)",
        id="fig5-cd-amplification",
        paper=P.CD_RETX.value / P.CD_LOSS.value,
        measured=float(t_cd["retransmission_pct"]) / float(t_cd["cell_loss_pct"] or math.nan),
        unit="ratio",
        tol=TOL_LOSS_DYNAMICS,
        cause=CAUSE_LOSS,
        loss=True,
    )

    # Fig. 6: TCP's smoothed RTT.
    rtt_an2, rtt_cd = m.mean_rtt(AN2), m.mean_rtt(CELL_DROP)
    add(
        "Fig 6: TCP RTT is higher under AN2 than under cell drop (ratio AN2 / cell drop)",
        id="fig6-rtt",
        paper="> 1",
        measured=rtt_an2 / rtt_cd,
        unit="ratio",
        tol=TOL_RATIO_ABOVE_1,
        note=(
            f"mean RTT over the sessions: AN2 {rtt_an2:.2f} ms, cell drop {rtt_cd:.2f} ms "
            "(AN2 holds the window at the sending host's adapter)."
        ),
    )

    # Fig. 7: N = 1..6.
    for n in NS:
        add(
            f"Fig 7: AN2, N = {n}: mean goodput = link / N = 139.5/{n} Mb/s",
            id=f"fig7-an2-n{n}",
            paper=round(P.PAYLOAD_RATE.value / n, 3),
            measured=m.mean_goodput(sweep_name("an2", n)),
            unit="Mb/s",
            tol=TOL_RATE,
            # CPU-limited when our per-host bound is below the paper's link share.
            cause=cause_cpu(f) if f.cpu_bound_8k_mbps < P.PAYLOAD_RATE.value / n else cause_an2(f),
        )
    rtts = np.asarray([m.mean_rtt(sweep_name("an2", n)) for n in NS])
    slope, intercept, r2 = linear_r2(np.asarray(NS, dtype=float), rtts)
    add(
        "Fig 7: AN2 RTT grows linearly with N (R^2 of a straight-line fit, N = 1..6)",
        id="fig7-rtt-linear",
        paper="linear",
        measured=r2,
        unit="R^2",
        tol=TOL_LINEAR,
        note=(
            f"mean RTT {', '.join(f'{v:.2f}' for v in rtts)} ms; fit {slope:.2f} ms x N "
            f"{intercept:+.2f} ms."
        ),
        cause=cause_cpu(f),
    )
    ratios = {
        n: m.mean_goodput(sweep_name("cell-drop", n)) / m.mean_goodput(sweep_name("an2", n))
        for n in NS
        if n >= 2
    }
    add(
        "Fig 7: cell-drop goodput is below AN2's for every N >= 2 (largest ratio cell drop / AN2)",
        id="fig7-cd-below-an2",
        paper="< 1",
        measured=max(ratios.values()),
        unit="ratio",
        tol=TOL_RATIO_BELOW_1,
        note="ratios by N: " + ", ".join(f"N={n}: {r:.3f}" for n, r in ratios.items()) + ".",
        cause=CAUSE_LOSS,
        loss=True,
    )

    # Fig. 8: the inter-switch port A->B.
    p_an2, p_cd = m.port(AN2), m.port(CELL_DROP)
    eff_an2 = float(p_an2["effective_utilization"]) * 100
    eff_cd = float(p_cd["effective_utilization"]) * 100
    raw_an2 = float(p_an2["utilization"]) * 100
    raw_cd = float(p_cd["utilization"]) * 100
    add(
        "Fig 8: AN2 effective utilisation of the inter-switch link approaches 100%",
        id="fig8-an2-effective",
        paper=100.0,
        measured=eff_an2,
        unit="%",
        tol=TOL_AN2_EFFECTIVE,
        note=f"raw {raw_an2:.2f}%, port {BOTTLENECK}, after warm-up.",
        cause="See notes.md: credits or scheduling leave the link idle.",
    )
    add(
        "Fig 8: cell-drop effective utilisation levels off at 63%",
        id="fig8-cd-effective",
        paper=P.CD_EFFECTIVE.value,
        measured=eff_cd,
        unit="%",
        tol=TOL_CD_EFFECTIVE,
        note=f"port {BOTTLENECK}, after warm-up.",
        cause=CAUSE_LOSS,
        loss=True,
    )
    add(
        "Fig 8: cell drop, raw minus effective utilisation ~32 points (cells of corrupted frames)",
        id="fig8-cd-waste",
        paper=P.CD_WASTE.value,
        measured=raw_cd - eff_cd,
        unit="% pts",
        tol=TOL_LOSS_DYNAMICS,
        note=f"raw {raw_cd:.2f}%, effective {eff_cd:.2f}%.",
        cause=CAUSE_LOSS,
        loss=True,
    )
    add(
        "Fig 8: cell-drop raw utilisation settles lower than AN2's (AN2 - cell drop)",
        id="fig8-raw-lower",
        paper="> 0",
        measured=raw_an2 - raw_cd,
        unit="% pts",
        tol=TOL_POSITIVE,
        note=f"raw: AN2 {raw_an2:.2f}%, cell drop {raw_cd:.2f}%.",
        cause=CAUSE_LOSS,
        loss=True,
    )

    # Table 2: one 64-B session among five 8-KB sessions, AN2.
    g64 = m.goodputs(MSS64)
    g64_alone = float(m.goodputs(MSS64_ALONE).iloc[0])
    g64_busy = float(g64.iloc[0])
    us = f"{f.cpu_per_segment_s * 1e6:.0f} us"
    add(
        "Table 2: the 64-B session alone gets 0.758 Mb/s",
        id="table2-64b-alone",
        paper=P.MSS64_ALONE.value,
        measured=g64_alone,
        unit="Mb/s",
        tol=TOL_RATE,
        note=f"Our CPU bound: 64 B x 8 / {us} = {f.cpu_bound_64_mbps:.3f} Mb/s.",
        cause=cause_64b(f, g64_alone, m.seed),
    )
    add(
        "Table 2: the 64-B session among five 8-KB sessions under AN2 gets 0.754 Mb/s",
        id="table2-64b-busy",
        paper=P.MSS64_BUSY.value,
        measured=g64_busy,
        unit="Mb/s",
        tol=TOL_RATE,
        cause=cause_64b(f, g64_busy, m.seed),
    )
    add(
        "Table 2: AN2 lets the 64-B session keep its standalone throughput "
        "(ratio with others / alone, 0.754/0.758)",
        id="table2-64b-isolated",
        paper=round(P.MSS64_BUSY.value / P.MSS64_ALONE.value, 4),
        measured=g64_busy / g64_alone,
        unit="ratio",
        tol=TOL_RATE,
        cause="Per-VC credits should isolate the session; see notes.md.",
    )
    g8k = g64.iloc[1:]
    lo, hi = min(P.MSS8K.value), max(P.MSS8K.value)
    tol_8k = between(lo * (1 - TOL_RATE.a), hi * (1 + TOL_RATE.a))
    add(
        "Table 2: the five 8-KB sessions get 27.79-28.19 Mb/s (session farthest from the range)",
        id="table2-8k",
        paper=f"{lo}-{hi}",
        measured=farthest(g8k, lo, hi),
        unit="Mb/s",
        tol=tol_8k,
        tolerance_text=(
            f"paper's range ±{TOL_RATE.a * 100:g}% ({tol_8k.a:.2f}-{tol_8k.b:.2f} Mb/s)"
        ),
        note=(
            f"sessions {', '.join(f'{v:.2f}' for v in g8k)} Mb/s. The paper's five values sum "
            f"to {sum(P.MSS8K.value):.2f} Mb/s, above its own {P.PAYLOAD_RATE.value} Mb/s "
            f"payload maximum; ours are bounded by ({f.payload_rate_mbps:.2f} Mb/s minus the "
            f"64-B session's cells) x {f.mss_bytes}/{f.segment_payload_bytes}."
        ),
        cause=(
            f"See notes.md on framing ({f.cells_per_segment} cells per 8 KB segment) and the "
            "CPU model."
        ),
    )
    rows += claims_packet_drop(m, quick)
    return rows
