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
//! A sieve made with [`PageSieve::positional`] keeps no summaries: it serves a check that reads
//! the CPU data from the file itself by positioned reads, so that only the metadata is kept in
//! memory. It leaves out every page whose header looks like a ring page's (a cheap test, no
//! walk) and keeps their ranges; the guess holds when each of those ranges lies in CPU data the
//! check read from the file ([`PageSieve::check_covered`]) and no metadata span meets one.
//! All-zero pages are left out by both kinds: they read back as what they were.
//!
//! [`Walker::page_summary`]: crate::formats::ftrace_ring::Walker::page_summary

use crate::finding::Sink;
use crate::formats::ftrace_ring::{
    summarize_page, EventTable, PageSummary, RingParams, COMMIT_SIZE_MASK, RB_MISSED_EVENTS,
    RB_MISSED_STORED,
};
use crate::limits::Limits;
use crate::reader::{u32_at, u64_at};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Summaries kept at most (48 bytes each): past this many, pages are stored as they are.
pub const MAX_SUMMARIES: usize = 1 << 18;

/// Bytes looked at for the page layout (the header and header_page are at the start).
const HEAD_BYTES: usize = 1 << 16;

/// Pages of left-out ranges a positional sieve notes, one per span that meets one.
const MAX_HITS: usize = 64;

/// Event ids are `u16`.
const IDS: usize = 1 << 16;

/// Sifts the pages of one unpacked trace.dat.
pub struct PageSieve {
    /// The page layout guessed from the file header; `None` until it is read (or when the
    /// header is not usable, in which case nothing is sifted).
    params: Option<RingParams>,
    /// True once the header was looked at.
    started: bool,
    /// The first bytes, until the header is looked at.
    head: Vec<u8>,
    /// How many first bytes to look at.
    head_bytes: usize,
    /// Summaries of the pages left out, by ascending offset.
    pages: Vec<(u64, PageSummary)>,
    /// Shortest payload seen per event id in a summarised page (`u32::MAX`: not seen).
    min_payload: Vec<u32>,
    /// (id, payload length) of the records of the page being summarised.
    seen: Vec<(u16, u32)>,
    max: usize,
    /// Summaries taken by CPU walks.
    taken: AtomicUsize,
    /// Which summaries were taken (made at the first take, once sifting is over).
    taken_flags: OnceLock<Vec<AtomicBool>>,
    /// Set when a walk met a summary it could not take.
    spoiled: AtomicBool,
    /// False for a positional sieve: ring-looking pages are left out without a summary.
    summaries: bool,
    /// A positional sieve's non-zero pages left out, merged, by ascending offset.
    left_out: Vec<Range<u64>>,
    /// Set once every range in `left_out` was found in CPU data read from the file.
    covered: AtomicBool,
    /// Where each part of `left_out` that was not found in CPU data starts.
    uncovered: OnceLock<Vec<u64>>,
    /// Pages a positional sieve keeps whatever they look like, by ascending offset.
    keep: Vec<u64>,
    /// Pages of `left_out` that metadata or a finding was found to lie in.
    hits: OnceLock<Vec<u64>>,
}

impl Default for PageSieve {
    fn default() -> Self {
        Self::new(MAX_SUMMARIES)
    }
}

impl PageSieve {
    /// A sieve keeping at most `max` summaries.
    pub fn new(max: usize) -> Self {
        PageSieve {
            params: None,
            started: false,
            head: Vec::new(),
            head_bytes: HEAD_BYTES,
            pages: Vec::new(),
            min_payload: Vec::new(),
            seen: Vec::new(),
            max,
            taken: AtomicUsize::new(0),
            taken_flags: OnceLock::new(),
            spoiled: AtomicBool::new(false),
            summaries: true,
            left_out: Vec::new(),
            covered: AtomicBool::new(false),
            uncovered: OnceLock::new(),
            keep: Vec::new(),
            hits: OnceLock::new(),
        }
    }

    /// A sieve for a check that reads the CPU data by positioned reads from the file, whose
    /// first bytes are `head` (at least the first 64 KiB when the file has them): pages that
    /// look like ring pages are left out with no summary, whatever their number, so what it
    /// keeps does not grow with the file (a few ranges). Its windows are looked at with
    /// [`PageSieve::sift_positional`], in any order and from any thread.
    pub fn positional(head: &[u8]) -> Self {
        let head = head.get(..head.len().min(HEAD_BYTES)).unwrap_or_default();
        PageSieve {
            summaries: false,
            started: true,
            params: (head.len() == HEAD_BYTES).then(|| guess(head)).flatten(),
            ..Self::new(0)
        }
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
        let Some(params) = self.params.as_ref().filter(|_| !self.summaries) else {
            return;
        };
        let ps = u64::from(params.page_size);
        let Ok(psz) = usize::try_from(ps) else { return };
        // The first page holds the header: never left out.
        let mut off = base.max(ps).next_multiple_of(ps);
        let end = base.saturating_add(block.len() as u64);
        while off.saturating_add(ps) <= end {
            let Some(start) = usize::try_from(off.saturating_sub(base)).ok() else {
                return;
            };
            let Some(page) = block.get(start..start.saturating_add(psz)) else {
                return;
            };
            if is_zero(page) {
                push_range(drop, start..start.saturating_add(psz));
            } else if looks_like_ring(page, params) && self.keep.binary_search(&off).is_err() {
                push_range(drop, start..start.saturating_add(psz));
                push_range(left, off..off.saturating_add(ps));
            }
            off = off.saturating_add(ps);
        }
    }

    /// Records `left` (ascending, after the ranges recorded so far) as left out.
    pub fn record_left_out(&mut self, left: Vec<Range<u64>>) {
        for r in left {
            push_range(&mut self.left_out, r);
        }
    }

    /// This sieve keeping the pages at `keep` (offsets, ascending) whatever they look like.
    pub fn keeping(mut self, keep: Vec<u64>) -> Self {
        self.keep = keep;
        self
    }

    /// After a check with a positional sieve whose guess did not hold (and that was not
    /// spoiled): the first page of each left-out range that was not CPU data read from the
    /// file. Kept the next time, they are typically the metadata that locates the CPU data (a
    /// v6 instance's `flyrecord` page between two CPUs' data, options after the last).
    pub fn not_covered(&self) -> Vec<u64> {
        let mut v = match self.uncovered.get() {
            Some(v) => v.clone(),
            None => self.left_out.iter().map(|r| r.start).collect(),
        };
        v.extend(self.hits.get().into_iter().flatten());
        v
    }

    /// True when a page left out overlaps bytes the metadata was decoded from.
    pub fn spoiled(&self) -> bool {
        self.spoiled.load(Ordering::Relaxed)
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
            self.params = guess(&self.head);
            self.head = Vec::new();
        }
        let Some(params) = self.params.clone() else {
            return;
        };
        let ps = u64::from(params.page_size);
        let Ok(psz) = usize::try_from(ps) else { return };
        // The first page holds the header: never left out.
        let mut off = base.max(ps).next_multiple_of(ps);
        let end = base.saturating_add(block.len() as u64);
        while off.saturating_add(ps) <= end {
            let Some(start) = usize::try_from(off.saturating_sub(base)).ok() else {
                return;
            };
            let Some(page) = block.get(start..start.saturating_add(psz)) else {
                return;
            };
            if is_zero(page) {
                push_range(drop, start..start.saturating_add(psz));
            } else if self.pages.len() < self.max {
                let seen = &mut self.seen;
                seen.clear();
                let summary = summarize_page(page, off, &params, &mut |id, len| {
                    seen.push((id, u32::try_from(len).unwrap_or(u32::MAX)));
                });
                if let Some(s) = summary {
                    // Only a page left out counts: a stored page is walked for real.
                    if self.min_payload.is_empty() {
                        self.min_payload.resize(IDS, u32::MAX);
                    }
                    for &(id, len) in &self.seen {
                        if let Some(m) = self.min_payload.get_mut(usize::from(id)) {
                            *m = (*m).min(len);
                        }
                    }
                    self.pages.push((off, s));
                    push_range(drop, start..start.saturating_add(psz));
                }
            }
            off = off.saturating_add(ps);
        }
    }

    /// Pages left out with a summary.
    pub fn summarized(&self) -> usize {
        self.pages.len()
    }

    /// Non-zero bytes a positional sieve left out.
    pub fn left_out_bytes(&self) -> u64 {
        self.left_out
            .iter()
            .map(|r| r.end.saturating_sub(r.start))
            .sum()
    }

    /// Records whether every range a positional sieve left out lies in `read`, the CPU data
    /// ranges the check reads from the file (not from the holed bytes).
    pub fn check_covered(&self, read: impl IntoIterator<Item = Range<u64>>) {
        let mut read: Vec<Range<u64>> = read.into_iter().filter(|r| r.start < r.end).collect();
        read.sort_by_key(|r| r.start);
        let mut merged: Vec<Range<u64>> = Vec::with_capacity(read.len());
        for r in read {
            match merged.last_mut() {
                Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
                _ => merged.push(r),
            }
        }
        let all = self.left_out.iter().all(|l| {
            let i = merged.partition_point(|m| m.end <= l.start);
            merged
                .get(i)
                .is_some_and(|m| m.start <= l.start && l.end <= m.end)
        });
        self.covered.store(all, Ordering::Relaxed);
        // Where each part of a left-out range outside `merged` starts.
        let mut starts = Vec::new();
        for l in &self.left_out {
            let mut at = l.start;
            let i = merged.partition_point(|m| m.end <= l.start);
            for m in merged.get(i..).unwrap_or_default() {
                if m.start >= l.end {
                    break;
                }
                if at < m.start {
                    starts.push(at);
                }
                at = at.max(m.end);
            }
            if at < l.end {
                starts.push(at);
            }
        }
        let _ = self.uncovered.set(starts);
    }

    /// The summary of the page at `off`, walked with `params`; `None` when the page was
    /// stored. A summary made for another layout spoils the sieve.
    pub fn take(&self, off: u64, params: &RingParams) -> Option<&PageSummary> {
        let i = self.pages.binary_search_by_key(&off, |(o, _)| *o).ok()?;
        let s = self.pages.get(i).map(|(_, s)| s)?;
        let same = self.params.as_ref().is_some_and(|p| {
            p.page_size == params.page_size
                && p.long_size == params.long_size
                && p.endian == params.endian
                && p.data_offset == params.data_offset
        });
        if !same {
            self.spoiled.store(true, Ordering::Relaxed);
            return None;
        }
        // Each page counts once, however often it is asked for.
        let flags = self
            .taken_flags
            .get_or_init(|| self.pages.iter().map(|_| AtomicBool::new(false)).collect());
        if flags
            .get(i)
            .is_some_and(|f| !f.swap(true, Ordering::Relaxed))
        {
            self.taken.fetch_add(1, Ordering::Relaxed);
        }
        Some(s)
    }

    /// Offset of the first summarised page at or after `off`.
    pub fn next_from(&self, off: u64) -> Option<u64> {
        let i = self.pages.partition_point(|(o, _)| *o < off);
        self.pages.get(i).map(|(o, _)| *o)
    }

    /// Spoils the sieve when a summarised page overlaps one of `spans`: bytes the metadata was
    /// decoded from, or that a finding points at, were read as zeros there.
    pub fn check_spans(&self, spans: impl IntoIterator<Item = Range<u64>>) {
        let Some(ps) = self.params.as_ref().map(|p| u64::from(p.page_size)) else {
            return;
        };
        let mut hits = Vec::new();
        for r in spans {
            // The first page ending after the span starts.
            let i = self
                .pages
                .partition_point(|(o, _)| o.saturating_add(ps) <= r.start);
            let hit = self.pages.get(i).is_some_and(|(o, _)| {
                *o < r.end || (r.start == r.end && *o <= r.start && r.start < o.saturating_add(ps))
            });
            if hit {
                self.spoil();
                return;
            }
            // A positional sieve's ranges: the pages of the overlap are kept the next time.
            let i = self.left_out.partition_point(|l| l.end <= r.start);
            let Some(l) = self.left_out.get(i) else {
                continue;
            };
            let meets = l.start < r.end || (r.start == r.end && l.start <= r.start);
            if !meets {
                continue;
            }
            self.spoil();
            // The page where the span starts to meet the range: bytes read there as zeros
            // are what the rest of the span was decoded from.
            let from = r.start.max(l.start);
            if hits.len() < MAX_HITS {
                hits.push(from.saturating_sub(from.checked_rem(ps).unwrap_or(0)));
            }
        }
        if !hits.is_empty() {
            let _ = self.hits.set(hits);
        }
    }

    /// For a positional sieve: the page header (first 16 bytes) of a page that will be left
    /// out unseen, with the rest of its window, when it looks like a ring page with data.
    pub fn ring_header(&self, header: &[u8]) -> bool {
        let Some(params) = self.params.as_ref().filter(|_| !self.summaries) else {
            return false;
        };
        header.len() >= 16 && !is_zero(header) && looks_like_ring(header, params)
    }

    /// The page size a positional sieve guessed.
    pub fn page_size(&self) -> Option<u64> {
        self.params.as_ref().map(|p| u64::from(p.page_size))
    }

    /// Whether a page in `r` is to be kept.
    pub fn keeps_any(&self, r: Range<u64>) -> bool {
        let i = self.keep.partition_point(|&k| k < r.start);
        self.keep.get(i).is_some_and(|&k| k < r.end)
    }

    /// Checks the ids seen in summarised pages against the event formats: an id without a
    /// format, or a payload shorter than its format, would have given a finding.
    pub fn check_ids(&self, table: &EventTable) {
        if table.is_empty() {
            return;
        }
        for (id, &m) in self.min_payload.iter().enumerate() {
            if m == u32::MAX {
                continue;
            }
            let ok = u32::try_from(id)
                .ok()
                .and_then(|id| table.get(id))
                .is_some_and(|info| m >= info.min_payload);
            if !ok {
                self.spoiled.store(true, Ordering::Relaxed);
                return;
            }
        }
    }

    /// Marks the sieve's pages as not seen, so the input is checked again without it.
    pub fn spoil(&self) {
        self.spoiled.store(true, Ordering::Relaxed);
    }

    /// True when the check that used this sieve saw every left-out page as it was: each
    /// summary was taken by a CPU walk with the guessed layout, and the event ids fit.
    pub fn complete(&self) -> bool {
        !self.spoiled.load(Ordering::Relaxed)
            && self.taken.load(Ordering::Relaxed) == self.pages.len()
            && (self.left_out.is_empty() || self.covered.load(Ordering::Relaxed))
    }
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
    let commit = if params.long_size == 4 {
        u32_at(page, 8, params.endian).map(u64::from)
    } else {
        u64_at(page, 8, params.endian)
    };
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
