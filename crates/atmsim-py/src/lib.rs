//! `atmsim._core`: the Python bindings of atmsim, and nothing else.
//!
//! The scenario crosses once, as TOML text; results come back as one JSON summary and a set
//! of float columns. Every entry point goes through [`enter`], which releases the GIL while
//! Rust works and turns a panic into `SimulationError` instead of aborting the interpreter
//! (the shape of polars' `enter_polars` in `polars-python/src/utils.rs`).
//!
//! Errors: any bad input (TOML syntax, unknown key, bad unit, unknown node, bad override)
//! raises `ScenarioError(ValueError)` whose message is the `atmsim_scenario::ScenarioError`
//! display, `{file}:{line}: {field}: {message}`; a failure inside the model raises
//! `SimulationError(RuntimeError)`.

mod plugins;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use atmsim_model::spec::{NetworkSpec, NodeKind};
use numpy::PyArray1;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyType};

/// One of the exception classes of `atmsim.errors` (defined in Python so that they pickle
/// across process boundaries), raised with `message`.
fn atmsim_error(py: Python<'_>, class: &str, message: String) -> PyErr {
    let found = py
        .import("atmsim.errors")
        .and_then(|m| m.getattr(class))
        .and_then(|c| Ok(c.downcast_into::<PyType>()?));
    match found {
        Ok(cls) => PyErr::from_type(cls, message),
        // The package is always importable beside its native module; if it is not, the
        // message still reaches the caller.
        Err(_) if class == "ScenarioError" => PyValueError::new_err(message),
        Err(_) => PyRuntimeError::new_err(message),
    }
}

/// Stops a run from another thread: `token.cancel()` makes a `run` given this token raise
/// `Cancelled` within a few milliseconds.
#[pyclass(frozen)]
struct CancelToken(Arc<AtomicBool>);

#[pymethods]
impl CancelToken {
    #[new]
    fn new() -> Self {
        CancelToken(Arc::new(AtomicBool::new(false)))
    }

    fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    #[getter]
    fn cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Events between two looks at Ctrl-C and the cancel token (a few milliseconds of work).
const CHECK_EVERY: u64 = 1 << 16;

/// Why a call into Rust failed, before it becomes a Python exception.
enum Failure {
    Scenario(String),
    Simulation(String),
    /// A Python exception raised while the run looked for signals (KeyboardInterrupt).
    Python(PyErr),
    Cancelled,
}

/// Runs `work` without the GIL and maps its failures (panics included) to Python exceptions.
fn enter<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> Result<T, Failure> + Send,
{
    let outcome = py.allow_threads(move || catch_unwind(AssertUnwindSafe(work)));
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(Failure::Scenario(message))) => Err(atmsim_error(py, "ScenarioError", message)),
        Ok(Err(Failure::Simulation(message))) => Err(atmsim_error(py, "SimulationError", message)),
        Ok(Err(Failure::Python(err))) => Err(err),
        Ok(Err(Failure::Cancelled)) => Err(atmsim_error(
            py,
            "Cancelled",
            "the run was cancelled".into(),
        )),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic payload".to_string());
            Err(atmsim_error(
                py,
                "SimulationError",
                format!("internal error (panic in the simulator): {what}"),
            ))
        }
    }
}

/// A scenario as loaded: what it says, what runs, and its warnings (as displayed).
type Loaded = (atmsim_scenario::Scenario, NetworkSpec, Vec<String>);

/// Parses, validates and resolves a scenario (the one place TOML becomes a `NetworkSpec`).
fn load(
    text: &str,
    source: &str,
    overrides: &[(String, String)],
    seed: Option<u64>,
) -> Result<Loaded, Failure> {
    let (scenario, spec) = atmsim_scenario::load_with(text, source, bases(), overrides, seed)
        .map_err(|e| Failure::Scenario(e.to_string()))?;
    let warnings = atmsim_scenario::warnings(&scenario, &spec, source)
        .iter()
        .map(|w| w.to_string())
        .collect();
    Ok((scenario, spec, warnings))
}

/// Where a scenario's `base` is looked up: the built-ins are the package's
/// `atmsim/scenarios` folder (`atmsim.scenarios.folder()`), asked of Python once.
fn bases() -> &'static atmsim_scenario::Bases {
    static BASES: std::sync::OnceLock<atmsim_scenario::Bases> = std::sync::OnceLock::new();
    BASES.get_or_init(|| {
        let dir = Python::with_gil(|py| -> PyResult<String> {
            let folder = py.import("atmsim.scenarios")?.call_method0("folder")?;
            py.import("os")?
                .call_method1("fspath", (folder,))?
                .extract()
        });
        atmsim_scenario::Bases {
            builtin_dir: dir.ok().map(Into::into),
        }
    })
}

/// Issues each warning as an `atmsim.errors.ScenarioWarning` (Python's warning filters
/// decide whether it shows, once, or raises).
fn warn(py: Python<'_>, warnings: &[String]) -> PyResult<()> {
    if warnings.is_empty() {
        return Ok(());
    }
    let class = py.import("atmsim.errors")?.getattr("ScenarioWarning")?;
    for w in warnings {
        let message = std::ffi::CString::new(w.replace('\0', " "))?;
        PyErr::warn(py, &class, &message, 1)?;
    }
    Ok(())
}

/// One sampled column's name: (kind, entity, metric).
type Column = (String, String, String);

/// Runs a scenario; returns (summary JSON, series dict).
///
/// The series dict is `{"time_s": ndarray[float64] (n), "columns": list[(kind, entity,
/// metric)] (c), "values": ndarray[float64] (n * c, row major: sample by sample)}`; the arrays
/// are handed over without a copy. `wall_s` in the summary is the wall-clock time of the model
/// run alone.
///
/// Every few milliseconds the run looks for Ctrl-C (a `KeyboardInterrupt` is raised at once,
/// when called from the main thread) and at `cancel`, if given (`Cancelled` is raised), and
/// calls `progress(simulated_s, duration_s)`, if given (an exception it raises stops the run
/// and propagates).
///
/// `series_file` (a path): the series are streamed there during the run, a row group at a
/// time (`atmsim_model::stats::spill` has the layout), instead of being kept in memory; the
/// dict then holds `"file": {"path", "rows", "columns", "group_rows"}` in place of
/// `"values"`, the file complete. A run that fails or is cancelled leaves the file marked
/// incomplete.
///
/// `pcap` (a folder) writes the run's packets as pcap-ng files there and `cell_trace`
/// records cell events, as the scenario's `[trace]` says (docs/traces.md); the dict then
/// holds `"trace"`: `{"pcap_files": [(path, packets)], "cells": {column: ndarray} or None,
/// "cells_truncated_at_s": float or None, "cells_not_recorded": int}`.
#[pyfunction]
#[pyo3(signature = (text, source, overrides = Vec::new(), seed = None, cancel = None, progress = None, pcap = None, cell_trace = false, series_file = None))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    text: String,
    source: String,
    overrides: Vec<(String, String)>,
    seed: Option<u64>,
    cancel: Option<Py<CancelToken>>,
    progress: Option<PyObject>,
    pcap: Option<std::path::PathBuf>,
    cell_trace: bool,
    series_file: Option<std::path::PathBuf>,
) -> PyResult<(Bound<'py, PyString>, Bound<'py, PyDict>)> {
    let cancel = cancel.map(|c| c.get().0.clone());
    let (scenario, spec, warnings) = enter(py, move || load(&text, &source, &overrides, seed))?;
    warn(py, &warnings)?;
    let traced = pcap.is_some() || cell_trace;
    let trace_cfg = atmsim_scenario::trace_config(&scenario, pcap, cell_trace);
    // What the run needs of the scenario is its name: the rest (the parsed text included,
    // tens of megabytes at 10,000 connections) is freed before the network is built.
    let name = scenario.name.clone();
    let large = spec.connections.len() >= TRIM_FROM_CONNECTIONS;
    drop(scenario);
    let (summary, time_s, columns, values, file, trace) = enter(py, move || {
        let started = Instant::now();
        let host = plugins::PyHost::default();
        let failures = host.failures.clone();
        let mut net = atmsim_model::Network::with_plugins(&spec, &name, Some(&host))
            .map_err(|e| Failure::Simulation(e.to_string()))?;
        if traced {
            net.attach_trace(&spec, &trace_cfg, &name)
                .map_err(Failure::Scenario)?;
        }
        drop(spec);
        if let Some(path) = &series_file {
            net.spill_series(path).map_err(|e| {
                Failure::Simulation(format!(
                    "cannot create the series file {}: {e}",
                    path.display()
                ))
            })?;
        }
        let mut stopped: Option<Failure> = None;
        let duration_s = net.duration().as_secs_f64();
        let finished = net.run_checked(CHECK_EVERY, |now| {
            if cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed)) {
                stopped = Some(Failure::Cancelled);
                return false;
            }
            if let Some(message) = failures.first() {
                stopped = Some(Failure::Simulation(message));
                return false;
            }
            let checked = Python::with_gil(|py| {
                py.check_signals()?;
                if let Some(f) = &progress {
                    f.call1(py, (now.as_secs_f64(), duration_s))?;
                }
                Ok::<(), PyErr>(())
            });
            if let Err(err) = checked {
                stopped = Some(Failure::Python(err));
                return false;
            }
            true
        });
        let trace = net.finish_trace().map_err(Failure::Simulation)?;
        if !finished {
            return Err(stopped.unwrap_or(Failure::Cancelled));
        }
        if let Some(message) = failures.first() {
            return Err(Failure::Simulation(message));
        }
        let mut report = net.into_report();
        report.summary.wall_s = started.elapsed().as_secs_f64();
        let summary = report
            .summary
            .into_sorted_json()
            .map_err(|e| Failure::Simulation(format!("cannot serialise the summary: {e}")))?;

        let series = report.series;
        if let Some(f) = &series.file {
            if let Some(e) = &f.error {
                return Err(Failure::Simulation(e.clone()));
            }
        }
        let columns: Vec<Column> = series
            .columns
            .into_iter()
            .map(|c| (c.kind.to_string(), c.entity, c.metric.to_string()))
            .collect();
        Ok((
            summary,
            series.time_s,
            columns,
            series.values,
            series.file,
            trace,
        ))
    })?;
    let summary = {
        let text = summary;
        PyString::new(py, &text)
    };

    let dict = PyDict::new(py);
    dict.set_item("time_s", PyArray1::from_vec(py, time_s))?;
    let n_columns = columns.len();
    dict.set_item("columns", columns)?;
    match file {
        Some(f) => {
            let d = PyDict::new(py);
            d.set_item("path", f.path)?;
            d.set_item("rows", f.rows)?;
            d.set_item("columns", n_columns)?;
            d.set_item("group_rows", f.group_rows)?;
            dict.set_item("file", d)?;
        }
        None => dict.set_item("values", PyArray1::from_vec(py, values))?,
    }
    if let Some(t) = trace {
        dict.set_item("trace", trace_dict(py, t)?)?;
    }
    if large {
        release_freed_heap();
    }
    Ok((summary, dict))
}

/// Runs of at least this many connections hand their freed heap back when they return
/// ([`release_freed_heap`]). A smaller run frees at most tens of megabytes, and trimming
/// after every run cost about 1% of a reproduction's small runs (0.8 ms a run: 60 of
/// an1997's runs, three times each way).
const TRIM_FROM_CONNECTIONS: usize = 1000;

/// Hands the heap a run freed back to the system. glibc's malloc keeps freed memory in its
/// arenas: measured without this, a 10,000-connection run left about 230 MB of its freed heap
/// resident in the Python process after it returned, under whatever the caller did next (its
/// results, their files). Elsewhere a no-op.
fn release_freed_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of malloc's own arenas to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// A finished trace as a dict (see [`run`]); the cell columns are handed over without a copy.
fn trace_dict(py: Python<'_>, t: atmsim_model::trace::TraceOutput) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    let files: Vec<(String, u64)> = t
        .pcap_files
        .into_iter()
        .map(|(p, n)| (p.to_string_lossy().into_owned(), n))
        .collect();
    d.set_item("pcap_files", files)?;
    match t.cells {
        Some(c) => {
            let cols = PyDict::new(py);
            cols.set_item("time_ps", PyArray1::from_vec(py, c.time_ps))?;
            cols.set_item("port", PyArray1::from_vec(py, c.port))?;
            cols.set_item("connection", PyArray1::from_vec(py, c.connection))?;
            cols.set_item("reverse", PyArray1::from_vec(py, c.reverse))?;
            cols.set_item("event", PyArray1::from_vec(py, c.event))?;
            cols.set_item("reason", PyArray1::from_vec(py, c.reason))?;
            cols.set_item("kind", PyArray1::from_vec(py, c.kind))?;
            cols.set_item("flags", PyArray1::from_vec(py, c.flags))?;
            cols.set_item("queue", PyArray1::from_vec(py, c.queue))?;
            d.set_item("cells", cols)?;
        }
        None => d.set_item("cells", py.None())?,
    }
    d.set_item(
        "cells_truncated_at_s",
        t.cells_truncated_at.map(|t| t.as_secs_f64()),
    )?;
    d.set_item("cells_not_recorded", t.cells_not_recorded)?;
    d.set_item("port_names", t.port_names)?;
    d.set_item("connection_names", t.connection_names)?;
    Ok(d)
}

/// Validates a scenario with its overrides; returns its canonical TOML (every default
/// written out), which `run` accepts back.
#[pyfunction]
#[pyo3(signature = (text, source, overrides = Vec::new()))]
fn validate(
    py: Python<'_>,
    text: String,
    source: String,
    overrides: Vec<(String, String)>,
) -> PyResult<String> {
    let (scenario, _spec, warnings) = enter(py, move || load(&text, &source, &overrides, None))?;
    warn(py, &warnings)?;
    Ok(atmsim_scenario::canonical_toml(&scenario))
}

/// Counts of a validated scenario's parts, for `atmsim validate`: a dict with `nodes`,
/// `hosts`, `switches`, `links`, `connections` and `duration_s`, `warmup_s`, `seed`; what
/// the run is estimated to cost (`atmsim_scenario::cost`) against its ceilings:
/// `estimated_events`, `estimated_events_largest` (the largest part, in words), `max_events`,
/// `estimated_queued_cells`, `estimated_queue_largest` (the switch port that could hold the
/// most, in words, or None), `max_queued_cells`; and `network`, the resolved network in
/// numbers (`atmsim_scenario::describe`): `{"ports": [...], "connections": [...]}`, each
/// entry a dict of the fields of `atmsim_model::describe::{PortInfo, ConnectionInfo}`.
#[pyfunction]
#[pyo3(signature = (text, source, overrides = Vec::new()))]
fn describe<'py>(
    py: Python<'py>,
    text: String,
    source: String,
    overrides: Vec<(String, String)>,
) -> PyResult<Bound<'py, PyDict>> {
    let (scenario, spec, warnings) = enter(py, move || load(&text, &source, &overrides, None))?;
    warn(py, &warnings)?;
    // Through JSON text, which keeps the fields in their declared order.
    let network = serde_json::to_string(&atmsim_scenario::describe(&scenario, &spec))
        .map_err(|e| atmsim_error(py, "SimulationError", format!("cannot describe: {e}")))?;
    let cost = atmsim_scenario::estimate(&spec);
    let hosts = spec
        .nodes
        .iter()
        .filter(|n| matches!(n.kind, NodeKind::Host(_)))
        .count();
    let switches = spec
        .nodes
        .iter()
        .filter(|n| matches!(n.kind, NodeKind::Switch(_)))
        .count();
    let dict = PyDict::new(py);
    dict.set_item("nodes", spec.nodes.len())?;
    dict.set_item("hosts", hosts)?;
    dict.set_item("switches", switches)?;
    dict.set_item("links", spec.links.len())?;
    dict.set_item("connections", spec.connections.len())?;
    dict.set_item("duration_s", spec.run.duration.as_secs_f64())?;
    dict.set_item("warmup_s", spec.run.warmup.as_secs_f64())?;
    dict.set_item("seed", spec.run.seed)?;
    dict.set_item("estimated_events", cost.events)?;
    dict.set_item("estimated_events_largest", cost.events_largest.0)?;
    dict.set_item("max_events", scenario.run.max_events)?;
    dict.set_item("estimated_queued_cells", cost.queued_cells)?;
    dict.set_item(
        "estimated_queue_largest",
        cost.queue_largest
            .map(|q| format!("port {}: {:.1e} cells", q.port, q.cells)),
    )?;
    dict.set_item("max_queued_cells", scenario.run.max_queued_cells)?;
    let network = py.import("json")?.call_method1("loads", (network,))?;
    dict.set_item("network", network)?;
    Ok(dict)
}

/// Runs the bare loop (`atmsim_model::bench`) on a scenario's network: its cells moved by
/// the engine alone, the yardstick of `atmsim bench`. Returns a dict with `cell_hops`,
/// `events`, `simulated_s` and `wall_s`.
#[pyfunction]
#[pyo3(signature = (text, source, overrides = Vec::new()))]
fn bare_loop<'py>(
    py: Python<'py>,
    text: String,
    source: String,
    overrides: Vec<(String, String)>,
) -> PyResult<Bound<'py, PyDict>> {
    let r = enter(py, move || {
        let spec = load(&text, &source, &overrides, None)?.1;
        Ok(atmsim_model::bench::bare_loop(&spec))
    })?;
    let dict = PyDict::new(py);
    dict.set_item("cell_hops", r.cell_hops)?;
    dict.set_item("events", r.events)?;
    dict.set_item("simulated_s", r.simulated_s)?;
    dict.set_item("wall_s", r.wall_s)?;
    Ok(dict)
}

/// The wall-clock time [s] of writing `rows` samples of `columns` f64 series values once
/// into fresh memory (`atmsim_model::bench::series_write`); releases the GIL.
#[pyfunction]
fn series_write(py: Python<'_>, columns: usize, rows: usize) -> f64 {
    py.allow_threads(|| atmsim_model::bench::series_write(columns, rows))
}

/// The atmsim version these bindings were built from.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The SHA-256 (64 hex digits) of the Rust sources this extension was built from: every file
/// under `crates/*/src`, every `crates/*/Cargo.toml`, the workspace `Cargo.toml` and
/// `Cargo.lock` (build.rs). `atmsim.build_id()` combines it with the Python package's code.
#[pyfunction]
fn build_id() -> &'static str {
    env!("ATMSIM_SOURCE_SHA256")
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(bare_loop, m)?)?;
    m.add_function(wrap_pyfunction!(series_write, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(build_id, m)?)?;
    // The exception classes live in `atmsim.errors` (so that they pickle); the module
    // exposes the same objects under its own name.
    let errors = m.py().import("atmsim.errors")?;
    for name in ["ScenarioError", "SimulationError", "Cancelled"] {
        m.add(name, errors.getattr(name)?)?;
    }
    m.add_class::<CancelToken>()?;
    m.add_class::<plugins::PortView>()?;
    m.add_class::<plugins::RmCell>()?;
    m.add_class::<plugins::Measurement>()?;
    // Scenarios naming a Python plug-in are checked (class importable, hooks present) when
    // loaded from here; elsewhere they are refused.
    atmsim_model::plugin::set_checker(plugins::check);
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
