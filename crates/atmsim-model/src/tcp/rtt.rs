//! Round-trip time estimation and the retransmission timeout.
//!
//! RFC 6298 section 2 in integer picoseconds: the first sample R sets SRTT = R and
//! RTTVAR = R/2; later ones RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|, SRTT = 7/8 SRTT + 1/8 R.
//! RTO = SRTT + max(G, 4 RTTVAR), clamped to [min_rto, max_rto], doubled per backoff.
//!
//! With a slow timer of granularity G > 0 (BSD's 500 ms PR_SLOWHZ tick) samples are whole
//! ticks (BSD counts the ticks that passed while a segment was timed), the RTO is a whole
//! number of ticks, at least two (BSD TCPTV_MIN), and the timer expires on a tick boundary.

use atmsim_engine::SimTime;

#[derive(Debug, Clone)]
pub struct RttEstimator {
    granularity: u64,
    min_rto: u64,
    max_rto: u64,
    srtt: Option<u64>,
    rttvar: u64,
    /// The RTO before backoff [ps].
    base_rto: u64,
    backoff: u32,
}

impl RttEstimator {
    pub fn new(
        granularity: SimTime,
        min_rto: SimTime,
        max_rto: SimTime,
        initial_rto: SimTime,
    ) -> Self {
        let mut e = RttEstimator {
            granularity: granularity.0,
            min_rto: min_rto.0,
            max_rto: max_rto.0.max(min_rto.0),
            srtt: None,
            rttvar: 0,
            base_rto: initial_rto.0,
            backoff: 0,
        };
        e.base_rto = e.clamp(initial_rto.0);
        e
    }

    fn clamp(&self, rto: u64) -> u64 {
        let mut r = rto.max(self.min_rto);
        if self.granularity > 0 {
            let g = self.granularity;
            r = r.div_ceil(g).max(2) * g;
        }
        r.min(self.max_rto.max(if self.granularity > 0 {
            2 * self.granularity
        } else {
            0
        }))
    }

    /// The RTT sample of a segment sent at `sent` and acknowledged at `now`.
    pub fn sample_between(&self, sent: SimTime, now: SimTime) -> SimTime {
        if self.granularity == 0 {
            now - sent
        } else {
            let g = self.granularity;
            SimTime((now.0 / g - sent.0 / g) * g)
        }
    }

    /// Takes a valid (Karn-clean) sample; clears the backoff.
    pub fn on_sample(&mut self, r: SimTime) {
        let r = r.0;
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(s) => {
                self.rttvar = (3 * self.rttvar + s.abs_diff(r)) / 4;
                self.srtt = Some((7 * s + r) / 8);
            }
        }
        let s = self.srtt.unwrap();
        self.base_rto = self.clamp(s + (4 * self.rttvar).max(self.granularity));
        self.backoff = 0;
    }

    /// Doubles the timeout (RFC 6298 5.5), up to max_rto.
    pub fn on_timeout(&mut self) {
        self.backoff = (self.backoff + 1).min(16);
    }

    /// The current timeout, backoff included [ps].
    pub fn rto(&self) -> SimTime {
        let r = self.base_rto.saturating_mul(1u64 << self.backoff);
        SimTime(r.min(self.max_rto.max(self.base_rto)))
    }

    pub fn srtt(&self) -> Option<SimTime> {
        self.srtt.map(SimTime)
    }

    /// When a timer armed at `now` expires: `now + rto` exactly, or the tick boundary at which
    /// BSD's tick counter, set to rto/G, reaches zero.
    pub fn deadline_from(&self, now: SimTime) -> SimTime {
        let rto = self.rto().0;
        if self.granularity == 0 {
            SimTime(now.0 + rto)
        } else {
            let g = self.granularity;
            SimTime((now.0 / g) * g + rto.div_ceil(g) * g)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_ms(x)
    }

    #[test]
    fn first_sample_sets_srtt_and_half_variance() {
        let mut e = RttEstimator::new(
            SimTime::ZERO,
            ms(1),
            SimTime::from_secs(64),
            SimTime::from_secs(1),
        );
        assert_eq!(e.rto(), SimTime::from_secs(1));
        e.on_sample(ms(100));
        assert_eq!(e.srtt(), Some(ms(100)));
        assert_eq!(e.rto(), ms(300)); // 100 + 4 * 50
        e.on_sample(ms(100));
        assert_eq!(e.rto(), ms(100 + 150)); // rttvar 37.5
    }

    #[test]
    fn backoff_doubles_until_a_fresh_sample() {
        let mut e = RttEstimator::new(SimTime::ZERO, ms(1), ms(1000), ms(100));
        e.on_timeout();
        assert_eq!(e.rto(), ms(200));
        e.on_timeout();
        e.on_timeout();
        e.on_timeout();
        assert_eq!(e.rto(), ms(1000), "capped at max_rto");
        e.on_sample(ms(10));
        assert_eq!(e.rto(), ms(30));
    }

    #[test]
    fn slow_timer_uses_whole_ticks_and_expires_on_boundaries() {
        let g = ms(500);
        let e = RttEstimator::new(g, ms(1), SimTime::from_secs(64), SimTime::from_secs(3));
        assert_eq!(e.rto(), SimTime::from_secs(3));
        // Armed at 1.2 s with 6 ticks: decremented at 1.5, 2.0, ..., reaching 0 at 4.0 s.
        assert_eq!(e.deadline_from(ms(1200)), ms(1000 + 3000));
        assert_eq!(e.sample_between(ms(1200), ms(1499)), SimTime::ZERO);
        assert_eq!(e.sample_between(ms(1200), ms(1501)), g);
        let mut e = e;
        e.on_sample(SimTime::ZERO);
        assert_eq!(e.rto(), SimTime::from_secs(1), "at least two ticks");
    }
}
