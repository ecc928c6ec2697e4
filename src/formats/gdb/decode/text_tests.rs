//! Unit tests of `text`.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::*;

#[test]
fn hex_numbers() {
    assert_eq!(parse_hex(b"974"), Ok(0x974));
    assert_eq!(parse_hex(b"FFffFFffFFffFFff"), Ok(u64::MAX));
    assert_eq!(parse_hex(b""), Err(HexError::Empty));
    assert_eq!(parse_hex(b"0x1"), Err(HexError::BadDigit(1)));
    assert_eq!(parse_hex(b"10000000000000000"), Err(HexError::Overflow));
    assert_eq!(parse_dec(b"29340"), Some(29340));
    assert_eq!(parse_dec(b"1a"), None);
}

#[test]
fn hex_strings() {
    assert_eq!(decode_hexstr(b"6869").unwrap(), b"hi");
    assert_eq!(decode_hexstr(b""), Ok(vec![]));
    assert_eq!(decode_hexstr(b"414"), Err(HexStrError::Odd));
    assert_eq!(decode_hexstr(b"4z"), Err(HexStrError::BadDigit(1)));
}

#[test]
fn actions() {
    for ok in [
        &b"R40"[..],
        b"R1fffffffffffffffffffffffffffffffffffff",
        b"M-1,404060,20",
        b"M6,10,8",
        b"X0000000F,26000622100222dc16080222040c27",
        b"R40M-1,1,2",
    ] {
        assert_eq!(check_action(ok), Ok(()), "{}", show(ok));
    }
    assert_eq!(check_action(b"R4").unwrap_err().0, 0);
    assert!(check_action(b"M-1,404060").is_err());
    assert!(check_action(b"X0000000F,2600").is_err());
    assert!(check_action(b"X0F,26").is_err());
    assert!(check_action(b"Q").is_err());
    assert!(check_action(b"").is_err());
}

#[test]
fn field_offsets() {
    let f: Vec<(usize, &[u8])> = fields(b"a:bc::d", b':').collect();
    assert_eq!(f, vec![(0, &b"a"[..]), (2, b"bc"), (5, b""), (6, b"d")]);
    let f = fields_n(b"2:401145:R40:x", b':', 3);
    assert_eq!(f[2], (9, &b"R40:x"[..]));
}
