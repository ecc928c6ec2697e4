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
