"""Reproduction of Goyal, Jain, Fahmy & Vandalore 1998 (LCN'98), "Providing Rate Guarantees
to TCP over the ATM GFR Service": SACK TCPs whose rates a FIFO switch controls through
per-VC buffer thresholds.

- Fig. 3: one TCP losing a segment each time its window reaches 125,000 / 250,000 /
  500,000 bytes (or never): throughput against equation 1 (8e-6 x average cwnd / RTT).
- Tables 1-3: fifteen TCPs, each its own VC, in a 48,000-cell FIFO that drops one frame of
  a VC each time its occupancy crosses its threshold (four threshold sets): per-group
  throughput, total, and the ratio of throughput share to threshold share.
- Tables 4-5: the same TCPs merged three to a VC at edge switches, the GFR buffer policy
  (Z = 1.5) on the backbone (three threshold sets): ratios, utilisation, maximum queue.

``atmsim reproduce goyal1998 [--quick] --out DIR`` writes the run cache, ``figures/``,
``comparison.csv`` / ``comparison.json``, ``tables.csv``, ``notes.md`` and ``report.html``.
The paper's numbers are single runs; the tables here are means over seeds (full mode: 3,
quick: 1) with the standard deviation beside them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from atmsim import plots
from atmsim.reproduce.common import (
    Claim,
    Job,
    Stopwatch,
    between,
    compare,
    publish,
    rebuild_reproduction,
    rel,
    run_reproduction,
)
from atmsim.storage import atomic_write

__all__ = ["main", "report", "jobs", "claims", "QUICK"]

TITLE = "Goyal et al. 1998: rate guarantees to SACK TCP over GFR by FIFO buffer management"

FIG3 = "goyal1998-fig3"
FIFO = "goyal1998-fifo"
MERGE = "goyal1998-merge"
BOTTLENECK = "S1->S2"
#: Cells in flight on a 30 ms round trip at the SONET payload cell rate (149.76 Mb/s).
BDP_CELLS = 149.76e6 / 424 * 0.030

#: Fig. 3: the windows at which a segment is lost ("off": never), the paper's simulated
#: throughputs and the paper's equation-1 values from its average windows (Mb/s). The
#: paper's text prints the fourth simulated value as "25.5"; its figure caption, equation and
#: the 126 Mb/s ceiling make it 125.5.
FIG3_CASES = ("125000 B", "250000 B", "500000 B", "off")
FIG3_PAPER = (23.64, 47.53, 93.77, 125.5)
FIG3_FORMULA = (24.32, 48.5, 96.9, 125.6)

#: Table 1: per-TCP thresholds (cells) of groups 1-5 in experiments 1-4; Table 2's
#: throughputs (Mb/s) and totals; Table 3's ratios.
TABLE1 = (
    (305, 611, 917, 1223, 1528),
    (458, 917, 1375, 1834, 2293),
    (611, 1223, 1834, 2446, 3057),
    (764, 1528, 2293, 3057, 3822),
)
TABLE2 = (
    (2.78, 5.45, 8.21, 10.95, 14.34),
    (2.83, 5.52, 8.22, 10.89, 13.51),
    (2.95, 5.75, 8.48, 10.98, 13.51),
    (3.06, 5.74, 8.68, 9.69, 13.93),
)
TABLE2_TOTAL = (125.21, 122.97, 125.04, 123.35)
TABLE3 = (
    (1.00, 0.98, 0.98, 0.98, 1.02),
    (1.03, 1.01, 1.00, 0.99, 0.98),
    (1.02, 1.03, 1.00, 0.98, 0.97),
    (1.08, 1.04, 1.02, 0.88, 1.01),
)
#: Table 4: per-VC thresholds (cells) of VCs 1-5 in the three sets; Table 5's ratios; the
#: maximum queues the text reports for the three sets (cells).
TABLE4 = (
    (152, 305, 458, 611, 764),
    (305, 611, 917, 1223, 1528),
    (611, 1223, 1834, 2446, 3057),
)
TABLE5 = (
    (1.04, 1.05, 0.97, 0.93, 1.03),
    (1.01, 1.02, 0.99, 1.00, 0.99),
    (1.16, 1.06, 1.05, 1.13, 0.80),
)
TABLE5_MAX_QUEUE = (3185, 5980, 11992)

# Tolerances, fixed with their reasons:
#: Fig. 3 against the paper's simulation and against equation 1: the issue's 5%; the
#: paper's own simulation and formula differ by 2-3%.
TOL_FIG3 = rel(0.05)
#: Ratios of Tables 3 and 5: within the spread the paper itself reports (0.80-1.16), and
#: for the lower threshold sets, where the paper finds the throughputs "in proportion to the
#: buffer allocations", within 0.9-1.1.
TOL_RATIO = between(0.80, 1.16)
TOL_RATIO_LOW = between(0.90, 1.10)
#: Totals of Table 2: 3% (the paper's four totals span 122.97-125.21 Mb/s, 1.8%).
TOL_TOTAL = rel(0.03)
#: "the achieved link utilization was almost 100%": at least 97% (up to 1.01: a port that is
#: never idle reports a utilisation a hair above 1, the cell on the wire at the end).
TOL_UTIL = between(0.97, 1.01)
#: The maximum queue of a single run is the extreme of a random process: within 25%.
TOL_MAX_QUEUE = rel(0.25)

#: Sensitivity of Fig. 3 to its measurement window, which the paper does not give: the
#: throughput counted from time 0 (slow start included) over runs of these lengths.
FROM_ZERO_DURATIONS = ("10 s", "20 s")

SEEDS_FULL = (1, 2, 3)
#: Quick mode: one seed, shorter runs.
QUICK = {"fig3": {"run.duration": "20 s"}, "tables": {"run.duration": "8 s", "run.warmup": "3 s"}}

#: Sensitivity of Tables 4-5 to what the paper does not give for Fig. 7: the distances. The
#: main runs take Fig. 4's 1000 km links (a 30 ms round trip); here the edge switches sit
#: next to the backbone switches (only S1-S2 is 1000 km: about a 10 ms round trip).
SHORT_BACKBONE = {
    **{f"link.L{g}-S1.delay": "5 us" for g in range(1, 6)},
    **{f"link.S2-R{g}.delay": "5 us" for g in range(1, 6)},
}


#: Sensitivity of threshold set 1 (the one that fails with the 30 ms round trip) to the GFR
#: policy's parameters the paper leaves open, each against the main runs' choice: the weights
#: W_i (section 4 says a VC with a higher threshold should see a higher drop probability: here
#: W_i in proportion to R_i, the largest 1) and the port threshold R (here the sum of the R_i
#: instead of the whole buffer).
FIFO_BUFFER_CELLS = 48_000
POLICY_VARIANTS: dict[str, str] = {
    "weights": "W_i in proportion to R_i (W_5 = 1)",
    "r_sum": "R = the sum of the R_i",
}


def policy_overrides(key: str, s: int) -> dict[str, Any]:
    th = TABLE4[s]
    if key == "weights":
        return {f"merge.vc{g}.share.weight": th[g - 1] / max(th) for g in range(1, 6)}
    policy = {"kind": "gfr", "z": 1.5, "threshold": sum(th) / FIFO_BUFFER_CELLS}
    return {"switch.S1.policy": policy, "switch.S2.policy": policy}


def seeds(quick: bool) -> tuple[int, ...]:
    return (1,) if quick else SEEDS_FULL


def fifo_overrides(exp: int) -> dict[str, Any]:
    return {
        f"connection.s{i}.share.threshold": f"{TABLE1[exp][(i - 1) // 3]} cells"
        for i in range(1, 16)
    }


def merge_overrides(s: int) -> dict[str, Any]:
    return {f"merge.vc{g}.share.threshold": f"{TABLE4[s][g - 1]} cells" for g in range(1, 6)}


def jobs(quick: bool) -> list[Job]:
    out = []
    q3 = QUICK["fig3"] if quick else {}
    qt = QUICK["tables"] if quick else {}
    for k, at in enumerate(FIG3_CASES):
        out.append(Job(FIG3, {**q3, "tcp.drop_at_cwnd": at}, label=f"fig3-{k}"))
    for d in FROM_ZERO_DURATIONS:
        for k, at in enumerate(FIG3_CASES[:3]):
            ov = {"tcp.drop_at_cwnd": at, "run.duration": d, "run.warmup": "0 s"}
            ov["run.sample_every"] = "0 s"
            out.append(Job(FIG3, ov, label=f"fig3-{k}-from0-{d.split()[0]}s"))
    for exp in range(4):
        for seed in seeds(quick):
            out.append(Job(FIFO, {**qt, **fifo_overrides(exp)}, seed, label=f"fifo{exp}-s{seed}"))
    for s in range(3):
        for seed in seeds(quick):
            out.append(Job(MERGE, {**qt, **merge_overrides(s)}, seed, label=f"merge{s}-s{seed}"))
        ov = {**qt, **merge_overrides(s), **SHORT_BACKBONE}
        for seed in seeds(quick):
            out.append(Job(MERGE, ov, seed, label=f"merge{s}-short-s{seed}"))
    for key in POLICY_VARIANTS:
        ov = {**qt, **merge_overrides(0), **policy_overrides(key, 0)}
        for seed in seeds(quick):
            out.append(Job(MERGE, ov, seed, label=f"merge0-{key}-s{seed}"))
    return out


# --------------------------------------------------------------------------------------------
# Measurements


@dataclass
class Measured:
    res: dict[str, Any]
    quick: bool

    def fig3(self, k: int) -> tuple[float, float, float]:
        """(goodput Mb/s, mean cwnd B, mean smoothed RTT s) after the warm-up."""
        r = self.res[f"fig3-{k}"]
        warm = float(r.summary["warmup_s"])
        cwnd = r.wide("cwnd_bytes", "connection")["s1"]
        rtt = r.wide("srtt_ms", "connection")["s1"]
        sel = cwnd.index > warm
        return (
            float(r.connections.loc["s1", "goodput_mbps"]),
            float(cwnd[sel].mean()),
            float(rtt[sel].mean()) / 1e3,
        )

    def cwnd_trace(self, label: str, conn: str) -> pd.Series:
        return self.res[label].wide("cwnd_bytes", "connection")[conn]

    def fifo_groups(self, exp: int) -> np.ndarray:
        """Per-TCP mean goodput of each group, one row per seed (Mb/s)."""
        rows = []
        for seed in seeds(self.quick):
            g = self.res[f"fifo{exp}-s{seed}"].connections["goodput_mbps"]
            rows.append(
                [g[[f"s{i}" for i in range(3 * k + 1, 3 * k + 4)]].mean() for k in range(5)]
            )
        return np.array(rows)

    def merge_vcs(self, label: str) -> np.ndarray:
        g = self.res[label].connections["goodput_mbps"]
        return np.array([g[[f"s{v}_{i}" for i in (1, 2, 3)]].sum() for v in range(1, 6)])

    def merge_runs(self, s: int, short: bool = False, variant: str | None = None) -> list[str]:
        kind = "-short" if short else f"-{variant}" if variant else ""
        return [f"merge{s}{kind}-s{seed}" for seed in seeds(self.quick)]

    def mean_port(self, s: int, field: str, short: bool = False) -> float:
        return float(np.mean([self.port(lb, field) for lb in self.merge_runs(s, short)]))

    def port(self, label: str, field: str) -> float:
        return float(self.res[label].ports.loc[BOTTLENECK, field])

    def timeouts(self, label: str) -> int:
        return int(self.res[label].connections["timeouts"].sum())


def ratios(per_entity: np.ndarray, thresholds: tuple[int, ...]) -> np.ndarray:
    """(mu_i / mu) / (r_i / r) for each row of per-entity throughputs."""
    th = np.asarray(thresholds, dtype=float)
    x = np.atleast_2d(per_entity)
    return (x / x.sum(axis=1, keepdims=True)) / (th / th.sum())


def measure(js: list[Job], results: list[Any], quick: bool) -> Measured:
    return Measured({j.name: r for j, r in zip(js, results, strict=True)}, quick)


def fifo_ratios(m: Measured, exp: int) -> np.ndarray:
    # Groups' per-TCP throughput x 3 is the group's; ratios use group shares.
    return ratios(m.fifo_groups(exp) * 3, TABLE1[exp])


def merge_ratios(m: Measured, s: int, labels: list[str] | None = None) -> np.ndarray:
    labels = labels or m.merge_runs(s)
    return ratios(np.array([m.merge_vcs(lb) for lb in labels]), TABLE4[s])


def pm(x: np.ndarray, fmt: str = "{:.2f}") -> str:
    x = np.asarray(x, dtype=float)
    if len(x) < 2:
        return fmt.format(x.mean())
    return f"{fmt.format(x.mean())} ± {fmt.format(x.std(ddof=1))}"


def claims(m: Measured) -> list[Claim]:
    rows: list[Claim] = []
    for k, at in enumerate(FIG3_CASES):
        g, cwnd, rtt = m.fig3(k)
        name = "no loss" if at == "off" else f"a loss at {at}"
        rows.append(
            compare(
                f"Fig. 3: one SACK TCP, {name}: throughput (paper's simulation)",
                paper=FIG3_PAPER[k],
                measured=g,
                unit="Mb/s",
                tol=TOL_FIG3,
                note=f"average cwnd {cwnd:,.0f} B, smoothed RTT {rtt * 1e3:.2f} ms.",
            )
        )
        eq1 = 8e-6 * cwnd / rtt
        if at != "off":
            rows.append(
                compare(
                    f"Fig. 3: one SACK TCP, {name}: throughput against equation 1 from "
                    "this run's average window and RTT",
                    paper=round(eq1, 2),
                    measured=g,
                    unit="Mb/s",
                    tol=TOL_FIG3,
                    note=f"the paper's equation-1 value (its own windows, 30 ms): "
                    f"{FIG3_FORMULA[k]} Mb/s.",
                )
            )
    for exp in range(4):
        r = fifo_ratios(m, exp)
        tol = TOL_RATIO_LOW if exp < 2 else TOL_RATIO
        for grp in range(5):
            rows.append(
                compare(
                    f"Table 3, experiment {exp + 1}: TCPs {3 * grp + 1}-{3 * grp + 3} "
                    "(throughput share / threshold share)",
                    paper=TABLE3[exp][grp],
                    measured=float(r[:, grp].mean()),
                    unit="ratio",
                    tol=tol,
                    note=f"per-TCP throughput {pm(m.fifo_groups(exp)[:, grp])} Mb/s "
                    f"(paper {TABLE2[exp][grp]}); ratio {pm(r[:, grp])}.",
                )
            )
        totals = m.fifo_groups(exp).sum(axis=1) * 3
        rows.append(
            compare(
                f"Table 2, experiment {exp + 1}: total throughput of the 15 TCPs",
                paper=TABLE2_TOTAL[exp],
                measured=float(totals.mean()),
                unit="Mb/s",
                tol=TOL_TOTAL,
                note=f"{pm(totals)} Mb/s over the seeds.",
            )
        )
    for s in range(3):
        r = merge_ratios(m, s)
        tol = TOL_RATIO_LOW if s < 2 else TOL_RATIO
        for vc in range(5):
            rows.append(
                compare(
                    f"Table 5, threshold set {s + 1} (total {sum(TABLE4[s]):,} cells): VC "
                    f"{vc + 1} (throughput share / threshold share)",
                    paper=TABLE5[s][vc],
                    measured=float(r[:, vc].mean()),
                    unit="ratio",
                    tol=tol,
                    note=f"ratio {pm(r[:, vc])}; with a short backbone (about 10 ms round "
                    f"trip): {merge_ratios(m, s, m.merge_runs(s, True)).mean(axis=0)[vc]:.2f}.",
                )
            )
        util = np.array([m.port(lb, "utilization") for lb in m.merge_runs(s)])
        rows.append(
            compare(
                f"Tables 4-5, threshold set {s + 1}: bottleneck utilisation 'almost 100%'",
                paper="~1",
                measured=float(util.mean()),
                unit="fraction",
                tol=TOL_UTIL,
                note=f"{pm(util, '{:.3f}')}.",
            )
        )
        mq = np.array([m.port(lb, "max_queue_cells") for lb in m.merge_runs(s)])
        rows.append(
            compare(
                f"Tables 4-5, threshold set {s + 1}: maximum queue at the first backbone switch",
                paper=TABLE5_MAX_QUEUE[s],
                measured=float(mq.mean()),
                unit="cells",
                tol=TOL_MAX_QUEUE,
                note=f"{pm(mq, '{:,.0f}')} cells; with a short backbone "
                f"{m.mean_port(s, 'max_queue_cells', True):,.0f}.",
            )
        )
    return rows


# --------------------------------------------------------------------------------------------
# Tables, figures, notes


def table_rows(m: Measured) -> pd.DataFrame:
    rows = []
    for k, at in enumerate(FIG3_CASES):
        g, cwnd, rtt = m.fig3(k)
        rows.append(
            {
                "part": "fig3",
                "setting": at,
                "entity": "s1",
                "goodput_mbps": round(g, 3),
                "mean_cwnd_bytes": round(cwnd),
                "mean_srtt_ms": round(rtt * 1e3, 3),
                "paper": FIG3_PAPER[k],
            }
        )
    for exp in range(4):
        g = m.fifo_groups(exp)
        r = fifo_ratios(m, exp)
        for grp in range(5):
            rows.append(
                {
                    "part": "table2-3",
                    "setting": f"experiment {exp + 1}",
                    "entity": f"TCPs {3 * grp + 1}-{3 * grp + 3}",
                    "goodput_mbps": round(float(g[:, grp].mean()), 3),
                    "ratio": round(float(r[:, grp].mean()), 3),
                    "paper": TABLE2[exp][grp],
                    "paper_ratio": TABLE3[exp][grp],
                }
            )
    for s in range(3):
        r = merge_ratios(m, s)
        short = merge_ratios(m, s, m.merge_runs(s, True)).mean(axis=0)
        for vc in range(5):
            rows.append(
                {
                    "part": "table5",
                    "setting": f"set {s + 1}",
                    "entity": f"VC {vc + 1}",
                    "ratio": round(float(r[:, vc].mean()), 3),
                    "ratio_short_backbone": round(float(short[vc]), 3),
                    "paper_ratio": TABLE5[s][vc],
                }
            )
    return pd.DataFrame(rows)


def html_tables(m: Measured) -> list[tuple[str, list[str], list[list[str]]]]:
    t23 = []
    for exp in range(4):
        g = m.fifo_groups(exp)
        r = fifo_ratios(m, exp)
        for grp in range(5):
            t23.append(
                [
                    f"{exp + 1}",
                    f"{3 * grp + 1}-{3 * grp + 3}",
                    f"{TABLE1[exp][grp]:,}",
                    f"{TABLE2[exp][grp]} | {pm(g[:, grp])}",
                    f"{TABLE3[exp][grp]:.2f} | {pm(r[:, grp])}",
                ]
            )
        tot = m.fifo_groups(exp).sum(axis=1) * 3
        t23.append(
            [
                f"{exp + 1}",
                "total",
                f"{sum(TABLE1[exp]) * 3:,}",
                f"{TABLE2_TOTAL[exp]} | {pm(tot)}",
                "",
            ]
        )
    t5 = []
    for s in range(3):
        r = merge_ratios(m, s)
        short = merge_ratios(m, s, m.merge_runs(s, True)).mean(axis=0)
        for vc in range(5):
            t5.append(
                [
                    f"{s + 1}",
                    f"{vc + 1}",
                    f"{TABLE4[s][vc]:,}",
                    f"{TABLE5[s][vc]:.2f} | {pm(r[:, vc])}",
                    f"{short[vc]:.2f}",
                ]
            )
        mq = np.array([m.port(lb, "max_queue_cells") for lb in m.merge_runs(s)])
        t5.append(
            [
                f"{s + 1}",
                "max queue",
                f"{sum(TABLE4[s]):,}",
                f"{TABLE5_MAX_QUEUE[s]:,} | {pm(mq, '{:,.0f}')}",
                f"{m.mean_port(s, 'max_queue_cells', True):,.0f}",
            ]
        )
    return [
        (
            "Tables 1-3: fifteen TCPs, per-VC thresholds in a FIFO (paper | atmsim, mean ± sd "
            "over seeds)",
            ["experiment", "TCPs", "threshold (cells)", "throughput per TCP (Mb/s)", "ratio"],
            t23,
        ),
        (
            "Tables 4-5: VC merging, GFR buffer policy with Z = 1.5 (paper | atmsim; the last "
            "column: the same with a short backbone)",
            ["set", "VC", "threshold (cells)", "ratio", "short backbone"],
            t5,
        ),
    ]


def figures(m: Measured, out: Path) -> list[tuple[Path, str]]:
    figs = []
    fig, axes = plots.figure(2, 2, size=(12, 7))
    for k, (ax, at) in enumerate(zip(axes.flat, FIG3_CASES, strict=True)):
        w = m.cwnd_trace(f"fig3-{k}", "s1")
        ax.plot(w.index, w.to_numpy() / 1e3, lw=0.8, color="#1f5fa8")
        ax.set_title(f"loss at {at}" if at != "off" else "no loss", fontsize="small")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cwnd (kB)")
    figs.append(
        (
            plots.save(fig, out / "fig3-cwnd.png"),
            "Fig. 3: the congestion window of one SACK TCP losing a segment each time cwnd "
            "reaches the value above.",
        )
    )
    fig, axes = plots.figure(2, 2, size=(12, 7), sharex=True)
    for exp, ax in enumerate(axes.flat):
        label = f"fifo{exp}-s1"
        for grp in range(5):
            w = m.cwnd_trace(label, f"s{3 * grp + 1}")
            ax.plot(w.index, w.to_numpy() / 1e3, lw=0.8, label=f"TCP {3 * grp + 1}")
        ax.set_title(f"experiment {exp + 1}", fontsize="small")
        ax.set_ylabel("cwnd (kB)")
        ax.set_xlabel("time (s)")
    axes.flat[0].legend(fontsize="x-small")
    figs.append(
        (
            plots.save(fig, out / "fig5-cwnd.png"),
            "Fig. 5: the congestion window of one TCP of each group in the four experiments "
            "(seed 1).",
        )
    )
    fig, axes = plots.figure(1, 2, size=(13, 4))
    cats3 = [f"TCPs {3 * g + 1}-{3 * g + 3}" for g in range(5)]
    plots.bars(
        axes[0],
        cats3,
        {f"exp. {e + 1}": list(fifo_ratios(m, e).mean(axis=0)) for e in range(4)},
        fmt="{:.2f}",
    )
    axes[0].axhline(1.0, color="grey", lw=0.8)
    axes[0].set_ylabel("throughput share / threshold share")
    axes[0].set_title("Table 3 (per-VC thresholds, one TCP per VC)", fontsize="small")
    plots.bars(
        axes[1],
        [f"VC {v + 1}" for v in range(5)],
        {f"set {s + 1}": list(merge_ratios(m, s).mean(axis=0)) for s in range(3)},
        fmt="{:.2f}",
    )
    axes[1].axhline(1.0, color="grey", lw=0.8)
    axes[1].set_title("Table 5 (VC merging, GFR policy)", fontsize="small")
    figs.append(
        (
            plots.save(fig, out / "tables3-5-ratios.png"),
            "Tables 3 and 5: each group's or VC's share of the throughput over its share of "
            "the thresholds (1 = in proportion).",
        )
    )
    return figs


def notes_md(rows: list[Claim], m: Measured, quick: bool) -> str:
    agree = sum(r.agrees for r in rows)
    n_seeds = len(seeds(quick))
    lines = [
        "# Goyal et al. 1998: notes",
        "",
        f"{agree} of {len(rows)} comparison rows agree"
        + (" (quick mode: one seed, shorter runs)." if quick else f" ({n_seeds} seeds)."),
        "",
        "## What the paper states and atmsim follows",
        "",
        "- SACK TCP with MSS 1,024 B and window scaling; a 30 ms round trip on 155.52 Mb/s "
        "links; fifteen TCPs in five groups of three; a 48,000-cell FIFO (Tables 1-3); the "
        "thresholds of Tables 1 and 4; Z = 1.5; three TCPs merged per VC with frames not "
        "interleaved (Fig. 7).",
        "- The threshold policy of section 3 and the GFR policy of section 4 as their text and "
        "pseudo-code state them (see docs/scenarios.md, `threshold` and `gfr`).",
        "- The paper's 126 Mb/s maximum TCP throughput: 1,024-byte segments in 23 cells each on "
        "links that carry cells at the SONET payload rate (149.76 Mb/s of 155.52); the links "
        'here are `framing = "sonet"`, which gives 125.8 Mb/s.',
        "",
        "## Choices the paper leaves open",
        "",
        "- Fig. 4's distances: three 1000 km links (5 ms each), which gives the stated 30 ms.",
        "- Fig. 7's distances: not given; the main runs use the same 30 ms round trip (LAN "
        "links of 1 km, 1000 km from each edge switch to the backbone and between the "
        "backbone switches).",
        "- TCP timer: exact, 200 ms minimum RTO; no delayed ACK (equation 2 assumes one "
        "segment of growth per round trip); a 1 MiB receiver window; starts spread over "
        "10 ms, which the seed moves.",
        "- GFR policy: R = the whole buffer, W_i = 1 for every VC, no tagging; 48,000 cells of "
        "buffer at the backbone switches of Fig. 7 as in Tables 1-3 (threshold set 1 is also "
        "run with W_i in proportion to R_i and with R = the sum of the R_i: below).",
        "- The artificial loss of Fig. 3: the next new segment after cwnd reaches the value is "
        "lost before it leaves the host.",
        "- Run length: 40 s for Fig. 3 (statistics from 5 s), 20 s for the tables (from 5 s); "
        "quick mode 20 s and 8 s (from 3 s).",
        "",
        "## Rows that disagree",
        "",
    ]
    bad = [r for r in rows if not r.agrees]
    if not bad:
        lines.append("None.")
    short_ok = merge_text(m)[0]
    for r in bad:
        if r.claim.startswith("Fig. 3"):
            cause = "What is known is below (Fig. 3 against the paper's simulation)."
        elif r.claim.startswith("Table") and short_ok:
            cause = "Cause, found by experiment: Fig. 7's unstated distances (below)."
        else:
            cause = "No cause established; see below."
        lines.append(
            f"- **{r.claim}**: paper {r.paper}, ours {r.measured:g} {r.unit}. {r.note} {cause}"
        )
    lines += ["", "### Fig. 3 against the paper's simulation", "", fig3_text(m)]
    lines += ["", "### Tables 4-5 and the distances of Fig. 7", "", merge_text(m)[1]]
    return "\n".join(lines) + "\n"


def fig3_text(m: Measured) -> str:
    parts = []
    for k, at in enumerate(FIG3_CASES[:3]):
        g, cwnd, rtt = m.fig3(k)
        w = float(at.split()[0])
        paper_avg = FIG3_FORMULA[k] * 0.030 / 8e-6
        parts.append(
            f"{at}: ours {g:.2f} Mb/s, {100 * (g / FIG3_PAPER[k] - 1):+.1f}% from the paper's "
            f"{FIG3_PAPER[k]}; our average window {cwnd / w:.3f} W against the paper's "
            f"{paper_avg / w:.3f} W; our RTT {rtt * 1e3:.2f} ms; the paper's simulation "
            f"{100 * (FIG3_PAPER[k] / FIG3_FORMULA[k] - 1):+.1f}% from its own equation-1 value"
        )
    from_zero = []
    within = True
    for d in FROM_ZERO_DURATIONS:
        vals = []
        for k in range(3):
            g = float(
                m.res[f"fig3-{k}-from0-{d.split()[0]}s"].connections.loc["s1", "goodput_mbps"]
            )
            within &= TOL_FIG3.check(g, FIG3_PAPER[k])
            vals.append(f"{g:.2f} ({100 * (g / FIG3_PAPER[k] - 1):+.1f}%)")
        from_zero.append(f"{d} runs: " + " / ".join(vals))
    return (
        "Each of our throughputs matches equation 1 fed with the run's own average window "
        "and RTT (the second row of each case). Against the paper's simulation: "
        + "; ".join(parts)
        + ". So the difference is the product of two: our windows average close to 3W/4, "
        "the sawtooth of equation 2, where the paper's average (from its own figures) is "
        "lower; and the paper's simulated throughputs lie below its own equation-1 values. "
        "The paper does not say over what time it measured. Counted from time 0, slow start "
        "and the first cycle included, ours give "
        + "; ".join(from_zero)
        + (
            ", all within 5% of the paper's. A measurement from the start of the run would "
            "thus account for the difference, but the paper's window and run length are not "
            "known, so it is not named as the cause; the main rows measure after a 5 s "
            "warm-up, as the paper's 'linear phases' suggest."
            if within
            else ". That does not close the gap either; what the paper's simulation did "
            "differently is not known."
        )
    )


def merge_text(m: Measured) -> tuple[bool, str]:
    """Whether the short backbone agrees on every criterion of Tables 4-5 (each ratio, the
    utilisation, the maximum queue) where the main runs do not, and the paragraph."""
    parts = []
    short_ok = True
    for s in range(3):
        r = merge_ratios(m, s).mean(axis=0)
        short = merge_ratios(m, s, m.merge_runs(s, True)).mean(axis=0)
        tol = TOL_RATIO_LOW if s < 2 else TOL_RATIO
        short_ok &= all(tol.check(float(x)) for x in short)
        short_ok &= TOL_UTIL.check(m.mean_port(s, "utilization", True))
        short_ok &= TOL_MAX_QUEUE.check(
            m.mean_port(s, "max_queue_cells", True), TABLE5_MAX_QUEUE[s]
        )
        parts.append(
            f"set {s + 1}: 30 ms {', '.join(f'{x:.2f}' for x in r)} (utilisation "
            f"{m.mean_port(s, 'utilization'):.3f}, max queue "
            f"{m.mean_port(s, 'max_queue_cells'):,.0f}); "
            f"short {', '.join(f'{x:.2f}' for x in short)} (utilisation "
            f"{m.mean_port(s, 'utilization', True):.3f}, max queue "
            f"{m.mean_port(s, 'max_queue_cells', True):,.0f}; paper "
            f"{TABLE5_MAX_QUEUE[s]:,})"
        )
    text = (
        "Fig. 7's distances are not given. The main runs take Fig. 4's 30 ms round trip; the "
        "sensitivity runs put the edge switches next to the backbone switches (about 10 ms). "
        "Ratios per VC, utilisation and maximum queue at the first backbone switch: "
        + "; ".join(parts)
        + f". With 30 ms the lowest set ({sum(TABLE4[0]):,} cells, "
        f"{sum(TABLE4[0]) / BDP_CELLS:.2f} of the {BDP_CELLS:,.0f} cells a 30 ms round trip "
        "holds at the link's cell rate) cannot hold the windows the link needs: the link "
        "idles at times and the "
        "VC with the largest threshold, which absorbs its TCPs' bursts, takes more than its "
        "share. "
    )
    variants = []
    for key, what in POLICY_VARIANTS.items():
        runs = m.merge_runs(0, variant=key)
        r = merge_ratios(m, 0, runs).mean(axis=0)
        util = float(np.mean([m.port(lb, "utilization") for lb in runs]))
        ok = all(TOL_RATIO_LOW.check(float(x)) for x in r)
        variants.append(
            f"{what}: {', '.join(f'{x:.2f}' for x in r)} (utilisation {util:.3f}; "
            + ("every ratio within 0.9-1.1)" if ok else "not every ratio within 0.9-1.1)")
        )
    text += (
        "The GFR policy's own unstated parameters, set 1 with the 30 ms round trip: "
        + "; ".join(variants)
        + ". "
    )
    if short_ok:
        text += (
            "With the short backbone every criterion the paper gives for Tables 4-5 holds at "
            "once (each ratio within its band, utilisation almost 100%, maximum queue within "
            "25%), so the set-1 disagreement is the unstated distance of Fig. 7, found by "
            "experiment. Which distances the paper used is not known, so the main runs keep "
            "Fig. 4's rather than a value chosen to fit."
        )
    else:
        text += (
            "The short backbone does not make every criterion hold either, so no cause is "
            "named: what is known is the dependence on the distances above."
        )
    return short_ok, text


# --------------------------------------------------------------------------------------------


def main(
    out_dir: str | os.PathLike[str],
    quick: bool = False,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
) -> int:
    """Run the reproduction and write its outputs into ``out_dir``; returns 0."""
    return run_reproduction("goyal1998", jobs(quick), build, out_dir, quick, workers, scheduler)


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
    m = measure(js, results, quick)
    rows = claims(m)
    atomic_write(out / "tables.csv", table_rows(m).to_csv(index=False))
    figs = figures(m, out / "figures")
    meta = {
        "paper": "Goyal, Jain, Fahmy, Vandalore, IEEE LCN 1998",
        "mode": "quick (one seed, shorter runs)" if quick else "full (3 seeds)",
    }
    intro = (
        "SACK TCPs share a FIFO switch buffer whose policy drops frames by per-VC thresholds; "
        "their throughputs follow the thresholds. One TCP per VC (Tables 1-3), then three "
        "TCPs merged per VC under the GFR buffer policy (Tables 4-5), and the window-"
        "controlled single TCP of Fig. 3."
    )
    return publish(
        out, "goyal1998", TITLE, rows, figs, notes_md(rows, m, quick), js, meta,
        quick=quick, runs_s=runs_s, n_workers=n_workers, intro=intro,
        tables=html_tables(m), clock=clock or Stopwatch(),
    )  # fmt: skip
