//! The topology: switches, links, the hosts their ends name, node indices, and routes.

use super::{check_name, item, link_between, list, path, Pairs, Role};
use crate::error::{FieldPath, Problem};
use crate::schema::{ConnectionConfig, Framing, LinkConfig, Scenario};
use crate::units::{Cells, Credits};
use atmsim_model::spec::{FlowControl, LinkSpec, NodeIdx};
use std::collections::{BTreeMap, HashMap};

/// The node names `from, via..., to`, after checking that each is what its place requires and
/// that each consecutive pair shares a link.
pub(super) fn check_route<'a>(
    s: &'a Scenario,
    c: &'a ConnectionConfig,
    p: &FieldPath,
    roles: &HashMap<&str, Role>,
    hosts: &[&str],
    pairs: &Pairs,
) -> Result<Vec<&'a str>, Problem> {
    let switches = || s.switch.iter().map(|sw| sw.name.as_str());
    for (field, name) in [("from", &c.from), ("to", &c.to)] {
        match roles.get(name.as_str()) {
            Some(Role::Host) => {}
            Some(Role::Switch(_)) => {
                return Err(Problem::new(
                    p.clone().key(field),
                    format!("`{field}` must be a host; {name} is a switch"),
                ))
            }
            None => {
                return Err(Problem::new(
                    p.clone().key(field),
                    format!(
                        "unknown node {name:?}: no [[link]] joins it (hosts: {})",
                        list(hosts)
                    ),
                ))
            }
        }
    }
    if c.from == c.to {
        return Err(Problem::new(
            p.clone().key("to"),
            format!("a connection from {} to itself", c.from),
        ));
    }
    for name in &c.via {
        match roles.get(name.as_str()) {
            Some(Role::Switch(_)) => {}
            Some(Role::Host) => {
                return Err(Problem::new(
                    p.clone().key("via"),
                    format!("{name} is a host; `via` lists switches only"),
                ))
            }
            None => {
                return Err(Problem::new(
                    p.clone().key("via"),
                    format!("unknown switch {name:?} (switches: {})", list(switches())),
                ))
            }
        }
    }
    let route: Vec<&str> = std::iter::once(c.from.as_str())
        .chain(c.via.iter().map(String::as_str))
        .chain(std::iter::once(c.to.as_str()))
        .collect();
    for (k, name) in route.iter().enumerate() {
        if route[..k].contains(name) {
            return Err(Problem::new(
                p.clone().key("via"),
                format!("route {} visits {name} twice", route.join(" -> ")),
            ));
        }
    }
    for pair in route.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if link_between(pairs, a, b).is_none() {
            let links_of = |n: &str| {
                list(
                    s.link
                        .iter()
                        .filter(|l| l.between.iter().any(|e| e == n))
                        .map(|l| l.name()),
                )
            };
            // Blame the switch end of the pair, if any, when listing links.
            let at = if roles.get(a) == Some(&Role::Host) {
                b
            } else {
                a
            };
            return Err(Problem::new(
                p.clone().key("via"),
                format!(
                    "route {} uses a link between {a} and {b}, and there is none; links of {at}: {}",
                    route.join(" -> "),
                    links_of(at)
                ),
            ));
        }
    }
    Ok(route)
}

/// The names of a scenario's nodes and links: what each name denotes, the hosts (in order
/// of first appearance in `[[link]]`), the links by the names they join, and each node's
/// index in the spec (the switches, then the hosts).
pub(super) struct Topology<'a> {
    pub roles: HashMap<&'a str, Role>,
    pub hosts: Vec<&'a str>,
    pub pairs: Pairs<'a>,
    pub index: HashMap<&'a str, NodeIdx>,
}

impl<'a> Topology<'a> {
    /// Checks the switches, the links and the host overrides' names.
    pub(super) fn check(s: &'a Scenario) -> Result<Self, Problem> {
        let mut roles = check_switches(s)?;
        let (hosts, pairs) = check_links(s, &mut roles)?;
        let index: HashMap<&str, NodeIdx> = s
            .switch
            .iter()
            .map(|sw| sw.name.as_str())
            .chain(hosts.iter().copied())
            .enumerate()
            .map(|(i, n)| (n, i))
            .collect();
        check_host_overrides(s, &roles, &hosts)?;
        Ok(Topology {
            roles,
            hosts,
            pairs,
            index,
        })
    }
}

/// The switches' names (unique) and their own buffers; each name's role.
fn check_switches(s: &Scenario) -> Result<HashMap<&str, Role>, Problem> {
    let mut roles: HashMap<&str, Role> = HashMap::new();
    for (i, sw) in s.switch.iter().enumerate() {
        let p = item("switch", i);
        check_name(&sw.name, p.clone().key("name"))?;
        if let Some(Role::Switch(j)) = roles.insert(&sw.name, Role::Switch(i)) {
            return Err(Problem::new(
                p.key("name"),
                format!("duplicate switch name {:?} (also switch[{j}])", sw.name),
            ));
        }
        for (field, buffer) in [("vc_buffer", sw.vc_buffer), ("port_buffer", sw.port_buffer)] {
            if buffer.cells() == Some(0) {
                return Err(Problem::new(
                    p.clone().key(field),
                    "a buffer of 0 cells holds nothing; give at least 1 cell or \"unlimited\"",
                ));
            }
        }
    }
    Ok(roles)
}

/// The links; every endpoint that is not a switch is a host (one link each). Returns the
/// hosts in order of first appearance and the links by the names they join; every switch
/// must have a link.
fn check_links<'a>(
    s: &'a Scenario,
    roles: &mut HashMap<&'a str, Role>,
) -> Result<(Vec<&'a str>, Pairs<'a>), Problem> {
    let mut hosts: Vec<&str> = Vec::new();
    let mut host_link: HashMap<&str, usize> = HashMap::new();
    let mut pairs: Pairs = BTreeMap::new();
    let mut switch_links = vec![0usize; s.switch.len()];
    for (i, link) in s.link.iter().enumerate() {
        let p = item("link", i);
        let [a, b] = &link.between;
        check_name(a, p.clone().key("between"))?;
        check_name(b, p.clone().key("between"))?;
        if a == b {
            return Err(Problem::new(
                p.key("between"),
                format!("a link joins two different nodes, not {a:?} with itself"),
            ));
        }
        let key = if a < b {
            (a.as_str(), b.as_str())
        } else {
            (b.as_str(), a.as_str())
        };
        if let Some(j) = pairs.insert(key, i) {
            return Err(Problem::new(
                p.key("between"),
                format!("duplicate link between {a} and {b} (also link[{j}])"),
            ));
        }
        for end in [a, b] {
            match roles.get(end.as_str()) {
                Some(Role::Switch(k)) => switch_links[*k] += 1,
                Some(Role::Host) | None => {
                    if let Some(j) = host_link.insert(end, i) {
                        return Err(Problem::new(
                            p.key("between"),
                            format!(
                                "host {end} already has a link (link[{j}]); a host has one \
                                 network interface"
                            ),
                        ));
                    }
                    roles.insert(end, Role::Host);
                    hosts.push(end);
                }
            }
        }
        check_link_values(link, p)?;
    }
    if s.link.is_empty() {
        return Err(Problem::new(
            path("link"),
            "a scenario needs at least one [[link]]",
        ));
    }
    for (i, sw) in s.switch.iter().enumerate() {
        if switch_links[i] == 0 {
            return Err(Problem::new(
                item("switch", i),
                format!("switch {} has no links", sw.name),
            ));
        }
    }
    Ok((hosts, pairs))
}

/// A link's speed (its rate or its cell time, one of them) and its credits.
fn check_link_values(link: &LinkConfig, p: FieldPath) -> Result<(), Problem> {
    match (link.rate, link.cell_time) {
        (Some(_), Some(_)) => {
            return Err(Problem::new(
                p.key("cell_time"),
                "give either rate or cell_time, not both",
            ))
        }
        (None, None) => {
            return Err(Problem::new(
                p,
                "missing rate or cell_time (e.g. rate = \"155.52 Mb/s\" or cell_time = \"2.75 us\")",
            ))
        }
        (None, Some(t)) if t.is_zero() => {
            return Err(Problem::new(p.key("cell_time"), "must be positive"))
        }
        (None, Some(_)) if link.framing == Framing::Sonet => {
            return Err(Problem::new(
                p.key("framing"),
                "framing applies to a link given by its line rate; a cell_time is already the time per cell",
            ))
        }
        _ => {}
    }
    if link.credits.cells() == Some(0) {
        return Err(Problem::new(
            p.key("credits"),
            "0 credits would never let a cell through; give at least 1 cell or \"off\"",
        ));
    }
    Ok(())
}

/// Host overrides (`[hosts.NAME]`) must name hosts.
fn check_host_overrides(
    s: &Scenario,
    roles: &HashMap<&str, Role>,
    hosts: &[&str],
) -> Result<(), Problem> {
    for name in s.hosts.keys() {
        let p = path("hosts").key(name.as_str());
        match roles.get(name.as_str()) {
            Some(Role::Host) => {}
            Some(Role::Switch(_)) => {
                return Err(Problem::new(p, format!("{name} is a switch, not a host")))
            }
            None => {
                return Err(Problem::new(
                    p,
                    format!("unknown host {name} (hosts: {})", list(hosts)),
                ))
            }
        }
    }
    Ok(())
}

/// The links' specs (checked by [`Topology::check`]): each one's cell time from its rate
/// (less SONET's overhead when framed) or as given.
pub(super) fn link_specs(s: &Scenario, index: &HashMap<&str, NodeIdx>) -> Vec<LinkSpec> {
    s.link
        .iter()
        .map(|l| LinkSpec {
            a: index[l.between[0].as_str()],
            b: index[l.between[1].as_str()],
            cell_time: match (l.rate, l.cell_time) {
                (Some(r), _) if l.framing == Framing::Sonet => r.cell_time_at(26, 27),
                (Some(r), _) => r.cell_time(),
                (None, Some(t)) => t.0,
                (None, None) => unreachable!("checked by Topology::check"),
            },
            delay: l.delay.0,
            flow_control: match l.credits {
                Credits::Word(_) => FlowControl::None,
                Credits::Value(Cells(n)) => FlowControl::Credits(n),
            },
        })
        .collect()
}
