//! The hosts: each one's settings (`[host]` with its `[hosts.NAME]`) checked and resolved.

use super::path;
use crate::error::{FieldPath, Problem};
use crate::schema::{HostConfig, IpDirections, ProcessingDistribution, Scenario};
use atmsim_model::spec::{HostSpec, NodeKind, NodeSpec};

/// A host's settings (`[host]` with its own `[hosts.NAME]`); `at` names a field.
pub(super) fn check_host(cfg: &HostConfig, at: &dyn Fn(&str) -> FieldPath) -> Result<(), Problem> {
    if !(8..=1024).contains(&cfg.aal_overhead.bytes()) {
        return Err(Problem::new(
            at("aal_overhead"),
            format!(
                "{}: allowed 8 B (AAL5's trailer, the default) to 1024 B per datagram",
                cfg.aal_overhead
            ),
        ));
    }
    if cfg.processing_jitter.0 > cfg.processing_delay.0 {
        return Err(Problem::new(
            at("processing_jitter"),
            format!(
                "{} is more than processing_delay ({}): a CPU time would be negative; \
                 allowed 0 <= processing_jitter <= processing_delay",
                cfg.processing_jitter, cfg.processing_delay
            ),
        ));
    }
    if cfg.processing_distribution == ProcessingDistribution::Exponential
        && cfg.processing_jitter.0 > atmsim_engine::SimTime::ZERO
    {
        return Err(Problem::new(
            at("processing_jitter"),
            format!(
                "{} with processing_distribution = \"exponential\": an exponential CPU time \
                 has mean processing_delay and no jitter; allowed \"0 s\" (or \
                 processing_distribution = \"uniform\")",
                cfg.processing_jitter
            ),
        ));
    }
    Ok(())
}

/// The hosts' node specs, in the order given: `[host]` with each host's own `[hosts.NAME]`;
/// a problem points at the host's own key when it sets it, else at `[host]`'s.
pub(super) fn host_nodes(s: &Scenario, hosts: &[&str]) -> Result<Vec<NodeSpec>, Problem> {
    let mut nodes = Vec::with_capacity(hosts.len());
    for &h in hosts {
        let cfg = match s.hosts.get(h) {
            Some(o) => s.host.with(o),
            None => s.host.clone(),
        };
        let o = s.hosts.get(h);
        let at = |field: &str| {
            // The jitter is checked against the delay: a host setting either is to blame.
            let sets = |k| o.is_some_and(|o| o.sets(k));
            let with = ["processing_delay", "processing_distribution"];
            if sets(field) || (field == "processing_jitter" && with.iter().any(|&k| sets(k))) {
                path("hosts").key(h).key(field)
            } else {
                path("host").key(field)
            }
        };
        check_host(&cfg, &at)?;
        nodes.push(NodeSpec {
            name: h.to_string(),
            kind: NodeKind::Host(HostSpec {
                processing_delay: cfg.processing_delay.0,
                processing_jitter: cfg.processing_jitter.0,
                sar_delay_per_cell: cfg.sar_delay.0,
                llc_snap: cfg.llc_snap,
                aal_overhead_bytes: cfg.aal_overhead.bytes() as u32,
                ip_service_time: cfg.ip_rate.service_time(),
                ip_both_directions: cfg.ip_directions == IpDirections::Both,
                processing_exponential: cfg.processing_distribution
                    == ProcessingDistribution::Exponential,
                ip_service: cfg.ip_service,
            }),
        });
    }
    Ok(nodes)
}
