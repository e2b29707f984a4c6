//! The canonical TOML form of a scenario: every default written out, fields in schema order,
//! nested values inline (`policy = { kind = "cell_drop" }`), units in their exact form.
//! [`crate::load`] of it gives back an equal [`Scenario`].

use toml::{Table, Value};

use crate::schema::Scenario;

/// Writes `scenario` with every default explicit.
pub fn canonical_toml(scenario: &Scenario) -> String {
    let value = Value::try_from(scenario).expect("a Scenario always serialises to TOML");
    let Value::Table(root) = value else {
        unreachable!("a struct serialises to a table")
    };
    let mut out = String::new();
    for (k, v) in &root {
        if !is_section(v) {
            line(&mut out, k, v);
        }
    }
    for (k, v) in &root {
        match v {
            Value::Table(t) if is_table_of_tables(t) => {
                for (name, sub) in t {
                    out.push_str(&format!("\n[{}.{}]\n", key(k), key(name)));
                    body(&mut out, sub.as_table().expect("checked"));
                }
            }
            Value::Table(t) => {
                out.push_str(&format!("\n[{}]\n", key(k)));
                body(&mut out, t);
            }
            Value::Array(items) if is_section(v) => {
                for item in items {
                    out.push_str(&format!("\n[[{}]]\n", key(k)));
                    body(&mut out, item.as_table().expect("checked"));
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether `v` is written as `[section]` or `[[section]]`s rather than `key = value`.
fn is_section(v: &Value) -> bool {
    match v {
        Value::Table(_) => true,
        Value::Array(items) => !items.is_empty() && items.iter().all(Value::is_table),
        _ => false,
    }
}

/// `[hosts]` holds one table per host: written as `[hosts.NAME]` sections.
fn is_table_of_tables(t: &Table) -> bool {
    !t.is_empty() && t.values().all(Value::is_table)
}

fn body(out: &mut String, t: &Table) {
    for (k, v) in t {
        line(out, k, v);
    }
}

fn line(out: &mut String, k: &str, v: &Value) {
    out.push_str(&format!("{} = {}\n", key(k), inline(v)));
}

fn key(k: &str) -> String {
    if !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        k.to_string()
    } else {
        Value::String(k.to_string()).to_string()
    }
}

fn inline(v: &Value) -> String {
    match v {
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(inline).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Table(t) if t.is_empty() => "{}".into(),
        Value::Table(t) => {
            let parts: Vec<String> = t
                .iter()
                .map(|(k, v)| format!("{} = {}", key(k), inline(v)))
                .collect();
            format!("{{ {} }}", parts.join(", "))
        }
        scalar => scalar.to_string(),
    }
}
