//! Frame-level RED on a TCP bottleneck: the parking lot of Cheon & Panwar (15 Reno TCPs, 500 B
//! segments = 12-cell frames, FIFO buffers of 2000 cells) with RED at every switch port.

use atmsim_engine::SimTime;
use atmsim_model::port::policy::{Policy, PolicyConfig, RedConfig};
use atmsim_model::spec::NodeKind;
use atmsim_model::topology;
use atmsim_model::Network;
use atmsim_units::Cells;

#[test]
fn red_holds_the_average_queue_below_max_th_around_min_th_and_conserves_cells() {
    let (min_th, max_th) = (0.25, 0.75);
    let mut spec = topology::parking_lot(5, SimTime::from_ms(2000));
    for node in &mut spec.nodes {
        if let NodeKind::Switch(sw) = &mut node.kind {
            sw.port.policy = PolicyConfig::Red(RedConfig {
                min_th,
                max_th,
                w_q: 0.002,
                max_p: 0.02,
                packet_size: Cells(12),
                ecn_mark: false,
            });
        }
    }
    let buffer = 2000.0;
    let mut net = Network::new(&spec, "red").unwrap();
    let p = net
        .ports()
        .iter()
        .position(|p| p.name == "sw3->sw4")
        .unwrap();
    let red_avg = |net: &Network| match &net.ports()[p].policy {
        Policy::Red(r) => r.avg(),
        other => panic!("{other:?}"),
    };
    // The average queue RED keeps, sampled every millisecond from 500 ms on (slow start over).
    let mut avgs = Vec::new();
    for ms in 1..=2000 {
        net.run_until(SimTime::from_ms(ms));
        if ms >= 500 {
            avgs.push(red_avg(&net));
        }
    }
    let (sent, delivered, dropped, in_flight) = net.cell_balance();
    assert_eq!(sent, delivered + dropped + in_flight, "cells are conserved");
    let r = net.report();
    let port = r
        .summary
        .ports
        .iter()
        .find(|q| q.name == "sw3->sw4")
        .unwrap();
    let early = port.drops_by_reason["early_discard"];
    assert!(early > 0, "RED refused frames: {:?}", port.drops_by_reason);
    assert_eq!(
        port.cells_dropped, early,
        "every drop is RED's, none an overflow: {:?}",
        port.drops_by_reason
    );
    assert!(
        port.utilization > 0.95,
        "the bottleneck is kept busy: {}",
        port.utilization
    );
    // The average oscillates with the TCP windows around min_th (about half the samples
    // below it: measured 780 of 1501, from 152 to 706 cells) and never reaches max_th.
    let (lo, hi) = (min_th * buffer, max_th * buffer);
    let mean = avgs.iter().sum::<f64>() / avgs.len() as f64;
    let top = avgs.iter().copied().fold(0.0, f64::max);
    let above = avgs.iter().filter(|&&a| a >= lo).count();
    assert!(top < hi, "the average reached max_th: {top:.0} cells");
    assert!(
        above * 4 > avgs.len(),
        "{above} of {} samples at or above min_th",
        avgs.len()
    );
    assert!(
        lo / 2.0 < mean && mean < hi,
        "mean average {mean:.0} cells, thresholds {lo}-{hi}"
    );
}
