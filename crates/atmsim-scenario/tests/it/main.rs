//! Integration tests of atmsim-scenario: the built-in scenarios, error reporting, overrides and
//! the canonical round trip.
//!
//! The small network used by most tests:
//!
//! ```text
//!   h1 --+              +-- r1
//!        +-- A ==== B --+
//!   h2 --+              +-- r2
//! ```

mod abr;
mod base;
mod bounds;
mod cost;
mod cubic_ecn;
mod fuzz;
mod merge;
mod readings;

use std::path::PathBuf;

use atmsim_engine::SimTime;
use atmsim_model::spec::{
    AppSpec, ConnectionSpec, Discipline, FlowControl, NodeKind, PolicyConfig, SchedulerSpec,
    SourceSpec, TcpVariant,
};

/// The application of a TCP connection.
fn app(c: &ConnectionSpec) -> AppSpec {
    match c.source {
        SourceSpec::Tcp { app, .. } => app,
        _ => panic!("{} is not TCP", c.name),
    }
}
use atmsim_scenario::{canonical_toml, Scenario, ScenarioError};

/// `atmsim_scenario::load` with the built-in scenarios as bases (as the Python package has).
pub(crate) fn load(
    text: &str,
    source: &str,
    overrides: &[(String, String)],
    seed: Option<u64>,
) -> Result<
    (atmsim_scenario::Scenario, atmsim_model::spec::NetworkSpec),
    atmsim_scenario::ScenarioError,
> {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/atmsim/scenarios");
    atmsim_scenario::load_with(
        text,
        source,
        &atmsim_scenario::Bases::builtin(dir),
        overrides,
        seed,
    )
}

pub(crate) const SMALL: &str = r#"name = "small"

[run]
duration = "2 s"
warmup = "0.5 s"

[tcp]
variant = "tahoe"
mss = "8192 B"

[[switch]]
name = "A"
switching_delay = "4 us"
vc_buffer = "256 cells"

[[switch]]
name = "B"
policy = { kind = "cell_drop" }

[[link]]
between = ["A", "B"]
cell_time = "2.75 us"
delay = "500 ns"
credits = "5 cells"

[[link]]
between = ["h1", "A"]
rate = "155.52 Mb/s"

[[link]]
between = ["h2", "A"]
rate = "155.52 Mb/s"

[[link]]
between = ["B", "r1"]
rate = "155.52 Mb/s"

[[link]]
between = ["B", "r2"]
rate = "155.52 Mb/s"

[[connection]]
name = "s1"
from = "h1"
to = "r1"
via = ["A", "B"]

[[connection]]
name = "s2"
from = "h2"
to = "r2"
via = ["A", "B"]
app = { bytes = "1 MB" }
tcp = { variant = "new_reno" }
"#;

fn ok(text: &str) -> (Scenario, atmsim_model::spec::NetworkSpec) {
    load(text, "small.toml", &[], None).unwrap_or_else(|e| panic!("{e}"))
}

fn err(text: &str) -> ScenarioError {
    match load(text, "small.toml", &[], None) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

fn with_set(
    pairs: &[(&str, &str)],
) -> Result<(Scenario, atmsim_model::spec::NetworkSpec), ScenarioError> {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    load(SMALL, "small.toml", &pairs, None)
}

/// 1-based line of the first line of `text` containing `needle`.
pub(crate) fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .expect("needle in text")
        + 1
}

fn scenarios_dir() -> PathBuf {
    let crate_dir = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).unwrap();
    crate_dir.join("../../python/atmsim/scenarios")
}

fn builtins() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(scenarios_dir())
        .expect("python/atmsim/scenarios exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

// ---------------------------------------------------------------------------------------------
// Resolution

#[test]
fn small_scenario_resolves_units_names_and_defaults() {
    let (s, spec) = ok(SMALL);
    assert_eq!(s.name, "small");
    assert_eq!(spec.run.duration, SimTime::from_secs(2));
    assert_eq!(spec.run.warmup, SimTime::from_ms(500));
    assert_eq!(spec.run.seed, 1);
    // Switches first, then hosts in order of first appearance in the links.
    let names: Vec<&str> = spec.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["A", "B", "h1", "h2", "r1", "r2"]);
    let NodeKind::Switch(a) = &spec.nodes[0].kind else {
        panic!()
    };
    assert_eq!(a.switching_delay, SimTime::from_us(4));
    assert_eq!(a.port.vc_buffer_cells, Some(256));
    assert_eq!(a.port.port_buffer_cells, None);
    assert_eq!(
        a.port.scheduler,
        SchedulerSpec::Single(Discipline::RoundRobin)
    );
    assert_eq!(a.port.policy, PolicyConfig::default());
    assert_eq!(spec.links[0].cell_time, SimTime::from_ns(2750));
    assert_eq!(spec.links[0].flow_control, FlowControl::Credits(5));
    assert_eq!(spec.links[1].cell_time, SimTime::from_ps(2_726_337));
    assert_eq!(spec.links[1].flow_control, FlowControl::None);
    assert_eq!((spec.links[1].a, spec.links[1].b), (2, 0));
    let s1 = &spec.connections[0];
    assert_eq!(s1.path, [2, 0, 1, 4]);
    assert_eq!(s1.tcp_spec().unwrap().variant, TcpVariant::Tahoe);
    assert_eq!(s1.tcp_spec().unwrap().mss_bytes, 8192);
    assert_eq!(s1.tcp_spec().unwrap().max_window_bytes, 65536);
    assert_eq!(s1.tcp_spec().unwrap().timer_granularity, SimTime::ZERO);
    assert_eq!(app(s1), AppSpec::Greedy);
    let s2 = &spec.connections[1];
    assert_eq!(s2.tcp_spec().unwrap().variant, TcpVariant::NewReno);
    assert_eq!(
        s2.tcp_spec().unwrap().mss_bytes,
        8192,
        "unset keys come from [tcp]"
    );
    assert_eq!(app(s2), AppSpec::Bytes(1_000_000));
}

#[test]
fn seed_argument_replaces_run_seed() {
    let (s, spec) = load(SMALL, "small.toml", &[], Some(42)).unwrap();
    assert_eq!((s.run.seed, spec.run.seed), (42, 42));
    let e = load(SMALL, "small.toml", &[], Some(u64::MAX)).unwrap_err();
    assert_eq!(e.field, "run.seed");
    assert!(e.message.contains("2^63"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// Built-in scenarios

#[test]
fn every_builtin_scenario_loads_builds_and_round_trips() {
    let files = builtins();
    assert!(files.len() >= 17, "found {} scenarios", files.len());
    for (file, text) in files {
        let (s, spec) = load(&text, &file, &[], None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            format!("{}.toml", s.name),
            file,
            "name matches the file name"
        );
        atmsim_scenario::build(&s).unwrap();
        let canon = canonical_toml(&s);
        let (back, spec2) = load(&canon, "canonical", &[], None)
            .unwrap_or_else(|e| panic!("{file}: canonical form does not load: {e}\n{canon}"));
        assert_eq!(back, s, "{file}: canonical round trip\n{canon}");
        assert_eq!(
            canonical_toml(&back),
            canon,
            "{file}: canonical form is a fixed point"
        );
        assert_eq!(
            format!("{spec:?}"),
            format!("{spec2:?}"),
            "{file}: same NetworkSpec"
        );
    }
}

#[test]
fn fang_scenarios_carry_table_1() {
    let text = std::fs::read_to_string(scenarios_dir().join("fang1994-an2.toml")).unwrap();
    let (_, spec) = load(&text, "fang1994-an2.toml", &[], None).unwrap();
    assert_eq!(spec.connections.len(), 6);
    assert_eq!(spec.nodes.len(), 14);
    for l in &spec.links {
        assert_eq!(l.cell_time, SimTime::from_ns(2750));
        assert_eq!(l.delay, SimTime::from_ns(500));
        assert_eq!(l.flow_control, FlowControl::Credits(5));
    }
    for n in &spec.nodes {
        match &n.kind {
            NodeKind::Host(h) => {
                assert_eq!(h.processing_delay, SimTime::from_us(300));
                assert_eq!(h.sar_delay_per_cell, SimTime::from_ns(200));
                assert!(!h.llc_snap);
            }
            NodeKind::Switch(sw) => {
                assert_eq!(sw.switching_delay, SimTime::from_us(4));
                assert_eq!(sw.port.vc_buffer_cells, Some(256));
                assert_eq!(
                    sw.port.scheduler,
                    SchedulerSpec::Single(Discipline::RoundRobin)
                );
            }
        }
    }
    for c in &spec.connections {
        assert_eq!(c.path.len(), 4);
        assert_eq!(c.tcp_spec().unwrap().variant, TcpVariant::Tahoe);
        assert_eq!(c.tcp_spec().unwrap().mss_bytes, 8192);
        assert_eq!(c.tcp_spec().unwrap().max_window_bytes, 65536);
        assert_eq!(c.tcp_spec().unwrap().min_rto, SimTime::from_ms(1));
        assert_eq!(c.tcp_spec().unwrap().initial_rto, SimTime::from_secs(1));
        assert_eq!(c.tcp_spec().unwrap().delayed_ack, None);
        assert_eq!(c.tcp_spec().unwrap().dupack_threshold, 3);
        assert_eq!(c.start_jitter, SimTime::from_ms(1));
    }
    let drop = std::fs::read_to_string(scenarios_dir().join("fang1994-cell-drop.toml")).unwrap();
    let (_, spec) = load(&drop, "fang1994-cell-drop.toml", &[], None).unwrap();
    assert!(spec
        .links
        .iter()
        .all(|l| l.flow_control == FlowControl::None));

    let mss64 = std::fs::read_to_string(scenarios_dir().join("fang1994-mss64.toml")).unwrap();
    let (_, spec) = load(&mss64, "fang1994-mss64.toml", &[], None).unwrap();
    let mss: Vec<u32> = spec
        .connections
        .iter()
        .map(|c| c.tcp_spec().unwrap().mss_bytes)
        .collect();
    assert_eq!(mss, [64, 8192, 8192, 8192, 8192, 8192]);
}

#[test]
fn parking_lot_groups_cross_the_last_link() {
    let text = std::fs::read_to_string(scenarios_dir().join("bench-parking-lot.toml")).unwrap();
    let (_, spec) = load(&text, "bench-parking-lot.toml", &[], None).unwrap();
    assert_eq!(spec.connections.len(), 15);
    let hops: Vec<usize> = spec.connections.iter().map(|c| c.path.len() - 1).collect();
    assert_eq!(hops, [[5; 5], [4; 5], [3; 5]].concat());
    let sw3_sw4 = spec.link_between(2, 3).unwrap();
    for c in &spec.connections {
        let crosses = c
            .path
            .windows(2)
            .any(|p| spec.link_between(p[0], p[1]) == Some(sw3_sw4));
        assert!(crosses, "{} crosses sw3-sw4", c.name);
        assert_eq!(c.tcp_spec().unwrap().variant, TcpVariant::Reno);
        assert_eq!(c.tcp_spec().unwrap().mss_bytes, 500);
        assert_eq!(
            c.tcp_spec().unwrap().delayed_ack,
            Some(SimTime::from_us(12_500))
        );
        assert_eq!(c.tcp_spec().unwrap().min_rto, SimTime::from_ms(50));
    }
    assert!(spec
        .links
        .iter()
        .all(|l| l.cell_time == SimTime::from_ps(2_726_337)));
    for n in &spec.nodes {
        if let NodeKind::Switch(sw) = &n.kind {
            assert_eq!(sw.port.scheduler, SchedulerSpec::Single(Discipline::Fifo));
            assert_eq!(sw.port.port_buffer_cells, Some(2000));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Misspelt keys and bad values

#[test]
fn misspelt_top_level_key_names_key_and_line() {
    let text = SMALL.replace("[tcp]", "[tpc]");
    let e = err(&text);
    assert_eq!(e.file, "small.toml");
    assert_eq!(e.field, "tpc");
    assert_eq!(e.line, Some(line_of(&text, "[tpc]")));
    assert!(e.message.contains("unknown field `tpc`"), "{e}");
    assert!(
        e.message.contains("`tcp`") && e.message.contains("`connection`"),
        "lists keys: {e}"
    );
}

#[test]
fn misspelt_tcp_key_names_key_and_line() {
    let text = SMALL.replace("mss = \"8192 B\"", "msss = \"8192 B\"");
    let e = err(&text);
    assert_eq!(e.field, "tcp.msss");
    assert_eq!(e.line, Some(line_of(&text, "msss")));
    assert!(
        e.message.contains("unknown field `msss`") && e.message.contains("`mss`"),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        format!(
            "small.toml:{}: tcp.msss: {}",
            line_of(&text, "msss"),
            e.message
        )
    );
}

#[test]
fn misspelt_connection_tcp_key_names_key_and_line() {
    let text = SMALL.replace("tcp = { variant", "tcp = { varient");
    let e = err(&text);
    assert_eq!(e.field, "connection[1].tcp.varient");
    assert_eq!(e.line, Some(line_of(&text, "varient")));
}

#[test]
fn misspelt_switch_key_names_key_and_line() {
    let text = SMALL.replace("vc_buffer = ", "vc_bufer = ");
    let e = err(&text);
    assert_eq!(e.field, "switch[0].vc_bufer");
    assert_eq!(e.line, Some(line_of(&text, "vc_bufer")));
    assert!(e.message.contains("`vc_buffer`"), "{e}");
}

#[test]
fn misspelt_policy_key_names_key_and_line() {
    let text = SMALL.replace(
        "{ kind = \"cell_drop\" }",
        "{ kind = \"cell_drop\", treshold = 3 }",
    );
    let e = err(&text);
    assert_eq!(e.field, "switch[1].policy.treshold");
    assert_eq!(e.line, Some(line_of(&text, "treshold")));
    assert!(e.message.contains("unknown field `treshold`"), "{e}");
    let text = SMALL.replace("{ kind = \"cell_drop\" }", "{ kind = \"cel_drop\" }");
    let e = err(&text);
    assert_eq!(e.field, "switch[1].policy.kind");
    assert!(e.message.contains("cell_drop"), "lists the kinds: {e}");
}

/// A policy or source table missing a key it needs names the key and quotes a complete table
/// of its kind, in a file and in an override; and every quoted table loads.
#[test]
fn a_table_missing_a_key_quotes_a_complete_table_of_its_kind() {
    use atmsim_model::port::policy::PolicyConfig;
    let text = SMALL.replace(
        "{ kind = \"cell_drop\" }",
        "{ kind = \"espd\", high = 0.9 }",
    );
    let e = err(&text);
    assert_eq!(e.field, "switch[1].policy.low");
    assert_eq!(e.line, Some(line_of(&text, "kind = \"espd\"")));
    assert!(
        e.message
            .contains(r#"e.g. policy = { kind = "espd", high = 0.95, low = 0.9 }"#),
        "{e}"
    );
    let e = with_set(&[("switch.*.policy", "{ kind = \"epd\" }")]).unwrap_err();
    assert_eq!(e.field, "switch[0].policy.threshold");
    assert!(
        e.message
            .contains(r#"e.g. policy = { kind = "epd", threshold = 0.9 }"#),
        "{e}"
    );
    // The same for a cell source's table.
    let e = with_set(&[(
        "connection.s1.source",
        "{ kind = \"on_off\", duty_cycle = 0.5 }",
    )])
    .unwrap_err();
    assert_eq!(e.field, "connection[0].source.period");
    assert!(
        e.message
            .contains(r#"e.g. source = { kind = "on_off", rate = "100 Mb/s", period"#),
        "{e}"
    );
    // An unknown key is not a missing one: no example then.
    let e = with_set(&[("switch.*.policy", "{ kind = \"epd\", treshold = 0.9 }")]).unwrap_err();
    assert!(!e.message.contains("e.g. policy"), "{e}");
    for kind in PolicyConfig::KINDS {
        let example = PolicyConfig::example(kind).expect("every policy has an example");
        let loaded = with_set(&[
            ("switch.*.policy", example),
            ("switch.*.port_buffer", "1000 cells"),
        ]);
        if *kind == "python" {
            // A plug-in loads only where Python can check it (atmsim._core).
            let e = loaded.unwrap_err();
            assert_eq!(e.field, "switch[0].policy.kind");
            assert!(e.message.contains("runs only from Python"), "{e}");
            continue;
        }
        let (_, spec) = loaded.unwrap_or_else(|e| panic!("{kind}: {example} does not load: {e}"));
        let policy = match &spec.nodes[0].kind {
            NodeKind::Switch(sw) => sw.port.policy.kind(),
            _ => unreachable!("switches come first"),
        };
        assert_eq!(policy, *kind);
    }
    // Every rate control's example loads on an ABR scenario, as the scheme it names.
    let abr =
        std::fs::read_to_string(scenarios_dir().join("kalyanaraman1996-table1.toml")).unwrap();
    for kind in atmsim_scenario::schema::RateControlConfig::KINDS {
        let example = atmsim_scenario::schema::RateControlConfig::example(kind).unwrap();
        let set = [("switch.*.rate_control".to_string(), example.to_string())];
        let loaded = load(&abr, "k.toml", &set, None);
        if *kind == "python" {
            let e = loaded.unwrap_err();
            assert!(e.message.contains("runs only from Python"), "{e}");
            continue;
        }
        let (_, spec) = loaded.unwrap_or_else(|e| panic!("{kind}: {example} does not load: {e}"));
        let NodeKind::Switch(sw) = &spec.nodes[0].kind else {
            unreachable!("switches come first")
        };
        assert_eq!(sw.port.rate_control.kind(), *kind);
    }
    // A rate control's table that misses a key quotes its scheme's example.
    let set = [(
        "switch.*.rate_control".to_string(),
        r#"{ kind = "erica", load_averaging = { method = "ratio" } }"#.to_string(),
    )];
    let e = load(&abr, "k.toml", &set, None).unwrap_err();
    assert!(e.message.contains("missing field `az`"), "{e}");
    assert!(
        e.message
            .contains(r#"e.g. rate_control = { kind = "erica", "#)
            && e.message
                .contains(r#"load_averaging = { method = "ratio", az = 0.2 }"#),
        "{e}"
    );
    for kind in ["tcp", "greedy", "cbr", "on_off"] {
        let example = atmsim_scenario::schema::SourceConfig::example(kind).expect("an example");
        with_set(&[("connection.s1.source", example)])
            .unwrap_or_else(|e| panic!("{kind}: {example} does not load: {e}"));
    }
}

#[test]
fn bad_unit_names_the_field_and_the_units() {
    let text = SMALL.replace("delay = \"500 ns\"", "delay = \"500 nsec\"");
    let e = err(&text);
    assert_eq!(e.field, "link[0].delay");
    assert_eq!(e.line, Some(line_of(&text, "500 nsec")));
    assert!(e.message.contains("(units: ps, ns, us, µs, ms, s)"), "{e}");

    let text = SMALL.replace("mss = \"8192 B\"", "mss = 8192");
    let e = err(&text);
    assert_eq!(e.field, "tcp.mss");
    assert!(e.message.contains("bare number 8192"), "{e}");
    assert!(
        e.message.contains("(units: B, KB, KiB, MB, MiB, GB, GiB)"),
        "{e}"
    );

    let text = SMALL.replacen("rate = \"155.52 Mb/s\"", "rate = \"155.52 Mbps\"", 1);
    let e = err(&text);
    assert_eq!(e.field, "link[1].rate");
    assert!(e.message.contains("cells/s"), "{e}");
}

#[test]
fn missing_required_field_is_named() {
    let text = SMALL.replacen("from = \"h1\"\n", "", 1);
    let e = err(&text);
    assert_eq!(e.field, "connection[0].from");
    assert_eq!(e.line, Some(line_of(&text, "[[connection]]")));
    let e = err(&SMALL.replace("name = \"small\"", ""));
    assert_eq!(e.field, "name");
}

#[test]
fn toml_syntax_error_has_a_line() {
    let text = SMALL
        .replace("seed", "x")
        .replace("warmup = \"0.5 s\"", "warmup = \"0.5 s");
    let e = err(&text);
    assert_eq!(e.line, Some(line_of(&text, "warmup")));
    assert!(e.message.starts_with("invalid TOML"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// Semantic checks

fn semantic(from: &str, to: &str) -> ScenarioError {
    assert!(SMALL.contains(from), "{from}");
    err(&SMALL.replacen(from, to, 1))
}

#[test]
fn route_over_a_missing_link_names_connection_pair_and_links() {
    let text = SMALL.replacen("via = [\"A\", \"B\"]", "via = [\"A\"]", 1);
    let e = err(&text);
    assert_eq!(e.field, "connection[0].via");
    assert_eq!(e.line, Some(line_of(&text, "via = [\"A\"]")));
    assert!(e.message.contains("between A and r1"), "{e}");
    assert!(e.message.contains("links of A: A-B, h1-A, h2-A"), "{e}");
}

#[test]
fn semantic_errors_name_their_field() {
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "via = [\"A\", \"B\"]",
            "via = [\"A\", \"h2\", \"B\"]",
            "connection[0].via",
            "is a host",
        ),
        (
            "via = [\"A\", \"B\"]",
            "via = [\"A\", \"C\"]",
            "connection[0].via",
            "unknown switch",
        ),
        (
            "from = \"h1\"",
            "from = \"A\"",
            "connection[0].from",
            "is a switch",
        ),
        (
            "to = \"r1\"",
            "to = \"r9\"",
            "connection[0].to",
            "unknown node",
        ),
        (
            "warmup = \"0.5 s\"",
            "warmup = \"2 s\"",
            "run.warmup",
            "shorter than duration",
        ),
        (
            "mss = \"8192 B\"",
            "mss = \"0 B\"",
            "tcp.mss",
            "at least 1 B",
        ),
        (
            "mss = \"8192 B\"",
            "mss = \"8192 B\"\nmax_window = \"4 KiB\"",
            "tcp.max_window",
            "smaller than mss",
        ),
        ("mss = \"8192 B\"", "mss = \"128 KiB\"", "tcp.mss", "65,535"),
        (
            "credits = \"5 cells\"",
            "credits = \"0 cells\"",
            "link[0].credits",
            "at least 1",
        ),
        (
            "between = [\"h2\", \"A\"]",
            "between = [\"A\", \"A\"]",
            "link[2].between",
            "itself",
        ),
        (
            "name = \"s2\"",
            "name = \"s1\"",
            "connection[1].name",
            "duplicate",
        ),
        (
            "name = \"B\"",
            "name = \"A\"",
            "switch[1].name",
            "duplicate",
        ),
        (
            "vc_buffer = \"256 cells\"",
            "vc_buffer = \"0 cells\"",
            "switch[0].vc_buffer",
            "0 cells",
        ),
        (
            "cell_time = \"2.75 us\"",
            "",
            "link[0]",
            "missing rate or cell_time",
        ),
        (
            "cell_time = \"2.75 us\"",
            "cell_time = \"2.75 us\"\nrate = \"1 Mb/s\"",
            "link[0].cell_time",
            "not both",
        ),
        (
            "app = { bytes = \"1 MB\" }",
            "app = { bytes = \"0 B\" }",
            "connection[1].app",
            "0 bytes",
        ),
        (
            "tcp = { variant = \"new_reno\" }",
            "tcp = { mss = \"0 B\" }",
            "connection[1].tcp.mss",
            "at least 1 B",
        ),
        ("[tcp]", "[tcp]\ntimer = \"0 s\"", "tcp.timer", "exact"),
        (
            "[tcp]",
            "[tcp]\ndelayed_ack = \"0 s\"",
            "tcp.delayed_ack",
            "off",
        ),
        (
            "[tcp]",
            "[tcp]\nmin_rto = \"100 s\"",
            "tcp.min_rto",
            "above max_rto",
        ),
        (
            "[[link]]\nbetween = [\"h2\", \"A\"]",
            "[[link]]\nbetween = [\"h1\", \"B\"]",
            "link[2].between",
            "already has a link",
        ),
    ];
    for (from, to, field, needle) in cases {
        let e = semantic(from, to);
        assert_eq!(e.field, *field, "{from} -> {to}: {e}");
        assert!(e.message.contains(needle), "{from} -> {to}: {e}");
        assert_eq!(e.file, "small.toml");
        assert!(e.line.is_some(), "{from} -> {to}: no line: {e}");
    }
}

#[test]
fn switch_without_links_and_unknown_host_override_are_refused() {
    let e = err(&format!("{SMALL}\n[[switch]]\nname = \"C\"\n"));
    assert_eq!(e.field, "switch[2]");
    assert!(e.message.contains("no links"), "{e}");
    let e = err(&format!("{SMALL}\n[hosts.h9]\nllc_snap = true\n"));
    assert_eq!(e.field, "hosts.h9");
    assert!(
        e.message.contains("unknown host h9") && e.message.contains("h1, h2, r1, r2"),
        "{e}"
    );
    let e = err(&format!("{SMALL}\n[hosts.A]\nllc_snap = true\n"));
    assert!(e.message.contains("is a switch"), "{e}");
}

#[test]
fn host_overrides_apply_to_one_host() {
    let (_, spec) = ok(&format!(
        "{SMALL}\n[hosts.h2]\nprocessing_delay = \"1 ms\"\n"
    ));
    let delay = |name: &str| {
        let n = spec.nodes.iter().find(|n| n.name == name).unwrap();
        let NodeKind::Host(h) = &n.kind else { panic!() };
        h.processing_delay
    };
    assert_eq!(delay("h2"), SimTime::from_ms(1));
    assert_eq!(delay("h1"), SimTime::ZERO);
}

#[test]
fn the_ip_service_serves_sent_packets_by_default_and_both_directions_on_request() {
    let hosts = |spec: &atmsim_model::spec::NetworkSpec| -> Vec<(String, bool, SimTime)> {
        spec.nodes
            .iter()
            .filter_map(|n| match &n.kind {
                NodeKind::Host(h) => {
                    Some((n.name.clone(), h.ip_both_directions, h.ip_service_time))
                }
                _ => None,
            })
            .collect()
    };
    let (s, spec) = ok(SMALL);
    assert!(hosts(&spec).iter().all(|(_, both, _)| !both));
    assert!(canonical_toml(&s).contains("ip_directions = \"out\""));

    let (s, spec) = with_set(&[
        ("host.ip_rate", "10500 packets/s"),
        ("hosts.h2.ip_directions", "both"),
    ])
    .unwrap_or_else(|e| panic!("{e}"));
    for (name, both, service) in hosts(&spec) {
        assert_eq!(both, name == "h2", "{name}");
        assert_eq!(service, SimTime(95_238_095), "{name}: 1/10,500 s");
    }
    let (back, _) = load(&canonical_toml(&s), "canonical", &[], None).unwrap();
    assert_eq!(back, s);

    let e = err(&SMALL.replace("[tcp]\n", "[host]\nip_directions = \"in\"\n\n[tcp]\n"));
    assert_eq!(e.field, "host.ip_directions");
    assert!(e.to_string().contains("both"), "{e}");
}

#[test]
fn recover_guard_is_on_by_default_and_set_in_tcp_per_connection_or_by_set() {
    let guards = |spec: &atmsim_model::spec::NetworkSpec| -> Vec<bool> {
        spec.connections
            .iter()
            .map(|c| c.tcp_spec().unwrap().recover_guard)
            .collect()
    };
    let (s, spec) = ok(SMALL);
    assert_eq!(guards(&spec), [true, true]);
    assert!(canonical_toml(&s).contains("recover_guard = true"));

    let text = SMALL
        .replace("[tcp]\n", "[tcp]\nrecover_guard = false\n")
        .replace(
            "tcp = { variant = \"new_reno\" }",
            "tcp = { variant = \"new_reno\", recover_guard = true }",
        );
    let (s, spec) = ok(&text);
    assert_eq!(guards(&spec), [false, true]);
    let (back, _) = load(&canonical_toml(&s), "canonical", &[], None).unwrap();
    assert_eq!(back, s);

    let (_, spec) = with_set(&[("connection.s1.tcp.recover_guard", "false")]).unwrap();
    assert_eq!(guards(&spec), [false, true]);

    let e = err(&SMALL.replace("[tcp]\n", "[tcp]\nrecover_guard = \"no\"\n"));
    assert_eq!(e.field, "tcp.recover_guard");
}

#[test]
fn periodic_per_host_ack_clock_gives_each_host_its_own_phase() {
    let text = SMALL.replace(
        "[tcp]\n",
        "[tcp]\ndelayed_ack = \"12.5 ms\"\nack_clock = \"periodic_per_host\"\n",
    );
    let (_, spec) = ok(&text);
    for c in &spec.connections {
        let t = c.tcp_spec().unwrap();
        assert_eq!(t.ack_clock, atmsim_model::spec::AckClock::PeriodicPerHost);
    }
    let (_, spec) = ok(&SMALL.replace("[tcp]\n", "[tcp]\nack_clock = \"periodic\"\n"));
    let t = spec.connections[0].tcp_spec().unwrap();
    assert_eq!(t.ack_clock, atmsim_model::spec::AckClock::Periodic);
    let e = err(&SMALL.replace("[tcp]\n", "[tcp]\nack_clock = \"per_host\"\n"));
    assert_eq!(e.field, "tcp.ack_clock");
    assert!(e.to_string().contains("periodic_per_host"), "{e}");
}

#[test]
fn cwnd_growth_is_per_ack_by_default_and_set_per_connection_or_by_set() {
    let growth = |spec: &atmsim_model::spec::NetworkSpec| -> Vec<bool> {
        spec.connections
            .iter()
            .map(|c| {
                c.tcp_spec().unwrap().cwnd_growth == atmsim_model::spec::CwndGrowth::PerSegment
            })
            .collect()
    };
    let (s, spec) = ok(SMALL);
    assert_eq!(growth(&spec), [false, false]);
    assert!(canonical_toml(&s).contains("cwnd_growth = \"per_ack\""));

    let text = SMALL.replace(
        "tcp = { variant = \"new_reno\" }",
        "tcp = { variant = \"new_reno\", cwnd_growth = \"per_segment\" }",
    );
    let (s, spec) = ok(&text);
    assert_eq!(growth(&spec), [false, true]);
    let (back, _) = load(&canonical_toml(&s), "canonical", &[], None).unwrap();
    assert_eq!(back, s);

    let (_, spec) = with_set(&[("tcp.cwnd_growth", "per_segment")]).unwrap();
    assert_eq!(growth(&spec), [true, true]);
    let (_, spec) = with_set(&[("tcp.cwnd_growth", "per_ack_plus_eighth")]).unwrap();
    assert!(spec
        .connections
        .iter()
        .all(|c| c.tcp_spec().unwrap().cwnd_growth
            == atmsim_model::spec::CwndGrowth::PerAckPlusEighth));

    let e = err(&SMALL.replace("[tcp]\n", "[tcp]\ncwnd_growth = \"per_byte\"\n"));
    assert_eq!(e.field, "tcp.cwnd_growth");
    assert!(e.to_string().contains("per_segment"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// Overrides

#[test]
fn overrides_in_every_form() {
    let (s, spec) = with_set(&[
        ("run.duration", "3 s"),
        ("run.seed", "7"),
        ("tcp.mss", "64 B"),
        ("switch.A.vc_buffer", "512 cells"),
        ("switch.*.policy", "{kind=\"cell_drop\"}"),
        ("switch.1.scheduler", "fifo"),
        ("connection.s2.tcp.mss", "1000 B"),
        ("connection.*.start_jitter", "1 ms"),
        ("link.A-B.credits", "off"),
        ("link.r2-B.delay", "1 ms"),
        ("hosts.h1.llc_snap", "true"),
    ])
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(spec.run.duration, SimTime::from_secs(3));
    assert_eq!(spec.run.seed, 7);
    assert_eq!(spec.connections[0].tcp_spec().unwrap().mss_bytes, 64);
    assert_eq!(spec.connections[1].tcp_spec().unwrap().mss_bytes, 1000);
    assert!(spec
        .connections
        .iter()
        .all(|c| c.start_jitter == SimTime::from_ms(1)));
    let NodeKind::Switch(a) = &spec.nodes[0].kind else {
        panic!()
    };
    assert_eq!(a.port.vc_buffer_cells, Some(512));
    let NodeKind::Switch(b) = &spec.nodes[1].kind else {
        panic!()
    };
    assert_eq!(b.port.scheduler, SchedulerSpec::Single(Discipline::Fifo));
    assert_eq!(spec.links[0].flow_control, FlowControl::None);
    assert_eq!(spec.links[4].delay, SimTime::from_ms(1));
    assert!(s.hosts["h1"].llc_snap == Some(true));
}

#[test]
fn unknown_override_key_is_refused_like_a_misspelt_key() {
    let e = with_set(&[("tcp.msss", "64 B")]).unwrap_err();
    assert_eq!((e.file.as_str(), e.line), ("--set", None));
    assert_eq!(e.field, "tcp.msss");
    assert!(
        e.message.contains("unknown field `msss`") && e.message.contains("`mss`"),
        "{e}"
    );
    assert!(e.message.contains("--set tcp.msss=64 B"), "{e}");

    let e = with_set(&[("tpc.mss", "64 B")]).unwrap_err();
    assert_eq!((e.file.as_str(), e.field.as_str()), ("--set", "tpc"));

    let e = with_set(&[("connection.s1.tcp.mss_", "64 B")]).unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.field.as_str()),
        ("--set", "connection[0].tcp.mss_")
    );

    let e = with_set(&[("switch.*.policy", "{kind=\"cell_drop\", x=1}")]).unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.field.as_str()),
        ("--set", "switch[0].policy.x")
    );

    let e = with_set(&[("switch.C.vc_buffer", "1 cells")]).unwrap_err();
    assert_eq!(e.file, "--set");
    assert!(e.message.contains("no switch named `C`"), "{e}");
}

#[test]
fn bad_override_values_name_set() {
    let e = with_set(&[("tcp.mss", "64")]).unwrap_err();
    assert_eq!((e.file.as_str(), e.field.as_str()), ("--set", "tcp.mss"));
    assert!(e.message.contains("(units: B, KB"), "{e}");
    let e = with_set(&[("run.warmup", "5 s")]).unwrap_err();
    assert_eq!((e.file.as_str(), e.field.as_str()), ("--set", "run.warmup"));
    // A semantic error in the file is still placed in the file.
    let text = SMALL.replace("warmup = \"0.5 s\"", "warmup = \"3 s\"");
    let pairs = [("tcp.mss".to_string(), "64 B".to_string())];
    let e = load(&text, "small.toml", &pairs, None).unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.line),
        ("small.toml", Some(line_of(&text, "warmup")))
    );
}

// ---------------------------------------------------------------------------------------------
// Canonical form

#[test]
fn canonical_form_writes_every_default() {
    let (s, _) = ok(SMALL);
    let canon = canonical_toml(&s);
    for needle in [
        "description = \"\"",
        "sample_every = \"10 ms\"",
        "seed = 1",
        "timer = \"exact\"",
        "delayed_ack = \"off\"",
        "max_rto = \"64 s\"",
        "processing_delay = \"0 s\"",
        "llc_snap = false",
        "scheduler = \"round_robin\"",
        "service = \"ubr\"",
        "source = { kind = \"tcp\" }",
        "port_buffer = \"unlimited\"",
        "policy = { kind = \"cell_drop\" }",
        "credits = \"off\"",
        "rate = \"155.52 Mb/s\"",
        "app = \"greedy\"",
        "app = { bytes = \"1 MB\" }",
        "tcp = { variant = \"new_reno\" }",
        "start_jitter = \"0 s\"",
    ] {
        assert!(canon.contains(needle), "missing {needle:?} in\n{canon}");
    }
    let (back, _) = load(&canon, "canonical", &[], None).unwrap();
    assert_eq!(back, s);
    // Overrides survive canonicalisation and still reach every connection.
    let pairs = [("tcp.mss".to_string(), "100 B".to_string())];
    let (_, spec) = load(&canon, "canonical", &pairs, None).unwrap();
    assert!(spec
        .connections
        .iter()
        .all(|c| c.tcp_spec().unwrap().mss_bytes == 100));
}

#[test]
fn sonet_framing_carries_cells_at_the_payload_rate() {
    // 155.52 Mb/s in a SONET STS-3c payload: cells at 149.76 Mb/s, 424 bits each; a link
    // given by its cell time refuses the framing.
    let (_, plain) = with_set(&[]).unwrap();
    let (_, sonet) = with_set(&[("link.h1-A.framing", "sonet")]).unwrap();
    let h1a = |s: &atmsim_model::spec::NetworkSpec| {
        s.links
            .iter()
            .find(|l| s.nodes[l.a].name == "h1" && s.nodes[l.b].name == "A")
            .unwrap()
            .cell_time
    };
    let at = |mbps: f64| SimTime((424.0 / (mbps * 1e6) * 1e12_f64).round() as u64);
    assert_eq!(h1a(&sonet), at(149.76));
    assert_eq!(h1a(&plain), at(155.52));
    let e = with_set(&[("link.A-B.framing", "sonet")]).unwrap_err();
    assert_eq!(e.field, "link[0].framing");
}
