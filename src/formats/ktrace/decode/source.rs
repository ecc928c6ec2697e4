//! Where the bytes come from: a slice in memory, or a file read window by window.
//!
//! The decoder only ever needs small, bounded pieces (headers, maps whose size was checked
//! against limits) plus a sequential walk over the event arrays. Reading a file in windows keeps
//! memory use flat however large the trace is.

use crate::reader::{Endian, ReadError, ReadErrorKind, ReadResult, Reader};
use std::cell::RefCell;
use std::fs::File;
use std::io;
use std::ops::Range;

/// Window size for streaming reads (a multiple of every event size).
pub const WINDOW: u64 = 4 << 20;

/// Random-access bytes with absolute offsets.
pub trait Source {
    /// Total size in bytes.
    fn len(&self) -> u64;

    /// True when empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A reader over `range`. Sources that copy use `buf` as storage; callers bound the range.
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
}

/// Bytes already in memory (or memory-mapped).
pub struct SliceSource<'d> {
    data: &'d [u8],
}

impl<'d> SliceSource<'d> {
    /// Wraps `data`.
    pub fn new(data: &'d [u8]) -> Self {
        SliceSource { data }
    }
}

impl Source for SliceSource<'_> {
    fn len(&self) -> u64 {
        self.data.len() as u64
    }

    fn read<'a>(
        &'a self,
        range: Range<u64>,
        _buf: &'a mut Vec<u8>,
        what: &'static str,
    ) -> ReadResult<Reader<'a>> {
        Reader::new(self.data, Endian::Little).slice_abs(range, what)
    }

    fn windows(
        &self,
        range: Range<u64>,
        _align: u64,
        f: &mut dyn FnMut(Reader<'_>),
    ) -> ReadResult<()> {
        let r = Reader::new(self.data, Endian::Little).slice_abs(range, "event data")?;
        f(r);
        Ok(())
    }
}

/// A file read with positioned reads, window by window.
pub struct FileSource<'f> {
    file: &'f File,
    len: u64,
    error: RefCell<Option<io::Error>>,
}

impl<'f> FileSource<'f> {
    /// Wraps `file` of `len` bytes.
    pub fn new(file: &'f File, len: u64) -> Self {
        FileSource {
            file,
            len,
            error: RefCell::new(None),
        }
    }

    /// The first I/O error met, if any (reads that failed were reported as truncation).
    pub fn take_error(&self) -> Option<io::Error> {
        self.error.borrow_mut().take()
    }

    fn fill(&self, start: u64, buf: &mut [u8], what: &'static str) -> ReadResult<()> {
        use std::os::unix::fs::FileExt;
        match self.file.read_exact_at(buf, start) {
            Ok(()) => Ok(()),
            Err(e) => {
                let mut slot = self.error.borrow_mut();
                if slot.is_none() {
                    *slot = Some(e);
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

impl Source for FileSource<'_> {
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
        buf.clear();
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
