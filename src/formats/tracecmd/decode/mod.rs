//! Structural decoding: the initial header, the v6 sequential layout, the v7 sections and the
//! options chain. Builds the [`TraceDat`] model and reports structural findings.

pub mod compress;
pub mod ctx;
pub mod data;
pub mod meta;
pub mod options;
pub mod pages;
pub mod sieve;
pub mod tep;

use self::ctx::{decompress_report, Ctx, Loc};
use self::meta::{Flow, Stop};
use self::options::MAX_CPUS;
use super::model::{
    opt_id, selected_clock, Algo, BufferInfo, CpuEntry, Header, Meta, Opt, OptValue, Section,
    TraceDat,
};
use super::rules;
use crate::finding::Sink;
use crate::reader::{Endian, ReadErrorKind, ReadResult, Reader};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

/// The smallest page size the ring walk reads pages with (a page header of 16 bytes fits).
const MIN_WALKED_PAGE: u32 = 16;

/// The magic at offset 0.
pub const MAGIC: &[u8; 10] = b"\x17\x08\x44tracing";
/// Largest plausible page size.
pub const MAX_PAGE_SIZE: u32 = 1 << 24;

fn span_of(start: u64, len: u64) -> Range<u64> {
    start..start.saturating_add(len)
}

fn rd<T>(ctx: &mut Ctx<'_, '_>, v: ReadResult<T>) -> Option<T> {
    v.map_err(|e| ctx.read_error(&rules::TRUNCATED, &Loc::file(), &e))
        .ok()
}

/// Decodes the initial header. `None` when nothing more can be read.
pub fn header(ctx: &mut Ctx<'_, '_>) -> Option<Header> {
    let data = ctx.data;
    let mut r = Reader::new(data, Endian::Little);
    let head = data.get(..MAGIC.len()).unwrap_or(data);
    if head != MAGIC.get(..head.len()).unwrap_or(&[]) || head.is_empty() {
        let shown: Vec<String> = head.iter().map(|b| format!("{b:02x}")).collect();
        ctx.sink.report(
            &rules::DAT_BAD_MAGIC,
            0..head.len() as u64,
            format!(
                "expected the magic 17 08 44 \"tracing\", found {}",
                shown.join(" ")
            ),
        );
        return None;
    }
    rd(ctx, r.bytes(MAGIC.len(), "magic"))?;
    let vs = r.offset();
    let version = match r.cstr(16, "version string") {
        Ok(v) => v,
        Err(e) => {
            if matches!(e.kind, ReadErrorKind::Unterminated { .. }) {
                ctx.sink.report(
                    &rules::DAT_UNSUPPORTED_VERSION,
                    vs..vs.saturating_add(16),
                    "the version string has no NUL within 16 bytes",
                );
            } else {
                ctx.read_error(&rules::TRUNCATED, &Loc::file(), &e);
            }
            return None;
        }
    };
    let vspan = vs..r.offset();
    let version = match version {
        b"6" => 6,
        b"7" => 7,
        other if strtol_version(other).is_some_and(|v| v <= 7) => {
            // trace-cmd 3.x read the string with `strtol` and take 0–6 for the v6 layout, 7 for
            // v7; 2.x read every file as v6. What parses as the layout that follows reads the
            // same.
            let v = strtol_version(other).unwrap_or(0);
            let layout = if v == 7 { 7 } else { 6 };
            let f = ctx
                .sink
                .make(
                    &rules::DAT_UNSUPPORTED_VERSION,
                    vspan,
                    format!(
                        "file version {:?} is not \"6\" or \"7\"; trace-cmd 3.1.6–3.3.4 read it with `strtol` as {v} and the file as v{layout}, as 2.4–2.9.5 do",
                        String::from_utf8_lossy(other)
                    ),
                )
                .read_same("trace-cmd report", "2.4–3.3.4");
            ctx.sink.push(f);
            layout
        }
        other => {
            ctx.sink.report(
                &rules::DAT_UNSUPPORTED_VERSION,
                vspan,
                format!(
                    "file version {:?} is not supported (only \"6\" and \"7\")",
                    String::from_utf8_lossy(other)
                ),
            );
            return None;
        }
    };
    let es = r.offset();
    let e = rd(ctx, r.u8("endianness byte"))?;
    let endian = match e {
        0 => Endian::Little,
        1 => Endian::Big,
        other => {
            ctx.sink.report(
                &rules::BAD_ENDIAN,
                es..es.saturating_add(1),
                format!("endianness byte is {other}, expected 0 (little) or 1 (big)"),
            );
            return None;
        }
    };
    r.set_endian(endian);
    let ls = r.offset();
    let long_size = rd(ctx, r.u8("long size"))?;
    // Ring pages are decoded with header_page's commit size, but the kernel's own entries are
    // read with this size: a size other than 4 or 8 is leveled once the records are known
    // (`lint::long_size`).
    let ps = r.offset();
    let page_size = rd(ctx, r.u32("page size"))?;
    if page_size.is_power_of_two() && (MIN_WALKED_PAGE..4096).contains(&page_size) {
        // A smaller power of two cuts every ring page into pieces read as pages of their own:
        // the first holds the page's data where it fits, the rest the kernel's zero fill
        // (empty pages). The walk with this size reports a page whose data does not fit.
        let f = ctx
            .sink
            .make(
                &rules::BAD_PAGE_SIZE,
                ps..ps.saturating_add(4),
                format!(
                    "page size is {page_size}, below 4096; the ring pages are walked with it: where every page's data fits, trace-cmd 2.4–3.3.4 read the same events (campaign: 1024 and 2048 on v6 and v7 files), and a page whose data does not fit is reported with the page (TD101)"
                ),
            )
            .read_same("trace-cmd report", "2.4–3.3.4");
        ctx.sink.push(f);
    } else if !(4096..=MAX_PAGE_SIZE).contains(&page_size) || !page_size.is_power_of_two() {
        ctx.sink.report(
            &rules::BAD_PAGE_SIZE,
            ps..ps.saturating_add(4),
            format!(
                "page size is {page_size}, expected a power of two from 4096 to {MAX_PAGE_SIZE}"
            ),
        );
    }
    ctx.version = version;
    let mut h = Header {
        version,
        endian,
        long_size,
        page_size,
        algo: None,
        compression: None,
        first_options: None,
        long_size_at: ls,
        span: 0..r.offset(),
    };
    if version == 7 {
        let cs = r.offset();
        let name = match r.cstr(64, "compression name") {
            Ok(b) => String::from_utf8_lossy(b).into_owned(),
            Err(e) => {
                ctx.read_error(&rules::TRUNCATED, &Loc::file(), &e);
                return None;
            }
        };
        let nspan = cs..r.offset();
        let vs = r.offset();
        let cver = match r.cstr(64, "compression version") {
            Ok(b) => String::from_utf8_lossy(b).into_owned(),
            Err(e) => {
                ctx.read_error(&rules::TRUNCATED, &Loc::file(), &e);
                return None;
            }
        };
        let algo = match name.as_str() {
            "none" => Some(Algo::None),
            "zstd" => Some(Algo::Zstd),
            "zlib" => Some(Algo::Zlib),
            _ => {
                ctx.sink.report(
                    &rules::BAD_COMPRESSION,
                    nspan.clone(),
                    format!(
                        "compression algorithm {name:?} is unknown (expected none, zstd or zlib)"
                    ),
                );
                None
            }
        };
        if algo == Some(Algo::None) && !cver.is_empty() {
            ctx.sink.report(
                &rules::BAD_COMPRESSION,
                vs..r.offset(),
                format!("compression `none` has the version {cver:?}; it must be empty"),
            );
        }
        if algo == Some(Algo::Zlib) {
            let f = ctx
                .sink
                .make(
                    &rules::ZLIB_COMPRESSION,
                    nspan.clone(),
                    "compressed with zlib: trace-cmd 3.1.6 and 3.3.4 built with zlib read it, but builds without zlib (Debian 12's 3.1.6-1, zstd only) stop with \"error reading header\" (exit 2); `trace-cmd convert --compression zstd` makes a file every 3.x build reads",
                );
            ctx.sink.push(f);
        }
        if algo == Some(Algo::Zlib)
            && !cver.is_empty()
            && !cver.bytes().next().is_some_and(|b| b.is_ascii_digit())
        {
            ctx.sink.report(
                &rules::BAD_COMPRESSION,
                vs..r.offset(),
                format!("zlib version {cver:?} does not start with a number"),
            );
        }
        let os = r.offset();
        let first = rd(ctx, r.u64("first options offset"))?;
        h.algo = algo;
        h.compression = Some((name, cver));
        h.first_options = Some((first, os..r.offset()));
        h.span = 0..r.offset();
    }
    Some(h)
}

fn new_model(h: Header) -> TraceDat {
    let long = h.long_size;
    TraceDat {
        header: h,
        kernel_long: if long == 4 { 4 } else { 8 },
        sections: Vec::new(),
        options_chain: Vec::new(),
        options: Vec::new(),
        meta: Meta::default(),
        cpu_count: None,
        buffers: Vec::new(),
        latency: None,
        meta_end: 0,
        options_section: false,
    }
}

fn set_kernel_long(m: &mut TraceDat) {
    if let Some(hp) = &m.meta.header_page {
        m.kernel_long = if hp.commit_size == 4 { 4 } else { 8 };
    }
}

// ------------------------------------------------------------------------------------------
// Version 6

/// Decodes a v6 file after its header.
pub fn v6(ctx: &mut Ctx<'_, '_>, h: Header) -> TraceDat {
    let endian = h.endian;
    let mut m = new_model(h);
    let data = ctx.data;
    let mut r = Reader::new(data, endian);
    if r.seek(m.header.span.end, "header end").is_err() {
        return m;
    }
    let _ = v6_body(ctx, &mut r, &mut m);
    // A body that stops before its event formats are settled still reports them.
    meta::settle_common_type(ctx, &m.meta);
    set_kernel_long(&mut m);
    m
}

fn v6_body(ctx: &mut Ctx<'_, '_>, r: &mut Reader<'_>, m: &mut TraceDat) -> Flow {
    let loc = Loc::file();
    meta::header_info(ctx, r, &loc, &mut m.meta)?;
    meta::ftrace_events(ctx, r, &loc, &mut m.meta)?;
    let formats = meta::event_formats(ctx, r, &loc, &mut m.meta);
    meta::settle_common_type(ctx, &m.meta);
    formats?;
    meta::kallsyms(ctx, r, &loc, &mut m.meta)?;
    meta::printk(ctx, r, &loc, &mut m.meta)?;
    meta::cmdlines(ctx, r, &loc, &mut m.meta)?;
    let cs = r.offset();
    let ncpu = rd(ctx, r.u32("CPU count")).ok_or(Stop)?;
    m.cpu_count = Some((ncpu, span_of(cs, 4)));
    let mut tag_at = r.offset();
    let raw = rd(ctx, r.bytes(10, "data tag")).ok_or(Stop)?;
    let mut tag = v6_tag(ctx, raw, tag_at);
    if tag == b"options  \0" {
        m.options_section = true;
        v6_options(ctx, r, m)?;
        tag_at = r.offset();
        let raw = rd(ctx, r.bytes(10, "data tag")).ok_or(Stop)?;
        tag = v6_tag(ctx, raw, tag_at);
    }
    match tag {
        b"latency  \0" => {
            m.latency = Some((r.offset()..r.end_offset(), false));
            m.meta_end = r.end_offset();
            Ok(())
        }
        b"flyrecord\0" => {
            if ncpu == 0 || ncpu > MAX_CPUS {
                ctx.sink.report(
                    &rules::BAD_CPU_COUNT,
                    span_of(cs, 4),
                    format!("CPU count is {ncpu}, expected 1 to {MAX_CPUS}"),
                );
                if ncpu > MAX_CPUS {
                    return Err(Stop);
                }
            }
            let n = match m.cpucount() {
                Some(c) => {
                    if c != ncpu {
                        ctx.sink.report(
                            &rules::CPU_COUNT,
                            span_of(cs, 4),
                            format!("the header says {ncpu} CPUs but the CPUCOUNT option says {c}; the flyrecord table is read with {c}"),
                        );
                    }
                    c
                }
                None => ncpu,
            };
            if n > MAX_CPUS {
                ctx.sink.report(
                    &rules::BAD_CPU_COUNT,
                    span_of(cs, 4),
                    format!("CPU count {n} is above {MAX_CPUS}"),
                );
                return Err(Stop);
            }
            let judge = ClockJudge::of(m);
            let (cpus, rclock) = v6_flyrecord(ctx, r, n, &judge, true)?;
            let clock = judge.traceclock.or(rclock);
            m.meta_end = r.offset();
            let page_size = m.header.page_size;
            m.buffers.push(BufferInfo {
                name: String::new(),
                clock,
                page_size,
                span: tag_at..r.offset(),
                section: None,
                compressed: false,
                cpus,
                results: Vec::new(),
            });
            v6_instances(ctx, m, n);
            Ok(())
        }
        other => {
            ctx.sink.report(
                &rules::BAD_TAG,
                span_of(tag_at, 10),
                format!(
                    "expected `options  \\0`, `latency  \\0` or `flyrecord\\0`, found {:?}",
                    String::from_utf8_lossy(other)
                ),
            );
            Err(Stop)
        }
    }
}

/// The v6 tags and how many of their bytes trace-cmd compares (`strncmp(buf, "options", 7)`,
/// `"latency"` 7, `"flyrecord"` 9).
const V6_TAGS: [(&[u8; 10], usize); 3] = [
    (b"options  \0", 7),
    (b"latency  \0", 7),
    (b"flyrecord\0", 9),
];

/// The v6 tag trace-cmd reads in `tag`: the exact tag, or the tag whose compared prefix matches
/// (then TD072 reports the differing rest). Anything else is returned unchanged.
fn v6_tag<'a>(ctx: &mut Ctx<'_, '_>, tag: &'a [u8], at: u64) -> &'a [u8] {
    for (want, n) in V6_TAGS {
        if tag == want.as_slice() {
            return tag;
        }
        if tag.get(..n) == want.get(..n) {
            ctx.sink.report(
                &rules::TAG_TAIL,
                span_of(at, 10),
                format!(
                    "the tag reads {:?}, not {:?}; trace-cmd compares only its first {n} bytes",
                    String::from_utf8_lossy(tag),
                    String::from_utf8_lossy(want.as_slice())
                ),
            );
            return want.as_slice();
        }
    }
    tag
}

fn v6_options(ctx: &mut Ctx<'_, '_>, r: &mut Reader<'_>, m: &mut TraceDat) -> Flow {
    let loc = Loc::file();
    loop {
        let start = r.offset();
        let id = rd(ctx, r.u16("option id")).ok_or(Stop)?;
        if id == opt_id::DONE {
            return Ok(());
        }
        if m.options.len() as u64 >= ctx.limits.max_entries {
            ctx.sink.limit(
                span_of(start, 2),
                "number of options",
                m.options.len() as u64,
                "max_entries",
                ctx.limits.max_entries,
            );
            return Err(Stop);
        }
        let size = rd(ctx, r.u32("option size")).ok_or(Stop)?;
        if u64::from(size) > r.remaining() as u64 {
            ctx.sink.report(
                &rules::OPTION_LAYOUT,
                span_of(start, 6),
                format!(
                    "option {} ({id}) declares {size} bytes but only {} remain in the file",
                    opt_id::name(id),
                    r.remaining()
                ),
            );
            return Err(Stop);
        }
        let payload = rd(ctx, r.sub(u64::from(size), "option payload")).ok_or(Stop)?;
        let opt = options::decode(ctx, &loc, id, payload, start..r.offset(), false);
        m.options.push(opt);
    }
}

/// What a v6 clock record is judged against, the same for every buffer of a file.
struct ClockJudge {
    /// The clock the TRACECLOCK option selects.
    traceclock: Option<String>,
    /// The file has a TRACECLOCK option: trace-cmd then reads the top buffer's clock record.
    option: bool,
    /// The writer, for quirk findings.
    producer: String,
}

impl ClockJudge {
    fn of(m: &TraceDat) -> Self {
        ClockJudge {
            traceclock: m.traceclock(),
            option: m.has_option(opt_id::TRACECLOCK),
            producer: m.producer(),
        }
    }
}

/// Reads `n` (offset, size) pairs and the clock record after them.
fn v6_flyrecord(
    ctx: &mut Ctx<'_, '_>,
    r: &mut Reader<'_>,
    n: u32,
    judge: &ClockJudge,
    top: bool,
) -> Result<(Vec<CpuEntry>, Option<String>), Stop> {
    let ClockJudge {
        traceclock,
        option: clock_option,
        producer,
    } = judge;
    let (traceclock, clock_option) = (traceclock.as_deref(), *clock_option);
    let need = u64::from(n).saturating_mul(16);
    if need > r.remaining() as u64 {
        ctx.sink.report(
            &rules::TRUNCATED,
            r.offset()..r.end_offset(),
            format!(
                "the flyrecord table of {n} CPUs needs {need} bytes, only {} remain",
                r.remaining()
            ),
        );
        return Err(Stop);
    }
    let mut cpus = Vec::new();
    for cpu in 0..n {
        let es = r.offset();
        let offset = rd(ctx, r.u64("cpu data offset")).ok_or(Stop)?;
        let size = rd(ctx, r.u64("cpu data size")).ok_or(Stop)?;
        cpus.push(CpuEntry {
            cpu,
            offset,
            size,
            span: es..r.offset(),
        });
    }
    // The clock record: u64 length · "[clock]". Mandatory with TRACECLOCK, optional otherwise.
    let cs = r.offset();
    let mut peek = r.clone();
    let len = peek.u64("clock length").ok();
    let text = len
        .filter(|&l| (2..=MAX_CLOCK_RECORD).contains(&l))
        .and_then(|l| peek.clone().bytes_u64(l, "clock record").ok())
        .filter(|t| {
            t.contains(&b'[')
                && t.iter()
                    .all(|&b| b == 0 || b == b'\n' || b == b'\t' || (b' '..0x7f).contains(&b))
        });
    let Some(text) = text else {
        if clock_option && top {
            // trace-cmd 2.4 reads `len` bytes (a length past the file fails the read and it
            // falls back to `[local]`), takes the C string's first space-separated word that
            // starts with `[` as the clock, and with none sets no clock: printing the first
            // event then crashes (`is_timestamp_in_us` compares a NULL trace clock).
            let read = len.and_then(|l| peek.clone().bytes_u64(l, "clock record").ok());
            if let Some(b) = read.filter(|b| matches!(reader_clock(b), ReaderClock::Crash)) {
                // A `[` with no clock name after it (a length cut to 1): every trace-cmd
                // crashes in extract_trace_clock, as for a record read whole.
                ctx.sink.report(
                    &rules::CLOCK_NAME,
                    span_of(cs, 8u64.saturating_add(b.len() as u64)),
                    format!("clock record {:?} ({} byte(s)): trace-cmd reads it as a C string, finds `[` with no clock name before the NUL or `]`, and crashes (extract_trace_clock passes NULL to sscanf)", String::from_utf8_lossy(b), b.len()),
                );
                return Ok((cpus, None));
            }
            let crashes = read.is_some_and(|b| {
                let c = b.split(|&x| x == 0).next().unwrap_or(&[]);
                !c.split(|&x| x == b' ').any(|w| w.first() == Some(&b'['))
            });
            let f = ctx.sink.make(
                &rules::CLOCK_RECORD,
                span_of(cs, 8.min(r.remaining() as u64)),
                "a TRACECLOCK option is present but no `[clock]` record follows the flyrecord table",
            );
            let f = if crashes && ctx.version < 7 {
                crate::finding::Finding {
                    message: format!(
                        "{}: trace-cmd 2.4 reads the {} byte(s) there, finds no `[clock]` word and crashes (SIGSEGV) printing the first event; 2.9.5 and 3.x read the events",
                        f.message,
                        len.unwrap_or(0)
                    ),
                    ..f
                }
                .fails("trace-cmd report", "2.4", "crash")
            } else {
                f
            };
            ctx.sink.push(f);
        }
        return Ok((cpus, None));
    };
    let _ = peek.bytes_u64(text.len() as u64, "clock record");
    *r = peek;
    let span = cs..r.offset();
    let shown = String::from_utf8_lossy(text).into_owned();
    let written = selected_clock(&shown);
    // trace-cmd reads the record only for the top buffer, and only with a TRACECLOCK option.
    let read = top && clock_option;
    match reader_clock(text) {
        ReaderClock::Crash if read => {
            ctx.sink.report(
                &rules::CLOCK_NAME,
                span,
                format!("clock record {shown:?}: trace-cmd reads it as a C string, finds `[` with no clock name before the NUL or `]`, and crashes (extract_trace_clock passes NULL to sscanf)"),
            );
            return Ok((cpus, written));
        }
        ReaderClock::Name(n)
            if read && text.contains(&0) && written.as_deref() != Some(n.as_str()) =>
        {
            ctx.sink.report(
                &rules::CLOCK_NAME,
                span,
                format!(
                    "clock record {shown:?} has a NUL byte inside the clock name: trace-cmd stops at the NUL and selects clock `{n}`, not {:?}",
                    written.as_deref().unwrap_or("")
                ),
            );
            return Ok((cpus, written));
        }
        _ => {}
    }
    let bare = shown.trim_end_matches('\n');
    let single = bare.starts_with('[') && bare.ends_with(']') && bare.matches('[').count() == 1;
    match (&written, traceclock) {
        (Some(_), _) if !single && is_clock_list(bare) => {
            if top {
                ctx.sink.report(
                    &rules::CLOCK_RECORD_LIST,
                    span,
                    format!(
                        "the clock record holds the whole trace_clock file {shown:?}: written by {producer}, which copies tracefs `trace_clock` here; readers select `{}`",
                        written.as_deref().unwrap_or("")
                    ),
                );
            }
        }
        (Some(c), Some(t)) if single && c != t => ctx.sink.report(
            &rules::CLOCK_RECORD,
            span,
            format!("clock record says `{c}` but the TRACECLOCK option selects `{t}`"),
        ),
        (Some(_), _) if single => {}
        _ => ctx.sink.report(
            &rules::CLOCK_RECORD,
            span,
            format!("clock record {shown:?} is not `[name]`"),
        ),
    }
    Ok((cpus, written))
}

/// Longest clock record read (the whole `trace_clock` file of trace-cmd 2.x is under 100 bytes).
const MAX_CLOCK_RECORD: u64 = 4096;

/// What trace-cmd's `tracecmd_parse_trace_clock` makes of a clock record.
#[derive(Debug, PartialEq)]
enum ReaderClock {
    /// The first token starting with `[` has no name (`extract_trace_clock` crashes).
    Crash,
    /// The selected name (empty when `sscanf` finds none).
    Name(String),
    /// No token starts with `[`: no clock is selected.
    NoClock,
}

/// Mirrors `tracecmd_parse_trace_clock`: the record is a C string (cut at the first NUL), split
/// at spaces; the first token starting with `[` is split at `[` and `]` and its first part is
/// read with `sscanf("%ms")`.
fn reader_clock(text: &[u8]) -> ReaderClock {
    let c = text.split(|&b| b == 0).next().unwrap_or(&[]);
    for tok in c.split(|&b| b == b' ').filter(|t| !t.is_empty()) {
        if tok.first() == Some(&b'[') {
            let inner = tok
                .split(|&b| b == b'[' || b == b']')
                .find(|p| !p.is_empty());
            return match inner {
                None => ReaderClock::Crash,
                Some(p) => ReaderClock::Name(
                    String::from_utf8_lossy(p)
                        .split_whitespace()
                        .next()
                        .unwrap_or("")
                        .to_string(),
                ),
            };
        }
    }
    ReaderClock::NoClock
}

/// The shape of the tracefs `trace_clock` file: clock names separated by spaces, exactly one in
/// brackets.
fn is_clock_list(s: &str) -> bool {
    let mut bracketed = 0u32;
    for w in s.split(' ').filter(|w| !w.is_empty()) {
        let name = match w.strip_prefix('[').and_then(|w| w.strip_suffix(']')) {
            Some(n) => {
                bracketed = bracketed.saturating_add(1);
                n
            }
            None => w,
        };
        if name.is_empty()
            || !name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return false;
        }
    }
    bracketed == 1
}

fn v6_instances(ctx: &mut Ctx<'_, '_>, m: &mut TraceDat, n: u32) {
    let data = ctx.data;
    let bufs: Vec<(u64, String, Range<u64>)> = m
        .options
        .iter()
        .filter_map(|o| match (&o.value, o.id) {
            (OptValue::Buffer { offset, name, .. }, opt_id::BUFFER) => {
                Some((*offset, name.clone(), o.span.clone()))
            }
            _ => None,
        })
        .collect();
    let judge = ClockJudge::of(m);
    let mut seen: HashMap<u64, String> = HashMap::new();
    let mut names: HashSet<String> = HashSet::new();
    let mut entries = m.buffers.iter().map(|b| b.cpus.len() as u64).sum::<u64>();
    for (offset, name, ospan) in bufs {
        if name.is_empty() || !names.insert(name.clone()) {
            ctx.sink.report(
                &rules::BUFFER_OPTION,
                ospan,
                format!("v6 BUFFER name {name:?} is empty or used twice"),
            );
            continue;
        }
        if let Some(other) = seen.insert(offset, name.clone()) {
            ctx.sink.report(
                &rules::BUFFER_OPTION,
                ospan,
                format!(
                    "BUFFER `{name}` has the same flyrecord offset {offset} as BUFFER `{other}`"
                ),
            );
            continue;
        }
        entries = entries.saturating_add(u64::from(n));
        if entries > ctx.limits.max_entries {
            ctx.sink.limit(
                ospan,
                "number of per-CPU entries",
                entries,
                "max_entries",
                ctx.limits.max_entries,
            );
            return;
        }
        let mut r = Reader::new(data, m.header.endian);
        let ok = r.seek(offset, "buffer offset").is_ok()
            && r.clone().bytes(10, "tag").ok().and_then(|t| t.get(..9))
                == Some(b"flyrecord".as_slice());
        if !ok {
            ctx.sink.report(
                &rules::BUFFER_OPTION,
                ospan,
                format!("BUFFER `{name}` offset {offset} does not point at a `flyrecord\\0` tag"),
            );
            continue;
        }
        let _ = r.skip(10, "tag");
        let Ok((cpus, bclock)) = v6_flyrecord(ctx, &mut r, n, &judge, false) else {
            continue;
        };
        m.buffers.push(BufferInfo {
            name,
            clock: bclock.or_else(|| judge.traceclock.clone()),
            page_size: m.header.page_size,
            span: offset..r.offset(),
            section: None,
            compressed: false,
            cpus,
            results: Vec::new(),
        });
    }
}

// ------------------------------------------------------------------------------------------
// Version 7

/// Section ids that exist.
fn known_section(id: u16) -> bool {
    matches!(id, 0 | 3 | 15..=25)
}

/// The description the writer gives each section id.
fn expected_desc(id: u16) -> Option<&'static str> {
    Some(match id {
        0 => "options",
        15 => "strings",
        16 => "headers",
        17 => "ftrace events",
        18 => "events format",
        19 => "kallsyms",
        20 => "printk",
        21 => "command lines",
        22 => "buffer latency",
        23 => "BTF",
        25 => "modules",
        _ => return None,
    })
}

struct V7<'m> {
    m: &'m mut TraceDat,
    by_offset: HashMap<u64, usize>,
    /// Offset where the sequential walk broke (sections after it are read on demand).
    broken_at: Option<u64>,
    refs: Vec<u32>,
}

/// Decodes a v7 file after its header.
pub fn v7(ctx: &mut Ctx<'_, '_>, h: Header) -> TraceDat {
    let mut m = new_model(h);
    let mut s = V7::walked(ctx, &mut m);
    s.strings(ctx);
    s.options(ctx);
    s.metadata(ctx);
    s.buffers(ctx);
    s.references(ctx);
    set_kernel_long(&mut m);
    m
}

/// The event formats of a v7 file whose first bytes are `ctx`'s: its sections walked from
/// the header and the HEADER_INFO, FTRACE_EVENTS and EVENT_FORMATS ones read by their ids, as
/// trace-cmd writes them (the options that point at them come after the symbols). What a
/// stream's sieve summarises pages against; the check's own table must agree with it.
pub fn v7_formats(ctx: &mut Ctx<'_, '_>, h: Header) -> TraceDat {
    let mut m = new_model(h);
    let mut s = V7::walked(ctx, &mut m);
    for idx in 0..s.m.sections.len() {
        let Some(id) = s.m.sections.get(idx).map(|sec| sec.id) else {
            continue;
        };
        if !(opt_id::HEADER_INFO..=opt_id::EVENT_FORMATS).contains(&id) {
            continue;
        }
        let Some((p, loc, base)) = s.payload(ctx, idx) else {
            continue;
        };
        let mut r = Reader::with_base(&p, base, s.m.header.endian);
        let mut meta = std::mem::take(&mut s.m.meta);
        let _ = meta_section(ctx, id, &mut r, &loc, &mut meta);
        s.m.meta = meta;
    }
    meta::settle_common_type(ctx, &s.m.meta);
    set_kernel_long(&mut m);
    m
}

/// Parses the body of the v7 metadata section of `id` (HEADER_INFO to CMDLINES; any other
/// id is read as CMDLINES) into `meta`.
fn meta_section(
    ctx: &mut Ctx<'_, '_>,
    id: u16,
    r: &mut Reader<'_>,
    loc: &Loc,
    meta: &mut Meta,
) -> Flow {
    match id {
        opt_id::HEADER_INFO => meta::header_info(ctx, r, loc, meta),
        opt_id::FTRACE_EVENTS => meta::ftrace_events(ctx, r, loc, meta),
        opt_id::EVENT_FORMATS => meta::event_formats(ctx, r, loc, meta),
        opt_id::KALLSYMS => meta::kallsyms(ctx, r, loc, meta),
        opt_id::PRINTK => meta::printk(ctx, r, loc, meta),
        _ => meta::cmdlines(ctx, r, loc, meta),
    }
}

impl<'m> V7<'m> {
    /// The decoder of `m`, its sections walked from the header.
    fn walked(ctx: &mut Ctx<'_, '_>, m: &'m mut TraceDat) -> Self {
        let mut s = V7 {
            m,
            by_offset: HashMap::new(),
            broken_at: None,
            refs: Vec::new(),
        };
        s.walk(ctx);
        s
    }
}

impl V7<'_> {
    fn algo(&self) -> Option<Algo> {
        self.m.header.algo
    }

    fn read_header(&mut self, ctx: &mut Ctx<'_, '_>, pos: u64) -> Option<Section> {
        let mut r = Reader::new(ctx.data, self.m.header.endian);
        r.seek(pos, "section").ok()?;
        let (Ok(id), Ok(flags), Ok(sid), Ok(size)) = (
            r.u16("id"),
            r.u16("flags"),
            r.u32("string id"),
            r.u64("size"),
        ) else {
            ctx.sink.report(
                &rules::TRUNCATED,
                ctx.clamp(span_of(pos, 16)),
                format!(
                    "section header at 0x{pos:x} needs 16 bytes, only {} remain",
                    ctx.len().saturating_sub(pos)
                ),
            );
            return None;
        };
        let body_start = pos.saturating_add(16);
        let end = body_start.checked_add(size);
        let len = ctx.len();
        let body = body_start..end.unwrap_or(u64::MAX).min(len);
        let sec = Section {
            id,
            flags,
            string_id: sid,
            size,
            offset: pos,
            body,
            desc: None,
            usize: None,
        };
        if end.is_none_or(|e| e > len) {
            ctx.sink.report(
                &rules::SECTION_WALK,
                span_of(pos, 16),
                format!(
                    "section {id} at 0x{pos:x} declares {size} bytes but only {} remain in the file",
                    len.saturating_sub(body_start)
                ),
            );
        }
        Some(sec)
    }

    fn add(&mut self, ctx: &mut Ctx<'_, '_>, sec: Section) -> usize {
        let idx = self.m.sections.len();
        if !known_section(sec.id) {
            ctx.sink.report(
                &rules::UNKNOWN_SECTION,
                sec.header_span(),
                format!(
                    "section id {} at 0x{:x} is unknown ({} bytes skipped)",
                    sec.id, sec.offset, sec.size
                ),
            );
        }
        if sec.flags & !1 != 0 {
            ctx.sink.report(
                &rules::SECTION_FLAGS_UNKNOWN,
                span_of(sec.offset.saturating_add(2), 2),
                format!(
                    "section {} has flags 0x{:x}; only bit 0 (compressed) is defined, readers ignore the others",
                    sec.id, sec.flags
                ),
            );
        }
        if sec.compressed() && matches!(self.algo(), Some(Algo::None)) {
            ctx.sink.report(
                &rules::SECTION_FLAGS,
                span_of(sec.offset.saturating_add(2), 2),
                format!(
                    "section {} is flagged compressed but the file's compression is `none`",
                    sec.id
                ),
            );
        }
        self.by_offset.insert(sec.offset, idx);
        self.m.sections.push(sec);
        self.refs.push(0);
        idx
    }

    fn walk(&mut self, ctx: &mut Ctx<'_, '_>) {
        let len = ctx.len();
        let mut pos = self.m.header.span.end;
        while pos < len {
            if self.m.sections.len() as u64 >= ctx.limits.max_entries {
                ctx.sink.limit(
                    span_of(pos, 0),
                    "number of sections",
                    self.m.sections.len() as u64,
                    "max_entries",
                    ctx.limits.max_entries,
                );
                self.broken_at = Some(pos);
                return;
            }
            // Bytes after the last section that cannot be a section header (too short, or an
            // empty OPTIONS section, which trace-cmd never writes) are trailing data: readers
            // find sections through the options and never read them.
            let rest = len.saturating_sub(pos);
            let empty_options = ctx
                .data
                .get(usize::try_from(pos).unwrap_or(usize::MAX)..)
                .and_then(|d| d.get(..16))
                .is_some_and(|h| {
                    let mut r = Reader::new(h, self.m.header.endian);
                    r.u16("id").ok() == Some(0)
                        && r.skip(6, "flags and string id").is_ok()
                        && r.u64("size").ok() == Some(0)
                });
            if !self.m.sections.is_empty() && (rest < 16 || empty_options) {
                ctx.sink.report(
                    &rules::TRAILING_DATA,
                    pos..len,
                    format!(
                        "{rest} bytes after the last section at 0x{pos:x} are not a section; readers never read them"
                    ),
                );
                self.broken_at = Some(pos);
                return;
            }
            let Some(sec) = self.read_header(ctx, pos) else {
                self.broken_at = Some(pos);
                return;
            };
            let end = sec.body.end;
            let past = sec.offset.saturating_add(16).saturating_add(sec.size) > len;
            if past && !known_section(sec.id) {
                // A header of garbage where the walk went astray (TD010 says where): not a
                // section of the file.
                self.broken_at = Some(pos);
                return;
            }
            self.add(ctx, sec);
            if past {
                self.broken_at = Some(pos);
                return;
            }
            pos = end;
        }
    }

    /// The section starting at `off`: from the walk, or read on demand past a broken walk.
    fn section_at(&mut self, ctx: &mut Ctx<'_, '_>, off: u64) -> Option<usize> {
        if let Some(&i) = self.by_offset.get(&off) {
            return Some(i);
        }
        // Once the walk is broken, trust the option as trace-cmd does: it reads sections at the
        // offsets the options give, whatever the walk says.
        self.broken_at?;
        if off < self.m.header.span.end || off >= ctx.len() {
            return None;
        }
        let sec = self.read_header(ctx, off)?;
        Some(self.add(ctx, sec))
    }

    /// The payload of a non-buffer section, decompressed when flagged.
    fn payload<'a>(
        &mut self,
        ctx: &mut Ctx<'a, '_>,
        idx: usize,
    ) -> Option<(Cow<'a, [u8]>, Loc, u64)> {
        let sec = self.m.sections.get(idx)?.clone();
        let body = ctx
            .data
            .get(usize::try_from(sec.body.start).ok()?..usize::try_from(sec.body.end).ok()?)?;
        if !sec.compressed() {
            return Some((Cow::Borrowed(body), Loc::file(), sec.body.start));
        }
        let algo = match self.algo() {
            Some(a @ (Algo::Zstd | Algo::Zlib)) => a,
            _ => return None,
        };
        let mut r = Reader::with_base(body, sec.body.start, self.m.header.endian);
        let (csize, usize_) = match (r.u32("csize"), r.u32("usize")) {
            (Ok(c), Ok(u)) => (c, u),
            _ => {
                // trace-cmd reads the block's csize and usize from the file wherever the
                // section's size says it ends (`tracecmd_uncompress_block`).
                let at = usize::try_from(sec.body.start).ok()?;
                let whole = ctx.data.get(at..)?;
                let mut fr = Reader::with_base(whole, sec.body.start, self.m.header.endian);
                let (Ok(c), Ok(u)) = (fr.u32("csize"), fr.u32("usize")) else {
                    ctx.sink.report(
                        &rules::SECTION_SIZE,
                        sec.header_span(),
                        format!(
                            "compressed section {} body of {} bytes is shorter than its 8-byte size header, and the file ends before one",
                            sec.id, sec.size
                        ),
                    );
                    return None;
                };
                r = Reader::with_base(&[], sec.body.start.saturating_add(8), self.m.header.endian);
                (c, u)
            }
        };
        if u64::from(csize).saturating_add(8) != sec.size {
            ctx.sink.report(
                &rules::SECTION_SIZE,
                span_of(sec.body.start, 4),
                format!(
                    "compressed section {}: size {} is not 8 + csize {csize}",
                    sec.id, sec.size
                ),
            );
        }
        let input = match r.bytes_u64(u64::from(csize), "compressed block") {
            Ok(input) => input,
            Err(_) => {
                // trace-cmd reads `csize` bytes from the file wherever the section ends
                // (`tracecmd_uncompress_block`): when they decompress to `usize` only the
                // section size is wrong, otherwise the section is lost to every reader.
                let start = sec.body.start.saturating_add(8);
                let end = start.saturating_add(u64::from(csize));
                let bytes = usize::try_from(start)
                    .ok()
                    .zip(usize::try_from(end).ok())
                    .and_then(|(a, b)| ctx.data.get(a..b));
                ctx.sink.report(
                    &rules::SECTION_SIZE,
                    span_of(sec.body.start, 4),
                    format!(
                        "compressed section {}: csize {csize} runs past the section end",
                        sec.id
                    ),
                );
                let Some(bytes) = bytes else {
                    let f = if sec.id == opt_id::STRINGS {
                        // Campaign `full18`: csize + 1 and all ones, every reader the same.
                        ctx.sink
                            .make(
                                &rules::TRUNCATED,
                                span_of(sec.body.start, 4),
                                format!(
                                    "compressed section {} (the STRINGS section): csize {csize} runs past the end of the file; trace-cmd 3.1.6–3.3.4 ignore a STRINGS section they cannot read and read the same events",
                                    sec.id
                                ),
                            )
                            .read_same("trace-cmd report", "3.1.6–3.3.4")
                    } else {
                        ctx.sink.make(
                            &rules::TRUNCATED,
                            span_of(sec.body.start, 4),
                            format!(
                                "compressed section {}: csize {csize} runs past the end of the file; trace-cmd 3.1.6–3.3.4 cannot read the section (the report has no events)",
                                sec.id
                            ),
                        )
                    };
                    ctx.sink.push(f);
                    return None;
                };
                bytes
            }
        };
        // trace-cmd 3.x (`tracecmd_uncompress_block`) decompresses into max(usize, csize) bytes
        // and reads what the block produced: a `usize` that is only wrong reads the same; a
        // block larger than that buffer fails.
        let cap = usize_.max(csize);
        let what = format!("section {}", sec.id);
        if i32::try_from(cap).is_err() {
            // trace-cmd 3.1.6–3.3.4 hold max(usize, csize) in an `int`: from 2^31 it is
            // negative, `malloc` fails and the section is not read (campaign `full18`: a huge
            // usize loses every section but STRINGS, which readers ignore when unreadable).
            ctx.usize_past_int(
                span_of(sec.body.start.saturating_add(4), 4),
                &what,
                (usize_, csize),
                sec.id == opt_id::STRINGS,
            );
            return None;
        }
        // A declared size above the limit is not allocated: the block is decompressed into
        // at most the limit, which holds it when only `usize` is wrong.
        let alloc = u64::from(cap).min(ctx.limits.max_section_bytes);
        if !ctx.reserve(alloc, sec.header_span()) {
            return None;
        }
        let mut out = vec![0u8; usize::try_from(alloc).ok()?];
        ctx.compressed = ctx.compressed.saturating_add(input.len() as u64);
        let outcome = ctx.dec.decompress(algo, input, &mut out);
        if alloc < u64::from(cap) && outcome.is_err() {
            ctx.sink.limit(
                ctx.clamp(sec.header_span()),
                "declared uncompressed block size",
                u64::from(cap),
                "max_section_bytes",
                ctx.limits.max_section_bytes,
            );
            return None;
        }
        match outcome {
            Ok(n) if u64::try_from(n).ok() == Some(u64::from(usize_)) => out.truncate(n),
            Ok(n) => {
                ctx.usize_only_wrong(
                    span_of(sec.body.start.saturating_add(4), 4),
                    &what,
                    n,
                    usize_,
                    cap,
                );
                out.truncate(n);
            }
            Err(_) => {
                // Report as before: corrupt, or larger than the reader's buffer.
                let mut exact = vec![0u8; usize::try_from(usize_).ok()?];
                if sec.id != opt_id::STRINGS {
                    ctx.decompress(algo, input, &mut exact, sec.body.clone(), &what);
                    return None;
                }
                // The STRINGS section only names sections. trace-cmd 3.1.6–3.3.4 ignore a
                // failed read of it (`read_metadata_strings`' result is unused) and never
                // show its names (`get_metadata_string` returns NULL for every valid
                // offset): the same events are read.
                let mut sub = Sink::new(usize::MAX);
                let len = ctx.len();
                decompress_report(
                    &mut ctx.dec,
                    &mut sub,
                    len,
                    algo,
                    input,
                    &mut exact,
                    sec.body.clone(),
                    &what,
                );
                let (found, _) = sub.into_parts();
                for mut f in found {
                    f.message.push_str(
                        " (the STRINGS section); trace-cmd 3.1.6–3.3.4 ignore a STRINGS section they cannot read and read the same events",
                    );
                    ctx.sink
                        .push(f.read_same("trace-cmd report", "3.1.6–3.3.4"));
                }
                return None;
            }
        }
        if let Some(s) = self.m.sections.get_mut(idx) {
            s.usize = Some(u64::from(usize_));
        }
        Some((Cow::Owned(out), Loc::block(sec.body.clone()), 0))
    }

    fn strings(&mut self, ctx: &mut Ctx<'_, '_>) {
        let mut all: Vec<u8> = Vec::new();
        let idxs: Vec<usize> = (0..self.m.sections.len())
            .filter(|&i| {
                self.m
                    .sections
                    .get(i)
                    .is_some_and(|s| s.id == opt_id::STRINGS)
            })
            .collect();
        for i in idxs {
            if let Some(r) = self.refs.get_mut(i) {
                *r = r.saturating_add(1);
            }
            let Some((p, _, _)) = self.payload(ctx, i) else {
                continue;
            };
            let hs = self
                .m
                .sections
                .get(i)
                .map(|s| s.header_span())
                .unwrap_or(0..0);
            if p.last().is_some_and(|&b| b != 0) {
                ctx.sink.report(
                    &rules::BAD_STRING_ID,
                    hs.clone(),
                    "STRINGS section does not end with a NUL byte",
                );
            }
            if (all.len() as u64).saturating_add(p.len() as u64) > ctx.limits.max_section_bytes {
                ctx.sink.limit(
                    hs,
                    "total STRINGS size",
                    (all.len() as u64).saturating_add(p.len() as u64),
                    "max_section_bytes",
                    ctx.limits.max_section_bytes,
                );
                break;
            }
            all.extend_from_slice(&p);
        }
        for i in 0..self.m.sections.len() {
            let Some(s) = self.m.sections.get(i) else {
                continue;
            };
            if s.string_id == u32::MAX {
                continue;
            }
            let (id, sid, off) = (s.id, s.string_id, s.offset);
            let Ok(at) = usize::try_from(sid) else {
                continue;
            };
            let at_start = at == 0 || at.checked_sub(1).and_then(|p| all.get(p)) == Some(&0);
            let desc = all.get(at..).filter(|_| at_start).map(|rest| {
                // Descriptions are short: look at most 4096 bytes ahead (keeps many
                // sections pointing into one long unterminated string linear).
                let rest = rest.get(..rest.len().min(4096)).unwrap_or(rest);
                let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
                String::from_utf8_lossy(rest.get(..end).unwrap_or(&[])).into_owned()
            });
            let sspan = span_of(off.saturating_add(4), 4);
            match &desc {
                None => ctx.sink.report(
                    &rules::BAD_STRING_ID,
                    sspan,
                    format!("section {id} description string id {sid} is not the start of a string in the {} bytes of STRINGS", all.len()),
                ),
                Some(d) => {
                    let ok = match id {
                        3 => d.starts_with("buffer flyrecord "),
                        _ => expected_desc(id).is_none_or(|e| e == d),
                    };
                    if !ok {
                        ctx.sink.report(
                            &rules::BAD_STRING_ID,
                            sspan,
                            format!("section {id} is described as {d:?}, expected {:?}", expected_desc(id).unwrap_or("buffer flyrecord <name>")),
                        );
                    }
                }
            }
            if let Some(s) = self.m.sections.get_mut(i) {
                s.desc = desc;
            }
        }
    }

    fn options(&mut self, ctx: &mut Ctx<'_, '_>) {
        let Some((mut next, fspan)) = self.m.header.first_options.clone() else {
            return;
        };
        let mut first = true;
        let mut from = fspan;
        let mut visited = HashSet::new();
        loop {
            let rule = if first {
                &rules::BAD_OPTIONS_OFFSET
            } else {
                &rules::OPTIONS_CHAIN
            };
            if first && next == 0 {
                ctx.sink.report(
                    rule,
                    from,
                    "the first options offset is 0 (the writer never patched it)",
                );
                return;
            }
            let Some(idx) = self.section_at(ctx, next) else {
                ctx.sink.report(
                    rule,
                    from,
                    format!(
                        "options offset 0x{next:x} is not the start of a section (file size {})",
                        ctx.len()
                    ),
                );
                return;
            };
            let id = self.m.sections.get(idx).map_or(0, |s| s.id);
            if id != 0 {
                ctx.sink.report(rule, from, format!("options offset 0x{next:x} points at section id {id}, not an OPTIONS section (id 0)"));
                return;
            }
            if !visited.insert(next) {
                ctx.sink.report(
                    &rules::OPTIONS_CHAIN,
                    from,
                    format!("the options chain loops back to the section at 0x{next:x} (trace-cmd 3.1.6 recurses until it crashes)"),
                );
                return;
            }
            if let Some(r) = self.refs.get_mut(idx) {
                *r = r.saturating_add(1);
            }
            self.m.options_chain.push(next);
            match self.options_section(ctx, idx) {
                Some((0, _)) | None => return,
                Some((n, span)) => {
                    next = n;
                    from = span;
                    first = false;
                }
            }
        }
    }

    /// Parses one OPTIONS section; returns DONE's next offset and the span of its value.
    fn options_section(&mut self, ctx: &mut Ctx<'_, '_>, idx: usize) -> Option<(u64, Range<u64>)> {
        let (p, loc, base) = match self.options_to_done(ctx, idx) {
            Some(v) => v,
            None => self.payload(ctx, idx)?,
        };
        let hs = self
            .m
            .sections
            .get(idx)
            .map(|s| s.header_span())
            .unwrap_or(0..0);
        let mut r = Reader::with_base(&p, base, self.m.header.endian);
        let mut done: Option<(u64, Range<u64>)> = None;
        let mut done_seen = false;
        while !r.is_empty() {
            let start = r.offset();
            if done_seen {
                ctx.report(
                    &rules::OPTION_LAYOUT,
                    &loc,
                    start..r.end_offset(),
                    format!(
                        "{} bytes follow the DONE option in the options section",
                        r.remaining()
                    ),
                );
                break;
            }
            if self.m.options.len() as u64 >= ctx.limits.max_entries {
                ctx.sink.limit(
                    loc.map(start..start),
                    "number of options",
                    self.m.options.len() as u64,
                    "max_entries",
                    ctx.limits.max_entries,
                );
                return None;
            }
            let (Ok(id), Ok(size)) = (r.u16("option id"), r.u32("option size")) else {
                ctx.report(
                    &rules::OPTION_LAYOUT,
                    &loc,
                    start..r.end_offset(),
                    "an option header (6 bytes) does not fit in the rest of the options section",
                );
                break;
            };
            let Ok(payload) = r.sub(u64::from(size), "option payload") else {
                ctx.report(
                    &rules::OPTION_LAYOUT,
                    &loc,
                    span_of(start, 6),
                    format!(
                        "option {} ({id}) declares {size} bytes but only {} remain in the options section",
                        opt_id::name(id),
                        r.remaining()
                    ),
                );
                break;
            };
            let pspan = payload.base()..payload.end_offset();
            let opt = options::decode(ctx, &loc, id, payload, start..r.offset(), true);
            if id == opt_id::DONE {
                done_seen = true;
                if let OptValue::U64(n) = opt.value {
                    done = Some((n, loc.map(pspan)));
                }
            }
            self.m.options.push(opt);
        }
        if !done_seen {
            ctx.sink.report(
                &rules::OPTION_LAYOUT,
                hs,
                "the options section does not end with a DONE option",
            );
        }
        done
    }

    /// An uncompressed options section as trace-cmd 3.1.6–3.3.4 read it: option records from
    /// the section body up to DONE, whatever the section size (`handle_options` reads the file
    /// sequentially). Returns that span when the DONE option lies elsewhere than the section
    /// size says, after a warning; `None` reads the section by its size.
    fn options_to_done<'a>(
        &mut self,
        ctx: &mut Ctx<'a, '_>,
        idx: usize,
    ) -> Option<(Cow<'a, [u8]>, Loc, u64)> {
        let sec = self.m.sections.get(idx)?.clone();
        if sec.compressed() {
            return None;
        }
        let data = ctx.data;
        let rest = data.get(usize::try_from(sec.body.start).ok()?..)?;
        let mut r = Reader::with_base(rest, sec.body.start, self.m.header.endian);
        let mut n = 0u64;
        let end = loop {
            n = n.saturating_add(1);
            if n > ctx.limits.max_entries {
                return None;
            }
            let (Ok(id), Ok(size)) = (r.u16("option id"), r.u32("option size")) else {
                return None;
            };
            if r.skip(u64::from(size), "option payload").is_err() {
                return None;
            }
            if id == opt_id::DONE {
                break r.offset();
            }
        };
        let declared = sec.body.start.saturating_add(sec.size);
        if end == declared {
            return None;
        }
        let f = ctx
            .sink
            .make(
                &rules::OPTION_LAYOUT,
                sec.header_span(),
                format!(
                    "the options section declares {} bytes but its options end with DONE after {} bytes; trace-cmd 3.1.6–3.3.4 read options up to DONE and the same file",
                    sec.size,
                    end.saturating_sub(sec.body.start)
                ),
            )
            .read_same("trace-cmd report", "3.1.6–3.3.4");
        ctx.sink.push(f);
        let body = data.get(usize::try_from(sec.body.start).ok()?..usize::try_from(end).ok()?)?;
        Some((Cow::Borrowed(body), Loc::file(), sec.body.start))
    }

    fn referenced(
        &mut self,
        ctx: &mut Ctx<'_, '_>,
        opt: &Opt,
        off: u64,
        want: u16,
    ) -> Option<usize> {
        let idx = self.section_at(ctx, off);
        let Some(idx) = idx else {
            ctx.sink.report(
                &rules::SECTION_MISMATCH,
                opt.span.clone(),
                format!(
                    "option {} points at 0x{off:x}, which is not the start of a section",
                    opt_id::name(opt.id)
                ),
            );
            return None;
        };
        let id = self.m.sections.get(idx).map_or(0, |s| s.id);
        if id != want {
            let msg = format!(
                "option {} points at 0x{off:x}, a section with id {id}, expected id {want}",
                opt_id::name(opt.id)
            );
            if want == opt_id::BUFFER {
                // trace-cmd 3.1.6–3.3.4 read a buffer's CPU data at the BUFFER option's
                // offsets and never look at the section's id (campaign): walk it all the same.
                let f = ctx
                    .sink
                    .make(
                        &rules::SECTION_MISMATCH,
                        opt.span.clone(),
                        format!("{msg}; trace-cmd 3.1.6–3.3.4 read the buffer's CPU data at the option's offsets all the same"),
                    )
                    .read_same("trace-cmd report", "3.1.6–3.3.4");
                ctx.sink.push(f);
            } else {
                ctx.sink
                    .report(&rules::SECTION_MISMATCH, opt.span.clone(), msg);
                return None;
            }
        }
        if let Some(r) = self.refs.get_mut(idx) {
            *r = r.saturating_add(1);
        }
        Some(idx)
    }

    fn metadata(&mut self, ctx: &mut Ctx<'_, '_>) {
        let opts: Vec<Opt> = self.m.options.clone();
        let mut seen: HashMap<u16, Range<u64>> = HashMap::new();
        let is_meta = |id: u16| {
            (opt_id::HEADER_INFO..=opt_id::CMDLINES).contains(&id)
                || id == opt_id::BTF_FILE
                || id == opt_id::MODULES_FILE
        };
        // trace-cmd 3.1.6–3.3.4 (`section_add_or_update`) keep one offset per id, the last
        // non-zero one, and read only that section.
        let mut last: HashMap<u16, usize> = HashMap::new();
        for (i, o) in opts.iter().enumerate() {
            if let (OptValue::U64(off), true) = (&o.value, is_meta(o.id)) {
                if *off != 0 || !last.contains_key(&o.id) {
                    last.insert(o.id, i);
                }
            }
        }
        for (i, o) in opts.iter().enumerate() {
            let OptValue::U64(off) = o.value else {
                continue;
            };
            if !is_meta(o.id) {
                continue;
            }
            if let Some(prev) = seen.insert(o.id, o.span.clone()) {
                options::duplicate_option(ctx, o, &prev);
            }
            if last.get(&o.id).is_some_and(|&l| l != i) {
                continue;
            }
            let Some(idx) = self.referenced(ctx, o, off, o.id) else {
                continue;
            };
            if o.id == opt_id::BTF_FILE || o.id == opt_id::MODULES_FILE {
                continue;
            }
            let Some((p, loc, base)) = self.payload(ctx, idx) else {
                continue;
            };
            // trace-cmd 3.1.6–3.3.4 read an uncompressed metadata section from the file by the
            // content's own sizes, wherever the section's size says it ends: so does the
            // parse, and a content that runs past that end is only a size disagreement.
            let declared_end = base.saturating_add(p.len() as u64);
            let p = match (&p, loc.block.is_none()) {
                (Cow::Borrowed(_), true) => usize::try_from(base)
                    .ok()
                    .and_then(|b| ctx.data.get(b..))
                    .map_or(p, Cow::Borrowed),
                _ => p,
            };
            let mut r = Reader::with_base(&p, base, self.m.header.endian);
            let mut meta = std::mem::take(&mut self.m.meta);
            let flow = meta_section(ctx, o.id, &mut r, &loc, &mut meta);
            self.m.meta = meta;
            let hs = self
                .m
                .sections
                .get(idx)
                .map(|s| s.header_span())
                .unwrap_or(0..0);
            if flow.is_ok() && r.offset() > declared_end {
                let f = ctx
                    .sink
                    .make(
                        &rules::SECTION_SIZE,
                        hs,
                        format!(
                            "the content of section {} runs {} bytes past the end its size declares; trace-cmd 3.1.6–3.3.4 read it by its own sizes and read the same",
                            o.id,
                            r.offset().saturating_sub(declared_end)
                        ),
                    )
                    .read_same("trace-cmd report", "3.1.6–3.3.4");
                ctx.sink.push(f);
            } else if flow.is_ok() && r.offset() < declared_end {
                let f = ctx
                    .sink
                    .make(
                        &rules::SECTION_SIZE,
                        loc.map(r.offset()..declared_end),
                        format!(
                            "{} bytes of section {} are left after its content",
                            declared_end.saturating_sub(r.offset()),
                            o.id
                        ),
                    )
                    .note(format!("section header at 0x{:x}", hs.start));
                ctx.sink.push(f);
            }
        }
        meta::settle_common_type(ctx, &self.m.meta);
        let anchor = self
            .m
            .options_chain
            .first()
            .and_then(|o| self.by_offset.get(o))
            .and_then(|&i| self.m.sections.get(i))
            .map_or(0..0, |s| s.header_span());
        if self.m.options_chain.is_empty() {
            return;
        }
        for id in opt_id::HEADER_INFO..=opt_id::CMDLINES {
            if !seen.contains_key(&id) {
                let msg = format!(
                    "no {} option: the file has no {} section",
                    opt_id::name(id),
                    expected_desc(id).unwrap_or("")
                );
                // kallsyms and printk only name addresses and `trace_printk` formats in what
                // trace-cmd prints: every event is read without them.
                let f = if id == opt_id::KALLSYMS || id == opt_id::PRINTK {
                    ctx.sink
                        .make(
                            &rules::MISSING_METADATA,
                            anchor.clone(),
                            format!("{msg}; trace-cmd 3.1.6–3.3.4 read every event without it (addresses and `trace_printk` formats print unresolved)"),
                        )
                        .read_same("trace-cmd report", "3.1.6–3.3.4")
                } else if id == opt_id::FTRACE_EVENTS || id == opt_id::EVENT_FORMATS {
                    // Formats libtraceevent never sees: every event with a format reads the
                    // same, and a record of one of the missing is an id no format defines
                    // (TD111, an error where it occurs).
                    ctx.sink
                        .make(
                            &rules::MISSING_METADATA,
                            anchor.clone(),
                            format!("{msg}; trace-cmd 3.1.6–3.3.4 read every event whose format they have, and a record of an event whose format would be there is reported on its own (an id no format defines)"),
                        )
                        .level(crate::finding::Severity::Warning)
                        .read_same("trace-cmd report", "3.1.6–3.3.4")
                } else {
                    ctx.sink.make(&rules::MISSING_METADATA, anchor.clone(), msg)
                };
                ctx.sink.push(f);
            }
        }
    }

    fn buffers(&mut self, ctx: &mut Ctx<'_, '_>) {
        let opts: Vec<Opt> = self.m.options.clone();
        let mut names: HashMap<String, Range<u64>> = HashMap::new();
        let page_size = self.m.header.page_size;
        let mut any = false;
        // BUFFER options whose offset is no section start: (buffer, option span, offset).
        let mut loose: Vec<(usize, Range<u64>, u64)> = Vec::new();
        for o in &opts {
            let OptValue::Buffer {
                offset,
                name,
                clock,
                page_size: ps,
                cpus,
            } = &o.value
            else {
                continue;
            };
            any = true;
            if o.id == opt_id::BUFFER_TEXT {
                let Some(idx) = self.referenced(ctx, o, *offset, opt_id::BUFFER_TEXT) else {
                    continue;
                };
                if let Some(s) = self.m.sections.get(idx) {
                    self.m.latency = Some((s.body.clone(), s.compressed()));
                }
                continue;
            }
            if let Some(prev) = names.insert(name.clone(), o.span.clone()) {
                let f = ctx
                    .sink
                    .make(
                        &rules::BUFFER_OPTION,
                        o.span.clone(),
                        format!("buffer name {name:?} is used by two BUFFER options"),
                    )
                    .note(format!("first at 0x{:x}", prev.start));
                ctx.sink.push(f);
                continue;
            }
            // trace-cmd 3.1.6–3.3.4 (`init_buffer_cpu_data`) read a section header at the
            // option's offset only for its flags: bit 0 makes the buffer compressed.
            let at_section = self.section_at(ctx, *offset).is_some();
            let section = if at_section {
                self.referenced(ctx, o, *offset, opt_id::BUFFER)
            } else {
                loose.push((self.m.buffers.len(), o.span.clone(), *offset));
                None
            };
            let compressed = match section.and_then(|i| self.m.sections.get(i)) {
                Some(sec) => sec.compressed(),
                None => usize::try_from(offset.saturating_add(2))
                    .ok()
                    .and_then(|at| crate::reader::u16_at(ctx.data, at, self.m.header.endian))
                    .is_some_and(|fl| fl & 1 != 0),
            };
            let bps = ps.unwrap_or(page_size);
            if name.is_empty() && bps != page_size {
                let f = ctx
                    .sink
                    .make(
                        &rules::BUFFER_OPTION,
                        o.span.clone(),
                        format!("top buffer page size {bps} differs from the file header's {page_size}; trace-cmd 3.1.6–3.3.4 use the header's and read the same events"),
                    )
                    .read_same("trace-cmd report", "3.1.6–3.3.4");
                ctx.sink.push(f);
            }
            self.m.buffers.push(BufferInfo {
                name: name.clone(),
                clock: clock.clone(),
                page_size: if name.is_empty() { page_size } else { bps },
                span: o.span.clone(),
                section,
                compressed,
                cpus: cpus.clone(),
                results: Vec::new(),
            });
        }
        // An instance's handle is a copy of the top buffer's, so it stays compressed when
        // the top buffer is (trace-cmd 3.1.6–3.3.4 only ever set the flag).
        let top = self
            .m
            .buffers
            .iter()
            .any(|b| b.name.is_empty() && b.compressed);
        for b in self.m.buffers.iter_mut().filter(|b| !b.name.is_empty()) {
            b.compressed |= top;
        }
        self.loose_buffers(ctx, loose);
        if !any && !self.m.options_chain.is_empty() {
            let anchor = self
                .m
                .options_chain
                .first()
                .and_then(|o| self.by_offset.get(o))
                .and_then(|&i| self.m.sections.get(i))
                .map_or(0..0, |s| s.header_span());
            ctx.sink.report(
                &rules::MISSING_METADATA,
                anchor,
                "no BUFFER or BUFFER_TEXT option: the file has no trace data",
            );
        }
    }

    /// BUFFER options whose offset is not the start of a section: trace-cmd 3.1.6–3.3.4 read
    /// 16 bytes there as a section header, for its flags only, and the CPU data at the
    /// entries' offsets. The same events when those 16 bytes are in the file and the data is
    /// read as it was written (compressed or not).
    fn loose_buffers(&mut self, ctx: &mut Ctx<'_, '_>, loose: Vec<(usize, Range<u64>, u64)>) {
        for (bi, span, off) in loose {
            let Some(b) = self.m.buffers.get(bi) else {
                continue;
            };
            let msg =
                format!("option BUFFER points at 0x{off:x}, which is not the start of a section");
            let in_file = off.checked_add(16).is_some_and(|end| end <= ctx.len());
            // The section the buffer's CPU data lies in, as written.
            let written = b.cpus.first().and_then(|e| {
                self.m
                    .sections
                    .iter()
                    .find(|s| s.id == opt_id::BUFFER && s.body.contains(&e.offset))
            });
            let same = in_file && written.is_none_or(|s| s.compressed() == b.compressed);
            let how = if b.compressed {
                "compressed"
            } else {
                "uncompressed"
            };
            let f = if same {
                ctx.sink
                    .make(
                        &rules::SECTION_MISMATCH,
                        span,
                        format!("{msg}; trace-cmd 3.1.6–3.3.4 take only the flags of the 16 bytes there and read the buffer's CPU data at the entries' offsets, {how} as it was written: the same events"),
                    )
                    .read_same("trace-cmd report", "3.1.6–3.3.4")
            } else if in_file {
                ctx.sink
                    .make(
                        &rules::SECTION_MISMATCH,
                        span,
                        format!("{msg}; trace-cmd 3.1.6–3.3.4 take the flags of the 16 bytes there and read the buffer's CPU data as {how}, which it was not written as"),
                    )
                    .fails("trace-cmd report", "3.1.6–3.3.4", "misread")
            } else {
                ctx.sink.make(
                    &rules::SECTION_MISMATCH,
                    span,
                    format!("{msg}, and no 16-byte section header fits there: trace-cmd 3.1.6–3.3.4 cannot read the buffer"),
                )
            };
            ctx.sink.push(f);
        }
    }

    fn references(&mut self, ctx: &mut Ctx<'_, '_>) {
        let mut first_of: HashMap<u16, u64> = HashMap::new();
        for (i, s) in self.m.sections.iter().enumerate() {
            let refs = self.refs.get(i).copied().unwrap_or(0);
            if (16..=25).contains(&s.id) && s.id != 22 && s.id != 24 {
                if let Some(prev) = first_of.insert(s.id, s.offset) {
                    ctx.sink.report(
                        &rules::SECTION_REFERENCES,
                        s.header_span(),
                        format!("a second section {} (the first is at 0x{prev:x})", s.id),
                    );
                    continue;
                }
            }
            let read_by = (refs == 0 && s.id == opt_id::BUFFER)
                .then(|| {
                    self.m
                        .buffers
                        .iter()
                        .find(|b| b.cpus.iter().any(|e| s.body.contains(&e.offset)))
                })
                .flatten();
            if let Some(b) = read_by {
                // Readers read CPU data at the BUFFER option's CPU entries, not by the section.
                let f = ctx
                    .sink
                    .make(
                        &rules::SECTION_REFERENCES,
                        s.header_span(),
                        format!("flyrecord section at 0x{:x} ({} bytes of CPU data) is not referenced by any BUFFER option, but the CPU entries of buffer {:?} point into it: trace-cmd 3.1.6–3.3.4 read its data through them", s.offset, s.size, b.name),
                    )
                    .read_same("trace-cmd report", "3.1.6–3.3.4");
                ctx.sink.push(f);
            } else if refs == 0 && s.id == opt_id::BUFFER && s.size > 0 {
                // Ring-buffer data only a BUFFER option leads readers to: its events are lost.
                let f = ctx
                    .sink
                    .make(
                        &rules::SECTION_REFERENCES,
                        s.header_span(),
                        format!("flyrecord section at 0x{:x} ({} bytes of CPU data) is not referenced by any BUFFER option: trace-cmd 3.1.6–3.3.4 never read its events", s.offset, s.size),
                    )
                    .fails("trace-cmd report", "3.1.6–3.3.4", "loss");
                ctx.sink.push(f);
            } else if refs == 0 {
                ctx.sink.report(
                    &rules::SECTION_REFERENCES,
                    s.header_span(),
                    format!("section {} at 0x{:x} ({} bytes) is not referenced by any option; readers never see it", s.id, s.offset, s.size),
                );
            } else if refs > 1 && s.id != opt_id::STRINGS {
                ctx.sink.report(
                    &rules::SECTION_REFERENCES,
                    s.header_span(),
                    format!(
                        "section {} at 0x{:x} is referenced by {refs} options",
                        s.id, s.offset
                    ),
                );
            }
        }
    }
}

/// The file version as trace-cmd 3.x reads it: C `strtol(s, NULL, 10)` (leading blanks, an
/// optional sign, then digits; 0 when none); `None` when negative or out of range.
fn strtol_version(s: &[u8]) -> Option<u64> {
    let mut it = s
        .iter()
        .copied()
        .skip_while(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r'))
        .peekable();
    let negative = match it.peek() {
        Some(b'-') => {
            it.next();
            true
        }
        Some(b'+') => {
            it.next();
            false
        }
        _ => false,
    };
    let mut v: u64 = 0;
    for c in it.take_while(u8::is_ascii_digit) {
        v = v
            .checked_mul(10)?
            .checked_add(u64::from(c.wrapping_sub(b'0')))?;
    }
    if negative && v != 0 {
        return None;
    }
    Some(v)
}

/// Checks a block of v6 metadata items that stands alone, as other tools embed it in their
/// own files: the `\x17\x08\x44tracing` magic, a version string, the byte order, long size and
/// page size, then header_page and header_event, the ftrace and event formats, kallsyms, the
/// printk formats and (for a version of 0.6 or more, or `6`) the saved cmdlines, with the
/// checks a v6 file's items get. There are no CPU data after them. Returns where the block
/// ends and the ids of the event formats that parsed and of those that did not (`None` when
/// the block could not be read to its end).
pub fn v6_metadata_block(
    data: &[u8],
    block: Range<u64>,
    limits: &crate::limits::Limits,
    sink: &mut Sink,
) -> Option<MetadataBlock> {
    let mut ctx = Ctx::new(data, limits, sink);
    ctx.version = 6;
    let mut r = Reader::new(data, Endian::Little)
        .slice_abs(block, "metadata block")
        .ok()?;
    let at = r.offset();
    let magic = rd(&mut ctx, r.bytes(10, "metadata block magic"))?;
    if magic != b"\x17\x08\x44tracing" {
        ctx.report(
            &rules::DAT_BAD_MAGIC,
            &Loc::file(),
            at..at.saturating_add(10),
            "the metadata block does not start with \\x17\\x08\\x44tracing",
        );
        return None;
    }
    let version = rd(&mut ctx, r.cstr(r.remaining(), "metadata block version"))?;
    let version = String::from_utf8_lossy(version).into_owned();
    let big = rd(&mut ctx, r.u8("metadata block byte order"))? != 0;
    r.set_endian(if big { Endian::Big } else { Endian::Little });
    rd(&mut ctx, r.u8("metadata block long size"))?;
    rd(&mut ctx, r.u32("metadata block page size"))?;
    let mut m = super::model::Meta::default();
    let loc = Loc::file();
    let cmdlines = version.trim().parse::<f64>().is_ok_and(|v| v >= 0.6);
    let body = (|| -> Flow {
        meta::header_info(&mut ctx, &mut r, &loc, &mut m)?;
        meta::ftrace_events(&mut ctx, &mut r, &loc, &mut m)?;
        let formats = meta::event_formats(&mut ctx, &mut r, &loc, &mut m);
        meta::settle_common_type(&mut ctx, &m);
        formats?;
        meta::kallsyms(&mut ctx, &mut r, &loc, &mut m)?;
        meta::printk(&mut ctx, &mut r, &loc, &mut m)?;
        if cmdlines {
            meta::cmdlines(&mut ctx, &mut r, &loc, &mut m)?;
        }
        Ok(())
    })();
    body.ok()?;
    Some(MetadataBlock {
        end: r.offset(),
        ids: m.formats.iter().map(|f| f.id).collect(),
        unparsed: ctx.unparsed_formats.iter().map(|(id, _)| *id).collect(),
    })
}

/// What [`v6_metadata_block`] read of a block.
pub struct MetadataBlock {
    /// Where the block ends.
    pub end: u64,
    /// The ids of the event formats that parsed.
    pub ids: Vec<u32>,
    /// The ids of the event formats libtraceevent registers but fails to parse.
    pub unparsed: Vec<u32>,
}
