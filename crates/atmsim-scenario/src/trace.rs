//! `[trace]`: its names checked against the resolved network, and the model's
//! [`atmsim_model::trace::TraceConfig`] made from it for a traced run.

use std::path::PathBuf;

use atmsim_model::spec::{NetworkSpec, NodeKind, SourceSpec};
use atmsim_model::trace::{CellTraceConfig, TraceConfig as ModelTrace};

use crate::error::{FieldPath, Problem};
use crate::schema::{Scenario, TraceConfig};

/// The names `[trace]` may use.
struct Names {
    hosts: Vec<String>,
    ports: Vec<String>,
    tcp: Vec<String>,
    connections: Vec<String>,
}

impl Names {
    fn of(spec: &NetworkSpec) -> Names {
        let hosts = spec
            .nodes
            .iter()
            .filter(|n| matches!(n.kind, NodeKind::Host(_)))
            .map(|n| n.name.clone())
            .collect();
        let mut ports = Vec::new();
        for l in &spec.links {
            let (a, b) = (&spec.nodes[l.a].name, &spec.nodes[l.b].name);
            ports.push(format!("{a}->{b}"));
            ports.push(format!("{b}->{a}"));
        }
        let tcp = spec
            .connections
            .iter()
            .filter(|c| matches!(c.source, SourceSpec::Tcp { .. }))
            .map(|c| c.name.clone())
            .collect();
        let connections = spec.connections.iter().map(|c| c.name.clone()).collect();
        Names {
            hosts,
            ports,
            tcp,
            connections,
        }
    }
}

fn check_list(
    p: &FieldPath,
    key: &str,
    given: Option<&Vec<String>>,
    allowed: &[String],
    what: &str,
) -> Result<(), Problem> {
    let Some(given) = given else {
        return Ok(());
    };
    for (i, x) in given.iter().enumerate() {
        if !allowed.contains(x) {
            return Err(Problem::new(
                p.clone().key(key).index(i),
                format!(
                    "{x:?} is not a {what} of this scenario; allowed: {}",
                    if allowed.is_empty() {
                        "none".to_string()
                    } else {
                        allowed.join(", ")
                    }
                ),
            ));
        }
    }
    Ok(())
}

/// Checks `[trace]` against the network `spec` was resolved to.
pub(crate) fn check(s: &Scenario, spec: &NetworkSpec) -> Result<(), Problem> {
    let Some(t) = &s.trace else {
        return Ok(());
    };
    let p = FieldPath::root().key("trace");
    let names = Names::of(spec);
    check_list(&p, "hosts", t.hosts.as_ref(), &names.hosts, "host")?;
    check_list(
        &p,
        "links",
        Some(&t.links),
        &names.ports,
        "link direction (port \"A->B\")",
    )?;
    check_list(
        &p,
        "connections",
        t.connections.as_ref(),
        &names.tcp,
        "TCP connection",
    )?;
    check_list(
        &p,
        "cell_vcs",
        t.cell_vcs.as_ref(),
        &names.connections,
        "connection",
    )?;
    check_list(
        &p,
        "cell_ports",
        t.cell_ports.as_ref(),
        &names.ports,
        "link direction (port \"A->B\")",
    )?;
    if let Some(until) = t.until {
        if until.0 <= t.from.0 {
            return Err(Problem::new(
                p.clone().key("until"),
                format!(
                    "{until} is not after from ({}): the window would hold nothing; allowed: \
                     a time after from, or leave until out to trace to the end",
                    t.from
                ),
            ));
        }
    }
    if t.cell_max_rows == 0 {
        return Err(Problem::new(
            p.key("cell_max_rows"),
            "0 rows records nothing; allowed: a whole number from 1 (default 1000000)",
        ));
    }
    Ok(())
}

/// The model's trace configuration of a checked scenario: packets into `pcap_dir` (if
/// given), cells recorded if `cells`.
pub fn trace_config(s: &Scenario, pcap_dir: Option<PathBuf>, cells: bool) -> ModelTrace {
    let t = s.trace.clone().unwrap_or_default();
    let TraceConfig {
        hosts,
        links,
        connections,
        from,
        until,
        cell_vcs,
        cell_ports,
        cell_max_rows,
    } = t;
    ModelTrace {
        pcap_dir,
        hosts,
        links,
        connections,
        from: from.0,
        until: until.map(|u| u.0),
        cells: cells.then_some(CellTraceConfig {
            connections: cell_vcs,
            ports: cell_ports,
            max_rows: cell_max_rows,
        }),
    }
}
