//! Metadata items (v6 header items, v7 sections 16–21) and their text payloads.

use super::super::model::{EventFormat, Field, HeaderPage, Meta};
use super::super::rules;
use super::ctx::{Ctx, Loc, V2Fail};
use super::tep;
use crate::finding::Capped;
use crate::reader::{ReadResult, Reader};
use std::ops::Range;

/// Decoding stops after an error that makes the rest unreadable (already reported).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stop;

/// Continue or stop.
pub type Flow = Result<(), Stop>;

/// Findings of one kind reported per text before only counting.
const TEXT_REPORT_CAP: u64 = 5;

fn rd<T>(ctx: &mut Ctx<'_, '_>, loc: &Loc, v: ReadResult<T>) -> Result<T, Stop> {
    v.map_err(|e| {
        ctx.read_error(&rules::TRUNCATED, loc, &e);
        Stop
    })
}

fn span_of(start: u64, len: usize) -> Range<u64> {
    start..start.saturating_add(len as u64)
}

/// Reads a length-prefixed block whose length is `len` (already read at `len_span`), checking
/// it against the bytes that remain first.
fn sized<'a>(
    ctx: &mut Ctx<'_, '_>,
    r: &mut Reader<'a>,
    loc: &Loc,
    len: u64,
    len_span: Range<u64>,
    what: &str,
) -> Result<Reader<'a>, Stop> {
    let remaining = r.remaining() as u64;
    if len > remaining {
        ctx.report(
            &rules::METADATA_SIZE,
            loc,
            len_span,
            format!("{what} size {len} is larger than the {remaining} bytes that remain"),
        );
        return Err(Stop);
    }
    rd(ctx, loc, r.sub(len, "metadata block"))
}

fn expect_tag(
    ctx: &mut Ctx<'_, '_>,
    r: &mut Reader<'_>,
    loc: &Loc,
    tag: &[u8],
    what: &'static str,
) -> Flow {
    let start = r.offset();
    let got = rd(ctx, loc, r.bytes(tag.len(), what))?;
    if got != tag {
        ctx.report(
            &rules::BAD_TAG,
            loc,
            span_of(start, tag.len()),
            format!(
                "expected the tag {:?}, found {:?}",
                String::from_utf8_lossy(tag),
                String::from_utf8_lossy(got)
            ),
        );
        return Err(Stop);
    }
    Ok(())
}

/// HEADER_INFO: `header_page\0` u64 size text, `header_event\0` u64 size text.
pub fn header_info(ctx: &mut Ctx<'_, '_>, r: &mut Reader<'_>, loc: &Loc, meta: &mut Meta) -> Flow {
    expect_tag(ctx, r, loc, b"header_page\0", "header_page tag")?;
    let ls = r.offset();
    let size = rd(ctx, loc, r.u64("header_page size"))?;
    let text = sized(ctx, r, loc, size, span_of(ls, 8), "header_page")?;
    meta.header_page = header_page(ctx, &text, loc);
    expect_tag(ctx, r, loc, b"header_event\0", "header_event tag")?;
    let ls = r.offset();
    let size = rd(ctx, loc, r.u64("header_event size"))?;
    let text = sized(ctx, r, loc, size, span_of(ls, 8), "header_event")?;
    meta.header_event_old = header_event(ctx, &text, loc);
    Ok(())
}

/// A parsed `field:` line.
struct FieldLine {
    decl: String,
    name: String,
    offset: u32,
    size: u32,
    signed: Option<bool>,
}

fn parse_num(s: &str) -> Option<u32> {
    let s = s.trim();
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Parses `field:<decl>;\toffset:N;\tsize:N;\tsigned:N;`. Returns an explanation on failure.
fn parse_field_line(line: &str) -> Result<FieldLine, String> {
    let t = line.trim();
    let rest = t
        .strip_prefix("field:")
        .ok_or_else(|| "a field line must start with `field:`".to_string())?;
    let mut parts = rest.split(';');
    let decl = parts.next().unwrap_or("").trim().to_string();
    if decl.is_empty() {
        return Err("empty field declaration".into());
    }
    // libtraceevent's tokenizer (`get_type`) reads a byte that is neither printable nor a
    // space (a control byte, any byte from 0x80) as no token, and the field then does not
    // parse ("event_read_fields: no type found", or a type test that fails).
    if let Some(c) = decl
        .chars()
        .find(|c| !(c.is_ascii_graphic() || matches!(c, ' ' | '\t' | '\x0b' | '\x0c' | '\r')))
    {
        let shown = if c == char::REPLACEMENT_CHARACTER {
            "a byte that is not UTF-8".to_string()
        } else {
            format!("{c:?}")
        };
        return Err(format!(
            "`{}` holds {shown}, which libtraceevent's tokenizer reads as no token: it cannot parse the field",
            decl.escape_debug()
        ));
    }
    let (mut offset, mut size, mut signed) = (None, None, None);
    for p in parts {
        let p = p.trim();
        if p.is_empty() {
            continue;
        }
        let Some((k, v)) = p.split_once(':') else {
            return Err(format!("`{p}` is not `key:value`"));
        };
        let n =
            parse_num(v).ok_or_else(|| format!("`{p}`: `{}` is not a decimal number", v.trim()))?;
        match k.trim() {
            "offset" => offset = Some(n),
            "size" => size = Some(n),
            "signed" => {
                if n > 1 {
                    return Err(format!("`signed:{n}` must be 0 or 1"));
                }
                signed = Some(n == 1)
            }
            other => return Err(format!("unknown attribute `{other}`")),
        }
    }
    let offset = offset.ok_or_else(|| "missing `offset:`".to_string())?;
    let size = size.ok_or_else(|| "missing `size:`".to_string())?;
    // The field name is the last identifier once every `[...]` group is removed
    // (`char comm[16]`, and `__data_loc char[] name` where the brackets come first).
    let mut depth = 0u32;
    let base: String = decl
        .chars()
        .filter(|&c| match c {
            '[' => {
                depth = depth.saturating_add(1);
                false
            }
            ']' => {
                depth = depth.saturating_sub(1);
                false
            }
            _ => depth == 0,
        })
        .collect();
    let name = base
        .rsplit(|c: char| c.is_whitespace() || c == '*')
        .find(|s| !s.is_empty())
        .unwrap_or("")
        .to_string();
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(format!("cannot find the field name in `{decl}`"));
    }
    Ok(FieldLine {
        decl,
        name,
        offset,
        size,
        signed,
    })
}

/// Iterates the lines of `text` (read through `r`) as UTF-8-lossy strings with spans.
fn lines<'a>(r: &Reader<'a>) -> impl Iterator<Item = (String, Range<u64>)> + 'a {
    let mut rr = r.clone();
    std::iter::from_fn(move || {
        let l = rr.line()?;
        Some((String::from_utf8_lossy(l.text).into_owned(), l.span()))
    })
}

/// Parses header_page text.
pub fn header_page(ctx: &mut Ctx<'_, '_>, text: &Reader<'_>, loc: &Loc) -> Option<HeaderPage> {
    let span = text.base()..text.end_offset();
    if text.remaining() == 0 {
        ctx.report(
            &rules::HEADER_PAGE,
            loc,
            span,
            "header_page is empty (the pre-2.6.31 event encoding is not supported)",
        );
        return None;
    }
    let (mut ts, mut commit, mut data) = (None, None, None);
    for (line, lspan) in lines(text) {
        if line.trim().is_empty() {
            continue;
        }
        match parse_field_line(&line) {
            Ok(f) => match f.name.as_str() {
                "timestamp" => ts = Some((f, lspan)),
                "commit" => commit = Some((f, lspan)),
                "data" => data = Some((f, lspan)),
                _ => {}
            },
            Err(why) => {
                ctx.report(
                    &rules::HEADER_PAGE,
                    loc,
                    lspan,
                    format!("header_page line is malformed: {why}"),
                );
                return None;
            }
        }
    }
    let (Some((ts, ts_span)), Some((commit, c_span)), Some((data, _))) = (ts, commit, data) else {
        ctx.report(
            &rules::HEADER_PAGE,
            loc,
            span,
            "header_page must define the fields `timestamp`, `commit` and `data`",
        );
        return None;
    };
    if ts.size != 8 {
        ctx.report(
            &rules::HEADER_PAGE,
            loc,
            ts_span,
            format!("header_page timestamp size is {}, expected 8", ts.size),
        );
        return None;
    }
    if commit.size != 4 && commit.size != 8 {
        ctx.report(
            &rules::HEADER_PAGE,
            loc,
            c_span,
            format!(
                "header_page commit size is {}, expected 4 or 8 (the kernel long size)",
                commit.size
            ),
        );
        return None;
    }
    let _ = (ts.decl, ts.offset, ts.signed);
    Some(HeaderPage {
        ts_size: ts.size,
        commit_size: commit.size,
        data_offset: data.offset,
        data_size: data.size,
        span: loc.map(span),
    })
}

/// Checks header_event text against the constants readers hard-code. Returns the (file) span
/// of a text that lacks only the time_stamp line, as kernels before 4.17 print it; the caller
/// reports that once it knows the kernel release.
pub fn header_event(ctx: &mut Ctx<'_, '_>, text: &Reader<'_>, loc: &Loc) -> Option<Range<u64>> {
    let span = text.base()..text.end_offset();
    let s = String::from_utf8_lossy(text.all_bytes());
    let norm: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let expected = [
        "type_len : 5 bits",
        "time_delta : 27 bits",
        "array : 32 bits",
        "padding : type == 29",
        "time_extend : type == 30",
        "time_stamp : type == 31",
        "data max type_len == 28",
    ];
    let missing: Vec<&str> = expected
        .iter()
        .copied()
        .filter(|e| !norm.contains(e))
        .collect();
    if missing == ["time_stamp : type == 31"] {
        return Some(loc.map(span));
    }
    if !missing.is_empty() {
        ctx.report(
            &rules::HEADER_EVENT,
            loc,
            span,
            format!("header_event does not say: {}", missing.join("; ")),
        );
    }
    None
}

/// Parses one event format text. In a v6 file it is first read the way trace-cmd 2.4 and
/// 2.9.5 read it (`tep::v2`): where they crash or hang, the finding about the format says so
/// as an error, or one is made when the line-based reading finds nothing.
pub fn event_format(
    ctx: &mut Ctx<'_, '_>,
    text: &Reader<'_>,
    loc: &Loc,
    system: &str,
) -> Option<EventFormat> {
    let at = |r: Range<usize>| {
        text.offset().saturating_add(r.start as u64)
            ..text
                .offset()
                .saturating_add(r.end.max(r.start.saturating_add(1)) as u64)
    };
    ctx.v2_fail = if ctx.version < 7 {
        match tep::v2(text.rest(), system == "ftrace") {
            tep::V2::Read => None,
            tep::V2::Crash(why, r) => Some(V2Fail {
                hang: false,
                why,
                span: at(r),
            }),
            tep::V2::Hang(why, r) => Some(V2Fail {
                hang: true,
                why,
                span: at(r),
            }),
        }
    } else {
        None
    };
    ctx.v2_fail_told = false;
    let ev = event_format_lines(ctx, text, loc, system);
    // libtraceevent keeps a format it read the name and id of, flagged failed.
    if let (None, Some((id, name))) = (&ev, tep::registered(text.rest())) {
        if ctx.unparsed_formats.len() < 65_536 {
            ctx.unparsed_formats.push((id, format!("{system}:{name}")));
        }
    }
    if let Some(v2) = ctx.v2_fail.take() {
        if !ctx.v2_fail_told {
            let (what, fate) = v2_fate(&v2);
            let f = ctx
                .sink
                .make(
                    &rules::EVENT_FORMAT,
                    loc.map(v2.span),
                    format!(
                        "trace-cmd 2.4 and 2.9.5, the readers of a v6 file too, {what}: {}; trace-cmd 3.1.6–3.3.4 read the format",
                        v2.why
                    ),
                )
                .fails("trace-cmd report", "2.4, 2.9.5", fate);
            ctx.sink.push(f);
        }
    }
    ev
}

/// What trace-cmd 2.4 and 2.9.5 do on a format [`tep::v2`] says they fail on (from runs of
/// both, `tests/campaign.rs`), and the impact word.
fn v2_fate(v2: &V2Fail) -> (&'static str, &'static str) {
    if v2.hang {
        ("never finish reading this format (they read the quoted token past the end of the text for ever)", "hang")
    } else {
        ("crash (SIGSEGV) on this format", "crash")
    }
}

/// The line-based reading of one event format text.
fn event_format_lines(
    ctx: &mut Ctx<'_, '_>,
    text: &Reader<'_>,
    loc: &Loc,
    system: &str,
) -> Option<EventFormat> {
    let span = text.base()..text.end_offset();
    let (mut name, mut id, mut id_span) = (None, None, span.clone());
    let mut in_format = false;
    let mut print_fmt = false;
    let mut fields: Vec<Field> = Vec::new();
    // A format that breaks before its `common_type` field is parsed can take every record's id
    // with it: libtraceevent reads the id's offset from the first format it has.
    // libtraceevent keeps a format that breaks after its name and id (flagged as failed) and
    // takes the id's offset from the format of the lowest id: whether this one is that is
    // known once every format is read (`settle_common_type`).
    let bad =
        |ctx: &mut Ctx<'_, '_>, fields: &[Field], kept: Option<u32>, s: Range<u64>, msg: String| {
            let commons = fields.iter().any(|f| f.name == "common_type");
            match kept {
                // A format trace-cmd 2.x crash or hang on is an error whatever its id.
                Some(id) if !commons && ctx.v2_fail.is_none() => {
                    ctx.common_type_pending
                        .push((&rules::EVENT_FORMAT, id, loc.clone(), s, msg))
                }
                _ => report_format(ctx, &rules::EVENT_FORMAT, loc, s, msg, true),
            }
        };
    // libtraceevent reads the head token by token: what it drops or keeps decides the level.
    let at = |r: Range<usize>| {
        text.offset().saturating_add(r.start as u64)
            ..text
                .offset()
                .saturating_add(r.end.max(r.start.saturating_add(1)) as u64)
    };
    let tep_id = match tep::head(text.rest()) {
        tep::Head::Dropped(why, r) => {
            bad(
                ctx,
                &fields,
                None,
                at(r),
                format!("libtraceevent cannot read this format's name and id ({why}) and drops it"),
            );
            return None;
        }
        tep::Head::NoFormat(id, why, r) => {
            bad(
                ctx,
                &fields,
                Some(id),
                at(r),
                format!("libtraceevent reads this format's name and id ({id}) but not its `format:` line ({why})"),
            );
            return None;
        }
        tep::Head::Read(id) => id,
    };
    let mut print_text = String::new();
    let mut print_span = span.clone();
    for (line, lspan) in lines(text) {
        if print_fmt {
            // The print format may continue over several lines.
            print_text.push_str(&line);
            continue;
        }
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(v) = line.strip_prefix("name:") {
            name = Some(v.trim().to_string());
        } else if let Some(v) = line.strip_prefix("ID:") {
            match parse_num(v) {
                Some(n) => {
                    id = Some(n);
                    id_span = lspan;
                }
                None => {
                    bad(
                        ctx,
                        &fields,
                        name.as_ref().map(|_| tep_id),
                        lspan,
                        format!(
                            "`ID:{v}` is not a decimal number (libtraceevent reads it as {tep_id})"
                        ),
                    );
                    return None;
                }
            }
        } else if t == "format:" {
            if name.is_none() || id.is_none() {
                // libtraceevent's parse_format reads `name:`, `ID:` and `format:` in that
                // order and drops a format whose id it does not find there.
                bad(
                    ctx,
                    &fields,
                    None,
                    lspan,
                    "`format:` comes before the `name:` and `ID:` lines; libtraceevent reads them in that order and drops this format".to_string(),
                );
                return None;
            }
            in_format = true;
        } else if line.starts_with("print fmt:") {
            print_fmt = true;
            print_text.push_str(&line);
            print_span = lspan.start..span.end;
        } else if in_format && t.starts_with("field:") {
            match parse_field_line(t) {
                Ok(f) => fields.push(Field {
                    decl: f.decl,
                    name: f.name,
                    offset: f.offset,
                    size: f.size,
                    signed: f.signed.unwrap_or(false),
                    span: loc.map(lspan),
                }),
                Err(why) => {
                    bad(
                        ctx,
                        &fields,
                        name.as_ref().and(id),
                        lspan,
                        format!("field line is malformed: {why}"),
                    );
                    return None;
                }
            }
        } else {
            let shown: String = t.chars().take(60).collect();
            bad(
                ctx,
                &fields,
                name.as_ref().and(id),
                lspan,
                format!("unexpected line in event format: `{shown}`"),
            );
            return None;
        }
    }
    let Some(name) = name.filter(|n| !n.is_empty()) else {
        bad(
            ctx,
            &fields,
            None,
            span,
            format!("event format in system `{system}` has no `name:` line"),
        );
        return None;
    };
    let Some(id) = id else {
        bad(
            ctx,
            &fields,
            None,
            span,
            format!("event format `{system}:{name}` has no `ID:` line"),
        );
        return None;
    };
    if !in_format || fields.is_empty() {
        bad(
            ctx,
            &fields,
            Some(id),
            span,
            format!("event format `{system}:{name}` has no `format:` fields"),
        );
        return None;
    }
    if !print_fmt {
        bad(
            ctx,
            &fields,
            Some(id),
            span,
            format!("event format `{system}:{name}` has no `print fmt:` line"),
        );
        return None;
    }
    let ev = EventFormat {
        system: system.to_string(),
        name,
        id,
        fields,
        span: loc.map(span),
        id_span: loc.map(id_span),
    };
    check_fields(ctx, loc, &ev);
    check_print_fields(ctx, loc, &ev, &print_text, print_span);
    Some(ev)
}

/// `REC->name` references of the print format name fields of the format. libtraceevent
/// (2.4's bundled copy to 1.8) crashes parsing a `__print_symbolic`/`__print_flags` whose value
/// names no field (trace-cmd 2.4–3.3.4 report: SIGSEGV, campaign), whether or not the event
/// occurs in the data; another argument naming no field only prints wrong.
fn check_print_fields(
    ctx: &mut Ctx<'_, '_>,
    loc: &Loc,
    ev: &EventFormat,
    print: &str,
    span: Range<u64>,
) {
    let mut rest = print;
    let mut plain: Option<String> = None;
    while let Some(i) = rest.find("REC->") {
        let before = rest.get(..i).unwrap_or("");
        let after = rest.get(i.saturating_add(5)..).unwrap_or("");
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        rest = after;
        if name.is_empty() || ev.fields.iter().any(|f| f.name == name) {
            continue;
        }
        let helper = before.trim_end().trim_end_matches('(').trim_end();
        let in_helper = before.trim_end().ends_with('(')
            && (helper.ends_with("__print_symbolic") || helper.ends_with("__print_flags"));
        if in_helper {
            let f = ctx
                .sink
                .make(
                    &rules::EVENT_FORMAT,
                    loc.map(span.clone()),
                    format!(
                        "event `{}:{}`: the print format's `{}(REC->{name}, …)` names no field of the format: libtraceevent crashes parsing it, and trace-cmd 2.4–3.3.4 report segfault whether or not the event occurs in the data",
                        ev.system,
                        ev.name,
                        helper.rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next().unwrap_or(helper)
                    ),
                )
                .fails("trace-cmd report", "2.4–3.3.4", "crash");
            ctx.sink.push(f);
            return;
        }
        plain.get_or_insert(name);
    }
    if let Some(name) = plain {
        let f = ctx
            .sink
            .make(
                &rules::EVENT_FORMAT,
                loc.map(span),
                format!(
                    "event `{}:{}`: the print format's `REC->{name}` names no field of the format; trace-cmd 3.1.6–3.3.4 read the file and every other event the same",
                    ev.system, ev.name
                ),
            )
            .read_same("trace-cmd report", "3.1.6–3.3.4");
        ctx.sink.push(f);
    }
}

/// Reports the formats that break before their `common_type` field once every format is read:
/// libtraceevent (`__parse_common`, event-parse.c 1.7–1.8) takes the id's offset from
/// `tep->events[0]`, the format of the lowest id, so only a broken format of that id costs
/// every record its id; any other is skipped like a format broken later.
pub fn settle_common_type(ctx: &mut Ctx<'_, '_>, meta: &crate::formats::tracecmd::model::Meta) {
    let pending = std::mem::take(&mut ctx.common_type_pending);
    if pending.is_empty() {
        return;
    }
    let lowest = meta
        .formats
        .iter()
        .map(|f| f.id)
        .chain(pending.iter().map(|p| p.1))
        .min();
    for (rule, id, loc, span, msg) in pending {
        if Some(id) == lowest {
            report_format(ctx, rule, &loc, span, msg, false);
        } else {
            let low = meta
                .formats
                .iter()
                .find(|f| Some(f.id) == lowest)
                .map(|f| format!("`{}:{}`, ", f.system, f.name))
                .unwrap_or_default();
            let msg = format!(
                "{msg}; it breaks before its `common_type` field, but libtraceevent takes the id's offset from the format of the lowest id ({low}id {}), not from this one (id {id})",
                lowest.unwrap_or(0)
            );
            report_format(ctx, rule, &loc, span, msg, true);
        }
    }
}

/// Reports a broken event format at the level of the readers of the file's version: trace-cmd
/// 3.1.6–3.3.4 (every v7 reader) skip a format libtraceevent cannot parse and read every other
/// event (records of the skipped one, if any, are unknown events and reported on their own);
/// trace-cmd 2.4 and 2.9.5, the v6 readers too, crash on some broken formats (campaign).
fn report_format(
    ctx: &mut Ctx<'_, '_>,
    rule: &'static crate::rule::Rule,
    loc: &Loc,
    span: Range<u64>,
    msg: String,
    commons: bool,
) {
    // In a v6 file trace-cmd 2.4 and 2.9.5 count too: where their parser crashes or hangs on
    // this format (`tep::v2`, set by `event_format`), the finding is an error that says so;
    // elsewhere they skip a broken format as 3.x do.
    let v2 = if ctx.version < 7 {
        ctx.v2_fail.clone()
    } else {
        None
    };
    let v2_text;
    let (level, readers, impact) = if let Some(v2) = &v2 {
        ctx.v2_fail_told = true;
        let (what, fate) = v2_fate(v2);
        v2_text = format!(
            "trace-cmd 3.1.6–3.3.4 skip this format and read every other event, but trace-cmd 2.4 and 2.9.5, the readers of a v6 file too, {what}: {}",
            v2.why
        );
        (
            crate::finding::Severity::Error,
            v2_text.as_str(),
            ("2.4, 2.9.5", fate),
        )
    } else if !commons {
        (
            crate::finding::Severity::Error,
            "it breaks before its `common_type` field, and it is the format of the lowest id, from which libtraceevent takes the offset of every record's id: trace-cmd 3.1.6–3.3.4 then print every event as `[UNKNOWN EVENT]` (campaign)",
            ("3.1.6–3.3.4", "loss"),
        )
    } else if rule.code == rules::EVENT_FIELDS.code {
        (
            crate::finding::Severity::Warning,
            "trace-cmd 2.4–3.3.4 read every field at its own offset and every other event the same",
            ("2.4–3.3.4", "same"),
        )
    } else {
        (
            crate::finding::Severity::Warning,
            "trace-cmd 2.4–3.3.4 cannot use this format (its records, if any, are reported on their own) and read every other event",
            ("2.4–3.3.4", "same"),
        )
    };
    let readers = if ctx.version >= 7 {
        readers.replace("2.4–3.3.4", "3.1.6–3.3.4")
    } else {
        readers.to_string()
    };
    let impact = if ctx.version >= 7 && impact.1 == "same" {
        ("3.1.6–3.3.4", "same")
    } else {
        impact
    };
    let mut f = ctx
        .sink
        .make(rule, loc.map(span.clone()), format!("{msg}; {readers}"))
        .level(level)
        .impact("trace-cmd report", impact.0, impact.1);
    if loc.block.is_some() {
        f = f.note(format!(
            "at offset {} of the decompressed block (the span shows the compressed block)",
            span.start
        ));
    }
    ctx.sink.push(f);
}

/// Field layout checks: common_type u16 at 0, no two fields sharing bytes. Fields need not be
/// listed in offset order: the kernel prints `FTRACE_ENTRY` fields in declaration order, which
/// differs from the struct layout (`ftrace:funcgraph_exit` lists `overrun` after `rettime`), and
/// libtraceevent reads every field at its own offset.
fn check_fields(ctx: &mut Ctx<'_, '_>, loc: &Loc, ev: &EventFormat) {
    if let Some(first) = ev.fields.first() {
        if first.name != "common_type" || first.offset != 0 || first.size != 2 {
            let msg = format!(
                "event `{}:{}`: the first field must be `common_type` (offset 0, size 2), found `{}` (offset {}, size {})",
                ev.system, ev.name, first.name, first.offset, first.size
            );
            let placed = ev
                .fields
                .iter()
                .any(|f| f.name == "common_type" && f.offset == 0 && f.size == 2);
            if placed {
                // libtraceevent looks `common_type` up by name: its place in the list does not
                // matter.
                report_format(
                    ctx,
                    &rules::EVENT_FIELDS,
                    loc,
                    first.span.clone(),
                    format!("{msg}; `common_type` is at offset 0 with size 2 further down, and libtraceevent looks it up by name"),
                    true,
                );
            } else {
                // libtraceevent takes the id's offset from `common_type` of the lowest id's
                // format: an error only if this is that format (settled later).
                ctx.common_type_pending.push((
                    &rules::EVENT_FIELDS,
                    ev.id,
                    loc.clone(),
                    first.span.clone(),
                    msg,
                ));
            }
            return;
        }
    }
    let mut sorted: Vec<&Field> = ev.fields.iter().filter(|f| f.size > 0).collect();
    sorted.sort_by_key(|f| (f.offset, f.size));
    let mut prev: Option<&Field> = None;
    for f in sorted {
        if let Some(p) = prev {
            let end = p.offset.saturating_add(p.size);
            if f.offset < end {
                report_format(
                    ctx,
                    &rules::EVENT_FIELDS,
                    loc,
                    f.span.clone(),
                    format!(
                        "event `{}:{}`: field `{}` (offset {}, size {}) overlaps field `{}` (offset {}, size {})",
                        ev.system, ev.name, f.name, f.offset, f.size, p.name, p.offset, p.size
                    ),
                    true,
                );
                return;
            }
        }
        prev = Some(f);
    }
}

/// Reads `count` formats, each `u64 size · text`.
fn formats(
    ctx: &mut Ctx<'_, '_>,
    r: &mut Reader<'_>,
    loc: &Loc,
    count: u32,
    count_span: Range<u64>,
    system: &str,
    meta: &mut Meta,
) -> Result<bool, Stop> {
    let remaining = r.remaining() as u64;
    if u64::from(count).saturating_mul(8) > remaining {
        ctx.report(
            &rules::METADATA_SIZE,
            loc,
            count_span,
            format!("{count} formats of system `{system}` cannot fit in the {remaining} bytes that remain (8 bytes each at least)"),
        );
        return Err(Stop);
    }
    if (meta.formats.len() as u64).saturating_add(u64::from(count)) > ctx.limits.max_entries {
        ctx.sink.limit(
            loc.map(count_span),
            "number of event formats",
            u64::from(count),
            "max_entries",
            ctx.limits.max_entries,
        );
        return Err(Stop);
    }
    let mut last_read = true;
    for _ in 0..count {
        let ls = r.offset();
        let size = rd(ctx, loc, r.u64("event format size"))?;
        let text = sized(ctx, r, loc, size, span_of(ls, 8), "event format")?;
        last_read = false;
        if let Some(ev) = event_format(ctx, &text, loc, system) {
            meta.formats.push(ev);
            last_read = true;
        }
    }
    Ok(last_read)
}

/// FTRACE_EVENTS: u32 count · formats.
pub fn ftrace_events(
    ctx: &mut Ctx<'_, '_>,
    r: &mut Reader<'_>,
    loc: &Loc,
    meta: &mut Meta,
) -> Flow {
    let cs = r.offset();
    let count = rd(ctx, loc, r.u32("ftrace format count"))?;
    meta.ftrace_count = u64::from(count);
    formats(ctx, r, loc, count, span_of(cs, 4), "ftrace", meta).map(|_| ())
}

/// EVENT_FORMATS: u32 nsystems · (str system · u32 count · formats)*.
pub fn event_formats(
    ctx: &mut Ctx<'_, '_>,
    r: &mut Reader<'_>,
    loc: &Loc,
    meta: &mut Meta,
) -> Flow {
    let cs = r.offset();
    let n = rd(ctx, loc, r.u32("event system count"))?;
    let remaining = r.remaining() as u64;
    if u64::from(n).saturating_mul(5) > remaining {
        ctx.report(
            &rules::METADATA_SIZE,
            loc,
            span_of(cs, 4),
            format!("{n} event systems cannot fit in the {remaining} bytes that remain (5 bytes each at least)"),
        );
        return Err(Stop);
    }
    // Whether the last format before the next system name was read whole.
    let mut last_read = true;
    for _ in 0..n {
        let ss = r.offset();
        let name = match r.cstr(4096, "event system name") {
            Ok(b) => String::from_utf8_lossy(b).into_owned(),
            Err(e) => {
                ctx.read_error(&rules::METADATA_SIZE, loc, &e);
                return Err(Stop);
            }
        };
        let nspan = ss..r.offset();
        if name.is_empty()
            || name
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || c == '"' || c == '\\')
        {
            // Kernel system names are identifiers (TRACE_SYSTEM): text with blanks or quotes
            // is the tail of a format whose size does not cover it, so what follows is
            // misframed and the file's absolute offsets no longer point where they should.
            let shown: String = name.chars().take(40).collect();
            let ident =
                |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            let rest = name.strip_prefix('\n').unwrap_or("");
            let newline_only = ident(rest);
            // The text before the last newline is the tail of a format whose size is short,
            // the word after it the next system's name: readers read the same string up to
            // the same NUL and go on in step.
            // Only when that format broke where its size cut it: a format that parses whole
            // with text after its size is longer than its size (bytes were added to it), and
            // everything after it in the file is shifted (campaign `full18`: a duplicated
            // field line, every reader rejects the file).
            let next_system = name
                .rsplit_once('\n')
                .map(|(_, t)| t)
                .filter(|t| ident(t) && !last_read);
            let f = if newline_only {
                // Only the previous format's closing newline was left out of its size: that
                // format parses without it, and the newline joins the system name, which
                // `report` does not print.
                Some(ctx.sink
                    .make(
                        &rules::EVENT_FORMAT,
                        loc.map(nspan.clone()),
                        format!(
                            "event system name `{}` starts with the closing newline of the format before it, whose size is one byte short; trace-cmd 2.4–3.3.4 parse that format without it and read the same events (the system is named with the newline)",
                            shown.escape_debug()
                        ),
                    )
                    .read_same("trace-cmd report", "2.4–3.3.4"))
            } else if let (Some(next), None) = (next_system, &meta.tail_as_system) {
                // Judged in lint.rs (`tail_as_system`) once the data is walked.
                meta.tail_as_system = Some((
                    loc.map(nspan.clone()),
                    shown.escape_debug().to_string(),
                    next.to_string(),
                ));
                None
            } else {
                Some(ctx
                .sink
                .make(
                    &rules::EVENT_FORMAT,
                    loc.map(nspan.clone()),
                    format!(
                        "event system name `{}` is not an identifier: the format before it is longer than its size says; trace-cmd 2.4–3.3.4 read everything after it at the wrong place (campaign: they reject the file)",
                        shown.escape_debug()
                    ),
                )
                .fails("trace-cmd report", "2.4–3.3.4", "reject"))
            };
            if let Some(f) = f {
                ctx.sink.push(f);
            }
        }
        let cs = r.offset();
        let count = rd(ctx, loc, r.u32("event format count"))?;
        meta.systems.push((name.clone(), loc.map(nspan)));
        last_read = formats(ctx, r, loc, count, span_of(cs, 4), &name, meta)?;
    }
    Ok(())
}

/// Reports a system name read from the tail of the format before it up to the next system's
/// own name (`Meta::tail_as_system`), once the data is walked. `added`: in a v6 file, the bytes
/// that follow the end of the last CPU data — bytes added to the format rather than its size
/// cut, so that everything after it, the CPU data included, is read at the wrong place (campaign
/// `full18`: a duplicated field line, every reader rejects the file). Otherwise the readers read
/// the same string up to the same NUL and go on in step (campaign `full18`: `sched_kthread_stop`,
/// the last format of `sched`, sized 0 or half its text, reads the same in trace-cmd 2.4–3.3.4).
pub fn tail_as_system(ctx: &mut Ctx<'_, '_>, meta: &Meta, added: Option<u64>) {
    let Some((span, shown, next)) = &meta.tail_as_system else {
        return;
    };
    let f = match added {
        Some(n) => ctx
            .sink
            .make(
                &rules::EVENT_FORMAT,
                span.clone(),
                format!(
                    "event system name `{shown}` is not an identifier: the format before it is longer than its size says, and {n} bytes follow the last CPU data: trace-cmd 2.4–3.3.4 read everything after it at the wrong place (campaign: they reject the file)"
                ),
            )
            .fails("trace-cmd report", "2.4–3.3.4", "reject"),
        None => ctx
            .sink
            .make(
                &rules::EVENT_FORMAT,
                span.clone(),
                format!(
                    "event system name `{shown}` holds the end of the format before it, whose size is short, up to the name of the next system `{next}`: trace-cmd 2.4–3.3.4 read the same string, go on in step and read every other event the same (that system is named with the text; the short format is skipped, reported on its own)"
                ),
            )
            .read_same("trace-cmd report", "2.4–3.3.4"),
    };
    ctx.sink.push(f);
}

/// Checks the lines of a text section. Readers read the text as a C string (`strtok_r` over
/// the buffer): a NUL ends it, the line holding it is read up to the NUL, and the lines after
/// it are not read.
fn check_lines(ctx: &mut Ctx<'_, '_>, text: &Reader<'_>, loc: &Loc, sec: &TextSection) -> u64 {
    let (rule, what) = (sec.rule, sec.line_what);
    let mut rr = text.clone();
    let mut n = 0u64;
    let mut bad = Capped::new(rule, TEXT_REPORT_CAP);
    let max_line = ctx.limits.max_line_bytes;
    let nul = memchr::memchr(0, text.all_bytes()).map(|i| text.base().saturating_add(i as u64));
    // The common case, a section whose every line passes, is told in parallel; any other is
    // walked line by line below for its findings.
    if nul.is_none() {
        if let Some(n) = clean_lines(text.rest(), sec.check, max_line) {
            return n;
        }
    }
    let mut unread = 0u64;
    while let Some(l) = rr.line() {
        n = n.saturating_add(1);
        if l.text.len() as u64 > max_line {
            ctx.sink.limit(
                loc.map(l.span()),
                &format!("{what} line length"),
                l.text.len() as u64,
                "max_line_bytes",
                max_line,
            );
            return n;
        }
        let line = match nul {
            Some(z) if z < l.offset => {
                unread = unread.saturating_add(1);
                continue;
            }
            Some(z) if z < l.span().end => l
                .text
                .get(..usize::try_from(z.saturating_sub(l.offset)).unwrap_or(0))
                .unwrap_or_default(),
            _ => l.text,
        };
        if line.is_empty() && (!l.terminated || nul.is_some_and(|z| z < l.span().end)) {
            continue;
        }
        if let Err(why) = (sec.check)(line) {
            let shown: String = String::from_utf8_lossy(line).chars().take(80).collect();
            let msg = format!("{what} line {n} is malformed ({why}): `{shown}`");
            // A case some reader of the file's version crashes on: always shown, an error.
            let crash = if ctx.version < 7 {
                sec.crash_v6.and_then(|f| f(line))
            } else {
                None
            };
            if let Some((versions, how)) = crash {
                let f = ctx
                    .make(rule, loc, l.span(), format!("{msg}; {how}"))
                    .fails("trace-cmd report", versions, "crash");
                ctx.sink.push(f);
            } else if bad.hit(&l.span()) {
                match sec.v7_same.filter(|_| ctx.version >= 7) {
                    Some(note) => {
                        let f = ctx
                            .make(rule, loc, l.span(), format!("{msg}; {note}"))
                            .read_same("trace-cmd report", "3.1.6–3.3.4");
                        ctx.sink.push(f);
                    }
                    None => ctx.report(rule, loc, l.span(), msg),
                }
            }
        }
    }
    if let Some(s) = bad.first_hidden() {
        let mut f = ctx.make(
            rule,
            loc,
            s.clone(),
            format!("{} more malformed {what} lines not shown", bad.hidden()),
        );
        if sec.v7_same.is_some() && ctx.version >= 7 {
            f = f.read_same("trace-cmd report", "3.1.6–3.3.4");
        }
        ctx.sink.push(f);
    }
    if let (Some(z), true) = (nul, unread > 0) {
        let f = ctx
            .make(
                rule,
                loc,
                z..z.saturating_add(1),
                format!(
                    "a NUL byte ends the {} text for trace-cmd 2.4–3.3.4, which read it as a C string: the {unread} {what} line(s) after it are not read",
                    sec.what
                ),
            )
            .level(crate::finding::Severity::Warning);
        ctx.sink.push(f);
    }
    n
}

/// The line count of `text` when every line passes `check` and none is longer than
/// `max_line` (`None` otherwise): the text is cut at line ends into pieces checked in parallel.
fn clean_lines(text: &[u8], check: fn(&[u8]) -> Result<(), String>, max_line: u64) -> Option<u64> {
    use rayon::prelude::*;
    const PIECE: usize = 1 << 20;
    let mut cuts = vec![0usize];
    let mut at = 0usize;
    while let Some(from) = at.checked_add(PIECE).filter(|f| *f < text.len()) {
        let Some(k) = memchr::memchr(b'\n', text.get(from..).unwrap_or_default()) else {
            break;
        };
        at = from.saturating_add(k).saturating_add(1);
        cuts.push(at);
    }
    cuts.push(text.len());
    cuts.par_windows(2)
        .map(|w| {
            let piece = text.get(*w.first()?..*w.get(1)?)?;
            let mut n = 0u64;
            let mut from = 0usize;
            for end in memchr::memchr_iter(b'\n', piece).chain(std::iter::once(piece.len())) {
                let line = piece.get(from..end)?;
                from = end.saturating_add(1);
                // The piece's end after its last line end: no line.
                if end == piece.len() && line.is_empty() {
                    break;
                }
                if line.len() as u64 > max_line || check(line).is_err() {
                    return None;
                }
                n = n.saturating_add(1);
            }
            Some(n)
        })
        .sum()
}

fn is_hex(s: &[u8]) -> bool {
    !s.is_empty() && s.len() <= 16 && s.iter().all(u8::is_ascii_hexdigit)
}

fn kallsyms_line(l: &[u8]) -> Result<(), String> {
    if l.is_empty() {
        return Err("empty line".into());
    }
    let mut it = l.splitn(3, |&b| b == b' ');
    let addr = it.next().unwrap_or(&[]);
    let ty = it.next().unwrap_or(&[]);
    let rest = it.next().unwrap_or(&[]);
    if !is_hex(addr) {
        return Err("address is not 1–16 hex digits".into());
    }
    if ty.len() != 1 || !ty.iter().all(u8::is_ascii_graphic) {
        return Err("symbol type is not one character".into());
    }
    let name = rest.split(|&b| b == b'\t').next().unwrap_or(&[]);
    if name.is_empty() {
        return Err("no symbol name".into());
    }
    if let Some(m) = rest.splitn(2, |&b| b == b'\t').nth(1) {
        if !(m.starts_with(b"[") && m.ends_with(b"]")) {
            return Err("module is not `[name]`".into());
        }
    }
    Ok(())
}

/// trace-cmd 2.4 (`parse_proc_kallsyms`) scans each line with `sscanf(line, "%ms %c %ms\t[%ms",
/// &addr_str, &ch, &func, &mod)` and uses `func` whether or not it was assigned: on a line
/// without a word, a character and another word, `func` is the pointer the line before freed,
/// and 2.4 registers and frees it again (glibc aborts: double free). 2.9.5 and later
/// (`%16llx %c %n%*s%n`) stop reading symbols at such a line.
fn kallsyms_24(l: &[u8]) -> Option<(&'static str, &'static str)> {
    // `strtok_r` never yields an empty line.
    if l.is_empty() {
        return None;
    }
    let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
    let skip = |s: &[u8]| s.iter().take_while(|b| blank(b)).count();
    let mut i = skip(l);
    let word = l.iter().skip(i).take_while(|b| !blank(b)).count();
    if word == 0 {
        return Some(KALLSYMS_24);
    }
    i = i.saturating_add(word);
    i = i.saturating_add(skip(l.get(i..).unwrap_or_default()));
    // `%c`: one character, then `%ms` after blanks.
    if l.get(i).is_none() {
        return Some(KALLSYMS_24);
    }
    i = i.saturating_add(1);
    i = i.saturating_add(skip(l.get(i..).unwrap_or_default()));
    if l.get(i).is_none() {
        return Some(KALLSYMS_24);
    }
    None
}

const KALLSYMS_24: (&str, &str) = (
    "2.4",
    "trace-cmd 2.4, a reader of v6 files, scans no symbol name from it and frees the previous line's name a second time: it aborts (double free; 2.9.5–3.3.4 stop reading symbols at this line)",
);

fn printk_line(l: &[u8]) -> Result<(), String> {
    let Some(rest) = l.strip_prefix(b"0x") else {
        return Err("does not start with `0x`".into());
    };
    let hex_len = rest.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    let (addr, rest) = rest.split_at_checked(hex_len).unwrap_or((&[], rest));
    if !is_hex(addr) {
        return Err("address is not 1–16 hex digits".into());
    }
    let Some(fmt) = rest.strip_prefix(b" : ") else {
        return Err("no ` : ` after the address".into());
    };
    if !fmt.starts_with(b"\"") {
        return Err("format is not quoted".into());
    }
    Ok(())
}

fn cmdline_line(l: &[u8]) -> Result<(), String> {
    // What `sscanf(line, "%d %m[^\n]s", ...)` accepts: blanks, a signed number, blanks, then at
    // least one character. Readers before trace-cmd 3.0 crash on anything else.
    let l = trim_blanks(l);
    let l = l
        .strip_prefix(b"-")
        .or_else(|| l.strip_prefix(b"+"))
        .unwrap_or(l);
    let digits = l.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return Err("does not start with a PID".into());
    }
    match l.get(digits..).map(trim_blanks) {
        Some(rest) if !rest.is_empty() => Ok(()),
        _ => Err("has no task name after the PID".into()),
    }
}

/// `l` without leading blanks (what `sscanf` skips).
fn trim_blanks(l: &[u8]) -> &[u8] {
    let n = l
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c))
        .count();
    l.get(n..).unwrap_or(&[])
}

/// For a malformed text line: the reader versions that crash on it and how, when they do.
type CrashCheck = fn(&[u8]) -> Option<(&'static str, &'static str)>;

/// A text section of `size` + bytes, checked line by line.
struct TextSection {
    /// Width of the size field (4 or 8 bytes).
    size_bytes: u8,
    /// Name of the section in messages ("kallsyms").
    what: &'static str,
    /// Name of the size field in messages ("kallsyms size").
    size_what: &'static str,
    /// Rule for a malformed line, its name in messages, and the line check.
    rule: &'static crate::rule::Rule,
    line_what: &'static str,
    check: fn(&[u8]) -> Result<(), String>,
    /// For a malformed line of a v6 file: the reader versions that crash on it and how, when
    /// they do (the finding is then an error).
    crash_v6: Option<CrashCheck>,
    /// For a malformed line of a v7 file, when the rule's level is an error for the 2.x
    /// readers of v6 files: what trace-cmd 3.x, the only readers of v7, do (a warning).
    v7_same: Option<&'static str>,
}

/// Reads and checks one [`TextSection`]; returns its line count.
fn text_section(
    ctx: &mut Ctx<'_, '_>,
    r: &mut Reader<'_>,
    loc: &Loc,
    sec: &TextSection,
) -> Result<u64, Stop> {
    let ls = r.offset();
    let size = if sec.size_bytes == 8 {
        rd(ctx, loc, r.u64(sec.size_what))?
    } else {
        u64::from(rd(ctx, loc, r.u32(sec.size_what))?)
    };
    let size_span = span_of(ls, usize::from(sec.size_bytes));
    let text = sized(ctx, r, loc, size, size_span, sec.what)?;
    Ok(check_lines(ctx, &text, loc, sec))
}

/// KALLSYMS: u32 size · text.
pub fn kallsyms(ctx: &mut Ctx<'_, '_>, r: &mut Reader<'_>, loc: &Loc, meta: &mut Meta) -> Flow {
    const SEC: TextSection = TextSection {
        size_bytes: 4,
        what: "kallsyms",
        size_what: "kallsyms size",
        rule: &rules::KALLSYMS_LINE,
        line_what: "kallsyms",
        check: kallsyms_line,
        crash_v6: Some(kallsyms_24),
        v7_same: None,
    };
    meta.kallsyms_lines = text_section(ctx, r, loc, &SEC)?;
    Ok(())
}

/// PRINTK: u32 size · text.
pub fn printk(ctx: &mut Ctx<'_, '_>, r: &mut Reader<'_>, loc: &Loc, meta: &mut Meta) -> Flow {
    const SEC: TextSection = TextSection {
        size_bytes: 4,
        what: "printk",
        size_what: "printk size",
        rule: &rules::PRINTK_LINE,
        line_what: "printk format",
        check: printk_line,
        crash_v6: None,
        v7_same: None,
    };
    meta.printk_lines = text_section(ctx, r, loc, &SEC)?;
    Ok(())
}

/// CMDLINES: u64 size · text.
pub fn cmdlines(ctx: &mut Ctx<'_, '_>, r: &mut Reader<'_>, loc: &Loc, meta: &mut Meta) -> Flow {
    const SEC: TextSection = TextSection {
        size_bytes: 8,
        what: "saved_cmdlines",
        size_what: "saved_cmdlines size",
        rule: &rules::CMDLINE_LINE,
        line_what: "saved_cmdlines",
        check: cmdline_line,
        crash_v6: None,
        v7_same: Some("trace-cmd 3.1.6–3.3.4, the only readers of a v7 file, stop reading task names at this line (`tep_parse_saved_cmdlines`: later tasks print as `<...>`) and read the same events"),
    };
    meta.cmdline_lines = text_section(ctx, r, loc, &SEC)?;
    Ok(())
}

#[cfg(test)]
#[path = "meta_tests.rs"]
mod tests;
