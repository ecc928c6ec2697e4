#!/usr/bin/env python3
"""Writes a large valid v6 trace.dat from a small one (bench/daemon-large.sh).

usage: gen-large-tracedat.py SMALL.dat OUT.dat GIB [--random-payload]

SMALL must be a little-endian v6 file with one buffer whose CPU data starts right after the
page-aligned flyrecord table (corpus/tracecmd/v6.dat). Each CPU's pages are repeated until the
file holds GIB GiB; copy k of a page has its page timestamp moved on by k * 100 ms, so the
events of every CPU stay in order (event times are deltas from the page timestamp).

With --random-payload, the bytes of each event after its common fields (the first 8 payload
bytes) are random in every copy, so that the file does not compress much: a large compressed
v7 file is made from it with `trace-cmd convert --compression zstd`. Only records of up to
112 bytes (type_len 1-28) and time records are followed; a page's other records stay as they
are.
"""
import os
import struct
import sys

src, out, gib = sys.argv[1], sys.argv[2], float(sys.argv[3])
random_payload = '--random-payload' in sys.argv[4:]
data = open(src, 'rb').read()
PAGE = 4096
fly = data.rindex(b'flyrecord\0') + len(b'flyrecord\0')
cpus = []
at = fly
while True:
    off, size = struct.unpack_from('<QQ', data, at)
    if off == 0 or off % PAGE or off + size > len(data) or size % PAGE:
        break
    cpus.append((off, size))
    at += 16
    if cpus and at >= cpus[0][0]:
        break
assert cpus, 'no CPU table after flyrecord'
start = cpus[0][0]
target = int(gib * (1 << 30))
per_cpu = max(1, (target - start) // (len(cpus) * PAGE))
copies = [per_cpu // (size // PAGE) for (_, size) in cpus]
head = bytearray(data[:start])
offset = start
for i, ((_, size), k) in enumerate(zip(cpus, copies)):
    struct.pack_into('<QQ', head, fly + 16 * i, offset, size * k)
    offset += size * k
STEP = 100_000_000


def payload_mask(page):
    """An int with the bits of the payload bytes past each event's common fields set."""
    commit = struct.unpack_from('<Q', page, 8)[0] & 0xfffff
    mask = bytearray(PAGE)
    at, end = 16, min(PAGE, 16 + commit)
    while at + 4 <= end:
        tl = struct.unpack_from('<I', page, at)[0] & 31
        if 1 <= tl <= 28:
            for b in range(at + 4 + 8, min(end, at + 4 + tl * 4)):
                mask[b] = 0xff
            at += 4 + tl * 4
        elif tl in (30, 31):
            at += 8
        else:
            break
    return int.from_bytes(mask, 'little')

with open(out, 'wb') as f:
    f.write(head)
    for (off, size), k in zip(cpus, copies):
        pages = [data[p:p + PAGE] for p in range(off, off + size, PAGE)]
        ts0 = [struct.unpack_from('<Q', p, 0)[0] for p in pages]
        masks = [payload_mask(p) if random_payload else 0 for p in pages]
        batch = 1024
        for c0 in range(0, k, batch):
            buf = bytearray()
            for c in range(c0, min(k, c0 + batch)):
                for p, t, m in zip(pages, ts0, masks):
                    if m:
                        r = int.from_bytes(os.urandom(PAGE), 'little') & m
                        p = (int.from_bytes(p, 'little') ^ r).to_bytes(PAGE, 'little')
                    buf += struct.pack('<Q', t + c * STEP) + p[8:]
            f.write(buf)
