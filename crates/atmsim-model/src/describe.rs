//! The resolved network in numbers (`atmsim.describe`'s `network`): every output port with its
//! cell rate and delay, every connection with its route, its frame sizes, its round trip, its
//! bottleneck and the goodput its path allows. Everything is computed from the
//! [`NetworkSpec`] the simulation runs, with the model's own frame arithmetic
//! ([`crate::aal5`]) and port naming, so that what a scenario *is* is never re-derived
//! elsewhere.
//!
//! What the spec does not hold, the scenario layer fills in: a link's line rate as written and
//! its framing (`atmsim_scenario::describe`). Here the line rate is the one every bit of which
//! carries cells (424 bits / cell time) and the framing `"none"`.

use atmsim_engine::SimTime;
use serde::Serialize;

use crate::aal5;
use crate::cell::{CELL_BITS, CELL_PAYLOAD_BYTES};
use crate::spec::{FlowControl, LinkIdx, NetworkSpec, NodeIdx, NodeKind, SourceSpec};

/// Payload bits of one cell (48 bytes).
const PAYLOAD_BITS: f64 = (CELL_PAYLOAD_BYTES * 8) as f64;

/// A resolved network: its output ports and its connections.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Description {
    /// Two per link, in link order: the port at its first node, then the one at its second
    /// (the order of the results' `ports`).
    pub ports: Vec<PortInfo>,
    /// In the scenario's order.
    pub connections: Vec<ConnectionInfo>,
}

/// One direction of a link: the output port at `node` towards `to`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PortInfo {
    /// `"node->to"`, as the results name ports.
    pub name: String,
    pub node: String,
    pub to: String,
    /// `"switch"` or `"host"` (a host's adapter).
    pub node_kind: &'static str,
    /// Index of the link (its `[[link]]` entry).
    pub link: LinkIdx,
    /// Line rate [b/s]: as the scenario writes it; for a link given by its cell time (or a
    /// cell rate), 424 bits per cell time.
    pub line_rate_bps: f64,
    /// `"sonet"` (cells fill 26/27 of the line rate) or `"none"`.
    pub framing: &'static str,
    /// Time to send one 53-byte cell [s], as the simulation uses it (whole picoseconds).
    pub cell_time_s: f64,
    /// 1 / `cell_time_s` [cells/s].
    pub cells_per_s: f64,
    /// ATM payload rate, 48 bytes per cell: `cells_per_s * 384` [b/s].
    pub payload_bps: f64,
    /// Propagation delay [s].
    pub delay_s: f64,
    /// AN2 credits per VC on this link [cells]; `None` without flow control.
    pub credits: Option<u32>,
    /// A switch port's per-VC buffer [cells]; `None`: unlimited (always, for a host adapter).
    pub vc_buffer_cells: Option<u32>,
    /// A switch port's buffer [cells] (per service class under a priority scheduler);
    /// `None`: unlimited (always, for a host adapter).
    pub port_buffer_cells: Option<u32>,
}

/// One connection's way through the network and what its path allows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConnectionInfo {
    /// As the results name it.
    pub name: String,
    /// Service category: "cbr", "vbr", "abr", "ubr", "gfr".
    pub service: &'static str,
    /// What feeds it: "tcp", "cbr", "on_off", "greedy".
    pub source: &'static str,
    /// "tahoe", "reno", "new_reno", "sack"; `None` for a cell source.
    pub tcp_variant: Option<&'static str>,
    /// Node names, source host to destination host.
    pub path: Vec<String>,
    /// The ports its data cells cross, in order.
    pub route: Vec<String>,
    /// The ports its ACKs (or backward RM cells) cross on the way back, in order.
    pub reverse_route: Vec<String>,
    /// TCP payload bytes of a full segment; `None` for a cell source.
    pub mss_bytes: Option<u32>,
    /// Bytes the source host puts before the TCP payload: TCP/IP headers (40) and, with
    /// LLC/SNAP, its 8; `None` for a cell source.
    pub header_bytes: Option<u32>,
    /// Bytes the source host's adaptation layer adds (AAL5's trailer: 8) before padding to
    /// whole cells; `None` for a cell source.
    pub aal_overhead_bytes: Option<u32>,
    /// Cells of a full segment's frame: (mss + headers + AAL overhead) / 48, rounded up.
    pub segment_cells: Option<u32>,
    /// Cells of a bare ACK's frame from the destination host (no SACK option).
    pub ack_cells: Option<u32>,
    /// The fastest the source adapter sends the VC [cells/s]: the source's own rate or the
    /// descriptor's PCR, the lower; `None` when only the link limits it.
    pub peak_cells_per_s: Option<f64>,
    /// A cell source's mean rate [cells/s]: its rate (CBR), or its rate x ON / period
    /// (ON-OFF); `None` for TCP and greedy sources.
    pub mean_cells_per_s: Option<f64>,
    /// Propagation delay of `route` and `reverse_route` [s].
    pub rtt_propagation_s: f64,
    /// Switching delays of the switches entered on the way out and back [s].
    pub rtt_switching_s: f64,
    /// The port of `route` with the fewest cells per second; among equal ones the one the
    /// most connections' data cells cross, then the first.
    pub bottleneck: String,
    /// Its `cells_per_s`.
    pub bottleneck_cells_per_s: f64,
    /// The most goodput the path allows [b/s]: TCP, the bottleneck's cells in full segments,
    /// `bottleneck_cells_per_s * mss_bytes * 8 / segment_cells`; a cell source, 48 payload
    /// bytes per cell, `bottleneck_cells_per_s * 384` (as the results count its goodput).
    pub max_goodput_bps: f64,
    /// Cells the bottleneck sends in one propagation round trip:
    /// `bottleneck_cells_per_s * rtt_propagation_s`.
    pub bdp_cells: f64,
    /// TCP's congestion control, "reno" or "cubic"; `None` for a cell source.
    pub congestion_control: Option<&'static str>,
    /// TCP with ECN; `None` for a cell source.
    pub ecn: Option<bool>,
    /// TCP with HyStart++; `None` for a cell source.
    pub hystart: Option<bool>,
}

fn secs(t: SimTime) -> f64 {
    t.as_ps() as f64 / 1e12
}

/// The index of the port of link `link` at node `from` (the model's wiring: two ports per
/// link, the one at its first node first).
fn port_index(spec: &NetworkSpec, link: LinkIdx, from: NodeIdx) -> usize {
    2 * link + usize::from(spec.links[link].a != from)
}

/// The ports a cell crosses along `path`.
fn ports_along(spec: &NetworkSpec, path: &[NodeIdx]) -> Vec<usize> {
    path.windows(2)
        .filter_map(|w| {
            spec.link_between(w[0], w[1])
                .map(|l| port_index(spec, l, w[0]))
        })
        .collect()
}

/// Describes `spec` (see the module documentation).
pub fn describe(spec: &NetworkSpec) -> Description {
    let name = |n: NodeIdx| spec.nodes[n].name.clone();
    let mut ports = Vec::with_capacity(2 * spec.links.len());
    for (l, link) in spec.links.iter().enumerate() {
        for (from, to) in [(link.a, link.b), (link.b, link.a)] {
            let cells_per_s = link.cells_per_second();
            let (node_kind, vc_buffer_cells, port_buffer_cells) = match &spec.nodes[from].kind {
                NodeKind::Switch(s) => {
                    let p = s.port_to(to);
                    ("switch", p.vc_buffer_cells, p.port_buffer_cells)
                }
                NodeKind::Host(_) => ("host", None, None),
            };
            ports.push(PortInfo {
                name: format!("{}->{}", spec.nodes[from].name, spec.nodes[to].name),
                node: name(from),
                to: name(to),
                node_kind,
                link: l,
                line_rate_bps: cells_per_s * CELL_BITS as f64,
                framing: "none",
                cell_time_s: secs(link.cell_time),
                cells_per_s,
                payload_bps: cells_per_s * PAYLOAD_BITS,
                delay_s: secs(link.delay),
                credits: match link.flow_control {
                    FlowControl::None => None,
                    FlowControl::Credits(k) => Some(k),
                },
                vc_buffer_cells,
                port_buffer_cells,
            });
        }
    }

    // How many connections' data cells cross each port (the bottleneck's tie-break).
    let routes: Vec<Vec<usize>> = spec
        .connections
        .iter()
        .map(|c| ports_along(spec, &c.path))
        .collect();
    let mut crossing = vec![0usize; ports.len()];
    for route in &routes {
        for &p in route {
            crossing[p] += 1;
        }
    }

    let host = |n: NodeIdx| match &spec.nodes[n].kind {
        NodeKind::Host(h) => Some(h),
        NodeKind::Switch(_) => None,
    };
    let mut connections = Vec::with_capacity(spec.connections.len());
    for (c, route) in spec.connections.iter().zip(&routes) {
        let back: Vec<NodeIdx> = c.path.iter().rev().copied().collect();
        let reverse = ports_along(spec, &back);
        let (propagation, switching) = spec.path_delays(&c.path);
        let (back_propagation, back_switching) = spec.path_delays(&back);
        let rtt_propagation_s = secs(propagation + back_propagation);

        // The first port of the lowest rate, then of the most connections.
        let mut best: Option<usize> = None;
        for &p in route {
            let better = best.is_none_or(|b| {
                let (rp, rb) = (ports[p].cells_per_s, ports[b].cells_per_s);
                rp < rb || (rp == rb && crossing[p] > crossing[b])
            });
            if better {
                best = Some(p);
            }
        }
        let b = best.expect("a connection crosses at least one link");
        let bottleneck_cells_per_s = ports[b].cells_per_s;

        let (src, dst) = (c.path[0], c.path[c.path.len() - 1]);
        let tcp = c.tcp_spec().and_then(|t| {
            let (s, d) = (host(src)?, host(dst)?);
            let segment =
                aal5::cells_for_segment_with(t.mss_bytes, s.llc_snap, s.aal_overhead_bytes);
            let ack = aal5::cells_for_segment_with(0, d.llc_snap, d.aal_overhead_bytes);
            let header =
                aal5::TCP_IP_HEADER_BYTES + if s.llc_snap { aal5::LLC_SNAP_BYTES } else { 0 };
            Some((t, header, s.aal_overhead_bytes, segment, ack))
        });
        let max_goodput_bps = match tcp {
            Some((t, _, _, segment, _)) => {
                bottleneck_cells_per_s * f64::from(t.mss_bytes) * 8.0 / f64::from(segment)
            }
            None => bottleneck_cells_per_s * PAYLOAD_BITS,
        };
        let peak_cells_per_s = match (c.source.rate(), c.descriptor.pcr) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let mean_cells_per_s = match c.source {
            SourceSpec::Cbr { rate } => Some(rate),
            SourceSpec::OnOff {
                rate, period, on, ..
            } => Some(rate * on.as_ps() as f64 / period.as_ps() as f64),
            SourceSpec::Tcp { .. } | SourceSpec::Greedy => None,
        };

        connections.push(ConnectionInfo {
            name: c.name.clone(),
            service: c.service.name(),
            source: c.source.kind(),
            tcp_variant: c.tcp_spec().map(|t| t.variant.name()),
            path: c.path.iter().map(|&n| name(n)).collect(),
            route: route.iter().map(|&p| ports[p].name.clone()).collect(),
            reverse_route: reverse.iter().map(|&p| ports[p].name.clone()).collect(),
            mss_bytes: tcp.map(|t| t.0.mss_bytes),
            header_bytes: tcp.map(|t| t.1),
            aal_overhead_bytes: tcp.map(|t| t.2),
            segment_cells: tcp.map(|t| t.3),
            ack_cells: tcp.map(|t| t.4),
            peak_cells_per_s,
            mean_cells_per_s,
            rtt_propagation_s,
            rtt_switching_s: secs(switching + back_switching),
            bottleneck: ports[b].name.clone(),
            bottleneck_cells_per_s,
            max_goodput_bps,
            bdp_cells: bottleneck_cells_per_s * rtt_propagation_s,
            congestion_control: c.tcp_spec().map(|t| t.congestion_control.name()),
            ecn: c.tcp_spec().map(|t| t.ecn),
            hystart: c.tcp_spec().map(|t| t.hystart),
        });
    }
    Description { ports, connections }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{fang_lan, parking_lot, vbr_beside_tcp, OC3_CELL_TIME};

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
    }

    #[test]
    fn ports_come_two_per_link_named_as_the_results_name_them() {
        let spec = fang_lan(2, Some(5), 256, SimTime::from_secs(1));
        let d = describe(&spec);
        let names: Vec<&str> = d.ports.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "A->B", "B->A", "h1->A", "A->h1", "B->r1", "r1->B", "h2->A", "A->h2", "B->r2",
                "r2->B"
            ]
        );
        let ab = &d.ports[0];
        assert_eq!(
            (ab.node.as_str(), ab.to.as_str(), ab.node_kind),
            ("A", "B", "switch")
        );
        // Fang's 2.75 us cell time: 363,636.36 cells/s, 424 bits each.
        assert!(close(ab.cell_time_s, 2.75e-6));
        assert!(close(ab.cells_per_s, 1.0 / 2.75e-6));
        assert!(close(ab.line_rate_bps, 424.0 / 2.75e-6));
        assert!(close(ab.payload_bps, 384.0 / 2.75e-6));
        assert!(close(ab.delay_s, 500e-9));
        assert_eq!(ab.credits, Some(5));
        assert_eq!(
            (ab.vc_buffer_cells, ab.port_buffer_cells),
            (Some(256), None)
        );
        // A host adapter queues without limit.
        let h1 = &d.ports[2];
        assert_eq!(h1.node_kind, "host");
        assert_eq!((h1.vc_buffer_cells, h1.port_buffer_cells), (None, None));
    }

    #[test]
    fn fang_connection_segments_round_trip_and_bottleneck() {
        let spec = fang_lan(2, None, 256, SimTime::from_secs(1));
        let d = describe(&spec);
        let s1 = &d.connections[0];
        assert_eq!(s1.path, ["h1", "A", "B", "r1"]);
        assert_eq!(s1.route, ["h1->A", "A->B", "B->r1"]);
        assert_eq!(s1.reverse_route, ["r1->B", "B->A", "A->h1"]);
        assert_eq!(
            (s1.service, s1.source, s1.tcp_variant),
            ("ubr", "tcp", Some("tahoe"))
        );
        assert_eq!(
            (s1.congestion_control, s1.ecn, s1.hystart),
            (Some("reno"), Some(false), Some(false))
        );
        // MSS 8192 + 40 TCP/IP + 8 AAL5 trailer = 8240 B = 171.67 -> 172 cells.
        assert_eq!(s1.mss_bytes, Some(8192));
        assert_eq!(
            (s1.header_bytes, s1.aal_overhead_bytes),
            (Some(40), Some(8))
        );
        assert_eq!(s1.segment_cells, Some(172));
        // A bare ACK: 40 + 8 = 48 B, one cell.
        assert_eq!(s1.ack_cells, Some(1));
        // Three 500 ns links each way; 4 us switching at A and B each way.
        assert!(close(s1.rtt_propagation_s, 3e-6));
        assert!(close(s1.rtt_switching_s, 16e-6));
        // Every link is as fast; A->B is the one both connections cross.
        assert_eq!(s1.bottleneck, "A->B");
        let rate = 1.0 / 2.75e-6;
        assert!(close(s1.bottleneck_cells_per_s, rate));
        assert!(close(s1.max_goodput_bps, rate * 8192.0 * 8.0 / 172.0));
        assert!(close(s1.bdp_cells, rate * 3e-6));
        assert_eq!((s1.peak_cells_per_s, s1.mean_cells_per_s), (None, None));
    }

    #[test]
    fn oc3_and_a_slower_link_make_the_bottleneck() {
        let mut spec = parking_lot(1, SimTime::from_secs(1));
        // sw2 -> sw3 at half the rate: the bottleneck of the connections that cross it.
        spec.links[1].cell_time = SimTime(2 * OC3_CELL_TIME.0);
        let d = describe(&spec);
        let oc3 = 1e12 / 2_726_337.0;
        // 155.52 Mb/s / 424 = 366,792.45 cells/s; the simulation's whole-picosecond cell time
        // (2,726,337 ps) gives 366,792.51.
        assert!((d.ports[0].cells_per_s - 155.52e6 / 424.0).abs() < 0.1);
        assert!(close(d.ports[0].cells_per_s, oc3));
        let s1 = &d.connections[0];
        assert_eq!(
            s1.route,
            ["src1->sw1", "sw1->sw2", "sw2->sw3", "sw3->sw4", "sw4->dst1"]
        );
        assert_eq!(s1.bottleneck, "sw2->sw3");
        assert!(close(s1.bottleneck_cells_per_s, oc3 / 2.0));
        // MSS 500: 500 + 40 + 8 = 548 B -> 12 cells (11.4 rounded up).
        assert_eq!(s1.segment_cells, Some(12));
        assert!(close(s1.max_goodput_bps, oc3 / 2.0 * 500.0 * 8.0 / 12.0));
        // Five 1 ms links each way.
        assert!(close(s1.rtt_propagation_s, 0.010));
        assert!(close(s1.bdp_cells, oc3 / 2.0 * 0.010));
        // s3 enters at sw3: every port is OC-3; sw3->sw4 is the one all three cross.
        assert_eq!(d.connections[2].bottleneck, "sw3->sw4");
        assert_eq!(d.ports[4].name, "sw3->sw4");
        assert_eq!(d.ports[4].port_buffer_cells, Some(2000));
    }

    #[test]
    fn cell_sources_have_rates_and_no_segments() {
        let spec = vbr_beside_tcp(1, true, SimTime::from_secs(1));
        let d = describe(&spec);
        let vbr = &d.connections[0];
        assert_eq!(
            (vbr.service, vbr.source, vbr.tcp_variant),
            ("vbr", "on_off", None)
        );
        assert_eq!(
            (vbr.congestion_control, vbr.ecn, vbr.hystart),
            (None, None, None)
        );
        assert_eq!(
            (vbr.mss_bytes, vbr.segment_cells, vbr.ack_cells),
            (None, None, None)
        );
        let peak = 0.8 * 155.52e6 / 424.0;
        assert!(close(vbr.peak_cells_per_s.unwrap(), peak));
        // ON 10 ms of every 20 ms.
        assert!(close(vbr.mean_cells_per_s.unwrap(), peak / 2.0));
        // A cell source's goodput counts 48 bytes per cell.
        assert!(close(
            vbr.max_goodput_bps,
            vbr.bottleneck_cells_per_s * 384.0
        ));
        // MSS 9140 (no LLC/SNAP): 9140 + 40 + 8 = 9188 B -> 192 cells (191.4 rounded up).
        assert_eq!(d.connections[1].segment_cells, Some(192));
    }

    #[test]
    fn llc_snap_and_a_larger_adaptation_overhead_count() {
        let mut spec = parking_lot(1, SimTime::from_secs(1));
        for n in &mut spec.nodes {
            if let NodeKind::Host(h) = &mut n.kind {
                h.llc_snap = true;
                h.aal_overhead_bytes = 14;
            }
        }
        let s1 = &describe(&spec).connections[0];
        // 500 + 40 + 8 (LLC/SNAP) + 14 = 562 B -> 12 cells; a bare ACK 62 B -> 2 cells.
        assert_eq!(
            (s1.header_bytes, s1.aal_overhead_bytes),
            (Some(48), Some(14))
        );
        assert_eq!((s1.segment_cells, s1.ack_cells), (Some(12), Some(2)));
    }
}
