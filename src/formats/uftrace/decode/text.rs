//! Small helpers for the text files of a recording: line iteration with absolute offsets and
//! a tiny `scanf`-like matcher for the fixed line layouts uftrace writes.

use crate::reader::{Endian, Line, Reader};
use std::ops::Range;

/// All lines of `data` (offsets absolute in the file).
pub fn lines(data: &[u8]) -> impl Iterator<Item = Line<'_>> {
    let mut r = Reader::new(data, Endian::Little);
    std::iter::from_fn(move || r.line())
}

/// The span of `part`, a sub-slice of `line.text`, in the file.
pub fn sub_span(line: &Line<'_>, part: &[u8]) -> Range<u64> {
    let base = line.text.as_ptr() as usize;
    let p = part.as_ptr() as usize;
    let rel = p.saturating_sub(base) as u64;
    let start = line.offset.saturating_add(rel);
    start..start.saturating_add(part.len() as u64)
}

/// Lossy display of a line (shortened for messages).
pub fn show(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b.get(..b.len().min(80)).unwrap_or(b)).into_owned();
    if b.len() > 80 {
        format!("{s}…")
    } else {
        s
    }
}

/// Parses decimal digits only (no sign, at least one digit), without overflow.
pub fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in s {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v
            .checked_mul(10)?
            .checked_add(u64::from(c.wrapping_sub(b'0')))?;
    }
    Some(v)
}

/// Parses lowercase or uppercase hex digits (at least one, at most 16).
pub fn parse_hex(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 16 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in s {
        let d = (c as char).to_digit(16)?;
        v = v.checked_mul(16)?.checked_add(u64::from(d))?;
    }
    Some(v)
}

/// True when `s` is exactly `n` lowercase hex digits.
pub fn is_lower_hex(s: &[u8], n: usize) -> bool {
    s.len() == n
        && s.iter()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
}

/// Parses a `sec.nsec` timestamp with exactly 9 nanosecond digits, as nanoseconds.
pub fn parse_ts(s: &[u8]) -> Option<u64> {
    let dot = s.iter().position(|&c| c == b'.')?;
    let sec = parse_u64(s.get(..dot)?)?;
    let ns = s.get(dot.checked_add(1)?..)?;
    if ns.len() != 9 {
        return None;
    }
    let ns = parse_u64(ns)?;
    sec.checked_mul(1_000_000_000)?.checked_add(ns)
}

/// A timestamp as uftrace's `%lu.%lu` reads it: seconds, a dot, and a fraction of any length
/// taken as a count of nanoseconds (`0.5` is 0 s + 5 ns).
pub fn parse_ts_scanf(s: &[u8]) -> Option<u64> {
    let dot = s.iter().position(|&c| c == b'.')?;
    let sec = parse_u64(s.get(..dot)?)?;
    let ns = parse_u64(s.get(dot.checked_add(1)?..)?)?;
    sec.checked_mul(1_000_000_000)?.checked_add(ns)
}

/// Matches `s` against a format: literal bytes, and conversions
/// `%u` (unsigned decimal), `%i` (optionally signed decimal), `%f` (decimal with a fraction),
/// `%x` (hex), `%w` (a word without spaces, non-empty), `%*` (the rest, possibly empty).
pub fn scan(s: &[u8], fmt: &str) -> bool {
    let f = fmt.as_bytes();
    let (mut i, mut j) = (0usize, 0usize);
    while let Some(&fc) = f.get(j) {
        if fc == b'%' {
            let conv = f.get(j.saturating_add(1)).copied().unwrap_or(0);
            j = j.saturating_add(2);
            let rest = s.get(i..).unwrap_or(&[]);
            let n = match conv {
                b'u' => rest.iter().take_while(|c| c.is_ascii_digit()).count(),
                b'i' => {
                    let sign = usize::from(matches!(rest.first(), Some(b'-') | Some(b'+')));
                    let d = rest
                        .get(sign..)
                        .unwrap_or(&[])
                        .iter()
                        .take_while(|c| c.is_ascii_digit())
                        .count();
                    if d == 0 {
                        0
                    } else {
                        sign.saturating_add(d)
                    }
                }
                b'f' => {
                    let a = rest.iter().take_while(|c| c.is_ascii_digit()).count();
                    if a == 0 || rest.get(a) != Some(&b'.') {
                        0
                    } else {
                        let b = rest
                            .get(a.saturating_add(1)..)
                            .unwrap_or(&[])
                            .iter()
                            .take_while(|c| c.is_ascii_digit())
                            .count();
                        if b == 0 {
                            0
                        } else {
                            a.saturating_add(1).saturating_add(b)
                        }
                    }
                }
                b'x' => rest.iter().take_while(|c| c.is_ascii_hexdigit()).count(),
                b'w' => rest.iter().take_while(|&&c| c != b' ').count(),
                b'*' => return true,
                _ => return false,
            };
            if n == 0 {
                return false;
            }
            i = i.saturating_add(n);
        } else {
            if s.get(i) != Some(&fc) {
                return false;
            }
            i = i.saturating_add(1);
            j = j.saturating_add(1);
        }
    }
    i == s.len()
}

/// Splits on single spaces.
pub fn fields(s: &[u8]) -> impl Iterator<Item = &[u8]> {
    s.split(|&c| c == b' ')
}

/// The value of `key=` in `field`, if the field starts with it.
pub fn kv<'a>(field: &'a [u8], key: &str) -> Option<&'a [u8]> {
    field.strip_prefix(key.as_bytes())?.strip_prefix(b"=")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn scan_formats() {
        assert!(scan(
            b"cpuinfo:nr_cpus=2 / 2 (online/possible)",
            "cpuinfo:nr_cpus=%u / %u (online/possible)"
        ));
        assert!(scan(
            b"loadinfo:0.58 / 1.04 / 0.55",
            "loadinfo:%f / %f / %f"
        ));
        assert!(!scan(b"loadinfo:0.58 / 1.04 /", "loadinfo:%f / %f / %f"));
        assert!(scan(b"exit_status:-1", "exit_status:%i"));
        assert!(!scan(b"exit_status:", "exit_status:%i"));
        assert!(scan(b"x:anything at all", "x:%*"));
        assert_eq!(parse_ts(b"461.355590829"), Some(461_355_590_829));
        assert_eq!(parse_ts(b"1.5"), None);
        assert_eq!(parse_hex(b"ffffffffffffffff"), Some(u64::MAX));
        assert_eq!(parse_hex(b"1ffffffffffffffff"), None);
    }
}
