//! The report's cell accounting, checked the same way wherever a test runs a network.

use atmsim_model::Summary;

/// The report's counts start at the end of the warm-up: what was inside the network then
/// closes the balance (sent + in flight at warm-up = delivered + dropped + in flight), in
/// total and per connection; the connections' cells inside the network (from their counters)
/// add up to those the network holds (counted in its queues, links and ABR sources); and a
/// loss ratio, taken over every cell the span could lose, is at most 100%.
pub fn report_balances(s: &Summary) {
    let t = &s.totals;
    assert_eq!(
        t.cells_sent + t.cells_in_flight_at_warmup,
        t.cells_delivered + t.cells_dropped + t.cells_in_flight,
        "the report's cell counts balance from the warm-up"
    );
    for c in &s.connections {
        assert_eq!(
            c.cells_sent + c.cells_in_flight_at_warmup,
            c.cells_delivered + c.cells_dropped + c.cells_in_flight,
            "{}: its cell counts balance from the warm-up",
            c.name
        );
        assert!(c.cell_loss_pct <= 100.0, "{}: {}%", c.name, c.cell_loss_pct);
    }
    let at_warmup: u64 = s
        .connections
        .iter()
        .map(|c| c.cells_in_flight_at_warmup)
        .sum();
    let at_end: u64 = s.connections.iter().map(|c| c.cells_in_flight).sum();
    assert_eq!(
        at_warmup, t.cells_in_flight_at_warmup,
        "in flight at warm-up"
    );
    assert_eq!(at_end, t.cells_in_flight, "in flight at the end");
    assert!(t.cell_loss_pct <= 100.0, "{}%", t.cell_loss_pct);
}
