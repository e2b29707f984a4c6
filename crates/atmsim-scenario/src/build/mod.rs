//! Semantic checks and the resolution of a [`Scenario`] into a [`NetworkSpec`].
//!
//! Each check names the field at fault: duplicate or unknown names, a host used as a
//! switch or the other way round, a route over a missing link, impossible numbers (zero MSS,
//! window below MSS, zero credits or buffers, warm-up not before the end).
//!
//! Node order in the spec: the switches in file order, then the hosts in order of first
//! appearance in `[[link]]`. Links and connections keep file order.

use crate::error::{FieldPath, Problem};
use crate::schema::{Scenario, TcpOverride};
use abr::check_abr_values;
use atmsim_model::spec::NetworkSpec;
use connection::check_connections;
use hosts::{check_host, host_nodes};
use limits::check_cost;
use merge::check_merges;
use ports::switch_nodes;
use run::check_run;
use std::collections::BTreeMap;
use tcp::check_tcp;
use topology::{link_specs, Topology};

mod abr;
mod connection;
mod hosts;
mod limits;
mod merge;
mod ports;
mod rate_control;
mod run;
mod sources;
mod tcp;
mod topology;

/// The largest integer a TOML file can hold.
const TOML_INT_MAX: u64 = i64::MAX as u64;

fn path(s: &str) -> FieldPath {
    FieldPath::root().key(s)
}

fn item(array: &str, i: usize) -> FieldPath {
    FieldPath::root().key(array).index(i)
}

fn list(names: impl IntoIterator<Item = impl AsRef<str>>) -> String {
    let v: Vec<String> = names.into_iter().map(|s| s.as_ref().to_string()).collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// What a name denotes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Switch(usize),
    Host,
}

/// Checks `s` and resolves it; the first problem found is returned. Each step checks one
/// part of the scenario and resolves it into its part of the spec.
pub fn build(s: &Scenario) -> Result<NetworkSpec, Problem> {
    if s.name.trim().is_empty() {
        return Err(Problem::new(path("name"), "must not be empty"));
    }
    let run = check_run(s)?;
    check_defaults(s)?;
    let topo = Topology::check(s)?;
    let mut nodes = switch_nodes(s, &topo.index)?;
    nodes.extend(host_nodes(s, &topo.hosts)?);
    let links = link_specs(s, &topo.index);
    let connections = check_connections(s, &topo, &nodes, &links)?;
    let merges = check_merges(s, &connections, &topo)?;
    let spec = NetworkSpec {
        run,
        nodes,
        links,
        connections,
        merges,
    };
    check_cost(s, &spec)?;
    crate::trace::check(s, &spec)?;
    Ok(spec)
}

/// The tables of defaults, checked whether or not anything uses them (a value no connection
/// or host uses would otherwise be silently ignored): `[tcp]` as a whole TCP configuration,
/// `[abr]`'s values that do not depend on a connection (ICR and TCR are checked against each
/// ABR connection's PCR), `[host]` as a whole host.
fn check_defaults(s: &Scenario) -> Result<(), Problem> {
    check_tcp(&s.tcp, &TcpOverride::default(), &FieldPath::root())?;
    check_abr_values(&s.abr, &|field| path("abr").key(field))?;
    check_host(&s.host, &|field| path("host").key(field))
}

fn check_name(name: &str, p: FieldPath) -> Result<(), Problem> {
    if name.trim().is_empty() {
        Err(Problem::new(p, "names must not be empty"))
    } else if name.trim() != name || name.contains('.') {
        Err(Problem::new(
            p,
            format!("{name:?}: names may not contain '.' or start or end with a space"),
        ))
    } else {
        Ok(())
    }
}

/// The index of the link joining `a` and `b` (the route check has made sure there is one).
/// The links by the names of the nodes they join (the smaller name first).
type Pairs<'a> = BTreeMap<(&'a str, &'a str), usize>;

/// The link joining nodes `a` and `b`, if any (either way round).
fn link_between(pairs: &Pairs, a: &str, b: &str) -> Option<usize> {
    let key = if a < b { (a, b) } else { (b, a) };
    pairs.get(&key).copied()
}
