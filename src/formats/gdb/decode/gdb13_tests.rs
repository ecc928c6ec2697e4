//! Unit tests of `gdb13`.

#![allow(clippy::unwrap_used)]

use super::*;

#[test]
fn a_byte_where_a_colon_belongs_is_skipped() {
    let a = tp(b"T2:401145:E:0:0").unwrap();
    for bad in [
        &b"T2g401145:E:0:0"[..],
        b"T2:401145:E)0:0",
        b"T2:401145:E:0g0",
    ] {
        assert_eq!(tp(bad).unwrap(), a, "{}", String::from_utf8_lossy(bad));
    }
    let d = tp(b"T2:401145:g:0:0").unwrap().def.unwrap();
    assert!(!d.enabled);
}

#[test]
fn a_condition_is_kept_as_text_and_may_not_run_past_the_line() {
    let d = tp(b"T2:401145:E:0:2:X2,zzzz:F5").unwrap().def.unwrap();
    assert_eq!((d.cond_len, d.fast), (Some(2), Some(5)));
    assert!(tp(b"T2:401145:E:0:2:X3,0000").is_err());
}

#[test]
fn status_keys_are_prefixes_and_separators_any_byte() {
    let a = status(b"0;tstop::0;tframes:5;tcreated:5").unwrap();
    assert_eq!(status(b"0;tstop::0;tframes:5ztcreated:5").unwrap(), a);
    assert_eq!(status(b"0Ntstop::0;tframes:5;tcreated:5").unwrap(), a);
    // An unknown key is skipped.
    assert_eq!(
        status(b"0;tstop::0;tframes:5;tcreated:5;xnotes:").unwrap(),
        a
    );
    assert!(status(b"0;tstop::0;tframes").is_err());
    assert!(status(b"0;tstop:zz:0").is_err());
}

#[test]
fn tsv_names_are_hex() {
    let t = tsv(b"1g0:1:74726163").unwrap();
    assert_eq!((t.num, t.name.as_slice()), (1, &b"trac"[..]));
    assert!(tsv(b"1:0:1:7g").is_err());
}
