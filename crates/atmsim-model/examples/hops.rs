//! Runs one of the bench networks and prints its cell-hops, events, wall time and fingerprint:
//! a short run to profile (`valgrind --tool=callgrind`, `--tool=cachegrind`).
//!
//! `cargo run --release --example hops -p atmsim-model -- parking|fang|fang-an2|abr|abr-lan SECONDS [N]`
//! (N: the parking lot's TCPs per group, 5 by default: 15 connections; `abr`: 15 TCPs over
//! ABR through one ERICA bottleneck, 1 ms links; `abr-lan`: the same with 1 km links). With `HOPS_BARE=1`
//! in the environment it runs the bare loop of `atmsim bench` on the same network instead.
use atmsim_engine::SimTime;
use atmsim_model::spec::{EricaConfig, RateControlConfig};
use atmsim_model::{topology, Network};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map_or("parking", String::as_str);
    let secs: f64 = args
        .get(2)
        .map_or(Ok(1.0), |s| s.parse())
        .expect("SECONDS: a number");
    let per_group: usize = args
        .get(3)
        .map_or(Ok(5), |s| s.parse())
        .expect("N: a count");
    let duration = SimTime::from_secs_f64(secs);
    let spec = match which {
        "parking" => topology::parking_lot(per_group, duration),
        "fang" => topology::fang_lan(6, None, 256, duration),
        "fang-an2" => topology::fang_lan(6, Some(5), 256, duration),
        "abr" | "abr-lan" => topology::n_source_vbr(
            15,
            if which == "abr" {
                SimTime::from_ms(1)
            } else {
                SimTime::from_us(5) // 1 km
            },
            None,
            RateControlConfig::Erica(EricaConfig::default()),
            duration,
        ),
        other => {
            eprintln!("unknown network {other:?}: parking, fang, fang-an2, abr or abr-lan");
            std::process::exit(2);
        }
    };
    if std::env::var_os("HOPS_BARE").is_some() {
        let r = atmsim_model::bench::bare_loop(&spec);
        println!(
            "{which} {secs} s bare loop: {} cell-hops, {} events, {:.3} s wall, {:.2} M cell-hops/s",
            r.cell_hops,
            r.events,
            r.wall_s,
            r.cell_hops as f64 / r.wall_s / 1e6
        );
        return;
    }
    let mut net = Network::new(&spec, which).expect("a built-in network");
    println!(
        "{}",
        atmsim_model::bench::timed_run(&mut net, &format!("{which} {secs} s"))
    );
}
