//! `--set KEY=VALUE` overrides, applied to the parsed TOML tree before it is checked, so an
//! override is validated exactly like the same key written in the file.
//!
//! KEY is dot-separated. In an array of tables (`switch`, `link`, `connection`) the next
//! segment picks items: an item's `name` (a link's name is its `between` pair joined with
//! `-`, in either order: `h1-A` or `A-h1`), an index, or `*` for all of them; `*` also works
//! on a table of tables (`hosts.*.processing_delay`). A missing table on the way is created,
//! so `connection.s1.tcp.mss=64 B` works when s1 has no `tcp` yet; a misspelt key is then
//! refused by the schema, naming `--set`.
//!
//! VALUE is read as a TOML value if it is one (`3`, `true`, `"text"`, `{ kind = "cell_drop" }`,
//! `["A", "B"]`), otherwise as a bare string (`2 s`, `512 cells`, `off`).

use toml::{Table, Value};

use crate::error::{FieldPath, ScenarioError};

/// The source name given to errors in overrides.
pub const SET_SOURCE: &str = "--set";

/// Top-level arrays of tables whose items the next key segment selects.
pub(crate) const ARRAYS: &[&str] = &["switch", "link", "connection", "merge"];

/// One override and the concrete paths it wrote (one per matched item).
#[derive(Debug, Clone)]
pub struct Applied {
    pub key: String,
    pub value: String,
    pub paths: Vec<FieldPath>,
}

/// Reads VALUE as a TOML value, or else as a bare string.
pub fn parse_value(value: &str) -> Value {
    let value = value.trim();
    if let Ok(mut t) = format!("v = {value}").parse::<Table>() {
        if t.len() == 1 {
            if let Some(v) = t.remove("v") {
                return v;
            }
        }
    }
    Value::String(value.to_string())
}

/// Applies `overrides` in order to `root`.
pub fn apply(
    root: &mut Table,
    overrides: &[(String, String)],
) -> Result<Vec<Applied>, ScenarioError> {
    let mut applied = Vec::new();
    for (key, value) in overrides {
        let fail = |message: String| ScenarioError {
            file: SET_SOURCE.into(),
            line: None,
            field: key.trim().to_string(),
            message: format!("{message} (in --set {key}={value})"),
        };
        let paths = set_value(root, key, &parse_value(value)).map_err(fail)?;
        applied.push(Applied {
            key: key.clone(),
            value: value.clone(),
            paths,
        });
    }
    Ok(applied)
}

/// Sets `key` (dotted, as `--set` takes it) to `new` in `root`; returns the paths written.
pub(crate) fn set_value(
    root: &mut Table,
    key: &str,
    new: &Value,
) -> Result<Vec<FieldPath>, String> {
    let segs: Vec<&str> = key.trim().split('.').map(str::trim).collect();
    if segs.iter().any(|s| s.is_empty()) {
        return Err("empty key segment; keys look like tcp.mss or switch.A.vc_buffer".into());
    }
    let mut paths = Vec::new();
    set_in_table(root, &segs, FieldPath::root(), new, &mut paths)?;
    Ok(paths)
}

fn set_in_table(
    table: &mut Table,
    segs: &[&str],
    path: FieldPath,
    new: &Value,
    out: &mut Vec<FieldPath>,
) -> Result<(), String> {
    let (&seg, rest) = segs.split_first().expect("segments are never empty");
    if seg == "*" {
        if rest.is_empty() {
            return Err(format!("`{path}.*` must be followed by a key"));
        }
        for (k, v) in table.iter_mut() {
            if let Value::Table(t) = v {
                set_in_table(t, rest, path.clone().key(k.as_str()), new, out)?;
            }
        }
        return Ok(());
    }
    if rest.is_empty() {
        table.insert(seg.to_string(), new.clone());
        out.push(path.key(seg));
        return Ok(());
    }
    let here = path.clone().key(seg);
    if !table.contains_key(seg) {
        if path.0.is_empty() && ARRAYS.contains(&seg) {
            return Err(format!("the scenario has no [[{seg}]] to change"));
        }
        table.insert(seg.to_string(), Value::Table(Table::new()));
    }
    match table.get_mut(seg).expect("inserted above") {
        Value::Table(t) => set_in_table(t, rest, here, new, out),
        Value::Array(items) if items.iter().all(Value::is_table) && !items.is_empty() => {
            set_in_items(items, seg, rest, here, new, out)
        }
        _ => Err(format!(
            "`{here}` is a value, not a table, so it has no key `{}`",
            rest[0]
        )),
    }
}

/// The names `--set` accepts for an item of an array of tables.
pub(crate) fn item_names(item: &Table) -> Vec<String> {
    let mut names = Vec::new();
    if let Some(Value::String(name)) = item.get("name") {
        names.push(name.clone());
    }
    if let Some(Value::Array(pair)) = item.get("between") {
        if let [Value::String(a), Value::String(b)] = pair.as_slice() {
            names.push(format!("{a}-{b}"));
            names.push(format!("{b}-{a}"));
        }
    }
    names
}

fn set_in_items(
    items: &mut [Value],
    array: &str,
    segs: &[&str],
    path: FieldPath,
    new: &Value,
    out: &mut Vec<FieldPath>,
) -> Result<(), String> {
    let (&selector, rest) = segs.split_first().expect("segments are never empty");
    if rest.is_empty() {
        return Err(format!(
            "`{array}.{selector}` names a whole item; add the key to set, e.g. {array}.{selector}.KEY"
        ));
    }
    for i in select(items, array, selector)? {
        if let Value::Table(t) = &mut items[i] {
            set_in_table(t, rest, path.clone().index(i), new, out)?;
        }
    }
    Ok(())
}

/// The indices of the items of `array` that `selector` picks: an item's name, an index, or
/// `*` for all.
pub(crate) fn select(items: &[Value], array: &str, selector: &str) -> Result<Vec<usize>, String> {
    if selector == "*" {
        return Ok((0..items.len()).collect());
    }
    // Items that are not tables keep their index (the schema refuses them later).
    let names = |v: &Value| v.as_table().map(item_names).unwrap_or_default();
    let by_name: Vec<usize> = items
        .iter()
        .enumerate()
        .filter(|(_, v)| names(v).iter().any(|n| n == selector))
        .map(|(i, _)| i)
        .collect();
    match (by_name.is_empty(), selector.parse::<usize>()) {
        (false, _) => Ok(by_name),
        (true, Ok(i)) if i < items.len() => Ok(vec![i]),
        _ => {
            let all: Vec<String> = items
                .iter()
                .filter_map(|v| names(v).into_iter().next())
                .collect();
            Err(format!(
                "no {array} named `{selector}` ({array} names: {}; or an index 0..{}, or *)",
                all.join(", "),
                items.len().saturating_sub(1)
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Table {
        r#"
name = "x"
[run]
duration = "1 s"
[[switch]]
name = "A"
[[switch]]
name = "B"
[[link]]
between = ["h1", "A"]
[[connection]]
name = "s1"
from = "h1"
to = "r1"
"#
        .parse()
        .unwrap()
    }

    fn set(t: &mut Table, k: &str, v: &str) -> Result<Vec<String>, ScenarioError> {
        let applied = apply(t, &[(k.to_string(), v.to_string())])?;
        Ok(applied[0].paths.iter().map(|p| p.to_string()).collect())
    }

    #[test]
    fn values_are_toml_or_bare_strings() {
        assert_eq!(parse_value("3"), Value::Integer(3));
        assert_eq!(parse_value("true"), Value::Boolean(true));
        assert_eq!(parse_value("\"2 s\""), Value::String("2 s".into()));
        assert_eq!(parse_value("2 s"), Value::String("2 s".into()));
        assert_eq!(parse_value("off"), Value::String("off".into()));
        assert!(parse_value("{kind=\"cell_drop\"}").is_table());
        assert_eq!(parse_value("1\nx = 2"), Value::String("1\nx = 2".into()));
    }

    #[test]
    fn every_key_form_reaches_its_target() {
        let mut t = doc();
        assert_eq!(
            set(&mut t, "run.duration", "2 s").unwrap(),
            ["run.duration"]
        );
        assert_eq!(t["run"]["duration"].as_str(), Some("2 s"));
        assert_eq!(set(&mut t, "tcp.mss", "64 B").unwrap(), ["tcp.mss"]);
        assert_eq!(t["tcp"]["mss"].as_str(), Some("64 B"));
        assert_eq!(
            set(&mut t, "switch.B.vc_buffer", "512 cells").unwrap(),
            ["switch[1].vc_buffer"]
        );
        assert_eq!(
            set(&mut t, "switch.*.policy", "{kind=\"cell_drop\"}").unwrap(),
            ["switch[0].policy", "switch[1].policy"]
        );
        assert_eq!(
            set(&mut t, "switch.0.scheduler", "fifo").unwrap(),
            ["switch[0].scheduler"]
        );
        assert_eq!(
            set(&mut t, "connection.s1.tcp.mss", "64 B").unwrap(),
            ["connection[0].tcp.mss"]
        );
        assert_eq!(t["connection"][0]["tcp"]["mss"].as_str(), Some("64 B"));
        assert_eq!(
            set(&mut t, "link.h1-A.credits", "off").unwrap(),
            ["link[0].credits"]
        );
        assert_eq!(
            set(&mut t, "link.A-h1.delay", "1 ms").unwrap(),
            ["link[0].delay"]
        );
        assert_eq!(
            set(&mut t, "hosts.h1.processing_delay", "1 us").unwrap(),
            ["hosts.h1.processing_delay"]
        );
        assert_eq!(
            set(&mut t, "hosts.*.sar_delay", "1 ns").unwrap(),
            ["hosts.h1.sar_delay"]
        );
    }

    #[test]
    fn bad_keys_are_refused_naming_set() {
        let mut t = doc();
        let e = set(&mut t, "switch.C.vc_buffer", "1 cells").unwrap_err();
        assert_eq!(e.file, "--set");
        assert!(
            e.message.contains("no switch named `C`") && e.message.contains("A, B"),
            "{e}"
        );
        let e = set(&mut t, "run.duration.x", "1").unwrap_err();
        assert!(e.message.contains("not a table"), "{e}");
        let e = set(&mut t, "switch.A", "1").unwrap_err();
        assert!(e.message.contains("whole item"), "{e}");
        let e = set(&mut t, "tcp..mss", "1").unwrap_err();
        assert!(e.message.contains("empty key segment"), "{e}");
    }
}
