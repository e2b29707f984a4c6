//! The scenario file schema: serde types whose field names are the TOML keys.
//!
//! ```toml
//! name = "fang1994-an2"
//! description = "..."
//! [run]        duration, warmup, seed, sample_every, sample_kinds, sample_entities,
//!              sample_metrics, series
//! [tcp]        defaults for every connection (variant, mss, max_window, timer, min_rto, ...)
//! [host]       defaults for every host (processing_delay, sar_delay, llc_snap)
//! [hosts.h1]   overrides for one host, same keys as [host]
//! [[switch]]   name, switching_delay, scheduler, vc_buffer, port_buffer, policy,
//!              ports = { NEIGHBOUR = { scheduler, vc_buffer, port_buffer, policy } }
//! [[link]]     between, rate or cell_time, delay, credits
//! [[connection]] name, from, to, via, service, pcr, scr, mbs, mcr, mfs, source,
//!              app, start, start_jitter, tcp = { any [tcp] key }
//! [trace]      hosts, links, connections, from, until, cell_vcs, cell_ports, cell_max_rows
//! ```
//!
//! The admission policies' tables (`policy = { kind = ..., ... }`) and the ABR rate controls'
//! (`rate_control = { kind = ..., ... }`) are the model's own config types ([`PolicyConfig`],
//! [`RateControlConfig`]): a new policy or scheme needs no change here.
//!
//! Every struct refuses unknown keys. Every optional field's default is in [`defaults`], and
//! [`crate::canonical_toml`] writes each one out. Per-item overrides (`[hosts.X]`, a
//! connection's `tcp`) stay sparse: they hold only what the file sets, so a later
//! `--set tcp.mss=...` still reaches every connection that does not override it.
//!
//! Nodes are not declared: every name in `[[switch]]` is a switch, every other name that a
//! link or connection uses is a host.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::units::{
    AbrFrtt, AbrIcr, AccessRate, Buffer, Cells, Credits, DelayedAck, DropAtCwnd, EfciThreshold,
    InitialSsthresh, IpRate, Rate, Size, Time, Timer, WindowScale,
};
pub use atmsim_model::abr::RateControlConfig;
pub use atmsim_model::port::policy::PolicyConfig;
pub use atmsim_model::spec::{
    AckClock, CongestionControl, CwndGrowth, Discipline, IpService, OnOffDurations, RtoRestart,
    TcpVariant,
};

/// The default of every optional field, in one place.
pub mod defaults {
    use super::*;

    pub fn description() -> String {
        String::new()
    }
    pub fn run_duration() -> Time {
        Time::s(1)
    }
    pub fn run_warmup() -> Time {
        Time::ZERO
    }
    pub fn run_seed() -> u64 {
        1
    }
    pub fn run_sample_every() -> Time {
        Time::ms(10)
    }
    /// See [`MAX_EVENTS_DEFAULT`].
    pub fn run_max_events() -> u64 {
        MAX_EVENTS_DEFAULT
    }
    /// See [`MAX_QUEUED_CELLS_DEFAULT`].
    pub fn run_max_queued_cells() -> u64 {
        MAX_QUEUED_CELLS_DEFAULT
    }

    pub fn tcp_variant() -> TcpVariant {
        TcpVariant::Reno
    }
    /// RFC 1626's default IP MTU over ATM (9180 B) less 40 B of TCP/IP headers.
    pub fn tcp_mss() -> Size {
        Size(9140)
    }
    pub fn tcp_max_window() -> Size {
        Size(64 * 1024)
    }
    pub fn tcp_timer() -> Timer {
        Timer::word()
    }
    /// RFC 6298 section 2.4.
    pub fn tcp_min_rto() -> Time {
        Time::s(1)
    }
    /// The BSD cap (TCPTV_REXMTMAX).
    pub fn tcp_max_rto() -> Time {
        Time::s(64)
    }
    /// RFC 6298 section 2.1.
    pub fn tcp_initial_rto() -> Time {
        Time::s(1)
    }
    pub fn tcp_delayed_ack() -> DelayedAck {
        DelayedAck::word()
    }
    /// RFC 1122 section 4.2.3.2: at least every second full-sized segment.
    pub fn tcp_ack_every() -> u32 {
        2
    }
    /// RFC 5681 section 3.2.
    pub fn tcp_dupack_threshold() -> u32 {
        3
    }
    /// RFC 6582 section 3.2 step 2: the check on `recover` (the behaviour before the key).
    pub fn tcp_recover_guard() -> bool {
        true
    }
    pub fn tcp_initial_cwnd() -> u32 {
        1
    }
    /// 4.3BSD and RFC 5681: one increment per ACK, however much it acknowledges.
    pub fn tcp_cwnd_growth() -> CwndGrowth {
        CwndGrowth::PerAck
    }
    /// A wait that starts with the segment it holds (RFC 1122's at-most-500 ms rule).
    pub fn tcp_ack_clock() -> AckClock {
        AckClock::PerSegment
    }
    /// The BSD reassembly queue.
    pub fn tcp_out_of_order() -> OutOfOrder {
        OutOfOrder::Keep
    }
    /// RFC 7323: the smallest shift that lets the window be advertised.
    pub fn tcp_window_scale() -> WindowScale {
        WindowScale::Auto
    }
    /// RFC 2018: four blocks fill the 40 option bytes of a segment without timestamps.
    pub fn tcp_sack_blocks() -> u8 {
        4
    }
    pub fn tcp_initial_ssthresh() -> InitialSsthresh {
        InitialSsthresh::word()
    }
    pub fn tcp_drop_at_cwnd() -> DropAtCwnd {
        DropAtCwnd::word()
    }
    pub fn tcp_drop_count() -> u32 {
        1
    }
    /// RFC 5681 4.2 (RFC 2581 before it), BSD: an out-of-order segment is ACKed at once.
    pub fn tcp_delay_duplicate_acks() -> bool {
        false
    }
    /// RFC 5681 3.2 steps 3-4.
    pub fn tcp_fast_recovery_inflation() -> bool {
        true
    }
    /// RFC 6298 5.3 and 4.3BSD.
    pub fn tcp_rto_restart() -> RtoRestart {
        RtoRestart::NewAck
    }
    /// The papers' TCPs: Reno's growth and halving.
    pub fn tcp_congestion_control() -> CongestionControl {
        CongestionControl::Reno
    }
    /// The papers' TCPs had no ECN.
    pub fn tcp_ecn() -> bool {
        false
    }
    /// The papers' TCPs had RFC 5681's slow start.
    pub fn tcp_hystart() -> bool {
        false
    }
    /// The options of today's TCP (`congestion_control`, `ecn`, `hystart`, a port's
    /// `efci_threshold`)
    /// are left out of the canonical text at their defaults, so every scenario written before
    /// them keeps its canonical text, and the runs cached under it.
    pub fn is_reno(c: &CongestionControl) -> bool {
        *c == CongestionControl::Reno
    }
    pub fn is_false(b: &bool) -> bool {
        !*b
    }
    pub fn is_off(t: &EfciThreshold) -> bool {
        t.is_word()
    }

    pub fn host_processing_delay() -> Time {
        Time::ZERO
    }
    pub fn host_processing_jitter() -> Time {
        Time::ZERO
    }
    pub fn host_sar_delay() -> Time {
        Time::ZERO
    }
    pub fn host_llc_snap() -> bool {
        false
    }
    /// AAL5's CPCS trailer.
    pub fn host_aal_overhead() -> Size {
        Size(8)
    }
    pub fn host_ip_rate() -> IpRate {
        IpRate::word()
    }
    pub fn host_ip_directions() -> IpDirections {
        IpDirections::Out
    }
    pub fn host_processing_distribution() -> ProcessingDistribution {
        ProcessingDistribution::Uniform
    }

    pub fn host_ip_service() -> IpService {
        IpService::Constant
    }

    pub fn switch_switching_delay() -> Time {
        Time::ZERO
    }
    pub fn switch_scheduler() -> Scheduler {
        Scheduler::Single(Discipline::RoundRobin)
    }
    pub fn switch_vc_buffer() -> Buffer {
        Buffer::word()
    }
    pub fn switch_port_buffer() -> Buffer {
        Buffer::word()
    }
    pub fn share_weight() -> f64 {
        1.0
    }

    pub fn switch_policy() -> PolicyConfig {
        PolicyConfig::default()
    }
    pub fn switch_rate_control() -> RateControlConfig {
        RateControlConfig::default()
    }
    pub fn switch_efci_threshold() -> EfciThreshold {
        EfciThreshold::word()
    }

    pub fn abr_icr() -> AbrIcr {
        AbrIcr::word()
    }
    pub fn abr_tcr() -> Rate {
        "10 cells/s".parse().expect("a rate")
    }
    pub fn abr_nrm() -> u32 {
        32
    }
    pub fn abr_mrm() -> u32 {
        2
    }
    pub fn abr_trm() -> Time {
        Time::ms(100)
    }
    pub fn abr_rif() -> f64 {
        1.0 / 16.0
    }
    pub fn abr_rdf() -> f64 {
        1.0 / 16.0
    }
    pub fn abr_adtf() -> Time {
        Time::ms(500)
    }
    pub fn abr_tbe() -> Cells {
        Cells(16_777_215)
    }
    pub fn abr_cdf() -> f64 {
        1.0 / 16.0
    }
    pub fn abr_frtt() -> AbrFrtt {
        AbrFrtt::word()
    }
    pub fn abr_source_buffer() -> Buffer {
        Buffer::word()
    }
    /// Kalyanaraman et al. 1996: "the buffers overflow at the source and cells are dropped".
    pub fn abr_source_drop() -> SourceDrop {
        SourceDrop::Cells
    }
    /// TM 4.0 destination rule 1: the EFCI state is the last data cell's.
    pub fn abr_destination_ci() -> DestinationCi {
        DestinationCi::LastCell
    }

    /// The host's frames enter the ABR source queue at once (no access line).
    pub fn abr_access_rate() -> AccessRate {
        AccessRate::word()
    }

    /// The periodic ON-OFF source of Kalyanaraman et al. 1996.
    pub fn on_off_durations() -> OnOffDurations {
        OnOffDurations::Fixed
    }

    pub fn link_delay() -> Time {
        Time::ZERO
    }
    pub fn link_credits() -> Credits {
        Credits::word()
    }
    pub fn link_framing() -> Framing {
        Framing::None
    }

    pub fn connection_app() -> App {
        App::Greedy
    }
    pub fn connection_service() -> Service {
        Service::Ubr
    }
    pub fn connection_source() -> SourceConfig {
        SourceConfig::Tcp(TcpSourceConfig {})
    }
    pub fn connection_start() -> Time {
        Time::ZERO
    }
    pub fn trace_from() -> Time {
        Time::ZERO
    }
    pub fn trace_cell_max_rows() -> u64 {
        atmsim_model::trace::CELL_MAX_ROWS_DEFAULT
    }
    pub fn connection_start_jitter() -> Time {
        Time::ZERO
    }
}

/// The default of `run.max_events`: about an hour of simulation at 14 million events a second
/// (one core runs 6 to 25 million, fewer on large networks and with every series sampled).
/// The largest estimate of a built-in scenario, a reproduction's run or a bench case is 3.6e8
/// (the bench's 60 s parking lot), 1/140 of it.
pub const MAX_EVENTS_DEFAULT: u64 = 50_000_000_000;
/// The default of `run.max_queued_cells`: 600 MB of 12-byte cells, up to 1.2 GB allocated as
/// queues grow by doubling (1.8 GB for the moment one moves to a larger buffer), which a
/// machine with 2 GB free survives. The largest estimate of a built-in scenario, a
/// reproduction's run or a bench case is 1.7e6 (the windows of the bench's 1,000 TCPs), 1/29
/// of it.
pub const MAX_QUEUED_CELLS_DEFAULT: u64 = 50_000_000;

/// One scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Identifies the scenario in reports.
    pub name: String,
    #[serde(default = "defaults::description")]
    pub description: String,
    #[serde(default)]
    pub run: RunConfig,
    /// Defaults for every connection.
    #[serde(default)]
    pub tcp: TcpConfig,
    /// ABR end-system defaults for every connection of the ABR service.
    #[serde(default)]
    pub abr: AbrConfig,
    /// Defaults for every host.
    #[serde(default)]
    pub host: HostConfig,
    /// Per-host overrides of `host`, keyed by host name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub hosts: BTreeMap<String, HostOverride>,
    #[serde(default)]
    pub switch: Vec<SwitchConfig>,
    pub link: Vec<LinkConfig>,
    pub connection: Vec<ConnectionConfig>,
    /// VC merges: several TCP connections' data carried as one VC between two switches.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merge: Vec<MergeConfig>,
    /// What `atmsim run --pcap` and `--cell-trace` record (absent: every TCP connection's
    /// end hosts, the whole run). It changes nothing in the simulation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceConfig>,
}

/// `[trace]`: which packets and cells a traced run records (docs/traces.md). Names are
/// checked against the scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceConfig {
    /// Hosts with a pcap-ng file; absent: the end hosts of the traced connections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hosts: Option<Vec<String>>,
    /// Link directions (ports, `"A->B"`) with a pcap-ng file.
    #[serde(default)]
    pub links: Vec<String>,
    /// TCP connections whose packets are written; absent: every TCP connection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connections: Option<Vec<String>>,
    /// Record from this time on.
    #[serde(default = "defaults::trace_from")]
    pub from: Time,
    /// Record before this time; absent: to the end of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Time>,
    /// Connections whose cells the cell trace records; absent: every connection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_vcs: Option<Vec<String>>,
    /// Ports (`"A->B"`) whose cell events the cell trace records; absent: every port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_ports: Option<Vec<String>>,
    /// The most rows the cell trace keeps; it stops recording there and says so.
    #[serde(default = "defaults::trace_cell_max_rows", deserialize_with = "count")]
    pub cell_max_rows: u64,
}

impl Default for TraceConfig {
    fn default() -> Self {
        TraceConfig {
            hosts: None,
            links: Vec::new(),
            connections: None,
            from: defaults::trace_from(),
            until: None,
            cell_vcs: None,
            cell_ports: None,
            cell_max_rows: defaults::trace_cell_max_rows(),
        }
    }
}

/// `[[merge]]`: the data VCs of `connections` become one VC from switch `from` (which
/// buffers each frame until its EOM and sends it whole) to switch `to` (which sends each
/// cell on along its own connection's path).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MergeConfig {
    pub name: String,
    /// TCP connections (by name) whose paths run through `from` and then `to` by the same
    /// nodes.
    pub connections: Vec<String>,
    /// The merging switch.
    pub from: String,
    /// The switch where the merged VC ends.
    pub to: String,
    /// The merged VC's share of the buffers between `from` and `to`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub share: ShareConfig,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// Simulated time.
    #[serde(default = "defaults::run_duration")]
    pub duration: Time,
    /// Statistics count only after this time.
    #[serde(default = "defaults::run_warmup")]
    pub warmup: Time,
    /// Master seed of every random stream (at most 2^63 - 1, the largest TOML integer).
    #[serde(default = "defaults::run_seed")]
    pub seed: u64,
    /// Period of the time series; `"0 s"` disables sampling.
    #[serde(default = "defaults::run_sample_every")]
    pub sample_every: Time,
    /// Entity kinds the series hold (`connection`, `port`, `abr`, `rate_control`); absent:
    /// every kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_kinds: Option<Vec<String>>,
    /// Entities the series hold (connection names, port names `node->next`); absent: every
    /// entity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_entities: Option<Vec<String>>,
    /// Metrics the series hold; absent: every metric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_metrics: Option<Vec<String>>,
    /// Groups of series kept (`connections`, `switch_ports`, `host_ports`, `abr`,
    /// `rate_control`, or `all`); absent: every group, but `host_ports` only in a scenario of
    /// at most `HOST_PORT_SERIES_UP_TO` connections (`build::run`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<Vec<String>>,
    /// The most events the run may take, as estimated before it starts (`crate::cost`): a
    /// scenario estimated above it is refused. Written out only when it is not the default
    /// (a ceiling, not a setting of the simulation: it leaves run identities alone).
    #[serde(
        default = "defaults::run_max_events",
        deserialize_with = "count",
        skip_serializing_if = "is_default_max_events"
    )]
    pub max_events: u64,
    /// The most cells the run's queues may hold at once, as estimated before it starts: a
    /// scenario estimated above it is refused. Written out only when it is not the default.
    #[serde(
        default = "defaults::run_max_queued_cells",
        deserialize_with = "count",
        skip_serializing_if = "is_default_max_queued_cells"
    )]
    pub max_queued_cells: u64,
}

fn is_default_max_events(n: &u64) -> bool {
    *n == MAX_EVENTS_DEFAULT
}

fn is_default_max_queued_cells(n: &u64) -> bool {
    *n == MAX_QUEUED_CELLS_DEFAULT
}

const COUNT_HINT: &str =
    "expected a whole number such as 50000000000 (TOML also reads 50_000_000_000)";

/// A count written as a TOML integer: a string or a float (`2e10`) is refused with the form
/// that works.
fn count<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    use serde::de::{self, Visitor};
    struct V;
    impl Visitor<'_> for V {
        type Value = u64;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(COUNT_HINT)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
            Ok(v)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| E::custom(format!("{v} is negative; {COUNT_HINT}")))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<u64, E> {
            Err(E::custom(format!(
                "{v} is a floating-point number; {COUNT_HINT}"
            )))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
            Err(E::custom(format!(
                "{v:?} is a string; write the number without quotes; {COUNT_HINT}"
            )))
        }
    }
    d.deserialize_any(V)
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            duration: defaults::run_duration(),
            warmup: defaults::run_warmup(),
            seed: defaults::run_seed(),
            sample_every: defaults::run_sample_every(),
            sample_kinds: None,
            sample_entities: None,
            sample_metrics: None,
            series: None,
            max_events: defaults::run_max_events(),
            max_queued_cells: defaults::run_max_queued_cells(),
        }
    }
}

/// Declares a config struct (every field defaulted) and its sparse override (every field
/// optional), with `Config::with(&Override)` merging the two.
macro_rules! config_with_override {
    (
        $(#[$cm:meta])* $config:ident,
        $(#[$om:meta])* $override:ident {
            $( $(#[$fm:meta])* $field:ident : $ty:ty = $default:path, )*
        }
    ) => {
        $(#[$cm])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct $config {
            $( $(#[$fm])* pub $field: $ty, )*
        }

        impl Default for $config {
            fn default() -> Self {
                $config { $( $field: $default(), )* }
            }
        }

        $(#[$om])*
        #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $override {
            $(
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $field: Option<$ty>,
            )*
        }

        impl $config {
            /// This config with every field that `o` sets replaced.
            pub fn with(&self, o: &$override) -> $config {
                $config { $( $field: o.$field.clone().unwrap_or_else(|| self.$field.clone()), )* }
            }
        }

        impl $override {
            /// Whether this override sets `field` (a TOML key).
            pub fn sets(&self, field: &str) -> bool {
                match field {
                    $( stringify!($field) => self.$field.is_some(), )*
                    _ => false,
                }
            }
        }
    };
}

config_with_override! {
    /// TCP settings of a connection (`[tcp]` holds the defaults).
    TcpConfig,
    /// A connection's own TCP settings (`tcp = { ... }`), each replacing the `[tcp]` value.
    TcpOverride {
        variant: TcpVariant = defaults::tcp_variant,
        /// Maximum segment size: TCP payload per segment.
        mss: Size = defaults::tcp_mss,
        /// Receiver window, also the sender's cap.
        max_window: Size = defaults::tcp_max_window,
        /// `"exact"` or the tick of a coarse retransmission timer.
        timer: Timer = defaults::tcp_timer,
        min_rto: Time = defaults::tcp_min_rto,
        max_rto: Time = defaults::tcp_max_rto,
        /// Timeout before the first RTT sample.
        initial_rto: Time = defaults::tcp_initial_rto,
        /// `"off"` or the longest an ACK is held.
        delayed_ack: DelayedAck = defaults::tcp_delayed_ack,
        /// With delayed ACK: ACK at once every this many in-order segments (RFC 1122: 2);
        /// 0 = only the delayed-ACK timer acknowledges in-order data.
        ack_every: u32 = defaults::tcp_ack_every,
        /// When a held ACK goes out: `"per_segment"` (`delayed_ack` after the first segment
        /// it holds), `"periodic"` (at the next tick of a clock of period `delayed_ack`
        /// that every host shares, ticking at whole multiples of it, as BSD's fast timer) or
        /// `"periodic_per_host"` (each host's clock at its own phase, drawn from the seed).
        ack_clock: AckClock = defaults::tcp_ack_clock,
        /// Duplicate ACKs that trigger fast retransmit; 0 disables it.
        dupack_threshold: u32 = defaults::tcp_dupack_threshold,
        /// RFC 6582's check on `recover`: no second fast retransmit for losses of a window
        /// already recovered from; `false` = 4.3BSD Tahoe/Reno, RFC 2582 NewReno.
        recover_guard: bool = defaults::tcp_recover_guard,
        /// Initial congestion window [segments].
        initial_cwnd: u32 = defaults::tcp_initial_cwnd,
        /// What one ACK grows cwnd by: `"per_ack"` (one slow-start or congestion-avoidance
        /// step per ACK), `"per_segment"` (one step per segment it newly acknowledges) or
        /// `"per_ack_plus_eighth"` (per ACK, avoidance steps of MSS^2 / cwnd + MSS / 8).
        cwnd_growth: CwndGrowth = defaults::tcp_cwnd_growth,
        /// Initial slow-start threshold: `"max_window"` or a size (An 1997: half the window).
        initial_ssthresh: InitialSsthresh = defaults::tcp_initial_ssthresh,
        window_scale: WindowScale = defaults::tcp_window_scale,
        out_of_order: OutOfOrder = defaults::tcp_out_of_order,
        /// SACK blocks per ACK at most (variant "sack"), 1-4.
        sack_blocks: u8 = defaults::tcp_sack_blocks,
        /// Goyal et al. 1998 Fig. 3's artificial loss: `"off"` or the window at which
        /// `drop_count` new segments are lost, each time cwnd reaches it.
        drop_at_cwnd: DropAtCwnd = defaults::tcp_drop_at_cwnd,
        drop_count: u32 = defaults::tcp_drop_count,
        /// With delayed ACK, hold the ACK of a segment beyond a hole (a duplicate ACK) by
        /// the delayed-ACK rule too, instead of sending it at once.
        delay_duplicate_acks: bool = defaults::tcp_delay_duplicate_acks,
        /// Reno/NewReno fast recovery inflates cwnd (ssthresh + 3 MSS, + 1 MSS per further
        /// duplicate); `false`: cwnd = ssthresh and the sender waits for the new ACK.
        fast_recovery_inflation: bool = defaults::tcp_fast_recovery_inflation,
        /// What a new ACK does to the retransmission timer: `"new_ack"` (restart it) or
        /// `"oldest_segment"` (one RTO after the oldest outstanding segment was sent).
        rto_restart: RtoRestart = defaults::tcp_rto_restart,
        /// `"reno"` (RFC 5681's avoidance and halving) or `"cubic"` (RFC 9438).
        #[serde(skip_serializing_if = "defaults::is_reno")]
        congestion_control: CongestionControl = defaults::tcp_congestion_control,
        /// ECN (RFC 3168): ECT data, CE from the cells' EFCI at the receiving edge, ECE/CWR.
        #[serde(skip_serializing_if = "defaults::is_false")]
        ecn: bool = defaults::tcp_ecn,
        /// HyStart++ (RFC 9406): leave the initial slow start when the RTT rises.
        #[serde(skip_serializing_if = "defaults::is_false")]
        hystart: bool = defaults::tcp_hystart,
    }
}

config_with_override! {
    /// TM 4.0's ABR source parameters (names as in TM 4.0 section 5.10.2). PCR and MCR are
    /// the connection's `pcr` (default: the rate of its first link) and `mcr` (default 0).
    AbrConfig,
    AbrOverride {
        icr: AbrIcr = defaults::abr_icr,
        tcr: Rate = defaults::abr_tcr,
        nrm: u32 = defaults::abr_nrm,
        mrm: u32 = defaults::abr_mrm,
        trm: Time = defaults::abr_trm,
        rif: f64 = defaults::abr_rif,
        rdf: f64 = defaults::abr_rdf,
        adtf: Time = defaults::abr_adtf,
        tbe: Cells = defaults::abr_tbe,
        cdf: f64 = defaults::abr_cdf,
        frtt: AbrFrtt = defaults::abr_frtt,
        source_buffer: Buffer = defaults::abr_source_buffer,
        /// What a full source queue loses: `"cells"` (each cell that finds it full) or
        /// `"frames"` (a frame whose cells do not all fit, whole).
        source_drop: SourceDrop = defaults::abr_source_drop,
        /// When the destination sets CI in a turned-round RM cell: `"last_cell"` (the last
        /// data cell carried EFCI) or `"any_since_rm"` (any data cell since the last
        /// turnaround did).
        destination_ci: DestinationCi = defaults::abr_destination_ci,
        /// The source queue is an edge router's, fed by the host over an access line of this
        /// rate: `"off"` (the host's segmented frames enter it at once) or a rate (each
        /// frame's cells enter it one cell time of the line apart).
        access_rate: AccessRate = defaults::abr_access_rate,
    }
}

/// When an ABR destination sets CI in the backward RM cell it turns round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DestinationCi {
    /// The last data cell before the forward RM cell carried EFCI (TM 4.0 destination
    /// rule 1: the EFCI state is that of the last data cell received).
    LastCell,
    /// Any data cell since the last forward RM cell turned round carried EFCI.
    AnySinceRm,
}

/// How a host's CPU time per packet varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProcessingDistribution {
    /// Uniform in `processing_delay` +- `processing_jitter` (fixed when the jitter is 0).
    Uniform,
    /// Exponential with mean `processing_delay` (`processing_jitter` must be 0).
    Exponential,
}

config_with_override! {
    /// An end system (`[host]` holds the defaults).
    HostConfig,
    /// One host's own settings (`[hosts.NAME]`), each replacing the `[host]` value.
    HostOverride {
        /// CPU time per TCP/IP packet, sent or received.
        processing_delay: Time = defaults::host_processing_delay,
        processing_jitter: Time = defaults::host_processing_jitter,
        /// Segmentation (and reassembly) time per cell.
        sar_delay: Time = defaults::host_sar_delay,
        /// Add the 8-byte RFC 1483 LLC/SNAP header to every IP packet.
        llc_snap: bool = defaults::host_llc_snap,
        aal_overhead: Size = defaults::host_aal_overhead,
        /// IP output service rate: outgoing packets wait in an unbounded IP queue served at
        /// this rate before segmentation (Cheon & Panwar 1998).
        ip_rate: IpRate = defaults::host_ip_rate,
        /// Which packets the IP service at `ip_rate` handles.
        ip_directions: IpDirections = defaults::host_ip_directions,
        /// How the CPU time per packet varies: `"uniform"` (within `processing_jitter`) or
        /// `"exponential"` (mean `processing_delay`).
        processing_distribution: ProcessingDistribution = defaults::host_processing_distribution,
        /// Each packet's IP service time: `"constant"` (1/`ip_rate`) or `"exponential"`
        /// (of mean 1/`ip_rate`, from the host's random stream).
        ip_service: IpService = defaults::host_ip_service,
    }
}

/// Which packets a host's IP service handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IpDirections {
    /// Sent packets only, in an IP output queue of their own after the CPU.
    Out,
    /// Sent and received packets alike, as work of the host's one CPU (a FIFO): every
    /// packet takes 1/`ip_rate` on it besides `processing_delay` (an IP layer that is one
    /// server for both directions, as a simulator's IP module may be).
    Both,
}

/// What an ABR source queue of `source_buffer` cells loses when a frame does not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceDrop {
    /// Each cell that finds the queue full: the frame's first cells may go and its last ones
    /// not (an ATM-layer queue; the receiver then finds the frame merged with the next).
    Cells,
    /// The whole frame, unless all its cells fit (a host or edge router that queues packets).
    Frames,
}

/// What the receiver does with a segment beyond a hole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutOfOrder {
    /// Keep it until the hole is filled (BSD's reassembly queue).
    Keep,
    /// Discard it (simple simulator TCPs of the 1990s): only in-order data is kept.
    Discard,
}

config_with_override! {
    /// The settings of a switch's output port.
    PortConfig,
    /// One output port's own settings (`ports = { NEIGHBOUR = { ... } }`), each replacing
    /// the switch's value.
    PortOverride {
        /// How the port picks the next cell: `"fifo"`, `"round_robin"` (per-VC queues) or
        /// `{ kind = "priority", cbr_vbr = ..., abr = ..., ubr_gfr = ... }`.
        scheduler: Scheduler = defaults::switch_scheduler,
        /// Per-VC limit.
        vc_buffer: Buffer = defaults::switch_vc_buffer,
        /// Limit of the port's queue (of each class's queue under a priority scheduler).
        port_buffer: Buffer = defaults::switch_port_buffer,
        /// Admission policy: `{ kind = "cell_drop" | "ppd" | "drop_whole" | "epd" | "espd" |
        /// "threshold" | "gfr" | "selective_drop" | "fba", ... }`.
        policy: PolicyConfig = defaults::switch_policy,
        /// ABR rate control: `{ kind = "none" | "erica" | "erica_plus" | "efci" | "fmmra",
        /// ... }`.
        rate_control: RateControlConfig = defaults::switch_rate_control,
        /// EFCI marking of AAL5 data cells of any service, for ECN: `"off"` or the queue
        /// length (in the cell's class) from which an arriving cell is marked.
        #[serde(skip_serializing_if = "defaults::is_off")]
        efci_threshold: EfciThreshold = defaults::switch_efci_threshold,
    }
}

/// An output-buffered switch: its output ports' settings, for all of them and per port.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchConfig {
    pub name: String,
    /// From a cell's arrival to its availability at the output port.
    #[serde(default = "defaults::switch_switching_delay")]
    pub switching_delay: Time,
    /// How each output port picks the next cell.
    #[serde(default = "defaults::switch_scheduler")]
    pub scheduler: Scheduler,
    /// Per-VC limit at each output port.
    #[serde(default = "defaults::switch_vc_buffer")]
    pub vc_buffer: Buffer,
    /// Limit of each output port's queue.
    #[serde(default = "defaults::switch_port_buffer")]
    pub port_buffer: Buffer,
    #[serde(default = "defaults::switch_policy")]
    pub policy: PolicyConfig,
    #[serde(default = "defaults::switch_rate_control")]
    pub rate_control: RateControlConfig,
    /// EFCI marking of each output port's AAL5 data cells (for ECN).
    #[serde(
        default = "defaults::switch_efci_threshold",
        skip_serializing_if = "defaults::is_off"
    )]
    pub efci_threshold: EfciThreshold,
    /// Output ports with settings of their own, keyed by the node at the link's far end.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ports: BTreeMap<String, PortOverride>,
}

impl SwitchConfig {
    /// The settings every port has unless `ports` says otherwise.
    pub fn port(&self) -> PortConfig {
        PortConfig {
            scheduler: self.scheduler,
            vc_buffer: self.vc_buffer,
            port_buffer: self.port_buffer,
            policy: self.policy.clone(),
            rate_control: self.rate_control.clone(),
            efci_threshold: self.efci_threshold,
        }
    }
}

/// How a port picks the next cell to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheduler {
    /// Every cell in one class.
    Single(Discipline),
    /// Strict priority: CBR/VBR, then ABR, then UBR/GFR, each with its discipline.
    Priority {
        cbr_vbr: Discipline,
        abr: Discipline,
        ubr_gfr: Discipline,
    },
}

const SCHEDULER_HINT: &str = r#"expected "fifo", "round_robin" or { kind = "priority", cbr_vbr = "fifo", abr = "fifo", ubr_gfr = "fifo" }"#;

impl Serialize for Scheduler {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Scheduler::Single(d) => s.serialize_str(d.name()),
            Scheduler::Priority {
                cbr_vbr,
                abr,
                ubr_gfr,
            } => {
                let mut m = s.serialize_map(Some(4))?;
                m.serialize_entry("kind", "priority")?;
                m.serialize_entry("cbr_vbr", cbr_vbr.name())?;
                m.serialize_entry("abr", abr.name())?;
                m.serialize_entry("ubr_gfr", ubr_gfr.name())?;
                m.end()
            }
        }
    }
}

/// By hand, so that both forms are accepted and a wrong one gets a message naming them.
impl<'de> Deserialize<'de> for Scheduler {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{self, MapAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Scheduler;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(SCHEDULER_HINT)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Scheduler, E> {
                match v {
                    "fifo" => Ok(Scheduler::Single(Discipline::Fifo)),
                    "round_robin" => Ok(Scheduler::Single(Discipline::RoundRobin)),
                    "priority" => Err(E::custom(
                        r#"a priority scheduler is a table: { kind = "priority" } (each class then FIFO) or with cbr_vbr, abr, ubr_gfr set to "fifo" or "round_robin""#,
                    )),
                    _ => Err(E::custom(format!(
                        "unknown scheduler {v:?}; {SCHEDULER_HINT}"
                    ))),
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scheduler, A::Error> {
                let mut kind: Option<String> = None;
                let mut classes: [Option<Discipline>; 3] = [None; 3];
                const CLASSES: [&str; 3] = ["cbr_vbr", "abr", "ubr_gfr"];
                while let Some(key) = map.next_key::<String>()? {
                    if key == "kind" && kind.is_none() {
                        kind = Some(map.next_value()?);
                    } else if let Some(i) = CLASSES.iter().position(|c| *c == key) {
                        if classes[i].is_some() {
                            return Err(de::Error::custom(format!("duplicate field `{key}`")));
                        }
                        classes[i] = Some(map.next_value()?);
                    } else {
                        return Err(de::Error::custom(format!(
                            "unknown field `{key}`, expected one of `kind`, `cbr_vbr`, `abr`, `ubr_gfr`"
                        )));
                    }
                }
                match kind.as_deref() {
                    Some("priority") => {}
                    Some(k @ ("fifo" | "round_robin")) if classes.iter().all(Option::is_none) => {
                        return self.visit_str(k);
                    }
                    Some(k) => {
                        return Err(de::Error::custom(format!(
                            "unknown scheduler kind {k:?}; {SCHEDULER_HINT}"
                        )))
                    }
                    None => {
                        return Err(de::Error::custom(format!(
                            "missing field `kind`; {SCHEDULER_HINT}"
                        )))
                    }
                }
                let d = |c: Option<Discipline>| c.unwrap_or(Discipline::Fifo);
                Ok(Scheduler::Priority {
                    cbr_vbr: d(classes[0]),
                    abr: d(classes[1]),
                    ubr_gfr: d(classes[2]),
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// A full-duplex link; give exactly one of `rate` and `cell_time`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// The two nodes it joins; `--set link.A-B.KEY` names it by them.
    pub between: [String; 2],
    /// Line rate; the cell time is `424 bits / rate` rounded to the picosecond.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Serialisation time of one cell, when given directly (Fang 1994: 2.75 us).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_time: Option<Time>,
    /// Propagation delay.
    #[serde(default = "defaults::link_delay")]
    pub delay: Time,
    /// AN2 per-VC per-hop credits, `"off"` or `"N cells"`.
    #[serde(default = "defaults::link_credits")]
    pub credits: Credits,
    /// How cells ride the line: `"none"` (every bit of the rate carries cells) or `"sonet"`
    /// (in a SONET/SDH payload: 26/27 of the line rate, 149.76 of 155.52 Mb/s).
    #[serde(default = "defaults::link_framing")]
    pub framing: Framing,
}

/// A link's physical framing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Framing {
    None,
    Sonet,
}

impl LinkConfig {
    /// The name used by `--set link.NAME...` and in messages: `"h1-A"`.
    pub fn name(&self) -> String {
        format!("{}-{}", self.between[0], self.between[1])
    }
}

/// What the sending application offers: `"greedy"` or `{ bytes = "1 MB" }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum App {
    /// Always has data.
    Greedy,
    /// Sends this many bytes, then stops.
    Bytes(Size),
}

const APP_HINT: &str = r#"expected "greedy" or { bytes = "1 MB" }"#;

/// By hand, so that a wrong form gets one message naming both right ones.
impl<'de> Deserialize<'de> for App {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{self, MapAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = App;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(APP_HINT)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<App, E> {
                match v {
                    "greedy" => Ok(App::Greedy),
                    _ => Err(E::custom(format!("unknown app {v:?}; {APP_HINT}"))),
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<App, A::Error> {
                let mut bytes = None;
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "bytes" if bytes.is_none() => bytes = Some(map.next_value::<Size>()?),
                        _ => {
                            return Err(de::Error::custom(format!(
                                "unknown field `{key}`, expected `bytes`"
                            )))
                        }
                    }
                }
                bytes
                    .map(App::Bytes)
                    .ok_or_else(|| de::Error::custom(format!("missing field `bytes`; {APP_HINT}")))
            }
        }
        d.deserialize_any(V)
    }
}

/// One TCP connection: a data VC from `from` through the switches `via` to `to`, and an ACK
/// VC back along the same nodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConnectionConfig {
    pub name: String,
    /// Source host.
    pub from: String,
    /// Destination host.
    pub to: String,
    /// Switches in order; each consecutive pair of `from, via..., to` must share a link.
    #[serde(default)]
    pub via: Vec<String>,
    /// The VC's service category: `"ubr"`, `"gfr"`, `"cbr"`, `"vbr"` (`"abr"` is not built yet).
    #[serde(default = "defaults::connection_service")]
    pub service: Service,
    /// Peak cell rate: the source adapter never sends the VC's cells faster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcr: Option<Rate>,
    /// Sustainable cell rate (VBR).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scr: Option<Rate>,
    /// Maximum burst size (VBR, GFR).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mbs: Option<Cells>,
    /// Minimum cell rate (GFR).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcr: Option<Rate>,
    /// Maximum frame size (GFR).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mfs: Option<Cells>,
    /// What feeds the VC: `"tcp"` (the default: a TCP connection, ACKs back on a reverse
    /// VC), `"greedy"`, `{ kind = "cbr", rate = ... }` or
    /// `{ kind = "on_off", rate = ..., period = ..., duty_cycle = ... }`.
    #[serde(default = "defaults::connection_source")]
    pub source: SourceConfig,
    /// The TCP application (TCP sources only).
    #[serde(default = "defaults::connection_app")]
    pub app: App,
    /// Earliest start.
    #[serde(default = "defaults::connection_start")]
    pub start: Time,
    /// The start is drawn uniformly from `[start, start + start_jitter]`.
    #[serde(default = "defaults::connection_start_jitter")]
    pub start_jitter: Time,
    /// This connection's own TCP settings; the rest come from `[tcp]`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub tcp: TcpOverride,
    /// This connection's own ABR settings (ABR connections only); the rest come from `[abr]`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub abr: AbrOverride,
    /// The data VC's share of the buffers it crosses, for the per-VC buffer policies
    /// (`threshold`, `gfr`): `{ threshold = "611 cells", weight = 1.0 }`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub share: ShareConfig,
    /// The CLP bit of the data VC's cells: 1 tags them low priority (GFR's tagged frames).
    #[serde(default, skip_serializing_if = "is_default")]
    pub clp: u8,
}

/// A VC's share of a FIFO buffer: its threshold (Goyal et al.'s r_i / R_i) and its weight in
/// the GFR policy's drop probability (W_i).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShareConfig {
    /// `"N cells"`; none: the VC has no threshold of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<Cells>,
    /// W_i, at least 0.
    #[serde(default = "defaults::share_weight")]
    pub weight: f64,
}

impl Default for ShareConfig {
    fn default() -> Self {
        ShareConfig {
            threshold: None,
            weight: defaults::share_weight(),
        }
    }
}

/// A service category (ATM Forum TM 4.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Service {
    Cbr,
    Vbr,
    Abr,
    Ubr,
    Gfr,
}

/// What feeds a connection's VC, `source = "tcp"` or `{ kind = ..., ... }`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SourceConfig {
    /// A TCP connection over AAL5.
    Tcp(TcpSourceConfig),
    /// Cells at a constant rate.
    Cbr(CbrConfig),
    /// Cells at `rate` during `duty_cycle` of every `period`, ON first.
    OnOff(OnOffConfig),
    /// Cells as fast as the adapter sends them (the link rate or the VC's PCR).
    Greedy(GreedyConfig),
}

/// `kind = "tcp"`: the TCP settings are the connection's `tcp` table and `[tcp]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpSourceConfig {}

/// `kind = "greedy"` takes no parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GreedyConfig {}

/// `kind = "cbr"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CbrConfig {
    /// The cell rate; the connection's `pcr` when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
}

/// `kind = "on_off"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnOffConfig {
    /// The rate while ON (the amplitude); the connection's `pcr` when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// ON plus OFF.
    pub period: Time,
    /// The share of each period that is ON, in (0, 1].
    pub duty_cycle: f64,
    /// `"fixed"`: every ON and OFF lasts its share of `period`; `"exponential"`: each is
    /// drawn with that mean.
    #[serde(default = "defaults::on_off_durations")]
    pub durations: OnOffDurations,
}

const SOURCE_HINT: &str = r#"expected "tcp", "greedy", "cbr" or a table such as { kind = "on_off", period = "10 ms", duty_cycle = 0.5 }"#;

impl SourceConfig {
    /// A complete `source` table of the kind named `kind` (quoted when a scenario's table
    /// misses one of its keys).
    pub fn example(kind: &str) -> Option<&'static str> {
        Some(match kind {
            "tcp" => r#"{ kind = "tcp" }"#,
            "greedy" => r#"{ kind = "greedy" }"#,
            "cbr" => r#"{ kind = "cbr", rate = "10 Mb/s" }"#,
            "on_off" => {
                r#"{ kind = "on_off", rate = "100 Mb/s", period = "10 ms", duty_cycle = 0.5 }"#
            }
            _ => return None,
        })
    }
}

/// Mirrors [`SourceConfig`] for the table form (serde's own messages for its fields).
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum SourceTable {
    Tcp(TcpSourceConfig),
    Cbr(CbrConfig),
    OnOff(OnOffConfig),
    Greedy(GreedyConfig),
}

/// By hand, so that `"tcp"` and `{ kind = "tcp" }` are both accepted.
impl<'de> Deserialize<'de> for SourceConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{self, MapAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SourceConfig;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(SOURCE_HINT)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<SourceConfig, E> {
                match v {
                    "tcp" => Ok(SourceConfig::Tcp(TcpSourceConfig {})),
                    "greedy" => Ok(SourceConfig::Greedy(GreedyConfig {})),
                    "cbr" => Ok(SourceConfig::Cbr(CbrConfig { rate: None })),
                    "on_off" => Err(E::custom(
                        r#"an ON-OFF source needs its period and duty cycle: { kind = "on_off", period = "10 ms", duty_cycle = 0.5 }"#,
                    )),
                    _ => Err(E::custom(format!("unknown source {v:?}; {SOURCE_HINT}"))),
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<SourceConfig, A::Error> {
                let t = SourceTable::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(match t {
                    SourceTable::Tcp(c) => SourceConfig::Tcp(c),
                    SourceTable::Cbr(c) => SourceConfig::Cbr(c),
                    SourceTable::OnOff(c) => SourceConfig::OnOff(c),
                    SourceTable::Greedy(c) => SourceConfig::Greedy(c),
                })
            }
        }
        d.deserialize_any(V)
    }
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_replace_only_what_they_set() {
        let base = TcpConfig::default();
        let o = TcpOverride {
            mss: Some(Size(64)),
            ..Default::default()
        };
        let merged = base.with(&o);
        assert_eq!(merged.mss, Size(64));
        assert_eq!(merged.max_window, base.max_window);
        assert!(o.sets("mss") && !o.sets("max_window"));
    }

    #[test]
    fn unit_policy_variant_refuses_stray_keys() {
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct T {
            policy: PolicyConfig,
        }
        let e =
            toml::from_str::<T>("policy = { kind = \"cell_drop\", threshold = 3 }").unwrap_err();
        assert!(e.message().contains("unknown field `threshold`"), "{e}");
        let e = toml::from_str::<T>("policy = { kind = \"epd\" }").unwrap_err();
        assert!(e.message().contains("threshold"), "{e}");
        let e = toml::from_str::<T>("policy = { kind = \"no_such_policy\" }").unwrap_err();
        assert!(
            e.message().contains("cell_drop") && e.message().contains("espd"),
            "{e}"
        );
        let e =
            toml::from_str::<T>("policy = { kind = \"espd\", high = 0.9, lo = 0.8 }").unwrap_err();
        assert!(e.message().contains("lo"), "{e}");
    }
}
