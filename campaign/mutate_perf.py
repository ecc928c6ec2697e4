"""perf.data fields for the mutator, from a walk of its own (not tracelint's decoder).

File mode (`PERFILE2` in either byte order): the header (magic, size, attr_size, the attrs,
data and event_types sections, the feature bitmap), every attr (`perf_file_attr`: type, size,
config, sample_type, read_format, flags, register masks, stack size, its ids section) and its
ids, the data section's records, the feature table (one {offset, size} per set bit) and each
feature's payload (strings, NRCPUS, TOTAL_MEM, CMDLINE, EVENT_DESC, BUILD_ID entries,
COMPRESSED, SAMPLE_TIME, the others as counted bodies). Pipe mode (header size 16): the
records only, HEADER_ATTR (attr and ids), HEADER_FEATURE (feature id and payload),
HEADER_TRACING_DATA (size and the block after it). Records: header (type, misc, size), SAMPLE
bodies field by field as the attr's sample_type lays them out, the sample_id_all trailer of
other kernel records (read backwards from the record end, as perf does), FINISHED_ROUND,
COMPRESSED records (header and zstd bytes; the stream is not decompressed here).

Recorded values (a sample's ip, pid/tid, time, addr, cpu, period, callchain addresses, register
and stack bytes, tracepoint payload after `common_type`; trailer pid/tid/time; feature strings)
are value fields: a reader printing another value reads what is written. Ids, counts, sizes,
`common_type` and the ABI words are structure.

Targeted kinds (tags): `pf-size-off1` (a record's or section's size ±1 or ±8),
`pf-cut-record` (cut at a record boundary of the data), `pf-cut-mid` (cut inside a record),
`pf-killed` (data.size zeroed, with and without the features after the data: what a killed
`perf record` leaves), `pf-feature` (feature table entry, feature bit or feature payload
damaged), `pf-sample` (a sample's recorded value set to a boundary value: content, not
structure), `pf-round-order` (a sample after a FINISHED_ROUND made older than what was
flushed), `pf-compressed` (a COMPRESSED record's size or zstd bytes).
"""

import struct

from mutate_common import Layout

MAGIC_LE = b"PERFILE2"
MAGIC_BE = b"2ELIFREP"

KERNEL_TYPES = set(range(1, 22))
USER_TYPES = set(range(64, 83))
FINISHED_ROUND = 68
COMPRESSED = 81
SAMPLE = 9

# Feature bits perf 6.1 knows.
FEATURES = {
    1: "TRACING_DATA", 2: "BUILD_ID", 3: "HOSTNAME", 4: "OSRELEASE", 5: "VERSION", 6: "ARCH",
    7: "NRCPUS", 8: "CPUDESC", 9: "CPUID", 10: "TOTAL_MEM", 11: "CMDLINE", 12: "EVENT_DESC",
    13: "CPU_TOPOLOGY", 14: "NUMA_TOPOLOGY", 15: "BRANCH_STACK", 16: "PMU_MAPPINGS",
    17: "GROUP_DESC", 18: "AUXTRACE", 19: "STAT", 20: "CACHE", 21: "SAMPLE_TIME",
    22: "MEM_TOPOLOGY", 23: "CLOCKID", 24: "DIR_FORMAT", 25: "BPF_PROG_INFO", 26: "BPF_BTF",
    27: "COMPRESSED", 28: "CPU_PMU_CAPS", 29: "CLOCK_DATA", 30: "HYBRID_TOPOLOGY", 31: "PMU_CAPS",
}
STRING_FEATURES = {3, 4, 5, 6, 8, 9}

# sample_type bits
IP, TID, TIME, ADDR, READ, CALLCHAIN, ID, CPU, PERIOD, STREAM_ID, RAW = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
BRANCH_STACK, REGS_USER, STACK_USER, WEIGHT, DATA_SRC, IDENTIFIER, TRANSACTION, REGS_INTR = 11, 12, 13, 14, 15, 16, 17, 18
PHYS_ADDR, AUX, CGROUP, DATA_PAGE_SIZE, CODE_PAGE_SIZE, WEIGHT_STRUCT = 19, 20, 21, 22, 23, 24


class Attr:
    def __init__(self, sample_type, read_format, flags, regs_user, regs_intr, branch_type, ids):
        self.st = sample_type
        self.rf = read_format
        self.sample_id_all = bool(flags & (1 << 18))
        self.regs_user = regs_user
        self.regs_intr = regs_intr
        self.branch_type = branch_type
        self.ids = ids

    def has(self, bit):
        return bool(self.st & (1 << bit))


class Walk:
    def __init__(self, data):
        self.d = data
        self.lay = Layout(data, "")
        self.big = data[:8] == MAGIC_BE
        self.attrs = []
        self.info = {"version": 2, "pipe": False}
        self.records = []  # (off, type, size)
        self.samples = []  # (record off, {name: (off, width)})
        self.sizes = []  # (off, width, value, label): size fields for pf-size-off1
        self.feature_entries = []  # (table entry off, bit, offset, size)
        self.feature_bitmap = None
        self.feature_bodies = []  # (off, len, bit)
        self.rounds = []  # offsets of FINISHED_ROUND records
        self.compressed = []  # (off, size)
        self.data_off = self.data_end = None

    def u(self, off, width):
        if off < 0 or off + width > len(self.d):
            return None
        fmt = {1: "B", 2: "H", 4: "I", 8: "Q"}[width]
        return struct.unpack_from((">" if self.big else "<") + fmt, self.d, off)[0]

    def f(self, off, width, label, value=False, known=None, others=None):
        self.lay.field(off, width, label, self.big, value, known, others)
        return self.u(off, width)

    def size_field(self, off, width, label):
        v = self.f(off, width, label)
        if v is not None:
            self.sizes.append((off, width, v, label))
        return v


def layout(data):
    w = Walk(data)
    if len(data) < 16 or data[:8] not in (MAGIC_LE, MAGIC_BE):
        return w.info, [w.lay]
    w.f(0, 8, "magic")
    hsize = w.f(8, 8, "header size")
    if hsize == 16:
        w.info["pipe"] = True
        _records(w, 16, len(data), pipe=True)
    else:
        _file(w)
    _targeted(w)
    return w.info, [w.lay]


def _file(w):
    d, lay = w.d, w.lay
    if len(d) < 104:
        return
    attr_size = w.f(16, 8, "header attr_size")
    attrs_off = w.f(24, 8, "attrs offset")
    attrs_size = w.size_field(32, 8, "attrs size")
    w.data_off = w.f(40, 8, "data offset")
    data_size = w.size_field(48, 8, "data size")
    w.f(56, 8, "event_types offset")
    w.f(64, 8, "event_types size")
    for i in range(4):
        w.f(72 + 8 * i, 8, f"feature bitmap word {i}")
    w.feature_bitmap = 72
    lay.cut(104)
    # attrs: perf counts attrs_size / attr_size and steps by each attr's size + 16
    n = attrs_size // attr_size if attr_size else 0
    pos = attrs_off
    for i in range(min(n, 256)):
        a = _attr(w, pos, f"attr {i}", file_attr=True)
        if a is None:
            break
        asize = w.u(pos + 4, 4)
        ids_off, ids_size = w.u(pos + asize, 8), w.u(pos + asize + 8, 8)
        w.f(pos + asize, 8, f"attr {i} ids offset")
        w.size_field(pos + asize + 8, 8, f"attr {i} ids size")
        ids = []
        if ids_off is not None and ids_size is not None and ids_off + ids_size <= len(d):
            lay.cut(ids_off)
            for k in range(min(ids_size // 8, 4096)):
                ids.append(w.f(ids_off + 8 * k, 8, f"attr {i} id {k}"))
        a.ids = ids
        w.attrs.append(a)
        pos += asize + 16
        lay.cut(pos)
    lay.cut(attrs_off)
    lay.cut(w.data_off)
    end = w.data_off + data_size if data_size else len(d)
    w.data_end = min(end, len(d))
    _records(w, w.data_off, w.data_end, pipe=False)
    if not data_size:
        return
    # feature table and payloads
    table = w.data_off + data_size
    lay.cut(table)
    bits = 0
    for i in range(4):
        v = w.u(72 + 8 * i, 8) or 0
        bits |= v << (64 * i)
    k = 0
    for bit in range(256):
        if not bits >> bit & 1:
            continue
        e = table + 16 * k
        k += 1
        off, size = w.u(e, 8), w.u(e + 8, 8)
        if off is None or size is None:
            break
        name = FEATURES.get(bit, f"feature {bit}")
        w.f(e, 8, f"{name} section offset")
        w.size_field(e + 8, 8, f"{name} section size")
        w.feature_entries.append((e, bit, off, size))
        if off + size <= len(d):
            lay.cut(off)
            lay.cut(off + size)
            w.feature_bodies.append((off, size, bit))
            _feature(w, bit, off, size)


def _attr(w, pos, label, file_attr):
    """A perf_event_attr at `pos`: its fields, and an Attr."""
    if w.u(pos + 64, 8) is None:
        return None
    w.f(pos, 4, label + " type")
    asize = w.size_field(pos + 4, 4, label + " size")
    w.f(pos + 8, 8, label + " config")
    w.f(pos + 16, 8, label + " sample_period")
    st = w.f(pos + 24, 8, label + " sample_type")
    rf = w.f(pos + 32, 8, label + " read_format")
    flags = w.f(pos + 40, 8, label + " flags")
    w.f(pos + 48, 4, label + " wakeup_events")
    regs_user = regs_intr = branch = 0
    if asize >= 80:
        branch = w.f(pos + 72, 8, label + " branch_sample_type") or 0
    if asize >= 96:
        regs_user = w.f(pos + 80, 8, label + " sample_regs_user") or 0
        w.f(pos + 88, 4, label + " sample_stack_user")
        w.f(pos + 92, 4, label + " clockid")
    if asize >= 104:
        regs_intr = w.f(pos + 96, 8, label + " sample_regs_intr") or 0
    if asize >= 112:
        w.f(pos + 108, 2, label + " sample_max_stack")
    if asize < 64 or w.u(pos + asize + (16 if file_attr else 0) - 1, 1) is None:
        return None
    return Attr(st, rf, flags, regs_user, regs_intr, branch, [])


def _string(w, off, end, label):
    """A perf_header_string at off: u32 len + text. Returns the offset after it."""
    n = w.u(off, 4)
    if n is None:
        return end
    w.size_field(off, 4, label + " length")
    if off + 4 + n <= end:
        w.lay.pay(off + 4, n, label)
    return off + 4 + n


def _feature(w, bit, off, size):
    end = off + size
    name = FEATURES.get(bit, f"feature {bit}")
    if bit in STRING_FEATURES:
        _string(w, off, end, name)
    elif bit == 7:
        w.f(off, 4, "NRCPUS available")
        w.f(off + 4, 4, "NRCPUS online")
    elif bit == 10:
        w.f(off, 8, "TOTAL_MEM", value=True)
    elif bit == 11:
        nr = w.f(off, 4, "CMDLINE count") or 0
        p = off + 4
        for i in range(min(nr, 64)):
            p = _string(w, p, end, f"CMDLINE[{i}]")
    elif bit == 12:
        nr = w.f(off, 4, "EVENT_DESC count") or 0
        asz = w.f(off + 4, 4, "EVENT_DESC attr_size") or 0
        p = off + 8
        for i in range(min(nr, 64)):
            if asz < 64 or p + asz + 4 > end:
                break
            _attr(w, p, f"EVENT_DESC[{i}] attr", file_attr=False)
            p += asz
            nids = w.f(p, 4, f"EVENT_DESC[{i}] nr_ids") or 0
            p = _string(w, p + 4, end, f"EVENT_DESC[{i}] name")
            for k in range(min(nids, 1024)):
                w.f(p + 8 * k, 8, f"EVENT_DESC[{i}] id {k}")
            p += 8 * nids
    elif bit == 2:
        p = off
        while p + 8 <= end:
            w.lay.cut(p)
            w.f(p, 4, "BUILD_ID entry type")
            w.f(p + 4, 2, "BUILD_ID entry misc")
            s = w.size_field(p + 6, 2, "BUILD_ID entry size")
            if not s or s < 8:
                break
            w.f(p + 8, 4, "BUILD_ID entry pid")
            w.lay.pay(p + 12, 20, "build id")
            w.f(p + 32, 1, "BUILD_ID entry id size")
            w.lay.pay(p + 36, max(0, min(s, end - p) - 36), "build id file name")
            p += s
    elif bit == 27:
        for i, lab in enumerate(("version", "type", "level", "ratio", "mmap_len")):
            w.f(off + 4 * i, 4, f"COMPRESSED {lab}")
    elif bit == 21:
        w.f(off, 8, "SAMPLE_TIME first", value=True)
        w.f(off + 8, 8, "SAMPLE_TIME last", value=True)
    elif bit == 1:
        # the trace.dat v6 start: tag, version, sizes of header_page/header_event
        w.f(off, 4, "TRACING_DATA magic")
        p = off + 10
        z = w.d.find(b"\0", p, end)
        if z > 0:
            p = z + 1
            w.f(p, 1, "TRACING_DATA endian")
            w.f(p + 1, 1, "TRACING_DATA long size")
            w.f(p + 2, 4, "TRACING_DATA page size")
            p += 6
            for tag in (b"header_page\0", b"header_event\0"):
                if w.d[p : p + len(tag)] != tag:
                    break
                sz = w.size_field(p + len(tag), 8, "TRACING_DATA " + tag[:-1].decode() + " size") or 0
                p += len(tag) + 8 + sz
                w.lay.cut(p)
    else:
        if size >= 4:
            w.f(off, 4, f"{name} count")


def _attr_of(w, rec_off, body, end):
    """The attr of a record (SAMPLE when body is its start), as perf picks it."""
    if len(w.attrs) == 1:
        return w.attrs[0]
    if not w.attrs:
        return None
    if all(a.has(IDENTIFIER) for a in w.attrs):
        ident = w.u(body, 8)
        for a in w.attrs:
            if ident in a.ids:
                return a
        return None
    if len({a.st for a in w.attrs}) == 1:
        return w.attrs[0]
    return None


def _records(w, pos, end, pipe):
    d, lay = w.d, w.lay
    n = 0
    while pos + 8 <= end and n < 200000:
        n += 1
        lay.cut(pos)
        t = w.f(pos, 4, "record type")
        w.f(pos + 4, 2, "record misc")
        size = w.size_field(pos + 6, 2, "record size")
        if size < 8 or pos + size > end:
            break
        w.records.append((pos, t, size))
        body = pos + 8
        rend = pos + size
        if pipe:
            lay.clean_cuts.add(pos)
        if t == SAMPLE:
            _sample(w, pos, body, rend)
        elif t in KERNEL_TYPES:
            _trailer(w, pos, body, rend)
            if t == 3:
                w.f(body, 4, "COMM pid", value=True)
                w.f(body + 4, 4, "COMM tid")
                lay.pay(body + 8, max(0, min(16, rend - body - 8)), "comm")
            elif t in (1, 10):
                # A map's address, length, offset, inode, protection and file name are
                # recorded values: readers resolve other symbols, the samples stay.
                w.f(body, 4, "MMAP pid")
                a = w.attrs[0] if w.attrs else None
                tail = 8 * bin(a.st & 0x102C6).count("1") if a is not None and a.sample_id_all else 0
                lay.pay(body + 8, max(0, rend - body - 8 - tail), "map")
        elif t == FINISHED_ROUND:
            w.rounds.append(pos)
        elif t == COMPRESSED:
            w.compressed.append((pos, size))
        elif t == 64:  # HEADER_ATTR
            a = _attr(w, body, f"HEADER_ATTR@{pos:#x}", file_attr=False)
            asize = w.u(body + 4, 4) or 0
            if a is not None and asize >= 64:
                ids = []
                for p in range(body + asize, rend - 7, 8):
                    ids.append(w.f(p, 8, "HEADER_ATTR id"))
                a.ids = ids
                w.attrs.append(a)
        elif t == 80:  # HEADER_FEATURE
            fid = w.f(body, 8, "HEADER_FEATURE id")
            if fid in FEATURES and rend > body + 8:
                w.feature_bodies.append((body + 8, rend - body - 8, fid))
                _feature(w, fid, body + 8, rend - body - 8)
        elif t == 66:  # HEADER_TRACING_DATA: the block follows the record
            tsize = w.size_field(body, 4, "HEADER_TRACING_DATA size") or 0
            rend += (tsize + 7) // 8 * 8
            lay.cut(rend)
        elif t == 69:  # ID_INDEX
            nr = w.f(body, 8, "ID_INDEX count") or 0
            for k in range(min(nr, 4096)):
                w.f(body + 8 + 32 * k, 8, "ID_INDEX id")
                w.f(body + 16 + 32 * k, 8, "ID_INDEX idx")
        elif t == 73:  # THREAD_MAP
            w.f(body, 8, "THREAD_MAP count")
        elif t == 74:  # CPU_MAP
            w.f(body, 2, "CPU_MAP type")
        pos = rend
    lay.cut(pos)


def _trailer(w, rec, body, rend):
    """The sample_id_all trailer of a non-sample kernel record, read backwards from its end."""
    a = w.attrs[0] if w.attrs and len({(x.st, x.sample_id_all) for x in w.attrs}) == 1 else None
    if a is None and w.attrs and all(x.has(IDENTIFIER) for x in w.attrs):
        ident = w.u(rend - 8, 8)
        a = next((x for x in w.attrs if ident in x.ids), None)
    if a is None or not a.sample_id_all:
        return
    p = rend
    for bit, label, width, value in ((IDENTIFIER, "identifier", 8, False), (CPU, "cpu", 8, True),
                                     (STREAM_ID, "stream id", 8, False), (ID, "id", 8, False),
                                     (TIME, "time", 8, True), (TID, "pid/tid", 8, True)):
        if not a.has(bit):
            continue
        p -= width
        if p < body:
            return
        if bit == TID:
            w.f(p, 4, "trailer pid", value=True)
            w.f(p + 4, 4, "trailer tid", value=True)
        elif bit == CPU:
            w.f(p, 4, "trailer cpu", value=True)
        else:
            w.f(p, 8, "trailer " + label, value=value)


def _sample(w, rec, p, rend):
    a = _attr_of(w, rec, p, rend)
    if a is None:
        return
    vals = {}

    def val(label, width=8):
        nonlocal p
        if p + width <= rend:
            w.f(p, width, "sample " + label, value=True)
            vals[label] = (p, width)
        p += width

    def others(v):
        """The ids of the events other than the one id `v` names: a sample id made one of
        them is a sample of that event."""
        owner = next((x for x in w.attrs if v in x.ids), a)
        return {i for x in w.attrs if x is not owner for i in x.ids if i is not None}

    def struc(label, width=8):
        nonlocal p
        v = w.u(p, width) if p + width <= rend else None
        if v is not None:
            w.f(p, width, "sample " + label, others=others(v) if label in ("id", "identifier") else None)
        p += width
        return v or 0

    if a.has(IDENTIFIER):
        struc("identifier")
    if a.has(IP):
        val("ip")
    if a.has(TID):
        val("pid", 4)
        val("tid", 4)
    if a.has(TIME):
        val("time")
    if a.has(ADDR):
        val("addr")
    if a.has(ID):
        struc("id")
    if a.has(STREAM_ID):
        struc("stream id")
    if a.has(CPU):
        val("cpu", 4)
        p += 4
    if a.has(PERIOD):
        val("period")
    if a.has(READ):
        if a.rf & 8:  # GROUP
            nr = struc("read nr")
            for _ in range(bin(a.rf & 3).count("1")):
                val("read time")
            for _ in range(min(nr, 64)):
                val("read value")
                if a.rf & 4:
                    struc("read id")
                if a.rf & 16:
                    val("read lost")
        else:
            val("read value")
            for _ in range(bin(a.rf & 3).count("1")):
                val("read time")
            if a.rf & 4:
                struc("read id")
            if a.rf & 16:
                val("read lost")
    if a.has(CALLCHAIN):
        nr = struc("callchain nr")
        for _ in range(min(nr, 512)):
            val("callchain ip")
    if a.has(RAW):
        rsize = struc("raw size", 4)
        if p + 2 <= rend:
            w.f(p, 2, "sample raw common_type")
        if rsize > 8 and p + rsize <= rend:
            w.lay.pay(p + 8, rsize - 8, "tracepoint fields")
        p += rsize
    if a.has(BRANCH_STACK):
        w.samples.append((rec, vals))
        return  # not in the seeds: stop here
    if a.has(REGS_USER):
        abi = struc("user regs abi")
        if abi:
            for _ in range(bin(a.regs_user).count("1")):
                val("user reg")
    if a.has(STACK_USER):
        ssize = struc("user stack size")
        if ssize and p + ssize <= rend:
            w.lay.pay(p, ssize, "user stack")
        p += ssize
        if ssize:
            struc("user stack dyn_size")
    if a.has(WEIGHT) or a.has(WEIGHT_STRUCT):
        val("weight")
    if a.has(DATA_SRC):
        val("data_src")
    if a.has(TRANSACTION):
        val("transaction")
    if a.has(REGS_INTR):
        abi = struc("intr regs abi")
        if abi:
            for _ in range(bin(a.regs_intr).count("1")):
                val("intr reg")
    if a.has(PHYS_ADDR):
        val("phys_addr")
    if a.has(CGROUP):
        val("cgroup")
    if a.has(DATA_PAGE_SIZE):
        val("data_page_size")
    if a.has(CODE_PAGE_SIZE):
        val("code_page_size")
    w.samples.append((rec, vals))


def whole_samples(data):
    """The whole SAMPLE records a cut file still holds (file mode: in its data section as far
    as the file goes; pipe mode: in the stream), or None when they cannot be counted (the
    samples of COMPRESSED records)."""
    w = Walk(data)
    if len(data) < 16 or data[:8] not in (MAGIC_LE, MAGIC_BE):
        return 0
    if w.u(8, 8) == 16:
        pos, end = 16, len(data)
    else:
        if len(data) < 104:
            return 0
        pos = w.u(40, 8)
        size = w.u(48, 8)
        end = min(pos + size if size else len(data), len(data))
    n = 0
    while pos + 8 <= end:
        t, size = w.u(pos, 4), w.u(pos + 6, 2)
        if size < 8 or pos + size > end:
            break
        if t == COMPRESSED:
            return None
        n += t == SAMPLE
        if t == 66:
            pos += ((w.u(pos + 8, 4) or 0) + 7) // 8 * 8
        pos += size
    return n


def _put(d, off, width, v, big):
    fmt = {1: "B", 2: "H", 4: "I", 8: "Q"}[width]
    out = bytearray(d)
    struct.pack_into((">" if big else "<") + fmt, out, off, v & ((1 << (8 * width)) - 1))
    return bytes(out)


def _targeted(w):
    lay, big, d = w.lay, w.big, w.d

    if w.sizes:
        def off1(d, rng):
            off, width, v, label = rng.choice(w.sizes)
            delta = rng.choice([-8, -1, 1, 8])
            return (f"{label} @0x{off:x} {v:#x} {delta:+d}", _put(d, off, width, v + delta, big))

        lay.edit("pf-size-off1", off1)

    data_recs = [r for r in w.records if w.data_off is None or w.data_off <= r[0] < (w.data_end or len(d))]
    if data_recs:
        def cut_record(d, rng):
            off, t, size = rng.choice(data_recs)
            return (f"cut at the record @0x{off:x} (type {t})", d[:off])

        def cut_mid(d, rng):
            off, t, size = rng.choice(data_recs)
            k = rng.randrange(1, size)
            return (f"cut {k} bytes into the record @0x{off:x} (type {t}, size {size})", d[: off + k])

        lay.edit("pf-cut-record", cut_record)
        lay.edit("pf-cut-mid", cut_mid)

    if not w.info["pipe"] and w.data_off is not None and w.u(48, 8):
        def killed(d, rng):
            how = rng.choice(["features kept", "file ends with the data", "file ends inside the data"])
            out = _put(d, 48, 8, 0, big)
            if how == "file ends with the data":
                out = out[: w.data_end]
            elif how == "file ends inside the data" and data_recs:
                off, _, size = rng.choice(data_recs)
                out = out[: off + rng.choice([0, size // 2])]
            return (f"data.size zeroed ({how})", out)

        lay.edit("pf-killed", killed)

    if w.feature_entries or w.feature_bodies:
        def feature(d, rng):
            kinds = []
            if w.feature_entries:
                kinds += ["entry offset", "entry size", "bit cleared"]
            if w.feature_bodies:
                kinds += ["body byte", "body byte", "body cut short"]
            kind = rng.choice(kinds)
            if kind in ("entry offset", "entry size"):
                e, bit, off, size = rng.choice(w.feature_entries)
                name = FEATURES.get(bit, f"feature {bit}")
                if kind == "entry offset":
                    new = rng.choice([0, off + 1, off - 1, off + size, len(d) + 4096, 1 << 40])
                    return (f"{name} section offset {off:#x} -> {new:#x}", _put(d, e, 8, new, big))
                new = rng.choice([0, size - 1, size + 1, size * 2, 1 << 40])
                return (f"{name} section size {size:#x} -> {new:#x}", _put(d, e + 8, 8, new, big))
            if kind == "bit cleared":
                _, bit, _, _ = rng.choice(w.feature_entries)
                word = 72 + 8 * (bit // 64)
                v = w.u(word, 8)
                return (f"feature bit {bit} ({FEATURES.get(bit, '?')}) cleared", _put(d, word, 8, v & ~(1 << (bit % 64)), big))
            off, size, bit = rng.choice(w.feature_bodies)
            name = FEATURES.get(bit, f"feature {bit}")
            if kind == "body cut short" and size >= 8 and w.info["pipe"] is False:
                # the payload's first word (a count or a length) made short of the section
                v = w.u(off, 4)
                return (f"{name} first word {v:#x} -> {v + rng.choice([1, 64, 4096]):#x}", _put(d, off, 4, v + rng.choice([1, 64, 4096]), big))
            out = bytearray(d)
            i = off + rng.randrange(max(1, size))
            if i >= len(out):
                return None
            out[i] = rng.randrange(256)
            return (f"{name} payload byte @0x{i:x} changed", bytes(out))

        lay.edit("pf-feature", feature)

    with_vals = [(rec, v) for rec, v in w.samples if v]
    if with_vals:
        def sample(d, rng):
            rec, vals = rng.choice(with_vals)
            label = rng.choice(sorted(vals))
            off, width = vals[label]
            old = w.u(off, width)
            how, new = rng.choice([("0", 0), ("+1", old + 1), ("-1", old - 1), ("all ones", -1),
                                   ("top bit", 1 << (8 * width - 1)), ("halved", old // 2), ("random", rng.getrandbits(8 * width))])
            return (f"sample @0x{rec:x} {label} {old:#x} -> {new & ((1 << 8 * width) - 1):#x} ({how})", _put(d, off, width, new, big))

        lay.edit("pf-sample", sample)

    timed = [(rec, v["time"]) for rec, v in w.samples if "time" in v]
    if w.rounds and len(timed) > 2:
        def round_order(d, rng):
            after = [t for t in timed if t[0] > w.rounds[0]]
            if not after:
                return None
            rec, (off, width) = rng.choice(after)
            first = w.u(timed[0][1][0], 8)
            return (f"sample @0x{rec:x} time -> the first sample's {first:#x} (older than a flushed round)", _put(d, off, 8, first, big))

        lay.edit("pf-round-order", round_order)

    if w.compressed:
        def comp(d, rng):
            off, size = rng.choice(w.compressed)
            kind = rng.choice(["byte", "byte", "size"])
            if kind == "size":
                new = size + rng.choice([-8, -1, 1, 8])
                return (f"COMPRESSED @0x{off:x} size {size} -> {new}", _put(d, off + 6, 2, new, big))
            out = bytearray(d)
            i = off + 8 + rng.randrange(max(1, size - 8))
            out[i] ^= 1 << rng.randrange(8)
            return (f"COMPRESSED @0x{off:x} zstd byte @0x{i:x} flipped", bytes(out))

        lay.edit("pf-compressed", comp)


if __name__ == "__main__":
    import sys

    for p in sys.argv[1:]:
        with open(p, "rb") as fh:
            info, lays = layout(fh.read())
        l = lays[0]
        print(p, info, f"fields {len(l.fields)} cuts {len(l.cuts)} payload {len(l.payload)} edits {[t for t, _ in l.edits]}")
