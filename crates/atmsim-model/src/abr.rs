//! Available bit rate (ABR): the rate-based flow control of ATM Forum TM 4.0.
//!
//! - [`source`]: the source end system (rules 1-13): pacing at ACR, forward RM cells every
//!   Nrm cells, the rate's response to backward RM cells, the ADTF and CRM/CDF rules, out-of-
//!   rate RM cells, and the finite source queue.
//! - The destination end system is small enough to live in the network's handlers
//!   (`network/abr.rs`): it keeps the EFCI state of each VC's last data cell and turns forward
//!   RM cells round onto the VC of the opposite direction.

pub mod erica;
pub mod source;
