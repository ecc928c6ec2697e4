//! Rules of the uftrace data directory validator (`UF`).
//!
//! `## Spec` sections cite uftrace's source and `docs/uftrace.md`, which has the layout and the
//! writer history.

/// The family of this format's rules.
pub const FAMILY: crate::rule::Family = crate::rule::Family {
    name: "uftrace",
    prefix: "UF",
    slug: "uftrace",
    title: "uftrace data directory",
    aliases: &[],
};

crate::declare_rules! {
    family: FAMILY;
    /// ## What it checks
    /// The files every recording has are present: `info` and `task.txt`.
    ///
    /// ## Why it matters
    /// uftrace refuses a directory without `info`, and without `task.txt` it knows no task or
    /// session, so nothing can be replayed.
    ///
    /// ## What readers do
    /// uftrace 0.13 `replay`/`dump` stop: without `info` "cannot open record data" (EINVAL); without
    /// `task.txt` (and no legacy `task`) "No data available" (from source: utils/data-file.c
    /// open_data_file, v0.9-v0.18).
    pub MISSING_FILE = ("UF001", "missing-file", Error, "a file every uftrace recording has is missing");
    /// ## What it checks
    /// Each file of the directory can be read (and is a regular file, not a link or directory).
    ///
    /// ## Why it matters
    /// A file that cannot be read cannot be checked; uftrace would fail on it too.
    ///
    /// ## What readers do
    /// uftrace fails on the file like any reader (fopen/fread errors); what it reads depends on the
    /// file.
    pub UNREADABLE_FILE = ("UF002", "unreadable-file", Error, "a file of the directory could not be read");
    /// ## What it checks
    /// Every file name belongs to the format (`info`, `task.txt`, `sid-*.map`, `*.sym`, `*.dbg`,
    /// `<TID>.dat`, `perf-cpuN.dat`, kernel files, `events.txt`, `extern.dat`, `default.opts`,
    /// `note.txt`).
    ///
    /// ## Why it matters
    /// Unknown files are ignored by uftrace; they may be left over from another tool.
    ///
    /// ## What readers do
    /// uftrace never opens files outside the format (from source: utils/data-file.c, cmds/*.c).
    pub UNKNOWN_FILE = ("UF003", "unknown-file", Info, "a file that is not part of the uftrace format");
    /// ## What it checks
    /// At least one `<TID>.dat` file holds records.
    ///
    /// ## Why it matters
    /// uftrace refuses a recording without any non-empty task data ("cannot find task data").
    ///
    /// ## What readers do
    /// uftrace 0.13 stops with "cannot open record data: No data available" (from source:
    /// utils/data-file.c open_data_file, `check_data_file`).
    pub NO_TASK_DATA = ("UF004", "no-task-data", Error, "no task data file holds any record");
    /// ## What it checks
    /// `info` is at least 40 bytes long and starts with the magic `Ftrace!\0`.
    ///
    /// ## Why it matters
    /// The magic identifies the recording; uftrace refuses anything else.
    ///
    /// ## What readers do
    /// uftrace stops with "invalid magic string found!" (from source: utils/data-file.c
    /// open_info_file, v0.6-v0.18).
    pub INFO_BAD_MAGIC = ("UF010", "info-bad-magic", Error, "`info` is shorter than its 40-byte header or lacks the `Ftrace!\\0` magic");
    /// ## What it checks
    /// The header version is 3 or 4.
    ///
    /// ## Why it matters
    /// uftrace 0.13 accepts only versions 3 and 4 ("unsupported file version").
    ///
    /// ## What readers do
    /// uftrace 0.13 stops with "unsupported file version: N" (from source: open_info_file; it
    /// accepts 3 and 4).
    pub UNSUPPORTED_VERSION = ("UF011", "unsupported-version", Error, "the `info` header version is not 3 or 4");
    /// ## What it checks
    /// The header size field is 40.
    ///
    /// ## Why it matters
    /// Every reader consumes exactly 40 bytes; `uftrace dump -v` hexdumps `header_size` bytes of
    /// a 40-byte structure, so another value over-reads.
    ///
    /// ## What readers do
    /// uftrace reads `sizeof(struct uftrace_file_header)` (40) bytes whatever the field says and
    /// parses the text from byte 40: the data reads the same (from source: open_info_file).
    pub INFO_HEADER_SIZE = ("UF012", "info-header-size", Warning, "the `info` header size field is not 40");
    /// ## What it checks
    /// The endian byte is 1 (little) or 2 (big) and the class byte is 1 (32-bit) or 2 (64-bit).
    ///
    /// ## Why it matters
    /// They decide the byte order of every data file and the default argument size.
    ///
    /// ## What readers do
    /// uftrace picks the byte order from the endian byte (`check_data_order`) and the argument size
    /// from the class byte: another value makes it read every data file with the wrong layout
    /// (from source: utils/data-file.c).
    pub BAD_ENDIAN_OR_CLASS = ("UF013", "bad-endian-or-class", Error, "the `info` endian or class byte is not 1 or 2");
    /// ## What it checks
    /// `feat_mask` uses only bits 0-13 and `info_mask` only bits 0-15, and `TASK_SESSION` is set.
    ///
    /// ## Why it matters
    /// Unknown bits come from a newer or broken writer; their data is ignored. Without
    /// `TASK_SESSION`, sessions are not read and no address resolves.
    ///
    /// ## What readers do
    /// uftrace ignores feature and info bits it does not know (warning). The level follows the case:
    /// - **error**: `TASK_SESSION` is clear: `task.txt` is not read, no address resolves, and
    ///   `uftrace replay` 0.9.4–0.18.1 crash with SIGSEGV (campaign);
    /// - **error**: `info_mask` is 0: uftrace 0.9.4–0.18.1 cannot open the recording (`cannot open
    ///   record data`; `replay` crashes);
    /// - **error**: `info_mask` lacks TASKINFO: uftrace 0.9.4–0.18.1 know no task (`nr_tid` 0)
    ///   and refuse the recording (`cannot open record data: No data available`; campaign);
    /// - **warning**: unknown bits only.
    pub UNKNOWN_MASK_BITS = ("UF014", "unknown-mask-bits", Warning, "the feature or info mask has unknown bits or lacks TASK_SESSION");
    /// ## What it checks
    /// With the `MAX_STACK` feature, `max_stack` is at least 1.
    ///
    /// ## Why it matters
    /// A zero maximum depth makes every record exceed it.
    ///
    /// ## What readers do
    /// uftrace keeps the field as the depth limit when `MAX_STACK` is set (from source:
    /// open_data_file): with 0, no record lies below it.
    pub BAD_MAX_STACK = ("UF015", "bad-max-stack", Error, "the `info` max_stack is 0 although MAX_STACK is set");
    /// ## What it checks
    /// The six reserved header bytes (0x22..0x28) are zero.
    ///
    /// ## Why it matters
    /// They are reserved for future use and written as zero; other values point at a foreign or
    /// damaged header.
    ///
    /// ## What readers do
    /// uftrace never reads the reserved bytes: the data reads the same (from source: uftrace.h
    /// `struct uftrace_file_header`).
    pub RESERVED_NONZERO = ("UF016", "reserved-nonzero", Warning, "reserved bytes of the `info` header are not zero");
    /// ## What it checks
    /// Each text line of `info` has the exact prefix and syntax its section requires
    /// (`exename:`, `build_id:` + 40 hex digits, `cpuinfo:lines=2`, numbers that parse...).
    ///
    /// ## Why it matters
    /// uftrace reads the sections positionally; a wrong prefix or count stops it with
    /// "cannot read uftrace header info!".
    ///
    /// ## What readers do
    /// uftrace stops with "cannot read uftrace header info!" when a section's prefix does not
    /// match; numbers are read with sscanf/strtol, so a malformed value is read as whatever prefix
    /// parses (from source: cmds/info.c read_uftrace_info, v0.6-v0.18). The level follows the
    /// case:
    /// - **error** when the line lacks its section's `key:` prefix (every command stops), or
    ///   a value the readers use is malformed (`build_id`, `pattern_type`, counts);
    /// - **warning** when the line has its `key:` prefix and only its value (CPU, memory, OS,
    ///   usage, load, exit status, dates) does not parse: uftrace 0.9.4–0.18.1 `sscanf` it
    ///   without checking, `uftrace info` shows what parses, and dump and replay read the same
    ///   (campaign: flipped and renamed value bytes).
    pub INFO_LINE_MALFORMED = ("UF017", "info-line-malformed", Error, "an `info` text line does not have the prefix or syntax of its section");
    /// ## What it checks
    /// The text part holds a section for every set `info_mask` bit, in bit order.
    ///
    /// ## Why it matters
    /// A missing section makes uftrace refuse the header.
    ///
    /// ## What readers do
    /// uftrace stops with "cannot read uftrace header info!" (from source: cmds/info.c, a handler
    /// returns -1 at end of file).
    pub INFO_SECTION_MISSING = ("UF018", "info-section-missing", Error, "the `info` text ends before all sections of `info_mask` were read");
    /// ## What it checks
    /// Nothing follows the last expected `info` line.
    ///
    /// ## Why it matters
    /// Extra text is ignored by uftrace; it is often the stale tail of a rewritten header or a
    /// section whose mask bit is not set.
    ///
    /// ## What readers do
    /// uftrace stops reading after the last section of `info_mask` and never sees the rest: the
    /// data reads the same (from source: cmds/info.c read_uftrace_info).
    pub INFO_TRAILING_DATA = ("UF019", "info-trailing-data", Warning, "bytes follow the last `info` section");
    /// ## What it checks
    /// `taskinfo:nr_tid` is positive and equals the number of `taskinfo:tids`, which are unique
    /// non-zero and ascending.
    ///
    /// ## Why it matters
    /// uftrace 0.13 allocates `nr_tid` slots and writes every listed tid: more tids than
    /// `nr_tid` overflow the heap (`malloc(): corrupted top size`); `nr_tid = 0` means no data.
    ///
    /// ## What readers do
    /// uftrace 0.13 allocates `nr_tid` slots and stores every listed tid: more tids overflow the
    /// heap (`malloc(): corrupted top size`, verified with uftrace 0.13; fixed by 35c89bc4,
    /// first released in v0.19); `nr_tid = 0` gives "No data available" (from source).
    pub TASKINFO_COUNT = ("UF020", "taskinfo-count", Error, "`taskinfo` nr_tid does not match its tid list");
    /// ## What it checks
    /// The `taskinfo:tids` set equals the set of TASK/FORK tids of `task.txt`.
    ///
    /// ## Why it matters
    /// Tasks missing from the list are not shown by uftrace; listed tids unknown to `task.txt`
    /// have no session.
    ///
    /// ## What readers do
    /// uftrace opens the data files of `taskinfo:tids` only; a listed tid without a task or a task
    /// not listed changes nothing else (from source: open_data_file). Data files that are lost
    /// or crash a reader because of the list are `UF038`.
    pub TASKINFO_TASKS_DIFFER = ("UF021", "taskinfo-tasks-differ", Warning, "`taskinfo:tids` and the tasks of `task.txt` differ");
    /// ## What it checks
    /// The feature bits agree with the files present: `KERNEL` with kernel files, `PERF_EVENT`
    /// with `perf-cpuN.dat`, `DEBUG_INFO` with `.dbg` files, `ARG_SPEC` with the `ARGUMENT`/
    /// `RETVAL` features, `SYM_SIZE` with the `.sym` layout, argument payloads with `ARGUMENT`
    /// / `RETVAL`.
    ///
    /// ## Why it matters
    /// A mismatch means data was lost or the header was not rewritten after the recording.
    ///
    /// ## What readers do
    /// uftrace trusts the feature bits: it sets up kernel, perf, argument and `.dbg` reading from
    /// them and ignores files whose bit is clear (from source: open_data_file). The level follows the
    /// case:
    /// - **error**: `PERF_EVENT` or `KERNEL` is clear while its files exist: their events are lost to
    ///   uftrace 0.9.4–0.18.1;
    /// - **error**: a record carries a payload while neither `ARGUMENT`/`RETVAL` nor `AUTO_ARGS` is
    ///   set: uftrace 0.9.4–0.18.1 stop with `record missing argument info`;
    /// - **error**: `PERF_EVENT` is set, the recording ran to its end and no `perf-cpuN.dat` is
    ///   left: `uftrace record` sets the bit only once its perf events are open (one file per
    ///   CPU, `setup_perf_record`), and they record the COMM and EXIT of every traced task
    ///   (`task`, `comm`, `enable_on_exec`, from 0.9.4 on), also through `uftrace recv`; every
    ///   reader loses those events (campaign: `recv-host` without its `perf-cpu0.dat`);
    /// - **warning**: a bit is set without its files otherwise, or the other mismatches (the
    ///   header was not rewritten; every reader reads the same).
    pub FEATURE_FILE_MISMATCH = ("UF022", "feature-file-mismatch", Warning, "a feature bit disagrees with the files or records present");
    /// ## What it checks
    /// `info` text lines are shorter than 4095 bytes.
    ///
    /// ## Why it matters
    /// uftrace reads them with `fgets` into a 4096-byte buffer: a longer line is split and the
    /// rest is taken as the next line, which breaks the header.
    ///
    /// ## What readers do
    /// uftrace reads these lines with `fgets` into a 4096-byte buffer: the rest of a longer line is
    /// read as the next section's line and the header is refused (from source: cmds/info.c).
    pub INFO_LINE_TOO_LONG = ("UF023", "info-line-too-long", Error, "an `info` text line is 4095 bytes or longer");
    /// ## What it checks
    /// `info` text of a newer uftrace than the reader: a section of an `info_mask` bit past
    /// `VERSION` (uftrace 0.17 added `UTC_OFFSET`, `utc_offset:<seconds>`), or `key:value`
    /// lines after the last announced section.
    ///
    /// ## Why it matters
    /// Readers older than the writer skip what they do not know; the data reads the same.
    ///
    /// ## What readers do
    /// uftrace reads the sections of the bits it knows, in bit order, and never looks at the
    /// rest of the text (from source: cmds/info.c read_uftrace_info, v0.6-v0.18); uftrace 0.13
    /// reads a 0.17 `info` with `utc_offset:` the same (verified with uftrace 0.13).
    ///
    /// ## Spec
    /// docs/uftrace.md (writer history).
    pub INFO_NEWER_LINE = ("UF024", "info-newer-line", Info, "an `info` line of a section newer than the reader");
    /// ## What it checks
    /// Each item of an argument spec (`info` argspec/retspec/argauto/retauto lines, `.dbg`
    /// `A:`/`R:` lines) is one uftrace parses: `argN`/`fpargN`/`retval`, then `/` and a format
    /// letter among `d i u x s S c f p e t` with an optional size of 8, 16, 32 or 64 bits (80
    /// for floats), or `%<location>`.
    ///
    /// ## Why it matters
    /// uftrace accepted the spec on the command line but skips such an item: neither the
    /// recorder nor the readers use it, so no argument of that kind was recorded.
    ///
    /// ## What readers do
    /// uftrace's `parse_argspec` returns NULL for the item and the rest of the spec applies;
    /// the recorder (libmcount) parses the same text the same way, so payloads are framed the
    /// same (from source: utils/argspec.c, v0.9-v0.18).
    ///
    /// ## Spec
    /// docs/uftrace.md (argspec grammar).
    pub ARGSPEC_ITEM_IGNORED = ("UF025", "argspec-item-ignored", Info, "an argument spec item uftrace does not parse and ignores");
    /// ## What it checks
    /// Recognises SESS lines with `tid=<pid>` in place of `pid=<pid>`, as uftrace 0.6 wrote
    /// them (0.7 and later write `pid=`).
    ///
    /// ## Why it matters
    /// The field holds the process id either way.
    ///
    /// ## What readers do
    /// uftrace reads SESS with `sscanf("timestamp=%lu.%lu %*[^i]id=%d sid=%s")`, which takes
    /// either name (from source: utils/data-file.c read_task_txt_file, v0.7-v0.18).
    ///
    /// ## Spec
    /// docs/uftrace.md (task.txt).
    pub TASK_LEGACY_FIELD = ("UF026", "task-legacy-field", Info, "a SESS line names its process `tid=` as uftrace 0.6 wrote it");
    /// ## What it checks
    /// A `task.txt` line of a type tracelint does not know but shaped like the known ones: an
    /// upper-case type word, then `key=value` fields (`NEWT timestamp=... tid=...`).
    ///
    /// ## Why it matters
    /// A newer uftrace may add a record type; the line is what that writer meant to write, not
    /// damage. Lines of another shape are UF031.
    ///
    /// ## What readers do
    /// uftrace 0.6-0.18 skip a line of an unknown type without a word and read every known line
    /// the same (from source: utils/data-file.c read_task_txt_file).
    ///
    /// ## Spec
    /// docs/uftrace.md (task.txt).
    pub TASK_NEWER_LINE = ("UF027", "task-newer-line", Info, "a `task.txt` line of a record type newer than the reader");
    /// ## What it checks
    /// Each `task.txt` line matches its grammar exactly: `SESS timestamp=S.NNNNNNNNN pid=P
    /// sid=<16 hex> exename="..."`, `TASK timestamp=... tid=T pid=P`, `FORK timestamp=... pid=C
    /// ppid=P`, `DLOP timestamp=... tid=T sid=... base=<hex> libname="..."`.
    ///
    /// ## Why it matters
    /// uftrace fails on a wrong field count and silently mis-parses partial numbers
    /// (`1.5` is read as 1 s + 5 ns).
    ///
    /// ## What readers do
    /// uftrace reads `task.txt` with sscanf per line type: a missing field fails the line (and with
    /// it the session or task), a partial number is read as its prefix (from source: utils/session.c
    /// read_task_txt_file, v0.9-v0.18).
    pub TASK_LINE_MALFORMED = ("UF030", "task-line-malformed", Error, "a `task.txt` line does not match its grammar");
    /// ## What it checks
    /// Every `task.txt` line starts with SESS, TASK, FORK or DLOP. A line shaped like a record
    /// of a newer type (`TYPE key=value ...`) is UF027 instead.
    ///
    /// ## Why it matters
    /// Unknown lines are skipped silently by uftrace; they usually are damage.
    ///
    /// ## What readers do
    /// uftrace skips lines of an unknown type without a word: the data reads the same (from source:
    /// read_task_txt_file).
    pub TASK_UNKNOWN_LINE = ("UF031", "task-unknown-line", Warning, "a `task.txt` line of unknown type");
    /// ## What it checks
    /// `task.txt` has at least one SESS line and the first SESS precedes every other line.
    ///
    /// ## Why it matters
    /// Without a session uftrace stops with EINVAL (older versions crashed, #469); a task line
    /// before its session has no symbols.
    ///
    /// ## What readers do
    /// uftrace 0.13 stops with EINVAL ("Invalid argument"); older versions crashed on a NULL
    /// session (#469, fixed by 7b5bf234) (from source: open_data_file `sessions->first`).
    pub NO_SESSION = ("UF032", "no-session", Error, "`task.txt` has no SESS line before its task lines");
    /// ## What it checks
    /// Every SESS sid has its `sid-<SID>.map`.
    ///
    /// ## Why it matters
    /// uftrace stops with "cannot open maps file".
    ///
    /// ## What readers do
    /// uftrace stops with "cannot open maps file" (from source: utils/session.c read_session_map,
    /// v0.6-v0.18).
    pub SESSION_MAP_MISSING = ("UF033", "session-map-missing", Error, "a session has no `sid-<SID>.map` file");
    /// ## What it checks
    /// Every DLOP line names the sid of a SESS line.
    ///
    /// ## Why it matters
    /// uftrace 0.13 aborts on `ASSERT(s)` for a DLOP of an unknown session.
    ///
    /// ## What readers do
    /// uftrace 0.13 aborts on `ASSERT(s)` in session_add_dlopen (verified with uftrace 0.13).
    pub DLOP_UNKNOWN_SESSION = ("UF034", "dlop-unknown-session", Error, "a DLOP line names an unknown session");
    /// ## What it checks
    /// Session ids are exactly 16 lowercase hex digits.
    ///
    /// ## Why it matters
    /// uftrace copies the sid with an unbounded `%s` into a 16-byte stack buffer: a longer sid
    /// overflows the stack (SIGSEGV).
    ///
    /// ## What readers do
    /// uftrace copies the sid with `%s` into a 16-byte stack buffer: a longer sid overflows the
    /// stack (SIGSEGV, verified with uftrace 0.13).
    pub BAD_SID = ("UF035", "bad-sid", Error, "a session id is not 16 lowercase hex digits");
    /// ## What it checks
    /// `task.txt` timestamps never decrease.
    ///
    /// ## Why it matters
    /// Sessions are looked up by time; out-of-order lines attach records to the wrong session.
    ///
    /// ## What readers do
    /// uftrace finds the session of a record by time: out-of-order lines attach records to another
    /// session's symbols (from source: utils/session.c find_task_session).
    pub TASK_TIME_ORDER = ("UF036", "task-time-order", Warning, "a `task.txt` timestamp is earlier than the line before");
    /// ## What it checks
    /// Every TASK/FORK tid has a `<TID>.dat` file.
    ///
    /// ## Why it matters
    /// A task without data is legal: uftrace creates the file with the task's first record, so
    /// a task that wrote none (a filter such as `-F`/`-N`/`-C`/`-T`/`-D`, or a thread that made
    /// no traced call) has none, while `taskinfo:tids` and `task.txt` still list it. The same
    /// directory results when a data file is removed, which no reader can tell apart.
    ///
    /// ## What readers do
    /// uftrace 0.9.4–0.18.1 read the other tasks the same and exit 0 (verified with uftrace
    /// 0.13 on a pthread recording with one `<TID>.dat` removed), and lose every record of the
    /// task. Healthy recordings reach this case (`uftrace record -F worker`, `-N main -N
    /// worker`, `-C leaf`, `-P . -Z 100`), so it is an info, except where nothing filtered:
    /// libmcount lists a task (`UFTRACE_MSG_TASK_START`, `mcount_prepare`) on its first
    /// traced call, before the filters, and without a filter writes that call's record. So
    /// it is an **error** for a task of `taskinfo:tids` when the recording ran to its end
    /// (`exit_status` of 0 or more) and its command line holds only options that filter
    /// nothing (`-d`, `-a`, `-A`, `-R`, `-l`, `-e`, `-b`, `--clock`, `--srcline`,
    /// `--keep-pid`, `-P .`, ...; not `--no-libcall`, with which a forked child that execs at
    /// once writes no record). No recording of the corpus, of 45 recordings of a program of
    /// 4-8 threads (15 option sets), of 20 of a program whose child execs, exits, is killed
    /// or runs `system()` (with and without `--no-libcall`, `-e`, `--no-pltbind`) nor of
    /// the wild samples reaches it; `threads` with `13448.dat` removed does, and every
    /// uftrace loses the task's records.
    pub TASK_WITHOUT_DATA = ("UF037", "task-without-data", Info, "a task of `task.txt` has no `<TID>.dat` file");
    /// ## What it checks
    /// Every `<TID>.dat` with records has its tid in `taskinfo:tids`, and every listed tid
    /// with a data file has a TASK (or FORK) line in `task.txt`. (An empty `<TID>.dat` that
    /// neither lists is only a file uftrace does not use: `UF003`.)
    ///
    /// ## Why it matters
    /// uftrace opens the data files of the tids in `taskinfo:tids` only, and looks their task
    /// up in `task.txt`: records of an unlisted tid are lost without notice, and a task it does
    /// not know has no session, so nothing of it resolves and several commands dereference
    /// the missing task.
    ///
    /// ## What readers do
    /// Verified with uftrace 0.13: with a tid left out of `taskinfo:tids`, `replay` shows none
    /// of its records and says nothing; with a TASK line removed, `replay` and `dump` show the
    /// task's records as raw addresses, `dump --chrome` and `report --task` crash (SIGSEGV).
    pub STRAY_TASK_DATA = ("UF038", "stray-task-data", Error, "a `<TID>.dat` file belongs to no task of `task.txt` or `taskinfo`");
    /// ## What it checks
    /// A FORK's parent is a known task, and tids are not reused except by a TASK after exec.
    ///
    /// ## Why it matters
    /// Fork children inherit the parent's session until their own; an unknown parent leaves
    /// the child's first records without symbols.
    ///
    /// ## What readers do
    /// uftrace gives a fork child its parent's session until its own; with an unknown parent the
    /// child's first records print as raw addresses (from source: utils/session.c).
    pub TASK_RELATION = ("UF039", "task-relation", Warning, "a FORK names an unknown parent or a tid is defined twice");
    /// ## What it checks
    /// Each `sid-*.map` line parses as `START-END PROT OFFSET DEV INODE PATH [build-id:<40 hex>]`
    /// with START < END and a `[r-][w-][x-][ps]` protection.
    ///
    /// ## Why it matters
    /// uftrace skips lines it cannot parse (their module then resolves nothing) and reads the
    /// protection and build-id with unbounded `%s` into small buffers.
    ///
    /// ## What readers do
    /// uftrace reads a map line with `sscanf("%lx-%lx %s %*x %*x:%*x %*d %s %s")` and skips a line
    /// it cannot read; it reads the protection and build-id with unbounded `%s` into small
    /// buffers (from source: utils/session.c read_session_map, v0.6-v0.18). The level follows
    /// the case:
    /// - **error**: a protection longer than 4 bytes or a build-id word longer than 50 overflows
    ///   uftrace's stack buffers (Debian's uftrace 0.13 aborts, campaign), whatever the module;
    /// - **error** when the trace enters the module the line names and uftrace cannot read the
    ///   line, its range is empty or reversed, or its protection or build-id is malformed (the
    ///   module's functions are not named as recorded);
    /// - **warning** for those lines when no record of the trace lies in the module they name
    ///   (every reader reads the same, campaign); a line naming no module with a symbol table
    ///   stays an error;
    /// - **warning**: the offset, device or inode are digits that do not parse as values (uftrace
    ///   skips those fields), or a `[...]` line's range is empty (uftrace only takes its address
    ///   as the kernel boundary): every reader reads the same.
    pub MAP_LINE_MALFORMED = ("UF040", "map-line-malformed", Error, "a session map line does not parse");
    /// ## What it checks
    /// A session map has exactly one `[stack]` line. The real recordings list the
    /// executable-segment lines of each module (offset, device and inode zeroed, a
    /// ` build-id:` suffix) and the `[stack]` line last; uftrace 0.13 needs that line to compute
    /// the kernel address boundary.
    ///
    /// ## Why it matters
    /// Without it the kernel base stays 0, every address is classified as a kernel address and
    /// no user symbol resolves (silently: replay shows raw `<addr>`).
    ///
    /// ## What readers do
    /// uftrace 0.13 derives the kernel address boundary from `[stack]`: without it every address
    /// counts as a kernel address and nothing resolves (verified with uftrace 0.13).
    pub MAP_NO_STACK = ("UF041", "map-no-stack", Error, "a session map has no (or more than one) `[stack]` line");
    /// ## What it checks
    /// Module lines of a session map are sorted and do not overlap.
    ///
    /// ## Why it matters
    /// Overlapping modules make address resolution ambiguous.
    ///
    /// ## What readers do
    /// uftrace looks modules up in map order: with overlapping lines an address resolves in the
    /// first one; the records read the same (from source: utils/symbol.c find_map).
    pub MAP_OVERLAP = ("UF042", "map-overlap", Warning, "session map lines overlap or are out of order");
    /// ## What it checks
    /// The session's executable (SESS `exename`) appears in its map.
    ///
    /// ## Why it matters
    /// Without it the program's own functions do not resolve.
    ///
    /// ## What readers do
    /// uftrace resolves the program's own functions through its map line: without it they print
    /// as raw addresses (from source: utils/session.c).
    pub MAP_MISSING_EXE = ("UF043", "map-missing-exe", Warning, "the session's executable is not in its map");
    /// ## What it checks
    /// Each mapped module (except uftrace's own libmcount and libstdc++, which uftrace does not
    /// save for C programs) has a `.sym` file, and every `sid-*.map` belongs to a SESS line.
    ///
    /// ## Why it matters
    /// Without the `.sym`, uftrace reads the ELF file of the host, which may differ from the
    /// recorded one or be absent. An orphan map is left over from another recording.
    ///
    /// ## What readers do
    /// uftrace falls back to the ELF file at the recorded path on the host (from source:
    /// utils/symbol.c load_module_symbol); it skips libmcount and, for C programs, libstdc++.
    pub MODULE_WITHOUT_SYMBOLS = ("UF044", "module-without-symbols", Info, "a mapped module has no `.sym` file, or a map belongs to no session");
    /// ## What it checks
    /// A session map path contains a space (a directory or file name with spaces, or a
    /// ` (deleted)` suffix that uftrace 0.6-0.9 copied from `/proc/self/maps`).
    ///
    /// ## Why it matters
    /// uftrace reads the path with `%s`, that is up to the first space: the module is known
    /// by that prefix, and its `.sym` is looked up under the prefix's base name.
    ///
    /// ## What readers do
    /// Every uftrace version reads the line (`sscanf(... %s %s)`) and keeps the first word as
    /// the module path; addresses of the module then resolve only if a `.sym` of that name
    /// exists (from source: utils/session.c read_session_map, v0.6-v0.18).
    ///
    /// ## Spec
    /// docs/uftrace.md (session maps).
    pub MAP_PATH_WITH_SPACES = ("UF045", "map-path-with-spaces", Info, "a session map path contains a space");
    /// ## What it checks
    /// A `.sym` file starts with `# symbols: N` and `# path name: PATH` (and optionally
    /// `# build-id: <40 hex>`).
    ///
    /// ## Why it matters
    /// The path and build-id pick the right file for a module; without them uftrace falls back
    /// to the host's ELF file.
    ///
    /// ## What readers do
    /// uftrace loads a `.sym` without (or with part of) the header all the same: the count is a
    /// hint and without `# path name:` nothing is compared (from source: utils/symbol.c
    /// load_module_symbol_file, check_symbol_file, v0.10-v0.18).
    pub SYM_HEADER = ("UF050", "sym-header", Warning, "a `.sym` file lacks its `# symbols:` / `# path name:` header");
    /// ## What it checks
    /// Each `.sym` line is `<16 hex addr> [<8 hex size> ]<type> <name>` with a type among
    /// `?TtwPKDdvu`; each `kallsyms` line is `<hex addr> <type> <name>` (at most eight
    /// malformed `kallsyms` lines are reported).
    ///
    /// ## Why it matters
    /// uftrace skips malformed lines silently; their functions then print as raw addresses.
    ///
    /// ## What readers do
    /// uftrace 0.9.4–0.18.1 (`load_module_symbol_file`) read a line with `strtoull` of a hex address
    /// of any length, a space, the type (a digit starts a hex size), a space and the name, and skip
    /// lines of other types without a word. The level follows the case:
    /// - **warning**: tracelint's stricter layout is broken but uftrace reads the line all the same;
    /// - **warning**: uftrace skips the line for a type that is never a function's (`nm` data,
    ///   bss, absolute and undefined symbols), or skips it in a module no record of the trace
    ///   lies in: every reader reads the same;
    /// - **error**: uftrace skips the line in a module the trace enters: addresses in that
    ///   symbol print under the symbol before it.
    pub SYM_LINE_MALFORMED = ("UF051", "sym-line-malformed", Error, "a `.sym` line does not parse");
    /// ## What it checks
    /// `# symbols: N` equals the number of real (non-marker) symbol lines and stays below the
    /// entry limit.
    ///
    /// ## Why it matters
    /// uftrace preallocates N entries: a huge N makes it fail with "Cannot allocate memory".
    ///
    /// ## What readers do
    /// uftrace 0.9.4–0.18.1 preallocate `# symbols:` entries of 24 bytes and grow the table when
    /// there are more lines. The level follows the case:
    /// - **warning**: the count is below the lines (every line is read all the same), or above
    ///   them in a module no record of the trace lies in;
    /// - **error**: the count is above the lines in a module the trace enters: lines are missing,
    ///   and uftrace sizes each symbol up to the next line, so calls into a missing function
    ///   print under the name before it (campaign: deleted lines);
    /// - **error**: the count asks for 4 GiB or more: uftrace stops with `xrealloc: Cannot allocate
    ///   memory` (verified with uftrace 0.13, 0.16, 0.18.1 in the campaign).
    pub SYM_COUNT_MISMATCH = ("UF052", "sym-count-mismatch", Error, "`# symbols:` does not match the symbol lines");
    /// ## What it checks
    /// Symbol addresses are sorted. (Functions whose size reaches past the next symbol are not
    /// reported: uftrace saves the ELF symbols as they are, and real libraries have them.)
    ///
    /// ## Why it matters
    /// uftrace writes them sorted; disorder points at a foreign or edited table.
    ///
    /// ## What readers do
    /// uftrace 0.9.4–0.18.1 size each symbol up to the next line in file order, then sort and
    /// look up by binary search. A line tracelint finds malformed but uftrace reads (an address
    /// not of 16 digits) is placed where uftrace reads it. The level follows the case:
    /// - **error**: the trace enters the module: some of its addresses find the wrong symbol
    ///   (argument specs attach to the wrong function, records are dropped; campaign);
    /// - **warning**: no record lies in the module: every reader reads the same.
    pub SYM_ORDER = ("UF053", "sym-order", Warning, "`.sym` symbols are out of order");
    /// ## What it checks
    /// The `.sym` path name and build-id match the session map line of that module.
    ///
    /// ## Why it matters
    /// A table of another build of the library resolves addresses to wrong names.
    ///
    /// ## What readers do
    /// uftrace 0.13–0.18.1 (`check_symbol_file`, `load_module_symbol`) compare the `.sym` path
    /// and build-id with the map's (`strcmp`) and, when they differ, look for
    /// `<name>-<build-id>.sym`, else read the host's ELF file; uftrace 0.9.4 does not compare.
    /// The header is read as uftrace reads it: a damaged build-id is compared as it is, and a
    /// second `# build-id:` line keeps only 39 characters. The level follows the case:
    /// - **error**: the trace enters the module: its functions print as `<addr>` unless the ELF
    ///   file at the recorded path is on the reading machine (campaign);
    /// - **warning**: no record lies in the module.
    ///
    /// A `.dbg` file is matched the same way (`match_debug_file`: its last header line, path
    /// name or build-id, against the module): one of another build is reported here as a
    /// warning and its argument specs are not used, so records with payloads of its functions
    /// fail on their own (UF068).
    pub SYM_MODULE_MISMATCH = ("UF054", "sym-module-mismatch", Warning, "a `.sym` header disagrees with the session map");
    /// ## What it checks
    /// Recognises `.sym` files in the layout of an older writer: no header at all (uftrace up
    /// to 0.9.2) or a `# symbols:` line without `# path name:` (uftrace 0.9.3 and 0.9.4, and
    /// development builds before 0.10).
    ///
    /// ## Why it matters
    /// Such a file names no module: readers use it for the module of that base name without
    /// checking path or build-id.
    ///
    /// ## What readers do
    /// uftrace loads the file all the same (the header is optional to `load_module_symbol_file`)
    /// and, without a `# path name:`, `check_symbol_file` finds nothing to compare, so the
    /// file is used as it is (from source: utils/symbol.c, v0.9-v0.18).
    ///
    /// ## Spec
    /// docs/uftrace.md (`.sym` layouts).
    pub SYM_LEGACY_LAYOUT = ("UF057", "sym-legacy-layout", Info, "a `.sym` file in the header-less layout of uftrace before 0.10");
    /// ## What it checks
    /// Symbol lines with an empty name (`0000000000021050 P `).
    ///
    /// ## Why it matters
    /// uftrace before 0.9 saved PLT entries of relocations without a symbol (IRELATIVE) with an
    /// empty name; uftrace 0.9 and later skip them when saving.
    ///
    /// ## What readers do
    /// uftrace loads the line as a symbol with an empty name; addresses in it print with no
    /// name (from source: utils/symbol.c load_module_symbol_file, v0.6-v0.18).
    ///
    /// ## Spec
    /// docs/uftrace.md (`.sym` layouts).
    pub SYM_EMPTY_NAME = ("UF058", "sym-empty-name", Info, "a `.sym` symbol line has an empty name");
    /// ## What it checks
    /// Each `.dbg` line is a `#` header or `X: payload` with X among F, L, A, R, E, and A/R/L
    /// lines follow an F line; the file ends with a newline.
    ///
    /// ## Why it matters
    /// uftrace aborts loading the whole file on a bad line (the argument specs are then lost)
    /// and chops the last character of every line.
    ///
    /// ## What readers do
    /// uftrace 0.9.4–0.18.1 (`read_debug_file`, utils/dwarf.c) give up on a line that is not
    /// `X: `, has an unknown code, an `A:`/`R:` before any `F:` or an `E:` that does not parse,
    /// and then drop every argument spec of the file; a second `A:` (or `R:`) for one function
    /// address drops that function's spec ("debug entry: conflict"). Records with payloads of
    /// those functions then stop with "record missing argument info" (UF068 on the record).
    pub DBG_LINE_MALFORMED = ("UF055", "dbg-line-malformed", Error, "a `.dbg` line does not parse");
    /// ## What it checks
    /// Each `.dbg` `F:` address is the start of a function of the module's `.sym`.
    ///
    /// ## Why it matters
    /// Argument specs of unknown functions are never applied.
    ///
    /// ## What readers do
    /// uftrace keys `.dbg` entries by address: an entry of no function is never used (from
    /// source: utils/dwarf.c).
    pub DBG_UNKNOWN_FUNCTION = ("UF056", "dbg-unknown-function", Warning, "a `.dbg` entry names no function of the module");
    /// ## What it checks
    /// A `<TID>.dat` is a whole number of records and payloads: the last record and its
    /// argument or event payload are complete.
    ///
    /// ## Why it matters
    /// uftrace silently drops a partial record at the end: data was lost when the recording
    /// was cut (disk full, crash, copy interrupted).
    ///
    /// ## What readers do
    /// uftrace drops a partial record at the end without a word (from source: utils/fstack.c
    /// read_task_ustack / read_task_args).
    pub DAT_TRUNCATED = ("UF060", "dat-truncated", Error, "a task data file ends inside a record or payload");
    /// ## What it checks
    /// Every record's magic field (bits 3-5 of the second word) is 5.
    ///
    /// ## Why it matters
    /// uftrace warns "invalid rstack read" and drops the rest of the task: the stream is out of
    /// step (often a payload of the wrong size before it).
    ///
    /// ## What readers do
    /// uftrace warns "invalid rstack read" and drops the rest of the task (from source:
    /// utils/fstack.c, v0.6-v0.18; verified with uftrace 0.13).
    pub BAD_RECORD_MAGIC = ("UF061", "bad-record-magic", Error, "a task record's magic is not 5");
    /// ## What it checks
    /// LOST records: reports each one (records were dropped by the recorder), and checks that
    /// time, depth and `more` are 0 and the count is positive.
    ///
    /// ## Why it matters
    /// The trace is incomplete: nesting and durations around the gap are unknown.
    ///
    /// ## What readers do
    /// uftrace shows the LOST record ("LOST N records!!") where it happened (from source:
    /// cmds/replay.c). The level follows the case:
    /// - **warning**: a LOST record as libmcount writes it (time 0, more 0; record.c
    ///   0.9.4–0.18.1): the recorder lost records, and every reader reads the same;
    /// - **error**: a LOST record with a time or a payload flag, which libmcount never writes: a
    ///   damaged ENTRY/EXIT that readers print as `LOST` in place of the call (campaign).
    pub LOST_RECORDS = ("UF062", "lost-records", Warning, "the recorder lost records (LOST record)");
    /// ## What it checks
    /// Timestamps within one task file never decrease (LOST records excepted).
    ///
    /// ## Why it matters
    /// uftrace merges tasks by timestamp; a decrease garbles replay and durations ("inverted
    /// time - data seems broken").
    ///
    /// ## What readers do
    /// uftrace merges tasks by time and prints "inverted time - data seems broken"; durations
    /// become wrong (from source: utils/fstack.c).
    pub TIME_BACKWARDS = ("UF063", "time-backwards", Error, "a task record's timestamp is earlier than the one before");
    /// ## What it checks
    /// ENTRY and EXIT records nest: an ENTRY comes at the current depth, an EXIT closes the
    /// innermost open frame at its depth. Legal exceptions: a file that starts with EXITs (fork
    /// child, filters), a depth restart after exec (new session) or after LOST, frames open at
    /// the end, and longjmp (the EXIT of the setjmp frame while the frames the longjmp skipped are
    /// open: the longjmp call itself, or under a depth limit `-D` whatever frame is deepest).
    ///
    /// ## Why it matters
    /// uftrace repairs broken nesting heuristically: durations and call graphs become wrong.
    ///
    /// ## What readers do
    /// uftrace 0.9.4–0.18.1 seed a task's call stack from the recorded depth of its first
    /// record (and after LOST), then count it up and down by ENTRY and EXIT (fstack.c
    /// `stack_count`); `replay` merges an ENTRY with the next EXIT of the same depth into one
    /// line, and `dump` prints the depth as recorded. The level follows the case:
    /// - **error**: an ENTRY at an unexpected depth, an EXIT with inner frames open or with no
    ///   frame at its depth, in a task whose records carry depths: `dump` and `replay` lose or
    ///   misframe the calls around it (campaign: depth and type bits changed);
    /// - **warning**: every record of the task has depth 0, as third-party writers that store
    ///   no depth write (rftrace): `replay`, `graph` and `report` nest the calls by ENTRY/EXIT
    ///   order and read them the same; but an error still when an EXIT comes with no frame open
    ///   by that order after the task's first records (an ENTRY made EXIT in a `-N main -N
    ///   worker` recording, whose calls are all at depth 0: every reader shows it as an EXIT).
    /// The legal exceptions above are not reported.
    pub NESTING_MISMATCH = ("UF064", "nesting-mismatch", Error, "ENTRY/EXIT records do not nest");
    /// ## What it checks
    /// An EXIT has the address of the ENTRY it closes.
    ///
    /// ## Why it matters
    /// A mismatch means records were lost or reordered.
    ///
    /// ## What readers do
    /// uftrace takes the EXIT as closing the frame at its depth but names it by its own address
    /// (from source: utils/fstack.c; cmds/replay.c prints `} /* name */`). The level follows the
    /// case:
    /// - **warning**: both addresses lie in the same function: every reader prints the same;
    /// - **error**: they resolve to different functions (or one to none): the call is printed
    ///   under two names (campaign).
    pub EXIT_ADDRESS_MISMATCH = ("UF065", "exit-address-mismatch", Warning, "an EXIT's address differs from its ENTRY's");
    /// ## What it checks
    /// Record depth stays below `max_stack`.
    ///
    /// ## Why it matters
    /// Old uftrace versions overflowed the heap on deep records (#997, #1103); the writer
    /// corrupts addresses at depth ≥ 1024.
    ///
    /// ## What readers do
    /// uftrace before 0.9.4 overflowed its heap in `fstack_account_time` on records deeper than
    /// `max_stack` (#997, #1103; fixed by a329066d); uftrace 0.13 reads depth 1023 without a
    /// word (verified with uftrace 0.13).
    pub DEPTH_EXCEEDS_MAX_STACK = ("UF066", "depth-exceeds-max-stack", Error, "a record's depth is not below max_stack");
    /// ## What it checks
    /// ENTRY/EXIT addresses lie in a module mapped in the task's session and inside a symbol of
    /// that module's `.sym`; records come after a session applies to the task.
    ///
    /// ## Why it matters
    /// uftrace prints unresolved addresses as `<addr>`: the symbol table or map does not belong
    /// to this data.
    ///
    /// ## What readers do
    /// uftrace prints an address that resolves to no symbol as `<addr>`, so the function's name
    /// is lost. The level follows the case:
    /// - **error**: the address lies in a mapped module whose `.sym` file is missing (uftrace
    ///   0.9.4–0.18.1 fall back to the ELF file at the recorded path, absent on most machines
    ///   that read the recording), or whose `.sym` has no symbol for it (a symbol line lost);
    /// - **error**: the record has no session in force: uftrace (utils/session.c) gives a task
    ///   the latest session of its pid that starts no later than its TASK/FORK line and was
    ///   defined before it, else its parent's; a record is looked up in its task's sessions, then
    ///   its parent's. Nothing of a record outside them resolves;
    /// - **error**: the address lies in no module of the session map: uftrace 0.9.4–0.18.1
    ///   print it as `<addr>` (campaign: changed addresses);
    /// - **error**: the address lies inside a PLT entry (`P` symbol) but not at its start:
    ///   libmcount's PLT hook records each entry's own address (`libmcount/plthook.c`,
    ///   `child_ip = sym->addr`), so the `.sym` file and the records disagree, and uftrace
    ///   0.9.4–0.18.1 print the call under the entry that covers the address, another function
    ///   than was called (campaign: a moved `P` line).
    pub UNRESOLVED_ADDRESS = ("UF067", "unresolved-address", Error, "a record address resolves to no symbol of the task's session");
    /// ## What it checks
    /// An ENTRY/EXIT with `more=1` has an argument spec (from `info` argspec/retspec/auto lines
    /// or `.dbg` A:/R: lines) for its function, so its payload can be framed. Patterns match
    /// the demangled name as in uftrace; where a C++ name cannot be demangled here and a pattern
    /// might match it, the rest of the file is left unchecked instead.
    ///
    /// ## Why it matters
    /// uftrace stops with "record missing argument info for <func>": the payload has no length
    /// of its own.
    ///
    /// ## What readers do
    /// uftrace stops with "record missing argument info for <func>": without a spec the payload
    /// has no length (from source: utils/fstack.c read_task_args; verified with uftrace 0.13).
    /// The `argauto`/`retauto` lines count only with the AUTO_ARGS feature bit: uftrace
    /// 0.9.4–0.18.1 set the auto-args list up only then (utils/data-file.c), so with the bit
    /// cleared `malloc`'s payload in an `-a` recording has no spec (campaign: the bit cleared).
    pub PAYLOAD_WITHOUT_SPEC = ("UF068", "payload-without-spec", Error, "a record has an argument payload but no argument spec matches its function");
    /// ## What it checks
    /// An argument or return-value payload framed from its spec stays within the recorder's
    /// 1020-byte buffer, and string lengths fit it.
    ///
    /// ## Why it matters
    /// A larger payload cannot come from libmcount; the stream is out of step and uftrace's
    /// argument printing overflows (#919, #993).
    ///
    /// ## What readers do
    /// uftrace frames the payload from the spec: an impossible length means the stream is out of
    /// step, and argument printing overflows (#919, #993).
    pub PAYLOAD_SIZE = ("UF069", "payload-size", Error, "an argument payload is larger than the recorder can write");
    /// ## What it checks
    /// `more=1` appears only on ENTRY, EXIT and EVENT records, and not in version 3 data.
    ///
    /// ## Why it matters
    /// uftrace ignores the flag on LOST records and version 3 has no payloads: the bytes that
    /// follow are read as records.
    ///
    /// ## What readers do
    /// uftrace ignores `more` on LOST records and version 3 data has no payloads: the bytes after
    /// such a record are read as records (from source: utils/fstack.c).
    pub UNEXPECTED_PAYLOAD_FLAG = ("UF070", "unexpected-payload-flag", Error, "`more=1` on a record that cannot have a payload");
    /// ## What it checks
    /// An EVENT with a payload has a known id and the payload length its id requires
    /// (statm 24, page-fault 16, pmu 16, watch:cpu 4...).
    ///
    /// ## Why it matters
    /// uftrace 0.13 aborts on `ASSERT(len == buflen)` for a wrong length and stops with
    /// "unknown event has data" for an unknown id.
    ///
    /// ## What readers do
    /// uftrace 0.13 aborts on `ASSERT(len == buflen)` for a wrong length and stops with "unknown
    /// event has data" for an unknown id (verified with uftrace 0.13).
    pub EVENT_PAYLOAD = ("UF071", "event-payload", Error, "an EVENT payload has the wrong length or an unknown id");
    /// ## What it checks
    /// EVENT ids in task data are builtin (100001-100013) or user SDT ids (≥ 1000000) listed in
    /// `events.txt`, and events have depth 0.
    ///
    /// ## Why it matters
    /// Kernel and perf ids never come from task data; unlisted user ids print as unknown.
    ///
    /// ## What readers do
    /// uftrace prints an unknown id as a number: the data reads the same (from source:
    /// utils/event.c).
    pub UNKNOWN_EVENT_ID = ("UF072", "unknown-event-id", Warning, "an EVENT id is not valid in task data or not listed in events.txt");
    /// ## What it checks
    /// A task's first record is not earlier than the timestamp of its TASK (or FORK) line in
    /// `task.txt`.
    ///
    /// ## Why it matters
    /// uftrace writes the TASK line when the task starts, before any of its records. A FORK line
    /// can come late: with `-e` (`--estimate-return`) uftrace 0.13 writes the child's FORK line
    /// after the child's first records.
    ///
    /// ## What readers do
    /// uftrace 0.9.4–0.18.1 look a record's session up in the task's own sessions (from its
    /// TASK/FORK line on), then in its parent's (utils/session.c `find_task_session`): a fork
    /// child's records before its FORK line resolve in the parent's session, and every name
    /// prints (verified with uftrace 0.13 on `record -e` and `record -e --keep-pid` of a
    /// fork+exec program). The level follows the case:
    /// - **info**: a FORK child whose parent has a session at that time (uftrace `-e` writes
    ///   this);
    /// - **warning**: a TASK line stamped after its task's records; records that no session
    ///   covers are reported one by one as `UF067` errors, since only those lose their names.
    pub TASK_STARTS_AFTER_RECORDS = ("UF073", "task-starts-after-records", Warning, "a task's first record is earlier than its TASK line");
    /// ## What it checks
    /// How many calls of a task are still open (an ENTRY without its EXIT) where its data file
    /// ends.
    ///
    /// ## Why it matters
    /// A task that ends inside calls left them without returning: `exit()` from inside `main`,
    /// a signal, a `-T ...@finish` trigger, a recorder that was killed, or a data file cut at a
    /// record boundary. Only the last two lose records, and nothing in the directory tells them
    /// from the others, so this is a note that says how many calls are open.
    ///
    /// ## What readers do
    /// uftrace 0.9.4–0.18.1 print the open calls without their closing line, `replay` ends with
    /// "uftrace stopped tracing with remaining functions" and lists them, and every record
    /// before the end reads the same (verified with uftrace 0.13 on `trigger-finish` and on a
    /// task file cut to its first records).
    pub FRAMES_OPEN_AT_END = ("UF074", "frames-open-at-end", Info, "a task's data ends with calls still open");
    /// ## What it checks
    /// perf records have a size of at least 8, a multiple of 8, within the file, and the size
    /// their type requires (COMM 40-48, EXIT/FORK 48, SWITCH 24).
    ///
    /// ## Why it matters
    /// uftrace 0.13 loops forever (ignoring SIGTERM) on a size-0 record of unknown type, and
    /// aborts with a buffer overflow on an oversized COMM/FORK/EXIT/SWITCH.
    ///
    /// ## What readers do
    /// uftrace 0.13 loops forever (ignoring SIGTERM) on a size-0 record of unknown type and aborts
    /// with a buffer overflow on an oversized COMM/FORK/EXIT/SWITCH (verified with uftrace 0.13).
    pub PERF_RECORD_SIZE = ("UF080", "perf-record-size", Error, "a perf record size is zero, unaligned, too large or wrong for its type");
    /// ## What it checks
    /// A perf file ends exactly at a record boundary.
    ///
    /// ## Why it matters
    /// A partial record at the end is lost data.
    ///
    /// ## What readers do
    /// uftrace drops the partial record at the end without a word (from source: utils/perf.c).
    pub PERF_TRUNCATED = ("UF081", "perf-truncated", Error, "a perf file ends inside a record");
    /// ## What it checks
    /// perf record times (sample_id) never decrease within one file, and misc flags are valid
    /// for the type.
    ///
    /// ## Why it matters
    /// Scheduling events are merged with task records by time.
    ///
    /// ## What readers do
    /// uftrace merges perf records with task records by time: out-of-order records show at the
    /// wrong place; none is lost (from source: utils/perf.c).
    pub PERF_TIME_ORDER = ("UF082", "perf-time-order", Warning, "a perf record's time is earlier than the one before");
    /// ## What it checks
    /// Every perf record is of a type uftrace's perf event gives: COMM, EXIT, FORK, SWITCH or
    /// LOST (LOST has its fixed size of 40 bytes).
    ///
    /// ## Why it matters
    /// uftrace records a dummy software event with `task`, `comm`, `context_switch` and
    /// `sample_id_all` set and nothing sampled (utils/perf.c `open_perf_event`): the kernel
    /// writes no other record type into its buffers, so another type is a damaged header. The
    /// record itself is framed by its size and the records after it still read.
    ///
    /// ## What readers do
    /// uftrace 0.9.4, 0.13, 0.16 and 0.18.1 skip a record of another type (`read_perf_event`,
    /// "skip unknown event"):
    /// - **error** when the record is of a task uftrace reads (by its size: the tid of a
    ///   FORK/EXIT body, the trailer of a SWITCH, the tid of a COMM body): a SWITCH record of
    ///   `threads` whose type was made 4660 lost its `sched-in` event in `dump` (5 events of
    ///   task 13448 became 4; verified with the four versions).
    /// - **warning** when it is of a task without a data file, whose events uftrace drops
    ///   anyway (`idle-thread`: the EXIT of thread 16213 made type 4660 dumps the same).
    pub PERF_RECORD_TYPE = ("UF083", "perf-record-type", Error, "a perf record has a type uftrace's perf event never gives");
    /// ## What it checks
    /// The task ids of each perf record agree the way the kernel writes them
    /// (kernel/events/core.c `perf_event_task_output`, `perf_event_comm_output`), and every
    /// task an event is read for was created inside the recording:
    /// - FORK: the trailer is the parent (its pid and tid are the body's `ppid` and `ptid`),
    ///   and the child is a new process (`pid == tid`) or a thread of the parent (`pid ==
    ///   ppid`);
    /// - EXIT: the trailer is the exiting task (`pid`, `tid`), `ppid == ptid`;
    /// - COMM from an exec: the body and the trailer are one task, the leader of its process
    ///   (`pid == tid`);
    /// - the task of every SWITCH, COMM and EXIT (the one uftrace reads it for) is the child of
    ///   a FORK or the task of an exec COMM in the perf files (uftrace enables its event at the
    ///   exec of the traced program, so every task after it is forked inside the recording).
    ///
    /// Where a record disagrees, the field uftrace reads decides the level.
    ///
    /// ## Why it matters
    /// uftrace files each perf event under the task of the body's tid (COMM, FORK, EXIT) or the
    /// trailer's (SWITCH) and drops events of a task it does not know: a changed tid moves an
    /// event to another task or loses it.
    ///
    /// ## What readers do
    /// - **error**: the tid uftrace reads is the one that disagrees, or names a task that
    ///   nothing created: an EXIT whose body tid of `threads` was made 9999 is lost (task 13448
    ///   shows 4 events of 5); a SWITCH whose trailer tid was made another task's shows under
    ///   that task (13448: 4 events, 13449: 8 of 7; verified with uftrace 0.9.4, 0.13, 0.16,
    ///   0.18.1).
    /// - **warning**: only a field uftrace does not read disagrees (a trailer of a FORK, EXIT or
    ///   COMM, a FORK child's pid): every version reads the same events.
    /// - Not checked after a LOST record (the kernel dropped records, a FORK among them perhaps).
    pub PERF_TASK_IDS = ("UF084", "perf-task-ids", Error, "a perf record's task ids disagree, or name a task the recording never created");
    /// ## What it checks
    /// Per task, the SWITCH records of all perf files in time order alternate between
    /// switched out and switched in: a task cannot be switched out (or in) twice in a row. And
    /// a task whose last switch is out runs no more code, so its data file has no record after
    /// that time (a task that exits writes its EXIT while it runs, and its perf event goes
    /// with it: its last switch is in); nor, in a recording that ran to its end
    /// (`exit_status` of 0 or more) without `-e` (whose EXIT times are estimated), a record
    /// strictly between a switch-out and the task's next switch-in. Every healthy recording of
    /// the corpus (every producer option), 45 recordings of a program of 4-8 threads that
    /// yield and sleep (15 option sets) and the wild samples hold all three; a LOST record
    /// lifts the check. In an archive read as a stream, the records of a run the first pass
    /// verified are checked by its first and last times.
    ///
    /// ## Why it matters
    /// Two switches of one direction in a row mean a SWITCH record of the task was damaged
    /// (its direction bit, its tid, its time) or lost.
    ///
    /// ## What readers do
    /// uftrace reads the direction from the misc bit: a switch-out whose bit was cleared shows
    /// as a second `sched-in` (`threads`, task 13448: `sched-in, sched-in, sched-in`; verified
    /// with uftrace 0.9.4, 0.13, 0.16, 0.18.1), and a switch filed under another task leaves
    /// its own task with two switch-ins in a row. A perf file cut at a record boundary leaves
    /// a task switched out for good while its records go on (`threads` with `perf-cpu1.dat`
    /// cut after 13 records: task 13446 loses its last `sched-in` and `task-exit` in every
    /// version). A switch-in and the switch-out after it cut out of a perf file leave the
    /// task's records of that stretch inside a switched-out one (`srcline-threads`
    /// `perf-cpu0.dat` 0x150..0x180: every version loses the two events of task 16268). A
    /// warning for a task without a data file: uftrace drops its events anyway.
    pub PERF_SWITCH_ORDER = ("UF085", "perf-switch-order", Error, "a task is switched out (or in) twice in a row in the perf files");
    /// ## What it checks
    /// Every thread a FORK record creates in a process whose leader's EXIT is recorded has an
    /// EXIT record of its own; and when the traced program's task (the first exec) has its
    /// EXIT, or `info`'s `exit_status` is a wait status (0 or more: `uftrace record` saw the
    /// program exit, cmds/record.c `stop_tracing`; or -1 with `--keep-pid`, where the program
    /// is not the recorder's child and the recorder ends once every task has exited), every
    /// task of `task.txt` has one:
    /// `uftrace record` waits until each task it was told of has exited (`check_tid_list`)
    /// before it reads the perf buffers a last time. Every healthy recording
    /// of the corpus and of the wild samples has them (a recording stopped early, such as a
    /// wild sample whose tasks have no EXIT at all, has `exit_status:-1` and no EXIT of the
    /// leader either); a LOST record lifts the check.
    ///
    /// ## Why it matters
    /// A process ends when its last thread does, and each thread writes its own EXIT
    /// (kernel/events/core.c `perf_event_exit_task`): one missing means the perf file that
    /// held the thread's last records was cut (at a record boundary, so nothing else tells)
    /// or removed, or the record was damaged.
    ///
    /// ## What readers do
    /// - **error** for a thread uftrace reads (a data file of `taskinfo:tids`): uftrace 0.9.4,
    ///   0.13, 0.16 and 0.18.1 show it without the records that were cut (`srcline-threads`
    ///   with `perf-cpu1.dat` cut after its first 6 records: thread 16270 lost its `sched-in`
    ///   and `task-exit`).
    ///   `fork-noexec` with `perf-cpu0.dat` cut after its first record: the forked process
    ///   16187 lost 4 switches and its `task-exit`.
    /// - **warning** for a task uftrace does not read: it drops its events either way.
    pub PERF_TASK_EXIT = ("UF086", "perf-task-exit", Error, "a task has no EXIT record though its process or the traced program exited");
    /// ## What it checks
    /// A recording with the `PERF_EVENT` feature has one `perf-cpu<N>.dat` for each of the
    /// online CPUs `info`'s `cpuinfo:nr_cpus=<online> / <possible>` counts, `N` from 0:
    /// `uftrace record` opens every one of them when it starts (utils/perf.c
    /// `setup_perf_record`, 0.8.3–0.18.1), and leaves the file of a CPU its tasks never ran
    /// on empty. Every recording of the corpus (every producer option, 49 with perf files), the
    /// option-matrix recordings and the wild samples has them all. Not checked when the
    /// command line has `--host`: `uftrace recv` writes the files it is sent, and a recorder
    /// sends nothing for an idle CPU (`corpus/uftrace/recv-host` has one of two).
    ///
    /// ## Why it matters
    /// A missing file is a file removed or lost in a copy; the events it held are gone.
    ///
    /// ## What readers do
    /// uftrace 0.9.4–0.18.1 read the `perf-cpu*.dat` files there are (a glob): the events of a
    /// missing file that held any are lost, and those of an empty one were none. The directory
    /// cannot tell which, so this is a warning; where the other perf files and the task data
    /// show that the task ran on a CPU whose records are missing (a record of a task inside a
    /// stretch it was switched out, `UF085`, or a task without its EXIT, `UF086`) that is an
    /// error.
    pub PERF_FILE_MISSING = ("UF087", "perf-file-missing", Warning, "a `perf-cpu<N>.dat` of an online CPU is missing");
    /// ## What it checks
    /// `kernel_header` has the `PAGE_SIZE:`, `LONG_SIZE:` and `ENDIAN:` lines followed by
    /// `TRACEFS: <path>: <len>` blocks of at most 4096 bytes within the file; each
    /// `.../format` block has a `name:` and a numeric `ID:` line. The formats become the event
    /// table the `kernel-cpuN.dat` records are checked against (`TD110`, `TD111`).
    ///
    /// ## Why it matters
    /// uftrace 0.13 reads each block into a 4096-byte stack buffer without checking the
    /// length: a larger length aborts it (buffer overflow). A format without an id leaves the
    /// kernel records of that event undecodable.
    ///
    /// ## What readers do
    /// uftrace 0.13 reads each block into a 4096-byte stack buffer: a larger length aborts it
    /// (buffer overflow, verified with uftrace 0.13).
    pub KERNEL_HEADER = ("UF090", "kernel-header", Error, "`kernel_header` is malformed or has an oversized block");
    /// ## What it checks
    /// `kernel-cpuN.dat` files are a whole number of pages and CPU numbers are contiguous from
    /// 0. The pages themselves are walked with the shared ftrace ring-buffer walker, whose
    /// findings carry the `TD1xx` ring-buffer codes; record event ids and payload lengths are
    /// checked against the event formats in `kernel_header` (`TD111`, `TD110`).
    ///
    /// ## Why it matters
    /// Kernel data is read page by page; a partial page or impossible commit is damage.
    ///
    /// ## What readers do
    /// uftrace reads kernel data page by page through libtraceevent: a partial page or bad commit
    /// loses or misreads the events of that page (from source: utils/kernel.c).
    pub KERNEL_DATA = ("UF091", "kernel-data", Error, "a kernel data file is not a whole number of valid ring-buffer pages");
    /// ## What it checks
    /// `events.txt` lines are `EVENT: <id> <provider>:<event>`, `extern.dat` lines are
    /// `<sec>.<nsec> <message>` (or `#` comments), and lines are shorter than 512 bytes.
    ///
    /// ## Why it matters
    /// uftrace scans these lines into 512-byte stack buffers without bounds.
    ///
    /// ## What readers do
    /// uftrace scans these lines into 512-byte stack buffers without bounds: a longer line
    /// overflows the stack (from source: utils/event.c, utils/extern.c).
    pub TEXT_FILE_LINE = ("UF095", "text-file-line", Error, "an `events.txt` or `extern.dat` line does not parse");
    /// ## What it checks
    /// `default.opts` holds only the options uftrace writes there (`-t <time>` /
    /// `--time-filter`), one per line.
    ///
    /// ## Why it matters
    /// Analysis commands apply `default.opts` as command-line options: other content changes
    /// how every later `uftrace replay` of the directory behaves.
    ///
    /// ## What readers do
    /// uftrace applies `default.opts` as command-line options of every analysis command: other
    /// content changes what replay shows, not the data (from source: uftrace.c parse_opts).
    /// **error**: a `-t` value whose whole part is 1000 or more (`parse_time(arg, 3)`; a
    /// minus sign wraps in `strtoull`) stops every command: `-t -1ms` and `-t 1000us` make
    /// uftrace 0.9.4, 0.13, 0.16 and 0.18.1 exit with "Limited 3 digits (before and after
    /// decimal point)" (verified on `time-filter-t1ms`; `-t 999us` reads).
    pub DEFAULT_OPTS = ("UF096", "default-opts", Warning, "`default.opts` holds options uftrace does not write there");
}
