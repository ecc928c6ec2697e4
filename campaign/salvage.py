#!/usr/bin/env python3
"""Salvage campaign for `tracelint fix`: cut every corpus trace.dat and tfile at each
structure boundary (the nodes of `tracelint map -o json`) +- {1, 7, 8, a page} and at random
points, cut each uftrace task file likewise and drop `info`; run `fix` on each damaged copy and
print, per format: repaired (exit 4/5), nothing to do (0), refused (1), anything else (a bug),
OUTs the check still finds errors in (a bug), IN changed (a bug), and the share of events
(trace-cmd report lines, GDB frames, uftrace replay lines) that came back.

    python3 campaign/salvage.py [--bin target/debug/tracelint] [--random 20] [--sample N]

The readers are the installed trace-cmd, GDB and uftrace; without one, its share is not shown.
"""
import argparse, hashlib, json, os, random, re, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def have(tool):
    return shutil.which(tool) is not None


def digest(p):
    h = hashlib.sha256()
    if os.path.isdir(p):
        for n in sorted(os.listdir(p)):
            h.update(n.encode())
            with open(os.path.join(p, n), "rb") as f:
                h.update(f.read())
    else:
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def boundaries(tl, path):
    out = run([tl, "map", "-o", "json", "--max-children", "0", path])
    try:
        m = json.loads(out.stdout)["map"]
    except Exception:
        return []
    offs = set()

    def walk(n):
        o, s = n.get("offset", 0), n.get("size", 0)
        offs.add(o)
        offs.add(o + s)
        for c in n.get("children", []):
            walk(c)

    walk(m)
    return sorted(offs)


def events(kind, p):
    if kind == "trace-cmd":
        if not have("trace-cmd"):
            return None
        o = run(["trace-cmd", "report", "-i", p])
        return sum(1 for l in o.stdout.decode("utf-8", "replace").splitlines() if re.search(r" \[\d+\] ", l))
    if kind == "gdb-tfile":
        if not have("gdb"):
            return None
        env = dict(os.environ, TFILE=p)
        o = run(["gdb", "-nx", "-batch", "-x", os.path.join(ROOT, "campaign/gdb_walk.py")], env=env)
        return sum(1 for l in o.stdout.decode("utf-8", "replace").splitlines() if l.startswith("FRAME "))
    if kind == "uftrace":
        if not have("uftrace"):
            return None
        o = run(["uftrace", "replay", "-d", p])
        return sum(1 for l in o.stdout.decode("utf-8", "replace").splitlines() if "|" in l)
    return None


class Tally:
    def __init__(self):
        self.n = 0
        self.codes = {}
        self.bugs = []
        self.orig = 0
        self.cut = 0
        self.back = 0

    def line(self, name):
        c = self.codes
        share = ""
        if self.orig:
            share = "; events: %d of %d (%.1f%%) read after fix, %d (%.1f%%) before" % (
                self.back, self.orig, 100.0 * self.back / self.orig, self.cut, 100.0 * self.cut / self.orig)
        return "%-10s %5d damaged: %d repaired (%d without loss, %d with loss), %d nothing to do, %d refused, %d bugs%s" % (
            name, self.n, c.get(4, 0) + c.get(5, 0), c.get(4, 0), c.get(5, 0), c.get(0, 0), c.get(1, 0), len(self.bugs), share)


def one(tl, kind, damaged, tmp, t, orig_events):
    out = os.path.join(tmp, "out")
    if os.path.isdir(out):
        shutil.rmtree(out)
    elif os.path.exists(out):
        os.remove(out)
    before = digest(damaged)
    r = run([tl, "fix", damaged, "-o", out])
    code = r.returncode
    t.n += 1
    t.codes[code] = t.codes.get(code, 0) + 1
    if digest(damaged) != before:
        t.bugs.append("IN changed: %s" % damaged)
    if code not in (0, 1, 4, 5):
        t.bugs.append("exit %d: %s: %s" % (code, damaged, r.stderr.decode()[:200]))
        return
    if code in (4, 5):
        chk = run([tl, "check", "-o", "concise", out])
        errs = [l for l in chk.stdout.decode("utf-8", "replace").splitlines() if "[error]" in l]
        if errs:
            t.bugs.append("OUT has errors: %s: %s" % (damaged, errs[0]))
        again = run([tl, "fix", out, "--dry-run"])
        if again.returncode != 0:
            t.bugs.append("fix of OUT is not a no-op: %s" % damaged)
    elif os.path.exists(out):
        t.bugs.append("exit %d but OUT written: %s" % (code, damaged))
    if orig_events:
        t.orig += orig_events
        t.cut += events(kind, damaged) or 0
        t.back += (events(kind, out) or 0) if code in (4, 5) else (events(kind, damaged) or 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/debug/tracelint"))
    ap.add_argument("--random", type=int, default=20)
    ap.add_argument("--sample", type=int, default=0, help="at most N cuts per file (CI sample)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    tallies = {}
    tmp = tempfile.mkdtemp(prefix="salvage-")
    try:
        for kind, sub, ext in (("trace-cmd", "tracecmd", ".dat"), ("gdb-tfile", "gdb", ".tf")):
            t = tallies.setdefault(kind, Tally())
            folder = os.path.join(ROOT, "corpus", sub)
            for name in sorted(os.listdir(folder)):
                path = os.path.join(folder, name)
                if not name.endswith(ext) or not os.path.isfile(path):
                    continue
                data = open(path, "rb").read()
                cuts = set()
                for b in boundaries(a.bin, path):
                    for d in (0, 1, 7, 8, 4096):
                        cuts.update((b - d, b + d))
                cuts.update(rng.randrange(1, len(data)) for _ in range(a.random))
                cuts = sorted(c for c in cuts if 0 < c < len(data))
                if a.sample:
                    cuts = sorted(rng.sample(cuts, min(a.sample, len(cuts))))
                orig = events(kind, path)
                for c in cuts:
                    damaged = os.path.join(tmp, "in" + ext)
                    with open(damaged, "wb") as f:
                        f.write(data[:c])
                    one(a.bin, kind, damaged, tmp, t, orig)
        t = tallies.setdefault("uftrace", Tally())
        folder = os.path.join(ROOT, "corpus", "uftrace")
        for name in sorted(os.listdir(folder)):
            src = os.path.join(folder, name)
            if not os.path.isfile(os.path.join(src, "info")):
                continue
            orig = events("uftrace", src)
            dats = [n for n in os.listdir(src) if re.fullmatch(r"\d+\.dat", n)]
            cases = [("noinfo", None, None)]
            for n in dats:
                size = os.path.getsize(os.path.join(src, n))
                pts = set()
                for k in range(0, size, 16 * max(1, size // (16 * 8))):
                    for d in (1, 7, 8):
                        pts.add(k + d)
                pts.update(rng.randrange(1, max(2, size)) for _ in range(a.random // 4))
                pts = sorted(p for p in pts if 0 < p < size)
                if a.sample:
                    pts = sorted(rng.sample(pts, min(a.sample, len(pts))))
                cases += [("cut", n, p) for p in pts]
            for what, n, p in cases:
                damaged = os.path.join(tmp, "in.d")
                if os.path.exists(damaged):
                    shutil.rmtree(damaged)
                shutil.copytree(src, damaged)
                if what == "noinfo":
                    os.remove(os.path.join(damaged, "info"))
                else:
                    with open(os.path.join(damaged, n), "r+b") as f:
                        f.truncate(p)
                one(a.bin, "uftrace", damaged, tmp, t, orig)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for k, t in tallies.items():
        print(t.line(k))
        for b in t.bugs[:10]:
            print("   BUG " + b)
    return 1 if any(t.bugs for t in tallies.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
