//! Which queued cell a port sends next.
//!
//! A scheduler holds a port's cells and picks the next one. It has one or more classes,
//! served in strict priority (the first class that has an eligible cell sends); inside a
//! class the discipline is
//! - **FIFO**: one queue for every VC of the class, cells leave in arrival order;
//! - **round robin**: one queue per VC, the VCs that have an eligible cell take turns, one
//!   cell per turn (Fang et al. 1994: AN2's per-VC queues).
//!
//! A VC of a round-robin class is eligible when it has a cell, a credit for the next hop
//! (AN2 flow control; a link without flow control gives unlimited credits) and, when it is
//! paced, its next cell is due: a paced VC sends no faster than one cell per `interval` (a
//! source adapter keeping a VC at its PCR, or later at an ABR source's ACR). Scheduling is
//! non-preemptive: a cell in transmission finishes before a higher class is looked at.
//!
//! [`SchedulerSpec::Priority`] puts the service categories in three classes, CBR/VBR above
//! ABR above UBR/GFR ([`crate::service::PriorityClass`]). Weighted disciplines would be new
//! variants of [`SchedulerSpec`] and [`Discipline`].

use crate::cell::{Cell, CellWords};
use crate::ids::{Label, VcId};
use crate::service::{PriorityClass, ServiceCategory};
use atmsim_engine::{Ring, SimTime};

/// How the cells of one class are served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Discipline {
    /// One queue, arrival order.
    Fifo,
    /// A queue per VC, one cell per VC per turn.
    RoundRobin,
}

impl Discipline {
    pub const fn name(self) -> &'static str {
        match self {
            Discipline::Fifo => "fifo",
            Discipline::RoundRobin => "round_robin",
        }
    }
}

/// A port's scheduler, as the scenario chooses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchedulerSpec {
    /// Every cell in one class.
    Single(Discipline),
    /// Strict priority by service class: CBR/VBR, then ABR, then UBR/GFR, each class with
    /// its own discipline (indexed by [`PriorityClass`]).
    Priority([Discipline; PriorityClass::COUNT]),
}

impl SchedulerSpec {
    /// The class index a VC of `service` is served in.
    #[inline]
    pub fn class_of(&self, service: ServiceCategory) -> u8 {
        match self {
            SchedulerSpec::Single(_) => 0,
            SchedulerSpec::Priority(_) => service.class() as u8,
        }
    }

    /// The discipline of class `class`.
    pub fn discipline(&self, class: u8) -> Discipline {
        match self {
            SchedulerSpec::Single(d) => *d,
            SchedulerSpec::Priority(d) => d[class as usize],
        }
    }

    /// Number of classes.
    pub fn classes(&self) -> usize {
        match self {
            SchedulerSpec::Single(_) => 1,
            SchedulerSpec::Priority(_) => PriorityClass::COUNT,
        }
    }

    /// Whether a VC in `class` has a queue of its own (credits and pacing need one).
    pub fn per_vc(&self, class: u8) -> bool {
        self.discipline(class) == Discipline::RoundRobin
    }
}

/// A VC paced at a rate: at most one cell per `interval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pacer {
    /// Time between the starts of two cells [ps].
    pub interval: SimTime,
    /// The earliest time the next cell may start [ps].
    pub next_at: SimTime,
}

/// One VC at the scheduler.
#[derive(Debug, Clone)]
struct Slot {
    /// Its cells (round-robin classes only; a FIFO class keeps them in the class queue).
    queue: Ring<CellWords>,
    class: u8,
    /// Credits for the next hop's buffer (`u32::MAX`: no flow control).
    credits: u32,
    /// In its class's ring: it has a cell, a credit, and is due.
    in_ring: bool,
    /// In the waiting list: it has a cell and a credit but is not due yet.
    waiting: bool,
    pace: Option<Pacer>,
}

impl Slot {
    #[inline]
    fn due(&self, now: SimTime) -> bool {
        self.pace.is_none_or(|p| p.next_at <= now)
    }
}

#[derive(Debug, Clone)]
struct Class {
    discipline: Discipline,
    fifo: Ring<CellWords>,
    /// Round robin: the VCs with an eligible cell, in turn order.
    ring: Ring<Label>,
}

/// The cells of one port and the order they leave in.
/// Laid out in the order written (`repr(C)`): what every cell reads first, then the classes,
/// the first (usually the only one in use) ahead of the others.
///
/// A scheduler with a single VC, in a round-robin class (a source adapter sending one VC:
/// every ABR source's, and a cell source's or a TCP's with a VC of its own), keeps that VC's
/// place in its ring or the waiting list in the VC's flags alone (`in_ring`, `waiting`): with
/// one VC the ring and the list hold that VC or nothing, so neither is touched. The cells
/// leave in the same order at the same times as through the ring and the list.
#[derive(Debug, Clone)]
#[repr(C)]
pub struct Scheduler {
    /// One class, FIFO (a UBR switch port's usual shape): [`Scheduler::pop`] takes the head
    /// of that class's queue straight away. Such a scheduler has no solo VC and no waiting
    /// VC (both need per-VC queues).
    one_fifo: bool,
    n_classes: usize,
    /// One VC, in a round-robin class: its ring and waiting-list places are its flags only.
    solo: bool,
    /// The solo VC's one cell is `armed_cell` ([`Scheduler::arm_solo`]).
    solo_armed: bool,
    armed_cell: CellWords,
    slots: Vec<Slot>,
    /// Paced VCs with a cell and a credit that are not due yet, by (due time, label).
    waiting: Vec<Label>,
    /// Highest priority first; the first `n_classes` are in use.
    classes: [Class; PriorityClass::COUNT],
}

impl Scheduler {
    pub fn new(spec: SchedulerSpec) -> Self {
        let class = |c: usize| Class {
            discipline: spec.discipline(c.min(spec.classes() - 1) as u8),
            fifo: Ring::new(),
            ring: Ring::new(),
        };
        Scheduler {
            classes: [class(0), class(1), class(2)],
            one_fifo: spec == SchedulerSpec::Single(Discipline::Fifo),
            n_classes: spec.classes(),
            solo: false,
            solo_armed: false,
            armed_cell: CellWords::from(Cell::data(VcId(0), 0, 0, 0)),
            slots: Vec::new(),
            waiting: Vec::new(),
        }
    }

    /// Adds a VC in class `class` with `credits` (None: no flow control) and an optional
    /// pacing interval; returns its label.
    pub fn add_slot(&mut self, class: u8, credits: Option<u32>, pace: Option<SimTime>) -> Label {
        assert!((class as usize) < self.n_classes, "no class {class}");
        let per_vc = self.classes[class as usize].discipline == Discipline::RoundRobin;
        assert!(
            per_vc || (credits.is_none() && pace.is_none()),
            "credits and pacing need per-VC queues"
        );
        self.slots.push(Slot {
            queue: Ring::new(),
            class,
            credits: credits.unwrap_or(u32::MAX),
            in_ring: false,
            waiting: false,
            pace: pace.map(|interval| Pacer {
                interval,
                next_at: SimTime::ZERO,
            }),
        });
        if self.solo {
            // A second VC: the first one's places go into the ring and the list proper.
            self.solo = false;
            let first = &self.slots[0];
            if first.in_ring {
                self.classes[first.class as usize].ring.push_back(0);
            }
            if first.waiting {
                self.waiting.push(0);
            }
            if std::mem::take(&mut self.solo_armed) {
                self.slots[0].queue.push_back(self.armed_cell);
            }
        }
        self.solo = self.slots.len() == 1 && per_vc;
        Label::try_from(self.slots.len() - 1).expect("at most 65,536 VCs per port")
    }

    /// Queues `cell` of VC `label`, which is served in `class`.
    #[inline(always)]
    pub fn push(&mut self, now: SimTime, label: Label, class: u8, cell: Cell) {
        let c = &mut self.classes[class as usize];
        match c.discipline {
            Discipline::Fifo => c.fifo.push_back(CellWords::from(cell)),
            Discipline::RoundRobin => {
                let s = &mut self.slots[label as usize];
                s.queue.push_back(CellWords::from(cell));
                // Usually the VC is already in its ring: decide that without a call.
                if !s.in_ring && !s.waiting && s.credits > 0 {
                    self.enlist(now, label);
                }
            }
        }
    }

    /// Puts VC `label` in its ring or the waiting list if it has an eligible cell and is in
    /// neither.
    #[inline]
    fn enlist(&mut self, now: SimTime, label: Label) {
        let s = &mut self.slots[label as usize];
        if s.in_ring || s.waiting || (s.queue.is_empty() && !self.solo_armed) || s.credits == 0 {
            return;
        }
        if s.due(now) {
            s.in_ring = true;
            if !self.solo {
                self.classes[s.class as usize].ring.push_back(label);
            }
        } else {
            s.waiting = true;
            if self.solo {
                return;
            }
            let slots = &self.slots;
            let key = |l: Label| (slots[l as usize].pace.map(|p| p.next_at), l);
            let k = key(label);
            // Usually later than every VC already waiting.
            if self.waiting.last().is_none_or(|&l| key(l) < k) {
                self.waiting.push(label);
            } else {
                let at = self.waiting.partition_point(|&l| key(l) < k);
                self.waiting.insert(at, label);
            }
        }
    }

    /// Moves the waiting VCs that are due by `now` into their rings, earliest first.
    #[inline]
    fn promote(&mut self, now: SimTime) {
        while let Some(&label) = self.waiting.first() {
            let s = &mut self.slots[label as usize];
            if !s.due(now) {
                break;
            }
            self.waiting.remove(0);
            s.waiting = false;
            s.in_ring = true;
            self.classes[s.class as usize].ring.push_back(label);
        }
    }

    /// Takes the next cell to send at `now`, if any is eligible; returns it with its class.
    #[inline]
    pub fn pop(&mut self, now: SimTime) -> Option<(Cell, u8)> {
        if self.one_fifo {
            return self.classes[0].fifo.pop_front().map(|c| (Cell::from(c), 0));
        }
        if self.solo {
            return self.pop_solo(now);
        }
        if !self.waiting.is_empty() {
            self.promote(now);
        }
        for ci in 0..self.n_classes {
            let class = &mut self.classes[ci];
            match class.discipline {
                Discipline::Fifo => {
                    if let Some(cell) = class.fifo.pop_front() {
                        return Some((Cell::from(cell), ci as u8));
                    }
                }
                Discipline::RoundRobin => {
                    let Some(label) = class.ring.pop_front() else {
                        continue;
                    };
                    let s = &mut self.slots[label as usize];
                    let cell = s.queue.pop_front().expect("a VC in the ring holds a cell");
                    if s.credits != u32::MAX {
                        s.credits -= 1;
                    }
                    if let Some(p) = &mut s.pace {
                        p.next_at = now + p.interval;
                    }
                    let more = !s.queue.is_empty() && s.credits > 0;
                    if more && s.due(now) {
                        class.ring.push_back(label);
                    } else {
                        s.in_ring = false;
                        if more {
                            self.enlist(now, label); // paced: waits until it is due
                        }
                    }
                    return Some((Cell::from(cell), ci as u8));
                }
            }
        }
        None
    }

    /// [`Scheduler::pop`] of a scheduler with one VC (`solo`): the same steps, with the VC's
    /// flags standing for its ring and the waiting list.
    #[inline]
    fn pop_solo(&mut self, now: SimTime) -> Option<(Cell, u8)> {
        let s = &mut self.slots[0];
        if s.waiting && s.due(now) {
            s.waiting = false;
            s.in_ring = true;
        }
        if !s.in_ring {
            return None;
        }
        let cell = if self.solo_armed {
            self.solo_armed = false;
            self.armed_cell
        } else {
            s.queue.pop_front().expect("a VC in the ring holds a cell")
        };
        if s.credits != u32::MAX {
            s.credits -= 1;
        }
        if let Some(p) = &mut s.pace {
            p.next_at = now + p.interval;
        }
        let more = !s.queue.is_empty() && s.credits > 0;
        if !(more && s.due(now)) {
            s.in_ring = false;
            // Paced: waits until it is due.
            s.waiting = more;
        }
        Some((Cell::from(cell), s.class))
    }

    /// Whether the scheduler has one VC in a round-robin class (its places are its flags).
    #[inline]
    pub fn is_solo(&self) -> bool {
        self.solo
    }

    /// Gives the solo VC its one cell to send, `cell`, held beside its (empty) queue rather
    /// than in it: a VC with at most one cell waiting (an ABR source's placeholder). Its
    /// places follow as [`Scheduler::push`] would set them; [`Scheduler::pop`] takes it.
    #[inline]
    pub fn arm_solo(&mut self, now: SimTime, cell: Cell) {
        debug_assert!(self.solo && !self.solo_armed && self.slots[0].queue.is_empty());
        self.solo_armed = true;
        self.armed_cell = CellWords::from(cell);
        // `enlist` of a solo VC that now holds a cell, without the call: its ring or the
        // waiting list is its flags.
        let s = &mut self.slots[0];
        if !s.in_ring && !s.waiting && s.credits > 0 {
            if s.due(now) {
                s.in_ring = true;
            } else {
                s.waiting = true;
            }
        }
    }

    /// Whether a cell could be sent at `now`.
    #[inline]
    pub fn has_eligible(&self, now: SimTime) -> bool {
        if self.solo {
            let s = &self.slots[0];
            return s.in_ring || (s.waiting && s.due(now));
        }
        self.classes[..self.n_classes]
            .iter()
            .any(|c| !c.fifo.is_empty() || !c.ring.is_empty())
            || self
                .waiting
                .first()
                .is_some_and(|l| self.slots[*l as usize].due(now))
    }

    /// When the earliest waiting paced VC becomes due, if any waits.
    #[inline]
    pub fn next_due(&self) -> Option<SimTime> {
        if self.solo {
            let s = &self.slots[0];
            return s.pace.filter(|_| s.waiting).map(|p| p.next_at);
        }
        self.waiting
            .first()
            .and_then(|l| self.slots[*l as usize].pace.map(|p| p.next_at))
    }

    /// When VC `label`, if paced, may start its next cell.
    #[inline]
    pub fn next_at(&self, label: Label) -> Option<SimTime> {
        self.slots[label as usize].pace.map(|p| p.next_at)
    }

    /// Changes the pacing interval of VC `label` (an ABR source's new ACR): its next cell may
    /// start one new interval after the start of its last one.
    #[inline]
    pub fn set_interval(&mut self, label: Label, interval: SimTime) {
        // An ABR source sets it for every cell; it changes at most once per RM cell.
        let s = &self.slots[label as usize];
        if s.pace.is_none_or(|p| p.interval == interval) {
            return;
        }
        self.change_interval(label, interval);
    }

    #[inline(never)]
    fn change_interval(&mut self, label: Label, interval: SimTime) {
        let s = &mut self.slots[label as usize];
        let Some(p) = &mut s.pace else {
            return;
        };
        let last = p.next_at.saturating_sub(p.interval);
        p.interval = interval;
        p.next_at = last + interval;
        if s.waiting && !self.solo {
            // Its place in the waiting list follows its due time (if it is due now, the next
            // `pop` promotes it).
            self.waiting.retain(|&l| l != label);
            self.reinsert_waiting(label);
        }
    }

    /// Puts waiting VC `label` back in the waiting list, by due time.
    fn reinsert_waiting(&mut self, label: Label) {
        let slots = &self.slots;
        let key = |l: Label| (slots[l as usize].pace.map(|p| p.next_at), l);
        let k = key(label);
        let at = self.waiting.partition_point(|&l| key(l) < k);
        self.waiting.insert(at, label);
    }

    /// A credit for VC `label` came back from the next hop.
    #[inline]
    pub fn on_credit(&mut self, now: SimTime, label: Label) {
        self.slots[label as usize].credits += 1;
        self.enlist(now, label);
    }

    /// Credits VC `label` holds (`u32::MAX`: no flow control).
    pub fn credits(&self, label: Label) -> u32 {
        self.slots[label as usize].credits
    }

    /// Removes the queued cells of frame `frame` of VC `vc` held for `label` (the tail of its
    /// per-VC queue, or anywhere in a FIFO class); returns how many.
    pub fn purge_frame(&mut self, label: Label, vc: VcId, frame: u32) -> u32 {
        let s = &mut self.slots[label as usize];
        let class = &mut self.classes[s.class as usize];
        let is_frame = |c: &CellWords| {
            let c = Cell::from(*c);
            c.vc == vc && c.frame == frame && c.is_data()
        };
        match class.discipline {
            Discipline::RoundRobin => {
                let mut n = 0;
                while s.queue.back().is_some_and(is_frame) {
                    s.queue.pop_back();
                    n += 1;
                }
                if s.queue.is_empty() {
                    if s.in_ring {
                        s.in_ring = false;
                        class.ring.retain(|&x| x != label);
                    }
                    if s.waiting {
                        s.waiting = false;
                        self.waiting.retain(|&x| x != label);
                    }
                }
                n
            }
            Discipline::Fifo => {
                let before = class.fifo.len();
                class.fifo.retain(|c| !is_frame(c));
                (before - class.fifo.len()) as u32
            }
        }
    }

    /// Every queued cell (order unspecified).
    pub fn cells(&self) -> impl Iterator<Item = Cell> + '_ {
        self.classes
            .iter()
            .flat_map(|c| c.fifo.iter())
            .chain(self.slots.iter().flat_map(|s| s.queue.iter()))
            .chain(self.solo_armed.then_some(&self.armed_cell))
            .map(|&w| Cell::from(w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cell(vc: u32, label: Label) -> Cell {
        Cell::data(VcId(vc), 0, label, 0)
    }

    fn drain(s: &mut Scheduler, now: SimTime) -> Vec<u32> {
        std::iter::from_fn(|| s.pop(now).map(|(c, _)| c.vc.0)).collect()
    }

    /// A solo paced VC with credits given its one cell by `arm_solo` leaves at the times a
    /// pushed cell does, and a second VC added later finds the armed cell in the queue.
    #[test]
    fn an_armed_solo_cell_leaves_as_a_pushed_one_would() {
        let us = SimTime::from_us;
        let mk = || {
            let mut s = Scheduler::new(SchedulerSpec::Single(Discipline::RoundRobin));
            s.add_slot(0, Some(2), Some(us(10)));
            s
        };
        let (mut pushed, mut armed) = (mk(), mk());
        let mut out = (Vec::new(), Vec::new());
        for t in [0, 3, 10, 12, 25, 30, 41, 50] {
            let now = us(t);
            if t == 30 {
                pushed.on_credit(now, 0);
                armed.on_credit(now, 0);
            }
            if pushed.slots[0].queue.is_empty() && t % 2 == 0 {
                pushed.push(now, 0, 0, cell(t as u32, 0));
                armed.arm_solo(now, cell(t as u32, 0));
            }
            out.0
                .push((pushed.pop(now).map(|(c, _)| c.vc.0), pushed.next_due()));
            out.1
                .push((armed.pop(now).map(|(c, _)| c.vc.0), armed.next_due()));
            assert_eq!(pushed.cells().count(), armed.cells().count());
        }
        assert_eq!(out.0, out.1);
        assert!(out.0.iter().filter(|(c, _)| c.is_some()).count() >= 2);
        let mut armed = mk();
        armed.arm_solo(us(60), cell(99, 0));
        armed.add_slot(0, None, None);
        assert_eq!(armed.cells().map(|c| c.vc.0).collect::<Vec<_>>(), [99]);
        assert_eq!(armed.pop(us(60)).map(|(c, _)| c.vc.0), Some(99));
    }

    #[test]
    fn round_robin_alternates_between_vcs() {
        let mut s = Scheduler::new(SchedulerSpec::Single(Discipline::RoundRobin));
        let a = s.add_slot(0, None, None);
        let b = s.add_slot(0, None, None);
        for _ in 0..3 {
            s.push(SimTime::ZERO, a, 0, cell(0, a));
        }
        s.push(SimTime::ZERO, b, 0, cell(1, b));
        assert_eq!(drain(&mut s, SimTime::ZERO), vec![0, 1, 0, 0]);
    }

    #[test]
    fn fifo_keeps_arrival_order_across_vcs() {
        let mut s = Scheduler::new(SchedulerSpec::Single(Discipline::Fifo));
        let a = s.add_slot(0, None, None);
        let b = s.add_slot(0, None, None);
        for (vc, l) in [(0, a), (0, a), (1, b), (0, a)] {
            s.push(SimTime::ZERO, l, 0, cell(vc, l));
        }
        assert_eq!(drain(&mut s, SimTime::ZERO), vec![0, 0, 1, 0]);
    }

    #[test]
    fn credits_gate_transmission() {
        let mut s = Scheduler::new(SchedulerSpec::Single(Discipline::RoundRobin));
        let a = s.add_slot(0, Some(2), None);
        for _ in 0..5 {
            s.push(SimTime::ZERO, a, 0, cell(0, a));
        }
        assert_eq!(drain(&mut s, SimTime::ZERO).len(), 2);
        assert!(!s.has_eligible(SimTime::ZERO), "no credit left");
        s.on_credit(SimTime::ZERO, a);
        assert_eq!(drain(&mut s, SimTime::ZERO).len(), 1);
        assert_eq!(s.credits(a), 0);
    }

    #[test]
    fn a_paced_vc_sends_one_cell_per_interval() {
        let mut s = Scheduler::new(SchedulerSpec::Single(Discipline::RoundRobin));
        let us = SimTime::from_us;
        let a = s.add_slot(0, None, Some(us(10)));
        let b = s.add_slot(0, None, None);
        for _ in 0..3 {
            s.push(SimTime::ZERO, a, 0, cell(0, a));
            s.push(SimTime::ZERO, b, 0, cell(1, b));
        }
        // At t = 0 both send; then a waits until 10 us while b empties its queue.
        assert_eq!(drain(&mut s, SimTime::ZERO), vec![0, 1, 1, 1]);
        assert_eq!(s.next_due(), Some(us(10)));
        assert!(!s.has_eligible(us(9)));
        assert!(s.has_eligible(us(10)));
        assert_eq!(drain(&mut s, us(12)), vec![0]);
        assert_eq!(
            s.next_due(),
            Some(us(22)),
            "the interval counts from the send"
        );
        assert_eq!(drain(&mut s, us(22)), vec![0]);
        assert_eq!(s.next_due(), None);
    }

    #[test]
    fn priority_serves_a_lower_class_only_when_higher_ones_are_empty() {
        let spec =
            SchedulerSpec::Priority([Discipline::Fifo, Discipline::RoundRobin, Discipline::Fifo]);
        let mut s = Scheduler::new(spec);
        let ubr = s.add_slot(spec.class_of(ServiceCategory::Ubr), None, None);
        let vbr = s.add_slot(spec.class_of(ServiceCategory::Vbr), None, None);
        let abr = s.add_slot(spec.class_of(ServiceCategory::Abr), None, None);
        s.push(SimTime::ZERO, ubr, 2, cell(2, ubr));
        s.push(SimTime::ZERO, abr, 1, cell(1, abr));
        s.push(SimTime::ZERO, vbr, 0, cell(0, vbr));
        s.push(SimTime::ZERO, ubr, 2, cell(2, ubr));
        s.push(SimTime::ZERO, vbr, 0, cell(0, vbr));
        assert_eq!(drain(&mut s, SimTime::ZERO), vec![0, 0, 1, 2, 2]);
    }

    #[test]
    fn purge_removes_only_the_tail_of_the_frame() {
        let mut s = Scheduler::new(SchedulerSpec::Single(Discipline::RoundRobin));
        let a = s.add_slot(0, None, None);
        let c = |frame| Cell::data(VcId(0), frame, a, 0);
        for f in [1, 1, 2, 2, 2] {
            s.push(SimTime::ZERO, a, 0, c(f));
        }
        assert_eq!(s.purge_frame(a, VcId(0), 2), 3);
        assert_eq!(s.purge_frame(a, VcId(0), 2), 0);
        assert_eq!(drain(&mut s, SimTime::ZERO).len(), 2);
        assert!(!s.has_eligible(SimTime::ZERO));
    }

    /// An operation on a scheduler in a property test.
    #[derive(Debug, Clone)]
    enum Op {
        Push(usize),
        Pop,
        Credit(usize),
    }

    fn ops(vcs: usize) -> impl Strategy<Value = Vec<Op>> {
        proptest::collection::vec(
            prop_oneof![
                4 => (0..vcs).prop_map(Op::Push),
                3 => Just(Op::Pop),
                1 => (0..vcs).prop_map(Op::Credit),
            ],
            1..300,
        )
    }

    /// An operation on a one-VC scheduler, with the time it happens at.
    #[derive(Debug, Clone)]
    enum SoloOp {
        Push,
        Pop,
        Credit,
        /// A new pacing interval [us].
        Interval(u64),
    }

    fn solo_ops() -> impl Strategy<Value = Vec<(u64, SoloOp)>> {
        proptest::collection::vec(
            (
                0u64..15,
                prop_oneof![
                    3 => Just(SoloOp::Push),
                    3 => Just(SoloOp::Pop),
                    1 => Just(SoloOp::Credit),
                    1 => (1u64..20).prop_map(SoloOp::Interval),
                ],
            ),
            1..300,
        )
    }

    proptest! {
        /// A scheduler with one VC keeps the VC's ring and waiting-list places in its flags;
        /// it sends the same cells at the same times, and tells the same next due time and
        /// eligibility, as one that uses the ring and the list (paced or not, with or without
        /// credits, with the interval changing between cells).
        #[test]
        fn one_vc_without_ring_or_list_behaves_as_with_them(
            priority in any::<bool>(),
            paced in proptest::option::of(1u64..20),
            credits in proptest::option::of(0u32..4),
            ops in solo_ops(),
        ) {
            let spec = if priority {
                SchedulerSpec::Priority([Discipline::Fifo, Discipline::RoundRobin, Discipline::Fifo])
            } else {
                SchedulerSpec::Single(Discipline::RoundRobin)
            };
            let class = spec.class_of(ServiceCategory::Abr);
            let us = SimTime::from_us;
            let mut solo = Scheduler::new(spec);
            let a = solo.add_slot(class, credits, paced.map(us));
            prop_assert!(solo.solo);
            let mut general = solo.clone();
            general.solo = false;
            let mut now = SimTime::ZERO;
            let mut n = 0;
            for (dt, op) in ops {
                now += us(dt);
                for s in [&mut solo, &mut general] {
                    match op {
                        SoloOp::Push => s.push(now, a, class, cell(n, a)),
                        SoloOp::Pop => {}
                        // Credits come back only on a flow-controlled link.
                        SoloOp::Credit if credits.is_some() => s.on_credit(now, a),
                        SoloOp::Credit => {}
                        SoloOp::Interval(i) => s.set_interval(a, us(i)),
                    }
                }
                if let SoloOp::Push = op {
                    n += 1;
                }
                prop_assert_eq!(solo.has_eligible(now), general.has_eligible(now));
                if let SoloOp::Pop = op {
                    prop_assert_eq!(solo.pop(now), general.pop(now));
                }
                prop_assert_eq!(solo.next_due(), general.next_due());
                prop_assert_eq!(solo.next_at(a), general.next_at(a));
                prop_assert_eq!(solo.credits(a), general.credits(a));
            }
            prop_assert!(solo.classes.iter().all(|c| c.ring.is_empty()) && solo.waiting.is_empty());
        }

        /// A second VC added to a scheduler that had one: the first keeps its place (the
        /// ring or the waiting list), and both are served as by a scheduler that never had
        /// one VC alone.
        #[test]
        fn a_second_vc_takes_over_the_first_ones_place(
            paced in 1u64..20,
            first in 0usize..3,
            ops in ops(2),
        ) {
            let us = SimTime::from_us;
            let mut s = Scheduler::new(SchedulerSpec::Single(Discipline::RoundRobin));
            let a = s.add_slot(0, None, Some(us(paced)));
            let mut g = s.clone();
            g.solo = false;
            // The first VC sends `first` cells and has one more queued: in the ring or waiting.
            for k in 0..=first {
                s.push(SimTime::ZERO, a, 0, cell(0, a));
                g.push(SimTime::ZERO, a, 0, cell(0, a));
                if k < first {
                    prop_assert_eq!(s.pop(us(k as u64 * paced)), g.pop(us(k as u64 * paced)));
                }
            }
            let b = s.add_slot(0, None, None);
            prop_assert_eq!(g.add_slot(0, None, None), b);
            prop_assert!(!s.solo);
            let labels = [a, b];
            let mut now = us(first as u64 * paced);
            for op in ops {
                now += us(1);
                match op {
                    Op::Push(i) | Op::Credit(i) => {
                        s.push(now, labels[i], 0, cell(i as u32, labels[i]));
                        g.push(now, labels[i], 0, cell(i as u32, labels[i]));
                    }
                    Op::Pop => prop_assert_eq!(s.pop(now), g.pop(now)),
                }
                prop_assert_eq!(s.next_due(), g.next_due());
            }
        }

        /// Strict priority: a cell of a class leaves only when every higher class has no
        /// eligible cell; nothing is lost or duplicated.
        #[test]
        fn strict_priority_never_serves_a_lower_class_first(
            classes in proptest::collection::vec(0u8..3, 1..8),
            disc in proptest::collection::vec(any::<bool>(), 3),
            ops in ops(8),
        ) {
            let d = |b: bool| if b { Discipline::Fifo } else { Discipline::RoundRobin };
            let spec = SchedulerSpec::Priority([d(disc[0]), d(disc[1]), d(disc[2])]);
            let mut s = Scheduler::new(spec);
            let labels: Vec<Label> = classes.iter().map(|&c| s.add_slot(c, None, None)).collect();
            let mut queued = [0u32; 3];
            let (mut pushed, mut popped) = (0, 0);
            for op in ops {
                match op {
                    Op::Push(i) | Op::Credit(i) => {
                        let i = i % labels.len();
                        s.push(SimTime::ZERO, labels[i], classes[i], cell(i as u32, labels[i]));
                        queued[classes[i] as usize] += 1;
                        pushed += 1;
                    }
                    Op::Pop => {
                        if let Some((c, _)) = s.pop(SimTime::ZERO) {
                            let class = classes[c.vc.0 as usize] as usize;
                            prop_assert!(queued[..class].iter().all(|&q| q == 0),
                                "class {class} served while a higher class holds cells: {queued:?}");
                            queued[class] -= 1;
                            popped += 1;
                        } else {
                            prop_assert_eq!(queued, [0, 0, 0]);
                        }
                    }
                }
            }
            prop_assert_eq!(pushed - popped, queued.iter().sum::<u32>());
        }

        /// Round robin: while every VC stays backlogged, the cells sent per VC differ by at
        /// most one.
        #[test]
        fn round_robin_shares_are_within_one_cell(n in 1usize..10, backlog in 1usize..20, pops in 1usize..150) {
            let mut s = Scheduler::new(SchedulerSpec::Single(Discipline::RoundRobin));
            let labels: Vec<Label> = (0..n).map(|_| s.add_slot(0, None, None)).collect();
            for (i, &l) in labels.iter().enumerate() {
                for _ in 0..backlog {
                    s.push(SimTime::ZERO, l, 0, cell(i as u32, l));
                }
            }
            let mut sent = vec![0usize; n];
            for _ in 0..pops.min(n * backlog) {
                let (c, _) = s.pop(SimTime::ZERO).unwrap();
                sent[c.vc.0 as usize] += 1;
                if sent.iter().all(|&k| k < backlog) {
                    let (lo, hi) = (sent.iter().min().unwrap(), sent.iter().max().unwrap());
                    prop_assert!(hi - lo <= 1, "{sent:?}");
                }
            }
        }

        /// Credits: a VC never sends more cells than the credits it was given.
        #[test]
        fn credits_are_never_exceeded(initial in 1u32..6, ops in ops(4)) {
            let mut s = Scheduler::new(SchedulerSpec::Single(Discipline::RoundRobin));
            let labels: Vec<Label> = (0..4).map(|_| s.add_slot(0, Some(initial), None)).collect();
            let mut given = [initial; 4];
            let mut sent = [0u32; 4];
            for op in ops {
                match op {
                    Op::Push(i) => s.push(SimTime::ZERO, labels[i], 0, cell(i as u32, labels[i])),
                    Op::Credit(i) => { given[i] += 1; s.on_credit(SimTime::ZERO, labels[i]); }
                    Op::Pop => if let Some((c, _)) = s.pop(SimTime::ZERO) { sent[c.vc.0 as usize] += 1; },
                }
                for i in 0..4 {
                    prop_assert!(sent[i] <= given[i]);
                    prop_assert_eq!(s.credits(labels[i]), given[i] - sent[i]);
                }
            }
        }
    }
}
