//! `base`: a scenario file that says only what differs from another scenario.
//!
//! ```toml
//! base = "cheon1998-epd-500"     # a built-in name, or a path relative to this file
//! name = "cheon1998-espd-500"
//! remove = ["connection.s6"]      # items of the base's arrays of tables to leave out
//! [tcp]
//! mss = "1500 B"                  # tables merge key by key
//! [set]                           # `--set KEY=VALUE` pairs, written in the file
//! "switch.*.policy" = { kind = "espd", high = 0.95, low = 0.9 }
//! ```
//!
//! The base is resolved first (its own base, `remove`, keys and `[set]`, recursively), then:
//!
//! 1. `remove = ["ARRAY.SELECTOR", ...]` leaves items out of the base's `switch`, `link`,
//!    `connection` or `merge` arrays; SELECTOR is what `--set` takes (an item's `name`, a
//!    link's `A-B` pair in either order, an index, or `*` for all).
//! 2. The file's own keys are merged over the base. A table merges key by key, recursively,
//!    except a table that names its `kind` (`policy`, `source`, `scheduler`, `rate_control`
//!    ...): its keys depend on its kind, so it replaces the base's table whole. Any other value,
//!    arrays such as `via` included, replaces the base's. In the top-level arrays of tables
//!    (`[[switch]]`, `[[link]]`, `[[connection]]`, `[[merge]]`) an item is matched by name (a
//!    link by its `between` pair, in either order): a matching item merges into the base's like
//!    a table, keeping its place; an item the base has not is added at the end.
//! 3. `[set]` entries are applied in the order written, exactly as `--set KEY=VALUE` (which
//!    comes after all of this, then `--seed`).
//!
//! `base`, `remove` and `set` are not part of the scenario: the canonical form (`atmsim
//! scenario show`) is the resolved whole. A base that is missing, or a chain of bases that
//! leads back to a file already in it, is refused naming the file, the line and `base`.

use std::path::{Path, PathBuf};

use toml::{Table, Value};

use crate::error::{line_of, FieldPath, ScenarioError, Seg, SpanTree};
use crate::overrides::{self, ARRAYS};

/// Where the names a `base` key gives are looked up.
#[derive(Debug, Clone, Default)]
pub struct Bases {
    /// The folder of the built-in scenarios (`NAME.toml`); without it only paths are bases.
    pub builtin_dir: Option<PathBuf>,
}

impl Bases {
    /// Bases looked up in `dir` (the built-ins) and relative to each file.
    pub fn builtin(dir: impl Into<PathBuf>) -> Bases {
        Bases {
            builtin_dir: Some(dir.into()),
        }
    }

    fn builtin_names(&self) -> Vec<String> {
        let Some(dir) = &self.builtin_dir else {
            return Vec::new();
        };
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter_map(|n| n.strip_suffix(".toml").map(str::to_string))
            .collect();
        names.sort();
        names
    }

    /// The folder a file named `source` (as given to [`crate::load_with`]) is in: its own if
    /// it is a file, the built-ins' if it is a built-in's `NAME.toml`, else the working one.
    fn folder_of(&self, source: &str) -> (PathBuf, Option<PathBuf>) {
        let generated = source.starts_with('<') && source.ends_with('>');
        let path = Path::new(source);
        if !generated && path.is_file() {
            let dir = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
            return (dir, std::fs::canonicalize(path).ok());
        }
        if let Some(dir) = &self.builtin_dir {
            let p = dir.join(source);
            if !generated && !source.contains(['/', '\\']) && p.is_file() {
                return (dir.clone(), std::fs::canonicalize(p).ok());
            }
        }
        (PathBuf::new(), None)
    }

    /// `(text, source, folder, identity)` of the base `name`, named in a file in `folder`.
    fn find(
        &self,
        name: &str,
        folder: &Path,
    ) -> Result<(String, String, PathBuf, PathBuf), String> {
        let allowed = "base is a built-in scenario name (`atmsim scenario list`) or a path to a \
                       TOML file (with a `/` or ending in .toml), relative to the file's folder";
        let is_path = name.contains(['/', '\\']) || name.ends_with(".toml");
        let (path, source) = if is_path {
            let p = folder.join(name);
            (p.clone(), p.display().to_string())
        } else {
            let Some(dir) = &self.builtin_dir else {
                return Err(format!(
                    "no built-in scenarios here to find `{name}` in; {allowed}"
                ));
            };
            (dir.join(format!("{name}.toml")), format!("{name}.toml"))
        };
        if !path.is_file() {
            return Err(if is_path {
                format!("no such file `{}`; {allowed}", path.display())
            } else {
                format!(
                    "no built-in scenario `{name}` (built-ins: {}); {allowed}",
                    self.builtin_names().join(", ")
                )
            });
        }
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        let folder = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
        let identity = std::fs::canonicalize(&path).unwrap_or(path);
        Ok((text, source, folder, identity))
    }
}

/// One step of a [`NamePath`]: array items by name, which survive `remove` and merging.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NSeg {
    Key(String),
    /// The `n`th item (0 = first) of those carrying this name.
    Item(String, usize),
    Index(usize),
}

/// A [`FieldPath`] with the items of arrays named rather than counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NamePath(pub Vec<NSeg>);

impl NamePath {
    /// `path` in `root`, its items named where they have a name.
    pub fn of(root: &Table, path: &FieldPath) -> NamePath {
        let mut out = Vec::new();
        let mut here: Option<&Value> = None;
        let mut table = Some(root);
        for seg in &path.0 {
            match seg {
                Seg::Key(k) => {
                    out.push(NSeg::Key(k.clone()));
                    here = table.and_then(|t| t.get(k.as_str()));
                }
                Seg::Index(i) => {
                    let items = here.and_then(Value::as_array);
                    let named = items.and_then(|items| {
                        let name = items.get(*i)?.as_table().map(first_name)??;
                        let nth = items[..*i]
                            .iter()
                            .filter(|v| v.as_table().and_then(first_name).as_ref() == Some(&name))
                            .count();
                        Some(NSeg::Item(name, nth))
                    });
                    out.push(named.unwrap_or(NSeg::Index(*i)));
                    here = items.and_then(|items| items.get(*i));
                }
            }
            table = here.and_then(Value::as_table);
        }
        NamePath(out)
    }

    pub fn starts_with(&self, prefix: &NamePath) -> bool {
        self.0.starts_with(&prefix.0)
    }

    /// This path in `root`'s own coordinates, as far as `root` has it.
    fn in_table(&self, root: &Table) -> FieldPath {
        let mut out = FieldPath::root();
        let mut here: Option<&Value> = None;
        let mut table = Some(root);
        for seg in &self.0 {
            match seg {
                NSeg::Key(k) => {
                    out = out.key(k.as_str());
                    here = table.and_then(|t| t.get(k.as_str()));
                }
                NSeg::Index(i) => {
                    out = out.index(*i);
                    here = here.and_then(|v| v.get(*i));
                }
                NSeg::Item(name, nth) => {
                    let items = here.and_then(Value::as_array);
                    let found = items.and_then(|items| {
                        items
                            .iter()
                            .enumerate()
                            .filter(|(_, v)| {
                                v.as_table().and_then(first_name).as_ref() == Some(name)
                            })
                            .nth(*nth)
                    });
                    let Some((i, item)) = found else {
                        // Not in this file: an index no item has.
                        return out.index(usize::MAX);
                    };
                    out = out.index(i);
                    here = Some(item);
                }
            }
            table = here.and_then(Value::as_table);
        }
        out
    }
}

/// An item's name: its `name`, or a link's `between` pair joined with `-`.
fn first_name(item: &Table) -> Option<String> {
    overrides::item_names(item).into_iter().next()
}

/// One `[set]` entry of a file, and the paths it wrote.
pub(crate) struct FileSet {
    pub key: String,
    pub line: Option<usize>,
    pub paths: Vec<NamePath>,
}

/// One file of a chain: the scenario's own file first, then its base, its base's base...
pub(crate) struct Layer {
    pub source: String,
    pub text: String,
    pub tree: Option<SpanTree>,
    /// The file's keys as written (without `base`, `remove` and `set`).
    pub table: Table,
    pub sets: Vec<FileSet>,
}

impl Layer {
    /// How much of `path` this file writes: `(segments found, its line)`.
    pub fn find(&self, path: &NamePath) -> (usize, Option<usize>) {
        let Some(tree) = &self.tree else {
            return (0, None);
        };
        let fp = path.in_table(&self.table);
        let found = (0..=fp.0.len())
            .rev()
            .find(|&n| tree.contains(&FieldPath(fp.0[..n].to_vec())))
            .unwrap_or(0);
        let span = tree.locate(&FieldPath(fp.0[..found].to_vec())).0;
        (found, span.map(|s| line_of(&self.text, s.start)))
    }

    pub fn contains(&self, path: &NamePath) -> bool {
        self.find(path).0 == path.0.len()
    }

    fn error(&self, field: FieldPath, message: String) -> ScenarioError {
        let line = self
            .tree
            .as_ref()
            .and_then(|t| t.locate(&field).0)
            .map(|s| line_of(&self.text, s.start));
        ScenarioError {
            file: self.source.clone(),
            line,
            field: field.to_string(),
            message,
        }
    }
}

/// A scenario's table with its bases applied, and the files it came from.
pub(crate) struct Resolved {
    pub table: Table,
    /// The scenario's own file first.
    pub layers: Vec<Layer>,
}

/// Reads `text` (named `source`) and applies its `base` chain.
pub(crate) fn resolve(text: &str, source: &str, bases: &Bases) -> Result<Resolved, ScenarioError> {
    let (folder, identity) = bases.folder_of(source);
    let mut layers = Vec::new();
    let mut chain = Vec::new();
    let table = resolve_file(
        text.to_string(),
        source.to_string(),
        folder,
        identity,
        bases,
        &mut chain,
        &mut layers,
    )?;
    layers.reverse();
    Ok(Resolved { table, layers })
}

/// A TOML syntax error in `text`, named `source`.
pub(crate) fn syntax_error(text: &str, source: &str, e: &toml::de::Error) -> ScenarioError {
    let (line, column) = match e.span() {
        Some(span) => {
            let start = span.start.min(text.len());
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            (
                Some(line_of(text, start)),
                Some(text[line_start..start].chars().count() + 1),
            )
        }
        None => (None, None),
    };
    let mut message = format!("invalid TOML: {}", crate::error::first_line(e.message()));
    if let Some(c) = column {
        message.push_str(&format!(" (column {c})"));
    }
    ScenarioError {
        file: source.into(),
        line,
        field: String::new(),
        message,
    }
}

fn type_name(v: &Value) -> &'static str {
    v.type_str()
}

#[allow(clippy::too_many_arguments)]
fn resolve_file(
    text: String,
    source: String,
    folder: PathBuf,
    identity: Option<PathBuf>,
    bases: &Bases,
    chain: &mut Vec<(Option<PathBuf>, String)>,
    layers: &mut Vec<Layer>,
) -> Result<Table, ScenarioError> {
    let mut table: Table = toml::from_str(&text).map_err(|e| syntax_error(&text, &source, &e))?;
    let base = table.remove("base");
    let remove = table.remove("remove");
    let set = table.remove("set");
    let mut layer = Layer {
        tree: SpanTree::parse(&text),
        source,
        text,
        table,
        sets: Vec::new(),
    };
    let Some(base) = base else {
        for (key, what) in [(&remove, "remove"), (&set, "set")] {
            if key.is_some() {
                return Err(layer.error(
                    FieldPath::from(what),
                    format!(
                        "`{what}` changes a base scenario, and this file names none; add \
                         base = \"NAME\" (a built-in) or base = \"PATH.toml\""
                    ),
                ));
            }
        }
        let table = layer.table.clone();
        layers.push(layer);
        return Ok(table);
    };
    let base_field = FieldPath::from("base");
    let Value::String(name) = &base else {
        return Err(layer.error(
            base_field,
            format!(
                "expected a string, the name of a built-in scenario or a path to a TOML file, \
                 got a {}",
                type_name(&base)
            ),
        ));
    };
    let (base_text, base_source, base_folder, base_identity) = bases
        .find(name, &folder)
        .map_err(|m| layer.error(base_field.clone(), m))?;
    chain.push((identity, layer.source.clone()));
    if let Some(at) = chain
        .iter()
        .position(|(id, _)| id.as_ref() == Some(&base_identity))
    {
        let mut names: Vec<&str> = chain[at..].iter().map(|(_, s)| s.as_str()).collect();
        names.push(&chain[at].1);
        return Err(layer.error(
            base_field,
            format!(
                "base `{name}` leads back to {} ({}); a chain of bases cannot loop",
                chain[at].1,
                names.join(" -> ")
            ),
        ));
    }
    let mut merged = resolve_file(
        base_text,
        base_source,
        base_folder,
        Some(base_identity),
        bases,
        chain,
        layers,
    )?;
    chain.pop();

    if let Some(remove) = remove {
        let field = FieldPath::from("remove");
        let entries = match &remove {
            Value::Array(items) if items.iter().all(Value::is_str) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect::<Vec<_>>(),
            other => {
                return Err(layer.error(
                    field,
                    format!(
                        "expected a list of strings such as [\"connection.s6\", \"link.h6-A\"], \
                         got a {}",
                        type_name(other)
                    ),
                ))
            }
        };
        for (i, entry) in entries.iter().enumerate() {
            remove_items(&mut merged, entry)
                .map_err(|m| layer.error(field.clone().index(i), format!("`{entry}`: {m}")))?;
        }
    }

    merge_tables(&mut merged, layer.table.clone(), true);

    if let Some(set) = set {
        let Value::Table(set) = set else {
            return Err(layer.error(
                FieldPath::from("set"),
                format!(
                    "expected a table of \"KEY\" = VALUE, as --set KEY=VALUE (e.g. \
                     [set] \"switch.*.vc_buffer\" = \"512 cells\"), got a {}",
                    type_name(&set)
                ),
            ));
        };
        for (key, value) in set {
            let field = FieldPath::root().key("set").key(key.as_str());
            let paths = overrides::set_value(&mut merged, &key, &value)
                .map_err(|m| layer.error(field.clone(), m))?;
            let line = layer.find(&NamePath(vec![
                NSeg::Key("set".into()),
                NSeg::Key(key.clone()),
            ]));
            layer.sets.push(FileSet {
                key,
                line: line.1,
                paths: paths.iter().map(|p| NamePath::of(&merged, p)).collect(),
            });
        }
    }
    // `set` is not in `layer.table`; its lines come from the tree, which has it.
    layers.push(layer);
    Ok(merged)
}

/// Removes the items `entry` (`ARRAY.SELECTOR`) selects from `root`.
fn remove_items(root: &mut Table, entry: &str) -> Result<(), String> {
    let Some((array, selector)) = entry.split_once('.') else {
        return Err(format!(
            "expected ARRAY.NAME, with ARRAY one of {}",
            ARRAYS.join(", ")
        ));
    };
    let (array, selector) = (array.trim(), selector.trim());
    if !ARRAYS.contains(&array) {
        return Err(format!(
            "`{array}` is not an array of tables; remove takes items of {}",
            ARRAYS.join(", ")
        ));
    }
    let Some(Value::Array(items)) = root.get_mut(array) else {
        return Err(format!("the base has no [[{array}]] to remove from"));
    };
    let chosen = overrides::select(items, array, selector)?;
    let mut i = 0;
    items.retain(|_| {
        let keep = !chosen.contains(&i);
        i += 1;
        keep
    });
    Ok(())
}

/// Merges `from` over `into` (see the module documentation); `top` for the root table.
fn merge_tables(into: &mut Table, from: Table, top: bool) {
    for (k, v) in from {
        let is_items = top && ARRAYS.contains(&k.as_str());
        match (into.get_mut(&k), v) {
            (Some(Value::Array(base)), Value::Array(items))
                if is_items && items.iter().all(Value::is_table) =>
            {
                merge_items(base, items);
            }
            (Some(Value::Table(base)), Value::Table(t)) if !t.contains_key("kind") => {
                merge_tables(base, t, false);
            }
            (_, v) => {
                into.insert(k, v);
            }
        }
    }
}

/// Merges items into `base` by name; items the base has not are added at the end.
fn merge_items(base: &mut Vec<Value>, items: Vec<Value>) {
    for item in items {
        let Value::Table(item) = item else { continue };
        let names = overrides::item_names(&item);
        let same = base.iter_mut().find_map(|b| match b {
            Value::Table(b)
                if overrides::item_names(b)
                    .iter()
                    .any(|n| names.first() == Some(n)) =>
            {
                Some(b)
            }
            _ => None,
        });
        match same {
            Some(b) if !names.is_empty() => merge_tables(b, item, false),
            _ => base.push(Value::Table(item)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merged(base: &str, over: &str) -> Table {
        let mut b: Table = base.parse().unwrap();
        merge_tables(&mut b, over.parse().unwrap(), true);
        b
    }

    #[test]
    fn tables_merge_and_kinded_tables_replace() {
        let t = merged(
            "[tcp]\nmss = 1\nvariant = \"reno\"\n[[switch]]\nname = \"A\"\npolicy = { kind = \"epd\", threshold = 0.9 }\n",
            "[tcp]\nmss = 2\n[[switch]]\nname = \"A\"\npolicy = { kind = \"espd\", high = 0.9, low = 0.8 }\n",
        );
        assert_eq!(t["tcp"]["mss"].as_integer(), Some(2));
        assert_eq!(t["tcp"]["variant"].as_str(), Some("reno"));
        let policy = t["switch"][0]["policy"].as_table().unwrap();
        assert_eq!(policy.len(), 3);
        assert!(!policy.contains_key("threshold"));
    }

    #[test]
    fn items_merge_by_name_in_place_and_new_ones_go_last() {
        let t = merged(
            "[[link]]\nbetween = [\"A\", \"B\"]\ndelay = 1\n[[link]]\nbetween = [\"h1\", \"A\"]\n",
            "[[link]]\nbetween = [\"B\", \"A\"]\ncredits = 5\n[[link]]\nbetween = [\"h2\", \"A\"]\n",
        );
        let links = t["link"].as_array().unwrap();
        assert_eq!(links.len(), 3);
        assert_eq!(links[0]["credits"].as_integer(), Some(5));
        assert_eq!(links[0]["delay"].as_integer(), Some(1));
        assert_eq!(links[2]["between"][0].as_str(), Some("h2"));
    }

    #[test]
    fn remove_takes_set_selectors() {
        let mut t: Table =
            "[[connection]]\nname = \"s1\"\n[[connection]]\nname = \"s2\"\n[[link]]\nbetween = [\"h1\", \"A\"]\n"
                .parse()
                .unwrap();
        remove_items(&mut t, "connection.s1").unwrap();
        remove_items(&mut t, "link.A-h1").unwrap();
        assert_eq!(t["connection"].as_array().unwrap().len(), 1);
        assert_eq!(t["link"].as_array().unwrap().len(), 0);
        let e = remove_items(&mut t, "connection.s9").unwrap_err();
        assert!(
            e.contains("no connection named `s9`") && e.contains("s2"),
            "{e}"
        );
        let e = remove_items(&mut t, "tcp.mss").unwrap_err();
        assert!(e.contains("not an array of tables"), "{e}");
    }

    #[test]
    fn name_paths_follow_items_across_files() {
        let a: Table = "[[connection]]\nname = \"s1\"\n[[connection]]\nname = \"s2\"\nx = 1\n"
            .parse()
            .unwrap();
        let b: Table = "[[connection]]\nname = \"s2\"\nx = 2\n".parse().unwrap();
        let p = NamePath::of(&a, &FieldPath::from("connection[1].x"));
        assert_eq!(p.in_table(&b), FieldPath::from("connection[0].x"));
        assert_eq!(p.in_table(&a), FieldPath::from("connection[1].x"));
    }
}
