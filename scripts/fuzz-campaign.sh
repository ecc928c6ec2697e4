#!/usr/bin/env bash
# Fuzzing campaign on one target:
#   scripts/fuzz-campaign.sh TARGET SECONDS [libFuzzer flags...]
#
# Fills fuzz/corpus/TARGET with the seeds (fuzz/seed-corpus.sh: corpus/, the samples, the
# committed fuzz/seeds/TARGET/), then runs ONE libFuzzer process (no -jobs/-fork: the machine
# is shared) under `nice -n 10`, with AddressSanitizer on nightly by default, -timeout=10,
# -rss_limit_mb=2048, the format's dictionary and a -max_len that suits the target. It stops
# after SECONDS, or after FUZZ_RUNS executions when that is set, whichever comes first.
#
# The build and libFuzzer log goes to fuzz/logs/TARGET-<utc time>.log; a row
#   date target sanitizer seconds executions exec/s cov ft corpus crashes exit
# (seconds of fuzzing, the build left out) is appended to fuzz/campaigns.tsv (committed: the
# record of what was run). A crash, timeout or out-of-memory leaves its input in
# fuzz/artifacts/TARGET/ and is counted in `crashes`; minimise it with
#   cd fuzz && cargo +nightly fuzz tmin TARGET artifacts/TARGET/crash-...
# and commit it under corpus/<fmt>/regressions/ (see fuzz/README.md).
#
# Environment: FUZZ_SANITIZER (address | none; default address, which needs nightly),
# FUZZ_RSS_MB (default 2048), FUZZ_MAX_LEN (default by target), FUZZ_RUNS (stop after this
# many executions), FUZZ_NICE (default 10).
set -euo pipefail
if (($# < 2)); then
    echo "usage: $0 TARGET SECONDS [libFuzzer flags...]" >&2
    exit 2
fi
target=$1
secs=$2
shift 2
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
san=${FUZZ_SANITIZER:-address}
if [[ "$san" == none ]]; then tc=+stable; else tc=+nightly; fi
if [[ ! -f "$root/fuzz/fuzz_targets/$target.rs" ]]; then
    echo "no fuzz target $target (fuzz/fuzz_targets/$target.rs)" >&2
    exit 2
fi

FUZZ_TARGETS=$target bash "$root/fuzz/seed-corpus.sh" >/dev/null
cd "$root/fuzz"
mkdir -p logs "corpus/$target" "artifacts/$target"
cat dict/*.dict >logs/all.dict
dict=logs/all.dict
for d in dict/*.dict; do
    fmt=$(basename "$d" .dict)
    if [[ "$target" == "$fmt"* ]]; then dict=$d; fi
done
if grep -q 'structured::' "fuzz_targets/$target.rs"; then
    max_len=16384 # `arbitrary` bytes: a model rarely needs more
else
    case "$target" in
        gdb* | ktrace*) max_len=65536 ;;
        *) max_len=262144 ;;
    esac
fi
max_len=${FUZZ_MAX_LEN:-$max_len}
runs=()
if [[ -n "${FUZZ_RUNS:-}" ]]; then runs=(-runs="$FUZZ_RUNS"); fi

stamp=$(mktemp)
trap 'rm -f "$stamp"' EXIT
log="logs/$target-$(date -u +%Y%m%dT%H%M%SZ).log"
echo "campaign: $target, ${secs}s, sanitizer $san, dict $dict, max_len $max_len, log fuzz/$log"
# Build first, so that `seconds` counts fuzzing only.
if ! nice -n "${FUZZ_NICE:-10}" cargo "$tc" fuzz build -s "$san" "$target" >"$log" 2>&1; then
    tail -n 30 "$log"
    echo "the fuzz target $target does not build" >&2
    exit 1
fi
t0=$(date +%s)
set +e
nice -n "${FUZZ_NICE:-10}" cargo "$tc" fuzz run -s "$san" "$target" "corpus/$target" -- \
    -max_total_time="$secs" "${runs[@]}" -timeout=10 -rss_limit_mb="${FUZZ_RSS_MB:-2048}" \
    -dict="$dict" -print_final_stats=1 -max_len="$max_len" "$@" \
    >>"$log" 2>&1
rc=$?
set -e
elapsed=$(($(date +%s) - t0))

last=$(grep -E '^#[0-9]+[[:space:]].*cov: ' "$log" | tail -n 1 || true)
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
corp=$(find "corpus/$target" -type f | wc -l)
crashes=$(find "artifacts/$target" -type f -newer "$stamp" \
    \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' -o -name 'leak-*' \) | wc -l)
if [[ ! -f campaigns.tsv ]]; then
    printf 'date\ttarget\tsanitizer\tseconds\texecutions\texec_per_s\tcov\tft\tcorpus\tcrashes\texit\n' >campaigns.tsv
fi
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$target" "$san" \
    "$elapsed" "${execs:-0}" "${rate:-0}" "${cov:--}" "${ft:--}" "$corp" "$crashes" "$rc" >>campaigns.tsv
echo "$last"
tail -n 1 campaigns.tsv
if ((rc != 0)); then
    grep -E 'panicked at|ERROR: libFuzzer|ERROR: AddressSanitizer|SUMMARY|Test unit written' "$log" | head -n 10
fi
exit "$rc"
