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

# One optimised build serves both the extension and the Rust tests: the extension is built
# with the test-opt profile (the release profile without whole-program LTO), the profile
# `cargo test` uses below, so the crates and their dependencies are compiled once. The
# extension installed here is about 6% slower per cell than the release build (instructions
# of the event loop, parking lot and Kalyanaraman ABR runs); `pip install .` (the README's
# install) builds the release one.
step "pip install .[test]   (builds atmsim._core with maturin, test-opt profile: 1-3 min on two cores)"
MATURIN_PEP517_ARGS="--profile test-opt" python -m pip install --quiet ".[test]"

step "ruff check python tests examples scripts; ruff format --check python tests examples scripts"
python -m ruff check python tests examples scripts
python -m ruff format --check python tests examples scripts

step "cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets --quiet -- -D warnings

# The Rust tests build with the test-opt profile, as the extension above: what they share
# (the model, scenario, engine and units crates and the dependencies) is built once.
step "cargo test --profile test-opt   (1-3 min)"
cargo test --profile test-opt

# Two pytest-xdist workers per two cores (-n auto), each test file on one worker (--dist
# loadfile: a file's module fixtures are made once). The quick reproductions are made once
# for both workers (tests/python/conftest.py). About a third of the suite's wall time was
# one core idle while the other ran a test of its own.
step "pytest -m '' -n auto   (every test: plain pytest's and those marked slow, reproduction, benchmark)"
python -m pytest -m '' -n auto --dist loadfile --durations=10
step "done"
printf 'test command: %d s in all\n' $((SECONDS - started))
