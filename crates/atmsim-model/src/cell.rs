//! The ATM cell as the simulator carries it: identity and header bits, no payload bytes.
//!
//! 53 bytes on the wire (5 header + 48 payload). The model keeps what the simulated protocols
//! read:
//! - the **label** (the VCI on the current link, rewritten by each switch's VC table) and the
//!   end-to-end **VC** it belongs to (bookkeeping for reassembly and per-VC statistics, which
//!   stays the same when several VCs merge into one label);
//! - the **kind**, from the PTI field (ITU-T I.361): user data, or a resource management (RM)
//!   cell of a VC (PTI 110), forward or backward (the RM cell's DIR bit); OAM cells have room
//!   here but no producer yet;
//! - the header bits the studies use: EOM (PTI's "AAL indication" bit, set on the last cell of
//!   an AAL5 frame, I.363.5), CLP (cell loss priority, 1 = tagged) and EFCI (PTI's congestion
//!   bit, set by a congested switch on data cells, read by the ABR destination);
//! - for AAL5 data cells, the **frame** they belong to (reassembly checks); an RM cell uses the
//!   same field as the index of its fields in the network's [`RmTable`], so the common data
//!   cell stays 12 bytes; a cell of a non-AAL5 source (CBR, VBR, greedy cells) uses it as its
//!   sequence number within the VC (cell-delay measurement).
//!
//! An RM cell is never part of an AAL5 frame: it carries no EOM, and the frame-based
//! admission policies never see it (see [`crate::port`]).

use crate::ids::{Label, VcId};

/// Bytes of a cell on the wire.
pub const CELL_BYTES: u32 = 53;
/// Payload bytes of a cell.
pub const CELL_PAYLOAD_BYTES: u32 = 48;
/// Bits of a cell on the wire.
pub const CELL_BITS: u64 = 424;

/// What a cell is, from its header's PTI field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum CellKind {
    /// A user data cell (PTI 0xx).
    #[default]
    Data = 0,
    /// A forward RM cell (PTI 110, DIR = 0): source to destination.
    ForwardRm = 1,
    /// A backward RM cell (PTI 110, DIR = 1): turned round by the destination (or made by a
    /// switch), destination to source on the VC's reverse direction.
    BackwardRm = 2,
}

/// A cell in flight. 12 bytes, `Copy`: queues hold cells by value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    /// The end-to-end VC the cell belongs to.
    pub vc: VcId,
    /// Data cells of AAL5: the frame's sequence number within the VC. RM cells: the index of
    /// their fields in the [`RmTable`]. Cells of a non-AAL5 source: their sequence number.
    pub frame: u32,
    /// The VC label on the link the cell is on (or queued for): the VC's slot at the port
    /// that transmits it.
    pub label: Label,
    /// Header bits: [`Cell::EOM`], [`Cell::CLP`], [`Cell::EFCI`].
    pub flags: u8,
    pub kind: CellKind,
}

impl Cell {
    /// Last cell of an AAL5 frame (PTI bit "AUU"/SDU-type = 1).
    pub const EOM: u8 = 1;
    /// Cell loss priority 1 (tagged).
    pub const CLP: u8 = 2;
    /// Explicit forward congestion indication.
    pub const EFCI: u8 = 4;

    /// A user data cell.
    #[inline]
    pub fn data(vc: VcId, frame: u32, label: Label, flags: u8) -> Cell {
        Cell {
            vc,
            frame,
            label,
            flags,
            kind: CellKind::Data,
        }
    }

    #[inline]
    pub fn is_eom(&self) -> bool {
        self.flags & Self::EOM != 0
    }

    #[inline]
    pub fn is_clp(&self) -> bool {
        self.flags & Self::CLP != 0
    }

    #[inline]
    pub fn is_efci(&self) -> bool {
        self.flags & Self::EFCI != 0
    }

    /// Marks congestion (a switch does this to data cells only, TM 4.0 section 5.10.6).
    #[inline]
    pub fn set_efci(&mut self) {
        debug_assert_eq!(self.kind, CellKind::Data, "EFCI is a data-cell bit");
        self.flags |= Self::EFCI;
    }

    #[inline]
    pub fn is_data(&self) -> bool {
        self.kind == CellKind::Data
    }

    #[inline]
    pub fn is_rm(&self) -> bool {
        matches!(self.kind, CellKind::ForwardRm | CellKind::BackwardRm)
    }
}

/// A cell as the queues and links store it: two integers (the VC and the frame; the label,
/// flags and kind), each written and read whole.
///
/// A [`Cell`] in registers is five values; the compiler stores it field by field (4, 4, 2,
/// 1 and 1 bytes) and copies it in two loads (8 and 4 bytes). When a copy follows such a store
/// closely (a port that sends the cell it has just queued), the loads cannot take their
/// bytes from the pending stores and wait until those reach the cache, a stall that
/// instruction counts do not show (docs/architecture.md, "Speed"). Stored as `CellWords`,
/// a cell is written in the two widths it is read in. A `CellWords` has no niche either,
/// so an `Option` of one tests a tag of its own, not the cell's kind byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellWords {
    lo: u64,
    hi: u32,
}

impl From<Cell> for CellWords {
    #[inline(always)]
    fn from(c: Cell) -> CellWords {
        CellWords {
            lo: u64::from(c.vc.0) | u64::from(c.frame) << 32,
            hi: u32::from(c.label) | u32::from(c.flags) << 16 | u32::from(c.kind as u8) << 24,
        }
    }
}

impl From<CellWords> for Cell {
    #[inline(always)]
    fn from(w: CellWords) -> Cell {
        Cell {
            vc: VcId(w.lo as u32),
            frame: (w.lo >> 32) as u32,
            label: w.hi as u16,
            flags: (w.hi >> 16) as u8,
            // SAFETY: the top byte of `hi` is a `CellKind`'s (`repr(u8)`) discriminant:
            // `CellWords` are made only from cells (`From<Cell>`), and their fields are
            // private.
            kind: unsafe { std::mem::transmute::<u8, CellKind>((w.hi >> 24) as u8) },
        }
    }
}

/// The payload fields of an RM cell (ATM Forum TM 4.0 section 5.10.3.1) that ABR end
/// systems and switches read and write. Rates are in cells per second. DIR is the cell's
/// [`CellKind`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RmFields {
    /// Explicit rate: the largest rate the network allows the source [cells/s].
    pub er: f64,
    /// Current cell rate: the source's ACR when it sent the forward RM cell [cells/s].
    pub ccr: f64,
    /// Minimum cell rate of the VC [cells/s].
    pub mcr: f64,
    /// Congestion indication: the source decreases.
    pub ci: bool,
    /// No increase: the source does not increase.
    pub ni: bool,
    /// Backward explicit congestion notification: made by a switch or destination, not
    /// turned round by the destination.
    pub bn: bool,
}

/// The fields of the RM cells in flight, indexed by their cells' `frame` field. Entries are
/// recycled when their cell dies (delivered, turned into another, or dropped), so the table
/// stops growing once the network is warm.
#[derive(Debug, Clone, Default)]
pub struct RmTable {
    slots: Vec<RmFields>,
    free: Vec<u32>,
}

impl RmTable {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores the fields of a new RM cell; returns the index its cell carries.
    pub fn insert(&mut self, fields: RmFields) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = fields;
                i
            }
            None => {
                self.slots.push(fields);
                (self.slots.len() - 1) as u32
            }
        }
    }

    #[inline]
    pub fn get(&self, i: u32) -> &RmFields {
        &self.slots[i as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, i: u32) -> &mut RmFields {
        &mut self.slots[i as usize]
    }

    /// The cell holding entry `i` died; the entry may be reused.
    pub fn remove(&mut self, i: u32) {
        debug_assert!(!self.free.contains(&i), "RM entry freed twice");
        self.free.push(i);
    }

    /// Entries held by live RM cells.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_is_small() {
        assert_eq!(std::mem::size_of::<Cell>(), 12);
        // Two words, no niche: an `Option` of one keeps its tag apart from the cell.
        assert_eq!(std::mem::size_of::<CellWords>(), 16);
        assert_eq!(std::mem::size_of::<Option<CellWords>>(), 24);
    }

    proptest::proptest! {
        /// A cell stored as words comes back as it went in, every field and kind.
        #[test]
        fn cell_words_round_trip(
            vc: u32,
            frame: u32,
            label: u16,
            flags: u8,
            kind in proptest::sample::select(vec![
                CellKind::Data, CellKind::ForwardRm, CellKind::BackwardRm,
            ]),
        ) {
            let c = Cell { vc: VcId(vc), frame, label, flags, kind };
            proptest::prop_assert_eq!(Cell::from(CellWords::from(c)), c);
        }
    }

    #[test]
    fn header_bits_are_independent() {
        let mut c = Cell::data(VcId(3), 7, 2, Cell::EOM);
        assert!(c.is_eom() && !c.is_clp() && !c.is_efci() && c.is_data() && !c.is_rm());
        c.set_efci();
        assert!(c.is_eom() && c.is_efci());
        c.flags |= Cell::CLP;
        assert!(c.is_clp());
    }

    #[test]
    fn rm_table_recycles_entries() {
        let f = RmFields {
            er: 1e5,
            ccr: 5e4,
            mcr: 0.0,
            ci: false,
            ni: false,
            bn: false,
        };
        let mut t = RmTable::new();
        let a = t.insert(f);
        let b = t.insert(RmFields { ci: true, ..f });
        assert_ne!(a, b);
        assert!(t.get(b).ci && !t.get(a).ci);
        t.get_mut(a).er = 10.0;
        assert_eq!(t.get(a).er, 10.0);
        t.remove(a);
        assert_eq!(t.live(), 1);
        let c = t.insert(f);
        assert_eq!(c, a, "a freed entry is reused");
        assert_eq!(t.live(), 2);
    }
}
