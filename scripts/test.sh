#!/usr/bin/env bash
# The project's whole test run: formatting, lints, the Rust tests, the Python package built
# and installed by maturin, and every pytest test (API, CLI, scenario smoke tests, sweeps,
# fingerprints, the quick reproductions), those marked slow, reproduction and benchmark
# included. Full (non-quick) reproductions are not tests: `atmsim reproduce NAME` runs them.
# The README's test command and .ci/run both call this script.
set -euo pipefail
cd "$(dirname "$0")/.."

export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

# Each step prints its name and, at the next step, how long the last one took; the end prints
# the whole run's time.
started=$SECONDS
last=$SECONDS
step() {
    if [ -n "${current:-}" ]; then printf -- '-- %s: %d s\n' "$current" $((SECONDS - last)); fi
    current="$*"
    last=$SECONDS
    printf '\n== %s\n' "$*"
}

step "cargo fmt --all --check"
cargo fmt --all --check

# Clippy checks in the dev profile, apart from the optimised build below, and the two do not
# wait for each other's lock: it runs in the background beside the build and the Rust tests,
# on the core they leave idle (measured on a fresh clone on two cores: the extension's build
# kept 1.2 cores busy, clippy alone 0.9, the Rust tests' build 1.7). Its verdict is taken
# before pytest.
clippy_log=$(mktemp)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -f "$clippy_log"' EXIT
cargo clippy --workspace --all-targets --quiet -- -D warnings >"$clippy_log" 2>&1 &
clippy_pid=$!
clippy_started=$SECONDS

# One optimised build serves both the extension and the Rust tests: the extension is built
# with the test-opt profile (the release profile without whole-program LTO), the profile
# `cargo test` uses below, so the crates and their dependencies are compiled once. The
# extension installed here is about 6% slower per cell than the release build (instructions
# of the event loop, parking lot and Kalyanaraman ABR runs); `pip install .` (the README's
# install) builds the release one.
step "pip install .[test]   (builds atmsim._core with maturin, test-opt profile: 3-6 min on two cores)"
MATURIN_PEP517_ARGS="--profile test-opt" python -m pip install --quiet ".[test]"

step "ruff check python tests examples scripts; ruff format --check python tests examples scripts"
python -m ruff check python tests examples scripts
python -m ruff format --check python tests examples scripts

# The Rust tests build with the test-opt profile, as the extension above: what they share
# (the model, scenario, engine and units crates and the dependencies) is built once.
step "cargo test --profile test-opt   (1-3 min)"
cargo test --profile test-opt

step "cargo clippy --workspace --all-targets -- -D warnings   (its result: it ran beside the build and the Rust tests)"
if wait "$clippy_pid"; then
    cat "$clippy_log"
    printf 'clippy: clean, %d s after it started\n' $((SECONDS - clippy_started))
else
    cat "$clippy_log"
    echo "clippy: warnings or errors (above)" >&2
    exit 1
fi

# Two pytest-xdist workers per two cores (-n auto), each test file on one worker (--dist
# loadfile: a file's module fixtures are made once). The quick reproductions are made once
# for both workers (tests/python/conftest.py). About a third of the suite's wall time was
# one core idle while the other ran a test of its own.
step "pytest -m '' -n auto   (every test: plain pytest's and those marked slow, reproduction, benchmark)"
python -m pytest -m '' -n auto --dist loadfile --durations=10
step "done"
printf 'test command: %d s in all\n' $((SECONDS - started))
