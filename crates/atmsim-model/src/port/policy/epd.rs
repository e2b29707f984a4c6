//! Early packet discard (Romanow & Floyd 1995; Cheon & Panwar 1998 section 3.1): a frame
//! whose first cell finds the buffer at or above the threshold is refused whole, its EOM
//! included; a frame that was admitted is kept whole unless the buffer itself overflows, and
//! then the rest of it is dropped as in partial packet discard (EOM kept).
//!
//! The threshold is a fraction of the reference buffer: the port's queue when it is bounded,
//! else the VC's own buffer (and the VC's own occupancy is compared).

use super::{AdmissionPolicy, DropReason, FrameState, Invalid, PortView, Ppd, Verdict};
use crate::cell::Cell;
use crate::ids::Label;
use serde::{Deserialize, Serialize};

/// `kind = "epd"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EpdConfig {
    /// Fraction of the buffer, in (0, 1]: new frames are refused at or above it.
    pub threshold: f64,
}

#[derive(Debug, Clone)]
pub struct Epd {
    threshold: f64,
    vcs: Vec<FrameState>,
}

impl AdmissionPolicy for Epd {
    type Config = EpdConfig;

    fn new(c: &EpdConfig) -> Self {
        Epd {
            threshold: c.threshold,
            vcs: Vec::new(),
        }
    }

    fn check(c: &EpdConfig) -> Result<(), Invalid> {
        Invalid::fraction("threshold", c.threshold)
    }

    fn add_vc(&mut self) {
        self.vcs.push(FrameState::default());
    }

    #[inline(always)]
    fn on_arrival(&mut self, view: PortView, label: Label, cell: &Cell) -> Verdict {
        let st = &mut self.vcs[label as usize];
        let (first, eom) = st.track(cell);
        if first && !st.discarding && view.at_or_above(self.threshold) {
            // Refuse the whole frame, its EOM included.
            st.discarding = !eom;
            st.drop_eom = true;
            return Verdict::Drop(DropReason::EarlyDiscard);
        }
        if st.discarding && st.drop_eom {
            if eom {
                st.discarding = false;
                st.drop_eom = false;
            }
            return Verdict::Drop(DropReason::EarlyDiscard);
        }
        // An admitted frame that overflows falls back to partial packet discard.
        Ppd::decide(view, st, eom, true)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::Bench;
    use super::super::{DropReason, PolicyConfig};
    use super::*;

    fn epd(threshold: f64) -> PolicyConfig {
        PolicyConfig::Epd(EpdConfig { threshold })
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
        assert!(Epd::check(&EpdConfig { threshold: 0.0 }).is_err());
        assert!(Epd::check(&EpdConfig { threshold: 1.5 }).is_err());
        assert!(Epd::check(&EpdConfig { threshold: 1.0 }).is_ok());
    }
}
