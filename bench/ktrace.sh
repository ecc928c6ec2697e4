#!/usr/bin/env bash
# Benchmark: check a ~1 GiB kernel-style V3 ktrace file (16.7 M events in 8192-event chunks,
# 8 CPUs, 256 threads) and compare with `cat FILE >/dev/null` on the same, page-cached file.
# Prints elapsed and CPU times, peak RSS (/usr/bin/time -v) and the throughput ratio.
# Usage: bench/ktrace.sh [MIB]     (default 1024; files go to bench/out/, which is gitignored)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
MIB=${1:-1024}
OUT=$ROOT/bench/out
F=$OUT/ktrace-${MIB}m.ktrace
RUNS=${RUNS:-3}
mkdir -p "$OUT"
cd "$ROOT"
[ "${BUILD:-1}" = 0 ] || cargo build --quiet --release --bin tracelint --example gen_ktrace
BIN=$ROOT/target/release/tracelint
[ -f "$F" ] || "$ROOT/target/release/examples/gen_ktrace" big "$F" "$MIB"
SIZE=$(stat -c %s "$F")
cat "$F" >/dev/null   # warm the page cache

# best-of-N elapsed seconds, and the peak RSS / CPU time of that run
measure() {
  local best="" rss="" cpu=""
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -v -o "$OUT/time.txt" "$@" >/dev/null 2>&1 || true
    local wall user sys m s
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$OUT/time.txt")
    m=${wall%%:*}; s=${wall#*:}
    wall=$(echo "$m*60+$s" | bc -l)
    user=$(sed -n 's/.*User time (seconds): //p' "$OUT/time.txt")
    sys=$(sed -n 's/.*System time (seconds): //p' "$OUT/time.txt")
    if [ -z "$best" ] || [ "$(echo "$wall < $best" | bc -l)" = 1 ]; then
      best=$wall
      rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$OUT/time.txt")
      cpu=$(echo "$user+$sys" | bc -l)
    fi
  done
  echo "$best $rss $cpu"
}

read -r CAT_S CAT_RSS CAT_CPU < <(measure cat "$F")
read -r TL_S TL_RSS TL_CPU < <(measure "$BIN" check -o json "$F")
RC=0; "$BIN" check -q "$F" >/dev/null 2>&1 || RC=$?
MBS() { echo "scale=0; $SIZE/1048576/$1" | bc -l; }
echo "file: $F ($SIZE bytes)"
echo "cat:       $CAT_S s elapsed, $CAT_CPU s CPU, $(MBS "$CAT_S") MiB/s, peak RSS $CAT_RSS KiB"
echo "tracelint: $TL_S s elapsed, $TL_CPU s CPU, $(MBS "$TL_S") MiB/s, peak RSS $TL_RSS KiB, exit $RC"
echo "throughput ratio tracelint/cat (elapsed): $(echo "scale=2; $CAT_S/$TL_S" | bc -l)"
echo "throughput ratio tracelint/cat (CPU time): $(echo "scale=2; $CAT_CPU/$TL_CPU" | bc -l)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)  cpus: $(nproc)"
