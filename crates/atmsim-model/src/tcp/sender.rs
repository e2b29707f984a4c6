//! The sending side: the state every variant shares, and the retransmission timer.
//!
//! Growth (Jacobson 1988; RFC 5681 3.1): slow start adds one MSS per new ACK below ssthresh,
//! congestion avoidance MSS*MSS/cwnd per ACK above it. cwnd is capped at the receiver window.
//!
//! The retransmission timer (RFC 6298 5; 4.3BSD) runs while data is outstanding and restarts
//! on every new ACK (`rto_restart = "new_ack"`: it expires one RTO after the ACK). With
//! `rto_restart = "oldest_segment"` a new ACK that leaves data outstanding sets it instead to
//! expire one RTO after the oldest outstanding segment (the one holding snd_una) was last
//! sent, at once if that time has passed; the sender then keeps the send time of every
//! segment in flight. Either way the timer is armed by a transmission when it is off (at the
//! start, after a timeout, after a fast retransmit) and stopped when all is acknowledged. One
//! segment at a time is timed for an RTT sample, never a retransmitted
//! one (Karn). On expiry the sender goes back to the first unacknowledged byte (go-back-N) and
//! doubles the timeout until a fresh sample.
//!
//! What happens on duplicate ACKs, on new ACKs while recovering from a loss, and to ssthresh
//! and cwnd on a timeout is the variant's loss recovery ([`super::recovery`]: Tahoe, Reno,
//! NewReno). The sender lends it a [`SendState`] and carries out the [`Reaction`] it returns.

use super::ecn;
use super::hystart::{Change, HyStart};
use super::recovery::{AnyRecovery, NextSeg, Reaction, Recovery, SendState};
use super::rtt::RttEstimator;
use crate::spec::{AppSpec, CwndGrowth, RtoRestart, TcpSpec};
use atmsim_engine::SimTime;
use std::collections::VecDeque;

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
    /// Segments lost by the artificial loss at a window ([`TcpSpec::drop_at_cwnd`]).
    pub hook_drops: u64,
    /// ACKs that arrived with ECE set (ECN).
    pub ece_acks: u64,
    /// Window reductions for ECN-Echo (at most one per window of data).
    pub ecn_reductions: u64,
    /// HyStart++: exits from slow start into CSS on a rising RTT.
    pub hystart_css_entries: u64,
    /// HyStart++: returns from CSS to slow start (the RTT fell below CSS's baseline).
    pub hystart_spurious_exits: u64,
    /// HyStart++: cwnd when CSS ended in congestion avoidance, and when (`None`: it did
    /// not).
    pub hystart_avoidance: Option<(SimTime, u32)>,
}

/// [`TcpSpec::drop_at_cwnd`] at work: the window, the segments per loss, those still to
/// lose at this crossing.
#[derive(Debug, Clone, Copy)]
struct DropHook {
    at: u32,
    count: u32,
    left: u32,
}

#[derive(Debug, Clone)]
pub struct TcpSender {
    /// Sequence space, cwnd and ssthresh, lent to the recovery on every event.
    st: SendState,
    recovery: AnyRecovery,
    /// End of the application's data (u64::MAX for a greedy source).
    data_end: u64,
    /// A single segment at snd_una to retransmit before anything else (fast retransmit,
    /// NewReno partial ACK).
    retransmit_una: bool,
    /// The segment being timed: (sequence just past its end, time sent).
    timing: Option<(u64, SimTime)>,
    rtt: RttEstimator,
    deadline: Option<SimTime>,
    stats: SenderStats,
    drop_hook: Option<DropHook>,
    /// The segment [`TcpSender::next_segment`] just returned is lost by the drop hook.
    dropped: bool,
    /// [`TcpSpec::cwnd_growth`].
    growth: CwndGrowth,
    /// With [`RtoRestart::OldestSegment`], the segments in flight in sequence order: (sequence
    /// just past the end, when last sent). `None` with [`RtoRestart::NewAck`].
    sent_at: Option<VecDeque<(u64, SimTime)>>,
    /// [`TcpSpec::ecn`].
    ecn: bool,
    /// The ECN flags ([`super::ecn`]) of the segment [`TcpSender::next_segment`] just
    /// returned.
    flags: u8,
    /// The next new segment carries CWR (a reduction for ECN-Echo happened).
    cwr_pending: bool,
    /// snd_max at the last window reduction (loss or ECN): an ECE on an ACK at or below it
    /// is for that window and does not reduce again.
    ecn_recover: u64,
    /// HyStart++ ([`TcpSpec::hystart`]) while the initial slow start lasts; `None` without
    /// it and once it is over.
    hystart: Option<Box<HyStart>>,
}

impl TcpSender {
    pub fn new(spec: &TcpSpec, app: AppSpec) -> Self {
        let st = SendState::new(spec);
        let hystart = spec
            .hystart
            .then(|| Box::new(HyStart::new(st.max_window, st.mss)));
        let stats = SenderStats {
            max_cwnd: st.cwnd(),
            ..Default::default()
        };
        TcpSender {
            st,
            recovery: AnyRecovery::new(spec),
            data_end: match app {
                AppSpec::Greedy => u64::MAX,
                AppSpec::Bytes(n) => n,
            },
            retransmit_una: false,
            timing: None,
            rtt: RttEstimator::new(
                spec.timer_granularity,
                spec.min_rto,
                spec.max_rto,
                spec.initial_rto,
            ),
            deadline: None,
            stats,
            drop_hook: spec.drop_at_cwnd.map(|at| DropHook {
                at,
                count: spec.drop_count,
                left: spec.drop_count,
            }),
            growth: spec.cwnd_growth,
            dropped: false,
            sent_at: match spec.rto_restart {
                RtoRestart::NewAck => None,
                RtoRestart::OldestSegment => Some(VecDeque::with_capacity(64)),
            },
            ecn: spec.ecn,
            flags: 0,
            cwr_pending: false,
            ecn_recover: 0,
            hystart,
        }
    }

    /// Whether the segment [`TcpSender::next_segment`] just returned is lost at the source
    /// by the artificial loss at a window: the owner then does not send it.
    pub fn segment_dropped(&self) -> bool {
        self.dropped
    }

    /// The ECN flags ([`super::ecn::ECT`], [`super::ecn::CWR`]) of the segment
    /// [`TcpSender::next_segment`] just returned (0 without ECN).
    pub fn segment_flags(&self) -> u8 {
        self.flags
    }

    /// The next segment to transmit now, if window, application and state allow.
    pub fn next_segment(&mut self, now: SimTime) -> Option<Segment> {
        self.dropped = false;
        if self.retransmit_una {
            self.retransmit_una = false;
            let len = self.seg_len(self.st.snd_una)?;
            let seg = self.emit(now, self.st.snd_una, len);
            self.recovery
                .on_sent(&self.st, seg.seq, seg.len, seg.retransmit);
            return Some(seg);
        }
        // A recovery that chooses what to send (SACK's NextSeg, within cwnd - pipe); only
        // while it recovers, so the common path pays one flag test.
        let choice = if self.recovery.in_recovery() {
            let new_data = self.seg_len(self.st.snd_nxt).is_some_and(|len| {
                self.st.snd_nxt + len as u64 - self.st.snd_una <= self.st.max_window as u64
            });
            self.recovery.next_seg(&self.st, new_data)
        } else {
            None
        };
        match choice {
            None => {}
            Some(NextSeg::Hold) => return None,
            Some(NextSeg::Retransmit { seq, len }) => {
                let len = self.seg_len(seq)?.min(len);
                let seg = self.emit(now, seq, len);
                self.recovery.on_sent(&self.st, seq, len, seg.retransmit);
                return Some(seg);
            }
            Some(NextSeg::NewData) => {
                let len = self.seg_len(self.st.snd_nxt)?;
                let seg = self.send_new(now, len);
                self.recovery
                    .on_sent(&self.st, seg.seq, seg.len, seg.retransmit);
                return Some(seg);
            }
        }
        let len = self.seg_len(self.st.snd_nxt)?;
        let window = self.st.cwnd().min(self.st.max_window) as u64;
        if self.st.snd_nxt - self.st.snd_una + len as u64 > window {
            return None;
        }
        Some(self.send_new(now, len))
    }

    /// Sends `len` bytes at snd_nxt (lost on the way if the drop hook says so).
    fn send_new(&mut self, now: SimTime, len: u32) -> Segment {
        if let Some(h) = &mut self.drop_hook {
            if self.st.cwnd() < h.at {
                h.left = h.count;
            } else if h.left > 0 {
                h.left -= 1;
                self.dropped = true;
                self.stats.hook_drops += 1;
            }
        }
        let seg = self.emit(now, self.st.snd_nxt, len);
        self.st.snd_nxt += len as u64;
        self.st.snd_max = self.st.snd_max.max(self.st.snd_nxt);
        seg
    }

    /// Length of the segment starting at `seq`, if there is data there.
    fn seg_len(&self, seq: u64) -> Option<u32> {
        let left = self.data_end.checked_sub(seq).filter(|&n| n > 0)?;
        Some(left.min(self.st.mss as u64) as u32)
    }

    fn emit(&mut self, now: SimTime, seq: u64, len: u32) -> Segment {
        let retransmit = seq < self.st.snd_max;
        self.stats.segments_sent += 1;
        if self.ecn {
            // New data is ECN-capable, a retransmission not (RFC 3168 6.1.5); the first new
            // segment after a reduction carries CWR.
            self.flags = 0;
            if !retransmit {
                self.flags = ecn::ECT;
                if std::mem::take(&mut self.cwr_pending) {
                    self.flags |= ecn::CWR;
                }
            }
        }
        if let Some(h) = &mut self.hystart {
            if !retransmit {
                h.on_sent(seq + len as u64, now);
            }
        }
        if retransmit {
            self.stats.retransmits += 1;
        } else if self.timing.is_none() {
            // BSD times one segment at a time, never a retransmitted one (Karn).
            self.timing = Some((seq + len as u64, now));
        }
        if self.deadline.is_none() {
            self.deadline = Some(self.rtt.deadline_from(now));
        }
        if let Some(q) = &mut self.sent_at {
            let end = seq + len as u64;
            let i = q.partition_point(|e| e.0 <= seq);
            if i == q.len() {
                q.push_back((end, now));
            } else {
                q[i].1 = now; // sent again: the segment holding seq
                if i == 0 {
                    // The oldest outstanding segment, resent: the timer runs from now.
                    self.deadline = Some(self.rtt.deadline_from(now));
                }
            }
        }
        Segment {
            seq,
            len,
            retransmit,
        }
    }

    /// A cumulative ACK arrived, with the SACK blocks it carries (none but for SACK).
    pub fn on_ack(&mut self, now: SimTime, ack: u64, sack: &[(u64, u64)]) {
        self.on_ack_ecn(now, ack, sack, false);
    }

    /// [`TcpSender::on_ack`] of an ACK that may carry ECE (ECN-Echo). With ECN, an ACK with
    /// ECE grows no window, and one that acknowledges data sent after the last reduction
    /// (loss or ECN), outside loss recovery, reduces it: ssthresh as for a loss (by the
    /// congestion control), cwnd = ssthresh, and the next new segment carries CWR (RFC 3168
    /// 6.1.2). The first loss after that reduction of a segment sent before it keeps
    /// ssthresh ([`SendState::reduce_ssthresh`]): one reduction per window of data either
    /// way round.
    pub fn on_ack_ecn(&mut self, now: SimTime, ack: u64, sack: &[(u64, u64)], ece: bool) {
        if ack > self.st.snd_max {
            return; // acknowledges data never sent: ignore (RFC 793)
        }
        let ece = ece && self.ecn;
        if !sack.is_empty() {
            self.recovery.on_sack(&self.st, sack);
        }
        if ack > self.st.snd_una {
            self.on_new_ack(now, ack, ece);
        } else if ack == self.st.snd_una && self.st.snd_max > self.st.snd_una {
            let r = self.recovery.on_dupack(&mut self.st);
            self.react(r);
        }
        if ece {
            self.on_ece(ack);
        }
        self.stats.max_cwnd = self.st.max_cwnd();
    }

    /// An ACK with ECE: reduce once per window of data, outside loss recovery.
    #[cold]
    fn on_ece(&mut self, ack: u64) {
        self.stats.ece_acks += 1;
        if ack <= self.ecn_recover || self.recovery.in_recovery() {
            return;
        }
        self.st.ecn_reduced_below = 0;
        self.st.reduce_ssthresh();
        self.st.set_cwnd(self.st.ssthresh);
        self.ecn_recover = self.st.snd_max;
        self.st.ecn_reduced_below = self.st.snd_max;
        self.hystart = None;
        self.cwr_pending = true;
        self.stats.ecn_reductions += 1;
    }

    fn on_new_ack(&mut self, now: SimTime, ack: u64, ece: bool) {
        let acked = (ack - self.st.snd_una) as u32;
        if let Some((end, sent)) = self.timing {
            if ack >= end {
                let r = self.rtt.sample_between(sent, now);
                self.rtt.on_sample(r);
                self.stats.rtt_samples += 1;
                self.stats.rtt_sum += r;
                self.timing = None;
            }
        }
        self.st.snd_una = ack;
        self.st.snd_nxt = self.st.snd_nxt.max(ack);
        let r = self.recovery.on_new_ack(&mut self.st, acked);
        match r {
            // An ECN-Echo grows no window (RFC 3168 6.1.2).
            Reaction::Grow if ece => {}
            Reaction::Grow if self.hystart.is_some() => self.grow_hystart(now, ack, acked),
            Reaction::Grow => self.grow_on_ack(now, acked),
            _ => self.react(r),
        }
        // Restart the timer while data is outstanding (RFC 6298 5.3), or set it from the
        // oldest segment's send time; stop it when all is acked.
        let since = match &mut self.sent_at {
            None => now,
            Some(q) => {
                while q.front().is_some_and(|e| e.0 <= ack) {
                    q.pop_front();
                }
                q.front().map_or(now, |e| e.1)
            }
        };
        self.deadline = if self.st.snd_una < self.st.snd_max {
            Some(self.rtt.deadline_from(since).max(now))
        } else {
            None
        };
    }

    /// A new ACK of `acked` bytes outside recovery: slow start or congestion avoidance.
    #[inline]
    fn grow_on_ack(&mut self, now: SimTime, acked: u32) {
        if self.st.cubic.is_some() && self.st.cwnd() >= self.st.ssthresh {
            self.grow_cubic(now, acked)
        } else if self.growth == CwndGrowth::PerSegment {
            // One step per segment newly acknowledged (RFC 3465 byte counting, no limit).
            for _ in 0..acked.div_ceil(self.st.mss).max(1) {
                self.grow();
            }
        } else {
            self.grow();
        }
    }

    /// A new ACK of everything below `ack` (`acked` bytes new) outside recovery, with
    /// HyStart++ in the initial slow start ([`super::hystart`]).
    fn grow_hystart(&mut self, now: SimTime, ack: u64, acked: u32) {
        let (cwnd, mss) = (self.st.cwnd(), self.st.mss);
        let Some(h) = self.hystart.as_deref_mut() else {
            return;
        };
        if cwnd >= self.st.ssthresh {
            // Slow start ended at ssthresh: HyStart++ is over.
            self.hystart = None;
            return self.grow_on_ack(now, acked);
        }
        let rtt = h.sample(ack, now);
        if h.on_ack_round(ack, self.st.snd_nxt) == Change::CssDone {
            // CSS_ROUNDS rounds of CSS: congestion avoidance from here.
            self.st.ssthresh = cwnd;
            self.stats.hystart_avoidance = Some((now, cwnd));
            self.hystart = None;
            return self.grow_on_ack(now, acked);
        }
        // Slow start's step as `cwnd_growth` gives it: one MSS per ACK, or one per segment
        // acknowledged.
        let step = match self.growth {
            CwndGrowth::PerSegment => acked.div_ceil(mss).max(1).saturating_mul(mss),
            _ => mss,
        };
        let inc = h.increase(step, mss);
        self.st.set_cwnd(cwnd.saturating_add(inc));
        match h.on_sample(rtt) {
            Change::EnterCss => self.stats.hystart_css_entries += 1,
            Change::ResumeSlowStart => self.stats.hystart_spurious_exits += 1,
            _ => {}
        }
    }

    /// Carries out what the recovery asked for.
    fn react(&mut self, r: Reaction) {
        match r {
            Reaction::Nothing => {}
            Reaction::Grow => self.grow(),
            Reaction::FastRetransmit => {
                self.stats.fast_retransmits += 1;
                self.ecn_recover = self.st.snd_max;
                self.hystart = None;
                self.timing = None;
                self.retransmit_una = true;
                self.deadline = None; // re-armed when the retransmission goes out
            }
            Reaction::Retransmit => self.retransmit_una = true,
        }
    }

    /// Slow start below ssthresh, congestion avoidance above it (Reno's; CUBIC's avoidance is
    /// [`TcpSender::grow_cubic`]).
    fn grow(&mut self) {
        let (cwnd, mss) = (self.st.cwnd(), self.st.mss);
        if cwnd < self.st.ssthresh {
            self.st.set_cwnd(cwnd.saturating_add(mss));
        } else if self.st.cubic.is_some() {
            // CUBIC in avoidance: grown once per ACK by `grow_cubic` (a per-segment loop
            // that crosses ssthresh stops here).
        } else {
            let mut inc = ((mss as u64 * mss as u64) / cwnd as u64).max(1) as u32;
            if self.growth == CwndGrowth::PerAckPlusEighth {
                inc += mss / 8;
            }
            self.st.set_cwnd(cwnd.saturating_add(inc));
        }
    }

    /// CUBIC's congestion avoidance: a new ACK of `acked` bytes at `now`.
    fn grow_cubic(&mut self, now: SimTime, acked: u32) {
        let (cwnd, mss) = (self.st.cwnd(), self.st.mss);
        let rtt = self.rtt.srtt().unwrap_or(SimTime::ZERO);
        if let Some(c) = &mut self.st.cubic {
            let next = c.on_ack(now, acked, cwnd, mss, rtt);
            self.st.set_cwnd(next);
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
        self.recovery.on_timeout(&mut self.st);
        if let Some(c) = &mut self.st.cubic {
            c.on_timeout();
        }
        self.ecn_recover = self.st.snd_max;
        self.hystart = None;
        self.stats.max_cwnd = self.st.max_cwnd();
        self.st.snd_nxt = self.st.snd_una;
        self.retransmit_una = false;
        self.timing = None;
        self.rtt.on_timeout();
        self.deadline = None; // re-armed by the retransmission
    }

    /// CUBIC's state, with `congestion_control = "cubic"`.
    pub fn cubic(&self) -> Option<&super::cubic::Cubic> {
        self.st.cubic.as_deref()
    }

    /// HyStart++'s state while the initial slow start lasts ([`TcpSpec::hystart`]).
    pub fn hystart(&self) -> Option<&HyStart> {
        self.hystart.as_deref()
    }

    /// ECN is on ([`TcpSpec::ecn`]).
    pub fn ecn(&self) -> bool {
        self.ecn
    }

    /// Inside a fast-recovery episode.
    pub fn in_recovery(&self) -> bool {
        self.recovery.in_recovery()
    }

    pub fn cwnd(&self) -> u32 {
        self.st.cwnd()
    }
    pub fn ssthresh(&self) -> u32 {
        self.st.ssthresh
    }
    pub fn srtt(&self) -> Option<SimTime> {
        self.rtt.srtt()
    }
    pub fn rto(&self) -> SimTime {
        self.rtt.rto()
    }
    pub fn snd_una(&self) -> u64 {
        self.st.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.st.snd_nxt
    }
    pub fn snd_max(&self) -> u64 {
        self.st.snd_max
    }
    /// A finite application's data are all acknowledged.
    pub fn is_finished(&self) -> bool {
        self.data_end != u64::MAX && self.st.snd_una >= self.data_end
    }
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }
    /// The loss recovery's state (SACK's scoreboard and pipe, for one).
    pub fn recovery(&self) -> &AnyRecovery {
        &self.recovery
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::TcpVariant;
    use proptest::prelude::*;

    use crate::tcp::recovery::tests::MSS;

    fn spec(variant: TcpVariant) -> TcpSpec {
        crate::tcp::recovery::tests::spec(variant, true)
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
        s.st.ssthresh = n as u32 * MSS;
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
                s.on_ack(t(now), seg.seq + seg.len as u64, &[]);
            }
        }
    }

    #[test]
    fn slow_start_stops_at_the_initial_ssthresh() {
        // An 1997: ssthresh starts at half the receiver window. With it at 4 MSS, slow start
        // doubles 1 -> 2 -> 4 segments, then avoidance adds under one MSS per round trip
        // (4 + 4 x 1/4.x), so the fourth round is 4 segments again, not 8.
        let mut sp = spec(TcpVariant::Reno);
        sp.initial_ssthresh_bytes = 4 * MSS;
        let mut s = TcpSender::new(&sp, AppSpec::Greedy);
        assert_eq!(s.ssthresh(), 4 * MSS);
        let mut sent = Vec::new();
        let mut now = 0;
        for _ in 0..4 {
            let segs = drain(&mut s, t(now));
            sent.push(segs.len());
            now += 10;
            for seg in segs {
                s.on_ack(t(now), seg.seq + seg.len as u64, &[]);
            }
        }
        assert_eq!(sent, [1, 2, 4, 4]);
        assert!(s.cwnd() > 5 * MSS && s.cwnd() < 6 * MSS, "{}", s.cwnd());
        // The default (the receiver window) lets slow start run to it.
        let d = TcpSender::new(&spec(TcpVariant::Reno), AppSpec::Greedy);
        assert_eq!(d.ssthresh(), 64 * MSS);
    }

    #[test]
    fn growth_per_segment_counts_every_segment_an_ack_covers() {
        // One ACK for two segments: one slow-start step per ACK (BSD), two per segment.
        for (per_segment, want) in [(false, 3 * MSS), (true, 4 * MSS)] {
            let mut sp = spec(TcpVariant::Reno);
            if per_segment {
                sp.cwnd_growth = CwndGrowth::PerSegment;
            }
            let mut s = TcpSender::new(&sp, AppSpec::Greedy);
            drain(&mut s, t(0));
            s.on_ack(t(10), MSS as u64, &[]);
            assert_eq!(drain(&mut s, t(10)).len(), 2);
            s.on_ack(t(20), 3 * MSS as u64, &[]);
            assert_eq!(s.cwnd(), want, "per_segment = {per_segment}");
        }
        // In avoidance, an ACK of two segments adds two steps of MSS^2 / cwnd.
        let mut sp = spec(TcpVariant::Reno);
        sp.cwnd_growth = CwndGrowth::PerSegment;
        sp.initial_ssthresh_bytes = 2 * MSS;
        let mut s = TcpSender::new(&sp, AppSpec::Greedy);
        for _ in 0..2 {
            let segs = drain(&mut s, t(0));
            let end = segs.last().map(|g| g.seq + g.len as u64).unwrap();
            s.on_ack(t(10), end, &[]);
        }
        let c = s.cwnd();
        let first = MSS * MSS / c;
        let second = MSS * MSS / (c + first);
        let segs = drain(&mut s, t(10));
        let end = segs[1].seq + segs[1].len as u64;
        s.on_ack(t(20), end, &[]);
        assert_eq!(s.cwnd(), c + first + second);
    }

    #[test]
    fn the_reno_eighth_adds_mss_over_8_per_ack_in_avoidance_only() {
        // 4.3BSD-Reno's avoidance step: MSS^2 / cwnd + MSS / 8 per ACK.
        let mut sp = spec(TcpVariant::Reno);
        sp.cwnd_growth = CwndGrowth::PerAckPlusEighth;
        sp.initial_cwnd_segments = 10;
        let mut s = TcpSender::new(&sp, AppSpec::Greedy);
        s.st.ssthresh = 10 * MSS;
        drain(&mut s, t(0));
        let c = s.cwnd();
        s.on_ack(t(10), MSS as u64, &[]);
        assert_eq!(s.cwnd(), c + MSS * MSS / c + MSS / 8);
        // In slow start the step is one MSS, as with per_ack.
        let mut s = TcpSender::new(&sp, AppSpec::Greedy);
        drain(&mut s, t(0));
        let c = s.cwnd();
        s.on_ack(t(10), MSS as u64, &[]);
        assert_eq!(s.cwnd(), c + MSS);
    }

    #[test]
    fn congestion_avoidance_adds_about_one_mss_per_round_trip() {
        let mut s = with_flight(TcpVariant::Reno, 10);
        let before = s.cwnd();
        for i in 1..=10u64 {
            s.on_ack(t(10), i * MSS as u64, &[]);
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
        s.on_ack(d + t(5), MSS as u64, &[]);
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
            s.on_ack(t(5), 0, &[]);
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
        s.on_ack(t(6), 0, &[]);
        assert!(drain(&mut s, t(6)).is_empty());
    }

    #[test]
    fn reno_inflates_then_deflates() {
        let mut s = with_flight(TcpVariant::Reno, 8);
        for _ in 0..3 {
            s.on_ack(t(5), 0, &[]);
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
            s.on_ack(t(6), 0, &[]);
        }
        assert_eq!(s.cwnd(), 11 * MSS);
        // flight is 8 segments: 3 new ones fit.
        assert_eq!(drain(&mut s, t(6)).len(), 3);
        s.on_ack(t(7), 8 * MSS as u64, &[]);
        assert_eq!(s.cwnd(), 4 * MSS, "deflated to ssthresh");
    }

    #[test]
    fn new_reno_partial_ack_retransmits_the_next_hole() {
        let mut s = with_flight(TcpVariant::NewReno, 8);
        for _ in 0..3 {
            s.on_ack(t(5), 0, &[]);
        }
        drain(&mut s, t(5));
        s.on_ack(t(6), 3 * MSS as u64, &[]); // partial: segments 0..3 acked, hole at 3
        let segs = drain(&mut s, t(6));
        assert_eq!(
            segs[0],
            Segment {
                seq: 3 * MSS as u64,
                len: MSS,
                retransmit: true
            }
        );
        s.on_ack(t(7), 8 * MSS as u64, &[]);
        assert!(!s.in_recovery());
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
                s.on_ack(t(round), seg.seq + seg.len as u64, &[]);
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
                s.on_ack(t(now + 1), seg.seq + seg.len as u64, &[]);
            }
            now += 2;
            assert!(now < 100);
        }
        assert_eq!(s.snd_una(), 2500);
        assert_eq!(s.timer_deadline(), None);
    }

    #[test]
    fn the_timer_restarts_at_each_new_ack_or_runs_from_the_oldest_segment() {
        for rule in [RtoRestart::NewAck, RtoRestart::OldestSegment] {
            let mut sp = spec(TcpVariant::Reno);
            sp.initial_cwnd_segments = 4;
            sp.rto_restart = rule;
            let mut s = TcpSender::new(&sp, AppSpec::Greedy);
            assert_eq!(drain(&mut s, t(0)).len(), 4);
            // Segment 0 acknowledged at 100 ms: a sample of 100 ms, RTO 300 ms.
            s.on_ack(t(100), MSS as u64, &[]);
            assert_eq!(s.rto(), t(300));
            let sent = drain(&mut s, t(100)).len();
            assert_eq!(sent, 2, "slow start: cwnd 5 MSS, 3 in flight");
            let want = match rule {
                RtoRestart::NewAck => t(400),
                // Segment 1, the oldest outstanding, left at 0 ms.
                RtoRestart::OldestSegment => t(300),
            };
            assert_eq!(s.timer_deadline(), Some(want), "{rule:?}");
            // Segments 1-3 acknowledged at 150 ms: the oldest is now one sent at 100 ms.
            s.on_ack(t(150), 4 * MSS as u64, &[]);
            let rto = s.rto();
            let want = match rule {
                RtoRestart::NewAck => t(150) + rto,
                RtoRestart::OldestSegment => t(100) + rto,
            };
            assert_eq!(s.timer_deadline(), Some(want), "{rule:?}");
        }
        // An oldest segment sent more than an RTO ago: the timer is due at once.
        let mut sp = spec(TcpVariant::Reno);
        sp.initial_cwnd_segments = 4;
        sp.rto_restart = RtoRestart::OldestSegment;
        let mut s = TcpSender::new(&sp, AppSpec::Greedy);
        drain(&mut s, t(0));
        s.on_ack(t(100), MSS as u64, &[]);
        s.on_ack(t(350), 2 * MSS as u64, &[]);
        assert_eq!(s.timer_deadline(), Some(t(350)));
        s.on_timer(t(350));
        assert_eq!(s.stats().timeouts, 1);
        // Go-back-N: segment 2 resent at 350 ms, the timer (backed off) from then.
        assert_eq!(drain(&mut s, t(350)).len(), 1);
        assert_eq!(s.rto(), t(600));
        assert_eq!(s.timer_deadline(), Some(t(950)));
        // Its ACK leaves segment 3, last sent at 0 ms, the oldest; resending it restarts the
        // timer.
        s.on_ack(t(360), 3 * MSS as u64, &[]);
        assert_eq!(s.timer_deadline(), Some(t(600)));
        assert!(drain(&mut s, t(360))[0].retransmit);
        assert_eq!(s.timer_deadline(), Some(t(960)));
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

    fn cubic(variant: TcpVariant) -> TcpSpec {
        let mut sp = spec(variant);
        sp.congestion_control = crate::spec::CongestionControl::Cubic;
        sp
    }

    #[test]
    fn cubic_reduces_by_beta_under_each_recovery() {
        // A window of 10 segments, three duplicates: ssthresh = 0.7 x 10 = 7 MSS, where Reno's
        // control halves to 5; each recovery sets cwnd from it as it always does.
        for (variant, cwnd) in [
            (TcpVariant::Tahoe, MSS),
            (TcpVariant::Reno, 10 * MSS),
            (TcpVariant::NewReno, 10 * MSS),
            (TcpVariant::Sack, 7 * MSS),
        ] {
            let mut sp = cubic(variant);
            sp.initial_cwnd_segments = 10;
            let mut s = TcpSender::new(&sp, AppSpec::Greedy);
            assert_eq!(drain(&mut s, t(0)).len(), 10);
            for _ in 0..3 {
                s.on_ack(t(5), 0, &[(MSS as u64, 2 * MSS as u64)]);
            }
            assert_eq!(s.stats().fast_retransmits, 1, "{variant:?}");
            assert_eq!(s.ssthresh(), 7 * MSS, "{variant:?}");
            assert_eq!(s.cwnd(), cwnd, "{variant:?}");
        }
        // A timeout: ssthresh 0.7 x 10, cwnd one segment.
        let mut sp = cubic(TcpVariant::NewReno);
        sp.initial_cwnd_segments = 10;
        let mut s = TcpSender::new(&sp, AppSpec::Greedy);
        drain(&mut s, t(0));
        let d = s.timer_deadline().unwrap();
        s.on_timer(d);
        assert_eq!((s.ssthresh(), s.cwnd()), (7 * MSS, MSS));
    }

    #[test]
    fn cubic_grows_in_avoidance_by_the_cubic_not_by_reno() {
        // A loss at 200 segments (W_max 200, ssthresh 140, K = cbrt(200 x 0.3 / 0.4) = 5.3 s)
        // and a NewReno recovery whose full ACK leaves one segment in the window: slow start
        // to 140, then avoidance over 100 ms round trips. The cubic starts at 3 C K^2 = 34
        // segments/s (3.4 per round trip, Reno's 1), slows to nothing near K, back at W_max.
        let mut sp = cubic(TcpVariant::NewReno);
        sp.initial_cwnd_segments = 200;
        sp.max_window_bytes = 400 * MSS;
        let mut s = TcpSender::new(&sp, AppSpec::Greedy);
        drain(&mut s, t(0));
        for _ in 0..3 {
            s.on_ack(t(100), 0, &[]);
        }
        drain(&mut s, t(100));
        s.on_ack(t(110), 200 * MSS as u64, &[]);
        assert_eq!(s.ssthresh(), 140 * MSS);
        let mut now = 110;
        let mut windows = Vec::new();
        while windows.len() < 60 {
            let segs = drain(&mut s, t(now));
            let n = segs.len() as u64;
            for (i, seg) in segs.into_iter().enumerate() {
                s.on_ack(t(now + 100 * i as u64 / n), seg.seq + seg.len as u64, &[]);
            }
            now += 100;
            if s.cwnd() >= s.ssthresh() {
                windows.push(s.cwnd() as f64 / MSS as f64);
            }
        }
        let per_round = |a: usize, b: usize| (windows[b] - windows[a]) / (b - a) as f64;
        assert!(per_round(0, 5) > 2.5, "{windows:?}");
        assert!(per_round(48, 53) < 0.5, "flat near K: {windows:?}");
        assert!((windows[53] - 200.0).abs() < 4.0, "{windows:?}");
    }

    /// A sender with ECN and `n` segments outstanding in avoidance.
    fn ecn_with_flight(sp: TcpSpec, n: u32) -> TcpSender {
        let mut sp = sp;
        sp.ecn = true;
        sp.initial_cwnd_segments = n;
        let mut s = TcpSender::new(&sp, AppSpec::Greedy);
        s.st.ssthresh = n * MSS;
        for seg in drain(&mut s, t(0)) {
            assert!(!seg.retransmit);
            assert_eq!(s.flags, ecn::ECT, "new data is ECN-capable");
        }
        s
    }

    #[test]
    fn ecn_echo_reduces_once_per_window_and_sets_cwr_on_the_next_new_segment() {
        let mut s = ecn_with_flight(spec(TcpVariant::Reno), 10);
        // The first ECE: ssthresh = cwnd = 5 MSS (halved), no growth for that ACK.
        s.on_ack_ecn(t(10), MSS as u64, &[], true);
        assert_eq!((s.ssthresh(), s.cwnd()), (5 * MSS, 5 * MSS));
        assert_eq!(s.stats().ecn_reductions, 1);
        // More ECEs for the same window (data sent before the reduction): no reduction.
        for i in 2..=9u64 {
            s.on_ack_ecn(t(10 + i), i * MSS as u64, &[], true);
        }
        assert_eq!(s.stats().ecn_reductions, 1);
        assert_eq!(s.stats().ece_acks, 9);
        assert_eq!(s.cwnd(), 5 * MSS, "no growth on an ECN-Echo");
        // The next new segment carries CWR, the one after it not.
        assert!(s.next_segment(t(20)).is_some());
        assert_eq!(s.segment_flags(), ecn::ECT | ecn::CWR);
        assert!(s.next_segment(t(20)).is_some());
        assert_eq!(s.segment_flags(), ecn::ECT);
        // An ECE on an ACK of data sent after the reduction: the next window's, reduced.
        s.on_ack_ecn(t(30), 11 * MSS as u64, &[], true);
        assert_eq!(s.stats().ecn_reductions, 2);
        assert_eq!(s.cwnd(), 2 * MSS, "5 halved, at least two segments");
        // Without ECE the window grows again.
        s.on_ack_ecn(t(31), 12 * MSS as u64, &[], false);
        assert!(s.cwnd() > 2 * MSS);
    }

    #[test]
    fn ecn_echo_with_cubic_reduces_by_beta_and_not_inside_loss_recovery() {
        let mut s = ecn_with_flight(cubic(TcpVariant::NewReno), 10);
        s.on_ack_ecn(t(10), MSS as u64, &[], true);
        assert_eq!((s.ssthresh(), s.cwnd()), (7 * MSS, 7 * MSS));
        // A loss recovery is a reduction for its window: an ECE during it does nothing.
        let mut s = ecn_with_flight(spec(TcpVariant::NewReno), 10);
        for _ in 0..3 {
            s.on_ack_ecn(t(5), 0, &[], false);
        }
        assert!(s.in_recovery());
        s.on_ack_ecn(t(6), 0, &[], true);
        s.on_ack_ecn(t(7), 2 * MSS as u64, &[], true);
        assert_eq!(s.stats().ecn_reductions, 0);
        assert_eq!(s.stats().fast_retransmits, 1);
        // A retransmission is not ECN-capable.
        let seg = s.next_segment(t(7)).unwrap();
        assert!(seg.retransmit);
        assert_eq!(s.segment_flags(), 0);
    }

    #[test]
    fn a_loss_in_a_window_already_reduced_for_ecn_keeps_ssthresh() {
        // 10 segments in flight, an ECE on the ACK of the first: ssthresh = cwnd = 5 MSS
        // (Reno) or 7 MSS (CUBIC). Segment 1, sent before that reduction, is lost: the fast
        // retransmit resends it and recovers, but ssthresh stays (RFC 3168 6.1.2: one
        // reduction per window of data); cwnd is set from it as each recovery does (Reno and
        // NewReno: ssthresh + 3 MSS for the three segments the duplicates say have left;
        // SACK: ssthresh, pipe governing; Tahoe: one segment, its slow start being its way
        // to resend).
        for (cc, kept) in [
            (crate::spec::CongestionControl::Reno, 5),
            (crate::spec::CongestionControl::Cubic, 7),
        ] {
            for (variant, cwnd) in [
                (TcpVariant::Tahoe, 1),
                (TcpVariant::Reno, kept + 3),
                (TcpVariant::NewReno, kept + 3),
                (TcpVariant::Sack, kept),
            ] {
                let mut sp = spec(variant);
                sp.congestion_control = cc;
                let mut s = ecn_with_flight(sp, 10);
                s.on_ack_ecn(t(10), MSS as u64, &[], true);
                assert_eq!(s.ssthresh(), kept * MSS, "{cc:?} {variant:?}");
                let w_max = s.cubic().map(|c| c.w_max());
                for i in 0..3u64 {
                    let block = [((2 + i) * MSS as u64, (3 + i) * MSS as u64)];
                    s.on_ack_ecn(t(11), MSS as u64, &block, false);
                }
                assert_eq!(s.stats().fast_retransmits, 1, "{cc:?} {variant:?}");
                assert_eq!(s.ssthresh(), kept * MSS, "kept: {cc:?} {variant:?}");
                assert_eq!(s.cwnd(), cwnd * MSS, "{cc:?} {variant:?}");
                assert_eq!(s.cubic().map(|c| c.w_max()), w_max, "no second CUBIC event");
                let seg = s.next_segment(t(11)).unwrap();
                assert!(
                    seg.retransmit && seg.seq == MSS as u64,
                    "{cc:?} {variant:?}"
                );
            }
        }
    }

    #[test]
    fn a_loss_after_the_one_charged_to_an_ecn_reduction_reduces_again() {
        // The held loss above is charged to the ECN reduction; a timeout during its recovery
        // (the retransmission lost) is a new instance of congestion: ssthresh from the window
        // in use (Reno's inflated 8 MSS: 4 MSS), cwnd one segment.
        let mut s = ecn_with_flight(spec(TcpVariant::Reno), 10);
        s.on_ack_ecn(t(10), MSS as u64, &[], true);
        for _ in 0..3 {
            s.on_ack_ecn(t(11), MSS as u64, &[], false);
        }
        assert_eq!((s.ssthresh(), s.cwnd()), (5 * MSS, 8 * MSS));
        drain(&mut s, t(11));
        let d = s.timer_deadline().unwrap();
        s.on_timer(d);
        assert_eq!((s.ssthresh(), s.cwnd()), (4 * MSS, MSS));
        // A loss of a segment sent after the reduction is the next window's: it reduces.
        let mut s = ecn_with_flight(spec(TcpVariant::Reno), 10);
        s.on_ack_ecn(t(10), MSS as u64, &[], true);
        s.on_ack_ecn(t(20), 10 * MSS as u64, &[], false);
        let sent = drain(&mut s, t(20)).len() as u32;
        assert!(sent >= 5, "{sent}");
        let cwnd = s.cwnd();
        for _ in 0..3 {
            s.on_ack_ecn(t(30), 10 * MSS as u64, &[], false);
        }
        assert_eq!(s.stats().fast_retransmits, 1);
        assert_eq!(s.ssthresh(), cwnd / 2 / MSS * MSS, "halved again");
    }

    #[test]
    fn a_timeout_in_a_window_reduced_for_ecn_keeps_ssthresh_but_collapses_cwnd() {
        // RFC 3168 6.1.2: one reduction per window; RFC 5681: after a timeout the sender
        // starts again from the loss window (one segment), its ACK clock gone.
        for variant in [TcpVariant::Reno, TcpVariant::Sack] {
            let mut s = ecn_with_flight(spec(variant), 10);
            s.on_ack_ecn(t(10), MSS as u64, &[], true);
            let d = s.timer_deadline().unwrap();
            s.on_timer(d);
            assert_eq!(s.stats().timeouts, 1);
            // Kept at 5 MSS, where halving the window in use (5 MSS) would give 2 MSS.
            assert_eq!((s.ssthresh(), s.cwnd()), (5 * MSS, MSS), "{variant:?}");
            // The retransmission lost too: a second timeout reduces (from one segment: two).
            drain(&mut s, d);
            let d = s.timer_deadline().unwrap();
            s.on_timer(d);
            assert_eq!((s.ssthresh(), s.cwnd()), (2 * MSS, MSS), "{variant:?}");
        }
    }

    #[test]
    fn without_ecn_an_echo_is_ignored_and_segments_carry_no_flags() {
        let mut s = with_flight(TcpVariant::Reno, 10);
        let before = s.cwnd();
        s.on_ack_ecn(t(10), MSS as u64, &[], true);
        assert!(s.cwnd() > before);
        assert_eq!(s.stats().ece_acks, 0);
        s.next_segment(t(10));
        assert_eq!(s.segment_flags(), 0);
    }

    /// Runs `s` over a path that acknowledges each segment on its own, `rtt(seq)` after the
    /// segment at `seq` was sent, until `until` ms; after every ACK (time, cwnd, ssthresh,
    /// in CSS).
    fn run_path(
        s: &mut TcpSender,
        until: u64,
        rtt: impl Fn(u64) -> SimTime,
    ) -> Vec<(SimTime, u32, u32, bool)> {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let mut acks = BinaryHeap::new();
        let mut out = Vec::new();
        let mut now = SimTime::ZERO;
        loop {
            while let Some(seg) = s.next_segment(now) {
                let end = seg.seq + seg.len as u64;
                acks.push(Reverse((now + rtt(seg.seq), end)));
            }
            let Some(Reverse((at, ack))) = acks.pop() else {
                break;
            };
            if at > t(until) {
                break;
            }
            now = at;
            s.on_ack(now, ack, &[]);
            let css = s
                .hystart()
                .is_some_and(|h| matches!(h.phase(), crate::tcp::hystart::Phase::Css { .. }));
            out.push((now, s.cwnd(), s.ssthresh(), css));
        }
        out
    }

    fn hystart_spec(on: bool) -> TcpSpec {
        let mut sp = spec(TcpVariant::Reno);
        sp.max_window_bytes = 4000 * MSS;
        sp.initial_ssthresh_bytes = 4000 * MSS;
        sp.hystart = on;
        sp
    }

    /// A path whose round trip is 100 ms up to segment 30 and 120 ms from there on.
    fn rtt_rises_at_segment_30(seq: u64) -> SimTime {
        if seq < 30 * MSS as u64 {
            t(100)
        } else {
            t(120)
        }
    }

    #[test]
    fn hystart_leaves_slow_start_on_a_rising_rtt_through_five_rounds_of_css() {
        // 100 ms round trips, 120 ms from segment 30 on. Slow start's rounds hold 1, 2, 4, 8,
        // 16, 32 segments (one ACK each); round 5 (segments 15-30) has the minimum 100 ms,
        // round 6's first eight ACKs (segments 31-38) 120 ms >= 100 + 12.5: CSS at the
        // eighth, cwnd 32 + 8 = 40 segments. CSS grows a quarter segment per ACK (x 1.25 per
        // round) through its partial round and four more, then ssthresh = cwnd.
        let path = rtt_rises_at_segment_30;
        let mut s = TcpSender::new(&hystart_spec(true), AppSpec::Greedy);
        let trace = run_path(&mut s, 1600, path);
        assert_eq!(s.stats().hystart_css_entries, 1);
        assert_eq!(s.stats().hystart_spurious_exits, 0);
        let first_css = trace.iter().position(|x| x.3).unwrap();
        assert_eq!(trace[first_css].1, 40 * MSS, "CSS at round 6's eighth ACK");
        assert_eq!(first_css, 31 + 8 - 1);
        // A quarter segment per ACK in CSS.
        assert_eq!(trace[first_css + 4].1 - trace[first_css].1, MSS);
        let (when, cwnd) = s.stats().hystart_avoidance.expect("CSS ended");
        assert!(s.hystart().is_none());
        // Round 6 ends at segment 62 with cwnd 40 + 24 / 4 = 46; rounds 7-10 grow x 1.25
        // each (46 x 1.25^4 = 112): avoidance at the first ACK of round 11.
        assert!((105 * MSS..=115 * MSS).contains(&cwnd), "{cwnd}");
        assert!(when < t(1300), "{when:?}");
        let after = trace.iter().find(|x| x.0 > when).unwrap();
        assert_eq!(after.2, cwnd, "ssthresh = cwnd");
        assert!(
            after.1 < cwnd + MSS,
            "congestion avoidance: about 1 MSS per round trip"
        );
        // Without HyStart++ slow start doubles on: 2,000 segments and more by then.
        let mut s = TcpSender::new(&hystart_spec(false), AppSpec::Greedy);
        let trace = run_path(&mut s, 1600, path);
        let before = trace.iter().rev().find(|x| x.0 <= when).unwrap();
        assert!(before.1 > 10 * cwnd, "{}", before.1);
        assert_eq!(s.stats().hystart_css_entries, 0);
    }

    #[test]
    fn hystart_returns_to_slow_start_when_the_rtt_falls_back() {
        // 120 ms for segments 30-69 only: CSS at round 6 (baseline 120 ms); round 7's
        // segments from 70 on are back at 100 ms, below the baseline: slow start again.
        let path = |seq: u64| {
            if (30 * MSS as u64..70 * MSS as u64).contains(&seq) {
                t(120)
            } else {
                t(100)
            }
        };
        let mut s = TcpSender::new(&hystart_spec(true), AppSpec::Greedy);
        let trace = run_path(&mut s, 1000, path);
        assert_eq!(s.stats().hystart_css_entries, 1);
        assert_eq!(s.stats().hystart_spurious_exits, 1);
        assert!(s.hystart().is_some(), "HyStart++ goes on");
        let last_css = trace.iter().rposition(|x| x.3).unwrap();
        // Slow start's one MSS per ACK after it.
        let (a, b) = (trace[last_css + 1].1, trace[last_css + 5].1);
        assert_eq!(b - a, 4 * MSS);
    }

    #[test]
    fn a_loss_in_css_ends_hystart_as_in_slow_start() {
        let path = rtt_rises_at_segment_30;
        let mut s = TcpSender::new(&hystart_spec(true), AppSpec::Greedy);
        run_path(&mut s, 700, path);
        assert_eq!(s.stats().hystart_css_entries, 1);
        assert!(matches!(
            s.hystart().unwrap().phase(),
            crate::tcp::hystart::Phase::Css { .. }
        ));
        let cwnd = s.cwnd();
        let una = s.snd_una();
        for _ in 0..3 {
            s.on_ack(t(701), una, &[]);
        }
        assert_eq!(s.stats().fast_retransmits, 1);
        assert_eq!(
            s.ssthresh(),
            cwnd / 2 / MSS * MSS,
            "Reno's halving of the window"
        );
        assert!(
            s.hystart().is_none(),
            "HyStart++ is for the initial slow start only"
        );
        assert_eq!(s.stats().hystart_avoidance, None);
    }

    #[test]
    fn hystart_limits_a_stretch_ack_to_eight_segments_of_growth() {
        // cwnd_growth = "per_segment": an ACK of 20 segments grows slow start by L = 8
        // segments with HyStart++, by 20 without.
        for (on, want) in [(true, 8), (false, 20)] {
            let mut sp = hystart_spec(on);
            sp.cwnd_growth = CwndGrowth::PerSegment;
            sp.initial_cwnd_segments = 20;
            let mut s = TcpSender::new(&sp, AppSpec::Greedy);
            assert_eq!(drain(&mut s, t(0)).len(), 20);
            s.on_ack(t(100), 20 * MSS as u64, &[]);
            assert_eq!(s.cwnd(), (20 + want) * MSS, "hystart {on}");
        }
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
                    1 => { let ack = s.snd_una() + x * MSS as u64; s.on_ack(t(now), ack.min(s.snd_max()), &[]); }
                    2 => { let a = s.snd_una(); s.on_ack(t(now), a, &[]); }
                    _ => { if let Some(d) = s.timer_deadline() { now = now.max(d.0 / 1_000_000_000); s.on_timer(d); } }
                }
                prop_assert!(s.cwnd() >= MSS);
                prop_assert!(s.snd_una() <= s.snd_nxt() && s.snd_nxt() <= s.snd_max());
            }
        }
    }
}
