//! The one check entry point used by the CLI, the daemon and the fuzz targets.

use crate::archive;
use crate::config::Config;
use crate::detect::Format;
use crate::finding::{Counts, Finding, Sink};
use crate::formats::{self, FileCheck};
use crate::input::{self, DirSource, FsDir, LoadMode};
use crate::map::MapNode;
pub use crate::options::CheckOptions;
use crate::rules;
use serde::Serialize;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::{Duration, Instant};

/// The outcome of checking one input.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The input path as given, for display: UTF-8 as is, any other byte as `\xNN`
    /// (see [`escape_path`]).
    pub path: String,
    /// The input path as given, exactly.
    #[serde(skip)]
    pub os_path: std::path::PathBuf,
    /// The detected (or forced) format.
    pub format: Option<Format>,
    /// Input size in bytes (sum of files for a directory).
    pub size: u64,
    /// Findings, file by file (a directory's or an archive's in the order their first finding
    /// was found), each file's by offset, the most severe first at one offset, then in the
    /// order found; the note that findings were left out comes last.
    pub findings: Vec<Finding>,
    /// Findings beyond `max_findings` that were counted but not kept.
    pub dropped: u64,
    /// Counts by severity, including findings past the `max_findings` cap.
    pub counts: Counts,
    /// Findings past the `max_findings` cap, by rule code (rules set to allow left out).
    pub dropped_by_code: Vec<(&'static str, u64)>,
    /// For an archive or compressed input: every member, in archive order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<crate::archive::MemberInfo>,
    /// The structure map.
    #[serde(skip)]
    pub map: Option<MapNode>,
    /// True when the input could not be read at all (exit code 3).
    #[serde(skip)]
    pub io_failed: bool,
    /// True when warnings fail this input too (`--deny warnings`): its verdict is then `fail`
    /// with a warning and no error.
    #[serde(skip)]
    pub deny_warnings: bool,
    /// Time taken.
    #[serde(skip)]
    pub duration: Duration,
}

impl Report {
    /// Whether this input fails: an error finding, or a warning under `deny_warnings`.
    pub fn failed(&self) -> bool {
        self.counts.error > 0 || (self.deny_warnings && self.counts.warning > 0)
    }

    fn new(path: &Path) -> Self {
        Report {
            path: escape_path(path),
            os_path: path.to_path_buf(),
            format: None,
            size: 0,
            findings: Vec::new(),
            dropped: 0,
            counts: Counts::default(),
            dropped_by_code: Vec::new(),
            members: Vec::new(),
            map: None,
            io_failed: false,
            deny_warnings: false,
            duration: Duration::ZERO,
        }
    }
}

/// A path as text without losing anything: valid UTF-8 as is, every byte of an invalid
/// sequence as `\xNN` (so `d\xff.dat` names the file whose name has the byte 0xff).
pub fn escape_path(path: &Path) -> String {
    let bytes = path.as_os_str().as_encoded_bytes();
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// Checks bytes of one file. Never panics on any input (a panic would be a bug; callers that
/// must survive bugs use [`check_path`], which catches them).
pub fn check_bytes(data: &[u8], opts: &CheckOptions, sink: &mut Sink) -> (Option<Format>, MapNode) {
    let len = data.len() as u64;
    if data.is_empty() {
        sink.report(&rules::EMPTY_INPUT, 0..0, "the input is empty (0 bytes)");
        return (None, MapNode::new("empty input", 0, 0));
    }
    let format = match opts.format_hint {
        Some(f) => Some(f),
        None => formats::detect_bytes(data),
    };
    let map = match format.and_then(formats::spec) {
        Some(spec) => match spec.bytes {
            Some(check) => check(data, opts, sink),
            None => {
                sink.report(
                    &rules::UNKNOWN_FORMAT,
                    0..0,
                    format!(
                        "a {} recording is a directory; pass the directory, not one of its files",
                        spec.format
                    ),
                );
                MapNode::new("file", 0, len)
            }
        },
        None => {
            let shown: Vec<String> = data.iter().take(8).map(|b| format!("{b:02x}")).collect();
            let f = sink
                .make(
                    &rules::UNKNOWN_FORMAT,
                    0..len.min(8),
                    format!(
                        "no supported trace format starts with bytes {}",
                        shown.join(" ")
                    ),
                )
                .help(format!(
                    "expected one of the formats {}; use --format-hint to force one",
                    formats::FORMATS
                        .iter()
                        .map(|s| format!("`{}`", s.format))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            sink.push(f);
            MapNode::new("unrecognised file", 0, len)
        }
    };
    (format, map)
}

/// The directory format a directory is checked as: the hinted one (when the hint names one),
/// else the one the table's detection finds (`path`, for a directory on disk), else the
/// table's first directory format.
fn dir_spec(opts: &CheckOptions, path: Option<&Path>) -> Option<&'static formats::FormatSpec> {
    let dir_format = |f: Format| formats::spec(f).filter(|s| s.dir.is_some());
    opts.format_hint
        .and_then(dir_format)
        .or_else(|| match path {
            Some(p) => formats::detect_dir(p).and_then(dir_format),
            None => formats::FORMATS.iter().copied().find(|s| s.dir.is_some()),
        })
}

/// Checks a directory image (a uftrace recording unless a hint names another directory
/// format).
pub fn check_dir(dir: &dyn DirSource, opts: &CheckOptions, sink: &mut Sink) -> MapNode {
    match dir_spec(opts, None).and_then(|s| s.dir.as_ref()) {
        Some(d) => (d.check)(dir, opts, sink),
        None => MapNode::new("directory", 0, 0),
    }
}

/// Checks one path (file or uftrace data directory), applying `config`'s rule levels.
/// Catches panics (reported as `TL004 internal-error`).
pub fn check_path(path: &Path, opts: &CheckOptions, config: &Config) -> Report {
    checked(path, opts, config, |sink, report| {
        check_path_inner(path, opts, sink, report)
    })
}

/// The report of one input reported as `path`, from `check` (guarded: a panic is
/// `TL004 internal-error`), with `config`'s rule levels, caps and counts applied.
fn checked(
    path: &Path,
    opts: &CheckOptions,
    config: &Config,
    check: impl FnOnce(&mut Sink, &mut Report),
) -> Report {
    let start = Instant::now();
    let mut report = Report::new(path);
    let mut sink = Sink::with_limits(&opts.limits).with_levels(config.levels());
    guarded(&mut sink, |sink| check(sink, &mut report));
    finish_report(report, sink, opts, config, start)
}

/// Checks one input read from standard input (`-`): a trace, a compressed trace or an archive.
/// A plain trace is held in memory up to `unpack_memory_bytes`, else spilled to an unnamed
/// temporary file; its findings have no member.
///
/// Standard input that is a regular file read from its start (`tracelint check - < FILE`) is
/// checked in place, as a named file is: nothing is held or spilled.
pub fn check_stdin(opts: &CheckOptions, config: &Config) -> Report {
    if let Some((file, meta)) = stdin_file() {
        let path = Path::new("-");
        return checked(path, opts, config, |sink, report| {
            check_file_checked(path, file, meta, opts, sink, report)
        });
    }
    check_reader(Path::new("-"), Box::new(io::stdin().lock()), opts, config)
}

/// Standard input as an open file and its metadata when it is a regular file whose offset is
/// at its start; `None` for a pipe, a terminal, a socket or a file partly read before.
fn stdin_file() -> Option<(std::fs::File, std::fs::Metadata)> {
    use std::io::Seek;
    use std::os::fd::AsFd;
    let mut file = std::fs::File::from(io::stdin().as_fd().try_clone_to_owned().ok()?);
    let meta = file.metadata().ok()?;
    (meta.is_file() && file.stream_position().ok()? == 0).then_some((file, meta))
}

/// [`check_stdin`] for any stream, reported as `path`.
pub fn check_reader(
    path: &Path,
    input: Box<dyn io::Read>,
    opts: &CheckOptions,
    config: &Config,
) -> Report {
    checked(path, opts, config, |sink, report| {
        let outcome = archive::check(
            archive::Source::Stream(input),
            &escape_path(path),
            &opts.limits,
            opts.format_hint.is_some(),
            sink,
            &mut |leaf, sink| check_leaf(leaf, opts, sink),
        );
        report.size = outcome.members.iter().map(|m| m.size).sum();
        take_outcome(report, outcome);
    })
}

/// The report's format, members and map from an archive check; a plain trace on standard
/// input is one unnamed member, not listed.
fn take_outcome(report: &mut Report, outcome: archive::Outcome) {
    report.format = outcome.format;
    if !outcome.unnamed {
        report.members = outcome.members;
    }
    report.map = Some(outcome.map);
}

/// Runs `f`, turning a panic into `TL004 internal-error`.
fn guarded(sink: &mut Sink, f: impl FnOnce(&mut Sink)) {
    let outcome = catch_unwind(AssertUnwindSafe(|| f(&mut *sink)));
    if let Err(panic) = outcome {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        sink.set_member(None);
        sink.report(
            &rules::INTERNAL_ERROR,
            0..0,
            format!("internal error while checking: {what}"),
        );
    }
}

/// Caps, follow-on filtering, levels and counts: the report of one input from its sink.
fn finish_report(
    mut report: Report,
    sink: Sink,
    opts: &CheckOptions,
    config: &Config,
    start: Instant,
) -> Report {
    let (mut findings, dropped_rules) = sink.into_parts_by_level();
    drop_follow_ons_of_limits(&mut findings);
    let dropped: u64 = dropped_rules.iter().map(|(_, _, n)| n).sum();
    if dropped > 0 {
        findings.push(Finding {
            rule: &rules::FINDINGS_TRUNCATED,
            severity: rules::FINDINGS_TRUNCATED.default_severity,
            member: None,
            file: None,
            offset: 0,
            length: 0,
            message: format!(
                "{dropped} more finding(s) not shown (limit max_findings = {})",
                opts.limits.max_findings
            ),
            notes: Vec::new(),
            help: None,
            impact: None,
        });
    }
    config.apply(&mut findings);
    sort_findings(&mut findings);
    // An input some of whose bytes could not be read or written (a spill on a full disk) is
    // an I/O failure (exit 3), not only a finding.
    report.io_failed |= findings.iter().any(|f| f.rule.code == rules::IO_ERROR.code)
        || dropped_rules
            .iter()
            .any(|(r, _, _)| r.code == rules::IO_ERROR.code);
    // Findings past the cap still count towards the verdict.
    let mut counts = Counts::of(&findings);
    // Each at the level it had when it was dropped (levels can depend on the case).
    for (rule, sev, n) in dropped_rules {
        if config.severity_of(rule).is_some() {
            counts.add_n(sev, n);
            match report
                .dropped_by_code
                .iter_mut()
                .find(|(c, _)| *c == rule.code)
            {
                Some((_, m)) => *m = m.saturating_add(n),
                None => report.dropped_by_code.push((rule.code, n)),
            }
        }
    }
    report.counts = counts;
    report.findings = findings;
    report.dropped = dropped;
    if let Some(map) = report.map.as_mut() {
        map.attach_findings(&report.findings);
    }
    report.duration = start.elapsed();
    report
}

/// The order of [`Report::findings`] (a stable sort: ties keep the order found), for findings
/// collected from a [`Sink`].
pub fn sort_findings(findings: &mut Vec<Finding>) {
    let mut files: Vec<(Option<String>, Option<String>)> = Vec::new();
    let mut keyed: Vec<_> = std::mem::take(findings)
        .into_iter()
        .map(|f| {
            let n = match files
                .iter()
                .position(|(m, x)| *m == f.member && *x == f.file)
            {
                Some(n) => n,
                None => {
                    files.push((f.member.clone(), f.file.clone()));
                    files.len() - 1
                }
            };
            let last = f.rule.code == rules::FINDINGS_TRUNCATED.code;
            ((last, n, f.offset, std::cmp::Reverse(f.severity)), f)
        })
        .collect();
    keyed.sort_by_key(|(k, _)| *k);
    findings.extend(keyed.into_iter().map(|(_, f)| f));
}

/// A report of one finding about the input itself (no span), with `config`'s rule levels.
fn input_report(
    path: &Path,
    rule: &'static crate::rule::Rule,
    message: String,
    help: &str,
    config: &Config,
) -> Report {
    let mut report = Report::new(path);
    let mut findings = vec![Finding {
        rule,
        severity: rule.default_severity,
        member: None,
        file: None,
        offset: 0,
        length: 0,
        message,
        notes: Vec::new(),
        help: Some(help.to_string()),
        impact: None,
    }];
    config.apply(&mut findings);
    report.counts = Counts::of(&findings);
    report.findings = findings;
    report
}

/// The report of a symbolic link or special file met while searching a directory: `TL014`,
/// never followed or opened.
pub fn not_followed_report(path: &Path, what: &str, config: &Config) -> Report {
    input_report(
        path,
        &rules::NOT_FOLLOWED,
        format!("{} is {what}; it was not followed", path.display()),
        "check the target itself if it is a trace",
        config,
    )
}

/// The report for a directory given to check in which no trace file or uftrace data directory
/// was found (`TL008 no-traces-found`), with `config`'s rule levels applied.
pub fn no_traces_report(dir: &Path, config: &Config) -> Report {
    input_report(
        dir,
        &rules::NO_TRACES_FOUND,
        format!(
            "no trace file or uftrace data directory found in {} (searched recursively by content)",
            dir.display()
        ),
        "check the path; an empty spool or artefact folder proves nothing",
        config,
    )
}

/// After a limit was hit (`TL003`) in a file, the decoder went on without the data past the
/// limit, so the format findings it raised afterwards in that file (a count that does not match
/// the entries kept, a section that "is missing") may be about data it never read. Those
/// warnings and errors are left out, and the `TL003` finding says how many; info findings stay.
/// The verdict does not change: `TL003` is itself an error.
fn drop_follow_ons_of_limits(findings: &mut Vec<Finding>) {
    use crate::finding::Severity;
    use crate::registry::Family;
    // Per file (None: the input itself): index of the first TL003 and how many were dropped.
    let mut limited: Vec<(Place, usize, u64)> = Vec::new();
    let mut keep = Vec::with_capacity(findings.len());
    for (i, f) in findings.iter().enumerate() {
        if f.rule.code == rules::LIMIT_EXCEEDED.code {
            if !limited.iter().any(|(place, _, _)| place_of(f) == *place) {
                limited.push((place_of(f), i, 0));
            }
            keep.push(true);
            continue;
        }
        let follow_on = f.rule.family != Family::GENERIC
            && f.severity != Severity::Info
            && limited.iter().any(|(place, _, _)| place_of(f) == *place);
        if follow_on {
            if let Some(entry) = limited
                .iter_mut()
                .find(|(place, _, _)| place_of(f) == *place)
            {
                entry.2 += 1;
            }
        }
        keep.push(!follow_on);
    }
    for (_, at, n) in &limited {
        if *n > 0 {
            if let Some(f) = findings.get_mut(*at) {
                f.notes.push(format!(
                    "{n} later finding(s) in this file left out: the data past the limit was not read, so they may not hold"
                ));
            }
        }
    }
    let mut k = keep.into_iter();
    findings.retain(|_| k.next().unwrap_or(true));
}

/// The (archive member, directory file) a finding is in.
type Place = (Option<String>, Option<String>);

fn place_of(f: &Finding) -> Place {
    (f.member.clone(), f.file.clone())
}

fn io_finding(sink: &mut Sink, report: &mut Report, path: &Path, e: &io::Error) {
    report.io_failed = true;
    sink.report(
        &rules::IO_ERROR,
        0..0,
        format!("cannot read {}: {e}", path.display()),
    );
}

fn check_path_inner(path: &Path, opts: &CheckOptions, sink: &mut Sink, report: &mut Report) {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => return io_finding(sink, report, path, &e),
    };
    if meta.is_dir() {
        // A directory that cannot be listed is unreadable (TL001, exit 3), whatever it holds.
        if let Err(e) = std::fs::read_dir(path) {
            return io_finding(sink, report, path, &e);
        }
        let spec = dir_spec(opts, Some(path));
        if let Some((spec, dspec)) = spec.and_then(|s| Some((s, s.dir.as_ref()?))) {
            report.format = Some(spec.format);
            let dir = FsDir::new(path, opts.load_mode);
            let map = (dspec.check)(&dir, opts, sink);
            report.size = dir
                .list()
                .map(|l| l.iter().map(|e| e.len).sum())
                .unwrap_or(0);
            report.map = Some(map);
        } else {
            sink.report(
                &rules::UNKNOWN_FORMAT,
                0..0,
                "this directory is not a uftrace data directory (no `info` file starting with `Ftrace!\\0`)",
            );
        }
        return;
    }
    if !meta.is_file() {
        sink.report(
            &rules::NOT_A_REGULAR_FILE,
            0..0,
            format!("{} is not a regular file", path.display()),
        );
        return;
    }
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return io_finding(sink, report, path, &e),
    };
    check_file_checked(path, file, meta, opts, sink, report);
}

/// Checks an open regular file (`meta`: as stated before it was opened), then whether it
/// changed while it was checked.
fn check_file_checked(
    path: &Path,
    file: std::fs::File,
    meta: std::fs::Metadata,
    opts: &CheckOptions,
    sink: &mut Sink,
    report: &mut Report,
) {
    report.size = meta.len();
    if meta.len() > opts.limits.max_file_bytes {
        sink.limit(
            0..0,
            "file size",
            meta.len(),
            "max_file_bytes",
            opts.limits.max_file_bytes,
        );
        return;
    }
    // Stat again once checked (through the same open file): a file truncated, grown or
    // rewritten meanwhile was judged on bytes that are no longer there.
    let watch = file.try_clone().ok();
    let before = file.metadata().unwrap_or(meta);
    check_open_path(path, file, &before, opts, sink, report);
    if let Some(w) = watch {
        changed_while_checked(sink, report, path, &before, w.metadata());
    }
}

/// `TL001` (exit 3) when the file's size or modification time after the check differ from
/// before it: the verdict would be about bytes that are not those of the file now.
fn changed_while_checked(
    sink: &mut Sink,
    report: &mut Report,
    path: &Path,
    before: &std::fs::Metadata,
    after: io::Result<std::fs::Metadata>,
) {
    let Ok(after) = after else { return };
    let same_time = before.modified().ok() == after.modified().ok();
    if before.len() == after.len() && same_time {
        return;
    }
    report.io_failed = true;
    let how = if after.len() < before.len() {
        format!("truncated from {} to {} bytes", before.len(), after.len())
    } else if after.len() > before.len() {
        format!("grew from {} to {} bytes", before.len(), after.len())
    } else {
        format!("rewritten ({} bytes, a new modification time)", after.len())
    };
    let f = sink
        .make(
            &rules::IO_ERROR,
            0..0,
            format!(
                "{} changed while it was checked: {how}; the findings are about bytes the file no longer holds",
                path.display()
            ),
        )
        .help("check the file again once its writer is done (the spool daemon: --settle, or rename() complete files into new/)");
    sink.set_member(None);
    sink.push(f);
}

/// [`check_path_inner`] once the regular file is open.
fn check_open_path(
    path: &Path,
    file: std::fs::File,
    meta: &std::fs::Metadata,
    opts: &CheckOptions,
    sink: &mut Sink,
    report: &mut Report,
) {
    let head = {
        use std::os::unix::fs::FileExt;
        let n = usize::try_from(meta.len())
            .map_or(archive::SNIFF_BYTES, |l| l.min(archive::SNIFF_BYTES));
        let mut head = vec![0u8; n];
        if let Err(e) = file.read_exact_at(&mut head, 0) {
            return io_finding(sink, report, path, &e);
        }
        head
    };
    if archive::sniff(&head).is_some() {
        let name = opts.input_name.clone().unwrap_or_else(|| {
            path.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| escape_path(path))
        });
        let outcome = archive::check(
            archive::Source::File {
                file,
                // Sifted members are mapped, and are trace.dat whatever the hint says.
                sift: opts.load_mode == LoadMode::Mmap
                    && matches!(opts.format_hint, None | Some(formats::tracecmd::FORMAT)),
            },
            &name,
            &opts.limits,
            opts.format_hint.is_some(),
            sink,
            &mut |leaf, sink| check_leaf(leaf, opts, sink),
        );
        take_outcome(report, outcome);
        return;
    }
    match check_open_file(&file, meta.len(), opts, sink) {
        Ok((format, map)) => {
            report.format = format;
            report.map = map;
        }
        Err(e) => io_finding(sink, report, path, &e),
    }
}

/// Checks one unpacked archive member.
fn check_leaf(
    leaf: archive::Leaf<'_>,
    opts: &CheckOptions,
    sink: &mut Sink,
) -> (Option<Format>, MapNode) {
    match leaf {
        archive::Leaf::Bytes(b) => check_bytes(b, opts, sink),
        archive::Leaf::Dir(d, runs) => (
            Some(formats::uftrace::FORMAT),
            crate::formats::uftrace::check_dir_with_runs(d, runs, opts, sink),
        ),
        archive::Leaf::Group(spec, d) => match &spec.dir {
            Some(dir) => (Some(spec.format), (dir.check)(d, opts, sink)),
            None => (None, MapNode::new("directory", 0, 0)),
        },
        archive::Leaf::Sifted(f, len, sieve) => {
            let map = input::load_file(f, LoadMode::Mmap, opts.limits.max_file_bytes)
                .and_then(|data| Ok((data, f.try_clone()?)))
                .map(|(data, file)| {
                    crate::formats::tracecmd::check_sifted(&data, file, Some(sieve), opts, sink)
                });
            match map {
                Ok(map) => (Some(formats::tracecmd::FORMAT), map),
                // Not taken: the input is checked again without a sieve.
                Err(_) => {
                    sieve.spoil();
                    (None, MapNode::new("file", 0, len))
                }
            }
        }
        archive::Leaf::Stream(format, head, r) => {
            let Some(st) = formats::spec(format).and_then(|s| s.stream.as_ref()) else {
                return (None, MapNode::new("file", 0, head.len() as u64));
            };
            match (st.check)(head, r, opts, sink) {
                Ok((len, map)) => (
                    Some(format),
                    map.unwrap_or_else(|| MapNode::new("file", 0, len)),
                ),
                // The container reports the error that ended the stream.
                Err(_) => (Some(format), MapNode::new("file", 0, head.len() as u64)),
            }
        }
        archive::Leaf::File(f, len) => match check_open_file(f, len, opts, sink) {
            Ok((format, map)) => (format, map.unwrap_or_else(|| MapNode::new("file", 0, len))),
            Err(e) => {
                sink.report(
                    &rules::IO_ERROR,
                    0..0,
                    format!("cannot read the unpacked member: {e}"),
                );
                (None, MapNode::new("file", 0, len))
            }
        },
    }
}

/// Checks an open regular file of `len` bytes, detecting its format unless hinted; `Ok` with
/// no map when a limit stopped it (reported).
fn check_open_file(
    file: &std::fs::File,
    len: u64,
    opts: &CheckOptions,
    sink: &mut Sink,
) -> io::Result<(Option<Format>, Option<MapNode>)> {
    let format = match opts.format_hint {
        Some(f) => Some(f),
        None => formats::detect_file(file, len)?,
    };
    // Each format reads the file the way that keeps memory flat for multi-GiB inputs.
    if let Some(read) = format.and_then(formats::spec).and_then(|s| s.file) {
        if let FileCheck::Done(map) = read(file, len, opts, sink)? {
            return Ok((map.as_ref().and(format), map));
        }
    }
    let Some(data) = formats::spec::load_whole(file, len, opts, sink)? else {
        return Ok((None, None));
    };
    let (format, map) = check_bytes(&data, opts, sink);
    Ok((format, Some(map)))
}
