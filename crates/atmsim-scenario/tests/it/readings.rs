//! Scenario tests of the 1990s-stack readings (`tcp.delay_duplicate_acks`,
//! `tcp.fast_recovery_inflation`, `tcp.rto_restart`, `host.ip_service`): each loaded from a
//! scenario's text, checked with a clear error for a bad value, and run on a small network
//! where a counter or the sender's state shows it acting.

use atmsim_engine::SimTime;
use atmsim_model::spec::{IpService, NetworkSpec, NodeKind, RtoRestart};
use atmsim_model::Network;

use super::{err, load, ok, SMALL};

/// One Reno connection h1 -> A -> r1 with 1,000-byte segments, 12.5 ms delayed ACKs, a
/// 200 ms minimum RTO (unless `extra` sets one), a window of `window` segments and an
/// artificial loss of one segment each time cwnd reaches `drop_at` segments (0: none).
fn one_connection(window: u32, drop_at: u32, extra: &str) -> NetworkSpec {
    network(
        window,
        drop_at,
        "delayed_ack = \"12.5 ms\"\n",
        extra,
        "155.52 Mb/s",
    )
}

/// As [`one_connection`], with the receiver's ACK rule `acks` and the rate of the link
/// A -> r1 given.
fn network(window: u32, drop_at: u32, acks: &str, extra: &str, rate: &str) -> NetworkSpec {
    let drop = if drop_at == 0 {
        "\"off\"".to_string()
    } else {
        format!("\"{drop_at}000 B\"")
    };
    let min_rto = if extra.contains("min_rto") {
        ""
    } else {
        "min_rto = \"200 ms\"\n"
    };
    let text = format!(
        r#"name = "one"

[run]
duration = "2 s"
warmup = "0 s"

[tcp]
variant = "reno"
mss = "1000 B"
max_window = "{window}000 B"
drop_at_cwnd = {drop}
{acks}{min_rto}{extra}

[[switch]]
name = "A"

[[link]]
between = ["h1", "A"]
rate = "155.52 Mb/s"
delay = "1 ms"

[[link]]
between = ["A", "r1"]
rate = "{rate}"
delay = "1 ms"

[[connection]]
name = "s1"
from = "h1"
to = "r1"
via = ["A"]
"#
    );
    load(&text, "one.toml", &[], None)
        .unwrap_or_else(|e| panic!("{e}"))
        .1
}

fn counters(spec: &NetworkSpec) -> (u64, u64, u64) {
    let mut net = Network::new(spec, "readings").unwrap();
    net.run();
    let s = net.sender(0).stats();
    (s.fast_retransmits, s.timeouts, s.segments_sent)
}

#[test]
fn the_readings_default_to_todays_behaviour_and_refuse_bad_values() {
    let (_, spec) = ok(SMALL);
    let t = spec.connections[0].tcp_spec().unwrap();
    assert!(!t.delay_duplicate_acks);
    assert!(t.fast_recovery_inflation);
    assert_eq!(t.rto_restart, RtoRestart::NewAck);
    for n in &spec.nodes {
        if let NodeKind::Host(h) = &n.kind {
            assert_eq!(h.ip_service, IpService::Constant);
        }
    }
    let text = SMALL.replace(
        "[tcp]\n",
        "[tcp]\ndelay_duplicate_acks = true\nfast_recovery_inflation = false\n\
         rto_restart = \"oldest_segment\"\n",
    ) + "\n[host]\nip_service = \"exponential\"\n";
    let (_, spec) = ok(&text);
    let t = spec.connections[0].tcp_spec().unwrap();
    assert!(t.delay_duplicate_acks);
    assert!(!t.fast_recovery_inflation);
    assert_eq!(t.rto_restart, RtoRestart::OldestSegment);
    let hosts: Vec<_> = spec
        .nodes
        .iter()
        .filter_map(|n| match &n.kind {
            NodeKind::Host(h) => Some(h.ip_service),
            _ => None,
        })
        .collect();
    assert!(!hosts.is_empty() && hosts.iter().all(|&s| s == IpService::Exponential));

    let e = err(&SMALL.replace("[tcp]\n", "[tcp]\nrto_restart = \"bsd\"\n"));
    assert_eq!(e.field, "tcp.rto_restart");
    assert!(e.to_string().contains("oldest_segment"), "{e}");
    let e = err(&format!("{SMALL}\n[host]\nip_service = \"poisson\"\n"));
    assert_eq!(e.field, "host.ip_service");
    assert!(e.to_string().contains("exponential"), "{e}");
    let e = err(&SMALL.replace("[tcp]\n", "[tcp]\ndelay_duplicate_acks = \"yes\"\n"));
    assert_eq!(e.field, "tcp.delay_duplicate_acks");
    let e = err(&SMALL.replace("[tcp]\n", "[tcp]\nfast_recovery_inflation = 1\n"));
    assert_eq!(e.field, "tcp.fast_recovery_inflation");
}

/// A window of five segments: a lost one is followed by at most four, which draw four
/// duplicate ACKs (a fast retransmit) from an RFC 1122 receiver and two (a timeout) from one
/// that delays duplicates too.
#[test]
fn delayed_duplicate_acks_turn_fast_retransmits_into_timeouts() {
    let (fr, to, _) = counters(&one_connection(5, 5, ""));
    assert!(fr >= 5, "fast retransmits {fr}");
    let (fr_d, to_d, _) = counters(&one_connection(5, 5, "delay_duplicate_acks = true"));
    assert_eq!(fr_d, 0, "two duplicates per loss: never three");
    assert!(to_d >= 3 && to_d > to, "timeouts {to_d} against {to}");
}

/// Stepping through a run: with inflation the sender sends new segments while it recovers,
/// without it nothing but the fast retransmission until the recovery ends.
#[test]
fn without_inflation_the_sender_stalls_in_fast_recovery() {
    for inflate in [true, false] {
        let extra = format!("fast_recovery_inflation = {inflate}");
        let spec = one_connection(64, 24, &extra);
        let mut net = Network::new(&spec, "inflation").unwrap();
        let (mut recoveries, mut sent_inside) = (0, 0);
        let mut t = SimTime::ZERO;
        let step = SimTime::from_us(20);
        while t < SimTime::from_ms(500) {
            let before = net.sender(0).stats().segments_sent;
            let (was_in, fr) = (
                net.sender(0).in_recovery(),
                net.sender(0).stats().fast_retransmits,
            );
            t += step;
            net.run_until(t);
            let s = net.sender(0);
            if was_in && s.in_recovery() && s.stats().fast_retransmits == fr {
                sent_inside += s.stats().segments_sent - before;
            }
            recoveries += (s.stats().fast_retransmits > fr) as u32;
        }
        assert!(
            recoveries >= 2,
            "inflate {inflate}: {recoveries} recoveries"
        );
        if inflate {
            assert!(
                sent_inside > 0,
                "inflation lets segments out during recovery"
            );
        } else {
            assert_eq!(sent_inside, 0, "no inflation: nothing sent during recovery");
        }
    }
}

/// Slow start into a 10 Mb/s link: each round trip's queue is longer than the last, so the
/// oldest outstanding segment waits longer than the RTO learnt from earlier samples (1 ms
/// minimum). A timer restarted by every ACK (one per segment, about 0.9 ms apart) never expires; one
/// run from the oldest segment does, though nothing is lost.
#[test]
fn a_timer_run_from_the_oldest_segment_expires_where_a_restarted_one_does_not() {
    let spec_for = |extra: &str| {
        network(
            64,
            0,
            "",
            &format!("min_rto = \"1 ms\"\n{extra}"),
            "10 Mb/s",
        )
    };
    let (_, to_new, _) = counters(&spec_for(""));
    let (_, to_old, _) = counters(&spec_for("rto_restart = \"oldest_segment\""));
    assert_eq!(to_new, 0);
    assert!(to_old > 0, "oldest segment: {to_old} timeouts");
}

/// Exponential IP service: the same mean rate, so about the same packets, but its queue
/// varies: the runs differ from the constant one and from each other by seed.
#[test]
fn exponential_ip_service_draws_from_the_host_stream() {
    let spec_for = |service: &str, seed: u64| {
        let text = format!(
            "{}\n[host]\nip_rate = \"10000 packets/s\"\nip_service = \"{service}\"\n",
            SMALL
        );
        load(&text, "small.toml", &[], Some(seed)).unwrap().1
    };
    let run = |spec: &NetworkSpec| {
        let mut net = Network::new(spec, "ip").unwrap();
        net.run();
        (net.fingerprint(), net.sender(0).stats().segments_sent)
    };
    let (c1, n_c1) = run(&spec_for("constant", 1));
    let (c2, _) = run(&spec_for("constant", 2));
    assert_eq!(
        c1, c2,
        "constant service and no other randomness: seeds alike"
    );
    let (e1, n_e1) = run(&spec_for("exponential", 1));
    let (e2, _) = run(&spec_for("exponential", 2));
    assert_ne!(e1, c1);
    assert_ne!(e1, e2, "drawn from the seed");
    // 10,000 packets/s caps both near the same rate (within 10%).
    let r = n_e1 as f64 / n_c1 as f64;
    assert!((0.9..1.1).contains(&r), "{n_e1} against {n_c1}");
}
