//! What a scenario would cost before it runs, from its resolved [`NetworkSpec`], in one pass
//! over its connections' paths (O(size of the scenario)):
//!
//! - **VC labels**: each port names the VCs it carries by a 16-bit label, so a port carries
//!   at most 65,536 VCs ([`MAX_VCS_PER_PORT`], the model's `Label`). A TCP connection has a
//!   data VC on the ports of its path and an ACK VC on the ports of the way back; a cell
//!   source one VC, and an ABR cell source also a feedback VC on the way back; the members of
//!   a `[[merge]]` share one VC on the ports from its `from` switch up to its `to` switch.
//!   This mirrors `atmsim_model::network::wiring` exactly.
//! - **Events** ([`Cost::events`]), an upper bound of what the run takes: every port sends at
//!   most its link's cell rate and at most what its VCs can feed it (each VC at most its
//!   source's rate, its PCR and every link before the port; a TCP also at most its window per
//!   round trip of propagation, switching and one cell time a hop, its ACKs at most one per
//!   data frame); each cell sent costs [`EVENTS_PER_HOP`] events (the end of its
//!   transmission and its arrival), one more on a link with AN2 credits (the credit's
//!   return) and one more at a source adapter (the pacing wake-up); each TCP frame
//!   [`EVENTS_PER_FRAME`] more (CPU, SAR, reassembly, the receiver's CPU, a timer); an ON-OFF
//!   source two per period (its ON and its OFF); a measuring rate control (ERICA, ERICA+,
//!   FMMRA) one per averaging interval (closed after `interval` or `interval_cells` ABR
//!   cells); one per sample, per connection start and the warm-up.
//! - **Queued cells** ([`Cost::queued_cells`]), an upper bound of the cells the run's queues
//!   hold at once: at each switch port, the open-loop cell sources routed through it (CBR,
//!   ON-OFF, greedy, ABR cell sources at their PCR; each at most the rate of the links before
//!   the port, the cells of one input link at most that link's rate) less what the port can
//!   send (its link rate; behind AN2 credits, the slowest link on until the credits stop),
//!   times the duration, plus the credits of VCs held back by them, at most the port's
//!   buffer; and every TCP connection's window (data and ACKs) once, wherever it waits (port
//!   queues, ABR source queues, IP queues). A cell source keeps one cell at its adapter (and
//!   at its ABR source queue), so host adapters never grow with open-loop sources.
//!
//! A cell queued in the model is 12 bytes (`atmsim_model::cell::Cell`) in a ring
//! (`atmsim_engine::Ring`) that grows by doubling: at most 24 bytes a cell held, 36 while a
//! queue moves to a larger buffer.

use std::collections::HashMap;

use atmsim_engine::SimTime;
use atmsim_model::aal5;
use atmsim_model::abr::source::AbrParams;
use atmsim_model::service::PriorityClass;
use atmsim_model::spec::{
    FlowControl, NetworkSpec, NodeIdx, NodeKind, OnOffDurations, SchedulerSpec, SourceSpec,
    TcpVariant,
};

use crate::units::Time;

/// The most VCs one port carries: its labels are 16-bit (`atmsim_model::ids::Label`).
pub const MAX_VCS_PER_PORT: usize = 1 << 16;
/// Events per cell sent on a link: the end of its transmission and its arrival.
pub const EVENTS_PER_HOP: f64 = 2.0;
/// Events per TCP frame besides its cells': the CPU at the sender, the SAR engine, the
/// reassembly, the CPU at the receiver, and a retransmission or delayed-ACK timer.
pub const EVENTS_PER_FRAME: f64 = 5.0;

/// The estimates of a scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Cost {
    /// Upper bound of the events the run takes.
    pub events: f64,
    /// The largest contributor to `events`: what it is, and its events.
    pub events_largest: (String, f64),
    /// Upper bound of the cells queued at once, over every queue.
    pub queued_cells: f64,
    /// The switch port whose queue could hold the most cells (none without switches).
    pub queue_largest: Option<QueuePeak>,
}

/// The most cells one switch port's queue could hold.
#[derive(Debug, Clone, PartialEq)]
pub struct QueuePeak {
    /// `"A->B"`.
    pub port: String,
    /// The switch it belongs to and the node its link leads to.
    pub switch: String,
    pub to: String,
    /// Cells at most (the TCP windows through it included).
    pub cells: f64,
    /// Cells per second its open-loop sources feed it beyond what it sends.
    pub growth: f64,
    /// Its buffer limits it.
    pub bounded: bool,
}

/// A port carrying more VCs than its labels can name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooManyVcs {
    /// The connection whose VCs pass the limit (its index in the scenario).
    pub connection: usize,
    /// The port, `"A->B"`.
    pub port: String,
    /// The VCs the port would carry with every connection.
    pub vcs: usize,
    /// The connections with a VC there, and how many of those are TCP.
    pub connections: usize,
    pub tcp: usize,
}

/// One direction of one link: what the model wires as a port and its channel.
struct Port {
    from: NodeIdx,
    to: NodeIdx,
    /// Cells per second.
    rate: f64,
    /// The link runs AN2 credits.
    credits: Option<u32>,
    /// The port is a host's adapter.
    host: bool,
    /// Its buffer: per class (classes: 1, or 3 under a priority scheduler), per VC.
    port_buffer: Option<u32>,
    classes: u32,
    vc_buffer: Option<u32>,
    /// ERICA, ERICA+ or FMMRA: (interval [s], interval cells).
    interval: Option<(f64, u32)>,
}

/// What one VC offers: the ports it crosses, its rate bound and how it queues.
struct Vc {
    /// Index into `NetworkSpec::connections`.
    conn: usize,
    ports: Vec<usize>,
    /// Cells per second at most, before any link.
    cap: f64,
    /// A cell source's VC: it does not slow down for a queue.
    open_loop: bool,
    /// CBR or VBR: never held back by credits.
    real_time: bool,
    /// Its source adapter paces it (a PCR, a cell source's rate, ABR): a wake-up per cell.
    paced: bool,
    /// Cells of a TCP window (data or ACKs): what this VC may have queued in all.
    window: f64,
    /// Cells per frame (TCP).
    frame_cells: Option<f64>,
}

/// A TCP connection's two VCs (indices into the VCs) and what bounds them.
struct Tcp {
    data: usize,
    ack: usize,
    data_cells: f64,
    ack_cells: f64,
    /// The data VC's cells per second without the ACK clock: a window per round trip, the
    /// PCR (ABR: with its RM cells), the first link.
    alone: f64,
    /// The slowest link of the data path.
    links: f64,
    /// Cells per second a retransmission timeout can send without an ACK: two segments per
    /// timeout at its shortest.
    timeouts: f64,
    pcr: f64,
    abr: Option<AbrParams>,
}

impl Tcp {
    /// The ACK VC's cells per second when the data VC delivers `delivered` cells per second:
    /// an ACK per data frame, and the backward RM cells of the data VC (ABR).
    fn acks(&self, delivered: f64) -> f64 {
        let frames = delivered / self.data_cells;
        let rm = self.abr.as_ref().map_or(0.0, |p| rm_cells(delivered, p));
        abr_bound(frames * self.ack_cells + rm, self.abr.as_ref(), self.pcr)
    }
}

/// The cells per second of a VC whose source offers `base`: at most its PCR; an ABR VC also
/// carries its forward RM cells in rate and its out-of-rate ones at TCR.
fn abr_bound(base: f64, abr: Option<&AbrParams>, pcr: f64) -> f64 {
    match abr {
        None => base.min(pcr),
        Some(p) => {
            let nrm = f64::from(p.nrm.max(2));
            (base * nrm / (nrm - 1.0) + per_second(p.trm)).min(p.pcr) + p.tcr
        }
    }
}

/// The forward RM cells of an ABR VC sending `cells` per second: one in Nrm, one more per
/// Trm, and the out-of-rate ones at TCR (each comes back as a backward RM cell).
fn rm_cells(cells: f64, p: &AbrParams) -> f64 {
    cells / f64::from(p.nrm.max(2)) + per_second(p.trm) + p.tcr
}

/// `1 / t` [1/s]; unbounded for a zero time.
fn per_second(t: SimTime) -> f64 {
    if t.0 == 0 {
        f64::INFINITY
    } else {
        1e12 / t.0 as f64
    }
}

/// The most TCP packets per second host `node` handles: one CPU time each at least (with the
/// IP service on the CPU, its time too), and on the sending side at most the IP output rate.
fn host_rate(spec: &NetworkSpec, node: NodeIdx, sending: bool) -> f64 {
    let NodeKind::Host(h) = &spec.nodes[node].kind else {
        return f64::INFINITY;
    };
    // An exponential CPU time may be near 0 for one packet, but not for long: its mean.
    let mut cpu = if h.processing_exponential {
        h.processing_delay.0
    } else {
        h.processing_delay.0.saturating_sub(h.processing_jitter.0)
    };
    if h.ip_both_directions {
        cpu += h.ip_service_time.0;
    }
    let ip = if sending {
        per_second(h.ip_service_time)
    } else {
        f64::INFINITY
    };
    per_second(SimTime(cpu)).min(ip)
}

/// The ports of a spec, numbered as the model wires them (link `l`: `2l` is `a -> b`,
/// `2l + 1` is `b -> a`), and the index of each by its ends.
fn ports(spec: &NetworkSpec) -> (Vec<Port>, HashMap<(NodeIdx, NodeIdx), usize>) {
    let mut out = Vec::with_capacity(2 * spec.links.len());
    let mut index = HashMap::with_capacity(2 * spec.links.len());
    for l in &spec.links {
        for (from, to) in [(l.a, l.b), (l.b, l.a)] {
            index.insert((from, to), out.len());
            // A cell time that rounded to 0 ps counts as 1 ps.
            let rate = l.cells_per_second().min(1e12);
            let credits = match l.flow_control {
                FlowControl::None => None,
                FlowControl::Credits(n) => Some(n),
            };
            let port = match &spec.nodes[from].kind {
                NodeKind::Switch(s) => {
                    let p = s.port_to(to);
                    Port {
                        from,
                        to,
                        rate,
                        credits,
                        host: false,
                        port_buffer: p.port_buffer_cells,
                        classes: match p.scheduler {
                            SchedulerSpec::Single(_) => 1,
                            SchedulerSpec::Priority(_) => 3,
                        },
                        vc_buffer: p.vc_buffer_cells,
                        interval: p
                            .rate_control
                            .interval()
                            .map(|(t, cells)| (t.0 as f64 / 1e12, cells)),
                    }
                }
                NodeKind::Host(_) => Port {
                    from,
                    to,
                    rate,
                    credits,
                    host: true,
                    port_buffer: None,
                    classes: 1,
                    vc_buffer: None,
                    interval: None,
                },
            };
            out.push(port);
        }
    }
    (out, index)
}

fn port_name(spec: &NetworkSpec, p: &Port) -> String {
    format!("{}->{}", spec.nodes[p.from].name, spec.nodes[p.to].name)
}

/// The ports along `path` (node indices), hop by hop.
fn path_ports(path: &[NodeIdx], index: &HashMap<(NodeIdx, NodeIdx), usize>) -> Vec<usize> {
    path.windows(2)
        .map(|w| *index.get(&(w[0], w[1])).expect("a checked route"))
        .collect()
}

/// The VCs each port carries, counted as the model hands out labels; the first connection
/// that takes a port past [`MAX_VCS_PER_PORT`] is an error. Returns the port with the most.
pub fn check_vcs(spec: &NetworkSpec) -> Result<Option<(String, usize)>, TooManyVcs> {
    let (ports, index) = ports(spec);
    let counted = count_vcs(spec, &ports, &index);
    if let Some((p, ci)) = counted.first_over {
        let (mut conns, mut tcp) = (0, 0);
        for (c, vcs) in spec.connections.iter().zip(&counted.paths) {
            if vcs.iter().any(|v| v.contains(&p)) {
                conns += 1;
                tcp += usize::from(matches!(c.source, SourceSpec::Tcp { .. }));
            }
        }
        return Err(TooManyVcs {
            connection: ci,
            port: port_name(spec, &ports[p]),
            vcs: counted.counts[p],
            connections: conns,
            tcp,
        });
    }
    Ok(counted
        .counts
        .iter()
        .enumerate()
        .max_by_key(|(_, n)| **n)
        .map(|(p, &n)| (port_name(spec, &ports[p]), n)))
}

/// The VCs each port carries, ports numbered as the model wires them (link `l`: `2l` is
/// `a -> b`, `2l + 1` is `b -> a`): what `Port::slots` holds once the network is wired.
pub fn vcs_per_port(spec: &NetworkSpec) -> Vec<usize> {
    let (ports, index) = ports(spec);
    count_vcs(spec, &ports, &index).counts
}

/// Per connection in a merge: (merge, first merged hop, one past the last), as the wiring
/// computes them (the positions of the merge's `from` and `to` switches on the path).
fn merge_hops(spec: &NetworkSpec) -> Vec<Option<(usize, usize, usize)>> {
    let mut out = vec![None; spec.connections.len()];
    for (mi, m) in spec.merges.iter().enumerate() {
        for &ci in &m.connections {
            let path = &spec.connections[ci].path;
            let pos = |n| path.iter().position(|&x| x == n);
            if let (Some(a), Some(b)) = (pos(m.from), pos(m.to)) {
                out[ci] = Some((mi, a, b));
            }
        }
    }
    out
}

/// The ports of each VC of connection `ci`, in the order the model adds them: the data VC
/// (or the cell source's), then the ACK VC (or an ABR cell source's feedback VC).
fn vc_paths(
    spec: &NetworkSpec,
    ci: usize,
    index: &HashMap<(NodeIdx, NodeIdx), usize>,
) -> Vec<Vec<usize>> {
    let c = &spec.connections[ci];
    let forward = path_ports(&c.path, index);
    let back = || {
        let rev: Vec<NodeIdx> = c.path.iter().rev().copied().collect();
        path_ports(&rev, index)
    };
    match c.source {
        SourceSpec::Tcp { .. } => vec![forward, back()],
        _ if c.abr.is_some() => vec![forward, back()],
        _ => vec![forward],
    }
}

/// The VCs of every port, as the model wires them.
struct Counted {
    /// VCs per port.
    counts: Vec<usize>,
    /// Per connection, the ports of each of its VCs (in the order of [`vc_paths`]).
    paths: Vec<Vec<Vec<usize>>>,
    /// The first (port, connection) where a port passes [`MAX_VCS_PER_PORT`].
    first_over: Option<(usize, usize)>,
}

fn count_vcs(
    spec: &NetworkSpec,
    ports: &[Port],
    index: &HashMap<(NodeIdx, NodeIdx), usize>,
) -> Counted {
    let mut counts = vec![0usize; ports.len()];
    let mut first_over = None;
    let merged = merge_hops(spec);
    let mut merged_seen = std::collections::HashSet::new();
    let mut paths = Vec::with_capacity(spec.connections.len());
    for (ci, merged) in merged.iter().enumerate() {
        let vcs = vc_paths(spec, ci, index);
        for (k, vc_ports) in vcs.iter().enumerate() {
            for (hop, &p) in vc_ports.iter().enumerate() {
                // The members of a merge share one VC from its `from` switch to its `to`.
                if let (0, Some((m, a, b))) = (k, *merged) {
                    if (a..b).contains(&hop) && !merged_seen.insert((m, p)) {
                        continue;
                    }
                }
                counts[p] += 1;
                if counts[p] > MAX_VCS_PER_PORT && first_over.is_none() {
                    first_over = Some((p, ci));
                }
            }
        }
        paths.push(vcs);
    }
    Counted {
        counts,
        paths,
        first_over,
    }
}

/// The cells of a TCP frame carrying `payload` bytes from host `node`.
fn frame_cells(spec: &NetworkSpec, node: NodeIdx, payload: u32) -> f64 {
    let (llc, overhead) = match &spec.nodes[node].kind {
        NodeKind::Host(h) => (h.llc_snap, h.aal_overhead_bytes),
        NodeKind::Switch(_) => (false, aal5::AAL5_TRAILER_BYTES),
    };
    f64::from(aal5::cells_for_segment_with(payload, llc, overhead))
}

/// The round trip of `path` at its fastest: propagation, switching and one cell time per hop,
/// both ways [s].
fn min_round_trip(spec: &NetworkSpec, path_ports: &[usize], ports: &[Port]) -> f64 {
    let mut ps = 0u128;
    for &p in path_ports {
        let port = &ports[p];
        let l = &spec.links[p / 2];
        ps += u128::from(l.delay.0) + u128::from(l.cell_time.0);
        if let NodeKind::Switch(s) = &spec.nodes[port.to].kind {
            ps += u128::from(s.switching_delay.0);
        }
    }
    2.0 * ps as f64 / 1e12
}

/// The VCs of every connection with their rate bounds (each alone: before the ACK clock),
/// and the TCP connections among them.
fn vcs(spec: &NetworkSpec, ports: &[Port], paths: Vec<Vec<Vec<usize>>>) -> (Vec<Vc>, Vec<Tcp>) {
    let mut out = Vec::with_capacity(2 * spec.connections.len());
    let mut tcps = Vec::new();
    let links_min = |ps: &[usize]| {
        ps.iter()
            .map(|&p| ports[p].rate)
            .fold(f64::INFINITY, f64::min)
    };
    for (ci, (c, mut vps)) in spec.connections.iter().zip(paths).enumerate() {
        let pcr = c.descriptor.pcr.unwrap_or(f64::INFINITY);
        let abr = c.abr.as_ref().map(|a| a.params);
        let real_time = c.service.class() == PriorityClass::RealTime;
        let paced = abr.is_some() || c.descriptor.pcr.is_some() || c.source.rate().is_some();
        let back = if vps.len() > 1 { vps.pop() } else { None };
        let fwd = vps.pop().expect("every connection has a VC");
        match &c.source {
            SourceSpec::Tcp { tcp, .. } => {
                let src = c.path[0];
                let dst = *c.path.last().expect("a checked route");
                let data_cells = frame_cells(spec, src, tcp.mss_bytes);
                let option = if tcp.variant == TcpVariant::Sack {
                    (2 + 8 * u32::from(tcp.sack_blocks)).div_ceil(4) * 4
                } else {
                    0
                };
                let ack_cells = frame_cells(spec, dst, option);
                let segments = f64::from(tcp.max_window_bytes.div_ceil(tcp.mss_bytes.max(1))) + 1.0;
                let back = back.expect("a TCP connection has an ACK VC");
                let rtt = min_round_trip(spec, &fwd, ports);
                // At most a window per round trip, a frame per CPU time at either end, the IP
                // output rate, a cell per SAR time.
                let window = segments * data_cells;
                let hosts = host_rate(spec, src, true).min(host_rate(spec, dst, false));
                let sar = match &spec.nodes[src].kind {
                    NodeKind::Host(h) => per_second(h.sar_delay_per_cell),
                    NodeKind::Switch(_) => f64::INFINITY,
                };
                let alone = abr_bound(
                    (window / rtt).min(hosts * data_cells).min(sar),
                    abr.as_ref(),
                    pcr,
                )
                .min(ports[fwd[0]].rate);
                let rto = (tcp.min_rto.0 as f64 / 1e12).max(rtt);
                let t = Tcp {
                    data: out.len(),
                    ack: out.len() + 1,
                    data_cells,
                    ack_cells,
                    alone,
                    links: links_min(&fwd),
                    timeouts: 2.0 * data_cells / rto,
                    pcr,
                    abr,
                };
                out.push(Vc {
                    conn: ci,
                    ports: fwd,
                    cap: alone,
                    open_loop: false,
                    real_time,
                    paced,
                    window,
                    frame_cells: Some(data_cells),
                });
                out.push(Vc {
                    conn: ci,
                    ports: back,
                    cap: t.acks(alone.min(t.links)),
                    open_loop: false,
                    real_time,
                    paced,
                    window: segments * ack_cells,
                    frame_cells: Some(ack_cells),
                });
                tcps.push(t);
            }
            source => {
                let rate = source.rate().unwrap_or(f64::INFINITY);
                let cap = abr_bound(rate, abr.as_ref(), pcr);
                out.push(Vc {
                    conn: ci,
                    ports: fwd,
                    cap,
                    open_loop: true,
                    real_time,
                    paced,
                    window: 0.0,
                    frame_cells: None,
                });
                if let (Some(back), Some(p)) = (back, &abr) {
                    // The feedback VC carries the forward RM cells turned round.
                    let delivered = cap.min(links_min(&out.last().expect("pushed").ports));
                    out.push(Vc {
                        conn: ci,
                        ports: back,
                        cap: rm_cells(delivered, p),
                        open_loop: true,
                        real_time,
                        paced: false,
                        window: 0.0,
                        frame_cells: None,
                    });
                }
            }
        }
    }
    (out, tcps)
}

/// Cells per second each port sends at most: its link's rate, what its VCs can feed it (each
/// at most its bound and every link before the port), and what each upstream port sends it.
/// Also the cells per second of paced VCs at their source adapters.
fn load(vcs: &[Vc], ports: &[Port]) -> (Vec<f64>, Vec<f64>) {
    let np = ports.len();
    let mut fed = vec![0.0f64; np];
    let mut input = vec![0.0f64; np];
    let mut paced = vec![0.0f64; np];
    let mut from_up: HashMap<(usize, usize), f64> = HashMap::new();
    for v in vcs {
        let mut bound = v.cap;
        for (k, &p) in v.ports.iter().enumerate() {
            bound = bound.min(ports[p].rate);
            fed[p] += bound;
            if k == 0 {
                input[p] += bound;
                if v.paced {
                    paced[p] += bound;
                }
            } else {
                *from_up.entry((v.ports[k - 1], p)).or_default() += bound;
            }
        }
    }
    // What a port sends on to the ports after it is at most what it sends: its share of each
    // is cut in proportion when they add up to more. Three rounds carry a cut three hops on.
    let mut sent: Vec<f64> = (0..np).map(|p| ports[p].rate.min(fed[p])).collect();
    let mut onward = vec![0.0f64; np];
    for (&(up, _), &x) in &from_up {
        onward[up] += x;
    }
    for _ in 0..3 {
        let mut into = input.clone();
        for (&(up, p), &x) in &from_up {
            into[p] += x * (sent[up] / onward[up]).min(1.0);
        }
        for p in 0..np {
            sent[p] = sent[p].min(into[p]);
        }
    }
    for p in 0..np {
        paced[p] = paced[p].min(sent[p]);
    }
    (sent, paced)
}

/// The ACK clock: a TCP sends a segment only for an ACK (at most two per segment delivered,
/// as slow start doubles its window each round trip) or on a retransmission timeout. So the
/// TCPs whose data VCs share a port together send at most twice what it delivers, plus their
/// timeouts; each TCP is counted at the port where that bound is tightest (its share of the
/// port the fewest), and the port's budget goes first to the TCPs with the longest paths (the
/// most events per cell). Lowers the VCs' bounds in `vcs`.
fn ack_clock(vcs: &mut [Vc], tcps: &[Tcp], sent: &[f64]) {
    let mut sharing = vec![0usize; sent.len()];
    for t in tcps {
        for &p in &vcs[t.data].ports {
            sharing[p] += 1;
        }
    }
    let mut groups: HashMap<usize, Vec<&Tcp>> = HashMap::new();
    for t in tcps {
        let share = |p: usize| sent[p] / sharing[p] as f64;
        let at = vcs[t.data]
            .ports
            .iter()
            .copied()
            .min_by(|&a, &b| share(a).total_cmp(&share(b)))
            .expect("a path has a port");
        groups.entry(at).or_default().push(t);
    }
    for (at, mut members) in groups {
        members.sort_by_key(|t| std::cmp::Reverse(vcs[t.data].ports.len()));
        let mut to_send = 2.0 * sent[at] + members.iter().map(|t| t.timeouts).sum::<f64>();
        let mut to_deliver = sent[at];
        for t in members {
            let send = t.alone.min(to_send);
            to_send -= send;
            let delivered = send.min(t.links).min(to_deliver);
            to_deliver -= delivered;
            vcs[t.data].cap = send;
            vcs[t.ack].cap = t.acks(delivered);
        }
    }
}

/// `x` as `6.0e10`.
pub fn sci(x: f64) -> String {
    format!("{x:.1e}")
}

/// Estimates what `spec` costs (see the module's documentation).
pub fn estimate(spec: &NetworkSpec) -> Cost {
    let (ports, index) = ports(spec);
    let Counted { counts, paths, .. } = count_vcs(spec, &ports, &index);
    let (mut vcs, tcps) = vcs(spec, &ports, paths);
    let (sent, _) = load(&vcs, &ports);
    ack_clock(&mut vcs, &tcps, &sent);
    let (sent, paced) = load(&vcs, &ports);
    let (events, events_largest) = events(spec, &ports, &vcs, &sent, &paced);
    let (queued_cells, queue_largest) = queues(spec, &ports, &vcs, &counts);
    Cost {
        events,
        events_largest,
        queued_cells,
        queue_largest,
    }
}

/// The events of the run, and its largest part (see the module's documentation).
fn events(
    spec: &NetworkSpec,
    ports: &[Port],
    vcs: &[Vc],
    sent: &[f64],
    paced: &[f64],
) -> (f64, (String, f64)) {
    let duration = spec.run.duration.0 as f64 / 1e12;
    let over = Time(spec.run.duration);
    let mut parts: Vec<(String, f64)> = Vec::new();
    for (p, port) in ports.iter().enumerate() {
        if sent[p] <= 0.0 {
            continue;
        }
        let per = EVENTS_PER_HOP + f64::from(u8::from(port.credits.is_some()));
        let n = (sent[p] * per + paced[p]) * duration;
        parts.push((
            format!(
                "port {}: {} cells/s: {} events over {over}",
                port_name(spec, port),
                sci(sent[p]),
                sci(n)
            ),
            n,
        ));
        if let Some((interval, cells)) = port.interval {
            let n = (duration / interval.max(1e-12) + sent[p] * duration / f64::from(cells.max(1)))
                .ceil();
            parts.push((
                format!(
                    "port {}: a rate control interval every {} or {cells} ABR cells: {} events \
                     over {over}",
                    port_name(spec, port),
                    Time(SimTime((interval * 1e12).round() as u64)),
                    sci(n)
                ),
                n,
            ));
        }
    }
    // TCP frames, per connection (data and ACKs).
    let mut frames = vec![0.0f64; spec.connections.len()];
    for v in vcs {
        if let (Some(cells), Some(&p0)) = (v.frame_cells, v.ports.first()) {
            frames[v.conn] += v.cap.min(sent[p0]) / cells;
        }
    }
    for (ci, c) in spec.connections.iter().enumerate() {
        if frames[ci] > 0.0 {
            let n = frames[ci] * EVENTS_PER_FRAME * duration;
            parts.push((
                format!(
                    "connection '{}': {} TCP frames/s (data and ACKs): {} events over {over}",
                    c.name,
                    sci(frames[ci]),
                    sci(n)
                ),
                n,
            ));
        }
        if let SourceSpec::OnOff {
            period, durations, ..
        } = &c.source
        {
            let active = spec.run.duration.0.saturating_sub(c.start.0) as f64;
            let periods = match durations {
                OnOffDurations::Fixed => (active / period.0.max(1) as f64).ceil(),
                // The mean number of periods; the ON and OFF draws are independent, so the
                // count exceeds it by a few square roots of itself at most.
                OnOffDurations::Exponential => {
                    let m = active / period.0.max(1) as f64;
                    m + 5.0 * m.sqrt() + 1.0
                }
            };
            let every = if period.0 % 2 == 1 {
                format!("{} ps", period.0 as f64 / 2.0)
            } else {
                Time(SimTime(period.0 / 2)).to_string()
            };
            parts.push((
                format!(
                    "connection '{}': on_off source switching every {every}: {} events over \
                     {over}",
                    c.name,
                    sci(2.0 * periods)
                ),
                2.0 * periods,
            ));
        }
    }
    // Samples, connection starts and the warm-up.
    let samples = match spec.run.sample_every.0 {
        0 => 0.0,
        every => (spec.run.duration.0 / every + 1) as f64,
    };
    parts.push((
        format!(
            "the samples every {}: {} events",
            Time(spec.run.sample_every),
            sci(samples)
        ),
        samples + spec.connections.len() as f64 + 1.0,
    ));
    let total = parts.iter().map(|(_, n)| n).sum();
    let largest = parts
        .into_iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .expect("the samples' part is always there");
    (total, largest)
}

/// The cells the run's queues hold at once, and the switch port that could hold the most
/// (see the module's documentation).
fn queues(
    spec: &NetworkSpec,
    ports: &[Port],
    vcs: &[Vc],
    counts: &[usize],
) -> (f64, Option<QueuePeak>) {
    let duration = spec.run.duration.0 as f64 / 1e12;
    let np = ports.len();
    let mut open_up: HashMap<(usize, usize), f64> = HashMap::new();
    let mut held = vec![0.0f64; np];
    let mut windows = vec![0.0f64; np];
    // The slowest a port behind credits can drain its open-loop VCs.
    let mut drain = vec![f64::INFINITY; np];
    let mut queued = 0.0f64;
    for v in vcs {
        // A TCP's window, once, wherever it waits; no more than it can send in the run.
        queued += v.window.min(v.cap * duration);
        // Backwards: the slowest link from each hop to the end of its run of credited links
        // (a VC held back by credits waits at the first port of the run).
        let mut run_min = vec![f64::INFINITY; v.ports.len()];
        let mut after = f64::INFINITY;
        for (k, &p) in v.ports.iter().enumerate().rev() {
            let port = &ports[p];
            after = if port.credits.is_some() && !v.real_time {
                port.rate.min(after)
            } else {
                port.rate
            };
            run_min[k] = after;
        }
        // What the VC can bring to each port: its bound and the links before the port.
        let mut bound = v.cap;
        for (k, &p) in v.ports.iter().enumerate() {
            windows[p] += v.window;
            if k == 0 || !v.open_loop {
                bound = bound.min(ports[p].rate);
                continue;
            }
            let up = v.ports[k - 1];
            match ports[up].credits.filter(|_| !v.real_time) {
                // The credits hold the VC's excess upstream.
                Some(n) => held[p] += f64::from(n),
                None => *open_up.entry((up, p)).or_default() += bound,
            }
            drain[p] = drain[p].min(run_min[k]);
            bound = bound.min(ports[p].rate);
        }
    }
    let mut open_in = vec![0.0f64; np];
    for (&(up, p), &x) in &open_up {
        open_in[p] += x.min(ports[up].rate);
    }
    let mut largest: Option<QueuePeak> = None;
    for (p, port) in ports.iter().enumerate() {
        if port.host {
            // A cell source keeps one cell at its adapter; a TCP its window, counted above.
            continue;
        }
        let rate = (open_in[p] - port.rate.min(drain[p])).max(0.0);
        let growth = rate * duration + held[p];
        let limit = [
            port.port_buffer
                .map(|b| f64::from(b) * f64::from(port.classes)),
            port.vc_buffer.map(|b| f64::from(b) * counts[p] as f64),
        ]
        .into_iter()
        .flatten()
        .fold(f64::INFINITY, f64::min);
        queued += growth.min(limit);
        let peak = (growth + windows[p]).min(limit);
        if largest.as_ref().is_none_or(|q| peak > q.cells) {
            largest = Some(QueuePeak {
                port: port_name(spec, port),
                switch: spec.nodes[port.from].name.clone(),
                to: spec.nodes[port.to].name.clone(),
                cells: peak,
                growth: rate,
                bounded: growth + windows[p] > limit,
            });
        }
    }
    (queued, largest)
}
