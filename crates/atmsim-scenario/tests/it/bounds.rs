//! The bound of every quantity a scenario sets, field by field: a value past it is refused
//! with the field named (exit 2 on the command line), never accepted to fail later inside the
//! model. Each row: the override, the field the error must name, a word of the message, and
//! why the bound is where it is.

use crate::load;

const BASE: &str = include_str!("../../../../python/atmsim/scenarios/fang1994-cell-drop.toml");
const ABR: &str = include_str!("../../../../python/atmsim/scenarios/kalyanaraman1996-table1.toml");
const AN2: &str = include_str!("../../../../python/atmsim/scenarios/fang1994-an2.toml");

/// Combinations the model cannot run, on the AN2 scenario (credits on every link): refused
/// when the scenario is read, not discovered at run time (it exited 3 before).
const AN2_ROWS: &[(&str, &str, &str, &str, &str)] = &[(
    "switch.*.scheduler",
    "fifo",
    "switch[0].scheduler",
    "per-VC queues",
    "credits are per VC: a FIFO cannot hold a VC back",
)];

/// (override key, value, field named, word in the message, why).
const ROWS: &[(&str, &str, &str, &str, &str)] = &[
    // [run]
    (
        "run.duration",
        "0 s",
        "run.duration",
        "positive",
        "nothing to simulate",
    ),
    (
        "run.warmup",
        "20 s",
        "run.warmup",
        "shorter",
        "statistics need time after the warm-up",
    ),
    (
        "run.seed",
        "9223372036854775808",
        "run.seed",
        "expected",
        "the largest TOML integer",
    ),
    (
        "run.sample_every",
        "1 ps",
        "run.sample_every",
        "at least",
        "memory: 100 M sampled values",
    ),
    (
        "run.sample_kinds",
        "[\"ports\"]",
        "run.sample_kinds[0]",
        "allowed: connection, port, abr, rate_control",
        "a misspelt kind would silently record nothing",
    ),
    (
        "run.sample_entities",
        "[\"nowhere->sw1\"]",
        "run.sample_entities[0]",
        "not a connection or port",
        "an entity the network does not have",
    ),
    (
        "run.sample_metrics",
        "[\"goodput\"]",
        "run.sample_metrics[0]",
        "goodput_mbps",
        "a misspelt metric",
    ),
    (
        "run.sample_metrics",
        "[]",
        "run.sample_metrics",
        "keeps nothing",
        "\"0 s\" sampling says that",
    ),
    (
        "run.series",
        "[\"adapter_ports\"]",
        "run.series[0]",
        "allowed: connections, switch_ports, host_ports, abr, rate_control, all",
        "a misspelt group would silently record nothing",
    ),
    (
        "run.series",
        "[]",
        "run.series",
        "keeps nothing",
        "\"0 s\" sampling says that",
    ),
    // [tcp]
    (
        "tcp.mss",
        "0 B",
        "tcp.mss",
        "at least 1 B",
        "a segment carries data",
    ),
    (
        "tcp.mss",
        "65488 B",
        "tcp.mss",
        "65,535",
        "AAL5's SDU less TCP/IP and LLC/SNAP headers",
    ),
    (
        "tcp.max_window",
        "100 B",
        "tcp.max_window",
        "smaller than mss",
        "one segment must fit",
    ),
    (
        "tcp.max_window",
        "2 GB",
        "tcp.max_window",
        "65,535 x 2^14",
        "RFC 7323's largest window",
    ),
    (
        "tcp.timer",
        "0 s",
        "tcp.timer",
        "exact",
        "a 0 s tick never fires",
    ),
    (
        "tcp.min_rto",
        "100 s",
        "tcp.min_rto",
        "max_rto",
        "the bounds must be ordered",
    ),
    (
        "tcp.delayed_ack",
        "0 s",
        "tcp.delayed_ack",
        "off",
        "a 0 s wait is no delay",
    ),
    (
        "tcp.initial_cwnd",
        "0",
        "tcp.initial_cwnd",
        "at least 1",
        "a window of nothing sends nothing",
    ),
    (
        "tcp.initial_ssthresh",
        "8 KiB",
        "tcp.initial_ssthresh",
        "two segments",
        "RFC 5681 never lets ssthresh fall below two segments (MSS 8192 B here)",
    ),
    (
        "tcp.initial_ssthresh",
        "1 MiB",
        "tcp.initial_ssthresh",
        "max_window",
        "the receiver window caps every window",
    ),
    (
        "tcp.window_scale",
        "15",
        "tcp.window_scale",
        "14",
        "RFC 7323's largest shift",
    ),
    (
        "tcp.sack_blocks",
        "0",
        "tcp.sack_blocks",
        "1 to 4",
        "RFC 2018: 40 option bytes",
    ),
    (
        "tcp.drop_at_cwnd",
        "10 B",
        "tcp.drop_at_cwnd",
        "one MSS",
        "a window below one MSS",
    ),
    (
        "tcp.drop_count",
        "0",
        "tcp.drop_count",
        "1 to 10000",
        "at least one segment per loss",
    ),
    (
        "tcp.window_scale",
        "\"3\"",
        "tcp.window_scale",
        "is a string",
        "a shift is a number, as every count is (it was read from the string)",
    ),
    // [abr] in a scenario without an ABR connection: its defaults are checked all the same
    // (they were silently ignored).
    (
        "abr.nrm",
        "1",
        "abr.nrm",
        "2, 4, 8, ..., 256",
        "TM 4.0: Nrm from 2 to 256, checked unused",
    ),
    (
        "abr.rif",
        "-5",
        "abr.rif",
        "0 < rif <= 1",
        "a fraction of PCR, checked unused",
    ),
    (
        "abr.tbe",
        "0 cells",
        "abr.tbe",
        "at least 1 cell",
        "no exposure lets no cell go, checked unused",
    ),
    // [host]
    (
        "host.aal_overhead",
        "2 KiB",
        "host.aal_overhead",
        "8 B",
        "AAL5's trailer to 1 KiB",
    ),
    (
        "host.processing_jitter",
        "1 s",
        "host.processing_jitter",
        "processing_delay",
        "no negative CPU time",
    ),
    // [[switch]]
    (
        "switch.A.vc_buffer",
        "0 cells",
        "switch[0].vc_buffer",
        "holds nothing",
        "an empty buffer",
    ),
    (
        "switch.A.port_buffer",
        "0 cells",
        "switch[0].port_buffer",
        "holds nothing",
        "an empty buffer",
    ),
    (
        "switch.A.policy",
        "{ kind = \"epd\", threshold = 1.5 }",
        "switch[0].policy.threshold",
        "fraction",
        "a share of the buffer",
    ),
    (
        "switch.A.policy",
        "{ kind = \"espd\", high = 0.5, low = 0.9 }",
        "switch[0].policy.low",
        "exceed high",
        "hysteresis",
    ),
    (
        "switch.A.policy",
        "{ kind = \"gfr\", z = 1.0 }",
        "switch[0].policy.z",
        "above 1",
        "the drop probability divides by Z - 1",
    ),
    (
        "switch.A.policy",
        "{ kind = \"fba\", threshold = 1.0 }",
        "switch[0].policy.threshold",
        "below the buffer size",
        "FBA divides by X - R",
    ),
    (
        "switch.A.policy",
        "{ kind = \"selective_drop\", z = 0 }",
        "switch[0].policy.z",
        "positive",
        "a VC's share against Z",
    ),
    (
        "switch.A.policy",
        "{ kind = \"gfr\" }",
        "switch[0].policy.kind",
        "port_buffer",
        "thresholds are fractions of the port buffer",
    ),
    (
        "switch.A.policy",
        "{ kind = \"red\", min_th = 0.5, max_th = 0.5, packet_size = \"12 cells\" }",
        "switch[0].policy.max_th",
        "not above min_th",
        "RED's drop probability divides by max_th - min_th",
    ),
    (
        "switch.A.policy",
        "{ kind = \"red\", min_th = 0, max_th = 0.5, packet_size = \"12 cells\" }",
        "switch[0].policy.min_th",
        "0 < min_th < max_th",
        "a threshold at an empty buffer",
    ),
    (
        "switch.A.policy",
        "{ kind = \"red\", min_th = 0.2, max_th = 0.5, w_q = 0, packet_size = \"12 cells\" }",
        "switch[0].policy.w_q",
        "0 < w_q <= 1",
        "an average that never moves",
    ),
    (
        "switch.A.policy",
        "{ kind = \"red\", min_th = 0.2, max_th = 0.5, max_p = 2, packet_size = \"12 cells\" }",
        "switch[0].policy.max_p",
        "0 < max_p <= 1",
        "a probability",
    ),
    (
        "switch.A.policy",
        "{ kind = \"red\", min_th = 0.2, max_th = 0.5, packet_size = \"0 cells\" }",
        "switch[0].policy.packet_size",
        "at least 1 cell",
        "the idle decay divides by a frame's transmission time",
    ),
    (
        "switch.A.policy",
        "{ kind = \"red\", min_th = 0.2, max_th = 0.5, packet_size = \"12 cells\" }",
        "switch[0].policy.kind",
        "port_buffer",
        "RED's thresholds are fractions of the shared buffer",
    ),
    // [[link]]
    (
        "link.*.credits",
        "0 cells",
        "link[0].credits",
        "at least 1 cell",
        "no credit, no cell",
    ),
    (
        "link.0.cell_time",
        "0 s",
        "link[0]",
        "",
        "a cell takes time",
    ),
    // [[connection]]
    (
        "connection.s1.share.threshold",
        "0 cells",
        "connection[0].share.threshold",
        "at least 1 cell",
        "an empty share",
    ),
    (
        "connection.s1.share.weight",
        "-1",
        "connection[0].share.weight",
        ">= 0",
        "a drop probability weight",
    ),
    (
        "connection.s1.clp",
        "2",
        "connection[0].clp",
        "0 (untagged) or 1",
        "a header bit",
    ),
];

/// ABR end systems (TM 4.0's parameters) and rate controls, on an ABR scenario.
const ABR_ROWS: &[(&str, &str, &str, &str, &str)] = &[
    ("abr.nrm", "1", "abr.nrm", "", "TM 4.0: Nrm from 2 to 256"),
    ("abr.rif", "2", "abr.rif", "", "a fraction of PCR"),
    ("abr.rdf", "0", "abr.rdf", "", "a decrease factor in (0, 1]"),
    ("abr.cdf", "2", "abr.cdf", "", "a fraction"),
    (
        "switch.A.rate_control.interval_cells",
        "0",
        "switch[0].rate_control.interval_cells",
        "1 or more ABR cells",
        "an interval of 0 cells (as interval = \"0 s\" is refused)",
    ),
    (
        "switch.A.rate_control",
        "{ kind = \"erica_plus\", interval_cells = 0 }",
        "switch[0].rate_control.interval_cells",
        "1 or more ABR cells",
        "ERICA+'s interval",
    ),
    (
        "switch.A.rate_control",
        "{ kind = \"fmmra\", interval_cells = 0 }",
        "switch[0].rate_control.interval_cells",
        "1 or more ABR cells",
        "FMMRA's interval",
    ),
    (
        "switch.A.rate_control",
        "{ kind = \"eprca\", dpf = 1.5 }",
        "switch[0].rate_control.dpf",
        "allowed 0 < dpf <= 1",
        "EPRCA's down pressure factor",
    ),
    (
        "switch.A.rate_control",
        "{ kind = \"eprca\", qt = \"2000 cells\" }",
        "switch[0].rate_control.qt",
        "allowed qt <= dqt",
        "EPRCA's thresholds in order",
    ),
];

/// A scenario of cell sources alone: no TCP, no ABR, two hosts that set their own
/// `aal_overhead`. The tables of defaults are checked all the same.
const CELLS_ONLY: &str = r#"name = "cells-only"
[run]
duration = "10 ms"
[hosts.h]
aal_overhead = "8 B"
[hosts.r]
aal_overhead = "8 B"
[[link]]
between = ["h", "r"]
rate = "155.52 Mb/s"
[[connection]]
name = "v"
from = "h"
to = "r"
service = "cbr"
pcr = "10 Mb/s"
source = "cbr"
"#;

/// Defaults no connection or host uses, on [`CELLS_ONLY`].
const UNUSED_ROWS: &[(&str, &str, &str, &str, &str)] = &[
    (
        "tcp.sack_blocks",
        "9",
        "tcp.sack_blocks",
        "1 to 4",
        "RFC 2018, without a TCP",
    ),
    ("tcp.mss", "0 B", "tcp.mss", "at least 1 B", "without a TCP"),
    (
        "tcp.max_window",
        "1 KiB",
        "tcp.max_window",
        "smaller than mss",
        "[tcp] is a whole TCP configuration",
    ),
    (
        "host.aal_overhead",
        "2 KiB",
        "host.aal_overhead",
        "8 B",
        "every host sets its own",
    ),
    (
        "abr.mrm",
        "40",
        "abr.mrm",
        "mrm < nrm",
        "without an ABR connection",
    ),
    (
        "abr.trm",
        "0 s",
        "abr.trm",
        "above 0 s",
        "without an ABR connection",
    ),
    (
        "abr.source_buffer",
        "0 cells",
        "abr.source_buffer",
        "holds nothing",
        "without an ABR connection",
    ),
];

fn refused(
    text: &str,
    key: &str,
    value: &str,
    field: &str,
    word: &str,
    why: &str,
) -> Option<String> {
    let set = [(key.to_string(), value.to_string())];
    match load(text, "bounds.toml", &set, None) {
        Ok(_) => Some(format!("{key} = {value} was accepted ({why})")),
        Err(e) => {
            let shown = e.to_string();
            if !e.field.starts_with(field) {
                Some(format!(
                    "{key} = {value}: wrong field {:?} in {shown} ({why})",
                    e.field
                ))
            } else if !shown.contains(word) {
                Some(format!("{key} = {value}: {shown} lacks {word:?} ({why})"))
            } else {
                None
            }
        }
    }
}

#[test]
fn every_bound_is_checked_where_the_scenario_is_read() {
    let mut problems = Vec::new();
    for &(key, value, field, word, why) in ROWS {
        problems.extend(refused(BASE, key, value, field, word, why));
    }
    for &(key, value, field, word, why) in ABR_ROWS {
        problems.extend(refused(ABR, key, value, field, word, why));
    }
    for &(key, value, field, word, why) in AN2_ROWS {
        problems.extend(refused(AN2, key, value, field, word, why));
    }
    for &(key, value, field, word, why) in UNUSED_ROWS {
        problems.extend(refused(CELLS_ONLY, key, value, field, word, why));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The tables of defaults are checked where they are written, with their line, whether or
/// not anything uses them.
#[test]
fn unused_defaults_are_refused_at_their_line() {
    assert!(load(CELLS_ONLY, "cells.toml", &[], None).is_ok());
    for (table, key, field) in [
        ("[abr]", "nrm = 1", "abr.nrm"),
        ("[abr]", "rif = -5.0", "abr.rif"),
        ("[tcp]", "sack_blocks = 9", "tcp.sack_blocks"),
        ("[tcp]", "mss = \"0 B\"", "tcp.mss"),
        (
            "[host]",
            "processing_jitter = \"1 us\"",
            "host.processing_jitter",
        ),
    ] {
        let text = format!("{CELLS_ONLY}{table}\n{key}\n");
        let line = text.lines().position(|l| l == key).unwrap() + 1;
        let e = load(&text, "cells.toml", &[], None).unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.line),
            (field, Some(line)),
            "{table} {key}: {e}"
        );
    }
}

/// Every number a scenario holds, written as a string, is refused naming its field: a
/// number is never read from a string (`tcp.window_scale = "3"` was).
#[test]
fn numbers_written_as_strings_are_refused_everywhere() {
    // Every kind of table that holds numbers, with every default written out.
    let sets: Vec<(String, String)> = [
        ("tcp.window_scale", "5"),
        ("tcp.variant", "\"sack\""),
        ("run.max_events", "60000000000"),
        ("run.max_queued_cells", "60000000"),
        ("switch.A.policy", "{ kind = \"gfr\" }"),
        ("switch.A.port_buffer", "\"5000 cells\""),
        (
            "switch.B.rate_control",
            "{ kind = \"erica_plus\", source_decay = 0.9, load_averaging = { method = \"ratio\", az = 0.2 } }",
        ),
        (
            "switch.B.ports.A.rate_control",
            "{ kind = \"fmmra\" }",
        ),
        ("switch.B.ports.A.policy", "{ kind = \"epd\", threshold = 0.9 }"),
        ("connection.s1.share", "{ threshold = \"100 cells\", weight = 2.0 }"),
        ("connection.s1.clp", "1"),
        ("connection.s1.mcr", "\"1 Mb/s\""),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let (scenario, _) = load(ABR, "abr.toml", &sets, None).unwrap_or_else(|e| panic!("{e}"));
    let canonical = atmsim_scenario::canonical_toml(&scenario);
    let root: toml::Value = toml::from_str(&canonical).unwrap();
    let mut numbers = Vec::new();
    numeric_leaves(&root, String::new(), &mut numbers);
    assert!(numbers.len() > 30, "{} numbers", numbers.len());
    let mut problems = Vec::new();
    for (path, steps) in &numbers {
        let mut v = root.clone();
        let leaf = steps.iter().fold(&mut v, |v, s| match s {
            Step::Key(k) => &mut v[k.as_str()],
            Step::Index(i) => &mut v[*i],
        });
        *leaf = toml::Value::String(leaf.to_string());
        let text = toml::to_string(&v).unwrap();
        // Inside a table whose `kind` picks its keys (policy, rate_control) serde names the
        // table, and the message the value.
        let value = leaf_text(&root, steps);
        let tagged = |field: &str| {
            ["policy", "rate_control"]
                .iter()
                .any(|t| field.ends_with(&format!(".{t}")))
        };
        match load(&text, "abr.toml", &[], None) {
            Ok(_) => problems.push(format!("{path} = \"{value}\" was accepted")),
            Err(e) if e.field == *path => {}
            Err(e)
                if tagged(&e.field)
                    && path.starts_with(&e.field)
                    && e.message.contains(&format!("string \"{value}\"")) => {}
            Err(e) => problems.push(format!("{path} as a string: wrong field in {e}")),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

enum Step {
    Key(String),
    Index(usize),
}

fn leaf_text(root: &toml::Value, steps: &[Step]) -> String {
    steps
        .iter()
        .fold(root, |v, s| match s {
            Step::Key(k) => &v[k.as_str()],
            Step::Index(i) => &v[*i],
        })
        .to_string()
}

/// The integers and floats under `v`: (the field as errors name it, the way there).
fn numeric_leaves(v: &toml::Value, path: String, out: &mut Vec<(String, Vec<Step>)>) {
    fn walk(
        v: &toml::Value,
        path: &str,
        steps: &mut Vec<Step>,
        out: &mut Vec<(String, Vec<Step>)>,
    ) {
        match v {
            toml::Value::Integer(_) | toml::Value::Float(_) => {
                let copy = steps
                    .iter()
                    .map(|s| match s {
                        Step::Key(k) => Step::Key(k.clone()),
                        Step::Index(i) => Step::Index(*i),
                    })
                    .collect();
                out.push((path.to_string(), copy));
            }
            toml::Value::Table(t) => {
                for (k, x) in t {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    steps.push(Step::Key(k.clone()));
                    walk(x, &p, steps, out);
                    steps.pop();
                }
            }
            toml::Value::Array(items) => {
                for (i, x) in items.iter().enumerate() {
                    steps.push(Step::Index(i));
                    walk(x, &format!("{path}[{i}]"), steps, out);
                    steps.pop();
                }
            }
            _ => {}
        }
    }
    walk(v, &path, &mut Vec::new(), out);
}

/// Credits on a link whose switch end serves FIFO only towards the source: the data VC
/// never meets that port (it leaves the host's adapter), its ACK VC does on the way back.
/// The scenario validated and the run failed (exit 3) before; the model refuses it, so the
/// scenario layer must too, for the ACKs of TCP and the backward RM cells of ABR.
#[test]
fn credits_need_per_vc_queues_on_the_way_back_too() {
    let fifo_towards_hosts = [
        ("link.h1-A.credits".to_string(), "10 cells".to_string()),
        ("switch.A.scheduler".to_string(), "fifo".to_string()),
        (
            "switch.A.ports".to_string(),
            "{ B = { scheduler = \"round_robin\" } }".to_string(),
        ),
    ];
    let e = load(BASE, "b.toml", &fifo_towards_hosts, None).expect_err("FIFO back to h1");
    assert_eq!(e.field, "switch[0].scheduler", "{e}");
    assert!(e.message.contains("its VC back"), "{e}");
    // A CBR cell source has no VC back: the same links are fine for it.
    let mut cbr = fifo_towards_hosts.to_vec();
    cbr.push((
        "connection.*.source".to_string(),
        "{ kind = \"cbr\", rate = \"1 Mb/s\" }".to_string(),
    ));
    cbr.push(("connection.*.tcp".to_string(), "{}".to_string()));
    let loaded = load(BASE, "b.toml", &cbr, None);
    assert!(loaded.is_ok(), "{:?}", loaded.err().map(|e| e.to_string()));
}
