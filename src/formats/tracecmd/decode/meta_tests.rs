//! Unit tests of `meta`.

#![allow(clippy::unwrap_used)]

use super::*;

#[test]
fn field_lines() {
    let f = parse_field_line("\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;")
        .unwrap();
    assert_eq!(
        (f.name.as_str(), f.offset, f.size, f.signed),
        ("common_type", 0, 2, Some(false))
    );
    let f =
        parse_field_line("\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;").unwrap();
    assert_eq!(f.name, "prev_comm");
    let f =
        parse_field_line("\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;").unwrap();
    assert_eq!(f.name, "name");
    assert!(parse_field_line("\tfield:int x;\toffset:a;\tsize:4;").is_err());
    assert!(parse_field_line("\tfield:int x;\tsize:4;").is_err());
    // A byte libtraceevent's tokenizer reads as no token: a control byte or one from 0x80 (the
    // text is read lossily, so a byte that is not UTF-8 is U+FFFD here).
    for bad in [
        "unsi\u{fffd}ned short",
        "unsigned\x01short",
        "unsigned \u{e9}short",
    ] {
        let line = format!("\tfield:{bad} common_type;\toffset:0;\tsize:2;\tsigned:0;");
        let why = parse_field_line(&line).err().unwrap();
        assert!(why.contains("no token"), "{why}");
    }
    assert!(parse_field_line("\tfield:unsigned\tshort common_type;\toffset:0;\tsize:2;").is_ok());
}

#[test]
fn text_lines() {
    assert!(kallsyms_line(b"ffffffff81000000 T _stext").is_ok());
    assert!(kallsyms_line(b"ffffffffc0203000 t ftrace_trampoline\t[__builtin__ftrace]").is_ok());
    assert!(kallsyms_line(b"zz T x").is_err());
    assert!(printk_line(b"0xffffffff82818cca : \"thaw_processes\"").is_ok());
    assert!(printk_line(b"ffff : \"x\"").is_err());
    assert!(cmdline_line(b"7453 cc1").is_ok());
    assert!(cmdline_line(b"x cc1").is_err());
}

/// The parallel check of a clean text section counts the lines the line-by-line walk does, and
/// gives way to it (`None`) on any line that does not pass, wherever the pieces are cut.
#[test]
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
fn clean_lines_agrees_with_the_line_walk() {
    let walk = |t: &[u8]| {
        let mut r = Reader::new(t, crate::reader::Endian::Little);
        let mut n = 0u64;
        let mut ok = true;
        while let Some(l) = r.line() {
            n += 1;
            if (l.terminated || !l.text.is_empty()) && kallsyms_line(l.text).is_err() {
                ok = false;
            }
        }
        ok.then_some(n)
    };
    let line = b"ffffffff81000000 T _stext\n";
    let mut big = Vec::new();
    while big.len() < 3 << 20 {
        big.extend_from_slice(line);
    }
    let mut cut = big.clone();
    cut.pop();
    let mut bad_far = big.clone();
    let at = big.len() - 5 * line.len();
    bad_far[at] = b'z';
    let mut empty_mid = big.clone();
    empty_mid.insert(2 << 20, b'\n');
    for t in [
        &b""[..],
        line,
        &line[..line.len() - 1],
        b"x T a\n",
        b"ffff T a\n\nffff T b\n",
        &big,
        &cut,
        &bad_far,
        &empty_mid,
    ] {
        assert_eq!(
            clean_lines(t, kallsyms_line, 4096),
            walk(t),
            "{} bytes",
            t.len()
        );
    }
    assert_eq!(
        clean_lines(&big, kallsyms_line, 8),
        None,
        "a line past max_line"
    );
}
