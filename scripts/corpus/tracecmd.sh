#!/usr/bin/env bash
# Regenerate corpus/tracecmd/*.dat: real trace-cmd trace.dat files (v7 zstd, v7 uncompressed,
# v6, several buffers, empty CPUs/buffers, lost events).
# Usage: scripts/corpus/tracecmd.sh [OUTDIR]   (default: <repo>/corpus/tracecmd)
#        STEPS="subbuf clocks marker" scripts/corpus/tracecmd.sh   (only some captures; the
#        steps are: basic full instances empty lost subbuf clocks marker stack allclocks
#        bufsize zlib instonly reencode ustack bigmarker; default: all)
# Needs: root, tracefs, trace-cmd (3.1.x), util-linux (unshare, mount).
#
# `trace-cmd record` is not used: events are enabled by hand in tracefs, a small workload
# runs, tracing is stopped and `trace-cmd extract` copies the ring buffers. Variants with
# other file versions / compression are made with `trace-cmd convert` from the same data.
#
# Size: a plain extract embeds the whole /proc/kallsyms (~5 MB) and the format of every
# kernel event (~2 MB). Except for full-meta-v7-zstd.dat, extract runs in a private mount
# namespace where /proc/kallsyms and <tracefs>/events are bind-mounted over with a subset
# (the first kallsyms lines + the module lines; the header_page/header_event files and the
# formats of the systems listed in META_SYSTEMS, copied verbatim from the running kernel).
# The ring-buffer data is untouched; every recorded event has its format in the file.
# The tracing state (events, tracing_on, buffer size, cpumask, overwrite, instances) is
# restored on exit.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${1:-$ROOT/corpus/tracecmd}
META_SYSTEMS="ftrace sched raw_syscalls timer irq"
KALLSYMS_LINES=${KALLSYMS_LINES:-300}
INST_PREFIX=tracelint
STEPS=${STEPS:-basic full instances empty lost subbuf clocks marker stack allclocks bufsize zlib instonly reencode ustack bigmarker}
step () { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }

die () { echo "tracecmd.sh: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "must run as root (tracefs access and trace-cmd extract need it)"
command -v trace-cmd >/dev/null || die "trace-cmd not found (apt-get install trace-cmd)"
command -v unshare >/dev/null || die "unshare not found (util-linux)"

T=/sys/kernel/tracing
if [ ! -e "$T/tracing_on" ]; then
  mount -t tracefs nodev "$T" 2>/dev/null
fi
if [ ! -e "$T/tracing_on" ] && [ -e /sys/kernel/debug/tracing/tracing_on ]; then
  T=/sys/kernel/debug/tracing
fi
[ -w "$T/tracing_on" ] || die "tracefs not available (tried /sys/kernel/tracing and /sys/kernel/debug/tracing)"
ls "$T"/instances/"$INST_PREFIX"-* >/dev/null 2>&1 && die "instances $T/instances/$INST_PREFIX-* already exist; remove them first"

mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d /tmp/tracelint-tracecmd.XXXXXX)

# ---- save and restore the tracing state -------------------------------------------------
SAVED_ON=$(cat "$T/tracing_on")
SAVED_KB=$(sed -E 's/.*expanded: ([0-9]+).*/\1/' "$T/buffer_size_kb")
SAVED_OW=$(cat "$T/options/overwrite")
SAVED_MASK=$(cat "$T/tracing_cpumask")
SAVED_CLOCK=$(sed -E 's/.*\[([^]]*)\].*/\1/' "$T/trace_clock")
SAVED_SUBBUF=$(cat "$T/buffer_subbuf_size_kb" 2>/dev/null)
cp "$T/set_event" "$WORK/set_event.saved"

restore () {
  echo 0 > "$T/tracing_on"
  echo 0 > "$T/events/enable"
  for d in "$T"/instances/"$INST_PREFIX"-*; do
    [ -d "$d" ] || continue
    echo 0 > "$d/events/enable" 2>/dev/null
    rmdir "$d" || echo "tracecmd.sh: warning: could not remove $d" >&2
  done
  echo "$SAVED_MASK" > "$T/tracing_cpumask"
  echo "$SAVED_OW" > "$T/options/overwrite"
  echo "$SAVED_CLOCK" > "$T/trace_clock"
  [ -n "$SAVED_SUBBUF" ] && echo "$SAVED_SUBBUF" > "$T/buffer_subbuf_size_kb"
  echo "$SAVED_KB" > "$T/buffer_size_kb"
  echo > "$T/trace"
  while read -r ev; do [ -n "$ev" ] && echo "$ev" >> "$T/set_event"; done < "$WORK/set_event.saved"
  echo "$SAVED_ON" > "$T/tracing_on"
  rm -rf "$WORK"
}
trap restore EXIT
trap 'exit 1' INT TERM

# ---- trimmed metadata for the private mount namespace -----------------------------------
META=$WORK/meta
mkdir -p "$META/events"
{ head -n "$KALLSYMS_LINES" /proc/kallsyms; tail -n +"$((KALLSYMS_LINES + 1))" /proc/kallsyms | grep '\[' ; } > "$META/kallsyms"
for f in header_page header_event enable; do cat "$T/events/$f" > "$META/events/$f"; done
for s in $META_SYSTEMS; do
  [ -d "$T/events/$s" ] || continue
  mkdir -p "$META/events/$s"
  [ -e "$T/events/$s/enable" ] && cat "$T/events/$s/enable" > "$META/events/$s/enable"
  [ -e "$T/events/$s/filter" ] && cat "$T/events/$s/filter" > "$META/events/$s/filter"
  for d in "$T/events/$s"/*/; do
    n=$(basename "$d")
    mkdir -p "$META/events/$s/$n"
    for f in format id enable filter; do
      [ -r "$d/$f" ] && cat "$d/$f" > "$META/events/$s/$n/$f" 2>/dev/null
    done
  done
done

# extract_dat OUTFILE full|trimmed [extract args...]
extract_dat () {
  local out=$1 meta=$2; shift 2
  rm -f "$out"
  if [ "$meta" = full ]; then
    trace-cmd extract -o "$out" "$@" >"$WORK/extract.log" 2>&1
  else
    unshare -m --propagation private sh -c '
      mount --bind "$1/kallsyms" /proc/kallsyms &&
      mount --bind "$1/events" "$2/events" &&
      shift 2 && exec trace-cmd extract "$@"' sh "$META" "$T" -o "$out" "$@" >"$WORK/extract.log" 2>&1
  fi
  [ -s "$out" ] || { cat "$WORK/extract.log" >&2; die "extract of $out failed"; }
}

convert_dat () {  # convert_dat IN OUT [convert args]
  local in=$1 out=$2; shift 2
  rm -f "$out"
  trace-cmd convert -i "$in" -o "$out" "$@" >"$WORK/convert.log" 2>&1
  [ -s "$out" ] || { cat "$WORK/convert.log" >&2; die "convert of $in to $out failed"; }
}

# Reset the top buffer (and instances) before every capture: extract consumes the buffers
# and disables the events it finds enabled.
clean () {
  echo 0 > "$T/tracing_on"
  echo 0 > "$T/events/enable"
  echo > "$T/trace"
  for d in "$T"/instances/"$INST_PREFIX"-*; do
    [ -d "$d" ] || continue
    echo 0 > "$d/events/enable"; echo > "$d/trace"
  done
}

workload () {
  ls -l /usr/bin >/dev/null
  sh -c 'echo corpus >/dev/null'
  sleep 0.02
}

# 1. v7, zstd, trimmed metadata: sched_switch / sched_wakeup / process events on both CPUs.
if step basic; then
clean
echo 1 > "$T/events/sched/sched_switch/enable"
echo 1 > "$T/events/sched/sched_wakeup/enable"
echo 1 > "$T/events/sched/sched_process_exec/enable"
echo 1 > "$T/events/sched/sched_process_fork/enable"
echo 1 > "$T/events/sched/sched_process_exit/enable"
echo 1 > "$T/tracing_on"; workload; echo 0 > "$T/tracing_on"
extract_dat "$OUT/v7-zstd.dat" trimmed
# 2./3. the same data re-encoded: v7 uncompressed and v6 (v6 has no compression).
convert_dat "$OUT/v7-zstd.dat" "$OUT/v7-none.dat" --compression none
convert_dat "$OUT/v7-none.dat" "$OUT/v6.dat" --file-version 6
fi

# 4. v7 zstd with the complete metadata as extract writes it (all event formats, all kallsyms).
if step full; then
clean
echo 1 > "$T/events/sched/sched_switch/enable"
echo 1 > "$T/events/sched/sched_process_exec/enable"
echo 1 > "$T/tracing_on"; sleep 0.01; ls / >/dev/null; echo 0 > "$T/tracing_on"
extract_dat "$OUT/full-meta-v7-zstd.dat" full
fi

# 5./6. two buffers: top (sched) + instance $INST_PREFIX-foo (raw_syscalls, timer, irq),
#      v7 zstd and v6. (extract destroys the instances it copied with -a.)
if step instances; then
clean
mkdir "$T/instances/$INST_PREFIX-foo" || die "cannot create instance"
I=$T/instances/$INST_PREFIX-foo
echo 1 > "$T/events/sched/sched_switch/enable"
echo 1 > "$T/events/sched/sched_process_exec/enable"
echo 'id == 0 || id == 1 || id == 59' > "$I/events/raw_syscalls/sys_enter/filter" 2>/dev/null
echo 1 > "$I/events/raw_syscalls/sys_enter/enable"
echo 1 > "$I/events/timer/hrtimer_start/enable"
echo 1 > "$I/events/irq/softirq_entry/enable"
echo 1 > "$T/tracing_on"; echo 1 > "$I/tracing_on"
workload
echo 0 > "$I/tracing_on"; echo 0 > "$T/tracing_on"
extract_dat "$OUT/instances-v7-zstd.dat" trimmed -t -a
convert_dat "$OUT/instances-v7-zstd.dat" "$OUT/instances-v6.dat" --file-version 6
[ -d "$I" ] && rmdir "$I"
fi

# 7./8. empty parts, v7 uncompressed and v6: top buffer traced on CPU 0 only (CPU 1 has no
#    data), plus an instance $INST_PREFIX-idle with no event enabled (no data on any CPU).
if step empty; then
clean
mkdir "$T/instances/$INST_PREFIX-idle" || die "cannot create instance"
echo 1 > "$T/tracing_cpumask"
echo 1 > "$T/events/sched/sched_switch/enable"
echo 1 > "$T/tracing_on"; workload; echo 0 > "$T/tracing_on"
extract_dat "$OUT/empty-cpu-v7-none.dat" trimmed -t -a --compression none
convert_dat "$OUT/empty-cpu-v7-none.dat" "$OUT/empty-cpu-v6.dat" --file-version 6
echo "$SAVED_MASK" > "$T/tracing_cpumask"
[ -d "$T/instances/$INST_PREFIX-idle" ] && rmdir "$T/instances/$INST_PREFIX-idle"
fi

# 9. lost events, v7 zstd: 4 KiB per-CPU ring buffer in overwrite mode and a syscall-heavy
#    workload -> pages flagged with missed events.
if step lost; then
clean
echo 4 > "$T/buffer_size_kb"
echo 1 > "$T/options/overwrite"
echo 1 > "$T/events/raw_syscalls/enable"
echo 1 > "$T/events/sched/sched_switch/enable"
echo 1 > "$T/tracing_on"
dd if=/dev/zero of=/dev/null bs=1 count=20000 2>/dev/null
taskset -c 1 dd if=/dev/zero of=/dev/null bs=1 count=20000 2>/dev/null
echo 0 > "$T/tracing_on"
extract_dat "$OUT/lost-v7-zstd.dat" trimmed
echo "$SAVED_KB" > "$T/buffer_size_kb"
fi

# 10./11. 8 KiB sub-buffers (kernel 6.8+ `buffer_subbuf_size_kb`): the file's page size is
#    8192; sched events and trace_marker writes. v7 zstd and v6.
if step subbuf && [ -n "$SAVED_SUBBUF" ]; then
clean
echo 8 > "$T/buffer_subbuf_size_kb"
# header_page gives the sub-buffer size (trace-cmd takes the file's page size from it)
cat "$T/events/header_page" > "$META/events/header_page"
echo 1 > "$T/events/sched/sched_switch/enable"
echo 1 > "$T/events/sched/sched_process_exec/enable"
echo 1 > "$T/tracing_on"; workload; echo "tracelint subbuf 8k" > "$T/trace_marker"
echo 0 > "$T/tracing_on"
extract_dat "$OUT/subbuf-8k-v7-zstd.dat" trimmed
convert_dat "$OUT/subbuf-8k-v7-zstd.dat" "$OUT/subbuf-8k-v6.dat" --file-version 6
echo "$SAVED_SUBBUF" > "$T/buffer_subbuf_size_kb"
cat "$T/events/header_page" > "$META/events/header_page"
fi

# 12./13./14. other clocks: x86-tsc (v7 zstd, and v6 whose clock record is `[x86-tsc]`) and
#    counter (v6), with an instance on the `mono` clock and 16 KiB sub-buffers (v7 zstd).
if step clocks; then
clean
if grep -q x86-tsc "$T/trace_clock"; then
  echo x86-tsc > "$T/trace_clock"
  echo 1 > "$T/events/sched/sched_switch/enable"
  echo 1 > "$T/tracing_on"; workload; echo 0 > "$T/tracing_on"
  extract_dat "$OUT/clock-x86-tsc-v7-zstd.dat" trimmed
  convert_dat "$OUT/clock-x86-tsc-v7-zstd.dat" "$OUT/clock-x86-tsc-v6.dat" --file-version 6
  clean
fi
echo counter > "$T/trace_clock"
mkdir "$T/instances/$INST_PREFIX-mono" || die "cannot create instance"
I=$T/instances/$INST_PREFIX-mono
echo mono > "$I/trace_clock"
[ -e "$I/buffer_subbuf_size_kb" ] && echo 16 > "$I/buffer_subbuf_size_kb"
echo 1 > "$T/events/sched/sched_switch/enable"
echo 1 > "$I/events/sched/sched_process_exec/enable"
echo 1 > "$I/events/timer/hrtimer_start/enable"
echo 1 > "$T/tracing_on"; echo 1 > "$I/tracing_on"
workload
echo 0 > "$I/tracing_on"; echo 0 > "$T/tracing_on"
extract_dat "$OUT/clock-counter-inst-v7-zstd.dat" trimmed -t -a
convert_dat "$OUT/clock-counter-inst-v7-zstd.dat" "$OUT/clock-counter-v6.dat" --file-version 6
[ -d "$I" ] && rmdir "$I"
echo "$SAVED_CLOCK" > "$T/trace_clock"
fi

# 15./16. trace_marker and trace_marker_raw writes only (ftrace:print, ftrace:raw_data), v7
#    uncompressed and v6.
if step marker; then
clean
echo 1 > "$T/tracing_on"
for i in 1 2 3 4 5; do echo "tracelint marker $i" > "$T/trace_marker"; done
printf '\001\000\000\000raw-marker' > "$T/trace_marker_raw" 2>/dev/null
echo 0 > "$T/tracing_on"
extract_dat "$OUT/marker-v7-none.dat" trimmed --compression none
convert_dat "$OUT/marker-v7-none.dat" "$OUT/marker-v6.dat" --file-version 6
fi

# ftrace:kernel_stack records after each sched_switch (options/stacktrace): the kernel sizes
# each record by the frames it captured, shorter than the format's nominal caller[8].
if step stack; then
clean
SAVED_STACK=$(cat "$T/options/stacktrace")
echo 1 > "$T/events/sched/sched_switch/enable"
echo 1 > "$T/options/stacktrace"
echo 1 > "$T/tracing_on"; workload; echo 0 > "$T/tracing_on"
echo "$SAVED_STACK" > "$T/options/stacktrace"
extract_dat "$OUT/kernel-stack-v7-zstd.dat" trimmed
convert_dat "$OUT/kernel-stack-v7-zstd.dat" "$OUT/kernel-stack-v6.dat" --file-version 6 --compression none
fi

# Not recorded here: the function and function_graph tracers (this kernel offers `function`
# in available_tracers but writing it to current_tracer, set_ftrace_filter or set_ftrace_pid
# fails with EPERM; function_graph is not built in), snapshots (`extract -s`: no `snapshot`
# file, CONFIG_TRACER_SNAPSHOT is off) and compression levels (no trace-cmd version up to
# 3.3.4 has an option for them; `--compression` takes only an algorithm name).

# clock-<name>-v7-zstd.dat / clock-<name>-v6.dat: every other trace clock the kernel offers
# (x86-tsc and counter are above): trace_marker writes and sched_switch, extract, convert.
if step allclocks; then
for c in local global uptime perf mono mono_raw boot tai; do
  grep -qw "$c" "$T/trace_clock" || { echo "clock $c: not offered by this kernel"; continue; }
  clean
  echo "$c" > "$T/trace_clock"
  echo 1 > "$T/events/sched/sched_switch/enable"
  echo 1 > "$T/tracing_on"
  for i in 1 2 3; do echo "tracelint clock $c $i" > "$T/trace_marker"; sleep 0.005; done
  echo 0 > "$T/tracing_on"
  extract_dat "$OUT/clock-$c-v7-zstd.dat" trimmed
  convert_dat "$OUT/clock-$c-v7-zstd.dat" "$OUT/clock-$c-v6.dat" --file-version 6
done
echo "$SAVED_CLOCK" > "$T/trace_clock"
fi

# lost-bufsize-tiny-*: buffer_size_kb 1 (the kernel keeps its minimum of pages per CPU) in
# overwrite mode under a syscall-heavy load, so every CPU buffer holds only its last pages;
# bufsize-big-v7-zstd.dat: buffer_size_kb 16384 with the same load (nothing lost).
if step bufsize; then
for b in tiny big; do
  clean
  if [ $b = tiny ]; then echo 1 > "$T/buffer_size_kb"; else echo 16384 > "$T/buffer_size_kb"; fi
  echo 1 > "$T/options/overwrite"
  echo 1 > "$T/events/sched/sched_switch/enable"
  echo 1 > "$T/events/raw_syscalls/sys_enter/enable"
  echo 'id == 0 || id == 1' > "$T/events/raw_syscalls/sys_enter/filter"
  echo 1 > "$T/tracing_on"
  dd if=/dev/zero of=/dev/null bs=1 count=300 2>/dev/null
  taskset -c 1 dd if=/dev/zero of=/dev/null bs=1 count=300 2>/dev/null
  echo 0 > "$T/tracing_on"
  echo 0 > "$T/events/raw_syscalls/sys_enter/filter"
  # (names of captures that lose events start with lost-)
  n=bufsize-$b; [ $b = tiny ] && n=lost-bufsize-tiny
  extract_dat "$OUT/$n-v7-zstd.dat" trimmed
  [ $b = tiny ] && convert_dat "$OUT/$n-v7-zstd.dat" "$OUT/$n-v6.dat" --file-version 6
  echo "$SAVED_KB" > "$T/buffer_size_kb"
  echo "$SAVED_OW" > "$T/options/overwrite"
done
fi

# zlib-v7.dat / instances-v7-zlib.dat: zlib compression. Debian's trace-cmd is built with
# zstd only; TRACECMD_ZLIB (default: the trace-cmd 3.3.4 of scripts/readers.sh) converts.
if step zlib; then
ZL=${TRACECMD_ZLIB:-$HOME/.cache/tracelint/readers/trace-cmd-3.3.4/bin/trace-cmd}
if [ -x "$ZL" ] && "$ZL" list -c 2>/dev/null | grep -q zlib; then
  for pair in "v7-none.dat zlib-v7.dat" "instances-v7-zstd.dat instances-v7-zlib.dat"; do
    set -- $pair
    rm -f "$OUT/$2"
    "$ZL" convert -i "$OUT/$1" -o "$OUT/$2" --compression zlib >"$WORK/convert.log" 2>&1
    [ -s "$OUT/$2" ] || { cat "$WORK/convert.log" >&2; die "zlib convert of $1 failed"; }
  done
else
  echo "zlib: no trace-cmd with zlib at $ZL (set TRACECMD_ZLIB)"
fi
fi

# instonly-v7-zstd.dat / instonly-v6.dat: `extract -B` of one instance and not the top buffer:
# the file's only buffer is a named one.
if step instonly; then
clean
mkdir "$T/instances/$INST_PREFIX-only" || die "cannot create instance"
I=$T/instances/$INST_PREFIX-only
echo 1 > "$I/events/sched/sched_switch/enable"
echo 1 > "$I/tracing_on"
for i in 1 2; do echo "tracelint instance only $i" > "$I/trace_marker"; done
workload
echo 0 > "$I/tracing_on"
extract_dat "$OUT/instonly-v7-zstd.dat" trimmed -B "$INST_PREFIX-only"
convert_dat "$OUT/instonly-v7-zstd.dat" "$OUT/instonly-v6.dat" --file-version 6
[ -d "$I" ] && { echo 0 > "$I/events/enable"; rmdir "$I"; }
fi

# reencode: the other file versions of captures above: lost events as v6 and v7
# uncompressed, markers and an empty CPU as v7 zstd.
if step reencode; then
[ -s "$OUT/lost-v7-zstd.dat" ] && convert_dat "$OUT/lost-v7-zstd.dat" "$OUT/lost-v6.dat" --file-version 6
[ -s "$OUT/lost-v7-zstd.dat" ] && convert_dat "$OUT/lost-v7-zstd.dat" "$OUT/lost-v7-none.dat" --compression none
[ -s "$OUT/marker-v7-none.dat" ] && convert_dat "$OUT/marker-v7-none.dat" "$OUT/marker-v7-zstd.dat" --compression zstd
[ -s "$OUT/empty-cpu-v7-none.dat" ] && convert_dat "$OUT/empty-cpu-v7-none.dat" "$OUT/empty-cpu-v7-zstd.dat" --compression zstd
fi

# ustack-*: ftrace:user_stack records after each sched_switch (options/userstacktrace), sized
# by the kernel like kernel_stack. v7 zstd and v6.
if step ustack && [ -e "$T/options/userstacktrace" ]; then
clean
SAVED_USTACK=$(cat "$T/options/userstacktrace")
echo 1 > "$T/events/sched/sched_switch/enable"
echo 1 > "$T/options/userstacktrace"
echo 1 > "$T/tracing_on"; workload; echo 0 > "$T/tracing_on"
echo "$SAVED_USTACK" > "$T/options/userstacktrace"
extract_dat "$OUT/ustack-v7-zstd.dat" trimmed
convert_dat "$OUT/ustack-v7-zstd.dat" "$OUT/ustack-v6.dat" --file-version 6
fi

# bigmarker-*: trace_marker writes of 1000 and 4000 bytes (the kernel cuts a write to what one
# event on a page can hold) and a 2000-byte trace_marker_raw write: events that fill most of a
# page. v7 uncompressed and v6.
if step bigmarker; then
clean
echo 1 > "$T/tracing_on"
head -c 1000 /dev/zero | tr '\0' a > "$T/trace_marker"
head -c 4000 /dev/zero | tr '\0' b > "$T/trace_marker"
{ printf '\002\000\000\000'; head -c 2000 /dev/zero | tr '\0' r; } > "$T/trace_marker_raw" 2>/dev/null
echo "tracelint after big markers" > "$T/trace_marker"
echo 0 > "$T/tracing_on"
extract_dat "$OUT/bigmarker-v7-none.dat" trimmed --compression none
convert_dat "$OUT/bigmarker-v7-none.dat" "$OUT/bigmarker-v6.dat" --file-version 6
fi

clean

# ---- read every file back -----------------------------------------------------------------
# (zlib files with TRACECMD_ZLIB when it is there: Debian's trace-cmd reads zstd only)
ZL=${TRACECMD_ZLIB:-$HOME/.cache/tracelint/readers/trace-cmd-3.3.4/bin/trace-cmd}
for f in "$OUT"/*.dat; do
  tc=trace-cmd
  case $f in *zlib*) [ -x "$ZL" ] && tc=$ZL ;; esac
  n=$(timeout 60 "$tc" report -i "$f" 2>/dev/null | grep -c -v -E '^(cpus=|version = )')
  d=$(timeout 60 "$tc" report -i "$f" 2>/dev/null | grep -c 'EVENTS DROPPED')
  v=$(timeout 60 "$tc" dump -i "$f" --summary 2>/dev/null | awk '/\[Version\]/{print $1}')
  err=$(timeout 60 "$tc" report -i "$f" 2>&1 >/dev/null | head -n 1)
  printf '%-28s %8d bytes  v%s  %5d report lines  %d dropped-markers %s\n' \
    "${f#$ROOT/}" "$(stat -c %s "$f")" "$v" "$n" "$d" "${err:+ stderr: $err}"
done
