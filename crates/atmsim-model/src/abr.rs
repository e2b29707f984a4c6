//! Available bit rate (ABR): the rate-based flow control of ATM Forum TM 4.0.
//!
//! - [`source`]: the source end system (rules 1-13): pacing at ACR, forward RM cells every
//!   Nrm cells, the rate's response to backward RM cells, the ADTF and CRM/CDF rules, out-of-
//!   rate RM cells, and the finite source queue.
//! - [`erica`]: ERICA and ERICA+, explicit-rate switch schemes; [`efci`]: EFCI marking, the
//!   binary one. A port runs one of them as its [`RateControl`].
//! - The destination end system is small enough to live in the network's handlers
//!   (`network/abr.rs`): it keeps the EFCI state of each VC's last data cell and turns forward
//!   RM cells round onto the VC of the opposite direction.

pub mod efci;
pub mod erica;
pub mod fmmra;
pub mod source;

use crate::cell::{Cell, RmFields};
use atmsim_engine::SimTime;
use efci::Efci;
use erica::Erica;
use fmmra::Fmmra;

/// What a measuring rate control computed at the end of its last interval (for the series).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RateStats {
    /// The load factor: ABR input / ABR capacity (ERICA's z, FMMRA's LF).
    pub load_factor: f64,
    /// Active VCs (ERICA: possibly averaged).
    pub active_vcs: f64,
    /// The fair rate (ERICA's fair share, FMMRA's advertised rate) [cells/s].
    pub fair_rate: f64,
    /// The ABR capacity [cells/s].
    pub capacity: f64,
}

/// A port's ABR rate control, one of the switch schemes. (A port holds it boxed, so the
/// variants' sizes do not weigh on the port.)
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
pub enum RateControl {
    /// ERICA or ERICA+: explicit rates in backward RM cells.
    Erica(Erica),
    /// EFCI marking of data cells (binary feedback through the destination).
    Efci(Efci),
    /// FMMRA: advertised rate and ER_max, ER marked in both directions.
    Fmmra(Fmmra),
}

impl RateControl {
    /// The scheme's name in reports: "erica", "erica_plus", "efci".
    pub fn name(&self) -> &'static str {
        match self {
            RateControl::Erica(e) if e.config().plus.is_some() => "erica_plus",
            RateControl::Erica(_) => "erica",
            RateControl::Efci(_) => "efci",
            RateControl::Fmmra(_) => "fmmra",
        }
    }

    /// A VC was added to the port (its label is the next index).
    pub fn add_vc(&mut self) {
        match self {
            RateControl::Erica(e) => {
                e.add_vc();
            }
            RateControl::Fmmra(f) => {
                f.add_vc();
            }
            RateControl::Efci(_) => {}
        }
    }

    /// An ABR cell of VC `vc` arrives to find `queue` cells in the ABR queue. Returns true
    /// when it completes a measurement interval (the caller then calls `end_interval`).
    #[inline]
    pub fn on_abr_cell(&mut self, vc: usize, queue: u32, cell: &mut Cell) -> bool {
        match self {
            RateControl::Erica(e) => e.on_abr_cell(vc),
            RateControl::Fmmra(f) => f.on_abr_cell(vc),
            RateControl::Efci(e) => {
                e.on_abr_cell(queue, cell);
                false
            }
        }
    }

    /// An ABR cell leaves the port with `queue` cells behind it in the ABR queue (EFCI
    /// marking on departure).
    #[inline]
    pub fn on_abr_departure(&mut self, queue: u32, cell: &mut Cell) {
        if let RateControl::Efci(e) = self {
            e.on_abr_departure(queue, cell);
        }
    }

    /// A CBR or VBR cell left the port.
    #[inline]
    pub fn on_real_time_cell(&mut self) {
        match self {
            RateControl::Erica(e) => e.on_real_time_cell(),
            RateControl::Fmmra(f) => f.on_real_time_cell(),
            RateControl::Efci(_) => {}
        }
    }

    /// A forward RM cell of VC `vc` passes the port, with `queue` cells in its ABR queue.
    #[inline]
    pub fn on_forward_rm(&mut self, vc: usize, queue: u32, fields: &mut RmFields) {
        match self {
            RateControl::Erica(e) => e.on_forward_rm(vc, fields.ccr),
            RateControl::Fmmra(f) => fields.er = f.forward(vc, fields.er, queue),
            RateControl::Efci(_) => {}
        }
    }

    /// A backward RM cell of VC `vc` passes the switch, with `queue` cells in this port's
    /// ABR queue: the ER this port allows (never above `er_in`).
    #[inline]
    pub fn feedback(&mut self, vc: usize, queue: u32, er_in: f64) -> f64 {
        match self {
            RateControl::Erica(e) => e.feedback(vc, er_in),
            RateControl::Fmmra(f) => f.backward(vc, er_in, queue),
            RateControl::Efci(_) => er_in,
        }
    }

    /// Ends the measurement interval at `now` with `queue` cells in the ABR queue.
    pub fn end_interval(&mut self, now: SimTime, queue: u32) {
        match self {
            RateControl::Erica(e) => e.end_interval(now, queue),
            RateControl::Fmmra(f) => f.end_interval(now, queue),
            RateControl::Efci(_) => {}
        }
    }

    /// When the current measurement interval ends at the latest, for a scheme that measures.
    pub fn deadline(&self) -> Option<SimTime> {
        match self {
            RateControl::Erica(e) => Some(e.deadline()),
            RateControl::Fmmra(f) => Some(f.deadline()),
            RateControl::Efci(_) => None,
        }
    }

    /// What a measuring scheme computed last (ERICA, FMMRA), for the series.
    pub fn stats(&self) -> Option<RateStats> {
        match self {
            RateControl::Erica(e) => {
                let s = e.stats();
                Some(RateStats {
                    load_factor: s.z,
                    active_vcs: s.n_active,
                    fair_rate: s.fair_share,
                    capacity: s.capacity,
                })
            }
            RateControl::Fmmra(f) => {
                let s = f.stats();
                Some(RateStats {
                    load_factor: s.load_factor,
                    active_vcs: f64::from(s.active_vcs),
                    fair_rate: s.advertised_rate,
                    capacity: s.capacity,
                })
            }
            RateControl::Efci(_) => None,
        }
    }
}
