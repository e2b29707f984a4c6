//! Early packet discard (Romanow & Floyd 1995; Cheon & Panwar 1998 section 3.1): a frame
//! whose first cell finds the buffer at or above the threshold (`compare = "above"`: above
//! it, as Cheon & Panwar word it, "exceeds") is refused whole, its EOM included; a frame that was admitted is kept whole unless the buffer itself overflows, and
//! then the rest of it is dropped as in partial packet discard (EOM kept).
//!
//! The threshold is a fraction of the reference buffer: the port's queue when it is bounded,
//! else the VC's own buffer (and the VC's own occupancy is compared).

use super::{AdmissionPolicy, DropReason, FrameState, Invalid, PortInfo, PortView, VcShare, Verdict};
use crate::cell::Cell;
use crate::ids::Label;
use atmsim_engine::{RngStream, SimTime};
use serde::{Deserialize, Serialize};

/// `kind = "epd"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EpdConfig {
    /// Fraction of the buffer, in (0, 1]: new frames are refused at (or above) it.
    pub threshold: f64,
    /// Whether a frame is refused when the queue is at or above the threshold, or only when
    /// it is above it.
    #[serde(default)]
    pub compare: ThresholdTest,
}

/// How a queue level is compared with a threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThresholdTest {
    /// level >= threshold x size.
    #[default]
    AtOrAbove,
    /// level > threshold x size ("exceeds").
    Above,
}

#[derive(Debug, Clone)]
pub struct Epd {
    threshold: f64,
    compare: ThresholdTest,
    vcs: Vec<FrameState>,
}

impl AdmissionPolicy for Epd {
    type Config = EpdConfig;
    const EXAMPLE: &'static str = r#"{ kind = "epd", threshold = 0.9 }"#;

    fn new(c: &EpdConfig, _port: &PortInfo, _rng: RngStream) -> Self {
        Epd {
            threshold: c.threshold,
            compare: c.compare,
            vcs: Vec::new(),
        }
    }

    fn check(c: &EpdConfig) -> Result<(), Invalid> {
        Invalid::fraction("threshold", c.threshold)
    }

    fn add_vc(&mut self, _share: &VcShare) {
        self.vcs.push(FrameState::default());
    }

    #[inline(always)]
    fn on_arrival(&mut self, _now: SimTime, view: PortView, label: Label, cell: &Cell) -> Verdict {
        let st = &mut self.vcs[label as usize];
        let (first, eom) = st.track(cell);
        let over = match self.compare {
            ThresholdTest::AtOrAbove => view.at_or_above(self.threshold),
            ThresholdTest::Above => view.above(self.threshold),
        };
        st.early_discard(view, first, eom, over.then_some(DropReason::EarlyDiscard))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::Bench;
    use super::super::{DropReason, PolicyConfig};
    use super::*;

    fn epd(threshold: f64) -> PolicyConfig {
        PolicyConfig::Epd(EpdConfig {
            threshold,
            compare: ThresholdTest::AtOrAbove,
        })
    }

    #[test]
    fn above_refuses_only_past_the_threshold() {
        // Limit 10, threshold 50%: a frame starting at exactly 5 cells is refused by "at or
        // above" and admitted by "above"; one starting at 6 is refused by both.
        let above = PolicyConfig::Epd(EpdConfig {
            threshold: 0.5,
            compare: ThresholdTest::Above,
        });
        // (`feed` returns the frame number of each cell left queued.)
        let mut b = Bench::new(above.clone(), 10);
        assert_eq!(b.feed(&[5, 1]), vec![0, 0, 0, 0, 0, 1]);
        let mut b = Bench::new(epd(0.5), 10);
        assert_eq!(b.feed(&[5, 1]), vec![0; 5]);
        let mut b = Bench::new(above, 10);
        assert_eq!(b.feed(&[6, 1]), vec![0; 6]);
    }

    #[test]
    fn frames_starting_above_the_threshold_are_refused_whole() {
        // Limit 10, threshold 50%: frames of 3 cells start at levels 0, 3 (admitted) and 6
        // (refused whole).
        let mut b = Bench::new(epd(0.5), 10);
        assert_eq!(b.feed(&[3, 3, 3]), vec![0, 0, 0, 1, 1, 1]);
        assert_eq!(b.drops[DropReason::EarlyDiscard as usize], 3);
    }

    #[test]
    fn an_admitted_frame_that_overflows_falls_back_to_ppd() {
        // Frame 1 starts at 4 < 5 and has 8 cells: it overflows at 10; PPD keeps its EOM if room.
        let mut b = Bench::new(epd(0.5), 10);
        assert_eq!(b.feed(&[4, 8]).len(), 10);
        assert_eq!(b.drops[DropReason::EarlyDiscard as usize], 0);
        assert!(b.drops[DropReason::VcBufferFull as usize] > 0);
    }

    #[test]
    fn thresholds_outside_the_buffer_are_refused() {
        let c = |threshold| EpdConfig {
            threshold,
            compare: ThresholdTest::AtOrAbove,
        };
        assert!(Epd::check(&c(0.0)).is_err());
        assert!(Epd::check(&c(1.5)).is_err());
        assert!(Epd::check(&c(1.0)).is_ok());
    }
}
