//! Partial packet discard (Romanow & Floyd 1995; Fang et al. 1994's "drop-tail"): once a
//! cell of a frame is dropped, the rest of that frame is dropped too. With `keep_eom` the
//! frame's EOM cell is kept (if it fits), so reassembly sees the boundary and discards one
//! frame instead of merging it with the next; Fang keeps it.

use super::{AdmissionPolicy, DropReason, FrameState, PortInfo, PortView, VcShare, Verdict};
use crate::cell::Cell;
use crate::ids::Label;
use atmsim_engine::{RngStream, SimTime};
use serde::{Deserialize, Serialize};

/// `kind = "ppd"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PpdConfig {
    /// Keep the EOM cell of a damaged frame so reassembly finds the boundary (Fang: yes).
    #[serde(default = "keep_eom_default")]
    pub keep_eom: bool,
}

fn keep_eom_default() -> bool {
    true
}

#[derive(Debug, Clone)]
pub struct Ppd {
    keep_eom: bool,
    vcs: Vec<FrameState>,
}

impl Ppd {
    /// The partial-packet-discard step, shared with EPD's fallback: drop the rest of a frame
    /// that lost a cell (keeping its EOM if `keep_eom`), else drop what does not fit.
    #[inline]
    pub(super) fn decide(view: PortView, st: &mut FrameState, eom: bool, keep_eom: bool) -> Verdict {
        if st.discarding {
            if !eom {
                return Verdict::Drop(DropReason::FrameTail);
            }
            st.discarding = false;
            if !keep_eom {
                return Verdict::Drop(DropReason::FrameTail);
            }
        }
        match view.full() {
            None => Verdict::Accept,
            Some(r) => {
                st.discarding = !eom;
                st.drop_eom = false;
                Verdict::Drop(r)
            }
        }
    }
}

impl AdmissionPolicy for Ppd {
    type Config = PpdConfig;
    const EXAMPLE: &'static str = r#"{ kind = "ppd", keep_eom = true }"#;

    fn new(c: &PpdConfig, _port: &PortInfo, _rng: RngStream) -> Self {
        Ppd {
            keep_eom: c.keep_eom,
            vcs: Vec::new(),
        }
    }

    fn add_vc(&mut self, _share: &VcShare) {
        self.vcs.push(FrameState::default());
    }

    #[inline(always)]
    fn on_arrival(&mut self, _now: SimTime, view: PortView, label: Label, cell: &Cell) -> Verdict {
        let st = &mut self.vcs[label as usize];
        let (_, eom) = st.track(cell);
        Self::decide(view, st, eom, self.keep_eom)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::Bench;
    use super::super::{DropReason, PolicyConfig};
    use super::*;
    use crate::ids::VcId;

    fn ppd(keep_eom: bool) -> PolicyConfig {
        PolicyConfig::Ppd(PpdConfig { keep_eom })
    }

    #[test]
    fn the_eom_of_a_damaged_frame_is_kept_only_if_it_fits() {
        // Frame 0 (4 cells) fits; frame 1 finds 3 free of 7: 3 kept, its EOM finds it full.
        let mut b = Bench::new(ppd(true), 7);
        assert_eq!(b.feed(&[4, 4]), vec![0, 0, 0, 0, 1, 1, 1]);
        assert_eq!(b.dropped(), 1);
        let mut b = Bench::new(ppd(true), 6);
        assert_eq!(b.feed(&[4, 4]), vec![0, 0, 0, 0, 1, 1]);
    }

    #[test]
    fn the_tail_is_dropped_but_the_eom_kept_when_there_is_room() {
        let mut b = Bench::new(ppd(true), 3);
        let c = |frame, eom: bool| Cell::data(VcId(0), frame, 0, if eom { Cell::EOM } else { 0 });
        for _ in 0..3 {
            assert!(b.offer(c(0, false)));
        }
        assert!(!b.offer(c(0, false)), "full");
        b.queue.remove(0); // room appears
        assert!(!b.offer(c(0, false)), "tail of a damaged frame");
        assert!(b.offer(c(0, true)), "its EOM is kept");
        assert!(!b.offer(c(1, false)), "full again: the next frame's first cell");
        assert_eq!(b.drops[DropReason::FrameTail as usize], 1);
    }

    #[test]
    fn without_keep_eom_the_eom_goes_too() {
        let mut b = Bench::new(ppd(false), 3);
        let kept = b.feed(&[5, 2]);
        // Frame 0: 3 kept, cell 4 finds the queue full, its EOM goes as the tail; frame 1's
        // first cell finds the queue full too, and its EOM goes as the tail.
        assert_eq!(kept, vec![0, 0, 0]);
        assert_eq!(b.drops[DropReason::VcBufferFull as usize], 2);
        assert_eq!(b.drops[DropReason::FrameTail as usize], 2);
    }
}
