#!/usr/bin/env bash
# Regenerate corpus/ktrace/*: small Darwin ktrace / kdebug files of every version written by
# tracelint's own writer (src/formats/ktrace/writer.rs, `sample_files`). No real tool on Linux
# writes these formats; the layouts follow xnu's kdbg_write_v1_header / kdbg_write_v3_header,
# libktrace (V3 0.0), the macOS 13+ kernel event-chunk length, savekdebugtrace and kperf (V2).
# Usage: scripts/corpus/ktrace.sh [OUTDIR]   (default: <repo>/corpus/ktrace)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${1:-$ROOT/corpus/ktrace}
cd "$ROOT"
cargo run --quiet --example gen_ktrace -- corpus "$OUT"
