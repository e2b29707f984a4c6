//! Statistics: the run summary (the public results contract, `docs/CONTRACTS.md`), the
//! window-synchronisation metric, Jain's index; sampled time series in [`series`].

pub mod series;
pub mod spill;

pub use series::sampled_metrics;
pub(crate) use series::SeriesRecorder;

use atmsim_engine::SimTime;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize)]
pub struct ConnectionSummary {
    pub name: String,
    /// Distinct TCP payload delivered in order after warm-up [Mb/s].
    pub goodput_mbps: f64,
    /// TCP payload of every intact data frame delivered after warm-up, duplicates included [Mb/s].
    pub throughput_mbps: f64,
    pub packets_sent: u64,
    /// Intact data packets delivered to the destination after warm-up, duplicates included.
    pub packets_delivered: u64,
    /// Distinct data packets delivered after warm-up: a retransmitted packet that arrives
    /// twice counts once (Cheon & Panwar's effective throughput).
    pub packets_distinct: u64,
    pub retransmissions: u64,
    /// Retransmitted segments / segments sent [%].
    pub retransmission_pct: f64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Cells of the connection (data and ACK VCs) handed to the source adapters.
    pub cells_sent: u64,
    pub cells_delivered: u64,
    /// Cells lost, every cause: the sum of `drops_by_reason`.
    pub cells_dropped: u64,
    /// Cells lost by cause: a switch port's reasons (as in [`PortSummary::drops_by_reason`]),
    /// `source_queue_full` (an ABR source queue) and `rm_superseded` (a backward RM cell
    /// replaced by a newer one before it went, TM 4.0 destination rule 3).
    pub drops_by_reason: BTreeMap<String, u64>,
    /// The connection's cells inside the network (queued, on a link or at an ABR source)
    /// when the warm-up ended: cells_sent + cells_in_flight_at_warmup = cells_delivered +
    /// cells_dropped + cells_in_flight.
    pub cells_in_flight_at_warmup: u64,
    /// The connection's cells inside the network at the end of the run.
    pub cells_in_flight: u64,
    /// cells_dropped / (cells_sent + cells_in_flight_at_warmup) [%]: over every cell the
    /// measured span could lose (a cell lost in it was sent in it or was inside the network
    /// when it began), so at most 100.
    pub cell_loss_pct: f64,
    /// Frames that reached reassembly with a lost or foreign cell and were discarded.
    pub frames_corrupted: u64,
    pub mean_rtt_ms: f64,
    pub max_cwnd_bytes: u32,
    /// Service category of the connection's VC(s): "ubr", "cbr", ...
    pub service: &'static str,
    /// What feeds it: "tcp", "cbr", "on_off", "greedy".
    pub source: &'static str,
    /// Cell sources: mean cell transfer delay after warm-up, from the start of a cell's
    /// transmission at the source adapter to its arrival at the destination [us].
    pub cell_delay_mean_us: Option<f64>,
    /// Cell sources: the largest cell transfer delay after warm-up [us].
    pub cell_delay_max_us: Option<f64>,
    /// ABR (the connection's forward VC): its allowed cell rate at the end [Mb/s of cells].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acr_mbps: Option<f64>,
    /// ABR: the longest its source queue has been (whole run) [cells].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_queue_max_cells: Option<u32>,
    /// ABR: data cells lost because the source queue was full (whole run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cells_lost_at_source: Option<u64>,
    /// ABR: forward RM cells its source sent (whole run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rm_cells_sent: Option<u64>,
    /// ABR: of those, turned round by its destination (whole run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rm_cells_turned: Option<u64>,
    /// ABR: of those, turned round with CI set by the destination (an EFCI state) (whole
    /// run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rm_cells_turned_ci: Option<u64>,
    /// ABR: overflow episodes of its source queue (whole run): losses from a first lost cell
    /// until the queue has fallen to half its size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_overflows: Option<u64>,
    /// TCP with ECN: data segments that arrived Congestion Experienced (a cell of the
    /// frame carried EFCI) after warm-up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecn_ce_frames: Option<u64>,
    /// TCP with ECN: ACKs that reached the sender with ECE set after warm-up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecn_ece_acks: Option<u64>,
    /// TCP with ECN: window reductions for ECN-Echo after warm-up (one per window at most).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecn_window_reductions: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PortSummary {
    /// `node->next`.
    pub name: String,
    pub node: String,
    pub to: String,
    /// Largest number of cells held at once (whole run).
    pub max_queue_cells: u32,
    /// The port's rate control ("erica", "erica_plus"), if it runs one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_control: Option<&'static str>,
    /// With a rate control: backward RM cells whose ER it lowered (whole run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rm_cells_marked: Option<u64>,
    pub cells_sent: u64,
    pub cells_dropped: u64,
    pub drops_by_reason: BTreeMap<String, u64>,
    /// Fraction of the link's cell slots used after warm-up.
    pub utilization: f64,
    /// Fraction of the link's cell slots carrying cells of frames that arrived intact.
    pub effective_utilization: f64,
    /// With `efci_threshold` or a policy that marks (RED's `ecn_mark`): AAL5 data cells it
    /// marked with EFCI (whole run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub efci_marked: Option<u64>,
}

/// Goodput, throughput, retransmissions and fairness are over the TCP connections; the cell
/// counts over every VC.
#[derive(Debug, Clone, Serialize)]
pub struct Totals {
    pub goodput_mbps: f64,
    pub throughput_mbps: f64,
    /// cells_dropped / (cells_sent + cells_in_flight_at_warmup) [%], as a connection's.
    pub cell_loss_pct: f64,
    pub retransmission_pct: f64,
    /// Jain's index over connection goodputs: (sum x)^2 / (n sum x^2); `None` (null) when
    /// it is undefined: no TCP connection, or none with any goodput.
    pub fairness_index: Option<f64>,
    pub cells_sent: u64,
    pub cells_delivered: u64,
    /// Cells lost, every cause: the sum of `drops_by_reason`.
    pub cells_dropped: u64,
    /// Cells lost by cause, over every connection (the ports' drops plus the losses at ABR
    /// sources).
    pub drops_by_reason: BTreeMap<String, u64>,
    /// Cells inside the network (queued or on a link) at the end of the run.
    pub cells_in_flight: u64,
    /// Cells inside the network when the warm-up ended: the counts above start there, so
    /// cells_sent + cells_in_flight_at_warmup = cells_delivered + cells_dropped +
    /// cells_in_flight.
    pub cells_in_flight_at_warmup: u64,
    /// Window decreases (timeouts and fast retransmits) of all connections after warm-up.
    pub window_decreases: u64,
    /// Share of window decreases that fall within one smoothed RTT (of the decreasing
    /// connection) of another connection's decrease [%]: TCP window synchronisation.
    pub window_sync_pct: f64,
    /// The same share expected if connections decreased independently (Poisson arrivals at
    /// the observed rates) [%]: synchronisation shows as observed well above expected.
    pub window_sync_expected_pct: f64,
    /// The other connections that decrease within one smoothed RTT of a decrease, as a
    /// share of all the others, averaged over the decreases [%]: how many sessions cut
    /// their windows together (100 = every session at every cut).
    pub window_sync_sessions_pct: f64,
    /// The same share expected if connections decreased independently [%].
    pub window_sync_sessions_expected_pct: f64,
}

/// A window decrease of a connection.
#[derive(Debug, Clone, Copy)]
pub struct Decrease {
    pub time: SimTime,
    pub conn: u32,
    /// The connection's smoothed RTT at that moment (the coincidence window).
    pub rtt: SimTime,
}

/// Observed and independence-expected synchronisation shares [%].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sync {
    /// Decreases with at least one other connection's decrease within the window.
    pub observed_pct: f64,
    pub expected_pct: f64,
    /// The other connections that decrease within the window, as a share of all the
    /// others, averaged over the decreases: how much of the population cuts together.
    pub sessions_pct: f64,
    pub sessions_expected_pct: f64,
}

/// For each decrease of connection i at t, the decreases of other connections in
/// [t - rtt_i, t + rtt_i]: whether there is one (`observed_pct`, the share of decreases for
/// which there is) and how many distinct connections they come from (`sessions_pct`, as a
/// share of the n - 1 others, averaged over the decreases). Beside each, what it would be if
/// every other connection j decreased as a Poisson process at its observed rate over
/// `measured`: 1 - exp(-2 rtt_i sum_j rate_j) for the first, the mean over j of
/// 1 - exp(-2 rtt_i rate_j) for the second.
pub fn synchronisation(events: &[Decrease], n_conns: usize, measured: SimTime) -> Sync {
    if events.is_empty() || n_conns < 2 || measured == SimTime::ZERO {
        return Sync {
            observed_pct: 0.0,
            expected_pct: 0.0,
            sessions_pct: 0.0,
            sessions_expected_pct: 0.0,
        };
    }
    let mut per_conn = vec![0u64; n_conns];
    for e in events {
        per_conn[e.conn as usize] += 1;
    }
    let secs = measured.as_secs_f64();
    let others_n = (n_conns - 1) as f64;
    // seen[j] == k + 1: connection j already counted for decrease k.
    let mut seen = vec![0usize; n_conns];
    let (mut hits, mut expected) = (0u64, 0.0f64);
    let (mut sessions, mut sessions_expected) = (0.0f64, 0.0f64);
    for (k, e) in events.iter().enumerate() {
        let lo = e.time.saturating_sub(e.rtt);
        let hi = e.time + e.rtt;
        let before = events[..k].iter().rev().take_while(|o| o.time >= lo);
        let after = events[k + 1..].iter().take_while(|o| o.time <= hi);
        let mut distinct = 0u64;
        for o in before.chain(after) {
            let j = o.conn as usize;
            if j != e.conn as usize && seen[j] != k + 1 {
                seen[j] = k + 1;
                distinct += 1;
            }
        }
        if distinct > 0 {
            hits += 1;
        }
        sessions += distinct as f64 / others_n;
        let w = 2.0 * e.rtt.as_secs_f64();
        let others = (events.len() as u64 - per_conn[e.conn as usize]) as f64 / secs;
        expected += 1.0 - (-w * others).exp();
        let each: f64 = (0..n_conns)
            .filter(|&j| j != e.conn as usize)
            .map(|j| 1.0 - (-w * per_conn[j] as f64 / secs).exp())
            .sum();
        sessions_expected += each / others_n;
    }
    let n = events.len() as f64;
    Sync {
        observed_pct: 100.0 * hits as f64 / n,
        expected_pct: 100.0 * expected / n,
        sessions_pct: 100.0 * sessions / n,
        sessions_expected_pct: 100.0 * sessions_expected / n,
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub scenario: String,
    pub atmsim_version: String,
    pub seed: u64,
    pub simulated_s: f64,
    pub warmup_s: f64,
    pub wall_s: f64,
    pub events: u64,
    pub cell_hops: u64,
    pub fingerprint: String,
    pub connections: Vec<ConnectionSummary>,
    pub ports: Vec<PortSummary>,
    pub totals: Totals,
}

/// The name of one sampled column.
#[derive(Debug, Clone, Serialize)]
pub struct SeriesColumn {
    /// "connection" or "port".
    pub kind: &'static str,
    pub entity: String,
    pub metric: &'static str,
}

/// Sampled time series: `time_s.len()` rows of `columns.len()` values, row major, in
/// `values` or, for a run that streamed them ([`crate::Network::spill_series`]), in `file`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Series {
    pub time_s: Vec<f64>,
    pub columns: Vec<SeriesColumn>,
    /// Row `r`, column `c` at `r * columns.len() + c` (empty when `file` holds them).
    pub values: Vec<f64>,
    /// The series file the values went to ([`spill`] has its layout).
    #[serde(skip)]
    pub file: Option<SeriesFile>,
}

/// A series file ([`spill`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesFile {
    pub path: std::path::PathBuf,
    /// Rows written so far (all of them when complete).
    pub rows: u64,
    /// Rows per row group.
    pub group_rows: u64,
    /// Whether the file is complete (its header says so): false for a copy taken during the
    /// run, or after a write failed.
    pub complete: bool,
    /// Why writing it failed, if it did.
    pub error: Option<String>,
}

impl Series {
    /// The values of column `c`, one per sample.
    pub fn column(&self, c: usize) -> Vec<f64> {
        let n = self.columns.len();
        self.values
            .iter()
            .skip(c)
            .step_by(n.max(1))
            .copied()
            .collect()
    }
}

/// The outcome of a run.
#[derive(Debug, Clone)]
pub struct Report {
    pub summary: Summary,
    pub series: Series,
}

impl Summary {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("summary serialises")
    }

    /// The summary as compact JSON with the keys of every object sorted: the text
    /// `serde_json::to_string(&serde_json::to_value(&summary))` gives, to the byte (the
    /// results contract's `summary.json` and the column order of `Results.connections`
    /// follow that order).
    ///
    /// Memory holds one connection's or one port's value tree at a time, not the whole
    /// summary's: at 10,000 connections that tree took about 80 MB, the largest part of a
    /// run's peak.
    pub fn into_sorted_json(mut self) -> serde_json::Result<String> {
        use serde_json::Value;

        fn array<T: Serialize>(out: &mut Vec<u8>, items: &[T]) -> serde_json::Result<()> {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, &serde_json::to_value(item)?)?;
            }
            out.push(b']');
            Ok(())
        }

        let connections = std::mem::take(&mut self.connections);
        let ports = std::mem::take(&mut self.ports);
        // The rest as one value (its map sorts the keys), the two lists in their places.
        let Value::Object(top) = serde_json::to_value(&self)? else {
            unreachable!("a struct serialises as a map");
        };
        let mut out = Vec::with_capacity(1024 * (1 + connections.len() + ports.len()));
        out.push(b'{');
        for (i, (key, value)) in top.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            serde_json::to_writer(&mut out, key)?;
            out.push(b':');
            match key.as_str() {
                "connections" => array(&mut out, &connections)?,
                "ports" => array(&mut out, &ports)?,
                _ => serde_json::to_writer(&mut out, value)?,
            }
        }
        out.push(b'}');
        Ok(String::from_utf8(out).expect("serde_json writes UTF-8"))
    }
}

/// Jain's fairness index of `x`; 1 when all are equal, 1/n when one takes everything.
pub fn jain_index(x: &[f64]) -> Option<f64> {
    let sq: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || sq == 0.0 {
        return None;
    }
    let s = sum(x);
    Some(s * s / (x.len() as f64 * sq))
}

/// The sum of `x`, +0.0 when empty (the standard library's float sum starts from -0.0, which
/// prints as "-0.0").
pub fn sum(x: &[f64]) -> f64 {
    x.iter().fold(0.0, |a, v| a + v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synchronised_decreases_are_counted() {
        let ms = SimTime::from_ms;
        let d = |t, conn| Decrease {
            time: ms(t),
            conn,
            rtt: ms(10),
        };
        // Two connections cut together twice; a third alone in between.
        let ev = [d(100, 0), d(105, 1), d(500, 2), d(900, 0), d(902, 1)];
        let s = synchronisation(&ev, 3, SimTime::from_secs(1));
        assert!((s.observed_pct - 80.0).abs() < 1e-9, "{s:?}");
        assert!(s.expected_pct > 0.0 && s.expected_pct < 20.0, "{s:?}");
        // Each cut of 0 or 1 sees one of its two others cut; the lone cut sees none.
        assert!((s.sessions_pct - 40.0).abs() < 1e-9, "{s:?}");
        assert!(s.sessions_expected_pct < s.expected_pct, "{s:?}");
        let none = synchronisation(&[d(1, 0)], 3, SimTime::from_secs(1));
        assert_eq!(none.observed_pct, 0.0);
        assert_eq!(none.sessions_pct, 0.0);
        // Four connections cutting together: every other one is seen, twice over.
        let mut all: Vec<_> = (0..4)
            .flat_map(|c| [d(100 + c as u64, c), d(700 + c as u64, c)])
            .collect();
        all.sort_by_key(|e| e.time);
        let s = synchronisation(&all, 4, SimTime::from_secs(1));
        assert!((s.sessions_pct - 100.0).abs() < 1e-9, "{s:?}");
        assert!((s.observed_pct - 100.0).abs() < 1e-9, "{s:?}");
    }

    proptest::proptest! {
        /// Both shares lie in 0-100; a decrease that sees another connection's counts in
        /// both or neither, so the share of other sessions is positive exactly when the
        /// clustering share is, and never above it (each such decrease sees at most all of
        /// the others); the same bounds hold for the independence baselines.
        #[test]
        fn synchronisation_shares_are_consistent(
            raw in proptest::collection::vec((0u64..2_000, 0u32..6, 1u64..50), 0..60),
            n in 2usize..7,
        ) {
            let ms = SimTime::from_ms;
            let mut ev: Vec<Decrease> = raw
                .iter()
                .map(|&(t, c, r)| Decrease { time: ms(t), conn: c % n as u32, rtt: ms(r) })
                .collect();
            ev.sort_by_key(|e| e.time);
            let s = synchronisation(&ev, n, SimTime::from_secs(2));
            for v in [s.observed_pct, s.expected_pct, s.sessions_pct, s.sessions_expected_pct] {
                proptest::prop_assert!((0.0..=100.0 + 1e-9).contains(&v), "{s:?}");
            }
            proptest::prop_assert_eq!(s.sessions_pct > 0.0, s.observed_pct > 0.0);
            proptest::prop_assert!(s.sessions_pct <= s.observed_pct + 1e-9, "{s:?}");
            proptest::prop_assert!(s.sessions_expected_pct <= s.expected_pct + 1e-9, "{s:?}");
        }
    }

    #[test]
    fn jain_index_bounds() {
        assert!((jain_index(&[1.0, 1.0, 1.0]).unwrap() - 1.0).abs() < 1e-12);
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]).unwrap() - 0.25).abs() < 1e-12);
    }

    #[test]
    fn jain_index_is_undefined_without_goodput() {
        assert_eq!(jain_index(&[]), None);
        assert_eq!(jain_index(&[0.0, 0.0]), None);
    }

    #[test]
    fn an_empty_sum_is_positive_zero() {
        let s = sum(&[]);
        assert_eq!(s, 0.0);
        assert!(s.is_sign_positive());
        assert_eq!(format!("{s:?}"), "0.0");
    }
}
