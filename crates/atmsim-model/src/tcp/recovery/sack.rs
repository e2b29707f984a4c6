//! SACK-based loss recovery, after RFC 6675 (which refines RFC 3517), with the SACK option of
//! RFC 2018. The sender keeps a scoreboard of the byte ranges the receiver has reported
//! holding above snd_una, and from it:
//!
//! - **IsLost(seq)**: an unSACKed byte is lost when more than (DupThresh - 1) x MSS bytes above
//!   it have been SACKed, or DupThresh separate SACKed ranges lie above it (section 4).
//! - **pipe**: the bytes still in the network: every unSACKed byte of [snd_una, snd_max) not
//!   lost counts once, and once more if it was retransmitted in this recovery (below
//!   HighRxt). Set on every ACK in recovery (SetPipe), raised by each segment sent (step C.4).
//! - **Entering recovery** (section 5, step 4) at the DupThresh-th duplicate ACK in a row, or
//!   on a duplicate ACK once IsLost(snd_una): RecoveryPoint = the highest byte sent (kept as
//!   `recover`, with the same `recover_guard` as the other variants), ssthresh = half the
//!   window in use (at least two segments, in whole segments), cwnd = ssthresh, and the
//!   segment at snd_una is retransmitted.
//! - **In recovery**, while cwnd - pipe >= 1 MSS, **NextSeg** picks (step C): (1) the first
//!   unSACKed byte above HighRxt and below the highest SACKed byte that is lost; (2) else new
//!   data; (3) else the first unSACKed byte above HighRxt below the highest SACKed byte. Each
//!   hole is thus retransmitted once per recovery. Rule (4), the optional "rescue"
//!   retransmission, is not modelled. Recovery ends when an ACK covers RecoveryPoint; cwnd is
//!   then ssthresh.
//! - **A timeout** sets ssthresh as for every variant, cwnd to one segment, RecoveryPoint to the
//!   highest byte sent, ends recovery and clears the scoreboard (RFC 6675 section 5.1 allows
//!   keeping it; clearing is the conservative reading, since a receiver may renege): the
//!   sender then goes back to snd_una as every variant does.
//!
//! Outside recovery a new ACK grows the window as for the other variants. With
//! `dupack_threshold = 0` duplicate ACKs never start a recovery, and IsLost uses DupThresh 3.

use super::{DupAcks, NextSeg, Reaction, Recovery, SendState};
use crate::spec::TcpSpec;

#[derive(Debug, Clone)]
pub struct Sack {
    dupacks: DupAcks,
    in_recovery: bool,
    /// DupThresh for IsLost.
    dupthresh: u32,
    /// SACKed ranges above snd_una: sorted, disjoint, non-adjacent [start, end).
    sacked: Vec<(u64, u64)>,
    /// One past the highest byte retransmitted in this recovery (RFC 6675's HighRxt + 1).
    high_rxt: u64,
    /// RFC 6675's pipe [bytes].
    pipe: u64,
}

impl Sack {
    /// The scoreboard's SACKed ranges (for tests and reports).
    pub fn sacked(&self) -> &[(u64, u64)] {
        &self.sacked
    }

    /// RFC 6675's pipe [bytes].
    pub fn pipe(&self) -> u64 {
        self.pipe
    }

    /// One past the highest byte retransmitted in this recovery.
    pub fn high_rxt(&self) -> u64 {
        self.high_rxt
    }

    fn add(&mut self, start: u64, end: u64) {
        if end <= start {
            return;
        }
        let i = self.sacked.partition_point(|r| r.1 < start);
        let mut j = i;
        let (mut s, mut e) = (start, end);
        while j < self.sacked.len() && self.sacked[j].0 <= e {
            s = s.min(self.sacked[j].0);
            e = e.max(self.sacked[j].1);
            j += 1;
        }
        self.sacked.splice(i..j, std::iter::once((s, e)));
    }

    /// Forgets what snd_una has passed.
    fn trim(&mut self, snd_una: u64) {
        let n = self.sacked.iter().take_while(|r| r.1 <= snd_una).count();
        self.sacked.drain(..n);
        if let Some(first) = self.sacked.first_mut() {
            first.0 = first.0.max(snd_una);
        }
    }

    /// Bytes SACKed in [a, b).
    fn sacked_in(&self, a: u64, b: u64) -> u64 {
        self.sacked
            .iter()
            .map(|&(s, e)| e.min(b).saturating_sub(s.max(a)))
            .sum()
    }

    /// Bytes not SACKed in [a, b).
    fn unsacked_in(&self, a: u64, b: u64) -> u64 {
        b.saturating_sub(a) - self.sacked_in(a, b)
    }

    /// Every unSACKed byte below this is lost (IsLost); `None`: none is.
    fn lost_below(&self, mss: u32) -> Option<u64> {
        let limit = (self.dupthresh.saturating_sub(1) as u64) * mss as u64;
        let mut above = 0u64;
        for (k, &(s, e)) in self.sacked.iter().rev().enumerate() {
            above += e - s;
            if above > limit || k as u32 + 1 >= self.dupthresh {
                return Some(s);
            }
        }
        None
    }

    /// IsLost(seq) for an unSACKed byte `seq`.
    pub fn is_lost(&self, st: &SendState, seq: u64) -> bool {
        self.lost_below(st.mss).is_some_and(|p| seq < p)
    }

    /// RFC 6675's SetPipe, from the scoreboard by ranges.
    fn set_pipe(&mut self, st: &SendState) {
        let una = st.snd_una;
        let lost_end = self.lost_below(st.mss).unwrap_or(una).max(una);
        let not_lost = self.unsacked_in(lost_end, st.snd_max);
        let retransmitted = self.unsacked_in(una, self.high_rxt.min(st.snd_max));
        self.pipe = not_lost + retransmitted;
    }

    /// The first unSACKed byte at or above `from` and below the highest SACKed byte, with
    /// the end of the hole it lies in.
    fn first_hole(&self, from: u64) -> Option<(u64, u64)> {
        let mut at = from;
        for &(s, e) in &self.sacked {
            if e <= at {
                continue;
            }
            if s > at {
                return Some((at, s));
            }
            at = e;
        }
        None
    }
}

impl Recovery for Sack {
    fn new(spec: &TcpSpec) -> Self {
        Sack {
            dupacks: DupAcks::new(spec),
            in_recovery: false,
            dupthresh: if spec.dupack_threshold == 0 {
                3
            } else {
                spec.dupack_threshold
            },
            sacked: Vec::with_capacity(8),
            high_rxt: 0,
            pipe: 0,
        }
    }

    fn on_sack(&mut self, st: &SendState, blocks: &[(u64, u64)]) {
        for &(s, e) in blocks {
            // A block at or below snd_una (a D-SACK, or stale) or past what was sent is
            // clipped away.
            self.add(s.max(st.snd_una), e.min(st.snd_max));
        }
    }

    fn on_dupack(&mut self, st: &mut SendState) -> Reaction {
        self.dupacks.count();
        if self.in_recovery {
            self.set_pipe(st);
            return Reaction::Nothing;
        }
        let triggered = self.dupacks.at_threshold()
            || (self.dupacks.threshold_enabled() && self.is_lost(st, st.snd_una));
        if !triggered || !self.dupacks.may_fast_retransmit(st) {
            return Reaction::Nothing;
        }
        self.dupacks.mark_recover(st);
        st.reduce_ssthresh();
        st.set_cwnd(st.ssthresh);
        self.in_recovery = true;
        self.high_rxt = st.snd_una;
        self.set_pipe(st);
        Reaction::FastRetransmit
    }

    fn on_new_ack(&mut self, st: &mut SendState, _acked: u32) -> Reaction {
        self.dupacks.reset();
        self.trim(st.snd_una);
        if !self.in_recovery {
            return Reaction::Grow;
        }
        if self.dupacks.recover().is_none_or(|r| st.snd_una >= r) {
            self.in_recovery = false;
            st.set_cwnd(st.ssthresh);
            return Reaction::Nothing;
        }
        self.high_rxt = self.high_rxt.max(st.snd_una);
        self.set_pipe(st);
        Reaction::Nothing
    }

    fn on_timeout(&mut self, st: &mut SendState) {
        st.reduce_ssthresh();
        st.set_cwnd(st.mss);
        self.dupacks.mark_recover(st);
        self.dupacks.reset();
        self.in_recovery = false;
        self.sacked.clear();
        self.high_rxt = 0;
        self.pipe = 0;
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    fn next_seg(&mut self, st: &SendState, new_data: bool) -> Option<NextSeg> {
        if !self.in_recovery {
            return None;
        }
        let cwnd = st.cwnd() as u64;
        if cwnd < self.pipe + st.mss as u64 {
            return Some(NextSeg::Hold);
        }
        let from = self.high_rxt.max(st.snd_una);
        let hole = self.first_hole(from);
        // Rule 1: a lost hole.
        if let (Some((s, e)), Some(p)) = (hole, self.lost_below(st.mss)) {
            if s < p {
                let len = (e - s).min(st.mss as u64) as u32;
                return Some(NextSeg::Retransmit { seq: s, len });
            }
        }
        // Rule 2: new data.
        if new_data {
            return Some(NextSeg::NewData);
        }
        // Rule 3: the first hole not yet retransmitted, lost or not.
        Some(match hole {
            Some((s, e)) => NextSeg::Retransmit {
                seq: s,
                len: (e - s).min(st.mss as u64) as u32,
            },
            None => NextSeg::Hold,
        })
    }

    fn on_sent(&mut self, _st: &SendState, seq: u64, len: u32, retransmit: bool) {
        if !self.in_recovery {
            return;
        }
        self.pipe += len as u64;
        if retransmit {
            self.high_rxt = self.high_rxt.max(seq + len as u64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{sender_with_flight, spec, state_with_flight, MSS};
    use super::super::AnyRecovery;
    use super::*;
    use crate::spec::{AppSpec, TcpVariant};
    use crate::tcp::sender::TcpSender;
    use atmsim_engine::SimTime;
    use proptest::prelude::*;

    const M: u64 = MSS as u64;

    fn sack() -> Sack {
        Sack::new(&spec(TcpVariant::Sack, true))
    }

    /// One duplicate ACK carrying `blocks` (in MSS units).
    fn dup(r: &mut Sack, st: &mut SendState, blocks: &[(u64, u64)]) -> Reaction {
        let b: Vec<(u64, u64)> = blocks.iter().map(|&(s, e)| (s * M, e * M)).collect();
        r.on_sack(st, &b);
        r.on_dupack(st)
    }

    #[test]
    fn the_scoreboard_merges_blocks_and_forgets_what_is_acked() {
        let (mut r, st) = (sack(), state_with_flight(20));
        r.on_sack(&st, &[(5 * M, 6 * M), (8 * M, 9 * M)]);
        r.on_sack(&st, &[(6 * M, 8 * M), (12 * M, 13 * M)]);
        assert_eq!(r.sacked(), &[(5 * M, 9 * M), (12 * M, 13 * M)]);
        r.trim(7 * M);
        assert_eq!(r.sacked(), &[(7 * M, 9 * M), (12 * M, 13 * M)]);
        assert_eq!(r.first_hole(7 * M), Some((9 * M, 12 * M)));
    }

    #[test]
    fn is_lost_needs_more_than_two_segments_sacked_above() {
        let (mut r, st) = (sack(), state_with_flight(20));
        r.on_sack(&st, &[(M, 3 * M)]);
        assert!(!r.is_lost(&st, 0), "two segments above: not yet");
        r.on_sack(&st, &[(3 * M, 4 * M)]);
        assert!(r.is_lost(&st, 0), "three segments above");
        assert!(!r.is_lost(&st, 5 * M), "nothing SACKed above");
    }

    #[test]
    fn three_holes_are_each_retransmitted_once_within_cwnd_minus_pipe() {
        // 20 segments in flight (cwnd 20 MSS); segments 0, 5 and 10 are lost. The receiver's
        // duplicate ACKs report 1-5, then 6-10, then 11-...
        let (mut r, mut st) = (sack(), state_with_flight(20));
        assert_eq!(dup(&mut r, &mut st, &[(1, 2)]), Reaction::Nothing);
        assert_eq!(dup(&mut r, &mut st, &[(1, 3)]), Reaction::Nothing);
        assert_eq!(dup(&mut r, &mut st, &[(1, 4)]), Reaction::FastRetransmit);
        assert!(r.in_recovery());
        assert_eq!(st.ssthresh, 10 * MSS);
        assert_eq!(st.cwnd(), 10 * MSS);
        // The sender resends segment 0 (the fast retransmit).
        r.on_sent(&st, 0, MSS, true);
        assert_eq!(r.high_rxt(), M);
        // More duplicates: 1-5 and 6-10 SACKed, 11-19 too.
        for (a, b) in [(1, 5), (6, 7), (6, 8), (6, 9), (6, 10), (11, 12), (11, 20)] {
            let _ = dup(&mut r, &mut st, &[(a, b)]);
        }
        assert_eq!(r.sacked(), &[(M, 5 * M), (6 * M, 10 * M), (11 * M, 20 * M)]);
        // pipe: segment 0 retransmitted (lost + retransmitted: 1); 5 and 10 lost: 0.
        assert_eq!(r.pipe(), M);
        // NextSeg: segment 5, then segment 10 (both lost), then new data.
        let mut sent = Vec::new();
        loop {
            match r.next_seg(&st, true) {
                Some(NextSeg::Retransmit { seq, len }) => {
                    sent.push(seq / M);
                    r.on_sent(&st, seq, len, true);
                }
                Some(NextSeg::NewData) => break,
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(sent, vec![5, 10], "each hole once, in order");
        assert_eq!(r.pipe(), 3 * M);
        // A partial ACK up to segment 5 keeps the sender in recovery and does not resend 5.
        st.snd_una = 5 * M;
        assert_eq!(r.on_new_ack(&mut st, (5 * M) as u32), Reaction::Nothing);
        assert!(r.in_recovery());
        assert!(!matches!(
            r.next_seg(&st, true),
            Some(NextSeg::Retransmit { seq, .. }) if seq < 11 * M
        ));
        // The ACK of everything ends recovery with cwnd = ssthresh.
        st.snd_una = 20 * M;
        assert_eq!(r.on_new_ack(&mut st, (15 * M) as u32), Reaction::Nothing);
        assert!(!r.in_recovery());
        assert_eq!(st.cwnd(), 10 * MSS);
        assert!(r.sacked().is_empty());
    }

    #[test]
    fn cwnd_minus_pipe_below_one_segment_holds_the_sender() {
        let (mut r, mut st) = (sack(), state_with_flight(20));
        for k in 2..=4 {
            let _ = dup(&mut r, &mut st, &[(1, k)]);
        }
        assert!(r.in_recovery());
        // Segments 4..19 are neither SACKed nor lost: pipe 16 MSS > cwnd 10 MSS.
        assert!(r.pipe() >= 16 * M);
        assert_eq!(r.next_seg(&st, true), Some(NextSeg::Hold));
    }

    #[test]
    fn a_timeout_clears_the_scoreboard_and_ends_recovery() {
        let (mut r, mut st) = (sack(), state_with_flight(20));
        for k in 2..=4 {
            let _ = dup(&mut r, &mut st, &[(1, k)]);
        }
        r.on_timeout(&mut st);
        assert!(!r.in_recovery());
        assert!(r.sacked().is_empty());
        assert_eq!(st.cwnd(), MSS);
        assert_eq!(r.next_seg(&st, true), None, "the sender's own go-back-N rule");
    }

    #[test]
    fn rule_three_resends_an_unsacked_hole_not_yet_lost() {
        let (mut r, mut st) = (sack(), state_with_flight(20));
        for k in 2..=4 {
            let _ = dup(&mut r, &mut st, &[(1, k)]);
        }
        r.on_sent(&st, 0, MSS, true);
        // Segment 5 is a hole with only one SACKed segment (6) above it: not lost.
        let _ = dup(&mut r, &mut st, &[(6, 7)]);
        assert!(!r.is_lost(&st, 4 * M));
        st.set_cwnd(40 * MSS); // room in cwnd - pipe
        assert_eq!(r.next_seg(&st, true), Some(NextSeg::NewData), "rule 2 first");
        assert_eq!(
            r.next_seg(&st, false),
            Some(NextSeg::Retransmit {
                seq: 4 * M,
                len: MSS
            })
        );
    }

    #[test]
    fn new_data_sent_in_recovery_is_not_counted_as_retransmitted() {
        // Segment 0 of 20 lost: three duplicate ACKs SACKing 1-3 start recovery and resend
        // segment 0; more SACKs free pipe and new data goes out. HighRxt stays at the end of
        // segment 0, so a later hole below the new data is still found by rule 1.
        let mut s = sender_with_flight(TcpVariant::Sack, true, 20);
        let t = SimTime::from_ms(1);
        for k in 2..=4 {
            s.on_ack(t, 0, &[(M, k * M)]);
        }
        assert_eq!(s.next_segment(t).map(|g| (g.seq, g.retransmit)), Some((0, true)));
        s.on_ack(t, 0, &[(M, 19 * M)]);
        let mut sent = Vec::new();
        while let Some(g) = s.next_segment(t) {
            sent.push((g.seq / M, g.retransmit));
        }
        assert!(!sent.is_empty() && sent.iter().all(|&(q, r)| q >= 20 && !r), "{sent:?}");
        let AnyRecovery::Sack(r) = s.recovery() else {
            unreachable!()
        };
        assert_eq!(r.high_rxt(), M, "only segment 0 was retransmitted");
    }

    proptest! {
        /// A SACK sender under any ACKs with any (valid) SACK blocks and timeouts: within one
        /// recovery no byte is retransmitted twice, no SACKed byte is retransmitted, cwnd and
        /// ssthresh stay in bounds and snd_una <= snd_nxt <= snd_max.
        #[test]
        fn each_hole_is_retransmitted_at_most_once_per_recovery(
            ops in proptest::collection::vec((0u8..4, 0u64..8, 0u64..20, 1u64..4), 1..200),
        ) {
            let mut s = TcpSender::new(&spec(TcpVariant::Sack, true), AppSpec::Greedy);
            let mut now = 1u64;
            let mut resent: Vec<(u64, u64)> = Vec::new(); // in this recovery
            let mut sacked: Vec<(u64, u64)> = Vec::new(); // reported since the last timeout
            for (op, x, off, len) in ops {
                now += 1;
                let t = SimTime::from_ms(now);
                let (una, max) = (s.snd_una(), s.snd_max());
                match op {
                    0 => {
                        while let Some(seg) = s.next_segment(t) {
                            if seg.retransmit && s.in_recovery() {
                                let (a, b) = (seg.seq, seg.seq + seg.len as u64);
                                prop_assert!(
                                    !resent.iter().any(|&(c, d)| a < d && c < b),
                                    "[{}, {}) resent twice", a, b
                                );
                                prop_assert!(
                                    !sacked.iter().any(|&(c, d)| a >= c && b <= d && a >= s.snd_una()),
                                    "SACKed [{}, {}) resent", a, b
                                );
                                resent.push((a, b));
                            }
                        }
                    }
                    1 | 2 => {
                        let mut ack = if op == 1 { (una + x * M).min(max) } else { una };
                        // A receiver holding the bytes at `ack` acknowledges past them.
                        while let Some(&(_, d)) =
                            sacked.iter().find(|&&(c, d)| c <= ack && ack < d)
                        {
                            ack = d;
                        }
                        if ack > una && op == 2 {
                            continue; // no longer a duplicate; keep the run simple
                        }
                        // One SACK block above the ACK, inside what was sent.
                        let start = ack + M + off * M;
                        let end = (start + len * M).min(max);
                        let blocks: Vec<(u64, u64)> =
                            if end > start { vec![(start, end)] } else { Vec::new() };
                        sacked.extend(&blocks);
                        s.on_ack(t, ack, &blocks);
                    }
                    _ => {
                        if let Some(d) = s.timer_deadline() {
                            now = now.max(d.0 / 1_000_000_000 + 1);
                            s.on_timer(d);
                            sacked.clear();
                        }
                    }
                }
                if !s.in_recovery() {
                    resent.clear();
                }
                prop_assert!(s.cwnd() >= MSS && s.cwnd() <= 64 * MSS);
                prop_assert!(s.ssthresh() >= 2 * MSS);
                prop_assert!(s.snd_una() <= s.snd_nxt() && s.snd_nxt() <= s.snd_max());
            }
        }
    }
}
