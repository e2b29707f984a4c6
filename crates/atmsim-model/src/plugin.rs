//! Plug-ins: an admission policy or an ABR rate-control scheme written outside the model
//! (in Python, by the `atmsim._core` bindings), run through the same port hooks as the
//! built-in ones.
//!
//! The model knows nothing of Python. A scenario names a plug-in by a class
//! (`policy = { kind = "python", class = "mymod:MyPolicy", params = { ... } }`, likewise
//! `rate_control`); the model keeps the table ([`PluginConfig`]) and, when a network is
//! built, asks a [`PluginHost`] for each port's instance: a [`DynPolicy`] or a
//! [`DynRateControl`], boxed behind one new case of [`crate::port::policy::Policy`] and
//! [`crate::abr::RateControl`]. The built-in policies and schemes keep their own cases, so
//! they run as before (the plug-in case is one more arm of the match they already take).
//!
//! What stays in Rust, so that a plug-in is called only where it decides something:
//! - a policy plug-in in frame mode (the default) is called at each AAL5 frame's first cell
//!   and says whether to refuse the frame; the rest of a refused frame, and partial packet
//!   discard of an admitted frame that overflows the buffer, are Rust's
//!   ([`FrameState::early_discard`], as the built-in EPD composes them). A plug-in that asks
//!   for every cell (per-cell mode) decides each cell, and a cell it accepts that does not
//!   fit is still dropped as full;
//! - a rate-control plug-in's measurement interval is counted in Rust: the ABR cells entering
//!   the port (in all and per VC) and the CBR/VBR cells leaving it; the interval ends after the
//!   plug-in's cell count or its time, whichever comes first, and the plug-in gets the counts.
//!   It is called at forward RM cells (the CCR), at backward RM cells (the feedback: it may
//!   only lower the ER, and set CI or NI) and at the end of each interval; per ABR cell only
//!   if it asks.
//!
//! A network built without a host ([`crate::Network::new`], the Rust-only paths) refuses a
//! plug-in with [`crate::ModelError::PluginUnavailable`]; the scenario layer refuses it earlier
//! through [`check`] unless a checker was installed ([`set_checker`], by the bindings).

use std::sync::OnceLock;

use crate::abr::RateStats;
use crate::cell::{Cell, RmFields};
use crate::ids::Label;
use crate::port::policy::{DropReason, FrameState, Invalid, PortView, VcShare, Verdict};
use atmsim_engine::SimTime;
use serde::{Deserialize, Serialize};

/// A plug-in's table in a scenario: `{ kind = "python", class = "module:Class", params = {} }`
/// (the `kind` is the enum's tag).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginConfig {
    /// `module:Class`, importable.
    pub class: String,
    /// Handed to the class's constructor as a dict.
    #[serde(default)]
    pub params: serde_json::Map<String, serde_json::Value>,
}

/// Which hook set a plug-in implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PluginKind {
    Policy,
    RateControl,
}

impl PluginKind {
    /// The scenario key the plug-in is named under.
    pub fn key(self) -> &'static str {
        match self {
            PluginKind::Policy => "policy",
            PluginKind::RateControl => "rate_control",
        }
    }
}

/// Checks a plug-in's table when a scenario is loaded (importable class, the hooks present).
pub type Checker = fn(PluginKind, &PluginConfig) -> Result<(), Invalid>;

static CHECKER: OnceLock<Checker> = OnceLock::new();

/// Installs the checker of plug-in tables (once per process; later calls are ignored).
pub fn set_checker(checker: Checker) {
    let _ = CHECKER.set(checker);
}

/// Checks a plug-in table: the syntax of `class` here, the rest by the installed checker;
/// without one (a program with no Python) the plug-in is refused.
pub fn check(kind: PluginKind, c: &PluginConfig) -> Result<(), Invalid> {
    let well_formed = c
        .class
        .split_once(':')
        .is_some_and(|(m, k)| !m.is_empty() && !k.is_empty() && !k.contains(':'));
    if !well_formed {
        return Err(Invalid {
            field: "class",
            message: format!(
                "{:?} is not a class name: allowed \"module:Class\" (e.g. \"mymod:MyPolicy\"), \
                 the module importable",
                c.class
            ),
        });
    }
    match CHECKER.get() {
        Some(f) => f(kind, c),
        None => Err(Invalid {
            field: "kind",
            message: unavailable(&c.class),
        }),
    }
}

/// Why a plug-in cannot run here.
pub fn unavailable(class: &str) -> String {
    format!(
        "the python plug-in {class} runs only from Python (the atmsim command or the atmsim \
         package); this program has no Python interpreter"
    )
}

/// What a plug-in learns of its port when it is made.
#[derive(Debug, Clone)]
pub struct PluginPort {
    /// `node->next`.
    pub name: String,
    /// The time one cell takes on the port's link.
    pub cell_time: SimTime,
    /// The link's rate [cells/s].
    pub link_rate: f64,
    /// The seed of the plug-in's own random stream (derived from the run seed and the port).
    pub seed: u64,
}

/// Makes the plug-ins of one network: one instance per port.
pub trait PluginHost {
    /// The admission policy of a port.
    fn policy(&self, c: &PluginConfig, port: &PluginPort) -> Result<Box<dyn DynPolicy>, String>;
    /// The rate control of a port, and its measurement interval.
    fn rate_control(
        &self,
        c: &PluginConfig,
        port: &PluginPort,
    ) -> Result<(Box<dyn DynRateControl>, Interval), String>;
}

/// A plug-in admission policy at one port. A hook that fails (a Python exception) records
/// its error with its host and returns what leaves the run sound (accept, or no change); the
/// caller stops the run.
pub trait DynPolicy: Send {
    /// A VC was added to the port (its label is the number of VCs added before it).
    fn add_vc(&mut self, label: Label, share: &VcShare);
    /// Whether the plug-in decides every AAL5 data cell ([`DynPolicy::on_cell`]) instead of
    /// each frame's first ([`DynPolicy::on_frame`]).
    fn per_cell(&self) -> bool;
    /// A frame of VC `label` starts at `now`: `Some(reason)` refuses it whole.
    fn on_frame(&mut self, now: SimTime, view: PortView, label: Label) -> Option<DropReason>;
    /// Per-cell mode: the fate of an AAL5 data cell.
    fn on_cell(
        &mut self,
        now: SimTime,
        view: PortView,
        label: Label,
        first: bool,
        last: bool,
    ) -> Verdict;
    /// Whether the port tells the plug-in of departures.
    fn wants_departures(&self) -> bool;
    /// A cell of AAL5 VC `label` left the buffer (see
    /// [`crate::port::policy::AdmissionPolicy::on_departure`]).
    fn on_departure(&mut self, now: SimTime, after: PortView, label: Label);
}

/// When a rate-control plug-in's measurement interval ends: after `time` or after `cells` ABR
/// cells (0: no count), whichever comes first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub time: SimTime,
    pub cells: u32,
}

/// What was counted in a measurement interval.
#[derive(Debug, Clone, Copy)]
pub struct Measured<'a> {
    /// The interval's length.
    pub duration: SimTime,
    /// ABR cells (data and RM) that entered the port.
    pub abr_cells: u64,
    /// CBR and VBR cells the port sent.
    pub rt_cells: u64,
    /// ABR cells per VC (by label).
    pub vc_cells: &'a [u32],
}

/// A plug-in rate-control scheme at one port (the hooks of
/// [`crate::abr::RateControlScheme`], with the counting done in Rust).
pub trait DynRateControl: Send {
    /// A VC was added to the port.
    fn add_vc(&mut self, vc: usize);
    /// Whether the plug-in is shown every ABR cell entering the port.
    fn per_cell(&self) -> bool;
    /// An ABR cell of VC `vc` enters the port with `queue` cells in the ABR queue (per-cell
    /// mode only).
    fn on_abr_cell(&mut self, vc: usize, queue: u32, cell: &Cell);
    /// A forward RM cell of VC `vc` passes (fields read-only to the plug-in, as TM 4.0 lets a
    /// switch change only the backward cell).
    fn on_forward_rm(&mut self, vc: usize, queue: u32, fields: &RmFields);
    /// A backward RM cell of VC `vc` passes: the plug-in may lower `fields.er`, set CI, NI.
    fn on_backward_rm(&mut self, vc: usize, queue: u32, fields: &mut RmFields);
    /// The interval ends at `now` with `queue` cells in the ABR queue.
    fn end_interval(&mut self, now: SimTime, queue: u32, m: &Measured<'_>);
    /// What the plug-in reports for the series, if anything.
    fn stats(&self) -> Option<RateStats>;
}

/// A port's plug-in admission policy: the frame state kept in Rust, the decisions by the
/// plug-in. Until the network binds it to its host it has no instance and admits nothing
/// (a network never runs unbound: [`crate::Network::with_plugins`] refuses).
pub struct PluginPolicy {
    pub config: PluginConfig,
    pub(crate) inner: Option<Box<dyn DynPolicy>>,
    /// The VCs' shares as added before the binding (replayed to the instance).
    shares: Vec<VcShare>,
    vcs: Vec<FrameState>,
    per_cell: bool,
    pub seed: u64,
}

impl std::fmt::Debug for PluginPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginPolicy")
            .field("class", &self.config.class)
            .field("bound", &self.inner.is_some())
            .finish()
    }
}

impl PluginPolicy {
    pub fn new(config: &PluginConfig, seed: u64) -> Self {
        PluginPolicy {
            config: config.clone(),
            inner: None,
            shares: Vec::new(),
            vcs: Vec::new(),
            per_cell: false,
            seed,
        }
    }

    /// Gives the policy its instance (and the VCs added so far).
    pub fn bind(&mut self, mut inner: Box<dyn DynPolicy>) {
        for (label, share) in self.shares.iter().enumerate() {
            inner.add_vc(label as Label, share);
        }
        self.per_cell = inner.per_cell();
        self.inner = Some(inner);
    }

    pub fn is_bound(&self) -> bool {
        self.inner.is_some()
    }

    pub fn wants_departures(&self) -> bool {
        self.inner.as_ref().is_some_and(|p| p.wants_departures())
    }

    pub fn add_vc(&mut self, share: &VcShare) {
        let label = self.vcs.len() as Label;
        self.vcs.push(FrameState::default());
        self.shares.push(*share);
        if let Some(p) = &mut self.inner {
            p.add_vc(label, share);
        }
    }

    pub fn on_arrival(
        &mut self,
        now: SimTime,
        view: PortView,
        label: Label,
        cell: &Cell,
    ) -> Verdict {
        let Some(p) = &mut self.inner else {
            return Verdict::Drop(view.full().unwrap_or(DropReason::PortBufferFull));
        };
        let st = &mut self.vcs[label as usize];
        let (first, eom) = st.track(cell);
        if self.per_cell {
            return match p.on_cell(now, view, label, first, eom) {
                v @ (Verdict::Accept | Verdict::AcceptMarked) => match view.full() {
                    Some(r) => Verdict::Drop(r),
                    None => v,
                },
                v => v,
            };
        }
        let refuse = if first && !st.discarding {
            p.on_frame(now, view, label)
        } else {
            None
        };
        st.early_discard(view, first, eom, refuse)
    }

    pub fn on_departure(&mut self, now: SimTime, after: PortView, label: Label) {
        if let Some(p) = &mut self.inner {
            p.on_departure(now, after, label);
        }
    }
}

/// A port's plug-in rate control: the interval counted in Rust, the rest by the plug-in.
pub struct PluginRateControl {
    pub config: PluginConfig,
    inner: Option<Box<dyn DynRateControl>>,
    /// ABR cells in the current interval.
    abr_in: u64,
    interval_cells: u32,
    per_cell: bool,
    vc_cells: Vec<u32>,
    rt_cells: u64,
    start: SimTime,
    interval: SimTime,
    pub link_rate: f64,
}

impl std::fmt::Debug for PluginRateControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginRateControl")
            .field("class", &self.config.class)
            .field("bound", &self.inner.is_some())
            .finish()
    }
}

impl PluginRateControl {
    pub fn new(config: &PluginConfig, link_rate: f64) -> Self {
        PluginRateControl {
            config: config.clone(),
            inner: None,
            abr_in: 0,
            interval_cells: 0,
            per_cell: false,
            vc_cells: Vec::new(),
            rt_cells: 0,
            start: SimTime::ZERO,
            interval: SimTime::MAX,
            link_rate,
        }
    }

    /// Gives the scheme its instance and interval (and the VCs added so far).
    pub fn bind(&mut self, mut inner: Box<dyn DynRateControl>, interval: Interval) {
        for vc in 0..self.vc_cells.len() {
            inner.add_vc(vc);
        }
        self.per_cell = inner.per_cell();
        self.interval_cells = interval.cells;
        self.interval = interval.time;
        self.inner = Some(inner);
    }

    pub fn is_bound(&self) -> bool {
        self.inner.is_some()
    }

    #[inline(never)]
    pub fn add_vc(&mut self) {
        let vc = self.vc_cells.len();
        self.vc_cells.push(0);
        if let Some(p) = &mut self.inner {
            p.add_vc(vc);
        }
    }

    #[inline(never)]
    pub fn on_abr_cell(&mut self, vc: usize, queue: u32, cell: &mut Cell) -> bool {
        self.vc_cells[vc] += 1;
        self.abr_in += 1;
        if self.per_cell {
            if let Some(p) = &mut self.inner {
                p.on_abr_cell(vc, queue, cell);
            }
        }
        self.interval_cells != 0 && self.abr_in == u64::from(self.interval_cells)
    }

    #[inline(never)]
    pub fn on_real_time_cell(&mut self) {
        self.rt_cells += 1;
    }

    #[inline(never)]
    pub fn on_forward_rm(&mut self, vc: usize, queue: u32, fields: &mut RmFields) {
        if let Some(p) = &mut self.inner {
            p.on_forward_rm(vc, queue, fields);
        }
    }

    /// The plug-in's feedback, held to what a switch may do: never a higher ER.
    #[inline(never)]
    pub fn on_backward_rm(&mut self, vc: usize, queue: u32, fields: &mut RmFields) {
        if let Some(p) = &mut self.inner {
            let er_in = fields.er;
            p.on_backward_rm(vc, queue, fields);
            if fields.er > er_in || fields.er.is_nan() {
                // Higher, or not a number: the ER the cell came with.
                fields.er = er_in;
            }
        }
    }

    /// Ends the interval at `now` (an interval of zero length measures nothing: the plug-in
    /// is not called, the counts restart).
    #[inline(never)]
    pub fn end_interval(&mut self, now: SimTime, queue: u32) {
        let duration = now.saturating_sub(self.start);
        if duration > SimTime::ZERO {
            if let Some(p) = &mut self.inner {
                p.end_interval(
                    now,
                    queue,
                    &Measured {
                        duration,
                        abr_cells: self.abr_in,
                        rt_cells: self.rt_cells,
                        vc_cells: &self.vc_cells,
                    },
                );
            }
        }
        self.abr_in = 0;
        self.rt_cells = 0;
        self.vc_cells.fill(0);
        self.start = self.start.max(now);
    }

    #[inline(never)]
    pub fn deadline(&self) -> Option<SimTime> {
        self.inner.as_ref()?;
        Some(SimTime::from_ps(
            self.start.as_ps().saturating_add(self.interval.as_ps()),
        ))
    }

    #[inline(never)]
    pub fn stats(&self) -> Option<RateStats> {
        self.inner.as_ref()?.stats()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::VcId;
    use std::sync::{Arc, Mutex};

    fn config() -> PluginConfig {
        PluginConfig {
            class: "m:C".into(),
            params: Default::default(),
        }
    }

    /// Refuses a frame whenever the queue holds `at` cells or more; records its calls.
    struct Threshold {
        at: u32,
        calls: Arc<Mutex<Vec<(Label, u32)>>>,
        per_cell: bool,
    }

    impl DynPolicy for Threshold {
        fn add_vc(&mut self, _label: Label, _share: &VcShare) {}
        fn per_cell(&self) -> bool {
            self.per_cell
        }
        fn on_frame(&mut self, _now: SimTime, view: PortView, label: Label) -> Option<DropReason> {
            self.calls.lock().unwrap().push((label, view.vc_count));
            (view.vc_count >= self.at).then_some(DropReason::EarlyDiscard)
        }
        fn on_cell(
            &mut self,
            _now: SimTime,
            view: PortView,
            label: Label,
            _first: bool,
            _last: bool,
        ) -> Verdict {
            self.calls.lock().unwrap().push((label, view.vc_count));
            Verdict::Accept
        }
        fn wants_departures(&self) -> bool {
            false
        }
        fn on_departure(&mut self, _now: SimTime, _after: PortView, _label: Label) {}
    }

    fn view(n: u32, limit: u32) -> PortView {
        PortView {
            occupancy: n,
            port_limit: u32::MAX,
            vc_count: n,
            vc_limit: limit,
            active_vcs: u32::from(n > 0),
        }
    }

    /// Feeds frames into a buffer of `limit` cells that never drains; returns the cells kept
    /// per frame.
    fn feed(p: &mut PluginPolicy, frames: &[u32], limit: u32) -> Vec<u32> {
        let mut kept = vec![0; frames.len()];
        let mut n = 0;
        for (f, &len) in frames.iter().enumerate() {
            for i in 0..len {
                let flags = if i + 1 == len { Cell::EOM } else { 0 };
                let cell = Cell::data(VcId(0), f as u32, 0, flags);
                if p.on_arrival(SimTime::ZERO, view(n, limit), 0, &cell) == Verdict::Accept {
                    n += 1;
                    kept[f] += 1;
                }
            }
        }
        kept
    }

    #[test]
    fn frame_mode_asks_once_per_frame_and_refuses_whole_frames() {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let mut p = PluginPolicy::new(&config(), 1);
        p.add_vc(&VcShare::default());
        p.bind(Box::new(Threshold {
            at: 5,
            calls: calls.clone(),
            per_cell: false,
        }));
        // 3 + 3 kept (the second frame starts below 5), the third refused whole, and the
        // fourth too; a frame admitted at 6 cells would overflow 8 and lose its tail.
        assert_eq!(feed(&mut p, &[3, 3, 4, 2], 8), vec![3, 3, 0, 0]);
        assert_eq!(calls.lock().unwrap().len(), 4, "one call per frame");
    }

    #[test]
    fn an_admitted_frame_that_overflows_loses_its_tail_keeping_the_eom() {
        let mut p = PluginPolicy::new(&config(), 1);
        p.add_vc(&VcShare::default());
        p.bind(Box::new(Threshold {
            at: u32::MAX,
            calls: Default::default(),
            per_cell: false,
        }));
        // The second frame's cells beyond the buffer are dropped, its EOM kept (PPD).
        assert_eq!(feed(&mut p, &[2, 5], 4), vec![2, 2]);
    }

    #[test]
    fn per_cell_mode_asks_at_every_cell_and_never_overfills() {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let mut p = PluginPolicy::new(&config(), 1);
        p.add_vc(&VcShare::default());
        p.bind(Box::new(Threshold {
            at: 0,
            calls: calls.clone(),
            per_cell: true,
        }));
        assert_eq!(feed(&mut p, &[3, 4], 5), vec![3, 2]);
        assert_eq!(calls.lock().unwrap().len(), 7);
    }

    #[test]
    fn binding_replays_the_vcs_added_before() {
        struct Count(Arc<Mutex<Vec<Label>>>);
        impl DynPolicy for Count {
            fn add_vc(&mut self, label: Label, _share: &VcShare) {
                self.0.lock().unwrap().push(label);
            }
            fn per_cell(&self) -> bool {
                false
            }
            fn on_frame(&mut self, _: SimTime, _: PortView, _: Label) -> Option<DropReason> {
                None
            }
            fn on_cell(&mut self, _: SimTime, _: PortView, _: Label, _: bool, _: bool) -> Verdict {
                Verdict::Accept
            }
            fn wants_departures(&self) -> bool {
                false
            }
            fn on_departure(&mut self, _: SimTime, _: PortView, _: Label) {}
        }
        let labels = Arc::new(Mutex::new(Vec::new()));
        let mut p = PluginPolicy::new(&config(), 1);
        p.add_vc(&VcShare::default());
        p.add_vc(&VcShare::default());
        p.bind(Box::new(Count(labels.clone())));
        p.add_vc(&VcShare::default());
        assert_eq!(*labels.lock().unwrap(), vec![0, 1, 2]);
    }

    /// Records the intervals it is given; feedback: halves the ER, and tries to raise it for
    /// VC 1.
    #[derive(Default)]
    struct Recorder {
        intervals: Arc<Mutex<Vec<Counted>>>,
    }

    /// An interval's (duration, ABR cells, CBR/VBR cells, cells per VC).
    type Counted = (SimTime, u64, u64, Vec<u32>);

    impl DynRateControl for Recorder {
        fn add_vc(&mut self, _vc: usize) {}
        fn per_cell(&self) -> bool {
            false
        }
        fn on_abr_cell(&mut self, _vc: usize, _queue: u32, _cell: &Cell) {}
        fn on_forward_rm(&mut self, _vc: usize, _queue: u32, _fields: &RmFields) {}
        fn on_backward_rm(&mut self, vc: usize, _queue: u32, fields: &mut RmFields) {
            fields.er = if vc == 1 {
                fields.er * 2.0
            } else {
                fields.er / 2.0
            };
        }
        fn end_interval(&mut self, _now: SimTime, _queue: u32, m: &Measured<'_>) {
            self.intervals.lock().unwrap().push((
                m.duration,
                m.abr_cells,
                m.rt_cells,
                m.vc_cells.to_vec(),
            ));
        }
        fn stats(&self) -> Option<RateStats> {
            None
        }
    }

    #[test]
    fn the_interval_is_counted_in_rust_and_ends_by_count_or_time() {
        let rec = Recorder::default();
        let intervals = rec.intervals.clone();
        let mut r = PluginRateControl::new(&config(), 1e5);
        r.add_vc();
        r.add_vc();
        r.bind(
            Box::new(rec),
            Interval {
                time: SimTime::from_ms(1),
                cells: 3,
            },
        );
        assert_eq!(r.deadline(), Some(SimTime::from_ms(1)));
        let mut cell = Cell::data(VcId(0), 0, 0, 0);
        assert!(!r.on_abr_cell(0, 0, &mut cell));
        r.on_real_time_cell();
        assert!(!r.on_abr_cell(1, 0, &mut cell));
        assert!(r.on_abr_cell(1, 0, &mut cell), "the third cell ends it");
        r.end_interval(SimTime::from_us(300), 0);
        assert_eq!(r.deadline(), Some(SimTime::from_us(1300)));
        r.on_abr_cell(0, 0, &mut cell);
        r.end_interval(SimTime::from_us(1300), 0);
        let got = intervals.lock().unwrap().clone();
        assert_eq!(
            got,
            vec![
                (SimTime::from_us(300), 3, 1, vec![1, 2]),
                (SimTime::from_us(1000), 1, 0, vec![1, 0]),
            ]
        );
    }

    #[test]
    fn feedback_never_raises_the_er() {
        let mut r = PluginRateControl::new(&config(), 1e5);
        r.add_vc();
        r.add_vc();
        r.bind(
            Box::new(Recorder::default()),
            Interval {
                time: SimTime::from_ms(1),
                cells: 100,
            },
        );
        let mut f = RmFields {
            er: 1000.0,
            ccr: 0.0,
            mcr: 0.0,
            ci: false,
            ni: false,
            bn: false,
        };
        r.on_backward_rm(0, 0, &mut f);
        assert_eq!(f.er, 500.0);
        r.on_backward_rm(1, 0, &mut f);
        assert_eq!(f.er, 500.0, "a plug-in cannot raise the ER");
    }

    #[test]
    fn class_names_must_be_module_colon_class_and_need_a_checker() {
        for bad in ["mymod", ":C", "m:", "a:b:c"] {
            let c = PluginConfig {
                class: bad.into(),
                params: Default::default(),
            };
            assert_eq!(check(PluginKind::Policy, &c).unwrap_err().field, "class");
        }
        // No checker is installed in the model's tests: a plug-in cannot run here.
        let e = check(PluginKind::RateControl, &config()).unwrap_err();
        assert_eq!(e.field, "kind");
        assert!(e.message.contains("runs only from Python"), "{}", e.message);
    }

    /// EPD as a plug-in: the rule of `policy/epd.rs`, decided once per frame.
    struct PluginEpd {
        threshold: f64,
        frames: Arc<Mutex<u64>>,
    }

    impl DynPolicy for PluginEpd {
        fn add_vc(&mut self, _label: Label, _share: &VcShare) {}
        fn per_cell(&self) -> bool {
            false
        }
        fn on_frame(&mut self, _now: SimTime, view: PortView, _label: Label) -> Option<DropReason> {
            *self.frames.lock().unwrap() += 1;
            view.at_or_above(self.threshold)
                .then_some(DropReason::EarlyDiscard)
        }
        fn on_cell(&mut self, _: SimTime, _: PortView, _: Label, _: bool, _: bool) -> Verdict {
            unreachable!("frame mode")
        }
        fn wants_departures(&self) -> bool {
            false
        }
        fn on_departure(&mut self, _: SimTime, _: PortView, _: Label) {}
    }

    /// Makes [`PluginEpd`]s, counting the frames they are asked about.
    #[derive(Default)]
    struct EpdHost {
        frames: Arc<Mutex<u64>>,
    }

    impl PluginHost for EpdHost {
        fn policy(
            &self,
            c: &PluginConfig,
            _port: &PluginPort,
        ) -> Result<Box<dyn DynPolicy>, String> {
            let threshold = c.params["threshold"]
                .as_f64()
                .ok_or("threshold: a number")?;
            Ok(Box::new(PluginEpd {
                threshold,
                frames: self.frames.clone(),
            }))
        }
        fn rate_control(
            &self,
            _c: &PluginConfig,
            _port: &PluginPort,
        ) -> Result<(Box<dyn DynRateControl>, Interval), String> {
            Err("no rate controls here".into())
        }
    }

    /// The parking lot (cell drop at every switch) with `policy` at its switches instead.
    fn parking_lot_with(policy: crate::spec::PolicyConfig) -> crate::spec::NetworkSpec {
        let mut spec = crate::topology::parking_lot(5, SimTime::from_ms(300));
        for n in &mut spec.nodes {
            if let crate::spec::NodeKind::Switch(s) = &mut n.kind {
                s.port.policy = policy.clone();
            }
        }
        spec
    }

    fn python_epd() -> crate::spec::PolicyConfig {
        let mut params = serde_json::Map::new();
        params.insert("threshold".into(), 0.9.into());
        crate::spec::PolicyConfig::Python(PluginConfig {
            class: "m:Epd".into(),
            params,
        })
    }

    #[test]
    fn epd_as_a_plug_in_runs_the_same_network_as_the_built_in_epd() {
        let epd = crate::spec::PolicyConfig::Epd(crate::port::policy::EpdConfig {
            threshold: 0.9,
            compare: Default::default(),
        });
        let mut rust = crate::Network::new(&parking_lot_with(epd), "rust").unwrap();
        rust.run();
        let host = EpdHost::default();
        let mut plugged =
            crate::Network::with_plugins(&parking_lot_with(python_epd()), "plug", Some(&host))
                .unwrap();
        plugged.run();
        assert_eq!(rust.fingerprint(), plugged.fingerprint());
        let frames = *host.frames.lock().unwrap();
        assert!(frames > 100, "the plug-in decided {frames} frames");
        let drops: u64 = plugged
            .ports()
            .iter()
            .map(|p| p.counters.drops[DropReason::EarlyDiscard as usize])
            .sum();
        assert!(drops > 0, "EPD refused no frame: the test shows nothing");
    }

    #[test]
    fn a_network_without_a_host_refuses_a_plug_in() {
        let e = crate::Network::new(&parking_lot_with(python_epd()), "x")
            .err()
            .unwrap();
        assert!(
            matches!(e, crate::ModelError::PluginUnavailable { .. }),
            "{e}"
        );
        assert!(e.to_string().contains("runs only from Python"), "{e}");
    }

    #[test]
    fn a_plug_in_the_host_cannot_make_fails_the_build_naming_the_port() {
        let rc = crate::spec::RateControlConfig::Python(config());
        let mut spec = crate::topology::parking_lot(1, SimTime::from_ms(10));
        for n in &mut spec.nodes {
            if let crate::spec::NodeKind::Switch(s) = &mut n.kind {
                s.port.rate_control = rc.clone();
            }
        }
        let e = crate::Network::with_plugins(&spec, "x", Some(&EpdHost::default()))
            .err()
            .unwrap();
        assert!(e.to_string().contains("no rate controls here"), "{e}");
        assert!(e.to_string().contains("->"), "names the port: {e}");
    }
}
