#!/usr/bin/env bash
# Regenerate corpus/perf/: real perf.data files written by perf (Debian linux-perf 6.1) while
# profiling scripts/corpus/src/pf_work.c, and damaged copies of them in corpus/perf/defects/.
# Usage: scripts/corpus/perf.sh [OUTDIR]   (default: <repo>/corpus/perf). Needs root (or
# kernel.perf_event_paranoid <= 0 for -a and tracepoints), gcc, perf, python3.
# Only software events and tracepoints are used (no hardware PMU needed); low frequencies and
# short runs keep every file under 200 KB.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${1:-$ROOT/corpus/perf}
mkdir -p "$OUT" "$OUT/defects" || exit 1
OUT=$(cd "$OUT" && pwd)
for t in gcc perf python3; do
  command -v "$t" >/dev/null || { echo "perf.sh: '$t' not found" >&2; exit 1; }
done
WORK=$(mktemp -d /tmp/tracelint-perf.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
EXE=$WORK/pf_work
gcc -O1 -g -fno-omit-frame-pointer -o "$EXE" "$HERE/src/pf_work.c" || exit 1
FAILS=0
cd "$WORK" || exit 1

done_file () {
  local f=$1
  if [ -s "$f" ]; then
    echo "ok   ${f#$ROOT/} ($(stat -c %s "$f") bytes)"
  else
    echo "FAIL ${f#$ROOT/}" >&2; FAILS=$((FAILS + 1))
  fi
}

# rec NAME perf-record-options... : perf record -o OUT/NAME <options> -- pf_work
rec () {
  local name=$1; shift
  rm -f "$OUT/$name"
  perf record -q -o "$OUT/$name" "$@" -- "$EXE" "${UNITS:-10}" >/dev/null 2>"$WORK/$name.log"
  done_file "$OUT/$name"
}

rec cpu-clock.data -F 199 -e cpu-clock
UNITS=40 rec cpu-clock-999.data -F 999 -e cpu-clock
rec task-clock.data -c 2000000 -e task-clock
rec group.data -F 99 -e '{cpu-clock,task-clock}'
rec callchain-fp.data -F 99 -e cpu-clock -g
rec callchain-dwarf.data -F 49 -e cpu-clock --call-graph dwarf,512
rec zstd.data -F 199 -e cpu-clock -z
rec no-buildid.data -F 199 -e cpu-clock --no-buildid
rec tracepoint.data -e sched:sched_switch
rec syscalls.data -e syscalls:sys_enter_openat -e syscalls:sys_exit_openat
rec regs-period.data -F 99 -e cpu-clock --user-regs=ip,sp -d --sample-cpu -P
rec branchless-read.data -c 4000000 -e cpu-clock -s -T
# -s (inherit_stat) with children that exit: the kernel writes a READ record at each exit
rm -f "$OUT/read-children.data"
perf record -q -s -o "$OUT/read-children.data" -F 199 -e cpu-clock -- sh -c "'$EXE' 3; '$EXE' 3" >/dev/null 2>"$WORK/read-children.log"
done_file "$OUT/read-children.data"
# a one-page ring buffer: perf record wakes up often and writes many FINISHED_ROUNDs
UNITS=40 rec rounds.data -m 1 -F 999 -e cpu-clock

# perf lock record, perf trace record (tracepoints, syscalls)
rm -f "$OUT/lock.data" "$OUT/trace.data"
perf lock record -o "$OUT/lock.data" -- "$EXE" 2 >/dev/null 2>"$WORK/lock.log"
done_file "$OUT/lock.data"
perf trace record -o "$OUT/trace.data" -- "$EXE" 2 >/dev/null 2>"$WORK/trace.log"
done_file "$OUT/trace.data"

# directory mode: perf record --threads writes threads.data/{data,data.0,data.1}
rm -rf "$OUT/threads.data"
perf record -q --threads -o "$OUT/threads.data" -F 199 -e cpu-clock -- "$EXE" 10 >/dev/null 2>"$WORK/threads.log"
done_file "$OUT/threads.data/data"

# pipe mode: perf record -o - (a stream, header size 16)
rm -f "$OUT/pipe.data"
perf record -q -o - -F 199 -e cpu-clock -- "$EXE" 10 >"$OUT/pipe.data" 2>"$WORK/pipe.log"
done_file "$OUT/pipe.data"

# system-wide, short
rm -f "$OUT/system-wide.data"
perf record -q -o "$OUT/system-wide.data" -a -F 49 -e cpu-clock --no-buildid -- sleep 0.3 >/dev/null 2>"$WORK/sw.log"
done_file "$OUT/system-wide.data"

# perf sched record (sched tracepoints), perf stat record, perf inject
rm -f "$OUT/sched.data"
perf sched record -o "$OUT/sched.data" -- "$EXE" 3 >/dev/null 2>"$WORK/sched.log"
done_file "$OUT/sched.data"
rm -f "$OUT/stat.data"
perf stat record -o "$OUT/stat.data" -e cpu-clock,task-clock -- "$EXE" 3 >/dev/null 2>"$WORK/stat.log"
done_file "$OUT/stat.data"
rm -f "$OUT/inject.data"
perf inject -i "$OUT/cpu-clock.data" -o "$OUT/inject.data" 2>"$WORK/inject.log"
done_file "$OUT/inject.data"
rm -f "$OUT/inject-buildids.data"
perf inject -b -i "$OUT/no-buildid.data" -o "$OUT/inject-buildids.data" 2>"$WORK/inject-b.log"
done_file "$OUT/inject-buildids.data"

# ---- defects: real recordings damaged the ways a crash, a cut copy or a bad disk does ----
D=$OUT/defects
# A killed perf record (SIGKILL): data.size stays 0, no feature table, records to EOF.
rm -f "$D/killed.data"
perf record -q -o "$D/killed.data" -m 4 -F 999 -e cpu-clock -- "$EXE" 1000 >/dev/null 2>&1 &
PID=$!
sleep 1.5
kill -9 "$PID" 2>/dev/null; wait "$PID" 2>/dev/null
pkill -9 -P "$PID" 2>/dev/null
done_file "$D/killed.data"
# The same with -z: zstd COMPRESSED records, and no COMPRESSED feature to decompress them.
rm -f "$D/killed-zstd.data"
perf record -q -z -o "$D/killed-zstd.data" -m 4 -F 999 -e cpu-clock -- "$EXE" 1000 >/dev/null 2>&1 &
PID=$!
sleep 1.5
kill -9 "$PID" 2>/dev/null; wait "$PID" 2>/dev/null
pkill -9 -P "$PID" 2>/dev/null
done_file "$D/killed-zstd.data"

# patch SRC DST python-expression-on-bytearray-b
patch () {
  python3 - "$1" "$2" "$3" <<'PY'
import struct, sys
src, dst, expr = sys.argv[1:4]
b = bytearray(open(src, 'rb').read())
u64 = lambda o: struct.unpack_from('<Q', b, o)[0]
def put64(o, v): struct.pack_into('<Q', b, o, v)
def put32(o, v): struct.pack_into('<I', b, o, v)
def put16(o, v): struct.pack_into('<H', b, o, v)
exec(expr)
open(dst, 'wb').write(b)
PY
  done_file "$2"
}
C=$OUT/cpu-clock.data
# data.size zeroed in a finished file (what a killed recording looks like, with features).
patch "$C" "$D/data-size-zero.data" 'put64(48, 0)'
S=$OUT/cpu-clock-999.data
# cut inside the data section at a page boundary (a copy that stopped at a page)
patch "$S" "$D/cut-page.data" 'b[:] = b[:((u64(40) + u64(48)*3//4)//4096)*4096]'
# cut in the middle of the data section, not on a page boundary
patch "$S" "$D/cut-mid.data" 'b[:] = b[:u64(40) + u64(48)*3//4 + 4]'
# the header's attr_size does not match the attr stride
patch "$C" "$D/attr-size.data" 'put64(16, u64(16) + 8)'
# a record's size field 0 in the middle of the data section
patch "$C" "$D/record-size-zero.data" '
o = u64(40); end = o + u64(48); n = 0
while o < end:
    t, m, s = struct.unpack_from("<IHH", b, o)
    if t == 9:
        n += 1
        if n == 10: put16(o + 6, 0); break
    o += s'
# the sample_type of the attr loses PERIOD: every sample misparses
patch "$C" "$D/sample-type.data" 'a = u64(24); put64(a + 24, u64(a + 24) & ~0x100)'
# a feature table entry that points past the end of the file
patch "$C" "$D/feature-offset.data" 'ft = u64(40) + u64(48); put64(ft, len(b) + 4096)'
# the zstd recording's COMPRESSED feature section offset broken: nothing decompresses
patch "$OUT/zstd.data" "$D/zstd-feature.data" '
bits = u64(72); ft = u64(40) + u64(48)
idx = bin(bits & ((1 << 27) - 1)).count("1")
put64(ft + 16 * idx, len(b) + 100)'
# the tracepoint recording without the TIME bit in its sample_type
patch "$OUT/tracepoint.data" "$D/tracepoint-no-time.data" 'a = u64(24); put64(a + 24, u64(a + 24) & ~0x4)'
# the tracing data block of the tracepoint recording with its header_page tag damaged
patch "$OUT/tracepoint.data" "$D/tracing-data.data" '
ft = u64(40) + u64(48); sec = u64(ft)
i = b.index(b"header_page", sec); b[i] = 0x58'
# an unknown record type
patch "$C" "$D/record-type.data" '
o = u64(40); end = o + u64(48); n = 0
while o < end:
    t, m, s = struct.unpack_from("<IHH", b, o)
    if t == 9:
        n += 1
        if n == 5: put32(o, 200); break
    o += s'

# a --threads directory whose busiest stream was cut inside a record
rm -rf "$D/threads-cut.data"; cp -r "$OUT/threads.data" "$D/threads-cut.data"
big=$(ls -S "$D/threads-cut.data"/data.* | head -1)
truncate -s $(( $(stat -c %s "$big") - 12 )) "$big"
done_file "$big"

# Every good file is read by perf report and perf script.
for f in "$OUT"/*.data "$OUT"/threads.data; do
  case $f in */stat.data) perf stat report -i "$f" >/dev/null 2>&1 || { echo "perf stat report failed on $f" >&2; FAILS=$((FAILS + 1)); }; continue ;; esac
  perf report --stdio -i "$f" >/dev/null 2>&1 || { echo "perf report failed on $f" >&2; FAILS=$((FAILS + 1)); }
done
[ "$FAILS" = 0 ] || { echo "perf.sh: $FAILS failure(s)" >&2; exit 1; }
