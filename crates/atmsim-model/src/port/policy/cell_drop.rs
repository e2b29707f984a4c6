//! Simple cell drop: a cell that finds its queue full is dropped; nothing else (Fang et al.
//! 1994, "simple cell drop"; Romanow & Floyd's plain UBR). A frame that loses a cell still
//! sends its other cells downstream, where reassembly discards the frame.

use super::{AdmissionPolicy, PortInfo, PortView, Verdict};
use crate::cell::Cell;
use crate::ids::Label;
use atmsim_engine::{RngStream, SimTime};
use serde::{Deserialize, Serialize};

/// `kind = "cell_drop"` takes no parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellDropConfig {}

#[derive(Debug, Clone)]
pub struct CellDrop;

impl AdmissionPolicy for CellDrop {
    type Config = CellDropConfig;
    const EXAMPLE: &'static str = r#"{ kind = "cell_drop" }"#;

    const FRAME_AWARE: bool = false;

    fn new(_: &CellDropConfig, _port: &PortInfo, _rng: RngStream) -> Self {
        CellDrop
    }

    #[inline(always)]
    fn on_arrival(&mut self, _now: SimTime, view: PortView, _: Label, _: &Cell) -> Verdict {
        match view.full() {
            Some(r) => Verdict::Drop(r),
            None => Verdict::Accept,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::Bench;
    use super::*;

    #[test]
    fn drops_only_what_does_not_fit() {
        let mut b = Bench::new(super::super::PolicyConfig::CellDrop(CellDropConfig {}), 5);
        let q = b.feed(&[3, 3]);
        assert_eq!(q, vec![0, 0, 0, 1, 1], "the 6th cell finds the queue full");
        assert_eq!(b.dropped(), 1);
    }
}
