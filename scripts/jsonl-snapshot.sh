#!/usr/bin/env bash
# Runs `tracelint check -o jsonl` over every trace in corpus/ and the shared samples (a uftrace
# directory as one input, every other file on its own) into one file, for a before/after
# comparison of a change that must not change behaviour. Volatile fields (elapsed times) are
# normalised.
#   scripts/jsonl-snapshot.sh BINARY OUT
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: jsonl-snapshot.sh BINARY OUT}
out=${2:?usage: jsonl-snapshot.sh BINARY OUT}
roots=(corpus)
for extra in /work/shared/samples/wild /work/shared/samples/ktrace; do
  [ -d "$extra" ] && roots+=("$extra")
done
# A directory holding a uftrace `info` file is one input; files under it are not checked alone.
mapfile -t dirs < <(find "${roots[@]}" -type f -name info -printf '%h\n' | sort -u)
inputs=("${dirs[@]}")
while IFS= read -r f; do
  skip=
  for d in "${dirs[@]}"; do
    case "$f" in "$d"/*) skip=1; break ;; esac
  done
  [ -z "$skip" ] && inputs+=("$f")
done < <(find "${roots[@]}" -type f | LC_ALL=C sort)
: >"$out"
for i in "${inputs[@]}"; do
  printf '# %s\n' "$i" >>"$out"
  "$bin" check -o jsonl "$i" >>"$out" 2>/dev/null
  printf '# exit %s\n' "$?" >>"$out"
done
# Elapsed times and the like differ from run to run.
sed -i -E 's/"(elapsed|elapsed_ms|duration_ms|time_ms|ms|seconds)": ?[0-9.]+/"\1":0/g' "$out"
echo "$(grep -c '^# exit' "$out") inputs, $(wc -l <"$out") lines -> $out"
