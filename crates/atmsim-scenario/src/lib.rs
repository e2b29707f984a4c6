//! Scenario files for atmsim: TOML with human units, checked, resolved into the
//! [`NetworkSpec`] that `atmsim-model` runs.
//!
//! ```text
//! text --toml--> Table --(--set overrides)--> Scenario (serde, deny_unknown_fields)
//!      --semantic checks--> NetworkSpec (units resolved, names resolved to indices)
//! ```
//!
//! Errors are [`ScenarioError`]s that name the file (or `--set`), the line, the field and
//! what is allowed. [`canonical_toml`] writes a scenario back with every default explicit.
//! The schema is in [`schema`], the units in [`units`].

mod advice;
pub mod base;
mod build;
mod canonical;
pub mod cost;
mod describe;
pub mod error;
pub mod overrides;
pub mod schema;
mod trace;
pub use atmsim_units as units;

use atmsim_model::spec::NetworkSpec;

pub use advice::warnings;
pub use base::Bases;
pub use canonical::canonical_toml;
pub use cost::{estimate, Cost};
pub use describe::describe;
pub use error::ScenarioError;
pub use schema::Scenario;
pub use trace::trace_config;

use base::{Layer, NamePath};
use error::{first_line, key_named_in, FieldPath, Problem};
use overrides::{Applied, SET_SOURCE};

/// [`load_with`] where a `base` can only be a path (no built-in scenarios to name).
pub fn load(
    text: &str,
    source: &str,
    overrides: &[(String, String)],
    seed: Option<u64>,
) -> Result<(Scenario, NetworkSpec), ScenarioError> {
    load_with(text, source, &Bases::default(), overrides, seed)
}

/// Parses `text` (named `source` in errors), applies its `base` chain (looked up in
/// `bases`, see [`base`]), then `overrides` (`--set KEY=VALUE` pairs) and `seed` (replacing
/// `run.seed`), checks the result and resolves it.
pub fn load_with(
    text: &str,
    source: &str,
    bases: &Bases,
    overrides: &[(String, String)],
    seed: Option<u64>,
) -> Result<(Scenario, NetworkSpec), ScenarioError> {
    let resolved = base::resolve(text, source, bases)?;
    let mut table = resolved.table;
    let applied = overrides::apply(&mut table, overrides)?;
    let locator = Locator {
        layers: resolved.layers,
        applied,
        table: table.clone(),
    };

    let mut scenario: Scenario = serde_path_to_error::deserialize(toml::Value::Table(table))
        .map_err(|e| {
            let mut message = first_line(e.inner().message());
            if message.ends_with("there are no fields") {
                // An empty config struct, e.g. `policy = { kind = "cell_drop" }`.
                message = message.replace("there are no fields", "no keys are allowed here");
            }
            let mut path = FieldPath::from_serde(e.path());
            if let Some(key) = key_named_in(&message) {
                if path.0.last() != Some(&error::Seg::Key(key.to_string())) {
                    path = path.key(key);
                }
            }
            if message.starts_with("missing field") {
                if let Some((table, example)) = kinded_example(&locator.table, &path) {
                    message = format!("{message}; e.g. {table} = {example}");
                }
            }
            locator.place(Problem::new(path, message))
        })?;
    if let Some(seed) = seed {
        scenario.run.seed = seed;
    }
    let spec = build::build(&scenario).map_err(|p| {
        if seed.is_some() && p.path == FieldPath::from("run.seed") {
            ScenarioError {
                file: "--seed".into(),
                line: None,
                field: p.path.to_string(),
                message: p.message,
            }
        } else {
            locator.place(p)
        }
    })?;
    Ok((scenario, spec))
}

/// The whole scenario `text` says, its `base` chain applied, as a TOML table (before
/// overrides and checks): what `atmsim scenario show` prints, once checked and made canonical.
pub fn resolve_table(
    text: &str,
    source: &str,
    bases: &Bases,
) -> Result<toml::Table, ScenarioError> {
    base::resolve(text, source, bases).map(|r| r.table)
}

/// The tables whose `kind` decides their keys, and a complete table of each kind.
type Example = fn(&str) -> Option<&'static str>;
const KINDED: &[(&str, Example)] = &[
    ("policy", atmsim_model::port::policy::PolicyConfig::example),
    ("rate_control", schema::RateControlConfig::example),
    ("source", schema::SourceConfig::example),
];

/// When `path` lies in a table of [`KINDED`]: the table's key and a complete table of the kind
/// it names (read from `root`, the scenario with its bases and overrides applied).
fn kinded_example(root: &toml::Table, path: &FieldPath) -> Option<(&'static str, &'static str)> {
    let (at, (key, example)) = path.0.iter().enumerate().rev().find_map(|(i, seg)| {
        let error::Seg::Key(k) = seg else {
            return None;
        };
        KINDED.iter().find(|(name, _)| name == k).map(|e| (i, e))
    })?;
    let mut value: Option<&toml::Value> = None;
    for seg in &path.0[..=at] {
        value = Some(match (value, seg) {
            (None, error::Seg::Key(k)) => root.get(k.as_str())?,
            (Some(v), error::Seg::Key(k)) => v.get(k.as_str())?,
            (Some(v), error::Seg::Index(i)) => v.get(*i)?,
            (None, error::Seg::Index(_)) => return None,
        });
    }
    Some((key, example(value?.get("kind")?.as_str()?)?))
}

/// Checks `scenario` and resolves it. Errors carry no line; `file` is the scenario's name.
pub fn build(scenario: &Scenario) -> Result<NetworkSpec, ScenarioError> {
    build::build(scenario).map_err(|p| ScenarioError {
        file: scenario.name.clone(),
        line: None,
        field: p.path.to_string(),
        message: p.message,
    })
}

/// Places problems in the files of the chain or in the overrides.
struct Locator {
    /// The scenario's own file first, then its bases.
    layers: Vec<Layer>,
    applied: Vec<Applied>,
    /// The scenario with its bases and overrides applied.
    table: toml::Table,
}

impl Locator {
    fn place(&self, p: Problem) -> ScenarioError {
        let field = p.path.to_string();
        let path = NamePath::of(&self.table, &p.path);
        let in_files = self.layers.iter().any(|l| l.contains(&path));
        // A change is to blame if it wrote at or above `path`, or if it created the part of
        // `path` that no file has.
        let blame = |written: &NamePath| {
            path.starts_with(written) || (!in_files && written.starts_with(&path))
        };
        let on_command_line = self
            .applied
            .iter()
            .rev()
            .find(|a| a.paths.iter().any(|w| blame(&NamePath::of(&self.table, w))));
        if let Some(a) = on_command_line {
            return ScenarioError {
                file: SET_SOURCE.into(),
                line: None,
                field,
                message: format!("{} (in --set {}={})", p.message, a.key, a.value),
            };
        }
        // The scenario's own file over its base, its `[set]` over its keys.
        for layer in &self.layers {
            if let Some(s) = layer.sets.iter().rev().find(|s| s.paths.iter().any(&blame)) {
                return ScenarioError {
                    file: layer.source.clone(),
                    line: s.line,
                    field,
                    message: format!("{} (in [set] \"{}\")", p.message, s.key),
                };
            }
            if layer.contains(&path) {
                return ScenarioError {
                    file: layer.source.clone(),
                    line: layer.find(&path).1,
                    field,
                    message: p.message,
                };
            }
        }
        // No file writes all of it: the one that writes most of it (the scenario's own first).
        let mut best: Option<(usize, &Layer, Option<usize>)> = None;
        for layer in &self.layers {
            let (depth, line) = layer.find(&path);
            if best.is_none_or(|(d, _, _)| depth > d) {
                best = Some((depth, layer, line));
            }
        }
        let (_, layer, line) = best.expect("a scenario has at least its own file");
        ScenarioError {
            file: layer.source.clone(),
            line,
            field,
            message: p.message,
        }
    }
}
