//! Traces read nothing but the network and schedule nothing: a traced run is the same run.

use atmsim_engine::SimTime;
use atmsim_model::topology::fang_lan;
use atmsim_model::trace::{CellTraceConfig, TraceConfig};
use atmsim_model::Network;

#[test]
fn a_traced_run_is_the_same_run_and_its_files_hold_packets() {
    let spec = fang_lan(3, None, 256, SimTime::from_ms(200));
    let mut plain = Network::new(&spec, "t").unwrap();
    plain.run();
    let dir = std::env::temp_dir().join(format!("atmsim-trace-it-{}", std::process::id()));
    let cfg = TraceConfig {
        pcap_dir: Some(dir.clone()),
        links: vec!["A->B".into()],
        cells: Some(CellTraceConfig {
            connections: None,
            ports: None,
            max_rows: 1_000,
        }),
        ..TraceConfig::default()
    };
    let mut traced = Network::new(&spec, "t").unwrap();
    traced.attach_trace(&spec, &cfg, "t").unwrap();
    traced.run();
    let out = traced.finish_trace().unwrap().expect("attached");
    assert_eq!(plain.fingerprint(), traced.fingerprint());
    assert_eq!(plain.events(), traced.events());
    // Three senders, three receivers, one link.
    assert_eq!(out.pcap_files.len(), 7);
    for (path, packets) in &out.pcap_files {
        assert!(
            *packets > 2,
            "{} holds more than the handshake",
            path.display()
        );
        assert!(std::fs::metadata(path).unwrap().len() > 100);
    }
    let cells = out.cells.expect("recorded");
    assert_eq!(cells.len(), 1_000, "bounded");
    assert!(out.cells_truncated_at.is_some() && out.cells_not_recorded > 0);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn unknown_names_are_refused_with_the_allowed_ones() {
    let spec = fang_lan(2, None, 256, SimTime::from_ms(10));
    let mut net = Network::new(&spec, "t").unwrap();
    let cfg = TraceConfig {
        cells: Some(CellTraceConfig {
            connections: None,
            ports: Some(vec!["A->Q".into()]),
            max_rows: 10,
        }),
        ..TraceConfig::default()
    };
    let e = net.attach_trace(&spec, &cfg, "t").unwrap_err();
    assert!(e.contains("\"A->Q\"") && e.contains("A->B"), "{e}");
}

#[test]
fn cell_rows_can_be_drained_as_the_run_goes() {
    let spec = fang_lan(2, None, 256, SimTime::from_ms(40));
    let cfg = TraceConfig {
        cells: Some(CellTraceConfig {
            connections: None,
            ports: None,
            max_rows: u64::MAX,
        }),
        ..TraceConfig::default()
    };
    let mut whole = Network::new(&spec, "t").unwrap();
    whole.attach_trace(&spec, &cfg, "t").unwrap();
    whole.run();
    let all = whole.finish_trace().unwrap().unwrap().cells.unwrap();
    let mut times = Vec::new();
    let mut stepped = Network::new(&spec, "t").unwrap();
    stepped.attach_trace(&spec, &cfg, "t").unwrap();
    for ms in [10, 20, 30, 40] {
        stepped.run_until(SimTime::from_ms(ms));
        times.extend(stepped.drain_cell_trace().unwrap().time_ps);
    }
    let rest = stepped.finish_trace().unwrap().unwrap().cells.unwrap();
    times.extend(rest.time_ps);
    assert!(!all.is_empty());
    assert_eq!(times, all.time_ps);
}
