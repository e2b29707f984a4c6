//! Fair Buffer Allocation (Heinanen & Kilkki; as the UBR+ studies ran it): Selective Drop
//! with a share that shrinks as the buffer fills. At the first cell of a frame of VC i, with X
//! the port's occupancy, K its size, R the threshold, N_a the VCs with cells queued and Y_i
//! the VC's cells, the frame is refused whole if X > R and Y_i N_a / X > Z (K - R) / (X - R).
//! Just above R a VC may hold many equal shares; near K only Z of one. Otherwise the frame is
//! accepted, and one that overflows the buffer falls back to partial packet discard.
//!
//! Defaults R = 0.9 of the buffer and Z = 0.8 (the value the UBR+ studies typically used).

use super::selective_drop::{check_z, load, r_default, z_default};
use super::{AdmissionPolicy, DropReason, FrameState, Invalid, PortInfo, PortView, VcShare, Verdict};
use crate::cell::Cell;
use crate::ids::Label;
use atmsim_engine::{RngStream, SimTime};
use serde::{Deserialize, Serialize};

/// `kind = "fba"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FbaConfig {
    /// R as a fraction of the port's buffer, in (0, 1).
    #[serde(default = "r_default")]
    pub threshold: f64,
    /// Z, > 0.
    #[serde(default = "z_default")]
    pub z: f64,
}

#[derive(Debug, Clone)]
pub struct Fba {
    threshold: f64,
    z: f64,
    vcs: Vec<FrameState>,
}

impl AdmissionPolicy for Fba {
    type Config = FbaConfig;
    const EXAMPLE: &'static str = r#"{ kind = "fba", threshold = 0.9, z = 0.8 }"#;

    fn new(c: &FbaConfig, _port: &PortInfo, _rng: RngStream) -> Self {
        Fba {
            threshold: c.threshold,
            z: c.z,
            vcs: Vec::new(),
        }
    }

    fn check(c: &FbaConfig) -> Result<(), Invalid> {
        Invalid::fraction("threshold", c.threshold)?;
        if c.threshold >= 1.0 {
            return Err(Invalid {
                field: "threshold",
                message: "FBA's share Z (K - R) / (X - R) needs R below the buffer size K: \
                          allowed 0 < threshold < 1 (e.g. 0.9)"
                    .into(),
            });
        }
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
        let k = view.port_limit as f64;
        let refuse = first
            .then(|| load(view, self.threshold))
            .filter(|&(x, r, share)| x > r && share > self.z * (k - r) / (x - r))
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
    fn the_allowed_share_shrinks_as_the_buffer_fills() {
        let mut p = Fba::new(
            &FbaConfig {
                threshold: 0.5,
                z: 1.0,
            },
            &port_info(),
            rng(1),
        );
        p.add_vc(&VcShare::default());
        let first = Cell::data(VcId(0), 0, 0, Cell::EOM);
        // K = 100, R = 50, Z = 1, 2 active VCs. At X = 60 the allowed load is 50/10 = 5 equal
        // shares: Y_i = 40 (load 1.33) is accepted. At X = 90 it is 50/40 = 1.25: Y_i = 60
        // (load 1.33) is refused, Y_i = 50 (load 1.11) accepted.
        assert_eq!(p.on_arrival(SimTime::ZERO, view(60, 40, 2), 0, &first), Verdict::Accept);
        assert_eq!(
            p.on_arrival(SimTime::ZERO, view(90, 60, 2), 0, &first),
            Verdict::Drop(DropReason::EarlyDiscard)
        );
        assert_eq!(p.on_arrival(SimTime::ZERO, view(90, 50, 2), 0, &first), Verdict::Accept);
    }

    #[test]
    fn a_threshold_at_the_buffer_size_is_refused() {
        let e = Fba::check(&FbaConfig {
            threshold: 1.0,
            z: 0.8,
        })
        .unwrap_err();
        assert_eq!(e.field, "threshold");
    }
}
