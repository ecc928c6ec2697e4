//! The pages a [`PageSieve`] left out of an unpacked trace.dat, with their summaries: what the
//! CPU walk reads instead of the bytes, and the checks that tell whether the guess held.
//!
//! [`PageSieve`]: super::sieve::PageSieve

use crate::formats::ftrace_ring::{
    tail_excess, EventTable, Extends, IdSet, PageSummary, RingParams, Tail, TAIL_EXCESS, TEXT_SLACK,
};
use crate::reader::Endian;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// What the records of summarised pages told of their events, by event id: what
/// [`SiftedPages::check_ids`] checks against the formats once they are known. Kept per page
/// (a page holds a few ids), it is merged into the sieve's table when the page is left out.
#[derive(Clone, Debug, Default)]
pub struct SeenSet {
    ids: Vec<(u16, SeenId)>,
}

impl SeenSet {
    /// Records a record of event `id` with `payload` (in byte order `e`). What the check only
    /// needs to know once per id (some record's text or location leaves an excess) is not
    /// looked for again once known.
    #[inline]
    pub fn record(&mut self, id: u16, payload: &[u8], e: Endian) {
        let len = u32::try_from(payload.len()).unwrap_or(u32::MAX);
        let i = match self.ids.iter().position(|(k, _)| *k == id) {
            Some(i) => i,
            None => {
                self.ids.push((id, NOT_SEEN));
                self.ids.len().saturating_sub(1)
            }
        };
        let Some((_, m)) = self.ids.get_mut(i) else {
            return;
        };
        m.min = m.min.min(len);
        m.max = m.max.max(len);
        // Excess of the payload read as `print` text at offset 12 and 16 (32- and 64-bit ip).
        // Text from `off` leaves no excess in a payload shorter than its NUL, the slack and
        // the least excess reported.
        let least = TEXT_SLACK.saturating_add(TAIL_EXCESS).saturating_add(1);
        for (k, off) in [(0usize, 12u32), (1, 16)] {
            if let Some(t) = m
                .text
                .get_mut(k)
                .filter(|t| **t == 0 && len >= off.saturating_add(least))
            {
                *t = tail_excess(Tail::Text(off), payload, e).unwrap_or(0);
            }
        }
        if m.loc < TAIL_EXCESS && len >= TAIL_EXCESS {
            m.loc = m.loc.max(loc_excess(payload, len, e, TAIL_EXCESS));
        }
    }
}

/// Excess of `payload` (`len` bytes) past the data of every word from offset 8 to 64 read as
/// a `__data_loc` or `__rel_loc` word: at most the excess of the event's own fields. Only
/// whether it reaches `need` matters: once a word leaves less, a value below `need` is
/// returned without reading the others (each can only shorten the excess). The words are
/// read from the last, whose locations reach furthest.
fn loc_excess(payload: &[u8], len: u32, e: Endian, need: u32) -> u32 {
    let excess = |end: u32| len.saturating_sub(end.checked_next_multiple_of(4).unwrap_or(u32::MAX));
    // Any word may be a location: take the furthest end that fits the payload.
    let mut end = 0u32;
    for at in (8u32..len.min(64)).step_by(4).rev() {
        let Some(w) = crate::reader::u32_at(payload, at as usize, e) else {
            continue;
        };
        let data = (w & 0xffff).saturating_add(w >> 16);
        // The relative form's end (after the word) is past the absolute one's.
        let rel = at.saturating_add(4).saturating_add(data);
        if rel <= len {
            end = end.max(rel);
        } else if data <= len {
            end = end.max(data);
        }
        if excess(end) < need {
            break;
        }
    }
    excess(end)
}

/// Per event id, what the summarised records held.
#[derive(Clone, Copy, Debug)]
struct SeenId {
    min: u32,
    max: u32,
    text: [u32; 2],
    loc: u32,
}

impl SeenId {
    fn merge(&mut self, o: &SeenId) {
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
        self.text = [self.text[0].max(o.text[0]), self.text[1].max(o.text[1])];
        self.loc = self.loc.max(o.loc);
    }
}

const NOT_SEEN: SeenId = SeenId {
    min: u32::MAX,
    max: 0,
    text: [0; 2],
    loc: 0,
};

/// Event ids are `u16`.
const IDS: usize = 1 << 16;

/// Consecutive clean pages summarised as one: taking the run is walking its pages in turn.
/// Pages join a run only while each one's timestamp is no older than the time the pages
/// before it left the walker with, so no page after the first can give a finding, and what
/// the run leaves the walker with is what the pages would.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Run {
    /// Pages in the run (at least 1).
    pub pages: u32,
    /// The first page's timestamp and `compared`, the first record's time, the last record's
    /// time, the counts summed, and the last page's time extends (offsets relative to the
    /// run's first page).
    pub summary: PageSummary,
    /// The time the walker holds after the run: the last page's last record's, or its
    /// timestamp when it holds no record.
    pub end_ts: u64,
    /// Bytes of room the last page's data left.
    last_room: u32,
}

/// Pages a run holds at most.
pub const MAX_RUN_PAGES: u32 = 1 << 12;

/// A page whose data leaves more than this many bytes of room ends its run: a run that a CPU
/// boundary cuts spoils the sieve, and a CPU's last page (the kernel's reader page when the
/// trace was extracted) is seldom full. Where the next CPU's data starts before the time the
/// run reached, the timestamp order ends the run too.
const RUN_END_ROOM: u32 = 256;

/// A [`Run`] as kept, with its offset: 56 bytes instead of 112 (where pages do not join into
/// runs, one is kept for each page of the file left out). The times are kept as their distance
/// from the first page's timestamp, the page count and the room left in 16 bits; a run that
/// does not fit so, or whose last page has time extends, is kept whole beside the others.
#[derive(Clone, Copy, Debug, Default)]
struct Packed {
    off: u64,
    page_ts: u64,
    first: u32,
    last: u32,
    end: u32,
    events: u32,
    padding: u32,
    time_extends: u32,
    time_stamps: u32,
    data_bytes: u32,
    /// Pages in the run, whole or not.
    pages: u16,
    last_room: u16,
    flags: u8,
}

/// `Packed::flags`: the first page's timestamp is compared with the previous one.
const COMPARED: u8 = 1;
/// `Packed::flags`: the first record's time is 0.
const FIRST_ZERO: u8 = 2;
/// `Packed::flags`: the last record's time is 0.
const LAST_ZERO: u8 = 4;
/// `Packed::flags`: the time after the run is 0.
const END_ZERO: u8 = 8;
/// `Packed::flags`: the run is in `SiftedPages::whole`.
const WHOLE: u8 = 16;

impl Packed {
    /// `run` at `off` as kept; `None` when it does not fit.
    fn of(off: u64, run: &Run) -> Option<Packed> {
        let s = &run.summary;
        if s.extends.is_some() {
            return None;
        }
        let mut flags = if s.compared { COMPARED } else { 0 };
        let mut delta = |t: u64, zero: u8| -> Option<u32> {
            if t == 0 {
                flags |= zero;
                return Some(0);
            }
            u32::try_from(t.checked_sub(s.page_ts)?).ok()
        };
        let first = delta(s.first_ts, FIRST_ZERO)?;
        let last = delta(s.last_ts, LAST_ZERO)?;
        let end = delta(run.end_ts, END_ZERO)?;
        Some(Packed {
            off,
            page_ts: s.page_ts,
            first,
            last,
            end,
            events: s.events,
            padding: s.padding,
            time_extends: s.time_extends,
            time_stamps: s.time_stamps,
            data_bytes: s.data_bytes,
            pages: u16::try_from(run.pages).ok()?,
            last_room: u16::try_from(run.last_room).ok()?,
            flags,
        })
    }

    /// The run kept.
    fn run(&self) -> Run {
        let at = |d: u32, zero: u8| {
            if self.flags & zero != 0 {
                0
            } else {
                self.page_ts.saturating_add(u64::from(d))
            }
        };
        Run {
            pages: u32::from(self.pages),
            summary: PageSummary {
                page_ts: self.page_ts,
                first_ts: at(self.first, FIRST_ZERO),
                last_ts: at(self.last, LAST_ZERO),
                events: self.events,
                padding: self.padding,
                time_extends: self.time_extends,
                time_stamps: self.time_stamps,
                data_bytes: self.data_bytes,
                compared: self.flags & COMPARED != 0,
                extends: None,
            },
            end_ts: at(self.end, END_ZERO),
            last_room: u32::from(self.last_room),
        }
    }
}

/// The summarised pages of one unpacked trace.dat.
#[derive(Default)]
pub struct SiftedPages {
    /// The page layout guessed from the file header; `None` until it is read (or when the
    /// header is not usable, in which case nothing is sifted).
    params: Option<RingParams>,
    /// The runs of pages left out with their summaries, by ascending offset (one a page where
    /// pages do not join: kept small).
    pages: Vec<Packed>,
    /// The runs that do not fit a [`Packed`], by ascending offset.
    whole: Vec<(u64, Run)>,
    /// Pages summarised (in all runs).
    npages: usize,
    /// Where CPU data starts, when the file said so before its data (v6), ascending.
    cpu_starts: Vec<u64>,
    /// What the records of each event id in summarised pages held.
    seen: Vec<SeenId>,
    /// Summaries taken by CPU walks.
    taken: AtomicUsize,
    /// Which summaries were taken (made at the first take, once sifting is over).
    taken_flags: OnceLock<Vec<AtomicBool>>,
    /// Set when a walk met a summary it could not take.
    spoiled: AtomicBool,
    /// A positional sieve's non-zero pages left out, merged, by ascending offset.
    left_out: Vec<Range<u64>>,
    /// Set once every range in `left_out` was found in CPU data read from the file.
    covered: AtomicBool,
    /// Where each part of `left_out` that was not found in CPU data starts.
    uncovered: OnceLock<Vec<u64>>,
    /// Pages of `left_out` that metadata or a finding was found to lie in.
    hits: OnceLock<Vec<u64>>,
    /// The event table pages were summarised against, when the sieve read the formats before
    /// the pages came: the check's table must agree with it.
    learned: Option<EventTable>,
    /// Pages summarised against `learned`.
    learned_pages: usize,
    /// The event ids of the records of pages summarised against `learned` (and of some pages
    /// walked again anyway: a set, so no harm).
    learned_ids: IdSet,
}

/// Pages of left-out ranges a positional sieve notes, one per span that meets one.
const MAX_HITS: usize = 64;

impl SiftedPages {
    /// The page layout pages are sifted with, once guessed.
    pub fn params(&self) -> Option<&RingParams> {
        self.params.as_ref()
    }

    /// Sets the page layout guessed from the file header.
    pub fn set_params(&mut self, params: Option<RingParams>) {
        self.params = params;
    }

    /// Records the page at `off` as left out, with its summary and what its records held.
    pub fn push(&mut self, off: u64, summary: PageSummary, seen: &SeenSet) {
        // Only a page left out counts: a stored page is walked for real.
        if self.seen.is_empty() {
            self.seen.resize(IDS, NOT_SEEN);
        }
        for (id, o) in &seen.ids {
            if let Some(m) = self.seen.get_mut(usize::from(*id)) {
                m.merge(o);
            }
        }
        self.npages = self.npages.saturating_add(1);
        if self.learned.is_some() {
            self.learned_pages = self.learned_pages.saturating_add(1);
        }
        let ps = self.params.as_ref().map_or(0, |p| u64::from(p.page_size));
        let room = self.params.as_ref().map_or(0, |p| {
            let hdr = if p.long_size == 4 { 12 } else { 16 };
            p.page_size.saturating_sub(hdr)
        });
        if let Some((start, mut run)) = self.pages.len().checked_sub(1).and_then(|i| self.run_at(i))
        {
            let next = start.saturating_add(u64::from(run.pages).saturating_mul(ps));
            // Where the CPU starts are known, a run ends exactly there; otherwise after a page
            // with room left.
            let boundary = if self.cpu_starts.is_empty() {
                run.last_room > RUN_END_ROOM
            } else {
                self.cpu_starts.binary_search(&off).is_ok()
            };
            let joins = ps > 0
                && next == off
                && run.pages < MAX_RUN_PAGES
                && run.summary.compared
                && summary.compared
                && summary.page_ts >= run.end_ts
                && !boundary;
            if joins {
                let rel = next.saturating_sub(start);
                let r = &mut run.summary;
                if r.events == 0 {
                    r.first_ts = summary.first_ts;
                }
                if summary.events > 0 {
                    r.last_ts = summary.last_ts;
                }
                r.events = r.events.saturating_add(summary.events);
                r.padding = r.padding.saturating_add(summary.padding);
                r.time_extends = r.time_extends.saturating_add(summary.time_extends);
                r.time_stamps = r.time_stamps.saturating_add(summary.time_stamps);
                r.data_bytes = r.data_bytes.saturating_add(summary.data_bytes);
                r.extends = summary.extends.map(|x| Extends {
                    first: (x.first.0.saturating_add(rel), x.first.1),
                    last: (x.last.0.saturating_add(rel), x.last.1),
                });
                run.end_ts = summary.end_ts(run.end_ts);
                run.pages = run.pages.saturating_add(1);
                run.last_room = room.saturating_sub(summary.data_bytes);
                if let Some(p) = self.pages.pop() {
                    if p.flags & WHOLE != 0 {
                        self.whole.pop();
                    }
                }
                self.keep(start, &run);
                return;
            }
        }
        self.keep(
            off,
            &Run {
                pages: 1,
                summary,
                end_ts: summary.end_ts(0),
                last_room: room.saturating_sub(summary.data_bytes),
            },
        );
    }

    /// Keeps `run` at `off` (after every run kept).
    fn keep(&mut self, off: u64, run: &Run) {
        let packed = Packed::of(off, run).unwrap_or_else(|| {
            self.whole.push((off, *run));
            Packed {
                off,
                // At most `MAX_RUN_PAGES`.
                pages: u16::try_from(run.pages).unwrap_or(u16::MAX),
                flags: WHOLE,
                ..Packed::default()
            }
        });
        self.pages.push(packed);
    }

    /// The `i`th run kept, with its offset.
    fn run_at(&self, i: usize) -> Option<(u64, Run)> {
        let p = self.pages.get(i)?;
        if p.flags & WHOLE != 0 {
            let j = self.whole.binary_search_by_key(&p.off, |(o, _)| *o).ok()?;
            return self.whole.get(j).copied();
        }
        Some((p.off, p.run()))
    }

    /// Notes where CPU data starts (a run never goes past one), `max` in all at most.
    pub fn add_cpu_starts(&mut self, starts: Vec<u64>, max: usize) {
        let room = max.saturating_sub(self.cpu_starts.len());
        if starts.is_empty() || room == 0 {
            return;
        }
        self.cpu_starts.extend(starts.into_iter().take(room));
        self.cpu_starts.sort_unstable();
        self.cpu_starts.dedup();
    }

    /// Runs kept.
    pub fn runs(&self) -> usize {
        self.pages.len()
    }

    /// Sets the event table pages are summarised against from now on.
    pub fn set_learned(&mut self, table: EventTable) {
        self.learned = Some(table);
    }

    /// The event table pages are summarised against, once learned.
    pub fn learned(&self) -> Option<&EventTable> {
        self.learned.as_ref()
    }

    /// Pages summarised against the event formats read before them.
    pub fn summarized_against_formats(&self) -> usize {
        self.learned_pages
    }

    /// Adds the ids of pages summarised against the learned table.
    pub fn add_learned_ids(&mut self, ids: &IdSet) {
        self.learned_ids.extend(ids);
    }

    /// Adds to `ids` the event ids of the records in summarised pages.
    pub fn add_ids(&self, ids: &mut crate::formats::ftrace_ring::IdSet) {
        ids.extend(&self.learned_ids);
        for (id, m) in self.seen.iter().enumerate() {
            if let (true, Ok(id)) = (m.min != u32::MAX, u16::try_from(id)) {
                ids.insert(id);
            }
        }
    }

    /// Pages left out with a summary.
    pub fn summarized(&self) -> usize {
        self.npages
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

    /// Records `left` (ascending, after the ranges recorded so far) as left out.
    pub fn record_left_out(&mut self, left: Vec<Range<u64>>) {
        for r in left {
            match self.left_out.last_mut() {
                Some(last) if last.end == r.start => last.end = r.end,
                _ => self.left_out.push(r),
            }
        }
    }

    /// Non-zero bytes a positional sieve left out.
    pub fn left_out_bytes(&self) -> u64 {
        self.left_out
            .iter()
            .map(|r| r.end.saturating_sub(r.start))
            .sum()
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

    /// True when the summaries do not stand for the pages: a page left out overlaps bytes the
    /// metadata was decoded from, a walk could not take one, or the event formats disagree.
    pub fn spoiled(&self) -> bool {
        self.spoiled.load(Ordering::Relaxed)
    }

    /// The run of summarised pages that starts at `off`, walked with `params`; `None` when
    /// the page there was stored or lies inside a run. A summary made for another layout
    /// spoils the sieve.
    pub fn take(&self, off: u64, params: &RingParams) -> Option<Run> {
        let i = self.pages.binary_search_by_key(&off, |p| p.off).ok()?;
        let (_, s) = self.run_at(i)?;
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

    /// Offset of the first run of summarised pages at or after `off`.
    pub fn next_from(&self, off: u64) -> Option<u64> {
        let i = self.pages.partition_point(|p| p.off < off);
        self.pages.get(i).map(|p| p.off)
    }

    /// Spoils the sieve when a summarised page overlaps one of `spans`: bytes the metadata was
    /// decoded from, or that a finding points at, were read as zeros there.
    pub fn check_spans(&self, spans: impl IntoIterator<Item = Range<u64>>) {
        let Some(ps) = self.params.as_ref().map(|p| u64::from(p.page_size)) else {
            return;
        };
        let mut hits = Vec::new();
        for r in spans {
            // The first run ending after the span starts.
            let end = |p: &Packed| p.off.saturating_add(u64::from(p.pages).saturating_mul(ps));
            let i = self.pages.partition_point(|p| end(p) <= r.start);
            let hit = self.pages.get(i).is_some_and(|p| {
                p.off < r.end || (r.start == r.end && p.off <= r.start && r.start < end(p))
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

    /// Checks the ids seen in summarised pages against the event formats: an id without a
    /// format, or a payload shorter or longer than its format, would have given a finding.
    pub fn check_ids(&self, table: &EventTable) {
        // Pages summarised against the learned table passed it: they pass the check's table
        // if it gives their events alike.
        if self.learned.as_ref().is_some_and(|l| !l.agrees_with(table)) {
            self.spoiled.store(true, Ordering::Relaxed);
            return;
        }
        if table.is_empty() {
            return;
        }
        for (id, m) in self.seen.iter().enumerate() {
            if m.min == u32::MAX {
                continue;
            }
            let fits = |tail: Tail| match tail {
                Tail::Open => true,
                Tail::Fixed(max) => {
                    m.max.saturating_sub(max) < crate::formats::ftrace_ring::TAIL_EXCESS
                }
                Tail::Text(12) => m.text[0] == 0,
                Tail::Text(16) => m.text[1] == 0,
                Tail::Text(_) => false,
                // Every location read from the records' words: what is past the furthest is
                // past the event's own data too (a record the check might report spoils).
                Tail::Loc { fixed, .. } => {
                    m.loc < crate::formats::ftrace_ring::TAIL_EXCESS
                        || m.max.saturating_sub(fixed) < crate::formats::ftrace_ring::TAIL_EXCESS
                }
            };
            let ok = u32::try_from(id)
                .ok()
                .and_then(|id| table.get(id))
                .is_some_and(|info| m.min >= info.min_payload && fits(info.tail));
            if !ok {
                self.spoiled.store(true, Ordering::Relaxed);
                return;
            }
        }
    }

    /// Marks the pages as not seen, so the input is checked again without it.
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

#[cfg(test)]
mod packed_tests {
    use super::*;

    /// Pages summarised against formats read before them stand only when the check's table
    /// gives those events alike: a table that differs (or lacks one) spoils the sieve; one
    /// with more events does not.
    #[test]
    fn the_learned_table_must_agree_with_the_checks() {
        let mut learned = EventTable::new();
        learned.insert_with_tail(300, "sched:sched_switch", 64, Tail::Fixed(64));
        learned.insert(301, "sched:sched_wakeup", 24);
        let mut more = learned.clone();
        more.insert(302, "irq:irq_handler_entry", 16);
        let mut other = learned.clone();
        other.insert_with_tail(300, "sched:sched_switch", 56, Tail::Fixed(56));
        let mut fewer = EventTable::new();
        fewer.insert(301, "sched:sched_wakeup", 24);
        for (table, spoils) in [
            (&learned, false),
            (&more, false),
            (&other, true),
            (&fewer, true),
        ] {
            let mut pages = SiftedPages::default();
            pages.set_learned(learned.clone());
            pages.check_ids(table);
            assert_eq!(pages.spoiled(), spoils, "{table:?}");
        }
        assert!(learned.agrees_with(&more) && !more.agrees_with(&learned));
    }

    /// A run comes back as it was: kept small, or whole where it does not fit.
    #[test]
    fn runs_come_back_as_kept() {
        let summary = PageSummary {
            page_ts: 1_000_000,
            first_ts: 1_000_010,
            last_ts: 1_000_900,
            events: 100,
            padding: 1,
            time_extends: 0,
            time_stamps: 0,
            data_bytes: 4000,
            compared: true,
            extends: None,
        };
        let run = Run {
            pages: 3,
            summary,
            end_ts: 1_000_900,
            last_room: 80,
        };
        let with = |f: &dyn Fn(&mut Run)| {
            let mut r = run;
            f(&mut r);
            r
        };
        let small = [
            run,
            with(&|r| {
                r.summary.events = 0;
                r.summary.first_ts = 0;
                r.summary.last_ts = 0;
                r.end_ts = 0;
                r.summary.compared = false;
            }),
        ];
        let whole = [
            with(&|r| r.summary.first_ts = 999_999),
            with(&|r| r.summary.last_ts = 1_000_000 + (1 << 33)),
            with(&|r| r.end_ts = 1_000_000 + (1 << 32)),
            with(&|r| r.last_room = 70_000),
            with(&|r| {
                r.summary.extends = Some(Extends {
                    first: (16, 5),
                    last: (400, 9),
                })
            }),
        ];
        for r in small {
            assert_eq!(Packed::of(8192, &r).map(|p| p.run()), Some(r));
        }
        for r in whole {
            assert!(Packed::of(8192, &r).is_none(), "{r:?}");
        }
        let mut sp = SiftedPages::default();
        for (i, r) in small.iter().chain(whole.iter()).enumerate() {
            sp.keep(1 << (20 + i), r);
        }
        assert_eq!(sp.whole.len(), whole.len());
        for (i, r) in small.iter().chain(whole.iter()).enumerate() {
            assert_eq!(sp.run_at(i), Some((1 << (20 + i), *r)));
        }
    }
}

#[cfg(test)]
mod loc_tests {
    use super::*;
    use proptest::prelude::*;

    /// Every word read forward, every candidate end taken: the excess without stopping early.
    fn all_words(payload: &[u8], len: u32, e: Endian) -> u32 {
        let mut end = 0u32;
        for at in (8u32..len.min(64)).step_by(4) {
            let Some(w) = crate::reader::u32_at(payload, at as usize, e) else {
                break;
            };
            let data = (w & 0xffff).saturating_add(w >> 16);
            for cand in [data, at.saturating_add(4).saturating_add(data)] {
                if cand <= len {
                    end = end.max(cand);
                }
            }
        }
        len.saturating_sub(end.checked_next_multiple_of(4).unwrap_or(u32::MAX))
    }

    proptest! {
        /// Stopping once a word leaves less than `need` tells the same as reading them all:
        /// whether the excess reaches `need`, and its value when it does.
        #[test]
        fn early_stop_tells_the_same(
            payload in proptest::collection::vec(
                prop_oneof![Just(0u8), Just(4u8), Just(0x20u8), any::<u8>()],
                8..96,
            ),
            need in 1u32..32,
        ) {
            let len = u32::try_from(payload.len()).unwrap_or(u32::MAX);
            let full = all_words(&payload, len, Endian::Little);
            let fast = loc_excess(&payload, len, Endian::Little, need);
            prop_assert_eq!(fast >= need, full >= need);
            if full >= need {
                prop_assert_eq!(fast, full);
            }
        }
    }
}
