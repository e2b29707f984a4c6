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
use atmsim_model::spec::{
    AppSpec, ConnectionSpec, HostSpec, LinkSpec, NetworkSpec, NodeIdx, NodeKind, NodeSpec,
    PolicySpec, Queueing as SpecQueueing, RunSpec, SwitchSpec, TcpSpec, TcpVariant as SpecVariant,
};

use crate::error::{FieldPath, Problem};
use crate::schema::{
    App, ConnectionConfig, PolicyConfig, Queueing, Scenario, TcpConfig, TcpOverride, TcpVariant,
};
use crate::units::{Buffer, Credits, DelayedAck, Timer};

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

/// Checks `s` and resolves it; the first problem found is returned.
pub fn build(s: &Scenario) -> Result<NetworkSpec, Problem> {
    if s.name.trim().is_empty() {
        return Err(Problem::new(path("name"), "must not be empty"));
    }
    let run = check_run(s)?;

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
    let mut pairs: BTreeMap<(&str, &str), usize> = BTreeMap::new();
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

    let mut nodes: Vec<NodeSpec> = s
        .switch
        .iter()
        .enumerate()
        .map(|(i, sw)| -> Result<NodeSpec, Problem> {
            Ok(NodeSpec {
                name: sw.name.clone(),
                kind: NodeKind::Switch(SwitchSpec {
                    switching_delay: sw.switching_delay.0,
                    queueing: match sw.queueing {
                        Queueing::PerVc => SpecQueueing::PerVc,
                        Queueing::Fifo => SpecQueueing::Fifo,
                    },
                    vc_buffer_cells: sw.vc_buffer.cells(),
                    port_buffer_cells: sw.port_buffer.cells(),
                    policy: check_policy(&sw.policy, item("switch", i).key("policy"))?,
                }),
            })
        })
        .collect::<Result<_, Problem>>()?;
    for &h in &hosts {
        let cfg = match s.hosts.get(h) {
            Some(o) => s.host.with(o),
            None => s.host.clone(),
        };
        nodes.push(NodeSpec {
            name: h.to_string(),
            kind: NodeKind::Host(HostSpec {
                processing_delay: cfg.processing_delay.0,
                sar_delay_per_cell: cfg.sar_delay.0,
                llc_snap: cfg.llc_snap,
                ip_service_time: cfg.ip_rate.service_time(),
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
                (Some(r), _) => r.cell_time(),
                (None, Some(t)) => t.0,
                (None, None) => unreachable!("checked above"),
            },
            delay: l.delay.0,
            credits: l.credits.cells(),
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
        let route = check_route(s, c, &p, &roles, &hosts)?;
        let tcp = check_tcp(&s.tcp, &c.tcp, &p)?;
        let app = match c.app {
            App::Greedy => AppSpec::Greedy,
            App::Bytes(b) if b.bytes() == 0 => {
                return Err(Problem::new(
                    p.key("app"),
                    "sends 0 bytes; give at least 1 B",
                ))
            }
            App::Bytes(b) => AppSpec::Bytes(b.bytes()),
        };
        connections.push(ConnectionSpec {
            name: c.name.clone(),
            path: route.iter().map(|n| index[n]).collect(),
            tcp,
            app,
            start: c.start.0,
            start_jitter: c.start_jitter.0,
        });
    }

    Ok(NetworkSpec {
        run,
        nodes,
        links,
        connections,
    })
}

/// Thresholds are fractions of the buffer: in (0, 1], and ESPD's low at most its high.
fn check_policy(p: &PolicyConfig, at: FieldPath) -> Result<PolicySpec, Problem> {
    let fraction = |x: f64, key: &str| {
        if x > 0.0 && x <= 1.0 {
            Ok(x)
        } else {
            Err(Problem::new(
                at.clone().key(key),
                format!("{x} is not a fraction of the buffer: allowed 0 < {key} <= 1 (e.g. 0.95)"),
            ))
        }
    };
    Ok(match p {
        PolicyConfig::CellDrop(_) => PolicySpec::CellDrop,
        PolicyConfig::Ppd(c) => PolicySpec::Ppd {
            keep_eom: c.keep_eom,
        },
        PolicyConfig::DropWhole(_) => PolicySpec::DropWhole,
        PolicyConfig::Epd(c) => PolicySpec::Epd {
            threshold: fraction(c.threshold, "threshold")?,
        },
        PolicyConfig::Espd(c) => {
            let (high, low) = (fraction(c.high, "high")?, fraction(c.low, "low")?);
            if low > high {
                return Err(Problem::new(
                    at.key("low"),
                    format!("low ({low}) must not exceed high ({high})"),
                ));
            }
            PolicySpec::Espd { high, low }
        }
    })
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
                "warmup ({}) must be shorter than duration ({})",
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
    Ok(RunSpec {
        duration: r.duration.0,
        warmup: r.warmup.0,
        seed: r.seed,
        sample_every: r.sample_every.0,
    })
}

/// The node names `from, via..., to`, after checking that each is what its place requires and
/// that each consecutive pair shares a link.
fn check_route<'a>(
    s: &'a Scenario,
    c: &'a ConnectionConfig,
    p: &FieldPath,
    roles: &HashMap<&str, Role>,
    hosts: &[&str],
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
        let joined = s.link.iter().any(|l| {
            (l.between[0] == a && l.between[1] == b) || (l.between[0] == b && l.between[1] == a)
        });
        if !joined {
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
    if mss > u64::from(u32::MAX) {
        return fail("mss", format!("{} is larger than 4 GiB", t.mss));
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
        },
        mss_bytes: mss as u32,
        max_window_bytes: window as u32,
        timer_granularity,
        min_rto: t.min_rto.0,
        max_rto: t.max_rto.0,
        initial_rto: t.initial_rto.0,
        delayed_ack,
        ack_every: t.ack_every,
        dupack_threshold: t.dupack_threshold,
        initial_cwnd_segments: t.initial_cwnd,
    })
}
