//! A bounded fuzz of the scenario layer: arbitrary TOML text, arbitrary mutations of a valid
//! scenario's text and arbitrary override lists never panic and never hang; each either
//! builds a network or returns a `ScenarioError` that names a file and says what is wrong.
//! Runs in the default test run (a few hundred cases per property, well under a second).

use atmsim_scenario::load;
use proptest::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

const VALID: &str = include_str!("../../../../python/atmsim/scenarios/fang1994-cell-drop.toml");

/// Loads `text` with `overrides`; fails the property on a panic or on an error that names
/// no field and no file position.
fn check(text: &str, overrides: &[(String, String)]) -> Result<(), TestCaseError> {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        load(text, "fuzz.toml", overrides, None)
    }));
    match outcome {
        Err(_) => Err(TestCaseError::fail(format!(
            "panic on {text:?} with {overrides:?}"
        ))),
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => {
            let shown = e.to_string();
            prop_assert!(
                shown.starts_with("fuzz.toml") || shown.starts_with("--set"),
                "error without a location: {shown}"
            );
            prop_assert!(!e.message.trim().is_empty(), "empty message: {shown}");
            Ok(())
        }
    }
}

/// Keys a user is likely to set (every section), and some that do not exist.
fn keys() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("tcp.mss".to_string()),
        Just("tcp.max_window".to_string()),
        Just("tcp.variant".to_string()),
        Just("tcp.window_scale".to_string()),
        Just("tcp.drop_at_cwnd".to_string()),
        Just("tcp.sack_blocks".to_string()),
        Just("run.duration".to_string()),
        Just("run.sample_every".to_string()),
        Just("run.seed".to_string()),
        Just("switch.*.policy".to_string()),
        Just("switch.A.port_buffer".to_string()),
        Just("switch.*.scheduler".to_string()),
        Just("link.*.credits".to_string()),
        Just("link.*.rate".to_string()),
        Just("link.0.framing".to_string()),
        Just("connection.s1.start".to_string()),
        Just("connection.s1.share.threshold".to_string()),
        Just("connection.*.clp".to_string()),
        Just("host.aal_overhead".to_string()),
        Just("merge.vc1.share.threshold".to_string()),
        "[a-z_.*0-9]{1,24}",
    ]
}

/// Values of every shape: quantities with and without units, keywords, numbers, tables,
/// garbage.
fn values() -> impl Strategy<Value = String> {
    prop_oneof![
        (
            0u64..u64::MAX,
            prop_oneof![
                Just(""),
                Just(" B"),
                Just(" cells"),
                Just(" ms"),
                Just(" ps"),
                Just(" Mb/s"),
                Just(" KiB")
            ]
        )
            .prop_map(|(n, u)| format!("{n}{u}")),
        Just("{ kind = \"gfr\", z = 1.5 }".to_string()),
        Just("{ kind = \"epd\", threshold = 2 }".to_string()),
        Just("{ kind = \"fba\" }".to_string()),
        Just("\"sack\"".to_string()),
        Just("off".to_string()),
        Just("-1".to_string()),
        Just("1e400".to_string()),
        Just("[1, 2".to_string()),
        ".{0,16}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,400}") {
        check(&text, &[])?;
    }

    #[test]
    fn mutated_valid_text_never_panics(
        cut in 0usize..VALID.len(),
        len in 0usize..40,
        insert in ".{0,12}",
    ) {
        let mut text = VALID.to_string();
        let end = (cut + len).min(text.len());
        if text.is_char_boundary(cut) && text.is_char_boundary(end) {
            text.replace_range(cut..end, &insert);
        }
        check(&text, &[])?;
    }

    #[test]
    fn arbitrary_overrides_never_panic(
        pairs in proptest::collection::vec((keys(), values()), 0..5),
    ) {
        check(VALID, &pairs)?;
    }
}

/// Deep nesting (inline tables in inline tables) is refused, not a stack overflow.
#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let depth = 5_000;
    let text = format!(
        "{VALID}\n[deep]\nx = {}1{}\n",
        "{ a = ".repeat(depth),
        " }".repeat(depth)
    );
    check(&text, &[]).unwrap();
}
