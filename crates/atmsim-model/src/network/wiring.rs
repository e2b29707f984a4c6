//! Wiring: a validated [`NetworkSpec`] becomes the arenas of a [`Network`] (nexosim's
//! `SimInit`, done once before the run).
//!
//! - Nodes become switches and hosts; each direction of each link becomes a port and its
//!   channel (port `p` transmits on channel `p`), in link order, `a -> b` before `b -> a`.
//! - Each connection becomes one VC (a cell source) or two (TCP: data forward, ACKs back
//!   along the reverse path). A VC gets a label (a slot) at every port it crosses, and an
//!   entry in the VC table of every switch it crosses: (input link, label) -> (output port,
//!   label), with the port its other direction leaves by.
//! - A host's adapter serves its VCs round robin, under strict priority between service
//!   classes when the host sends VCs of more than one class.
//!
//! The scenario layer has already refused every spec this module would reject; the
//! [`ModelError`]s here name the few that would make the wiring impossible, for specs built
//! by hand.

use super::abr::AbrVc;
use super::report::ConnCounters;
use super::{Conn, Event, Network, Tcp};
use crate::abr::efci::Efci;
use crate::abr::erica::Erica;
use crate::abr::fmmra::Fmmra;
use crate::abr::source::AbrSource;
use crate::abr::RateControl;
use crate::cell::RmTable;
use crate::host::Host;
use crate::ids::{HostId, Label, NodeId, PortId, SourceId, SwitchId, TcpId, VcId};
use crate::link::{Channel, Far};
use crate::port::policy::{PolicyConfig, VcShare};
use crate::port::scheduler::{Discipline, SchedulerSpec};
use crate::port::{NewSlot, Port};
use crate::service::{PriorityClass, ServiceCategory};
use crate::source::Source;
use crate::spec::{
    AckClock, FlowControl, NetworkSpec, NodeIdx, NodeKind, RateControlSpec, SourceSpec,
};
use crate::stats::{self, SeriesRecorder};
use crate::switch::{Route, RouteKind, Switch, VcTable};
use crate::tcp::{TcpReceiver, TcpSender};
use crate::vc::{CellDelay, Owner, Reassembly, Vc, VcCounters};
use atmsim_engine::{EventQueue, Fingerprint, Lane, RngStreams, SimTime};
use std::collections::{HashMap, VecDeque};
use std::fmt;

/// A spec the model cannot wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelError {
    /// A host with more than one link (a host has one adapter).
    HostLinks { host: String },
    /// A connection whose path does not run from a host to another host.
    BadEnds { connection: String },
    /// Two consecutive nodes of a connection's path share no link.
    NoLink {
        connection: String,
        a: String,
        b: String,
    },
    /// A host in the middle of a connection's path.
    HostForwards { connection: String, host: String },
    /// Credits or pacing for a VC that a port serves from a FIFO.
    NeedsPerVcQueues { port: String, what: &'static str },
    /// More VCs on one link direction than a 16-bit label holds.
    TooManyVcs { port: String },
    /// A merged connection whose path does not run through the merge's two switches in order,
    /// with a host before the first and after the second.
    BadMerge { merge: String, connection: String },
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::BadMerge { merge, connection } => {
                write!(
                    f,
                    "merge {merge}: connection {connection} does not run through its `from` \
                     switch and then its `to` switch"
                )
            }
            ModelError::HostLinks { host } => {
                write!(
                    f,
                    "host {host} has more than one link; a host has one adapter"
                )
            }
            ModelError::BadEnds { connection } => {
                write!(
                    f,
                    "connection {connection} must run from a host to another host"
                )
            }
            ModelError::NoLink { connection, a, b } => {
                write!(f, "connection {connection}: no link between {a} and {b}")
            }
            ModelError::HostForwards { connection, host } => {
                write!(
                    f,
                    "connection {connection}: host {host} cannot forward cells"
                )
            }
            ModelError::NeedsPerVcQueues { port, what } => write!(
                f,
                "port {port} serves a VC from a FIFO, but {what} needs per-VC queues"
            ),
            ModelError::TooManyVcs { port } => {
                write!(f, "port {port} carries more than 65,536 VCs")
            }
        }
    }
}

impl std::error::Error for ModelError {}

/// What a node is in the arenas.
#[derive(Debug, Clone, Copy)]
enum At {
    Switch(SwitchId),
    Host(HostId),
}

/// Random-stream keys of hosts start here (connections use 0, 1, 2, ...).
const HOST_STREAMS: u64 = 1 << 40;
/// Random-stream keys of ports' admission policies start here.
const POLICY_STREAMS: u64 = 1 << 41;
/// Streams of the hosts' periodic delayed-ACK clocks (one per node index).
const ACK_CLOCK_STREAMS: u64 = 1 << 42;

/// The round trip of `path` as propagation and switching delays: TM 4.0's FRTT when the
/// scenario does not give one.
fn round_trip(spec: &NetworkSpec, path: &[NodeIdx]) -> SimTime {
    let (propagation, switching) = spec.path_delays(path);
    let one_way = propagation + switching;
    one_way + one_way
}

/// The pacing interval of a VC whose cells may go no faster than `rate` [cells/s].
fn interval(rate: f64) -> SimTime {
    SimTime(((1e12 / rate).round() as u64).max(1))
}

/// The state of the wiring while VCs are added.
struct Wiring<'a> {
    spec: &'a NetworkSpec,
    at: Vec<At>,
    ports: Vec<Port>,
    /// Per port: its scheduler and the link's credits.
    port_sched: Vec<SchedulerSpec>,
    port_credits: Vec<Option<u32>>,
    /// Per node: (far node, port) of each of its links.
    port_of: Vec<Vec<(NodeIdx, PortId)>>,
    /// Per switch: VC table entries (upstream port, label, route).
    entries: Vec<Vec<(PortId, Label, Route)>>,
    /// Per switch: the split table of the merged VCs that end there.
    splits: Vec<Vec<(VcId, Route)>>,
    /// The label of each merged VC at each port it crosses: (merge, port) -> label.
    merged_labels: HashMap<(usize, PortId), Label>,
    /// Merge buffers handed out so far (one per merged connection).
    merge_buffers: u32,
    /// Per switch: ((upstream port, label), merge buffer) of the VCs merging there.
    merge_ins: Vec<Vec<((PortId, Label), u32)>>,
}

/// Where a VC joins a merged VC: the merge's index, and the hops (indices into the path's
/// links) it shares, from `from`'s port up to the link into `to`.
#[derive(Debug, Clone, Copy)]
struct MergeHops {
    merge: usize,
    /// The first merged hop (the merging switch's port) and one past the last (the hop out
    /// of the switch where the merged VC ends).
    start: usize,
    end: usize,
    share: VcShare,
}

impl MergeHops {
    fn contains(&self, k: usize) -> bool {
        (self.start..self.end).contains(&k)
    }
}

/// A VC as added: its slot at the source adapter, the ports it crosses and, in path
/// order, its table entries at the switches (switch, entry index).
struct Wired {
    first: (PortId, Label),
    path: Vec<PortId>,
    table: Vec<(SwitchId, usize)>,
}

impl Wiring<'_> {
    fn name(&self, n: NodeIdx) -> String {
        self.spec.nodes[n].name.clone()
    }

    /// Entries `e` and `e2` of switch `s` are the two directions of one VC: each learns the
    /// port and label the other leaves by.
    fn pair(&mut self, s: SwitchId, e: usize, e2: usize) {
        let (a, b) = (self.entries[s.idx()][e].2, self.entries[s.idx()][e2].2);
        let ea = &mut self.entries[s.idx()][e].2;
        ea.backward = Some(b.port);
        ea.backward_label = b.label;
        let eb = &mut self.entries[s.idx()][e2].2;
        eb.backward = Some(a.port);
        eb.backward_label = a.label;
    }

    /// Adds VC `vc` along `path` (node indices, host to host).
    #[allow(clippy::too_many_arguments)]
    fn add_vc(
        &mut self,
        conn: &str,
        path: &[NodeIdx],
        vc: VcId,
        service: ServiceCategory,
        framed: bool,
        pace: Option<SimTime>,
        feeder: Option<SourceId>,
        abr: Option<u32>,
        share: VcShare,
        merged: Option<MergeHops>,
    ) -> Result<Wired, ModelError> {
        let mut prev: Option<(PortId, Label)> = None;
        let mut wired = Wired {
            first: (PortId(0), 0),
            path: Vec::with_capacity(path.len() - 1),
            table: Vec::new(),
        };
        for (k, w) in path.windows(2).enumerate() {
            let (from, to) = (w[0], w[1]);
            let p = self.port_of[from]
                .iter()
                .find(|(t, _)| *t == to)
                .map(|(_, p)| *p)
                .ok_or_else(|| ModelError::NoLink {
                    connection: conn.to_string(),
                    a: self.name(from),
                    b: self.name(to),
                })?;
            if k > 0 {
                if let At::Host(_) = self.at[from] {
                    return Err(ModelError::HostForwards {
                        connection: conn.to_string(),
                        host: self.name(from),
                    });
                }
            }
            let sched = self.port_sched[p.idx()];
            let class = sched.class_of(service);
            // AN2's credits flow-control best-effort traffic; its guaranteed (CBR, VBR) VCs are
            // scheduled, not credited.
            let credits = if service.class() == PriorityClass::RealTime {
                None
            } else {
                self.port_credits[p.idx()]
            };
            let pace = if k == 0 { pace } else { None };
            let port = &mut self.ports[p.idx()];
            if !sched.per_vc(class) {
                let what = if credits.is_some() {
                    Some("AN2 credit flow control")
                } else if pace.is_some() {
                    Some("pacing a VC at its rate")
                } else {
                    None
                };
                if let Some(what) = what {
                    return Err(ModelError::NeedsPerVcQueues {
                        port: port.name.clone(),
                        what,
                    });
                }
            }
            let in_merge = merged.filter(|m| m.contains(k));
            let shared = in_merge.and_then(|m| self.merged_labels.get(&(m.merge, p)).copied());
            let label = match shared {
                Some(l) => l,
                None => {
                    if port.slots.len() > Label::MAX as usize {
                        return Err(ModelError::TooManyVcs {
                            port: port.name.clone(),
                        });
                    }
                    let l = port.add_slot(NewSlot {
                        vc,
                        service,
                        class,
                        framed,
                        upstream: if in_merge.is_some() { None } else { prev },
                        credits,
                        pace,
                        feeder: if k == 0 { feeder } else { None },
                        abr: if k == 0 { abr } else { None },
                        share: in_merge.map_or(share, |m| m.share),
                    });
                    if let Some(m) = in_merge {
                        self.merged_labels.insert((m.merge, p), l);
                    }
                    l
                }
            };
            if let (At::Switch(s), Some((up, up_label))) = (self.at[from], prev) {
                let route = Route {
                    port: p,
                    label,
                    backward: None,
                    backward_label: 0,
                    rate_control: port.rate.is_some(),
                    kind: RouteKind::Plain,
                };
                let m = merged.filter(|m| m.contains(k) || m.end == k);
                match m {
                    // The merging switch: this VC's frames join the merged VC whole.
                    Some(m) if k == m.start => {
                        self.merge_ins[s.idx()].push(((up, up_label), self.merge_buffers));
                        self.merge_buffers += 1;
                        self.entries[s.idx()].push((
                            up,
                            up_label,
                            Route {
                                kind: RouteKind::Merge,
                                ..route
                            },
                        ));
                    }
                    // Inside the merged section, or where it ends: one entry for the merged
                    // VC, added by its first member; where it ends, each member's own route
                    // in the split table.
                    Some(m) => {
                        let e = &mut self.entries[s.idx()];
                        let exists = e.iter().any(|(u, l, _)| (*u, *l) == (up, up_label));
                        if !exists {
                            let kind = if k == m.end {
                                RouteKind::Split
                            } else {
                                RouteKind::Plain
                            };
                            e.push((up, up_label, Route { kind, ..route }));
                        }
                        if k == m.end {
                            self.splits[s.idx()].push((vc, route));
                        }
                    }
                    None => {
                        let e = &mut self.entries[s.idx()];
                        e.push((up, up_label, route));
                        wired.table.push((s, e.len() - 1));
                    }
                }
            }
            if k == 0 {
                wired.first = (p, label);
            }
            wired.path.push(p);
            prev = Some((p, label));
        }
        Ok(wired)
    }
}

impl Network {
    /// Wires the network described by `spec`.
    pub fn new(spec: &NetworkSpec, name: &str) -> Result<Network, ModelError> {
        let n = spec.nodes.len();

        // Switches and hosts.
        let mut at = Vec::with_capacity(n);
        let mut switches = Vec::new();
        let mut hosts: Vec<Host> = Vec::new();
        for (i, node) in spec.nodes.iter().enumerate() {
            match &node.kind {
                NodeKind::Switch(s) => {
                    at.push(At::Switch(SwitchId(switches.len() as u32)));
                    switches.push(Switch {
                        name: node.name.clone(),
                        node: NodeId(i as u32),
                        switching_delay: s.switching_delay,
                        ports: Vec::new(),
                        table: VcTable::default(),
                        split: Vec::new(),
                        merge_in: Vec::new(),
                    });
                }
                NodeKind::Host(h) => {
                    at.push(At::Host(HostId(hosts.len() as u32)));
                    hosts.push(Host {
                        name: node.name.clone(),
                        node: NodeId(i as u32),
                        adapter: PortId(u32::MAX),
                        processing: h.processing_delay,
                        jitter: h.processing_jitter,
                        rng: RngStreams::new(spec.run.seed).stream(HOST_STREAMS + i as u64),
                        sar_per_cell: h.sar_delay_per_cell,
                        llc_snap: h.llc_snap,
                        aal_overhead: h.aal_overhead_bytes,
                        cpu: VecDeque::new(),
                        cpu_busy: false,
                        sar: Lane::new(),
                        sar_free_at: SimTime::ZERO,
                        ip_service: h.ip_service_time,
                        ip_on_cpu: h.ip_both_directions,
                        ip_free_at: SimTime::ZERO,
                        reasm: Lane::new(),
                    });
                }
            }
        }

        // The service classes each host sends, for its adapter's scheduler.
        let mut host_classes = vec![0u8; n];
        for c in &spec.connections {
            let bit = 1u8 << c.service.class() as u8;
            if let Some(&src) = c.path.first() {
                host_classes[src] |= bit;
            }
            if let (SourceSpec::Tcp { .. }, Some(&dst)) = (&c.source, c.path.last()) {
                host_classes[dst] |= bit;
            }
        }

        // Ports and channels, two per link.
        let mut w = Wiring {
            spec,
            at,
            ports: Vec::new(),
            port_sched: Vec::new(),
            port_credits: Vec::new(),
            port_of: vec![Vec::new(); n],
            entries: vec![Vec::new(); switches.len()],
            splits: vec![Vec::new(); switches.len()],
            merged_labels: HashMap::new(),
            merge_buffers: 0,
            merge_ins: vec![Vec::new(); switches.len()],
        };
        // Each merged connection's hops on its merged VC.
        let mut merged_hops: Vec<Option<MergeHops>> = vec![None; spec.connections.len()];
        for (mi, m) in spec.merges.iter().enumerate() {
            for &ci in &m.connections {
                let path = &spec.connections[ci].path;
                let pos = |node| path.iter().position(|&x| x == node);
                match (pos(m.from), pos(m.to)) {
                    (Some(a), Some(b)) if a > 0 && a < b && b + 1 < path.len() => {
                        merged_hops[ci] = Some(MergeHops {
                            merge: mi,
                            start: a,
                            end: b,
                            share: m.share,
                        });
                    }
                    _ => {
                        return Err(ModelError::BadMerge {
                            merge: m.name.clone(),
                            connection: spec.connections[ci].name.clone(),
                        })
                    }
                }
            }
        }
        let mut channels = Vec::new();
        for link in &spec.links {
            for (from, to) in [(link.a, link.b), (link.b, link.a)] {
                let p = PortId(w.ports.len() as u32);
                let round_robin = SchedulerSpec::Single(Discipline::RoundRobin);
                let mut rate = None;
                let (sched, vc_limit, port_limit, policy) = match &spec.nodes[from].kind {
                    NodeKind::Switch(s) => {
                        let ps = s.port_to(to);
                        rate = match &ps.rate_control {
                            RateControlSpec::None => None,
                            RateControlSpec::Erica(cfg) => {
                                let link_rate = 1e12 / link.cell_time.0 as f64;
                                Some(Box::new(RateControl::Erica(Erica::new(
                                    cfg,
                                    link_rate,
                                    SimTime::ZERO,
                                ))))
                            }
                            RateControlSpec::Efci(cfg) => {
                                Some(Box::new(RateControl::Efci(Efci::new(*cfg))))
                            }
                            RateControlSpec::Fmmra(cfg) => {
                                let link_rate = 1e12 / link.cell_time.0 as f64;
                                Some(Box::new(RateControl::Fmmra(Fmmra::new(
                                    cfg,
                                    link_rate,
                                    SimTime::ZERO,
                                ))))
                            }
                        };
                        (
                            ps.scheduler,
                            ps.vc_buffer_cells,
                            ps.port_buffer_cells,
                            ps.policy.clone(),
                        )
                    }
                    // A host adapter queues per VC in host memory without limit.
                    NodeKind::Host(_) => {
                        let sched = if host_classes[from].count_ones() > 1 {
                            SchedulerSpec::Priority([Discipline::RoundRobin; 3])
                        } else {
                            round_robin
                        };
                        (sched, None, None, PolicyConfig::default())
                    }
                };
                let port_name = format!("{}->{}", spec.nodes[from].name, spec.nodes[to].name);
                let mut port = Port::new(
                    port_name,
                    NodeId(from as u32),
                    sched,
                    vc_limit,
                    port_limit,
                    &policy,
                    link.cell_time,
                    RngStreams::new(spec.run.seed).stream(POLICY_STREAMS + p.0 as u64),
                );
                port.rate = rate;
                w.ports.push(port);
                w.port_sched.push(sched);
                w.port_credits.push(match link.flow_control {
                    FlowControl::None => None,
                    FlowControl::Credits(k) => Some(k),
                });
                let (far, switching) = match (w.at[to], &spec.nodes[to].kind) {
                    (At::Switch(s), NodeKind::Switch(ss)) => {
                        (Far::Switch { switch: s, base: 0 }, ss.switching_delay)
                    }
                    (At::Host(h), _) => (Far::Host(h), SimTime::ZERO),
                    _ => unreachable!("arena and spec agree"),
                };
                channels.push(Channel {
                    to: far,
                    to_node: NodeId(to as u32),
                    cell_time: link.cell_time,
                    arrive_after: link.delay + switching,
                    credit_after: link.delay + link.cell_time,
                    credits: link.flow_control != FlowControl::None,
                    lane: Lane::new(),
                    credit_lane: Lane::new(),
                });
                w.port_of[from].push((to, p));
                match w.at[from] {
                    At::Switch(s) => switches[s.idx()].ports.push(p),
                    At::Host(h) => {
                        let host = &mut hosts[h.idx()];
                        if host.adapter != PortId(u32::MAX) {
                            return Err(ModelError::HostLinks {
                                host: host.name.clone(),
                            });
                        }
                        host.adapter = p;
                    }
                }
            }
        }

        // Connections: their VCs, TCP endpoints and cell sources.
        let streams = RngStreams::new(spec.run.seed);
        let mut vcs: Vec<Vc> = Vec::new();
        let mut tcps: Vec<Tcp> = Vec::new();
        let mut sources: Vec<Source> = Vec::new();
        let mut conns = Vec::new();
        let mut starts = Vec::new();
        let mut abr_vcs: Vec<(VcId, AbrSource)> = Vec::new();
        for (ci, c) in spec.connections.iter().enumerate() {
            let ends = (c.path.first(), c.path.last());
            let (Some(&src), Some(&dst)) = ends else {
                return Err(ModelError::BadEnds {
                    connection: c.name.clone(),
                });
            };
            let (At::Host(src_host), At::Host(dest_host)) = (w.at[src], w.at[dst]) else {
                return Err(ModelError::BadEnds {
                    connection: c.name.clone(),
                });
            };
            if c.path.len() < 2 {
                return Err(ModelError::BadEnds {
                    connection: c.name.clone(),
                });
            }
            let rate = match (c.source.rate(), c.descriptor.pcr) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            // An ABR VC is paced at its ACR, which starts at ICR; its own source end system
            // per direction, at the adapter of that direction's source host.
            let abr_params = c.abr.map(|a| {
                let mut p = a.params;
                if p.frtt == SimTime::ZERO {
                    p.frtt = round_trip(spec, &c.path);
                }
                p
            });
            let pace = match abr_params {
                Some(p) => Some(AbrSource::new(p, None).interval()),
                None => rate.map(interval),
            };
            let mut abr_of = |vc: VcId| -> Option<u32> {
                let a = c.abr?;
                abr_vcs.push((
                    vc,
                    AbrSource::new(abr_params?, a.source_buffer).with_frame_drop(a.drop_frames),
                ));
                Some(abr_vcs.len() as u32 - 1)
            };
            let new_vc = |owner, service, first, path, src_host, dest_host, aal5: bool| Vc {
                owner,
                service,
                descriptor: c.descriptor,
                src_host,
                dest_host,
                first,
                path,
                aal5,
                next_frame: 0,
                frames: VecDeque::new(),
                rx: Reassembly::default(),
                delay: (!aal5).then(CellDelay::default),
                counters: VcCounters::default(),
                reverse: None,
                abr: None,
                efci_state: false,
                rm_turned: 0,
                tagged: c.tagged,
            };
            let mut rng = streams.stream(ci as u64);
            let jitter = if c.start_jitter.0 > 0 {
                SimTime(rng.below(c.start_jitter.0 + 1))
            } else {
                SimTime::ZERO
            };
            let start = c.start + jitter;
            match &c.source {
                SourceSpec::Tcp { tcp, app } => {
                    let tid = TcpId(tcps.len() as u32);
                    let (data_vc, ack_vc) = (VcId(vcs.len() as u32), VcId(vcs.len() as u32 + 1));
                    let (data_abr, ack_abr) = (abr_of(data_vc), abr_of(ack_vc));
                    let data = w.add_vc(
                        &c.name,
                        &c.path,
                        data_vc,
                        c.service,
                        true,
                        pace,
                        None,
                        data_abr,
                        c.share,
                        merged_hops[ci],
                    )?;
                    let back: Vec<NodeIdx> = c.path.iter().rev().copied().collect();
                    let ack = w.add_vc(
                        &c.name,
                        &back,
                        ack_vc,
                        c.service,
                        true,
                        pace,
                        None,
                        ack_abr,
                        VcShare::default(),
                        None,
                    )?;
                    // At each switch, each direction's entry knows the other's output port (a
                    // merged data VC has no per-connection entries past its merging switch;
                    // its connection is not ABR, so no rate control needs them).
                    let pairs = if merged_hops[ci].is_some() {
                        &[][..]
                    } else {
                        &data.table[..]
                    };
                    for (i, &(s, e)) in pairs.iter().enumerate() {
                        let (s2, e2) = ack.table[ack.table.len() - 1 - i];
                        debug_assert_eq!(s, s2);
                        w.pair(s, e, e2);
                    }
                    vcs.push(Vc {
                        reverse: Some(ack_vc),
                        abr: data_abr,
                        ..new_vc(
                            Owner::TcpData(tid),
                            c.service,
                            data.first,
                            data.path,
                            src_host,
                            dest_host,
                            true,
                        )
                    });
                    vcs.push(Vc {
                        reverse: Some(data_vc),
                        abr: ack_abr,
                        ..new_vc(
                            Owner::TcpAck(tid),
                            c.service,
                            ack.first,
                            ack.path,
                            dest_host,
                            src_host,
                            true,
                        )
                    });
                    let mut receiver = TcpReceiver::new(tcp);
                    if let (AckClock::PeriodicPerHost, Some(wait)) =
                        (tcp.ack_clock, tcp.delayed_ack)
                    {
                        // The host's own clock: every connection ending there draws the same
                        // phase from the host's stream (the same first draw).
                        let node = hosts[dest_host.idx()].node.idx();
                        let mut clock = streams.stream(ACK_CLOCK_STREAMS + node as u64);
                        receiver.set_ack_phase(SimTime(clock.below(wait.0.max(1))));
                    }
                    tcps.push(Tcp {
                        name: c.name.clone(),
                        data_vc,
                        ack_vc,
                        sender: TcpSender::new(tcp, *app),
                        receiver,
                        start,
                        rto_pending: None,
                        ack_pending: None,
                        packets_delivered: 0,
                        at_warmup: ConnCounters::default(),
                        sack_log: Default::default(),
                    });
                    conns.push(Conn::Tcp(tid));
                }
                cells => {
                    let sid = SourceId(sources.len() as u32);
                    let vc = VcId(vcs.len() as u32);
                    let vc_abr = abr_of(vc);
                    let wired = w.add_vc(
                        &c.name,
                        &c.path,
                        vc,
                        c.service,
                        false,
                        pace,
                        Some(sid),
                        vc_abr,
                        c.share,
                        None,
                    )?;
                    // An ABR source's backward RM cells come back on a feedback VC.
                    let feedback = if vc_abr.is_some() {
                        let back: Vec<NodeIdx> = c.path.iter().rev().copied().collect();
                        let fb = VcId(vc.0 + 1);
                        let wired_fb = w.add_vc(
                            &c.name,
                            &back,
                            fb,
                            c.service,
                            false,
                            None,
                            None,
                            None,
                            VcShare::default(),
                            None,
                        )?;
                        for (i, &(s, e)) in wired.table.iter().enumerate() {
                            let (s2, e2) = wired_fb.table[wired_fb.table.len() - 1 - i];
                            debug_assert_eq!(s, s2);
                            w.pair(s, e, e2);
                        }
                        Some((fb, wired_fb))
                    } else {
                        None
                    };
                    vcs.push(Vc {
                        reverse: feedback.as_ref().map(|f| f.0),
                        abr: vc_abr,
                        ..new_vc(
                            Owner::Source(sid),
                            c.service,
                            wired.first,
                            wired.path,
                            src_host,
                            dest_host,
                            false,
                        )
                    });
                    if let Some((fb, wired_fb)) = feedback {
                        debug_assert_eq!(fb.idx(), vcs.len());
                        vcs.push(Vc {
                            delay: None,
                            ..new_vc(
                                Owner::Feedback(vc),
                                c.service,
                                wired_fb.first,
                                wired_fb.path,
                                dest_host,
                                src_host,
                                false,
                            )
                        });
                    }
                    sources.push(Source::new(
                        c.name.clone(),
                        vc,
                        cells,
                        pace.unwrap_or(SimTime::ZERO),
                        rng,
                    ));
                    conns.push(Conn::Source(sid));
                }
            }
            starts.push(start);
        }

        // The switches' VC tables, and each channel's offset into its far switch's table.
        for (s, e) in w.entries.into_iter().enumerate() {
            switches[s].table = VcTable::build(e);
        }
        for (s, mut split) in w.splits.into_iter().enumerate() {
            split.sort_by_key(|(vc, _)| *vc);
            switches[s].split = split;
        }
        for (s, mut ins) in w.merge_ins.into_iter().enumerate() {
            ins.sort_by_key(|(k, _)| *k);
            switches[s].merge_in = ins;
        }
        let merge_buffers = vec![Vec::new(); w.merge_buffers as usize];
        for (p, ch) in channels.iter_mut().enumerate() {
            if let Far::Switch { switch, base } = &mut ch.to {
                *base = switches[switch.idx()]
                    .table
                    .base_of(PortId(p as u32))
                    .unwrap_or(0);
            }
        }

        let n_sources = sources.len();
        let mut net = Network {
            name: name.to_string(),
            duration: spec.run.duration,
            warmup: spec.run.warmup,
            seed: spec.run.seed,
            sample_every: spec.run.sample_every,
            sample: spec.run.sample.clone(),
            node_names: spec.nodes.iter().map(|n| n.name.clone()).collect(),
            queue: EventQueue::new(),
            fingerprint: Fingerprint::new(),
            ports: w.ports,
            channels,
            switches,
            hosts,
            vcs,
            tcps,
            sources,
            conns,
            rm: RmTable::new(),
            abr: Vec::new(),
            cell_hops: 0,
            warmed_up: false,
            in_flight_at_warmup: 0,
            tx_left_at_warmup: Vec::new(),
            eff_frontier: Vec::new(),
            ran_until: SimTime::ZERO,
            series: SeriesRecorder::default(),
            series_layout: None,
            source_warmup: vec![ConnCounters::default(); n_sources],
            decreases: Vec::<stats::Decrease>::new(),
            merge_buffers,
            trace: None,
        };
        net.abr = abr_vcs
            .into_iter()
            .map(|(vc, source)| {
                let (port, label) = net.vcs[vc.idx()].first;
                AbrVc {
                    source,
                    vc,
                    port,
                    label,
                    armed: false,
                }
            })
            .collect();
        net.series_layout = Some(net.layout_series());
        for (k, &c) in net.conns.clone().iter().enumerate() {
            let ev = match c {
                Conn::Tcp(t) => Event::Start(t),
                Conn::Source(s) => Event::Source(s),
            };
            net.queue.schedule(starts[k], ev);
        }
        for (p, port) in net.ports.iter().enumerate() {
            if let Some(t) = port.rate.as_ref().and_then(|r| r.deadline()) {
                net.queue.schedule(t, Event::RateInterval(PortId(p as u32)));
            }
        }
        if net.warmup == SimTime::ZERO {
            // With no warm-up the counts start from the empty network, before any event (the
            // Warmup event below finds the snapshot taken and does nothing).
            net.on_warmup(SimTime::ZERO);
        }
        net.queue.schedule(net.warmup, Event::Warmup);
        if net.sample_every > SimTime::ZERO {
            net.queue.schedule(SimTime::ZERO, Event::Sample);
        }
        Ok(net)
    }
}
