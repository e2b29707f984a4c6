//! Sampled time series, column by column, each metric declared once with its name.
//!
//! An entity (a connection or a port) is sampled into one column per metric of its kind; a
//! sample is one row of every column, kept in one row-major buffer reserved for the run's
//! samples up front (no per-column vectors growing during the run).
//! A metric reads a [`Reading`] from the entity's sample: a level (recorded as it is), a
//! cumulative byte count (recorded as Mb/s over the last interval) or a cumulative cell
//! count on a link (recorded as the share of the link's cell slots over the last interval).

use super::{Series, SeriesColumn};
use atmsim_engine::SimTime;

/// What a metric reads from a sample.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Reading {
    /// A value recorded as it is.
    Level(f64),
    /// A cumulative byte count: recorded as the rate over the last interval [Mb/s].
    Bytes(u64),
    /// A cumulative count of cells sent on a link with this cell time: recorded as the share
    /// of the link's capacity over the last interval.
    Cells(u64, SimTime),
}

/// One named metric of an entity kind.
pub(crate) struct Metric<S> {
    pub name: &'static str,
    pub read: fn(&S) -> Reading,
}

/// What a TCP connection shows at a sample.
pub(crate) struct TcpSample {
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

/// What a cell source shows at a sample.
pub(crate) struct SourceSample {
    pub payload_bytes_delivered: u64,
    pub cells_sent: u64,
    pub cells_delivered: u64,
    pub cells_dropped: u64,
}

/// What an ABR source shows at a sample.
pub(crate) struct AbrSample {
    /// Allowed cell rate [cells/s].
    pub acr: f64,
    pub source_queue: u32,
}

/// What a port's measuring rate control (ERICA, FMMRA) shows at a sample.
pub(crate) struct RateSample {
    pub stats: crate::abr::RateStats,
    pub abr_queue: u32,
}

/// cells/s as Mb/s of 53-byte cells.
fn cells_mbps(rate: f64) -> f64 {
    rate * 424.0 / 1e6
}

pub(crate) const ABR_METRICS: &[Metric<AbrSample>] = &[
    Metric {
        name: "acr_mbps",
        read: |s| Reading::Level(cells_mbps(s.acr)),
    },
    Metric {
        name: "source_queue_cells",
        read: |s| Reading::Level(s.source_queue as f64),
    },
];

pub(crate) const RATE_METRICS: &[Metric<RateSample>] = &[
    Metric {
        name: "abr_queue_cells",
        read: |s| Reading::Level(s.abr_queue as f64),
    },
    Metric {
        name: "load_factor",
        read: |s| Reading::Level(s.stats.load_factor),
    },
    Metric {
        name: "active_vcs",
        read: |s| Reading::Level(s.stats.active_vcs),
    },
    Metric {
        name: "fair_rate_mbps",
        read: |s| Reading::Level(cells_mbps(s.stats.fair_rate)),
    },
    Metric {
        name: "capacity_mbps",
        read: |s| Reading::Level(cells_mbps(s.stats.capacity)),
    },
];

/// What a port shows at a sample.
pub(crate) struct PortSample {
    pub queue: u32,
    pub cells_sent: u64,
    pub effective_cells: u64,
    pub cells_dropped: u64,
    pub cell_time: SimTime,
}

pub(crate) const TCP_METRICS: &[Metric<TcpSample>] = &[
    Metric {
        name: "goodput_mbps",
        read: |s| Reading::Bytes(s.delivered_bytes),
    },
    Metric {
        name: "throughput_mbps",
        read: |s| Reading::Bytes(s.received_bytes),
    },
    Metric {
        name: "cwnd_bytes",
        read: |s| Reading::Level(s.cwnd as f64),
    },
    Metric {
        name: "ssthresh_bytes",
        read: |s| Reading::Level(s.ssthresh as f64),
    },
    Metric {
        name: "srtt_ms",
        read: |s| Reading::Level(s.srtt.map_or(f64::NAN, |t| t.as_millis_f64())),
    },
    Metric {
        name: "rto_ms",
        read: |s| Reading::Level(s.rto.as_millis_f64()),
    },
    Metric {
        name: "packets_sent",
        read: |s| Reading::Level(s.segments_sent as f64),
    },
    Metric {
        name: "retransmissions",
        read: |s| Reading::Level(s.retransmits as f64),
    },
    Metric {
        name: "cells_sent",
        read: |s| Reading::Level(s.cells_sent as f64),
    },
    Metric {
        name: "cells_dropped",
        read: |s| Reading::Level(s.cells_dropped as f64),
    },
];

pub(crate) const SOURCE_METRICS: &[Metric<SourceSample>] = &[
    Metric {
        name: "throughput_mbps",
        read: |s| Reading::Bytes(s.payload_bytes_delivered),
    },
    Metric {
        name: "cells_sent",
        read: |s| Reading::Level(s.cells_sent as f64),
    },
    Metric {
        name: "cells_delivered",
        read: |s| Reading::Level(s.cells_delivered as f64),
    },
    Metric {
        name: "cells_dropped",
        read: |s| Reading::Level(s.cells_dropped as f64),
    },
];

pub(crate) const PORT_METRICS: &[Metric<PortSample>] = &[
    Metric {
        name: "queue_cells",
        read: |s| Reading::Level(s.queue as f64),
    },
    Metric {
        name: "utilization",
        read: |s| Reading::Cells(s.cells_sent, s.cell_time),
    },
    Metric {
        name: "effective_utilization",
        read: |s| Reading::Cells(s.effective_cells, s.cell_time),
    },
    Metric {
        name: "cells_sent",
        read: |s| Reading::Level(s.cells_sent as f64),
    },
    Metric {
        name: "cells_dropped",
        read: |s| Reading::Level(s.cells_dropped as f64),
    },
];

/// The name of one sampled column.
#[derive(Debug, Clone)]
struct Column {
    kind: &'static str,
    entity: String,
    metric: &'static str,
}

/// Accumulates samples, one row of every column per sample, in one contiguous buffer (row
/// major); rates are computed over the interval since the previous sample.
#[derive(Debug, Default, Clone)]
pub(crate) struct SeriesRecorder {
    time: Vec<f64>,
    cols: Vec<Column>,
    /// Per column, the cumulative count at the previous sample (rate readings): dense, apart
    /// from the columns' names, so a sample reads 8 bytes per column, not a 64-byte line.
    last: Vec<u64>,
    /// `time.len()` rows of `cols.len()` values.
    values: Vec<f64>,
    /// Rows to reserve room for when the first sample is taken.
    expected_rows: usize,
    last_time: SimTime,
    now: SimTime,
    at: usize,
}

/// The columns of one entity, in a recorder.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Columns(usize);

impl SeriesRecorder {
    /// A recorder that expects about `rows` samples (its buffer is reserved once, so a run
    /// never holds more than it needs).
    pub fn new(rows: usize) -> Self {
        SeriesRecorder {
            expected_rows: rows,
            ..Default::default()
        }
    }

    /// Adds the columns of entity `name` of `kind` ("connection", "port") for `metrics`.
    pub fn add<S>(&mut self, kind: &'static str, name: &str, metrics: &[Metric<S>]) -> Columns {
        let first = self.cols.len();
        for m in metrics {
            self.cols.push(Column {
                kind,
                entity: name.to_string(),
                metric: m.name,
            });
            self.last.push(0);
        }
        Columns(first)
    }

    /// Starts the sample at `now`; then [`SeriesRecorder::record`] each entity in the order
    /// they were added, then [`SeriesRecorder::end`].
    pub fn begin(&mut self, now: SimTime) {
        if self.time.is_empty() {
            self.values
                .reserve_exact(self.expected_rows.max(1) * self.cols.len());
            self.time.reserve_exact(self.expected_rows.max(1));
        }
        self.time.push(now.as_secs_f64());
        self.now = now;
        self.at = 0;
    }

    /// Records `sample` into the columns of one entity.
    pub fn record<S>(&mut self, at: Columns, metrics: &[Metric<S>], sample: &S) {
        debug_assert_eq!(
            at.0, self.at,
            "entities are recorded in the order they were added"
        );
        let dt = (self.now - self.last_time).as_secs_f64();
        let dt_ps = (self.now - self.last_time).0 as f64;
        debug_assert!(self.cols[at.0..at.0 + metrics.len()]
            .iter()
            .zip(metrics)
            .all(|(c, m)| c.metric == m.name));
        let last = &mut self.last[at.0..at.0 + metrics.len()];
        for (m, last) in metrics.iter().zip(last.iter_mut()) {
            let v = match (m.read)(sample) {
                Reading::Level(v) => v,
                Reading::Bytes(total) => {
                    let bytes = total - *last;
                    *last = total;
                    if dt > 0.0 {
                        bytes as f64 * 8.0 / dt / 1e6
                    } else {
                        0.0
                    }
                }
                Reading::Cells(total, cell_time) => {
                    let cells = total - *last;
                    *last = total;
                    if dt_ps > 0.0 {
                        cells as f64 * cell_time.0 as f64 / dt_ps
                    } else {
                        0.0
                    }
                }
            };
            self.values.push(v);
        }
        self.at += metrics.len();
    }

    /// Ends the sample started by [`SeriesRecorder::begin`].
    pub fn end(&mut self) {
        debug_assert_eq!(self.at, self.cols.len(), "every entity recorded");
        self.last_time = self.now;
    }

    /// Moves the samples out.
    pub fn into_series(self) -> Series {
        Series {
            time_s: self.time,
            columns: self
                .cols
                .into_iter()
                .map(|c| SeriesColumn {
                    kind: c.kind,
                    entity: c.entity,
                    metric: c.metric,
                })
                .collect(),
            values: self.values,
        }
    }

    /// A copy of the samples so far.
    pub fn finish(&self) -> Series {
        self.clone().into_series()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_named_and_rates_use_the_interval() {
        let mut r = SeriesRecorder::new(3);
        let ms = SimTime::from_ms;
        let at = r.add("port", "A->B", PORT_METRICS);
        let sample = |queue, sent| PortSample {
            queue,
            cells_sent: sent,
            effective_cells: sent / 2,
            cells_dropped: 0,
            cell_time: SimTime::from_us(1),
        };
        for (t, q, sent) in [(0, 0, 0), (10, 5, 5_000), (20, 7, 15_000)] {
            r.begin(ms(t));
            r.record(at, PORT_METRICS, &sample(q, sent));
            r.end();
        }
        let s = r.into_series();
        let col = |m: &str| s.column(s.columns.iter().position(|c| c.metric == m).unwrap());
        assert_eq!(col("queue_cells"), vec![0.0, 5.0, 7.0]);
        assert_eq!(col("utilization"), vec![0.0, 0.5, 1.0]);
        assert_eq!(col("effective_utilization")[2], 0.5);
        assert_eq!(s.time_s, vec![0.0, 0.01, 0.02]);
        assert!(s
            .columns
            .iter()
            .all(|c| c.entity == "A->B" && c.kind == "port"));
    }
}
