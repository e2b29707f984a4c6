//! Semantic checks and the resolution of a [`Scenario`] into a [`NetworkSpec`].
//!
//! Each check names the field at fault: duplicate or unknown names, a host used as a
//! switch or the other way round, a route over a missing link, impossible numbers (zero MSS,
//! window below MSS, zero credits or buffers, warm-up not before the end).
//!
//! Node order in the spec: the switches in file order, then the hosts in order of first
//! appearance in `[[link]]`. Links and connections keep file order.

use std::collections::{BTreeMap, HashMap};

use atmsim_engine::SimTime;
use atmsim_model::service::{ServiceCategory, TrafficDescriptor};
use atmsim_model::spec::{
    AbrParams, AbrSpec, AckClock as SpecAckClock, AppSpec, ConnectionSpec,
    CwndGrowth as SpecGrowth, Discipline as SpecDiscipline, FlowControl, HostSpec, LinkSpec,
    MergeSpec, NetworkSpec, NodeIdx, NodeKind, NodeSpec, OnOffDurations as SpecDurations, PortSpec,
    RateControlConfig, RunSpec, SampleSelection, SchedulerSpec, SourceSpec, SwitchSpec, TcpSpec,
    TcpVariant as SpecVariant, VcShare,
};

use crate::error::{FieldPath, Problem};
use crate::schema::{
    AbrConfig, AbrOverride, AckClock, App, ConnectionConfig, CwndGrowth, Discipline, Framing,
    HostConfig, IpDirections, OnOffDurations, OutOfOrder, PortConfig, PortOverride, Scenario,
    Scheduler, Service, ShareConfig, SourceConfig, SourceDrop, SwitchConfig, TcpConfig,
    TcpOverride, TcpVariant,
};
use crate::units::{
    AbrFrtt, AbrIcr, Buffer, Cells, Credits, DelayedAck, DropAtCwnd, InitialSsthresh, Rate, Timer,
    WindowScale,
};

/// The largest integer a TOML file can hold.
const TOML_INT_MAX: u64 = i64::MAX as u64;
/// The largest MSS: AAL5's 65,535-byte SDU less 40 bytes of TCP/IP header and 8 of LLC/SNAP.
const MAX_MSS: u64 = 65_535 - 40 - 8;
/// The most sampled values a run may keep (8 bytes each: 800 MB); the number of series is
/// estimated from below as 10 per connection and 10 per link (5 per direction).
const MAX_SAMPLED_VALUES: u64 = 100_000_000;

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

/// Checks `s` and resolves it; the first problem found is returned.
pub fn build(s: &Scenario) -> Result<NetworkSpec, Problem> {
    if s.name.trim().is_empty() {
        return Err(Problem::new(path("name"), "must not be empty"));
    }
    let run = check_run(s)?;
    check_defaults(s)?;

    // Switches.
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
            if buffer == Buffer::Cells(0) {
                return Err(Problem::new(
                    p.clone().key(field),
                    "a buffer of 0 cells holds nothing; give at least 1 cell or \"unlimited\"",
                ));
            }
        }
    }

    // Links; every endpoint that is not a switch is a host.
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
        if link.credits == Credits::Cells(0) {
            return Err(Problem::new(
                p.key("credits"),
                "0 credits would never let a cell through; give at least 1 cell or \"off\"",
            ));
        }
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

    // Node indices: switches, then hosts.
    let index: HashMap<&str, NodeIdx> = s
        .switch
        .iter()
        .map(|sw| sw.name.as_str())
        .chain(hosts.iter().copied())
        .enumerate()
        .map(|(i, n)| (n, i))
        .collect();

    // Host overrides must name hosts.
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
                    format!("unknown host {name} (hosts: {})", list(&hosts)),
                ))
            }
        }
    }

    let mut nodes: Vec<NodeSpec> = Vec::new();
    for (i, sw) in s.switch.iter().enumerate() {
        nodes.push(NodeSpec {
            name: sw.name.clone(),
            kind: NodeKind::Switch(check_switch(s, sw, item("switch", i), &index)?),
        });
    }
    for &h in &hosts {
        let cfg = match s.hosts.get(h) {
            Some(o) => s.host.with(o),
            None => s.host.clone(),
        };
        let o = s.hosts.get(h);
        let at = |field: &str| {
            // The jitter is checked against the delay: a host setting either is to blame.
            let sets = |k| o.is_some_and(|o| o.sets(k));
            if sets(field) || (field == "processing_jitter" && sets("processing_delay")) {
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
            }),
        });
    }

    let links: Vec<LinkSpec> = s
        .link
        .iter()
        .map(|l| LinkSpec {
            a: index[l.between[0].as_str()],
            b: index[l.between[1].as_str()],
            cell_time: match (l.rate, l.cell_time) {
                (Some(r), _) if l.framing == Framing::Sonet => r.cell_time_at(26, 27),
                (Some(r), _) => r.cell_time(),
                (None, Some(t)) => t.0,
                (None, None) => unreachable!("checked above"),
            },
            delay: l.delay.0,
            flow_control: match l.credits {
                Credits::Off => FlowControl::None,
                Credits::Cells(n) => FlowControl::Credits(n),
            },
        })
        .collect();

    // Connections.
    if s.connection.is_empty() {
        return Err(Problem::new(
            path("connection"),
            "a scenario needs at least one [[connection]]",
        ));
    }
    let mut conn_names: HashMap<&str, usize> = HashMap::new();
    let mut connections = Vec::new();
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
        let route = check_route(s, c, &p, &roles, &hosts, &pairs)?;
        let path: Vec<NodeIdx> = route.iter().map(|n| index[n]).collect();
        let service = check_service(c, &p)?;
        let descriptor = check_descriptor(c, service, &p)?;
        let source = check_source(s, c, &descriptor, &p)?;
        check_flow_control(s, c, service, &route, &roles, &pairs)?;
        let abr = if service == ServiceCategory::Abr {
            let first = &links[link_between(&pairs, route[0], route[1]).expect("a checked route")];
            Some(check_abr(
                s,
                c,
                &descriptor,
                1e12 / first.cell_time.0 as f64,
                &p,
            )?)
        } else {
            if c.abr != AbrOverride::default() {
                return Err(Problem::new(
                    p.clone().key("abr"),
                    "ABR settings apply only to a connection of the ABR service (service = \"abr\")",
                ));
            }
            None
        };
        connections.push(ConnectionSpec {
            name: c.name.clone(),
            path,
            service,
            descriptor,
            source,
            start: c.start.0,
            start_jitter: c.start_jitter.0,
            abr,
            share: check_share(&c.share, &p)?,
            tagged: match c.clp {
                0 => false,
                1 => true,
                x => {
                    return Err(Problem::new(
                        p.key("clp"),
                        format!("{x}: the CLP bit is 0 (untagged) or 1 (tagged)"),
                    ))
                }
            },
        });
    }

    let merges = check_merges(s, &connections, &roles, &index)?;

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

/// What the run would cost, against what the model and `[run]` allow: the VCs of each port
/// (the model's 16-bit labels), the events and the queued cells (`run.max_events`,
/// `run.max_queued_cells`; see [`crate::cost`]).
fn check_cost(s: &Scenario, spec: &NetworkSpec) -> Result<(), Problem> {
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
fn raised(x: f64) -> u64 {
    let x = x.max(1.0).min(TOML_INT_MAX as f64 / 2.0);
    let unit = 10f64.powi((x.log10().floor() as i32 - 1).max(0));
    ((x / unit).floor() + 1.0) as u64 * unit as u64
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

/// A host's settings (`[host]` with its own `[hosts.NAME]`); `at` names a field.
fn check_host(cfg: &HostConfig, at: &dyn Fn(&str) -> FieldPath) -> Result<(), Problem> {
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
    Ok(())
}

/// The `[[merge]]` tables: names unique, members existing TCP connections not in another
/// merge and not ABR, whose paths run through `from` and then `to` (both switches, with the
/// same nodes between them for every member) on links without credits.
fn check_merges(
    s: &Scenario,
    connections: &[ConnectionSpec],
    roles: &HashMap<&str, Role>,
    index: &HashMap<&str, NodeIdx>,
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
                p.key("to"),
                "the merged VC must cross at least one link: `to` must differ from `from`",
            ));
        }
        if m.connections.is_empty() {
            return Err(Problem::new(
                p.key("connections"),
                "list the connections to merge (e.g. connections = [\"s1\", \"s2\"])",
            ));
        }
        let (from, to) = (index[m.from.as_str()], index[m.to.as_str()]);
        let mut members = Vec::new();
        let mut section: Option<&[NodeIdx]> = None;
        for name in &m.connections {
            let at = p.clone().key("connections");
            let Some(ci) = connections.iter().position(|c| &c.name == name) else {
                return Err(Problem::new(
                    at,
                    format!(
                        "no connection named {name:?} (connections: {})",
                        list(connections.iter().map(|c| &c.name))
                    ),
                ));
            };
            if let Some(j) = member_of.insert(name, mi) {
                return Err(Problem::new(
                    at,
                    format!("connection {name} is already merged (merge[{j}])"),
                ));
            }
            let c = &connections[ci];
            if !matches!(c.source, SourceSpec::Tcp { .. }) {
                return Err(Problem::new(
                    at,
                    format!(
                        "connection {name} is a cell source; only TCP connections (AAL5 frames) \
                         can be merged without interleaving"
                    ),
                ));
            }
            if c.service == ServiceCategory::Abr {
                return Err(Problem::new(
                    at,
                    format!("connection {name} is ABR; ABR VCs (RM cells per VC) cannot be merged"),
                ));
            }
            let pos = |n| c.path.iter().position(|&x| x == n);
            let (Some(a), Some(b)) = (pos(from), pos(to)) else {
                return Err(Problem::new(
                    at,
                    format!(
                        "connection {name} does not pass both {} and {}",
                        m.from, m.to
                    ),
                ));
            };
            if a >= b {
                return Err(Problem::new(
                    at,
                    format!("connection {name} passes {} before {}", m.to, m.from),
                ));
            }
            let here = &c.path[a..=b];
            match section {
                None => section = Some(here),
                Some(first) if first != here => {
                    return Err(Problem::new(
                        at,
                        format!(
                            "connection {name} goes from {} to {} by another route than {}; \
                             merged connections share the whole merged section",
                            m.from, m.to, m.connections[0]
                        ),
                    ))
                }
                Some(_) => {}
            }
            for w in c.path.windows(2) {
                let l = s
                    .link
                    .iter()
                    .find(|l| {
                        let e = |i: NodeIdx| l.between.iter().any(|x| index[x.as_str()] == i);
                        e(w[0]) && e(w[1])
                    })
                    .expect("checked by check_route");
                if l.credits != Credits::Off {
                    return Err(Problem::new(
                        at,
                        format!(
                            "connection {name} crosses link {}, which runs AN2 credits; merged \
                             VCs run without credits",
                            l.name()
                        ),
                    ));
                }
            }
            members.push(ci);
        }
        out.push(MergeSpec {
            name: m.name.clone(),
            connections: members,
            from,
            to,
            share: check_share(&m.share, &p)?,
        });
    }
    Ok(out)
}

/// A connection's share of the buffers it crosses.
fn check_share(s: &ShareConfig, conn: &FieldPath) -> Result<VcShare, Problem> {
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

/// A switch's port settings: the switch's own, and each port it lists under `ports` (which
/// must name a node the switch has a link to).
fn check_switch(
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
fn check_port(
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
        if buffer == Buffer::Cells(0) {
            return Err(Problem::new(
                at(field),
                "a buffer of 0 cells holds nothing; give at least 1 cell or \"unlimited\"",
            ));
        }
    }
    c.policy
        .check()
        .map_err(|e| Problem::new(at("policy").key(e.field), e.message))?;
    if c.policy.needs_port_buffer() && c.port_buffer == Buffer::Unlimited {
        return Err(Problem::new(
            at("policy").key("kind"),
            format!(
                "the {} policy's thresholds are fractions of the port's buffer, which is \
                 unlimited here; give port_buffer (e.g. port_buffer = \"48000 cells\")",
                c.policy.kind()
            ),
        ));
    }
    let d = |d: Discipline| match d {
        Discipline::Fifo => SpecDiscipline::Fifo,
        Discipline::RoundRobin => SpecDiscipline::RoundRobin,
    };
    Ok(PortSpec {
        scheduler: match c.scheduler {
            Scheduler::Single(x) => SchedulerSpec::Single(d(x)),
            Scheduler::Priority {
                cbr_vbr,
                abr,
                ubr_gfr,
            } => SchedulerSpec::Priority([d(cbr_vbr), d(abr), d(ubr_gfr)]),
        },
        vc_buffer_cells: c.vc_buffer.cells(),
        port_buffer_cells: c.port_buffer.cells(),
        policy: c.policy,
        rate_control: check_rate_control(&c.rate_control, &at("rate_control"))?,
    })
}

/// A port's ABR rate control, each value in its range (the scheme's own check, reported at
/// the field it names).
fn check_rate_control(r: &RateControlConfig, at: &FieldPath) -> Result<RateControlConfig, Problem> {
    r.check().map_err(|e| {
        let path = e.field.split('.').fold(at.clone(), FieldPath::key);
        Problem::new(path, e.message)
    })?;
    Ok(r.clone())
}

/// A connection's ABR end systems: TM 4.0's parameters in their ranges.
fn check_abr(
    s: &Scenario,
    c: &ConnectionConfig,
    d: &TrafficDescriptor,
    first_link_rate: f64,
    p: &FieldPath,
) -> Result<AbrSpec, Problem> {
    let a: AbrConfig = s.abr.with(&c.abr);
    let o: &AbrOverride = &c.abr;
    let at = |field: &str| {
        if o.sets(field) {
            p.clone().key("abr").key(field)
        } else {
            path("abr").key(field)
        }
    };
    let fail = |field: &str, msg: String| Err(Problem::new(at(field), msg));
    let pcr = d.pcr.unwrap_or(first_link_rate);
    let mcr = d.mcr.unwrap_or(0.0);
    if mcr > pcr {
        return Err(Problem::new(
            p.clone().key("mcr"),
            format!(
                "{} is above the PCR ({pcr:.0} cells/s): allowed 0 <= mcr <= pcr",
                fmt_rate(c, "mcr")
            ),
        ));
    }
    let icr = match a.icr {
        AbrIcr::Pcr => pcr,
        AbrIcr::Rate(r) => cells_per_second(r),
    };
    if icr > pcr * (1.0 + 1e-9) || icr < mcr * (1.0 - 1e-9) {
        return fail(
            "icr",
            format!("{icr:.0} cells/s is outside [MCR, PCR] = [{mcr:.0}, {pcr:.0}] cells/s"),
        );
    }
    check_abr_values(&a, &at)?;
    let tcr = cells_per_second(a.tcr);
    if tcr > pcr {
        return fail(
            "tcr",
            format!("{tcr:.0} cells/s is above the PCR ({pcr:.0} cells/s)"),
        );
    }
    Ok(AbrSpec {
        params: AbrParams {
            pcr,
            mcr,
            icr,
            tcr,
            nrm: a.nrm,
            mrm: a.mrm,
            trm: a.trm.0,
            rif: a.rif,
            rdf: a.rdf,
            adtf: a.adtf.0,
            tbe: u64::from(a.tbe.0),
            cdf: a.cdf,
            frtt: match a.frtt {
                AbrFrtt::Path => SimTime::ZERO,
                AbrFrtt::Time(t) => t.0,
            },
        },
        source_buffer: a.source_buffer.cells(),
        drop_frames: a.source_drop == SourceDrop::Frames,
    })
}

/// TM 4.0's parameters that do not depend on the connection, each in its range: for `[abr]`
/// itself (every default is checked, whether a connection uses it or not) and for each ABR
/// connection's own. `at` names a field.
fn check_abr_values(a: &AbrConfig, at: &dyn Fn(&str) -> FieldPath) -> Result<(), Problem> {
    let fail = |field: &str, msg: String| Err(Problem::new(at(field), msg));
    if !(a.nrm.is_power_of_two() && (2..=256).contains(&a.nrm)) {
        return fail(
            "nrm",
            format!("{}: TM 4.0 allows 2, 4, 8, ..., 256 (default 32)", a.nrm),
        );
    }
    if a.mrm == 0 || a.mrm >= a.nrm {
        return fail(
            "mrm",
            format!("{}: allowed 1 <= mrm < nrm ({}) (default 2)", a.mrm, a.nrm),
        );
    }
    for (field, x) in [("rif", a.rif), ("rdf", a.rdf)] {
        if !(x > 0.0 && x <= 1.0) {
            return fail(
                field,
                format!("{x}: allowed 0 < {field} <= 1 (TM 4.0: 1/32768 to 1; default 1/16)"),
            );
        }
    }
    if !(0.0..=1.0).contains(&a.cdf) {
        return fail(
            "cdf",
            format!("{}: allowed 0 <= cdf <= 1 (default 1/16)", a.cdf),
        );
    }
    for (field, t) in [("trm", a.trm), ("adtf", a.adtf)] {
        if t.is_zero() {
            return fail(field, "must be above 0 s".into());
        }
    }
    if a.tbe.0 == 0 {
        return fail(
            "tbe",
            "a transient buffer exposure of 0 cells lets no cell go; give at least 1 cell".into(),
        );
    }
    if a.source_buffer == Buffer::Cells(0) {
        return fail(
            "source_buffer",
            "a source queue of 0 cells holds nothing; give at least 1 cell or \"unlimited\"".into(),
        );
    }
    Ok(())
}

fn check_service(c: &ConnectionConfig, _p: &FieldPath) -> Result<ServiceCategory, Problem> {
    Ok(match c.service {
        Service::Ubr => ServiceCategory::Ubr,
        Service::Gfr => ServiceCategory::Gfr,
        Service::Cbr => ServiceCategory::Cbr,
        Service::Vbr => ServiceCategory::Vbr,
        Service::Abr => ServiceCategory::Abr,
    })
}

/// A rate in cells per second.
fn cells_per_second(r: Rate) -> f64 {
    1e12 / r.cell_time().as_ps() as f64
}

/// The traffic descriptor: only the parameters of the VC's category, each sensible.
fn check_descriptor(
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

fn fmt_pcr(c: &ConnectionConfig) -> String {
    c.pcr.map_or_else(String::new, |r| r.to_string())
}

fn fmt_rate(c: &ConnectionConfig, field: &str) -> String {
    match field {
        "scr" => c.scr,
        _ => c.mcr,
    }
    .map_or_else(String::new, |r| r.to_string())
}

/// The source; TCP settings on a cell source are refused (they would be silently unused).
fn check_source(
    s: &Scenario,
    c: &ConnectionConfig,
    d: &TrafficDescriptor,
    p: &FieldPath,
) -> Result<SourceSpec, Problem> {
    let at = p.clone().key("source");
    if !matches!(c.source, SourceConfig::Tcp(_)) {
        if c.tcp != TcpOverride::default() {
            return Err(Problem::new(
                p.clone().key("tcp"),
                "TCP settings apply only to a TCP source (source = \"tcp\")",
            ));
        }
        if c.app != App::Greedy {
            return Err(Problem::new(
                p.clone().key("app"),
                "an application applies only to a TCP source (source = \"tcp\")",
            ));
        }
    }
    // A cell source's rate: its own, else the VC's PCR; never above the PCR.
    let cell_rate = |rate: Option<Rate>| -> Result<f64, Problem> {
        let r = match (rate, d.pcr) {
            (Some(r), _) => cells_per_second(r),
            (None, Some(pcr)) => pcr,
            (None, None) => {
                return Err(Problem::new(
                    at.clone().key("rate"),
                    "give the source's rate, or the connection's pcr",
                ))
            }
        };
        if let (Some(pcr), Some(given)) = (d.pcr, rate) {
            if r > pcr {
                return Err(Problem::new(
                    at.clone().key("rate"),
                    format!(
                        "{given} is above the VC's pcr ({}): the source would break its contract",
                        fmt_pcr(c)
                    ),
                ));
            }
        }
        Ok(r)
    };
    Ok(match &c.source {
        SourceConfig::Tcp(_) => SourceSpec::Tcp {
            tcp: check_tcp(&s.tcp, &c.tcp, p)?,
            app: match c.app {
                App::Greedy => AppSpec::Greedy,
                App::Bytes(b) if b.bytes() == 0 => {
                    return Err(Problem::new(
                        p.clone().key("app"),
                        "sends 0 bytes; give at least 1 B",
                    ))
                }
                App::Bytes(b) => AppSpec::Bytes(b.bytes()),
            },
        },
        SourceConfig::Greedy(_) => SourceSpec::Greedy,
        SourceConfig::Cbr(cbr) => SourceSpec::Cbr {
            rate: cell_rate(cbr.rate)?,
        },
        SourceConfig::OnOff(o) => {
            let rate = cell_rate(o.rate)?;
            if o.period.is_zero() {
                return Err(Problem::new(at.key("period"), "must be positive"));
            }
            if !(o.duty_cycle > 0.0 && o.duty_cycle <= 1.0) {
                return Err(Problem::new(
                    at.key("duty_cycle"),
                    format!(
                        "{} is not a share of the period: allowed 0 < duty_cycle <= 1",
                        o.duty_cycle
                    ),
                ));
            }
            let period = o.period.0;
            let on = SimTime((period.0 as f64 * o.duty_cycle).round() as u64);
            if on == SimTime::ZERO {
                return Err(Problem::new(
                    at.key("duty_cycle"),
                    "the ON time rounds to 0 ps; give a larger duty cycle or period",
                ));
            }
            SourceSpec::OnOff {
                rate,
                period,
                on,
                durations: match o.durations {
                    OnOffDurations::Fixed => SpecDurations::Fixed,
                    OnOffDurations::Exponential => SpecDurations::Exponential,
                },
            }
        }
    })
}

/// AN2 credits need per-VC queues: at every switch port on the connection's route whose
/// link runs credits, the connection's class must be served round robin, and on the way back
/// too when the connection has a VC in the other direction (a TCP connection's ACKs, an ABR
/// connection's backward RM cells), which has the connection's service category. CBR and VBR
/// connections are not flow controlled (AN2 credits its best-effort traffic only).
fn check_flow_control(
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
            if link.credits == Credits::Off {
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

fn check_run(s: &Scenario) -> Result<RunSpec, Problem> {
    let r = &s.run;
    let p = path("run");
    if r.duration.is_zero() {
        return Err(Problem::new(p.key("duration"), "must be positive"));
    }
    if r.warmup >= r.duration {
        return Err(Problem::new(
            p.key("warmup"),
            format!(
                "warmup ({}) must be shorter than duration ({}): shorten run.warmup \
                 or lengthen run.duration",
                r.warmup, r.duration
            ),
        ));
    }
    if r.seed > TOML_INT_MAX {
        return Err(Problem::new(
            p.key("seed"),
            format!(
                "{} is above 2^63 - 1, the largest integer TOML holds",
                r.seed
            ),
        ));
    }
    let sample = check_sample(s, &p)?;
    if !r.sample_every.is_zero() {
        let samples = r.duration.0 .0 / r.sample_every.0 .0 + 1;
        // An upper bound on the columns: ten per connection and link, or per named entity,
        // scaled by the share of the metrics kept.
        let entities = match &sample.entities {
            Some(e) => e.len() as u64,
            None => s.connection.len() as u64 + s.link.len() as u64,
        };
        let metrics = sample
            .metrics
            .as_ref()
            .map_or(10, |m| m.len().min(10) as u64);
        let series = entities * metrics;
        let values = samples.saturating_mul(series.max(1));
        if values > MAX_SAMPLED_VALUES {
            return Err(Problem::new(
                p.key("sample_every"),
                format!(
                    "{} over {} is {samples} samples of at least {series} series ({values} \
                     values), above the {MAX_SAMPLED_VALUES} a run may keep in memory; allowed \
                     a sample_every of at least {} here, \"0 s\" to sample nothing, or fewer \
                     series (sample_kinds, sample_entities, sample_metrics)",
                    r.sample_every,
                    r.duration,
                    crate::units::Time(atmsim_engine::SimTime(
                        (r.duration.0 .0 / (MAX_SAMPLED_VALUES / series.max(1)))
                            .div_ceil(1_000_000)
                            .max(1)
                            * 1_000_000
                    ))
                ),
            ));
        }
    }
    Ok(RunSpec {
        duration: r.duration.0,
        warmup: r.warmup.0,
        seed: r.seed,
        sample_every: r.sample_every.0,
        sample,
    })
}

/// The series selection of `[run]`: each name must exist (a kind, an entity of this
/// scenario, a metric of a selected kind), so a misspelt name is refused rather than
/// silently recording nothing.
fn check_sample(s: &Scenario, p: &FieldPath) -> Result<SampleSelection, Problem> {
    let r = &s.run;
    let metrics = atmsim_model::stats::sampled_metrics();
    let kinds: Vec<&str> = metrics.iter().map(|(k, _)| *k).collect();
    let check =
        |key: &str, given: &Option<Vec<String>>, allowed: &[&str], what: &str, all: bool| {
            let Some(given) = given else {
                return Ok(());
            };
            if given.is_empty() {
                return Err(Problem::new(
                    p.clone().key(key),
                    format!("an empty list keeps nothing: leave {key} out to keep every {what}"),
                ));
            }
            for (i, x) in given.iter().enumerate() {
                if !allowed.contains(&x.as_str()) {
                    return Err(Problem::new(
                        p.clone().key(key).index(i),
                        format!(
                            "{x:?} is not a {what} here; allowed: {}",
                            if all {
                                list(allowed)
                            } else {
                                list_some(allowed)
                            }
                        ),
                    ));
                }
            }
            Ok(())
        };
    check(
        "sample_kinds",
        &r.sample_kinds,
        &kinds,
        "kind of sampled entity",
        true,
    )?;
    let mut entities: Vec<String> = s.connection.iter().map(|c| c.name.clone()).collect();
    for l in &s.link {
        let [a, b] = &l.between;
        entities.push(format!("{a}->{b}"));
        entities.push(format!("{b}->{a}"));
    }
    let entity_refs: Vec<&str> = entities.iter().map(String::as_str).collect();
    check(
        "sample_entities",
        &r.sample_entities,
        &entity_refs,
        "connection or port",
        false,
    )?;
    let selected = |k: &str| {
        r.sample_kinds
            .as_ref()
            .is_none_or(|ks| ks.iter().any(|x| x == k))
    };
    let mut names: Vec<&str> = Vec::new();
    for (kind, ms) in &metrics {
        if selected(kind) {
            for m in ms {
                if !names.contains(m) {
                    names.push(m);
                }
            }
        }
    }
    check(
        "sample_metrics",
        &r.sample_metrics,
        &names,
        "metric of the sampled kinds",
        true,
    )?;
    Ok(SampleSelection {
        kinds: r.sample_kinds.clone(),
        entities: r.sample_entities.clone(),
        metrics: r.sample_metrics.clone(),
    })
}

/// `a, b, c` (the first 12, then how many more).
fn list_some(xs: &[&str]) -> String {
    let mut out = xs.iter().take(12).copied().collect::<Vec<_>>().join(", ");
    if xs.len() > 12 {
        out.push_str(&format!(" and {} more", xs.len() - 12));
    }
    out
}

/// The node names `from, via..., to`, after checking that each is what its place requires and
/// that each consecutive pair shares a link.
fn check_route<'a>(
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

/// Checks the connection's merged TCP settings; a problem points at the connection's own
/// `tcp` key when it sets it, else at `[tcp]`.
fn check_tcp(base: &TcpConfig, o: &TcpOverride, conn: &FieldPath) -> Result<TcpSpec, Problem> {
    let t = base.with(o);
    let at = |field: &str| {
        if o.sets(field) {
            conn.clone().key("tcp").key(field)
        } else {
            path("tcp").key(field)
        }
    };
    let fail = |field: &str, msg: String| Err(Problem::new(at(field), msg));
    let mss = t.mss.bytes();
    let window = t.max_window.bytes();
    if mss == 0 {
        return fail("mss", "must be at least 1 B".into());
    }
    if mss > MAX_MSS {
        return fail(
            "mss",
            format!(
                "{}: an AAL5 frame carries at most 65,535 bytes, so a segment with its 40 bytes \
                 of TCP/IP header (and 8 of LLC/SNAP) holds at most {MAX_MSS} B; allowed 1 B to \
                 {MAX_MSS} B",
                t.mss
            ),
        );
    }
    if window > u64::from(u32::MAX) {
        return fail(
            "max_window",
            format!("{} is larger than 4 GiB", t.max_window),
        );
    }
    if window < mss {
        let field = if o.sets("mss") && !o.sets("max_window") {
            "mss"
        } else {
            "max_window"
        };
        return fail(
            field,
            format!(
                "max_window ({}) is smaller than mss ({})",
                t.max_window, t.mss
            ),
        );
    }
    // RFC 7323: the window field is 16 bits, in units of 2^shift bytes.
    let shift = match t.window_scale {
        WindowScale::Shift(s) => u32::from(s),
        WindowScale::Auto => (0..=14).find(|s| window <= 65_535u64 << s).unwrap_or(14),
    };
    let largest = 65_535u64 << shift;
    if window > largest {
        let (field, why) = if matches!(t.window_scale, WindowScale::Shift(_)) {
            (
                "window_scale",
                format!("a window scale of {shift} advertises at most {largest} B"),
            )
        } else {
            (
                "max_window",
                format!("RFC 7323 advertises at most 65,535 x 2^14 = {largest} B"),
            )
        };
        return fail(
            field,
            format!(
                "max_window ({}) cannot be advertised: {why}; allowed: a larger window_scale \
                 (at most 14) or a smaller max_window",
                t.max_window
            ),
        );
    }
    // The receiver advertises its window in units of 2^shift bytes (rounded down).
    let window = window >> shift << shift;
    if window < mss {
        return fail(
            "max_window",
            format!(
                "max_window ({}) rounded down to the window scale's unit ({} B) is below mss ({})",
                t.max_window,
                1u64 << shift,
                t.mss
            ),
        );
    }
    if t.max_rto.is_zero() {
        return fail("max_rto", "must be positive".into());
    }
    if t.min_rto > t.max_rto {
        return fail(
            "min_rto",
            format!("min_rto ({}) is above max_rto ({})", t.min_rto, t.max_rto),
        );
    }
    if t.initial_rto.is_zero() {
        return fail("initial_rto", "must be positive".into());
    }
    let drop_at_cwnd = match t.drop_at_cwnd {
        DropAtCwnd::Off => None,
        DropAtCwnd::At(b) if b.0 < mss || b.0 > window => {
            return fail(
                "drop_at_cwnd",
                format!(
                    "{b}: the window must be able to reach it: allowed from one MSS ({mss} B) to \
                     max_window ({window} B), or \"off\""
                ),
            )
        }
        DropAtCwnd::At(b) => Some(b.0 as u32),
    };
    let initial_ssthresh = match t.initial_ssthresh {
        InitialSsthresh::MaxWindow => window as u32,
        InitialSsthresh::At(b) if b.0 < 2 * mss || b.0 > window => {
            return fail(
                "initial_ssthresh",
                format!(
                    "{b}: allowed from two segments ({} B, RFC 5681's floor) to max_window \
                     ({window} B), or \"max_window\"",
                    2 * mss
                ),
            )
        }
        InitialSsthresh::At(b) => b.0 as u32,
    };
    if !(1..=10_000).contains(&t.drop_count) {
        return fail(
            "drop_count",
            format!("{}: allowed 1 to 10000 segments per loss", t.drop_count),
        );
    }
    if !(1..=4).contains(&t.sack_blocks) {
        return fail(
            "sack_blocks",
            format!(
                "{}: allowed 1 to 4 SACK blocks per ACK (4 fill TCP's 40 option bytes; 3 \
                 leave room for timestamps)",
                t.sack_blocks
            ),
        );
    }
    if t.initial_cwnd == 0 {
        return fail("initial_cwnd", "must be at least 1 segment".into());
    }
    let timer_granularity = match t.timer {
        Timer::Exact => SimTime::ZERO,
        Timer::Granularity(g) if g.is_zero() => {
            return fail(
                "timer",
                "a 0 s tick never fires; write \"exact\" for a fine timer".into(),
            )
        }
        Timer::Granularity(g) => g.0,
    };
    let delayed_ack = match t.delayed_ack {
        DelayedAck::Off => None,
        DelayedAck::MaxWait(w) if w.is_zero() => {
            return fail(
                "delayed_ack",
                "a 0 s wait is no delay; write \"off\"".into(),
            )
        }
        DelayedAck::MaxWait(w) => Some(w.0),
    };
    Ok(TcpSpec {
        variant: match t.variant {
            TcpVariant::Tahoe => SpecVariant::Tahoe,
            TcpVariant::Reno => SpecVariant::Reno,
            TcpVariant::NewReno => SpecVariant::NewReno,
            TcpVariant::Sack => SpecVariant::Sack,
        },
        mss_bytes: mss as u32,
        max_window_bytes: window as u32,
        timer_granularity,
        min_rto: t.min_rto.0,
        max_rto: t.max_rto.0,
        initial_rto: t.initial_rto.0,
        delayed_ack,
        ack_every: t.ack_every,
        ack_clock: match t.ack_clock {
            AckClock::PerSegment => SpecAckClock::PerSegment,
            AckClock::Periodic => SpecAckClock::Periodic,
            AckClock::PeriodicPerHost => SpecAckClock::PeriodicPerHost,
        },
        dupack_threshold: t.dupack_threshold,
        recover_guard: t.recover_guard,
        initial_cwnd_segments: t.initial_cwnd,
        cwnd_growth: match t.cwnd_growth {
            CwndGrowth::PerAck => SpecGrowth::PerAck,
            CwndGrowth::PerSegment => SpecGrowth::PerSegment,
            CwndGrowth::PerAckPlusEighth => SpecGrowth::PerAckPlusEighth,
        },
        initial_ssthresh_bytes: initial_ssthresh,
        keep_out_of_order: t.out_of_order == OutOfOrder::Keep,
        sack_blocks: t.sack_blocks,
        drop_at_cwnd,
        drop_count: t.drop_count,
    })
}

/// The index of the link joining `a` and `b` (the route check has made sure there is one).
/// The links by the names of the nodes they join (the smaller name first).
type Pairs<'a> = BTreeMap<(&'a str, &'a str), usize>;

/// The link joining nodes `a` and `b`, if any (either way round).
fn link_between(pairs: &Pairs, a: &str, b: &str) -> Option<usize> {
    let key = if a < b { (a, b) } else { (b, a) };
    pairs.get(&key).copied()
}
