//! One direction of a link: the cells in flight on it and the credits coming back.
//!
//! A link has a constant delay, so it never reorders: its cells wait in a [`Lane`] with one
//! pending arrival event (the head's), not one event each. The same holds for the AN2
//! credits returning upstream. Channel `p` is the direction that port `p` transmits on.
//!
//! Modelling choices:
//! - the switching delay of the far switch is added to the arrival time (a constant delay
//!   on every path, folded into the lane rather than queued separately);
//! - AN2 credits return one per cell when the cell leaves the downstream buffer (or reaches
//!   the destination host), after the link's propagation delay plus one cell time for the
//!   cell that carries it; piggybacking costs no bandwidth (Fang et al. 1994).

use crate::cell::CellWords;
use crate::ids::{HostId, Label, NodeId, SwitchId};
use crate::spec::{FlowControl, LinkSpec};
use atmsim_engine::{Lane, LineId, SimTime};

/// What is at the far end of a channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Far {
    /// A switch: arriving cells are routed by its VC table, whose entries for this channel
    /// start at `base` (the entry of label `l` is `base + l`).
    Switch { switch: SwitchId, base: u32 },
    /// A host: arriving cells are for it.
    Host(HostId),
}

#[derive(Debug)]
pub struct Channel {
    pub to: Far,
    pub to_node: NodeId,
    pub cell_time: SimTime,
    /// Propagation delay, plus the switching delay when the far end is a switch.
    pub arrive_after: SimTime,
    /// Propagation delay plus one cell time: how long a credit takes to come back.
    pub credit_after: SimTime,
    /// The link runs AN2 credit flow control.
    pub credits: bool,
    /// Cells on their way to the far end.
    pub lane: Lane<CellWords>,
    /// Credits on their way back to this channel's port, as labels.
    pub credit_lane: Lane<Label>,
    /// The event queue's line of events one cell time ahead ([`atmsim_engine::EventQueue::line`]):
    /// the port's ends of transmission, and the next arrival of a busy link.
    pub line: LineId,
    /// On a short link, the queue's line of events one cell time plus `arrive_after` ahead:
    /// the arrival of a cell sent onto an empty link ([`LineId::NONE`] elsewhere).
    pub arrival_line: LineId,
}

impl Channel {
    /// The direction of `link` towards node `to_node` (`to` in the arenas), whose switching
    /// delay (zero for a host) is `switching`.
    pub fn new(link: &LinkSpec, to: Far, to_node: NodeId, switching: SimTime) -> Self {
        Channel {
            to,
            to_node,
            cell_time: link.cell_time,
            arrive_after: link.delay + switching,
            credit_after: link.delay + link.cell_time,
            credits: link.flow_control != FlowControl::None,
            lane: Lane::new(),
            credit_lane: Lane::new(),
            line: LineId::NONE,
            arrival_line: LineId::NONE,
        }
    }
}
