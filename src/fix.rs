//! `tracelint fix IN -o OUT`: a repaired copy of a damaged trace, and a ledger of what was
//! done and what was lost.
//!
//! The contract, in the spirit of `pngfix` and `e2fsck -p`:
//! * IN is opened only for reading; OUT must not exist (and so cannot be IN), and may not lie
//!   inside an input directory.
//! * OUT is written under a temporary name in its own directory, synced, checked again with
//!   the library's check, and only then given its name (a directory OUT is complete or
//!   absent). A repair after which the check finds any error (of a rule it claims to mend,
//!   or another) is removed and the run fails.
//! * Repairs are deterministic: OUT is a function of IN alone, unless an option supplied a
//!   missing fact (then the ledger marks what it brought in). Damage that needs a fact the
//!   file does not hold is refused, naming the option that would supply it.
//! * Compressed inputs and archives are unpacked as `check` unpacks them; OUT is the repaired
//!   trace (a file, or a uftrace directory), not a new archive.
//!
//! Each format's repair ([`FormatSpec::repair`](crate::formats::FormatSpec)) computes a
//! [`Plan`] from its decoded model; this module applies it by streaming the input.

use crate::archive;
use crate::check::{self, CheckOptions};
use crate::config::Config;
use crate::detect::Format;
use crate::finding::Severity;
use crate::formats::{self, spec::Subject, FormatSpec};
use crate::input::{self, DirSource, EntryKind, FsDir, LoadMode};
use crate::ledger::{FilePlan, Plan, Refusal, RepairOptions, Verdict};
use serde::Serialize;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Bytes copied per step.
const COPY_BYTES: usize = 1 << 20;

/// What `fix` was asked to do.
pub struct Request<'a> {
    /// The damaged input (a file, compressed file, archive, or uftrace directory).
    pub input: &'a Path,
    /// Where the repaired copy goes (`None` only with `dry_run`).
    pub output: Option<&'a Path>,
    /// Compute and print the plan, write nothing.
    pub dry_run: bool,
    /// Check options (limits, hints).
    pub opts: &'a CheckOptions,
    /// Rule levels for the checks before and after.
    pub config: &'a Config,
    /// Facts supplied on the command line.
    pub repair: &'a RepairOptions,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Nothing to repair; nothing written.
    NothingToDo,
    /// Repaired; OUT holds everything the input's writer wrote that is on disk.
    Repaired,
    /// Repaired; the ledger lists what OUT lacks.
    RepairedWithLoss,
    /// Damage this version cannot repair (or a repair that did not hold); nothing written.
    CannotRepair,
    /// A usage error (OUT exists, OUT inside IN, ...); nothing written.
    Usage,
    /// The input could not be read or OUT could not be written; nothing left behind.
    Io,
}

impl Outcome {
    /// The exit code of the outcome (documented in `tracelint fix --help` and the README).
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::NothingToDo => 0,
            Outcome::CannotRepair => 1,
            Outcome::Usage => 2,
            Outcome::Io => 3,
            Outcome::Repaired => 4,
            Outcome::RepairedWithLoss => 5,
        }
    }
}

/// A finding, briefly (for the ledger).
#[derive(Clone, Debug, Serialize)]
pub struct Brief {
    /// Rule code.
    pub code: &'static str,
    /// Severity after configuration.
    pub severity: Severity,
    /// The file inside a directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Offset.
    pub offset: u64,
    /// Message.
    pub message: String,
}

/// The record of one run: the input, the plan, what was lost, the check of OUT.
#[derive(Clone, Debug, Serialize)]
pub struct Ledger {
    /// The input as given.
    pub input: String,
    /// The output as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The repaired trace's format.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<Format>,
    /// The archive member repaired, for an archive or compressed input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member: Option<String>,
    /// How the run ended.
    pub outcome: Outcome,
    /// The exit code.
    pub exit_code: u8,
    /// Whether OUT was written (never with `--dry-run`).
    pub written: bool,
    /// A dry run.
    pub dry_run: bool,
    /// The input's error findings before the repair.
    pub input_errors: Vec<Brief>,
    /// The repair.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<Plan>,
    /// Why there is no repair.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refusal: Option<Refusal>,
    /// Error and warning findings of the check of OUT.
    pub output_findings: Vec<Brief>,
    /// Entries of an input directory that are not copied (not regular files).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
    /// What happened, in one sentence, when the outcome needs one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Ledger {
    fn new(req: &Request<'_>) -> Self {
        Ledger {
            input: check::escape_path(req.input),
            output: req.output.map(check::escape_path),
            format: None,
            member: None,
            outcome: Outcome::NothingToDo,
            exit_code: 0,
            written: false,
            dry_run: req.dry_run,
            input_errors: Vec::new(),
            plan: None,
            refusal: None,
            output_findings: Vec::new(),
            skipped: Vec::new(),
            message: None,
        }
    }

    fn end(mut self, outcome: Outcome, message: Option<String>) -> Self {
        self.outcome = outcome;
        self.exit_code = outcome.exit_code();
        if message.is_some() {
            self.message = message;
        }
        self
    }
}

/// Where the bytes of one input file come from.
#[derive(Clone, Copy)]
enum Src<'a> {
    /// In memory (or mapped from an unpacked member).
    Bytes(&'a [u8]),
    /// A regular file read by positioned reads.
    File(&'a File),
}

/// Runs `fix`. Never panics on any input; never writes IN.
pub fn fix(req: &Request<'_>) -> Ledger {
    let ledger = Ledger::new(req);
    if let Err(m) = usage_checks(req) {
        return ledger.end(Outcome::Usage, Some(m));
    }
    let meta = match std::fs::metadata(req.input) {
        Ok(m) => m,
        Err(e) => return ledger.end(Outcome::Io, Some(format!("{}: {e}", req.input.display()))),
    };
    // The check of IN (for the ledger) runs beside the repair, which decodes IN itself.
    // It gets one thread of its own: the repair's copy is the kernel's work on the other core.
    let (before, ledger) = std::thread::scope(|s| {
        let h = s.spawn(
            || match rayon::ThreadPoolBuilder::new().num_threads(1).build() {
                Ok(pool) => pool.install(|| check::check_path(req.input, req.opts, req.config)),
                Err(_) => check::check_path(req.input, req.opts, req.config),
            },
        );
        let ledger = repair_input(req, ledger, &meta);
        (h.join(), ledger)
    });
    let Ok(before) = before else {
        return ledger.end(
            Outcome::Io,
            Some(format!(
                "{}: the check of the input failed",
                req.input.display()
            )),
        );
    };
    let mut ledger = ledger;
    if before.io_failed && !ledger.written {
        return ledger.end(
            Outcome::Io,
            Some(format!("{}: cannot be read", req.input.display())),
        );
    }
    ledger.input_errors = briefs(&before, false);
    if ledger.outcome == Outcome::NothingToDo && !ledger.input_errors.is_empty() {
        let mut codes: Vec<&str> = ledger.input_errors.iter().map(|b| b.code).collect();
        codes.dedup();
        let message = format!(
            "the input has errors no repair of this version mends ({}); nothing written",
            codes.join(", ")
        );
        return ledger.end(Outcome::CannotRepair, Some(message));
    }
    ledger
}

/// Detects what IN is and repairs it (the ledger's `input_errors` are filled afterwards).
fn repair_input(req: &Request<'_>, ledger: Ledger, meta: &std::fs::Metadata) -> Ledger {
    if meta.is_dir() {
        let dir = FsDir::new(req.input, LoadMode::Mmap);
        let Some(spec) = dir_spec(req.opts, Some(req.input)) else {
            return ledger.end(
                Outcome::CannotRepair,
                Some("the directory is no trace directory of a known format".into()),
            );
        };
        return repair_dir(req, ledger, spec, &dir, None);
    }
    if !meta.is_file() {
        return ledger.end(
            Outcome::Usage,
            Some(format!("{} is not a regular file", req.input.display())),
        );
    }
    let file = match File::open(req.input) {
        Ok(f) => f,
        Err(e) => return ledger.end(Outcome::Io, Some(format!("{}: {e}", req.input.display()))),
    };
    let mut head = vec![0u8; archive::SNIFF_BYTES.min(usize::try_from(meta.len()).unwrap_or(0))];
    if let Err(e) = file.read_exact_at(&mut head, 0) {
        return ledger.end(Outcome::Io, Some(format!("{}: {e}", req.input.display())));
    }
    if archive::sniff(&head).is_some() {
        return repair_archive(req, ledger, file);
    }
    let format = req
        .opts
        .format_hint
        .or_else(|| formats::detect_bytes(&head));
    let Some(spec) = format.and_then(formats::spec) else {
        return ledger.end(
            Outcome::CannotRepair,
            Some("no supported trace format: nothing to repair from".into()),
        );
    };
    let data = match input::load_file(&file, LoadMode::Mmap, req.opts.limits.max_file_bytes) {
        Ok(d) => d,
        Err(e) => return ledger.end(Outcome::Io, Some(format!("{}: {e}", req.input.display()))),
    };
    repair_bytes(req, ledger, spec, &data, Src::File(&file), None)
}

fn usage_checks(req: &Request<'_>) -> Result<(), String> {
    let Some(out) = req.output else {
        return if req.dry_run {
            Ok(())
        } else {
            Err("-o OUT is required (or --dry-run)".into())
        };
    };
    if out.as_os_str().is_empty() {
        return Err("OUT is empty".into());
    }
    if std::fs::symlink_metadata(out).is_ok() {
        return Err(format!(
            "{} exists; fix never overwrites (OUT must be a new name, and never IN)",
            out.display()
        ));
    }
    let parent = parent_of(out);
    let Ok(parent) = std::fs::canonicalize(&parent) else {
        return Err(format!("{}: the folder does not exist", parent.display()));
    };
    if let Ok(inp) = std::fs::canonicalize(req.input) {
        if inp.is_dir() && parent.starts_with(&inp) {
            return Err(format!(
                "{} lies inside the input directory; OUT must be outside IN",
                out.display()
            ));
        }
    }
    Ok(())
}

fn parent_of(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The temporary name OUT is written under: in OUT's folder, so the rename stays on one file
/// system.
fn temp_path(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    parent_of(out).join(format!(".{name}.tracelint-fix-{}.tmp", std::process::id()))
}

fn dir_spec(opts: &CheckOptions, path: Option<&Path>) -> Option<&'static FormatSpec> {
    let dir_format = |f: Format| formats::spec(f).filter(|s| s.dir.is_some());
    opts.format_hint
        .and_then(dir_format)
        .or_else(|| path.and_then(formats::detect_dir).and_then(dir_format))
        .or_else(|| formats::FORMATS.iter().copied().find(|s| s.dir.is_some()))
}

fn briefs(r: &check::Report, warnings: bool) -> Vec<Brief> {
    r.findings
        .iter()
        .filter(|f| f.severity == Severity::Error || (warnings && f.severity == Severity::Warning))
        .map(|f| Brief {
            code: f.rule.code,
            severity: f.severity,
            file: f.file.clone().or_else(|| f.member.clone()),
            offset: f.offset,
            message: f.message.clone(),
        })
        .collect()
}

/// The verdict's ledger entries; `Some` for a plan to write.
fn take_verdict(ledger: &mut Ledger, verdict: Verdict) -> Option<Outcome> {
    match verdict {
        Verdict::Healthy => {
            // `fix` turns this into "cannot repair" when the check of IN finds errors.
            ledger.message = Some("nothing to repair; nothing written".into());
            Some(Outcome::NothingToDo)
        }
        Verdict::Refuse(r) => {
            ledger.message = Some(match r.option {
                Some(o) => format!(
                    "cannot repair: {}; {} supplies the missing fact",
                    r.reason, o
                ),
                None => format!("cannot repair: {}", r.reason),
            });
            ledger.refusal = Some(r);
            Some(Outcome::CannotRepair)
        }
        Verdict::Repair(plan) => {
            if plan.files.iter().any(|f| !f.well_formed()) {
                ledger.message = Some("internal error: the repair's plan is malformed".into());
                return Some(Outcome::CannotRepair);
            }
            ledger.plan = Some(plan);
            None
        }
    }
}

fn repair_bytes(
    req: &Request<'_>,
    mut ledger: Ledger,
    spec: &'static FormatSpec,
    data: &[u8],
    src: Src<'_>,
    member: Option<String>,
) -> Ledger {
    ledger.format = Some(spec.format);
    ledger.member = member;
    let verdict = match spec.repair {
        Some(repair) => repair(Subject::Bytes(data), req.opts, req.repair),
        None => Verdict::Healthy,
    };
    if let Some(o) = take_verdict(&mut ledger, verdict) {
        return ledger.end(o, None);
    }
    finish(req, ledger, spec, |tmp, plan| {
        let Some(fp) = plan.files.first() else {
            return Err(io::Error::other("the plan writes no file"));
        };
        write_file_plan(tmp, Some(src), fp)
    })
}

fn repair_dir(
    req: &Request<'_>,
    mut ledger: Ledger,
    spec: &'static FormatSpec,
    dir: &dyn DirSource,
    member: Option<String>,
) -> Ledger {
    ledger.format = Some(spec.format);
    ledger.member = member;
    let verdict = match spec.repair {
        Some(repair) => repair(Subject::Dir(dir), req.opts, req.repair),
        None => Verdict::Healthy,
    };
    if let Some(o) = take_verdict(&mut ledger, verdict) {
        return ledger.end(o, None);
    }
    let mut skipped = Vec::new();
    let out = finish(req, ledger, spec, |tmp, plan| {
        write_dir_plan(tmp, dir, plan, req.opts.limits.max_file_bytes, &mut skipped)
    });
    let mut out = out;
    out.skipped = skipped;
    out
}

/// Writes the plan under a temporary name (`write`), checks it, and names it OUT.
fn finish(
    req: &Request<'_>,
    mut ledger: Ledger,
    spec: &'static FormatSpec,
    write: impl FnOnce(&Path, &Plan) -> io::Result<Pending>,
) -> Ledger {
    let Some(plan) = ledger.plan.as_ref() else {
        return ledger.end(Outcome::CannotRepair, None);
    };
    let outcome = if plan.lossy() {
        Outcome::RepairedWithLoss
    } else {
        Outcome::Repaired
    };
    let Some(out) = req.output.filter(|_| !req.dry_run) else {
        ledger.message = Some("dry run: nothing written".into());
        return ledger.end(outcome, None);
    };
    let tmp = temp_path(out);
    let cleanup = |tmp: &Path| {
        let _ = if tmp.is_dir() {
            std::fs::remove_dir_all(tmp)
        } else {
            std::fs::remove_file(tmp)
        };
    };
    let pending = match write(&tmp, plan) {
        Ok(p) => p,
        Err(e) => {
            cleanup(&tmp);
            return ledger.end(
                Outcome::Io,
                Some(format!("cannot write {}: {e}", tmp.display())),
            );
        }
    };
    // The proof: OUT is checked as any input is, while its bytes go to the disk.
    let mut opts = req.opts.clone();
    opts.format_hint = Some(spec.format);
    let (after, synced) = std::thread::scope(|s| {
        let sync = s.spawn(|| join_pending(pending).and_then(|()| sync_written(&tmp)));
        let after = check::check_path(&tmp, &opts, req.config);
        (after, sync.join())
    });
    if let Err(e) = synced.unwrap_or_else(|_| Err(io::Error::other("the sync thread failed"))) {
        cleanup(&tmp);
        return ledger.end(
            Outcome::Io,
            Some(format!("cannot write {}: {e}", tmp.display())),
        );
    }
    let mut findings = briefs(&after, true);
    for f in &mut findings {
        if f.file.as_deref() == Some(&check::escape_path(&tmp)) {
            f.file = None;
        }
    }
    // OUT must pass: an error of a rule the plan mends means the repair did not hold, any
    // other (one the input had that no repair mends, or one the repair made) that OUT is
    // still no file every reader reads.
    let unmended: Vec<&Brief> = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .collect();
    if after.io_failed || !unmended.is_empty() {
        let what: Vec<String> = unmended
            .iter()
            .map(|f| format!("{} at 0x{:x}: {}", f.code, f.offset, f.message))
            .collect();
        ledger.output_findings = findings.clone();
        cleanup(&tmp);
        return ledger.end(
            Outcome::CannotRepair,
            Some(format!(
                "the repair did not hold, so nothing was written: the check of the repaired copy finds {}",
                if what.is_empty() { "it unreadable".to_string() } else { what.join("; ") }
            )),
        );
    }
    ledger.output_findings = findings;
    if let Err(e) = publish(&tmp, out) {
        cleanup(&tmp);
        return ledger.end(
            Outcome::Io,
            Some(format!(
                "cannot name {} {}: {e}",
                tmp.display(),
                out.display()
            )),
        );
    }
    ledger.written = true;
    ledger.end(outcome, None)
}

/// Gives the checked temporary its name without replacing anything, and syncs the folder.
fn publish(tmp: &Path, out: &Path) -> io::Result<()> {
    if tmp.is_dir() {
        if std::fs::symlink_metadata(out).is_ok() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "OUT appeared meanwhile",
            ));
        }
        std::fs::rename(tmp, out)?;
    } else {
        // A hard link fails when OUT exists: never a replacement.
        std::fs::hard_link(tmp, out)?;
        std::fs::remove_file(tmp)?;
    }
    File::open(parent_of(out))?.sync_all()
}

/// Copies `len` bytes of `src` from `at` into `out`. From a file, the kernel copies
/// (`io::copy` of a file into a file is `copy_file_range`: no pass through this process).
/// Bytes the kernel copies between two starts of write-back of what was copied.
const SYNC_STEP: u64 = 64 << 20;

fn copy_range(src: Src<'_>, at: u64, len: u64, out: &mut File) -> io::Result<Pending> {
    if let Src::File(f) = src {
        return copy_file_range_synced(f, at, len, out);
    }
    let mut buf = vec![0u8; COPY_BYTES];
    let mut done = 0u64;
    while done < len {
        let n = usize::try_from((len - done).min(COPY_BYTES as u64)).unwrap_or(COPY_BYTES);
        let pos = at.saturating_add(done);
        let chunk = buf.get_mut(..n).unwrap_or_default();
        match src {
            Src::Bytes(b) => {
                let s = usize::try_from(pos).unwrap_or(usize::MAX);
                let part = b.get(s..s.saturating_add(n)).ok_or_else(|| {
                    io::Error::new(io::ErrorKind::UnexpectedEof, "input shorter than planned")
                })?;
                chunk.copy_from_slice(part);
            }
            Src::File(f) => f.read_exact_at(chunk, pos)?,
        }
        out.write_all(chunk)?;
        done = done.saturating_add(n as u64);
    }
    Ok(None)
}

/// The write-back a copy started, still running: joined once OUT has been checked.
type Pending = Option<std::thread::JoinHandle<io::Result<()>>>;

/// Copies `len` bytes of `f` from `at` to `out` by the kernel (`copy_file_range` through
/// `io::copy`), in steps of [`SYNC_STEP`]; after each step a thread of its own writes the
/// bytes copied so far to the disk (`fdatasync`) while the next step is copied. That thread is
/// returned running: it goes on writing while OUT is checked, and the sync that names OUT
/// waits for it and finds little left.
fn copy_file_range_synced(f: &File, at: u64, len: u64, out: &mut File) -> io::Result<Pending> {
    use std::io::{Seek, SeekFrom};
    let mut r = f.try_clone()?;
    r.seek(SeekFrom::Start(at))?;
    let syncer = out.try_clone()?;
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let sync = std::thread::spawn(move || -> io::Result<()> {
        while rx.recv().is_ok() {
            // Steps that arrived while this one synced are written by it too.
            while rx.try_recv().is_ok() {}
            syncer.sync_data()?;
        }
        Ok(())
    });
    let mut done = 0u64;
    let copied = loop {
        if done >= len {
            break Ok(());
        }
        let step = len.saturating_sub(done).min(SYNC_STEP);
        match io::copy(&mut Read::take(&mut r, step), out) {
            Ok(n) if n == step => {}
            Ok(_) => {
                break Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "input shorter than planned",
                ))
            }
            Err(e) => break Err(e),
        }
        done = done.saturating_add(step);
        let _ = tx.send(());
    };
    drop(tx);
    match copied {
        Ok(()) => Ok(Some(sync)),
        Err(e) => {
            let _ = sync.join();
            Err(e)
        }
    }
}

/// Waits for the write-back a copy started; its error is the write's.
fn join_pending(pending: Pending) -> io::Result<()> {
    match pending {
        Some(h) => h
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the sync thread failed"))),
        None => Ok(()),
    }
}

/// Writes one file: the kept bytes of `src`, in-place edits, appended bytes; synced.
/// The write-back of the kept bytes may still be running when this returns (see
/// [`copy_file_range_synced`]).
fn write_file_plan(path: &Path, src: Option<Src<'_>>, fp: &FilePlan) -> io::Result<Pending> {
    let mut out = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    let pending = match src {
        Some(src) => copy_range(src, 0, fp.keep, &mut out)?,
        None => None,
    };
    match apply_edits(&mut out, fp) {
        Ok(()) => Ok(pending),
        Err(e) => {
            let _ = join_pending(pending);
            Err(e)
        }
    }
}

/// Syncs a written file, or a written directory's files and the directory itself.
fn sync_written(path: &Path) -> io::Result<()> {
    if path.is_dir() {
        for e in std::fs::read_dir(path)? {
            let e = e?;
            if e.file_type()?.is_file() {
                File::open(e.path())?.sync_all()?;
            }
        }
    }
    File::open(path)?.sync_all()
}

fn apply_edits(out: &mut File, fp: &FilePlan) -> io::Result<()> {
    for e in fp.edits.iter().filter(|e| e.offset < fp.keep) {
        out.write_all_at(&e.new, e.offset)?;
    }
    for e in fp.edits.iter().filter(|e| e.offset >= fp.keep) {
        out.write_all(&e.new)?;
    }
    Ok(())
}

/// Writes a directory: every regular file of `dir` copied, the plan's files as planned.
fn write_dir_plan(
    path: &Path,
    dir: &dyn DirSource,
    plan: &Plan,
    max: u64,
    skipped: &mut Vec<String>,
) -> io::Result<Pending> {
    std::fs::create_dir(path)?;
    for e in dir.list()? {
        if e.kind != EntryKind::File {
            skipped.push(e.name.clone());
            continue;
        }
        let target = path.join(&e.name);
        let planned = plan
            .files
            .iter()
            .find(|f| f.name.as_deref() == Some(e.name.as_str()));
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&target)?;
        let keep = planned.map_or(e.len, |f| f.keep);
        let mut r = dir.open_seq(&e.name, max)?;
        let mut taken = (&mut r as &mut dyn Read).take(keep);
        let copied = io::copy(&mut taken, &mut out)?;
        if copied != keep {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("{} is shorter than planned", e.name),
            ));
        }
        if let Some(fp) = planned {
            apply_edits(&mut out, fp)?;
        }
    }
    for fp in plan.files.iter().filter(|f| f.created) {
        let Some(name) = &fp.name else { continue };
        join_pending(write_file_plan(&path.join(name), None, fp)?)?;
    }
    Ok(None)
}

/// A compressed file or an archive: the one trace inside is unpacked as `check` unpacks it
/// and repaired.
fn repair_archive(req: &Request<'_>, ledger: Ledger, file: File) -> Ledger {
    let mut sink = crate::finding::Sink::with_limits(&req.opts.limits);
    let mut result: Option<Ledger> = None;
    let mut traces = 0u32;
    let mut seed = Some(ledger.clone());
    let name = req
        .input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let outcome = archive::check(
        archive::Source::File { file, sift: false },
        &name,
        &req.opts.limits,
        req.opts.format_hint.is_some(),
        &mut sink,
        &mut |leaf, sink| {
            let member = sink.current_file().map(str::to_string);
            let node = crate::map::MapNode::new("member", 0, 0);
            traces = traces.saturating_add(1);
            let Some(l) = seed.take() else {
                return (None, node);
            };
            let done = match leaf {
                archive::Leaf::Bytes(b) => leaf_bytes(req, l, b, Src::Bytes(b), member),
                archive::Leaf::File(f, _) | archive::Leaf::Sifted(f, _, _) => {
                    // The repair reads the mapping where it needs to; the kept bytes are
                    // copied from the unpacked file by the kernel, never through the mapping.
                    match input::load_file(f, LoadMode::Mmap, req.opts.limits.max_file_bytes) {
                        Ok(d) => leaf_bytes(req, l, &d, Src::File(f), member),
                        Err(e) => l.end(Outcome::Io, Some(format!("unpacked member: {e}"))),
                    }
                }
                archive::Leaf::Stream(_, head, r) => {
                    // A repair reads its input whole: the stream is held, within max_read_bytes.
                    let max = req.opts.limits.max_read_bytes;
                    let mut b = head.to_vec();
                    match std::io::Read::read_to_end(
                        &mut std::io::Read::take(r, max.saturating_sub(b.len() as u64)),
                        &mut b,
                    ) {
                        Ok(_) => leaf_bytes(req, l, &b, Src::Bytes(&b), member),
                        Err(e) => l.end(Outcome::Io, Some(format!("unpacked member: {e}"))),
                    }
                }
                archive::Leaf::Dir(d, _) => match dir_spec(req.opts, None) {
                    Some(spec) => repair_dir(req, l, spec, d, member),
                    None => l.end(Outcome::CannotRepair, Some("no directory format".into())),
                },
                archive::Leaf::Group(spec, d) => repair_dir(req, l, spec, d, member),
            };
            let format = done.format;
            result = Some(done);
            (format, node)
        },
    );
    let _ = outcome;
    match result {
        Some(mut l) if traces == 1 => {
            l.exit_code = l.outcome.exit_code();
            l
        }
        Some(l) => {
            // Several traces: undo what the first one wrote.
            if l.written {
                if let Some(out) = req.output {
                    let _ = if out.is_dir() {
                        std::fs::remove_dir_all(out)
                    } else {
                        std::fs::remove_file(out)
                    };
                }
            }
            let mut l = l;
            l.written = false;
            l.plan = None;
            l.end(
                Outcome::CannotRepair,
                Some(format!(
                    "the archive holds {traces} traces; unpack it and fix each one"
                )),
            )
        }
        None => ledger_without_trace(req),
    }
}

fn leaf_bytes(
    req: &Request<'_>,
    l: Ledger,
    b: &[u8],
    src: Src<'_>,
    member: Option<String>,
) -> Ledger {
    let format = req.opts.format_hint.or_else(|| formats::detect_bytes(b));
    match format.and_then(formats::spec) {
        Some(spec) => repair_bytes(req, l, spec, b, src, member),
        None => l.end(
            Outcome::CannotRepair,
            Some("the unpacked member is no trace of a supported format".into()),
        ),
    }
}

fn ledger_without_trace(req: &Request<'_>) -> Ledger {
    Ledger::new(req).end(
        Outcome::CannotRepair,
        Some("the archive holds no trace to repair".into()),
    )
}
