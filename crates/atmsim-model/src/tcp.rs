//! TCP as the papers model it: BSD-style Tahoe, Reno and NewReno senders, SACK (RFC 2018 /
//! RFC 6675), and a cumulative-ACK receiver that reports SACK blocks for SACK connections,
//! sans-IO.
//!
//! The owner ([`crate::network`]) passes `now` and acts on what comes back: segments to send,
//! ACKs to send, and timer deadlines to wake at. Sequence numbers are 64-bit byte offsets from
//! 0 (no wrap). There is no handshake: a connection is established when its application
//! starts. Arithmetic is integer picoseconds, so runs are bit-identical everywhere.
//!
//! - [`rtt`]: Jacobson/Karels estimation (RFC 6298 shape), exact or BSD slow-timer ticks.
//! - [`sender`]: sequence space, window, slow start, congestion avoidance, retransmission
//!   timer with backoff and Karn's rule.
//! - [`recovery`]: loss recovery, one file per variant: fast retransmit (Tahoe), fast
//!   recovery (Reno), partial ACKs (NewReno, RFC 6582), the SACK scoreboard and pipe (RFC
//!   6675), and the optional `recover` guard.
//! - [`cubic`]: CUBIC's window growth and reduction (RFC 9438), chosen by
//!   `congestion_control`, in place of Reno's; it composes with every recovery.
//! - [`hystart`]: HyStart++ (RFC 9406), the optional exit from the initial slow start on a
//!   rising RTT (`hystart`).
//! - [`ecn`]: the ECN bits a segment's frame carries (RFC 3168 over ATM's EFCI).
//! - [`receiver`]: in-order delivery, out-of-order ranges, delayed ACK (RFC 1122 4.2.3.2).

pub mod cubic;
pub mod ecn;
pub mod hystart;
pub mod receiver;
pub mod recovery;
pub mod rtt;
pub mod sender;

pub use crate::spec::{AppSpec, CongestionControl, TcpSpec, TcpVariant};
pub use receiver::{AckAction, TcpReceiver};
pub use sender::{Segment, SenderStats, TcpSender};
