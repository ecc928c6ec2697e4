#!/usr/bin/env bash
# Build the reader matrix (trace-cmd 2.4, 2.9.5, 3.1.6, 3.3.4; uftrace 0.9.4, 0.16, 0.18.1)
# from the source bundle in ../shared/readers into a cache folder outside the source tree.
#
#   scripts/readers.sh            build what is missing (a second run takes < 1 s)
#   scripts/readers.sh --list     print every reader of the matrix and where it is
#
# The folder is $TRACELINT_READERS (default: $XDG_CACHE_HOME/tracelint/readers, i.e.
# ~/.cache/tracelint/readers); the tests and campaign/ find the readers there. Debian's
# trace-cmd 3.1.6 (zstd only), uftrace 0.13 and GDB 13 complete the matrix from PATH
# (.ci/run installs them). The bundle is at $TRACELINT_READER_SOURCES (default:
# <repo>/../shared/readers).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC=${TRACELINT_READER_SOURCES:-$ROOT/../shared/readers}
DEST=${TRACELINT_READERS:-${XDG_CACHE_HOME:-$HOME/.cache}/tracelint/readers}

if [ "${1:-}" = "--list" ]; then
  exec python3 "$ROOT/campaign/readers.py"
fi
if [ ! -x "$SRC/build.sh" ]; then
  echo "readers.sh: no reader sources at $SRC (set TRACELINT_READER_SOURCES); nothing built" >&2
  exit 0
fi
mkdir -p "$DEST"
echo "readers.sh: building the reader matrix into $DEST"
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)} "$SRC/build.sh" "$DEST"
