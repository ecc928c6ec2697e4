#!/usr/bin/env bash
# Benchmark: tracelint on large uftrace recordings vs `uftrace dump` and `cat`.
#
# Generates two recordings under bench/out/ (never committed), each >= 10 million records:
#   uftrace-big    a hot recursive program (fib, `-a`: every ENTRY carries its argument and
#                  every EXIT its return value), one function called over and over;
#   uftrace-calls  64 functions calling each other in a mixed pattern (`--no-libcall`), so that
#                  consecutive records name different functions;
# then reports for each the wall time of
#   tracelint check DIR        (target/release/tracelint)
#   uftrace dump -d DIR        (stdout to /dev/null)
#   cat DIR/*.dat              (stdout to /dev/null)
# and tracelint's CPU time and peak RSS (/usr/bin/time -v).
# Usage: bench/uftrace.sh [N]   (fib argument, default 32)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/bench/out
N=${1:-32}
mkdir -p "$OUT"
for t in gcc uftrace python3 /usr/bin/time; do command -v "$t" >/dev/null || { echo "bench: $t not found" >&2; exit 1; }; done

FIB=$OUT/uftrace-big
if [ ! -f "$FIB/info" ] || [ "$(cat "$OUT/uftrace-big.n" 2>/dev/null)" != "$N" ]; then
  cat >"$OUT/fib.c" <<'C'
#include <stdlib.h>
#include <stdio.h>
static long fib(long n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(int argc, char **argv) { printf("%ld\n", fib(argc > 1 ? atol(argv[1]) : 30)); return 0; }
C
  gcc -pg -O0 -o "$OUT/fib" "$OUT/fib.c"
  rm -rf "$FIB"
  (cd "$OUT" && uftrace record --no-libcall -a --buffer=4M -d "$FIB" ./fib "$N" >/dev/null)
  echo "$N" >"$OUT/uftrace-big.n"
fi

CALLS=$OUT/uftrace-calls
if [ ! -f "$CALLS/info" ]; then
  python3 - "$OUT/calls.c" <<'PY'
import sys
n = 64
src = ['#include <stdio.h>', '#include <stdlib.h>', 'volatile long sink;']
src += [f'__attribute__((noinline)) long f{i}(long x);' for i in range(n)]
for i in range(n):
    a, b = (i * 7 + 3) % n, (i * 13 + 5) % n
    src.append(f'__attribute__((noinline)) long f{i}(long x) {{ if (x <= 0) return {i}; sink += x; '
               f'return (x & 1) ? f{a}(x - 1) : f{b}(x - 2) + 1; }}')
src.append('int main(int c, char **v) { long n = c > 1 ? atol(v[1]) : 1000; long s = 0; '
           'for (long i = 0; i < n; i++) s += f0(i % 40) + f5(i % 17); printf("%ld\\n", s); return 0; }')
open(sys.argv[1], 'w').write('\n'.join(src) + '\n')
PY
  gcc -pg -O0 -o "$OUT/calls" "$OUT/calls.c"
  rm -rf "$CALLS"
  (cd "$OUT" && uftrace record --no-libcall --buffer=4M -d "$CALLS" ./calls 400000 >/dev/null)
fi

(cd "$ROOT" && cargo build --release --quiet)
TL=$ROOT/target/release/tracelint

secs () { # secs RUNS CMD... : wall seconds of the best of RUNS runs
  local best="" runs=$1; shift
  for _ in $(seq "$runs"); do
    local s e
    s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N)
    best=$(echo "$s $e $best" | awk '{d=$2-$1; if ($3=="" || d<$3) print d; else print $3}')
  done
  echo "$best"
}

cpu () { # cpu RUNS CMD... : least user+sys CPU seconds of RUNS runs
  local best="" runs=$1; shift
  for _ in $(seq "$runs"); do
    local c
    c=$(/usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1+$2}')
    best=$(echo "$c $best" | awk '{if ($2=="" || $1<$2) print $1; else print $2}')
  done
  echo "$best"
}

measure () { # measure NAME DIR
  local name=$1 data=$2
  local bytes recs t_tl t_cat t_dump c_tl c_cat rss verdict
  bytes=$(cat "$data"/[0-9]*.dat | wc -c)
  recs=$("$TL" map -o json "$data" 2>/dev/null | tr -d ' \n' | grep -o '\["records","[0-9]*"\]' | head -1 | grep -o '[0-9][0-9]*' || true)
  cat "$data"/[0-9]*.dat >/dev/null   # page cache warm for every contestant
  t_tl=$(secs 5 "$TL" check "$data")
  t_cat=$(secs 5 sh -c "cat '$data'/[0-9]*.dat")
  t_dump=$(secs 1 timeout 600 uftrace dump --no-pager -d "$data")
  c_tl=$(cpu 5 "$TL" check "$data")
  c_cat=$(cpu 5 sh -c "cat '$data'/[0-9]*.dat")
  rss=$(/usr/bin/time -v "$TL" check "$data" 2>&1 >/dev/null | awk -F: '/Maximum resident/ {gsub(/ /,"",$2); print $2}')
  "$TL" check "$data" >/dev/null 2>&1 && verdict=clean || verdict="findings (exit $?)"
  awk -v n="$name" -v b="$bytes" -v r="$recs" -v tl="$t_tl" -v cat="$t_cat" -v dump="$t_dump" -v rss="$rss" -v v="$verdict" -v ctl="$c_tl" -v ccat="$c_cat" 'BEGIN {
    printf "== %s\n", n
    printf "data: %d bytes of task data, %s records\n", b, r
    printf "tracelint check: %.3f s (%.0f MB/s), verdict: %s\n", tl, b/tl/1e6, v
    printf "uftrace dump:    %.3f s  -> tracelint is %.1fx faster\n", dump, dump/tl
    printf "cat *.dat:       %.3f s (%.0f MB/s) -> tracelint runs at %.2f of cat throughput\n", cat, b/cat/1e6, cat/tl
    printf "CPU time (user+sys, least of 5): tracelint %.2f s, cat %.2f s -> %.2f of cat\n", ctl, ccat, (ctl > 0 ? ccat/ctl : 0)
    printf "tracelint peak RSS: %d KiB\n", rss
  }'
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
measure "fib($N), -a (one hot function, argument and return-value payloads)" "$FIB"
measure "64 functions, mixed calls, --no-libcall" "$CALLS"
