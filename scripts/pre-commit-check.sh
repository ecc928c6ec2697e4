#!/usr/bin/env bash
# Tests .pre-commit-hooks.yaml as a project would use it: `pre-commit try-repo` on a throw-away
# git repository holding a good trace (the hook passes), then a broken one (the hook fails and
# names the finding), then a tracelint.toml that excludes the broken one (passes again).
# The installed-binary hook (`tracelint-system`) runs the tracelint built here; the `rust`
# hook builds tracelint from source, which takes minutes: PRE_COMMIT_RUST=1 tries it too.
# Without pre-commit it says why and skips; with CI=true it installs pre-commit into a virtual
# environment under target/, and a failure to do so fails.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# shellcheck source=scripts/lib.sh
. scripts/lib.sh

if ! command -v pre-commit >/dev/null 2>&1; then
  if [ -x target/pre-commit-venv/bin/pre-commit ]; then
    export PATH="$root/target/pre-commit-venv/bin:$PATH"
  elif [ "${CI:-}" = true ]; then
    python3 -m venv target/pre-commit-venv
    target/pre-commit-venv/bin/pip install --quiet pre-commit || skip "pre-commit cannot be installed"
    export PATH="$root/target/pre-commit-venv/bin:$PATH"
  else
    skip "pre-commit is not installed (pip install pre-commit)"
  fi
fi
command -v git >/dev/null 2>&1 || skip "git is not installed"

# The tracelint to run: TRACELINT_BIN, else the debug build (which the tests have built).
if [ -n "${TRACELINT_BIN:-}" ]; then
  bindir=$(mktemp -d)
  ln -s "$(realpath "$TRACELINT_BIN")" "$bindir/tracelint"
  export PATH="$bindir:$PATH"
else
  cargo build --locked --quiet
  export PATH="$root/target/debug:$PATH"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PRE_COMMIT_HOME="$work/cache"
cd "$work"
mkdir repo && cd repo
git init -q
git config user.email ci@example.invalid
git config user.name ci

hooks=(tracelint-system)
[ "${PRE_COMMIT_RUST:-}" = 1 ] && hooks+=(tracelint)

try() {
  pre-commit try-repo "$root" "$1" --all-files --color never > "$work/out.txt" 2>&1
}

for hook in "${hooks[@]}"; do
  rm -rf ./*
  cp "$root/corpus/gdb/memory.tf" good.tf
  git add -A
  try "$hook" || { cat "$work/out.txt"; echo "pre-commit-check: $hook failed on a good trace" >&2; exit 1; }

  cp "$root/corpus/gdb/defects/circular-corrupt.tf" broken.tf
  git add -A
  if try "$hook"; then
    cat "$work/out.txt"
    echo "pre-commit-check: $hook passed a broken trace" >&2
    exit 1
  fi
  grep -q "GT047" "$work/out.txt" || { cat "$work/out.txt"; echo "pre-commit-check: no GT047 in the hook's output" >&2; exit 1; }

  printf '[check]\nextend-exclude = ["broken.tf"]\n' > tracelint.toml
  git add -A
  try "$hook" || { cat "$work/out.txt"; echo "pre-commit-check: $hook ignored tracelint.toml" >&2; exit 1; }
  echo "pre-commit-check: $hook: good trace passes, broken trace fails, excludes honoured"
done
