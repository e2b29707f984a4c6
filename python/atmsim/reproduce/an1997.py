"""Reproduction of Liping An 1997 (M.S. thesis, NJIT), "TCP/IP traffic over ATM networks
with ABR flow and congestion control": greedy TCPs over ABR share a LAN backbone with a VBR
ON-OFF source that has strict priority, under three switch schemes: EFCI (binary), ERICA
(explicit rate) and FMMRA (fast max-min rate allocation); Figs. 4.2-4.18.

The thesis gives its results as figures and sentences, not tables: each of its claims
becomes a measured comparison row. ``atmsim reproduce an1997 [--quick] --out DIR`` writes the
run cache, ``figures/``, ``comparison.csv`` / ``comparison.json``, ``tables.csv``,
``notes.md`` and ``report.html``. Full mode runs 1.5 s per run (statistics from 0.3 s, when
the VBR source starts); ``quick`` runs 0.9 s.
"""

from __future__ import annotations

import os
import platform
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from atmsim import plots
from atmsim.report import write_report
from atmsim.reproduce.common import (
    Claim,
    Job,
    Stopwatch,
    above,
    absolute,
    at_least,
    below,
    compare,
    format_claims,
    rebuild_reproduction,
    run_reproduction,
    scenario_texts,
    write_claims_json,
    write_comparison,
    write_notes,
)

__all__ = ["main", "report", "jobs", "claims", "response_times", "QUICK_OVERRIDES"]

TITLE = "An 1997: TCP over ABR with VBR background, EFCI, ERICA and FMMRA compared"

BOTTLENECK = "A->B"
VBR_START_S = 0.3
QUICK_OVERRIDES = {"run.duration": "0.9 s"}

#: The three schemes as the thesis sets them (section 4.2): ERICA and FMMRA with RIF 1 and
#: RDF 1/512, EFCI with RIF 0.1 and RDF 1/16. ERICA as the thesis states it (equations 3.1-3.6):
#: capacity U x link bandwidth (3.2) with U = 0.9 (the first of its "typical values"),
#: ER = max(FairShare, CCR / z) (3.5). FMMRA and EFCI with atmsim's defaults for what the
#: thesis leaves open (see docs/scenarios.md).
SCHEMES: dict[str, dict[str, Any]] = {
    "efci": {
        "switch.*.rate_control": {"kind": "efci"},
        "abr.rif": "0.1",
        "abr.rdf": "0.0625",
    },
    "erica": {
        "switch.*.rate_control": {
            "kind": "erica",
            "target_utilization": 0.9,
            "max_min_steps": False,
            "subtract_real_time": False,
        },
        "abr.rif": "1.0",
        "abr.rdf": "0.001953125",
    },
    "fmmra": {
        "switch.*.rate_control": {"kind": "fmmra"},
        "abr.rif": "1.0",
        "abr.rdf": "0.001953125",
    },
}
NAMES = {
    "efci": "EFCI",
    "erica": "ERICA",
    "fmmra": "FMMRA",
    "fmmra-loose": "FMMRA (target 1.0, QT/DQT 1,000/5,000)",
}
COLORS = {"efci": "#c0392b", "erica": "#1f5fa8", "fmmra": "#2e8b57"}

#: The figure families: (built-in scenario, N, VBR ON/OFF ms, schemes).
FAMILIES = {
    "n2": ("an1997-n2-10ms", 2, 10, tuple(SCHEMES)),
    "n5": ("an1997-n5-10ms", 5, 10, tuple(SCHEMES)),
    "acr": ("an1997-n2-100ms", 2, 100, tuple(SCHEMES)),
    "buffer": ("an1997-n2-buffer1500", 2, 10, tuple(SCHEMES)),
    "n10": ("an1997-n10-10ms", 10, 10, ("erica", "fmmra")),
}

#: The thesis's numbers (Figs. 4.17-4.18 text): with 10 TCPs and the 10 ms VBR, "the queue
#: length using FMMRA reaches more than 3000 cells, that using ERICA is above 7000 cells".
PAPER_N10_ERICA = 7_000
PAPER_N10_FMMRA = 3_000
#: The transient of Figs. 4.8-4.10 (fairness "during the transient period"): the first
#: 300 ms after the VBR source starts.
TRANSIENT_S = (0.3, 0.6)
#: Response to a VBR change (Figs. 4.11-4.13): the time until the sources' ACR is within 10%
#: of where it settles in that ON or OFF phase.
WITHIN = 0.10

# Tolerances, fixed with their reasons:
#: Orderings between schemes ("smallest queue", "fairest", "fastest"): the sign of the
#: difference, FMMRA's value against the other's.
TOL_BELOW_1 = below(1)
TOL_ABOVE_0 = above(0)
#: "zero cell loss": exact.
TOL_ZERO = absolute(0)
#: "reaches more than 3000 cells", "above 7000 cells": the thesis's own lower bounds.
TOL_AT_LEAST = at_least


#: Sensitivity of Figs. 4.17-4.18 to what the thesis leaves open in FMMRA: the target
#: utilisation and the QT / DQT thresholds (ours 0.95 and 200 / 1,000 cells by default).
LOOSE_FMMRA = {
    "switch.*.rate_control": {
        "kind": "fmmra",
        "target_utilization": 1.0,
        "qt": "1000 cells",
        "dqt": "5000 cells",
    },
    "abr.rif": "1.0",
    "abr.rdf": "0.001953125",
}


def label(family: str, scheme: str) -> str:
    return f"{family}-{scheme}"


def jobs(quick: bool) -> list[Job]:
    ov = dict(QUICK_OVERRIDES) if quick else {}
    out = []
    for fam, (scenario, _, _, schemes) in FAMILIES.items():
        for s in schemes:
            out.append(Job(scenario, {**ov, **SCHEMES[s]}, label=label(fam, s)))
    out.append(Job(FAMILIES["n10"][0], {**ov, **LOOSE_FMMRA}, label=label("n10", "fmmra-loose")))
    return out


# --------------------------------------------------------------------------------------------
# Measurements


@dataclass
class Measured:
    res: dict[str, Any]

    def r(self, fam: str, s: str) -> Any:
        return self.res[label(fam, s)]

    def max_queue(self, fam: str, s: str) -> int:
        return int(self.r(fam, s).ports.loc[BOTTLENECK, "max_queue_cells"])

    def queue(self, fam: str, s: str) -> pd.Series:
        return self.r(fam, s).wide("queue_cells", "port")[BOTTLENECK]

    def goodput(self, fam: str, s: str) -> pd.DataFrame:
        w = self.r(fam, s).wide("goodput_mbps", "connection")
        return w[[c for c in w.columns if c != "vbr"]]

    def acr(self, fam: str, s: str) -> pd.DataFrame:
        return self.r(fam, s).wide("acr_mbps", "abr")

    def total(self, fam: str, s: str) -> float:
        return float(self.r(fam, s).totals["goodput_mbps"])

    def fairness(self, fam: str, s: str) -> float:
        return float(self.r(fam, s).totals["fairness_index"])

    def dropped(self, fam: str, s: str) -> int:
        return int(self.r(fam, s).totals["cells_dropped"])

    def transient_fairness(self, fam: str, s: str) -> float:
        g = self.goodput(fam, s)
        g = g[(g.index > TRANSIENT_S[0]) & (g.index <= TRANSIENT_S[1])]
        x = g.mean().to_numpy(dtype=float)
        return float(x.sum() ** 2 / (len(x) * (x**2).sum())) if (x**2).sum() > 0 else 0.0


def measure(js: list[Job], results: list[Any]) -> Measured:
    return Measured({j.name: r for j, r in zip(js, results, strict=True)})


def response_times(acr: pd.Series, period_s: float, start_s: float) -> list[float]:
    """For each ON or OFF phase of the VBR source after ``start_s`` (each ``period_s`` long),
    the time from the phase's start until ``acr`` is, and stays for the rest of the phase,
    within ``WITHIN`` of where it settles: the median over the phase's last fifth. A phase
    that never settles counts as the whole phase."""
    t = acr.index.to_numpy(dtype=float)
    v = acr.to_numpy(dtype=float)
    out = []
    k = 0
    while start_s + (k + 1) * period_s <= t[-1] + 1e-9:
        a, b = start_s + k * period_s, start_s + (k + 1) * period_s
        sel = (t > a + 1e-9) & (t <= b + 1e-9)
        tt, vv = t[sel], v[sel]
        k += 1
        if len(vv) < 5:
            continue
        settled = float(np.median(vv[-max(1, len(vv) // 5) :]))
        ok = np.abs(vv - settled) <= WITHIN * max(abs(settled), 1e-9)
        # The first sample from which every later one is within the band.
        bad = np.nonzero(~ok)[0]
        first = 0 if len(bad) == 0 else bad[-1] + 1
        out.append(float(tt[first] - a) if first < len(tt) else period_s)
    return out


def mean_response(m: Measured, s: str) -> float:
    acr = m.acr("acr", s)
    times = [x for c in acr.columns for x in response_times(acr[c], 0.1, VBR_START_S)]
    return float(np.mean(times)) if times else float("nan")


def claims(m: Measured, quick: bool = False) -> list[Claim]:
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
    jf = m.transient_fairness("n5", "fmmra")
    for other in ("erica", "efci"):
        jo = m.transient_fairness("n5", other)
        rows.append(
            compare(
                f"Figs 4.8-4.10: N = 5, FMMRA shares throughput more fairly than {NAMES[other]} "
                "in the transient (Jain index FMMRA - " + NAMES[other] + ", 0.3-0.6 s)",
                paper="> 0",
                measured=jf - jo,
                unit="index",
                tol=TOL_ABOVE_0,
                note=f"Jain index of the sources' mean goodput over 0.3-0.6 s: FMMRA {jf:.4f}, "
                f"{NAMES[other]} {jo:.4f}.",
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
    fe = m.fairness("buffer", "efci")
    for other in ("erica", "fmmra"):
        fo = m.fairness("buffer", other)
        rows.append(
            compare(
                "Figs 4.14-4.16: N = 2, 1,500-cell buffer: EFCI is the least fair "
                f"(Jain index {NAMES[other]} - EFCI)",
                paper="> 0",
                measured=fo - fe,
                unit="index",
                tol=TOL_ABOVE_0,
                note=f"Jain index after 0.3 s: EFCI {fe:.4f}, {NAMES[other]} {fo:.4f}.",
            )
        )
    rows.append(
        compare(
            "Figs 4.17-4.18: N = 10, VBR 10 ms: ERICA's ABR queue exceeds 7,000 cells",
            paper="> 7,000",
            measured=float(m.max_queue("n10", "erica")),
            unit="cells",
            tol=TOL_AT_LEAST(PAPER_N10_ERICA),
        )
    )
    rows.append(
        compare(
            "Figs 4.17-4.18: N = 10, VBR 10 ms: FMMRA's ABR queue exceeds 3,000 cells",
            paper="> 3,000",
            measured=float(m.max_queue("n10", "fmmra")),
            unit="cells",
            tol=TOL_AT_LEAST(PAPER_N10_FMMRA),
        )
    )
    loose = m.max_queue("n10", "fmmra-loose")
    rows.append(
        compare(
            "Figs 4.17-4.18 (sensitivity: FMMRA with target 1.0 and QT / DQT 1,000 / 5,000 "
            "cells, values the thesis does not give): FMMRA's ABR queue exceeds 3,000 cells",
            paper="> 3,000",
            measured=float(loose),
            unit="cells",
            tol=TOL_AT_LEAST(PAPER_N10_FMMRA),
            note=f"with atmsim's defaults (0.95, 200 / 1,000 cells): "
            f"{m.max_queue('n10', 'fmmra'):,} cells.",
        )
    )
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


# --------------------------------------------------------------------------------------------
# Tables, figures, notes


def table_rows(m: Measured) -> pd.DataFrame:
    rows = []
    for fam, (scenario, n, p, schemes) in FAMILIES.items():
        for s in schemes + (("fmmra-loose",) if fam == "n10" else ()):
            rows.append(
                {
                    "family": fam,
                    "scenario": scenario,
                    "sources": n,
                    "vbr_on_off_ms": p,
                    "scheme": s,
                    "max_queue_cells": m.max_queue(fam, s),
                    "goodput_mbps": round(m.total(fam, s), 3),
                    "fairness_index": round(m.fairness(fam, s), 4),
                    "cells_dropped": m.dropped(fam, s),
                }
            )
    return pd.DataFrame(rows)


def html_tables(m: Measured) -> list[tuple[str, list[str], list[list[str]]]]:
    body = []
    for fam, (_, n, p, schemes) in FAMILIES.items():
        for s in schemes + (("fmmra-loose",) if fam == "n10" else ()):
            body.append(
                [
                    f"N = {n}, VBR {p} ms" + (", 1,500-cell buffer" if fam == "buffer" else ""),
                    NAMES[s],
                    f"{m.max_queue(fam, s):,}",
                    f"{m.total(fam, s):.1f}",
                    f"{m.fairness(fam, s):.4f}",
                    f"{m.dropped(fam, s):,}",
                ]
            )
    return [
        (
            "Every run: the bottleneck's largest ABR queue, the TCPs' goodput and Jain index "
            "after 0.3 s, and cells lost (the thesis has no table to set beside these)",
            ["network", "scheme", "max queue (cells)", "goodput (Mb/s)", "Jain", "cells lost"],
            body,
        )
    ]


def figures(m: Measured, out: Path) -> list[tuple[Path, str]]:
    figs = []
    fig, axes = plots.figure(2, 3, size=(14, 7), sharex=True)
    for row, fam in enumerate(("n2", "n5")):
        for col, s in enumerate(SCHEMES):
            ax = axes[row][col]
            q = m.queue(fam, s)
            ax.plot(q.index, q.to_numpy(), lw=0.8, color=COLORS[s])
            ax.set_title(f"{NAMES[s]}, N = {FAMILIES[fam][1]}", fontsize="small")
            if col == 0:
                ax.set_ylabel("ABR queue (cells)")
            if row == 1:
                ax.set_xlabel("time (s)")
    figs.append(
        (
            plots.save(fig, out / "figs4.2-4.7-queues.png"),
            "Figs 4.2-4.7: the ABR queue at the backbone against time, VBR ON/OFF 10 ms.",
        )
    )
    fig, axes = plots.figure(1, 3, size=(14, 4), sharey=True)
    for ax, s in zip(axes, SCHEMES, strict=True):
        plots.lines(ax, plots.moving_average(m.goodput("n5", s), 0.05), width=0.8)
        ax.set_title(f"{NAMES[s]}, N = 5", fontsize="small")
        ax.set_xlabel("time (s)")
    axes[0].set_ylabel("goodput (Mb/s, 50 ms average)")
    figs.append(
        (
            plots.save(fig, out / "figs4.8-4.10-goodput.png"),
            "Figs 4.8-4.10: each source's effective throughput against time, N = 5.",
        )
    )
    fig, axes = plots.figure(1, 3, size=(14, 4), sharey=True)
    for ax, s in zip(axes, SCHEMES, strict=True):
        plots.lines(ax, m.acr("acr", s), width=0.8)
        ax.set_title(f"{NAMES[s]}, N = 2, VBR 100 ms", fontsize="small")
        ax.set_xlabel("time (s)")
    axes[0].set_ylabel("ACR (Mb/s)")
    figs.append(
        (
            plots.save(fig, out / "figs4.11-4.13-acr.png"),
            "Figs 4.11-4.13: the sources' ACR against time as the VBR source turns ON and OFF "
            "every 100 ms.",
        )
    )
    fig, axes = plots.figure(1, 3, size=(14, 4), sharey=True)
    for ax, s in zip(axes, SCHEMES, strict=True):
        plots.lines(ax, plots.moving_average(m.goodput("buffer", s), 0.05), width=0.8)
        ax.set_title(f"{NAMES[s]}, N = 2, 1,500-cell buffer", fontsize="small")
        ax.set_xlabel("time (s)")
    axes[0].set_ylabel("goodput (Mb/s, 50 ms average)")
    figs.append(
        (
            plots.save(fig, out / "figs4.14-4.16-buffer.png"),
            "Figs 4.14-4.16: effective throughput per source with 1,500-cell switch buffers.",
        )
    )
    fig, ax = plots.figure()
    for s in ("erica", "fmmra"):
        q = m.queue("n10", s)
        ax.plot(q.index, q.to_numpy(), lw=0.8, color=COLORS[s], label=NAMES[s])
    ax.set_xlabel("time (s)")
    ax.set_ylabel("ABR queue (cells)")
    ax.legend()
    figs.append(
        (
            plots.save(fig, out / "figs4.17-4.18-n10.png"),
            "Figs 4.17-4.18: the ABR queue with 10 TCPs and the 10 ms VBR source.",
        )
    )
    return figs


def notes_md(rows: list[Claim], m: Measured, quick: bool) -> str:
    agree = sum(r.agrees for r in rows)
    lines = [
        "# An 1997: notes",
        "",
        f"{agree} of {len(rows)} comparison rows agree"
        + (" (quick mode: 0.9 s runs)." if quick else " (1.5 s runs)."),
        "",
        "## What the thesis states and atmsim follows",
        "",
        "- Fig. 4.1: N TCP sources and a VBR source share one 155 Mb/s backbone between two "
        "switches; the backbone is 1 km; VBR at 100 Mb/s from 300 ms, ON/OFF 10 ms or 100 ms, "
        "with priority over ABR.",
        "- TCP: MSS 9180 B, 64 KB window, no delayed ACK, no fast retransmit, RTT in floating "
        "point; processing 200 us with a 50 us variation.",
        "- ABR: PCR 155 Mb/s, Nrm 32, Mrm 2, ICR 10 Mb/s, MCR 0, CRM 20, CDF 0.5, TRM 100 ms, "
        "TCR 10 cells/s; RIF 1 / RDF 1/512 for ERICA and FMMRA, RIF 0.1 / RDF 1/16 for EFCI.",
        "- ERICA as its equations 3.1-3.6 state it: capacity U x link bandwidth (atmsim's "
        "`subtract_real_time = false`), ER = max(FairShare, CCR / z) (`max_min_steps = "
        "false`).",
        "- FMMRA as section 3.4 states it (advertised rate, bottlenecked-elsewhere marks, ER_max "
        "by 3.7 with alpha 1/8, ER by 3.8 in both directions, QT and DQT).",
        "",
        "## Choices the thesis leaves open",
        "",
        "- The variation of the processing time is read as uniform on [150, 250] us.",
        "- Access links 1 km like the backbone; TCP Tahoe with a 1 ms minimum RTO; no "
        "LLC/SNAP; connections start within 1 ms of each other.",
        "- ERICA's target utilisation 0.9 (the first of the thesis's 'typical values'), "
        "averaging interval (100 cells, 1 ms).",
        "- FMMRA: target utilisation 0.95, QT 200 cells, DQT 1,000 cells, reduction 0.8, "
        "interval (100 cells, 1 ms); how ER in (3.7) and 'bottlenecked elsewhere' are read is "
        "in `atmsim/abr/fmmra.rs` (Rust: crates/atmsim-model/src/abr/fmmra.rs).",
        "- EFCI: marking from 500 cells of ABR queue, clearing at 250.",
        "- Which VBR period Figs. 4.2-4.7 and 4.14-4.16 use is not stated: 10 ms here.",
        "- Run length 1.5 s; throughput and fairness from 0.3 s; 'the transient' of Figs. "
        "4.8-4.10 is 0.3-0.6 s; a response to a VBR change is the time to within 10% of where "
        "ACR settles in that phase (median of its last fifth), sampled every 5 ms.",
        "",
        "## Rows that disagree",
        "",
    ]
    bad = [r for r in rows if not r.agrees]
    if not bad:
        lines.append("None.")
    for r in bad:
        lines.append(
            f"- **{r.claim}**: thesis {r.paper}, ours {r.measured:g} {r.unit}. {r.note} "
            "No modelling cause has been established by experiment yet."
        )
    lines += [
        "",
        "### FMMRA's queue with 10 sources",
        "",
        "The largest queue FMMRA lets build is set by its target utilisation and its queue "
        "thresholds, none of which the thesis gives. With atmsim's defaults it stays at "
        f"{m.max_queue('n10', 'fmmra'):,} cells; with a target of 1.0 and thresholds of "
        f"1,000 / 5,000 cells it reaches {m.max_queue('n10', 'fmmra-loose'):,} (the "
        "sensitivity row). The thesis's 'more than 3000 cells' is thus within what its "
        "unstated settings allow, but which settings it used is not known, so this is not "
        "named as the cause.",
    ]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------


def main(
    out_dir: str | os.PathLike[str], quick: bool = False, *, workers: int | None = None
) -> int:
    """Run the reproduction and write its outputs into ``out_dir``; returns 0."""
    return run_reproduction("an1997", jobs(quick), build, out_dir, quick, workers)


def report(out_dir: str | os.PathLike[str]) -> int:
    """Rebuild the outputs of an earlier run from the runs stored in ``out_dir``."""
    return rebuild_reproduction(jobs, build, out_dir)


def build(
    out: Path,
    quick: bool,
    js: list[Job],
    results: list[Any],
    runs_s: float,
    n_workers: int,
    clock: Stopwatch | None = None,
) -> int:
    import atmsim

    clock = clock or Stopwatch()
    m = measure(js, results)
    rows = claims(m, quick)
    write_comparison(rows, out / "comparison.csv")
    write_claims_json(rows, out / "comparison.json")
    table_rows(m).to_csv(out / "tables.csv", index=False)
    figs = figures(m, out / "figures")
    notes = notes_md(rows, m, quick)
    write_notes(notes, out / "notes.md")
    meta = {
        "thesis": "Liping An, M.S. thesis, New Jersey Institute of Technology, January 1997",
        "atmsim version": atmsim.__version__,
        "mode": "quick (0.9 s runs)" if quick else "full (1.5 s runs)",
        "runs": len(js),
        "wall time of the runs": f"{runs_s:.1f} s on {n_workers} worker(s)",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "command": "atmsim reproduce an1997" + (" --quick" if quick else "") + f" --out {out}",
    }
    intro = (
        "Greedy TCPs over ABR share a LAN backbone with a 100 Mb/s VBR ON-OFF source that has "
        "priority, under EFCI, ERICA and FMMRA. The thesis reports figures and sentences; each "
        "sentence is a row below, measured on the same networks."
    )
    firsts = {}
    for j in js:
        firsts.setdefault(j.scenario, j)
    write_report(
        out,
        TITLE,
        rows,
        figs,
        notes,
        scenario_texts(list(firsts.values())),
        meta,
        intro=intro,
        tables=html_tables(m),
    )
    print(format_claims(rows))
    print(f"an1997: wrote {out / 'report.html'} ({clock.seconds:.1f} s)", file=sys.stderr)
    return 0
