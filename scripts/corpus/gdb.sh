#!/usr/bin/env bash
# Regenerate corpus/gdb/*.tf: real GDB tracepoint trace files ("tfile") produced by
# gdb + gdbserver (on 127.0.0.1) tracing scripts/corpus/src/tpdemo.c.
# Usage: scripts/corpus/gdb.sh [OUTDIR]   (default: <repo>/corpus/gdb)
#        SHAPES="stepping twoloc" scripts/corpus/gdb.sh   (remake only the named files; default:
#        every shape below)
# Needs: gcc, gdb, gdbserver (Debian: apt-get install gdb gdbserver); fast tracepoints
# additionally need the in-process agent libinproctrace.so (shipped with gdbserver).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${1:-$ROOT/corpus/gdb}
mkdir -p "$OUT" "$OUT/defects" || exit 1
OUT=$(cd "$OUT" && pwd)
for t in gcc gdb gdbserver; do
  command -v "$t" >/dev/null || { echo "gdb.sh: '$t' not found" >&2; exit 1; }
done
WORK=$(mktemp -d /tmp/tracelint-gdb.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
SRC=$HERE/src/tpdemo.c
EXE=$WORK/tpdemo
# Non-PIE so that tracepoint addresses in the file match the symbols of the executable.
gcc -g -O0 -fno-pie -no-pie -o "$EXE" "$SRC" || exit 1
ENDLINE=$(grep -nF '/* END-LINE' "$SRC" | cut -d: -f1)
# tpmulti: two translation units that each define a static `step` (two-locations shape).
EXE_MULTI=$WORK/tpmulti
gcc -g -O0 -fno-pie -no-pie -o "$EXE_MULTI" "$HERE/src/tpmulti.c" "$HERE/src/tpmulti2.c" || exit 1
ENDLINE_MULTI=$(grep -nF '/* END-LINE' "$HERE/src/tpmulti.c" | cut -d: -f1)
SHAPES=${SHAPES:-}
PORT=${PORT:-23500}
IPA=${IPA:-}
if [ -z "$IPA" ]; then
  for f in /usr/lib/libinproctrace.so /usr/lib/*/libinproctrace.so /usr/lib64/libinproctrace.so; do
    [ -e "$f" ] && { IPA=$f; break; }
  done
fi
FAILS=0

# run_shape NAME DEST "gdb commands after stopping at main" [LD_PRELOAD library]
# Variables read: PROG (executable, default $EXE), SAVE (the save command, default
# `tsave DEST`; `tsave -r` makes gdbserver write the file, relative to its working directory).
run_shape () {
  local name=$1 dest=$2 setup=$3 preload=${4:-} log=$WORK/$1
  local prog=${PROG:-$EXE} save=${SAVE:-tsave $dest}
  if [ -n "$SHAPES" ]; then
    case " $SHAPES " in *" $name "*) ;; *) return 0 ;; esac
  fi
  PORT=$((PORT + 1))
  rm -f "$dest"
  if [ -n "$preload" ]; then
    gdbserver --once --wrapper env LD_PRELOAD="$preload" -- 127.0.0.1:$PORT "$prog" >"$log.gdbserver.log" 2>&1 &
  else
    (cd "$WORK" && exec gdbserver --once 127.0.0.1:$PORT "$prog") >"$log.gdbserver.log" 2>&1 &
  fi
  local gpid=$!
  for _ in $(seq 100); do grep -q "Listening on port" "$log.gdbserver.log" 2>/dev/null && break; sleep 0.1; done
  cat >"$log.gdb" <<GDB
set pagination off
set confirm off
set sysroot /
file $prog
target remote 127.0.0.1:$PORT
break main
continue
$setup
$save
kill
GDB
  timeout 120 gdb -nx -batch -x "$log.gdb" >"$log.gdb.log" 2>&1
  kill "$gpid" 2>/dev/null; wait "$gpid" 2>/dev/null
  if [ -s "$dest" ]; then
    echo "ok   ${dest#$ROOT/} ($(stat -c %s "$dest") bytes)"
  else
    echo "FAIL $name:"; sed 's/^/     /' "$log.gdb.log"; FAILS=$((FAILS + 1))
  fi
}

# Run to the END-LINE, stop the trace run.
FINISH="break tpdemo.c:$ENDLINE
continue
tstop
tstatus"

# 1. regs: one tracepoint collecting the register block only -> 12 frames of one R block.
run_shape regs "$OUT/regs.tf" "trace tl_step
actions
collect \$regs
end
tstart
$FINISH"

# 2. memory: globals, a struct, a string buffer, \$args and \$locals -> R + M blocks.
run_shape memory "$OUT/memory.tf" "trace tl_scale
actions
collect \$args, \$locals, counter, table, origin, label
end
tstart
$FINISH"

# 3. tsv: trace state variables (positive, negative, unset) collected as V blocks, teval updates.
run_shape tsv "$OUT/tsv.tf" "tvariable \$hits = 5
tvariable \$neg = -3
tvariable \$unset
trace tl_step
actions
teval \$hits = \$hits + 1
collect i, \$hits, \$neg
end
tstart
$FINISH"

# 4. multi: several tracepoints (function, source line, conditional, while-stepping,
#    one disabled, one with a passcount), trace user and notes.
run_shape multi "$OUT/multi.tf" "set trace-user corpus
set trace-notes tracelint corpus: several tracepoints
trace tl_step if i > 8
actions
collect i, s, label
end
trace tl_scale
passcount 10
actions
collect v, factor
while-stepping 2
collect \$rip, r
end
end
trace tl_finish
disable \$bpnum
trace tpdemo.c:$ENDLINE
actions
collect acc, \$regs
end
tstart
break exit
continue
tstop
tstatus"

# 5. circular-wrapped: circular trace buffer of 8192 bytes that wraps: 12 frames created,
#    only the last 2 kept (tframes < tcreated, circular:1).
run_shape circular-wrapped "$OUT/circular-wrapped.tf" "set circular-trace-buffer on
set trace-buffer-size 8192
trace tl_step
actions
collect \$regs, i
end
tstart
$FINISH"

# 6. empty: a tracepoint that is never hit, stopped with a note -> zero frames.
run_shape empty "$OUT/empty.tf" "set disconnected-tracing on
trace tl_finish if acc == -1
actions
collect acc
end
tstart
tstop corpus stop note
tstatus"

# 7. kinds: more collect kinds on one tracepoint: \$regs, \$args, \$locals, memory ranges
#    (array slices with @), struct members, an expression, the return
#    address (\$_ret); trace state variables set by teval and collected; while-stepping; a
#    condition; and a passcount that stops the run (stop reason tpasscount).
#    \$_sdata needs a static tracepoint (strace), which gdbserver offers only when built with
#    UST; Debian's answers "GDBserver was built without static tracepoints support", so no
#    file here collects it.
run_shape kinds "$OUT/kinds.tf" "tvariable \$calls = 0
tvariable \$sum
trace tl_step
actions
collect i, s
end
trace tl_scale if factor != 2
passcount 3
actions
collect \$regs
collect \$args, \$locals
collect label[2]@8, table[1]@2
collect origin.y, origin.tag, v * factor + counter
collect \$_ret
teval \$calls = \$calls + 1, \$sum = \$sum + v
collect \$calls, \$sum
while-stepping 3
collect \$rip, r
end
end
tstart
break tpdemo.c:$ENDLINE
continue
tstatus"

# 8. stepping: while-stepping alone: the tracepoint collects nothing itself, each hit steps 4
#    instructions and collects \$rip (one R block per stepping frame).
run_shape stepping "$OUT/stepping.tf" "trace tl_scale
actions
while-stepping 4
collect \$rip
end
end
tstart
$FINISH"

# `tsave -r` (the target writes the file itself, QTSave) is not recorded: gdbserver 13.1 does
# not implement QTSave and GDB answers "Target does not support this command.".

# 10. twoloc: `trace step` on a name defined twice (static `step` in tpmulti.c and tpmulti2.c)
#     and by glibc (its compat symbol from regexp.c): one tracepoint with three locations;
#     tsave writes one `tp` line per location, all with the same number. Only the program's
#     two are hit. (`collect n` would fail: glibc's step has no `n`; \$rip is an R block.)
PROG=$EXE_MULTI run_shape twoloc "$OUT/twoloc.tf" "trace step
actions
collect \$rip
end
tstart
break tpmulti.c:$ENDLINE_MULTI
continue
tstop
tstatus"

# 11. circular-nowrap: a circular trace buffer (default size) that did not wrap: every frame
#     kept, status circular:1.
run_shape circular-nowrap "$OUT/circular-nowrap.tf" "set circular-trace-buffer on
trace tl_step
actions
collect i
end
tstart
$FINISH"

# 12. ret: an array slice through a pointer argument and the return address (\$_ret).
run_shape ret "$OUT/ret.tf" "trace tl_step
actions
collect *s@4, \$_ret
end
tstart
$FINISH"

# 13. running: saved while the trace run is still going (no tstop): status running:1.
run_shape running "$OUT/running.tf" "trace tl_scale
actions
collect v
end
tstart
break tpdemo.c:$ENDLINE
continue
tstatus"

# 14. default-collect: `set default-collect` adds globals to every tracepoint; tl_finish has
#     no actions of its own, tl_scale one collect.
run_shape default-collect "$OUT/default-collect.tf" "set default-collect counter, ticks
trace tl_finish
trace tl_scale
actions
collect factor
end
tstart
$FINISH"

# 15. teval: a trace state variable updated by teval only (never collected): the frames hold
#     no blocks at all.
run_shape teval "$OUT/teval.tf" "tvariable \$n = 0
trace tl_step
actions
teval \$n = \$n + i
end
tstart
$FINISH"

# 16. passcount: a condition and a passcount that ends the run (stop reason tpasscount).
run_shape passcount "$OUT/passcount.tf" "trace tl_step if i % 3 == 1
passcount 2
actions
collect i, counter
end
tstart
break tpdemo.c:$ENDLINE
continue
tstatus"

# 17. full: a 3000-byte linear trace buffer that fills up: the run stops by itself (stop
#     reason tfull) with the frames that fit.
run_shape full "$OUT/full.tf" "set trace-buffer-size 3000
trace tl_step
actions
collect \$regs, i
end
tstart
$FINISH"

# 18. bigmem: 70000 bytes of the stack below the stack pointer collected in one frame (a range
#     larger than the 16-bit length of one M block), at the first call of tl_scale.
run_shape bigmem "$OUT/bigmem.tf" "trace tl_scale if factor == 1
actions
collect *(char (*)[70000]) (\$rsp - 70000)
end
tstart
$FINISH"

# Real but defective files (gdbserver 13.1 bugs); kept apart from the valid corpus.
# defects/circular-corrupt.tf: circular buffer of 14000 bytes that wraps at an offset where
# gdbserver's qTBuffer returns an inconsistent image (frames that do not add up to
# tsize-tfree, garbage after the first frames).
run_shape circular-corrupt "$OUT/defects/circular-corrupt.tf" "set circular-trace-buffer on
set trace-buffer-size 14000
trace tl_step
actions
collect \$regs, i
end
tstart
$FINISH"

# defects/collect-s.tf: `collect/s` (a string up to its NUL) is accepted by gdbserver and
# recorded, but GDB 13.1 cannot read its own definition back from the file: the tfile target
# "does not support "/s" option for string tracing", the upload of the tracepoint's actions
# stops there and every `tdump` then fails with "No known tracepoint matches 'current'
# tracepoint #2".
run_shape collect-s "$OUT/defects/collect-s.tf" "trace tl_step
actions
collect/s s
collect i
end
tstart
$FINISH"

# fast.tf / defects/fast.tf: fast tracepoint through the in-process agent. On a CPU with
# protection keys (PKRU: the target description has org.gnu.gdb.i386.pkeys and `R 974`) the
# agent's R blocks are 2500 bytes while the `R` line says 0x974 = 2420, so GDB finds the frames
# and shows their registers but fails with "Unknown block type" when it reads their memory:
# the file goes to defects/. Without PKRU (`R 970`) the agent's blocks are 2416 bytes, as the R
# line says, GDB reads every frame, and the file is a healthy fast-tracepoint recording: fast.tf.
if [ -n "$IPA" ]; then
  run_shape fast "$WORK/fast.tf" "ftrace tl_tick
actions
collect \$regs, ticks, counter
end
tstart
$FINISH" "$IPA"
  if [ -s "$WORK/fast.tf" ]; then
    if grep -aq 'org.gnu.gdb.i386.pkeys' "$WORK/fast.tf"; then
      mv "$WORK/fast.tf" "$OUT/defects/fast.tf" && echo "     (CPU with PKRU: defects/fast.tf)"
    else
      mv "$WORK/fast.tf" "$OUT/fast.tf" && echo "     (CPU without PKRU: fast.tf)"
    fi
  fi
else
  echo "skip fast.tf (libinproctrace.so not found)"
fi

# defects/truncated.tf: regs.tf cut in the middle of its last frame, as a copy or download that
# stopped early leaves it; GDB opens it and fails with "Premature end of file" when tfind
# reaches the cut frame.
if [ -s "$OUT/regs.tf" ]; then
  head -c $(( $(stat -c %s "$OUT/regs.tf") - 1000 )) "$OUT/regs.tf" >"$OUT/defects/truncated.tf"
  echo "ok   ${OUT#$ROOT/}/defects/truncated.tf ($(stat -c %s "$OUT/defects/truncated.tf") bytes)"
fi

# Read every file back with GDB: status, tracepoints, every frame found and dumped (a `tdump`
# that fails is counted and its first message shown, the walk goes on; a failing `tfind` ends it).
verify () {
  local f=$1 log=$WORK/verify.log
  local prog=$EXE
  case $f in */twoloc.tf) prog=$EXE_MULTI ;; esac
  cat >"$WORK/verify.gdb" <<GDB
set pagination off
set confirm off
file $prog
python
import gdb
def run(c):
    try:
        return True, gdb.execute(c, to_string=True)
    except gdb.error as e:
        return False, str(e)
ok, out = run("target tfile $f")
if not ok:
    print("OPENERR " + out.splitlines()[0] if out else "OPENERR")
ok, out = run("tstatus")
for l in out.splitlines():
    if l.startswith("Trace stopped") or l.startswith("Trace is running"):
        print("STATUS " + l)
run("info tracepoints"); run("info tvariables")
n = 0
while True:
    ok, out = run("tfind %d" % n)
    if not ok or "Found trace frame" not in out:
        if not ok and "failed to find requested trace frame" not in out:
            print("TFINDERR " + out.splitlines()[0])
        break
    ok, out = run("tdump")
    print("FRAME %d %s" % (n, "ok" if ok else "TDUMPERR " + out.splitlines()[0]))
    n += 1
end
GDB
  timeout 60 gdb -nx -batch -x "$WORK/verify.gdb" 2>&1 | tr -d '\000' >"$log"
  local frames bad status err
  frames=$(grep -c '^FRAME ' "$log")
  bad=$(grep -c 'TDUMPERR' "$log")
  status=$(grep -m1 '^STATUS ' "$log" | cut -c8-)
  err=$(grep -m1 -E '^OPENERR|TDUMPERR|^TFINDERR' "$log" | sed -E 's/^(OPENERR|TFINDERR|FRAME [0-9]+ TDUMPERR) //' | cut -c1-70)
  echo "read-back ${f#$ROOT/}: $frames frames, tdump failed on $bad; $status${err:+; GDB: $err}"
}
for f in "$OUT"/*.tf "$OUT"/defects/*.tf; do [ -e "$f" ] && verify "$f"; done

[ "$FAILS" -eq 0 ] || { echo "gdb.sh: $FAILS shape(s) failed" >&2; exit 1; }
