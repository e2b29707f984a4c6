//! Reno loss recovery, as 4.3BSD-Reno (1990) and RFC 5681 section 3.2 describe it: on the
//! `dupack_threshold`-th duplicate ACK in a row, ssthresh becomes half the window in use
//! (at least two segments, in whole segments), the segment at snd_una is sent again and cwnd
//! is set to ssthresh + 3 MSS (step 3); each further duplicate adds one MSS, for a segment
//! that has left the network (step 4); the first new ACK, whether it covers the whole window
//! or not, deflates cwnd to ssthresh and ends recovery (step 6).
//!
//! A timeout sets ssthresh the same way (RFC 5681 3.1 equation 4) from the window in use
//! (inflation included, as BSD does), cwnd to one segment (the loss window), and ends
//! recovery.
//! With `recover_guard` a fast retransmit also waits until snd_una reaches `recover`
//! (RFC 6582 3.2 step 2), so further losses of a window whose recovery a partial ACK ended
//! wait for the timer; 4.3BSD-Reno had no such check and fast retransmits again for them when
//! `recover_guard = false` (see [`super`]).
//!
//! With `fast_recovery_inflation = false` cwnd is set to ssthresh at the fast retransmit and
//! duplicates do not add to it: with the whole old window still outstanding the sender
//! sends nothing more until the new ACK that ends recovery (a Reno without step 4's
//! inflation; NewReno, which shares these steps, likewise).

use super::{DupAcks, Reaction, Recovery, SendState};
use crate::spec::TcpSpec;

#[derive(Debug, Clone)]
pub struct Reno {
    pub(super) dupacks: DupAcks,
    pub(super) in_recovery: bool,
    /// [`TcpSpec::fast_recovery_inflation`].
    inflate: bool,
}

impl Recovery for Reno {
    fn new(spec: &TcpSpec) -> Self {
        Reno {
            dupacks: DupAcks::new(spec),
            in_recovery: false,
            inflate: spec.fast_recovery_inflation,
        }
    }

    fn on_dupack(&mut self, st: &mut SendState) -> Reaction {
        self.dupacks.count();
        if self.dupacks.at_threshold() && !self.in_recovery {
            if !self.dupacks.may_fast_retransmit(st) {
                return Reaction::Nothing;
            }
            st.reduce_ssthresh();
            self.dupacks.mark_recover(st);
            self.in_recovery = true;
            let inflation = if self.inflate { 3 * st.mss } else { 0 };
            st.set_cwnd(st.ssthresh + inflation);
            Reaction::FastRetransmit
        } else {
            if self.inflate && self.in_recovery && self.dupacks.past_threshold() {
                st.set_cwnd(st.cwnd().saturating_add(st.mss));
            }
            Reaction::Nothing
        }
    }

    fn on_new_ack(&mut self, st: &mut SendState, _acked: u32) -> Reaction {
        self.dupacks.reset();
        if !self.in_recovery {
            return Reaction::Grow;
        }
        st.set_cwnd(st.ssthresh);
        self.in_recovery = false;
        Reaction::Nothing
    }

    fn on_timeout(&mut self, st: &mut SendState) {
        st.reduce_ssthresh();
        st.set_cwnd(st.mss);
        self.dupacks.mark_recover(st);
        self.dupacks.reset();
        self.in_recovery = false;
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{dupacks, new_ack, sender_with_flight, spec, state_with_flight, MSS};
    use super::*;
    use crate::spec::TcpVariant;
    use crate::tcp::sender::Segment;
    use atmsim_engine::SimTime;

    fn reno(guard: bool) -> Reno {
        Reno::new(&spec(TcpVariant::Reno, guard))
    }

    #[test]
    fn reno_third_duplicate_sets_cwnd_to_ssthresh_plus_three_segments() {
        let (mut r, mut st) = (reno(true), state_with_flight(8));
        assert_eq!(
            dupacks(&mut r, &mut st, 3),
            [Reaction::Nothing, Reaction::Nothing, Reaction::FastRetransmit]
        );
        assert!(r.in_recovery());
        assert_eq!(st.ssthresh, 4 * MSS);
        assert_eq!(st.cwnd(), 7 * MSS);
        assert_eq!(r.dupacks.recover(), Some(8 * MSS as u64));
    }

    #[test]
    fn reno_inflates_by_one_segment_per_further_duplicate() {
        let (mut r, mut st) = (reno(true), state_with_flight(8));
        let _ = dupacks(&mut r, &mut st, 3);
        assert_eq!(dupacks(&mut r, &mut st, 4), [Reaction::Nothing; 4]);
        assert_eq!(st.cwnd(), 11 * MSS);
    }

    #[test]
    fn reno_without_inflation_holds_cwnd_at_ssthresh_and_stalls_until_the_new_ack() {
        let mut sp = spec(TcpVariant::Reno, true);
        sp.fast_recovery_inflation = false;
        let (mut r, mut st) = (Reno::new(&sp), state_with_flight(8));
        assert_eq!(dupacks(&mut r, &mut st, 3)[2], Reaction::FastRetransmit);
        assert_eq!((st.ssthresh, st.cwnd()), (4 * MSS, 4 * MSS));
        assert_eq!(dupacks(&mut r, &mut st, 6), [Reaction::Nothing; 6]);
        assert_eq!(st.cwnd(), 4 * MSS, "no inflation per duplicate");
        assert_eq!(new_ack(&mut r, &mut st, 8 * MSS as u64), Reaction::Nothing);
        assert!(!r.in_recovery());
        assert_eq!(st.cwnd(), 4 * MSS);
        // Through the sender: only the retransmission goes out during recovery.
        let mut sp = spec(TcpVariant::Reno, true);
        sp.fast_recovery_inflation = false;
        sp.initial_cwnd_segments = 8;
        let mut s = crate::tcp::sender::TcpSender::new(&sp, crate::spec::AppSpec::Greedy);
        let t = SimTime::from_ms;
        assert_eq!(std::iter::from_fn(|| s.next_segment(t(0))).count(), 8);
        for _ in 0..3 {
            s.on_ack(t(5), 0, &[]);
        }
        assert_eq!(s.next_segment(t(5)).map(|x| x.seq), Some(0));
        for _ in 0..5 {
            s.on_ack(t(6), 0, &[]);
            assert_eq!(s.next_segment(t(6)), None, "stalled");
        }
        s.on_ack(t(7), 8 * MSS as u64, &[]);
        assert_eq!(std::iter::from_fn(|| s.next_segment(t(7))).count(), 4);
    }

    #[test]
    fn reno_deflates_to_ssthresh_on_the_first_new_ack() {
        for ack in [3, 8] {
            let (mut r, mut st) = (reno(true), state_with_flight(8));
            let _ = dupacks(&mut r, &mut st, 5);
            assert_eq!(
                new_ack(&mut r, &mut st, ack * MSS as u64),
                Reaction::Nothing,
                "no growth and no retransmission, partial ACK or not"
            );
            assert_eq!(st.cwnd(), 4 * MSS);
            assert!(!r.in_recovery());
            st.snd_max += MSS as u64;
            let next = st.snd_una + 1;
            assert_eq!(new_ack(&mut r, &mut st, next), Reaction::Grow);
        }
    }

    #[test]
    fn reno_with_guard_refuses_a_second_fast_retransmit_after_a_partial_ack() {
        let (mut r, mut st) = (reno(true), state_with_flight(8));
        let _ = dupacks(&mut r, &mut st, 3);
        let _ = new_ack(&mut r, &mut st, 3 * MSS as u64);
        assert_eq!(dupacks(&mut r, &mut st, 5), [Reaction::Nothing; 5]);
        assert!(!r.in_recovery());
        assert_eq!(
            (st.cwnd(), st.ssthresh),
            (4 * MSS, 4 * MSS),
            "neither halved nor inflated"
        );
    }

    #[test]
    fn reno_without_guard_fast_retransmits_again_in_the_same_window() {
        let mut s = sender_with_flight(TcpVariant::Reno, false, 8);
        let t = SimTime::from_ms;
        for _ in 0..3 {
            s.on_ack(t(5), 0, &[]);
        }
        assert_eq!(s.next_segment(t(5)).map(|x| x.seq), Some(0));
        // A partial ACK ends Reno's recovery; the duplicates of the next hole start another.
        s.on_ack(t(6), 3 * MSS as u64, &[]);
        assert_eq!(s.cwnd(), 4 * MSS);
        for _ in 0..3 {
            s.on_ack(t(7), 3 * MSS as u64, &[]);
        }
        assert_eq!(s.stats().fast_retransmits, 2);
        assert_eq!(s.ssthresh(), 2 * MSS, "halved again, from cwnd 4 MSS");
        assert_eq!(s.cwnd(), 5 * MSS);
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
    fn reno_timeout_ends_recovery_and_halves_the_inflated_window() {
        let (mut r, mut st) = (reno(true), state_with_flight(8));
        let _ = dupacks(&mut r, &mut st, 3);
        r.on_timeout(&mut st);
        assert!(!r.in_recovery());
        assert_eq!(st.cwnd(), MSS);
        assert_eq!(st.ssthresh, 3 * MSS, "7 MSS in use, halved in whole segments");
        assert_eq!(new_ack(&mut r, &mut st, MSS as u64), Reaction::Grow);
    }
}
