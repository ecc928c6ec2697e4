#!/usr/bin/env bash
# Seed inputs of the fuzz targets.
#
#   fuzz/seed-corpus.sh           fill fuzz/corpus/<target>/ (gitignored) for every target in
#                                 fuzz/fuzz_targets/*.rs
#   fuzz/seed-corpus.sh --regen   after a campaign: minimise each fuzz/corpus/<target>/ with
#                                 `cargo fuzz cmin` and rewrite fuzz/seeds/<target>/ from it
#
# Where the inputs of a target come from (its format is the longest corpus/<fmt> folder name
# that starts its name, `gdb_tfile` -> gdb; `detect_and_check` takes every format):
#   * fuzz/seeds/<target>/: the committed, minimised seed set (every target);
#   * raw-byte targets only: the real files under corpus/<fmt>/ (good files, defects,
#     regressions) and, when present, the real files under $FUZZ_SAMPLES (default
#     ../shared/samples next to the checkout: */<fmt>/**); uftrace data directories become
#     directory images (see tracelint::fuzzing::decode_dir_image).
# Structure-aware targets (their source names `structured::`) take `arbitrary` bytes, so only
# their own seed set applies. Files are named by content hash: running this again adds nothing
# twice.
#
# --regen keeps, per target, at most FUZZ_SEED_COUNT (default 96) of the cmin output's files
# of at most FUZZ_SEED_BYTES (default 8192) bytes, spread evenly over their sizes, named by
# the first 16 hex digits of their SHA-1, and never a file that is byte-identical to one under
# corpus/ or the samples (those are read at campaign time and are not copied into
# fuzz/seeds/). Hand-made seeds (any other name, e.g. fuzz/seeds/ktrace/v0.ktrace) are kept.
#
# Environment: FUZZ_TARGETS (subset), FUZZ_SAMPLES, FUZZ_MAX_SEED_BYTES (largest input copied
# into a working corpus, default 4 MiB; libFuzzer cuts longer inputs to -max_len),
# FUZZ_SANITIZER (for --regen; default address on nightly).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode=fill
if [[ "${1:-}" == --regen ]]; then
    mode=regen
fi
samples=${FUZZ_SAMPLES:-$root/../shared/samples}
if [[ -n "${FUZZ_TARGETS:-}" ]]; then
    read -r -a targets <<<"$FUZZ_TARGETS"
else
    targets=()
    for f in "$root"/fuzz/fuzz_targets/*.rs; do
        targets+=("$(basename "$f" .rs)")
    done
fi

if [[ "$mode" == regen ]]; then
    san=${FUZZ_SANITIZER:-address}
    if [[ "$san" == none ]]; then tc=+stable; else tc=+nightly; fi
    cd "$root/fuzz"
    for t in "${targets[@]}"; do
        [[ -d "corpus/$t" ]] || continue
        before=$(find "corpus/$t" -type f | wc -l)
        nice -n 10 cargo "$tc" fuzz cmin -s "$san" "$t" "corpus/$t" -- \
            -rss_limit_mb=2048 -timeout=10 -max_len=262144 >"/tmp/cmin-$t.log" 2>&1 || {
            tail -n 20 "/tmp/cmin-$t.log"
            echo "cmin failed for $t" >&2
            exit 1
        }
        after=$(find "corpus/$t" -type f | wc -l)
        echo "$t: cmin $before -> $after inputs"
    done
fi

python3 - "$mode" "$root" "$samples" "${FUZZ_MAX_SEED_BYTES:-4194304}" \
    "${FUZZ_SEED_COUNT:-96}" "${FUZZ_SEED_BYTES:-8192}" "${targets[@]}" <<'PY'
import hashlib, os, re, struct, sys

mode, root, samples = sys.argv[1], sys.argv[2], sys.argv[3]
max_seed, seed_count, seed_bytes = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
targets = sys.argv[7:]
corpus = os.path.join(root, "corpus")
fuzzdir = os.path.join(root, "fuzz")
out = os.path.join(fuzzdir, "corpus")
formats = sorted(
    (d for d in os.listdir(corpus) if os.path.isdir(os.path.join(corpus, d))),
    key=len,
    reverse=True,
)


def fmt_of(target):
    if target.startswith("detect"):
        return "detect"
    for f in formats:
        if target.startswith(f):
            return f
    return None


def structured(target):
    src = os.path.join(fuzzdir, "fuzz_targets", target + ".rs")
    try:
        with open(src, encoding="utf-8") as f:
            return "structured::" in f.read()
    except OSError:
        return False


def read(p):
    with open(p, "rb") as f:
        return f.read()


def files(base, recursive=True, limit=max_seed):
    if not os.path.isdir(base):
        return
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames.sort()
        for n in sorted(filenames):
            if n.endswith(".md"):
                continue
            p = os.path.join(dirpath, n)
            if os.path.isfile(p) and os.path.getsize(p) <= limit:
                yield p
        if not recursive:
            break


def image(entries):
    b = bytearray()
    for name, data in entries:
        nb = name.encode()[:255]
        b += bytes([len(nb)]) + nb + struct.pack("<I", len(data)) + data
    return bytes(b)


CORE = ("info", "task.txt", "default.opts", "events.txt")


def dir_entries(d, compact):
    entries = []
    for n in sorted(os.listdir(d)):
        p = os.path.join(d, n)
        if not os.path.isfile(p):
            continue
        core = n in CORE or n.endswith(".dat") or n.endswith(".map")
        if compact and not core and os.path.getsize(p) > 2048:
            continue
        if os.path.getsize(p) > max_seed:
            continue
        entries.append((n, read(p)))
    return entries


def uftrace_dirs(base):
    """Every uftrace data directory (an `info` file) under base, and regression images."""
    if not os.path.isdir(base):
        return
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames.sort()
        if "info" in filenames:
            dirnames.clear()
            yield "dir", dirpath
        elif os.path.basename(dirpath) == "regressions":
            for n in sorted(filenames):
                if not n.endswith(".md"):
                    yield "image", os.path.join(dirpath, n)


def sample_dirs(fmt):
    """Folders named <fmt> under the samples tree (any depth)."""
    if not os.path.isdir(samples):
        return []
    found = []
    for dirpath, dirnames, _ in os.walk(samples):
        dirnames.sort()
        if os.path.basename(dirpath) == fmt:
            found.append(dirpath)
            dirnames.clear()
    return found


def real_inputs(fmt):
    """(bytes) of every real input of a raw-byte target's format."""
    if fmt == "uftrace":
        for base in [os.path.join(corpus, "uftrace")] + sample_dirs("uftrace"):
            for kind, p in uftrace_dirs(base):
                if kind == "image":
                    yield read(p)
                else:
                    full = image(dir_entries(p, False))
                    if len(full) <= max_seed:
                        yield full
                    yield image(dir_entries(p, True))
        return
    if fmt == "detect":
        for f in formats:
            if f not in ("uftrace", "detect"):
                yield from real_inputs(f)
        for p in files(os.path.join(corpus, "detect")):
            yield read(p)
        return
    for p in files(os.path.join(corpus, fmt)):
        yield read(p)
    for d in sample_dirs(fmt):
        for p in files(d):
            yield read(p)


def sha(data):
    return hashlib.sha1(data).hexdigest()


if mode == "fill":
    for t in targets:
        d = os.path.join(out, t)
        os.makedirs(d, exist_ok=True)
        n = 0
        inputs = []
        if not structured(t) and fmt_of(t):
            inputs = real_inputs(fmt_of(t))
        seeds = (read(p) for p in files(os.path.join(fuzzdir, "seeds", t)))
        for data in list(inputs) + list(seeds):
            p = os.path.join(d, sha(data))
            if not os.path.exists(p):
                with open(p, "wb") as f:
                    f.write(data)
            n += 1
        print(f"{t}: {n} seed input(s), {len(os.listdir(d))} in fuzz/corpus/{t}")
else:
    known = set()
    for f in formats:
        for data in real_inputs(f):
            known.add(sha(data))
    for t in targets:
        src = os.path.join(out, t)
        if not os.path.isdir(src):
            continue
        cand = []
        for p in files(src, recursive=False, limit=seed_bytes):
            data = read(p)
            if sha(data) not in known:
                cand.append((len(data), sha(data), data))
        cand.sort()
        if len(cand) > seed_count:
            # Spread over the sizes: the smallest inputs alone are the simplest models.
            step = len(cand) / seed_count
            cand = [cand[int(i * step)] for i in range(seed_count)]
        dst = os.path.join(fuzzdir, "seeds", t)
        os.makedirs(dst, exist_ok=True)
        # Hand-made seeds (named otherwise than by 16 hex digits) stay.
        for n in os.listdir(dst):
            if re.fullmatch(r"[0-9a-f]{16}", n):
                os.remove(os.path.join(dst, n))
        for _, h, data in cand[:seed_count]:
            with open(os.path.join(dst, h[:16]), "wb") as f:
                f.write(data)
        print(f"{t}: {min(len(cand), seed_count)} seed(s) in fuzz/seeds/{t}")
PY
