use crate::fang::fang_lan;
use atmsim_model::Network;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// sent = delivered + dropped + in flight, at any stopping time, with or without credits.
    #[test]
    fn cells_are_conserved(n in 1usize..5, buffer in 32u32..400, stop_us in 1_000u64..40_000, credits in proptest::option::of(1u32..8), seed in 0u64..1000) {
        let mut spec = fang_lan(n, credits, buffer.max(credits.unwrap_or(0)), 100);
        spec.run.seed = seed;
        let mut net = Network::new(&spec, "prop").unwrap();
        net.run_until(atmsim_engine::SimTime::from_us(stop_us));
        let (sent, delivered, dropped, in_flight) = net.cell_balance();
        prop_assert_eq!(sent, delivered + dropped + in_flight);
        if credits.is_some() {
            prop_assert_eq!(dropped, 0, "no cell is ever lost under credits");
        }
    }

    /// The report's counts balance from the warm-up, in total and per connection
    /// ([`crate::balance::report_balances`]), whether the run stops before, at or after the
    /// warm-up ends.
    #[test]
    fn the_reports_cell_counts_balance_from_the_warm_up(n in 1usize..5, buffer in 32u32..400, warmup_us in 0u64..30_000, stop_us in 1_000u64..40_000, credits in proptest::option::of(1u32..8), seed in 0u64..1000) {
        let mut spec = fang_lan(n, credits, buffer.max(credits.unwrap_or(0)), 100);
        spec.run.seed = seed;
        spec.run.warmup = atmsim_engine::SimTime::from_us(warmup_us);
        let mut net = Network::new(&spec, "prop").unwrap();
        net.run_until(atmsim_engine::SimTime::from_us(stop_us));
        let s = net.report().summary;
        crate::balance::report_balances(&s);
        if stop_us < warmup_us {
            prop_assert_eq!(s.totals.cells_sent, 0);
        }
    }

    /// Goodput never exceeds what the receivers took in after the warm-up: data held behind a
    /// hole when the warm-up ended had arrived before it, and is not counted again when the
    /// hole fills (per connection and in total).
    #[test]
    fn goodput_is_at_most_what_arrived_after_the_warm_up(n in 2usize..7, buffer in 100u32..600, warmup_us in 0u64..300_000, stop_us in 100_000u64..600_000, seed in 0u64..1000) {
        let mut spec = fang_lan(n, None, buffer, 600);
        spec.run.seed = seed;
        spec.run.warmup = atmsim_engine::SimTime::from_us(warmup_us);
        let mut net = Network::new(&spec, "prop").unwrap();
        net.run_until(atmsim_engine::SimTime::from_us(stop_us));
        let s = net.report().summary;
        for c in &s.connections {
            prop_assert!(c.goodput_mbps <= c.throughput_mbps * (1.0 + 1e-12), "{}: goodput {} > throughput {}", c.name, c.goodput_mbps, c.throughput_mbps);
        }
        prop_assert!(s.totals.goodput_mbps <= s.totals.throughput_mbps * (1.0 + 1e-12));
    }
}
