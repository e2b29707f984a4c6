#!/usr/bin/env bash
# The project's whole test run: formatting, lints, the Rust tests, the Python package built
# and installed by maturin, and every pytest test (API, CLI, scenario smoke tests, sweeps,
# fingerprints, the quick reproductions), those marked slow, reproduction and benchmark
# included. Full (non-quick) reproductions are not tests: `atmsim reproduce NAME` runs them.
# The README's test command and .ci/run both call this script.
set -euo pipefail
cd "$(dirname "$0")/.."

export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

step() { printf '\n== %s\n' "$*"; }

step "cargo fmt --all --check"
cargo fmt --all --check

step "pip install .[test]   (builds atmsim._core with maturin, release profile: 4-10 min on two cores)"
python -m pip install --quiet ".[test]"

step "ruff check python tests; ruff format --check python tests"
python -m ruff check python tests
python -m ruff format --check python tests

step "cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets --quiet -- -D warnings

# The Rust tests build with the test-opt profile (optimised, no whole-program LTO): the
# extension above is the only fat-LTO build. On two cores this build took 1 min 47 s of CPU
# where `cargo test --release` took 3 min 53 s (same tree, both after the dependencies).
step "cargo test --profile test-opt   (1-3 min)"
cargo test --profile test-opt

step "pytest -m ''   (every test: plain pytest's and those marked slow, reproduction, benchmark)"
python -m pytest -m '' --durations=10
