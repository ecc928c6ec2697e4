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
pub mod rules;
#[cfg(any(test, feature = "testkit"))]
pub mod writer;

pub use decode::runs::{RecordSieve, RUNS_BUDGET};
pub use model::{classify, FileKind};

use crate::finding::Sink;
use crate::input::{DirSource, EntryKind};
use crate::map::MapNode;
use crate::options::CheckOptions;

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
