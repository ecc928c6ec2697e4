#!/usr/bin/env bash
# Many small files: `tracelint check DIR` in several output forms and the spool daemon
# (`watch --once`) on N small traces (GDB tfile, trace.dat v7 zstd and ktrace v2 from
# corpus/, copied in turn under new names; generated under $TMPDIR, never committed), in one
# run against `cat DIR/* >/dev/null`. Files/s, CPU time per file and peak RSS
# (/usr/bin/time -v); check's peak RSS at SMALL and at N files shows whether memory grows with
# the number of inputs.
#
#   bench/many-files.sh                        # N=20000, SMALL=2000, release build
#   BEFORE=/path/to/old/tracelint bench/many-files.sh   # the same rows for another build
#   RECORD=1 bench/many-files.sh               # also append the table to bench/RESULTS-many.md
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-20000}
SMALL=${SMALL:-2000}
JOBS=${JOBS:-$(nproc)}
MODES=${MODES:-"json human sarif jsonl github gitlab junit"}
SAMPLES="corpus/gdb/empty.tf corpus/tracecmd/clock-boot-v7-zstd.dat corpus/ktrace/v2.raw"

[ "${BUILD:-1}" = 0 ] || cargo build -q --release --bin tracelint
BIN=$PWD/target/release/tracelint

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tracelint-many.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
RES=$WORK/results
: > "$RES"
. bench/lib.sh

# gen DIR COUNT: COUNT files, the samples in turn, each under its own name.
gen () {
  python3 - "$1" "$2" $SAMPLES <<'EOF'
import os, sys
out, count, samples = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
os.makedirs(out, exist_ok=True)
data = [(open(s, 'rb').read(), os.path.splitext(s)[1]) for s in samples]
for i in range(count):
    b, ext = data[i % len(data)]
    with open(os.path.join(out, f'f{i:06d}{ext}'), 'wb') as f:
        f.write(b)
EOF
}
gen "$WORK/small" "$SMALL"
gen "$WORK/many" "$N"
cat "$WORK/many"/* "$WORK/small"/* > /dev/null   # page cache warm for every row

# cpu: user+sys seconds of the last `measure`.
cpu () {
  awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.2f", u+s}' "$WORK/time"
}

# row LABEL FILES COMMAND: one table row (files/s, CPU ms per file, peak RSS).
row () {
  local label=$1 files=$2 wall rss code c
  read -r wall rss code < <(measure "$3")
  c=$(cpu)
  note "| $label | $files | $wall | $(awk -v n="$files" -v w="$wall" 'BEGIN {printf "%.0f", n/w}') | $(awk -v n="$files" -v c="$c" 'BEGIN {printf "%.3f", c*1000/n}') | $(awk -v r="$rss" 'BEGIN {printf "%.1f", r/1024}') | $code |"
}

# daemon LABEL BIN [options]: `watch --once` over a spool whose new/ holds the N files (hard
# links to the generated ones), every input placed. Each run gets a spool of its own, removed
# only at the end: ext4 looks past recently freed inodes when it allocates one, so removing
# the last run's 40,000 entries just before would slow this run's report files down.
SPOOLS=0
daemon () {
  local label=$1 bin=$2 spool placed
  shift 2
  SPOOLS=$((SPOOLS + 1))
  spool=$WORK/spool$SPOOLS
  mkdir -p "$spool/new"
  cp -al "$WORK/many/." "$spool/new/"
  row "$label" "$N" "TRACELINT_LOG=warn $bin watch $spool --once --jobs $JOBS --log $WORK/watch.log $*"
  placed=$(find "$spool/accepted" "$spool/rejected" "$spool/quarantine" -type f ! -name '*.tracelint.json' | wc -l)
  [ "$placed" = "$N" ] || { echo "daemon placed $placed of $N inputs" >&2; exit 1; }
}

# runs BIN TAG: every row for one build.
runs () {
  local bin=$1 tag=$2
  for m in $MODES; do
    row "$tag check -o $m, $SMALL files" "$SMALL" "$bin check -j $JOBS -o $m $WORK/small"
    row "$tag check -o $m" "$N" "$bin check -j $JOBS -o $m $WORK/many"
  done
  daemon "$tag watch --once" "$bin"
  daemon "$tag watch --once --no-fsync" "$bin" --no-fsync
}

note "| run | files | wall s | files/s | CPU ms/file | peak RSS MiB | exit |"
note "|---|---:|---:|---:|---:|---:|---:|"
row "cat DIR/* >/dev/null" "$N" "cat $WORK/many/* >/dev/null"
[ -z "${BEFORE:-}" ] || runs "$BEFORE" before
runs "$BIN" after
row "cat DIR/* >/dev/null (again)" "$N" "cat $WORK/many/* >/dev/null"
note ""
note "load average after the run: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)); spool and files on $(df -T "$WORK" | awk 'NR==2 {print $2}')"

if [ "${RECORD:-0}" = 1 ]; then
  {
    echo
    echo "### $(date -u +%Y-%m-%dT%H:%MZ) — N=$N (SMALL=$SMALL), --jobs $JOBS, $(git rev-parse --short HEAD)"
    echo
    cat "$RES"
  } >> bench/RESULTS-many.md
fi
