//! Cells on ports and links: transmission, arrival, routing at switches, credits.

use super::{Event, Network};
use crate::cell::{Cell, CellKind, CellWords};
use crate::ids::{Label, PortId, SwitchId};
use crate::link::Far;
use crate::port::policy::DropReason;
use crate::service::ServiceCategory;
use crate::switch::{Route, RouteKind};
use crate::vc::LossCause;
use atmsim_engine::SimTime;

/// Element `i` of `v`, an arena of the network indexed by an id the network made: a port
/// and its channel by a [`PortId`] (from an event the network scheduled, or a route the
/// wiring built). Every such id was made by the wiring as an index into `ports`, which has
/// one channel per port at the same index and neither ever shrinks, so the index is in
/// bounds and the check is left out of the cell paths (a debug build still checks it).
#[inline(always)]
fn at<T>(v: &mut [T], i: usize) -> &mut T {
    debug_assert!(i < v.len(), "index {i} out of an arena of {}", v.len());
    // SAFETY: `i < v.len()` (above: ids of ports are indices the wiring made).
    unsafe { v.get_unchecked_mut(i) }
}

impl Network {
    /// Starts sending the next eligible cell of port `p` if the port is idle; if nothing is
    /// eligible but a paced VC will be, wakes the port then.
    #[inline(always)]
    pub(super) fn try_transmit(&mut self, now: SimTime, p: PortId) {
        // Most calls find the port busy, or (at the end of a transmission) empty: decide that
        // without a call. An empty port has nothing to send and no paced VC waiting (a waiting
        // VC holds a cell), so `transmit` would do nothing.
        let port = at(&mut self.ports, p.idx());
        if !port.busy && port.occupancy() != 0 {
            self.transmit(now, p);
        }
    }

    fn transmit(&mut self, now: SimTime, p: PortId) {
        let port = at(&mut self.ports, p.idx());
        let Some(d) = port.next_departure(now) else {
            if let Some(t) = port.sched.next_due() {
                if port.wake_at.is_none_or(|w| t < w) {
                    port.wake_at = Some(t);
                    self.queue.schedule(t, Event::Wake(p));
                }
            }
            return;
        };
        port.busy = true;
        port.counters.cells_sent += 1;
        let mut cell = d.cell;
        let port = if d.rate_controlled {
            cell = self.transmit_rate_controlled(now, p, cell);
            at(&mut self.ports, p.idx())
        } else {
            port
        };
        let ch = at(&mut self.channels, p.idx());
        let done = now + ch.cell_time;
        // A port whose only VC is paced cannot send before that VC's next cell is due, so
        // its transmitter stays taken until then: one event per cell instead of an end of
        // transmission and a wake-up (a CBR, VBR or ABR source's adapter; a backward RM cell
        // that raises an ABR source's rate releases it sooner). A cell leaves when it would
        // have with an end of transmission and a wake-up; events that fall on the same instant
        // may run in another order, which can move later results slightly.
        let free_at = if port.sole_paced {
            let free_at = port.sched.next_at(0).map_or(done, |t| t.max(done));
            port.held_until = free_at;
            port.tx_end = done;
            free_at
        } else {
            done
        };
        self.queue.schedule_on(ch.line, free_at, Event::TxDone(p));
        ch.lane.push_waking_on(
            done + ch.arrive_after,
            CellWords::from(cell),
            &mut self.queue,
            ch.arrival_line,
            Event::Arrive(p),
        );
        self.cell_hops += 1;
        if self.trace.is_some() {
            self.trace_departure(now, done, p, cell);
        }
        // The cell left this buffer: the upstream hop gets its credit back (AN2; `upstream` is
        // set only where the hop before sends the VC on credits).
        if let Some((up_port, up_label)) = d.upstream {
            self.send_credit(now, up_port, up_label);
        }
        if let Some(s) = d.feeder {
            if cell.is_data() {
                self.on_source_cell_sent(now, s, cell);
            }
        }
    }

    /// The ABR side of a transmission at port `p`: a CBR/VBR cell counts against the port's
    /// ABR capacity; an ABR cell leaving a switch port may be marked (EFCI on departure); an
    /// ABR source's placeholder becomes the cell its source sends now. (Called for the cells
    /// the port's scheme sees leave, [`crate::abr::RateControl::sees_departure`], and at an
    /// ABR source.)
    #[cold]
    #[inline(never)]
    fn transmit_rate_controlled(&mut self, now: SimTime, p: PortId, mut cell: Cell) -> Cell {
        let port = &mut self.ports[p.idx()];
        let slot = &port.slots[cell.label as usize];
        let abr = slot.abr;
        let q = port.abr_queue();
        if let Some(r) = &mut port.rate {
            match slot.service {
                ServiceCategory::Cbr | ServiceCategory::Vbr => r.on_real_time_cell(),
                ServiceCategory::Abr if abr.is_none() => r.on_abr_departure(q, &mut cell),
                _ => {}
            }
        }
        match abr {
            Some(a) => self.abr_cell(now, a, p, cell),
            None => cell,
        }
    }

    pub(super) fn on_wake(&mut self, now: SimTime, p: PortId) {
        let port = &mut self.ports[p.idx()];
        if port.wake_at == Some(now) {
            port.wake_at = None;
        }
        self.try_transmit(now, p);
    }

    /// A cell of VC `label` left the buffer it held at the far end of channel `up_port`: the
    /// port gets a credit back, one propagation delay and a cell time later (if the link runs
    /// credits and the VC is flow controlled: CBR and VBR VCs are not).
    #[inline(always)]
    pub(super) fn return_credit(&mut self, now: SimTime, up_port: PortId, up_label: Label) {
        if self.channels[up_port.idx()].credits
            && self.ports[up_port.idx()].flow_controlled(up_label)
        {
            self.send_credit(now, up_port, up_label);
        }
    }

    fn send_credit(&mut self, now: SimTime, up_port: PortId, up_label: Label) {
        let ch = &mut self.channels[up_port.idx()];
        let at = now + ch.credit_after;
        ch.credit_lane
            .push_waking(at, up_label, &mut self.queue, Event::Credit(up_port));
    }

    pub(super) fn on_credit(&mut self, now: SimTime, p: PortId) {
        let ch = &mut self.channels[p.idx()];
        let label = ch
            .credit_lane
            .pop_waking(&mut self.queue, Event::Credit(p))
            .expect("credit event with an empty lane");
        self.ports[p.idx()].on_credit(now, label);
        self.try_transmit(now, p);
    }

    /// The head cell of channel `ch` reaches the far end: a host takes it; a switch routes
    /// it by its VC table to an output port, which keeps or drops it.
    pub(super) fn on_arrive(&mut self, now: SimTime, ch: PortId) {
        let channel = at(&mut self.channels, ch.idx());
        // The arrival event was scheduled for this lane's head: the lane holds it.
        let mut cell = Cell::from(channel.lane.take_waking_on(
            &mut self.queue,
            channel.line,
            Event::Arrive(ch),
        ));
        match channel.to {
            Far::Host(h) => {
                // The destination adapter consumes the cell at once; its buffer frees at once.
                self.return_credit(now, ch, cell.label);
                self.on_cell_at_host(now, h, cell);
            }
            Far::Switch { switch, base } => {
                let in_label = cell.label;
                let mut route = *self.switches[switch.idx()].table.route(base, in_label);
                if route.kind != RouteKind::Plain {
                    match self.merge_or_split(now, switch, ch, in_label, route, cell) {
                        Some(r) => route = r,
                        None => return,
                    }
                }
                cell.label = route.label;
                if cell.is_rm() || route.rate_control {
                    // A copy goes out of line (its address taken), so `cell` itself can stay
                    // in registers on the common path (see `CellWords`).
                    let mut c = cell;
                    self.rate_control_at_switch(now, &route, &mut c);
                    cell = c;
                }
                self.offer_at_switch(now, ch, in_label, route, cell);
            }
        }
    }

    /// Offers a cell that arrived on channel `ch` (under `in_label`) to the output port of
    /// `route`, and counts what the port drops.
    #[inline(always)]
    fn offer_at_switch(
        &mut self,
        now: SimTime,
        ch: PortId,
        in_label: Label,
        route: Route,
        cell: Cell,
    ) {
        let offer = at(&mut self.ports, route.port.idx()).offer(now, route.label, cell);
        if offer.accepted {
            self.try_transmit(now, route.port);
        }
        if offer.dropped > 0 {
            if self.trace.is_some() {
                if let Some(reason) = offer.reason {
                    self.trace_drop(now, route.port, cell, offer.accepted, reason, offer.dropped);
                }
            }
            let counters = &mut self.vcs[cell.vc.idx()].counters;
            if let Some(reason) = offer.reason {
                counters.count_loss(LossCause::Port(reason), 1);
                let purged = offer.dropped - 1;
                counters.count_loss(LossCause::Port(DropReason::Purged), u64::from(purged));
            }
            if !offer.accepted && cell.is_rm() {
                self.rm.remove(cell.frame);
            }
            // Buffer space freed by a drop is credited upstream like a departure (a
            // consistent AN2 configuration never drops; this keeps an inconsistent one live).
            for _ in 0..offer.dropped {
                self.return_credit(now, ch, in_label);
            }
        }
    }

    /// A cell at a switch where VCs merge or a merged VC ends. Out of a merged VC: returns
    /// the route of the cell's own VC. Into one: the cell joins its frame in the merge
    /// buffer; returns `None` (the cell is held) unless it is the frame's EOM, and then
    /// offers the frame's earlier cells and returns the route for the EOM itself, so the
    /// whole frame reaches the port at one instant and no other frame can interleave.
    #[cold]
    #[inline(never)]
    fn merge_or_split(
        &mut self,
        now: SimTime,
        switch: SwitchId,
        ch: PortId,
        in_label: Label,
        route: Route,
        cell: Cell,
    ) -> Option<Route> {
        match route.kind {
            RouteKind::Plain => Some(route),
            RouteKind::Split => Some(
                self.switches[switch.idx()]
                    .split_route(cell.vc)
                    .expect("a merged VC's split table holds each of its VCs"),
            ),
            RouteKind::Merge => {
                let b = self.switches[switch.idx()]
                    .merge_buffer(ch, in_label)
                    .expect("a merging entry has its merge buffer");
                let buffer = &mut self.merge_buffers[b as usize];
                if !cell.is_eom() {
                    buffer.push(Cell {
                        label: route.label,
                        ..cell
                    });
                    return None;
                }
                let held = std::mem::take(buffer);
                // Every cell of the frame came in on `ch` under `in_label` (one connection's VC).
                for c in &held {
                    self.offer_at_switch(now, ch, in_label, route, *c);
                }
                let mut held = held;
                held.clear();
                self.merge_buffers[b as usize] = held;
                Some(route)
            }
        }
    }

    /// A cell of an ABR VC passes a switch on its way to `route.port`: the output port's rate
    /// control counts it and reads a forward RM cell's CCR; a backward RM cell gets the ER of
    /// the port its VC's forward direction leaves by.
    fn rate_control_at_switch(&mut self, now: SimTime, route: &Route, cell: &mut Cell) {
        // The output port runs a rate control and the VC is an ABR VC there (decided when the
        // route was made: the port's slot need not be read).
        if route.rate_control {
            if cell.kind == CellKind::ForwardRm {
                self.forward_rm_at_switch(route, cell);
            }
            let out = &mut self.ports[route.port.idx()];
            let q = out.abr_queue();
            let r = out
                .rate
                .as_mut()
                .expect("a rate-controlled route leads to a port with a rate control");
            if r.on_abr_cell(route.label as usize, q, cell) {
                self.end_interval_at(now, route.port);
            }
        }
        if cell.kind == CellKind::BackwardRm {
            self.backward_rm_at_switch(route, cell);
        }
    }

    /// A forward RM cell passes a rate-controlled port: the scheme reads it (an RM cell in
    /// 32 at most: out of line, so the data cells' path stays short).
    #[inline(never)]
    fn forward_rm_at_switch(&mut self, route: &Route, cell: &Cell) {
        let out = &mut self.ports[route.port.idx()];
        let q = out.abr_queue();
        if let Some(r) = &mut out.rate {
            r.on_forward_rm(route.label as usize, q, self.rm.get_mut(cell.frame));
        }
    }

    /// Port `p`'s interval ended by its cell count at `now`.
    #[inline(never)]
    fn end_interval_at(&mut self, now: SimTime, p: PortId) {
        let out = &mut self.ports[p.idx()];
        let q = out.abr_queue();
        if let Some(r) = &mut out.rate {
            r.end_interval(now, q);
            if let Some(next) = r.deadline() {
                self.queue.schedule(next, Event::RateInterval(p));
            }
        }
    }

    /// A backward RM cell passes the switch: the feedback of the port its VC's forward
    /// direction leaves by.
    #[inline(never)]
    fn backward_rm_at_switch(&mut self, route: &Route, cell: &Cell) {
        if let Some(fwd) = route.backward {
            let port = &mut self.ports[fwd.idx()];
            let q = port.abr_queue();
            if let Some(r) = &mut port.rate {
                let f = self.rm.get_mut(cell.frame);
                let er_in = f.er;
                r.on_backward_rm(route.backward_label as usize, q, f);
                if f.er < er_in {
                    port.rm_marked += 1;
                }
            }
        }
    }

    /// A port's averaging interval may end by time: it does if no count ended it since.
    pub(super) fn on_rate_interval(&mut self, now: SimTime, p: PortId) {
        let port = &mut self.ports[p.idx()];
        let q = port.abr_queue();
        let Some(r) = &mut port.rate else { return };
        if r.deadline() != Some(now) {
            return; // the interval ended by its cell count; a later timer is set
        }
        r.end_interval(now, q);
        if let Some(next) = r.deadline() {
            self.queue.schedule(next, Event::RateInterval(p));
        }
    }

    /// Cells still inside the network (queued at a port or on a link).
    pub fn cells_in_flight(&self) -> u64 {
        let queued: u64 = self.ports.iter().map(|p| p.occupancy() as u64).sum::<u64>()
            + self
                .merge_buffers
                .iter()
                .map(|b| b.len() as u64)
                .sum::<u64>();
        let on_links: u64 = self.channels.iter().map(|c| c.lane.len() as u64).sum();
        let (at_abr_sources, placeholders) = self.abr_cells_waiting();
        queued + on_links + at_abr_sources - placeholders
    }

    /// (sent, delivered, dropped, in flight) over all VCs: sent = delivered + dropped + in flight.
    pub fn cell_balance(&self) -> (u64, u64, u64, u64) {
        let mut t = (0, 0, 0, 0);
        for v in &self.vcs {
            t.0 += v.counters.cells_sent;
            t.1 += v.counters.cells_delivered;
            t.2 += v.counters.cells_dropped();
        }
        t.3 = self.cells_in_flight();
        t
    }
}
