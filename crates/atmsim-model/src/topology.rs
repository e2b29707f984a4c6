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
        ack_clock: AckClock::PerSegment,
        dupack_threshold: 3,
        recover_guard: true,
        initial_cwnd_segments: 1,
        cwnd_growth: CwndGrowth::PerAck,
        initial_ssthresh_bytes: 65_536,
        keep_out_of_order: true,
        sack_blocks: 4,
        drop_at_cwnd: None,
        drop_count: 1,
        delay_duplicate_acks: false,
        fast_recovery_inflation: true,
        rto_restart: RtoRestart::NewAck,
        congestion_control: Default::default(),
        ecn: false,
        hystart: false,
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
        processing_jitter: SimTime::ZERO,
        sar_delay_per_cell: SimTime::from_ns(200),
        llc_snap: false,
        aal_overhead_bytes: 8,
        ip_service_time: SimTime::ZERO,
        ip_both_directions: false,
        processing_exponential: false,
        ip_service: IpService::Constant,
    };
    let switch = SwitchSpec {
        switching_delay: SimTime::from_us(4),
        port: PortSpec {
            scheduler: SchedulerSpec::Single(Discipline::RoundRobin),
            vc_buffer_cells: Some(vc_buffer),
            port_buffer_cells: None,
            policy: PolicyConfig::default(),
            rate_control: RateControlConfig::default(),
            efci_threshold: None,
        },
        ports: Vec::new(),
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
        flow_control: credits.map_or(FlowControl::None, FlowControl::Credits),
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
            start_jitter: SimTime::from_ms(1),
            ..ConnectionSpec::greedy_tcp(
                &format!("s{}", i + 1),
                vec![h, 0, 1, h + 1],
                fang_tcp(8192),
            )
        });
    }
    NetworkSpec {
        run: RunSpec {
            duration,
            warmup: SimTime(duration.0 / 5),
            seed: 1,
            sample_every: SimTime::from_ms(10),
            sample: Default::default(),
        },
        nodes,
        links,
        connections,
        merges: Vec::new(),
    }
}

/// A parking lot: switches sw1..sw4 in a chain; `per_group` greedy Reno TCPs enter at each
/// of sw1, sw2, sw3 and all leave at sw4, so every connection crosses sw3->sw4. OC-3 links
/// with 1 ms propagation, FIFO output buffers of 2000 cells with cell drop (the Cheon & Panwar
/// network of Cheon & Panwar 1998, before its discard policies).
pub fn parking_lot(per_group: usize, duration: SimTime) -> NetworkSpec {
    let switch = SwitchSpec {
        switching_delay: SimTime::ZERO,
        port: PortSpec {
            scheduler: SchedulerSpec::Single(Discipline::Fifo),
            vc_buffer_cells: None,
            port_buffer_cells: Some(2000),
            policy: PolicyConfig::default(),
            rate_control: RateControlConfig::default(),
            efci_threshold: None,
        },
        ports: Vec::new(),
    };
    let host = HostSpec {
        processing_delay: SimTime::ZERO,
        processing_jitter: SimTime::ZERO,
        sar_delay_per_cell: SimTime::ZERO,
        llc_snap: false,
        aal_overhead_bytes: 8,
        ip_service_time: SimTime::ZERO,
        ip_both_directions: false,
        processing_exponential: false,
        ip_service: IpService::Constant,
    };
    let tcp = TcpSpec {
        variant: TcpVariant::Reno,
        min_rto: SimTime::from_ms(50),
        delayed_ack: Some(SimTime::from_us(12_500)),
        ..fang_tcp(500)
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
        flow_control: FlowControl::None,
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
                start_jitter: SimTime::from_ms(10),
                ..ConnectionSpec::greedy_tcp(&format!("s{i}"), path, tcp.clone())
            });
        }
    }
    NetworkSpec {
        run: RunSpec {
            duration,
            warmup: SimTime(duration.0 / 6),
            seed: 1,
            sample_every: SimTime::ZERO,
            sample: Default::default(),
        },
        nodes,
        links,
        connections,
        merges: Vec::new(),
    }
}

/// `n` greedy UBR Reno TCPs and one VBR ON-OFF source (124.416 Mb/s, 80% of the OC-3
/// bottleneck, ON half of every 20 ms from 2 ms) through switches A and B; every port
/// serves the classes by strict priority when `priority`, else one FIFO for all cells.
/// Ports hold 2,000 cells (per class under priority) with EPD at 90%. The TOML built-in
/// `vbr-priority-5tcp` is this network with `n = 5`.
///
/// ```text
///   tcp1..n --+                 +-- sink1..n
///   vbr ------+-- A ======= B --+-- vbrsink
/// ```
pub fn vbr_beside_tcp(n: usize, priority: bool, duration: SimTime) -> NetworkSpec {
    let scheduler = if priority {
        SchedulerSpec::Priority([Discipline::Fifo; 3])
    } else {
        SchedulerSpec::Single(Discipline::Fifo)
    };
    let switch = SwitchSpec {
        switching_delay: SimTime::ZERO,
        port: PortSpec {
            scheduler,
            vc_buffer_cells: None,
            port_buffer_cells: Some(2000),
            policy: PolicyConfig::Epd(crate::port::policy::EpdConfig {
                threshold: 0.9,
                compare: Default::default(),
            }),
            rate_control: RateControlConfig::default(),
            efci_threshold: None,
        },
        ports: Vec::new(),
    };
    let host = HostSpec {
        processing_delay: SimTime::ZERO,
        processing_jitter: SimTime::ZERO,
        sar_delay_per_cell: SimTime::ZERO,
        llc_snap: false,
        aal_overhead_bytes: 8,
        ip_service_time: SimTime::ZERO,
        ip_both_directions: false,
        processing_exponential: false,
        ip_service: IpService::Constant,
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
    let link = |a, b, delay| LinkSpec {
        a,
        b,
        cell_time: OC3_CELL_TIME,
        delay,
        flow_control: FlowControl::None,
    };
    let mut links = vec![link(0, 1, SimTime::from_ms(1))];
    let mut connections = Vec::new();
    let mut add_pair = |nodes: &mut Vec<NodeSpec>, src: String, dst: String| {
        let s = nodes.len();
        for name in [src, dst] {
            nodes.push(NodeSpec {
                name,
                kind: NodeKind::Host(host.clone()),
            });
        }
        links.push(link(s, 0, SimTime::from_us(10)));
        links.push(link(1, s + 1, SimTime::from_us(10)));
        vec![s, 0, 1, s + 1]
    };
    // 124.416 Mb/s = 293,433.96... cells/s: 80% of 155.52 Mb/s.
    let vbr_rate = 0.8 * 155.52e6 / 424.0;
    let path = add_pair(&mut nodes, "vbr".into(), "vbrsink".into());
    connections.push(ConnectionSpec {
        name: "vbr".into(),
        path,
        service: ServiceCategory::Vbr,
        descriptor: TrafficDescriptor {
            pcr: Some(vbr_rate),
            ..Default::default()
        },
        source: SourceSpec::OnOff {
            rate: vbr_rate,
            period: SimTime::from_ms(20),
            on: SimTime::from_ms(10),
            durations: OnOffDurations::Fixed,
        },
        start: SimTime::from_ms(2),
        start_jitter: SimTime::ZERO,
        abr: None,
        share: VcShare::default(),
        tagged: false,
    });
    let tcp = TcpSpec {
        variant: TcpVariant::Reno,
        min_rto: SimTime::from_ms(200),
        ..fang_tcp(9140)
    };
    for i in 1..=n {
        let path = add_pair(&mut nodes, format!("tcp{i}"), format!("sink{i}"));
        connections.push(ConnectionSpec {
            start_jitter: SimTime::from_ms(10),
            ..ConnectionSpec::greedy_tcp(&format!("s{i}"), path, tcp.clone())
        });
    }
    NetworkSpec {
        run: RunSpec {
            duration,
            warmup: SimTime(duration.0 / 4),
            seed: 1,
            sample_every: SimTime::ZERO,
            sample: Default::default(),
        },
        nodes,
        links,
        connections,
        merges: Vec::new(),
    }
}

/// 155.52 Mb/s in cells per second, as Kalyanaraman et al. count it (366,792 cells/s).
pub const OC3_CELLS_PER_S: f64 = 155.52e6 / 424.0;

/// The TCP of Kalyanaraman et al. 1996 (ATM Forum 96-1294): MSS 512 B, a 1024 KB window
/// (window scaling), no fast retransmit, a 100 ms timer tick.
pub fn kalyanaraman_tcp() -> TcpSpec {
    TcpSpec {
        variant: TcpVariant::Reno,
        mss_bytes: 512,
        max_window_bytes: 1024 * 1024,
        timer_granularity: SimTime::from_ms(100),
        min_rto: SimTime::from_ms(200),
        max_rto: SimTime::from_secs(64),
        initial_rto: SimTime::from_secs(1),
        delayed_ack: None,
        ack_every: 1,
        ack_clock: AckClock::PerSegment,
        dupack_threshold: 0,
        recover_guard: true,
        initial_cwnd_segments: 1,
        cwnd_growth: CwndGrowth::PerAck,
        initial_ssthresh_bytes: 1024 * 1024,
        keep_out_of_order: true,
        sack_blocks: 4,
        drop_at_cwnd: None,
        drop_count: 1,
        delay_duplicate_acks: false,
        fast_recovery_inflation: true,
        rto_restart: RtoRestart::NewAck,
        congestion_control: Default::default(),
        ecn: false,
        hystart: false,
    }
}

/// Kalyanaraman et al. 1996's "N source + VBR" network: `n` ABR sources src1..srcn -> switch
/// A -> switch B -> dst1..dstn, every link 155.52 Mb/s and `link_delay` long (1000 km = 5 ms:
/// a 30 ms round trip, 10 ms of feedback delay to the bottleneck A->B); optionally an ON-OFF
/// VBR source with duty cycle `d` and period `p` at 80% of the link, starting at 2 ms, with
/// strict priority over ABR. Each ABR connection is a greedy TCP over ABR (TM 4.0 defaults,
/// PCR = the link rate); every switch port runs `rate_control` and has an unlimited buffer.
///
/// ```text
///   src1..n --+                    +-- dst1..n
///   vbr ------+-- A ========== B --+-- vbrsink
/// ```
pub fn n_source_vbr(
    n: usize,
    link_delay: SimTime,
    vbr: Option<(f64, SimTime)>,
    rate_control: RateControlConfig,
    duration: SimTime,
) -> NetworkSpec {
    let switch = SwitchSpec {
        switching_delay: SimTime::ZERO,
        port: PortSpec {
            scheduler: SchedulerSpec::Priority([Discipline::Fifo; 3]),
            vc_buffer_cells: None,
            port_buffer_cells: None,
            policy: PolicyConfig::default(),
            rate_control,
            efci_threshold: None,
        },
        ports: Vec::new(),
    };
    let host = HostSpec {
        processing_delay: SimTime::ZERO,
        processing_jitter: SimTime::ZERO,
        sar_delay_per_cell: SimTime::ZERO,
        llc_snap: true,
        aal_overhead_bytes: 8,
        ip_service_time: SimTime::ZERO,
        ip_both_directions: false,
        processing_exponential: false,
        ip_service: IpService::Constant,
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
        cell_time: OC3_CELL_TIME,
        delay: link_delay,
        flow_control: FlowControl::None,
    };
    let mut links = vec![link(0, 1)];
    let mut connections = Vec::new();
    let mut pair = |nodes: &mut Vec<NodeSpec>, src: String, dst: String| {
        let s = nodes.len();
        for name in [src, dst] {
            nodes.push(NodeSpec {
                name,
                kind: NodeKind::Host(host.clone()),
            });
        }
        links.push(link(s, 0));
        links.push(link(1, s + 1));
        vec![s, 0, 1, s + 1]
    };
    if let Some((d, p)) = vbr {
        let rate = 0.8 * OC3_CELLS_PER_S;
        let path = pair(&mut nodes, "vbr".into(), "vbrsink".into());
        connections.push(ConnectionSpec {
            name: "vbr".into(),
            path,
            service: ServiceCategory::Vbr,
            descriptor: TrafficDescriptor {
                pcr: Some(rate),
                ..Default::default()
            },
            source: SourceSpec::OnOff {
                rate,
                period: p,
                on: SimTime((p.0 as f64 * d).round() as u64),
                durations: OnOffDurations::Fixed,
            },
            start: SimTime::from_ms(2),
            start_jitter: SimTime::ZERO,
            abr: None,
            share: VcShare::default(),
            tagged: false,
        });
    }
    let abr = AbrSpec {
        // FRTT: each connection's path round trip, set by `with_path_frtt` below.
        params: AbrParams::tm4(OC3_CELLS_PER_S, SimTime::ZERO),
        source_buffer: None,
        drop_frames: false,
        ci_any_since_rm: false,
        access_cell_time: None,
    };
    for i in 1..=n {
        let path = pair(&mut nodes, format!("src{i}"), format!("dst{i}"));
        connections.push(ConnectionSpec {
            service: ServiceCategory::Abr,
            descriptor: TrafficDescriptor {
                pcr: Some(OC3_CELLS_PER_S),
                ..Default::default()
            },
            abr: Some(abr),
            ..ConnectionSpec::greedy_tcp(&format!("s{i}"), path, kalyanaraman_tcp())
        });
    }
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

/// `spec` with each ABR connection's FRTT set to its path's round trip, as the scenario
/// layer resolves `frtt = "path"` (a hand-built spec carries a real FRTT, as every spec does).
pub fn with_path_frtt(mut spec: NetworkSpec) -> NetworkSpec {
    for c in &mut spec.connections {
        if let Some(a) = &mut c.abr {
            a.params.frtt = round_trip(&spec.nodes, &spec.links, &c.path);
        }
    }
    spec
}
