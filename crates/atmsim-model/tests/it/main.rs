//! Integration tests of the network model: analytic anchors, conservation, credits.
//!
//! Networks are built by hand from `NetworkSpec` so these tests need no scenario parser.
//!
//! ```text
//!   h1 ─┐                 ┌─ r1
//!   h2 ─┤                 ├─ r2
//!   ... ├── A ═══════ B ──┤ ...
//!   hN ─┘  (bottleneck)   └─ rN
//! ```

mod abr;
mod balance;
mod fang;
mod properties;
mod red;
mod series;
mod service;
mod summary;
mod tcp_recovery;
mod trace;
