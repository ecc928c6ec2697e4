#!/usr/bin/env bash
# Two builds of tracelint on the same large inputs, in one run: for a change that must not
# change speed or memory (a refactoring), the figures of the new build against the old one's.
#
# Usage: bench/before-after.sh BEFORE AFTER    (two tracelint binaries)
#
# Inputs (generated under bench/out/before-after/, never committed):
#   trace.dat v6, 1 GiB of ring data   bench/gen-large-tracedat.py from corpus/tracecmd/v6.dat
#   trace.dat v7 zstd of it            trace-cmd convert (when trace-cmd is installed)
#   GDB tfile, 100 MB                  examples/gen_tfile.rs
#   ktrace V3, 512 MiB                 examples/gen_ktrace.rs
#   uftrace recording, fib(30) -a      uftrace record (when gcc and uftrace are installed)
# Each input is checked `-o json` by BEFORE and AFTER in turn, 3 rounds; the best wall time and
# the peak RSS (/usr/bin/time -v) of each are printed with the ratio AFTER / BEFORE, and kept in
# bench/out/before-after-results.txt.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BEFORE=$(realpath "${1:?usage: before-after.sh BEFORE AFTER}")
AFTER=$(realpath "${2:?usage: before-after.sh BEFORE AFTER}")
OUT=$ROOT/bench/out
WORK=$OUT/before-after
RES=$OUT/before-after-results.txt
mkdir -p "$WORK"
for t in python3 /usr/bin/time; do command -v "$t" >/dev/null || { echo "bench: $t not found" >&2; exit 1; }; done
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
: > "$RES"
: > "$WORK/tracelint.toml"
export TRACELINT_CONFIG=$WORK/tracelint.toml

(cd "$ROOT" && cargo build --release --quiet --example gen_tfile --example gen_ktrace)
inputs=()
[ -f "$WORK/big-v6.dat" ] || python3 "$ROOT/bench/gen-large-tracedat.py" "$ROOT/corpus/tracecmd/v6.dat" "$WORK/big-v6.dat" 1 >/dev/null
inputs+=("$WORK/big-v6.dat")
if command -v trace-cmd >/dev/null; then
  [ -f "$WORK/big-v7-zstd.dat" ] || trace-cmd convert -i "$WORK/big-v6.dat" -o "$WORK/big-v7-zstd.dat" --file-version 7 --compression zstd >/dev/null 2>&1
  inputs+=("$WORK/big-v7-zstd.dat")
fi
[ -f "$WORK/big.tf" ] || "$ROOT/target/release/examples/gen_tfile" "$WORK/big.tf" 100 >/dev/null
inputs+=("$WORK/big.tf")
[ -f "$WORK/big.ktrace" ] || "$ROOT/target/release/examples/gen_ktrace" big "$WORK/big.ktrace" 512 >/dev/null
inputs+=("$WORK/big.ktrace")
if command -v uftrace >/dev/null && command -v gcc >/dev/null; then
  if [ ! -f "$WORK/uftrace-fib/info" ]; then
    printf '%s\n' '#include <stdlib.h>' '#include <stdio.h>' \
      'static long fib(long n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }' \
      'int main(int argc, char **argv) { printf("%ld\n", fib(argc > 1 ? atol(argv[1]) : 30)); return 0; }' > "$WORK/fib.c"
    gcc -pg -O0 -o "$WORK/fib" "$WORK/fib.c"
    (cd "$WORK" && uftrace record --no-libcall -a --buffer=4M -d "$WORK/uftrace-fib" ./fib 30 >/dev/null)
  fi
  inputs+=("$WORK/uftrace-fib")
fi

note "# before/after, $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
note "# BEFORE $BEFORE ($("$BEFORE" --version)), AFTER $AFTER ($("$AFTER" --version))"
note "| input | size | before s | after s | after/before | before RSS MiB | after RSS MiB | verdicts equal |"
note "|---|---|---|---|---|---|---|---|"
for f in "${inputs[@]}"; do
  size=$(du -sh --apparent-size "$f" | cut -f1)
  best_b=999999; best_a=999999; rss_b=0; rss_a=0
  for _ in 1 2 3; do
    read -r w r _ < <(measure "'$BEFORE' check -o json '$f'")
    cp "$WORK/out" "$WORK/out-before"
    best_b=$(python3 -c "print(min($best_b, $w))"); rss_b=$(( r > rss_b ? r : rss_b ))
    read -r w r _ < <(measure "'$AFTER' check -o json '$f'")
    best_a=$(python3 -c "print(min($best_a, $w))"); rss_a=$(( r > rss_a ? r : rss_a ))
  done
  same=no
  strip='s/"(elapsed|elapsed_ms|duration_ms|time_ms|ms|seconds)": ?[0-9.]+/"\1":0/g'
  cmp -s <(sed -E "$strip" "$WORK/out-before") <(sed -E "$strip" "$WORK/out") && same=yes
  note "| $(basename "$f") | $size | $best_b | $best_a | $(python3 -c "print(f'{$best_a / max($best_b, 0.001):.2f}')") | $(python3 -c "print(f'{$rss_b / 1024:.1f}')") | $(python3 -c "print(f'{$rss_a / 1024:.1f}')") | $same |"
done
