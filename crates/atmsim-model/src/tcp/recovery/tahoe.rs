//! Tahoe loss recovery, as 4.3BSD-Tahoe (1988) added fast retransmit to its ACK processing:
//! on the `dupack_threshold`-th duplicate ACK in a row, ssthresh becomes half the window in
//! use (at least two segments, in whole segments), the segment at snd_una is sent again and
//! cwnd drops to one segment, so the sender slow-starts from there (RFC 5681 3.2 step 2 and
//! the retransmission of step 3, without fast recovery). snd_nxt is left where it was (BSD
//! restores it after the retransmission), so the window is not sent again. Further
//! duplicates do nothing; a new ACK grows the window as usual.
//!
//! A timeout sets ssthresh the same way (RFC 5681 3.1 equation 4) and cwnd to one segment
//! (the loss window). With `recover_guard` a fast retransmit also waits until snd_una
//! reaches `recover` (RFC 6582 3.2 step 2); 4.3BSD-Tahoe had no such check, and
//! `recover_guard = false` leaves it out (see [`super`]).

use super::{DupAcks, Reaction, Recovery, SendState};
use crate::spec::TcpSpec;

#[derive(Debug, Clone)]
pub struct Tahoe {
    dupacks: DupAcks,
}

impl Recovery for Tahoe {
    fn new(spec: &TcpSpec) -> Self {
        Tahoe {
            dupacks: DupAcks::new(spec),
        }
    }

    fn on_dupack(&mut self, st: &mut SendState) -> Reaction {
        self.dupacks.count();
        if !self.dupacks.at_threshold() || !self.dupacks.may_fast_retransmit(st) {
            return Reaction::Nothing;
        }
        st.reduce_ssthresh();
        self.dupacks.mark_recover(st);
        st.set_cwnd(st.mss);
        Reaction::FastRetransmit
    }

    fn on_new_ack(&mut self, _st: &mut SendState, _acked: u32) -> Reaction {
        self.dupacks.reset();
        Reaction::Grow
    }

    fn on_timeout(&mut self, st: &mut SendState) {
        st.reduce_ssthresh();
        st.set_cwnd(st.mss);
        self.dupacks.mark_recover(st);
        self.dupacks.reset();
    }

    fn in_recovery(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{dupacks, new_ack, sender_with_flight, spec, state_with_flight, MSS};
    use super::*;
    use crate::spec::TcpVariant;
    use crate::tcp::sender::Segment;
    use atmsim_engine::SimTime;

    fn tahoe(guard: bool) -> Tahoe {
        Tahoe::new(&spec(TcpVariant::Tahoe, guard))
    }

    #[test]
    fn tahoe_third_duplicate_halves_the_window_into_ssthresh_and_restarts_from_one_segment() {
        let (mut r, mut st) = (tahoe(true), state_with_flight(8));
        assert_eq!(
            dupacks(&mut r, &mut st, 3),
            [Reaction::Nothing, Reaction::Nothing, Reaction::FastRetransmit]
        );
        assert_eq!(st.ssthresh, 4 * MSS);
        assert_eq!(st.cwnd(), MSS);
        assert_eq!(r.dupacks.recover(), Some(8 * MSS as u64));
        assert_eq!(st.snd_nxt, 8 * MSS as u64, "the window is not sent again");
    }

    #[test]
    fn tahoe_has_no_fast_recovery() {
        let (mut r, mut st) = (tahoe(false), state_with_flight(8));
        let _ = dupacks(&mut r, &mut st, 3);
        assert!(!r.in_recovery());
        assert_eq!(
            dupacks(&mut r, &mut st, 5),
            [Reaction::Nothing; 5],
            "further duplicates neither inflate nor retransmit"
        );
        assert_eq!(st.cwnd(), MSS);
        assert_eq!(new_ack(&mut r, &mut st, MSS as u64), Reaction::Grow);
    }

    #[test]
    fn tahoe_with_guard_refuses_a_second_fast_retransmit_in_the_same_window() {
        let (mut r, mut st) = (tahoe(true), state_with_flight(8));
        let _ = dupacks(&mut r, &mut st, 3);
        let _ = new_ack(&mut r, &mut st, 3 * MSS as u64);
        assert_eq!(dupacks(&mut r, &mut st, 3), [Reaction::Nothing; 3]);
        assert_eq!(st.ssthresh, 4 * MSS, "not halved again");
        // Once snd_una reaches recover, a new loss is a new episode.
        let _ = new_ack(&mut r, &mut st, 8 * MSS as u64);
        st.snd_max = 12 * MSS as u64;
        assert_eq!(dupacks(&mut r, &mut st, 3)[2], Reaction::FastRetransmit);
    }

    #[test]
    fn tahoe_without_guard_fast_retransmits_again_in_the_same_window() {
        let mut s = sender_with_flight(TcpVariant::Tahoe, false, 8);
        let t = SimTime::from_ms;
        for _ in 0..3 {
            s.on_ack(t(5), 0, &[]);
        }
        assert_eq!(s.next_segment(t(5)).map(|x| x.seq), Some(0));
        // The retransmission fills the first hole; segments 3..8 are still missing at the
        // receiver, whose next duplicates (from reordered or duplicated segments) point at 3.
        s.on_ack(t(6), 3 * MSS as u64, &[]);
        assert_eq!(s.cwnd(), 2 * MSS, "slow start after the fast retransmit");
        for _ in 0..3 {
            s.on_ack(t(7), 3 * MSS as u64, &[]);
        }
        assert_eq!(s.stats().fast_retransmits, 2);
        assert_eq!(s.ssthresh(), 2 * MSS, "halved again, from cwnd 2 MSS");
        assert_eq!(s.cwnd(), MSS);
        assert_eq!(
            s.next_segment(t(7)),
            Some(Segment {
                seq: 3 * MSS as u64,
                len: MSS,
                retransmit: true
            })
        );
    }

    #[test]
    fn tahoe_timeout_restarts_the_duplicate_count_and_sets_recover() {
        let (mut r, mut st) = (tahoe(true), state_with_flight(8));
        let _ = dupacks(&mut r, &mut st, 2);
        r.on_timeout(&mut st);
        assert_eq!((st.cwnd(), st.ssthresh), (MSS, 4 * MSS));
        assert_eq!(r.dupacks.recover(), Some(8 * MSS as u64));
        assert_eq!(
            r.on_dupack(&mut st),
            Reaction::Nothing,
            "one duplicate after the timeout is the first of a new run"
        );
    }
}
