#!/usr/bin/env bash
# Regenerate corpus/uftrace/<name>/: real uftrace data directories (each one the whole
# uftrace.data directory written by `uftrace record -d <dir>`) from small programs built with
# `gcc -pg -g` (sources in scripts/corpus/src/uf_*.c).
# Usage: scripts/corpus/uftrace.sh [OUTDIR [NAME...]]   (default: <repo>/corpus/uftrace, all)
#   With NAMEs, only those recordings are made again (the others keep their tids and sids,
#   which the tests name).
# Needs: gcc, g++, uftrace; the SDT events program needs <sys/sdt.h> (Debian:
# systemtap-sdt-dev).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${1:-$ROOT/corpus/uftrace}
[ $# -gt 0 ] && shift
ONLY=" $* "
SRC=$HERE/src
die () { echo "uftrace.sh: $*" >&2; exit 1; }
for t in gcc g++ uftrace; do command -v "$t" >/dev/null || die "'$t' not found"; done
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
# The programs are built in and run from a fixed path, and -d gets a relative name, so that
# exename and cmdline in the data do not depend on where the repository is.
WORK=/tmp/tracelint-uftrace
rm -rf "$WORK"; mkdir -p "$WORK" || exit 1
trap 'rm -rf "$WORK"' EXIT
BIN=$WORK/bin
mkdir -p "$BIN"
build () {  # build NAME [extra gcc args]
  local n=$1; shift
  gcc -pg -g -O0 -o "$BIN/$n" "$SRC/$n.c" "$@" || die "cannot build $n"
}
build uf_basic
build uf_threads -pthread
build uf_forkexec
build uf_child
build uf_dlopen -ldl
build uf_jmp
g++ -pg -g -O0 -pthread -o "$BIN/uf_cxx" "$SRC/uf_cxx.cc" || die "cannot build uf_cxx"
gcc -pg -g -O0 -shared -fPIC -o "$BIN/libuf_plugin.so" "$SRC/uf_plugin.c" || die "cannot build uf_plugin"
HAVE_SDT=0
if echo '#include <sys/sdt.h>' | gcc -E - >/dev/null 2>&1; then
  build uf_events; HAVE_SDT=1
fi

FAILS=0
rec () {  # rec NAME uftrace-record-options... -- command...
  local name=$1; shift
  local dir=$OUT/$name
  if [ "$ONLY" != "  " ] && [[ "$ONLY" != *" $name "* ]]; then return; fi
  rm -rf "$dir"
  (cd "$OUT" && timeout 120 uftrace record -d "$name" "$@") >"$WORK/$name.log" 2>&1
  if [ -f "$dir/info" ]; then
    echo "ok   ${dir#$ROOT/} ($(du -sk "$dir" | cut -f1) KiB, $(ls "$dir" | wc -l) files)"
  else
    echo "FAIL $name:"; sed 's/^/     /' "$WORK/$name.log"; FAILS=$((FAILS + 1))
  fi
}

# plain: default options (PLT hooks on: libc calls are recorded too).
rec plain "$BIN/uf_basic"
# args: -a (automatic arguments/return values: DWARF of the program + known libc prototypes):
#   integer, pointer, string ("corpus"), double and float arguments; int/long/double retvals.
rec args -a "$BIN/uf_basic"
# threads: main thread + 2 pthreads -> one <TID>.dat per thread.
rec threads "$BIN/uf_threads"
# forkexec: parent, forked child, child exec's uf_child -> 2 sessions (2 sid-*.map).
rec forkexec "$BIN/uf_forkexec" "$BIN/uf_child"
# nolibcall: --no-libcall (no PLT hooks: only the program's own functions).
rec nolibcall --no-libcall "$BIN/uf_basic"
# depth3: -D 3 (nothing deeper than depth 3 is recorded).
rec depth3 -D 3 "$BIN/uf_basic"
# dlopen: a library loaded with dlopen -> a DLOP line in task.txt; its functions resolve
#   through the DLOP base and libuf_plugin.so.sym, not through the session map.
rec dlopen "$BIN/uf_dlopen" "$BIN/libuf_plugin.so"
# events: user SDT probes (-E 'corpus:*') and read triggers (-T ...@read=proc/statm) ->
#   event records in the task data and an events.txt.
if [ "$HAVE_SDT" = 1 ]; then
  rec events --match glob -E 'corpus:*' -T 'step@read=proc/statm' "$BIN/uf_events"
else
  rec events -T 'leaf@read=proc/statm' "$BIN/uf_basic"
fi

# cxx_auto: a C++ program with -a: DWARF specs in the .dbg files (an empty struct is `t0`,
#   std::string is `S`), auto-args of libstdc++'s operator new/delete by demangled name, and a
#   std::thread (two <TID>.dat).
rec cxx_auto -a "$BIN/uf_cxx"
# cxx_spec: the same program with -A/-R: a struct by value (t16), a string and a float,
#   std::string (S), a double return value, and `arg1/64`, which uftrace accepts and skips.
rec cxx_spec -A 'use_pt@arg1/t16,arg2/s,fparg1/32' -R 'use_pt@retval/f64' -A 'use_str@arg1/S' \
  -A 'use_empty@arg2/d32' -R 'worker@retval/i64' -A 'worker@arg1/64' "$BIN/uf_cxx"
# longjmp: setjmp/longjmp: longjmp unwinds frames that get no EXIT record; libmcount records
#   the EXIT of the setjmp frame it returns to.
rec longjmp "$BIN/uf_jmp"

# ---- read every directory back ---------------------------------------------------------
for d in "$OUT"/*/; do
  d=${d%/}
  if [ "$ONLY" != "  " ] && [[ "$ONLY" != *" $(basename "$d") "* ]]; then continue; fi
  r=$(timeout 60 uftrace replay --no-pager -d "$d" 2>&1)
  u=$(timeout 60 uftrace dump --no-pager -d "$d" 2>&1)
  printf '%-26s replay %3d lines, dump %4d lines (%d entry, %d exit, %d event)%s\n' "${d#$ROOT/}" \
    "$(echo "$r" | wc -l)" "$(echo "$u" | wc -l)" \
    "$(echo "$u" | grep -c '\[entry\]')" "$(echo "$u" | grep -c '\[exit \]')" \
    "$(echo "$u" | grep -c '\[event\]')" \
    "$(echo "$r$u" | grep -q -i -E 'warn|error|broken|invalid' && echo '  WARNING in output')"
done
[ "$FAILS" -eq 0 ] || die "$FAILS recording(s) failed"
