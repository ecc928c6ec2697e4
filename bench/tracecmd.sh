#!/usr/bin/env bash
# Benchmark of the trace-cmd trace.dat validator on a large real trace (>= 1 GiB of ring data).
#
# Usage: bench/tracecmd.sh [gen|measure|all]   (default: all)
#   gen      records a large trace with tracefs + `trace-cmd extract` (root, tracefs, trace-cmd),
#            then makes v7-none and v6 variants with `trace-cmd convert`. Tracing state is
#            restored on exit.
#   measure  times, in one run: `cat FILE >/dev/null`, tracelint, `trace-cmd report FILE`, and
#            for the zstd file a decompress-only pass (examples/tracecmd_decompress.rs); peak RSS
#            of tracelint via /usr/bin/time -v. Results go to bench/out/tracecmd-results.txt.
# Files live in bench/out/ (gitignored). PER_CPU_KB sets the per-CPU ring size (default 600000).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
OUT=$ROOT/bench/out
mkdir -p "$OUT"
Z=$OUT/big-v7-zstd.dat
N=$OUT/big-v7-none.dat
V6=$OUT/big-v6.dat
PER_CPU_KB=${PER_CPU_KB:-600000}
MODE=${1:-all}

die () { echo "tracecmd.sh: $*" >&2; exit 1; }
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

gen () {
  tracefs_session "$PER_CPU_KB"
  WORK=$(mktemp -d /tmp/tracelint-bench.XXXXXX)
  echo 1 > "$T/events/raw_syscalls/enable"
  echo 1 > "$T/events/sched/enable"
  echo 1 > "$T/events/timer/enable"
  echo 1 > "$T/events/irq/enable"
  echo 1 > "$T/tracing_on"
  # Busy workload on both CPUs until both per-CPU buffers are (nearly) full, at most 300 s.
  want=$(( PER_CPU_KB * 1024 * 9 / 10 ))
  start=$(date +%s)
  while :; do
    taskset -c 0 dd if=/dev/zero of=/dev/null bs=1 count=300000 2>/dev/null &
    taskset -c 1 dd if=/dev/zero of=/dev/null bs=1 count=300000 2>/dev/null &
    wait
    b0=$(awk '/^bytes:/{print $2}' "$T/per_cpu/cpu0/stats")
    b1=$(awk '/^bytes:/{print $2}' "$T/per_cpu/cpu1/stats")
    [ "$b0" -ge "$want" ] && [ "$b1" -ge "$want" ] && break
    [ $(( $(date +%s) - start )) -gt 300 ] && break
  done
  echo 0 > "$T/tracing_on"
  echo "ring bytes: cpu0=$b0 cpu1=$b1"
  rm -f "$Z" "$N" "$V6"
  trace-cmd extract -o "$Z" > "$WORK/extract.log" 2>&1 || { cat "$WORK/extract.log"; die "extract failed"; }
  trace-cmd convert --compression none -i "$Z" -o "$N" > /dev/null 2>&1 || die "convert to none failed"
  trace-cmd convert --file-version 6 -i "$N" -o "$V6" > /dev/null 2>&1 || die "convert to v6 failed"
  ls -l "$Z" "$N" "$V6"
  rm -rf "$WORK"
}

secs () {  # secs CMD... -> wall seconds of one run (stdout discarded)
  local s e
  s=$(date +%s.%N)
  "$@" > /dev/null 2>&1
  e=$(date +%s.%N)
  echo "$e - $s" | bc -l
}

best () {  # best N CMD... -> best of N runs
  local n=$1; shift
  local b=
  for _ in $(seq "$n"); do
    t=$(secs "$@")
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
  done
  echo "$b"
}

peak_rss () {  # peak_rss CMD... -> "anon_kb file_kb" peaks sampled from /proc every 5 ms
  "$@" > /dev/null 2>&1 &
  local pid=$! a=0 f=0 x y
  while kill -0 "$pid" 2>/dev/null; do
    x=$(awk '/^RssAnon:/{print $2}' "/proc/$pid/status" 2>/dev/null)
    y=$(awk '/^RssFile:/{print $2}' "/proc/$pid/status" 2>/dev/null)
    [ -n "$x" ] && [ "$x" -gt "$a" ] && a=$x
    [ -n "$y" ] && [ "$y" -gt "$f" ] && f=$y
    sleep 0.005
  done
  wait "$pid"
  echo "$a $f"
}

measure () {
  for f in "$Z" "$N" "$V6"; do [ -s "$f" ] || die "missing $f: run '$0 gen' first"; done
  (cd "$ROOT" && cargo build --release --bin tracelint --example tracecmd_decompress >/dev/null 2>&1) || die "build failed"
  TL=$ROOT/target/release/tracelint
  DEC=$ROOT/target/release/examples/tracecmd_decompress
  R=$OUT/tracecmd-results.txt
  {
    echo "# $(date -u +%FT%TZ) $(uname -r) $(nproc) CPUs; trace-cmd $(trace-cmd --version 2>/dev/null | head -1)"
    for f in "$Z" "$N" "$V6"; do
      size=$(stat -c %s "$f")
      cat "$f" > /dev/null   # warm the page cache
      tcat=$(best 3 cat "$f")
      ttl=$(best 3 "$TL" check "$f")
      rss=$( { /usr/bin/time -v "$TL" check "$f" > /dev/null; } 2>&1 | awk -F': ' '/Maximum resident/{print $2}')
      read -r anon filekb < <(peak_rss "$TL" check "$f")
      trep=$(secs trace-cmd report -i "$f")
      line="$(basename "$f") size=$size cat=${tcat}s tracelint=${ttl}s report=${trep}s maxrss_kb=$rss peak_anon_kb=$anon peak_file_kb=$filekb"
      line="$line tracelint/cat=$(echo "$ttl / $tcat" | bc -l | cut -c1-6) report/tracelint=$(echo "$trep / $ttl" | bc -l | cut -c1-6)"
      line="$line MB/s=$(echo "$size / $ttl / 1048576" | bc -l | cut -c1-7)"
      if [ "$f" = "$Z" ]; then
        tdec=$(best 3 "$DEC" "$f")
        line="$line decompress_only=${tdec}s tracelint/decompress=$(echo "$ttl / $tdec" | bc -l | cut -c1-6)"
      fi
      echo "$line"
    done
    "$TL" check "$Z" 2>&1 | tail -5
  } | tee "$R"
}

case "$MODE" in
  gen) gen ;;
  measure) measure ;;
  all) gen && measure ;;
  *) die "usage: $0 [gen|measure|all]" ;;
esac
