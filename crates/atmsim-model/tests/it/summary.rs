//! The summary's JSON text: written list by list, the bytes of its whole value tree.

use atmsim_engine::SimTime;
use atmsim_model::spec::{EricaConfig, RateControlConfig};
use atmsim_model::{topology, Network};

/// On a UBR LAN with losses, the parking lot and ABR under ERICA with VBR (each with
/// connections, ports, nulls and counters by reason), `into_sorted_json` gives the text of
/// `to_string(to_value(summary))`, and a summary without connections or ports as well.
#[test]
fn the_summary_written_list_by_list_is_the_value_trees_text() {
    let ms = SimTime::from_ms;
    let specs = [
        topology::fang_lan(6, None, 64, ms(300)),
        topology::parking_lot(2, ms(200)),
        topology::n_source_vbr(
            5,
            ms(1),
            None,
            RateControlConfig::Erica(EricaConfig::default()),
            ms(200),
        ),
    ];
    for spec in &specs {
        let mut net = Network::new(spec, "summary").unwrap();
        net.run();
        let mut summary = net.into_report().summary;
        summary.wall_s = 0.123_456_789;
        assert!(!summary.connections.is_empty() && !summary.ports.is_empty());
        let tree = serde_json::to_string(&serde_json::to_value(&summary).unwrap()).unwrap();
        assert_eq!(summary.clone().into_sorted_json().unwrap(), tree);
        summary.connections.clear();
        summary.ports.clear();
        let tree = serde_json::to_string(&serde_json::to_value(&summary).unwrap()).unwrap();
        assert_eq!(summary.into_sorted_json().unwrap(), tree);
    }
}
