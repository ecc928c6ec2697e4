#!/usr/bin/env bash
# Benchmark: `tracelint fix` of large damaged inputs against copying the same file.
#
# Usage: bench/fix.sh
# Inputs, generated into $WORK (default bench/out/fix, never committed; CLEAN=1 deletes them at
# the end):
#   gen-v6-cut.dat   a GIB GiB (default 1) v6 trace.dat (bench/gen-large-tracedat.py from
#                    corpus/tracecmd/v6.dat) cut 100 bytes short: the last CPU's size is set to
#                    its whole pages; GIB=3 makes the multi-GB input (gen-v6-3g-cut.dat)
#   real-v6-cut.dat  REAL=FILE (a recorded v6 trace.dat, say bench/out/real-v6.dat) cut the same way
#   gen-v6-cut.dat.zst  the generated one compressed with zstd -1 (fix unpacks it as check does);
#                    its baselines are `zstd -dc IN > COPY` and the same with a sync (ZST=0: not)
#   killed.data      a perf.data of a SIGKILLed `perf record` (PERF=1, needs perf): data.size 0
# Each command runs RUNS times (default 3) on the page-cached input; the best wall time and the
# largest peak RSS (/usr/bin/time -v) are noted. Baselines ("copy") in the same run: `cp IN COPY` and
# `cp IN COPY && sync COPY` (fix syncs OUT before naming it, as a copy that must survive a crash
# is synced). fix also checks IN and OUT; the ratio is fix's time over the baseline's.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-$ROOT/bench/out/fix}
RUNS=${RUNS:-3}
mkdir -p "$WORK"
RES=$WORK/results.txt
for t in python3 /usr/bin/time; do command -v "$t" >/dev/null || { echo "bench: $t not found" >&2; exit 1; }; done
(cd "$ROOT" && cargo build --release --quiet --bin tracelint) || { echo "bench: build failed" >&2; exit 1; }
TL=$ROOT/target/release/tracelint
: > "$RES"
[ "${CLEAN:-0}" = 1 ] && trap 'rm -rf "$WORK"' EXIT
: > "$WORK/tracelint.toml"
export TRACELINT_CONFIG=$WORK/tracelint.toml
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

cut_short () { # SRC DST BYTES
  local n; n=$(stat -c %s "$1")
  [ -s "$2" ] || head -c $((n - $3)) "$1" > "$2"
}

GIB=${GIB:-1}
GEN=$WORK/gen-v6-cut.dat
[ "$GIB" = 1 ] || GEN=$WORK/gen-v6-${GIB}g-cut.dat
if [ ! -s "$GEN" ]; then
  python3 "$ROOT/bench/gen-large-tracedat.py" "$ROOT/corpus/tracecmd/v6.dat" "$WORK/gen-v6.dat" "$GIB" >/dev/null
  cut_short "$WORK/gen-v6.dat" "$GEN" 100
  rm -f "$WORK/gen-v6.dat"
fi
INPUTS=("$GEN")
if [ "${ZST:-1}" = 1 ]; then
  [ -s "$GEN.zst" ] || zstd -q -1 -T0 "$GEN" -o "$GEN.zst"
  INPUTS+=("$GEN.zst")
fi
if [ -n "${REAL:-}" ]; then
  cut_short "$REAL" "$WORK/real-v6-cut.dat" 100
  INPUTS+=("$WORK/real-v6-cut.dat")
fi
if [ "${PERF:-0}" = 1 ] && command -v perf >/dev/null; then
  if [ ! -s "$WORK/killed.data" ]; then
    gcc -O1 -o "$WORK/pf_work" "$ROOT/scripts/corpus/src/pf_work.c"
    secs=${PERF_SECONDS:-20}
    # The workload ends by itself (about 10 ms a unit) if the kill misses it.
    perf record -q -o "$WORK/killed.data" -F 20000 -e cpu-clock -g -- "$WORK/pf_work" $((secs * 200)) >/dev/null 2>&1 &
    pid=$!
    sleep "$secs"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pkill -9 -f "^$WORK/pf_work" || true
  fi
  INPUTS+=("$WORK/killed.data")
fi

note "machine: $(nproc) cores, $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MiB, load $(cut -d' ' -f1-3 /proc/loadavg); $($TL --version)"
note "| input | size | fix (s) | fix peak RSS | exit | copy (s) | copy + sync (s) | fix / copy | fix / (copy + sync) |"
note "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for in in "${INPUTS[@]}"; do
  size=$(stat -c %s "$in")
  cat "$in" > /dev/null
  best_fix=; best_cp=; best_cps=; rss=0; code=
  for _ in $(seq "$RUNS"); do
    rm -f "$WORK/out" "$WORK/copy"
    read -r w r c < <(measure "$TL fix '$in' -o '$WORK/fixed'")
    rm -f "$WORK/fixed"
    code=$c
    [ "$r" -gt "$rss" ] && rss=$r
    if [ -z "$best_fix" ] || awk "BEGIN{exit !($w < $best_fix)}"; then best_fix=$w; fi
    copy="cp '$in' '$WORK/copy'"
    case "$in" in *.zst) copy="zstd -q -dc '$in' > '$WORK/copy'" ;; esac
    read -r w _ _ < <(measure "$copy")
    rm -f "$WORK/copy"
    if [ -z "$best_cp" ] || awk "BEGIN{exit !($w < $best_cp)}"; then best_cp=$w; fi
    read -r w _ _ < <(measure "$copy && sync '$WORK/copy'")
    rm -f "$WORK/copy"
    if [ -z "$best_cps" ] || awk "BEGIN{exit !($w < $best_cps)}"; then best_cps=$w; fi
  done
  ratio () { awk "BEGIN{ if ($2 < 0.05) print \"—\"; else printf \"%.2f\", $1/$2 }"; }
  note "| $(basename "$in") | $((size >> 20)) MiB | $best_fix | $((rss >> 10)) MiB | $code | $best_cp | $best_cps | $(ratio "$best_fix" "$best_cp") | $(ratio "$best_fix" "$best_cps") |"
done
