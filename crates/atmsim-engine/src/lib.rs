//! The generic discrete-event core of atmsim. It knows nothing of ATM.
//!
//! - [`SimTime`]: integer picoseconds, exact for cell times at any link rate.
//! - [`EventQueue`]: a min-queue ordered by `(time, sequence)`, so events scheduled for the
//!   same instant run first-in first-out and a run reproduces bit for bit; a hierarchical
//!   timing wheel, so an event costs the same however many wait.
//! - [`Lane`]: a FIFO of items that all take the same delay (a constant-delay link), with at
//!   most one pending wake-up in the event queue instead of one per item.
//! - [`Ring`]: a FIFO of `Copy` items in a power-of-two ring buffer (ports' queues, lanes).
//! - [`RngStreams`]: an independent random stream per component, derived from the run seed.
//! - [`Fingerprint`]: a running hash of the event sequence, for regression tests.

pub mod fingerprint;
pub mod lane;
pub mod queue;
pub mod ring;
pub mod rng;
pub mod time;

pub use fingerprint::Fingerprint;
pub use lane::Lane;
pub use queue::{EventQueue, LineId};
pub use ring::Ring;
pub use rng::{RngStream, RngStreams};
pub use time::SimTime;
