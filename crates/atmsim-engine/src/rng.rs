//! Random streams: one independent generator per component, derived from the run seed.
//!
//! A component's stream depends only on `(run seed, component key)`, never on how many
//! numbers other components drew, so adding a component or an event elsewhere does not
//! shift anyone else's randomness (as smoltcp's netsim seeds each direction separately).

use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// SplitMix64 step, used to spread (seed, key) into a full generator state.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Derives per-component streams from one run seed.
#[derive(Debug, Clone, Copy)]
pub struct RngStreams {
    seed: u64,
}

impl RngStreams {
    pub fn new(seed: u64) -> Self {
        RngStreams { seed }
    }

    /// The stream of component `key` (a stable id: e.g. a connection index plus a tag).
    pub fn stream(&self, key: u64) -> RngStream {
        let s = splitmix64(self.seed ^ splitmix64(key.wrapping_add(0x5851_F42D_4C95_7F2D)));
        RngStream {
            inner: Xoshiro256PlusPlus::seed_from_u64(s),
        }
    }
}

/// One component's generator.
#[derive(Debug, Clone)]
pub struct RngStream {
    inner: Xoshiro256PlusPlus,
}

impl RngStream {
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// Uniform in `[0, 1)` with 53 bits.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in `[0, n)` (n > 0), by Lemire's multiply-shift (bias < 2^-64 * n).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a = RngStreams::new(7);
        let mut s1 = a.stream(1);
        let mut s1b = RngStreams::new(7).stream(1);
        let mut s2 = a.stream(2);
        let mut other_seed = RngStreams::new(8).stream(1);
        let x = s1.next_u64();
        assert_eq!(x, s1b.next_u64());
        assert_ne!(x, s2.next_u64());
        assert_ne!(x, other_seed.next_u64());
    }

    #[test]
    fn below_stays_in_range() {
        let mut s = RngStreams::new(1).stream(0);
        for _ in 0..10_000 {
            assert!(s.below(17) < 17);
            let u = s.uniform();
            assert!((0.0..1.0).contains(&u));
        }
    }
}
