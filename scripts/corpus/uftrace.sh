#!/usr/bin/env bash
# Regenerate corpus/uftrace/<name>/: real uftrace data directories (each one the whole
# uftrace.data directory written by `uftrace record -d <dir>`) from small programs built with
# `gcc -pg -g` (sources in scripts/corpus/src/uf_*.c), and the producer-option matrix: one
# recording per record option that changes what is written, some of the same programs built
# with -finstrument-functions or for dynamic patching.
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
# The same C program with other instrumentation: -finstrument-functions (__cyg_profile_func_*),
# -fpatchable-function-entry=5 (5-byte NOPs that -P patches), -pg -mfentry -mnop-mcount (NOPs, non-PIE:
# where the __fentry__ call would be) and none at all (-P patches it through capstone).
gcc -finstrument-functions -g -O0 -o "$BIN/uf_basic_fi" "$SRC/uf_basic.c" || die "cannot build uf_basic_fi"
gcc -fpatchable-function-entry=5 -g -O0 -o "$BIN/uf_basic_pe" "$SRC/uf_basic.c" || die "cannot build uf_basic_pe"
gcc -pg -mfentry -mnop-mcount -fno-pie -no-pie -g -O0 -o "$BIN/uf_basic_nop" "$SRC/uf_basic.c" || die "cannot build uf_basic_nop"
gcc -g -O0 -o "$BIN/uf_basic_noinst" "$SRC/uf_basic.c" || die "cannot build uf_basic_noinst"
g++ -finstrument-functions -g -O0 -pthread -o "$BIN/uf_cxx_fi" "$SRC/uf_cxx.cc" || die "cannot build uf_cxx_fi"
build uf_fork
build uf_loop
build uf_signal
# uf_idle: the body of one thread (uf_idle_spin.c) is built without -pg.
gcc -g -O0 -c -o "$WORK/uf_idle_spin.o" "$SRC/uf_idle_spin.c" || die "cannot build uf_idle_spin"
build uf_idle -pthread "$WORK/uf_idle_spin.o"
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
  # With --keep-pid the program keeps uftrace's pid and the recorder runs on in a child process,
  # which writes info last: wait for it (and for the recorder to exit).
  local i=0
  while [ $i -lt 60 ] && { [ ! -f "$dir/info" ] || pgrep -f "uftrace record -d $name " >/dev/null; }; do
    sleep 0.5; i=$((i + 1))
  done
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

# ---- the producer-option matrix: options that change what is written -----------------
# Filters. A task that makes no call inside the filter writes no <TID>.dat, though task.txt
# and info's taskinfo list it.
# filter-F-worker: -F worker: only the two pthreads' calls (main has no <TID>.dat).
rec filter-F-worker -F worker "$BIN/uf_threads"
# notrace-N-main-worker: -N main -N worker: no task makes a traced call (no <TID>.dat at all).
rec notrace-N-main-worker -N main -N worker "$BIN/uf_threads"
# filter-F-main-N-middle: -F main -N middle: main's tree without middle and what it calls.
rec filter-F-main-N-middle -F main -N middle "$BIN/uf_basic"
# caller-C-leaf: -C leaf: only the call paths that lead to leaf (and leaf itself).
rec caller-C-leaf -C leaf "$BIN/uf_basic"
# caller-C-work-threads: -C work: main makes no traced call, the workers' paths to work do.
rec caller-C-work-threads -C work "$BIN/uf_threads"
# Triggers.
# trigger-T-depth-notrace: -T top@depth=2 (nothing below depth 2 under top), fib@notrace.
rec trigger-T-depth-notrace -T 'top@depth=2' -T 'fib@notrace' "$BIN/uf_basic"
# disable-trace-on: --disable with -T top@trace_on: nothing before top is recorded.
rec disable-trace-on --disable -T 'top@trace_on' "$BIN/uf_basic"
# trigger-finish: -T top@finish: recording stops inside top (frames still open at the end).
rec trigger-finish -T 'top@finish' "$BIN/uf_basic"
# trigger-read-page-fault: -T main@read=page-fault: read/diff page-fault events around main.
rec trigger-read-page-fault -T 'main@read=page-fault' "$BIN/uf_basic"
# watch-cpu: -W cpu: a watch:cpu event whenever a task runs on another CPU.
rec watch-cpu -W cpu "$BIN/uf_threads"
# time-filter-t1ms: -t 1ms: only calls that took 1 ms or more (main, slow, usleep).
rec time-filter-t1ms -t 1ms "$BIN/uf_loop"
# max-stack-8: --max-stack 8 with a recursion 12 deep.
rec max-stack-8 --max-stack 8 "$BIN/uf_loop"
# depth-D3-longjmp: -D 3 with setjmp/longjmp (the longjmp leaves frames below the limit).
rec depth-D3-longjmp -D 3 "$BIN/uf_jmp"
# depth-D4-longjmp: -D 4: the first longjmp is recorded, the second (depth 5) is not; the
#   EXIT of setjmp then closes a frame two levels up and readers leave main open.
rec depth-D4-longjmp -D 4 "$BIN/uf_jmp"
# notrace-N-longjmp: -N longjmp: no longjmp ENTRY before setjmp's second EXIT; libmcount records
#   nothing more until main's EXIT (the notrace state of longjmp is never left).
rec notrace-N-longjmp -N longjmp "$BIN/uf_jmp"
# estimate-return-e: -e (--estimate-return): ENTRY records only, exits estimated by readers.
rec estimate-return-e -e "$BIN/uf_basic"
# Processes.
# fork-noexec: fork without exec: parent and child trace the same session.
rec fork-noexec "$BIN/uf_fork"
# forkexec-keep-pid: --keep-pid (uftrace forks the recorder so the program keeps its pid).
rec forkexec-keep-pid --keep-pid "$BIN/uf_forkexec" "$BIN/uf_child"
# forkexec-e-keep-pid: -e --keep-pid of the fork+exec program.
rec forkexec-e-keep-pid -e --keep-pid "$BIN/uf_forkexec" "$BIN/uf_child"
# forkexec-e: -e alone on the fork+exec program.
rec forkexec-e -e "$BIN/uf_forkexec" "$BIN/uf_child"
# idle-thread: a pthread that runs only uninstrumented code: no <TID>.dat for it.
rec idle-thread "$BIN/uf_idle"
# signal: handlers that run traced code (raise, then SIGALRM during a busy loop).
rec signal "$BIN/uf_signal"
# Library calls.
# nest-libcall-l: -l (--nest-libcall): library calls made from libraries too.
rec nest-libcall-l -l "$BIN/uf_basic"
# no-pltbind: --no-pltbind (LD_BIND_NOT: every libcall goes through the PLT resolver).
rec no-pltbind --no-pltbind "$BIN/uf_basic"
# Arguments: -A/-R on a C program (string, char, float args; double retval).
rec args-A-R-c -A 'count_char@arg1/s,arg2/c' -A 'scale@fparg1/64,fparg2/32' \
  -R 'scale@retval/f64' -R 'leaf@retval' -A 'leaf@arg1' "$BIN/uf_basic"
# srcline-threads: --srcline (line info in the .dbg files) on the pthread program.
rec srcline-threads --srcline "$BIN/uf_threads"
# Events and scheduling.
# no-sched-threads: --no-sched: no sched in/out events in perf-cpu<N>.dat.
rec no-sched-threads --no-sched "$BIN/uf_threads"
# no-event: --no-event (no default events).
rec no-event --no-event "$BIN/uf_threads"
# Buffers, clocks, recorder threads.
# buffer-b4k: -b 4K: the shared-memory buffers are flushed every 256 records.
rec buffer-b4k -b 4K "$BIN/uf_loop"
# clock-mono-raw / clock-boot: --clock mono_raw / boot.
rec clock-mono-raw --clock mono_raw "$BIN/uf_basic"
rec clock-boot --clock boot "$BIN/uf_basic"
# num-thread-3: --num-thread 3 recorder threads for the pthread program.
rec num-thread-3 --num-thread 3 "$BIN/uf_threads"
# libmcount-single: the single-thread libmcount.
rec libmcount-single --libmcount-single "$BIN/uf_basic"
# Instrumentation.
# finstrument-functions: -finstrument-functions instead of -pg.
rec finstrument-functions "$BIN/uf_basic_fi"
# cxx-finstrument: the C++ program built with -finstrument-functions.
rec cxx-finstrument "$BIN/uf_cxx_fi"
# patch-P-all: -P . on a -fpatchable-function-entry=5 build (dynamic patching).
rec patch-P-all -P . "$BIN/uf_basic_pe"
# patch-P-Z100: -P . -Z 100: only functions of 100 bytes or more are patched.
rec patch-P-Z100 -P . -Z 100 "$BIN/uf_basic_pe"
# patch-P-U-fib: -P . -U fib: every function but fib patched.
rec patch-P-U-fib -P . -U fib "$BIN/uf_basic_pe"
# patch-P-nop-mcount: -P . on a -pg -mfentry -mnop-mcount build.
rec patch-P-nop-mcount -P . "$BIN/uf_basic_nop"
# patch-P-noinst: -P . on a build with no instrumentation (patched through capstone).
rec patch-P-noinst -P . "$BIN/uf_basic_noinst"
# recv-host: the data sent over TCP (record --host 127.0.0.1) and written by `uftrace recv`.
if [ "$ONLY" = "  " ] || [[ "$ONLY" == *" recv-host "* ]]; then
  PORT=18090
  mkdir -p "$WORK/recv"
  uftrace recv -d "$WORK/recv" --port $PORT >"$WORK/recv.log" 2>&1 &
  RECV=$!
  sleep 1
  (cd "$OUT" && timeout 120 uftrace record -d recv-host --host 127.0.0.1 --port $PORT \
    "$BIN/uf_basic") >"$WORK/recv-host.log" 2>&1
  i=0
  while [ $i -lt 20 ] && [ ! -f "$WORK/recv/recv-host/info" ]; do sleep 0.5; i=$((i + 1)); done
  sleep 1
  kill "$RECV" 2>/dev/null; wait "$RECV" 2>/dev/null
  rm -rf "$OUT/recv-host"
  if [ -f "$WORK/recv/recv-host/info" ]; then
    mv "$WORK/recv/recv-host" "$OUT/recv-host"
    echo "ok   recv-host (written by uftrace recv)"
  else
    echo "FAIL recv-host:"; sed 's/^/     /' "$WORK/recv.log" "$WORK/recv-host.log"
    FAILS=$((FAILS + 1))
  fi
fi

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
