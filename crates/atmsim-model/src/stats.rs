//! Statistics: the run summary (the public results contract of DESIGN.md) and sampled
//! time series.

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
    pub cells_dropped: u64,
    /// cells_dropped / cells_sent [%].
    pub cell_loss_pct: f64,
    /// Frames that reached reassembly with a lost or foreign cell and were discarded.
    pub frames_corrupted: u64,
    pub mean_rtt_ms: f64,
    pub max_cwnd_bytes: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct PortSummary {
    /// `node->next`.
    pub name: String,
    pub node: String,
    pub to: String,
    /// Largest number of cells held at once (whole run).
    pub max_queue_cells: u32,
    pub cells_sent: u64,
    pub cells_dropped: u64,
    pub drops_by_reason: BTreeMap<String, u64>,
    /// Fraction of the link's cell slots used after warm-up.
    pub utilization: f64,
    /// Fraction of the link's cell slots carrying cells of frames that arrived intact.
    pub effective_utilization: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Totals {
    pub goodput_mbps: f64,
    pub throughput_mbps: f64,
    pub cell_loss_pct: f64,
    pub retransmission_pct: f64,
    /// Jain's index over connection goodputs: (sum x)^2 / (n sum x^2).
    pub fairness_index: f64,
    pub cells_sent: u64,
    pub cells_delivered: u64,
    pub cells_dropped: u64,
    pub cells_in_flight: u64,
    /// Window decreases (timeouts and fast retransmits) of all connections after warm-up.
    pub window_decreases: u64,
    /// Share of window decreases that fall within one smoothed RTT (of the decreasing
    /// connection) of another connection's decrease [%]: TCP window synchronisation.
    pub window_sync_pct: f64,
    /// The same share expected if connections decreased independently (Poisson arrivals at
    /// the observed rates) [%]: synchronisation shows as observed well above expected.
    pub window_sync_expected_pct: f64,
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
    pub observed_pct: f64,
    pub expected_pct: f64,
}

/// For each decrease of connection i at t: is there a decrease of another connection in
/// [t - rtt_i, t + rtt_i]? Returns the share of decreases for which there is, and what that
/// share would be if the other connections' decreases were Poisson at their observed rates
/// over `measured` (1 - exp(-2 rtt_i * rate of the others)), averaged over the decreases.
pub fn synchronisation(events: &[Decrease], n_conns: usize, measured: SimTime) -> Sync {
    if events.is_empty() || n_conns < 2 || measured == SimTime::ZERO {
        return Sync {
            observed_pct: 0.0,
            expected_pct: 0.0,
        };
    }
    let mut per_conn = vec![0u64; n_conns];
    for e in events {
        per_conn[e.conn as usize] += 1;
    }
    let secs = measured.as_secs_f64();
    let (mut hits, mut expected) = (0u64, 0.0f64);
    for (k, e) in events.iter().enumerate() {
        let lo = e.time.saturating_sub(e.rtt);
        let hi = e.time + e.rtt;
        let near = |o: &Decrease| o.conn != e.conn && o.time >= lo && o.time <= hi;
        let before = events[..k]
            .iter()
            .rev()
            .take_while(|o| o.time >= lo)
            .any(near);
        let after = events[k + 1..]
            .iter()
            .take_while(|o| o.time <= hi)
            .any(near);
        if before || after {
            hits += 1;
        }
        let others = (events.len() as u64 - per_conn[e.conn as usize]) as f64 / secs;
        expected += 1.0 - (-2.0 * e.rtt.as_secs_f64() * others).exp();
    }
    let n = events.len() as f64;
    Sync {
        observed_pct: 100.0 * hits as f64 / n,
        expected_pct: 100.0 * expected / n,
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

/// One sampled column.
#[derive(Debug, Clone, Serialize)]
pub struct SeriesColumn {
    /// "connection" or "port".
    pub kind: &'static str,
    pub entity: String,
    pub metric: &'static str,
    pub values: Vec<f64>,
}

/// Sampled time series, column-wise.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Series {
    pub time_s: Vec<f64>,
    pub columns: Vec<SeriesColumn>,
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
}

/// Jain's fairness index of `x`; 1 when all are equal, 1/n when one takes everything.
pub fn jain_index(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    let sq: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || sq == 0.0 {
        return 1.0;
    }
    sum * sum / (x.len() as f64 * sq)
}

pub(crate) struct ConnSample {
    pub delivered_bytes: u64,
    pub received_bytes: u64,
    pub cwnd: u32,
    pub ssthresh: u32,
    pub srtt: Option<SimTime>,
    pub rto: SimTime,
    pub segments_sent: u64,
    pub retransmits: u64,
    pub cells_sent: u64,
    pub cells_dropped: u64,
}

pub(crate) struct PortSample {
    pub queue: u32,
    pub cells_sent: u64,
    pub effective_cells: u64,
    pub cells_dropped: u64,
    pub cell_time: SimTime,
}

const CONN_METRICS: [&str; 10] = [
    "goodput_mbps",
    "throughput_mbps",
    "cwnd_bytes",
    "ssthresh_bytes",
    "srtt_ms",
    "rto_ms",
    "packets_sent",
    "retransmissions",
    "cells_sent",
    "cells_dropped",
];
const PORT_METRICS: [&str; 5] = [
    "queue_cells",
    "utilization",
    "effective_utilization",
    "cells_sent",
    "cells_dropped",
];

/// Accumulates samples; rates are computed over the interval since the previous sample.
#[derive(Default, Clone)]
pub(crate) struct SeriesRecorder {
    conns: Vec<String>,
    ports: Vec<String>,
    time: Vec<f64>,
    /// conn-major: conns.len() * CONN_METRICS.len() columns, then ports.
    cols: Vec<Vec<f64>>,
    last_time: SimTime,
    last_conn: Vec<(u64, u64)>,
    last_port: Vec<(u64, u64)>,
}

impl SeriesRecorder {
    pub fn new(conns: Vec<String>, ports: Vec<String>) -> Self {
        let ncols = conns.len() * CONN_METRICS.len() + ports.len() * PORT_METRICS.len();
        SeriesRecorder {
            last_conn: vec![(0, 0); conns.len()],
            last_port: vec![(0, 0); ports.len()],
            conns,
            ports,
            time: Vec::new(),
            cols: vec![Vec::new(); ncols],
            last_time: SimTime::ZERO,
        }
    }

    pub fn record(&mut self, now: SimTime, conns: &[ConnSample], ports: &[PortSample]) {
        let dt = (now - self.last_time).as_secs_f64();
        let dt_ps = (now - self.last_time).0 as f64;
        let rate = |bytes: u64| {
            if dt > 0.0 {
                bytes as f64 * 8.0 / dt / 1e6
            } else {
                0.0
            }
        };
        self.time.push(now.as_secs_f64());
        let mut k = 0;
        for (i, c) in conns.iter().enumerate() {
            let (d0, r0) = self.last_conn[i];
            let vals = [
                rate(c.delivered_bytes - d0),
                rate(c.received_bytes - r0),
                c.cwnd as f64,
                c.ssthresh as f64,
                c.srtt.map_or(f64::NAN, |t| t.as_millis_f64()),
                c.rto.as_millis_f64(),
                c.segments_sent as f64,
                c.retransmits as f64,
                c.cells_sent as f64,
                c.cells_dropped as f64,
            ];
            for v in vals {
                self.cols[k].push(v);
                k += 1;
            }
            self.last_conn[i] = (c.delivered_bytes, c.received_bytes);
        }
        for (i, p) in ports.iter().enumerate() {
            let (s0, e0) = self.last_port[i];
            let util = |cells: u64| {
                if dt_ps > 0.0 {
                    cells as f64 * p.cell_time.0 as f64 / dt_ps
                } else {
                    0.0
                }
            };
            let vals = [
                p.queue as f64,
                util(p.cells_sent - s0),
                util(p.effective_cells - e0),
                p.cells_sent as f64,
                p.cells_dropped as f64,
            ];
            for v in vals {
                self.cols[k].push(v);
                k += 1;
            }
            self.last_port[i] = (p.cells_sent, p.effective_cells);
        }
        self.last_time = now;
    }

    /// Moves the columns out.
    pub fn into_series(self) -> Series {
        let mut cols = self.cols.into_iter();
        let mut columns = Vec::new();
        for (kind, names, metrics) in [
            ("connection", &self.conns, &CONN_METRICS[..]),
            ("port", &self.ports, &PORT_METRICS[..]),
        ] {
            for e in names {
                for &m in metrics {
                    columns.push(SeriesColumn {
                        kind,
                        entity: e.clone(),
                        metric: m,
                        values: cols.next().expect("one column per entity and metric"),
                    });
                }
            }
        }
        Series {
            time_s: self.time,
            columns,
        }
    }

    /// A copy of the columns so far.
    pub fn finish(&self) -> Series {
        self.clone().into_series()
    }
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
        let none = synchronisation(&[d(1, 0)], 3, SimTime::from_secs(1));
        assert_eq!(none.observed_pct, 0.0);
    }

    #[test]
    fn jain_index_bounds() {
        assert!((jain_index(&[1.0, 1.0, 1.0]) - 1.0).abs() < 1e-12);
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
    }
}
