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
use super::{Conn, Event, Network, Tcp};
use crate::abr::access::AccessLine;
use crate::abr::source::{pacing_interval, AbrSource};
use crate::abr::RateControl;
use crate::cell::RmTable;
use crate::host::Host;
use crate::ids::{HostId, Label, NodeId, PortId, SourceId, SwitchId, TcpId, VcId};
use crate::link::{Channel, Far};
use crate::plugin::{PluginHost, PluginPort};
use crate::port::policy::{Policy, VcShare};
use crate::port::scheduler::{Discipline, SchedulerSpec};
use crate::port::{NewSlot, Port};
use crate::service::{PriorityClass, ServiceCategory};
use crate::source::Source;
use crate::spec::{
    AbrSpec, AckClock, AppSpec, ConnectionSpec, FlowControl, LinkSpec, NetworkSpec, NodeIdx,
    NodeKind, SourceSpec, TcpSpec,
};
use crate::stats::{self, SeriesRecorder};
use crate::switch::{Route, RouteKind, Switch, VcTable};
use crate::vc::{Owner, Vc};
use atmsim_engine::{EventQueue, Fingerprint, RngStream, RngStreams, SimTime};
use std::collections::HashMap;
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
    /// A plug-in policy or rate control in a network built without a plug-in host.
    PluginUnavailable { port: String, class: String },
    /// A plug-in that could not be made at a port.
    Plugin {
        port: String,
        class: String,
        message: String,
    },
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
            ModelError::PluginUnavailable { port, class } => {
                write!(f, "port {port}: {}", crate::plugin::unavailable(class))
            }
            ModelError::Plugin {
                port,
                class,
                message,
            } => write!(f, "port {port}: plug-in {class}: {message}"),
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
/// Random-stream keys of the rate-control plug-ins' seeds (one per port) start here.
const RATE_PLUGIN_STREAMS: u64 = 1 << 43;

/// The state of the wiring while VCs are added.
struct Wiring<'a> {
    spec: &'a NetworkSpec,
    at: Vec<At>,
    ports: Vec<Port>,
    /// Per port: its scheduler and the link's credits.
    port_sched: Vec<SchedulerSpec>,
    port_credits: Vec<Option<u32>>,
    /// Per node: (far node, port) of each of its links, sorted by far node once the links
    /// are wired (links between the same two nodes in link order), for a binary search.
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

/// A VC to add: whose it is, and how the port of its first hop serves it.
#[derive(Clone, Copy)]
struct NewVc<'c> {
    /// The connection's name (for errors).
    conn: &'c str,
    vc: VcId,
    service: ServiceCategory,
    /// Its cells form AAL5 frames.
    framed: bool,
    /// The pacing interval at the source adapter.
    pace: Option<SimTime>,
    /// The cell source that feeds it.
    feeder: Option<SourceId>,
    /// Its ABR source end system (index into [`Network::abr`]).
    abr: Option<u32>,
    share: VcShare,
    merged: Option<MergeHops>,
}

/// One connection about to be wired: its spec, its end hosts, the pacing interval of its
/// VCs at their source adapters, and its hops on a merged VC.
struct Plan<'c> {
    c: &'c ConnectionSpec,
    src: HostId,
    dest: HostId,
    pace: Option<SimTime>,
    merged: Option<MergeHops>,
}

/// What the connections become.
struct Endpoints {
    vcs: Vec<Vc>,
    tcps: Vec<Tcp>,
    sources: Vec<Source>,
    conns: Vec<Conn>,
    /// Each connection's start.
    starts: Vec<SimTime>,
    /// The ABR source end systems, by the VC they send, with the cell time of the access
    /// line that feeds each (`None`: none).
    abr: Vec<(VcId, AbrSource, Option<SimTime>)>,
}

impl Endpoints {
    /// Room for the end points of `spec`'s connections, allocated once (a TCP connection
    /// has two VCs, a cell source one).
    fn for_spec(spec: &NetworkSpec) -> Self {
        let n = spec.connections.len();
        let tcps = spec
            .connections
            .iter()
            .filter(|c| matches!(c.source, SourceSpec::Tcp { .. }))
            .count();
        let abr = spec.connections.iter().filter(|c| c.abr.is_some()).count();
        Endpoints {
            vcs: Vec::with_capacity(n + tcps),
            tcps: Vec::with_capacity(tcps),
            sources: Vec::with_capacity(n - tcps),
            conns: Vec::with_capacity(n),
            starts: Vec::with_capacity(n),
            abr: Vec::with_capacity(2 * abr),
        }
    }

    /// The ABR source end system of VC `vc` of a connection with ABR spec `abr` (`None`:
    /// the connection is not ABR).
    fn abr_source(&mut self, vc: VcId, abr: Option<&AbrSpec>) -> Option<u32> {
        let abr = abr?;
        self.abr
            .push((vc, AbrSource::from_spec(abr), abr.access_cell_time));
        Some(self.abr.len() as u32 - 1)
    }
}

/// The switches and hosts, each built from its own spec, and what each node is.
fn nodes(spec: &NetworkSpec) -> (Vec<At>, Vec<Switch>, Vec<Host>) {
    let mut at = Vec::with_capacity(spec.nodes.len());
    let (mut switches, mut hosts) = (Vec::new(), Vec::new());
    for (i, node) in spec.nodes.iter().enumerate() {
        let id = NodeId(i as u32);
        match &node.kind {
            NodeKind::Switch(s) => {
                at.push(At::Switch(SwitchId(switches.len() as u32)));
                switches.push(Switch::new(node.name.clone(), id, s));
            }
            NodeKind::Host(h) => {
                at.push(At::Host(HostId(hosts.len() as u32)));
                let rng = RngStreams::new(spec.run.seed).stream(HOST_STREAMS + i as u64);
                hosts.push(Host::new(node.name.clone(), id, h, rng));
            }
        }
    }
    (at, switches, hosts)
}

/// Per node: the service classes it sends (one bit per class), for a host adapter's
/// scheduler.
fn host_classes(spec: &NetworkSpec) -> Vec<u8> {
    let mut classes = vec![0u8; spec.nodes.len()];
    for c in &spec.connections {
        let bit = 1u8 << c.service.class() as u8;
        if let Some(&src) = c.path.first() {
            classes[src] |= bit;
        }
        if let (SourceSpec::Tcp { .. }, Some(&dst)) = (&c.source, c.path.last()) {
            classes[dst] |= bit;
        }
    }
    classes
}

/// Each merged connection's hops on its merged VC.
fn merged_hops(spec: &NetworkSpec) -> Result<Vec<Option<MergeHops>>, ModelError> {
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
    Ok(merged_hops)
}

impl<'a> Wiring<'a> {
    fn new(spec: &'a NetworkSpec, at: Vec<At>, switches: usize) -> Self {
        // Two ports per link, allocated once: a port is 704 bytes, and a vector grown by
        // doubling holds up to twice what it uses (18 MB of the 10,000-connection parking
        // lot's 46 MB of ports).
        let ports = 2 * spec.links.len();
        Wiring {
            spec,
            at,
            ports: Vec::with_capacity(ports),
            port_sched: Vec::with_capacity(ports),
            port_credits: Vec::with_capacity(ports),
            port_of: vec![Vec::new(); spec.nodes.len()],
            entries: vec![Vec::new(); switches],
            splits: vec![Vec::new(); switches],
            merged_labels: HashMap::new(),
            merge_buffers: 0,
            merge_ins: vec![Vec::new(); switches],
        }
    }

    fn name(&self, n: NodeIdx) -> String {
        self.spec.nodes[n].name.clone()
    }

    /// The ports and channels, two per link (`a -> b`, then `b -> a`): each switch port
    /// built from its port spec, each host's one port its adapter.
    fn links(
        &mut self,
        switches: &mut [Switch],
        hosts: &mut [Host],
    ) -> Result<Vec<Channel>, ModelError> {
        let classes = host_classes(self.spec);
        let mut channels = Vec::with_capacity(2 * self.spec.links.len());
        for link in &self.spec.links {
            for (from, to) in [(link.a, link.b), (link.b, link.a)] {
                let p = PortId(self.ports.len() as u32);
                let (port, sched) = self.port(link, (from, to), p, &classes);
                self.ports.push(port);
                self.port_sched.push(sched);
                self.port_credits.push(match link.flow_control {
                    FlowControl::None => None,
                    FlowControl::Credits(k) => Some(k),
                });
                channels.push(self.channel(link, to));
                self.port_of[from].push((to, p));
                match self.at[from] {
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
        // A hop's port is looked up per VC and hop: by binary search, not by a scan of a
        // switch's links (thousands at a switch with a host per connection). The sort is
        // stable, so the first of parallel links stays first.
        for links in &mut self.port_of {
            links.sort_by_key(|&(to, _)| to);
        }
        Ok(channels)
    }

    /// Port `p` of node `from` towards `to` on `link`, and its scheduler: a switch's from
    /// its port spec, a host's adapter round robin (under strict priority between the
    /// classes it sends, when it sends more than one).
    fn port(
        &self,
        link: &LinkSpec,
        (from, to): (NodeIdx, NodeIdx),
        p: PortId,
        classes: &[u8],
    ) -> (Port, SchedulerSpec) {
        let spec = self.spec;
        let name = format!("{}->{}", spec.nodes[from].name, spec.nodes[to].name);
        let rng = RngStreams::new(spec.run.seed).stream(POLICY_STREAMS + p.0 as u64);
        let node = NodeId(from as u32);
        match &spec.nodes[from].kind {
            NodeKind::Switch(s) => {
                let ps = s.port_to(to);
                let mut port = Port::for_switch(name, node, ps, link.cell_time, rng);
                port.rate = RateControl::new(&ps.rate_control, link.cells_per_second());
                port.set_efci_threshold(ps.efci_threshold);
                (port, ps.scheduler)
            }
            NodeKind::Host(_) => {
                let sched = if classes[from].count_ones() > 1 {
                    SchedulerSpec::Priority([Discipline::RoundRobin; 3])
                } else {
                    SchedulerSpec::Single(Discipline::RoundRobin)
                };
                (Port::adapter(name, node, sched, link.cell_time, rng), sched)
            }
        }
    }

    /// The channel of `link` towards node `to`.
    fn channel(&self, link: &LinkSpec, to: NodeIdx) -> Channel {
        let (far, switching) = match (self.at[to], &self.spec.nodes[to].kind) {
            (At::Switch(s), NodeKind::Switch(ss)) => {
                (Far::Switch { switch: s, base: 0 }, ss.switching_delay)
            }
            (At::Host(h), _) => (Far::Host(h), SimTime::ZERO),
            _ => unreachable!("arena and spec agree"),
        };
        Channel::new(link, far, NodeId(to as u32), switching)
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

    /// Pairs, at each switch, the entries of VC `fwd` with those of `back`, the VC of the
    /// other direction (whose entries are in the reverse order).
    fn pair_all(&mut self, fwd: &Wired, back: &Wired) {
        for (i, &(s, e)) in fwd.table.iter().enumerate() {
            let (s2, e2) = back.table[back.table.len() - 1 - i];
            debug_assert_eq!(s, s2);
            self.pair(s, e, e2);
        }
    }

    /// Adds VC `v` along `path` (node indices, host to host).
    fn add_vc(&mut self, v: &NewVc, path: &[NodeIdx]) -> Result<Wired, ModelError> {
        let mut prev: Option<(PortId, Label)> = None;
        let mut wired = Wired {
            first: (PortId(0), 0),
            path: Vec::with_capacity(path.len() - 1),
            table: Vec::new(),
        };
        for (k, w) in path.windows(2).enumerate() {
            let p = self.hop_port(v.conn, k, (w[0], w[1]))?;
            let label = self.slot(v, k, p, prev)?;
            if let (At::Switch(s), Some(up)) = (self.at[w[0]], prev) {
                self.route(v, (k, s), up, (p, label), &mut wired);
            }
            if k == 0 {
                wired.first = (p, label);
            }
            wired.path.push(p);
            prev = Some((p, label));
        }
        Ok(wired)
    }

    /// The port of hop `k` of a VC of connection `conn`, from node `from` to `to`: they must
    /// share a link, and only the first node may be a host.
    fn hop_port(
        &self,
        conn: &str,
        k: usize,
        (from, to): (NodeIdx, NodeIdx),
    ) -> Result<PortId, ModelError> {
        let links = &self.port_of[from];
        let p = links
            .get(links.partition_point(|&(t, _)| t < to))
            .filter(|&&(t, _)| t == to)
            .map(|&(_, p)| p)
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
        Ok(p)
    }

    /// VC `v`'s label at port `p`, its hop `k` (`prev`: its port and label one hop before):
    /// a new slot, or on a merged hop the merged VC's slot.
    fn slot(
        &mut self,
        v: &NewVc,
        k: usize,
        p: PortId,
        prev: Option<(PortId, Label)>,
    ) -> Result<Label, ModelError> {
        let sched = self.port_sched[p.idx()];
        let class = sched.class_of(v.service);
        // AN2's credits flow-control best-effort traffic; its guaranteed (CBR, VBR) VCs are
        // scheduled, not credited.
        let credits = if v.service.class() == PriorityClass::RealTime {
            None
        } else {
            self.port_credits[p.idx()]
        };
        let pace = if k == 0 { v.pace } else { None };
        // The hop before returns a credit for each cell leaving here only if it sends this
        // VC on credits: decided now, so a departure need not look at that hop's link and slot.
        let credit_upstream = prev.filter(|&(up, up_label)| {
            self.port_credits[up.idx()].is_some() && self.ports[up.idx()].flow_controlled(up_label)
        });
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
        let in_merge = v.merged.filter(|m| m.contains(k));
        let shared = in_merge.and_then(|m| self.merged_labels.get(&(m.merge, p)).copied());
        if let Some(l) = shared {
            return Ok(l);
        }
        if port.slots.len() > Label::MAX as usize {
            return Err(ModelError::TooManyVcs {
                port: port.name.clone(),
            });
        }
        let l = port.add_slot(NewSlot {
            vc: v.vc,
            service: v.service,
            class,
            framed: v.framed,
            upstream: if in_merge.is_some() {
                None
            } else {
                credit_upstream
            },
            credits,
            pace,
            feeder: if k == 0 { v.feeder } else { None },
            abr: if k == 0 { v.abr } else { None },
            share: in_merge.map_or(v.share, |m| m.share),
        });
        if let Some(m) = in_merge {
            self.merged_labels.insert((m.merge, p), l);
        }
        Ok(l)
    }

    /// The entry of switch `s` for VC `v` at its hop `k`, arriving from `up` (port and label)
    /// and leaving by `here` (port and label).
    fn route(
        &mut self,
        v: &NewVc,
        (k, s): (usize, SwitchId),
        up: (PortId, Label),
        (p, label): (PortId, Label),
        wired: &mut Wired,
    ) {
        let route = Route {
            port: p,
            label,
            backward: None,
            backward_label: 0,
            rate_control: self.ports[p.idx()].rate.is_some()
                && self.ports[p.idx()].slots[label as usize].service == ServiceCategory::Abr,
            kind: RouteKind::Plain,
        };
        let (up, up_label) = up;
        let m = v.merged.filter(|m| m.contains(k) || m.end == k);
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
                    self.splits[s.idx()].push((v.vc, route));
                }
            }
            None => {
                let e = &mut self.entries[s.idx()];
                e.push((up, up_label, route));
                wired.table.push((s, e.len() - 1));
            }
        }
    }

    /// Connection `ci`: its VCs, its TCP endpoints or cell source, its ABR source end
    /// systems, and its start (drawn from its own random stream when it has a jitter).
    fn connection(
        &mut self,
        ci: usize,
        merged: Option<MergeHops>,
        hosts: &[Host],
        streams: &RngStreams,
        out: &mut Endpoints,
    ) -> Result<(), ModelError> {
        let c = &self.spec.connections[ci];
        let (src, dest) = self.ends(c)?;
        let rate = match (c.source.rate(), c.descriptor.pcr) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        // An ABR VC is paced at its ACR, which starts at ICR; its own source end system
        // per direction, at the adapter of that direction's source host.
        let pace = match &c.abr {
            Some(a) => Some(a.params.initial_interval()),
            None => rate.map(pacing_interval),
        };
        let mut rng = streams.stream(ci as u64);
        let jitter = if c.start_jitter.0 > 0 {
            SimTime(rng.below(c.start_jitter.0 + 1))
        } else {
            SimTime::ZERO
        };
        let start = c.start + jitter;
        let plan = Plan {
            c,
            src,
            dest,
            pace,
            merged,
        };
        match &c.source {
            SourceSpec::Tcp { tcp, app } => {
                let ack_phase = ack_phase(tcp, &hosts[dest.idx()], streams);
                self.tcp(&plan, (tcp, *app), start, ack_phase, out)?
            }
            cells => self.cell_source(&plan, cells, rng, out)?,
        }
        out.starts.push(start);
        Ok(())
    }

    /// The source and destination hosts of connection `c`.
    fn ends(&self, c: &ConnectionSpec) -> Result<(HostId, HostId), ModelError> {
        let bad = || ModelError::BadEnds {
            connection: c.name.clone(),
        };
        let (Some(&src), Some(&dst)) = (c.path.first(), c.path.last()) else {
            return Err(bad());
        };
        let (At::Host(src_host), At::Host(dest_host)) = (self.at[src], self.at[dst]) else {
            return Err(bad());
        };
        if c.path.len() < 2 {
            return Err(bad());
        }
        Ok((src_host, dest_host))
    }

    /// A TCP connection: its data VC forward and its ACK VC back along the same nodes, and
    /// its sender and receiver.
    fn tcp(
        &mut self,
        plan: &Plan,
        (tcp, app): (&TcpSpec, AppSpec),
        start: SimTime,
        ack_phase: Option<SimTime>,
        out: &mut Endpoints,
    ) -> Result<(), ModelError> {
        let c = plan.c;
        let tid = TcpId(out.tcps.len() as u32);
        let (data_vc, ack_vc) = (VcId(out.vcs.len() as u32), VcId(out.vcs.len() as u32 + 1));
        let (data_abr, ack_abr) = (
            out.abr_source(data_vc, c.abr.as_ref()),
            out.abr_source(ack_vc, c.abr.as_ref()),
        );
        let vc = |vc, abr, share, merged| NewVc {
            conn: &c.name,
            vc,
            service: c.service,
            framed: true,
            pace: plan.pace,
            feeder: None,
            abr,
            share,
            merged,
        };
        let data = self.add_vc(&vc(data_vc, data_abr, c.share, plan.merged), &c.path)?;
        let back: Vec<NodeIdx> = c.path.iter().rev().copied().collect();
        let ack = self.add_vc(&vc(ack_vc, ack_abr, VcShare::default(), None), &back)?;
        // At each switch, each direction's entry knows the other's output port (a merged
        // data VC has no per-connection entries past its merging switch; its connection is
        // not ABR, so no rate control needs them).
        if plan.merged.is_none() {
            self.pair_all(&data, &ack);
        }
        let (src, dest) = (plan.src, plan.dest);
        out.vcs.push(Vc {
            reverse: Some(ack_vc),
            abr: data_abr,
            ..Vc::new(
                Owner::TcpData(tid),
                c,
                (data.first, data.path),
                (src, dest),
                true,
            )
        });
        out.vcs.push(Vc {
            reverse: Some(data_vc),
            abr: ack_abr,
            ..Vc::new(
                Owner::TcpAck(tid),
                c,
                (ack.first, ack.path),
                (dest, src),
                true,
            )
        });
        out.tcps.push(Tcp::new(
            c.name.clone(),
            (data_vc, ack_vc),
            (tcp, app),
            start,
            ack_phase,
        ));
        out.conns.push(Conn::Tcp(tid));
        Ok(())
    }

    /// A cell source: its VC, and for an ABR connection the feedback VC its backward RM
    /// cells come back on.
    fn cell_source(
        &mut self,
        plan: &Plan,
        cells: &SourceSpec,
        rng: RngStream,
        out: &mut Endpoints,
    ) -> Result<(), ModelError> {
        let c = plan.c;
        let sid = SourceId(out.sources.len() as u32);
        let vc = VcId(out.vcs.len() as u32);
        let vc_abr = out.abr_source(vc, c.abr.as_ref());
        let new_vc = NewVc {
            conn: &c.name,
            vc,
            service: c.service,
            framed: false,
            pace: plan.pace,
            feeder: Some(sid),
            abr: vc_abr,
            share: c.share,
            merged: None,
        };
        let wired = self.add_vc(&new_vc, &c.path)?;
        // An ABR source's backward RM cells come back on a feedback VC.
        let feedback = if vc_abr.is_some() {
            let back: Vec<NodeIdx> = c.path.iter().rev().copied().collect();
            let fb = VcId(vc.0 + 1);
            let fb_vc = NewVc {
                vc: fb,
                pace: None,
                feeder: None,
                abr: None,
                share: VcShare::default(),
                ..new_vc
            };
            let wired_fb = self.add_vc(&fb_vc, &back)?;
            self.pair_all(&wired, &wired_fb);
            Some((fb, wired_fb))
        } else {
            None
        };
        let (src, dest) = (plan.src, plan.dest);
        out.vcs.push(Vc {
            reverse: feedback.as_ref().map(|f| f.0),
            abr: vc_abr,
            ..Vc::new(
                Owner::Source(sid),
                c,
                (wired.first, wired.path),
                (src, dest),
                false,
            )
        });
        if let Some((fb, wired_fb)) = feedback {
            debug_assert_eq!(fb.idx(), out.vcs.len());
            out.vcs.push(Vc {
                delay: None,
                ..Vc::new(
                    Owner::Feedback(vc),
                    c,
                    (wired_fb.first, wired_fb.path),
                    (dest, src),
                    false,
                )
            });
        }
        out.sources.push(Source::new(
            c.name.clone(),
            vc,
            cells,
            plan.pace.unwrap_or(SimTime::ZERO),
            rng,
        ));
        out.conns.push(Conn::Source(sid));
        Ok(())
    }

    /// The switches' VC tables, split and merge tables, and each channel's offset into its
    /// far switch's table; returns the ports and the number of merge buffers.
    fn finish(self, switches: &mut [Switch], channels: &mut [Channel]) -> (Vec<Port>, usize) {
        for (s, e) in self.entries.into_iter().enumerate() {
            switches[s].table = VcTable::build(e);
        }
        for (s, mut split) in self.splits.into_iter().enumerate() {
            split.sort_by_key(|(vc, _)| *vc);
            switches[s].split = split;
        }
        for (s, mut ins) in self.merge_ins.into_iter().enumerate() {
            ins.sort_by_key(|(k, _)| *k);
            switches[s].merge_in = ins;
        }
        for (p, ch) in channels.iter_mut().enumerate() {
            if let Far::Switch { switch, base } = &mut ch.to {
                *base = switches[switch.idx()]
                    .table
                    .base_of(PortId(p as u32))
                    .unwrap_or(0);
            }
        }
        (self.ports, self.merge_buffers as usize)
    }
}

/// The phase of the delayed-ACK clock of host `dest`, for a TCP connection whose receiver
/// uses its host's own periodic clock: every connection ending there draws the same phase
/// from the host's stream (the same first draw).
fn ack_phase(tcp: &TcpSpec, dest: &Host, streams: &RngStreams) -> Option<SimTime> {
    match (tcp.ack_clock, tcp.delayed_ack) {
        (AckClock::PeriodicPerHost, Some(wait)) => {
            let mut clock = streams.stream(ACK_CLOCK_STREAMS + dest.node.idx() as u64);
            Some(SimTime(clock.below(wait.0.max(1))))
        }
        _ => None,
    }
}

impl Network {
    /// Wires the network described by `spec`: its nodes, the ports and channels of its
    /// links, each connection's VCs, routes and endpoints, then the switches' tables.
    pub fn new(spec: &NetworkSpec, name: &str) -> Result<Network, ModelError> {
        Network::with_plugins(spec, name, None)
    }

    /// [`Network::new`], the ports' plug-ins (policies and rate controls of `kind =
    /// "python"`) made by `plugins`; without a host a plug-in is refused
    /// ([`ModelError::PluginUnavailable`]).
    pub fn with_plugins(
        spec: &NetworkSpec,
        name: &str,
        plugins: Option<&dyn PluginHost>,
    ) -> Result<Network, ModelError> {
        let (at, mut switches, mut hosts) = nodes(spec);
        let mut w = Wiring::new(spec, at, switches.len());
        let merged_hops = merged_hops(spec)?;
        let mut channels = w.links(&mut switches, &mut hosts)?;
        let streams = RngStreams::new(spec.run.seed);
        let mut out = Endpoints::for_spec(spec);
        for (ci, merged) in merged_hops.into_iter().enumerate() {
            w.connection(ci, merged, &hosts, &streams, &mut out)?;
        }
        let (ports, merge_buffers) = w.finish(&mut switches, &mut channels);
        // One channel per port, same index: the cell paths index both by a port's id
        // (`cells::at`).
        assert_eq!(ports.len(), channels.len(), "a channel per port");
        let n_sources = out.sources.len();
        // Ends of transmission and a busy link's arrivals come one cell time after the event
        // that schedules them: a line of the queue per cell time keeps them out of the wheel.
        let mut queue = EventQueue::new();
        for ch in &mut channels {
            ch.line = queue.line(ch.cell_time);
        }
        // A link whose delay (with the far switch's) is at most one cell time holds at most
        // two cells: sent back-to-back, each arrives one cell time after the one ahead (the
        // cell-time line); after a gap, onto the empty link, one cell time plus the delay
        // after it starts. A line of that delay (after the cell-time lines, as many as the
        // queue keeps) takes the second kind out of the wheel. On longer links the cells
        // after a gap mostly find the link busy, so such a line would seldom be used and
        // would only cost its comparison at every pop (An 1997's 1 km links: 4% more
        // instructions).
        for ch in &mut channels {
            if ch.arrive_after <= ch.cell_time {
                ch.arrival_line = queue.line(ch.cell_time + ch.arrive_after);
            }
        }
        let mut net = Network {
            name: name.to_string(),
            duration: spec.run.duration,
            warmup: spec.run.warmup,
            seed: spec.run.seed,
            sample_every: spec.run.sample_every,
            sample: spec.run.sample.clone(),
            node_names: spec.nodes.iter().map(|n| n.name.clone()).collect(),
            queue,
            fingerprint: Fingerprint::new(),
            ports,
            channels,
            switches,
            hosts,
            vcs: out.vcs,
            tcps: out.tcps,
            sources: out.sources,
            conns: out.conns,
            rm: RmTable::new(),
            abr: Vec::new(),
            abr_access: Vec::new(),
            cell_hops: 0,
            warmed_up: false,
            in_flight_at_warmup: 0,
            tx_left_at_warmup: Vec::new(),
            eff_frontier: Vec::new(),
            ran_until: SimTime::ZERO,
            series: SeriesRecorder::default(),
            series_layout: None,
            source_warmup: vec![Default::default(); n_sources],
            decreases: Vec::<stats::Decrease>::new(),
            merge_buffers: vec![Vec::new(); merge_buffers],
            trace: None,
        };
        net.abr_access = out
            .abr
            .iter()
            .map(|&(_, _, t)| t.map(AccessLine::new))
            .collect();
        net.abr = out
            .abr
            .into_iter()
            .map(|(vc, source, _)| {
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
        net.bind_plugins(plugins)?;
        net.series_layout = Some(net.layout_series());
        net.schedule_start(&out.starts);
        Ok(net)
    }

    /// Gives each port's plug-ins their instances, made by `host`.
    fn bind_plugins(&mut self, host: Option<&dyn PluginHost>) -> Result<(), ModelError> {
        let streams = RngStreams::new(self.seed);
        for (p, port) in self.ports.iter_mut().enumerate() {
            let cell_time = self.channels[p].cell_time;
            let name = port.name.clone();
            let unbound = |class: &str| ModelError::PluginUnavailable {
                port: name.clone(),
                class: class.to_string(),
            };
            let failed = |class: &str, message: String| ModelError::Plugin {
                port: name.clone(),
                class: class.to_string(),
                message,
            };
            if let Policy::Python(pp) = &port.policy {
                let host = host.ok_or_else(|| unbound(&pp.config.class))?;
                let info = PluginPort {
                    name: name.clone(),
                    cell_time,
                    link_rate: 1.0 / cell_time.as_secs_f64(),
                    seed: pp.seed,
                };
                let class = pp.config.class.clone();
                let inner = host
                    .policy(&pp.config, &info)
                    .map_err(|m| failed(&class, m))?;
                port.bind_policy(inner);
            }
            if let Some(RateControl::Python(r)) = port.rate.as_deref_mut() {
                let host = host.ok_or_else(|| unbound(&r.config.class))?;
                let info = PluginPort {
                    name: name.clone(),
                    cell_time,
                    link_rate: r.link_rate,
                    seed: streams.stream(RATE_PLUGIN_STREAMS + p as u64).next_u64(),
                };
                let (inner, interval) = host
                    .rate_control(&r.config, &info)
                    .map_err(|m| failed(&r.config.class, m))?;
                r.bind(inner, interval);
            }
        }
        Ok(())
    }

    /// The first events: each connection's start, each rate control's first interval, the
    /// warm-up, the first sample.
    fn schedule_start(&mut self, starts: &[SimTime]) {
        for (k, &c) in self.conns.clone().iter().enumerate() {
            let ev = match c {
                Conn::Tcp(t) => Event::Start(t),
                Conn::Source(s) => Event::Source(s),
            };
            self.queue.schedule(starts[k], ev);
        }
        for (p, port) in self.ports.iter().enumerate() {
            if let Some(t) = port.rate.as_ref().and_then(|r| r.deadline()) {
                self.queue
                    .schedule(t, Event::RateInterval(PortId(p as u32)));
            }
        }
        if self.warmup == SimTime::ZERO {
            // With no warm-up the counts start from the empty network, before any event (the
            // Warmup event below finds the snapshot taken and does nothing).
            self.on_warmup(SimTime::ZERO);
        }
        self.queue.schedule(self.warmup, Event::Warmup);
        if self.sample_every > SimTime::ZERO {
            self.queue.schedule(SimTime::ZERO, Event::Sample);
        }
    }
}
