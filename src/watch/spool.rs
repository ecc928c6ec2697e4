//! The spool layout, instance identity, claim names and the no-overwrite moves.
//!
//! The directory layout *is* the daemon's state: a file is in exactly one of `new/`, `work/`
//! or a verdict folder at every instant, and every step between them is a rename or a
//! link-then-unlink on one file system.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Marker between an input's name and its claim token in `work/`.
const CLAIM_MARK: &[u8] = b".tlw.";
/// Suffix of report sidecars.
pub const SIDECAR_SUFFIX: &str = ".tracelint.json";
/// Suffix of sidecars being written (in `work/`).
const TEMP_SUFFIX: &[u8] = b".json-tmp";
/// Start of the name of a directory claimed by copying (in `new/`: the original; in `work/`:
/// the copy being made), followed by the claim's `work/` name.
pub const COPY_PREFIX: &str = ".tracelint-copy.";
/// Start of the names of the probes made at start-up.
const PROBE_PREFIX: &str = ".tracelint-probe-";
/// Longest input name kept as is; longer names are shortened in `work/` and verdict folders.
const MAX_KEPT_NAME: usize = 140;

/// The verdict folders, in search order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// No error findings.
    Accepted,
    /// Error findings (or warnings with `--deny-warnings`).
    Rejected,
    /// Could not be judged.
    Quarantine,
}

impl Verdict {
    /// All verdicts.
    pub const ALL: [Verdict; 3] = [Verdict::Accepted, Verdict::Rejected, Verdict::Quarantine];

    /// Folder name (and label in logs and metrics).
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Accepted => "accepted",
            Verdict::Rejected => "rejected",
            Verdict::Quarantine => "quarantine",
        }
    }

    /// Index into per-verdict arrays.
    pub fn index(self) -> usize {
        match self {
            Verdict::Accepted => 0,
            Verdict::Rejected => 1,
            Verdict::Quarantine => 2,
        }
    }
}

/// Who this process is: unique per process, across hosts sharing the spool and across reboots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// Host name, reduced to `[A-Za-z0-9-]`.
    pub host: String,
    /// First 8 hex digits of the kernel boot id.
    pub boot: String,
    /// Process id.
    pub pid: u32,
    /// Process start time in clock ticks since boot (`/proc/<pid>/stat` field 22).
    pub start: u64,
}

impl Instance {
    /// This process.
    pub fn current() -> Instance {
        let pid = std::process::id();
        Instance {
            host: local_host(),
            boot: boot_id(),
            pid,
            start: proc_start_ticks(pid).unwrap_or(0),
        }
    }

    /// The id as used in file names: `host-boot-pid-start`.
    pub fn id(&self) -> String {
        format!("{}-{}-{}-{}", self.host, self.boot, self.pid, self.start)
    }

    /// Parses an id made by [`Instance::id`].
    pub fn parse(s: &str) -> Option<Instance> {
        let mut it = s.rsplitn(4, '-');
        let start = it.next()?.parse().ok()?;
        let pid = it.next()?.parse().ok()?;
        let boot = it.next()?.to_string();
        let host = it.next()?.to_string();
        if host.is_empty() || !host.bytes().all(token_byte) || !boot.bytes().all(token_byte) {
            return None;
        }
        Some(Instance {
            host,
            boot,
            pid,
            start,
        })
    }

    /// Whether the process `other` names is certainly gone: same host, and either another
    /// boot or no process with that pid and start time. Owners on other hosts are never
    /// declared dead (their liveness cannot be checked from here).
    pub fn is_dead(&self, other: &Instance) -> Liveness {
        if other.host != self.host {
            return Liveness::Unknown;
        }
        if other.boot != self.boot {
            return Liveness::Dead;
        }
        if other.pid == self.pid && other.start == self.start {
            return Liveness::Alive;
        }
        match proc_start_ticks(other.pid) {
            Some(t) if t == other.start => Liveness::Alive,
            Some(_) => Liveness::Dead,
            None if Path::new("/proc/self/stat").exists() => Liveness::Dead,
            None => Liveness::Unknown,
        }
    }
}

/// Whether the owner of a claimed file still runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Liveness {
    /// It runs (or it is this process).
    Alive,
    /// It is gone: its leftovers may be taken over.
    Dead,
    /// Another host, or no way to tell.
    Unknown,
}

fn token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}

fn local_host() -> String {
    let raw = fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_default();
    let mut s: String = raw
        .trim()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .take(32)
        .collect();
    if s.is_empty() {
        s.push_str("localhost");
    }
    s
}

fn boot_id() -> String {
    let raw = fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
    let s: String = raw
        .chars()
        .filter(|c| c.is_ascii_hexdigit())
        .take(8)
        .collect();
    if s.is_empty() {
        "0".into()
    } else {
        s
    }
}

/// Start time of `pid` in clock ticks since boot, if the process exists.
fn proc_start_ticks(pid: u32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may contain spaces and parentheses: fields after the last ')'.
    let rest = &stat.get(stat.rfind(')')?.checked_add(1)?..)?;
    // Fields from 3 on; the start time is field 22, i.e. the 20th after ')'.
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// A claimed input in `work/`, decoded from its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimName {
    /// The input's name as delivered (possibly shortened).
    pub name: OsString,
    /// The claim id, stable across take-overs (written into the report sidecar).
    pub claim: String,
    /// The current owner.
    pub owner: String,
}

impl ClaimName {
    /// The file name in `work/`: `<name>.tlw.<claim>.<owner>`.
    pub fn file_name(&self) -> OsString {
        let mut v = self.name.as_bytes().to_vec();
        v.extend_from_slice(CLAIM_MARK);
        v.extend_from_slice(self.claim.as_bytes());
        v.push(b'.');
        v.extend_from_slice(self.owner.as_bytes());
        OsString::from_vec(v)
    }

    /// Decodes a `work/` file name; `None` for anything this daemon did not name.
    pub fn parse(file: &OsStr) -> Option<ClaimName> {
        let b = file.as_bytes();
        let at = rfind(b, CLAIM_MARK)?;
        let name = b.get(..at)?;
        let rest = std::str::from_utf8(b.get(at.checked_add(CLAIM_MARK.len())?..)?).ok()?;
        let (claim, owner) = rest.split_once('.')?;
        if name.is_empty()
            || claim.is_empty()
            || owner.is_empty()
            || !claim.bytes().all(token_byte)
            || Instance::parse(owner).is_none()
        {
            return None;
        }
        Some(ClaimName {
            name: OsStr::from_bytes(name).to_os_string(),
            claim: claim.to_string(),
            owner: owner.to_string(),
        })
    }

    /// The name of this claim's sidecar being written in `work/`.
    pub fn temp_name(&self) -> OsString {
        let mut v = self.file_name().into_vec();
        v.extend_from_slice(TEMP_SUFFIX);
        OsString::from_vec(v)
    }

    /// Decodes a temporary sidecar name made by [`ClaimName::temp_name`].
    pub fn parse_temp(file: &OsStr) -> Option<ClaimName> {
        let b = file.as_bytes();
        let stem = b.strip_suffix(TEMP_SUFFIX)?;
        ClaimName::parse(OsStr::from_bytes(stem))
    }
}

fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.len() > hay.len() {
        return None;
    }
    (0..=hay.len().saturating_sub(needle.len()))
        .rev()
        .find(|&i| hay.get(i..i.saturating_add(needle.len())) == Some(needle))
}

/// Shortens a name to at most [`MAX_KEPT_NAME`] bytes: its start and its ending (from the
/// first `.` of its last 16 bytes: `.dat`, `.tar.zst`), cut at a character boundary when the
/// name is UTF-8. The full name is in the report and the event log.
pub fn kept_name(name: &OsStr) -> OsString {
    let b = name.as_bytes();
    if b.len() <= MAX_KEPT_NAME {
        return name.to_os_string();
    }
    let tail_from = b.len().saturating_sub(16);
    let ending = b
        .get(tail_from..)
        .and_then(|t| t.iter().position(|&c| c == b'.'))
        .and_then(|i| b.get(tail_from.saturating_add(i)..))
        .unwrap_or(&[]);
    let mut head = MAX_KEPT_NAME.saturating_sub(ending.len());
    if std::str::from_utf8(b).is_ok() {
        // Not inside a character: back to the start of the one at `head`.
        while head > 0 && b.get(head).is_some_and(|&c| c & 0xc0 == 0x80) {
            head = head.saturating_sub(1);
        }
    }
    let mut v = b.get(..head).unwrap_or(&[]).to_vec();
    v.extend_from_slice(ending);
    OsString::from_vec(v)
}

/// The spool root and its folders.
#[derive(Clone, Debug)]
pub struct Spool {
    /// The root.
    pub root: PathBuf,
    /// Producers write here.
    pub tmp: PathBuf,
    /// Finished inputs appear here.
    pub new: PathBuf,
    /// Claimed inputs.
    pub work: PathBuf,
    /// Verdict folders, indexed by [`Verdict::index`].
    pub verdict: [PathBuf; 3],
    /// Whether to fsync files and directories.
    pub fsync: bool,
    instance: Instance,
    instance_id: String,
    seq: std::sync::Arc<AtomicU64>,
}

impl Spool {
    /// Creates missing folders and checks that all of them are on one file system.
    pub fn open(root: &Path, fsync: bool) -> Result<Spool, String> {
        let instance = Instance::current();
        fs::create_dir_all(root)
            .map_err(|e| format!("cannot create spool root {}: {e}", root.display()))?;
        // Absolute and canonical: watcher events carry absolute paths.
        let root = &fs::canonicalize(root)
            .map_err(|e| format!("cannot resolve spool root {}: {e}", root.display()))?;
        let sp = Spool {
            root: root.to_path_buf(),
            tmp: root.join("tmp"),
            new: root.join("new"),
            work: root.join("work"),
            verdict: Verdict::ALL.map(|v| root.join(v.name())),
            fsync,
            instance_id: instance.id(),
            instance,
            seq: std::sync::Arc::new(AtomicU64::new(0)),
        };
        let root_meta =
            fs::metadata(root).map_err(|e| format!("cannot stat {}: {e}", root.display()))?;
        let mut folders = vec![&sp.tmp, &sp.new, &sp.work];
        folders.extend(sp.verdict.iter());
        for dir in folders {
            match fs::create_dir(dir) {
                Ok(()) => {
                    if fsync {
                        let _ = sync_dir(root);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
            }
            let m = fs::metadata(dir).map_err(|e| format!("cannot stat {}: {e}", dir.display()))?;
            if !m.is_dir() {
                return Err(format!("{} exists and is not a directory", dir.display()));
            }
            if m.dev() != root_meta.dev() {
                return Err(format!(
                    "{} is on another file system than {} (device {:#x} vs {:#x}): renames between spool folders must stay on one file system",
                    dir.display(),
                    root.display(),
                    m.dev(),
                    root_meta.dev()
                ));
            }
        }
        sp.remove_dead_probes();
        for v in Verdict::ALL {
            sp.probe_links(sp.dir(v))?;
        }
        Ok(sp)
    }

    /// Removes the probes of [`Spool::probe_links`] that a daemon killed while it started
    /// left behind (its instance is dead); a live instance's probes are its own business.
    fn remove_dead_probes(&self) {
        let mut dirs = vec![self.work.as_path()];
        dirs.extend(self.verdict.iter().map(PathBuf::as_path));
        for dir in dirs {
            let Ok(rd) = fs::read_dir(dir) else { continue };
            for e in rd.flatten() {
                let file = e.file_name();
                let Some(id) = file
                    .as_bytes()
                    .strip_prefix(PROBE_PREFIX.as_bytes())
                    .and_then(|r| r.strip_suffix(b".f").or_else(|| r.strip_suffix(b".d")))
                    .and_then(|r| std::str::from_utf8(r).ok())
                    .and_then(Instance::parse)
                else {
                    continue;
                };
                if self.instance.is_dead(&id) != Liveness::Dead {
                    continue;
                }
                let p = e.path();
                let gone = if e.file_type().is_ok_and(|t| t.is_dir()) {
                    fs::remove_dir(&p)
                } else {
                    fs::remove_file(&p)
                };
                match gone {
                    Ok(()) => tracing::info!(
                        "removed {}, left by a daemon that was killed while it started",
                        crate::check::escape_path(&p)
                    ),
                    Err(e) => {
                        tracing::warn!("cannot remove {}: {e}", crate::check::escape_path(&p))
                    }
                }
            }
        }
    }

    /// Tries the moves the daemon makes from `work/` into `dir`: a hard link (files) and a
    /// rename (directories) of a probe. Equal device numbers do not prove it: a bind mount of
    /// the same file system has the same `st_dev`, yet link(2) and rename(2) across it fail
    /// with EXDEV, and every input would then stay in `work/`.
    pub fn probe_links(&self, dir: &Path) -> Result<(), String> {
        let name = format!("{PROBE_PREFIX}{}", self.instance_id);
        let (wfile, wdir) = (
            self.work.join(format!("{name}.f")),
            self.work.join(format!("{name}.d")),
        );
        let (dfile, ddir) = (dir.join(format!("{name}.f")), dir.join(format!("{name}.d")));
        let cleanup = || {
            let _ = fs::remove_file(&wfile);
            let _ = fs::remove_file(&dfile);
            let _ = fs::remove_dir(&wdir);
            let _ = fs::remove_dir(&ddir);
        };
        cleanup();
        let result = File::create(&wfile)
            .and_then(|_| fs::hard_link(&wfile, &dfile))
            .map_err(|e| ("link", e))
            .and_then(|()| {
                fs::create_dir(&wdir)
                    .and_then(|()| fs::rename(&wdir, &ddir))
                    .map_err(|e| ("rename", e))
            });
        cleanup();
        match result {
            Ok(()) => Ok(()),
            Err((call, e)) if e.raw_os_error() == Some(EXDEV) => Err(format!(
                "{} is on another mount than {} ({call}(2) between them fails: {e}); a bind mount \
                 has the same device number but moves across it fail, so every input would stay \
                 in work/: put the verdict folders on the spool's own mount",
                dir.display(),
                self.work.display()
            )),
            Err((call, e)) => Err(format!(
                "cannot {call} a probe from {} into {}: {e}; inputs could not be moved there",
                self.work.display(),
                dir.display()
            )),
        }
    }

    /// This process.
    pub fn instance(&self) -> &Instance {
        &self.instance
    }

    /// This process's id.
    pub fn instance_id(&self) -> &str {
        &self.instance_id
    }

    /// The folder of `v`.
    pub fn dir(&self, v: Verdict) -> &Path {
        &self.verdict[v.index()]
    }

    /// A fresh claim for an input named `name`.
    pub fn new_claim(&self, name: &OsStr) -> ClaimName {
        let n = self.seq.fetch_add(1, Ordering::Relaxed);
        ClaimName {
            name: kept_name(name),
            claim: format!(
                "{}-{}-{}-{}",
                self.instance.boot, self.instance.pid, self.instance.start, n
            ),
            owner: self.instance_id.clone(),
        }
    }

    /// Claims the directory `new/<name>` that may not be moved out of `new/` (moving a
    /// directory to another folder rewrites its `..`, which needs write permission on it; a
    /// producer's directory the daemon may only read): renamed within `new/` to
    /// `.tracelint-copy.<claim>` (allowed: the same folder; atomic, so one daemon wins), copied
    /// into `work/` (every file and folder fsynced, then renamed into its claim name), then
    /// removed where the daemon may; where it may not, the original stays under its dot name,
    /// which rescans skip. `Ok(None)`: taken by another daemon or withdrawn meanwhile.
    pub fn claim_by_copy(&self, name: &OsStr) -> io::Result<Option<(ClaimName, bool)>> {
        let claim = self.new_claim(name);
        let hidden = self.new.join(copy_name(&claim));
        match fs::rename(self.new.join(name), &hidden) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        }
        self.sync(&self.new)?;
        match self.finish_copy(&claim, &hidden) {
            Ok(removed) => Ok(Some((claim, removed))),
            Err(e) => {
                // Delivered again as it was: nothing half-done stays.
                let _ = fs::remove_dir_all(self.work.join(copy_name(&claim)));
                let _ = fs::rename(&hidden, self.new.join(name));
                Err(e)
            }
        }
    }

    /// Copies the hidden original of `claim` into `work/` and removes the original where it
    /// may; `true` when it was removed.
    fn finish_copy(&self, claim: &ClaimName, hidden: &Path) -> io::Result<bool> {
        let part = self.work.join(copy_name(claim));
        if exists_nofollow(&part)? {
            fs::remove_dir_all(&part)?;
        }
        copy_tree(hidden, &part, self.fsync, 0)?;
        fs::rename(&part, self.work.join(claim.file_name()))?;
        self.sync(&self.work)?;
        Ok(fs::remove_dir_all(hidden).is_ok())
    }

    /// A `new/.tracelint-copy.<claim>` left by a daemon that died while it copied (its owner
    /// is dead): a copy that reached `work/` (or was judged and placed) leaves only the
    /// original to remove; otherwise the partial copy is removed and the original renamed
    /// back to its name in `new/`, delivered again. `Ok(true)` when nothing of it is left.
    pub fn recover_copy(&self, hidden_name: &OsStr) -> io::Result<bool> {
        let Some(claim) = hidden_name
            .as_bytes()
            .strip_prefix(COPY_PREFIX.as_bytes())
            .and_then(|c| ClaimName::parse(OsStr::from_bytes(c)))
        else {
            return Ok(false);
        };
        let dead = Instance::parse(&claim.owner)
            .is_some_and(|o| self.instance.is_dead(&o) == Liveness::Dead);
        if !dead {
            return Ok(false);
        }
        let hidden = self.new.join(hidden_name);
        let copied = self.work_has_claim(&claim.claim)? || self.find_placed(&claim)?.is_some();
        if copied {
            return Ok(fs::remove_dir_all(&hidden).is_ok());
        }
        let part = self.work.join(copy_name(&claim));
        if exists_nofollow(&part)? {
            fs::remove_dir_all(&part)?;
        }
        let back = self.new.join(&claim.name);
        if exists_nofollow(&back)? {
            // Its name was delivered again meanwhile: judge the original under its claim.
            return self.finish_copy(&claim, &hidden).map(|_| false);
        }
        fs::rename(&hidden, &back)?;
        Ok(true)
    }

    /// Whether some entry of `work/` carries the claim id `claim`.
    fn work_has_claim(&self, claim: &str) -> io::Result<bool> {
        for e in fs::read_dir(&self.work)? {
            let file = e?.file_name();
            if file.as_bytes().starts_with(COPY_PREFIX.as_bytes()) {
                continue;
            }
            if ClaimName::parse(&file).is_some_and(|c| c.claim == claim) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Fsyncs a directory if fsync is on.
    pub fn sync(&self, dir: &Path) -> io::Result<()> {
        if self.fsync {
            sync_dir(dir)
        } else {
            Ok(())
        }
    }

    /// Writes `bytes` to `work/<temp>` and fsyncs it.
    pub fn write_temp(&self, claim: &ClaimName, bytes: &[u8]) -> io::Result<PathBuf> {
        self.write_temp_with(claim, bytes, self.fsync)
    }

    /// Writes `bytes` to `work/<temp>` without an fsync: a batch of them is made durable by
    /// one [`Spool::sync_fs`] before any is linked.
    pub fn write_temp_unsynced(&self, claim: &ClaimName, bytes: &[u8]) -> io::Result<PathBuf> {
        self.write_temp_with(claim, bytes, false)
    }

    fn write_temp_with(&self, claim: &ClaimName, bytes: &[u8], sync: bool) -> io::Result<PathBuf> {
        let path = self.work.join(claim.temp_name());
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)?;
        f.write_all(bytes)?;
        if sync {
            f.sync_all()?;
        }
        Ok(path)
    }

    /// Makes everything written to the spool's file system durable at once (`syncfs`, one
    /// journal commit for a batch of reports instead of one fsync each), if fsync is on.
    pub fn sync_fs(&self) -> io::Result<()> {
        if self.fsync {
            let dir = fs::File::open(&self.work)?;
            rustix::fs::syncfs(&dir)?;
        }
        Ok(())
    }

    /// Moves the claimed input `work/<claim>` and its finished report (at `temp`) into the
    /// folder of `verdict`, never replacing anything there. Returns the input's final path.
    ///
    /// The sidecar is linked first (it reserves the name: `x.tracelint.json`, or
    /// `x.~N~.tracelint.json` when `x` is taken), then the input is linked (files) or renamed
    /// (directories) next to it, the folder is fsynced, and only then is the `work/` entry
    /// removed. A crash at any point leaves the input in `work/` (or already in place, with
    /// its report); [`Spool::find_placed`] finds a half-finished move again.
    pub fn place(
        &self,
        claim: &ClaimName,
        verdict: Verdict,
        temp: &Path,
        is_dir: bool,
    ) -> io::Result<PathBuf> {
        let data = self.place_linked(claim, verdict, temp, is_dir)?;
        self.release(claim, is_dir)?;
        Ok(data)
    }

    /// [`Spool::place`] up to the fsync of the verdict folder: the input's `work/` entry
    /// (files) and the temporary report stay, so that a crash before the verdict is logged
    /// leaves a trace a take-over finds; [`Spool::release`] removes them once it is logged.
    pub fn place_linked(
        &self,
        claim: &ClaimName,
        verdict: Verdict,
        temp: &Path,
        is_dir: bool,
    ) -> io::Result<PathBuf> {
        let data = self.link_placed(claim, verdict, temp, is_dir)?;
        self.sync(self.dir(verdict))?;
        Ok(data)
    }

    /// [`Spool::place_linked`] without the fsync of the verdict folder: the caller fsyncs it
    /// (once for several inputs) before it removes anything from `work/`.
    pub fn link_placed(
        &self,
        claim: &ClaimName,
        verdict: Verdict,
        temp: &Path,
        is_dir: bool,
    ) -> io::Result<PathBuf> {
        let dir = self.dir(verdict);
        let wpath = self.work.join(claim.file_name());
        let mut n = 0u64;
        let mut tries = 0u32;
        loop {
            // Past a few taken names, go on after the highest number in use (listed once):
            // no cap on the names, and no walk over thousands of taken ones.
            tries = tries.saturating_add(1);
            if tries == 16 {
                n = highest_candidate(dir, &claim.name)?.map_or(n, |h| h.saturating_add(1).max(n));
            }
            if tries > 1_000_000 {
                break;
            }
            let cand = candidate(&claim.name, n);
            n = n.saturating_add(1);
            let data = dir.join(&cand);
            let side = dir.join(sidecar_name(&cand));
            if exists_nofollow(&data)? {
                continue;
            }
            match fs::hard_link(temp, &side) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
            let moved = if is_dir {
                if exists_nofollow(&data)? {
                    Err(io::Error::from(io::ErrorKind::AlreadyExists))
                } else {
                    fs::rename(&wpath, &data)
                }
            } else {
                link_or_rename(&wpath, &data)
            };
            match moved {
                Ok(()) => {}
                Err(e) => {
                    let _ = fs::remove_file(&side);
                    // Taken meanwhile (for directories, rename(2) reports a non-empty or
                    // non-directory target in several ways).
                    let taken = matches!(
                        e.kind(),
                        io::ErrorKind::AlreadyExists
                            | io::ErrorKind::DirectoryNotEmpty
                            | io::ErrorKind::NotADirectory
                            | io::ErrorKind::IsADirectory
                    );
                    if taken {
                        continue;
                    }
                    return Err(e);
                }
            }
            return Ok(data);
        }
        Err(io::Error::other(
            "no free name in the verdict folder after a million tries",
        ))
    }

    /// Removes what a placed (and logged) input left in `work/`: the input's entry (files; a
    /// directory was renamed away) and its temporary report.
    pub fn release(&self, claim: &ClaimName, is_dir: bool) -> io::Result<()> {
        let wpath = self.work.join(claim.file_name());
        let temp = self.work.join(claim.temp_name());
        if !is_dir {
            match fs::remove_file(&wpath) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        match fs::remove_file(temp) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// After a take-over: looks for a report sidecar this claim already placed (a previous
    /// owner died between linking the report and removing the input from `work/`). Every
    /// sidecar of the input's name (`x.tracelint.json`, `x.~N~.tracelint.json`) in every
    /// verdict folder is read for the claim id: a lower-numbered pair removed since does not
    /// hide a later one.
    pub fn find_placed(&self, claim: &ClaimName) -> io::Result<Option<Placed>> {
        for v in Verdict::ALL {
            let dir = self.dir(v);
            for e in fs::read_dir(dir)? {
                let e = e?;
                let file = e.file_name();
                let Some(data) = file
                    .as_bytes()
                    .strip_suffix(SIDECAR_SUFFIX.as_bytes())
                    .map(|d| OsStr::from_bytes(d).to_os_string())
                else {
                    continue;
                };
                if candidate_number(&claim.name, &data).is_none() {
                    continue;
                }
                let side = dir.join(&file);
                if let Some(report) = read_sidecar_claim(&side, &claim.claim) {
                    return Ok(Some(Placed {
                        verdict: v,
                        data: dir.join(&data),
                        sidecar: side,
                        report,
                    }));
                }
            }
        }
        Ok(None)
    }

    /// Completes a move found by [`Spool::find_placed`] (up to the fsync; the `work/` entry
    /// goes with [`Spool::release`] once the verdict is logged).
    pub fn complete_placed(&self, claim: &ClaimName, placed: &Placed) -> io::Result<()> {
        let wpath = self.work.join(claim.file_name());
        let wmeta = fs::symlink_metadata(&wpath)?;
        let is_dir = wmeta.is_dir();
        match fs::symlink_metadata(&placed.data) {
            Ok(m) if !is_dir && m.ino() == wmeta.ino() && m.dev() == wmeta.dev() => {}
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!("{} is taken by another input", placed.data.display()),
                ))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if is_dir {
                    fs::rename(&wpath, &placed.data)?;
                } else {
                    link_or_rename(&wpath, &placed.data)?;
                }
            }
            Err(e) => return Err(e),
        }
        self.sync(self.dir(placed.verdict))
    }
}

/// A report (and maybe its input) already in a verdict folder.
#[derive(Debug)]
pub struct Placed {
    /// The folder.
    pub verdict: Verdict,
    /// Where the input goes.
    pub data: PathBuf,
    /// The sidecar.
    pub sidecar: PathBuf,
    /// The sidecar's JSON.
    pub report: serde_json::Value,
}

/// `.tracelint-copy.<claim's work/ name>`.
fn copy_name(claim: &ClaimName) -> OsString {
    let mut v = COPY_PREFIX.as_bytes().to_vec();
    v.extend_from_slice(claim.file_name().as_bytes());
    OsString::from_vec(v)
}

/// Copies the directory `from` to `to` (which must not exist): folders, regular files (their
/// bytes and permission bits) at every depth, each file and folder fsynced when `fsync` is on.
/// A symbolic link or special file becomes a dangling symbolic link of its name, so that the
/// check still refuses the input for it (it looks at the copy); nothing is followed.
fn copy_tree(from: &Path, to: &Path, fsync: bool, depth: usize) -> io::Result<()> {
    if depth > 64 {
        return Err(io::Error::other("directories nested deeper than 64 levels"));
    }
    fs::create_dir(to)?;
    for e in fs::read_dir(from)? {
        let e = e?;
        let ft = e.file_type()?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if ft.is_dir() {
            copy_tree(&src, &dst, fsync, depth.saturating_add(1))?;
        } else if ft.is_file() {
            fs::copy(&src, &dst)?;
            if fsync {
                File::open(&dst)?.sync_all()?;
            }
        } else {
            std::os::unix::fs::symlink("special file replaced by tracelint's copy", &dst)?;
        }
    }
    if fsync {
        sync_dir(to)?;
    }
    Ok(())
}

/// errno of a link or rename across mounts.
const EXDEV: i32 = 18;
/// errno of link(2) on a file the process neither owns nor may write, under
/// `fs.protected_hardlinks = 1`.
const EPERM: i32 = 1;

/// Puts the claimed file `from` (in `work/`) at `to` without replacing anything there: a hard
/// link, which leaves `from` for [`Spool::release`]; where link(2) is not allowed (a file
/// another user delivered, which the daemon may read but not write, under
/// `fs.protected_hardlinks = 1`), a rename that refuses to replace (`RENAME_NOREPLACE`). Both
/// are atomic: a crash leaves the file in `work/` or in place, and a take-over finds it
/// either way (the temporary report stays in `work/` until the verdict is logged).
fn link_or_rename(from: &Path, to: &Path) -> io::Result<()> {
    match fs::hard_link(from, to) {
        Err(e) if e.raw_os_error() == Some(EPERM) => {
            use rustix::fs::{renameat_with, RenameFlags, CWD};
            renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE).map_err(io::Error::from)
        }
        r => r,
    }
}

/// `n` when `file` is `candidate(name, n)`.
fn candidate_number(name: &OsStr, file: &OsStr) -> Option<u64> {
    let rest = file.as_bytes().strip_prefix(name.as_bytes())?;
    if rest.is_empty() {
        return Some(0);
    }
    let digits = rest.strip_prefix(b".~")?.strip_suffix(b"~")?;
    if digits.is_empty() || digits.len() > 19 || digits.first() == Some(&b'0') {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// The highest `n` of a data or sidecar name `candidate(name, n)` in `dir`.
fn highest_candidate(dir: &Path, name: &OsStr) -> io::Result<Option<u64>> {
    let mut high = None;
    for e in fs::read_dir(dir)? {
        let file = e?.file_name();
        let data = file
            .as_bytes()
            .strip_suffix(SIDECAR_SUFFIX.as_bytes())
            .unwrap_or(file.as_bytes());
        if let Some(n) = candidate_number(name, OsStr::from_bytes(data)) {
            high = high.max(Some(n));
        }
    }
    Ok(high)
}

fn candidate(name: &OsStr, n: u64) -> OsString {
    if n == 0 {
        name.to_os_string()
    } else {
        let mut s = name.to_os_string();
        s.push(format!(".~{n}~"));
        s
    }
}

/// The sidecar name of a data name.
pub fn sidecar_name(data: &OsStr) -> OsString {
    let mut s = data.to_os_string();
    s.push(SIDECAR_SUFFIX);
    s
}

fn read_sidecar_claim(path: &Path, claim: &str) -> Option<serde_json::Value> {
    let f = File::open(path).ok()?;
    let mut text = Vec::new();
    f.take(64 << 20).read_to_end(&mut text).ok()?;
    let v: serde_json::Value = serde_json::from_slice(&text).ok()?;
    if v.get("watch")?.get("claim")?.as_str()? == claim {
        Some(v)
    } else {
        None
    }
}

/// Whether `p` exists, without following a final symlink.
pub fn exists_nofollow(p: &Path) -> io::Result<bool> {
    match fs::symlink_metadata(p) {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Fsyncs a directory.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

// Test code: unwrap on fixtures this module creates itself, never on input.
#[cfg(test)]
#[path = "spool_tests.rs"]
mod tests;
