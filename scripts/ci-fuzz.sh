#!/usr/bin/env bash
# Continuous fuzzing smoke run: builds every fuzz target and runs each for a bounded time on
# the seed corpus. Exits non-zero when a target crashes, hangs or runs out of memory, and prints
# the failing input (hex dump and base64) in the log.
#
# Environment:
#   FUZZ_BUDGET      total seconds for the whole script, build included (default 540)
#   FUZZ_SECONDS     upper bound of run seconds per target (default 45)
#   FUZZ_SANITIZER   none | address (default none: tracelint has no unsafe code, and a
#                    -s none build on stable is the fastest; address needs a nightly toolchain
#                    and is ignored with a notice when none is installed)
#   FUZZ_TARGETS     space-separated subset of targets (default: all)
#   FUZZ_TARGET_DIR  cargo target directory (default fuzz/target; under CI=true a cache in
#                    $HOME/.cache so repeated CI runs on one machine reuse the dependency builds)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
start=$(date +%s)
budget=${FUZZ_BUDGET:-540}
per_target_max=${FUZZ_SECONDS:-45}

log() { printf '[ci-fuzz] %s\n' "$*"; }

if ! cargo fuzz --version >/dev/null 2>&1; then
    log "installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi

san=${FUZZ_SANITIZER:-none}
if [[ "$san" != none ]] && ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    log "no nightly toolchain: building without a sanitizer"
    san=none
fi
if [[ "$san" == none ]]; then
    toolchain=(+stable)
    # Without a sanitizer there are no malloc hooks; the targets' capped allocator takes over.
    mem_flags=(-rss_limit_mb=2048)
else
    toolchain=(+nightly)
    mem_flags=(-rss_limit_mb=2048 -malloc_limit_mb=1024)
fi
target_dir=${FUZZ_TARGET_DIR:-}
if [[ -z "$target_dir" && "${CI:-}" == true ]]; then
    target_dir="$HOME/.cache/tracelint-fuzz/target"
fi
tdir=()
if [[ -n "$target_dir" ]]; then
    mkdir -p "$target_dir"
    tdir=(--target-dir "$target_dir")
fi
log "toolchain ${toolchain[*]}, sanitizer $san, budget ${budget}s, target dir ${target_dir:-fuzz/target}"

bash fuzz/seed-corpus.sh

cd fuzz
if [[ -n "${FUZZ_TARGETS:-}" ]]; then
    read -r -a targets <<<"$FUZZ_TARGETS"
else
    mapfile -t targets < <(cargo "${toolchain[@]}" fuzz list)
fi
log "targets: ${targets[*]}"

log "building"
if ! cargo "${toolchain[@]}" fuzz build -s "$san" "${tdir[@]}" >"$root/fuzz/build.log" 2>&1; then
    tail -n 80 "$root/fuzz/build.log"
    log "FAILED: the fuzz targets do not build"
    exit 1
fi
tail -n 2 "$root/fuzz/build.log"

dict_for() {
    case "$1" in
        tracecmd*) echo dict/tracecmd.dict ;;
        gdb*) echo dict/gdb.dict ;;
        ktrace*) echo dict/ktrace.dict ;;
        perf*) echo dict/perf.dict ;;
        uftrace*) echo dict/uftrace.dict ;;
        *)
            cat dict/*.dict >"$tmp/all.dict"
            echo "$tmp/all.dict"
            ;;
    esac
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=()
total_execs=0
remaining=${#targets[@]}
for t in "${targets[@]}"; do
    now=$(date +%s)
    left=$((budget - (now - start) - 10))
    secs=$((left / remaining))
    ((secs > per_target_max)) && secs=$per_target_max
    ((secs < 5)) && secs=5
    remaining=$((remaining - 1))
    mkdir -p "corpus/$t" "artifacts/$t"
    touch "$tmp/stamp"
    sleep 1
    log "running $t for ${secs}s"
    set +e
    cargo "${toolchain[@]}" fuzz run -s "$san" "${tdir[@]}" "$t" "corpus/$t" -- \
        -max_total_time="$secs" -timeout=10 "${mem_flags[@]}" \
        -dict="$(dict_for "$t")" -print_final_stats=1 -max_len=262144 \
        >"$tmp/$t.log" 2>&1
    rc=$?
    set -e
    grep -E '^(#[0-9]+[[:space:]]+(DONE|INITED)|stat::number_of_executed_units|stat::peak_rss_mb)' "$tmp/$t.log" | sed "s/^/[$t] /" || true
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$t.log" | tail -n 1)
    total_execs=$((total_execs + ${execs:-0}))
    mapfile -t found < <(find "artifacts/$t" -type f -newer "$tmp/stamp" \
        \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' -o -name 'leak-*' \) 2>/dev/null)
    if ((rc != 0)) || ((${#found[@]} > 0)); then
        failed+=("$t")
        log "FAILED: $t (exit $rc)"
        grep -A 4 -E 'panicked at|^==[0-9]+== ?ERROR|^SUMMARY' "$tmp/$t.log" | head -n 40 || true
        log "end of the log:"
        tail -n 30 "$tmp/$t.log"
        for a in "${found[@]}"; do
            log "failing input $a ($(wc -c <"$a") bytes), first 512 bytes:"
            head -c 512 "$a" | xxd
            log "base64 (whole input):"
            base64 -w 76 "$a"
        done
    fi
done

log "total executions: $total_execs in $(($(date +%s) - start))s"
if ((${#failed[@]} > 0)); then
    log "failing targets: ${failed[*]}"
    exit 1
fi
log "no crash"
