//! Criterion benchmarks of atmsim, in a crate of their own so that `cargo test` at the
//! workspace root (its default members) does not build criterion: `cargo bench -p
//! atmsim-bench` runs them (`benches/queue.rs`: the event queue at a steady population;
//! `benches/network.rs`: cell-hops and events per second of whole networks).
