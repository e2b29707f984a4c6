//! A connection's TCP settings (`[tcp]` with its own `tcp` table) checked and resolved.

use atmsim_engine::SimTime;
use atmsim_model::spec::TcpSpec;

use super::path;
use crate::error::{FieldPath, Problem};
use crate::schema::{OutOfOrder, TcpConfig, TcpOverride};
use crate::units::{DelayedAck, DropAtCwnd, InitialSsthresh, Timer, WindowScale};

/// The largest MSS: AAL5's 65,535-byte SDU less 40 bytes of TCP/IP header and 8 of LLC/SNAP.
const MAX_MSS: u64 = 65_535 - 40 - 8;

/// Checks the connection's merged TCP settings; a problem points at the connection's own
/// `tcp` key when it sets it, else at `[tcp]`.
pub(super) fn check_tcp(
    base: &TcpConfig,
    o: &TcpOverride,
    conn: &FieldPath,
) -> Result<TcpSpec, Problem> {
    let t = base.with(o);
    let f = Fields { o, conn };
    let (mss, window) = check_window(&t, &f)?;
    check_rto(&t, &f)?;
    let (drop_at_cwnd, initial_ssthresh) = check_window_options(&t, &f, mss, window)?;
    check_counts(&t, &f)?;
    let (timer_granularity, delayed_ack) = check_timers(&t, &f)?;
    Ok(TcpSpec {
        variant: t.variant,
        mss_bytes: mss as u32,
        max_window_bytes: window as u32,
        timer_granularity,
        min_rto: t.min_rto.0,
        max_rto: t.max_rto.0,
        initial_rto: t.initial_rto.0,
        delayed_ack,
        ack_every: t.ack_every,
        ack_clock: t.ack_clock,
        dupack_threshold: t.dupack_threshold,
        recover_guard: t.recover_guard,
        initial_cwnd_segments: t.initial_cwnd,
        cwnd_growth: t.cwnd_growth,
        initial_ssthresh_bytes: initial_ssthresh,
        keep_out_of_order: t.out_of_order == OutOfOrder::Keep,
        sack_blocks: t.sack_blocks,
        drop_at_cwnd,
        drop_count: t.drop_count,
        delay_duplicate_acks: t.delay_duplicate_acks,
        fast_recovery_inflation: t.fast_recovery_inflation,
        rto_restart: t.rto_restart,
        congestion_control: t.congestion_control,
        ecn: t.ecn,
        hystart: t.hystart,
    })
}

/// Where a TCP setting's problem points: the connection's own `tcp` key when it sets it,
/// else `[tcp]`'s.
struct Fields<'a> {
    o: &'a TcpOverride,
    conn: &'a FieldPath,
}

impl Fields<'_> {
    fn sets(&self, field: &str) -> bool {
        self.o.sets(field)
    }

    fn fail<T>(&self, field: &str, msg: String) -> Result<T, Problem> {
        let at = if self.o.sets(field) {
            self.conn.clone().key("tcp").key(field)
        } else {
            path("tcp").key(field)
        };
        Err(Problem::new(at, msg))
    }
}

/// The MSS and the receiver window [bytes], the window as advertised (rounded down to the
/// window scale's unit).
fn check_window(t: &TcpConfig, f: &Fields) -> Result<(u64, u64), Problem> {
    let mss = t.mss.bytes();
    let window = t.max_window.bytes();
    if mss == 0 {
        return f.fail("mss", "must be at least 1 B".into());
    }
    if mss > MAX_MSS {
        return f.fail(
            "mss",
            format!(
                "{}: an AAL5 frame carries at most 65,535 bytes, so a segment with its 40 bytes \
                 of TCP/IP header (and 8 of LLC/SNAP) holds at most {MAX_MSS} B; allowed 1 B to \
                 {MAX_MSS} B",
                t.mss
            ),
        );
    }
    if window > u64::from(u32::MAX) {
        return f.fail(
            "max_window",
            format!("{} is larger than 4 GiB", t.max_window),
        );
    }
    if window < mss {
        let field = if f.sets("mss") && !f.sets("max_window") {
            "mss"
        } else {
            "max_window"
        };
        return f.fail(
            field,
            format!(
                "max_window ({}) is smaller than mss ({})",
                t.max_window, t.mss
            ),
        );
    }
    let shift = check_window_scale(t, f, window)?;
    // The receiver advertises its window in units of 2^shift bytes (rounded down).
    let window = window >> shift << shift;
    if window < mss {
        return f.fail(
            "max_window",
            format!(
                "max_window ({}) rounded down to the window scale's unit ({} B) is below mss ({})",
                t.max_window,
                1u64 << shift,
                t.mss
            ),
        );
    }
    Ok((mss, window))
}

/// The window scale's shift (RFC 7323: the window field is 16 bits, in units of 2^shift
/// bytes), which must let the window be advertised.
fn check_window_scale(t: &TcpConfig, f: &Fields, window: u64) -> Result<u32, Problem> {
    let shift = match t.window_scale {
        WindowScale::Shift(s) => u32::from(s),
        WindowScale::Auto => (0..=14).find(|s| window <= 65_535u64 << s).unwrap_or(14),
    };
    let largest = 65_535u64 << shift;
    if window > largest {
        let (field, why) = if matches!(t.window_scale, WindowScale::Shift(_)) {
            (
                "window_scale",
                format!("a window scale of {shift} advertises at most {largest} B"),
            )
        } else {
            (
                "max_window",
                format!("RFC 7323 advertises at most 65,535 x 2^14 = {largest} B"),
            )
        };
        return f.fail(
            field,
            format!(
                "max_window ({}) cannot be advertised: {why}; allowed: a larger window_scale \
                 (at most 14) or a smaller max_window",
                t.max_window
            ),
        );
    }
    Ok(shift)
}

/// The retransmission timeout's bounds and initial value.
fn check_rto(t: &TcpConfig, f: &Fields) -> Result<(), Problem> {
    if t.max_rto.is_zero() {
        return f.fail("max_rto", "must be positive".into());
    }
    if t.min_rto > t.max_rto {
        return f.fail(
            "min_rto",
            format!("min_rto ({}) is above max_rto ({})", t.min_rto, t.max_rto),
        );
    }
    if t.initial_rto.is_zero() {
        return f.fail("initial_rto", "must be positive".into());
    }
    Ok(())
}

/// The settings bounded by the MSS and the window: `drop_at_cwnd` (off: `None`) and the
/// initial slow-start threshold [bytes].
fn check_window_options(
    t: &TcpConfig,
    f: &Fields,
    mss: u64,
    window: u64,
) -> Result<(Option<u32>, u32), Problem> {
    let drop_at_cwnd = match t.drop_at_cwnd {
        DropAtCwnd::Word(_) => None,
        DropAtCwnd::Value(b) if b.0 < mss || b.0 > window => {
            return f.fail(
                "drop_at_cwnd",
                format!(
                    "{b}: the window must be able to reach it: allowed from one MSS ({mss} B) to \
                     max_window ({window} B), or \"off\""
                ),
            )
        }
        DropAtCwnd::Value(b) => Some(b.0 as u32),
    };
    let initial_ssthresh = match t.initial_ssthresh {
        InitialSsthresh::Word(_) => window as u32,
        InitialSsthresh::Value(b) if b.0 < 2 * mss || b.0 > window => {
            return f.fail(
                "initial_ssthresh",
                format!(
                    "{b}: allowed from two segments ({} B, RFC 5681's floor) to max_window \
                     ({window} B), or \"max_window\"",
                    2 * mss
                ),
            )
        }
        InitialSsthresh::Value(b) => b.0 as u32,
    };
    Ok((drop_at_cwnd, initial_ssthresh))
}

/// The counts: segments lost per `drop_at_cwnd`, SACK blocks per ACK, the initial window.
fn check_counts(t: &TcpConfig, f: &Fields) -> Result<(), Problem> {
    if !(1..=10_000).contains(&t.drop_count) {
        return f.fail(
            "drop_count",
            format!("{}: allowed 1 to 10000 segments per loss", t.drop_count),
        );
    }
    if !(1..=4).contains(&t.sack_blocks) {
        return f.fail(
            "sack_blocks",
            format!(
                "{}: allowed 1 to 4 SACK blocks per ACK (4 fill TCP's 40 option bytes; 3 \
                 leave room for timestamps)",
                t.sack_blocks
            ),
        );
    }
    if t.initial_cwnd == 0 {
        return f.fail("initial_cwnd", "must be at least 1 segment".into());
    }
    Ok(())
}

/// The timer's granularity (`SimTime::ZERO`: exact) and the delayed ACK's longest wait
/// (`None`: off).
fn check_timers(t: &TcpConfig, f: &Fields) -> Result<(SimTime, Option<SimTime>), Problem> {
    let timer_granularity = match t.timer {
        Timer::Word(_) => SimTime::ZERO,
        Timer::Value(g) if g.is_zero() => {
            return f.fail(
                "timer",
                "a 0 s tick never fires; write \"exact\" for a fine timer".into(),
            )
        }
        Timer::Value(g) => g.0,
    };
    let delayed_ack = match t.delayed_ack {
        DelayedAck::Word(_) => None,
        DelayedAck::Value(w) if w.is_zero() => {
            return f.fail(
                "delayed_ack",
                "a 0 s wait is no delay; write \"off\"".into(),
            )
        }
        DelayedAck::Value(w) => Some(w.0),
    };
    Ok((timer_granularity, delayed_ack))
}
