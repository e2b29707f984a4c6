//! The TCP glue: senders pumped into their host's CPU, receivers' ACKs, and their timers.

use super::{Event, Network};
use crate::host::{Job, NO_SACK};
use crate::ids::{TcpId, VcId};
use crate::spec::{AppSpec, TcpSpec};
use crate::stats;
use crate::tcp::{AckAction, TcpReceiver, TcpSender};
use atmsim_engine::SimTime;

/// A TCP connection: its two VCs, its sender and receiver, and their pending timers.
#[derive(Debug)]
pub struct Tcp {
    pub name: String,
    pub data_vc: VcId,
    pub ack_vc: VcId,
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    pub start: SimTime,
    pub(crate) rto_pending: Option<SimTime>,
    pub(crate) ack_pending: Option<SimTime>,
    pub packets_delivered: u64,
    pub(crate) at_warmup: super::report::ConnCounters,
    /// The receiver's out-of-order ranges when the warm-up ended: data that had arrived
    /// before it, which the goodput does not count when a later segment fills the hole.
    pub(crate) held_at_warmup: Vec<(u64, u64)>,
    /// The SACK blocks of the ACKs on their way (SACK connections only).
    pub(crate) sack_log: SackLog,
}

impl Tcp {
    /// TCP connection `name` on VCs `data_vc` and `ack_vc`, from its spec and application,
    /// starting at `start`; `ack_phase`: the phase of its receiving host's own delayed-ACK
    /// clock, if it has one.
    pub fn new(
        name: String,
        (data_vc, ack_vc): (VcId, VcId),
        (tcp, app): (&TcpSpec, AppSpec),
        start: SimTime,
        ack_phase: Option<SimTime>,
    ) -> Self {
        let mut receiver = TcpReceiver::new(tcp);
        if let Some(phase) = ack_phase {
            receiver.set_ack_phase(phase);
        }
        Tcp {
            name,
            data_vc,
            ack_vc,
            sender: TcpSender::new(tcp, app),
            receiver,
            start,
            rto_pending: None,
            ack_pending: None,
            packets_delivered: 0,
            at_warmup: Default::default(),
            held_at_warmup: Vec::new(),
            sack_log: Default::default(),
        }
    }
}

/// The SACK blocks of a connection's ACKs between the receiver and the sender, by ACK
/// number: an ACK frame carries its number, and the blocks stay here, so a frame stays small
/// and nothing is allocated per ACK once the log has grown to the ACKs in flight. ACKs of one
/// connection arrive in the order they were sent (one VC); entries of ACKs lost on the way
/// are dropped when a later ACK arrives.
#[derive(Debug, Default)]
pub struct SackLog {
    next: u32,
    /// (ACK number, blocks, how many of them).
    entries: std::collections::VecDeque<(u32, SackBlocks, u8)>,
}

/// Up to four SACK blocks [start, end).
type SackBlocks = [(u64, u64); 4];

impl SackLog {
    /// Records the blocks of an ACK about to be sent; returns its number ([`NO_SACK`] if
    /// there are none).
    fn push(&mut self, blocks: &SackBlocks, n: usize) -> u32 {
        if n == 0 {
            return NO_SACK;
        }
        let id = self.next;
        self.next = if self.next + 1 == NO_SACK {
            0
        } else {
            self.next + 1
        };
        self.entries.push_back((id, *blocks, n as u8));
        id
    }

    /// The blocks of ACK `id` while it is on its way (empty for [`NO_SACK`]).
    pub fn blocks(&self, id: u32) -> &[(u64, u64)] {
        match self.entries.iter().rev().find(|e| e.0 == id) {
            Some(e) if id != NO_SACK => &e.1[..e.2 as usize],
            _ => &[],
        }
    }

    /// ACK `id` arrived: forgets it and the ACKs sent before it.
    fn arrived(&mut self, id: u32) -> (SackBlocks, usize) {
        while let Some(e) = self.entries.pop_front() {
            if e.0 == id {
                return (e.1, e.2 as usize);
            }
        }
        ([(0, 0); 4], 0)
    }
}

impl Network {
    /// Lets the sender emit every segment its window allows, then re-arms its timer.
    pub(super) fn pump_sender(&mut self, now: SimTime, conn: TcpId) {
        let c = &self.tcps[conn.idx()];
        if now < c.start {
            return;
        }
        let src = self.vcs[c.data_vc.idx()].src_host;
        while let Some(seg) = self.tcps[conn.idx()].sender.next_segment(now) {
            if self.tcps[conn.idx()].sender.segment_dropped() {
                continue; // lost before it leaves (the artificial loss at a window)
            }
            let flags = self.tcps[conn.idx()].sender.segment_flags();
            self.cpu_submit(now, src, Job::SendData { conn, seg, flags });
        }
        self.arm_rto(conn);
    }

    fn arm_rto(&mut self, conn: TcpId) {
        let c = &mut self.tcps[conn.idx()];
        if let Some(d) = c.sender.timer_deadline() {
            if c.rto_pending.is_none_or(|p| d < p) {
                c.rto_pending = Some(d);
                self.queue
                    .schedule(d.max(self.queue.now()), Event::Rto(conn));
            }
        }
    }

    /// Timeouts plus fast retransmits so far: each one cuts the window.
    fn loss_responses(&self, conn: TcpId) -> u64 {
        let s = self.tcps[conn.idx()].sender.stats();
        s.timeouts + s.fast_retransmits
    }

    /// Records a window decrease (for the synchronisation metric) if one just happened.
    fn note_decrease(&mut self, now: SimTime, conn: TcpId, before: u64) {
        if self.loss_responses(conn) > before && now >= self.warmup {
            let rtt = self.tcps[conn.idx()].sender.srtt().unwrap_or(SimTime::ZERO);
            self.decreases.push(stats::Decrease {
                time: now,
                conn: conn.0,
                rtt,
            });
        }
    }

    pub(super) fn on_rto_event(&mut self, now: SimTime, conn: TcpId) {
        let c = &mut self.tcps[conn.idx()];
        if c.rto_pending.is_some_and(|p| p <= now) {
            c.rto_pending = None;
        }
        if c.sender.timer_deadline().is_some_and(|d| d <= now) {
            let before = self.loss_responses(conn);
            self.tcps[conn.idx()].sender.on_timer(now);
            self.note_decrease(now, conn, before);
            self.pump_sender(now, conn);
        } else {
            self.arm_rto(conn);
        }
    }

    /// A data segment reached the receiving TCP.
    pub(super) fn on_data_received(
        &mut self,
        now: SimTime,
        conn: TcpId,
        seq: u64,
        len: u32,
        flags: u8,
    ) {
        let c = &mut self.tcps[conn.idx()];
        c.packets_delivered += 1;
        if flags != 0 {
            c.receiver.on_ecn_flags(flags);
        }
        let action = c.receiver.on_segment(now, seq, len);
        self.after_receive(now, conn, action);
    }

    /// An ACK reached the sending TCP.
    pub(super) fn on_ack_received(
        &mut self,
        now: SimTime,
        conn: TcpId,
        ack: u64,
        sack: u32,
        ece: bool,
    ) {
        let before = self.loss_responses(conn);
        let c = &mut self.tcps[conn.idx()];
        let (blocks, n) = if sack == NO_SACK {
            ([(0, 0); 4], 0)
        } else {
            c.sack_log.arrived(sack)
        };
        c.sender.on_ack_ecn(now, ack, &blocks[..n], ece);
        self.note_decrease(now, conn, before);
        self.pump_sender(now, conn);
    }

    fn after_receive(&mut self, now: SimTime, conn: TcpId, action: AckAction) {
        if let AckAction::Now(ack) = action {
            let c = &mut self.tcps[conn.idx()];
            let mut blocks = [(0, 0); 4];
            let n = c.receiver.sack_blocks(&mut blocks);
            let sack = c.sack_log.push(&blocks, n);
            let dst = self.vcs[c.data_vc.idx()].dest_host;
            let ece = c.receiver.ece();
            self.cpu_submit(
                now,
                dst,
                Job::SendAck {
                    conn,
                    ack,
                    sack,
                    ece,
                },
            );
        }
        let c = &mut self.tcps[conn.idx()];
        if let Some(d) = c.receiver.ack_deadline() {
            if c.ack_pending.is_none_or(|p| d < p) {
                c.ack_pending = Some(d);
                self.queue.schedule(d.max(now), Event::AckTimer(conn));
            }
        }
    }

    pub(super) fn on_ack_timer_event(&mut self, now: SimTime, conn: TcpId) {
        let c = &mut self.tcps[conn.idx()];
        if c.ack_pending.is_some_and(|p| p <= now) {
            c.ack_pending = None;
        }
        let action = if c.receiver.ack_deadline().is_some_and(|d| d <= now) {
            c.receiver.on_ack_timer(now)
        } else {
            AckAction::None
        };
        self.after_receive(now, conn, action);
    }
}
