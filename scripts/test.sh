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

step "pip install .[test]   (builds atmsim._core with maturin, release profile)"
python -m pip install --quiet ".[test]"

step "ruff check python tests; ruff format --check python tests"
python -m ruff check python tests
python -m ruff format --check python tests

step "cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets --quiet -- -D warnings

step "cargo test --release"
cargo test --release

step "pytest -m ''   (every test: plain pytest's and those marked slow, reproduction, benchmark)"
python -m pytest -m '' --durations=10
