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
mod build;
mod canonical;
pub mod cost;
mod describe;
pub mod error;
pub mod overrides;
pub mod schema;
pub mod units;

use atmsim_model::spec::NetworkSpec;

pub use advice::warnings;
pub use canonical::canonical_toml;
pub use cost::{estimate, Cost};
pub use describe::describe;
pub use error::ScenarioError;
pub use schema::Scenario;

use error::{first_line, key_named_in, line_of, FieldPath, Problem, SpanTree};
use overrides::{Applied, SET_SOURCE};

/// Parses `text` (named `source` in errors), applies `overrides` (`--set KEY=VALUE` pairs)
/// and `seed` (replacing `run.seed`), checks the result and resolves it.
pub fn load(
    text: &str,
    source: &str,
    overrides: &[(String, String)],
    seed: Option<u64>,
) -> Result<(Scenario, NetworkSpec), ScenarioError> {
    let locator = Locator {
        text,
        source,
        tree: SpanTree::parse(text),
        applied: Vec::new(),
    };
    let mut table: toml::Table = toml::from_str(text).map_err(|e| locator.syntax(&e))?;
    let applied = overrides::apply(&mut table, overrides)?;
    let locator = Locator { applied, ..locator };

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
                if let Some((table, example)) = kinded_example(text, overrides, &path) {
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

/// The tables whose `kind` decides their keys, and a complete table of each kind.
type Example = fn(&str) -> Option<&'static str>;
const KINDED: &[(&str, Example)] = &[
    ("policy", atmsim_model::port::policy::PolicyConfig::example),
    ("source", schema::SourceConfig::example),
];

/// When `path` lies in a table of [`KINDED`]: the table's key and a complete table of the kind
/// it names (read again from `text` and `overrides`: this runs only for a refused scenario).
fn kinded_example(
    text: &str,
    overrides: &[(String, String)],
    path: &FieldPath,
) -> Option<(&'static str, &'static str)> {
    let (at, (key, example)) = path.0.iter().enumerate().rev().find_map(|(i, seg)| {
        let error::Seg::Key(k) = seg else {
            return None;
        };
        KINDED.iter().find(|(name, _)| name == k).map(|e| (i, e))
    })?;
    let mut table: toml::Table = toml::from_str(text).ok()?;
    overrides::apply(&mut table, overrides).ok()?;
    let root = toml::Value::Table(table);
    let mut value = &root;
    for seg in &path.0[..=at] {
        value = match seg {
            error::Seg::Key(k) => value.get(k.as_str())?,
            error::Seg::Index(i) => value.get(*i)?,
        };
    }
    Some((key, example(value.get("kind")?.as_str()?)?))
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

/// Places problems in the file or in the overrides.
struct Locator<'a> {
    text: &'a str,
    source: &'a str,
    tree: Option<SpanTree>,
    applied: Vec<Applied>,
}

impl Locator<'_> {
    fn syntax(&self, e: &toml::de::Error) -> ScenarioError {
        let (line, column) = match e.span() {
            Some(span) => {
                let start = span.start.min(self.text.len());
                let line_start = self.text[..start].rfind('\n').map_or(0, |i| i + 1);
                (
                    Some(line_of(self.text, start)),
                    Some(self.text[line_start..start].chars().count() + 1),
                )
            }
            None => (None, None),
        };
        let mut message = format!("invalid TOML: {}", first_line(e.message()));
        if let Some(c) = column {
            message.push_str(&format!(" (column {c})"));
        }
        ScenarioError {
            file: self.source.into(),
            line,
            field: String::new(),
            message,
        }
    }

    /// An override is to blame if it wrote at or above `path`, or if it created the part of
    /// `path` that the file does not have.
    fn blame(&self, path: &FieldPath) -> Option<&Applied> {
        let in_file = self.tree.as_ref().is_some_and(|t| t.contains(path));
        self.applied.iter().rev().find(|a| {
            a.paths
                .iter()
                .any(|written| path.starts_with(written) || (!in_file && written.starts_with(path)))
        })
    }

    fn place(&self, p: Problem) -> ScenarioError {
        let field = p.path.to_string();
        if let Some(a) = self.blame(&p.path) {
            return ScenarioError {
                file: SET_SOURCE.into(),
                line: None,
                field,
                message: format!("{} (in --set {}={})", p.message, a.key, a.value),
            };
        }
        let line = self
            .tree
            .as_ref()
            .and_then(|t| t.locate(&p.path).0)
            .map(|span| line_of(self.text, span.start));
        ScenarioError {
            file: self.source.into(),
            line,
            field,
            message: p.message,
        }
    }
}
