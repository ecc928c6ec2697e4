//! The uftrace data directory validator (rule family `UF`).
//!
//! A recording is a directory: `info` (binary header + text sections), `task.txt` (sessions,
//! tasks, forks, dlopens), one `sid-<SID>.map` per session, a `.sym` symbol table (and with
//! arguments a `.dbg` file) per module, one `<TID>.dat` record stream per task, optional
//! `perf-cpuN.dat`, kernel files, `events.txt`, `extern.dat` and `default.opts`.
//!
//! Layout: [`decode`] has one module per file kind (each builds a typed model with byte spans and
//! reports structural findings); [`checks`] holds the cross-file rules and the task data walk
//! (`checks::dat`); [`rules`] declares the `UF` rules. Task data files are
//! streamed (never held whole in memory) and walked in parallel, with findings merged in
//! directory order so the output is deterministic.
//!
//! `[stack]` line: the real recordings of uftrace 0.13 list only the executable segment of each
//! module plus one `[stack]` line; uftrace derives its kernel address boundary from that line
//! and resolves nothing without it, so a missing `[stack]` line is an error here (`UF041`).
#![deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::panic
)]

pub mod checks;
pub mod decode;
pub mod model;
pub mod repair;
pub mod rules;
#[cfg(any(test, feature = "testkit"))]
pub mod writer;

pub use decode::runs::{RecordSieve, RUNS_BUDGET};
pub use model::{classify, FileKind};

use crate::detect::Format;
use crate::finding::Sink;
use crate::formats::spec::{DirSpec, FormatSpec};
use crate::input::{DirSource, EntryKind};
use crate::map::MapNode;
use crate::options::CheckOptions;

/// The uftrace data directory format.
pub const FORMAT: Format = Format::new("uftrace");

/// The magic the `info` file starts with.
pub const MAGIC: &[u8] = b"Ftrace!\0";

/// The format table's entry (`formats::FORMATS`).
pub static SPEC: FormatSpec = FormatSpec {
    format: FORMAT,
    aliases: &[],
    family: rules::FAMILY,
    rules: &[rules::RULES],
    magics: &[],
    extensions: &[],
    bytes: None,
    file: None,
    dir: Some(DirSpec {
        detect: is_data_dir,
        magic: MAGIC,
        check: check_dir,
        group: None,
    }),
    corpus: "uftrace",
    repair: Some(repair::repair),
};

/// Whether `name` is a task data file (`<TID>.dat`), whose records [`RecordSieve`] can scan
/// before the rest of the directory is known.
pub fn is_task_file(name: &str) -> bool {
    matches!(classify(name), FileKind::Dat(_))
}

/// Checks one data directory.
pub fn check_dir(dir: &dyn DirSource, opts: &CheckOptions, sink: &mut Sink) -> MapNode {
    check_dir_with_runs(dir, &[], opts, sink)
}

/// [`check_dir`] with the first-pass results of some task files, by name (see
/// [`decode::runs`]): the walk takes the runs whose assumptions hold instead of reading them.
/// The findings are the same as without.
pub fn check_dir_with_runs(
    dir: &dyn DirSource,
    runs: &[(&str, &RecordSieve)],
    opts: &CheckOptions,
    sink: &mut Sink,
) -> MapNode {
    let mut root = MapNode::new("uftrace data directory", 0, 0);
    let entries = match dir.list() {
        Ok(e) => e,
        Err(e) => {
            sink.set_file(None);
            sink.report(
                &rules::UNREADABLE_FILE,
                0..0,
                format!("cannot list {}: {e}", dir.path().display()),
            );
            return root;
        }
    };
    let mut files = Vec::new();
    for e in entries {
        if e.kind != EntryKind::File {
            sink.set_file(Some(e.name.clone()));
            sink.report(
                &rules::UNKNOWN_FILE,
                0..0,
                format!(
                    "`{}` is not a regular file ({:?}); uftrace does not use it",
                    e.name, e.kind
                ),
            );
            continue;
        }
        files.push(e);
    }
    root.set("files", files.len());
    checks::check_all(dir, &files, runs, opts, sink, &mut root);
    sink.set_file(None);
    root
}

/// True when `dir` looks like a uftrace data directory: an `info` file with the uftrace magic,
/// or an `info` file (magic damaged or truncated) next to `task.txt` or a `<TID>.dat` file, the
/// shape `uftrace record` writes, or no `info` next to `task.txt` and a `<TID>.dat` file. The
/// second and third kinds are checked as uftrace and fail on their `info`, as uftrace itself
/// does ("invalid magic string found!", or exit 255 without `info`).
pub fn is_data_dir(dir: &std::path::Path) -> bool {
    use std::io::Read;
    let info = dir.join("info");
    let Ok(mut f) = std::fs::File::open(&info) else {
        // No `info` at all, but `task.txt` and a `<TID>.dat`: a recording whose `info` was
        // lost, which every uftrace refuses; it is checked (and fails) as one.
        return !info.exists() && dir.join("task.txt").is_file() && has_task_file(dir);
    };
    let mut magic = [0u8; 8];
    if f.read_exact(&mut magic).is_ok() && magic == MAGIC {
        return true;
    }
    if !info.is_file() {
        return false;
    }
    dir.join("task.txt").is_file() || has_task_file(dir)
}

/// Whether `dir` holds a `<TID>.dat` file.
fn has_task_file(dir: &std::path::Path) -> bool {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return false;
    };
    rd.filter_map(Result::ok).any(|e| {
        let name = e.file_name();
        let name = name.as_encoded_bytes();
        name.strip_suffix(b".dat")
            .is_some_and(|tid| !tid.is_empty() && tid.iter().all(u8::is_ascii_digit))
            && e.file_type().is_ok_and(|t| t.is_file())
    })
}
