"""uftrace data directory fields for the mutator.

`info`: magic, version, header size, endian, class, feat_mask (also one bit at a time),
info_mask, max_stack, and every key line. `task.txt`, `sid-*.map`, `*.sym`, `*.dbg`,
`default.opts`, `events.txt`: every line (numbers, names, order). `<TID>.dat`: every record's
time, type, more bit, magic, depth and address, every argument payload's length word; argument
bytes are payload. Whole files are removed too.
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


def layout(files):
    lays = []
    for name, data in files.items():
        lay = Layout(data, name)
        if name == "info":
            _info(lay)
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
    while pos + 16 <= len(d) and n < 200000:
        lay.cut(pos)
        lay.clean_cuts.add(pos)
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
