"""The studies beside the runs each claim needs, as data: FMMRA's and EFCI's unstated settings
over grids, readings of what the thesis's simulator did (``READINGS``, the sources' start
times among them), the variants of ERICA tried on the transient-fairness row, and the tests
of the mechanism behind EFCI's unfairness on the 1,500-cell network (EFCI's thresholds and
end-system steps, per-VC buffers, unequal round trips, a late second source, details moved a
step)."""

from __future__ import annotations

from typing import Any

from atmsim.reproduce.an1997.schemes import FAMILIES, SCHEMES, VBR_START_S

#: Sensitivity to what the thesis leaves open in FMMRA: the target utilisation and the QT /
#: DQT thresholds (atmsim's defaults 0.95 and 200 / 1,000 cells, the first entry). Each
#: setting runs every network FMMRA appears on and is scored on every FMMRA claim at once
#: (:func:`fmmra_criteria`), so a setting only explains the thesis if all of them hold.
FMMRA_GRID: tuple[tuple[float, int, int], ...] = (
    (0.95, 200, 1_000),
    (0.95, 500, 2_500),
    (0.95, 1_000, 5_000),
    (0.95, 2_000, 10_000),
    (1.0, 200, 1_000),
    (1.0, 500, 2_500),
    (1.0, 1_000, 5_000),
    (1.0, 2_000, 10_000),
)
#: Quick mode scores atmsim's defaults and one other corner of the grid.
QUICK_FMMRA_GRID = (FMMRA_GRID[0], FMMRA_GRID[6])
#: The setting of the sensitivity row of Figs. 4.17-4.18.
LOOSE = FMMRA_GRID[6]

#: Sensitivity to what the thesis leaves open in EFCI: the ABR queue at which a port starts
#: marking and the one at which it stops ("High Queue length Threshold", whose value the
#: thesis does not give; atmsim's defaults 500 / 250 cells). Each setting runs every network
#: EFCI appears on and is scored on every claim of the thesis about EFCI at once
#: (:func:`efci_criteria`). The grid reaches below the defaults because the thesis says a
#: "proper High Queue length Threshold" (with RIF and RDF) can control the cell loss of the
#: 1,500-cell runs: lower thresholds mark sooner. The thesis names only a high threshold, so
#: the grid also marks with no hysteresis (clearing where marking starts). The 1,500-cell
#: network runs every setting on the wider seeds too (WIDE_SEEDS): a setting that explains the
#: fairness row on the fairness seeds is a cause only if the row holds there and the thesis's
#: account shows there (:func:`efci_threshold_analysis`).
EFCI_DEFAULT = (500, 250)
EFCI_GRID: tuple[tuple[int, int], ...] = (
    (100, 50),
    (250, 125),
    EFCI_DEFAULT,
    (750, 375),
    (1_000, 500),
    (1_250, 625),
    (1_000, 1_000),
    (1_250, 1_250),
)
QUICK_EFCI_GRID = (EFCI_DEFAULT, (1_250, 625))
#: The families EFCI appears on.
EFCI_FAMILIES = ("n2", "n5", "acr", "buffer")
#: A test of where the paired losses of Figs. 4.14-4.16 come from: the 1,500-cell switch
#: buffer split into 750 cells per VC, so that each source overflows only its own share (a
#: test of the mechanism, not a reading of the thesis, whose buffer is one). Run for EFCI and
#: ERICA with the fairness seeds.
PER_VC_BUFFER = {"switch.*.vc_buffer": "750 cells"}
PER_VC_SCHEMES = ("efci", "erica")


def per_vc_key(s: str) -> str:
    return f"{s}+per_vc_buffer"


#: A second test of the mechanism, not a reading of the thesis: the second source's access
#: link 100 km long (500 us) instead of atmsim's 1 km (the thesis gives only the backbone's
#: length; atmsim makes the access links as long), so that the two round trips differ by 1 ms.
#: Run for every scheme with the fairness seeds.
LONG_ACCESS = {"link.src2-A.delay": "500 us"}
LONG_ACCESS_SCHEMES = ("efci", "erica", "fmmra")


def long_access_key(s: str) -> str:
    return f"{s}+src2_100km"


#: A third test of the mechanism, of the thesis's account itself ("once a TCP source ... enters
#: the slow start stage, other TCP sources take this advantage ... when the next congestion
#: occurs, this TCP source compete with others at an unfavorite situation"): the second source
#: starts at 0.5 s, in slow start while the first holds the link, on the 1,500-cell network,
#: every scheme, the fairness seeds. The account predicts that under EFCI it stays behind.
LATE_START = {"connection.s2.start": "500 ms"}
LATE_START_S = 0.5
LATE_START_SCHEMES = ("efci", "erica", "fmmra")


def late_start_key(s: str) -> str:
    return f"{s}+src2_late"


#: The shared buffer's overflows on the 1,500-cell network seen at a fine grain: EFCI and ERICA
#: with the fairness seeds, each source's dropped cells sampled every FINE_SAMPLE; an overflow
#: is a run of samples with drops, gaps shorter than OVERFLOW_GAP_S joined.
FINE_SAMPLE = "0.2 ms"
OVERFLOW_GAP_S = 0.001
FINE_SCHEMES = ("efci", "erica")


def fine_key(s: str) -> str:
    return f"{s}+fine"


#: How firm the 1,500-cell ordering of EFCI and ERICA is (Figs. 4.14-4.16): each parameter
#: below moved one step from the thesis's value (or from atmsim's choice where the thesis gives
#: none), EFCI and ERICA run on PERTURB_SEEDS. Not readings of the thesis, which fixes most of
#: these: a measure of how far the row's sign rests on details. (What it is, the overrides.)
PERTURBATIONS: dict[str, tuple[str, dict[str, Any]]] = {
    "nrm16": ("Nrm 16 (the thesis: 32)", {"abr.nrm": 16}),
    "nrm64": ("Nrm 64", {"abr.nrm": 64}),
    "icr1": ("ICR 1 Mb/s (the thesis: 10)", {"abr.icr": "1 Mb/s"}),
    "icr_pcr": ("ICR at the PCR", {"abr.icr": "155.52 Mb/s"}),
    "window48": ("a 48 KiB window (the thesis: 64 KB)", {"tcp.max_window": "48 KiB"}),
    "no_processing": (
        "no host processing time (the thesis: 200 us, varying by 50)",
        {"host.processing_delay": "0 s", "host.processing_jitter": "0 s"},
    ),
    "no_llc_snap": ("no LLC/SNAP header (the thesis: RFC 1577's)", {"host.llc_snap": False}),
    "no_crm": ("no CRM rule (TBE unbounded; the thesis: CRM 20)", {"abr.tbe": "1000000 cells"}),
}
PERTURB_SEEDS = tuple(range(1, 11))
QUICK_PERTURB_SEEDS = (1, 2)
QUICK_PERTURBATIONS = ("nrm16", "no_llc_snap")
PERTURB_SCHEMES = ("efci", "erica")


def perturbations(quick: bool) -> tuple[str, ...]:
    return QUICK_PERTURBATIONS if quick else tuple(PERTURBATIONS)


def perturb_seeds(quick: bool) -> tuple[int, ...]:
    return QUICK_PERTURB_SEEDS if quick else PERTURB_SEEDS


def perturb_key(s: str, p: str) -> str:
    return f"{s}+perturb_{p}"


#: The fairness rows as (family, scheme above, scheme below): the claim is that the first is
#: fairer than the second.
FAIRNESS_PAIRS = (
    ("n5", "fmmra", "erica"),
    ("n5", "fmmra", "efci"),
    ("buffer", "erica", "efci"),
    ("buffer", "fmmra", "efci"),
)
#: A span in which one source is starved: over 50 ms (10 samples), one source's mean goodput
#: below a third of the other's.
STARVED_SAMPLES = 10
STARVED_RATIO = 1 / 3

#: The fairness rows scored on what the thesis's figures show, fixed before the
#: runs on the wide seeds were made: a Jain index of 0.99 or more on both sides is not the
#: visible unfairness of Figs. 4.8-4.10 and 4.14-4.16, so each fairness row is scored too on
#: the share of 50 ms spans (10 samples) in which the least-served source's mean goodput is
#: under half of the best-served one's (on the 1,500-cell network every span after the VBR
#: start, on N = 5 every span of the transient read). A row holds on a measure when the
#: scheme it names is on the claimed side of the mean over the wide seeds AND a two-sided sign
#: test over the seeds gives p < ``p``; it is reversed when the other scheme is, with that p;
#: otherwise the measure does not separate the schemes.
VISIBLE = {"samples": 10, "ratio": 0.5, "p": 0.05}
#: The two readings of "the transient" of Figs. 4.8-4.10 (the thesis's "during the transient
#: period" names no window): the start-up, from the sources' start to the VBR source's
#: (0-0.3 s), and the 300 ms after the VBR source starts (0.3-0.6 s, the claims' own).
TRANSIENTS = {"start-up": (0.0, VBR_START_S), "after the VBR start": (VBR_START_S, 0.6)}


#: A test of the thesis's "we can choose proper High Queue length Threshold and RIF, RDF
#: parameter to control the cell lost" (Figs. 4.14-4.16): EFCI on the 1,500-cell network with
#: end-system steps other than the thesis's RIF 0.1 / RDF 1/16, (RIF, RDF, marking from;
#: clearing at half of it), with the fairness seeds. Not a reading of the thesis, which states
#: RIF 0.1 and RDF 1/16 for EFCI.
EFCI_RATE_GRID: tuple[tuple[float, float, int], ...] = (
    (1 / 16, 1 / 4, 250),
    (1 / 16, 1 / 2, 250),
    (0.1, 1 / 4, 250),
    (0.1, 1 / 2, 250),
    (1 / 16, 1 / 4, 500),
    (0.1, 1 / 2, 500),
)
QUICK_EFCI_RATE_GRID = EFCI_RATE_GRID[:2]


def efci_rate_grid(quick: bool) -> tuple[tuple[float, float, int], ...]:
    return QUICK_EFCI_RATE_GRID if quick else EFCI_RATE_GRID


def efci_rate_key(rif: float, rdf: float, high: int) -> str:
    return f"efci-rif{rif:g}-rdf{rdf:g}-h{high}"


def efci_rate_overrides(rif: float, rdf: float, high: int) -> dict[str, Any]:
    return {
        **efci_overrides(high, high // 2),
        "abr.rif": repr(rif),
        "abr.rdf": repr(rdf),
    }


#: Readings of the model that the thesis leaves open, each scored on every claim at once:
#: every network and scheme it touches runs again under it (with the fairness seeds), and the
#: claims are computed from those runs as from the main ones. A reading is (what it is, why it
#: is a candidate, the extra overrides per scheme; a scheme it does not touch keeps its main
#: runs); :func:`reading_overrides` adds what depends on the network (the start times).
READINGS: dict[str, tuple[str, str, dict[str, dict[str, Any]]]] = {
    "vbr_exponential": (
        "the VBR source's ON and OFF periods exponential with means 10 ms (or 100 ms)",
        "the thesis ran the NIST ATM Network Simulator, whose VBR application is an ON-OFF "
        "source set by a mean burst length and a mean interval between bursts, not by fixed "
        "times",
        {s: {"connection.vbr.source.durations": "exponential"} for s in SCHEMES},
    ),
    "fmmra_link": (
        "FMMRA's target utilisation a share of the link, U x link - VBR (ERICA's ABR "
        "capacity), instead of the capacity the VBR source leaves, U x (link - VBR)",
        "the thesis states this form for ERICA (3.2) and says only 'available capacity' for "
        "FMMRA; with the VBR source at 100 of 155 Mb/s the reduced target above DQT leaves "
        "ABR 18 Mb/s under this reading and 42 under atmsim's",
        {"fmmra": {"switch.*.rate_control": {"kind": "fmmra", "target": "link"}}},
    ),
    "efci_departure": (
        "EFCI set on ABR cells as they leave the port, by the queue they leave behind",
        "TM 4.0 does not say where in the port the bit is set; marking on arrival makes the "
        "mark wait behind the whole queue before it reaches the destination",
        {
            "efci": {
                "switch.*.rate_control": {"kind": "efci", "mark": "departure"},
            }
        },
    ),
    "adtf_10ms": (
        "an ABR source's ACR set back to ICR after 10 ms without a forward RM cell (ADTF "
        "10 ms instead of TM 4.0's default 0.5 s)",
        "the thesis lists its ABR parameters without ADTF; with it short, a TCP source idle "
        "through a retransmission timeout comes back at ICR (10 Mb/s) while the other keeps "
        "its rate, which is the thesis's account of EFCI's unfairness: the source that went "
        "through slow start meets the next congestion at a disadvantage",
        {s: {"abr.adtf": "10 ms"} for s in SCHEMES},
    ),
    "vbr_100ms": (
        "the VBR source's ON and OFF periods 100 ms, not 10 ms, on the networks whose period "
        "the thesis does not state (Figs. 4.2-4.4, N = 2, and Figs. 4.14-4.16)",
        "the two-source figures just before the 1,500-cell runs (Figs. 4.11-4.13) state "
        "100 ms; the queue figures at N = 5 share their runs with Figs. 4.8-4.10, which "
        "state 10 ms, and keep it",
        # ON and OFF 100 ms each
        {s: {"connection.vbr.source.period": "200 ms"} for s in SCHEMES},
    ),
}

#: The minimum retransmission timeout, which the thesis does not give (its TCP has a "fine"
#: timer; atmsim's scenarios take 1 ms): readings of 10, 20 and 50 ms on every network and
#: scheme, scored on every claim at once (the notes' table). Full mode only.
MIN_RTO_MS = (10, 20, 50)
MIN_RTO_READINGS = {f"min_rto_{d}ms": d for d in MIN_RTO_MS}
for _name, _d in MIN_RTO_READINGS.items():
    READINGS[_name] = (
        f"the TCP sources' minimum retransmission timeout {_d} ms (not 1 ms)",
        "the thesis's TCP has a fine timer but states no lower bound on the timeout; a 1990s "
        "BSD stack's was far above a millisecond",
        {s: {"tcp.min_rto": f"{_d} ms"} for s in SCHEMES},
    )
READINGS["destination_ci_any"] = (
    "the ABR destination setting CI in a turned-round RM cell when any data cell since the "
    'last one carried EFCI (abr.destination_ci = "any_since_rm"), not only the last',
    "TM 4.0's destination rule keeps the EFCI state of the last data cell; a destination that "
    "remembers any mark since the last RM cell reports congestion the last cell missed, and "
    "the thesis does not say which its simulator did",
    {"efci": {"abr.destination_ci": "any_since_rm"}},
)
READINGS["cpu_exponential"] = (
    "each packet's host processing time exponential with mean 200 us, not uniform on 200 +- 50 us",
    "the thesis gives the processing time as 200 us with a 50 us variation without naming the "
    "distribution",
    {
        s: {"host.processing_distribution": "exponential", "host.processing_jitter": "0 s"}
        for s in SCHEMES
    },
)
#: Of the minimum-RTO, CI-rule and CPU-time readings, the one quick mode runs (the cheapest:
#: EFCI only).
QUICK_NEW_READINGS = ("destination_ci_any",)
NEW_READINGS = (*MIN_RTO_READINGS, "destination_ci_any", "cpu_exponential")

#: The families a reading runs on, where not every one (the others keep their main runs).
READING_FAMILIES: dict[str, tuple[str, ...]] = {"vbr_100ms": ("n2", "buffer")}


def reading_families(reading: str) -> tuple[str, ...]:
    """The families ``reading`` runs on."""
    return READING_FAMILIES.get(reading, tuple(FAMILIES))


#: The sources' start times, which the thesis does not give (atmsim's scenarios start them
#: within 1 ms of each other): readings with source i starting at (i - 1) x spacing, on every
#: network, scored on every claim like the readings above. Spaced 75 ms or more, the last of
#: five sources joins at or after the VBR source's start (0.3 s), within the transient of
#: Figs. 4.8-4.10.
START_SPACINGS_MS = (50, 75, 100, 150)
QUICK_START_SPACINGS_MS = (50, 100)
START_READINGS = {f"start_{d}ms": d for d in START_SPACINGS_MS}
for _name, _d in START_READINGS.items():
    READINGS[_name] = (
        f"the TCP sources started {_d} ms apart (source i at (i - 1) x {_d} ms)",
        "the thesis does not give its sources' start times; the NIST simulator sets one per "
        "application, and spaced this far apart "
        + (
            "the last of five joins at or after the VBR source's start, in the transient"
            if 4 * _d >= 1_000 * VBR_START_S
            else "all five have started before the VBR source does"
        ),
        {x: {} for x in SCHEMES},
    )


def readings(quick: bool) -> tuple[str, ...]:
    """The readings a run makes (quick mode: the start-time readings of
    QUICK_START_SPACINGS_MS and, of NEW_READINGS, QUICK_NEW_READINGS only)."""
    spaced = {f"start_{d}ms" for d in QUICK_START_SPACINGS_MS} if quick else set(START_READINGS)
    new = set(QUICK_NEW_READINGS) if quick else set(NEW_READINGS)
    return tuple(
        r
        for r in READINGS
        if (r not in START_READINGS or r in spaced) and (r not in NEW_READINGS or r in new)
    )


def reading_overrides(reading: str, fam: str, s: str) -> dict[str, Any]:
    """What ``reading`` changes for scheme ``s`` on family ``fam`` (on top of SCHEMES[s])."""
    out = dict(READINGS[reading][2][s])
    if reading in START_READINGS:
        d = START_READINGS[reading]
        out |= {
            f"connection.s{i}.start": f"{(i - 1) * d} ms" for i in range(1, FAMILIES[fam][1] + 1)
        }
    return out


def reading_label(reading: str, lab: str) -> str:
    return f"{reading}:{lab}"


#: Sensitivity of the transient-fairness claim (Figs. 4.8-4.10) to choices the thesis leaves
#: open (the sources' start times are readings, START_READINGS): ERICA's averaging interval
#: (10 ms / 1,000 cells instead of 1 ms / 100 cells), and where ERICA takes a VC's CCR from
#: (the port's count of its cells instead of the forward RM cells: a TCP held by its window
#: sends less than its ACR); and the other reading of ERICA's ABR capacity (the VBR load
#: subtracted, as ERICA's authors define it).
#: The window of the mechanism test (KiB): 4x the thesis's 64 KB.
WIDE_WINDOW_KIB = 256
FAIRNESS_VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "erica-interval10": (
        "erica",
        {
            "switch.*.rate_control": {
                **SCHEMES["erica"]["switch.*.rate_control"],
                "interval_cells": 1_000,
                "interval": "10 ms",
            }
        },
    ),
    "erica-measured-ccr": (
        "erica",
        {"switch.*.rate_control": {**SCHEMES["erica"]["switch.*.rate_control"], "ccr": "measured"}},
    ),
    # Not a reading of the thesis (its window is 64 KB): a test of the mechanism. With a
    # window four times larger the TCPs are no longer held by their windows, so ERICA's ACRs,
    # not one shared FIFO, decide each source's share.
    "erica-window256": (
        "erica",
        {
            "tcp.max_window": f"{WIDE_WINDOW_KIB} KiB",
            # slow start to half the window, as the thesis's TCP starts (section 2.1)
            "tcp.initial_ssthresh": f"{WIDE_WINDOW_KIB // 2} KiB",
        },
    ),
    # ERICA's own definition of its ABR capacity (U x link bandwidth less the VBR load),
    # where the thesis's equation 3.2 leaves the VBR out: the other reading of ERICA.
    "erica-vbr-subtracted": (
        "erica",
        {
            "switch.*.rate_control": {
                **SCHEMES["erica"]["switch.*.rate_control"],
                "subtract_real_time": True,
            }
        },
    ),
}


def fmmra_key(u: float, qt: int, dqt: int) -> str:
    """The scheme key of an FMMRA setting: "fmmra" for atmsim's defaults."""
    if (u, qt, dqt) == FMMRA_GRID[0]:
        return "fmmra"
    return f"fmmra-u{u:g}-qt{qt}-dqt{dqt}"


def fmmra_overrides(u: float, qt: int, dqt: int) -> dict[str, Any]:
    return {
        "switch.*.rate_control": {
            "kind": "fmmra",
            "target_utilization": u,
            "qt": f"{qt} cells",
            "dqt": f"{dqt} cells",
        },
        "abr.rif": "1.0",
        "abr.rdf": "0.001953125",
    }


def efci_key(high: int, low: int) -> str:
    """The scheme key of an EFCI setting: "efci" for atmsim's defaults."""
    return "efci" if (high, low) == EFCI_DEFAULT else f"efci-h{high}-l{low}"


def efci_overrides(high: int, low: int) -> dict[str, Any]:
    return {
        **SCHEMES["efci"],
        "switch.*.rate_control": {"kind": "efci", "high": f"{high} cells", "low": f"{low} cells"},
    }


def efci_grid(quick: bool) -> tuple[tuple[int, int], ...]:
    return QUICK_EFCI_GRID if quick else EFCI_GRID


def grid(quick: bool) -> tuple[tuple[float, int, int], ...]:
    return QUICK_FMMRA_GRID if quick else FMMRA_GRID


#: How the transient's throughput curves are smoothed when their fairness is compared: over
#: this many consecutive 5 ms samples (the thesis does not say how its curves were sampled).
SMOOTHING = (1, 2, 4, 10, 20)
