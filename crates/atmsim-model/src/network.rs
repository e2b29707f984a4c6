//! The network: switches, hosts, links and sources wired from a [`NetworkSpec`], driven by
//! one event loop.
//!
//! The arenas (ports, channels, switches, hosts, VCs, TCP connections, cell sources) are
//! built by [`wiring`] and addressed by the typed ids of [`crate::ids`]. Events are a small
//! closed enum naming the id they act on; [`Network::dispatch`] routes them to the handlers,
//! which live beside the part of the network they drive:
//! - [`cells`]: ports and links (transmission, arrival and routing at switches, credits);
//! - [`hosts`]: CPU, IP output, SAR and reassembly at the end systems;
//! - [`transport`]: the TCP glue (senders, receivers, their timers);
//! - [`sources`]: cell sources (CBR, ON-OFF, greedy);
//! - [`report`]: counters at warm-up, time-series samples, the summary.
//!
//! One cell's life is told in `docs/architecture.md`.

mod abr;
mod cells;
mod hosts;
mod report;
mod sources;
mod trace;
mod transport;
mod wiring;

use crate::cell::RmTable;
use crate::host::Host;
use crate::ids::{HostId, PortId, SourceId, TcpId};
use crate::link::Channel;
use crate::port::Port;
use crate::source::Source;
use crate::spec::NetworkSpec;
use crate::stats::{self, Report, SeriesRecorder};
use crate::switch::Switch;
use crate::vc::Vc;
use atmsim_engine::{EventQueue, Fingerprint, SimTime};

pub use transport::Tcp;
pub use wiring::ModelError;

/// What a connection of the spec became: a TCP connection or a cell source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Conn {
    Tcp(TcpId),
    Source(SourceId),
}

/// The closed set of events; one `match` in [`Network::dispatch`] routes them.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Event {
    /// A port finished serialising a cell.
    TxDone(PortId),
    /// The head cell of channel `p`'s lane reaches the far end.
    Arrive(PortId),
    /// The head credit of channel `p`'s credit lane reaches port `p`.
    Credit(PortId),
    /// A host CPU finished its current job.
    Cpu(HostId),
    /// A host SAR engine finished segmenting its head frame.
    Sar(HostId),
    /// A host finished reassembling its head frame.
    Reassembled(HostId),
    /// A connection's retransmission timer may be due.
    Rto(TcpId),
    /// A connection's delayed-ACK timer may be due.
    AckTimer(TcpId),
    /// A connection's application starts.
    Start(TcpId),
    /// Take a time-series sample.
    Sample,
    /// Warm-up ends: snapshot the counters.
    Warmup,
    /// An idle port has a paced VC that becomes due now.
    Wake(PortId),
    /// A cell source starts, or turns ON or OFF.
    Source(SourceId),
    /// A port's rate control may end its averaging interval (ERICA's time limit).
    RateInterval(PortId),
    /// A cell crosses the access line into ABR VC `.0`'s source queue.
    Access(u32),
}

/// A runnable network.
pub struct Network {
    name: String,
    duration: SimTime,
    warmup: SimTime,
    seed: u64,
    sample_every: SimTime,
    /// Which columns the series hold.
    sample: crate::spec::SampleSelection,
    node_names: Vec<String>,
    queue: EventQueue<Event>,
    fingerprint: Fingerprint,
    ports: Vec<Port>,
    channels: Vec<Channel>,
    switches: Vec<Switch>,
    hosts: Vec<Host>,
    vcs: Vec<Vc>,
    tcps: Vec<Tcp>,
    sources: Vec<Source>,
    /// The spec's connections in order.
    conns: Vec<Conn>,
    /// Fields of the RM cells in flight.
    rm: RmTable,
    /// The ABR source end systems, one per ABR VC.
    abr: Vec<abr::AbrVc>,
    /// Per ABR VC, the access line that feeds its source queue (`abr.access_rate`), if any.
    abr_access: Vec<Option<crate::abr::access::AccessLine>>,
    cell_hops: u64,
    warmed_up: bool,
    /// Cells inside the network when the warm-up ended (see [`stats::Totals`]).
    in_flight_at_warmup: u64,
    /// Per port, how much of the cell it was transmitting when the warm-up ended was still
    /// to go (that part of its busy time falls in the measured span).
    tx_left_at_warmup: Vec<SimTime>,
    /// Per VC, per port of its path, which of its frames' cells crossed the port after the
    /// warm-up ([`report::Frontier`]; empty until the warm-up ends).
    eff_frontier: Vec<Vec<report::Frontier>>,
    ran_until: SimTime,
    series: SeriesRecorder,
    series_layout: Option<report::SeriesLayout>,
    /// Counters of the cell sources at the end of the warm-up.
    source_warmup: Vec<report::ConnCounters>,
    /// Window decreases after warm-up, in time order.
    decreases: Vec<stats::Decrease>,
    /// Merging switches' frame buffers, one per merged connection
    /// ([`crate::switch::RouteKind::Merge`]): the cells of its frame so far.
    merge_buffers: Vec<Vec<crate::cell::Cell>>,
    /// The packet and cell trace, if one is attached ([`Network::attach_trace`]).
    trace: Option<Box<trace::Tracer>>,
}

impl Network {
    /// Runs to the end of the configured duration.
    pub fn run(&mut self) {
        self.run_until(self.duration);
    }

    /// Runs every event up to and including time `until`.
    pub fn run_until(&mut self, until: SimTime) {
        self.run_some(until, u64::MAX);
    }

    /// Runs to the end of the configured duration, asking `keep_going` every `every` events
    /// whether to go on (a user's Ctrl-C, a cancelled sweep), and telling it the simulated
    /// time reached (for a progress bar); returns false if it stopped early. The events run
    /// are the same as [`Network::run`]'s, in the same order, up to the stop.
    pub fn run_checked(&mut self, every: u64, mut keep_going: impl FnMut(SimTime) -> bool) -> bool {
        let until = self.duration;
        while !self.run_some(until, every.max(1)) {
            if !keep_going(self.queue.now()) {
                return false;
            }
        }
        true
    }

    /// The simulated time to run to.
    pub fn duration(&self) -> SimTime {
        self.duration
    }

    /// Runs at most `budget` events up to and including time `until`; returns whether it got
    /// to `until`.
    fn run_some(&mut self, until: SimTime, budget: u64) -> bool {
        let stop = self.queue.events_processed().saturating_add(budget);
        loop {
            if self.queue.events_processed() == stop {
                // Out of budget: done only if no event is left up to `until`.
                if self.queue.peek_time().is_some_and(|t| t <= until) {
                    return false;
                }
                break;
            }
            let Some((now, ev)) = self.queue.pop_until(until) else {
                break;
            };
            self.fingerprint.add(now.0, self.tag(ev));
            self.dispatch(now, ev);
        }
        self.ran_until = self.ran_until.max(until);
        true
    }

    /// The event's fingerprint ingredient: its kind and the index it acts on (hosts by their
    /// node index).
    #[inline]
    fn tag(&self, ev: Event) -> u64 {
        let (kind, id): (u64, u32) = match ev {
            Event::TxDone(p) => (1, p.0),
            Event::Arrive(p) => (2, p.0),
            Event::Credit(p) => (3, p.0),
            Event::Cpu(h) => (4, self.hosts[h.idx()].node.0),
            Event::Sar(h) => (5, self.hosts[h.idx()].node.0),
            Event::Reassembled(h) => (6, self.hosts[h.idx()].node.0),
            Event::Rto(c) => (7, c.0),
            Event::AckTimer(c) => (8, c.0),
            Event::Start(c) => (9, c.0),
            Event::Sample => (10, 0),
            Event::Warmup => (11, 0),
            Event::Wake(p) => (12, p.0),
            Event::Source(s) => (13, s.0),
            Event::RateInterval(p) => (14, p.0),
            Event::Access(a) => (15, a),
        };
        (kind << 32) | id as u64
    }

    #[inline(always)]
    fn dispatch(&mut self, now: SimTime, ev: Event) {
        match ev {
            Event::TxDone(p) => {
                let port = &mut self.ports[p.idx()];
                if port.sole_paced && port.held_until != now {
                    return; // released sooner (an ABR rate increase)
                }
                port.busy = false;
                self.try_transmit(now, p);
            }
            Event::Arrive(p) => self.on_arrive(now, p),
            Event::Credit(p) => self.on_credit(now, p),
            Event::Cpu(h) => self.on_cpu_done(now, h),
            Event::Sar(h) => self.on_sar_done(now, h),
            Event::Reassembled(h) => self.on_reassembled(now, h),
            Event::Rto(c) => self.on_rto_event(now, c),
            Event::AckTimer(c) => self.on_ack_timer_event(now, c),
            Event::Start(c) => {
                if self.trace.is_some() {
                    self.trace_start(now, c);
                }
                self.pump_sender(now, c)
            }
            Event::Sample => self.on_sample(now),
            Event::Warmup => self.on_warmup(now),
            Event::Wake(p) => self.on_wake(now, p),
            Event::Source(s) => self.on_source_event(now, s),
            Event::RateInterval(p) => self.on_rate_interval(now, p),
            Event::Access(a) => self.on_access(now, a),
        }
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.queue.events_processed()
    }

    /// Cells put on any link so far.
    pub fn cell_hops(&self) -> u64 {
        self.cell_hops
    }

    /// Fingerprint of the event sequence so far.
    pub fn fingerprint(&self) -> String {
        self.fingerprint.hex()
    }

    /// Per-connection sender, for tests (`conn`: the index among the TCP connections).
    pub fn sender(&self, conn: usize) -> &crate::tcp::TcpSender {
        &self.tcps[conn].sender
    }

    /// The ABR source end system of VC `vc` (VCs are numbered in connection order; a TCP
    /// connection has its data VC, then its ACK VC), for inspection.
    pub fn abr_source(&self, vc: usize) -> Option<&crate::abr::source::AbrSource> {
        let a = self.vcs.get(vc)?.abr?;
        Some(&self.abr[a as usize].source)
    }

    /// The switches, for inspection.
    pub fn switches(&self) -> &[Switch] {
        &self.switches
    }

    /// The ports (switch outputs and host adapters), for inspection.
    pub fn ports(&self) -> &[Port] {
        &self.ports
    }
}

/// Runs `spec` to its end and returns the report (wall time is left at 0 for the caller).
pub fn run(spec: &NetworkSpec, name: &str) -> Result<Report, ModelError> {
    let mut net = Network::new(spec, name)?;
    net.run();
    Ok(net.into_report())
}
