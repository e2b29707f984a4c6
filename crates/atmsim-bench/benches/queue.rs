//! Event-queue microbenchmark: schedule/pop at a steady population, as in a running network.
use atmsim_engine::{EventQueue, SimTime};
use criterion::{criterion_group, criterion_main, Criterion};

fn steady_state(c: &mut Criterion) {
    c.bench_function("queue_hold_256", |b| {
        let mut q = EventQueue::new();
        for i in 0..256u64 {
            q.schedule(SimTime(i * 997 % 4096), i as u32);
        }
        let mut x = 12345u64;
        b.iter(|| {
            let (t, e) = q.pop().unwrap();
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            q.schedule(t + SimTime(1 + (x >> 52)), e);
        })
    });
}

criterion_group!(benches, steady_state);
criterion_main!(benches);
