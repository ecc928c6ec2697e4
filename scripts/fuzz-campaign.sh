#!/usr/bin/env bash
# Long fuzzing campaign on one target: scripts/fuzz-campaign.sh TARGET SECONDS [extra libFuzzer flags]
#
# Seeds fuzz/corpus/TARGET from corpus/, runs one fuzzing job (the machine is shared: a single libFuzzer process, no -jobs),
# and writes the libFuzzer log to fuzz/logs/TARGET-<utc time>.log. Prints the final coverage
# and execution figures. A crash leaves its input in fuzz/artifacts/TARGET/; minimise it with
#   cd fuzz && cargo fuzz tmin -s none TARGET artifacts/TARGET/crash-...
# and commit the result under corpus/<fmt>/regressions/ (see fuzz/README.md).
#
# Environment: FUZZ_SANITIZER (none | address; default none), FUZZ_RSS_MB (default 2048).
set -euo pipefail
if (($# < 2)); then
    echo "usage: $0 TARGET SECONDS [libFuzzer flags...]" >&2
    exit 2
fi
target=$1
secs=$2
shift 2
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
san=${FUZZ_SANITIZER:-none}
if [[ "$san" == none ]]; then tc=+stable; else tc=+nightly; fi

bash "$root/fuzz/seed-corpus.sh" >/dev/null
cd "$root/fuzz"
case "$target" in
    tracecmd*) dict=dict/tracecmd.dict ;;
    gdb*) dict=dict/gdb.dict ;;
    ktrace*) dict=dict/ktrace.dict ;;
    uftrace*) dict=dict/uftrace.dict ;;
    *) dict=logs/all.dict ;;
esac
mkdir -p logs "corpus/$target" "artifacts/$target"
cat dict/*.dict >logs/all.dict
log="logs/$target-$(date -u +%Y%m%dT%H%M%SZ).log"
set +e
cargo "$tc" fuzz run -s "$san" "$target" "corpus/$target" -- \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb="${FUZZ_RSS_MB:-2048}" \
    -dict="$dict" -print_final_stats=1 -max_len=262144 "$@" \
    >"$log" 2>&1
rc=$?
set -e
grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)' "$log" || true
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" || true
echo "log: fuzz/$log (exit $rc)"
if ((rc != 0)); then
    grep -E 'panicked at|ERROR: libFuzzer|SUMMARY|Test unit written' "$log" | head -n 10
fi
exit "$rc"
