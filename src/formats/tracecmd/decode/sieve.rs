//! Ring pages sifted out of a trace.dat while it is unpacked, so that most of it never has to
//! be stored or read again.
//!
//! A compressed trace.dat is unpacked into a temporary file because the checker needs random
//! access (a v7 file locates its CPU data in options written after the data). Storing hundreds
//! of MiB costs as much as decompressing them, so while the bytes stream past, each whole page
//! (at a multiple of the header's page size) is walked on its own ([`summarize_page`]): an
//! all-zero page, or a clean ring page whose walk could give no finding, is left out of the file
//! (a hole, read back as zeros) and a clean page's [`PageSummary`] kept instead. When the CPU
//! data is walked, a page with a summary is taken from it ([`Walker::page_summary`]).
//!
//! The guess is checked afterwards: every summary must be taken by a CPU walk with the guessed
//! page layout, and every event id seen in a summarised page must be defined with a payload
//! that long; otherwise [`PageSieve::complete`] is false and the caller checks the input again
//! without a sieve. A non-zero page left out anywhere else (metadata that looked like a page)
//! is never taken by a walk, so it fails the check too.
//!
//! [`PageSummary`]: crate::formats::ftrace_ring::PageSummary
//! A sieve made with [`PageSieve::positional`] keeps no summaries: it serves a check that reads
//! the CPU data from the file itself by positioned reads, so that only the metadata is kept in
//! memory. It leaves out every page whose header looks like a ring page's (a cheap test, no
//! walk) and keeps their ranges; the guess holds when each of those ranges lies in CPU data the
//! check read from the file ([`SiftedPages::check_covered`]) and no metadata span meets one.
//! All-zero pages are left out by both kinds: they read back as what they were.
//!
//! [`Walker::page_summary`]: crate::formats::ftrace_ring::Walker::page_summary

use super::pages::{SeenSet, SiftedPages};
use crate::finding::Sink;
use crate::formats::ftrace_ring::{
    summarize_page, EventTable, IdSet, PageSummary, RingParams, COMMIT_SIZE_MASK, RB_MISSED_EVENTS,
    RB_MISSED_STORED,
};
use crate::formats::tracecmd::model::{opt_id, Algo};
use crate::limits::Limits;
use crate::reader::{u16_at, u32_at, u64_at, Endian};
use std::ops::Range;

/// Runs of summarised pages kept at most (64 bytes each): past this many, pages are stored as
/// they are.
pub const MAX_SUMMARIES: usize = 1 << 18;

/// Bytes looked at for the page layout (the header and header_page are at the start).
const HEAD_BYTES: usize = 1 << 16;

/// Sifts the pages of one unpacked trace.dat.
pub struct PageSieve {
    /// True once the header was looked at.
    started: bool,
    /// The first bytes, until the header is looked at.
    head: Vec<u8>,
    /// How many first bytes to look at.
    head_bytes: usize,
    max: usize,
    /// The pages left out, with their summaries.
    pages: SiftedPages,
    /// False for a positional sieve: ring-looking pages are left out without a summary.
    summaries: bool,
    /// Pages a positional sieve keeps whatever they look like, by ascending offset.
    keep: Vec<u64>,
    /// A positional sieve's guess of the chunk streams of a compressed v7 file, by ascending
    /// offset: their whole pages are left out like ring pages.
    streams: Vec<Range<u64>>,
    /// A v6 file: its flyrecord tables (which come before the data) say where CPUs start.
    v6: bool,
    /// The limits the check runs with (the formats are read with them).
    limits: Limits,
    /// Times the event formats were looked for in the bytes before a ring page, and whether
    /// that is over (found, or given up).
    learn_tries: u32,
    learn_done: bool,
}

/// Bytes before the first ring page read back to learn the event formats at most.
const LEARN_MAX: u64 = 32 << 20;

/// Times the formats are looked for at most (at a block with a ring page each).
const LEARN_TRIES: u32 = 4;

/// Sections a chunk-stream guess follows at most.
const MAX_SECTIONS: usize = 1 << 12;

/// Chunk streams a chunk-stream guess keeps at most.
const MAX_STREAMS: usize = 1 << 16;

impl Default for PageSieve {
    fn default() -> Self {
        Self::new(MAX_SUMMARIES)
    }
}

impl PageSieve {
    /// A sieve keeping at most `max` summaries.
    pub fn new(max: usize) -> Self {
        PageSieve {
            started: false,
            head: Vec::new(),
            head_bytes: HEAD_BYTES,
            max,
            pages: SiftedPages::default(),
            summaries: true,
            keep: Vec::new(),
            streams: Vec::new(),
            v6: false,
            limits: Limits::default(),
            learn_tries: 0,
            learn_done: false,
        }
    }

    /// This sieve reading the event formats with `limits` (those of the check).
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// A sieve for a check that reads the CPU data by positioned reads from the file, whose
    /// first bytes are `head` (at least the first 64 KiB when the file has them): pages that
    /// look like ring pages are left out with no summary, whatever their number, so what it
    /// keeps does not grow with the file (a few ranges). Its windows are looked at with
    /// [`PageSieve::sift_positional`], in any order and from any thread.
    pub fn positional(head: &[u8]) -> Self {
        let head = head.get(..head.len().min(HEAD_BYTES)).unwrap_or_default();
        let mut s = PageSieve {
            summaries: false,
            started: true,
            ..Self::new(0)
        };
        s.pages
            .set_params((head.len() == HEAD_BYTES).then(|| guess(head)).flatten());
        s
    }

    /// For a positional sieve: appends to `drop` the ranges of `block` (at file offset `base`,
    /// a multiple of the page size) that need not be kept, and to `left` the file ranges of
    /// the non-zero pages among them.
    pub fn sift_positional(
        &self,
        base: u64,
        block: &[u8],
        drop: &mut Vec<Range<usize>>,
        left: &mut Vec<Range<u64>>,
    ) {
        let Some(params) = self.pages.params().filter(|_| !self.summaries) else {
            return;
        };
        let ps = u64::from(params.page_size);
        for (off, start, page) in whole_pages(base, block, ps) {
            let psz = page.len();
            if is_zero(page) {
                push_range(drop, start..start.saturating_add(psz));
            } else if (looks_like_ring(page, params)
                || self.in_streams(off..off.saturating_add(ps)))
                && self.keep.binary_search(&off).is_err()
            {
                push_range(drop, start..start.saturating_add(psz));
                push_range(left, off..off.saturating_add(ps));
            }
        }
    }

    /// Records `left` (ascending, after the ranges recorded so far) as left out.
    pub fn record_left_out(&mut self, left: Vec<Range<u64>>) {
        self.pages.record_left_out(left);
    }

    /// See [`SiftedPages::not_covered`].
    pub fn not_covered(&self) -> Vec<u64> {
        self.pages.not_covered()
    }

    /// True when a page left out overlaps bytes the metadata was decoded from.
    pub fn spoiled(&self) -> bool {
        self.pages.spoiled()
    }

    /// Non-zero bytes a positional sieve left out.
    pub fn left_out_bytes(&self) -> u64 {
        self.pages.left_out_bytes()
    }

    /// For a positional sieve of a compressed v7 file whose first bytes are `head` and whose
    /// length is `len`: guesses where the chunk streams of its compressed BUFFER sections lie,
    /// following the section headers from the first options section and each stream's chunk
    /// headers (`read(at, buf)` fills `buf` from file offset `at`, false when it cannot). Their
    /// whole pages are then left out like ring pages, since the check reads chunk streams from
    /// the file. A wrong guess is caught as any other: what was left out is then not all CPU
    /// data the check read from the file.
    pub fn with_chunk_streams(
        mut self,
        head: &[u8],
        len: u64,
        read: &mut dyn FnMut(u64, &mut [u8]) -> bool,
    ) -> Self {
        let Some(ps) = self.page_size().filter(|_| !self.summaries) else {
            return self;
        };
        let limits = Limits::default();
        let mut sink = Sink::new(1);
        let mut ctx = super::ctx::Ctx::new(head, &limits, &mut sink);
        let Some(h) = super::header(&mut ctx) else {
            return self;
        };
        let compressed = h.version >= 7 && h.algo.is_some_and(|a| a != Algo::None);
        let Some((mut at, _)) = h.first_options.filter(|_| compressed) else {
            return self;
        };
        let e = h.endian;
        for _ in 0..MAX_SECTIONS {
            if at.saturating_add(16) > len {
                break;
            }
            let Some((id, flags, body)) =
                section_header(read, at, e).filter(|(_, _, body)| body.end <= len)
            else {
                break;
            };
            at = body.end;
            if id == opt_id::BUFFER && flags & 1 != 0 {
                self.skim_streams(body, ps, e, read);
            }
        }
        self
    }

    /// Follows the chunk streams of a compressed BUFFER section body `body`: each starts at a
    /// page boundary with its chunk count, the chunks follow by their sizes.
    fn skim_streams(
        &mut self,
        body: Range<u64>,
        ps: u64,
        e: Endian,
        read: &mut dyn FnMut(u64, &mut [u8]) -> bool,
    ) {
        let mut buf = [0u8; 8];
        let mut at = body.start.checked_next_multiple_of(ps).unwrap_or(u64::MAX);
        while at.saturating_add(4) <= body.end && self.streams.len() < MAX_STREAMS {
            let mut word = [0u8; 4];
            if !read(at, &mut word) {
                return;
            }
            let Some(count) = u32_at(&word, 0, e) else {
                return;
            };
            let room = body.end.saturating_sub(at).saturating_sub(4);
            if count == 0 || u64::from(count).saturating_mul(8) > room {
                return;
            }
            let mut pos = at.saturating_add(4);
            for _ in 0..count {
                if pos.saturating_add(8) > body.end || !read(pos, &mut buf) {
                    return;
                }
                let Some(csize) = u32_at(&buf, 0, e) else {
                    return;
                };
                pos = pos.saturating_add(8).saturating_add(u64::from(csize));
                if pos > body.end {
                    return;
                }
            }
            self.streams.push(at..pos);
            at = pos.checked_next_multiple_of(ps).unwrap_or(u64::MAX);
        }
    }

    /// Whether `r` lies in one chunk stream a positional sieve guessed.
    pub fn in_streams(&self, r: Range<u64>) -> bool {
        let i = self.streams.partition_point(|s| s.end <= r.start);
        self.streams
            .get(i)
            .is_some_and(|s| s.start <= r.start && r.end <= s.end)
    }

    /// This sieve keeping the pages at `keep` (offsets, ascending) whatever they look like.
    pub fn keeping(mut self, keep: Vec<u64>) -> Self {
        self.keep = keep;
        self
    }

    /// For a positional sieve: the page header (first 16 bytes) of a page that will be left
    /// out unseen, with the rest of its window, when it looks like a ring page with data.
    pub fn ring_header(&self, header: &[u8]) -> bool {
        let Some(params) = self.pages.params().filter(|_| !self.summaries) else {
            return false;
        };
        header.len() >= 16 && !is_zero(header) && looks_like_ring(header, params)
    }

    /// The page size a positional sieve guessed.
    pub fn page_size(&self) -> Option<u64> {
        self.pages.params().map(|p| u64::from(p.page_size))
    }

    /// Whether a page in `r` is to be kept.
    pub fn keeps_any(&self, r: Range<u64>) -> bool {
        let i = self.keep.partition_point(|&k| k < r.start);
        self.keep.get(i).is_some_and(|&k| k < r.end)
    }

    /// The sieve guessing the page layout from the first `n` bytes (default 64 KiB) rather
    /// than waiting for more: for small inputs (tests, fuzzing).
    pub fn with_head_bytes(mut self, n: usize) -> Self {
        self.head_bytes = n.max(1);
        self
    }

    /// Looks at the block of unpacked bytes at stream offset `base` (blocks come in order)
    /// and appends to `drop` the ranges of `block` that need not be stored.
    pub fn sift(&mut self, base: u64, block: &[u8], drop: &mut Vec<Range<usize>>) {
        self.sift_reading(base, block, drop, &mut |_, _| false);
    }

    /// [`PageSieve::sift`], where `read(at, buf)` fills `buf` with the bytes stored so far
    /// from stream offset `at` (false when it cannot): when the first ring pages come, the
    /// event formats are read from the bytes before them, and pages are then summarised
    /// against them (as the check walks them) rather than without a table.
    pub fn sift_reading(
        &mut self,
        base: u64,
        block: &[u8],
        drop: &mut Vec<Range<usize>>,
        read: &mut dyn FnMut(u64, &mut [u8]) -> bool,
    ) {
        if !self.started {
            // The guess needs the header and header_page: until HEAD_BYTES have come, blocks
            // are kept whole.
            if self.head.len() as u64 != base {
                self.started = true;
                return;
            }
            let want = self.head_bytes.saturating_sub(self.head.len());
            self.head
                .extend_from_slice(block.get(..want.min(block.len())).unwrap_or_default());
            if self.head.len() < self.head_bytes {
                return;
            }
            self.started = true;
            self.pages.set_params(guess(&self.head));
            self.v6 = self.head.get(..12) == Some(b"\x17\x08\x44tracing6\0".as_slice());
            let head = std::mem::take(&mut self.head);
            if self.v6 {
                self.cpu_starts(0, &head);
            }
        }
        let Some(params) = self.pages.params().cloned() else {
            return;
        };
        if self.v6 {
            self.cpu_starts(base, block);
        }
        use rayon::prelude::*;
        let ps = u64::from(params.page_size);
        let pages: Vec<(u64, usize, &[u8])> = whole_pages(base, block, ps).collect();
        if !self.learn_done {
            let first_ring = pages
                .iter()
                .find(|(_, _, p)| looks_like_ring(p, &params) && has_data(p, &params));
            if let Some(&(off, _, _)) = first_ring {
                self.learn(off, base, block, read);
            }
        }
        let empty = EventTable::new();
        let table = self.pages.learned();
        // The pages are walked in parallel, one group per thread of the pool (the threads
        // wake once per block), and taken in order.
        let group = pages
            .len()
            .div_ceil(rayon::current_num_threads().max(1))
            .max(SIFT_GROUP);
        let walked: Vec<(Vec<Sifted>, IdSet)> = pages
            .par_chunks(group)
            .map(|group| {
                let mut out = Vec::with_capacity(group.len());
                let mut ids = IdSet::default();
                for &(off, start, page) in group {
                    let kind = if is_zero(page) {
                        Kind::Zero
                    } else {
                        let mut seen = SeenSet::default();
                        // Against the learned table, as the check walks it: a page it does not
                        // pass is kept, for the check to walk. Without one, the records are
                        // noted for the check to hold against its table.
                        let summary = match table {
                            Some(t) => {
                                summarize_page(page, off, &params, t, &mut ids, &mut |_, _| {})
                            }
                            None => summarize_page(
                                page,
                                off,
                                &params,
                                &empty,
                                &mut ids,
                                &mut |id, payload| {
                                    seen.record(id, payload, params.endian);
                                },
                            ),
                        };
                        match summary {
                            // A page with no data is kept: it costs little, and the page
                            // that ends the metadata (v6 CPU offsets, then zeros) looks like
                            // one.
                            Some(s) if s.data_bytes > 0 => Kind::Clean(s, seen),
                            _ => Kind::Kept,
                        }
                    };
                    out.push(Sifted {
                        off,
                        start,
                        len: page.len(),
                        kind,
                    });
                }
                (out, ids)
            })
            .collect();
        let learned = table.is_some();
        let mut sifted = Vec::with_capacity(walked.len());
        for (group, ids) in walked {
            if learned {
                self.pages.add_learned_ids(&ids);
            }
            sifted.push(group);
        }
        for p in sifted.into_iter().flatten() {
            match p.kind {
                Kind::Zero => push_range(drop, p.start..p.start.saturating_add(p.len)),
                Kind::Clean(s, seen) if self.pages.runs() < self.max => {
                    self.pages.push(p.off, s, &seen);
                    push_range(drop, p.start..p.start.saturating_add(p.len));
                }
                Kind::Clean(..) | Kind::Kept => {}
            }
        }
    }

    /// Reads the event formats from the bytes before `upto` (the first ring page with data,
    /// in `block` at stream offset `base`; the bytes before `base` through `read`), so that
    /// pages are summarised against them. Looked for at most [`LEARN_TRIES`] times, and only
    /// in the first [`LEARN_MAX`] bytes (and `max_section_bytes`); the check's own table must
    /// agree with what was read ([`SiftedPages::check_ids`]).
    fn learn(
        &mut self,
        upto: u64,
        base: u64,
        block: &[u8],
        read: &mut dyn FnMut(u64, &mut [u8]) -> bool,
    ) {
        self.learn_tries = self.learn_tries.saturating_add(1);
        // What is read back is held in memory: at most LEARN_MAX and `max_section_bytes`.
        let cap = LEARN_MAX.min(self.limits.max_section_bytes);
        if self.learn_tries >= LEARN_TRIES || upto > cap {
            self.learn_done = true;
        }
        if upto > cap {
            return;
        }
        // The stored bytes, then the block's.
        let mut get = |at: u64, buf: &mut [u8]| -> bool {
            let end = at.saturating_add(buf.len() as u64);
            if end > upto {
                return false;
            }
            let split = usize::try_from(base.saturating_sub(at))
                .unwrap_or(usize::MAX)
                .min(buf.len());
            let (stored, fresh) = buf.split_at_mut(split);
            if !stored.is_empty() && !read(at, stored) {
                return false;
            }
            let from = usize::try_from(at.saturating_add(split as u64).saturating_sub(base));
            match from
                .ok()
                .and_then(|f| block.get(f..f.saturating_add(fresh.len())))
            {
                Some(b) if b.len() == fresh.len() => {
                    fresh.copy_from_slice(b);
                    true
                }
                _ => fresh.is_empty(),
            }
        };
        // Only the bytes up to the end of the event formats are read (not the symbols and
        // strings after them).
        let Some(n) =
            formats_end(&mut get, upto, &self.limits).and_then(|end| usize::try_from(end).ok())
        else {
            return;
        };
        let mut prefix = vec![0u8; n];
        if !get(0, &mut prefix) {
            self.learn_done = true;
            return;
        }
        if let Some(table) = formats_table(&prefix, &self.limits) {
            self.pages.set_learned(table);
            self.learn_done = true;
        }
    }

    /// Notes where CPUs start from every v6 flyrecord table in `block` (at stream offset
    /// `base`): `flyrecord\0` and then (offset, size) pairs, page-aligned, after the tag. A run
    /// of summarised pages never goes past a CPU's start, and with the starts known, no run
    /// has to end at a page with room left (see [`SiftedPages::push`]). A table cut by the end
    /// of the block is read as far as it goes: a run a CPU boundary cuts spoils the sieve, it
    /// never changes a finding.
    fn cpu_starts(&mut self, base: u64, block: &[u8]) {
        let Some(params) = self.pages.params() else {
            return;
        };
        let ps = u64::from(params.page_size).max(1);
        let e = params.endian;
        let mut starts = Vec::new();
        for at in memchr::memmem::find_iter(block, b"flyrecord\0") {
            let tag_end = base.saturating_add(at as u64).saturating_add(10);
            let mut pos = at.saturating_add(10);
            while starts.len() < MAX_CPU_STARTS {
                let (Some(off), Some(size)) = (
                    u64_at(block, pos, e),
                    u64_at(block, pos.saturating_add(8), e),
                ) else {
                    break;
                };
                if off < tag_end
                    || off.checked_rem(ps) != Some(0)
                    || size.checked_rem(ps) != Some(0)
                {
                    break;
                }
                starts.push(off);
                pos = pos.saturating_add(16);
            }
        }
        self.pages.add_cpu_starts(starts, MAX_CPU_STARTS);
    }

    /// Pages left out with a summary.
    pub fn summarized(&self) -> usize {
        self.pages.summarized()
    }

    /// The pages left out, which the CPU walk takes from their summaries.
    pub fn pages(&self) -> &SiftedPages {
        &self.pages
    }

    /// Marks the sieve's pages as not seen, so the input is checked again without it.
    pub fn spoil(&self) {
        self.pages.spoil();
    }

    /// True when the check that used this sieve saw every left-out page as it was: each
    /// summary was taken by a CPU walk with the guessed layout, and the event ids fit.
    pub fn complete(&self) -> bool {
        self.pages.complete()
    }
}

/// CPU starts a sieve notes at most.
const MAX_CPU_STARTS: usize = 1 << 12;

/// Pages one parallel task walks at the least.
const SIFT_GROUP: usize = 32;

/// What sifting found a page to be.
enum Kind {
    /// All zeros: left out, no summary needed.
    Zero,
    /// Clean: left out with its summary and what its records held.
    Clean(PageSummary, SeenSet),
    /// Kept as it is.
    Kept,
}

/// One page of a block, sifted.
struct Sifted {
    off: u64,
    start: usize,
    len: usize,
    kind: Kind,
}

/// The whole pages of `block`, which starts at stream offset `base`, as (offset, offset in
/// `block`, bytes), for pages of `ps` bytes; the file's first page, which holds the header, is
/// never among them.
fn whole_pages(base: u64, block: &[u8], ps: u64) -> impl Iterator<Item = (u64, usize, &[u8])> {
    let psz = usize::try_from(ps).unwrap_or(0);
    let end = base.saturating_add(block.len() as u64);
    let mut off = base.max(ps).checked_next_multiple_of(ps).unwrap_or(end);
    std::iter::from_fn(move || {
        if psz == 0 || off.saturating_add(ps) > end {
            return None;
        }
        let start = usize::try_from(off.saturating_sub(base)).ok()?;
        let page = block.get(start..start.saturating_add(psz))?;
        let at = off;
        off = off.saturating_add(ps);
        Some((at, start, page))
    })
}

/// Whether `page` is all zeros. A page whose header words are set (every ring page with data)
/// is told apart without scanning it whole.
fn is_zero(page: &[u8]) -> bool {
    let or = |b: &[u8]| b.iter().fold(0u8, |a, &b| a | b);
    or(page.get(..16).unwrap_or_default()) == 0 && or(page) == 0
}

/// Whether `page` starts like a ring page of `params`: its commit word gives a data size that
/// fits after the page header. Text never does (its bytes make a large word); a page of other
/// binary data that does is caught when the guess is checked.
fn looks_like_ring(page: &[u8], params: &RingParams) -> bool {
    let commit = commit_word(page, params);
    let hdr = if params.long_size == 4 { 12u64 } else { 16 };
    // No bit outside the size and the two flags (the walker reports any other).
    let flags = RB_MISSED_EVENTS | RB_MISSED_STORED;
    commit.is_some_and(|c| {
        c & !(COMMIT_SIZE_MASK | flags) == 0
            && (c & COMMIT_SIZE_MASK) <= u64::from(params.page_size).saturating_sub(hdr)
    })
}

/// Appends `r` to `drop`, merging it with the last range when they touch.
fn push_range<T: PartialEq + Copy>(drop: &mut Vec<Range<T>>, r: Range<T>) {
    if let Some(last) = drop.last_mut() {
        if last.end == r.start {
            last.end = r.end;
            return;
        }
    }
    drop.push(r);
}

/// The page layout of a trace.dat starting with `head`, from its header (byte order, long
/// size, page size), when the header is usable.
fn guess(head: &[u8]) -> Option<RingParams> {
    let limits = Limits::default();
    let mut sink = Sink::new(1);
    let mut ctx = super::ctx::Ctx::new(head, &limits, &mut sink);
    let h = super::header(&mut ctx)?;
    if !h.page_size.is_power_of_two() || h.page_size < 64 {
        return None;
    }
    // The commit word is the kernel's `long`, which header_page (near the start in v6 and v7)
    // gives; a 32-bit trace-cmd on a 64-bit kernel writes 4 in the header but 8 there.
    let long = commit_size(head).unwrap_or(h.long_size);
    Some(RingParams::new(h.page_size, long, h.endian, 0, ""))
}

/// The size of header_page's `commit` field, if its text is in the first [`HEAD_BYTES`] of
/// `head`.
fn commit_size(head: &[u8]) -> Option<u8> {
    let head = head.get(..head.len().min(HEAD_BYTES))?;
    let key = b"local_t commit;";
    let at = head.windows(key.len()).position(|w| w == key)?;
    let rest = head.get(at.saturating_add(key.len())..)?;
    let line = rest.split(|&b| b == b'\n').next()?;
    let s = std::str::from_utf8(line).ok()?;
    let size = s.split("size:").nth(1)?.split(';').next()?.trim();
    match size {
        "4" => Some(4),
        "8" => Some(8),
        _ => None,
    }
}

/// Whether the ring page `page` holds data (its commit size is not 0).
fn has_data(page: &[u8], params: &RingParams) -> bool {
    commit_word(page, params).is_some_and(|c| c & COMMIT_SIZE_MASK != 0)
}

/// The commit word of the ring page `page` (the kernel's `long` after the timestamp).
fn commit_word(page: &[u8], params: &RingParams) -> Option<u64> {
    if params.long_size == 4 {
        u32_at(page, 8, params.endian).map(u64::from)
    } else {
        u64_at(page, 8, params.endian)
    }
}

/// The event table of the trace.dat whose first bytes are `prefix` (everything before its
/// ring pages), built as the check builds it, when it defines any event.
fn formats_table(prefix: &[u8], limits: &Limits) -> Option<EventTable> {
    let mut sink = Sink::new(1);
    let mut ctx = super::ctx::Ctx::new(prefix, limits, &mut sink);
    let h = super::header(&mut ctx)?;
    let m = if h.version == 6 {
        super::v6(&mut ctx, h)
    } else {
        super::v7_formats(&mut ctx, h)
    };
    let mut table = super::data::event_table(&m);
    for (id, name) in &ctx.unparsed_formats {
        table.insert_unparsed(*id, name);
    }
    (!table.is_empty()).then_some(table)
}

/// Where the event formats of the trace.dat read through `get` end (within its first `upto`
/// bytes): after the event systems of a v6 file, after the EVENT_FORMATS section of a v7 file
/// (its sections followed from the header on, as trace-cmd writes them). `None` when they are not there.
fn formats_end(
    get: &mut dyn FnMut(u64, &mut [u8]) -> bool,
    upto: u64,
    limits: &Limits,
) -> Option<u64> {
    let mut head = vec![0u8; usize::try_from(upto.min(HEAD_BYTES as u64)).ok()?];
    if !get(0, &mut head) {
        return None;
    }
    let mut sink = Sink::new(1);
    let mut ctx = super::ctx::Ctx::new(&head, limits, &mut sink);
    let h = super::header(&mut ctx)?;
    let mut c = Cursor {
        at: h.span.end,
        e: h.endian,
        get,
    };
    if h.version >= 7 {
        for _ in 0..MAX_SECTIONS {
            let (id, _, body) = section_header(c.get, c.at, c.e)?;
            c.at = body.end;
            if id == opt_id::EVENT_FORMATS {
                return Some(c.at);
            }
        }
        return None;
    }
    c.tag(b"header_page\0")?;
    let size = c.u64()?;
    c.skip(size)?;
    c.tag(b"header_event\0")?;
    let size = c.u64()?;
    c.skip(size)?;
    let ftrace = c.u32()?;
    for _ in 0..ftrace.min(MAX_FORMATS) {
        let size = c.u64()?;
        c.skip(size)?;
    }
    let systems = c.u32()?;
    for _ in 0..systems.min(MAX_FORMATS) {
        c.cstr()?;
        let n = c.u32()?;
        for _ in 0..n.min(MAX_FORMATS) {
            let size = c.u64()?;
            c.skip(size)?;
        }
    }
    (c.at <= upto).then_some(c.at)
}

/// The v7 section header at `at`, read through `read`: its id, flags and body (the bytes its
/// size gives, whether or not the input holds them).
fn section_header(
    read: &mut dyn FnMut(u64, &mut [u8]) -> bool,
    at: u64,
    e: Endian,
) -> Option<(u16, u16, Range<u64>)> {
    let mut hdr = [0u8; 16];
    if !read(at, &mut hdr) {
        return None;
    }
    let (id, flags, size) = (
        u16_at(&hdr, 0, e)?,
        u16_at(&hdr, 2, e)?,
        u64_at(&hdr, 8, e)?,
    );
    let start = at.checked_add(16)?;
    Some((id, flags, start..start.checked_add(size)?))
}

/// Formats (and systems) a scan for the end of the formats follows at most.
const MAX_FORMATS: u32 = 1 << 16;

/// Reads forward through a `get` function, as [`formats_end`] does.
struct Cursor<'g> {
    at: u64,
    e: Endian,
    get: &'g mut dyn FnMut(u64, &mut [u8]) -> bool,
}

impl Cursor<'_> {
    fn bytes<const N: usize>(&mut self) -> Option<[u8; N]> {
        let mut b = [0u8; N];
        if !(self.get)(self.at, &mut b) {
            return None;
        }
        self.at = self.at.checked_add(N as u64)?;
        Some(b)
    }
    fn u32(&mut self) -> Option<u32> {
        u32_at(&self.bytes::<4>()?, 0, self.e)
    }
    fn u64(&mut self) -> Option<u64> {
        u64_at(&self.bytes::<8>()?, 0, self.e)
    }
    fn skip(&mut self, n: u64) -> Option<()> {
        self.at = self.at.checked_add(n)?;
        Some(())
    }
    fn tag(&mut self, tag: &[u8]) -> Option<()> {
        let mut b = vec![0u8; tag.len()];
        ((self.get)(self.at, &mut b) && b == tag).then_some(())?;
        self.skip(tag.len() as u64)
    }
    /// Skips a NUL-terminated name (of at most 4 KiB).
    fn cstr(&mut self) -> Option<()> {
        let mut b = [0u8; 64];
        for _ in 0..64 {
            if !(self.get)(self.at, &mut b) {
                // Near the end: a byte at a time.
                let mut one = [0u8; 1];
                if !(self.get)(self.at, &mut one) {
                    return None;
                }
                self.skip(1)?;
                if one == [0] {
                    return Some(());
                }
                continue;
            }
            match b.iter().position(|&x| x == 0) {
                Some(i) => return self.skip((i as u64).saturating_add(1)),
                None => self.skip(64)?,
            }
        }
        None
    }
}
