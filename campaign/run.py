#!/usr/bin/env python3
"""Differential campaign: tracelint's verdict against what every reader of the matrix does.

    python3 campaign/run.py [--seeds DIR]... [--per-format N] [--seed S] [--out DIR]
                            [--formats tracecmd,uftrace,gdb,ktrace,perf] [--jobs J]
                            [--tracelint BIN] [--fail-on-false-pass] [--rejudge RESULTS]

For every seed (a real trace file or uftrace directory under the --seeds folders; default: the
shipped corpus without its defects/ and regressions/), each reader of the matrix that claims the
seed's format version reads the original; then N structure-targeted mutants per format are drawn
(see mutate_common.py) and each is read by the same readers with a timeout and classified
(readers.py: crash, hang, reject, loss, value, same) and checked by tracelint. A *false pass* is
a mutant some reader crashes on, hangs on, rejects or loses data of, while tracelint exits 0; a
*false fail* is a mutant every reader reads exactly as the original while tracelint exits 1.

Writes OUT/results.jsonl (one line per mutant), OUT/summary.md (confusion matrices per format
and per reader) and keeps every false pass and up to --keep false fails as files under
OUT/false-pass/ and OUT/false-fail/ (each with a README naming the seed, the mutation and what
every reader did), for replay. Exit status: 0, or 1 with --fail-on-false-pass when there is one.
ktrace has no reader here: it is judged against the model in ktrace_model.py.
"""

import argparse
import collections
import concurrent.futures
import datetime
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mutate_common  # noqa: E402
import mutate_gdb  # noqa: E402
import mutate_ktrace  # noqa: E402
import mutate_perf  # noqa: E402
import mutate_tracecmd  # noqa: E402
import mutate_uftrace  # noqa: E402
import readers  # noqa: E402
import ktrace_model  # noqa: E402

ROOT = os.path.dirname(HERE)
FORMATS = ("tracecmd", "uftrace", "gdb", "ktrace", "perf")


def find_seeds(roots):
    seeds = {f: [] for f in FORMATS}
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in ("defects", "regressions", "large"))
            if "info" in filenames and ("task.txt" in filenames or any(f.endswith(".dat") for f in filenames)):
                seeds["uftrace"].append(dirpath)
                dirnames[:] = []
                continue
            for name in sorted(filenames):
                p = os.path.join(dirpath, name)
                try:
                    with open(p, "rb") as fh:
                        head = fh.read(16)
                except OSError:
                    continue
                if head.startswith(b"\x17\x08\x44tracing"):
                    seeds["tracecmd"].append(p)
                elif head.startswith(b"\x7fTRACE0\n"):
                    seeds["gdb"].append(p)
                elif ktrace_model.sniff(head):
                    seeds["ktrace"].append(p)
                elif head[:8] in (mutate_perf.MAGIC_LE, mutate_perf.MAGIC_BE):
                    # The `data` of a `perf record --threads` directory is read with its
                    # data.N streams, never alone: not a seed on its own.
                    if name == "data" and os.path.exists(os.path.join(dirpath, "data.0")):
                        continue
                    seeds["perf"].append(p)
    return seeds


def layout_of(fmt, seed):
    if fmt == "uftrace":
        files = mutate_uftrace.load(seed)
        info, lays = mutate_uftrace.layout(files)
        return info, lays, files
    with open(seed, "rb") as fh:
        data = fh.read()
    mod = {"tracecmd": mutate_tracecmd, "gdb": mutate_gdb, "ktrace": mutate_ktrace, "perf": mutate_perf}[fmt]
    info, lays = mod.layout(data)
    return info, lays, data


def draw(fmt, lays, files, rng, targeted_only=False):
    """One mutant: (description, tag, {name: bytes|None}) for directories, else bytes.
    `targeted_only` draws only the targeted kinds (and uftrace's perf-file removal)."""
    kinds = (("targeted", 1),) if targeted_only else mutate_common.KINDS
    for _ in range(50):
        if fmt == "uftrace" and targeted_only and rng.random() < 0.2:
            perf = mutate_uftrace.removals(files)
            if perf:
                name = rng.choice(perf)
                return (f"{name} removed while {len(perf) - 1} sibling(s) stay", "uf-perf-removed", {name: None})
            continue
        if fmt == "uftrace" and not targeted_only and rng.random() < 0.06:
            name = rng.choice(sorted(files))
            return (f"{name} removed", "remove", {name: None})
        if fmt == "uftrace" and not targeted_only and rng.random() < 0.04:
            perf = mutate_uftrace.removals(files)
            if perf:
                name = rng.choice(perf)
                return (f"{name} removed while {len(perf) - 1} sibling(s) stay", "uf-perf-removed", {name: None})
        lay = rng.choice(lays)
        if targeted_only and not lay.edits:
            continue
        m = mutate_common.one_mutant(lay, rng, kinds)
        if m is None:
            continue
        desc, tag, data = m
        if fmt == "uftrace":
            return (f"{lay.name}: {desc}", tag, {lay.name: data})
        return (desc, tag, data)
    return None


def materialise(fmt, seed, base, mutation, where):
    """Writes the mutant under `where` and returns its path."""
    if fmt == "uftrace":
        d = os.path.join(where, os.path.basename(seed.rstrip("/")))
        os.makedirs(d)
        for name, data in base.items():
            new = mutation.get(name, data)
            if new is None:
                continue
            with open(os.path.join(d, name), "wb") as fh:
                fh.write(new)
        return d
    p = os.path.join(where, os.path.basename(seed))
    with open(p, "wb") as fh:
        fh.write(mutation)
    return p


def tracelint_verdict(binary, path, program=None):
    """(exit status, error codes, other codes as "CODE:severity"). `program`: the program the
    reader is given with the file (a GDB seed's), given to tracelint too (`--program`)."""
    extra = ["--program", program] if program else []
    st, out, err = readers.run([binary, "check", "-o", "jsonl"] + extra + [path], 60)
    codes = []
    other = set()
    for line in out.splitlines():
        try:
            j = json.loads(line)
        except ValueError:
            continue
        if j.get("kind") == "finding" and j.get("severity") == "error":
            codes.append(j.get("code"))
        elif j.get("kind") == "finding":
            other.add(f"{j.get('code')}:{j.get('severity')}")
    return st, sorted(set(codes)), sorted(other)


def older_readers(fmt, info, baseline):
    """Readers older than the file's writer: they do not count towards the verdict. A v6
    trace.dat file exists to be read by v6 readers (files are converted to v6 for older
    toolchains), so trace-cmd 2.x count for every v6 file whoever wrote it; for v7 and uftrace,
    a reader older than the writer that cannot read a newer feature is an info case."""
    writer = info.get("writer")
    if not writer:
        return set()
    if fmt == "tracecmd" and info.get("version") == 6:
        return set()
    return {name for name, (r, _) in baseline.items() if tuple(r.version)[:2] < tuple(writer)[:2]}


def judge(cls_by_reader, tag, older=()):
    """The readers' verdict; readers older than the file's writer (`older`) do not count: an
    older reader that cannot read a newer writer's file is a note, not an error."""
    classes = {c for name, c in cls_by_reader.items() if name not in older}
    if classes & set(readers.BAD):
        return "bad"
    if classes and classes <= {"same"}:
        return "same"
    return "value"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--seeds", action="append", default=[])
    ap.add_argument("--per-format", type=int, default=300)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--out", default=os.path.join(ROOT, "target", "campaign"))
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--tracelint", default=os.path.join(ROOT, "target", "release", "tracelint"))
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--keep", type=int, default=40, help="false fails kept as files per format")
    ap.add_argument("--fail-on-false-pass", action="store_true")
    ap.add_argument("--keep-ids", default="", help="comma-separated mutant ids to keep as files under OUT/kept/ whatever their verdict")
    ap.add_argument("--targeted-only", action="store_true", help="draw only the targeted mutation kinds (a focused run on the classes readers were seen to get wrong)")
    ap.add_argument("--deadline", metavar="HH:MM", help="UTC time after which no new mutant is started; the report covers the mutants that finished")
    ap.add_argument("--rejudge", metavar="RESULTS", help="take the readers' classes from an earlier results.jsonl of the same seeds, --seed and --per-format; only tracelint runs again")
    args = ap.parse_args()
    keep_ids = {int(i) for i in args.keep_ids.split(",") if i.strip()}
    deadline = None
    if args.deadline:
        now = datetime.datetime.now(datetime.timezone.utc)
        hh, mm = (int(x) for x in args.deadline.split(":"))
        deadline = now.replace(hour=hh, minute=mm, second=0, microsecond=0)
        if deadline < now - datetime.timedelta(hours=12):
            deadline += datetime.timedelta(days=1)
    earlier = {}
    if args.rejudge:
        with open(args.rejudge) as fh:
            for line in fh:
                r = json.loads(line)
                earlier[(r["format"], r["id"])] = r

    if not os.access(args.tracelint, os.X_OK):
        sys.exit(f"campaign: no tracelint binary at {args.tracelint} (cargo build --release)")
    roots = args.seeds or [os.path.join(ROOT, "corpus")]
    seeds = find_seeds(roots)
    found, missing = readers.matrix()
    for name, why in missing:
        print(f"campaign: reader {name} is missing: {why}", file=sys.stderr)
    os.makedirs(args.out, exist_ok=True)
    for sub in ("false-pass", "false-fail", "kept"):
        shutil.rmtree(os.path.join(args.out, sub), ignore_errors=True)
    results_path = os.path.join(args.out, "results.jsonl")
    results = open(results_path, "w")
    lock = threading.Lock()
    summary = {}
    started = datetime.datetime.now(datetime.timezone.utc)

    for fmt in [f for f in args.formats.split(",") if f]:
        fmt_readers = [r for r in found if r.fmt == fmt]
        if fmt == "ktrace":
            fmt_readers = [ktrace_model.ModelReader()]
        if not fmt_readers:
            print(f"campaign: {fmt}: no reader present, skipped", file=sys.stderr)
            continue
        prepared = []
        gdb_progs = readers.gdb_programs() if fmt == "gdb" else []
        with tempfile.TemporaryDirectory(prefix="tl-campaign-") as tmp:
            for seed in seeds.get(fmt, []):
                info, lays, base = layout_of(fmt, seed)
                claim = [r for r in fmt_readers if r.claims(info)]
                if fmt == "gdb" and claim:
                    # The program the file traced: the one with which GDB creates tracepoints.
                    for exe in gdb_progs:
                        o = readers_read(claim[0], seed, args.timeout, dict(info, exe=exe))
                        if readers.gdb_tracepoints(o):
                            info["exe"] = exe
                            break
                    else:
                        print(f"campaign: no program of scripts/corpus/src makes GDB create the tracepoints of {seed}; read without one", file=sys.stderr)
                baseline = {}
                for r in claim:
                    o = readers_read(r, seed, args.timeout, info)
                    if o.status is None or o.status != 0:
                        # A reader that cannot read the original judges no mutant of it.
                        print(f"campaign: {r.name} cannot read seed {seed} ({o.status}); not used for it", file=sys.stderr)
                        continue
                    baseline[r.name] = (r, o)
                if not baseline:
                    continue
                prepared.append((seed, info, lays, base, baseline))
        if args.targeted_only:
            prepared = [p for p in prepared if any(l.edits for l in p[2]) or (fmt == "uftrace" and mutate_uftrace.removals(p[3]))]
        if not prepared:
            print(f"campaign: {fmt}: no usable seed", file=sys.stderr)
            continue
        rng = mutate_common.rng_for(args.seed, fmt)
        todo = []
        seen = set()
        tries = 0
        while len(todo) < args.per_format and tries < args.per_format * 20:
            tries += 1
            seed, info, lays, base, baseline = prepared[len(todo) % len(prepared)]
            m = draw(fmt, lays, base, rng, args.targeted_only)
            if m is None:
                continue
            desc, tag, mutation = m
            h = hashlib.sha1(seed.encode() + repr(sorted(mutation.items()) if isinstance(mutation, dict) else mutation).encode("latin1", "replace")).hexdigest()
            if h in seen:
                continue
            seen.add(h)
            todo.append((len(todo), seed, base, baseline, desc, tag, mutation, info))

        stats = summary.setdefault(fmt, {"mutants": 0, "cells": {}, "per_reader": {}, "false_pass": [], "false_fail": []})
        kept_ff = [0]

        def one(item):
            idx, seed, base, baseline, desc, tag, mutation, info = item
            if deadline is not None and datetime.datetime.now(datetime.timezone.utc) >= deadline:
                return None
            with tempfile.TemporaryDirectory(prefix="tl-mutant-") as where:
                path = materialise(fmt, seed, base, mutation, where)
                tl_status, codes, other = tracelint_verdict(args.tracelint, path, info.get("exe"))
                per = {}
                notes = {}
                old = earlier.get((fmt, idx))
                if old is not None and old["mutation"] == desc:
                    per, notes = old["readers"], old["notes"]
                for name, (r, base_o) in ([] if old is not None and old["mutation"] == desc else baseline.items()):
                    o = readers_read(r, path, args.timeout, info)
                    c = readers.classify(base_o, o)
                    if c == "loss" and tag in mutate_common.VALUE_TAGS and same_shape(base_o, o):
                        c = "value"
                    if c == "loss" and (tag in ("clean-cut", "unknown-id") or tag in mutate_common.SHORTER_RECORDING):
                        c = "value"
                    if c == "loss" and renamed(base_o, o):
                        c = "value"
                    if c == "loss" and desc.endswith("(all in a compressed chunk body)") and one_record_changed(base_o, o):
                        c = "value"
                    if c == "loss" and fmt == "perf" and retimed(base_o, o):
                        c = "value"
                    if fmt == "perf" and c in ("loss", "reject") and o.status == 0 and tag in CUT_TAGS:
                        # A cut file holds fewer samples than the seed: a reader that shows
                        # every whole sample left in it reads what is there.
                        left = mutate_perf.whole_samples(mutation)
                        if left is not None and readers.perf_samples(o) == left:
                            c = "value"
                    per[name] = c
                    if c != "same":
                        notes[name] = o.note
                older = older_readers(fmt, info, baseline)
                verdict = judge(per, tag, older)
                row = {
                    "format": fmt,
                    "id": idx,
                    "seed": os.path.relpath(seed, ROOT) if seed.startswith(ROOT) else seed,
                    "mutation": desc,
                    "tag": tag,
                    "tracelint_exit": tl_status,
                    "errors": codes,
                    "other_findings": other,
                    "older_readers": sorted(older),
                    "readers": per,
                    "notes": notes,
                    "readers_verdict": verdict,
                }
                fp = verdict == "bad" and tl_status == 0
                ff = verdict == "same" and tl_status == 1
                wanted = idx in keep_ids
                with lock:
                    keep = fp or (ff and kept_ff[0] < args.keep) or wanted
                    if ff and keep and not wanted:
                        kept_ff[0] += 1
                if keep:
                    sub = "kept" if wanted else "false-pass" if fp else "false-fail"
                    dest = os.path.join(args.out, sub, f"{fmt}-{idx:05d}")
                    os.makedirs(dest, exist_ok=True)
                    target = os.path.join(dest, os.path.basename(path))
                    if os.path.isdir(path):
                        shutil.copytree(path, target)
                    else:
                        shutil.copy(path, target)
                    with open(os.path.join(dest, "README.json"), "w") as fh:
                        json.dump(row, fh, indent=1)
                return row

        with tempfile.TemporaryDirectory(prefix="tl-campaign-"):
            with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
                for row in ex.map(one, todo):
                    if row is None:
                        stats["skipped"] = stats.get("skipped", 0) + 1
                        continue
                    results.write(json.dumps(row) + "\n")
                    results.flush()
                    tg = stats.setdefault("tags", {}).setdefault(row["tag"], {"n": 0, "bad": 0, "same": 0, "fp": 0, "ff": 0})
                    tg["n"] += 1
                    tg["bad"] += row["readers_verdict"] == "bad"
                    tg["same"] += row["readers_verdict"] == "same"
                    tg["fp"] += row["readers_verdict"] == "bad" and row["tracelint_exit"] == 0
                    tg["ff"] += row["readers_verdict"] == "same" and row["tracelint_exit"] == 1
                    stats["mutants"] += 1
                    key = (row["readers_verdict"], "exit %s" % row["tracelint_exit"])
                    stats["cells"][key] = stats["cells"].get(key, 0) + 1
                    for name, c in row["readers"].items():
                        pr = stats["per_reader"].setdefault(name, {})
                        k2 = (c, "exit %s" % row["tracelint_exit"])
                        pr[k2] = pr.get(k2, 0) + 1
                    if row["readers_verdict"] == "bad" and row["tracelint_exit"] == 0:
                        stats["false_pass"].append(row)
                    if row["readers_verdict"] == "same" and row["tracelint_exit"] == 1:
                        stats["false_fail"].append(row)
        left = f", {stats['skipped']} not run (deadline)" if stats.get("skipped") else ""
        print(f"campaign: {fmt}: {stats['mutants']} mutants, {len(stats['false_pass'])} false passes, {len(stats['false_fail'])} false fails{left}", file=sys.stderr)
    results.close()
    text = render(summary, args, started, found, missing, seeds)
    with open(os.path.join(args.out, "summary.md"), "w") as fh:
        fh.write(text)
    print(text)
    gate = [r for s in summary.values() for r in s["false_pass"] if not known_gap(r)]
    gaps = [r for s in summary.values() for r in s["false_pass"] if known_gap(r)]
    if gaps:
        print(f"campaign: {len(gaps)} false pass(es) of known gaps (KNOWN_GAPS in campaign/run.py)", file=sys.stderr)
    if args.fail_on_false_pass and gate:
        return 1
    return 0


# Damage no validator can tell from a healthy recording, listed so that the gate of
# `--fail-on-false-pass` stays on every other class; each entry says why. The list only shrinks,
# but for a targeted kind found to write a shape the producer itself writes.
KNOWN_GAPS = (
    (
        "tc-padding",
        re.compile(r"type_len 0 -> 29 \(padding\), time delta [1-9]"),
        "a length-word record (type_len 0) made padding (29) with its length word and a non-zero "
        "time delta kept: the kernel's rb_event_discard (kernel/trace/ring_buffer.c) writes exactly "
        "this for an event a filter discards after reserving it (array[0] keeps the length, "
        "time_delta is forced non-zero), and every reader skips it as the kernel meant",
    ),
    (
        "uf-perf-removed",
        re.compile(r"perf-cpu\d+\.dat removed"),
        "a perf-cpu<N>.dat removed beside its siblings, from a recording that did not run to its "
        "end (`exit_status:-1` without `--keep-pid`): UF087 warns (an idle CPU's file "
        "is empty, so the directory cannot tell whether events were lost), and the checks that "
        "show the loss across the perf files (UF085, UF086) need every record of the recording",
        lambda seed: _uftrace_info(seed, "exit_status") == "-1"
        and "--keep-pid" not in (_uftrace_info(seed, "cmdline") or "").split(),
    ),
    (
        "remove",
        re.compile(r"^perf-cpu\d+\.dat removed$"),
        "as uf-perf-removed",
        lambda seed: _uftrace_info(seed, "exit_status") == "-1"
        and "--keep-pid" not in (_uftrace_info(seed, "cmdline") or "").split(),
    ),
    (
        "remove",
        re.compile(r"^\d+\.dat removed$"),
        "a task's <TID>.dat removed from a filtered recording (`-F`, `-N`, `-C`, `-T`, `-D`, "
        "`-t`, `-Z`, `--disable`, `-P` other than `.`, `--no-libcall`): a task can make traced "
        "calls and write no record there, so a healthy recording has the same files (UF037 is an "
        "error where nothing filtered)",
        lambda seed: _uftrace_filtered(seed),
    ),
    (
        "field",
        re.compile(r"^sample (id|identifier) @0x[0-9a-f]+ .*\(another event's id\)$"),
        "a sample's id changed into the id of another event of the file: the readers read it as "
        "a sample of that event, which a recording of both events can hold with the same bytes "
        "(the events of a group or a list share their sample_type; where they do not, PF016 "
        "tells, and for tracepoint samples the raw data's common_type does: PF031)",
    ),
    (
        "flip",
        re.compile(r"\(all in a `tp Z` at string or program symbol\)$"),
        "bytes of a `tp Z` at string, or of a name a `tp Z` cmd line's expression takes from the "
        "program (`collect counter`), changed to other hex digits: the location or symbol is "
        "renamed, and whether the program has a file or variable of that name is in the "
        "program, not in the tfile (GDB 13 with the program: \"No symbol ... in current "
        "context\"); any such name is one a healthy file can hold. A non-hex byte (GT060) or a "
        "control byte in an at string (GT031) is told by the file, and an at string that is a "
        "plain function name the program lacks by tracelint given the program (GT064)",
    ),
)


# Truncations: what a reader of a cut perf file shows is compared with the samples left in it.
CUT_TAGS = {"truncate", "clean-cut", "pf-cut-record", "pf-cut-mid"}


def _uftrace_info(seed, key):
    """The value of `key:` in a uftrace seed's `info`, or None."""
    try:
        with open(os.path.join(seed, "info"), "rb") as fh:
            for line in fh.read().split(b"\n"):
                if line.startswith(key.encode() + b":"):
                    return line.split(b":", 1)[1].decode("latin1")
    except OSError:
        return None
    return None


def _uftrace_filtered(seed):
    """Whether a uftrace seed's command line has an option that lets a task write no record."""
    words = (_uftrace_info(seed, "cmdline") or "").split()
    filters = {"-F", "--filter", "-N", "--notrace", "-C", "--caller-filter", "-T", "--trigger",
               "-D", "--depth", "-t", "--time-filter", "-Z", "--size-filter", "--disable",
               "-U", "--unpatch", "--no-libcall"}
    for i, w in enumerate(words):
        name = w.split("=", 1)[0]
        if name in filters:
            return True
        if name in ("-P", "--patch"):
            arg = w.split("=", 1)[1] if "=" in w else (words[i + 1] if i + 1 < len(words) else "")
            if arg != ".":
                return True
    return False


def known_gap(row):
    """The reason a false pass is a known gap (`KNOWN_GAPS`), or None. An entry with a fourth
    element holds only for the seeds it accepts."""
    for tag, pattern, why, *cond in KNOWN_GAPS:
        if row.get("tag") == tag and pattern.search(row.get("mutation", "")):
            seed = row.get("seed", "")
            if cond and not cond[0](seed if os.path.isabs(seed) else os.path.join(os.path.dirname(HERE), seed)):
                continue
            return why
    return None


def readers_read(r, path, timeout, info=None):
    if isinstance(r, ktrace_model.ModelReader):
        return r.read(path)
    return readers.read_with(r, path, timeout, info)


def same_shape(a, b):
    """The same number of records under each key, whatever the keys (a changed CPU id is a
    value: the records move to another key)."""
    return sorted(len(v) for v in a.ident.values()) == sorted(len(v) for v in b.ident.values())


def one_record_changed(a, b):
    """The same keys and number of records under each, and one record named otherwise: a flip
    inside compressed data changed one record's event id (ring records are framed by their own
    length words, so every other record is read in step) and the reader reads the record as the
    event the data now names."""
    if a.ident.keys() != b.ident.keys() or not same_shape(a, b):
        return False
    diff = 0
    for k, av in a.ident.items():
        bv = b.ident[k]
        if len(av) != len(bv):
            return False
        diff += sum(1 for x, y in zip(av, bv) if x != y)
    return diff == 1


def renamed(a, b):
    """The same records under the same keys, with some names consistently replaced by names
    the original never had: the reader reads the names written (an event or function renamed
    in the file's own text is a value, not a loss)."""
    if a.ident.keys() != b.ident.keys():
        return False
    names = {}
    for k, av in a.ident.items():
        bv = b.ident[k]
        if len(av) != len(bv):
            return False
        for x, y in zip(av, bv):
            if names.setdefault(x, y) != y:
                return False
    old = set(names)
    changed = {x: y for x, y in names.items() if x != y}
    targets = list(changed.values())
    return bool(changed) and len(set(targets)) == len(targets) and not (set(targets) & old)


def retimed(a, b, most=4):
    """perf: every event shows as many samples, at most `most` of them (a flip changes up to 4
    bytes) with another time or thread, so shown elsewhere in the time order perf sorts them
    by, under the comm their thread had then or under a thread the recording never had: the
    readers read the time and tid written, values, not lost samples. Events renamed in the
    file's own text (EVENT_DESC, EVENT_UPDATE) are values too: their samples are compared
    under the new name."""
    if a.ident.keys() != b.ident.keys():
        gone = [k for k in a.ident if k not in b.ident]
        new = [k for k in b.ident if k not in a.ident]
        if len(gone) != len(new) or not gone:
            return False
        # Each renamed event's samples under exactly one new name.
        for k in gone:
            match = [n for n in new if b.ident[n] == a.ident[k]]
            if len(match) != 1:
                return False
            new.remove(match[0])
        common = [k for k in a.ident if k in b.ident]
        return all(a.ident[k] == b.ident[k] for k in common)
    moved = 0
    for k, av in a.ident.items():
        bv = b.ident[k]
        if av == bv:
            continue
        if len(av) != len(bv):
            return False
        if not all(isinstance(x, tuple) and len(x) == 3 for x in list(av) + list(bv)):
            return False
        left = collections.Counter(bv)
        left.subtract(collections.Counter(av))
        moved += sum(n for n in left.values() if n > 0)
    return 0 < moved <= most


def pct(n, d):
    return f"{100.0 * n / d:.1f} %" if d else "-"


def render(summary, args, started, found, missing, seeds):
    out = []
    out.append(f"# Differential campaign, {started:%Y-%m-%d %H:%M} UTC\n")
    out.append(f"seed {args.seed}, {args.per_format} mutants per format, reader timeout {args.timeout:g} s\n")
    out.append("Readers: " + ", ".join(r.name for r in found) + (" (missing: " + ", ".join(n for n, _ in missing) + ")" if missing else "") + "\n")
    out.append("\n| format | seeds | mutants | some reader fails | every reader same | false passes | false fails |\n|---|---:|---:|---:|---:|---:|---:|\n")
    for fmt, s in summary.items():
        bad = sum(v for (rv, _), v in s["cells"].items() if rv == "bad")
        same = sum(v for (rv, _), v in s["cells"].items() if rv == "same")
        fp, ff = len(s["false_pass"]), len(s["false_fail"])
        out.append(f"| {fmt} | {len(seeds.get(fmt, []))} | {s['mutants']} | {bad} | {same} | {fp} of {bad} ({pct(fp, bad)}) | {ff} of {same} ({pct(ff, same)}) |\n")
    for fmt, s in summary.items():
        out.append(f"\n## {fmt}\n\nreaders' verdict (rows) against tracelint's exit status (columns):\n\n")
        exits = sorted({e for (_, e) in s["cells"]})
        out.append("| readers | " + " | ".join(exits) + " |\n|---|" + "---:|" * len(exits) + "\n")
        for rv in ("bad", "value", "same"):
            out.append(f"| {rv} | " + " | ".join(str(s["cells"].get((rv, e), 0)) for e in exits) + " |\n")
        out.append("\nper reader (class against tracelint's exit status):\n\n")
        classes = ("crash", "hang", "reject", "loss", "value", "same")
        out.append("| reader | " + " | ".join(f"{c} (exit 0 / 1)" for c in classes) + " |\n|---|" + "---:|" * len(classes) + "\n")
        for name, pr in sorted(s["per_reader"].items()):
            cells = []
            for c in classes:
                a, b = pr.get((c, "exit 0"), 0), pr.get((c, "exit 1"), 0)
                cells.append(f"{a} / {b}")
            out.append(f"| {name} | " + " | ".join(cells) + " |\n")
        if s.get("skipped"):
            out.append(f"\n{s['skipped']} drawn mutants were not run (deadline reached).\n")
        if s.get("tags"):
            out.append("\nper mutation kind (tag):\n\n| tag | mutants | some reader fails | every reader same | false passes | false fails |\n|---|---:|---:|---:|---:|---:|\n")
            for tag, tg in sorted(s["tags"].items()):
                out.append(f"| {tag} | {tg['n']} | {tg['bad']} | {tg['same']} | {tg['fp']} | {tg['ff']} |\n")
        if s["false_pass"]:
            out.append("\nfalse passes:\n\n")
            for row in s["false_pass"][:200]:
                bad = {k: v for k, v in row["readers"].items() if v in readers.BAD}
                warn = ", ".join(row.get("other_findings") or []) or "no finding"
                out.append(f"- [{row['tag']}] `{row['seed']}` {row['mutation']}: {bad}; tracelint: {warn}\n")
        if s["false_fail"]:
            out.append("\nfalse fails:\n\n")
            for row in s["false_fail"][:200]:
                out.append(f"- [{row['tag']}] `{row['seed']}` {row['mutation']}: errors {', '.join(row['errors'])}\n")
    return "".join(out)


if __name__ == "__main__":
    sys.exit(main())
