//! Unit tests of `argspec`.

#![allow(clippy::unwrap_used)]

use super::*;

#[test]
fn items() {
    let i = parse_item("arg1/s", 8).unwrap().unwrap();
    assert!(i.string);
    let i = parse_item("fparg2/32", 8).unwrap().unwrap();
    assert_eq!((i.kind, i.size), (ItemKind::FpArg, 4));
    let i = parse_item("fparg1/80", 8).unwrap().unwrap();
    assert_eq!(align4(i.size), 12);
    let i = parse_item("arg3/d32", 8).unwrap().unwrap();
    assert_eq!(i.size, 4);
    let i = parse_item("arg3/e:uft_mmap_prot", 8).unwrap().unwrap();
    assert_eq!(i.size, 8);
    let i = parse_item("retval/f64", 8).unwrap().unwrap();
    assert_eq!((i.kind, i.size), (ItemKind::Ret, 8));
    let i = parse_item("arg2/t16:foo%RDI+RSI", 8).unwrap().unwrap();
    assert_eq!(i.size, 16);
    assert!(parse_item("filter", 8).is_none());
    assert!(parse_item("arg1/q", 8).unwrap().is_err());
    // Empty structs, strings with a size, and a bare `/64` (ignored by uftrace).
    let i = parse_item("arg1/t0:Empty%stack+1", 8).unwrap().unwrap();
    assert_eq!(fixed_len(&i), 0);
    let i = parse_item("retval/t0:random_access_iterator_tag", 8)
        .unwrap()
        .unwrap();
    assert_eq!((i.kind, i.size), (ItemKind::Ret, 0));
    assert!(parse_item("arg2/s32", 8).unwrap().unwrap().string);
    assert!(parse_item("arg1/64", 8).unwrap().is_err());
}

#[test]
fn simple_names() {
    assert_eq!(simple_name("_ZdlPv"), "operator delete");
    assert_eq!(simple_name("_ZdlPvm"), "operator delete");
    assert_eq!(simple_name("_ZnwmRKSt9nothrow_t"), "operator new");
    assert_eq!(simple_name("_ZdaPv"), "operator delete[]");
    assert_eq!(simple_name("_Z6strlenPKc"), "strlen");
    assert_eq!(simple_name("_ZL3fooi"), "foo");
    assert_eq!(
        simple_name("_ZNSt6vectorIiE9push_backEOi"),
        "_ZNSt6vectorIiE9push_backEOi"
    );
    assert_eq!(simple_name("_Z99x"), "_Z99x");
    assert_eq!(simple_name("malloc"), "malloc");
}

#[test]
fn patterns() {
    assert_eq!(matches("main", "main", PatternType::Regex), Match::Exact);
    // `-` makes a regex for uftrace (REGEX_CHARS): unanchored, so it matches inside.
    assert_eq!(matches("a-b", "xa-by", PatternType::Regex), Match::Pattern);
    assert_eq!(
        matches("ma.n", "xmainy", PatternType::Regex),
        Match::Pattern
    );
    assert_eq!(
        matches("^ma.*n$", "main", PatternType::Regex),
        Match::Pattern
    );
    assert_eq!(matches("^a$", "ba", PatternType::Regex), Match::No);
    assert_eq!(matches("f*", "fib", PatternType::Glob), Match::Pattern);
    assert_eq!(matches("f[a-c]?", "fbx", PatternType::Glob), Match::Pattern);
    assert_eq!(
        matches("(a|b)", "a", PatternType::Regex),
        Match::Unsupported
    );
    assert_eq!(
        matches("*_start", "_dl_start", PatternType::Glob),
        Match::Pattern
    );
    assert_eq!(matches("f*b*", "fxbx", PatternType::Glob), Match::Pattern);
    assert_eq!(matches("f*b", "fxbx", PatternType::Glob), Match::No);
    assert_eq!(matches("[!a]x", "bx", PatternType::Glob), Match::Pattern);
    assert_eq!(
        matches("a.*b", "xaxxbx", PatternType::Regex),
        Match::Pattern
    );
    // Hostile patterns finish quickly.
    let name = "a".repeat(200);
    let t = std::time::Instant::now();
    let long_b = format!("{name}b");
    assert_eq!(
        matches(&"*a".repeat(40), &long_b, PatternType::Glob),
        Match::No
    );
    assert_eq!(
        matches(&format!("{}c", "a*".repeat(30)), &name, PatternType::Regex),
        Match::No
    );
    assert_eq!(
        matches(&format!("{}c", ".*".repeat(30)), &name, PatternType::Regex),
        Match::No
    );
    assert!(t.elapsed().as_secs() < 2);
}
