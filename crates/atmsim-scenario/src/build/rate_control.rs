//! A port's ABR rate control: each scheme's values checked and resolved into its config.

use atmsim_model::spec::{
    EfciConfig, EfciMark as SpecEfciMark, EricaConfig, EricaPlus, FmmraConfig,
    FmmraTarget as SpecFmmraTarget, LoadAveraging, RateControlSpec,
};

use crate::error::{FieldPath, Problem};
use crate::schema::{
    CcrSource, EfciMark as EfciMarkKey, FmmraTarget as FmmraTargetKey, LoadAveragingConfig,
    LoadAveragingMethod, RateControl,
};

const INTERVAL_CELLS_ZERO: &str = "0: allowed 1 or more ABR cells (default 100); an averaging \
     interval ends after this many ABR cells or after `interval`, whichever comes first";

/// A port's ABR rate control, each value in its range.
pub(super) fn check_rate_control(
    r: &RateControl,
    at: &FieldPath,
) -> Result<RateControlSpec, Problem> {
    let fail = |field: &str, msg: String| Err(Problem::new(at.clone().key(field), msg));
    let averaging = |a: &Option<LoadAveragingConfig>| -> Result<Option<LoadAveraging>, Problem> {
        let Some(a) = a else { return Ok(None) };
        if !(a.az > 0.0 && a.az <= 1.0) {
            return Err(Problem::new(
                at.clone().key("load_averaging").key("az"),
                format!(
                    "{} is not a weight: allowed 0 < az <= 1 (96-1294: 0.2)",
                    a.az
                ),
            ));
        }
        Ok(Some(match a.method {
            LoadAveragingMethod::Ratio => LoadAveraging::Ratio { az: a.az },
            LoadAveragingMethod::Reset => LoadAveraging::Reset { az: a.az },
        }))
    };
    let (u, cells, interval, (delta, max_min_steps, subtract_real_time, ccr), decay, load, plus) =
        match r {
            RateControl::None(_) => return Ok(RateControlSpec::None),
            RateControl::Fmmra(f) => {
                if !(f.target_utilization > 0.0 && f.target_utilization <= 1.0) {
                    return fail(
                        "target_utilization",
                        format!(
                            "{} is not a share of the link: allowed 0 < target_utilization <= 1",
                            f.target_utilization
                        ),
                    );
                }
                if f.interval.is_zero() {
                    return fail(
                        "interval",
                        "an averaging interval of 0 s measures nothing; give e.g. \"1 ms\"".into(),
                    );
                }
                if f.interval_cells == 0 {
                    return fail("interval_cells", INTERVAL_CELLS_ZERO.into());
                }
                if !(f.alpha > 0.0 && f.alpha <= 1.0) {
                    return fail(
                        "alpha",
                        format!("{}: allowed 0 < alpha <= 1 (An 1997: 1/8)", f.alpha),
                    );
                }
                if !(f.reduction > 0.0 && f.reduction <= 1.0) {
                    return fail(
                        "reduction",
                        format!("{}: allowed 0 < reduction <= 1", f.reduction),
                    );
                }
                if f.qt.0 > f.dqt.0 {
                    return fail(
                        "qt",
                        format!("{} is above dqt ({}): allowed qt <= dqt", f.qt, f.dqt),
                    );
                }
                return Ok(RateControlSpec::Fmmra(FmmraConfig {
                    target_utilization: f.target_utilization,
                    interval_cells: f.interval_cells,
                    interval: f.interval.0,
                    alpha: f.alpha,
                    qt: f.qt.0,
                    dqt: f.dqt.0,
                    reduction: f.reduction,
                    target: match f.target {
                        FmmraTargetKey::Link => SpecFmmraTarget::Link,
                        FmmraTargetKey::Available => SpecFmmraTarget::Available,
                    },
                }));
            }
            RateControl::Efci(e) => {
                if e.high.0 == 0 {
                    return fail(
                        "high",
                        "a threshold of 0 cells marks every cell; give at least 1 cell".into(),
                    );
                }
                if e.low.0 > e.high.0 {
                    return fail(
                        "low",
                        format!("{} is above high ({}): allowed low <= high", e.low, e.high),
                    );
                }
                return Ok(RateControlSpec::Efci(EfciConfig {
                    high: e.high.0,
                    low: e.low.0,
                    mark: match e.mark {
                        EfciMarkKey::Arrival => SpecEfciMark::Arrival,
                        EfciMarkKey::Departure => SpecEfciMark::Departure,
                    },
                }));
            }
            RateControl::Erica(e) => (
                e.target_utilization,
                e.interval_cells,
                e.interval,
                (e.delta, e.max_min_steps, e.subtract_real_time, e.ccr),
                e.source_decay,
                averaging(&e.load_averaging)?,
                None,
            ),
            RateControl::EricaPlus(e) => {
                for (field, x) in [("a", e.a), ("b", e.b)] {
                    if !(x >= 1.0 && x.is_finite()) {
                        return fail(field, format!("{x}: a queue control curve needs {field} >= 1 (96-1294: a = 1.15, b = 1.05)"));
                    }
                }
                if !(e.qdlf > 0.0 && e.qdlf <= 1.0) {
                    return fail(
                        "qdlf",
                        format!("{}: allowed 0 < qdlf <= 1 (96-1294: 0.5)", e.qdlf),
                    );
                }
                if e.t0.is_zero() {
                    return fail("t0", "a target queueing delay of 0 s leaves no queue to aim at; give e.g. \"500 us\"".into());
                }
                (
                    e.target_utilization,
                    e.interval_cells,
                    e.interval,
                    (e.delta, e.max_min_steps, e.subtract_real_time, e.ccr),
                    e.source_decay,
                    averaging(&e.load_averaging)?,
                    Some(EricaPlus {
                        t0: e.t0.0,
                        a: e.a,
                        b: e.b,
                        qdlf: e.qdlf,
                    }),
                )
            }
        };
    if !(u > 0.0 && u <= 1.0) {
        return fail(
            "target_utilization",
            format!("{u} is not a share of the link: allowed 0 < target_utilization <= 1"),
        );
    }
    if interval.is_zero() {
        return fail(
            "interval",
            "an averaging interval of 0 s measures nothing; give e.g. \"1 ms\"".into(),
        );
    }
    if cells == 0 {
        return fail("interval_cells", INTERVAL_CELLS_ZERO.into());
    }
    if !(delta >= 0.0 && delta.is_finite()) {
        return fail(
            "delta",
            format!("{delta}: allowed delta >= 0 (the overload hysteresis, default 0.1)"),
        );
    }
    if let Some(an) = decay {
        if !(0.0..1.0).contains(&an) {
            return fail(
                "source_decay",
                format!("{an}: allowed 0 <= source_decay < 1 (96-1294: An = 0.9)"),
            );
        }
    }
    Ok(RateControlSpec::Erica(EricaConfig {
        target_utilization: u,
        interval_cells: cells,
        interval: interval.0,
        delta,
        max_min_steps,
        subtract_real_time,
        source_decay: decay,
        measured_ccr: ccr == CcrSource::Measured,
        load_averaging: load,
        plus,
    }))
}
