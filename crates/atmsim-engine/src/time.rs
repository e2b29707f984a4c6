//! Simulated time as an integer count of picoseconds.
//!
//! `u64` picoseconds cover 213 days of simulated time; a 155.52 Mb/s cell time
//! (2.726 us) is represented to within half a picosecond, and sums never drift.

use std::fmt;
use std::ops::{Add, AddAssign, Mul, Sub};

/// A point in (or a span of) simulated time [ps].
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct SimTime(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);
    pub const PS: u64 = 1;
    pub const NS: u64 = 1_000;
    pub const US: u64 = 1_000_000;
    pub const MS: u64 = 1_000_000_000;
    pub const S: u64 = 1_000_000_000_000;

    pub const fn from_ps(ps: u64) -> Self {
        SimTime(ps)
    }
    pub const fn from_ns(ns: u64) -> Self {
        SimTime(ns * Self::NS)
    }
    pub const fn from_us(us: u64) -> Self {
        SimTime(us * Self::US)
    }
    pub const fn from_ms(ms: u64) -> Self {
        SimTime(ms * Self::MS)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimTime(s * Self::S)
    }
    /// Rounds a duration in seconds to the nearest picosecond (used only when reading input).
    pub fn from_secs_f64(s: f64) -> Self {
        SimTime((s * 1e12).round() as u64)
    }
    pub const fn as_ps(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-12
    }
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    pub fn as_micros_f64(self) -> f64 {
        self.0 as f64 * 1e-6
    }
    pub const fn saturating_sub(self, rhs: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(rhs.0))
    }
}

impl Add for SimTime {
    type Output = SimTime;
    #[inline]
    fn add(self, rhs: SimTime) -> SimTime {
        SimTime(self.0 + rhs.0)
    }
}
impl AddAssign for SimTime {
    #[inline]
    fn add_assign(&mut self, rhs: SimTime) {
        self.0 += rhs.0;
    }
}
impl Sub for SimTime {
    type Output = SimTime;
    #[inline]
    fn sub(self, rhs: SimTime) -> SimTime {
        SimTime(self.0 - rhs.0)
    }
}
impl Mul<u64> for SimTime {
    type Output = SimTime;
    #[inline]
    fn mul(self, rhs: u64) -> SimTime {
        SimTime(self.0 * rhs)
    }
}

impl fmt::Debug for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for SimTime {
    /// Prints with the largest unit that keeps the value exact, e.g. `2.75 us`, `1 s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ps = self.0;
        let units = [
            (Self::S, "s"),
            (Self::MS, "ms"),
            (Self::US, "us"),
            (Self::NS, "ns"),
        ];
        if ps == 0 {
            return write!(f, "0 s");
        }
        for (scale, name) in units {
            if ps >= scale {
                let whole = ps / scale;
                let frac = ps % scale;
                if frac == 0 {
                    return write!(f, "{whole} {name}");
                }
                // Exact decimal expansion of the fraction, trailing zeros trimmed.
                let digits = scale.ilog10() as usize;
                let s = format!("{frac:0digits$}");
                return write!(f, "{whole}.{} {name}", s.trim_end_matches('0'));
            }
        }
        write!(f, "{ps} ps")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_exact_and_readable() {
        assert_eq!(SimTime::from_ns(2750).to_string(), "2.75 us");
        assert_eq!(SimTime::from_secs(3).to_string(), "3 s");
        assert_eq!(SimTime::from_ps(2_726_337).to_string(), "2.726337 us");
        assert_eq!(SimTime::from_ps(7).to_string(), "7 ps");
        assert_eq!(SimTime::ZERO.to_string(), "0 s");
    }

    #[test]
    fn float_conversion_rounds_to_picoseconds() {
        assert_eq!(SimTime::from_secs_f64(2.75e-6), SimTime::from_ns(2750));
        assert!((SimTime::from_ms(1500).as_secs_f64() - 1.5).abs() < 1e-12);
    }
}
