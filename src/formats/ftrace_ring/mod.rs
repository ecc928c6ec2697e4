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
// Skeleton: the walk is being filled in.
#![allow(dead_code)]

pub mod rules;
pub mod writer;

use crate::finding::Sink;
use crate::reader::{Endian, Reader};

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
}

/// Event id → [`EventInfo`], built by the caller from the event formats.
///
/// Record ids are the `u16` `common_type` at the start of each payload, so only ids below 65536
/// can ever match; the table is a vector indexed by id. An **empty** table disables the
/// event-id and payload-length checks (the caller has no formats to check against).
#[derive(Clone, Debug, Default)]
pub struct EventTable {
    /// `min_payload` per id, `u32::MAX` for no event (the hot lookup).
    min: Vec<u32>,
    infos: Vec<Option<EventInfo>>,
    len: usize,
}

impl EventTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) event `id`. Returns `false` (and stores nothing) when `id` does not
    /// fit the 16-bit `common_type` field, since no record can refer to it.
    pub fn insert(&mut self, id: u32, name: impl Into<String>, min_payload: u32) -> bool {
        let Ok(id16) = u16::try_from(id) else {
            return false;
        };
        let i = usize::from(id16);
        if self.min.len() <= i {
            let n = i.saturating_add(1);
            self.min.resize(n, u32::MAX);
            self.infos.resize(n, None);
        }
        if let (Some(m), Some(slot)) = (self.min.get_mut(i), self.infos.get_mut(i)) {
            if slot.is_none() {
                self.len = self.len.saturating_add(1);
            }
            // u32::MAX is the "absent" marker; a real format is never that long.
            *m = min_payload.min(u32::MAX - 1);
            *slot = Some(EventInfo {
                name: name.into(),
                min_payload,
            });
        }
        true
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

    /// Hot-path lookup: `min_payload` of `id`, `None` when unknown.
    #[inline]
    fn min_payload(&self, id: u16) -> Option<u32> {
        match self.min.get(usize::from(id)) {
            Some(&m) if m != u32::MAX => Some(m),
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
    /// Timestamp of the first record (or of the first page when it has no record).
    pub first_ts: Option<u64>,
    /// Timestamp of the last record.
    pub last_ts: Option<u64>,
    /// Sum of the lost-event counts stored on pages (`RB_MISSED_STORED`).
    pub lost_events: u64,
    /// Pages flagged `RB_MISSED_EVENTS`.
    pub missed_pages: u64,
    /// Pages flagged `RB_MISSED_EVENTS` without a stored count (lost count unknown).
    pub missed_unknown_pages: u64,
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
#[derive(Debug)]
pub struct Walker<'t> {
    params: RingParams,
    table: &'t EventTable,
    context: Option<String>,
    stats: CpuStats,
    /// Last timestamp seen (record or page), for the monotonicity check.
    last_ts: Option<u64>,
    /// Span of the commit word of the first page with missed events.
    first_missed: Option<std::ops::Range<u64>>,
    /// Per-event findings already reported per rule slot, to cap the flood.
    capped: [u64; CAP_SLOTS],
}

/// Rules whose per-event findings are capped per CPU.
const CAP_SLOTS: usize = 3;
const CAP_BACKWARDS: usize = 0;
const CAP_UNKNOWN_ID: usize = 1;
const CAP_SHORT: usize = 2;
/// Per-event findings of one kind reported per CPU before only counting.
pub const PER_CPU_REPORT_CAP: u64 = 20;

impl<'t> Walker<'t> {
    /// A walker for one CPU.
    pub fn new(params: RingParams, table: &'t EventTable) -> Self {
        Walker {
            params,
            table,
            context: None,
            stats: CpuStats::default(),
            last_ts: None,
            first_missed: None,
            capped: [0; CAP_SLOTS],
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

    /// Checks one page. `page` covers the page (normally `page_size` bytes) with absolute
    /// offsets; a shorter reader is reported and walked as far as it goes.
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
        let _ = (&page, &sink, &mut on_record);
        self.stats.pages = self.stats.pages.saturating_add(1);
    }

    /// Ends the walk: reports the lost-events summary and returns the statistics.
    pub fn finish(self, sink: &mut Sink) -> CpuStats {
        let _ = sink;
        self.stats
    }
}

/// Walks a contiguous region of pages (uncompressed per-CPU data). A trailing partial page is
/// reported (`TD100`).
pub fn walk_cpu(
    data: Reader<'_>,
    params: RingParams,
    table: &EventTable,
    sink: &mut Sink,
) -> CpuStats {
    let mut w = Walker::new(params, table);
    let _ = data;
    w.stats.pages = 0;
    w.finish(sink)
}
