#!/usr/bin/env bash
# The test command: formatting, lints (warnings are errors) and every test.
# Tests that need trace-cmd, uftrace, gdb, root/tracefs or ../shared skip with a printed reason
# when those are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --locked --all-targets -- -D warnings
cargo test --locked
# The library alone: builds without the command line's and the daemon's dependencies.
cargo clippy --locked --lib --no-default-features -- -D warnings
lean=$(cargo tree --locked --no-default-features -e normal --prefix none)
if grep -Eq '^(clap|clap_complete|clap_mangen|notify|notify-debouncer-full|signal-hook|indicatif|tracing-subscriber) ' <<<"$lean"; then
  echo "cargo tree --no-default-features: the library pulls a CLI/daemon dependency" >&2
  exit 1
fi
