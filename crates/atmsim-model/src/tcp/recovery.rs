//! Loss recovery: what a sender does on duplicate ACKs, on new ACKs while it recovers, and on
//! a retransmission timeout. Everything the variants share (sequence space, window growth,
//! the RTT estimator, the retransmission timer with backoff and Karn's rule) stays in
//! [`super::sender`].
//!
//! The sender lends its recovery a [`SendState`] (sequence space, cwnd, ssthresh) on every
//! event and carries out the [`Reaction`] it returns, in the manner of ns-3's TcpSocketState
//! with its recovery operations, or of smoltcp's congestion controllers. [`AnyRecovery`] is a
//! closed enum that dispatches by `match`: nothing is boxed or allocated per ACK.
//!
//! - [`tahoe`]: 4.3BSD-Tahoe: fast retransmit, then slow start from one segment.
//! - [`reno`]: 4.3BSD-Reno: fast retransmit and fast recovery (RFC 5681 3.2).
//! - [`new_reno`]: NewReno (RFC 6582): partial ACKs keep the sender in recovery.
//! - [`sack`]: SACK (RFC 6675): a scoreboard of the receiver's SACK blocks decides what to
//!   retransmit, and `pipe` how much may be in flight.
//!
//! # The `recover` guard
//!
//! Every variant records `recover`, the highest sequence sent, when a fast retransmit or a
//! timeout begins (RFC 6582 3.2 steps 2 and 4). With [`TcpSpec::recover_guard`] (the default)
//! the `dupack_threshold`-th duplicate ACK in a row starts a fast retransmit only once
//! snd_una has reached `recover` (RFC 6582 3.2 step 2, motivated in its section 4): losses of
//! a window already recovered from wait for the timer. The check refuses duplicates that
//! follow a Tahoe fast retransmit in the same window, duplicates left after a Reno recovery
//! that a partial ACK ended, and duplicates caused by go-back-N retransmissions of data the
//! receiver already holds after a timeout. NewReno stays in recovery until snd_una reaches
//! `recover`, so for it the check only ever refuses after a timeout.
//!
//! With `recover_guard = false` no variant consults `recover` before a fast retransmit:
//! - Tahoe and Reno behave as 4.3BSD-Tahoe and 4.3BSD-Reno, which had no such check: every
//!   `dupack_threshold`-th duplicate in a row outside recovery fast retransmits and halves
//!   ssthresh again, however often in one window.
//! - NewReno becomes the base algorithm of RFC 2582, the first NewReno specification, whose
//!   third-duplicate step had no such check (RFC 2582 also described variants that avoid
//!   these fast retransmits; RFC 3782 made its "Careful" one part of the algorithm, and RFC
//!   6582 kept it). `recover` still decides between partial and full ACKs, so a recovery runs
//!   as before; only duplicates after a timeout (the case of RFC 6582 section 4) can now start
//!   a fast retransmit before snd_una has reached the data sent before the timeout.
//!
//! # Adding a variant
//!
//! A new recovery is one file `recovery/NAME.rs` with a type implementing [`Recovery`], and
//! one line in the `recoveries!` list below: that line declares the module, the
//! [`AnyRecovery`] case and the [`TcpVariant`] it serves. Outside `tcp/`, the variant needs
//! its [`TcpVariant`] value in `spec.rs` and its scenario name (`TcpVariant` in
//! `atmsim-scenario/src/schema.rs`, mapped in `check_tcp` of `build.rs`). `sender.rs` does not
//! change as long as the variant acts through [`SendState`], [`Reaction`] and, to choose what
//! to send itself (as SACK does), [`Recovery::next_seg`] and [`Recovery::on_sent`]. The
//! receiver reports SACK blocks only for the SACK variant; the network carries them to
//! `TcpSender::on_ack`, which shows them to [`Recovery::on_sack`].

use super::cubic::Cubic;
use crate::spec::{CongestionControl, TcpSpec, TcpVariant};

/// What the sender lends its loss recovery: the sequence space and the congestion window.
#[derive(Debug, Clone)]
pub struct SendState {
    /// Maximum segment size [bytes].
    pub mss: u32,
    /// The receiver window, which caps cwnd [bytes].
    pub max_window: u32,
    /// First unacknowledged byte.
    pub snd_una: u64,
    /// Next byte to send.
    pub snd_nxt: u64,
    /// One past the highest byte ever sent.
    pub snd_max: u64,
    /// Slow-start threshold [bytes].
    pub ssthresh: u32,
    cwnd: u32,
    max_cwnd: u32,
    /// CUBIC's state, with [`CongestionControl::Cubic`] (`None`: Reno's growth and halving).
    pub cubic: Option<Box<Cubic>>,
    /// With ECN, snd_max at the last reduction for ECN-Echo, until a loss event has been
    /// charged to it (0: none): a loss of a segment below it belongs to the window already
    /// reduced, and [`SendState::reduce_ssthresh`] keeps ssthresh (RFC 3168 6.1.2).
    pub ecn_reduced_below: u64,
}

impl SendState {
    /// A fresh connection: nothing sent, cwnd at its initial value, ssthresh at its initial
    /// value (never above the receiver window).
    pub fn new(spec: &TcpSpec) -> Self {
        let mss = spec.mss_bytes.max(1);
        let max_window = spec.max_window_bytes.max(mss);
        let cwnd = (spec.initial_cwnd_segments.max(1) * mss).min(max_window);
        SendState {
            mss,
            max_window,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            ssthresh: spec.initial_ssthresh_bytes.clamp(mss, max_window),
            cwnd,
            max_cwnd: cwnd,
            cubic: match spec.congestion_control {
                CongestionControl::Reno => None,
                CongestionControl::Cubic => Some(Box::default()),
            },
            ecn_reduced_below: 0,
        }
    }

    /// Congestion window [bytes].
    pub fn cwnd(&self) -> u32 {
        self.cwnd
    }

    /// The largest cwnd so far [bytes].
    pub fn max_cwnd(&self) -> u32 {
        self.max_cwnd
    }

    /// Sets cwnd, kept between one MSS and the receiver window.
    pub fn set_cwnd(&mut self, c: u32) {
        self.cwnd = c.clamp(self.mss, self.max_window.max(self.mss));
        self.max_cwnd = self.max_cwnd.max(self.cwnd);
    }

    /// ssthresh after a congestion event (a loss, or an ECN-Echo): with Reno's congestion
    /// control half the window in use, at least two segments, in whole segments (4.3BSD
    /// `win = min(snd_wnd, snd_cwnd) / 2 / t_maxseg`; RFC 5681 equation 4); with CUBIC's
    /// β = 0.7 of it, at least two segments, and CUBIC records the event (RFC 9438 4.6).
    ///
    /// A loss (fast retransmit or timeout) of the segment at snd_una, when that segment was
    /// sent before the last ECN reduction and no loss has been charged to that reduction yet,
    /// keeps ssthresh: the window was already reduced for this window of data (RFC 3168
    /// 6.1.2: "reduced only once in response to a series of dropped and/or CE packets from a
    /// single window of data"). The loss is charged to the reduction, so a later loss (a
    /// retransmission lost, a timeout in the recovery) reduces again, as a new instance of
    /// congestion. The recovery then sets cwnd from the kept ssthresh as it always does.
    pub fn reduce_ssthresh(&mut self) {
        if self.snd_una < self.ecn_reduced_below {
            self.ecn_reduced_below = 0;
            return;
        }
        let in_use = self.cwnd.min(self.max_window);
        if let Some(c) = &mut self.cubic {
            self.ssthresh = c.on_congestion(in_use, self.mss);
            return;
        }
        let win = in_use / 2 / self.mss;
        self.ssthresh = win.max(2) * self.mss;
    }
}

/// What the sender must do after its recovery handled an event, beyond the [`SendState`]
/// changes the recovery made itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum Reaction {
    /// Nothing more.
    Nothing,
    /// A new ACK outside recovery: the sender's slow start or congestion avoidance applies.
    Grow,
    /// A fast retransmit began (RFC 5681 3.2 steps 2-3): resend the segment at snd_una before
    /// anything else, drop the RTT measurement in progress (Karn), and leave the timer off
    /// until that retransmission re-arms it.
    FastRetransmit,
    /// Resend the segment at snd_una before anything else (the hole a NewReno partial ACK
    /// points at, RFC 6582 3.2 step 3); the timer restarts as for any new ACK.
    Retransmit,
}

/// A loss-recovery algorithm. Each method acts on the state the sender lends it.
pub trait Recovery {
    /// The recovery a connection with these settings starts with.
    fn new(spec: &TcpSpec) -> Self
    where
        Self: Sized;

    /// An ACK for snd_una arrived while data is outstanding.
    fn on_dupack(&mut self, st: &mut SendState) -> Reaction;

    /// An ACK advanced snd_una by `acked` bytes; `st.snd_una` and `st.snd_nxt` are already
    /// updated.
    fn on_new_ack(&mut self, st: &mut SendState, acked: u32) -> Reaction;

    /// The retransmission timer expired. The sender then goes back to snd_una, forgets any
    /// pending retransmission and backs the timer off.
    fn on_timeout(&mut self, st: &mut SendState);

    /// Inside a fast-recovery episode (always false for Tahoe, which has none).
    fn in_recovery(&self) -> bool;

    /// The SACK blocks of an arriving ACK, before the ACK itself is handled.
    fn on_sack(&mut self, _st: &SendState, _blocks: &[(u64, u64)]) {}

    /// What to send next, for a recovery that chooses itself (SACK in loss recovery; asked
    /// only while [`Recovery::in_recovery`]); `None`: the sender's own rule (retransmission at snd_una if asked, else new data within
    /// the window).
    /// `new_data`: the sender has new data it may send (the application has some and the
    /// receiver window has room).
    fn next_seg(&mut self, _st: &SendState, _new_data: bool) -> Option<NextSeg> {
        None
    }

    /// A segment [`seq`, `seq` + `len`) was just sent; `retransmit`: its bytes had been sent
    /// before.
    fn on_sent(&mut self, _st: &SendState, _seq: u64, _len: u32, _retransmit: bool) {}
}

/// A recovery's choice of the next segment ([`Recovery::next_seg`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextSeg {
    /// Nothing now (no room in cwnd - pipe, or nothing to send).
    Hold,
    /// Retransmit from `seq`, at most `len` bytes.
    Retransmit { seq: u64, len: u32 },
    /// New data at snd_nxt (if the application and the receiver window allow).
    NewData,
}

/// Declares the variant modules, [`AnyRecovery`] with one case per variant, and its
/// dispatch: one line per variant, `Case(module::Type) = TcpVariant::Value`.
macro_rules! recoveries {
    ($( $(#[$doc:meta])* $case:ident($module:ident::$ty:ident) = $variant:path, )*) => {
        $( pub mod $module; )*

        /// The recovery of one connection, chosen by its [`TcpVariant`].
        #[derive(Debug, Clone)]
        pub enum AnyRecovery {
            $( $(#[$doc])* $case($module::$ty), )*
        }

        impl Recovery for AnyRecovery {
            fn new(spec: &TcpSpec) -> Self {
                match spec.variant {
                    $( $variant => AnyRecovery::$case($module::$ty::new(spec)), )*
                }
            }

            #[inline]
            fn on_dupack(&mut self, st: &mut SendState) -> Reaction {
                match self {
                    $( AnyRecovery::$case(r) => r.on_dupack(st), )*
                }
            }

            #[inline]
            fn on_new_ack(&mut self, st: &mut SendState, acked: u32) -> Reaction {
                match self {
                    $( AnyRecovery::$case(r) => r.on_new_ack(st, acked), )*
                }
            }

            #[inline]
            fn on_timeout(&mut self, st: &mut SendState) {
                match self {
                    $( AnyRecovery::$case(r) => r.on_timeout(st), )*
                }
            }

            #[inline]
            fn in_recovery(&self) -> bool {
                match self {
                    $( AnyRecovery::$case(r) => r.in_recovery(), )*
                }
            }

            #[inline]
            fn on_sack(&mut self, st: &SendState, blocks: &[(u64, u64)]) {
                match self {
                    $( AnyRecovery::$case(r) => r.on_sack(st, blocks), )*
                }
            }

            #[inline]
            fn next_seg(&mut self, st: &SendState, new_data: bool) -> Option<NextSeg> {
                match self {
                    $( AnyRecovery::$case(r) => r.next_seg(st, new_data), )*
                }
            }

            #[inline]
            fn on_sent(&mut self, st: &SendState, seq: u64, len: u32, retransmit: bool) {
                match self {
                    $( AnyRecovery::$case(r) => r.on_sent(st, seq, len, retransmit), )*
                }
            }
        }
    };
}

recoveries! {
    /// 4.3BSD-Tahoe.
    Tahoe(tahoe::Tahoe) = TcpVariant::Tahoe,
    /// 4.3BSD-Reno (RFC 5681).
    Reno(reno::Reno) = TcpVariant::Reno,
    /// RFC 6582.
    NewReno(new_reno::NewReno) = TcpVariant::NewReno,
    /// RFC 6675.
    Sack(sack::Sack) = TcpVariant::Sack,
}

/// The duplicate-ACK count and RFC 6582's `recover`, as every variant here keeps them.
#[derive(Debug, Clone)]
pub struct DupAcks {
    threshold: u32,
    guard: bool,
    count: u32,
    recover: Option<u64>,
}

impl DupAcks {
    pub fn new(spec: &TcpSpec) -> Self {
        DupAcks {
            threshold: spec.dupack_threshold,
            guard: spec.recover_guard,
            count: 0,
            recover: None,
        }
    }

    /// Counts one duplicate ACK.
    pub fn count(&mut self) {
        self.count += 1;
    }

    /// This duplicate is the threshold-th in a row (never, with a threshold of 0).
    pub fn at_threshold(&self) -> bool {
        self.threshold > 0 && self.count == self.threshold
    }

    /// Duplicate ACKs can start a recovery (the threshold is not 0).
    pub fn threshold_enabled(&self) -> bool {
        self.threshold > 0
    }

    /// More duplicates in a row than the threshold.
    pub fn past_threshold(&self) -> bool {
        self.count > self.threshold
    }

    /// A fast retransmit may begin: without the guard always, with it once snd_una has
    /// reached `recover` (RFC 6582 3.2 step 2).
    pub fn may_fast_retransmit(&self, st: &SendState) -> bool {
        !self.guard || self.recover.is_none_or(|r| st.snd_una >= r)
    }

    /// A fast retransmit or a timeout begins: `recover` = the highest sequence sent.
    pub fn mark_recover(&mut self, st: &SendState) {
        self.recover = Some(st.snd_max);
    }

    /// `recover`, once a fast retransmit or timeout has set it.
    pub fn recover(&self) -> Option<u64> {
        self.recover
    }

    /// A new ACK or a timeout ends the run of duplicates.
    pub fn reset(&mut self) {
        self.count = 0;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::spec::{AckClock, AppSpec, CwndGrowth, RtoRestart};
    use crate::tcp::sender::TcpSender;
    use atmsim_engine::SimTime;
    use proptest::prelude::*;

    pub const MSS: u32 = 1000;

    pub fn spec(variant: TcpVariant, guard: bool) -> TcpSpec {
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
            ack_clock: AckClock::PerSegment,
            dupack_threshold: 3,
            recover_guard: guard,
            initial_cwnd_segments: 1,
            cwnd_growth: CwndGrowth::PerAck,
            initial_ssthresh_bytes: 64 * MSS,
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

    /// A state with `n` segments outstanding, cwnd = `n` MSS and ssthresh at the same value
    /// (congestion avoidance).
    pub fn state_with_flight(n: u32) -> SendState {
        let mut st = SendState::new(&spec(TcpVariant::Reno, true));
        st.set_cwnd(n * MSS);
        st.ssthresh = n * MSS;
        st.snd_nxt = (n * MSS) as u64;
        st.snd_max = st.snd_nxt;
        st
    }

    /// A sender that has sent `n` segments with cwnd = `n` MSS.
    pub fn sender_with_flight(variant: TcpVariant, guard: bool, n: u32) -> TcpSender {
        let mut sp = spec(variant, guard);
        sp.initial_cwnd_segments = n;
        let mut s = TcpSender::new(&sp, AppSpec::Greedy);
        let sent = std::iter::from_fn(|| s.next_segment(SimTime::ZERO)).count();
        assert_eq!(sent, n as usize);
        s
    }

    /// What the sender does before `on_new_ack`: advance snd_una (and snd_nxt) to `ack`.
    pub fn new_ack(r: &mut impl Recovery, st: &mut SendState, ack: u64) -> Reaction {
        let acked = (ack - st.snd_una) as u32;
        st.snd_una = ack;
        st.snd_nxt = st.snd_nxt.max(ack);
        r.on_new_ack(st, acked)
    }

    /// Sends `n` duplicates; the reactions.
    pub fn dupacks(r: &mut impl Recovery, st: &mut SendState, n: usize) -> Vec<Reaction> {
        (0..n).map(|_| r.on_dupack(st)).collect()
    }

    #[test]
    fn each_variant_gets_its_own_recovery() {
        for v in [
            TcpVariant::Tahoe,
            TcpVariant::Reno,
            TcpVariant::NewReno,
            TcpVariant::Sack,
        ] {
            let r = AnyRecovery::new(&spec(v, true));
            let matching = matches!(
                (v, &r),
                (TcpVariant::Tahoe, AnyRecovery::Tahoe(_))
                    | (TcpVariant::Reno, AnyRecovery::Reno(_))
                    | (TcpVariant::NewReno, AnyRecovery::NewReno(_))
                    | (TcpVariant::Sack, AnyRecovery::Sack(_))
            );
            assert!(matching, "{v:?}: {r:?}");
            assert!(!r.in_recovery());
        }
    }

    #[test]
    fn halving_keeps_whole_segments_and_at_least_two() {
        let mut st = state_with_flight(9);
        st.reduce_ssthresh();
        assert_eq!(st.ssthresh, 4 * MSS);
        st.set_cwnd(MSS);
        st.reduce_ssthresh();
        assert_eq!(st.ssthresh, 2 * MSS);
    }

    #[test]
    fn cwnd_stays_between_one_mss_and_the_receiver_window() {
        let mut st = state_with_flight(4);
        st.set_cwnd(0);
        assert_eq!(st.cwnd(), MSS);
        st.set_cwnd(u32::MAX);
        assert_eq!(st.cwnd(), 64 * MSS);
        st.set_cwnd(2 * MSS);
        assert_eq!(st.max_cwnd(), 64 * MSS, "the largest value is remembered");
    }

    #[test]
    fn a_zero_threshold_never_fast_retransmits() {
        for v in [
            TcpVariant::Tahoe,
            TcpVariant::Reno,
            TcpVariant::NewReno,
            TcpVariant::Sack,
        ] {
            let mut sp = spec(v, false);
            sp.dupack_threshold = 0;
            let mut r = AnyRecovery::new(&sp);
            let mut st = state_with_flight(8);
            let got = dupacks(&mut r, &mut st, 10);
            assert!(
                got.iter().all(|&x| x == Reaction::Nothing),
                "{v:?}: {got:?}"
            );
            assert_eq!(st.cwnd(), 8 * MSS);
        }
    }

    fn t(ms: u64) -> SimTime {
        SimTime::from_ms(ms)
    }

    proptest! {
        /// Any sequence of sends, new ACKs, duplicate ACKs and timeouts, for every variant with
        /// and without the guard: cwnd stays within [1 MSS, receiver window], ssthresh at two
        /// segments or more, snd_una <= snd_nxt <= snd_max, a fast retransmit needs
        /// `dupack_threshold` duplicates in a row since the last new ACK, timeout or fast
        /// retransmit, and with the guard none begins before snd_una reaches the highest
        /// sequence sent when the last one or the last timeout began.
        #[test]
        fn every_variant_keeps_its_invariants_with_and_without_the_guard(
            ops in proptest::collection::vec((0u8..5, 0u64..12), 1..300),
            v in 0u8..4,
            guard: bool,
        ) {
            let variant = [TcpVariant::Tahoe, TcpVariant::Reno, TcpVariant::NewReno, TcpVariant::Sack][v as usize];
            let mut s = TcpSender::new(&spec(variant, guard), AppSpec::Greedy);
            let mut now = 0u64;
            let mut run = 0u32; // duplicates in a row the sender has seen
            let mut recover: Option<u64> = None; // snd_max at the last fast retransmit or timeout
            for (op, x) in ops {
                now += 1;
                let (una, max, frs) = (s.snd_una(), s.snd_max(), s.stats().fast_retransmits);
                match op {
                    0 | 1 => {
                        while s.next_segment(t(now)).is_some() {}
                    }
                    2 | 3 => {
                        let ack = if op == 2 { (una + x * MSS as u64).min(max) } else { una };
                        s.on_ack(t(now), ack, &[]);
                        if ack > una {
                            run = 0;
                        } else if max > una {
                            run += 1;
                        }
                    }
                    _ => {
                        if let Some(d) = s.timer_deadline() {
                            now = now.max(d.0 / 1_000_000_000);
                            s.on_timer(d);
                            run = 0;
                            recover = Some(max);
                        }
                    }
                }
                let fr = s.stats().fast_retransmits - frs;
                prop_assert!(fr <= 1);
                if fr == 1 {
                    prop_assert!(run >= 3, "fast retransmit after {} duplicates", run);
                    if guard {
                        prop_assert!(recover.is_none_or(|r| una >= r), "guard ignored");
                    }
                    run = 0;
                    recover = Some(max);
                }
                prop_assert!(s.cwnd() >= MSS && s.cwnd() <= 64 * MSS);
                prop_assert!(s.ssthresh() >= 2 * MSS);
                prop_assert!(s.snd_una() <= s.snd_nxt() && s.snd_nxt() <= s.snd_max());
            }
        }
    }
}
