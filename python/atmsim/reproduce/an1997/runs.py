"""The runs of the An 1997 reproduction, in a fixed order: every figure family under each
scheme, the fairness seeds, FMMRA's and EFCI's grids, ERICA's variants, the readings (on the
fairness and wider seeds), EFCI's end-system steps, the 100 seeds of the 1,500-cell row (full
mode), and the tests of the mechanism."""

from __future__ import annotations

from atmsim.reproduce.an1997.schemes import (
    FAIRNESS_FAMILIES,
    FAMILIES,
    FMMRA_FAMILIES,
    QUICK_OVERRIDES,
    ROW_SCHEMES,
    ROW_SEEDS,
    SCHEMES,
    fairness_seeds,
    label,
    row_label,
    wide_label,
    wide_seeds,
)
from atmsim.reproduce.an1997.studies import (
    EFCI_DEFAULT,
    EFCI_FAMILIES,
    FAIRNESS_VARIANTS,
    FINE_SAMPLE,
    FINE_SCHEMES,
    LATE_START,
    LATE_START_SCHEMES,
    LONG_ACCESS,
    LONG_ACCESS_SCHEMES,
    PER_VC_BUFFER,
    PER_VC_SCHEMES,
    PERTURB_SCHEMES,
    PERTURBATIONS,
    READINGS,
    efci_grid,
    efci_key,
    efci_overrides,
    efci_rate_grid,
    efci_rate_key,
    efci_rate_overrides,
    fine_key,
    fmmra_key,
    fmmra_overrides,
    grid,
    late_start_key,
    long_access_key,
    per_vc_key,
    perturb_key,
    perturb_seeds,
    perturbations,
    reading_families,
    reading_label,
    reading_overrides,
    readings,
)
from atmsim.reproduce.framework import Job

__all__ = ["jobs"]


def jobs(quick: bool) -> list[Job]:
    ov = dict(QUICK_OVERRIDES) if quick else {}
    out = []
    for fam, (scenario, _, _, schemes) in FAMILIES.items():
        for s in schemes:
            out.append(Job(scenario, {**ov, **SCHEMES[s]}, label=label(fam, s)))
    for fam in FAIRNESS_FAMILIES:
        scenario, _, _, schemes = FAMILIES[fam]
        for s in schemes:
            for seed in fairness_seeds(quick)[1:]:
                out.append(
                    Job(
                        scenario,
                        {**ov, **SCHEMES[s]},
                        seed=seed,
                        label=label(fam, s, seed),
                        # the windows too where the losses' pairing is measured per seed
                        metrics=("goodput_mbps", "cwnd_bytes")
                        if fam == "buffer"
                        else ("goodput_mbps",),
                    )
                )
    for setting in grid(quick)[1:]:
        for fam in FMMRA_FAMILIES:
            out.append(
                Job(
                    FAMILIES[fam][0],
                    {**ov, **fmmra_overrides(*setting)},
                    label=label(fam, fmmra_key(*setting)),
                )
            )
    for setting in efci_grid(quick):
        if setting == EFCI_DEFAULT:
            continue  # the main runs
        key = efci_key(*setting)
        for fam in EFCI_FAMILIES:
            scenario = FAMILIES[fam][0]
            for seed in fairness_seeds(quick) if fam in FAIRNESS_FAMILIES else (1,):
                out.append(
                    Job(
                        scenario,
                        {**ov, **efci_overrides(*setting)},
                        seed=seed,
                        label=label(fam, key, seed),
                    )
                )
        for seed in wide_seeds(quick):
            if seed in fairness_seeds(quick):
                continue
            out.append(
                Job(
                    FAMILIES["buffer"][0],
                    {**ov, **efci_overrides(*setting)},
                    seed=seed,
                    label=wide_label(label("buffer", key, seed)),
                    metrics=("goodput_mbps", "cwnd_bytes"),
                )
            )
    for key, (base, extra) in FAIRNESS_VARIANTS.items():
        out.append(Job(FAMILIES["n5"][0], {**ov, **SCHEMES[base], **extra}, label=label("n5", key)))
    for reading in readings(quick):
        per_scheme = READINGS[reading][2]
        for fam, (scenario, _, _, schemes) in FAMILIES.items():
            if fam not in reading_families(reading):
                continue
            for s in schemes:
                if s not in per_scheme:
                    continue
                for seed in fairness_seeds(quick) if fam in FAIRNESS_FAMILIES else (1,):
                    out.append(
                        Job(
                            scenario,
                            {**ov, **SCHEMES[s], **reading_overrides(reading, fam, s)},
                            seed=seed,
                            label=reading_label(reading, label(fam, s, seed)),
                            metrics=("goodput_mbps", "acr_mbps", "queue_cells"),
                        )
                    )
    for setting in efci_rate_grid(quick):
        for seed in fairness_seeds(quick):
            out.append(
                Job(
                    FAMILIES["buffer"][0],
                    {**ov, **efci_rate_overrides(*setting)},
                    seed=seed,
                    label=label("buffer", efci_rate_key(*setting), seed),
                    metrics=("goodput_mbps", "acr_mbps", "queue_cells"),
                )
            )
    for fam in FAIRNESS_FAMILIES:
        scenario, _, _, schemes = FAMILIES[fam]
        more = [x for x in wide_seeds(quick) if x not in fairness_seeds(quick)]
        for s in schemes:
            runs_of_s = [("", SCHEMES[s])] + [
                (reading, {**SCHEMES[s], **reading_overrides(reading, fam, s)})
                for reading in readings(quick)
                if s in READINGS[reading][2] and fam in reading_families(reading)
            ]
            for reading, overrides in runs_of_s:
                for seed in more:
                    lab = label(fam, s, seed)
                    out.append(
                        Job(
                            scenario,
                            {**ov, **overrides},
                            seed=seed,
                            label=wide_label(reading_label(reading, lab) if reading else lab),
                            # the main runs on the 1,500-cell network also keep the windows,
                            # for the count of lone slow starts (solo_text)
                            metrics=("goodput_mbps", "cwnd_bytes")
                            if fam == "buffer" and not reading
                            else ("goodput_mbps",),
                        )
                    )
    if not quick:
        for s in ROW_SCHEMES:
            for seed in ROW_SEEDS:
                if seed in wide_seeds(quick):
                    continue
                out.append(
                    Job(
                        FAMILIES["buffer"][0],
                        {**ov, **SCHEMES[s]},
                        seed=seed,
                        label=row_label(label("buffer", s, seed)),
                        metrics=(),
                        entities=(),
                    )
                )
    # The tests of the EFCI mechanism on the 1,500-cell network (not readings of the thesis).
    for schemes, extra, key in (
        (LONG_ACCESS_SCHEMES, LONG_ACCESS, long_access_key),
        (PER_VC_SCHEMES, PER_VC_BUFFER, per_vc_key),
        (LATE_START_SCHEMES, LATE_START, late_start_key),
    ):
        for s in schemes:
            for seed in fairness_seeds(quick):
                out.append(
                    Job(
                        FAMILIES["buffer"][0],
                        {**ov, **SCHEMES[s], **extra},
                        seed=seed,
                        label=label("buffer", key(s), seed),
                    )
                )
    for s in FINE_SCHEMES:
        for seed in fairness_seeds(quick):
            out.append(
                Job(
                    FAMILIES["buffer"][0],
                    {**ov, **SCHEMES[s], "run.sample_every": FINE_SAMPLE},
                    seed=seed,
                    label=label("buffer", fine_key(s), seed),
                    metrics=("cells_dropped",),
                )
            )
    for p in perturbations(quick):
        for s in PERTURB_SCHEMES:
            for seed in perturb_seeds(quick):
                out.append(
                    Job(
                        FAMILIES["buffer"][0],
                        {**ov, **SCHEMES[s], **PERTURBATIONS[p][1]},
                        seed=seed,
                        label=label("buffer", perturb_key(s, p), seed),
                        metrics=("cwnd_bytes",),
                    )
                )
    return out
