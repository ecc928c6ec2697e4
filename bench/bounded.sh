#!/usr/bin/env bash
# Benchmark: inputs that must cost neither memory nor disk in proportion to their size, each
# measured with /usr/bin/time -v against a baseline in the same run.
#
#   1. A 10 GiB gzip of zeros as a file, `cat /dev/zero | tracelint -` and
#      `cat /dev/urandom | tracelint -`: each must end with a finding within seconds, with
#      max_spill_bytes = 64 MiB (a spill past it would be a TL003 finding, so "no TL003" means
#      at most 64 MiB were written to $TMPDIR). Baseline: `gzip -dc z.gz | head -c 1`.
#   2. A valid trace.dat followed by a 50 GB sparse tail (TD040 spans the tail): peak RSS of
#      `check -o human` against `check -o json` (which never renders spans).
#   3. 1,000 zip central-directory entries sharing one local header (TL015): wall time.
#
# Inputs are generated under $WORK (default /tmp/tracelint-bounded; sparse where possible)
# and deleted at the end. Results: bench/out/bounded-results.txt.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-/tmp/tracelint-bounded}
OUT=$ROOT/bench/out
mkdir -p "$OUT" "$WORK"
RES=$OUT/bounded-results.txt
for t in gzip python3 truncate /usr/bin/time; do command -v "$t" >/dev/null || { echo "bench: $t not found" >&2; exit 1; }; done
(cd "$ROOT" && cargo build --release --bin tracelint >/dev/null 2>&1) || { echo "bench: build failed" >&2; exit 1; }
TL=$ROOT/target/release/tracelint
trap 'rm -rf "$WORK"' EXIT
printf '[limits]\nmax_spill_bytes = 67108864\n' > "$WORK/tracelint.toml"
export TRACELINT_CONFIG=$WORK/tracelint.toml TMPDIR=$WORK
: > "$RES"

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

note "# bounded inputs, $(date -u +%F), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

echo "generating a 10 GiB gzip of zeros ..." >&2
head -c 10G /dev/zero | gzip -1 > "$WORK/z.gz"
note "z.gz: $(stat -c %s "$WORK/z.gz") bytes packed, 10737418240 unpacked"
read -r w r c < <(measure "gzip -dc '$WORK/z.gz' | head -c 1 > /dev/null")
note "baseline gzip -dc | head -c 1: ${w}s"
read -r w r c < <(measure "'$TL' '$WORK/z.gz'")
note "tracelint z.gz: ${w}s, peak RSS ${r} KB, exit $c, TL002: $(grep -c 'error\[TL002\]' "$WORK/out"), TL003 (spill past 64 MiB): $(grep -c 'TL003' "$WORK/out" || true)"
rm -f "$WORK/z.gz"
for src in /dev/zero /dev/urandom; do
  read -r w r c < <(measure "cat $src | '$TL' -")
  note "cat $src | tracelint -: ${w}s, peak RSS ${r} KB, exit $c, TL002: $(grep -c 'error\[TL002\]' "$WORK/out"), TL003: $(grep -c 'TL003' "$WORK/out" || true)"
done

echo "a trace with a 50 GB sparse tail ..." >&2
cp "$ROOT/corpus/tracecmd/v6.dat" "$WORK/tail.dat"
truncate -s +50G "$WORK/tail.dat"
read -r w r c < <(measure "'$TL' check -o json '$WORK/tail.dat'")
note "check -o json, 50 GB sparse tail: ${w}s, peak RSS ${r} KB, exit $c"
json_rss=$r
read -r w r c < <(measure "'$TL' --color never check -o human '$WORK/tail.dat'")
note "check -o human, 50 GB sparse tail: ${w}s, peak RSS ${r} KB, exit $c, TD040 shown: $(grep -c 'warning\[TD040\]' "$WORK/out")"
note "human / json peak RSS: $(python3 -c "print(f'{$r/$json_rss:.2f}')")"
rm -f "$WORK/tail.dat"

echo "a zip of 1,000 entries sharing one local header ..." >&2
python3 - "$ROOT/corpus/gdb/regs.tf" "$WORK/shared.zip" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
crc, n = zlib.crc32(data), len(data)
lh = struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, 0, 0, 0, crc, n, n, 4, 0) + b'a.tf' + data
cd = b''
for i in range(1000):
    name = b'm%04d.tf' % i
    cd += struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, 0, 0, 0, 0, crc, n, n, len(name), 0, 0, 0, 0, 0, 0) + name
eocd = struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 1000, 1000, len(cd), len(lh), 0)
open(sys.argv[2], 'wb').write(lh + cd + eocd)
EOF
read -r w r c < <(measure "'$TL' '$WORK/shared.zip'")
note "shared-header zip (1,000 entries): ${w}s, peak RSS ${r} KB, exit $c, TL015: $(grep -c 'error\[TL015\]' "$WORK/out")"
