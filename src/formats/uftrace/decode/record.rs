//! The 16-byte record of a `<TID>.dat`: a `u64` time and a `u64` word of bit fields (type:2,
//! more:1, magic:3, depth:10, addr:48), decoded here for the walker (`checks::dat`), its fast
//! path and the first pass ([`runs`](super::runs)). A record that cannot be read (the file
//! ends inside it, or its magic is not 5) and a payload cut short by the end of the file are
//! reported here; the first pass gives up on the same conditions without a word.

use super::super::rules;
use crate::finding::Sink;
use crate::reader::Endianity;

/// Record type ENTRY.
pub const ENTRY: u8 = 0;
/// EXIT.
pub const EXIT: u8 = 1;
/// LOST.
pub const LOST: u8 = 2;
/// EVENT.
pub const EVENT: u8 = 3;
/// The magic of every record.
pub const RECORD_MAGIC: u8 = 5;
/// Bytes of a record (without its payload).
pub const RECORD_LEN: usize = 16;

/// The second word of a record, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordWord {
    /// [`ENTRY`], [`EXIT`], [`LOST`] or [`EVENT`].
    pub typ: u8,
    /// A payload follows the record.
    pub more: bool,
    /// [`RECORD_MAGIC`] in a well-formed record.
    pub magic: u8,
    /// Call depth.
    pub depth: u16,
    /// Function address (ENTRY, EXIT), event id (EVENT) or lost count (LOST).
    pub addr: u64,
}

impl RecordWord {
    /// Decodes the word.
    #[inline(always)]
    pub fn decode(w: u64) -> RecordWord {
        RecordWord {
            typ: (w & 3) as u8,
            more: w & 4 != 0,
            magic: ((w >> 3) & 7) as u8,
            depth: ((w >> 6) & 0x3ff) as u16,
            addr: w >> 16,
        }
    }

    /// Whether the magic is [`RECORD_MAGIC`].
    #[inline(always)]
    pub fn magic_ok(self) -> bool {
        self.magic == RECORD_MAGIC
    }
}

/// The two words (time, bit fields) of a record.
#[inline(always)]
pub fn words<E: Endianity>(e: E, rec: &[u8; RECORD_LEN]) -> (u64, u64) {
    let mut a = [0u8; 8];
    let mut b = [0u8; 8];
    let (x, y) = rec.split_at(8);
    a.copy_from_slice(x);
    b.copy_from_slice(y);
    (e.read_u64(a), e.read_u64(b))
}

/// The time and decoded word of the record at the start of `v`, if `v` holds one.
#[inline(always)]
pub fn record_at<E: Endianity>(e: E, v: &[u8]) -> Option<(u64, RecordWord)> {
    let (time, w) = words(e, v.first_chunk::<RECORD_LEN>()?);
    Some((time, RecordWord::decode(w)))
}

/// What the walker finds where it expects a record.
pub enum Head {
    /// A record: its time and word.
    Record(u64, RecordWord),
    /// A record whose magic is not 5 (reported): the walk stops after it.
    BadMagic,
    /// The end of the file (a partial record there is reported).
    End,
}

/// Reads the record at the start of `win`, the bytes at offset `off` of a file of `file_len`
/// bytes, reporting a partial record at the end of the file and a bad magic.
pub fn head<E: Endianity>(e: E, win: &[u8], off: u64, file_len: u64, sink: &mut Sink) -> Head {
    let Some((time, w)) = record_at(e, win) else {
        if !win.is_empty() {
            let n = win.len() as u64;
            sink.report(
                &rules::DAT_TRUNCATED,
                off..off.saturating_add(n),
                format!(
                    "the file ends with {n} byte(s) of a partial 16-byte record; uftrace drops it silently"
                ),
            );
        }
        return Head::End;
    };
    if !w.magic_ok() {
        let magic = w.magic;
        let f = sink
            .make(
                &rules::BAD_RECORD_MAGIC,
                off.saturating_add(8)..off.saturating_add(9),
                format!(
                    "record at 0x{off:x} has magic {magic}, expected 5; uftrace stops reading this task here (\"invalid rstack read\")"
                ),
            )
            .note(format!(
                "{} byte(s) from here on were not checked",
                file_len.saturating_sub(off)
            ));
        sink.push(f);
        return Head::BadMagic;
    }
    Head::Record(time, w)
}

/// Reports a payload (`what`) at `start` cut short by the end of the file, `avail` bytes of
/// it present.
pub fn truncated_payload(sink: &mut Sink, start: u64, avail: usize, what: &str) {
    sink.report(
        &rules::DAT_TRUNCATED,
        start..start.saturating_add(avail as u64),
        format!(
            "the file ends inside an {what} at 0x{start:x} ({avail} byte(s) left); uftrace drops the record silently"
        ),
    );
}
