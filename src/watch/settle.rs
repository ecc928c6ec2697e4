//! `--settle`: for producers that write in place in `new/` instead of renaming finished files
//! into it. A file is ready when it was closed after writing (or renamed in) and then stayed
//! unchanged (size, mtime, inode) for the settle period; a file whose close was not seen
//! (found by a rescan or the poll watcher) must stay unchanged for the longer "unseen" period.

use notify::event::{AccessKind, AccessMode, CreateKind, EventKind, ModifyKind, RenameMode};
use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

/// What must not change while a file settles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sig {
    len: u64,
    mtime: (i64, i64),
    ino: u64,
}

fn signature(path: &Path) -> Option<Sig> {
    let m = fs::symlink_metadata(path).ok()?;
    let mut sig = Sig {
        len: m.len(),
        mtime: (m.mtime(), m.mtime_nsec()),
        ino: m.ino(),
    };
    if m.is_dir() {
        // A directory settles when none of its entries changes.
        let rd = fs::read_dir(path).ok()?;
        for e in rd.flatten().take(100_000) {
            if let Ok(em) = e.metadata() {
                sig.len = sig.len.wrapping_add(em.len()).wrapping_add(1);
                sig.mtime = sig.mtime.max((em.mtime(), em.mtime_nsec()));
            }
        }
    }
    Some(sig)
}

struct Track {
    sig: Option<Sig>,
    since: Instant,
    closed: bool,
}

/// Files in `new/` waiting to settle.
pub struct Settler {
    settle: Duration,
    unseen: Duration,
    files: HashMap<OsString, Track>,
    last_tick: Option<Instant>,
}

impl Settler {
    /// Settle periods for files whose close was seen, and for the others.
    pub fn new(settle: Duration, unseen: Duration) -> Settler {
        Settler {
            settle,
            unseen: unseen.max(settle),
            files: HashMap::new(),
            last_tick: None,
        }
    }

    /// Files waiting.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Notes `new/<name>` (by an event of `kind`, or a rescan when `None`). False when full.
    pub fn observe(
        &mut self,
        new: &Path,
        name: &OsStr,
        kind: Option<&EventKind>,
        cap: usize,
    ) -> bool {
        let closed = match kind {
            Some(EventKind::Access(AccessKind::Close(AccessMode::Write))) => Some(true),
            Some(EventKind::Modify(ModifyKind::Name(RenameMode::To | RenameMode::Both))) => {
                Some(true)
            }
            Some(EventKind::Create(CreateKind::Folder)) => Some(true),
            // Written again (or created in place): wait for the next close.
            Some(EventKind::Modify(_)) | Some(EventKind::Create(_)) => Some(false),
            _ => None,
        };
        let now = Instant::now();
        let sig = signature(&new.join(name));
        match self.files.get_mut(name) {
            Some(t) => {
                if let Some(c) = closed {
                    t.closed = c;
                }
                if t.sig != sig {
                    t.sig = sig;
                    t.since = now;
                }
                true
            }
            None => {
                if self.files.len() >= cap {
                    return false;
                }
                self.files.insert(
                    name.to_os_string(),
                    Track {
                        sig,
                        since: now,
                        closed: closed.unwrap_or(false),
                    },
                );
                true
            }
        }
    }

    /// Re-examines waiting files; returns those that are ready (and forgets them).
    pub fn tick(&mut self, new: &Path) -> Vec<OsString> {
        let step = (self.settle / 4).clamp(Duration::from_millis(20), Duration::from_secs(1));
        if self.last_tick.is_some_and(|t| t.elapsed() < step) {
            return Vec::new();
        }
        let now = Instant::now();
        self.last_tick = Some(now);
        let mut ready = Vec::new();
        let mut gone = Vec::new();
        for (name, t) in self.files.iter_mut() {
            let sig = signature(&new.join(name));
            if sig.is_none() {
                gone.push(name.clone());
                continue;
            }
            if sig != t.sig {
                t.sig = sig;
                t.since = now;
                continue;
            }
            let need = if t.closed { self.settle } else { self.unseen };
            if now.duration_since(t.since) >= need {
                ready.push(name.clone());
            }
        }
        for n in gone.iter().chain(ready.iter()) {
            self.files.remove(n);
        }
        ready
    }

    /// For `--once`: whether `path` was last modified at least the unseen period ago.
    pub fn quiet_by_mtime(&self, path: &Path) -> bool {
        let Some(sig) = signature(path) else {
            return false;
        };
        let Ok(secs) = u64::try_from(sig.mtime.0) else {
            return true;
        };
        let nanos = u32::try_from(sig.mtime.1).unwrap_or(0);
        let mtime = SystemTime::UNIX_EPOCH + Duration::new(secs, nanos);
        SystemTime::now()
            .duration_since(mtime)
            .is_ok_and(|age| age >= self.unseen)
    }
}
