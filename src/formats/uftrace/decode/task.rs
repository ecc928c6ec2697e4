//! `task.txt`: sessions, tasks, forks and dlopen records.

use super::super::rules;
use super::info::Producer;
use super::text::{self, parse_hex, parse_ts, parse_u64, show, sub_span};
use crate::finding::Sink;
use crate::limits::Limits;
use crate::reader::Line;
use std::cell::Cell;
use std::ops::Range;

/// A SESS line.
#[derive(Clone, Debug)]
pub struct Session {
    /// Timestamp (ns).
    pub ts: u64,
    /// Process id.
    pub pid: u64,
    /// Session id (16 hex digits when valid).
    pub sid: String,
    /// Executable path.
    pub exename: String,
    /// Span of the line in task.txt.
    pub span: Range<u64>,
}

/// A TASK or FORK line.
#[derive(Clone, Debug)]
pub struct Task {
    /// Timestamp (ns).
    pub ts: u64,
    /// Thread id.
    pub tid: u64,
    /// Process id (TASK) or the child pid itself (FORK).
    pub pid: u64,
    /// Parent pid for FORK.
    pub ppid: Option<u64>,
    /// Span of the line.
    pub span: Range<u64>,
}

/// A DLOP line.
#[derive(Clone, Debug)]
pub struct Dlopen {
    /// Timestamp (ns).
    pub ts: u64,
    /// Thread id.
    pub tid: u64,
    /// Session id.
    pub sid: String,
    /// Load base.
    pub base: u64,
    /// Library path as passed to dlopen.
    pub libname: String,
    /// Span of the line.
    pub span: Range<u64>,
}

/// The decoded task.txt.
#[derive(Clone, Debug, Default)]
pub struct TaskFile {
    /// SESS lines in file order.
    pub sessions: Vec<Session>,
    /// TASK and FORK lines in file order.
    pub tasks: Vec<Task>,
    /// DLOP lines.
    pub dlopens: Vec<Dlopen>,
}

fn bad(sink: &mut Sink, line: &Line<'_>, expected: &str) {
    sink.report(
        &rules::TASK_LINE_MALFORMED,
        line.span(),
        format!(
            "`task.txt` line `{}` does not match `{}`",
            show(line.text),
            expected
        ),
    );
}

/// The value of `exename="..."`-style quoted field: from the opening quote to the last quote.
fn quoted<'a>(rest: &'a [u8], key: &str) -> Option<&'a [u8]> {
    let body = rest.strip_prefix(key.as_bytes())?.strip_prefix(b"=\"")?;
    body.strip_suffix(b"\"")
}

const SESS_FMT: &str = "SESS timestamp=<sec>.<9 digits> pid=<pid> sid=<16 hex> exename=\"<path>\"";
const TASK_FMT: &str = "TASK timestamp=<sec>.<9 digits> tid=<tid> pid=<pid>";
const FORK_FMT: &str = "FORK timestamp=<sec>.<9 digits> pid=<pid> ppid=<ppid>";
const DLOP_FMT: &str =
    "DLOP timestamp=<sec>.<9 digits> tid=<tid> sid=<16 hex> base=<hex> libname=\"<path>\"";

fn check_sid(sink: &mut Sink, line: &Line<'_>, sid: &[u8]) {
    if !text::is_lower_hex(sid, 16) {
        // uftrace copies the sid with `%s` into a 16-byte buffer and then only uses it as a
        // string (the `sid-<sid>.map` file name): a longer one overflows the buffer.
        let (level, what) = if sid.len() > 16 {
            (
                crate::finding::Severity::Error,
                "uftrace 0.13 reads it with an unbounded %s into a 16-byte stack buffer and crashes (SIGSEGV)",
            )
        } else {
            (
                crate::finding::Severity::Warning,
                "uftrace 0.9.4–0.18.1 use it as a string only (the name of its `sid-*.map`)",
            )
        };
        let f = sink
            .make(
                &rules::BAD_SID,
                sub_span(line, sid),
                format!(
                    "session id `{}` ({} bytes) is not 16 lowercase hex digits; {what}",
                    show(sid),
                    sid.len()
                ),
            )
            .level(level)
            .impact(
                "uftrace",
                if level == crate::finding::Severity::Error {
                    "0.13"
                } else {
                    "0.9.4–0.18.1"
                },
                if level == crate::finding::Severity::Error {
                    "crash"
                } else {
                    "same"
                },
            );
        sink.push(f);
    }
}

/// Decodes task.txt.
///
/// `producer` names the writer in quirk findings.
pub fn decode(data: &[u8], limits: &Limits, producer: &Producer, sink: &mut Sink) -> TaskFile {
    let mut tf = TaskFile::default();
    let mut last_ts: Option<u64> = None;
    let mut count: u64 = 0;
    let mut legacy_sess = false;
    for line in text::lines(data) {
        count = count.saturating_add(1);
        if count > limits.max_entries {
            sink.limit(
                line.span(),
                "task.txt line count",
                count,
                "max_entries",
                limits.max_entries,
            );
            break;
        }
        let t = line.text;
        if !line.terminated {
            bad(sink, &line, "a line ending with a newline");
        }
        let kind = t.get(..4).unwrap_or(t);
        let rest = t.get(5..).unwrap_or(&[]);
        if t.get(4) != Some(&b' ') && matches!(kind, b"SESS" | b"TASK" | b"FORK" | b"DLOP") {
            bad(sink, &line, "<TYPE> <fields>");
            continue;
        }
        let fields = Fields {
            line: &line,
            rest,
            lenient_ts: Cell::new(None),
        };
        let ts = match kind {
            b"SESS" => sess_line(&fields, producer, &mut legacy_sess, sink, &mut tf),
            b"TASK" | b"FORK" => task_line(&fields, kind == b"FORK", sink, &mut tf),
            b"DLOP" => dlop_line(&fields, sink, &mut tf),
            _ => {
                other_line(&line, sink);
                None
            }
        };
        if let (Some(ts), Some(span)) = (ts, fields.lenient_ts.take()) {
            let f = sink
                .make(
                    &rules::TASK_LINE_MALFORMED,
                    span,
                    format!(
                        "timestamp of `{}` is not `<sec>.<9 digits>`; uftrace 0.9.4–0.18.1 read it with `%lu.%lu` as {}",
                        show(t),
                        fmt_ts(ts)
                    ),
                )
                .read_same("uftrace", "0.9.4–0.18.1");
            sink.push(f);
        }
        if let Some(ts) = ts {
            if let Some(prev) = last_ts {
                if ts < prev {
                    sink.report(
                        &rules::TASK_TIME_ORDER,
                        line.span(),
                        format!(
                            "timestamp {} is earlier than the previous line's {}",
                            fmt_ts(ts),
                            fmt_ts(prev)
                        ),
                    );
                }
            }
            last_ts = Some(ts);
        }
    }
    tf
}

/// The fields of a line of a known kind (after `<TYPE> `).
struct Fields<'l, 'a> {
    line: &'l Line<'a>,
    rest: &'a [u8],
    /// The span of a timestamp only uftrace's `%lu.%lu` reads, once read.
    lenient_ts: Cell<Option<Range<u64>>>,
}

impl<'a> Fields<'_, 'a> {
    /// The leading `timestamp=` field and the fields after it.
    ///
    /// uftrace reads the timestamp with `%lu.%lu` (utils/data-file.c, 0.9.4–0.18.1): any
    /// number of fraction digits, taken as nanoseconds. A timestamp only that reads is a
    /// warning (third-party writers write `0.0`); the line is read on.
    fn ts(&self) -> Option<(u64, &'a [u8])> {
        let (f, rest) = split1(self.rest);
        let v = text::kv(f, "timestamp")?;
        let ts = match parse_ts(v) {
            Some(ts) => ts,
            None => {
                let ts = text::parse_ts_scanf(v)?;
                self.lenient_ts.set(Some(sub_span(self.line, f)));
                ts
            }
        };
        Some((ts, rest))
    }
}

/// A SESS line; returns its timestamp if it parses.
fn sess_line(
    fields: &Fields<'_, '_>,
    producer: &Producer,
    legacy_sess: &mut bool,
    sink: &mut Sink,
    tf: &mut TaskFile,
) -> Option<u64> {
    let line = fields.line;
    let parsed = (|| {
        let (ts, r) = fields.ts()?;
        let (pidf, r) = split1(r);
        // uftrace 0.6 wrote `tid=`; readers scan `%*[^i]id=` and take either.
        let pid = match text::kv(pidf, "pid") {
            Some(v) => parse_u64(v)?,
            None => {
                let v = parse_u64(text::kv(pidf, "tid")?)?;
                if !*legacy_sess {
                    *legacy_sess = true;
                    sink.report(
                        &rules::TASK_LEGACY_FIELD,
                        sub_span(line, pidf),
                        format!(
                            "SESS line with `tid=` instead of `pid=`: written by {}; uftrace 0.6 writes it so, and readers take either",
                            producer.describe()
                        ),
                    );
                }
                v
            }
        };
        let (sidf, r) = split1(r);
        let sid = text::kv(sidf, "sid")?;
        let exe = quoted(r, "exename")?;
        Some((ts, pid, sid, exe))
    })();
    let Some((ts, pid, sid, exe)) = parsed else {
        bad(sink, line, SESS_FMT);
        return None;
    };
    check_sid(sink, line, sid);
    tf.sessions.push(Session {
        ts,
        pid,
        sid: String::from_utf8_lossy(sid).into_owned(),
        exename: String::from_utf8_lossy(exe).into_owned(),
        span: line.span(),
    });
    Some(ts)
}

/// A TASK or FORK line; returns its timestamp if it parses.
fn task_line(
    fields: &Fields<'_, '_>,
    is_fork: bool,
    sink: &mut Sink,
    tf: &mut TaskFile,
) -> Option<u64> {
    let line = fields.line;
    let parsed = (|| {
        let (ts, r) = fields.ts()?;
        let (a, r) = split1(r);
        let (b, r) = split1(r);
        if !r.is_empty() {
            return None;
        }
        if is_fork {
            let pid = parse_u64(text::kv(a, "pid")?)?;
            let ppid = parse_u64(text::kv(b, "ppid")?)?;
            Some((ts, pid, pid, Some(ppid)))
        } else {
            let tid = parse_u64(text::kv(a, "tid")?)?;
            let pid = parse_u64(text::kv(b, "pid")?)?;
            Some((ts, tid, pid, None))
        }
    })();
    let Some((ts, tid, pid, ppid)) = parsed else {
        bad(sink, line, if is_fork { FORK_FMT } else { TASK_FMT });
        return None;
    };
    if tid == 0 || tid > u64::from(u32::MAX) || pid > u64::from(u32::MAX) {
        bad(sink, line, "tids and pids between 1 and 2^32-1");
    }
    tf.tasks.push(Task {
        ts,
        tid,
        pid,
        ppid,
        span: line.span(),
    });
    Some(ts)
}

/// A DLOP line; returns its timestamp if it parses.
fn dlop_line(fields: &Fields<'_, '_>, sink: &mut Sink, tf: &mut TaskFile) -> Option<u64> {
    let line = fields.line;
    let parsed = (|| {
        let (ts, r) = fields.ts()?;
        let (tidf, r) = split1(r);
        let tid = parse_u64(text::kv(tidf, "tid")?)?;
        let (sidf, r) = split1(r);
        let sid = text::kv(sidf, "sid")?;
        let (basef, r) = split1(r);
        let base = parse_hex(text::kv(basef, "base")?)?;
        let lib = quoted(r, "libname")?;
        Some((ts, tid, sid, base, lib))
    })();
    let Some((ts, tid, sid, base, lib)) = parsed else {
        bad(sink, line, DLOP_FMT);
        return None;
    };
    check_sid(sink, line, sid);
    tf.dlopens.push(Dlopen {
        ts,
        tid,
        sid: String::from_utf8_lossy(sid).into_owned(),
        base,
        libname: String::from_utf8_lossy(lib).into_owned(),
        span: line.span(),
    });
    Some(ts)
}

/// A line of no kind uftrace reads: a record type of a later uftrace, or not a record.
fn other_line(line: &Line<'_>, sink: &mut Sink) {
    let t = line.text;
    if looks_like_record(t) {
        sink.report(
            &rules::TASK_NEWER_LINE,
            line.span(),
            format!(
                "`task.txt` line `{}` has a record type no uftrace up to 0.18 writes; \
                 uftrace skips it and reads the other lines the same",
                show(t)
            ),
        );
    } else {
        sink.report(
            &rules::TASK_UNKNOWN_LINE,
            line.span(),
            format!(
                "`task.txt` line `{}` is not a SESS, TASK, FORK or DLOP record",
                show(t)
            ),
        );
    }
}

/// Splits off the first space-separated field.
fn split1(s: &[u8]) -> (&[u8], &[u8]) {
    match s.iter().position(|&c| c == b' ') {
        Some(i) => (
            s.get(..i).unwrap_or(&[]),
            s.get(i.saturating_add(1)..).unwrap_or(&[]),
        ),
        None => (s, &[]),
    }
}

/// `sec.nsec` display.
pub fn fmt_ts(ns: u64) -> String {
    format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000)
}

/// A line shaped like a `task.txt` record of some type: an upper-case type word of 2 to 16
/// letters, then one or more `key=value` fields with lower-case keys.
fn looks_like_record(t: &[u8]) -> bool {
    let mut words = t.split(|&b| b == b' ');
    let Some(kind) = words.next() else {
        return false;
    };
    if !(2..=16).contains(&kind.len()) || !kind.iter().all(u8::is_ascii_uppercase) {
        return false;
    }
    let mut any_field = false;
    for w in words {
        let Some(eq) = w.iter().position(|&b| b == b'=') else {
            return false;
        };
        let key = w.get(..eq).unwrap_or(&[]);
        if key.is_empty() || !key.iter().all(|&b| b.is_ascii_lowercase() || b == b'_') {
            return false;
        }
        any_field = true;
    }
    any_field
}
