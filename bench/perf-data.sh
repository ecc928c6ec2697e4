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
#              pipe.data     the same with `-o -` (pipe mode) written to a file, SIZE_MB MB.
#   measure  per input, on the page-cached file: `cat FILE >/dev/null`, `check -o json FILE`,
#            `check --no-mmap -o json FILE`, and the pipe-mode file on standard input (`check -o
#            json - < FILE`; the bytes tracelint writes to $TMPDIR are noted: "File system
#            outputs" of /usr/bin/time, 512-byte blocks), BASELINE_BINARY the same way if given;
#            then, for big.data, `perf report --stdio` and `perf script` once each (REFS=0
#            skips them, REFS=all runs them on every input: each takes minutes).
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

# best LABEL CMD: RUNS runs of the shell command CMD (stdout to /dev/null); notes the best wall
# time, the largest peak RSS, the largest bytes written to disk and the exit code; BEST is the
# best time.
best () {
  local label=$1 cmd=$2 w r c o bw= br=0 bc= bo=0
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f '%e %M %x %O' -o "$OUT/time" sh -c "$cmd > /dev/null 2>&1" || true
    # A command killed or failing has a line before the figures.
    read -r w r c o < <(tail -n 1 "$OUT/time")
    if [ -z "$bw" ] || python3 -c "import sys; sys.exit(0 if $w < $bw else 1)"; then bw=$w; bc=$c; fi
    [ "$r" -gt "$br" ] && br=$r
    [ "$o" -gt "$bo" ] && bo=$o
  done
  BEST=$bw
  note "  $label: ${bw}s, peak RSS $((br / 1024)) MiB ($br KB), $((bo / 2048)) MiB written, exit $bc"
}
ratio () { python3 -c "print(f'{$1/$2:.2f}')"; }
note () { echo "$*" | tee -a "$RES"; }

measure () {
  command -v perf > /dev/null || die "perf not found"
  (cd "$ROOT" && nice -n 5 cargo build --release --quiet --bin tracelint) || die "build failed"
  local TL=$ROOT/target/release/tracelint f file
  : > "$OUT/tracelint.toml"
  export TRACELINT_CONFIG=$OUT/tracelint.toml
  : > "$RES"
  note "# perf.data bench, $(date -u +%FT%TZ), $(nproc) cores, $(free -g | awk '/Mem/ {print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg)"
  for f in big.data big-z.data pipe.data; do
    file=$OUT/$f
    [ -s "$file" ] || { note "$f: missing (run gen)"; continue; }
    cat "$file" > /dev/null
    note "$f: $(stat -c %s "$file") bytes, $(head -c 16 "$file" | od -An -tu8 | awk '{print ($2 == 16) ? "pipe mode" : "file mode"}')"
    best "cat" "cat '$file'"; local CAT=$BEST
    best "check -o json" "'$TL' check -o json '$file'"
    note "    speed vs cat: $(ratio "$CAT" "$BEST")x"
    best "check --no-mmap -o json" "'$TL' check --no-mmap -o json '$file'"
    note "    speed vs cat: $(ratio "$CAT" "$BEST")x"
    case $f in pipe.data)
      best "check -o json - < FILE" "'$TL' check -o json - < '$file'"
      note "    speed vs cat: $(ratio "$CAT" "$BEST")x" ;;
    esac
    if [ -n "$BASE" ]; then
      best "baseline check -o json" "'$BASE' check -o json '$file'"
      note "    baseline speed vs cat: $(ratio "$CAT" "$BEST")x"
      case $f in pipe.data)
        best "baseline check -o json - < FILE" "'$BASE' check -o json - < '$file'"
        note "    baseline speed vs cat: $(ratio "$CAT" "$BEST")x" ;;
      esac
    fi
    "$TL" check -o json "$file" | python3 -c "import json,sys; d=json.load(sys.stdin)['files'][0]; print('    verdict', d['verdict'], 'findings', [x['code'] for x in d['findings']])" | tee -a "$RES"
    if [ "${REFS:-1}" = all ] || { [ "${REFS:-1}" = 1 ] && [ "$f" = big.data ]; }; then
      local TLB=$BEST
      best "check -o json (again, before the references)" "'$TL' check -o json '$file'"; TLB=$BEST
      local R=$RUNS; RUNS=1
      # perf report builds its call graphs in memory (22 GB for the 1.1 GB recording, killed by
      # the OOM killer after 6 minutes on a 24 GiB machine): capped at MEM_KB of address space,
      # and without call graphs (-g none) as well.
      best "perf report --stdio (ulimit -v ${MEM_KB:-8000000})" "ulimit -v ${MEM_KB:-8000000}; perf report --stdio -i '$file'"
      note "    perf report / check: $(ratio "$BEST" "$TLB")x the time"
      best "perf report --stdio -g none" "ulimit -v ${MEM_KB:-8000000}; perf report --stdio -g none -i '$file'"
      note "    perf report -g none / check: $(ratio "$BEST" "$TLB")x the time"
      best "perf script" "perf script -i '$file'"
      note "    perf script / check: $(ratio "$BEST" "$TLB")x the time"
      RUNS=$R
    fi
  done
  note "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
}

clean () { rm -f "$OUT"/*.data "$OUT"/*.data.log "$OUT"/*.data.old "$OUT/time" "$OUT/tracelint.toml"; }

case $MODE in
  gen) gen ;;
  measure) measure ;;
  clean) clean ;;
  all) gen; measure; clean ;;
  *) die "unknown mode $MODE" ;;
esac
