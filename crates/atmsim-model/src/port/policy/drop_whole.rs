//! Fang et al. 1994's "drop-whole": when a cell of a frame does not fit, the cells of that
//! frame still queued at the port are removed too (back to the previous frame's EOM), and the
//! rest of the frame, its EOM included, is dropped as it arrives. No partial frame leaves
//! the port.

use super::{AdmissionPolicy, DropReason, FrameState, PortInfo, PortView, VcShare, Verdict};
use crate::cell::Cell;
use crate::ids::Label;
use atmsim_engine::{RngStream, SimTime};
use serde::{Deserialize, Serialize};

/// `kind = "drop_whole"` takes no parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DropWholeConfig {}

#[derive(Debug, Clone)]
pub struct DropWhole {
    vcs: Vec<FrameState>,
}

impl AdmissionPolicy for DropWhole {
    type Config = DropWholeConfig;
    const EXAMPLE: &'static str = r#"{ kind = "drop_whole" }"#;

    fn new(_: &DropWholeConfig, _port: &PortInfo, _rng: RngStream) -> Self {
        DropWhole { vcs: Vec::new() }
    }

    fn add_vc(&mut self, _share: &VcShare) {
        self.vcs.push(FrameState::default());
    }

    #[inline(always)]
    fn on_arrival(&mut self, _now: SimTime, view: PortView, label: Label, cell: &Cell) -> Verdict {
        let st = &mut self.vcs[label as usize];
        let (_, eom) = st.track(cell);
        if st.discarding {
            // Fang: "drop subsequent cells until the end of the packet, including the EOM".
            if eom {
                st.discarding = false;
            }
            return Verdict::Drop(DropReason::FrameTail);
        }
        match view.full() {
            None => Verdict::Accept,
            Some(r) => {
                st.discarding = !eom;
                Verdict::DropAndPurge(r)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::Bench;
    use super::super::{DropReason, PolicyConfig};
    use super::*;

    #[test]
    fn a_frame_that_overflows_is_purged_back_to_the_previous_eom() {
        // Limit 6: frame 0 (3 cells) + 3 cells of frame 1 fill it; frame 1's 4th cell
        // overflows: its 3 queued cells go, the rest including its EOM is dropped.
        let mut b = Bench::new(PolicyConfig::DropWhole(DropWholeConfig {}), 6);
        assert_eq!(b.feed(&[3, 5, 2]), vec![0, 0, 0, 2, 2], "frame 1 gone whole");
        assert_eq!(b.drops[DropReason::Purged as usize], 3);
        assert_eq!(b.drops[DropReason::VcBufferFull as usize], 1);
        assert_eq!(b.drops[DropReason::FrameTail as usize], 1);
    }
}
