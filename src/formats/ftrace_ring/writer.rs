//! A page builder: encodes ring-buffer pages from a list of events. Used by the tests, the
//! benchmark and the fuzz targets to make valid pages and precise defects.
//!
//! ```
//! use tracelint::formats::ftrace_ring::writer::{payload, PageBuilder};
//! use tracelint::reader::Endian;
//! let page = PageBuilder::new(1000)
//!     .event(5, payload(7, 16))
//!     .time_extend(1 << 30)
//!     .event(0, payload(7, 200))
//!     .build(4096, 8, Endian::Little);
//! assert_eq!(page.len(), 4096);
//! ```

use super::{
    COMMIT_SIZE_MASK, RB_MISSED_EVENTS, RB_MISSED_STORED, TYPE_PADDING, TYPE_TIME_EXTEND,
    TYPE_TIME_STAMP,
};
use crate::reader::Endian;

/// One item of a page's data.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
pub enum Item {
    /// A data event: compact `type_len = len/4` encoding when the payload is a non-empty multiple
    /// of 4 of at most 112 bytes, else `type_len 0` with `array[0] = len + 4` and the payload
    /// zero-padded to 4.
    Event {
        /// 27-bit time delta (higher bits are dropped).
        delta: u32,
        /// Payload bytes.
        payload: Vec<u8>,
    },
    /// A data event forced to `type_len 0`, `array[0] = payload.len() + 4` (unrounded), payload
    /// padded with zeros to 4.
    LongEvent {
        /// Time delta.
        delta: u32,
        /// Payload bytes.
        payload: Vec<u8>,
    },
    /// Padding / discarded event: `type_len 29`, `array[0] = len`, then `len - 4` zero bytes
    /// (none if `len < 4`). Total length `4 + len` when `len >= 4`.
    Padding {
        /// Time delta (0 makes "null" padding with an array).
        delta: u32,
        /// `array[0]`.
        len: u32,
    },
    /// Null padding: a bare `type_len 29` header with delta 0 (4 bytes).
    NullPadding,
    /// Time extend of `delta` ns: low 27 bits in the header, the rest in `array[0]`.
    TimeExtend {
        /// Full delta.
        delta: u64,
    },
    /// Absolute time stamp: low 27 bits in the header, bits 27..59 in `array[0]`.
    TimeStamp {
        /// Timestamp.
        ts: u64,
    },
    /// An event header word with any `type_len` and delta.
    Header {
        /// 5-bit type.
        type_len: u32,
        /// 27-bit delta.
        delta: u32,
    },
    /// Raw bytes.
    Raw(Vec<u8>),
}

/// Builds one page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
pub struct PageBuilder {
    /// Page timestamp.
    pub ts: u64,
    /// Data items.
    pub items: Vec<Item>,
    /// `Some(None)`: set `RB_MISSED_EVENTS` only; `Some(Some(n))`: also `RB_MISSED_STORED` with
    /// count `n` after the data.
    pub missed: Option<Option<u64>>,
    /// Replace the computed commit word by this value.
    pub commit: Option<u64>,
    /// Write the kernel's 64-bit quirk (upper half all ones when `RB_MISSED_EVENTS` is set).
    pub ones_high_half: bool,
    /// Bytes written at page offsets after everything else (to corrupt the tail, etc.).
    pub patches: Vec<(usize, u8)>,
}

/// A little-endian payload of `len` bytes starting with `common_type = id` (then `0xAB` filler).
pub fn payload(id: u16, len: usize) -> Vec<u8> {
    payload_in(id, len, Endian::Little)
}

/// A payload of `len` bytes starting with `common_type = id` in byte order `e`.
pub fn payload_in(id: u16, len: usize, e: Endian) -> Vec<u8> {
    let mut v = vec![0xab; len];
    let b = match e {
        Endian::Little => id.to_le_bytes(),
        Endian::Big => id.to_be_bytes(),
    };
    for (d, s) in v.iter_mut().zip(b) {
        *d = s;
    }
    v
}

fn put32(out: &mut Vec<u8>, v: u32, e: Endian) {
    out.extend_from_slice(&match e {
        Endian::Little => v.to_le_bytes(),
        Endian::Big => v.to_be_bytes(),
    });
}

fn put64(out: &mut Vec<u8>, v: u64, e: Endian) {
    out.extend_from_slice(&match e {
        Endian::Little => v.to_le_bytes(),
        Endian::Big => v.to_be_bytes(),
    });
}

/// Encodes an event header word (the bitfield order follows the byte order: little-endian has
/// `type_len` in the low 5 bits, big-endian in the high 5 bits).
pub fn header_word(type_len: u32, delta: u32, e: Endian) -> u32 {
    match e {
        Endian::Little => ((delta & COMMIT_SIZE_MASK_U32) << 5) | (type_len & 31),
        Endian::Big => ((type_len & 31) << 27) | (delta & COMMIT_SIZE_MASK_U32),
    }
}

const COMMIT_SIZE_MASK_U32: u32 = (1 << 27) - 1;

fn put_header(out: &mut Vec<u8>, type_len: u32, delta: u32, e: Endian) {
    put32(out, header_word(type_len, delta, e), e);
}

fn pad4(out: &mut Vec<u8>) {
    while out.len() % 4 != 0 {
        out.push(0);
    }
}

impl PageBuilder {
    /// A page with timestamp `ts` and no events.
    pub fn new(ts: u64) -> Self {
        PageBuilder {
            ts,
            ..Self::default()
        }
    }

    /// Adds an item.
    pub fn item(mut self, item: Item) -> Self {
        self.items.push(item);
        self
    }

    /// Adds a data event.
    pub fn event(self, delta: u32, payload: Vec<u8>) -> Self {
        self.item(Item::Event { delta, payload })
    }

    /// Adds a data event forced to `type_len 0`.
    pub fn long_event(self, delta: u32, payload: Vec<u8>) -> Self {
        self.item(Item::LongEvent { delta, payload })
    }

    /// Adds padding with `array[0] = len`.
    pub fn padding(self, delta: u32, len: u32) -> Self {
        self.item(Item::Padding { delta, len })
    }

    /// Adds a time extend.
    pub fn time_extend(self, delta: u64) -> Self {
        self.item(Item::TimeExtend { delta })
    }

    /// Adds an absolute time stamp.
    pub fn time_stamp(self, ts: u64) -> Self {
        self.item(Item::TimeStamp { ts })
    }

    /// Adds raw bytes.
    pub fn raw(self, bytes: Vec<u8>) -> Self {
        self.item(Item::Raw(bytes))
    }

    /// Marks the page as following lost events (`count` stored when `Some`).
    pub fn missed(mut self, count: Option<u64>) -> Self {
        self.missed = Some(count);
        self.ones_high_half = true;
        self
    }

    /// Overrides the commit word.
    pub fn commit(mut self, commit: u64) -> Self {
        self.commit = Some(commit);
        self
    }

    /// Sets byte `offset` of the page to `value` after building.
    pub fn patch(mut self, offset: usize, value: u8) -> Self {
        self.patches.push((offset, value));
        self
    }

    /// The encoded event data (what `commit` counts).
    pub fn data(&self, e: Endian) -> Vec<u8> {
        let mut out = Vec::new();
        for it in &self.items {
            match it {
                Item::Event { delta, payload } => {
                    let n = payload.len();
                    if n > 0 && n <= 112 && n % 4 == 0 {
                        put_header(&mut out, u32::try_from(n / 4).unwrap_or(0), *delta, e);
                        out.extend_from_slice(payload);
                    } else {
                        let arr = u32::try_from(n.saturating_add(4).next_multiple_of(4))
                            .unwrap_or(u32::MAX);
                        put_header(&mut out, 0, *delta, e);
                        put32(&mut out, arr, e);
                        out.extend_from_slice(payload);
                        pad4(&mut out);
                    }
                }
                Item::LongEvent { delta, payload } => {
                    let arr = u32::try_from(payload.len().saturating_add(4)).unwrap_or(u32::MAX);
                    put_header(&mut out, 0, *delta, e);
                    put32(&mut out, arr, e);
                    out.extend_from_slice(payload);
                    pad4(&mut out);
                }
                Item::Padding { delta, len } => {
                    put_header(&mut out, TYPE_PADDING, *delta, e);
                    put32(&mut out, *len, e);
                    let body = usize::try_from(len.saturating_sub(4)).unwrap_or(0);
                    out.resize(out.len().saturating_add(body), 0);
                }
                Item::NullPadding => put_header(&mut out, TYPE_PADDING, 0, e),
                Item::TimeExtend { delta } => {
                    let lo = u32::try_from(delta & COMMIT_SIZE_MASK).unwrap_or(0);
                    let hi = u32::try_from((delta >> 27) & 0xffff_ffff).unwrap_or(0);
                    put_header(&mut out, TYPE_TIME_EXTEND, lo, e);
                    put32(&mut out, hi, e);
                }
                Item::TimeStamp { ts } => {
                    let lo = u32::try_from(ts & COMMIT_SIZE_MASK).unwrap_or(0);
                    let hi = u32::try_from((ts >> 27) & 0xffff_ffff).unwrap_or(0);
                    put_header(&mut out, TYPE_TIME_STAMP, lo, e);
                    put32(&mut out, hi, e);
                }
                Item::Header { type_len, delta } => put_header(&mut out, *type_len, *delta, e),
                Item::Raw(b) => out.extend_from_slice(b),
            }
        }
        out
    }

    /// The full page: header, data, stored lost count, zero fill to `page_size` (the result is
    /// longer than `page_size` only if the data does not fit).
    pub fn build(&self, page_size: u32, long_size: u8, e: Endian) -> Vec<u8> {
        let data = self.data(e);
        let mut commit = data.len() as u64;
        if let Some(m) = self.missed {
            if m.is_some() {
                commit |= RB_MISSED_STORED;
            }
            commit |= RB_MISSED_EVENTS;
            if self.ones_high_half && long_size == 8 {
                commit |= 0xffff_ffff_0000_0000;
            }
        }
        let commit = self.commit.unwrap_or(commit);
        let mut out = Vec::with_capacity(usize::try_from(page_size).unwrap_or(0));
        put64(&mut out, self.ts, e);
        if long_size == 4 {
            put32(
                &mut out,
                u32::try_from(commit & 0xffff_ffff).unwrap_or(0),
                e,
            );
        } else {
            put64(&mut out, commit, e);
        }
        out.extend_from_slice(&data);
        if let Some(Some(n)) = self.missed {
            if long_size == 4 {
                put32(&mut out, u32::try_from(n & 0xffff_ffff).unwrap_or(0), e);
            } else {
                put64(&mut out, n, e);
            }
        }
        let ps = usize::try_from(page_size).unwrap_or(0);
        if out.len() < ps {
            out.resize(ps, 0);
        }
        for &(off, v) in &self.patches {
            if let Some(b) = out.get_mut(off) {
                *b = v;
            }
        }
        out
    }
}

/// Concatenates pages into one CPU's data.
pub fn pages(pages: &[PageBuilder], page_size: u32, long_size: u8, e: Endian) -> Vec<u8> {
    let mut out = Vec::new();
    for p in pages {
        out.extend_from_slice(&p.build(page_size, long_size, e));
    }
    out
}
