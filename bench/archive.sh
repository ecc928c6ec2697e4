#!/usr/bin/env bash
# Benchmark: checking traces as they are shipped (compressed, archived) against decompressing
# them alone, in the same run.
#
# Inputs (bench/out/, never committed):
#   big-v7-none.dat      a ~300 MB trace.dat (make it with: PER_CPU_KB=150000 bench/tracecmd.sh gen)
#   uftrace-big/         a large uftrace recording (made by bench/uftrace.sh)
# from which this script makes big.dat.gz (gzip -6), big.dat.zst (zstd -3) and
# uftrace-big.tar.zst (tar | zstd -3).
# For each it reports the best of 3 wall times of
#   tracelint check FILE             (target/release/tracelint)
#   gzip -dc FILE / zstd -dc FILE    (stdout to /dev/null): the baseline
# their ratio, and tracelint's peak RSS (/usr/bin/time -v). Results: bench/out/archive-results.txt.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/bench/out
DAT=$OUT/big-v7-none.dat
UFT=$OUT/uftrace-big
for t in gzip zstd tar bc /usr/bin/time; do command -v "$t" >/dev/null || { echo "bench: $t not found" >&2; exit 1; }; done
[ -s "$DAT" ] || { echo "bench: missing $DAT; run: PER_CPU_KB=150000 bench/tracecmd.sh gen" >&2; exit 1; }
[ -f "$UFT/info" ] || { echo "bench: missing $UFT; run bench/uftrace.sh" >&2; exit 1; }
[ -s "$OUT/big.dat.gz" ] || gzip -6 -c "$DAT" > "$OUT/big.dat.gz"
[ -s "$OUT/big.dat.zst" ] || zstd -q -3 -f "$DAT" -o "$OUT/big.dat.zst"
[ -s "$OUT/uftrace-big.tar.zst" ] || tar -C "$OUT" -cf - uftrace-big | zstd -q -3 > "$OUT/uftrace-big.tar.zst"
(cd "$ROOT" && cargo build --release --bin tracelint >/dev/null 2>&1) || { echo "bench: build failed" >&2; exit 1; }
TL=$ROOT/target/release/tracelint

secs () {
  local s e
  s=$(date +%s.%N)
  "$@" > /dev/null 2>&1 || true
  e=$(date +%s.%N)
  echo "$e - $s" | bc -l
}
best () {
  local n=$1 b= t; shift
  for _ in $(seq "$n"); do
    t=$(secs "$@")
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
  done
  echo "$b"
}
{
  echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
  for spec in "big.dat.gz:gzip" "big.dat.zst:zstd" "uftrace-big.tar.zst:zstd"; do
    f=$OUT/${spec%%:*}; dec=${spec##*:}
    cat "$f" > /dev/null
    unpacked=$($dec -dc "$f" | wc -c)
    tdec=$(best 3 "$dec" -dc "$f")
    ttl=$(best 3 "$TL" check "$f")
    rss=$( { /usr/bin/time -v "$TL" check "$f" > /dev/null; } 2>&1 | awk -F': ' '/Maximum resident/{print $2}')
    verdict=$("$TL" check "$f" 2>&1 | tail -1)
    echo "$(basename "$f") packed=$(stat -c %s "$f") unpacked=$unpacked $dec-dc=${tdec}s tracelint=${ttl}s ratio=$(echo "$ttl / $tdec" | bc -l | cut -c1-5) maxrss_kb=$rss  [$verdict]"
  done
} | tee "$OUT/archive-results.txt"
