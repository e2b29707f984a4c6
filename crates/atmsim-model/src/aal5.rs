//! AAL5 framing of IP packets (ITU-T I.363.5; RFC 1483/2684 encapsulation).
//!
//! A CPCS-PDU is the payload, 0-47 bytes of padding and an 8-byte trailer (UU, CPI, length,
//! CRC-32), a whole number of 48-byte cell payloads. The last cell carries EOM. With LLC/SNAP
//! encapsulation an 8-byte header precedes the IP datagram; VC multiplexing adds nothing.

use crate::cell::CELL_PAYLOAD_BYTES;

/// TCP (20) + IP (20) header bytes, no options.
pub const TCP_IP_HEADER_BYTES: u32 = 40;
/// AAL5 CPCS trailer bytes.
pub const AAL5_TRAILER_BYTES: u32 = 8;
/// RFC 1483 LLC/SNAP header bytes.
pub const LLC_SNAP_BYTES: u32 = 8;

/// Number of cells of the AAL5 frame that carries `tcp_payload` bytes of TCP data.
#[inline]
pub fn cells_for_segment(tcp_payload: u32, llc_snap: bool) -> u32 {
    cells_for_segment_with(tcp_payload, llc_snap, AAL5_TRAILER_BYTES)
}

/// Number of cells of a frame carrying `tcp_payload` bytes of TCP data when the adaptation
/// layer adds `overhead` bytes per datagram (AAL5: its 8-byte trailer; Cheon & Panwar 1998
/// count 14), padded to whole cells.
#[inline]
pub fn cells_for_segment_with(tcp_payload: u32, llc_snap: bool, overhead: u32) -> u32 {
    let sdu = tcp_payload + TCP_IP_HEADER_BYTES + if llc_snap { LLC_SNAP_BYTES } else { 0 };
    (sdu + overhead).div_ceil(CELL_PAYLOAD_BYTES)
}

/// Number of cells for an AAL5 SDU of `sdu_bytes` (trailer and padding added).
#[inline]
pub fn cells_for_sdu(sdu_bytes: u32) -> u32 {
    (sdu_bytes + AAL5_TRAILER_BYTES).div_ceil(CELL_PAYLOAD_BYTES)
}

/// Padding bytes in the frame of an SDU of `sdu_bytes`.
pub fn padding(sdu_bytes: u32) -> u32 {
    cells_for_sdu(sdu_bytes) * CELL_PAYLOAD_BYTES - sdu_bytes - AAL5_TRAILER_BYTES
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_sizes() {
        // Cheon & Panwar: 500 B -> 12 cells, 1500 B -> 33 cells (their packet size is the TCP
        // payload; 40 B of TCP/IP headers and the AAL's overhead fill whole cells).
        assert_eq!(cells_for_segment(64, true), 3);
        assert_eq!(cells_for_segment(512, true), 12);
        assert_eq!(cells_for_segment(1024, true), 23);
        assert_eq!(cells_for_segment(8192, false), 172);
        assert_eq!(cells_for_segment(9140, true), 192);
        // A bare ACK: 40 bytes of headers + 8 trailer = exactly one cell.
        assert_eq!(cells_for_segment(0, false), 1);
        assert_eq!(cells_for_segment(0, true), 2);
    }

    #[test]
    fn cheon_and_panwars_fourteen_bytes() {
        // Their adaptation layer adds 14 bytes: 500 B and 1500 B segments take the same 12 and
        // 33 cells as with AAL5's 8, but a bare ACK (40 + 14 = 54 B) takes two cells, not one.
        assert_eq!(cells_for_segment_with(500, false, 14), 12);
        assert_eq!(cells_for_segment_with(1500, false, 14), 33);
        assert_eq!(cells_for_segment_with(0, false, 14), 2);
        assert_eq!(
            cells_for_segment_with(0, false, 8),
            cells_for_segment(0, false)
        );
    }

    proptest! {
        #[test]
        fn frame_holds_sdu_with_least_cells(sdu in 0u32..70_000) {
            let n = cells_for_sdu(sdu);
            let pad = padding(sdu);
            prop_assert!(pad < CELL_PAYLOAD_BYTES);
            prop_assert_eq!(n * CELL_PAYLOAD_BYTES, sdu + AAL5_TRAILER_BYTES + pad);
        }
    }
}
