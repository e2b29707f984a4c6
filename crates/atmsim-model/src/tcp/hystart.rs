//! HyStart++ (RFC 9406): leaving slow start when the round-trip time begins to rise, before
//! the queue it fills overflows, through a Conservative Slow Start (CSS) that checks the exit
//! was not spurious. An option of the sender (`tcp.hystart`) for every congestion control;
//! Linux uses it with CUBIC.
//!
//! - **Rounds**: a round ends when an ACK acknowledges `window_end`, the first byte sent after
//!   the round began (snd_nxt then); that ACK begins the next round, and `window_end` becomes
//!   snd_nxt (section 4.2: "When windowEnd is ACKed, the current round ends"). At the start of
//!   a round lastRoundMinRTT = currentRoundMinRTT, currentRoundMinRTT = infinity, and the
//!   sample count restarts.
//! - **Slow start** (4.2): every ACK grows cwnd by min(N, L x MSS), N the slow-start step the
//!   sender's `cwnd_growth` gives (one MSS per ACK, or one per segment acknowledged), L = 8
//!   (the sender does not pace), and adds its RTT sample to currentRoundMinRTT. Once a round
//!   has N_RTT_SAMPLE = 8 samples and both minima are known: if currentRoundMinRTT >=
//!   lastRoundMinRTT + clamp(lastRoundMinRTT / 8, 4 ms, 16 ms), slow start ends into CSS with
//!   cssBaselineMinRtt = currentRoundMinRTT. The minimum only falls as samples come, so the
//!   test can first succeed at the eighth sample of a round: in effect the minimum of its
//!   first eight ACKs is compared, as Linux's HyStart does; the whole round's minimum is the
//!   next round's lastRoundMinRTT.
//! - **CSS**: the growth per ACK is divided by CSS_GROWTH_DIVISOR = 4 (the fraction of a byte
//!   kept); once a CSS round has 8 samples, a currentRoundMinRTT below the baseline means the
//!   exit was spurious: back to slow start (with HyStart++). After CSS_ROUNDS = 5 rounds (the
//!   round CSS began in counting as one) the sender enters congestion avoidance with
//!   ssthresh = cwnd.
//! - **Congestion** (a loss, an ECN reduction, a timeout) in slow start or CSS is handled as
//!   it always is (the congestion control's ssthresh, the recovery's cwnd) and ends HyStart++
//!   for the connection: it runs in the initial slow start only (4.3), later slow starts are
//!   RFC 5681's. So does reaching ssthresh (a lower `initial_ssthresh`).
//!
//! RTT samples: one per ACK that acknowledges new data, the time since the newest segment it
//! covers was sent (section 4.2's "currRTT"), exact whatever the retransmission timer's
//! granularity (the estimator times one segment per round trip, on the slow timer's ticks in
//! the BSD configurations). Every segment HyStart++ sees is sent once: it ends at the first
//! congestion event, before any retransmission (Karn's rule holds by construction). The send
//! times of the segments in flight are kept in a ring sized once for the receiver window.

use atmsim_engine::SimTime;
use std::collections::VecDeque;

/// RFC 9406's lower bound of the delay increase that ends slow start.
pub const MIN_RTT_THRESH: SimTime = SimTime::from_ms(4);
/// RFC 9406's upper bound of the delay increase that ends slow start.
pub const MAX_RTT_THRESH: SimTime = SimTime::from_ms(16);
/// The delay increase is lastRoundMinRTT / MIN_RTT_DIVISOR, within the bounds.
pub const MIN_RTT_DIVISOR: u64 = 8;
/// RTT samples a round needs before its minimum is compared.
pub const N_RTT_SAMPLE: u32 = 8;
/// CSS grows cwnd this many times slower than slow start.
pub const CSS_GROWTH_DIVISOR: u32 = 4;
/// Rounds of CSS before congestion avoidance.
pub const CSS_ROUNDS: u32 = 5;
/// The most one ACK may grow cwnd by in slow start, in segments (the sender does not pace).
pub const L: u32 = 8;

const INFINITY: SimTime = SimTime(u64::MAX);

/// Where HyStart++ is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Slow start, watching the RTT.
    SlowStart,
    /// Conservative Slow Start since a delay increase; `rounds` counted so far (the one it
    /// began in included).
    Css { rounds: u32 },
}

/// What an ACK changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Nothing.
    None,
    /// The RTT rose: slow start ends into CSS.
    EnterCss,
    /// The RTT fell below CSS's baseline: back to slow start.
    ResumeSlowStart,
    /// CSS_ROUNDS rounds of CSS are over: congestion avoidance (ssthresh = cwnd).
    CssDone,
}

/// HyStart++'s state for one connection.
#[derive(Debug, Clone)]
pub struct HyStart {
    phase: Phase,
    /// The round ends when an ACK acknowledges this byte (`None`: before the first ACK).
    window_end: Option<u64>,
    last_round_min: SimTime,
    current_round_min: SimTime,
    samples: u32,
    css_baseline: SimTime,
    /// A fraction of a byte of CSS growth (in quarters of a byte) not yet added.
    css_frac: u32,
    /// The segments in flight: (sequence just past the end, when sent), in sequence order.
    sent: VecDeque<(u64, SimTime)>,
}

impl HyStart {
    /// HyStart++ for a connection whose window holds at most `max_window` bytes in segments of
    /// `mss` bytes (the ring of send times is sized for it once).
    pub fn new(max_window: u32, mss: u32) -> Self {
        HyStart {
            phase: Phase::SlowStart,
            window_end: None,
            last_round_min: INFINITY,
            current_round_min: INFINITY,
            samples: 0,
            css_baseline: INFINITY,
            css_frac: 0,
            sent: VecDeque::with_capacity((max_window / mss.max(1)) as usize + 2),
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The minimum RTT of the last complete round (`None`: no samples).
    pub fn last_round_min_rtt(&self) -> Option<SimTime> {
        (self.last_round_min != INFINITY).then_some(self.last_round_min)
    }

    /// The minimum RTT of the current round so far.
    pub fn current_round_min_rtt(&self) -> Option<SimTime> {
        (self.current_round_min != INFINITY).then_some(self.current_round_min)
    }

    /// A new segment ending before `end` left at `now`.
    pub fn on_sent(&mut self, end: u64, now: SimTime) {
        self.sent.push_back((end, now));
    }

    /// The RTT sample of an ACK of everything below `ack` arriving at `now`: the time since
    /// the newest segment it covers was sent (`None` if it covers none whole).
    pub fn sample(&mut self, ack: u64, now: SimTime) -> Option<SimTime> {
        let mut newest = None;
        while let Some(&(end, sent)) = self.sent.front() {
            if end > ack {
                break;
            }
            newest = Some(sent);
            self.sent.pop_front();
        }
        newest.map(|sent| now.saturating_sub(sent))
    }

    /// An ACK of new data up to `ack`, `snd_nxt` the next byte to send: begins a new round if
    /// it acknowledges `window_end`. Called before the ACK's growth; [`Change::CssDone`] when
    /// CSS's last round is over.
    pub fn on_ack_round(&mut self, ack: u64, snd_nxt: u64) -> Change {
        if self.window_end.is_some_and(|end| ack <= end) {
            return Change::None;
        }
        self.window_end = Some(snd_nxt);
        self.last_round_min = self.current_round_min;
        self.current_round_min = INFINITY;
        self.samples = 0;
        if let Phase::Css { rounds } = &mut self.phase {
            if *rounds >= CSS_ROUNDS {
                return Change::CssDone;
            }
            *rounds += 1;
        }
        Change::None
    }

    /// cwnd's growth for an ACK whose slow-start step is `n` bytes: min(n, L x MSS), divided
    /// by CSS_GROWTH_DIVISOR in CSS (the remainder carried to the next ACK).
    pub fn increase(&mut self, n: u32, mss: u32) -> u32 {
        let n = n.min(L.saturating_mul(mss));
        match self.phase {
            Phase::SlowStart => n,
            Phase::Css { .. } => {
                let q = n + self.css_frac;
                self.css_frac = q % CSS_GROWTH_DIVISOR;
                q / CSS_GROWTH_DIVISOR
            }
        }
    }

    /// The ACK's RTT sample (if any), after its growth: slow start's exit test or CSS's
    /// test of a spurious exit.
    pub fn on_sample(&mut self, rtt: Option<SimTime>) -> Change {
        if let Some(r) = rtt {
            self.current_round_min = self.current_round_min.min(r);
            self.samples += 1;
        }
        if self.samples < N_RTT_SAMPLE || self.current_round_min == INFINITY {
            return Change::None;
        }
        match self.phase {
            Phase::SlowStart => {
                if self.last_round_min == INFINITY {
                    return Change::None;
                }
                let thresh = SimTime(self.last_round_min.0 / MIN_RTT_DIVISOR)
                    .clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                if self.current_round_min >= self.last_round_min + thresh {
                    self.css_baseline = self.current_round_min;
                    self.phase = Phase::Css { rounds: 1 };
                    self.css_frac = 0;
                    return Change::EnterCss;
                }
                Change::None
            }
            Phase::Css { .. } => {
                if self.current_round_min < self.css_baseline {
                    self.css_baseline = INFINITY;
                    self.phase = Phase::SlowStart;
                    return Change::ResumeSlowStart;
                }
                Change::None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn ms(x: u64) -> SimTime {
        SimTime::from_ms(x)
    }

    /// A round of `n` ACKs of one segment each with RTT `rtt`, the first segment ending at
    /// `*seq` + MSS; the changes. Its first ACK begins the round (it acknowledges the last
    /// round's end), and snd_nxt then is the end of its last segment.
    fn round(h: &mut HyStart, seq: &mut u64, n: u32, rtt: SimTime) -> Vec<Change> {
        let mut out = Vec::new();
        let snd_nxt = *seq + n as u64 * MSS as u64;
        for _ in 0..n {
            *seq += MSS as u64;
            let c = h.on_ack_round(*seq, snd_nxt);
            if c != Change::None {
                out.push(c);
            }
            let c = h.on_sample(Some(rtt));
            if c != Change::None {
                out.push(c);
            }
        }
        out
    }

    #[test]
    fn the_delay_threshold_is_an_eighth_of_the_last_minimum_within_4_and_16_ms() {
        // lastRoundMinRTT 100 ms: threshold 12.5 ms. 112 ms stays in slow start, 112.5 exits.
        for (last, now, exits) in [
            (100, 112.0, false),
            (100, 112.5, true),
            // 20 ms: an eighth is 2.5 ms, raised to 4 ms.
            (20, 23.9, false),
            (20, 24.0, true),
            // 400 ms: an eighth is 50 ms, cut to 16 ms.
            (400, 415.9, false),
            (400, 416.0, true),
        ] {
            let mut h = HyStart::new(64 * MSS, MSS);
            let mut seq = 0;
            assert!(round(&mut h, &mut seq, 8, ms(last)).is_empty());
            let got = round(&mut h, &mut seq, 8, SimTime::from_secs_f64(now / 1e3));
            assert_eq!(got.contains(&Change::EnterCss), exits, "{last} -> {now}");
            assert_eq!(h.last_round_min_rtt(), Some(ms(last)));
        }
    }

    #[test]
    fn a_round_needs_eight_samples_and_a_known_last_minimum() {
        let mut h = HyStart::new(64 * MSS, MSS);
        let mut seq = 0;
        // The first round has no last minimum: no exit however large its RTT.
        assert!(round(&mut h, &mut seq, 8, ms(100)).is_empty());
        // Seven samples of 200 ms: not yet; the eighth decides.
        let snd_nxt = seq + 16 * MSS as u64;
        for i in 0..8 {
            seq += MSS as u64;
            assert_eq!(h.on_ack_round(seq, snd_nxt), Change::None);
            let c = h.on_sample(Some(ms(200)));
            let want = if i == 7 {
                Change::EnterCss
            } else {
                Change::None
            };
            assert_eq!(c, want, "sample {}", i + 1);
        }
        assert_eq!(h.phase(), Phase::Css { rounds: 1 });
        // An ACK without a sample counts nothing.
        let mut h = HyStart::new(64 * MSS, MSS);
        let mut seq = 0;
        round(&mut h, &mut seq, 8, ms(100));
        let snd_nxt = seq + 16 * MSS as u64;
        for _ in 0..20 {
            seq += MSS as u64;
            let _ = h.on_ack_round(seq, snd_nxt);
            assert_eq!(h.on_sample(None), Change::None);
        }
    }

    #[test]
    fn the_first_eight_samples_decide_a_round() {
        // 8 samples of 120 ms after a round at 100 ms exit (120 >= 112.5); a lower sample
        // later in the round cannot undo it, and one before the eighth prevents it.
        let mut h = HyStart::new(64 * MSS, MSS);
        let mut seq = 0;
        round(&mut h, &mut seq, 8, ms(100));
        let snd_nxt = seq + 32 * MSS as u64;
        let mut got = Vec::new();
        for rtt in [120, 120, 120, 101, 120, 120, 120, 120, 120] {
            seq += MSS as u64;
            let _ = h.on_ack_round(seq, snd_nxt);
            got.push(h.on_sample(Some(ms(rtt))));
        }
        assert!(!got.contains(&Change::EnterCss), "{got:?}");
        assert_eq!(h.current_round_min_rtt(), Some(ms(101)));
    }

    #[test]
    fn rounds_end_when_an_ack_acknowledges_the_round_end() {
        let mut h = HyStart::new(64 * MSS, MSS);
        // The first ACK begins round 1 (window_end = snd_nxt = 4 segments).
        assert_eq!(h.on_ack_round(1000, 4000), Change::None);
        let _ = h.on_sample(Some(ms(50)));
        // ACKs up to 4,000 stay in round 1.
        assert_eq!(h.on_ack_round(4000, 8000), Change::None);
        let _ = h.on_sample(Some(ms(40)));
        assert_eq!(h.last_round_min_rtt(), None);
        // 5,000 acknowledges byte 4,000: round 2 begins, round 1's minimum is the last.
        assert_eq!(h.on_ack_round(5000, 9000), Change::None);
        assert_eq!(h.last_round_min_rtt(), Some(ms(40)));
        assert_eq!(h.current_round_min_rtt(), None);
    }

    #[test]
    fn css_grows_a_quarter_as_fast_and_lasts_five_rounds() {
        let mut h = HyStart::new(64 * MSS, MSS);
        let mut seq = 0;
        round(&mut h, &mut seq, 8, ms(100));
        // Slow start's step: one MSS per ACK, at most L = 8 MSS for a stretch ACK.
        assert_eq!(h.increase(MSS, MSS), MSS);
        assert_eq!(h.increase(20 * MSS, MSS), 8 * MSS);
        assert_eq!(
            round(&mut h, &mut seq, 8, ms(120)),
            [Change::EnterCss],
            "the partial round counts as CSS round 1"
        );
        // A quarter of slow start's: 250 bytes per MSS, 2,000 for a stretch ACK; remainders
        // carried (three ACKs of 1,001 bytes: 250, 250, 250 and 3 quarters carried, then 251).
        assert_eq!(h.increase(MSS, MSS), 250);
        assert_eq!(h.increase(20 * MSS, MSS), 2000);
        let steps: Vec<u32> = (0..4).map(|_| h.increase(1001, MSS)).collect();
        assert_eq!(steps, [250, 250, 250, 251]);
        // Rounds 2-5 of CSS at the same RTT (not below the 120 ms baseline), then avoidance
        // at the first ACK of the sixth.
        for r in 2..=5 {
            assert!(round(&mut h, &mut seq, 8, ms(120)).is_empty(), "round {r}");
            assert_eq!(h.phase(), Phase::Css { rounds: r });
        }
        assert_eq!(round(&mut h, &mut seq, 1, ms(120)), [Change::CssDone]);
    }

    #[test]
    fn css_returns_to_slow_start_when_the_rtt_falls_below_its_baseline() {
        let mut h = HyStart::new(64 * MSS, MSS);
        let mut seq = 0;
        round(&mut h, &mut seq, 8, ms(100));
        assert_eq!(round(&mut h, &mut seq, 8, ms(120)), [Change::EnterCss]);
        // Baseline 120 ms. A CSS round at 119 ms: spurious, back to slow start at its
        // eighth sample.
        assert_eq!(
            round(&mut h, &mut seq, 8, ms(119)),
            [Change::ResumeSlowStart]
        );
        assert_eq!(h.phase(), Phase::SlowStart);
        assert_eq!(h.increase(MSS, MSS), MSS, "slow start's growth again");
        // HyStart++ goes on: a later rise exits again (119 + 14.9 ms).
        assert!(round(&mut h, &mut seq, 8, ms(119)).is_empty());
        assert_eq!(round(&mut h, &mut seq, 8, ms(134)), [Change::EnterCss]);
    }

    #[test]
    fn samples_time_the_newest_segment_an_ack_covers() {
        let mut h = HyStart::new(4 * MSS, MSS);
        for i in 0..4u64 {
            h.on_sent((i + 1) * MSS as u64, ms(10 * i));
        }
        // An ACK of segments 0 and 1 (delayed ACK) at 100 ms: segment 1 left at 10 ms.
        assert_eq!(h.sample(2 * MSS as u64, ms(100)), Some(ms(90)));
        // An ACK in the middle of segment 2 covers no whole segment.
        assert_eq!(h.sample(2500, ms(105)), None);
        assert_eq!(h.sample(4 * MSS as u64, ms(130)), Some(ms(100)));
        assert!(h.sent.is_empty());
        // The ring was sized once: 4 + 2 entries.
        assert!(h.sent.capacity() >= 6);
    }
}
