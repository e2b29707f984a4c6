//! Traffic sources that are not TCP: cells without AAL5 frames, at a rate.
//!
//! A source decides *what* to send and when it is active; the source host's adapter decides
//! *when* each cell goes, pacing the VC at `interval` (the source's rate, capped at the VC's
//! PCR). The source keeps one cell queued at the adapter while it is active: when that cell
//! leaves, the next one is queued if it will be due while the source is still active. So a
//! source costs one queued cell and no event per cell of its own, whatever its rate.
//!
//! - CBR: active from its start, forever.
//! - ON-OFF (the VBR background of Kalyanaraman et al. 1996 and An 1997): active for `on`
//!   of every `period`, ON first, from its start; at its rate while ON. Or, with exponential
//!   durations, ON and OFF periods drawn with those means.
//! - Greedy: active from its start; at the link rate, or at the VC's PCR.

use crate::ids::VcId;
use crate::spec::{OnOffDurations, SourceSpec};
use atmsim_engine::{RngStream, SimTime};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Pattern {
    Always,
    OnOff { period: SimTime, on: SimTime },
}

#[derive(Debug, Clone)]
pub struct Source {
    pub name: String,
    /// "cbr", "on_off" or "greedy".
    pub kind: &'static str,
    pub vc: VcId,
    pattern: Pattern,
    /// Pacing interval at the adapter (`ZERO`: back to back).
    pub interval: SimTime,
    /// Active until this time (exclusive); `None` while inactive.
    active_until: Option<SimTime>,
    /// Sequence number of the next cell.
    next_seq: u32,
    /// Draws the ON and OFF durations of an ON-OFF source with exponential durations.
    rng: Option<RngStream>,
    /// A cell of this source is queued at the adapter.
    pub queued: bool,
}

/// What the network must do after a source changes state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Toggle {
    /// Queue a cell now (the source became active with nothing queued).
    pub queue_cell: bool,
    /// Call the source again at this time (its next ON or OFF).
    pub next: Option<SimTime>,
}

impl Source {
    /// `spec` must not be [`SourceSpec::Tcp`]. `rng` draws the durations of an ON-OFF source
    /// whose durations are exponential (and is not used otherwise).
    pub fn new(
        name: String,
        vc: VcId,
        spec: &SourceSpec,
        interval: SimTime,
        rng: RngStream,
    ) -> Self {
        let (pattern, rng) = match *spec {
            SourceSpec::OnOff {
                period,
                on,
                durations,
                ..
            } => (
                Pattern::OnOff { period, on },
                (durations == OnOffDurations::Exponential).then_some(rng),
            ),
            SourceSpec::Cbr { .. } | SourceSpec::Greedy => (Pattern::Always, None),
            SourceSpec::Tcp { .. } => unreachable!("a TCP connection is not a cell source"),
        };
        Source {
            name,
            kind: spec.kind(),
            vc,
            pattern,
            interval,
            active_until: None,
            next_seq: 0,
            rng,
            queued: false,
        }
    }

    /// An ON or OFF period of mean `mean`: `mean` itself, or an exponential draw.
    fn duration(&mut self, mean: SimTime) -> SimTime {
        match &mut self.rng {
            None => mean,
            // 1 - U is in (0, 1]: the logarithm is finite.
            Some(rng) => SimTime((-(1.0 - rng.uniform()).ln() * mean.0 as f64).round() as u64),
        }
    }

    /// The source starts, or turns ON or OFF, at `now`.
    pub fn on_toggle(&mut self, now: SimTime) -> Toggle {
        match (self.pattern, self.active_until) {
            (Pattern::Always, _) => {
                self.active_until = Some(SimTime::MAX);
                Toggle {
                    queue_cell: !self.queued,
                    next: None,
                }
            }
            (Pattern::OnOff { on, .. }, None) => {
                let until = now + self.duration(on);
                self.active_until = Some(until);
                Toggle {
                    queue_cell: !self.queued,
                    next: Some(until),
                }
            }
            (Pattern::OnOff { period, on }, Some(_)) => {
                self.active_until = None;
                Toggle {
                    queue_cell: false,
                    next: Some(now + self.duration(period - on)),
                }
            }
        }
    }

    /// The source's queued cell was picked for transmission at `now`: whether to queue the
    /// next one (it will be due at `now + interval`, while the source is still active).
    #[inline]
    pub fn on_sent(&mut self, now: SimTime) -> bool {
        self.queued = false;
        self.active_until.is_some_and(|t| now + self.interval < t)
    }

    /// Takes the sequence number of a new cell and notes that it is queued.
    #[inline]
    pub fn take_seq(&mut self) -> u32 {
        self.queued = true;
        let s = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(1);
        s
    }

    pub fn is_active(&self) -> bool {
        self.active_until.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_ms(x)
    }

    fn rng() -> RngStream {
        atmsim_engine::RngStreams::new(1).stream(0)
    }

    #[test]
    fn on_off_alternates_and_sends_only_while_on() {
        let spec = SourceSpec::OnOff {
            rate: 1e5,
            period: ms(10),
            on: ms(7),
            durations: OnOffDurations::Fixed,
        };
        let mut s = Source::new("v".into(), VcId(0), &spec, ms(2), rng());
        let t = s.on_toggle(ms(2));
        assert_eq!(
            t,
            Toggle {
                queue_cell: true,
                next: Some(ms(9))
            }
        );
        s.take_seq();
        // Picked at 2, 4, 6 ms: the next cells are due at 4, 6, 8 < 9: queued.
        for now in [2, 4, 6] {
            assert!(s.on_sent(ms(now)));
            s.take_seq();
        }
        // Picked at 8 ms: the next would be due at 10 ms, after the OFF at 9 ms.
        assert!(!s.on_sent(ms(8)));
        let t = s.on_toggle(ms(9));
        assert_eq!(
            t,
            Toggle {
                queue_cell: false,
                next: Some(ms(12))
            }
        );
        assert!(!s.is_active());
        let t = s.on_toggle(ms(12));
        assert_eq!(
            t,
            Toggle {
                queue_cell: true,
                next: Some(ms(19))
            }
        );
    }

    #[test]
    fn cbr_and_greedy_stay_on() {
        let mut s = Source::new(
            "c".into(),
            VcId(0),
            &SourceSpec::Cbr { rate: 1e4 },
            ms(1),
            rng(),
        );
        assert_eq!(
            s.on_toggle(ms(0)),
            Toggle {
                queue_cell: true,
                next: None
            }
        );
        assert_eq!(s.take_seq(), 0);
        assert!(s.on_sent(ms(1_000_000)));
        assert_eq!(s.take_seq(), 1);
        let mut g = Source::new(
            "g".into(),
            VcId(1),
            &SourceSpec::Greedy,
            SimTime::ZERO,
            rng(),
        );
        g.on_toggle(ms(0));
        assert!(g.on_sent(ms(5)));
    }

    #[test]
    fn exponential_durations_have_the_given_means_and_vary() {
        let spec = SourceSpec::OnOff {
            rate: 1e5,
            period: ms(20),
            on: ms(5),
            durations: OnOffDurations::Exponential,
        };
        let mut s = Source::new("v".into(), VcId(0), &spec, ms(1), rng());
        let (mut now, mut on_sum, mut off_sum) = (SimTime::ZERO, 0.0, 0.0);
        let (mut on_max, mut on_min) = (0.0_f64, f64::MAX);
        let n = 20_000;
        for _ in 0..n {
            let t = s.on_toggle(now).next.unwrap();
            assert!(s.is_active());
            let on = (t - now).as_secs_f64();
            on_sum += on;
            on_max = on_max.max(on);
            on_min = on_min.min(on);
            now = t;
            let t = s.on_toggle(now).next.unwrap();
            assert!(!s.is_active());
            off_sum += (t - now).as_secs_f64();
            now = t;
        }
        // The mean of 20,000 exponential draws is within 3% of the mean (sd 0.7%).
        let (on_mean, off_mean) = (on_sum / n as f64, off_sum / n as f64);
        assert!((on_mean / 5e-3 - 1.0).abs() < 0.03, "ON mean {on_mean}");
        assert!((off_mean / 15e-3 - 1.0).abs() < 0.03, "OFF mean {off_mean}");
        // Exponential, not fixed: P(ON > 4 means) = e^-4, so some of 20,000 exceed it.
        assert!(on_max > 20e-3 && on_min < 0.5e-3, "{on_min} .. {on_max}");
        // The same stream gives the same periods.
        let mut a = Source::new("v".into(), VcId(0), &spec, ms(1), rng());
        let mut b = Source::new("v".into(), VcId(0), &spec, ms(1), rng());
        for i in 0..10 {
            assert_eq!(a.on_toggle(ms(i)), b.on_toggle(ms(i)));
        }
    }
}
