//! End systems: CPU, IP output and SAR on the way out; reassembly and CPU on the way in.

use super::{Event, Network};
use crate::aal5;
use crate::cell::Cell;
use crate::host::{Job, Payload};
use crate::ids::{HostId, VcId};
use crate::tcp::ecn;
use crate::vc::{FrameDesc, LossCause, Owner};
use atmsim_engine::SimTime;

impl Network {
    /// A cell reaches its destination host. An AAL5 frame is intact only if all of its cells,
    /// and no others, arrived before its EOM (a merged or short frame fails the CRC-32 and
    /// length check); a cell of a cell source is counted and its delay measured.
    pub(super) fn on_cell_at_host(&mut self, now: SimTime, h: HostId, cell: Cell) {
        let vcid = cell.vc;
        let vc = &mut self.vcs[vcid.idx()];
        vc.counters.cells_delivered += 1;
        if cell.is_rm() {
            vc.counters.rm_cells_delivered += 1;
            self.on_rm_at_host(now, h, cell);
            return;
        }
        if vc.abr.is_some() {
            vc.receive_efci(cell.is_efci());
        }
        if !vc.aal5 {
            if let Some(d) = &mut vc.delay {
                d.delivered(cell.frame, now);
            }
            return;
        }
        let rx = &mut vc.rx;
        if !rx.active {
            rx.active = true;
            rx.frame = cell.frame;
            rx.cells = 0;
            rx.mixed = false;
            rx.efci = false;
        } else if cell.frame != rx.frame {
            rx.mixed = true;
        }
        rx.cells += 1;
        rx.efci |= cell.is_efci();
        if !cell.is_eom() {
            return;
        }
        rx.active = false;
        // Frames older than this EOM's frame can no longer complete.
        while vc.frames.front().is_some_and(|f| f.id < cell.frame) {
            vc.frames.pop_front();
        }
        let Some(desc) = vc.frames.pop_front() else {
            return;
        };
        debug_assert_eq!(desc.id, cell.frame);
        let intact = !vc.rx.mixed && vc.rx.frame == cell.frame && vc.rx.cells == desc.cells;
        if !intact {
            vc.counters.frames_corrupted += 1;
            return;
        }
        vc.counters.frames_intact += 1;
        let mut payload = desc.payload;
        if vc.rx.efci {
            // The edge maps EFCI onto the packet: an ECN-capable one is CE (RFC 3168).
            if let Payload::Data { flags, .. } = &mut payload {
                if *flags & ecn::ECT != 0 {
                    *flags |= ecn::CE;
                }
            }
        }
        if self.trace.is_some() {
            self.trace_intact(now, h, vcid, payload);
        }
        let vc = &self.vcs[vcid.idx()];
        for (hop, &p) in vc.path.iter().enumerate() {
            let cells = self.effective_cells(vcid.idx(), hop, desc.id, desc.cells);
            self.ports[p.idx()].counters.effective_cells += u64::from(cells);
        }
        let host = &mut self.hosts[h.idx()];
        let at = now + host.sar_per_cell;
        host.reasm
            .push_waking(at, (vcid, payload), &mut self.queue, Event::Reassembled(h));
    }

    pub(super) fn on_reassembled(&mut self, now: SimTime, h: HostId) {
        let host = &mut self.hosts[h.idx()];
        let (vcid, payload) = host
            .reasm
            .pop_waking(&mut self.queue, Event::Reassembled(h))
            .expect("reassembly lane empty");
        let conn = match self.vcs[vcid.idx()].owner {
            Owner::TcpData(c) | Owner::TcpAck(c) => c,
            Owner::Source(_) | Owner::Feedback(_) => unreachable!("cell sources send no frames"),
        };
        let job = match payload {
            Payload::Data { seq, len, flags } => Job::RecvData {
                conn,
                seq,
                len,
                flags,
            },
            Payload::Ack { ack, sack, ece } => Job::RecvAck {
                conn,
                ack,
                sack,
                ece,
            },
        };
        self.cpu_submit(now, h, job);
    }

    pub(super) fn cpu_submit(&mut self, now: SimTime, h: HostId, job: Job) {
        let host = &mut self.hosts[h.idx()];
        host.cpu.push_back(job);
        if !host.cpu_busy {
            host.cpu_busy = true;
            let t = now + host.cpu_time();
            self.queue.schedule(t, Event::Cpu(h));
        }
    }

    pub(super) fn on_cpu_done(&mut self, now: SimTime, h: HostId) {
        let host = &mut self.hosts[h.idx()];
        let job = host.cpu.pop_front().expect("cpu event with no job");
        if host.cpu.is_empty() {
            host.cpu_busy = false;
        } else {
            let t = now + host.cpu_time();
            self.queue.schedule(t, Event::Cpu(h));
        }
        match job {
            Job::SendData { conn, seg, flags } => {
                let vc = self.tcps[conn.idx()].data_vc;
                let payload = Payload::Data {
                    seq: seg.seq,
                    len: seg.len,
                    flags,
                };
                self.segment(now, h, vc, seg.len, payload);
            }
            Job::SendAck {
                conn,
                ack,
                sack,
                ece,
            } => {
                let c = &self.tcps[conn.idx()];
                let vc = c.ack_vc;
                // The SACK option: kind, length and 8 bytes per block, padded to 4 bytes.
                let blocks = c.sack_log.blocks(sack).len() as u32;
                let option = if blocks > 0 {
                    (2 + 8 * blocks).div_ceil(4) * 4
                } else {
                    0
                };
                self.segment(now, h, vc, option, Payload::Ack { ack, sack, ece });
            }
            Job::RecvData {
                conn,
                seq,
                len,
                flags,
            } => self.on_data_received(now, conn, seq, len, flags),
            Job::RecvAck {
                conn,
                ack,
                sack,
                ece,
            } => self.on_ack_received(now, conn, ack, sack, ece),
        }
    }

    /// Hands a packet to the host's IP output queue and SAR engine.
    fn segment(&mut self, now: SimTime, h: HostId, vcid: VcId, tcp_payload: u32, payload: Payload) {
        let host = &mut self.hosts[h.idx()];
        let cells = aal5::cells_for_segment_with(tcp_payload, host.llc_snap, host.aal_overhead);
        let vc = &mut self.vcs[vcid.idx()];
        let id = vc.next_frame;
        vc.next_frame += 1;
        vc.frames.push_back(FrameDesc { id, cells, payload });
        // IP output queue, then the SAR engine: two FIFO servers in series, so the frame's
        // completion times are non-decreasing and one lane carries both stages.
        let ready = host.ip_output(now);
        let start = ready.max(host.sar_free_at);
        let done = start + host.sar_per_cell * cells as u64;
        host.sar_free_at = done;
        host.sar
            .push_waking(done, (vcid, id), &mut self.queue, Event::Sar(h));
    }

    /// A frame is segmented: its cells enter the adapter.
    pub(super) fn on_sar_done(&mut self, now: SimTime, h: HostId) {
        let host = &mut self.hosts[h.idx()];
        let (vcid, id) = host
            .sar
            .pop_waking(&mut self.queue, Event::Sar(h))
            .expect("sar lane empty");
        let vc = &mut self.vcs[vcid.idx()];
        let cells = vc
            .frames
            .iter()
            .rev()
            .find(|f| f.id == id)
            .map(|f| f.cells)
            .expect("frame descriptor");
        let (port, label) = vc.first;
        let clp = if vc.tagged { Cell::CLP } else { 0 };
        vc.counters.cells_sent += cells as u64;
        vc.counters.frames_sent += 1;
        if let Some(a) = vc.abr {
            if let Some(line) = &mut self.abr_access[a as usize] {
                // Onto the access line to the edge router's source queue (`on_access`).
                let last = Cell::data(vcid, id, label, clp | Cell::EOM);
                if let Some(at) = line.push(now, last, cells) {
                    self.queue.schedule(at, Event::Access(a));
                }
                return;
            }
            // Into the ABR source queue, where the cells that do not fit are lost (or the
            // whole frame, if the source drops frames).
            if !self.abr[a as usize].source.admit_frame(cells) {
                vc.counters
                    .count_loss(LossCause::SourceQueueFull, u64::from(cells));
                return;
            }
            let last = Cell::data(vcid, id, label, clp | Cell::EOM);
            self.abr_enqueue_frame(now, a, last, cells);
            self.try_transmit(now, port);
            return;
        }
        let p = &mut self.ports[port.idx()];
        for i in 0..cells {
            let flags = clp | if i + 1 == cells { Cell::EOM } else { 0 };
            p.push(now, label, Cell::data(vcid, id, label, flags));
        }
        self.try_transmit(now, port);
    }
}
