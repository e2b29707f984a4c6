//! What a scenario would cost, checked before it runs: the VCs of each port (16-bit labels),
//! the events (`run.max_events`) and the queued cells (`run.max_queued_cells`). Each scenario
//! here once validated and then ran for an hour, aborted or failed at run time.

use atmsim_model::spec::NodeKind;
use atmsim_model::Network;
use atmsim_scenario::{build, cost, estimate, ScenarioError};

use super::load;

/// An ON-OFF source switching every half picosecond: 6.0e10 events in 30 ms (it validated,
/// then ran for about an hour).
const FAST_ON_OFF: &str = r#"name = "fast-on-off"
[run]
duration = "30 ms"
[[link]]
between = ["h", "r"]
rate = "155.52 Mb/s"
[[connection]]
name = "v"
from = "h"
to = "r"
service = "vbr"
pcr = "100 Mb/s"
source = { kind = "on_off", period = "1 ps", duty_cycle = 0.5 }
"#;

/// A greedy cell source into an unlimited port buffer on a slow link for 500 s: 1.8e8 cells
/// queued at A's port to r (it aborted: "memory allocation of 1610612736 bytes failed").
const FLOOD: &str = r#"name = "greedy-flood"
[run]
duration = "500 s"
[[switch]]
name = "A"
[[link]]
between = ["h", "A"]
rate = "155.52 Mb/s"
[[link]]
between = ["A", "r"]
rate = "1 Mb/s"
[[connection]]
name = "g"
from = "h"
to = "r"
via = ["A"]
source = "greedy"
"#;

fn set(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn refused(text: &str, pairs: &[(&str, &str)]) -> ScenarioError {
    match load(text, "cost.toml", &set(pairs), None) {
        Ok(_) => panic!("accepted with {pairs:?}"),
        Err(e) => e,
    }
}

fn accepted(text: &str, pairs: &[(&str, &str)]) -> atmsim_model::spec::NetworkSpec {
    load(text, "cost.toml", &set(pairs), None)
        .unwrap_or_else(|e| panic!("{e}"))
        .1
}

#[test]
fn an_on_off_source_switching_every_half_picosecond_is_refused_naming_the_estimate() {
    let e = refused(FAST_ON_OFF, &[]);
    let shown = e.to_string();
    assert_eq!(
        (e.file.as_str(), e.field.as_str()),
        ("cost.toml", "run.max_events")
    );
    for needle in [
        "estimated at up to 6.0e10 events",
        "run.max_events = 50000000000",
        "connection 'v': on_off source switching every 0.5 ps: 6.0e10 events over 30 ms",
        "run.max_events = 61000000000 (--set run.max_events=61000000000)",
    ] {
        assert!(shown.contains(needle), "{needle:?} not in {shown}");
    }
    // The ceiling it names lets it through; so does a slower source.
    accepted(FAST_ON_OFF, &[("run.max_events", "61000000000")]);
    let spec = accepted(FAST_ON_OFF, &[("connection.v.source.period", "1 ns")]);
    assert!((estimate(&spec).events - 6.0e7).abs() < 1e6);
    // Exponential durations switch as often on average.
    let e = refused(
        FAST_ON_OFF,
        &[("connection.v.source.durations", "exponential")],
    );
    assert_eq!(e.field, "run.max_events", "{e}");
}

#[test]
fn the_events_ceiling_is_a_whole_number() {
    for (value, needle) in [
        ("5e10", "floating-point"),
        ("\"50000000000\"", "is a string"),
        ("-1", "negative"),
    ] {
        let e = refused(FAST_ON_OFF, &[("run.max_events", value)]);
        assert_eq!(e.field, "run.max_events", "{e}");
        assert!(e.message.contains(needle), "{value}: {e}");
    }
    accepted(FAST_ON_OFF, &[("run.max_events", "61_000_000_000")]);
}

#[test]
fn a_greedy_source_flooding_an_unlimited_buffer_is_refused_naming_the_port() {
    let e = refused(FLOOD, &[]);
    let shown = e.to_string();
    assert_eq!(e.field, "run.max_queued_cells", "{shown}");
    for needle in [
        "estimated to hold up to 1.8e8 cells",
        "run.max_queued_cells = 50000000",
        "port A->r, whose cell sources feed it 3.6e5 cells/s more than its link sends",
        "1.8e8 cells over 500 s",
        "port_buffer = \"N cells\" on switch A",
        "run.max_queued_cells = 190000000",
    ] {
        assert!(shown.contains(needle), "{needle:?} not in {shown}");
    }
    // A buffer, a shorter run or a higher ceiling: each lets it through.
    accepted(FLOOD, &[("switch.A.port_buffer", "1000 cells")]);
    accepted(FLOOD, &[("switch.A.ports.r.vc_buffer", "1000 cells")]);
    accepted(FLOOD, &[("run.duration", "100 s")]);
    accepted(FLOOD, &[("run.max_queued_cells", "190000000")]);
}

#[test]
fn a_port_past_65536_vcs_is_refused_where_the_scenario_is_read() {
    let base = r#"name = "many"
[run]
duration = "10 ms"
sample_every = "0 s"
[[switch]]
name = "A"
[[link]]
between = ["h", "A"]
rate = "155.52 Mb/s"
[[link]]
between = ["A", "r"]
rate = "155.52 Mb/s"
[[connection]]
name = "c"
from = "h"
to = "r"
via = ["A"]
"#;
    let (mut s, _) = load(base, "many.toml", &[], None).unwrap();
    let one = s.connection.pop().unwrap();
    let many = |n: usize| {
        let mut s = s.clone();
        s.connection = (0..n)
            .map(|i| {
                let mut c = one.clone();
                c.name = format!("c{i}");
                c
            })
            .collect();
        s
    };
    // Each TCP connection: its data VC on h->A and A->r, its ACK VC on r->A and A->h.
    let e = build(&many(65_537)).unwrap_err();
    assert_eq!(e.field, "connection[65536]", "{e}");
    for needle in [
        "port h->A would carry 65537 VCs",
        "more than the 65,536 its 16-bit labels can name",
        "65537 connections pass it (65537 of them TCP",
    ] {
        assert!(e.message.contains(needle), "{needle:?} not in {e}");
    }
    // At the limit the model wires it, as the check says.
    let spec = build(&many(65_536)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(cost::vcs_per_port(&spec), vec![65_536; 4]);
    let net = Network::new(&spec, "many").unwrap();
    assert!(net.ports().iter().all(|p| p.slots.len() == 65_536));
}

fn scenarios_dir() -> std::path::PathBuf {
    let crate_dir = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).unwrap();
    crate_dir.join("../../python/atmsim/scenarios")
}

/// Every built-in, and the shapes the built-ins lack: an ABR cell source (its feedback VC),
/// AN2 credits under a greedy source, merged VCs.
fn shapes() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(scenarios_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out.push(("abr-cell-source".into(), ABR_CELL.into()));
    out.push(("credits-greedy".into(), CREDITS.into()));
    out
}

const ABR_CELL: &str = r#"name = "abr-cell"
[run]
duration = "200 ms"
[[switch]]
name = "A"
scheduler = { kind = "priority" }
rate_control = { kind = "erica" }
[[link]]
between = ["h", "A"]
rate = "155.52 Mb/s"
[[link]]
between = ["A", "r"]
rate = "100 Mb/s"
delay = "1 ms"
[[link]]
between = ["v", "A"]
rate = "155.52 Mb/s"
[[link]]
between = ["h3", "A"]
rate = "155.52 Mb/s"
[[connection]]
name = "a"
from = "h"
to = "r"
via = ["A"]
service = "abr"
source = "greedy"
[[connection]]
name = "t"
from = "h3"
to = "r"
via = ["A"]
service = "abr"
[[connection]]
name = "v"
from = "v"
to = "r"
via = ["A"]
service = "vbr"
pcr = "60 Mb/s"
source = { kind = "on_off", period = "1 ms", duty_cycle = 0.3, durations = "exponential" }
"#;

const CREDITS: &str = r#"name = "credit-greedy"
[run]
duration = "200 ms"
[[switch]]
name = "A"
[[switch]]
name = "B"
[[link]]
between = ["h", "A"]
rate = "155.52 Mb/s"
[[link]]
between = ["A", "B"]
rate = "155.52 Mb/s"
credits = "5 cells"
[[link]]
between = ["B", "r"]
rate = "10 Mb/s"
[[link]]
between = ["h2", "A"]
rate = "155.52 Mb/s"
[[link]]
between = ["B", "r2"]
rate = "155.52 Mb/s"
[[connection]]
name = "g"
from = "h"
to = "r"
via = ["A", "B"]
source = "greedy"
[[connection]]
name = "t"
from = "h2"
to = "r2"
via = ["A", "B"]
"#;

#[test]
fn the_vcs_counted_per_port_are_the_ones_the_model_wires() {
    let mut shapes = shapes();
    shapes.push((
        "goyal1998-merge with merges".into(),
        std::fs::read_to_string(scenarios_dir().join("goyal1998-merge.toml")).unwrap(),
    ));
    for (name, text) in shapes {
        let (_, spec) = load(&text, &name, &[], None).unwrap_or_else(|e| panic!("{e}"));
        let net = Network::new(&spec, &name).unwrap();
        let wired: Vec<usize> = net.ports().iter().map(|p| p.slots.len()).collect();
        assert_eq!(cost::vcs_per_port(&spec), wired, "{name}");
    }
}

/// The estimates bound what a run does: its events, the longest queue at any switch port and
/// at any port (runs of 50 ms without warm-up; over 500 ms the built-ins' events are 1.3 to
/// 7.5 times below their estimates, docs/scenarios.md).
#[test]
fn the_estimates_bound_what_a_short_run_does() {
    let short = set(&[
        ("run.duration", "50 ms"),
        ("run.warmup", "0 s"),
        ("run.sample_every", "5 ms"),
    ]);
    let mut shapes = shapes();
    shapes.push(("greedy-flood".into(), FLOOD.into()));
    for (name, text) in shapes {
        let (_, spec) = load(&text, &name, &short, None).unwrap_or_else(|e| panic!("{e}"));
        let c = estimate(&spec);
        let report = atmsim_model::run(&spec, &name).unwrap();
        let events = report.summary.events as f64;
        assert!(
            c.events >= events,
            "{name}: estimated {:.3e} events, ran {events:.3e}",
            c.events
        );
        // Switch ports (a host adapter holds its TCPs' windows, counted in all).
        let switch = |node: &str| {
            spec.nodes
                .iter()
                .any(|n| n.name == node && matches!(n.kind, NodeKind::Switch(_)))
        };
        let longest = |at_switch: bool| {
            report
                .summary
                .ports
                .iter()
                .filter(|p| !at_switch || switch(&p.node))
                .map(|p| p.max_queue_cells as f64)
                .fold(0.0, f64::max)
        };
        let q = c.queue_largest.as_ref().map_or(0.0, |q| q.cells);
        assert!(
            q >= longest(true) && c.queued_cells >= longest(false),
            "{name}: estimated {q:.3e} at one switch port, {:.3e} in all; ran {} and {}",
            c.queued_cells,
            longest(true),
            longest(false)
        );
    }
}
