//! CUBIC congestion control (RFC 9438), the window growth of today's Linux, Windows and macOS
//! TCPs, beside Reno's (RFC 5681) in the sender ([`crate::spec::CongestionControl`]).
//!
//! CUBIC replaces two things of Reno's and nothing else: the window after a congestion event
//! and the growth in congestion avoidance. Slow start (below ssthresh) and the loss recovery
//! (Tahoe, Reno, NewReno, SACK: which segment to resend, fast recovery's inflation, cwnd = one
//! segment after a timeout) stay the sender's and the variant's.
//!
//! - **A congestion event** (a fast retransmit, a timeout, an ECN-Echo that reduces; RFC 9438
//!   4.6): ssthresh = β x cwnd (β = 0.7, at least two segments), where Reno halves; the
//!   recovery then sets cwnd from ssthresh as it always does. W_max, the window at the event,
//!   is remembered, lowered to cwnd (1 + β) / 2 when the window did not get back to the
//!   previous W_max (fast convergence, 4.7).
//! - **Congestion avoidance** (4.2-4.5): an epoch starts at the first ACK in avoidance after
//!   the event, with cwnd_epoch the window then and K = cbrt((W_max - cwnd_epoch) / C) the time
//!   the cubic W_cubic(t) = C (t - K)^3 + W_max (C = 0.4, W in segments, t in seconds since
//!   the epoch began) takes to climb back to W_max: concave below it, a plateau near it, convex
//!   beyond. At each new ACK the target is W_cubic(t + RTT) (the smoothed RTT), clamped to
//!   [cwnd, 1.5 cwnd], and cwnd grows by (target - cwnd) / cwnd per segment acknowledged (the
//!   bytes acknowledged over the MSS: byte counting, so delayed ACKs do not slow it).
//! - **The Reno-friendly region** (4.3): W_est, a Reno window, starts at cwnd_epoch and grows
//!   by α x segments acknowledged / cwnd per ACK, α = 3 (1 - β) / (1 + β) until W_est reaches
//!   the window before the last reduction, then 1. While W_cubic(t) < W_est (a small RTT or
//!   BDP, where Reno grows faster), cwnd follows W_est. This model never lowers cwnd there
//!   (cwnd = max(cwnd, W_est)): a window above W_est stays until the next event.
//! - **A timeout** (4.8): ssthresh as for any event; in the first avoidance epoch after it
//!   K = 0 and W_max = W_est = the window when the epoch begins.
//!
//! HyStart++ (RFC 9406), the exit from the initial slow start on a rising RTT that Linux pairs
//! with CUBIC, is the sender's option for either congestion control ([`super::hystart`]).
//!
//! cwnd stays in bytes in the sender; CUBIC reckons in segments (f64) and keeps the fraction
//! of a byte its increments leave, so many small steps add up exactly. Times are [`SimTime`];
//! the cubic's t is their difference in seconds.

use atmsim_engine::SimTime;

/// RFC 9438's constant C [segments / s^3].
pub const C: f64 = 0.4;
/// RFC 9438's multiplicative decrease factor β_cubic.
pub const BETA: f64 = 0.7;

/// The state of one connection's CUBIC.
#[derive(Debug, Clone)]
pub struct Cubic {
    c: f64,
    beta: f64,
    fast_convergence: bool,
    /// The window before the last congestion event's reduction, after fast convergence
    /// [segments]; 0 before any event.
    w_max: f64,
    /// The window at the last congestion event, before the reduction [segments]
    /// (RFC 9438's cwnd_prior, which switches α to 1).
    cwnd_prior: f64,
    /// The current avoidance epoch began at this time (`None`: the next ACK in avoidance
    /// starts one).
    epoch_start: Option<SimTime>,
    /// The time W_cubic takes to reach W_max from the epoch's start [s].
    k: f64,
    /// The Reno-friendly estimate [segments].
    w_est: f64,
    /// The last event was a timeout: the next epoch has K = 0, W_max = its first window.
    after_timeout: bool,
    /// A fraction of a byte of growth not yet added to cwnd.
    frac: f64,
}

impl Default for Cubic {
    fn default() -> Self {
        Cubic::new(C, BETA, true)
    }
}

impl Cubic {
    /// A CUBIC with constant `c`, decrease factor `beta` and fast convergence on or off.
    pub fn new(c: f64, beta: f64, fast_convergence: bool) -> Self {
        Cubic {
            c,
            beta,
            fast_convergence,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch_start: None,
            k: 0.0,
            w_est: 0.0,
            after_timeout: false,
            frac: 0.0,
        }
    }

    /// W_cubic(t) = C (t - K)^3 + W_max [segments], `t` in seconds since the epoch began.
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.c * (t - self.k).powi(3) + self.w_max
    }

    /// K [s] of the current epoch.
    pub fn k(&self) -> f64 {
        self.k
    }

    /// When the current avoidance epoch began (`None` until the first ACK in avoidance
    /// after a congestion event).
    pub fn epoch_start(&self) -> Option<SimTime> {
        self.epoch_start
    }

    /// W_max [segments].
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// The Reno-friendly estimate W_est [segments].
    pub fn w_est(&self) -> f64 {
        self.w_est
    }

    /// α_cubic: 3 (1 - β) / (1 + β) until W_est has reached the window before the last
    /// reduction, then 1 (RFC 9438 4.3).
    fn alpha(&self) -> f64 {
        if self.w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - self.beta) / (1.0 + self.beta)
        }
    }

    /// A congestion event with the window at `cwnd` bytes: records W_max (fast convergence)
    /// and returns ssthresh, β x cwnd (to the byte), at least two segments [bytes] (RFC
    /// 9438 4.6, 4.7).
    pub fn on_congestion(&mut self, cwnd: u32, mss: u32) -> u32 {
        let w = cwnd as f64 / mss as f64;
        self.w_max = if self.fast_convergence && w < self.w_max {
            w * (1.0 + self.beta) / 2.0
        } else {
            w
        };
        self.cwnd_prior = w;
        self.epoch_start = None;
        self.frac = 0.0;
        ((cwnd as f64 * self.beta).round() as u32).max(2 * mss)
    }

    /// The retransmission timer expired (after [`Cubic::on_congestion`] set ssthresh): the
    /// first epoch after it starts with K = 0 (RFC 9438 4.8).
    pub fn on_timeout(&mut self) {
        self.after_timeout = true;
        self.epoch_start = None;
    }

    /// A new ACK of `acked` bytes in congestion avoidance at `now`, with the window at `cwnd`
    /// bytes and the smoothed RTT `rtt`: the new window [bytes], never below `cwnd`.
    pub fn on_ack(&mut self, now: SimTime, acked: u32, cwnd: u32, mss: u32, rtt: SimTime) -> u32 {
        let m = mss as f64;
        let w = cwnd as f64 / m;
        let start = match self.epoch_start {
            Some(s) => s,
            None => {
                if self.after_timeout || w >= self.w_max {
                    // After a timeout (4.8), or above the last W_max (no event yet, or a
                    // window grown past it in slow start): the plateau is here.
                    self.w_max = w;
                    self.k = 0.0;
                    self.after_timeout = false;
                } else {
                    self.k = ((self.w_max - w) / self.c).cbrt();
                }
                self.w_est = w;
                self.epoch_start = Some(now);
                now
            }
        };
        let t = secs(now.saturating_sub(start));
        let segs = acked as f64 / m;
        self.w_est += self.alpha() * segs / w;
        if self.w_cubic(t) < self.w_est {
            // The Reno-friendly region: the window is W_est (an absolute value, so no
            // fraction is carried).
            self.frac = 0.0;
            let est = (self.w_est * m).floor().min(u32::MAX as f64) as u32;
            return cwnd.max(est);
        }
        let target = self.w_cubic(t + secs(rtt)).clamp(w, 1.5 * w);
        let grow = (target - w) / w * segs * m + self.frac;
        let bytes = grow.floor();
        self.frac = grow - bytes;
        cwnd.saturating_add(bytes.min(u32::MAX as f64) as u32)
    }
}

/// A time in seconds.
fn secs(t: SimTime) -> f64 {
    t.0 as f64 / SimTime::from_secs(1).0 as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn k_and_w_cubic_match_the_hand_computation() {
        // A loss at 100 segments: W_max = 100, the window after the reduction 70 segments,
        // K = cbrt(100 x 0.3 / 0.4) = cbrt(75) = 4.21716 s.
        let mut c = Cubic::default();
        assert_eq!(c.on_congestion(100 * MSS, MSS), 70 * MSS);
        let _ = c.on_ack(SimTime::ZERO, MSS, 70 * MSS, MSS, SimTime::ZERO);
        assert!(close(c.k(), 4.217_163, 1e-6), "K = {}", c.k());
        // W_cubic(0) = 0.4 x (-4.21716)^3 + 100 = -30 + 100 = 70 (the reduced window).
        assert!(close(c.w_cubic(0.0), 70.0, 1e-9));
        // W_cubic(K) = W_max = 100.
        assert!(close(c.w_cubic(c.k()), 100.0, 1e-9));
        // W_cubic(2 s) = 0.4 x (2 - 4.21716)^3 + 100 = 0.4 x -10.8986 + 100 = 95.6406.
        assert!(close(c.w_cubic(2.0), 95.640_6, 1e-3), "{}", c.w_cubic(2.0));
        // W_cubic(6 s) = 0.4 x (1.78284)^3 + 100 = 0.4 x 5.66686 + 100 = 102.2667.
        assert!(close(c.w_cubic(6.0), 102.266_7, 1e-3), "{}", c.w_cubic(6.0));
    }

    #[test]
    fn the_reduction_is_beta_of_the_window_and_at_least_two_segments() {
        let mut c = Cubic::default();
        assert_eq!(c.on_congestion(40 * MSS, MSS), 28 * MSS);
        assert_eq!(c.on_congestion(10_500, MSS), 7_350);
        assert_eq!(c.on_congestion(2 * MSS, MSS), 2 * MSS, "0.7 x 2 is below 2");
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_the_window_did_not_get_back() {
        let mut c = Cubic::default();
        let _ = c.on_congestion(100 * MSS, MSS);
        assert_eq!(c.w_max(), 100.0);
        // The next event at 80 segments, below W_max 100: W_max = 80 x 1.7 / 2 = 68.
        let _ = c.on_congestion(80 * MSS, MSS);
        assert!(close(c.w_max(), 68.0, 1e-9));
        // At 90 segments, above 68: W_max = 90.
        let _ = c.on_congestion(90 * MSS, MSS);
        assert_eq!(c.w_max(), 90.0);
        // Without fast convergence, W_max is the window at the event.
        let mut c = Cubic::new(C, BETA, false);
        let _ = c.on_congestion(100 * MSS, MSS);
        let _ = c.on_congestion(80 * MSS, MSS);
        assert_eq!(c.w_max(), 80.0);
    }

    /// Runs `rounds` round trips of `rtt` in avoidance from window `w0` (segments), one ACK
    /// per segment; the window at the end of each round [segments].
    fn run(c: &mut Cubic, w0: u32, rtt: SimTime, rounds: u32) -> Vec<f64> {
        let mut cwnd = w0 * MSS;
        let mut now = SimTime::ZERO;
        let mut out = Vec::new();
        for _ in 0..rounds {
            let n = cwnd / MSS;
            for i in 0..n {
                let at = now + SimTime(rtt.0 * i as u64 / n as u64);
                cwnd = c.on_ack(at, MSS, cwnd, MSS, rtt);
            }
            now += rtt;
            out.push(cwnd as f64 / MSS as f64);
        }
        out
    }

    #[test]
    fn growth_is_concave_then_flat_near_w_max_then_convex() {
        // A long RTT (100 ms), W_max 100: the cubic region. K = 4.217 s = 42 round trips.
        let mut c = Cubic::default();
        let ss = c.on_congestion(100 * MSS, MSS);
        let w = run(&mut c, ss / MSS, SimTime::from_ms(100), 80);
        let grow = |i: usize| w[i] - w[i - 5];
        // Concave: growth per 5 rounds falls towards K; flat at K; rises after.
        assert!(grow(10) > grow(25) && grow(25) > grow(42), "{w:?}");
        assert!(grow(70) > grow(55) && grow(55) > grow(45), "{w:?}");
        // At K (round 42, t + RTT) the window is within 1% of W_max.
        assert!(close(w[41], 100.0, 1.0), "{}", w[41]);
        // It tracks W_cubic(t): the target is W_cubic one RTT ahead and each round trip
        // closes most of the gap to it. At 2 s, W_cubic(2) = 95.64 (W_cubic(2.1) = 96.20).
        assert!(
            close(w[19], c.w_cubic(2.0), 0.3),
            "{} vs {}",
            w[19],
            c.w_cubic(2.0)
        );
    }

    #[test]
    fn target_is_clamped_to_one_and_a_half_windows() {
        // Far into the convex region W_cubic races ahead; the window can at most grow by half
        // a window per round trip.
        let mut c = Cubic::default();
        let _ = c.on_congestion(20 * MSS, MSS);
        let mut cwnd = 14 * MSS;
        cwnd = c.on_ack(SimTime::ZERO, MSS, cwnd, MSS, SimTime::from_ms(100));
        // 30 s later W_cubic is 0.4 x (30 - 2.4)^3 + 20 = ~8,430: target = 1.5 cwnd.
        let before = cwnd;
        let after = c.on_ack(
            SimTime::from_secs(30),
            MSS,
            cwnd,
            MSS,
            SimTime::from_ms(100),
        );
        // (1.5 w - w) / w per segment acknowledged = half a segment (to the byte).
        assert!(
            (MSS / 2 - 1..=MSS / 2).contains(&(after - before)),
            "{}",
            after - before
        );
    }

    #[test]
    fn the_reno_friendly_region_takes_over_at_small_rtt() {
        // 1 ms RTT, W_max 20: the cubic needs K = cbrt(20 x 0.3 / 0.4) = 2.466 s = 2,466
        // round trips to get back; W_est adds α = 3 x 0.3 / 1.7 = 0.529 segment per round
        // trip until it reaches 20 (6 / 0.529 = 11.3 rounds), then 1: after 100 round trips
        // about 20 + 88.7 = 108.7 segments, far above W_cubic(0.1 s) = 0.4 x (0.1 -
        // 2.466)^3 + 20 = 14.70.
        let mut c = Cubic::default();
        let ss = c.on_congestion(20 * MSS, MSS);
        let w = run(&mut c, ss / MSS, SimTime::from_ms(1), 100);
        let wc = c.w_cubic(0.1);
        assert!(close(wc, 14.70, 0.01), "{wc}");
        assert!(close(w[99], 108.7, 2.0), "{}", w[99]);
        assert!(close(w[99], c.w_est(), 1.0));
        // The first 10 round trips: α = 0.529 per round (14 -> 19.3).
        assert!(close(w[9], 19.3, 0.3), "{}", w[9]);
    }

    #[test]
    fn after_a_timeout_the_epoch_starts_with_k_zero_at_its_first_window() {
        let mut c = Cubic::default();
        let _ = c.on_congestion(100 * MSS, MSS);
        c.on_timeout();
        // Slow start after the timeout brings cwnd to ssthresh, 70 segments; avoidance begins.
        let cwnd = c.on_ack(SimTime::ZERO, MSS, 70 * MSS, MSS, SimTime::from_ms(100));
        assert_eq!(c.k(), 0.0);
        assert_eq!(c.w_max(), 70.0);
        assert!(close(c.w_est(), 70.0 + 0.529 / 70.0, 1e-3));
        // Convex from there: W_cubic(1 s) = 0.4 + 70.
        assert!(close(c.w_cubic(1.0), 70.4, 1e-9));
        assert!(cwnd >= 70 * MSS);
        // Without the timeout the same epoch would have K = 4.217 s.
        let mut c = Cubic::default();
        let _ = c.on_congestion(100 * MSS, MSS);
        let _ = c.on_ack(SimTime::ZERO, MSS, 70 * MSS, MSS, SimTime::from_ms(100));
        assert!(close(c.k(), 4.217_163, 1e-6));
    }

    #[test]
    fn small_steps_add_up_to_whole_bytes() {
        // Steps of a fraction of a byte are kept, not lost to rounding.
        let mut c = Cubic::default();
        let _ = c.on_congestion(1000 * MSS, MSS);
        let mut cwnd = 700 * MSS;
        let start = cwnd;
        for i in 0..7000u64 {
            cwnd = c.on_ack(SimTime::from_us(i), MSS, cwnd, MSS, SimTime::from_ms(100));
        }
        // 7,000 ACKs in 7 ms, each adding 0.529 / 700 segment = 0.76 byte to W_est (faster
        // than the cubic's 99 segments/s at t = 0): the window follows W_est, 5.29 segments
        // up; rounding each step down to the byte would leave it where it was.
        assert!(
            close((cwnd - start) as f64, 5_290.0, 30.0),
            "{}",
            cwnd - start
        );
    }
}
