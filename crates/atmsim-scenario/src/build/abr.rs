//! An ABR connection's end systems: TM 4.0's parameters checked, and the defaults that
//! depend on the connection's route (ICR, FRTT) resolved.

use atmsim_engine::SimTime;
use atmsim_model::service::TrafficDescriptor;
use atmsim_model::spec::{AbrParams, AbrSpec};

use super::connection::{cells_per_second, fmt_rate};
use super::path;
use crate::error::{FieldPath, Problem};
use crate::schema::{
    AbrConfig, AbrOverride, ConnectionConfig, DestinationCi, Scenario, SourceConfig, SourceDrop,
};
use crate::units::{AbrFrtt, AbrIcr};

/// The route of an ABR connection, as its defaults need it.
pub(super) struct AbrRoute {
    /// The rate of the route's first link [cells/s]: PCR when the connection gives none.
    pub first_link_rate: f64,
    /// The route's round trip from its fixed delays: FRTT when `[abr]` says "path".
    pub round_trip: SimTime,
}

/// A connection's ABR end systems: TM 4.0's parameters in their ranges, every default
/// resolved (PCR, FRTT, the ICR the source starts at).
pub(super) fn check_abr(
    s: &Scenario,
    c: &ConnectionConfig,
    d: &TrafficDescriptor,
    route: &AbrRoute,
    p: &FieldPath,
) -> Result<AbrSpec, Problem> {
    let a: AbrConfig = s.abr.with(&c.abr);
    let o: &AbrOverride = &c.abr;
    let at = |field: &str| {
        if o.sets(field) {
            p.clone().key("abr").key(field)
        } else {
            path("abr").key(field)
        }
    };
    let fail = |field: &str, msg: String| Err(Problem::new(at(field), msg));
    let pcr = d.pcr.unwrap_or(route.first_link_rate);
    let mcr = d.mcr.unwrap_or(0.0);
    if mcr > pcr {
        return Err(Problem::new(
            p.clone().key("mcr"),
            format!(
                "{} is above the PCR ({pcr:.0} cells/s): allowed 0 <= mcr <= pcr",
                fmt_rate(c, "mcr")
            ),
        ));
    }
    let icr = match a.icr {
        AbrIcr::Word(_) => pcr,
        AbrIcr::Value(r) => cells_per_second(r),
    };
    if icr > pcr * (1.0 + 1e-9) || icr < mcr * (1.0 - 1e-9) {
        return fail(
            "icr",
            format!("{icr:.0} cells/s is outside [MCR, PCR] = [{mcr:.0}, {pcr:.0}] cells/s"),
        );
    }
    check_abr_values(&a, &at)?;
    if a.access_rate.value().is_some() && !matches!(c.source, SourceConfig::Tcp(_)) {
        return fail(
            "access_rate",
            "an access line carries a TCP host's frames; this connection's source sends cells \
             (allowed for it: \"off\")"
                .into(),
        );
    }
    let tcr = cells_per_second(a.tcr);
    if tcr > pcr {
        return fail(
            "tcr",
            format!("{tcr:.0} cells/s is above the PCR ({pcr:.0} cells/s)"),
        );
    }
    let frtt = match a.frtt {
        AbrFrtt::Word(_) => route.round_trip,
        AbrFrtt::Value(t) => t.0,
    };
    let tbe = u64::from(a.tbe.0);
    Ok(AbrSpec {
        params: AbrParams {
            pcr,
            mcr,
            icr: source_icr(icr, tbe, frtt, mcr, pcr),
            tcr,
            nrm: a.nrm,
            mrm: a.mrm,
            trm: a.trm.0,
            rif: a.rif,
            rdf: a.rdf,
            adtf: a.adtf.0,
            tbe,
            cdf: a.cdf,
            frtt,
        },
        source_buffer: a.source_buffer.cells(),
        drop_frames: a.source_drop == SourceDrop::Frames,
        ci_any_since_rm: a.destination_ci == DestinationCi::AnySinceRm,
        access_cell_time: a.access_rate.value().map(|r| r.cell_time()),
    })
}

/// The ICR the source starts at [cells/s]: the given `icr` bounded by TBE / FRTT (TM 4.0
/// source rule 2: the cells sent in the first round trip never exceed the transient buffer
/// exposure), within [MCR, PCR]. A zero FRTT (a path without delays) bounds nothing.
fn source_icr(icr: f64, tbe: u64, frtt: SimTime, mcr: f64, pcr: f64) -> f64 {
    let mut icr = icr;
    if frtt > SimTime::ZERO {
        icr = icr.min(tbe as f64 / frtt.as_secs_f64());
    }
    icr.clamp(mcr, pcr)
}

/// TM 4.0's parameters that do not depend on the connection, each in its range: for `[abr]`
/// itself (every default is checked, whether a connection uses it or not) and for each ABR
/// connection's own. `at` names a field.
pub(super) fn check_abr_values(
    a: &AbrConfig,
    at: &dyn Fn(&str) -> FieldPath,
) -> Result<(), Problem> {
    let fail = |field: &str, msg: String| Err(Problem::new(at(field), msg));
    if !(a.nrm.is_power_of_two() && (2..=256).contains(&a.nrm)) {
        return fail(
            "nrm",
            format!("{}: TM 4.0 allows 2, 4, 8, ..., 256 (default 32)", a.nrm),
        );
    }
    if a.mrm == 0 || a.mrm >= a.nrm {
        return fail(
            "mrm",
            format!("{}: allowed 1 <= mrm < nrm ({}) (default 2)", a.mrm, a.nrm),
        );
    }
    for (field, x) in [("rif", a.rif), ("rdf", a.rdf)] {
        if !(x > 0.0 && x <= 1.0) {
            return fail(
                field,
                format!("{x}: allowed 0 < {field} <= 1 (TM 4.0: 1/32768 to 1; default 1/16)"),
            );
        }
    }
    if !(0.0..=1.0).contains(&a.cdf) {
        return fail(
            "cdf",
            format!("{}: allowed 0 <= cdf <= 1 (default 1/16)", a.cdf),
        );
    }
    for (field, t) in [("trm", a.trm), ("adtf", a.adtf)] {
        if t.is_zero() {
            return fail(field, "must be above 0 s".into());
        }
    }
    if a.tbe.0 == 0 {
        return fail(
            "tbe",
            "a transient buffer exposure of 0 cells lets no cell go; give at least 1 cell".into(),
        );
    }
    if a.access_rate
        .value()
        .is_some_and(|r| r.cell_time() == SimTime::ZERO)
    {
        return fail(
            "access_rate",
            "a line faster than one cell per picosecond; give a rate such as \"155.52 Mb/s\" \
             or \"off\""
                .into(),
        );
    }
    if a.source_buffer.cells() == Some(0) {
        return fail(
            "source_buffer",
            "a source queue of 0 cells holds nothing; give at least 1 cell or \"unlimited\"".into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tbe_over_frtt_bounds_icr() {
        // 300 cells over a 30 ms round trip: at most 10,000 cells/s to start with.
        let icr = source_icr(50_000.0, 300, SimTime::from_ms(30), 0.0, 100_000.0);
        assert!((icr - 10_000.0).abs() < 1e-6);
        assert_eq!(
            source_icr(5_000.0, 300, SimTime::from_ms(30), 0.0, 100_000.0),
            5_000.0
        );
    }

    #[test]
    fn icr_stays_within_mcr_and_pcr() {
        // The range check allows a rounding error of 1e-9; the source's ICR is exact.
        let pcr = 353_207.5;
        assert_eq!(
            source_icr(pcr * (1.0 + 1e-10), 1 << 24, SimTime::ZERO, 0.0, pcr),
            pcr
        );
        assert_eq!(
            source_icr(1.0, 300, SimTime::from_ms(30), 20_000.0, pcr),
            20_000.0
        );
        assert_eq!(
            source_icr(10.0, 300, SimTime::ZERO, 0.0, pcr),
            10.0,
            "no FRTT, no bound"
        );
    }
}
