//! A connection: its name, route, service category, traffic descriptor, source, ABR end
//! systems, buffer share and CLP, and the AN2 credit check along its route.

use super::abr::{check_abr, AbrRoute};
use super::sources::check_source;
use super::topology::{check_route, Topology};
use super::{check_name, item, link_between, path, Pairs, Role};
use crate::error::{FieldPath, Problem};
use crate::schema::{
    AbrOverride, ConnectionConfig, Discipline, Scenario, Scheduler, Service, ShareConfig,
    SourceConfig,
};
use crate::units::{Cells, Rate};
use atmsim_model::service::{ServiceCategory, TrafficDescriptor};
use atmsim_model::spec::{round_trip, ConnectionSpec, LinkSpec, NodeIdx, NodeSpec, VcShare};
use std::collections::HashMap;

/// A connection's share of the buffers it crosses.
pub(super) fn check_share(s: &ShareConfig, conn: &FieldPath) -> Result<VcShare, Problem> {
    if s.threshold == Some(Cells(0)) {
        return Err(Problem::new(
            conn.clone().key("share").key("threshold"),
            "a threshold of 0 cells: give at least 1 cell (or no threshold)",
        ));
    }
    if !(s.weight.is_finite() && s.weight >= 0.0) {
        return Err(Problem::new(
            conn.clone().key("share").key("weight"),
            format!("{}: allowed a number >= 0 (W_i, e.g. 1.0)", s.weight),
        ));
    }
    Ok(VcShare {
        threshold: s.threshold.map(|c| c.0),
        weight: s.weight,
    })
}

pub(super) fn check_service(
    c: &ConnectionConfig,
    _p: &FieldPath,
) -> Result<ServiceCategory, Problem> {
    Ok(match c.service {
        Service::Ubr => ServiceCategory::Ubr,
        Service::Gfr => ServiceCategory::Gfr,
        Service::Cbr => ServiceCategory::Cbr,
        Service::Vbr => ServiceCategory::Vbr,
        Service::Abr => ServiceCategory::Abr,
    })
}

/// A rate in cells per second.
pub(super) fn cells_per_second(r: Rate) -> f64 {
    1e12 / r.cell_time().as_ps() as f64
}

/// The traffic descriptor: only the parameters of the VC's category, each sensible.
pub(super) fn check_descriptor(
    c: &ConnectionConfig,
    service: ServiceCategory,
    p: &FieldPath,
) -> Result<TrafficDescriptor, Problem> {
    // (field, set, categories it belongs to)
    let fields: [(&str, bool, &[ServiceCategory]); 5] = {
        use ServiceCategory::*;
        [
            ("pcr", c.pcr.is_some(), &[Cbr, Vbr, Abr, Ubr, Gfr]),
            ("scr", c.scr.is_some(), &[Vbr]),
            ("mbs", c.mbs.is_some(), &[Vbr, Gfr]),
            ("mcr", c.mcr.is_some(), &[Abr, Gfr]),
            ("mfs", c.mfs.is_some(), &[Gfr]),
        ]
    };
    for (field, set, categories) in fields {
        if set && !categories.contains(&service) {
            let names: Vec<&str> = categories.iter().map(|s| s.name()).collect();
            return Err(Problem::new(
                p.clone().key(field),
                format!(
                    "{field} is not a parameter of the {} service (it belongs to {})",
                    service.name(),
                    names.join(", ")
                ),
            ));
        }
    }
    if matches!(service, ServiceCategory::Cbr | ServiceCategory::Vbr) && c.pcr.is_none() {
        return Err(Problem::new(
            p.clone().key("pcr"),
            format!(
                "a {} VC needs its peak cell rate, e.g. pcr = \"100 Mb/s\"",
                service.name()
            ),
        ));
    }
    let rate = |r: Option<Rate>| r.map(cells_per_second);
    let d = TrafficDescriptor {
        pcr: rate(c.pcr),
        scr: rate(c.scr),
        mbs: c.mbs.map(|m| m.0),
        mcr: rate(c.mcr),
        mfs: c.mfs.map(|m| m.0),
    };
    for (field, lower) in [("scr", d.scr), ("mcr", d.mcr)] {
        if let (Some(x), Some(pcr)) = (lower, d.pcr) {
            if x > pcr {
                return Err(Problem::new(
                    p.clone().key(field),
                    format!(
                        "{field} must not exceed pcr ({} > {})",
                        fmt_rate(c, field),
                        fmt_pcr(c)
                    ),
                ));
            }
        }
    }
    for (field, n) in [("mbs", d.mbs), ("mfs", d.mfs)] {
        if n == Some(0) {
            return Err(Problem::new(
                p.clone().key(field),
                "must be at least 1 cell",
            ));
        }
    }
    Ok(d)
}

pub(super) fn fmt_pcr(c: &ConnectionConfig) -> String {
    c.pcr.map_or_else(String::new, |r| r.to_string())
}

pub(super) fn fmt_rate(c: &ConnectionConfig, field: &str) -> String {
    match field {
        "scr" => c.scr,
        _ => c.mcr,
    }
    .map_or_else(String::new, |r| r.to_string())
}

/// AN2 credits need per-VC queues: at every switch port on the connection's route whose
/// link runs credits, the connection's class must be served round robin, and on the way back
/// too when the connection has a VC in the other direction (a TCP connection's ACKs, an ABR
/// connection's backward RM cells), which has the connection's service category. CBR and VBR
/// connections are not flow controlled (AN2 credits its best-effort traffic only).
pub(super) fn check_flow_control(
    s: &Scenario,
    c: &ConnectionConfig,
    service: ServiceCategory,
    route: &[&str],
    roles: &HashMap<&str, Role>,
    pairs: &Pairs,
) -> Result<(), Problem> {
    if service.class() == atmsim_model::service::PriorityClass::RealTime {
        return Ok(());
    }
    let back: Vec<&str> = route.iter().rev().copied().collect();
    let has_back = matches!(c.source, SourceConfig::Tcp(_)) || service == ServiceCategory::Abr;
    let ways: &[(&[&str], &str)] = if has_back {
        &[(route, ""), (&back, " (its VC back, for ACKs or RM cells)")]
    } else {
        &[(route, "")]
    };
    for &(way, which) in ways {
        for pair in way.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let Some(&Role::Switch(i)) = roles.get(a) else {
                continue; // hosts' adapters always queue per VC
            };
            let sw = &s.switch[i];
            let link = &s.link[link_between(pairs, a, b).expect("checked by check_route")];
            if link.credits.is_word() {
                continue;
            }
            let o = sw.ports.get(b).cloned().unwrap_or_default();
            let sched = sw.port().with(&o).scheduler;
            let discipline = match sched {
                Scheduler::Single(d) => d,
                Scheduler::Priority {
                    cbr_vbr,
                    abr,
                    ubr_gfr,
                } => match service.class() {
                    atmsim_model::service::PriorityClass::RealTime => cbr_vbr,
                    atmsim_model::service::PriorityClass::Abr => abr,
                    atmsim_model::service::PriorityClass::BestEffort => ubr_gfr,
                },
            };
            if discipline == Discipline::Fifo {
                let at = if o.sets("scheduler") {
                    item("switch", i).key("ports").key(b).key("scheduler")
                } else {
                    item("switch", i).key("scheduler")
                };
                return Err(Problem::new(
                    at,
                    format!(
                        "link {} runs AN2 credits ({}), which need per-VC queues, but connection \
                         {}{which} is served FIFO at {a}'s port to {b}; use scheduler = \
                         \"round_robin\" there or credits = \"off\" on the link",
                        link.name(),
                        link.credits,
                        c.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The connections, in file order (names unique).
pub(super) fn check_connections(
    s: &Scenario,
    topo: &Topology,
    nodes: &[NodeSpec],
    links: &[LinkSpec],
) -> Result<Vec<ConnectionSpec>, Problem> {
    if s.connection.is_empty() {
        return Err(Problem::new(
            path("connection"),
            "a scenario needs at least one [[connection]]",
        ));
    }
    let mut conn_names: HashMap<&str, usize> = HashMap::new();
    let mut connections = Vec::with_capacity(s.connection.len());
    for (i, c) in s.connection.iter().enumerate() {
        let p = item("connection", i);
        check_name(&c.name, p.clone().key("name"))?;
        if let Some(j) = conn_names.insert(&c.name, i) {
            return Err(Problem::new(
                p.key("name"),
                format!(
                    "duplicate connection name {:?} (also connection[{j}])",
                    c.name
                ),
            ));
        }
        connections.push(check_connection(s, c, &p, topo, (nodes, links))?);
    }
    Ok(connections)
}

/// One connection (its name already checked).
fn check_connection(
    s: &Scenario,
    c: &ConnectionConfig,
    p: &FieldPath,
    topo: &Topology,
    (nodes, links): (&[NodeSpec], &[LinkSpec]),
) -> Result<ConnectionSpec, Problem> {
    let route = check_route(s, c, p, &topo.roles, &topo.hosts, &topo.pairs)?;
    let path: Vec<NodeIdx> = route.iter().map(|n| topo.index[n]).collect();
    let service = check_service(c, p)?;
    let descriptor = check_descriptor(c, service, p)?;
    let source = check_source(s, c, &descriptor, p)?;
    check_flow_control(s, c, service, &route, &topo.roles, &topo.pairs)?;
    let abr = if service == ServiceCategory::Abr {
        let first = &links[link_between(&topo.pairs, route[0], route[1]).expect("a checked route")];
        let route = AbrRoute {
            first_link_rate: first.cells_per_second(),
            round_trip: round_trip(nodes, links, &path),
        };
        Some(check_abr(s, c, &descriptor, &route, p)?)
    } else {
        if c.abr != AbrOverride::default() {
            return Err(Problem::new(
                p.clone().key("abr"),
                "ABR settings apply only to a connection of the ABR service (service = \"abr\")",
            ));
        }
        None
    };
    Ok(ConnectionSpec {
        name: c.name.clone(),
        path,
        service,
        descriptor,
        source,
        start: c.start.0,
        start_jitter: c.start_jitter.0,
        abr,
        share: check_share(&c.share, p)?,
        tagged: match c.clp {
            0 => false,
            1 => true,
            x => {
                return Err(Problem::new(
                    p.clone().key("clp"),
                    format!("{x}: the CLP bit is 0 (untagged) or 1 (tagged)"),
                ))
            }
        },
    })
}
