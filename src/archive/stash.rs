//! Unpacked members held while they are checked: in memory up to `unpack_memory_bytes`, else in
//! an unnamed temporary file (removed by the OS when closed, never reachable by name), and the
//! directory view that lets a uftrace data directory inside an archive be checked in place.

use crate::formats::tracecmd::PageSieve;
use crate::formats::uftrace::RecordSieve;
use crate::input::{Data, DirEntry, DirSource, EntryKind, LoadMode, ReadAt, SeqRead};
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The bytes of one unpacked member.
pub enum Stash {
    /// Held in memory.
    Mem(Vec<u8>),
    /// Spilled to an unnamed temporary file of this length.
    Spill(File, u64),
    /// Read and counted but not kept (a member no check reads): its length.
    Counted(u64),
}

impl Stash {
    /// Length in bytes.
    pub fn len(&self) -> u64 {
        match self {
            Stash::Mem(v) => v.len() as u64,
            Stash::Spill(_, n) | Stash::Counted(n) => *n,
        }
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first up to `n` bytes.
    pub fn head(&self, n: usize) -> Vec<u8> {
        match self {
            Stash::Mem(v) => v.get(..n.min(v.len())).unwrap_or_default().to_vec(),
            Stash::Spill(f, len) => {
                let k = usize::try_from(*len).map_or(n, |l| l.min(n));
                let mut buf = vec![0u8; k];
                match f.read_exact_at(&mut buf, 0) {
                    Ok(()) => buf,
                    Err(_) => Vec::new(),
                }
            }
            Stash::Counted(_) => Vec::new(),
        }
    }
}

/// How a stash ended.
pub struct Stashed {
    /// What was read.
    pub stash: Stash,
    /// The read error that ended it early, if any (the stash holds the bytes before it).
    pub error: Option<io::Error>,
    /// Which limit cut the member short, if one did (the stash holds the bytes up to it).
    pub cut: Option<Cut>,
}

/// The limit that cut a member short.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// The member is longer than `max` (`max_file_bytes`).
    Size,
    /// The spill budget (`max_spill_bytes`) ran out.
    Spill,
}

/// Reads `r` to its end (at most `max` bytes kept) into memory, moving to a temporary file once
/// past `mem_max` bytes; `spill_left` is the spill budget, reduced by what is written.
pub fn stash(
    r: &mut dyn Read,
    mem_max: u64,
    max: u64,
    spill_left: &mut u64,
) -> io::Result<Stashed> {
    stash_sifted(r, mem_max, max, spill_left, None)
}

/// What looks at a spill as it is written.
pub enum Sift<'a> {
    /// A trace.dat: clean pages are summarised and left out (they read back as zeros).
    Pages(&'a mut PageSieve),
    /// A uftrace task file: a first pass cuts it into runs (everything is written).
    Records(&'a mut RecordSieve),
    /// A uftrace task file cut into runs whose bytes are left out (they read back as zeros):
    /// only the bytes no run covers are written (see [`RecordSieve::settled`]). A walk that
    /// has to read a run's bytes spoils the sieve.
    HoledRecords(&'a mut RecordSieve),
}

/// Bytes a holed record sieve holds back at most while a run is still open; past it they are
/// written (a run whose bytes were written can still be taken or read).
const PENDING_MAX: usize = 8 << 20;

/// Writes `part` at an offset of a file, as much of it as the spill budget allows; `Some(k)`
/// when only its first `k` bytes fit.
type Put<'a> = dyn FnMut(&mut File, &[u8], u64) -> io::Result<Option<u64>> + 'a;

/// Writes what is settled of `pending` (the bytes from `*base`) up to `limit`: the bytes no
/// closed run without payloads covers are written by `put`, those of such runs are left out
/// and noted as holes. `*ri` is the first closed run not yet passed. `Some(end)` when `put` stopped at the
/// budget.
fn flush_records(
    sv: &mut RecordSieve,
    pending: &mut Vec<u8>,
    base: &mut u64,
    ri: &mut usize,
    limit: u64,
    file: &mut File,
    put: &mut Put<'_>,
) -> io::Result<Option<u64>> {
    let end_of = |b: u64, p: &Vec<u8>| b.saturating_add(p.len() as u64);
    let limit = limit.min(end_of(*base, pending));
    let mut at = *base;
    let mut holes = Vec::new();
    let mut stopped = None;
    while at < limit {
        let closed = sv.closed();
        while closed.get(*ri).is_some_and(|r| r.end <= at) {
            *ri = ri.saturating_add(1);
        }
        // A run with payloads is written all the same unless the input can be read again and
        // none of its payloads looked like a string argument: the walk takes it only where
        // each payload has the fixed length of its function's argument spec, which string
        // arguments do not.
        let payloads_too = sv.payload_holes();
        let (to, hole) = match closed.get(*ri) {
            Some(r) if r.start <= at => (
                r.end.min(limit),
                r.payloads == 0 || (payloads_too && !r.textual),
            ),
            Some(r) => (r.start.min(limit), false),
            None => (limit, false),
        };
        if hole {
            holes.push(at..to);
        } else {
            let from = usize::try_from(at.saturating_sub(*base)).unwrap_or(usize::MAX);
            let n = usize::try_from(to.saturating_sub(at)).unwrap_or(0);
            let part = pending
                .get(from..from.saturating_add(n))
                .unwrap_or_default();
            if let Some(k) = put(file, part, at)? {
                stopped = Some(at.saturating_add(k));
                break;
            }
        }
        at = to;
    }
    for h in holes {
        sv.add_hole(h);
    }
    let done = usize::try_from(at.saturating_sub(*base)).unwrap_or(usize::MAX);
    pending.drain(..done.min(pending.len()));
    *base = at;
    Ok(stopped)
}

/// [`stash`], with `sieve` looking at the bytes of a spill as they are written (a member kept
/// in memory is not sifted).
pub fn stash_sifted(
    r: &mut dyn Read,
    mem_max: u64,
    max: u64,
    spill_left: &mut u64,
    sieve: Option<Sift<'_>>,
) -> io::Result<Stashed> {
    let mut mem = Vec::new();
    let first = mem_max.min(max);
    let err = (&mut *r)
        .take(first.saturating_add(1))
        .read_to_end(&mut mem)
        .err();
    if err.is_some() || mem.len() as u64 <= first {
        let too_large = err.is_none() && mem.len() as u64 > max;
        let cut = too_large.then_some(Cut::Size);
        if too_large {
            mem.truncate(usize::try_from(max).unwrap_or(usize::MAX));
        }
        return Ok(Stashed {
            stash: Stash::Mem(mem),
            error: err,
            cut,
        });
    }
    let file = tempfile::tempfile()?;
    let (file, spilled) = spill(r, file, mem, max, *spill_left, sieve)?;
    *spill_left = spill_left.saturating_sub(spilled.written);
    Ok(Stashed {
        stash: Stash::Spill(file, spilled.len),
        error: spilled.error,
        cut: spilled.cut,
    })
}

/// Bytes read and written per block while spilling.
const SPILL_BLOCK: usize = 1 << 20;

/// Blocks in flight between the reading and the writing thread.
const SPILL_BLOCKS: usize = 4;

/// What a spill wrote.
struct Spilled {
    /// Bytes of the member held (read back as zeros where a sieve left pages out).
    len: u64,
    /// Bytes written to the file: a sieve's holes are not.
    written: u64,
    error: Option<io::Error>,
    /// The limit that cut the input short, if one did.
    cut: Option<Cut>,
}

/// Writes `first` and then the rest of `r` to `file`: at most `max` bytes of the member in
/// all, and at most `budget` bytes written (the holes a sieve leaves cost none). The writes
/// run on a second thread, so they overlap the (decompressing) reads: the spill costs little
/// wall time next to the decoder. Memory: at most [`SPILL_BLOCKS`] + 1 blocks, and for a
/// holed record sieve the bytes it has not settled ([`PENDING_MAX`] and a block).
fn spill(
    r: &mut dyn Read,
    file: File,
    first: Vec<u8>,
    max: u64,
    budget: u64,
    sieve: Option<Sift<'_>>,
) -> io::Result<(File, Spilled)> {
    use std::sync::mpsc::sync_channel;
    let (full_tx, full_rx) = sync_channel::<Vec<u8>>(SPILL_BLOCKS);
    let (empty_tx, empty_rx) = sync_channel::<Vec<u8>>(SPILL_BLOCKS.saturating_add(1));
    std::thread::scope(|scope| {
        // The writer returns the file, the member bytes it took and the bytes it wrote; it
        // stops (and the reader with it) when the next write would pass `budget`.
        let writer = scope.spawn(move || -> io::Result<(File, u64, u64, bool)> {
            let mut file = file;
            let mut sieve = sieve;
            let mut pos = 0u64;
            let mut written = 0u64;
            let mut over = false;
            let mut drop = Vec::new();
            // A holed record sieve's bytes not yet settled, from `pend_at`, and the first
            // closed run not yet passed.
            let mut pending: Vec<u8> = Vec::new();
            let mut pend_at = 0u64;
            let mut ri = 0usize;
            // Writes `part` at `at`, as much of it as the budget allows; `Some(k)` when only
            // its first `k` bytes fit.
            let mut put = |file: &mut File, part: &[u8], at: u64| -> io::Result<Option<u64>> {
                let room = budget.saturating_sub(written);
                let n = (part.len() as u64).min(room);
                let head = part
                    .get(..usize::try_from(n).unwrap_or(0))
                    .unwrap_or_default();
                file.write_all_at(head, at)?;
                written = written.saturating_add(n);
                Ok((n < part.len() as u64).then_some(n))
            };
            for block in full_rx {
                // Where the member ends when the budget ran out in this block.
                let end = match sieve.as_mut() {
                    None => put(&mut file, &block, pos)?.map(|k| pos.saturating_add(k)),
                    Some(Sift::Records(sv)) => {
                        sv.feed(pos, &block);
                        put(&mut file, &block, pos)?.map(|k| pos.saturating_add(k))
                    }
                    Some(Sift::HoledRecords(sv)) => {
                        sv.feed(pos, &block);
                        pending.extend_from_slice(&block);
                        let settled = sv.settled();
                        let mut end = flush_records(
                            sv,
                            &mut pending,
                            &mut pend_at,
                            &mut ri,
                            settled,
                            &mut file,
                            &mut put,
                        )?;
                        // Held back too long (a run still open): written as it is.
                        if end.is_none() && pending.len() > PENDING_MAX {
                            let n = pending.len().saturating_sub(PENDING_MAX);
                            let part: Vec<u8> = pending.drain(..n).collect();
                            end =
                                put(&mut file, &part, pend_at)?.map(|k| pend_at.saturating_add(k));
                            pend_at = pend_at.saturating_add(n as u64);
                        }
                        end
                    }
                    Some(Sift::Pages(sv)) => {
                        // Only the bytes between left-out ranges are written: the file gets
                        // holes, which read as zeros.
                        drop.clear();
                        // What was stored so far is read back only to learn the event formats.
                        let stored = &file;
                        sv.sift_reading(pos, &block, &mut drop, &mut |at, buf| {
                            stored.read_exact_at(buf, at).is_ok()
                        });
                        let mut from = 0usize;
                        let mut end = None;
                        let tail = block.len()..block.len();
                        for d in drop.iter().chain(std::iter::once(&tail)) {
                            if let Some(part) = block.get(from..d.start).filter(|p| !p.is_empty()) {
                                let at = pos.saturating_add(from as u64);
                                if let Some(k) = put(&mut file, part, at)? {
                                    end = Some(at.saturating_add(k));
                                    break;
                                }
                            }
                            from = d.end;
                        }
                        end
                    }
                };
                if let Some(end) = end {
                    pos = end;
                    over = true;
                    break;
                }
                pos = pos.saturating_add(block.len() as u64);
                // Give the buffer back (never blocks: the channel holds every buffer); the
                // reader may already be gone. The first block (what was held in memory, up to
                // `unpack_memory_bytes`) is freed instead: reused as a block, its pages
                // would stay resident for the whole spill.
                if block.capacity() <= SPILL_BLOCK {
                    let _ = empty_tx.try_send(block);
                }
            }
            match sieve {
                // Holes at the end need the length set.
                Some(Sift::Pages(_)) => file.set_len(pos)?,
                Some(Sift::Records(sv)) => sv.finish(),
                Some(Sift::HoledRecords(sv)) => {
                    sv.finish();
                    if !over {
                        if let Some(end) = flush_records(
                            sv,
                            &mut pending,
                            &mut pend_at,
                            &mut ri,
                            pos,
                            &mut file,
                            &mut put,
                        )? {
                            pos = end;
                            over = true;
                        }
                    }
                    file.set_len(pos)?;
                }
                None => {}
            }
            Ok((file, pos, written, over))
        });
        let mut first = first;
        let mut cut = first.len() as u64 > max;
        first.truncate(usize::try_from(max).unwrap_or(usize::MAX));
        let mut len = first.len() as u64;
        let mut error = None;
        let mut sent = full_tx.send(first).is_ok() && !cut;
        // Buffers in circulation: `first` plus at most `SPILL_BLOCKS` more, so the writer's
        // returns never fill the `empty` channel.
        let mut made = 0usize;
        let mut spare: Vec<Vec<u8>> = Vec::new();
        while sent {
            let buf = match spare.pop().or_else(|| empty_rx.try_recv().ok()) {
                Some(b) => Some(b),
                None if made < SPILL_BLOCKS => {
                    made = made.saturating_add(1);
                    Some(Vec::new())
                }
                // The writer has every buffer: wait for one (none if it stopped).
                None => empty_rx.recv().ok(),
            };
            let Some(mut buf) = buf else { break };
            buf.resize(SPILL_BLOCK, 0);
            let k = match fill(r, &mut buf) {
                Ok(k) => k,
                Err((k, e)) => {
                    error = Some(e);
                    k
                }
            };
            let room = max.saturating_sub(len);
            let take = (k as u64).min(room);
            buf.truncate(usize::try_from(take).unwrap_or(0));
            len = len.saturating_add(take);
            if take < k as u64 {
                cut = true;
            }
            let last = k < SPILL_BLOCK || cut || error.is_some();
            if buf.is_empty() {
                spare.push(buf);
            } else {
                sent = full_tx.send(buf).is_ok();
            }
            if last {
                break;
            }
        }
        drop(full_tx);
        let (file, taken, written, over) = writer
            .join()
            .map_err(|_| io::Error::other("the spill writer stopped"))??;
        let (len, cut) = if over {
            (taken, Some(Cut::Spill))
        } else {
            (len, cut.then_some(Cut::Size))
        };
        Ok((
            file,
            Spilled {
                len,
                written,
                error,
                cut,
            },
        ))
    })
}

/// Reads into `buf` until it is full or `r` ends; the count, or the count and the error that
/// ended the read.
fn fill(r: &mut dyn Read, buf: &mut [u8]) -> Result<usize, (usize, io::Error)> {
    let mut n = 0usize;
    while let Some(rest) = buf.get_mut(n..).filter(|b| !b.is_empty()) {
        match r.read(rest) {
            Ok(0) => break,
            Ok(k) => n = n.saturating_add(k),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err((n, e)),
        }
    }
    Ok(n)
}

/// A directory inside an archive: its files' stashes by name.
pub struct ArchiveDir<'s> {
    path: PathBuf,
    files: Vec<(String, &'s Stash)>,
}

impl<'s> ArchiveDir<'s> {
    /// A directory shown as `path` with `files` (names directly inside it).
    pub fn new(path: &str, mut files: Vec<(String, &'s Stash)>) -> Self {
        files.sort_by(|a, b| a.0.cmp(&b.0));
        ArchiveDir {
            path: PathBuf::from(path),
            files,
        }
    }

    fn find(&self, name: &str) -> io::Result<&'s Stash> {
        self.files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| *s)
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    }
}

fn not_kept() -> io::Error {
    io::Error::other("the member was counted, not kept")
}

fn too_large(len: u64) -> io::Error {
    io::Error::new(io::ErrorKind::FileTooLarge, format!("{len}"))
}

impl DirSource for ArchiveDir<'_> {
    fn path(&self) -> &Path {
        &self.path
    }

    fn list(&self) -> io::Result<Vec<DirEntry>> {
        Ok(self
            .files
            .iter()
            .map(|(n, s)| DirEntry {
                name: n.clone(),
                len: s.len(),
                kind: EntryKind::File,
            })
            .collect())
    }

    fn load(&self, name: &str, max: u64) -> io::Result<Data> {
        let s = self.find(name)?;
        if s.len() > max {
            return Err(too_large(s.len()));
        }
        match s {
            Stash::Mem(v) => Ok(Data::Owned(v.clone())),
            Stash::Spill(f, _) => crate::input::load_file(f, LoadMode::Read, max),
            Stash::Counted(_) => Err(not_kept()),
        }
    }

    fn open_seq(&self, name: &str, max: u64) -> io::Result<Box<dyn SeqRead + '_>> {
        let s = self.find(name)?;
        if s.len() > max {
            return Err(too_large(s.len()));
        }
        match s {
            Stash::Mem(v) => Ok(Box::new(v.as_slice())),
            Stash::Spill(f, len) => Ok(Box::new(ReadAt::new(f, 0, *len))),
            Stash::Counted(_) => Err(not_kept()),
        }
    }
}

#[cfg(test)]
#[path = "stash_tests.rs"]
mod tests;
