//! Judging one claimed input: the library check (read, never mapped) under a wall-clock budget,
//! and the verdict drawn from its report.

use super::spool::Verdict;
use crate::check::{check_path, CheckOptions, Report};
use crate::config::Config;
use crate::finding::{Counts, Sink};
use crate::input::LoadMode;
use crate::rules;
use crossbeam_channel::{Receiver, Sender};
use serde::Serialize;
use std::fs;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The outcome of judging one input.
pub struct Judgement {
    /// The library's report (or one made here for inputs that were not checked).
    pub report: Report,
    /// Where the input goes.
    pub verdict: Verdict,
    /// Why it was quarantined (or rejected), in one line.
    pub reason: Option<String>,
    /// True when the check exceeded its budget and still runs in the background.
    pub timed_out: bool,
}

/// [`check_options`] for a claimed file whose own name is `name`.
fn named_options(config: &Config, name: &str) -> CheckOptions {
    CheckOptions {
        input_name: Some(name.to_string()),
        ..check_options(config)
    }
}

/// Options of the check as used by the daemon.
pub fn check_options(config: &Config) -> CheckOptions {
    CheckOptions {
        limits: config.limits.clone(),
        format_hint: None,
        endian: None,
        load_mode: LoadMode::Windowed,
        fast_paths: true,
        input_name: None,
        program: None,
    }
}

/// Judges the input at `path` (in `work/`). `display` is the name recorded in the report.
pub fn judge(
    path: &Path,
    display: &str,
    config: &Arc<Config>,
    deny_warnings: bool,
    checker: &mut Checker,
    abandoned: &Arc<AtomicU64>,
) -> Judgement {
    let start = Instant::now();
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) => {
            return made(
                display,
                &rules::IO_ERROR,
                format!("cannot stat the claimed input: {e}"),
                "io-error",
                start,
            )
        }
    };
    let ft = meta.file_type();
    if ft.is_symlink() {
        return made(
            display,
            &rules::NOT_A_REGULAR_FILE,
            "the input is a symbolic link; links are never followed".into(),
            "symlink",
            start,
        );
    }
    if !ft.is_file() && !ft.is_dir() {
        let what = if ft.is_fifo() {
            "a FIFO"
        } else if ft.is_socket() {
            "a socket"
        } else {
            "a device"
        };
        return made(
            display,
            &rules::NOT_A_REGULAR_FILE,
            format!("the input is {what}, not a regular file or directory"),
            "not-a-file",
            start,
        );
    }
    if ft.is_dir() {
        match dir_special_entry(path) {
            Some(Inside::Special(bad)) => {
                return made(
                    display,
                    &rules::NOT_A_REGULAR_FILE,
                    format!(
                        "the directory contains {bad}; links and special files are never followed"
                    ),
                    "symlink",
                    start,
                )
            }
            // What cannot be read was not judged: an I/O error (quarantine), as for a file
            // that cannot be read, not a finding about a recording that lacks it.
            Some(Inside::Unreadable(what)) => {
                return made(
                    display,
                    &rules::IO_ERROR,
                    format!("the directory holds {what}"),
                    "io-error",
                    start,
                )
            }
            None => {}
        }
    }
    let budget = Duration::from_secs(config.limits.max_check_seconds);
    let outcome = checker.check(path, display, config, budget);
    let mut report = match outcome {
        Ok(r) => r,
        Err(true) => {
            abandoned.fetch_add(1, Ordering::Relaxed);
            let mut j = made(
                display,
                &rules::LIMIT_EXCEEDED,
                format!(
                    "the check took longer than max_check_seconds = {}; it was abandoned",
                    config.limits.max_check_seconds
                ),
                "timeout",
                start,
            );
            j.timed_out = true;
            return j;
        }
        Err(false) => {
            return made(
                display,
                &rules::INTERNAL_ERROR,
                "the check thread ended without a report".into(),
                "internal-error",
                start,
            )
        }
    };
    report.path = display.to_string();
    report.deny_warnings = deny_warnings;
    let (verdict, reason) = classify(&report, deny_warnings);
    Judgement {
        report,
        verdict,
        reason,
        timed_out: false,
    }
}

/// A check job, with the slot it runs in (released when the check ends, answered or not).
type CheckJob = (PathBuf, String, Arc<Config>, Option<Permit>);

/// Check slots shared by every worker: at most `--jobs` checks run at once, counting the
/// abandoned ones that still run in the background, so checks over their budget (hostile
/// inputs) never pile up threads beyond `--jobs`.
#[derive(Debug)]
pub struct Slots {
    used: std::sync::Mutex<usize>,
    freed: std::sync::Condvar,
    max: usize,
}

impl Slots {
    /// `max` slots (at least one).
    pub fn new(max: usize) -> Arc<Self> {
        Arc::new(Slots {
            used: std::sync::Mutex::new(0),
            freed: std::sync::Condvar::new(),
            max: max.max(1),
        })
    }

    /// Waits for a free slot.
    pub fn acquire(self: &Arc<Self>) -> Permit {
        let mut used = match self.used.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        while *used >= self.max {
            used = match self.freed.wait(used) {
                Ok(g) => g,
                Err(p) => p.into_inner(),
            };
        }
        *used = used.saturating_add(1);
        Permit(Arc::clone(self))
    }
}

/// One check slot, given back when dropped.
#[derive(Debug)]
pub struct Permit(Arc<Slots>);

impl Drop for Permit {
    fn drop(&mut self) {
        let mut used = match self.0.used.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        *used = used.saturating_sub(1);
        self.0.freed.notify_one();
    }
}

/// A thread that runs checks for one worker, so that a check can be abandoned when it runs
/// over its budget (a thread cannot be stopped; an abandoned one finishes its check, finds
/// nobody listening and ends). A fresh thread replaces an abandoned one.
#[derive(Default)]
pub struct Checker {
    link: Option<(Sender<CheckJob>, Receiver<Report>)>,
    /// The slots shared with the other workers (none: unbounded).
    slots: Option<Arc<Slots>>,
}

impl Checker {
    /// A checker whose checks take one of `slots` while they run.
    pub fn with_slots(slots: Arc<Slots>) -> Self {
        Checker {
            link: None,
            slots: Some(slots),
        }
    }

    fn spawn() -> Option<(Sender<CheckJob>, Receiver<Report>)> {
        let (job_tx, job_rx) = crossbeam_channel::bounded::<CheckJob>(1);
        let (rep_tx, rep_rx) = crossbeam_channel::bounded::<Report>(1);
        std::thread::Builder::new()
            .name("tracelint-check".into())
            .spawn(move || {
                for (path, name, config, permit) in job_rx.iter() {
                    let r = check_path(&path, &named_options(&config, &name), &config);
                    drop(permit);
                    if rep_tx.send(r).is_err() {
                        break;
                    }
                }
            })
            .ok()?;
        Some((job_tx, rep_rx))
    }

    /// Checks `path`; `Err(true)` when over `budget` (zero: none), `Err(false)` when the
    /// check thread died.
    fn check(
        &mut self,
        path: &Path,
        name: &str,
        config: &Arc<Config>,
        budget: Duration,
    ) -> Result<Report, bool> {
        if self.link.is_none() {
            self.link = Self::spawn();
        }
        // Waits (outside the budget) while abandoned checks hold every slot.
        let permit = self.slots.as_ref().map(Slots::acquire);
        let Some((tx, rx)) = self.link.as_ref() else {
            // No thread to spare: check inline, without a budget.
            return Ok(check_path(path, &named_options(config, name), config));
        };
        if tx
            .send((
                path.to_path_buf(),
                name.to_string(),
                Arc::clone(config),
                permit,
            ))
            .is_err()
        {
            self.link = None;
            return Err(false);
        }
        let r = if budget.is_zero() {
            rx.recv().map_err(|_| false)
        } else {
            rx.recv_timeout(budget).map_err(|e| e.is_timeout())
        };
        if r.is_err() {
            self.link = None;
        }
        r
    }
}

/// Draws the verdict from a report: inputs that could not be fully judged go to quarantine.
pub fn classify(report: &Report, deny_warnings: bool) -> (Verdict, Option<String>) {
    let find = |code: &str| report.findings.iter().find(|f| f.rule.code == code);
    let unjudged = [
        (rules::IO_ERROR.code, "io-error"),
        (rules::INTERNAL_ERROR.code, "internal-error"),
        (rules::LIMIT_EXCEEDED.code, "limit-exceeded"),
        (rules::NOT_A_REGULAR_FILE.code, "not-a-file"),
    ];
    for (code, label) in unjudged {
        if let Some(f) = find(code) {
            return (Verdict::Quarantine, Some(format!("{label}: {}", f.message)));
        }
    }
    if report.io_failed {
        return (Verdict::Quarantine, Some("io-error".into()));
    }
    if report.counts.error > 0 {
        let first = report
            .findings
            .iter()
            .find(|f| f.severity == crate::finding::Severity::Error)
            .map(|f| format!("{}: {}", f.rule.code, f.message));
        return (Verdict::Rejected, first);
    }
    if deny_warnings && report.counts.warning > 0 {
        return (Verdict::Rejected, Some("warnings denied".into()));
    }
    (Verdict::Accepted, None)
}

/// A judgement for an input that was not (fully) checked.
fn made(
    display: &str,
    rule: &'static crate::registry::Rule,
    message: String,
    label: &str,
    start: Instant,
) -> Judgement {
    let mut sink = Sink::new(1);
    sink.report(rule, 0..0, message.clone());
    let (findings, _) = sink.into_parts();
    let report = Report {
        members: Vec::new(),
        path: display.to_string(),
        os_path: std::path::PathBuf::from(display),
        format: None,
        size: 0,
        counts: Counts::of(&findings),
        findings,
        dropped: 0,
        dropped_by_code: Vec::new(),
        map: None,
        io_failed: rule.code == rules::IO_ERROR.code,
        deny_warnings: false,
        duration: start.elapsed(),
    };
    Judgement {
        report,
        verdict: Verdict::Quarantine,
        reason: Some(format!("{label}: {message}")),
        timed_out: false,
    }
}

/// Levels of subdirectories searched for links and special files below a directory input.
const MAX_DIR_DEPTH: usize = 16;

/// What [`dir_special_entry`] found inside a directory input.
#[derive(Debug, PartialEq, Eq)]
enum Inside {
    /// A symlink, special file, or nesting too deep.
    Special(String),
    /// A file that cannot be opened for reading or a directory that cannot be listed.
    Unreadable(String),
}

/// The first symlink or special file anywhere inside `dir` (at every depth, not only the top:
/// a link in `sub/` would be followed by whoever unpacks or copies the input), by its path
/// relative to `dir`, or the first file that cannot be opened for reading or directory that
/// cannot be listed: what was not looked at is not accepted.
fn dir_special_entry(dir: &Path) -> Option<Inside> {
    dir_special_below(dir, Path::new(""), 0)
}

fn dir_special_below(dir: &Path, rel: &Path, depth: usize) -> Option<Inside> {
    let rd = match fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            return Some(Inside::Unreadable(format!(
                "a directory `{}` that cannot be listed ({e})",
                crate::check::escape_path(rel)
            )))
        }
    };
    for e in rd {
        let e = match e {
            Ok(e) => e,
            Err(e) => {
                return Some(Inside::Unreadable(format!(
                    "a directory `{}` that cannot be listed ({e})",
                    crate::check::escape_path(rel)
                )))
            }
        };
        let name = rel.join(e.file_name());
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_symlink() {
            return Some(Inside::Special(format!(
                "a symbolic link `{}`",
                crate::check::escape_path(&name)
            )));
        }
        if ft.is_dir() {
            if depth >= MAX_DIR_DEPTH {
                return Some(Inside::Special(format!(
                    "directories nested deeper than {MAX_DIR_DEPTH} levels (`{}`)",
                    crate::check::escape_path(&name)
                )));
            }
            if let Some(bad) = dir_special_below(&e.path(), &name, depth.saturating_add(1)) {
                return Some(bad);
            }
        } else if !ft.is_file() {
            return Some(Inside::Special(format!(
                "a special file `{}`",
                crate::check::escape_path(&name)
            )));
        } else if let Err(err) = fs::File::open(e.path()) {
            return Some(Inside::Unreadable(format!(
                "a file `{}` that cannot be read ({err})",
                crate::check::escape_path(&name)
            )));
        }
    }
    None
}

/// What the daemon adds to the report in the sidecar.
#[derive(Serialize)]
pub struct WatchInfo<'a> {
    /// The verdict folder.
    pub verdict: Verdict,
    /// Why (quarantine and rejection).
    pub reason: Option<&'a str>,
    /// The input's name as delivered to `new/`.
    pub name: &'a str,
    /// The claim id (stable across take-overs after a crash).
    pub claim: &'a str,
    /// The instance that judged it.
    pub instance: &'a str,
    /// When the verdict was reached (RFC 3339, UTC).
    pub judged_at: &'a str,
    /// Check time in milliseconds.
    pub duration_ms: f64,
}

// Test code: unwrap on fixtures this module creates itself, never on input.
#[cfg(test)]
#[path = "judge_tests.rs"]
mod tests;
