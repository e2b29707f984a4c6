//! Early selective packet discard (Cheon & Panwar 1998, section 3.2 pseudo-code, line by
//! line). When the queue is at or above the high threshold, a VC whose frame starts (or
//! that finds the buffer full) is caught: it turns "red" and loses every cell but the EOM of
//! its frames until, at one of its EOM cells, the queue is below the low threshold. Only a
//! few VCs back off at a time, so sessions take turns instead of synchronising their windows
//! as under EPD.
//!
//! Thresholds are fractions of the reference buffer, as for EPD.

use super::{AdmissionPolicy, DropReason, FrameState, Invalid, PortInfo, PortView, VcShare, Verdict};
use crate::cell::Cell;
use crate::ids::Label;
use atmsim_engine::{RngStream, SimTime};
use serde::{Deserialize, Serialize};

/// `kind = "espd"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EspdConfig {
    /// Fraction of the buffer at or above which arriving frames' VCs are caught (red), in
    /// (0, 1].
    pub high: f64,
    /// Fraction of the buffer below which a red VC is released at its next EOM, <= high.
    pub low: f64,
}

#[derive(Debug, Clone)]
pub struct Espd {
    high: f64,
    low: f64,
    vcs: Vec<EspdVc>,
}

#[derive(Debug, Clone, Copy, Default)]
struct EspdVc {
    frame: FrameState,
    /// Caught: its cells are dropped (all but the EOM) until it is released.
    red: bool,
}

impl Espd {
    /// Whether VC `label` is red (caught), for tests.
    pub fn is_red(&self, label: Label) -> bool {
        self.vcs[label as usize].red
    }
}

impl AdmissionPolicy for Espd {
    type Config = EspdConfig;
    const EXAMPLE: &'static str = r#"{ kind = "espd", high = 0.95, low = 0.9 }"#;

    fn new(c: &EspdConfig, _port: &PortInfo, _rng: RngStream) -> Self {
        Espd {
            high: c.high,
            low: c.low,
            vcs: Vec::new(),
        }
    }

    fn check(c: &EspdConfig) -> Result<(), Invalid> {
        Invalid::fraction("high", c.high)?;
        Invalid::fraction("low", c.low)?;
        if c.low > c.high {
            return Err(Invalid {
                field: "low",
                message: format!("low ({}) must not exceed high ({})", c.low, c.high),
            });
        }
        Ok(())
    }

    fn add_vc(&mut self, _share: &VcShare) {
        self.vcs.push(EspdVc::default());
    }

    #[inline(always)]
    fn on_arrival(&mut self, _now: SimTime, view: PortView, label: Label, cell: &Cell) -> Verdict {
        let vc = &mut self.vcs[label as usize];
        let (first, eom) = vc.frame.track(cell);
        if vc.red {
            if !eom {
                return Verdict::Drop(DropReason::Selective);
            }
            let v = if view.full().is_none() {
                Verdict::Accept
            } else {
                Verdict::Drop(DropReason::Selective)
            };
            if !view.at_or_above(self.low) {
                vc.red = false;
            }
            v
        } else if !view.at_or_above(self.high) && view.full().is_none() {
            Verdict::Accept
        } else if first || view.full().is_some() {
            vc.red = true;
            Verdict::Drop(view.full().unwrap_or(DropReason::EarlyDiscard))
        } else {
            Verdict::Accept
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::PortView;
    use super::*;
    use crate::ids::VcId;

    #[test]
    fn a_vc_is_caught_until_the_queue_falls_below_low() {
        let mut p = Espd::new(
            &EspdConfig {
                high: 0.5,
                low: 0.3,
            },
            &super::super::testing::port_info(),
            atmsim_engine::RngStreams::new(1).stream(0),
        );
        p.add_vc(&VcShare::default());
        p.add_vc(&VcShare::default());
        let (a, b) = (0, 1);
        let view = |occupancy| PortView {
            occupancy,
            port_limit: 10,
            vc_count: 0,
            vc_limit: u32::MAX,
            active_vcs: 1,
        };
        let c = |vc, frame, eom: bool| Cell::data(VcId(vc), frame, vc as Label, if eom { Cell::EOM } else { 0 });
        let ok = Verdict::Accept;
        // VC b queues 5 cells (50%) of an unfinished frame.
        for q in 0..5 {
            assert_eq!(p.on_arrival(SimTime::ZERO, view(q), b, &c(1, 0, false)), ok);
        }
        // VC a starts a frame at 50%: caught (red), dropped.
        assert_ne!(p.on_arrival(SimTime::ZERO, view(5), a, &c(0, 0, false)), ok);
        assert!(p.is_red(a));
        // b's frame continues above high: mid-frame cells are admitted.
        assert_eq!(p.on_arrival(SimTime::ZERO, view(5), b, &c(1, 0, true)), ok);
        // a's EOM is admitted (room) but a stays red: the queue (6) is not below low (3).
        assert_eq!(p.on_arrival(SimTime::ZERO, view(6), a, &c(0, 0, true)), ok);
        assert!(p.is_red(a));
        // a's next frame is discarded while red, even with room.
        assert_eq!(
            p.on_arrival(SimTime::ZERO, view(6), a, &c(0, 1, false)),
            Verdict::Drop(DropReason::Selective)
        );
        // At 2 cells, a's next EOM releases it.
        assert_eq!(p.on_arrival(SimTime::ZERO, view(2), a, &c(0, 1, true)), ok);
        assert!(!p.is_red(a));
        assert_eq!(p.on_arrival(SimTime::ZERO, view(2), a, &c(0, 2, false)), ok, "released");
    }

    #[test]
    fn low_above_high_is_refused() {
        let e = Espd::check(&EspdConfig { high: 0.8, low: 0.9 }).unwrap_err();
        assert_eq!(e.field, "low");
        assert!(Espd::check(&EspdConfig { high: 0.9, low: 1.2 }).is_err());
    }
}
