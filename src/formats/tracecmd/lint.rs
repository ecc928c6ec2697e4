//! Semantic checks over the decoded model: cross-references between header, header_page,
//! formats, options and CPU ranges.

use super::decode::ctx::Ctx;
use super::model::{self, opt_id, OptValue, TraceDat};
use super::rules;
use std::collections::HashMap;
use std::ops::Range;

/// Checks that need the whole model before the CPU data is walked.
pub fn before_data(ctx: &mut Ctx<'_, '_>, m: &TraceDat) {
    header_page(ctx, m);
    event_ids(ctx, m);
    duplicate_options(ctx, m);
    cpu_counts(ctx, m);
    writer_quirks(ctx, m);
}

/// Quirks of named writer versions (info), and kernel texts that say which kernel wrote them.
fn writer_quirks(ctx: &mut Ctx<'_, '_>, m: &TraceDat) {
    let producer = m.producer();
    for o in m
        .options
        .iter()
        .filter(|o| o.id == opt_id::TRACECLOCK && o.size == 0)
    {
        let what = if m.header.version == 6 && producer.starts_with("trace-cmd 2.") {
            "which writes TRACECLOCK as an empty flag meaning \"a clock record follows the flyrecord table\""
        } else {
            "whose TRACECLOCK option is empty when tracefs `trace_clock` could not be read (trace-cmd 2.2.1–2.9.x always write it empty)"
        };
        ctx.sink.report(
            &rules::TRACECLOCK_FLAG,
            o.span.clone(),
            format!("option TRACECLOCK is empty (size 0): written by {producer}, {what}"),
        );
    }
    if let Some(span) = &m.meta.header_event_old {
        let release = m.kernel_release();
        let newer = release
            .and_then(model::kernel_major_minor)
            .is_some_and(|v| v >= (4, 17));
        if newer {
            ctx.sink.report(
                &rules::HEADER_EVENT,
                span.clone(),
                format!(
                    "header_event does not say: time_stamp : type == 31, but the UNAME option names Linux {}, which prints it (since 4.17)",
                    release.unwrap_or("")
                ),
            );
        } else {
            let from = match release {
                Some(r) => format!("recorded on Linux {r}"),
                None => "no UNAME option names the kernel".to_string(),
            };
            ctx.sink.report(
                &rules::OLD_HEADER_EVENT,
                span.clone(),
                format!("header_event has no `time_stamp : type == 31` line, as Linux before 4.17 prints it ({from}); the event header encoding is the same"),
            );
        }
    }
}

/// Checks that need the CPU results (stored stream lengths).
pub fn after_data(ctx: &mut Ctx<'_, '_>, m: &TraceDat) {
    long_size(ctx, m);
    top_clock(ctx, m);
    overlaps_and_padding(ctx, m);
    trailing(ctx, m);
}

/// The event ids of the records in the CPU data.
fn ids_in_data(ctx: &Ctx<'_, '_>, m: &TraceDat) -> crate::formats::ftrace_ring::IdSet {
    let mut ids = crate::formats::ftrace_ring::IdSet::default();
    for r in m.buffers.iter().flat_map(|b| b.results.iter()) {
        ids.extend(&r.stats.ids);
    }
    if let Some(s) = ctx.sieve {
        s.add_ids(&mut ids);
    }
    ids
}

/// A long size other than 4 or 8: libtraceevent and trace-cmd read the kernel's own entries
/// (`ftrace:kernel_stack`, `user_stack`, `raw_data`, …) with it, past their ends or short;
/// `ftrace:print` and tracepoint records (their fields have their own sizes, `%p` included)
/// read the same (verified with trace-cmd 3.1.6 for every size from 0 to 255 in steps).
fn long_size(ctx: &mut Ctx<'_, '_>, m: &TraceDat) {
    let ls = m.header.long_size;
    if ls == 4 || ls == 8 {
        return;
    }
    let at = m.header.long_size_at;
    let ids = ids_in_data(ctx, m);
    let mut users: Vec<String> = m
        .meta
        .formats
        .iter()
        .filter(|f| f.system == "ftrace" && f.name != "print")
        .filter(|f| ids.contains(f.id))
        .map(|f| format!("{}:{}", f.system, f.name))
        .collect();
    let msg = format!("long size is {ls}, expected 4 or 8");
    let f = if users.is_empty() {
        ctx.sink
            .make(
                &rules::BAD_LONG_SIZE,
                at..at.saturating_add(1),
                format!("{msg}; only the kernel's own entries (ftrace stack traces, raw_data, …) are read with it, and the data has none (ftrace print and tracepoint records have their own field sizes), so trace-cmd 3.1.6–3.3.4 read the same events"),
            )
            .read_same("trace-cmd report", "3.1.6–3.3.4")
    } else {
        let more = users.len().saturating_sub(3);
        users.truncate(3);
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        ctx.sink
            .make(
                &rules::BAD_LONG_SIZE,
                at..at.saturating_add(1),
                format!("{msg}; the data's {}{tail} records are read with it: trace-cmd 3.1.6–3.3.4 misread them, or crash or hang on them", users.join(", ")),
            )
            .fails("trace-cmd report", "3.1.6–3.3.4", "crash")
    };
    ctx.sink.push(f);
}

fn header_page(ctx: &mut Ctx<'_, '_>, m: &TraceDat) {
    let Some(hp) = &m.meta.header_page else {
        return;
    };
    let h = &m.header;
    let sub = hp.data_offset.saturating_add(hp.data_size);
    if sub != h.page_size {
        ctx.sink.report(
            &rules::HEADER_PAGE_MISMATCH,
            hp.span.clone(),
            format!(
                "header_page data offset {} + size {} = {sub}, but the file's page size is {}",
                hp.data_offset, hp.data_size, h.page_size
            ),
        );
    }
    if hp.commit_size != u32::from(h.long_size) {
        let f = ctx
            .sink
            .make(
                &rules::HEADER_PAGE_MISMATCH,
                hp.span.clone(),
                format!(
                    "header_page commit size {} (kernel long) differs from the header's long size {}",
                    hp.commit_size, h.long_size
                ),
            )
            .note("pages are decoded with the header_page commit size")
            .help("expected only for 32-bit user space on a 64-bit kernel");
        ctx.sink.push(f);
    }
    let expect = 8u32.saturating_add(hp.commit_size);
    if hp.data_offset != expect && hp.data_offset != 16 {
        ctx.sink.report(
            &rules::HEADER_PAGE_MISMATCH,
            hp.span.clone(),
            format!(
                "header_page data offset {} is neither 8 + commit size ({expect}) nor 16",
                hp.data_offset
            ),
        );
    }
}

fn event_ids(ctx: &mut Ctx<'_, '_>, m: &TraceDat) {
    let mut ids: HashMap<u32, (&str, &str)> = HashMap::new();
    for f in &m.meta.formats {
        if let Some((s, n)) = ids.insert(f.id, (&f.system, &f.name)) {
            ctx.sink.report(
                &rules::DUPLICATE_EVENT_ID,
                f.id_span.clone(),
                format!(
                    "event `{}:{}` has ID {}, already used by `{s}:{n}`",
                    f.system, f.name, f.id
                ),
            );
        }
    }
    let mut systems: HashMap<&str, ()> = HashMap::new();
    for (s, span) in &m.meta.systems {
        if systems.insert(s, ()).is_some() || s == "ftrace" {
            ctx.sink.report(
                &rules::DUPLICATE_EVENT_ID,
                span.clone(),
                format!(
                    "event system `{s}` appears twice (or `ftrace` outside the ftrace formats)"
                ),
            );
        }
    }
}

fn duplicate_options(ctx: &mut Ctx<'_, '_>, m: &TraceDat) {
    let mut seen: HashMap<u16, (&OptValue, Range<u64>)> = HashMap::new();
    for o in &m.options {
        let single = matches!(
            o.id,
            opt_id::DATE
                | opt_id::TRACECLOCK
                | opt_id::UNAME
                | opt_id::OFFSET
                | opt_id::CPUCOUNT
                | opt_id::VERSION
                | opt_id::TRACEID
                | opt_id::TSC2NSEC
        );
        if !single {
            continue;
        }
        if let Some((prev, pspan)) = seen.insert(o.id, (&o.value, o.span.clone())) {
            // convert writes CPUCOUNT twice in v6 files: harmless when equal.
            if o.id == opt_id::CPUCOUNT {
                if let (OptValue::U32(a), OptValue::U32(b)) = (prev, &o.value) {
                    if a == b {
                        continue;
                    }
                }
            }
            super::decode::options::duplicate_option(ctx, o, &pspan);
        }
    }
}

/// Clocks trace-cmd 3.1.6–3.3.4 print as nanoseconds (`tracecmd_set_clock`): any other clock
/// needs the TRACECLOCK option, which alone makes them print raw values.
fn is_ns_clock(c: &str) -> bool {
    matches!(
        c,
        "local" | "global" | "uptime" | "perf" | "tai" | "x86-tsc-nsec"
    ) || c.starts_with("mono")
}

fn top_clock(ctx: &mut Ctx<'_, '_>, m: &TraceDat) {
    if m.has_option(opt_id::TRACECLOCK) {
        return;
    }
    let Some(b) = m.buffers.iter().find(|b| b.name.is_empty()) else {
        return;
    };
    let Some(c) = b.clock.as_deref() else { return };
    // v6: trace-cmd 2.9.5–3.3.4 read the clock record only with a TRACECLOCK option.
    let versions = if m.header.version == 7 {
        "3.1.6–3.3.4"
    } else {
        "2.9.5–3.3.4"
    };
    // A name that is no clock name is the clock record's own defect (TD070).
    let named = !c.is_empty()
        && c.chars()
            .all(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '_');
    if !named || is_ns_clock(c) || b.results.iter().all(|r| r.stats.events == 0) {
        return;
    }
    let f = ctx
        .sink
        .make(
            &rules::MISSING_METADATA,
            b.span.clone(),
            format!("the top buffer's clock is `{c}` (its {}) but there is no TRACECLOCK option; trace-cmd {versions} then print its raw values as nanoseconds (a counter prints every event at 0.000000), so every timestamp is lost", if m.header.version == 7 { "BUFFER option" } else { "clock record" }),
        )
        .fails("trace-cmd report", versions, "loss");
    ctx.sink.push(f);
}

fn cpu_counts(ctx: &mut Ctx<'_, '_>, m: &TraceDat) {
    if m.header.version != 7 {
        return;
    }
    let Some(n) = m.cpucount() else { return };
    // trace-cmd 3.1.6–3.3.4 size and walk each buffer's CPU table by the BUFFER option's own
    // count (`init_buffer_cpu_data`: `handle->cpus = buffer->cpus`); CPUCOUNT only feeds
    // `tep_set_cpus` and `max_cpu`, which is the larger of both.
    const SAME: &str = "trace-cmd 3.1.6–3.3.4 size and walk the CPU table by the BUFFER option's own count and read the same events";
    for b in &m.buffers {
        if b.cpus.len() as u64 > u64::from(n) {
            let f = ctx
                .sink
                .make(
                    &rules::CPU_COUNT,
                    b.span.clone(),
                    format!(
                        "buffer `{}` lists {} CPUs but CPUCOUNT is {n}; {SAME}",
                        b.name,
                        b.cpus.len()
                    ),
                )
                .read_same("trace-cmd report", "3.1.6–3.3.4");
            ctx.sink.push(f);
            continue;
        }
        for e in &b.cpus {
            if e.cpu >= super::decode::options::MAX_CPUS {
                // trace-cmd sizes per-CPU tables by the largest id: 2^24 takes 5 GB, 2^28 and
                // above fail to allocate and the report is empty (campaign).
                let f = ctx
                    .sink
                    .make(
                        &rules::CPU_COUNT,
                        e.span.clone(),
                        format!(
                            "buffer `{}` CPU id {} is not below CPUCOUNT {n}, nor below {}; trace-cmd 3.1.6–3.3.4 size per-CPU tables by the largest id (5 GB at 2^24) and print nothing from 2^28 on",
                            b.name, e.cpu, super::decode::options::MAX_CPUS
                        ),
                    )
                    .fails("trace-cmd report", "3.1.6–3.3.4", "reject");
                ctx.sink.push(f);
            } else if e.cpu >= n {
                let f = ctx
                    .sink
                    .make(
                        &rules::CPU_COUNT,
                        e.span.clone(),
                        format!(
                            "buffer `{}` CPU id {} is not below CPUCOUNT {n}; {SAME}",
                            b.name, e.cpu
                        ),
                    )
                    .read_same("trace-cmd report", "3.1.6–3.3.4");
                ctx.sink.push(f);
            }
        }
    }
}

/// One stored CPU range.
struct Stored {
    start: u64,
    end: u64,
    span: Range<u64>,
    what: String,
}

fn overlaps_and_padding(ctx: &mut Ctx<'_, '_>, m: &TraceDat) {
    let mut all: Vec<Stored> = Vec::new();
    for b in &m.buffers {
        for (e, r) in b.cpus.iter().zip(b.results.iter()) {
            if r.stored == 0 {
                continue;
            }
            all.push(Stored {
                start: e.offset,
                end: e.offset.saturating_add(r.stored),
                span: e.span.clone(),
                what: if b.name.is_empty() {
                    format!("CPU {}", e.cpu)
                } else {
                    format!("buffer `{}` CPU {}", b.name, e.cpu)
                },
            });
        }
    }
    // Structures the CPU data must not cover (v6: the metadata and instance tables).
    let mut structs: Vec<(Range<u64>, &str)> = Vec::new();
    if m.header.version == 6 {
        structs.push((0..m.meta_end, "the file metadata"));
        for b in m.buffers.iter().skip(1) {
            structs.push((b.span.clone(), "an instance flyrecord table"));
        }
    }
    all.sort_by_key(|s| (s.start, s.end));
    // CPU-vs-CPU overlaps are reported (and not walked) by the data pass. Here: CPU data over
    // a structure, found with sorted structures (prefix maximum of ends, next start).
    let mut sorted: Vec<(u64, u64, &str)> =
        structs.iter().map(|(r, w)| (r.start, r.end, *w)).collect();
    sorted.sort_unstable();
    let mut prefix_max: Vec<(u64, usize)> = Vec::with_capacity(sorted.len());
    let mut best: (u64, usize) = (0, 0);
    for (i, (_, e, _)) in sorted.iter().enumerate() {
        if *e > best.0 {
            best = (*e, i);
        }
        prefix_max.push(best);
    }
    for s in &all {
        let k = sorted.partition_point(|(st, _, _)| *st <= s.start);
        let before = k
            .checked_sub(1)
            .and_then(|i| prefix_max.get(i))
            .filter(|(e, _)| *e > s.start);
        let hit = match before {
            Some(&(_, i)) => sorted.get(i),
            None => sorted.get(k).filter(|(st, _, _)| *st < s.end),
        };
        if let Some((rs, re, what)) = hit {
            ctx.sink.report(
                &rules::CPU_DATA_OVERLAP,
                s.span.clone(),
                format!(
                    "{} data 0x{:x}..0x{:x} overlaps {what} at 0x{rs:x}..0x{re:x}",
                    s.what, s.start, s.end
                ),
            );
        }
    }
    // Zero padding before each CPU's data, from the end of whatever precedes it.
    let mut gaps: Vec<Range<u64>> = Vec::new();
    if m.header.version == 6 {
        let mut items: Vec<(u64, u64, bool)> = structs
            .iter()
            .map(|(r, _)| (r.start, r.end, false))
            .collect();
        items.extend(all.iter().map(|s| (s.start, s.end, true)));
        items.sort_unstable();
        let mut end = 0u64;
        for (st, en, is_cpu) in items {
            if is_cpu && st > end {
                gaps.push(end..st);
            }
            end = end.max(en);
        }
    } else {
        for b in &m.buffers {
            let Some(sec) = b.section.and_then(|i| m.sections.get(i)) else {
                continue;
            };
            let mut ranges: Vec<(u64, u64)> = b
                .cpus
                .iter()
                .zip(b.results.iter())
                .filter(|(_, r)| r.stored > 0)
                .map(|(e, r)| (e.offset, e.offset.saturating_add(r.stored)))
                .collect();
            ranges.sort_unstable();
            let mut from = sec.body.start;
            for (st, en) in ranges {
                if st > from {
                    gaps.push(from..st);
                }
                from = from.max(en);
            }
            // After the last CPU's data, up to the section end: a CPU whose size was cut to
            // 0 leaves its data there.
            if sec.body.end > from {
                gaps.push(from..sec.body.end);
            }
        }
    }
    // Padding is read from the bytes: a sieve must not have left any of it out.
    if let Some(s) = ctx.sieve {
        s.check_spans(gaps.iter().cloned());
    }
    let compressed = m.header.version >= 7 && m.header.algo.is_some_and(|a| a != model::Algo::None);
    let data = ctx.data;
    for g in gaps {
        let (Ok(a), Ok(b)) = (usize::try_from(g.start), usize::try_from(g.end)) else {
            continue;
        };
        let Some(bytes) = data.get(a..b) else {
            continue;
        };
        if let Some(i) = bytes.iter().position(|&x| x != 0) {
            let at = g.start.saturating_add(i as u64);
            let msg = format!(
                "padding 0x{:x}..0x{:x} before CPU data has a non-zero byte at 0x{at:x}",
                g.start, g.end
            );
            // Writers zero the padding; non-zero bytes in the header of a whole page there are
            // CPU data (a page or a chunk stream) no BUFFER or flyrecord entry covers: a size
            // cut to 0 or short. Every reader reads only the declared ranges.
            let ps = u64::from(m.header.page_size.max(1));
            let page = at.checked_div(ps).unwrap_or(0).saturating_mul(ps);
            let holds_page = lost_page(data, m, &g).is_some();
            // A compressed CPU's data starts with its chunk count and first chunk sizes.
            let holds_chunks = compressed && page >= g.start && at < page.saturating_add(12) && {
                let word = |o: u64| {
                    usize::try_from(o)
                        .ok()
                        .and_then(|o| crate::reader::u32_at(data, o, m.header.endian))
                };
                match (
                    word(page),
                    word(page.saturating_add(4)),
                    word(page.saturating_add(8)),
                ) {
                    (Some(n), Some(cs), Some(us)) => {
                        (1..=1 << 20).contains(&n)
                            && cs > 0
                            && us >= cs / 2
                            && page.saturating_add(12).saturating_add(u64::from(cs)) <= g.end
                    }
                    _ => false,
                }
            };
            let f = if holds_page || holds_chunks {
                ctx.sink
                    .make(
                        &rules::CPU_DATA_NONZERO_PADDING,
                        at..g.end,
                        format!("{msg}: the page at 0x{page:x} holds CPU data no CPU entry covers, and trace-cmd 2.4–3.3.4 never read it"),
                    )
                    .fails("trace-cmd report", "2.4–3.3.4", "loss")
            } else {
                ctx.sink
                    .make(&rules::CPU_DATA_NONZERO_PADDING, at..g.end, msg)
            };
            ctx.sink.push(f);
        }
    }
}

/// The first ring page in `region` (bytes no CPU entry covers) that no reader reads: the
/// region starts where a CPU's declared data ends, and trace-cmd maps the page that data ends
/// in whole, so the search starts at the next page boundary. Its first non-zero byte (within
/// `LOOK_BYTES`) must lie in the header of a whole page with a fitting commit word.
fn lost_page(data: &[u8], m: &TraceDat, region: &Range<u64>) -> Option<u64> {
    let ps = u64::from(m.header.page_size.max(1));
    let from = region.start.div_ceil(ps).saturating_mul(ps);
    let rest = usize::try_from(from).ok().and_then(|f| {
        let end = usize::try_from(region.end).unwrap_or(usize::MAX);
        data.get(f..end.min(f.saturating_add(LOOK_BYTES)).min(data.len()))
    })?;
    let at = from.saturating_add(rest.iter().position(|&b| b != 0)? as u64);
    page_header_at(data, m, at, &(from..region.end)).then_some(at)
}

/// Whether the first non-zero byte `at` of `region` in `data` lies in the header (first 16
/// bytes) of a whole page inside `region` whose commit word gives a data size that fits the
/// page: the start of a ring page with events.
fn page_header_at(data: &[u8], m: &TraceDat, at: u64, region: &Range<u64>) -> bool {
    let ps = u64::from(m.header.page_size.max(1));
    let page = at.checked_div(ps).unwrap_or(0).saturating_mul(ps);
    let whole = page >= region.start
        && at < page.saturating_add(16)
        && page.saturating_add(ps) <= region.end;
    let Some(commit_at) = usize::try_from(page.saturating_add(8))
        .ok()
        .filter(|_| whole)
    else {
        return false;
    };
    let e = m.header.endian;
    let size = crate::formats::ftrace_ring::COMMIT_SIZE_MASK;
    // The kernel's long is 8 bytes (or 4): either commit word may hold the data size.
    let fits = |c: u64, hdr: u64| (1..=ps.saturating_sub(hdr)).contains(&(c & size));
    crate::reader::u64_at(data, commit_at, e).is_some_and(|c| c >> 32 == 0 && fits(c, 16))
        || crate::reader::u32_at(data, commit_at, e).is_some_and(|c| fits(u64::from(c), 12))
}

/// Bytes of trailing data looked at for a ring page (a sparse tail of any size is not read).
const LOOK_BYTES: usize = 1 << 20;

/// Where the last CPU data of a v6 file ends (`None` for v7, or before the metadata is read).
fn v6_data_end(m: &TraceDat) -> Option<u64> {
    if m.header.version != 6 || m.meta_end == 0 {
        return None;
    }
    let mut end = m.meta_end;
    for b in &m.buffers {
        end = end.max(b.span.end);
        for (e, r) in b.cpus.iter().zip(b.results.iter()) {
            if r.stored > 0 {
                end = end.max(e.offset.saturating_add(r.stored));
            }
        }
    }
    Some(end)
}

fn trailing(ctx: &mut Ctx<'_, '_>, m: &TraceDat) {
    let len = ctx.len();
    let added = v6_data_end(m)
        .filter(|&e| e < len)
        .map(|e| len.saturating_sub(e));
    crate::formats::tracecmd::decode::meta::tail_as_system(ctx, &m.meta, added);
    let Some(end) = v6_data_end(m) else {
        return;
    };
    if end < len {
        let msg = format!(
            "{} bytes follow the end of the last CPU data at 0x{end:x}",
            len.saturating_sub(end)
        );
        let f = match orphan_instance(ctx.data, m, end) {
            Some((at, bytes)) => ctx
                .sink
                .make(
                    &rules::TRAILING_DATA,
                    end..len,
                    format!("{msg}: they hold an instance's CPU table (`flyrecord\\0` at 0x{at:x}) with {bytes} bytes of CPU data that no BUFFER option points at; trace-cmd 2.4–3.3.4 never read those events"),
                )
                .fails("trace-cmd report", "2.4–3.3.4", "loss"),
            None => {
                // A ring page after the last CPU's data: a CPU whose size was cut (to 0 or
                // short) leaves its pages there, and no reader reads them.
                if let Some(s) = ctx.sieve {
                    s.check_spans(std::iter::once(end..len));
                }
                // Only the first bytes are looked at: a lost CPU's pages start right there
                // (or at the next page boundary, after the page a short size ends in).
                match lost_page(ctx.data, m, &(end..len)) {
                    Some(at) => ctx
                        .sink
                        .make(
                            &rules::TRAILING_DATA,
                            end..len,
                            format!("{msg}: the page at 0x{at:x} is a ring page no CPU entry covers (a CPU data size cut to 0 or short), and trace-cmd 2.4–3.3.4 never read its events"),
                        )
                        .fails("trace-cmd report", "2.4–3.3.4", "loss"),
                    None => ctx.sink.make(&rules::TRAILING_DATA, end..len, msg),
                }
            }
        };
        ctx.sink.push(f);
    }
}

/// A v6 instance's `flyrecord\0` CPU table in the bytes after `end` (at `end` or one of the
/// next page boundaries), whose entries hold CPU data inside the file: its offset and the
/// bytes of data it lists.
fn orphan_instance(data: &[u8], m: &TraceDat, end: u64) -> Option<(u64, u64)> {
    const TAG: &[u8] = b"flyrecord\0";
    let ncpu = m.buffers.first().map(|b| b.cpus.len())?;
    let page = u64::from(m.header.page_size).max(1);
    let len = data.len() as u64;
    let first_page = end.div_ceil(page).saturating_mul(page);
    let starts = std::iter::once(end)
        .chain((0..16u64).map(|i| first_page.saturating_add(i.saturating_mul(page))));
    for at in starts {
        let Some(tail) = usize::try_from(at).ok().and_then(|a| data.get(a..)) else {
            break;
        };
        if !tail.starts_with(TAG) {
            continue;
        }
        let mut r = crate::reader::Reader::with_base(tail, at, m.header.endian);
        if r.bytes(TAG.len(), "tag").is_err() {
            continue;
        }
        let mut bytes = 0u64;
        for _ in 0..ncpu {
            let (Ok(off), Ok(size)) = (r.u64("offset"), r.u64("size")) else {
                break;
            };
            if size > 0 && off >= at && off.checked_add(size).is_some_and(|e| e <= len) {
                bytes = bytes.saturating_add(size);
            }
        }
        if bytes > 0 {
            return Some((at, bytes));
        }
    }
    None
}
