#!/usr/bin/env bash
# Benchmark: tracelint on a large uftrace recording vs `uftrace dump` and `cat`.
#
# Generates bench/out/uftrace-big (a recording of >= 10 million records: a hot recursive
# program built with -pg, recorded with `uftrace record -a`), then reports the wall time of
#   tracelint check DIR        (target/release/tracelint)
#   uftrace dump -d DIR        (stdout to /dev/null)
#   cat DIR/*.dat              (stdout to /dev/null)
# and tracelint's peak RSS (/usr/bin/time -v). Usage: bench/uftrace.sh [N]   (fib argument, default 32)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/bench/out
N=${1:-32}
DATA=$OUT/uftrace-big
mkdir -p "$OUT"
for t in gcc uftrace /usr/bin/time; do command -v "$t" >/dev/null || { echo "bench: $t not found" >&2; exit 1; }; done

if [ ! -f "$DATA/info" ] || [ "$(cat "$OUT/uftrace-big.n" 2>/dev/null)" != "$N" ]; then
  cat >"$OUT/fib.c" <<'C'
#include <stdlib.h>
#include <stdio.h>
static long fib(long n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(int argc, char **argv) { printf("%ld\n", fib(argc > 1 ? atol(argv[1]) : 30)); return 0; }
C
  gcc -pg -O0 -o "$OUT/fib" "$OUT/fib.c"
  rm -rf "$DATA"
  (cd "$OUT" && uftrace record --no-libcall -a --buffer=4M -d "$DATA" ./fib "$N" >/dev/null)
  echo "$N" >"$OUT/uftrace-big.n"
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

cpu () { # cpu CMD... : user+sys CPU seconds of one run (independent of machine load)
  /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1+$2}'
}

BYTES=$(cat "$DATA"/[0-9]*.dat | wc -c)
RECS=$("$TL" map -o json "$DATA" 2>/dev/null | tr -d ' \n' | grep -o '\["records","[0-9]*"\]' | head -1 | grep -o '[0-9][0-9]*' || true)
T_TL=$(secs 3 "$TL" check "$DATA")
T_CAT=$(secs 3 sh -c "cat '$DATA'/[0-9]*.dat")
T_DUMP=$(secs 1 timeout 600 uftrace dump --no-pager -d "$DATA")
C_TL=$(cpu "$TL" check "$DATA")
C_CAT=$(cpu sh -c "cat '$DATA'/[0-9]*.dat")
RSS=$(/usr/bin/time -v "$TL" check "$DATA" 2>&1 >/dev/null | awk -F: '/Maximum resident/ {gsub(/ /,"",$2); print $2}')
"$TL" check "$DATA" >/dev/null 2>&1 && VERDICT=clean || VERDICT="findings (exit $?)"

awk -v b="$BYTES" -v r="$RECS" -v tl="$T_TL" -v cat="$T_CAT" -v dump="$T_DUMP" -v rss="$RSS" -v v="$VERDICT" -v ctl="$C_TL" -v ccat="$C_CAT" 'BEGIN {
  printf "data: %d bytes of task data, %s records\n", b, r
  printf "tracelint check: %.3f s (%.0f MB/s), verdict: %s\n", tl, b/tl/1e6, v
  printf "uftrace dump:    %.3f s  -> tracelint is %.1fx faster\n", dump, dump/tl
  printf "cat *.dat:       %.3f s (%.0f MB/s) -> tracelint runs at %.2f of cat throughput\n", cat, b/cat/1e6, cat/tl
  printf "CPU time (user+sys): tracelint %.2f s, cat %.2f s -> %.2f of cat\n", ctl, ccat, (ctl > 0 ? ccat/ctl : 0)
  printf "tracelint peak RSS: %d KiB\n", rss
}'
