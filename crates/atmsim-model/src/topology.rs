//! Builders for the papers' networks as [`NetworkSpec`]s, for tests and benchmarks of the
//! model without the scenario layer. The TOML built-ins are the user-facing versions.

use crate::spec::*;
use atmsim_engine::SimTime;

/// 155.52 Mb/s: 424 bits / 155.52e6 b/s = 2.726337 us per cell, to the nearest picosecond.
pub const OC3_CELL_TIME: SimTime = SimTime(2_726_337);

/// BSD-4.3-like Tahoe with an exact timer, as in Fang et al. 1994.
pub fn fang_tcp(mss: u32) -> TcpSpec {
    TcpSpec {
        variant: TcpVariant::Tahoe,
        mss_bytes: mss,
        max_window_bytes: 65_536,
        timer_granularity: SimTime::ZERO,
        min_rto: SimTime::from_ms(1),
        max_rto: SimTime::from_secs(64),
        initial_rto: SimTime::from_secs(1),
        delayed_ack: None,
        ack_every: 2,
        dupack_threshold: 3,
        initial_cwnd_segments: 1,
    }
}

/// Fang, Chen & Hutchins 1994, Fig. 2 and Table 1: `n` hosts h1..hn -> switch A -> switch B
/// -> r1..rn, one greedy TCP per pair. `credits` turns AN2 flow control on for every link.
///
/// ```text
///   h1 ─┐                 ┌─ r1
///   ... ├── A ═══════ B ──┤ ...
///   hn ─┘  (bottleneck)   └─ rn
/// ```
pub fn fang_lan(n: usize, credits: Option<u32>, vc_buffer: u32, duration: SimTime) -> NetworkSpec {
    let host = HostSpec {
        processing_delay: SimTime::from_us(300),
        sar_delay_per_cell: SimTime::from_ns(200),
        llc_snap: false,
        ip_service_time: SimTime::ZERO,
    };
    let switch = SwitchSpec {
        switching_delay: SimTime::from_us(4),
        queueing: Queueing::PerVc,
        vc_buffer_cells: Some(vc_buffer),
        port_buffer_cells: None,
        policy: PolicySpec::CellDrop,
    };
    let mut nodes = vec![
        NodeSpec {
            name: "A".into(),
            kind: NodeKind::Switch(switch.clone()),
        },
        NodeSpec {
            name: "B".into(),
            kind: NodeKind::Switch(switch),
        },
    ];
    let link = |a, b| LinkSpec {
        a,
        b,
        cell_time: SimTime::from_ns(2750),
        delay: SimTime::from_ns(500),
        credits,
    };
    let mut links = vec![link(0, 1)];
    let mut connections = Vec::new();
    for i in 0..n {
        let h = nodes.len();
        nodes.push(NodeSpec {
            name: format!("h{}", i + 1),
            kind: NodeKind::Host(host.clone()),
        });
        nodes.push(NodeSpec {
            name: format!("r{}", i + 1),
            kind: NodeKind::Host(host.clone()),
        });
        links.push(link(h, 0));
        links.push(link(1, h + 1));
        connections.push(ConnectionSpec {
            name: format!("s{}", i + 1),
            path: vec![h, 0, 1, h + 1],
            tcp: fang_tcp(8192),
            app: AppSpec::Greedy,
            start: SimTime::ZERO,
            start_jitter: SimTime::from_ms(1),
        });
    }
    NetworkSpec {
        run: RunSpec {
            duration,
            warmup: SimTime(duration.0 / 5),
            seed: 1,
            sample_every: SimTime::from_ms(10),
        },
        nodes,
        links,
        connections,
    }
}

/// A parking lot: switches sw1..sw4 in a chain; `per_group` greedy Reno TCPs enter at each
/// of sw1, sw2, sw3 and all leave at sw4, so every connection crosses sw3->sw4. OC-3 links
/// with 1 ms propagation, FIFO output buffers of 2000 cells with cell drop (the Cheon & Panwar
/// network of REPRODUCTION.md section 2, before its discard policies).
pub fn parking_lot(per_group: usize, duration: SimTime) -> NetworkSpec {
    let switch = SwitchSpec {
        switching_delay: SimTime::ZERO,
        queueing: Queueing::Fifo,
        vc_buffer_cells: None,
        port_buffer_cells: Some(2000),
        policy: PolicySpec::CellDrop,
    };
    let host = HostSpec {
        processing_delay: SimTime::ZERO,
        sar_delay_per_cell: SimTime::ZERO,
        llc_snap: false,
        ip_service_time: SimTime::ZERO,
    };
    let tcp = TcpSpec {
        variant: TcpVariant::Reno,
        mss_bytes: 500,
        max_window_bytes: 65_536,
        timer_granularity: SimTime::ZERO,
        min_rto: SimTime::from_ms(50),
        max_rto: SimTime::from_secs(64),
        initial_rto: SimTime::from_secs(1),
        delayed_ack: Some(SimTime::from_us(12_500)),
        ack_every: 2,
        dupack_threshold: 3,
        initial_cwnd_segments: 1,
    };
    let mut nodes: Vec<NodeSpec> = (1..=4)
        .map(|i| NodeSpec {
            name: format!("sw{i}"),
            kind: NodeKind::Switch(switch.clone()),
        })
        .collect();
    let link = |a, b| LinkSpec {
        a,
        b,
        cell_time: OC3_CELL_TIME,
        delay: SimTime::from_ms(1),
        credits: None,
    };
    let mut links = vec![link(0, 1), link(1, 2), link(2, 3)];
    let mut connections = Vec::new();
    for g in 0..3 {
        for k in 0..per_group {
            let i = g * per_group + k + 1;
            let src = nodes.len();
            nodes.push(NodeSpec {
                name: format!("src{i}"),
                kind: NodeKind::Host(host.clone()),
            });
            nodes.push(NodeSpec {
                name: format!("dst{i}"),
                kind: NodeKind::Host(host.clone()),
            });
            links.push(link(src, g));
            links.push(link(3, src + 1));
            let mut path = vec![src];
            path.extend(g..4);
            path.push(src + 1);
            connections.push(ConnectionSpec {
                name: format!("s{i}"),
                path,
                tcp: tcp.clone(),
                app: AppSpec::Greedy,
                start: SimTime::ZERO,
                start_jitter: SimTime::from_ms(10),
            });
        }
    }
    NetworkSpec {
        run: RunSpec {
            duration,
            warmup: SimTime(duration.0 / 6),
            seed: 1,
            sample_every: SimTime::ZERO,
        },
        nodes,
        links,
        connections,
    }
}
