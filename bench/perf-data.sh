#!/usr/bin/env bash
# perf.data of 1 GB and more, recorded on this machine, checked against `cat` (the speed of
# reading the bytes), `perf report --stdio` and `perf script` in the same run: best wall time of
# RUNS, peak RSS (/usr/bin/time -v).
#
# Usage: bench/perf-data.sh [gen|measure|clean|all] [BASELINE_BINARY]   (default: all)
#   gen      three recordings, software events only (no hardware PMU needed):
#              big.data      `perf record -F 50000 -e cpu-clock -g -a` of a busy workload
#                            (a loop of `sha256sum` and `find`, nice 19), stopped by
#                            `--max-size` at SIZE_MB (default 1100) MB;
#              big-z.data    the same with `-z` (zstd records), SIZE_Z_MB (default 300) MB;
#              pipe.data     the same with `-o -` (pipe mode) into a file, SIZE_MB MB, cut by
#                            `head -c` on a record boundary? no: perf's own stop (a clean end).
#   measure  per input: `cat FILE >/dev/null`, `check -o json FILE`, `check --no-mmap`, the
#            pipe-mode file on standard input (`check -o json - < FILE`), BASELINE_BINARY if
#            given, then `perf report --stdio` and `perf script` once each (REFS=0 skips them).
#   clean    deletes the recordings (they are never committed; the disk is small).
#   all      gen, measure, clean.
# Files live in bench/out/perf (gitignored). Results: bench/out/perf/results.txt.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
OUT=$ROOT/bench/out/perf
WORK=$OUT
RES=$OUT/results.txt
RUNS=${RUNS:-3}
MODE=${1:-all}
BASE=${2:-}
SIZE_MB=${SIZE_MB:-1100}
SIZE_Z_MB=${SIZE_Z_MB:-300}
mkdir -p "$OUT"

die () { echo "perf-data.sh: $*" >&2; exit 1; }

# record NAME MAX_MB PERF_OPTIONS...: a system-wide recording of a busy workload, stopped by
# perf itself once the output reaches MAX_MB (`--max-size`), so the file ends cleanly.
record () {
  local name=$1 max=$2 out=$OUT/$1
  shift 2
  [ -s "$out" ] && return
  echo "recording $name ($max MB) ..." >&2
  nice -n 19 bash -c 'while :; do sha256sum /usr/bin/* > /dev/null 2>&1; find /usr -xdev > /dev/null 2>&1; done' &
  local busy=$!
  if [ "$name" = pipe.data ]; then
    perf record -F 50000 -e cpu-clock -g -a --max-size="${max}M" "$@" -o - -- sleep 900 \
      2> "$OUT/$name.log" > "$out" || true
  else
    perf record -F 50000 -e cpu-clock -g -a --max-size="${max}M" "$@" -o "$out" -- sleep 900 \
      > "$OUT/$name.log" 2>&1 || true
  fi
  kill "$busy" 2> /dev/null
  pkill -P "$busy" 2> /dev/null
  wait "$busy" 2> /dev/null
  [ -s "$out" ] || die "perf record wrote nothing for $name (see $OUT/$name.log)"
}

gen () {
  command -v perf > /dev/null || die "perf not found"
  record big.data "$SIZE_MB"
  record big-z.data "$SIZE_Z_MB" -z
  record pipe.data "$SIZE_MB"
  ls -l "$OUT"/*.data >&2
}

case $MODE in
  gen) gen ;;
  *) die "unknown mode $MODE" ;;
esac
