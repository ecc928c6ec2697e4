//! Where a perf.data is read from: the record walk asks a [`Source`] for bounded pieces in file
//! order (a slice in memory, a file read through one window, a stream read once), and the
//! header, attrs, ids and feature sections are read from an [`Image`]: the bytes themselves, or,
//! for a file or stream that is not held, a sparse copy of the file into which only those
//! pieces are read, at their own offsets (the rest reads as zeros and costs no memory).

use crate::input::Holed;
use std::fs::File;
use std::io::{self, Read};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::sync::mpsc;

/// Bytes by absolute offset for the record walk, asked for in file order.
pub trait Source {
    /// The `n` bytes at `off`, fewer where the input ends first. A stream is read forward:
    /// `off` is never before the start of the previous piece.
    fn get(&mut self, off: u64, n: u64) -> &[u8];

    /// The input's length as far as it is known: a stream's is `u64::MAX` until a piece
    /// asked for reached its end.
    fn len(&self) -> u64;

    /// Whether the input is known to be empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Reads the input up to `off` (a stream reads through what lies before and keeps none of
    /// it); returns `off`, or the end of the input when it comes first.
    fn reach(&mut self, off: u64) -> u64 {
        off.min(self.len())
    }

    /// Says that `range` is about to be read in order (the record walk): a file reads ahead.
    fn sequential(&mut self, range: Range<u64>) {
        let _ = range;
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

/// Bytes read from a file at a time.
const CHUNK: usize = 1 << 20;
/// Chunks read ahead of the walk at most.
const AHEAD: usize = 2;

/// A file read by positioned reads. The range the walk reads in order ([`Source::sequential`])
/// comes in chunks of [`CHUNK`] bytes, read ahead by a thread of their own while the walk is
/// on the chunk before (when rayon's pool has more than one thread: `--jobs 1` reads them in
/// turn); a piece that straddles two chunks is put together in a scratch buffer, and pieces
/// outside that range (the header, attrs and features) are read on their own. Memory stays at
/// a few chunks whatever the file size.
pub struct FileWindow<'f> {
    file: &'f File,
    len: u64,
    /// The chunk in hand and its offset.
    cur: Vec<u8>,
    base: u64,
    scratch: Vec<u8>,
    /// The last piece was put together in `scratch` (else it lies in `cur`).
    in_scratch: bool,
    seq: Option<Seq>,
    error: Option<io::Error>,
}

/// The range read in order: where its next chunk starts, where it ends, and the thread that
/// reads ahead (none: read in turn).
struct Seq {
    next: u64,
    end: u64,
    ahead: Option<Ahead>,
}

struct Ahead {
    rx: mpsc::Receiver<io::Result<Vec<u8>>>,
    back: mpsc::Sender<Vec<u8>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Ahead {
    fn drop(&mut self) {
        // The reader stops at its next send once the receiver is gone.
        let (_, rx) = mpsc::sync_channel(0);
        drop(std::mem::replace(&mut self.rx, rx));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl<'f> FileWindow<'f> {
    /// Reads `file` of `len` bytes.
    pub fn new(file: &'f File, len: u64) -> Self {
        FileWindow {
            file,
            len,
            cur: Vec::new(),
            base: 0,
            scratch: Vec::new(),
            in_scratch: false,
            seq: None,
            error: None,
        }
    }

    /// The first read error met (the bytes not read were taken as missing).
    pub fn take_error(&mut self) -> Option<io::Error> {
        self.error.take()
    }

    fn keep_error(&mut self, e: io::Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    /// Reads `[off, end)` into `buf` (cleared first); `false` when it could not be read.
    fn pread(&mut self, off: u64, end: u64, scratch: bool) -> bool {
        let n = usize::try_from(end.saturating_sub(off)).unwrap_or(0);
        let mut buf = std::mem::take(if scratch {
            &mut self.scratch
        } else {
            &mut self.cur
        });
        buf.clear();
        buf.resize(n, 0);
        let res = self.file.read_exact_at(&mut buf, off);
        let ok = res.is_ok();
        if let Err(e) = res {
            buf.clear();
            self.keep_error(e);
        }
        if scratch {
            self.scratch = buf;
        } else {
            self.cur = buf;
        }
        ok
    }

    /// Makes the next chunk of the ordered range the one in hand; `false` at its end.
    fn next_chunk(&mut self) -> bool {
        let Some(seq) = self.seq.as_mut() else {
            return false;
        };
        if seq.next >= seq.end {
            return false;
        }
        let at = seq.next;
        let n = seq.end.saturating_sub(at).min(CHUNK as u64);
        let old = std::mem::take(&mut self.cur);
        let got = match &seq.ahead {
            Some(a) => {
                let _ = a.back.send(old);
                a.rx.recv()
                    .unwrap_or_else(|_| Err(io::Error::other("the read-ahead thread stopped")))
            }
            None => {
                let mut buf = old;
                buf.resize(usize::try_from(n).unwrap_or(0), 0);
                self.file.read_exact_at(&mut buf, at).map(|()| buf)
            }
        };
        seq.next = at.saturating_add(n);
        match got {
            Ok(buf) if buf.len() as u64 == n => {
                self.cur = buf;
                self.base = at;
                true
            }
            Ok(_) => false,
            Err(e) => {
                // The rest of the range is read piece by piece (and fails the same way).
                seq.end = seq.next;
                self.keep_error(e);
                false
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn get_slow(&mut self, off: u64, end: u64) {
        let in_seq = self
            .seq
            .as_ref()
            .is_some_and(|s| off >= self.base && end <= s.end);
        self.in_scratch = true;
        if !in_seq {
            self.pread(off, end, true);
            return;
        }
        let cur_end = |w: &Self| w.base.saturating_add(w.cur.len() as u64);
        while off >= cur_end(self) {
            if !self.next_chunk() {
                self.pread(off, end, true);
                return;
            }
        }
        if end <= cur_end(self) {
            // In the chunk now in hand: `get` takes it from there.
            self.in_scratch = false;
            return;
        }
        // Straddles: the tail of this chunk and the head of the next ones.
        let mut piece = std::mem::take(&mut self.scratch);
        piece.clear();
        let from = usize::try_from(off.saturating_sub(self.base)).unwrap_or(usize::MAX);
        piece.extend_from_slice(self.cur.get(from..).unwrap_or_default());
        while (piece.len() as u64) < end.saturating_sub(off) {
            if !self.next_chunk() {
                break;
            }
            let want = usize::try_from(end.saturating_sub(off)).unwrap_or(0);
            let take = want.saturating_sub(piece.len()).min(self.cur.len());
            piece.extend_from_slice(self.cur.get(..take).unwrap_or_default());
        }
        self.scratch = piece;
        if (self.scratch.len() as u64) < end.saturating_sub(off) {
            self.pread(off, end, true);
        }
    }
}

impl Source for FileWindow<'_> {
    #[inline]
    fn get(&mut self, off: u64, n: u64) -> &[u8] {
        let end = off.saturating_add(n).min(self.len);
        if off >= end {
            return &[];
        }
        let cur_end = self.base.saturating_add(self.cur.len() as u64);
        if off >= self.base && end <= cur_end {
            let a = usize::try_from(off.saturating_sub(self.base)).unwrap_or(usize::MAX);
            let b = usize::try_from(end.saturating_sub(self.base)).unwrap_or(usize::MAX);
            return self.cur.get(a..b).unwrap_or(&[]);
        }
        self.get_slow(off, end);
        if !self.in_scratch {
            let a = usize::try_from(off.saturating_sub(self.base)).unwrap_or(usize::MAX);
            let b = usize::try_from(end.saturating_sub(self.base)).unwrap_or(usize::MAX);
            return self.cur.get(a..b).unwrap_or(&[]);
        }
        &self.scratch
    }

    fn len(&self) -> u64 {
        self.len
    }

    fn sequential(&mut self, range: Range<u64>) {
        let end = range.end.min(self.len);
        let start = range.start.min(end);
        let ahead = (rayon::current_num_threads() > 1 && end.saturating_sub(start) > CHUNK as u64)
            .then(|| self.file.try_clone().ok())
            .flatten()
            .map(|file| {
                let (tx, rx) = mpsc::sync_channel::<io::Result<Vec<u8>>>(AHEAD);
                let (back, spare) = mpsc::channel::<Vec<u8>>();
                let thread = std::thread::Builder::new()
                    .name("perf-read-ahead".into())
                    .spawn(move || read_ahead(&file, start, end, &tx, &spare))
                    .ok();
                Ahead { rx, back, thread }
            })
            .filter(|a| a.thread.is_some());
        self.cur.clear();
        self.base = start;
        self.seq = Some(Seq {
            next: start,
            end,
            ahead,
        });
    }
}

/// The read-ahead thread: `[start, end)` in chunks, in order, until done, an error, or the
/// walk no longer wants them.
fn read_ahead(
    file: &File,
    start: u64,
    end: u64,
    tx: &mpsc::SyncSender<io::Result<Vec<u8>>>,
    spare: &mpsc::Receiver<Vec<u8>>,
) {
    let mut at = start;
    while at < end {
        let n = end.saturating_sub(at).min(CHUNK as u64);
        let mut buf = spare.try_recv().unwrap_or_default();
        // A recycled chunk is read over whole: it is not zeroed again.
        buf.resize(usize::try_from(n).unwrap_or(0), 0);
        let res = file.read_exact_at(&mut buf, at).map(|()| buf);
        let failed = res.is_err();
        if tx.send(res).is_err() || failed {
            return;
        }
        at = at.saturating_add(n);
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
