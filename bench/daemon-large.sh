#!/usr/bin/env bash
# Benchmark: the spool daemon on a trace.dat larger than max_read_bytes (1 GiB by default).
#
# Generates a valid v6 trace.dat of SIZE_GIB GiB (default 2) from corpus/tracecmd/v6.dat: its
# two CPUs' ring pages repeated, each copy's page timestamps moved on by 100 ms so that the
# data stays in order (bench/gen-large-tracedat.py). Then, in the same run and on the same
# file (in the page cache: it is read once before), best of RUNS (default 3):
#   - `tracelint check -o json FILE` (the file mapped, ring pages by positioned reads);
#   - `tracelint watch --once SPOOL` with FILE in SPOOL/new (read in windows, never mapped).
# Each measured with /usr/bin/time -v: wall time and peak RSS. Targets: the daemon accepts the
# file, its peak RSS is at most 64 MiB, its time at most 1.5× that of check. The same for a
# compressed v7 file (when trace-cmd is installed): SIZE_GIB GiB of ring data with random event
# payloads, converted with `trace-cmd convert --compression zstd`. Then once, the
# same trace as big.dat.lz4 in the spool (when lz4 is installed): unpacked to a spill file and
# read in windows.
# Inputs live under $WORK (default $TMPDIR/tracelint-daemon-large) and are deleted at the end.
# Results: bench/out/daemon-large-results.txt.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-${TMPDIR:-/tmp}/tracelint-daemon-large}
SIZE_GIB=${SIZE_GIB:-2}
RUNS=${RUNS:-3}
OUT=$ROOT/bench/out
mkdir -p "$OUT" "$WORK"
RES=$OUT/daemon-large-results.txt
for t in python3 /usr/bin/time; do command -v "$t" >/dev/null || { echo "bench: $t not found" >&2; exit 1; }; done
(cd "$ROOT" && cargo build --release --bin tracelint >/dev/null 2>&1) || { echo "bench: build failed" >&2; exit 1; }
TL=$ROOT/target/release/tracelint
trap 'rm -rf "$WORK"' EXIT
# No tracelint.toml of the project or the caller: default limits (max_read_bytes = 1 GiB).
: > "$WORK/tracelint.toml"
export TRACELINT_CONFIG=$WORK/tracelint.toml
: > "$RES"

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
min () { python3 -c "import sys; print(min(float(x) for x in sys.argv[1:]))" "$@"; }

note "# daemon on a large trace.dat, $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
SPOOL=$WORK/spool
mkdir -p "$SPOOL/new" "$SPOOL/tmp"
BIG=$WORK/big.dat
echo "generating a ${SIZE_GIB} GiB trace.dat ..." >&2
python3 "$ROOT/bench/gen-large-tracedat.py" "$ROOT/corpus/tracecmd/v6.dat" "$BIG" "$SIZE_GIB"
note "input: $(stat -c %s "$BIG") bytes (v6, 2 CPUs, 4 KiB pages)"
# compare FILE LABEL: best of RUNS, alternating, `check -o json FILE` and `watch --once` with
# FILE in the spool's new/ (moved back after each run); notes each run, the best times, the
# largest peak RSS and the ratio, each line prefixed with LABEL.
compare () {
  local file=$1 label=$2 name
  name=$(basename "$file")
  cat "$file" > /dev/null
  local cw=() cr=() dw=() dr=() i w r c verdict placed bc bd
  for i in $(seq "$RUNS"); do
    read -r w r c < <(measure "'$TL' check -o json '$file'")
    verdict=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['files'][0].get('verdict'))" "$WORK/out" 2>/dev/null || echo '?')
    note "run $i: ${label}check -o json: ${w}s, peak RSS ${r} KB, exit $c, verdict $verdict"
    cw+=("$w"); cr+=("$r")
    mv "$file" "$SPOOL/new/$name"
    read -r w r c < <(measure "cd '$WORK' && '$TL' watch --once '$SPOOL'")
    placed=$(cd "$SPOOL" && ls -d "accepted/$name" "rejected/$name" "quarantine/$name" 2>/dev/null | cut -d/ -f1 || true)
    note "run $i: ${label}watch --once: ${w}s, peak RSS ${r} KB, exit $c, verdict ${placed:-none}"
    dw+=("$w"); dr+=("$r")
    mv "$SPOOL/${placed:-accepted}/$name" "$file"
    rm -f "$SPOOL/${placed:-accepted}/$name.tracelint.json"
  done
  bc=$(min "${cw[@]}"); bd=$(min "${dw[@]}")
  note "${label}best check: ${bc}s, peak RSS $(printf '%s\n' "${cr[@]}" | sort -n | tail -1) KB (max of runs)"
  note "${label}best watch --once: ${bd}s, peak RSS $(printf '%s\n' "${dr[@]}" | sort -n | tail -1) KB (max of runs)"
  note "${label}watch / check time: $(python3 -c "print(f'{$bd/$bc:.2f}')")"
}
compare "$BIG" ""
# A compressed v7 file of the same size class: the events' payloads made random (so that the
# file stays large), converted with trace-cmd's zstd. Its chunk streams are found by their
# section and chunk headers and read from the file, never held.
if command -v trace-cmd >/dev/null; then
  python3 "$ROOT/bench/gen-large-tracedat.py" "$ROOT/corpus/tracecmd/v6.dat" "$WORK/rand6.dat" "$SIZE_GIB" --random-payload
  trace-cmd convert -i "$WORK/rand6.dat" -o "$WORK/big7.dat" --compression zstd >/dev/null 2>&1
  rm -f "$WORK/rand6.dat"
  note "input: $(stat -c %s "$WORK/big7.dat") bytes (v7 zstd, ${SIZE_GIB} GiB of ring data, trace-cmd $(trace-cmd -h 2>&1 | awk '/version/ {print $3; exit}'))"
  compare "$WORK/big7.dat" "v7 "
  rm -f "$WORK/big7.dat"
fi
# The same trace as an lz4 member: unpacked through a spill file in $TMPDIR, then read in windows.
if command -v lz4 >/dev/null; then
  lz4 -1 -q "$BIG" "$SPOOL/tmp/big.dat.lz4"
  note "big.dat.lz4: $(stat -c %s "$SPOOL/tmp/big.dat.lz4") bytes packed"
  mv "$SPOOL/tmp/big.dat.lz4" "$SPOOL/new/big.dat.lz4"
  read -r w r c < <(measure "cd '$WORK' && TMPDIR='$WORK' '$TL' watch --once '$SPOOL'")
  placed=$(cd "$SPOOL" && ls -d accepted/big.dat.lz4 rejected/big.dat.lz4 quarantine/big.dat.lz4 2>/dev/null | cut -d/ -f1 || true)
  note "watch --once, big.dat.lz4: ${w}s, peak RSS ${r} KB, exit $c, verdict ${placed:-none}"
fi
