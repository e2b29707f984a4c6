//! An output port: the cells waiting for one outgoing link, and the rules that admit them.
//!
//! Every transmitting point is a port: a switch output (bounded buffers, an admission policy)
//! and a host adapter (unbounded per-VC queues, the host's memory). A port serves its VCs
//! round robin, one cell per VC per turn, or keeps one FIFO for all. When the link it feeds
//! runs AN2 credit flow control, a VC may send only while it holds a credit for the
//! downstream buffer (Fang et al. 1994, "AN2's Flow Control Algorithm"; ALGORITHMS.md 7).

use crate::cell::Cell;
use crate::spec::{PolicySpec, Queueing};
use std::collections::VecDeque;

/// Why a cell was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum DropReason {
    /// The VC's own buffer at the port was full.
    VcBufferFull = 0,
    /// The port's shared buffer was full.
    PortBufferFull = 1,
    /// The rest of a frame that already lost a cell (PPD, drop-whole, EPD fallback).
    FrameTail = 2,
    /// A queued cell removed because its frame lost a cell (drop-whole).
    Purged = 3,
    /// A new frame refused above the threshold (EPD).
    EarlyDiscard = 4,
    /// A cell of a VC in ESPD red state.
    Selective = 5,
}

impl DropReason {
    pub const COUNT: usize = 6;
    pub const ALL: [DropReason; Self::COUNT] = [
        DropReason::VcBufferFull,
        DropReason::PortBufferFull,
        DropReason::FrameTail,
        DropReason::Purged,
        DropReason::EarlyDiscard,
        DropReason::Selective,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DropReason::VcBufferFull => "vc_buffer_full",
            DropReason::PortBufferFull => "port_buffer_full",
            DropReason::FrameTail => "frame_tail",
            DropReason::Purged => "purged",
            DropReason::EarlyDiscard => "early_discard",
            DropReason::Selective => "selective",
        }
    }
}

/// What the admission policy decided for an arriving cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Accept,
    Drop(DropReason),
    /// Drop the cell and remove the cells of its frame still queued at the port.
    DropAndPurge(DropReason),
}

/// What happened to an offered cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offer {
    pub accepted: bool,
    /// Cells of the VC that left the network here: the arriving one if refused, plus purged ones.
    pub dropped: u32,
}

/// A VC's state at one port.
#[derive(Debug, Clone)]
pub struct Slot {
    pub vc: u32,
    /// Cells of this VC queued here (per-VC queueing only; FIFO ports keep them in `fifo`).
    pub queue: VecDeque<Cell>,
    /// Cells of this VC held at the port, whatever the queueing.
    pub count: u32,
    /// Credits for the downstream buffer (`u32::MAX` when the link has no flow control).
    pub credits: u32,
    /// The slot is in the round-robin ring.
    pub in_ring: bool,
    /// Per-VC frame state of the admission policy.
    pub frame: FrameState,
}

/// Per-VC frame-discard state at a port (ALGORITHMS.md section 6: resynchronised on every EOM,
/// dropped or not).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameState {
    /// The next cell of this VC starts a frame.
    pub expect_first: bool,
    /// Drop the rest of the current frame.
    pub discarding: bool,
    /// Whether the EOM of the frame being discarded is dropped too.
    pub drop_eom: bool,
    /// ESPD red status.
    pub red: bool,
}

impl Default for FrameState {
    fn default() -> Self {
        FrameState {
            expect_first: true,
            discarding: false,
            drop_eom: false,
            red: false,
        }
    }
}

/// Read-only facts an admission policy decides on.
#[derive(Debug, Clone, Copy)]
pub struct PortView {
    pub occupancy: u32,
    pub port_limit: u32,
    pub vc_count: u32,
    pub vc_limit: u32,
}

impl PortView {
    /// A cell would not fit.
    #[inline]
    fn full(&self) -> Option<DropReason> {
        if self.vc_count >= self.vc_limit {
            Some(DropReason::VcBufferFull)
        } else if self.occupancy >= self.port_limit {
            Some(DropReason::PortBufferFull)
        } else {
            None
        }
    }

    /// (level, size) of the reference buffer thresholds apply to: the shared port buffer if
    /// it is bounded, else the VC's own buffer.
    #[inline]
    fn reference(&self) -> (u32, u32) {
        if self.port_limit != u32::MAX {
            (self.occupancy, self.port_limit)
        } else {
            (self.vc_count, self.vc_limit)
        }
    }

    /// Whether the reference buffer is at or above `fraction` of its size.
    #[inline]
    fn at_or_above(&self, fraction: f64) -> bool {
        let (level, size) = self.reference();
        size != u32::MAX && level as f64 >= fraction * size as f64
    }
}

/// The admission policy of a port (an enum matched once per cell; STYLE.md section 3).
/// The policy decides; the port stores, drops and counts.
#[derive(Debug, Clone)]
pub enum Policy {
    CellDrop,
    Ppd { keep_eom: bool },
    DropWhole,
    Epd { threshold: f64 },
    Espd { high: f64, low: f64 },
}

impl Policy {
    pub fn new(spec: PolicySpec) -> Self {
        match spec {
            PolicySpec::CellDrop => Policy::CellDrop,
            PolicySpec::Ppd { keep_eom } => Policy::Ppd { keep_eom },
            PolicySpec::DropWhole => Policy::DropWhole,
            PolicySpec::Epd { threshold } => Policy::Epd { threshold },
            PolicySpec::Espd { high, low } => Policy::Espd { high, low },
        }
    }

    /// Decides whether the port keeps `cell`, updating the VC's frame state `st`.
    #[inline]
    pub fn on_arrival(&self, view: PortView, st: &mut FrameState, cell: &Cell) -> Verdict {
        let first = st.expect_first;
        let eom = cell.is_eom();
        st.expect_first = eom;
        match *self {
            Policy::CellDrop => match view.full() {
                Some(r) => Verdict::Drop(r),
                None => Verdict::Accept,
            },
            Policy::Ppd { keep_eom } => Self::ppd(view, st, eom, keep_eom),
            Policy::DropWhole => {
                if st.discarding {
                    // Fang: "drop subsequent cells until the end of the packet, including the EOM".
                    if eom {
                        st.discarding = false;
                    }
                    return Verdict::Drop(DropReason::FrameTail);
                }
                match view.full() {
                    None => Verdict::Accept,
                    Some(r) => {
                        st.discarding = !eom;
                        Verdict::DropAndPurge(r)
                    }
                }
            }
            Policy::Epd { threshold } => {
                if first && !st.discarding && view.at_or_above(threshold) {
                    // Refuse the whole frame, its EOM included (Romanow & Floyd; Cheon 3.1).
                    st.discarding = !eom;
                    st.drop_eom = true;
                    return Verdict::Drop(DropReason::EarlyDiscard);
                }
                if st.discarding && st.drop_eom {
                    if eom {
                        st.discarding = false;
                        st.drop_eom = false;
                    }
                    return Verdict::Drop(DropReason::EarlyDiscard);
                }
                // An admitted frame that overflows falls back to partial packet discard.
                Self::ppd(view, st, eom, true)
            }
            Policy::Espd { high, low } => {
                // Cheon & Panwar 1998, section 3.2 pseudo-code, line by line.
                if st.red {
                    if eom {
                        let v = if view.full().is_none() {
                            Verdict::Accept
                        } else {
                            Verdict::Drop(DropReason::Selective)
                        };
                        if !view.at_or_above(low) {
                            st.red = false;
                        }
                        v
                    } else {
                        Verdict::Drop(DropReason::Selective)
                    }
                } else if !view.at_or_above(high) && view.full().is_none() {
                    Verdict::Accept
                } else if first || view.full().is_some() {
                    st.red = true;
                    Verdict::Drop(view.full().unwrap_or(DropReason::EarlyDiscard))
                } else {
                    Verdict::Accept
                }
            }
        }
    }

    /// Partial packet discard: after a frame loses a cell, drop the rest of it (keeping the
    /// EOM if `keep_eom`, so reassembly sees the frame boundary).
    #[inline]
    fn ppd(view: PortView, st: &mut FrameState, eom: bool, keep_eom: bool) -> Verdict {
        if st.discarding {
            if !eom {
                return Verdict::Drop(DropReason::FrameTail);
            }
            st.discarding = false;
            if !keep_eom {
                return Verdict::Drop(DropReason::FrameTail);
            }
        }
        match view.full() {
            None => Verdict::Accept,
            Some(r) => {
                st.discarding = !eom;
                st.drop_eom = false;
                Verdict::Drop(r)
            }
        }
    }
}

/// Counters of a port. `*_at_warmup` copies are taken when the warm-up ends.
#[derive(Debug, Clone, Default)]
pub struct PortCounters {
    /// Cells put on the link.
    pub cells_sent: u64,
    /// Cells accepted into the buffer.
    pub cells_accepted: u64,
    /// Cells dropped, by reason.
    pub drops: [u64; DropReason::COUNT],
    /// Cells (sent from this port) of frames that arrived intact at their destination.
    pub effective_cells: u64,
}

impl PortCounters {
    pub fn dropped(&self) -> u64 {
        self.drops.iter().sum()
    }
}

#[derive(Debug, Clone)]
pub struct Port {
    pub name: String,
    /// Node the port belongs to.
    pub node: u32,
    /// Channel (one direction of a link) the port transmits on.
    pub channel: u32,
    pub queueing: Queueing,
    pub vc_limit: u32,
    pub port_limit: u32,
    pub policy: Policy,
    pub slots: Vec<Slot>,
    pub fifo: VecDeque<Cell>,
    /// Round-robin ring of slots that hold a cell and a credit.
    pub ring: VecDeque<u32>,
    pub occupancy: u32,
    pub max_occupancy: u32,
    pub busy: bool,
    pub counters: PortCounters,
    pub at_warmup: PortCounters,
}

impl Port {
    pub fn new(
        name: String,
        node: u32,
        channel: u32,
        queueing: Queueing,
        vc_limit: Option<u32>,
        port_limit: Option<u32>,
        policy: PolicySpec,
    ) -> Self {
        Port {
            name,
            node,
            channel,
            queueing,
            vc_limit: vc_limit.unwrap_or(u32::MAX),
            port_limit: port_limit.unwrap_or(u32::MAX),
            policy: Policy::new(policy),
            slots: Vec::new(),
            fifo: VecDeque::new(),
            ring: VecDeque::new(),
            occupancy: 0,
            max_occupancy: 0,
            busy: false,
            counters: PortCounters::default(),
            at_warmup: PortCounters::default(),
        }
    }

    /// Adds a VC to the port and returns its slot index.
    pub fn add_slot(&mut self, vc: u32, credits: Option<u32>) -> u32 {
        self.slots.push(Slot {
            vc,
            queue: VecDeque::new(),
            count: 0,
            credits: credits.unwrap_or(u32::MAX),
            in_ring: false,
            frame: FrameState::default(),
        });
        (self.slots.len() - 1) as u32
    }

    /// Offers an arriving cell to the port: the policy decides, the port stores or drops.
    #[inline]
    pub fn offer(&mut self, slot: u32, cell: Cell) -> Offer {
        let s = &mut self.slots[slot as usize];
        let view = PortView {
            occupancy: self.occupancy,
            port_limit: self.port_limit,
            vc_count: s.count,
            vc_limit: self.vc_limit,
        };
        match self.policy.on_arrival(view, &mut s.frame, &cell) {
            Verdict::Accept => {
                self.push(slot, cell);
                self.counters.cells_accepted += 1;
                Offer {
                    accepted: true,
                    dropped: 0,
                }
            }
            Verdict::Drop(reason) => {
                self.counters.drops[reason as usize] += 1;
                Offer {
                    accepted: false,
                    dropped: 1,
                }
            }
            Verdict::DropAndPurge(reason) => {
                self.counters.drops[reason as usize] += 1;
                let purged = self.purge_frame(slot, cell.vc, cell.frame);
                self.counters.drops[DropReason::Purged as usize] += purged as u64;
                Offer {
                    accepted: false,
                    dropped: 1 + purged,
                }
            }
        }
    }

    /// Removes the queued cells of frame `frame` of VC `vc` (never the previous frame's EOM:
    /// those cells belong to an earlier frame). Returns how many were removed.
    fn purge_frame(&mut self, slot: u32, vc: u32, frame: u32) -> u32 {
        let mut n = 0u32;
        match self.queueing {
            Queueing::PerVc => {
                let s = &mut self.slots[slot as usize];
                while s.queue.back().is_some_and(|c| c.frame == frame) {
                    s.queue.pop_back();
                    n += 1;
                }
                if s.queue.is_empty() && s.in_ring {
                    s.in_ring = false;
                    self.ring.retain(|&x| x != slot);
                }
            }
            Queueing::Fifo => {
                let before = self.fifo.len();
                self.fifo.retain(|c| !(c.vc == vc && c.frame == frame));
                n = (before - self.fifo.len()) as u32;
            }
        }
        self.slots[slot as usize].count -= n;
        self.occupancy -= n;
        n
    }

    /// Stores a cell unconditionally (host adapters, and accepted cells).
    #[inline]
    pub fn push(&mut self, slot: u32, cell: Cell) {
        self.occupancy += 1;
        self.max_occupancy = self.max_occupancy.max(self.occupancy);
        let s = &mut self.slots[slot as usize];
        s.count += 1;
        match self.queueing {
            Queueing::PerVc => {
                s.queue.push_back(cell);
                if !s.in_ring && s.credits > 0 {
                    s.in_ring = true;
                    self.ring.push_back(slot);
                }
            }
            Queueing::Fifo => self.fifo.push_back(cell),
        }
    }

    /// Takes the next cell to transmit, if any is eligible. Returns it with its slot.
    #[inline]
    pub fn next_cell(&mut self, slot_of: impl Fn(&Cell) -> u32) -> Option<(u32, Cell)> {
        let (slot, cell) = match self.queueing {
            Queueing::PerVc => {
                let slot = self.ring.pop_front()?;
                let s = &mut self.slots[slot as usize];
                let cell = s
                    .queue
                    .pop_front()
                    .expect("a slot in the ring holds a cell");
                if s.credits != u32::MAX {
                    s.credits -= 1;
                }
                if !s.queue.is_empty() && s.credits > 0 {
                    self.ring.push_back(slot);
                } else {
                    s.in_ring = false;
                }
                (slot, cell)
            }
            Queueing::Fifo => {
                let cell = self.fifo.pop_front()?;
                (slot_of(&cell), cell)
            }
        };
        self.slots[slot as usize].count -= 1;
        self.occupancy -= 1;
        Some((slot, cell))
    }

    /// A credit for `slot` came back from downstream.
    #[inline]
    pub fn on_credit(&mut self, slot: u32) {
        let s = &mut self.slots[slot as usize];
        s.credits += 1;
        if !s.in_ring && !s.queue.is_empty() {
            s.in_ring = true;
            self.ring.push_back(slot);
        }
    }

    /// True if a cell could be sent now.
    #[inline]
    pub fn has_eligible(&self) -> bool {
        match self.queueing {
            Queueing::PerVc => !self.ring.is_empty(),
            Queueing::Fifo => !self.fifo.is_empty(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(vc: u32) -> Cell {
        Cell {
            vc,
            frame: 0,
            hop: 0,
            flags: 0,
        }
    }

    #[test]
    fn round_robin_alternates_between_vcs() {
        let mut p = Port::new(
            "p".into(),
            0,
            0,
            Queueing::PerVc,
            None,
            None,
            PolicySpec::CellDrop,
        );
        let a = p.add_slot(0, None);
        let b = p.add_slot(1, None);
        for _ in 0..3 {
            p.push(a, cell(0));
        }
        p.push(b, cell(1));
        let order: Vec<u32> =
            std::iter::from_fn(|| p.next_cell(|c| c.vc).map(|(_, c)| c.vc)).collect();
        assert_eq!(order, vec![0, 1, 0, 0]);
        assert_eq!(p.occupancy, 0);
    }

    #[test]
    fn credits_gate_transmission() {
        let mut p = Port::new(
            "p".into(),
            0,
            0,
            Queueing::PerVc,
            None,
            None,
            PolicySpec::CellDrop,
        );
        let a = p.add_slot(0, Some(2));
        for _ in 0..5 {
            p.push(a, cell(0));
        }
        assert!(p.next_cell(|c| c.vc).is_some());
        assert!(p.next_cell(|c| c.vc).is_some());
        assert!(p.next_cell(|c| c.vc).is_none(), "no credit left");
        p.on_credit(a);
        assert!(p.next_cell(|c| c.vc).is_some());
        assert_eq!(p.slots[a as usize].credits, 0);
    }

    #[test]
    fn cell_drop_respects_vc_and_port_limits() {
        let mut p = Port::new(
            "p".into(),
            0,
            0,
            Queueing::PerVc,
            Some(2),
            Some(3),
            PolicySpec::CellDrop,
        );
        let a = p.add_slot(0, None);
        let b = p.add_slot(1, None);
        let ok = Offer {
            accepted: true,
            dropped: 0,
        };
        let no = Offer {
            accepted: false,
            dropped: 1,
        };
        assert_eq!(p.offer(a, cell(0)), ok);
        assert_eq!(p.offer(a, cell(0)), ok);
        assert_eq!(p.offer(a, cell(0)), no);
        assert_eq!(p.offer(b, cell(1)), ok);
        assert_eq!(p.offer(b, cell(1)), no);
        assert_eq!(p.counters.drops[DropReason::VcBufferFull as usize], 1);
        assert_eq!(p.counters.drops[DropReason::PortBufferFull as usize], 1);
    }
}

#[cfg(test)]
mod policy_tests {
    use super::*;

    /// Feeds frames of `len` cells of VC 0 into a per-VC port of `limit` cells that never
    /// transmits; returns the cells left queued (as frame numbers) and the port.
    fn feed(policy: PolicySpec, limit: u32, frames: &[u32]) -> (Vec<u32>, Port) {
        let mut p = Port::new("p".into(), 0, 0, Queueing::PerVc, Some(limit), None, policy);
        let s = p.add_slot(0, None);
        for (f, &len) in frames.iter().enumerate() {
            for i in 0..len {
                let flags = if i + 1 == len { Cell::EOM } else { 0 };
                p.offer(
                    s,
                    Cell {
                        vc: 0,
                        frame: f as u32,
                        hop: 1,
                        flags,
                    },
                );
            }
        }
        let q = p.slots[s as usize].queue.iter().map(|c| c.frame).collect();
        (q, p)
    }

    #[test]
    fn ppd_keeps_the_eom_of_a_damaged_frame() {
        // Frame 0 (4 cells) fits; frame 1 (4 cells) finds 2 free: 2 kept, 1 dropped, then
        // the tail is dropped except its EOM, which finds no room either... use room for EOM:
        let (q, p) = feed(PolicySpec::Ppd { keep_eom: true }, 7, &[4, 4]);
        // 4 + 3 accepted, the 4th cell of frame 1 is its EOM and the buffer is full.
        assert_eq!(q, vec![0, 0, 0, 0, 1, 1, 1]);
        assert_eq!(p.counters.dropped(), 1);
        let (q, _) = feed(PolicySpec::Ppd { keep_eom: true }, 6, &[4, 4]);
        assert_eq!(q, vec![0, 0, 0, 0, 1, 1]);
    }

    #[test]
    fn ppd_tail_is_dropped_but_eom_kept_when_room() {
        let mut p = Port::new(
            "p".into(),
            0,
            0,
            Queueing::PerVc,
            Some(3),
            None,
            PolicySpec::Ppd { keep_eom: true },
        );
        let s = p.add_slot(0, None);
        let c = |frame, eom: bool| Cell {
            vc: 0,
            frame,
            hop: 1,
            flags: if eom { Cell::EOM } else { 0 },
        };
        for _ in 0..3 {
            assert!(p.offer(s, c(0, false)).accepted);
        }
        assert!(!p.offer(s, c(0, false)).accepted, "full");
        p.next_cell(|c| c.vc); // room appears
        assert!(!p.offer(s, c(0, false)).accepted, "tail of a damaged frame");
        assert!(p.offer(s, c(0, true)).accepted, "its EOM is kept");
        assert!(
            !p.offer(s, c(1, false)).accepted,
            "full again: the next frame's first cell"
        );
        assert_eq!(p.counters.drops[DropReason::FrameTail as usize], 1);
    }

    #[test]
    fn drop_whole_purges_the_frame_back_to_the_previous_eom() {
        // Limit 6: frame 0 (3 cells) + 3 cells of frame 1 fill it; frame 1's 4th cell
        // overflows: purge frame 1's 3 queued cells, drop the rest including its EOM.
        let (q, p) = feed(PolicySpec::DropWhole, 6, &[3, 5, 2]);
        assert_eq!(
            q,
            vec![0, 0, 0, 2, 2],
            "frame 1 is gone whole, frame 2 intact"
        );
        assert_eq!(p.counters.drops[DropReason::Purged as usize], 3);
        assert_eq!(p.counters.drops[DropReason::VcBufferFull as usize], 1);
        assert_eq!(p.counters.drops[DropReason::FrameTail as usize], 1);
        assert_eq!(p.occupancy, 5);
    }

    #[test]
    fn epd_refuses_whole_frames_above_threshold_and_never_cuts_an_admitted_one() {
        // Limit 10, threshold 50%: frames of 3 cells. Frames 0 and 1 start below 5 cells
        // (levels 0 and 3): admitted whole. Frame 2 starts at level 6: refused whole.
        let (q, p) = feed(PolicySpec::Epd { threshold: 0.5 }, 10, &[3, 3, 3]);
        assert_eq!(q, vec![0, 0, 0, 1, 1, 1]);
        assert_eq!(p.counters.drops[DropReason::EarlyDiscard as usize], 3);
        // Frame 1 starts at 4 < 5 and has 8 cells: it overflows at 10 -> PPD keeps EOM if room.
        let (q, p) = feed(PolicySpec::Epd { threshold: 0.5 }, 10, &[4, 8]);
        assert_eq!(q.len(), 10);
        assert_eq!(p.counters.drops[DropReason::EarlyDiscard as usize], 0);
    }

    #[test]
    fn espd_catches_a_vc_until_the_queue_falls_below_low() {
        let mut p = Port::new(
            "p".into(),
            0,
            0,
            Queueing::Fifo,
            None,
            Some(10),
            PolicySpec::Espd {
                high: 0.5,
                low: 0.3,
            },
        );
        let a = p.add_slot(0, None);
        let b = p.add_slot(1, None);
        let c = |vc, frame, eom: bool| Cell {
            vc,
            frame,
            hop: 1,
            flags: if eom { Cell::EOM } else { 0 },
        };
        // VC b fills to 5 cells (50%) with an unfinished frame.
        for _ in 0..5 {
            assert!(p.offer(b, c(1, 0, false)).accepted);
        }
        // VC a starts a frame at 50%: caught (red), dropped.
        assert!(!p.offer(a, c(0, 0, false)).accepted);
        assert!(p.slots[a as usize].frame.red);
        // b's frame continues above high: mid-frame cells are admitted.
        assert!(p.offer(b, c(1, 0, true)).accepted);
        // a's EOM is admitted (room) but a stays red: the queue (6) is not below low (3).
        assert!(p.offer(a, c(0, 0, true)).accepted);
        assert!(p.slots[a as usize].frame.red);
        // a's next frame is discarded entirely while red, even with room.
        assert!(!p.offer(a, c(0, 1, false)).accepted);
        // Drain to 2 cells: a's next EOM releases it.
        while p.occupancy > 2 {
            p.next_cell(|c| c.vc);
        }
        assert!(p.offer(a, c(0, 1, true)).accepted);
        assert!(!p.slots[a as usize].frame.red);
        assert!(
            p.offer(a, c(0, 2, false)).accepted,
            "released: new frames admitted"
        );
    }
}
