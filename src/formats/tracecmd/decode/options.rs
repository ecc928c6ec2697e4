//! Option records: payload layouts per id.

use super::super::model::{opt_id, selected_clock, CpuEntry, Opt, OptValue};
use super::super::rules;
use super::ctx::{Ctx, Loc};
use crate::reader::Reader;
use std::ops::Range;

/// Largest number of CPUs accepted in a per-CPU table.
pub const MAX_CPUS: u32 = 8192;

/// The smallest instance page size a ring page's header fits in (16 bytes with an 8-byte
/// commit word; every power of two below it is also below the 12 bytes of a 4-byte one).
const MIN_INSTANCE_PAGE: u32 = 16;

/// Decodes one option's payload. `payload` has absolute offsets when `loc` is the file.
/// `rec` is the span of the whole record (local).
pub fn decode(
    ctx: &mut Ctx<'_, '_>,
    loc: &Loc,
    id: u16,
    payload: Reader<'_>,
    rec: Range<u64>,
    v7: bool,
) -> Opt {
    let size = u32::try_from(payload.remaining()).unwrap_or(u32::MAX);
    let pspan = payload.base()..payload.end_offset();
    let name = opt_id::name(id);
    let value = match id {
        opt_id::DONE => {
            if v7 && size > 8 {
                // trace-cmd 3.1.6–3.3.4 (`handle_option_done`) refuse only sizes below 8 and
                // take the next options offset from the first 8 bytes.
                let f = ctx
                    .make(
                        &rules::OPTION_SIZE,
                        loc,
                        rec.clone(),
                        format!("option DONE has size {size}, expected 8 (the next options offset); trace-cmd 3.1.6–3.3.4 take the offset from its first 8 bytes and read the same"),
                    )
                    .read_same("trace-cmd report", "3.1.6–3.3.4");
                ctx.sink.push(f);
                u64_of(&payload).map_or(OptValue::Other, OptValue::U64)
            } else if size != 8 {
                ctx.report(
                    &rules::OPTION_SIZE,
                    loc,
                    rec.clone(),
                    format!("option DONE has size {size}, expected 8 (the next options offset)"),
                );
                OptValue::Other
            } else {
                u64_of(&payload).map_or(OptValue::Other, OptValue::U64)
            }
        }
        // trace-cmd 2.2.1–2.9.x write TRACECLOCK as an empty flag (TD067, reported with the
        // writer's version once all options are read).
        opt_id::TRACECLOCK if size == 0 => OptValue::Str(String::new()),
        opt_id::DATE
        | opt_id::CPUSTAT
        | opt_id::TRACECLOCK
        | opt_id::UNAME
        | opt_id::HOOK
        | opt_id::OFFSET
        | opt_id::VERSION
        | opt_id::PROCMAPS
        | opt_id::LAST_BOOT_INFO => match string_payload(ctx, loc, name, &payload, rec.clone()) {
            Some(s) => {
                let why = match id {
                    opt_id::DATE | opt_id::OFFSET => check_strtoll(&s),
                    opt_id::HOOK => check_hook(&s),
                    opt_id::PROCMAPS => check_procmaps(&s),
                    opt_id::TRACECLOCK => match selected_clock(&s) {
                        Some(c) if !c.is_empty() => Ok(()),
                        _ => Err("no selected clock `[name]`".to_string()),
                    },
                    _ => Ok(()),
                };
                if let Err(why) = why {
                    // What trace-cmd 3.1.6–3.3.4 make of it (trace-input.c handle_options):
                    // DATE/OFFSET through strtoll (an offset of 0 when nothing parses), a
                    // TRACECLOCK without `[name]` leaves the default clock; a malformed HOOK
                    // crashes them.
                    let (level, tail) = match id {
                        opt_id::DATE | opt_id::OFFSET => (
                            crate::finding::Severity::Warning,
                            "; trace-cmd 3.1.6–3.3.4 take what `strtoll` parses of it (0 when nothing does) and read the events the same",
                        ),
                        opt_id::PROCMAPS => (
                            crate::finding::Severity::Warning,
                            "; trace-cmd 3.1.6–3.3.4 drop the maps (`trace_pid_map_load` fails) and read the events the same, with user-space addresses unresolved",
                        ),
                        opt_id::TRACECLOCK => (
                            crate::finding::Severity::Warning,
                            "; trace-cmd 3.1.6–3.3.4 keep their default clock (timestamps in nanoseconds) and read the events the same",
                        ),
                        _ => (crate::finding::Severity::Error, ""),
                    };
                    let f = ctx
                        .sink
                        .make(
                            &rules::OPTION_PAYLOAD,
                            loc.map(pspan.clone()),
                            format!("option {name}: {why}{tail}"),
                        )
                        .level(level);
                    let f = if level == crate::finding::Severity::Warning {
                        f.impact("trace-cmd report", "3.1.6–3.3.4", "same")
                    } else {
                        f
                    };
                    ctx.sink.push(f);
                }
                OptValue::Str(s)
            }
            None => OptValue::Other,
        },
        opt_id::CPUCOUNT => fixed(ctx, loc, name, &payload, rec.clone(), 4)
            .and_then(|r| r.clone().u32("cpu count").ok())
            .map_or(OptValue::Other, OptValue::U32),
        opt_id::TRACEID => fixed(ctx, loc, name, &payload, rec.clone(), 8)
            .and_then(|r| u64_of(&r))
            .map_or(OptValue::Other, OptValue::U64),
        opt_id::TSC2NSEC => {
            if let Some(mut r) = fixed(ctx, loc, name, &payload, rec.clone(), 16) {
                let mult = r.u32("mult").unwrap_or(0);
                let shift = r.u32("shift").unwrap_or(0);
                if mult == 0 || shift > 32 {
                    ctx.report(
                        &rules::OPTION_PAYLOAD,
                        loc,
                        pspan.clone(),
                        format!("option TSC2NSEC: mult {mult} must be non-zero and shift {shift} at most 32"),
                    );
                }
            }
            OptValue::Other
        }
        opt_id::HEADER_INFO..=opt_id::CMDLINES | opt_id::BTF_FILE | opt_id::MODULES_FILE => {
            fixed(ctx, loc, name, &payload, rec.clone(), 8)
                .and_then(|r| u64_of(&r))
                .map_or(OptValue::Other, OptValue::U64)
        }
        opt_id::BUFFER => buffer(ctx, loc, payload.clone(), v7, false),
        opt_id::BUFFER_TEXT => buffer(ctx, loc, payload.clone(), true, true),
        opt_id::TIME_SHIFT => {
            if let Err(why) = time_shift(payload.clone()) {
                ctx.report(
                    &rules::OPTION_PAYLOAD,
                    loc,
                    pspan.clone(),
                    format!("option TIME_SHIFT: {why}"),
                );
            }
            OptValue::Other
        }
        opt_id::GUEST => {
            if let Err(why) = guest(payload.clone()) {
                ctx.report(
                    &rules::OPTION_PAYLOAD,
                    loc,
                    pspan.clone(),
                    format!("option GUEST: {why}"),
                );
            }
            OptValue::Other
        }
        _ => {
            ctx.report(
                &rules::UNKNOWN_OPTION,
                loc,
                rec.clone(),
                format!("option id {id} ({size} bytes) is unknown; it was skipped"),
            );
            OptValue::Other
        }
    };
    Opt {
        id,
        span: loc.map(rec),
        size,
        value,
    }
}

fn u64_of(r: &Reader<'_>) -> Option<u64> {
    r.clone().u64("value").ok()
}

fn fixed<'a>(
    ctx: &mut Ctx<'_, '_>,
    loc: &Loc,
    name: &str,
    p: &Reader<'a>,
    rec: Range<u64>,
    want: usize,
) -> Option<Reader<'a>> {
    if p.remaining() != want {
        ctx.report(
            &rules::OPTION_SIZE,
            loc,
            rec,
            format!("option {name} has size {}, expected {want}", p.remaining()),
        );
        return None;
    }
    Some(p.clone())
}

fn string_payload(
    ctx: &mut Ctx<'_, '_>,
    loc: &Loc,
    name: &str,
    p: &Reader<'_>,
    rec: Range<u64>,
) -> Option<String> {
    let b = p.all_bytes();
    let why = match b.split_last() {
        None => Some("is empty (size 0); it must hold a NUL-terminated string".to_string()),
        Some((&last, body)) => {
            if last != 0 {
                Some("does not end with a NUL byte".to_string())
            } else {
                body.iter()
                    .position(|&c| c == 0)
                    .map(|i| format!("has a NUL byte at position {i} before its end"))
            }
        }
    };
    if let Some(why) = why {
        // An empty string option makes trace-cmd 3.1.6 write before its buffer (CPUSTAT's
        // `buf[size - 1] = 0`); a NUL inside or none at the end only cuts or extends the text
        // (`strdup`), which no event depends on.
        let (level, tail) = if b.is_empty() {
            (crate::finding::Severity::Error, "")
        } else {
            (
                crate::finding::Severity::Warning,
                "; trace-cmd 3.1.6–3.3.4 read its text up to the first NUL and the events the same",
            )
        };
        let f = ctx
            .sink
            .make(
                &rules::OPTION_STRING,
                loc.map(rec),
                format!("option {name} {why}{tail}"),
            )
            .level(level);
        let f = if level == crate::finding::Severity::Warning {
            f.impact("trace-cmd report", "3.1.6–3.3.4", "same")
        } else {
            f
        };
        ctx.sink.push(f);
        return None;
    }
    let body = b.split_last().map(|(_, s)| s).unwrap_or(&[]);
    Some(String::from_utf8_lossy(body).into_owned())
}

/// `strtoll(s, &end, 0)` with the whole string consumed.
fn check_strtoll(s: &str) -> Result<(), String> {
    let t = s.trim_start();
    let t = t.strip_prefix(['-', '+']).unwrap_or(t);
    let ok = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit())
    } else if t.len() > 1 && t.starts_with('0') {
        t.bytes().all(|b| (b'0'..=b'7').contains(&b))
    } else {
        !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{s}` is not an integer (decimal, 0x-hex or 0-octal)"
        ))
    }
}

/// `[sys:]start,match[,pid]/[sys:]end,match[,flags]`.
fn check_hook(s: &str) -> Result<(), String> {
    let Some((a, b)) = s.split_once('/') else {
        return Err(format!("`{s}` has no `/` between the start and end events"));
    };
    for (part, what) in [(a, "start"), (b, "end")] {
        let ev = part.split_once(':').map_or(part, |(_, e)| e);
        let fields: Vec<&str> = ev.split(',').collect();
        if fields.len() < 2
            || fields.len() > 3
            || fields.iter().take(2).any(|f| f.trim().is_empty())
        {
            return Err(format!(
                "the {what} part `{part}` is not `[system:]event,field[,extra]`"
            ));
        }
    }
    Ok(())
}

/// Per process `"%x %x %s\n"` (pid, nlibs, comm) then nlibs × `"%zx %zx %s\n"`.
fn check_procmaps(s: &str) -> Result<(), String> {
    let mut lines = s.lines().filter(|l| !l.trim().is_empty());
    while let Some(l) = lines.next() {
        if l.len() > 4096 {
            return Err("a line is longer than 4096 characters".into());
        }
        let mut it = l.split_whitespace();
        let pid = it.next().unwrap_or("");
        let n = it.next().unwrap_or("");
        let nlibs = match (u32::from_str_radix(pid, 16), u64::from_str_radix(n, 16)) {
            (Ok(_), Ok(n)) => n,
            _ => return Err(format!("`{l}` is not `PID NLIBS COMM` (hex numbers)")),
        };
        for _ in 0..nlibs {
            let Some(lib) = lines.next() else {
                return Err(format!(
                    "process line `{l}` announces {nlibs} libraries but fewer follow"
                ));
            };
            let mut it = lib.split_whitespace();
            let ok = it
                .next()
                .is_some_and(|v| u64::from_str_radix(v, 16).is_ok())
                && it
                    .next()
                    .is_some_and(|v| u64::from_str_radix(v, 16).is_ok())
                && it.next().is_some();
            if !ok {
                return Err(format!("`{lib}` is not `START END PATH` (hex numbers)"));
            }
        }
    }
    Ok(())
}

/// TIME_SHIFT: u64 peer · u32 flags · u32 ncpu · ncpu × (u32 n · 3n × u64) · optional ncpu × n × u64.
fn time_shift(mut r: Reader<'_>) -> Result<(), String> {
    let e = |_| "payload ends early".to_string();
    r.u64("peer id").map_err(e)?;
    r.u32("flags").map_err(e)?;
    let ncpu = r.u32("cpu count").map_err(e)?;
    if ncpu == 0 || ncpu > MAX_CPUS {
        return Err(format!("cpu count {ncpu} is not between 1 and {MAX_CPUS}"));
    }
    let mut counts = Vec::new();
    for cpu in 0..ncpu {
        let n = r.u32("sample count").map_err(e)?;
        if n == 0 {
            return Err(format!(
                "cpu {cpu} has 0 samples (readers use the first two)"
            ));
        }
        let need = u64::from(n).saturating_mul(24);
        if need > r.remaining() as u64 {
            return Err(format!(
                "cpu {cpu}: {n} samples need {need} bytes, only {} remain",
                r.remaining()
            ));
        }
        let mut prev = None;
        for i in 0..n {
            let t = r.u64("time").map_err(e)?;
            if prev.is_some_and(|p| t < p) {
                return Err(format!(
                    "cpu {cpu}: sample {i} time {t} is before the previous one"
                ));
            }
            prev = Some(t);
        }
        r.skip(u64::from(n).saturating_mul(16), "offsets and scalings")
            .map_err(e)?;
        counts.push(n);
    }
    if r.is_empty() {
        return Ok(());
    }
    let frac: u64 = counts
        .iter()
        .map(|&n| u64::from(n).saturating_mul(8))
        .fold(0, u64::saturating_add);
    if r.remaining() as u64 != frac {
        return Err(format!(
            "{} bytes follow the samples; expected none or the {frac} bytes of the fraction table",
            r.remaining()
        ));
    }
    Ok(())
}

/// GUEST: str name · u64 trace id · u32 nvcpu · nvcpu × (u32 cpu · u32 pid).
fn guest(mut r: Reader<'_>) -> Result<(), String> {
    let e = |_| "payload ends early".to_string();
    r.cstr(r.remaining(), "guest name")
        .map_err(|_| "guest name has no NUL".to_string())?;
    r.u64("trace id").map_err(e)?;
    let n = r.u32("vcpu count").map_err(e)?;
    if u64::from(n).saturating_mul(8) != r.remaining() as u64 {
        return Err(format!(
            "{n} vcpus need {} bytes, {} remain",
            u64::from(n).saturating_mul(8),
            r.remaining()
        ));
    }
    let mut seen = std::collections::HashSet::new();
    for _ in 0..n {
        let cpu = r.u32("vcpu").map_err(e)?;
        r.u32("host pid").map_err(e)?;
        if cpu >= n || !seen.insert(cpu) {
            return Err(format!("vcpu {cpu} is out of range (0..{n}) or repeated"));
        }
    }
    Ok(())
}

/// BUFFER / BUFFER_TEXT payload.
fn buffer(ctx: &mut Ctx<'_, '_>, loc: &Loc, mut r: Reader<'_>, v7: bool, text: bool) -> OptValue {
    let pspan = r.base()..r.end_offset();
    let what = if text { "BUFFER_TEXT" } else { "BUFFER" };
    let bad = |ctx: &mut Ctx<'_, '_>, s: Range<u64>, m: String| {
        ctx.report(&rules::BUFFER_OPTION, loc, s, format!("option {what}: {m}"));
        OptValue::Other
    };
    let Ok(offset) = r.u64("offset") else {
        return bad(
            ctx,
            pspan,
            "payload is shorter than its 8-byte offset".into(),
        );
    };
    let name = match r.cstr(r.remaining(), "name") {
        Ok(b) => String::from_utf8_lossy(b).into_owned(),
        Err(_) => return bad(ctx, pspan, "buffer name is not NUL-terminated".into()),
    };
    if !v7 {
        if !r.is_empty() {
            let s = r.offset()..r.end_offset();
            return bad(
                ctx,
                s,
                format!("{} bytes follow the buffer name", r.remaining()),
            );
        }
        return OptValue::Buffer {
            offset,
            name,
            clock: None,
            page_size: None,
            cpus: Vec::new(),
        };
    }
    let cs = r.offset();
    let clock = match r.cstr(r.remaining(), "clock") {
        Ok(b) => String::from_utf8_lossy(b).into_owned(),
        Err(_) => return bad(ctx, pspan, "clock name is not NUL-terminated".into()),
    };
    if clock.is_empty() {
        bad(
            ctx,
            cs..r.offset(),
            format!("buffer `{name}` has an empty clock name"),
        );
    }
    if text {
        if !r.is_empty() {
            let s = r.offset()..r.end_offset();
            return bad(
                ctx,
                s,
                format!("{} bytes follow the clock name", r.remaining()),
            );
        }
        return OptValue::Buffer {
            offset,
            name,
            clock: Some(clock),
            page_size: None,
            cpus: Vec::new(),
        };
    }
    let ps_at = r.offset();
    let (Ok(page_size), Ok(ncpus)) = (r.u32("page size"), r.u32("cpu count")) else {
        return bad(
            ctx,
            pspan,
            "payload ends before the page size and CPU count".into(),
        );
    };
    let need = u64::from(ncpus).saturating_mul(20);
    if need != r.remaining() as u64 {
        return bad(
            ctx,
            ps_at.saturating_add(4)..ps_at.saturating_add(8),
            format!(
                "buffer `{name}` declares {ncpus} CPUs ({need} bytes) but {} bytes follow",
                r.remaining()
            ),
        );
    }
    let mut cpus = Vec::new();
    let mut prev: Option<u32> = None;
    for _ in 0..ncpus {
        let es = r.offset();
        let (Ok(cpu), Ok(off), Ok(size)) = (r.u32("cpu"), r.u64("data offset"), r.u64("data size"))
        else {
            break;
        };
        let span = loc.map(es..r.offset());
        if prev.is_some_and(|p| cpu <= p) {
            ctx.report(
                &rules::BUFFER_OPTION,
                loc,
                es..es.saturating_add(4),
                format!(
                    "buffer `{name}`: CPU id {cpu} is not greater than the previous id {}",
                    prev.unwrap_or(0)
                ),
            );
        }
        prev = Some(cpu);
        cpus.push(CpuEntry {
            cpu,
            offset: off,
            size,
            span,
        });
    }
    // trace-cmd 3.1.6 and 3.3.4 read a v7 instance's pages with its BUFFER option's page size
    // (`tracecmd_buffer_instance_handle`) and the top buffer's with the header's. The top
    // buffer's is judged against the header by the caller. A page size below the 16-byte page
    // header walks no page (`walk_cpu`), so it is judged here.
    let tiny = page_size.is_power_of_two() && page_size < MIN_INSTANCE_PAGE;
    if !name.is_empty() && (page_size == 0 || !page_size.is_power_of_two() || tiny) {
        let msg = if tiny {
            format!("option {what}: buffer `{name}` page size {page_size} is smaller than a ring page's {MIN_INSTANCE_PAGE}-byte header")
        } else {
            format!("option {what}: buffer `{name}` page size {page_size} is not a power of two")
        };
        let span = ps_at..ps_at.saturating_add(4);
        let f = if cpus.iter().all(|c| c.size == 0) {
            ctx.make(&rules::BUFFER_OPTION, loc, span, format!("{msg}; the buffer holds no CPU data, so trace-cmd 3.1.6–3.3.4 read the same events"))
                .read_same("trace-cmd report", "3.1.6–3.3.4")
        } else if tiny {
            ctx.make(&rules::BUFFER_OPTION, loc, span, format!("{msg}; trace-cmd 3.1.6 and 3.3.4 read the buffer's pages with it and crash (SIGSEGV on page sizes 1, 2, 4 and 8, campaign)"))
                .fails("trace-cmd report", "3.1.6–3.3.4", "crash")
        } else {
            ctx.make(&rules::BUFFER_OPTION, loc, span, format!("{msg}; trace-cmd 3.1.6 and 3.3.4 read the buffer's pages with it and lose or misread its events (a page size of 768 in the campaign: 47 of 81 events printed)"))
                .fails("trace-cmd report", "3.1.6–3.3.4", "loss")
        };
        ctx.sink.push(f);
    }
    OptValue::Buffer {
        offset,
        name,
        clock: Some(clock),
        page_size: Some(page_size),
        cpus,
    }
}

/// Reports option `o` as a repeat of the one at `first`.
pub fn duplicate_option(ctx: &mut Ctx<'_, '_>, o: &Opt, first: &std::ops::Range<u64>) {
    let f = ctx
        .sink
        .make(
            &rules::DUPLICATE_OPTION,
            o.span.clone(),
            format!(
                "option {} appears again; readers keep only the last one",
                opt_id::name(o.id)
            ),
        )
        .note(format!("first at 0x{:x}", first.start));
    ctx.sink.push(f);
}
