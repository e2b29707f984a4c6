//! What a run would cost, against the model's and `[run]`'s limits.

use atmsim_model::spec::NetworkSpec;

use super::{item, path, TOML_INT_MAX};
use crate::error::Problem;
use crate::schema::Scenario;

/// What the run would cost, against what the model and `[run]` allow: the VCs of each port
/// (the model's 16-bit labels), the events and the queued cells (`run.max_events`,
/// `run.max_queued_cells`; see [`crate::cost`]).
pub(super) fn check_cost(s: &Scenario, spec: &NetworkSpec) -> Result<(), Problem> {
    use crate::cost::{self, sci};
    const _: () = assert!(cost::MAX_VCS_PER_PORT == 65_536, "the message says 65,536");
    if let Err(e) = cost::check_vcs(spec) {
        let tcp = if e.tcp > 0 {
            format!(
                " ({} of them TCP: a TCP connection takes a data VC on the ports of its path and \
                 an ACK VC on the ports of the way back)",
                e.tcp
            )
        } else {
            String::new()
        };
        return Err(Problem::new(
            item("connection", e.connection),
            format!(
                "port {} would carry {} VCs, more than the 65,536 its 16-bit labels can name: {} \
                 connections pass it{tcp}, and this one takes it past the limit; spread the \
                 connections over more links",
                e.port, e.vcs, e.connections
            ),
        ));
    }
    let c = cost::estimate(spec);
    let r = &s.run;
    if c.events > r.max_events as f64 {
        let (what, _) = &c.events_largest;
        return Err(Problem::new(
            path("run").key("max_events"),
            format!(
                "the run is estimated at up to {} events, above run.max_events = {} (about an \
                 hour of simulation; the estimate is an upper bound); the largest part: {what}; \
                 shorten run.duration or change that part, or raise the ceiling: \
                 run.max_events = {} (--set run.max_events={})",
                sci(c.events),
                r.max_events,
                raised(c.events),
                raised(c.events)
            ),
        ));
    }
    if c.queued_cells > r.max_queued_cells as f64 {
        let largest = match &c.queue_largest {
            Some(q) if q.growth > 0.0 => format!(
                "; the largest: port {}, whose cell sources feed it {} cells/s more than its \
                 link sends, {} cells over {}: give it a buffer (port_buffer = \"N cells\" on \
                 switch {}, or in its ports.{} table)",
                q.port,
                sci(q.growth),
                sci(q.cells),
                r.duration,
                q.switch,
                q.to
            ),
            Some(q) => format!("; the largest: port {}, {} cells", q.port, sci(q.cells)),
            None => String::new(),
        };
        return Err(Problem::new(
            path("run").key("max_queued_cells"),
            format!(
                "the queues are estimated to hold up to {} cells at once (12 bytes each, up to \
                 36 while a queue grows), above run.max_queued_cells = {}{largest}; or shorten \
                 run.duration, or raise the ceiling: run.max_queued_cells = {} (--set \
                 run.max_queued_cells={})",
                sci(c.queued_cells),
                r.max_queued_cells,
                raised(c.queued_cells),
                raised(c.queued_cells)
            ),
        ));
    }
    Ok(())
}

/// A ceiling above `x`: its two leading digits, rounded up.
pub(super) fn raised(x: f64) -> u64 {
    let x = x.max(1.0).min(TOML_INT_MAX as f64 / 2.0);
    let unit = 10f64.powi((x.log10().floor() as i32 - 1).max(0));
    ((x / unit).floor() + 1.0) as u64 * unit as u64
}
