//! Cell sources: starting, turning ON and OFF, and keeping one cell queued at the adapter.

use super::{Event, Network};
use crate::cell::Cell;
use crate::ids::SourceId;
use atmsim_engine::SimTime;

impl Network {
    /// Source `s` starts, or turns ON or OFF.
    pub(super) fn on_source_event(&mut self, now: SimTime, s: SourceId) {
        let t = self.sources[s.idx()].on_toggle(now);
        if let Some(next) = t.next {
            self.queue.schedule(next, Event::Source(s));
        }
        if t.queue_cell {
            let port = self.queue_source_cell(now, s);
            self.try_transmit(now, port);
        }
    }

    /// Queues the next cell of source `s` at its adapter; returns the adapter.
    fn queue_source_cell(&mut self, now: SimTime, s: SourceId) -> crate::ids::PortId {
        let src = &mut self.sources[s.idx()];
        let seq = src.take_seq();
        let vcid = src.vc;
        let vc = &mut self.vcs[vcid.idx()];
        vc.counters.cells_sent += 1;
        let (port, label) = vc.first;
        let cell = Cell::data(vcid, seq, label, if vc.tagged { Cell::CLP } else { 0 });
        match vc.abr {
            Some(a) => self.abr_enqueue(now, a, cell),
            None => self.ports[port.idx()].push(now, label, cell),
        }
        port
    }

    /// A cell of source `s` starts its transmission at the source adapter.
    pub(super) fn on_source_cell_sent(&mut self, now: SimTime, s: SourceId, cell: Cell) {
        if let Some(d) = &mut self.vcs[cell.vc.idx()].delay {
            d.sent(cell.frame, now);
        }
        if self.sources[s.idx()].on_sent(now) {
            self.queue_source_cell(now, s);
        }
    }
}
