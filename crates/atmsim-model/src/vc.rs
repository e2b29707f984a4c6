//! A virtual channel connection: one direction, end to end.
//!
//! A VC has a service category and a traffic descriptor, is fed by one source (a TCP
//! connection's data or ACK stream, or a cell source) at its source host's adapter, and is
//! carried hop by hop under a label per link, rewritten by each switch's VC table. The VC
//! also keeps what its destination needs: the frames in flight (to check AAL5 reassembly) or,
//! for cell sources, the send times of the cells in flight (cell transfer delay).

use crate::host::Payload;
use crate::ids::{HostId, Label, PortId, SourceId, TcpId, VcId};
use crate::port::policy::DropReason;
use crate::service::{ServiceCategory, TrafficDescriptor};
use crate::spec::ConnectionSpec;
use atmsim_engine::SimTime;
use std::collections::VecDeque;

/// What feeds a VC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// The data direction of a TCP connection.
    TcpData(TcpId),
    /// The ACK direction of a TCP connection.
    TcpAck(TcpId),
    /// A cell source.
    Source(SourceId),
    /// No data: the reverse path of an ABR cell source's VC, which carries that VC's
    /// backward RM cells from its destination to its source.
    Feedback(VcId),
}

/// An AAL5 frame on its way.
#[derive(Debug, Clone, Copy)]
pub struct FrameDesc {
    pub id: u32,
    pub cells: u32,
    pub payload: Payload,
}

/// AAL5 reassembly state at the destination.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reassembly {
    pub active: bool,
    pub frame: u32,
    pub cells: u32,
    /// A cell of another frame arrived in the middle of this one.
    pub mixed: bool,
    /// A cell of this frame arrived with EFCI set (made CE at the edge for ECN).
    pub efci: bool,
}

/// Why a cell of a VC left the network without arriving.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossCause {
    /// Dropped at a switch port, for the port's reason.
    Port(DropReason),
    /// A data cell (or its whole frame) that found the ABR source queue full.
    SourceQueueFull,
    /// A backward RM cell waiting at an ABR source that a newer one replaced before it
    /// went (TM 4.0 destination rule 3: the older one's feedback is stale).
    RmSuperseded,
}

impl LossCause {
    pub const COUNT: usize = DropReason::COUNT + 2;
    pub const ALL: [LossCause; Self::COUNT] = [
        LossCause::Port(DropReason::VcBufferFull),
        LossCause::Port(DropReason::PortBufferFull),
        LossCause::Port(DropReason::FrameTail),
        LossCause::Port(DropReason::Purged),
        LossCause::Port(DropReason::EarlyDiscard),
        LossCause::Port(DropReason::Selective),
        LossCause::SourceQueueFull,
        LossCause::RmSuperseded,
    ];

    #[inline]
    pub const fn index(self) -> usize {
        match self {
            LossCause::Port(r) => r as usize,
            LossCause::SourceQueueFull => DropReason::COUNT,
            LossCause::RmSuperseded => DropReason::COUNT + 1,
        }
    }

    /// The name in the summary's `drops_by_reason` (a port's reasons keep their names).
    pub fn name(self) -> &'static str {
        match self {
            LossCause::Port(r) => r.name(),
            LossCause::SourceQueueFull => "source_queue_full",
            LossCause::RmSuperseded => "rm_superseded",
        }
    }
}

/// Counters of a VC over the whole run. Laid out in the order written (`repr(C)`): the two a
/// cell counts first, on the [`Vc`]'s first cache line.
#[derive(Debug, Clone, Default)]
#[repr(C)]
pub struct VcCounters {
    /// Cells handed to the source adapter (data, and the RM cells of this VC: forward ones
    /// its source sends and backward ones its destination turns round).
    pub cells_sent: u64,
    /// Cells that reached the far end of their direction (data and RM cells).
    pub cells_delivered: u64,
    /// Of those, RM cells (they carry no payload).
    pub rm_cells_delivered: u64,
    /// Cells lost, by cause ([`LossCause::index`]).
    pub drops: [u64; LossCause::COUNT],
    pub frames_sent: u64,
    pub frames_intact: u64,
    pub frames_corrupted: u64,
}

impl VcCounters {
    /// Cells lost, every cause.
    #[inline]
    pub fn cells_dropped(&self) -> u64 {
        self.drops.iter().sum()
    }

    /// Counts `n` cells lost for `cause`.
    #[inline]
    pub fn count_loss(&mut self, cause: LossCause, n: u64) {
        self.drops[cause.index()] += n;
    }
}

/// Cell transfer delay of a cell source's VC: from the start of a cell's transmission at the
/// source adapter to its arrival at the destination (ITU-T I.356's measurement points).
#[derive(Debug, Clone, Default)]
pub struct CellDelay {
    /// (sequence number, send time) of the cells sent and not yet delivered, oldest first;
    /// the entries of dropped cells are skipped when a later cell arrives.
    in_flight: VecDeque<(u32, SimTime)>,
    pub count: u64,
    pub sum: SimTime,
    pub max: SimTime,
}

impl CellDelay {
    #[inline]
    pub fn sent(&mut self, seq: u32, now: SimTime) {
        self.in_flight.push_back((seq, now));
    }

    /// Cell `seq` arrived at `now`: returns its delay.
    #[inline]
    pub fn delivered(&mut self, seq: u32, now: SimTime) -> SimTime {
        while let Some(&(s, t)) = self.in_flight.front() {
            self.in_flight.pop_front();
            if s == seq {
                let d = now - t;
                self.count += 1;
                self.sum += d;
                self.max = self.max.max(d);
                return d;
            }
        }
        unreachable!("cell {seq} delivered but never sent (cells of a VC stay in order)")
    }
}

/// A VC's state in the network.
///
/// Laid out in the order written (`repr(C)`), on cache lines of its own: what each cell
/// reaching the destination reads and writes (the flags, the ABR destination's EFCI state,
/// the reassembly state and the cells' counts) comes first, on one line, so that with many
/// VCs delivering in turn (paced ABR sources, each VC's state cold at its next cell) a cell
/// touches one line of its VC, not three.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Vc {
    /// Its cells form AAL5 frames.
    pub aal5: bool,
    /// ABR destination: the EFCI bit of the last data cell received (TM 4.0 destination
    /// rule 1), or with `efci_any` of any data cell since the last forward RM cell turned
    /// round, carried into CI of the next backward RM cell (see [`Vc::receive_efci`]).
    pub efci_state: bool,
    /// The source tags the VC's cells CLP = 1 (low priority for the buffer policies).
    pub tagged: bool,
    /// ABR destination: `efci_state` keeps any EFCI seen since the last forward RM cell
    /// turned round (`abr.destination_ci = "any_since_rm"`) instead of the last data cell's.
    pub efci_any: bool,
    /// The VC's ABR source end system (an index into the network's ABR sources), if ABR.
    pub abr: Option<u32>,
    pub rx: Reassembly,
    pub counters: VcCounters,
    pub owner: Owner,
    pub service: ServiceCategory,
    pub descriptor: TrafficDescriptor,
    pub src_host: HostId,
    pub dest_host: HostId,
    /// The VC's slot at its source adapter.
    pub first: (PortId, Label),
    /// The ports the VC crosses, the source adapter first.
    pub path: Vec<PortId>,
    pub next_frame: u32,
    /// Frames segmented but not yet resolved at the receiver, oldest first.
    pub frames: VecDeque<FrameDesc>,
    /// Cell sources only.
    pub delay: Option<CellDelay>,
    /// The VC of the opposite direction (a TCP connection's other VC, or an ABR cell
    /// source's feedback VC): the destination turns this VC's forward RM cells round onto it.
    pub reverse: Option<VcId>,
    /// ABR destination: forward RM cells of this VC turned round (whole run).
    pub rm_turned: u64,
    /// ABR destination: of those, turned round with CI set from `efci_state` (whole run).
    pub rm_turned_ci: u64,
}

impl Vc {
    /// A VC of connection `conn` (its service, descriptor and CLP tagging), owned by
    /// `owner`, from `src_host` to `dest_host`, wired at `first` and along `path`; `aal5`:
    /// its cells form frames (otherwise its cells' delays are measured).
    pub fn new(
        owner: Owner,
        conn: &ConnectionSpec,
        (first, path): ((PortId, Label), Vec<PortId>),
        (src_host, dest_host): (HostId, HostId),
        aal5: bool,
    ) -> Self {
        Vc {
            owner,
            service: conn.service,
            descriptor: conn.descriptor,
            src_host,
            dest_host,
            first,
            path,
            aal5,
            next_frame: 0,
            frames: VecDeque::new(),
            rx: Reassembly::default(),
            delay: (!aal5).then(CellDelay::default),
            counters: VcCounters::default(),
            reverse: None,
            abr: None,
            efci_state: false,
            rm_turned: 0,
            rm_turned_ci: 0,
            tagged: conn.tagged,
            efci_any: conn.abr.as_ref().is_some_and(|a| a.ci_any_since_rm),
        }
    }

    /// The ABR destination's EFCI state after a data cell with EFCI bit `efci` arrives: that
    /// bit (TM 4.0 destination rule 1: the last data cell's), or with `efci_any` whether
    /// this or any earlier data cell since the last turnaround carried it.
    #[inline]
    pub fn receive_efci(&mut self, efci: bool) {
        self.efci_state = efci || (self.efci_any && self.efci_state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cell reaching its destination reads and writes one cache line of its VC.
    #[test]
    fn a_delivered_cell_touches_the_first_line_of_its_vc() {
        use std::mem::{align_of, offset_of, size_of};
        assert_eq!(align_of::<Vc>(), 64);
        let end = |off: usize, size: usize| off + size;
        for e in [
            end(offset_of!(Vc, aal5), 1),
            end(offset_of!(Vc, efci_state), 1),
            end(offset_of!(Vc, efci_any), 1),
            end(offset_of!(Vc, abr), size_of::<Option<u32>>()),
            end(offset_of!(Vc, rx), size_of::<Reassembly>()),
            end(
                offset_of!(Vc, counters) + offset_of!(VcCounters, cells_delivered),
                8,
            ),
            end(
                offset_of!(Vc, counters) + offset_of!(VcCounters, rm_cells_delivered),
                8,
            ),
        ] {
            assert!(e <= 64, "a field the delivery touches ends at byte {e}");
        }
    }

    /// The destination's EFCI state: the last data cell's bit by default (TM 4.0
    /// destination rule 1); with `ci_any_since_rm` any marked cell since the last
    /// turnaround keeps it set until the turnaround takes it.
    #[test]
    fn the_destination_keeps_the_last_or_any_efci_since_the_rm_cell() {
        use crate::spec::{AbrSpec, ConnectionSpec};
        let abr = |any| {
            let mut c =
                ConnectionSpec::greedy_tcp("c", vec![0, 1], crate::topology::fang_tcp(9140));
            c.abr = Some(AbrSpec {
                params: crate::abr::source::AbrParams::tm4(1e5, SimTime::ZERO),
                source_buffer: None,
                drop_frames: false,
                ci_any_since_rm: any,
                access_cell_time: None,
            });
            Vc::new(
                Owner::Source(crate::ids::SourceId(0)),
                &c,
                ((PortId(0), 0), vec![]),
                (HostId(0), HostId(1)),
                false,
            )
        };
        let (mut last, mut any) = (abr(false), abr(true));
        assert!(!last.efci_any && any.efci_any);
        for v in [&mut last, &mut any] {
            v.receive_efci(false);
            assert!(!v.efci_state);
            v.receive_efci(true);
            assert!(v.efci_state);
            v.receive_efci(false);
        }
        assert!(!last.efci_state, "the last cell was unmarked");
        assert!(any.efci_state, "a marked cell came since the RM cell");
        // The turnaround takes the state; the next RM cell sees only later cells.
        assert!(std::mem::take(&mut any.efci_state));
        any.receive_efci(false);
        assert!(!any.efci_state);
    }

    #[test]
    fn loss_causes_index_their_counters_in_order_with_distinct_names() {
        for (i, c) in LossCause::ALL.iter().enumerate() {
            assert_eq!(c.index(), i);
        }
        let mut names: Vec<_> = LossCause::ALL.iter().map(|c| c.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), LossCause::COUNT);
        let mut k = VcCounters::default();
        k.count_loss(LossCause::SourceQueueFull, 3);
        k.count_loss(LossCause::Port(DropReason::Purged), 2);
        assert_eq!(k.cells_dropped(), 5);
    }

    #[test]
    fn cell_delay_skips_dropped_cells() {
        let us = SimTime::from_us;
        let mut d = CellDelay::default();
        for seq in 0..4 {
            d.sent(seq, us(10 * seq as u64));
        }
        assert_eq!(d.delivered(0, us(5)), us(5));
        // Cell 1 was dropped; cell 2 arrives.
        assert_eq!(d.delivered(2, us(27)), us(7));
        assert_eq!(d.delivered(3, us(31)), us(1));
        assert_eq!((d.count, d.sum, d.max), (3, us(13), us(7)));
    }
}
