//! Unpacked members held while they are checked: in memory up to `unpack_memory_bytes`, else in
//! an unnamed temporary file (removed by the OS when closed, never reachable by name), and the
//! directory view that lets a uftrace data directory inside an archive be checked in place.

use crate::input::{Data, DirEntry, DirSource, EntryKind, LoadMode};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The bytes of one unpacked member.
pub enum Stash {
    /// Held in memory.
    Mem(Vec<u8>),
    /// Spilled to an unnamed temporary file of this length.
    Spill(File, u64),
}

impl Stash {
    /// Length in bytes.
    pub fn len(&self) -> u64 {
        match self {
            Stash::Mem(v) => v.len() as u64,
            Stash::Spill(_, n) => *n,
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
    let mut file = tempfile::tempfile()?;
    file.write_all(&mem)?;
    let mut len = mem.len() as u64;
    drop(mem);
    let mut buf = vec![0u8; 256 << 10];
    let cap = max.min(*spill_left);
    let mut error = None;
    let mut cut = None;
    loop {
        let k = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(k) => k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                error = Some(e);
                break;
            }
        };
        let room = cap.saturating_sub(len);
        let take = (k as u64).min(room);
        let part = buf
            .get(..usize::try_from(take).unwrap_or(0))
            .unwrap_or_default();
        file.write_all(part)?;
        len = len.saturating_add(take);
        if take < k as u64 {
            cut = Some(if cap < max { Cut::Spill } else { Cut::Size });
            break;
        }
    }
    *spill_left = spill_left.saturating_sub(len);
    Ok(Stashed {
        stash: Stash::Spill(file, len),
        error,
        cut,
    })
}

/// Sequential reads from a spill file by position (no shared cursor).
struct SpillReader<'f> {
    file: &'f File,
    pos: u64,
    end: u64,
}

impl Read for SpillReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.end.saturating_sub(self.pos);
        let n = usize::try_from(left).map_or(buf.len(), |l| l.min(buf.len()));
        let Some(dst) = buf.get_mut(..n) else {
            return Ok(0);
        };
        if n == 0 {
            return Ok(0);
        }
        let k = self.file.read_at(dst, self.pos)?;
        self.pos = self.pos.saturating_add(k as u64);
        Ok(k)
    }
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
        }
    }

    fn open_seq(&self, name: &str, max: u64) -> io::Result<Box<dyn Read + Send + '_>> {
        let s = self.find(name)?;
        if s.len() > max {
            return Err(too_large(s.len()));
        }
        match s {
            Stash::Mem(v) => Ok(Box::new(v.as_slice())),
            Stash::Spill(f, len) => Ok(Box::new(SpillReader {
                file: f,
                pos: 0,
                end: *len,
            })),
        }
    }
}
