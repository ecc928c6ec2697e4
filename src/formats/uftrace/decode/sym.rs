//! `*.sym` symbol tables (v0.13 layout with `?` end markers, and the later one with a size
//! column) and the sorted lookup table built from them.

use super::super::rules;
use super::info::Producer;
use super::text::{self, parse_hex, parse_u64, show};
use crate::finding::{Finding, Severity, Sink};
use crate::limits::Limits;
use crate::reader::Line;
use std::ops::Range;

/// One symbol.
#[derive(Clone, Debug)]
pub struct Symbol {
    /// Address relative to the module base.
    pub addr: u64,
    /// One past the last byte.
    pub end: u64,
    /// Type letter.
    pub kind: u8,
    /// Byte range of the name in [`SymTable::names`].
    pub name: Range<u32>,
}

/// A decoded symbol file.
#[derive(Clone, Debug, Default)]
pub struct SymTable {
    /// File name.
    pub file: String,
    /// `# path name:`.
    pub path: Option<String>,
    /// `# build-id:`.
    pub build_id: Option<String>,
    /// Declared count.
    pub declared: Option<u64>,
    /// Real symbols, sorted by address (markers excluded).
    pub syms: Vec<Symbol>,
    /// Concatenated names.
    pub names: String,
    /// Whether lines carry a size column.
    pub sized: bool,
    /// Marker lines.
    pub markers: u64,
    /// The `UF057` finding of a header-less layout (0: no header, 1: count only), reported
    /// once per directory by the caller.
    pub legacy: Option<(u8, Finding)>,
    /// `UF051` (lines uftrace skips) and `UF053` (symbols out of order) findings: their level
    /// depends on whether the trace enters the module (then names are lost or wrong), which the
    /// caller knows after the task walks.
    pub skipped_lines: Vec<Finding>,
    /// uftrace's own table where it differs from `syms` (lines out of order, skipped or
    /// repeated): which record addresses it names otherwise.
    pub view: Option<UftraceView>,
}

/// uftrace's table of a `.sym` file whose lines are out of order, skipped or repeated, as
/// `load_module_symbol_file` (utils/symbol.c, 0.9.4–0.18.1) builds it: lines in file order, a
/// repeated address and type dropped, each size (when no size column gives one) up to the
/// *next line's* address as an `unsigned` (so a line followed by a lower address gets a
/// wrapped, huge size), then sorted by address and searched with `bsearch`.
#[derive(Clone, Debug, Default)]
pub struct UftraceView {
    /// uftrace's entries in its sorted order: (lo, hi, index into `syms`).
    entries: Vec<(u64, u64, usize)>,
    /// Relative ranges where what was recorded is not known: where a line uftrace skips
    /// stood, and where a line with a damaged address stood and now points.
    lost: Vec<Range<u64>>,
}

impl UftraceView {
    /// glibc's `bsearch` with uftrace's `addrfind`: the entry it lands on, which with
    /// overlapping (wrapped) ranges is not always the one a sorted table would give.
    fn find(&self, rel: u64) -> Option<usize> {
        let (mut l, mut u) = (0usize, self.entries.len());
        while l < u {
            let idx = l.saturating_add(u) / 2;
            let &(lo, hi, sym) = self.entries.get(idx)?;
            if lo <= rel && rel < hi {
                return Some(sym);
            }
            if lo > rel {
                u = idx;
            } else {
                l = idx.saturating_add(1);
            }
        }
        None
    }
}

impl SymTable {
    /// Name of symbol `i`.
    pub fn name(&self, i: usize) -> &str {
        self.syms
            .get(i)
            .and_then(|s| {
                self.names
                    .get(usize::try_from(s.name.start).ok()?..usize::try_from(s.name.end).ok()?)
            })
            .unwrap_or("?")
    }

    /// The symbol containing relative address `rel`.
    pub fn find(&self, rel: u64) -> Option<usize> {
        let i = self.syms.partition_point(|s| s.addr <= rel);
        // Several symbols may share an address: take the last one that contains `rel`.
        let mut j = i.checked_sub(1)?;
        loop {
            let s = self.syms.get(j)?;
            if rel < s.end {
                return Some(j);
            }
            if j == 0 || self.syms.get(j.checked_sub(1)?)?.addr != s.addr {
                return None;
            }
            j = j.checked_sub(1)?;
        }
    }

    /// Whether uftrace may print another name for relative address `rel` than was recorded:
    /// its own lookup finds another symbol than the sorted table, or the address lies in a
    /// symbol whose line is out of order or lost. Always false for a table in order.
    pub fn misread(&self, rel: u64) -> bool {
        let Some(v) = &self.view else {
            return false;
        };
        let key = |i: usize| self.syms.get(i).map(|s| (s.addr, self.name(i)));
        self.find(rel).and_then(key) != v.find(rel).and_then(key)
            || v.lost.iter().any(|r| r.contains(&rel))
    }

    /// Index of the symbol starting exactly at `rel`.
    pub fn at(&self, rel: u64) -> Option<usize> {
        let i = self.syms.partition_point(|s| s.addr < rel);
        (self.syms.get(i)?.addr == rel).then_some(i)
    }
}

const TYPES: &[u8] = b"?TtwPKDdvu";

/// A symbol line as read: (address, size column, type, name range, line span).
type RawSym = (u64, Option<u64>, u8, Range<u32>, Range<u64>);

/// Decodes one `.sym` file; `producer` names the writer in quirk findings.
pub fn decode(
    file: &str,
    data: &[u8],
    limits: &Limits,
    producer: &Producer,
    sink: &mut Sink,
) -> SymTable {
    let mut r = Lines::new(file);
    for line in text::lines(data) {
        if let Some(h) = line.text.strip_prefix(b"#") {
            if r.in_header {
                r.header_line(&line, h, sink);
            }
            continue;
        }
        r.in_header = false;
        if r.raw.len() as u64 >= limits.max_entries {
            sink.limit(
                line.span(),
                "symbol count",
                r.raw.len() as u64,
                "max_entries",
                limits.max_entries,
            );
            break;
        }
        r.symbol_line(&line, sink);
    }
    let Lines {
        mut t,
        count_span,
        raw,
        lost_lines,
        skipped,
        header_lines,
        sized_seen,
        empty_names,
        ..
    } = r;
    let who = producer.describe();
    header_layout(&mut t, header_lines, &count_span, producer, sink);
    if let Some(first) = empty_names.first() {
        let f = sink
            .make(
                &rules::SYM_EMPTY_NAME,
                first.clone(),
                format!(
                    "{} symbol line(s) of `{file}` have an empty name: written by {who}; uftrace before 0.9 saves PLT entries of relocations without a symbol name this way",
                    empty_names.len()
                ),
            )
            .note("uftrace loads them as symbols without a name");
        sink.push(f);
    }
    t.skipped_lines = skipped;
    t.sized = sized_seen.0 && !sized_seen.1;
    if sized_seen.0 && sized_seen.1 {
        sink.report(
            &rules::SYM_LINE_MALFORMED,
            0..data.len() as u64,
            "some symbol lines have a size column and others do not",
        );
    }
    order(&mut t, &raw, sink);
    count(&mut t, &raw, count_span, sink);
    build_lookup(&mut t, &raw, &lost_lines);
    t
}

/// The state of [`decode`] while it reads the lines of a `.sym` file.
struct Lines {
    t: SymTable,
    /// Span of the `# symbols:` line.
    count_span: Range<u64>,
    /// (addr, size, kind, name, span); markers are kept to derive v0.13 sizes.
    raw: Vec<RawSym>,
    /// Lines uftrace skips: (symbols read before it, its address if it survived).
    lost_lines: Vec<(usize, Option<u64>)>,
    /// Findings on lines uftrace skips, leveled by the caller.
    skipped: Vec<Finding>,
    in_header: bool,
    header_lines: u32,
    /// Lines with a size column, lines without.
    sized_seen: (bool, bool),
    empty_names: Vec<Range<u64>>,
    /// What uftrace's `check_symbol_file` may copy of the next repeated header line.
    path_cap: usize,
    id_cap: usize,
}

impl Lines {
    fn new(file: &str) -> Self {
        Lines {
            t: SymTable {
                file: file.to_string(),
                ..Default::default()
            },
            count_span: 0..0,
            raw: Vec::new(),
            lost_lines: Vec::new(),
            skipped: Vec::new(),
            in_header: true,
            header_lines: 0,
            sized_seen: (false, false),
            empty_names: Vec::new(),
            path_cap: PATH_MAX,
            id_cap: BUILD_ID_CHARS,
        }
    }

    /// A `#` line of the header (`h`: after the `#`).
    fn header_line(&mut self, line: &Line<'_>, h: &[u8], sink: &mut Sink) {
        let s = line.text;
        let t = &mut self.t;
        self.header_lines = self.header_lines.saturating_add(1);
        if let Some(n) = h.strip_prefix(b" symbols: ") {
            self.count_span = line.span();
            match parse_u64(n) {
                Some(v) => t.declared = Some(v),
                None => {
                    sink.report(
                        &rules::SYM_HEADER,
                        line.span(),
                        format!("`{}` is not `# symbols: <count>`", show(s)),
                    );
                    // uftrace reads the count with `strtoul`: `-1` is ULONG_MAX.
                    t.declared = strtoul(n);
                }
            }
        } else if let Some(p) = h.strip_prefix(b" path name: ") {
            let v = check_symbol_file_copy(p, line.terminated, &mut self.path_cap, 0);
            if t.path.is_some() {
                repeated_header(sink, line, "path name", &v);
            }
            t.path = Some(String::from_utf8_lossy(&v).into_owned());
        } else if let Some(b) = h.strip_prefix(b" build-id: ") {
            if t.build_id.is_some() {
                let v = check_symbol_file_copy(b, line.terminated, &mut self.id_cap, 1);
                repeated_header(sink, line, "build-id", &v);
                t.build_id = Some(String::from_utf8_lossy(&v).into_owned());
            } else {
                // Kept as uftrace keeps it: a damaged build-id no longer matches the
                // module's, which decides whether uftrace takes this file.
                let v = check_symbol_file_copy(b, line.terminated, &mut self.id_cap, 1);
                t.build_id = Some(String::from_utf8_lossy(&v).into_owned());
            }
            if !((1..=40).contains(&b.len()) && b.iter().all(u8::is_ascii_hexdigit)) {
                sink.report(
                    &rules::SYM_HEADER,
                    line.span(),
                    format!("`{}` is not `# build-id: <up to 40 hex digits>`", show(s)),
                );
            }
        }
    }

    /// A symbol line.
    fn symbol_line(&mut self, line: &Line<'_>, sink: &mut Sink) {
        let s = line.text;
        if !line.terminated {
            self.bad(line, "has no terminating newline", sink);
        }
        let (Some(a), Some(b' ')) = (s.get(..16), s.get(16)) else {
            self.bad(line, "does not start with a 16-digit address", sink);
            self.as_uftrace(line);
            return;
        };
        let Some(addr) = parse_hex(a) else {
            self.bad(line, "has a non-hex address", sink);
            self.as_uftrace(line);
            return;
        };
        let rest = s.get(17..).unwrap_or(&[]);
        let (size, rest) = match (rest.get(..8), rest.get(8)) {
            (Some(sz), Some(b' ')) if sz.iter().all(u8::is_ascii_hexdigit) => {
                (parse_hex(sz), rest.get(9..).unwrap_or(&[]))
            }
            _ => (None, rest),
        };
        if size.is_some() {
            self.sized_seen.0 = true;
        } else {
            self.sized_seen.1 = true;
        }
        let (Some(&kind), Some(b' ')) = (rest.first(), rest.get(1)) else {
            self.bad(line, "has no `<type> <name>`", sink);
            self.as_uftrace(line);
            return;
        };
        if !TYPES.contains(&kind) {
            self.bad(line, &format!("has unknown type `{}`", kind as char), sink);
            self.as_uftrace(line);
            return;
        }
        let name = rest.get(2..).unwrap_or(&[]);
        if name.is_empty() {
            self.empty_names.push(line.span());
        }
        self.push(addr, size, kind, name, line);
    }

    /// Adds a symbol as read.
    fn push(&mut self, addr: u64, size: Option<u64>, kind: u8, name: &[u8], line: &Line<'_>) {
        let names = &mut self.t.names;
        let start = u32::try_from(names.len()).unwrap_or(u32::MAX);
        names.push_str(&String::from_utf8_lossy(name));
        let end = u32::try_from(names.len()).unwrap_or(u32::MAX);
        self.raw.push((addr, size, kind, start..end, line.span()));
    }

    /// A line that breaks the layout (`what`), leveled by how uftrace reads it.
    fn bad(&mut self, line: &Line<'_>, what: &str, sink: &mut Sink) {
        let s = line.text;
        let (level, readers) = match uftrace_reads(s) {
            UftraceSym::Reads => (
                Severity::Warning,
                "uftrace 0.9.4–0.18.1 read it all the same (their parser takes any hex address and type)",
            ),
            UftraceSym::SkipsData => (
                Severity::Warning,
                "uftrace 0.9.4–0.18.1 skip it as a symbol of a type that is never a function",
            ),
            UftraceSym::Skips => (
                Severity::Error,
                "uftrace 0.9.4–0.18.1 skip it without a word",
            ),
        };
        let f = sink
            .make(
                &rules::SYM_LINE_MALFORMED,
                line.span(),
                format!(
                    "symbol line `{}` {what}; expected `<16 hex addr> [<8 hex size> ]<type {}> <name>`; {readers}",
                    show(s),
                    String::from_utf8_lossy(TYPES)
                ),
            )
            .level(level)
            .impact(
                "uftrace",
                "0.9.4–0.18.1",
                if level == Severity::Error { "loss" } else { "same" },
            );
        if level == Severity::Error {
            self.skipped.push(f);
        } else {
            sink.push(f);
        }
    }

    /// A line uftrace reads although it breaks the layout is kept as uftrace reads it, so
    /// that the order check and the lookup table see what the reader sees.
    fn as_uftrace(&mut self, line: &Line<'_>) {
        let s = line.text;
        if uftrace_parse(s).is_none() {
            // uftrace skips the line: where its symbol was, if the address survived.
            let addr = s.get(..16).and_then(parse_hex);
            self.lost_lines.push((self.raw.len(), addr));
        }
        if let Some((addr, size, kind, name)) = uftrace_parse(s) {
            if TYPES.contains(&kind) {
                self.push(addr, size, kind, name, line);
            }
        }
    }
}

/// The header lines present against the layouts uftrace writers use (`SYM_LEGACY_LAYOUT` is
/// kept in `t.legacy` for the caller, which reports one per directory).
fn header_layout(
    t: &mut SymTable,
    header_lines: u32,
    count_span: &Range<u64>,
    producer: &Producer,
    sink: &mut Sink,
) {
    let who = producer.describe();
    let file = t.file.clone();
    match (t.declared.is_some(), t.path.is_some()) {
        (true, true) => {}
        // No header at all: the layout of uftrace up to 0.9.2.
        (false, false) if header_lines == 0 && producer.older_than(0, 10) != Some(false) => {
            let f = sink
                .make(
                    &rules::SYM_LEGACY_LAYOUT,
                    0..0,
                    format!(
                        "`{file}` has no `# symbols:` / `# path name:` header: written by {who}; uftrace up to 0.9.2 writes symbol files without one"
                    ),
                )
                .note("uftrace loads it for the module of that base name without checking path or build-id");
            t.legacy = Some((0, f));
        }
        // `# symbols:` only: uftrace 0.9.3 to the 0.10 development builds.
        (true, false) if header_lines == 1 && producer.older_than(0, 10) != Some(false) => {
            let f = sink
                .make(
                    &rules::SYM_LEGACY_LAYOUT,
                    count_span.clone(),
                    format!(
                        "`{file}` has `# symbols:` but no `# path name:` line: written by {who}; uftrace 0.9.3 and 0.9.4 write only the count (0.10 added the path)"
                    ),
                )
                .note("uftrace loads it for the module of that base name without checking path or build-id");
            t.legacy = Some((1, f));
        }
        (declared, path) => {
            let missing = match (declared, path) {
                (false, false) => "`# symbols:` and `# path name:`",
                (false, true) => "`# symbols:`",
                _ => "`# path name:`",
            };
            let why = if header_lines == 0 || (declared && header_lines == 1) {
                format!("{who} writes a full header, so the file was not written by it")
            } else {
                "no uftrace version writes that".to_string()
            };
            sink.report(
                &rules::SYM_HEADER,
                0..0,
                format!("`{file}` lacks its {missing} header line; {why}"),
            );
        }
    }
}

/// Symbols out of order: uftrace looks symbols up by binary search in file order.
fn order(t: &mut SymTable, raw: &[RawSym], sink: &mut Sink) {
    let mut reported_order = false;
    for w in raw.windows(2) {
        if let [a, b] = w {
            if b.0 < a.0 && !reported_order {
                // uftrace looks symbols up by binary search in file order: where the trace
                // enters the module some addresses find the wrong symbol (the caller decides).
                let f = sink.make(
                    &rules::SYM_ORDER,
                    b.4.clone(),
                    format!(
                        "symbol at 0x{:x} comes after one at 0x{:x}: the table is not sorted",
                        b.0, a.0
                    ),
                );
                t.skipped_lines.push(f);
                reported_order = true;
            }
            // Overlapping sizes are not reported: uftrace saves the ELF symbols as they are,
            // and hand-written assembly in real libraries (libgmp) has functions inside others.
        }
    }
}

/// The `# symbols:` count against the symbol lines.
fn count(t: &mut SymTable, raw: &[RawSym], count_span: Range<u64>, sink: &mut Sink) {
    let real = raw.iter().filter(|r| r.2 != b'?').count() as u64;
    t.markers = (raw.len() as u64).saturating_sub(real);
    if let Some(n) = t.declared {
        if n != real {
            // uftrace (utils/symbol.c, 0.9.4–0.18.1) preallocates `n` entries of 24 bytes and
            // grows the table when there are more lines: only an allocation no machine can
            // commit stops it.
            let bytes = n.saturating_mul(SYM_ENTRY_BYTES);
            if bytes >= SYM_ALLOC_FAILS {
                let f = sink.make(
                    &rules::SYM_COUNT_MISMATCH,
                    count_span,
                    format!("`# symbols: {n}` but the file has {real} symbol line(s); uftrace 0.9.4–0.18.1 preallocate {n} entries ({} GiB) and stop with `xrealloc: Cannot allocate memory`", bytes >> 30),
                )
                .fails("uftrace", "0.9.4–0.18.1", "reject");
                sink.push(f);
            } else if n > real {
                // Lines are missing: uftrace sizes each symbol up to the next line, so calls
                // into a missing function are printed under the name before it. Whether that
                // matters depends on the trace entering the module: decided by the caller.
                t.skipped_lines.push(sink.make(
                    &rules::SYM_COUNT_MISMATCH,
                    count_span,
                    format!("`# symbols: {n}` but the file has {real} symbol line(s): {} line(s) are missing (the count only sizes uftrace's first allocation)", n.saturating_sub(real)),
                ));
            } else {
                let f = sink.make(
                    &rules::SYM_COUNT_MISMATCH,
                    count_span,
                    format!("`# symbols: {n}` but the file has {real} symbol line(s); uftrace 0.9.4–0.18.1 read every line all the same (the count only sizes a first allocation)"),
                )
                .read_same("uftrace", "0.9.4–0.18.1");
                sink.push(f);
            }
        }
    }
}

/// Builds the lookup table (`t.syms`, sorted, with ends from the size column or the next
/// symbol) and uftrace's own table where it differs (`t.view`).
fn build_lookup(t: &mut SymTable, raw: &[RawSym], lost_lines: &[(usize, Option<u64>)]) {
    let mut order: Vec<usize> = (0..raw.len()).collect();
    order.sort_by_key(|&i| raw.get(i).map_or(0, |r| r.0));
    let mut sym_of: Vec<Option<usize>> = vec![None; raw.len()];
    let mut k = 0usize;
    for &i in &order {
        if raw.get(i).is_some_and(|r| r.2 != b'?') {
            if let Some(slot) = sym_of.get_mut(i) {
                *slot = Some(k);
            }
            k = k.saturating_add(1);
        }
    }
    let inverted = raw.windows(2).any(|w| matches!(w, [a, b] if b.0 < a.0));
    // The lines in address order (`order`, a stable sort), read in place.
    let sorted = |i: usize| order.get(i).and_then(|&ri| raw.get(ri));
    let n = order.len();
    let mut syms = Vec::with_capacity(n);
    let mut next_greater = vec![u64::MAX; n];
    let mut nxt = u64::MAX;
    for i in (0..n).rev() {
        let cur = sorted(i).map(|r| r.0);
        let after = sorted(i.saturating_add(1)).map(|r| r.0);
        if let (Some(c), Some(a)) = (cur, after) {
            if a > c {
                nxt = a;
            }
        }
        if let Some(slot) = next_greater.get_mut(i) {
            *slot = nxt;
        }
    }
    for i in 0..n {
        let Some(&(addr, size, kind, ref name, _)) = sorted(i) else {
            continue;
        };
        if kind == b'?' {
            continue;
        }
        let end = match size {
            Some(s) if s > 0 => addr.saturating_add(s),
            Some(_) => addr.saturating_add(1),
            None => {
                let ng = next_greater.get(i).copied().unwrap_or(u64::MAX);
                if ng == u64::MAX {
                    addr.saturating_add(1)
                } else {
                    ng
                }
            }
        };
        syms.push(Symbol {
            addr,
            end,
            kind,
            name: name.clone(),
        });
    }
    t.syms = syms;
    t.view = uftrace_view(t, raw, &sym_of, lost_lines, inverted);
}

/// The low 32 bits of `v`: what C stores of it in an `unsigned`.
fn low32(v: u64) -> u32 {
    u32::try_from(v & u64::from(u32::MAX)).unwrap_or(u32::MAX)
}

/// The symbol-end markers uftrace takes by name whatever their type (`is_symbol_end`).
fn is_symbol_end(name: &str) -> bool {
    matches!(name, "__sym_end" | "__dynsym_end" | "__func_end")
}

/// uftrace's table of `t` where it differs from `t.syms` (see [`UftraceView`]); `None` when
/// the lines are in order, none is skipped and none repeated, so both agree.
///
/// Lines out of order are read as a swap when exchanging two neighbours puts them in order:
/// the sorted table is then what was recorded, and uftrace's own lookup, compared address by
/// address, tells where it prints another name. Otherwise the line out of place has a damaged
/// address: what was recorded between its neighbours, and where it now points, is not known.
fn uftrace_view(
    t: &SymTable,
    raw: &[RawSym],
    sym_of: &[Option<usize>],
    lost_lines: &[(usize, Option<u64>)],
    inverted: bool,
) -> Option<UftraceView> {
    let name_of = |r: &RawSym| {
        t.names
            .get(usize::try_from(r.3.start).ok()?..usize::try_from(r.3.end).ok()?)
    };
    // load_module_symbol_file, line by line: (addr, size, raw index).
    let mut table: Vec<(u64, u32, usize)> = Vec::new();
    let mut repeated = false;
    let (mut prev_addr, mut prev_kind) = (u64::MAX, b'X');
    for (i, r) in raw.iter().enumerate() {
        let &(addr, size, kind, _, _) = r;
        if addr == prev_addr && kind == prev_kind {
            repeated = true;
            continue;
        }
        prev_addr = addr;
        prev_kind = kind;
        // An `unsigned` difference: a lower next address wraps.
        let gap = |from: u64| low32(addr.wrapping_sub(from));
        if let Some(last) = table.last_mut() {
            if last.1 == 0 {
                last.1 = gap(last.0);
            }
        }
        if kind == b'?' || name_of(r).is_some_and(is_symbol_end) {
            continue;
        }
        table.push((addr, size.map_or(0, low32), i));
    }
    if !inverted && lost_lines.is_empty() && !repeated {
        return None;
    }
    let mut entries: Vec<(u64, u64, usize)> = table
        .iter()
        .filter_map(|&(addr, size, ri)| {
            let si = (*sym_of.get(ri)?)?;
            Some((addr, addr.saturating_add(u64::from(size)), si))
        })
        .collect();
    entries.sort_by_key(|e| e.0);
    let addr_at = |i: usize| raw.get(i).map(|r| r.0);
    // The sorted table's range of the symbol of line `i`.
    let sane_range = |i: usize| {
        let si = (*sym_of.get(i)?)?;
        t.syms
            .get(si)
            .map(|s| s.addr..s.end.max(s.addr.saturating_add(1)))
    };
    let mut lost: Vec<Range<u64>> = Vec::new();
    let mut i = 0usize;
    while let (Some(a), Some(b)) = (addr_at(i), addr_at(i.saturating_add(1))) {
        if b >= a {
            i = i.saturating_add(1);
            continue;
        }
        let before = i.checked_sub(1).and_then(addr_at);
        let after = addr_at(i.saturating_add(2));
        let swap = before.is_none_or(|p| p <= b) && after.is_none_or(|n| a <= n);
        if swap {
            i = i.saturating_add(2);
            continue;
        }
        // The line whose removal leaves its neighbours in order is the damaged one.
        let bad = if before.is_none_or(|p| p <= b) {
            i
        } else {
            i.saturating_add(1)
        };
        let lo = bad.checked_sub(1).and_then(addr_at);
        let hi = addr_at(bad.saturating_add(1));
        // The line before keeps its own address: a record there (a PLT call's, exactly at
        // the entry) is that symbol's.
        if let (Some(lo), Some(hi)) = (lo, hi) {
            if lo < hi {
                lost.push(lo.saturating_add(1)..hi);
            }
        } else if let Some(edge) = lo.or(hi) {
            lost.push(edge.min(raw.get(bad).map_or(edge, |r| r.0))..edge.saturating_add(1));
        }
        if let Some(r) = sane_range(bad) {
            lost.push(r);
        }
        i = i.saturating_add(1);
    }
    // A skipped line: its symbol's range, if its address survived, else everything between
    // the lines around it.
    lost.extend(lost_lines.iter().filter_map(|&(at, addr)| {
        let next = addr_at(at);
        let prev = at.checked_sub(1).and_then(addr_at);
        let lo = addr.or(prev)?;
        let hi = next.filter(|&n| n > lo).unwrap_or(lo.saturating_add(1));
        Some(lo..hi)
    }));
    Some(UftraceView { entries, lost })
}

/// Characters of a build-id `check_symbol_file` keeps (`BUILD_ID_STR_SIZE - 1`).
const BUILD_ID_CHARS: usize = 40;
/// Its path buffer.
const PATH_MAX: usize = 4096;

/// The value uftrace's `check_symbol_file` (utils/symbol.c, 0.13–0.18.1) keeps of a header
/// line: it copies at most `cap` characters of the value with its newline (`strncpy`) and drops
/// a trailing newline; the copied length, less `reserve` (1 for a build-id, which keeps room for
/// its NUL), caps the next line of that kind. A second `# build-id:` line so keeps only 39 of its
/// 40 characters, and the module's build-id no longer matches.
fn check_symbol_file_copy(
    value: &[u8],
    terminated: bool,
    cap: &mut usize,
    reserve: usize,
) -> Vec<u8> {
    let mut v: Vec<u8> = value.iter().copied().take(*cap).collect();
    if terminated && v.len() < *cap {
        v.push(b'\n');
    }
    *cap = v.len().saturating_sub(reserve);
    if v.last() == Some(&b'\n') {
        v.pop();
    }
    v
}

fn repeated_header(sink: &mut Sink, line: &Line<'_>, what: &str, kept: &[u8]) {
    sink.report(
        &rules::SYM_HEADER,
        line.span(),
        format!(
            "a second `# {what}:` line; uftrace 0.13–0.18.1 keep `{}` of it",
            show(kept)
        ),
    );
}

/// Bytes of one symbol entry uftrace preallocates per `# symbols:` (`struct sym`, LP64).
const SYM_ENTRY_BYTES: u64 = 24;
/// A first allocation of this size fails on machines with less memory to commit.
const SYM_ALLOC_FAILS: u64 = 4 << 30;

/// How uftrace reads one `.sym` line.
enum UftraceSym {
    /// As a symbol.
    Reads,
    /// Skipped for its type, which `nm` gives data, bss, absolute and undefined symbols.
    SkipsData,
    /// Skipped: the line does not parse, or its type may be a function's.
    Skips,
}

/// How uftrace (`load_module_symbol_file`, utils/symbol.c 0.9.4–0.18.1) reads `line`:
/// `strtoull` of a hex address (any length, leading blanks and `0x` allowed), one space, the
/// type (a digit starts a hex size, then a space and the type), a space and the name; lines of
/// types other than `?TtwPKDdvu` are skipped.
fn uftrace_reads(line: &[u8]) -> UftraceSym {
    let Some(kind) = uftrace_sym_type(line) else {
        return UftraceSym::Skips;
    };
    if b"?TtwPKDdvu".contains(&kind) {
        UftraceSym::Reads
    } else if b"BbRrUANCGgSsV-".contains(&kind) {
        UftraceSym::SkipsData
    } else {
        UftraceSym::Skips
    }
}

/// `strtoul(s, NULL, 10)` as glibc reads it, if it reads any digit.
fn strtoul(s: &[u8]) -> Option<u64> {
    let (v, end) = c_strtoul(s, 0, 10);
    (end > 0).then_some(v)
}

/// glibc `strtoul`/`strtoull` from `line[from..]` in base 10 or 16: leading blanks, a sign
/// (`-` negates, wrapping), for base 16 an optional `0x`, then digits, saturating at
/// `u64::MAX` on overflow. Returns the value and the index after the last digit (`from` when
/// no digit was read: `endptr == nptr`).
fn c_strtoul(line: &[u8], from: usize, radix: u32) -> (u64, usize) {
    let mut i = from.saturating_add(
        line.get(from..)
            .unwrap_or(&[])
            .iter()
            .take_while(|c| c.is_ascii_whitespace())
            .count(),
    );
    let neg = match line.get(i) {
        Some(b'-') => {
            i = i.saturating_add(1);
            true
        }
        Some(b'+') => {
            i = i.saturating_add(1);
            false
        }
        _ => false,
    };
    if radix == 16 && matches!(line.get(i..i.saturating_add(2)), Some(b"0x" | b"0X")) {
        i = i.saturating_add(2);
    }
    let digits = line
        .get(i..)
        .unwrap_or(&[])
        .iter()
        .take_while(|&&c| (c as char).is_digit(radix))
        .count();
    if digits == 0 {
        return (0, from);
    }
    let v = line
        .get(i..i.saturating_add(digits))
        .unwrap_or(&[])
        .iter()
        .try_fold(0u64, |a, &c| {
            let d = u64::from((c as char).to_digit(radix).unwrap_or(0));
            a.checked_mul(u64::from(radix))?.checked_add(d)
        });
    let v = match v {
        None => u64::MAX,
        Some(v) if neg => v.wrapping_neg(),
        Some(v) => v,
    };
    (v, i.saturating_add(digits))
}

/// A `.sym` line as uftrace parses it: (address, size, type, name), if it parses. The address
/// is `strtoull(line, 16)` (saturating, a leading `-` negates), the name ends at a tab.
fn uftrace_parse(line: &[u8]) -> Option<(u64, Option<u64>, u8, &[u8])> {
    let kind = uftrace_sym_type(line)?;
    let (addr, end) = c_strtoul(line, 0, 16);
    let mut i = end.saturating_add(1);
    let size = if line.get(i).is_some_and(u8::is_ascii_digit) {
        let (sz, end) = c_strtoul(line, i, 16);
        i = end.saturating_add(1);
        Some(sz & u64::from(u32::MAX))
    } else {
        None
    };
    // `i` is at the type letter, which `uftrace_sym_type` found followed by a space.
    let name = line.get(i.saturating_add(2)..).unwrap_or(&[]);
    let name = name.split(|&c| c == b'\t').next().unwrap_or(&[]);
    Some((addr, size, kind, name))
}

/// The type letter of a `.sym` line as uftrace parses it, if it parses.
fn uftrace_sym_type(line: &[u8]) -> Option<u8> {
    let (_, mut i) = c_strtoul(line, 0, 16);
    if line.get(i) != Some(&b' ') {
        return None;
    }
    let mut kind = *line.get(i.saturating_add(1))?;
    i = i.saturating_add(2);
    if kind.is_ascii_digit() {
        // `strtoul(pos - 1, ...)`: the size starts at the digit just taken for the type.
        (_, i) = c_strtoul(line, i.saturating_sub(1), 16);
        if line.get(i) != Some(&b' ') {
            return None;
        }
        kind = *line.get(i.saturating_add(1))?;
        i = i.saturating_add(2);
    }
    if line.get(i) != Some(&b' ') {
        return None;
    }
    Some(kind)
}
