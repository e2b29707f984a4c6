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
//!   of every `period`, ON first, from its start; at its rate while ON.
//! - Greedy: active from its start; at the link rate, or at the VC's PCR.

use crate::ids::VcId;
use crate::spec::SourceSpec;
use atmsim_engine::SimTime;

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
    /// `spec` must not be [`SourceSpec::Tcp`].
    pub fn new(name: String, vc: VcId, spec: &SourceSpec, interval: SimTime) -> Self {
        let pattern = match *spec {
            SourceSpec::OnOff { period, on, .. } => Pattern::OnOff { period, on },
            SourceSpec::Cbr { .. } | SourceSpec::Greedy => Pattern::Always,
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
            queued: false,
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
                let until = now + on;
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
                    next: Some(now + (period - on)),
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

    #[test]
    fn on_off_alternates_and_sends_only_while_on() {
        let spec = SourceSpec::OnOff {
            rate: 1e5,
            period: ms(10),
            on: ms(7),
        };
        let mut s = Source::new("v".into(), VcId(0), &spec, ms(2));
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
        let mut s = Source::new("c".into(), VcId(0), &SourceSpec::Cbr { rate: 1e4 }, ms(1));
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
        let mut g = Source::new("g".into(), VcId(1), &SourceSpec::Greedy, SimTime::ZERO);
        g.on_toggle(ms(0));
        assert!(g.on_sent(ms(5)));
    }
}
