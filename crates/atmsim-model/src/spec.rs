//! The resolved description of one simulation: every unit converted, every name resolved to
//! an index, every default filled in. `atmsim-scenario` builds it from TOML; tests build it
//! directly. [`crate::network::Network::new`] turns it into a runnable network.
//!
//! Conventions: times are [`SimTime`] (picoseconds), sizes are bytes or cells as the field
//! name says, indices refer to the vectors of [`NetworkSpec`].

use atmsim_engine::SimTime;

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

/// An end system: TCP/IP stack on one CPU, AAL5 segmentation and reassembly, one NIC.
#[derive(Debug, Clone, PartialEq)]
pub struct HostSpec {
    /// CPU time to process one TCP/IP packet, sent or received, data or ACK [ps]
    /// (Fang 1994 Table 1: 300 us). Packets queue for the CPU one at a time.
    pub processing_delay: SimTime,
    /// Segmentation (and reassembly) time per cell [ps] (Fang Table 1: 200 ns).
    pub sar_delay_per_cell: SimTime,
    /// Add the 8-byte RFC 1483 LLC/SNAP header to every IP packet.
    pub llc_snap: bool,
    /// IP output service time per packet [ps] (Cheon & Panwar: 1/10,500 s for 500-B
    /// packets); outgoing packets queue for it after the CPU and before segmentation.
    /// `SimTime::ZERO` = no IP bottleneck.
    pub ip_service_time: SimTime,
}

/// How an output port holds its cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queueing {
    /// One queue per VC, served round robin (one cell per VC per turn).
    PerVc,
    /// One FIFO shared by all VCs of the port.
    Fifo,
}

/// Admission policy of an output port: which arriving cells it refuses.
///
/// Thresholds are fractions of the port's reference buffer: the shared port buffer when the
/// switch sets `port_buffer_cells`, otherwise the per-VC buffer (and then the VC's own
/// occupancy is compared).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PolicySpec {
    /// Simple cell drop: a cell that finds its queue full is dropped; nothing else.
    CellDrop,
    /// Partial packet discard (Fang's "drop-tail"): after the first dropped cell of a frame,
    /// drop the rest of that frame; the EOM cell is kept when `keep_eom` (Fang keeps it).
    Ppd { keep_eom: bool },
    /// Fang's "drop-whole": on overflow also remove the frame's cells still queued here (back
    /// to the previous frame's EOM), then drop the rest of the frame including its EOM.
    DropWhole,
    /// Early packet discard: a frame whose first cell finds the buffer at or above
    /// `threshold` is refused whole; an admitted frame that overflows falls back to PPD.
    Epd { threshold: f64 },
    /// Early selective packet discard (Cheon & Panwar, section 3.2 pseudo-code).
    Espd { high: f64, low: f64 },
}

/// An output-buffered switch. Every output port of the switch uses these settings.
#[derive(Debug, Clone, PartialEq)]
pub struct SwitchSpec {
    /// Delay from the arrival of a cell to its availability at the output port [ps].
    pub switching_delay: SimTime,
    pub queueing: Queueing,
    /// Per-VC buffer limit at each output port [cells]; `None` = unlimited.
    pub vc_buffer_cells: Option<u32>,
    /// Shared buffer limit of each output port [cells]; `None` = unlimited.
    pub port_buffer_cells: Option<u32>,
    pub policy: PolicySpec,
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
    /// AN2 per-VC per-hop credits: the upstream end of each direction may have at most this
    /// many cells of a VC in the downstream node's buffer. `None` = no link flow control.
    pub credits: Option<u32>,
}

/// TCP variant (congestion control family).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TcpVariant {
    /// BSD 4.3 Tahoe: slow start, congestion avoidance, (optional) fast retransmit then slow start.
    Tahoe,
    /// Reno: fast retransmit and fast recovery.
    Reno,
    /// NewReno (RFC 6582): Reno with partial-ACK handling.
    NewReno,
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
    /// Duplicate ACKs that trigger fast retransmit; 0 disables fast retransmit.
    pub dupack_threshold: u32,
    /// Initial congestion window [segments].
    pub initial_cwnd_segments: u32,
}

/// What the sending application offers to TCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppSpec {
    /// Always has data (FTP-like bulk source).
    Greedy,
    /// Sends this many bytes, then stops.
    Bytes(u64),
}

/// One TCP connection: a data VC from `from` to `to` along `path`, and an ACK VC back along
/// the reverse path.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectionSpec {
    pub name: String,
    /// Node sequence from the source host to the destination host (both included); each
    /// consecutive pair must be joined by a link.
    pub path: Vec<NodeIdx>,
    pub tcp: TcpSpec,
    pub app: AppSpec,
    /// Earliest start [ps].
    pub start: SimTime,
    /// The start is drawn uniformly from `[start, start + start_jitter]` [ps] using the
    /// connection's own random stream.
    pub start_jitter: SimTime,
}

impl NetworkSpec {
    /// The link joining `a` and `b`, if any (in either orientation).
    pub fn link_between(&self, a: NodeIdx, b: NodeIdx) -> Option<LinkIdx> {
        self.links
            .iter()
            .position(|l| (l.a == a && l.b == b) || (l.a == b && l.b == a))
    }
}
