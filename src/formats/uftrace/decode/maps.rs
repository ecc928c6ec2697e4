//! `sid-<SID>.map`: the modules mapped in one session.

use super::super::rules;
use super::text::{self, parse_hex, parse_u64, show, sub_span};
use crate::finding::Sink;
use crate::limits::Limits;
use crate::reader::Line;
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
        let Some(md) = module_line(&line, &mut m, sink) else {
            continue;
        };
        if let Some((pe, ref pspan)) = prev_end {
            if md.start < pe {
                let f = sink
                    .make(
                        &rules::MAP_OVERLAP,
                        line.span(),
                        format!(
                            "module 0x{:x}-0x{:x} starts below the end 0x{pe:x} of the line before",
                            md.start, md.end
                        ),
                    )
                    .note(format!("previous line at offset {}", pspan.start));
                sink.push(f);
            }
        }
        prev_end = Some((md.end, line.span()));
        m.modules.push(md);
    }
    m.modules = merged(std::mem::take(&mut m.modules));
    m
}

/// Merges consecutive lines of the same path as uftrace does, sorted for lookup.
fn merged(modules: Vec<Module>) -> Vec<Module> {
    let mut merged: Vec<Module> = Vec::with_capacity(modules.len());
    for md in modules {
        match merged.last_mut() {
            Some(last) if last.path == md.path && md.start >= last.start => {
                last.end = last.end.max(md.end);
            }
            _ => merged.push(md),
        }
    }
    merged.sort_by_key(|md| md.start);
    merged
}

const EXPECTED: &str = "START-END PROT OFFSET MAJ:MIN INODE PATH [build-id:<40 hex>]";

/// A map line being read, with how uftrace reads it.
struct MapLine<'l, 'a> {
    line: &'l Line<'a>,
    /// uftrace's own reading of the line: a line it skips as well is lost to both alike,
    /// and a record its range would have mapped is reported on its own (UF067).
    uftrace_skips: bool,
}

impl MapLine<'_, '_> {
    /// A malformed line.
    fn bad(&self, sink: &mut Sink, what: String) {
        let line = self.line;
        if self.uftrace_skips {
            let f = sink
                .make(
                    &rules::MAP_LINE_MALFORMED,
                    line.span(),
                    format!(
                        "map line `{}`: {what}; expected `{EXPECTED}`; uftrace 0.9.4–0.18.1 skip the line as well, so it maps no address for either (a record it would have mapped is reported on its own)",
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
                    "map line `{}`: {what}; expected `{EXPECTED}`",
                    show(line.text)
                ),
            );
        }
    }

    /// A departure from the layout that uftrace's sscanf reads all the same.
    fn read_same(&self, sink: &mut Sink, what: String) {
        let f = sink
            .make(
                &rules::MAP_LINE_MALFORMED,
                self.line.span(),
                format!("map line `{}`: {what}", show(self.line.text)),
            )
            .read_same("uftrace", "0.9.4–0.18.1");
        sink.push(f);
    }
}

/// One line of a map file: the module it maps, if any (`[stack]` lines are counted in `m`).
fn module_line(line: &Line<'_>, m: &mut SessionMap, sink: &mut Sink) -> Option<Module> {
    let toks: Vec<&[u8]> = line
        .text
        .split(|&c| c == b' ')
        .filter(|t| !t.is_empty())
        .collect();
    let ml = MapLine {
        line,
        uftrace_skips: uftrace_conversions(line.text) < 4,
    };
    if !line.terminated {
        ml.bad(sink, "no terminating newline".into());
    }
    let (Some(range), Some(prot), Some(off), Some(dev), Some(inode)) = (
        toks.first(),
        toks.get(1),
        toks.get(2),
        toks.get(3),
        toks.get(4),
    ) else {
        ml.bad(sink, format!("{} fields", toks.len()));
        return None;
    };
    word_lengths(line, &toks, sink);
    let special = toks.get(5).is_some_and(|p| p.starts_with(b"["));
    let (start, end) = address_range(&ml, range, special, sink)?;
    if !protection(&ml, prot, sink) || !skipped_fields(&ml, off, dev, inode, sink) {
        return None;
    }
    // No path: an anonymous mapping, which uftrace skips.
    let first_path = toks.get(5)?;
    let (path, bid) = path_and_build_id(line, first_path);
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
        return None;
    }
    if path.contains(&b' ') {
        let word = path.split(|&c| c == b' ').next().unwrap_or(path);
        sink.report(
            &rules::MAP_PATH_WITH_SPACES,
            sub_span(line, path),
            format!(
                "module path `{}` contains a space: uftrace reads it as `{}` and looks its symbols up in `{}.sym`",
                show(path),
                show(word),
                basename(&String::from_utf8_lossy(word))
            ),
        );
    }
    let build_id = bid.and_then(|b| build_id(line, b, sink));
    Some(Module {
        start,
        end,
        path: String::from_utf8_lossy(path).into_owned(),
        build_id,
        span: line.span(),
    })
}

/// uftrace reads the protection and the build-id word with unbounded `%s` into
/// `char prot[5]` and `char build_id[51]`: longer words overflow the stack buffers, and
/// Debian's uftrace 0.13 (built with the stack protector) aborts (campaign).
fn word_lengths(line: &Line<'_>, toks: &[&[u8]], sink: &mut Sink) {
    for (i, cap, what) in [(1usize, 4usize, "protection"), (6, 50, "build-id word")] {
        if let Some(w) = toks.get(i).filter(|w| w.len() > cap) {
            let f = sink
                .make(
                    &rules::MAP_LINE_MALFORMED,
                    sub_span(line, w),
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
}

/// The `<hex>-<hex>` address range of a line (`special`: a `[...]` line), if uftrace maps
/// addresses with it.
fn address_range(
    ml: &MapLine<'_, '_>,
    range: &[u8],
    special: bool,
    sink: &mut Sink,
) -> Option<(u64, u64)> {
    let mut parts = range.splitn(2, |&c| c == b'-');
    let start = parts.next().and_then(parse_hex);
    let end = parts.next().and_then(parse_hex);
    let (Some(start), Some(end)) = (start, end) else {
        ml.bad(sink, "the address range is not `<hex>-<hex>`".into());
        return None;
    };
    if start >= end {
        // uftrace reads the line with sscanf all the same; for `[stack]` (and the other
        // `[...]` lines) it only takes the address as the kernel boundary, so an empty
        // range there reads the same (third-party writers write a zero-length `[stack]` at
        // the top of the address space).
        if special {
            ml.read_same(
                sink,
                format!("range start 0x{start:x} is not below end 0x{end:x}; uftrace 0.9.4–0.18.1 only take the address of a `[...]` line as the kernel boundary and read the same"),
            );
        } else {
            ml.bad(
                sink,
                format!("range start 0x{start:x} is not below end 0x{end:x}; uftrace 0.9.4–0.18.1 resolve no address in it"),
            );
            return None;
        }
    }
    Some((start, end))
}

/// The protection word; false when the line is lost to it.
fn protection(ml: &MapLine<'_, '_>, prot: &[u8], sink: &mut Sink) -> bool {
    let prot_ok = prot.len() == 4
        && matches!(prot.first(), Some(b'r' | b'-'))
        && matches!(prot.get(1), Some(b'w' | b'-'))
        && matches!(prot.get(2), Some(b'x' | b'-'))
        && matches!(prot.get(3), Some(b'p' | b's'));
    if prot_ok {
        return true;
    }
    if prot.len() <= 4 {
        // uftrace copies the word into `prot` and never looks at it again.
        let f = sink
            .make(
                &rules::MAP_LINE_MALFORMED,
                sub_span(ml.line, prot),
                format!("protection `{}` is not `[r-][w-][x-][ps]`; uftrace 0.9.4–0.18.1 copy it and never use it, and read the line the same", show(prot)),
            )
            .read_same("uftrace", "0.9.4–0.18.1");
        sink.push(f);
        true
    } else {
        sink.report(
            &rules::MAP_LINE_MALFORMED,
            sub_span(ml.line, prot),
            format!("protection `{}` is not `[r-][w-][x-][ps]`", show(prot)),
        );
        false
    }
}

/// The offset, device and inode fields, which uftrace skips; false when the line is lost to
/// them.
fn skipped_fields(
    ml: &MapLine<'_, '_>,
    off: &[u8],
    dev: &[u8],
    inode: &[u8],
    sink: &mut Sink,
) -> bool {
    let dev_ok = {
        let mut d = dev.splitn(2, |&c| c == b':');
        d.next().and_then(parse_hex).is_some() && d.next().and_then(parse_hex).is_some()
    };
    if parse_hex(off).is_some() && dev_ok && parse_u64(inode).is_some() {
        return true;
    }
    // uftrace skips these fields with `%*x %*x:%*x %*d`: digits of any length read the
    // same (the values are never used); other characters end its sscanf and lose the line.
    let hexish = |t: &[u8]| !t.is_empty() && t.iter().all(u8::is_ascii_hexdigit);
    let mut parts = dev.split(|&c| c == b':');
    let dev_read = matches!(
        (parts.next(), parts.next(), parts.next()),
        (Some(a), Some(b), None) if hexish(a) && hexish(b)
    );
    if hexish(off) && dev_read && !inode.is_empty() && inode.iter().all(u8::is_ascii_digit) {
        ml.read_same(
            sink,
            "offset, device or inode does not parse as a value; uftrace 0.9.4–0.18.1 skip these fields and read the line the same".into(),
        );
        true
    } else {
        ml.bad(
            sink,
            "offset, device or inode does not parse; uftrace 0.9.4–0.18.1 skip the line".into(),
        );
        false
    }
}

/// The path of a line, from its first word `first_path` to the end of the line (it may hold
/// spaces), less a last ` build-id:` word, which comes second.
fn path_and_build_id<'a>(line: &Line<'a>, first_path: &'a [u8]) -> (&'a [u8], Option<&'a [u8]>) {
    let rel = usize::try_from(sub_span(line, first_path).start.saturating_sub(line.offset))
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
    (path, bid)
}

/// The build-id of a `build-id:` word, if it is one.
fn build_id(line: &Line<'_>, b: &[u8], sink: &mut Sink) -> Option<String> {
    match b.strip_prefix(b"build-id:") {
        Some(h) if (1..=40).contains(&h.len()) && h.iter().all(u8::is_ascii_hexdigit) => {
            return Some(String::from_utf8_lossy(h).into_owned());
        }
        // 41 to 50 characters still fit the word's stack buffer, but not the 41-byte
        // build-id of the map entry: Debian's uftrace 0.13 (fortified) aborts with
        // "buffer overflow detected" when it takes the map, whatever the trace enters
        // (campaign); longer words are reported above.
        Some(h) if h.len() > 40 && b.len() <= 50 => {
            let f = sink
                .make(
                    &rules::MAP_LINE_MALFORMED,
                    sub_span(line, b),
                    format!("`{}` has {} characters after `build-id:`, more than the 40 of a build-id: uftrace copies them into a 41-byte field, and uftrace 0.13 aborts (\"buffer overflow detected\")", show(b), h.len()),
                )
                .fails("uftrace", "0.13", "crash");
            sink.push(f);
        }
        _ => {
            sink.report(
                &rules::MAP_LINE_MALFORMED,
                sub_span(line, b),
                format!("`{}` is not `build-id:<up to 40 hex digits>`", show(b)),
            );
        }
    }
    None
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
