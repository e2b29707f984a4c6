//! ERICA+: ERICA whose capacity is scaled by a function of the ABR queue, so that the port
//! aims at a queueing delay T0 rather than a utilisation below 1 (the queue control of
//! ATM Forum 96-1294, described with ERICA in [`super::erica`]). It runs ERICA's state; only
//! its table and its defaults (U = 1, T0 = 500 us, a = 1.15, b = 1.05, QDLF = 0.5) are its own.

use super::erica::{self, check_common, CcrSource, Erica, LoadAveraging, QueueControl};
use super::{Invalid, RateControlScheme, RateStats};
use crate::cell::{Cell, RmFields};
use atmsim_engine::SimTime;
use atmsim_units::Time;
use serde::{Deserialize, Serialize};

/// ERICA+'s table: ERICA's keys (target utilisation 1 by default) and the queue control.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EricaPlusConfig {
    /// U: the share of the link ABR may fill before the queue factor (96-1294: 1).
    #[serde(default = "defaults::target_utilization")]
    pub target_utilization: f64,
    /// An averaging interval ends after this many ABR cells ...
    #[serde(default = "erica::defaults::interval_cells")]
    pub interval_cells: u32,
    /// ... or after this long, whichever comes first.
    #[serde(default = "erica::defaults::interval")]
    pub interval: Time,
    /// Overload hysteresis: the port is overloaded when z > 1 + delta.
    #[serde(default = "erica::defaults::delta")]
    pub delta: f64,
    /// The max-min steps of ERICA's complete description (false: the basic formula).
    #[serde(default = "erica::defaults::max_min_steps")]
    pub max_min_steps: bool,
    /// The capacity leaves out the CBR/VBR cells sent (false: U x link rate, as An 1997).
    #[serde(default = "erica::defaults::subtract_real_time")]
    pub subtract_real_time: bool,
    /// An: the decay of a VC's activity level per interval it is not seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_decay: Option<f64>,
    /// How the load factor is averaged: `{ method = "ratio" | "reset", az = 0.2 }`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_averaging: Option<LoadAveraging>,
    /// Where a VC's CCR comes from (see [`super::EricaConfig`]).
    #[serde(default = "erica::defaults::ccr")]
    pub ccr: CcrSource,
    /// T0: the target queueing delay.
    #[serde(default = "defaults::t0")]
    pub t0: Time,
    /// a: the queue factor at an empty queue.
    #[serde(default = "defaults::a")]
    pub a: f64,
    /// b: the curve of the queue factor above the target queue.
    #[serde(default = "defaults::b")]
    pub b: f64,
    /// QDLF: the floor of the queue factor.
    #[serde(default = "defaults::qdlf")]
    pub qdlf: f64,
}

mod defaults {
    use super::*;

    pub fn target_utilization() -> f64 {
        1.0
    }
    pub fn t0() -> Time {
        Time::us(500)
    }
    pub fn a() -> f64 {
        1.15
    }
    pub fn b() -> f64 {
        1.05
    }
    pub fn qdlf() -> f64 {
        0.5
    }
}

impl Default for EricaPlusConfig {
    fn default() -> Self {
        EricaPlusConfig {
            target_utilization: defaults::target_utilization(),
            interval_cells: erica::defaults::interval_cells(),
            interval: erica::defaults::interval(),
            delta: erica::defaults::delta(),
            max_min_steps: erica::defaults::max_min_steps(),
            subtract_real_time: erica::defaults::subtract_real_time(),
            source_decay: None,
            load_averaging: None,
            ccr: erica::defaults::ccr(),
            t0: defaults::t0(),
            a: defaults::a(),
            b: defaults::b(),
            qdlf: defaults::qdlf(),
        }
    }
}

impl EricaPlusConfig {
    /// ERICA's keys of this table.
    pub fn erica(&self) -> super::EricaConfig {
        super::EricaConfig {
            target_utilization: self.target_utilization,
            interval_cells: self.interval_cells,
            interval: self.interval,
            delta: self.delta,
            max_min_steps: self.max_min_steps,
            subtract_real_time: self.subtract_real_time,
            source_decay: self.source_decay,
            load_averaging: self.load_averaging,
            ccr: self.ccr,
        }
    }

    /// The queue control of this table.
    pub fn queue_control(&self) -> QueueControl {
        QueueControl {
            t0: self.t0.0,
            a: self.a,
            b: self.b,
            qdlf: self.qdlf,
        }
    }
}

/// One port's ERICA+: ERICA's state run with the queue control.
#[derive(Debug, Clone)]
pub struct EricaPlus(pub Erica);

impl RateControlScheme for EricaPlus {
    type Config = EricaPlusConfig;
    const EXAMPLE: &'static str =
        r#"{ kind = "erica_plus", t0 = "500 us", a = 1.15, b = 1.05, qdlf = 0.5 }"#;

    fn check(c: &EricaPlusConfig) -> Result<(), Invalid> {
        for (field, x) in [("a", c.a), ("b", c.b)] {
            if !(x >= 1.0 && x.is_finite()) {
                return Err(Invalid {
                    field,
                    message: format!(
                        "{x}: a queue control curve needs {field} >= 1 (96-1294: a = 1.15, \
                         b = 1.05)"
                    ),
                });
            }
        }
        if !(c.qdlf > 0.0 && c.qdlf <= 1.0) {
            return Err(Invalid {
                field: "qdlf",
                message: format!("{}: allowed 0 < qdlf <= 1 (96-1294: 0.5)", c.qdlf),
            });
        }
        if c.t0.is_zero() {
            return Err(Invalid {
                field: "t0",
                message: "a target queueing delay of 0 s leaves no queue to aim at; give e.g. \
                          \"500 us\""
                    .into(),
            });
        }
        check_common(&c.erica())
    }

    fn interval(c: &EricaPlusConfig) -> Option<(SimTime, u32)> {
        Some((c.interval.0, c.interval_cells))
    }

    fn new(c: &EricaPlusConfig, link_rate: f64) -> Self {
        let params = c.erica().params(Some(c.queue_control()));
        EricaPlus(Erica::new(&params, link_rate, SimTime::ZERO))
    }

    fn add_vc(&mut self) {
        self.0.add_vc();
    }

    #[inline]
    fn on_abr_cell(&mut self, vc: usize, queue: u32, cell: &mut Cell) -> bool {
        RateControlScheme::on_abr_cell(&mut self.0, vc, queue, cell)
    }

    #[inline]
    fn on_real_time_cell(&mut self) {
        self.0.on_real_time_cell();
    }

    #[inline]
    fn on_forward_rm(&mut self, vc: usize, queue: u32, fields: &mut RmFields) {
        RateControlScheme::on_forward_rm(&mut self.0, vc, queue, fields);
    }

    #[inline]
    fn on_backward_rm(&mut self, vc: usize, queue: u32, fields: &mut RmFields) {
        RateControlScheme::on_backward_rm(&mut self.0, vc, queue, fields);
    }

    fn end_interval(&mut self, now: SimTime, queue: u32) {
        self.0.end_interval(now, queue);
    }

    fn deadline(&self) -> Option<SimTime> {
        Some(self.0.deadline())
    }

    fn stats(&self) -> Option<RateStats> {
        RateControlScheme::stats(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_96_1294s_and_run_erica_with_the_queue_control() {
        let c: EricaPlusConfig = serde_json::from_str("{}").unwrap();
        assert_eq!(c, EricaPlusConfig::default());
        let e = EricaPlus::new(&c, 100_000.0);
        assert_eq!(e.0.config().plus, Some(QueueControl::default()));
        assert_eq!(e.0.config().target_utilization, 1.0);
        let bad = EricaPlusConfig { b: 0.9, ..c };
        assert_eq!(EricaPlus::check(&bad).unwrap_err().field, "b");
    }
}
