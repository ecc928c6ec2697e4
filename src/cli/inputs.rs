//! What a run checks: the command line's paths expanded into inputs (files, uftrace
//! directories, and the traces found by searching directories).

use std::path::{Path, PathBuf};
use tracelint::check::{check_path, CheckOptions, Report};
use tracelint::config::Config;
use tracelint::detect::Format;
use tracelint::formats;

/// One input of a run.
pub enum Input {
    /// A file or uftrace data directory to check.
    Check(PathBuf),
    /// A directory given on the command line in which no trace was found.
    NoTraces(PathBuf),
    /// A symbolic link or special file met while searching a directory (not followed).
    NotFollowed(PathBuf, &'static str),
}

/// Expands the command-line paths into inputs: files, uftrace directories, and the trace files
/// and uftrace directories found under other directories. A search never hides what could be
/// a trace: files that cannot be opened and files named or shaped like traces are checked (and
/// fail there), links and special files are reported, not followed; `verbose` lists every
/// file left out and why on stderr.
pub fn collect_inputs(
    paths: &[PathBuf],
    hint: Option<Format>,
    verbose: bool,
    config: &Config,
) -> Vec<Input> {
    let mut out = Vec::new();
    for p in paths {
        if config.force_excludes(p) {
            if verbose {
                eprintln!("skipped {}: excluded by the configuration", p.display());
            }
            continue;
        }
        let dir_format = hint
            .and_then(formats::spec)
            .is_some_and(|s| s.dir.is_some());
        if p.is_dir() && !(dir_format || formats::detect_dir(p).is_some()) {
            let before = out.len();
            walk(p, &mut out, verbose, Some(config));
            if !out[before..].iter().any(|i| matches!(i, Input::Check(_))) {
                out.push(Input::NoTraces(p.clone()));
            }
        } else {
            out.push(Input::Check(p.clone()));
        }
    }
    out
}

/// Searches `dir`; `config` leaves out what its `exclude` matches (`None`: nothing).
pub fn walk(dir: &Path, out: &mut Vec<Input>, verbose: bool, config: Option<&Config>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        out.push(Input::Check(dir.to_path_buf()));
        return;
    };
    let mut entries: Vec<_> = rd.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    // Whether each regular file is a trace candidate (an open and a read each), found in
    // parallel on the current thread pool; the entries are then taken in order.
    let candidates: Vec<Option<Result<(), &'static str>>> = {
        use rayon::prelude::*;
        entries
            .par_iter()
            .map(|e| {
                e.file_type()
                    .ok()
                    .filter(std::fs::FileType::is_file)
                    .map(|_| trace_candidate(&e.path()))
            })
            .collect()
    };
    for (e, candidate) in entries.into_iter().zip(candidates) {
        let p = e.path();
        if config.is_some_and(|c| c.excludes_entry(&p)) {
            if verbose {
                eprintln!("skipped {}: excluded by the configuration", p.display());
            }
            continue;
        }
        let Ok(ft) = e.file_type() else {
            out.push(Input::Check(p));
            continue;
        };
        if ft.is_symlink() {
            out.push(Input::NotFollowed(p, "a symbolic link"));
        } else if ft.is_dir() {
            if formats::detect_dir(&p).is_some() {
                out.push(Input::Check(p));
            } else {
                walk(&p, out, verbose, config);
            }
        } else if !ft.is_file() {
            out.push(Input::NotFollowed(
                p,
                "a special file (FIFO, socket or device)",
            ));
        } else {
            match candidate.unwrap_or_else(|| trace_candidate(&p)) {
                Ok(()) => out.push(Input::Check(p)),
                Err(why) if verbose => eprintln!("skipped {}: {why}", p.display()),
                Err(_) => {}
            }
        }
    }
}

/// Checks standard input; a pipe's buffer is first widened to 1 MiB (or what the system
/// allows), so that the writer and the check take turns a sixteenth as often as with the
/// default 64 KiB.
pub fn check_stdin(opts: &CheckOptions, config: &Config) -> Report {
    let stdin = std::io::stdin();
    if rustix::fs::fstat(&stdin)
        .is_ok_and(|s| rustix::fs::FileType::from_raw_mode(s.st_mode) == rustix::fs::FileType::Fifo)
    {
        // Not widened (EPERM past `/proc/sys/fs/pipe-max-size`): read as it is.
        let _ = rustix::pipe::fcntl_setpipe_size(&stdin, 1 << 20);
    }
    tracelint::check::check_stdin(opts, config)
}

pub fn check_input(input: &Input, opts: &CheckOptions, config: &Config) -> Report {
    match input {
        Input::Check(p) if p.as_os_str() == "-" => check_stdin(opts, config),
        Input::Check(p) => match config.for_path(p) {
            Some(c) => check_path(p, opts, &c),
            None => check_path(p, opts, config),
        },
        Input::NoTraces(dir) => tracelint::check::no_traces_report(dir, config),
        Input::NotFollowed(p, what) => tracelint::check::not_followed_report(p, what, config),
    }
}

/// Whether a file met while searching a directory is checked: it holds a trace (or an archive
/// or compressed stream of one), it cannot be opened (checked, it fails with `TL001`), it is
/// named like a trace, or its first bytes are a cut or damaged trace magic (checked, it fails
/// on detection). `Err` says why it is left out.
fn trace_candidate(p: &Path) -> Result<(), &'static str> {
    let Ok(mut f) = std::fs::File::open(p) else {
        return Ok(());
    };
    if tracelint::archive::holds_traces(&mut f) {
        return Ok(());
    }
    let named = p
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(formats::is_trace_extension);
    if named {
        return Ok(());
    }
    let mut head = [0u8; 16];
    let n = {
        use std::io::{Read, Seek};
        let _ = f.rewind();
        let mut n = 0;
        while n < head.len() {
            match f.read(&mut head[n..]) {
                Ok(0) | Err(_) => break,
                Ok(k) => n += k,
            }
        }
        n
    };
    if formats::near_magic(&head[..n]) {
        return Ok(());
    }
    Err("not a trace: no trace magic and not named like one")
}
