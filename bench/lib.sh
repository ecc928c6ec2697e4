# Shared by the bench scripts (sourced): measuring a command with /usr/bin/time -v.
# Needs $WORK (a scratch directory) and $RES (the results file) set by the caller.

# /usr/bin/time -v of a shell command: "wall_s rss_kb exit" on stdout, its output in $WORK/out.
measure () {
  /usr/bin/time -v -o "$WORK/time" sh -c "$1" > "$WORK/out" 2>&1 || true
  local wall rss code
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$WORK/time" | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time")
  code=$(awk -F': ' '/Exit status/ {print $2}' "$WORK/time")
  echo "$wall $rss $code"
}

# A line of the results, shown and appended to $RES.
note () { echo "$*" | tee -a "$RES"; }

# A recording session on tracefs for the generators (root): tracefs mounted, tracing off, every
# event off, the buffer emptied, `buffer_size_kb` set to $1 and overwrite off (a full buffer
# stops recording). What was set before (tracing_on, buffer_size_kb, overwrite, the enabled
# events) is put back when the calling shell exits. Sets $T to the tracefs mount.
tracefs_session () {
  local kb=$1
  [ "$(id -u)" -eq 0 ] || { echo "bench: recording needs root" >&2; exit 1; }
  command -v trace-cmd >/dev/null || { echo "bench: trace-cmd not found" >&2; exit 1; }
  T=/sys/kernel/tracing
  [ -e "$T/tracing_on" ] || mount -t tracefs nodev "$T" 2>/dev/null
  [ -w "$T/tracing_on" ] || { echo "bench: tracefs not available" >&2; exit 1; }
  TRACEFS_SAVED=$(mktemp -d /tmp/tracelint-tracefs.XXXXXX)
  cat "$T/tracing_on" > "$TRACEFS_SAVED/on"
  sed -E 's/.*expanded: ([0-9]+).*/\1/' "$T/buffer_size_kb" > "$TRACEFS_SAVED/kb"
  cat "$T/options/overwrite" > "$TRACEFS_SAVED/overwrite"
  cp "$T/set_event" "$TRACEFS_SAVED/set_event"
  trap tracefs_restore EXIT
  trap 'exit 1' INT TERM
  echo 0 > "$T/tracing_on"
  echo 0 > "$T/events/enable"
  echo > "$T/trace"
  echo 0 > "$T/options/overwrite"
  echo "$kb" > "$T/buffer_size_kb" || { echo "bench: cannot set buffer_size_kb=$kb" >&2; exit 1; }
}

tracefs_restore () {
  [ -n "${TRACEFS_SAVED:-}" ] && [ -d "$TRACEFS_SAVED" ] || return 0
  echo 0 > "$T/tracing_on"
  echo 0 > "$T/events/enable"
  cat "$TRACEFS_SAVED/overwrite" > "$T/options/overwrite"
  cat "$TRACEFS_SAVED/kb" > "$T/buffer_size_kb"
  echo > "$T/trace"
  while read -r ev; do [ -n "$ev" ] && echo "$ev" >> "$T/set_event"; done < "$TRACEFS_SAVED/set_event"
  cat "$TRACEFS_SAVED/on" > "$T/tracing_on"
  rm -rf "$TRACEFS_SAVED"
}
