//! ECN (RFC 3168) over ATM: the bits a segment carries, as flags of its frame.
//!
//! A connection with `ecn` sends its new data segments ECN-capable ([`ECT`]; RFC 3168 6.1.5:
//! retransmissions are not). ATM switches cannot see the IP header: they mark cells with EFCI
//! (the `efci` rate control on ABR data cells, a port's `efci_threshold` on any AAL5 data
//! cell). The receiving host's adapter, reassembling the frame, maps the marks onto the
//! packet: an ECN-capable frame with any cell that arrived with EFCI set is Congestion
//! Experienced ([`CE`]) at the receiving TCP. The receiver then sets ECE on every ACK until a
//! segment with [`CWR`] arrives (RFC 3168 6.1.3); the sender, on an ACK with ECE, reduces
//! its window as a loss would (ssthresh by the congestion control, cwnd = ssthresh), at most
//! once per window of data, and sets CWR on its next new segment (6.1.2). A loss in a window
//! already reduced for ECN (a segment sent before the reduction) retransmits and recovers
//! but keeps ssthresh; a timeout there still takes cwnd to one segment
//! ([`super::recovery::SendState::reduce_ssthresh`]).

/// The segment is ECN-capable (IP's ECT codepoint).
pub const ECT: u8 = 1;
/// TCP's Congestion Window Reduced flag.
pub const CWR: u8 = 2;
/// Congestion Experienced (IP's CE codepoint), set at the receiving edge from the cells'
/// EFCI bits.
pub const CE: u8 = 4;
