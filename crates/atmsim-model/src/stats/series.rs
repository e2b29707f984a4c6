//! Sampled time series, column by column, each metric declared once with its name.
//!
//! An entity (a connection or a port) is sampled into one column per metric of its kind; a
//! sample is one row of every column, kept in one row-major buffer reserved for the run's
//! samples up front (no per-column vectors growing during the run).
//!
//! A metric is a level (recorded as it is), a cumulative byte count (recorded as Mb/s over
//! the last interval) or a cumulative count of cells on a link (recorded as the share of the
//! link's cell slots over the last interval). A sample copies each entity's values into the
//! row — counts as they stand — then turns the row's counts into rates against the counts of
//! the previous sample, kept aside (every count stays below 2^53, so the difference of two
//! counts is exact).
//!
//! A run started from Python streams its rows to a file in row groups of fixed size
//! ([`super::spill`]), so the memory the series take does not grow with the run's length.

use super::spill::SpillWriter;
use super::{Series, SeriesColumn, SeriesFile};
use crate::spec::SampleSelection;
use atmsim_engine::SimTime;

/// The kinds of sampled entity and the metrics each may record, in column order (a
/// connection is a TCP connection or a cell source; each has its own metrics).
pub fn sampled_metrics() -> Vec<(&'static str, Vec<&'static str>)> {
    fn names<S: Sample>() -> impl Iterator<Item = &'static str> {
        S::METRICS.iter().map(|m| m.name)
    }
    let mut connection: Vec<_> = names::<TcpSample>().collect();
    for m in names::<SourceSample>() {
        if !connection.contains(&m) {
            connection.push(m);
        }
    }
    vec![
        ("connection", connection),
        ("port", names::<PortSample>().collect()),
        ("abr", names::<AbrSample>().collect()),
        ("rate_control", names::<RateSample>().collect()),
    ]
}

/// How a metric's stored value becomes the recorded one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// A value recorded as it is.
    Level,
    /// A cumulative byte count: recorded as the rate over the last interval [Mb/s].
    Bytes,
    /// A cumulative count of cells sent on the entity's link: recorded as the share of the
    /// link's capacity over the last interval (the entity gives its link's cell time when its
    /// columns are added).
    Cells,
}

/// One named metric of an entity kind.
pub(crate) struct Metric {
    pub name: &'static str,
    pub reading: Reading,
}

const fn level(name: &'static str) -> Metric {
    Metric {
        name,
        reading: Reading::Level,
    }
}

/// What an entity kind shows at a sample: its metrics, and one row of values in their order
/// (levels as they are; [`Reading::Bytes`] and [`Reading::Cells`] metrics as the cumulative
/// count).
pub(crate) trait Sample {
    const METRICS: &'static [Metric];
    /// `[f64; METRICS.len()]`.
    type Row: AsRef<[f64]>;
    fn row(&self) -> Self::Row;
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

impl Sample for TcpSample {
    const METRICS: &'static [Metric] = &[
        Metric {
            name: "goodput_mbps",
            reading: Reading::Bytes,
        },
        Metric {
            name: "throughput_mbps",
            reading: Reading::Bytes,
        },
        level("cwnd_bytes"),
        level("ssthresh_bytes"),
        level("srtt_ms"),
        level("rto_ms"),
        level("packets_sent"),
        level("retransmissions"),
        level("cells_sent"),
        level("cells_dropped"),
    ];
    type Row = [f64; 10];
    #[inline]
    fn row(&self) -> [f64; 10] {
        [
            self.delivered_bytes as f64,
            self.received_bytes as f64,
            self.cwnd as f64,
            self.ssthresh as f64,
            self.srtt.map_or(f64::NAN, |t| t.as_millis_f64()),
            self.rto.as_millis_f64(),
            self.segments_sent as f64,
            self.retransmits as f64,
            self.cells_sent as f64,
            self.cells_dropped as f64,
        ]
    }
}

/// What a cell source shows at a sample.
pub(crate) struct SourceSample {
    pub payload_bytes_delivered: u64,
    pub cells_sent: u64,
    pub cells_delivered: u64,
    pub cells_dropped: u64,
}

impl Sample for SourceSample {
    const METRICS: &'static [Metric] = &[
        Metric {
            name: "throughput_mbps",
            reading: Reading::Bytes,
        },
        level("cells_sent"),
        level("cells_delivered"),
        level("cells_dropped"),
    ];
    type Row = [f64; 4];
    #[inline]
    fn row(&self) -> [f64; 4] {
        [
            self.payload_bytes_delivered as f64,
            self.cells_sent as f64,
            self.cells_delivered as f64,
            self.cells_dropped as f64,
        ]
    }
}

/// What an ABR source shows at a sample.
pub(crate) struct AbrSample {
    /// Allowed cell rate [cells/s].
    pub acr: f64,
    pub source_queue: u32,
}

/// cells/s as Mb/s of 53-byte cells.
fn cells_mbps(rate: f64) -> f64 {
    rate * 424.0 / 1e6
}

impl Sample for AbrSample {
    const METRICS: &'static [Metric] = &[level("acr_mbps"), level("source_queue_cells")];
    type Row = [f64; 2];
    #[inline]
    fn row(&self) -> [f64; 2] {
        [cells_mbps(self.acr), self.source_queue as f64]
    }
}

/// What a port's measuring rate control (ERICA, FMMRA) shows at a sample.
pub(crate) struct RateSample {
    pub stats: crate::abr::RateStats,
    pub abr_queue: u32,
}

impl Sample for RateSample {
    const METRICS: &'static [Metric] = &[
        level("abr_queue_cells"),
        level("load_factor"),
        level("active_vcs"),
        level("fair_rate_mbps"),
        level("capacity_mbps"),
    ];
    type Row = [f64; 5];
    #[inline]
    fn row(&self) -> [f64; 5] {
        [
            self.abr_queue as f64,
            self.stats.load_factor,
            self.stats.active_vcs,
            cells_mbps(self.stats.fair_rate),
            cells_mbps(self.stats.capacity),
        ]
    }
}

/// What a port shows at a sample.
pub(crate) struct PortSample {
    pub queue: u32,
    pub cells_sent: u64,
    /// Cells whose transmission has ended, counting the one in transmission by the share of
    /// it sent so far: its differences over an interval are the busy time in that interval
    /// (in cell times), so the utilization they give never exceeds 1.
    pub cells_done: f64,
    pub effective_cells: u64,
    pub cells_dropped: u64,
}

impl Sample for PortSample {
    const METRICS: &'static [Metric] = &[
        level("queue_cells"),
        Metric {
            name: "utilization",
            reading: Reading::Cells,
        },
        Metric {
            name: "effective_utilization",
            reading: Reading::Cells,
        },
        level("cells_sent"),
        level("cells_dropped"),
    ];
    type Row = [f64; 5];
    #[inline]
    fn row(&self) -> [f64; 5] {
        [
            self.queue as f64,
            self.cells_done,
            self.effective_cells as f64,
            self.cells_sent as f64,
            self.cells_dropped as f64,
        ]
    }
}

/// A column that turns stored counts into rates when the series are handed over.
#[derive(Debug, Clone, Copy)]
enum Rate {
    /// Bytes → Mb/s.
    Bytes,
    /// Cells on a link with this cell time → share of the link's capacity.
    Cells(SimTime),
}

/// The name of one sampled column.
#[derive(Debug, Clone)]
struct Column {
    kind: &'static str,
    entity: String,
    metric: &'static str,
}

/// Accumulates samples, one row of every column per sample, in one contiguous buffer (row
/// major). A recorder that spills ([`SeriesRecorder::spill_to`]) holds one row group at a
/// time and streams the rest to its file ([`super::spill`]); one that does not holds every
/// row.
#[derive(Debug, Default)]
pub(crate) struct SeriesRecorder {
    times: Vec<SimTime>,
    cols: Vec<Column>,
    /// The columns recorded as rates, in column order.
    rates: Vec<(usize, Rate)>,
    /// Per rate column (in the order of `rates`), its count at the last sample (0 before).
    counts: Vec<f64>,
    /// The rows not yet handed to the spill file (every row when not spilling), rates as
    /// rates.
    values: Vec<f64>,
    /// Rows to reserve room for when the first sample is taken.
    expected_rows: usize,
    /// The file the rows go to, a row group at a time.
    spill: Option<SpillWriter>,
}

/// The columns of one entity, in a recorder: the first, and which of its kind's metrics are
/// kept (bit `k` for metric `k`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Columns {
    first: usize,
    kept: u32,
    all: bool,
}

impl SeriesRecorder {
    /// A recorder that expects about `rows` samples (its buffer is reserved once, so a run
    /// never holds more than it needs).
    pub fn new(rows: usize) -> Self {
        SeriesRecorder {
            expected_rows: rows,
            ..Default::default()
        }
    }

    /// Adds the columns of entity `name` of `kind` ("connection", "port") for the metrics of
    /// `S` that `selection` keeps (`None` when it keeps none: the entity is not sampled);
    /// `cell_time` is the cell time of the entity's link (needed by [`Reading::Cells`]
    /// metrics).
    pub fn add<S: Sample>(
        &mut self,
        kind: &'static str,
        name: &str,
        cell_time: Option<SimTime>,
        selection: &SampleSelection,
    ) -> Option<Columns> {
        if !selection.wants_entity(kind, name) {
            return None;
        }
        let first = self.cols.len();
        let mut kept = 0u32;
        for (k, m) in S::METRICS.iter().enumerate() {
            if !selection.wants_metric(m.name) {
                continue;
            }
            kept |= 1 << k;
            let col = self.cols.len();
            match m.reading {
                Reading::Level => {}
                Reading::Bytes => self.rates.push((col, Rate::Bytes)),
                Reading::Cells => self.rates.push((
                    col,
                    Rate::Cells(
                        cell_time.expect("a metric of cells on a link needs the link's cell time"),
                    ),
                )),
            }
            self.cols.push(Column {
                kind,
                entity: name.to_string(),
                metric: m.name,
            });
        }
        // Columns are added before the first sample, while every count is still 0: growing
        // the counts keeps them so (a fresh zeroed vector per entity cost time quadratic in
        // the entities: a tenth of a 10,000-connection parking lot's 6 s run).
        debug_assert!(
            self.times.is_empty(),
            "columns are added before the first sample"
        );
        self.counts.resize(self.rates.len(), 0.0);
        (kept != 0).then_some(Columns {
            first,
            kept,
            all: kept.count_ones() as usize == S::METRICS.len(),
        })
    }

    /// From now on, streams the rows to a new file at `path` in row groups of
    /// [`spill::group_rows`] rows (before the first sample; the file says it is incomplete
    /// until [`SeriesRecorder::into_series`] completes it).
    pub fn spill_to(&mut self, path: &std::path::Path) -> std::io::Result<()> {
        self.spill_in_groups(path, super::spill::group_rows(self.cols.len()))
    }

    /// [`SeriesRecorder::spill_to`] in row groups of `rows` rows.
    pub fn spill_in_groups(&mut self, path: &std::path::Path, rows: usize) -> std::io::Result<()> {
        assert!(
            self.times.is_empty(),
            "spill_to is called before the first sample"
        );
        self.spill = Some(SpillWriter::create(path, self.cols.len(), rows.max(1))?);
        Ok(())
    }

    /// Starts the sample at `now`; then [`SeriesRecorder::record`] each entity in the order
    /// they were added, then [`SeriesRecorder::end`].
    pub fn begin(&mut self, now: SimTime) {
        if self.times.is_empty() {
            let rows = match &self.spill {
                Some(w) => w.group_rows().min(self.expected_rows.max(1)),
                None => self.expected_rows.max(1),
            };
            self.values.reserve_exact(rows * self.cols.len());
            self.times.reserve_exact(self.expected_rows.max(1));
        }
        self.times.push(now);
    }

    /// Records `sample` into the columns of one entity.
    #[inline]
    pub fn record<S: Sample>(&mut self, at: Columns, sample: &S) {
        debug_assert_eq!(
            self.values.len() % self.cols.len().max(1),
            at.first,
            "entities are recorded in the order they were added"
        );
        debug_assert!(S::METRICS
            .iter()
            .enumerate()
            .filter(|(k, _)| at.kept & (1 << k) != 0)
            .zip(&self.cols[at.first..])
            .all(|((_, m), c)| c.metric == m.name));
        let row = sample.row();
        debug_assert_eq!(row.as_ref().len(), S::METRICS.len());
        if at.all {
            self.values.extend_from_slice(row.as_ref());
        } else {
            let kept = row.as_ref().iter().enumerate();
            self.values.extend(
                kept.filter(|(k, _)| at.kept & (1 << k) != 0)
                    .map(|(_, &v)| v),
            );
        }
    }

    /// Ends the sample started by [`SeriesRecorder::begin`]: the counts of its rate columns
    /// become rates over the interval since the previous sample (the first interval starts
    /// at time zero from zero counts) and, when spilling, a full row group goes to the file.
    pub fn end(&mut self) {
        let n = self.cols.len();
        debug_assert_eq!(self.values.len() % n.max(1), 0, "every entity recorded");
        let r = self.times.len() - 1;
        let prev_t = if r > 0 {
            self.times[r - 1]
        } else {
            SimTime::ZERO
        };
        let dt_ps = self.times[r] - prev_t;
        let (dt, dt_ps) = (dt_ps.as_secs_f64(), dt_ps.0 as f64);
        let start = self.values.len() - n;
        let row = &mut self.values[start..];
        for (&(c, rate), was) in self.rates.iter().zip(self.counts.iter_mut()) {
            let count = row[c];
            row[c] = match rate {
                Rate::Bytes if dt > 0.0 => (count - *was) * 8.0 / dt / 1e6,
                Rate::Cells(cell_time) if dt_ps > 0.0 => {
                    (count - *was) * (cell_time.0 as f64) / dt_ps
                }
                _ => 0.0,
            };
            *was = count;
        }
        if let Some(w) = &mut self.spill {
            if self.values.len() >= w.group_rows() * n.max(1) {
                w.write_rows(&self.values);
                self.values.clear();
            }
        }
    }

    /// Moves the samples out. A spilling recorder writes its last rows and the sample times
    /// and marks its file complete; the series then name the file instead of holding the
    /// values.
    pub fn into_series(mut self) -> Series {
        let file = self.spill.take().map(|mut w| {
            w.write_rows(&self.values);
            self.values = Vec::new();
            let times: Vec<f64> = self.times.iter().map(|t| t.as_secs_f64()).collect();
            w.complete(&times)
        });
        let values = std::mem::take(&mut self.values);
        self.series(file, values)
    }

    fn series(&self, file: Option<SeriesFile>, values: Vec<f64>) -> Series {
        Series {
            time_s: self.times.iter().map(|t| t.as_secs_f64()).collect(),
            columns: self
                .cols
                .iter()
                .map(|c| SeriesColumn {
                    kind: c.kind,
                    entity: c.entity.clone(),
                    metric: c.metric,
                })
                .collect(),
            values,
            file,
        }
    }

    /// A copy of the samples so far (of a spilling recorder: the times and names, its file
    /// named as incomplete).
    pub fn finish(&self) -> Series {
        match &self.spill {
            Some(w) => self.series(Some(w.incomplete()), Vec::new()),
            None => self.series(None, self.values.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> SampleSelection {
        SampleSelection::all()
    }

    /// A selection keeps the columns it names, and the kept ones hold what they would hold
    /// with every column kept.
    #[test]
    fn a_selection_keeps_what_it_names() {
        let only = |metrics: &[&str]| SampleSelection {
            metrics: Some(metrics.iter().map(|m| m.to_string()).collect()),
            ..SampleSelection::all()
        };
        let ms = SimTime::from_ms;
        let ct = Some(SimTime::from_us(1));
        let sample = |queue, sent| PortSample {
            queue,
            cells_sent: sent,
            cells_done: sent as f64,
            effective_cells: sent / 2,
            cells_dropped: 1,
        };
        let mut every = SeriesRecorder::new(2);
        let mut some = SeriesRecorder::new(2);
        let a = every.add::<PortSample>("port", "p", ct, &all()).unwrap();
        let b = some
            .add::<PortSample>("port", "p", ct, &only(&["utilization", "cells_dropped"]))
            .unwrap();
        let by_kind = SampleSelection {
            kinds: Some(vec!["connection".into()]),
            ..SampleSelection::all()
        };
        assert!(some.add::<PortSample>("port", "q", ct, &by_kind).is_none());
        assert!(some
            .add::<PortSample>("port", "q", ct, &only(&["goodput_mbps"]))
            .is_none());
        for (t, q, sent) in [(0, 3, 0), (10, 5, 5_000)] {
            for (r, at) in [(&mut every, a), (&mut some, b)] {
                r.begin(ms(t));
                r.record(at, &sample(q, sent));
                r.end();
            }
        }
        let (every, some) = (every.into_series(), some.into_series());
        let names: Vec<_> = some.columns.iter().map(|c| c.metric).collect();
        assert_eq!(names, ["utilization", "cells_dropped"]);
        assert_eq!(some.column(0), every.column(1));
        assert_eq!(some.column(1), every.column(4));
    }

    #[test]
    fn columns_are_named_and_rates_use_the_interval() {
        let mut r = SeriesRecorder::new(3);
        let ms = SimTime::from_ms;
        let at = r
            .add::<PortSample>("port", "A->B", Some(SimTime::from_us(1)), &all())
            .unwrap();
        let sample = |queue, sent| PortSample {
            queue,
            cells_sent: sent,
            cells_done: sent as f64,
            effective_cells: sent / 2,
            cells_dropped: 0,
        };
        for (t, q, sent) in [(0, 0, 0), (10, 5, 5_000), (20, 7, 15_000)] {
            r.begin(ms(t));
            r.record(at, &sample(q, sent));
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

    /// Counts stored as they stand and turned into rates at hand-over give the rates of a
    /// per-interval computation, a copy taken mid-run included, and levels pass unchanged.
    #[test]
    fn counts_become_rates_over_each_interval() {
        let mut r = SeriesRecorder::new(4);
        let ms = SimTime::from_ms;
        let at = r
            .add::<SourceSample>("connection", "s", None, &all())
            .unwrap();
        let sample = |bytes: u64| SourceSample {
            payload_bytes_delivered: bytes,
            cells_sent: bytes / 48,
            cells_delivered: bytes / 48,
            cells_dropped: 0,
        };
        let mut copies = Vec::new();
        for (t, bytes) in [(0, 0u64), (10, 12_500), (30, 37_500), (35, 37_500)] {
            r.begin(ms(t));
            r.record(at, &sample(bytes));
            r.end();
            copies.push(r.finish());
        }
        let s = r.into_series();
        // 12,500 B in 10 ms = 10 Mb/s; 25,000 B in 20 ms = 10 Mb/s; nothing in 5 ms.
        assert_eq!(s.column(0), vec![0.0, 10.0, 10.0, 0.0]);
        assert_eq!(s.column(1), vec![0.0, 260.0, 781.0, 781.0]);
        for (k, c) in copies.iter().enumerate() {
            assert_eq!(
                c.column(0),
                s.column(0)[..=k].to_vec(),
                "copy after sample {k}"
            );
        }
    }

    /// A recorder that streams its rows to a file in row groups writes the values an
    /// in-memory one holds, to the bit, and the times after them.
    #[test]
    fn a_spilled_series_holds_the_values_of_one_in_memory() {
        let dir = std::env::temp_dir().join(format!("atmsim-series-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.bin");
        let ms = SimTime::from_ms;
        let mut mem = SeriesRecorder::new(5);
        let mut disk = SeriesRecorder::new(5);
        let mut cols = Vec::new();
        for r in [&mut mem, &mut disk] {
            cols.push(
                r.add::<SourceSample>("connection", "s", None, &all())
                    .unwrap(),
            );
        }
        disk.spill_in_groups(&path, 2).unwrap();
        for (t, bytes) in [
            (0, 0u64),
            (10, 12_345),
            (30, 37_501),
            (30, 37_501),
            (45, 99_999),
        ] {
            for (r, &at) in [&mut mem, &mut disk].into_iter().zip(&cols) {
                r.begin(ms(t));
                r.record(
                    at,
                    &SourceSample {
                        payload_bytes_delivered: bytes,
                        cells_sent: bytes / 48,
                        cells_delivered: bytes / 53,
                        cells_dropped: 1,
                    },
                );
                r.end();
            }
            assert!(!disk.finish().file.unwrap().complete);
        }
        let (mem, disk) = (mem.into_series(), disk.into_series());
        let file = disk.file.clone().unwrap();
        assert!(file.complete && file.error.is_none());
        assert_eq!((file.rows, file.group_rows), (5, 2));
        assert!(disk.values.is_empty());
        let b = std::fs::read(&path).unwrap();
        let floats: Vec<u64> = b[super::super::spill::HEADER_BYTES as usize..]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(floats[..20], bits(&mem.values)[..]);
        assert_eq!(floats[20..], bits(&mem.time_s)[..]);
        assert_eq!(disk.time_s, mem.time_s);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    #[should_panic(expected = "cell time")]
    fn a_link_metric_needs_the_link_cell_time() {
        SeriesRecorder::new(1).add::<PortSample>("port", "p", None, &all());
    }

    /// Each kind's row has one value per declared metric.
    #[test]
    fn rows_match_their_metrics() {
        fn n<S: Sample>(s: S) -> (usize, usize) {
            (s.row().as_ref().len(), S::METRICS.len())
        }
        let tcp = TcpSample {
            delivered_bytes: 0,
            received_bytes: 0,
            cwnd: 0,
            ssthresh: 0,
            srtt: None,
            rto: SimTime::ZERO,
            segments_sent: 0,
            retransmits: 0,
            cells_sent: 0,
            cells_dropped: 0,
        };
        let port = PortSample {
            queue: 0,
            cells_sent: 0,
            cells_done: 0.0,
            effective_cells: 0,
            cells_dropped: 0,
        };
        let abr = AbrSample {
            acr: 0.0,
            source_queue: 0,
        };
        let source = SourceSample {
            payload_bytes_delivered: 0,
            cells_sent: 0,
            cells_delivered: 0,
            cells_dropped: 0,
        };
        for (got, want) in [n(tcp), n(port), n(abr), n(source)] {
            assert_eq!(got, want);
        }
    }
}
