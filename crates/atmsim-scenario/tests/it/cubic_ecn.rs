//! Scenario tests of today's TCP on the ATM networks: CUBIC (`tcp.congestion_control`), ECN
//! (`tcp.ecn`, a switch's `efci_threshold`) and HyStart++ (`tcp.hystart`): each loaded from a
//! scenario's text, checked with
//! a clear error for a bad value, and run on a small network where the sender's state or its
//! counters show it acting.

use atmsim_engine::SimTime;
use atmsim_model::spec::{CongestionControl, NetworkSpec, NodeKind};
use atmsim_model::Network;

use super::{err, load, ok, SMALL};

/// One SACK connection h1 -> A -> r1 of 1,000-byte segments (22 cells), every link 25 ms
/// long (a 100 ms round trip), the bottleneck A -> r1 at `rate`, the port's queue at most
/// `buffer` cells under EPD (threshold 80%); `tcp` and `switch` add keys to `[tcp]` and the
/// switch, `extra` more sections.
fn network(rate: &str, buffer: u32, tcp: &str, switch: &str, extra: &str) -> NetworkSpec {
    let window = if tcp.contains("max_window") {
        ""
    } else {
        "max_window = \"1 MiB\"\n"
    };
    let text = format!(
        r#"name = "today"

[run]
duration = "20 s"
warmup = "0 s"

[tcp]
variant = "sack"
mss = "1000 B"
min_rto = "200 ms"
{window}{tcp}

[[switch]]
name = "A"
port_buffer = "{buffer} cells"
policy = {{ kind = "epd", threshold = 0.8 }}
{switch}

[[link]]
between = ["h1", "A"]
rate = "155.52 Mb/s"
delay = "25 ms"

[[link]]
between = ["A", "r1"]
rate = "{rate}"
delay = "25 ms"

[[connection]]
name = "s1"
from = "h1"
to = "r1"
via = ["A"]
{extra}"#
    );
    load(&text, "today.toml", &[], None)
        .unwrap_or_else(|e| panic!("{e}"))
        .1
}

#[test]
fn the_options_default_to_todays_behaviour_and_refuse_bad_values() {
    let (_, spec) = ok(SMALL);
    let t = spec.connections[0].tcp_spec().unwrap();
    assert_eq!(t.congestion_control, CongestionControl::Reno);
    assert!(!t.ecn);
    assert!(!t.hystart);
    for n in &spec.nodes {
        if let NodeKind::Switch(s) = &n.kind {
            assert_eq!(s.port.efci_threshold, None);
        }
    }
    let text = SMALL
        .replace(
            "[tcp]\n",
            "[tcp]\ncongestion_control = \"cubic\"\necn = true\nhystart = true\n",
        )
        .replace(
            "name = \"A\"\n",
            "name = \"A\"\nefci_threshold = \"100 cells\"\n",
        );
    let (_, spec) = ok(&text);
    let t = spec.connections[0].tcp_spec().unwrap();
    assert_eq!(t.congestion_control, CongestionControl::Cubic);
    assert!(t.ecn);
    assert!(t.hystart);
    let NodeKind::Switch(a) = &spec.nodes.iter().find(|n| n.name == "A").unwrap().kind else {
        panic!("A is a switch")
    };
    assert_eq!(a.port.efci_threshold, Some(100));

    let e = err(&SMALL.replace("[tcp]\n", "[tcp]\ncongestion_control = \"bic\"\n"));
    assert_eq!(e.field, "tcp.congestion_control");
    assert!(
        e.to_string().contains("reno") && e.to_string().contains("cubic"),
        "{e}"
    );
    let e = err(&SMALL.replace("[tcp]\n", "[tcp]\necn = \"yes\"\n"));
    assert_eq!(e.field, "tcp.ecn");
    let e = err(&SMALL.replace("[tcp]\n", "[tcp]\nhystart = 1\n"));
    assert_eq!(e.field, "tcp.hystart");
    assert!(e.to_string().contains("bool"), "{e}");
    let e = err(&SMALL.replace(
        "name = \"A\"\n",
        "name = \"A\"\nefci_threshold = \"0 cells\"\n",
    ));
    assert_eq!(e.field, "switch[0].efci_threshold");
    assert!(e.to_string().contains("at least 1 cell"), "{e}");
    let e = err(&SMALL.replace("name = \"A\"\n", "name = \"A\"\nefci_threshold = 100\n"));
    assert_eq!(e.field, "switch[0].efci_threshold");
    assert!(e.to_string().contains("off"), "{e}");
}

/// A lone CUBIC flow, first beside a 16 Mb/s cell stream on a 32 Mb/s bottleneck that stops
/// at 12 s: the epoch that spans 12 s climbs concave to the W_max of the shared link (16 Mb/s
/// x 100 ms = 171 segments, and 72 queued: about 243), stays near it around K (cbrt(243 x
/// 0.3 / 0.4) = 5.7 s), then, with the link to itself, grows convex. The window is large
/// enough for the cubic region (the Reno-friendly W_est, 0.7 x 243 + 0.53 x 57 = 200
/// segments at K, stays below W_cubic).
#[test]
fn a_lone_cubic_flow_draws_the_cubic_window_curve() {
    let spec = network(
        "32 Mb/s",
        2000,
        "congestion_control = \"cubic\"\ninitial_ssthresh = \"150000 B\"",
        "",
        r#"
[[connection]]
name = "bg"
from = "bg"
to = "r1"
via = ["A"]
source = { kind = "on_off", period = "40 s", duty_cycle = 0.3, rate = "16 Mb/s" }

[[link]]
between = ["bg", "A"]
rate = "155.52 Mb/s"
delay = "1 ms"
"#,
    );
    let mut net = Network::new(&spec, "today").unwrap();
    // The last epoch to begin before the background stops.
    let mut t = SimTime::ZERO;
    let mut epoch = None;
    let mut samples = Vec::new();
    while t < spec.run.duration {
        t += SimTime::from_ms(10);
        net.run_until(t);
        let s = net.sender(0);
        let c = s.cubic().expect("a CUBIC sender");
        let losses = s.stats().fast_retransmits + s.stats().timeouts;
        if let Some(start) = c.epoch_start() {
            if start < SimTime::from_secs(12) {
                epoch = Some((start, c.k(), c.w_max(), losses));
            }
        }
        samples.push((t, s.cwnd() as f64 / 1000.0, losses));
    }
    let (start, k, w_max, losses) = epoch.expect("an epoch began before 12 s");
    assert!(losses >= 1, "{losses} loss responses before 12 s");
    assert!((200.0..280.0).contains(&w_max), "W_max {w_max}");
    // K = cbrt((W_max - cwnd at the epoch's start) / C): at most cbrt(W_max x 0.3 / 0.4),
    // less where fast convergence lowered W_max below the window at the loss.
    assert!(k > 2.0 && k <= (w_max * 0.3 / 0.4).cbrt() + 1e-9, "K {k}");
    let at = |secs: f64| {
        let when = start + SimTime::from_secs_f64(secs);
        let i = samples.iter().position(|s| s.0 >= when).unwrap();
        assert_eq!(samples[i].2, losses, "no loss in the epoch before {secs} s");
        samples[i].1
    };
    let k = k.max(0.5);
    assert!(start + SimTime::from_secs_f64(k + 3.0) < spec.run.duration);
    // At K, within 5% of W_max.
    assert!(
        (at(k) - w_max).abs() < 0.05 * w_max,
        "{} at K vs {w_max}",
        at(k)
    );
    // Concave, a plateau, convex: growth per second early in the epoch, around K and past it.
    let early = at(1.0) - at(0.2);
    let near = at(k + 0.4) - at(k - 0.4);
    let late = at(k + 3.0) - at(k + 2.2);
    assert!(
        early > 2.0 * near && late > 2.0 * near,
        "{early} {near} {late}"
    );
    assert!(
        at(k + 3.0) > w_max + 5.0,
        "past W_max once the link is free"
    );
}

/// ECN on a UBR network: the port marks EFCI from 100 cells on, far below its EPD threshold
/// (800 of 1,000 cells). The sender reduces for the echoes, once for the many echoes of a
/// window and never twice within a round trip, and loses nothing; with ECN off the same
/// marks are ignored and the buffer overflows.
#[test]
fn ecn_reduces_once_per_round_trip_and_keeps_the_queue_short() {
    let run = |ecn: bool| {
        let spec = network(
            "10 Mb/s",
            1000,
            &format!("ecn = {ecn}\ninitial_ssthresh = \"100000 B\""),
            "efci_threshold = \"100 cells\"",
            "",
        );
        let mut net = Network::new(&spec, "ecn").unwrap();
        let mut t = SimTime::ZERO;
        let mut reductions = Vec::new();
        let mut last = 0;
        while t < spec.run.duration {
            t += SimTime::from_ms(1);
            net.run_until(t);
            let n = net.sender(0).stats().ecn_reductions;
            if n > last {
                assert_eq!(n, last + 1, "one reduction per millisecond at most");
                reductions.push(t.as_secs_f64());
                last = n;
            }
        }
        (net.report().summary, reductions)
    };
    let (on, times) = run(true);
    let c = &on.connections[0];
    assert!(times.len() >= 2, "{} reductions", times.len());
    // Never twice in a round trip (100 ms of propagation).
    for w in times.windows(2) {
        assert!(w[1] - w[0] >= 0.1, "reductions at {} and {}", w[0], w[1]);
    }
    assert_eq!(c.ecn_window_reductions, Some(times.len() as u64));
    assert!(c.ecn_ce_frames.unwrap() >= times.len() as u64);
    // Each reduction answered a window's worth of echoes.
    assert!(c.ecn_ece_acks.unwrap() > 5 * times.len() as u64, "{c:?}");
    assert_eq!((c.fast_retransmits, c.timeouts, c.cells_dropped), (0, 0, 0));
    let port = on.ports.iter().find(|p| p.name == "A->r1").unwrap();
    assert!(port.efci_marked.unwrap() > 0);
    assert!(port.max_queue_cells < 800, "{}", port.max_queue_cells);

    let (off, times) = run(false);
    let c = &off.connections[0];
    assert!(times.is_empty());
    assert_eq!(c.ecn_ce_frames, None, "no ECN counters without ECN");
    assert!(c.fast_retransmits + c.timeouts > 0 && c.cells_dropped > 0);
}

/// A network that never congests (a 40-segment window on a path of 2,000 segments, no link
/// slower than the one before it, so no queue at the switch): with ECN on nothing is marked
/// and nothing reduces.
#[test]
fn a_loss_free_network_with_ecn_never_reduces() {
    let spec = network(
        "155.52 Mb/s",
        3000,
        "ecn = true\nmax_window = \"40000 B\"\n",
        "efci_threshold = \"100 cells\"",
        "",
    );
    let mut net = Network::new(&spec, "calm").unwrap();
    net.run();
    let r = net.report().summary;
    let c = &r.connections[0];
    assert_eq!(
        (c.ecn_ce_frames, c.ecn_ece_acks, c.ecn_window_reductions),
        (Some(0), Some(0), Some(0))
    );
    assert_eq!((c.fast_retransmits, c.timeouts, c.cells_dropped), (0, 0, 0));
    assert_eq!(
        net.sender(0).cwnd(),
        40_000,
        "the window grew to the receiver's"
    );
    let port = r.ports.iter().find(|p| p.name == "A->r1").unwrap();
    assert_eq!(port.efci_marked, Some(0));
}

/// At their defaults the options are left out of the canonical text (a scenario written
/// before them keeps its text, and its cached runs); set, they are written and read back.
#[test]
fn the_canonical_text_holds_the_options_only_when_set() {
    let (s, _) = ok(SMALL);
    let text = atmsim_scenario::canonical_toml(&s);
    for key in ["congestion_control", "ecn", "efci_threshold", "hystart"] {
        assert!(!text.contains(key), "{key} in\n{text}");
    }
    let set = SMALL
        .replace(
            "[tcp]\n",
            "[tcp]\ncongestion_control = \"cubic\"\necn = true\nhystart = true\n",
        )
        .replace(
            "name = \"A\"\n",
            "name = \"A\"\nefci_threshold = \"100 cells\"\n",
        );
    let (s, spec) = ok(&set);
    let text = atmsim_scenario::canonical_toml(&s);
    assert!(text.contains("congestion_control = \"cubic\""), "{text}");
    assert!(text.contains("ecn = true"), "{text}");
    assert!(text.contains("hystart = true"), "{text}");
    assert!(text.contains("efci_threshold = \"100 cells\""), "{text}");
    let (again, spec_again) = ok(&text);
    assert_eq!(again, s);
    assert_eq!(spec_again, spec);
}

/// The first ramp of a lone flow with or without HyStart++ (`tcp.hystart`), watched every
/// millisecond for 8 s: (when CSS began and cwnd then [segments], the first loss response,
/// when CSS ended in avoidance and cwnd then [segments], cells the bottleneck dropped).
type Ramp = (Option<(f64, f64)>, Option<f64>, Option<(f64, f64)>, u64);

fn first_ramp(hystart: bool) -> Ramp {
    // 10 Mb/s bottleneck, 100 ms round trip: a BDP of 107 segments; 24,000 cells of buffer
    // (1,090 segments; EPD from 872).
    let spec = network(
        "10 Mb/s",
        24_000,
        &format!("hystart = {hystart}\nmax_window = \"4 MiB\""),
        "",
        "",
    );
    let mut net = Network::new(&spec, "ramp").unwrap();
    let mut t = SimTime::ZERO;
    let (mut css, mut loss) = (None, None);
    while t < SimTime::from_secs(8) {
        t += SimTime::from_ms(1);
        net.run_until(t);
        let s = net.sender(0);
        if css.is_none() && s.stats().hystart_css_entries > 0 {
            css = Some((t.as_secs_f64(), s.cwnd() as f64 / 1000.0));
        }
        if loss.is_none() && s.stats().fast_retransmits + s.stats().timeouts > 0 {
            loss = Some(t.as_secs_f64());
        }
    }
    let s = net.sender(0).stats();
    let avoidance = s
        .hystart_avoidance
        .map(|(w, c)| (w.as_secs_f64(), c as f64 / 1000.0));
    let port = net.report().summary.ports.into_iter();
    let dropped = port
        .filter(|p| p.name == "A->r1")
        .map(|p| p.cells_dropped)
        .sum();
    (css, loss, avoidance, dropped)
}

/// HyStart++ on a lone flow over a deep buffer: slow start ends on the rising RTT (the
/// standing queue that ack-clocked bursts leave once cwnd passes the BDP, 1-2 rounds later
/// without pacing), CSS's five rounds take it to avoidance, and nothing is lost in the 8 s;
/// without it slow start runs on until the buffer overflows.
#[test]
fn hystart_leaves_the_first_slow_start_before_any_loss() {
    let (css, loss, avoidance, dropped) = first_ramp(true);
    let (when, cwnd) = css.expect("slow start ended into CSS");
    assert!((107.0..400.0).contains(&cwnd), "CSS from {cwnd} segments");
    let (done, at) = avoidance.expect("CSS ended in avoidance");
    assert!(done > when && at > cwnd, "{done} s, {at} segments");
    assert!(
        at < 107.0 + 1090.0 * 0.8,
        "within BDP + EPD threshold: {at}"
    );
    assert_eq!((loss, dropped), (None, 0), "no loss in the first ramp");

    let (css, loss, avoidance, dropped) = first_ramp(false);
    assert_eq!((css, avoidance), (None, None));
    let lost = loss.expect("slow start overshoots");
    assert!(lost < 4.0 && dropped > 0, "{lost} s, {dropped} cells");
}
