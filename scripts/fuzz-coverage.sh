#!/usr/bin/env bash
# Line coverage of the decoders reached by the fuzz corpora:
#   scripts/fuzz-coverage.sh [TARGET...]
#
# For every target (default: every fuzz/fuzz_targets/*.rs), runs `cargo +nightly fuzz coverage`
# over fuzz/corpus/<target>/ (filled by fuzz/seed-corpus.sh first, so a fresh checkout measures
# its seeds), merges the profiles of all targets and prints, with `llvm-cov export`, the line
# coverage of each decoder module:
#   src/formats/<fmt>/   (writer.rs left out: the test and fuzz writers, not a decoder)
#   src/reader.rs, src/detect.rs, src/check.rs, src/archive/ (when it exists)
# as a Markdown table (also written to fuzz/coverage/summary.md), then the ten files of each
# module with the most lines not reached (fuzz/coverage/cold.txt). The per-line report is left
# in fuzz/coverage/html/ (`llvm-cov show -format=html`) when FUZZ_COVERAGE_HTML=1.
#
# Needs llvm-cov and llvm-profdata of the nightly toolchain's LLVM version: the
# `llvm-tools-preview` component (`rustup component add llvm-tools-preview --toolchain
# nightly`), else LLVM_COV / LLVM_PROFDATA pointing at a matching llvm-<version> install.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root/fuzz"
if (($# > 0)); then
    targets=("$@")
else
    targets=()
    for f in fuzz_targets/*.rs; do targets+=("$(basename "$f" .rs)"); done
fi

sysroot=$(rustc +nightly --print sysroot)
host=$(rustc +nightly -vV | sed -n 's/^host: //p')
tools="$sysroot/lib/rustlib/$host/bin"
llvm_cov=${LLVM_COV:-$tools/llvm-cov}
llvm_profdata=${LLVM_PROFDATA:-$tools/llvm-profdata}
for t in "$llvm_cov" "$llvm_profdata"; do
    if [[ ! -x "$t" ]]; then
        echo "missing $t: rustup component add llvm-tools-preview --toolchain nightly" >&2
        echo "(or set LLVM_COV / LLVM_PROFDATA to llvm-$(rustc +nightly -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p') tools)" >&2
        exit 2
    fi
done

FUZZ_TARGETS="${targets[*]}" bash "$root/fuzz/seed-corpus.sh" >/dev/null
mkdir -p coverage
objects=()
profiles=()
for t in "${targets[@]}"; do
    # A snapshot (hard links): a campaign running meanwhile may replace corpus files.
    rm -rf "coverage/corpus-$t"
    cp -al "corpus/$t" "coverage/corpus-$t"
    echo "coverage: $t ($(find "coverage/corpus-$t" -type f | wc -l) inputs)" >&2
    nice -n 10 cargo +nightly fuzz coverage "$t" "coverage/corpus-$t" -- -rss_limit_mb=2048 -timeout=30 \
        >"coverage/$t.log" 2>&1 || {
        tail -n 30 "coverage/$t.log" >&2
        echo "coverage run of $t failed" >&2
        exit 1
    }
    rm -rf "coverage/corpus-$t"
    objects+=("target/$host/coverage/$host/release/$t")
    profiles+=("coverage/$t/coverage.profdata")
done
"$llvm_profdata" merge -sparse "${profiles[@]}" -o coverage/all.profdata
obj_args=("${objects[0]}")
for o in "${objects[@]:1}"; do obj_args+=(-object "$o"); done
"$llvm_cov" export -summary-only -instr-profile=coverage/all.profdata "${obj_args[@]}" \
    >coverage/all.json
if [[ "${FUZZ_COVERAGE_HTML:-}" == 1 ]]; then
    "$llvm_cov" show -format=html -output-dir=coverage/html -instr-profile=coverage/all.profdata \
        "${obj_args[@]}" --ignore-filename-regex='/.cargo/|rustc/|/fuzz/' >/dev/null
fi

python3 - "$root" "${targets[*]}" <<'PY'
import json, os, sys

root, targets = sys.argv[1], sys.argv[2]
data = json.load(open(os.path.join(root, "fuzz/coverage/all.json")))
src = os.path.join(root, "src") + os.sep
files = {}
for f in data["data"][0]["files"]:
    name = f["filename"]
    if not name.startswith(src):
        continue
    rel = name[len(root) + 1:]
    lines = f["summary"]["lines"]
    files[rel] = (lines["count"], lines["covered"])


def module_of(rel):
    parts = rel.split("/")
    base = parts[-1]
    if base == "writer.rs" or base.endswith("_tests.rs") or base == "tests.rs":
        return None
    if rel.startswith("src/formats/") and len(parts) > 3:
        return "src/formats/" + parts[2] + "/"
    if rel.startswith("src/archive/"):
        return "src/archive/"
    if rel in ("src/reader.rs", "src/detect.rs", "src/check.rs"):
        return rel
    return None


mods = {}
for rel, (n, c) in files.items():
    m = module_of(rel)
    if m:
        mods.setdefault(m, []).append((rel, n, c))

out = ["| module | lines | reached | line coverage |", "|---|---:|---:|---:|"]
cold = []
for m in sorted(mods):
    n = sum(x[1] for x in mods[m])
    c = sum(x[2] for x in mods[m])
    pct = 100.0 * c / n if n else 100.0
    out.append(f"| `{m}` | {n} | {c} | {pct:.1f} % |")
    cold.append(f"{m}: {pct:.1f} %")
    for rel, fn, fc in sorted(mods[m], key=lambda x: x[2] - x[1])[:10]:
        if fn > fc:
            cold.append(f"    {rel}: {fn - fc} of {fn} lines not reached ({100.0 * fc / fn:.1f} %)")
table = "\n".join(out)
print(table)
with open(os.path.join(root, "fuzz/coverage/summary.md"), "w") as f:
    f.write(f"targets: {targets}\n\n{table}\n")
with open(os.path.join(root, "fuzz/coverage/cold.txt"), "w") as f:
    f.write("\n".join(cold) + "\n")
print("\nfiles with the most lines not reached: fuzz/coverage/cold.txt")
PY
