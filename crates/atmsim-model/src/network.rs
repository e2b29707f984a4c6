//! The network: hosts, switches and links wired from a [`NetworkSpec`], driven by one event
//! loop.
//!
//! One cell's life (DESIGN.md "A cell's path"): a TCP segment is processed by its host's CPU
//! (a FIFO server, `processing_delay` per packet), segmented by the host's SAR engine
//! (`sar_delay_per_cell` per cell), queued at the host adapter (a [`Port`]), sent on a link
//! channel, held after `switching_delay` at a switch output [`Port`] that may drop it, sent on,
//! and at the destination host reassembled: a frame that lost a cell fails its CRC and is
//! discarded; an intact frame waits one cell's reassembly time, then the CPU, then TCP.
//! ACKs return the same way on the connection's reverse VC.
//!
//! Simplifications, each a modelling choice stated here:
//! - the switching delay is added to the arrival time of each cell at a switch (a constant
//!   delay on every path, so it is folded into the link lane rather than queued separately);
//! - a frame is handed to the adapter when the SAR engine has segmented all of its cells;
//! - AN2 credits return upstream one per cell when the cell leaves the downstream buffer (or
//!   reaches the destination host), after the link's propagation delay plus one cell time for
//!   the cell that carries it; piggybacking costs no bandwidth (Fang et al. 1994).

use crate::aal5;
use crate::cell::{Cell, CELL_BITS};
use crate::port::{DropReason, Port, PortCounters};
use crate::spec::{AppSpec, NetworkSpec, NodeKind, Queueing};
use crate::stats::{self, Report, SeriesRecorder};
use crate::tcp::{AckAction, Segment, TcpReceiver, TcpSender};
use atmsim_engine::{EventQueue, Fingerprint, Lane, RngStreams, SimTime};
use std::collections::VecDeque;
use std::fmt;

/// Errors found while wiring a spec that the scenario layer should have refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelError(pub String);

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for ModelError {}

/// The closed set of events; one `match` in [`Network::dispatch`] routes them.
#[derive(Debug, Clone, Copy)]
enum Event {
    /// A port finished serialising a cell.
    TxDone(u32),
    /// The head cell of a channel lane reaches the far end.
    Arrive(u32),
    /// The head credit of a channel's credit lane reaches the upstream port.
    Credit(u32),
    /// A host CPU finished its current job.
    Cpu(u32),
    /// A host SAR engine finished segmenting its head frame.
    Sar(u32),
    /// A host finished reassembling its head frame.
    Reassembled(u32),
    /// A connection's retransmission timer may be due.
    Rto(u32),
    /// A connection's delayed-ACK timer may be due.
    AckTimer(u32),
    /// A connection's application starts.
    Start(u32),
    /// Take a time-series sample.
    Sample,
    /// Warm-up ends: snapshot the counters.
    Warmup,
}

impl Event {
    fn tag(self) -> u64 {
        let (kind, id) = match self {
            Event::TxDone(i) => (1, i),
            Event::Arrive(i) => (2, i),
            Event::Credit(i) => (3, i),
            Event::Cpu(i) => (4, i),
            Event::Sar(i) => (5, i),
            Event::Reassembled(i) => (6, i),
            Event::Rto(i) => (7, i),
            Event::AckTimer(i) => (8, i),
            Event::Start(i) => (9, i),
            Event::Sample => (10, 0),
            Event::Warmup => (11, 0),
        };
        (kind << 32) | id as u64
    }
}

/// One direction of a link.
#[derive(Debug)]
struct Channel {
    /// The port that transmits on this channel.
    port: u32,
    to_node: u32,
    cell_time: SimTime,
    /// Propagation delay, plus the switching delay when the far end is a switch.
    arrive_after: SimTime,
    /// Propagation delay plus one cell time: how long a credit takes to come back.
    credit_after: SimTime,
    credits: bool,
    lane: Lane<Cell>,
    /// Credits on their way back to `port`, as slot indices.
    credit_lane: Lane<u32>,
}

/// What a frame carries.
#[derive(Debug, Clone, Copy)]
enum Payload {
    Data { seq: u64, len: u32 },
    Ack { ack: u64 },
}

#[derive(Debug, Clone, Copy)]
struct FrameDesc {
    id: u32,
    cells: u32,
    payload: Payload,
}

/// A virtual channel: one direction of a connection.
#[derive(Debug)]
struct Vc {
    conn: u32,
    /// (port, slot) per hop; hop 0 is the source host's adapter.
    hops: Vec<(u32, u32)>,
    dest_host: u32,
    src_host: u32,
    next_frame: u32,
    /// Frames segmented but not yet resolved at the receiver, oldest first.
    frames: VecDeque<FrameDesc>,
    // Reassembly state at the destination.
    rx_active: bool,
    rx_frame: u32,
    rx_cells: u32,
    rx_mixed: bool,
    counters: VcCounters,
}

#[derive(Debug, Clone, Default)]
struct VcCounters {
    cells_sent: u64,
    cells_delivered: u64,
    cells_dropped: u64,
    frames_sent: u64,
    frames_intact: u64,
    frames_corrupted: u64,
}

/// Work for a host CPU.
#[derive(Debug, Clone, Copy)]
enum Job {
    SendData { conn: u32, seg: Segment },
    SendAck { conn: u32, ack: u64 },
    RecvData { conn: u32, seq: u64, len: u32 },
    RecvAck { conn: u32, ack: u64 },
}

#[derive(Debug)]
struct Host {
    processing: SimTime,
    sar_per_cell: SimTime,
    llc_snap: bool,
    cpu: VecDeque<Job>,
    cpu_busy: bool,
    /// Frames leaving segmentation: (vc, frame id).
    sar: Lane<(u32, u32)>,
    sar_free_at: SimTime,
    ip_service: SimTime,
    ip_free_at: SimTime,
    /// Intact frames leaving reassembly: (vc, payload).
    reasm: Lane<(u32, Payload)>,
}

/// Counters of a connection that are snapshotted at warm-up.
#[derive(Debug, Clone, Default)]
pub(crate) struct ConnCounters {
    pub delivered_bytes: u64,
    pub received_bytes: u64,
    pub segments_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub packets_delivered: u64,
    pub packets_distinct: u64,
    pub rtt_samples: u64,
    pub rtt_sum: SimTime,
    pub cells_sent: u64,
    pub cells_delivered: u64,
    pub cells_dropped: u64,
    pub frames_corrupted: u64,
}

#[derive(Debug)]
struct Conn {
    name: String,
    data_vc: u32,
    ack_vc: u32,
    sender: TcpSender,
    receiver: TcpReceiver,
    start: SimTime,
    rto_pending: Option<SimTime>,
    ack_pending: Option<SimTime>,
    packets_delivered: u64,
    at_warmup: ConnCounters,
}

/// A runnable network.
pub struct Network {
    name: String,
    duration: SimTime,
    warmup: SimTime,
    seed: u64,
    sample_every: SimTime,
    node_names: Vec<String>,
    queue: EventQueue<Event>,
    fingerprint: Fingerprint,
    ports: Vec<Port>,
    channels: Vec<Channel>,
    hosts: Vec<Option<Host>>,
    vcs: Vec<Vc>,
    conns: Vec<Conn>,
    cell_hops: u64,
    warmed_up: bool,
    ran_until: SimTime,
    series: SeriesRecorder,
    /// Window decreases after warm-up, in time order.
    decreases: Vec<stats::Decrease>,
}

impl Network {
    /// Wires the network described by `spec`.
    pub fn new(spec: &NetworkSpec, name: &str) -> Result<Network, ModelError> {
        let n = spec.nodes.len();
        let mut ports: Vec<Port> = Vec::new();
        let mut channels: Vec<Channel> = Vec::new();
        // port_of[(node, next)] -> port index
        let mut port_of = vec![Vec::<(usize, u32)>::new(); n];
        for (li, link) in spec.links.iter().enumerate() {
            if link.a == link.b || link.a >= n || link.b >= n {
                return Err(ModelError(format!("link {li} joins invalid nodes")));
            }
            if link.cell_time == SimTime::ZERO {
                return Err(ModelError(format!("link {li} has a zero cell time")));
            }
            for (from, to) in [(link.a, link.b), (link.b, link.a)] {
                let (queueing, vc_limit, port_limit, policy) = match &spec.nodes[from].kind {
                    NodeKind::Switch(s) => {
                        (s.queueing, s.vc_buffer_cells, s.port_buffer_cells, s.policy)
                    }
                    // A host adapter queues per VC in host memory without limit.
                    NodeKind::Host(_) => (
                        Queueing::PerVc,
                        None,
                        None,
                        crate::spec::PolicySpec::CellDrop,
                    ),
                };
                if link.credits.is_some() && queueing == Queueing::Fifo {
                    return Err(ModelError(format!(
                        "switch {} uses FIFO queueing but link {}-{} has credit flow control, \
                         which needs per-VC queues",
                        spec.nodes[from].name, spec.nodes[link.a].name, spec.nodes[link.b].name
                    )));
                }
                let switching = match &spec.nodes[to].kind {
                    NodeKind::Switch(s) => s.switching_delay,
                    NodeKind::Host(_) => SimTime::ZERO,
                };
                let port = ports.len() as u32;
                let ch = channels.len() as u32;
                ports.push(Port::new(
                    format!("{}->{}", spec.nodes[from].name, spec.nodes[to].name),
                    from as u32,
                    ch,
                    queueing,
                    vc_limit,
                    port_limit,
                    policy,
                ));
                channels.push(Channel {
                    port,
                    to_node: to as u32,
                    cell_time: link.cell_time,
                    arrive_after: link.delay + switching,
                    credit_after: link.delay + link.cell_time,
                    credits: link.credits.is_some(),
                    lane: Lane::new(),
                    credit_lane: Lane::new(),
                });
                port_of[from].push((to, port));
            }
        }
        let find_port = |from: usize, to: usize| -> Option<u32> {
            port_of[from]
                .iter()
                .find(|(t, _)| *t == to)
                .map(|(_, p)| *p)
        };

        let mut hosts: Vec<Option<Host>> = Vec::with_capacity(n);
        for (i, node) in spec.nodes.iter().enumerate() {
            hosts.push(match &node.kind {
                NodeKind::Host(h) => {
                    if port_of[i].len() > 1 {
                        return Err(ModelError(format!(
                            "host {} has more than one link; a host has one adapter",
                            node.name
                        )));
                    }
                    Some(Host {
                        processing: h.processing_delay,
                        sar_per_cell: h.sar_delay_per_cell,
                        llc_snap: h.llc_snap,
                        cpu: VecDeque::new(),
                        cpu_busy: false,
                        sar: Lane::new(),
                        sar_free_at: SimTime::ZERO,
                        ip_service: h.ip_service_time,
                        ip_free_at: SimTime::ZERO,
                        reasm: Lane::new(),
                    })
                }
                NodeKind::Switch(_) => None,
            });
        }

        let streams = RngStreams::new(spec.run.seed);
        let mut vcs: Vec<Vc> = Vec::new();
        let mut conns: Vec<Conn> = Vec::new();
        for (ci, c) in spec.connections.iter().enumerate() {
            if c.path.len() < 2 {
                return Err(ModelError(format!("connection {} has no path", c.name)));
            }
            let (src, dst) = (c.path[0], *c.path.last().unwrap());
            if hosts[src].is_none() || hosts[dst].is_none() {
                return Err(ModelError(format!(
                    "connection {} must start and end at hosts",
                    c.name
                )));
            }
            let mut vc_ids = [0u32; 2];
            for (dir, path) in [c.path.clone(), c.path.iter().rev().copied().collect()]
                .into_iter()
                .enumerate()
            {
                let vc = vcs.len() as u32;
                let mut hops = Vec::with_capacity(path.len() - 1);
                for w in path.windows(2) {
                    let p = find_port(w[0], w[1]).ok_or_else(|| {
                        ModelError(format!(
                            "connection {}: no link between {} and {}",
                            c.name, spec.nodes[w[0]].name, spec.nodes[w[1]].name
                        ))
                    })?;
                    if w[0] != path[0] && hosts[w[0]].is_some() {
                        return Err(ModelError(format!(
                            "connection {}: host {} cannot forward cells",
                            c.name, spec.nodes[w[0]].name
                        )));
                    }
                    let credits = spec.links[spec.link_between(w[0], w[1]).unwrap()].credits;
                    let slot = ports[p as usize].add_slot(vc, credits);
                    hops.push((p, slot));
                }
                vcs.push(Vc {
                    conn: ci as u32,
                    hops,
                    dest_host: *path.last().unwrap() as u32,
                    src_host: path[0] as u32,
                    next_frame: 0,
                    frames: VecDeque::new(),
                    rx_active: false,
                    rx_frame: 0,
                    rx_cells: 0,
                    rx_mixed: false,
                    counters: VcCounters::default(),
                });
                vc_ids[dir] = vc;
            }
            let mut rng = streams.stream(ci as u64);
            let jitter = if c.start_jitter.0 > 0 {
                SimTime(rng.below(c.start_jitter.0 + 1))
            } else {
                SimTime::ZERO
            };
            conns.push(Conn {
                name: c.name.clone(),
                data_vc: vc_ids[0],
                ack_vc: vc_ids[1],
                sender: TcpSender::new(&c.tcp, c.app),
                receiver: TcpReceiver::new(&c.tcp),
                start: c.start + jitter,
                rto_pending: None,
                ack_pending: None,
                packets_delivered: 0,
                at_warmup: ConnCounters::default(),
            });
            if let AppSpec::Bytes(0) = c.app {
                return Err(ModelError(format!("connection {} sends 0 bytes", c.name)));
            }
        }

        let series = SeriesRecorder::new(
            conns.iter().map(|c| c.name.clone()).collect(),
            ports.iter().map(|p| p.name.clone()).collect(),
        );
        let mut net = Network {
            name: name.to_string(),
            duration: spec.run.duration,
            warmup: spec.run.warmup,
            seed: spec.run.seed,
            sample_every: spec.run.sample_every,
            node_names: spec.nodes.iter().map(|n| n.name.clone()).collect(),
            queue: EventQueue::new(),
            fingerprint: Fingerprint::new(),
            ports,
            channels,
            hosts,
            vcs,
            conns,
            cell_hops: 0,
            warmed_up: false,
            ran_until: SimTime::ZERO,
            series,
            decreases: Vec::new(),
        };
        for ci in 0..net.conns.len() {
            let t = net.conns[ci].start;
            net.queue.schedule(t, Event::Start(ci as u32));
        }
        net.queue.schedule(net.warmup, Event::Warmup);
        if net.sample_every > SimTime::ZERO {
            net.queue.schedule(SimTime::ZERO, Event::Sample);
        }
        Ok(net)
    }

    /// Runs to the end of the configured duration.
    pub fn run(&mut self) {
        self.run_until(self.duration);
    }

    /// Runs every event up to and including time `until`.
    pub fn run_until(&mut self, until: SimTime) {
        while let Some(t) = self.queue.peek_time() {
            if t > until {
                break;
            }
            let (now, ev) = self.queue.pop().expect("peeked");
            self.fingerprint.add(now.0, ev.tag());
            self.dispatch(now, ev);
        }
        self.ran_until = self.ran_until.max(until);
    }

    #[inline]
    fn dispatch(&mut self, now: SimTime, ev: Event) {
        match ev {
            Event::TxDone(p) => {
                self.ports[p as usize].busy = false;
                self.try_transmit(now, p);
            }
            Event::Arrive(ch) => self.on_arrive(now, ch),
            Event::Credit(ch) => self.on_credit(now, ch),
            Event::Cpu(h) => self.on_cpu_done(now, h),
            Event::Sar(h) => self.on_sar_done(now, h),
            Event::Reassembled(h) => self.on_reassembled(now, h),
            Event::Rto(c) => self.on_rto_event(now, c),
            Event::AckTimer(c) => self.on_ack_timer_event(now, c),
            Event::Start(c) => self.pump_sender(now, c),
            Event::Sample => self.on_sample(now),
            Event::Warmup => self.on_warmup(),
        }
    }

    // ----- cells on ports and links -------------------------------------------------------

    /// Starts sending the next eligible cell of port `p` if the port is idle.
    #[inline]
    fn try_transmit(&mut self, now: SimTime, p: u32) {
        let port = &mut self.ports[p as usize];
        if port.busy || !port.has_eligible() {
            return;
        }
        let vcs = &self.vcs;
        let Some((_slot, mut cell)) = port.next_cell(|c| vcs[c.vc as usize].hops[c.hop as usize].1)
        else {
            return;
        };
        port.busy = true;
        port.counters.cells_sent += 1;
        let ch_idx = port.channel;
        let hop = cell.hop as usize;
        let ch = &mut self.channels[ch_idx as usize];
        let done = now + ch.cell_time;
        self.queue.schedule(done, Event::TxDone(p));
        cell.hop += 1;
        ch.lane.push_waking(
            done + ch.arrive_after,
            cell,
            &mut self.queue,
            Event::Arrive(ch_idx),
        );
        self.cell_hops += 1;
        // The cell left this buffer: the upstream hop gets its credit back (AN2).
        if hop > 0 {
            let (up_port, up_slot) = self.vcs[cell.vc as usize].hops[hop - 1];
            self.return_credit(now, up_port, up_slot);
        }
    }

    #[inline]
    fn return_credit(&mut self, now: SimTime, up_port: u32, up_slot: u32) {
        let ch_idx = self.ports[up_port as usize].channel;
        let ch = &mut self.channels[ch_idx as usize];
        if ch.credits {
            let at = now + ch.credit_after;
            ch.credit_lane
                .push_waking(at, up_slot, &mut self.queue, Event::Credit(ch_idx));
        }
    }

    fn on_credit(&mut self, now: SimTime, ch_idx: u32) {
        let ch = &mut self.channels[ch_idx as usize];
        let slot = ch
            .credit_lane
            .pop_waking(&mut self.queue, Event::Credit(ch_idx))
            .expect("credit event with an empty lane");
        let p = ch.port;
        self.ports[p as usize].on_credit(slot);
        self.try_transmit(now, p);
    }

    fn on_arrive(&mut self, now: SimTime, ch_idx: u32) {
        let ch = &mut self.channels[ch_idx as usize];
        let cell = ch
            .lane
            .pop_waking(&mut self.queue, Event::Arrive(ch_idx))
            .expect("arrival event with an empty lane");
        let to = ch.to_node;
        let vc = &self.vcs[cell.vc as usize];
        if vc.dest_host == to {
            // The destination adapter consumes the cell at once; its buffer frees at once.
            let (up_port, up_slot) = vc.hops[cell.hop as usize - 1];
            self.return_credit(now, up_port, up_slot);
            self.on_cell_at_host(now, cell);
            return;
        }
        let (p, slot) = vc.hops[cell.hop as usize];
        let offer = self.ports[p as usize].offer(slot, cell);
        if offer.accepted {
            self.try_transmit(now, p);
        }
        if offer.dropped > 0 {
            self.vcs[cell.vc as usize].counters.cells_dropped += offer.dropped as u64;
            // Buffer space freed by a drop is credited upstream like a departure (a
            // consistent AN2 configuration never drops; this keeps an inconsistent one live).
            let (up_port, up_slot) = self.vcs[cell.vc as usize].hops[cell.hop as usize - 1];
            for _ in 0..offer.dropped {
                self.return_credit(now, up_port, up_slot);
            }
        }
    }

    // ----- hosts ---------------------------------------------------------------------------

    /// AAL5 reassembly at the destination: a frame is intact only if all of its cells, and
    /// no others, arrived before its EOM (a merged or short frame fails the CRC-32/length check).
    fn on_cell_at_host(&mut self, now: SimTime, cell: Cell) {
        let vcid = cell.vc;
        let vc = &mut self.vcs[vcid as usize];
        vc.counters.cells_delivered += 1;
        if !vc.rx_active {
            vc.rx_active = true;
            vc.rx_frame = cell.frame;
            vc.rx_cells = 0;
            vc.rx_mixed = false;
        } else if cell.frame != vc.rx_frame {
            vc.rx_mixed = true;
        }
        vc.rx_cells += 1;
        if !cell.is_eom() {
            return;
        }
        vc.rx_active = false;
        // Frames older than this EOM's frame can no longer complete.
        while vc.frames.front().is_some_and(|f| f.id < cell.frame) {
            vc.frames.pop_front();
        }
        let Some(desc) = vc.frames.pop_front() else {
            return;
        };
        debug_assert_eq!(desc.id, cell.frame);
        let intact = !vc.rx_mixed && vc.rx_frame == cell.frame && vc.rx_cells == desc.cells;
        if !intact {
            vc.counters.frames_corrupted += 1;
            return;
        }
        vc.counters.frames_intact += 1;
        for &(p, _) in &vc.hops {
            self.ports[p as usize].counters.effective_cells += desc.cells as u64;
        }
        let host_idx = vc.dest_host;
        let host = self.hosts[host_idx as usize].as_mut().unwrap();
        let at = now + host.sar_per_cell;
        host.reasm.push_waking(
            at,
            (vcid, desc.payload),
            &mut self.queue,
            Event::Reassembled(host_idx),
        );
    }

    fn on_reassembled(&mut self, now: SimTime, h: u32) {
        let host = self.hosts[h as usize].as_mut().unwrap();
        let (vcid, payload) = host
            .reasm
            .pop_waking(&mut self.queue, Event::Reassembled(h))
            .expect("reassembly lane empty");
        let conn = self.vcs[vcid as usize].conn;
        let job = match payload {
            Payload::Data { seq, len } => Job::RecvData { conn, seq, len },
            Payload::Ack { ack } => Job::RecvAck { conn, ack },
        };
        self.cpu_submit(now, h, job);
    }

    fn cpu_submit(&mut self, now: SimTime, h: u32, job: Job) {
        let host = self.hosts[h as usize].as_mut().unwrap();
        host.cpu.push_back(job);
        if !host.cpu_busy {
            host.cpu_busy = true;
            self.queue.schedule(now + host.processing, Event::Cpu(h));
        }
    }

    fn on_cpu_done(&mut self, now: SimTime, h: u32) {
        let host = self.hosts[h as usize].as_mut().unwrap();
        let job = host.cpu.pop_front().expect("cpu event with no job");
        if host.cpu.is_empty() {
            host.cpu_busy = false;
        } else {
            self.queue.schedule(now + host.processing, Event::Cpu(h));
        }
        match job {
            Job::SendData { conn, seg } => {
                let vc = self.conns[conn as usize].data_vc;
                let payload = Payload::Data {
                    seq: seg.seq,
                    len: seg.len,
                };
                self.segment(now, h, vc, seg.len, payload);
            }
            Job::SendAck { conn, ack } => {
                let vc = self.conns[conn as usize].ack_vc;
                self.segment(now, h, vc, 0, Payload::Ack { ack });
            }
            Job::RecvData { conn, seq, len } => {
                let c = &mut self.conns[conn as usize];
                c.packets_delivered += 1;
                let action = c.receiver.on_segment(now, seq, len);
                self.after_receive(now, conn, action);
            }
            Job::RecvAck { conn, ack } => {
                let before = self.loss_responses(conn);
                self.conns[conn as usize].sender.on_ack(now, ack);
                self.note_decrease(now, conn, before);
                self.pump_sender(now, conn);
            }
        }
    }

    /// Hands a packet to the host's IP output queue and SAR engine.
    fn segment(&mut self, now: SimTime, h: u32, vcid: u32, tcp_payload: u32, payload: Payload) {
        let host = self.hosts[h as usize].as_mut().unwrap();
        let cells = aal5::cells_for_segment(tcp_payload, host.llc_snap);
        let vc = &mut self.vcs[vcid as usize];
        let id = vc.next_frame;
        vc.next_frame += 1;
        vc.frames.push_back(FrameDesc { id, cells, payload });
        // IP output queue, then the SAR engine: two FIFO servers in series, so the frame's
        // completion times are non-decreasing and one lane carries both stages.
        let mut ready = now;
        if host.ip_service > SimTime::ZERO {
            ready = now.max(host.ip_free_at) + host.ip_service;
            host.ip_free_at = ready;
        }
        let start = ready.max(host.sar_free_at);
        let done = start + host.sar_per_cell * cells as u64;
        host.sar_free_at = done;
        host.sar
            .push_waking(done, (vcid, id), &mut self.queue, Event::Sar(h));
    }

    fn on_sar_done(&mut self, now: SimTime, h: u32) {
        let host = self.hosts[h as usize].as_mut().unwrap();
        let (vcid, id) = host
            .sar
            .pop_waking(&mut self.queue, Event::Sar(h))
            .expect("sar lane empty");
        let vc = &mut self.vcs[vcid as usize];
        let cells = vc
            .frames
            .iter()
            .rev()
            .find(|f| f.id == id)
            .map(|f| f.cells)
            .expect("frame descriptor");
        let (port, slot) = vc.hops[0];
        vc.counters.cells_sent += cells as u64;
        vc.counters.frames_sent += 1;
        let p = &mut self.ports[port as usize];
        for i in 0..cells {
            let flags = if i + 1 == cells { Cell::EOM } else { 0 };
            p.push(
                slot,
                Cell {
                    vc: vcid,
                    frame: id,
                    hop: 0,
                    flags,
                },
            );
        }
        self.try_transmit(now, port);
    }

    // ----- TCP glue --------------------------------------------------------------------------

    /// Lets the sender emit every segment its window allows, then re-arms its timer.
    fn pump_sender(&mut self, now: SimTime, conn: u32) {
        if now < self.conns[conn as usize].start {
            return;
        }
        let src = self.vcs[self.conns[conn as usize].data_vc as usize].src_host;
        while let Some(seg) = self.conns[conn as usize].sender.next_segment(now) {
            self.cpu_submit(now, src, Job::SendData { conn, seg });
        }
        self.arm_rto(conn);
    }

    fn arm_rto(&mut self, conn: u32) {
        let c = &mut self.conns[conn as usize];
        if let Some(d) = c.sender.timer_deadline() {
            if c.rto_pending.is_none_or(|p| d < p) {
                c.rto_pending = Some(d);
                self.queue
                    .schedule(d.max(self.queue.now()), Event::Rto(conn));
            }
        }
    }

    /// Timeouts plus fast retransmits so far: each one cuts the window.
    fn loss_responses(&self, conn: u32) -> u64 {
        let s = self.conns[conn as usize].sender.stats();
        s.timeouts + s.fast_retransmits
    }

    /// Records a window decrease (for the synchronisation metric) if one just happened.
    fn note_decrease(&mut self, now: SimTime, conn: u32, before: u64) {
        if self.loss_responses(conn) > before && now >= self.warmup {
            let rtt = self.conns[conn as usize]
                .sender
                .srtt()
                .unwrap_or(SimTime::ZERO);
            self.decreases.push(stats::Decrease {
                time: now,
                conn,
                rtt,
            });
        }
    }

    fn on_rto_event(&mut self, now: SimTime, conn: u32) {
        let c = &mut self.conns[conn as usize];
        if c.rto_pending.is_some_and(|p| p <= now) {
            c.rto_pending = None;
        }
        if c.sender.timer_deadline().is_some_and(|d| d <= now) {
            let before = self.loss_responses(conn);
            self.conns[conn as usize].sender.on_timer(now);
            self.note_decrease(now, conn, before);
            self.pump_sender(now, conn);
        } else {
            self.arm_rto(conn);
        }
    }

    fn after_receive(&mut self, now: SimTime, conn: u32, action: AckAction) {
        if let AckAction::Now(ack) = action {
            let dst = self.vcs[self.conns[conn as usize].data_vc as usize].dest_host;
            self.cpu_submit(now, dst, Job::SendAck { conn, ack });
        }
        let c = &mut self.conns[conn as usize];
        if let Some(d) = c.receiver.ack_deadline() {
            if c.ack_pending.is_none_or(|p| d < p) {
                c.ack_pending = Some(d);
                self.queue.schedule(d.max(now), Event::AckTimer(conn));
            }
        }
    }

    fn on_ack_timer_event(&mut self, now: SimTime, conn: u32) {
        let c = &mut self.conns[conn as usize];
        if c.ack_pending.is_some_and(|p| p <= now) {
            c.ack_pending = None;
        }
        let action = if c.receiver.ack_deadline().is_some_and(|d| d <= now) {
            c.receiver.on_ack_timer(now)
        } else {
            AckAction::None
        };
        self.after_receive(now, conn, action);
    }

    // ----- statistics --------------------------------------------------------------------

    fn conn_counters(&self, ci: usize) -> ConnCounters {
        let c = &self.conns[ci];
        let s = c.sender.stats();
        let d = &self.vcs[c.data_vc as usize].counters;
        let a = &self.vcs[c.ack_vc as usize].counters;
        ConnCounters {
            delivered_bytes: c.receiver.rcv_nxt(),
            received_bytes: c.receiver.bytes_received(),
            segments_sent: s.segments_sent,
            retransmits: s.retransmits,
            timeouts: s.timeouts,
            fast_retransmits: s.fast_retransmits,
            packets_delivered: c.packets_delivered,
            packets_distinct: c.receiver.segments_new(),
            rtt_samples: s.rtt_samples,
            rtt_sum: s.rtt_sum,
            cells_sent: d.cells_sent + a.cells_sent,
            cells_delivered: d.cells_delivered + a.cells_delivered,
            cells_dropped: d.cells_dropped + a.cells_dropped,
            frames_corrupted: d.frames_corrupted + a.frames_corrupted,
        }
    }

    fn on_warmup(&mut self) {
        for ci in 0..self.conns.len() {
            self.conns[ci].at_warmup = self.conn_counters(ci);
        }
        for p in &mut self.ports {
            p.at_warmup = p.counters.clone();
        }
        self.warmed_up = true;
    }

    fn on_sample(&mut self, now: SimTime) {
        let conns: Vec<stats::ConnSample> = (0..self.conns.len())
            .map(|ci| {
                let c = &self.conns[ci];
                let k = self.conn_counters(ci);
                stats::ConnSample {
                    delivered_bytes: k.delivered_bytes,
                    received_bytes: k.received_bytes,
                    cwnd: c.sender.cwnd(),
                    ssthresh: c.sender.ssthresh(),
                    srtt: c.sender.srtt(),
                    rto: c.sender.rto(),
                    segments_sent: k.segments_sent,
                    retransmits: k.retransmits,
                    cells_sent: k.cells_sent,
                    cells_dropped: k.cells_dropped,
                }
            })
            .collect();
        let ports: Vec<stats::PortSample> = self
            .ports
            .iter()
            .map(|p| stats::PortSample {
                queue: p.occupancy,
                cells_sent: p.counters.cells_sent,
                effective_cells: p.counters.effective_cells,
                cells_dropped: p.counters.dropped(),
                cell_time: self.channels[p.channel as usize].cell_time,
            })
            .collect();
        self.series.record(now, &conns, &ports);
        let next = now + self.sample_every;
        if next <= self.duration {
            self.queue.schedule(next, Event::Sample);
        }
    }

    /// Cells still inside the network (queued at a port or on a link).
    pub fn cells_in_flight(&self) -> u64 {
        let queued: u64 = self.ports.iter().map(|p| p.occupancy as u64).sum();
        let on_links: u64 = self.channels.iter().map(|c| c.lane.len() as u64).sum();
        queued + on_links
    }

    /// (sent, delivered, dropped, in flight) over all VCs: sent = delivered + dropped + in flight.
    pub fn cell_balance(&self) -> (u64, u64, u64, u64) {
        let mut t = (0, 0, 0, 0);
        for v in &self.vcs {
            t.0 += v.counters.cells_sent;
            t.1 += v.counters.cells_delivered;
            t.2 += v.counters.cells_dropped;
        }
        t.3 = self.cells_in_flight();
        t
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

    /// The summary and time series of the run so far (the series are copied; see
    /// [`Network::into_report`]).
    pub fn report(&self) -> Report {
        let mut r = self.summary_report();
        r.series = self.series.finish();
        r
    }

    /// The summary and time series, moving the series out instead of copying them.
    pub fn into_report(mut self) -> Report {
        let mut r = self.summary_report();
        r.series = std::mem::take(&mut self.series).into_series();
        r
    }

    fn summary_report(&self) -> Report {
        let end = self.duration.min(self.ran_until);
        let measured = end.saturating_sub(self.warmup);
        let secs = measured.as_secs_f64();
        let mbps = |bytes: u64| {
            if secs > 0.0 {
                bytes as f64 * 8.0 / secs / 1e6
            } else {
                0.0
            }
        };
        let pct = |num: u64, den: u64| {
            if den > 0 {
                100.0 * num as f64 / den as f64
            } else {
                0.0
            }
        };
        let mut connections = Vec::new();
        let mut tot = ConnCounters::default();
        for ci in 0..self.conns.len() {
            let c = &self.conns[ci];
            let now_k = self.conn_counters(ci);
            let base = if self.warmed_up {
                c.at_warmup.clone()
            } else {
                now_k.clone()
            };
            let d = now_k.minus(&base);
            connections.push(stats::ConnectionSummary {
                name: c.name.clone(),
                goodput_mbps: mbps(d.delivered_bytes),
                throughput_mbps: mbps(d.received_bytes),
                packets_sent: d.segments_sent,
                packets_delivered: d.packets_delivered,
                packets_distinct: d.packets_distinct,
                retransmissions: d.retransmits,
                retransmission_pct: pct(d.retransmits, d.segments_sent),
                timeouts: d.timeouts,
                fast_retransmits: d.fast_retransmits,
                cells_sent: d.cells_sent,
                cells_delivered: d.cells_delivered,
                cells_dropped: d.cells_dropped,
                cell_loss_pct: pct(d.cells_dropped, d.cells_sent),
                frames_corrupted: d.frames_corrupted,
                mean_rtt_ms: if d.rtt_samples > 0 {
                    d.rtt_sum.as_millis_f64() / d.rtt_samples as f64
                } else {
                    0.0
                },
                max_cwnd_bytes: c.sender.stats().max_cwnd,
            });
            tot.add(&d);
        }
        let ports = self
            .ports
            .iter()
            .map(|p| {
                let base = if self.warmed_up {
                    &p.at_warmup
                } else {
                    &p.counters
                };
                let d = p.counters.minus(base);
                let ct = self.channels[p.channel as usize].cell_time;
                let util = |cells: u64| {
                    if measured.0 > 0 {
                        (cells as f64 * ct.0 as f64) / measured.0 as f64
                    } else {
                        0.0
                    }
                };
                let to = self.channels[p.channel as usize].to_node as usize;
                stats::PortSummary {
                    name: p.name.clone(),
                    node: self.node_names[p.node as usize].clone(),
                    to: self.node_names[to].clone(),
                    max_queue_cells: p.max_occupancy,
                    cells_sent: d.cells_sent,
                    cells_dropped: d.dropped(),
                    drops_by_reason: DropReason::ALL
                        .iter()
                        .map(|r| (r.name().to_string(), d.drops[*r as usize]))
                        .collect(),
                    utilization: util(d.cells_sent),
                    effective_utilization: util(d.effective_cells),
                }
            })
            .collect();
        let goodputs: Vec<f64> = connections.iter().map(|c| c.goodput_mbps).collect();
        let sync = stats::synchronisation(&self.decreases, self.conns.len(), measured);
        let totals = stats::Totals {
            goodput_mbps: goodputs.iter().sum(),
            throughput_mbps: connections.iter().map(|c| c.throughput_mbps).sum(),
            cell_loss_pct: pct(tot.cells_dropped, tot.cells_sent),
            retransmission_pct: pct(tot.retransmits, tot.segments_sent),
            fairness_index: stats::jain_index(&goodputs),
            cells_sent: tot.cells_sent,
            cells_delivered: tot.cells_delivered,
            cells_dropped: tot.cells_dropped,
            cells_in_flight: self.cells_in_flight(),
            window_decreases: self.decreases.len() as u64,
            window_sync_pct: sync.observed_pct,
            window_sync_expected_pct: sync.expected_pct,
        };
        let summary = stats::Summary {
            scenario: self.name.clone(),
            atmsim_version: env!("CARGO_PKG_VERSION").to_string(),
            seed: self.seed,
            simulated_s: end.as_secs_f64(),
            warmup_s: self.warmup.as_secs_f64(),
            wall_s: 0.0,
            events: self.events(),
            cell_hops: self.cell_hops,
            fingerprint: self.fingerprint(),
            connections,
            ports,
            totals,
        };
        Report {
            summary,
            series: Default::default(),
        }
    }

    /// Per-connection sender statistics, for tests.
    pub fn sender(&self, conn: usize) -> &TcpSender {
        &self.conns[conn].sender
    }
}

impl ConnCounters {
    fn minus(&self, b: &ConnCounters) -> ConnCounters {
        ConnCounters {
            delivered_bytes: self.delivered_bytes - b.delivered_bytes,
            received_bytes: self.received_bytes - b.received_bytes,
            segments_sent: self.segments_sent - b.segments_sent,
            retransmits: self.retransmits - b.retransmits,
            timeouts: self.timeouts - b.timeouts,
            fast_retransmits: self.fast_retransmits - b.fast_retransmits,
            packets_delivered: self.packets_delivered - b.packets_delivered,
            packets_distinct: self.packets_distinct - b.packets_distinct,
            rtt_samples: self.rtt_samples - b.rtt_samples,
            rtt_sum: self.rtt_sum - b.rtt_sum,
            cells_sent: self.cells_sent - b.cells_sent,
            cells_delivered: self.cells_delivered - b.cells_delivered,
            cells_dropped: self.cells_dropped - b.cells_dropped,
            frames_corrupted: self.frames_corrupted - b.frames_corrupted,
        }
    }

    fn add(&mut self, d: &ConnCounters) {
        self.segments_sent += d.segments_sent;
        self.retransmits += d.retransmits;
        self.cells_sent += d.cells_sent;
        self.cells_delivered += d.cells_delivered;
        self.cells_dropped += d.cells_dropped;
    }
}

impl PortCounters {
    fn minus(&self, b: &PortCounters) -> PortCounters {
        let mut drops = self.drops;
        for (d, x) in drops.iter_mut().zip(b.drops.iter()) {
            *d -= x;
        }
        PortCounters {
            cells_sent: self.cells_sent - b.cells_sent,
            cells_accepted: self.cells_accepted - b.cells_accepted,
            drops,
            effective_cells: self.effective_cells - b.effective_cells,
        }
    }
}

/// Runs `spec` to its end and returns the report (wall time is left at 0 for the caller).
pub fn run(spec: &NetworkSpec, name: &str) -> Result<Report, ModelError> {
    let mut net = Network::new(spec, name)?;
    net.run();
    Ok(net.into_report())
}

/// Bits per cell, for rate conversions.
pub const fn cell_bits() -> u64 {
    CELL_BITS
}
