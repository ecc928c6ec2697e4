"""GDB tfile fields for the mutator.

The header, every definition line (R, status, tp, tsv, tdesc: numbers, names, order), the
empty line ending them; every frame's tracepoint number and size; every block's type, an M
block's address and length, a V block's number; the end marker. Register and memory contents
and V values are payload.

Targeted edits (tagged by class): a `tp T` line's fast/static field changed (`gdb-fast-flag`:
`:F<size>` added, removed, its size changed, or made `:S`, and `:S` made `:F`); one character
of a definition line (`tp T`, `tp A`, `tsv`, `status`) flipped (`gdb-def-flip`).
"""

import re
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
    tp_lines = []
    def_lines = []
    while p < end:
        nl = data.find(b"\n", p)
        lay.cut(nl + 1)
        line = data[p:nl]
        if line.startswith(b"tp T"):
            tp_lines.append((p, nl))
        if line.startswith((b"tp T", b"tp A", b"tsv ", b"status ")):
            def_lines.append((p, nl))
        if line.startswith(b"tp Z") and line.count(b":") >= 5:
            # tp Z<num>:<addr>:<type>:<start>:<len>:<hex text>
            parts = line.split(b":", 5)
            hex_at = p + len(line) - len(parts[5])
            if parts[2] == b"at":
                lay.region(hex_at, len(parts[5]), "a `tp Z` at string or program symbol")
            elif parts[2] in (b"cmd", b"cond"):
                for a, n in _cmd_symbols(parts[5], parts[2] == b"cmd"):
                    lay.region(hex_at + 2 * a, 2 * n, "a `tp Z` at string or program symbol")
        if line.startswith(b"R "):
            try:
                regsize = int(line[2:], 16)
            except ValueError:
                pass
        p = nl + 1
    _targeted(lay, tp_lines, def_lines)
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


_IDENT = re.compile(rb"[A-Za-z_][A-Za-z_0-9]*")


def _cmd_symbols(hexstr, command):
    """(offset, length) in the decoded text of every name a `tp Z` cmd line's (`command`) or
    cond line's expressions take from the program (not the command word, not a `$` register or
    variable, not a number's digits): what only the program can resolve."""
    try:
        text = bytes.fromhex(hexstr.decode("latin1"))
    except ValueError:
        return []
    first = _IDENT.match(text) if command else None
    out = []
    for m in _IDENT.finditer(text):
        if first is not None and m.start() == first.start():
            continue
        before = text[m.start() - 1 : m.start()]
        if before in (b"$", b"-") or before.isdigit():
            continue
        out.append((m.start(), m.end() - m.start()))
    return out


def _fast_variants(line):
    """(description, new line) for every change of a `tp T` line's F/S field."""
    # tp T<num>:<addr>:<E|D>:<step>:<pass>[:F<size>|:S][:X<len>,<cond>]
    parts = line.split(b":")
    head, rest = parts[:5], parts[5:]
    fs = [i for i, x in enumerate(rest) if x[:1] in (b"F", b"S")]
    out = []
    if fs:
        i = fs[0]
        tok = rest[i]
        out.append((f"{tok.decode('latin1')!r} removed", rest[:i] + rest[i + 1:]))
        if tok[:1] == b"F":
            out.append((f"{tok.decode('latin1')!r} -> 'S'", rest[:i] + [b"S"] + rest[i + 1:]))
            for n in (b"0", b"5", b"8", b"ff", b"zz", b""):
                if b"F" + n != tok:
                    out.append((f"{tok.decode('latin1')!r} -> 'F{n.decode()}'", rest[:i] + [b"F" + n] + rest[i + 1:]))
        else:
            out.append(("'S' -> 'F5'", rest[:i] + [b"F5"] + rest[i + 1:]))
            out.append(("'S' -> 'S1'", rest[:i] + [b"S1"] + rest[i + 1:]))
    else:
        for tok in (b"F5", b"F0", b"S", b"F", b"Fzz"):
            out.append((f"':{tok.decode()}' added", [tok] + rest))
        if rest:
            out.append(("':F5' added after the condition", rest + [b"F5"]))
    return [(desc, b":".join(head + r)) for desc, r in out]


def _targeted(lay, tp_lines, def_lines):
    if tp_lines:
        def fast(d, rng):
            p, nl = rng.choice(tp_lines)
            line = d[p:nl]
            vs = _fast_variants(line)
            if not vs:
                return None
            desc, new = rng.choice(vs)
            return (f"tp line @0x{p:x} {line[:40]!r}: fast/static field {desc}", d[:p] + new + d[nl:])

        lay.edit("gdb-fast-flag", fast)
    if def_lines:
        def flip(d, rng):
            p, nl = rng.choice(def_lines)
            if nl - p < 2:
                return None
            i = p + rng.randrange(nl - p)
            old = d[i]
            new = rng.choice([rng.randrange(0x21, 0x7f), rng.randrange(256), ord(":"), ord("0"), ord("g")])
            if new == old or new == 0x0A:
                return None
            line = d[p:nl]
            return (f"definition line @0x{p:x} {line[:24]!r}: byte {i - p} {chr(old)!r} -> {chr(new)!r}", d[:i] + bytes([new]) + d[i + 1:])

        lay.edit("gdb-def-flip", flip)
