//! The resolved network of a scenario in numbers (`atmsim.describe`'s `network`): the model's
//! [`atmsim_model::describe::describe`] of the spec that runs, with each port's line rate as
//! the scenario writes it and its framing, which only the scenario knows.

use atmsim_model::describe::Description;
use atmsim_model::spec::NetworkSpec;

use crate::schema::{Framing, Scenario};

/// Describes the network `spec` that `scenario` resolved to (both from [`crate::load`]).
pub fn describe(scenario: &Scenario, spec: &NetworkSpec) -> Description {
    let mut d = atmsim_model::describe::describe(spec);
    for port in &mut d.ports {
        // Links keep the scenario's order in the spec.
        let Some(link) = scenario.link.get(port.link) else {
            continue;
        };
        if let Some(bps) = link.rate.and_then(|r| r.bits_per_second()) {
            port.line_rate_bps = bps;
        }
        port.framing = match link.framing {
            Framing::None => "none",
            Framing::Sonet => "sonet",
        };
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    fn described(links: &str) -> Description {
        let text = format!(
            r#"
name = "t"
[tcp]
mss = "512 B"
[hosts.h2]
llc_snap = true
[[switch]]
name = "S"
{links}
[[connection]]
name = "c"
from = "h1"
to = "h2"
via = ["S"]
"#
        );
        let (scenario, spec) = crate::load(&text, "t.toml", &[], None).unwrap();
        describe(&scenario, &spec)
    }

    #[test]
    fn an_oc3_sonet_link_carries_149_76_mb_s_of_cells() {
        let d = described(
            r#"
[[link]]
between = ["h1", "S"]
rate = "155.52 Mb/s"
framing = "sonet"
delay = "5 ms"
[[link]]
between = ["S", "h2"]
rate = "155.52 Mb/s"
"#,
        );
        let sonet = &d.ports[0];
        assert_eq!((sonet.name.as_str(), sonet.framing), ("h1->S", "sonet"));
        assert_eq!(sonet.line_rate_bps, 155.52e6);
        // 26/27 of 155.52 Mb/s = 149.76 Mb/s = 353,207.547 cells/s of 424 bits; the
        // simulation's cell time is 424 / 149.76e6 s = 2,831,196.58 ps, rounded to 2,831,197.
        assert_eq!(sonet.cell_time_s, 2_831_197e-12);
        assert!((sonet.cells_per_s - 149.76e6 / 424.0).abs() < 0.1);
        assert!((sonet.cells_per_s - 353_207.5).abs() < 0.1);
        assert_eq!(sonet.cells_per_s, 1e12 / 2_831_197.0);
        assert_eq!(sonet.payload_bps, sonet.cells_per_s * 384.0);
        assert_eq!(sonet.delay_s, 0.005);
        // Without framing every bit carries cells: 366,792.45 cells/s (2,726,337 ps).
        let plain = &d.ports[2];
        assert_eq!((plain.name.as_str(), plain.framing), ("S->h2", "none"));
        assert_eq!(plain.line_rate_bps, 155.52e6);
        assert_eq!(plain.cells_per_s, 1e12 / 2_726_337.0);
        // The connection's bottleneck is the SONET link; its round trip 2 x 5 ms.
        let c = &d.connections[0];
        assert_eq!(c.bottleneck, "h1->S");
        assert_eq!(c.rtt_propagation_s, 0.010);
        // MSS 512 over AAL5 from h1 (no LLC/SNAP): 512 + 40 TCP/IP + 8 trailer = 560 B, 11.7
        // cell payloads -> 12 cells; h2's bare ACK with LLC/SNAP: 40 + 8 + 8 = 56 B -> 2 cells.
        assert_eq!(c.mss_bytes, Some(512));
        assert_eq!((c.header_bytes, c.aal_overhead_bytes), (Some(40), Some(8)));
        assert_eq!((c.segment_cells, c.ack_cells), (Some(12), Some(2)));
        // 353,207.5 cells/s in 12-cell segments of 512 B: 120.56 Mb/s of goodput at most.
        assert_eq!(c.max_goodput_bps, sonet.cells_per_s * 512.0 * 8.0 / 12.0);
        assert!((c.max_goodput_bps - 120.5615e6).abs() < 100.0);
        // 353,207.5 cells/s x 10 ms.
        assert!((c.bdp_cells - 3532.075).abs() < 1e-3);
    }

    #[test]
    fn a_link_given_by_its_cell_time_or_cell_rate_has_the_line_rate_of_its_cells() {
        let d = described(
            r#"
[[link]]
between = ["h1", "S"]
cell_time = "2.75 us"
[[link]]
between = ["S", "h2"]
rate = "100000 cells/s"
"#,
        );
        assert_eq!(d.ports[0].line_rate_bps, 424.0 / 2.75e-6);
        assert_eq!(d.ports[0].framing, "none");
        assert_eq!(d.ports[2].cells_per_s, 100_000.0);
        assert_eq!(d.ports[2].line_rate_bps, 42_400_000.0);
        assert_eq!(d.connections[0].bottleneck, "S->h2");
    }
}
