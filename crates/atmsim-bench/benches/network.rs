//! Whole-network throughput of the simulator: cell-hops and events per wall second.
use atmsim_engine::SimTime;
use atmsim_model::{topology, Network};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("network");
    g.sample_size(10);
    let cases = [
        (
            "fang1994-cell-drop-1s",
            topology::fang_lan(6, None, 256, SimTime::from_secs(1)),
        ),
        (
            "fang1994-an2-1s",
            topology::fang_lan(6, Some(5), 256, SimTime::from_secs(1)),
        ),
        (
            "parking-lot-15-0.5s",
            topology::parking_lot(5, SimTime::from_ms(500)),
        ),
    ];
    for (name, spec) in cases {
        let mut probe = Network::new(&spec, name).unwrap();
        probe.run();
        g.throughput(Throughput::Elements(probe.cell_hops()));
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut net = Network::new(&spec, name).unwrap();
                net.run();
                net.cell_hops()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
