//! Per-VC thresholds in a shared FIFO (Goyal, Jain, Fahmy & Vandalore 1998, section 3): a VC
//! loses one frame each time its occupancy crosses its threshold upwards, and then accepts
//! the rest of its window, however far above the threshold that takes it, until its
//! occupancy has fallen below the threshold again, which re-arms the drop.
//!
//! The one frame lost is the first to start while the VC holds at least its threshold
//! (refused whole at its first cell, EOM included, as EPD refuses). The occupancy is seen when
//! the VC's cells arrive, so "fallen below" means an arriving cell of the VC found fewer cells
//! of it queued than the threshold. A TCP that loses one segment halves its window and pauses
//! for about half a round trip while its cells drain below the threshold, so its window
//! (and its share of the FIFO's output) is held near the threshold. A VC without a threshold
//! loses cells only when the buffer is full. A frame that overflows the buffer falls back to
//! partial packet discard, as under EPD.

use super::{AdmissionPolicy, DropReason, FrameState, PortInfo, PortView, VcShare, Verdict};
use crate::cell::Cell;
use crate::ids::Label;
use atmsim_engine::{RngStream, SimTime};
use serde::{Deserialize, Serialize};

/// `kind = "threshold"`: the thresholds are each VC's (`share.threshold` of its connection
/// or merged VC).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThresholdConfig {}

#[derive(Debug, Clone)]
pub struct Threshold {
    vcs: Vec<ThresholdVc>,
}

#[derive(Debug, Clone, Copy)]
struct ThresholdVc {
    frame: FrameState,
    /// r_i [cells]; `u32::MAX`: none.
    threshold: u32,
    /// The next crossing drops a frame.
    armed: bool,
}

impl Threshold {
    /// Whether VC `label`'s next crossing of its threshold will cost it a frame (for tests).
    pub fn is_armed(&self, label: Label) -> bool {
        self.vcs[label as usize].armed
    }
}

impl AdmissionPolicy for Threshold {
    type Config = ThresholdConfig;
    const EXAMPLE: &'static str = r#"{ kind = "threshold" }"#;

    fn new(_: &ThresholdConfig, _port: &PortInfo, _rng: RngStream) -> Self {
        Threshold { vcs: Vec::new() }
    }

    fn add_vc(&mut self, share: &VcShare) {
        self.vcs.push(ThresholdVc {
            frame: FrameState::default(),
            threshold: share.threshold.unwrap_or(u32::MAX),
            armed: true,
        });
    }

    #[inline]
    fn on_arrival(&mut self, _now: SimTime, view: PortView, label: Label, cell: &Cell) -> Verdict {
        let vc = &mut self.vcs[label as usize];
        let (first, eom) = vc.frame.track(cell);
        if view.vc_count < vc.threshold {
            vc.armed = true;
        }
        let refuse = if first && vc.armed && view.vc_count >= vc.threshold {
            vc.armed = false;
            Some(DropReason::EarlyDiscard)
        } else {
            None
        };
        vc.frame.early_discard(view, first, eom, refuse)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{port_info, rng, shared_view};
    use super::*;
    use crate::ids::VcId;

    fn view(vc_count: u32) -> PortView {
        shared_view(vc_count, 1000, vc_count, 1)
    }

    #[test]
    fn one_frame_per_crossing_then_the_rest_of_the_window() {
        let mut p = Threshold::new(&ThresholdConfig {}, &port_info(), rng(1));
        p.add_vc(&VcShare {
            threshold: Some(10),
            weight: 1.0,
        });
        let mut q = 0u32; // the VC's cells queued (nothing leaves in this test)
        let mut kept_frames = Vec::new();
        // Frames of 4 cells: frames 0-2 take the VC from 0 to 12 cells; frame 3 starts at 12
        // (>= 10) and is refused whole; frames 4-6 are accepted above the threshold.
        for f in 0..7u32 {
            let mut kept = 0;
            for i in 0..4 {
                let c = Cell::data(VcId(0), f, 0, if i == 3 { Cell::EOM } else { 0 });
                if p.on_arrival(SimTime::ZERO, view(q), 0, &c) == Verdict::Accept {
                    q += 1;
                    kept += 1;
                }
            }
            kept_frames.push(kept);
        }
        assert_eq!(kept_frames, vec![4, 4, 4, 0, 4, 4, 4]);
        assert!(!p.is_armed(0));
        // The queue drains below the threshold: the next frame re-arms and is accepted; the
        // one after, at the threshold again, is refused.
        let c = |f, i| Cell::data(VcId(0), f, 0, if i == 3 { Cell::EOM } else { 0 });
        for i in 0..4 {
            assert_eq!(p.on_arrival(SimTime::ZERO, view(6 + i), 0, &c(7, i)), Verdict::Accept);
        }
        assert!(p.is_armed(0));
        assert_eq!(
            p.on_arrival(SimTime::ZERO, view(10), 0, &c(8, 0)),
            Verdict::Drop(DropReason::EarlyDiscard)
        );
    }

    #[test]
    fn a_vc_without_threshold_loses_only_to_a_full_buffer() {
        let mut p = Threshold::new(&ThresholdConfig {}, &port_info(), rng(1));
        p.add_vc(&VcShare::default());
        let c = Cell::data(VcId(0), 0, 0, 0);
        assert_eq!(p.on_arrival(SimTime::ZERO, view(999), 0, &c), Verdict::Accept);
        assert_eq!(
            p.on_arrival(SimTime::ZERO, view(1000), 0, &c),
            Verdict::Drop(DropReason::PortBufferFull)
        );
    }
}
