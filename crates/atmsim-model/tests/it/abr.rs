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
use atmsim_model::topology::{vbr_beside_tcp, with_path_frtt, OC3_CELL_TIME};
use atmsim_model::Network;

const OC3: f64 = 1e12 / OC3_CELL_TIME.0 as f64;

/// `n` ABR connections (no VBR source) of `source`, with `params` (FRTT: each path's round
/// trip) and source buffer `buf`.
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
            drop_frames: false,
            ci_any_since_rm: false,
            access_cell_time: None,
        });
        c.start_jitter = SimTime::ZERO;
        if let Some(s) = &source {
            c.source = s.clone();
        }
    }
    with_path_frtt(spec)
}

fn conserved(net: &Network) {
    let (sent, delivered, dropped, in_flight) = net.cell_balance();
    assert_eq!(sent, delivered + dropped + in_flight, "cells are conserved");
    // The report's counts (from the warm-up) balance too, RM cells and source queues included.
    crate::balance::report_balances(&net.report().summary);
}

/// One greedy ABR source starting at ICR = 1% of the link, TM 4.0's other defaults.
fn slow_start_source() -> Network {
    let p = AbrParams {
        icr: OC3 / 100.0,
        ..AbrParams::tm4(OC3, SimTime::ZERO)
    };
    let spec = abr_net(1, Some(SourceSpec::Greedy), p, None);
    Network::new(&spec, "abr").unwrap()
}

#[test]
fn a_greedy_abr_source_starts_at_icr_and_rises_to_pcr_one_rif_step_per_backward_rm() {
    let mut net = slow_start_source();
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
    let (sent, frm) = (s.data_sent() + c.frm_sent + c.brm_sent, c.frm_sent);
    assert_eq!(c.brm_sent, 0, "no VC comes the other way");
    assert!(
        (sent as f64 / frm as f64 - 32.0).abs() < 0.05,
        "{sent} cells, {frm} forward RM cells"
    );
    // At PCR = the link rate, the source fills its link after the first few round trips.
    assert!(sent as f64 > 0.95 * 0.4 * OC3, "{sent}");
}

#[test]
fn a_backward_rm_cell_that_raises_the_rate_frees_the_held_adapter_at_once() {
    // At ICR (1% of the link) the adapter is held about 272 us between cells. The first
    // backward RM cell (before 2.1 ms) raises ACR to 7.25% of the link (one cell every 37.6
    // us): the next cells follow at that rate, not after the rest of the old interval.
    let mut net = slow_start_source();
    let sent = |net: &Network| {
        let s = net.abr_source(0).unwrap();
        s.data_sent() + s.counters.frm_sent
    };
    net.run_until(SimTime::from_us(2100));
    assert_eq!(net.abr_source(0).unwrap().counters.brm_received, 1);
    let before = sent(&net);
    net.run_until(SimTime::from_us(2200));
    let after = sent(&net);
    assert!(after - before >= 2, "{} cells in 100 us", after - before);
    assert!(after - before <= 3, "{} cells in 100 us", after - before);
}

#[test]
fn an_abr_source_never_sends_faster_than_its_acr() {
    // ICR 1% of the link and no feedback that could raise it before 2 ms: in the first
    // 2 ms the source sends at most 2 ms x ICR + 1 cells.
    let mut net = slow_start_source();
    net.run_until(SimTime::from_ms(2));
    let s = net.abr_source(0).unwrap();
    let cells = s.data_sent() + s.counters.frm_sent;
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

/// TCP over ABR at Nrm = 2 (TM 4.0 allows 2 to 256): each of a connection's two VCs sends a
/// forward RM cell every second in-rate cell (rule 3a), and the other slot goes to the backward
/// RM cell its host turned round from the opposite VC (rule 3b: one per forward RM cell,
/// before data). Each forward RM cell of one VC begets a backward RM cell on the other, which
/// begets a forward RM cell with it: once they circulate the RM cells take every slot and no
/// data cell leaves, as the rules prescribe (before, in the start-up, some data gets through).
/// At Nrm = 4 half the slots carry data.
#[test]
fn at_nrm_2_turned_round_rm_cells_take_every_slot_and_tcp_stalls() {
    let mut delivered = Vec::new();
    for nrm in [2, 4] {
        let p = AbrParams {
            icr: OC3 / 10.0,
            nrm,
            mrm: 1,
            ..AbrParams::tm4(OC3, SimTime::ZERO)
        };
        let mut net = Network::new(&abr_net(1, None, p, None), "abr").unwrap();
        net.run();
        conserved(&net);
        let (data_src, ack_src) = (net.abr_source(0).unwrap(), net.abr_source(1).unwrap());
        let (data, ack) = (data_src.counters.clone(), ack_src.counters.clone());
        let (data_sent, ack_sent) = (data_src.data_sent(), ack_src.data_sent());
        if nrm == 2 {
            // One forward RM cell every second cell; the slots between them carried data only
            // in the start-up, before turned-round RM cells waited at every slot.
            assert!(data.frm_sent > 10_000, "{data:?}");
            assert!(data.brm_sent + data_sent + 1 >= data.frm_sent, "{data:?}");
            assert!(data_sent * 100 < data.frm_sent, "{data:?}");
            assert!(ack.brm_sent + ack_sent + 1 >= ack.frm_sent, "{ack:?}");
        } else {
            assert!(data_sent > data.frm_sent, "{data:?}");
        }
        delivered.push(net.report().summary.totals.goodput_mbps);
    }
    assert_eq!(delivered[0], 0.0);
    assert!(delivered[1] > 10.0, "{delivered:?}");
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

/// One TCP over ABR at ICR = PCR, its source queue of `buf` cells (losing whole frames when
/// `frames`) fed over an access line of `per` OC-3 cell times per cell.
fn edge_router(per: u64, buf: Option<u32>, frames: bool) -> Network {
    let mut spec = abr_net(1, None, AbrParams::tm4(OC3, SimTime::ZERO), buf);
    for c in &mut spec.connections {
        let a = c.abr.as_mut().unwrap();
        a.access_cell_time = Some(SimTime(OC3_CELL_TIME.0 * per));
        a.drop_frames = frames;
    }
    Network::new(&spec, "edge").unwrap()
}

#[test]
fn an_access_line_feeds_the_source_queue_at_its_rate() {
    // Without the line a window's cells enter the queue at once; with a line at a quarter of
    // the PCR they enter one line cell time apart, the source sends each at once, and no
    // more data cells go than the line has carried.
    let p = AbrParams::tm4(OC3, SimTime::ZERO);
    let mut direct = Network::new(&abr_net(1, None, p, None), "direct").unwrap();
    direct.run_until(SimTime::from_ms(100));
    assert!(direct.abr_source(0).unwrap().counters.max_queue > 100);
    let mut net = edge_router(4, None, false);
    for ms in [20, 50, 100, 200] {
        let now = SimTime::from_ms(ms);
        net.run_until(now);
        let s = net.abr_source(0).unwrap();
        let carried = now.0 / (4 * OC3_CELL_TIME.0);
        assert!(s.data_sent() <= carried, "{} > {carried}", s.data_sent());
        assert!(s.counters.max_queue <= 2, "{}", s.counters.max_queue);
        conserved(&net);
    }
    net.run();
    conserved(&net);
    let s = net.report().summary;
    let line_mbps = 155.52 / 4.0 * 48.0 / 53.0;
    assert!(
        s.totals.goodput_mbps > 0.5 * line_mbps,
        "{}",
        s.totals.goodput_mbps
    );
    assert!(
        s.totals.goodput_mbps < line_mbps,
        "{}",
        s.totals.goodput_mbps
    );
}

#[test]
fn cells_off_an_access_line_overflow_a_small_queue_one_by_one_or_by_frames() {
    // A line at the PCR into a 400-cell queue (two of this TCP's frames), ACR starting at 1%
    // of the PCR: a window soon finds the queue full.
    for frames in [false, true] {
        let mut spec = abr_net(
            1,
            None,
            AbrParams {
                icr: OC3 / 100.0,
                ..AbrParams::tm4(OC3, SimTime::ZERO)
            },
            Some(400),
        );
        let a = spec.connections[0].abr.as_mut().unwrap();
        a.access_cell_time = Some(OC3_CELL_TIME);
        a.drop_frames = frames;
        let mut net = Network::new(&spec, "edge-small").unwrap();
        net.run();
        conserved(&net);
        let s = net.abr_source(0).unwrap();
        assert!(s.counters.cells_lost > 0, "frames {frames}");
        assert!(s.counters.overflows >= 1, "frames {frames}");
        assert!(s.counters.overflows <= s.counters.cells_lost);
        let corrupted = net.report().summary.connections[0].frames_corrupted;
        if frames {
            assert!(s.counters.max_queue <= 400);
            assert_eq!(corrupted, 0, "whole frames lost corrupt nothing");
        } else {
            assert_eq!(s.counters.max_queue, 400);
            assert!(
                corrupted > 0,
                "frames that lost cells reach the receiver corrupted"
            );
        }
    }
}

// ---- ERICA at the switches -------------------------------------------------------------

use atmsim_model::spec::{
    AppSpec, ConnectionSpec, Discipline, EricaConfig, FlowControl, HostSpec, IpService, LinkSpec,
    NodeKind, NodeSpec, PolicyConfig, PortSpec, RateControlConfig, RunSpec, SchedulerSpec,
    SwitchSpec, TrafficDescriptor,
};
use atmsim_model::topology::{n_source_vbr, OC3_CELLS_PER_S};

fn greedy_abr(mut spec: NetworkSpec) -> NetworkSpec {
    for c in &mut spec.connections {
        if c.service == ServiceCategory::Abr {
            c.source = SourceSpec::Greedy;
        }
    }
    spec
}

#[test]
fn erica_brings_a_lone_greedy_source_to_the_target_utilisation() {
    let spec = greedy_abr(n_source_vbr(
        1,
        SimTime::from_ms(1),
        None,
        RateControlConfig::Erica(EricaConfig::default()),
        SimTime::from_ms(200),
    ));
    let mut net = Network::new(&spec, "erica1").unwrap();
    // Round trip 6 ms: within 10 round trips the rate is 0.9 x the link, and stays there.
    for ms in [60, 100, 150, 200] {
        net.run_until(SimTime::from_ms(ms));
        let acr = net.abr_source(0).unwrap().acr();
        let target = 0.9 * OC3_CELLS_PER_S;
        assert!(
            (acr / target - 1.0).abs() < 0.02,
            "at {ms} ms ACR = {acr:.0} cells/s, target {target:.0}"
        );
    }
    conserved(&net);
    let s = net.report().summary;
    assert_eq!(s.totals.cells_dropped, 0);
}

/// Two bottlenecks: A crosses S1->S2 and S2->S3; B only S1->S2; C1 and C2 only S2->S3.
/// Max-min fair shares of 0.9 x the link: A = C1 = C2 = 0.3, B = 0.6.
fn two_bottlenecks(duration: SimTime, rate_control: RateControlConfig) -> NetworkSpec {
    let port = PortSpec {
        scheduler: SchedulerSpec::Single(Discipline::Fifo),
        vc_buffer_cells: None,
        port_buffer_cells: None,
        policy: PolicyConfig::default(),
        rate_control,
        efci_threshold: None,
    };
    let switch = |name: &str| NodeSpec {
        name: name.into(),
        kind: NodeKind::Switch(SwitchSpec {
            switching_delay: SimTime::ZERO,
            port: port.clone(),
            ports: Vec::new(),
        }),
    };
    let host = |name: String| NodeSpec {
        name,
        kind: NodeKind::Host(HostSpec {
            processing_delay: SimTime::ZERO,
            processing_jitter: SimTime::ZERO,
            sar_delay_per_cell: SimTime::ZERO,
            llc_snap: false,
            aal_overhead_bytes: 8,
            ip_service_time: SimTime::ZERO,
            ip_both_directions: false,
            processing_exponential: false,
            ip_service: IpService::Constant,
        }),
    };
    let mut nodes = vec![switch("S1"), switch("S2"), switch("S3")];
    let link = |a, b| LinkSpec {
        a,
        b,
        cell_time: OC3_CELL_TIME,
        delay: SimTime::from_ms(1),
        flow_control: FlowControl::None,
    };
    let mut links = vec![link(0, 1), link(1, 2)];
    let mut connections = Vec::new();
    for (name, first, last) in [("A", 0, 2), ("B", 0, 1), ("C1", 1, 2), ("C2", 1, 2)] {
        let s = nodes.len();
        nodes.push(host(format!("h{name}")));
        nodes.push(host(format!("d{name}")));
        links.push(link(s, first));
        links.push(link(last, s + 1));
        let mut path = vec![s];
        path.extend(first..=last);
        path.push(s + 1);
        connections.push(ConnectionSpec {
            name: name.into(),
            path,
            service: ServiceCategory::Abr,
            descriptor: TrafficDescriptor {
                pcr: Some(OC3_CELLS_PER_S),
                ..Default::default()
            },
            source: SourceSpec::Greedy,
            start: SimTime::ZERO,
            start_jitter: SimTime::ZERO,
            abr: Some(AbrSpec {
                // FRTT: the path's round trip, set by `with_path_frtt` below.
                params: AbrParams::tm4(OC3_CELLS_PER_S, SimTime::ZERO),
                source_buffer: None,
                drop_frames: false,
                ci_any_since_rm: false,
                access_cell_time: None,
            }),
            share: Default::default(),
            tagged: false,
        });
    }
    let _ = AppSpec::Greedy;
    with_path_frtt(NetworkSpec {
        run: RunSpec {
            duration,
            warmup: SimTime::ZERO,
            seed: 1,
            sample_every: SimTime::ZERO,
            sample: Default::default(),
        },
        nodes,
        links,
        connections,
        merges: Vec::new(),
    })
}

/// Runs `spec` (the two-bottleneck network) to its end and checks that the sources' rates
/// are the max-min fair shares of `target` x the link, within 5%: A = C1 = C2 = 1/3, B = 2/3.
fn run_to_max_min(spec: &NetworkSpec, target: f64) {
    let mut net = Network::new(spec, "maxmin").unwrap();
    net.run();
    conserved(&net);
    // VC indices: A 0 (feedback VC 1), B 2, C1 4, C2 6.
    let share = |vc| net.abr_source(vc).unwrap().acr() / (target * OC3_CELLS_PER_S);
    let got = [share(0), share(2), share(4), share(6)];
    let want = [1.0 / 3.0, 2.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0];
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g / w - 1.0).abs() < 0.05,
            "shares {got:?}, max-min {want:?}"
        );
    }
}

#[test]
fn erica_converges_to_the_max_min_fair_rates_of_two_bottlenecks() {
    // The longest round trip (A: four 1 ms links each way) is 8 ms; 40 round trips.
    let spec = two_bottlenecks(
        SimTime::from_ms(320),
        RateControlConfig::Erica(EricaConfig::default()),
    );
    run_to_max_min(&spec, 0.9);
}

#[test]
fn tcp_over_erica_loses_no_cell_with_a_switch_buffer_of_three_round_trips() {
    // 15 TCPs over 1000 km links (round trip 30 ms = 11,040 cells); a 33,120-cell buffer.
    let mut spec = n_source_vbr(
        15,
        SimTime::from_ms(5),
        None,
        RateControlConfig::Erica(EricaConfig::default()),
        SimTime::from_ms(1500),
    );
    for n in &mut spec.nodes {
        if let NodeKind::Switch(s) = &mut n.kind {
            s.port.port_buffer_cells = Some(33_120);
        }
    }
    let mut net = Network::new(&spec, "erica15").unwrap();
    net.run();
    conserved(&net);
    let s = net.report().summary;
    assert_eq!(s.totals.cells_dropped, 0);
    assert!(s.totals.goodput_mbps > 80.0, "{}", s.totals.goodput_mbps);
}

// ---- EFCI at the switches --------------------------------------------------------------

#[test]
fn efci_shares_a_bottleneck_between_greedy_sources_and_bounds_its_queue() {
    use atmsim_model::spec::{EfciConfig, EfciMark};
    // Two greedy sources with An 1997's EFCI parameters (RIF 0.1, RDF 1/16) through one
    // OC-3 bottleneck marking above 500 cells, clearing at 250; marked as cells enter the
    // queue and, again, as they leave it.
    let mut max_queue = Vec::new();
    for mark in [EfciMark::Arrival, EfciMark::Departure] {
        let mut spec = greedy_abr(n_source_vbr(
            2,
            SimTime::from_us(500),
            None,
            RateControlConfig::Efci(EfciConfig {
                high: atmsim_units::Cells(500),
                low: atmsim_units::Cells(250),
                mark,
            }),
            SimTime::from_ms(600),
        ));
        spec.run.warmup = SimTime::from_ms(100);
        for c in &mut spec.connections {
            let a = c.abr.as_mut().unwrap();
            a.params.rif = 0.1;
            a.params.rdf = 1.0 / 16.0;
            a.params.icr = OC3_CELLS_PER_S / 10.0;
        }
        let mut net = Network::new(&spec, "efci").unwrap();
        net.run();
        conserved(&net);
        let s = net.report().summary;
        let got: Vec<u64> = s.connections.iter().map(|c| c.cells_delivered).collect();
        let total: u64 = got.iter().sum();
        // Binary feedback oscillates, but two sources on the same path get the same
        // average: each within 10% of half.
        for &g in &got {
            assert!(
                (g as f64 / (total as f64 / 2.0) - 1.0).abs() < 0.10,
                "{mark:?}: {got:?}"
            );
        }
        // The link is not kept full: a congested spell lasts until the queue drains below
        // `low`, and every backward RM cell of the spell (one per 32 cells a source sends)
        // cuts the rate by 1/16, so the sources undershoot before they climb back by RIF x
        // PCR per RM cell (about 68% busy here). They are controlled, not starved: above
        // half the link.
        let ab = s.ports.iter().find(|p| p.name == "A->B").unwrap();
        assert!(
            ab.utilization > 0.5,
            "{mark:?}: utilisation {}",
            ab.utilization
        );
        assert_eq!(ab.rate_control, Some("efci"));
        // The queue oscillates around the thresholds: the sources overshoot by what they
        // send in a feedback round trip (2 ms at up to the link rate: ~730 cells) and by RIF
        // x PCR steps, so it stays within a few thresholds' worth.
        assert!(
            ab.max_queue_cells < 5_000,
            "{mark:?}: max queue {}",
            ab.max_queue_cells
        );
        assert!(ab.max_queue_cells > 500, "it reached the marking threshold");
        max_queue.push(ab.max_queue_cells);
    }
    // Marked as they leave, the cells tell the destination of the queue one queueing delay
    // sooner (the forward RM cells still wait behind the queue): the overshoot is smaller.
    assert!(max_queue[1] < max_queue[0], "max queues {max_queue:?}");
}

// ---- FMMRA at the switches -------------------------------------------------------------

#[test]
fn fmmra_shares_one_bottleneck_equally_at_its_target() {
    use atmsim_model::spec::FmmraConfig;
    // Five greedy sources, one OC-3 bottleneck, FMMRA's default target 0.95: each source's
    // rate settles at 0.95 / 5 of the link.
    let spec = greedy_abr(n_source_vbr(
        5,
        SimTime::from_ms(1),
        None,
        RateControlConfig::Fmmra(FmmraConfig::default()),
        SimTime::from_ms(300),
    ));
    let mut net = Network::new(&spec, "fmmra1").unwrap();
    net.run();
    conserved(&net);
    for vc in (0..10).step_by(2) {
        let share = net.abr_source(vc).unwrap().acr() / (0.95 * OC3_CELLS_PER_S / 5.0);
        assert!((share - 1.0).abs() < 0.05, "VC {vc}: {share}");
    }
    let s = net.report().summary;
    let ab = s.ports.iter().find(|p| p.name == "A->B").unwrap();
    assert_eq!(ab.rate_control, Some("fmmra"));
    assert_eq!(ab.cells_dropped, 0);
}

#[test]
fn fmmra_converges_to_the_max_min_fair_rates_of_two_bottlenecks() {
    use atmsim_model::spec::FmmraConfig;
    // The network of ERICA's check; FMMRA's target is 0.95 of the link. Bi-directional
    // marking lets each port learn the other's bottleneck: A's rate is set at S2->S3, so at
    // S1->S2 it counts as bottlenecked elsewhere and B gets the rest.
    let spec = two_bottlenecks(
        SimTime::from_ms(320),
        RateControlConfig::Fmmra(FmmraConfig::default()),
    );
    run_to_max_min(&spec, 0.95);
}

// ---- EPRCA at the switches -------------------------------------------------------------

#[test]
fn eprca_brings_greedy_sources_started_apart_to_a_stable_equal_share() {
    use atmsim_model::abr::EprcaConfig;
    // Three greedy sources through one OC-3 bottleneck (1 ms links, EPRCA's defaults), each
    // starting at a tenth of the link, 20 ms after the one before: the first has the link to
    // itself for a while, so the sources come to the shared port far apart.
    let mut spec = greedy_abr(n_source_vbr(
        3,
        SimTime::from_ms(1),
        None,
        RateControlConfig::Eprca(EprcaConfig::default()),
        SimTime::from_ms(800),
    ));
    for (i, c) in spec.connections.iter_mut().enumerate() {
        c.start = SimTime::from_ms(20 * i as u64);
        c.abr.as_mut().unwrap().params.icr = OC3_CELLS_PER_S / 10.0;
    }
    let mut net = Network::new(&spec, "eprca").unwrap();
    // "Converge" here: EPRCA's rates never settle to one value (below QT every source climbs
    // by RIF x PCR per backward RM cell, above it the fastest are pushed to DPF x MACR), so
    // the test reads each source's ACR every millisecond over two windows of 200 ms after a
    // 400 ms start-up (some 130 round trips of 3 ms): converged means each source's mean ACR
    // is within 10% of the three's mean in both windows (an equal share, whatever the start)
    // and within 5% of its own mean in the window before (stable).
    let mut windows = [[0.0f64; 3]; 2];
    net.run_until(SimTime::from_ms(400));
    for ms in 401..=800u64 {
        net.run_until(SimTime::from_ms(ms));
        let w = usize::from(ms > 600);
        for (k, vc) in [0, 2, 4].into_iter().enumerate() {
            windows[w][k] += net.abr_source(vc).unwrap().acr() / 200.0;
        }
    }
    for (w, means) in windows.iter().enumerate() {
        let all = means.iter().sum::<f64>() / 3.0;
        for m in means {
            assert!((m / all - 1.0).abs() < 0.10, "window {w}: {windows:?}");
        }
    }
    // The shares together are the link's: the rates sum to within 10% of it (their mean is
    // above the link while a queue stands at the port, below it while one drains).
    for means in &windows {
        let sum: f64 = means.iter().sum();
        assert!((sum / OC3_CELLS_PER_S - 1.0).abs() < 0.10, "{windows:?}");
    }
    for k in 0..3 {
        assert!(
            (windows[1][k] / windows[0][k] - 1.0).abs() < 0.05,
            "source {k}: {windows:?}"
        );
    }
    conserved(&net);
    let s = net.report().summary;
    let ab = s.ports.iter().find(|p| p.name == "A->B").unwrap();
    assert_eq!(ab.rate_control, Some("eprca"));
    // The port did its part: it marked backward RM cells.
    assert!(ab.rm_cells_marked.unwrap_or(0) > 0);
}
