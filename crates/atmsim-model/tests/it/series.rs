//! Time series of a whole network: streamed to a file or kept in memory, the same values.

use atmsim_engine::SimTime;
use atmsim_model::spec::SampleSelection;
use atmsim_model::{topology, Network};

/// A run that streams its series holds in its file, to the bit, the values and times of the
/// same run kept in memory; a copy taken before the run ends names the file as incomplete,
/// and so does the file itself.
#[test]
fn a_streamed_series_is_the_series_kept_in_memory() {
    let spec = topology::fang_lan(3, None, 256, SimTime::from_ms(300));
    let mut mem = Network::new(&spec, "mem").unwrap();
    mem.run();
    let tmp = tempfile::Builder::new()
        .prefix("atmsim-it-series-")
        .tempdir()
        .unwrap();
    let path = tmp.path().join("fang.series");
    let mut disk = Network::new(&spec, "disk").unwrap();
    disk.spill_series(&path).unwrap();
    disk.run_until(SimTime::from_ms(100));
    let early = disk.report().series.file.unwrap();
    assert!(!early.complete);
    let head = std::fs::read(&path).unwrap();
    assert_eq!(&head[..8], b"ATMSERS1");
    assert_eq!(head[12..16], 0u32.to_le_bytes(), "state: being written");
    disk.run();
    assert_eq!(mem.fingerprint(), disk.fingerprint());
    let (mem, disk) = (mem.into_report().series, disk.into_report().series);
    let file = disk.file.unwrap();
    assert!(file.complete && file.error.is_none(), "{file:?}");
    assert_eq!(file.rows as usize, mem.time_s.len());
    let b = std::fs::read(&path).unwrap();
    assert_eq!(b[12..16], 1u32.to_le_bytes(), "state: complete");
    let n = mem.values.len();
    let floats: Vec<u64> = b[64..]
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(floats.len(), n + mem.time_s.len());
    assert_eq!(floats[..n], bits(&mem.values)[..]);
    assert_eq!(floats[n..], bits(&mem.time_s)[..]);
    std::fs::remove_file(&path).unwrap();
}

/// Without the host ports only the ports between switches are sampled, with the values they
/// have when every port is.
#[test]
fn host_ports_are_left_out_when_not_wanted() {
    let mut spec = topology::fang_lan(2, None, 256, SimTime::from_ms(100));
    let every = {
        let mut net = Network::new(&spec, "all").unwrap();
        net.run();
        net.into_report().series
    };
    spec.run.sample = SampleSelection {
        host_ports: false,
        ..SampleSelection::all()
    };
    let mut net = Network::new(&spec, "switches").unwrap();
    net.run();
    let some = net.into_report().series;
    let ports: Vec<_> = some
        .columns
        .iter()
        .filter(|c| c.kind == "port")
        .map(|c| c.entity.as_str())
        .collect();
    assert_eq!(
        ports,
        ["A->B"; 5]
            .into_iter()
            .chain(["B->A"; 5])
            .collect::<Vec<_>>()
    );
    for (k, c) in some.columns.iter().enumerate() {
        let j = every
            .columns
            .iter()
            .position(|e| (e.kind, &e.entity, e.metric) == (c.kind, &c.entity, c.metric))
            .unwrap();
        let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
        assert_eq!(bits(some.column(k)), bits(every.column(j)), "{c:?}");
    }
}
