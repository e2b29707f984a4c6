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
pub mod source;

use crate::cell::{Cell, RmFields};
use atmsim_engine::SimTime;
use efci::Efci;
use erica::{Erica, EricaStats};

/// A port's ABR rate control, one of the switch schemes. (A port holds it boxed, so the
/// variants' sizes do not weigh on the port.)
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
pub enum RateControl {
    /// ERICA or ERICA+: explicit rates in backward RM cells.
    Erica(Erica),
    /// EFCI marking of data cells (binary feedback through the destination).
    Efci(Efci),
}

impl RateControl {
    /// The scheme's name in reports: "erica", "erica_plus", "efci".
    pub fn name(&self) -> &'static str {
        match self {
            RateControl::Erica(e) if e.config().plus.is_some() => "erica_plus",
            RateControl::Erica(_) => "erica",
            RateControl::Efci(_) => "efci",
        }
    }

    /// A VC was added to the port (its label is the next index).
    pub fn add_vc(&mut self) {
        if let RateControl::Erica(e) = self {
            e.add_vc();
        }
    }

    /// An ABR cell of VC `vc` arrives to find `queue` cells in the ABR queue. Returns true
    /// when it completes a measurement interval (the caller then calls `end_interval`).
    #[inline]
    pub fn on_abr_cell(&mut self, vc: usize, queue: u32, cell: &mut Cell) -> bool {
        match self {
            RateControl::Erica(e) => e.on_abr_cell(vc),
            RateControl::Efci(e) => {
                e.on_abr_cell(queue, cell);
                false
            }
        }
    }

    /// A CBR or VBR cell left the port.
    #[inline]
    pub fn on_real_time_cell(&mut self) {
        if let RateControl::Erica(e) = self {
            e.on_real_time_cell();
        }
    }

    /// A forward RM cell of VC `vc` passes the port.
    #[inline]
    pub fn on_forward_rm(&mut self, vc: usize, fields: &mut RmFields) {
        if let RateControl::Erica(e) = self {
            e.on_forward_rm(vc, fields.ccr);
        }
    }

    /// A backward RM cell of VC `vc` passes the switch: the ER this port allows (never above
    /// `er_in`).
    #[inline]
    pub fn feedback(&mut self, vc: usize, er_in: f64) -> f64 {
        match self {
            RateControl::Erica(e) => e.feedback(vc, er_in),
            RateControl::Efci(_) => er_in,
        }
    }

    /// Ends the measurement interval at `now` with `queue` cells in the ABR queue.
    pub fn end_interval(&mut self, now: SimTime, queue: u32) {
        if let RateControl::Erica(e) = self {
            e.end_interval(now, queue);
        }
    }

    /// When the current measurement interval ends at the latest, for a scheme that measures.
    pub fn deadline(&self) -> Option<SimTime> {
        match self {
            RateControl::Erica(e) => Some(e.deadline()),
            RateControl::Efci(_) => None,
        }
    }

    /// ERICA's internals, for the series.
    pub fn erica_stats(&self) -> Option<EricaStats> {
        match self {
            RateControl::Erica(e) => Some(e.stats()),
            RateControl::Efci(_) => None,
        }
    }
}
