//! Rules of the trace-cmd trace.dat validator (`TD001`–`TD099`).
//!
//! `## Spec` sections cite trace-cmd, libtraceevent and kernel sources; the layout and writer
//! history are in `docs/tracecmd.md`.

/// The family of this format's rules.
pub const FAMILY: crate::rule::Family = crate::rule::Family {
    name: "trace-cmd",
    prefix: "TD",
    slug: "tracecmd",
    title: "trace-cmd trace.dat (v6, v7)",
    aliases: &[],
};

crate::declare_rules! {
    family: FAMILY;
    /// ## What it checks
    /// The file starts with the bytes `17 08 44` followed by the ASCII text `tracing`.
    ///
    /// ## Why it matters
    /// Without the magic nothing else of the file can be trusted to be a trace-cmd file.
    ///
    /// ## What readers do
    /// trace-cmd 1.x–3.4 reject the file: `tracecmd_open` fails unless the first 10 bytes are the
    /// magic (verified with trace-cmd 3.1.6: "error reading header", no output).
    pub DAT_BAD_MAGIC = ("TD001", "dat-bad-magic", Error, "the file does not start with the trace-cmd magic `17 08 44 tracing`");
    /// ## What it checks
    /// The NUL-terminated version string after the magic is exactly `6` or `7`.
    ///
    /// ## Why it matters
    /// Versions 6 and 7 have entirely different layouts; any other version cannot be read.
    /// trace-cmd parses the string with `strtol`, so `7x` is silently taken as 7.
    ///
    /// ## What readers do
    /// trace-cmd reads the version with `strtol`: 6 and 7 are read, any other number is rejected as
    /// unsupported (3.x) or read with the wrong layout (2.x read every file as v6); `7x` is taken
    /// as 7.
    ///
    /// The level follows the case: a string `strtol` reads as 0–7 is a **warning**, and the file
    /// is checked with the layout readers then use (0–6: v6, 7: v7; campaign: a v6 file whose
    /// `6` is damaged to a control byte reads the same); any other version stays an error.
    pub DAT_UNSUPPORTED_VERSION = ("TD002", "dat-unsupported-version", Error, "the file version is not 6 or 7");
    /// ## What it checks
    /// The endianness byte is 0 (little-endian) or 1 (big-endian).
    ///
    /// ## Why it matters
    /// trace-cmd 3.1.6 treats any non-zero byte as "swap" for metadata but only 1 as big-endian
    /// for ring-buffer pages: a value of 2 silently produces an empty report.
    ///
    /// ## What readers do
    /// trace-cmd 3.1.6 swaps metadata for any non-zero byte but decodes pages as big-endian only
    /// for 1: with 2 it prints no events and exits 0 (verified).
    pub BAD_ENDIAN = ("TD003", "bad-endian", Error, "the endianness byte is neither 0 (little) nor 1 (big)");
    /// ## What it checks
    /// The `sizeof(long)` byte is 4 or 8.
    ///
    /// ## Why it matters
    /// Ring-buffer page headers and lost-event counts are kernel longs; no other size exists.
    /// Readers take the kernel long from the header_page commit size instead.
    ///
    /// ## What readers do
    /// trace-cmd decodes ring pages with the header_page commit size, not this byte: with a long
    /// size of 5 trace-cmd 3.1.6 prints the same report (verified). The byte still sets the long
    /// size libtraceevent prints `long` values with.
    ///
    /// The level follows the records in the data (trace-cmd 3.1.6, every size from 0 to 255):
    /// - **error** with records of the kernel's own entries other than `print`
    ///   (`ftrace:kernel_stack`, `user_stack`, `raw_data`, …): trace-cmd 3.1.6–3.3.4 misprint
    ///   them for any size other than 8, crash (128, 255) or hang (0, 128 on stack traces);
    /// - **warning** otherwise: `ftrace:print` and tracepoint records, whose fields have their
    ///   own sizes, read the same whatever the byte.
    pub BAD_LONG_SIZE = ("TD004", "bad-long-size", Warning, "the long-size byte is neither 4 nor 8");
    /// ## What it checks
    /// The page size is a power of two between 4096 and 16 MiB.
    ///
    /// ## Why it matters
    /// Every CPU data offset and size is a multiple of the page size. trace-cmd 3.1.6 crashes
    /// with SIGFPE on a page size of 0.
    ///
    /// ## What readers do
    /// trace-cmd 3.1.6 divides by the page size: 0 crashes it with SIGFPE (verified); other values
    /// cut pages at the wrong size and misframe every event.
    ///
    /// The level follows the case: a power of two from 16 to 2048 is a **warning**: the ring
    /// pages are walked with it, and where every page's data fits in the smaller page (the rest
    /// of each real page is the kernel's zero fill, read as empty pages) trace-cmd 2.4–3.3.4
    /// read the same events (campaign: 1024 and 2048 on v6 and v7 files, zstd and uncompressed);
    /// a page whose data does not fit is a `TD101` error (16 and 256: the readers reject the file
    /// or lose events).
    pub BAD_PAGE_SIZE = ("TD005", "bad-page-size", Error, "the page size is zero, not a power of two or implausible");
    /// ## What it checks
    /// The v7 compression name is `none`, `zstd` or `zlib`, and `none` has an empty version.
    ///
    /// ## Why it matters
    /// Compressed sections and CPU data cannot be read with an unknown algorithm.
    ///
    /// ## What readers do
    /// trace-cmd 3.x rejects the file ("Unsupported file compression") or cannot open compressed
    /// sections; trace-cmd 2.x cannot read v7 at all.
    pub BAD_COMPRESSION = ("TD006", "bad-compression", Error, "the compression algorithm is unknown or inconsistent");
    /// ## What it checks
    /// A structure of the file (header, section, option, metadata item, chunk) is complete: the
    /// file does not end in the middle of it.
    ///
    /// ## Why it matters
    /// A truncated file is an interrupted capture; the rest cannot be read.
    ///
    /// ## What readers do
    /// trace-cmd stops at the short read: it rejects the file when metadata is cut, and drops the
    /// events of a cut page (from source: `do_read_check` failures in lib/trace-cmd/trace-input.c).
    ///
    /// A **warning** for the compressed STRINGS section (id 15) whose `csize` runs past the end
    /// of the file: it only names sections, and trace-cmd 3.1.6–3.3.4 ignore a STRINGS section
    /// they cannot read (campaign `full18`: csize + 1 and all ones, every reader the same).
    pub TRUNCATED = ("TD007", "truncated", Error, "the file ends inside a structure");
    /// ## What it checks
    /// The v7 first-options offset is non-zero, inside the file and at the start of a section
    /// with id 0 (OPTIONS).
    ///
    /// ## Why it matters
    /// Every other part of a v7 file is found through the options.
    ///
    /// ## What readers do
    /// trace-cmd 3.x reads the options from this offset (`handle_options`); without an OPTIONS
    /// section there it rejects the file.
    pub BAD_OPTIONS_OFFSET = ("TD008", "bad-options-offset", Error, "the first-options offset does not point at an OPTIONS section");
    /// ## What it checks
    /// Walking v7 sections from the end of the header (`offset += 16 + size`) every section
    /// header and body lies inside the file and the walk ends exactly at the end of the file.
    ///
    /// ## Why it matters
    /// trace-cmd finds the STRINGS sections with this walk; a wrong size hides later sections
    /// and is ignored by the reader for metadata.
    ///
    /// ## What readers do
    /// trace-cmd 3.x reads every section at the offset its option gives, so a broken walk reads the
    /// same report (verified with trace-cmd 3.1.6: a HEADER_INFO section 9 bytes too long); only
    /// STRINGS sections past the break are missed, which `dump` uses for descriptions. A section
    /// that is really cut by the end of the file is reported by the rules of its content.
    pub SECTION_WALK = ("TD010", "section-walk", Warning, "a v7 section runs past the end of the file or the walk does not end at EOF");
    /// ## What it checks
    /// Section ids are known (0, 3, 15–25).
    ///
    /// ## Why it matters
    /// Unknown sections are skipped by readers; their content is not checked.
    ///
    /// ## What readers do
    /// trace-cmd 3.x skips sections it does not know; only the content of the unknown section is
    /// not read. A newer writer may add section ids.
    pub UNKNOWN_SECTION = ("TD011", "unknown-section", Info, "a v7 section has an unknown id");
    /// ## What it checks
    /// No section is flagged compressed (bit 0) in a file whose compression is `none`. Other
    /// flag bits are TD071.
    ///
    /// ## Why it matters
    /// A compressed flag without an algorithm contradicts the file header: no writer makes it,
    /// and a reader that trusts the flag cannot decompress the section.
    ///
    /// ## What readers do
    /// trace-cmd 3.1.6 has no decompressor for a `none` file and reads the section as stored:
    /// the same report as without the flag (verified on the HEADER_INFO section).
    pub SECTION_FLAGS = ("TD012", "section-flags", Warning, "a v7 section is compressed without an algorithm");
    /// ## What it checks
    /// Section description string ids are `0xFFFFFFFF` or the offset of a string start in the
    /// concatenated STRINGS sections; STRINGS payloads end with NUL; descriptions match the
    /// writer's names.
    ///
    /// ## Why it matters
    /// Dangling descriptions point at a damaged or hand-made STRINGS section.
    ///
    /// ## What readers do
    /// Only `trace-cmd dump` prints section descriptions; `report` reads the same data (verified
    /// with trace-cmd 3.1.6 on a dangling string id).
    pub BAD_STRING_ID = ("TD013", "bad-string-id", Warning, "a section description string id does not resolve");
    /// ## What it checks
    /// Each metadata section (16–21, 23, 25) exists once and is referenced by exactly one
    /// option; no section other than STRINGS is left unreferenced.
    ///
    /// ## Why it matters
    /// Duplicate options silently override each other in trace-cmd; unreferenced sections are
    /// never read.
    ///
    /// ## What readers do
    /// trace-cmd 3.x keeps the last of duplicate options and never reads unreferenced sections; the
    /// events read are the same as long as one copy is right.
    ///
    /// The level follows the case: an unreferenced flyrecord section that holds CPU data is an
    /// **error** (no BUFFER option leads trace-cmd 3.1.6–3.3.4 to it: its events are lost,
    /// campaign); duplicates and other unreferenced sections stay warnings.
    pub SECTION_REFERENCES = ("TD014", "section-references", Warning, "a section is duplicated, referenced twice or never referenced");
    /// ## What it checks
    /// An offset stored in an option (16–23, 25, BUFFER, BUFFER_TEXT) is the start of a walked
    /// section whose id equals the option id.
    ///
    /// ## Why it matters
    /// trace-cmd does not check the id of BUFFER sections; a wrong offset reads the wrong bytes.
    ///
    /// ## What readers do
    /// trace-cmd 3.x seeks to the offset and parses what is there: metadata options check the
    /// section id, BUFFER offsets do not, so the wrong bytes are read as CPU data.
    ///
    /// The level follows the case: a BUFFER option pointing at a section of another id is a
    /// **warning** (trace-cmd 3.1.6–3.3.4 read the CPU data at the option's offsets and never
    /// look at the id, campaign) and the data is walked; other options pointing at the wrong
    /// section stay errors.
    pub SECTION_MISMATCH = ("TD015", "section-mismatch", Error, "an option references something that is not a section of its id");
    /// ## What it checks
    /// A section body is consumed exactly by its content: a compressed body is `8 + csize`
    /// bytes; an uncompressed payload or decompressed block is parsed to its last byte.
    ///
    /// ## Why it matters
    /// Size disagreements mean damaged or hand-edited sections that readers handle differently.
    ///
    /// ## What readers do
    /// trace-cmd 3.x reads metadata by its own sizes and compressed sections by the inner sizes
    /// (`tracecmd_uncompress_block` reads `csize` bytes wherever the section ends), so a wrong section
    /// size alone reads the same (verified with trace-cmd 3.1.6 on a HEADER_INFO section 9 bytes too
    /// long): this rule is a warning. When `csize` does not fit, tracelint decompresses the `csize`
    /// bytes as trace-cmd does: if that fails, the section is lost to trace-cmd 3.1.6–3.3.4 and
    /// `TD017`/`TD018` (or `TD007` when `csize` runs past the end of the file) say so as errors.
    pub SECTION_SIZE = ("TD016", "section-size", Warning, "a section's declared size disagrees with its content");
    /// ## What it checks
    /// Every compressed block (section or CPU chunk) decompresses without error.
    ///
    /// ## Why it matters
    /// A corrupt block loses the metadata or events it holds.
    ///
    /// ## What readers do
    /// trace-cmd 3.x fails to decompress the block and loses the metadata or the events it holds
    /// (rc 0 with missing output for CPU data).
    ///
    /// The level follows the case: the STRINGS section (id 15) is a **warning**. It only names
    /// sections; trace-cmd 3.1.6–3.3.4 ignore a failed read of it (`read_metadata_strings`'
    /// result is unused) and show no name from it (campaign: the same report). The same holds
    /// for `TD018` on that section.
    pub DECOMPRESS_FAILED = ("TD017", "decompress-failed", Error, "a compressed block does not decompress");
    /// ## What it checks
    /// Every compressed block decompresses to exactly its declared uncompressed size.
    ///
    /// ## Why it matters
    /// trace-cmd allocates the declared size and parses it whole: a larger declaration makes it
    /// parse uninitialised memory as pages (silently wrong report).
    ///
    /// ## What readers do
    /// trace-cmd 3.x decompresses a section into max(usize, csize) bytes and reads what the block
    /// holds (`tracecmd_uncompress_block`). The level follows the case:
    /// - **error**: the block holds more than that buffer (decompression fails, the section is
    ///   lost), or a CPU chunk's size is wrong (its pages are cut or read from stale memory);
    /// - **warning**: a section's `usize` is wrong but the block fits the buffer: trace-cmd
    ///   3.1.6–3.3.4 read the same (verified with the matrix). A declared size above
    ///   `max_section_bytes` is not allocated: tracelint decompresses into at most the limit
    ///   and reports `TL003` only when the block really holds more;
    /// - **error** when max(usize, csize) is 2^31 or more: trace-cmd 3.1.6–3.3.4
    ///   (`tracecmd_uncompress_block`) hold it in an `int`, which is negative, `malloc` fails
    ///   and the section is lost (campaign `full18`: the report is rejected). For the STRINGS
    ///   section a **warning**: the readers ignore it unread and read the same events
    ///   (campaign `full18`: 3 mutants, every reader the same).
    pub DECOMPRESSED_SIZE = ("TD018", "decompressed-size", Error, "a compressed block does not decompress to its declared size");
    /// ## What it checks
    /// Sections do not overlap each other or the initial header.
    ///
    /// Reserved: no check raises this rule yet. CPU data over metadata is `TD034`, and a section
    /// read at a wrong place shows as findings about its content.
    ///
    /// ## Why it matters
    /// Overlapping structures are a sign of corruption or a crafted file.
    ///
    /// ## What readers do
    /// trace-cmd reads each section where its option points; overlapping sections make the same
    /// bytes two things, so at least one is read wrong.
    pub SECTION_OVERLAP = ("TD020", "section-overlap", Error, "two sections or a section and the header overlap");
    /// ## What it checks
    /// Every option record (u16 id, u32 size, payload) fits in its OPTIONS section (v7) or
    /// before the data tag (v6), and each v7 OPTIONS section ends with DONE as its last option.
    ///
    /// ## Why it matters
    /// trace-cmd reads options straight from the file and trusts `size` for its allocation.
    ///
    /// ## What readers do
    /// trace-cmd reads options straight from the file and allocates `size`: a record that does not
    /// fit fails the read and the file is rejected; a missing DONE reads whatever follows as
    /// options.
    ///
    /// The level follows the case: an uncompressed options section whose options end with DONE
    /// elsewhere than its size says is a **warning** (trace-cmd 3.1.6–3.3.4 read options from the
    /// file up to DONE, whatever the size; the options are then read the same way here); options
    /// that do not fit the file or end without DONE stay errors.
    pub OPTION_LAYOUT = ("TD021", "option-layout", Error, "an option record does not fit or DONE is missing or misplaced");
    /// ## What it checks
    /// The v7 options chain: every DONE next-offset is 0 or the start of another OPTIONS section,
    /// and no section is visited twice.
    ///
    /// ## Why it matters
    /// trace-cmd 3.1.6 follows the chain recursively without a cycle check: a loop crashes it.
    ///
    /// ## What readers do
    /// trace-cmd 3.1.6 follows DONE offsets recursively without a cycle check: a loop crashes it
    /// (stack overflow, verified); an offset outside OPTIONS sections rejects the file.
    pub OPTIONS_CHAIN = ("TD022", "options-chain", Error, "the options chain loops or points outside OPTIONS sections");
    /// ## What it checks
    /// Fixed-size options have their exact size: CPUCOUNT 4, TRACEID 8, TSC2NSEC 16, section
    /// offsets (16–21, 23, 25) 8, v7 DONE 8.
    ///
    /// ## Why it matters
    /// trace-cmd reads CPUCOUNT without a size check and ignores short offset options silently.
    ///
    /// ## What readers do
    /// trace-cmd reads CPUCOUNT as 4 bytes whatever the size and ignores offset options of the
    /// wrong size: the CPU table or a metadata section is read wrong or lost.
    ///
    /// The level follows the case: a v7 DONE option longer than 8 bytes is a **warning**
    /// (`handle_option_done` refuses only sizes below 8 and takes the offset from the first 8
    /// bytes, campaign).
    pub OPTION_SIZE = ("TD023", "option-size", Error, "a fixed-size option has the wrong size");
    /// ## What it checks
    /// String options (DATE, CPUSTAT, TRACECLOCK, UNAME, HOOK, OFFSET, VERSION, PROCMAPS,
    /// LAST_BOOT_INFO) are non-empty and end with their only NUL.
    ///
    /// ## Why it matters
    /// A CPUSTAT of size 0 crashes trace-cmd 3.1.6 (heap underflow); an unterminated UNAME is
    /// read past its buffer.
    ///
    /// ## What readers do
    /// A CPUSTAT of size 0 makes trace-cmd 3.1.6 write before its buffer (heap underflow); an
    /// unterminated UNAME or VERSION is `strdup`ed past the buffer. An empty TRACECLOCK is TD067
    /// instead.
    ///
    /// The level follows the case: an empty string option is an **error** (CPUSTAT's
    /// `buf[size - 1]` underflows in trace-cmd 3.1.6); a NUL inside or none at the end is a
    /// **warning**: readers take the text up to the first NUL and read every event the same
    /// (campaign: option ids changed to string options).
    pub OPTION_STRING = ("TD024", "option-string", Error, "a string option is empty or not a single NUL-terminated string");
    /// ## What it checks
    /// Option ids are known (0–25).
    ///
    /// ## Why it matters
    /// Unknown options are skipped by readers; they may come from a newer writer.
    ///
    /// ## What readers do
    /// trace-cmd skips options it does not know (`default:` in `handle_options`): the file reads
    /// the same. A newer writer may add option ids.
    pub UNKNOWN_OPTION = ("TD025", "unknown-option", Info, "an option id is unknown");
    /// ## What it checks
    /// Structured option payloads parse: HOOK text, PROCMAPS lines, TIME_SHIFT counts,
    /// GUEST cpu table, TSC2NSEC (shift ≤ 32, mult ≠ 0), DATE/OFFSET integers, TRACECLOCK `[clock]`.
    ///
    /// ## Why it matters
    /// A malformed HOOK crashes trace-cmd 3.1.6; bad TIME_SHIFT/GUEST data makes it read out of
    /// bounds or allocate unbounded memory.
    ///
    /// ## What readers do
    /// A malformed HOOK crashes trace-cmd 3.1.6 (segfault, verified); bad TIME_SHIFT or GUEST data
    /// makes it read out of bounds or allocate without bound; bad DATE/OFFSET/TSC2NSEC values shift
    /// every timestamp.
    ///
    /// The level follows the case: DATE/OFFSET text that is no integer (`strtoll` takes what
    /// parses, 0 when nothing does), a TRACECLOCK without `[name]` (the default clock stays) and
    /// PROCMAPS lines that do not parse (`trace_pid_map_load` drops the maps) are **warnings**:
    /// trace-cmd 3.1.6–3.3.4 read every event the same (campaign); HOOK, TIME_SHIFT, GUEST and
    /// TSC2NSEC stay errors.
    pub OPTION_PAYLOAD = ("TD026", "option-payload", Error, "a structured option payload is malformed");
    /// ## What it checks
    /// Options that describe one thing (TRACECLOCK, UNAME, VERSION, TRACEID, CPUCOUNT with a
    /// different value, section offsets) appear at most once.
    ///
    /// ## Why it matters
    /// Readers keep the last value silently.
    ///
    /// ## What readers do
    /// trace-cmd keeps the last value of a repeated option; the other values are silently ignored,
    /// so readers agree on the data.
    pub DUPLICATE_OPTION = ("TD027", "duplicate-option", Warning, "an option that describes one thing appears more than once");
    /// ## What it checks
    /// CPU counts agree: v6 header count vs CPUCOUNT, BUFFER cpu ids < CPUCOUNT, ncpus ≤ CPUCOUNT.
    ///
    /// ## Why it matters
    /// The per-CPU table is sized by one count and indexed by the other.
    ///
    /// ## What readers do
    /// trace-cmd sizes the per-CPU table by one count and indexes it by the other: CPUs are lost or
    /// read out of bounds.
    ///
    /// The level follows the case: in a v7 file, a BUFFER option listing more CPUs than
    /// CPUCOUNT, or CPU ids not below it, is a **warning** (trace-cmd 3.1.6–3.3.4 size and walk
    /// each buffer's table by the option's own count, `init_buffer_cpu_data`; campaign: the
    /// same report). A CPU id of 8192 or more stays an error: trace-cmd sizes per-CPU tables by
    /// the largest id (5 GB at 2^24) and prints nothing from 2^28 on (campaign). The v6 header
    /// count against CPUCOUNT stays an error.
    pub CPU_COUNT = ("TD028", "cpu-count", Error, "CPU counts or CPU ids disagree");
    /// ## What it checks
    /// A v7 file has the options that locate its metadata (HEADER_INFO, FTRACE_EVENTS,
    /// EVENT_FORMATS, KALLSYMS, PRINTK, CMDLINES) and at least one BUFFER or BUFFER_TEXT.
    ///
    /// ## Why it matters
    /// Without header_page and the formats, events cannot be decoded.
    ///
    /// ## What readers do
    /// trace-cmd 3.x cannot decode events without header_page and the formats: it rejects the file
    /// or prints nothing.
    ///
    /// The level follows the case: no KALLSYMS or PRINTK option is a **warning** (addresses
    /// and `trace_printk` formats print unresolved, every event is read, campaign); no
    /// FTRACE_EVENTS or EVENT_FORMATS option is a **warning** too: trace-cmd 3.1.6–3.3.4 read
    /// every event whose format they have, and a record whose format would be in the missing
    /// section has an id no format defines (`TD111`, an error where such a record occurs;
    /// campaign: option ids changed); no HEADER_INFO, CMDLINES or BUFFER stays an error. No
    /// TRACECLOCK option while the top buffer's clock (named in its v7 BUFFER option or the v6
    /// clock record) is not a nanosecond clock is an **error**: trace-cmd 3.1.6–3.3.4 (v6:
    /// 2.9.5–3.3.4) then print the raw counter or TSC values as nanoseconds (a `counter` trace
    /// prints every event at 0.000000, campaign).
    pub MISSING_METADATA = ("TD030", "missing-metadata", Error, "a required metadata part is missing");
    /// ## What it checks
    /// BUFFER options: payload parses exactly to its size; names unique (top `""` at most once);
    /// clock non-empty; page size valid; CPU ids strictly increasing. v6 BUFFER offsets point at a
    /// `flyrecord\0` tag.
    ///
    /// ## Why it matters
    /// trace-cmd only catches duplicate CPUs when the earlier one has data.
    ///
    /// ## What readers do
    /// trace-cmd reads BUFFER options field by field: a malformed one misplaces the instance's CPU
    /// table; duplicate CPUs are caught only when the earlier one has data.
    ///
    /// The level follows the case: a top-buffer page size that differs from the file header's is
    /// a **warning** (trace-cmd 3.1.6–3.3.4 use the header's, campaign). An instance's page size
    /// that is not a power of two, or smaller than the 16-byte page header, is an **error** when
    /// the instance holds CPU data (trace-cmd 3.1.6 and 3.3.4 read a v7 instance's pages with it,
    /// `tracecmd_buffer_instance_handle`: sizes 1 to 512 crash both on a zstd instance whose pages
    /// hold 716 and 1,008 bytes, 768 loses events, campaign) and a **warning** when it holds none.
    /// A power of two from 16 up is judged page by page (`TD101` where a page's data does not
    /// fit). Malformed payloads stay errors.
    pub BUFFER_OPTION = ("TD031", "buffer-option", Error, "a BUFFER option is malformed");
    /// ## What it checks
    /// Every CPU data offset with data is a multiple of the page size.
    ///
    /// ## Why it matters
    /// trace-cmd reports "bad page offset" and then prints a garbage record with exit code 0.
    ///
    /// ## What readers do
    /// trace-cmd 3.1.6 reports "bad page offset" and then prints a garbage record with exit code 0
    /// (verified).
    pub CPU_DATA_UNALIGNED = ("TD032", "cpu-data-unaligned", Error, "a CPU data offset is not page aligned");
    /// ## What it checks
    /// Every CPU data range lies inside the file (overflow-safe) and, in v7, inside its BUFFER
    /// section body. A size-0 range may have any offset (real v6 files put it past EOF).
    ///
    /// ## Why it matters
    /// trace-cmd's `offset + size` check wraps around for huge values.
    ///
    /// ## What readers do
    /// trace-cmd's `offset + size` check wraps for huge values: it maps or reads past the end of
    /// the file (crash or garbage); smaller overruns lose the CPU's last pages.
    ///
    /// The level follows the case: CPU data outside a BUFFER section body that is too short,
    /// lying in no other section, is a **warning** (readers go by the BUFFER option's offset and
    /// size and never use the section size, campaign); so is CPU data, or a compressed stream's
    /// chunks, running past the end of a short BUFFER section into no other section. Data
    /// outside the file or inside another section stays an error.
    pub CPU_DATA_RANGE = ("TD033", "cpu-data-range", Error, "a CPU data range lies outside the file or its section");
    /// ## What it checks
    /// CPU data ranges of all buffers do not overlap each other or the metadata.
    ///
    /// ## Why it matters
    /// Overlaps make the same bytes count as two CPUs' events.
    ///
    /// ## What readers do
    /// trace-cmd reads every range as given: overlapping bytes are printed as events of two CPUs.
    pub CPU_DATA_OVERLAP = ("TD034", "cpu-data-overlap", Error, "CPU data ranges overlap each other or other structures");
    /// ## What it checks
    /// Uncompressed CPU data sizes, and each decompressed chunk but the last, are multiples of
    /// the page size.
    ///
    /// ## Why it matters
    /// The reader indexes whole pages; a partial page is read out of bounds.
    ///
    /// ## What readers do
    /// trace-cmd maps every page of a CPU whole, the last one too: `get_next_page` goes on while
    /// more than a page is left and `get_page` maps `page_size` bytes. The level follows the case:
    /// - **warning**: uncompressed data whose last page is in the file whole (a size short of a
    ///   page boundary): trace-cmd 2.4, 2.9.5, 3.1.6 and 3.3.4 print the same report as with the
    ///   whole page (campaign: 24 of 24 v6 and v7 sizes one byte short; sizes cut to the page
    ///   header and to the middle of the page verified by hand); the page is walked whole;
    /// - **error**: a last page the file ends inside, and a decompressed chunk that is not whole
    ///   pages (trace-cmd 3.1.6–3.3.4 crash on, reject or lose the events of 5 of 6 such chunks in the
    ///   campaign).
    pub CPU_DATA_SIZE = ("TD035", "cpu-data-size", Error, "CPU data is not a whole number of pages");
    /// ## What it checks
    /// The declared size of a compressed CPU stream is 4 bytes smaller than the stream itself
    /// (chunk-count field not counted).
    ///
    /// ## Why it matters
    /// This is a known writer bug of trace-cmd before 3.2 (kernel bugzilla 217367, fixed by
    /// commit 4b921329). Readers ignore the size, so the data is readable; the file was written
    /// by an old trace-cmd.
    ///
    /// ## What readers do
    /// trace-cmd 3.x and later ignore the declared size of a compressed CPU stream and read its
    /// chunks (verified with trace-cmd 3.1.6 on its own files): the data reads the same.
    pub COMPRESSED_SIZE_QUIRK = ("TD036", "compressed-size-quirk", Info, "a compressed CPU stream is 4 bytes longer than declared (trace-cmd < 3.2 writer bug)");
    /// ## What it checks
    /// A compressed CPU or latency stream: chunk count ≥ 1 when there is data, every chunk header
    /// and body inside the file, and the stream length equal to the declared size.
    ///
    /// ## Why it matters
    /// trace-cmd `calloc`s the chunk table from the count; bad sizes read other data.
    ///
    /// ## What readers do
    /// trace-cmd 3.1.6 `calloc`s the chunk table from the count (huge counts: ENOMEM, the CPU is
    /// lost) and reads chunks by their sizes: bad sizes read other bytes as pages.
    ///
    /// The level follows the case: a whole chunk stream whose declared size differs is a
    /// **warning** (trace-cmd 3.1.6–3.3.4 read chunks by their own headers, campaign), unless
    /// another chunk header follows the counted chunks inside the declared size: the count then
    /// leaves chunks unread and their events are lost (**error**); a declared size of 0 (the CPU is
    /// skipped) and broken chunk headers stay errors.
    pub CHUNK_STREAM = ("TD037", "chunk-stream", Error, "a compressed chunk stream is malformed");
    /// ## What it checks
    /// Padding bytes between the start of a BUFFER section (or the end of a CPU's data) and the
    /// next page-aligned CPU data are zero.
    ///
    /// ## Why it matters
    /// The writer always zero-fills; other bytes mean hidden or stale data.
    ///
    /// ## What readers do
    /// Readers read only the ranges the CPU entries declare. The level follows the case:
    /// - **error**: the non-zero bytes are the header of a whole page, or (compressed) a chunk
    ///   count and chunk sizes at a page boundary, before a CPU's data or after the last one:
    ///   CPU data no entry covers, typically a CPU size cut to 0 or short; trace-cmd 2.4–3.3.4
    ///   never read those events (campaign). The page a short size ends in is read whole
    ///   (`TD035`), so the search for such a page starts at the next page boundary;
    /// - **warning**: other non-zero bytes; every reader reads the same.
    pub CPU_DATA_NONZERO_PADDING = ("TD039", "cpu-data-nonzero-padding", Warning, "padding before CPU data is not zero");
    /// ## What it checks
    /// No bytes follow the last CPU data (v6), and no bytes that are not a section follow the
    /// last section (v7).
    ///
    /// ## Why it matters
    /// Trailing bytes are not read by anything: an appended or partly overwritten file.
    ///
    /// ## What readers do
    /// trace-cmd ignores bytes after the last CPU data or section (verified with trace-cmd 3.1.6:
    /// the same report with 70 bytes appended).
    ///
    /// The level follows the case: in a v6 file, trailing bytes that hold an instance's
    /// `flyrecord\0` CPU table with CPU data (its BUFFER option lost or turned into another
    /// option) are an **error**: trace-cmd 2.4–3.3.4 never read those events (campaign). So are
    /// trailing bytes whose first page after the page the last CPU's data ends in (trace-cmd
    /// maps that page whole, `TD035`) is a ring page: a CPU size cut to 0 or short (a size of
    /// three pages halved: trace-cmd 2.4, 2.9.5, 3.1.6 and 3.3.4 print 3 of 5 events, campaign).
    pub TRAILING_DATA = ("TD040", "trailing-data", Warning, "bytes follow the end of the trace");
    /// ## What it checks
    /// The literal tags: `header_page\0`, `header_event\0`, and the 10-byte v6 tags
    /// `options  \0`, `latency  \0`, `flyrecord\0`.
    ///
    /// ## Why it matters
    /// trace-cmd compares only the first 7–9 characters; anything else is a damaged file.
    ///
    /// ## What readers do
    /// trace-cmd compares the tag and rejects the file when it differs (verified with trace-cmd
    /// 3.1.6: `flyrecorX` gives an empty report). It compares only the first 7–9 bytes of the v6
    /// tags: a difference after them is TD072.
    pub BAD_TAG = ("TD041", "bad-tag", Error, "an expected literal tag is missing or different");
    /// ## What it checks
    /// The v6 clock record after the flyrecord table: `u64 len` then `[clock]`, matching the
    /// TRACECLOCK option's selected clock.
    ///
    /// ## Why it matters
    /// Timestamps are interpreted in that clock.
    ///
    /// ## What readers do
    /// trace-cmd reads the record only when a TRACECLOCK option exists; an unreadable record gives
    /// "File has trace_clock bug, using local clock", and a clock that disagrees with TRACECLOCK
    /// wins over it. The level follows the case:
    /// - **error**: with TRACECLOCK, a record trace-cmd 2.4 reads whole but finds no `[clock]`
    ///   word in (a length of 0, text without `[`): it sets no trace clock and crashes (SIGSEGV,
    ///   `is_timestamp_in_us` compares a NULL clock) at the first event; a v6 file is made for
    ///   2.x readers (campaign: a clock record length set to 0);
    /// - **warning** otherwise: the events read are the same.
    pub CLOCK_RECORD = ("TD043", "clock-record", Warning, "the v6 clock record is malformed or disagrees with TRACECLOCK");
    /// ## What it checks
    /// header_page text parses and defines `timestamp` (size 8), `commit` (size 4 or 8) and
    /// `data` fields.
    ///
    /// ## Why it matters
    /// The commit field size is the kernel long size used to decode every page header.
    ///
    /// ## What readers do
    /// libtraceevent's `tep_parse_header_page` fails or takes defaults: pages are decoded with the
    /// wrong commit size and every event is misframed.
    pub HEADER_PAGE = ("TD050", "header-page", Error, "header_page text is malformed or lacks a required field");
    /// ## What it checks
    /// header_page agrees with the file header: data offset + data size equals the page size;
    /// the commit size equals the long-size byte.
    ///
    /// ## Why it matters
    /// A mismatch means pages are cut at the wrong size (long-size differences also occur with
    /// 32-bit user space on a 64-bit kernel).
    ///
    /// ## What readers do
    /// trace-cmd decodes pages with the header_page sizes, whatever the header says; readers that
    /// use the header's long or page size misframe the pages.
    pub HEADER_PAGE_MISMATCH = ("TD051", "header-page-mismatch", Warning, "header_page disagrees with the file header");
    /// ## What it checks
    /// header_event text matches the ring-buffer constants (type_len 5 bits, time_delta 27
    /// bits, padding 29, time_extend 30, time_stamp 31, data max 28).
    ///
    /// ## Why it matters
    /// Readers hard-code these constants; different ones mean a different encoding.
    ///
    /// ## What readers do
    /// trace-cmd reads header_event and discards it (lib/trace-cmd/trace-input.c
    /// `read_header_files`); libtraceevent hard-codes the encoding. The events read are the same.
    pub HEADER_EVENT = ("TD052", "header-event", Warning, "header_event text does not describe the expected event header");
    /// ## What it checks
    /// Each event format parses: `name:`, `ID:`, `format:` with `field:…;offset:N;size:N;signed:N;`
    /// lines, and `print fmt:`.
    ///
    /// ## Why it matters
    /// An unparsable format makes its events undecodable; trace-cmd only counts the failure.
    ///
    /// ## What readers do
    /// libtraceevent parses every format when the file is opened. Its head is read token by
    /// token (`event_read_name`, `event_read_id`, `event_read_format`): `name` `:` name, then
    /// `ID` `:` and an id that is `strtoul` of the next token (`1Vformat` is 1, `0x10` is 16; a
    /// negative `int` drops the format), then `format` `:` and a line end. A format whose name
    /// or id is not read there (`ID:` before `name:`, a second word after the name) is
    /// dropped, and its records are unknown events; one that breaks after its id is kept under
    /// that id, failed. The level follows the case and the file's version (campaign, 2,500
    /// mutants a run):
    /// - **error** when the format of the lowest id breaks before its `common_type` field:
    ///   libtraceevent keeps a format that fails after its name and id and takes the offset of
    ///   every record's id from `tep->events[0]`, the lowest id (`__parse_common`), and trace-cmd
    ///   3.1.6–3.3.4 print every event as `[UNKNOWN EVENT]` (campaign); a format of another id
    ///   that breaks there is skipped like any other;
    /// - **error** when a `__print_symbolic`/`__print_flags` value names no field of the
    ///   format: libtraceevent crashes parsing it and trace-cmd 2.4–3.3.4 segfault, whether or
    ///   not the event is in the data (campaign); another `REC->` of no field is a warning;
    /// - **error** when an event system name is no identifier: the format before it is longer
    ///   than its size and everything after it is misframed (readers reject the file, campaign);
    ///   a **warning** when the system's last format is shorter than its text (its size cut to
    ///   0 or half, or its closing newline left out), so that the name read after it is the
    ///   rest of that text up to the next system's own name and NUL: trace-cmd 2.4–3.3.4 read
    ///   the same string, go on in step and read every other event the same (campaign
    ///   `full18`: 3 mutants, all five readers the same); the short format is reported on its
    ///   own. It stays an error when that format parses whole, or when in a v6 file bytes
    ///   follow the last CPU data: then bytes were added to the format rather than its size
    ///   cut, and everything after it is read at the wrong place (campaign `full18`: a
    ///   duplicated field line, every reader rejects the file);
    /// - **warning** otherwise in a v7 file: trace-cmd 3.1.6–3.3.4, its only readers, skip a
    ///   format they cannot parse and read every other event the same; records of that event,
    ///   if any, have an id no format defines and are reported as errors on their own;
    /// - **error** in a v6 file where trace-cmd 2.4 and 2.9.5 crash or hang on the format (a v6
    ///   file is made for v6 readers whoever wrote it: trace-cmd 3.x `convert --file-version
    ///   6` writes them for older tool chains). tracelint reads each v6 format with a model of
    ///   the parser they bundle (`event-parse.c`, the same in both), which has two defects
    ///   libtraceevent 1.7–1.8 fixed:
    ///   - `event_read_fields` frees the last field it linked when the next field line breaks
    ///     before that field is allocated (at its `field` keyword, its `:` or the first word
    ///     of its type): the freed field stays listed and both crash (SIGSEGV) freeing the
    ///     format at exit. A break in the first line of a list, or later in a line, frees
    ///     nothing listed: both skip the format like 3.x;
    ///   - `__read_token` reads a quoted token to its closing quote and never stops at the
    ///     end of the text: a `"` or `'` no later quote closes, reached by the parser, makes
    ///     both loop for ever (a damaged `signed:'`, the closing quote of a print format).
    ///
    ///   Checked against 250 single-byte mutants of v6 format texts run through trace-cmd 2.4
    ///   and 2.9.5: 247 agree (one hang the model predicts is not reached, one crash in the
    ///   print-argument parser it does not model, and a `common_type` line of the lowest id
    ///   broken after its field is allocated, an error by the first case above). No healthy v6
    ///   file reaches either case (the
    ///   corpus, `../shared/samples/wild`, the 2,418 event formats of a 6.18 kernel in a v6
    ///   recording);
    /// - **warning** in a v6 file for the other damage (a damaged `print fmt` keyword, an
    ///   unknown attribute, a number that is not decimal, a missing line): trace-cmd 2.4–3.3.4
    ///   skip the format and read every other event the same.
    pub EVENT_FORMAT = ("TD053", "event-format", Error, "an event format is malformed");
    /// ## What it checks
    /// Fields of an event format do not overlap, and the common fields are where every reader
    /// expects them (`common_type` u16 at offset 0).
    ///
    /// ## Why it matters
    /// The event id of each record is read from `common_type`.
    ///
    /// ## What readers do
    /// libtraceevent parses every format when the file is opened. The level follows the file's
    /// version (campaign, 2,500 mutants a run):
    /// - **error** when `common_type` is not at offset 0 with size 2 in the format of the
    ///   lowest id: libtraceevent takes the offset of every record's id from that format; a
    ///   `common_type` at offset 0 with size 2 that is only listed later is a **warning**
    ///   (libtraceevent looks it up by name), and so is a misplaced one in another format;
    /// - **warning** for overlapping fields: trace-cmd 2.4–3.3.4 read every field at its own
    ///   offset (overlapping fields print what their bytes hold) and every other event the
    ///   same (campaign `full18`: `virt` moved over `common_pid`, `common_flags` moved over
    ///   `common_type` in v6 files read the same by all five readers); the overlap itself
    ///   crashes no parser (`event_read_fields` never compares offsets). A format of a v6 file
    ///   whose text also makes trace-cmd 2.4 and 2.9.5 crash or hang (`TD053`) is an error;
    /// - **warning** for a misplaced `common_type` in a v6 file that is not the lowest id's.
    pub EVENT_FIELDS = ("TD054", "event-fields", Error, "event format fields overlap or the common fields are misplaced");
    /// ## What it checks
    /// Event ids are unique across all ftrace and event formats; system names are unique.
    ///
    /// ## Why it matters
    /// Records with a duplicated id are decoded with whichever format the reader finds first.
    ///
    /// ## What readers do
    /// libtraceevent finds an event by id with a binary search over a sorted array: records with a
    /// duplicated id are decoded with either format.
    pub DUPLICATE_EVENT_ID = ("TD055", "duplicate-event-id", Error, "two event formats share an id or a system appears twice");
    /// ## What it checks
    /// Counts of formats and systems are plausible for the bytes that remain, and each format
    /// size fits.
    ///
    /// ## Why it matters
    /// trace-cmd loops on the counts and allocates each size before reading it.
    ///
    /// ## What readers do
    /// trace-cmd loops on the counts and allocates each size before reading it: huge values exhaust
    /// memory or read past the end, and the file is rejected.
    pub METADATA_SIZE = ("TD056", "metadata-size", Error, "a metadata count or size does not fit the bytes that follow");
    /// ## What it checks
    /// kallsyms lines have the form `ADDR TYPE NAME[\t[MODULE]]`.
    ///
    /// ## Why it matters
    /// Malformed lines lose symbol names in reports.
    ///
    /// ## What readers do
    /// trace-cmd 2.9 (`tracecmd_parse_proc_kallsyms`) stops at the first line it cannot scan: every
    /// later symbol is lost and their addresses print as numbers. The events read the same
    /// (verified with trace-cmd 3.1.6 on a damaged first line). The level follows the case:
    /// - **error** in a v6 file for a line without a word, a character and another word:
    ///   trace-cmd 2.4 (`parse_proc_kallsyms`: `sscanf(line, "%ms %c %ms\t[%ms", …)`) uses the
    ///   name pointer it did not assign, the one the line before freed, and frees it again:
    ///   glibc aborts it (campaign `full18`: an address cut off by a newline, `ic_timer_interrupt`
    ///   alone on a line; fixture in `tests/campaign.rs`);
    /// - **warning** otherwise (and in v7 files, which 2.4 does not read).
    ///
    /// Every reader reads the text as a C string: a NUL ends it, and the lines after it are
    /// not read (a **warning**: their symbols print as addresses).
    pub KALLSYMS_LINE = ("TD057", "kallsyms-line", Warning, "a kallsyms line is malformed");
    /// ## What it checks
    /// printk format lines have the form `0xADDR : "FORMAT"`.
    ///
    /// ## Why it matters
    /// Malformed lines lose `trace_printk` formats.
    ///
    /// ## What readers do
    /// trace-cmd 2.9 (`tracecmd_parse_ftrace_printk`) splits each line at `:`; without one it
    /// registers the text after the line as its format. `trace_printk` records print wrong text;
    /// other events read the same.
    pub PRINTK_LINE = ("TD058", "printk-line", Warning, "a printk format line is malformed");
    /// ## What it checks
    /// saved_cmdlines lines have the form `PID COMM`, as far as the readers' `sscanf(line,
    /// "%d %m[^\n]s")` needs it: a number, then a task name.
    ///
    /// ## Why it matters
    /// Malformed lines lose task names in reports, and crash old readers.
    ///
    /// ## What readers do
    /// trace-cmd 1.x–2.9.x (`tracecmd_parse_cmdlines`, replaced by libtraceevent's parser in
    /// commit a30f266f for 3.0) keep the previous line's freed `comm` when `sscanf` fails and
    /// free it again: a double free that aborts them (from source; trace-cmd 2.4 aborts on a
    /// line `158` cut by a NUL, campaign `full18`). trace-cmd 3.1.6–3.3.4
    /// (`tep_parse_saved_cmdlines`) stop reading task names at that line and read the same
    /// events. The level follows the file's version:
    /// - **error** in a v6 file, which trace-cmd 2.x read;
    /// - **warning** in a v7 file, read by 3.x only (campaign `full18`: three lines without a
    ///   name in a v7 file, every reader the same).
    ///
    /// Every reader reads the text as a C string: a NUL ends it, the line holding it is
    /// checked up to the NUL, and the lines after it are not read (a **warning**: their tasks
    /// print as `<...>`).
    pub CMDLINE_LINE = ("TD059", "cmdline-line", Error, "a saved_cmdlines line is malformed");
    /// ## What it checks
    /// Latency text has no NUL bytes and is exactly the section body (v7) or the rest of the
    /// file (v6).
    ///
    /// ## Why it matters
    /// trace-cmd prints latency text with `%s`, stopping at the first NUL.
    ///
    /// ## What readers do
    /// trace-cmd 3.1.6 prints each block of latency text it reads with `%.*s` (from source:
    /// tracecmd/trace-read.c `read_latency`): the rest of a block after a NUL is not shown.
    pub LATENCY_TEXT = ("TD065", "latency-text", Error, "latency text contains NUL bytes");
    /// ## What it checks
    /// The per-CPU data of a v6 flyrecord table has one entry per CPU, and the CPU count is
    /// plausible (1–8192).
    ///
    /// ## Why it matters
    /// A huge count makes readers allocate and read far beyond the file.
    ///
    /// ## What readers do
    /// trace-cmd allocates per-CPU state from the count: 0 gives an empty report, a huge count
    /// exhausts memory or reads far past the file.
    pub BAD_CPU_COUNT = ("TD066", "bad-cpu-count", Error, "the CPU count is zero or implausible");
    /// ## What it checks
    /// A v6 TRACECLOCK option of size 0.
    ///
    /// ## Why it matters
    /// trace-cmd 2.2.1 to 2.9.x write TRACECLOCK as an empty flag (`tracecmd_add_option(handle,
    /// TRACECMD_OPTION_TRACECLOCK, 0, NULL)`, commit 570bbeea): it only says that a clock record
    /// follows the flyrecord table. trace-cmd 3.0 and later write the `trace_clock` text into it.
    ///
    /// ## What readers do
    /// trace-cmd 3.1.6 reads it as an option with an empty clock list and then reads the clock
    /// record after the flyrecord table, selecting its bracketed clock (verified on trace-cmd
    /// 2.5–2.9.7 files).
    pub TRACECLOCK_FLAG = ("TD067", "traceclock-flag", Info, "the TRACECLOCK option is an empty flag (trace-cmd 2.2.1–2.9.x)");
    /// ## What it checks
    /// A v6 clock record that holds the whole `trace_clock` file (`[local] global counter ...`)
    /// instead of only the selected `[name]`.
    ///
    /// ## Why it matters
    /// trace-cmd 2.2.1 to 2.9.x copy the tracefs `trace_clock` file into the clock record
    /// (`save_tracing_file_data(handle, "trace_clock")`); trace-cmd 3.0 writes only the selected
    /// clock (commit 72670886). Both select the bracketed clock.
    ///
    /// ## What readers do
    /// trace-cmd 2.2.1 and later split the record at spaces and select the bracketed name
    /// (`tracecmd_parse_trace_clock`); trace-cmd 3.1.6 reads these files (verified on real trace-
    /// cmd 2.x files).
    pub CLOCK_RECORD_LIST = ("TD068", "clock-record-list", Info, "the v6 clock record holds the whole trace_clock file (trace-cmd 2.2.1–2.9.x)");
    /// ## What it checks
    /// A header_event text that matches the ring-buffer constants but has no
    /// `time_stamp : type == 31` line.
    ///
    /// ## Why it matters
    /// Linux before 4.17 prints header_event without the time_stamp line (the type was
    /// defined but unused until commit dc4e2801 "ring-buffer: Redefine the unimplemented
    /// RINGBUF_TYPE_TIME_STAMP"). The encoding is the same.
    ///
    /// ## What readers do
    /// trace-cmd discards the header_event text and libtraceevent hard-codes the encoding: trace-
    /// cmd 3.1.6 reads these files (verified on real files from Linux 4.13 and 4.14).
    pub OLD_HEADER_EVENT = ("TD069", "old-header-event", Info, "header_event text of a kernel before 4.17 (no time_stamp line)");
    /// ## What it checks
    /// The selected clock of a v6 clock record (the first space-separated token starting with
    /// `[`, read as a C string) has a name: no NUL byte inside `[...]`, and not `[]`.
    ///
    /// ## Why it matters
    /// trace-cmd reads the record as a C string, so a NUL ends it; when nothing is left between
    /// the brackets `extract_trace_clock` passes NULL to `sscanf` and trace-cmd crashes; a
    /// name cut by a NUL selects another clock than was written.
    ///
    /// ## What readers do
    /// trace-cmd 3.1.6 crashes (segfault, verified) when no name is left between `[` and a NUL or
    /// `]`; a name cut by a NUL selects that shorter clock, so timestamps are shown in another
    /// clock than was recorded.
    pub CLOCK_NAME = ("TD070", "clock-name", Error, "the clock record's `[name]` is empty or cut by a NUL byte");
    /// ## What it checks
    /// Section flags use only bit 0 (compressed), the only flag trace-cmd 3.0–3.4 define.
    ///
    /// ## Why it matters
    /// Other bits are not written by any trace-cmd so far; a newer writer may define them.
    ///
    /// ## What readers do
    /// trace-cmd 3.x tests only `TRACECMD_SEC_FL_COMPRESS` (lib/trace-cmd/trace-input.c) and
    /// ignores other bits: the file reads the same.
    pub SECTION_FLAGS_UNKNOWN = ("TD071", "section-flags-unknown", Info, "a v7 section has flag bits no trace-cmd version defines");
    /// ## What it checks
    /// The bytes of a v6 tag that trace-cmd does not compare: the last three of `options  \0`
    /// and `latency  \0`, the NUL of `flyrecord\0`.
    ///
    /// ## Why it matters
    /// Every trace-cmd writes these bytes as shown; other bytes mean a damaged file.
    ///
    /// ## What readers do
    /// trace-cmd compares only `options`, `latency` (7 bytes) and `flyrecord` (9 bytes) and reads
    /// the file the same (verified with trace-cmd 3.1.6 on `options XX`). A difference in the
    /// compared bytes is TD041.
    pub TAG_TAIL = ("TD072", "tag-tail", Warning, "the uncompared tail of a v6 tag differs");
    /// ## What it checks
    /// A v7 file compressed with zlib.
    ///
    /// ## Why it matters
    /// zlib is a legal algorithm, but trace-cmd reads it only where it was built with zlib:
    /// Debian 12's trace-cmd 3.1.6-1 is built with zstd alone (`trace-cmd list -c` names only
    /// zstd), so a zlib file made elsewhere cannot be read there.
    ///
    /// ## What readers do
    /// Verified on `corpus/tracecmd/zlib-v7.dat` and `instances-v7-zlib.dat`: trace-cmd 3.1.6
    /// and 3.3.4 built with zlib read every event; Debian 12's 3.1.6-1 stops with "error reading
    /// header" and exit 2. `trace-cmd convert --compression zstd` on a machine with zlib makes a
    /// file every 3.x build reads.
    pub ZLIB_COMPRESSION = ("TD073", "zlib-compression", Info, "the file is compressed with zlib, which some trace-cmd builds cannot read");
}
