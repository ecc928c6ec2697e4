#!/usr/bin/env python3
"""Salvage campaign for `tracelint fix`.

Damaged inputs, per format:

* cuts: every corpus trace.dat, tfile and perf.data (file and pipe mode) cut at each structure
  boundary (the nodes of `tracelint map -o json`, and for perf.data every record of the data
  section) +- {0, 1, 7, 8, a page} and at random points; every uftrace task file and every
  `data.<n>` stream of a `perf record --threads` directory cut at its record boundaries
  +- {1, 7, 8} and at random points; every uftrace recording without `info`;
* killed recorders (`--killed N`): `perf record` (plain and -z), `uftrace record`,
  `trace-cmd convert` and `trace-cmd extract`, each SIGKILLed after a random delay.

Each damaged input goes through `tracelint fix IN -o OUT --ledger L`, and the campaign checks:

1. IN is unchanged (hash); `fix` exits 0, 1, 4 or 5 and writes OUT only on 4 and 5;
2. OUT passes `tracelint check` with no error, and `fix` of OUT has nothing to do (exit 0);
3. every reader of the matrix that claims the format version reads OUT without failing, and what
   it reads of OUT is, per CPU (trace-cmd) or per task (uftrace), a prefix of what it reads of
   the undamaged original; GDB's frames of OUT are a prefix of its frames of the original; perf's
   sample lines of OUT (`perf script -F tid,time,event`) are a sub-multiset of the original's;
4. the ledger's counts equal what was on disk minus what OUT holds, counted by the walkers of
   this script (not by tracelint): whole plus partial records/frames of IN minus those of OUT,
   per file; trace.dat, per buffer and CPU: the pages the CPU table (v6) or BUFFER option (v7
   uncompressed, when it is on disk; else the whole and partial pages) declares, or the chunks a compressed v7 stream's count declares (its whole and
   partial chunks when the count is cut away or was never patched), minus the whole pages or
   chunks of OUT; the BUFFER options are read through the options chain, from the original
   for a cut file, and a killed writer's unnamed compressed streams are walked in order;
5. the share of whole records on disk that came back: the whole records (samples, task records,
   frames, trace.dat events in the whole pages of the top buffer, v7 chunks decompressed with
   python's zstandard or zlib, else `zstd -dc`) this script counts on disk in IN, against what
   each reader shows of OUT.

    python3 campaign/salvage.py [--bin target/release/tracelint] [--random 20] [--sample N]
                                [--killed N] [--streams N] [--formats trace.dat,uftrace,tfile,perf] [--ci]

`--streams N` adds, per compressed trace.dat v7 file, N cuts at its chunk counts and chunk
boundaries (+ {0, 1, 7, 8, 9}) and N cuts inside the last stream of a copy with that stream's
chunk count and the BUFFER section's size zeroed (a writer stopped while copying it).

`--ci` is the CI sample (a fixed seed, a few cuts per file, two killed recordings per recorder);
it exits 1 on any bug. Without a reader, its checks are skipped and said so.
"""
import argparse
import collections
import hashlib
import json
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib

try:
    import zstandard  # the chunks of zstd-compressed trace.dat v7 (else `zstd -dc`)
except ImportError:
    zstandard = None

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import readers  # noqa: E402

TIMEOUT = 60


def run(cmd, timeout=TIMEOUT, **kw):
    st, out, err = readers.run(cmd, timeout, **kw)
    return st, out, err


def have(tool):
    return shutil.which(tool) is not None


def digest(p):
    h = hashlib.sha256()
    if os.path.isdir(p):
        for n in sorted(os.listdir(p)):
            h.update(n.encode())
            q = os.path.join(p, n)
            if not os.path.isfile(q):
                continue  # a FIFO a killed recorder left (uftrace's): opening it would block
            with open(q, "rb") as f:
                h.update(f.read())
    else:
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def rm(p):
    if os.path.isdir(p) and not os.path.islink(p):
        shutil.rmtree(p, ignore_errors=True)
    elif os.path.lexists(p):
        os.remove(p)


def boundaries(tl, path):
    st, out, _ = run([tl, "map", "-o", "json", "--max-children", "0", path])
    try:
        m = json.loads(out)["map"]
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


# ---------------------------------------------------------------------------------------------
# Walkers: what is on disk, counted here and not by tracelint.


class Count:
    """Whole units (records, frames, pages) and a partial one at the end, per key, and the
    records of interest (samples, events) in the whole units."""

    def __init__(self):
        self.whole = collections.Counter()
        self.partial = collections.Counter()
        self.partial_bytes = collections.Counter()
        self.items = collections.Counter()
        self.declared = None  # trace.dat: pages (chunks) per CPU the CPU table (stream) declares
        self.checkable = True  # the ledger can be checked against these counts
        self.undecoded = 0  # trace.dat v7: whole chunks that did not decompress
        self.unnamed = False  # trace.dat v7: streams no BUFFER option names, walked in order
        self.nodecoder = False  # trace.dat v7: zstd chunks and neither zstandard nor zstd here

    def total_items(self):
        return sum(self.items.values())


def perf_stream(buf, start, end, c, key, comp):
    pos = start
    while pos + 8 <= end:
        typ, _misc, size = struct.unpack_from("<IHH", buf, pos)
        if size < 8:
            break
        if pos + size > end:
            c.partial[key] += 1
            c.partial_bytes[key] += end - pos
            return
        c.whole[key] += 1
        if typ == 9:
            c.items[key] += 1
        elif typ == 81 and comp is not None:
            comp.append(buf[pos + 8 : pos + size])
        pos += size
    if pos < end:
        c.partial_bytes[key] += end - pos


def perf_decompressed_samples(frames):
    """Samples in the records of COMPRESSED records (zstd frames, concatenated)."""
    if not frames or not have("zstd"):
        return 0
    p = subprocess.run(["zstd", "-dc", "-q"], input=b"".join(frames), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    c = Count()
    perf_stream(p.stdout, 0, len(p.stdout), c, "z", None)
    return c.items["z"]


def perf_count(path):
    c = Count()
    files = []
    if os.path.isdir(path):
        files = [(n, os.path.join(path, n)) for n in sorted(os.listdir(path)) if re.fullmatch(r"data(\.\d+)?", n)]
    else:
        files = [("", path)]
    for name, p in files:
        buf = open(p, "rb").read()
        comp = []
        if name.startswith("data."):
            perf_stream(buf, 0, len(buf), c, name, comp)
        elif buf[:8] == b"PERFILE2" and len(buf) >= 16:
            hsize = struct.unpack_from("<Q", buf, 8)[0]
            if hsize == 16:
                perf_stream(buf, 16, len(buf), c, name, comp)
            elif len(buf) >= 56:
                off, size = struct.unpack_from("<QQ", buf, 40)
                end = min(len(buf), off + size) if size else len(buf)
                perf_stream(buf, off, end, c, name, comp)
        c.items[name] += perf_decompressed_samples(comp)
    return c


def uftrace_count(path):
    c = Count()
    for n in sorted(os.listdir(path)):
        if not re.fullmatch(r"\d+\.dat", n):
            continue
        buf = open(os.path.join(path, n), "rb").read()
        pos = 0
        while pos + 16 <= len(buf):
            w = struct.unpack_from("<Q", buf, pos + 8)[0]
            typ, more, magic = w & 3, (w >> 2) & 1, (w >> 3) & 7
            if magic != 5:
                break
            size = 16
            if more:
                if typ != 2:
                    size = None  # argument payload: its length is in the specs
                elif pos + 18 <= len(buf):
                    ln = struct.unpack_from("<H", buf, pos + 16)[0]
                    size = 16 + ((ln + 2 + 7) // 8) * 8
                else:
                    size = 1 << 40
            if size is None:
                c.whole[n] = None
                break
            if pos + size > len(buf):
                break
            c.whole[n] += 1
            if typ in (0, 1):
                c.items[n] += 1
            pos += size
        if c.whole[n] is not None and pos < len(buf):
            c.partial[n] += 1
            c.partial_bytes[n] += len(buf) - pos
    return c


def tfile_count(path):
    c = Count()
    buf = open(path, "rb").read()
    end = buf.find(b"\n\n")
    if end < 0:
        return c
    pos = end + 2
    while pos + 6 <= len(buf):
        tp, size = struct.unpack_from("<hI", buf, pos)
        if tp == 0:
            return c
        if pos + 6 + size > len(buf):
            break
        c.whole[""] += 1
        c.items[""] += 1
        pos += 6 + size
    if pos < len(buf) and any(buf[pos:]):
        c.partial[""] += 1
        c.partial_bytes[""] += len(buf) - pos
    return c


def tracedat_header(buf):
    """(version, endian '<'/'>', page size, compression or None, offset after the header)."""
    if buf[:10] != b"\x17\x08Dtracing":
        return None
    v_end = buf.find(b"\0", 10)
    try:
        version = int(buf[10:v_end])
    except ValueError:
        return None
    pos = v_end + 1
    if pos + 6 > len(buf):
        return None
    endian = ">" if buf[pos] else "<"
    page = struct.unpack_from(endian + "I", buf, pos + 2)[0]
    pos += 6
    comp = None
    if version >= 7:
        e = buf.find(b"\0", pos)
        comp = buf[pos:e].decode("ascii", "replace")
        e2 = buf.find(b"\0", e + 1)
        pos = e2 + 1
        if comp == "none":
            comp = None
    return version, endian, page, comp, pos


def page_events(page, endian, long_size=8):
    """Data events on a ring-buffer page (kbuffer's walk)."""
    if len(page) < 8 + long_size:
        return 0
    commit = struct.unpack_from(endian + ("Q" if long_size == 8 else "I"), page, 8)[0] & ((1 << 27) - 1)
    pos = 8 + long_size
    end = min(len(page), pos + commit)
    n = 0
    while pos + 4 <= end:
        h = struct.unpack_from(endian + "I", page, pos)[0]
        tl = h & 31 if endian == "<" else h >> 27
        pos += 4
        if tl == 29:  # padding
            if pos + 4 > end:
                break
            ln = struct.unpack_from(endian + "I", page, pos)[0]
            pos += 4 + max(ln - 4, 0) if ln else end - pos
        elif tl in (30, 31):
            pos += 4
        elif tl == 0:
            if pos + 4 > end:
                break
            ln = struct.unpack_from(endian + "I", page, pos)[0]
            pos += 4 + ((max(ln - 4, 0) + 3) & ~3)
            n += 1
        else:
            pos += tl * 4
            n += 1
    return n


def v6_cpus(buf):
    """The v6 flyrecord table: [(offset, size)] per CPU, the page size and endian, or None."""
    h = tracedat_header(buf)
    if not h or h[0] != 6:
        return None
    _, endian, page, _, _ = h
    at = buf.find(b"flyrecord\0")
    if at < 0:
        return None
    # The table follows the tag; it ends where the first CPU's data starts (or at a bad entry).
    tab = at + 10
    first = None
    cpus = []
    while tab + 16 <= len(buf) and len(cpus) < 4096 and (first is None or tab + 16 <= first):
        off, size = struct.unpack_from(endian + "QQ", buf, tab)
        if off == 0 and size == 0:
            cpus.append((0, 0))
            tab += 16
            continue
        if off % page or off < tab:
            break
        first = off if first is None else min(first, off)
        cpus.append((off, size))
        tab += 16
    return cpus, page, endian


def tracedat_count(path, original=None):
    """trace.dat v6: per CPU, whole pages (and a partial one) on disk and the events in the
    whole pages. The table comes from `original` (a cut file's table is the original's).
    v7: `tracedat_count_v7`."""
    buf = open(path, "rb").read()
    ref = open(original, "rb").read() if original else buf
    h = tracedat_header(buf)
    if h and h[0] >= 7:
        return tracedat_count_v7(buf, ref if original else None)
    t = v6_cpus(ref)
    if not t:
        return None
    cpus, page, endian = t
    c = Count()
    c.declared = collections.Counter()
    # (a killed writer's CPU table is what the repair writes: no count to compare)
    c.checkable = original is not None
    here = v6_cpus(buf)
    for i, (off, size) in enumerate(cpus):
        if here and i < len(here[0]):
            off, size = here[0][i]
        if not size:
            continue
        c.declared[i] = -(-size // page)
        have_b = max(0, min(len(buf), off + size) - off)
        n = have_b // page
        c.whole[i] = n
        for k in range(n):
            c.items[i] += page_events(buf[off + k * page : off + (k + 1) * page], endian)
        if have_b % page:
            c.partial[i] += 1
            c.partial_bytes[i] += have_b % page
    return c


def v7_sections(buf):
    """v7: the header fields and the sections on disk, walked from the end of the header:
    [(offset, id, flags, body start, body end on disk, whole)]. A BUFFER section of size 0 with
    bytes after its header is one whose writer stopped while copying: its body runs to the end."""
    h = tracedat_header(buf)
    if not h or h[0] < 7:
        return None
    version, endian, page, comp, pos = h
    pos += 8  # the offset of the first options section
    secs = []
    while pos + 16 <= len(buf):
        sid, flags, _desc, size = struct.unpack_from(endian + "HHIQ", buf, pos)
        if sid > 64 or flags > 1:
            break
        body = pos + 16
        if sid == 3 and size == 0 and body < len(buf):
            nid, _f, _d, nsize = struct.unpack_from(endian + "HHIQ", buf + bytes(16), body)
            if not (nid == 0 and nsize >= 14):
                # (not an empty buffer, whose options section follows: DONE alone is 14 bytes)
                secs.append((pos, sid, flags, body, len(buf), False))
                break
        whole = body + size <= len(buf)
        secs.append((pos, sid, flags, body, min(body + size, len(buf)), whole))
        if not whole:
            break
        pos = body + size
    return h, secs


def v7_inflate(comp, data, usize):
    """One compressed block (a chunk or a metadata section body), or None."""
    try:
        if comp == "zlib":
            return zlib.decompress(data)
        if comp == "zstd" and zstandard is not None:
            return zstandard.ZstdDecompressor().decompress(data, max_output_size=max(usize, 1))
    except Exception:
        return None
    return None


def v7_buffers(buf):
    """v7: the BUFFER options of the whole options sections on disk, followed from the
    header's first options offset through each DONE's next offset (as trace-cmd reads them):
    {name: (section offset, page size, [(cpu, data offset, data size)])}, and the sections
    (`v7_sections`)."""
    w = v7_sections(buf)
    if not w:
        return None
    (version, endian, page, comp, hend), secs = w
    out = {}
    at = struct.unpack_from(endian + "Q", buf, hend)[0] if hend + 8 <= len(buf) else 0
    seen = set()
    while at and at not in seen and at + 16 <= len(buf):
        seen.add(at)
        sid, flags, _desc, size = struct.unpack_from(endian + "HHIQ", buf, at)
        if sid != 0 or at + 16 + size > len(buf):
            break
        b = buf[at + 16 : at + 16 + size]
        at = 0
        if flags & 1:
            if len(b) < 8:
                break
            zs, us = struct.unpack_from(endian + "II", b, 0)
            b = v7_inflate(comp, b[8 : 8 + zs], us)
            if b is None:
                break
        pos = 0
        while pos + 6 <= len(b):
            oid, osize = struct.unpack_from(endian + "HI", b, pos)
            p = b[pos + 6 : pos + 6 + osize]
            pos += 6 + osize
            if oid == 0:
                at = struct.unpack_from(endian + "Q", p, 0)[0] if len(p) >= 8 else 0
                break
            if oid != 3 or len(p) < 8:
                continue
            soff = struct.unpack_from(endian + "Q", p, 0)[0]
            n_end = p.find(b"\0", 8)
            c_end = p.find(b"\0", n_end + 1)
            if n_end < 0 or c_end < 0 or c_end + 9 > len(p):
                continue
            name = p[8:n_end].decode("utf-8", "replace")
            ps, n = struct.unpack_from(endian + "II", p, c_end + 1)
            cpus = []
            q = c_end + 9
            for _ in range(n):
                if q + 20 > len(p):
                    break
                cpus.append(struct.unpack_from(endian + "IQQ", p, q))
                q += 20
            out[name] = (soff, ps or page, cpus)
    return out, w


def v7_stream(buf, off, endian, comp, page, c, key, items):
    """One compressed CPU stream at `off`: u32 chunk count, then the chunks (u32 zsize, u32
    usize, zsize bytes). Counts its whole chunks and a cut one, and, with `items`, the events
    of the pages they decompress to. The declared chunks are its count when on disk and
    patched (not 0), else its whole and partial chunks. Returns where the stream ends."""
    c.whole[key] += 0
    if off + 4 > len(buf):
        c.declared[key] = 0  # the count is not on disk: no chunk of it is
        return None
    count = struct.unpack_from(endian + "I", buf, off)[0]
    p, k, frames = off + 4, 0, []
    while count == 0 or k < count:
        if p + 8 > len(buf):
            break
        zs, us = struct.unpack_from(endian + "II", buf, p)
        if zs == 0 or p + 8 + zs > len(buf):
            break  # (a size of 0 is no chunk: zeros after the last one)
        if items:
            frames.append((buf[p + 8 : p + 8 + zs], us))
        p += 8 + zs
        k += 1
    c.whole[key] = k
    cut = (count == 0 or k < count) and p < len(buf)
    if cut:
        c.partial[key] += 1
        c.partial_bytes[key] += len(buf) - p
    c.declared[key] = count if count else k + int(cut)
    if items:
        c.items[key] += chunk_events(frames, comp, page, endian, c)
    return p if count and k == count else None


def chunk_events(frames, comp, page, endian, c):
    """Events in the pages of whole compressed chunks (each decompresses to whole pages)."""
    datas = []
    if comp == "zstd" and zstandard is None:
        if frames and not have("zstd"):
            c.nodecoder = True
            return 0
        r = subprocess.run(["zstd", "-dc", "-q"], input=b"".join(f for f, _ in frames),
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        datas.append(r.stdout)
    else:
        for f, us in frames:
            d = v7_inflate(comp, f, us)
            if d is None:
                c.undecoded += 1
                continue
            datas.append(d)
    n = 0
    for d in datas:
        for q in range(0, len(d) - page + 1, page):
            n += page_events(d[q : q + page], endian)
    return n


def tracedat_count_v7(buf, ref):
    """trace.dat v7: per (buffer, CPU, unit), whole pages (uncompressed) or whole chunks
    (compressed) on disk and a partial one, what the BUFFER option declares (pages, or the
    stream's chunk count; the whole and partial ones when that is not on disk), and the events
    in the whole pages of the top buffer. The BUFFER options come from the file, else from
    `ref` (the undamaged original, whose data offsets a cut file shares); with neither (a
    killed writer), the streams of a compressed BUFFER section no option names are walked in
    order from its first page boundary, as CPUs 0, 1..."""
    here = v7_buffers(buf)
    if not here:
        return None
    tables, ((_v, endian, page, comp, _), secs) = here
    own = set(tables)  # the buffers whose BUFFER option is on disk in this file
    if ref is not None:
        r = v7_buffers(ref)
        if r:
            tables = dict(r[0], **tables)

    def is_compressed(soff):
        # the BUFFER section's flags, from the original when they are cut away
        for b in (buf, ref or b""):
            if soff + 4 <= len(b):
                return struct.unpack_from(endian + "H", b, soff + 2)[0] & 1
        return 0

    c = Count()
    c.declared = collections.Counter()
    for name, (soff, ps, cpus) in sorted(tables.items()):
        compressed = is_compressed(soff)
        for cpu, off, size in cpus:
            key = (name, cpu, "chunks" if compressed else "pages")
            if compressed:
                v7_stream(buf, off, endian, comp, ps, c, key, name == "")
                continue
            have_b = max(0, min(len(buf), off + size) - off)
            n = have_b // ps
            c.whole[key] = n
            # the pages the BUFFER option declares when it is on disk; else (its options
            # section cut away, the size only the original's) the whole and partial ones
            c.declared[key] = -(-size // ps) if name in own else n + int(have_b % ps > 0)
            if name == "":
                for k in range(n):
                    c.items[key] += page_events(buf[off + k * ps : off + (k + 1) * ps], endian)
            if have_b % ps:
                c.partial[key] += 1
                c.partial_bytes[key] += have_b % ps
    named = {t[0] for t in tables.values()}
    if ref is None:
        for off, sid, fl, body, end, _whole in secs:
            if sid != 3 or off in named:
                continue
            if not fl & 1 or comp is None:
                # uncompressed pages do not say which CPU they are: the repair is told
                # (--cpu-sizes) or takes the one CPU; nothing to count it against
                c.checkable = False
                continue
            c.unnamed = True
            pos, cpu = -(-body // page) * page, 0
            while pos < end:
                p = v7_stream(buf, pos, endian, comp, page, c, ("", cpu, "chunks"), True)
                cpu += 1
                if p is None:
                    break
                pos = -(-p // page) * page
    return c


# ---------------------------------------------------------------------------------------------
# Readers


class PerfReader:
    name = "perf 6.1 (Debian)"
    fmt = "perf"
    path = shutil.which("perf")


def read_perf(path):
    st, out, err = run(["perf", "script", "-F", "tid,time,event", "-i", path], cwd=tempfile.gettempdir())
    lines = [l for l in out.splitlines() if re.match(rb"^\s*-?\d+\s+[\d.]+:\s+\S+", l)]
    ident = {"samples": collections.Counter(lines)}
    return readers.Outcome(st, ident, out, readers._first_error(err))


def read(reader, path, info):
    if reader.fmt == "perf":
        return read_perf(path)
    o = readers.read_with(reader, path, TIMEOUT, info)
    if reader.fmt == "tracecmd":
        # per CPU (and buffer) the full lines, in order
        ident = {}
        for line in o.text.splitlines():
            m = readers._TC_EVENT.match(line)
            if m:
                # the column widths follow the longest comm and buffer name of the whole
                # file: spaces are not what was read
                ident.setdefault((m.group(1) or b"", m.group(2)), []).append(re.sub(rb"\s+", b" ", line.strip()))
        o.ident = ident
    elif reader.fmt == "uftrace":
        ident = {}
        dump = o.text.split(b"\n--replay--\n")[0]
        for line in dump.splitlines():
            # per task: the records of its task file, and apart from them the events of
            # perf-cpu*.dat and events.txt that dump merges in by time
            m = readers._UF_RECORD.match(line)
            if m:
                ident.setdefault((m.group(1), "records"), []).append(line)
                continue
            m = readers._UF_EVENT.match(line)
            if m:
                ident.setdefault((m.group(1), "events"), []).append(line)
        o.ident = ident
    elif reader.fmt == "gdb":
        o.ident = {"frames": o.ident.get(("frames",), [])}
    return o


def n_items(o):
    return sum(sum(v.values()) if isinstance(v, collections.Counter) else len(v) for v in o.ident.values())


def shown(fmt, o):
    """What a reader shows of the units the walkers count: perf samples, GDB frames, uftrace
    entry/exit records of the task files, trace-cmd events of the top buffer."""
    if fmt == "uftrace":
        return sum(1 for v in o.ident.values() for l in v if re.search(rb"\[(entry|exit)\s*\]", l))
    if fmt == "tracecmd":
        return sum(len(v) for k, v in o.ident.items() if k[0] == b"")
    return n_items(o)


def relation(fmt, base, out):
    """None when `out` is a prefix (per key) or a sub-multiset (perf) of `base`; else why not."""
    if fmt == "perf":
        extra = out.ident["samples"] - base.ident["samples"]
        if extra:
            return "%d sample line(s) not in the original, e.g. %r" % (sum(extra.values()), next(iter(extra)))
        return None
    for k, v in out.ident.items():
        b = base.ident.get(k, [])
        if b[: len(v)] != v:
            i = next((j for j, (x, y) in enumerate(zip(b, v)) if x != y), min(len(b), len(v)))
            got = v[i] if i < len(v) else b"<end>"
            want = b[i] if i < len(b) else b"<end>"
            return "%s: line %d differs: %r, the original has %r" % (k, i, got[:120], want[:120])
    return None


def tracedat_info(path):
    with open(path, "rb") as f:
        h = tracedat_header(f.read(4096))
    if not h:
        return {}
    return {"version": h[0], "compression": h[3] or "none"}


# ---------------------------------------------------------------------------------------------
# The tally


class Tally:
    def __init__(self, name):
        self.name = name
        self.n = 0
        self.codes = collections.Counter()
        self.bugs = []
        self.refusals = collections.Counter()
        self.ondisk = 0  # whole records on disk in IN (walker)
        self.back = collections.Counter()  # per reader: items it read of OUT (repaired) or IN
        self.base = collections.Counter()  # per reader: items on disk for the cases it read
        self.back_rep = collections.Counter()  # the same, repaired inputs only
        self.base_rep = collections.Counter()
        self.short = []  # (records not back, reader, exit, case)
        self.excluded = collections.Counter()  # per reader: inputs left out of its share
        self.readers = set()
        self.kinds = collections.Counter()
        self.skipped = set()
        self.back_kind = collections.defaultdict(collections.Counter)  # the shares by input kind
        self.base_kind = collections.defaultdict(collections.Counter)
        self.ledgers = collections.Counter()  # ledgers of repaired inputs checked, by kind
        self.unchecked = collections.Counter()  # and not checked (nothing to count them against)

    def bug(self, what, case):
        self.bugs.append("%s: %s" % (case, what))

    def summary(self):
        c = self.codes
        return {
            "damaged": self.n,
            "repaired_no_loss": c[4],
            "repaired_loss": c[5],
            "nothing": c[0],
            "refused": c[1],
            "other_exit": sum(v for k, v in c.items() if k not in (0, 1, 4, 5)),
            "bugs": len(self.bugs),
            "refusals": self.refusals.most_common(),
            "shares": {r: (self.back[r], self.base[r]) for r in sorted(self.readers)},
            "shares_repaired": {r: (self.back_rep[r], self.base_rep[r]) for r in sorted(self.readers)},
            "excluded": dict(self.excluded),
            "kinds": dict(self.kinds),
            "skipped": sorted(self.skipped),
            "shares_by_kind": {k: {r: (self.back_kind[k][r], self.base_kind[k][r]) for r in sorted(self.base_kind[k])}
                               for k in sorted(self.base_kind)},
            "ledgers_checked": dict(self.ledgers),
            "ledgers_unchecked": dict(self.unchecked),
        }

    def line(self):
        s = self.summary()
        out = "%-10s %5d damaged: %d repaired (%d without loss, %d with loss), %d nothing to do, %d refused, %d bugs" % (
            self.name, s["damaged"], s["repaired_no_loss"] + s["repaired_loss"], s["repaired_no_loss"],
            s["repaired_loss"], s["nothing"], s["refused"], s["bugs"])
        for r, (b, o) in s["shares"].items():
            if o:
                rb, ro = s["shares_repaired"][r]
                out += "\n    %-36s read %d of %d whole records on disk (%.1f%%); of the repaired: %d of %d (%.1f%%)%s" % (
                    r, b, o, 100.0 * b / o, rb, ro, 100.0 * rb / max(ro, 1),
                    "; %d inputs left out (it reads less of their original)" % s["excluded"][r] if s["excluded"].get(r) else "")
        if len(s["shares_by_kind"]) > 1:
            for k, rs in s["shares_by_kind"].items():
                out += "\n    %-18s " % k + ", ".join("%s %d of %d" % (r.replace("trace-cmd ", ""), b, o) for r, (b, o) in rs.items())
        for n, r, st, case in sorted(self.short, reverse=True)[:5]:
            out += "\n    short %5d (%s, exit %s): %s" % (n, r, st, case)
        for why, n in s["refusals"][:6]:
            out += "\n    refused %4d: %s" % (n, why)
        out += "\n    inputs: " + ", ".join("%s %d" % kv for kv in sorted(s["kinds"].items()))
        if self.ledgers or self.unchecked:
            out += "\n    ledgers checked: " + (", ".join("%s %d" % kv for kv in sorted(self.ledgers.items())) or "none")
            if self.unchecked:
                out += "; not checked: " + ", ".join("%s %d" % kv for kv in sorted(self.unchecked.items()))
        for sk in s["skipped"]:
            out += "\n    skipped: %s" % sk
        return out


def ledger_kind(fmt, info):
    """trace.dat: the file version and compression (v6, v7-none, v7-zstd, v7-zlib)."""
    if fmt == "tracecmd" and info:
        return "v%s" % info.get("version") + ("-" + info.get("compression", "none") if info.get("version", 6) >= 7 else "")
    return fmt


def refusal_reason(ledger):
    msg = ledger.get("message") or ""
    r = ledger.get("refusal") or {}
    why = r.get("reason") or msg
    why = re.sub(r"0x[0-9a-f]+|\b\d+\b", "N", why)
    return why[:110]


class Campaign:
    def __init__(self, tl, tmp):
        self.tl = tl
        self.tmp = tmp
        found, self.missing = readers.matrix()
        self.readers = {}
        for r in found:
            self.readers.setdefault(r.fmt, []).append(r)
        if have("perf"):
            self.readers["perf"] = [PerfReader()]
        self.base_cache = {}

    def base(self, reader, path, info):
        k = (reader.name, path)
        if k not in self.base_cache:
            self.base_cache[k] = read(reader, path, info)
        return self.base_cache[k]

    def orig_count(self, fmt, original):
        k = ("count", original)
        if k not in self.base_cache:
            self.base_cache[k] = self.count(fmt, original, None)
        return self.base_cache[k]

    def counter(self, fmt):
        return {"perf": perf_count, "uftrace": uftrace_count, "gdb": tfile_count}.get(fmt)

    def count(self, fmt, path, original):
        if fmt == "tracecmd":
            return tracedat_count(path, original) if original else tracedat_count(path)
        f = self.counter(fmt)
        return f(path) if f else None

    def one(self, t, fmt, damaged, original, label, info=None, extra=()):
        """`fix` of `damaged`, and every check against `original` (None for a killed recorder
        with nothing to compare to)."""
        out = os.path.join(self.tmp, "out" + os.path.splitext(damaged)[1])
        led = os.path.join(self.tmp, "ledger.json")
        rm(out)
        rm(led)
        before = digest(damaged)
        st, so, se = run([self.tl, "fix", damaged, "-o", out, "--ledger", led] + list(extra))
        t.n += 1
        t.codes[st] += 1
        case = "%s (%s)" % (label, os.path.basename(original or damaged))
        if digest(damaged) != before:
            t.bug("IN changed", case)
        if st not in (0, 1, 4, 5):
            t.bug("fix exit %s: %s" % (st, (se or so).decode("utf-8", "replace")[:200]), case)
            return
        try:
            ledger = json.load(open(led))["fix"]
        except Exception as e:
            t.bug("no ledger: %s" % e, case)
            return
        if st == 1:
            t.refusals[refusal_reason(ledger)] += 1
            if not (ledger.get("message") or ledger.get("refusal")):
                t.bug("refused without saying why", case)
        if st in (0, 1) and os.path.lexists(out):
            t.bug("exit %d but OUT written" % st, case)
        repaired = st in (4, 5)
        if repaired:
            cst, cout, _ = run([self.tl, "check", "-o", "concise", out])
            errs = [l for l in cout.decode("utf-8", "replace").splitlines() if "[error]" in l or ": error" in l]
            if errs or cst != 0:
                t.bug("OUT has errors (check exit %s): %s" % (cst, errs[:1]), case)
            out2 = os.path.join(self.tmp, "out2" + os.path.splitext(damaged)[1])
            rm(out2)
            a_st, a_so, _ = run([self.tl, "fix", out, "-o", out2])
            if a_st != 0 or os.path.lexists(out2):
                t.bug("fix of OUT is not a no-op (exit %s): %s" % (a_st, a_so.decode("utf-8", "replace")[-200:]), case)
            rm(out2)
        # What is on disk, counted here.
        cin = self.count(fmt, damaged, original if fmt == "tracecmd" else None)
        cout = self.count(fmt, out, original if fmt == "tracecmd" else None) if repaired else None
        if repaired and cin is not None and cout is not None and cin.checkable:
            self.check_ledger(t, fmt, ledger, cin, cout, case)
            t.ledgers[ledger_kind(fmt, info) + (" killed" if original is None else "")] += 1
        elif repaired:
            t.unchecked[ledger_kind(fmt, info) + (" killed" if original is None else "")] += 1
        if cin is not None and cin.nodecoder:
            t.skipped.add("v7-zstd events not counted: neither the python zstandard module nor zstd is installed")
        if cin is not None and cin.undecoded:
            t.skipped.add("%d whole compressed chunk(s) of IN that do not decompress: their events not counted (%s)" % (cin.undecoded, case))
        # Readers.
        target = out if repaired else damaged
        rs = [r for r in self.readers.get(fmt, []) if r.claims(info or {})] if fmt != "perf" else self.readers.get("perf", [])
        if not rs:
            t.skipped.add("no reader of %s on this machine" % fmt)
        for r in rs:
            t.readers.add(r.name)
            o = read(r, target, info)
            if original is not None:
                b = self.base(r, original, info)
                if b.status == 0 and n_items(b) > 0 or fmt == "perf" and b.status == 0:
                    if repaired and (o.status is None or o.status != 0):
                        t.bug("%s fails on OUT (status %s: %s)" % (r.name, o.status, o.note), case)
                    why = relation(fmt, b, o) if repaired else None
                    if why:
                        t.bug("%s: OUT is no prefix/subset of the original: %s" % (r.name, why), case)
            elif repaired and o.status != 0:
                t.bug("%s fails on OUT (status %s: %s)" % (r.name, o.status, o.note), case)
            full_base = True
            if original is not None:
                # a reader that reads less of the undamaged original than is on its disk (an
                # old reader, a clock it does not know) is not asked for more of OUT
                corig = self.orig_count(fmt, original)
                b = self.base(r, original, info)
                full_base = corig is None or shown(fmt, b) >= corig.total_items()
            if not full_base:
                t.excluded[r.name] += 1
            elif cin is not None and cin.total_items():
                disk = cin.total_items()
                got = min(shown(fmt, o), disk) if (repaired or st == 0) else 0
                t.back[r.name] += got
                t.base[r.name] += disk
                kind = ledger_kind(fmt, info) + (" killed" if original is None else "")
                t.back_kind[kind][r.name] += got
                t.base_kind[kind][r.name] += disk
                if repaired:
                    t.back_rep[r.name] += got
                    t.base_rep[r.name] += disk
                if got < disk and st in (0, 4, 5):
                    t.short.append((disk - got, r.name, st, case))

    def check_ledger(self, t, fmt, ledger, cin, cout, case):
        plan = ledger.get("plan") or {}
        losses = plan.get("losses", [])
        units = {"perf": "records", "gdb": "frames", "tracecmd": "pages", "uftrace": None}[fmt]
        keys = set(cin.whole) | set(cout.whole) | set(cin.declared or ())
        if fmt == "tracecmd" and any(isinstance(k, tuple) for k in keys):
            # v7: keys (buffer, CPU, pages or chunks); every loss must be one of them
            for l in losses:
                lk = (l.get("buffer") or "", l.get("cpu"), l.get("unit"))
                if lk not in keys and (l.get("count") or 0):
                    t.bug("ledger: %d %s of buffer %r CPU %r, which the walker does not find" % (l["count"], lk[2], lk[0], lk[1]), case)
        for k in keys:
            if cin.whole[k] is None:
                continue
            if cout.partial[k]:
                t.bug("OUT still has a partial unit in %r" % (k,), case)
            if fmt == "tracecmd" and isinstance(k, tuple):
                units = k[2]
                led = sum(l["count"] for l in losses if l.get("unit") == k[2] and l.get("cpu") == k[1] and (l.get("buffer") or "") == k[0])
            elif fmt == "tracecmd":
                led = sum(l["count"] for l in losses if l.get("unit") == "pages" and l.get("cpu") == k and not l.get("buffer"))
            elif fmt == "perf":
                led = sum(l["count"] for l in losses if l.get("unit") == "records" and (l.get("file") or "") == k)
            elif fmt == "gdb":
                led = sum(l["count"] for l in losses if l.get("unit") == "frames")
            else:
                led = sum(l["count"] for l in losses if l.get("unit") == "records" and l.get("file") == k)
                led_b = sum(l["bytes"] for l in losses if l.get("unit") == "bytes" and l.get("file") == k)
                if led_b != cin.partial_bytes[k]:
                    t.bug("ledger: %s: %d byte(s) lost, on disk %d partial byte(s)" % (k, led_b, cin.partial_bytes[k]), case)
            partial = cin.partial[k] if units else 0
            want = cin.whole[k] + partial - cout.whole[k]
            if cin.declared is not None:
                # trace.dat: the pages the CPU table declares, on disk or not (v7 compressed:
                # the chunks its stream's count declares, or its whole and partial ones when
                # the count is not on disk or was never patched)
                want = cin.declared[k] - cout.whole[k]
            if led != want:
                t.bug("ledger: %s %r: %d counted, %son disk %d whole + %d partial, OUT %d" % (
                    units or "records", k, led, "declared %d, " % cin.declared[k] if cin.declared is not None else "",
                    cin.whole[k], partial, cout.whole[k]), case)


# ---------------------------------------------------------------------------------------------
# Damaged inputs


def cut_points(size, bounds, rng, nrandom, sample, deltas=(0, 1, 7, 8, 4096)):
    pts = set()
    for b in bounds:
        for d in deltas:
            pts.update((b - d, b + d))
    pts.update(rng.randrange(1, size) for _ in range(nrandom) if size > 1)
    pts = sorted(p for p in pts if 0 < p < size)
    if sample:
        pts = sorted(rng.sample(pts, min(sample, len(pts))))
    return pts


def perf_record_bounds(path):
    buf = open(path, "rb").read()
    if buf[:8] != b"PERFILE2" or len(buf) < 56:
        return []
    hsize = struct.unpack_from("<Q", buf, 8)[0]
    if hsize == 16:
        pos, end = 16, len(buf)
    else:
        pos, size = struct.unpack_from("<QQ", buf, 40)
        end = min(len(buf), pos + size)
    out = [pos]
    while pos + 8 <= end:
        size = struct.unpack_from("<H", buf, pos + 6)[0]
        if size < 8:
            break
        pos += size
        out.append(pos)
    return out


def stream_bounds(path, fmt):
    buf = open(path, "rb").read()
    out, pos = [0], 0
    if fmt == "perf":
        while pos + 8 <= len(buf):
            size = struct.unpack_from("<H", buf, pos + 6)[0]
            if size < 8:
                break
            pos += size
            out.append(pos)
    else:
        while pos + 16 <= len(buf):
            pos += 16
            out.append(pos)
    return out


def cuts_file(c, t, fmt, path, rng, a):
    data = open(path, "rb").read()
    bounds = boundaries(c.tl, path)
    if fmt == "perf":
        rb = perf_record_bounds(path)
        if a.sample:
            rb = rng.sample(rb, min(len(rb), 8))
        bounds = sorted(set(bounds) | set(rb))
    deltas = (0, 1, 7, 8, 4096) if fmt != "perf" else (0, 1, 7, 8, 4096)
    pts = cut_points(len(data), bounds, rng, a.random, a.sample, deltas)
    if a.max_per_file and len(pts) > a.max_per_file:
        pts = sorted(rng.sample(pts, a.max_per_file))
    info = tracedat_info(path) if fmt == "tracecmd" else {}
    ext = os.path.splitext(path)[1]
    for p in pts:
        damaged = os.path.join(c.tmp, "in" + ext)
        with open(damaged, "wb") as f:
            f.write(data[:p])
        t.kinds["cut"] += 1
        c.one(t, fmt, damaged, path, "cut at %d" % p, info)


def v7_stream_points(data):
    """Offsets inside the compressed CPU streams of a v7 file: each chunk count and each chunk
    boundary + {0, 1, 7, 8, 9}, and where each stream ends."""
    r = v7_buffers(data)
    if not r:
        return []
    tables, ((_v, endian, _page, _comp, _), _secs) = r
    pts = []
    for _name, (soff, _ps, cpus) in tables.items():
        if soff + 4 > len(data) or not struct.unpack_from(endian + "H", data, soff + 2)[0] & 1:
            continue
        for _cpu, off, _size in cpus:
            pts += [off, off + 2]
            if off + 4 > len(data):
                continue
            q = off + 4
            for _ in range(struct.unpack_from(endian + "I", data, off)[0]):
                if q + 8 > len(data):
                    break
                pts += [q + d for d in (0, 1, 7, 8, 9)]
                q += 8 + struct.unpack_from(endian + "I", data, q)[0]
            pts.append(q)
    return sorted(set(p for p in pts if 0 < p < len(data)))


def stopped_copy(data):
    """The file as a writer stopped while copying the top buffer's last compressed CPU stream
    leaves it (trace-cmd patches these afterwards): the BUFFER section's size, that stream's
    chunk count and the next offset of the DONE before the data still 0. (copy, where that
    stream starts, where it ends), or None."""
    r = v7_buffers(data)
    if not r or "" not in r[0]:
        return None
    soff, _ps, cpus = r[0][""]
    endian = r[1][0][1]
    if not cpus or soff + 16 > len(data) or not struct.unpack_from(endian + "H", data, soff + 2)[0] & 1:
        return None
    _cpu, off, size = max(cpus, key=lambda x: x[1])
    b = bytearray(data)
    b[soff + 8 : soff + 16] = bytes(8)
    b[off : off + 4] = bytes(4)
    # and the DONE option of the options section before the data, whose next offset the
    # writer patches when it writes the next options section, after the data: still 0
    hend = r[1][0][4]
    at, done, seen = struct.unpack_from(endian + "Q", data, hend)[0], None, set()
    while at and at < soff and at not in seen and at + 16 <= len(data):
        seen.add(at)
        sid, flags, _d, size_ = struct.unpack_from(endian + "HHIQ", data, at)
        if sid != 0 or flags & 1:
            break
        pos, end, at = at + 16, min(len(data), at + 16 + size_), 0
        while pos + 6 <= end:
            oid, osize = struct.unpack_from(endian + "HI", data, pos)
            if oid == 0 and pos + 14 <= end:
                done = pos + 6
                at = struct.unpack_from(endian + "Q", data, done)[0]
                break
            pos += 6 + osize
    if done is None:
        return None
    b[done : done + 8] = bytes(8)
    return bytes(b), off, min(len(b), off + size + 4)


def stream_cuts(c, t, path, rng, a):
    """`--streams N`: N cuts inside the compressed CPU streams of a v7 file, and N cuts of a copy
    whose writer stopped while copying its last stream."""
    data = open(path, "rb").read()
    info = tracedat_info(path)
    damaged = os.path.join(c.tmp, "in.dat")
    sp = v7_stream_points(data)
    for p in sorted(rng.sample(sp, min(a.streams, len(sp)))):
        with open(damaged, "wb") as f:
            f.write(data[:p])
        t.kinds["v7 stream cut"] += 1
        c.one(t, "tracecmd", damaged, path, "stream cut at %d" % p, info)
    st = stopped_copy(data)
    if st:
        b, lo, hi = st
        for p in sorted(set(rng.randrange(lo + 1, hi + 1) for _ in range(a.streams))):
            with open(damaged, "wb") as f:
                f.write(b[:p])
            t.kinds["v7 writer stopped in its last stream"] += 1
            c.one(t, "tracecmd", damaged, path, "writer stopped in its last stream, cut at %d" % p, info)


def cuts_dir(c, t, fmt, src, rng, a, members, extra=()):
    cases = list(extra)
    for n in members:
        p = os.path.join(src, n)
        size = os.path.getsize(p)
        if size == 0:
            continue
        b = stream_bounds(p, fmt)
        if len(b) > 64:
            b = b[:: max(1, len(b) // 64)] + [b[-1]]
        pts = cut_points(size, b, rng, max(1, a.random // 4), a.sample, (1, 7, 8))
        if a.max_per_file and len(pts) > a.max_per_file:
            pts = sorted(rng.sample(pts, a.max_per_file))
        cases += [("cut", n, q) for q in pts]
    for what, n, q in cases:
        damaged = os.path.join(c.tmp, "in.d")
        rm(damaged)
        shutil.copytree(src, damaged)
        if what == "noinfo":
            os.remove(os.path.join(damaged, "info"))
        else:
            with open(os.path.join(damaged, n), "r+b") as f:
                f.truncate(q)
        t.kinds[what] += 1
        c.one(t, fmt, damaged, src, "%s %s %s" % (what, n or "", q if q is not None else ""))


# ---------------------------------------------------------------------------------------------
# Killed recorders


def kill_after(argv, delay, cwd=None, env=None):
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                         cwd=cwd, env=env, start_new_session=True)
    try:
        p.wait(timeout=delay)
        finished = True
    except subprocess.TimeoutExpired:
        finished = False
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        p.wait()
    return finished


def kill_at_size(argv, path, target, timeout=120):
    """Runs `argv` and SIGKILLs it once `path` holds `target` bytes (a random moment of the
    writing: trace-cmd reads its input first and writes its output in a burst at the end);
    True if it finished first."""
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                         start_new_session=True)
    end = time.time() + timeout
    while p.poll() is None and time.time() < end:
        try:
            if os.path.getsize(path) >= target:
                break
        except OSError:
            pass
        time.sleep(0.0002)
    if p.poll() is not None:
        return True
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except OSError:
        pass
    p.wait()
    return False


def build(tmp, name, src, flags):
    exe = os.path.join(tmp, name)
    if not os.path.exists(exe):
        subprocess.run(["gcc"] + flags + ["-o", exe] + src, check=True)
    return exe


def tracefs():
    d = "/sys/kernel/tracing"
    if not os.path.exists(os.path.join(d, "trace")):
        subprocess.run(["mount", "-t", "tracefs", "nodev", d], stderr=subprocess.DEVNULL)
    return os.path.exists(os.path.join(d, "trace"))


def killed(c, tallies, rng, n, work):
    src = os.path.join(ROOT, "scripts", "corpus", "src")
    # perf record, plain and -z
    if "perf" in tallies and have("perf") and have("gcc"):
        t = tallies["perf"]
        exe = build(work, "pf_work", [os.path.join(src, "pf_work.c")], ["-O1", "-g", "-fno-omit-frame-pointer"])
        for i in range(n):
            z = ["-z"] if i % 2 else []
            out = os.path.join(work, "killed.data")
            rm(out)
            delay = rng.uniform(0.05, 1.5)
            done = kill_after(["perf", "record", "-q", "-o", out, "-F", "999", "-e", "cpu-clock"] + z + ["--", exe, "40"], delay)
            if not os.path.exists(out) or done:
                t.kinds["killed perf record (finished or nothing written)"] += 1
                continue
            t.kinds["killed perf record" + (" -z" if z else "")] += 1
            c.one(t, "perf", out, None, "perf record%s killed after %.2f s" % (" -z" if z else "", delay))
    # uftrace record of a -pg program that calls small functions for two seconds
    if "uftrace" in tallies and have("uftrace") and have("gcc"):
        t = tallies["uftrace"]
        src_c = os.path.join(work, "uf_spin.c")
        with open(src_c, "w") as f:
            f.write(UF_SPIN)
        exe = build(work, "uf_spin", [src_c], ["-pg", "-O0", "-g"])
        # a finished recording of the same program: its `*.sym` files, which a killed
        # recorder never writes, are given to fix with --with-syms
        donor = os.path.join(work, "donor.uftrace")
        subprocess.run(["uftrace", "record", "-d", donor, exe], cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        syms = ["--with-syms", donor] if os.path.isdir(donor) else []
        for i in range(n):
            out = os.path.join(work, "killed.uftrace")
            rm(out)
            delay = rng.uniform(0.05, 1.5)
            done = kill_after(["uftrace", "record", "-d", out, exe], delay, cwd=work)
            for f in os.listdir("/dev/shm"):
                if f.startswith("uftrace-"):
                    rm(os.path.join("/dev/shm", f))
            if not os.path.isdir(out) or done:
                t.kinds["killed uftrace record (finished or nothing written)"] += 1
                continue
            t.kinds["killed uftrace record"] += 1
            c.one(t, "uftrace", out, None, "uftrace record killed after %.2f s" % delay, extra=syms)
    # trace-cmd extract killed, and trace-cmd convert of a recording killed
    if "trace.dat" in tallies and have("trace-cmd"):
        t = tallies["trace.dat"]
        tc = lambda *args: subprocess.run(["trace-cmd"] + list(args), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        tr = "/sys/kernel/tracing"
        source = os.path.join(ROOT, "corpus", "tracecmd", "v6.dat")

        def put(f, v):
            try:
                with open(os.path.join(tr, f), "w") as fh:
                    fh.write(v)
            except OSError:
                pass

        def fill(kb="1410"):
            # (`trace-cmd start` needs /proc/sys/kernel/ftrace_enabled, which a container may
            # not let it write: tracefs directly)
            put("buffer_size_kb", kb)
            put("events/sched/enable", "1")
            put("events/syscalls/enable", "1")
            put("tracing_on", "1")
            end = time.time() + 0.5
            while time.time() < end:
                subprocess.run(["ls", "-R", "/usr/share/doc"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            put("tracing_on", "0")

        live = tracefs()
        try:
            if live:
                fill("8192")
                rec = os.path.join(work, "source.dat")
                tc("extract", "-o", rec)
                if os.path.exists(rec):
                    source = rec
                for i in range(max(1, n // 2)):
                    fill()
                    out = os.path.join(work, "extract.dat")
                    rm(out)
                    frac = rng.uniform(0.01, 1.0)
                    done = kill_at_size(["trace-cmd", "extract", "-o", out], out, int(frac * os.path.getsize(source)))
                    if os.path.exists(out) and not done:
                        t.kinds["killed trace-cmd extract"] += 1
                        c.one(t, "tracecmd", out, None, "trace-cmd extract killed at %.0f%% of a full extract's size" % (100 * frac), tracedat_info(out))
                    else:
                        t.kinds["killed trace-cmd extract (finished or nothing written)"] += 1
                    rm(out)
            full = {}
            for fv in ("6", "7"):
                comp = ["--compression", "zstd"] if fv == "7" else []
                out = os.path.join(work, "killed.dat")
                rm(out)
                subprocess.run(["trace-cmd", "convert", "-i", source, "-o", out, "--file-version", fv] + comp,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                full[fv] = os.path.getsize(out) if os.path.exists(out) else 1 << 20
                rm(out)
            for i in range(n):
                fv = ["6", "7"][i % 2]
                comp = ["--compression", "zstd"] if fv == "7" else []
                out = os.path.join(work, "killed.dat")
                rm(out)
                # a random moment of the writing: when OUT holds a random share of its size
                frac = rng.uniform(0.01, 1.0)
                done = kill_at_size(["trace-cmd", "convert", "-i", source, "-o", out, "--file-version", fv] + comp, out,
                                    int(frac * full[fv]))
                delay = frac
                if not os.path.exists(out) or done:
                    t.kinds["killed trace-cmd convert (finished or nothing written)"] += 1
                    continue
                t.kinds["killed trace-cmd convert"] += 1
                c.one(t, "tracecmd", out, None, "trace-cmd convert v%s killed at %.0f%% of its output" % (fv, 100 * delay), tracedat_info(out))
                rm(out)
        finally:
            if live:
                put("events/enable", "0")
                tc("reset")
                put("tracing_on", "0")
                put("buffer_size_kb", "1410")
    if "tfile" in tallies:
        # GDB writes a tfile in one `tsave` command, with the program stopped under GDB's
        # control: there is no moment to interrupt it from outside but killing GDB, whose
        # tsave of a small trace completes before any signal can land.
        tallies["tfile"].kinds["killed GDB tsave: not run (tsave cannot be interrupted)"] += 0


UF_SPIN = r"""
#include <time.h>
#include <unistd.h>
static int leaf(int x) { return x + 1; }
static int mid(int x) { int s = 0; for (int i = 0; i < 4; i++) s += leaf(x + i); return s; }
int main(void)
{
  struct timespec t0, t;
  long n = 0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do {
    for (int i = 0; i < 5; i++)
      n += mid(i);
    usleep(200);
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 2000000000L);
  return (int)(n & 1);
}
"""


# ---------------------------------------------------------------------------------------------


FORMATS = {
    "trace.dat": ("tracecmd", "tracecmd", (".dat",)),
    "tfile": ("gdb", "gdb", (".tf",)),
    "perf": ("perf", "perf", (".data",)),
    "uftrace": ("uftrace", "uftrace", ()),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/tracelint"))
    ap.add_argument("--random", type=int, default=20)
    ap.add_argument("--sample", type=int, default=0, help="at most N cuts per file")
    ap.add_argument("--max-per-file", type=int, default=0)
    ap.add_argument("--killed", type=int, default=0, help="recordings killed at random moments, per recorder")
    ap.add_argument("--no-cuts", action="store_true", help="killed recorders only")
    ap.add_argument("--streams", type=int, default=0,
                    help="trace.dat v7: N cuts inside the compressed CPU streams of each file, and N of a copy whose writer stopped in its last stream")
    ap.add_argument("--formats", default="trace.dat,uftrace,tfile,perf")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ci", action="store_true", help="the CI sample: --sample 2 --random 3 --killed 1")
    ap.add_argument("--json", help="write the figures as JSON here")
    a = ap.parse_args()
    if a.ci:
        a.sample, a.random, a.killed = a.sample or 2, 3, a.killed or 1
    if not os.access(a.bin, os.X_OK):
        print("salvage: %s is not built" % a.bin, file=sys.stderr)
        return 2
    rng = random.Random(a.seed)
    tmp = tempfile.mkdtemp(prefix="salvage-")
    c = Campaign(os.path.abspath(a.bin), tmp)
    want = [f.strip() for f in a.formats.split(",") if f.strip()]
    tallies = {f: Tally(f) for f in want}
    try:
        for f in [] if a.no_cuts else want:
            fmt, sub, exts = FORMATS[f]
            t = tallies[f]
            folder = os.path.join(ROOT, "corpus", sub)
            for name in sorted(os.listdir(folder)):
                path = os.path.join(folder, name)
                if exts and name.endswith(exts) and os.path.isfile(path):
                    cuts_file(c, t, fmt, path, rng, a)
                    if fmt == "tracecmd" and a.streams:
                        stream_cuts(c, t, path, rng, a)
                elif fmt == "uftrace" and os.path.isfile(os.path.join(path, "info")):
                    dats = sorted(n for n in os.listdir(path) if re.fullmatch(r"\d+\.dat", n))
                    cuts_dir(c, t, fmt, path, rng, a, dats, [("noinfo", None, None)])
                elif fmt == "perf" and os.path.isdir(path) and os.path.isfile(os.path.join(path, "data")):
                    streams = sorted(n for n in os.listdir(path) if re.fullmatch(r"data\.\d+", n))
                    cuts_dir(c, t, fmt, path, rng, a, streams)
                    # and the `data` member cut inside its own records
                    dpath = os.path.join(path, "data")
                    for q in cut_points(os.path.getsize(dpath), perf_record_bounds(dpath), rng, 2, a.sample, (0, 1, 7)):
                        damaged = os.path.join(tmp, "in.d")
                        rm(damaged)
                        shutil.copytree(path, damaged)
                        with open(os.path.join(damaged, "data"), "r+b") as fh:
                            fh.truncate(q)
                        t.kinds["cut data"] += 1
                        c.one(t, fmt, damaged, path, "cut data %d" % q)
        if a.killed:
            work = tempfile.mkdtemp(prefix="salvage-killed-", dir="/tmp")
            try:
                killed(c, tallies, rng, a.killed, work)
            finally:
                shutil.rmtree(work, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for name, why in c.missing:
        print("reader missing: %s: %s" % (name, why))
    for k, t in tallies.items():
        print(t.line())
        for b in t.bugs[:15]:
            print("   BUG " + b)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({k: dict(t.summary(), bugs_list=t.bugs) for k, t in tallies.items()}, f, indent=1, default=str)
    total = sum(len(t.bugs) for t in tallies.values())
    print("%d passed, %d failed" % (sum(t.n for t in tallies.values()) - total, total) if False else "salvage: %d damaged inputs, %d bugs" % (sum(t.n for t in tallies.values()), total))
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
