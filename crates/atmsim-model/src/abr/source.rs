//! The ABR source end system (ATM Forum TM 4.0 section 5.10.4, source rules 1-13), sans IO.
//!
//! An [`AbrSource`] sits at the source host's adapter between the cells that want to go (an
//! AAL5 frame's data cells, and the backward RM cells this host turns round for the VC of the
//! opposite direction) and the link. It decides what the next in-rate cell is and keeps the
//! allowed cell rate (ACR) that the adapter paces the VC at:
//!
//! - **Rate** (rule 1): cells leave at most at ACR; MCR <= ACR <= PCR always. At start ACR =
//!   ICR (rule 2; the scenario layer gives the ICR already bounded by TBE / FRTT and within
//!   [MCR, PCR]).
//! - **Which cell** (rule 3), each time the adapter may send: a forward RM cell if this is the
//!   first in-rate cell, or Nrm - 1 in-rate cells went out since the last in-rate forward RM
//!   cell, or at least Mrm did and Trm has passed; otherwise a waiting backward RM cell if no
//!   in-rate backward RM cell went out since the last forward one or no data cell waits;
//!   otherwise a data cell. A source with nothing waiting sends nothing (it does not send a
//!   forward RM cell on its own).
//! - **Just before an in-rate forward RM cell** (rules 5-7): ACR falls back to ICR if more
//!   than ADTF passed since the previous one (use it or lose it), then, if CRM forward RM
//!   cells went out since the last backward RM cell with BN = 0, ACR is cut by ACR x CDF
//!   (never below MCR); the cell carries CCR = ACR.
//! - **On a backward RM cell** (rules 8-9): CI = 1 cuts ACR by ACR x RDF; otherwise, unless
//!   NI = 1, ACR grows by RIF x PCR; then ACR = max(MCR, min(ACR, ER, PCR)). A BRM with
//!   BN = 0 resets the count of unanswered forward RM cells.
//! - **Out of rate** (rule 11): when ACR is below TCR the source sends no in-rate cells; while
//!   it has cells waiting it sends, at TCR, backward RM cells that wait and otherwise forward
//!   RM cells, with CLP = 1, outside the in-rate counts, so the feedback loop stays alive.
//! - Data cells leave with CLP = 0 and EFCI cleared (rules 4 and 12).
//!
//! The source queue holds the data cells waiting for their turn; it is finite when the
//! scenario says so (`source_buffer`): a data cell that finds it full is lost at the source
//! (an edge router that can only drop, as in Kalyanaraman et al. 1996), counted apart from the
//! switches' drops; or, if the source drops frames (`source_drop = "frames"`), a frame whose
//! cells do not all fit is lost whole ([`AbrSource::admit_frame`]).
//!
//! The caller (the network) makes the cells: [`AbrSource::next`] says which kind goes now and
//! updates the counts and the rate as if it went; [`AbrSource::interval`] is the pacing
//! interval to use for the next cell.

use crate::cell::Cell;
use atmsim_engine::SimTime;
use std::collections::VecDeque;

/// TM 4.0's ABR parameters of one VC (section 5.10.2), rates in cells per second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AbrParams {
    /// Peak cell rate.
    pub pcr: f64,
    /// Minimum cell rate.
    pub mcr: f64,
    /// Initial cell rate: the ACR the source starts at and falls back to after ADTF idle.
    /// It is the ICR the source uses, resolved once, in the scenario layer: TM 4.0's ICR
    /// bounded by TBE / FRTT (source rule 2), within [MCR, PCR].
    pub icr: f64,
    /// Tagged cell rate: the rate of out-of-rate RM cells.
    pub tcr: f64,
    /// At most one forward RM cell per Nrm cells.
    pub nrm: u32,
    /// At least Mrm in-rate cells between forward RM cells sent because Trm passed.
    pub mrm: u32,
    /// At most Trm between forward RM cells (when at least Mrm cells went).
    pub trm: SimTime,
    /// Rate increase factor (additive: RIF x PCR per backward RM cell).
    pub rif: f64,
    /// Rate decrease factor (multiplicative: ACR x RDF).
    pub rdf: f64,
    /// ACR decrease time factor: idle longer than this before a forward RM cell, ACR = ICR.
    pub adtf: SimTime,
    /// Transient buffer exposure [cells].
    pub tbe: u64,
    /// Cutoff decrease factor (on missing feedback).
    pub cdf: f64,
    /// Fixed round-trip time of the connection (the path's round trip unless the scenario
    /// gives one); it bounds ICR through TBE / FRTT.
    pub frtt: SimTime,
}

impl AbrParams {
    /// TM 4.0's defaults for a VC with peak rate `pcr` [cells/s] and round trip `frtt`:
    /// ICR = PCR, MCR = 0, TCR = 10 cells/s, Nrm = 32, Mrm = 2, Trm = 100 ms, RIF = RDF =
    /// 1/16, ADTF = 0.5 s, TBE = 16,777,215 cells, CDF = 1/16.
    pub fn tm4(pcr: f64, frtt: SimTime) -> Self {
        AbrParams {
            pcr,
            mcr: 0.0,
            icr: pcr,
            tcr: 10.0,
            nrm: 32,
            mrm: 2,
            trm: SimTime::from_ms(100),
            rif: 1.0 / 16.0,
            rdf: 1.0 / 16.0,
            adtf: SimTime::from_ms(500),
            tbe: 16_777_215,
            cdf: 1.0 / 16.0,
            frtt,
        }
    }

    /// CRM: forward RM cells without a backward one before the CDF cut, ceil(TBE / Nrm).
    pub fn crm(&self) -> u64 {
        self.tbe.div_ceil(u64::from(self.nrm.max(1)))
    }

    /// The pacing interval of the first cell: 1 / ICR (1 / TCR when ICR is below TCR).
    pub fn initial_interval(&self) -> SimTime {
        pacing_interval(self.icr.max(self.tcr))
    }
}

/// The time between the starts of two cells of a VC sent at `rate` [cells/s], to the
/// picosecond (at least 1 ps).
#[inline]
pub fn pacing_interval(rate: f64) -> SimTime {
    SimTime(((1e12 / rate).round() as u64).max(1))
}

/// What the source sends now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Send {
    /// A forward RM cell; `in_rate` false: out of rate (CLP = 1).
    ForwardRm { in_rate: bool },
    /// The waiting backward RM cell; `in_rate` false: out of rate (CLP = 1).
    BackwardRm { in_rate: bool },
    /// The data cell at the head of the source queue.
    Data,
}

/// Counters of an ABR source. Laid out in the order written (`repr(C)`): the two a frame
/// entering the source queue may write first.
#[derive(Debug, Clone, Default, PartialEq)]
#[repr(C)]
pub struct AbrCounters {
    /// Data cells lost because the source queue was full.
    pub cells_lost: u64,
    /// The longest the source queue has been [cells].
    pub max_queue: u32,
    /// Forward RM cells sent (in rate and out of rate).
    pub frm_sent: u64,
    /// Of those, out of rate.
    pub frm_out_of_rate: u64,
    /// Backward RM cells of the opposite VC sent.
    pub brm_sent: u64,
    /// Backward RM cells of this VC received (the feedback).
    pub brm_received: u64,
    /// Times ACR was set back to ICR by the ADTF rule.
    pub adtf_resets: u64,
    /// Times ACR was cut by the CRM/CDF rule.
    pub cdf_cuts: u64,
    /// Overflow episodes of the source queue: a cell (or frame) lost when no cell was lost
    /// since the queue last fell to half its size or below, at a frame's end, or emptied.
    pub overflows: u64,
}

/// Data cells waiting in an ABR source queue: `n` (at least 1) consecutive cells of one
/// frame that differ only in their EOM bit, which only the last may carry: cells like
/// `cell`, but with EOM cleared on all but the last, which is `cell` itself. A frame enters
/// as one run, not one entry per cell (a cell source's cells enter one run each).
#[derive(Debug, Clone, Copy)]
#[repr(C)]
struct Run {
    cell: Cell,
    n: u32,
}

impl Run {
    /// No cells.
    const EMPTY: Run = Run {
        cell: Cell {
            vc: crate::ids::VcId(0),
            frame: 0,
            label: 0,
            flags: 0,
            kind: crate::cell::CellKind::Data,
        },
        n: 0,
    };

    /// The run's cell `i` (from 0).
    #[inline]
    fn cell(&self, i: u32) -> Cell {
        let mut c = self.cell;
        if i + 1 < self.n {
            c.flags &= !Cell::EOM;
        }
        c
    }
}

/// One ABR VC's source end system.
///
/// Laid out in the order written (`repr(C)`): what deciding and taking an ordinary cell
/// reads (rule 3's counts, the head of the queue, the waiting backward RM cell) comes first,
/// in 52 bytes, so that with the adapter's flag before it ([`crate::network`]'s ABR VC) it
/// fits one cache line; the parameters, the rate and the counters, which RM cells and frames
/// read, follow. With many ABR VCs sending in turn, each VC's state is cold when its next
/// cell goes: a cell then reads one line of it, not five.
#[derive(Debug, Clone)]
#[repr(C)]
pub struct AbrSource {
    /// When Trm will have passed since the last in-rate forward RM cell: `last_frm + trm`
    /// (saturating; a simulated time never reaches `u64::MAX` ps).
    frm_by: SimTime,
    /// In-rate cells since the last in-rate forward RM cell.
    since_frm: u32,
    /// Copies of `p.nrm` and `p.mrm` (rule 3 reads them for every cell).
    nrm: u32,
    mrm: u32,
    /// The run at the head of the source queue (`n` = 0: the queue is empty); `rest` holds
    /// the runs behind it.
    head: Run,
    /// A backward RM cell (of the opposite VC) waiting; a newer one replaces it (TM 4.0
    /// destination rule 3: the old one's feedback is stale).
    brm: Option<Cell>,
    /// No in-rate cell has gone yet (the first is a forward RM cell).
    fresh: bool,
    /// An in-rate backward RM cell went since the last in-rate forward RM cell.
    brm_since_frm: bool,
    /// ACR is below TCR (rule 11), kept with `acr`.
    out_of_rate: bool,
    /// A frame that does not fit whole is lost whole ([`AbrSource::admit_frame`]).
    drop_frames: bool,
    /// Data cells in `rest`.
    rest_len: u32,
    /// The source queue's size [cells] (`u32::MAX`: unlimited).
    capacity: u32,
    /// Data cells that entered the source queue (those sent are these less those waiting).
    enqueued: u64,
    /// The data cells waiting behind `head`, in order, as runs of one frame's cells.
    rest: VecDeque<Run>,
    pub counters: AbrCounters,
    /// The pacing interval at `acr` ([`AbrSource::interval`]), kept with it: `acr` changes
    /// once per RM cell at most.
    interval: SimTime,
    acr: f64,
    icr: f64,
    crm: u64,
    /// When the last in-rate forward RM cell went.
    last_frm: SimTime,
    /// Forward RM cells sent since the last backward RM cell with BN = 0.
    unanswered: u64,
    p: AbrParams,
    /// A cell was lost and the queue has not yet fallen to half its size (an overflow
    /// episode is under way, [`AbrCounters::overflows`]).
    overflowing: bool,
}

impl AbrSource {
    pub fn new(p: AbrParams, capacity: Option<u32>) -> Self {
        debug_assert!(p.mcr <= p.icr && p.icr <= p.pcr, "ICR within [MCR, PCR]");
        let icr = p.icr;
        AbrSource {
            frm_by: SimTime(p.trm.0),
            since_frm: 0,
            nrm: p.nrm,
            mrm: p.mrm,
            head: Run::EMPTY,
            brm: None,
            fresh: true,
            brm_since_frm: false,
            out_of_rate: icr < p.tcr,
            interval: pacing_interval(icr.max(p.tcr)),
            acr: icr,
            icr,
            crm: p.crm(),
            last_frm: SimTime::ZERO,
            unanswered: 0,
            rest: VecDeque::new(),
            rest_len: 0,
            capacity: capacity.unwrap_or(u32::MAX),
            drop_frames: false,
            enqueued: 0,
            p,
            counters: AbrCounters::default(),
            overflowing: false,
        }
    }

    /// The source end system of one VC of an ABR connection, from the connection's spec.
    pub fn from_spec(spec: &crate::spec::AbrSpec) -> Self {
        AbrSource::new(spec.params, spec.source_buffer).with_frame_drop(spec.drop_frames)
    }

    /// Makes a full source queue lose whole frames instead of single cells.
    pub fn with_frame_drop(mut self, on: bool) -> Self {
        self.drop_frames = on;
        self
    }

    pub fn params(&self) -> &AbrParams {
        &self.p
    }

    /// The allowed cell rate [cells/s].
    #[inline]
    pub fn acr(&self) -> f64 {
        self.acr
    }

    /// Data cells waiting in the source queue.
    #[inline]
    pub fn queued(&self) -> u32 {
        self.head.n + self.rest_len
    }

    /// Data cells sent.
    pub fn data_sent(&self) -> u64 {
        self.enqueued - u64::from(self.queued())
    }

    /// The data cells waiting in the source queue, oldest first.
    pub fn queued_cells(&self) -> impl Iterator<Item = Cell> + '_ {
        std::iter::once(&self.head)
            .chain(self.rest.iter())
            .flat_map(|r| (0..r.n).map(|i| r.cell(i)))
    }

    /// Whether a backward RM cell waits to go.
    #[inline]
    pub fn has_brm(&self) -> bool {
        self.brm.is_some()
    }

    /// Whether a cell (data or a backward RM cell) waits to go.
    #[inline]
    pub fn has_waiting(&self) -> bool {
        self.head.n > 0 || self.brm.is_some()
    }

    /// Time between the starts of two cells at the current rate: 1 / ACR, or 1 / TCR while
    /// ACR is below TCR (only out-of-rate RM cells go then).
    #[inline]
    pub fn interval(&self) -> SimTime {
        self.interval
    }

    /// Sets the ACR and the pacing interval that follows from it.
    #[inline]
    fn set_acr(&mut self, acr: f64) {
        self.acr = acr;
        self.out_of_rate = acr < self.p.tcr;
        self.interval = pacing_interval(acr.max(self.p.tcr));
    }

    /// Whether the source is out of rate (ACR below TCR).
    #[inline]
    fn out_of_rate(&self) -> bool {
        self.out_of_rate
    }

    /// Whether a frame of `cells` cells may enter the source queue: always, unless the source
    /// drops whole frames and they do not all fit, in which case its cells are counted lost.
    pub fn admit_frame(&mut self, cells: u32) -> bool {
        let room = self.capacity.saturating_sub(self.queued());
        if self.drop_frames && room < cells {
            self.counters.cells_lost += u64::from(cells);
            self.overflow();
            return false;
        }
        true
    }

    /// Queues a data cell; false if the source queue is full (the cell is lost).
    pub fn enqueue(&mut self, cell: Cell) -> bool {
        self.enqueue_frame(cell, 1) == 1
    }

    /// Queues the `cells` data cells of a frame, in order: cells like `last` (the frame's
    /// last cell), the others without its EOM bit. The cells that find the queue full are
    /// lost (the tail of the frame, and with it its EOM); returns how many were queued.
    pub fn enqueue_frame(&mut self, last: Cell, cells: u32) -> u32 {
        let room = self.capacity.saturating_sub(self.queued());
        let n = cells.min(room);
        if n < cells {
            self.counters.cells_lost += u64::from(cells - n);
            self.overflow();
        }
        if n == 0 {
            return 0;
        }
        let mut cell = last;
        if n < cells {
            cell.flags &= !Cell::EOM;
        }
        let run = Run { cell, n };
        if self.head.n == 0 {
            self.head = run;
        } else {
            self.rest.push_back(run);
            self.rest_len += n;
        }
        self.enqueued += u64::from(n);
        let queued = self.queued();
        if queued > self.counters.max_queue {
            self.counters.max_queue = queued;
        }
        n
    }

    /// A loss at the full queue: a new overflow episode unless one is under way.
    #[cold]
    fn overflow(&mut self) {
        if !self.overflowing {
            self.overflowing = true;
            self.counters.overflows += 1;
        }
    }

    /// Queues one data cell of a frame that arrives cell by cell (an access line,
    /// [`crate::abr::access`]): false if the queue is full (the cell is lost). A cell that
    /// follows its frame's previous cell at the tail of the queue joins that cell's run.
    pub fn enqueue_cell(&mut self, cell: Cell) -> bool {
        let tail = match self.rest.back() {
            Some(r) => Some(r),
            None if self.head.n > 0 => Some(&self.head),
            None => None,
        };
        let joins = tail.is_some_and(|r| {
            r.cell.vc == cell.vc
                && r.cell.frame == cell.frame
                && r.cell.label == cell.label
                && r.cell.kind == cell.kind
                && r.cell.flags & Cell::EOM == 0
                && r.cell.flags == cell.flags & !Cell::EOM
        });
        if !joins || self.queued() >= self.capacity {
            return self.enqueue_frame(cell, 1) == 1;
        }
        let r = match self.rest.back_mut() {
            Some(r) => {
                self.rest_len += 1;
                r
            }
            None => &mut self.head,
        };
        r.cell = cell;
        r.n += 1;
        self.enqueued += 1;
        let queued = self.queued();
        if queued > self.counters.max_queue {
            self.counters.max_queue = queued;
        }
        true
    }

    /// Queues a backward RM cell to send for the opposite VC; returns the one it replaces.
    pub fn enqueue_brm(&mut self, cell: Cell) -> Option<Cell> {
        self.brm.replace(cell)
    }

    /// Takes the data cell at the head of the queue (after [`Send::Data`]).
    pub fn take_data(&mut self) -> Cell {
        assert!(self.head.n > 0, "Send::Data with an empty queue");
        let mut c = self.head.cell(0);
        self.head.n -= 1;
        if self.head.n == 0 {
            self.next_run();
        }
        c.flags &= !(Cell::CLP | Cell::EFCI);
        c
    }

    /// The head run is sent: the next one, if any, moves to the head.
    #[inline(never)]
    fn next_run(&mut self) {
        if let Some(run) = self.rest.pop_front() {
            self.rest_len -= run.n;
            self.head = run;
        }
        if self.overflowing && self.queued() <= self.capacity / 2 {
            self.overflowing = false;
        }
    }

    /// Takes the waiting backward RM cell (after [`Send::BackwardRm`]).
    pub fn take_brm(&mut self) -> Cell {
        self.brm.take().expect("Send::BackwardRm with none waiting")
    }

    /// Decides the cell to send at `now` (rules 3, 5, 6, 11) and counts it as sent; `None`
    /// if nothing waits. After a forward RM cell, [`AbrSource::acr`] is the CCR to put in it.
    pub fn next(&mut self, now: SimTime) -> Option<Send> {
        if !self.has_waiting() {
            return None;
        }
        if self.out_of_rate() {
            if self.brm.is_some() {
                self.counters.brm_sent += 1;
                return Some(Send::BackwardRm { in_rate: false });
            }
            self.counters.frm_sent += 1;
            self.counters.frm_out_of_rate += 1;
            return Some(Send::ForwardRm { in_rate: false });
        }
        let frm_due = self.fresh
            || self.since_frm + 1 >= self.nrm
            || (self.since_frm >= self.mrm && now >= self.frm_by);
        if frm_due {
            self.before_frm(now);
            self.fresh = false;
            self.last_frm = now;
            self.frm_by = SimTime(now.0.saturating_add(self.p.trm.0));
            self.since_frm = 0;
            self.brm_since_frm = false;
            self.counters.frm_sent += 1;
            return Some(Send::ForwardRm { in_rate: true });
        }
        self.since_frm += 1;
        if self.brm.is_some() && (!self.brm_since_frm || self.head.n == 0) {
            self.brm_since_frm = true;
            self.counters.brm_sent += 1;
            return Some(Send::BackwardRm { in_rate: true });
        }
        Some(Send::Data)
    }

    /// Rules 5 and 6, just before an in-rate forward RM cell.
    fn before_frm(&mut self, now: SimTime) {
        if !self.fresh && self.acr > self.icr && now.saturating_sub(self.last_frm) > self.p.adtf {
            self.set_acr(self.icr);
            self.counters.adtf_resets += 1;
        }
        if self.unanswered >= self.crm {
            self.set_acr((self.acr - self.acr * self.p.cdf).max(self.p.mcr));
            self.counters.cdf_cuts += 1;
        }
        self.unanswered += 1;
    }

    /// A backward RM cell of this VC arrived with congestion indication `ci`, no-increase
    /// `ni`, `bn` and explicit rate `er` [cells/s] (rules 8 and 9); returns the new ACR.
    pub fn on_backward_rm(&mut self, ci: bool, ni: bool, bn: bool, er: f64) -> f64 {
        self.counters.brm_received += 1;
        if !bn {
            self.unanswered = 0;
        }
        let p = &self.p;
        let mut acr = self.acr;
        if ci {
            acr -= acr * p.rdf;
        } else if !ni {
            acr += p.rif * p.pcr;
        }
        acr = acr.min(er).min(p.pcr).max(p.mcr);
        self.set_acr(acr);
        acr
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::VcId;

    const PCR: f64 = 365_566.0;

    fn params() -> AbrParams {
        AbrParams {
            icr: PCR / 10.0,
            ..AbrParams::tm4(PCR, SimTime::from_ms(30))
        }
    }

    fn data() -> Cell {
        Cell::data(VcId(0), 0, 0, 0)
    }

    /// What an ordinary cell reads of the source lies in its first 56 bytes (with the
    /// adapter's 8 before it, one cache line).
    #[test]
    fn per_cell_state_leads_the_source() {
        use std::mem::offset_of;
        for end in [
            offset_of!(AbrSource, frm_by) + 8,
            offset_of!(AbrSource, since_frm) + 4,
            offset_of!(AbrSource, nrm) + 4,
            offset_of!(AbrSource, mrm) + 4,
            offset_of!(AbrSource, head) + std::mem::size_of::<Run>(),
            offset_of!(AbrSource, brm) + std::mem::size_of::<Option<Cell>>(),
            offset_of!(AbrSource, fresh) + 1,
            offset_of!(AbrSource, brm_since_frm) + 1,
            offset_of!(AbrSource, out_of_rate) + 1,
        ] {
            assert!(end <= 56, "a per-cell field ends at byte {end}");
        }
    }

    /// What a frame entering the source queue reads and writes beyond the head run (the
    /// queue's length, size and count, the runs behind the head, the loss and length
    /// counters) lies on the next 64 bytes (the adapter's second cache line).
    #[test]
    fn per_frame_state_follows_on_one_line() {
        use std::mem::{offset_of, size_of};
        let counters = offset_of!(AbrSource, counters);
        for (start, end) in [
            (
                offset_of!(AbrSource, drop_frames),
                offset_of!(AbrSource, drop_frames) + 1,
            ),
            (
                offset_of!(AbrSource, rest_len),
                offset_of!(AbrSource, rest_len) + 4,
            ),
            (
                offset_of!(AbrSource, capacity),
                offset_of!(AbrSource, capacity) + 4,
            ),
            (
                offset_of!(AbrSource, enqueued),
                offset_of!(AbrSource, enqueued) + 8,
            ),
            (
                offset_of!(AbrSource, rest),
                offset_of!(AbrSource, rest) + size_of::<VecDeque<Run>>(),
            ),
            (
                counters + offset_of!(AbrCounters, cells_lost),
                counters + offset_of!(AbrCounters, cells_lost) + 8,
            ),
            (
                counters + offset_of!(AbrCounters, max_queue),
                counters + offset_of!(AbrCounters, max_queue) + 4,
            ),
        ] {
            assert!(
                start >= 56 - 8 && end <= 120,
                "a per-frame field lies at bytes {start}..{end}"
            );
        }
    }

    /// The source queue's head run and the runs behind it hold the cells in order: sent,
    /// waiting and lost add up to what was offered.
    #[test]
    fn cells_sent_and_waiting_add_up_to_the_cells_queued() {
        let mut s = AbrSource::new(params(), Some(20));
        let last = |f| Cell::data(VcId(0), f, 0, Cell::EOM);
        assert_eq!(s.enqueue_frame(last(0), 12), 12);
        assert_eq!(s.enqueue_frame(last(1), 12), 8, "the queue holds 20 cells");
        let mut sent = Vec::new();
        for k in 0..15u64 {
            if s.next(SimTime::from_ms(k)) == Some(Send::Data) {
                sent.push(s.take_data());
            }
        }
        assert_eq!(s.data_sent(), sent.len() as u64);
        assert_eq!(s.data_sent() + u64::from(s.queued()), 20);
        assert_eq!(s.counters.cells_lost, 4);
        let all: Vec<Cell> = sent.iter().copied().chain(s.queued_cells()).collect();
        assert_eq!(all.len(), 20);
        assert!(all[..12].iter().all(|c| c.frame == 0));
        assert!(
            all[12..].iter().all(|c| c.frame == 1 && !c.is_eom()),
            "frame 1 lost its tail"
        );
        assert_eq!(all.iter().filter(|c| c.is_eom()).count(), 1);
        assert!(all[11].is_eom());
    }

    /// Cells of a frame arriving one by one (an access line) join their frame's run at the
    /// tail of the queue and leave as the frame would have: in order, EOM on the last only;
    /// a cell that finds the queue full is lost alone.
    #[test]
    fn cells_arriving_one_by_one_rebuild_their_frame() {
        let mut s = AbrSource::new(params(), Some(6));
        let cell = |f, eom: bool| Cell::data(VcId(0), f, 0, if eom { Cell::EOM } else { 0 });
        for i in 0..4 {
            assert!(s.enqueue_cell(cell(0, i == 3)));
        }
        assert_eq!(s.rest.len(), 0, "frame 0 is one run, at the head");
        for i in 0..4 {
            assert_eq!(
                s.enqueue_cell(cell(1, i == 3)),
                i < 2,
                "cell {i} of frame 1"
            );
        }
        assert_eq!(s.rest.len(), 1, "frame 1 joins one run behind the head");
        assert_eq!((s.queued(), s.counters.cells_lost), (6, 2));
        assert_eq!(s.counters.max_queue, 6);
        let q: Vec<(u32, bool)> = s.queued_cells().map(|c| (c.frame, c.is_eom())).collect();
        assert_eq!(
            q,
            [
                (0, false),
                (0, false),
                (0, false),
                (0, true),
                (1, false),
                (1, false)
            ]
        );
    }

    /// An overflow episode: the losses from the first cell lost until the queue has fallen to
    /// half its size (checked at a frame's end).
    #[test]
    fn losses_count_one_overflow_until_the_queue_falls_to_half() {
        let mut s = AbrSource::new(params(), Some(20));
        let last = |f| Cell::data(VcId(0), f, 0, Cell::EOM);
        let mut t = 0;
        let mut send = |s: &mut AbrSource, n: u32| {
            let mut k = 0;
            while k < n {
                t += 1;
                if s.next(SimTime::from_ms(t)) == Some(Send::Data) {
                    s.take_data();
                    k += 1;
                }
            }
        };
        assert_eq!(s.enqueue_frame(last(0), 12), 12);
        assert_eq!(s.enqueue_frame(last(1), 12), 8);
        assert_eq!(s.enqueue_frame(last(2), 4), 0);
        assert_eq!(s.counters.overflows, 1, "one episode, two frames' losses");
        send(&mut s, 12); // frame 0 leaves: at its end 8 cells wait, at most half of 20
        assert_eq!(s.enqueue_frame(last(3), 12), 12);
        assert_eq!(s.enqueue_frame(last(4), 4), 0);
        assert_eq!(
            s.counters.overflows, 2,
            "the queue fell to half: a new episode"
        );
        assert_eq!(s.enqueue_frame(last(5), 1), 0);
        assert_eq!(s.counters.overflows, 2);
    }

    fn fill(s: &mut AbrSource, n: usize) {
        for _ in 0..n {
            assert!(s.enqueue(data()));
        }
    }

    /// Sends `n` cells one interval apart from `t`; returns the kinds and the time after.
    fn send(s: &mut AbrSource, mut t: SimTime, n: usize) -> (Vec<Send>, SimTime) {
        let mut out = Vec::new();
        for _ in 0..n {
            let Some(k) = s.next(t) else { break };
            match k {
                Send::Data => {
                    s.take_data();
                }
                Send::BackwardRm { .. } => {
                    s.take_brm();
                }
                Send::ForwardRm { .. } => {}
            }
            out.push(k);
            t += s.interval();
        }
        (out, t)
    }

    /// Rule 3 with a backward RM cell waiting at every opportunity (what the opposite VC's
    /// forward RM cells bring, one per Nrm of its cells) and data always waiting: per Nrm
    /// cells, a forward RM cell, one backward RM cell, and Nrm - 2 data cells. At Nrm = 2
    /// that leaves data nothing.
    #[test]
    fn with_a_backward_rm_cell_always_waiting_nrm_2_sends_no_data() {
        for (nrm, data_share) in [(2, 0.0), (4, 0.5), (8, 0.75), (32, 30.0 / 32.0)] {
            let p = AbrParams {
                nrm,
                mrm: 1,
                ..params()
            };
            let mut s = AbrSource::new(p, None);
            fill(&mut s, 10_000);
            let mut t = SimTime::ZERO;
            let mut kinds = Vec::new();
            for _ in 0..(64 * nrm) {
                if !s.has_brm() {
                    let brm = Cell {
                        kind: crate::cell::CellKind::BackwardRm,
                        ..data()
                    };
                    assert!(s.enqueue_brm(brm).is_none());
                }
                let (k, after) = send(&mut s, t, 1);
                kinds.extend(k);
                t = after;
            }
            let data = kinds.iter().filter(|k| **k == Send::Data).count();
            let share = data as f64 / kinds.len() as f64;
            assert!((share - data_share).abs() < 1e-9, "Nrm {nrm}: {share}");
        }
    }

    #[test]
    fn first_cell_is_a_forward_rm_cell_then_one_per_nrm() {
        let mut s = AbrSource::new(params(), None);
        fill(&mut s, 1000);
        let (kinds, _) = send(&mut s, SimTime::ZERO, 320);
        let frm: Vec<usize> = kinds
            .iter()
            .enumerate()
            .filter(|(_, k)| matches!(k, Send::ForwardRm { in_rate: true }))
            .map(|(i, _)| i)
            .collect();
        // Cells 0, 32, 64, ...: one forward RM cell per Nrm = 32 in-rate cells.
        assert_eq!(frm, (0..10).map(|i| i * 32).collect::<Vec<_>>());
        assert_eq!(s.counters.frm_sent, 10);
    }

    #[test]
    fn trm_sends_a_forward_rm_cell_after_mrm_cells_at_a_low_rate() {
        // At 20 cells/s, 100 ms is 2 cell times: after Mrm = 2 data cells Trm has passed.
        let p = AbrParams {
            icr: 20.0,
            ..params()
        };
        let mut s = AbrSource::new(p, None);
        fill(&mut s, 100);
        let (kinds, _) = send(&mut s, SimTime::ZERO, 12);
        let pattern: Vec<bool> = kinds
            .iter()
            .map(|k| matches!(k, Send::ForwardRm { .. }))
            .collect();
        // Each FRM is followed by Mrm data cells, then Trm (100 ms = 2 intervals) has
        // passed since it (the third cell after it starts 150 ms later): FRM every 3 cells.
        let frm_at: Vec<usize> = pattern
            .iter()
            .enumerate()
            .filter(|(_, f)| **f)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(frm_at, [0, 3, 6, 9]);
    }

    #[test]
    fn backward_rm_cells_go_in_rate_one_per_forward_rm_unless_no_data_waits() {
        let mut s = AbrSource::new(params(), None);
        fill(&mut s, 100);
        let brm = Cell {
            kind: crate::cell::CellKind::BackwardRm,
            ..data()
        };
        let t = SimTime::ZERO;
        assert_eq!(s.next(t), Some(Send::ForwardRm { in_rate: true }));
        assert!(s.enqueue_brm(brm).is_none());
        assert_eq!(s.next(t), Some(Send::BackwardRm { in_rate: true }));
        s.take_brm();
        s.enqueue_brm(brm);
        // A BRM already went since the last FRM and data waits: data first.
        assert_eq!(s.next(t), Some(Send::Data));
        s.take_data();
        // A newer BRM replaces the waiting one.
        assert!(s.enqueue_brm(brm).is_some());
        // No data waiting: the BRM goes.
        let mut empty = AbrSource::new(params(), None);
        empty.next(t); // nothing waits: no cell
        empty.enqueue_brm(brm);
        assert_eq!(empty.next(t), Some(Send::ForwardRm { in_rate: true }));
        assert_eq!(empty.next(t), Some(Send::BackwardRm { in_rate: true }));
        empty.take_brm();
        assert_eq!(empty.next(t), None);
    }

    #[test]
    fn feedback_decreases_on_ci_increases_otherwise_and_obeys_er_mcr_pcr() {
        let p = AbrParams {
            mcr: 1000.0,
            ..params()
        };
        let mut s = AbrSource::new(p, None);
        let icr = s.acr();
        assert_eq!(icr, PCR / 10.0);
        let a = s.on_backward_rm(true, false, false, f64::INFINITY);
        assert!((a - icr * (1.0 - 1.0 / 16.0)).abs() < 1e-9);
        let b = s.on_backward_rm(false, false, false, f64::INFINITY);
        assert!((b - (a + PCR / 16.0)).abs() < 1e-9);
        let c = s.on_backward_rm(false, true, false, f64::INFINITY);
        assert_eq!(c, b, "NI = 1: no increase");
        assert_eq!(s.on_backward_rm(false, false, false, 5000.0), 5000.0);
        assert_eq!(
            s.on_backward_rm(false, false, false, 0.0),
            1000.0,
            "MCR floor"
        );
        for _ in 0..100 {
            s.on_backward_rm(false, false, false, f64::INFINITY);
        }
        assert_eq!(s.acr(), PCR, "PCR ceiling");
    }

    #[test]
    fn adtf_resets_an_idle_source_to_icr() {
        let mut s = AbrSource::new(params(), None);
        s.on_backward_rm(false, false, false, PCR);
        s.on_backward_rm(false, false, false, PCR);
        let high = s.acr();
        assert!(high > params().icr);
        fill(&mut s, 2);
        let (_, t) = send(&mut s, SimTime::ZERO, 2);
        assert_eq!(s.acr(), high, "not idle yet");
        // Idle for a second, then data: the next FRM (due: Trm passed, Mrm... not yet) -
        // the first cell after idling is data; the FRM after Nrm or Trm resets.
        fill(&mut s, 40);
        let later = t + SimTime::from_secs(1);
        let (kinds, _) = send(&mut s, later, 40);
        assert!(kinds.contains(&Send::ForwardRm { in_rate: true }));
        assert_eq!(s.acr(), params().icr, "ACR back to ICR");
        assert_eq!(s.counters.adtf_resets, 1);
    }

    #[test]
    fn missing_feedback_cuts_the_rate_after_crm_forward_rm_cells() {
        let p = AbrParams {
            tbe: 64, // CRM = 64 / 32 = 2
            ..params()
        };
        let mut s = AbrSource::new(p, None);
        assert_eq!(p.crm(), 2);
        fill(&mut s, 200);
        let acr0 = s.acr();
        let (_, _) = send(&mut s, SimTime::ZERO, 65); // FRMs at cells 0, 32, 64
        assert_eq!(s.counters.cdf_cuts, 1, "the third FRM finds two unanswered");
        assert!((s.acr() - acr0 * (1.0 - 1.0 / 16.0)).abs() < 1e-6);
        s.on_backward_rm(false, true, false, f64::INFINITY);
        let (_, _) = send(&mut s, SimTime::from_ms(1), 64);
        assert_eq!(s.counters.cdf_cuts, 1, "feedback resets the count");
    }

    #[test]
    fn the_source_starts_at_its_icr_and_paces_its_first_cell_at_it() {
        // The scenario layer resolves ICR (TBE / FRTT bound, [MCR, PCR]); the source takes it
        // as given, even where TBE / FRTT would be lower.
        let p = AbrParams {
            tbe: 300,
            frtt: SimTime::from_ms(30),
            ..params()
        };
        let s = AbrSource::new(p, None);
        assert_eq!(s.acr(), p.icr);
        assert_eq!(s.interval(), p.initial_interval());
        assert_eq!(p.initial_interval(), pacing_interval(p.icr));
        let slow = AbrParams { icr: 1.0, ..p };
        assert_eq!(
            slow.initial_interval(),
            pacing_interval(p.tcr),
            "below TCR: at TCR"
        );
    }

    #[test]
    fn below_tcr_only_out_of_rate_rm_cells_go_at_tcr() {
        let mut s = AbrSource::new(params(), None);
        s.on_backward_rm(false, false, false, 0.0);
        assert_eq!(s.acr(), 0.0);
        assert_eq!(s.interval(), SimTime::from_ms(100), "1 / TCR");
        fill(&mut s, 3);
        let (kinds, _) = send(&mut s, SimTime::ZERO, 3);
        assert!(kinds
            .iter()
            .all(|k| *k == Send::ForwardRm { in_rate: false }));
        assert_eq!(s.queued(), 3, "data waits for the rate to come back");
        s.on_backward_rm(false, false, false, f64::INFINITY);
        assert!(s.acr() > 10.0);
        assert_eq!(
            s.next(SimTime::from_ms(1)),
            Some(Send::ForwardRm { in_rate: true })
        );
    }

    #[test]
    fn a_full_source_queue_loses_cells() {
        let mut s = AbrSource::new(params(), Some(3));
        fill(&mut s, 3);
        assert!(!s.enqueue(data()));
        assert_eq!((s.counters.cells_lost, s.counters.max_queue), (1, 3));
        let mut c = data();
        c.flags = Cell::EFCI | Cell::CLP | Cell::EOM;
        let mut s = AbrSource::new(params(), None);
        s.enqueue(c);
        assert_eq!(s.take_data().flags, Cell::EOM, "CLP and EFCI cleared");
    }

    /// A frame queued at once is the same as its cells queued one by one: the same cells
    /// leave, in order, with EOM on the last; cells that do not fit are the frame's tail.
    #[test]
    fn a_frame_queued_at_once_is_its_cells_queued_one_by_one() {
        let frame = |id: u32, i: u32, n: u32| {
            let eom = if i + 1 == n { Cell::EOM } else { 0 };
            Cell::data(VcId(3), id, 7, Cell::CLP | eom)
        };
        let drain = |s: &mut AbrSource| {
            let mut out = Vec::new();
            while s.queued() > 0 {
                out.push(s.take_data());
            }
            out
        };
        let (mut one, mut whole) = (
            AbrSource::new(params(), Some(10)),
            AbrSource::new(params(), Some(10)),
        );
        for (id, n) in [(1, 4), (2, 1), (3, 7), (4, 2)] {
            let fit = (0..n).filter(|&i| one.enqueue(frame(id, i, n))).count() as u32;
            assert_eq!(whole.enqueue_frame(frame(id, n - 1, n), n), fit);
        }
        assert_eq!(one.queued(), 10);
        assert_eq!(whole.queued(), 10);
        assert_eq!(
            (whole.counters.cells_lost, whole.counters.max_queue),
            (one.counters.cells_lost, one.counters.max_queue)
        );
        assert_eq!(
            whole.counters.cells_lost, 4,
            "2 of frame 3, both of frame 4"
        );
        let queued: Vec<Cell> = whole.queued_cells().collect();
        assert_eq!(queued, one.queued_cells().collect::<Vec<_>>());
        let (a, b) = (drain(&mut one), drain(&mut whole));
        assert_eq!(a, b);
        let eoms: Vec<u32> = b.iter().filter(|c| c.is_eom()).map(|c| c.frame).collect();
        assert_eq!(eoms, [1, 2], "frame 3 lost its tail with its EOM");
        assert_eq!(b.len(), 10);
        assert!(
            b.iter().all(|c| c.flags & Cell::CLP == 0),
            "CLP cleared on the way out"
        );
        assert_eq!(
            b.iter().map(|c| c.frame).collect::<Vec<_>>(),
            queued.iter().map(|c| c.frame).collect::<Vec<_>>()
        );
        assert!(!whole.has_waiting());
    }

    #[test]
    fn a_source_that_drops_frames_admits_only_frames_that_fit_whole() {
        // Dropping cells, every frame is admitted and its cells meet the queue one by one.
        let mut s = AbrSource::new(params(), Some(5));
        fill(&mut s, 3);
        assert!(s.admit_frame(3));
        assert_eq!(s.counters.cells_lost, 0);
        // Dropping frames, a frame of 3 cells does not fit beside 3 of 5: all 3 are lost and
        // the queue is untouched; one of 2 fits exactly.
        let mut s = AbrSource::new(params(), Some(5)).with_frame_drop(true);
        fill(&mut s, 3);
        assert!(!s.admit_frame(3));
        assert_eq!((s.counters.cells_lost, s.queued()), (3, 3));
        assert!(s.admit_frame(2));
        assert_eq!(s.counters.cells_lost, 3);
        // Unlimited queues admit every frame.
        let mut s = AbrSource::new(params(), None).with_frame_drop(true);
        assert!(s.admit_frame(u32::MAX));
    }
}
