"""What every structure-aware mutator shares: the field model and the mutation kinds.

A format module's ``layout(seed)`` returns a ``Layout``: the fields (every length, size, offset,
count, id, flag and magic, with its width and byte order), the structure boundaries (where a
truncation is interesting), the text lines (definition lines, format texts, map and symbol
lines) and the payload ranges (bytes that are only printed values). ``mutants(layout, rng, n)``
then draws mutants from five kinds:

* ``field``    - a field set to a boundary value: 0, 1, value-1, value+1, all ones, huge;
* ``truncate`` - the file cut at a structure boundary, one byte before or after it, or inside;
* ``flip``     - 1-4 random bytes anywhere replaced by random values;
* ``text``     - a text line deleted, duplicated, swapped with the next, cut short, a number in
  it changed or an identifier renamed;
* ``payload``  - bytes inside a payload range changed (expected to change printed values only);
* ``targeted`` - an edit the format's walk proposes for a case readers are known to get wrong
  (an event header made a time extend, a ring page's commit flags with a damaged size, a uftrace
  feature bit against the files present, a GDB fast-tracepoint flag, ...), tagged by class.
"""

import random
import re
import struct

FIELD_VALUES = ("zero", "one", "minus1", "plus1", "ones", "huge", "half")


class Field:
    __slots__ = ("off", "width", "label", "big", "value", "known", "others")

    def __init__(self, off, width, label, big=False, value=False, known=None, others=None):
        self.off, self.width, self.label, self.big = off, width, label, big
        # A field whose content is a recorded value (an event's type id, a record's time):
        # a reader that prints another value, or another event name, reads what is written.
        self.value = value
        # For an id field, the ids the format defines: a mutant that makes it an unknown id is
        # a file with an unknown (newer) option or chunk, which readers skip and which is
        # never an error; what readers then miss is not a false pass.
        self.known = known
        # For an id field, the ids of the other events: a mutant that makes it one of them
        # says so in its description (what it then names is another event, as written).
        self.others = others


class Layout:
    def __init__(self, data, name):
        self.data = bytes(data)
        self.name = name  # the file inside a seed (for directories), else ""
        self.fields = []
        self.cuts = set()
        # Cuts that leave a well-formed shorter file of the same kind (a record file of a
        # format that counts nothing, cut between records): no validator can tell such a
        # file from a shorter recording, so what readers miss there is not a false pass.
        self.clean_cuts = set()
        self.lines = []  # (off, len, label)
        self.payload = []  # (off, len, label)
        # Regions a flip's description names when every byte it changed lies in one of them
        # (a class a known gap is matched by): (off, len, label).
        self.regions = []
        # Targeted mutations a format's walk proposes where a reader is known to go wrong:
        # (tag, fn) where fn(data, rng) returns (description, bytes) or None. The tag names
        # the class in the report (e.g. `tc-time-extend`, `uf-feat-vs-files`).
        self.edits = []

    def edit(self, tag, fn):
        self.edits.append((tag, fn))

    def field(self, off, width, label, big=False, value=False, known=None, others=None):
        if 0 <= off and off + width <= len(self.data) and width in (1, 2, 4, 8):
            self.fields.append(Field(off, width, label, big, value, known, others))

    def cut(self, off):
        if 0 < off < len(self.data):
            self.cuts.add(off)

    def text_lines(self, off, length, label):
        """Registers every line of the text at [off, off+length)."""
        end = min(off + length, len(self.data))
        pos = off
        while pos < end:
            nl = self.data.find(b"\n", pos, end)
            stop = end if nl < 0 else nl
            if stop > pos:
                self.lines.append((pos, stop - pos, label))
            pos = stop + 1

    def region(self, off, length, label):
        if length > 0 and off + length <= len(self.data):
            self.regions.append((off, length, label))

    def region_of(self, where):
        """The label of the regions holding every offset of `where`, or None."""
        labels = set()
        for i in where:
            hit = [l for o, n, l in self.regions if o <= i < o + n]
            if not hit:
                return None
            labels.add(hit[0])
        return labels.pop() if len(labels) == 1 else None

    def pay(self, off, length, label):
        if length > 0 and off + length <= len(self.data):
            self.payload.append((off, length, label))


def get(data, f):
    fmt = {1: "B", 2: "H", 4: "I", 8: "Q"}[f.width]
    return struct.unpack_from((">" if f.big else "<") + fmt, data, f.off)[0]


def put(data, f, v):
    fmt = {1: "B", 2: "H", 4: "I", 8: "Q"}[f.width]
    v &= (1 << (8 * f.width)) - 1
    out = bytearray(data)
    struct.pack_into((">" if f.big else "<") + fmt, out, f.off, v)
    return bytes(out)


def field_value(old, width, kind):
    top = (1 << (8 * width)) - 1
    return {
        "zero": 0,
        "one": 1,
        "minus1": (old - 1) & top,
        "plus1": (old + 1) & top,
        "ones": top,
        "huge": 1 << (8 * width - 1),
        "half": old // 2,
    }[kind]


_NUM = re.compile(rb"(?<![A-Za-z_])(?:0x)?[0-9a-fA-F]+")
_IDENT = re.compile(rb"[A-Za-z_][A-Za-z_0-9]{2,}")


def mutate_line(data, off, length, rng):
    line = data[off : off + length]
    end = off + length
    nl = end + 1 if end < len(data) and data[end : end + 1] == b"\n" else end
    ops = ["delete", "duplicate", "swap", "cut", "number", "number", "rename"]
    op = rng.choice(ops)
    if op == "delete":
        return data[:off] + data[nl:], "deleted"
    if op == "duplicate":
        return data[:nl] + data[off:nl] + data[nl:], "duplicated"
    if op == "swap":
        nxt_end = data.find(b"\n", nl)
        if nxt_end < 0 or nxt_end == nl:
            return None, None
        return data[:off] + data[nl:nxt_end] + b"\n" + line + data[nxt_end:], "swapped with the next"
    if op == "cut":
        if length < 2:
            return None, None
        k = rng.randrange(1, length)
        return data[:off + k] + data[end:], f"cut to {k} bytes"
    if op == "number":
        nums = list(_NUM.finditer(line))
        if not nums:
            return None, None
        m = rng.choice(nums)
        tok = m.group(0)
        new = rng.choice([b"0", b"1", b"-1", b"4294967295", b"18446744073709551615", b"99999999999", tok + b"0", tok[:-1] or b"0"])
        nl_line = line[: m.start()] + new + line[m.end() :]
        return data[:off] + nl_line + data[end:], f"number {tok[:24]!r} -> {new!r}"
    if op == "rename":
        ids = list(_IDENT.finditer(line))
        if not ids:
            return None, None
        m = rng.choice(ids)
        tok = bytearray(m.group(0))
        i = rng.randrange(len(tok))
        tok[i] = ord("x") if tok[i] != ord("x") else ord("y")
        nl_line = line[: m.start()] + bytes(tok) + line[m.end() :]
        return data[:off] + nl_line + data[end:], f"renamed {m.group(0)[:24]!r}"
    return None, None


KINDS = (("field", 40), ("truncate", 11), ("flip", 12), ("text", 18), ("payload", 9), ("targeted", 20))

# Tags of the targeted kinds whose reader losses are a shorter recording, not a loss (the file
# is cut between records of a format that counts nothing).
SHORTER_RECORDING = {"uf-tid-cut"}

# Tags whose mutants change recorded values only (a payload byte, a perf sample's time, tid or
# ip): a reader that shows the same number of items under each key reads what is written.
VALUE_TAGS = {"payload", "pf-sample", "pf-round-order"}


def one_mutant(lay, rng, kinds=KINDS):
    """(description, tag, bytes) or None when the drawn kind has nothing to work on."""
    kind = rng.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
    d = lay.data
    if kind == "targeted" and lay.edits:
        tag, fn = rng.choice(lay.edits)
        r = fn(d, rng)
        if r is None:
            return None
        desc, new = r
        if new == d:
            return None
        return (desc, tag, new)
    if kind == "field" and lay.fields:
        f = rng.choice(lay.fields)
        old = get(d, f)
        vk = rng.choice(FIELD_VALUES)
        new = field_value(old, f.width, vk)
        if new == old:
            return None
        tag = "payload" if f.value else "field"
        if f.known is not None and new not in f.known:
            tag = "unknown-id"
        other = " (another event's id)" if f.others is not None and new in f.others else ""
        return (f"{f.label} @0x{f.off:x} {old:#x} -> {new:#x} ({vk}){other}", tag, put(d, f, new))
    if kind == "truncate" and lay.cuts:
        c = rng.choice(sorted(lay.cuts))
        how = rng.choice(["at", "before", "after", "at"])
        c = c - 1 if how == "before" else c + 1 if how == "after" else c
        if not 0 < c < len(d):
            return None
        tag = "clean-cut" if how == "at" and c in lay.clean_cuts else "truncate"
        return (f"truncated to {c:#x} ({how} a boundary)", tag, d[:c])
    if kind == "flip" and d:
        out = bytearray(d)
        n = rng.randint(1, 4)
        where = []
        for _ in range(n):
            i = rng.randrange(len(out))
            out[i] = rng.randrange(256)
            where.append(i)
        tag = "payload" if all(in_payload(lay, i) or in_value_field(lay, i) for i in where) else "flip"
        region = lay.region_of(where)
        inside = f" (all in {region})" if region else ""
        return ("bytes at " + ",".join(f"{i:#x}" for i in where) + " changed" + inside, tag, bytes(out))
    if kind == "text" and lay.lines:
        off, length, label = rng.choice(lay.lines)
        new, what = mutate_line(d, off, length, rng)
        if new is None or new == d:
            return None
        # A renamed symbol is a value: the reader prints the name the file holds. So is a
        # symbol line cut inside its name.
        tag = "payload" if label == "sym" and (what.startswith("renamed") or only_name_changed(d, new, off, length)) else "text"
        return (f"{label} line @0x{off:x}: {what}", tag, new)
    if kind == "payload" and lay.payload:
        off, length, label = rng.choice(lay.payload)
        out = bytearray(d)
        i = off + rng.randrange(length)
        out[i] ^= 1 << rng.randrange(8)
        return (f"{label} payload byte @0x{i:x} changed", "payload", bytes(out))
    return None


_SYM_HEAD = re.compile(rb"^[0-9a-fA-F]+ (?:[0-9a-fA-F]{8} )?[^ ] ")


def only_name_changed(old, new, off, length):
    """Whether a symbol line changed only from its name on (its address and type intact)."""
    m = _SYM_HEAD.match(old[off:off + length])
    if not m:
        return False
    first = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
    return first >= off + m.end()


def in_value_field(lay, i):
    """Whether byte i belongs to a field that holds a recorded value (see Field.value)."""
    return any(f.value and f.off <= i < f.off + f.width for f in lay.fields)


def in_payload(lay, i):
    return any(o <= i < o + n for o, n, _ in lay.payload)


def rng_for(seed, *parts):
    return random.Random("/".join([str(seed)] + [str(p) for p in parts]))
