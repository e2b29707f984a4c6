//! FMMRA: Fast Max-Min Rate Allocation (Arulambalam, Chen & Ansari 1996), as An 1997
//! (section 3.4) describes it, per output port and without I/O.
//!
//! What the thesis states, and how atmsim reads it:
//!
//! - **Advertised rate r.** Each ABR queue computes the rate it can support from the measured
//!   ABR capacity and "exact calculation of fair rates": over a measurement interval (ended
//!   after `interval_cells` ABR cells or `interval`, as ERICA's), capacity C = U x (link
//!   rate - CBR/VBR rate), U a share of the capacity left to ABR
//!   ([`FmmraTarget::Available`]: the thesis calls the scheme "based on measurement of
//!   available capacity", and reduces the "target rate" by a factor under heavy congestion,
//!   which this reading does whatever the VBR load), or ERICA's U x link rate - CBR/VBR rate
//!   ([`FmmraTarget::Link`], under which a reduced U leaves ABR nothing once CBR/VBR takes
//!   more than U of the link), and r is the max-min level of the link given each active
//!   VC's limit elsewhere: filled from the most constrained VC up, a VC whose limit is below
//!   the level reached keeps its limit (bottlenecked elsewhere), the others share the rest
//!   equally. (When every active VC is held elsewhere, r is what is left plus the largest
//!   limit: any one of them could rise that far.)
//! - **Bottlenecked elsewhere (beta).** "The advertised rate along with the ER field in the
//!   RM cell are used to determine if the connection is bottlenecked elsewhere. If a
//!   connection cannot use the advertised rate, it is marked as bottlenecked elsewhere and its
//!   bottleneck bandwidth is recorded." atmsim keeps, per VC, the ER each direction's RM
//!   cells carried when they reached this port: the forward one holds the upstream ports'
//!   marks; the backward one holds the whole path's, this port's own forward mark included
//!   (the destination turns the forward cell round), so it counts only when it is below
//!   what this port last marked for the VC. The smaller is the VC's bottleneck bandwidth
//!   elsewhere, and beta = 1 when it is below r.
//! - **ER_max (3.7)**, on each backward RM cell: ER_max = (1 - alpha) ER_max + alpha max(ER,
//!   ER_max / LF), alpha = 1/8, LF the load factor (ABR input / capacity, as ERICA's z). The
//!   thesis does not define "ER" there ("it reflects the advertised rate after taking into
//!   consideration of the load"); atmsim takes the ER the advertised rate alone gives the
//!   cell, min(ER in the cell, r), so that in underload (LF < 1) ER_max grows to hand out
//!   what idle VCs leave, in overload it shrinks toward r, and at LF = 1 it holds. (The ER
//!   the port finally marks cannot be meant: it includes ER_max, which would then hold any
//!   value above r whatever the load.)
//! - **Marking (3.8)**, in both directions: ER = min(ER, max(r, (1 - beta) ER_max)).
//! - **Queue control.** With the ABR queue at or above QT and LF > 1, only r is used
//!   (ER = min(ER, r)). Above DQT ("severe congestion") ER_max is set to r, and the target
//!   utilisation is reduced by a factor until the queue is back under QT. The thesis gives
//!   no values for QT, DQT or the factor: they are parameters (see [`FmmraConfig`]).

use super::{check_measuring, Invalid, RateControlScheme, RateStats};
use crate::cell::{Cell, RmFields};
use atmsim_engine::SimTime;
use atmsim_units::{Cells, Time};
use serde::{Deserialize, Serialize};

/// FMMRA's table, `rate_control = { kind = "fmmra", ... }` (An 1997 section 3.4; the thesis
/// gives alpha, the rest are atmsim's).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FmmraConfig {
    /// U: target utilisation of the ABR capacity.
    #[serde(default = "defaults::target_utilization")]
    pub target_utilization: f64,
    /// The measurement interval ends after this many ABR cells ...
    #[serde(default = "defaults::interval_cells")]
    pub interval_cells: u32,
    /// ... or after this long, whichever comes first.
    #[serde(default = "defaults::interval")]
    pub interval: Time,
    /// alpha of ER_max's running average (the thesis: 1/8).
    #[serde(default = "defaults::alpha")]
    pub alpha: f64,
    /// QT: from this ABR queue length, with LF > 1, only the advertised rate is given.
    #[serde(default = "defaults::qt")]
    pub qt: Cells,
    /// DQT: above this ABR queue length, ER_max is set to r and the target utilisation is
    /// reduced until the queue is back under QT.
    #[serde(default = "defaults::dqt")]
    pub dqt: Cells,
    /// The factor the target utilisation is multiplied by while reduced.
    #[serde(default = "defaults::reduction")]
    pub reduction: f64,
    /// What the target utilisation is a share of: `"available"` (U x (link rate -
    /// CBR/VBR)) or `"link"` (U x link rate - CBR/VBR).
    #[serde(default = "defaults::target")]
    pub target: FmmraTarget,
}

/// What FMMRA's target utilisation U (and its reduction) is a share of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FmmraTarget {
    /// The capacity left to ABR: C = U x (link rate - CBR/VBR rate).
    #[default]
    Available,
    /// The link: C = U x link rate - CBR/VBR rate (ERICA's ABR capacity). With a heavy
    /// CBR/VBR load a reduced U can leave ABR nothing.
    Link,
}

mod defaults {
    use super::*;

    /// The higher of the two target utilisations An 1997 calls typical (0.9 and 0.95): FMMRA
    /// has its own queue control (QT, DQT) to drain what the higher target lets build.
    pub fn target_utilization() -> f64 {
        0.95
    }
    /// ERICA's interval: 100 ABR cells ...
    pub fn interval_cells() -> u32 {
        100
    }
    /// ... or 1 ms.
    pub fn interval() -> Time {
        Time::ms(1)
    }
    /// An 1997, section 3.4.
    pub fn alpha() -> f64 {
        1.0 / 8.0
    }
    /// Not in the thesis: about ERICA+'s target queue on an OC-3 (500 us x 366 cells/ms).
    pub fn qt() -> Cells {
        Cells(200)
    }
    /// Not in the thesis: two thirds of the 1,500-cell buffer of its limited-buffer runs,
    /// so that the stronger control acts before that buffer overflows.
    pub fn dqt() -> Cells {
        Cells(1_000)
    }
    /// Not in the thesis: a 20% cut, enough to drain a queue at the target's edge.
    pub fn reduction() -> f64 {
        0.8
    }
    /// A share of the available capacity: the thesis's FMMRA is "based on measurement of
    /// available capacity" and cuts its "target rate" by a factor under heavy congestion
    /// (ERICA's U x link - CBR/VBR, the other reading, cuts ABR by more than that factor,
    /// to nothing once CBR/VBR takes more than the reduced U of the link).
    pub fn target() -> FmmraTarget {
        FmmraTarget::Available
    }
}

impl Default for FmmraConfig {
    /// U = 0.95 of the available capacity, (100 cells, 1 ms), alpha = 1/8, QT = 200 cells,
    /// DQT = 1,000 cells, factor 0.8 (the choices are explained in docs/scenarios.md).
    fn default() -> Self {
        FmmraConfig {
            target_utilization: defaults::target_utilization(),
            interval_cells: defaults::interval_cells(),
            interval: defaults::interval(),
            alpha: defaults::alpha(),
            qt: defaults::qt(),
            dqt: defaults::dqt(),
            reduction: defaults::reduction(),
            target: defaults::target(),
        }
    }
}

impl RateControlScheme for Fmmra {
    type Config = FmmraConfig;
    const EXAMPLE: &'static str = r#"{ kind = "fmmra", target_utilization = 0.95, alpha = 0.125, qt = "200 cells", dqt = "1000 cells" }"#;

    fn check(f: &FmmraConfig) -> Result<(), Invalid> {
        check_measuring(f.target_utilization, f.interval, f.interval_cells)?;
        if !(f.alpha > 0.0 && f.alpha <= 1.0) {
            return Err(Invalid {
                field: "alpha",
                message: format!("{}: allowed 0 < alpha <= 1 (An 1997: 1/8)", f.alpha),
            });
        }
        if !(f.reduction > 0.0 && f.reduction <= 1.0) {
            return Err(Invalid {
                field: "reduction",
                message: format!("{}: allowed 0 < reduction <= 1", f.reduction),
            });
        }
        if f.qt.0 > f.dqt.0 {
            return Err(Invalid {
                field: "qt",
                message: format!("{} is above dqt ({}): allowed qt <= dqt", f.qt, f.dqt),
            });
        }
        Ok(())
    }

    fn interval(c: &FmmraConfig) -> Option<(SimTime, u32)> {
        Some((c.interval.0, c.interval_cells))
    }

    fn new(c: &FmmraConfig, link_rate: f64) -> Self {
        Fmmra::new(c, link_rate, SimTime::ZERO)
    }

    fn add_vc(&mut self) {
        Fmmra::add_vc(self);
    }

    #[inline]
    fn on_abr_cell(&mut self, vc: usize, _queue: u32, _cell: &mut Cell) -> bool {
        Fmmra::on_abr_cell(self, vc)
    }

    #[inline]
    fn on_real_time_cell(&mut self) {
        Fmmra::on_real_time_cell(self);
    }

    #[inline]
    fn on_forward_rm(&mut self, vc: usize, queue: u32, fields: &mut RmFields) {
        fields.er = self.forward(vc, fields.er, queue);
    }

    #[inline]
    fn on_backward_rm(&mut self, vc: usize, queue: u32, fields: &mut RmFields) {
        fields.er = self.backward(vc, fields.er, queue);
    }

    fn end_interval(&mut self, now: SimTime, queue: u32) {
        Fmmra::end_interval(self, now, queue);
    }

    fn deadline(&self) -> Option<SimTime> {
        Some(Fmmra::deadline(self))
    }

    fn stats(&self) -> Option<RateStats> {
        let s = Fmmra::stats(self);
        Some(RateStats {
            load_factor: s.load_factor,
            active_vcs: f64::from(s.active_vcs),
            fair_rate: s.advertised_rate,
            capacity: s.capacity,
        })
    }
}

#[derive(Debug, Clone, Copy)]
struct Vc {
    seen: bool,
    /// The limit upstream: the ER the last forward RM cell carried on arrival.
    er_forward: f64,
    /// The limit downstream: the ER the last backward RM cell carried on arrival, when it
    /// was below what this port itself last marked for the VC (a backward RM cell also
    /// carries this port's own forward mark, turned round by the destination); else none.
    er_backward: f64,
    /// The ER this port last marked for the VC (either direction).
    own_mark: f64,
}

impl Vc {
    /// The rate the VC is limited to elsewhere on its path.
    fn elsewhere(&self) -> f64 {
        self.er_forward.min(self.er_backward)
    }
}

/// What FMMRA computed at the end of the last interval.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FmmraStats {
    pub capacity: f64,
    pub advertised_rate: f64,
    pub load_factor: f64,
    pub er_max: f64,
    pub active_vcs: u32,
    pub bottlenecked_elsewhere: u32,
    pub reduced: bool,
}

/// One port's FMMRA state.
#[derive(Debug, Clone)]
pub struct Fmmra {
    cfg: FmmraConfig,
    link_rate: f64,
    start: SimTime,
    abr_cells: u64,
    rt_cells: u64,
    vcs: Vec<Vc>,
    capacity: f64,
    r: f64,
    lf: f64,
    er_max: f64,
    reduced: bool,
    n_active: u32,
    n_be: u32,
    /// Scratch: the active VCs' limits elsewhere (no allocation per interval once grown).
    limits: Vec<f64>,
}

impl Fmmra {
    /// `link_rate`: the output link's rate [cells/s]; the first interval starts at `now`.
    /// Until it ends, r = ER_max = U x link rate and LF = 1.
    pub fn new(cfg: &FmmraConfig, link_rate: f64, now: SimTime) -> Self {
        let c = cfg.target_utilization * link_rate;
        Fmmra {
            cfg: *cfg,
            link_rate,
            start: now,
            abr_cells: 0,
            rt_cells: 0,
            vcs: Vec::new(),
            capacity: c,
            r: c,
            lf: 1.0,
            er_max: c,
            reduced: false,
            n_active: 0,
            n_be: 0,
            limits: Vec::new(),
        }
    }

    pub fn config(&self) -> &FmmraConfig {
        &self.cfg
    }

    pub fn add_vc(&mut self) -> usize {
        self.vcs.push(Vc {
            seen: false,
            er_forward: f64::INFINITY,
            er_backward: f64::INFINITY,
            own_mark: f64::INFINITY,
        });
        self.vcs.len() - 1
    }

    /// An ABR cell of VC `vc` entered the queue; true when it completes the interval's count.
    #[inline]
    pub fn on_abr_cell(&mut self, vc: usize) -> bool {
        self.vcs[vc].seen = true;
        self.abr_cells += 1;
        self.cfg.interval_cells > 0 && self.abr_cells == u64::from(self.cfg.interval_cells)
    }

    #[inline]
    pub fn on_real_time_cell(&mut self) {
        self.rt_cells += 1;
    }

    pub fn deadline(&self) -> SimTime {
        self.start + self.cfg.interval.0
    }

    /// Closes the interval at `now` with `queue` cells in the ABR queue.
    pub fn end_interval(&mut self, now: SimTime, queue: u32) {
        let t = now.saturating_sub(self.start).as_secs_f64();
        self.start = now;
        let (abr, rt) = (self.abr_cells, self.rt_cells);
        self.abr_cells = 0;
        self.rt_cells = 0;
        if t <= 0.0 {
            return;
        }
        if queue > self.cfg.dqt.0 {
            self.reduced = true;
        } else if queue < self.cfg.qt.0 {
            self.reduced = false;
        }
        let u = self.cfg.target_utilization
            * if self.reduced {
                self.cfg.reduction
            } else {
                1.0
            };
        let cap_cells = match self.cfg.target {
            FmmraTarget::Link => u * self.link_rate * t - rt as f64,
            FmmraTarget::Available => u * (self.link_rate * t - rt as f64),
        }
        .max(0.0);
        self.capacity = cap_cells / t;
        self.lf = if cap_cells > 0.0 {
            abr as f64 / cap_cells
        } else {
            f64::INFINITY
        };
        // The exact max-min rate of this link given the active VCs' limits elsewhere: fill
        // the capacity from the most constrained VC up; a VC whose limit is below the level
        // reached is bottlenecked elsewhere and keeps its limit, the rest share what is left.
        self.limits.clear();
        for v in &mut self.vcs {
            if std::mem::take(&mut v.seen) {
                self.limits.push(v.elsewhere());
            }
        }
        self.limits.sort_by(f64::total_cmp);
        let n = self.limits.len() as u32;
        let (mut left, mut n_be) = (self.capacity, 0u32);
        self.r = self.capacity;
        for (k, &e) in self.limits.iter().enumerate() {
            let share = left / (self.limits.len() - k) as f64;
            if e < share {
                left -= e;
                n_be += 1;
            } else {
                self.r = share;
                break;
            }
        }
        if n_be == n && n > 0 {
            // Every active VC is held elsewhere: the link could give any of them the rest.
            self.r = left.max(0.0) + self.limits.last().copied().unwrap_or(0.0);
            self.r = self.r.min(self.capacity);
        }
        self.n_active = n;
        self.n_be = n_be;
        if queue > self.cfg.dqt.0 {
            self.er_max = self.r;
        }
    }

    /// The ER this port marks into an RM cell of VC `vc` that arrived with `er_in`, with
    /// `queue` cells in the ABR queue (3.8 and the QT rule). Never above `er_in`.
    fn mark(&self, vc: usize, er_in: f64, queue: u32) -> f64 {
        if queue >= self.cfg.qt.0 && self.lf > 1.0 {
            return er_in.min(self.r);
        }
        let beta = self.vcs[vc].elsewhere() < self.r;
        let local = if beta { 0.0 } else { self.er_max };
        er_in.min(self.r.max(local))
    }

    /// A forward RM cell of VC `vc` passes with `er_in`: records it and returns the marked ER.
    #[inline]
    pub fn forward(&mut self, vc: usize, er_in: f64, queue: u32) -> f64 {
        self.vcs[vc].er_forward = er_in;
        let er = self.mark(vc, er_in, queue);
        self.vcs[vc].own_mark = er;
        er
    }

    /// A backward RM cell of VC `vc` passes with `er_in`: records it, returns the marked ER
    /// and updates ER_max (3.7) with it.
    #[inline]
    pub fn backward(&mut self, vc: usize, er_in: f64, queue: u32) -> f64 {
        let v = &mut self.vcs[vc];
        v.er_backward = if er_in < v.own_mark * (1.0 - 1e-9) {
            er_in
        } else {
            f64::INFINITY
        };
        let a = self.cfg.alpha;
        let by_load = if self.lf > 0.0 {
            self.er_max / self.lf
        } else {
            self.capacity
        };
        let advertised = er_in.min(self.r);
        self.er_max = ((1.0 - a) * self.er_max + a * advertised.max(by_load)).min(self.capacity);
        let er = self.mark(vc, er_in, queue);
        self.vcs[vc].own_mark = er;
        er
    }

    pub fn stats(&self) -> FmmraStats {
        FmmraStats {
            capacity: self.capacity,
            advertised_rate: self.r,
            load_factor: self.lf,
            er_max: self.er_max,
            active_vcs: self.n_active,
            bottlenecked_elsewhere: self.n_be,
            reduced: self.reduced,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const L: f64 = 100_000.0;

    fn port(n: usize) -> Fmmra {
        let cfg = FmmraConfig {
            interval_cells: 0,
            interval: Time(SimTime::from_ms(10)),
            ..FmmraConfig::default()
        };
        let mut f = Fmmra::new(&cfg, L, SimTime::ZERO);
        for i in 0..n {
            assert_eq!(f.add_vc(), i);
        }
        f
    }

    /// One interval of `cells` ABR cells per VC and `rt` real-time cells, `queue` at its end.
    fn interval(f: &mut Fmmra, cells: &[u32], rt: u32, queue: u32) {
        for (vc, &n) in cells.iter().enumerate() {
            for _ in 0..n {
                f.on_abr_cell(vc);
            }
        }
        for _ in 0..rt {
            f.on_real_time_cell();
        }
        let end = f.deadline();
        f.end_interval(end, queue);
    }

    #[test]
    fn a_lone_greedy_vc_converges_to_the_target_rate() {
        // Closed loop: each interval the VC sends at its rate for 10 ms, then a backward RM
        // cell brings the port's ER back.
        let mut f = port(1);
        let mut rate = L / 10.0;
        for _ in 0..30 {
            interval(&mut f, &[(rate * 0.01).round() as u32], 0, 0);
            f.forward(0, L, 0);
            rate = f.backward(0, L, 0);
        }
        assert!((rate / (0.95 * L) - 1.0).abs() < 0.02, "{rate}");
    }

    #[test]
    fn a_vc_bottlenecked_elsewhere_leaves_its_share_to_the_others() {
        // VC 1 is held to 10% of the link by another port; VC 0 may take the rest of the
        // 95% target: r = (0.95 L - 0.1 L) / 1.
        let mut f = port(2);
        f.forward(1, 0.1 * L, 0);
        f.backward(1, L, 0);
        interval(&mut f, &[500, 100], 0, 0);
        let st = f.stats();
        assert_eq!((st.active_vcs, st.bottlenecked_elsewhere), (2, 1));
        assert!((st.advertised_rate - 0.85 * L).abs() < 1e-6, "{st:?}");
        // Its own RM cells get r; the other VC's ER stays what its bottleneck allows.
        assert!(f.forward(0, L, 0) >= 0.85 * L - 1e-6);
        assert_eq!(f.forward(1, 0.1 * L, 0), 0.1 * L);
    }

    #[test]
    fn er_is_never_raised() {
        let mut f = port(2);
        interval(&mut f, &[10, 10], 0, 0);
        for er in [0.0, 1.0, 0.3 * L, L, 10.0 * L] {
            assert!(f.forward(0, er, 0) <= er);
            assert!(f.backward(1, er, 5_000) <= er);
        }
    }

    #[test]
    fn er_max_follows_the_load_factor() {
        // Overload (LF = 2): backward RM cells pull ER_max down toward r; underload
        // (LF = 0.5): they push it back up (toward the capacity).
        let mut f = port(2);
        interval(&mut f, &[950, 950], 0, 0);
        assert!((f.stats().load_factor - 2.0).abs() < 1e-9);
        let start = f.stats().er_max;
        for _ in 0..40 {
            f.backward(0, 10.0 * L, 0);
        }
        let low = f.stats().er_max;
        assert!(low < start, "{start} -> {low}");
        interval(&mut f, &[238, 237], 0, 0);
        assert!((f.stats().load_factor - 0.5).abs() < 1e-9);
        for _ in 0..40 {
            f.backward(0, 10.0 * L, 0);
        }
        assert!(f.stats().er_max > low, "{low} -> {}", f.stats().er_max);
    }

    #[test]
    fn queue_thresholds_hold_the_rate_at_r_and_reduce_the_target() {
        let mut f = port(1);
        interval(&mut f, &[1_900], 0, 0); // LF = 2
        let r = f.stats().advertised_rate;
        // Above QT with LF > 1: only the advertised rate, whatever ER_max says.
        assert_eq!(f.forward(0, 10.0 * L, 250), r);
        // Above DQT at an interval's end: the target utilisation is reduced (to 0.8 x 0.95)
        // and ER_max = r; it stays reduced until the queue is under QT.
        interval(&mut f, &[1_900], 0, 1_500);
        let st = f.stats();
        assert!(
            st.reduced && (st.capacity - 0.8 * 0.95 * L).abs() < 1e-6,
            "{st:?}"
        );
        assert_eq!(st.er_max, st.advertised_rate);
        interval(&mut f, &[700], 0, 500);
        assert!(f.stats().reduced, "between QT and DQT: still reduced");
        interval(&mut f, &[700], 0, 100);
        assert!(!f.stats().reduced, "under QT: back to the full target");
    }

    #[test]
    fn real_time_cells_take_capacity() {
        let mut f = port(1);
        interval(&mut f, &[100], 500, 0); // VBR used half the link
        assert!((f.stats().capacity - 0.95 * (L - 0.5 * L)).abs() < 1e-6);
    }

    #[test]
    fn the_target_is_a_share_of_the_link_or_of_what_abr_has_left() {
        // VBR takes 80% of the link (800 of 1,000 cells of a 10 ms interval at L).
        for (target, full, reduced) in [
            (FmmraTarget::Link, 0.95 - 0.8, 0.0), // 0.76 of the link is below the VBR load
            (FmmraTarget::Available, 0.95 * 0.2, 0.8 * 0.95 * 0.2),
        ] {
            let cfg = FmmraConfig {
                interval_cells: 0,
                interval: Time(SimTime::from_ms(10)),
                target,
                ..FmmraConfig::default()
            };
            let mut f = Fmmra::new(&cfg, L, SimTime::ZERO);
            f.add_vc();
            interval(&mut f, &[100], 800, 0);
            assert!((f.stats().capacity - full * L).abs() < 1e-6, "{target:?}");
            interval(&mut f, &[100], 800, 2_000); // above DQT: the target is reduced
            let st = f.stats();
            assert!(st.reduced);
            assert!(
                (st.capacity - reduced * L).abs() < 1e-6,
                "{target:?}: {st:?}"
            );
            assert!(
                (st.advertised_rate - reduced * L).abs() < 1e-6,
                "{target:?}"
            );
        }
    }
}
