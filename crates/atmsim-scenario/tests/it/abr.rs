//! An ABR connection's defaults are resolved once, in the scenario layer: the spec carries
//! the FRTT and the ICR its source uses.

use atmsim_engine::SimTime;
use atmsim_model::spec::{round_trip, NetworkSpec};

use crate::load;

const ABR: &str = r#"name = "abr-defaults"
[run]
duration = "1 s"
[abr]
tbe = "100 cells"
icr = "100 Mb/s"
[[switch]]
name = "A"
switching_delay = "4 us"
[[switch]]
name = "B"
switching_delay = "6 us"
[[link]]
between = ["A", "B"]
rate = "155.52 Mb/s"
delay = "1 ms"
[[link]]
between = ["h1", "A"]
rate = "155.52 Mb/s"
delay = "10 us"
[[link]]
between = ["h2", "A"]
rate = "155.52 Mb/s"
[[link]]
between = ["B", "r1"]
rate = "155.52 Mb/s"
delay = "20 us"
[[link]]
between = ["B", "r2"]
rate = "155.52 Mb/s"
[[connection]]
name = "path"
from = "h1"
to = "r1"
via = ["A", "B"]
service = "abr"
source = "greedy"
[[connection]]
name = "given"
from = "h2"
to = "r2"
via = ["A", "B"]
service = "abr"
source = "greedy"
mcr = "10 Mb/s"
abr = { frtt = "50 ms", icr = "pcr" }
"#;

fn spec() -> NetworkSpec {
    load(ABR, "abr.toml", &[], None)
        .unwrap_or_else(|e| panic!("{e}"))
        .1
}

#[test]
fn frtt_path_is_the_route_round_trip_in_the_spec() {
    let spec = spec();
    let c = &spec.connections[0];
    let p = c.abr.unwrap().params;
    // 2 x (10 us + 1 ms + 20 us of links, 4 us + 6 us of switches).
    assert_eq!(p.frtt, SimTime::from_us(2 * 1040));
    assert_eq!(p.frtt, round_trip(&spec.nodes, &spec.links, &c.path));
    assert_eq!(
        spec.connections[1].abr.unwrap().params.frtt,
        SimTime::from_ms(50)
    );
}

#[test]
fn the_spec_carries_the_icr_the_source_uses() {
    let spec = spec();
    // 100 cells over a 2.08 ms round trip bound the ICR of 100 Mb/s (about 236,000 cells/s).
    let p = spec.connections[0].abr.unwrap().params;
    assert_eq!(p.icr, 100.0 / p.frtt.as_secs_f64());
    // 100 cells over 50 ms: 2,000 cells/s, below the MCR of 10 Mb/s, so ICR = MCR.
    let p = spec.connections[1].abr.unwrap().params;
    assert_eq!(p.icr, p.mcr);
    assert!(p.mcr > 2_000.0);
    assert!(p.icr < p.pcr);
}

/// The destination's CI rule: the last data cell's EFCI by default (TM 4.0 destination rule
/// 1), any marked cell since the last turnaround per `[abr]` or per connection; a bad word
/// names the field and what is allowed.
#[test]
fn the_destination_ci_rule_is_the_last_cells_unless_set() {
    let any = |spec: &NetworkSpec| -> Vec<bool> {
        spec.connections
            .iter()
            .map(|c| c.abr.unwrap().ci_any_since_rm)
            .collect()
    };
    assert_eq!(any(&spec()), [false, false]);
    let (s, one) = load(
        &ABR.replace(
            "icr = \"pcr\" }",
            "icr = \"pcr\", destination_ci = \"any_since_rm\" }",
        ),
        "abr.toml",
        &[],
        None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(any(&one), [false, true]);
    assert!(atmsim_scenario::canonical_toml(&s).contains("destination_ci = \"last_cell\""));
    let set = [("abr.destination_ci".to_string(), "any_since_rm".to_string())];
    let (_, all) = load(ABR, "abr.toml", &set, None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(any(&all), [true, true]);
    let bad = [("abr.destination_ci".to_string(), "first_cell".to_string())];
    let e = load(ABR, "abr.toml", &bad, None).unwrap_err();
    assert_eq!(e.field, "abr.destination_ci", "{e}");
    assert!(e.to_string().contains("any_since_rm"), "{e}");
}

/// A host's CPU time is uniform (within the jitter) by default, exponential on request; an
/// exponential time with a jitter is refused at the field that sets the jitter.
#[test]
fn the_processing_distribution_is_uniform_unless_exponential_is_asked() {
    use atmsim_model::spec::NodeKind;
    let exp = |spec: &NetworkSpec| -> Vec<(String, bool)> {
        spec.nodes
            .iter()
            .filter_map(|n| match &n.kind {
                NodeKind::Host(h) => Some((n.name.clone(), h.processing_exponential)),
                _ => None,
            })
            .collect()
    };
    assert!(exp(&spec()).iter().all(|(_, e)| !e));
    let set = |pairs: &[(&str, &str)]| {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        load(ABR, "abr.toml", &pairs, None)
    };
    let (_, spec) = set(&[
        ("host.processing_delay", "200 us"),
        ("hosts.h2.processing_distribution", "exponential"),
    ])
    .unwrap_or_else(|e| panic!("{e}"));
    for (name, e) in exp(&spec) {
        assert_eq!(e, name == "h2", "{name}");
    }
    let e = set(&[
        ("host.processing_delay", "200 us"),
        ("host.processing_jitter", "50 us"),
        ("hosts.h1.processing_distribution", "exponential"),
    ])
    .unwrap_err();
    assert_eq!(e.field, "hosts.h1.processing_jitter", "{e}");
    assert!(e.to_string().contains("uniform"), "{e}");
    let e = set(&[("host.processing_distribution", "normal")]).unwrap_err();
    assert_eq!(e.field, "host.processing_distribution", "{e}");
    assert!(e.to_string().contains("exponential"), "{e}");
}

/// `abr.access_rate`: off by default; a rate gives the access line's cell time; a cell
/// source's connection is refused, naming the field.
#[test]
fn access_rate_is_off_by_default_and_a_rate_gives_the_lines_cell_time() {
    let spec = spec();
    assert!(spec
        .connections
        .iter()
        .all(|c| c.abr.unwrap().access_cell_time.is_none()));
    let tcp = ABR.replace("source = \"greedy\"\n", "");
    let set = [("abr.access_rate".to_string(), "155.52 Mb/s".to_string())];
    let spec = load(&tcp, "abr.toml", &set, None)
        .unwrap_or_else(|e| panic!("{e}"))
        .1;
    for c in &spec.connections {
        // 424 bits at 155.52 Mb/s: 2,726,337.45 ps.
        assert_eq!(c.abr.unwrap().access_cell_time, Some(SimTime(2_726_337)));
    }
    let e = load(ABR, "abr.toml", &set, None).unwrap_err().to_string();
    assert!(e.contains("access_rate") && e.contains("\"off\""), "{e}");
    let bad = [("abr.access_rate".to_string(), "fast".to_string())];
    let e = load(&tcp, "abr.toml", &bad, None).unwrap_err().to_string();
    assert!(e.contains("access_rate") && e.contains("off"), "{e}");
}
