//! ABR end systems in the network: the source's adapter slot, and the destination that turns
//! forward RM cells round.
//!
//! An ABR VC's slot at its source adapter is paced at the VC's ACR and holds one placeholder
//! cell while its [`AbrSource`] has a cell waiting (data from SAR or a cell source, or a
//! backward RM cell of the opposite VC). When the placeholder's turn comes, the ABR source
//! decides which cell really goes (TM 4.0 source rule 3), and the slot's pacing interval
//! follows the ACR after that cell. A backward RM cell reaching the source sets the new ACR
//! and reschedules the VC's next cell at once.
//!
//! The destination keeps the EFCI bit of the VC's last data cell and turns each forward RM
//! cell round (DIR = 1, CI set if the EFCI state is): onto the opposite VC's ABR source, in
//! rate (TCP: the data VC's forward RM cells go back with the ACKs, and the other way), or,
//! for an ABR cell source whose destination sends nothing, straight onto its feedback VC.

use super::{Event, Network};
use crate::abr::source::{AbrSource, Send};
use crate::cell::{Cell, CellKind, RmFields};
use crate::ids::{HostId, Label, PortId, VcId};
use crate::vc::LossCause;
use atmsim_engine::SimTime;

/// An ABR VC's source end system and where it sends.
///
/// Laid out in the order written (`repr(C)`), on a cache line of its own: the flag and the
/// source's per-cell state ([`AbrSource`]) share the first line, so that sending an ordinary
/// cell reads that line only (the slot's port, label and VC come with the placeholder).
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub struct AbrVc {
    /// The slot holds a placeholder cell.
    pub armed: bool,
    pub source: AbrSource,
    pub vc: VcId,
    /// The VC's slot at its source adapter.
    pub port: PortId,
    pub label: Label,
}

impl Network {
    /// Puts a placeholder in ABR VC `a`'s slot if its source has a cell waiting and none is
    /// there; returns whether the port should try to send.
    pub(super) fn abr_arm(&mut self, now: SimTime, a: u32) -> bool {
        let v = &self.abr[a as usize];
        let (port, label, vc) = (v.port, v.label, v.vc);
        self.abr_arm_at(now, a, port, label, vc)
    }

    /// [`Network::abr_arm`] for ABR VC `a`, whose slot is `label` at `port` and whose VC is
    /// `vc`.
    #[inline]
    fn abr_arm_at(&mut self, now: SimTime, a: u32, port: PortId, label: Label, vc: VcId) -> bool {
        let v = &mut self.abr[a as usize];
        if v.armed || !v.source.has_waiting() {
            return false;
        }
        v.armed = true;
        self.abr_rearm(now, port, label, vc);
        true
    }

    /// Puts the placeholder of VC `vc` in its slot `label` at `port` (the ABR VC is marked
    /// armed).
    #[inline]
    fn abr_rearm(&mut self, now: SimTime, port: PortId, label: Label, vc: VcId) {
        let port = &mut self.ports[port.idx()];
        let cell = Cell::data(vc, 0, label, 0);
        if port.sched.is_solo() {
            // The VC alone at its adapter (the usual case): no trip through its queue.
            debug_assert_eq!(label, 0);
            port.push_solo(now, cell);
        } else {
            port.push(now, label, cell);
        }
    }

    /// Queues a data cell at ABR VC `a`'s source (lost if the source queue is full).
    pub(super) fn abr_enqueue(&mut self, now: SimTime, a: u32, cell: Cell) {
        self.abr_enqueue_frame(now, a, cell, 1);
    }

    /// Queues the `cells` data cells of a frame at ABR VC `a`'s source, cells like `last`
    /// but only the last with its EOM bit (those that find the source queue full are lost).
    pub(super) fn abr_enqueue_frame(&mut self, now: SimTime, a: u32, last: Cell, cells: u32) {
        let v = &mut self.abr[a as usize];
        let queued = v.source.enqueue_frame(last, cells);
        if queued < cells {
            self.vcs[last.vc.idx()]
                .counters
                .count_loss(LossCause::SourceQueueFull, u64::from(cells - queued));
        }
        if queued > 0 {
            self.abr_arm(now, a);
        }
    }

    /// A cell crosses ABR VC `a`'s access line into its source queue: a frame's first cell
    /// is refused with the whole frame if the queue loses whole frames and it does not fit;
    /// otherwise each cell that finds the queue full is lost.
    #[cold]
    #[inline(never)]
    pub(super) fn on_access(&mut self, now: SimTime, a: u32) {
        let line = self.abr_access[a as usize]
            .as_mut()
            .expect("an access event without an access line");
        let (arrival, next) = line.arrive(now);
        if let Some(t) = next {
            self.queue.schedule(t, Event::Access(a));
        }
        let Some(x) = arrival else { return };
        let vc = x.cell.vc;
        let v = &mut self.abr[a as usize];
        if x.first && !v.source.admit_frame(x.frame_cells) {
            line.refuse();
            self.vcs[vc.idx()]
                .counters
                .count_loss(LossCause::SourceQueueFull, u64::from(x.frame_cells));
            return;
        }
        if !v.source.enqueue_cell(x.cell) {
            self.vcs[vc.idx()]
                .counters
                .count_loss(LossCause::SourceQueueFull, 1);
            return;
        }
        let port = v.port;
        if self.abr_arm(now, a) {
            self.try_transmit(now, port);
        }
    }

    /// The `placeholder` of ABR VC `a` is taken for transmission at `now` from its slot at
    /// port `p`: the cell that really goes (a forward RM cell, the waiting backward RM cell
    /// or the next data cell).
    pub(super) fn abr_cell(&mut self, now: SimTime, a: u32, p: PortId, placeholder: Cell) -> Cell {
        let (vc, label) = (placeholder.vc, placeholder.label);
        let v = &mut self.abr[a as usize];
        let kind = v
            .source
            .next(now)
            .expect("an ABR placeholder with nothing waiting");
        // The slot is empty now; it gets a placeholder again below if the source has more.
        let cell = match kind {
            Send::Data => {
                // The common case, in one look at the VC: the next data cell goes, and if the
                // source has another cell waiting the slot gets its placeholder back at once.
                let cell = v.source.take_data();
                if v.source.has_waiting() {
                    self.abr_rearm(now, p, label, vc);
                } else {
                    v.armed = false;
                }
                return cell;
            }
            Send::BackwardRm { in_rate } => {
                v.armed = false;
                let mut c = v.source.take_brm();
                c.label = label;
                c.flags = if in_rate { 0 } else { Cell::CLP };
                c
            }
            Send::ForwardRm { in_rate } => {
                v.armed = false;
                let p = *v.source.params();
                let fields = RmFields {
                    er: p.pcr,
                    ccr: v.source.acr(),
                    mcr: p.mcr,
                    ci: false,
                    ni: false,
                    bn: false,
                };
                self.vcs[vc.idx()].counters.cells_sent += 1;
                Cell {
                    vc,
                    frame: self.rm.insert(fields),
                    label,
                    flags: if in_rate { 0 } else { Cell::CLP },
                    kind: CellKind::ForwardRm,
                }
            }
        };
        // Only a forward RM cell may change the rate (rules 5 and 6; a backward RM cell
        // reaching the source sets the new interval itself, `abr_feedback`): after any other
        // cell the slot's interval is the source's already.
        if cell.kind == CellKind::ForwardRm {
            let interval = self.abr[a as usize].source.interval();
            self.ports[p.idx()].sched.set_interval(label, interval);
        }
        self.abr_arm_at(now, a, p, label, vc);
        cell
    }

    /// A backward RM cell of ABR VC `a` reached its source: the new rate binds the next cell.
    pub(super) fn abr_feedback(&mut self, now: SimTime, a: u32, cell: Cell) {
        let f = *self.rm.get(cell.frame);
        self.rm.remove(cell.frame);
        let v = &mut self.abr[a as usize];
        v.source.on_backward_rm(f.ci, f.ni, f.bn, f.er);
        let (port, label, interval) = (v.port, v.label, v.source.interval());
        let p = &mut self.ports[port.idx()];
        p.sched.set_interval(label, interval);
        if p.sole_paced && p.busy {
            // The transmitter is held until the VC's next cell was due; at a higher rate it
            // is due sooner (never before the last cell is on the wire).
            let due = p.sched.next_at(label).unwrap_or(now);
            let release = due.max(p.tx_end).max(now);
            if release < p.held_until {
                p.held_until = release;
                if release > now {
                    self.queue.schedule(release, Event::TxDone(port));
                    return;
                }
                p.busy = false;
            }
        }
        self.try_transmit(now, port);
    }

    /// An RM cell reached host `h`, the destination of its VC's direction: a forward RM cell
    /// is turned round, a backward one is feedback for the source.
    pub(super) fn on_rm_at_host(&mut self, now: SimTime, h: HostId, mut cell: Cell) {
        match cell.kind {
            CellKind::BackwardRm => match self.vcs[cell.vc.idx()].abr {
                Some(a) => self.abr_feedback(now, a, cell),
                None => self.rm.remove(cell.frame),
            },
            CellKind::ForwardRm => {
                let vc = &mut self.vcs[cell.vc.idx()];
                let Some(rev) = vc.reverse else {
                    self.rm.remove(cell.frame);
                    return;
                };
                let efci = std::mem::take(&mut vc.efci_state);
                vc.counters.cells_sent += 1;
                vc.rm_turned += 1;
                vc.rm_turned_ci += u64::from(efci);
                let f = self.rm.get_mut(cell.frame);
                f.ci |= efci;
                cell.kind = CellKind::BackwardRm;
                cell.flags = 0;
                let back = &self.vcs[rev.idx()];
                debug_assert_eq!(self.hosts[h.idx()].adapter, back.first.0);
                match back.abr {
                    Some(a) => {
                        if let Some(old) = self.abr[a as usize].source.enqueue_brm(cell) {
                            // TM 4.0 destination rule 3: a newer forward RM cell overwrites
                            // one not yet turned round.
                            self.rm.remove(old.frame);
                            self.vcs[old.vc.idx()]
                                .counters
                                .count_loss(LossCause::RmSuperseded, 1);
                        }
                        if self.abr_arm(now, a) {
                            self.try_transmit(now, self.abr[a as usize].port);
                        }
                    }
                    None => {
                        let (port, label) = back.first;
                        cell.label = label;
                        self.ports[port.idx()].push(now, label, cell);
                        self.try_transmit(now, port);
                    }
                }
            }
            CellKind::Data => unreachable!("a data cell is not an RM cell"),
        }
    }

    /// Cells waiting at ABR sources (data and backward RM cells), less the placeholders the
    /// adapters count for them.
    pub(super) fn abr_cells_waiting(&self) -> (u64, u64) {
        let waiting: u64 = self
            .abr
            .iter()
            .map(|v| v.source.queued() as u64 + v.source.has_brm() as u64)
            .sum();
        let on_access_lines: u64 = self.abr_access.iter().flatten().map(|l| l.waiting()).sum();
        let placeholders = self.abr.iter().filter(|v| v.armed).count() as u64;
        (waiting + on_access_lines, placeholders)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The adapter's flag and the source's per-cell state share an ABR VC's first cache line.
    #[test]
    fn an_abr_vc_starts_its_own_cache_line_with_its_per_cell_state() {
        assert_eq!(std::mem::align_of::<AbrVc>(), 64);
        assert_eq!(std::mem::offset_of!(AbrVc, armed), 0);
        assert_eq!(std::mem::offset_of!(AbrVc, source), 8);
    }
}
