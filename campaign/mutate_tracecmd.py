"""trace.dat v6/v7 fields for the mutator, found by a walk written apart from tracelint's decoder.

Fields: the magic, version, endianness, long size, page size; v6 metadata sizes and counts
(header_page, header_event, ftrace and event formats, kallsyms, printk, cmdlines, CPU count);
option ids and sizes and every field of BUFFER/DONE options; v7 compression name, options
offset, section ids, flags, string ids and sizes, compressed csize/usize, per-CPU chunk counts
and chunk sizes; CPU data offsets and sizes; ring-page timestamps and commit words; every event
header word, length word and event id (`common_type`) of uncompressed pages. Text lines: every
line of uncompressed header_page/header_event texts and event format texts. Payload: event data
after the common fields.

Targeted edits (tagged by class): an event header made a time extend (type_len 30), an absolute
time stamp (31) or padding (29); a ring page's commit word with RB_MISSED_EVENTS (bit 31) or
RB_MISSED_STORED (bit 30) set and its size part kept or damaged; on v6 files, bytes of an event
format, ftrace format, kallsyms or printk text changed, the clock record lengths (the
TRACECLOCK option's size and the trace_clock record after a flyrecord table) changed, and a CPU
data size cut by one byte.
"""

import re
import struct

from mutate_common import Layout


class Walk:
    def __init__(self, data):
        self.d = data
        self.big = False
        self.lay = Layout(data, "")
        self.info = {"version": None, "compression": "none"}
        # Targets of the targeted edits, filled by the walk.
        self.headers = []  # offsets of event header words
        self.commits = []  # (offset, width, value, page_size) of ring-page commit words
        self.texts = []  # (offset, length, label) of v6 event format / kallsyms / printk texts
        self.clock_sizes = []  # (offset, width, value, label) of v6 clock record lengths
        self.cpu_sizes = []  # (offset, value) of v6 CPU data sizes
        self.buffers6 = []  # v6 BUFFER option offsets (an instance's flyrecord)

    def u(self, off, w):
        fmt = {1: "B", 2: "H", 4: "I", 8: "Q"}[w]
        if off < 0 or off + w > len(self.d):
            raise EOFError
        return struct.unpack_from((">" if self.big else "<") + fmt, self.d, off)[0]

    def f(self, off, w, label, value=False, known=None):
        self.lay.field(off, w, label, self.big, value, known)
        return self.u(off, w)

    def cstr(self, off):
        end = self.d.find(b"\0", off)
        if end < 0:
            raise EOFError
        return self.d[off:end], end + 1


def layout(data):
    w = Walk(data)
    lay = w.lay
    try:
        _walk(w)
    except (EOFError, struct.error, ValueError):
        pass
    _targeted(w)
    return w.info, [lay]


def _put(data, off, width, value, big):
    fmt = {4: "I", 8: "Q"}[width]
    out = bytearray(data)
    struct.pack_into((">" if big else "<") + fmt, out, off, value & ((1 << (8 * width)) - 1))
    return bytes(out)


TYPE_NAMES = {29: "padding", 30: "time extend", 31: "absolute time stamp"}
RB_MISSED_EVENTS = 1 << 31
RB_MISSED_STORED = 1 << 30


def _targeted(w):
    """The targeted edits: cases readers are known to get wrong, each tagged by class."""
    lay, big = w.lay, w.big

    def header_as(tl, tag):
        def fn(d, rng):
            off = rng.choice(w.headers)
            hdr = struct.unpack_from((">" if big else "<") + "I", d, off)[0]
            new = (hdr & ~0x1F) | tl
            desc = f"event header @0x{off:x} type_len {hdr & 0x1f} -> {tl} ({TYPE_NAMES[tl]})"
            if tl == 29 and hdr & 0x1F == 0:
                # The shape of the kernel's discard of a length-word record when the delta
                # is not 0 (KNOWN_GAPS in run.py).
                desc += f", time delta {hdr >> 5}"
            return (desc, _put(d, off, 4, new, big))

        lay.edit(tag, fn)

    if w.headers:
        header_as(30, "tc-time-extend")
        header_as(31, "tc-abs-time")
        header_as(29, "tc-padding")

    if w.commits:
        def commit(d, rng):
            off, width, value, page_size = rng.choice(w.commits)
            size = value & 0x0FFFFFFF
            flags = rng.choice([RB_MISSED_EVENTS, RB_MISSED_STORED, RB_MISSED_EVENTS | RB_MISSED_STORED])
            how, nsize = rng.choice([
                ("size kept", size),
                ("size +4", size + 4),
                ("size -4", max(size - 4, 0)),
                ("size +1", size + 1),
                ("size 0", 0),
                ("size halved", size // 2),
                ("size the page", page_size),
                ("size past the page", page_size + 8),
                ("size random", rng.randrange(1, max(2, page_size * 2))),
            ])
            names = "+".join(n for b, n in ((RB_MISSED_EVENTS, "MISSED_EVENTS"), (RB_MISSED_STORED, "MISSED_STORED")) if flags & b)
            new = (value & ~0x0FFFFFFF & ~(RB_MISSED_EVENTS | RB_MISSED_STORED)) | flags | (nsize & 0x0FFFFFFF)
            if (value >> 32) and width == 8:
                new |= value & ~0xFFFFFFFF
            return (f"page commit @0x{off:x} {value:#x} -> {new:#x} ({names}, {how})", _put(d, off, width, new, big))

        lay.edit("tc-commit-flags", commit)

    if w.info.get("version") == 6:
        if w.texts:
            def text_flip(d, rng):
                off, length, label = rng.choice(w.texts)
                out = bytearray(d)
                where = []
                for _ in range(rng.randint(1, 2)):
                    i = off + rng.randrange(length)
                    out[i] = rng.choice([rng.randrange(256), rng.randrange(0x20, 0x7f)])
                    where.append(i)
                return (f"{label} text bytes at " + ",".join(f"{i:#x}" for i in where) + " changed", bytes(out))

            lay.edit("tc-v6-text-flip", text_flip)
        if w.clock_sizes:
            def clock(d, rng):
                off, width, value, label = rng.choice(w.clock_sizes)
                how, new = rng.choice([("0", 0), ("+1", value + 1), ("-1", value - 1), ("+8", value + 8),
                                       ("doubled", value * 2), ("all ones", (1 << (8 * width)) - 1),
                                       ("top bit", 1 << (8 * width - 1)), ("huge", 1 << 31)])
                return (f"{label} @0x{off:x} {value:#x} -> {new & ((1 << (8 * width)) - 1):#x} ({how})", _put(d, off, width, new, big))

            lay.edit("tc-v6-clock-length", clock)
        if w.cpu_sizes:
            def cpu_cut(d, rng):
                off, value = rng.choice(w.cpu_sizes)
                return (f"cpu data size @0x{off:x} {value:#x} -> {value - 1:#x} (one byte less)", _put(d, off, 8, value - 1, big))

            lay.edit("tc-v6-cpu-size-1", cpu_cut)


def _walk(w):
    d, lay = w.d, w.lay
    lay.field(0, 1, "magic[0]")
    lay.field(1, 2, "magic[1..3]")
    lay.field(3, 4, "'tracing' tag")
    ver, pos = w.cstr(10)
    lay.field(10, 1, "version string")
    lay.cut(10)
    version = int(ver or b"0")
    w.info["version"] = version
    w.big = d[pos] == 1
    lay.field(pos, 1, "endianness")
    lay.field(pos + 1, 1, "long size")
    long_size = d[pos + 1]
    page_size = w.f(pos + 2, 4, "page size")
    pos += 6
    lay.cut(pos)
    if version >= 7:
        comp, p2 = w.cstr(pos)
        lay.field(pos, 1, "compression name")
        w.info["compression"] = comp.decode("latin1")
        _cver, p3 = w.cstr(p2)
        opt_off = w.f(p3, 8, "first options offset")
        lay.cut(p3 + 8)
        _sections(w, p3 + 8, page_size, long_size)
        return
    # v6: header_page, header_event
    for tag in (b"header_page\0", b"header_event\0"):
        if d[pos : pos + len(tag)] != tag:
            return
        lay.field(pos, 4, tag.decode().strip("\0") + " tag")
        size = w.f(pos + len(tag), 8, tag.decode().strip("\0") + " size")
        body = pos + len(tag) + 8
        lay.text_lines(body, size, tag.decode().strip("\0"))
        pos = body + size
        lay.cut(pos)
    pos = _formats(w, pos, "ftrace")
    nsys = w.f(pos, 4, "event systems count")
    pos += 4
    for _ in range(min(nsys, 4096)):
        _name, pos = w.cstr(pos)
        pos = _formats(w, pos, "event")
    for what in ("kallsyms", "printk"):
        size = w.f(pos, 4, what + " size")
        lay.text_lines(pos + 4, size, what)
        if 0 < size and pos + 4 + size <= len(d):
            w.texts.append((pos + 4, size, what))
        pos += 4 + size
        lay.cut(pos)
    size = w.f(pos, 8, "cmdlines size")
    lay.text_lines(pos + 8, size, "cmdlines")
    pos += 8 + size
    lay.cut(pos)
    ncpus = w.f(pos, 4, "cpu count")
    pos += 4
    cpus = []
    while True:
        tag = d[pos : pos + 10]
        lay.cut(pos)
        if tag == b"options  \0":
            lay.field(pos, 4, "options tag")
            pos = _options(w, pos + 10, 6, cpus, page_size, long_size)
        elif tag == b"flyrecord\0":
            lay.field(pos, 4, "flyrecord tag")
            pos += 10
            pos = _flyrecord6(w, pos, ncpus, cpus, "")
            break
        else:
            break
    for boff in w.buffers6:
        if d[boff:boff + 10] == b"flyrecord\0":
            _flyrecord6(w, boff + 10, ncpus, cpus, "instance ")
    for off, size, _ in cpus:
        _pages(w, off, size, page_size, long_size)


def _flyrecord6(w, pos, ncpus, cpus, what):
    """A v6 flyrecord table: per CPU offset and size, then the clock record (8-byte length and
    the clock text) when the file has one."""
    d = w.d
    first = None
    for c in range(min(ncpus, 1024)):
        off = w.f(pos, 8, f"{what}cpu {c} data offset")
        size = w.f(pos + 8, 8, f"{what}cpu {c} data size")
        if size > 0:
            w.cpu_sizes.append((pos + 8, size))
            first = off if first is None else min(first, off)
        cpus.append((off, size, False))
        pos += 16
    if pos + 8 <= len(d):
        clen = w.u(pos, 8)
        text = d[pos + 8:pos + 8 + clen] if clen < 4096 else b""
        if 0 < clen < 4096 and (first is None or pos + 8 + clen <= first) and text[:1] == b"[":
            w.lay.field(pos, 8, f"{what}trace_clock size")
            w.clock_sizes.append((pos, 8, clen, f"{what}trace_clock record length"))
            w.lay.cut(pos + 8)
    return pos


def _formats(w, pos, what):
    count = w.f(pos, 4, f"{what} format count")
    pos += 4
    for i in range(min(count, 100000)):
        size = w.f(pos, 8, f"{what} format {i} size")
        w.lay.text_lines(pos + 8, size, f"{what} format")
        if w.info.get("version") == 6 and 0 < size and pos + 8 + size <= len(w.d):
            w.texts.append((pos + 8, size, f"{what} format"))
        pos += 8 + size
        w.lay.cut(pos)
    return pos


def _options(w, pos, version, cpus, page_size, long_size):
    lay = w.lay
    for _ in range(4096):
        oid = w.f(pos, 2, "option id", known=set(range(26)))
        lay.cut(pos)
        if oid == 0:
            if version >= 7:
                w.f(pos + 2, 4, "DONE size")
                w.f(pos + 6, 8, "DONE next offset")
                return pos + 14
            return pos + 2
        size = w.f(pos + 2, 4, f"option {oid} size")
        body = pos + 6
        if oid == 4 and version == 6:
            w.clock_sizes.append((pos + 2, 4, size, "TRACECLOCK option size"))
        if oid == 3:  # BUFFER
            boff = w.f(body, 8, "BUFFER offset")
            if version == 6:
                w.buffers6.append(boff)
            if version >= 7:
                _name, p = w.cstr(body + 8)
                _clock, p = w.cstr(p)
                w.f(p, 4, "BUFFER page size")
                n = w.f(p + 4, 4, "BUFFER cpu count")
                p += 8
                for i in range(min(n, 1024)):
                    w.f(p, 4, f"BUFFER cpu[{i}] id", value=True)
                    off = w.f(p + 4, 8, f"BUFFER cpu[{i}] offset")
                    sz = w.f(p + 12, 8, f"BUFFER cpu[{i}] size")
                    cpus.append((off, sz, w.info["compression"] != "none"))
                    p += 20
        elif oid in (16, 17, 18, 19, 20, 21, 22) and size >= 8:
            w.f(body, 8, f"option {oid} section offset")
        elif oid == 8 and size >= 4:
            w.f(body, 4, "CPUCOUNT")
        elif oid == 2:
            lay.text_lines(body, size, "CPUSTAT")
        elif oid == 9 and "writer" not in w.info:  # VERSION: the writer's version string
            m = re.match(rb"(\d+)\.(\d+)(?:\.(\d+))?", w.d[body:body + size])
            if m:
                w.info["writer"] = tuple(int(x) for x in m.groups() if x is not None)
        pos = body + size
    return pos


def _sections(w, pos, page_size, long_size):
    d, lay = w.d, w.lay
    comp = w.info["compression"] != "none"
    sections = []
    while pos + 16 <= len(d):
        sid = w.f(pos, 2, "section id")
        flags = w.f(pos + 2, 2, "section flags")
        w.f(pos + 4, 4, "section string id")
        size = w.f(pos + 8, 8, "section size")
        body = pos + 16
        lay.cut(pos)
        lay.cut(body)
        sections.append((pos, sid, flags, body, size))
        if flags & 1 and sid not in (3, 22) and size >= 8:
            w.f(body, 4, "section csize")
            w.f(body + 4, 4, "section usize")
        elif sid == 0 and not flags & 1:
            _options(w, body, 7, [], page_size, long_size)
        elif sid == 16 and not flags & 1:
            p = body
            for tag in (b"header_page\0", b"header_event\0"):
                size2 = w.f(p + len(tag), 8, tag.decode().strip("\0") + " size")
                lay.text_lines(p + len(tag) + 8, size2, tag.decode().strip("\0"))
                p += len(tag) + 8 + size2
        elif sid == 17 and not flags & 1:
            _formats(w, body, "ftrace")
        elif sid == 18 and not flags & 1:
            p = body
            nsys = w.f(p, 4, "event systems count")
            p += 4
            for _ in range(min(nsys, 4096)):
                _name, p = w.cstr(p)
                p = _formats(w, p, "event")
        if size > len(d):
            break
        pos = body + size
    cpus = []
    for _pos, sid, _flags, body, size in sections:
        if sid == 0:
            # BUFFER options inside options sections give the CPU ranges.
            p = body
            for _ in range(4096):
                if p + 6 > body + size:
                    break
                oid = w.u(p, 2)
                if oid == 0:
                    break
                osz = w.u(p + 2, 4)
                if oid == 3:
                    _name, q = w.cstr(p + 14)
                    _clock, q = w.cstr(q)
                    n = w.u(q + 4, 4)
                    q += 8
                    for _ in range(min(n, 1024)):
                        cpus.append((w.u(q + 4, 8), w.u(q + 12, 8)))
                        q += 20
                p += 6 + osz
    for off, size in cpus:
        if comp:
            _chunks(w, off, size)
        else:
            _pages(w, off, size, page_size, long_size)


def _chunks(w, off, size):
    lay = w.lay
    n = w.f(off, 4, "cpu chunk count")
    p = off + 4
    for i in range(min(n, 1 << 16)):
        if p >= off + size:
            break
        cs = w.f(p, 4, f"chunk {i} csize")
        w.f(p + 4, 4, f"chunk {i} usize")
        lay.cut(p)
        lay.region(p + 8, min(cs, off + size - p - 8), "a compressed chunk body")
        p += 8 + cs


def _pages(w, off, size, page_size, long_size):
    lay = w.lay
    if page_size <= 0 or page_size > 1 << 20:
        return
    end = min(off + size, len(w.d))
    p = off
    npages = 0
    while p + 16 <= end and npages < 4096:
        lay.cut(p)
        w.f(p, 8, "page timestamp")
        commit_w = 8 if long_size == 8 else 4
        commit_full = w.f(p + 8, commit_w, "page commit")
        commit = commit_full & 0x0FFFFFFF
        w.commits.append((p + 8, commit_w, commit_full, page_size))
        data = p + 8 + commit_w
        _events(w, data, min(data + commit, p + page_size, end))
        p += page_size
        npages += 1


def _events(w, pos, end):
    lay = w.lay
    n = 0
    while pos + 4 <= end and n < 100000:
        hdr = w.f(pos, 4, "event header")
        lay.cut(pos)
        w.headers.append(pos)
        tl = hdr & 0x1F
        if tl == 0:
            length = w.f(pos + 4, 4, "event length")
            if length < 4:
                return
            data = pos + 8
            dlen = length - 4
        elif tl <= 28:
            data = pos + 4
            dlen = tl * 4
        elif tl == 29:
            length = w.f(pos + 4, 4, "padding length")
            pos += 4 + length if length else end
            continue
        elif tl == 30 or tl == 31:
            pos += 8 if tl == 30 else 12
            continue
        else:
            return
        if dlen >= 8:
            w.f(data, 2, "event id (common_type)", value=True)
            lay.pay(data + 8, dlen - 8, "event")
        pos = data + dlen
        n += 1
