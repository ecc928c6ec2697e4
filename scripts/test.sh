#!/usr/bin/env bash
# The test command: formatting, lints (warnings are errors) and every test.
#
# The lints and the tests share one build: clippy's driver compiles this package's crates
# (RUSTC_WORKSPACE_WRAPPER) while the tests are built, so the dependencies are compiled once,
# not checked for clippy and then compiled again for the tests. Every test binary runs whatever
# fails (cargo-nextest when installed, else `cargo test --no-fail-fast`).
# Tests that need trace-cmd, uftrace, gdb, root/tracefs or ../shared skip with a reason (a
# failure with CI=true); the skips are listed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
# rustfmt and clippy are rustup components a minimal toolchain may lack.
if command -v rustup >/dev/null 2>&1 && ! { cargo fmt --version && cargo clippy --version; } >/dev/null 2>&1; then
  rustup component add rustfmt clippy
fi
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')

# step NAME CMD...: runs a step and records how long it took; the times are printed at the end.
times=()
step() {
  local name=$1 start=$SECONDS rc=0
  shift
  echo "== $name"
  "$@" || rc=$?
  times+=("$(printf '%6ss  %s%s' $((SECONDS - start)) "$name" "$([ $rc = 0 ] || echo " (failed: $rc)")")")
  return $rc
}
report() {
  echo "== step times"
  printf '%s\n' "${times[@]}"
  if [ -s "$TRACELINT_SKIP_LOG" ]; then
    echo "== $(sort -u "$TRACELINT_SKIP_LOG" | wc -l) test(s) skipped a part (CI=true fails them instead):"
    sort -u "$TRACELINT_SKIP_LOG" | sed 's/^/  /'
  else
    echo "== no test skipped"
  fi
}

mkdir -p "$target"
export TRACELINT_SKIP_LOG="$target/test-skips.txt"
: > "$TRACELINT_SKIP_LOG"
trap report EXIT

step "rustfmt --check" cargo fmt --all -- --check

# clippy's lints on this package's crates while they are built for the tests: the library, the
# binary, the tests and the examples, each as the test build compiles it (what `cargo clippy
# --all-targets -- -D warnings` checks; the package has no benches).
export RUSTC_WORKSPACE_WRAPPER
RUSTC_WORKSPACE_WRAPPER=$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver)
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
if cargo nextest --version >/dev/null 2>&1; then
  step "build: tests and clippy -D warnings" cargo nextest run --locked --no-run
  tests=0
  step "tests (nextest)" cargo nextest run --locked --no-fail-fast || tests=$?
  step "doc tests" cargo test --locked --doc || tests=$?
else
  echo "cargo-nextest is not installed (cargo install cargo-nextest --locked): cargo test runs the tests"
  step "build: tests and clippy -D warnings" cargo test --locked --no-run
  tests=0
  step "tests and doc tests (cargo test)" cargo test --locked --no-fail-fast || tests=$?
fi

# The library alone: builds without the command line's and the daemon's dependencies. Its
# dependencies have other features than in the tests' build, so nothing is shared: clippy's
# check (no code generation) is the cheapest way to compile them.
unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
step "lib without default features, clippy -D warnings" cargo clippy --locked --lib --no-default-features -- -D warnings
lean=$(cargo tree --locked --no-default-features -e normal --prefix none)
if grep -Eq '^(clap|clap_complete|clap_mangen|notify|notify-debouncer-full|signal-hook|indicatif|tracing-subscriber) ' <<<"$lean"; then
  echo "cargo tree --no-default-features: the library pulls a CLI/daemon dependency" >&2
  exit 1
fi
[ "$tests" = 0 ] || { echo "test.sh: tests failed" >&2; exit "$tests"; }
