//! Generic rules (`TL`): input/output, detection, limits and internal errors.
//! Format rules live with their decoders under `src/formats/<fmt>/rules.rs`.

crate::declare_rules! {
    family: Generic;
    /// ## What it checks
    /// The path could be opened and read (or, for a directory, listed).
    ///
    /// ## Why it matters
    /// A file that cannot be read cannot be judged. The process exits with code 3.
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
    pub UNKNOWN_FORMAT = ("TL002", "unknown-format", Error, "the content matches no supported trace format");
    /// ## What it checks
    /// A size, count or length in the input stays below the configured `[limits]`.
    ///
    /// ## Why it matters
    /// Limits keep a hostile or corrupt file from exhausting memory or time. The input may still
    /// be valid; it was not fully checked. Raise the limit in `tracelint.toml` for trusted input.
    pub LIMIT_EXCEEDED = ("TL003", "limit-exceeded", Error, "a configured resource limit was hit; the input was not fully checked");
    /// ## What it checks
    /// tracelint itself did not fail while checking the input.
    ///
    /// ## Why it matters
    /// This is a bug in tracelint: please report it with the input. The input is not judged.
    pub INTERNAL_ERROR = ("TL004", "internal-error", Error, "tracelint failed internally while checking this input");
    /// ## What it checks
    /// The input is not empty.
    ///
    /// ## Why it matters
    /// An empty file is a failed capture (the producer died or never wrote).
    pub EMPTY_INPUT = ("TL005", "empty-input", Error, "the input is empty");
    /// ## What it checks
    /// The number of findings stayed below `max_findings`.
    ///
    /// ## Why it matters
    /// Only the first findings are shown; the rest are counted. Usually one early defect causes
    /// many later ones.
    pub FINDINGS_TRUNCATED = ("TL006", "findings-truncated", Info, "more findings than max_findings; the rest were counted, not shown");
    /// ## What it checks
    /// The path is a regular file or a directory (not a socket, device, FIFO or dangling link).
    ///
    /// ## Why it matters
    /// Special files cannot be trace captures and reading them may block forever.
    pub NOT_A_FILE = ("TL007", "not-a-regular-file", Error, "the input is not a regular file or directory");
}
