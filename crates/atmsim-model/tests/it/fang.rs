use atmsim_engine::SimTime;
use atmsim_model::spec::NetworkSpec;
use atmsim_model::topology;
use atmsim_model::Network;

pub fn fang_lan(n: usize, credits: Option<u32>, vc_buffer: u32, duration_ms: u64) -> NetworkSpec {
    topology::fang_lan(n, credits, vc_buffer, SimTime::from_ms(duration_ms))
}

fn assert_conserved(net: &Network) {
    let (sent, delivered, dropped, in_flight) = net.cell_balance();
    assert_eq!(sent, delivered + dropped + in_flight, "cells are conserved");
}

#[test]
fn an2_shares_the_bottleneck_equally_and_loses_nothing() {
    let spec = fang_lan(6, Some(5), 256, 2000);
    let mut net = Network::new(&spec, "fang-an2").unwrap();
    net.run();
    assert_conserved(&net);
    let r = net.report();
    let s = &r.summary;
    assert_eq!(s.totals.cells_dropped, 0, "credits never lose a cell");
    // Bottleneck: 2.75 us per cell, 48-byte payloads, 8192 B in 172 cells: 138.4 Mb/s of TCP payload.
    let payload_rate = 48.0 * 8.0 / 2.75e-6 / 1e6 * 8192.0 / (172.0 * 48.0);
    for c in &s.connections {
        assert!(
            (c.goodput_mbps - payload_rate / 6.0).abs() < 0.05 * payload_rate / 6.0,
            "{} got {:.2} Mb/s, want ~{:.2}",
            c.name,
            c.goodput_mbps,
            payload_rate / 6.0
        );
    }
    let ab = s.ports.iter().find(|p| p.name == "A->B").unwrap();
    assert!(ab.utilization > 0.97, "bottleneck busy: {}", ab.utilization);
    assert!(
        ab.max_queue_cells <= 6 * 5,
        "per-VC queues never exceed the credits"
    );
}

#[test]
fn cell_drop_loses_cells_and_goodput() {
    let spec = fang_lan(6, None, 256, 2000);
    let mut net = Network::new(&spec, "fang-drop").unwrap();
    net.run();
    assert_conserved(&net);
    let s = net.report().summary;
    assert!(s.totals.cells_dropped > 0);
    let ab = s.ports.iter().find(|p| p.name == "A->B").unwrap();
    assert!(ab.effective_utilization < ab.utilization);
}

#[test]
fn same_seed_same_run_different_seed_different_run() {
    let spec = fang_lan(3, None, 256, 500);
    let run = |seed| {
        let mut s = spec.clone();
        s.run.seed = seed;
        let mut net = Network::new(&s, "x").unwrap();
        net.run();
        (net.events(), net.fingerprint())
    };
    assert_eq!(run(1), run(1));
    assert_ne!(run(1).1, run(2).1);
}

#[test]
fn series_are_sampled_for_every_connection_and_port() {
    let spec = fang_lan(2, Some(5), 256, 200);
    let mut net = Network::new(&spec, "series").unwrap();
    net.run();
    let copy = net.report().series;
    let moved = net.into_report().series;
    // Samples at 0, 10, ..., 200 ms.
    assert_eq!(moved.time_s.len(), 21);
    // 2 connections x 10 metrics + (1 + 2 * 2 links) x 2 directions x 5 metrics.
    assert_eq!(moved.columns.len(), 2 * 10 + 10 * 5);
    assert_eq!(moved.values.len(), 21 * moved.columns.len());
    assert_eq!(
        moved.values.capacity(),
        moved.values.len(),
        "the buffer was reserved for exactly the run's samples"
    );
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(&copy.values),
        bits(&moved.values),
        "srtt is NaN before a sample"
    );
    let q = moved
        .columns
        .iter()
        .position(|c| c.entity == "A->B" && c.metric == "utilization")
        .unwrap();
    assert!(
        *moved.column(q).last().unwrap() > 0.9,
        "the bottleneck is busy at the end"
    );
}
