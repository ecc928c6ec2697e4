//! Unit tests of `reader`.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::*;

#[test]
fn reads_keep_absolute_offsets() {
    let data = [1u8, 0, 0, 0, 2, 0, 3, 4, 5];
    let mut r = Reader::new(&data, Endian::Little);
    assert_eq!(r.u32("a").unwrap(), 1);
    let mut s = r.sub(4, "sub").unwrap();
    assert_eq!(s.offset(), 4);
    assert_eq!(s.u16("b").unwrap(), 2);
    let err = s.u32("c").unwrap_err();
    assert_eq!(err.offset, 6);
    assert_eq!(
        err.kind,
        ReadErrorKind::Eof {
            needed: 4,
            available: 2
        }
    );
    assert_eq!(
        err.to_string(),
        "truncated c: need 4 bytes at 0x6, only 2 available"
    );
    assert_eq!(r.offset(), 8);
    let left = r.finish("record").unwrap_err();
    assert_eq!(left.kind, ReadErrorKind::Trailing { left: 1 });
    assert_eq!(left.span(), 8..9);
    assert_eq!(left.to_string(), "1 byte left after the record at 0x8");
}

#[test]
fn big_endian_and_huge_lengths() {
    let data = [0u8, 0, 1, 0];
    let mut r = Reader::new(&data, Endian::Big);
    assert_eq!(r.u32("x").unwrap(), 256);
    let mut r = Reader::new(&data, Endian::Big);
    assert!(r.bytes_u64(u64::MAX, "huge").is_err());
    assert!(r.slice_abs(2..u64::MAX, "huge").is_err());
    assert!(r.seek(5, "past").is_err());
    assert!(r.seek(4, "end").is_ok());
}

#[test]
fn cstr_and_lines() {
    let data = b"ab\0cd\nef";
    let mut r = Reader::new(data, Endian::Little);
    assert_eq!(r.cstr(10, "s").unwrap(), b"ab");
    let l = r.line().unwrap();
    assert_eq!((l.text, l.offset, l.terminated), (&b"cd"[..], 3, true));
    let l = r.line().unwrap();
    assert_eq!((l.text, l.offset, l.terminated), (&b"ef"[..], 6, false));
    assert!(r.line().is_none());
    let mut r = Reader::new(b"abc", Endian::Little);
    assert!(r.cstr(2, "s").is_err());
}

#[test]
fn cstr_tells_a_missing_nul_from_a_cut_string() {
    let mut r = Reader::new(b"abc", Endian::Little);
    let e = r.cstr(2, "s").unwrap_err();
    assert_eq!(e.kind, ReadErrorKind::Unterminated { scanned: 2 });
    assert_eq!(e.span(), 0..2);
    let e = r.cstr(8, "s").unwrap_err();
    assert_eq!(
        e.kind,
        ReadErrorKind::Eof {
            needed: 4,
            available: 3
        }
    );
    // Both read as a truncation.
    assert_eq!(
        r.cstr(3, "s").unwrap_err().to_string(),
        "truncated s: need 4 bytes at 0x0, only 3 available"
    );
}
