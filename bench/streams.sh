#!/usr/bin/env bash
# trace.dat read as a file, from standard input and inside .zst, against `cat` and `zstd -dc` in
# the same run: time (best of N), peak RSS and the bytes written to $TMPDIR (/usr/bin/time's
# "File system outputs", 512-byte blocks; nothing else writes there).
#
# Usage: bench/streams.sh [gen|measure|all]   (default: all)
#   gen      a real recording (root, tracefs, trace-cmd): buffer_size_kb 400000, sched and
#            syscalls events, a file-system walk for 25 s, `trace-cmd extract --compression
#            none`, its v6 conversion and a zstd copy; and a generated 3.2 GiB v6 file
#            (bench/gen-large-tracedat.py). Tracing state is restored on exit. Two uftrace
#            recordings of fib(32) (`-pg`): plain, and with `-a` (every call has arguments),
#            each as a directory and as a tar.zst.
#   measure  times every input in every mode; results in bench/out/streams-results.txt.
# Files live in bench/out/ (gitignored). RUNS sets N (default 3).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
OUT=$ROOT/bench/out
mkdir -p "$OUT"
REAL7=$OUT/real-v7.dat
REAL6=$OUT/real-v6.dat
GEN6=$OUT/gen-v6.dat
UF=$OUT/uftrace
RUNS=${RUNS:-3}
MODE=${1:-all}

die () { echo "streams.sh: $*" >&2; exit 1; }
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

gen () {
  tracefs_session 400000
  echo 1 > "$T/events/sched/enable"
  echo 1 > "$T/events/syscalls/enable"
  echo 1 > "$T/tracing_on"
  timeout 25 bash -c 'while :; do find / -xdev -maxdepth 6 > /dev/null 2>&1; done' || true
  echo 0 > "$T/tracing_on"
  rm -f "$REAL7" "$REAL6" "$REAL7.zst" "$GEN6"
  trace-cmd extract --compression none -o "$REAL7" > /dev/null 2>&1 || die "extract failed"
  trace-cmd convert --file-version 6 --compression none -i "$REAL7" -o "$REAL6" > /dev/null 2>&1 \
    || die "convert to v6 failed"
  zstd -q -T0 -3 "$REAL7" -o "$REAL7.zst" || die "zstd failed"
  python3 "$HERE/gen-large-tracedat.py" "$ROOT/corpus/tracecmd/v6.dat" "$GEN6" 3.2 || die "gen failed"
  zstd -q -T0 -3 "$GEN6" -o "$GEN6.zst" || die "zstd failed"
  command -v uftrace > /dev/null || die "uftrace not found"
  rm -rf "$UF" && mkdir -p "$UF"
  printf '%s\n' '#include <stdlib.h>' \
    'int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }' \
    'int main(int c, char **v) { return fib(c > 1 ? atoi(v[1]) : 32) & 1; }' > "$UF/fib.c"
  gcc -pg -g -O0 "$UF/fib.c" -o "$UF/fib" || die "gcc failed"
  (cd "$UF" && uftrace record -d plain ./fib 32 && uftrace record -a -d args ./fib 30) \
    > /dev/null 2>&1 || die "uftrace record failed"
  for d in plain args; do tar -C "$UF/$d" -cf - . | zstd -q -T0 -3 > "$UF/$d.tar.zst"; done
  ls -l "$REAL7" "$REAL6" "$REAL7.zst" "$GEN6" "$GEN6.zst"
}

# run CMD -> "wall_s rss_kb written_bytes" of one run (output discarded)
run () {
  local t
  t=$(mktemp)
  /usr/bin/time -f "%e %M %O" -o "$t" sh -c "$1" > /dev/null 2>&1
  awk '{ printf "%s %s %d\n", $1, $2, $3 * 512 }' "$t"
  rm -f "$t"
}

# best CMD -> the run with the least wall time of $RUNS
best () {
  local b="" r
  for _ in $(seq "$RUNS"); do
    r=$(run "$1")
    if [ -z "$b" ] || [ "$(echo "${r%% *} < ${b%% *}" | bc -l)" = 1 ]; then b=$r; fi
  done
  echo "$b"
}

# row INPUT MODE BASELINE_NAME "BASELINE_RUN" CMD -> one line of the results: CMD's best run
# against the baseline's
row () {
  local bt t rss w
  bt=${4%% *}
  read -r t rss w < <(best "$5")
  echo "$1 | $2 | $3 $bt | $t | $(echo "$t / $bt" | bc -l | cut -c1-5) | $(echo "$bt / $t" | bc -l | cut -c1-5) | $rss | $w"
}

measure () {
  for f in "$REAL7" "$REAL6" "$REAL7.zst" "$GEN6" "$GEN6.zst" "$UF/plain.tar.zst" "$UF/args.tar.zst"; do
    [ -s "$f" ] || die "missing $f: run '$0 gen' first"
  done
  (cd "$ROOT" && cargo build --release --bin tracelint > /dev/null 2>&1) || die "build failed"
  TL=$ROOT/target/release/tracelint
  R=$OUT/streams-results.txt
  {
    echo "# $(date -u +%FT%TZ) $(uname -r) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); best of $RUNS"
    echo "# input | mode | baseline s | tracelint s | tracelint/baseline time | baseline/tracelint speed | tracelint peak RSS KB | bytes written"
    for f in "$REAL7" "$REAL6" "$GEN6"; do
      cat "$f" > /dev/null
      base=$(best "cat '$f'")
      row "$(basename "$f")" file "cat" "$base" "'$TL' check -o json '$f'"
      row "$(basename "$f")" stdin "cat" "$base" "'$TL' check -o json - < '$f'"
      row "$(basename "$f")" pipe "cat" "$base" "cat '$f' | '$TL' check -o json -"
      # The same bytes through a pipe to a reader that does nothing with them: what a pipe
      # costs on this machine.
      pbase=$(best "cat '$f' | cat")
      row "$(basename "$f")" pipe "cat | cat" "$pbase" "cat '$f' | '$TL' check -o json -"
    done
    for f in "$REAL7.zst" "$GEN6.zst"; do
      cat "$f" > /dev/null
      base=$(best "zstd -dc '$f'")
      row "$(basename "$f")" file "zstd -dc" "$base" "'$TL' check -o json '$f'"
      row "$(basename "$f")" stdin "zstd -dc" "$base" "zstd -dc '$f' | '$TL' check -o json -"
      pbase=$(best "zstd -dc '$f' | cat")
      row "$(basename "$f")" stdin "zstd -dc | cat" "$pbase" "zstd -dc '$f' | '$TL' check -o json -"
    done
    for d in plain args; do
      row "uftrace $d ($(du -sm "$UF/$d" | cut -f1) MB)" dir "cat DIR/*" "$(best "cat '$UF/$d'/*")" \
        "'$TL' check -o json '$UF/$d'"
      base=$(best "zstd -dc '$UF/$d.tar.zst' | tar -t")
      row "uftrace $d.tar.zst" file "zstd -dc | tar -t" "$base" "'$TL' check -o json '$UF/$d.tar.zst'"
      row "uftrace $d.tar.zst" stdin "zstd -dc | tar -t" "$base" "'$TL' check -o json - < '$UF/$d.tar.zst'"
      row "uftrace $d.tar.zst" pipe "zstd -dc | tar -t" "$base" "cat '$UF/$d.tar.zst' | '$TL' check -o json -"
    done
    for f in "$REAL7" "$REAL6" "$GEN6"; do
      "$TL" check --color never "$f" 2>&1 | tail -1
      "$TL" check --color never - < "$f" 2>&1 | tail -1
      cat "$f" | "$TL" check --color never - 2>&1 | tail -1
    done
  } | tee "$R"
}

case "$MODE" in
  gen) gen ;;
  measure) measure ;;
  all) gen && measure ;;
  *) die "usage: $0 [gen|measure|all]" ;;
esac
