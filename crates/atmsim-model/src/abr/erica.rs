//! ERICA and ERICA+: explicit-rate feedback for ABR, computed per output port (Jain,
//! Kalyanaraman et al., "ERICA Switch Algorithm: A Complete Description", ATM Forum 96-1172;
//! ERICA+ and the averaging options as run in ATM Forum 96-1294, "Performance of TCP over ABR
//! on ATM backbone and with various VBR traffic patterns").
//!
//! # What is measured
//!
//! Each output port counts, over an averaging interval, the ABR cells that enter its queue
//! (data and RM cells of every ABR VC, i.e. the forward ABR input the port has to carry) and the
//! CBR/VBR cells it sends (capacity ABR cannot have). It also remembers which VCs sent a cell in
//! the interval, and the current cell rate (CCR) each VC's source last wrote into a forward RM
//! cell. The interval ends after `interval_cells` ABR input cells or after `interval`,
//! whichever comes first; [`Erica::on_abr_cell`] reports the first, and the caller's timer at
//! [`Erica::deadline`] the second.
//!
//! At the end of an interval of length `T` the port computes
//!
//! - the ABR capacity `C = (U * link_rate * T - rt_cells)+ / T` (ERICA+ scales it by `f(q)`),
//! - the ABR input rate `I = abr_cells / T`,
//! - the load factor `z = I / C`, optionally averaged over intervals ([`LoadAveraging`]),
//! - the number of active VCs `N` (the VCs seen in the interval, or a decayed count, see
//!   [`EricaParams::source_decay`]), never below 1,
//! - the fair share `C / N`.
//!
//! # Where the feedback goes
//!
//! Feedback is written into backward RM cells as they pass the port ([`Erica::feedback`]): the
//! port computes its ER for the VC and the cell leaves with `min(ER in the cell, port's ER)`, so
//! a port only ever lowers the ER and the source ends up with the minimum along its path.
//!
//! | capacity `C` | ABR input `I` | ER                                                        |
//! |--------------|---------------|-----------------------------------------------------------|
//! | `C = 0`      | any           | 0                                                         |
//! | `C > 0`      | `I = 0`       | fair share (underload: at least `max_alloc_previous`)     |
//! | `C > 0`      | `I > 0`       | `max(fair share, CCR / z)`, and in underload (`z <= 1 + delta`) also at least `max_alloc_previous` |
//!
//! After that the ER is held to the fair share when the VC's CCR is below the fair share (so a
//! slow VC does not jump straight to a large rate), and to `C`. `max_alloc_previous` is the
//! largest ER the port computed during the previous interval; in underload it lets the VCs
//! that can use more rise together instead of one by one.
//!
//! # Averaging
//!
//! - [`EricaParams::source_decay`]: a VC's activity level is 1 in an interval it is seen and is
//!   multiplied by `An` in each interval it is not; `N` is the sum of the levels (at least 1).
//!   Without it `N` is the number of VCs seen in the interval.
//! - [`LoadAveraging::Reset`] averages `z` itself, restarting from the new value whenever the
//!   old or the new value is 0 or infinite. [`LoadAveraging::Ratio`] averages the input rate
//!   and the capacity separately and divides the averages (Kalyanaraman et al. 1996's words;
//!   rates, not the intervals' cell counts, so an interval that ends at its deadline weighs
//!   no more than one that ends at its cell count); it needs no restarts.
//!
//! # ERICA+
//!
//! ERICA+ ([`QueueControl`]) aims at a queueing delay `T0` instead of a utilisation below 1: with
//! `Q0 = T0 * (link_rate - rt_rate)` cells and `q` the ABR queue when the interval ends, the
//! capacity is multiplied by
//!
//! ```text
//! f(q) = a Q0 / ((a - 1) q + Q0)                 q <= Q0   (from a at q = 0 down to 1)
//! f(q) = max(QDLF, b Q0 / ((b - 1) q + Q0))      q >  Q0   (from 1 down to QDLF)
//! ```
//!
//! so an empty queue lets the sources overshoot the link a little (`a`) and a long queue makes
//! them drain it (`b`, never below `QDLF`). Which curve (`a` or `b`) sits on which side of `Q0`
//! follows Vandalore, Jain et al., "Design and analysis of queue control functions for explicit
//! rate switch schemes", which settled the question.
//!
//! # Before the first measurement
//!
//! Until the first interval ends there is nothing measured. The port then uses
//! `C = U * link_rate` (no queue factor, even for ERICA+), `N = 1`, fair share `C` and `z = 1`:
//! a single source may go to the target rate at once, and `z = 1` keeps the formula in its
//! ordinary (underload, `CCR / z = CCR`) branch. Taking `z = 0` instead would read "no load at
//! all" and is the dangerous choice; an infinite `z` would hand out only the fair share, which
//! is the same thing here. The first measured interval replaces all of it, and the averages
//! (both [`LoadAveraging`] methods) start from that first measured interval, not from the
//! placeholder.
//!
//! The module does no I/O and keeps no clock; the port calls it.

use super::{check_measuring, Invalid, RateControlScheme, RateStats};
use crate::cell::{Cell, RmFields};
use atmsim_engine::SimTime;
use atmsim_units::Time;
use serde::{Deserialize, Serialize};

/// ERICA's table: `rate_control = { kind = "erica", ... }`. (ERICA+'s is
/// [`super::EricaPlusConfig`].)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EricaConfig {
    /// U: the share of the link ABR may fill (ERICA's description: 0.9).
    #[serde(default = "defaults::target_utilization")]
    pub target_utilization: f64,
    /// An averaging interval ends after this many ABR cells ...
    #[serde(default = "defaults::interval_cells")]
    pub interval_cells: u32,
    /// ... or after this long, whichever comes first.
    #[serde(default = "defaults::interval")]
    pub interval: Time,
    /// Overload hysteresis: the port is overloaded when z > 1 + delta.
    #[serde(default = "defaults::delta")]
    pub delta: f64,
    /// The max-min steps of ERICA's complete description (false: the basic formula).
    #[serde(default = "defaults::max_min_steps")]
    pub max_min_steps: bool,
    /// The capacity leaves out the CBR/VBR cells sent (false: U x link rate, as An 1997).
    #[serde(default = "defaults::subtract_real_time")]
    pub subtract_real_time: bool,
    /// An: the decay of a VC's activity level per interval it is not seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_decay: Option<f64>,
    /// How the load factor is averaged: `{ method = "ratio" | "reset", az = 0.2 }`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_averaging: Option<LoadAveraging>,
    /// Where a VC's CCR comes from: its forward RM cells or the port's count of its cells.
    #[serde(default = "defaults::ccr")]
    pub ccr: CcrSource,
}

/// Where ERICA takes a VC's current cell rate from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CcrSource {
    /// The CCR field of the VC's forward RM cells (the source's ACR), as TM 4.0 carries it.
    #[default]
    RmCell,
    /// The VC's ABR cells that entered the port in the last averaging interval, over its
    /// length.
    Measured,
}

/// The defaults of ERICA's and ERICA+'s keys.
pub(crate) mod defaults {
    use super::*;

    pub fn target_utilization() -> f64 {
        0.9
    }
    pub fn interval_cells() -> u32 {
        100
    }
    pub fn interval() -> Time {
        Time::ms(1)
    }
    pub fn delta() -> f64 {
        0.1
    }
    pub fn max_min_steps() -> bool {
        true
    }
    pub fn subtract_real_time() -> bool {
        true
    }
    pub fn ccr() -> CcrSource {
        CcrSource::RmCell
    }
}

impl Default for EricaConfig {
    /// Plain ERICA: U = 0.9, intervals of 100 ABR cells or 1 ms, delta = 0.1, no averaging.
    fn default() -> Self {
        EricaConfig {
            target_utilization: defaults::target_utilization(),
            interval_cells: defaults::interval_cells(),
            interval: defaults::interval(),
            delta: defaults::delta(),
            max_min_steps: defaults::max_min_steps(),
            subtract_real_time: defaults::subtract_real_time(),
            source_decay: None,
            load_averaging: None,
            ccr: defaults::ccr(),
        }
    }
}

impl EricaConfig {
    /// The parameters the port runs with, `plus` the queue control of ERICA+ if any.
    pub fn params(&self, plus: Option<QueueControl>) -> EricaParams {
        EricaParams {
            target_utilization: self.target_utilization,
            interval_cells: self.interval_cells,
            interval: self.interval.0,
            delta: self.delta,
            max_min_steps: self.max_min_steps,
            subtract_real_time: self.subtract_real_time,
            source_decay: self.source_decay,
            measured_ccr: self.ccr == CcrSource::Measured,
            load_averaging: self.load_averaging,
            plus,
        }
    }
}

/// The checks ERICA and ERICA+ share, on the keys they share.
pub(crate) fn check_common(c: &EricaConfig) -> Result<(), Invalid> {
    if let Some(LoadAveraging::Ratio { az } | LoadAveraging::Reset { az }) = c.load_averaging {
        if !(az > 0.0 && az <= 1.0) {
            return Err(Invalid {
                field: "load_averaging.az",
                message: format!("{az} is not a weight: allowed 0 < az <= 1 (96-1294: 0.2)"),
            });
        }
    }
    check_measuring(c.target_utilization, c.interval, c.interval_cells)?;
    if !(c.delta >= 0.0 && c.delta.is_finite()) {
        return Err(Invalid {
            field: "delta",
            message: format!(
                "{}: allowed delta >= 0 (the overload hysteresis, default 0.1)",
                c.delta
            ),
        });
    }
    if let Some(an) = c.source_decay {
        if !(0.0..1.0).contains(&an) {
            return Err(Invalid {
                field: "source_decay",
                message: format!("{an}: allowed 0 <= source_decay < 1 (96-1294: An = 0.9)"),
            });
        }
    }
    Ok(())
}

impl RateControlScheme for Erica {
    type Config = EricaConfig;
    const EXAMPLE: &'static str = r#"{ kind = "erica", target_utilization = 0.9, interval_cells = 500, interval = "5 ms", source_decay = 0.9, load_averaging = { method = "ratio", az = 0.2 } }"#;

    fn check(c: &EricaConfig) -> Result<(), Invalid> {
        check_common(c)
    }

    fn interval(c: &EricaConfig) -> Option<(SimTime, u32)> {
        Some((c.interval.0, c.interval_cells))
    }

    fn new(c: &EricaConfig, link_rate: f64) -> Self {
        Erica::new(&c.params(None), link_rate, SimTime::ZERO)
    }

    fn add_vc(&mut self) {
        Erica::add_vc(self);
    }

    #[inline]
    fn on_abr_cell(&mut self, vc: usize, _queue: u32, _cell: &mut Cell) -> bool {
        Erica::on_abr_cell(self, vc)
    }

    #[inline]
    fn on_real_time_cell(&mut self) {
        Erica::on_real_time_cell(self);
    }

    #[inline]
    fn on_forward_rm(&mut self, vc: usize, _queue: u32, fields: &mut RmFields) {
        Erica::on_forward_rm(self, vc, fields.ccr);
    }

    #[inline]
    fn on_backward_rm(&mut self, vc: usize, _queue: u32, fields: &mut RmFields) {
        fields.er = self.feedback(vc, fields.er);
    }

    fn end_interval(&mut self, now: SimTime, queue: u32) {
        Erica::end_interval(self, now, queue);
    }

    fn deadline(&self) -> Option<SimTime> {
        Some(Erica::deadline(self))
    }

    fn stats(&self) -> Option<RateStats> {
        let s = Erica::stats(self);
        Some(RateStats {
            load_factor: s.z,
            active_vcs: s.n_active,
            fair_rate: s.fair_share,
            capacity: s.capacity,
        })
    }
}

/// The parameters of one port's ERICA (or ERICA+) instance.
#[derive(Debug, Clone, PartialEq)]
pub struct EricaParams {
    /// U: target utilisation of the ABR capacity (0.9 for ERICA; ERICA+ uses 1.0).
    pub target_utilization: f64,
    /// The averaging interval ends after this many ABR input cells (0: no count limit) ...
    pub interval_cells: u32,
    /// ... or after this much time, whichever comes first. Must be above zero.
    pub interval: SimTime,
    /// Overload hysteresis: the port is overloaded when z > 1 + delta (default 0.1).
    pub delta: f64,
    /// The max-min steps of ERICA's complete description: in underload (z <= 1 + delta) a
    /// VC gets at least the largest ER of the previous interval, and a VC below the fair
    /// share is held at the fair share. `false`: the basic formula ER = max(fair share,
    /// CCR / z) (as An 1997 states ERICA, its equation 3.5).
    pub max_min_steps: bool,
    /// The capacity leaves out what CBR/VBR cells used in the interval (ERICA's description).
    /// `false`: capacity = U x link rate whatever the CBR/VBR load, as An 1997 states ERICA
    /// (its equation 3.2).
    pub subtract_real_time: bool,
    /// Averaging of the number of active VCs: Some(An), the decay of a VC's activity level per
    /// interval it is not seen (0.9 in 96-1294); None: N = VCs seen this interval.
    pub source_decay: Option<f64>,
    /// A VC's CCR is measured by the port (its ABR cells that entered the queue in the last
    /// interval, over the interval's length) instead of read from its forward RM cells: the
    /// option ERICA's authors describe for sources that do not use their ACR (TCP held by its
    /// window). `false`: the CCR field of the forward RM cells.
    pub measured_ccr: bool,
    /// Averaging of the load factor z (Az = 0.2 in 96-1294); None: z of this interval.
    pub load_averaging: Option<LoadAveraging>,
    /// ERICA+ queue control; None: plain ERICA.
    pub plus: Option<QueueControl>,
}

impl Default for EricaParams {
    /// Plain ERICA: U = 0.9, intervals of 100 ABR cells or 1 ms, delta = 0.1, no averaging.
    /// (96-1294 uses this interval by default, and (500 cells, 5 ms) for its Table 1.)
    fn default() -> Self {
        EricaParams {
            target_utilization: 0.9,
            interval_cells: 100,
            interval: SimTime::from_ms(1),
            delta: 0.1,
            max_min_steps: true,
            subtract_real_time: true,
            source_decay: None,
            measured_ccr: false,
            load_averaging: None,
            plus: None,
        }
    }
}

impl EricaParams {
    /// ERICA+ with the averaging of 96-1294: U = 1, An = 0.9, the ratio method with Az = 0.2,
    /// and [`QueueControl::default`]; interval and delta as in [`EricaParams::default`].
    pub fn erica_plus() -> Self {
        EricaParams {
            target_utilization: 1.0,
            source_decay: Some(0.9),
            load_averaging: Some(LoadAveraging::Ratio { az: 0.2 }),
            plus: Some(QueueControl::default()),
            ..EricaParams::default()
        }
    }

    /// Checks the ranges: 0 < U <= 1, interval > 0, delta >= 0, 0 <= An < 1, 0 < Az <= 1,
    /// a >= 1, b >= 1, 0 < QDLF <= 1.
    pub fn validate(&self) -> Result<(), String> {
        let u = self.target_utilization;
        if !(u > 0.0 && u <= 1.0) {
            return Err(format!("ERICA: target_utilization {u} is not in (0, 1]"));
        }
        if self.interval == SimTime::ZERO {
            return Err("ERICA: the averaging interval must be above zero".into());
        }
        if !(self.delta >= 0.0 && self.delta.is_finite()) {
            return Err(format!(
                "ERICA: delta {} must be finite and >= 0",
                self.delta
            ));
        }
        if let Some(an) = self.source_decay {
            if !(0.0..1.0).contains(&an) {
                return Err(format!("ERICA: source_decay {an} is not in [0, 1)"));
            }
        }
        if let Some(LoadAveraging::Reset { az } | LoadAveraging::Ratio { az }) = self.load_averaging
        {
            if !(az > 0.0 && az <= 1.0) {
                return Err(format!(
                    "ERICA: load averaging weight {az} is not in (0, 1]"
                ));
            }
        }
        if let Some(p) = &self.plus {
            if !(p.a >= 1.0 && p.a.is_finite()) {
                return Err(format!("ERICA+: a = {} must be finite and >= 1", p.a));
            }
            if !(p.b >= 1.0 && p.b.is_finite()) {
                return Err(format!("ERICA+: b = {} must be finite and >= 1", p.b));
            }
            if !(p.qdlf > 0.0 && p.qdlf <= 1.0) {
                return Err(format!("ERICA+: qdlf = {} is not in (0, 1]", p.qdlf));
            }
        }
        Ok(())
    }
}

/// How the load factor z is averaged over intervals: in a scenario
/// `{ method = "ratio" | "reset", az = 0.2 }`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "snake_case", deny_unknown_fields)]
pub enum LoadAveraging {
    /// Method 2 (recommended): exponential averages of input cells and capacity cells
    /// separately; z = avg_in / avg_cap (infinite if avg_cap == 0).
    Ratio { az: f64 },
    /// Method 1: exponential average of z itself, restarted from the new value whenever the
    /// previous or the new z is 0 or infinite.  z = (1-az) z + az z_new
    Reset { az: f64 },
}

/// ERICA+ queue control: the capacity is scaled by [`QueueControl::factor`] of the ABR queue.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueueControl {
    /// T0: target queueing delay (500 us in 96-1294).
    pub t0: SimTime,
    /// a: the curve on the underload side (queue below Q0): f(0) = a (1.15).
    pub a: f64,
    /// b: the curve on the overload side (queue above Q0) (1.05).
    pub b: f64,
    /// QDLF: floor of f on the overload side (0.5).
    pub qdlf: f64,
}

impl Default for QueueControl {
    /// T0 = 500 us, a = 1.15, b = 1.05, QDLF = 0.5.
    fn default() -> Self {
        QueueControl {
            t0: SimTime::from_us(500),
            a: 1.15,
            b: 1.05,
            qdlf: 0.5,
        }
    }
}

impl QueueControl {
    /// The queue control factor f(q) for a queue of `queue` cells and a target queue of `q0`
    /// cells: `a` at an empty queue, 1 at `q0`, falling towards 0 beyond `q0` but never below
    /// `qdlf`. With `q0 == 0` (no target can be held) it is 1 for an empty queue, else `qdlf`.
    pub fn factor(&self, queue: f64, q0: f64) -> f64 {
        if q0 <= 0.0 {
            return if queue <= 0.0 { 1.0 } else { self.qdlf };
        }
        if queue <= q0 {
            self.a * q0 / ((self.a - 1.0) * queue + q0)
        } else {
            (self.b * q0 / ((self.b - 1.0) * queue + q0)).max(self.qdlf)
        }
    }
}

/// What one port's ERICA knows about one VC beyond its count of cells in the interval (which
/// [`Erica::cells`] keeps apart: every ABR cell writes it, only RM cells and the end of an
/// interval read this).
#[derive(Debug, Clone, Copy, Default)]
struct VcState {
    /// The CCR of the VC's last forward RM cell [cells/s]; 0 until one passes.
    ccr: f64,
    /// The decayed activity level in [0, 1] (with `source_decay`).
    activity: f64,
}

/// The VCs of a port whose counts share the cache line of the port's ERICA counters.
const NEAR_VCS: usize = 7;

/// One output port's ERICA / ERICA+ state: the counters of the current interval, the results
/// of the last closed interval, and per-VC CCR and activity.
///
/// Laid out in the order written (`repr(C)`), what every ABR cell touches first
/// ([`Erica::on_abr_cell`]: the interval's count, its limit, the per-VC counts), so that a
/// cell reads the port's ERICA on one cache line (beside the [`super::RateControl`] tag, on a
/// line of its own). The counts of the first [`NEAR_VCS`] VCs are on that line too (a port
/// towards a host carries one or two ABR VCs); those of the others on a line of their own, 16
/// VCs to a line. With many ports each seeing a cell now and then, the state is cold at each
/// cell: one line, not four.
#[derive(Debug, Clone)]
#[repr(C)]
pub struct Erica {
    /// ABR cells that entered the queue in the current interval.
    abr_in: u64,
    /// A copy of `cfg.interval_cells` (every ABR cell compares with it).
    interval_cells: u32,
    /// ABR cells of each VC that entered the queue in the current interval (a VC is seen in
    /// the interval when its count is above 0): VCs 0 to [`NEAR_VCS`] - 1 here, ...
    near: [u32; NEAR_VCS],
    /// ... the others here (VC `NEAR_VCS + i` at `i`).
    far: Box<[u32]>,
    /// CBR/VBR cells sent in the current interval.
    rt_cells: u64,
    /// Start of the current interval.
    start: SimTime,
    cfg: EricaParams,
    link_rate: f64,
    vcs: Vec<VcState>,
    /// At least one interval has been measured (the averages have a starting point).
    measured: bool,
    z: f64,
    n_active: f64,
    capacity: f64,
    fair_share: f64,
    input_rate: f64,
    queue_factor: f64,
    /// Ratio averaging: averaged input rate and capacity \[cells/s\].
    avg_in: f64,
    avg_cap: f64,
    max_alloc_previous: f64,
    max_alloc_current: f64,
}

/// The port's view after the last closed interval (before the first one: the placeholder
/// values described in the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct EricaStats {
    /// Load factor (possibly averaged); infinite when there is no ABR capacity.
    pub z: f64,
    /// Number of active VCs N (>= 1).
    pub n_active: f64,
    /// capacity / N [cells/s].
    pub fair_share: f64,
    /// ABR capacity [cells/s] (ERICA+: times the queue factor).
    pub capacity: f64,
    /// ABR input rate of the last interval [cells/s].
    pub input_rate: f64,
    /// ERICA+'s f(q) of the last interval; 1 for plain ERICA.
    pub queue_factor: f64,
}

/// `x / y`, infinite when `y` is 0 (no capacity), 0 when `x` is 0 and `y` is not.
fn load_ratio(x: f64, y: f64) -> f64 {
    if y > 0.0 {
        x / y
    } else {
        f64::INFINITY
    }
}

impl Erica {
    /// `link_rate`: the output link's rate [cells/s]; the first interval starts at `now`.
    ///
    /// Panics if the configuration is out of range ([`EricaParams::validate`]) or the link
    /// rate is not a positive finite number.
    pub fn new(cfg: &EricaParams, link_rate: f64, now: SimTime) -> Self {
        if let Err(e) = cfg.validate() {
            panic!("{e}");
        }
        assert!(
            link_rate > 0.0 && link_rate.is_finite(),
            "ERICA: link rate {link_rate} must be positive and finite"
        );
        let capacity = cfg.target_utilization * link_rate;
        Erica {
            abr_in: 0,
            interval_cells: cfg.interval_cells,
            near: [0; NEAR_VCS],
            far: Box::default(),
            rt_cells: 0,
            start: now,
            cfg: cfg.clone(),
            link_rate,
            vcs: Vec::new(),
            measured: false,
            z: 1.0,
            n_active: 1.0,
            capacity,
            fair_share: capacity,
            input_rate: 0.0,
            queue_factor: 1.0,
            avg_in: 0.0,
            avg_cap: 0.0,
            max_alloc_previous: 0.0,
            max_alloc_current: capacity,
        }
    }

    /// Adds a VC; returns its index (the caller uses the port's label, 0, 1, 2, ... in order).
    pub fn add_vc(&mut self) -> usize {
        self.vcs.push(VcState::default());
        let n = self.vcs.len();
        if n > NEAR_VCS {
            let mut far = std::mem::take(&mut self.far).into_vec();
            far.push(0);
            self.far = far.into_boxed_slice();
        }
        n - 1
    }

    /// The number of VCs added.
    pub fn n_vcs(&self) -> usize {
        self.vcs.len()
    }

    /// Each VC's ABR cells in the current interval, in VC order.
    fn cell_counts(&self) -> impl Iterator<Item = u32> + '_ {
        self.near
            .iter()
            .chain(self.far.iter())
            .take(self.vcs.len())
            .copied()
    }

    /// An ABR cell (data or RM) of VC `vc` entered this port's queue. Returns true when it
    /// completes the interval's cell count (the caller then calls `end_interval` at once).
    /// It is true exactly on the `interval_cells`-th cell of the interval (never with
    /// `interval_cells == 0`).
    #[inline]
    pub fn on_abr_cell(&mut self, vc: usize) -> bool {
        match self.near.get_mut(vc) {
            Some(c) => *c += 1,
            None => self.far[vc - NEAR_VCS] += 1,
        }
        self.abr_in += 1;
        self.interval_cells != 0 && self.abr_in == u64::from(self.interval_cells)
    }

    /// A CBR or VBR cell left the port (it used capacity ABR cannot have).
    #[inline]
    pub fn on_real_time_cell(&mut self) {
        self.rt_cells += 1;
    }

    /// A forward RM cell of VC `vc` passed this port carrying CCR `ccr` [cells/s] (the
    /// source's current rate; ERICA takes CCR from forward RM cells only).
    #[inline]
    pub fn on_forward_rm(&mut self, vc: usize, ccr: f64) {
        if !self.cfg.measured_ccr {
            self.vcs[vc].ccr = ccr;
        }
    }

    /// Closes the current interval at `now` (by count or by the deadline), computing capacity,
    /// z, N, fair share from what was counted; `abr_queue` is the port's ABR queue length now
    /// \[cells\] (ERICA+ uses it). Starts the next interval at `now`.
    ///
    /// An interval of zero length measures nothing: the previous results stay, and the
    /// counters restart.
    pub fn end_interval(&mut self, now: SimTime, abr_queue: u32) {
        let t = now.saturating_sub(self.start).as_secs_f64();
        if t > 0.0 {
            self.measure(t, abr_queue);
        }
        self.abr_in = 0;
        self.rt_cells = 0;
        self.near = [0; NEAR_VCS];
        // Most ports have no far VCs: their `far` is empty, with a dangling pointer. The C
        // library's `memset`, called even for no bytes, can make a masked store of no bytes
        // at that address, which costs this machine a slow assist: no call when empty.
        if !self.far.is_empty() {
            self.far.fill(0);
        }
        self.start = self.start.max(now);
    }

    fn measure(&mut self, t: f64, abr_queue: u32) {
        let rt = if self.cfg.subtract_real_time {
            self.rt_cells as f64
        } else {
            0.0
        };
        let abr_in = self.abr_in as f64;
        let mut cap_cells = (self.cfg.target_utilization * self.link_rate * t - rt).max(0.0);
        let f = match &self.cfg.plus {
            Some(p) => {
                let raw_rate = (self.link_rate * t - rt).max(0.0) / t;
                let q0 = p.t0.as_secs_f64() * raw_rate;
                p.factor(f64::from(abr_queue), q0)
            }
            None => 1.0,
        };
        cap_cells *= f;
        self.queue_factor = f;
        self.capacity = cap_cells / t;
        self.input_rate = abr_in / t;
        if self.cfg.measured_ccr {
            let counts = self.near.iter().chain(self.far.iter());
            for (v, &cells) in self.vcs.iter_mut().zip(counts) {
                v.ccr = f64::from(cells) / t;
            }
        }

        let z_new = load_ratio(abr_in, cap_cells);
        self.z = match self.cfg.load_averaging {
            None => z_new,
            Some(LoadAveraging::Reset { az }) => {
                let edge = |z: f64| z == 0.0 || z.is_infinite();
                if !self.measured || edge(self.z) || edge(z_new) {
                    z_new
                } else {
                    (1.0 - az) * self.z + az * z_new
                }
            }
            Some(LoadAveraging::Ratio { az }) => {
                if self.measured {
                    self.avg_in = (1.0 - az) * self.avg_in + az * self.input_rate;
                    self.avg_cap = (1.0 - az) * self.avg_cap + az * self.capacity;
                } else {
                    self.avg_in = self.input_rate;
                    self.avg_cap = self.capacity;
                }
                load_ratio(self.avg_in, self.avg_cap)
            }
        };

        let n = match self.cfg.source_decay {
            None => self.cell_counts().filter(|&c| c > 0).count() as f64,
            Some(an) => {
                let mut sum = 0.0;
                let counts = self.near.iter().chain(self.far.iter());
                for (v, &cells) in self.vcs.iter_mut().zip(counts) {
                    v.activity = if cells > 0 { 1.0 } else { v.activity * an };
                    sum += v.activity;
                }
                sum
            }
        };
        self.n_active = n.max(1.0);
        self.fair_share = self.capacity / self.n_active;
        self.max_alloc_previous = self.max_alloc_current;
        self.max_alloc_current = self.fair_share;
        self.measured = true;
    }

    /// The time the current interval ends at the latest (start + interval). The caller
    /// schedules a timer for it and calls end_interval if the interval has not already ended
    /// by count (it compares the deadline).
    #[inline]
    pub fn deadline(&self) -> SimTime {
        self.start + self.cfg.interval
    }

    /// The start of the current interval.
    pub fn interval_start(&self) -> SimTime {
        self.start
    }

    /// A backward RM cell of VC `vc` passes: returns the ER to write into it, min(er_in, the
    /// ER this port computes). Never raises er_in. See the table in the module documentation.
    pub fn feedback(&mut self, vc: usize, er_in: f64) -> f64 {
        let ccr = self.vcs[vc].ccr;
        let c = self.capacity;
        let fs = self.fair_share;
        let z = self.z;
        let mut er = if c <= 0.0 {
            0.0
        } else if z.is_infinite() {
            // Capacity but no (averaged) measurement of it: CCR / z would be 0.
            fs
        } else if !self.cfg.max_min_steps {
            // The basic formula.
            fs.max(ccr / z)
        } else if z <= 0.0 {
            // No ABR input: underload, the fair share or what the port gave last interval.
            fs.max(self.max_alloc_previous)
        } else {
            let vc_share = ccr / z;
            if z > 1.0 + self.cfg.delta {
                fs.max(vc_share)
            } else {
                fs.max(vc_share).max(self.max_alloc_previous)
            }
        };
        self.max_alloc_current = self.max_alloc_current.max(er);
        if self.cfg.max_min_steps && er > fs && ccr < fs {
            // A VC below the fair share climbs to the fair share first, not straight above it.
            er = fs;
        }
        er = er.min(c);
        er.min(er_in)
    }

    /// The CCR last seen for VC `vc` in a forward RM cell [cells/s].
    pub fn ccr(&self, vc: usize) -> f64 {
        self.vcs[vc].ccr
    }

    /// VC `vc`'s activity level (only meaningful with `source_decay`).
    pub fn activity(&self, vc: usize) -> f64 {
        self.vcs[vc].activity
    }

    /// The largest ER computed during the last closed interval (at least its fair share).
    pub fn max_alloc_previous(&self) -> f64 {
        self.max_alloc_previous
    }

    pub fn stats(&self) -> EricaStats {
        EricaStats {
            z: self.z,
            n_active: self.n_active,
            fair_share: self.fair_share,
            capacity: self.capacity,
            input_rate: self.input_rate,
            queue_factor: self.queue_factor,
        }
    }

    pub fn config(&self) -> &EricaParams {
        &self.cfg
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What an ABR cell touches of a port's ERICA (the count, its limit, the first VCs'
    /// counts, the others' pointer) lies on the rate control's first cache line, beside its
    /// tag: one line per cell at a port of up to `NEAR_VCS` VCs, and one more for a VC's
    /// count beyond them.
    #[test]
    fn an_abr_cell_reads_one_line_of_the_ports_erica() {
        use crate::abr::{RateControl, RateControlConfig};
        assert_eq!(std::mem::align_of::<RateControl>(), 64);
        let rc = RateControl::new(&RateControlConfig::Erica(EricaConfig::default()), L).unwrap();
        let RateControl::Erica(e) = &*rc else {
            unreachable!()
        };
        let at = e as *const Erica as usize - &*rc as *const RateControl as usize;
        let end = |off: usize, size: usize| at + off + size;
        use std::mem::{offset_of, size_of};
        for e in [
            end(offset_of!(Erica, abr_in), 8),
            end(offset_of!(Erica, interval_cells), 4),
            end(offset_of!(Erica, near), size_of::<[u32; NEAR_VCS]>()),
            end(offset_of!(Erica, far), size_of::<Box<[u32]>>()),
        ] {
            assert!(e <= 64, "a field every ABR cell touches ends at byte {e}");
        }
    }

    /// A port's VCs count apart whether their counts are near or far, and the interval's
    /// end clears both.
    #[test]
    fn counts_of_near_and_far_vcs_are_kept_apart_and_cleared() {
        let n = NEAR_VCS + 3;
        let mut e = with_vcs(&cfg(), n);
        for vc in 0..n {
            for _ in 0..=vc {
                e.on_abr_cell(vc);
            }
        }
        let counts: Vec<u32> = e.cell_counts().collect();
        assert_eq!(counts, (1..=n as u32).collect::<Vec<_>>());
        e.end_interval(SimTime::from_ms(T_MS), 0);
        assert!(e.cell_counts().all(|c| c == 0));
        assert_eq!(e.cell_counts().count(), n);
        assert_eq!(e.stats().n_active, n as f64);
    }

    /// 100,000 cells/s; intervals of 10 ms (1,000 link cells) ended by time.
    const L: f64 = 100_000.0;
    const T_MS: u64 = 10;

    fn cfg() -> EricaParams {
        EricaParams {
            target_utilization: 0.9,
            interval_cells: 1_000_000,
            interval: SimTime::from_ms(T_MS),
            delta: 0.1,
            max_min_steps: true,
            subtract_real_time: true,
            source_decay: None,
            measured_ccr: false,
            load_averaging: None,
            plus: None,
        }
    }

    #[test]
    fn measured_ccr_counts_each_vcs_cells_and_ignores_the_rm_field() {
        let mut c = cfg();
        c.measured_ccr = true;
        let mut e = Erica::new(&c, L, SimTime::ZERO);
        let (a, b) = (e.add_vc(), e.add_vc());
        // The sources claim 40,000 cells/s each, but a sends 300 cells in the 10 ms interval
        // (30,000 cells/s) and b 100 (10,000 cells/s).
        e.on_forward_rm(a, 40_000.0);
        e.on_forward_rm(b, 40_000.0);
        for _ in 0..300 {
            e.on_abr_cell(a);
        }
        for _ in 0..100 {
            e.on_abr_cell(b);
        }
        e.end_interval(SimTime::from_ms(T_MS), 0);
        assert!(close(e.ccr(a), 30_000.0), "{}", e.ccr(a));
        assert!(close(e.ccr(b), 10_000.0), "{}", e.ccr(b));
        // The next interval counts afresh: b silent, a at 50,000 cells/s.
        for _ in 0..500 {
            e.on_abr_cell(a);
        }
        e.end_interval(SimTime::from_ms(2 * T_MS), 0);
        assert!(close(e.ccr(a), 50_000.0));
        assert_eq!(e.ccr(b), 0.0);
        // Without the option the RM cell's field is the CCR.
        let mut f = Erica::new(&cfg(), L, SimTime::ZERO);
        let v = f.add_vc();
        f.on_forward_rm(v, 40_000.0);
        f.on_abr_cell(v);
        f.end_interval(SimTime::from_ms(T_MS), 0);
        assert_eq!(f.ccr(v), 40_000.0);
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
    }

    /// Feeds one interval: `cells[i]` ABR cells of VC i, `rt` real-time cells, then ends it at
    /// the deadline with an ABR queue of `queue` cells.
    fn interval(e: &mut Erica, cells: &[u32], rt: u32, queue: u32) {
        for (vc, &n) in cells.iter().enumerate() {
            for _ in 0..n {
                assert!(!e.on_abr_cell(vc));
            }
        }
        for _ in 0..rt {
            e.on_real_time_cell();
        }
        let end = e.deadline();
        e.end_interval(end, queue);
    }

    fn with_vcs(cfg: &EricaParams, n: usize) -> Erica {
        let mut e = Erica::new(cfg, L, SimTime::ZERO);
        for i in 0..n {
            assert_eq!(e.add_vc(), i);
        }
        e
    }

    #[test]
    fn ratio_averaging_averages_rates_not_the_intervals_cell_counts() {
        // Two intervals of different lengths: 100 cells in 0.25 ms (400,000 cells/s), then
        // 50 cells in 1 ms (50,000 cells/s); the capacity is 0.9 L in both. With az = 0.5 the
        // averaged input rate is 225,000 cells/s and z = 225,000 / 90,000 = 2.5. (Averaging
        // the cell counts instead would give (50 + 25) / (11.25 + 45) = 1.33.)
        let c = EricaParams {
            subtract_real_time: false,
            load_averaging: Some(LoadAveraging::Ratio { az: 0.5 }),
            ..cfg()
        };
        let mut e = with_vcs(&c, 1);
        for _ in 0..100 {
            e.on_abr_cell(0);
        }
        e.end_interval(SimTime::from_us(250), 0);
        assert!((e.stats().z - 400_000.0 / (0.9 * L)).abs() < 1e-9);
        for _ in 0..50 {
            e.on_abr_cell(0);
        }
        e.end_interval(SimTime::from_us(1250), 0);
        let s = e.stats();
        assert!((s.input_rate - 50_000.0).abs() < 1e-6, "{s:?}");
        assert!((s.z - 2.5).abs() < 1e-9, "z = {}", s.z);
    }

    #[test]
    fn boundary_cases_zero_capacity_no_input_and_er_limits() {
        // Real-time cells take the whole link: C = 0, z infinite, ER 0.
        let mut e = with_vcs(&cfg(), 1);
        e.on_forward_rm(0, 50_000.0);
        interval(&mut e, &[50], 1000, 0);
        let s = e.stats();
        assert_eq!(s.capacity, 0.0);
        assert!(s.z.is_infinite());
        assert_eq!(e.feedback(0, L), 0.0);

        // No ABR input at all: z = 0, ER = fair share (here C / 1.8 with An = 0.9).
        let mut e = with_vcs(
            &EricaParams {
                source_decay: Some(0.9),
                ..cfg()
            },
            2,
        );
        e.on_forward_rm(0, 10_000.0);
        e.on_forward_rm(1, 80_000.0);
        interval(&mut e, &[450, 450], 0, 0);
        interval(&mut e, &[0, 0], 0, 0);
        let s = e.stats();
        assert_eq!(s.z, 0.0);
        assert!(close(s.n_active, 1.8));
        assert!(close(s.fair_share, 90_000.0 / 1.8));
        assert!(close(e.feedback(0, L), s.fair_share));
        assert!(close(e.feedback(1, L), s.fair_share));
        // The cell's ER is only ever lowered.
        assert_eq!(e.feedback(1, 20_000.0), 20_000.0);

        // A VC whose CCR / z is far above the link gets at most the capacity.
        let mut e = with_vcs(&cfg(), 1);
        e.on_forward_rm(0, 1e9);
        interval(&mut e, &[100], 0, 0);
        let s = e.stats();
        assert!(close(e.feedback(0, f64::INFINITY), s.capacity));
    }

    proptest! {
        /// Whatever the traffic, the ER is in [0, min(er_in, capacity)].
        #[test]
        fn er_never_above_er_in_or_capacity(
            steps in proptest::collection::vec(
                (0u32..1500, 0u32..1500, 0u32..1200, 0u32..5000, 0.0f64..2e5, 0.0f64..2e5, 0.0f64..2e5),
                1..30),
            variant in 0u8..4,
        ) {
            let mut c = cfg();
            match variant {
                1 => c.source_decay = Some(0.9),
                2 => c.load_averaging = Some(LoadAveraging::Reset { az: 0.2 }),
                3 => c = EricaParams { interval: SimTime::from_ms(T_MS), interval_cells: 1_000_000, ..EricaParams::erica_plus() },
                _ => {}
            }
            let mut e = with_vcs(&c, 2);
            for (a, b, rt, q, ccr0, ccr1, er_in) in steps {
                e.on_forward_rm(0, ccr0);
                e.on_forward_rm(1, ccr1);
                interval(&mut e, &[a, b], rt, q);
                let cap = e.stats().capacity;
                for vc in 0..2 {
                    let er = e.feedback(vc, er_in);
                    prop_assert!(er >= 0.0);
                    prop_assert!(er <= er_in);
                    prop_assert!(er <= cap * (1.0 + 1e-12));
                }
            }
        }
    }

    /// One greedy VC in a closed loop: each interval it sends at its rate r, announces r in a
    /// forward RM cell, and takes the ER of the backward RM cell as its next rate.
    fn greedy_loop(cfg: &EricaParams, intervals: usize) -> Vec<f64> {
        let mut e = with_vcs(cfg, 1);
        let t = SimTime::from_ms(T_MS).as_secs_f64();
        let mut r = L / 100.0;
        let mut credit = 0.0;
        let mut rates = Vec::new();
        for _ in 0..intervals {
            credit += r * t;
            let cells = credit.floor();
            credit -= cells;
            e.on_forward_rm(0, r);
            interval(&mut e, &[cells as u32], 0, 0);
            r = e.feedback(0, L);
            rates.push(r);
        }
        rates
    }

    #[test]
    fn single_greedy_vc_converges_to_target_rate() {
        let target = 0.9 * L;
        let averaged = EricaParams {
            source_decay: Some(0.9),
            load_averaging: Some(LoadAveraging::Ratio { az: 0.2 }),
            ..cfg()
        };
        let reset = EricaParams {
            load_averaging: Some(LoadAveraging::Reset { az: 0.2 }),
            ..cfg()
        };
        for c in [cfg(), averaged, reset] {
            let rates = greedy_loop(&c, 40);
            let first = rates
                .iter()
                .position(|r| (r - target).abs() <= 0.02 * target)
                .expect("never within 2%");
            assert!(first < 10, "{c:?}: took {} intervals", first + 1);
            // ... and it stays there.
            for r in &rates[first..] {
                assert!((r - target).abs() <= 0.02 * target, "{c:?}: {rates:?}");
            }
        }
    }

    #[test]
    fn overload_gives_max_of_fair_share_and_ccr_over_z() {
        let mut e = with_vcs(&cfg(), 2);
        let c = 0.9 * L;
        // 1350 cells against 900 cells of capacity: z = 1.5.
        e.on_forward_rm(0, 0.1 * c);
        e.on_forward_rm(1, 0.9 * c);
        interval(&mut e, &[135, 1215], 0, 0);
        let s = e.stats();
        assert!(close(s.z, 1.5));
        assert!(close(s.fair_share, c / 2.0));
        // VC 0: CCR / z = 0.067 C < fair share -> fair share.
        assert!(close(e.feedback(0, L), c / 2.0));
        // VC 1: CCR / z = 0.6 C > fair share -> 0.6 C. In overload max_alloc_previous (here the
        // placeholder C of the first interval) does not count.
        assert!(close(e.max_alloc_previous(), c));
        assert!(close(e.feedback(1, L), 0.6 * c));
    }

    #[test]
    fn max_alloc_previous_lets_vcs_rise_in_underload() {
        let mut e = with_vcs(&cfg(), 2);
        // Interval 1 in overload: z = 1200 / 900; fair share 45,000.
        e.on_forward_rm(0, 10_000.0);
        e.on_forward_rm(1, 100_000.0);
        interval(&mut e, &[100, 1100], 0, 0);
        let z1 = e.stats().z;
        assert!(close(z1, 1200.0 / 900.0));
        // VC 1 is given CCR / z = 75,000 (no max_alloc_previous in overload).
        assert!(close(e.feedback(1, L), 75_000.0));

        // Interval 2 in underload: z = 720 / 900 = 0.8, fair share 45,000.
        e.on_forward_rm(0, 20_000.0);
        e.on_forward_rm(1, 48_000.0);
        interval(&mut e, &[300, 420], 0, 0);
        let s = e.stats();
        assert!(close(s.z, 0.8));
        assert!(close(s.fair_share, 45_000.0));
        assert!(close(e.max_alloc_previous(), 75_000.0));
        // VC 1: max(45,000, 48,000 / 0.8 = 60,000, 75,000) = 75,000: it rises to what the
        // port gave last interval, above its own CCR / z.
        assert!(close(e.feedback(1, L), 75_000.0));
        // VC 0 has CCR below the fair share: held to the fair share (no sudden jump).
        assert!(close(e.feedback(0, L), 45_000.0));

        // The same load with z in overload would have given VC 1 only CCR / z.
        e.on_forward_rm(1, 48_000.0);
        interval(&mut e, &[500, 600], 0, 0);
        let z = e.stats().z;
        assert!(z > 1.1);
        assert!(close(e.feedback(1, L), 45_000.0f64.max(48_000.0 / z)));
    }

    #[test]
    fn source_decay_counts_an_to_the_k_and_n_is_at_least_one() {
        let an = 0.9;
        let c = EricaParams {
            source_decay: Some(an),
            ..cfg()
        };
        let mut e = with_vcs(&c, 3);
        interval(&mut e, &[10, 10, 10], 0, 0);
        assert!(close(e.stats().n_active, 3.0));
        for k in 1..=5 {
            interval(&mut e, &[10, 10, 0], 0, 0);
            let n = e.stats().n_active;
            assert!(close(n, 2.0 + an.powi(k)), "k = {k}: N = {n}");
            assert!(close(e.activity(2), an.powi(k)));
            assert!(close(e.stats().fair_share, 90_000.0 / n));
        }
        // Seen again: back to 1.
        interval(&mut e, &[0, 0, 1], 0, 0);
        assert!(close(e.activity(2), 1.0));
        assert!(close(e.stats().n_active, 1.0 + 2.0 * an));

        // A single VC, gone quiet: its level decays but N stays 1.
        let mut e = with_vcs(&c, 1);
        interval(&mut e, &[10], 0, 0);
        for k in 1..=10 {
            interval(&mut e, &[0], 0, 0);
            assert!(close(e.activity(0), an.powi(k)));
            assert_eq!(e.stats().n_active, 1.0);
        }

        // Without decay N is the number of VCs seen, and at least 1.
        let mut e = with_vcs(&cfg(), 3);
        interval(&mut e, &[10, 0, 10], 0, 0);
        assert_eq!(e.stats().n_active, 2.0);
        interval(&mut e, &[0, 0, 0], 0, 0);
        assert_eq!(e.stats().n_active, 1.0);
    }

    #[test]
    fn ratio_averages_input_and_capacity_separately() {
        let c = EricaParams {
            load_averaging: Some(LoadAveraging::Ratio { az: 0.2 }),
            ..cfg()
        };
        let mut e = with_vcs(&c, 1);
        // Interval 1: 450 in, 900 capacity cells -> both averages start there, z = 0.5.
        interval(&mut e, &[450], 0, 0);
        assert!(close(e.stats().z, 0.5));
        // Interval 2: 1800 in, 900 - 300 = 600 capacity cells (z of the interval: 3).
        // avg_in = 0.8 * 450 + 0.2 * 1800 = 720; avg_cap = 0.8 * 900 + 0.2 * 600 = 840.
        interval(&mut e, &[1800], 300, 0);
        let s = e.stats();
        assert!(close(s.z, 720.0 / 840.0), "z = {}", s.z);
        assert!(close(s.capacity, 60_000.0));
        assert!(close(s.input_rate, 180_000.0));
        // (Method 1 would give 0.8 * 0.5 + 0.2 * 3 = 1.0.)

        // The ratio is infinite only when the averaged capacity is 0.
        let mut e = with_vcs(&c, 1);
        interval(&mut e, &[10], 1000, 0);
        assert!(e.stats().z.is_infinite());
        interval(&mut e, &[10], 0, 0);
        assert!(close(e.stats().z, 10.0 / (0.2 * 900.0)));
    }

    #[test]
    fn reset_averages_z_and_restarts_on_zero_or_infinite() {
        let c = EricaParams {
            load_averaging: Some(LoadAveraging::Reset { az: 0.2 }),
            ..cfg()
        };
        let mut e = with_vcs(&c, 1);
        interval(&mut e, &[450], 0, 0); // z = 0.5 (first measurement, no placeholder mixed in)
        assert!(close(e.stats().z, 0.5));
        interval(&mut e, &[1800], 300, 0); // z_new = 3
        assert!(close(e.stats().z, 1.0));
        // Real-time traffic takes the link: z_new infinite -> z infinite.
        interval(&mut e, &[100], 1000, 0);
        assert!(e.stats().z.is_infinite());
        // Back to normal: restarts from z_new = 0.5 instead of averaging with infinity.
        interval(&mut e, &[450], 0, 0);
        assert!(close(e.stats().z, 0.5));
        // No input: z = 0, then restarts from z_new = 2.
        interval(&mut e, &[0], 0, 0);
        assert_eq!(e.stats().z, 0.0);
        interval(&mut e, &[1800], 0, 0);
        assert!(close(e.stats().z, 2.0));
        interval(&mut e, &[900], 0, 0); // z_new = 1
        assert!(close(e.stats().z, 0.8 * 2.0 + 0.2 * 1.0));
    }

    #[test]
    fn erica_plus_queue_factor() {
        let p = QueueControl::default();
        let q0 = 50.0;
        assert!(close(p.factor(0.0, q0), p.a));
        assert!(close(p.factor(q0, q0), 1.0));
        // Continuous at Q0 and decreasing in q on both sides.
        assert!((p.factor(q0 + 1e-6, q0) - 1.0).abs() < 1e-6);
        let mut prev = f64::INFINITY;
        for q in 0..2000 {
            let f = p.factor(q as f64, q0);
            assert!(f <= prev, "f rises at q = {q}");
            assert!(f >= p.qdlf && f <= p.a);
            if q as f64 > q0 {
                assert!(f < 1.0);
            }
            prev = f;
        }
        // b's curve above Q0: 1.05 * 50 / (0.05 * 1000 + 50) = 0.525; far out: QDLF.
        assert!(close(p.factor(1000.0, q0), 0.525));
        assert_eq!(p.factor(10_000.0, q0), p.qdlf);
        // No target queue possible.
        assert_eq!(p.factor(0.0, 0.0), 1.0);
        assert_eq!(p.factor(3.0, 0.0), p.qdlf);

        // The capacity is scaled by f: Q0 = 500 us * 100,000 cells/s = 50 cells.
        let c = EricaParams {
            target_utilization: 1.0,
            plus: Some(p),
            ..cfg()
        };
        for (q, f) in [(0, 1.15), (50, 1.0), (1000, 0.525), (10_000, 0.5)] {
            let mut e = with_vcs(&c, 1);
            interval(&mut e, &[500], 0, q);
            let s = e.stats();
            assert!(close(s.queue_factor, f), "q = {q}: f = {}", s.queue_factor);
            assert!(close(s.capacity, f * L), "q = {q}");
            assert!(close(s.fair_share, f * L));
        }
        // Q0 follows the capacity left by real-time traffic: 500 rt cells of 1000 -> Q0 = 25,
        // and the ABR capacity before f is 500 cells.
        let mut e = with_vcs(&c, 1);
        interval(&mut e, &[100], 500, 25);
        let s = e.stats();
        assert!(close(s.queue_factor, 1.0));
        assert!(close(s.capacity, 50_000.0));
        let mut e = with_vcs(&c, 1);
        interval(&mut e, &[100], 500, 0);
        assert!(close(e.stats().capacity, 1.15 * 50_000.0));
    }

    #[test]
    fn erica_plus_closed_loop_holds_the_queue_near_q0() {
        // One greedy VC against ERICA+ (no averaging), 1 ms intervals: the queue settles where
        // f = 1, i.e. at Q0 = 50 cells, and the rate at the link rate.
        let c = EricaParams {
            target_utilization: 1.0,
            interval: SimTime::from_ms(1),
            interval_cells: 0,
            plus: Some(QueueControl::default()),
            ..cfg()
        };
        let mut e = with_vcs(&c, 1);
        let t = 1e-3;
        let (mut r, mut q, mut credit, mut q_max) = (L / 10.0, 0.0f64, 0.0, 0.0f64);
        for _ in 0..300 {
            credit += r * t;
            let cells = credit.floor();
            credit -= cells;
            for _ in 0..cells as u32 {
                assert!(!e.on_abr_cell(0));
            }
            q = (q + cells - L * t).max(0.0);
            e.on_forward_rm(0, r);
            let end = e.deadline();
            e.end_interval(end, q.round() as u32);
            // The source's PCR (2 L) is above the link, so ERICA+ alone sets its rate.
            r = e.feedback(0, 2.0 * L);
            q_max = q_max.max(q);
        }
        assert!(q_max <= 55.0, "the queue overshot to {q_max}");
        assert!((q - 50.0).abs() <= 5.0, "q = {q}");
        assert!((r - L).abs() <= 0.01 * L, "r = {r}");
    }

    #[test]
    fn interval_ends_after_n_cells_or_at_the_deadline() {
        let c = EricaParams {
            interval_cells: 5,
            interval: SimTime::from_us(700),
            ..cfg()
        };
        let start = SimTime::from_ms(3);
        let mut e = Erica::new(&c, L, start);
        e.add_vc();
        assert_eq!(e.deadline(), start + SimTime::from_us(700));
        for _ in 0..4 {
            assert!(!e.on_abr_cell(0));
        }
        assert!(e.on_abr_cell(0));
        // Ended by count 100 us in: 5 cells in 100 us.
        let now = start + SimTime::from_us(100);
        e.end_interval(now, 0);
        assert!(close(e.stats().input_rate, 5.0 / 100e-6));
        assert_eq!(e.interval_start(), now);
        assert_eq!(e.deadline(), now + SimTime::from_us(700));
        // The count restarts with the interval.
        for _ in 0..4 {
            assert!(!e.on_abr_cell(0));
        }
        assert!(e.on_abr_cell(0));

        // A zero-length interval keeps the results and restarts the counters.
        let before = e.stats();
        e.end_interval(now, 0);
        assert_eq!(e.stats(), before);
        assert!(!e.on_abr_cell(0));

        // interval_cells = 0: only the deadline ends an interval.
        let mut e = Erica::new(
            &EricaParams {
                interval_cells: 0,
                ..c
            },
            L,
            SimTime::ZERO,
        );
        e.add_vc();
        for _ in 0..10_000 {
            assert!(!e.on_abr_cell(0));
        }
    }

    #[test]
    fn placeholder_before_first_measurement() {
        let mut e = with_vcs(&cfg(), 2);
        let s = e.stats();
        assert_eq!(s.z, 1.0);
        assert_eq!(s.n_active, 1.0);
        assert!(close(s.capacity, 0.9 * L));
        assert!(close(s.fair_share, 0.9 * L));
        e.on_forward_rm(0, 1000.0);
        assert!(close(e.feedback(0, L), 0.9 * L));
        // ERICA+ starts from U * link_rate too, without the queue factor.
        let e = with_vcs(&EricaParams::erica_plus(), 1);
        assert!(close(e.stats().capacity, L));
        assert_eq!(e.stats().queue_factor, 1.0);
    }

    #[test]
    fn validate_rejects_out_of_range() {
        assert!(cfg().validate().is_ok());
        assert!(EricaParams::erica_plus().validate().is_ok());
        assert!(EricaParams {
            target_utilization: 0.0,
            ..cfg()
        }
        .validate()
        .is_err());
        assert!(EricaParams {
            interval: SimTime::ZERO,
            ..cfg()
        }
        .validate()
        .is_err());
        assert!(EricaParams {
            source_decay: Some(1.0),
            ..cfg()
        }
        .validate()
        .is_err());
        assert!(EricaParams {
            plus: Some(QueueControl {
                b: 0.9,
                ..QueueControl::default()
            }),
            ..cfg()
        }
        .validate()
        .is_err());
    }

    #[test]
    fn without_the_max_min_steps_er_is_the_basic_formula() {
        // Underload (z = 0.5): the basic formula gives max(FS, CCR / z) and nothing more, where
        // the max-min steps would also give at least the previous interval's largest ER.
        let basic = EricaParams {
            max_min_steps: false,
            ..cfg()
        };
        let mut e = with_vcs(&basic, 2);
        e.on_forward_rm(0, 10_000.0);
        e.on_forward_rm(1, 20_000.0);
        interval(&mut e, &[150, 300], 0, 0);
        let st = e.stats();
        let (fs, z) = (st.fair_share, st.z);
        assert!(z > 0.0 && z < 1.0, "underload: z = {z}");
        let want0 = fs.max(10_000.0 / z).min(st.capacity);
        let want1 = fs.max(20_000.0 / z).min(st.capacity);
        assert!(close(e.feedback(0, f64::INFINITY), want0));
        assert!(close(e.feedback(1, f64::INFINITY), want1));
    }
}
