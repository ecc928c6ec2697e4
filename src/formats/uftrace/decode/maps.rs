//! `sid-<SID>.map`: the modules mapped in one session.

use super::super::rules;
use super::text::{self, parse_hex, parse_u64, show, sub_span};
use crate::finding::Sink;
use crate::limits::Limits;
use std::ops::Range;

/// One module line.
#[derive(Clone, Debug)]
pub struct Module {
    /// First mapped address.
    pub start: u64,
    /// One past the last mapped address.
    pub end: u64,
    /// Path.
    pub path: String,
    /// Build-id suffix, if any.
    pub build_id: Option<String>,
    /// Span of the line.
    pub span: Range<u64>,
}

/// A decoded session map.
#[derive(Clone, Debug, Default)]
pub struct SessionMap {
    /// File-backed modules, sorted by start.
    pub modules: Vec<Module>,
    /// `[stack]` lines seen.
    pub stack_lines: u32,
}

/// Decodes one map file.
pub fn decode(data: &[u8], limits: &Limits, sink: &mut Sink) -> SessionMap {
    let mut m = SessionMap::default();
    let mut prev_end: Option<(u64, Range<u64>)> = None;
    for line in text::lines(data) {
        if m.modules.len() as u64 >= limits.max_entries {
            sink.limit(
                line.span(),
                "map line count",
                m.modules.len() as u64,
                "max_entries",
                limits.max_entries,
            );
            break;
        }
        let toks: Vec<&[u8]> = line
            .text
            .split(|&c| c == b' ')
            .filter(|t| !t.is_empty())
            .collect();
        let expected = "START-END PROT OFFSET MAJ:MIN INODE PATH [build-id:<40 hex>]";
        // uftrace's own reading of the line: a line it skips as well is lost to both alike,
        // and a record its range would have mapped is reported on its own (UF067).
        let uftrace_skips = uftrace_conversions(line.text) < 4;
        let bad = |sink: &mut Sink, what: String| {
            if uftrace_skips {
                let f = sink
                    .make(
                        &rules::MAP_LINE_MALFORMED,
                        line.span(),
                        format!(
                            "map line `{}`: {what}; expected `{expected}`; uftrace 0.9.4–0.18.1 skip the line as well, so it maps no address for either (a record it would have mapped is reported on its own)",
                            show(line.text)
                        ),
                    )
                    .level(crate::finding::Severity::Warning)
                    .read_same("uftrace", "0.9.4–0.18.1");
                sink.push(f);
            } else {
                sink.report(
                    &rules::MAP_LINE_MALFORMED,
                    line.span(),
                    format!(
                        "map line `{}`: {what}; expected `{expected}`",
                        show(line.text)
                    ),
                );
            }
        };
        // A departure from the layout that uftrace's sscanf reads all the same.
        let read_same = |sink: &mut Sink, what: String| {
            let f = sink
                .make(
                    &rules::MAP_LINE_MALFORMED,
                    line.span(),
                    format!("map line `{}`: {what}", show(line.text)),
                )
                .read_same("uftrace", "0.9.4–0.18.1");
            sink.push(f);
        };
        if !line.terminated {
            bad(sink, "no terminating newline".into());
        }
        let (Some(range), Some(prot), Some(off), Some(dev), Some(inode)) = (
            toks.first(),
            toks.get(1),
            toks.get(2),
            toks.get(3),
            toks.get(4),
        ) else {
            bad(sink, format!("{} fields", toks.len()));
            continue;
        };
        // uftrace reads the protection and the build-id word with unbounded `%s` into
        // `char prot[5]` and `char build_id[51]`: longer words overflow the stack buffers, and
        // Debian's uftrace 0.13 (built with the stack protector) aborts (campaign).
        for (i, cap, what) in [(1usize, 4usize, "protection"), (6, 50, "build-id word")] {
            if let Some(w) = toks.get(i).filter(|w| w.len() > cap) {
                let f = sink
                    .make(
                        &rules::MAP_LINE_MALFORMED,
                        sub_span(&line, w),
                        format!(
                            "{what} `{}` is {} bytes long: uftrace reads it into a {}-byte stack buffer, which overflows (uftrace 0.13 aborts with a stack-smashing error)",
                            show(w),
                            w.len(),
                            cap.saturating_add(1)
                        ),
                    )
                    .fails("uftrace", "0.13", "crash");
                sink.push(f);
            }
        }
        let mut parts = range.splitn(2, |&c| c == b'-');
        let start = parts.next().and_then(parse_hex);
        let end = parts.next().and_then(parse_hex);
        let (Some(start), Some(end)) = (start, end) else {
            bad(sink, "the address range is not `<hex>-<hex>`".into());
            continue;
        };
        if start >= end {
            // uftrace reads the line with sscanf all the same; for `[stack]` (and the other
            // `[...]` lines) it only takes the address as the kernel boundary, so an empty
            // range there reads the same (third-party writers write a zero-length `[stack]` at
            // the top of the address space).
            let special = toks.get(5).is_some_and(|p| p.starts_with(b"["));
            if special {
                read_same(
                    sink,
                    format!("range start 0x{start:x} is not below end 0x{end:x}; uftrace 0.9.4–0.18.1 only take the address of a `[...]` line as the kernel boundary and read the same"),
                );
            } else {
                bad(
                    sink,
                    format!("range start 0x{start:x} is not below end 0x{end:x}; uftrace 0.9.4–0.18.1 resolve no address in it"),
                );
                continue;
            }
        }
        let prot_ok = prot.len() == 4
            && matches!(prot.first(), Some(b'r' | b'-'))
            && matches!(prot.get(1), Some(b'w' | b'-'))
            && matches!(prot.get(2), Some(b'x' | b'-'))
            && matches!(prot.get(3), Some(b'p' | b's'));
        if !prot_ok {
            if prot.len() <= 4 {
                // uftrace copies the word into `prot` and never looks at it again.
                let f = sink
                    .make(
                        &rules::MAP_LINE_MALFORMED,
                        sub_span(&line, prot),
                        format!("protection `{}` is not `[r-][w-][x-][ps]`; uftrace 0.9.4–0.18.1 copy it and never use it, and read the line the same", show(prot)),
                    )
                    .read_same("uftrace", "0.9.4–0.18.1");
                sink.push(f);
            } else {
                sink.report(
                    &rules::MAP_LINE_MALFORMED,
                    sub_span(&line, prot),
                    format!("protection `{}` is not `[r-][w-][x-][ps]`", show(prot)),
                );
                continue;
            }
        }
        let dev_ok = {
            let mut d = dev.splitn(2, |&c| c == b':');
            d.next().and_then(parse_hex).is_some() && d.next().and_then(parse_hex).is_some()
        };
        if parse_hex(off).is_none() || !dev_ok || parse_u64(inode).is_none() {
            // uftrace skips these fields with `%*x %*x:%*x %*d`: digits of any length read the
            // same (the values are never used); other characters end its sscanf and lose the line.
            let hexish = |t: &[u8]| !t.is_empty() && t.iter().all(u8::is_ascii_hexdigit);
            let mut parts = dev.split(|&c| c == b':');
            let dev_read = matches!(
                (parts.next(), parts.next(), parts.next()),
                (Some(a), Some(b), None) if hexish(a) && hexish(b)
            );
            if hexish(off) && dev_read && !inode.is_empty() && inode.iter().all(u8::is_ascii_digit)
            {
                read_same(
                    sink,
                    "offset, device or inode does not parse as a value; uftrace 0.9.4–0.18.1 skip these fields and read the line the same".into(),
                );
            } else {
                bad(
                    sink,
                    "offset, device or inode does not parse; uftrace 0.9.4–0.18.1 skip the line"
                        .into(),
                );
                continue;
            }
        }
        let Some(first_path) = toks.get(5) else {
            // anonymous mapping: uftrace skips it
            continue;
        };
        // The path is the rest of the line (it may hold spaces), less a last ` build-id:` word.
        let rel = usize::try_from(
            sub_span(&line, first_path)
                .start
                .saturating_sub(line.offset),
        )
        .unwrap_or(usize::MAX);
        let tail = line.text.get(rel..).unwrap_or(first_path);
        let tail = tail.strip_suffix(b"\r").unwrap_or(tail);
        let (path, bid) = match tail.iter().rposition(|&c| c == b' ') {
            Some(sp)
                if tail
                    .get(sp.saturating_add(1)..)
                    .is_some_and(|w| w.starts_with(b"build-id:")) =>
            {
                (
                    tail.get(..sp).unwrap_or(tail),
                    tail.get(sp.saturating_add(1)..),
                )
            }
            _ => (tail, None),
        };
        let path = path.strip_suffix(b" ").map_or(path, |p| {
            let n = p.iter().rev().take_while(|&&c| c == b' ').count();
            p.get(..p.len().saturating_sub(n)).unwrap_or(p)
        });
        if path.starts_with(b"[") {
            // [stack], [heap], [vdso], ...: uftrace skips them ([stack] sets the kernel base).
            if path.starts_with(b"[stack") {
                m.stack_lines = m.stack_lines.saturating_add(1);
                if m.stack_lines > 1 {
                    sink.report(
                        &rules::MAP_NO_STACK,
                        line.span(),
                        "a second `[stack]` line: uftrace derives the kernel address boundary from it",
                    );
                }
            }
            continue;
        }
        if path.contains(&b' ') {
            let word = path.split(|&c| c == b' ').next().unwrap_or(path);
            sink.report(
                &rules::MAP_PATH_WITH_SPACES,
                sub_span(&line, path),
                format!(
                    "module path `{}` contains a space: uftrace reads it as `{}` and looks its symbols up in `{}.sym`",
                    show(path),
                    show(word),
                    basename(&String::from_utf8_lossy(word))
                ),
            );
        }
        let mut build_id = None;
        if let Some(b) = bid {
            match b.strip_prefix(b"build-id:") {
                Some(h) if (1..=40).contains(&h.len()) && h.iter().all(u8::is_ascii_hexdigit) => {
                    build_id = Some(String::from_utf8_lossy(h).into_owned());
                }
                // 41 to 50 characters still fit the word's stack buffer, but not the 41-byte
                // build-id of the map entry: Debian's uftrace 0.13 (fortified) aborts with
                // "buffer overflow detected" when it takes the map, whatever the trace enters
                // (campaign); longer words are reported above.
                Some(h) if h.len() > 40 && b.len() <= 50 => {
                    let f = sink
                        .make(
                            &rules::MAP_LINE_MALFORMED,
                            sub_span(&line, b),
                            format!("`{}` has {} characters after `build-id:`, more than the 40 of a build-id: uftrace copies them into a 41-byte field, and uftrace 0.13 aborts (\"buffer overflow detected\")", show(b), h.len()),
                        )
                        .fails("uftrace", "0.13", "crash");
                    sink.push(f);
                }
                _ => {
                    sink.report(
                        &rules::MAP_LINE_MALFORMED,
                        sub_span(&line, b),
                        format!("`{}` is not `build-id:<up to 40 hex digits>`", show(b)),
                    );
                }
            }
        }
        if let Some((pe, ref pspan)) = prev_end {
            if start < pe {
                let f = sink
                    .make(
                        &rules::MAP_OVERLAP,
                        line.span(),
                        format!("module 0x{start:x}-0x{end:x} starts below the end 0x{pe:x} of the line before"),
                    )
                    .note(format!("previous line at offset {}", pspan.start));
                sink.push(f);
            }
        }
        prev_end = Some((end, line.span()));
        m.modules.push(Module {
            start,
            end,
            path: String::from_utf8_lossy(path).into_owned(),
            build_id,
            span: line.span(),
        });
    }
    // Merge consecutive lines of the same path as uftrace does, keep sorted for lookup.
    let mut merged: Vec<Module> = Vec::with_capacity(m.modules.len());
    for md in m.modules.drain(..) {
        match merged.last_mut() {
            Some(last) if last.path == md.path && md.start >= last.start => {
                last.end = last.end.max(md.end);
            }
            _ => merged.push(md),
        }
    }
    merged.sort_by_key(|md| md.start);
    m.modules = merged;
    m
}

/// How many values uftrace's `sscanf(buf, "%lx-%lx %s %*x %*x:%*x %*d %s %s", ...)`
/// (utils/session.c `read_session_map`, 0.9.4–0.18.1) assigns for `line`; it takes a line
/// with 4 or more (address range, protection, path).
pub fn uftrace_conversions(line: &[u8]) -> u32 {
    struct Scan<'a> {
        b: &'a [u8],
        i: usize,
    }
    impl Scan<'_> {
        fn ws(&mut self) {
            while self.b.get(self.i).is_some_and(u8::is_ascii_whitespace) {
                self.i = self.i.saturating_add(1);
            }
        }
        fn lit(&mut self, c: u8) -> bool {
            let ok = self.b.get(self.i) == Some(&c);
            if ok {
                self.i = self.i.saturating_add(1);
            }
            ok
        }
        /// `%x`/`%d`: blanks, a sign, (hex: `0x`), then at least one digit.
        fn num(&mut self, hex: bool) -> bool {
            self.ws();
            if matches!(self.b.get(self.i), Some(b'+' | b'-')) {
                self.i = self.i.saturating_add(1);
            }
            let digit = |c: &u8| {
                if hex {
                    c.is_ascii_hexdigit()
                } else {
                    c.is_ascii_digit()
                }
            };
            if hex
                && self.b.get(self.i) == Some(&b'0')
                && matches!(self.b.get(self.i.saturating_add(1)), Some(b'x' | b'X'))
                && self.b.get(self.i.saturating_add(2)).is_some_and(digit)
            {
                self.i = self.i.saturating_add(2);
            }
            let from = self.i;
            while self.b.get(self.i).is_some_and(digit) {
                self.i = self.i.saturating_add(1);
            }
            self.i > from
        }
        fn word(&mut self) -> bool {
            self.ws();
            let from = self.i;
            while self.b.get(self.i).is_some_and(|c| !c.is_ascii_whitespace()) {
                self.i = self.i.saturating_add(1);
            }
            self.i > from
        }
    }
    let mut s = Scan { b: line, i: 0 };
    if !s.num(true) {
        return 0;
    }
    if !s.lit(b'-') || !s.num(true) {
        return 1;
    }
    if !s.word() {
        return 2;
    }
    let skipped = s.num(true) && s.num(true) && s.lit(b':') && s.num(true) && s.num(false);
    if !skipped || !s.word() {
        return 3;
    }
    if !s.word() {
        return 4;
    }
    5
}

impl SessionMap {
    /// The module containing `addr`.
    pub fn find(&self, addr: u64) -> Option<(usize, &Module)> {
        let i = self.modules.partition_point(|m| m.start <= addr);
        let i = i.checked_sub(1)?;
        let m = self.modules.get(i)?;
        (addr < m.end).then_some((i, m))
    }
}

/// The basename of a path.
pub fn basename(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

/// The module path the map line at `offset` of `data` names: its sixth field on, less a last
/// `build-id:` word (`None` for a line with fewer fields).
pub fn named_module(data: &[u8], offset: u64) -> Option<String> {
    let at = usize::try_from(offset).ok()?;
    // Findings on a field point inside the line: read it from its start.
    let start = data
        .get(..at)?
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |p| p.saturating_add(1));
    let rest = data.get(start..)?;
    let line = rest.split(|&c| c == b'\n').next()?;
    let words: Vec<&[u8]> = line
        .split(|&c| c == b' ')
        .filter(|w| !w.is_empty())
        .skip(5)
        .filter(|w| !w.starts_with(b"build-id:"))
        .collect();
    if words.is_empty() {
        return None;
    }
    Some(String::from_utf8_lossy(&words.join(&b' ')).into_owned())
}

/// A malformed-line finding (`UF040`) whose level depends on whether the trace enters the
/// module the line names (no level decided by the case yet).
pub fn leveled_by_entry(f: &crate::finding::Finding) -> bool {
    f.rule.code == rules::MAP_LINE_MALFORMED.code
        && f.severity == crate::finding::Severity::Error
        && f.impact.is_none()
}
