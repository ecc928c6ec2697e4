"""uftrace data directory fields for the mutator.

`info`: magic, version, header size, endian, class, feat_mask (also one bit at a time),
info_mask, max_stack, and every key line. `task.txt`, `sid-*.map`, `*.sym`, `*.dbg`,
`default.opts`, `events.txt`: every line (numbers, names, order). `<TID>.dat`: every record's
time, type, more bit, magic, depth and address, every argument payload's length word; argument
bytes are payload. Whole files are removed too.

Targeted edits (tagged by class): a `perf-cpu<N>.dat` removed while its siblings exist
(`uf-perf-removed`, drawn by `removals`); a `<TID>.dat` cut at a record boundary to its first
1-8 records (`uf-tid-cut`: a shorter recording, not a loss, but the report shows what tracelint
says); an `info` feature bit cleared or set against the files present (`uf-feat-vs-files`:
ARGUMENT/RETVAL cleared while records carry payloads or set while none do, PERF_EVENT against
`perf-cpu*.dat`, KERNEL against kernel files, EVENT against `events.txt`, DEBUG_INFO against
`.dbg` files, TASK_SESSION against `task.txt`, SYM_REL_ADDR and AUTO_ARGS toggled).
"""

import os
import re

import mutate_common
from mutate_common import Layout

TID_DAT = re.compile(r"^\d+\.dat$")


def load(dirpath):
    files = {}
    for name in sorted(os.listdir(dirpath)):
        p = os.path.join(dirpath, name)
        if os.path.isfile(p) and os.path.getsize(p) <= 64 << 20:
            with open(p, "rb") as fh:
                files[name] = fh.read()
    return files


PERF_CPU = re.compile(r"^perf-cpu\d+\.dat$")

FEAT = {
    "PLTHOOK": 0, "TASK_SESSION": 1, "KERNEL": 2, "ARGUMENT": 3, "RETVAL": 4, "SYM_REL_ADDR": 5,
    "MAX_STACK": 6, "EVENT": 7, "PERF_EVENT": 8, "AUTO_ARGS": 9, "DEBUG_INFO": 10,
    "ESTIMATE_RETURN": 11, "SYM_SIZE": 12,
}


def removals(files):
    """`perf-cpu<N>.dat` files that can be removed while a sibling stays."""
    perf = sorted(n for n in files if PERF_CPU.match(n))
    return perf if len(perf) >= 2 else []


def _has_payload(files):
    for name, data in files.items():
        if not TID_DAT.match(name):
            continue
        for pos in range(0, min(len(data), 16 * 20000) - 15, 16):
            word = int.from_bytes(data[pos + 8:pos + 16], "little")
            if (word >> 2) & 1 and (word >> 3) & 7 == 5:
                return True
            if (word >> 3) & 7 != 5:
                break
    return False


def _feat_edits(lay, files):
    """Feature bits against the files present: each candidate (bit, set) contradicts the
    directory (or toggles a bit whose meaning readers take from the files)."""
    d = lay.data
    if len(d) < 24:
        return
    feat = int.from_bytes(d[16:24], "little")
    payload = _has_payload(files)
    present = {
        "ARGUMENT": payload,
        "RETVAL": payload,
        "PERF_EVENT": any(PERF_CPU.match(n) for n in files),
        "KERNEL": any(n.startswith("kernel") for n in files),
        "EVENT": "events.txt" in files,
        "DEBUG_INFO": any(n.endswith(".dbg") for n in files),
        "TASK_SESSION": "task.txt" in files,
    }
    cands = []
    for name, here in present.items():
        bit = 1 << FEAT[name]
        if here and feat & bit:
            cands.append((name, False, f"cleared while {'payloads are' if name in ('ARGUMENT', 'RETVAL') else 'its files are'} present"))
        elif not here and not feat & bit:
            cands.append((name, True, f"set while {'no record has a payload' if name in ('ARGUMENT', 'RETVAL') else 'none of its files is present'}"))
        elif here and not feat & bit:
            cands.append((name, True, "set (its files are present)"))
        else:
            cands.append((name, False, "cleared (none of its files is present)"))
    for name in ("SYM_REL_ADDR", "AUTO_ARGS", "ESTIMATE_RETURN"):
        bit = 1 << FEAT[name]
        cands.append((name, not feat & bit, "toggled"))
    if payload and feat & (1 << 3) and feat & (1 << 4):
        cands.append(("ARGUMENT+RETVAL", False, "both cleared while payloads are present"))

    def fn(data, rng):
        name, setit, why = rng.choice(cands)
        bits = sum(1 << FEAT[n] for n in name.split("+"))
        new = (feat | bits) if setit else (feat & ~bits)
        out = bytearray(data)
        out[16:24] = new.to_bytes(8, "little")
        return (f"info feat_mask {name} {why}: {feat:#x} -> {new:#x}", bytes(out))

    lay.edit("uf-feat-vs-files", fn)


def layout(files):
    lays = []
    for name, data in files.items():
        lay = Layout(data, name)
        if name == "info":
            _info(lay)
            _feat_edits(lay, files)
        elif TID_DAT.match(name):
            _records(lay)
        elif name.endswith(".dat"):
            # perf-cpu*.dat and kernel per-CPU files: cut at 8-byte steps, flips.
            for off in range(0, len(data), max(8, len(data) // 64 // 8 * 8)):
                lay.cut(off)
        else:
            lay.text_lines(0, len(data), name if "." not in name else name.rsplit(".", 1)[-1])
            if name.endswith(".sym"):
                # Symbol names are values: the reader prints the name the file holds.
                for off, length, _ in list(lay.lines):
                    m = mutate_common._SYM_HEAD.match(data[off:off + length])
                    if m:
                        lay.pay(off + m.end(), length - m.end(), "symbol name")
        lays.append(lay)
    info = {"version": 4}
    m = re.search(rb"uftrace_version:v(\d+)\.(\d+)(?:\.(\d+))?", files.get("info") or b"")
    if m:
        info["writer"] = tuple(int(x) for x in m.groups() if x is not None)
    return info, lays


def _info(lay):
    d = lay.data
    lay.field(0, 8, "info magic")
    lay.field(8, 4, "info version")
    lay.field(12, 2, "info header size")
    lay.field(14, 1, "info endian")
    lay.field(15, 1, "info class")
    lay.field(16, 8, "info feat_mask")
    lay.field(24, 8, "info info_mask")
    lay.field(32, 2, "info max_stack")
    # Each feature bit cleared or set on its own is the likeliest contradiction.
    for bit in range(12):
        lay.field(16 + bit // 8, 1, f"info feat_mask byte {bit // 8}")
    lay.cut(40)
    if len(d) > 40:
        lay.text_lines(40, len(d) - 40, "info")
        pos = 40
        while True:
            nl = d.find(b"\n", pos)
            if nl < 0:
                break
            lay.cut(nl + 1)
            pos = nl + 1


def _records(lay):
    d = lay.data
    pos = 0
    n = 0
    bounds = []
    while pos + 16 <= len(d) and n < 200000:
        lay.cut(pos)
        lay.clean_cuts.add(pos)
        if 0 < n <= 8:
            bounds.append((n, pos))
        word = int.from_bytes(d[pos + 8 : pos + 16], "little")
        if n < 4000 or n % 17 == 0:
            lay.field(pos, 8, "record time", value=True)
            lay.field(pos + 8, 1, "record type/more/magic bits")
            lay.field(pos + 9, 1, "record depth bits")
            lay.field(pos + 10, 4, "record address", value=True)
        more = (word >> 2) & 1
        pos += 16
        n += 1
        if more:
            if pos + 4 > len(d):
                break
            length = int.from_bytes(d[pos : pos + 4], "little")
            lay.field(pos, 4, "argument payload length")
            lay.pay(pos + 4, length, "argument")
            total = (4 + length + 7) & ~7
            lay.cut(pos + total)
            lay.clean_cuts.add(pos + total)
            pos += total
    if bounds and bounds[-1][1] < len(d):
        def cut(data, rng):
            k, at = rng.choice(bounds)
            return (f"cut at a record boundary to its first {k} record(s) ({at:#x} of {len(data):#x} bytes)", data[:at])

        lay.edit("uf-tid-cut", cut)
