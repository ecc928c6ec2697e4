"""A model of what the ktrace readers do, for the campaign (no Darwin reader runs on Linux).

Documented per field from Apple's public sources and the reverse-engineered readers cited in
docs/ktrace.md; where they differ the strictest reader is modelled:

* V3 (`0x55aa0300`, kernel `0x00001000`), kperfdata's reader: the header chunk's length must be
  at least 40 (else the file is refused); header sub-chunks are walked from payload offset 40
  while `off + 16 <= length`, each must fit (`off + 16 + len <= length`, else refused); body chunks
  follow at `16 + round_up(length, 8)`, each at `start + 16 + round_up(len, 8)`; a length of all
  ones extends to the end of the file; a chunk running past the end of the file ends the walk
  (its events and every later chunk are lost). Event chunks (0x1e00) need `len >= 8`;
  `count = (len - 8) / event_size` where event_size is 64 when header flag bit 0 is set, else 32.
* V2 (`0x55aa0200`, kperfdata): events at `round_up(288 + tc * entry, 4096)` to the end of the
  file; entry and event sizes from `flags` (nonzero: 64-bit); a start past the end is refused.
* V1 (`0x55aa0101`, `trace -R`): events at `round_up(24 + 32 * tc, 4096)`.
* V0 (anything else, the u32 is the thread count): events at `4 + 32 * tc` (no padding).

The identity of what is read is the list of (chunk tag, event count); the event bytes and the
thread map are values.
"""

import hashlib
import struct

from readers import Outcome

MAGICS = (0x55AA0300, 0x00001000, 0x55AA0200, 0x55AA0101)


def sniff(head):
    if len(head) < 4:
        return False
    return struct.unpack_from("<I", head)[0] in MAGICS


class ModelReader:
    name = "ktrace model (libktrace/trace/kperfdata)"
    fmt = "ktrace"

    def claims(self, info):
        return True

    def read(self, path):
        with open(path, "rb") as fh:
            d = fh.read()
        try:
            ident, regions = read_model(d)
        except Refused as e:
            return Outcome(1, {}, b"refused: " + str(e).encode(), str(e))
        h = hashlib.sha1()
        for a, b in regions:
            h.update(d[a:b])
        text = repr(ident).encode() + h.hexdigest().encode()
        return Outcome(0, {("chunks",): ident}, text)


class Refused(Exception):
    pass


def u32(d, o):
    if o + 4 > len(d):
        raise Refused("short read at %#x" % o)
    return struct.unpack_from("<I", d, o)[0]


def u64(d, o):
    if o + 8 > len(d):
        raise Refused("short read at %#x" % o)
    return struct.unpack_from("<Q", d, o)[0]


def rup(x, a):
    return (x + a - 1) // a * a


def read_model(d):
    magic = u32(d, 0)
    ident, regions = [], []
    if magic in (0x55AA0300, 0x00001000):
        hlen = u64(d, 8)
        if hlen < 40 or 16 + hlen > len(d):
            raise Refused("header length %d" % hlen)
        flags = u32(d, 52)
        ev = 64 if flags & 1 else 32
        off = 40
        while off + 16 <= hlen:
            tag, slen = u32(d, 16 + off), u64(d, 16 + off + 8)
            if off + 16 + slen > hlen:
                raise Refused("header sub-chunk %#x does not fit" % tag)
            ident.append(("hdr", tag))
            regions.append((16 + off + 16, 16 + off + 16 + slen))
            off += 16 + rup(slen, 8)
        pos = 16 + rup(hlen, 8)
        while pos + 16 <= len(d):
            tag, clen = u32(d, pos), u64(d, pos + 8)
            body = pos + 16
            if clen == 0xFFFFFFFFFFFFFFFF:
                clen = len(d) - body
            if body + clen > len(d):
                ident.append(("cut", tag))
                break
            if tag == 0x1E00:
                if clen < 8:
                    raise Refused("event chunk shorter than 8")
                ident.append(("events", (clen - 8) // ev))
                regions.append((body, body + 8 + (clen - 8) // ev * ev))
            else:
                # An opaque chunk's length is its payload's (a value): its tag is what is read.
                ident.append(("chunk", tag))
                regions.append((body, body + clen))
            pos = body + rup(clen, 8)
        return ident, regions
    if magic == 0x55AA0200:
        tc, flags = u32(d, 4), u32(d, 20)
        entry, ev = (32, 64) if flags else (28, 32)
        start = rup(288 + tc * entry, 4096)
        if start > len(d):
            raise Refused("events start past the end")
        ident.append(("events", (len(d) - start) // ev))
        regions.append((288, 288 + tc * entry))
        regions.append((start, start + (len(d) - start) // ev * ev))
        return ident, regions
    if magic == 0x55AA0101:
        tc = u32(d, 4)
        start = rup(24 + 32 * tc, 4096)
        if start > len(d):
            raise Refused("events start past the end")
        ident.append(("events", (len(d) - start) // 64))
        regions.append((24, 24 + 32 * tc))
        regions.append((start, start + (len(d) - start) // 64 * 64))
        return ident, regions
    tc = magic
    start = 4 + 32 * tc
    if start > len(d):
        raise Refused("thread map past the end")
    ident.append(("threads", tc))
    ident.append(("events", (len(d) - start) // 64))
    regions.append((4, start))
    regions.append((start, start + (len(d) - start) // 64 * 64))
    return ident, regions
