//! Switches' output ports: each port's buffer, scheduler, policy and rate control.

use super::rate_control::check_rate_control;
use super::{item, list};
use crate::error::{FieldPath, Problem};
use crate::schema::{PortConfig, PortOverride, Scenario, Scheduler, SwitchConfig};
use atmsim_model::spec::{NodeIdx, NodeKind, NodeSpec, PortSpec, SchedulerSpec, SwitchSpec};
use std::collections::HashMap;

/// A switch's port settings: the switch's own, and each port it lists under `ports` (which
/// must name a node the switch has a link to).
pub(super) fn check_switch(
    s: &Scenario,
    sw: &SwitchConfig,
    at: FieldPath,
    index: &HashMap<&str, NodeIdx>,
) -> Result<SwitchSpec, Problem> {
    let base = sw.port();
    let port = check_port(&base, &PortOverride::default(), &at, &at)?;
    let mut ports = Vec::new();
    for (to, o) in &sw.ports {
        let p = at.clone().key("ports").key(to.as_str());
        let linked = s.link.iter().any(|l| {
            (l.between[0] == sw.name && l.between[1] == *to)
                || (l.between[1] == sw.name && l.between[0] == *to)
        });
        if !linked {
            let neighbours = s.link.iter().filter_map(|l| {
                if l.between[0] == sw.name {
                    Some(l.between[1].as_str())
                } else if l.between[1] == sw.name {
                    Some(l.between[0].as_str())
                } else {
                    None
                }
            });
            return Err(Problem::new(
                p,
                format!(
                    "switch {} has no link to {to}; its ports lead to: {}",
                    sw.name,
                    list(neighbours)
                ),
            ));
        }
        ports.push((index[to.as_str()], check_port(&base, o, &at, &p)?));
    }
    Ok(SwitchSpec {
        switching_delay: sw.switching_delay.0,
        port,
        ports,
    })
}

/// One port's settings: the switch's with the port's own overrides; a problem points at the
/// port's key when the port sets it, else at the switch's.
pub(super) fn check_port(
    base: &PortConfig,
    o: &PortOverride,
    switch: &FieldPath,
    port: &FieldPath,
) -> Result<PortSpec, Problem> {
    let c = base.with(o);
    let at = |field: &str| {
        if o.sets(field) {
            port.clone().key(field)
        } else {
            switch.clone().key(field)
        }
    };
    for (field, buffer) in [("vc_buffer", c.vc_buffer), ("port_buffer", c.port_buffer)] {
        if buffer.cells() == Some(0) {
            return Err(Problem::new(
                at(field),
                "a buffer of 0 cells holds nothing; give at least 1 cell or \"unlimited\"",
            ));
        }
    }
    c.policy
        .check()
        .map_err(|e| Problem::new(at("policy").key(e.field), e.message))?;
    if c.policy.needs_port_buffer() && c.port_buffer.is_word() {
        return Err(Problem::new(
            at("policy").key("kind"),
            format!(
                "the {} policy's thresholds are fractions of the port's buffer, which is \
                 unlimited here; give port_buffer (e.g. port_buffer = \"48000 cells\")",
                c.policy.kind()
            ),
        ));
    }
    Ok(PortSpec {
        scheduler: match c.scheduler {
            Scheduler::Single(x) => SchedulerSpec::Single(x),
            Scheduler::Priority {
                cbr_vbr,
                abr,
                ubr_gfr,
            } => SchedulerSpec::Priority([cbr_vbr, abr, ubr_gfr]),
        },
        vc_buffer_cells: c.vc_buffer.cells(),
        port_buffer_cells: c.port_buffer.cells(),
        policy: c.policy,
        rate_control: check_rate_control(&c.rate_control, &at("rate_control"))?,
        efci_threshold: match c.efci_threshold.cells() {
            Some(0) => {
                return Err(Problem::new(
                    at("efci_threshold"),
                    "must be at least 1 cell (\"off\" turns marking off)".to_string(),
                ))
            }
            n => n,
        },
    })
}

/// The switches' node specs, in file order.
pub(super) fn switch_nodes(
    s: &Scenario,
    index: &HashMap<&str, NodeIdx>,
) -> Result<Vec<NodeSpec>, Problem> {
    let mut nodes = Vec::with_capacity(s.switch.len());
    for (i, sw) in s.switch.iter().enumerate() {
        nodes.push(NodeSpec {
            name: sw.name.clone(),
            kind: NodeKind::Switch(check_switch(s, sw, item("switch", i), index)?),
        });
    }
    Ok(nodes)
}
