#!/usr/bin/env bash
# Runs .clusterfuzzlite/build.sh outside the builder image: a clean clone of HEAD as
# $SRC/tracelint, a temporary $OUT, nightly cargo (cargo-fuzz installed), ASan as in the
# image. Then checks that every fuzz target is in $OUT and runs each for a few seconds on its
# seed corpus.
#   .clusterfuzzlite/local-build.sh [OUT_DIR]
# CARGO_TARGET_DIR (optional) reuses a build directory between runs.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC=$(mktemp -d)
OUT=${1:-$(mktemp -d)}
mkdir -p "$OUT"
export SRC OUT SANITIZER=address RUSTUP_TOOLCHAIN=nightly
git clone -q "$root" "$SRC/tracelint"
cp "$root/.clusterfuzzlite/build.sh" "$SRC/build.sh"
bash "$SRC/build.sh"
missing=0
for f in "$SRC"/tracelint/fuzz/fuzz_targets/*.rs; do
    t=$(basename "$f" .rs)
    for want in "$t" "$t.dict" "$t.options" "${t}_seed_corpus.zip"; do
        [[ -s "$OUT/$want" ]] || { echo "missing \$OUT/$want"; missing=1; }
    done
    if [[ -x "$OUT/$t" ]]; then
        run=$(mktemp -d)
        (cd "$run" && unzip -q "$OUT/${t}_seed_corpus.zip" -d seeds 2>/dev/null || mkdir -p seeds
         "$OUT/$t" -runs=2000 -timeout=10 -rss_limit_mb=2048 -dict="$OUT/$t.dict" seeds \
             >"$run/log" 2>&1) || { tail -n 20 "$run/log"; echo "$t fails on its seeds"; missing=1; }
        grep -E '^#[0-9]+[[:space:]]+(DONE|INITED)' "$run/log" | tail -n 1 | sed "s/^/$t: /" || true
        rm -rf "$run"
    fi
done
rm -rf "$SRC"
((missing == 0)) && echo "local ClusterFuzzLite build OK: $OUT"
exit "$missing"
