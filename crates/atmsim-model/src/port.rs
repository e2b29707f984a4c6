//! An output port: the cells waiting for one outgoing link, in three parts.
//!
//! - **Buffer accounting** ([`Buffer`]): cells held per VC, per class and in all, against the
//!   per-VC and per-queue limits; what an admission policy reads.
//! - **A scheduler** ([`scheduler::Scheduler`]): the queues and the order cells leave in
//!   (FIFO, per-VC round robin, strict priority between service classes), with per-VC
//!   credits (AN2 flow control on the outgoing link) and pacing (a source adapter sending a
//!   VC no faster than its rate).
//! - **An admission policy** ([`policy::Policy`]): which arriving AAL5 data cells are refused
//!   (cell drop, PPD, drop-whole, EPD, ESPD), with its own per-port state.
//!
//! Every transmitting point is a port: a switch output (bounded buffers, a policy) and a host
//! adapter (unbounded per-VC queues, the host's memory). A VC at a port is known by its
//! label there: the index of its slot, which is also the VCI the port's link carries it
//! under.

pub mod policy;
pub mod scheduler;

use crate::abr::RateControl;
use crate::cell::{Cell, CellWords};
use crate::ids::{Label, NodeId, PortId, SourceId, VcId};
use crate::service::{PriorityClass, ServiceCategory};
use crate::spec::PortSpec;
use atmsim_engine::{RngStream, SimTime};
use policy::{DropReason, Policy, PolicyConfig, PortInfo, PortView, VcShare, Verdict};
use scheduler::{Scheduler, SchedulerSpec};

/// A cell leaving a port, with what its VC's slot says to do as it leaves.
#[derive(Debug, Clone, Copy)]
pub struct Departure {
    pub cell: Cell,
    /// The hop to return a credit to ([`SlotInfo::upstream`]).
    pub upstream: Option<(PortId, Label)>,
    /// The cell source to ask for the VC's next cell ([`SlotInfo::feeder`]).
    pub feeder: Option<SourceId>,
    /// The port's rate control sees the departure, or the VC is an ABR source's: the cell
    /// goes through the rate-controlled path.
    pub rate_controlled: bool,
}

/// What happened to an offered cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offer {
    pub accepted: bool,
    /// Cells of the VC that left the network here: the arriving one if refused, plus purged ones.
    pub dropped: u32,
    /// Why the arriving cell was refused (`None`: accepted).
    pub reason: Option<DropReason>,
}

/// Cells held at a port, per class and in all (per VC: [`SlotInfo::cells`]), and the limits.
#[derive(Debug, Clone)]
pub struct Buffer {
    /// Cells held at the port.
    pub occupancy: u32,
    /// Cells held per scheduler class.
    pub class_occupancy: [u32; PriorityClass::COUNT],
    /// VCs with at least one cell held, per scheduler class.
    pub class_active: [u32; PriorityClass::COUNT],
    /// Per-VC limit [cells] (`u32::MAX`: none).
    pub vc_limit: u32,
    /// Limit of each class's queue [cells] (`u32::MAX`: none).
    pub port_limit: u32,
}

impl Buffer {
    fn new(vc_limit: Option<u32>, port_limit: Option<u32>) -> Self {
        Buffer {
            occupancy: 0,
            class_occupancy: [0; PriorityClass::COUNT],
            class_active: [0; PriorityClass::COUNT],
            vc_limit: vc_limit.unwrap_or(u32::MAX),
            port_limit: port_limit.unwrap_or(u32::MAX),
        }
    }

    #[inline]
    fn view(&self, vc_cells: u32, class: u8) -> PortView {
        PortView {
            occupancy: self.class_occupancy[class as usize],
            port_limit: self.port_limit,
            vc_count: vc_cells,
            vc_limit: self.vc_limit,
            active_vcs: self.class_active[class as usize],
        }
    }

    #[inline]
    fn add(&mut self, slot: &mut SlotInfo, class: u8, n: u32) {
        self.occupancy += n;
        self.class_occupancy[class as usize] += n;
        self.class_active[class as usize] += u32::from(slot.cells == 0 && n > 0);
        slot.cells += n;
    }

    #[inline]
    fn remove(&mut self, slot: &mut SlotInfo, class: u8, n: u32) {
        self.occupancy -= n;
        self.class_occupancy[class as usize] -= n;
        slot.cells -= n;
        self.class_active[class as usize] -= u32::from(slot.cells == 0 && n > 0);
    }
}

/// Counters of a port; a copy is taken when the warm-up ends.
#[derive(Debug, Clone, Default)]
#[repr(C)]
pub struct PortCounters {
    /// Cells put on the link.
    pub cells_sent: u64,
    /// Cells (sent from this port) of frames that arrived intact at their destination.
    pub effective_cells: u64,
    /// Cells dropped, all reasons (the sum of `drops`).
    dropped: u64,
    /// Cells accepted into the buffer.
    pub cells_accepted: u64,
    /// Cells dropped, by reason.
    pub drops: [u64; DropReason::COUNT],
}

impl PortCounters {
    /// Cells dropped, all reasons.
    #[inline]
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Counts `n` cells dropped for `reason`.
    #[inline]
    pub fn count_drops(&mut self, reason: DropReason, n: u64) {
        self.drops[reason as usize] += n;
        self.dropped += n;
    }

    pub(crate) fn minus(&self, b: &PortCounters) -> PortCounters {
        let mut drops = self.drops;
        for (d, x) in drops.iter_mut().zip(b.drops.iter()) {
            *d -= x;
        }
        PortCounters {
            cells_sent: self.cells_sent - b.cells_sent,
            effective_cells: self.effective_cells - b.effective_cells,
            dropped: self.dropped - b.dropped,
            cells_accepted: self.cells_accepted - b.cells_accepted,
            drops,
        }
    }
}

/// What a port knows of a VC beyond its queue.
#[derive(Debug, Clone, Copy)]
pub struct SlotInfo {
    /// The VC (the first one, when several merge into this label).
    pub vc: VcId,
    /// Cells of the VC held at the port (buffer accounting).
    pub cells: u32,
    /// The scheduler class it is served in.
    pub class: u8,
    /// Its cells form AAL5 frames: the admission policy applies to them.
    pub framed: bool,
    /// Its service category (what a rate control counts it as).
    pub service: ServiceCategory,
    /// The previous hop's port and label when that hop sends the VC on credits (AN2 flow
    /// control on its link, a flow-controlled VC): each cell leaving here returns a credit
    /// there. `None` otherwise (first hop, no flow control, a merged VC's shared slot).
    pub upstream: Option<(PortId, Label)>,
    /// At a source adapter, the cell source that feeds the VC (asked for the next cell each
    /// time one leaves).
    pub feeder: Option<SourceId>,
    /// At a source adapter, the VC's ABR source end system (an index into the network's):
    /// the slot then holds one placeholder cell while the ABR source has a cell waiting, and
    /// the ABR source decides, when the slot's turn comes, which cell goes.
    pub abr: Option<u32>,
}

/// A VC to add to a port.
#[derive(Debug, Clone, Copy)]
pub struct NewSlot {
    pub vc: VcId,
    pub service: ServiceCategory,
    pub class: u8,
    pub framed: bool,
    /// The previous hop to return a credit to as each cell leaves ([`SlotInfo::upstream`]).
    pub upstream: Option<(PortId, Label)>,
    /// Credits for the next hop (None: the link has no flow control).
    pub credits: Option<u32>,
    /// Pacing interval (None: not paced).
    pub pace: Option<SimTime>,
    pub feeder: Option<SourceId>,
    pub abr: Option<u32>,
    /// The VC's share of the buffer (per-VC threshold and weight).
    pub share: VcShare,
}

#[derive(Debug)]
///
/// The fields are laid out in the order written (`repr(C)`), hot before cold, so that a
/// cell's visit to a port reads few cache lines; with thousands of ports (one per VC direction
/// at the hosts) those lines are mostly cold. A port starts on a cache line:
/// - line 0: the flags, the buffer accounting and the counters a series sample reads
///   (occupancy, cells sent, effective cells, drops): a sample of thousands of ports reads
///   one line each;
/// - line 1: the rest of the counters (cells accepted; drops by reason, only on a drop), the
///   largest occupancy and whether the policy hears of departures;
/// - line 2: the slots, the rate control and a paced port's times (the end of its hold, its
///   wake-up);
/// - then the scheduler (its classes' queues), the policy, and the cold fields (names,
///   whole-run counts, the warm-up snapshot).
#[repr(C, align(64))]
pub struct Port {
    /// A cell is being serialised.
    pub busy: bool,
    /// The port has one VC and it is paced (a cell source's or an ABR source's adapter): its
    /// transmitter is taken until that VC's next cell is due ([`Port::held_until`]).
    pub sole_paced: bool,
    /// AAL5 data cells take [`Port::offer_judged`]: the policy decides more than whether a
    /// cell fits ([`policy::AdmissionPolicy::FRAME_AWARE`]), or the port marks EFCI
    /// ([`Port::efci_threshold`]).
    frame_policy: bool,
    /// The scheduler class ABR cells queue in (whose length ERICA+ reads).
    pub abr_class: u8,
    pub buffer: Buffer,
    pub counters: PortCounters,
    /// The largest `buffer.occupancy` so far.
    pub max_occupancy: u32,
    /// The policy is told of departures ([`policy::AdmissionPolicy::WANTS_DEPARTURES`]).
    policy_departures: bool,
    pub slots: Vec<SlotInfo>,
    /// The ABR rate control of the port (ERICA, ERICA+, EFCI, FMMRA), if it runs one.
    pub rate: Option<Box<RateControl>>,
    /// A sole-paced port's transmitter is taken until this time (its TxDone event; an
    /// earlier release after an ABR rate increase leaves a stale one, ignored).
    pub held_until: SimTime,
    /// The end of a sole-paced port's last cell on the wire.
    pub tx_end: SimTime,
    /// A wake-up is scheduled for this time (a paced VC becomes due).
    pub wake_at: Option<SimTime>,
    pub sched: Scheduler,
    pub policy: Policy,
    /// Backward RM cells whose ER this port's rate control lowered (whole run).
    pub rm_marked: u64,
    /// `node->next`.
    pub name: String,
    /// Node the port belongs to.
    pub node: NodeId,
    pub at_warmup: PortCounters,
    /// The policy itself is frame-aware ([`policy::AdmissionPolicy::FRAME_AWARE`]).
    policy_judges: bool,
    /// EFCI marking of AAL5 data cells: a cell that finds at least this many cells queued
    /// (in its class) is marked, for ECN at the receiving edge (`u32::MAX`: off).
    pub efci_threshold: u32,
    /// AAL5 data cells this port marked with EFCI (whole run).
    pub efci_marked: u64,
    /// The policy marks EFCI instead of dropping (RED with `ecn_mark`).
    policy_marks: bool,
}

impl Port {
    /// A switch's output port `name` of node `node`, from its spec (its rate control is
    /// set by the wiring); `cell_time` is its link's (the policy may need it), `rng` its admission policy's random
    /// stream.
    pub fn for_switch(
        name: String,
        node: NodeId,
        spec: &PortSpec,
        cell_time: SimTime,
        rng: RngStream,
    ) -> Self {
        Port::new(
            name,
            node,
            spec.scheduler,
            spec.vc_buffer_cells,
            spec.port_buffer_cells,
            &spec.policy,
            cell_time,
            rng,
        )
    }

    /// A host's adapter `name` of node `node`: it queues per VC in host memory without
    /// limit, under `scheduler`, and admits every cell.
    pub fn adapter(
        name: String,
        node: NodeId,
        scheduler: SchedulerSpec,
        cell_time: SimTime,
        rng: RngStream,
    ) -> Self {
        Port::new(
            name,
            node,
            scheduler,
            None,
            None,
            &PolicyConfig::default(),
            cell_time,
            rng,
        )
    }

    /// A port with no VCs; `cell_time` is its link's (the policy may need it).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        node: NodeId,
        scheduler: SchedulerSpec,
        vc_limit: Option<u32>,
        port_limit: Option<u32>,
        policy: &PolicyConfig,
        cell_time: SimTime,
        rng: RngStream,
    ) -> Self {
        let policy_marks = matches!(policy, PolicyConfig::Red(c) if c.ecn_mark);
        let policy = Policy::new(policy, &PortInfo { cell_time }, rng);
        let frame_policy = policy.frame_aware();
        let policy_departures = policy.wants_departures();
        Port {
            name,
            node,
            buffer: Buffer::new(vc_limit, port_limit),
            sched: Scheduler::new(scheduler),
            policy_departures,
            policy,
            slots: Vec::new(),
            busy: false,
            wake_at: None,
            held_until: SimTime::ZERO,
            tx_end: SimTime::ZERO,
            sole_paced: false,
            frame_policy,
            rate: None,
            rm_marked: 0,
            abr_class: scheduler.class_of(ServiceCategory::Abr),
            counters: PortCounters::default(),
            max_occupancy: 0,
            at_warmup: PortCounters::default(),
            policy_judges: frame_policy,
            efci_threshold: u32::MAX,
            efci_marked: 0,
            policy_marks,
        }
    }

    /// Whether the port marks EFCI on AAL5 data cells (by `efci_threshold` or by its policy):
    /// its summary then counts the cells it marked.
    pub fn marks_efci(&self) -> bool {
        self.efci_threshold != u32::MAX || self.policy_marks
    }

    /// Marks AAL5 data cells with EFCI from a queue of `threshold` cells on (`None`: off).
    pub fn set_efci_threshold(&mut self, threshold: Option<u32>) {
        self.efci_threshold = threshold.unwrap_or(u32::MAX);
        self.frame_policy = self.policy_judges || threshold.is_some();
    }

    /// Gives the port's plug-in policy its instance (and rereads whether it wants
    /// departures).
    pub fn bind_policy(&mut self, inner: Box<dyn crate::plugin::DynPolicy>) {
        if let Policy::Python(p) = &mut self.policy {
            p.bind(inner);
            self.policy_departures = self.policy.wants_departures();
        }
    }

    /// Adds a VC to the port and returns its label.
    pub fn add_slot(&mut self, s: NewSlot) -> Label {
        let label = self.sched.add_slot(s.class, s.credits, s.pace);
        // An ABR VC's rate changes between cells too: a backward RM cell that raises it
        // releases the transmitter sooner (`Network::abr_feedback`).
        self.sole_paced = label == 0 && s.pace.is_some();
        self.policy.add_vc(&s.share);
        if let Some(r) = &mut self.rate {
            r.add_vc();
        }
        self.slots.push(SlotInfo {
            vc: s.vc,
            cells: 0,
            class: s.class,
            framed: s.framed,
            service: s.service,
            upstream: s.upstream,
            feeder: s.feeder,
            abr: s.abr,
        });
        label
    }

    /// Cells queued here.
    #[inline]
    pub fn occupancy(&self) -> u32 {
        self.buffer.occupancy
    }

    /// Cells queued in the ABR class (the whole port under a one-class scheduler).
    #[inline]
    pub fn abr_queue(&self) -> u32 {
        self.buffer.class_occupancy[self.abr_class as usize]
    }

    /// Offers an arriving cell of VC `label`: the policy decides (for AAL5 data cells; any
    /// other cell, and any cell under a policy that only asks whether it fits, is kept if it
    /// fits), the port stores or drops.
    ///
    /// The common case, a cell the policy need not see that fits, runs inline; a policy's
    /// verdict and every drop take a call ([`Port::offer_judged`]).
    #[inline(always)]
    pub fn offer(&mut self, now: SimTime, label: Label, cell: Cell) -> Offer {
        let slot = &mut self.slots[label as usize];
        let class = slot.class;
        if (self.frame_policy && slot.framed && cell.is_data())
            || self.buffer.view(slot.cells, class).full().is_some()
        {
            return self.offer_judged(now, label, CellWords::from(cell));
        }
        self.accept(now, label, class, cell);
        Offer {
            accepted: true,
            dropped: 0,
            reason: None,
        }
    }

    /// Stores an admitted cell of VC `label` (served in `class`).
    #[inline(always)]
    fn accept(&mut self, now: SimTime, label: Label, class: u8, cell: Cell) {
        let slot = &mut self.slots[label as usize];
        self.buffer.add(slot, class, 1);
        self.max_occupancy = self.max_occupancy.max(self.buffer.occupancy);
        self.sched.push(now, label, class, cell);
        self.counters.cells_accepted += 1;
    }

    /// [`Port::offer`] of a cell the policy judges or that does not fit.
    #[inline(never)]
    fn offer_judged(&mut self, now: SimTime, label: Label, cell: CellWords) -> Offer {
        let mut cell = Cell::from(cell);
        let slot = &mut self.slots[label as usize];
        let class = slot.class;
        let view = self.buffer.view(slot.cells, class);
        let judged = slot.framed && cell.is_data();
        if judged && view.occupancy >= self.efci_threshold {
            cell.set_efci();
            self.efci_marked += 1;
        }
        let verdict = if self.policy_judges && judged {
            self.policy.on_arrival(now, view, label, &cell)
        } else {
            match view.full() {
                Some(r) => Verdict::Drop(r),
                None => Verdict::Accept,
            }
        };
        match verdict {
            Verdict::Accept => {
                self.accept(now, label, class, cell);
                Offer {
                    accepted: true,
                    dropped: 0,
                    reason: None,
                }
            }
            Verdict::AcceptMarked => {
                if !cell.is_efci() {
                    cell.set_efci();
                    self.efci_marked += 1;
                }
                self.accept(now, label, class, cell);
                Offer {
                    accepted: true,
                    dropped: 0,
                    reason: None,
                }
            }
            Verdict::Drop(reason) => {
                self.counters.count_drops(reason, 1);
                Offer {
                    accepted: false,
                    dropped: 1,
                    reason: Some(reason),
                }
            }
            Verdict::DropAndPurge(reason) => {
                self.counters.count_drops(reason, 1);
                let purged = self.sched.purge_frame(label, cell.vc, cell.frame);
                self.buffer
                    .remove(&mut self.slots[label as usize], class, purged);
                self.counters.count_drops(DropReason::Purged, purged as u64);
                Offer {
                    accepted: false,
                    dropped: 1 + purged,
                    reason: Some(reason),
                }
            }
        }
    }

    /// Stores a cell unconditionally (host adapters, and accepted cells).
    #[inline]
    pub fn push(&mut self, now: SimTime, label: Label, cell: Cell) {
        let slot = &mut self.slots[label as usize];
        let class = slot.class;
        self.buffer.add(slot, class, 1);
        self.max_occupancy = self.max_occupancy.max(self.buffer.occupancy);
        self.sched.push(now, label, class, cell);
    }

    /// [`Port::push`] of the one cell a port's only VC holds at a time (an ABR source's
    /// placeholder, at an adapter whose scheduler [`Scheduler::is_solo`]): held beside the
    /// VC's queue, not in it ([`Scheduler::arm_solo`]); the buffer counts it the same.
    #[inline]
    pub fn push_solo(&mut self, now: SimTime, cell: Cell) {
        let slot = &mut self.slots[0];
        let class = slot.class;
        self.buffer.add(slot, class, 1);
        self.max_occupancy = self.max_occupancy.max(self.buffer.occupancy);
        self.sched.arm_solo(now, cell);
    }

    /// Takes the next cell to transmit at `now`, if any is eligible.
    #[inline]
    pub fn next_cell(&mut self, now: SimTime) -> Option<Cell> {
        self.next_departure(now).map(|d| d.cell)
    }

    /// [`Port::next_cell`], with what the network does as the cell leaves, read from its
    /// VC's slot in the same visit.
    #[inline(always)]
    pub fn next_departure(&mut self, now: SimTime) -> Option<Departure> {
        let (cell, class) = self.sched.pop(now)?;
        let slot = &mut self.slots[cell.label as usize];
        self.buffer.remove(slot, class, 1);
        let d = Departure {
            cell,
            upstream: slot.upstream,
            feeder: slot.feeder,
            rate_controlled: slot.abr.is_some()
                || self
                    .rate
                    .as_ref()
                    .is_some_and(|r| r.sees_departure(slot.service)),
        };
        // Of the VCs whose cells the policy sees (AAL5 VCs), RM cells included.
        if self.policy_departures && slot.framed {
            let after = self.buffer.view(slot.cells, class);
            self.policy_departure(now, after, cell.label);
        }
        Some(d)
    }

    /// Tells the policy of a departure (out of line: only the time-aware policies hear of
    /// departures, and the departure path of every other port stays short).
    #[inline(never)]
    fn policy_departure(&mut self, now: SimTime, after: PortView, label: Label) {
        self.policy.on_departure(now, after, label);
    }

    /// A credit for VC `label` came back from downstream.
    #[inline]
    pub fn on_credit(&mut self, now: SimTime, label: Label) {
        self.sched.on_credit(now, label);
    }

    /// Whether VC `label` sends on credits (AN2 flow control on this port's link).
    #[inline(always)]
    pub fn flow_controlled(&self, label: Label) -> bool {
        self.sched.credits(label) != u32::MAX
    }
}

#[cfg(test)]
mod tests {
    use super::policy::{CellDropConfig, EpdConfig, PpdConfig};
    use super::scheduler::Discipline;
    use super::*;
    use proptest::prelude::*;

    /// A sample reads a port's occupancy, cells sent, effective cells and drops: all in the
    /// port's first cache line (ports start on a line).
    #[test]
    fn what_a_sample_reads_is_in_the_first_line() {
        use std::mem::{align_of, offset_of};
        assert_eq!(align_of::<Port>(), 64);
        let counters = offset_of!(Port, counters);
        for end in [
            offset_of!(Port, buffer) + offset_of!(Buffer, occupancy) + 4,
            counters + offset_of!(PortCounters, cells_sent) + 8,
            counters + offset_of!(PortCounters, effective_cells) + 8,
            counters + offset_of!(PortCounters, dropped) + 8,
        ] {
            assert!(end <= 64, "a sampled field ends at byte {end}");
        }
    }

    /// What every cell's visit reads or writes of the port itself (the scheduler and the
    /// slots aside) lies in its first three lines.
    #[test]
    fn what_a_cell_touches_is_in_the_first_three_lines() {
        use std::mem::{offset_of, size_of};
        let counters = offset_of!(Port, counters);
        for (field, end) in [
            (
                "cells_accepted",
                counters + offset_of!(PortCounters, cells_accepted) + 8,
            ),
            ("max_occupancy", offset_of!(Port, max_occupancy) + 4),
            ("policy_departures", offset_of!(Port, policy_departures) + 1),
            (
                "slots",
                offset_of!(Port, slots) + size_of::<Vec<SlotInfo>>(),
            ),
            (
                "rate",
                offset_of!(Port, rate) + size_of::<Option<Box<RateControl>>>(),
            ),
            ("held_until", offset_of!(Port, held_until) + 8),
            (
                "wake_at",
                offset_of!(Port, wake_at) + size_of::<Option<SimTime>>(),
            ),
        ] {
            assert!(end <= 192, "{field} ends at byte {end}");
        }
    }

    fn port(s: Discipline, vc: Option<u32>, limit: Option<u32>, policy: PolicyConfig) -> Port {
        Port::new(
            "p".into(),
            NodeId(0),
            SchedulerSpec::Single(s),
            vc,
            limit,
            &policy,
            SimTime::from_us(1),
            atmsim_engine::RngStreams::new(1).stream(0),
        )
    }

    fn slot(p: &mut Port, vc: u32) -> Label {
        p.add_slot(NewSlot {
            vc: VcId(vc),
            service: ServiceCategory::Ubr,
            class: 0,
            framed: true,
            upstream: None,
            credits: None,
            pace: None,
            feeder: None,
            abr: None,
            // A threshold for the per-VC policies (Goyal's threshold and GFR).
            share: VcShare {
                threshold: Some(4 + vc),
                weight: 1.0,
            },
        })
    }

    const T0: SimTime = SimTime::ZERO;

    #[test]
    fn cell_drop_respects_vc_and_port_limits() {
        let cd = PolicyConfig::CellDrop(CellDropConfig {});
        let mut p = port(Discipline::RoundRobin, Some(2), Some(3), cd);
        let a = slot(&mut p, 0);
        let b = slot(&mut p, 1);
        let c = |vc, l| Cell::data(VcId(vc), 0, l, 0);
        let ok = Offer {
            accepted: true,
            dropped: 0,
            reason: None,
        };
        let no = |r| Offer {
            accepted: false,
            dropped: 1,
            reason: Some(r),
        };
        assert_eq!(p.offer(T0, a, c(0, a)), ok);
        assert_eq!(p.offer(T0, a, c(0, a)), ok);
        assert_eq!(p.offer(T0, a, c(0, a)), no(DropReason::VcBufferFull));
        assert_eq!(p.offer(T0, b, c(1, b)), ok);
        assert_eq!(p.offer(T0, b, c(1, b)), no(DropReason::PortBufferFull));
        assert_eq!(p.counters.drops[DropReason::VcBufferFull as usize], 1);
        assert_eq!(p.counters.drops[DropReason::PortBufferFull as usize], 1);
    }

    #[test]
    fn rm_cells_and_unframed_cells_bypass_the_frame_policy() {
        // EPD at 50% of 4 cells: a frame starting at 2 cells would be refused; an RM cell
        // and a cell of a non-AAL5 VC are kept while there is room.
        let epd = PolicyConfig::Epd(EpdConfig {
            threshold: 0.5,
            compare: Default::default(),
        });
        let mut p = port(Discipline::Fifo, None, Some(4), epd);
        let a = slot(&mut p, 0);
        let raw = p.add_slot(NewSlot {
            vc: VcId(1),
            service: ServiceCategory::Ubr,
            class: 0,
            framed: false,
            upstream: None,
            credits: None,
            pace: None,
            feeder: None,
            abr: None,
            share: VcShare::default(),
        });
        let data = |f, eom| Cell::data(VcId(0), f, a, if eom { Cell::EOM } else { 0 });
        assert!(p.offer(T0, a, data(0, false)).accepted);
        assert!(p.offer(T0, a, data(0, true)).accepted);
        let mut rm = data(7, false);
        rm.kind = crate::cell::CellKind::ForwardRm;
        assert!(
            p.offer(T0, a, rm).accepted,
            "RM cell kept above the threshold"
        );
        assert!(
            !p.offer(T0, a, data(1, false)).accepted,
            "new frame refused (EPD)"
        );
        assert!(p.offer(T0, raw, Cell::data(VcId(1), 0, raw, 0)).accepted);
        assert!(
            !p.offer(T0, raw, Cell::data(VcId(1), 1, raw, 0)).accepted,
            "full"
        );
        assert_eq!(p.counters.drops[DropReason::PortBufferFull as usize], 1);
    }

    #[test]
    fn a_policy_is_told_of_departures_of_the_vcs_it_sees_only() {
        // RED with w_q 1/2 and s = 1 cell time (1 us): its average decays by half per
        // microsecond the queue is empty of AAL5 cells.
        let red = PolicyConfig::Red(policy::RedConfig {
            min_th: 0.5,
            max_th: 0.9,
            w_q: 0.5,
            max_p: 0.02,
            packet_size: atmsim_units::Cells(1),
            ecn_mark: false,
        });
        let mut p = port(Discipline::Fifo, None, Some(100), red);
        let a = slot(&mut p, 0);
        let raw = p.add_slot(NewSlot {
            vc: VcId(1),
            service: ServiceCategory::Vbr,
            class: 0,
            framed: false,
            upstream: None,
            credits: None,
            pace: None,
            feeder: None,
            abr: None,
            share: VcShare::default(),
        });
        let us = SimTime::from_us;
        let avg = |p: &Port| match &p.policy {
            Policy::Red(r) => r.avg(),
            _ => unreachable!(),
        };
        let cell = |f| Cell::data(VcId(0), f, a, Cell::EOM);
        // Two one-cell frames: the second samples 1 cell, avg = 1/2.
        assert!(p.offer(us(0), a, cell(0)).accepted);
        assert!(p.offer(us(0), a, cell(1)).accepted);
        assert_eq!(avg(&p), 0.5);
        // Both leave at 10 us: the queue is empty from then. A VBR cell passes through
        // from 20 to 30 us, unseen: at 40 us the queue has been empty of AAL5 cells 30 us.
        p.next_cell(us(10));
        p.next_cell(us(10));
        assert!(
            p.offer(us(20), raw, Cell::data(VcId(1), 0, raw, 0))
                .accepted
        );
        p.next_cell(us(30));
        assert!(p.offer(us(40), a, cell(2)).accepted);
        assert_eq!(avg(&p), 0.5 * 0.5f64.powi(30));
    }

    /// A frame-by-frame event for the property tests.
    #[derive(Debug, Clone)]
    enum Ev {
        /// A whole frame of `len` cells of VC `vc` arrives, interleaved cell by cell with
        /// the other frames in flight.
        Cell(usize),
        Rm(usize),
        Send,
    }

    /// Numbers the cells of three VCs' frames of `lens` cells, EOM on each frame's last.
    struct Frames {
        lens: Vec<u32>,
        next: [u32; 3],
        frame: [u32; 3],
    }

    impl Frames {
        fn new(lens: Vec<u32>) -> Self {
            Frames {
                lens,
                next: [0; 3],
                frame: [0; 3],
            }
        }

        /// The next cell of VC `v`, under `label`.
        fn cell(&mut self, v: usize, label: Label) -> Cell {
            self.next[v] += 1;
            let eom = self.next[v] == self.lens[v];
            let c = Cell::data(
                VcId(v as u32),
                self.frame[v],
                label,
                if eom { Cell::EOM } else { 0 },
            );
            if eom {
                self.next[v] = 0;
                self.frame[v] += 1;
            }
            c
        }
    }

    fn evs() -> impl Strategy<Value = Vec<Ev>> {
        proptest::collection::vec(
            prop_oneof![
                6 => (0usize..3).prop_map(Ev::Cell),
                1 => (0usize..3).prop_map(Ev::Rm),
                3 => Just(Ev::Send),
            ],
            1..400,
        )
    }

    fn policies() -> impl Strategy<Value = PolicyConfig> {
        prop_oneof![
            Just(PolicyConfig::CellDrop(CellDropConfig {})),
            any::<bool>().prop_map(|keep_eom| PolicyConfig::Ppd(PpdConfig { keep_eom })),
            Just(PolicyConfig::DropWhole(policy::DropWholeConfig {})),
            (0.1f64..1.0).prop_map(|threshold| PolicyConfig::Epd(EpdConfig {
                threshold,
                compare: Default::default()
            })),
            (0.1f64..1.0, 0.1f64..1.0).prop_map(|(a, b)| PolicyConfig::Espd(policy::EspdConfig {
                high: a.max(b),
                low: a.min(b)
            })),
            Just(PolicyConfig::Threshold(policy::ThresholdConfig {})),
            (0.1f64..=1.0, 1.01f64..3.0)
                .prop_map(|(threshold, z)| PolicyConfig::Gfr(policy::GfrConfig { threshold, z })),
            (0.1f64..=1.0, 0.1f64..2.0).prop_map(|(threshold, z)| PolicyConfig::SelectiveDrop(
                policy::SelectiveDropConfig { threshold, z }
            )),
            (0.1f64..0.99, 0.1f64..2.0)
                .prop_map(|(threshold, z)| PolicyConfig::Fba(policy::FbaConfig { threshold, z })),
            (
                0.05f64..0.5,
                0.5f64..=1.0,
                0.01f64..=1.0,
                0.01f64..=1.0,
                1u32..20
            )
                .prop_map(|(min_th, max_th, w_q, max_p, cells)| PolicyConfig::Red(
                    policy::RedConfig {
                        min_th,
                        max_th,
                        w_q,
                        max_p,
                        packet_size: atmsim_units::Cells(cells),
                        ecn_mark: false,
                    }
                )),
        ]
    }

    proptest! {
        /// Under every policy and both disciplines: cells are conserved (offered = queued +
        /// dropped + sent), RM cells are never dropped by a frame rule, and the buffer
        /// accounting matches the cells actually queued.
        #[test]
        fn cells_are_conserved_and_rm_cells_never_count_as_frame_cells(
            policy in policies(),
            fifo in any::<bool>(),
            limit in 3u32..40,
            lens in proptest::collection::vec(1u32..12, 3),
            evs in evs(),
        ) {
            let disc = if fifo { Discipline::Fifo } else { Discipline::RoundRobin };
            let (vc_limit, port_limit) = if fifo { (None, Some(limit)) } else { (Some(limit), None) };
            let mut p = port(disc, vc_limit, port_limit, policy);
            let labels: Vec<Label> = (0..3).map(|v| slot(&mut p, v)).collect();
            let mut frames = Frames::new(lens);
            let (mut offered, mut sent, mut dropped) = (0u64, 0u64, 0u64);
            let (mut rm_offered, mut rm_dropped, mut rm_sent) = (0u64, 0u64, 0u64);
            // A cell time per event (RED's average decays with the time its queue idles).
            let mut now = T0;
            for ev in evs {
                now += SimTime::from_us(1);
                match ev {
                    Ev::Cell(v) => {
                        let c = frames.cell(v, labels[v]);
                        offered += 1;
                        dropped += p.offer(now, labels[v], c).dropped as u64;
                    }
                    Ev::Rm(v) => {
                        let mut c = Cell::data(VcId(v as u32), 1_000_000, labels[v], 0);
                        c.kind = crate::cell::CellKind::BackwardRm;
                        offered += 1;
                        rm_offered += 1;
                        let o = p.offer(now, labels[v], c);
                        if !o.accepted {
                            prop_assert_eq!(o.dropped, 1, "an RM drop never purges");
                            prop_assert!(p.occupancy() >= limit, "an RM cell is dropped only when full");
                            rm_dropped += 1;
                        }
                        dropped += o.dropped as u64;
                    }
                    Ev::Send => if let Some(c) = p.next_cell(now) {
                        sent += 1;
                        if c.is_rm() { rm_sent += 1; }
                    },
                }
                let queued = p.sched.cells().count() as u64;
                prop_assert_eq!(queued, p.occupancy() as u64);
                prop_assert_eq!(offered, queued + dropped + sent);
                let per_vc: u32 = p.slots.iter().map(|s| s.cells).sum();
                prop_assert_eq!(per_vc, p.occupancy());
                let active = p.slots.iter().filter(|s| s.cells > 0).count() as u32;
                prop_assert_eq!(active, p.buffer.class_active[0]);
            }
            let rm_queued = p.sched.cells().filter(|c| c.is_rm()).count() as u64;
            prop_assert_eq!(rm_offered, rm_queued + rm_dropped + rm_sent, "no RM cell is purged with a frame");
        }

        /// EPD never cuts a frame it admitted unless the buffer itself overflows, and never
        /// keeps the tail of a frame it refused: every frame leaves the port whole, refused
        /// whole, or (overflow) cut and then dropped to its EOM.
        #[test]
        fn epd_sends_whole_frames_when_the_buffer_never_overflows(
            threshold in 0.1f64..0.6,
            lens in proptest::collection::vec(1u32..6, 3),
            evs in evs(),
        ) {
            // A buffer of 60 cells with the threshold at most 60%: at most 36 + 3 frames of
            // up to 6 cells in progress... a started frame always finds room.
            let mut p = port(Discipline::Fifo, None, Some(60), PolicyConfig::Epd(EpdConfig { threshold, compare: Default::default() }));
            let labels: Vec<Label> = (0..3).map(|v| slot(&mut p, v)).collect();
            let mut frames = Frames::new(lens.clone());
            let mut out: Vec<Vec<(u32, bool)>> = vec![Vec::new(); 3];
            for ev in evs {
                match ev {
                    Ev::Cell(v) | Ev::Rm(v) => {
                        let c = frames.cell(v, labels[v]);
                        p.offer(T0, labels[v], c);
                    }
                    Ev::Send => if let Some(c) = p.next_cell(T0) {
                        out[c.vc.idx()].push((c.frame, c.is_eom()));
                    },
                }
            }
            while let Some(c) = p.next_cell(T0) {
                out[c.vc.idx()].push((c.frame, c.is_eom()));
            }
            prop_assert_eq!(p.counters.drops[DropReason::VcBufferFull as usize] + p.counters.drops[DropReason::PortBufferFull as usize], 0);
            for (v, cells) in out.iter().enumerate() {
                // Frames that left: each complete (lens[v] cells ending in EOM) except the last
                // one still being fed.
                let mut i = 0;
                while i < cells.len() {
                    let f = cells[i].0;
                    let n = cells[i..].iter().take_while(|c| c.0 == f).count();
                    let complete = f < frames.frame[v];
                    if complete {
                        prop_assert_eq!(n as u32, lens[v], "frame {} of VC {} cut", f, v);
                        prop_assert!(cells[i + n - 1].1);
                    }
                    i += n;
                }
            }
        }

        /// Drop-whole with FIFO queueing: conservation, and no frame leaves the port with a
        /// cell missing (a frame is sent whole or not at all, unless its first cells left
        /// before the overflow).
        #[test]
        fn drop_whole_leaves_no_partial_frame_in_the_buffer(
            limit in 5u32..30,
            lens in proptest::collection::vec(1u32..10, 3),
            evs in evs(),
        ) {
            let mut p = port(Discipline::Fifo, None, Some(limit), PolicyConfig::DropWhole(policy::DropWholeConfig {}));
            let labels: Vec<Label> = (0..3).map(|v| slot(&mut p, v)).collect();
            let mut frames = Frames::new(lens.clone());
            let mut cut = [u32::MAX; 3];
            let (mut offered, mut dropped, mut sent) = (0u64, 0u64, 0u64);
            for ev in evs {
                match ev {
                    Ev::Cell(v) | Ev::Rm(v) => {
                        let c = frames.cell(v, labels[v]);
                        offered += 1;
                        let o = p.offer(T0, labels[v], c);
                        if !o.accepted { cut[v] = c.frame; }
                        dropped += o.dropped as u64;
                    }
                    Ev::Send => if p.next_cell(T0).is_some() { sent += 1; },
                }
                prop_assert_eq!(offered, p.occupancy() as u64 + dropped + sent);
                for (v, &f) in cut.iter().enumerate() {
                    let left = p.sched.cells().filter(|c| c.vc.idx() == v && c.frame == f).count();
                    prop_assert_eq!(left, 0, "cells of a cut frame still queued");
                }
            }
        }
    }
}
