//! Service classes: a VBR ON-OFF source beside greedy UBR TCPs, with and without strict
//! priority at the switch ports.
//!
//! ```text
//!   tcp1..5 --+                 +-- sink1..5
//!   vbr ------+-- A ======= B --+-- vbrsink     (OC-3, the A-B link 1 ms, others 10 us)
//! ```

use atmsim_engine::SimTime;
use atmsim_model::topology::{vbr_beside_tcp, OC3_CELL_TIME};
use atmsim_model::Network;

fn run(priority: bool) -> (Network, atmsim_model::Summary) {
    let spec = vbr_beside_tcp(5, priority, SimTime::from_secs(2));
    let mut net = Network::new(&spec, "vbr").unwrap();
    net.run();
    let (sent, delivered, dropped, in_flight) = net.cell_balance();
    assert_eq!(sent, delivered + dropped + in_flight, "cells are conserved");
    let s = net.report().summary;
    crate::balance::report_balances(&s);
    (net, s)
}

#[test]
fn vbr_under_strict_priority_loses_nothing_and_waits_for_no_ubr_cell() {
    let (_, s) = run(true);
    let vbr = &s.connections[0];
    assert_eq!(
        (vbr.name.as_str(), vbr.service, vbr.source),
        ("vbr", "vbr", "on_off")
    );
    assert!(vbr.cells_sent > 100_000);
    assert_eq!(vbr.cells_dropped, 0, "the VBR source loses no cell");
    // Its delay: three links (cell time + propagation each), plus at the contended port A->B
    // at most one cell time waiting for the cell already on the wire (scheduling is
    // non-preemptive); a VBR cell that waited behind a queued UBR cell would exceed this.
    let ct = OC3_CELL_TIME.as_micros_f64();
    let base = 3.0 * ct + 1000.0 + 2.0 * 10.0;
    let max = vbr.cell_delay_max_us.unwrap();
    let min_possible = base - 1e-6;
    assert!(vbr.cell_delay_mean_us.unwrap() >= min_possible);
    assert!(
        max <= base + ct + 1e-6,
        "max delay {max} us > {} us",
        base + ct
    );
    // ON half the time at 80% of the link: 40% of the cell slots on average.
    let ab = s.ports.iter().find(|p| p.name == "A->B").unwrap();
    let vbr_share = vbr.cells_delivered as f64 * OC3_CELL_TIME.as_secs_f64() / 1.5;
    assert!((vbr_share - 0.4).abs() < 0.01, "VBR share {vbr_share}");
    // The TCPs share what is left: the link stays busy, and all five get a part.
    assert!(
        ab.utilization > 0.9,
        "bottleneck utilisation {}",
        ab.utilization
    );
    let tcp: Vec<f64> = s.connections[1..].iter().map(|c| c.goodput_mbps).collect();
    let left = (1.0 - vbr_share) * 155.52 * 9140.0 / (192.0 * 53.0);
    let total: f64 = tcp.iter().sum();
    assert!(total > 0.8 * left, "TCPs got {total:.1} of {left:.1} Mb/s");
    assert!(tcp.iter().all(|&g| g > 0.05 * total), "{tcp:?}");
    assert_eq!(s.totals.goodput_mbps, total, "totals count the TCPs only");
}

#[test]
fn without_priority_vbr_cells_queue_behind_tcp_cells() {
    let (_, fifo) = run(false);
    let (_, prio) = run(true);
    let (f, p) = (&fifo.connections[0], &prio.connections[0]);
    let ct = OC3_CELL_TIME.as_micros_f64();
    assert!(
        f.cell_delay_max_us.unwrap() > p.cell_delay_max_us.unwrap() + 100.0 * ct,
        "FIFO: the VBR cells wait behind the TCP backlog ({:?} vs {:?})",
        f.cell_delay_max_us,
        p.cell_delay_max_us
    );
    assert!(
        f.cells_dropped > 0,
        "FIFO: the shared queue overflows onto VBR cells"
    );
}

#[test]
fn switches_know_the_backward_port_of_each_vc() {
    let spec = vbr_beside_tcp(2, true, SimTime::from_ms(1));
    let net = Network::new(&spec, "vbr").unwrap();
    let port = |name: &str| {
        atmsim_model::ids::PortId(net.ports().iter().position(|p| p.name == name).unwrap() as u32)
    };
    let a = &net.switches()[0];
    assert_eq!(a.name, "A");
    // s1's data enters A from tcp1 and leaves to B; its ACKs leave A towards tcp1.
    let mut saw = 0;
    for (up, _, route) in a.table.entries() {
        if up == port("tcp1->A") {
            assert_eq!(route.port, port("A->B"));
            assert_eq!(route.backward, Some(port("A->tcp1")));
            saw += 1;
        }
        if up == port("vbr->A") {
            assert_eq!(route.backward, None, "a one-way VC has no backward port");
            saw += 1;
        }
    }
    assert_eq!(saw, 2);
}
