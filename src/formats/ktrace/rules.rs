//! Rules of the Darwin ktrace / kdebug validator (`KT`).
//!
//! Spec references: ktrace(5); `xnu` `bsd/sys/kdebug.h`, `bsd/sys/kdebug_private.h` and
//! `bsd/kern/kdebug.c` (`kdbg_write_v1_header`, `kdbg_write_v3_header`, event chunks);
//! `system_cmds` `trace.tproj/trace.c` and `KDBG/TraceFile.hpp` (readers).

/// The family of this format's rules.
pub const FAMILY: crate::rule::Family = crate::rule::Family {
    name: "ktrace",
    prefix: "KT",
    slug: "ktrace",
    title: "Darwin ktrace / kdebug",
    aliases: &[],
};

crate::declare_rules! {
    family: FAMILY;
    /// ## What it checks
    /// The file is long enough for the fixed header of its version: 4 bytes (V0 thread count),
    /// 24 bytes (`RAW_header` of V1/V1+), 288 bytes (V2 header with its 256 reserved bytes) or
    /// 56 bytes (V3: 16-byte chunk header + 40 fixed header bytes).
    ///
    /// ## Why it matters
    /// Without the header nothing else can be located; the file is a failed or cut capture.
    ///
    /// ## What readers do
    /// From source: system_cmds `trace -R`, `fs_usage -R` and `sc_usage -R` read the 24-byte
    /// `RAW_header` with one `read` and exit with "read failed" when it is short; kdprof
    /// (`KDBG/TraceFile.hpp`) maps the file and reads the header in place; pykdebugparser 1.10.0
    /// raises `TruncatedDataError` (run on a cut copy of the real V2 sample).
    ///
    /// ## Spec
    /// `kdebug_private.h` `RAW_header`; ktrace(5) "All ktrace files start with a header structure".
    pub TRUNCATED_HEADER = ("KT001", "truncated-header", Error, "the file is shorter than its fixed header");
    /// ## What it checks
    /// Reported once when a file is checked as raw V0 because `--format-hint ktrace-v0` asked for
    /// it. The message says which ktrace magic, if any, the first word matches (`0x55aa0000` is
    /// the `RAW_VERSION0` constant, which was never written as a magic). A second note is given
    /// when the events are found at the next 4 KiB boundary after the thread map with only zero
    /// bytes before it, the layout kperfdata reads, instead of right after the map as xnu
    /// writes them; that layout is then used.
    ///
    /// ## Why it matters
    /// V0 has no magic: its first word is the thread count, so any file "parses" as V0. When the
    /// first word is a real magic the hint is probably wrong.
    ///
    /// ## What readers do
    /// From source: `trace -R`, `fs_usage -R` and kdprof take any first word other than
    /// `0x55aa0101` for a V0 thread count (kdprof throws on `0x55aa0000`, "RAW_VERSION0 is
    /// ILLEGAL", and on V2/V3, "unhandled"), so they misread V2 and V3 files as V0; no reader can
    /// tell V0 from garbage, so only the hint selects it here.
    ///
    /// ## Spec
    /// xnu-1504 `kdbg_readmap` (V0 = `u32 count | kd_threadmap[count] | kd_buf[]`, no padding).
    pub V0_BY_HINT = ("KT002", "v0-by-hint", Info, "the file was checked as headerless V0 because of the format hint");
    /// ## What it checks
    /// The V3 file header's major version is 0 (libktrace and kperfdata write 0.0, magic
    /// `0x55aa0300`) or 1 (the kernel writes 1.0, magic `0x00001000`). Minor versions are
    /// compatible additions by definition and are accepted, as is either major with either magic
    /// (kperfdata accepts both magics).
    ///
    /// ## Why it matters
    /// Another major version may lay the header out differently; nothing after it can be trusted.
    ///
    /// ## What readers do
    /// Readers do not check it: kperfdata [RE] accepts both magics with any version, pykdebugparser
    /// 1.10.0 never reads the version, the kernel writes 1.0 and libktrace 0.0. A version a newer
    /// writer bumps is read the same way by these readers, so this is informational.
    ///
    /// ## Spec
    /// ktrace(5) "The version fields serve the same purpose as for individual chunks";
    /// xnu-7195 `kdebug.c` `RAW_VERSION3` with sub_tag 1.
    pub HEADER_VERSION = ("KT003", "header-version", Info, "the V3 file header has an unknown version");
    /// ## What it checks
    /// The V3 header's timebase numerator and denominator are both non-zero.
    ///
    /// ## Why it matters
    /// Ticks are converted to nanoseconds with `ticks * numer / denom`; a zero makes every
    /// timestamp meaningless (or divides by zero in readers).
    ///
    /// ## What readers do
    /// Readers convert ticks with `numer/denom` (xnu `absolutetime_to_nanoseconds`, kperfdata [RE]
    /// `kpfile` timebase): a zero denominator divides by zero and a zero numerator turns every time
    /// into 0; kperfdata's writer refuses denom 0, its reader does not check.
    ///
    /// ## Spec
    /// ktrace(5) header fields "timebase numerator/denominator"; the kernel fills them from
    /// `clock_timebase_info`.
    pub ZERO_TIMEBASE = ("KT004", "zero-timebase", Error, "the V3 timebase numerator or denominator is zero");
    /// ## What it checks
    /// V3: header flags use only bit 0 (64-bit). V2: the flags word is 0 or 1.
    ///
    /// ## Why it matters
    /// The other bits are "written as 0, ignored on read"; set bits mean a writer bug or a
    /// format this validator does not know.
    ///
    /// ## What readers do
    /// ktrace(5) says the other bits are "written as 0, ignored on read"; kperfdata [RE] treats any
    /// non-zero V2 flags as 64-bit and pykdebugparser 1.10.0 tests bit 0 only, so the events read
    /// the same.
    ///
    /// ## Spec
    /// xnu-7195 `kdebug.c` `kd_header_v3.flags`; V2 layout from kperfdata `kpfile` (flags 1 = 64-bit).
    pub RESERVED_FLAGS = ("KT005", "reserved-flags", Warning, "reserved header flag bits are set");
    /// ## What it checks
    /// The V3 header size is at least 40, the header (16 + size bytes) lies inside the file, and
    /// the header sub-chunks exactly tile the header: no fragment shorter than a chunk header is
    /// left over and no sub-chunk's padding reaches past it (an unpadded last sub-chunk ending
    /// exactly at the end of the header is accepted, as `savekdebugtrace` writes it).
    ///
    /// ## Why it matters
    /// The header size tells readers where body chunks start; if it disagrees with the
    /// sub-chunks, readers find the body at different places.
    ///
    /// ## What readers do
    /// From source: lldbmacros and kperfdata [RE] start the body at `16 + header size` (kperfdata
    /// fails with error 107 when a sub-chunk passes it), pykdebugparser 1.10.0 reads exactly
    /// `header size` bytes as the header; with a wrong size they find the body chunks at different
    /// places.
    ///
    /// ## Spec
    /// ktrace(5) "The header size field is the size of the entire header, excluding the first 16
    /// bytes. It includes the sizes of all header chunks and their chunk headers."
    pub HEADER_SIZE = ("KT006", "header-size", Error, "the V3 header size does not match the header and its sub-chunks");
    /// ## What it checks
    /// Every V3 chunk's 16-byte header and its `length` data bytes lie inside the file (header
    /// sub-chunks: inside the header).
    ///
    /// ## Why it matters
    /// A chunk running past the end is a truncated capture; its data and everything after it are
    /// missing.
    ///
    /// ## What readers do
    /// kperfdata [RE] fails with error 107 on a chunk past the end; pykdebugparser 1.10.0 raises
    /// `TruncatedDataError`; the chunk's data and everything after it are missing for every reader.
    ///
    /// ## Spec
    /// ktrace(5) "The data size is the number of bytes of data that follows the chunk header".
    pub CHUNK_TRUNCATED = ("KT007", "chunk-truncated", Error, "a chunk extends past the end of the file or header");
    /// ## What it checks
    /// No chunk length is `0xFFFFFFFFFFFFFFFF`.
    ///
    /// ## Why it matters
    /// kperfdata's writer writes that placeholder and back-patches it when the chunk is closed;
    /// the value left in a file means the writer never finished. The chunk is then read as
    /// extending to the end of the file.
    ///
    /// ## What readers do
    /// kperfdata's reader [RE] reads the chunk as extending to the end of the file; a reader
    /// following the length (pykdebugparser 1.10.0, `seek` by length) runs past the end, so readers
    /// disagree on what the file holds.
    ///
    /// ## Spec
    /// kperfdata `chunkbuf_chunk_begin`/`pop_chunk` (reverse-engineered); ktrace(5) chunk length.
    pub UNFINALIZED_CHUNK = ("KT008", "unfinalized-chunk", Error, "a chunk length is the unfinalized placeholder 0xFFFFFFFFFFFFFFFF");
    /// ## What it checks
    /// Header-only tags (CPU map `0x1c00`, `hw.model` `0x1a00`, machine `0x8c00`) appear only
    /// among the header sub-chunks; body tags (thread map `0x1d00`, events `0x1e00`, compressed
    /// events `0x1f00`, null `0x2000`) only in the body; the file-header tag only once, first.
    ///
    /// ## Why it matters
    /// ktrace(5): header chunks come before body chunks. Readers look for the CPU map in the
    /// header only; a body CPU map is ignored and CPU numbers become unverifiable.
    ///
    /// ## What readers do
    /// Readers look for header tags among the header sub-chunks only (kperfdata [RE], lldbmacros)
    /// and for events in the body only: a CPU map in the body is ignored, events inside the header
    /// are never read.
    ///
    /// ## Spec
    /// ktrace(5) "Header chunks are guaranteed to be available at the beginning of the file and
    /// are written before body chunks".
    pub CHUNK_MISPLACED = ("KT009", "chunk-misplaced", Error, "a chunk appears in the wrong part of a V3 file");
    /// ## What it checks
    /// Reports (once per tag) chunks whose tag this validator does not decode. Known userland tags
    /// (stackshot, dyld modules, os_log, ...) are named.
    ///
    /// ## Why it matters
    /// Unknown chunks are legal and skipped, as ktrace(5) requires; their length is still
    /// checked. This is informational.
    ///
    /// ## What readers do
    /// ktrace(5) requires readers to skip unknown chunks by their length; kperfdata [RE] and
    /// pykdebugparser 1.10.0 do, so the rest of the file reads the same.
    ///
    /// ## Spec
    /// ktrace(5) "unrecognized chunks should be skipped".
    pub UNKNOWN_CHUNK = ("KT010", "unknown-chunk", Info, "a chunk with a tag that is not decoded was skipped");
    /// ## What it checks
    /// Padding and reserved bytes are zero: V3 chunk padding to 8 bytes, the V1/V2 gap between the
    /// thread map (and V1+ CPU map) and the 4 KiB-aligned events, bytes 20..24 of the V1
    /// `RAW_header`, and the 256 reserved bytes of the V2 header.
    ///
    /// ## Why it matters
    /// Writers zero these bytes. Non-zero bytes mean data sits where readers do not look, for
    /// example a CPU map that kdprof's writer placed after uncounted thread entries.
    ///
    /// ## What readers do
    /// `trace -R`, `fs_usage -R` and kdprof (system_cmds, from source) seek past the gap to the 4
    /// KiB boundary and never read it, except that `trace -R` and kdprof take a V1+ CPU map only
    /// from the gap's start; V3 readers skip chunk padding. The events read the same.
    ///
    /// ## Spec
    /// ktrace(5) padding; xnu `kdbg_write_v1_header` (zero fill); kperfdata `chunkbuf_align`.
    pub NONZERO_PADDING = ("KT011", "nonzero-padding", Warning, "padding or reserved bytes are not zero");
    /// ## What it checks
    /// After a chunk whose length is not a multiple of 8, the next chunk header starts at the
    /// next 8-byte boundary. Reported when no valid chunk is found there but one is found right
    /// after the unpadded data (checking then continues from there).
    ///
    /// ## Why it matters
    /// Readers skip to the aligned offset; a writer that forgets the padding makes them read
    /// garbage as the next chunk header.
    ///
    /// ## What readers do
    /// Readers skip to the 8-byte aligned offset (ktrace(5), kperfdata [RE] `round_up(len, 8)`,
    /// pykdebugparser 1.10.0 `parse_v3_blocks`) and read the bytes there as the next chunk header:
    /// garbage tags and lengths.
    ///
    /// ## Spec
    /// ktrace(5) "Chunk headers must be aligned to 8 bytes".
    pub MISSING_CHUNK_PADDING = ("KT012", "missing-chunk-padding", Error, "a chunk header is not at the 8-byte boundary after the previous chunk");
    /// ## What it checks
    /// V3: after the last chunk, no fragment shorter than a chunk header remains.
    ///
    /// ## Why it matters
    /// Every byte of a trace should be accounted for; a short tail is a cut write (kperfdata's
    /// reader silently treats it as end of file, hiding the loss).
    ///
    /// ## What readers do
    /// kperfdata's reader [RE] treats a fragment shorter than a chunk header as the end of the file
    /// without a message, so the cut data is lost silently.
    ///
    /// ## Spec
    /// ktrace(5) chunk layout; kperfdata `kpfile_read_next`.
    pub TRAILING_BYTES = ("KT013", "trailing-bytes", Error, "bytes after the last chunk do not form a chunk");
    /// ## What it checks
    /// CPU map size: V3 `0x1c00` payload is `16 * n` bytes with `n >= 1` (or the 40-byte
    /// extended layout, see KT015); V1+ `kd_cpumap_header.cpu_count >= 1` and its entries fit in
    /// the gap before the events.
    ///
    /// ## Why it matters
    /// A CPU map that does not hold whole entries cannot be read, and CPU numbers of events
    /// cannot be checked.
    ///
    /// ## What readers do
    /// From source: `trace -R` accepts a V1+ CPU map only when its header says `0x55aa0101` and it
    /// fits before the events, kdprof only when the gap holds the header and one entry; otherwise
    /// they use no CPU map. A V3 map that is not `16 * n` bytes cannot be indexed by kperfdata
    /// [RE].
    ///
    /// ## Spec
    /// `kdebug_private.h` `kd_cpumap` (16 bytes), `kd_cpumap_header`; xnu-7195 `kdbg_write_v3_header`.
    pub CPUMAP_SIZE = ("KT014", "cpumap-size", Error, "the CPU map does not hold a whole, non-zero number of entries");
    /// ## What it checks
    /// Reports a V3 CPU map written as `kd_cpumap_header` (version 1) + 40-byte `kd_cpumap_ext`
    /// entries instead of bare 16-byte entries.
    ///
    /// ## Why it matters
    /// The kernel and kperfdata write bare 16-byte entries; the extended layout is only known
    /// from third-party parsers (py-ios-device) and is accepted with this warning.
    ///
    /// ## What readers do
    /// The kernel's `trace -R`, kdprof and kperfdata [RE] read 16-byte entries and would misread
    /// this layout; py-ios-device reads `kd_cpumap_header` + 40-byte `kd_cpumap_ext` entries.
    /// Written by newer Instruments/kperf (xnu-8019+ defines `KERN_KDCPUMAP_EXT`), as far as
    /// third-party parsers show; accepted as a writer variant.
    ///
    /// ## Spec
    /// xnu-11417 `kdebug_private.h` `kd_cpumap_ext` (`KERN_KDCPUMAP_EXT`).
    pub CPUMAP_EXT = ("KT015", "cpumap-ext", Info, "the CPU map uses the 40-byte extended entry layout");
    /// ## What it checks
    /// Each CPU map entry: `cpu_id` equals its index, `flags` only uses `KDBG_CPUMAP_IS_IOP` (1),
    /// the name is NUL-terminated with zeros after the NUL, and coprocessors (IOPs) come after
    /// all application processors.
    ///
    /// ## Why it matters
    /// The kernel writes exactly this; other values mean corruption or a different writer, and
    /// readers index the map by CPU number.
    ///
    /// ## What readers do
    /// Readers index the map by CPU number (kdprof `TraceFile.hpp`) and print the names (`trace
    /// -R`); entries as the kernel writes them are assumed, but a different id or flag does not
    /// change how the events are read.
    ///
    /// ## Spec
    /// xnu-7195 `kdebug.c` `kdbg_cpumap_init_internal` (APs 0..n-1 named "AP", IOPs last).
    pub CPUMAP_ENTRY = ("KT016", "cpumap-entry", Warning, "a CPU map entry is not as the kernel writes it");
    /// ## What it checks
    /// A V3 file has at most one CPU map chunk.
    ///
    /// ## Why it matters
    /// Readers keep one CPU map; with two, which one applies is undefined.
    ///
    /// ## What readers do
    /// kperfdata [RE] keeps one CPU map (the last it reads); events read the same, only CPU names
    /// and the coprocessor flag may come from the other map.
    ///
    /// ## Spec
    /// xnu-7195 `kdbg_write_v3_header` (one `V3_CPU_MAP`).
    pub DUPLICATE_CPUMAP = ("KT017", "duplicate-cpumap", Warning, "the file has more than one CPU map");
    /// ## What it checks
    /// Thread map size: a V3 `0x1d00` payload is a whole number of entries (32 bytes, 28 in
    /// 32-bit files); the raw formats' `thread_count` entries fit in the file (checked against
    /// the bytes remaining before anything is allocated).
    ///
    /// ## Why it matters
    /// A thread count that does not fit (such as 2^31) means a corrupt header; the events
    /// cannot be located.
    ///
    /// ## What readers do
    /// From source: `trace -R`, `fs_usage -R` and kdprof allocate `thread_count` entries and read
    /// them; pykdebugparser 1.10.0 fails with `TruncatedDataError` when they do not fit (run on a
    /// cut copy of the real V2 sample); the events cannot be located.
    ///
    /// ## Spec
    /// `kdebug_private.h` `kd_threadmap`; `RAW_header.thread_count`.
    pub THREADMAP_SIZE = ("KT018", "threadmap-size", Error, "the thread map does not fit or does not hold whole entries");
    /// ## What it checks
    /// Each thread map entry's 20-byte `command` has a NUL and only zeros after it.
    ///
    /// ## Why it matters
    /// The kernel fills it with `strlcpy` into a zeroed entry; anything else is corruption or a
    /// writer that leaks memory into the file.
    ///
    /// ## What readers do
    /// Readers print the name up to its NUL (`trace -R`, pykdebugparser 1.10.0 `PaddedString`); a
    /// name without a NUL runs into the next field in C readers.
    ///
    /// ## Spec
    /// `kdebug_private.h` `kd_threadmap.command[20]`.
    pub THREAD_NAME = ("KT019", "thread-name", Warning, "a thread name is not NUL-terminated or has bytes after its NUL");
    /// ## What it checks
    /// All-zero thread entries (the kernel's padding entries, counted in `thread_count`) only
    /// form a trailing run, and non-zero entries have a non-zero thread id.
    ///
    /// ## Why it matters
    /// Zero-filled extra entries are legal only at the end; a zero thread id in a real entry
    /// cannot match any event.
    ///
    /// ## What readers do
    /// Readers build a thread-id → name table from the map (`trace -R`, kdprof, pykdebugparser
    /// 1.10.0); zero entries add nothing and a zero thread id matches no event, so the events read
    /// the same.
    ///
    /// ## Spec
    /// xnu-7195 `kdbg_write_v1_header` ("extra" zero thread entries).
    pub THREAD_ENTRY = ("KT020", "thread-entry", Warning, "a thread map entry has thread id 0 or a zero entry is not trailing");
    /// ## What it checks
    /// A V3 event chunk (`0x1e00`) has `length = 8 + n * event size` (the 8-byte "future events"
    /// timestamp, then whole `kd_buf`s); a compressed event chunk (`0x1f00`) has at least 12 bytes.
    ///
    /// ## Why it matters
    /// A partial event at the end of a chunk means lost or corrupt data; readers stop with an
    /// error (kperfdata error 108).
    ///
    /// ## What readers do
    /// kperfdata [RE] fails with error 108 on a partial event; pykdebugparser 1.10.0 reads `length
    /// // 64` events and then looks for the next chunk tag, so a partial event shifts what it reads
    /// next.
    ///
    /// ## Spec
    /// xnu-7195 `kdebug.c` event chunk (`length = 8 + n * sizeof(kd_buf)`).
    pub EVENT_CHUNK_SIZE = ("KT021", "event-chunk-size", Error, "an event chunk does not hold whole events");
    /// ## What it checks
    /// Recognises the macOS 13+ kernel quirk: an event chunk whose `length` is `64 * n` while the
    /// 8-byte timestamp is still written, so the next chunk starts 8 bytes after where `length`
    /// says. Reported (and checking continues at the real next chunk) only when a valid chunk or
    /// the end of the file is found there.
    ///
    /// ## Why it matters
    /// Strict readers following `length` read the last event's tail as a chunk header. The file
    /// is readable only by readers that know the quirk.
    ///
    /// ## What readers do
    /// Written by the macOS 13+ kernel (xnu-8792 and later, `KERN_KDWRITETR_V3`), through which
    /// libktrace writes its event chunks on those systems, so Apple's own readers read these files.
    /// A reader that follows `length` literally (as the reverse-engineered kperfdata code reads
    /// it: `(length - 8) / 64` events, next chunk at `16 + length`) would drop each chunk's last
    /// event and read its last 8 bytes as a chunk header; tracelint reads the quirk as written.
    ///
    /// ## Spec
    /// xnu-8796 `kdebug.c` `struct event_chunk_header` (`KERN_KDWRITETR_V3`).
    pub EVENT_LENGTH_QUIRK = ("KT022", "event-length-quirk", Info, "an event chunk length omits its 8-byte timestamp (macOS 13+ kernel writer quirk)");
    /// ## What it checks
    /// Reports compressed event chunks (`0x1f00`).
    ///
    /// ## Why it matters
    /// They use a private codec; their events are not checked.
    ///
    /// ## What readers do
    /// kperfdata [RE] decodes them with its private `kdbg_comp` codec; other public readers
    /// (pykdebugparser 1.10.0, py-ios-device) skip or cannot read them.
    ///
    /// ## Spec
    /// kperfdata `kdbg_comp` (reverse-engineered).
    pub COMPRESSED_EVENTS = ("KT023", "compressed-events", Info, "a compressed event chunk was skipped (private codec, not validated)");
    /// ## What it checks
    /// Null chunks (`0x2000`) contain only zero bytes.
    ///
    /// ## Why it matters
    /// Null chunks are filler; data inside them is invisible to every reader.
    ///
    /// ## What readers do
    /// Every reader skips null chunks by their length (pykdebugparser 1.10.0 treats `0x2000` as
    /// "more events follow"); their contents are never read.
    ///
    /// ## Spec
    /// xnu `V3_NULL_CHUNK`.
    pub NULL_CHUNK_DATA = ("KT024", "null-chunk-data", Info, "a null (filler) chunk contains non-zero bytes");
    /// ## What it checks
    /// Reports a `V3_CONFIG` chunk (`0x1b00`).
    ///
    /// ## Why it matters
    /// The tag is defined by xnu but never written by it; its layout is unknown and it is not
    /// validated.
    ///
    /// ## What readers do
    /// No public reader decodes it; readers skip it by its length as an unknown chunk.
    ///
    /// ## Spec
    /// xnu-3248 `kdebug.h` `V3_CONFIG`.
    pub CONFIG_CHUNK = ("KT025", "config-chunk", Info, "a config chunk (defined, never written by xnu) was skipped");
    /// ## What it checks
    /// Raw V1/V2: the events start at the next 4096-byte boundary after the maps, and that
    /// boundary is inside the file (or is its end).
    ///
    /// ## Why it matters
    /// Readers (`trace -R`, `fs_usage -R`, kperfdata) seek to that boundary; if it is past the
    /// end, the file was cut or the events were written right after the map.
    ///
    /// ## What readers do
    /// From source: `trace -R`, `fs_usage -R` (`(pos+4095)&~4095`) and kdprof seek to the 4 KiB
    /// boundary after the maps; pykdebugparser 1.10.0 does the same for V2. Past the end, they read
    /// no events at all.
    ///
    /// ## Spec
    /// xnu-7195 `kdbg_write_v1_header`; kperfdata `(size*n + 4383) & ~0xfff` for V2.
    pub EVENTS_OFFSET = ("KT026", "events-offset", Error, "the events' 4 KiB-aligned start lies past the end of the file");
    /// ## What it checks
    /// Raw formats: the bytes from the events' start to the end of the file are a whole number of
    /// events (64 bytes, 32 in 32-bit files).
    ///
    /// ## Why it matters
    /// A partial record at the end is a cut write; its fields are garbage.
    ///
    /// ## What readers do
    /// `trace -R`/`fs_usage -R` read whole `kd_buf`s and drop the tail; pykdebugparser 1.10.0 stops
    /// without a message (a real V2 sample cut mid-event: 15543 of 15552 events, no error). The cut
    /// event is lost silently.
    ///
    /// ## Spec
    /// `kdebug_private.h` `kd_buf`.
    pub PARTIAL_EVENT = ("KT027", "partial-event", Error, "the event data ends with a partial record");
    /// ## What it checks
    /// The V2 header's tick frequency is non-zero.
    ///
    /// ## Why it matters
    /// Without it, timestamps cannot be converted to time.
    ///
    /// ## What readers do
    /// kperfdata [RE] and Instruments convert V2 timestamps with this frequency, so times cannot be
    /// shown (or divide by zero); pykdebugparser 1.10.0 does not use it and reads the events the
    /// same.
    ///
    /// ## Spec
    /// V2 header at offset 24 (kperfdata, libkperfdata).
    pub V2_TICK_FREQUENCY = ("KT028", "v2-tick-frequency", Warning, "the V2 tick frequency is zero");
    /// ## What it checks
    /// When a CPU map exists, every event's `cpuid` is below its CPU count.
    ///
    /// ## Why it matters
    /// kdprof rejects such files; the CPU number indexes the map.
    ///
    /// ## What readers do
    /// From source: kdprof (`KDBG/TraceFile.hpp`) rejects the file when an event's CPU is not in
    /// the map; `trace -R` indexes its CPU table by it.
    ///
    /// ## Spec
    /// `kd_buf.cpuid`; kdprof `TraceFile.hpp`.
    pub EVENT_CPU_RANGE = ("KT029", "event-cpu-range", Error, "an event's CPU number is not in the CPU map");
    /// ## What it checks
    /// 64-bit events have their trailing `unused` field zero.
    ///
    /// ## Why it matters
    /// The kernel writes 0; kdprof refuses files where it is not. Usually misaligned event data.
    ///
    /// ## What readers do
    /// From source: kdprof (`KDBG/TraceFile.hpp:75-104`) refuses files whose events have a non-zero
    /// `unused` field, taking them for 32-bit or misaligned data.
    ///
    /// ## Spec
    /// `kdebug_private.h` `kd_buf.unused`; kdprof `TraceFile.hpp:75-104`.
    pub EVENT_UNUSED = ("KT030", "event-unused", Error, "an event's unused field is not zero");
    /// ## What it checks
    /// Event debugids look plausible: the class (top 8 bits) is not 0, which no kdebug class
    /// uses. Subclass and code are free-form, and the function qualifier 3 (START and END both
    /// set) does occur in real kperf streams, so neither is flagged.
    ///
    /// ## Why it matters
    /// Informational: class-0 ids usually mean misaligned, zeroed or garbage event records.
    ///
    /// ## What readers do
    /// Readers decode the event like any other (class 0 has no name in `trace.codes`), so it shows
    /// as an unknown event.
    ///
    /// ## Spec
    /// `kdebug.h` `KDBG_EVENTID` (class 8 bits, subclass 8, code 14, func 2).
    pub EVENT_DEBUGID = ("KT031", "event-debugid", Info, "an event debugid has class 0");
    /// ## What it checks
    /// Timestamps of the events of each CPU never go backwards (in file order).
    ///
    /// ## Why it matters
    /// The kernel merges per-CPU buffers in order; a step back means lost ordering (it can
    /// legitimately happen: coprocessor events, `TRACE_RETROGRADE_EVENTS`), so this is a warning.
    ///
    /// ## What readers do
    /// Readers show events in file order (`trace -R`, pykdebugparser 1.10.0); kdprof sorts per CPU
    /// first (its "presort"). The kernel emits `TRACE_RETROGRADE_EVENTS` for real steps back, so
    /// nothing is lost.
    ///
    /// ## Spec
    /// xnu `kdbg_read` merge; `TRACE_RETROGRADE_EVENTS` (0x07020014).
    pub TIMESTAMP_BACKWARDS = ("KT032", "timestamp-backwards", Warning, "an event's timestamp is earlier than the previous event of the same CPU");
    /// ## What it checks
    /// Events' thread ids (`arg5`) appear in the thread map, when the file has one. Thread id 0
    /// (events logged without a thread context, such as coprocessor or kperf sample events) is
    /// not reported.
    ///
    /// ## Why it matters
    /// Informational: threads created during tracing are not in the map written at start.
    ///
    /// ## What readers do
    /// Readers fall back to the raw thread id (`trace -R` prints it, pykdebugparser 1.10.0 leaves
    /// the process unknown); threads created after the map was written are expected.
    ///
    /// ## Spec
    /// `kd_buf.arg5`, `kd_threadmap.thread`.
    pub UNKNOWN_THREAD = ("KT033", "unknown-thread", Info, "an event's thread id is not in the thread map");
    /// ## What it checks
    /// Known chunk tags carry a major version this validator understands (0 or 1).
    ///
    /// ## Why it matters
    /// ktrace(5): the major version changes when the payload format breaks. The payload of an
    /// unknown major version is skipped, not validated.
    ///
    /// ## What readers do
    /// Readers that know the tag read the payload as the version they know (kperfdata [RE] does not
    /// check chunk versions, pykdebugparser 1.10.0 matches the tag with version 0 only and skips
    /// the chunk otherwise).
    ///
    /// ## Spec
    /// ktrace(5) "The major version is intended to be updated when a breaking change ... occurs".
    pub CHUNK_VERSION = ("KT034", "chunk-version", Info, "a known chunk has an unknown major version; its payload was not validated");
}
