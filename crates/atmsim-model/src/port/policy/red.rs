//! Random Early Detection (Floyd & Jacobson 1993, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1(4), their detailed algorithm), in packet mode
//! on AAL5 frames: the decision is taken at a frame's first cell and applies to the whole
//! frame.
//!
//! At the first cell of a frame, with q the cells queued in the shared buffer:
//!
//! - the average queue is updated, `avg <- (1 - w_q) avg + w_q q`, or, if the queue is empty,
//!   decayed for the time it has been idle, `avg <- (1 - w_q)^m avg` with
//!   `m = (now - q_time) / s`: q_time the time the queue went empty, s the transmission time
//!   of a typical frame (`packet_size` cells at the link's cell time), so an idle period
//!   counts as m frames that found the queue empty;
//! - below `min_th` the frame is admitted (and `count <- -1`); from `max_th` up it is dropped
//!   (`count <- 0`); in between `count` (the frames since the last drop) goes up by one and
//!   the frame is dropped with probability `p_a = p_b / (1 - count p_b)`, where
//!   `p_b = max_p (avg - min_th) / (max_th - min_th)` (`p_a = 1` once `count p_b >= 1`), a
//!   uniform draw from the port's own random stream; a drop sets `count <- 0`.
//!
//! A dropped frame is dropped whole, its EOM included, as early packet discard drops it; an
//! admitted frame that overflows the buffer loses the rest of its cells but its EOM (partial
//! packet discard). Both go through [`FrameState::early_discard`].
//!
//! Cells, not frames, flow through the buffer, so the idle decay is taken piecewise: any cell
//! the policy sees arriving at an empty queue (the first cell of a frame, or a later cell of
//! a frame in progress) decays the average for the time since the queue went empty (or since
//! the last such decay), which multiplies to the one decay over the whole idle period; the
//! port tells the policy when its queue empties ([`AdmissionPolicy::on_departure`]). The
//! policy never sees an RM cell arrive: one that arrives at an empty queue ends the idle
//! period without decaying the average for it (its departure restarts the idle clock). Cells
//! of non-AAL5 VCs (a VBR source's) are not seen at all, arriving or leaving: the time the
//! queue holds only such cells counts as idle.
//!
//! Thresholds are fractions of the reference buffer, the port's shared queue, as EPD's are
//! (the paper gives them in packets, e.g. 5 and 15, and advises max_th at least twice
//! min_th); its weights are w_q = 0.002 and max_p = 1/50, the defaults here. The paper's
//! byte mode is not modelled.
//!
//! Marking instead of dropping (`ecn_mark = true`; RFC 3168 section 7, the paper's own
//! variant): a frame the random rule chooses between min_th and max_th is admitted with its
//! first cell's EFCI bit set, which the receiving edge turns into Congestion Experienced for
//! an ECN-capable TCP; `count` restarts as after a drop. From max_th up frames are still
//! dropped, and a frame that overflows the buffer still loses its tail.

use super::{
    AdmissionPolicy, DropReason, FrameState, Invalid, PortInfo, PortView, VcShare, Verdict,
};
use crate::cell::Cell;
use crate::ids::Label;
use atmsim_engine::{RngStream, SimTime};
use atmsim_units::Cells;
use serde::{Deserialize, Serialize};

/// `kind = "red"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedConfig {
    /// min_th as a fraction of the buffer, in (0, 1): below it the average admits every frame.
    pub min_th: f64,
    /// max_th as a fraction of the buffer, min_th < max_th <= 1: from it on every frame is
    /// dropped.
    pub max_th: f64,
    /// w_q, the weight of a new sample in the average, in (0, 1] (the paper: 0.002).
    #[serde(default = "w_q_default")]
    pub w_q: f64,
    /// max_p, the drop probability p_b reaches at max_th, in (0, 1] (the paper: 1/50).
    #[serde(default = "max_p_default")]
    pub max_p: f64,
    /// A typical frame's size: an idle period of m times its transmission time decays the
    /// average as m frames finding the queue empty would (the paper's s).
    pub packet_size: Cells,
    /// Mark the frames the random rule chooses (EFCI on their first cell) instead of dropping
    /// them (RFC 3168 section 7); frames from max_th up are dropped either way.
    #[serde(default, skip_serializing_if = "is_false")]
    pub ecn_mark: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn w_q_default() -> f64 {
    0.002
}
fn max_p_default() -> f64 {
    0.02
}

#[derive(Debug, Clone)]
pub struct Red {
    /// Boxed: inline, they would make RED's state the largest policy's by 48 bytes and every
    /// `Port` a cache line longer.
    params: Box<RedParams>,
    /// The average queue [cells].
    avg: f64,
    /// Frames since the last drop (-1: the average was below min_th).
    count: i32,
    /// The queue has been empty since then (or the average was decayed to then); meaningful
    /// only while the queue is empty.
    q_time: SimTime,
    rng: RngStream,
    vcs: Vec<FrameState>,
}

#[derive(Debug, Clone)]
struct RedParams {
    min_th: f64,
    max_th: f64,
    w_q: f64,
    max_p: f64,
    /// s [ps].
    s: f64,
    /// Mark the randomly chosen frames instead of dropping them.
    ecn_mark: bool,
}

impl Red {
    /// The average queue [cells].
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// The decision at a frame's first cell, from the updated average and the buffer's size
    /// [cells]: `None` admits the frame, [`Decision::Mark`] admits it marked.
    #[inline]
    fn decide(&mut self, size: u32) -> Decision {
        let k = &*self.params;
        let (min, max) = (k.min_th * size as f64, k.max_th * size as f64);
        if self.avg >= max {
            self.count = 0;
            return Decision::Drop;
        }
        if self.avg < min {
            self.count = -1;
            return Decision::Admit;
        }
        self.count += 1;
        let p_b = k.max_p * (self.avg - min) / (max - min);
        let n = self.count as f64 * p_b;
        let p_a = if n >= 1.0 { 1.0 } else { p_b / (1.0 - n) };
        if self.rng.uniform() < p_a {
            self.count = 0;
            if k.ecn_mark {
                Decision::Mark
            } else {
                Decision::Drop
            }
        } else {
            Decision::Admit
        }
    }
}

/// RED's decision at a frame's first cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decision {
    Admit,
    Mark,
    Drop,
}

impl AdmissionPolicy for Red {
    type Config = RedConfig;
    const EXAMPLE: &'static str = r#"{ kind = "red", min_th = 0.25, max_th = 0.75, w_q = 0.002, max_p = 0.02, packet_size = "12 cells" }"#;

    const NEEDS_PORT_BUFFER: bool = true;
    const WANTS_DEPARTURES: bool = true;

    fn new(c: &RedConfig, port: &PortInfo, rng: RngStream) -> Self {
        Red {
            params: Box::new(RedParams {
                min_th: c.min_th,
                max_th: c.max_th,
                w_q: c.w_q,
                max_p: c.max_p,
                s: c.packet_size.0 as f64 * port.cell_time.as_ps() as f64,
                ecn_mark: c.ecn_mark,
            }),
            avg: 0.0,
            count: -1,
            q_time: SimTime::ZERO,
            rng,
            vcs: Vec::new(),
        }
    }

    fn check(c: &RedConfig) -> Result<(), Invalid> {
        if !(c.min_th > 0.0 && c.min_th < 1.0) {
            return Err(Invalid {
                field: "min_th",
                message: format!(
                    "{} is not a fraction of the buffer below 1: allowed 0 < min_th < max_th \
                     <= 1 (e.g. 0.25)",
                    c.min_th
                ),
            });
        }
        Invalid::fraction("max_th", c.max_th)?;
        if c.max_th <= c.min_th {
            return Err(Invalid {
                field: "max_th",
                message: format!(
                    "{} is not above min_th = {}: allowed min_th < max_th <= 1 (the drop \
                     probability divides by max_th - min_th)",
                    c.max_th, c.min_th
                ),
            });
        }
        for (field, x, eg) in [("w_q", c.w_q, "0.002"), ("max_p", c.max_p, "0.02")] {
            if !(x > 0.0 && x <= 1.0) {
                return Err(Invalid {
                    field,
                    message: format!("{x} is out of range: allowed 0 < {field} <= 1 (e.g. {eg})"),
                });
            }
        }
        if c.packet_size.0 == 0 {
            return Err(Invalid {
                field: "packet_size",
                message: "0 cells is no frame: allowed at least 1 cell (a typical frame's \
                          size, e.g. \"12 cells\")"
                    .into(),
            });
        }
        Ok(())
    }

    fn add_vc(&mut self, _share: &VcShare) {
        self.vcs.push(FrameState::default());
    }

    #[inline]
    fn on_arrival(&mut self, now: SimTime, view: PortView, label: Label, cell: &Cell) -> Verdict {
        let (q, size) = view.reference();
        if q == 0 {
            // Idle since q_time: the average decays as if m frames had found the queue empty.
            let m = (now - self.q_time).as_ps() as f64 / self.params.s;
            self.avg *= (1.0 - self.params.w_q).powf(m);
            self.q_time = now;
        }
        let st = &mut self.vcs[label as usize];
        let (first, eom) = st.track(cell);
        let decision = if first && !st.discarding {
            if q > 0 {
                self.avg += self.params.w_q * (q as f64 - self.avg);
            }
            self.decide(size)
        } else {
            Decision::Admit
        };
        let refuse = (decision == Decision::Drop).then_some(DropReason::EarlyDiscard);
        let verdict = self.vcs[label as usize].early_discard(view, first, eom, refuse);
        if decision == Decision::Mark && verdict == Verdict::Accept {
            Verdict::AcceptMarked
        } else {
            verdict
        }
    }

    #[inline(always)]
    fn on_departure(&mut self, now: SimTime, after: PortView, _label: Label) {
        if after.reference().0 == 0 {
            self.q_time = now;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{port_info, rng, shared_view, Bench};
    use super::super::PolicyConfig;
    use super::*;
    use crate::ids::VcId;

    fn config(min_th: f64, max_th: f64, w_q: f64, max_p: f64) -> RedConfig {
        RedConfig {
            min_th,
            max_th,
            w_q,
            max_p,
            packet_size: Cells(10),
            ecn_mark: false,
        }
    }

    fn red(c: &RedConfig) -> Red {
        let mut r = Red::new(c, &port_info(), rng(3));
        r.add_vc(&VcShare::default());
        r
    }

    /// A frame's first cell (a one-cell frame: first and EOM).
    fn frame(f: u32) -> Cell {
        Cell::data(VcId(0), f, 0, Cell::EOM)
    }

    #[test]
    fn the_average_follows_each_frame_by_hand() {
        // w_q = 0.5, thresholds out of reach (90% and 100% of 1000 cells): frames arrive at
        // queues of 8, 4 and 10 cells; avg = 4, then 4, then 7.
        let mut r = red(&config(0.9, 1.0, 0.5, 0.02));
        let t = SimTime::from_us(5);
        let mut avgs = Vec::new();
        for (f, q) in [8u32, 4, 10].into_iter().enumerate() {
            assert_eq!(
                r.on_arrival(t, shared_view(q, 1000, 0, 1), 0, &frame(f as u32)),
                Verdict::Accept
            );
            avgs.push(r.avg());
        }
        assert_eq!(avgs, vec![4.0, 4.0, 7.0]);
        // A frame of two cells: its first samples 10 cells (avg 8.5), its second, at 500
        // cells, does not sample.
        let cell = |eom| Cell::data(VcId(0), 3, 0, if eom { Cell::EOM } else { 0 });
        r.on_arrival(t, shared_view(10, 1000, 0, 1), 0, &cell(false));
        r.on_arrival(t, shared_view(500, 1000, 0, 1), 0, &cell(true));
        assert_eq!(r.avg(), 8.5);
    }

    #[test]
    fn an_idle_queue_decays_the_average_by_1_minus_w_q_to_the_m() {
        // s = 10 cells x 1 us = 10 us. The queue empties at 100 us and the next frame comes
        // at 135 us: m = 3.5, avg <- (1 - w_q)^3.5 avg, and the empty queue is not sampled.
        let w_q = 0.1;
        let mut r = red(&config(0.9, 1.0, w_q, 0.02));
        let at = SimTime::from_us;
        r.on_arrival(at(0), shared_view(50, 1000, 0, 1), 0, &frame(0));
        let before = r.avg();
        assert!((before - 5.0).abs() < 1e-12);
        r.on_departure(at(100), shared_view(0, 1000, 0, 0), 0);
        r.on_arrival(at(135), shared_view(0, 1000, 0, 0), 0, &frame(1));
        let by_hand = 0.9f64.powf(3.5) * 5.0;
        assert!((r.avg() - by_hand).abs() < 1e-12, "{} vs {by_hand}", r.avg());
        // A departure that leaves cells queued does not restart the idle clock; a later cell
        // at the still-empty queue decays only the time since the last decay: 2 more s.
        r.on_departure(at(140), shared_view(3, 1000, 0, 1), 0);
        let mid = Cell::data(VcId(0), 9, 0, 0);
        r.on_arrival(at(155), shared_view(0, 1000, 0, 0), 0, &mid);
        let by_hand = 0.9f64.powf(5.5) * 5.0;
        assert!((r.avg() - by_hand).abs() < 1e-12, "{} vs {by_hand}", r.avg());
    }

    #[test]
    fn the_drop_probability_is_p_b_over_1_minus_count_p_b() {
        // Buffer 1000, min_th 100, max_th 300 cells, max_p 0.1, w_q 1 (avg = the sample).
        // At q = 200: p_b = 0.05; the k-th frame since the last drop has count = k - 1 and
        // is dropped with p_a = 0.05 / (1 - (k - 1) 0.05). Over many runs the first drop
        // falls on frame k with probability p_a(k) prod_{j<k} (1 - p_a(j)) = 0.05 for every
        // k <= 20 (uniform), and never later: count p_b reaches 1 at the 21st.
        let c = config(0.1, 0.3, 1.0, 0.1);
        let runs = 20_000;
        let mut first_drop = [0u32; 22];
        let mut r = red(&c);
        for _ in 0..runs {
            r.count = -1;
            let mut k = 1;
            while r.on_arrival(SimTime::ZERO, shared_view(200, 1000, 0, 1), 0, &frame(0))
                == Verdict::Accept
            {
                k += 1;
            }
            assert_eq!(r.count, 0, "a drop resets count");
            first_drop[k] += 1;
        }
        assert_eq!(first_drop[0] + first_drop[21], 0, "{first_drop:?}");
        for (k, &n) in first_drop.iter().enumerate().take(21).skip(1) {
            let p = n as f64 / runs as f64;
            // Binomial sd sqrt(0.05 0.95 / 20000) = 0.0015: within 0.008 is > 5 sd.
            assert!((p - 0.05).abs() < 0.008, "frame {k}: {p}");
        }
    }

    #[test]
    fn below_min_th_all_pass_and_from_max_th_all_drop() {
        let mut r = red(&config(0.1, 0.3, 1.0, 0.5));
        for f in 0..100 {
            let v = shared_view(99, 1000, 0, 1);
            assert_eq!(r.on_arrival(SimTime::ZERO, v, 0, &frame(f)), Verdict::Accept);
            assert_eq!(r.count, -1);
        }
        for f in 0..100 {
            let v = shared_view(300, 1000, 0, 1);
            let d = r.on_arrival(SimTime::ZERO, v, 0, &frame(f));
            assert_eq!(d, Verdict::Drop(DropReason::EarlyDiscard));
            assert_eq!(r.count, 0);
        }
    }

    #[test]
    fn a_dropped_frame_is_dropped_whole_and_an_admitted_one_overflows_to_ppd() {
        // w_q = 1: the average is the queue at each first cell. Limit 10 (the VC's buffer is
        // the reference in the bench), min_th 20%, max_th 50%: a frame starting at 5 cells is
        // refused whole, EOM included.
        let cfg = PolicyConfig::Red(config(0.2, 0.5, 1.0, 0.02));
        let mut b = Bench::new(cfg.clone(), 10);
        assert_eq!(b.feed(&[5, 3]), vec![0; 5]);
        assert_eq!(b.drops[DropReason::EarlyDiscard as usize], 3);
        // A frame admitted at 1 cell (below min_th) that runs into the full buffer loses its
        // tail but keeps its EOM once there is room again.
        let mut b = Bench::new(cfg, 10);
        b.feed(&[1]);
        for i in 0..12 {
            b.offer(Cell::data(VcId(0), 1, 0, 0));
            assert!(b.queue.len() <= 10, "cell {i}");
        }
        assert_eq!(b.drops[DropReason::VcBufferFull as usize], 1);
        assert_eq!(b.drops[DropReason::FrameTail as usize], 2);
        b.depart();
        assert!(b.offer(Cell::data(VcId(0), 1, 0, Cell::EOM)), "the EOM is kept");
    }

    #[test]
    fn with_ecn_mark_the_chosen_frames_are_marked_and_only_max_th_drops() {
        // The same random stream and queues: every frame the dropping RED refuses between
        // the thresholds, the marking RED admits marked (and count restarts the same way);
        // from max_th both drop.
        let drop_cfg = config(0.1, 0.3, 1.0, 0.1);
        let mark_cfg = RedConfig {
            ecn_mark: true,
            ..drop_cfg.clone()
        };
        let (mut d, mut m) = (red(&drop_cfg), red(&mark_cfg));
        let mut chosen = 0;
        for f in 0..2_000 {
            let v = shared_view(200, 1000, 0, 1);
            let (a, b) = (
                d.on_arrival(SimTime::ZERO, v, 0, &frame(f)),
                m.on_arrival(SimTime::ZERO, v, 0, &frame(f)),
            );
            match a {
                Verdict::Accept => assert_eq!(b, Verdict::Accept, "frame {f}"),
                Verdict::Drop(DropReason::EarlyDiscard) => {
                    assert_eq!(b, Verdict::AcceptMarked, "frame {f}");
                    chosen += 1;
                }
                other => panic!("frame {f}: {other:?}"),
            }
            assert_eq!(d.count, m.count);
        }
        // p_b = 0.05: the first choice falls uniformly on frames 1-20, ~10.5 apart on average
        assert!((150..250).contains(&chosen), "{chosen}");
        let v = shared_view(300, 1000, 0, 1);
        let got = m.on_arrival(SimTime::ZERO, v, 0, &frame(9_999));
        assert_eq!(got, Verdict::Drop(DropReason::EarlyDiscard));
        // In the bench a marked frame's first cell is queued with EFCI set, its other cells
        // unmarked (one marked cell makes the frame Congestion Experienced at the edge).
        let mut b = Bench::new(PolicyConfig::Red(mark_cfg), 1000);
        for _ in 0..200 {
            b.queue.push(Cell::data(VcId(1), 0, 0, 0));
        }
        let mut frames = 0;
        while b.marked == 0 {
            frames += 1;
            assert!(b.offer(Cell::data(VcId(0), frames, 0, 0)));
            assert!(b.offer(Cell::data(VcId(0), frames, 0, Cell::EOM)));
            b.queue.truncate(200);
        }
        assert_eq!(b.marked, 1);
        assert!(b.drops.iter().all(|&n| n == 0));
    }

    #[test]
    fn the_bench_tells_red_when_its_queue_empties() {
        // w_q = 0.5, s = 10 cells x 1 us. A frame of 4 cells at 0 (the queue empty: nothing
        // sampled, avg 0); two cells leave at 1 us and a one-cell frame samples 2 cells:
        // avg = 1. The last cells leave at 4 us; the next frame, at 24 us, finds the queue
        // empty for 20 us = 2 s: avg = 0.5^2 x 1.
        let mut b = Bench::new(PolicyConfig::Red(config(0.5, 0.9, 0.5, 0.02)), 100);
        let avg = |b: &Bench| match &b.policy {
            super::super::Policy::Red(r) => r.avg(),
            _ => unreachable!(),
        };
        b.feed(&[4]);
        assert_eq!(avg(&b), 0.0);
        b.now = SimTime::from_us(1);
        b.depart();
        b.depart();
        assert!(b.offer(Cell::data(VcId(0), 1, 0, Cell::EOM)));
        assert_eq!(avg(&b), 1.0);
        b.now = SimTime::from_us(4);
        while b.depart().is_some() {}
        b.now = SimTime::from_us(24);
        assert!(b.offer(Cell::data(VcId(0), 2, 0, Cell::EOM)));
        assert_eq!(avg(&b), 0.25);
    }

    #[test]
    fn impossible_values_are_refused_naming_the_field() {
        let field = |c: RedConfig| Red::check(&c).unwrap_err().field;
        assert_eq!(field(config(0.0, 0.5, 0.002, 0.02)), "min_th");
        assert_eq!(field(config(1.0, 1.0, 0.002, 0.02)), "min_th");
        assert_eq!(field(config(0.5, 0.5, 0.002, 0.02)), "max_th");
        assert_eq!(field(config(0.5, 1.2, 0.002, 0.02)), "max_th");
        assert_eq!(field(config(0.2, 0.5, 0.0, 0.02)), "w_q");
        assert_eq!(field(config(0.2, 0.5, 1.5, 0.02)), "w_q");
        assert_eq!(field(config(0.2, 0.5, 0.002, 0.0)), "max_p");
        assert_eq!(field(config(0.2, 0.5, 0.002, f64::NAN)), "max_p");
        let mut c = config(0.2, 0.5, 0.002, 0.02);
        c.packet_size = Cells(0);
        assert_eq!(field(c), "packet_size");
        assert!(Red::check(&config(0.2, 1.0, 1.0, 1.0)).is_ok());
    }
}
