//! `*.dbg` debug files: `F:` function entries with `L:` source lines and `A:`/`R:` argument
//! specs, `E:` enum definitions.

use super::super::rules;
use super::text::{self, parse_hex, show};
use crate::finding::Sink;
use crate::limits::Limits;
use std::ops::Range;

/// One `F:` entry.
#[derive(Clone, Debug)]
pub struct DbgFunc {
    /// Relative address.
    pub addr: u64,
    /// Name.
    pub name: String,
    /// `A:` spec (without the leading name).
    pub args: Option<String>,
    /// `R:` spec.
    pub ret: Option<String>,
    /// A second `A:` (`.0`) or `R:` (`.1`) line for this function: uftrace's
    /// `add_debug_entry` (utils/dwarf.c, 0.9.4–0.18.1) then marks the spec broken and drops it.
    pub conflict: (bool, bool),
    /// Span of the `F:` line.
    pub span: Range<u64>,
}

/// A decoded `.dbg` file.
#[derive(Clone, Debug, Default)]
pub struct DbgFile {
    /// `# path name:`.
    pub path: Option<String>,
    /// Header lines as uftrace's `match_debug_file` reads them, in order: (is it the path
    /// line, its value); the last one decides whether the file belongs to the module.
    pub header: Vec<(bool, String)>,
    /// Functions, in file order.
    pub funcs: Vec<DbgFunc>,
    /// A line uftrace's `read_debug_file` gives up on (not `X: `, an unknown code, `A:`/`R:`
    /// before any `F:`, an `E:` it cannot parse): it then drops every argument spec of the file.
    pub broken: Option<Range<u64>>,
}

/// Decodes one `.dbg` file.
pub fn decode(data: &[u8], limits: &Limits, sink: &mut Sink) -> DbgFile {
    let mut d = DbgFile::default();
    for line in text::lines(data) {
        let s = line.text;
        if !line.terminated {
            let f = sink
                .make(
                    &rules::DBG_LINE_MALFORMED,
                    line.span(),
                    "the last `.dbg` line has no terminating newline",
                )
                .note(
                    "uftrace chops the last character of every line, so a real character is lost",
                );
            sink.push(f);
        }
        if let Some(h) = s.strip_prefix(b"#") {
            if let Some(p) = h.strip_prefix(b" path name: ") {
                d.path = Some(String::from_utf8_lossy(p).into_owned());
                d.header
                    .push((true, String::from_utf8_lossy(p).into_owned()));
            } else if let Some(b) = h.strip_prefix(b" build-id: ") {
                d.header
                    .push((false, String::from_utf8_lossy(b).into_owned()));
            }
            continue;
        }
        if d.funcs.len() as u64 >= limits.max_entries {
            sink.limit(
                line.span(),
                "debug entry count",
                d.funcs.len() as u64,
                "max_entries",
                limits.max_entries,
            );
            break;
        }
        let bad = |sink: &mut Sink, what: &str| {
            sink.report(
                &rules::DBG_LINE_MALFORMED,
                line.span(),
                format!("`.dbg` line `{}` {what}", show(s)),
            );
        };
        let (Some(&code), Some(b": ")) = (s.first(), s.get(1..3)) else {
            bad(sink, "is not `X: payload`");
            d.broken.get_or_insert(line.span());
            continue;
        };
        let payload = s.get(3..).unwrap_or(&[]);
        match code {
            b'F' => {
                let mut it = payload.splitn(2, |&c| c == b' ');
                let addr = it.next().and_then(parse_hex);
                let name = it.next().filter(|n| !n.is_empty());
                match (addr, name) {
                    (Some(addr), Some(name)) => d.funcs.push(DbgFunc {
                        addr,
                        name: String::from_utf8_lossy(name).into_owned(),
                        args: None,
                        ret: None,
                        conflict: (false, false),
                        span: line.span(),
                    }),
                    _ => bad(sink, "is not `F: <hex address> <name>`"),
                }
            }
            b'L' | b'A' | b'R' => {
                let Some(f) = d.funcs.last_mut() else {
                    bad(sink, "comes before any `F:` line");
                    if code != b'L' {
                        d.broken.get_or_insert(line.span());
                    }
                    continue;
                };
                match code {
                    b'L' => {
                        let mut it = payload.splitn(2, |&c| c == b' ');
                        let n = it.next().and_then(text::parse_u64);
                        if n.is_none() || it.next().is_none_or(<[u8]>::is_empty) {
                            bad(sink, "is not `L: <line> <file>`");
                        }
                    }
                    b'A' | b'R' => {
                        let spec = String::from_utf8_lossy(payload).into_owned();
                        if !spec.starts_with('@') {
                            bad(sink, "is not `A: @<spec>` / `R: @<spec>`");
                        } else if code == b'A' {
                            f.conflict.0 |= f.args.is_some();
                            f.args = Some(spec);
                        } else {
                            f.conflict.1 |= f.ret.is_some();
                            f.ret = Some(spec);
                        }
                    }
                    _ => {}
                }
            }
            b'E' => {
                if !payload.starts_with(b"enum ") {
                    bad(sink, "is not `E: enum <name> {...}`");
                    d.broken.get_or_insert(line.span());
                }
            }
            _ => {
                bad(sink, "has an unknown code (expected F, L, A, R or E)");
                d.broken.get_or_insert(line.span());
            }
        }
    }
    if let Some(span) = &d.broken {
        let f = sink
            .make(
                &rules::DBG_LINE_MALFORMED,
                span.clone(),
                "uftrace 0.9.4–0.18.1 stop reading this `.dbg` file at this line (\"invalid dbg file\") and drop every argument spec it gave",
            )
            .note("records with argument payloads of its functions then stop their task's reading with \"record missing argument info\"");
        sink.push(f);
    }
    d
}
