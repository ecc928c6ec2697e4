#!/usr/bin/env bash
# Regenerate the real trace corpus under corpus/ (see scripts/corpus/README.md).
# gdb.sh and uftrace.sh run as any user; tracecmd.sh needs root and tracefs; perf.sh needs
# root (or perf_event_paranoid <= 0) and perf.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
rc=0
for s in gdb uftrace tracecmd perf; do
  echo "== $s"
  bash "$HERE/corpus/$s.sh" || { echo "== $s failed" >&2; rc=1; }
done
exit $rc
