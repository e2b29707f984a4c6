//! The bare loop: a network's cells moved by the engine alone, with no model.
//!
//! A yardstick for `atmsim bench`: how fast could the same links carry cells if a cell-hop
//! cost nothing but the engine's two events (the end of its transmission, its arrival at the
//! far end), a FIFO per port and the link's lane? Each connection's data path gets a window of
//! cells (its TCP window in 48-byte payloads, or 1,365 cells for a cell source) that circulate
//! from its source to its destination and start again at the source as soon as they arrive:
//! no TCP, no AAL5, no admission policy, no routing table, no statistics. The ratio of a
//! scenario's cell-hops per second to this loop's on the same network says how close to the
//! engine's limit the model runs.

use crate::spec::{NetworkSpec, NodeKind, SourceSpec};
use atmsim_engine::{EventQueue, Lane, SimTime};
use std::collections::VecDeque;
use std::time::Instant;

/// What the bare loop did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BareRun {
    /// Cells put on a link.
    pub cell_hops: u64,
    /// Events processed.
    pub events: u64,
    /// Simulated time [s].
    pub simulated_s: f64,
    /// Wall-clock time of the loop alone [s].
    pub wall_s: f64,
}

#[derive(Debug, Clone, Copy)]
enum Ev {
    TxDone(u32),
    Arrive(u32),
}

/// A cell: its connection and the index of the port it is at in that connection's path.
#[derive(Debug, Clone, Copy)]
struct BareCell {
    conn: u32,
    hop: u32,
}

struct BarePort {
    queue: VecDeque<BareCell>,
    busy: bool,
    cell_time: SimTime,
    delay: SimTime,
    lane: Lane<BareCell>,
}

struct Loop {
    queue: EventQueue<Ev>,
    ports: Vec<BarePort>,
    /// Each connection's ports, source adapter first.
    paths: Vec<Vec<u32>>,
    cell_hops: u64,
}

impl Loop {
    #[inline]
    fn try_transmit(&mut self, now: SimTime, p: u32) {
        let port = &mut self.ports[p as usize];
        if port.busy {
            return;
        }
        let Some(cell) = port.queue.pop_front() else {
            return;
        };
        port.busy = true;
        let done = now + port.cell_time;
        self.queue.schedule(done, Ev::TxDone(p));
        port.lane
            .push_waking(done + port.delay, cell, &mut self.queue, Ev::Arrive(p));
        self.cell_hops += 1;
    }

    #[inline]
    fn enqueue(&mut self, now: SimTime, cell: BareCell) {
        let p = self.paths[cell.conn as usize][cell.hop as usize];
        self.ports[p as usize].queue.push_back(cell);
        self.try_transmit(now, p);
    }

    fn on_arrive(&mut self, now: SimTime, p: u32) {
        let mut cell = self.ports[p as usize]
            .lane
            .pop_waking(&mut self.queue, Ev::Arrive(p))
            .expect("arrival with an empty lane");
        cell.hop += 1;
        if cell.hop as usize == self.paths[cell.conn as usize].len() {
            cell.hop = 0; // delivered: the window slot starts again at the source
        }
        self.enqueue(now, cell);
    }
}

/// Runs `net` to its end and returns the line the profiling examples print (`hops`,
/// `scenario_hops`): `<label>: <n> cell-hops, <n> events, <s> s wall, <r> M cell-hops/s,
/// fingerprint <hex>`, the form `scripts/hops_pair.py` reads.
pub fn timed_run(net: &mut crate::Network, label: &str) -> String {
    let started = Instant::now();
    net.run();
    let wall = started.elapsed().as_secs_f64();
    format!(
        "{label}: {} cell-hops, {} events, {:.3} s wall, {:.2} M cell-hops/s, fingerprint {}",
        net.cell_hops(),
        net.events(),
        wall,
        net.cell_hops() as f64 / wall / 1e6,
        net.fingerprint()
    )
}

/// Runs the bare loop on `spec`'s links and connections for its duration.
pub fn bare_loop(spec: &NetworkSpec) -> BareRun {
    let mut ports = Vec::new();
    let mut port_of = vec![Vec::<(usize, u32)>::new(); spec.nodes.len()];
    for link in &spec.links {
        for (from, to) in [(link.a, link.b), (link.b, link.a)] {
            let switching = match &spec.nodes[to].kind {
                NodeKind::Switch(s) => s.switching_delay,
                NodeKind::Host(_) => SimTime::ZERO,
            };
            port_of[from].push((to, ports.len() as u32));
            ports.push(BarePort {
                queue: VecDeque::new(),
                busy: false,
                cell_time: link.cell_time,
                delay: link.delay + switching,
                lane: Lane::new(),
            });
        }
    }
    let mut paths = Vec::new();
    let mut windows = Vec::new();
    for c in &spec.connections {
        let path: Vec<u32> = c
            .path
            .windows(2)
            .map(|w| {
                port_of[w[0]]
                    .iter()
                    .find(|(t, _)| *t == w[1])
                    .map(|(_, p)| *p)
                    .expect("a validated path follows links")
            })
            .collect();
        paths.push(path);
        windows.push(match &c.source {
            SourceSpec::Tcp { tcp, .. } => (tcp.max_window_bytes / 48).max(1),
            _ => 1365,
        });
    }
    let mut lp = Loop {
        queue: EventQueue::new(),
        ports,
        paths,
        cell_hops: 0,
    };
    let started = Instant::now();
    for (conn, &w) in windows.iter().enumerate() {
        for _ in 0..w {
            lp.enqueue(
                SimTime::ZERO,
                BareCell {
                    conn: conn as u32,
                    hop: 0,
                },
            );
        }
    }
    let end = spec.run.duration;
    while let Some(t) = lp.queue.peek_time() {
        if t > end {
            break;
        }
        let (now, ev) = lp.queue.pop().expect("peeked");
        match ev {
            Ev::TxDone(p) => {
                lp.ports[p as usize].busy = false;
                lp.try_transmit(now, p);
            }
            Ev::Arrive(p) => lp.on_arrive(now, p),
        }
    }
    BareRun {
        cell_hops: lp.cell_hops,
        events: lp.queue.events_processed(),
        simulated_s: end.as_secs_f64(),
        wall_s: started.elapsed().as_secs_f64(),
    }
}

/// The wall-clock time [s] of writing `rows` samples of `columns` f64 values once into fresh
/// memory, row by row, as the series recorder lays them out: what keeping those series costs
/// at the least, whatever the model does to read the values.
pub fn series_write(columns: usize, rows: usize) -> f64 {
    let mut row: Vec<f64> = (0..columns).map(|c| c as f64).collect();
    let started = Instant::now();
    let mut values: Vec<f64> = Vec::new();
    values.reserve_exact(columns * rows);
    for r in 0..rows {
        if let Some(v) = row.first_mut() {
            *v = r as f64;
        }
        values.extend_from_slice(&row);
    }
    std::hint::black_box(&values);
    started.elapsed().as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology;

    #[test]
    fn a_lone_window_fills_its_links() {
        // One greedy connection on Fang's LAN: its window (1,365 cells) is far more than the
        // round trip holds, so the bottleneck sends a cell every cell time.
        let spec = topology::fang_lan(1, None, 256, SimTime::from_ms(100));
        let r = bare_loop(&spec);
        let per_link = 100e-3 / 2.75e-6;
        // Three links (host-A, A-B, B-host), each busy the whole time but the first ~10 us.
        assert!((r.cell_hops as f64 - 3.0 * per_link).abs() < 20.0, "{r:?}");
        // Two events per hop, but for the few transmissions and arrivals still pending.
        assert!(
            r.events <= 2 * r.cell_hops && r.events + 10 >= 2 * r.cell_hops,
            "{r:?}"
        );
    }
}
