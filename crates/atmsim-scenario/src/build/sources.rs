//! What feeds a connection's VC: a TCP source with its application, or a cell source.

use atmsim_engine::SimTime;
use atmsim_model::service::TrafficDescriptor;
use atmsim_model::spec::{AppSpec, SourceSpec};

use super::connection::{cells_per_second, fmt_pcr};
use super::tcp::check_tcp;
use crate::error::{FieldPath, Problem};
use crate::schema::{App, ConnectionConfig, OnOffConfig, Scenario, SourceConfig, TcpOverride};
use crate::units::Rate;

/// The source; TCP settings on a cell source are refused (they would be silently unused).
pub(super) fn check_source(
    s: &Scenario,
    c: &ConnectionConfig,
    d: &TrafficDescriptor,
    p: &FieldPath,
) -> Result<SourceSpec, Problem> {
    let at = p.clone().key("source");
    if !matches!(c.source, SourceConfig::Tcp(_)) {
        check_no_tcp_settings(c, p)?;
    }
    Ok(match &c.source {
        SourceConfig::Tcp(_) => SourceSpec::Tcp {
            tcp: check_tcp(&s.tcp, &c.tcp, p)?,
            app: match c.app {
                App::Greedy => AppSpec::Greedy,
                App::Bytes(b) if b.bytes() == 0 => {
                    return Err(Problem::new(
                        p.clone().key("app"),
                        "sends 0 bytes; give at least 1 B",
                    ))
                }
                App::Bytes(b) => AppSpec::Bytes(b.bytes()),
            },
        },
        SourceConfig::Greedy(_) => SourceSpec::Greedy,
        SourceConfig::Cbr(cbr) => SourceSpec::Cbr {
            rate: cell_rate(c, d, cbr.rate, &at)?,
        },
        SourceConfig::OnOff(o) => check_on_off(o, cell_rate(c, d, o.rate, &at)?, at)?,
    })
}

/// A cell source has no TCP settings and no application.
fn check_no_tcp_settings(c: &ConnectionConfig, p: &FieldPath) -> Result<(), Problem> {
    if c.tcp != TcpOverride::default() {
        return Err(Problem::new(
            p.clone().key("tcp"),
            "TCP settings apply only to a TCP source (source = \"tcp\")",
        ));
    }
    if c.app != App::Greedy {
        return Err(Problem::new(
            p.clone().key("app"),
            "an application applies only to a TCP source (source = \"tcp\")",
        ));
    }
    Ok(())
}

/// A cell source's rate [cells/s]: its own, else the VC's PCR; never above the PCR. `at` is
/// the connection's `source` key.
fn cell_rate(
    c: &ConnectionConfig,
    d: &TrafficDescriptor,
    rate: Option<Rate>,
    at: &FieldPath,
) -> Result<f64, Problem> {
    let r = match (rate, d.pcr) {
        (Some(r), _) => cells_per_second(r),
        (None, Some(pcr)) => pcr,
        (None, None) => {
            return Err(Problem::new(
                at.clone().key("rate"),
                "give the source's rate, or the connection's pcr",
            ))
        }
    };
    if let (Some(pcr), Some(given)) = (d.pcr, rate) {
        if r > pcr {
            return Err(Problem::new(
                at.clone().key("rate"),
                format!(
                    "{given} is above the VC's pcr ({}): the source would break its contract",
                    fmt_pcr(c)
                ),
            ));
        }
    }
    Ok(r)
}

/// An ON-OFF source at `rate` [cells/s]: its period and duty cycle, the ON time in whole
/// picoseconds.
fn check_on_off(o: &OnOffConfig, rate: f64, at: FieldPath) -> Result<SourceSpec, Problem> {
    if o.period.is_zero() {
        return Err(Problem::new(at.key("period"), "must be positive"));
    }
    if !(o.duty_cycle > 0.0 && o.duty_cycle <= 1.0) {
        return Err(Problem::new(
            at.key("duty_cycle"),
            format!(
                "{} is not a share of the period: allowed 0 < duty_cycle <= 1",
                o.duty_cycle
            ),
        ));
    }
    let period = o.period.0;
    let on = SimTime((period.0 as f64 * o.duty_cycle).round() as u64);
    if on == SimTime::ZERO {
        return Err(Problem::new(
            at.key("duty_cycle"),
            "the ON time rounds to 0 ps; give a larger duty cycle or period",
        ));
    }
    Ok(SourceSpec::OnOff {
        rate,
        period,
        on,
        durations: o.durations,
    })
}
