//! The typed model of a trace.dat file, with absolute byte spans. Built by the decoder,
//! inspected by the lint pass and the CPU-data pass, rendered into the structure map.

use crate::reader::Endian;
use std::ops::Range;

/// Compression algorithm of a v7 file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algo {
    /// `none`.
    None,
    /// `zstd`.
    Zstd,
    /// `zlib`.
    Zlib,
}

impl Algo {
    /// The name used in the file.
    pub fn name(self) -> &'static str {
        match self {
            Algo::None => "none",
            Algo::Zstd => "zstd",
            Algo::Zlib => "zlib",
        }
    }
}

/// The initial header.
#[derive(Clone, Debug)]
pub struct Header {
    /// 6 or 7 (other values are reported and stop decoding).
    pub version: u32,
    /// Byte order of the file.
    pub endian: Endian,
    /// User-space `sizeof(long)` byte.
    pub long_size: u8,
    /// Page size.
    pub page_size: u32,
    /// v7 compression algorithm (`None` for v6).
    pub algo: Option<Algo>,
    /// v7 compression name and version strings.
    pub compression: Option<(String, String)>,
    /// v7 offset of the first OPTIONS section.
    pub first_options: Option<(u64, Range<u64>)>,
    /// Offset of the long-size byte.
    pub long_size_at: u64,
    /// Span of the whole header.
    pub span: Range<u64>,
}

/// A v7 section header and where its body is.
#[derive(Clone, Debug)]
pub struct Section {
    /// Section id.
    pub id: u16,
    /// Flags (bit 0: compressed).
    pub flags: u16,
    /// Description string id.
    pub string_id: u32,
    /// Declared body size.
    pub size: u64,
    /// Offset of the 16-byte header.
    pub offset: u64,
    /// Body span (clamped to the file).
    pub body: Range<u64>,
    /// Resolved description.
    pub desc: Option<String>,
    /// Uncompressed size of a compressed metadata body, when read.
    pub usize: Option<u64>,
}

impl Section {
    /// Whether the compressed flag is set.
    pub fn compressed(&self) -> bool {
        self.flags & 1 != 0
    }
    /// Span of the 16-byte header.
    pub fn header_span(&self) -> Range<u64> {
        self.offset..self.offset.saturating_add(16)
    }
}

/// Option ids.
pub mod opt_id {
    /// DONE.
    pub const DONE: u16 = 0;
    /// DATE.
    pub const DATE: u16 = 1;
    /// CPUSTAT.
    pub const CPUSTAT: u16 = 2;
    /// BUFFER.
    pub const BUFFER: u16 = 3;
    /// TRACECLOCK.
    pub const TRACECLOCK: u16 = 4;
    /// UNAME.
    pub const UNAME: u16 = 5;
    /// HOOK.
    pub const HOOK: u16 = 6;
    /// OFFSET.
    pub const OFFSET: u16 = 7;
    /// CPUCOUNT.
    pub const CPUCOUNT: u16 = 8;
    /// VERSION.
    pub const VERSION: u16 = 9;
    /// PROCMAPS.
    pub const PROCMAPS: u16 = 10;
    /// TRACEID.
    pub const TRACEID: u16 = 11;
    /// TIME_SHIFT.
    pub const TIME_SHIFT: u16 = 12;
    /// GUEST.
    pub const GUEST: u16 = 13;
    /// TSC2NSEC.
    pub const TSC2NSEC: u16 = 14;
    /// STRINGS.
    pub const STRINGS: u16 = 15;
    /// HEADER_INFO.
    pub const HEADER_INFO: u16 = 16;
    /// FTRACE_EVENTS.
    pub const FTRACE_EVENTS: u16 = 17;
    /// EVENT_FORMATS.
    pub const EVENT_FORMATS: u16 = 18;
    /// KALLSYMS.
    pub const KALLSYMS: u16 = 19;
    /// PRINTK.
    pub const PRINTK: u16 = 20;
    /// CMDLINES.
    pub const CMDLINES: u16 = 21;
    /// BUFFER_TEXT.
    pub const BUFFER_TEXT: u16 = 22;
    /// BTF_FILE.
    pub const BTF_FILE: u16 = 23;
    /// LAST_BOOT_INFO.
    pub const LAST_BOOT_INFO: u16 = 24;
    /// MODULES_FILE.
    pub const MODULES_FILE: u16 = 25;

    /// Name of an option id.
    pub fn name(id: u16) -> &'static str {
        match id {
            DONE => "DONE",
            DATE => "DATE",
            CPUSTAT => "CPUSTAT",
            BUFFER => "BUFFER",
            TRACECLOCK => "TRACECLOCK",
            UNAME => "UNAME",
            HOOK => "HOOK",
            OFFSET => "OFFSET",
            CPUCOUNT => "CPUCOUNT",
            VERSION => "VERSION",
            PROCMAPS => "PROCMAPS",
            TRACEID => "TRACEID",
            TIME_SHIFT => "TIME_SHIFT",
            GUEST => "GUEST",
            TSC2NSEC => "TSC2NSEC",
            STRINGS => "STRINGS",
            HEADER_INFO => "HEADER_INFO",
            FTRACE_EVENTS => "FTRACE_EVENTS",
            EVENT_FORMATS => "EVENT_FORMATS",
            KALLSYMS => "KALLSYMS",
            PRINTK => "PRINTK",
            CMDLINES => "CMDLINES",
            BUFFER_TEXT => "BUFFER_TEXT",
            BTF_FILE => "BTF_FILE",
            LAST_BOOT_INFO => "LAST_BOOT_INFO",
            MODULES_FILE => "MODULES_FILE",
            _ => "unknown",
        }
    }
}

/// One per-CPU data entry of a buffer.
#[derive(Clone, Debug)]
pub struct CpuEntry {
    /// CPU id.
    pub cpu: u32,
    /// Data offset.
    pub offset: u64,
    /// Declared data size.
    pub size: u64,
    /// Span of the (cpu, offset, size) entry in the option / flyrecord table.
    pub span: Range<u64>,
}

/// Results of checking one CPU's data.
#[derive(Clone, Debug, Default)]
pub struct CpuResult {
    /// Stats from the page walker.
    pub stats: crate::formats::ftrace_ring::CpuStats,
    /// Bytes the data occupies in the file (compressed stream length when compressed).
    pub stored: u64,
    /// Uncompressed bytes.
    pub raw: u64,
    /// Chunks (compressed only).
    pub chunks: u64,
}

/// A buffer (top or instance) with its CPU data.
#[derive(Clone, Debug)]
pub struct BufferInfo {
    /// Name (`""` for the top buffer).
    pub name: String,
    /// Clock (v7 option; v6 clock record).
    pub clock: Option<String>,
    /// Page size.
    pub page_size: u32,
    /// Span of the option or table describing it.
    pub span: Range<u64>,
    /// v7: index of the BUFFER section.
    pub section: Option<usize>,
    /// Whether its data is compressed.
    pub compressed: bool,
    /// CPUs.
    pub cpus: Vec<CpuEntry>,
    /// Results per CPU (filled by the data pass, same order as `cpus`).
    pub results: Vec<CpuResult>,
}

/// One field of an event format.
#[derive(Clone, Debug)]
pub struct Field {
    /// Declaration text (`unsigned short common_type`).
    pub decl: String,
    /// Field name (last identifier of the declaration).
    pub name: String,
    /// Offset in the record.
    pub offset: u32,
    /// Size.
    pub size: u32,
    /// Signed flag.
    pub signed: bool,
    /// Span of the field line.
    pub span: Range<u64>,
}

/// A parsed event format.
#[derive(Clone, Debug)]
pub struct EventFormat {
    /// System (`ftrace` for the ftrace formats).
    pub system: String,
    /// Event name.
    pub name: String,
    /// Event id.
    pub id: u32,
    /// Fields in order (common fields first).
    pub fields: Vec<Field>,
    /// Span of the format text.
    pub span: Range<u64>,
    /// Span of the `ID:` line.
    pub id_span: Range<u64>,
}

impl EventFormat {
    /// How long a record of this event can be as the kernel writes it: `Fixed` for a format
    /// without data of its own length (its entry's `sizeof`, the fields' end rounded up to 8),
    /// `Loc` with `__data_loc`/`__rel_loc` fields (the entry, then their data), `Text` for
    /// ftrace `print`, `Open` otherwise (trailing arrays, ftrace's own entries).
    pub fn tail(&self) -> crate::formats::ftrace_ring::Tail {
        use crate::formats::ftrace_ring::Tail;
        if self.system == "ftrace" {
            // The kernel's own entries end with arrays it sizes by what it stored; `print`
            // holds NUL-terminated text.
            return match self.fields.iter().find(|f| f.name == "buf") {
                Some(f) if self.name == "print" && f.decl.trim_end().ends_with(']') => {
                    Tail::Text(f.offset)
                }
                _ => Tail::Open,
            };
        }
        let (mut abs, mut rel) = (0u64, 0u64);
        for f in &self.fields {
            let d = f.decl.trim_end();
            let loc = if d.contains("__data_loc") {
                Some(&mut abs)
            } else if d.contains("__rel_loc") {
                Some(&mut rel)
            } else {
                None
            };
            match loc {
                // A location word: 4 bytes at a word position the masks can hold.
                Some(mask) if f.size == 4 && f.offset % 4 == 0 && f.offset < 256 => {
                    *mask |= 1u64 << (f.offset / 4);
                }
                Some(_) => return Tail::Open,
                None if f.size == 0 || d.ends_with("[]") => return Tail::Open,
                None => {}
            }
        }
        if self.fields.is_empty() {
            return Tail::Open;
        }
        let end = self
            .fields
            .iter()
            .map(|f| f.offset.saturating_add(f.size))
            .max()
            .unwrap_or(0);
        let fixed = end.checked_next_multiple_of(8).unwrap_or(u32::MAX);
        if abs == 0 && rel == 0 {
            Tail::Fixed(fixed)
        } else {
            Tail::Loc { fixed, abs, rel }
        }
    }

    /// The shortest payload a record of this event can have: the end of the last static
    /// field. The kernel's own ftrace entries (`ftrace:kernel_stack`, `user_stack`, `print`,
    /// `bprint`, `raw_data`, `function` with arguments) end with an array it sizes by what it
    /// stored (`caller[8]` holds only the frames captured), so for the `ftrace` system a
    /// trailing array may be cut anywhere: the minimum is where it starts.
    pub fn min_size(&self) -> u32 {
        let last = self.fields.iter().max_by_key(|f| f.offset);
        if self.system == "ftrace" {
            if let Some(f) = last.filter(|f| f.decl.trim_end().ends_with(']')) {
                return f.offset;
            }
        }
        self.fields
            .iter()
            .map(|f| f.offset.saturating_add(f.size))
            .max()
            .unwrap_or(0)
    }
}

/// Parsed header_page.
#[derive(Clone, Debug)]
pub struct HeaderPage {
    /// Size of the timestamp field.
    pub ts_size: u32,
    /// Size of the commit field (kernel long).
    pub commit_size: u32,
    /// Offset of the data field.
    pub data_offset: u32,
    /// Size of the data field.
    pub data_size: u32,
    /// Span of the text.
    pub span: Range<u64>,
}

/// Metadata gathered from the header items / sections.
#[derive(Clone, Debug, Default)]
pub struct Meta {
    /// header_page.
    pub header_page: Option<HeaderPage>,
    /// Formats (ftrace and events).
    pub formats: Vec<EventFormat>,
    /// Systems with the span of their name.
    pub systems: Vec<(String, Range<u64>)>,
    /// A system name read from the tail of the format before it, whose size cut it short, up
    /// to the next system's own name: (span, the name as shown, that next system). Judged once
    /// the data is walked: in a v6 file whose CPU data ends before the file does, bytes were
    /// added to the format instead, and the file after it is shifted.
    pub tail_as_system: Option<(Range<u64>, String, String)>,
    /// Count of ftrace formats.
    pub ftrace_count: u64,
    /// kallsyms lines.
    pub kallsyms_lines: u64,
    /// printk lines.
    pub printk_lines: u64,
    /// cmdlines lines.
    pub cmdline_lines: u64,
    /// Span of a header_event text of a kernel before 4.17 (no time_stamp line).
    pub header_event_old: Option<Range<u64>>,
}

/// A decoded option.
#[derive(Clone, Debug)]
pub struct Opt {
    /// Id.
    pub id: u16,
    /// Span of the whole record (id, size, payload); the section span when it was compressed.
    pub span: Range<u64>,
    /// Payload length.
    pub size: u32,
    /// Decoded value.
    pub value: OptValue,
}

/// Decoded option payloads (only what later checks need).
#[derive(Clone, Debug)]
pub enum OptValue {
    /// A NUL-terminated string (text without the NUL).
    Str(String),
    /// A u32.
    U32(u32),
    /// A u64 (TRACEID, section offsets, DONE next).
    U64(u64),
    /// BUFFER / BUFFER_TEXT: section offset (v7) or flyrecord offset (v6), name, clock.
    Buffer {
        /// Offset.
        offset: u64,
        /// Name.
        name: String,
        /// Clock (v7).
        clock: Option<String>,
        /// Page size (v7 BUFFER).
        page_size: Option<u32>,
        /// CPU entries (v7 BUFFER).
        cpus: Vec<CpuEntry>,
    },
    /// Anything else or malformed.
    Other,
}

/// The decoded file.
#[derive(Clone, Debug)]
pub struct TraceDat {
    /// Initial header.
    pub header: Header,
    /// Kernel long size for ring pages (header_page commit size, else the header byte).
    pub kernel_long: u8,
    /// v7 sections in walk order.
    pub sections: Vec<Section>,
    /// Offsets of the OPTIONS sections in chain order (v7).
    pub options_chain: Vec<u64>,
    /// Options in file order.
    pub options: Vec<Opt>,
    /// Metadata.
    pub meta: Meta,
    /// v6 CPU count from the header item, with its span.
    pub cpu_count: Option<(u32, Range<u64>)>,
    /// Buffers.
    pub buffers: Vec<BufferInfo>,
    /// Latency text span (v6 rest of file, v7 section body) and whether compressed.
    pub latency: Option<(Range<u64>, bool)>,
    /// v6: end of the metadata (after the clock record) — CPU data must not start before.
    pub meta_end: u64,
    /// v6: whether the file has an options section (every trace-cmd from 1.0 on writes one).
    pub options_section: bool,
}

impl TraceDat {
    /// The CPUCOUNT option value (last one).
    pub fn cpucount(&self) -> Option<u32> {
        self.options
            .iter()
            .rev()
            .find_map(|o| match (o.id, &o.value) {
                (opt_id::CPUCOUNT, OptValue::U32(v)) => Some(*v),
                _ => None,
            })
    }
    /// The selected clock from TRACECLOCK (`[local] global` → `local`).
    pub fn traceclock(&self) -> Option<String> {
        self.options
            .iter()
            .rev()
            .find_map(|o| match (o.id, &o.value) {
                (opt_id::TRACECLOCK, OptValue::Str(s)) => selected_clock(s),
                _ => None,
            })
    }
    /// The major version of the writer from the VERSION option (`3` of `3.1.6`).
    pub fn writer_major(&self) -> Option<u32> {
        self.writer_version()
            .and_then(|v| v.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|d| d.parse::<u32>().ok())
    }

    /// The VERSION option text.
    pub fn writer_version(&self) -> Option<&str> {
        self.options.iter().find_map(|o| match (o.id, &o.value) {
            (opt_id::VERSION, OptValue::Str(s)) => Some(s.as_str()),
            _ => None,
        })
    }
}

impl TraceDat {
    /// True when an option `id` is present.
    pub fn has_option(&self, id: u16) -> bool {
        self.options.iter().any(|o| o.id == id)
    }

    /// The UNAME option text (`sysname nodename release machine`).
    pub fn uname(&self) -> Option<&str> {
        self.options.iter().find_map(|o| match (o.id, &o.value) {
            (opt_id::UNAME, OptValue::Str(s)) => Some(s.as_str()),
            _ => None,
        })
    }

    /// The kernel release from the UNAME option (`4.13.9` of `Linux host 4.13.9 i686`).
    pub fn kernel_release(&self) -> Option<&str> {
        self.uname()?.split_whitespace().nth(2)
    }

    /// The writer, as the file records it: the VERSION option (trace-cmd 2.8 and later), else
    /// the version range its options and layout imply.
    pub fn producer(&self) -> String {
        if let Some(v) = self.writer_version() {
            let v = v.split_whitespace().next().unwrap_or(v);
            return format!("trace-cmd {v}");
        }
        if self.header.version == 7 {
            return "trace-cmd 3.x (no VERSION option)".to_string();
        }
        if !self.options_section {
            return "trace-cmd before 1.0 (no options section)".to_string();
        }
        let empty_clock = self
            .options
            .iter()
            .any(|o| o.id == opt_id::TRACECLOCK && o.size == 0);
        match (empty_clock, self.has_option(opt_id::UNAME)) {
            (true, true) => "trace-cmd 2.5–2.7 (UNAME but no VERSION option)".to_string(),
            (true, false) => "trace-cmd 2.2.1–2.4 (empty TRACECLOCK, no UNAME)".to_string(),
            (false, _) if !self.has_option(opt_id::TRACECLOCK) => {
                "trace-cmd 1.0–2.2.0 (no TRACECLOCK option)".to_string()
            }
            _ => "an unknown trace-cmd version (no VERSION option)".to_string(),
        }
    }
}

/// Kernel release `a.b` as a pair, when it starts with two numbers.
pub fn kernel_major_minor(release: &str) -> Option<(u32, u32)> {
    let mut it = release.split(|c: char| !c.is_ascii_digit());
    let a = it.next()?.parse().ok()?;
    let b = it.next()?.parse().ok()?;
    Some((a, b))
}

/// The bracketed token of a trace_clock text.
pub fn selected_clock(s: &str) -> Option<String> {
    let start = s.find('[')?;
    let rest = s.get(start.saturating_add(1)..)?;
    let end = rest.find(']')?;
    rest.get(..end).map(str::to_string)
}
