//! The tracer: packets into pcap-ng files and cell events into columns, fed from a few
//! places of the event handlers (a cell leaves a port, a frame reaches its host intact, a
//! switch port drops, a connection starts). Each call site tests `self.trace.is_some()`
//! and calls a `#[cold]` function here, so a run without a trace pays one predictable
//! branch; a run with one sees the same events in the same order (the tracer only reads the
//! network and never schedules anything).

use std::collections::HashMap;

use super::{Conn, Network};
use crate::cell::Cell;
use crate::host::Payload;
use crate::ids::{HostId, PortId, TcpId, VcId};
use crate::port::policy::DropReason;
use crate::spec::{NetworkSpec, SourceSpec, TcpVariant};
use crate::trace::{
    host_address, isn, CellColumns, CellTraceConfig, Endpoints, Packet, PcapFile, Segment,
    TraceConfig, TraceOutput, RECEIVER_PORT, SENDER_PORT_BASE,
};
use crate::vc::Owner;
use atmsim_engine::SimTime;

/// A running trace.
#[derive(Debug)]
pub(crate) struct Tracer {
    from: SimTime,
    until: SimTime,
    /// Per TCP connection: how the trace shows it (`None`: not traced).
    ends: Vec<Option<Endpoints>>,
    /// Per TCP connection: its start time.
    starts: Vec<SimTime>,
    files: Vec<TraceFile>,
    /// Per port: the files that show the frames whose EOM leaves it.
    port_files: Vec<Vec<u32>>,
    /// Per host: the file that shows the frames it receives intact.
    host_file: Vec<Option<u32>>,
    /// Per (port, VC) of a port with a file: the frame whose cells are leaving, how many of
    /// them left so far, and whether one of them carried EFCI.
    progress: HashMap<(u32, u32), (u32, u32, bool)>,
    cells: Option<CellRecorder>,
    /// The first write error (the trace stops writing; the run goes on).
    error: Option<String>,
}

#[derive(Debug)]
struct TraceFile {
    pcap: PcapFile,
    /// The port the file shows (a link file), for its comments.
    port: Option<String>,
    /// Per TCP connection: whether the file sees its data direction, its ACK direction, and
    /// whether the synthetic handshake is written yet.
    sees: Vec<(bool, bool, bool)>,
}

#[derive(Debug)]
struct CellRecorder {
    cols: CellColumns,
    max_rows: u64,
    /// Rows recorded so far, those already handed over ([`Network::drain_cell_trace`])
    /// included.
    recorded: u64,
    /// Per port: recorded.
    ports: Vec<bool>,
    /// Per VC: (connection index, reverse direction), if recorded.
    vcs: Vec<Option<(u32, u8)>>,
    truncated_at: Option<SimTime>,
    not_recorded: u64,
}

impl CellRecorder {
    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        now: SimTime,
        p: PortId,
        cell: &Cell,
        event: u8,
        reason: u8,
        flags: u8,
        queue: u32,
    ) {
        if !self.ports[p.idx()] {
            return;
        }
        let Some((conn, reverse)) = self.vcs[cell.vc.idx()] else {
            return;
        };
        if self.recorded >= self.max_rows {
            self.truncated_at.get_or_insert(now);
            self.not_recorded += 1;
            return;
        }
        self.recorded += 1;
        let c = &mut self.cols;
        c.time_ps.push(now.0);
        c.port.push(p.0);
        c.connection.push(conn);
        c.reverse.push(reverse);
        c.event.push(event);
        c.reason.push(reason);
        c.kind.push(cell.kind as u8);
        c.flags.push(flags);
        c.queue.push(queue);
    }
}

/// A name that is not one of `allowed`: the error names them.
fn unknown(what: &str, name: &str, allowed: &[String]) -> String {
    format!(
        "trace: {name:?} is not a {what} of this network; allowed: {}",
        allowed.join(", ")
    )
}

impl Tracer {
    fn in_window(&self, t: SimTime) -> bool {
        t >= self.from && t < self.until
    }

    /// Writes `packet` of connection `conn` at `t` to file `f`, the synthetic handshake
    /// first if the file has not shown it yet (at the connection's start, or at `t` if the
    /// connection started before the trace's window).
    fn write(&mut self, f: u32, conn: TcpId, t: SimTime, packet: &Packet, comment: Option<&str>) {
        if self.error.is_some() {
            return;
        }
        let ends = self.ends[conn.idx()].as_ref().expect("a traced connection");
        let start = self.starts[conn.idx()];
        let file = &mut self.files[f as usize];
        let mut result = Ok(());
        let (data, ack, shaken) = file.sees[conn.idx()];
        if !shaken {
            file.sees[conn.idx()].2 = true;
            let at = if start >= self.from { start.min(t) } else { t };
            if data {
                result = result.and_then(|_| {
                    file.pcap
                        .write(at, &ends.packet(Segment::Syn), Some(SYN_COMMENT.into()))
                });
            }
            if ack {
                result = result.and_then(|_| {
                    file.pcap
                        .write(at, &ends.packet(Segment::SynAck), Some(SYN_COMMENT.into()))
                });
            }
        }
        result = result.and_then(|_| file.pcap.write(t, packet, comment.map(String::from)));
        if let Err(e) = result {
            self.error = Some(e);
        }
    }
}

const SYN_COMMENT: &str = "synthetic: atmsim models no handshake (connections start \
                           established); this SYN carries the MSS, window scale and SACK \
                           permission the model assumes";

impl Network {
    /// Starts tracing as `cfg` says; `spec` is the spec the network was built from and
    /// `scenario` its name (written in each file's interface description). Call before the
    /// run. Errors name what is wrong (an unknown name, a file that cannot be created).
    pub fn attach_trace(
        &mut self,
        spec: &NetworkSpec,
        cfg: &TraceConfig,
        scenario: &str,
    ) -> Result<(), String> {
        let ntcp = self.tcps.len();
        // Spec connection index of each TCP connection, and its TCP parameters.
        let mut index = vec![0usize; ntcp];
        for (k, c) in self.conns.iter().enumerate() {
            if let Conn::Tcp(t) = c {
                index[t.idx()] = k;
            }
        }
        let tcp_names: Vec<String> = self.tcps.iter().map(|t| t.name.clone()).collect();
        let host_names: Vec<String> = self.hosts.iter().map(|h| h.name.clone()).collect();
        let port_names: Vec<String> = self.ports.iter().map(|p| p.name.clone()).collect();
        let conn_names: Vec<String> = spec.connections.iter().map(|c| c.name.clone()).collect();
        let mut traced = vec![cfg.connections.is_none(); ntcp];
        for name in cfg.connections.iter().flatten() {
            let t = tcp_names
                .iter()
                .position(|n| n == name)
                .ok_or_else(|| unknown("TCP connection", name, &tcp_names))?;
            traced[t] = true;
        }
        let mut ends = vec![None; ntcp];
        if cfg.pcap_dir.is_some() {
            for (t, tcp) in self.tcps.iter().enumerate() {
                if !traced[t] {
                    continue;
                }
                let k = index[t];
                let SourceSpec::Tcp { tcp: ts, .. } = &spec.connections[k].source else {
                    return Err(format!("trace: connection {} is not TCP", tcp.name));
                };
                let sport = u16::try_from(k + usize::from(SENDER_PORT_BASE))
                    .ok()
                    .filter(|&p| p != RECEIVER_PORT)
                    .ok_or_else(|| {
                        format!(
                            "trace: connection {} is number {k}: too many connections for a \
                             port of its own (at most {})",
                            tcp.name,
                            u16::MAX - SENDER_PORT_BASE
                        )
                    })?;
                let data = &self.vcs[tcp.data_vc.idx()];
                ends[t] = Some(Endpoints {
                    sender: host_address(data.src_host.idx()),
                    receiver: host_address(data.dest_host.idx()),
                    sport,
                    dport: RECEIVER_PORT,
                    isn: (isn(k, false), isn(k, true)),
                    mss: ts.mss_bytes,
                    window: ts.max_window_bytes,
                    sack: ts.variant == TcpVariant::Sack,
                    ecn: ts.ecn,
                });
            }
        }
        let mut tracer = Tracer {
            from: cfg.from,
            until: cfg.until.unwrap_or(SimTime(u64::MAX)),
            ends,
            starts: self.tcps.iter().map(|t| t.start).collect(),
            files: Vec::new(),
            port_files: vec![Vec::new(); self.ports.len()],
            host_file: vec![None; self.hosts.len()],
            progress: HashMap::new(),
            cells: None,
            error: None,
        };
        if let Some(dir) = &cfg.pcap_dir {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            let names: Vec<([u8; 4], String)> = host_names
                .iter()
                .enumerate()
                .map(|(k, n)| (host_address(k), n.clone()))
                .collect();
            // The hosts: those named, or the ends of the traced connections.
            let mut hosts: Vec<usize> = Vec::new();
            match &cfg.hosts {
                Some(given) => {
                    for name in given {
                        let h = host_names
                            .iter()
                            .position(|n| n == name)
                            .ok_or_else(|| unknown("host", name, &host_names))?;
                        if !hosts.contains(&h) {
                            hosts.push(h);
                        }
                    }
                }
                None => {
                    for (t, tcp) in self.tcps.iter().enumerate() {
                        if !traced[t] {
                            continue;
                        }
                        let v = &self.vcs[tcp.data_vc.idx()];
                        for h in [v.src_host.idx(), v.dest_host.idx()] {
                            if !hosts.contains(&h) {
                                hosts.push(h);
                            }
                        }
                    }
                    hosts.sort_unstable();
                }
            }
            for h in hosts {
                let host = &self.hosts[h];
                let sees = self
                    .tcps
                    .iter()
                    .map(|tcp| {
                        let v = &self.vcs[tcp.data_vc.idx()];
                        let end = v.src_host.idx() == h || v.dest_host.idx() == h;
                        (end, end, false)
                    })
                    .collect();
                let pcap = PcapFile::create(
                    dir.join(format!("{}.pcapng", host.name)),
                    &host.name,
                    &format!(
                        "atmsim scenario {scenario}: host {} ({}), the IP packets it sends \
                         and receives intact",
                        host.name,
                        dotted(host_address(h))
                    ),
                    &names,
                )?;
                let f = tracer.files.len() as u32;
                tracer.files.push(TraceFile {
                    pcap,
                    port: None,
                    sees,
                });
                tracer.port_files[host.adapter.idx()].push(f);
                tracer.host_file[h] = Some(f);
            }
            for name in &cfg.links {
                let p = port_names
                    .iter()
                    .position(|n| n == name)
                    .ok_or_else(|| unknown("link direction (port)", name, &port_names))?;
                let on = |vc: VcId| self.vcs[vc.idx()].path.contains(&PortId(p as u32));
                let sees = self
                    .tcps
                    .iter()
                    .map(|tcp| (on(tcp.data_vc), on(tcp.ack_vc), false))
                    .collect();
                let pcap = PcapFile::create(
                    dir.join(format!("{}.pcapng", name.replace("->", "_"))),
                    name,
                    &format!(
                        "atmsim scenario {scenario}: link {name}, the IP packets whose last \
                         cell leaves this port"
                    ),
                    &names,
                )?;
                let f = tracer.files.len() as u32;
                tracer.files.push(TraceFile {
                    pcap,
                    port: Some(name.clone()),
                    sees,
                });
                tracer.port_files[p].push(f);
            }
        }
        if let Some(c) = &cfg.cells {
            tracer.cells = Some(self.cell_recorder(c, &conn_names, &port_names)?);
        }
        self.trace = Some(Box::new(tracer));
        Ok(())
    }

    fn cell_recorder(
        &self,
        c: &CellTraceConfig,
        conn_names: &[String],
        port_names: &[String],
    ) -> Result<CellRecorder, String> {
        let mut want_conn = vec![c.connections.is_none(); conn_names.len()];
        for name in c.connections.iter().flatten() {
            let k = conn_names
                .iter()
                .position(|n| n == name)
                .ok_or_else(|| unknown("connection", name, conn_names))?;
            want_conn[k] = true;
        }
        let mut ports = vec![c.ports.is_none(); port_names.len()];
        for name in c.ports.iter().flatten() {
            let p = port_names
                .iter()
                .position(|n| n == name)
                .ok_or_else(|| unknown("link direction (port)", name, port_names))?;
            ports[p] = true;
        }
        let conn_of = |conn: Conn| self.conns.iter().position(|&c| c == conn);
        let mut vcs = vec![None; self.vcs.len()];
        for (i, vc) in self.vcs.iter().enumerate() {
            let (k, reverse) = match vc.owner {
                Owner::TcpData(t) => (conn_of(Conn::Tcp(t)), 0),
                Owner::TcpAck(t) => (conn_of(Conn::Tcp(t)), 1),
                Owner::Source(s) => (conn_of(Conn::Source(s)), 0),
                Owner::Feedback(v) => match self.vcs[v.idx()].owner {
                    Owner::Source(s) => (conn_of(Conn::Source(s)), 1),
                    _ => (None, 1),
                },
            };
            if let Some(k) = k.filter(|&k| want_conn[k]) {
                vcs[i] = Some((k as u32, reverse));
            }
        }
        Ok(CellRecorder {
            cols: CellColumns::default(),
            max_rows: c.max_rows,
            recorded: 0,
            ports,
            vcs,
            truncated_at: None,
            not_recorded: 0,
        })
    }

    /// Ends the trace: flushes the files and hands over what was recorded (`None` if no
    /// trace was attached).
    pub fn finish_trace(&mut self) -> Result<Option<TraceOutput>, String> {
        let Some(mut t) = self.trace.take() else {
            return Ok(None);
        };
        if let Some(e) = t.error.take() {
            return Err(e);
        }
        let mut out = TraceOutput {
            port_names: self.ports.iter().map(|p| p.name.clone()).collect(),
            connection_names: self
                .conns
                .iter()
                .map(|&c| match c {
                    Conn::Tcp(t) => self.tcps[t.idx()].name.clone(),
                    Conn::Source(s) => self.sources[s.idx()].name.clone(),
                })
                .collect(),
            ..TraceOutput::default()
        };
        for f in &mut t.files {
            f.pcap.finish()?;
            out.pcap_files.push((f.pcap.path.clone(), f.pcap.packets));
        }
        if let Some(c) = t.cells {
            out.cells_truncated_at = c.truncated_at;
            out.cells_not_recorded = c.not_recorded;
            out.cells = Some(c.cols);
        }
        Ok(Some(out))
    }

    /// Hands over the cell rows recorded since the last call (`None` without a cell trace),
    /// so that a caller running the network in steps ([`Network::run_checked`]) can write
    /// them out as it goes; the row limit counts every row recorded, handed over or not.
    pub fn drain_cell_trace(&mut self) -> Option<CellColumns> {
        let c = self.trace.as_deref_mut()?.cells.as_mut()?;
        Some(std::mem::take(&mut c.cols))
    }

    /// The packet of frame `frame` of VC `vc`, if it belongs to a traced connection.
    fn traced_packet(&self, vc: VcId, payload: Payload) -> Option<(TcpId, Packet)> {
        let t = self.trace.as_deref()?;
        let conn = match self.vcs[vc.idx()].owner {
            Owner::TcpData(c) | Owner::TcpAck(c) => c,
            _ => return None,
        };
        let ends = t.ends[conn.idx()].as_ref()?;
        let seg = match payload {
            Payload::Data { seq, len, flags } => Segment::Data {
                seq,
                len,
                ecn: flags,
            },
            Payload::Ack { ack, sack, ece } => Segment::Ack {
                ack,
                sack: self.tcps[conn.idx()].sack_log.blocks(sack),
                ece,
            },
        };
        Some((conn, ends.packet(seg)))
    }

    /// A cell starts leaving port `p` at `now`; its transmission ends at `done`.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_departure(&mut self, now: SimTime, done: SimTime, p: PortId, cell: Cell) {
        let queue = self.ports[p.idx()].occupancy();
        let Some(t) = self.trace.as_deref_mut() else {
            return;
        };
        if t.in_window(now) {
            if let Some(c) = &mut t.cells {
                c.record(now, p, &cell, 0, u8::MAX, cell.flags, queue);
            }
        }
        if t.port_files[p.idx()].is_empty() || !cell.is_data() {
            return;
        }
        let vc = &self.vcs[cell.vc.idx()];
        if !vc.aal5 {
            return;
        }
        let e = t
            .progress
            .entry((p.0, cell.vc.0))
            .or_insert((cell.frame, 0, false));
        if e.0 != cell.frame {
            *e = (cell.frame, 0, false);
        }
        e.1 += 1;
        e.2 |= cell.is_efci();
        if !cell.is_eom() {
            return;
        }
        let seen = std::mem::take(&mut e.1);
        let efci = std::mem::take(&mut e.2);
        if !t.in_window(done) {
            return;
        }
        let Some(desc) = vc.frames.iter().rev().find(|f| f.id == cell.frame).copied() else {
            return;
        };
        let mut payload = desc.payload;
        if efci {
            // A cell of the frame left this port with EFCI (marked here or upstream): the
            // packet as the receiving edge will see it, Congestion Experienced if ECN-capable.
            if let Payload::Data { flags, .. } = &mut payload {
                if *flags & crate::tcp::ecn::ECT != 0 {
                    *flags |= crate::tcp::ecn::CE;
                }
            }
        }
        let Some((conn, packet)) = self.traced_packet(cell.vc, payload) else {
            return;
        };
        let t = self.trace.as_deref_mut().expect("attached");
        for i in 0..t.port_files[p.idx()].len() {
            let f = t.port_files[p.idx()][i];
            let comment = (seen < desc.cells).then(|| {
                let at = t.files[f as usize]
                    .port
                    .clone()
                    .unwrap_or_else(|| self.ports[p.idx()].name.clone());
                format!(
                    "AAL5 frame lost {} of {} cells before leaving {at}; the receiver will \
                     discard it",
                    desc.cells - seen,
                    desc.cells
                )
            });
            t.write(f, conn, done, &packet, comment.as_deref());
        }
    }

    /// Host `h` received an intact frame of VC `vc` (its EOM arrived at `now`).
    #[cold]
    #[inline(never)]
    pub(super) fn trace_intact(&mut self, now: SimTime, h: HostId, vc: VcId, payload: Payload) {
        let Some(t) = self.trace.as_deref() else {
            return;
        };
        let Some(f) = t.host_file[h.idx()] else {
            return;
        };
        if !t.in_window(now) {
            return;
        }
        let Some((conn, packet)) = self.traced_packet(vc, payload) else {
            return;
        };
        let t = self.trace.as_deref_mut().expect("attached");
        t.write(f, conn, now, &packet, None);
    }

    /// Port `p` dropped `cell` (if not `accepted`) and purged `dropped` - 1 queued cells of
    /// its frame (or all `dropped`, if the cell was accepted).
    #[cold]
    #[inline(never)]
    pub(super) fn trace_drop(
        &mut self,
        now: SimTime,
        p: PortId,
        cell: Cell,
        accepted: bool,
        reason: DropReason,
        dropped: u32,
    ) {
        let queue = self.ports[p.idx()].occupancy();
        let Some(t) = self.trace.as_deref_mut() else {
            return;
        };
        if !t.in_window(now) {
            return;
        }
        let Some(c) = &mut t.cells else {
            return;
        };
        let mut purged = dropped;
        if !accepted {
            c.record(now, p, &cell, 1, reason as u8, cell.flags, queue);
            purged -= 1;
        }
        // Queued cells of the same frame: not its EOM (the frame is unfinished), tagged as
        // the VC tags its cells.
        for _ in 0..purged {
            let flags = cell.flags & Cell::CLP;
            c.record(now, p, &cell, 1, DropReason::Purged as u8, flags, queue);
        }
    }

    /// Connection `c` starts: its synthetic handshake goes into the files that show it.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_start(&mut self, now: SimTime, c: TcpId) {
        let Some(t) = self.trace.as_deref_mut() else {
            return;
        };
        if t.ends[c.idx()].is_none() || !t.in_window(now) || t.error.is_some() {
            return;
        }
        let ends = t.ends[c.idx()].clone().expect("checked");
        for f in &mut t.files {
            let (data, ack, shaken) = &mut f.sees[c.idx()];
            if *shaken || !(*data || *ack) {
                continue;
            }
            *shaken = true;
            let mut r = Ok(());
            if *data {
                r = f
                    .pcap
                    .write(now, &ends.packet(Segment::Syn), Some(SYN_COMMENT.into()));
            }
            if *ack {
                r = r.and_then(|_| {
                    f.pcap
                        .write(now, &ends.packet(Segment::SynAck), Some(SYN_COMMENT.into()))
                });
            }
            if let Err(e) = r {
                t.error = Some(e);
                return;
            }
        }
    }
}

fn dotted(a: [u8; 4]) -> String {
    format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])
}
