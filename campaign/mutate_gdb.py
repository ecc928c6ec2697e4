"""GDB tfile fields for the mutator.

The header, every definition line (R, status, tp, tsv, tdesc: numbers, names, order), the
empty line ending them; every frame's tracepoint number and size; every block's type, an M
block's address and length, a V block's number; the end marker. Register and memory contents
and V values are payload.
"""

import struct

from mutate_common import Layout


def layout(data):
    lay = Layout(data, "")
    lay.field(0, 1, "tfile magic byte")
    lay.field(6, 1, "tfile version byte")
    lay.cut(8)
    pos = 8
    regsize = 0
    end = data.find(b"\n\n", 7)
    if end < 0:
        lay.text_lines(8, len(data) - 8, "definition")
        return {"version": 0}, [lay]
    lay.text_lines(8, end + 1 - 8, "definition")
    p = 8
    while p < end:
        nl = data.find(b"\n", p)
        lay.cut(nl + 1)
        line = data[p:nl]
        if line.startswith(b"R "):
            try:
                regsize = int(line[2:], 16)
            except ValueError:
                pass
        p = nl + 1
    pos = end + 2
    lay.cut(pos)
    frames = 0
    mem = []
    tsvs = False
    while pos + 2 <= len(data) and frames < 100000:
        lay.cut(pos)
        lay.field(pos, 2, "frame tracepoint number", value=True)
        tp = struct.unpack_from("<h", data, pos)[0]
        if tp == 0:
            if pos + 4 <= len(data):
                lay.field(pos + 2, 2, "end marker tail")
            lay.cut(pos + 2)
            break
        if pos + 6 > len(data):
            break
        lay.field(pos + 2, 4, "frame size")
        size = struct.unpack_from("<I", data, pos + 2)[0]
        b = pos + 6
        fend = min(b + size, len(data))
        while b < fend:
            lay.cut(b)
            lay.field(b, 1, "block type")
            t = data[b : b + 1]
            if t == b"R":
                lay.pay(b + 1, min(regsize, fend - b - 1), "registers")
                b += 1 + regsize
            elif t == b"M":
                lay.field(b + 1, 8, "M block address", value=True)
                lay.field(b + 9, 2, "M block length")
                if b + 11 > fend:
                    break
                ln = struct.unpack_from("<H", data, b + 9)[0]
                if len(mem) < 64:
                    mem.append((frames, struct.unpack_from("<Q", data, b + 1)[0], min(ln, 8), ln))
                lay.pay(b + 11, min(ln, fend - b - 11), "memory")
                b += 11 + ln
            elif t == b"V":
                tsvs = True
                lay.field(b + 1, 4, "V block number")
                lay.pay(b + 5, 8, "tsv value")
                b += 13
            else:
                break
        pos += 6 + size
        frames += 1
    # The collected memory a user of the file reads: GDB's walk reads it back by address.
    return {"version": 0, "memory": mem, "tsvs": tsvs}, [lay]
