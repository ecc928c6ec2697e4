#!/bin/bash -eu
# Builds every fuzz target (fuzz/fuzz_targets/*.rs) for ClusterFuzzLite / OSS-Fuzz and puts
# into $OUT, per target: the binary, its dictionary (<target>.dict), its libFuzzer options
# (<target>.options) and its seed corpus (<target>_seed_corpus.zip: fuzz/seeds/<target>/ and,
# for the raw-byte targets, the real files under corpus/, as fuzz/seed-corpus.sh gathers them).
#
# In the builder image, cargo is a wrapper that adds the sanitizer and coverage flags of the
# build ($SANITIZER); `cargo fuzz build -O --debug-assertions` keeps overflow checks on.
# Locally: .clusterfuzzlite/local-build.sh (same script, temporary $SRC and $OUT).
cd "$SRC/tracelint"
host=x86_64-unknown-linux-gnu
target_dir=${CARGO_TARGET_DIR:-$PWD/fuzz/target}
(cd fuzz && cargo fuzz build -O --debug-assertions --target-dir "$target_dir")

targets=()
for f in fuzz/fuzz_targets/*.rs; do
    targets+=("$(basename "$f" .rs)")
done
FUZZ_TARGETS="${targets[*]}" bash fuzz/seed-corpus.sh

cat fuzz/dict/*.dict >"$OUT/all.dict.tmp"
for t in "${targets[@]}"; do
    cp "$target_dir/$host/release/$t" "$OUT/$t"
    dict="$OUT/all.dict.tmp"
    for d in fuzz/dict/*.dict; do
        if [[ "$t" == "$(basename "$d" .dict)"* ]]; then dict=$d; fi
    done
    cp "$dict" "$OUT/$t.dict"
    if grep -q 'structured::' "fuzz/fuzz_targets/$t.rs"; then
        max_len=16384
    else
        case "$t" in
            gdb* | ktrace*) max_len=65536 ;;
            *) max_len=262144 ;;
        esac
    fi
    printf '[libfuzzer]\nmax_len = %s\ntimeout = 10\nrss_limit_mb = 2048\ndict = %s.dict\n' \
        "$max_len" "$t" >"$OUT/$t.options"
    python3 - "fuzz/corpus/$t" "$OUT/${t}_seed_corpus.zip" <<'PY'
import os, sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as z:
    if os.path.isdir(src):
        for n in sorted(os.listdir(src)):
            z.write(os.path.join(src, n), n)
PY
done
rm -f "$OUT/all.dict.tmp"
echo "built ${#targets[@]} fuzz targets into $OUT: ${targets[*]}"
