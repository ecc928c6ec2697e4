//! `info`: the 40-byte binary header and the text sections selected by `info_mask`.

use super::super::rules;
use super::text::{self, scan, show};
use crate::finding::{Severity, Sink};
use crate::map::MapNode;
use crate::reader::{Endian, Line, Reader};
use std::ops::Range;

/// Header size written by every uftrace version.
pub const HEADER_SIZE: u64 = 40;
/// `Ftrace!\0`.
pub const MAGIC: &[u8; 8] = b"Ftrace!\0";

/// Feature bits (`feat_mask`).
pub mod feat {
    /// libcall (PLT) hooking.
    pub const PLTHOOK: u64 = 1 << 0;
    /// task.txt + session maps.
    pub const TASK_SESSION: u64 = 1 << 1;
    /// kernel tracing.
    pub const KERNEL: u64 = 1 << 2;
    /// arguments.
    pub const ARGUMENT: u64 = 1 << 3;
    /// return values.
    pub const RETVAL: u64 = 1 << 4;
    /// max_stack field valid.
    pub const MAX_STACK: u64 = 1 << 6;
    /// perf events.
    pub const PERF_EVENT: u64 = 1 << 8;
    /// automatic arguments.
    pub const AUTO_ARGS: u64 = 1 << 9;
    /// `.dbg` files.
    pub const DEBUG_INFO: u64 = 1 << 10;
    /// `-e` (`--estimate-return`): EXIT records get estimated times.
    pub const ESTIMATE_RETURN: u64 = 1 << 11;
    /// `.sym` size column.
    pub const SYM_SIZE: u64 = 1 << 12;
    /// All bits any version defines.
    pub const KNOWN: u64 = (1 << 14) - 1;
}

/// Names of the info_mask bits, in bit order.
pub const INFO_NAMES: [&str; 16] = [
    "EXE_NAME",
    "EXE_BUILD_ID",
    "EXIT_STATUS",
    "CMDLINE",
    "CPUINFO",
    "MEMINFO",
    "OSINFO",
    "TASKINFO",
    "USAGEINFO",
    "LOADINFO",
    "ARG_SPEC",
    "RECORD_DATE",
    "PATTERN_TYPE",
    "VERSION",
    "UTC_OFFSET",
    "SYSCTL",
];

/// The binary header.
#[derive(Clone, Debug, Default)]
pub struct Header {
    /// Format version.
    pub version: u32,
    /// Header size field.
    pub header_size: u16,
    /// 1 little, 2 big.
    pub endian: u8,
    /// 1 32-bit, 2 64-bit.
    pub class: u8,
    /// Feature bits.
    pub feat_mask: u64,
    /// Info section bits.
    pub info_mask: u64,
    /// Maximum depth.
    pub max_stack: u16,
}

/// How argspec function patterns are matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PatternType {
    /// Unanchored regular expressions (exact when no metacharacter).
    #[default]
    Regex,
    /// Shell globs.
    Glob,
    /// Exact names.
    Simple,
}

/// One argument-spec line of the ARG_SPEC section.
#[derive(Clone, Debug)]
pub struct SpecLine {
    /// `argspec`, `retspec`, `argauto`, `retauto`.
    pub kind: &'static str,
    /// The text after the prefix.
    pub text: String,
    /// Span of the line.
    pub span: Range<u64>,
}

/// The decoded `info` file.
#[derive(Clone, Debug, Default)]
pub struct Info {
    /// Header, when the 40 bytes were there with the magic.
    pub header: Option<Header>,
    /// `exename:` value.
    pub exename: Option<String>,
    /// `taskinfo:nr_tid`.
    pub nr_tid: Option<u64>,
    /// `taskinfo:tids` with the span of the list.
    pub tids: Vec<u64>,
    /// Span of the `taskinfo:tids=` line.
    pub tids_span: Range<u64>,
    /// Argument-spec lines.
    pub specs: Vec<SpecLine>,
    /// `auto-args:1` seen.
    pub auto_args: bool,
    /// `exit_status:` value: the traced program's wait status when `uftrace record` saw it
    /// exit (cmds/record.c `stop_tracing`), -1 when it did not.
    pub exit_status: Option<i64>,
    /// `cmdline:` value (the `uftrace record` command line).
    pub cmdline: Option<String>,
    /// The online CPU count of `cpuinfo:nr_cpus=<online> / <possible>`.
    pub online_cpus: Option<u64>,
    /// Pattern type.
    pub pattern: PatternType,
    /// Sections decoded: (bit, span).
    pub sections: Vec<(usize, Range<u64>)>,
    /// The `uftrace_version:` text, when the VERSION section is there.
    pub version_line: Option<String>,
}

/// The uftrace version that wrote a recording, as far as the recording tells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Producer {
    /// `uftrace_version:` with a release number: (major, minor, patch) and the version word.
    Version(u32, u32, u32, String),
    /// `uftrace_version:` without a version word (a build from a source tarball), with the
    /// oldest release the header's bits allow (major, minor).
    Unnamed(u32, u32),
    /// No VERSION section: uftrace before 0.9 (the section came with 0.9); `true` when the
    /// RECORD_DATE section (0.8) is there.
    Before09(bool),
    /// No `info` header to tell.
    Unknown,
}

impl Producer {
    /// "uftrace v0.9.3-189-gd9049", "uftrace v0.8.x (...)" ...
    pub fn describe(&self) -> String {
        match self {
            Producer::Version(_, _, _, w) => format!("uftrace {w}"),
            Producer::Unnamed(a, b) => format!(
                "a uftrace build without a version number (v{a}.{b} or later, or a development build of it, from its header bits)"
            ),
            Producer::Before09(true) => {
                "uftrace v0.8.x (its `info` has `record_date:` but no `uftrace_version:` line)"
                    .into()
            }
            Producer::Before09(false) => {
                "uftrace v0.6 or v0.7 (its `info` has neither `record_date:` nor `uftrace_version:`)"
                    .into()
            }
            Producer::Unknown => "an unknown uftrace version".into(),
        }
    }

    /// Whether the writer is known to be older than `(major, minor)` (`None`: cannot tell).
    pub fn older_than(&self, major: u32, minor: u32) -> Option<bool> {
        match self {
            Producer::Version(a, b, _, _) => Some((*a, *b) < (major, minor)),
            Producer::Before09(true) => ((major, minor) >= (0, 9)).then_some(true),
            Producer::Before09(false) => ((major, minor) >= (0, 8)).then_some(true),
            Producer::Unnamed(a, b) => ((*a, *b) >= (major, minor)).then_some(false),
            _ => None,
        }
    }
}

/// Parses the text of a `uftrace_version:` line (`v0.9.3-189-gd9049 ( dwarf ... )`).
pub fn parse_version(text: &str) -> Producer {
    let word = text.split_whitespace().next().unwrap_or("");
    let Some(v) = word.strip_prefix('v') else {
        return Producer::Unnamed(0, 9);
    };
    let core = v.split('-').next().unwrap_or("");
    let mut nums = core.split('.').map(|p| p.parse::<u32>().ok());
    match (nums.next().flatten(), nums.next().flatten()) {
        (Some(a), Some(b)) => {
            let c = nums.next().flatten().unwrap_or(0);
            Producer::Version(a, b, c, word.to_string())
        }
        _ => Producer::Unnamed(0, 9),
    }
}

impl Info {
    /// Byte order of the data files.
    pub fn endian(&self) -> Endian {
        match self.header.as_ref().map(|h| h.endian) {
            Some(2) => Endian::Big,
            _ => Endian::Little,
        }
    }

    /// Feature mask (0 without a header).
    pub fn feat(&self) -> u64 {
        self.header.as_ref().map(|h| h.feat_mask).unwrap_or(0)
    }

    /// Size of a `long` in the traced program.
    pub fn long_size(&self) -> u32 {
        match self.header.as_ref().map(|h| h.class) {
            Some(1) => 4,
            _ => 8,
        }
    }

    /// Effective maximum depth.
    pub fn max_stack(&self) -> u16 {
        match &self.header {
            Some(h) if h.feat_mask & feat::MAX_STACK != 0 && h.max_stack > 0 => h.max_stack,
            _ => 1024,
        }
    }

    /// The writer, from the `uftrace_version:` line or its absence.
    pub fn producer(&self) -> Producer {
        // VERSION (bit 13) came with 0.9, ESTIMATE_RETURN (feature bit 11) with 0.10, SYM_SIZE
        // with 0.14 and UTC_OFFSET (bit 14) with 0.17.
        match (&self.header, &self.version_line) {
            (None, _) => Producer::Unknown,
            (Some(h), Some(v)) => match parse_version(v) {
                // The oldest release that sets the newest bit the header has.
                Producer::Unnamed(..) => {
                    let floor = if h.info_mask & (1 << 14) != 0 {
                        (0, 17)
                    } else if h.feat_mask & feat::SYM_SIZE != 0 {
                        (0, 14)
                    } else if h.feat_mask & (1 << 11) != 0 {
                        (0, 10)
                    } else {
                        (0, 9)
                    };
                    Producer::Unnamed(floor.0, floor.1)
                }
                p => p,
            },
            (Some(h), None) if h.info_mask & (1 << 13) == 0 => {
                Producer::Before09(h.info_mask & (1 << 11) != 0)
            }
            (Some(_), None) => Producer::Unknown,
        }
    }

    /// Version (4 without a header).
    pub fn version(&self) -> u32 {
        self.header.as_ref().map(|h| h.version).unwrap_or(4)
    }
}

/// Decodes `info`; reports into `sink` (whose file is already set).
pub fn decode(data: &[u8], sink: &mut Sink) -> (Info, MapNode) {
    let mut info = Info::default();
    let len = data.len() as u64;
    let mut node = MapNode::new("info", 0, len).in_file("info");
    let magic_ok = data.get(..8) == Some(&MAGIC[..]);
    if data.len() < 40 || !magic_ok {
        let shown: Vec<String> = data.iter().take(8).map(|b| format!("{b:02x}")).collect();
        let msg =
            if !magic_ok {
                format!(
                "`info` starts with {} instead of the magic 46 74 72 61 63 65 21 00 (`Ftrace!\\0`)",
                if shown.is_empty() { "nothing".into() } else { shown.join(" ") }
            )
            } else {
                format!("`info` is {len} bytes, shorter than its 40-byte header")
            };
        sink.report(&rules::INFO_BAD_MAGIC, 0..len.min(40), msg);
        return (info, node);
    }
    let mut r = Reader::new(data, Endian::Little);
    let h = match read_header(&mut r) {
        Ok(h) => h,
        Err(e) => {
            sink.read_error(&rules::INFO_BAD_MAGIC, &e);
            return (info, node);
        }
    };
    if !(3..=4).contains(&h.version) {
        sink.report(
            &rules::UNSUPPORTED_VERSION,
            8..12,
            format!(
                "header version is {}; uftrace reads versions 3 and 4",
                h.version
            ),
        );
    }
    if u64::from(h.header_size) != HEADER_SIZE {
        sink.report(
            &rules::INFO_HEADER_SIZE,
            12..14,
            format!("header size field is {}, expected 40", h.header_size),
        );
    }
    if !(1..=2).contains(&h.endian) {
        sink.report(
            &rules::BAD_ENDIAN_OR_CLASS,
            14..15,
            format!(
                "endian byte is {}, expected 1 (little) or 2 (big)",
                h.endian
            ),
        );
    }
    if !(1..=2).contains(&h.class) {
        sink.report(
            &rules::BAD_ENDIAN_OR_CLASS,
            15..16,
            format!(
                "class byte is {}, expected 1 (32-bit) or 2 (64-bit)",
                h.class
            ),
        );
    }
    if h.feat_mask & !feat::KNOWN != 0 {
        sink.report(
            &rules::UNKNOWN_MASK_BITS,
            16..24,
            format!(
                "feat_mask 0x{:x} has unknown bits 0x{:x} (known: bits 0-13)",
                h.feat_mask,
                h.feat_mask & !feat::KNOWN
            ),
        );
    }
    if h.feat_mask & feat::TASK_SESSION == 0 {
        let f = sink
            .make(
                &rules::UNKNOWN_MASK_BITS,
                16..24,
                format!(
                    "feat_mask 0x{:x} lacks TASK_SESSION (bit 1): sessions and maps are not read; uftrace 0.9.4–0.18.1 `replay` crash (SIGSEGV) on such a recording",
                    h.feat_mask
                ),
            )
            .fails("uftrace", "0.9.4–0.18.1", "crash");
        sink.push(f);
    }
    if h.info_mask == 0 {
        let f = sink
            .make(
                &rules::UNKNOWN_MASK_BITS,
                24..32,
                "info_mask is 0: the info file lists no section; uftrace 0.9.4–0.18.1 cannot open the recording (`cannot open record data`, `replay` crashes with SIGSEGV)",
            )
            .fails("uftrace", "0.9.4–0.18.1", "crash");
        sink.push(f);
    }
    if h.info_mask != 0 && h.info_mask & (1 << 7) == 0 {
        // open_data_file (utils/data-file.c): `if (handle->info.nr_tid == 0)` → ENODATA.
        let f = sink
            .make(
                &rules::UNKNOWN_MASK_BITS,
                24..32,
                format!("info_mask 0x{:x} lacks TASKINFO (bit 7): uftrace 0.9.4–0.18.1 then know no task and refuse the recording (`cannot open record data: No data available`)", h.info_mask),
            )
            .fails("uftrace", "0.9.4–0.18.1", "reject");
        sink.push(f);
    }
    if h.info_mask >> 16 != 0 {
        sink.report(
            &rules::INFO_NEWER_LINE,
            24..32,
            format!(
                "info_mask 0x{:x} has bits 0x{:x} of sections newer than uftrace 0.18 (known: bits 0-15); readers skip them",
                h.info_mask,
                h.info_mask & !0xffff
            ),
        );
    }
    if h.feat_mask & feat::MAX_STACK != 0 && h.max_stack == 0 {
        sink.report(
            &rules::BAD_MAX_STACK,
            32..34,
            "max_stack is 0 although the MAX_STACK feature is set",
        );
    }
    if let Some(res) = data.get(34..40) {
        if res.iter().any(|&b| b != 0) {
            sink.report(
                &rules::RESERVED_NONZERO,
                34..40,
                format!("reserved bytes are {:02x?}, expected zeros", res),
            );
        }
    }
    node.push(
        MapNode::new("header", 0, HEADER_SIZE)
            .value("version", h.version)
            .value("endian", h.endian)
            .value("class", h.class)
            .value("feat_mask", format!("0x{:x}", h.feat_mask))
            .value("info_mask", format!("0x{:x}", h.info_mask))
            .value("max_stack", h.max_stack),
    );
    let info_mask = h.info_mask;
    info.header = Some(h);
    decode_text(data, info_mask, &mut info, sink);
    for (bit, span) in &info.sections {
        let name = INFO_NAMES.get(*bit).copied().unwrap_or("?");
        node.push(MapNode::new(
            name,
            span.start,
            span.end.saturating_sub(span.start),
        ));
    }
    (info, node)
}

fn read_header(r: &mut Reader<'_>) -> crate::reader::ReadResult<Header> {
    r.skip(8, "magic")?;
    let version = r.u32("version")?;
    let header_size = r.u16("header size")?;
    let endian = r.u8("endian")?;
    let class = r.u8("class")?;
    let feat_mask = r.u64("feat_mask")?;
    let info_mask = r.u64("info_mask")?;
    let max_stack = r.u16("max_stack")?;
    Ok(Header {
        version,
        header_size,
        endian,
        class,
        feat_mask,
        info_mask,
        max_stack,
    })
}

/// Line cursor over the text part.
struct Lines<'a> {
    all: Vec<Line<'a>>,
    next: usize,
}

impl<'a> Lines<'a> {
    fn peek(&self) -> Option<&Line<'a>> {
        self.all.get(self.next)
    }
    fn take(&mut self) -> Option<Line<'a>> {
        let l = self.all.get(self.next).copied();
        if l.is_some() {
            self.next = self.next.saturating_add(1);
        }
        l
    }
}

fn bad(sink: &mut Sink, line: &Line<'_>, expected: &str) {
    sink.report(
        &rules::INFO_LINE_MALFORMED,
        line.span(),
        format!(
            "`info` line `{}` does not match `{}`",
            show(line.text),
            expected
        ),
    );
}

/// Takes the next line for section `name`, reporting a missing section.
fn need<'a>(lines: &mut Lines<'a>, sink: &mut Sink, name: &str, end: u64) -> Option<Line<'a>> {
    let l = lines.take();
    if l.is_none() {
        sink.report(
            &rules::INFO_SECTION_MISSING,
            end..end,
            format!("`info` ends before the {name} section that info_mask announces"),
        );
    }
    l
}

fn check_fmt(sink: &mut Sink, line: &Line<'_>, fmt: &str) -> bool {
    if scan(line.text, fmt) {
        return true;
    }
    let key = fmt.split_inclusive(':').next().unwrap_or(fmt);
    if line.text.starts_with(key.as_bytes()) {
        bad_value(sink, line, fmt, key);
    } else {
        bad(sink, line, fmt);
    }
    false
}

/// A line with its section's key whose value does not parse. uftrace's readers
/// (`read_uftrace_info`, cmds/info.c, 0.9.4–0.18.1) check only the `key:` prefix and `sscanf`
/// the value without checking what parsed: `uftrace info` shows what parses, and dump, replay
/// and the other commands read the same.
fn bad_value(sink: &mut Sink, line: &Line<'_>, expected: &str, key: &str) {
    let f = sink
        .make(
            &rules::INFO_LINE_MALFORMED,
            line.span(),
            format!(
                "`info` line `{}` does not match `{}`; uftrace 0.9.4–0.18.1 check only its `{key}` prefix and take what `sscanf` parses of the value (shown by `uftrace info`), and read the trace the same",
                show(line.text),
                expected
            ),
        )
        .level(Severity::Warning)
        .read_same("uftrace", "0.9.4–0.18.1");
    sink.push(f);
}

/// A `key:lines=N` section of N `key:` lines with the given formats.
fn multi(
    lines: &mut Lines<'_>,
    sink: &mut Sink,
    key: &str,
    fmts: &[&str],
    end: u64,
) -> Option<Range<u64>> {
    let first = need(lines, sink, key, end)?;
    let start = first.offset;
    let expect = format!("{key}:lines={}", fmts.len());
    if first.text != expect.as_bytes() {
        bad(sink, &first, &expect);
        if !first.text.starts_with(key.as_bytes()) {
            return Some(first.span());
        }
    }
    let mut last = first.span();
    for fmt in fmts {
        match lines.peek() {
            Some(l) if l.text.starts_with(format!("{key}:").as_bytes()) => {
                let l = *l;
                lines.take();
                check_fmt(sink, &l, fmt);
                last = l.span();
            }
            Some(l) => {
                let l = *l;
                bad(sink, &l, fmt);
                return Some(start..last.end);
            }
            None => {
                sink.report(
                    &rules::INFO_SECTION_MISSING,
                    end..end,
                    format!("`info` ends inside the {key} section (expected `{fmt}`)"),
                );
                return Some(start..last.end);
            }
        }
    }
    Some(start..last.end)
}

fn decode_text(data: &[u8], mask: u64, info: &mut Info, sink: &mut Sink) {
    let text = data.get(40..).unwrap_or(&[]);
    let end = data.len() as u64;
    let mut all = Vec::new();
    let mut long_lines = Vec::new();
    let mut r = Reader::with_base(text, HEADER_SIZE, Endian::Little);
    while let Some(l) = r.line() {
        if l.text.len() >= 4095 {
            long_lines.push(l);
        }
        if !l.terminated {
            sink.report(
                &rules::INFO_LINE_MALFORMED,
                l.span(),
                "the last `info` line has no terminating newline",
            );
        }
        all.push(l);
    }
    let mut lines = Lines { all, next: 0 };
    for bit in 0..16usize {
        if mask & (1u64 << bit) == 0 {
            continue;
        }
        let name = INFO_NAMES.get(bit).copied().unwrap_or("?");
        let span = match bit {
            0 => need(&mut lines, sink, name, end).map(|l| {
                if check_fmt(sink, &l, "exename:%*") {
                    info.exename = l
                        .text
                        .strip_prefix(b"exename:")
                        .map(|s| String::from_utf8_lossy(s).into_owned());
                }
                l.span()
            }),
            1 => need(&mut lines, sink, name, end).map(|l| {
                let ok = l
                    .text
                    .strip_prefix(b"build_id:")
                    .is_some_and(|v| v.len() == 40 && v.iter().all(u8::is_ascii_hexdigit));
                if !ok {
                    bad(sink, &l, "build_id:<40 hex digits>");
                }
                l.span()
            }),
            2 => exit_status(&mut lines, sink, end, info),
            3 => need(&mut lines, sink, name, end).map(|l| {
                if check_fmt(sink, &l, "cmdline:%*") {
                    info.cmdline = l
                        .text
                        .strip_prefix(b"cmdline:")
                        .map(|s| String::from_utf8_lossy(s).into_owned());
                }
                l.span()
            }),
            4 => cpuinfo(&mut lines, sink, info, end),
            5 => need(&mut lines, sink, name, end).map(|l| {
                let ok = scan(l.text, "meminfo:%f / %f %w (free / total)")
                    && ["KB", "MB", "GB", "TB"].iter().any(|u| {
                        l.text
                            .windows(u.len().saturating_add(2))
                            .any(|w| w == format!(" {u} ").as_bytes())
                    });
                let fmt = "meminfo:<free> / <total> <KB|MB|GB|TB> (free / total)";
                if !ok && l.text.starts_with(b"meminfo:") {
                    bad_value(sink, &l, fmt, "meminfo:");
                } else if !ok {
                    bad(sink, &l, fmt);
                }
                l.span()
            }),
            6 => multi(
                &mut lines,
                sink,
                "osinfo",
                &["osinfo:kernel=%*", "osinfo:hostname=%*", "osinfo:distro=%*"],
                end,
            ),
            7 => taskinfo(&mut lines, sink, info, end),
            8 => multi(
                &mut lines,
                sink,
                "usageinfo",
                &[
                    "usageinfo:systime=%f",
                    "usageinfo:usrtime=%f",
                    "usageinfo:ctxsw=%i / %i (voluntary / involuntary)",
                    "usageinfo:maxrss=%i",
                    "usageinfo:pagefault=%i / %i (major / minor)",
                    "usageinfo:iops=%i / %i (read / write)",
                ],
                end,
            ),
            9 => single(&mut lines, sink, name, end, "loadinfo:%f / %f / %f"),
            10 => argspec(&mut lines, sink, info, end),
            11 => {
                let a = single(&mut lines, sink, name, end, "record_date:%*");
                let b = single(&mut lines, sink, name, end, "elapsed_time:%u.%u sec");
                match (a, b) {
                    (Some(a), Some(b)) => Some(a.start..b.end),
                    (a, b) => a.or(b),
                }
            }
            12 => need(&mut lines, sink, name, end).map(|l| {
                match l.text.strip_prefix(b"pattern_type:") {
                    Some(b"regex") => info.pattern = PatternType::Regex,
                    Some(b"glob") => info.pattern = PatternType::Glob,
                    Some(b"simple") => info.pattern = PatternType::Simple,
                    _ => bad(sink, &l, "pattern_type:<regex|glob|simple>"),
                }
                l.span()
            }),
            13 => need(&mut lines, sink, name, end).map(|l| {
                match l.text.strip_prefix(b"uftrace_version:") {
                    Some(v) => info.version_line = Some(String::from_utf8_lossy(v).into_owned()),
                    None => bad(sink, &l, "uftrace_version:%*"),
                }
                l.span()
            }),
            // Sections newer than every reader of 0.6-0.16: readers that do not know the bit
            // never read the line, so a line of another shape is no reader's problem.
            _ => need(&mut lines, sink, name, end).map(|l| {
                let fmt = if bit == 14 {
                    "utc_offset:%i"
                } else {
                    "sysctl:perf_event_paranoid=%i kptr_restrict=%i"
                };
                if !scan(l.text, fmt) {
                    sink.report(
                        &rules::INFO_NEWER_LINE,
                        l.span(),
                        format!(
                            "`info` line `{}` of the {name} section (bit {bit}) does not match `{fmt}`; readers before uftrace 0.17 do not read this section",
                            show(l.text)
                        ),
                    );
                }
                l.span()
            }),
        };
        if let Some(span) = span {
            info.sections.push((bit, span));
        }
    }
    // TASKINFO and ARG_SPEC lines are read with getline; every other line with a 4096-byte fgets.
    for l in long_lines {
        let exempt = info.sections.iter().any(|(bit, span)| {
            matches!(bit, 7 | 10) && span.start <= l.offset && l.offset < span.end
        });
        if !exempt {
            sink.report(
                &rules::INFO_LINE_TOO_LONG,
                l.span(),
                format!(
                    "`info` line is {} bytes; uftrace reads it with a 4096-byte fgets buffer and splits it",
                    l.text.len()
                ),
            );
        }
    }
    let rest = lines.all.get(lines.next..).unwrap_or(&[]);
    let newer = !rest.is_empty()
        && rest.iter().all(|l| {
            let key_len = l
                .text
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_' || **c == b'-')
                .count();
            key_len > 0 && l.text.get(key_len) == Some(&b':')
        });
    if let (true, Some(l)) = (newer, lines.peek()) {
        sink.report(
            &rules::INFO_NEWER_LINE,
            l.offset..end,
            format!(
                "`info` has {} `key:value` line(s) after the last section info_mask announces, starting with `{}`: sections of a newer uftrace, which readers skip",
                rest.len(),
                show(l.text)
            ),
        );
    } else if let Some(l) = lines.peek() {
        let start = l.offset;
        sink.report(
            &rules::INFO_TRAILING_DATA,
            start..end,
            format!(
                "{} bytes follow the last section announced by info_mask, starting with `{}`",
                end.saturating_sub(start),
                show(l.text)
            ),
        );
    }
}

/// The `exit_status:%i` line, its value into `info`.
fn exit_status(
    lines: &mut Lines<'_>,
    sink: &mut Sink,
    end: u64,
    info: &mut Info,
) -> Option<Range<u64>> {
    need(lines, sink, "EXIT_STATUS", end).map(|l| {
        if check_fmt(sink, &l, "exit_status:%i") {
            info.exit_status = l
                .text
                .strip_prefix(b"exit_status:")
                .and_then(|v| std::str::from_utf8(v).ok())
                .and_then(|v| v.trim().parse::<i64>().ok());
        }
        l.span()
    })
}

/// The CPUINFO section; keeps the online CPU count of `cpuinfo:nr_cpus=`.
fn cpuinfo(
    lines: &mut Lines<'_>,
    sink: &mut Sink,
    info: &mut Info,
    end: u64,
) -> Option<Range<u64>> {
    info.online_cpus = lines.all.iter().skip(lines.next).take(3).find_map(|l| {
        let v = l.text.strip_prefix(b"cpuinfo:nr_cpus=")?;
        let n = v.split(|&b| b == b' ').next()?;
        std::str::from_utf8(n).ok()?.parse().ok()
    });
    multi(
        lines,
        sink,
        "cpuinfo",
        &[
            "cpuinfo:nr_cpus=%u / %u (online/possible)",
            "cpuinfo:desc=%*",
        ],
        end,
    )
}

fn single(
    lines: &mut Lines<'_>,
    sink: &mut Sink,
    name: &str,
    end: u64,
    fmt: &str,
) -> Option<Range<u64>> {
    need(lines, sink, name, end).map(|l| {
        check_fmt(sink, &l, fmt);
        l.span()
    })
}

fn taskinfo(
    lines: &mut Lines<'_>,
    sink: &mut Sink,
    info: &mut Info,
    end: u64,
) -> Option<Range<u64>> {
    let first = need(lines, sink, "TASKINFO", end)?;
    let start = first.offset;
    if first.text != b"taskinfo:lines=2" {
        bad(sink, &first, "taskinfo:lines=2");
        if !first.text.starts_with(b"taskinfo:") {
            return Some(first.span());
        }
    }
    let Some(l) = need(lines, sink, "TASKINFO", end) else {
        return Some(first.span());
    };
    let nr = l
        .text
        .strip_prefix(b"taskinfo:nr_tid=")
        .and_then(text::parse_u64);
    if nr.is_none() {
        bad(sink, &l, "taskinfo:nr_tid=%u");
    }
    info.nr_tid = nr;
    let nr_span = l.span();
    let Some(t) = need(lines, sink, "TASKINFO", end) else {
        return Some(start..nr_span.end);
    };
    info.tids_span = t.span();
    match t.text.strip_prefix(b"taskinfo:tids=") {
        Some(list) => {
            let mut ok = true;
            for part in list.split(|&c| c == b',') {
                match text::parse_u64(part) {
                    Some(v) => info.tids.push(v),
                    None => ok = false,
                }
                if info.tids.len() > 10_000_000 {
                    break;
                }
            }
            if !ok {
                bad(sink, &t, "taskinfo:tids=<tid>,<tid>,...");
            }
        }
        None => bad(sink, &t, "taskinfo:tids=<tid>,<tid>,..."),
    }
    if let Some(nr) = nr {
        if nr == 0 {
            sink.report(
                &rules::TASKINFO_COUNT,
                nr_span.clone(),
                "taskinfo:nr_tid is 0: uftrace finds no task data",
            );
        } else if nr != info.tids.len() as u64 {
            let f = sink
                .make(
                    &rules::TASKINFO_COUNT,
                    t.span(),
                    format!(
                        "taskinfo:nr_tid is {nr} but taskinfo:tids lists {} tid(s)",
                        info.tids.len()
                    ),
                )
                .note("uftrace 0.13 allocates nr_tid slots and writes every listed tid: more tids overflow its heap");
            sink.push(f);
        }
    }
    let mut sorted = true;
    let mut dup = false;
    for w in info.tids.windows(2) {
        if let [a, b] = w {
            if a > b {
                sorted = false;
            }
            if a == b {
                dup = true;
            }
        }
    }
    if dup || !sorted || info.tids.contains(&0) {
        sink.report(
            &rules::TASKINFO_COUNT,
            t.span(),
            "taskinfo:tids must be unique, non-zero and ascending",
        );
    }
    Some(start..t.span().end)
}

fn argspec(
    lines: &mut Lines<'_>,
    sink: &mut Sink,
    info: &mut Info,
    end: u64,
) -> Option<Range<u64>> {
    let first = need(lines, sink, "ARG_SPEC", end)?;
    let start = first.offset;
    let count = match first.text.strip_prefix(b"argspec:lines=") {
        Some(n) => match text::parse_u64(n) {
            Some(k) if (3..=6).contains(&k) => k,
            _ => {
                bad(sink, &first, "argspec:lines=<3..6>");
                return Some(first.span());
            }
        },
        None => {
            // Legacy: a single `argspec:<spec>` line.
            match first.text.strip_prefix(b"argspec:") {
                Some(spec) => info.specs.push(SpecLine {
                    kind: "argspec",
                    text: String::from_utf8_lossy(spec).into_owned(),
                    span: first.span(),
                }),
                None => bad(sink, &first, "argspec:lines=<3..6>"),
            }
            return Some(first.span());
        }
    };
    let mut last = first.span();
    let mut seen = 0u64;
    let mut have_user = 0u64;
    let mut have_auto = 0u64;
    while seen < count {
        let Some(l) = lines.peek().copied() else {
            sink.report(
                &rules::INFO_SECTION_MISSING,
                end..end,
                format!("`info` ends after {seen} of the {count} argspec lines"),
            );
            break;
        };
        lines.take();
        seen = seen.saturating_add(1);
        last = l.span();
        let kinds: [(&[u8], &'static str); 5] = [
            (b"argspec:", "argspec"),
            (b"retspec:", "retspec"),
            (b"argauto:", "argauto"),
            (b"retauto:", "retauto"),
            (b"enumauto:", "enumauto"),
        ];
        if l.text == b"auto-args:1" {
            info.auto_args = true;
            continue;
        }
        match kinds.iter().find(|(p, _)| l.text.starts_with(p)) {
            Some((p, kind)) => {
                let body = l.text.get(p.len()..).unwrap_or(&[]);
                match *kind {
                    "argspec" | "retspec" => have_user = have_user.saturating_add(1),
                    _ => have_auto = have_auto.saturating_add(1),
                }
                if *kind != "enumauto" {
                    info.specs.push(SpecLine {
                        kind,
                        text: String::from_utf8_lossy(body).into_owned(),
                        span: l.span(),
                    });
                }
            }
            None => bad(
                sink,
                &l,
                "argspec:/retspec:/argauto:/retauto:/enumauto:<spec> or auto-args:1",
            ),
        }
    }
    let expected = have_user
        .saturating_add(3)
        .saturating_add(u64::from(info.auto_args));
    if have_auto == 3 && expected != count {
        sink.report(
            &rules::INFO_LINE_MALFORMED,
            first.span(),
            format!("argspec:lines={count} but the section holds {expected} lines of known kinds"),
        );
    }
    Some(start..last.end)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(
            parse_version("v0.9.3-189-gd9049 ( dwarf python luajit tui perf sched dynamic )"),
            Producer::Version(0, 9, 3, "v0.9.3-189-gd9049".into())
        );
        assert_eq!(
            parse_version("v0.13 ( x86_64 dwarf )"),
            Producer::Version(0, 13, 0, "v0.13".into())
        );
        assert_eq!(parse_version(" ( x86_64 dwarf )"), Producer::Unnamed(0, 9));
        let p = parse_version("v0.9.4");
        assert_eq!(p.older_than(0, 10), Some(true));
        assert_eq!(p.older_than(0, 9), Some(false));
        assert_eq!(Producer::Before09(true).older_than(0, 10), Some(true));
        assert_eq!(Producer::Before09(false).older_than(0, 8), Some(true));
        assert_eq!(Producer::Before09(true).older_than(0, 8), None);
        assert_eq!(Producer::Unnamed(0, 14).older_than(0, 10), Some(false));
        assert_eq!(Producer::Unnamed(0, 9).older_than(0, 14), None);
        assert!(Producer::Unnamed(0, 14)
            .describe()
            .contains("v0.14 or later"));
    }
}
