#!/usr/bin/env bash
# Flame graphs of `tracelint check` on the real recording of bench/streams.sh (run its `gen`
# first), as a file and on standard input: `perf record -g` at 999 Hz, folded and drawn with
# inferno (`cargo install inferno`). Writes bench/flamegraph-*.svg.
#
# Usage: bench/flamegraph.sh [FILE]   (default: bench/out/real-v7.dat)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
F=${1:-$ROOT/bench/out/real-v7.dat}
[ -s "$F" ] || { echo "flamegraph.sh: missing $F: run bench/streams.sh gen first" >&2; exit 1; }
command -v perf > /dev/null || { echo "flamegraph.sh: perf not found" >&2; exit 1; }
command -v inferno-flamegraph > /dev/null || { echo "flamegraph.sh: cargo install inferno" >&2; exit 1; }
(cd "$ROOT" && cargo build --release --bin tracelint > /dev/null 2>&1)
TL=$ROOT/target/release/tracelint
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
draw () {  # draw NAME TITLE CMD
  perf record -F 999 -g -o "$W/perf.data" -- sh -c "$3" > /dev/null 2>&1
  perf script -i "$W/perf.data" 2> /dev/null | inferno-collapse-perf > "$W/folded"
  inferno-flamegraph --title "$2" --width 1400 < "$W/folded" > "$HERE/flamegraph-$1.svg"
  echo "bench/flamegraph-$1.svg"
}
draw check-file "tracelint check $(basename "$F") ($(du -m "$F" | cut -f1) MB)" "'$TL' check -o json '$F'"
draw check-stdin "tracelint check - < $(basename "$F")" "'$TL' check -o json - < '$F'"
