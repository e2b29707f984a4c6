//! The `[run]` table: duration, warm-up, seed, and the time series kept.

use atmsim_model::spec::{RunSpec, SampleSelection};

use super::{list, path, TOML_INT_MAX};
use crate::error::{FieldPath, Problem};
use crate::schema::Scenario;

/// The most sampled values a run may keep (8 bytes each: 800 MB); the number of series is
/// estimated from below as 10 per connection and 10 per link (5 per direction).
const MAX_SAMPLED_VALUES: u64 = 100_000_000;

pub(super) fn check_run(s: &Scenario) -> Result<RunSpec, Problem> {
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
                     values), above the {MAX_SAMPLED_VALUES} a run may keep (800 MB of \
                     series); allowed a sample_every of at least {} here, \"0 s\" to sample \
                     nothing, or fewer series (series, sample_kinds, sample_entities, \
                     sample_metrics)",
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

/// The groups of series `run.series` may name, with the entity kind each keeps.
const SERIES_GROUPS: [(&str, &str); 5] = [
    ("connections", "connection"),
    ("switch_ports", "port"),
    ("host_ports", "port"),
    ("abr", "abr"),
    ("rate_control", "rate_control"),
];

/// Without `run.series`, the ports of links to hosts (two per connection in most scenarios:
/// two thirds of the series at 1,000 connections) are sampled only in a scenario of at most
/// this many connections: there they cost little (a few per cent of a sample) and keep the
/// columns a small scenario has always had.
pub const HOST_PORT_SERIES_UP_TO: usize = 100;

/// The series selection of `[run]`: each name must exist (a kind, an entity of this
/// scenario, a metric of a selected kind), so a misspelt name is refused rather than
/// silently recording nothing.
pub(super) fn check_sample(s: &Scenario, p: &FieldPath) -> Result<SampleSelection, Problem> {
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
    let (mut kinds, mut switch_ports, mut host_ports) = (r.sample_kinds.clone(), true, true);
    match &r.series {
        None => host_ports = s.connection.len() <= HOST_PORT_SERIES_UP_TO,
        Some(groups) => {
            let mut allowed: Vec<&str> = SERIES_GROUPS.iter().map(|(g, _)| *g).collect();
            allowed.push("all");
            check("series", &r.series, &allowed, "group of series", true)?;
            if !groups.iter().any(|g| g == "all") {
                let has = |g: &str| groups.iter().any(|x| x == g);
                switch_ports = has("switch_ports");
                host_ports = has("host_ports");
                let wanted: Vec<String> = SERIES_GROUPS
                    .iter()
                    .filter(|(g, _)| has(g))
                    .map(|(_, k)| k.to_string())
                    .collect();
                kinds = Some(match kinds {
                    None => wanted,
                    Some(ks) => ks.into_iter().filter(|k| wanted.contains(k)).collect(),
                });
            }
        }
    }
    Ok(SampleSelection {
        kinds,
        entities: r.sample_entities.clone(),
        metrics: r.sample_metrics.clone(),
        switch_ports,
        host_ports,
    })
}

/// `a, b, c` (the first 12, then how many more).
pub(super) fn list_some(xs: &[&str]) -> String {
    let mut out = xs.iter().take(12).copied().collect::<Vec<_>>().join(", ");
    if xs.len() > 12 {
        out.push_str(&format!(" and {} more", xs.len() - 12));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::HOST_PORT_SERIES_UP_TO;
    use atmsim_model::spec::SampleSelection;

    const FANG: &str = include_str!("../../../../python/atmsim/scenarios/fang1994-cell-drop.toml");

    fn selection(overrides: &[(&str, &str)]) -> SampleSelection {
        let o: Vec<_> = overrides
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        crate::load(FANG, "fang.toml", &o, None)
            .unwrap()
            .1
            .run
            .sample
    }

    /// A small scenario keeps every series by default; `run.series` names the groups kept,
    /// and `sample_kinds` narrows them further.
    #[test]
    fn series_groups_select_kinds_and_ports() {
        assert_eq!(selection(&[]), SampleSelection::all());
        assert_eq!(
            selection(&[("run.series", "[\"all\"]")]),
            SampleSelection::all()
        );
        let s = selection(&[("run.series", "[\"connections\", \"switch_ports\"]")]);
        assert_eq!(s.kinds, Some(vec!["connection".into(), "port".into()]));
        assert!(s.switch_ports && !s.host_ports);
        let s = selection(&[
            ("run.series", "[\"host_ports\", \"abr\"]"),
            ("run.sample_kinds", "[\"port\", \"connection\"]"),
        ]);
        assert_eq!(s.kinds, Some(vec!["port".into()]));
        assert!(!s.switch_ports && s.host_ports);
    }

    /// Without `run.series` a scenario of more than [`HOST_PORT_SERIES_UP_TO`] connections
    /// leaves out the ports of links to hosts.
    #[test]
    fn large_scenarios_leave_host_ports_out_by_default() {
        let mut text = FANG.to_string();
        let n = HOST_PORT_SERIES_UP_TO + 1 - text.matches("[[connection]]").count();
        let scenario: toml::Value = toml::from_str(FANG).unwrap();
        let first = &scenario["connection"][0];
        let (from, to) = (
            first["from"].as_str().unwrap(),
            first["to"].as_str().unwrap(),
        );
        for k in 0..n {
            text.push_str(&format!(
                "\n[[connection]]\nname = \"extra{k}\"\nfrom = \"{from}\"\nto = \"{to}\"\n\
                 via = [\"A\", \"B\"]\n"
            ));
        }
        let spec = crate::load(&text, "many.toml", &[], None).unwrap().1;
        assert_eq!(spec.connections.len(), HOST_PORT_SERIES_UP_TO + 1);
        let s = spec.run.sample;
        assert!(s.switch_ports && !s.host_ports && s.kinds.is_none());
    }
}
