//! The one bounds-checked cursor every decoder reads file bytes through.
//!
//! A [`Reader`] borrows a byte slice that starts at an absolute file offset (`base`) and reads
//! integers in an explicit [`Endian`]. Every read returns a [`ReadResult`]; a failure carries the
//! absolute offset, what was being read and, for truncation, how many bytes were needed. A
//! sub-reader made with [`Reader::sub`] keeps absolute offsets, so a finding raised deep inside a
//! section still points at the right byte of the file.
#![deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::panic
)]

use std::fmt;
use std::ops::Range;

/// Byte order of multi-byte integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Endian {
    /// Least significant byte first.
    Little,
    /// Most significant byte first.
    Big,
}

/// Byte order as a type, as gimli's `Endianity`: [`LittleEndian`] and [`BigEndian`] are
/// zero-sized, so a decoder generic over them has the order folded into its hot loop; [`Endian`]
/// is the order known only at run time. Every conversion of file bytes to integers is here.
pub trait Endianity: Copy + fmt::Debug + PartialEq + Eq + Send + Sync {
    /// True for big-endian.
    fn is_big_endian(self) -> bool;

    /// The order as a run-time value.
    #[inline(always)]
    fn endian(self) -> Endian {
        if self.is_big_endian() {
            Endian::Big
        } else {
            Endian::Little
        }
    }

    /// A `u16` from its two bytes in this order.
    #[inline(always)]
    fn read_u16(self, b: [u8; 2]) -> u16 {
        if self.is_big_endian() {
            u16::from_be_bytes(b)
        } else {
            u16::from_le_bytes(b)
        }
    }

    /// A `u32` from its four bytes in this order.
    #[inline(always)]
    fn read_u32(self, b: [u8; 4]) -> u32 {
        if self.is_big_endian() {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        }
    }

    /// A `u64` from its eight bytes in this order.
    #[inline(always)]
    fn read_u64(self, b: [u8; 8]) -> u64 {
        if self.is_big_endian() {
            u64::from_be_bytes(b)
        } else {
            u64::from_le_bytes(b)
        }
    }

    /// The two bytes of `v` in this order (for repairs that write fields).
    #[inline(always)]
    fn u16_bytes(self, v: u16) -> [u8; 2] {
        if self.is_big_endian() {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    }

    /// The four bytes of `v` in this order.
    #[inline(always)]
    fn u32_bytes(self, v: u32) -> [u8; 4] {
        if self.is_big_endian() {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    }

    /// The eight bytes of `v` in this order.
    #[inline(always)]
    fn u64_bytes(self, v: u64) -> [u8; 8] {
        if self.is_big_endian() {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    }
}

/// Little-endian, fixed at compile time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LittleEndian;

/// Big-endian, fixed at compile time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BigEndian;

impl Endianity for LittleEndian {
    #[inline(always)]
    fn is_big_endian(self) -> bool {
        false
    }
}

impl Endianity for BigEndian {
    #[inline(always)]
    fn is_big_endian(self) -> bool {
        true
    }
}

impl Endianity for Endian {
    #[inline(always)]
    fn is_big_endian(self) -> bool {
        self == Endian::Big
    }
}

/// Fast reads for hot loops over a window the caller already holds: the integer at byte `at`
/// of `b`, or `None` when it does not fit. No cursor, no error value; the bounds check stays.
#[inline(always)]
pub fn u16_at<E: Endianity>(b: &[u8], at: usize, e: E) -> Option<u16> {
    Some(e.read_u16(*b.get(at..)?.first_chunk::<2>()?))
}

/// The `u32` at byte `at` of `b` (see [`u16_at`]).
#[inline(always)]
pub fn u32_at<E: Endianity>(b: &[u8], at: usize, e: E) -> Option<u32> {
    Some(e.read_u32(*b.get(at..)?.first_chunk::<4>()?))
}

/// The `u64` at byte `at` of `b` (see [`u16_at`]).
#[inline(always)]
pub fn u64_at<E: Endianity>(b: &[u8], at: usize, e: E) -> Option<u64> {
    Some(e.read_u64(*b.get(at..)?.first_chunk::<8>()?))
}

/// The same 16 bits as a signed value (two's complement), as C's `(int16_t)` cast.
#[inline(always)]
pub fn signed16(v: u16) -> i16 {
    i16::from_ne_bytes(v.to_ne_bytes())
}

/// The same 32 bits as a signed value (two's complement).
#[inline(always)]
pub fn signed32(v: u32) -> i32 {
    i32::from_ne_bytes(v.to_ne_bytes())
}

/// The same 64 bits as a signed value (two's complement).
#[inline(always)]
pub fn signed64(v: u64) -> i64 {
    i64::from_ne_bytes(v.to_ne_bytes())
}

impl fmt::Display for Endian {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Endian::Little => "little-endian",
            Endian::Big => "big-endian",
        })
    }
}

/// Why a read failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadErrorKind {
    /// The bytes ended before the value did.
    Eof {
        /// Bytes that were needed from `offset`.
        needed: u64,
        /// Bytes that were available from `offset`.
        available: u64,
    },
    /// An offset or length does not fit the platform or overflows.
    Overflow,
    /// A NUL-terminated string has no NUL within the `scanned` bytes it may take, all of which
    /// are there ([`Reader::cstr`]); a string cut by the end of the bytes is [`Self::Eof`].
    /// Shown like the `Eof` it would be with one more byte, so messages read the same.
    Unterminated {
        /// Bytes looked at from `offset`.
        scanned: u64,
    },
    /// Bytes were left after a structure that should have used them all ([`Reader::finish`]).
    Trailing {
        /// Bytes left from `offset`.
        left: u64,
    },
}

/// A failed read: where, what, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadError {
    /// Absolute file offset at which the read was attempted.
    pub offset: u64,
    /// What was being read (a static description such as `"frame size"`).
    pub what: &'static str,
    /// The failure.
    pub kind: ReadErrorKind,
}

impl ReadError {
    #[cold]
    fn eof(offset: u64, what: &'static str, needed: u64, available: u64) -> Self {
        ReadError {
            offset,
            what,
            kind: ReadErrorKind::Eof { needed, available },
        }
    }

    #[cold]
    fn overflow(offset: u64, what: &'static str) -> Self {
        ReadError {
            offset,
            what,
            kind: ReadErrorKind::Overflow,
        }
    }

    /// The byte span the failed read covered, clamped to what exists (at least one byte wide
    /// for display when the read ran off the end).
    pub fn span(&self) -> Range<u64> {
        match self.kind {
            ReadErrorKind::Eof { available, .. } => {
                self.offset..self.offset.saturating_add(available)
            }
            ReadErrorKind::Overflow => self.offset..self.offset,
            ReadErrorKind::Unterminated { scanned } => {
                self.offset..self.offset.saturating_add(scanned)
            }
            ReadErrorKind::Trailing { left } => self.offset..self.offset.saturating_add(left),
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ReadErrorKind::Eof { needed, available } => write!(
                f,
                "truncated {}: need {} byte{} at 0x{:x}, only {} available",
                self.what,
                needed,
                if needed == 1 { "" } else { "s" },
                self.offset,
                available
            ),
            ReadErrorKind::Overflow => write!(
                f,
                "{} at 0x{:x}: offset or length overflows",
                self.what, self.offset
            ),
            ReadErrorKind::Unterminated { scanned } => fmt::Display::fmt(
                &ReadError::eof(self.offset, self.what, scanned.saturating_add(1), scanned),
                f,
            ),
            ReadErrorKind::Trailing { left } => write!(
                f,
                "{} byte{} left after the {} at 0x{:x}",
                left,
                if left == 1 { "" } else { "s" },
                self.what,
                self.offset
            ),
        }
    }
}

impl std::error::Error for ReadError {}

/// Result of a read.
pub type ReadResult<T> = Result<T, ReadError>;

/// A bounds-checked cursor over bytes that begin at absolute file offset `base`, reading
/// integers in byte order `E` (the run-time [`Endian`] unless a decoder fixes it by type).
#[derive(Clone, Debug)]
pub struct Reader<'a, E: Endianity = Endian> {
    buf: &'a [u8],
    pos: usize,
    base: u64,
    endian: E,
}

/// Converts a file-supplied `u64` length or offset to `usize`, failing instead of truncating.
pub fn to_usize(v: u64, offset: u64, what: &'static str) -> ReadResult<usize> {
    usize::try_from(v).map_err(|_| ReadError::overflow(offset, what))
}

impl<'a, E: Endianity> Reader<'a, E> {
    /// A reader over a whole file: offset 0 is the first byte of `buf`.
    pub fn new(buf: &'a [u8], endian: E) -> Self {
        Reader {
            buf,
            pos: 0,
            base: 0,
            endian,
        }
    }

    /// A reader over `buf`, whose first byte sits at absolute offset `base`.
    pub fn with_base(buf: &'a [u8], base: u64, endian: E) -> Self {
        Reader {
            buf,
            pos: 0,
            base,
            endian,
        }
    }

    /// The byte order used by the integer reads.
    pub fn endian(&self) -> E {
        self.endian
    }

    /// Changes the byte order for later reads.
    pub fn set_endian(&mut self, endian: E) {
        self.endian = endian;
    }

    /// Absolute offset of the next byte to be read.
    pub fn offset(&self) -> u64 {
        self.base.saturating_add(self.pos as u64)
    }

    /// Absolute offset of the first byte of this reader.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Absolute offset one past the last byte of this reader.
    pub fn end_offset(&self) -> u64 {
        self.base.saturating_add(self.buf.len() as u64)
    }

    /// Bytes left to read.
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    /// True when every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The bytes not yet read, without consuming them.
    pub fn rest(&self) -> &'a [u8] {
        self.buf.get(self.pos..).unwrap_or(&[])
    }

    /// All bytes of this reader, read or not.
    pub fn all_bytes(&self) -> &'a [u8] {
        self.buf
    }

    /// Moves to absolute offset `abs`, which must lie within this reader (its end included).
    pub fn seek(&mut self, abs: u64, what: &'static str) -> ReadResult<()> {
        let rel = abs
            .checked_sub(self.base)
            .ok_or(ReadError::overflow(abs, what))?;
        let rel = to_usize(rel, abs, what)?;
        if rel > self.buf.len() {
            return Err(ReadError::eof(
                self.end_offset(),
                what,
                rel.saturating_sub(self.buf.len()) as u64,
                0,
            ));
        }
        self.pos = rel;
        Ok(())
    }

    /// Reads exactly `len` bytes.
    pub fn bytes(&mut self, len: usize, what: &'static str) -> ReadResult<&'a [u8]> {
        let rest = self.rest();
        match rest.split_at_checked(len) {
            Some((head, _)) => {
                self.pos = self.pos.saturating_add(len);
                Ok(head)
            }
            None => Err(ReadError::eof(
                self.offset(),
                what,
                len as u64,
                rest.len() as u64,
            )),
        }
    }

    /// Reads `len` bytes given as a file-supplied `u64`.
    pub fn bytes_u64(&mut self, len: u64, what: &'static str) -> ReadResult<&'a [u8]> {
        let n = to_usize(len, self.offset(), what)?;
        self.bytes(n, what)
    }

    /// Reads a fixed-size array.
    pub fn array<const N: usize>(&mut self, what: &'static str) -> ReadResult<[u8; N]> {
        let rest = self.rest();
        match rest.split_first_chunk::<N>() {
            Some((head, _)) => {
                self.pos = self.pos.saturating_add(N);
                Ok(*head)
            }
            None => Err(ReadError::eof(
                self.offset(),
                what,
                N as u64,
                rest.len() as u64,
            )),
        }
    }

    /// Skips `len` bytes.
    pub fn skip(&mut self, len: u64, what: &'static str) -> ReadResult<()> {
        self.bytes_u64(len, what).map(|_| ())
    }

    /// Carves out the next `len` bytes as a new reader with absolute offsets, and moves past them.
    pub fn sub(&mut self, len: u64, what: &'static str) -> ReadResult<Reader<'a, E>> {
        let base = self.offset();
        let buf = self.bytes_u64(len, what)?;
        Ok(Reader {
            buf,
            pos: 0,
            base,
            endian: self.endian,
        })
    }

    /// A reader over absolute range `range` of this reader, without moving this one.
    pub fn slice_abs(&self, range: Range<u64>, what: &'static str) -> ReadResult<Reader<'a, E>> {
        let start = range
            .start
            .checked_sub(self.base)
            .ok_or(ReadError::overflow(range.start, what))?;
        let len = range
            .end
            .checked_sub(range.start)
            .ok_or(ReadError::overflow(range.start, what))?;
        let s = to_usize(start, range.start, what)?;
        let l = to_usize(len, range.start, what)?;
        let end = s
            .checked_add(l)
            .ok_or(ReadError::overflow(range.start, what))?;
        match self.buf.get(s..end) {
            Some(buf) => Ok(Reader {
                buf,
                pos: 0,
                base: range.start,
                endian: self.endian,
            }),
            None => Err(ReadError::eof(
                range.start,
                what,
                len,
                (self.buf.len().saturating_sub(s)) as u64,
            )),
        }
    }

    /// Reads one byte.
    pub fn u8(&mut self, what: &'static str) -> ReadResult<u8> {
        let [b] = self.array::<1>(what)?;
        Ok(b)
    }

    /// Reads a `u16` in this reader's byte order.
    pub fn u16(&mut self, what: &'static str) -> ReadResult<u16> {
        let a = self.array::<2>(what)?;
        Ok(self.endian.read_u16(a))
    }

    /// Reads a `u32` in this reader's byte order.
    pub fn u32(&mut self, what: &'static str) -> ReadResult<u32> {
        let a = self.array::<4>(what)?;
        Ok(self.endian.read_u32(a))
    }

    /// Reads a `u64` in this reader's byte order.
    pub fn u64(&mut self, what: &'static str) -> ReadResult<u64> {
        let a = self.array::<8>(what)?;
        Ok(self.endian.read_u64(a))
    }

    /// Reads an `i16` (two's complement) in this reader's byte order.
    pub fn i16(&mut self, what: &'static str) -> ReadResult<i16> {
        self.u16(what).map(signed16)
    }

    /// Reads an `i32` (two's complement) in this reader's byte order.
    pub fn i32(&mut self, what: &'static str) -> ReadResult<i32> {
        self.u32(what).map(signed32)
    }

    /// Reads an `i64` (two's complement) in this reader's byte order.
    pub fn i64(&mut self, what: &'static str) -> ReadResult<i64> {
        self.u64(what).map(signed64)
    }

    /// Reads a `u32` or `u64` depending on `long_size` (4 or 8; anything else reads 8).
    pub fn ulong(&mut self, long_size: u8, what: &'static str) -> ReadResult<u64> {
        if long_size == 4 {
            self.u32(what).map(u64::from)
        } else {
            self.u64(what)
        }
    }

    /// Reads a NUL-terminated string, consuming the NUL. Fails with
    /// [`ReadErrorKind::Unterminated`] if no NUL occurs within `max` bytes, and with
    /// [`ReadErrorKind::Eof`] if the bytes end first.
    pub fn cstr(&mut self, max: usize, what: &'static str) -> ReadResult<&'a [u8]> {
        let rest = self.rest();
        let window = rest.get(..max.min(rest.len())).unwrap_or(rest);
        match window.iter().position(|&b| b == 0) {
            Some(n) => {
                let s = rest.get(..n).unwrap_or(&[]);
                self.pos = self.pos.saturating_add(n).saturating_add(1);
                Ok(s)
            }
            None if window.len() >= max => Err(ReadError {
                offset: self.offset(),
                what,
                kind: ReadErrorKind::Unterminated {
                    scanned: window.len() as u64,
                },
            }),
            None => Err(ReadError::eof(
                self.offset(),
                what,
                (window.len() as u64).saturating_add(1),
                window.len() as u64,
            )),
        }
    }

    /// Reads up to and including the next `\n`; returns the line without it. At the end of the
    /// bytes, a final line without `\n` is returned with `terminated == false`.
    /// Returns `None` when nothing is left.
    pub fn line(&mut self) -> Option<Line<'a>> {
        let rest = self.rest();
        if rest.is_empty() {
            return None;
        }
        let start = self.offset();
        let (text, terminated, used) = match memchr::memchr(b'\n', rest) {
            Some(n) => (rest.get(..n).unwrap_or(&[]), true, n.saturating_add(1)),
            None => (rest, false, rest.len()),
        };
        self.pos = self.pos.saturating_add(used);
        Some(Line {
            text,
            offset: start,
            terminated,
        })
    }

    /// Checks that every byte of `what` (the structure the reader holds, such as `"option
    /// body"`) was consumed; the error's [`ReadError::span`] is what is left.
    ///
    /// # Errors
    ///
    /// [`ReadErrorKind::Trailing`] when bytes are left.
    pub fn finish(&self, what: &'static str) -> ReadResult<()> {
        if self.is_empty() {
            return Ok(());
        }
        Err(ReadError {
            offset: self.offset(),
            what,
            kind: ReadErrorKind::Trailing {
                left: self.end_offset().saturating_sub(self.offset()),
            },
        })
    }
}

/// One text line read by [`Reader::line`].
#[derive(Clone, Copy, Debug)]
pub struct Line<'a> {
    /// The line's bytes, without the `\n`.
    pub text: &'a [u8],
    /// Absolute offset of the first byte.
    pub offset: u64,
    /// Whether a `\n` ended the line.
    pub terminated: bool,
}

impl Line<'_> {
    /// Absolute span of the text (without the newline).
    pub fn span(&self) -> Range<u64> {
        self.offset..self.offset.saturating_add(self.text.len() as u64)
    }
}

#[cfg(test)]
#[path = "reader_tests.rs"]
mod tests;
