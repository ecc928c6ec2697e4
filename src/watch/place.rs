//! Placing judged inputs: the report written and the input moved into its verdict folder,
//! moves that failed tried again, and the event log's verdict lines.

use super::shared::{Pending, Shared};
use super::spool::{self, ClaimName, Verdict};
use super::util;
use crate::detect::Format;
use crate::finding::Counts;
use serde::Serialize;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime};

/// One line of the event log.
#[derive(Serialize)]
struct EventLine<'a> {
    ts: String,
    unix_ms: f64,
    event: &'static str,
    name: &'a str,
    path: String,
    report: String,
    format: Option<Format>,
    verdict: Verdict,
    reason: Option<&'a str>,
    counts: Counts,
    size: u64,
    duration_ms: f64,
    recovered: bool,
    instance: &'a str,
}

/// Writes the report and moves the input into its verdict folder, then logs the verdict. A
/// move that fails leaves the input in `work/` and on the stuck list, tried again at every
/// rescan ([`retry_stuck`]).
pub(super) fn commit(sh: &Shared, p: &Pending) {
    if let Err(e) = place_and_log(sh, p) {
        stuck(sh, p, 1, &e);
    }
}

/// Tries again, at a rescan, the stuck inputs whose wait is over: 1 s after the first failure,
/// doubling up to the rescan interval, so a fixed cause (permissions, space, mounts) is seen
/// within one periodic rescan.
pub(super) fn retry_stuck(sh: &Shared) {
    let now = Instant::now();
    let due: Vec<(Pending, u32, Instant)> = {
        let mut list = match sh.stuck.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        let (due, wait): (Vec<_>, Vec<_>) = list.drain(..).partition(|(_, _, at)| *at <= now);
        *list = wait;
        due
    };
    for (p, tries, _) in due {
        match place_and_log(sh, &p) {
            Ok(()) => tracing::info!(
                "{} placed in {}/ after {tries} failed tr{}",
                p.shown,
                p.verdict.name(),
                if tries == 1 { "y" } else { "ies" }
            ),
            Err(e) => stuck(sh, &p, tries.saturating_add(1), &e),
        }
    }
    publish_stuck(sh);
}

/// Records a failed move (or drops it when the input is gone from `work/`).
fn stuck(sh: &Shared, p: &Pending, tries: u32, e: &io::Error) {
    sh.metrics.move_errors.fetch_add(1, Ordering::Relaxed);
    let wpath = sh.spool.work.join(p.claim.file_name());
    if !spool::exists_nofollow(&wpath).unwrap_or(true) {
        // Taken over or removed by someone else (deleted while it was checked): nothing
        // stays in work/, its report being written included.
        let _ = std::fs::remove_file(sh.spool.work.join(p.claim.temp_name()));
        tracing::warn!(
            "cannot move {} to {}/: {e}; it is no longer in work/ (moved by another instance or removed)",
            p.shown,
            p.verdict.name()
        );
        publish_stuck(sh);
        return;
    }
    let cause = if e.raw_os_error() == Some(18) {
        " (EXDEV: the verdict folder is on another mount than work/, a bind mount perhaps)"
    } else {
        ""
    };
    let wait = Duration::from_secs(1u64 << tries.saturating_sub(1).min(16)).min(sh.retry_max);
    tracing::error!(
        "cannot move {} to {}/: {e}{cause}; it stays in work/ and is tried again at the next rescan (in {}s or later, try {tries})",
        p.shown,
        p.verdict.name(),
        wait.as_secs()
    );
    if let Ok(mut list) = sh.stuck.lock() {
        list.push((p.clone(), tries, Instant::now() + wait));
    }
    publish_stuck(sh);
}

fn publish_stuck(sh: &Shared) {
    let n = sh.stuck.lock().map_or(0, |l| l.len());
    sh.metrics.stuck.store(n as u64, Ordering::Relaxed);
}

/// Most judged inputs a committer places at once.
pub(super) const MAX_BATCH: usize = 64;

/// Places judged inputs as one batch, each in the order a single input takes: every report is
/// written, and all of them made durable by one `syncfs` before any is linked, every input is
/// linked next to its report, then each verdict folder that received one is fsynced, once for
/// the batch, and only then is each verdict logged and its `work/` entry removed. A crash at
/// any point leaves what [`commit`] would leave for each input: in `work/` (judged again, or
/// its move completed by a take-over), or placed with its complete report.
pub(super) fn commit_batch(sh: &Shared, batch: &[Pending]) {
    let sp = &sh.spool;
    let mut written: Vec<(&Pending, PathBuf)> = Vec::with_capacity(batch.len());
    for p in batch {
        match sp.write_temp_unsynced(&p.claim, &p.sidecar) {
            Ok(temp) => written.push((p, temp)),
            Err(e) => stuck(sh, p, 1, &e),
        }
    }
    if let Err(e) = sp.sync_fs() {
        for (p, _) in &written {
            stuck(sh, p, 1, &e);
        }
        return;
    }
    let mut linked: Vec<(&Pending, PathBuf)> = Vec::with_capacity(batch.len());
    for (p, temp) in written {
        match sp.link_placed(&p.claim, p.verdict, &temp, p.is_dir) {
            Ok(path) => linked.push((p, path)),
            Err(e) => stuck(sh, p, 1, &e),
        }
    }
    for v in Verdict::ALL {
        if !linked.iter().any(|(p, _)| p.verdict == v) {
            continue;
        }
        if let Err(e) = sp.sync(sp.dir(v)) {
            for (p, _) in linked.iter().filter(|(p, _)| p.verdict == v) {
                stuck(sh, p, 1, &e);
            }
            linked.retain(|(p, _)| p.verdict != v);
        }
    }
    for (p, path) in linked {
        log_placed(sh, p, &path);
    }
}

/// Writes the report, moves the input and logs the verdict line.
fn place_and_log(sh: &Shared, p: &Pending) -> io::Result<()> {
    let sp = &sh.spool;
    let path = sp
        .write_temp(&p.claim, &p.sidecar)
        .and_then(|temp| sp.place_linked(&p.claim, p.verdict, &temp, p.is_dir))?;
    log_placed(sh, p, &path);
    Ok(())
}

/// After the move (the verdict folder fsynced): counts and logs the verdict, salvages a
/// rejected input, then removes the input's `work/` entry.
fn log_placed(sh: &Shared, p: &Pending, path: &Path) {
    let sp = &sh.spool;
    let path = path.to_path_buf();
    sh.metrics.verdict(p.verdict, p.duration);
    if let Some(r) = &p.reason {
        if p.verdict == Verdict::Quarantine {
            tracing::warn!("quarantined {}: {r}", p.shown);
        }
    }
    let done = SystemTime::now();
    sh.log.line(&EventLine {
        ts: util::rfc3339(done),
        unix_ms: util::unix_ms(done),
        event: "verdict",
        name: &p.shown,
        report: crate::check::escape_path(&sidecar_of(&path)),
        path: crate::check::escape_path(&path),
        format: p.format,
        verdict: p.verdict,
        reason: p.reason.as_deref(),
        counts: p.counts,
        size: p.size,
        duration_ms: p.duration.as_secs_f64() * 1000.0,
        recovered: false,
        instance: sp.instance_id(),
    });
    if sh.salvage && p.verdict == Verdict::Rejected {
        salvage(sh, &path, &p.shown);
    }
    // Only now is the input's trace in work/ removed: a crash before this line leaves it for a
    // take-over, which finds the placed report and logs the verdict (once).
    if let Err(e) = sp.release(&p.claim, p.is_dir) {
        tracing::warn!(
            "{} is placed and logged, but its work/ entry cannot be removed: {e}",
            p.shown
        );
    }
}

fn sidecar_of(data: &Path) -> PathBuf {
    let mut s = data.as_os_str().to_os_string();
    s.push(spool::SIDECAR_SUFFIX);
    PathBuf::from(s)
}

pub(super) fn log_recovered(sh: &Shared, claim: &ClaimName, placed: &spool::Placed) {
    // Logged before the crash (which came before `work/` was cleaned): not again.
    if sh.log.logged(&crate::check::escape_path(&placed.sidecar)) {
        return;
    }
    let r = &placed.report;
    let count = |k: &str| {
        r.get("counts")
            .and_then(|c| c.get(k))
            .and_then(|v| v.as_u64())
            .unwrap_or(0)
    };
    let format = r
        .get("format")
        .and_then(|f| f.as_str())
        .and_then(|f| crate::formats::by_name(f).ok());
    let shown = crate::check::escape_path(Path::new(&claim.name));
    let reason = r
        .get("watch")
        .and_then(|w| w.get("reason"))
        .and_then(|v| v.as_str());
    let done = SystemTime::now();
    sh.log.line(&EventLine {
        ts: util::rfc3339(done),
        unix_ms: util::unix_ms(done),
        event: "verdict",
        name: &shown,
        report: crate::check::escape_path(&placed.sidecar),
        path: crate::check::escape_path(&placed.data),
        format,
        verdict: placed.verdict,
        reason,
        counts: Counts {
            error: count("error"),
            warning: count("warning"),
            info: count("info"),
        },
        size: r.get("size").and_then(|v| v.as_u64()).unwrap_or(0),
        duration_ms: r
            .get("watch")
            .and_then(|w| w.get("duration_ms"))
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0),
        recovered: true,
        instance: sh.spool.instance_id(),
    });
}

/// `tracelint fix` of a rejected input (read where it was placed, never written): a repaired
/// copy and its ledger in `salvaged/`, or nothing when it cannot be repaired. Logged either way.
fn salvage(sh: &Shared, placed: &Path, shown: &str) {
    let dir = sh.spool.root.join("salvaged");
    if let Err(e) = std::fs::create_dir_all(&dir) {
        tracing::warn!(
            "cannot make {}: {e}; {shown} is not salvaged",
            dir.display()
        );
        return;
    }
    let Some(name) = placed.file_name() else {
        return;
    };
    let out = dir.join(name);
    let mut ledger_path = out.as_os_str().to_os_string();
    ledger_path.push(".fix.json");
    let config = sh.config();
    let opts = super::judge::check_options(&config);
    let req = crate::fix::Request {
        input: placed,
        output: Some(&out),
        dry_run: false,
        opts: &opts,
        config: &config,
        repair: &crate::ledger::RepairOptions::default(),
    };
    let ledger = crate::fix::fix(&req);
    if ledger.written {
        let text = crate::report::ledger::render_json(&ledger);
        if let Err(e) = std::fs::write(&ledger_path, format!("{text}\n")) {
            tracing::warn!(
                "cannot write {}: {e}",
                PathBuf::from(&ledger_path).display()
            );
        }
        tracing::info!("salvaged {shown} into {}", out.display());
    } else {
        tracing::info!(
            "{shown} not salvaged: {}",
            ledger.message.as_deref().unwrap_or("nothing to repair")
        );
    }
}

// Test code: unwrap on fixtures this module creates itself, never on input.
#[cfg(test)]
#[path = "place_tests.rs"]
mod tests;
