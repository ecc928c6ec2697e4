//! Resource limits: how much tracelint will read, decompress, count and keep for one input.
//!
//! Hitting a limit is its own finding (`TL003 limit-exceeded`), distinct from "malformed": the
//! input may be fine, it is just bigger than this configuration is willing to check.

use serde::{Deserialize, Serialize};

/// Configurable caps. Every length read from a file is checked against the bytes that remain
/// *and* the relevant cap here before anything is allocated for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Largest input file checked (bytes). Larger files get `TL003` and are not decoded.
    pub max_file_bytes: u64,
    /// Largest input held whole in memory: a GDB tfile, a uftrace metadata file, the metadata
    /// kept of a trace.dat read in windows (daemon, `--no-mmap`), or a trace.dat whose metadata
    /// could not be told apart from its ring pages. Files read in windows (ring data, ktrace,
    /// uftrace task files) are not capped by it.
    pub max_read_bytes: u64,
    /// Largest single decompressed block or section (bytes).
    pub max_section_bytes: u64,
    /// Largest total of decompressed bytes for one input.
    pub max_decompressed_bytes: u64,
    /// Largest number of entries of one kind kept in memory (sections, options, threads, symbols, tasks...).
    pub max_entries: u64,
    /// Longest text line accepted in text parts of a format (bytes).
    pub max_line_bytes: u64,
    /// Largest number of XML nodes in an embedded XML document.
    pub max_xml_nodes: u64,
    /// Findings kept per input; the rest are counted and summarised.
    pub max_findings: usize,
    /// Largest total of bytes unpacked from one compressed or archive input (all layers and
    /// members together).
    pub max_unpacked_bytes: u64,
    /// Largest ratio of unpacked to packed bytes of one compression layer or zip member, judged
    /// once it has unpacked more than 64 MiB (a decompression bomb hits it long before it
    /// fills a disk).
    pub max_unpack_ratio: u64,
    /// Largest number of members of one archive.
    pub max_archive_members: u64,
    /// Deepest nesting of compression and archive layers (`x.tar.gz` is 2).
    pub max_archive_depth: u64,
    /// Members (and standard input) up to this size are held in memory while checked; larger
    /// ones are spilled to an unnamed temporary file (in `$TMPDIR`), deleted when checked.
    pub unpack_memory_bytes: u64,
    /// Largest total of bytes spilled to temporary files for one input.
    pub max_spill_bytes: u64,
    /// Wall-clock budget for one input in daemon mode (seconds; 0 = none).
    pub max_check_seconds: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_bytes: 1 << 40,
            max_read_bytes: 1 << 30,
            max_section_bytes: 1 << 30,
            max_decompressed_bytes: 16 << 30,
            max_entries: 10_000_000,
            max_line_bytes: 1 << 20,
            max_xml_nodes: 100_000,
            max_findings: 1000,
            max_unpacked_bytes: 1 << 36,
            max_unpack_ratio: 1000,
            max_archive_members: 100_000,
            max_archive_depth: 4,
            unpack_memory_bytes: 8 << 20,
            max_spill_bytes: 1 << 36,
            max_check_seconds: 600,
        }
    }
}

impl Limits {
    /// Small limits for fuzzing: nothing large is ever allocated.
    pub fn fuzzing() -> Self {
        Limits {
            max_file_bytes: 1 << 24,
            max_read_bytes: 1 << 24,
            max_section_bytes: 1 << 22,
            max_decompressed_bytes: 1 << 24,
            max_entries: 100_000,
            max_line_bytes: 1 << 16,
            max_xml_nodes: 10_000,
            max_findings: 200,
            max_unpacked_bytes: 1 << 25,
            max_unpack_ratio: 1000,
            max_archive_members: 256,
            max_archive_depth: 3,
            unpack_memory_bytes: 1 << 16,
            max_spill_bytes: 1 << 25,
            max_check_seconds: 0,
        }
    }
}
