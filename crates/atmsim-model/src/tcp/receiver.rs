//! The receiving side: cumulative ACKs, out-of-order ranges, delayed ACK.
//!
//! Data beyond a hole is kept (the BSD reassembly queue) as sorted, disjoint byte ranges in a
//! vector that is reused, so steady state allocates nothing. With delayed ACK (RFC 1122
//! 4.2.3.2, RFC 5681 4.2) every second full in-order segment is ACKed at once (every
//! `ack_every`-th, or none when it is 0), the others after at most `delayed_ack` (that long
//! after the first segment held, or at the next tick of a periodic clock of that period);
//! out-of-order, duplicate and hole-filling data are ACKed at once so the sender's duplicate-ACK counting works.
//! With `delay_duplicate_acks` a segment beyond a hole is held by the same delayed-ACK rule
//! as an in-order one (it counts towards `ack_every` and starts or joins the wait), so its
//! duplicate ACK may never be sent on its own; duplicates of data already received and
//! segments that fill a hole are still ACKed at once.
//!
//! For the SACK variant each ACK also reports up to `sack_blocks` of the out-of-order ranges
//! (RFC 2018): the one holding the segment that arrived last first, then the others by how
//! recently a segment arrived in them, which repeats the most recently reported blocks as
//! RFC 2018 asks.

use crate::spec::{AckClock, TcpSpec, TcpVariant};
use atmsim_engine::SimTime;

/// What the receiver wants sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckAction {
    None,
    /// Send an ACK carrying this cumulative acknowledgement number.
    Now(u64),
}

#[derive(Debug, Clone)]
pub struct TcpReceiver {
    delayed_ack: Option<SimTime>,
    ack_every: u32,
    ack_clock_periodic: bool,
    /// The periodic clock's ticks fall at `ack_phase` + k x the wait.
    ack_phase: SimTime,
    keep_out_of_order: bool,
    /// [`TcpSpec::delay_duplicate_acks`].
    delay_duplicates: bool,
    rcv_nxt: u64,
    /// Out-of-order data above rcv_nxt: sorted, disjoint, non-adjacent [start, end).
    ooo: Vec<(u64, u64)>,
    /// For each range of `ooo`, when a segment last arrived in it (a counter).
    touched: Vec<u64>,
    arrivals: u64,
    /// SACK blocks reported per ACK (0: no SACK).
    sack_blocks: u8,
    /// In-order segments received since the last ACK.
    unacked: u32,
    ack_deadline: Option<SimTime>,
    bytes_received: u64,
    segments_received: u64,
    /// Segments that carried at least one byte not received before.
    segments_new: u64,
    /// ECN: set ECE on every ACK (a CE segment arrived, and no CWR since).
    ece: bool,
    /// ECN: segments that arrived Congestion Experienced.
    segments_ce: u64,
}

impl TcpReceiver {
    /// Moves the periodic ACK clock's ticks to `phase` + k x the wait (`phase` is taken
    /// modulo the wait); no effect without a periodic clock.
    pub fn set_ack_phase(&mut self, phase: SimTime) {
        if let Some(wait) = self.delayed_ack.filter(|w| w.0 > 0) {
            self.ack_phase = SimTime(phase.0 % wait.0);
        }
    }

    pub fn new(spec: &TcpSpec) -> Self {
        TcpReceiver {
            delayed_ack: spec.delayed_ack,
            ack_every: spec.ack_every,
            ack_clock_periodic: spec.ack_clock != AckClock::PerSegment,
            ack_phase: SimTime::ZERO,
            keep_out_of_order: spec.keep_out_of_order,
            delay_duplicates: spec.delay_duplicate_acks,
            rcv_nxt: 0,
            ooo: Vec::with_capacity(8),
            touched: Vec::with_capacity(8),
            arrivals: 0,
            sack_blocks: if spec.variant == TcpVariant::Sack {
                spec.sack_blocks.min(4)
            } else {
                0
            },
            unacked: 0,
            ack_deadline: None,
            bytes_received: 0,
            segments_received: 0,
            segments_new: 0,
            ece: false,
            segments_ce: 0,
        }
    }

    /// The ECN flags ([`super::ecn`]) of an arriving segment, before
    /// [`TcpReceiver::on_segment`]: CWR stops the echo, CE starts it (after CWR, so a CWR
    /// segment that is itself CE keeps it on; RFC 3168 6.1.3).
    pub fn on_ecn_flags(&mut self, flags: u8) {
        if flags & super::ecn::CWR != 0 {
            self.ece = false;
        }
        if flags & super::ecn::CE != 0 {
            self.ece = true;
            self.segments_ce += 1;
        }
    }

    /// The next ACK carries ECE.
    pub fn ece(&self) -> bool {
        self.ece
    }

    /// Segments that arrived Congestion Experienced.
    pub fn segments_ce(&self) -> u64 {
        self.segments_ce
    }

    fn ack_now(&mut self) -> AckAction {
        self.unacked = 0;
        self.ack_deadline = None;
        AckAction::Now(self.rcv_nxt)
    }

    /// An intact data segment arrived.
    pub fn on_segment(&mut self, now: SimTime, seq: u64, len: u32) -> AckAction {
        self.bytes_received += len as u64;
        self.segments_received += 1;
        let end = seq + len as u64;
        if end <= self.rcv_nxt {
            return self.ack_now(); // a duplicate
        }
        if seq > self.rcv_nxt && !self.keep_out_of_order {
            // Beyond a hole, discarded: a duplicate ACK.
            return self.duplicate_ack(now);
        }
        let start = seq.max(self.rcv_nxt);
        if !self.ooo.iter().any(|r| r.0 <= start && end <= r.1) {
            self.segments_new += 1;
        }
        if seq > self.rcv_nxt {
            self.insert(seq, end);
            return self.duplicate_ack(now); // out of order: a duplicate ACK
        }
        self.rcv_nxt = end;
        let filled_hole = !self.ooo.is_empty();
        self.pull_in_order();
        if filled_hole {
            return self.ack_now();
        }
        self.delayed(now)
    }

    /// The ACK of a segment beyond a hole: at once, or held as an in-order one with
    /// `delay_duplicate_acks`.
    fn duplicate_ack(&mut self, now: SimTime) -> AckAction {
        if self.delay_duplicates {
            self.delayed(now)
        } else {
            self.ack_now()
        }
    }

    /// The delayed-ACK rule: at once without delayed ACK or at the `ack_every`-th segment
    /// held, else held until the deadline.
    fn delayed(&mut self, now: SimTime) -> AckAction {
        match self.delayed_ack {
            None => self.ack_now(),
            Some(wait) => {
                self.unacked += 1;
                if self.ack_every != 0 && self.unacked >= self.ack_every {
                    self.ack_now()
                } else {
                    let due = if self.ack_clock_periodic {
                        // The next tick strictly after now: a wait in (0, wait]. With the
                        // phase below the wait, now + wait - phase cannot underflow.
                        let phase = self.ack_phase.0;
                        SimTime((now.0 + wait.0 - phase) / wait.0 * wait.0 + phase)
                    } else {
                        now + wait
                    };
                    self.ack_deadline.get_or_insert(due);
                    AckAction::None
                }
            }
        }
    }

    fn insert(&mut self, start: u64, end: u64) {
        let i = self.ooo.partition_point(|r| r.1 < start);
        let mut j = i;
        let (mut s, mut e) = (start, end);
        while j < self.ooo.len() && self.ooo[j].0 <= e {
            s = s.min(self.ooo[j].0);
            e = e.max(self.ooo[j].1);
            j += 1;
        }
        self.ooo.splice(i..j, std::iter::once((s, e)));
        self.arrivals += 1;
        self.touched.splice(i..j, std::iter::once(self.arrivals));
    }

    /// The SACK blocks of the ACK just produced, most recent first, into `out`; returns how
    /// many (0 without SACK or with nothing out of order).
    pub fn sack_blocks(&self, out: &mut [(u64, u64); 4]) -> usize {
        let want = (self.sack_blocks as usize).min(self.ooo.len());
        let mut last = u64::MAX;
        for slot in out.iter_mut().take(want) {
            // The most recently touched range older than the previous pick.
            let (k, &t) = self
                .touched
                .iter()
                .enumerate()
                .filter(|(_, &t)| t < last)
                .max_by_key(|(_, &t)| t)
                .expect("fewer picks than ranges");
            *slot = self.ooo[k];
            last = t;
        }
        want
    }

    fn pull_in_order(&mut self) {
        let n = self.ooo.iter().take_while(|r| r.0 <= self.rcv_nxt).count();
        for r in &self.ooo[..n] {
            self.rcv_nxt = self.rcv_nxt.max(r.1);
        }
        self.ooo.drain(..n);
        self.touched.drain(..n);
    }

    /// When a delayed ACK must go out (None when nothing is pending).
    pub fn ack_deadline(&self) -> Option<SimTime> {
        self.ack_deadline
    }

    /// The delayed-ACK timer fired (a no-op if nothing is due).
    pub fn on_ack_timer(&mut self, now: SimTime) -> AckAction {
        match self.ack_deadline {
            Some(d) if d <= now => self.ack_now(),
            _ => AckAction::None,
        }
    }

    /// Distinct in-order bytes delivered to the application.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }
    /// The out-of-order data kept above `rcv_nxt`: sorted, disjoint byte ranges [start, end).
    pub fn held(&self) -> &[(u64, u64)] {
        &self.ooo
    }
    /// Payload bytes of every intact segment, duplicates included.
    pub fn bytes_received(&self) -> u64 {
        self.bytes_received
    }
    pub fn segments_received(&self) -> u64 {
        self.segments_received
    }
    /// Intact segments that brought new data: each distinct packet counted once, however
    /// often it was retransmitted (Cheon & Panwar's effective throughput counts these).
    pub fn segments_new(&self) -> u64 {
        self.segments_new
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{CwndGrowth, RtoRestart};
    use proptest::prelude::*;

    fn spec(delayed: Option<SimTime>) -> TcpSpec {
        TcpSpec {
            variant: TcpVariant::Reno,
            mss_bytes: 100,
            max_window_bytes: 6400,
            timer_granularity: SimTime::ZERO,
            min_rto: SimTime::from_ms(1),
            max_rto: SimTime::from_secs(64),
            initial_rto: SimTime::from_secs(1),
            delayed_ack: delayed,
            ack_every: 2,
            ack_clock: AckClock::PerSegment,
            dupack_threshold: 3,
            recover_guard: true,
            initial_cwnd_segments: 1,
            cwnd_growth: CwndGrowth::PerAck,
            initial_ssthresh_bytes: 6400,
            keep_out_of_order: true,
            sack_blocks: 4,
            drop_at_cwnd: None,
            drop_count: 1,
            delay_duplicate_acks: false,
            fast_recovery_inflation: true,
            rto_restart: RtoRestart::NewAck,
            congestion_control: Default::default(),
            ecn: false,
            hystart: false,
        }
    }

    #[test]
    fn out_of_order_data_is_kept_and_acked_when_the_hole_fills() {
        let mut r = TcpReceiver::new(&spec(None));
        let t = SimTime::ZERO;
        assert_eq!(r.on_segment(t, 0, 100), AckAction::Now(100));
        assert_eq!(r.on_segment(t, 200, 100), AckAction::Now(100));
        assert_eq!(r.on_segment(t, 300, 100), AckAction::Now(100));
        assert_eq!(r.on_segment(t, 100, 100), AckAction::Now(400));
        assert_eq!(r.on_segment(t, 100, 100), AckAction::Now(400), "duplicate");
        assert_eq!(r.rcv_nxt(), 400);
        assert_eq!(r.bytes_received(), 500);
        assert_eq!(
            r.on_segment(t, 200, 100),
            AckAction::Now(400),
            "old duplicate"
        );
        assert_eq!(r.on_segment(t, 600, 100), AckAction::Now(400));
        assert_eq!(
            r.on_segment(t, 600, 100),
            AckAction::Now(400),
            "ooo duplicate"
        );
        assert_eq!(r.segments_received(), 8);
        assert_eq!(r.segments_new(), 5, "duplicates count once");
    }

    #[test]
    fn delayed_ack_every_second_segment_or_after_the_wait() {
        let wait = SimTime::from_us(12_500);
        let mut r = TcpReceiver::new(&spec(Some(wait)));
        let t0 = SimTime::from_ms(1);
        assert_eq!(r.on_segment(t0, 0, 100), AckAction::None);
        assert_eq!(r.ack_deadline(), Some(t0 + wait));
        assert_eq!(r.on_segment(t0, 100, 100), AckAction::Now(200));
        assert_eq!(r.ack_deadline(), None);
        assert_eq!(r.on_segment(t0, 200, 100), AckAction::None);
        assert_eq!(r.on_ack_timer(t0), AckAction::None, "not due yet");
        assert_eq!(r.on_ack_timer(t0 + wait), AckAction::Now(300));
        assert_eq!(r.on_ack_timer(t0 + wait), AckAction::None);
    }

    #[test]
    fn a_periodic_ack_clock_with_a_phase_ticks_at_phase_plus_whole_periods() {
        let wait = SimTime::from_us(12_500);
        let mut periodic = spec(Some(wait));
        periodic.ack_clock = AckClock::Periodic;
        let mut r = TcpReceiver::new(&periodic);
        // A phase beyond the wait is taken modulo it: 4 ms.
        r.set_ack_phase(SimTime::from_us(16_500));
        // Before the first tick: out at the phase itself.
        assert_eq!(r.on_segment(SimTime::from_ms(1), 0, 100), AckAction::None);
        assert_eq!(r.ack_deadline(), Some(SimTime::from_ms(4)));
        assert_eq!(r.on_ack_timer(SimTime::from_ms(4)), AckAction::Now(100));
        // Held at 5 ms: out at 4 + 12.5 ms; held exactly at that tick: a period later.
        assert_eq!(r.on_segment(SimTime::from_ms(5), 100, 100), AckAction::None);
        assert_eq!(r.ack_deadline(), Some(SimTime::from_us(16_500)));
        assert_eq!(
            r.on_ack_timer(SimTime::from_us(16_500)),
            AckAction::Now(200)
        );
        assert_eq!(
            r.on_segment(SimTime::from_us(16_500), 200, 100),
            AckAction::None
        );
        assert_eq!(r.ack_deadline(), Some(SimTime::from_us(29_000)));
    }

    #[test]
    fn a_periodic_ack_clock_holds_an_ack_until_its_next_tick() {
        let wait = SimTime::from_us(12_500);
        let mut periodic = spec(Some(wait));
        periodic.ack_clock = AckClock::Periodic;
        let mut r = TcpReceiver::new(&periodic);
        // Held at 1 ms: out at the 12.5 ms tick, 11.5 ms later, not 12.5 ms later.
        assert_eq!(r.on_segment(SimTime::from_ms(1), 0, 100), AckAction::None);
        assert_eq!(r.ack_deadline(), Some(wait));
        assert_eq!(r.on_ack_timer(wait), AckAction::Now(100));
        // Held exactly at a tick: out at the next one, a whole period later.
        assert_eq!(r.on_segment(wait, 100, 100), AckAction::None);
        assert_eq!(r.ack_deadline(), Some(SimTime::from_us(25_000)));
        // Every second segment still goes at once.
        assert_eq!(
            r.on_segment(SimTime::from_ms(13), 200, 100),
            AckAction::Now(300)
        );
        assert_eq!(r.ack_deadline(), None);
    }

    #[test]
    fn ack_every_sets_the_count_and_zero_leaves_it_to_the_timer() {
        let wait = SimTime::from_us(12_500);
        let t0 = SimTime::from_ms(1);
        let mut every3 = spec(Some(wait));
        every3.ack_every = 3;
        let mut r = TcpReceiver::new(&every3);
        assert_eq!(r.on_segment(t0, 0, 100), AckAction::None);
        assert_eq!(r.on_segment(t0, 100, 100), AckAction::None);
        assert_eq!(r.on_segment(t0, 200, 100), AckAction::Now(300));
        let mut timer_only = spec(Some(wait));
        timer_only.ack_every = 0;
        let mut r = TcpReceiver::new(&timer_only);
        for i in 0..50 {
            assert_eq!(r.on_segment(t0, i * 100, 100), AckAction::None);
        }
        assert_eq!(
            r.ack_deadline(),
            Some(t0 + wait),
            "the first unACKed segment sets it"
        );
        assert_eq!(
            r.on_segment(t0, 6000, 100),
            AckAction::Now(5000),
            "out of order: at once"
        );
        assert_eq!(
            r.on_ack_timer(t0 + wait),
            AckAction::None,
            "nothing pending"
        );
    }

    #[test]
    fn delayed_duplicate_acks_are_held_by_the_delayed_ack_rule() {
        let wait = SimTime::from_us(12_500);
        let t0 = SimTime::from_ms(1);
        let mut held = spec(Some(wait));
        held.delay_duplicate_acks = true;
        let mut r = TcpReceiver::new(&held);
        assert_eq!(r.on_segment(t0, 0, 100), AckAction::None);
        assert_eq!(r.on_segment(t0, 100, 100), AckAction::Now(200));
        // 200..300 lost: four segments beyond the hole give two duplicate ACKs, not four.
        let acks: Vec<_> = (3..7).map(|i| r.on_segment(t0, i * 100, 100)).collect();
        assert_eq!(
            acks,
            [
                AckAction::None,
                AckAction::Now(200),
                AckAction::None,
                AckAction::Now(200)
            ]
        );
        // A lone one waits for the timer, which sends the duplicate.
        assert_eq!(r.on_segment(t0, 700, 100), AckAction::None);
        assert_eq!(r.ack_deadline(), Some(t0 + wait));
        assert_eq!(r.on_ack_timer(t0 + wait), AckAction::Now(200));
        // Filling the hole and old duplicates are still ACKed at once.
        assert_eq!(r.on_segment(t0, 200, 100), AckAction::Now(800));
        assert_eq!(r.on_segment(t0, 0, 100), AckAction::Now(800));
        // Without delayed ACK the option changes nothing: every segment is ACKed.
        let mut plain = spec(None);
        plain.delay_duplicate_acks = true;
        let mut r = TcpReceiver::new(&plain);
        assert_eq!(r.on_segment(t0, 200, 100), AckAction::Now(0));
        // The default sends each duplicate at once.
        let mut r = TcpReceiver::new(&spec(Some(wait)));
        for i in 3..7 {
            assert_eq!(r.on_segment(t0, i * 100, 100), AckAction::Now(0));
        }
    }

    proptest! {
        /// Any arrival order of the same segments delivers all bytes exactly once.
        #[test]
        fn reassembly_delivers_everything(order in Just((0u64..30).collect::<Vec<_>>()).prop_shuffle(), dups in proptest::collection::vec(0u64..30, 0..10)) {
            let mut r = TcpReceiver::new(&spec(None));
            for &i in order.iter().chain(dups.iter()) {
                r.on_segment(SimTime::ZERO, i * 100, 100);
            }
            prop_assert_eq!(r.rcv_nxt(), 3000);
            prop_assert_eq!(r.segments_new(), 30);
            prop_assert!(r.ooo.is_empty());
        }
    }

    #[test]
    fn a_receiver_that_discards_out_of_order_data_keeps_only_in_order_bytes() {
        let spec = TcpSpec {
            keep_out_of_order: false,
            sack_blocks: 4,
            drop_at_cwnd: None,
            drop_count: 1,
            ..spec(None)
        };
        let mut r = TcpReceiver::new(&spec);
        let t = SimTime::ZERO;
        assert_eq!(r.on_segment(t, 0, 100), AckAction::Now(100));
        // 200..300 beyond the hole 100..200: discarded, a duplicate ACK.
        assert_eq!(r.on_segment(t, 200, 100), AckAction::Now(100));
        // Filling the hole does not bring 200..300 back: it must be sent again.
        assert_eq!(r.on_segment(t, 100, 100), AckAction::Now(200));
        assert_eq!(r.on_segment(t, 200, 100), AckAction::Now(300));
        assert_eq!(
            r.segments_new(),
            3,
            "the discarded copy counts once, when kept"
        );
    }
}
