#!/usr/bin/env bash
# Benchmark: inputs whose bulk is walked in windows or judged without being held: GDB tfiles
# with a 900 MiB tail (zeros, garbage, or 900 MB of valid frames), a ktrace V3 file followed by
# zeros to 256 MiB, and a tfile and a trace.dat shipped compressed (.zst, .gz).
#
# Usage: bench/windows.sh [BASELINE_BINARY]
#   BASELINE_BINARY (optional): another tracelint build (say, of main before a change), measured
#   in the same run on the same files.
# Inputs are generated into $WORK (default bench/out/windows, never committed) and kept for
# the next run (WORK=... to move them; CLEAN=1 deletes them at the end). Each command is run
# RUNS times (default 3) on the page-cached file; the best wall time and the largest peak RSS
# (/usr/bin/time -v) are noted. Baselines, in the same run: `cat FILE >/dev/null` for a plain
# file, `zstd -dc` / `gzip -dc` for a compressed one. For the tfiles, `watch --once` (the
# daemon: never maps, reads in windows) is measured too, with the file in a spool's new/.
# REAL=FILE adds a recorded trace.dat, compressed the same way. Results: $WORK/results.txt.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-$ROOT/bench/out/windows}
RUNS=${RUNS:-3}
BASE=${1:-}
mkdir -p "$WORK"
RES=$WORK/results.txt
for t in zstd gzip python3 /usr/bin/time; do command -v "$t" >/dev/null || { echo "bench: $t not found" >&2; exit 1; }; done
(cd "$ROOT" && cargo build --release --quiet --bin tracelint --example gen_tfile --example gen_ktrace) || { echo "bench: build failed" >&2; exit 1; }
TL=$ROOT/target/release/tracelint
GEN=$ROOT/target/release/examples
: > "$RES"
[ "${CLEAN:-0}" = 1 ] && trap 'rm -rf "$WORK"' EXIT
# No project or user configuration: default limits.
: > "$WORK/tracelint.toml"
export TRACELINT_CONFIG=$WORK/tracelint.toml
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

MIB=$((1 << 20))
# pad FILE SIZE SOURCE: appends bytes of SOURCE (/dev/zero, /dev/urandom) until FILE has SIZE bytes.
pad () { head -c $(($2 - $(stat -c %s "$1"))) "$3" >> "$1"; }
gen () {
  local f=$WORK/$1
  [ -s "$f" ] && return
  echo "generating $1 ..." >&2
  case $1 in
    tf-small.tf) "$GEN/gen_tfile" "$f" 1 >/dev/null ;;
    tf-zeros.tf) gen tf-small.tf; cp "$WORK/tf-small.tf" "$f"; pad "$f" $((900 * MIB)) /dev/zero ;;
    tf-garbage.tf) gen tf-small.tf; cp "$WORK/tf-small.tf" "$f"; pad "$f" $((900 * MIB)) /dev/urandom ;;
    tf-frames.tf) "$GEN/gen_tfile" "$f" 900 >/dev/null ;;
    kt-zeros.ktrace) "$GEN/gen_ktrace" big "$f" 1 >/dev/null; pad "$f" $((256 * MIB)) /dev/zero ;;
    tf-100.tf) "$GEN/gen_tfile" "$f" 100 >/dev/null ;;
    tf-100.tf.zst) gen tf-100.tf; zstd -q -3 -f "$WORK/tf-100.tf" -o "$f" ;;
    tf-100.tf.gz) gen tf-100.tf; gzip -6 -c "$WORK/tf-100.tf" > "$f" ;;
    big.dat) python3 "$ROOT/bench/gen-large-tracedat.py" "$ROOT/corpus/tracecmd/v6.dat" "$f" 0.8 ;;
    big.dat.zst) gen big.dat; zstd -q -3 -f "$WORK/big.dat" -o "$f" ;;
    big.dat.gz) gen big.dat; gzip -6 -c "$WORK/big.dat" > "$f" ;;
  esac
}

# best LABEL CMD: RUNS runs of the shell command CMD; notes the best wall time, the largest
# peak RSS and the exit code, and sets BEST to the best time.
best () {
  local label=$1 cmd=$2 w r c bw= br=0 bc=
  for _ in $(seq "$RUNS"); do
    read -r w r c < <(measure "$cmd")
    if [ -z "$bw" ] || python3 -c "import sys; sys.exit(0 if $w < $bw else 1)"; then bw=$w; bc=$c; fi
    [ "$r" -gt "$br" ] && br=$r
  done
  BEST=$bw
  note "  $label: ${bw}s, peak RSS $((br / 1024)) MiB ($br KB), exit $bc"
}

# daemon LABEL BIN FILE: `watch --once` on a spool holding FILE in new/ (moved back after).
daemon () {
  local label=$1 bin=$2 file=$3 name spool=$WORK/spool placed
  name=$(basename "$file")
  rm -rf "$spool"; mkdir -p "$spool/new" "$spool/tmp"
  local w r c bw= br=0 bc=
  for _ in $(seq "$RUNS"); do
    mv "$file" "$spool/new/$name"
    read -r w r c < <(measure "cd '$WORK' && '$bin' watch --once '$spool'")
    placed=$(cd "$spool" && ls -d "accepted/$name" "rejected/$name" "quarantine/$name" 2>/dev/null | cut -d/ -f1 || true)
    mv "$spool/${placed:-new}/$name" "$file"
    # The verdict's report goes too: the next run's would be renamed beside it.
    rm -f "$spool"/*/"$name".tracelint.json
    if [ -z "$bw" ] || python3 -c "import sys; sys.exit(0 if $w < $bw else 1)"; then bw=$w; bc=$c; fi
    [ "$r" -gt "$br" ] && br=$r
  done
  rm -rf "$spool"
  note "  $label: ${bw}s, peak RSS $((br / 1024)) MiB ($br KB), exit $bc, verdict ${placed:-none}"
}

ratio () { python3 -c "print(f'{$1/$2:.2f}')"; }

note "# windows bench, $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for f in tf-zeros.tf tf-garbage.tf tf-frames.tf kt-zeros.ktrace; do
  gen "$f"
  file=$WORK/$f
  cat "$file" > /dev/null
  note "$f: $(stat -c %s "$file") bytes"
  best "cat" "cat '$file'"; CAT=$BEST
  if [ -n "$BASE" ]; then
    best "baseline check -o json" "'$BASE' check -o json '$file'"
    note "    baseline / cat: $(ratio "$BEST" "$CAT")"
  fi
  best "check -o json" "'$TL' check -o json '$file'"
  note "    check / cat: $(ratio "$BEST" "$CAT")"
  best "check --no-mmap -o json" "'$TL' check --no-mmap -o json '$file'"
  note "    check --no-mmap / cat: $(ratio "$BEST" "$CAT")"
  case $f in
    *.tf)
      [ -n "$BASE" ] && daemon "baseline watch --once" "$BASE" "$file"
      daemon "watch --once" "$TL" "$file" ;;
  esac
done
# REAL=FILE: a recorded trace.dat too (its metadata is real: kallsyms, printk formats), shipped
# as .zst and .gz.
packed=(tf-100.tf.zst tf-100.tf.gz big.dat.zst big.dat.gz)
if [ -n "${REAL:-}" ]; then
  [ -s "$WORK/real.dat.zst" ] || zstd -q -3 -f "$REAL" -o "$WORK/real.dat.zst"
  [ -s "$WORK/real.dat.gz" ] || gzip -6 -c "$REAL" > "$WORK/real.dat.gz"
  packed+=(real.dat.zst real.dat.gz)
fi
for f in "${packed[@]}"; do
  gen "$f"
  file=$WORK/$f
  dec=zstd; case $f in *.gz) dec=gzip ;; esac
  cat "$file" > /dev/null
  note "$f: $(stat -c %s "$file") bytes packed, $($dec -dc "$file" | wc -c) unpacked"
  best "$dec -dc" "$dec -dc '$file'"; DEC=$BEST
  if [ -n "$BASE" ]; then
    best "baseline check -o json" "'$BASE' check -o json '$file'"
    note "    baseline / $dec: $(ratio "$BEST" "$DEC")"
  fi
  best "check -o json" "'$TL' check -o json '$file'"
  note "    check / $dec: $(ratio "$BEST" "$DEC")"
done
note "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
