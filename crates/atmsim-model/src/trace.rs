//! Traces of a run: the IP packets of TCP connections as pcap-ng files (one per traced host
//! or link) and the cells at ports as columns (written to Parquet by the Python side).
//!
//! The model carries no packet bytes: a packet here is built from the model's state when its
//! AAL5 frame completes (its EOM cell leaves a port or reaches a host intact). The headers are
//! real IPv4 and TCP headers ([`etherparse`]), the file is real pcap-ng ([`pcap_file`]);
//! only the headers are captured (the payload is counted in the IP total length, as
//! `tcpdump -s` does). [`crate::network`] calls in through `network/trace.rs`; this file
//! holds what does not need the network: the configuration, the addresses and ports, the
//! header builder and the per-file writer.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use atmsim_engine::SimTime;
use etherparse::{IpNumber, Ipv4Ecn, Ipv4Header, TcpHeader, TcpOptionElement};
use pcap_file::pcapng::blocks::enhanced_packet::{EnhancedPacketBlock, EnhancedPacketOption};
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::blocks::name_resolution::{Ipv4Record, NameResolutionBlock, Record};
use pcap_file::pcapng::blocks::section_header::{SectionHeaderBlock, SectionHeaderOption};
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::{DataLink, Endianness};

/// What to trace, by name (checked against the network when the tracer is attached).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TraceConfig {
    /// Folder of the pcap-ng files (`None`: no packet trace).
    pub pcap_dir: Option<PathBuf>,
    /// Hosts with a file; `None`: every host that ends a traced connection.
    pub hosts: Option<Vec<String>>,
    /// Ports (`node->next`) with a file.
    pub links: Vec<String>,
    /// TCP connections whose packets are written; `None`: every TCP connection.
    pub connections: Option<Vec<String>>,
    /// Packets and cells from this time on [ps].
    pub from: SimTime,
    /// Packets and cells before this time [ps]; `None`: to the end of the run.
    pub until: Option<SimTime>,
    /// The cell trace, if one is wanted.
    pub cells: Option<CellTraceConfig>,
}

/// What the cell trace records.
#[derive(Debug, Clone, PartialEq)]
pub struct CellTraceConfig {
    /// Connections whose cells (both directions, RM cells included) are recorded; `None`:
    /// every connection.
    pub connections: Option<Vec<String>>,
    /// Ports (`node->next`) whose events are recorded; `None`: every port.
    pub ports: Option<Vec<String>>,
    /// The most rows kept; recording stops there (and says so).
    pub max_rows: u64,
}

/// The default of `[trace] cell_max_rows`.
pub const CELL_MAX_ROWS_DEFAULT: u64 = 1_000_000;

/// The receiver's port of every connection.
pub const RECEIVER_PORT: u16 = 5001;
/// The first sender port: connection `k` (its index among the scenario's connections) sends
/// from `SENDER_PORT_BASE + k`.
pub const SENDER_PORT_BASE: u16 = 1024;
/// Captured bytes per packet at most: IPv4 (20) and TCP (60) headers at their largest.
pub const SNAPLEN: u32 = 80;

/// The IPv4 address of host `k` (its index among the network's hosts: the spec's host nodes
/// in order, which the scenario lists as they first appear in its links): 10.0.0.1 for the
/// first, then counting up (10.0.1.0 is the 256th).
pub fn host_address(k: usize) -> [u8; 4] {
    let n = (k as u32 + 1) & 0x00ff_ffff;
    [10, (n >> 16) as u8, (n >> 8) as u8, n as u8]
}

/// The initial sequence number of a direction of connection `k`: a fixed function of `k`
/// (a Weyl sequence), so traces of the same scenario agree and sequence numbers wrap at
/// different points for different connections.
pub fn isn(k: usize, receiver: bool) -> u32 {
    let x = (k as u32)
        .wrapping_mul(2)
        .wrapping_add(u32::from(receiver))
        .wrapping_add(1);
    x.wrapping_mul(0x9e37_79b9)
}

/// The smallest RFC 7323 shift that lets `window` bytes be advertised in 16 bits.
pub fn window_shift(window: u32) -> u8 {
    (0..=14u8)
        .find(|&s| u64::from(window) <= 65_535u64 << s)
        .unwrap_or(14)
}

/// One TCP connection as the trace shows it.
#[derive(Debug, Clone)]
pub struct Endpoints {
    pub sender: [u8; 4],
    pub receiver: [u8; 4],
    pub sport: u16,
    pub dport: u16,
    /// Initial sequence numbers of the sender and of the receiver.
    pub isn: (u32, u32),
    pub mss: u32,
    /// The receiver's window in bytes (the connection's max window).
    pub window: u32,
    pub sack: bool,
    /// The connection uses ECN (`tcp.ecn`): the synthetic handshake negotiates it.
    pub ecn: bool,
}

/// A packet to write: its captured header bytes and its length on the wire (IP).
#[derive(Debug, Clone, PartialEq)]
pub struct Packet {
    pub headers: Vec<u8>,
    pub original_len: u32,
}

/// What a packet is, in the model's terms (byte offsets from 0, as the model counts).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Segment<'a> {
    /// The synthetic SYN (sender to receiver).
    Syn,
    /// The synthetic SYN-ACK (receiver to sender).
    SynAck,
    /// A data segment: bytes `[seq, seq + len)`; `ecn`: its ECN flags
    /// ([`crate::tcp::ecn`]: ECT, CWR, CE).
    Data { seq: u64, len: u32, ecn: u8 },
    /// An ACK: cumulative `ack`, its SACK blocks `[start, end)`, and ECN-Echo.
    Ack {
        ack: u64,
        sack: &'a [(u64, u64)],
        ece: bool,
    },
}

/// Zero bytes standing for a segment's payload in the TCP checksum (the model carries no
/// payload; zeros add nothing to the one's-complement sum, so this is the checksum of a
/// payload of zeros).
static ZEROS: [u8; 65_535] = [0; 65_535];

impl Endpoints {
    /// A sequence number: the model's byte offset `off` after the ISN and the SYN, modulo 2^32.
    fn seq(isn: u32, off: u64) -> u32 {
        isn.wrapping_add(1).wrapping_add(off as u32)
    }

    /// The IPv4 and TCP headers of `seg`, with correct checksums, and the packet's length.
    ///
    /// ECN (RFC 3168): with `ecn` the SYN carries ECE and CWR and the SYN-ACK ECE (the
    /// ECN-setup handshake, 6.1.1); a data segment's IP ECN field is ECT(0) when it is
    /// ECN-capable and CE when Congestion Experienced, its TCP CWR flag as sent; an ACK is
    /// not ECN-capable (6.1.4) and carries ECE as the receiver set it.
    pub fn packet(&self, seg: Segment<'_>) -> Packet {
        let (s_isn, r_isn) = self.isn;
        let shift = window_shift(self.window);
        let scaled = (self.window >> shift).min(65_535) as u16;
        let syn_window = self.window.min(65_535) as u16;
        let syn_options = |tcp: &mut TcpHeader| {
            let mut o = vec![
                TcpOptionElement::MaximumSegmentSize(self.mss.min(65_535) as u16),
                TcpOptionElement::Noop,
                TcpOptionElement::WindowScale(shift),
            ];
            if self.sack {
                o.push(TcpOptionElement::Noop);
                o.push(TcpOptionElement::Noop);
                o.push(TcpOptionElement::SelectiveAcknowledgementPermitted);
            }
            tcp.set_options(&o).expect("SYN options fit in 40 bytes");
        };
        let (src, dst, mut tcp, payload) = match seg {
            Segment::Syn => {
                let mut t = TcpHeader::new(self.sport, self.dport, s_isn, syn_window);
                t.syn = true;
                t.ece = self.ecn;
                t.cwr = self.ecn;
                syn_options(&mut t);
                (self.sender, self.receiver, t, 0)
            }
            Segment::SynAck => {
                let mut t = TcpHeader::new(self.dport, self.sport, r_isn, syn_window);
                t.syn = true;
                t.ack = true;
                t.ece = self.ecn;
                t.acknowledgment_number = s_isn.wrapping_add(1);
                syn_options(&mut t);
                (self.receiver, self.sender, t, 0)
            }
            Segment::Data { seq, len, ecn } => {
                let mut t = TcpHeader::new(self.sport, self.dport, Self::seq(s_isn, seq), scaled);
                t.ack = true;
                t.psh = true;
                t.cwr = ecn & crate::tcp::ecn::CWR != 0;
                t.acknowledgment_number = r_isn.wrapping_add(1);
                (self.sender, self.receiver, t, len)
            }
            Segment::Ack { ack, sack, ece } => {
                let mut t = TcpHeader::new(self.dport, self.sport, Self::seq(r_isn, 0), scaled);
                t.ack = true;
                t.ece = ece;
                t.acknowledgment_number = Self::seq(s_isn, ack);
                if !sack.is_empty() {
                    let b = |i: usize| {
                        sack.get(i)
                            .map(|&(a, e)| (Self::seq(s_isn, a), Self::seq(s_isn, e)))
                    };
                    t.set_options(&[
                        TcpOptionElement::Noop,
                        TcpOptionElement::Noop,
                        TcpOptionElement::SelectiveAcknowledgement(
                            b(0).expect("not empty"),
                            [b(1), b(2), b(3)],
                        ),
                    ])
                    .expect("four SACK blocks fit in 40 bytes");
                }
                (self.receiver, self.sender, t, 0)
            }
        };
        let tcp_len = tcp.header_len() as u32 + payload;
        let mut ip = Ipv4Header::new(tcp_len as u16, 64, IpNumber::TCP, src, dst)
            .expect("a segment fits in an IPv4 datagram");
        if let Segment::Data { ecn, .. } = seg {
            use crate::tcp::ecn::{CE, ECT};
            ip.ecn = if ecn & CE != 0 {
                Ipv4Ecn::TRHEE // CE
            } else if ecn & ECT != 0 {
                Ipv4Ecn::TWO // ECT(0)
            } else {
                Ipv4Ecn::ZERO // Not-ECT
            };
        }
        ip.header_checksum = ip.calc_header_checksum();
        tcp.checksum = tcp
            .calc_checksum_ipv4(&ip, &ZEROS[..payload as usize])
            .expect("a segment fits in an IPv4 datagram");
        let mut headers = Vec::with_capacity(ip.header_len() + tcp.header_len());
        ip.write(&mut headers).expect("writing to a Vec");
        tcp.write(&mut headers).expect("writing to a Vec");
        Packet {
            headers,
            original_len: ip.total_len as u32,
        }
    }
}

/// Time as pcap-ng writes it (nanoseconds; the interfaces say so with `if_tsresol` = 9).
fn timestamp(t: SimTime) -> Duration {
    Duration::from_nanos(t.0 / 1_000)
}

/// One pcap-ng file: a section, one interface (the host or link), a name resolution block,
/// then the packets, written through a buffer as they come.
pub struct PcapFile {
    pub path: PathBuf,
    writer: PcapNgWriter<BufWriter<File>>,
    pub packets: u64,
}

impl std::fmt::Debug for PcapFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PcapFile")
            .field("path", &self.path)
            .field("packets", &self.packets)
            .finish()
    }
}

fn io_error(path: &Path, e: impl std::fmt::Display) -> String {
    format!("cannot write {}: {e}", path.display())
}

impl PcapFile {
    /// Creates `path` and writes its header blocks: the interface named `name`, described
    /// by `description`; `names` maps addresses to host names.
    pub fn create(
        path: PathBuf,
        name: &str,
        description: &str,
        names: &[([u8; 4], String)],
    ) -> Result<PcapFile, String> {
        let file = File::create(&path).map_err(|e| io_error(&path, e))?;
        let section = SectionHeaderBlock {
            endianness: Endianness::Little,
            major_version: 1,
            minor_version: 0,
            section_length: -1,
            options: vec![SectionHeaderOption::UserApplication(Cow::Owned(format!(
                "atmsim {}",
                env!("CARGO_PKG_VERSION")
            )))],
        };
        let mut writer = PcapNgWriter::with_section_header(BufWriter::new(file), section)
            .map_err(|e| io_error(&path, e))?;
        let interface = InterfaceDescriptionBlock {
            linktype: DataLink::RAW,
            snaplen: SNAPLEN,
            options: vec![
                InterfaceDescriptionOption::IfName(Cow::Owned(name.to_string())),
                InterfaceDescriptionOption::IfDescription(Cow::Owned(description.to_string())),
                InterfaceDescriptionOption::IfTsResol(9),
            ],
        };
        writer
            .write_pcapng_block(interface)
            .map_err(|e| io_error(&path, e))?;
        if !names.is_empty() {
            let mut records: Vec<Record> = names
                .iter()
                .map(|(a, n)| {
                    Record::Ipv4(Ipv4Record {
                        ip_addr: Cow::Owned(a.to_vec()),
                        names: vec![Cow::Owned(n.clone())],
                    })
                })
                .collect();
            records.push(Record::End);
            writer
                .write_pcapng_block(NameResolutionBlock {
                    records,
                    options: vec![],
                })
                .map_err(|e| io_error(&path, e))?;
        }
        Ok(PcapFile {
            path,
            writer,
            packets: 0,
        })
    }

    /// Writes one packet seen at `t`, with a comment if given.
    pub fn write(&mut self, t: SimTime, p: &Packet, comment: Option<String>) -> Result<(), String> {
        let block = EnhancedPacketBlock {
            interface_id: 0,
            timestamp: timestamp(t),
            original_len: p.original_len,
            data: Cow::Borrowed(&p.headers),
            options: comment
                .map(|c| vec![EnhancedPacketOption::Comment(Cow::Owned(c))])
                .unwrap_or_default(),
        };
        self.writer
            .write_pcapng_block(block)
            .map_err(|e| io_error(&self.path, e))?;
        self.packets += 1;
        Ok(())
    }

    /// Flushes the buffer to the file.
    pub fn finish(&mut self) -> Result<(), String> {
        self.writer
            .get_mut()
            .flush()
            .map_err(|e| io_error(&self.path, e))
    }
}

/// The cell trace's columns, one entry per row (bounded by [`CellTraceConfig::max_rows`]).
/// Kept as plain vectors so that a later version can hand them over in batches.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CellColumns {
    /// When [ps]: a departure's end of transmission is `time_ps` + the cell time; this is
    /// the event's instant (the cell starts leaving, or is dropped on arrival).
    pub time_ps: Vec<u64>,
    /// Index of the port (the order of `ports` in the results).
    pub port: Vec<u32>,
    /// Index of the connection (the scenario's order).
    pub connection: Vec<u32>,
    /// The VC's direction: 0 data (forward), 1 the reverse VC (ACKs, feedback).
    pub reverse: Vec<u8>,
    /// 0 sent, 1 dropped.
    pub event: Vec<u8>,
    /// Drop reason ([`crate::port::policy::DropReason`] as u8), 255 for a departure.
    pub reason: Vec<u8>,
    /// [`crate::cell::CellKind`] as u8.
    pub kind: Vec<u8>,
    /// [`crate::cell::Cell`] flags (EOM 1, CLP 2, EFCI 4).
    pub flags: Vec<u8>,
    /// Cells queued at the port after the event.
    pub queue: Vec<u32>,
}

impl CellColumns {
    pub fn len(&self) -> usize {
        self.time_ps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_ps.is_empty()
    }
}

/// What a finished trace produced.
#[derive(Debug, Clone, Default)]
pub struct TraceOutput {
    /// Each pcap-ng file written and its number of packets.
    pub pcap_files: Vec<(PathBuf, u64)>,
    pub cells: Option<CellColumns>,
    /// The cell trace reached its row limit and stopped recording then.
    pub cells_truncated_at: Option<SimTime>,
    /// Cell events matching the filters that were not recorded (beyond the limit).
    pub cells_not_recorded: u64,
    /// The names the cell columns' indices refer to: ports (`node->next`) and connections.
    pub port_names: Vec<String>,
    pub connection_names: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherparse::{Ipv4HeaderSlice, TcpHeaderSlice};

    fn ends(window: u32, sack: bool) -> Endpoints {
        Endpoints {
            sender: host_address(0),
            receiver: host_address(1),
            sport: SENDER_PORT_BASE,
            dport: RECEIVER_PORT,
            isn: (u32::MAX - 100, 7),
            mss: 9140,
            window,
            sack,
            ecn: false,
        }
    }

    /// Parses a packet back; checks both checksums against a zero payload.
    fn parse(p: &Packet) -> (Ipv4Header, TcpHeader) {
        let ip = Ipv4HeaderSlice::from_slice(&p.headers).unwrap();
        assert_eq!(ip.total_len() as u32, p.original_len);
        let ip = ip.to_header();
        assert_eq!(ip.header_checksum, ip.calc_header_checksum());
        let rest = &p.headers[ip.header_len()..];
        let tcp = TcpHeaderSlice::from_slice(rest).unwrap().to_header();
        assert_eq!(
            rest.len(),
            tcp.header_len(),
            "only the headers are captured"
        );
        let payload = p.original_len as usize - ip.header_len() - tcp.header_len();
        assert_eq!(
            tcp.checksum,
            tcp.calc_checksum_ipv4(&ip, &vec![0; payload]).unwrap()
        );
        (ip, tcp)
    }

    #[test]
    fn addresses_count_up_from_10_0_0_1() {
        assert_eq!(host_address(0), [10, 0, 0, 1]);
        assert_eq!(host_address(254), [10, 0, 0, 255]);
        assert_eq!(host_address(255), [10, 0, 1, 0]);
        assert_ne!(isn(0, false), isn(0, true));
        assert_ne!(isn(0, true), isn(1, false));
    }

    #[test]
    fn data_sequence_numbers_wrap_at_2_to_the_32() {
        let e = ends(65_535, false);
        let (ip, tcp) = parse(&e.packet(Segment::Data {
            seq: 0,
            len: 9140,
            ecn: 0,
        }));
        assert_eq!(tcp.sequence_number, u32::MAX - 99, "ISN + 1 for the SYN");
        assert_eq!(ip.total_len, 40 + 9140);
        assert!(tcp.ack && tcp.psh && !tcp.syn);
        assert_eq!(tcp.acknowledgment_number, 8);
        let (_, tcp) = parse(&e.packet(Segment::Data {
            seq: 200,
            len: 100,
            ecn: 0,
        }));
        assert_eq!(tcp.sequence_number, 100, "wrapped");
        let (_, tcp) = parse(&e.packet(Segment::Data {
            seq: (1 << 32) + 200,
            len: 100,
            ecn: 0,
        }));
        assert_eq!(tcp.sequence_number, 100, "offsets past 4 GiB wrap too");
        assert_eq!(tcp.window_size, 65_535);
    }

    #[test]
    fn a_large_window_is_scaled_and_the_syn_says_by_how_much() {
        let e = ends(1 << 20, true);
        assert_eq!(window_shift(1 << 20), 5);
        let (_, syn) = parse(&e.packet(Segment::Syn));
        assert!(syn.syn && !syn.ack);
        assert_eq!(syn.window_size, 65_535, "a SYN's window is never scaled");
        let opts: Vec<_> = syn.options_iterator().map(|o| o.unwrap()).collect();
        assert!(opts.contains(&TcpOptionElement::WindowScale(5)));
        assert!(opts.contains(&TcpOptionElement::MaximumSegmentSize(9140)));
        assert!(opts.contains(&TcpOptionElement::SelectiveAcknowledgementPermitted));
        let (_, synack) = parse(&e.packet(Segment::SynAck));
        assert!(synack.syn && synack.ack);
        assert_eq!(synack.acknowledgment_number, u32::MAX - 99);
        let (_, ack) = parse(&e.packet(Segment::Ack {
            ack: 1000,
            sack: &[],
            ece: false,
        }));
        assert_eq!(ack.window_size, 32_768, "1 MiB >> 5");
        assert_eq!(ack.sequence_number, 8);
        assert_eq!(
            ack.acknowledgment_number,
            (u32::MAX - 99).wrapping_add(1000)
        );
        let plain = ends(65_535, false);
        let (_, syn) = parse(&plain.packet(Segment::Syn));
        let opts: Vec<_> = syn.options_iterator().map(|o| o.unwrap()).collect();
        assert!(opts.contains(&TcpOptionElement::WindowScale(0)));
        assert!(!opts.contains(&TcpOptionElement::SelectiveAcknowledgementPermitted));
    }

    /// An ACK's SACK option takes the bytes the model charges: 2 + 8 per block, padded to 4.
    #[test]
    fn sack_blocks_are_carried_and_sized_as_the_model_charges() {
        let e = ends(65_535, true);
        for n in 1..=4usize {
            let blocks: Vec<(u64, u64)> = (0..n as u64)
                .map(|i| (1000 * (i + 2), 1000 * (i + 2) + 500))
                .collect();
            let p = e.packet(Segment::Ack {
                ack: 1000,
                sack: &blocks,
                ece: false,
            });
            let (ip, tcp) = parse(&p);
            let charged = (2 + 8 * n as u32).div_ceil(4) * 4;
            assert_eq!(ip.total_len as u32, 40 + charged);
            let got: Vec<_> = tcp.options_iterator().map(|o| o.unwrap()).collect();
            let Some(TcpOptionElement::SelectiveAcknowledgement(first, rest)) = got.last() else {
                panic!("no SACK option: {got:?}");
            };
            let mut all = vec![*first];
            all.extend(rest.iter().flatten());
            let want: Vec<_> = blocks
                .iter()
                .map(|&(a, b)| (Endpoints::seq(e.isn.0, a), Endpoints::seq(e.isn.0, b)))
                .collect();
            assert_eq!(all, want);
        }
    }

    #[test]
    fn ecn_sets_the_ip_codepoint_and_the_tcp_flags() {
        use crate::tcp::ecn::{CE, CWR, ECT};
        let mut e = ends(65_535, false);
        e.ecn = true;
        // The ECN-setup handshake (RFC 3168 6.1.1): SYN with ECE and CWR, SYN-ACK with ECE.
        let (ip, syn) = parse(&e.packet(Segment::Syn));
        assert!(syn.syn && syn.ece && syn.cwr);
        assert_eq!(ip.ecn, Ipv4Ecn::ZERO, "a SYN is not ECN-capable");
        let (_, synack) = parse(&e.packet(Segment::SynAck));
        assert!(synack.syn && synack.ack && synack.ece && !synack.cwr);
        // Data: the IP ECN field (ECT(0) = 0b10, CE = 0b11, Not-ECT = 0), CWR as sent.
        let data = |ecn: u8| {
            parse(&e.packet(Segment::Data {
                seq: 0,
                len: 100,
                ecn,
            }))
        };
        let (ip, tcp) = data(ECT);
        assert_eq!((ip.ecn.value(), tcp.cwr, tcp.ece), (0b10, false, false));
        let (ip, tcp) = data(ECT | CWR);
        assert_eq!((ip.ecn.value(), tcp.cwr), (0b10, true));
        let (ip, _) = data(ECT | CE);
        assert_eq!(ip.ecn.value(), 0b11);
        let (ip, tcp) = data(0);
        assert_eq!((ip.ecn.value(), tcp.cwr), (0, false), "a retransmission");
        // The ToS byte on the wire: DSCP 0, ECN in its two low bits.
        let p = e.packet(Segment::Data {
            seq: 0,
            len: 100,
            ecn: ECT | CE,
        });
        assert_eq!(p.headers[1], 0b11);
        // An ACK: not ECN-capable, ECE as the receiver set it.
        let (ip, ack) = parse(&e.packet(Segment::Ack {
            ack: 1000,
            sack: &[],
            ece: true,
        }));
        assert_eq!(ip.ecn, Ipv4Ecn::ZERO);
        assert!(ack.ack && ack.ece && !ack.cwr);
        // Without ECN: no negotiation.
        let plain = ends(65_535, false);
        let (_, syn) = parse(&plain.packet(Segment::Syn));
        assert!(!syn.ece && !syn.cwr);
        let (_, synack) = parse(&plain.packet(Segment::SynAck));
        assert!(!synack.ece);
    }
}
