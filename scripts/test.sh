#!/usr/bin/env bash
# The test command: formatting, lints (warnings are errors) and every test.
# Tests that need trace-cmd, uftrace, gdb, root/tracefs or ../shared skip with a printed reason
# when those are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --locked --all-targets -- -D warnings
cargo test --locked
