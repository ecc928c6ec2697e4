//! What the daemon's threads share: the jobs and messages between the dispatcher and the
//! workers, the state every thread reads, and a judged input on its way to its folder.

use super::judge;
use super::metrics::Metrics;
use super::spool::{ClaimName, Spool, Verdict};
use super::util;
use crate::config::Config;
use crate::detect::Format;
use crate::finding::Counts;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A unit of work for a worker.
#[derive(Clone, Debug)]
pub(super) enum Job {
    /// Claim `new/<name>`.
    New(OsString),
    /// Take over `work/<file>` left by a dead instance.
    TakeOver(OsString),
}

/// Worker → dispatcher.
pub(super) enum Msg {
    /// `new/<name>` is no longer ours to watch (claimed, vanished, or skipped on shutdown).
    Released(OsString),
    /// A take-over job ended.
    TakenOver(OsString),
    /// A job ended.
    Done,
    /// A worker thread ended.
    Exited,
}

/// What workers share.
pub(super) struct Shared {
    pub(super) spool: Spool,
    pub(super) config: Mutex<Arc<Config>>,
    pub(super) config_path: Option<PathBuf>,
    pub(super) metrics: Arc<Metrics>,
    pub(super) log: util::EventLog,
    pub(super) deny_warnings: bool,
    /// Repair rejected inputs into `salvaged/`.
    pub(super) salvage: bool,
    pub(super) stopping: AtomicBool,
    /// Check slots: `--jobs`, abandoned checks included.
    pub(super) slots: Arc<judge::Slots>,
    /// Judged inputs whose move failed, with the number of tries and when to try again.
    pub(super) stuck: Mutex<Vec<(Pending, u32, Instant)>>,
    /// Longest wait between two tries of a stuck input.
    pub(super) retry_max: Duration,
    /// Failures to write the metrics file, warned about at a bounded rate.
    pub(super) metrics_warning: Mutex<util::Repeated>,
    /// Names in `new/` whose claim failed and was logged as an error.
    pub(super) claim_failures: Mutex<std::collections::HashSet<OsString>>,
}

impl Shared {
    pub(super) fn config(&self) -> Arc<Config> {
        match self.config.lock() {
            Ok(g) => Arc::clone(&g),
            Err(p) => Arc::clone(&p.into_inner()),
        }
    }
}

/// A judged input on its way to its verdict folder.
#[derive(Clone)]
pub(super) struct Pending {
    pub(super) claim: ClaimName,
    pub(super) shown: String,
    pub(super) is_dir: bool,
    pub(super) verdict: Verdict,
    pub(super) reason: Option<String>,
    pub(super) format: Option<Format>,
    pub(super) counts: Counts,
    pub(super) size: u64,
    pub(super) duration: Duration,
    pub(super) sidecar: Vec<u8>,
}
