//! `base`: scenario files that say only what differs from another (see `atmsim_scenario::base`).

use std::path::{Path, PathBuf};

use atmsim_scenario::{canonical_toml, load_with, Bases, ScenarioError};

use crate::SMALL;

/// A fresh temporary folder holding `files`, and its path; the folder goes when the first
/// is dropped.
fn folder(tag: &str, files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::Builder::new()
        .prefix(&format!("atmsim-base-{tag}-"))
        .tempdir()
        .unwrap();
    let dir = tmp.path().to_path_buf();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    (tmp, dir)
}

fn load_file(path: &Path, bases: &Bases, set: &[(&str, &str)]) -> Result<String, ScenarioError> {
    let text = std::fs::read_to_string(path).unwrap();
    let set: Vec<(String, String)> = set
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let source = path.display().to_string();
    load_with(&text, &source, bases, &set, None).map(|(s, _)| canonical_toml(&s))
}

fn canonical(text: &str) -> String {
    canonical_toml(&crate::load(text, "x.toml", &[], None).unwrap().0)
}

const CHILD: &str = r#"base = "small.toml"
name = "child"
remove = ["connection.s2", "link.h2-A"]

[run]
duration = "3 s"

[[switch]]
name = "B"
policy = { kind = "epd", threshold = 0.9 }

[[link]]
between = ["B", "A"]
credits = "off"

[[link]]
between = ["h3", "A"]
rate = "155.52 Mb/s"

[[connection]]
name = "s3"
from = "h3"
to = "r2"
via = ["A", "B"]

[set]
"connection.*.start_jitter" = "1 ms"
"#;

/// What CHILD says, written out whole.
fn child_whole() -> String {
    SMALL
        .replace("name = \"small\"", "name = \"child\"")
        .replace("duration = \"2 s\"", "duration = \"3 s\"")
        .replace(
            "policy = { kind = \"cell_drop\" }",
            "policy = { kind = \"epd\", threshold = 0.9 }",
        )
        .replace("credits = \"5 cells\"", "credits = \"off\"")
        // Matched in either order; the pair as the derived file writes it.
        .replace("between = [\"A\", \"B\"]", "between = [\"B\", \"A\"]")
        .replace("[[link]]\nbetween = [\"h2\", \"A\"]\nrate = \"155.52 Mb/s\"\n\n", "")
        .replace(
            "[[connection]]\nname = \"s2\"\nfrom = \"h2\"\nto = \"r2\"\nvia = [\"A\", \"B\"]\napp = { bytes = \"1 MB\" }\ntcp = { variant = \"new_reno\" }\n",
            "[[link]]\nbetween = [\"h3\", \"A\"]\nrate = \"155.52 Mb/s\"\n\n[[connection]]\nname = \"s3\"\nfrom = \"h3\"\nto = \"r2\"\nvia = [\"A\", \"B\"]\n",
        )
        .replace("via = [\"A\", \"B\"]\n", "via = [\"A\", \"B\"]\nstart_jitter = \"1 ms\"\n")
}

#[test]
fn a_base_merges_tables_items_by_name_removes_and_sets() {
    let (_tmp, dir) = folder("merge", &[("small.toml", SMALL), ("child.toml", CHILD)]);
    let got = load_file(&dir.join("child.toml"), &Bases::default(), &[]).unwrap();
    assert_eq!(got, canonical(&child_whole()));
    // Bases chain, and a path is read from the folder of the file that names it.
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(
        dir.join("sub/grandchild.toml"),
        "base = \"../child.toml\"\nname = \"grandchild\"\n",
    )
    .unwrap();
    let got = load_file(&dir.join("sub/grandchild.toml"), &Bases::default(), &[]).unwrap();
    assert_eq!(
        got,
        canonical(&child_whole().replace("name = \"child\"", "name = \"grandchild\""))
    );
}

#[test]
fn a_base_can_be_a_built_in_name() {
    let (_tmp, dir) = folder("builtin", &[("small.toml", SMALL)]);
    let bases = Bases::builtin(&dir);
    let text = "base = \"small\"\nname = \"mine\"\n";
    let (s, _) = load_with(text, "<dict>", &bases, &[], None).unwrap();
    assert_eq!(
        canonical_toml(&s),
        canonical(&SMALL.replace("\"small\"", "\"mine\""))
    );
}

#[test]
fn a_missing_base_is_refused_naming_the_file_and_base() {
    let (_tmp, dir) = folder(
        "missing",
        &[("a.toml", "base = \"nowhere.toml\"\nname = \"a\"\n")],
    );
    let e = load_file(&dir.join("a.toml"), &Bases::default(), &[]).unwrap_err();
    assert!(e.file.ends_with("a.toml"), "{e}");
    assert_eq!((e.field.as_str(), e.line), ("base", Some(1)));
    assert!(
        e.message.contains("no such file") && e.message.contains("built-in scenario name"),
        "{e}"
    );
    let bases = Bases::builtin(&dir);
    let e = load_with(
        "name = \"x\"\nbase = \"nope\"\n",
        "x.toml",
        &bases,
        &[],
        None,
    )
    .unwrap_err();
    assert_eq!((e.field.as_str(), e.line), ("base", Some(2)));
    assert!(
        e.message.contains("no built-in scenario `nope`") && e.message.contains("built-ins: a"),
        "{e}"
    );
    let e = load_with("base = 3\n", "x.toml", &bases, &[], None).unwrap_err();
    assert!(e.message.contains("expected a string"), "{e}");
    let e = load_with("remove = [\"link.A-B\"]\n", "x.toml", &bases, &[], None).unwrap_err();
    assert_eq!(e.field, "remove");
    assert!(e.message.contains("names none"), "{e}");
}

#[test]
fn a_loop_of_bases_is_refused() {
    let (_tmp, dir) = folder(
        "loop",
        &[
            ("a.toml", "base = \"b.toml\"\nname = \"a\"\n"),
            ("b.toml", "name = \"b\"\nbase = \"a.toml\"\n"),
            ("self.toml", "base = \"self.toml\"\n"),
        ],
    );
    let e = load_file(&dir.join("a.toml"), &Bases::default(), &[]).unwrap_err();
    assert!(e.file.ends_with("b.toml"), "{e}");
    assert_eq!((e.field.as_str(), e.line), ("base", Some(2)));
    assert!(
        e.message.contains("leads back to") && e.message.contains("loop"),
        "{e}"
    );
    let e = load_file(&dir.join("self.toml"), &Bases::default(), &[]).unwrap_err();
    assert!(e.message.contains("leads back to"), "{e}");
}

#[test]
fn errors_name_the_file_and_line_the_key_is_written_in() {
    let bad_base = SMALL.replace("vc_buffer = ", "vc_bufer = ");
    let (_tmp, dir) = folder(
        "errors",
        &[("small.toml", &bad_base), ("child.toml", CHILD)],
    );
    let child = dir.join("child.toml");
    // A misspelt key in the base: the base's file and line.
    let e = load_file(&child, &Bases::default(), &[]).unwrap_err();
    assert!(e.file.ends_with("small.toml"), "{e}");
    assert_eq!(e.field, "switch[0].vc_bufer");
    assert_eq!(e.line, Some(crate::line_of(&bad_base, "vc_bufer")));

    // A bad value in the derived file: its file and line, though the item is merged.
    let (_tmp, dir) = folder("errors2", &[("small.toml", SMALL)]);
    let bad_child = CHILD.replace("threshold = 0.9", "threshold = 2");
    std::fs::write(dir.join("child.toml"), &bad_child).unwrap();
    let e = load_file(&dir.join("child.toml"), &Bases::default(), &[]).unwrap_err();
    assert!(e.file.ends_with("child.toml"), "{e}");
    assert_eq!(e.field, "switch[1].policy.threshold");
    assert_eq!(e.line, Some(crate::line_of(&bad_child, "threshold")));

    // A bad value from the file's [set]: the set entry's line.
    let bad_set = CHILD.replace("= \"1 ms\"", "= \"1 parsec\"");
    std::fs::write(dir.join("child.toml"), &bad_set).unwrap();
    let e = load_file(&dir.join("child.toml"), &Bases::default(), &[]).unwrap_err();
    assert!(e.file.ends_with("child.toml"), "{e}");
    assert_eq!(e.line, Some(crate::line_of(&bad_set, "parsec")));
    assert!(e.message.contains("[set]"), "{e}");

    // A bad --set is still blamed on --set.
    std::fs::write(dir.join("child.toml"), CHILD).unwrap();
    let e = load_file(
        &dir.join("child.toml"),
        &Bases::default(),
        &[("tcp.msss", "1 B")],
    )
    .unwrap_err();
    assert_eq!(e.file, "--set");

    // remove naming no item: the file, `remove` and the names there are.
    let bad_remove = CHILD.replace("connection.s2", "connection.s9");
    std::fs::write(dir.join("child.toml"), &bad_remove).unwrap();
    let e = load_file(&dir.join("child.toml"), &Bases::default(), &[]).unwrap_err();
    assert!(e.file.ends_with("child.toml"), "{e}");
    assert_eq!((e.field.as_str(), e.line), ("remove[0]", Some(3)));
    assert!(e.message.contains("no connection named `s9`"), "{e}");
}
