//! Format decoders, and the format table. Each format decodes its input into a typed model with
//! byte spans, reports findings into a [`Sink`](crate::finding::Sink) and returns a structure
//! map; its folder declares a [`FormatSpec`] (`<fmt>/mod.rs`, `pub static SPEC`), and
//! [`FORMATS`] lists them. Detection, the check entry points, the rule registry, the command
//! line and the fuzz targets iterate the table (`docs/architecture.md`, "Adding a format").

pub mod ftrace_ring;
pub mod gdb;
pub mod ktrace;
pub mod perf;
pub mod spec;
pub mod tracecmd;
pub mod uftrace;

pub use spec::{DirSpec, FileCheck, FormatSpec, Group};

use crate::detect::{Format, DETECT_BYTES};

/// Every format, in detection and documentation order: one line per format.
pub static FORMATS: &[&FormatSpec] = &[
    &gdb::SPEC,
    &tracecmd::SPEC,
    &uftrace::SPEC,
    &ktrace::SPEC,
    &ktrace::SPEC_V0,
    &perf::SPEC,
    &perf::SPEC_DIR,
];

/// The table entry of `format`.
pub fn spec(format: Format) -> Option<&'static FormatSpec> {
    FORMATS.iter().copied().find(|s| s.format == format)
}

/// The format `name` names (its name or an alias, as `--format` takes it).
///
/// # Errors
///
/// No format has that name: the message lists the names.
pub fn by_name(name: &str) -> Result<Format, String> {
    if let Some(s) = FORMATS.iter().find(|s| s.is_named(name)) {
        return Ok(s.format);
    }
    let names: Vec<String> = FORMATS
        .iter()
        .map(|s| match s.aliases {
            [] => s.format.name().to_string(),
            a => format!("{} (or {})", s.format.name(), a.join(", ")),
        })
        .collect();
    Err(format!(
        "unknown format `{name}`; expected one of {}",
        names.join(", ")
    ))
}

/// Detects the format of file content: the first format whose magic `data` starts with.
/// `None` when nothing matches.
pub fn detect_bytes(data: &[u8]) -> Option<Format> {
    FORMATS.iter().find(|s| s.starts(data)).map(|s| s.format)
}

/// Detects the format of an open file of `len` bytes from its first [`DETECT_BYTES`].
///
/// # Errors
///
/// A failed read.
pub fn detect_file(file: &std::fs::File, len: u64) -> std::io::Result<Option<Format>> {
    use std::os::unix::fs::FileExt;
    let mut head = [0u8; DETECT_BYTES];
    let n = usize::try_from(len).map_or(DETECT_BYTES, |l| l.min(DETECT_BYTES));
    let head = head.get_mut(..n).unwrap_or_default();
    file.read_exact_at(head, 0)?;
    Ok(detect_bytes(head))
}

/// The directory format `dir` is (by content), if any.
pub fn detect_dir(dir: &std::path::Path) -> Option<Format> {
    FORMATS
        .iter()
        .find(|s| s.dir.as_ref().is_some_and(|d| (d.detect)(dir)))
        .map(|s| s.format)
}

/// The directory format whose archive members a file named `name` of `format` heads (see
/// [`Group`]).
pub fn group_head(name: &str, format: Option<Format>) -> Option<&'static FormatSpec> {
    let format = format?;
    FORMATS.iter().copied().find(|s| {
        s.dir
            .as_ref()
            .and_then(|d| d.group.as_ref())
            .is_some_and(|g| g.head == name && g.head_format == format)
    })
}

/// Whether `name` is a sibling file of some directory format's head (see [`Group`]).
pub fn group_member(name: &str) -> bool {
    FORMATS.iter().any(|s| {
        s.dir
            .as_ref()
            .and_then(|d| d.group.as_ref())
            .is_some_and(|g| (g.member)(name))
    })
}

/// Whether a file name extension (`dat`, any case) is one traces of some format are saved
/// under.
pub fn is_trace_extension(ext: &str) -> bool {
    let ext = ext.to_ascii_lowercase();
    FORMATS.iter().any(|s| s.extensions.contains(&ext.as_str()))
}

/// True when `head` (the first bytes of a file) is a trace magic cut short or damaged in at
/// most two bytes: a file a directory search must not pass over.
pub fn near_magic(head: &[u8]) -> bool {
    if head.is_empty() {
        return false;
    }
    let magics = FORMATS.iter().flat_map(|s| {
        s.magics
            .iter()
            .copied()
            .chain(s.dir.as_ref().map(|d| d.magic))
    });
    magics.into_iter().any(|m| {
        let n = head.len().min(m.len());
        let differ = head
            .iter()
            .zip(m.iter())
            .take(n)
            .filter(|(a, b)| a != b)
            .count();
        // A cut magic must match exactly (and be long enough to mean something); a whole
        // one may be damaged in two bytes if the rest (at least 6 bytes) holds.
        if head.len() < m.len() {
            differ == 0 && head.len() >= 3
        } else {
            m.len() >= 8 && differ <= 2
        }
    })
}
