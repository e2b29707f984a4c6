//! Selective Drop (Goyal, Jain, Kalyanaraman, Fahmy & Kim, "UBR+", 1997): per-VC accounting
//! in a shared FIFO. At the first cell of a frame of VC i, with X the port's occupancy, R the
//! threshold, N_a the VCs with cells queued and Y_i the VC's cells, the frame is refused whole
//! if X > R and Y_i N_a / X > Z: the VC holds more than Z times an equal share of what is
//! queued. Otherwise it is accepted; a frame that overflows the buffer falls back to partial
//! packet discard. Unlike EPD, a VC below its share keeps sending above the threshold.
//!
//! Defaults R = 0.9 of the buffer and Z = 0.8 are the values the UBR+ studies typically ran
//! with; the scenario should state its own.

use super::{AdmissionPolicy, DropReason, FrameState, Invalid, PortInfo, PortView, VcShare, Verdict};
use crate::cell::Cell;
use crate::ids::Label;
use atmsim_engine::{RngStream, SimTime};
use serde::{Deserialize, Serialize};

/// `kind = "selective_drop"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelectiveDropConfig {
    /// R as a fraction of the port's buffer, in (0, 1].
    #[serde(default = "r_default")]
    pub threshold: f64,
    /// Z: the multiple of an equal share above which a VC's frames are refused, > 0.
    #[serde(default = "z_default")]
    pub z: f64,
}

pub(super) fn r_default() -> f64 {
    0.9
}
pub(super) fn z_default() -> f64 {
    0.8
}

/// Z must be positive and finite.
pub(super) fn check_z(z: f64) -> Result<(), Invalid> {
    if z.is_finite() && z > 0.0 {
        Ok(())
    } else {
        Err(Invalid {
            field: "z",
            message: format!("{z} is not a positive number: allowed z > 0 (e.g. 0.8)"),
        })
    }
}

/// (X, R, Y_i N_a / X) at an arrival: the port's occupancy, its threshold in cells and the
/// VC's load against an equal share of what is queued.
#[inline]
pub(super) fn load(view: PortView, threshold: f64) -> (f64, f64, f64) {
    let x = view.occupancy as f64;
    let r = threshold * view.port_limit as f64;
    let share = if x > 0.0 {
        view.vc_count as f64 * view.active_vcs as f64 / x
    } else {
        0.0
    };
    (x, r, share)
}

#[derive(Debug, Clone)]
pub struct SelectiveDrop {
    threshold: f64,
    z: f64,
    vcs: Vec<FrameState>,
}

impl AdmissionPolicy for SelectiveDrop {
    type Config = SelectiveDropConfig;
    const EXAMPLE: &'static str = r#"{ kind = "selective_drop", threshold = 0.9, z = 0.8 }"#;

    fn new(c: &SelectiveDropConfig, _port: &PortInfo, _rng: RngStream) -> Self {
        SelectiveDrop {
            threshold: c.threshold,
            z: c.z,
            vcs: Vec::new(),
        }
    }

    fn check(c: &SelectiveDropConfig) -> Result<(), Invalid> {
        Invalid::fraction("threshold", c.threshold)?;
        check_z(c.z)
    }

    const NEEDS_PORT_BUFFER: bool = true;

    fn add_vc(&mut self, _share: &VcShare) {
        self.vcs.push(FrameState::default());
    }

    #[inline]
    fn on_arrival(&mut self, _now: SimTime, view: PortView, label: Label, cell: &Cell) -> Verdict {
        let st = &mut self.vcs[label as usize];
        let (first, eom) = st.track(cell);
        let refuse = first
            .then(|| load(view, self.threshold))
            .filter(|&(x, r, share)| x > r && share > self.z)
            .map(|_| DropReason::EarlyDiscard);
        st.early_discard(view, first, eom, refuse)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{port_info, rng, shared_view};
    use super::*;
    use crate::ids::VcId;

    fn view(x: u32, yi: u32, na: u32) -> PortView {
        shared_view(x, 100, yi, na)
    }

    #[test]
    fn above_the_threshold_only_vcs_above_their_share_lose_frames() {
        let mut p = SelectiveDrop::new(
            &SelectiveDropConfig {
                threshold: 0.5,
                z: 1.0,
            },
            &port_info(),
            rng(1),
        );
        p.add_vc(&VcShare::default());
        let first = Cell::data(VcId(0), 0, 0, Cell::EOM);
        // 60 cells queued among 4 VCs (equal share 15): a VC with 10 is accepted, one with
        // 20 refused; below the threshold (50) both are accepted.
        assert_eq!(p.on_arrival(SimTime::ZERO, view(60, 10, 4), 0, &first), Verdict::Accept);
        assert_eq!(
            p.on_arrival(SimTime::ZERO, view(60, 20, 4), 0, &first),
            Verdict::Drop(DropReason::EarlyDiscard)
        );
        assert_eq!(p.on_arrival(SimTime::ZERO, view(50, 20, 4), 0, &first), Verdict::Accept);
        assert_eq!(
            p.on_arrival(SimTime::ZERO, view(100, 0, 4), 0, &first),
            Verdict::Drop(DropReason::PortBufferFull)
        );
    }
}
