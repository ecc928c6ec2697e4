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
    /// Span of the `F:` line.
    pub span: Range<u64>,
}

/// A decoded `.dbg` file.
#[derive(Clone, Debug, Default)]
pub struct DbgFile {
    /// `# path name:`.
    pub path: Option<String>,
    /// Functions, in file order.
    pub funcs: Vec<DbgFunc>,
}

/// Decodes one `.dbg` file.
pub fn decode(data: &[u8], limits: &Limits, sink: &mut Sink) -> DbgFile {
    let mut d = DbgFile::default();
    for line in text::lines(data) {
        let s = line.text;
        if !line.terminated {
            let f = sink
                .make(
                    &rules::DBG_LINE,
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
                &rules::DBG_LINE,
                line.span(),
                format!("`.dbg` line `{}` {what}", show(s)),
            );
        };
        let (Some(&code), Some(b": ")) = (s.first(), s.get(1..3)) else {
            bad(sink, "is not `X: payload`");
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
                        span: line.span(),
                    }),
                    _ => bad(sink, "is not `F: <hex address> <name>`"),
                }
            }
            b'L' | b'A' | b'R' => {
                let Some(f) = d.funcs.last_mut() else {
                    bad(sink, "comes before any `F:` line");
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
                            f.args = Some(spec);
                        } else {
                            f.ret = Some(spec);
                        }
                    }
                    _ => {}
                }
            }
            b'E' => {
                if !payload.starts_with(b"enum ") {
                    bad(sink, "is not `E: enum <name> {...}`");
                }
            }
            _ => bad(sink, "has an unknown code (expected F, L, A, R or E)"),
        }
    }
    d
}
