//! Admission policies: which arriving cells a port refuses.
//!
//! A policy decides, the port acts (ns-3's queue discs, INET's packet droppers): on each
//! arriving AAL5 data cell the port shows its policy the current time and a [`PortView`] of
//! its buffer and asks for a [`Verdict`]; the port then stores, drops or purges, and counts the
//! drop under its [`DropReason`]. Each policy is one file under `policy/` with three things:
//! - a config struct, deserialised directly from the scenario's `policy = { kind = ..., ... }`
//!   (`deny_unknown_fields`, even when empty, so a misspelt key is an error; quantities with a
//!   unit as `atmsim_units` types), with its defaults and a [`AdmissionPolicy::check`] of its
//!   values;
//! - the policy's state for one port (per-VC frame state, counters, a random stream, ...);
//! - [`AdmissionPolicy::on_arrival`] and, if it needs them, the other hooks.
//!
//! Adding a policy is one new file and one line in the [`policies!`] list below (which
//! declares the module and adds it to [`PolicyConfig`] and [`Policy`]); nothing in the
//! scenario crate or the wiring.
//!
//! A policy gets, at its port's creation, what it needs to know of the port ([`PortInfo`]: the
//! outgoing link's cell time) and its own random stream (derived from the run seed and the
//! port, so it never shifts another component's numbers), and for each VC added to the port
//! the VC's [`VcShare`]: the per-VC threshold and weight of the policies that give VCs shares
//! of one FIFO buffer (Goyal et al. 1998's threshold and GFR policies). A VC carrying several
//! merged connections has one share.
//!
//! Time-aware policies (state that decays while the queue idles, such as RED's average queue)
//! read `now` at each arrival and set [`AdmissionPolicy::WANTS_DEPARTURES`]: the port then
//! calls [`AdmissionPolicy::on_departure`] each time a cell of an AAL5 VC leaves its buffer
//! for the link, with a view of the buffer after it left (so the policy knows when the queue
//! of the cells it sees went empty).
//! The port reads that flag once, at its creation: a policy that leaves it `false` costs a
//! departure one untaken branch and never a call.
//!
//! Cells that are not AAL5 data (RM cells, cells of non-AAL5 sources) never reach a policy:
//! the port admits them whenever their buffer has room, so they never open, close or cut a
//! frame (see [`crate::port::Port::offer`]).
//!
//! Frame state is resynchronised on every EOM cell, dropped or not: the cell after an EOM is
//! the first cell of the next frame of that VC.

use crate::cell::Cell;
use crate::ids::Label;
use crate::plugin::{self, PluginConfig, PluginKind, PluginPolicy};
use atmsim_engine::{RngStream, SimTime};
use serde::{Deserialize, Serialize};

/// Why a cell was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum DropReason {
    /// The VC's own buffer at the port was full.
    VcBufferFull = 0,
    /// The port's shared buffer was full.
    PortBufferFull = 1,
    /// The rest of a frame that already lost a cell (PPD, drop-whole, EPD fallback).
    FrameTail = 2,
    /// A queued cell removed because its frame lost a cell (drop-whole).
    Purged = 3,
    /// A new frame refused at its first cell (EPD).
    EarlyDiscard = 4,
    /// A cell of a VC in ESPD red state.
    Selective = 5,
}

impl DropReason {
    pub const COUNT: usize = 6;
    pub const ALL: [DropReason; Self::COUNT] = [
        DropReason::VcBufferFull,
        DropReason::PortBufferFull,
        DropReason::FrameTail,
        DropReason::Purged,
        DropReason::EarlyDiscard,
        DropReason::Selective,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DropReason::VcBufferFull => "vc_buffer_full",
            DropReason::PortBufferFull => "port_buffer_full",
            DropReason::FrameTail => "frame_tail",
            DropReason::Purged => "purged",
            DropReason::EarlyDiscard => "early_discard",
            DropReason::Selective => "selective",
        }
    }
}

/// What the admission policy decided for an arriving cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Accept,
    /// Accept the cell with its EFCI bit set (a policy that marks instead of dropping: RED
    /// with `ecn_mark`).
    AcceptMarked,
    Drop(DropReason),
    /// Drop the cell and remove the cells of its frame still queued at the port.
    DropAndPurge(DropReason),
}

/// What a policy reads of the port's buffer when a cell arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortView {
    /// Cells queued in the arriving cell's class (the whole port under a one-class scheduler).
    pub occupancy: u32,
    /// The size of that queue [cells]; `u32::MAX` = unlimited.
    pub port_limit: u32,
    /// Cells of the arriving cell's VC queued at the port.
    pub vc_count: u32,
    /// The per-VC limit [cells]; `u32::MAX` = unlimited.
    pub vc_limit: u32,
    /// VCs with at least one cell queued in the arriving cell's class (the arriving cell's
    /// own VC included if it has cells queued).
    pub active_vcs: u32,
}

impl PortView {
    /// Why a cell would not fit, if it would not.
    #[inline(always)]
    pub fn full(&self) -> Option<DropReason> {
        if self.vc_count >= self.vc_limit {
            Some(DropReason::VcBufferFull)
        } else if self.occupancy >= self.port_limit {
            Some(DropReason::PortBufferFull)
        } else {
            None
        }
    }

    /// (level, size) of the buffer that thresholds refer to: the shared port buffer if it is
    /// bounded, else the VC's own buffer.
    #[inline]
    pub fn reference(&self) -> (u32, u32) {
        if self.port_limit != u32::MAX {
            (self.occupancy, self.port_limit)
        } else {
            (self.vc_count, self.vc_limit)
        }
    }

    /// Whether the reference buffer is at or above `fraction` of its size.
    #[inline]
    pub fn at_or_above(&self, fraction: f64) -> bool {
        let (level, size) = self.reference();
        size != u32::MAX && level as f64 >= fraction * size as f64
    }

    /// Whether the reference buffer is above `fraction` of its size.
    #[inline]
    pub fn above(&self, fraction: f64) -> bool {
        let (level, size) = self.reference();
        size != u32::MAX && level as f64 > fraction * size as f64
    }
}

/// What a policy learns of its port when the port is created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortInfo {
    /// The time one cell takes on the port's outgoing link.
    pub cell_time: SimTime,
}

/// A VC's share of a port's buffer, for the policies that manage a FIFO buffer per VC.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VcShare {
    /// The VC's buffer threshold [cells] (Goyal et al.'s r_i or R_i); `None`: the VC has no
    /// threshold of its own, and only the port-wide rules apply to it.
    pub threshold: Option<u32>,
    /// The VC's weight in the GFR policy's drop probability (W_i).
    pub weight: f64,
}

impl Default for VcShare {
    fn default() -> Self {
        VcShare {
            threshold: None,
            weight: 1.0,
        }
    }
}

/// A policy parameter the scenario layer must refuse: the field (a key of the policy's
/// table) and what is wrong with it, saying what is allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub field: &'static str,
    pub message: String,
}

impl Invalid {
    /// `x` must be a fraction of the buffer in (0, 1].
    pub fn fraction(field: &'static str, x: f64) -> Result<(), Invalid> {
        if x > 0.0 && x <= 1.0 {
            Ok(())
        } else {
            Err(Invalid {
                field,
                message: format!(
                    "{x} is not a fraction of the buffer: allowed 0 < {field} <= 1 (e.g. 0.95)"
                ),
            })
        }
    }

    /// `x` must be a finite number in [lo, hi].
    pub fn within(field: &'static str, x: f64, lo: f64, hi: f64) -> Result<(), Invalid> {
        if x.is_finite() && (lo..=hi).contains(&x) {
            Ok(())
        } else {
            Err(Invalid {
                field,
                message: format!("{x} is out of range: allowed {lo} <= {field} <= {hi}"),
            })
        }
    }
}

/// The per-VC state of the frame-aware policies at one port (resynchronised on every EOM).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameState {
    /// The next cell of this VC starts a frame.
    pub expect_first: bool,
    /// Drop the rest of the current frame.
    pub discarding: bool,
    /// Whether the EOM of the frame being discarded is dropped too.
    pub drop_eom: bool,
}

impl Default for FrameState {
    fn default() -> Self {
        FrameState {
            expect_first: true,
            discarding: false,
            drop_eom: false,
        }
    }
}

impl FrameState {
    /// Notes the arrival of `cell`; returns (it starts a frame, it ends one).
    #[inline]
    pub fn track(&mut self, cell: &Cell) -> (bool, bool) {
        let first = self.expect_first;
        let eom = cell.is_eom();
        self.expect_first = eom;
        (first, eom)
    }

    /// The step every early-discard policy shares, after its decision at a frame's first
    /// cell: `refuse` (given only at a first cell) drops the whole frame, its EOM included;
    /// the rest of a refused frame follows it; an admitted frame that overflows the buffer
    /// falls back to partial packet discard (EOM kept).
    #[inline]
    pub fn early_discard(
        &mut self,
        view: PortView,
        first: bool,
        eom: bool,
        refuse: Option<DropReason>,
    ) -> Verdict {
        if let (true, false, Some(reason)) = (first, self.discarding, refuse) {
            self.discarding = !eom;
            self.drop_eom = true;
            return Verdict::Drop(reason);
        }
        if self.discarding && self.drop_eom {
            if eom {
                self.discarding = false;
                self.drop_eom = false;
            }
            return Verdict::Drop(DropReason::EarlyDiscard);
        }
        Ppd::decide(view, self, eom, true)
    }
}

/// One admission policy: its config, its state at one port, its decisions.
pub trait AdmissionPolicy: Sized {
    /// The scenario's `policy = { kind = ..., ... }` table for this policy.
    type Config;

    /// A complete `policy` table for this policy, as a scenario writes it (quoted when a
    /// scenario's table misses one of its keys).
    const EXAMPLE: &'static str;

    /// The policy's state at a new port, with what it needs of the port and the port's own
    /// random stream.
    fn new(config: &Self::Config, port: &PortInfo, rng: RngStream) -> Self;

    /// Refuses impossible parameter values (the scenario layer reports them with the field).
    fn check(_config: &Self::Config) -> Result<(), Invalid> {
        Ok(())
    }

    /// Whether the policy looks at more than whether the cell fits. A policy that does not
    /// (cell drop) is decided by the port itself, without a call.
    const FRAME_AWARE: bool = true;

    /// Whether the policy needs a bounded port buffer (its thresholds are fractions of it).
    const NEEDS_PORT_BUFFER: bool = false;

    /// A VC was added to the port (its label is the number of VCs added before it), with
    /// its share of the buffer.
    fn add_vc(&mut self, _share: &VcShare) {}

    /// Decides the fate of an AAL5 data cell of VC `label` arriving at time `now`.
    fn on_arrival(&mut self, now: SimTime, view: PortView, label: Label, cell: &Cell) -> Verdict;

    /// Whether the port tells the policy of departures ([`AdmissionPolicy::on_departure`]).
    /// Read once, when the port is created.
    const WANTS_DEPARTURES: bool = false;

    /// A cell of VC `label`, an AAL5 VC (a data or an RM cell: the port does not tell the
    /// policy of the cells of VCs whose cells it never sees, such as a VBR source's), left
    /// the buffer for the link at time `now`; `after` is the buffer as the next cell of that
    /// VC and class would find it (`after.occupancy == 0`: the cell's queue went empty).
    /// Called only for policies that set [`AdmissionPolicy::WANTS_DEPARTURES`].
    #[inline(always)]
    fn on_departure(&mut self, _now: SimTime, _after: PortView, _label: Label) {}
}

/// Declares the policy modules and the two closed enums over them: the config the scenario
/// deserialises (`kind` = the variant's snake_case name) and the per-port state that the
/// port calls with one `match` per cell.
macro_rules! policies {
    ($( $(#[$doc:meta])* $variant:ident($module:ident :: $state:ident, $config:ident), )*) => {
        $( pub mod $module; pub use $module::{$state, $config}; )*

        /// The admission policy of a port, as the scenario writes it.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        pub enum PolicyConfig {
            $( $(#[$doc])* $variant($config), )*
            /// A plug-in: `{ kind = "python", class = "module:Class", params = { ... } }`
            /// (see [`crate::plugin`]).
            Python(PluginConfig),
        }

        /// A policy's state at one port.
        #[derive(Debug)]
        pub enum Policy {
            $( $variant($state), )*
            Python(Box<PluginPolicy>),
        }

        impl PolicyConfig {
            /// Refuses impossible parameter values.
            pub fn check(&self) -> Result<(), Invalid> {
                match self {
                    $( PolicyConfig::$variant(c) => <$state as AdmissionPolicy>::check(c), )*
                    PolicyConfig::Python(c) => plugin::check(PluginKind::Policy, c),
                }
            }

            /// The `kind` names, in declaration order.
            pub const KINDS: &'static [&'static str] = &[$( stringify!($module), )* "python"];

            /// A complete `policy` table of the policy named `kind`, if there is one.
            pub fn example(kind: &str) -> Option<&'static str> {
                match kind {
                    $( stringify!($module) => Some(<$state as AdmissionPolicy>::EXAMPLE), )*
                    "python" => Some(PYTHON_EXAMPLE),
                    _ => None,
                }
            }

            /// The `kind` name.
            pub fn kind(&self) -> &'static str {
                match self {
                    $( PolicyConfig::$variant(_) => stringify!($module), )*
                    PolicyConfig::Python(_) => "python",
                }
            }

            /// See [`AdmissionPolicy::NEEDS_PORT_BUFFER`].
            pub fn needs_port_buffer(&self) -> bool {
                match self {
                    $( PolicyConfig::$variant(_) => <$state as AdmissionPolicy>::NEEDS_PORT_BUFFER, )*
                    PolicyConfig::Python(_) => false,
                }
            }
        }

        impl Policy {
            pub fn new(config: &PolicyConfig, port: &PortInfo, rng: RngStream) -> Self {
                match config {
                    $( PolicyConfig::$variant(c) => Policy::$variant(<$state as AdmissionPolicy>::new(c, port, rng)), )*
                    PolicyConfig::Python(c) => {
                        let mut rng = rng;
                        Policy::Python(Box::new(PluginPolicy::new(c, rng.next_u64())))
                    }
                }
            }

            /// See [`AdmissionPolicy::WANTS_DEPARTURES`].
            pub fn wants_departures(&self) -> bool {
                match self {
                    $( Policy::$variant(_) => <$state as AdmissionPolicy>::WANTS_DEPARTURES, )*
                    Policy::Python(p) => p.wants_departures(),
                }
            }

            /// See [`AdmissionPolicy::FRAME_AWARE`].
            pub fn frame_aware(&self) -> bool {
                match self {
                    $( Policy::$variant(_) => <$state as AdmissionPolicy>::FRAME_AWARE, )*
                    Policy::Python(_) => true,
                }
            }

            #[inline]
            pub fn add_vc(&mut self, share: &VcShare) {
                match self {
                    $( Policy::$variant(p) => p.add_vc(share), )*
                    Policy::Python(p) => p.add_vc(share),
                }
            }

            #[inline(always)]
            pub fn on_arrival(&mut self, now: SimTime, view: PortView, label: Label, cell: &Cell) -> Verdict {
                match self {
                    $( Policy::$variant(p) => p.on_arrival(now, view, label, cell), )*
                    Policy::Python(p) => p.on_arrival(now, view, label, cell),
                }
            }

            /// Only for a policy whose [`Policy::wants_departures`] (the port checks).
            #[inline]
            pub fn on_departure(&mut self, now: SimTime, after: PortView, label: Label) {
                match self {
                    $( Policy::$variant(p) => p.on_departure(now, after, label), )*
                    Policy::Python(p) => p.on_departure(now, after, label),
                }
            }
        }
    };
}

policies! {
    /// A cell that finds its queue full is dropped; nothing else.
    CellDrop(cell_drop::CellDrop, CellDropConfig),
    /// Partial packet discard (Fang's "drop-tail").
    Ppd(ppd::Ppd, PpdConfig),
    /// Fang's "drop-whole": a frame that overflows is removed whole.
    DropWhole(drop_whole::DropWhole, DropWholeConfig),
    /// Early packet discard.
    Epd(epd::Epd, EpdConfig),
    /// Early selective packet discard (Cheon & Panwar 1998).
    Espd(espd::Espd, EspdConfig),
    /// Goyal et al. 1998 section 3: one frame of a VC dropped each time its occupancy
    /// crosses its threshold.
    Threshold(threshold::Threshold, ThresholdConfig),
    /// Goyal et al. 1998 section 4: the GFR buffer management policy.
    Gfr(gfr::Gfr, GfrConfig),
    /// Selective Drop (Goyal et al., UBR+): a VC's frames are refused above the threshold
    /// when it holds more than its fair share.
    SelectiveDrop(selective_drop::SelectiveDrop, SelectiveDropConfig),
    /// Fair Buffer Allocation (Heinanen & Kilkki): Selective Drop with a share that shrinks
    /// as the buffer fills.
    Fba(fba::Fba, FbaConfig),
    #[doc = "Random Early Detection (Floyd & Jacobson 1993), by frames."] Red(red::Red, RedConfig),
}

/// A complete `policy` table of a plug-in.
const PYTHON_EXAMPLE: &str =
    r#"{ kind = "python", class = "python_epd:PythonEpd", params = { threshold = 0.9 } }"#;

impl Default for PolicyConfig {
    fn default() -> Self {
        PolicyConfig::CellDrop(CellDropConfig {})
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Feeding frames to a policy without a network.
    use super::*;
    use crate::ids::VcId;

    /// A port view of a shared FIFO of `port_limit` cells holding `occupancy`, `vc_count` of
    /// them the arriving cell's VC's, `active_vcs` VCs with cells queued.
    pub fn shared_view(
        occupancy: u32,
        port_limit: u32,
        vc_count: u32,
        active_vcs: u32,
    ) -> PortView {
        PortView {
            occupancy,
            port_limit,
            vc_count,
            vc_limit: u32::MAX,
            active_vcs,
        }
    }

    /// A policy's random stream for tests.
    pub fn rng(seed: u64) -> atmsim_engine::RngStream {
        atmsim_engine::RngStreams::new(seed).stream(0)
    }

    /// The port of the policy tests: a link of 1 us per cell.
    pub fn port_info() -> PortInfo {
        PortInfo {
            cell_time: SimTime::from_us(1),
        }
    }

    /// A one-VC buffer fed by hand: the policy decides, this keeps the count, the queue and the
    /// clock ([`Bench::now`], moved by the test), and tells the policy of departures.
    pub struct Bench {
        pub policy: Policy,
        pub queue: Vec<Cell>,
        pub limit: u32,
        pub drops: [u64; DropReason::COUNT],
        /// Cells the policy admitted marked with EFCI.
        pub marked: u64,
        /// The time of the next arrival or departure.
        pub now: SimTime,
    }

    impl Bench {
        pub fn new(config: PolicyConfig, limit: u32) -> Self {
            let mut policy = Policy::new(&config, &port_info(), rng(1));
            policy.add_vc(&VcShare::default());
            Bench {
                policy,
                queue: Vec::new(),
                limit,
                marked: 0,
                drops: [0; DropReason::COUNT],
                now: SimTime::ZERO,
            }
        }

        /// What a cell arriving now finds.
        fn view(&self) -> PortView {
            let n = self.queue.len() as u32;
            PortView {
                occupancy: n,
                port_limit: u32::MAX,
                vc_count: n,
                vc_limit: self.limit,
                active_vcs: u32::from(n > 0),
            }
        }

        /// Offers one cell; returns whether it was kept.
        pub fn offer(&mut self, cell: Cell) -> bool {
            match self.policy.on_arrival(self.now, self.view(), 0, &cell) {
                Verdict::Accept => {
                    self.queue.push(cell);
                    true
                }
                Verdict::AcceptMarked => {
                    let mut cell = cell;
                    cell.set_efci();
                    self.marked += 1;
                    self.queue.push(cell);
                    true
                }
                Verdict::Drop(r) => {
                    self.drops[r as usize] += 1;
                    false
                }
                Verdict::DropAndPurge(r) => {
                    self.drops[r as usize] += 1;
                    let before = self.queue.len();
                    self.queue.retain(|c| c.frame != cell.frame);
                    self.drops[DropReason::Purged as usize] += (before - self.queue.len()) as u64;
                    false
                }
            }
        }

        /// Sends the oldest queued cell now (telling the policy, as a port does, if it wants
        /// departures).
        pub fn depart(&mut self) -> Option<Cell> {
            if self.queue.is_empty() {
                return None;
            }
            let cell = self.queue.remove(0);
            if self.policy.wants_departures() {
                let after = self.view();
                self.policy.on_departure(self.now, after, 0);
            }
            Some(cell)
        }

        /// Offers frames of the given lengths, numbered from 0; returns the frame numbers of
        /// the cells left queued.
        pub fn feed(&mut self, frames: &[u32]) -> Vec<u32> {
            for (f, &len) in frames.iter().enumerate() {
                for i in 0..len {
                    let flags = if i + 1 == len { Cell::EOM } else { 0 };
                    self.offer(Cell::data(VcId(0), f as u32, 0, flags));
                }
            }
            self.queue.iter().map(|c| c.frame).collect()
        }

        pub fn dropped(&self) -> u64 {
            self.drops.iter().sum()
        }
    }
}
