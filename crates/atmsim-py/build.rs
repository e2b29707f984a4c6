//! The identity of the Rust sources this extension is built from: the SHA-256 of every file
//! under `crates/*/src`, every `crates/*/Cargo.toml`, the workspace `Cargo.toml` and
//! `Cargo.lock`, in a fixed order (paths relative to the workspace root, `/`-separated,
//! sorted), each as its path, a NUL, its length (u64, little-endian) and its bytes. The same
//! sources give the same identity on every machine; any change to them gives another. It is
//! exposed as `atmsim._core.build_id()` (env `ATMSIM_SOURCE_SHA256`), and the Python package
//! combines it with a hash of its own code into `atmsim.build_id()`, part of every cached run's
//! key (docs/sweeps.md).

use sha2::{Digest, Sha256};
use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let root = manifest
        .parent()
        .and_then(Path::parent)
        .expect("crates/atmsim-py sits two levels below the workspace root")
        .to_path_buf();

    let mut files: Vec<PathBuf> = vec![root.join("Cargo.toml"), root.join("Cargo.lock")];
    let mut watch: Vec<PathBuf> = files.clone();
    let mut crates: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .expect("read crates/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    crates.sort();
    for krate in &crates {
        let toml = krate.join("Cargo.toml");
        if toml.is_file() {
            files.push(toml.clone());
            watch.push(toml);
        }
        let src = krate.join("src");
        if src.is_dir() {
            collect(&src, &mut files);
            watch.push(src);
        }
    }

    let mut named: Vec<(String, PathBuf)> = files
        .into_iter()
        .filter(|p| p.is_file())
        .map(|p| (relative(&root, &p), p))
        .collect();
    named.sort();
    named.dedup_by(|a, b| a.0 == b.0);

    let mut hasher = Sha256::new();
    for (name, path) in &named {
        let bytes = fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        hasher.update(name.as_bytes());
        hasher.update([0]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    let digest = hasher.finalize();
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();

    for path in &watch {
        // A folder is scanned as a whole: a file added, changed or removed reruns this.
        println!("cargo:rerun-if-changed={}", path.display());
    }
    println!("cargo:rustc-env=ATMSIM_SOURCE_SHA256={hex}");
}

/// Every file below `dir`, recursively.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display()));
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.is_file() {
            out.push(path);
        }
    }
}

/// `path` relative to `root`, `/`-separated (the same on every platform).
fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}
