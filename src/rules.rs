//! Generic rules (`TL`): input/output, detection, limits and internal errors.
//! Format rules live with their decoders under `src/formats/<fmt>/rules.rs`.

crate::declare_rules! {
    family: crate::rule::Family::GENERIC;
    /// ## What it checks
    /// The path could be opened and read (or, for a directory, listed).
    ///
    /// ## Why it matters
    /// A file that cannot be read cannot be judged. The process exits with code 3.
    ///
    /// ## What readers do
    /// Not applicable: tracelint's own condition. Every reader fails the same way on a file it
    /// cannot open or read (trace-cmd, uftrace and GDB report the system error and stop).
    pub IO_ERROR = ("TL001", "io-error", Error, "the input could not be read");
    /// ## What it checks
    /// The content starts with the magic of one of the supported formats: GDB tfile
    /// (`\x7fTRACE0\n`), trace-cmd (`\x17\x08\x44tracing`), Darwin ktrace (`0x55aa0300`,
    /// `0x00001000`, `0x55aa0200`, `0x55aa0101` little-endian), or is a uftrace data directory
    /// (an `info` file starting with `Ftrace!\0`). Detection never looks at file names.
    ///
    /// ## Why it matters
    /// A file that is none of these is not a trace tracelint can vouch for. Use `--format-hint`
    /// to force a format (for example `ktrace-v0`, which has no magic).
    ///
    /// ## What readers do
    /// Verified: trace-cmd 3.1.6 rejects a file without its magic ("error reading header"),
    /// uftrace 0.13 rejects a directory whose `info` lacks `Ftrace!\0` ("invalid magic string
    /// found!"), GDB 13.1 `target tfile` says "File is not a valid trace file.".
    pub UNKNOWN_FORMAT = ("TL002", "unknown-format", Error, "the content matches no supported trace format");
    /// ## What it checks
    /// A size, count or length in the input stays below the configured `[limits]`. A stream
    /// (standard input) is read once: the ring pages of a trace.dat and the record runs of a
    /// uftrace task file in it are summarised as they pass, not kept; where the check then
    /// needs bytes the summaries do not stand for (which only a damaged file has shown), the
    /// stream is not judged and this finding says so.
    ///
    /// ## Why it matters
    /// Limits keep a hostile or corrupt file from exhausting memory or time. The input may still
    /// be valid; it was not fully checked. Raise the limit in `tracelint.toml` for trusted input,
    /// or check a stream that could not be judged in one pass from a file.
    ///
    /// ## What readers do
    /// Not applicable: tracelint's own condition (readers have no such limits and may read the
    /// file, or exhaust memory on it). The part past the limit was not judged.
    pub LIMIT_EXCEEDED = ("TL003", "limit-exceeded", Error, "a configured resource limit was hit; the input was not fully checked");
    /// ## What it checks
    /// tracelint itself did not fail while checking the input.
    ///
    /// ## Why it matters
    /// This is a bug in tracelint: please report it with the input. The input is not judged.
    ///
    /// ## What readers do
    /// Not applicable: tracelint's own condition; it says nothing about readers.
    pub INTERNAL_ERROR = ("TL004", "internal-error", Error, "tracelint failed internally while checking this input");
    /// ## What it checks
    /// The input is not empty.
    ///
    /// ## Why it matters
    /// An empty file is a failed capture (the producer died or never wrote).
    ///
    /// ## What readers do
    /// Every reader rejects an empty file (verified): trace-cmd 3.1.6 "error reading header",
    /// GDB 13.1 "Premature end of file while reading trace file", uftrace 0.13 "cannot read
    /// header data".
    pub EMPTY_INPUT = ("TL005", "empty-input", Error, "the input is empty");
    /// ## What it checks
    /// The number of findings stayed below `max_findings`.
    ///
    /// ## Why it matters
    /// Only the first findings are shown; the rest are counted. Usually one early defect causes
    /// many later ones.
    ///
    /// ## What readers do
    /// Not applicable: tracelint's own condition (how many findings it keeps).
    pub FINDINGS_TRUNCATED = ("TL006", "findings-truncated", Info, "more findings than max_findings; the rest were counted, not shown");
    /// ## What it checks
    /// The path is a regular file or a directory (not a socket, device, FIFO or dangling link).
    ///
    /// ## Why it matters
    /// Special files cannot be trace captures and reading them may block forever.
    ///
    /// ## What readers do
    /// Readers open whatever path they are given; on a FIFO or device they may block forever or
    /// read other data than a capture. tracelint does not read it.
    pub NOT_A_REGULAR_FILE = ("TL007", "not-a-regular-file", Error, "the input is not a regular file or directory");
    /// ## What it checks
    /// A directory given on the command line holds at least one trace file or uftrace data
    /// directory (searched recursively by content).
    ///
    /// ## Why it matters
    /// A run that checked nothing proves nothing: an empty or mistyped spool or artefact folder
    /// would otherwise pass silently. With `--deny warnings` it fails the run.
    ///
    /// ## What readers do
    /// Not applicable: tracelint's own condition (there is nothing for a reader to read).
    pub NO_TRACES_FOUND = ("TL008", "no-traces-found", Warning, "a directory given to check holds no trace file or uftrace data directory");
    /// ## What it checks
    /// Every member of an archive input (tar, zip, possibly compressed) is a trace file, part
    /// of a uftrace data directory, or a directory. Other members are listed here and not
    /// checked.
    ///
    /// ## Why it matters
    /// An artefact archive often carries logs or binaries beside its traces; listing them shows
    /// what was not judged, without failing the run.
    ///
    /// ## What readers do
    /// Not applicable: tracelint's own condition (no trace reader opens these members).
    pub ARCHIVE_MEMBER_NOT_A_TRACE = ("TL009", "archive-member-not-a-trace", Info, "an archive member is not a trace and was not checked");
    /// ## What it checks
    /// Archive member paths are relative and stay inside the archive: no absolute path, no
    /// `..` component, no empty name.
    ///
    /// ## Why it matters
    /// Extracting such a member writes outside the target directory (zip-slip), or the
    /// extractor rewrites the path, so the unpacked trace is not where or what was checked.
    /// tracelint never extracts; the member is not checked.
    ///
    /// ## What readers do
    /// Extractors differ: GNU tar strips a leading `/` and refuses members with `..`; older
    /// unzip versions and many libraries write outside the directory. Either way the reader
    /// afterwards does not see the file that was uploaded.
    pub ARCHIVE_MEMBER_PATH_UNSAFE = ("TL010", "archive-member-path-unsafe", Error, "an archive member path is absolute or leaves the archive with `..`");
    /// ## What it checks
    /// Archive members are regular files or directories, not symbolic or hard links (or
    /// devices, FIFOs).
    ///
    /// ## Why it matters
    /// A link member has no data of its own: what a reader sees after extraction depends on the
    /// extracting machine (a symlink may point anywhere). tracelint never follows links, so
    /// the data behind it was not checked.
    ///
    /// ## What readers do
    /// After extraction, trace-cmd, uftrace and GDB follow symbolic links like any path and read
    /// whatever the link target is on that machine, which may not be the data that was checked.
    pub ARCHIVE_MEMBER_LINK = ("TL011", "archive-member-link", Warning, "an archive member is a link or special file; it was not followed");
    /// ## What it checks
    /// No two members of an archive have the same path.
    ///
    /// ## Why it matters
    /// Extraction keeps only one of them (tar: the last; unzip: asks, or the first), so the
    /// data readers see depends on the extractor. tracelint checks the first and reports the
    /// others.
    ///
    /// ## What readers do
    /// GNU tar overwrites with the later member, so a reader reads the later copy; other
    /// extractors keep the first or stop. Readers may read other data than was checked.
    pub ARCHIVE_MEMBER_DUPLICATE = ("TL012", "archive-member-duplicate", Error, "two archive members have the same path");
    /// ## What it checks
    /// A compressed stream or archive decodes to its end: the compressed data is intact (checksums
    /// hold), the stream is not truncated, the archive's headers and directory are well formed and
    /// use methods tracelint can decode (zip: stored and deflate).
    ///
    /// ## Why it matters
    /// A damaged container yields damaged or missing members. Members read before the damage are
    /// still checked; what follows is not.
    ///
    /// ## What readers do
    /// `gzip -d`, `zstd -d`, `xz -d`, `tar` and `unzip` report the corruption and stop (or
    /// extract a truncated member), so a reader gets a partial file or none.
    pub ARCHIVE_CORRUPT = ("TL013", "archive-corrupt", Error, "a compressed stream or archive is damaged, truncated or uses an unsupported method");
    /// ## What it checks
    /// A directory being searched for traces holds no symbolic link or special file (FIFO,
    /// socket, device).
    ///
    /// ## Why it matters
    /// tracelint never follows a link or opens a special file while searching a directory: a
    /// trace behind a link is not checked, and a link may point anywhere (`/etc/shadow`, a
    /// FIFO that never ends). Saying so keeps a scan from passing what it did not look at.
    ///
    /// ## What readers do
    /// Not applicable: what the search saw. A reader given the link follows it; check the
    /// target itself (`tracelint check TARGET`).
    pub NOT_FOLLOWED = ("TL014", "not-followed", Warning, "a symbolic link or special file in a searched directory was not followed");
    /// ## What it checks
    /// The members of a zip archive occupy separate byte ranges: no two central-directory
    /// entries point at the same local header, and no member's local header and data reach
    /// into another's. It is checked from the headers alone, before anything is unpacked.
    ///
    /// ## Why it matters
    /// Overlapping members are how "overlap" zip bombs reach ratios of millions: one kernel of
    /// compressed data is unpacked once per entry that points into it, so a few hundred KB
    /// unpack to gigabytes, and a thousand entries sharing one header pass for a thousand
    /// files. No archiver writes overlapping members; the archive is hostile or damaged, so
    /// none of its members is unpacked or checked.
    ///
    /// ## What readers do
    /// Info-ZIP `unzip` 6.0 (with the Debian overlap patch) refuses the archive ("invalid zip
    /// file with overlapped components (possible zip bomb)"); other extractors and libraries
    /// unpack every entry, writing the same data many times over.
    pub ARCHIVE_MEMBERS_OVERLAP = ("TL015", "archive-members-overlap", Error, "zip members overlap or share a local header (a hostile archive)");
}
