//! The resolved description of one simulation: every unit converted, every name resolved to
//! an index, every default filled in. `atmsim-scenario` builds it from TOML and checks it;
//! tests build it directly. [`crate::network::Network::new`] wires it into a runnable network
//! and trusts it: what the scenario layer refuses, the model does not check a second time
//! (it returns a typed [`crate::network::BuildError`] for the few things that would make the
//! wiring itself impossible).
//!
//! Conventions: times are [`SimTime`] (picoseconds), rates are cells per second (ATM Forum
//! TM 4.0 expresses PCR, SCR, MCR, ACR in cells/s), sizes are bytes or cells as the field
//! name says, indices refer to the vectors of [`NetworkSpec`].

use atmsim_engine::SimTime;
use serde::{Deserialize, Serialize};

pub use crate::abr::efci::EfciMark;
pub use crate::abr::erica::{CcrSource, LoadAveraging};
pub use crate::abr::fmmra::FmmraTarget;
pub use crate::abr::source::AbrParams;
pub use crate::abr::{
    EfciConfig, EricaConfig, EricaPlusConfig, FmmraConfig, NoRateControl, RateControlConfig,
};
pub use crate::port::policy::{PolicyConfig, VcShare};
pub use crate::port::scheduler::{Discipline, SchedulerSpec};
pub use crate::service::{ServiceCategory, TrafficDescriptor};

/// Index into [`NetworkSpec::nodes`].
pub type NodeIdx = usize;
/// Index into [`NetworkSpec::links`].
pub type LinkIdx = usize;

#[derive(Debug, Clone, PartialEq)]
pub struct NetworkSpec {
    pub run: RunSpec,
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
    pub connections: Vec<ConnectionSpec>,
    /// VC merges: several connections' data VCs carried as one VC between two switches.
    pub merges: Vec<MergeSpec>,
}

/// Several TCP connections' data VCs carried as one VC from switch `from` to switch `to`
/// (Goyal et al. 1998's edge devices). `from` buffers each connection's frame until its EOM
/// and then sends it whole, so frames of different connections never interleave on the
/// merged VC; every port between `from` and `to` sees one VC (one slot, one share of its
/// buffer); `to` sends each cell on along its own connection's path. The ACK direction is not
/// merged.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeSpec {
    pub name: String,
    /// Indices into [`NetworkSpec::connections`]; their paths run through `from` ... `to`
    /// by the same nodes.
    pub connections: Vec<usize>,
    pub from: NodeIdx,
    pub to: NodeIdx,
    /// The merged VC's share of the buffers between `from` and `to`.
    pub share: VcShare,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RunSpec {
    /// Simulated time to run [ps].
    pub duration: SimTime,
    /// Statistics (goodput, utilisation, loss) count only after this time [ps].
    pub warmup: SimTime,
    /// Master seed; every random stream derives from it.
    pub seed: u64,
    /// Period of the time series samples [ps]; `SimTime::ZERO` disables sampling.
    pub sample_every: SimTime,
    /// Which columns the time series hold.
    pub sample: SampleSelection,
}

/// Which columns the time series hold: a column is kept when its entity kind, its entity and
/// its metric each pass their filter (`None`: every one passes) and, for a port, its group
/// is kept (`switch_ports`, `host_ports`). An entity none of whose columns is kept is not
/// read at a sample. The default keeps every column.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleSelection {
    /// Entity kinds: `connection`, `port`, `abr`, `rate_control`.
    pub kinds: Option<Vec<String>>,
    /// Entity names (a connection's name, a port's `node->next`).
    pub entities: Option<Vec<String>>,
    /// Metric names (see [`crate::stats::sampled_metrics`]).
    pub metrics: Option<Vec<String>>,
    /// Ports of links between two switches.
    pub switch_ports: bool,
    /// Ports of links with a host at one end: the host's adapter and the switch's port
    /// facing it.
    pub host_ports: bool,
}

impl Default for SampleSelection {
    fn default() -> Self {
        SampleSelection::all()
    }
}

impl SampleSelection {
    /// Every column.
    pub fn all() -> Self {
        SampleSelection {
            kinds: None,
            entities: None,
            metrics: None,
            switch_ports: true,
            host_ports: true,
        }
    }

    /// Whether the columns of the port `name` may be kept (`host_link`: its link has a host
    /// at one end).
    pub fn wants_port(&self, name: &str, host_link: bool) -> bool {
        (if host_link {
            self.host_ports
        } else {
            self.switch_ports
        }) && self.wants_entity("port", name)
    }

    fn passes(filter: &Option<Vec<String>>, x: &str) -> bool {
        filter.as_ref().is_none_or(|f| f.iter().any(|y| y == x))
    }

    /// Whether the columns of entity `name` of `kind` may be kept.
    pub fn wants_entity(&self, kind: &str, name: &str) -> bool {
        Self::passes(&self.kinds, kind) && Self::passes(&self.entities, name)
    }

    /// Whether metric `metric` is kept (of an entity [`SampleSelection::wants_entity`]).
    pub fn wants_metric(&self, metric: &str) -> bool {
        Self::passes(&self.metrics, metric)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct NodeSpec {
    pub name: String,
    pub kind: NodeKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    Host(HostSpec),
    Switch(SwitchSpec),
}

/// An end system: TCP/IP stack on one CPU, AAL5 segmentation and reassembly, one adapter.
#[derive(Debug, Clone, PartialEq)]
pub struct HostSpec {
    /// CPU time to process one TCP/IP packet, sent or received, data or ACK [ps]
    /// (Fang 1994 Table 1: 300 us). Packets queue for the CPU one at a time.
    pub processing_delay: SimTime,
    /// The CPU time of each packet is drawn uniformly from `processing_delay +- this` with
    /// the host's own random stream (An 1997: 200 us with a 50 us variation) [ps];
    /// `SimTime::ZERO` = always `processing_delay`.
    pub processing_jitter: SimTime,
    /// Segmentation (and reassembly) time per cell [ps] (Fang Table 1: 200 ns).
    pub sar_delay_per_cell: SimTime,
    /// Add the 8-byte RFC 1483 LLC/SNAP header to every IP packet.
    pub llc_snap: bool,
    /// Bytes the adaptation layer adds to each datagram before padding to whole cells
    /// (AAL5's trailer: 8).
    pub aal_overhead_bytes: u32,
    /// IP output service time per packet [ps] (Cheon & Panwar: 1/10,500 s for 500-B
    /// packets); outgoing packets queue for it after the CPU and before segmentation.
    /// `SimTime::ZERO` = no IP bottleneck.
    pub ip_service_time: SimTime,
    /// The IP service handles received packets too: `ip_service_time` is then CPU work for
    /// every packet, sent or received (one FIFO for both directions), and sent packets do
    /// not queue for IP again after the CPU.
    pub ip_both_directions: bool,
    /// The CPU time of each packet is drawn from an exponential distribution of mean
    /// `processing_delay` (with the host's own random stream) instead of uniformly from
    /// `processing_delay +- processing_jitter` (which must then be zero).
    pub processing_exponential: bool,
    /// How each packet's IP service time is drawn around `ip_service_time`.
    pub ip_service: IpService,
}

/// The distribution of a host's IP service time per packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IpService {
    /// Always `ip_service_time`.
    #[default]
    Constant,
    /// Exponential with mean `ip_service_time`, drawn from the host's own random stream.
    Exponential,
}

/// One output port of a switch: its buffer, its scheduler and its admission policy.
#[derive(Debug, Clone, PartialEq)]
pub struct PortSpec {
    pub scheduler: SchedulerSpec,
    /// Per-VC buffer limit [cells]; `None` = unlimited.
    pub vc_buffer_cells: Option<u32>,
    /// Buffer limit of the port [cells]; `None` = unlimited. Under a priority scheduler each
    /// service class has a queue of this size.
    pub port_buffer_cells: Option<u32>,
    pub policy: PolicyConfig,
    /// The port's ABR rate control: the feedback it writes into the backward RM cells of the
    /// ABR VCs it carries (the scenario's table itself).
    pub rate_control: RateControlConfig,
    /// EFCI marking of AAL5 data cells of any service (for ECN): a cell that finds at least
    /// this many cells queued in its class is marked. `None`: off.
    pub efci_threshold: Option<u32>,
}

/// An output-buffered switch.
#[derive(Debug, Clone, PartialEq)]
pub struct SwitchSpec {
    /// Delay from the arrival of a cell to its availability at the output port [ps].
    pub switching_delay: SimTime,
    /// The settings of every output port not listed in `ports`.
    pub port: PortSpec,
    /// Output ports with their own settings, by the node at the far end of the port's link.
    pub ports: Vec<(NodeIdx, PortSpec)>,
}

impl SwitchSpec {
    /// The settings of the output port towards node `to`.
    pub fn port_to(&self, to: NodeIdx) -> &PortSpec {
        self.ports
            .iter()
            .find(|(n, _)| *n == to)
            .map_or(&self.port, |(_, p)| p)
    }
}

/// Link-level flow control on both directions of a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowControl {
    /// Cells are sent whenever the port's scheduler picks them.
    None,
    /// AN2 per-VC per-hop credits: the upstream end of each direction may have at most this
    /// many cells of a VC in the downstream node's buffer (Fang et al. 1994; Kung et al. 1994).
    Credits(u32),
}

/// A full-duplex point-to-point link; both directions have the same rate and delay.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkSpec {
    pub a: NodeIdx,
    pub b: NodeIdx,
    /// Serialization time of one 53-byte cell [ps] (2.75 us in Fang; 2.726 us at 155.52 Mb/s).
    pub cell_time: SimTime,
    /// Propagation delay [ps].
    pub delay: SimTime,
    pub flow_control: FlowControl,
}

impl LinkSpec {
    /// The link's rate [cells/s]: one cell per `cell_time`.
    pub fn cells_per_second(&self) -> f64 {
        1e12 / self.cell_time.0 as f64
    }
}

/// TCP variant (congestion control family).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TcpVariant {
    /// BSD 4.3 Tahoe: slow start, congestion avoidance, (optional) fast retransmit then slow start.
    Tahoe,
    /// Reno: fast retransmit and fast recovery.
    Reno,
    /// NewReno (RFC 6582): Reno with partial-ACK handling.
    NewReno,
    /// SACK (RFC 2018 option, RFC 6675 loss recovery): the receiver reports the blocks it
    /// holds beyond a hole; the sender retransmits each lost segment once, within cwnd - pipe.
    Sack,
}

impl CongestionControl {
    /// The name used in scenarios and reports: "reno", "cubic".
    pub const fn name(self) -> &'static str {
        match self {
            CongestionControl::Reno => "reno",
            CongestionControl::Cubic => "cubic",
        }
    }
}

impl TcpVariant {
    /// The name used in scenarios and reports: "tahoe", "reno", "new_reno", "sack".
    pub const fn name(self) -> &'static str {
        match self {
            TcpVariant::Tahoe => "tahoe",
            TcpVariant::Reno => "reno",
            TcpVariant::NewReno => "new_reno",
            TcpVariant::Sack => "sack",
        }
    }
}

/// When a held (delayed) ACK goes out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AckClock {
    /// The wait after the first segment it holds.
    #[default]
    PerSegment,
    /// At the next tick of a periodic clock of period the wait that every host shares,
    /// ticking at its whole multiples (as BSD's fast timer).
    Periodic,
    /// As `Periodic`, each receiving host's clock at its own phase, drawn from the seed.
    PeriodicPerHost,
}

/// What a new ACK outside recovery grows the congestion window by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CwndGrowth {
    /// One slow-start step (an MSS) or avoidance step (MSS^2 / cwnd) per ACK, however much it
    /// acknowledges (4.3BSD-Tahoe, RFC 5681).
    #[default]
    PerAck,
    /// One step for every segment the ACK newly acknowledges, rounded up (RFC 3465's byte
    /// counting without its limit).
    PerSegment,
    /// As `PerAck`, with MSS / 8 more per ACK in avoidance (4.3BSD-Reno and 4.4BSD's
    /// avoidance increment, MSS^2 / cwnd + MSS / 8).
    PerAckPlusEighth,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TcpSpec {
    pub variant: TcpVariant,
    /// Maximum segment size: TCP payload bytes per segment.
    pub mss_bytes: u32,
    /// Receiver window (and sender's cap) [bytes].
    pub max_window_bytes: u32,
    /// Retransmission timer granularity [ps]; `SimTime::ZERO` = exact (fine) timer.
    pub timer_granularity: SimTime,
    /// Lower bound of the retransmission timeout [ps].
    pub min_rto: SimTime,
    /// Upper bound of the retransmission timeout [ps].
    pub max_rto: SimTime,
    /// Timeout before the first RTT sample [ps].
    pub initial_rto: SimTime,
    /// Delayed ACK: `None` = ACK every segment; `Some(t)` = ACK every `ack_every`-th in-order
    /// segment or after at most `t`.
    pub delayed_ack: Option<SimTime>,
    /// With delayed ACK, the in-order segments that force an immediate ACK: 2 is RFC 1122's
    /// "every second full-sized segment"; 0 means only the timer sends in-order ACKs.
    pub ack_every: u32,
    /// With delayed ACK, when a held ACK goes out.
    pub ack_clock: AckClock,
    /// Duplicate ACKs that trigger fast retransmit; 0 disables fast retransmit.
    pub dupack_threshold: u32,
    /// RFC 6582's check on `recover` (section 3.2 step 2): no fast retransmit for losses of a
    /// window already recovered from, by fast retransmit or timeout. `false` leaves the check
    /// out, as 4.3BSD-Tahoe/Reno and RFC 2582's NewReno did (see `tcp::recovery`).
    pub recover_guard: bool,
    /// Initial congestion window [segments].
    pub initial_cwnd_segments: u32,
    /// What a new ACK outside recovery grows cwnd by.
    pub cwnd_growth: CwndGrowth,
    /// Initial slow-start threshold \[bytes\] (the receiver window unless set lower).
    pub initial_ssthresh_bytes: u32,
    /// The receiver keeps segments that arrive beyond a hole (the BSD reassembly queue);
    /// `false`: it discards them, as simple simulator TCPs of the 1990s did, and only
    /// in-order data is kept.
    pub keep_out_of_order: bool,
    /// SACK blocks per ACK, at most (1-4; RFC 2018: 4 fit the 40 option bytes, 3 beside the
    /// timestamp option). Used by the SACK variant only.
    pub sack_blocks: u8,
    /// The artificial loss of Goyal et al. 1998 (Fig. 3): each time cwnd reaches this many
    /// bytes, the next `drop_count` new segments are lost before they leave the host; the
    /// loss re-arms once cwnd is below it again. `None`: off.
    pub drop_at_cwnd: Option<u32>,
    /// Segments lost each time `drop_at_cwnd` is reached.
    pub drop_count: u32,
    /// With delayed ACK, a segment beyond a hole (whose ACK is a duplicate) is held by the
    /// delayed-ACK rule as an in-order one is, instead of ACKed at once (as RFC 5681 4.2 asks,
    /// and RFC 2581 before it; BSD's code did so; `false`, the default).
    pub delay_duplicate_acks: bool,
    /// Reno's (and NewReno's) fast recovery inflates cwnd: ssthresh + 3 MSS at entry and one
    /// MSS per further duplicate (RFC 5681 3.2; the default). `false`: cwnd = ssthresh at
    /// entry and no inflation, so the sender waits for the recovery's new ACK.
    pub fast_recovery_inflation: bool,
    /// What a new ACK does to the retransmission timer.
    pub rto_restart: RtoRestart,
    /// The window's growth in congestion avoidance and its reduction at a congestion event
    /// (see `tcp::cubic`).
    pub congestion_control: CongestionControl,
    /// ECN (RFC 3168): data segments are ECN-capable, a frame with a cell that arrived with
    /// EFCI set is Congestion Experienced at the receiving TCP, which echoes it (ECE) until
    /// the sender's CWR; the sender reduces its window once per window of data.
    pub ecn: bool,
    /// HyStart++ (RFC 9406): the initial slow start ends when the RTT rises, through a
    /// Conservative Slow Start (see `tcp::hystart`). `false`: RFC 5681's slow start.
    pub hystart: bool,
}

/// The congestion control of a TCP sender: how cwnd grows in congestion avoidance and what
/// ssthresh becomes at a congestion event. Slow start and loss recovery are the variant's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CongestionControl {
    /// Reno's (RFC 5681): avoidance adds about one MSS per round trip, an event halves.
    #[default]
    Reno,
    /// CUBIC (RFC 9438): the cubic window function, its Reno-friendly region, fast
    /// convergence and β = 0.7.
    Cubic,
}

/// What a new ACK does to the retransmission timer while data is still outstanding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoRestart {
    /// Restart it: it expires one RTO after the ACK (RFC 6298 5.3, 4.3BSD).
    #[default]
    NewAck,
    /// Set it to expire one RTO after the oldest outstanding segment (the one holding
    /// snd_una) was last sent, which may be at once.
    OldestSegment,
}

/// What the sending application offers to TCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppSpec {
    /// Always has data (FTP-like bulk source).
    Greedy,
    /// Sends this many bytes, then stops.
    Bytes(u64),
}

/// How long an ON-OFF source's ON and OFF periods last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnOffDurations {
    /// Every ON lasts `on`, every OFF `period - on`.
    #[default]
    Fixed,
    /// Each ON and each OFF is drawn from an exponential distribution with mean `on` or
    /// `period - on`, from the connection's random stream (ON and OFF ends then form
    /// alternating Poisson processes, as in a simulator's "VBR Poisson" source).
    Exponential,
}

/// What feeds a connection's VC.
#[derive(Debug, Clone, PartialEq)]
pub enum SourceSpec {
    /// A TCP connection over AAL5: the data VC forward and an ACK VC back along the same
    /// nodes. The source host's adapter sends the VC's cells as its scheduler allows (and at
    /// most at the VC's PCR when the descriptor gives one).
    Tcp { tcp: TcpSpec, app: AppSpec },
    /// Cells at a constant rate [cells/s], forever from the start.
    Cbr { rate: f64 },
    /// ON-OFF cells: at `rate` [cells/s] for `on` of every `period`, starting with ON at the
    /// start time (the VBR background of Kalyanaraman et al. 1996 and An 1997). With
    /// [`OnOffDurations::Exponential`], `on` and `period - on` are the means of ON and OFF
    /// periods drawn independently.
    OnOff {
        rate: f64,
        period: SimTime,
        on: SimTime,
        durations: OnOffDurations,
    },
    /// Cells as fast as the adapter sends them (the link rate, or the VC's PCR).
    Greedy,
}

impl SourceSpec {
    /// The source's own peak rate [cells/s], if it has one.
    pub fn rate(&self) -> Option<f64> {
        match *self {
            SourceSpec::Cbr { rate } | SourceSpec::OnOff { rate, .. } => Some(rate),
            SourceSpec::Tcp { .. } | SourceSpec::Greedy => None,
        }
    }

    /// Whether the source's cells form AAL5 frames.
    pub fn is_aal5(&self) -> bool {
        matches!(self, SourceSpec::Tcp { .. })
    }

    /// A short name for reports: "tcp", "cbr", "on_off", "greedy".
    pub fn kind(&self) -> &'static str {
        match self {
            SourceSpec::Tcp { .. } => "tcp",
            SourceSpec::Cbr { .. } => "cbr",
            SourceSpec::OnOff { .. } => "on_off",
            SourceSpec::Greedy => "greedy",
        }
    }
}

/// One connection: a VC from `from` to `to` along `path` with its service category and
/// traffic descriptor, fed by a source (for TCP also an ACK VC back along the reverse path).
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectionSpec {
    pub name: String,
    /// Node sequence from the source host to the destination host (both included); each
    /// consecutive pair must be joined by a link.
    pub path: Vec<NodeIdx>,
    pub service: ServiceCategory,
    pub descriptor: TrafficDescriptor,
    pub source: SourceSpec,
    /// Earliest start [ps].
    pub start: SimTime,
    /// The start is drawn uniformly from `[start, start + start_jitter]` [ps] using the
    /// connection's own random stream.
    pub start_jitter: SimTime,
    /// The ABR source and destination end systems, for a connection of the ABR service
    /// (`None` for every other service).
    pub abr: Option<AbrSpec>,
    /// The data VC's share of the switch buffers it crosses (per-VC threshold and weight).
    pub share: VcShare,
    /// The source tags the data VC's cells CLP = 1 (the ACKs of a TCP are not tagged).
    pub tagged: bool,
}

/// The ABR end systems of a connection (both directions of a TCP connection use them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AbrSpec {
    /// TM 4.0's parameters, every one resolved: PCR and MCR repeat the connection's traffic
    /// descriptor; FRTT is the path's round trip ([`round_trip`]) unless the scenario sets
    /// it; ICR is the rate the source starts at, bounded by TBE / FRTT and within
    /// [MCR, PCR] (see [`AbrParams::icr`]).
    pub params: AbrParams,
    /// Size of the source queue per VC [cells]; `None` = unlimited.
    pub source_buffer: Option<u32>,
    /// A frame whose cells do not all fit in the source queue is lost whole (otherwise each
    /// cell that finds the queue full is lost).
    pub drop_frames: bool,
    /// Destination: the CI of a backward RM cell is set if any data cell since the last
    /// forward RM cell turned round carried EFCI (otherwise: if the last data cell did, TM
    /// 4.0 destination rule 1).
    pub ci_any_since_rm: bool,
    /// The source queue sits in an edge router fed by the host over an access line of this
    /// cell time [ps]: a frame's cells enter it one cell time apart ([`crate::abr::access`]);
    /// `None`: all at once when the frame is segmented.
    pub access_cell_time: Option<SimTime>,
}

impl ConnectionSpec {
    /// A greedy TCP connection of the UBR service along `path` (the common case in tests).
    pub fn greedy_tcp(name: &str, path: Vec<NodeIdx>, tcp: TcpSpec) -> ConnectionSpec {
        ConnectionSpec {
            name: name.to_string(),
            path,
            service: ServiceCategory::Ubr,
            descriptor: TrafficDescriptor::default(),
            source: SourceSpec::Tcp {
                tcp,
                app: AppSpec::Greedy,
            },
            start: SimTime::ZERO,
            start_jitter: SimTime::ZERO,
            abr: None,
            share: VcShare::default(),
            tagged: false,
        }
    }

    /// The TCP settings, if the source is TCP.
    pub fn tcp_spec(&self) -> Option<&TcpSpec> {
        match &self.source {
            SourceSpec::Tcp { tcp, .. } => Some(tcp),
            _ => None,
        }
    }

    /// The TCP settings, for changing them (tests, builders).
    pub fn tcp_spec_mut(&mut self) -> Option<&mut TcpSpec> {
        match &mut self.source {
            SourceSpec::Tcp { tcp, .. } => Some(tcp),
            _ => None,
        }
    }
}

impl NetworkSpec {
    /// The link joining `a` and `b`, if any (in either orientation).
    pub fn link_between(&self, a: NodeIdx, b: NodeIdx) -> Option<LinkIdx> {
        self.links
            .iter()
            .position(|l| (l.a == a && l.b == b) || (l.a == b && l.b == a))
    }

    /// The fixed one-way delays of `path` (see [`path_delays`]).
    pub fn path_delays(&self, path: &[NodeIdx]) -> (SimTime, SimTime) {
        path_delays(&self.nodes, &self.links, path)
    }
}

/// The fixed one-way delays of `path` (a node sequence) over `nodes` and `links`: the
/// propagation delays of the links it crosses, and the switching delays of the switches it
/// enters [ps]. The round trip of a connection is twice their sum: its ACK VC (or its
/// backward RM cells) comes back along the same nodes.
pub fn path_delays(nodes: &[NodeSpec], links: &[LinkSpec], path: &[NodeIdx]) -> (SimTime, SimTime) {
    let (mut propagation, mut switching) = (SimTime::ZERO, SimTime::ZERO);
    for w in path.windows(2) {
        let (a, b) = (w[0], w[1]);
        let link = links
            .iter()
            .find(|l| (l.a == a && l.b == b) || (l.a == b && l.b == a));
        if let Some(l) = link {
            propagation += l.delay;
        }
        if let NodeKind::Switch(s) = &nodes[b].kind {
            switching += s.switching_delay;
        }
    }
    (propagation, switching)
}

/// The round trip of `path` from its fixed delays, there and back along the same nodes:
/// TM 4.0's FRTT of an ABR connection whose scenario does not give one.
pub fn round_trip(nodes: &[NodeSpec], links: &[LinkSpec], path: &[NodeIdx]) -> SimTime {
    let (propagation, switching) = path_delays(nodes, links, path);
    let one_way = propagation + switching;
    one_way + one_way
}
