//! The decoded model of a ktrace / kdebug file: every structure with its byte span.
//!
//! Events are not stored (a trace may hold hundreds of millions); the model keeps the spans of
//! the event arrays ([`EventRun`]) and [`super::decode::events`] walks them.

use crate::reader::{self, LittleEndian};
use std::ops::Range;

/// Magic of a V3 chunked file.
pub const MAGIC_V3: u32 = 0x55aa_0300;
/// Kernel spelling of the V3 header tag (`RAW_VERSION3`).
pub const MAGIC_V3_KERNEL: u32 = 0x0000_1000;
/// Magic of RAW_VERSION2 (kperf / Instruments).
pub const MAGIC_V2: u32 = 0x55aa_0200;
/// Magic of RAW_VERSION1 (and V1+ with a CPU map).
pub const MAGIC_V1: u32 = 0x55aa_0101;
/// `RAW_VERSION0`, never written as a magic.
pub const RAW_VERSION0: u32 = 0x55aa_0000;

/// `hw.model` string (header sub-chunk).
pub const TAG_HW_MODEL: u32 = 0x1a00;
/// `V3_CONFIG` (defined, never written by xnu).
pub const TAG_CONFIG: u32 = 0x1b00;
/// `V3_CPU_MAP`.
pub const TAG_CPU_MAP: u32 = 0x1c00;
/// `V3_THREAD_MAP`.
pub const TAG_THREAD_MAP: u32 = 0x1d00;
/// `V3_RAW_EVENTS`.
pub const TAG_EVENTS: u32 = 0x1e00;
/// Compressed events (kperfdata).
pub const TAG_COMPRESSED_EVENTS: u32 = 0x1f00;
/// `V3_NULL_CHUNK`.
pub const TAG_NULL: u32 = 0x2000;
/// Machine description (bplist), a header chunk in `savekdebugtrace` files.
pub const TAG_MACHINE: u32 = 0x8c00;

/// Size of a 64-bit `kd_buf`.
pub const EVENT_SIZE_64: u64 = 64;
/// Size of a 32-bit `kd_buf`.
pub const EVENT_SIZE_32: u64 = 32;
/// Size of a 64-bit `kd_threadmap`.
pub const THREAD_SIZE_64: u64 = 32;
/// Size of a 32-bit `kd_threadmap`.
pub const THREAD_SIZE_32: u64 = 28;
/// Size of a `kd_cpumap` entry.
pub const CPU_SIZE: u64 = 16;
/// Size of a `kd_cpumap_ext` entry.
pub const CPU_EXT_SIZE: u64 = 40;
/// `KDBG_CPUMAP_IS_IOP`.
pub const CPU_FLAG_IOP: u32 = 1;
/// Raw formats align the events to this.
pub const RAW_EVENT_ALIGN: u64 = 4096;

/// Which layout the file uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    /// Headerless V0 (only by explicit hint).
    V0,
    /// RAW_VERSION1 without a CPU map.
    V1,
    /// RAW_VERSION1 with a CPU map in the padding ("V1+").
    V1Plus,
    /// RAW_VERSION2 (288-byte header).
    V2,
    /// V3 chunked with the libktrace magic `0x55aa0300`.
    V3,
    /// V3 chunked with the kernel magic `0x00001000`.
    V3Kernel,
}

impl Version {
    /// Display name.
    pub fn name(self) -> &'static str {
        match self {
            Version::V0 => "raw V0",
            Version::V1 => "raw V1",
            Version::V1Plus => "raw V1+ (with CPU map)",
            Version::V2 => "raw V2",
            Version::V3 => "V3 (libktrace magic 0x55aa0300)",
            Version::V3Kernel => "V3 (kernel magic 0x00001000)",
        }
    }
}

/// Header of a raw (V0/V1/V2) file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawHeader {
    /// Span of the header.
    pub span: Range<u64>,
    /// First word (magic, or the thread count for V0).
    pub version_no: u32,
    /// Declared thread count.
    pub thread_count: u32,
    /// Wall-clock seconds at write (V1/V2).
    pub tod_secs: u64,
    /// Wall-clock microseconds at write (V1/V2).
    pub tod_usecs: u32,
    /// V1: the 4 bytes of tail padding; V2: the flags word.
    pub pad_or_flags: u32,
    /// V2: tick frequency in Hz.
    pub tick_frequency: u64,
}

/// The fixed part of a V3 file header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct V3Header {
    /// Span of the 56 fixed bytes.
    pub span: Range<u64>,
    /// Magic / tag.
    pub magic: u32,
    /// Major version.
    pub major: u16,
    /// Minor version.
    pub minor: u16,
    /// Header size (bytes after the first 16).
    pub header_size: u64,
    /// Timebase numerator.
    pub numer: u32,
    /// Timebase denominator.
    pub denom: u32,
    /// Trace start timestamp.
    pub start_timestamp: u64,
    /// Walltime seconds.
    pub walltime_secs: u64,
    /// Walltime microseconds.
    pub walltime_usecs: u32,
    /// Minutes west of GMT.
    pub minutes_west: u32,
    /// DST flag.
    pub dst: u32,
    /// Flags (bit 0 = 64-bit).
    pub flags: u32,
}

/// One V3 chunk header and where its data is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Offset of the 16-byte header.
    pub offset: u64,
    /// Tag.
    pub tag: u32,
    /// Major version.
    pub major: u16,
    /// Minor version.
    pub minor: u16,
    /// Length field as written.
    pub length: u64,
    /// Data actually covered (clamped to the file; quirk-adjusted for event chunks).
    pub data: Range<u64>,
    /// True for header sub-chunks.
    pub in_header: bool,
}

/// A run of body chunks whose 16-byte headers are all zero (tag 0, version 0.0, length 0), one
/// after the other from `offset`: to a reader each is an empty chunk of an unknown tag, and a
/// file padded with zeros holds millions of them, so they are kept as one entry. The first
/// chunk of tag 0 is always a [`Chunk`] of its own (it is the one reported).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZeroChunks {
    /// Offset of the first header of the run.
    pub offset: u64,
    /// Headers in the run.
    pub count: u64,
}

impl ZeroChunks {
    /// The bytes the run covers.
    pub fn span(&self) -> Range<u64> {
        self.offset..self.offset.saturating_add(self.count.saturating_mul(16))
    }
}

/// One `kd_threadmap` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadEntry {
    /// Offset of the entry.
    pub offset: u64,
    /// Thread id.
    pub thread: u64,
    /// pid (`valid` field).
    pub pid: i32,
    /// Process name bytes, NUL padded.
    pub command: [u8; 20],
}

impl ThreadEntry {
    /// True for the kernel's all-zero padding entries.
    pub fn is_zero(&self) -> bool {
        self.thread == 0 && self.pid == 0 && self.command.iter().all(|&b| b == 0)
    }
}

/// One CPU map entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuEntry {
    /// Offset of the entry.
    pub offset: u64,
    /// CPU id.
    pub cpu_id: u32,
    /// Flags.
    pub flags: u32,
    /// Name bytes (8 for `kd_cpumap`, 32 for `kd_cpumap_ext`; the rest zero).
    pub name: [u8; 32],
    /// Width of the name field in the file (8 or 32).
    pub name_width: u8,
}

/// Layout of a CPU map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuMapKind {
    /// V3 bare `kd_cpumap[n]`.
    Bare,
    /// V3 `kd_cpumap_header` + `kd_cpumap_ext[n]`.
    Ext,
    /// V1+ `kd_cpumap_header` + `kd_cpumap[n]`.
    Raw,
}

/// A CPU map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuMap {
    /// Span of the whole map (with its header, if any).
    pub span: Range<u64>,
    /// Layout.
    pub kind: CpuMapKind,
    /// Entries.
    pub entries: Vec<CpuEntry>,
}

/// A contiguous array of whole events.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventRun {
    /// Span of the events (a multiple of the event size).
    pub span: Range<u64>,
    /// V3: offset and value of the chunk's 8-byte "future events" timestamp.
    pub future_timestamp: Option<(u64, u64)>,
}

/// One decoded event.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Event {
    /// Timestamp (32-bit files: the low 56 bits).
    pub timestamp: u64,
    /// arg1..arg4.
    pub args: [u64; 4],
    /// arg5: thread id.
    pub thread: u64,
    /// debugid.
    pub debugid: u32,
    /// CPU number (32-bit files: bits 56..63 of the timestamp).
    pub cpuid: u32,
    /// The trailing unused field (0 for 32-bit files).
    pub unused: u64,
}

impl Event {
    /// Decodes a 64-bit `kd_buf`.
    #[inline(always)]
    pub fn from_64(e: &[u8; 64]) -> Event {
        Event {
            timestamp: u64_at(e, 0),
            args: [u64_at(e, 8), u64_at(e, 16), u64_at(e, 24), u64_at(e, 32)],
            thread: u64_at(e, 40),
            debugid: u32_at(e, 48),
            cpuid: u32_at(e, 52),
            unused: u64_at(e, 56),
        }
    }

    /// Decodes a 32-bit `kd_buf`.
    #[inline(always)]
    pub fn from_32(e: &[u8; 32]) -> Event {
        let raw = u64_at(e, 0);
        Event {
            timestamp: raw & 0x00ff_ffff_ffff_ffff,
            args: [
                u64::from(u32_at(e, 8)),
                u64::from(u32_at(e, 12)),
                u64::from(u32_at(e, 16)),
                u64::from(u32_at(e, 20)),
            ],
            thread: u64::from(u32_at(e, 24)),
            debugid: u32_at(e, 28),
            cpuid: u32::from(raw.to_le_bytes()[7]),
            unused: 0,
        }
    }
}

/// The little-endian `u64` at byte `o` of an event record (0 past its end).
#[inline(always)]
fn u64_at<const N: usize>(e: &[u8; N], o: usize) -> u64 {
    reader::u64_at(e, o, LittleEndian).unwrap_or(0)
}

/// The little-endian `u32` at byte `o` of an event record (0 past its end).
#[inline(always)]
fn u32_at<const N: usize>(e: &[u8; N], o: usize) -> u32 {
    reader::u32_at(e, o, LittleEndian).unwrap_or(0)
}

/// A decoded file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// Layout.
    pub version: Version,
    /// File size.
    pub size: u64,
    /// 64-bit records (false: 32-bit `kd_buf` and 28-byte thread entries).
    pub wide: bool,
    /// Raw header (V0/V1/V2).
    pub raw_header: Option<RawHeader>,
    /// V3 header.
    pub v3_header: Option<V3Header>,
    /// V3 chunks, header sub-chunks first, in file order, except those in `zero_chunks`.
    pub chunks: Vec<Chunk>,
    /// Runs of all-zero chunk headers in the body, in file order.
    pub zero_chunks: Vec<ZeroChunks>,
    /// Span of each thread map (one for raw files; one per chunk for V3).
    pub thread_maps: Vec<Range<u64>>,
    /// Thread entries of all thread maps, in file order.
    pub threads: Vec<ThreadEntry>,
    /// The CPU map, if any (the first one for V3).
    pub cpu_map: Option<CpuMap>,
    /// Event arrays.
    pub event_runs: Vec<EventRun>,
}

impl Trace {
    /// Chunks read, those of the zero runs included.
    pub fn chunk_count(&self) -> u64 {
        self.zero_chunks
            .iter()
            .fold(self.chunks.len() as u64, |n, z| n.saturating_add(z.count))
    }

    /// Every chunk in file order, those of the zero runs included (for tests and tools: a
    /// zero-padded file yields millions).
    pub fn all_chunks(&self) -> Vec<Chunk> {
        let zeros = self.zero_chunks.iter().flat_map(|z| {
            (0..z.count).map(move |i| {
                let offset = z.offset.saturating_add(i.saturating_mul(16));
                let data = offset.saturating_add(16);
                Chunk {
                    offset,
                    tag: 0,
                    major: 0,
                    minor: 0,
                    length: 0,
                    data: data..data,
                    in_header: false,
                }
            })
        });
        let mut all: Vec<Chunk> = self.chunks.iter().cloned().chain(zeros).collect();
        all.sort_by_key(|c| (!c.in_header, c.offset));
        all
    }

    /// Size of one event record.
    pub fn event_size(&self) -> u64 {
        if self.wide {
            EVENT_SIZE_64
        } else {
            EVENT_SIZE_32
        }
    }

    /// Which writer the file's layout points to (see docs/ktrace.md, writer history): the raw
    /// version, the V3 magic and the header sub-chunks each writer emits.
    pub fn writer(&self) -> &'static str {
        let header_tag = |tag: u32| self.chunks.iter().any(|c| c.in_header && c.tag == tag);
        match self.version {
            Version::V0 => "xnu-1504 or older kernel (Mac OS X 10.6 and earlier, kdbg_readmap)",
            Version::V1 => {
                "xnu kernel KERN_KDWRITEMAP without CPU map (xnu-1699 to 2050, OS X 10.7-10.8), or kdprof's writer"
            }
            Version::V1Plus => {
                "xnu-2422 or later kernel (OS X 10.9+) KERN_KDWRITEMAP with CPU map (trace -L/-l, boot/shutdown dumps)"
            }
            Version::V2 => "kperf / Instruments (CoreProfileSessionTap stream)",
            Version::V3Kernel => {
                "xnu-3248 to 8020 kernel (macOS 10.11-12) KERN_KDWRITEMAP_V3/KERN_KDWRITETR_V3"
            }
            Version::V3 if header_tag(TAG_MACHINE) => "xnu lldbmacros savekdebugtrace",
            Version::V3 if header_tag(TAG_HW_MODEL) => "kperfdata (hw.model header chunk)",
            Version::V3 => "libktrace (ktrace artrace/dump) or kperfdata",
        }
    }

    /// Total number of events.
    pub fn event_count(&self) -> u64 {
        let size = self.event_size();
        self.event_runs
            .iter()
            .map(|r| {
                r.span
                    .end
                    .saturating_sub(r.span.start)
                    .checked_div(size)
                    .unwrap_or(0)
            })
            .fold(0u64, u64::saturating_add)
    }
}

/// Name of a known tag, if any.
pub fn tag_name(tag: u32) -> Option<&'static str> {
    Some(match tag {
        MAGIC_V3_KERNEL => "V3 file header (kernel)",
        MAGIC_V3 => "V3 file header",
        TAG_HW_MODEL => "hw.model",
        TAG_CONFIG => "config",
        TAG_CPU_MAP => "CPU map",
        TAG_THREAD_MAP => "thread map",
        TAG_EVENTS => "events",
        TAG_COMPRESSED_EVENTS => "compressed events",
        TAG_NULL => "null",
        TAG_MACHINE => "machine",
        0x8001 => "dyld modules",
        0x8002 => "stackshot",
        0x8004 => "images",
        0x8005 => "kexts",
        0x8006 => "ktrace config",
        0x8008 => "kernel info",
        0x800e | 0x8013 | 0x8c01 => "CPU events",
        0x800f => "trace codes",
        0x8010 => "processes",
        0x8011 => "os_log events",
        0x8012 => "os_log strings",
        0x8016 => "statistics",
        0x0001_2001 => "mach syscalls",
        0x0001_000a => "CPU trace",
        _ => return None,
    })
}
