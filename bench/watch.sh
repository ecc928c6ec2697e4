#!/usr/bin/env bash
# Spool daemon benchmark: throughput (files/s) and verdict latency (rename into new/ →
# verdict line in the event log, written after the report and the input are in place).
#
#   bench/watch.sh                 # N=5000 small valid GDB tfiles, release build
#   N=20000 SAMPLE=corpus/gdb/regs.tf JOBS=2 bench/watch.sh
#
# Prints a Markdown table (also appended to bench/RESULTS-watch.md with RECORD=1).
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-5000}
PROFILE=${PROFILE:-release}
SAMPLE=${SAMPLE:-corpus/gdb/empty.tf}
JOBS=${JOBS:-$(nproc)}
RATES=${RATES:-"0 1000 2000"}

cargo build -q --profile "$PROFILE" --bin tracelint --example watch_bench
dir=target/$PROFILE
[ "$PROFILE" = dev ] && dir=target/debug
BIN=$dir/tracelint
BENCH=$dir/examples/watch_bench

work=$(mktemp -d "${TMPDIR:-/tmp}/tracelint-watch-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# run LABEL RATE [daemon options...]
run() {
    local label=$1 rate=$2
    shift 2
    local spool=$work/$label log=$work/$label.jsonl err=$work/$label.stderr
    mkdir -p "$spool"
    TRACELINT_LOG=warn "$BIN" watch "$spool" --jobs "$JOBS" --log "$log" "$@" 2>"$err" &
    local pid=$!
    for _ in $(seq 100); do [ -d "$spool/new" ] && break; sleep 0.05; done
    sleep 0.3
    CLK_TCK=$(getconf CLK_TCK) "$BENCH" "$spool" "$log" "$SAMPLE" "$N" "$rate" "$label" "$pid" || { cat "$err" >&2; kill "$pid"; return 1; }
    kill -TERM "$pid"
    wait "$pid"
}

header="| run | files | offered | produce s | total s | files/s | p50 ms | p99 ms | max ms | daemon CPU ms/file | verdicts |
|-----|------:|--------:|----------:|--------:|--------:|-------:|-------:|-------:|-------------------:|----------|"
out=$(
    echo "$header"
    for r in $RATES; do run "fsync-r$r" "$r"; done
    run "nofsync-burst" 0 --no-fsync
)
echo "$out"
if [ "${RECORD:-0}" = 1 ]; then
    {
        echo
        echo "### $(date -u +%Y-%m-%dT%H:%MZ) — N=$N, sample $(basename "$SAMPLE") ($(stat -c %s "$SAMPLE") bytes), --jobs $JOBS, profile $PROFILE"
        echo
        echo "Machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), spool on $(df -T "$work" | awk 'NR==2 {print $2}')"
        echo
        echo "$out"
    } >> bench/RESULTS-watch.md
fi
