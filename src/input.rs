//! Getting input bytes: memory-mapped (CLI) or read into memory (daemon, fuzzing), and the
//! directory abstraction that directory formats (uftrace) read their files through.

use std::fs::File;
use std::io::{self, Read};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Bytes of one input file.
pub enum Data {
    /// Read into memory.
    Owned(Vec<u8>),
    /// Memory-mapped (read-only).
    Mapped(memmap2::Mmap),
}

impl std::ops::Deref for Data {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Data::Owned(v) => v,
            Data::Mapped(m) => m,
        }
    }
}

/// How files are brought into memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadMode {
    /// Map the file (fast, no copy; unsafe if another process truncates it meanwhile).
    Mmap,
    /// Read the file into memory (safe against concurrent truncation; used by the daemon).
    Read,
}

/// Maps `file` read-only.
///
/// This is the only `unsafe` code in tracelint.
#[allow(unsafe_code)]
fn map_file(file: &File) -> io::Result<memmap2::Mmap> {
    // SAFETY: the map is read-only and private to this process. The one hazard is another
    // process truncating the file while it is mapped (SIGBUS on access); the CLI accepts that
    // for speed, and the spool daemon never maps (it uses `LoadMode::Read`).
    unsafe { memmap2::Mmap::map(file) }
}

/// Loads at most `max` bytes of `path`; a larger file is an error of kind `FileTooLarge`
/// whose message carries the size.
pub fn load(path: &Path, mode: LoadMode, max: u64) -> io::Result<Data> {
    load_file(&File::open(path)?, mode, max)
}

/// [`load`] for a file already open.
pub fn load_file(file: &File, mode: LoadMode, max: u64) -> io::Result<Data> {
    let len = file.metadata()?.len();
    if len > max {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("{len}"),
        ));
    }
    if len == 0 {
        return Ok(Data::Owned(Vec::new()));
    }
    match mode {
        LoadMode::Mmap => map_file(file).map(Data::Mapped),
        LoadMode::Read => {
            let cap = usize::try_from(len).unwrap_or(usize::MAX);
            let mut v = Vec::with_capacity(cap);
            // `take` guards against a file that grew since `metadata`.
            file.take(max.saturating_add(1)).read_to_end(&mut v)?;
            if v.len() as u64 > max {
                return Err(io::Error::new(
                    io::ErrorKind::FileTooLarge,
                    format!("{}", v.len()),
                ));
            }
            Ok(Data::Owned(v))
        }
    }
}

/// Kind of a directory entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// Regular file.
    File,
    /// Directory.
    Dir,
    /// Symbolic link (never followed).
    Symlink,
    /// Anything else.
    Other,
}

/// One entry of a directory input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    /// File name (no path).
    pub name: String,
    /// Size in bytes (0 for non-files).
    pub len: u64,
    /// Kind.
    pub kind: EntryKind,
}

/// A directory of named files: the real file system, or an in-memory image (fuzzing, tests).
pub trait DirSource: Sync {
    /// Display path of the directory.
    fn path(&self) -> &Path;
    /// The entries directly in the directory, sorted by name.
    fn list(&self) -> io::Result<Vec<DirEntry>>;
    /// Loads one file of the directory, refusing files above `max` bytes
    /// (`io::ErrorKind::FileTooLarge`).
    fn load(&self, name: &str, max: u64) -> io::Result<Data>;
    /// Opens one file of the directory for sequential reading, refusing files above `max`
    /// bytes. The default loads the whole file; [`FsDir`] streams it from disk so that large
    /// files are never held in memory at once.
    fn open_seq(&self, name: &str, max: u64) -> io::Result<Box<dyn Read + Send + '_>> {
        let data = self.load(name, max)?;
        Ok(Box::new(DataReader { data, pos: 0 }))
    }
}

/// Sequential reader over loaded [`Data`].
struct DataReader {
    data: Data,
    pos: usize,
}

impl Read for DataReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let rest = self.data.get(self.pos..).unwrap_or(&[]);
        let n = rest.len().min(buf.len());
        if let (Some(dst), Some(src)) = (buf.get_mut(..n), rest.get(..n)) {
            dst.copy_from_slice(src);
        }
        self.pos = self.pos.saturating_add(n);
        Ok(n)
    }
}

/// A directory on disk.
pub struct FsDir {
    root: PathBuf,
    mode: LoadMode,
}

impl FsDir {
    /// A directory read with `mode`.
    pub fn new(root: impl Into<PathBuf>, mode: LoadMode) -> Self {
        FsDir {
            root: root.into(),
            mode,
        }
    }
}

impl DirSource for FsDir {
    fn path(&self) -> &Path {
        &self.root
    }

    fn list(&self) -> io::Result<Vec<DirEntry>> {
        let mut v = Vec::new();
        for e in std::fs::read_dir(&self.root)? {
            let e = e?;
            let ft = e.file_type()?;
            let kind = if ft.is_symlink() {
                EntryKind::Symlink
            } else if ft.is_file() {
                EntryKind::File
            } else if ft.is_dir() {
                EntryKind::Dir
            } else {
                EntryKind::Other
            };
            let len = if kind == EntryKind::File {
                e.metadata()?.len()
            } else {
                0
            };
            v.push(DirEntry {
                name: e.file_name().to_string_lossy().into_owned(),
                len,
                kind,
            });
        }
        v.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(v)
    }

    fn load(&self, name: &str, max: u64) -> io::Result<Data> {
        if name.contains('/') || name == ".." {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "bad name"));
        }
        load(&self.root.join(name), self.mode, max)
    }

    fn open_seq(&self, name: &str, max: u64) -> io::Result<Box<dyn Read + Send + '_>> {
        if name.contains('/') || name == ".." {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "bad name"));
        }
        let file = File::open(self.root.join(name))?;
        let len = file.metadata()?.len();
        if len > max {
            return Err(io::Error::new(
                io::ErrorKind::FileTooLarge,
                format!("{len}"),
            ));
        }
        Ok(Box::new(file.take(max)))
    }
}

/// An in-memory directory image.
#[derive(Clone, Debug, Default)]
pub struct MemDir {
    root: PathBuf,
    files: Vec<(String, Vec<u8>)>,
}

impl MemDir {
    /// An image from (name, bytes) pairs.
    pub fn new(root: impl Into<PathBuf>, mut files: Vec<(String, Vec<u8>)>) -> Self {
        files.sort_by(|a, b| a.0.cmp(&b.0));
        files.dedup_by(|a, b| a.0 == b.0);
        MemDir {
            root: root.into(),
            files,
        }
    }

    /// The files.
    pub fn files(&self) -> &[(String, Vec<u8>)] {
        &self.files
    }
}

impl DirSource for MemDir {
    fn path(&self) -> &Path {
        &self.root
    }

    fn list(&self) -> io::Result<Vec<DirEntry>> {
        Ok(self
            .files
            .iter()
            .map(|(n, d)| DirEntry {
                name: n.clone(),
                len: d.len() as u64,
                kind: EntryKind::File,
            })
            .collect())
    }

    fn load(&self, name: &str, max: u64) -> io::Result<Data> {
        match self.files.iter().find(|(n, _)| n == name) {
            Some((_, d)) if d.len() as u64 > max => Err(io::Error::new(
                io::ErrorKind::FileTooLarge,
                format!("{}", d.len()),
            )),
            Some((_, d)) => Ok(Data::Owned(d.clone())),
            None => Err(io::Error::from(io::ErrorKind::NotFound)),
        }
    }
}

/// Random access to the bytes of an input by absolute range: from memory or a mapping
/// ([`SliceSource`]) or by positioned reads from the file ([`FileSource`]).
pub trait ByteSource: Sync {
    /// The bytes at absolute range `r`, possibly read into `buf`; `None` if they cannot be had.
    fn get<'b>(&'b self, r: Range<u64>, buf: &'b mut Vec<u8>) -> Option<&'b [u8]>;
}

/// The input itself (memory or a mapping).
pub struct SliceSource<'a>(pub &'a [u8]);

impl ByteSource for SliceSource<'_> {
    fn get<'b>(&'b self, r: Range<u64>, _buf: &'b mut Vec<u8>) -> Option<&'b [u8]> {
        let s = usize::try_from(r.start).ok()?;
        let e = usize::try_from(r.end).ok()?;
        self.0.get(s..e)
    }
}

/// Positioned reads from the file: each window is read into a reused buffer, so walking
/// gigabytes of ring data keeps the resident memory at one window per worker.
pub struct FileSource(pub std::fs::File);

impl ByteSource for FileSource {
    fn get<'b>(&'b self, r: Range<u64>, buf: &'b mut Vec<u8>) -> Option<&'b [u8]> {
        use std::os::unix::fs::FileExt;
        let n = usize::try_from(r.end.checked_sub(r.start)?).ok()?;
        buf.clear();
        buf.resize(n, 0);
        self.0.read_exact_at(buf, r.start).ok()?;
        Some(buf.as_slice())
    }
}
