//! Rules of the Linux perf.data validator (`PF`).
//!
//! Spec references: Linux `tools/perf/util/header.c` (file header, attrs, features),
//! `util/session.c` (record walk, zstd), `util/evsel.c` (sample parsing),
//! `include/uapi/linux/perf_event.h` (records, `perf_event_attr`),
//! `tools/perf/Documentation/perf.data-file-format.txt`. "perf 6.1" is Debian's `linux-perf`
//! 6.1.187; "verified" means a run of it on a damaged copy of a real recording
//! (`corpus/perf/defects/`, made by `scripts/corpus/perf.sh`).

/// The family of this format's rules.
pub const FAMILY: crate::rule::Family = crate::rule::Family {
    name: "perf",
    prefix: "PF",
    slug: "perf",
    title: "Linux perf.data",
    aliases: &["perf.data"],
};

crate::declare_rules! {
    family: FAMILY;
    /// ## What it checks
    /// The file holds the whole header its `size` field selects: 16 bytes for a pipe-mode
    /// stream, 104 bytes (`struct perf_file_header`) for a file.
    ///
    /// ## Why it matters
    /// Nothing can be located without the header.
    ///
    /// ## What readers do
    /// perf 6.1 reads the header with one `readn` and refuses a short one ("incompatible file
    /// format", `perf report` exit 255, from source); linux-perf-data and perfparser fail the
    /// same way.
    ///
    /// ## Spec
    /// `header.c` `perf_file_header__read`.
    pub PERF_TRUNCATED_HEADER = ("PF001", "perf-truncated-header", Error, "the file is shorter than its header");
    /// ## What it checks
    /// The file starts with `PERFFILE`, the magic of perf.data version 1 (perf before 2.6.37).
    /// Such a file is reported and not checked further.
    ///
    /// ## Why it matters
    /// Version 1 files have no `PERFILE2` layout guarantees; perf guesses their byte order
    /// from `attr_size`.
    ///
    /// ## What readers do
    /// perf 6.1 still reads them (`try_all_file_abis`); linux-perf-data, Perfetto and
    /// perfparser refuse them (from source).
    ///
    /// ## Spec
    /// `header.c` `check_magic_endian`.
    pub LEGACY_MAGIC = ("PF002", "legacy-magic", Info, "a version-1 perf.data file (`PERFFILE`), not checked");
    /// ## What it checks
    /// A file checked as perf.data (by `--format perf`) starts with `PERFILE2` in either byte
    /// order.
    ///
    /// ## Why it matters
    /// Without the magic it is not a perf.data file.
    ///
    /// ## What readers do
    /// perf 6.1 refuses any other magic ("incompatible file format", exit 255, from source).
    ///
    /// ## Spec
    /// `header.c` `check_magic_endian`.
    pub PERF_BAD_MAGIC = ("PF003", "perf-bad-magic", Error, "the file does not start with PERFILE2");
    /// ## What it checks
    /// The header's `size` field is 104 (file mode) or 16 (pipe mode). 72, the size of
    /// headers before the feature bitmap existed, is accepted with an info.
    ///
    /// ## Why it matters
    /// The size selects the mode: 16 makes every reader treat the file as a record stream.
    ///
    /// ## What readers do
    /// perf 6.1 reads a size of 16 as a pipe whatever the file is, accepts 72 as the
    /// previous format without features, and refuses any other value ("incompatible file
    /// format", from source).
    ///
    /// ## Spec
    /// `header.c` `perf_file_header__read`, `perf_header__read_pipe`.
    pub PERF_HEADER_SIZE = ("PF004", "perf-header-size", Error, "the header size field is neither 104 nor 16");
    /// ## What it checks
    /// The attrs and data sections of the file header lie inside the file (`offset + size`
    /// computed without overflow), after the header and apart from each other; attrs and
    /// data start 8-aligned; the deprecated `event_types` section is empty.
    ///
    /// ## Why it matters
    /// A section past the end makes readers read what is not there.
    ///
    /// ## What readers do
    /// perf 6.1 maps `[0, data.offset + data.size)` whatever the file size: bytes of the last
    /// partial page read as zero ("failed to process type: 0", verified: 0 of 12 samples shown,
    /// exit 0), whole pages past the end raise SIGBUS (verified: `defects/cut-page.data`,
    /// `perf report` and `perf script` exit 135).
    /// perfparser refuses such a file ("File is too small to hold perf data"), quipper fails
    /// the conversion. Alignment and `event_types` are not used by perf 6.1 (warnings).
    ///
    /// ## Spec
    /// `header.c` `perf_session__read_header`; `session.c` `reader__mmap`.
    pub SECTION_BOUNDS = ("PF005", "section-bounds", Error, "a header section lies outside the file or overlaps another");
    /// ## What it checks
    /// `data.size` is not 0 while records follow `data.offset`: the file of a `perf record`
    /// that was killed (the header is rewritten with the data size only at a clean exit). The
    /// finding counts the whole SAMPLE records on disk; they are walked as data.
    ///
    /// ## Why it matters
    /// Every sample is on disk, yet readers show none.
    ///
    /// ## What readers do
    /// perf 6.1 warns "data size field is 0 which is unexpected. Was the 'perf record' command
    /// properly terminated?" and processes nothing: `perf report` and `perf script` show 0
    /// samples and exit 0 (verified on `defects/killed.data`, a SIGKILLed recording, and on
    /// `defects/data-size-zero.data`). linux-perf-data yields no records. The samples can be
    /// recovered by writing the data size (file size minus data offset, cut to the last whole
    /// record) into the header.
    ///
    /// ## Spec
    /// `builtin-record.c` (`data.size` written at exit), `session.c` `__perf_session__process_events`.
    pub UNFINISHED_RECORDING = ("PF006", "unfinished-recording", Error, "data.size is 0 but records follow: an unfinished recording");
    /// ## What it checks
    /// The header's `attr_size` is not 0, equals every attr's `size + 16` (the stride perf
    /// uses), and divides the attrs section size (at least one attr).
    ///
    /// ## Why it matters
    /// perf counts attrs as `attrs.size / attr_size` but steps by each attr's own size.
    ///
    /// ## What readers do
    /// perf 6.1 with `attr_size` 8 larger than the stride: one attr fewer, "failed to process
    /// type: 69", 0 of 12 samples shown, exit 0 (verified, `defects/attr-size.data`).
    /// `attr_size` 0 is refused ("attr size field is 0", from source). An attrs section that
    /// holds no whole attr: 0 samples (verified). Bytes after the last whole attr are ignored:
    /// a warning (verified: all 12 samples shown).
    ///
    /// ## Spec
    /// `header.c` `perf_session__read_header`, `read_attr`.
    pub ATTR_SIZE = ("PF007", "attr-size", Error, "the header's attr_size does not match the attrs");
    /// ## What it checks
    /// Every attr's `size` is one of the ABI versions (64, 72, 80, 96, 104, 112, 120, 128,
    /// 136). Smaller than 64 is an error; larger than 128 (perf ≥ 6.3 writes 136 with
    /// `config3`) is an info naming the perf versions that refuse it; another size between
    /// them is a warning.
    ///
    /// ## Why it matters
    /// The size is the attr's stride and tells readers which fields exist.
    ///
    /// ## What readers do
    /// perf 6.1 refuses an attr larger than its own 128 bytes: "incompatible file format",
    /// 0 samples, exit 255 (verified with a real recording rewritten with a 136-byte attr);
    /// perf 6.3 and newer read it.
    /// Sizes 1..63 make perf 6.1 misread every later attr (0 samples, from the format notes'
    /// runs).
    ///
    /// ## Spec
    /// `perf_event.h` `PERF_ATTR_SIZE_VER0..8`; `header.c` `read_attr`.
    pub ATTR_VERSION = ("PF008", "attr-version", Warning, "an attr's size is not a known ABI version");
    /// ## What it checks
    /// Attr flag bits 38..63 (reserved in perf 6.1's ABI) are clear.
    ///
    /// ## Why it matters
    /// Set bits mean a newer writer or a damaged attr.
    ///
    /// ## What readers do
    /// perf 6.1 prints "Reserved bits are set unexpectedly. Please update perf tool." and reads
    /// on (from source): the same data.
    ///
    /// ## Spec
    /// `perf_event.h` `__reserved_1`.
    pub ATTR_RESERVED_BITS = ("PF009", "attr-reserved-bits", Warning, "reserved attr flag bits are set");
    /// ## What it checks
    /// `sample_type` uses only bits perf 6.1 knows (0..24), not both WEIGHT and
    /// WEIGHT_STRUCT; REGS_USER / REGS_INTR come with a non-zero register mask, STACK_USER with
    /// a non-zero, 8-aligned stack size; several attrs agree on where the sample id is (all
    /// carry IDENTIFIER, or ID at the same position) and on `sample_id_all`.
    ///
    /// ## Why it matters
    /// `sample_type` is the layout of every sample of the event.
    ///
    /// ## What readers do
    /// perf 6.1 derives one id position for all attrs; linux-perf-data refuses multi-event
    /// files whose positions differ (`NoIdentifierDespiteMultiEvent`, from source). Unknown
    /// bits make perf misparse the samples; the samples themselves are checked by
    /// `sample-body`. An attr whose `branch_sample_type` asks for LBR call stacks
    /// (CALL_STACK, bit 11) with CALLCHAIN but no BRANCH_STACK in `sample_type` makes perf 6.1
    /// crash (SIGSEGV in `perf script` and `perf report`, 0 of 6 samples, verified on
    /// `callchain-fp.data`; every other single bit of `branch_sample_type` was read the same):
    /// an error.
    ///
    /// ## Spec
    /// `perf_event.h` `enum perf_event_sample_format`; `evlist.c` `evlist__valid_sample_type`.
    pub SAMPLE_TYPE = ("PF010", "sample-type", Warning, "an attr's sample_type is inconsistent");
    /// ## What it checks
    /// Each attr's ids section lies inside the file, is a multiple of 8 bytes, and no id
    /// belongs to two attrs.
    ///
    /// ## Why it matters
    /// Ids map samples to their event.
    ///
    /// ## What readers do
    /// perf 6.1 reads `size / 8` ids from the offset without an alignment check: an ids
    /// section inside the file but misaligned or not a whole number of ids is a warning, and
    /// the ids perf reads from it are checked against ID_INDEX (`id-index`: ids size 0 or 1, or
    /// the offset one byte early, in a one-attr file stop perf at ID_INDEX, 0 of 12 samples,
    /// verified). An ids section past the end of the file is an error: perf 6.1 refuses the
    /// file ("incompatible file format", `perf script` exit 255, verified with one attr and
    /// with several). A duplicated id sends the samples of one event to another (from
    /// source).
    ///
    /// ## Spec
    /// `header.c` `perf_session__read_header` (`perf_evlist__id_add`).
    pub IDS = ("PF011", "ids", Error, "an attr's ids are outside the file or duplicated");
    /// ## What it checks
    /// Every record's `size` is at least 8 (its header) and the record ends inside the data
    /// section (for a stream: inside the file).
    ///
    /// ## Why it matters
    /// The stream is walked by `size` only: a bad size misframes every later record.
    ///
    /// ## What readers do
    /// perf 6.1 stops at the record ("failed to process type", exit 0) and drops every sample
    /// still queued: a size of 0 in the 10th sample showed 0 of 12 samples (verified,
    /// `defects/record-size-zero.data`); a file cut inside the data showed 0 samples
    /// (`defects/cut-mid.data`); a cut at a page boundary kills perf with SIGBUS.
    ///
    /// ## Spec
    /// `session.c` `reader__read_event`, `prefetch_event`.
    pub RECORD_SIZE = ("PF012", "record-size", Error, "a record's size is below 8 or runs past the data");
    /// ## What it checks
    /// Records keep the stream 8-aligned (except COMPRESSED records, pipe-mode HEADER_FEATURE
    /// records and the HEADER_BUILD_ID records of `perf inject -b`, whose sizes perf writes
    /// unpadded). A walk that does not end exactly at the data end is `record-size`.
    ///
    /// ## Why it matters
    /// Bytes left after the last record were written and are not read.
    ///
    /// ## What readers do
    /// perf 6.1 reads the records it can frame; a misaligned record is read the same way
    /// (from source: the walk uses `size` only).
    ///
    /// ## Spec
    /// `session.c` `reader__read_event`.
    pub DATA_END = ("PF013", "data-end", Warning, "a record breaks the 8-byte alignment of the stream");
    /// ## What it checks
    /// Every record type is one perf 6.1 knows (1..21, 64..82). Types of newer perf
    /// (COMPRESSED2 83, 84..86) and simpleperf's (32769..32777) are infos, unless the file's
    /// VERSION feature names a perf older than 6.15 (then they are damage: an error); any
    /// other type is an error.
    ///
    /// ## Why it matters
    /// Readers stop at a type they do not know.
    ///
    /// ## What readers do
    /// perf 6.1 stops with "failed to process type: 200" and shows 0 of 12 samples, exit 0
    /// (verified, `defects/record-type.data`); the same happens with 83 from perf ≥ 6.15.
    ///
    /// ## Spec
    /// `session.c` `perf_session__process_event` (`PERF_RECORD_HEADER_MAX`).
    pub RECORD_TYPE = ("PF014", "record-type", Error, "a record's type is unknown to perf 6.1");
    /// ## What it checks
    /// Every record is long enough for its type's fixed fields, its strings, its counted
    /// arrays and (kernel records of an attr with `sample_id_all`) the sample id trailer.
    ///
    /// ## Why it matters
    /// Readers take the fields and parse the trailer backwards from the record's end.
    ///
    /// Counted records (THREAD_MAP, STAT_CONFIG, CPU_MAP, ID_INDEX, NAMESPACES) hold the
    /// entries they count. Kernel records of a fixed layout (and those with a name, padded to
    /// 8 with its NUL) are exactly as long as their fields and sample id: a longer one is an
    /// error when its bytes are exactly a sample of its event (a SAMPLE whose type changed:
    /// perf 6.1 and linux-perf-data 0.13.0 lose it, verified with SAMPLE made READ and MMAP),
    /// a warning otherwise (an MMAP2 made THROTTLE or MMAP, a FORK made LOST: read the same,
    /// verified). A READ record in a recording without inherit_stat, the same; likewise
    /// SWITCH, NAMESPACES, KSYMBOL, BPF_EVENT, CGROUP and TEXT_POKE records in a recording
    /// none of whose attrs has the bit they are written for (`context_switch`, `namespaces`,
    /// `ksymbol`, `bpf_event`, `cgroup`, `text_poke`; a SAMPLE of `rounds.data` made one of
    /// them: 259 of 260 samples shown by perf 6.1, 39 for NAMESPACES), and a READ record
    /// shorter than its read values and sample id (a SAMPLE made READ in a `-s` recording). An MMAP2 with
    /// the build-id flag (misc bit 14) and a build id (`build_id_size`, the first byte after
    /// pgoff) above 20 bytes makes linux-perf-data 0.13.0 panic ("assertion failed:
    /// build_id_len <= 20", exit 101, verified): an error; perf 6.1 prints "assertion failed
    /// at util/build-id.c:1010" and from 29 bytes on aborts ("stack smashing detected",
    /// `perf script` and `perf report` exit 134, verified). An ID_INDEX record of 8 bytes (no
    /// room for its count; a FINISHED_ROUND whose type changed): perf 6.1 reads the count and
    /// the entries from the bytes after it and stops at the first id no attr has ("failed to
    /// process type: 69 [No such file or directory]", exit 254, no sample shown; verified on
    /// copies of `rounds.data`, `task-clock.data` and `sched.data`): an error.
    ///
    /// An MMAP or MMAP2 of a user-space object (a path but a module or vmlinux, `[vdso]`,
    /// `[stack]`, ...) with a kernel cpu mode, the first map of an object that has no BUILD_ID
    /// entry and is mapped again later: perf 6.1 makes it a kernel module map whose DSO the
    /// later user-space maps take, and `perf report` aborts (verified on each of 25 such maps
    /// of `py-cpu.data` and `regs-period.data`, and on `sys-wide.data` and
    /// `system-wide.data`): an error. The kernel writes user-space maps with a user cpu mode
    /// (4,465 maps of 39 recordings). A later map of an object made so is an error too: perf
    /// 6.1 makes a kernel module DSO of the object's path beside its user-space DSO, and of the
    /// 411 later maps of `system-wide.data` given cpu mode 1, 21 abort it (heap corruption), 4
    /// change the symbols shown and 386 read the same, by nothing the record tells.
    ///
    /// A CPU_MAP range (type 2) whose first cpu is past its last: perf writes a range only for
    /// a run of cpus, lowest first. `perf script` (6.1) sizes the map at `end - start + 1`
    /// cpus: at -1 it aborts (heap corruption), below it stops ("failed to process type: 74
    /// [Cannot allocate memory]", exit 244, no sample shown): an error; a count of 0 reads the
    /// same, a warning (verified on copies of `group.data`).
    ///
    /// An MMAP or MMAP2 whose name is empty or starts with a control byte or a space: the
    /// kernel names every map (a path, a `[...]` name, `//anon`), and so does perf for the maps
    /// it synthesizes (4,512 maps of 41 recordings start with `/` or `[`). When the record's
    /// bytes are a sample of its event, a SAMPLE's type was changed and both readers lose the
    /// sample (verified: a SAMPLE of a `-g` recording made MMAP, missing from `perf script`
    /// and linux-perf-data 0.13.0): an error; otherwise a warning (the map is read with that
    /// name).
    ///
    /// A FINISHED_ROUND, FINISHED_INIT, STAT_ROUND or TIME_CONV longer than perf writes it: a
    /// warning (perf 6.1 reads its fields and skips the rest), an error when its bytes are a
    /// sample of its event (a SAMPLE made TIME_CONV is lost to both readers, verified) or zstd
    /// data (the frame's magic, or an unpadded size in a `-z` recording: a COMPRESSED record
    /// made FINISHED_INIT loses its records to both), and for a FINISHED_ROUND, which
    /// linux-perf-data 0.13.0 refuses longer ("The specified size in the perf event header was
    /// smaller than the header itself", verified on an ID_INDEX and an MMAP2 so made). A STAT
    /// whose cpu is not in the CPU_MAP or whose thread index is past the THREAD_MAP: perf 6.1
    /// stops ("Invalid CPU 0 for event cpu-clock", "Failed to find perf count", exit 234,
    /// verified on copies of `stat.data`); perf writes every count at its maps' cpus and
    /// threads (`perf stat record` with and without `-a`, `-A`, `-C 1`, two events).
    ///
    /// User records out of their place: a STAT or STAT_ROUND before the THREAD_MAP and CPU_MAP
    /// that `perf stat record` writes ahead of every count (`perf script` allocates its
    /// counters from them: a STAT first stops it, "failed to process type: 76", exit 234; a
    /// STAT_ROUND first crashes it, SIGSEGV; verified on copies of `stat.data`), and an
    /// AUXTRACE_INFO in a recording whose attrs are all of core types (below 6: `perf record`
    /// writes it only for an AUX-area PMU): perf 6.1 sets up the decoder its first word names
    /// from the record's bytes (verified for types 0 to 7 on copies of `trace.data`: 2 and 4,
    /// Intel BTS and Arm SPE, SIGFPE; 0, 3 and 7 stop it, "failed to process type: 70"; 1, 5
    /// and 6 read the same, a warning).
    ///
    /// ## What readers do
    /// perf 6.1 reads the fixed fields and the trailer without a length check
    /// (`perf_evsel__parse_id_sample`, from source): other pids, times and ids. A THREAD_MAP
    /// whose count was changed (one bit of its high word) made `perf report` and `perf script`
    /// crash with SIGBUS (verified on a `-z` recording). A record longer than its fields is a
    /// warning (no writer leaves bytes in one, both readers read the same), but an error when
    /// its excess bytes are whole records end to end: its size grew over the records after
    /// it, which both readers skip with it (`system-wide.data` with its first MMAP2 grown over
    /// the two records after it: `perf script --show-mmap-events` shows other lines).
    ///
    /// ## Spec
    /// `perf_event.h` record layouts; `evsel.c` `perf_evsel__parse_id_sample`.
    pub RECORD_FIELDS = ("PF015", "record-fields", Error, "a record is too short for its fields");
    /// ## What it checks
    /// Every SAMPLE's body parses against its attr's `sample_type`, `read_format`,
    /// `branch_sample_type` and register masks: fixed fields, read values, callchain, raw
    /// data, branch stack, user/interrupt registers, user stack (`dyn_size` ≤ size), weight,
    /// data source, transaction, physical address, cgroup, page sizes and AUX data, and uses
    /// exactly the record's bytes (the kernel pads RAW data so that nothing is left). A
    /// sample's cpu mode (`misc & 7`) is not a guest's (4, 5) when its event excludes the
    /// guest (`exclude_guest`, set by `perf record` on every event not asked to count guests).
    ///
    /// ## Why it matters
    /// A sample that does not match its `sample_type` is read shifted or not at all.
    ///
    /// ## What readers do
    /// perf 6.1 stops with "Can't parse sample, err = -14" when a field runs past the
    /// record, and a tracepoint sample_type without TIME crashes `perf report` and
    /// `perf script` with SIGSEGV (verified, `defects/tracepoint-no-time.data`). Bytes left
    /// over are ignored: with PERIOD dropped from `sample_type` perf 6.1 shows all 12 samples
    /// but with the period 199 (the attr's frequency) instead of the 5025125 written (verified,
    /// `defects/sample-type.data`), so it is an error too. Bytes left after RAW data when RAW
    /// is the sample's last field (a raw size made smaller) are a warning: perf 6.1 reads the
    /// tracepoint's fields from the raw data the same, and so does linux-perf-data 0.13.0
    /// (verified on `raw_syscalls` and `sched_switch` samples with raw sizes made 0, 1, one
    /// less or half theirs: `perf script`, `perf report`, `perf sched latency` and `timehist`
    /// the same), but for the first sample of an event with a raw size of 0 or 1, too small for
    /// its `common_type`: `perf report` crashes (SIGSEGV, verified on `trace.data` and
    /// `syscalls.data`), an error. A guest sample of such an event:
    /// perf 6.1 finds no guest machine and drops it (verified: `perf script` shows 2651 of 2652
    /// samples; cpu modes 0 to 3, 6 and 7 read the same), linux-perf-data 0.13.0 shows it.
    ///
    /// ## Spec
    /// `perf_event.h` `PERF_RECORD_SAMPLE`; `evsel.c` `evsel__parse_sample`.
    pub SAMPLE_BODY = ("PF016", "sample-body", Error, "a sample does not match its sample_type");
    /// ## What it checks
    /// In a file of several attrs, the id of every sample (IDENTIFIER or ID), of every
    /// kernel record's `sample_id_all` trailer, and of every EVENT_UPDATE record belongs to an
    /// attr.
    ///
    /// ## Why it matters
    /// Records are attributed to events by id.
    ///
    /// ## What readers do
    /// perf 6.1 stops at the record: "failed to process type: 9 [Bad address]" for a sample,
    /// type 3 or 10 for COMM and MMAP2 trailers, "failed to process type: 78 [Invalid
    /// argument]" for EVENT_UPDATE, and shows none of the samples, exit 0 (verified on
    /// single-byte changes of `group.data`, a `{cpu-clock,task-clock}` recording).
    ///
    /// A SAMPLE whose id is the dummy event's (software event 9, the `dummy:HG` event `perf
    /// record` adds to track maps and tasks) in a file of several attrs: the dummy event
    /// counts nothing and never samples, so the sample's id was changed; both readers place it
    /// under the dummy event and lose it from the event it was taken for (verified: a
    /// `cpu-clock` sample of a `perf record -a` recording given the dummy's id).
    ///
    /// ## Spec
    /// `evlist.c` `evlist__id2evsel`; `header.c` `perf_event__process_event_update`.
    pub UNKNOWN_ID = ("PF017", "unknown-id", Error, "a record's id belongs to no attr");
    /// ## What it checks
    /// LOST and LOST_SAMPLES records: the kernel dropped events while recording.
    ///
    /// ## Why it matters
    /// The profile is incomplete; it is a property of the recording, not of the file.
    ///
    /// ## What readers do
    /// perf 6.1 prints "Processed N events and lost M chunks!" and reads on.
    ///
    /// ## Spec
    /// `perf_event.h` `PERF_RECORD_LOST`, `PERF_RECORD_LOST_SAMPLES`.
    pub LOST_EVENTS = ("PF018", "lost-events", Info, "the kernel lost events while recording");
    /// ## What it checks
    /// The feature table (`data.offset + data.size`, one `{offset, size}` per set bit of
    /// `adds_features`) lies inside the file; bit 0 is clear.
    ///
    /// ## Why it matters
    /// The features (build ids, command line, event names, compression parameters) are found
    /// only through the table.
    ///
    /// ## What readers do
    /// perf 6.1 stops reading features at the first it cannot read and ignores the error: the
    /// later features are silently absent (from source; format notes' runs).
    ///
    /// ## Spec
    /// `header.c` `perf_header__process_sections`.
    pub FEATURE_TABLE = ("PF019", "feature-table", Error, "the feature table lies outside the file");
    /// ## What it checks
    /// Every feature section lies inside the file, after the table, and apart from the
    /// others.
    ///
    /// ## Why it matters
    /// A feature read elsewhere is lost or read as garbage.
    ///
    /// ## What readers do
    /// A section past the end of the file is an error: linux-perf-data 0.13.0 reads every
    /// section whole and refuses the file; perf 6.1 with the BUILD_ID section pointing past the
    /// end loses the build ids (`perf buildid-list` shows none) and still shows the samples
    /// (verified, `defects/feature-offset.data`); with the COMPRESSED section of a `-z`
    /// recording pointing past the end, "Couldn't decompress data" and 0 samples (verified,
    /// `defects/zstd-feature.data`). A section inside the file but over the header, attrs,
    /// data or table, or overlapping another, is a warning: both readers read the feature from
    /// where it says it is (verified: HOSTNAME, TOTAL_MEM, NRCPUS, CPUID, NUMA_TOPOLOGY,
    /// BUILD_ID, SAMPLE_TIME moved to offset 0, 1 or half theirs, sections one byte early or 8
    /// bytes long, every sample read the same), and it is checked as that feature: what they
    /// misread there is that feature's finding (BUILD_ID at offset 0 of a file above 8,236
    /// bytes crashes perf 6.1: see `feature-payload`).
    ///
    /// ## Spec
    /// `header.c` `perf_file_section__process`.
    pub FEATURE_SECTION = ("PF020", "feature-section", Error, "a feature section lies outside the file or overlaps another");
    /// ## What it checks
    /// Each feature payload parses to exactly its section size: strings (`u32 len`, NUL
    /// inside `len`), string lists, counts times entry sizes, fixed-size features (NRCPUS,
    /// TOTAL_MEM, SAMPLE_TIME, COMPRESSED, CLOCKID, DIR_FORMAT, CLOCK_DATA), EVENT_DESC,
    /// BUILD_ID entries, PMU_MAPPINGS, GROUP_DESC, CACHE, NUMA, MEM_TOPOLOGY, PMU_CAPS. The
    /// TRACING_DATA block of tracepoint recordings (and the payload of a pipe-mode
    /// HEADER_TRACING_DATA record) is the metadata of a trace.dat v6: it is checked by the
    /// trace.dat checks (their `TD` findings) and must end where its section ends; perf 6.1
    /// reads a file's block from the file, not bounded by the section, so a section whose size
    /// alone is wrong is a warning (verified: sizes made 0, 1, half or one less in
    /// `lock.data`, `syscalls.data` and `tracepoint.data`, every record read the same).
    ///
    /// ## Why it matters
    /// A payload that does not fit its section is read past it.
    ///
    /// ## What readers do
    /// perf 6.1 reads a file-mode feature from the file bounded by its end, not by the section
    /// (from source; verified: sections of 0, 1 or half their size read the same), so a
    /// payload that parses up to the end of the file is read as written and one that does not
    /// stops perf's feature walk (see `compressed-feature`): warnings. Errors: a pipe-mode
    /// HEADER_FEATURE that does not parse within its record (perf 6.1 stops the stream, "failed
    /// to process type: 80", no sample shown; verified with a CPUID length of 0x80000000, a
    /// NUMA_TOPOLOGY count of 0x80000000 and a BPF_PROG_INFO byte changed); CMDLINE strings
    /// that overrun the buffer perf sizes from the section ("free(): invalid pointer") or a
    /// CMDLINE count of 0xffffffff (perf points at the strings from an array of count + 1
    /// entries computed in 32 bits: 0; "free(): invalid size"), a BUILD_ID entry whose build
    /// id is above 20 bytes (an assertion) or whose cpu mode says kernel for a user-space
    /// object (a path but a module or vmlinux, `[vdso]`: perf 6.1 marks it kernel and reads
    /// kernel map data past the user map, "double free or corruption"; every one of 57 such
    /// entries of real recordings) or whose name, as its size gives it (`size - 36` bytes,
    /// read from the file up to its end), runs more than 8,200 bytes past the start of
    /// `perf_header__read_build_ids`' `filename[PATH_MAX]` on the stack, over the stack
    /// protector's canary of perf 6.1.187 (Debian): `perf script` and `perf report` abort
    /// ("*** stack smashing detected ***", exit 134; verified with names of 8,201 to 65,499
    /// bytes, and with the BUILD_ID section moved to offset 0, where perf reads the magic's
    /// "E2" as an entry of 12,869 bytes, in each of the 16 recordings of `corpus/perf` and
    /// `campaign/perf_seeds.sh` above 8,236 bytes; a name of 4,097 to 8,200 bytes overruns the
    /// buffer short of the canary and perf exits 0, a warning; real entries have names of at
    /// most 64 bytes), a PMU_MAPPINGS count from about 160,000 on (SIGSEGV under the
    /// default 8 MiB stack, verified from 160,313, 161,770 and 162,534 on in three recordings;
    /// a count 1, 2 or 1,000 past the entries fails the feature and perf reads on, verified in
    /// nine) and a
    /// MEM_TOPOLOGY node bitmap of more than 2^32 bits whose words reach past the allocation
    /// perf makes from the count cut to an `int` ("malloc assertion failure", SIGABRT) (all
    /// crash perf 6.1, verified); a TRACING_DATA block that cannot
    /// be read (perf 6.1 refuses the whole recording, "incompatible file format", `perf report`
    /// exit 255, verified with the `header_page` tag damaged, `defects/tracing-data.data`).
    /// CACHE and MEM_TOPOLOGY sections of another version than 1 do not parse either: perf
    /// 6.1 fails the feature (verified), which stops its feature walk; the same for a
    /// CPU_TOPOLOGY without the per-CPU ids of every CPU NRCPUS says is available (or for a
    /// count read as negative), or with a socket id above that count other than 0xffffffff
    /// ("socket_id number is too big": in a stream an error, `perf script` exit 234 and no
    /// sample, verified), and a NUMA_TOPOLOGY node whose CPU list `perf_cpu_map__new` does
    /// not parse (numbers and ranges separated by commas; verified in a stream with "0-1"
    /// made "0}1": "failed to process type: 80"). A GROUP_DESC count of 2^28 groups or more is an error: perf 6.1
    /// allocates 16 bytes per group and clears every entry before it fails the feature
    /// (verified: 2^29 groups 10.8 s and 8.4 GB; 0x52000000 groups over 60 s and 13 GB, a
    /// hang; a recording has at most one group per event). Strings are read as perf's
    /// `do_read_string` does: their length, a NUL in them or not (a length 8 short leaves empty strings, read on).
    /// hotspot fails with "Excessively long string" (perfparser #533).
    ///
    /// ## Spec
    /// `header.c` `do_read_string`, `process_*`.
    pub FEATURE_PAYLOAD = ("PF021", "feature-payload", Warning, "a feature payload does not fit its section");
    /// ## What it checks
    /// Feature bits perf 6.1 does not know (32 and above; simpleperf's 128..132).
    ///
    /// ## Why it matters
    /// A newer or other writer's metadata; perf 6.1 skips it.
    ///
    /// ## What readers do
    /// perf 6.1 skips bits ≥ 32 with a debug message (from source).
    ///
    /// ## Spec
    /// `header.c` `perf_file_section__process` (`HEADER_LAST_FEATURE`).
    pub UNKNOWN_FEATURE = ("PF022", "unknown-feature", Info, "a feature unknown to perf 6.1");
    /// ## What it checks
    /// COMPRESSED records come with a readable COMPRESSED feature (type 1 = zstd, `mmap_len`
    /// at least the largest decompressed chunk).
    ///
    /// ## Why it matters
    /// perf sizes its decompression buffer from `mmap_len`.
    ///
    /// ## What readers do
    /// Without the feature perf 6.1 prints "Couldn't decompress data", "failed to process
    /// type: 81" and shows 0 samples, exit 0 (verified, `defects/zstd-feature.data`); the same
    /// when a feature before it does not parse up to the end of the file, or is a CACHE or
    /// MEM_TOPOLOGY of another version than 1 (perf stops its feature walk there; verified:
    /// 0 of 30 samples). A feature whose section size alone is wrong does not block it
    /// (verified: CPU_TOPOLOGY, CACHE, PMU_MAPPINGS, NRCPUS, TOTAL_MEM sections of 0, 1 or half
    /// their size, every sample decompressed). Another compression type than 1 is a warning:
    /// perf 6.1 and linux-perf-data 0.13.0 decompress with zstd whatever it says (verified).
    ///
    /// ## Spec
    /// `session.c` `perf_session__process_compressed_event`.
    pub COMPRESSED_FEATURE = ("PF023", "compressed-feature", Error, "compressed records without a usable COMPRESSED feature");
    /// ## What it checks
    /// The zstd stream carried by the COMPRESSED records decompresses, and what it gives is a
    /// whole record stream (checked as the data section is).
    ///
    /// ## Why it matters
    /// Every sample of a `-z` recording is inside the stream.
    ///
    /// ## What readers do
    /// perf 6.1 prints "Couldn't decompress data" and stops (from source). The frames carry
    /// no checksum: damage that still decompresses is found by the record checks. A
    /// COMPRESSED record whose type changed to one that starts with a pid (MMAP, COMM, ...)
    /// is told by its body (the first chunk starts with the zstd magic, no pid) or its size
    /// (only COMPRESSED records are unpadded): its chunk is not decompressed (verified: perf
    /// 6.1 and linux-perf-data 0.13.0 lose samples of a `-z` file, refuse a `-z` stream).
    ///
    /// ## Spec
    /// `session.c` `perf_session__process_compressed_event`, `util/zstd.c`.
    pub COMPRESSED_DATA = ("PF024", "compressed-data", Error, "the zstd stream of the COMPRESSED records does not decompress");
    /// ## What it checks
    /// Pipe mode: HEADER_ATTR records hold a whole attr and ids (`size − 8 − attr.size` a
    /// multiple of 8); HEADER_FEATURE ids are features perf 6.1 knows, ending with the end
    /// marker 32; HEADER_TRACING_DATA's payload fits; attrs come before the first sample.
    ///
    /// ## Why it matters
    /// A stream has no header: its attrs and features are these records.
    ///
    /// ## What readers do
    /// perf 6.1 refuses a feature id above 32 ("failed: wrong feature ID", from source) or of
    /// 0 ("invalid record type 80 in pipe-mode", `perf script` exit 234, verified), and a
    /// HEADER_TRACING_DATA whose size is not its block's padded to 8 ("tracing data size
    /// mismatch", exit 234, verified), and cannot attribute samples before their attr.
    /// linux-perf-data 0.13.0 reads the HEADER_ATTR and HEADER_FEATURE records before the
    /// first record of another type and no further: an EVENT_DESC missing there (perf sends
    /// every feature first) makes it show the samples under `attr0`, ... instead of the
    /// events' names (verified), an error. A stream without any HEADER_ATTR, and a
    /// HEADER_ATTR whose hardware, software or cache config names no event linux-perf-data
    /// 0.13.0 knows, make linux-perf-data refuse the stream ("The file declares no perf event
    /// attributes", "invalid input parameter", verified).
    ///
    /// ## Spec
    /// `header.c` `perf_event__process_attr`, `perf_event__process_feature`.
    pub PIPE_RECORDS = ("PF025", "pipe-records", Error, "a pipe-mode attr, feature or tracing-data record is malformed");
    /// ## What it checks
    /// A pipe-mode stream ends on a record boundary.
    ///
    /// ## Why it matters
    /// The last record was cut: a stream whose writer was stopped or a cut copy.
    ///
    /// ## What readers do
    /// perf 6.1 and linux-perf-data 0.13.0 read the whole records and drop the cut one (perf
    /// says "unexpected end of event stream", exit 0; verified on `pipe.data` cut inside its
    /// 2nd, 6th and 12th sample): a warning. Errors: a stream cut inside the records before its
    /// first sample (attrs, features, tracing data): linux-perf-data refuses to open it
    /// ("failed to fill whole buffer", verified); a "record" at the end whose type is unknown,
    /// that follows a misaligned record, whose size is no multiple of 8 (every record but
    /// HEADER_FEATURE and HEADER_TRACING_DATA is), or whose own fields end before the cut (a
    /// SAMPLE of fixed fields, a callchain and tracepoint RAW data, FINISHED_ROUND, STAT,
    /// STAT_ROUND, a counted ID_INDEX, THREAD_MAP, STAT_CONFIG or CPU_MAP, an EVENT_UPDATE
    /// unit, scale or name (perf 6.1 sizes them 8 bytes past their struct), an MMAP, MMAP2 or
    /// COMM whose name padded to 8 and `sample_id_all` trailer end there, a FORK or EXIT; the
    /// kernel and perf size each of these so, every one of 6,518 such records of real
    /// recordings): the stream was misframed by a size, and perf 6.1 shows none of the samples
    /// it had not flushed (verified: a FINISHED_ROUND made 9 bytes, 0 of 12 samples shown; an
    /// EVENT_UPDATE made 0xffff bytes in a `-z` stream, 0 of 36 shown by either reader; an
    /// MMAP2 of a sched stream made 0x8000 bytes, 1 of 39 shown by perf 6.1).
    ///
    /// ## Spec
    /// `session.c` `__perf_session__process_pipe_events`.
    pub TRUNCATED_STREAM = ("PF026", "truncated-stream", Warning, "the pipe-mode stream ends inside a record");
    /// ## What it checks
    /// EVENT_DESC lists as many events as there are attrs, with each attr's size and ids.
    ///
    /// ## Why it matters
    /// Event names are taken from EVENT_DESC by matching ids.
    ///
    /// ## What readers do
    /// perf 6.1 names events from it; unmatched entries leave events unnamed (from source).
    /// linux-perf-data 0.13.0 takes the attrs from EVENT_DESC, not from the attrs section: an
    /// EVENT_DESC that does not parse within its section, an entry whose attr it cannot parse
    /// (size, or a config it does not know) or whose size is no attr version's (64, 72, 80, 96,
    /// 104, 112, 120, 128: it reads the fields of the versions below and misreads the rest of
    /// the section, verified with 127), whose name is not UTF-8 (it names the event `attr0`),
    /// or whose `sample_type`, `sample_id_all` (or
    /// `read_format`, `branch_sample_type`, register masks where the `sample_type` uses them)
    /// differ from the attr's in bits it knows (it drops the others: sample_type bits above
    /// WEIGHT_STRUCT, read_format bits above GROUP, a warning), or, in a multi-event file,
    /// whose ids make it place records elsewhere (an id records carry that no entry lists goes
    /// to the first event, one several list to the last: a warning when that is the record's
    /// own event, verified on `lock.data` and `syscalls.data`), makes it
    /// refuse the file or read other samples: errors (verified on damaged copies of the
    /// corpus; in every real recording both attrs are byte for byte the same). A finished file
    /// whose feature bitmap lacks EVENT_DESC, and a stream attr whose first id starts no
    /// EVENT_DESC entry (linux-perf-data names a stream's events by it), show the samples under
    /// `attr0`, ... instead of the events' names: errors too (verified) when the file has
    /// several events with samples, which are then told apart by an index alone; with one
    /// event or no sample (what `tracelint fix` writes for a killed or cut single-event
    /// recording, or a `perf stat record` file, whose features are gone) every sample is
    /// shown, under a generic name: a warning. Other
    /// differences are read the same by both: warnings.
    ///
    /// ## Spec
    /// `header.c` `process_event_desc`.
    pub EVENT_DESC = ("PF027", "event-desc", Warning, "EVENT_DESC disagrees with the attrs");
    /// ## What it checks
    /// Sample CPUs are below NRCPUS' available count, and sample times lie within the
    /// SAMPLE_TIME feature's first and last time.
    ///
    /// ## Why it matters
    /// Metadata that disagrees with the samples points at a damaged section.
    ///
    /// ## What readers do
    /// perf 6.1 uses SAMPLE_TIME for `--time` percentages and NRCPUS to size per-CPU
    /// tables (from source): warnings. A sample CPU of 4096 or more (perf 6.1's MAX_NR_CPUS,
    /// below 0x80000000) beyond NRCPUS is an error: `perf report` indexes its per-CPU table
    /// with it unchecked (verified: SIGSEGV for CPU 33,447 and above on a copy of
    /// `regs-period.data`; -1, "any CPU", is read as such).
    ///
    /// ## Spec
    /// `header.c` `process_nrcpus`, `process_sample_time`.
    pub METADATA_MISMATCH = ("PF028", "metadata-mismatch", Warning, "samples disagree with NRCPUS or SAMPLE_TIME");
    /// ## What it checks
    /// Directory mode (`perf record --threads`): the directory holds `data`, a file-mode
    /// perf.data with the DIR_FORMAT feature, and the per-thread record streams `data.0` …
    /// `data.N-1`, numbered without gaps; no other file. Each stream is walked with the attrs
    /// of `data`, as a data section of its own size.
    ///
    /// ## Why it matters
    /// The samples are in the `data.N` files; a stream perf does not find is lost.
    ///
    /// ## What readers do
    /// perf 6.1 reads `data` and then every file whose name starts with `data.` (from source,
    /// `__perf_session__process_dir_events`); other files are ignored. A recording without
    /// DIR_FORMAT in `data` is read as a plain file, without its streams.
    ///
    /// ## Spec
    /// `util/data.c` `open_dir`; `header.c` `process_dir_format`.
    pub DIR_FILES = ("PF029", "dir-files", Warning, "a --threads directory has files perf does not read or lacks DIR_FORMAT");
    /// ## What it checks
    /// Every id an ID_INDEX record lists (the first record perf writes in file mode) is an id
    /// of an attr.
    ///
    /// ## Why it matters
    /// perf looks each entry up among the attrs' ids before it reads any sample.
    ///
    /// ## What readers do
    /// perf 6.1 stops at the ID_INDEX record with "failed to process type: 69" and shows none
    /// of the samples, `perf report` exit 0, `perf script` exit 254 (verified with one id of a
    /// `{cpu-clock,task-clock}` group recording changed, and with a bit of an attr's id
    /// flipped in `cpu-clock-999.data`: 0 of 246 samples).
    ///
    /// ## Spec
    /// `session.c` `perf_event__process_id_index` (`-ENOENT` for an unknown id).
    pub ID_INDEX = ("PF030", "id-index", Error, "an ID_INDEX record lists an id no attr has");
    /// ## What it checks
    /// With TRACING_DATA read: every tracepoint attr's `config`, and the `common_type` at the
    /// start of every tracepoint sample's raw data, is the `ID:` of an event format in it. A
    /// finished file with a tracepoint attr has a TRACING_DATA feature.
    ///
    /// ## Why it matters
    /// Tracepoint samples are decoded with the format of that id.
    ///
    /// ## What readers do
    /// perf 6.1 refuses a file whose tracepoint attr has an id TRACING_DATA does not describe
    /// ("incompatible file format", `perf report` and `perf script` exit 255). An event format
    /// whose `name:` and `ID:` lines read but whose fields do not parse is kept by
    /// libtraceevent, flagged failed: perf 6.1 reads the recording (exit 0) and prints the
    /// samples of that event as "[FAILED TO PARSE]" (verified on `trace.data` with a `size:` of
    /// its `sys_enter` format damaged): an error on each such sample, a warning on the attr
    /// (on `lock.data`, which has no sample, every record read the same). A finished
    /// file with a tracepoint attr and no TRACING_DATA feature at all (the same, verified with
    /// a software attr's type made 2; a killed recording, without features, is
    /// `unfinished-recording`'s); a sample whose
    /// `common_type` is unknown crashes `perf report` with SIGSEGV while `perf script` shows it
    /// (both verified on copies of `tracepoint.data`). A tracepoint sample whose raw data's
    /// `common_type` is another tracepoint than its event's (`config`), in a recording of
    /// several events: the kernel writes a tracepoint's own id into each of its samples, so
    /// the sample's id was changed into another event's (or its raw data damaged); perf 6.1
    /// shows it under the other event (`sched.data` with a `sched_waking` sample's identifier
    /// made `sched_migrate_task`'s: one `sched_migrate_task` line more). No sample of the corpus
    /// or of the recordings the campaign uses has this shape.
    ///
    /// ## Spec
    /// `util/trace-event-parse.c`; `evsel.c` `evsel__tp_format`.
    pub TRACEPOINT_ID = ("PF031", "tracepoint-id", Error, "a tracepoint id is not an event format of TRACING_DATA");
    /// ## What it checks
    /// Every sample's time is at least what perf has already flushed when it reads the
    /// sample: at each FINISHED_ROUND perf sorts and delivers the records up to the largest
    /// time seen at the round before, so a later sample older than that comes too late.
    ///
    /// ## Why it matters
    /// `perf record` writes each round's records after the ones of the rounds before; an older
    /// sample in a later round is one whose time or place changed.
    ///
    /// ## What readers do
    /// perf 6.1 reads every sample and warns "N out of order events recorded" (`perf report`
    /// and `perf script` exit 0, 1,091 of 1,091 samples, verified with one sample's time set to
    /// the first sample's in a recording of eleven rounds); `perf script` prints that sample
    /// after the ones already flushed, out of time order.
    ///
    /// ## Spec
    /// `util/ordered-events.c` `ordered_events__queue` (`nr_unordered_events`) and
    /// `ordered_events__flush` (`OE_FLUSH__ROUND`: up to `next_flush`, then `next_flush =
    /// max_timestamp`).
    pub ROUND_ORDER = ("PF032", "round-order", Warning, "a sample is older than what perf flushed at an earlier FINISHED_ROUND");
}
