//! An end system: one CPU, an IP output queue, a SAR engine, an adapter port.
//!
//! A TCP segment (or ACK) is processed by the host's CPU (a FIFO server, `processing` per
//! packet sent or received), waits for the IP output service (Cheon & Panwar's IP rate),
//! is segmented into AAL5 cells by the SAR engine (`sar_per_cell` per cell) and handed to
//! the adapter, a [`crate::port::Port`] with unbounded per-VC queues. At the destination a
//! frame that arrived intact waits one cell's reassembly time, then the CPU, then TCP.
//! Cells of non-AAL5 sources skip all of this: they enter the adapter directly and are
//! counted on arrival.
//!
//! Modelling choice: a frame is handed to the adapter when the SAR engine has segmented all
//! of its cells.

use crate::ids::{NodeId, PortId, TcpId, VcId};
use crate::tcp::Segment;
use atmsim_engine::{Lane, SimTime};
use std::collections::VecDeque;

/// What an AAL5 frame carries.
#[derive(Debug, Clone, Copy)]
pub enum Payload {
    Data { seq: u64, len: u32 },
    Ack { ack: u64 },
}

/// Work for a host CPU.
#[derive(Debug, Clone, Copy)]
pub enum Job {
    SendData { conn: TcpId, seg: Segment },
    SendAck { conn: TcpId, ack: u64 },
    RecvData { conn: TcpId, seq: u64, len: u32 },
    RecvAck { conn: TcpId, ack: u64 },
}

#[derive(Debug)]
pub struct Host {
    pub name: String,
    pub node: NodeId,
    /// The adapter: the port of the host's one link.
    pub adapter: PortId,
    /// CPU time per packet [ps].
    pub processing: SimTime,
    /// SAR time per cell [ps].
    pub sar_per_cell: SimTime,
    pub llc_snap: bool,
    pub cpu: VecDeque<Job>,
    pub cpu_busy: bool,
    /// Frames leaving segmentation: (vc, frame id).
    pub sar: Lane<(VcId, u32)>,
    pub sar_free_at: SimTime,
    /// IP output service time per packet [ps] (zero: no IP bottleneck).
    pub ip_service: SimTime,
    pub ip_free_at: SimTime,
    /// Intact frames leaving reassembly: (vc, payload).
    pub reasm: Lane<(VcId, Payload)>,
}
