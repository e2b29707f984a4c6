//! Errors that point at the file, the line and the field.
//!
//! Every problem is found against a [`FieldPath`] (`connection[2].tcp.mss`); the line comes
//! from a [`SpanTree`] of the original text (the byte span of every key and value, read with
//! `toml::Spanned`), so syntax, type, unknown-key and semantic errors all get one.

use std::fmt;
use std::ops::Range;

use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// A problem in a scenario: where and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    /// The scenario's source name, or `--set` for an override.
    pub file: String,
    /// 1-based line in `file`, when known.
    pub line: Option<usize>,
    /// Dotted path of the field, e.g. `connection[2].tcp.mss`; empty for a syntax error.
    pub field: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    /// `{file}:{line}: {field}: {message}`; the line and the field are left out when unknown,
    /// and the line when the source is text generated from a program's data (a name in angle
    /// brackets, as the Python API's `<dict>`): its lines are not the user's.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        let generated = self.file.starts_with('<') && self.file.ends_with('>');
        if let Some(line) = self.line.filter(|_| !generated) {
            write!(f, ":{line}")?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// One step of a [`FieldPath`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    Index(usize),
}

/// Where a value sits in the scenario tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldPath(pub Vec<Seg>);

impl FieldPath {
    pub fn root() -> FieldPath {
        FieldPath(Vec::new())
    }
    pub fn key(mut self, k: impl Into<String>) -> FieldPath {
        self.0.push(Seg::Key(k.into()));
        self
    }
    pub fn index(mut self, i: usize) -> FieldPath {
        self.0.push(Seg::Index(i));
        self
    }
    pub fn starts_with(&self, prefix: &FieldPath) -> bool {
        self.0.starts_with(&prefix.0)
    }

    /// From the path serde_path_to_error recorded.
    pub fn from_serde(path: &serde_path_to_error::Path) -> FieldPath {
        use serde_path_to_error::Segment;
        FieldPath(
            path.iter()
                .filter_map(|s| match s {
                    Segment::Seq { index } => Some(Seg::Index(*index)),
                    Segment::Map { key } => Some(Seg::Key(key.clone())),
                    _ => None,
                })
                .collect(),
        )
    }
}

/// Parses `s` as a path: `connection[2].tcp.mss`.
impl From<&str> for FieldPath {
    fn from(s: &str) -> FieldPath {
        let mut path = FieldPath::root();
        for part in s.split('.').filter(|p| !p.is_empty()) {
            let mut rest = part;
            if let Some(open) = rest.find('[') {
                path = path.key(&rest[..open]);
                rest = &rest[open..];
                while let Some(stripped) = rest.strip_prefix('[') {
                    let close = stripped.find(']').unwrap_or(stripped.len());
                    if let Ok(i) = stripped[..close].parse() {
                        path = path.index(i);
                    }
                    rest = stripped.get(close + 1..).unwrap_or("");
                }
            } else {
                path = path.key(rest);
            }
        }
        path
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Seg::Index(n) => write!(f, "[{n}]")?,
                Seg::Key(k) if i == 0 => write!(f, "{k}")?,
                Seg::Key(k) => write!(f, ".{k}")?,
            }
        }
        Ok(())
    }
}

/// A problem found at a path, before it is placed in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub path: FieldPath,
    pub message: String,
}

impl Problem {
    pub fn new(path: FieldPath, message: impl Into<String>) -> Problem {
        Problem {
            path,
            message: message.into(),
        }
    }
}

/// The byte spans of every key and value of a TOML text.
#[derive(Debug)]
pub enum SpanTree {
    /// `(key, value)`; the key's span is where a line number should point.
    Table(Vec<(Key, Node)>),
    Array(Vec<Node>),
    Leaf,
}

/// A table key and its span. A key the text only implies (`hosts` in `[hosts.h1]`, `a` in
/// `a.b = 1`) has none: `toml::Spanned` refuses such keys, which used to cost every line
/// number of the file.
#[derive(Debug)]
pub struct Key {
    pub name: String,
    pub span: Option<Range<usize>>,
}

/// A value and its span (none for a table the text only implies).
#[derive(Debug)]
pub struct Node {
    pub span: Option<Range<usize>>,
    pub tree: SpanTree,
}

impl SpanTree {
    /// Parses `text`; `None` if it is not valid TOML.
    pub fn parse(text: &str) -> Option<SpanTree> {
        toml::from_str::<Node>(text).ok().map(|n| n.tree)
    }

    /// The span of the deepest node of `path` present in the text (that has one), and
    /// whether all of `path` was found.
    pub fn locate(&self, path: &FieldPath) -> (Option<Range<usize>>, bool) {
        let mut node = self;
        let mut span = None;
        for seg in &path.0 {
            let next = match (node, seg) {
                (SpanTree::Table(entries), Seg::Key(k)) => entries
                    .iter()
                    .find(|(key, _)| key.name == *k)
                    .map(|(key, value)| (key.span.clone(), &value.tree)),
                (SpanTree::Array(items), Seg::Index(i)) => {
                    items.get(*i).map(|item| (item.span.clone(), &item.tree))
                }
                _ => None,
            };
            match next {
                Some((s, child)) => {
                    span = s.or(span);
                    node = child;
                }
                None => return (span, false),
            }
        }
        (span, true)
    }

    /// Whether all of `path` is written in the text.
    pub fn contains(&self, path: &FieldPath) -> bool {
        self.locate(path).1
    }
}

/// Asks for what `toml::Spanned` asks for (toml answers with its span when it has one, with
/// the bare value when it has none) and takes either.
fn spanned<'de, D: Deserializer<'de>, V: Visitor<'de>>(d: D, v: V) -> Result<V::Value, D::Error> {
    use serde_spanned::__unstable::{END_FIELD, NAME, START_FIELD, VALUE_FIELD};
    const FIELDS: &[&str] = &[START_FIELD, END_FIELD, VALUE_FIELD];
    d.deserialize_struct(NAME, FIELDS, v)
}

/// The start and end of a span from toml's spanned form, whose first key (`START_FIELD`) has
/// been read; then the key of the value, which the caller reads.
fn span_of<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Range<usize>, A::Error> {
    let start: usize = map.next_value()?;
    map.next_key::<String>()?;
    let end: usize = map.next_value()?;
    map.next_key::<String>()?;
    Ok(start..end)
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a TOML key")
            }
            fn visit_str<E>(self, v: &str) -> Result<Key, E> {
                Ok(Key {
                    name: v.to_string(),
                    span: None,
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Key, A::Error> {
                map.next_key::<String>()?;
                let span = span_of(&mut map)?;
                Ok(Key {
                    name: map.next_value()?,
                    span: Some(span),
                })
            }
        }
        spanned(d, V)
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Node;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any TOML value")
            }
            fn visit_bool<E>(self, _: bool) -> Result<Node, E> {
                Ok(Node::leaf())
            }
            fn visit_i64<E>(self, _: i64) -> Result<Node, E> {
                Ok(Node::leaf())
            }
            fn visit_u64<E>(self, _: u64) -> Result<Node, E> {
                Ok(Node::leaf())
            }
            fn visit_f64<E>(self, _: f64) -> Result<Node, E> {
                Ok(Node::leaf())
            }
            fn visit_str<E>(self, _: &str) -> Result<Node, E> {
                Ok(Node::leaf())
            }
            /// The spanned form, or a table without a span (its first key read here).
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
                let mut entries = Vec::new();
                match map.next_key::<String>()? {
                    Some(k) if k == serde_spanned::__unstable::START_FIELD => {
                        let span = span_of(&mut map)?;
                        return Ok(Node {
                            span: Some(span),
                            tree: map.next_value()?,
                        });
                    }
                    Some(name) => entries.push((Key { name, span: None }, map.next_value()?)),
                    None => {}
                }
                while let Some(key) = map.next_key::<Key>()? {
                    entries.push((key, map.next_value()?));
                }
                Ok(Node {
                    span: None,
                    tree: SpanTree::Table(entries),
                })
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Node {
                    span: None,
                    tree: SpanTree::Array(items),
                })
            }
        }
        spanned(d, V)
    }
}

/// The value itself (its children spanned).
impl<'de> Deserialize<'de> for SpanTree {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SpanTree;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any TOML value")
            }
            fn visit_bool<E>(self, _: bool) -> Result<SpanTree, E> {
                Ok(SpanTree::Leaf)
            }
            fn visit_i64<E>(self, _: i64) -> Result<SpanTree, E> {
                Ok(SpanTree::Leaf)
            }
            fn visit_u64<E>(self, _: u64) -> Result<SpanTree, E> {
                Ok(SpanTree::Leaf)
            }
            fn visit_f64<E>(self, _: f64) -> Result<SpanTree, E> {
                Ok(SpanTree::Leaf)
            }
            fn visit_str<E>(self, _: &str) -> Result<SpanTree, E> {
                Ok(SpanTree::Leaf)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SpanTree, A::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<Key>()? {
                    entries.push((key, map.next_value()?));
                }
                Ok(SpanTree::Table(entries))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<SpanTree, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(SpanTree::Array(items))
            }
        }
        d.deserialize_any(V)
    }
}

impl Node {
    fn leaf() -> Node {
        Node {
            span: None,
            tree: SpanTree::Leaf,
        }
    }
}

/// 1-based line of byte `offset` in `text`.
pub fn line_of(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    text.as_bytes()[..offset]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Serde's messages name a missing or unknown key only in the text; take it into the path so
/// the field and the line point at it.
pub fn key_named_in(message: &str) -> Option<&str> {
    let rest = message
        .strip_prefix("unknown field `")
        .or_else(|| message.strip_prefix("missing field `"))?;
    rest.split('`').next()
}

/// Keeps a serde message to its first line (toml appends "in `table`" on the next).
pub fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or("").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_has_file_line_field_message() {
        let e = ScenarioError {
            file: "a.toml".into(),
            line: Some(3),
            field: "tcp.mss".into(),
            message: "bad".into(),
        };
        assert_eq!(e.to_string(), "a.toml:3: tcp.mss: bad");
        let e = ScenarioError { line: None, ..e };
        assert_eq!(e.to_string(), "a.toml: tcp.mss: bad");
    }

    #[test]
    fn display_leaves_out_lines_of_generated_text() {
        let e = ScenarioError {
            file: "<dict>".into(),
            line: Some(20),
            field: "connection[0].tcp.mss".into(),
            message: "bad".into(),
        };
        assert_eq!(e.to_string(), "<dict>: connection[0].tcp.mss: bad");
    }

    #[test]
    fn paths_print_and_parse() {
        let p = FieldPath::root()
            .key("connection")
            .index(2)
            .key("tcp")
            .key("mss");
        assert_eq!(p.to_string(), "connection[2].tcp.mss");
        assert_eq!(FieldPath::from("connection[2].tcp.mss"), p);
    }

    #[test]
    fn span_tree_finds_lines() {
        let text = "name = \"x\"\n[tcp]\nmss = \"1 B\"\n\n[[link]]\nbetween = [\"a\", \"b\"]\n\
                    [[link]]\nbetween = [\"b\", \"c\"]\ndelay = { x = 1 }\n";
        let tree = SpanTree::parse(text).unwrap();
        let line = |p: &str| {
            let (span, _) = tree.locate(&FieldPath::from(p));
            line_of(text, span.unwrap().start)
        };
        assert_eq!(line("tcp.mss"), 3);
        assert_eq!(line("link[1]"), 7);
        assert_eq!(line("link[1].between"), 8);
        assert_eq!(line("link[1].delay.x"), 9);
        // Missing tail: the deepest present node.
        assert_eq!(line("link[0].credits"), 5);
        assert!(!tree.contains(&FieldPath::from("link[0].credits")));
    }

    #[test]
    fn keys_of_implied_tables_keep_the_lines_under_them() {
        // `hosts` and `seed` are implied by the text, not written as keys of their own.
        let text = "name = \"x\"\n[hosts.h1]\nllc_snap = true\n[run]\nseed.x = 1\n";
        let tree = SpanTree::parse(text).expect("a span tree");
        let line = |p: &str| {
            let (span, _) = tree.locate(&FieldPath::from(p));
            span.map(|s| line_of(text, s.start))
        };
        assert_eq!(line("hosts.h1.llc_snap"), Some(3));
        assert_eq!(line("run.seed.x"), Some(5));
        assert_eq!(line("name"), Some(1));
    }
}
