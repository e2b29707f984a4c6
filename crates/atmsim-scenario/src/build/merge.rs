//! The `[[merge]]` tables: VC merging of TCP connections between two switches.

use std::collections::HashMap;

use atmsim_model::service::ServiceCategory;
use atmsim_model::spec::{ConnectionSpec, MergeSpec, NodeIdx, SourceSpec};

use super::connection::check_share;
use super::topology::Topology;
use super::{check_name, item, list, Role};
use crate::error::{FieldPath, Problem};
use crate::schema::{MergeConfig, Scenario};

/// The `[[merge]]` tables: names unique, members existing TCP connections not in another
/// merge and not ABR, whose paths run through `from` and then `to` (both switches, with the
/// same nodes between them for every member) on links without credits.
pub(super) fn check_merges(
    s: &Scenario,
    connections: &[ConnectionSpec],
    topo: &Topology,
) -> Result<Vec<MergeSpec>, Problem> {
    let mut names: HashMap<&str, usize> = HashMap::new();
    let mut member_of: HashMap<&str, usize> = HashMap::new();
    let mut out = Vec::new();
    for (mi, m) in s.merge.iter().enumerate() {
        let p = item("merge", mi);
        check_name(&m.name, p.clone().key("name"))?;
        if let Some(j) = names.insert(&m.name, mi) {
            return Err(Problem::new(
                p.key("name"),
                format!("duplicate merge name {:?} (also merge[{j}])", m.name),
            ));
        }
        check_ends(s, m, &p, &topo.roles)?;
        let merge = Merge {
            s,
            m,
            from: topo.index[m.from.as_str()],
            to: topo.index[m.to.as_str()],
            index: &topo.index,
            at: p.clone().key("connections"),
        };
        let mut members = Vec::new();
        let mut section: Option<&[NodeIdx]> = None;
        for name in &m.connections {
            let Some(ci) = connections.iter().position(|c| &c.name == name) else {
                return Err(Problem::new(
                    merge.at.clone(),
                    format!(
                        "no connection named {name:?} (connections: {})",
                        list(connections.iter().map(|c| &c.name))
                    ),
                ));
            };
            if let Some(j) = member_of.insert(name, mi) {
                return Err(Problem::new(
                    merge.at.clone(),
                    format!("connection {name} is already merged (merge[{j}])"),
                ));
            }
            merge.check_member(&connections[ci], &mut section)?;
            members.push(ci);
        }
        out.push(MergeSpec {
            name: m.name.clone(),
            connections: members,
            from: merge.from,
            to: merge.to,
            share: check_share(&m.share, &p)?,
        });
    }
    Ok(out)
}

/// A merge's `from` and `to`: two different switches, and at least one connection.
fn check_ends(
    s: &Scenario,
    m: &MergeConfig,
    p: &FieldPath,
    roles: &HashMap<&str, Role>,
) -> Result<(), Problem> {
    for (field, sw) in [("from", &m.from), ("to", &m.to)] {
        if !matches!(roles.get(sw.as_str()), Some(Role::Switch(_))) {
            return Err(Problem::new(
                p.clone().key(field),
                format!(
                    "{sw:?} is not a switch; VCs merge at a switch (switches: {})",
                    list(s.switch.iter().map(|x| &x.name))
                ),
            ));
        }
    }
    if m.from == m.to {
        return Err(Problem::new(
            p.clone().key("to"),
            "the merged VC must cross at least one link: `to` must differ from `from`",
        ));
    }
    if m.connections.is_empty() {
        return Err(Problem::new(
            p.clone().key("connections"),
            "list the connections to merge (e.g. connections = [\"s1\", \"s2\"])",
        ));
    }
    Ok(())
}

/// One `[[merge]]` whose ends are checked, for checking its members.
struct Merge<'a> {
    s: &'a Scenario,
    m: &'a MergeConfig,
    from: NodeIdx,
    to: NodeIdx,
    index: &'a HashMap<&'a str, NodeIdx>,
    /// The merge's `connections` key, where a member's problem points.
    at: FieldPath,
}

impl Merge<'_> {
    /// A member: a TCP connection, not ABR, through `from` then `to` by the same nodes as the
    /// first member (`section`, set by the first), on links without credits.
    fn check_member<'c>(
        &self,
        c: &'c ConnectionSpec,
        section: &mut Option<&'c [NodeIdx]>,
    ) -> Result<(), Problem> {
        let (m, name) = (self.m, &c.name);
        let fail = |msg: String| Err(Problem::new(self.at.clone(), msg));
        if !matches!(c.source, SourceSpec::Tcp { .. }) {
            return fail(format!(
                "connection {name} is a cell source; only TCP connections (AAL5 frames) \
                 can be merged without interleaving"
            ));
        }
        if c.service == ServiceCategory::Abr {
            return fail(format!(
                "connection {name} is ABR; ABR VCs (RM cells per VC) cannot be merged"
            ));
        }
        let pos = |n| c.path.iter().position(|&x| x == n);
        let (Some(a), Some(b)) = (pos(self.from), pos(self.to)) else {
            return fail(format!(
                "connection {name} does not pass both {} and {}",
                m.from, m.to
            ));
        };
        if a >= b {
            return fail(format!(
                "connection {name} passes {} before {}",
                m.to, m.from
            ));
        }
        let here = &c.path[a..=b];
        match section {
            None => *section = Some(here),
            Some(first) if *first != here => {
                return fail(format!(
                    "connection {name} goes from {} to {} by another route than {}; \
                     merged connections share the whole merged section",
                    m.from, m.to, m.connections[0]
                ))
            }
            Some(_) => {}
        }
        self.check_no_credits(c)
    }

    /// Merged VCs run without AN2 credits: no link of the member's path may run them.
    fn check_no_credits(&self, c: &ConnectionSpec) -> Result<(), Problem> {
        for w in c.path.windows(2) {
            let l = self
                .s
                .link
                .iter()
                .find(|l| {
                    let e = |i: NodeIdx| l.between.iter().any(|x| self.index[x.as_str()] == i);
                    e(w[0]) && e(w[1])
                })
                .expect("checked by check_route");
            if !l.credits.is_word() {
                return Err(Problem::new(
                    self.at.clone(),
                    format!(
                        "connection {} crosses link {}, which runs AN2 credits; merged \
                         VCs run without credits",
                        c.name,
                        l.name()
                    ),
                ));
            }
        }
        Ok(())
    }
}
