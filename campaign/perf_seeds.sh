#!/usr/bin/env bash
# Fresh perf.data recordings for the differential campaign, of workloads other than the
# corpus's pf_work (a shell pipeline, gzip, a multi-threaded sort, find, python): perf 6.1 with
# software events and tracepoints only (no hardware PMU needed), every mode the campaign walks:
# file mode, pipe mode (-o -), -z (COMPRESSED records), -g, --call-graph dwarf, -a,
# --no-buildid, sched:sched_switch and other tracepoints, several events at once.
# Usage: campaign/perf_seeds.sh [OUTDIR]   (default /tmp/perf-seeds; kept outside the tree)
# then:  python3 campaign/run.py --formats perf --seeds corpus --seeds /tmp/perf-seeds ...
set -u
OUT=${1:-/tmp/perf-seeds}
mkdir -p "$OUT" || exit 1
command -v perf >/dev/null || { echo "perf_seeds.sh: perf not found" >&2; exit 1; }
WORK=$(mktemp -d /tmp/perf-seeds-work.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
head -c 3000000 /dev/urandom > "$WORK/blob"
# the workloads: each runs for well under a second
W_GZIP="gzip -c -6 $WORK/blob"
W_SORT="sort --parallel=2 -S 8M $WORK/lines"
W_SH="sh -c 'for i in 1 2 3 4 5 6; do ls /usr/bin > /dev/null; cat /etc/passwd | wc -l > /dev/null; done'"
W_FIND="find /usr/share -maxdepth 3 -name '*.gz'"
W_PY="python3 -c 'import hashlib; [hashlib.sha256(bytes(i)).digest() for i in range(30000)]'"
seq 1 300000 | sort -R > "$WORK/lines"
FAILS=0
rec () { # rec NAME WORKLOAD perf-record options...
  local name=$1 work=$2; shift 2
  rm -f "$OUT/$name"
  if ! eval "perf record -q -o \"$OUT/$name\" $* -- $work" >/dev/null 2>"$WORK/$name.log" || [ ! -s "$OUT/$name" ]; then
    echo "FAIL $name: $(tail -2 "$WORK/$name.log")" >&2; FAILS=$((FAILS + 1)); return
  fi
  echo "ok   $name ($(stat -c %s "$OUT/$name") bytes)"
}
pipe () { # pipe NAME WORKLOAD perf-record options...  (pipe mode, -o -)
  local name=$1 work=$2; shift 2
  if ! eval "perf record -q -o - $* -- $work" >"$OUT/$name" 2>"$WORK/$name.log" || [ ! -s "$OUT/$name" ]; then
    echo "FAIL $name" >&2; FAILS=$((FAILS + 1)); return
  fi
  echo "ok   $name ($(stat -c %s "$OUT/$name") bytes)"
}
rec gzip-cpu.data "$W_GZIP" -e cpu-clock -F 499
rec gzip-task-g.data "$W_GZIP" -e task-clock -F 299 -g
rec gzip-dwarf.data "$W_GZIP" -e cpu-clock -F 99 --call-graph dwarf,1024
rec gzip-z.data "$W_GZIP" -e cpu-clock -F 499 -z
rec sort-threads.data "$W_SORT" -e cpu-clock -F 299 --no-buildid
rec sort-switch.data "$W_SORT" -e sched:sched_switch -e cpu-clock -F 199
rec sh-sched.data "$W_SH" -e sched:sched_switch -e sched:sched_process_exec
rec sh-syscalls.data "$W_SH" -e raw_syscalls:sys_enter -c 50
rec sh-task-z.data "$W_SH" -e task-clock -F 999 -z -g
rec find-cpu.data "$W_FIND" -e cpu-clock -F 999 --no-buildid -g
rec py-cpu.data "$W_PY" -e cpu-clock -F 499 --sample-cpu -d
rec py-group.data "$W_PY" -e "'{cpu-clock,task-clock}'" -F 199
rec sys-wide.data "sleep 0.2" -a -e cpu-clock -F 99 --no-buildid
rec sys-wide-z.data "sleep 0.2" -a -e cpu-clock -F 99 -z
rec page-faults.data "$W_PY" -e page-faults -c 200
pipe gzip-pipe.data "$W_GZIP" -e cpu-clock -F 499
pipe sh-pipe-g.data "$W_SH" -e task-clock -F 499 -g
pipe sort-pipe-z.data "$W_SORT" -e cpu-clock -F 299 -z
pipe sh-pipe-sched.data "$W_SH" -e sched:sched_switch
# every recording is read by perf report
for f in "$OUT"/*.data; do
  perf report --stdio -i "$f" >/dev/null 2>&1 || { echo "perf report failed on $f" >&2; FAILS=$((FAILS + 1)); }
done
[ "$FAILS" = 0 ] || { echo "perf_seeds.sh: $FAILS failure(s)" >&2; exit 1; }
