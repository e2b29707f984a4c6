//! A running 64-bit hash of the event sequence.
//!
//! Each event contributes its time and a small tag (kind and component id) chosen by the
//! model. Two runs with equal fingerprints executed the same events at the same times, which
//! is what a fingerprint regression test checks (as OMNeT++/INET fingerprints do).

/// FNV-1a style accumulation over 64-bit words, with a final avalanche.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint {
    state: u64,
    count: u64,
}

const PRIME: u64 = 0x0000_0100_0000_01B3;
const OFFSET: u64 = 0xCBF2_9CE4_8422_2325;

impl Default for Fingerprint {
    fn default() -> Self {
        Fingerprint {
            state: OFFSET,
            count: 0,
        }
    }
}

impl Fingerprint {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one event.
    #[inline]
    pub fn add(&mut self, time_ps: u64, tag: u64) {
        self.state = (self.state ^ time_ps).wrapping_mul(PRIME);
        self.state = (self.state ^ tag).wrapping_mul(PRIME);
        self.count += 1;
    }

    /// Number of events added.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The digest, as 16 hex digits.
    pub fn hex(&self) -> String {
        let mut z = self.state ^ self.count.rotate_left(32);
        z = (z ^ (z >> 33)).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        z = (z ^ (z >> 33)).wrapping_mul(0xC4CE_B9FE_1A85_EC53);
        z ^= z >> 33;
        format!("{z:016x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_matters() {
        let mut a = Fingerprint::new();
        a.add(1, 10);
        a.add(2, 20);
        let mut b = Fingerprint::new();
        b.add(2, 20);
        b.add(1, 10);
        assert_ne!(a.hex(), b.hex());
        let mut c = Fingerprint::new();
        c.add(1, 10);
        c.add(2, 20);
        assert_eq!(a.hex(), c.hex());
    }
}
