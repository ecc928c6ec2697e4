//! What the format table (`formats::FORMATS`) knows of one format: its name, rules, how it is
//! recognised and how it is checked. Each format folder declares its [`FormatSpec`] in its
//! `mod.rs` (`pub static SPEC`); detection, the check entry points, the rule registry, the
//! command line and the fuzz targets go through the table, never through a format by name.

use crate::detect::Format;
use crate::finding::Sink;
use crate::input::{self, DirSource, LoadMode};
use crate::ledger::{RepairOptions, Verdict};
use crate::map::MapNode;
use crate::options::CheckOptions;
use crate::rule::{Family, Rule};
use std::io;
use std::path::Path;

/// Checks a whole file held in memory.
pub type CheckBytes = fn(&[u8], &CheckOptions, &mut Sink) -> MapNode;

/// Checks an open regular file of the given length the format's own way (by positioned reads,
/// in windows, mapped): memory stays flat for multi-GiB inputs.
pub type CheckFile = fn(&std::fs::File, u64, &CheckOptions, &mut Sink) -> io::Result<FileCheck>;

/// What a [`CheckFile`] did.
pub enum FileCheck {
    /// The file was checked (`None`: a limit stopped it, and a finding says so).
    Done(Option<MapNode>),
    /// Not read: check the whole file's bytes with the format's [`CheckBytes`].
    Whole,
}

/// What a repair reads: a whole file (mapped or in memory), or a directory.
pub enum Subject<'a> {
    /// A file's bytes.
    Bytes(&'a [u8]),
    /// A directory (on disk, or an archive's members).
    Dir(&'a dyn DirSource),
}

/// Computes the repair of an input from its decoded model (`tracelint fix`): a plan of
/// edits, nothing to do, or why not. Never writes.
pub type Repair = fn(Subject<'_>, &CheckOptions, &RepairOptions) -> Verdict;

/// A format whose input is a directory of files (uftrace).
pub struct DirSpec {
    /// Whether a directory on disk is one of this format (by content).
    pub detect: fn(&Path) -> bool,
    /// The magic the directory's main file starts with (uftrace's `info`): a file starting
    /// with a damaged copy of it is not passed over by a directory search.
    pub magic: &'static [u8],
    /// Checks a directory (on disk, or an archive's members).
    pub check: fn(&dyn DirSource, &CheckOptions, &mut Sink) -> MapNode,
    /// How an archive's members are gathered into such a directory, when its files are
    /// named by their role.
    pub group: Option<Group>,
}

/// The files of a directory format that are named by their role: a head file, itself a file
/// of a file format, and its siblings. An archive gathers the members beside a head into the
/// directory; a head alone is checked as its file format.
pub struct Group {
    /// The head file's name.
    pub head: &'static str,
    /// The head file's format.
    pub head_format: Format,
    /// Whether a file name is one of the head's siblings.
    pub member: fn(&str) -> bool,
}

/// One format of the table.
pub struct FormatSpec {
    /// The format's name (`--format`, JSON, SARIF).
    pub format: Format,
    /// Other names `--format` accepts.
    pub aliases: &'static [&'static str],
    /// The rule family (formats may share one: `ktrace-v0` is checked by the `KT` rules).
    pub family: Family,
    /// The family's rule tables, in documentation order.
    pub rules: &'static [&'static [&'static Rule]],
    /// The magics a file of this format starts with; empty for a format recognised only by a
    /// hint (`--format`) or as a directory.
    pub magics: &'static [&'static [u8]],
    /// File name extensions (lowercase, no dot) traces of this format are saved under: a
    /// directory search checks such files whatever their content.
    pub extensions: &'static [&'static str],
    /// The format's checks of one file, `None` for a directory format (a file is then
    /// reported as one file of such a directory).
    pub bytes: Option<CheckBytes>,
    /// Reads an open file the format's own way; `None`: the whole file is loaded (mapped or
    /// read, up to the limits) and given to [`FormatSpec::bytes`].
    pub file: Option<CheckFile>,
    /// For a directory format, how it is recognised and checked.
    pub dir: Option<DirSpec>,
    /// The folder under `corpus/` holding this format's files (made by its real producers) and
    /// its fuzz regressions (`corpus/<corpus>/regressions/`, replayed by the runner
    /// `fuzzing::runner_for` gives for this name).
    pub corpus: &'static str,
    /// The format's repair (`tracelint fix`), if it has one.
    pub repair: Option<Repair>,
}

impl FormatSpec {
    /// Whether `s` names this format (its name or an alias).
    pub fn is_named(&self, s: &str) -> bool {
        self.format.name() == s || self.aliases.contains(&s)
    }

    /// Whether `data` starts with one of the format's magics.
    pub fn starts(&self, data: &[u8]) -> bool {
        self.magics.iter().any(|m| data.starts_with(m))
    }
}

/// Brings the whole open `file` of `len` bytes into memory as `opts.load_mode` says (mapped, or
/// read up to `max_read_bytes`); `None` after reporting the limit it is over.
///
/// # Errors
///
/// A failed read or mapping.
pub fn load_whole(
    file: &std::fs::File,
    len: u64,
    opts: &CheckOptions,
    sink: &mut Sink,
) -> io::Result<Option<input::Data>> {
    let max = match opts.load_mode {
        LoadMode::Mmap => opts.limits.max_file_bytes,
        LoadMode::Read | LoadMode::Windowed => {
            opts.limits.max_read_bytes.min(opts.limits.max_file_bytes)
        }
    };
    match input::load_file(file, opts.load_mode, max) {
        Ok(d) => Ok(Some(d)),
        Err(e) if e.kind() == io::ErrorKind::FileTooLarge => {
            sink.limit(0..0, "file size", len, "max_read_bytes", max);
            Ok(None)
        }
        Err(e) => Err(e),
    }
}
