//! The TCP glue: senders pumped into their host's CPU, receivers' ACKs, and their timers.

use super::{Event, Network};
use crate::host::Job;
use crate::ids::{TcpId, VcId};
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
            self.cpu_submit(now, src, Job::SendData { conn, seg });
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
    pub(super) fn on_data_received(&mut self, now: SimTime, conn: TcpId, seq: u64, len: u32) {
        let c = &mut self.tcps[conn.idx()];
        c.packets_delivered += 1;
        let action = c.receiver.on_segment(now, seq, len);
        self.after_receive(now, conn, action);
    }

    /// An ACK reached the sending TCP.
    pub(super) fn on_ack_received(&mut self, now: SimTime, conn: TcpId, ack: u64) {
        let before = self.loss_responses(conn);
        self.tcps[conn.idx()].sender.on_ack(now, ack);
        self.note_decrease(now, conn, before);
        self.pump_sender(now, conn);
    }

    fn after_receive(&mut self, now: SimTime, conn: TcpId, action: AckAction) {
        if let AckAction::Now(ack) = action {
            let dst = self.vcs[self.tcps[conn.idx()].data_vc.idx()].dest_host;
            self.cpu_submit(now, dst, Job::SendAck { conn, ack });
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
