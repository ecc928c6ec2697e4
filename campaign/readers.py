"""The reader matrix: which reader reads which file, how it is run and what it read.

Every reader is run with a timeout and its outcome is reduced to what a pipeline sees:

* ``crash``  - killed by a signal (segfault, abort);
* ``hang``   - still running at the timeout;
* ``reject`` - a non-zero exit where the original exited 0, or nothing read where the original
  read something (the trace-cmd 2.x readers exit 0 and print nothing on a v7 file: that is
  "cannot read", never "read nothing", and such readers do not claim v7 files at all);
* ``loss``   - events, records or frames missing, added or misframed compared with the
  original: the *identity* of what was read (per CPU the event names in order; per task the
  record kinds, depths and function names; per frame the tracepoint and the blocks walked)
  differs;
* ``value``  - the same identities, other printed values (a mutated payload or timestamp);
* ``same``   - byte-identical output.

Run ``python3 campaign/readers.py`` to list the matrix found on this machine.
"""

import os
import re
import shutil
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CACHE = os.path.join(
    os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "tracelint", "readers"
)


def cache_dir():
    return os.environ.get("TRACELINT_READERS", DEFAULT_CACHE)


class Reader:
    def __init__(self, name, fmt, path, version, claims):
        self.name = name  # e.g. "trace-cmd 2.9.5"
        self.fmt = fmt  # "tracecmd" | "uftrace" | "gdb" | "perf"
        self.path = path
        self.version = version  # tuple
        self.claims = claims  # fn(seed_info) -> bool

    def __repr__(self):
        return self.name


def _tc_claims(v6_only, zlib):
    def claims(info):
        if info.get("version") == 6:
            return True
        if v6_only:
            return False
        return zlib or info.get("compression") != "zlib"

    return claims


def matrix():
    """Every reader of the matrix present on this machine, and the missing ones with a reason."""
    found, missing = [], []
    cache = cache_dir()
    built = [
        ("trace-cmd 2.4", "tracecmd", "trace-cmd-2.4/bin/trace-cmd", (2, 4), _tc_claims(True, False)),
        ("trace-cmd 2.9.5", "tracecmd", "trace-cmd-2.9.5/bin/trace-cmd", (2, 9, 5), _tc_claims(True, False)),
        ("trace-cmd 3.1.6", "tracecmd", "trace-cmd-3.1.6/bin/trace-cmd", (3, 1, 6), _tc_claims(False, True)),
        ("trace-cmd 3.3.4", "tracecmd", "trace-cmd-3.3.4/bin/trace-cmd", (3, 3, 4), _tc_claims(False, True)),
        ("uftrace 0.9.4", "uftrace", "uftrace-0.9.4/bin/uftrace", (0, 9, 4), lambda i: True),
        ("uftrace 0.16", "uftrace", "uftrace-0.16/bin/uftrace", (0, 16), lambda i: True),
        ("uftrace 0.18.1", "uftrace", "uftrace-0.18.1/bin/uftrace", (0, 18, 1), lambda i: True),
    ]
    for name, fmt, rel, ver, claims in built:
        p = os.path.join(cache, rel)
        if os.access(p, os.X_OK):
            found.append(Reader(name, fmt, p, ver, claims))
        else:
            missing.append((name, f"{p} not built (scripts/readers.sh)"))
    system = [
        ("trace-cmd 3.1.6 (Debian, zstd only)", "tracecmd", "trace-cmd", (3, 1, 6), _tc_claims(False, False)),
        ("uftrace 0.13 (Debian)", "uftrace", "uftrace", (0, 13), lambda i: True),
        ("GDB 13 (Debian)", "gdb", "gdb", (13,), lambda i: True),
    ]
    for name, fmt, exe, ver, claims in system:
        p = shutil.which(exe)
        if p and os.path.realpath(p).startswith("/usr/"):
            found.append(Reader(name, fmt, p, ver, claims))
        else:
            missing.append((name, f"{exe} is not installed (apt-get install {exe})"))
    p = shutil.which("perf")
    if p and os.path.realpath(p).startswith("/usr/"):
        found.append(Reader("perf 6.1 (Debian)", "perf", p, (6, 1), lambda i: True))
    else:
        missing.append(("perf 6.1 (Debian)", "perf is not installed (apt-get install linux-perf)"))
    lpd, why = perf_reader()
    if lpd:
        found.append(Reader(f"linux-perf-data {LPD_VERSION}", "perf", lpd, (0, 13), lambda i: True))
    else:
        missing.append((f"linux-perf-data {LPD_VERSION}", why))
    return found, missing


# The second perf.data reader: campaign/perf-reader (its own Cargo project, no part of
# tracelint) over the linux-perf-data crate, the parser samply uses. Built on first use into
# the reader cache; its Cargo.lock pins the crate.
LPD_VERSION = "0.13.0"
PERF_READER_SRC = os.path.join(HERE, "perf-reader")


def perf_reader():
    """(path, None) of the built linux-perf-data reader, building it when needed; (None, why)."""
    out = os.path.join(cache_dir(), f"linux-perf-data-{LPD_VERSION}", "tracelint-perf-reader")
    srcs = [os.path.join(PERF_READER_SRC, f) for f in ("Cargo.toml", "Cargo.lock", os.path.join("src", "main.rs"))]
    newest = max((os.path.getmtime(f) for f in srcs if os.path.exists(f)), default=0)
    if os.access(out, os.X_OK) and os.path.getmtime(out) >= newest:
        return out, None
    cargo = shutil.which("cargo")
    if not cargo or not os.path.exists(srcs[0]):
        return None, "cargo or campaign/perf-reader missing"
    target = os.path.join(cache_dir(), "perf-reader-target")
    env = dict(os.environ, CARGO_TARGET_DIR=target)
    st, _, err = run([cargo, "build", "--release", "--locked", "--manifest-path", srcs[0]], 900, env=env)
    built = os.path.join(target, "release", "tracelint-perf-reader")
    if st != 0 or not os.path.exists(built):
        return None, "cargo build of campaign/perf-reader failed: " + err.decode("utf-8", "replace")[-300:]
    os.makedirs(os.path.dirname(out), exist_ok=True)
    shutil.copy2(built, out)
    os.utime(out)
    return out, None


# ---------------------------------------------------------------------------------------------
# Running a reader


def run(argv, timeout, cwd=None, env=None, mem_limit=None):
    """(status, stdout, stderr): status is an exit code, -signal, or None on timeout.
    `mem_limit` (bytes) caps the address space: a reader that allocates by a length from the
    file then fails its allocation (abort: a crash) instead of taking the machine's memory."""

    def limit():
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (mem_limit, mem_limit))

    try:
        p = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            cwd=cwd,
            env=env,
            start_new_session=True,
            preexec_fn=limit if mem_limit else None,
        )
    except OSError as e:
        return 127, b"", str(e).encode()
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        out, err = p.communicate()
        return None, out, err
    # Output beyond this is never needed for identities and would only cost memory.
    return p.returncode, out[: 64 << 20], err[: 1 << 20]


# trace-cmd 2.9.5 prints a raw (counter, TSC, boot, tai) timestamp right after the CPU: `[001]310592731943:`.
# The latency flags (4 characters in 2.x, 5 in 3.x) run into a timestamp wider than its column
# (a raw counter or TSC clock: `dNh1.3385380009568:`).
_TC_EVENT = re.compile(rb"^\s*(?:(\S+):\s+)?.*?\[(\d{3,})\]\s*(?:\S+\s+|[^\s\d]\S{3,4}(?=\d))?[\d.]+:\s+([^:\s]+):?")


# trace-cmd prints a record's lost-event count before it, after the instance's name
# (`trace-read.c`): the record's own line then has no name.
_TC_DROPPED = re.compile(rb"^\s*(?:(\S+):\s+)?CPU:\s*\d+ \[(?:\d+ )?EVENTS DROPPED\]\s*$")


def _tc_identity(out):
    """Per CPU (and buffer), the event names in order."""
    ident = {}
    carry = None
    for line in out.splitlines():
        d = _TC_DROPPED.match(line)
        if d:
            carry = d.group(1)
            continue
        m = _TC_EVENT.match(line)
        name, carry = carry, None
        if not m:
            continue
        key = (m.group(1) or name or b"", m.group(2))
        ident.setdefault(key, []).append(m.group(3))
    return ident


_UF_RECORD = re.compile(rb"^\s*[\d.]+\s+(\d+):\s+\[(\w+)\s*\]\s+(.*?)(?:\([0-9a-f]*\))?\s+depth:\s*(\d+)")


_UF_EVENT = re.compile(rb"^\s*[\d.]+\s+(\d+):\s+\[event\]\s+(\S+?)(?:\s.*?)?(?:\([0-9a-f]*\))?\s*$")


def _uf_identity(dump, replay):
    """Per task, the records `uftrace dump` shows: kind and function. Depths are recorded
    values (a changed depth changes how replay nests, not what was recorded); records dump
    skips or adds are a loss. Replay's exit status and signals still count (a crash there is
    a crash)."""
    ident = {}
    for line in dump.splitlines():
        m = _UF_RECORD.match(line)
        if m:
            ident.setdefault(("dump", m.group(1)), []).append((m.group(2), m.group(3)))
            continue
        # Events of perf-cpu*.dat and events.txt (`[event] linux:sched-in(...)`, no depth):
        # per task, the event names in order.
        m = _UF_EVENT.match(line)
        if m:
            ident.setdefault(("event", m.group(1)), []).append((b"event", m.group(2)))
    return ident


# `perf script`: one line per sample, `comm tid [cpu] secs.usecs: [period] event: ...`
# (callchain lines that follow a sample start with an address and do not match).
_PERF_SAMPLE = re.compile(rb"^\s*(.*?)\s+(-?\d+)(?:/(-?\d+))?\s+(?:\[(-?\d+)\]\s+)?(\d+\.\d+):\s+(?:(\d+)\s+)?(\S+):(?:\s|$)")
# `perf report --stdio -n --no-children`: the event of each block and its rows' sample counts.
# (The closing quote is not needed: a name written with a \n ends the line inside it.)
_PERF_EVENT = re.compile(rb"^# Samples: \S+\s+of events? '(.*)")
_PERF_ROW = re.compile(rb"^\s+(?:[\d.]+%\s+)+((?:\d+\s+)+)")
_PERF_LOST = re.compile(rb"^# Total Lost Samples: (\d+)")


def _perf_identity(script, report):
    """perf 6.1: per event, the samples `perf script` prints (comm, tid, time) in order, and the
    number of samples `perf report` counts per event (its rows' Samples column summed; the
    header's "Samples: 1K" is rounded) and the lost samples it reports."""
    ident = {}
    # Lines end at \n only: a name written with a \r (bytes.splitlines() breaks there too) is
    # printed as written, within its sample's line.
    # A name written with a \n (an event renamed in EVENT_DESC or EVENT_UPDATE) splits its
    # sample's line in two: a line that does not match is tried joined with the next, the \n
    # kept as a NUL (one byte of the name).
    lines = script.split(b"\n")
    i = 0
    while i < len(lines):
        m = _PERF_SAMPLE.match(lines[i])
        if not m and i + 1 < len(lines):
            m = _PERF_SAMPLE.match(lines[i] + b"\0" + lines[i + 1])
            if m:
                i += 1
        if m:
            ident.setdefault(("script", m.group(7)), []).append((m.group(1), m.group(2), m.group(5)))
        i += 1
    event = None
    counts = {}
    for line in report.split(b"\n"):
        m = _PERF_EVENT.match(line)
        if m:
            event = m.group(1)
            counts.setdefault(event, 0)
            continue
        m = _PERF_LOST.match(line)
        if m:
            ident[("report-lost",)] = [m.group(1)]
            continue
        m = _PERF_ROW.match(line)
        if m and event is not None:
            counts[event] += sum(int(x) for x in m.group(1).split())
    if counts:
        # One item per sample, so that the count compares as the lengths of the script lists.
        # The total only: how `perf report` groups events (GROUP_DESC, a feature) is display;
        # which event each sample belongs to is in the `perf script` lines.
        ident[("report",)] = [b"s"] * min(sum(counts.values()), 1 << 20)
    return ident


def _lpd_identity(out):
    """linux-perf-data: per event, the samples (comm, tid, time) in the order the crate yields
    them (its sorter orders by time within FINISHED_ROUNDs)."""
    ident = {}
    for line in out.split(b"\n"):
        if line.startswith(b"SAMPLE "):
            # `SAMPLE <event> <comm> <pid> <tid> <time> <cpu>`: a comm may hold spaces, so
            # the fields after it are taken from the end.
            parts = line.split(b" ")
            if len(parts) >= 7:
                comm = b" ".join(parts[2:-4])
                ident.setdefault(("lpd", parts[1]), []).append((comm, parts[-3], parts[-2]))
    return ident


def perf_samples(outcome):
    """The samples a perf reader showed: linux-perf-data's lines; perf 6.1's `perf script`
    lines, or `perf report`'s count when that is smaller."""
    keys = outcome.ident
    lpd = sum(len(v) for k, v in keys.items() if k[0] == "lpd")
    script = sum(len(v) for k, v in keys.items() if k[0] == "script")
    report = sum(len(v) for k, v in keys.items() if k[0] == "report")
    if any(k[0] == "lpd" for k in keys) or not any(k[0] in ("script", "report") for k in keys):
        return lpd
    return min(script, report)


GDB_SCRIPT = os.path.join(HERE, "gdb_walk.py")

# The programs the GDB corpus traced (scripts/corpus/gdb.sh builds them the same way): GDB
# creates the file's tracepoints only with the program loaded (without it, `target tfile` says
# "Failed to create tracepoint ..." for every one, on the original as on a mutant), and checks a
# fast tracepoint's instruction length against it.
GDB_PROGRAMS = {
    "tpdemo": ["tpdemo.c"],
    "tpmulti": ["tpmulti.c", "tpmulti2.c"],
}


def gdb_programs():
    """Builds the corpus programs (once) and returns their paths; [] without gcc."""
    src = os.path.join(os.path.dirname(HERE), "scripts", "corpus", "src")
    out_dir = os.path.join(cache_dir(), "campaign-gdb-programs")
    cc = shutil.which("gcc")
    paths = []
    for name, files in GDB_PROGRAMS.items():
        srcs = [os.path.join(src, f) for f in files]
        if not all(os.path.exists(f) for f in srcs):
            continue
        exe = os.path.join(out_dir, name)
        newest = max(os.path.getmtime(f) for f in srcs)
        if not (os.path.exists(exe) and os.path.getmtime(exe) >= newest):
            if not cc:
                continue
            os.makedirs(out_dir, exist_ok=True)
            st, _, err = run([cc, "-g", "-O0", "-fno-pie", "-no-pie", "-o", exe] + srcs, 120)
            if st != 0:
                print(f"campaign: cannot build {name}: {err[:200]!r}", file=sys.stderr)
                continue
        paths.append(exe)
    return paths


def gdb_tracepoints(outcome):
    """The tracepoints GDB created when it read a file (TP lines of the walk)."""
    return [l for l in outcome.ident.get(("open",), []) if l.startswith(b"TP ")]


class Outcome:
    def __init__(self, status, ident, text, note="", errno_exit=False):
        self.status = status
        self.ident = ident
        self.text = text
        self.note = note
        # perf exits with a negative errno (234 = -EINVAL, 254, 255): a status of 128 and
        # above is a refusal there, not a signal (a signal is a negative status, perf being
        # run directly, not through a shell).
        self.errno_exit = errno_exit


def read_with(reader, path, timeout, info=None):
    """Runs `reader` on `path` and returns an Outcome (status, identity, full output)."""
    if reader.fmt == "tracecmd":
        st, out, err = run([reader.path, "report", "-i", path], timeout)
        return Outcome(st, _tc_identity(out), out, _first_error(err))
    if reader.fmt == "uftrace":
        env = dict(os.environ, HOME="/nonexistent", LANG="C")
        st1, d, e1 = run([reader.path, "dump", "--no-pager", "-d", path], timeout, env=env)
        st2, r, e2 = run([reader.path, "replay", "--no-pager", "-d", path], timeout, env=env)
        st = _worst_status(st1, st2)
        return Outcome(st, _uf_identity(d, r), d + b"\n--replay--\n" + r, _first_error(e1 + e2))
    if reader.fmt == "perf" and reader.name.startswith("perf "):
        # perf report exits 0 after a processing error: what it read is the verdict, the exit
        # status of `perf script` (234, 255, ...) tells the reject.
        env = dict(os.environ, HOME="/nonexistent", LANG="C", PAGER="cat")
        st1, sc, e1 = run([reader.path, "script", "-i", path], timeout, env=env)
        st2, rp, e2 = run([reader.path, "report", "--stdio", "-n", "--no-children", "-i", path], timeout, env=env)
        # `perf report` ends with a tip drawn at random: not part of what it read.
        rp = b"\n".join(l for l in rp.split(b"\n") if not l.startswith(b"# (Tip:"))
        st = _worst_status(st1, st2)
        return Outcome(st, _perf_identity(sc, rp), sc + b"\n--report--\n" + rp, _first_error(e1 + e2), True)
    if reader.fmt == "perf":
        st, out, err = run([reader.path, path], timeout, mem_limit=4 << 30)
        return Outcome(st, _lpd_identity(out), out, _first_error(out + err), True)
    if reader.fmt == "gdb":
        env = dict(os.environ, TFILE=path, HOME="/nonexistent")
        if (info or {}).get("exe"):
            env["TFILE_EXE"] = info["exe"]
        mem = (info or {}).get("memory") or []
        env["TFILE_MEM"] = ";".join(f"{n}:{a:x}:{l}:{full}" for n, a, l, full in mem)
        if (info or {}).get("tsvs"):
            env["TFILE_TSV"] = "1"
        st, out, err = run(
            [reader.path, "-nx", "-batch", "-x", GDB_SCRIPT], timeout, env=env
        )
        ident = {}
        for line in out.splitlines():
            if line.startswith(b"FRAME "):
                ident.setdefault(("frames",), []).append(line)
            elif line.startswith((b"OPEN ", b"TP ", b"MEM ")):
                ident.setdefault(("open",), []).append(line)
        return Outcome(st, ident, out, _first_error(out + err))
    raise ValueError(reader.fmt)


def _worst_status(a, b):
    for s in (a, b):
        if s is None:
            return None
    for s in (a, b):
        if s < 0:
            return s
    return a or b


def _first_error(err):
    for line in err.splitlines():
        l = line.strip()
        if re.search(rb"(?i)error|fail|cannot|unable|invalid|unknown|premature|segmentation", l):
            return l[:160].decode("utf-8", "replace")
    return ""


def classify(base, mut):
    """What `mut` (the outcome on a mutant) is, compared with `base` (on the original)."""
    if mut.status is None:
        return "hang"
    if mut.status < 0 or (mut.status >= 128 and not mut.errno_exit):
        return "crash"
    nevents = sum(len(v) for v in mut.ident.values())
    base_events = sum(len(v) for v in base.ident.values())
    if mut.status != 0 and base.status == 0:
        return "reject"
    if nevents == 0 and base_events > 0:
        return "reject"
    if mut.text == base.text:
        return "same"
    if mut.ident != base.ident:
        return "loss"
    return "value"


BAD = ("crash", "hang", "reject", "loss")


if __name__ == "__main__":
    found, missing = matrix()
    print(f"reader cache: {cache_dir()}")
    for r in found:
        print(f"  {r.name:38} {r.path}")
    for name, why in missing:
        print(f"  {name:38} MISSING: {why}")
    sys.exit(0)
