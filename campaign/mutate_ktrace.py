"""ktrace fields for the mutator: V3 header fields (magic, version, length, timebase, flags),
every chunk's tag, version and length, event chunks' future timestamp; raw V1/V2 magic,
thread count, flags; every event's debugid and cpuid. Thread map entries and event arguments
are payload."""

import struct

# Tags of docs/ktrace.md §3.3: any other tag is a chunk readers skip.
KNOWN_TAGS = {0x1000, 0x55AA0300, 0x1A00, 0x1B00, 0x1C00, 0x1D00, 0x1E00, 0x1F00, 0x2000}
KNOWN_TAGS |= {0x8000 + i for i in range(0x20)} | {0x8C00, 0x8C01, 0x12001, 0x1000A}

from mutate_common import Layout


def layout(data):
    lay = Layout(data, "")
    if len(data) < 8:
        return {"version": 0}, [lay]
    magic = struct.unpack_from("<I", data, 0)[0]
    lay.field(0, 4, "magic")
    if magic in (0x55AA0300, 0x00001000):
        lay.field(4, 2, "header major")
        lay.field(6, 2, "header minor")
        lay.field(8, 8, "header length")
        lay.field(16, 4, "timebase numer")
        lay.field(20, 4, "timebase denom")
        lay.field(52, 4, "header flags")
        hlen = struct.unpack_from("<Q", data, 8)[0]
        ev = 64 if len(data) > 56 and data[52] & 1 else 32
        off = 56
        while off + 16 <= min(16 + hlen, len(data)):
            _chunk(lay, off, "header sub-chunk")
            slen = struct.unpack_from("<Q", data, off + 8)[0]
            off += 16 + (slen + 7) // 8 * 8
        pos = 16 + (hlen + 7) // 8 * 8
        while pos + 16 <= len(data):
            # V3 counts no chunks: a file cut between two body chunks is a shorter recording.
            lay.clean_cuts.add(pos)
            tag, clen = _chunk(lay, pos, "chunk")
            body = pos + 16
            if tag == 0x1E00:
                lay.field(body, 8, "events future timestamp")
                _events(lay, body + 8, min(body + clen, len(data)), ev)
            else:
                lay.pay(body, min(clen, len(data) - body), "chunk body")
            if clen > len(data):
                break
            pos = body + (clen + 7) // 8 * 8
    elif magic in (0x55AA0200, 0x55AA0101):
        lay.field(4, 4, "thread count")
        tc = struct.unpack_from("<I", data, 4)[0]
        if magic == 0x55AA0200:
            lay.field(20, 4, "flags")
            start = (288 + tc * 32 + 4095) // 4096 * 4096
            lay.pay(288, min(tc * 32, len(data)), "thread map")
        else:
            start = (24 + tc * 32 + 4095) // 4096 * 4096
            lay.pay(24, min(tc * 32, len(data)), "thread map")
        lay.cut(start)
        _events(lay, start, len(data), 64)
        # Raw files count no events: a cut between events is a shorter recording.
        lay.clean_cuts.update(c for c in lay.cuts if c >= start and (c - start) % 64 == 0)
    return {"version": 0}, [lay]


def _chunk(lay, off, what):
    lay.cut(off)
    lay.field(off, 4, what + " tag", known=KNOWN_TAGS)
    lay.field(off + 4, 2, what + " major")
    lay.field(off + 8, 8, what + " length")
    lay.cut(off + 16)
    tag = struct.unpack_from("<I", lay.data, off)[0]
    clen = struct.unpack_from("<Q", lay.data, off + 8)[0]
    return tag, clen


def _events(lay, pos, end, ev):
    n = 0
    while pos + ev <= end and n < 20000:
        lay.cut(pos)
        if ev == 64:
            lay.field(pos + 48, 4, "event debugid")
            lay.field(pos + 52, 4, "event cpuid")
            lay.pay(pos, 48, "event arguments")
        n += 1
        pos += ev
