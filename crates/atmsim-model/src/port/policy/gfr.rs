//! The GFR buffer management policy of Goyal, Jain, Fahmy & Vandalore 1998 (section 4, its
//! pseudo-code line by line), for a FIFO buffer shared by VCs that may each carry several
//! merged TCP connections. At the first cell of a frame of VC i, with X the port's
//! occupancy, X_i the VC's, R the port's threshold, R_i and W_i the VC's threshold and weight:
//!
//! 1. if X_i < R_i and X < R, the frame is accepted;
//! 2. else if X < R, X_i < Z R_i, the cell is untagged (CLP = 0) and u > W_i (X_i - R_i) /
//!    (R_i (Z - 1)) for a uniform u in [0, 1) from the port's random stream, it is accepted;
//! 3. else the frame is dropped whole (EPD).
//!
//! So a VC above its threshold loses frames with a probability that grows linearly from 0 at
//! R_i to W_i at Z R_i, and every frame from Z R_i on; tagged frames are accepted only below
//! R_i. A cell that finds the buffer full is dropped and the rest of its frame with it
//! (partial packet discard). A VC without a threshold of its own is held to R only.

use super::{AdmissionPolicy, DropReason, FrameState, Invalid, PortInfo, PortView, VcShare, Verdict};
use crate::cell::Cell;
use crate::ids::Label;
use atmsim_engine::{RngStream, SimTime};
use serde::{Deserialize, Serialize};

/// `kind = "gfr"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GfrConfig {
    /// R as a fraction of the port's buffer, in (0, 1]. Default 1: the paper does not give R
    /// for its runs, and R = the buffer size leaves the port-wide rule to the buffer itself.
    #[serde(default = "one")]
    pub threshold: f64,
    /// Z, the largest occupancy of a VC during congestion as a multiple of its threshold,
    /// above 1 (the paper's runs: 1.5).
    #[serde(default = "z_default")]
    pub z: f64,
}

fn one() -> f64 {
    1.0
}
fn z_default() -> f64 {
    1.5
}

#[derive(Debug, Clone)]
pub struct Gfr {
    threshold: f64,
    z: f64,
    rng: RngStream,
    vcs: Vec<GfrVc>,
}

#[derive(Debug, Clone, Copy)]
struct GfrVc {
    frame: FrameState,
    /// R_i [cells] (`f64::INFINITY`: none).
    r: f64,
    /// W_i.
    w: f64,
}

impl Gfr {
    /// The decision at the first cell of a frame: `None` accepts it.
    #[inline]
    fn refuse(&mut self, view: PortView, vc: GfrVc, cell: &Cell) -> Option<DropReason> {
        let x = view.occupancy as f64;
        let below_r = x < self.threshold * view.port_limit as f64;
        let xi = view.vc_count as f64;
        if xi < vc.r && below_r {
            return None;
        }
        if below_r
            && xi < self.z * vc.r
            && !cell.is_clp()
            && self.rng.uniform() > vc.w * (xi - vc.r) / (vc.r * (self.z - 1.0))
        {
            return None;
        }
        Some(DropReason::EarlyDiscard)
    }
}

impl AdmissionPolicy for Gfr {
    type Config = GfrConfig;
    const EXAMPLE: &'static str = r#"{ kind = "gfr", threshold = 1.0, z = 1.5 }"#;

    fn new(c: &GfrConfig, _port: &PortInfo, rng: RngStream) -> Self {
        Gfr {
            threshold: c.threshold,
            z: c.z,
            rng,
            vcs: Vec::new(),
        }
    }

    fn check(c: &GfrConfig) -> Result<(), Invalid> {
        Invalid::fraction("threshold", c.threshold)?;
        if !(c.z.is_finite() && c.z > 1.0) {
            return Err(Invalid {
                field: "z",
                message: format!(
                    "{} is not above 1: Z is a VC's largest occupancy as a multiple of its \
                     threshold (the drop probability divides by Z - 1); e.g. 1.5",
                    c.z
                ),
            });
        }
        Ok(())
    }

    const NEEDS_PORT_BUFFER: bool = true;

    fn add_vc(&mut self, share: &VcShare) {
        self.vcs.push(GfrVc {
            frame: FrameState::default(),
            r: share.threshold.map_or(f64::INFINITY, f64::from),
            w: share.weight,
        });
    }

    #[inline]
    fn on_arrival(&mut self, _now: SimTime, view: PortView, label: Label, cell: &Cell) -> Verdict {
        let (first, eom) = self.vcs[label as usize].frame.track(cell);
        let refuse = if first && !self.vcs[label as usize].frame.discarding {
            self.refuse(view, self.vcs[label as usize], cell)
        } else {
            None
        };
        self.vcs[label as usize]
            .frame
            .early_discard(view, first, eom, refuse)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{port_info, rng, shared_view};
    use super::*;
    use crate::ids::VcId;

    fn gfr(seed: u64) -> Gfr {
        let mut g = Gfr::new(
            &GfrConfig {
                threshold: 0.5,
                z: 1.5,
            },
            &port_info(),
            rng(seed),
        );
        g.add_vc(&VcShare {
            threshold: Some(100),
            weight: 1.0,
        });
        g
    }

    fn view(x: u32, xi: u32) -> PortView {
        shared_view(x, 1000, xi, 2)
    }

    fn first(tagged: bool) -> Cell {
        Cell::data(VcId(0), 0, 0, if tagged { Cell::CLP } else { 0 })
    }

    /// Offers a one-cell frame (first and EOM) and returns whether it was kept.
    fn one_cell_frame(g: &mut Gfr, v: PortView, tagged: bool) -> bool {
        let mut c = first(tagged);
        c.flags |= Cell::EOM;
        g.on_arrival(SimTime::ZERO, v, 0, &c) == Verdict::Accept
    }

    #[test]
    fn below_both_thresholds_every_frame_is_accepted() {
        let mut g = gfr(1);
        for xi in 0..100 {
            assert!(one_cell_frame(&mut g, view(499, xi), false));
            assert!(one_cell_frame(&mut g, view(499, xi), true), "tagged too");
        }
    }

    #[test]
    fn above_r_or_z_ri_every_frame_is_dropped() {
        let mut g = gfr(1);
        assert!(!one_cell_frame(&mut g, view(500, 0), false), "X >= R");
        assert!(!one_cell_frame(&mut g, view(100, 150), false), "X_i >= Z R_i");
        assert!(!one_cell_frame(&mut g, view(100, 120), true), "tagged above R_i");
    }

    #[test]
    fn the_drop_probability_grows_linearly_from_ri_to_z_ri() {
        // At X_i = R_i + k (R_i = 100, Z = 1.5, W = 1) the drop probability is k / 50.
        for (xi, p) in [(100u32, 0.0), (110, 0.2), (125, 0.5), (140, 0.8)] {
            let mut g = gfr(7);
            let n = 20_000;
            let dropped = (0..n)
                .filter(|_| !one_cell_frame(&mut g, view(300, xi), false))
                .count() as f64
                / n as f64;
            // Binomial sd at most 0.0036 for n = 20,000: within 0.015 is > 4 sd.
            assert!((dropped - p).abs() < 0.015, "X_i = {xi}: {dropped} vs {p}");
        }
    }

    #[test]
    fn a_refused_frame_is_dropped_whole_and_an_overflow_falls_back_to_ppd() {
        let mut g = gfr(1);
        let c = |i: u32, n: u32| Cell::data(VcId(0), 0, 0, if i + 1 == n { Cell::EOM } else { 0 });
        // Refused at its first cell (X_i >= Z R_i): every cell dropped, EOM included.
        for i in 0..3 {
            assert_ne!(g.on_arrival(SimTime::ZERO, view(100, 200), 0, &c(i, 3)), Verdict::Accept);
        }
        // Accepted, then the buffer fills mid-frame: the tail is dropped, the EOM kept.
        assert_eq!(g.on_arrival(SimTime::ZERO, view(10, 0), 0, &c(0, 3)), Verdict::Accept);
        assert_eq!(
            g.on_arrival(SimTime::ZERO, view(1000, 1), 0, &c(1, 3)),
            Verdict::Drop(DropReason::PortBufferFull)
        );
        assert_eq!(g.on_arrival(SimTime::ZERO, view(10, 1), 0, &c(2, 3)), Verdict::Accept);
    }

    #[test]
    fn z_at_or_below_one_is_refused() {
        let e = Gfr::check(&GfrConfig {
            threshold: 1.0,
            z: 1.0,
        })
        .unwrap_err();
        assert_eq!(e.field, "z");
    }
}
