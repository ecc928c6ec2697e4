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
        self.fmt = fmt  # "tracecmd" | "uftrace" | "gdb"
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
    return found, missing


# ---------------------------------------------------------------------------------------------
# Running a reader


def run(argv, timeout, cwd=None, env=None):
    """(status, stdout, stderr): status is an exit code, -signal, or None on timeout."""
    try:
        p = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            cwd=cwd,
            env=env,
            start_new_session=True,
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
_TC_EVENT = re.compile(rb"^\s*(?:(\S+):\s+)?.*?\[(\d{3,})\]\s*(?:\S+\s+)?[\d.]+:\s+([^:\s]+):?")


def _tc_identity(out):
    """Per CPU (and buffer), the event names in order."""
    ident = {}
    for line in out.splitlines():
        m = _TC_EVENT.match(line)
        if not m:
            continue
        key = (m.group(1) or b"", m.group(2))
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
    def __init__(self, status, ident, text, note=""):
        self.status = status
        self.ident = ident
        self.text = text
        self.note = note


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
    if mut.status < 0 or mut.status >= 128:
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
