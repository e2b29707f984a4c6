//! ABR end systems on a network: pacing at ACR, RM cells out and back, feedback, the source
//! queue. The switches here run no rate control, so each backward RM cell raises a source's
//! rate by RIF x PCR until PCR (the ERICA tests are beside the ERICA switch).
//!
//! ```text
//!   tcp1..n --+                 +-- sink1..n
//!             +-- A ======= B --+               (OC-3, the A-B link 1 ms, others 10 us)
//! ```

use atmsim_engine::SimTime;
use atmsim_model::abr::source::AbrParams;
use atmsim_model::spec::{AbrSpec, NetworkSpec, ServiceCategory, SourceSpec};
use atmsim_model::topology::{vbr_beside_tcp, OC3_CELL_TIME};
use atmsim_model::Network;

const OC3: f64 = 1e12 / OC3_CELL_TIME.0 as f64;

/// `n` ABR connections (no VBR source) of `source`, with `params` and source buffer `buf`.
fn abr_net(
    n: usize,
    source: Option<SourceSpec>,
    params: AbrParams,
    buf: Option<u32>,
) -> NetworkSpec {
    let mut spec = vbr_beside_tcp(n, true, SimTime::from_ms(400));
    spec.connections.remove(0);
    for c in &mut spec.connections {
        c.service = ServiceCategory::Abr;
        c.abr = Some(AbrSpec {
            params,
            source_buffer: buf,
        });
        c.start_jitter = SimTime::ZERO;
        if let Some(s) = &source {
            c.source = s.clone();
        }
    }
    spec
}

fn conserved(net: &Network) {
    let (sent, delivered, dropped, in_flight) = net.cell_balance();
    assert_eq!(sent, delivered + dropped + in_flight, "cells are conserved");
}

#[test]
fn a_greedy_abr_source_starts_at_icr_and_rises_to_pcr_one_rif_step_per_backward_rm() {
    let p = AbrParams {
        icr: OC3 / 100.0,
        ..AbrParams::tm4(OC3, SimTime::ZERO)
    };
    let spec = abr_net(1, Some(SourceSpec::Greedy), p, None);
    let mut net = Network::new(&spec, "abr").unwrap();
    let src = |net: &Network| net.abr_source(0).unwrap().clone();
    assert_eq!(src(&net).acr(), OC3 / 100.0);
    // The first backward RM cell returns after one round trip (2 x (1 ms + 2 x 10 us)).
    net.run_until(SimTime::from_us(2030));
    assert_eq!(src(&net).counters.brm_received, 0);
    assert_eq!(src(&net).acr(), OC3 / 100.0, "no feedback, no change");
    net.run_until(SimTime::from_us(2100));
    let s = src(&net);
    assert_eq!(s.counters.brm_received, 1);
    assert!((s.acr() - (OC3 / 100.0 + OC3 / 16.0)).abs() < 1e-6);
    // 16 increases of PCR/16 take it to PCR; then it stays there.
    net.run();
    let s = src(&net);
    assert_eq!(s.acr(), OC3);
    conserved(&net);
    // One forward RM cell per Nrm = 32 cells the source sent.
    let c = &s.counters;
    let (sent, frm) = (c.data_sent + c.frm_sent + c.brm_sent, c.frm_sent);
    assert_eq!(c.brm_sent, 0, "no VC comes the other way");
    assert!(
        (sent as f64 / frm as f64 - 32.0).abs() < 0.05,
        "{sent} cells, {frm} forward RM cells"
    );
    // At PCR = the link rate, the source fills its link after the first few round trips.
    assert!(sent as f64 > 0.95 * 0.4 * OC3, "{sent}");
}

#[test]
fn an_abr_source_never_sends_faster_than_its_acr() {
    // ICR 1% of the link and no feedback that could raise it before 2 ms: in the first
    // 2 ms the source sends at most 2 ms x ICR + 1 cells.
    let p = AbrParams {
        icr: OC3 / 100.0,
        ..AbrParams::tm4(OC3, SimTime::ZERO)
    };
    let spec = abr_net(1, Some(SourceSpec::Greedy), p, None);
    let mut net = Network::new(&spec, "abr").unwrap();
    net.run_until(SimTime::from_ms(2));
    let c = &net.abr_source(0).unwrap().counters;
    let cells = c.data_sent + c.frm_sent;
    let bound = 2e-3 * OC3 / 100.0 + 1.0;
    assert!(cells as f64 <= bound, "{cells} cells (bound {bound})");
    assert!(cells as f64 >= bound - 2.0, "{cells} cells (bound {bound})");
}

#[test]
fn tcp_over_abr_runs_and_both_directions_carry_rm_cells() {
    let p = AbrParams {
        icr: OC3 / 10.0,
        ..AbrParams::tm4(OC3, SimTime::ZERO)
    };
    // One connection: without rate control at the switch, several at PCR would overflow it.
    let spec = abr_net(1, None, p, None);
    let mut net = Network::new(&spec, "abr").unwrap();
    net.run();
    conserved(&net);
    let s = net.report().summary;
    assert!(s.totals.goodput_mbps > 100.0, "{}", s.totals.goodput_mbps);
    assert_eq!(s.totals.cells_dropped, 0);
    for conn in 0..1 {
        let data = net.abr_source(2 * conn).unwrap();
        let ack = net.abr_source(2 * conn + 1).unwrap();
        assert!(
            data.counters.frm_sent > 100 && data.counters.brm_received > 100,
            "{:?}",
            data.counters
        );
        assert!(
            ack.counters.frm_sent > 10 && ack.counters.brm_received > 10,
            "{:?}",
            ack.counters
        );
        // The data VC's source host turns the ACK VC's forward RM cells round.
        assert!(data.counters.brm_sent > 0);
        assert_eq!(data.counters.cells_lost, 0);
    }
}

#[test]
fn a_small_source_buffer_loses_cells_at_the_source() {
    // ICR far below what TCP offers and no feedback yet: the source queue overflows.
    let p = AbrParams {
        icr: OC3 / 1000.0,
        rif: 1.0 / 1024.0,
        ..AbrParams::tm4(OC3, SimTime::ZERO)
    };
    let spec = abr_net(1, None, p, Some(50));
    let mut net = Network::new(&spec, "abr").unwrap();
    net.run();
    conserved(&net);
    let s = net.abr_source(0).unwrap();
    assert!(s.counters.cells_lost > 0);
    assert_eq!(s.counters.max_queue, 50);
}
