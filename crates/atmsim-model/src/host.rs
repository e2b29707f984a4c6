//! An end system: one CPU, an IP output queue, a SAR engine, an adapter port.
//!
//! A TCP segment (or ACK) is processed by the host's CPU (a FIFO server, `processing` per
//! packet sent or received), waits for the IP output service (Cheon & Panwar's IP rate), is
//! segmented into AAL5 cells by the SAR engine (`sar_per_cell` per cell) and handed to the
//! adapter, a [`crate::port::Port`] with unbounded per-VC queues. At the destination a frame
//! that arrived intact waits one cell's reassembly time, then the CPU, then TCP. With the IP
//! service on both directions its time is CPU work for every packet, sent or received, so a
//! received packet waits behind the sent ones for it, and sent packets skip the output queue.
//! Cells of non-AAL5 sources skip all of this: they enter the adapter directly and are
//! counted on arrival.
//!
//! Modelling choice: a frame is handed to the adapter when the SAR engine has segmented all
//! of its cells.

use crate::ids::{NodeId, PortId, TcpId, VcId};
use crate::spec::{HostSpec, IpService};
use crate::tcp::Segment;
use atmsim_engine::{Lane, SimTime};
use std::collections::VecDeque;

/// What an AAL5 frame carries.
#[derive(Debug, Clone, Copy)]
pub enum Payload {
    /// `flags`: ECN's ECT, CWR and CE ([`crate::tcp::ecn`]).
    Data { seq: u64, len: u32, flags: u8 },
    /// `sack`: the ACK's entry in its connection's SACK log ([`NO_SACK`]: none); `ece`:
    /// ECN-Echo.
    Ack { ack: u64, sack: u32, ece: bool },
}

/// An ACK without SACK blocks.
pub const NO_SACK: u32 = u32::MAX;

/// Work for a host CPU.
#[derive(Debug, Clone, Copy)]
pub enum Job {
    SendData {
        conn: TcpId,
        seg: Segment,
        flags: u8,
    },
    SendAck {
        conn: TcpId,
        ack: u64,
        sack: u32,
        ece: bool,
    },
    RecvData {
        conn: TcpId,
        seq: u64,
        len: u32,
        flags: u8,
    },
    RecvAck {
        conn: TcpId,
        ack: u64,
        sack: u32,
        ece: bool,
    },
}

#[derive(Debug)]
pub struct Host {
    pub name: String,
    pub node: NodeId,
    /// The adapter: the port of the host's one link.
    pub adapter: PortId,
    /// CPU time per packet [ps] (the mean, with `jitter`).
    pub processing: SimTime,
    /// Half-width of the uniform variation of the CPU time per packet [ps].
    pub jitter: SimTime,
    /// The host's random stream (drawn from only when `jitter` is not zero, the CPU time is
    /// exponential or the IP service time is exponential).
    pub rng: atmsim_engine::RngStream,
    /// SAR time per cell [ps].
    pub sar_per_cell: SimTime,
    pub llc_snap: bool,
    /// Bytes the adaptation layer adds per datagram.
    pub aal_overhead: u32,
    pub cpu: VecDeque<Job>,
    pub cpu_busy: bool,
    /// Frames leaving segmentation: (vc, frame id).
    pub sar: Lane<(VcId, u32)>,
    pub sar_free_at: SimTime,
    /// IP service time per packet [ps] (zero: no IP bottleneck).
    pub ip_service: SimTime,
    /// The IP service handles received packets too, as CPU work (see
    /// [`crate::spec::HostSpec::ip_both_directions`]); otherwise it is an output queue.
    pub ip_on_cpu: bool,
    /// Each packet's IP service time is drawn from an exponential distribution of mean
    /// `ip_service` with `rng` (else it is `ip_service`).
    pub ip_exponential: bool,
    pub ip_free_at: SimTime,
    /// Intact frames leaving reassembly: (vc, payload).
    pub reasm: Lane<(VcId, Payload)>,
    /// The CPU time per packet is exponential with mean `processing` (`jitter` is then 0).
    pub exponential: bool,
}

impl Host {
    /// Host `name` at node `node`, from its spec, drawing its CPU times' variation from
    /// `rng`. Its adapter is set when its link is wired.
    pub fn new(name: String, node: NodeId, spec: &HostSpec, rng: atmsim_engine::RngStream) -> Self {
        Host {
            name,
            node,
            adapter: PortId(u32::MAX),
            processing: spec.processing_delay,
            jitter: spec.processing_jitter,
            rng,
            sar_per_cell: spec.sar_delay_per_cell,
            llc_snap: spec.llc_snap,
            aal_overhead: spec.aal_overhead_bytes,
            cpu: VecDeque::new(),
            cpu_busy: false,
            sar: Lane::new(),
            sar_free_at: SimTime::ZERO,
            ip_service: spec.ip_service_time,
            ip_on_cpu: spec.ip_both_directions,
            ip_exponential: spec.ip_service == IpService::Exponential,
            ip_free_at: SimTime::ZERO,
            reasm: Lane::new(),
            exponential: spec.processing_exponential,
        }
    }

    /// The CPU time of the next packet: `processing`, or drawn uniformly from
    /// `processing +- jitter` (to the picosecond) when `jitter` is set, or exponentially
    /// with mean `processing` (to the picosecond) when `exponential`.
    #[inline]
    pub fn cpu_time(&mut self) -> SimTime {
        let ip = if self.ip_on_cpu {
            self.ip_time()
        } else {
            SimTime::ZERO
        };
        if self.exponential {
            return exponential(&mut self.rng, self.processing) + ip;
        }
        if self.jitter == SimTime::ZERO {
            return self.processing + ip;
        }
        let lo = self.processing.saturating_sub(self.jitter);
        lo + SimTime(self.rng.below(2 * self.jitter.0 + 1)) + ip
    }

    /// When a packet handed to IP output at `now` leaves it: at once if IP is CPU work or
    /// has no limit, else after the FIFO IP output queue.
    #[inline]
    pub fn ip_output(&mut self, now: SimTime) -> SimTime {
        if self.ip_on_cpu || self.ip_service == SimTime::ZERO {
            return now;
        }
        let ready = now.max(self.ip_free_at) + self.ip_time();
        self.ip_free_at = ready;
        ready
    }

    /// One packet's IP service time: `ip_service`, or drawn from an exponential
    /// distribution of that mean (to the picosecond; no draw while `ip_service` is zero).
    #[inline]
    fn ip_time(&mut self) -> SimTime {
        if !self.ip_exponential || self.ip_service == SimTime::ZERO {
            return self.ip_service;
        }
        exponential(&mut self.rng, self.ip_service)
    }
}

/// A draw from the exponential distribution of mean `mean`, to the picosecond, by inversion:
/// -ln(1 - U) with U in [0, 1), so the argument is in (0, 1]. Out of line: only the
/// exponential readings draw it, and the common paths stay small.
#[cold]
#[inline(never)]
fn exponential(rng: &mut atmsim_engine::RngStream, mean: SimTime) -> SimTime {
    let u = rng.uniform();
    SimTime((-(1.0 - u).ln() * mean.0 as f64).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use atmsim_engine::RngStreams;

    fn host(processing: SimTime, jitter: SimTime) -> Host {
        Host {
            name: "h".into(),
            node: NodeId(0),
            adapter: PortId(0),
            processing,
            jitter,
            rng: RngStreams::new(7).stream(1),
            sar_per_cell: SimTime::ZERO,
            llc_snap: false,
            aal_overhead: 8,
            cpu: VecDeque::new(),
            cpu_busy: false,
            sar: Lane::new(),
            sar_free_at: SimTime::ZERO,
            ip_service: SimTime::ZERO,
            ip_on_cpu: false,
            ip_exponential: false,
            ip_free_at: SimTime::ZERO,
            reasm: Lane::new(),
            exponential: false,
        }
    }

    /// Exponential IP service: times with the mean and spread of an exponential
    /// distribution, drawn only when the option is on, on either side of the CPU.
    #[test]
    fn exponential_ip_service_times_have_the_mean_and_spread_of_one() {
        let s = SimTime::from_us(95);
        let mut h = host(SimTime::ZERO, SimTime::ZERO);
        h.ip_service = s;
        h.ip_exponential = true;
        let n = 200_000;
        let mut prev = SimTime::ZERO;
        let xs: Vec<f64> = (0..n)
            .map(|_| {
                // Each packet arrives at an idle queue: its wait is its service time.
                let t0 = prev + SimTime::from_secs(1);
                let ready = h.ip_output(t0);
                prev = ready;
                (ready - t0).as_micros_f64()
            })
            .collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
        // Exponential of mean 95 us: standard deviation 95 us, P(X > 2 x 95 us) = e^-2.
        assert!((mean - 95.0).abs() < 1.0, "{mean}");
        assert!((sd - 95.0).abs() < 1.5, "{sd}");
        let tail = xs.iter().filter(|&&x| x > 190.0).count() as f64 / n as f64;
        assert!((tail - (-2f64).exp()).abs() < 0.005, "{tail}");
        // On the CPU (both directions) the draw is added to the processing time.
        let mut c = host(SimTime::from_us(10), SimTime::ZERO);
        c.ip_service = s;
        c.ip_on_cpu = true;
        c.ip_exponential = true;
        let ts: Vec<SimTime> = (0..1000).map(|_| c.cpu_time()).collect();
        assert!(ts.iter().all(|&t| t >= SimTime::from_us(10)));
        assert!(ts.windows(2).any(|w| w[0] != w[1]), "drawn, not constant");
        // Constant (the default) never touches the stream.
        let mut k = host(SimTime::ZERO, SimTime::ZERO);
        k.ip_service = s;
        let before = k.rng.clone().next_u64();
        assert_eq!(k.ip_output(SimTime::ZERO), s);
        assert_eq!(k.rng.next_u64(), before);
    }

    #[test]
    fn cpu_time_is_uniform_around_the_mean() {
        let (p, j) = (SimTime::from_us(200), SimTime::from_us(50));
        let mut h = host(p, j);
        let n = 100_000;
        let xs: Vec<f64> = (0..n).map(|_| h.cpu_time().as_micros_f64()).collect();
        assert!(xs.iter().all(|&x| (150.0..=250.0).contains(&x)));
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        // Uniform on [150, 250] us: mean 200, standard deviation 50 / sqrt(3) = 28.87 us.
        assert!((mean - 200.0).abs() < 0.5, "{mean}");
        assert!(
            (var.sqrt() - 50.0 / 3f64.sqrt()).abs() < 0.5,
            "{}",
            var.sqrt()
        );
        let mut fixed = host(p, SimTime::ZERO);
        assert_eq!(fixed.cpu_time(), p);
    }

    /// Exponential CPU times: mean and standard deviation both `processing`, every draw
    /// non-negative, from the host's stream (reproducible by seed), the IP service added.
    #[test]
    fn cpu_time_may_be_exponential_with_the_processing_time_as_mean() {
        let p = SimTime::from_us(200);
        let mut h = host(p, SimTime::ZERO);
        h.exponential = true;
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| h.cpu_time().as_micros_f64()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
        assert!((mean - 200.0).abs() < 2.0, "{mean}");
        assert!((sd - 200.0).abs() < 3.0, "{sd}");
        // P(X > 2 mean) = e^-2 = 0.135.
        let above = xs.iter().filter(|&&x| x > 400.0).count() as f64 / n as f64;
        assert!((above - (-2f64).exp()).abs() < 0.005, "{above}");
        let mut again = host(p, SimTime::ZERO);
        again.exponential = true;
        assert_eq!(again.cpu_time().as_micros_f64(), xs[0]);
        again.ip_service = SimTime::from_us(95);
        again.ip_on_cpu = true;
        assert!((0..1_000).all(|_| again.cpu_time() >= SimTime::from_us(95)));
    }

    /// An IP output queue serves sent packets in order, one service time each, and costs
    /// the CPU nothing.
    #[test]
    fn the_ip_output_queue_is_a_fifo_server_of_its_own() {
        let s = SimTime::from_us(95);
        let mut h = host(SimTime::from_us(10), SimTime::ZERO);
        h.ip_service = s;
        assert_eq!(h.cpu_time(), SimTime::from_us(10));
        let t0 = SimTime::from_us(1_000);
        assert_eq!(h.ip_output(t0), t0 + s);
        assert_eq!(
            h.ip_output(t0),
            t0 + s + s,
            "the second waits for the first"
        );
        let later = t0 + SimTime::from_us(500);
        assert_eq!(
            h.ip_output(later),
            later + s,
            "an idle server starts at once"
        );
    }

    /// With the IP service on both directions it is CPU work: every packet, sent or
    /// received, takes it on top of the processing time, and sent packets do not queue for
    /// IP again.
    #[test]
    fn ip_on_both_directions_is_cpu_work_for_every_packet() {
        let s = SimTime::from_us(95);
        let mut h = host(SimTime::from_us(10), SimTime::ZERO);
        h.ip_service = s;
        h.ip_on_cpu = true;
        assert_eq!(h.cpu_time(), SimTime::from_us(10) + s);
        let t0 = SimTime::from_us(1_000);
        assert_eq!(h.ip_output(t0), t0);
        assert_eq!(h.ip_output(t0), t0);
        let mut jittered = host(SimTime::from_us(200), SimTime::from_us(50));
        jittered.ip_service = s;
        jittered.ip_on_cpu = true;
        for _ in 0..1_000 {
            let t = jittered.cpu_time();
            assert!(t >= SimTime::from_us(150) + s && t <= SimTime::from_us(250) + s);
        }
    }
}
