//! The recording as a directory: what each file of it is ([`FileKind`], by name), and loading
//! one small file whole. Each file kind's own model is declared next to its decoder in
//! [`decode`](super::decode).

use super::rules;
use crate::finding::Sink;
use crate::input::{Data, DirSource};
use crate::options::CheckOptions;
use std::io;

/// What a file of the directory is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// `info`.
    Info,
    /// `task.txt`.
    TaskTxt,
    /// Legacy binary `task`.
    TaskLegacy,
    /// `sid-<SID>.map`.
    Map(String),
    /// `*.sym` (and `kallsyms`).
    Sym,
    /// `*.dbg`.
    Dbg,
    /// `<TID>.dat`.
    Dat(u64),
    /// `perf-cpuN.dat`.
    Perf(u64),
    /// `kernel-cpuN.dat`.
    KernelCpu(u64),
    /// `kernel_header`.
    KernelHeader,
    /// `kallsyms`.
    Kallsyms,
    /// `events.txt`.
    Events,
    /// `extern.dat`.
    Extern,
    /// `default.opts`.
    DefaultOpts,
    /// `note.txt`.
    Note,
    /// Anything else.
    Unknown,
}

/// Classifies a file name.
pub fn classify(name: &str) -> FileKind {
    match name {
        "info" => return FileKind::Info,
        "task.txt" => return FileKind::TaskTxt,
        "task" => return FileKind::TaskLegacy,
        "kernel_header" => return FileKind::KernelHeader,
        "kallsyms" => return FileKind::Kallsyms,
        "events.txt" => return FileKind::Events,
        "extern.dat" => return FileKind::Extern,
        "default.opts" => return FileKind::DefaultOpts,
        "note.txt" => return FileKind::Note,
        _ => {}
    }
    let num = |s: &str| -> Option<u64> {
        if !s.is_empty() && s.len() <= 19 && s.bytes().all(|c| c.is_ascii_digit()) {
            s.parse().ok()
        } else {
            None
        }
    };
    if let Some(sid) = name
        .strip_prefix("sid-")
        .and_then(|s| s.strip_suffix(".map"))
    {
        return FileKind::Map(sid.to_string());
    }
    if let Some(n) = name
        .strip_prefix("perf-cpu")
        .and_then(|s| s.strip_suffix(".dat"))
        .and_then(num)
    {
        return FileKind::Perf(n);
    }
    if let Some(n) = name
        .strip_prefix("kernel-cpu")
        .and_then(|s| s.strip_suffix(".dat"))
        .and_then(num)
    {
        return FileKind::KernelCpu(n);
    }
    if let Some(n) = name.strip_suffix(".dat").and_then(num) {
        return FileKind::Dat(n);
    }
    if name.ends_with(".sym") && name.len() > 4 {
        return FileKind::Sym;
    }
    if name.ends_with(".dbg") && name.len() > 4 {
        return FileKind::Dbg;
    }
    FileKind::Unknown
}

/// Loads a whole (small) file, reporting failures; `None` when it could not be read.
pub(crate) fn load(
    dir: &dyn DirSource,
    name: &str,
    opts: &CheckOptions,
    sink: &mut Sink,
) -> Option<Data> {
    let max = opts.limits.max_read_bytes;
    match dir.load(name, max) {
        Ok(d) => Some(d),
        Err(e) if e.kind() == io::ErrorKind::FileTooLarge => {
            let size = e.to_string().parse::<u64>().unwrap_or(0);
            sink.limit(
                0..0,
                &format!("size of {name}"),
                size,
                "max_read_bytes",
                max,
            );
            None
        }
        Err(e) => {
            sink.report(
                &rules::UNREADABLE_FILE,
                0..0,
                format!("cannot read {name}: {e}"),
            );
            None
        }
    }
}
