# GDB 13 as a reader of a tfile: `TFILE=f.tf gdb -nx -batch -x campaign/gdb_walk.py`.
# Prints what a user of the file gets: whether `target tfile` succeeded and the target was
# pushed (errors after the push leave the file open), the tracepoints GDB created, and for
# every frame `tfind N` finds: its tracepoint, $pc (the walk to the first R block) and a walk
# over every block (`x/1xb 0`: address 0 is in no M block). Lines starting with OPEN, TP and
# FRAME are the identity of what was read; VALUE lines are printed values.
import gdb, os, re

path = os.environ["TFILE"]


def run(cmd):
    try:
        return True, gdb.execute(cmd, to_string=True)
    except gdb.MemoryError as e:
        return False, "MemoryError: " + str(e)
    except gdb.error as e:
        return False, str(e)
    except UnicodeDecodeError as e:
        # GDB's output held bytes that are not UTF-8 (a damaged name or string): the command
        # ran; its text is printed as what could be decoded.
        return True, "<output not UTF-8: %s>" % e.object[: e.start].decode("utf-8", "replace")


# The traced program, when known: GDB creates the file's tracepoints only with it loaded.
if os.environ.get("TFILE_EXE"):
    run("file " + os.environ["TFILE_EXE"])
ok, out = run("target tfile " + path)
pushed = "Local trace dump file" in run("info target")[1]
print("OPEN ok=%s pushed=%s" % (ok, pushed))
if not ok:
    print("VALUE open: " + out.strip().replace("\n", " | ")[:300])
if pushed:
    ok, ti = run("info tracepoints")
    for line in ti.splitlines():
        m = re.match(r"^(\d+)\s+(\S+)\s+(\S+)\s+(\S+)", line)
        if m:
            print("TP %s %s enabled=%s" % (m.group(1), m.group(2), m.group(3)))
    ok, st = run("tstatus")
    print("VALUE tstatus: " + st.strip().replace("\n", " | "))
    ok, tv = run("info tvariables")
    print("VALUE tvariables: " + tv.strip().replace("\n", " | "))
    mem = {}
    for item in os.environ.get("TFILE_MEM", "").split(";"):
        if item:
            fn, addr, ln, full = item.split(":")
            mem.setdefault(int(fn), []).append((int(addr, 16), int(ln), int(full)))
    n = 0
    limit = int(os.environ.get("MAXFRAMES", "100000"))
    while n < limit:
        ok, out = run("tfind %d" % n)
        if not ok or "Found trace frame" not in out:
            print("END " + ("ok" if ok else "error") + " " + out.strip().replace("\n", " | ")[:200])
            break
        m = re.search(r"Found trace frame (\d+), tracepoint (-?\d+)", out)
        tp = m.group(2) if m else "?"
        rok, rout = run("p/x $pc")
        wok, wout = run("x/1xb 0")
        walk = "ok"
        for bad in ("Unknown block", "Premature", "Error reading"):
            if bad in wout or bad in rout:
                walk = "error"
        print("FRAME %d tp=%s regs=%s walk=%s" % (n, tp, "ok" if rok else "error", walk))
        print("VALUE pc %d: %s" % (n, rout.strip()[:120]))
        # The memory the seed collected in this frame, read back by address.
        for addr, ln, full in mem.get(n, []):
            mok, mout = run("x/%dxb 0x%x" % (max(ln, 1), addr))
            print("MEM %d 0x%x %s" % (n, addr, "ok" if mok else "error"))
            print("VALUE mem %d: %s" % (n, mout.strip()[:200]))
            # The byte after the range: memory a damaged block length claims as collected.
            pok, pout = run("x/1xb 0x%x" % (addr + max(full, 1)))
            print("VALUE past %d: %s" % (n, pout.strip()[:120] if pok else "unavailable"))
        # Trace state variables as this frame recorded them (V blocks).
        if os.environ.get("TFILE_TSV"):
            tok, tout = run("info tvariables")
            print("VALUE tsv %d: %s" % (n, tout.strip().replace("\n", " | ")[:300]))
        n += 1
