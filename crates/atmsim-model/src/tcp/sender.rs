//! The sending side: window, congestion control, retransmission.
//!
//! Growth (Jacobson 1988; RFC 5681 3.1): slow start adds one MSS per new ACK below ssthresh,
//! congestion avoidance MSS*MSS/cwnd per ACK above it. cwnd is capped at the receiver window.
//!
//! Loss recovery, by variant:
//! - Tahoe (4.3BSD-Tahoe `tcp_input`): on the third duplicate ACK halve the window into
//!   ssthresh, retransmit the missing segment with cwnd = 1 MSS, and slow-start from there.
//! - Reno (4.3BSD-Reno; RFC 5681 3.2): the same retransmission, then cwnd = ssthresh + 3 MSS,
//!   one MSS more per further duplicate, deflated to ssthresh by the first new ACK.
//! - NewReno (RFC 6582): a partial ACK retransmits the next hole and stays in recovery, until
//!   an ACK covers everything sent before recovery began.
//!
//! All three refuse a second fast retransmit for losses of the same window (RFC 6582 4.1's
//! `recover` check). A timeout (RFC 6298 5; BSD) sets ssthresh the same way, cwnd = 1 MSS,
//! goes back to the first unacknowledged byte and doubles the timeout.

use super::rtt::RttEstimator;
use crate::spec::{AppSpec, TcpSpec, TcpVariant};
use atmsim_engine::SimTime;

/// A segment to transmit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub len: u32,
    /// Sent before (its bytes lie below the highest sequence ever sent).
    pub retransmit: bool,
}

/// Counters of a sender over its life.
#[derive(Debug, Clone, Default)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub rtt_samples: u64,
    pub rtt_sum: SimTime,
    pub max_cwnd: u32,
}

#[derive(Debug, Clone)]
pub struct TcpSender {
    variant: TcpVariant,
    mss: u32,
    max_window: u32,
    dupack_threshold: u32,
    /// End of the application's data (u64::MAX for a greedy source).
    data_end: u64,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    cwnd: u32,
    ssthresh: u32,
    dupacks: u32,
    in_recovery: bool,
    /// Highest sequence sent when the last recovery or timeout began (RFC 6582).
    recover: Option<u64>,
    /// A single segment at snd_una to retransmit before anything else (fast retransmit).
    retransmit_una: bool,
    /// The segment being timed: (sequence just past its end, time sent).
    timing: Option<(u64, SimTime)>,
    rtt: RttEstimator,
    deadline: Option<SimTime>,
    stats: SenderStats,
}

impl TcpSender {
    pub fn new(spec: &TcpSpec, app: AppSpec) -> Self {
        let mss = spec.mss_bytes.max(1);
        let cwnd = (spec.initial_cwnd_segments.max(1) * mss).min(spec.max_window_bytes.max(mss));
        TcpSender {
            variant: spec.variant,
            mss,
            max_window: spec.max_window_bytes.max(mss),
            dupack_threshold: spec.dupack_threshold,
            data_end: match app {
                AppSpec::Greedy => u64::MAX,
                AppSpec::Bytes(n) => n,
            },
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd,
            ssthresh: spec.max_window_bytes.max(mss),
            dupacks: 0,
            in_recovery: false,
            recover: None,
            retransmit_una: false,
            timing: None,
            rtt: RttEstimator::new(
                spec.timer_granularity,
                spec.min_rto,
                spec.max_rto,
                spec.initial_rto,
            ),
            deadline: None,
            stats: SenderStats {
                max_cwnd: cwnd,
                ..Default::default()
            },
        }
    }

    /// The next segment to transmit now, if window, application and state allow.
    pub fn next_segment(&mut self, now: SimTime) -> Option<Segment> {
        if self.retransmit_una {
            self.retransmit_una = false;
            let len = self.seg_len(self.snd_una)?;
            return Some(self.emit(now, self.snd_una, len));
        }
        let len = self.seg_len(self.snd_nxt)?;
        let window = self.cwnd.min(self.max_window) as u64;
        if self.snd_nxt - self.snd_una + len as u64 > window {
            return None;
        }
        let seg = self.emit(now, self.snd_nxt, len);
        self.snd_nxt += len as u64;
        self.snd_max = self.snd_max.max(self.snd_nxt);
        Some(seg)
    }

    /// Length of the segment starting at `seq`, if there is data there.
    fn seg_len(&self, seq: u64) -> Option<u32> {
        let left = self.data_end.checked_sub(seq).filter(|&n| n > 0)?;
        Some(left.min(self.mss as u64) as u32)
    }

    fn emit(&mut self, now: SimTime, seq: u64, len: u32) -> Segment {
        let retransmit = seq < self.snd_max;
        self.stats.segments_sent += 1;
        if retransmit {
            self.stats.retransmits += 1;
        } else if self.timing.is_none() {
            // BSD times one segment at a time, never a retransmitted one (Karn).
            self.timing = Some((seq + len as u64, now));
        }
        if self.deadline.is_none() {
            self.deadline = Some(self.rtt.deadline_from(now));
        }
        Segment {
            seq,
            len,
            retransmit,
        }
    }

    /// ssthresh after a loss: half the window in use, at least two segments, in whole
    /// segments (4.3BSD `win = min(snd_wnd, snd_cwnd) / 2 / t_maxseg`).
    fn halve(&mut self) {
        let win = self.cwnd.min(self.max_window) / 2 / self.mss;
        self.ssthresh = win.max(2) * self.mss;
    }

    fn set_cwnd(&mut self, c: u32) {
        self.cwnd = c.clamp(self.mss, self.max_window.max(self.mss));
        self.stats.max_cwnd = self.stats.max_cwnd.max(self.cwnd);
    }

    /// A cumulative ACK arrived.
    pub fn on_ack(&mut self, now: SimTime, ack: u64) {
        if ack > self.snd_max {
            return; // acknowledges data never sent: ignore (RFC 793)
        }
        if ack > self.snd_una {
            self.on_new_ack(now, ack);
        } else if ack == self.snd_una && self.snd_max > self.snd_una {
            self.on_dupack();
        }
    }

    fn on_new_ack(&mut self, now: SimTime, ack: u64) {
        let acked = (ack - self.snd_una) as u32;
        if let Some((end, sent)) = self.timing {
            if ack >= end {
                let r = self.rtt.sample_between(sent, now);
                self.rtt.on_sample(r);
                self.stats.rtt_samples += 1;
                self.stats.rtt_sum += r;
                self.timing = None;
            }
        }
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.dupacks = 0;
        if self.in_recovery {
            let full = self.recover.is_none_or(|r| ack >= r);
            match self.variant {
                TcpVariant::NewReno if !full => {
                    // RFC 6582 3.2 step 3: retransmit the next hole, deflate by the amount
                    // acknowledged, add back one MSS if at least one was acknowledged.
                    self.retransmit_una = true;
                    let back = if acked >= self.mss { self.mss } else { 0 };
                    self.set_cwnd(self.cwnd.saturating_sub(acked) + back);
                }
                TcpVariant::NewReno => {
                    let flight = (self.snd_max - ack) as u32;
                    self.set_cwnd(self.ssthresh.min(flight.saturating_add(self.mss)));
                    self.in_recovery = false;
                }
                _ => {
                    self.set_cwnd(self.ssthresh);
                    self.in_recovery = false;
                }
            }
        } else if self.cwnd < self.ssthresh {
            self.set_cwnd(self.cwnd.saturating_add(self.mss));
        } else {
            let inc = ((self.mss as u64 * self.mss as u64) / self.cwnd as u64).max(1) as u32;
            self.set_cwnd(self.cwnd.saturating_add(inc));
        }
        // Restart the timer while data is outstanding (RFC 6298 5.3), stop it when all is acked.
        self.deadline = if self.snd_una < self.snd_max {
            Some(self.rtt.deadline_from(now))
        } else {
            None
        };
    }

    fn on_dupack(&mut self) {
        self.dupacks += 1;
        let thresh = self.dupack_threshold;
        if thresh > 0 && self.dupacks == thresh && !self.in_recovery {
            if self.recover.is_some_and(|r| self.snd_una < r) {
                return; // losses of a window already recovered from (RFC 6582 4.1)
            }
            self.stats.fast_retransmits += 1;
            self.halve();
            self.recover = Some(self.snd_max);
            self.timing = None;
            self.retransmit_una = true;
            self.deadline = None; // re-armed when the retransmission goes out
            match self.variant {
                TcpVariant::Tahoe => self.set_cwnd(self.mss),
                TcpVariant::Reno | TcpVariant::NewReno => {
                    self.in_recovery = true;
                    self.set_cwnd(self.ssthresh + 3 * self.mss);
                }
            }
        } else if self.in_recovery && self.dupacks > thresh {
            // Each further duplicate means a segment left the network (RFC 5681 3.2 step 4).
            self.set_cwnd(self.cwnd.saturating_add(self.mss));
        }
    }

    /// When the retransmission timer fires, if armed.
    pub fn timer_deadline(&self) -> Option<SimTime> {
        self.deadline
    }

    /// The retransmission timer expired (a no-op if it is not due).
    pub fn on_timer(&mut self, now: SimTime) {
        if self.deadline.is_none_or(|d| now < d) {
            return;
        }
        self.stats.timeouts += 1;
        self.halve();
        self.set_cwnd(self.mss);
        self.snd_nxt = self.snd_una;
        self.recover = Some(self.snd_max);
        self.in_recovery = false;
        self.retransmit_una = false;
        self.dupacks = 0;
        self.timing = None;
        self.rtt.on_timeout();
        self.deadline = None; // re-armed by the retransmission
    }

    pub fn cwnd(&self) -> u32 {
        self.cwnd
    }
    pub fn ssthresh(&self) -> u32 {
        self.ssthresh
    }
    pub fn srtt(&self) -> Option<SimTime> {
        self.rtt.srtt()
    }
    pub fn rto(&self) -> SimTime {
        self.rtt.rto()
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    /// A finite application's data are all acknowledged.
    pub fn is_finished(&self) -> bool {
        self.data_end != u64::MAX && self.snd_una >= self.data_end
    }
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const MSS: u32 = 1000;

    fn spec(variant: TcpVariant) -> TcpSpec {
        TcpSpec {
            variant,
            mss_bytes: MSS,
            max_window_bytes: 64 * MSS,
            timer_granularity: SimTime::ZERO,
            min_rto: SimTime::from_ms(1),
            max_rto: SimTime::from_secs(64),
            initial_rto: SimTime::from_secs(1),
            delayed_ack: None,
            ack_every: 2,
            dupack_threshold: 3,
            initial_cwnd_segments: 1,
        }
    }

    fn t(ms: u64) -> SimTime {
        SimTime::from_ms(ms)
    }

    fn drain(s: &mut TcpSender, now: SimTime) -> Vec<Segment> {
        std::iter::from_fn(|| s.next_segment(now)).collect()
    }

    /// A sender with `n` segments outstanding and cwnd in avoidance.
    fn with_flight(variant: TcpVariant, n: usize) -> TcpSender {
        let mut sp = spec(variant);
        sp.initial_cwnd_segments = n as u32;
        let mut s = TcpSender::new(&sp, AppSpec::Greedy);
        s.ssthresh = n as u32 * MSS;
        assert_eq!(drain(&mut s, t(0)).len(), n);
        s
    }

    #[test]
    fn slow_start_doubles_per_round_trip() {
        let mut s = TcpSender::new(&spec(TcpVariant::Reno), AppSpec::Greedy);
        let mut now = 0;
        for round in 0..5 {
            let segs = drain(&mut s, t(now));
            assert_eq!(segs.len(), 1 << round);
            now += 10;
            for seg in segs {
                s.on_ack(t(now), seg.seq + seg.len as u64);
            }
        }
    }

    #[test]
    fn congestion_avoidance_adds_about_one_mss_per_round_trip() {
        let mut s = with_flight(TcpVariant::Reno, 10);
        let before = s.cwnd();
        for i in 1..=10u64 {
            s.on_ack(t(10), i * MSS as u64);
        }
        let grown = s.cwnd() - before;
        assert!((900..=1000).contains(&grown), "{grown}");
    }

    #[test]
    fn timeout_goes_back_n_with_one_segment_and_backs_off() {
        let mut s = with_flight(TcpVariant::Tahoe, 8);
        let d = s.timer_deadline().unwrap();
        assert_eq!(d, t(1000));
        s.on_timer(t(999));
        assert_eq!(s.stats().timeouts, 0, "not due");
        s.on_timer(d);
        assert_eq!(s.cwnd(), MSS);
        assert_eq!(s.ssthresh(), 4 * MSS);
        let segs = drain(&mut s, d);
        assert_eq!(
            segs,
            vec![Segment {
                seq: 0,
                len: MSS,
                retransmit: true
            }]
        );
        assert_eq!(s.timer_deadline(), Some(d + t(2000)), "backed off to 2 s");
        // Karn: the ACK of the retransmission gives no sample.
        s.on_ack(d + t(5), MSS as u64);
        assert_eq!(s.stats().rtt_samples, 0);
        assert_eq!(s.rto(), t(2000), "backed-off RTO kept until a fresh sample");
        // Go-back-N continues from snd_una in slow start.
        let segs = drain(&mut s, d + t(5));
        assert_eq!(
            segs.iter().map(|x| x.seq).collect::<Vec<_>>(),
            vec![MSS as u64, 2 * MSS as u64]
        );
        assert!(segs.iter().all(|x| x.retransmit));
    }

    #[test]
    fn tahoe_fast_retransmit_restarts_slow_start_without_resending_the_window() {
        let mut s = with_flight(TcpVariant::Tahoe, 8);
        for _ in 0..3 {
            s.on_ack(t(5), 0);
        }
        assert_eq!(s.stats().fast_retransmits, 1);
        assert_eq!(s.cwnd(), MSS);
        assert_eq!(
            drain(&mut s, t(5)),
            vec![Segment {
                seq: 0,
                len: MSS,
                retransmit: true
            }]
        );
        assert_eq!(
            s.snd_nxt(),
            8 * MSS as u64,
            "snd_nxt restored (4.3BSD-Tahoe onxt)"
        );
        // More duplicates do not retransmit again.
        s.on_ack(t(6), 0);
        assert!(drain(&mut s, t(6)).is_empty());
    }

    #[test]
    fn reno_inflates_then_deflates() {
        let mut s = with_flight(TcpVariant::Reno, 8);
        for _ in 0..3 {
            s.on_ack(t(5), 0);
        }
        assert_eq!(s.ssthresh(), 4 * MSS);
        assert_eq!(s.cwnd(), 7 * MSS);
        assert_eq!(
            drain(&mut s, t(5)),
            vec![Segment {
                seq: 0,
                len: MSS,
                retransmit: true
            }]
        );
        for _ in 0..4 {
            s.on_ack(t(6), 0);
        }
        assert_eq!(s.cwnd(), 11 * MSS);
        // flight is 8 segments: 3 new ones fit.
        assert_eq!(drain(&mut s, t(6)).len(), 3);
        s.on_ack(t(7), 8 * MSS as u64);
        assert_eq!(s.cwnd(), 4 * MSS, "deflated to ssthresh");
    }

    #[test]
    fn new_reno_partial_ack_retransmits_the_next_hole() {
        let mut s = with_flight(TcpVariant::NewReno, 8);
        for _ in 0..3 {
            s.on_ack(t(5), 0);
        }
        drain(&mut s, t(5));
        s.on_ack(t(6), 3 * MSS as u64); // partial: segments 0..3 acked, hole at 3
        let segs = drain(&mut s, t(6));
        assert_eq!(
            segs[0],
            Segment {
                seq: 3 * MSS as u64,
                len: MSS,
                retransmit: true
            }
        );
        s.on_ack(t(7), 8 * MSS as u64);
        assert!(!s.in_recovery);
        assert!(s.cwnd() <= 4 * MSS);
        assert_eq!(s.stats().fast_retransmits, 1);
    }

    #[test]
    fn window_never_exceeds_the_receiver_window() {
        let mut sp = spec(TcpVariant::Reno);
        sp.max_window_bytes = 4 * MSS;
        let mut s = TcpSender::new(&sp, AppSpec::Greedy);
        for round in 0..10u64 {
            let segs = drain(&mut s, t(round));
            assert!(s.snd_nxt() - s.snd_una() <= 4 * MSS as u64);
            for seg in segs {
                s.on_ack(t(round), seg.seq + seg.len as u64);
            }
        }
        assert_eq!(s.cwnd(), 4 * MSS);
    }

    #[test]
    fn finite_application_finishes_with_a_short_last_segment() {
        let mut s = TcpSender::new(&spec(TcpVariant::Reno), AppSpec::Bytes(2500));
        let mut now = 0;
        while !s.is_finished() {
            for seg in drain(&mut s, t(now)) {
                s.on_ack(t(now + 1), seg.seq + seg.len as u64);
            }
            now += 2;
            assert!(now < 100);
        }
        assert_eq!(s.snd_una(), 2500);
        assert_eq!(s.timer_deadline(), None);
    }

    #[test]
    fn slow_timer_deadlines_fall_on_ticks() {
        let mut sp = spec(TcpVariant::Tahoe);
        sp.timer_granularity = t(500);
        sp.initial_rto = SimTime::from_secs(3);
        let mut s = TcpSender::new(&sp, AppSpec::Greedy);
        drain(&mut s, t(1234));
        assert_eq!(s.timer_deadline(), Some(t(4000)));
    }

    proptest! {
        /// cwnd >= 1 MSS and snd_una <= snd_nxt <= snd_max under any ACK/timeout sequence.
        #[test]
        fn invariants_hold(ops in proptest::collection::vec((0u8..4, 0u64..20), 1..200), v in 0u8..3) {
            let variant = [TcpVariant::Tahoe, TcpVariant::Reno, TcpVariant::NewReno][v as usize];
            let mut s = TcpSender::new(&spec(variant), AppSpec::Greedy);
            let mut now = 0u64;
            for (op, x) in ops {
                now += 1;
                match op {
                    0 => { drain(&mut s, t(now)); }
                    1 => { let ack = s.snd_una() + x * MSS as u64; s.on_ack(t(now), ack.min(s.snd_max())); }
                    2 => { let a = s.snd_una(); s.on_ack(t(now), a); }
                    _ => { if let Some(d) = s.timer_deadline() { now = now.max(d.0 / 1_000_000_000); s.on_timer(d); } }
                }
                prop_assert!(s.cwnd() >= MSS);
                prop_assert!(s.snd_una() <= s.snd_nxt() && s.snd_nxt() <= s.snd_max());
            }
        }
    }
}
