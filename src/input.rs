//! Getting input bytes: memory-mapped (CLI) or read into memory (daemon, fuzzing), and the
//! directory abstraction that directory formats (uftrace) read their files through.

use crate::reader::{Endian, ReadError, ReadErrorKind, ReadResult, Reader};
use std::fs::File;
use std::io::{self, Read};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

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
    /// Read the file into memory (safe against concurrent truncation), at most
    /// `max_read_bytes`.
    Read,
    /// Read the file by positioned reads in fixed windows, never mapped: a trace.dat keeps only
    /// its metadata in memory (the CPU data is read again window by window while it is walked);
    /// the inputs that must be read whole (uftrace metadata files, a trace.dat whose metadata
    /// could not be told apart from its ring pages) are read into memory up to
    /// `max_read_bytes`. Used by the daemon. (A ktrace file or a GDB tfile is walked window by
    /// window in every mode.)
    Windowed,
}

/// Bytes of one input kept in memory except for ranges left out, which read as zeros and
/// cost no memory: an anonymous private mapping (no file behind it, so nothing another
/// process does can take its pages away), of which only the pages written are ever resident.
pub struct Holed(Option<memmap2::MmapMut>);

impl Holed {
    /// `len` bytes of zeros.
    pub fn new(len: u64) -> io::Result<Self> {
        let n = usize::try_from(len)
            .map_err(|_| io::Error::new(io::ErrorKind::FileTooLarge, format!("{len}")))?;
        Ok(Holed(if n == 0 {
            None
        } else {
            // No swap is reserved for it: only the pages written are ever backed, so a
            // mapping the size of a file far larger than memory is taken under the kernel's
            // default overcommit heuristic.
            Some(
                memmap2::MmapOptions::new()
                    .len(n)
                    .no_reserve_swap()
                    .map_anon()?,
            )
        }))
    }
}

impl std::ops::Deref for Holed {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.0.as_deref().unwrap_or_default()
    }
}

impl std::ops::DerefMut for Holed {
    fn deref_mut(&mut self) -> &mut [u8] {
        self.0.as_deref_mut().unwrap_or_default()
    }
}

/// Maps `file` read-only.
///
/// This is the only `unsafe` code in tracelint.
#[allow(unsafe_code)]
fn map_file(file: &File) -> io::Result<memmap2::Mmap> {
    // SAFETY: the map is read-only and private to this process. The one hazard is another
    // process truncating the file while it is mapped (SIGBUS on access); the CLI accepts that
    // for speed, and the spool daemon never maps (it uses `LoadMode::Windowed`).
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
        LoadMode::Read | LoadMode::Windowed => {
            let cap = usize::try_from(len).unwrap_or(usize::MAX);
            let mut v = Vec::with_capacity(cap);
            // From the start, whatever the file's cursor (a spilled member's is at its end);
            // `take` guards against a file that grew since `metadata`.
            ReadAt::new(file, 0, u64::MAX)
                .take(max.saturating_add(1))
                .read_to_end(&mut v)?;
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

/// Sequential reads of `file` from `pos` to `end` by position: the file's own cursor is
/// neither used nor moved, so readers of one file can run side by side.
pub struct ReadAt<'f> {
    file: &'f File,
    pos: u64,
    end: u64,
}

impl<'f> ReadAt<'f> {
    /// Reads `file` from `pos` up to `end` (or its end of file).
    pub fn new(file: &'f File, pos: u64, end: u64) -> Self {
        ReadAt { file, pos, end }
    }
}

impl SeqRead for ReadAt<'_> {
    fn skip(&mut self, n: u64) -> io::Result<()> {
        self.pos = self.pos.saturating_add(n).min(self.end);
        Ok(())
    }
}

/// A sequential reader that can also move forward without returning the bytes it passes.
pub trait SeqRead: Read + Send {
    /// Moves `n` bytes forward (or to the end). The default reads and drops them.
    fn skip(&mut self, n: u64) -> io::Result<()> {
        let mut left = n;
        let mut buf = [0u8; 8192];
        while left > 0 {
            let k = usize::try_from(left).map_or(buf.len(), |l| l.min(buf.len()));
            let Some(dst) = buf.get_mut(..k) else { break };
            match self.read(dst) {
                Ok(0) => break,
                Ok(got) => left = left.saturating_sub(got as u64),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl SeqRead for &[u8] {
    fn skip(&mut self, n: u64) -> io::Result<()> {
        let k = usize::try_from(n).map_or(self.len(), |n| n.min(self.len()));
        *self = self.get(k..).unwrap_or(&[]);
        Ok(())
    }
}

impl SeqRead for io::Take<File> {}

impl Read for ReadAt<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use std::os::unix::fs::FileExt;
        let left = self.end.saturating_sub(self.pos);
        let n = usize::try_from(left).map_or(buf.len(), |l| l.min(buf.len()));
        let Some(dst) = buf.get_mut(..n).filter(|d| !d.is_empty()) else {
            return Ok(0);
        };
        let k = self.file.read_at(dst, self.pos)?;
        self.pos = self.pos.saturating_add(k as u64);
        Ok(k)
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
    fn open_seq(&self, name: &str, max: u64) -> io::Result<Box<dyn SeqRead + '_>> {
        let data = self.load(name, max)?;
        Ok(Box::new(DataReader { data, pos: 0 }))
    }
}

/// Sequential reader over loaded [`Data`].
struct DataReader {
    data: Data,
    pos: usize,
}

impl SeqRead for DataReader {
    fn skip(&mut self, n: u64) -> io::Result<()> {
        let k = usize::try_from(n).unwrap_or(usize::MAX);
        self.pos = self.pos.saturating_add(k).min(self.data.len());
        Ok(())
    }
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

    fn open_seq(&self, name: &str, max: u64) -> io::Result<Box<dyn SeqRead + '_>> {
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

/// Window size of [`ByteSource::windows`] over a file (a multiple of every record size walked).
pub const WINDOW: u64 = 4 << 20;

/// Random access to the bytes of an input by absolute range: from memory or a mapping
/// ([`SliceSource`]) or by positioned reads from the file ([`FileSource`]), which keeps memory
/// flat whatever the file size. Decoders only ever ask for bounded pieces (headers, tables whose
/// size was checked against limits, one window or page at a time).
pub trait ByteSource: Sync {
    /// Total size in bytes.
    fn len(&self) -> u64;

    /// True when empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A little-endian reader over `range`. Sources that copy use `buf` as storage; callers
    /// bound the range.
    fn read<'a>(
        &'a self,
        range: Range<u64>,
        buf: &'a mut Vec<u8>,
        what: &'static str,
    ) -> ReadResult<Reader<'a>>;

    /// Calls `f` with readers over consecutive windows of `range` (each a multiple of `align`
    /// bytes except possibly the last). Stops at the first read failure and returns it.
    fn windows(
        &self,
        range: Range<u64>,
        align: u64,
        f: &mut dyn FnMut(Reader<'_>),
    ) -> ReadResult<()>;

    /// The bytes at `range`, possibly read into `buf`; `None` if they cannot be had.
    fn bytes<'a>(&'a self, range: Range<u64>, buf: &'a mut Vec<u8>) -> Option<&'a [u8]> {
        self.read(range, buf, "data").ok().map(|r| r.all_bytes())
    }
}

/// Bytes already in memory (or memory-mapped).
pub struct SliceSource<'d>(pub &'d [u8]);

impl<'d> SliceSource<'d> {
    /// Wraps `data`.
    pub fn new(data: &'d [u8]) -> Self {
        SliceSource(data)
    }
}

impl ByteSource for SliceSource<'_> {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }

    fn read<'a>(
        &'a self,
        range: Range<u64>,
        _buf: &'a mut Vec<u8>,
        what: &'static str,
    ) -> ReadResult<Reader<'a>> {
        Reader::new(self.0, Endian::Little).slice_abs(range, what)
    }

    fn windows(
        &self,
        range: Range<u64>,
        _align: u64,
        f: &mut dyn FnMut(Reader<'_>),
    ) -> ReadResult<()> {
        let r = Reader::new(self.0, Endian::Little).slice_abs(range, "event data")?;
        f(r);
        Ok(())
    }
}

/// A file of known length read with positioned reads (no shared cursor, so workers can read in
/// parallel), window by window.
pub struct FileSource<'f> {
    file: &'f File,
    len: u64,
    error: Mutex<Option<io::Error>>,
}

impl<'f> FileSource<'f> {
    /// Wraps `file` of `len` bytes.
    pub fn new(file: &'f File, len: u64) -> Self {
        FileSource {
            file,
            len,
            error: Mutex::new(None),
        }
    }

    /// The first I/O error met, if any (reads that failed were reported as truncation).
    pub fn take_error(&self) -> Option<io::Error> {
        self.error.lock().ok().and_then(|mut e| e.take())
    }

    fn fill(&self, start: u64, buf: &mut [u8], what: &'static str) -> ReadResult<()> {
        use std::os::unix::fs::FileExt;
        match self.file.read_exact_at(buf, start) {
            Ok(()) => Ok(()),
            Err(e) => {
                if let Ok(mut slot) = self.error.lock() {
                    if slot.is_none() {
                        *slot = Some(e);
                    }
                }
                Err(ReadError {
                    offset: start,
                    what,
                    kind: ReadErrorKind::Eof {
                        needed: buf.len() as u64,
                        available: 0,
                    },
                })
            }
        }
    }

    fn check_range(&self, range: &Range<u64>, what: &'static str) -> ReadResult<usize> {
        if range.end < range.start || range.end > self.len {
            return Err(ReadError {
                offset: range.start,
                what,
                kind: ReadErrorKind::Eof {
                    needed: range.end.saturating_sub(range.start),
                    available: self.len.saturating_sub(range.start),
                },
            });
        }
        crate::reader::to_usize(range.end.saturating_sub(range.start), range.start, what)
    }
}

impl ByteSource for FileSource<'_> {
    fn len(&self) -> u64 {
        self.len
    }

    fn read<'a>(
        &'a self,
        range: Range<u64>,
        buf: &'a mut Vec<u8>,
        what: &'static str,
    ) -> ReadResult<Reader<'a>> {
        let n = self.check_range(&range, what)?;
        // Every byte is read over: only bytes the buffer did not have are zeroed first.
        buf.resize(n, 0);
        self.fill(range.start, buf, what)?;
        Ok(Reader::with_base(buf, range.start, Endian::Little))
    }

    fn windows(
        &self,
        range: Range<u64>,
        align: u64,
        f: &mut dyn FnMut(Reader<'_>),
    ) -> ReadResult<()> {
        self.check_range(&range, "event data")?;
        let step = WINDOW
            .checked_div(align)
            .unwrap_or(WINDOW)
            .max(1)
            .saturating_mul(align.max(1));
        let mut buf = Vec::new();
        let mut pos = range.start;
        while pos < range.end {
            let end = pos.saturating_add(step).min(range.end);
            let n = crate::reader::to_usize(end.saturating_sub(pos), pos, "event data")?;
            buf.resize(n, 0);
            let window = buf.get_mut(..n).unwrap_or_default();
            self.fill(pos, window, "event data")?;
            f(Reader::with_base(window, pos, Endian::Little));
            pos = end;
        }
        Ok(())
    }
}

/// Offset in `bytes` of the first byte that is not zero. Blocks are OR-folded first (a loop
/// the compiler vectorises), so a run of zeros is passed over at memory speed.
pub fn first_nonzero(bytes: &[u8]) -> Option<usize> {
    const BLOCK: usize = 4096;
    let mut at = 0usize;
    for block in bytes.chunks(BLOCK) {
        if block.iter().fold(0u8, |a, &b| a | b) != 0 {
            return block
                .iter()
                .position(|&b| b != 0)
                .map(|i| at.saturating_add(i));
        }
        at = at.saturating_add(block.len());
    }
    None
}

/// Bytes read per step by [`scan_nonzero`]: small enough to stay in the cache between the
/// read and the scan.
pub const SCAN_STEP: u64 = 256 << 10;

/// The offset of the first non-zero byte of `range` in `src`, reading it in steps of
/// [`SCAN_STEP`] and keeping none: memory stays flat whatever the range. `Ok(None)`: every byte
/// is zero.
///
/// # Errors
///
/// A read that failed (the range is past the end of `src`, or the file could not be read).
pub fn scan_nonzero<S: ByteSource + ?Sized>(
    src: &S,
    range: Range<u64>,
    buf: &mut Vec<u8>,
) -> ReadResult<Option<u64>> {
    let mut pos = range.start;
    while pos < range.end {
        let end = pos.saturating_add(SCAN_STEP).min(range.end);
        let r = src.read(pos..end, buf, "trailing bytes")?;
        if let Some(i) = first_nonzero(r.all_bytes()) {
            return Ok(Some(pos.saturating_add(i as u64)));
        }
        pos = end;
    }
    Ok(None)
}

/// Bytes by absolute offset, for a walk that asks for small pieces in file order: a slice in
/// memory (a mapping, an unpacked member) as it is, or a file read through one window
/// that is refilled, from the offset asked for, when a piece is not in it. Memory stays at one
/// window (or the largest piece asked for) whatever the size of the input.
pub struct Windowed<'s> {
    inner: Inner<'s>,
    buf: Vec<u8>,
    base: u64,
    window: u64,
    /// The zero scan that found the longest run of zeros: from an offset, the first non-zero
    /// byte at or after it (`None`: zeros to the end).
    zeros: Option<(u64, Option<u64>)>,
}

enum Inner<'s> {
    Slice(&'s [u8]),
    Source(&'s FileSource<'s>),
}

impl<'s> Windowed<'s> {
    /// Over bytes in memory (nothing is copied).
    pub fn slice(data: &'s [u8]) -> Self {
        Windowed {
            inner: Inner::Slice(data),
            buf: Vec::new(),
            base: 0,
            window: 0,
            zeros: None,
        }
    }

    /// Over `src`, read `window` bytes at a time (at least the piece asked for).
    pub fn source(src: &'s FileSource<'s>, window: u64) -> Self {
        Windowed {
            inner: Inner::Source(src),
            buf: Vec::new(),
            base: 0,
            window,
            zeros: None,
        }
    }

    /// Total size in bytes.
    pub fn len(&self) -> u64 {
        match self.inner {
            Inner::Slice(d) => d.len() as u64,
            Inner::Source(s) => s.len(),
        }
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `n` bytes at `off`, fewer where the input ends first (none past its end, or where
    /// the source could not be read: the source keeps the error).
    pub fn get(&mut self, off: u64, n: u64) -> &[u8] {
        let end = off.saturating_add(n).min(self.len());
        if off >= end {
            return &[];
        }
        match self.inner {
            Inner::Slice(d) => usize::try_from(off)
                .ok()
                .zip(usize::try_from(end).ok())
                .and_then(|(a, b)| d.get(a..b))
                .unwrap_or(&[]),
            Inner::Source(src) => {
                let have = self.base..self.base.saturating_add(self.buf.len() as u64);
                if off < have.start || end > have.end {
                    let fill_end = off
                        .saturating_add(self.window.max(end.saturating_sub(off)))
                        .min(src.len());
                    self.base = off;
                    // A file source reads into the buffer it is given.
                    if src.read(off..fill_end, &mut self.buf, "data").is_err() {
                        self.buf.clear();
                        return &[];
                    }
                }
                let a = usize::try_from(off.saturating_sub(self.base)).unwrap_or(usize::MAX);
                let b = usize::try_from(end.saturating_sub(self.base)).unwrap_or(usize::MAX);
                self.buf.get(a..b).unwrap_or(&[])
            }
        }
    }

    /// The offset of the first non-zero byte at or after `off` (`None`: zeros to the end),
    /// read in bounded steps and never kept; the longest run of zeros found is remembered for
    /// a later question about the same zeros.
    pub fn first_nonzero_from(&mut self, off: u64) -> Option<u64> {
        let len = self.len();
        // Zeros already scanned: from `off` on, or from further on (then only the bytes up to
        // there are read).
        let mut upto = len;
        if let Some((from, found)) = self.zeros {
            if from <= off && found.is_none_or(|f| f >= off) {
                return found;
            }
            if off < from {
                upto = from;
            }
        }
        let scanned = match self.inner {
            Inner::Slice(d) => usize::try_from(off)
                .ok()
                .zip(usize::try_from(upto).ok())
                .and_then(|(a, b)| d.get(a..b))
                .and_then(first_nonzero)
                .map(|i| off.saturating_add(i as u64)),
            Inner::Source(src) => {
                self.buf.clear();
                self.base = 0;
                // A read that failed is kept by the source (an I/O finding); the bytes not
                // read are taken as not zero.
                let r = scan_nonzero(src, off.min(upto)..upto, &mut self.buf).unwrap_or(Some(off));
                self.buf.clear();
                r
            }
        };
        let found = match (scanned, self.zeros) {
            (None, Some((_, found))) if upto < len => found,
            _ => scanned,
        };
        // The longest run of zeros is kept: a short scan does not displace a long one.
        let zeros = |from: u64, found: Option<u64>| found.unwrap_or(len).saturating_sub(from);
        if self
            .zeros
            .is_none_or(|(f, n)| zeros(off, found) >= zeros(f, n))
        {
            self.zeros = Some((off, found));
        }
        found
    }
}

#[cfg(test)]
mod window_tests {
    use super::*;

    /// Whatever the order of the questions, the answers are those of a scan of every byte.
    #[test]
    fn first_nonzero_from_answers_as_a_full_scan() {
        let mut data = vec![0u8; 3000];
        data[100] = 1;
        data[2990] = 7;
        let truth = |off: u64| {
            (off as usize..data.len())
                .find(|&i| data[i] != 0)
                .map(|i| i as u64)
        };
        let orders: [&[u64]; 4] = [
            &[200, 150, 101, 0, 2995, 2991, 2990, 3000],
            &[2995, 0, 200, 2991],
            &[3000, 2000, 101, 100, 99],
            &[50, 2990, 150, 2989],
        ];
        for order in orders {
            let mut w = Windowed::slice(&data);
            for &off in order {
                assert_eq!(w.first_nonzero_from(off), truth(off), "{order:?} at {off}");
            }
        }
    }
}
