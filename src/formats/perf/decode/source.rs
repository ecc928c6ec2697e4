//! Where a perf.data is read from: the record walk asks a [`Source`] for bounded pieces in file
//! order (a slice in memory, a file read through one window, a stream read once), and the
//! header, attrs, ids and feature sections are read from an [`Image`]: the bytes themselves, or,
//! for a file or stream that is not held, a sparse copy of the file into which only those
//! pieces are read, at their own offsets (the rest reads as zeros and costs no memory).

use crate::input::{Holed, Windowed};
use std::io::{self, Read};
use std::ops::Range;

/// Bytes by absolute offset for the record walk, asked for in file order.
pub trait Source {
    /// The `n` bytes at `off`, fewer where the input ends first. A stream is read forward:
    /// `off` is never before the start of the previous piece.
    fn get(&mut self, off: u64, n: u64) -> &[u8];

    /// The input's length as far as it is known: a stream's is `u64::MAX` until a piece
    /// asked for reached its end.
    fn len(&self) -> u64;

    /// Reads the input up to `off` (a stream reads through what lies before and keeps none of
    /// it); returns `off`, or the end of the input when it comes first.
    fn reach(&mut self, off: u64) -> u64 {
        off.min(self.len())
    }
}

impl Source for &[u8] {
    fn get(&mut self, off: u64, n: u64) -> &[u8] {
        let len = self.len() as u64;
        let end = off.saturating_add(n).min(len);
        if off >= end {
            return &[];
        }
        usize::try_from(off)
            .ok()
            .zip(usize::try_from(end).ok())
            .and_then(|(a, b)| <[u8]>::get(self, a..b))
            .unwrap_or(&[])
    }

    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }
}

impl Source for Windowed<'_> {
    fn get(&mut self, off: u64, n: u64) -> &[u8] {
        Windowed::get(self, off, n)
    }

    fn len(&self) -> u64 {
        Windowed::len(self)
    }
}

/// Bytes kept of a stream: one window, refilled forward.
const STREAM_WINDOW: usize = 1 << 20;

/// A stream read once, forward, through one window: the bytes before the piece asked for are
/// dropped, so memory stays at one window (or the largest piece asked for).
pub struct Stream<'r> {
    r: &'r mut dyn Read,
    buf: Vec<u8>,
    /// The offset of `buf[0]`.
    base: u64,
    /// Where the stream ended, once seen.
    end: Option<u64>,
    /// Bytes past this are not read (a limit): the stream is taken to end there.
    cap: u64,
    error: Option<io::Error>,
}

impl<'r> Stream<'r> {
    /// Reads `r`, whose first `at` bytes were already consumed, up to `cap` bytes in all.
    pub fn new(r: &'r mut dyn Read, at: u64, cap: u64) -> Self {
        Stream {
            r,
            buf: Vec::new(),
            base: at,
            end: None,
            cap,
            error: None,
        }
    }

    /// The error that ended the stream early, if one did.
    pub fn take_error(&mut self) -> Option<io::Error> {
        self.error.take()
    }

    /// Whether the stream was cut at `cap` (it had more bytes).
    pub fn capped(&self) -> bool {
        self.end == Some(self.cap) && self.cap != u64::MAX
    }

    /// Makes `buf` start at `off` (dropping what lies before) and hold `want` bytes, or all
    /// that is left of the stream.
    fn fill(&mut self, off: u64, want: u64) {
        if off > self.base {
            let drop = usize::try_from(off.saturating_sub(self.base)).unwrap_or(usize::MAX);
            if drop >= self.buf.len() {
                // Bytes between the window and `off` are read and thrown away.
                let mut skip = off.saturating_sub(self.base.saturating_add(self.buf.len() as u64));
                self.base = self.base.saturating_add(self.buf.len() as u64);
                self.buf.clear();
                while skip > 0 && self.end.is_none() {
                    let n = skip.min(STREAM_WINDOW as u64);
                    let got = self.read_more(usize::try_from(n).unwrap_or(STREAM_WINDOW));
                    self.base = self.base.saturating_add(got as u64);
                    self.buf.clear();
                    skip = skip.saturating_sub(got as u64);
                }
            } else {
                self.buf.drain(..drop);
                self.base = off;
            }
        }
        let want = usize::try_from(want).unwrap_or(usize::MAX);
        while self.buf.len() < want && self.end.is_none() {
            let more = want
                .saturating_sub(self.buf.len())
                .max(STREAM_WINDOW.saturating_sub(self.buf.len()))
                .max(1);
            self.read_more(more);
        }
    }

    /// Appends up to `n` bytes of the stream to `buf`; notes the end. Returns how many.
    fn read_more(&mut self, n: usize) -> usize {
        let at = self.base.saturating_add(self.buf.len() as u64);
        let room = self.cap.saturating_sub(at);
        let n = n.min(usize::try_from(room).unwrap_or(usize::MAX));
        if n == 0 {
            self.end = Some(at);
            return 0;
        }
        let old = self.buf.len();
        self.buf.resize(old.saturating_add(n), 0);
        let mut got = 0usize;
        while got < n {
            let Some(dst) = self.buf.get_mut(old.saturating_add(got)..) else {
                break;
            };
            match self.r.read(dst) {
                Ok(0) => break,
                Ok(k) => got = got.saturating_add(k),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.error = Some(e);
                    break;
                }
            }
        }
        self.buf.truncate(old.saturating_add(got));
        if got < n {
            self.end = Some(at.saturating_add(got as u64));
        }
        got
    }
}

impl Source for Stream<'_> {
    fn get(&mut self, off: u64, n: u64) -> &[u8] {
        let have = self.base.saturating_add(self.buf.len() as u64);
        if off < self.base || off.saturating_add(n) > have {
            if off < self.base {
                // A stream is not read again: what was dropped reads as missing.
                return &[];
            }
            self.fill(off, n);
        }
        let a = usize::try_from(off.saturating_sub(self.base)).unwrap_or(usize::MAX);
        let b = a.saturating_add(usize::try_from(n).unwrap_or(usize::MAX));
        let b = b.min(self.buf.len());
        self.buf.get(a..b).unwrap_or(&[])
    }

    fn len(&self) -> u64 {
        self.end.unwrap_or(u64::MAX)
    }

    fn reach(&mut self, off: u64) -> u64 {
        if off > self.base.saturating_add(self.buf.len() as u64) {
            self.fill(off, 0);
        }
        off.min(self.len())
    }
}

/// The bytes the header, attrs, ids and feature sections are read from, at their offsets in
/// the file.
pub enum Image<'a> {
    /// The whole input, in memory or mapped.
    Whole(&'a [u8]),
    /// A sparse copy: only the pieces read into it ([`Image::fill`]) hold the file's bytes.
    Holed {
        /// The copy.
        map: Holed,
        /// Bytes that may still be read into it.
        budget: u64,
    },
}

impl<'a> Image<'a> {
    /// A sparse copy of an input of `len` bytes into which at most `budget` bytes are read.
    ///
    /// # Errors
    ///
    /// The anonymous mapping could not be made.
    pub fn holed(len: u64, budget: u64) -> io::Result<Self> {
        Ok(Image::Holed {
            map: Holed::new(len)?,
            budget,
        })
    }

    /// The bytes, at their offsets.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Image::Whole(d) => d,
            Image::Holed { map, .. } => map,
        }
    }

    /// Reads `range` of `src` into the copy (nothing to do for a whole input). `false` when it
    /// would go over the budget: nothing is read then.
    pub fn fill<S: Source + ?Sized>(&mut self, src: &mut S, range: Range<u64>) -> bool {
        let Image::Holed { map, budget } = self else {
            return true;
        };
        let end = range.end.min(map.len() as u64);
        let n = end.saturating_sub(range.start);
        if n > *budget {
            return false;
        }
        *budget = budget.saturating_sub(n);
        let mut at = range.start;
        while at < end {
            let piece = src.get(at, end.saturating_sub(at).min(STREAM_WINDOW as u64));
            if piece.is_empty() {
                break;
            }
            let a = usize::try_from(at).unwrap_or(usize::MAX);
            let b = a.saturating_add(piece.len());
            if let Some(dst) = map.get_mut(a..b) {
                dst.copy_from_slice(piece);
            }
            at = at.saturating_add(piece.len() as u64);
        }
        true
    }

    /// Puts `bytes`, read from the input at `at`, into the copy (a record in hand).
    pub fn put(&mut self, at: u64, bytes: &[u8]) {
        if let Image::Holed { map, budget } = self {
            let n = bytes.len() as u64;
            if n > *budget {
                return;
            }
            *budget = budget.saturating_sub(n);
            let a = usize::try_from(at).unwrap_or(usize::MAX);
            if let Some(dst) = map.get_mut(a..a.saturating_add(bytes.len())) {
                dst.copy_from_slice(bytes);
            }
        }
    }
}
