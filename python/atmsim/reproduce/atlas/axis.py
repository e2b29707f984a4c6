"""The TCP axis's reading: each paper's checks scored again under each TCP setting
(:data:`.tcps.TCPS`), and each network's schemes at its reference buffer under each."""

from __future__ import annotations

from typing import Any

import pandas as pd

from atmsim.reproduce.atlas.claims import claims
from atmsim.reproduce.atlas.measure import Atlas
from atmsim.reproduce.atlas.networks import NETWORKS
from atmsim.reproduce.atlas.schemes import SCHEMES
from atmsim.reproduce.atlas.tcps import TCPS

__all__ = ["tcp_axis", "tcp_table"]

#: The measures of the TCP axis's table: (column, format).
AXIS_MEASURES = (
    ("goodput_share", ".3f"),
    ("fairness", ".3f"),
    ("cell_loss_pct", ".2f"),
    ("p99_delay_ms", ".3f"),
)


def tcp_table(a: Atlas) -> pd.DataFrame:
    """One row per (network, scheme, TCP setting) at the network's reference buffer: the
    mean over seeds of each measure of :data:`AXIS_MEASURES`, and the seeds."""
    rows = []
    for tk in a.tcps():
        at = a.under_tcp(tk)
        for nk in a.cfg.networks:
            ref = a.reference(nk)
            for sk in a.cfg.schemes:
                d = at.at(nk, sk, ref)
                if not len(d):
                    continue
                row: dict[str, Any] = {
                    "network": nk,
                    "scheme": sk,
                    "tcp": tk,
                    "buffer_cells": ref,
                    "seeds": len(d),
                }
                for col, _ in AXIS_MEASURES:
                    row[col] = float(d[col].mean())
                rows.append(row)
    return pd.DataFrame(rows)


def _ranking(t: pd.DataFrame, nk: str, tk: str, col: str) -> list[str]:
    d = t[(t["network"] == nk) & (t["tcp"] == tk)].sort_values(col, ascending=False)
    return list(d["scheme"])


def _pairs_kept(ref: list[str], other: list[str]) -> tuple[int, int]:
    """(pairs of schemes in the same order in ``other`` as in ``ref``, pairs compared), over
    the schemes both rank."""
    common = [s for s in ref if s in other]
    pos = {s: i for i, s in enumerate(other)}
    kept = total = 0
    for i, x in enumerate(common):
        for y in common[i + 1 :]:
            total += 1
            kept += pos[x] < pos[y]
    return kept, total


def tcp_axis(a: Atlas, quick: bool) -> dict[str, Any] | None:
    """The TCP axis for the notes: every check under every TCP setting (its measured value
    and verdict), which checks hold under which settings, and per network each setting's
    best schemes and how much of the paper's TCP's ordering of the schemes it keeps, over the
    schemes every setting ran there. None where the axis did not run."""
    tcps = a.tcps()
    if len(tcps) < 2:
        return None
    per = {tk: {r.id: r for r in claims(a.under_tcp(tk), quick)} for tk in tcps}
    ids = list(per["paper"])
    checks = []
    for cid in ids:
        cells = [
            {
                "tcp": TCPS[tk].label,
                "measured": per[tk][cid].measured,
                "agrees": per[tk][cid].agrees,
            }
            if cid in per[tk]
            else None
            for tk in tcps
        ]
        held = [TCPS[tk].label for tk in tcps if cid in per[tk] and per[tk][cid].agrees]
        lost = [TCPS[tk].label for tk in tcps if cid in per[tk] and not per[tk][cid].agrees]
        checks.append(
            {
                "claim": per["paper"][cid].claim,
                "unit": per["paper"][cid].unit,
                "cells": cells,
                "held": held,
                "lost": lost,
                "paper_holds": per["paper"][cid].agrees,
                "every": not lost,
                "none": not held,
            }
        )
    t = tcp_table(a)
    networks = []
    for nk in a.cfg.networks:
        # the schemes every setting ran, so that each setting is summed over the same ones
        on = t[t["network"] == nk]
        common = set.intersection(*(set(on[on["tcp"] == tk]["scheme"]) for tk in tcps))
        if not common:
            continue
        t = t[(t["network"] != nk) | t["scheme"].isin(common)]
        ref_rank = _ranking(t, nk, "paper", "goodput_share")
        per_tcp = []
        for tk in tcps:
            d = t[(t["network"] == nk) & (t["tcp"] == tk)]
            if not len(d):
                continue
            best = d.loc[d["goodput_share"].idxmax()]
            fair = d.loc[d["fairness"].idxmax()]
            kept, total = _pairs_kept(ref_rank, _ranking(t, nk, tk, "goodput_share"))
            per_tcp.append(
                {
                    "tcp": TCPS[tk].label,
                    "schemes": len(d),
                    "best": SCHEMES[best["scheme"]].label,
                    "best_share": float(best["goodput_share"]),
                    "fairest": SCHEMES[fair["scheme"]].label,
                    "fairest_index": float(fair["fairness"]),
                    "mean_share": float(d["goodput_share"].mean()),
                    "mean_loss_pct": float(d["cell_loss_pct"].mean()),
                    "kept": kept,
                    "pairs": total,
                }
            )
        networks.append(
            {"title": NETWORKS[nk].title, "reference": a.reference(nk), "tcps": per_tcp}
        )
    return {
        "tcps": [{"key": tk, "label": TCPS[tk].label, "what": TCPS[tk].what} for tk in tcps],
        "checks": checks,
        "networks": networks,
    }
