//! Runs one scenario file in Rust alone and prints its cell-hops, events, wall time and
//! fingerprint, as the model's `hops` example does for its built-in networks: a real
//! reproduction run to profile (`valgrind --tool=callgrind`) or to time two builds against
//! each other (`scripts/hops_pair.py BUILD_A BUILD_B -- FILE`).
//!
//! `cargo run --release --example scenario_hops -p atmsim-scenario -- FILE.toml`
//!
//! The file is read as written, without the package's built-ins as bases: write a built-in
//! (or any run of a reproduction, with its overrides) out in full first, e.g.
//! `atmsim scenario show an1997-n2-buffer1500 --set run.duration='1 s' > an.toml`.
use atmsim_model::Network;
use atmsim_scenario::{load_with, Bases};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: scenario_hops FILE.toml");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2);
    });
    let spec = match load_with(&text, &path, &Bases::default(), &[], None) {
        Ok((_, spec)) => spec,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let mut net = Network::new(&spec, &path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2);
    });
    println!("{}", atmsim_model::bench::timed_run(&mut net, &path));
}
