# Shared by the scripts (sourced).

# skip WHY: a check that cannot run here says why and ends the script with success, except
# with CI=true, where what it needs should be there: a failure. The message names the script.
skip() {
  local me
  me=$(basename "$0")
  if [ "${CI:-}" = true ]; then
    echo "$me: CI=true but $1" >&2
    exit 1
  fi
  echo "$me: skipping: $1"
  exit 0
}
