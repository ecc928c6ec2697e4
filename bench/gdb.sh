#!/usr/bin/env bash
# Throughput of the GDB tfile validator on a ~100 MB synthetic tfile.
# Usage: bench/gdb.sh [MEGABYTES]   (default 100)
#        bench/gdb.sh definitions   the definitions' cost: 10,000 and 40,000 tracepoints (and
#                                   twice as many trace state variables) in a tfile's header,
#                                   best of 5 each; linear checking takes about 4x as long for
#                                   4x the definitions.
# Builds the release binary and the generator (examples/gen_tfile.rs), writes the file to a
# temporary directory, then times `cat FILE >/dev/null` and `tracelint check FILE` with
# /usr/bin/time -v (best of 5 runs each) and prints MB/s and the ratio.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
MB=${1:-100}
cd "$ROOT"
cargo build --release --quiet --bin tracelint --example gen_tfile
TMP=$(mktemp -d /tmp/tracelint-bench-gdb.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
FILE=$TMP/bench.tf
[ "$MB" = definitions ] || target/release/examples/gen_tfile "$FILE" "$MB" >/dev/null
BYTES=$(stat -c %s "$FILE" 2>/dev/null || echo 0)
TL=target/release/tracelint
[ -x "$TL" ] || TL="target/release/examples/gen_tfile --check"
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench/gdb.sh: /usr/bin/time not found" >&2; exit 1; }

# best_of CMD...: prints the best wall-clock seconds of 5 runs, each run under /usr/bin/time -v
# (its log of the last run is kept for the peak RSS; its elapsed field has only 10 ms
# resolution, so the wall clock is taken from bash's EPOCHREALTIME around the run).
best_of () {
  local best="" t a b
  for _ in 1 2 3 4 5; do
    a=$EPOCHREALTIME
    "$TIME" -v -o "$TMP/time.log" "$@" >/dev/null 2>"$TMP/err.log" || true
    b=$EPOCHREALTIME
    t=$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.6f", b - a}')
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
  done
  echo "$best"
}

if [ "$MB" = definitions ]; then
  for n in 10000 40000; do
    target/release/examples/gen_tfile --definitions "$TMP/defs-$n.tf" "$n" >/dev/null
    # shellcheck disable=SC2086
    t=$(best_of $TL check "$TMP/defs-$n.tf")
    echo "$n tracepoints: $t s"
    eval "T$n=$t"
  done
  awk -v a="$T10000" -v b="$T40000" 'BEGIN { if (a > 0) printf "ratio 40000/10000: %.2f (linear: 4)\n", b / a }'
  exit 0
fi

cat "$FILE" >/dev/null   # warm the page cache
CAT=$(best_of cat "$FILE")
# shellcheck disable=SC2086
LINT=$(best_of $TL check "$FILE")
RSS=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$TMP/time.log")
# shellcheck disable=SC2086
$TL check "$FILE" >"$TMP/out.txt" 2>&1 || true
awk -v b="$BYTES" -v c="$CAT" -v l="$LINT" -v rss="$RSS" 'BEGIN {
  mb = b / 1e6
  cr = (c > 0) ? mb / c : 0
  lr = (l > 0) ? mb / l : 0
  printf "file:      %.1f MB\n", mb
  printf "cat:       %.3f s  (%.0f MB/s)\n", c, cr
  printf "tracelint: %.3f s  (%.0f MB/s, max RSS %d KiB)\n", l, lr, rss
  if (cr > 0) printf "ratio tracelint/cat throughput: %.2f\n", lr / cr
}'
echo "tracelint output:"
tail -n 5 "$TMP/out.txt"
