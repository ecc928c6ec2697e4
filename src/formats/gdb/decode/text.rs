//! Decoding of the header and the text definition section into the typed model.
//!
//! Structural and grammar findings (a line that does not follow its grammar) are reported
//! here; relations between lines and with the frames are checked in `lint`.

use super::super::model::{
    DescLine, Description, FieldKey, FieldValue, Header, ReasonKind, Source, SourceKind, Status,
    StatusField, StopReason, TpStats, Tracepoint, Tsv,
};
use super::super::rules;
use super::gdb13;
use crate::finding::{Finding, Sink};
use crate::input::Windowed;
use crate::options::CheckOptions;
use std::collections::HashMap;
use std::ops::Range;

/// The 8 magic bytes.
pub const MAGIC: &[u8; 8] = b"\x7fTRACE0\n";
/// Longest line GDB accepts (its buffer is 1000 bytes with the NUL).
pub const GDB_MAX_LINE: usize = 999;

/// Absolute offset `base + i`.
pub(crate) fn at(base: u64, i: usize) -> u64 {
    base.saturating_add(i as u64)
}

/// Span `base + a .. base + b`.
pub(crate) fn sp(base: u64, a: usize, b: usize) -> Range<u64> {
    at(base, a)..at(base, b)
}

/// Why a hex number did not parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HexError {
    /// No digits.
    Empty,
    /// A non-hex byte at this index.
    BadDigit(usize),
    /// More than 64 bits.
    Overflow,
}

impl HexError {
    fn describe(self, s: &[u8]) -> String {
        match self {
            HexError::Empty => "an empty number".into(),
            HexError::BadDigit(i) => format!(
                "`{}`, whose byte {} ({}) is not a hex digit",
                show(s),
                i,
                show_byte(s.get(i).copied().unwrap_or(0))
            ),
            HexError::Overflow => format!("`{}`, which overflows 64 bits", show(s)),
        }
    }
}

/// Parses canonical hex: non-empty, `[0-9a-fA-F]`, at most 64 bits.
pub(crate) fn parse_hex(s: &[u8]) -> Result<u64, HexError> {
    if s.is_empty() {
        return Err(HexError::Empty);
    }
    let mut v: u64 = 0;
    for (i, &b) in s.iter().enumerate() {
        let d = hex_val(b).ok_or(HexError::BadDigit(i))?;
        if v >> 60 != 0 {
            return Err(HexError::Overflow);
        }
        v = (v << 4) | u64::from(d);
    }
    Ok(v)
}

/// Parses decimal digits (for the `tp V` quirk).
pub(crate) fn parse_dec(s: &[u8]) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for &b in s {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v
            .checked_mul(10)?
            .checked_add(u64::from(b.wrapping_sub(b'0')))?;
    }
    Some(v)
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b.wrapping_sub(b'0')),
        b'a'..=b'f' => Some(b.wrapping_sub(b'a').wrapping_add(10)),
        b'A'..=b'F' => Some(b.wrapping_sub(b'A').wrapping_add(10)),
        _ => None,
    }
}

/// Why a hex string did not decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HexStrError {
    /// A non-hex byte at this index.
    BadDigit(usize),
    /// An odd number of digits.
    Odd,
}

/// Decodes a hex string (2 digits per byte).
pub(crate) fn decode_hexstr(s: &[u8]) -> Result<Vec<u8>, HexStrError> {
    if let Some(i) = s.iter().position(|&b| hex_val(b).is_none()) {
        return Err(HexStrError::BadDigit(i));
    }
    if s.len() % 2 != 0 {
        return Err(HexStrError::Odd);
    }
    Ok(s.chunks_exact(2)
        .map(|c| match c {
            [h, l] => (hex_val(*h).unwrap_or(0) << 4) | hex_val(*l).unwrap_or(0),
            _ => 0,
        })
        .collect())
}

/// Printable rendering of file bytes for messages (at most 60 characters).
pub(crate) fn show(s: &[u8]) -> String {
    let mut out = String::new();
    for &b in s.iter().take(60) {
        if (0x20..0x7f).contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    if s.len() > 60 {
        out.push('…');
    }
    out
}

fn show_byte(b: u8) -> String {
    if (0x21..0x7f).contains(&b) {
        format!("'{}'", char::from(b))
    } else {
        format!("0x{b:02x}")
    }
}

/// Splits `s` at `sep`, yielding `(start index, field)`.
pub(crate) fn fields(s: &[u8], sep: u8) -> impl Iterator<Item = (usize, &[u8])> {
    let mut start = 0usize;
    s.split(move |&b| b == sep).map(move |f| {
        let here = start;
        start = start.saturating_add(f.len()).saturating_add(1);
        (here, f)
    })
}

/// Splits `s` into at most `n` fields at `sep` (the last keeps the rest).
fn fields_n(s: &[u8], sep: u8, n: usize) -> Vec<(usize, &[u8])> {
    let mut start = 0usize;
    s.splitn(n, move |&b| b == sep)
        .map(move |f| {
            let here = start;
            start = start.saturating_add(f.len()).saturating_add(1);
            (here, f)
        })
        .collect()
}

/// Where the tracepoints are, by (number, address) and by number.
#[derive(Default)]
struct TpIndex {
    by_key: HashMap<(u64, u64), usize>,
    by_num: HashMap<u64, usize>,
    /// Pieces read before any `T` line of their number and address: GDB 13 makes the
    /// tracepoint on the first piece and a later `T` line completes it (`get_uploaded_tp`),
    /// so they are orphans only if no `T` line follows.
    pending: Vec<Pending>,
}

/// A `tp A/S/Z/V` line waiting for its `T` line.
struct Pending {
    span: Range<u64>,
    piece: u8,
    num: u64,
    addr: u64,
    source: Option<Source>,
}

impl TpIndex {
    /// Attaches the pending pieces to their tracepoints; reports the orphans.
    fn finish(&mut self, tps: &mut [Tracepoint], sink: &mut Sink) {
        for p in std::mem::take(&mut self.pending) {
            if let Some(tp) = self
                .by_key
                .get(&(p.num, p.addr))
                .and_then(|&i| tps.get_mut(i))
            {
                match p.piece {
                    b'A' => tp.actions = tp.actions.saturating_add(1),
                    b'S' => tp.step_actions = tp.step_actions.saturating_add(1),
                    _ => {}
                }
                tp.sources.extend(p.source);
                continue;
            }
            let mut fnd = sink.make(
                &rules::ORPHAN_TP_PIECE,
                p.span.clone(),
                format!(
                    "`tp {}` line for tracepoint {} at 0x{:x} has no `tp T` line with that number and address",
                    char::from(p.piece),
                    p.num,
                    p.addr
                ),
            );
            if let Some(t) = self.by_num.get(&p.num).and_then(|&i| tps.get(i)) {
                fnd = fnd.note(format!(
                    "tracepoint {} is defined at address 0x{:x}",
                    p.num, t.addr
                ));
            }
            sink.push(fnd.note(
                "GDB 13.1 aborts with internal error \"new_breakpoint_from_type: invalid type\"",
            ));
        }
    }
}

/// Checks the 8-byte header. Returns `None` (after reporting) when the file is not a tfile.
pub fn decode_header(data: &[u8], sink: &mut Sink) -> Option<Header> {
    let len = data.len() as u64;
    match data.get(..8) {
        Some(h) if h == MAGIC => Some(Header { span: 0..8 }),
        Some(h) => {
            let mut msg = format!(
                "the file starts with `{}`, not the tfile magic `\\x7fTRACE0\\n`",
                show(h)
            );
            if h.starts_with(b"\x7fTRACE") {
                msg = format!(
                    "the header `{}` names an unknown tfile version (only `0` exists)",
                    show(h)
                );
            }
            sink.report(&rules::BAD_MAGIC, 0..8, msg);
            None
        }
        None => {
            let msg = if MAGIC.starts_with(data) {
                format!("the file ends after {len} of the 8 header bytes (premature end of file)")
            } else {
                format!(
                    "the file is {len} bytes long and starts with `{}`, not the tfile magic",
                    show(data)
                )
            };
            sink.report(&rules::BAD_MAGIC, 0..len, msg);
            None
        }
    }
}

/// Reports the first control or non-ASCII byte of the definition line `line` at `base`,
/// leveled by what GDB 13 does with that line (`prev_tdesc`: the line before was a target
/// description line; `after`: the bytes after the line).
fn bad_byte(
    line: &[u8],
    base: u64,
    prev_tdesc: bool,
    after: &[u8],
    gdb: &GdbLine,
    sink: &mut Sink,
) {
    let is_tdesc = line.starts_with(b"tdesc ");
    let Some(i) = line
        .iter()
        .position(|&b| b < 0x20 || b == 0x7f || (b >= 0x80 && !is_tdesc))
    else {
        return;
    };
    let b = line.get(i).copied().unwrap_or(0);
    let what = match b {
        0 => "a NUL byte (GDB cuts the line there)".to_string(),
        b'\r' => "a carriage return (`\\r` stays part of the value for GDB)".to_string(),
        0x80.. => format!("the non-ASCII byte 0x{b:02x}"),
        _ => format!("the control byte 0x{b:02x}"),
    };
    let f = sink.make(
        &rules::LINE_BAD_BYTE,
        sp(base, i, i.saturating_add(1)),
        format!("definition line contains {what} at column {i}"),
    );
    // In the target description (or a line that was one: a line GDB does not know, between
    // target description lines): GDB 13 cannot parse the XML then, warns and falls back to
    // its default description of the architecture; the campaign reads the same frames,
    // registers and memory in that case.
    let known = [&b"R "[..], b"status ", b"tp ", b"tsv ", b"tdesc "];
    let unknown = !known.iter().any(|k| line.starts_with(k));
    let was_tdesc = unknown && (prev_tdesc || after.starts_with(b"tdesc "));
    // In an action string (`tp A`/`tp S`, after the address): GDB 13 keeps it as text and
    // never parses it when it opens the file (it re-creates actions from the `tp Z` command
    // lines).
    let in_action = (line.starts_with(b"tp A") || line.starts_with(b"tp S"))
        && line
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == b':')
            .nth(1)
            .is_some_and(|(c, _)| c < i);
    let f = if line.starts_with(b"tdes") || was_tdesc {
        Finding {
            message: format!("{}; it is in the target description: GDB 13 cannot parse the XML then, warns and falls back to its default description of the architecture, and reads the frames the same", f.message),
            ..f
        }
        .read_same("GDB", "13")
    } else if in_action {
        Finding {
            message: format!("{}; it is in an action string, which GDB 13 keeps as text and never parses when it opens the file (it re-creates actions from the `tp Z` command lines), so it reads the file the same", f.message),
            ..f
        }
        .read_same("GDB", "13")
    } else if let GdbLine::Reads(what) = gdb {
        Finding {
            message: format!(
                "{}; GDB 13 parses the line by position and reads it as {what}",
                f.message
            ),
            ..f
        }
        .read_same("GDB", "13")
    } else if let GdbLine::Ignored = gdb {
        Finding {
            message: format!("{}; GDB 13 ignores the line (\"Ignoring trace file definition\"), and what it defined is checked as missing", f.message),
            ..f
        }
        .read_same("GDB", "13")
    } else {
        f
    };
    sink.push(f);
}

/// What GDB 13 makes of a definition line ([`gdb13`]).
enum GdbLine {
    /// A line GDB parses by rules not modelled here (`R`, `tdesc`).
    NotModeled,
    /// A line without a known prefix: GDB ignores it.
    Ignored,
    /// GDB parses it without error and reads this.
    Reads(String),
    /// GDB fails on it (or reads past it) this way.
    Fails(String),
}

impl GdbLine {
    fn of(line: &[u8]) -> GdbLine {
        let read = |r: Result<String, gdb13::Failure>| match r {
            Ok(s) => GdbLine::Reads(s),
            Err(e) => GdbLine::Fails(e.0),
        };
        if let Some(p) = line.strip_prefix(b"status ") {
            read(gdb13::status(p).map(|s| format!("a status {}", s.describe())))
        } else if let Some(p) = line.strip_prefix(b"tp ") {
            read(gdb13::tp(p).map(|t| t.describe()))
        } else if let Some(p) = line.strip_prefix(b"tsv ") {
            read(gdb13::tsv(p).map(|t| {
                format!(
                    "trace state variable {} named `{}`, initial value 0x{:x}, builtin {}",
                    t.num,
                    show(&t.name),
                    t.initial,
                    t.builtin
                )
            }))
        } else if line.starts_with(b"R ") || line.starts_with(b"tdesc ") {
            GdbLine::NotModeled
        } else {
            GdbLine::Ignored
        }
    }
}

/// Moves the findings of one line (`line`, decoded into its own sink) into `sink`: where
/// GDB 13 parses the line without error (`gdb`), the errors of `rules` are warnings that
/// say what it reads; the frames are checked against that.
fn leveled_by_gdb(
    line: Sink,
    gdb: &GdbLine,
    rules: &[&'static crate::rule::Rule],
    sink: &mut Sink,
) {
    let (found, dropped) = line.into_parts_by_level();
    for f in found {
        let f = match gdb {
            GdbLine::Reads(what)
                if f.severity == crate::finding::Severity::Error
                    && rules.iter().any(|r| r.code == f.rule.code) =>
            {
                Finding {
                    message: format!(
                        "{}; GDB 13 parses the line by position (a byte where a separator belongs is skipped, a number is the run of hex digits there) and reads it as {what}",
                        f.message
                    ),
                    ..f
                }
                .read_same("GDB", "13")
            }
            GdbLine::Fails(why) if rules.iter().any(|r| r.code == f.rule.code) => {
                f.note(format!("GDB 13 {why}"))
            }
            _ => f,
        };
        sink.push(f);
    }
    sink.absorb_dropped(dropped);
}

/// Decodes the definition section that starts at offset 8.
pub fn decode_description(data: &[u8], opts: &CheckOptions, sink: &mut Sink) -> Description {
    decode_description_in(&mut Windowed::slice(data), opts, sink)
}

/// The first bytes of a line asked for: most lines are short, and a window is refilled only
/// when a line is not in it.
const LINE_GUESS: u64 = 4096;

/// [`decode_description`] over bytes read window by window: the section is read line by line
/// (each at most `max_line_bytes`), never whole.
pub fn decode_description_in(
    src: &mut Windowed<'_>,
    opts: &CheckOptions,
    sink: &mut Sink,
) -> Description {
    let limits = &opts.limits;
    let max_line = usize::try_from(limits.max_line_bytes).unwrap_or(usize::MAX);
    let max_tdesc = usize::try_from(limits.max_section_bytes).unwrap_or(usize::MAX);
    let file_len = src.len();
    let mut d = Description::default();
    let mut pos = 8u64;
    let mut tdesc_full = false;
    let mut tp_index = TpIndex::default();
    // Whether the line before was a target description line.
    let mut prev_tdesc = false;
    let end_of_section;
    loop {
        let rest_len = file_len.saturating_sub(pos);
        let want = max_line.saturating_add(1);
        // A short piece first, then the longest line allowed; each with the 6 bytes after the
        // line's newline, for the line after it.
        let guess = usize::try_from(LINE_GUESS).unwrap_or(want).min(want);
        let found = src
            .get(pos, (guess as u64).saturating_add(7))
            .get(..guess)
            .unwrap_or_default()
            .iter()
            .position(|&b| b == b'\n');
        let ask = if found.is_some() { guess } else { want };
        let piece = src.get(pos, (ask as u64).saturating_add(7));
        let window = piece.get(..ask).unwrap_or(piece);
        let Some(n) = window.iter().position(|&b| b == b'\n') else {
            if window.len() as u64 == rest_len {
                let f = sink
                    .make(
                        &rules::MISSING_SECTION_END,
                        pos..file_len,
                        "the file ends inside the definition section: no empty line ends it (premature end of file)",
                    )
                    .help("the definition section must end with an empty line (`\\n`) before the binary frames");
                sink.push(f);
            } else {
                sink.limit(
                    pos..at(pos, window.len()),
                    "definition line length",
                    window.len() as u64,
                    "max_line_bytes",
                    limits.max_line_bytes,
                );
            }
            end_of_section = file_len;
            break;
        };
        let line = window.get(..n).unwrap_or(&[]);
        let base = pos;
        let next = at(pos, n.saturating_add(1));
        if line.is_empty() {
            d.binary_start = Some(next);
            end_of_section = next;
            break;
        }
        if line == b"\r" {
            let f = sink
                .make(
                    &rules::MISSING_SECTION_END,
                    sp(base, 0, 1),
                    "the line ending the definition section is `\\r\\n`, not an empty line: GDB reads on into the binary frames as text",
                )
                .help("write the end of the section as a single `\\n`");
            sink.push(f);
            d.binary_start = Some(next);
            end_of_section = next;
            break;
        }
        if d.lines.len() as u64 >= limits.max_entries {
            sink.limit(
                sp(base, 0, n),
                "number of definition lines",
                d.lines.len() as u64,
                "max_entries",
                limits.max_entries,
            );
            end_of_section = file_len;
            break;
        }
        let span = sp(base, 0, n);
        if n > GDB_MAX_LINE {
            let f = sink
                .make(
                    &rules::LINE_TOO_LONG,
                    span.clone(),
                    format!("definition line of {n} bytes; GDB accepts at most {GDB_MAX_LINE} (\"Excessively long lines in trace file\")"),
                );
            let f = if line.starts_with(b"tp Z") {
                f.note("GDB writes long `tp Z…cmd` lines for long collect actions and then cannot reopen its own file")
            } else {
                f
            };
            sink.push(f);
        }
        let is_tdesc = line.starts_with(b"tdesc ");
        let after = piece.get(n.saturating_add(1)..).unwrap_or_default();
        let gdb = GdbLine::of(line);
        bad_byte(line, base, prev_tdesc, after, &gdb, sink);
        prev_tdesc = is_tdesc;
        let entry = if let Some(p) = line.strip_prefix(b"R ") {
            let value = decode_register(p, at(base, 2), &span, sink);
            if let Some(v) = value {
                // Only the last value counts; keep a few for reporting, not one per line.
                if d.register_sizes.len() >= 64 {
                    d.register_sizes.pop();
                }
                d.register_sizes.push((v, span.clone()));
            }
            DescLine::Register { span, value }
        } else if let Some(p) = line.strip_prefix(b"status ") {
            let mut own = sink.child(usize::MAX);
            let st = decode_status(p, at(base, 7), &span, &mut own);
            leveled_by_gdb(own, &gdb, &[&rules::STATUS_MALFORMED], sink);
            d.statuses.push(st);
            DescLine::Status {
                span,
                index: d.statuses.len().saturating_sub(1),
            }
        } else if let Some(p) = line.strip_prefix(b"tp ") {
            let piece = p.first().copied().unwrap_or(0);
            let mut own = sink.child(usize::MAX);
            let read = gdb13::tp(p).ok();
            decode_tp(
                p,
                at(base, 3),
                &span,
                &mut d.tracepoints,
                &mut tp_index,
                read.as_ref(),
                &mut own,
            );
            // The condition bytecode of a `T` line is kept as text and never decoded; a `Z`
            // line's text is (a bad digit fails, an odd one is dropped): its hex findings stay.
            let same: &[&'static crate::rule::Rule] = if piece == b'T' {
                &[
                    &rules::TP_MALFORMED,
                    &rules::TP_CONDITION_LENGTH,
                    &rules::BAD_HEX_STRING,
                ]
            } else {
                &[&rules::TP_MALFORMED]
            };
            leveled_by_gdb(own, &gdb, same, sink);
            DescLine::Tp { span, piece }
        } else if let Some(p) = line.strip_prefix(b"tsv ") {
            let mut own = sink.child(usize::MAX);
            let strict = decode_tsv(p, at(base, 4), &span, &mut own);
            leveled_by_gdb(own, &gdb, &[&rules::TSV_MALFORMED], sink);
            // A line only GDB's positional parse reads still defines its variable.
            let t = strict.or_else(|| {
                gdb13::tsv(p).ok().map(|g| Tsv {
                    span: span.clone(),
                    num: g.num,
                    initial: g.initial as i64,
                    builtin: g.builtin,
                    name: g.name,
                    name_span: span.clone(),
                })
            });
            let index = t.map(|t| {
                d.tsvs.push(t);
                d.tsvs.len().saturating_sub(1)
            });
            DescLine::Tsv { span, index }
        } else if let Some(p) = line.strip_prefix(b"tdesc ") {
            if !tdesc_full {
                let new_len = d.tdesc.len().saturating_add(p.len()).saturating_add(1);
                if new_len > max_tdesc {
                    tdesc_full = true;
                    sink.limit(
                        span.clone(),
                        "target description size",
                        new_len as u64,
                        "max_section_bytes",
                        limits.max_section_bytes,
                    );
                } else {
                    d.tdesc.extend_from_slice(p);
                    d.tdesc.push(b'\n');
                    d.tdesc_lines.push(sp(base, 6, n));
                }
            }
            DescLine::Tdesc { span }
        } else {
            let mut f = sink.make(
                &rules::UNKNOWN_DEFINITION_LINE,
                span.clone(),
                format!(
                    "definition line `{}` starts with none of `R `, `status `, `tp `, `tsv `, `tdesc `; GDB ignores it",
                    show(line)
                ),
            );
            let trimmed = line.trim_ascii_start();
            if trimmed.len() != line.len() {
                f = f.note("the line starts with white space; prefixes must start the line");
            } else if let Some(k) = [&b"tdesc"[..], b"status", b"tsv", b"tp", b"R"]
                .into_iter()
                .find(|k| line.starts_with(k))
            {
                f = f.note(format!(
                    "`{}` must be followed by exactly one space",
                    show(k)
                ));
            }
            sink.push(f);
            DescLine::Unknown { span }
        };
        d.lines.push(entry);
        pos = next;
    }
    tp_index.finish(&mut d.tracepoints, sink);
    d.span = 8..end_of_section;
    d
}

fn decode_register(p: &[u8], base: u64, line: &Range<u64>, sink: &mut Sink) -> Option<u64> {
    match parse_hex(p) {
        Ok(v) if v > (1 << 20) => {
            sink.report(
                &rules::REGISTER_SIZE_INVALID,
                sp(base, 0, p.len()),
                format!("register block size 0x{v:x} ({v}) is absurd; GDB crashes on the first register read of such a file"),
            );
            None
        }
        Ok(v) => Some(v),
        Err(e) => {
            let mut f = sink.make(
                &rules::REGISTER_SIZE_INVALID,
                if p.is_empty() {
                    line.clone()
                } else {
                    sp(base, 0, p.len())
                },
                format!(
                    "the R line holds {}; expected canonical hex digits",
                    e.describe(p)
                ),
            );
            if p.starts_with(b"-") {
                f = f.note("a negative size crashes GDB 13.1 at the first register read");
            } else if p.starts_with(b"0x")
                || p.starts_with(b" ")
                || matches!(e, HexError::BadDigit(_))
            {
                f = f.note("GDB reads it with strtol and silently ignores a 0x prefix, spaces and trailing junk");
            }
            sink.push(f.help(
                "write the size as lowercase hex without prefix, e.g. `R 974` for 2420 bytes",
            ));
            None
        }
    }
}

/// Names GDB matches status keys against, in its order (a key matches any name it prefixes).
const GDB_STATUS_ORDER: [&str; 16] = [
    "tfull",
    "tnotrun",
    "tpasscount",
    "tstop",
    "tdisconnected",
    "terror",
    "tframes",
    "tcreated",
    "tfree",
    "tsize",
    "disconn",
    "circular",
    "starttime",
    "stoptime",
    "username",
    "notes",
];

fn gdb_prefix_match(key: &[u8]) -> Option<&'static str> {
    GDB_STATUS_ORDER
        .into_iter()
        .find(|n| n.as_bytes().starts_with(key))
}

fn report_hexstr(sink: &mut Sink, e: HexStrError, s: &[u8], base: u64, what: &str) {
    match e {
        HexStrError::BadDigit(i) => sink.report(
            &rules::BAD_HEX_STRING,
            sp(base, i, i.saturating_add(1)),
            format!(
                "{what} `{}` has the non-hex byte {} at position {i} (GDB: \"Invalid hex digit {}\")",
                show(s),
                show_byte(s.get(i).copied().unwrap_or(0)),
                s.get(i).copied().unwrap_or(0)
            ),
        ),
        HexStrError::Odd => sink.report(
            &rules::BAD_HEX_STRING,
            sp(base, 0, s.len()),
            format!(
                "{what} has an odd number of hex digits ({}); GDB drops the last one",
                s.len()
            ),
        ),
    }
}

fn status_num(v: &[u8], base: u64, key: &str, sink: &mut Sink) -> Option<u64> {
    match parse_hex(v) {
        Ok(n) => Some(n),
        Err(e) => {
            sink.report(
                &rules::STATUS_MALFORMED,
                if v.is_empty() {
                    base.saturating_sub(1)..base
                } else {
                    sp(base, 0, v.len())
                },
                format!(
                    "status field `{key}` holds {}; expected hex digits",
                    e.describe(v)
                ),
            );
            None
        }
    }
}

fn decode_status(p: &[u8], base: u64, line: &Range<u64>, sink: &mut Sink) -> Status {
    let mut st = Status {
        span: line.clone(),
        ..Status::default()
    };
    if p.is_empty() {
        sink.report(
            &rules::STATUS_EMPTY,
            line.clone(),
            "the status line has no payload (GDB then parses stale bytes: \"Malformed trace status\")",
        );
        return st;
    }
    let items: Vec<(usize, &[u8])> = fields(p, b';').collect();
    let mut it = items.into_iter();
    if let Some((i, run)) = it.next() {
        match run {
            b"0" => st.running = Some(false),
            b"1" => st.running = Some(true),
            _ => sink.report(
                &rules::STATUS_MALFORMED,
                sp(
                    base,
                    i,
                    i.saturating_add(run.len()).max(i.saturating_add(1)),
                ),
                format!(
                    "status starts with `{}`; expected the running flag `0` or `1` followed by `;`",
                    show(run)
                ),
            ),
        }
    }
    let mut first = true;
    let mut seen: Vec<FieldKey> = Vec::new();
    let mut any_reason = false;
    for (i, item) in it {
        let ibase = at(base, i);
        let ispan = sp(base, i, i.saturating_add(item.len()));
        let is_first = std::mem::replace(&mut first, false);
        if item.is_empty() {
            sink.report(
                &rules::STATUS_MALFORMED,
                ibase.saturating_sub(1)..ibase,
                "empty status field (stray `;`)",
            );
            continue;
        }
        let Some(colon) = item.iter().position(|&b| b == b':') else {
            sink.report(
                &rules::STATUS_MALFORMED,
                ispan,
                format!(
                    "status field `{}` has no `:` (GDB: \"Malformed trace status\")",
                    show(item)
                ),
            );
            continue;
        };
        let key = item.get(..colon).unwrap_or(&[]);
        let vstart = colon.saturating_add(1);
        let val = item.get(vstart..).unwrap_or(&[]);
        let vbase = at(ibase, vstart);
        if let Some(kind) = ReasonKind::from_key(key) {
            if !is_first || any_reason {
                sink.report(
                    &rules::STATUS_MALFORMED,
                    ispan.clone(),
                    format!(
                        "stop reason `{}` is not the first item after the running flag, or a second stop reason",
                        kind.name()
                    ),
                );
            }
            any_reason = true;
            st.reason = decode_reason(kind, val, vbase, ispan, sink).or(st.reason.take());
            continue;
        }
        if let Some(fk) = FieldKey::from_key(key) {
            if is_first {
                sink.report(
                    &rules::STATUS_MALFORMED,
                    ispan.clone(),
                    format!(
                        "the first status item is the field `{}`; expected a stop reason (tnotrun, tstop, tfull, tdisconnected, tpasscount, terror, tunknown)",
                        fk.name()
                    ),
                );
            }
            if seen.contains(&fk) {
                sink.report(
                    &rules::STATUS_DUPLICATE_FIELD,
                    ispan.clone(),
                    format!(
                        "status field `{}` occurs again; GDB keeps the last value",
                        fk.name()
                    ),
                );
            } else {
                seen.push(fk);
            }
            let value = if fk.is_text() {
                match decode_hexstr(val) {
                    Ok(t) => FieldValue::Text(t),
                    Err(e) => {
                        report_hexstr(
                            sink,
                            e,
                            val,
                            vbase,
                            &format!("status field `{}`", fk.name()),
                        );
                        FieldValue::Invalid
                    }
                }
            } else {
                match status_num(val, vbase, fk.name(), sink) {
                    Some(n) => FieldValue::Num(n),
                    None => FieldValue::Invalid,
                }
            };
            st.fields.push(StatusField {
                key: fk,
                value,
                span: ispan,
            });
            continue;
        }
        match gdb_prefix_match(key) {
            Some(name) => sink.report(
                &rules::STATUS_MALFORMED,
                sp(ibase, 0, colon),
                format!(
                    "status key `{}` is not a field name, but GDB matches it as a prefix of `{name}`",
                    show(key)
                ),
            ),
            None => sink.report(
                &rules::STATUS_UNKNOWN_FIELD,
                ispan,
                format!("status field `{}` is unknown; GDB skips it", show(key)),
            ),
        }
    }
    if !any_reason {
        sink.report(
            &rules::STATUS_MALFORMED,
            line.clone(),
            "the status line has no stop reason (tnotrun, tstop, tfull, tdisconnected, tpasscount, terror or tunknown)",
        );
    }
    st
}

fn decode_reason(
    kind: ReasonKind,
    val: &[u8],
    vbase: u64,
    span: Range<u64>,
    sink: &mut Sink,
) -> Option<StopReason> {
    let colon = val.iter().rposition(|&b| b == b':');
    let (text_part, tp_part, tp_off) = match (kind, colon) {
        (ReasonKind::Stop, Some(c)) | (ReasonKind::Error, Some(c)) => (
            Some(val.get(..c).unwrap_or(&[])),
            val.get(c.saturating_add(1)..).unwrap_or(&[]),
            c.saturating_add(1),
        ),
        (ReasonKind::Error, None) => {
            sink.report(
                &rules::STATUS_TERROR_MALFORMED,
                span,
                format!(
                    "`terror:{}` has no second `:` before the tracepoint number; GDB 13.1 aborts (\"virtual memory exhausted\")",
                    show(val)
                ),
            );
            return None;
        }
        _ => (None, val, 0),
    };
    let text = match text_part {
        Some(t) => match decode_hexstr(t) {
            Ok(v) => Some(v),
            Err(e) => {
                report_hexstr(sink, e, t, vbase, &format!("`{}` text", kind.name()));
                None
            }
        },
        None => None,
    };
    let tp_span = sp(vbase, tp_off, tp_off.saturating_add(tp_part.len()));
    let tp = status_num(tp_part, at(vbase, tp_off), kind.name(), sink);
    Some(StopReason {
        kind,
        text,
        tp,
        tp_span,
        span,
    })
}

fn decode_tsv(p: &[u8], base: u64, line: &Range<u64>, sink: &mut Sink) -> Option<Tsv> {
    let f: Vec<(usize, &[u8])> = fields(p, b':').collect();
    let [(_, num), (io, init), (bo, builtin), (no, name)] = f.as_slice() else {
        sink.report(
            &rules::TSV_MALFORMED,
            line.clone(),
            format!(
                "tsv line has {} field(s); expected 4: `num:initial:builtin:name`",
                f.len()
            ),
        );
        return None;
    };
    let mut ok = true;
    let mut num_of = |s: &[u8], o: usize, what: &str, sink: &mut Sink| match parse_hex(s) {
        Ok(v) => Some(v),
        Err(e) => {
            ok = false;
            sink.report(
                &rules::TSV_MALFORMED,
                if s.is_empty() {
                    line.clone()
                } else {
                    sp(base, o, o.saturating_add(s.len()))
                },
                format!("tsv {what} is {}; expected hex digits", e.describe(s)),
            );
            None
        }
    };
    let n = num_of(num, 0, "number", sink);
    let i = num_of(init, *io, "initial value", sink);
    let b = num_of(builtin, *bo, "builtin flag", sink);
    if let Some(b) = b {
        if b > 1 {
            ok = false;
            sink.report(
                &rules::TSV_MALFORMED,
                sp(base, *bo, bo.saturating_add(builtin.len())),
                format!("tsv builtin flag is {b}; expected 0 or 1"),
            );
        }
    }
    let name_span = sp(base, *no, no.saturating_add(name.len()));
    let decoded = match decode_hexstr(name) {
        Ok(v) => Some(v),
        Err(e) => {
            report_hexstr(sink, e, name, at(base, *no), "tsv name");
            None
        }
    };
    match (n, i, b, decoded, ok) {
        (Some(num), Some(initial), Some(builtin), Some(name), true) => Some(Tsv {
            span: line.clone(),
            num,
            initial: crate::reader::signed64(initial),
            builtin,
            name,
            name_span,
        }),
        _ => None,
    }
}

fn tp_num(
    s: &[u8],
    base: u64,
    o: usize,
    what: &str,
    line: &Range<u64>,
    sink: &mut Sink,
) -> Option<u64> {
    match parse_hex(s) {
        Ok(v) => Some(v),
        Err(e) => {
            sink.report(
                &rules::TP_MALFORMED,
                if s.is_empty() {
                    line.clone()
                } else {
                    sp(base, o, o.saturating_add(s.len()))
                },
                format!("tp {what} is {}; expected hex digits", e.describe(s)),
            );
            None
        }
    }
}

/// Decodes a `tp` line payload (after `tp `).
fn decode_tp(
    p: &[u8],
    base: u64,
    line: &Range<u64>,
    tps: &mut Vec<Tracepoint>,
    index: &mut TpIndex,
    gdb: Option<&gdb13::Tp>,
    sink: &mut Sink,
) {
    let Some((&piece, body)) = p.split_first() else {
        sink.report(&rules::TP_MALFORMED, line.clone(), "empty tp line");
        return;
    };
    let bbase = base.saturating_add(1);
    match piece {
        b'T' => {
            let strict = decode_tp_def(body, bbase, line, sink);
            // The tracepoint GDB creates is the one its positional parse reads.
            let t = match (strict, gdb.and_then(|g| g.def.as_ref().map(|d| (g, d)))) {
                (t, Some((g, d))) => {
                    let mut t = t.unwrap_or_else(|| Tracepoint {
                        span: line.clone(),
                        num_span: sp(bbase, 0, hex_run(body, 0).max(1)),
                        num: g.num,
                        addr: g.addr,
                        enabled: d.enabled,
                        step: d.step,
                        pass: d.pass,
                        fast: None,
                        is_static: false,
                        cond_len: None,
                        actions: 0,
                        step_actions: 0,
                        sources: Vec::new(),
                        stats: Vec::new(),
                    });
                    t.num = g.num;
                    t.addr = g.addr;
                    t.enabled = d.enabled;
                    t.step = d.step;
                    t.pass = d.pass;
                    t.fast = d.fast;
                    t.is_static = d.is_static;
                    t.cond_len = d.cond_len;
                    Some(t)
                }
                (t, None) => t,
            };
            if let Some(t) = t {
                index.by_key.insert((t.num, t.addr), tps.len());
                index.by_num.entry(t.num).or_insert(tps.len());
                tps.push(t);
            }
        }
        b'A' | b'S' | b'Z' | b'V' => {
            let n = match piece {
                b'Z' => 6,
                b'V' => 4,
                _ => 3,
            };
            let f = fields_n(body, b':', n);
            let short = f.len() < n;
            if short {
                let mut fnd = sink.make(
                    &rules::TP_MALFORMED,
                    line.clone(),
                    format!(
                        "`tp {}` line has {} field(s); expected {}",
                        char::from(piece),
                        f.len(),
                        match piece {
                            b'Z' => "6: `num:addr:type:start:len:hex`",
                            b'V' => "4: `num:addr:hits:usage`",
                            _ => "3: `num:addr:action`",
                        }
                    ),
                );
                if piece == b'Z' && f.len() <= 3 {
                    fnd = fnd.note("GDB 13.1 crashes (SIGSEGV) opening a file with a Z line that has no `:` after its type");
                }
                sink.push(fnd);
                if gdb.is_none() {
                    return;
                }
            }
            let (num, addr) = match (f.first(), f.get(1)) {
                (Some((_, a)), Some((o, b))) if !short => (
                    tp_num(a, bbase, 0, "number", line, sink),
                    tp_num(b, bbase, *o, "address", line, sink),
                ),
                _ => (None, None),
            };
            // GDB's positional parse where the fields do not split as written.
            let (num, addr) = match (num, addr, gdb) {
                (Some(n), Some(a), _) => (n, a),
                (_, _, Some(g)) => (g.num, g.addr),
                _ => return,
            };
            let Some(tp) = index.by_key.get(&(num, addr)).and_then(|&i| tps.get_mut(i)) else {
                let source = gdb.and_then(|g| g.source.clone()).map(|(ty, text)| Source {
                    span: line.clone(),
                    kind: match ty.as_slice() {
                        b"at" => SourceKind::At,
                        b"cond" => SourceKind::Cond,
                        b"cmd" => SourceKind::Cmd,
                        _ => SourceKind::Other,
                    },
                    text,
                });
                index.pending.push(Pending {
                    span: line.clone(),
                    piece,
                    num,
                    addr,
                    source,
                });
                return;
            };
            if short || f.len() < n {
                // Only GDB's positional parse reads the line: count the piece, keep the
                // source text it decodes.
                match piece {
                    b'A' => tp.actions = tp.actions.saturating_add(1),
                    b'S' => tp.step_actions = tp.step_actions.saturating_add(1),
                    b'Z' => {
                        if let Some((ty, text)) = gdb.and_then(|g| g.source.clone()) {
                            let kind = match ty.as_slice() {
                                b"at" => SourceKind::At,
                                b"cond" => SourceKind::Cond,
                                b"cmd" => SourceKind::Cmd,
                                _ => SourceKind::Other,
                            };
                            tp.sources.push(Source {
                                span: line.clone(),
                                kind,
                                text,
                            });
                        }
                    }
                    _ => {}
                }
                return;
            }
            match piece {
                b'A' | b'S' => {
                    if piece == b'A' {
                        tp.actions = tp.actions.saturating_add(1);
                    } else {
                        tp.step_actions = tp.step_actions.saturating_add(1);
                    }
                    if let Some((o, action)) = f.get(2) {
                        if let Err((i, why)) = check_action(action) {
                            sink.report(
                                &rules::TP_ACTION_SYNTAX,
                                sp(bbase, o.saturating_add(i), o.saturating_add(action.len()).max(o.saturating_add(i).saturating_add(1))),
                                format!("action `{}`: {why}; GDB 13.1 never parses A/S strings when it opens a file (it re-creates actions from the tp Z cmd lines), so it reads the file the same", show(action)),
                            );
                        }
                    }
                }
                b'V' => {
                    let (ho, hits) = f.get(2).copied().unwrap_or((0, &[]));
                    let (uo, usage) = f.get(3).copied().unwrap_or((0, &[]));
                    let mut ok = true;
                    for (o, s, what) in [(ho, hits, "hit count"), (uo, usage, "usage")] {
                        if let Err(e) = parse_hex(s) {
                            ok = false;
                            sink.report(
                                &rules::TP_MALFORMED,
                                if s.is_empty() { line.clone() } else { sp(bbase, o, o.saturating_add(s.len())) },
                                format!("tp V {what} is {}; expected hex digits", e.describe(s)),
                            );
                        }
                    }
                    if ok {
                        tp.stats.push(TpStats {
                            span: line.clone(),
                            hits: hits.to_vec(),
                            usage: usage.to_vec(),
                            counts_span: sp(bbase, ho, uo.saturating_add(usage.len())),
                        });
                    }
                }
                _ => {
                    let (to, ty) = f.get(2).copied().unwrap_or((0, &[]));
                    let (so, start) = f.get(3).copied().unwrap_or((0, &[]));
                    let (lo, len) = f.get(4).copied().unwrap_or((0, &[]));
                    let (xo, hex) = f.get(5).copied().unwrap_or((0, &[]));
                    let kind = match ty {
                        b"at" => SourceKind::At,
                        b"cond" => SourceKind::Cond,
                        b"cmd" => SourceKind::Cmd,
                        _ => SourceKind::Other,
                    };
                    if kind == SourceKind::Other {
                        sink.report(
                            &rules::TP_SOURCE_INCONSISTENT,
                            sp(bbase, to, to.saturating_add(ty.len())),
                            format!("source type `{}` is none of at, cond, cmd; GDB drops the line", show(ty)),
                        );
                    }
                    let start_v = tp_num(start, bbase, so, "source start", line, sink);
                    let len_v = tp_num(len, bbase, lo, "source length", line, sink);
                    let text = match decode_hexstr(hex) {
                        Ok(t) => t,
                        Err(e) => {
                            report_hexstr(sink, e, hex, at(bbase, xo), "tp source text");
                            return;
                        }
                    };
                    if let Some(s) = start_v.filter(|&s| s != 0) {
                        sink.report(
                            &rules::TP_SOURCE_INCONSISTENT,
                            sp(bbase, so, so.saturating_add(start.len())),
                            format!("source start is 0x{s:x}; GDB always writes 0"),
                        );
                    }
                    if let Some(l) = len_v.filter(|&l| l != text.len() as u64) {
                        sink.report(
                            &rules::TP_SOURCE_INCONSISTENT,
                            sp(bbase, lo, lo.saturating_add(len.len())),
                            format!(
                                "source length field is 0x{l:x} ({l}) but the text decodes to {} bytes",
                                text.len()
                            ),
                        );
                    }
                    tp.sources.push(Source {
                        span: line.clone(),
                        kind,
                        text,
                    });
                }
            }
        }
        other => sink.report(
            &rules::TP_UNKNOWN_PIECE,
            sp(base, 0, 1),
            format!(
                "unknown tracepoint piece {}; expected T, A, S, Z or V (GDB: \"Unrecognized tracepoint piece\")",
                show_byte(other)
            ),
        ),
    }
}

fn decode_tp_def(
    body: &[u8],
    bbase: u64,
    line: &Range<u64>,
    sink: &mut Sink,
) -> Option<Tracepoint> {
    let f: Vec<(usize, &[u8])> = fields(body, b':').collect();
    if f.len() < 5 {
        sink.report(
            &rules::TP_MALFORMED,
            line.clone(),
            format!(
                "`tp T` line has {} field(s); expected at least 5: `num:addr:E|D:step:pass`",
                f.len()
            ),
        );
        return None;
    }
    let get = |i: usize| f.get(i).copied().unwrap_or((0, &[]));
    let (_, num) = get(0);
    let (ao, addr) = get(1);
    let (eo, en) = get(2);
    let (so, step) = get(3);
    let (po, pass) = get(4);
    let num_v = tp_num(num, bbase, 0, "number", line, sink);
    let addr_v = tp_num(addr, bbase, ao, "address", line, sink);
    let step_v = tp_num(step, bbase, so, "step count", line, sink);
    let pass_v = tp_num(pass, bbase, po, "pass count", line, sink);
    let enabled = match en {
        b"E" => true,
        b"D" => false,
        _ => {
            sink.report(
                &rules::TP_MALFORMED,
                sp(bbase, eo, eo.saturating_add(en.len()).max(eo.saturating_add(1))),
                format!(
                    "tracepoint enable flag is `{}`; expected `E` or `D` (GDB treats anything else as disabled)",
                    show(en)
                ),
            );
            false
        }
    };
    let mut fast = None;
    let mut is_static = false;
    let mut cond_len = None;
    let mut seen: Vec<u8> = Vec::new();
    for &(o, opt) in f.iter().skip(5) {
        let Some((&letter, arg)) = opt.split_first() else {
            sink.report(
                &rules::TP_MALFORMED,
                sp(bbase, o.saturating_sub(1), o),
                "empty tracepoint option (stray `:`)",
            );
            continue;
        };
        let ospan = sp(bbase, o, o.saturating_add(opt.len()));
        if matches!(letter, b'F' | b'S' | b'X') {
            if seen.contains(&letter) {
                sink.report(
                    &rules::TP_UNKNOWN_PIECE,
                    ospan.clone(),
                    format!("tracepoint option `{}` occurs twice", char::from(letter)),
                );
            }
            seen.push(letter);
        }
        match letter {
            b'F' => fast = tp_num(arg, bbase, o.saturating_add(1), "fast tracepoint size", line, sink),
            b'S' => {
                is_static = true;
                if !arg.is_empty() {
                    sink.report(&rules::TP_MALFORMED, ospan, "static tracepoint option `S` takes no value");
                }
            }
            b'X' => {
                let Some(comma) = arg.iter().position(|&b| b == b',') else {
                    sink.report(
                        &rules::TP_MALFORMED,
                        ospan,
                        "condition option `X` has no `,` between its length and bytecode",
                    );
                    continue;
                };
                let lens = arg.get(..comma).unwrap_or(&[]);
                let hex = arg.get(comma.saturating_add(1)..).unwrap_or(&[]);
                match parse_hex(lens) {
                    Ok(l) => {
                        cond_len = Some(l);
                        if l.checked_mul(2) != Some(hex.len() as u64) {
                            let mut fnd = sink.make(
                                &rules::TP_CONDITION_LENGTH,
                                ospan,
                                format!(
                                    "condition length is 0x{l:x} ({l}) bytes = {} hex digits, but {} digits follow",
                                    u128::from(l).saturating_mul(2),
                                    hex.len()
                                ),
                            );
                            if l > (1 << 24) {
                                fnd = fnd.note("GDB 13.1 aborts on such a length (\"virtual memory exhausted\")");
                            }
                            sink.push(fnd);
                        } else if let Err(e) = decode_hexstr(hex) {
                            report_hexstr(sink, e, hex, at(bbase, o.saturating_add(2).saturating_add(comma)), "condition bytecode");
                        }
                    }
                    Err(e) => {
                        let fnd = sink.make(
                            &rules::TP_CONDITION_LENGTH,
                            ospan,
                            format!("condition length is {}; expected hex digits", e.describe(lens)),
                        );
                        sink.push(fnd);
                    }
                }
            }
            other => sink.report(
                &rules::TP_UNKNOWN_PIECE,
                ospan,
                format!(
                    "unknown tracepoint option {}; expected F, S or X (GDB: \"Unrecognized char … in tracepoint definition, skipping rest\")",
                    show_byte(other)
                ),
            ),
        }
    }
    let num_len = num.len();
    let (Some(num), Some(addr)) = (num_v, addr_v) else {
        return None;
    };
    Some(Tracepoint {
        span: line.clone(),
        num_span: sp(bbase, 0, num_len),
        num,
        addr,
        enabled,
        step: step_v.unwrap_or(0),
        pass: pass_v.unwrap_or(0),
        fast,
        is_static,
        cond_len,
        actions: 0,
        step_actions: 0,
        sources: Vec::new(),
        stats: Vec::new(),
    })
}

fn hex_run(s: &[u8], from: usize) -> usize {
    s.get(from..)
        .unwrap_or(&[])
        .iter()
        .take_while(|&&b| hex_val(b).is_some())
        .count()
}

/// Checks an `A`/`S` action string. On error returns (index, reason).
pub(crate) fn check_action(s: &[u8]) -> Result<(), (usize, &'static str)> {
    if s.is_empty() {
        return Err((0, "empty action"));
    }
    let mut i = 0usize;
    while let Some(&c) = s.get(i) {
        let next = i.saturating_add(1);
        match c {
            b'R' => {
                let n = hex_run(s, next);
                if n == 0 {
                    return Err((i, "register mask `R` needs hex digits"));
                }
                if n % 2 != 0 {
                    return Err((i, "register mask has an odd number of hex digits"));
                }
                i = next.saturating_add(n);
            }
            b'M' => {
                let mut j = next;
                if s.get(j..).is_some_and(|r| r.starts_with(b"-1")) {
                    j = j.saturating_add(2);
                } else {
                    let n = hex_run(s, j);
                    if n == 0 {
                        return Err((i, "memory action `M` needs a base register (hex or -1)"));
                    }
                    j = j.saturating_add(n);
                }
                for _ in 0..2 {
                    if s.get(j) != Some(&b',') {
                        return Err((j, "memory action needs `M<basereg>,<offset>,<length>`"));
                    }
                    j = j.saturating_add(1);
                    let n = hex_run(s, j);
                    if n == 0 {
                        return Err((j, "memory action offset/length needs hex digits"));
                    }
                    j = j.saturating_add(n);
                }
                i = j;
            }
            b'X' => {
                let lens = s.get(next..next.saturating_add(8)).unwrap_or(&[]);
                let Ok(len) = parse_hex(lens).map_err(|_| ()).and_then(|v| {
                    if lens.len() == 8 {
                        Ok(v)
                    } else {
                        Err(())
                    }
                }) else {
                    return Err((i, "bytecode action `X` needs an 8-digit hex length"));
                };
                let j = next.saturating_add(8);
                if s.get(j) != Some(&b',') {
                    return Err((j, "bytecode action needs `,` after its length"));
                }
                let j = j.saturating_add(1);
                let n = hex_run(s, j) as u64;
                let want = len.saturating_mul(2);
                if n < want {
                    return Err((j, "bytecode is shorter than its length"));
                }
                i = j.saturating_add(usize::try_from(want).unwrap_or(usize::MAX));
            }
            _ => return Err((i, "unknown action letter (expected R, M or X)")),
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "text_tests.rs"]
mod tests;
