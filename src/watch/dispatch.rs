//! The dispatcher: what the main thread knows of `new/` and `work/` (queued names, running
//! jobs, take-overs) and how events, rescans and workers' messages change it.

use super::place::{log_recovered, retry_stuck};
use super::settle::Settler;
use super::shared::{Job, Msg, Shared};
use super::spool::{self, ClaimName, Liveness};
use crossbeam_channel::{Sender, TrySendError};
use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind, RenameMode};
use std::collections::{HashMap, HashSet, VecDeque};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The dispatcher's state (main thread only).
pub(super) struct Dispatch {
    sh: Arc<Shared>,
    cap: usize,
    pending: VecDeque<Job>,
    /// Names of `new/` inputs queued; `true` once handed to a worker.
    queued: HashMap<OsString, bool>,
    /// Names seen again while their job was with a worker: queue again once released.
    dirty: HashSet<OsString>,
    takeovers: HashSet<OsString>,
    warned: HashSet<OsString>,
    pub(super) in_flight: usize,
    pub(super) rescan_needed: bool,
    last_rescan: Option<Instant>,
    settle: Option<Settler>,
    pub(super) once: bool,
    new_real: Option<PathBuf>,
}

impl Dispatch {
    /// A dispatcher that rescans first; `cap` bounds the queue.
    pub(super) fn new(sh: Arc<Shared>, cap: usize, settle: Option<Settler>, once: bool) -> Self {
        // The watcher may report `new/` by its resolved path (if it is a symlink).
        let new_real = std::fs::canonicalize(&sh.spool.new).ok();
        Dispatch {
            sh,
            cap,
            pending: VecDeque::new(),
            queued: HashMap::new(),
            dirty: HashSet::new(),
            takeovers: HashSet::new(),
            warned: HashSet::new(),
            in_flight: 0,
            rescan_needed: true,
            last_rescan: None,
            settle,
            once,
            new_real,
        }
    }

    /// Forgets the queued jobs (at shutdown); returns how many there were.
    pub(super) fn drop_pending(&mut self) -> usize {
        let left = self.pending.len();
        self.pending.clear();
        left
    }

    pub(super) fn idle(&self) -> bool {
        self.pending.is_empty()
            && self.in_flight == 0
            && self.queued.is_empty()
            && self.takeovers.is_empty()
    }

    pub(super) fn may_rescan(&self) -> bool {
        let room = self.pending.len() < self.cap / 2 + 1;
        let recent = self
            .last_rescan
            .is_some_and(|t| t.elapsed() < Duration::from_millis(200));
        room && !recent
    }

    pub(super) fn publish(&self) {
        let settling = self.settle.as_ref().map_or(0, Settler::len);
        let depth = self.pending.len() + self.in_flight + settling;
        self.sh
            .metrics
            .queue_depth
            .store(depth as u64, Ordering::Relaxed);
        self.sh
            .metrics
            .in_flight
            .store(self.in_flight as u64, Ordering::Relaxed);
    }

    /// Queues `new/<name>`; false when the queue is full.
    fn enqueue(&mut self, name: &OsStr) -> bool {
        if let Some(handed) = self.queued.get(name) {
            if *handed {
                self.dirty.insert(name.to_os_string());
            }
            return true;
        }
        if self.pending.len() >= self.cap {
            return false;
        }
        self.queued.insert(name.to_os_string(), false);
        self.pending.push_back(Job::New(name.to_os_string()));
        true
    }

    pub(super) fn feed(&mut self, tx: &Sender<Job>) {
        while let Some(job) = self.pending.pop_front() {
            let name = match &job {
                Job::New(n) => Some(n.clone()),
                Job::TakeOver(_) => None,
            };
            match tx.try_send(job) {
                Ok(()) => {}
                Err(TrySendError::Full(job)) | Err(TrySendError::Disconnected(job)) => {
                    self.pending.push_front(job);
                    return;
                }
            }
            if let Some(h) = name.and_then(|n| self.queued.get_mut(&n)) {
                *h = true;
            }
            self.in_flight = self.in_flight.saturating_add(1);
        }
    }

    pub(super) fn on_msg(&mut self, m: Msg) {
        match m {
            Msg::Released(name) => {
                self.queued.remove(&name);
                if self.dirty.remove(&name) {
                    self.route(&name, None);
                }
            }
            Msg::TakenOver(w) => {
                self.takeovers.remove(&w);
            }
            Msg::Done => self.in_flight = self.in_flight.saturating_sub(1),
            Msg::Exited => {}
        }
    }

    /// An input name seen in `new/` (by an event of `kind`, or a rescan when `None`).
    fn route(&mut self, name: &OsStr, kind: Option<&EventKind>) {
        if name.as_bytes().first() == Some(&b'.') {
            return;
        }
        let ok = match self.settle.as_mut() {
            Some(s) => s.observe(&self.sh.spool.new, name, kind, self.cap),
            None => self.enqueue(name),
        };
        if !ok {
            if !self.rescan_needed {
                self.sh.metrics.overflows.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(
                    queue = self.cap,
                    "queue full: further inputs are picked up by a rescan once it drains"
                );
            }
            self.rescan_needed = true;
        }
    }

    pub(super) fn on_event(&mut self, ev: notify::Result<notify::Event>) {
        let ev = match ev {
            Ok(ev) => ev,
            Err(e) => {
                self.sh.metrics.overflows.fetch_add(1, Ordering::Relaxed);
                tracing::warn!("watcher error: {e}; rescanning");
                self.rescan_needed = true;
                return;
            }
        };
        if ev.need_rescan() || ev.paths.is_empty() {
            if ev.need_rescan() {
                self.sh.metrics.overflows.fetch_add(1, Ordering::Relaxed);
                tracing::warn!("the watcher lost events (kernel queue overflow); rescanning");
            }
            self.rescan_needed = true;
            if ev.paths.is_empty() {
                return;
            }
        }
        let paths: &[PathBuf] = match ev.kind {
            EventKind::Remove(_) => return,
            EventKind::Access(AccessKind::Close(AccessMode::Write)) => &ev.paths,
            EventKind::Access(_) => return,
            EventKind::Modify(ModifyKind::Name(RenameMode::From)) => return,
            EventKind::Modify(ModifyKind::Name(RenameMode::Both)) => {
                ev.paths.get(1..).unwrap_or(&[])
            }
            _ => &ev.paths,
        };
        for p in paths {
            let parent = p.parent();
            if parent != Some(self.sh.spool.new.as_path()) && parent != self.new_real.as_deref() {
                continue;
            }
            if let Some(name) = p.file_name() {
                self.route(name, Some(&ev.kind));
            }
        }
    }

    pub(super) fn settle_tick(&mut self) {
        let Some(s) = self.settle.as_mut() else {
            return;
        };
        let ready = s.tick(&self.sh.spool.new);
        for name in ready {
            if !self.enqueue(&name) {
                self.rescan_needed = true;
                break;
            }
        }
    }

    /// Full rescan: leftovers of dead instances in `work/`, then everything in `new/`.
    pub(super) fn rescan(&mut self) {
        self.rescan_needed = false;
        self.last_rescan = Some(Instant::now());
        self.sh.metrics.rescans.fetch_add(1, Ordering::Relaxed);
        retry_stuck(&self.sh);
        self.scan_work();
        let rd = match std::fs::read_dir(&self.sh.spool.new) {
            Ok(rd) => rd,
            Err(e) => {
                tracing::error!("cannot list {}: {e}", self.sh.spool.new.display());
                self.rescan_needed = true;
                return;
            }
        };
        let mut n = 0usize;
        for e in rd {
            let Ok(e) = e else {
                self.rescan_needed = true;
                continue;
            };
            let name = e.file_name();
            if name.as_bytes().first() == Some(&b'.') {
                // A directory a dead daemon was copying: finished or delivered again.
                if name.as_bytes().starts_with(spool::COPY_PREFIX.as_bytes()) {
                    match self.sh.spool.recover_copy(&name) {
                        Ok(_) => {}
                        Err(err) => {
                            if self.warned.len() < 1000 && self.warned.insert(name.clone()) {
                                tracing::warn!(
                                    "cannot recover {}: {err}",
                                    crate::check::escape_path(&e.path())
                                );
                            }
                        }
                    }
                }
                continue;
            }
            if self.once && self.settle.is_some() {
                // No events to wait for: only inputs already quiet for the unseen period.
                let quiet = self
                    .settle
                    .as_ref()
                    .is_some_and(|s| s.quiet_by_mtime(&e.path()));
                if !quiet {
                    continue;
                }
                if !self.enqueue(&name) {
                    self.rescan_needed = true;
                    break;
                }
            } else {
                self.route(&name, None);
                if self.rescan_needed {
                    break;
                }
            }
            n = n.saturating_add(1);
        }
        tracing::debug!(seen = n, "rescan of new/ done");
    }

    fn scan_work(&mut self) {
        let sp = &self.sh.spool;
        let rd = match std::fs::read_dir(&sp.work) {
            Ok(rd) => rd,
            Err(e) => {
                tracing::error!("cannot list {}: {e}", sp.work.display());
                return;
            }
        };
        let me = sp.instance().clone();
        // Temporary reports of dead owners, and the claims still in work/.
        let mut temps = Vec::new();
        let mut claims = std::collections::HashSet::new();
        let entries: Vec<_> = rd.flatten().collect();
        for e in entries.iter() {
            let file = e.file_name();
            if ClaimName::parse_temp(&file).is_none() {
                if let Some(c) = ClaimName::parse(&file) {
                    claims.insert(c.claim.clone());
                }
            }
        }
        for e in entries {
            let file = e.file_name();
            // A copy being made of a directory in new/ (see `Spool::claim_by_copy`): its
            // original there says what becomes of it.
            if file.as_bytes().starts_with(spool::COPY_PREFIX.as_bytes()) {
                continue;
            }
            if let Some(c) = ClaimName::parse_temp(&file) {
                let dead = spool::Instance::parse(&c.owner)
                    .is_some_and(|o| me.is_dead(&o) == Liveness::Dead);
                if dead {
                    temps.push((e.path(), c));
                }
                continue;
            }
            let Some(c) = ClaimName::parse(&file) else {
                if self.warned.len() < 1000 && self.warned.insert(file.clone()) {
                    tracing::warn!(
                        "{} was not put there by tracelint; leaving it alone",
                        e.path().display()
                    );
                }
                continue;
            };
            if c.owner == sp.instance_id() || self.takeovers.contains(&file) {
                continue;
            }
            match spool::Instance::parse(&c.owner).map(|o| me.is_dead(&o)) {
                Some(Liveness::Dead) => {
                    if self.pending.len() < self.cap {
                        self.takeovers.insert(file.clone());
                        self.pending.push_front(Job::TakeOver(file));
                    } else {
                        self.rescan_needed = true;
                    }
                }
                Some(Liveness::Alive) => {}
                Some(Liveness::Unknown) | None => {
                    if self.warned.len() < 1000 && self.warned.insert(file.clone()) {
                        tracing::warn!(
                            owner = %c.owner,
                            "{} is claimed by an instance on another host; it is taken over only by a daemon on that host",
                            e.path().display()
                        );
                    }
                }
            }
        }
        for (path, c) in temps {
            // Its input is gone from work/ (a directory renamed into place): the owner died
            // after the move, maybe before logging the verdict.
            if !claims.contains(&c.claim) {
                if let Ok(Some(placed)) = sp.find_placed(&c) {
                    self.sh.metrics.recovered.fetch_add(1, Ordering::Relaxed);
                    log_recovered(&self.sh, &c, &placed);
                }
            }
            let _ = std::fs::remove_file(path);
        }
    }
}
