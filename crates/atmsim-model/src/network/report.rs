//! Counters at warm-up, time-series samples and the summary.

use super::{Conn, Event, Network};
use crate::cell::{Cell, CELL_BITS, CELL_PAYLOAD_BYTES};
use crate::ids::{PortId, SourceId, TcpId};
use crate::port::policy::DropReason;
use crate::stats::series::{AbrSample, Columns, PortSample, RateSample, SourceSample, TcpSample};
use crate::stats::{self, Report, SeriesRecorder};
use crate::vc::LossCause;
use atmsim_engine::SimTime;

/// Bytes of the ranges `held` (out-of-order data kept at the warm-up, each above the
/// in-order point then) that lie below `rcv_nxt`: delivered in order since.
fn held_delivered(held: &[(u64, u64)], rcv_nxt: u64) -> u64 {
    held.iter()
        .map(|&(start, end)| end.min(rcv_nxt).saturating_sub(start))
        .sum()
}

/// Counters of a connection that are snapshotted at warm-up.
#[derive(Debug, Clone, Default)]
pub(crate) struct ConnCounters {
    pub delivered_bytes: u64,
    pub received_bytes: u64,
    pub segments_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub packets_delivered: u64,
    pub packets_distinct: u64,
    pub rtt_samples: u64,
    pub rtt_sum: SimTime,
    pub cells_sent: u64,
    pub cells_delivered: u64,
    /// Cells lost, by cause ([`LossCause::index`]).
    pub drops: [u64; LossCause::COUNT],
    pub frames_corrupted: u64,
    /// ECN: data segments received CE, ACKs received with ECE, ECN window reductions.
    pub ecn: [u64; 3],
}

impl ConnCounters {
    fn minus(&self, b: &ConnCounters) -> ConnCounters {
        ConnCounters {
            delivered_bytes: self.delivered_bytes - b.delivered_bytes,
            received_bytes: self.received_bytes - b.received_bytes,
            segments_sent: self.segments_sent - b.segments_sent,
            retransmits: self.retransmits - b.retransmits,
            timeouts: self.timeouts - b.timeouts,
            fast_retransmits: self.fast_retransmits - b.fast_retransmits,
            packets_delivered: self.packets_delivered - b.packets_delivered,
            packets_distinct: self.packets_distinct - b.packets_distinct,
            rtt_samples: self.rtt_samples - b.rtt_samples,
            rtt_sum: self.rtt_sum - b.rtt_sum,
            cells_sent: self.cells_sent - b.cells_sent,
            cells_delivered: self.cells_delivered - b.cells_delivered,
            drops: std::array::from_fn(|i| self.drops[i] - b.drops[i]),
            frames_corrupted: self.frames_corrupted - b.frames_corrupted,
            ecn: std::array::from_fn(|i| self.ecn[i] - b.ecn[i]),
        }
    }

    /// Cells lost, every cause.
    pub fn cells_dropped(&self) -> u64 {
        self.drops.iter().sum()
    }

    /// Cells sent and neither delivered nor lost yet: inside the network (counts from the
    /// start of the run).
    fn cells_in_flight(&self) -> u64 {
        self.cells_sent - self.cells_delivered - self.cells_dropped()
    }

    fn add(&mut self, d: &ConnCounters) {
        self.segments_sent += d.segments_sent;
        self.retransmits += d.retransmits;
        self.cells_sent += d.cells_sent;
        self.cells_delivered += d.cells_delivered;
        for (t, x) in self.drops.iter_mut().zip(d.drops) {
            *t += x;
        }
    }
}

/// Where a VC's cells stood at one port of its path when the warm-up ended: frames after
/// `frame` had not reached the port; of `frame` itself, `cells_left` cells had not yet crossed
/// it (`u32::MAX`: none of the VC's cells was on its way to the port, so every frame from
/// `frame` on, the first not yet handed to the source adapter, crosses it later); earlier
/// frames had crossed it whole.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frontier {
    frame: u32,
    cells_left: u32,
}

/// The series columns of every entity, in the order they were added.
pub(crate) struct SeriesLayout {
    /// Per connection and per port, its columns (`None`: not sampled).
    pub conns: Vec<Option<Columns>>,
    pub ports: Vec<Option<Columns>>,
    /// ABR connections: (the ABR source of the forward VC, its columns).
    pub abr: Vec<(u32, Columns)>,
    /// Ports with a rate control: (port, its columns).
    pub erica: Vec<(usize, Columns)>,
}

/// Cell losses by cause, by name (every cause, zeros included).
fn loss_names(drops: &[u64; LossCause::COUNT]) -> std::collections::BTreeMap<String, u64> {
    LossCause::ALL
        .iter()
        .map(|c| (c.name().to_string(), drops[c.index()]))
        .collect()
}

/// Entities a sample asks for ahead of the one it reads.
const PREFETCH_AHEAD: usize = 6;

/// Asks for `lines` cache lines from the start of `x` with a non-temporal hint: a sample reads
/// thousands of entities once each, and the hint keeps them from displacing the simulation's
/// working set from the core's larger caches (nothing on other architectures).
#[inline(always)]
fn prefetch_aside<T>(x: &T, lines: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_NTA};
        let p = (x as *const T).cast::<i8>();
        for l in 0..lines {
            // SAFETY: a prefetch is a hint; it never faults nor changes memory, whatever the
            // address (SSE is part of every x86-64 target).
            unsafe { _mm_prefetch::<_MM_HINT_NTA>(p.wrapping_add(64 * l)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (x, lines);
}

impl Network {
    /// Declares the series columns: every connection (TCP or cell source), then every port.
    pub(super) fn layout_series(&mut self) -> SeriesLayout {
        let rows = if self.sample_every > SimTime::ZERO {
            (self.duration.0 / self.sample_every.0) as usize + 1
        } else {
            0
        };
        let mut rec = SeriesRecorder::new(rows);
        let sel = &self.sample;
        let conns = self
            .conns
            .iter()
            .map(|c| match *c {
                Conn::Tcp(t) => {
                    rec.add::<TcpSample>("connection", &self.tcps[t.idx()].name, None, sel)
                }
                Conn::Source(s) => {
                    rec.add::<SourceSample>("connection", &self.sources[s.idx()].name, None, sel)
                }
            })
            .collect();
        let mut host = vec![false; self.node_names.len()];
        for h in &self.hosts {
            host[h.node.idx()] = true;
        }
        let ports = self
            .ports
            .iter()
            .zip(&self.channels)
            .map(|(p, ch)| {
                let host_link = host[p.node.idx()] || host[ch.to_node.idx()];
                if !sel.wants_port(&p.name, host_link) {
                    return None;
                }
                rec.add::<PortSample>("port", &p.name, Some(ch.cell_time), sel)
            })
            .collect();
        let mut abr = Vec::new();
        for c in &self.conns {
            let (name, vc) = match *c {
                Conn::Tcp(t) => (&self.tcps[t.idx()].name, self.tcps[t.idx()].data_vc),
                Conn::Source(s) => (&self.sources[s.idx()].name, self.sources[s.idx()].vc),
            };
            if let Some(a) = self.vcs[vc.idx()].abr {
                if let Some(cols) = rec.add::<AbrSample>("abr", name, None, sel) {
                    abr.push((a, cols));
                }
            }
        }
        let erica = self
            .ports
            .iter()
            .enumerate()
            .filter(|(_, p)| p.rate.as_ref().is_some_and(|r| r.stats().is_some()))
            .filter_map(|(k, p)| {
                Some((
                    k,
                    rec.add::<RateSample>("rate_control", &p.name, None, sel)?,
                ))
            })
            .collect();
        self.series = rec;
        SeriesLayout {
            conns,
            ports,
            abr,
            erica,
        }
    }

    pub(super) fn tcp_counters(&self, t: TcpId) -> ConnCounters {
        let c = &self.tcps[t.idx()];
        let s = c.sender.stats();
        let d = &self.vcs[c.data_vc.idx()].counters;
        let a = &self.vcs[c.ack_vc.idx()].counters;
        ConnCounters {
            delivered_bytes: c.receiver.rcv_nxt(),
            received_bytes: c.receiver.bytes_received(),
            segments_sent: s.segments_sent,
            retransmits: s.retransmits,
            timeouts: s.timeouts,
            fast_retransmits: s.fast_retransmits,
            packets_delivered: c.packets_delivered,
            packets_distinct: c.receiver.segments_new(),
            rtt_samples: s.rtt_samples,
            rtt_sum: s.rtt_sum,
            cells_sent: d.cells_sent + a.cells_sent,
            cells_delivered: d.cells_delivered + a.cells_delivered,
            drops: std::array::from_fn(|i| d.drops[i] + a.drops[i]),
            frames_corrupted: d.frames_corrupted + a.frames_corrupted,
            ecn: [c.receiver.segments_ce(), s.ece_acks, s.ecn_reductions],
        }
    }

    /// A cell source's counters: its payload is 48 bytes per data cell delivered (an ABR
    /// source's RM cells count as cells, never as payload).
    fn source_counters(&self, s: SourceId) -> ConnCounters {
        let v = &self.vcs[self.sources[s.idx()].vc.idx()].counters;
        let payload = (v.cells_delivered - v.rm_cells_delivered) * CELL_PAYLOAD_BYTES as u64;
        ConnCounters {
            delivered_bytes: payload,
            received_bytes: payload,
            cells_sent: v.cells_sent,
            cells_delivered: v.cells_delivered,
            drops: v.drops,
            ..Default::default()
        }
    }

    fn counters(&self, c: Conn) -> ConnCounters {
        match c {
            Conn::Tcp(t) => self.tcp_counters(t),
            Conn::Source(s) => self.source_counters(s),
        }
    }

    pub(super) fn on_warmup(&mut self, now: SimTime) {
        if self.warmed_up {
            return; // a zero warm-up: the snapshot was taken when the network was built
        }
        for i in 0..self.tcps.len() {
            self.tcps[i].at_warmup = self.tcp_counters(TcpId(i as u32));
            let held = self.tcps[i].receiver.held().to_vec();
            self.tcps[i].held_at_warmup = held;
        }
        for i in 0..self.sources.len() {
            let s = SourceId(i as u32);
            self.source_warmup[i] = self.source_counters(s);
            if let Some(d) = &mut self.vcs[self.sources[i].vc.idx()].delay {
                d.count = 0;
                d.sum = SimTime::ZERO;
                d.max = SimTime::ZERO;
            }
        }
        for p in &mut self.ports {
            p.at_warmup = p.counters.clone();
        }
        self.in_flight_at_warmup = self.cells_in_flight();
        self.tx_left_at_warmup = (0..self.ports.len())
            .map(|k| self.tx_left(k, now))
            .collect();
        self.eff_frontier = self.effective_frontier();
        self.warmed_up = true;
    }

    /// How much of the cell port `k` is transmitting at `now` is still to go (zero if idle).
    fn tx_left(&self, k: usize, now: SimTime) -> SimTime {
        let ch = &self.channels[k];
        // A cell in transmission is the last one on the lane: it enters the link when its
        // transmission ends, and reaches the far end `arrive_after` later.
        ch.lane.tail_time().map_or(SimTime::ZERO, |exit| {
            (exit - ch.arrive_after).saturating_sub(now)
        })
    }

    /// Where each framed VC's cells stand now, port by port ([`Frontier`]): a frame that
    /// arrives intact later is credited to a port's effective count only for its cells that
    /// cross the port from now on. Cells of a VC keep their order, so the oldest of its cells
    /// not yet through a port marks the frontier there.
    fn effective_frontier(&self) -> Vec<Vec<Frontier>> {
        let mut front: Vec<Vec<Frontier>> = self
            .vcs
            .iter()
            .map(|v| {
                let none = Frontier {
                    frame: v.counters.frames_sent as u32,
                    cells_left: u32::MAX,
                };
                if v.aal5 {
                    vec![none; v.path.len()]
                } else {
                    Vec::new()
                }
            })
            .collect();
        // A data cell of VC `vc`, frame `frame`, not yet through the ports from hop `h0` on.
        let mut see = |vc: usize, h0: usize, frame: u32| {
            for f in front[vc].iter_mut().skip(h0) {
                if frame < f.frame || f.cells_left == u32::MAX {
                    *f = Frontier {
                        frame,
                        cells_left: 1,
                    };
                } else if frame == f.frame {
                    f.cells_left += 1;
                }
            }
        };
        let hop = |vc: usize, port: PortId| self.vcs[vc].path.iter().position(|&p| p == port);
        for v in &self.abr {
            for c in v.source.queued_cells() {
                see(c.vc.idx(), 0, c.frame);
            }
        }
        for (k, port) in self.ports.iter().enumerate() {
            let here = PortId(k as u32);
            for c in port.sched.cells().filter(|c| c.is_data()) {
                let vc = c.vc.idx();
                if self.vcs[vc].abr.is_some() && self.vcs[vc].first.0 == here {
                    continue; // an ABR source's placeholder: its cell waits at the source
                }
                if let Some(h) = hop(vc, here) {
                    see(vc, h, c.frame);
                }
            }
            let on_link = self.channels[k].lane.iter().map(|&w| Cell::from(w));
            for c in on_link.filter(|c| c.is_data()) {
                if let Some(h) = hop(c.vc.idx(), here) {
                    see(c.vc.idx(), h + 1, c.frame);
                }
            }
        }
        for sw in &self.switches {
            for &((upstream, _), b) in &sw.merge_in {
                for c in &self.merge_buffers[b as usize] {
                    if let Some(h) = hop(c.vc.idx(), upstream) {
                        see(c.vc.idx(), h + 1, c.frame);
                    }
                }
            }
        }
        front
    }

    /// Cells of frame `frame` (`cells` in all) of VC `vc` that crossed the `h`-th port of its
    /// path after the warm-up (all of them before it ends).
    #[inline]
    pub(super) fn effective_cells(&self, vc: usize, h: usize, frame: u32, cells: u32) -> u32 {
        match self.eff_frontier.get(vc).and_then(|f| f.get(h)) {
            None => cells,
            Some(f) if frame > f.frame => cells,
            Some(f) if frame == f.frame => f.cells_left.min(cells),
            Some(_) => 0,
        }
    }

    #[inline(never)]
    pub(super) fn on_sample(&mut self, now: SimTime) {
        let layout = self.series_layout.take().expect("series laid out");
        self.series.begin(now);
        for (k, &c) in self.conns.iter().enumerate() {
            let Some(cols) = layout.conns[k] else {
                continue;
            };
            if let Some(&Conn::Tcp(ahead)) = self.conns.get(k + PREFETCH_AHEAD) {
                // A connection's sample reads its sender, receiver and both VCs' counters:
                // a dozen lines in four places, asked for ahead so their misses overlap.
                let t = &self.tcps[ahead.idx()];
                prefetch_aside(&t.sender, 4);
                prefetch_aside(&t.receiver, 2);
                prefetch_aside(&self.vcs[t.data_vc.idx()].counters, 2);
                prefetch_aside(&self.vcs[t.ack_vc.idx()].counters, 2);
            }
            match c {
                Conn::Tcp(t) => {
                    // What `tcp_counters` gives, reading only the fields sampled.
                    let c = &self.tcps[t.idx()];
                    let (s, st) = (&c.sender, c.sender.stats());
                    let d = &self.vcs[c.data_vc.idx()].counters;
                    let a = &self.vcs[c.ack_vc.idx()].counters;
                    let sample = TcpSample {
                        delivered_bytes: c.receiver.rcv_nxt(),
                        received_bytes: c.receiver.bytes_received(),
                        cwnd: s.cwnd(),
                        ssthresh: s.ssthresh(),
                        srtt: s.srtt(),
                        rto: s.rto(),
                        segments_sent: st.segments_sent,
                        retransmits: st.retransmits,
                        cells_sent: d.cells_sent + a.cells_sent,
                        cells_dropped: d.cells_dropped() + a.cells_dropped(),
                    };
                    self.series.record(cols, &sample);
                }
                Conn::Source(s) => {
                    let k_ = self.source_counters(s);
                    let sample = SourceSample {
                        payload_bytes_delivered: k_.delivered_bytes,
                        cells_sent: k_.cells_sent,
                        cells_delivered: k_.cells_delivered,
                        cells_dropped: k_.cells_dropped(),
                    };
                    self.series.record(cols, &sample);
                }
            }
        }
        for (k, p) in self.ports.iter().enumerate() {
            let Some(cols) = layout.ports[k] else {
                continue;
            };
            if let Some(ahead) = self.ports.get(k + PREFETCH_AHEAD) {
                prefetch_aside(ahead, 1);
            }
            let ct = self.channels[k].cell_time;
            let left = self.tx_left(k, now).0 as f64 / ct.0 as f64;
            let sample = PortSample {
                queue: p.occupancy(),
                cells_sent: p.counters.cells_sent,
                cells_done: p.counters.cells_sent as f64 - left,
                effective_cells: p.counters.effective_cells,
                cells_dropped: p.counters.dropped(),
            };
            self.series.record(cols, &sample);
        }
        for &(a, cols) in &layout.abr {
            let s = &self.abr[a as usize].source;
            let sample = AbrSample {
                acr: s.acr(),
                source_queue: s.queued(),
            };
            self.series.record(cols, &sample);
        }
        for &(k, cols) in &layout.erica {
            let p = &self.ports[k];
            let st = p
                .rate
                .as_ref()
                .and_then(|r| r.stats())
                .expect("a measuring rate control");
            let sample = RateSample {
                stats: st,
                abr_queue: p.abr_queue(),
            };
            self.series.record(cols, &sample);
        }
        self.series.end();
        self.series_layout = Some(layout);
        let next = now + self.sample_every;
        if next <= self.duration {
            self.queue.schedule(next, Event::Sample);
        }
    }

    /// Streams the time series to a new file at `path` during the run, a row group at a time
    /// ([`stats::spill`]), instead of keeping them in memory: the report then names the file
    /// ([`stats::Series::file`]). Called before the run starts.
    pub fn spill_series(&mut self, path: &std::path::Path) -> std::io::Result<()> {
        self.series.spill_to(path)
    }

    /// The summary and time series of the run so far (the series are copied; see
    /// [`Network::into_report`]).
    pub fn report(&self) -> Report {
        let mut r = self.summary_report();
        r.series = self.series.finish();
        r
    }

    /// The summary and time series, moving the series out instead of copying them.
    pub fn into_report(mut self) -> Report {
        let mut r = self.summary_report();
        r.series = std::mem::take(&mut self.series).into_series();
        r
    }

    fn summary_report(&self) -> Report {
        let end = self.duration.min(self.ran_until);
        let measured = end.saturating_sub(self.warmup);
        let secs = measured.as_secs_f64();
        let mbps = |bytes: u64| {
            if secs > 0.0 {
                bytes as f64 * 8.0 / secs / 1e6
            } else {
                0.0
            }
        };
        let pct = |num: u64, den: u64| {
            if den > 0 {
                100.0 * num as f64 / den as f64
            } else {
                0.0
            }
        };
        let mut connections = Vec::new();
        let mut tot = ConnCounters::default();
        let mut in_flight_at_warmup = 0;
        let mut tcp_goodputs = Vec::new();
        let mut tcp_throughputs = Vec::new();
        for &c in &self.conns {
            let now_k = self.counters(c);
            let at_warmup = match c {
                Conn::Tcp(t) => &self.tcps[t.idx()].at_warmup,
                Conn::Source(s) => &self.source_warmup[s.idx()],
            };
            let base = if self.warmed_up {
                at_warmup.clone()
            } else {
                now_k.clone()
            };
            let mut d = now_k.minus(&base);
            // The connection's cells inside the network: when the warm-up ended (where its
            // counts start) and now. A cell lost in the span was sent in it or was one of
            // the first, so the loss ratio is taken over both and stays within 100%.
            let in_flight_end = now_k.cells_in_flight();
            let in_flight_start = if self.warmed_up {
                base.cells_in_flight()
            } else {
                in_flight_end
            };
            in_flight_at_warmup += in_flight_start;
            if let (Conn::Tcp(t), true) = (c, self.warmed_up) {
                // In-order data delivered since the warm-up that had arrived before it (held
                // behind a hole then) is not goodput of the measured span: without this a
                // connection's goodput could exceed what it received in the span.
                let tcp = &self.tcps[t.idx()];
                d.delivered_bytes -= held_delivered(&tcp.held_at_warmup, now_k.delivered_bytes);
            }
            let (name, vc, max_cwnd, delay) = match c {
                Conn::Tcp(t) => {
                    let tcp = &self.tcps[t.idx()];
                    let max_cwnd = tcp.sender.stats().max_cwnd;
                    (&tcp.name, tcp.data_vc, max_cwnd, None)
                }
                Conn::Source(s) => {
                    let src = &self.sources[s.idx()];
                    let d = self.vcs[src.vc.idx()].delay.as_ref();
                    (&src.name, src.vc, 0, d)
                }
            };
            let ecn = matches!(c, Conn::Tcp(t) if self.tcps[t.idx()].sender.ecn());
            let vc = &self.vcs[vc.idx()];
            let abr = vc.abr.map(|a| &self.abr[a as usize].source);
            let summary = stats::ConnectionSummary {
                name: name.clone(),
                goodput_mbps: mbps(d.delivered_bytes),
                throughput_mbps: mbps(d.received_bytes),
                packets_sent: d.segments_sent,
                packets_delivered: d.packets_delivered,
                packets_distinct: d.packets_distinct,
                retransmissions: d.retransmits,
                retransmission_pct: pct(d.retransmits, d.segments_sent),
                timeouts: d.timeouts,
                fast_retransmits: d.fast_retransmits,
                cells_sent: d.cells_sent,
                cells_delivered: d.cells_delivered,
                cells_dropped: d.cells_dropped(),
                drops_by_reason: loss_names(&d.drops),
                cells_in_flight_at_warmup: in_flight_start,
                cells_in_flight: in_flight_end,
                cell_loss_pct: pct(d.cells_dropped(), d.cells_sent + in_flight_start),
                frames_corrupted: d.frames_corrupted,
                mean_rtt_ms: if d.rtt_samples > 0 {
                    d.rtt_sum.as_millis_f64() / d.rtt_samples as f64
                } else {
                    0.0
                },
                max_cwnd_bytes: max_cwnd,
                service: vc.service.name(),
                source: match c {
                    Conn::Tcp(_) => "tcp",
                    Conn::Source(s) => self.sources[s.idx()].kind,
                },
                cell_delay_mean_us: delay
                    .filter(|d| d.count > 0)
                    .map(|d| d.sum.as_micros_f64() / d.count as f64),
                cell_delay_max_us: delay.filter(|d| d.count > 0).map(|d| d.max.as_micros_f64()),
                acr_mbps: abr.map(|a| a.acr() * CELL_BITS as f64 / 1e6),
                source_queue_max_cells: abr.map(|a| a.counters.max_queue),
                cells_lost_at_source: abr.map(|a| a.counters.cells_lost),
                rm_cells_sent: abr.map(|a| a.counters.frm_sent),
                rm_cells_turned: abr.map(|_| vc.rm_turned),
                rm_cells_turned_ci: abr.map(|_| vc.rm_turned_ci),
                source_overflows: abr.map(|a| a.counters.overflows),
                ecn_ce_frames: ecn.then_some(d.ecn[0]),
                ecn_ece_acks: ecn.then_some(d.ecn[1]),
                ecn_window_reductions: ecn.then_some(d.ecn[2]),
            };
            if let Conn::Tcp(_) = c {
                tcp_goodputs.push(summary.goodput_mbps);
                tcp_throughputs.push(summary.throughput_mbps);
            }
            connections.push(summary);
            tot.add(&d);
        }
        let ports = self
            .ports
            .iter()
            .enumerate()
            .map(|(k, p)| {
                let base = if self.warmed_up {
                    &p.at_warmup
                } else {
                    &p.counters
                };
                let d = p.counters.minus(base);
                let ch = &self.channels[k];
                let ct = ch.cell_time;
                let share = |busy: u128| {
                    if measured.0 > 0 {
                        busy as f64 / measured.0 as f64
                    } else {
                        0.0
                    }
                };
                // Busy time inside the measured span: the cells started in it, plus what was
                // left of the cell in transmission when it began, less what is left of the
                // one in transmission at its end.
                let (left_start, left_end) = if self.warmed_up {
                    (self.tx_left_at_warmup[k], self.tx_left(k, end))
                } else {
                    (SimTime::ZERO, SimTime::ZERO)
                };
                let busy = (u128::from(d.cells_sent) * u128::from(ct.0) + u128::from(left_start.0))
                    .saturating_sub(u128::from(left_end.0));
                // Cells of intact frames: all crossed the port inside the span.
                let effective = u128::from(d.effective_cells) * u128::from(ct.0);
                stats::PortSummary {
                    name: p.name.clone(),
                    node: self.node_names[p.node.idx()].clone(),
                    to: self.node_names[ch.to_node.idx()].clone(),
                    max_queue_cells: p.max_occupancy,
                    rate_control: p.rate.as_ref().map(|r| r.name()),
                    rm_cells_marked: p.rate.as_ref().map(|_| p.rm_marked),
                    cells_sent: d.cells_sent,
                    cells_dropped: d.dropped(),
                    drops_by_reason: DropReason::ALL
                        .iter()
                        .map(|r| (r.name().to_string(), d.drops[*r as usize]))
                        .collect(),
                    utilization: share(busy),
                    effective_utilization: share(effective),
                    efci_marked: p.marks_efci().then_some(p.efci_marked),
                }
            })
            .collect();
        let sync = stats::synchronisation(&self.decreases, self.tcps.len(), measured);
        let totals = stats::Totals {
            goodput_mbps: stats::sum(&tcp_goodputs),
            throughput_mbps: stats::sum(&tcp_throughputs),
            cell_loss_pct: pct(tot.cells_dropped(), tot.cells_sent + in_flight_at_warmup),
            retransmission_pct: pct(tot.retransmits, tot.segments_sent),
            fairness_index: stats::jain_index(&tcp_goodputs),
            cells_sent: tot.cells_sent,
            cells_delivered: tot.cells_delivered,
            cells_dropped: tot.cells_dropped(),
            drops_by_reason: loss_names(&tot.drops),
            cells_in_flight: self.cells_in_flight(),
            // Before the warm-up ends every count is zero, and so is this balance's start.
            cells_in_flight_at_warmup: if self.warmed_up {
                self.in_flight_at_warmup
            } else {
                self.cells_in_flight()
            },
            window_decreases: self.decreases.len() as u64,
            window_sync_pct: sync.observed_pct,
            window_sync_expected_pct: sync.expected_pct,
            window_sync_sessions_pct: sync.sessions_pct,
            window_sync_sessions_expected_pct: sync.sessions_expected_pct,
        };
        let summary = stats::Summary {
            scenario: self.name.clone(),
            atmsim_version: env!("CARGO_PKG_VERSION").to_string(),
            seed: self.seed,
            simulated_s: end.as_secs_f64(),
            warmup_s: self.warmup.as_secs_f64(),
            wall_s: 0.0,
            events: self.events(),
            cell_hops: self.cell_hops,
            fingerprint: self.fingerprint(),
            connections,
            ports,
            totals,
        };
        Report {
            summary,
            series: Default::default(),
        }
    }
}
