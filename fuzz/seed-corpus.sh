#!/usr/bin/env bash
# Copies the seed inputs for every fuzz target from corpus/ into fuzz/corpus/<target>/
# (gitignored). uftrace data directories become directory images (see
# tracelint::fuzzing::decode_dir_image). Safe to run repeatedly: files are named by content hash.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/fuzz/corpus"
max_seed_bytes=${FUZZ_MAX_SEED_BYTES:-262144}

mkdir -p "$out"

python3 - "$root" "$out" "$max_seed_bytes" <<'PY'
import hashlib, os, struct, sys

root, out, max_seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
corpus = os.path.join(root, "corpus")
fuzzdir = os.path.join(root, "fuzz")


def put(target, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    p = os.path.join(d, name)
    if not os.path.exists(p):
        with open(p, "wb") as f:
            f.write(data)


def files(*parts, recursive=True):
    base = os.path.join(*parts)
    if not os.path.isdir(base):
        return
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames.sort()
        for n in sorted(filenames):
            if n == "README.md":
                continue
            p = os.path.join(dirpath, n)
            if os.path.isfile(p) and os.path.getsize(p) <= max_seed:
                yield p
        if not recursive:
            break


def read(p):
    with open(p, "rb") as f:
        return f.read()


def image(entries):
    b = bytearray()
    for name, data in entries:
        nb = name.encode()[:255]
        b += bytes([len(nb)]) + nb + struct.pack("<I", len(data)) + data
    return bytes(b)


def dir_entries(d, compact):
    out = []
    for n in sorted(os.listdir(d)):
        p = os.path.join(d, n)
        if not os.path.isfile(p):
            continue
        size = os.path.getsize(p)
        core = n in ("info", "task.txt", "default.opts", "events.txt") or n.endswith(".dat") or n.endswith(".map")
        if compact and not core and size > 2048:
            continue
        out.append((n, read(p)))
    return out


# Single-file formats: real corpus, defects, regressions, plus hand-made seeds in fuzz/seeds/.
single = {"tracecmd": "tracecmd", "gdb_tfile": "gdb", "ktrace": "ktrace"}
for target, fmt in single.items():
    for p in files(corpus, fmt):
        put(target, read(p))
        put("detect_and_check", read(p))
    for p in files(fuzzdir, "seeds", target):
        put(target, read(p))
        put("detect_and_check", read(p))
for p in files(corpus, "detect", "regressions"):
    put("detect_and_check", read(p))
# check_path: the single-file corpus again, checked through a temporary file.
for fmt in single.values():
    for p in files(corpus, fmt):
        put("check_path", read(p))

# uftrace: every data directory as a full and a compact image; regression images as they are.
ufdir = os.path.join(corpus, "uftrace")
if os.path.isdir(ufdir):
    for n in sorted(os.listdir(ufdir)):
        d = os.path.join(ufdir, n)
        if n == "regressions":
            for p in files(d, recursive=False):
                put("uftrace", read(p))
            for m in sorted(os.listdir(d)):
                if os.path.isdir(os.path.join(d, m)):
                    put("uftrace", image(dir_entries(os.path.join(d, m), False)))
        elif os.path.isfile(os.path.join(d, "info")):
            full = image(dir_entries(d, False))
            if len(full) <= max_seed:
                put("uftrace", full)
            put("uftrace", image(dir_entries(d, True)))
for p in files(fuzzdir, "seeds", "uftrace"):
    put("uftrace", read(p))

for t in sorted(os.listdir(out)):
    print(f"{t}: {len(os.listdir(os.path.join(out, t)))} seed(s)")
PY
