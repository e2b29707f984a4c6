//! NewReno loss recovery, after RFC 6582 section 3.2: Reno's fast retransmit and fast
//! recovery (RFC 5681 3.2), except that recovery lasts until an ACK covers `recover`, the
//! highest sequence sent when it began.
//!
//! - Step 2: on the `dupack_threshold`-th duplicate ACK in a row outside recovery, and (with
//!   `recover_guard`) once snd_una has reached `recover`, set `recover` to the highest
//!   sequence sent, halve the window in use into ssthresh (at least two segments, in whole
//!   segments), resend the segment at snd_una and set cwnd to ssthresh + 3 MSS. Each further
//!   duplicate adds one MSS.
//! - Step 3, partial ACK (below `recover`): resend the segment at the new snd_una (the next
//!   hole), deflate cwnd by the bytes acknowledged and add one MSS back if at least one MSS was
//!   acknowledged; stay in recovery.
//! - Step 3, full ACK: cwnd = min(ssthresh, FlightSize + MSS) and leave recovery. RFC 6582's
//!   option (1) reads max(FlightSize, MSS) + MSS; with less than one MSS in flight this model
//!   gives FlightSize + MSS (at least one MSS), as it always has.
//! - Step 4, timeout: set `recover` to the highest sequence sent and leave recovery; ssthresh
//!   and cwnd as for every variant (RFC 5681 3.1 equation 4, cwnd = one segment).
//!
//! The duplicate count restarts at every new ACK, partial ones included, so within a recovery
//! the first `dupack_threshold` duplicates after a partial ACK do not inflate cwnd.
//!
//! With `recover_guard = false` the step-2 check on `recover` is left out, as in RFC 2582's
//! base algorithm; a recovery still ends only at a full ACK (see [`super`]).

use super::reno::Reno;
use super::{Reaction, Recovery, SendState};
use crate::spec::TcpSpec;

/// Reno's entry into recovery, its inflation and its timeout; its own exit from recovery.
#[derive(Debug, Clone)]
pub struct NewReno(Reno);

impl Recovery for NewReno {
    fn new(spec: &TcpSpec) -> Self {
        NewReno(Reno::new(spec))
    }

    fn on_dupack(&mut self, st: &mut SendState) -> Reaction {
        self.0.on_dupack(st)
    }

    fn on_new_ack(&mut self, st: &mut SendState, acked: u32) -> Reaction {
        let reno = &mut self.0;
        reno.dupacks.reset();
        if !reno.in_recovery {
            return Reaction::Grow;
        }
        let full = reno.dupacks.recover().is_none_or(|r| st.snd_una >= r);
        if full {
            let flight = (st.snd_max - st.snd_una) as u32;
            st.set_cwnd(st.ssthresh.min(flight.saturating_add(st.mss)));
            reno.in_recovery = false;
            Reaction::Nothing
        } else {
            let back = if acked >= st.mss { st.mss } else { 0 };
            st.set_cwnd(st.cwnd().saturating_sub(acked) + back);
            Reaction::Retransmit
        }
    }

    fn on_timeout(&mut self, st: &mut SendState) {
        self.0.on_timeout(st)
    }

    fn in_recovery(&self) -> bool {
        self.0.in_recovery
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{dupacks, new_ack, sender_with_flight, spec, state_with_flight, MSS};
    use super::*;
    use crate::spec::TcpVariant;
    use crate::tcp::sender::Segment;
    use atmsim_engine::SimTime;

    fn new_reno(guard: bool) -> NewReno {
        NewReno::new(&spec(TcpVariant::NewReno, guard))
    }

    /// A NewReno in recovery for a window of 8 segments: ssthresh 4 MSS, cwnd 7 MSS.
    fn recovering(guard: bool) -> (NewReno, SendState) {
        let (mut r, mut st) = (new_reno(guard), state_with_flight(8));
        assert_eq!(dupacks(&mut r, &mut st, 3)[2], Reaction::FastRetransmit);
        (r, st)
    }

    #[test]
    fn new_reno_partial_ack_retransmits_next_hole_and_stays_in_recovery() {
        let (mut r, mut st) = recovering(true);
        assert_eq!(
            new_ack(&mut r, &mut st, 3 * MSS as u64),
            Reaction::Retransmit
        );
        assert!(r.in_recovery());
        assert_eq!(st.cwnd(), (7 - 3 + 1) * MSS, "deflated, one MSS added back");
    }

    #[test]
    fn new_reno_partial_ack_below_one_segment_adds_nothing_back() {
        let (mut r, mut st) = recovering(true);
        assert_eq!(new_ack(&mut r, &mut st, 500), Reaction::Retransmit);
        assert_eq!(st.cwnd(), 7 * MSS - 500);
    }

    #[test]
    fn new_reno_partial_ack_resends_the_hole_it_points_at() {
        let mut s = sender_with_flight(TcpVariant::NewReno, true, 8);
        let t = SimTime::from_ms;
        for _ in 0..3 {
            s.on_ack(t(5), 0, &[]);
        }
        assert_eq!(s.next_segment(t(5)).map(|x| x.seq), Some(0));
        s.on_ack(t(6), 5 * MSS as u64, &[]);
        assert_eq!(
            s.next_segment(t(6)),
            Some(Segment {
                seq: 5 * MSS as u64,
                len: MSS,
                retransmit: true
            })
        );
    }

    #[test]
    fn new_reno_full_ack_leaves_recovery_with_at_most_flight_plus_one_segment() {
        let (mut r, mut st) = recovering(true);
        st.snd_max = 11 * MSS as u64; // three new segments sent during recovery
        st.snd_nxt = st.snd_max;
        assert_eq!(new_ack(&mut r, &mut st, 8 * MSS as u64), Reaction::Nothing);
        assert!(!r.in_recovery());
        assert_eq!(st.cwnd(), 4 * MSS, "min(ssthresh 4, flight 3 + 1)");

        let (mut r, mut st) = recovering(true);
        st.snd_max = 11 * MSS as u64;
        st.snd_nxt = st.snd_max;
        let _ = new_ack(&mut r, &mut st, 10 * MSS as u64);
        assert_eq!(st.cwnd(), 2 * MSS, "min(ssthresh 4, flight 1 + 1)");
    }

    #[test]
    fn new_reno_recovers_a_window_with_several_holes_in_one_episode_with_or_without_guard() {
        for guard in [true, false] {
            let (mut r, mut st) = recovering(guard);
            for hole in [2u64, 4, 6] {
                assert_eq!(
                    new_ack(&mut r, &mut st, hole * MSS as u64),
                    Reaction::Retransmit
                );
                assert!(
                    dupacks(&mut r, &mut st, 4)
                        .iter()
                        .all(|&x| x == Reaction::Nothing),
                    "no second fast retransmit inside recovery"
                );
            }
            assert_eq!(new_ack(&mut r, &mut st, 8 * MSS as u64), Reaction::Nothing);
            assert!(!r.in_recovery());
            assert_eq!(st.ssthresh, 4 * MSS, "halved once");
        }
    }

    #[test]
    fn new_reno_with_guard_ignores_duplicates_of_go_back_n_resends_after_a_timeout() {
        let (mut r, mut st) = (new_reno(true), state_with_flight(8));
        r.on_timeout(&mut st);
        st.snd_nxt = st.snd_una;
        assert_eq!(new_ack(&mut r, &mut st, 2 * MSS as u64), Reaction::Grow);
        // Resent segments the receiver already holds come back as duplicates.
        assert_eq!(dupacks(&mut r, &mut st, 3), [Reaction::Nothing; 3]);
        assert_eq!(st.ssthresh, 4 * MSS);
    }

    #[test]
    fn new_reno_without_guard_fast_retransmits_on_duplicates_after_a_timeout() {
        let (mut r, mut st) = (new_reno(false), state_with_flight(8));
        r.on_timeout(&mut st);
        st.snd_nxt = st.snd_una;
        let _ = new_ack(&mut r, &mut st, 2 * MSS as u64);
        st.set_cwnd(4 * MSS);
        assert_eq!(dupacks(&mut r, &mut st, 3)[2], Reaction::FastRetransmit);
        assert!(r.in_recovery());
        assert_eq!(st.ssthresh, 2 * MSS);
        assert_eq!(r.0.dupacks.recover(), Some(8 * MSS as u64));
    }
}
