//! VC merging (Goyal et al. 1998, Fig. 7): groups of TCP connections merged into one VC at
//! an edge switch L, carried over the backbone L - A - B, split back at switch R.
//!
//! ```text
//!   s1..sK --+                                 +-- d1..dK
//!            +-- L ==== A ==== B ==== R -------+
//!   (groups of `per_group` TCPs; group g is merge vcG from L to R)
//! ```

use atmsim_model::Network;
use atmsim_scenario::load;
use proptest::prelude::*;
use std::fmt::Write;

/// The scenario: `groups` merged VCs of `per_group` TCPs each; A's port to B is the
/// bottleneck with `buffer` cells under `policy`.
fn merged(groups: usize, per_group: usize, mss: u32, buffer: u32, policy: &str) -> String {
    let mut t = format!(
        r#"name = "merged"
[run]
duration = "300 ms"
sample_every = "0 s"
[tcp]
variant = "reno"
mss = "{mss} B"
max_window = "200000 B"
min_rto = "50 ms"
[[switch]]
name = "L"
scheduler = "fifo"
[[switch]]
name = "A"
scheduler = "fifo"
port_buffer = "{buffer} cells"
policy = {policy}
[[switch]]
name = "B"
scheduler = "fifo"
[[switch]]
name = "R"
scheduler = "fifo"
[[link]]
between = ["L", "A"]
rate = "155.52 Mb/s"
delay = "1 ms"
[[link]]
between = ["A", "B"]
rate = "155.52 Mb/s"
delay = "1 ms"
[[link]]
between = ["B", "R"]
rate = "155.52 Mb/s"
delay = "1 ms"
"#
    );
    for g in 0..groups {
        let mut names = Vec::new();
        for i in 0..per_group {
            let n = format!("g{g}c{i}");
            write!(
                t,
                r#"[[link]]
between = ["s{n}", "L"]
rate = "155.52 Mb/s"
delay = "{} us"
[[link]]
between = ["R", "d{n}"]
rate = "155.52 Mb/s"
delay = "10 us"
[[connection]]
name = "{n}"
from = "s{n}"
to = "d{n}"
via = ["L", "A", "B", "R"]
"#,
                10 + 37 * i
            )
            .unwrap();
            names.push(format!("{n:?}"));
        }
        write!(
            t,
            r#"[[merge]]
name = "vc{g}"
connections = [{}]
from = "L"
to = "R"
share = {{ threshold = "{} cells" }}
"#,
            names.join(", "),
            200 * (g + 1)
        )
        .unwrap();
    }
    t
}

fn network(text: &str) -> Network {
    let (_, spec) = load(text, "merged.toml", &[], None).unwrap_or_else(|e| panic!("{e}"));
    Network::new(&spec, "merged").unwrap()
}

/// The frames (end-to-end VC, frame number) queued at `port` in queue order must form runs:
/// once a frame's cells stop, that frame never appears again.
fn frames_do_not_interleave(net: &Network, port: &str) -> Result<(), String> {
    let p = net.ports().iter().find(|p| p.name == port).unwrap();
    let mut seen = std::collections::HashSet::new();
    let mut current = None;
    for c in p.sched.cells() {
        let f = (c.vc, c.frame);
        if current != Some(f) {
            if !seen.insert(f) {
                return Err(format!("{port}: frame {f:?} resumes after another frame"));
            }
            current = Some(f);
        }
    }
    Ok(())
}

#[test]
fn merged_vcs_share_one_slot_per_backbone_port_and_deliver_every_connection() {
    let mut net = network(&merged(2, 3, 1024, 48_000, r#"{ kind = "gfr", z = 1.5 }"#));
    // L's, A's and B's backbone ports each carry one slot per merged VC (2), plus the
    // ACK VCs of the other direction elsewhere.
    for port in ["L->A", "A->B", "B->R"] {
        let p = net.ports().iter().find(|p| p.name == port).unwrap();
        assert_eq!(p.slots.len(), 2, "{port}");
    }
    // R's ports to the destinations carry their own connection's VC.
    let p = net.ports().iter().find(|p| p.name == "R->dg0c0").unwrap();
    assert_eq!(p.slots.len(), 1);
    net.run();
    let (sent, delivered, dropped, in_flight) = net.cell_balance();
    assert_eq!(sent, delivered + dropped + in_flight, "cells are conserved");
    let s = net.report().summary;
    for c in &s.connections {
        assert!(c.goodput_mbps > 1.0, "{} got {}", c.name, c.goodput_mbps);
    }
}

#[test]
fn a_connection_outside_the_merge_is_refused() {
    let mut text = merged(1, 2, 1024, 48_000, r#"{ kind = "epd", threshold = 0.9 }"#);
    text = text.replace(
        r#"from = "L"
to = "R""#,
        r#"from = "A"
to = "L""#,
    );
    let e = load(&text, "merged.toml", &[], None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("merge[0].connections") && e.contains("passes L before A"),
        "{e}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Whatever the groups, frame sizes, buffer and policy: frames of different connections
    /// never interleave on a merged VC (checked in every backbone queue every 100 us), and
    /// cells are conserved.
    #[test]
    fn merged_vcs_never_interleave_frames(
        groups in 1usize..4,
        per_group in 1usize..5,
        mss in prop_oneof![Just(512u32), Just(1024), Just(4096), Just(9180)],
        buffer in 300u32..5_000,
        policy in prop_oneof![
            Just(r#"{ kind = "cell_drop" }"#),
            Just(r#"{ kind = "ppd" }"#),
            Just(r#"{ kind = "epd", threshold = 0.8 }"#),
            Just(r#"{ kind = "gfr", z = 1.5 }"#),
            Just(r#"{ kind = "threshold" }"#),
        ],
    ) {
        let mut net = network(&merged(groups, per_group, mss, buffer, policy));
        let mut t = atmsim_engine::SimTime::ZERO;
        let step = atmsim_engine::SimTime::from_us(100);
        for _ in 0..1_000 {
            t += step;
            net.run_until(t);
            for port in ["L->A", "A->B", "B->R"] {
                if let Err(e) = frames_do_not_interleave(&net, port) {
                    prop_assert!(false, "{}", e);
                }
            }
        }
        let (sent, delivered, dropped, in_flight) = net.cell_balance();
        prop_assert_eq!(sent, delivered + dropped + in_flight);
    }
}

/// `clp = 1` on a connection: every cell of its data VC carries CLP = 1 (what the GFR
/// policy reads as a tagged frame); its ACKs and the other connections' cells do not.
#[test]
fn a_tagged_connection_sends_clp_1_cells_and_untagged_acks() {
    let text = merged(1, 2, 1024, 48_000, r#"{ kind = "gfr", z = 1.5 }"#).replacen(
        "via = [\"L\", \"A\", \"B\", \"R\"]\n",
        "via = [\"L\", \"A\", \"B\", \"R\"]\nclp = 1\n",
        1,
    );
    let mut net = network(&text);
    let tagged_vc = atmsim_model::ids::VcId(0); // g0c0's data VC
    let (mut tagged, mut untagged) = (0, 0);
    let mut t = atmsim_engine::SimTime::ZERO;
    for _ in 0..200 {
        t += atmsim_engine::SimTime::from_us(500);
        net.run_until(t);
        for p in net.ports() {
            for c in p.sched.cells() {
                if c.vc == tagged_vc {
                    assert!(c.is_clp(), "{}: {c:?}", p.name);
                    tagged += 1;
                } else {
                    assert!(!c.is_clp(), "{}: {c:?}", p.name);
                    untagged += 1;
                }
            }
        }
    }
    assert!(tagged > 0 && untagged > 0, "{tagged} {untagged}");
    let bad = text.replacen("clp = 1", "clp = 2", 1);
    let e = load(&bad, "merged.toml", &[], None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("connection[0].clp"), "{e}");
}
