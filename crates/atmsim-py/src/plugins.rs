//! Python plug-ins: an admission policy or an ABR rate-control scheme written as a Python
//! class and named in a scenario (`policy = { kind = "python", class = "mod:Cls", params =
//! { ... } }`, likewise `rate_control`). The model calls them through its object-safe
//! traits (`atmsim_model::plugin`); this module implements those traits by calling the
//! Python object, taking the GIL only around each call (the run itself holds no GIL).
//!
//! The Python side of the interface is documented in `docs/plugins.md` and typed in
//! `atmsim/_core.pyi` (`PortView`, `RmCell`, `Interval`, `PluginPort`).
//!
//! A Python exception in a hook is recorded with the run's [`PyHost`] (the class, the hook
//! and the traceback text) and the instance stops calling Python (it admits every cell,
//! changes no RM cell); the run loop sees the record at its next check and stops the run with
//! that error.

use std::sync::{Arc, Mutex};

use atmsim_engine::SimTime;
use atmsim_model::abr::RateStats;
use atmsim_model::cell::{Cell, CellKind, RmFields};
use atmsim_model::ids::Label;
use atmsim_model::plugin::{
    DynPolicy, DynRateControl, Interval, Measured, PluginConfig, PluginHost, PluginKind, PluginPort,
};
use atmsim_model::port::policy::{DropReason, Invalid, PortView as View, VcShare, Verdict};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// What a port's queue looks like to a policy when a cell arrives.
#[pyclass(frozen, get_all, module = "atmsim._core")]
#[derive(Clone)]
pub struct PortView {
    /// Cells queued in the arriving cell's class (the whole port under a one-class scheduler).
    occupancy: u32,
    /// The size of that queue [cells]; None: unlimited.
    port_limit: Option<u32>,
    /// Cells of the arriving cell's VC queued at the port.
    vc_count: u32,
    /// The per-VC limit [cells]; None: unlimited.
    vc_limit: Option<u32>,
    /// VCs with cells queued in the arriving cell's class.
    active_vcs: u32,
}

impl From<View> for PortView {
    fn from(v: View) -> Self {
        let limit = |x: u32| (x != u32::MAX).then_some(x);
        PortView {
            occupancy: v.occupancy,
            port_limit: limit(v.port_limit),
            vc_count: v.vc_count,
            vc_limit: limit(v.vc_limit),
            active_vcs: v.active_vcs,
        }
    }
}

#[pymethods]
impl PortView {
    fn __repr__(&self) -> String {
        format!(
            "PortView(occupancy={}, port_limit={:?}, vc_count={}, vc_limit={:?}, active_vcs={})",
            self.occupancy, self.port_limit, self.vc_count, self.vc_limit, self.active_vcs
        )
    }
}

/// The fields of an RM cell passing the port. A backward RM cell's `er`, `ci` and `ni` may be
/// set (the ER only lowered: a higher value is ignored); a forward RM cell's are read-only in
/// effect (changes are ignored).
#[pyclass(get_all, module = "atmsim._core")]
pub struct RmCell {
    /// Explicit rate [cells/s].
    #[pyo3(set)]
    er: f64,
    /// The source's current cell rate when it sent the forward RM cell [cells/s].
    ccr: f64,
    /// The VC's minimum cell rate [cells/s].
    mcr: f64,
    /// Congestion indication.
    #[pyo3(set)]
    ci: bool,
    /// No increase.
    #[pyo3(set)]
    ni: bool,
    /// Made by a switch or destination, not turned round.
    bn: bool,
}

impl From<&RmFields> for RmCell {
    fn from(f: &RmFields) -> Self {
        RmCell {
            er: f.er,
            ccr: f.ccr,
            mcr: f.mcr,
            ci: f.ci,
            ni: f.ni,
            bn: f.bn,
        }
    }
}

#[pymethods]
impl RmCell {
    fn __repr__(&self) -> String {
        format!(
            "RmCell(er={}, ccr={}, mcr={}, ci={}, ni={}, bn={})",
            self.er, self.ccr, self.mcr, self.ci, self.ni, self.bn
        )
    }
}

/// What a rate control's port counted in a measurement interval.
#[pyclass(frozen, get_all, module = "atmsim._core")]
pub struct Measurement {
    /// The interval's length [s].
    duration_s: f64,
    /// ABR cells (data and RM) that entered the port's queue.
    abr_cells: u64,
    /// CBR and VBR cells the port sent.
    rt_cells: u64,
    /// ABR cells of each VC (by its label at the port).
    vc_cells: Vec<u32>,
}

/// A Python exception's traceback text.
fn traceback(py: Python<'_>, err: &PyErr) -> String {
    py.import("traceback")
        .and_then(|m| {
            m.call_method1(
                "format_exception",
                (err.get_type(py), err.value(py), err.traceback(py)),
            )
        })
        .and_then(|lines| {
            let lines: Vec<String> = lines.extract()?;
            Ok(lines.concat())
        })
        .unwrap_or_else(|_| format!("{err}\n"))
        .trim_end()
        .to_string()
}

/// A Python exception in a hook as text: the class, the hook, the traceback.
fn describe_error(py: Python<'_>, class: &str, hook: &str, err: &PyErr) -> String {
    format!(
        "python plug-in {class}: {hook} raised an exception:\n{}",
        traceback(py, err)
    )
}

/// The record of the first plug-in failure of a run, shared by its instances.
#[derive(Clone, Default)]
pub struct Failures(Arc<Mutex<Option<String>>>);

impl Failures {
    fn record(&self, message: String) {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(message);
        }
    }

    /// The first failure, if any.
    pub fn first(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Makes the Python plug-ins of one run.
#[derive(Default)]
pub struct PyHost {
    pub failures: Failures,
}

/// `module:Class` imported.
fn import_class<'py>(py: Python<'py>, class: &str) -> Result<Bound<'py, PyAny>, String> {
    let (module, name) = class
        .split_once(':')
        .ok_or_else(|| format!("{class:?} is not \"module:Class\""))?;
    let m = py.import(module).map_err(|e| {
        format!(
            "cannot import module {module:?} (is it on the Python path?):\n{}",
            traceback(py, &e)
        )
    })?;
    let cls = m
        .getattr(name)
        .map_err(|_| format!("module {module:?} has no attribute {name:?}"))?;
    if !cls.is_callable() {
        return Err(format!("{class} is not a class (not callable)"));
    }
    Ok(cls)
}

/// The hooks a plug-in must have, by kind, and the optional ones.
fn missing_hooks(kind: PluginKind, cls: &Bound<'_, PyAny>) -> Option<String> {
    let has = |n: &str| cls.hasattr(n).unwrap_or(false);
    match kind {
        PluginKind::Policy => {
            let per_cell = cls
                .getattr("per_cell")
                .and_then(|v| v.is_truthy())
                .unwrap_or(false);
            if per_cell && !has("on_cell") {
                Some("per_cell = True but no on_cell(now, view, label, first, last) method".into())
            } else if !per_cell && !has("on_frame") {
                Some("no on_frame(now, view, label) method (or per_cell = True and on_cell)".into())
            } else {
                None
            }
        }
        PluginKind::RateControl => {
            if !has("interval") {
                Some(
                    "no `interval` attribute: (seconds, ABR cells) after which the \
                     measurement interval ends, whichever first, e.g. interval = (0.001, 100)"
                        .into(),
                )
            } else if !has("on_backward_rm") {
                Some("no on_backward_rm(vc, queue, rm) method (the scheme's feedback)".into())
            } else {
                None
            }
        }
    }
}

/// The scenario-time check of a plug-in table (installed with `plugin::set_checker`): the
/// class imports and has the hooks its kind needs.
pub fn check(kind: PluginKind, c: &PluginConfig) -> Result<(), Invalid> {
    Python::with_gil(|py| {
        let cls = import_class(py, &c.class).map_err(|message| Invalid {
            field: "class",
            message,
        })?;
        if let Some(what) = missing_hooks(kind, &cls) {
            return Err(Invalid {
                field: "class",
                message: format!("{} is not a {} plug-in: {what}", c.class, kind.key()),
            });
        }
        Ok(())
    })
}

/// `params` as a Python dict.
fn params<'py>(py: Python<'py>, c: &PluginConfig) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(&c.params).unwrap_or_else(|_| "{}".into());
    py.import("json")?.call_method1("loads", (text,))
}

/// `PluginPort` for the constructor: a namespace with `name`, `cell_time_s`, `link_rate`,
/// `seed` and `rng` (a `random.Random` seeded with `seed`).
fn port_info<'py>(py: Python<'py>, port: &PluginPort) -> PyResult<Bound<'py, PyAny>> {
    let kw = PyDict::new(py);
    kw.set_item("name", &port.name)?;
    kw.set_item("cell_time_s", port.cell_time.as_secs_f64())?;
    kw.set_item("link_rate", port.link_rate)?;
    kw.set_item("seed", port.seed)?;
    kw.set_item(
        "rng",
        py.import("random")?
            .getattr("Random")?
            .call1((port.seed,))?,
    )?;
    py.import("types")?
        .getattr("SimpleNamespace")?
        .call((), Some(&kw))
}

/// The class of `c` made for `port`.
fn instantiate<'py>(
    py: Python<'py>,
    c: &PluginConfig,
    port: &PluginPort,
) -> Result<Bound<'py, PyAny>, String> {
    let cls = import_class(py, &c.class)?;
    let made = params(py, c)
        .and_then(|p| Ok((p, port_info(py, port)?)))
        .and_then(|(p, info)| cls.call1((p, info)));
    made.map_err(|e| {
        format!(
            "__init__(params, port) raised an exception:\n{}",
            traceback(py, &e)
        )
    })
}

/// A bound method, if the object has one by that name.
fn method(obj: &Bound<'_, PyAny>, name: &str) -> Option<PyObject> {
    obj.getattr(name)
        .ok()
        .filter(|m| m.is_callable())
        .map(|m| m.unbind())
}

/// A drop reason by its name in the reports.
fn reason(name: &str) -> Option<DropReason> {
    DropReason::ALL.into_iter().find(|r| r.name() == name)
}

/// The names a verdict may give.
fn reasons() -> String {
    DropReason::ALL
        .iter()
        .map(|r| format!("{:?}", r.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

impl PluginHost for PyHost {
    fn policy(&self, c: &PluginConfig, port: &PluginPort) -> Result<Box<dyn DynPolicy>, String> {
        Python::with_gil(|py| {
            let obj = instantiate(py, c, port)?;
            let per_cell = obj
                .getattr("per_cell")
                .and_then(|v| v.is_truthy())
                .unwrap_or(false);
            let on_departure = method(&obj, "on_departure");
            let decide =
                method(&obj, if per_cell { "on_cell" } else { "on_frame" }).ok_or_else(|| {
                    format!(
                        "{} has no {} method",
                        c.class,
                        if per_cell { "on_cell" } else { "on_frame" }
                    )
                })?;
            Ok(Box::new(PyPolicy {
                class: c.class.clone(),
                decide,
                add_vc: method(&obj, "add_vc"),
                on_departure,
                per_cell,
                failures: self.failures.clone(),
                failed: std::cell::Cell::new(false),
            }) as Box<dyn DynPolicy>)
        })
    }

    fn rate_control(
        &self,
        c: &PluginConfig,
        port: &PluginPort,
    ) -> Result<(Box<dyn DynRateControl>, Interval), String> {
        Python::with_gil(|py| {
            let obj = instantiate(py, c, port)?;
            let interval = obj
                .getattr("interval")
                .and_then(|v| v.extract::<(f64, u32)>())
                .map_err(|_| {
                    format!(
                        "{}.interval must be (seconds, ABR cells), e.g. (0.001, 100)",
                        c.class
                    )
                })?;
            if !(interval.0 > 0.0 && interval.0.is_finite()) {
                return Err(format!(
                    "{}.interval: {} s is not a time above 0",
                    c.class, interval.0
                ));
            }
            let on_backward_rm = method(&obj, "on_backward_rm")
                .ok_or_else(|| format!("{} has no on_backward_rm method", c.class))?;
            let r = PyRateControl {
                class: c.class.clone(),
                on_abr_cell: method(&obj, "on_abr_cell"),
                on_forward_rm: method(&obj, "on_forward_rm"),
                on_backward_rm,
                end_interval: method(&obj, "end_interval"),
                stats: method(&obj, "stats"),
                add_vc: method(&obj, "add_vc"),
                failures: self.failures.clone(),
                failed: std::cell::Cell::new(false),
            };
            let interval = Interval {
                time: SimTime::from_secs_f64(interval.0),
                cells: interval.1,
            };
            Ok((Box::new(r) as Box<dyn DynRateControl>, interval))
        })
    }
}

/// A Python admission policy at one port.
struct PyPolicy {
    class: String,
    /// `on_frame` or, per-cell, `on_cell`.
    decide: PyObject,
    add_vc: Option<PyObject>,
    on_departure: Option<PyObject>,
    per_cell: bool,
    failures: Failures,
    /// A hook raised: no more calls.
    failed: std::cell::Cell<bool>,
}

impl PyPolicy {
    /// Records a failure of `hook`; the instance calls Python no more.
    fn fail(&self, py: Python<'_>, hook: &str, err: &PyErr) {
        self.failures
            .record(describe_error(py, &self.class, hook, err));
        self.failed.set(true);
    }

    /// A verdict returned by a hook: None or "accept", a drop reason's name, or ("purge",
    /// reason) (per-cell mode).
    fn verdict(&self, v: &Bound<'_, PyAny>, hook: &str) -> Result<Verdict, String> {
        if v.is_none() {
            return Ok(Verdict::Accept);
        }
        if let Ok(s) = v.extract::<String>() {
            if s == "accept" {
                return Ok(Verdict::Accept);
            }
            if let Some(r) = reason(&s) {
                return Ok(Verdict::Drop(r));
            }
        }
        if self.per_cell {
            if let Ok((purge, s)) = v.extract::<(String, String)>() {
                if let (true, Some(r)) = (purge == "purge", reason(&s)) {
                    return Ok(Verdict::DropAndPurge(r));
                }
            }
        }
        Err(format!(
            "python plug-in {}: {hook} returned {}: allowed None or \"accept\", or a drop \
             reason: {}{}",
            self.class,
            v.repr().map(|r| r.to_string()).unwrap_or_default(),
            reasons(),
            if self.per_cell {
                ", or (\"purge\", reason)"
            } else {
                ""
            }
        ))
    }
}

impl DynPolicy for PyPolicy {
    fn add_vc(&mut self, label: Label, share: &VcShare) {
        let Some(f) = &self.add_vc else { return };
        if self.failed.get() {
            return;
        }
        Python::with_gil(|py| {
            if let Err(e) = f.call1(py, (label, share.threshold, share.weight)) {
                self.fail(py, "add_vc(label, threshold, weight)", &e);
            }
        });
    }

    fn per_cell(&self) -> bool {
        self.per_cell
    }

    fn on_frame(&mut self, now: SimTime, view: View, label: Label) -> Option<DropReason> {
        if self.failed.get() {
            return None;
        }
        Python::with_gil(|py| {
            const HOOK: &str = "on_frame(now, view, label)";
            let got = self
                .decide
                .call1(py, (now.as_secs_f64(), PortView::from(view), label));
            let v = match got {
                Ok(v) => v,
                Err(e) => {
                    self.fail(py, HOOK, &e);
                    return None;
                }
            };
            match self.verdict(v.bind(py), HOOK) {
                Ok(Verdict::Drop(r)) => Some(r),
                Ok(_) => None,
                Err(m) => {
                    self.failures.record(m);
                    self.failed.set(true);
                    None
                }
            }
        })
    }

    fn on_cell(
        &mut self,
        now: SimTime,
        view: View,
        label: Label,
        first: bool,
        last: bool,
    ) -> Verdict {
        if self.failed.get() {
            return Verdict::Accept;
        }
        Python::with_gil(|py| {
            const HOOK: &str = "on_cell(now, view, label, first, last)";
            let got = self.decide.call1(
                py,
                (now.as_secs_f64(), PortView::from(view), label, first, last),
            );
            let v = match got {
                Ok(v) => v,
                Err(e) => {
                    self.fail(py, HOOK, &e);
                    return Verdict::Accept;
                }
            };
            self.verdict(v.bind(py), HOOK).unwrap_or_else(|m| {
                self.failures.record(m);
                self.failed.set(true);
                Verdict::Accept
            })
        })
    }

    fn wants_departures(&self) -> bool {
        self.on_departure.is_some()
    }

    fn on_departure(&mut self, now: SimTime, after: View, label: Label) {
        if self.failed.get() {
            return;
        }
        let Some(f) = &self.on_departure else { return };
        Python::with_gil(|py| {
            if let Err(e) = f.call1(py, (now.as_secs_f64(), PortView::from(after), label)) {
                self.fail(py, "on_departure(now, view, label)", &e);
            }
        });
    }
}

/// A Python rate-control scheme at one port.
struct PyRateControl {
    class: String,
    on_abr_cell: Option<PyObject>,
    on_forward_rm: Option<PyObject>,
    on_backward_rm: PyObject,
    end_interval: Option<PyObject>,
    stats: Option<PyObject>,
    add_vc: Option<PyObject>,
    failures: Failures,
    /// A hook raised: no more calls (a `Cell`: `stats` is read through `&self`).
    failed: std::cell::Cell<bool>,
}

impl PyRateControl {
    fn fail(&self, py: Python<'_>, hook: &str, err: &PyErr) {
        self.failures
            .record(describe_error(py, &self.class, hook, err));
        self.failed.set(true);
    }
}

/// `kind` of an ABR cell for `on_abr_cell`.
fn cell_kind(cell: &Cell) -> &'static str {
    match cell.kind {
        CellKind::ForwardRm => "forward_rm",
        CellKind::BackwardRm => "backward_rm",
        _ => "data",
    }
}

impl DynRateControl for PyRateControl {
    fn add_vc(&mut self, vc: usize) {
        let Some(f) = &self.add_vc else { return };
        if self.failed.get() {
            return;
        }
        Python::with_gil(|py| {
            if let Err(e) = f.call1(py, (vc,)) {
                self.fail(py, "add_vc(vc)", &e);
            }
        });
    }

    fn per_cell(&self) -> bool {
        self.on_abr_cell.is_some()
    }

    fn on_abr_cell(&mut self, vc: usize, queue: u32, cell: &Cell) {
        let Some(f) = &self.on_abr_cell else { return };
        if self.failed.get() {
            return;
        }
        Python::with_gil(|py| {
            if let Err(e) = f.call1(py, (vc, queue, cell_kind(cell))) {
                self.fail(py, "on_abr_cell(vc, queue, kind)", &e);
            }
        });
    }

    fn on_forward_rm(&mut self, vc: usize, queue: u32, fields: &RmFields) {
        let Some(f) = &self.on_forward_rm else { return };
        if self.failed.get() {
            return;
        }
        Python::with_gil(|py| {
            if let Err(e) = f.call1(py, (vc, queue, RmCell::from(fields))) {
                self.fail(py, "on_forward_rm(vc, queue, rm)", &e);
            }
        });
    }

    fn on_backward_rm(&mut self, vc: usize, queue: u32, fields: &mut RmFields) {
        if self.failed.get() {
            return;
        }
        Python::with_gil(|py| {
            let cell = match Py::new(py, RmCell::from(&*fields)) {
                Ok(c) => c,
                Err(e) => return self.fail(py, "on_backward_rm(vc, queue, rm)", &e),
            };
            if let Err(e) = self
                .on_backward_rm
                .call1(py, (vc, queue, cell.clone_ref(py)))
            {
                return self.fail(py, "on_backward_rm(vc, queue, rm)", &e);
            }
            let rm = cell.borrow(py);
            fields.er = rm.er;
            fields.ci = rm.ci;
            fields.ni = rm.ni;
        });
    }

    fn end_interval(&mut self, now: SimTime, queue: u32, m: &Measured<'_>) {
        let Some(f) = &self.end_interval else { return };
        if self.failed.get() {
            return;
        }
        Python::with_gil(|py| {
            let m = Measurement {
                duration_s: m.duration.as_secs_f64(),
                abr_cells: m.abr_cells,
                rt_cells: m.rt_cells,
                vc_cells: m.vc_cells.to_vec(),
            };
            if let Err(e) = f.call1(py, (now.as_secs_f64(), queue, m)) {
                self.fail(py, "end_interval(now, queue, measured)", &e);
            }
        });
    }

    fn stats(&self) -> Option<RateStats> {
        let f = self.stats.as_ref()?;
        if self.failed.get() {
            return None;
        }
        Python::with_gil(|py| {
            const HOOK: &str = "stats()";
            let v = match f.call0(py) {
                Ok(v) => v,
                Err(e) => {
                    self.fail(py, HOOK, &e);
                    return None;
                }
            };
            let v = v.bind(py);
            if v.is_none() {
                return None;
            }
            let get = |k: &str| -> PyResult<f64> { v.get_item(k)?.extract() };
            let s = (|| {
                Ok::<_, PyErr>(RateStats {
                    load_factor: get("load_factor")?,
                    active_vcs: get("active_vcs")?,
                    fair_rate: get("fair_rate")?,
                    capacity: get("capacity")?,
                })
            })();
            match s {
                Ok(s) => Some(s),
                Err(e) => {
                    self.fail(py, HOOK, &e);
                    None
                }
            }
        })
    }
}
