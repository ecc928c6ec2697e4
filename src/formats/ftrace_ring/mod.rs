//! The ftrace ring-buffer page walker, shared by the trace-cmd `trace.dat` validator and the
//! uftrace validator (`kernel-cpuN.dat`).
//!
//! Per-CPU ftrace data is a sequence of fixed-size sub-buffers ("pages") copied from
//! `trace_pipe_raw`. Each page is
//!
//! ```text
//! u64 timestamp | commit word (kernel long: 4 or 8 bytes) | data[commit & 0x7ffffff] | zero fill
//! ```
//!
//! with the flags `RB_MISSED_EVENTS` (bit 31) and `RB_MISSED_STORED` (bit 30) in the commit word
//! (on 64-bit kernels the upper half of the word is all ones when bit 31 is set, because the
//! kernel adds an `int` constant to a `long`), and, when `RB_MISSED_STORED` is set, a kernel-long
//! count of lost events right after the data. The data is a list of events, each starting with a
//! `u32` header `type_len:5 | time_delta:27` (see [`Walker`]).
//!
//! Usage: the caller builds an [`EventTable`] from the event formats, makes a [`Walker`] per
//! (buffer, CPU) with [`RingParams`], feeds it pages one at a time with [`Walker::page`] (pages
//! may come from decompressed chunks; [`Walker::set_context`] adds a note to findings saying
//! where), and calls [`Walker::finish`] for the [`CpuStats`] and the lost-events summary.
//! [`walk_cpu`] does all of this for a contiguous uncompressed region.
//!
//! The walker keeps only a few integers of state between pages and never allocates per event;
//! strings are built only when a finding is raised.
#![deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::panic
)]
pub mod rules;
#[cfg(any(test, feature = "testkit"))]
pub mod writer;

use crate::finding::{Capped, Sink};
use crate::reader::{u16_at, u32_at, u64_at, Endian, Reader};
use crate::rule::Rule;
use std::ops::Range;

/// `type_len` of a padding (or discarded) event.
pub const TYPE_PADDING: u32 = 29;
/// `type_len` of a time extend (delta high bits in `array[0]`).
pub const TYPE_TIME_EXTEND: u32 = 30;
/// `type_len` of an absolute time stamp.
pub const TYPE_TIME_STAMP: u32 = 31;
/// Largest `type_len` of a data event whose length is in the header (`type_len * 4`).
pub const TYPE_DATA_MAX: u32 = 28;
/// Commit-word flag: events were lost before this page.
pub const RB_MISSED_EVENTS: u64 = 1 << 31;
/// Commit-word flag: the number of lost events is stored after the data.
pub const RB_MISSED_STORED: u64 = 1 << 30;
/// Mask of the data size in the commit word.
pub const COMMIT_SIZE_MASK: u64 = (1 << 27) - 1;
/// Bits of a `TIME_STAMP` event's value taken from the running timestamp (libtraceevent `TS_MSB`).
pub const TS_MSB: u64 = 0xf8 << 56;
/// Width of the `time_delta` field.
pub const TS_SHIFT: u32 = 27;

/// What the walker knows about one event id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventInfo {
    /// `system:name` or `name`, for messages.
    pub name: String,
    /// Smallest payload length the format allows: the end (`offset + size`) of its last static
    /// field, common fields included.
    pub min_payload: u32,
    /// What the payload may hold past the static fields.
    pub tail: Tail,
}

/// What a record's payload may hold past its format's static fields: how long a record of the
/// event can be as the kernel writes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tail {
    /// Data of a length the format does not give (`__data_loc` fields, trailing arrays).
    #[default]
    Open,
    /// Nothing but the entry's alignment: the kernel reserves `sizeof` the entry, at most
    /// this many bytes (the static fields' end rounded up to 8).
    Fixed(u32),
    /// NUL-terminated text from this offset (ftrace `print`): the kernel reserves the text, a
    /// newline and the NUL, at least `FAULTED_SIZE` (10) bytes of text, rounded up to 4.
    Text(u32),
    /// A fixed entry (as `Fixed`) followed by the data of its `__data_loc` fields (bit `k` of
    /// `abs`: a field at offset `4k`, its word `len << 16 | offset`) and `__rel_loc` fields
    /// (bit `k` of `rel`: the offset counts from the field's end): the kernel reserves the
    /// entry and that data, rounded up to 4.
    Loc {
        /// The entry's size.
        fixed: u32,
        /// Word positions of the `__data_loc` fields.
        abs: u64,
        /// Word positions of the `__rel_loc` fields.
        rel: u64,
    },
}

/// Bytes past a [`Tail::Fixed`] size from which a record is reported: a padding or time record
/// (8 bytes) could lie there. From [`SWALLOWED_RECORD`] bytes a whole data record could.
pub const TAIL_EXCESS: u32 = 8;

/// [`EventTable`]'s hot tail bound of an event without one (`Tail::Open`).
const HOT_OPEN: u32 = u32::MAX;

/// [`EventTable`]'s hot tail bound of an event whose tail needs its payload read.
const HOT_SLOW: u32 = u32::MAX - 1;

/// Whether a payload of `len` bytes leaves no excess past the hot tail bound `max` (an event
/// without a tail, or a fixed one the payload ends within): `false` when the tail must be read.
#[inline(always)]
fn within_hot_tail(max: u32, len: usize) -> bool {
    max == HOT_OPEN
        || (max != HOT_SLOW
            && u32::try_from(len).unwrap_or(u32::MAX).saturating_sub(max) < TAIL_EXCESS)
}

/// Bytes of the smallest data record (header and common fields): a record longer than its
/// event by this much may have swallowed one.
pub const SWALLOWED_RECORD: u32 = 12;

/// Bytes past a [`Tail::Text`] record's NUL the kernel may leave: the newline, the rest of its
/// 10-byte minimum and alignment.
pub const TEXT_SLACK: u32 = 16;

/// Event id → [`EventInfo`], built by the caller from the event formats.
///
/// Record ids are the `u16` `common_type` at the start of each payload, so only ids below 65536
/// can ever match; the table is a vector indexed by id. An **empty** table disables the
/// event-id and payload-length checks (the caller has no formats to check against).
#[derive(Clone, Debug, Default)]
pub struct EventTable {
    /// Per id, `min_payload` (`u32::MAX` for no event) and the tail's bound as the hot path
    /// needs it: the `max` of `Tail::Fixed`, [`HOT_OPEN`] or [`HOT_SLOW`] (look `tails` up).
    /// One load per record.
    min: Vec<(u32, u32)>,
    /// `tail` per id.
    tails: Vec<Tail>,
    infos: Vec<Option<EventInfo>>,
    len: usize,
    /// Events whose format libtraceevent keeps by name and id though their fields do not
    /// parse (id, name): not in the table, their records are told apart in the finding.
    unparsed: Vec<(u16, String)>,
}

impl EventTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether `other` gives every event of this table as this table does (the same
    /// minimum, tail and name; unparsed formats alike), so that a record this table passes
    /// passes `other` too. `other` may define more events.
    pub fn agrees_with(&self, other: &EventTable) -> bool {
        let same = |i: usize| {
            self.min.get(i) == other.min.get(i)
                && self.tails.get(i) == other.tails.get(i)
                && self.infos.get(i) == other.infos.get(i)
        };
        self.unparsed.iter().all(|u| other.unparsed.contains(u))
            && self
                .infos
                .iter()
                .enumerate()
                .all(|(i, info)| info.is_none() || same(i))
    }

    /// Adds (or replaces) event `id`. Returns `false` (and stores nothing) when `id` does not
    /// fit the 16-bit `common_type` field, since no record can refer to it.
    pub fn insert(&mut self, id: u32, name: impl Into<String>, min_payload: u32) -> bool {
        self.insert_with_tail(id, name, min_payload, Tail::Open)
    }

    /// [`EventTable::insert`] with what the payload may hold past its static fields.
    pub fn insert_with_tail(
        &mut self,
        id: u32,
        name: impl Into<String>,
        min_payload: u32,
        tail: Tail,
    ) -> bool {
        let Ok(id16) = u16::try_from(id) else {
            return false;
        };
        let i = usize::from(id16);
        if self.min.len() <= i {
            let n = i.saturating_add(1);
            self.min.resize(n, (u32::MAX, HOT_OPEN));
            self.tails.resize(n, Tail::Open);
            self.infos.resize(n, None);
        }
        if let (Some(m), Some(t), Some(slot)) = (
            self.min.get_mut(i),
            self.tails.get_mut(i),
            self.infos.get_mut(i),
        ) {
            if slot.is_none() {
                self.len = self.len.saturating_add(1);
            }
            // u32::MAX is the "absent" marker; a real format is never that long.
            let hot = match tail {
                Tail::Open => HOT_OPEN,
                Tail::Fixed(max) if max < HOT_SLOW => max,
                _ => HOT_SLOW,
            };
            *m = (min_payload.min(u32::MAX - 1), hot);
            *t = tail;
            *slot = Some(EventInfo {
                name: name.into(),
                min_payload,
                tail,
            });
        }
        true
    }

    /// Adds the event described by a tracefs `format` text (`name: X`, `ID: N`, then
    /// `field:...;\toffset:O;\tsize:S;...` lines); `min_payload` is the end of the last field.
    /// Returns the id, or `None` when the text has no name or no numeric ID (or the id does not
    /// fit 16 bits). Lines that do not parse are ignored: this is a convenience for callers
    /// that do not parse formats themselves, not a format validator.
    pub fn insert_format_text(&mut self, text: &[u8]) -> Option<u32> {
        let text = String::from_utf8_lossy(text);
        let mut name = None;
        let mut id = None;
        let mut end = 0u32;
        for line in text.lines() {
            let line = line.trim();
            if let Some(n) = line.strip_prefix("name:") {
                name.get_or_insert_with(|| n.trim().to_string());
            } else if let Some(n) = line.strip_prefix("ID:") {
                id = id.or_else(|| n.trim().parse::<u32>().ok());
            } else if line.starts_with("field:") {
                let num = |key: &str| -> Option<u32> {
                    let (_, rest) = line.split_once(key)?;
                    rest.split(';').next()?.trim().parse().ok()
                };
                if let (Some(o), Some(sz)) = (num("offset:"), num("size:")) {
                    end = end.max(o.saturating_add(sz));
                }
            }
        }
        let (name, id) = (name?, id?);
        self.insert(id, name, end).then_some(id)
    }

    /// Notes event `id` (`name`), whose format's name and id read but whose fields do not
    /// parse: its records stay unknown to the walk, and their finding says what readers do.
    pub fn insert_unparsed(&mut self, id: u32, name: &str) {
        if let Ok(id) = u16::try_from(id) {
            if self.unparsed.len() < 65_536 && !self.unparsed.iter().any(|(i, _)| *i == id) {
                self.unparsed.push((id, name.to_string()));
            }
        }
    }

    /// The name of `id` when its format was read but did not parse.
    pub fn unparsed_name(&self, id: u16) -> Option<&str> {
        self.unparsed
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, n)| n.as_str())
    }

    /// The event with `id`, if any.
    pub fn get(&self, id: u32) -> Option<&EventInfo> {
        let i = usize::try_from(id).ok()?;
        self.infos.get(i)?.as_ref()
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the table has no event (id checks are then skipped).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `tail` of `id` (`Open` when unknown).
    #[inline]
    fn tail(&self, id: u16) -> Tail {
        self.tails.get(usize::from(id)).copied().unwrap_or_default()
    }

    /// Hot-path lookup: `min_payload` of `id`, `None` when unknown.
    #[inline]
    fn min_payload(&self, id: u16) -> Option<u32> {
        self.hot(id).map(|(m, _)| m)
    }

    /// Hot-path lookup: `min_payload` of `id` and its tail bound (see `min`), `None` when
    /// unknown.
    #[inline]
    fn hot(&self, id: u16) -> Option<(u32, u32)> {
        match self.min.get(usize::from(id)) {
            Some(&(m, t)) if m != u32::MAX => Some((m, t)),
            _ => None,
        }
    }
}

/// Layout parameters of one CPU's pages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RingParams {
    /// Page (sub-buffer) size in bytes, header included.
    pub page_size: u32,
    /// Size of the commit word (the kernel's `long`): 4 or 8. Anything else is treated as 8.
    pub long_size: u8,
    /// Byte order of the data.
    pub endian: Endian,
    /// CPU number, for messages.
    pub cpu: u32,
    /// Buffer (instance) name for messages; empty for the top-level buffer.
    pub buffer: String,
    /// Offset of the first event in a page: `8 + long_size` (what kbuffer uses); set it from
    /// header_page's `data` field offset if the caller trusts that more.
    pub data_offset: u32,
}

impl RingParams {
    /// Parameters with `data_offset = 8 + long_size`.
    pub fn new(
        page_size: u32,
        long_size: u8,
        endian: Endian,
        cpu: u32,
        buffer: impl Into<String>,
    ) -> Self {
        let long_size = if long_size == 4 { 4 } else { 8 };
        RingParams {
            page_size,
            long_size,
            endian,
            cpu,
            buffer: buffer.into(),
            data_offset: 8u32.saturating_add(u32::from(long_size)),
        }
    }
}

/// What the walk of one CPU found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpuStats {
    /// Pages walked.
    pub pages: u64,
    /// Data records (type_len 0..=28) seen.
    pub events: u64,
    /// Padding / discarded events seen inside the data.
    pub padding: u64,
    /// Time-extend events.
    pub time_extends: u64,
    /// Absolute time-stamp events.
    pub time_stamps: u64,
    /// Data bytes (sum of the page data sizes).
    pub data_bytes: u64,
    /// Timestamp of the first data record.
    pub first_ts: Option<u64>,
    /// Timestamp of the last record.
    pub last_ts: Option<u64>,
    /// Sum of the lost-event counts stored on pages (`RB_MISSED_STORED`).
    pub lost_events: u64,
    /// Pages flagged `RB_MISSED_EVENTS`.
    pub missed_pages: u64,
    /// Pages flagged `RB_MISSED_EVENTS` without a stored count (lost count unknown).
    pub missed_unknown_pages: u64,
    /// Event ids of the data records walked.
    pub ids: IdSet,
}

/// A set of event ids (`u16`): a bitmap, allocated (8 KiB) at the first id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IdSet(Vec<u64>);

impl IdSet {
    /// Adds `id`.
    #[inline]
    pub fn insert(&mut self, id: u16) {
        if self.0.is_empty() {
            self.0.resize(1 << 10, 0);
        }
        if let Some(w) = self.0.get_mut(usize::from(id >> 6)) {
            *w |= 1u64 << (id & 63);
        }
    }

    /// Whether `id` is in the set.
    pub fn contains(&self, id: u32) -> bool {
        let Ok(id) = u16::try_from(id) else {
            return false;
        };
        self.0
            .get(usize::from(id >> 6))
            .is_some_and(|w| w & (1u64 << (id & 63)) != 0)
    }

    /// Adds every id of `other`.
    pub fn extend(&mut self, other: &IdSet) {
        if other.0.is_empty() {
            return;
        }
        if self.0.is_empty() {
            self.0.resize(1 << 10, 0);
        }
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= *b;
        }
    }
}

/// One data record, as passed to the callback of [`Walker::page_with`].
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    /// Absolute offset of the event header.
    pub offset: u64,
    /// Absolute offset of the payload.
    pub payload_offset: u64,
    /// Timestamp after applying the event's delta.
    pub ts: u64,
    /// `common_type` (the first `u16` of the payload); `None` when the payload is shorter.
    pub id: Option<u16>,
    /// The payload (`type_len * 4` bytes, or `array[0] - 4` for type_len 0).
    pub payload: &'a [u8],
}

/// Walks the pages of one CPU, one at a time. See the module docs.
///
/// Event encoding (`u32` header, bitfield order follows the byte order: little-endian has
/// `type_len` in the low 5 bits and `time_delta` in the high 27, big-endian the reverse):
///
/// | type_len | event | length | timestamp |
/// |---|---|---|---|
/// | 1..=28 | data, payload `type_len * 4` bytes at +4 | `4 + 4 * type_len` | `ts += delta` |
/// | 0 | data, `array[0]` = payload length + 4, payload at +8 | `4 + round4(array[0])` | `ts += delta` |
/// | 29 | padding / discarded event (delta 0: null padding) | `4 + array[0]` | `ts += delta` |
/// | 30 | time extend | 8 | `ts += array[0] << 27 + delta` |
/// | 31 | absolute time stamp | 8 | `ts = (array[0] << 27 \| delta) \| (ts & TS_MSB)` |
#[derive(Debug)]
pub struct Walker<'t> {
    params: RingParams,
    table: &'t EventTable,
    context: Option<String>,
    stats: CpuStats,
    /// Last page or record timestamp (0 before the first), for the monotonicity check.
    last_ts: u64,
    /// Span of the commit word of the first page with missed events.
    first_missed: Option<Range<u64>>,
    /// A record with the all-ones timestamp was reported (once per CPU).
    sentinel: bool,
    /// Offset of the last absolute time stamp of the page walked last, and the time it set.
    stamp: Option<(u64, u64)>,
    /// The first and the last time extend of the page walked last: offset and the time after.
    extends: Option<Extends>,
    /// Per-event findings of the capped rules (see [`PER_CPU_REPORT_CAP`]).
    capped: [Capped; CAP_SLOTS],
}

/// Rules whose per-event findings are capped per CPU.
const CAP_SLOTS: usize = 5;
const CAP_BACKWARDS: usize = 0;
const CAP_UNKNOWN_ID: usize = 1;
const CAP_SHORT: usize = 2;
const CAP_UNALIGNED: usize = 3;
const CAP_LONG: usize = 4;
const CAPPED: [Capped; CAP_SLOTS] = [
    Capped::new(&rules::RING_TIMESTAMP_BACKWARDS, PER_CPU_REPORT_CAP),
    Capped::new(&rules::RING_UNKNOWN_EVENT_ID, PER_CPU_REPORT_CAP),
    Capped::new(&rules::RING_PAYLOAD_TOO_SHORT, PER_CPU_REPORT_CAP),
    Capped::new(&rules::RING_DATA_LENGTH_UNALIGNED, PER_CPU_REPORT_CAP),
    Capped::new(&rules::RING_RECORD_LONGER_THAN_EVENT, PER_CPU_REPORT_CAP),
];

/// How many bytes `payload` holds past what `tail` allows (at least [`TAIL_EXCESS`]), if any.
#[inline]
pub fn tail_excess(tail: Tail, payload: &[u8], e: Endian) -> Option<u32> {
    let len = u32::try_from(payload.len()).unwrap_or(u32::MAX);
    let excess = match tail {
        Tail::Open => 0,
        Tail::Fixed(max) => len.saturating_sub(max),
        Tail::Loc { fixed, abs, rel } => {
            let mut end = fixed;
            for (mask, from_end) in [(abs, false), (rel, true)] {
                let mut m = mask;
                while m != 0 {
                    let k = m.trailing_zeros();
                    m &= m.wrapping_sub(1);
                    let at = k.saturating_mul(4);
                    // A location past the payload is another finding's: nothing to bound.
                    let w = u32_at(payload, usize::try_from(at).ok()?, e)?;
                    let base = if from_end { at.saturating_add(4) } else { 0 };
                    end = end.max(base.saturating_add(w & 0xffff).saturating_add(w >> 16));
                }
            }
            len.saturating_sub(end.checked_next_multiple_of(4).unwrap_or(u32::MAX))
        }
        Tail::Text(off) => {
            let text = payload.get(usize::try_from(off).ok()?..)?;
            // No NUL: readers print up to the record's end, nothing is swallowed.
            let nul = memchr_nul(text)?;
            let end = off
                .saturating_add(u32::try_from(nul).ok()?)
                .saturating_add(1);
            len.saturating_sub(end).saturating_sub(TEXT_SLACK)
        }
    };
    (excess >= TAIL_EXCESS).then_some(excess)
}

/// Position of the first NUL byte of `b`.
fn memchr_nul(b: &[u8]) -> Option<usize> {
    b.iter().position(|&x| x == 0)
}

/// Per-event findings of one rule reported per CPU; further ones are only counted and
/// summarised by [`Walker::finish`].
pub const PER_CPU_REPORT_CAP: u64 = 20;

/// Splits an event header word into `(type_len, time_delta)`.
#[inline(always)]
pub fn split_header(word: u32, e: Endian) -> (u32, u32) {
    match e {
        Endian::Little => (word & 31, word >> 5),
        Endian::Big => (word >> 27, word & ((1 << 27) - 1)),
    }
}

/// `a + b` as an absolute offset (saturating; offsets in a page never get near `u64::MAX`).
#[inline(always)]
fn at(base: u64, rel: usize) -> u64 {
    base.saturating_add(rel as u64)
}

/// Why the event walk of a page stopped early.
enum Stop {
    /// The event at this data offset does not fit before `end`: (event start, bytes needed).
    Overrun(usize, u64),
    /// A finding was already reported.
    Reported,
}

impl<'t> Walker<'t> {
    /// A walker for one CPU.
    pub fn new(params: RingParams, table: &'t EventTable) -> Self {
        Walker {
            params,
            table,
            context: None,
            stats: CpuStats::default(),
            last_ts: 0,
            first_missed: None,
            sentinel: false,
            stamp: None,
            extends: None,
            capped: CAPPED,
        }
    }

    /// The parameters.
    pub fn params(&self) -> &RingParams {
        &self.params
    }

    /// A note added to every finding from now on, such as
    /// `"in the decompressed chunk of the block at file offset 0x1234"`; `None` clears it.
    pub fn set_context(&mut self, context: Option<String>) {
        self.context = context;
    }

    /// Statistics so far.
    pub fn stats(&self) -> &CpuStats {
        &self.stats
    }

    /// `CPU 1` or `CPU 1 of buffer "foo"`.
    fn cpu_name(&self) -> String {
        if self.params.buffer.is_empty() {
            format!("CPU {}", self.params.cpu)
        } else {
            format!(
                "CPU {} of buffer \"{}\"",
                self.params.cpu, self.params.buffer
            )
        }
    }

    #[cold]
    #[inline(never)]
    fn emit(&self, sink: &mut Sink, rule: &'static Rule, span: Range<u64>, msg: String) {
        let mut f = sink.make(rule, span, msg);
        if let Some(c) = &self.context {
            f = f.note(c.clone());
        }
        sink.push(f);
    }

    /// How many whole data events of defined types `bytes` holds from its start, read as the
    /// ring walker would (time extends skipped), up to the first word that is not one.
    #[cold]
    fn events_in(&self, bytes: &[u8]) -> usize {
        let e = self.params.endian;
        let (mut p, mut n) = (0usize, 0usize);
        while let Some(word) = u32_at(bytes, p, e) {
            let (tl, _) = split_header(word, e);
            let (total, id_at) = match tl {
                1..=TYPE_DATA_MAX => ((tl as usize).saturating_mul(4).saturating_add(4), 4),
                0 => match u32_at(bytes, p.saturating_add(4), e) {
                    Some(arr) if arr >= 8 => {
                        let len = usize::try_from(arr).unwrap_or(usize::MAX);
                        ((len.saturating_add(3) & !3usize).saturating_add(4), 8)
                    }
                    _ => break,
                },
                TYPE_TIME_EXTEND => {
                    p = p.saturating_add(8);
                    continue;
                }
                _ => break,
            };
            // A header word of 0 is a length-word record at delta 0 (the first record of a page
            // often is one), told from zero fill by its length word (at least 8).
            if p.saturating_add(total) > bytes.len() {
                break;
            }
            let defined = u16_at(bytes, p.saturating_add(id_at), e)
                .is_some_and(|id| self.table.is_empty() || self.table.min_payload(id).is_some());
            if !defined {
                break;
            }
            n = n.saturating_add(1);
            p = p.saturating_add(total);
        }
        n
    }

    /// Counts a capped per-event finding; true when it should still be reported.
    #[cold]
    fn cap(&mut self, slot: usize, span: &Range<u64>) -> bool {
        self.capped.get_mut(slot).is_some_and(|c| c.hit(span))
    }

    /// Checks one page. `page` covers the page (normally `page_size` bytes) with absolute
    /// offsets; a shorter reader is reported (`TD100`) and walked as far as it goes, a longer
    /// one is only read up to `page_size`.
    pub fn page(&mut self, page: Reader<'_>, sink: &mut Sink) {
        self.page_with(page, sink, |_| {});
    }

    /// Like [`Walker::page`], calling `on_record` for every data record.
    pub fn page_with<F: FnMut(&Record<'_>)>(
        &mut self,
        page: Reader<'_>,
        sink: &mut Sink,
        mut on_record: F,
    ) {
        let base = page.offset();
        let all = page.rest();
        let e = self.params.endian;
        let ls: usize = if self.params.long_size == 4 { 4 } else { 8 };
        let hdr_len = 8usize.saturating_add(ls);
        let page_size = usize::try_from(self.params.page_size).unwrap_or(usize::MAX);
        let data_off = usize::try_from(self.params.data_offset)
            .unwrap_or(usize::MAX)
            .max(hdr_len);
        self.stats.pages = self.stats.pages.saturating_add(1);

        let bytes = all.get(..page_size).unwrap_or(all);
        if bytes.len() < page_size {
            self.emit(
                sink,
                &rules::RING_PAGE_TRUNCATED,
                base..at(base, bytes.len()),
                format!(
                    "the page of {} at 0x{base:x} has only {} bytes; the page size is {}",
                    self.cpu_name(),
                    bytes.len(),
                    page_size
                ),
            );
        }
        let (Some(page_ts), Some(commit)) = (
            u64_at(bytes, 0, e),
            if ls == 4 {
                u32_at(bytes, 8, e).map(u64::from)
            } else {
                u64_at(bytes, 8, e)
            },
        ) else {
            return;
        };
        let commit_span = at(base, 8)..at(base, hdr_len);

        // Commit word.
        let size = commit & COMMIT_SIZE_MASK;
        let missed = commit & RB_MISSED_EVENTS != 0;
        let stored = commit & RB_MISSED_STORED != 0;
        let reserved = commit & (0b111 << 27);
        let high = commit >> 32;
        let high_ok = high == 0 || (high == 0xffff_ffff && missed);
        if stored && !missed && reserved == 0 && high_ok {
            // kbuffer (trace-cmd 2.4's and 2.9.5's own, libtraceevent 1.7–1.8) reads
            // RB_MISSED_STORED only under RB_MISSED_EVENTS: the page is read as without it.
            let mut f = sink
                .make(
                    &rules::RING_COMMIT_FLAGS_INVALID,
                    commit_span.clone(),
                    format!(
                        "commit word 0x{commit:x} of the page of {} at 0x{base:x} is impossible: \
                         RB_MISSED_STORED (bit 30) is set without RB_MISSED_EVENTS (bit 31); kbuffer \
                         reads bit 30 only under bit 31, and trace-cmd 2.4–3.3.4 print the same report \
                         (campaign: 8 of 8 such pages with the size kept or 4 bytes short)",
                        self.cpu_name()
                    ),
                )
                .read_same("trace-cmd report", "2.4–3.3.4");
            if let Some(c) = &self.context {
                f = f.note(c.clone());
            }
            sink.push(f);
        } else if reserved != 0 || (stored && !missed) || !high_ok {
            let why = if reserved != 0 {
                "bits 27-29 are set"
            } else if stored && !missed {
                "RB_MISSED_STORED (bit 30) is set without RB_MISSED_EVENTS (bit 31)"
            } else if missed {
                "the upper 32 bits are neither all zero nor all one"
            } else {
                "the upper 32 bits are set without RB_MISSED_EVENTS"
            };
            self.emit(
                sink,
                &rules::RING_COMMIT_FLAGS_INVALID,
                commit_span.clone(),
                format!(
                    "commit word 0x{commit:x} of the page of {} at 0x{base:x} is impossible: {why}",
                    self.cpu_name()
                ),
            );
        }
        // Room for data in a full page, and what this page actually holds.
        let capacity = page_size.saturating_sub(data_off);
        let avail = bytes.len().saturating_sub(data_off);
        let size_us = usize::try_from(size).unwrap_or(usize::MAX);
        let mut tail_ok = true;
        let walk_len = if size_us > capacity {
            tail_ok = false;
            self.emit(
                sink,
                &rules::RING_COMMIT_TOO_LARGE,
                commit_span.clone(),
                format!(
                    "the page of {} at 0x{base:x} has commit size {size}, but only {capacity} bytes \
                     follow the {data_off}-byte page header (page size {page_size})",
                    self.cpu_name()
                ),
            );
            capacity.min(avail)
        } else {
            size_us.min(avail)
        };
        let mut tail_start = data_off.saturating_add(size_us);

        // Lost events.
        if missed {
            self.stats.missed_pages = self.stats.missed_pages.saturating_add(1);
            if self.first_missed.is_none() {
                self.first_missed = Some(commit_span.clone());
            }
            let mut counted = false;
            if stored && tail_ok {
                let end = size_us.saturating_add(ls);
                if end > capacity {
                    self.emit(
                        sink,
                        &rules::RING_MISSED_COUNT_OUTSIDE_PAGE,
                        commit_span.clone(),
                        format!(
                            "the page of {} at 0x{base:x} says its lost-events count is stored after \
                             its {size} data bytes, but only {} bytes are left there for the {ls}-byte count",
                            self.cpu_name(),
                            capacity.saturating_sub(size_us)
                        ),
                    );
                    tail_ok = false;
                } else {
                    let at_ = data_off.saturating_add(size_us);
                    let n = if ls == 4 {
                        u32_at(bytes, at_, e).map(u64::from)
                    } else {
                        u64_at(bytes, at_, e)
                    };
                    if let Some(n) = n {
                        self.stats.lost_events = self.stats.lost_events.saturating_add(n);
                        counted = true;
                    }
                    tail_start = data_off.saturating_add(end);
                }
            }
            if !counted {
                self.stats.missed_unknown_pages = self.stats.missed_unknown_pages.saturating_add(1);
            }
        }

        // Zero fill after the data.
        if tail_ok {
            if let Some(tail) = bytes.get(tail_start..) {
                // OR-fold vectorises; the position is only looked for when something is set.
                let any = tail.iter().fold(0u8, |a, &b| a | b) != 0;
                let first = if any {
                    tail.iter().position(|&b| b != 0)
                } else {
                    None
                };
                if let Some(first) = first {
                    let last = tail.iter().rposition(|&b| b != 0).unwrap_or(first);
                    let nonzero = tail.iter().filter(|&&b| b != 0).count();
                    let span = at(base, tail_start.saturating_add(first))
                        ..at(base, tail_start.saturating_add(last).saturating_add(1));
                    let msg = format!(
                        "{nonzero} non-zero byte(s) after the data of the page of {} at 0x{base:x} \
                         (data ends at 0x{:x}); the kernel zero-fills the rest of a page",
                        self.cpu_name(),
                        at(base, tail_start)
                    );
                    // Events right after the commit size: the commit cut them off, and every
                    // reader stops there (kbuffer reads `commit` bytes). With a lost-events
                    // count said to be stored there, the events may start where the count is
                    // read: a size cut in a page whose flag bits were set.
                    let cut = self.events_in(tail).max(if missed && stored {
                        bytes
                            .get(data_off.saturating_add(size_us)..)
                            .map_or(0, |b| self.events_in(b))
                    } else {
                        0
                    });
                    let mut f = if cut > 0 {
                        sink.make(
                            &rules::RING_PAGE_TAIL_NOT_ZERO,
                            span,
                            format!(
                                "{msg}; they hold {cut} event(s) of defined types that the commit size cuts off: \
                                 trace-cmd 2.4–3.3.4 never read them"
                            ),
                        )
                        .fails("trace-cmd report", "2.4–3.3.4", "loss")
                    } else {
                        sink.make(
                            &rules::RING_PAGE_TAIL_NOT_ZERO,
                            span,
                            format!("{msg}; they hold no event, and readers never read them"),
                        )
                        .read_same("trace-cmd report", "2.4–3.3.4")
                    };
                    if let Some(c) = &self.context {
                        f = f.note(c.clone());
                    }
                    sink.push(f);
                }
            }
        }

        // Page timestamp against the previous page. An all-zero page header (no timestamp, no
        // data) holds no record to misorder: trace-cmd convert writes the unused part of a
        // larger sub-buffer that way. It is not compared and does not reset the reference.
        if size != 0 || page_ts != 0 {
            self.page_timestamp(sink, base, page_ts);
        }
        self.extends = None;

        let data_base = at(base, data_off);
        let data = bytes
            .get(data_off..data_off.saturating_add(walk_len))
            .unwrap_or(&[]);
        self.stats.data_bytes = self.stats.data_bytes.saturating_add(walk_len as u64);
        let walked = self.walk_events(data, data_base, page_ts, sink, &mut on_record);
        if let Err(Stop::Overrun(p, need)) = walked {
            let have = data.len().saturating_sub(p);
            let span = at(data_base, p)..at(data_base, data.len());
            let msg = format!(
                "the event at 0x{:x} of {} needs {need} bytes but only {have} remain before \
                 the end of the page's data at 0x{:x} (commit size {size})",
                at(data_base, p),
                self.cpu_name(),
                at(data_base, data.len())
            );
            // A commit at most one word short of the page's last record: kbuffer bounds the
            // walk by each record's start, reads that record whole and stops after it.
            let short = need.saturating_sub(have as u64) <= 4;
            let last = if short && tail_ok {
                self.last_record_end(bytes, data_off.saturating_add(p))
            } else {
                None
            };
            if let Some(end) = last {
                let mut f = sink
                    .make(
                        &rules::RING_EVENT_OVERRUNS_COMMIT,
                        span,
                        format!(
                            "{msg}; it is the page's last record, whole in the page up to 0x{:x} \
                             with only zeros after it, and the commit is at most 4 bytes short of it: \
                             kbuffer reads it whole, and trace-cmd 2.4–3.3.4 print the same report \
                             (campaign: 7 of 7 such pages)",
                            at(base, end)
                        ),
                    )
                    .read_same("trace-cmd report", "2.4–3.3.4");
                if let Some(c) = &self.context {
                    f = f.note(c.clone());
                }
                sink.push(f);
            } else {
                self.emit(sink, &rules::RING_EVENT_OVERRUNS_COMMIT, span, msg);
            }
        }
    }

    /// The end (page offset) of the data record starting at page offset `p` when it is whole in
    /// `page`, only zero bytes follow it to the page's end and its event id is one a format
    /// defines: the page's last record. (Bytes a damaged header before them misframes read as a
    /// record of no defined event: trace-cmd prints `[UNKNOWN EVENT]` or crashes.)
    fn last_record_end(&self, page: &[u8], p: usize) -> Option<usize> {
        let e = self.params.endian;
        let (tl, _) = split_header(u32_at(page, p, e)?, e);
        let (total, body) = match tl {
            1..=TYPE_DATA_MAX => ((tl as usize).saturating_mul(4).saturating_add(4), 4),
            0 => {
                let arr = u32_at(page, p.saturating_add(4), e)?;
                if arr < 8 {
                    return None;
                }
                let total = usize::try_from(arr)
                    .ok()?
                    .checked_next_multiple_of(4)?
                    .checked_add(4)?;
                (total, 8)
            }
            _ => return None,
        };
        let id = u16_at(page, p.saturating_add(body), e)?;
        if !self.table.is_empty() && self.table.min_payload(id).is_none() {
            return None;
        }
        let end = p.checked_add(total)?;
        let rest = page.get(end..)?;
        rest.iter().all(|&b| b == 0).then_some(end)
    }

    /// Compares the timestamp of the page at `base` with the previous page or record.
    fn page_timestamp(&mut self, sink: &mut Sink, base: u64, page_ts: u64) {
        let stamp = self.stamp.take();
        let extends = self.extends.take();
        if page_ts < self.last_ts {
            let span = at(base, 0)..at(base, 8);
            if let Some(x) = extends.filter(|x| page_ts < x.last.1) {
                // The kernel writes a time extend for a delta too large for the event header,
                // so the time after it is the next record's, never later than the next page's.
                // A damaged event header read as one (type_len 30) adds its payload's first
                // word << 27 and misframes the records after it.
                let (off, value) = if page_ts < x.first.1 { x.first } else { x.last };
                let which = if x.first.0 == x.last.0 || page_ts < x.first.1 {
                    format!("the time extend at 0x{off:x}")
                } else {
                    format!(
                        "a time extend between 0x{:x} and 0x{off:x} (the last, setting {value})",
                        x.first.0
                    )
                };
                let f = sink
                    .make(
                        &rules::RING_TIMESTAMP_BACKWARDS,
                        span,
                        format!(
                            "the page of {} at 0x{base:x} has timestamp {page_ts}, older than the \
                             time {} that {which} of the page before reached: the kernel writes \
                             a time extend with the time of the record after it, so that header \
                             is damaged (an event read as a time extend) and the records after it \
                             are misframed; trace-cmd 2.4–3.3.4 read other records there than \
                             were written",
                            self.cpu_name(),
                            self.last_ts
                        ),
                    )
                    .fails("trace-cmd report", "2.4–3.3.4", "loss");
                let f = match &self.context {
                    Some(c) => f.note(c.clone()),
                    None => f,
                };
                sink.push(f);
            } else if let Some((off, value)) = stamp.filter(|&(_, v)| page_ts < v) {
                // The kernel writes an absolute time stamp with the time it writes the next
                // record at, never a time later than the next page's.
                let f = sink
                    .make(
                        &rules::RING_TIMESTAMP_BACKWARDS,
                        span,
                        format!(
                            "the page of {} at 0x{base:x} has timestamp {page_ts}, older than the \
                             time {value} the absolute time stamp at 0x{off:x} of the page before \
                             set: no time the kernel wrote, so that record's header is damaged and \
                             the records after it are misframed; trace-cmd 2.4–3.3.4 read other \
                             records there than were written",
                            self.cpu_name()
                        ),
                    )
                    .fails("trace-cmd report", "2.4–3.3.4", "loss");
                let f = match &self.context {
                    Some(c) => f.note(c.clone()),
                    None => f,
                };
                sink.push(f);
            } else if self.cap(CAP_BACKWARDS, &span) {
                self.emit(
                    sink,
                    &rules::RING_TIMESTAMP_BACKWARDS,
                    span,
                    format!(
                        "the page of {} at 0x{base:x} has timestamp {page_ts}, older than the \
                         previous page's or record's {}",
                        self.cpu_name(),
                        self.last_ts
                    ),
                );
            }
        }
        // Later records are compared with this page (no cascade after a jump back).
        self.last_ts = page_ts;
    }

    /// Takes the page at `base` as walked from its [`PageSummary`]: exactly what
    /// [`Walker::page`] does with a clean page's bytes.
    pub fn page_summary(&mut self, s: &PageSummary, base: u64, sink: &mut Sink) {
        self.pages_summary(s, 1, s.end_ts(self.last_ts), base, sink);
    }

    /// Takes `pages` consecutive clean pages from `base` as walked from their summary `s`
    /// (the first page's timestamp, the counts summed, the last page's time extends), each
    /// page's timestamp no older than the time the pages before it reached: exactly what
    /// [`Walker::page`] does with their bytes, in turn. `end_ts` is the time the last page
    /// leaves the walker with.
    pub fn pages_summary(
        &mut self,
        s: &PageSummary,
        pages: u64,
        end_ts: u64,
        base: u64,
        sink: &mut Sink,
    ) {
        let st = &mut self.stats;
        st.pages = st.pages.saturating_add(pages);
        st.data_bytes = st.data_bytes.saturating_add(u64::from(s.data_bytes));
        st.events = st.events.saturating_add(u64::from(s.events));
        st.padding = st.padding.saturating_add(u64::from(s.padding));
        st.time_extends = st.time_extends.saturating_add(u64::from(s.time_extends));
        st.time_stamps = st.time_stamps.saturating_add(u64::from(s.time_stamps));
        if s.compared {
            self.page_timestamp(sink, base, s.page_ts);
        }
        self.extends = s.extends.map(|x| Extends {
            first: (base.saturating_add(x.first.0), x.first.1),
            last: (base.saturating_add(x.last.0), x.last.1),
        });
        if s.events > 0 {
            if self.stats.first_ts.is_none() {
                self.stats.first_ts = Some(s.first_ts);
            }
            self.stats.last_ts = Some(s.last_ts);
        }
        self.last_ts = end_ts;
    }

    /// Walks the events of one page's data. `Ok` when the walk ends exactly at the end.
    #[inline(always)]
    fn walk_events<F: FnMut(&Record<'_>)>(
        &mut self,
        data: &[u8],
        data_base: u64,
        page_ts: u64,
        sink: &mut Sink,
        on_record: &mut F,
    ) -> Result<(), Stop> {
        let e = self.params.endian;
        let check_ids = !self.table.is_empty();
        let mut ts = page_ts;
        let mut p: usize = 0;
        while p < data.len() {
            let Some(word) = u32_at(data, p, e) else {
                return Err(Stop::Overrun(p, 4));
            };
            let (tl, delta) = split_header(word, e);
            let (total, payload_at, payload_len): (usize, usize, usize) = match tl {
                1..=TYPE_DATA_MAX => {
                    let n = (tl as usize).saturating_mul(4);
                    (n.saturating_add(4), 4, n)
                }
                0 => {
                    let Some(arr) = u32_at(data, p.saturating_add(4), e) else {
                        return Err(Stop::Overrun(p, 8));
                    };
                    if arr < 4 {
                        self.emit(
                            sink,
                            &rules::RING_DATA_LENGTH_INVALID,
                            at(data_base, p.saturating_add(4))..at(data_base, p.saturating_add(8)),
                            format!(
                                "the data event at 0x{:x} of {} has array[0] = {arr}; it counts its \
                                 own 4 bytes, so it must be at least 4",
                                at(data_base, p),
                                self.cpu_name()
                            ),
                        );
                        return Err(Stop::Reported);
                    }
                    if arr % 4 != 0 {
                        let span =
                            at(data_base, p.saturating_add(4))..at(data_base, p.saturating_add(8));
                        if self.cap(CAP_UNALIGNED, &span) {
                            self.emit(
                                sink,
                                &rules::RING_DATA_LENGTH_UNALIGNED,
                                span,
                                format!(
                                    "the data event at 0x{:x} of {} has array[0] = {arr}, not a \
                                     multiple of 4",
                                    at(data_base, p),
                                    self.cpu_name()
                                ),
                            );
                        }
                    }
                    let arr = arr as usize;
                    let total = arr.next_multiple_of(4).saturating_add(4);
                    (total, 8, arr.saturating_sub(4))
                }
                TYPE_PADDING => {
                    if delta == 0 {
                        self.emit(
                            sink,
                            &rules::RING_NULL_PADDING_IN_DATA,
                            at(data_base, p)..at(data_base, p.saturating_add(4)),
                            format!(
                                "null padding (type_len 29, delta 0) at 0x{:x} of {} inside the \
                                 page's data, which ends at 0x{:x}; the rest of the page was not walked",
                                at(data_base, p),
                                self.cpu_name(),
                                at(data_base, data.len())
                            ),
                        );
                        return Err(Stop::Reported);
                    }
                    let Some(arr) = u32_at(data, p.saturating_add(4), e) else {
                        return Err(Stop::Overrun(p, 8));
                    };
                    if arr < 4 || arr % 4 != 0 {
                        self.emit(
                            sink,
                            &rules::RING_PADDING_LENGTH_INVALID,
                            at(data_base, p.saturating_add(4))..at(data_base, p.saturating_add(8)),
                            format!(
                                "the padding event at 0x{:x} of {} has array[0] = {arr}; it must be \
                                 a multiple of 4 and at least 4; the rest of the page was not walked",
                                at(data_base, p),
                                self.cpu_name()
                            ),
                        );
                        return Err(Stop::Reported);
                    }
                    let total = (arr as usize).saturating_add(4);
                    if total > data.len().saturating_sub(p) {
                        return Err(Stop::Overrun(p, u64::from(arr).saturating_add(4)));
                    }
                    ts = ts.wrapping_add(u64::from(delta));
                    self.stats.padding = self.stats.padding.saturating_add(1);
                    p = p.saturating_add(total);
                    continue;
                }
                _ => {
                    // TIME_EXTEND / TIME_STAMP.
                    let Some(arr) = u32_at(data, p.saturating_add(4), e) else {
                        return Err(Stop::Overrun(p, 8));
                    };
                    if tl == TYPE_TIME_EXTEND {
                        ts = ts
                            .wrapping_add(u64::from(arr) << TS_SHIFT)
                            .wrapping_add(u64::from(delta));
                        self.stats.time_extends = self.stats.time_extends.saturating_add(1);
                        let here = (at(data_base, p), ts);
                        match &mut self.extends {
                            Some(x) => x.last = here,
                            None => {
                                self.extends = Some(Extends {
                                    first: here,
                                    last: here,
                                })
                            }
                        }
                    } else {
                        ts = ((u64::from(arr) << TS_SHIFT) | u64::from(delta)) | (ts & TS_MSB);
                        self.stats.time_stamps = self.stats.time_stamps.saturating_add(1);
                        self.stamp = Some((at(data_base, p), ts));
                    }
                    p = p.saturating_add(8);
                    continue;
                }
            };
            // A data record.
            if total > data.len().saturating_sub(p) {
                return Err(Stop::Overrun(p, total as u64));
            }
            let start = p.saturating_add(payload_at);
            let payload = data
                .get(start..start.saturating_add(payload_len))
                .unwrap_or(&[]);
            ts = ts.wrapping_add(u64::from(delta));
            if ts < self.last_ts {
                self.backwards(sink, data_base, p, ts);
            } else if ts == u64::MAX {
                self.all_ones(sink, data_base, p);
            }
            self.last_ts = ts;
            self.stats.last_ts = Some(ts);
            if self.stats.first_ts.is_none() {
                self.stats.first_ts = Some(ts);
            }
            self.stats.events = self.stats.events.saturating_add(1);
            let id = u16_at(payload, 0, e);
            if let Some(id) = id {
                self.stats.ids.insert(id);
            }
            match id {
                None => self.short_payload(sink, data_base, start, payload.len(), None),
                Some(id) if check_ids => match self.table.hot(id) {
                    None => self.unknown_id(sink, data_base, start, id),
                    Some((m, _)) if (payload.len() as u64) < u64::from(m) => {
                        self.short_payload(sink, data_base, start, payload.len(), Some((id, m)))
                    }
                    // The common cases, without a call (what `tail_excess` does for them).
                    Some((_, max)) if within_hot_tail(max, payload.len()) => {}
                    Some(_) => match self.table.tail(id) {
                        Tail::Open => {}
                        tail => {
                            if let Some(excess) = tail_excess(tail, payload, e) {
                                self.long_payload(
                                    sink,
                                    data_base,
                                    start,
                                    payload.len(),
                                    id,
                                    tail,
                                    excess,
                                );
                            }
                        }
                    },
                },
                Some(_) => {}
            }
            on_record(&Record {
                offset: at(data_base, p),
                payload_offset: at(data_base, start),
                ts,
                id,
                payload,
            });
            p = p.saturating_add(total);
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn backwards(&mut self, sink: &mut Sink, data_base: u64, p: usize, ts: u64) {
        let span = at(data_base, p)..at(data_base, p.saturating_add(4));
        if self.cap(CAP_BACKWARDS, &span) {
            self.emit(
                sink,
                &rules::RING_TIMESTAMP_BACKWARDS,
                span,
                format!(
                    "the record at 0x{:x} of {} has timestamp {ts}, older than the previous \
                     record's {}",
                    at(data_base, p),
                    self.cpu_name(),
                    self.last_ts
                ),
            );
        }
    }

    #[cold]
    #[inline(never)]
    fn all_ones(&mut self, sink: &mut Sink, data_base: u64, p: usize) {
        if self.sentinel {
            return;
        }
        self.sentinel = true;
        let span = at(data_base, p)..at(data_base, p.saturating_add(4));
        let f = sink
            .make(
                &rules::RING_TIMESTAMP_ALL_ONES,
                span,
                format!(
                    "the record at 0x{:x} of {} has timestamp 0xffffffffffffffff, which trace-cmd \
                     3.3.4 takes for \"no more records\" when it merges CPUs \
                     (`tracecmd_iterate_events`): it drops every record of the CPU from here on \
                     (2.4–3.1.6 print it with a wrapped time)",
                    at(data_base, p),
                    self.cpu_name()
                ),
            )
            .fails("trace-cmd report", "3.3.4", "loss");
        let f = match &self.context {
            Some(c) => f.note(c.clone()),
            None => f,
        };
        sink.push(f);
    }

    #[cold]
    #[inline(never)]
    fn unknown_id(&mut self, sink: &mut Sink, data_base: u64, start: usize, id: u16) {
        let span = at(data_base, start)..at(data_base, start.saturating_add(2));
        if self.cap(CAP_UNKNOWN_ID, &span) {
            self.emit(
                sink,
                &rules::RING_UNKNOWN_EVENT_ID,
                span,
                match self.table.unparsed_name(id) {
                    Some(name) => format!(
                        "the record at 0x{:x} of {} has event id {id}, whose event format `{name}` does not parse (TD053): trace-cmd 2.4–3.3.4 print its records as `[FAILED TO PARSE]` with only the fields before the one that fails (verified: a `sched_switch` whose `next_pid` type has a byte made 0xf8 lost `next_pid` and `next_prio` in every record)",
                        at(data_base, start),
                        self.cpu_name()
                    ),
                    None => format!(
                        "the record at 0x{:x} of {} has event id {id}, which no event format defines",
                        at(data_base, start),
                        self.cpu_name()
                    ),
                },
            );
        }
    }

    #[cold]
    #[inline(never)]
    fn short_payload(
        &mut self,
        sink: &mut Sink,
        data_base: u64,
        start: usize,
        len: usize,
        fmt: Option<(u16, u32)>,
    ) {
        let span = at(data_base, start)..at(data_base, start.saturating_add(len));
        if self.cap(CAP_SHORT, &span) {
            let msg = match fmt {
                None => format!(
                    "the record at 0x{:x} of {} has a {len}-byte payload, too short for its \
                     2-byte event id",
                    at(data_base, start),
                    self.cpu_name()
                ),
                Some((id, m)) => {
                    let name = self
                        .table
                        .get(u32::from(id))
                        .map_or("?", |i| i.name.as_str());
                    format!(
                        "the record at 0x{:x} of {} is a {name} event (id {id}) with a {len}-byte \
                         payload; its format needs at least {m} bytes",
                        at(data_base, start),
                        self.cpu_name()
                    )
                }
            };
            self.emit(sink, &rules::RING_PAYLOAD_TOO_SHORT, span, msg);
        }
    }

    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn long_payload(
        &mut self,
        sink: &mut Sink,
        data_base: u64,
        start: usize,
        len: usize,
        id: u16,
        tail: Tail,
        excess: u32,
    ) {
        let span = at(data_base, start)..at(data_base, start.saturating_add(len));
        if !self.cap(CAP_LONG, &span) {
            return;
        }
        let name = self
            .table
            .get(u32::from(id))
            .map_or("?", |i| i.name.as_str());
        let what = match tail {
            Tail::Text(off) => format!(
                "{} bytes after the NUL that ends its text (from offset {off}), where the kernel leaves at most {TEXT_SLACK}",
                excess.saturating_add(TEXT_SLACK)
            ),
            _ => format!("{excess} bytes past the {}-byte entry its format describes", len.saturating_sub(excess as usize)),
        };
        let msg = format!(
            "the record at 0x{:x} of {} is a {name} event (id {id}) with a {len}-byte payload, \
             {what}",
            at(data_base, start),
            self.cpu_name()
        );
        let f = if excess >= SWALLOWED_RECORD {
            sink.make(
                &rules::RING_RECORD_LONGER_THAN_EVENT,
                span,
                format!("{msg}: its length is damaged and it swallows the records after it, which trace-cmd 2.4–3.3.4 never show"),
            )
            .fails("trace-cmd report", "2.4–3.3.4", "loss")
        } else {
            sink.make(
                &rules::RING_RECORD_LONGER_THAN_EVENT,
                span,
                format!("{msg}: too little for another record, so readers read the same events"),
            )
            .read_same("trace-cmd report", "2.4–3.3.4")
        };
        let f = match &self.context {
            Some(c) => f.note(c.clone()),
            None => f,
        };
        sink.push(f);
    }

    /// Ends the walk: reports the lost-events summary and the counts of capped findings, and
    /// returns the statistics.
    pub fn finish(self, sink: &mut Sink) -> CpuStats {
        for c in &self.capped {
            if let (true, Some(first)) = (c.hidden() > 0, c.first()) {
                self.emit(
                    sink,
                    c.rule(),
                    first.clone(),
                    format!(
                        "{} more finding(s) of this kind on {} were not shown ({} in all; the \
                         first is at 0x{:x})",
                        c.hidden(),
                        self.cpu_name(),
                        c.count(),
                        first.start
                    ),
                );
            }
        }
        if let Some(span) = self.first_missed.clone() {
            let s = &self.stats;
            let cpu = self.cpu_name();
            let unknown = s.missed_unknown_pages;
            let msg = if s.lost_events == 0 {
                format!(
                    "the trace is incomplete: an unknown number of events were lost on {cpu} \
                     (before {unknown} page(s) without room to store the count)"
                )
            } else if unknown > 0 {
                format!(
                    "the trace is incomplete: {} events lost on {cpu}, plus an unknown number \
                     before {unknown} page(s) without room to store the count",
                    s.lost_events
                )
            } else {
                format!(
                    "the trace is incomplete: {} events lost on {cpu}",
                    s.lost_events
                )
            };
            let mut f = sink
                .make(&rules::RING_EVENTS_LOST, span, msg)
                .note(format!(
                    "{} page(s) are flagged RB_MISSED_EVENTS; the first one's commit word is at \
                     this offset",
                    s.missed_pages
                ))
                .help(
                    "use a larger ring buffer (buffer_size_kb, trace-cmd -b) or read it more often",
                );
            if let Some(c) = &self.context {
                f = f.note(c.clone());
            }
            sink.push(f);
        }
        self.stats
    }
}

/// What walking one clean page contributes, so that the page need not be kept: a page whose
/// walk gives no finding whatever came before it, except the comparison of its timestamp with
/// the previous page's, which [`Walker::page_summary`] makes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PageSummary {
    /// The page header's timestamp.
    pub page_ts: u64,
    /// Timestamp of the first data record (when `events > 0`).
    pub first_ts: u64,
    /// Timestamp of the last data record (when `events > 0`).
    pub last_ts: u64,
    /// Data records.
    pub events: u32,
    /// Padding events.
    pub padding: u32,
    /// Time extends.
    pub time_extends: u32,
    /// Absolute time stamps.
    pub time_stamps: u32,
    /// Bytes of data walked.
    pub data_bytes: u32,
    /// True when the page's timestamp is compared with the previous one (a page with data or a
    /// timestamp; an all-zero header is not).
    pub compared: bool,
    /// The page's first and last time extends, offsets relative to the page.
    pub extends: Option<Extends>,
}

impl PageSummary {
    /// The time the walker holds after taking this page when it held `before`: the last
    /// record's time, else the page's timestamp when it is compared, else `before`.
    pub fn end_ts(&self, before: u64) -> u64 {
        if self.events > 0 {
            self.last_ts
        } else if self.compared {
            self.page_ts
        } else {
            before
        }
    }
}

/// The first and the last time extend of a page: (offset, the time after it) each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Extends {
    /// The first.
    pub first: (u64, u64),
    /// The last.
    pub last: (u64, u64),
}

/// Walks `page` (a whole page at `base`) on its own; `Some` when it is clean: no finding and
/// no lost events. `table` is the event table the page is checked against: an empty one leaves
/// the ids and payloads unchecked, and `on_id` gets the event id and payload of every data
/// record, for the caller to check against the event formats once they are known. `ids`
/// gathers the ids of the records walked (kept from page to page: one set serves many pages).
pub fn summarize_page(
    page: &[u8],
    base: u64,
    params: &RingParams,
    table: &EventTable,
    ids: &mut IdSet,
    on_id: &mut impl FnMut(u16, &[u8]),
) -> Option<PageSummary> {
    if page.len() as u64 != u64::from(params.page_size) {
        return None;
    }
    let mut w = Walker::new(params.clone(), table);
    w.stats.ids = std::mem::take(ids);
    let mut sink = Sink::new(1);
    let mut first = None;
    let mut last = 0u64;
    w.page_with(
        Reader::with_base(page, base, params.endian),
        &mut sink,
        |r| {
            if first.is_none() {
                first = Some(r.ts);
            }
            last = r.ts;
            if let Some(id) = r.id {
                on_id(id, r.payload);
            }
        },
    );
    *ids = std::mem::take(&mut w.stats.ids);
    // A page with an absolute time stamp is walked for real: the next page's timestamp is
    // checked against the time it set.
    if !sink.findings().is_empty()
        || sink.dropped() > 0
        || w.first_missed.is_some()
        || w.stats.time_stamps > 0
    {
        return None;
    }
    let st = &w.stats;
    let page_ts = u64_at(page, 0, params.endian)?;
    let n = |v: u64| u32::try_from(v).ok();
    Some(PageSummary {
        page_ts,
        first_ts: first.unwrap_or(0),
        last_ts: last,
        events: n(st.events)?,
        padding: n(st.padding)?,
        time_extends: n(st.time_extends)?,
        time_stamps: n(st.time_stamps)?,
        data_bytes: n(st.data_bytes)?,
        // As in `page_with`: a clean page's data size is its commit size.
        compared: page_ts != 0 || st.data_bytes != 0,
        extends: w.extends.map(|x| Extends {
            first: (x.first.0.saturating_sub(base), x.first.1),
            last: (x.last.0.saturating_sub(base), x.last.1),
        }),
    })
}

/// Walks a contiguous region of uncompressed pages (one CPU's data). A trailing partial page is
/// reported (`TD100`) and walked as far as it goes. A `page_size` smaller than the page header
/// walks nothing (the caller validates the page size).
pub fn walk_cpu(
    data: Reader<'_>,
    params: RingParams,
    table: &EventTable,
    sink: &mut Sink,
) -> CpuStats {
    let hdr = 8u32.saturating_add(u32::from(if params.long_size == 4 { 4u8 } else { 8 }));
    let ps = u64::from(params.page_size);
    let mut w = Walker::new(params, table);
    if ps < u64::from(hdr) {
        return w.finish(sink);
    }
    let mut r = data;
    while !r.is_empty() {
        let n = ps.min(r.remaining() as u64);
        match r.sub(n, "ring-buffer page") {
            Ok(page) => w.page(page, sink),
            Err(_) => break,
        }
    }
    w.finish(sink)
}

#[cfg(test)]
mod tests;
