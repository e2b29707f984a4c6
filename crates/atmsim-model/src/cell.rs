//! The ATM cell as the simulator carries it: identity and header bits, no payload bytes.
//!
//! 53 bytes on the wire (5 header + 48 payload). The model keeps only what the simulated
//! protocols read: the VC, the AAL5 end-of-message bit (PTI SDU-type, ITU-T I.363.5), CLP and
//! EFCI, plus the frame it belongs to and the hop it is on (bookkeeping, not header fields).

/// Bytes of a cell on the wire.
pub const CELL_BYTES: u32 = 53;
/// Payload bytes of a cell.
pub const CELL_PAYLOAD_BYTES: u32 = 48;
/// Bits of a cell on the wire.
pub const CELL_BITS: u64 = 424;

/// A cell in flight. 12 bytes, `Copy`: queues hold cells by value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    /// Virtual channel (index into the network's VC table).
    pub vc: u32,
    /// AAL5 frame sequence number within the VC (bookkeeping for reassembly checks).
    pub frame: u32,
    /// Index into the VC's path of the port the cell is queued at or travelling to.
    pub hop: u8,
    /// Header bits: [`Cell::EOM`], [`Cell::CLP`], [`Cell::EFCI`].
    pub flags: u8,
}

impl Cell {
    /// Last cell of an AAL5 frame (PTI bit "AUU"/SDU-type = 1).
    pub const EOM: u8 = 1;
    /// Cell loss priority 1 (tagged).
    pub const CLP: u8 = 2;
    /// Explicit forward congestion indication.
    pub const EFCI: u8 = 4;

    #[inline]
    pub fn is_eom(&self) -> bool {
        self.flags & Self::EOM != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_is_small() {
        assert!(std::mem::size_of::<Cell>() <= 12);
    }
}
