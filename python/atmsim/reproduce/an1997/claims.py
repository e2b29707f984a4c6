"""The comparison rows of the An 1997 reproduction: each sentence of the thesis's chapter 4 a
measured row, with the tolerances fixed (and argued) before measuring."""

from __future__ import annotations

import re

from atmsim.reproduce.an1997.measure import (
    Measured,
    mean_response,
    row_window,
    starved_share,
    verdict,
)
from atmsim.reproduce.an1997.published import PAPER_N10_ERICA, PAPER_N10_FMMRA
from atmsim.reproduce.an1997.schemes import NAMES
from atmsim.reproduce.an1997.studies import LOOSE, VISIBLE, fmmra_key
from atmsim.reproduce.framework import (
    Claim,
    above,
    absolute,
    at_least,
    below,
    compare,
    over_seeds,
)

# Tolerances, fixed with their reasons:
#: Orderings between schemes ("smallest queue", "fairest", "fastest"): the sign of the
#: difference, FMMRA's value against the other's.
TOL_BELOW_1 = below(1)
TOL_ABOVE_0 = above(0)
#: "zero cell loss": exact.
TOL_ZERO = absolute(0)
#: "reaches more than 3000 cells", "above 7000 cells": the thesis's own lower bounds.
TOL_AT_LEAST = at_least


def claims(m: Measured, quick: bool = False, sensitivity: bool = True) -> list[Claim]:
    """Every claim of the thesis as a row; ``sensitivity`` adds the row of FMMRA's looser
    setting (its runs are not part of a reading)."""
    rows: list[Claim] = []
    for fam, n, fig in (("n2", 2, "4.2-4.4"), ("n5", 5, "4.5-4.7")):
        f = m.max_queue(fam, "fmmra")
        for other in ("erica", "efci"):
            o = m.max_queue(fam, other)
            rows.append(
                compare(
                    f"Figs {fig}: N = {n}, FMMRA keeps a smaller ABR queue than {NAMES[other]} "
                    "(max queue FMMRA / " + NAMES[other] + ")",
                    paper="< 1",
                    measured=f / o if o else float("inf"),
                    unit="ratio",
                    tol=TOL_BELOW_1,
                    note=f"max queue: FMMRA {f:,}, {NAMES[other]} {o:,} cells.",
                )
            )
    for other in ("erica", "efci"):
        rows.append(
            fairness_row(
                m,
                "n5",
                "fmmra",
                other,
                f"Figs 4.8-4.10: N = 5, FMMRA shares throughput more fairly than {NAMES[other]} "
                "in the transient (Jain index FMMRA - " + NAMES[other] + ", 0.3-0.6 s",
            )
        )
    rf = mean_response(m, "fmmra")
    for other in ("erica", "efci"):
        ro = mean_response(m, other)
        rows.append(
            compare(
                f"Figs 4.11-4.13: N = 2, VBR 100 ms, FMMRA's ACR follows each VBR change "
                f"fastest (mean time to within 10%, FMMRA / {NAMES[other]})",
                paper="< 1",
                measured=rf / ro if ro > 0 else float("inf"),
                unit="ratio",
                tol=TOL_BELOW_1,
                note=f"mean response over the ON and OFF phases after 0.3 s: FMMRA "
                f"{rf * 1e3:.1f} ms, {NAMES[other]} {ro * 1e3:.1f} ms (5 ms samples).",
            )
        )
    rows.append(
        compare(
            "Figs 4.14-4.16: N = 2, 1,500-cell buffer: FMMRA loses no cell",
            paper=0.0,
            measured=float(m.dropped("buffer", "fmmra")),
            unit="cells",
            tol=TOL_ZERO,
        )
    )
    tf = m.total("buffer", "fmmra")
    for other in ("erica", "efci"):
        to = m.total("buffer", other)
        rows.append(
            compare(
                "Figs 4.14-4.16: N = 2, 1,500-cell buffer: FMMRA has the best total goodput "
                f"(FMMRA - {NAMES[other]})",
                paper="> 0",
                measured=tf - to,
                unit="Mb/s",
                tol=TOL_ABOVE_0,
                note=f"FMMRA {tf:.1f}, {NAMES[other]} {to:.1f} Mb/s; cells lost: FMMRA "
                f"{m.dropped('buffer', 'fmmra'):,}, {NAMES[other]} {m.dropped('buffer', other):,}.",
            )
        )
    for other in ("erica", "fmmra"):
        rows.append(
            fairness_row(
                m,
                "buffer",
                other,
                "efci",
                "Figs 4.14-4.16: N = 2, 1,500-cell buffer: EFCI is the least fair "
                f"(Jain index {NAMES[other]} - EFCI after the VBR start",
            )
        )
    rows.append(
        compare(
            "Figs 4.17-4.18: N = 10, VBR 10 ms: ERICA's ABR queue exceeds 7,000 cells",
            paper="> 7,000",
            measured=float(m.max_queue("n10", "erica")),
            unit="cells",
            tol=TOL_AT_LEAST(PAPER_N10_ERICA.value),
        )
    )
    rows.append(
        compare(
            "Figs 4.17-4.18: N = 10, VBR 10 ms: FMMRA's ABR queue exceeds 3,000 cells",
            paper="> 3,000",
            measured=float(m.max_queue("n10", "fmmra")),
            unit="cells",
            tol=TOL_AT_LEAST(PAPER_N10_FMMRA.value),
        )
    )
    if sensitivity:
        rows.append(loose_row(m))
    rows.append(
        compare(
            "Figs 4.17-4.18: N = 10, VBR 10 ms: FMMRA's queue below ERICA's (FMMRA / ERICA)",
            paper="< 1",
            measured=m.max_queue("n10", "fmmra") / max(m.max_queue("n10", "erica"), 1),
            unit="ratio",
            tol=TOL_BELOW_1,
        )
    )
    return rows


def fairness_row(m: Measured, fam: str, a: str, b: str, text: str) -> Claim:
    """A fairness row (``a`` fairer than ``b`` on ``fam``; ``text`` the claim up to its
    measure's window) scored over every wide seed run by :data:`.studies.VISIBLE`'s rule: it
    agrees only when it holds on the Jain index and on the spans the figures show (the share
    of spans with a source under half of another's goodput, fewer: fairer). ``measured`` is
    the mean difference of the index over the seeds, with its interval."""
    seeds = m.wide_seeds()
    window = row_window(fam)
    per = {s: [m.run_of(fam, s, x) for x in seeds] for s in (a, b)}
    idx = {s: [m.row_measure(fam, s, x) for x in seeds] for s in (a, b)}
    spans = {
        s: [starved_share(r, VISIBLE["samples"], VISIBLE["ratio"], window=window) for r in runs]
        for s, runs in per.items()
    }
    jain_v = verdict(idx[a], idx[b], higher=True)
    span_v = verdict(spans[a], spans[b], higher=False)
    diffs = {x: ia - ib for x, ia, ib in zip(seeds, idx[a], idx[b], strict=True)}
    est = over_seeds(diffs.values())
    return Claim(
        claim=f"{text}, mean over seeds; a sign test on the index and on the starved spans)",
        paper="> 0",
        measured=est.mean,
        unit="index",
        tolerance=f"> 0, sign test p < {VISIBLE['p']:g} on both measures",
        agrees=jain_v["verdict"] == "holds" and span_v["verdict"] == "holds",
        note=f"Seeds {seeds[0]}-{seeds[-1]}: Jain index {NAMES[a]} "
        f"{jain_v['claimed']['mean']:.4f} ± {jain_v['claimed']['sd']:.4f}, {NAMES[b]} "
        f"{jain_v['other']['mean']:.4f} ± {jain_v['other']['sd']:.4f}; {NAMES[a]} fairer in "
        f"{jain_v['wins']} of {jain_v['n']} (p = {jain_v['p']:.2g}): {jain_v['verdict']}. "
        f"Spans with a source under {VISIBLE['ratio']:g} of another's: {NAMES[a]} "
        f"{span_v['claimed']['mean']:.3f}, {NAMES[b]} {span_v['other']['mean']:.3f}; "
        f"{NAMES[a]} fairer in {span_v['wins']} of {span_v['n']} (p = {span_v['p']:.2g}): "
        f"{span_v['verdict']}.",
        ci=est.ci,
        seeds=est.n,
        level=est.level,
        by_seed=diffs,
    )


def loose_row(m: Measured) -> Claim:
    loose = m.max_queue("n10", fmmra_key(*LOOSE))
    return compare(
        f"Figs 4.17-4.18 (sensitivity: FMMRA with target {LOOSE[0]:g} and QT / DQT "
        f"{LOOSE[1]:,} / {LOOSE[2]:,} cells, values the thesis does not give): FMMRA's ABR "
        "queue exceeds 3,000 cells",
        paper="> 3,000",
        measured=float(loose),
        unit="cells",
        tol=TOL_AT_LEAST(PAPER_N10_FMMRA.value),
        note=f"with atmsim's defaults (0.95, 200 / 1,000 cells): "
        f"{m.max_queue('n10', 'fmmra'):,} cells.",
    )


def pair_of(claim: str) -> tuple[str, str, str] | None:
    """The fairness row ``claim`` as (family, scheme claimed fairer, other), or None."""
    hit = re.search(r"Jain index (\w+) - (\w+)", claim)
    if hit is None:
        return None
    fam = "n5" if claim.startswith("Figs 4.8-4.10") else "buffer"
    key = {v: k for k, v in NAMES.items()}
    return fam, key[hit.group(1)], key[hit.group(2)]
