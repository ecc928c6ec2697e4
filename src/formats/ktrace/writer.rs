//! Writes ktrace / kdebug files from a model: V3 (both magics), raw V1, V1+ (CPU map in the
//! padding), V2 and V0, with a knob for every defect the validator knows. Used by the tests, the
//! corpus generator (`examples/gen_ktrace.rs`), the benchmark and the fuzz targets.
//!
//! Offsets written are computed from the model unless a knob overrides them; writing never
//! fails and never allocates more than the model's own size plus bounded padding.
// The writer works on models, not on file data: its arithmetic is on in-memory sizes, and the
// casts narrow model values into the fixed-width fields the format defines.
#![allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::indexing_slicing
)]

use super::model::{
    Event, Trace, Version, CPU_FLAG_IOP, MAGIC_V1, MAGIC_V2, MAGIC_V3, MAGIC_V3_KERNEL,
    TAG_CPU_MAP, TAG_EVENTS, TAG_THREAD_MAP,
};
use std::io::{self, Write};

/// Largest gap a knob may ask for (keeps fuzz-made models small).
const MAX_GAP: u64 = 1 << 20;

/// One thread map entry.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    /// Thread id.
    pub thread: u64,
    /// pid (1 = kernel_task).
    pub pid: i32,
    /// Process name, NUL padded.
    pub command: [u8; 20],
}

impl Thread {
    /// An entry with `name` (truncated to 19 bytes) NUL-terminated and zero padded.
    pub fn new(thread: u64, pid: i32, name: &str) -> Self {
        let mut command = [0u8; 20];
        for (d, s) in command.iter_mut().take(19).zip(name.bytes()) {
            *d = s;
        }
        Thread {
            thread,
            pid,
            command,
        }
    }
}

/// One CPU map entry.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cpu {
    /// CPU id.
    pub cpu_id: u32,
    /// Flags (`1` = IOP).
    pub flags: u32,
    /// Name: the first 8 bytes are written for `kd_cpumap`, all 32 for `kd_cpumap_ext`.
    pub name: [u8; 32],
}

impl Cpu {
    /// An application processor named "AP" (the kernel's naming).
    pub fn ap(cpu_id: u32) -> Self {
        Cpu::named(cpu_id, 0, "AP")
    }

    /// A coprocessor entry.
    pub fn iop(cpu_id: u32, name: &str) -> Self {
        Cpu::named(cpu_id, CPU_FLAG_IOP, name)
    }

    /// An entry with `name` (truncated to 7 bytes).
    pub fn named(cpu_id: u32, flags: u32, name: &str) -> Self {
        let mut n = [0u8; 32];
        for (d, s) in n.iter_mut().take(7).zip(name.bytes()) {
            *d = s;
        }
        Cpu {
            cpu_id,
            flags,
            name: n,
        }
    }
}

/// V3 magic.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum V3Magic {
    /// `0x55aa0300` (libktrace, man page).
    Libktrace,
    /// `0x00001000` (kernel `RAW_VERSION3`).
    Kernel,
}

/// The fixed V3 header fields.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct V3Header {
    /// Magic.
    pub magic: V3Magic,
    /// Major version.
    pub major: u16,
    /// Minor version.
    pub minor: u16,
    /// Header size; `None` = 40 + the header chunks as written.
    pub header_size: Option<u64>,
    /// Timebase numerator.
    pub numer: u32,
    /// Timebase denominator.
    pub denom: u32,
    /// Start timestamp.
    pub start_timestamp: u64,
    /// Walltime seconds.
    pub walltime_secs: u64,
    /// Walltime microseconds.
    pub walltime_usecs: u32,
    /// Minutes west of GMT.
    pub minutes_west: u32,
    /// DST.
    pub dst: u32,
    /// Flags (bit 0 = 64-bit).
    pub flags: u32,
}

impl V3Header {
    /// A header as the writer of `magic` makes it (version 0.0 or 1.0, timebase 125/3,
    /// 64-bit).
    pub fn new(magic: V3Magic) -> Self {
        V3Header {
            magic,
            major: if magic == V3Magic::Kernel { 1 } else { 0 },
            minor: 0,
            header_size: None,
            numer: 125,
            denom: 3,
            start_timestamp: 0,
            walltime_secs: 0,
            walltime_usecs: 0,
            minutes_west: 0,
            dst: 0,
            flags: 1,
        }
    }
}

/// A chunk's payload.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Payload {
    /// Bare `kd_cpumap[n]` (16 bytes each).
    CpuMap(Vec<Cpu>),
    /// `kd_cpumap_header { 1, n }` + `kd_cpumap_ext[n]` (40 bytes each).
    CpuMapExt(Vec<Cpu>),
    /// `kd_threadmap[n]`.
    ThreadMap(Vec<Thread>),
    /// 8-byte "future events" timestamp + `kd_buf[n]`.
    Events {
        /// The leading timestamp.
        future_timestamp: u64,
        /// The events.
        events: Vec<Event>,
    },
    /// Raw bytes.
    Bytes(Vec<u8>),
}

/// How a chunk's length field is written.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthMode {
    /// The payload size.
    Exact,
    /// The payload size minus 8 (the macOS 13+ kernel's event chunk length).
    OmitEventTimestamp,
    /// `0xFFFFFFFFFFFFFFFF` (unfinalized writer).
    Unfinalized,
    /// This value.
    Value(u64),
}

/// Padding after a chunk's data.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadMode {
    /// Zero bytes up to the next 8-byte boundary.
    Zero,
    /// This byte up to the next 8-byte boundary.
    Byte(u8),
    /// No padding (misaligns the next chunk, or ends the file unpadded).
    Omit,
}

/// One V3 chunk.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Tag.
    pub tag: u32,
    /// Major version.
    pub major: u16,
    /// Minor version.
    pub minor: u16,
    /// Payload.
    pub payload: Payload,
    /// Length field.
    pub length: LengthMode,
    /// Padding.
    pub pad: PadMode,
}

impl Chunk {
    /// A chunk with an exact length and zero padding.
    pub fn new(tag: u32, major: u16, payload: Payload) -> Self {
        Chunk {
            tag,
            major,
            minor: 0,
            payload,
            length: LengthMode::Exact,
            pad: PadMode::Zero,
        }
    }

    /// A CPU map chunk.
    pub fn cpu_map(major: u16, cpus: Vec<Cpu>) -> Self {
        Chunk::new(TAG_CPU_MAP, major, Payload::CpuMap(cpus))
    }

    /// A thread map chunk.
    pub fn thread_map(major: u16, threads: Vec<Thread>) -> Self {
        Chunk::new(TAG_THREAD_MAP, major, Payload::ThreadMap(threads))
    }

    /// An event chunk with future timestamp 0.
    pub fn events(major: u16, events: Vec<Event>) -> Self {
        Chunk::new(
            TAG_EVENTS,
            major,
            Payload::Events {
                future_timestamp: 0,
                events,
            },
        )
    }
}

/// A V3 file.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct V3File {
    /// Fixed header.
    pub header: V3Header,
    /// Header sub-chunks.
    pub header_chunks: Vec<Chunk>,
    /// Body chunks.
    pub body: Vec<Chunk>,
    /// Bytes appended after the last chunk.
    pub trailing: Vec<u8>,
}

/// Raw layout.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawVersion {
    /// Headerless V0.
    V0,
    /// RAW_VERSION1 (V1+ when [`RawFile::cpus`] is set).
    V1,
    /// RAW_VERSION2.
    V2,
}

/// A raw (V0, V1, V1+, V2) file.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawFile {
    /// Layout.
    pub version: RawVersion,
    /// Thread count written; `None` = threads + extra zero entries.
    pub thread_count: Option<u32>,
    /// Wall-clock seconds.
    pub tod_secs: u64,
    /// Wall-clock microseconds.
    pub tod_usecs: u32,
    /// V1: the 4 tail padding bytes of `RAW_header` (0 when valid).
    pub header_pad: u32,
    /// V2: flags (1 = 64-bit; 0 writes 32-bit events and 28-byte thread entries).
    pub v2_flags: u32,
    /// V2: tick frequency.
    pub tick_frequency: u64,
    /// V2: byte the 256 reserved bytes are filled with (0 when valid).
    pub v2_reserved_byte: u8,
    /// Thread entries.
    pub threads: Vec<Thread>,
    /// All-zero entries appended after the threads (the kernel's padding entries).
    pub extra_zero_threads: u8,
    /// V1+: the CPU map written after the thread map.
    pub cpus: Option<Vec<Cpu>>,
    /// V1+: CPU count written; `None` = `cpus.len()`.
    pub cpu_count: Option<u32>,
    /// Byte the gap before the events is filled with (0 when valid).
    pub gap_byte: u8,
    /// Where the events start, as a distance after the maps; `None` = the next 4 KiB boundary.
    pub events_gap: Option<u16>,
    /// Events.
    pub events: Vec<Event>,
    /// Bytes appended after the events.
    pub trailing: Vec<u8>,
}

impl RawFile {
    /// A valid file of `version` with the given threads and events. Fields the version does
    /// not have are 0 (1 for `v2_flags`), as [`model_from_trace`] returns them.
    pub fn new(version: RawVersion, threads: Vec<Thread>, events: Vec<Event>) -> Self {
        let has_tod = version != RawVersion::V0;
        RawFile {
            version,
            thread_count: None,
            tod_secs: if has_tod { 1_700_000_000 } else { 0 },
            tod_usecs: if has_tod { 123_456 } else { 0 },
            header_pad: 0,
            v2_flags: 1,
            tick_frequency: if version == RawVersion::V2 {
                24_000_000
            } else {
                0
            },
            v2_reserved_byte: 0,
            threads,
            extra_zero_threads: 0,
            cpus: None,
            cpu_count: None,
            gap_byte: 0,
            events_gap: None,
            events,
            trailing: Vec::new(),
        }
    }
}

/// Any file.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum File {
    /// V3 chunked.
    V3(V3File),
    /// Raw.
    Raw(RawFile),
}

/// Writes `f` to bytes.
pub fn write(f: &File) -> Vec<u8> {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = write_to(f, &mut out);
    out
}

/// Writes `f` to `w`.
pub fn write_to(f: &File, w: &mut dyn Write) -> io::Result<()> {
    match f {
        File::V3(v) => {
            w.write_all(&v3_header_bytes(&v.header, &v.header_chunks))?;
            let wide = v.header.flags & 1 != 0;
            for c in &v.body {
                w.write_all(&chunk_bytes(c, wide))?;
            }
            w.write_all(&v.trailing)
        }
        File::Raw(r) => w.write_all(&raw_bytes(r)),
    }
}

/// Encodes one event (64-bit `kd_buf`, or the 32-bit layout with the CPU in the top byte of
/// the timestamp).
pub fn put_event(out: &mut Vec<u8>, e: &Event, wide: bool) {
    if wide {
        out.extend_from_slice(&e.timestamp.to_le_bytes());
        for a in e.args {
            out.extend_from_slice(&a.to_le_bytes());
        }
        out.extend_from_slice(&e.thread.to_le_bytes());
        out.extend_from_slice(&e.debugid.to_le_bytes());
        out.extend_from_slice(&e.cpuid.to_le_bytes());
        out.extend_from_slice(&e.unused.to_le_bytes());
    } else {
        let ts = (e.timestamp & 0x00ff_ffff_ffff_ffff) | (u64::from(e.cpuid & 0xff) << 56);
        out.extend_from_slice(&ts.to_le_bytes());
        for a in e.args {
            out.extend_from_slice(&(a as u32).to_le_bytes());
        }
        out.extend_from_slice(&(e.thread as u32).to_le_bytes());
        out.extend_from_slice(&e.debugid.to_le_bytes());
    }
}

fn put_thread(out: &mut Vec<u8>, t: &Thread, wide: bool) {
    if wide {
        out.extend_from_slice(&t.thread.to_le_bytes());
    } else {
        out.extend_from_slice(&(t.thread as u32).to_le_bytes());
    }
    out.extend_from_slice(&t.pid.to_le_bytes());
    out.extend_from_slice(&t.command);
}

fn put_cpu(out: &mut Vec<u8>, c: &Cpu, ext: bool) {
    out.extend_from_slice(&c.cpu_id.to_le_bytes());
    out.extend_from_slice(&c.flags.to_le_bytes());
    let n = if ext { 32 } else { 8 };
    out.extend(c.name.iter().take(n));
}

fn payload_bytes(p: &Payload, wide: bool) -> Vec<u8> {
    let mut out = Vec::new();
    match p {
        Payload::CpuMap(cpus) => cpus.iter().for_each(|c| put_cpu(&mut out, c, false)),
        Payload::CpuMapExt(cpus) => {
            out.extend_from_slice(&1u32.to_le_bytes());
            out.extend_from_slice(&(cpus.len() as u32).to_le_bytes());
            cpus.iter().for_each(|c| put_cpu(&mut out, c, true));
        }
        Payload::ThreadMap(ts) => ts.iter().for_each(|t| put_thread(&mut out, t, wide)),
        Payload::Events {
            future_timestamp,
            events,
        } => {
            out.reserve(events.len().saturating_mul(64).saturating_add(8));
            out.extend_from_slice(&future_timestamp.to_le_bytes());
            events.iter().for_each(|e| put_event(&mut out, e, wide));
        }
        Payload::Bytes(b) => out.extend_from_slice(b),
    }
    out
}

/// The bytes of one chunk (header, payload, padding). `wide` selects 64-bit records.
pub fn chunk_bytes(c: &Chunk, wide: bool) -> Vec<u8> {
    let data = payload_bytes(&c.payload, wide);
    let n = data.len() as u64;
    let length = match c.length {
        LengthMode::Exact => n,
        LengthMode::OmitEventTimestamp => n.saturating_sub(8),
        LengthMode::Unfinalized => u64::MAX,
        LengthMode::Value(v) => v,
    };
    let mut out = Vec::with_capacity(data.len().saturating_add(24));
    out.extend_from_slice(&c.tag.to_le_bytes());
    out.extend_from_slice(&c.major.to_le_bytes());
    out.extend_from_slice(&c.minor.to_le_bytes());
    out.extend_from_slice(&length.to_le_bytes());
    out.extend_from_slice(&data);
    let pad = (8 - data.len() % 8) % 8;
    match c.pad {
        PadMode::Zero => out.extend(std::iter::repeat_n(0u8, pad)),
        PadMode::Byte(b) => out.extend(std::iter::repeat_n(b, pad)),
        PadMode::Omit => {}
    }
    out
}

/// The V3 file header with its sub-chunks. The header size counts the sub-chunks as written
/// (with padding), unless overridden.
pub fn v3_header_bytes(h: &V3Header, chunks: &[Chunk]) -> Vec<u8> {
    let wide = h.flags & 1 != 0;
    let mut subs = Vec::new();
    for c in chunks {
        subs.extend_from_slice(&chunk_bytes(c, wide));
    }
    let header_size = h.header_size.unwrap_or(40 + subs.len() as u64);
    let mut out = Vec::with_capacity(56 + subs.len());
    let magic = match h.magic {
        V3Magic::Libktrace => MAGIC_V3,
        V3Magic::Kernel => MAGIC_V3_KERNEL,
    };
    out.extend_from_slice(&magic.to_le_bytes());
    out.extend_from_slice(&h.major.to_le_bytes());
    out.extend_from_slice(&h.minor.to_le_bytes());
    out.extend_from_slice(&header_size.to_le_bytes());
    out.extend_from_slice(&h.numer.to_le_bytes());
    out.extend_from_slice(&h.denom.to_le_bytes());
    out.extend_from_slice(&h.start_timestamp.to_le_bytes());
    out.extend_from_slice(&h.walltime_secs.to_le_bytes());
    out.extend_from_slice(&h.walltime_usecs.to_le_bytes());
    out.extend_from_slice(&h.minutes_west.to_le_bytes());
    out.extend_from_slice(&h.dst.to_le_bytes());
    out.extend_from_slice(&h.flags.to_le_bytes());
    out.extend_from_slice(&subs);
    out
}

/// The bytes of a raw file.
pub fn raw_bytes(r: &RawFile) -> Vec<u8> {
    let wide = r.version != RawVersion::V2 || r.v2_flags != 0;
    let mut out = Vec::new();
    let tc = r
        .thread_count
        .unwrap_or((r.threads.len() as u32).saturating_add(u32::from(r.extra_zero_threads)));
    match r.version {
        RawVersion::V0 => out.extend_from_slice(&tc.to_le_bytes()),
        RawVersion::V1 => {
            out.extend_from_slice(&MAGIC_V1.to_le_bytes());
            out.extend_from_slice(&tc.to_le_bytes());
            out.extend_from_slice(&r.tod_secs.to_le_bytes());
            out.extend_from_slice(&r.tod_usecs.to_le_bytes());
            out.extend_from_slice(&r.header_pad.to_le_bytes());
        }
        RawVersion::V2 => {
            out.extend_from_slice(&MAGIC_V2.to_le_bytes());
            out.extend_from_slice(&tc.to_le_bytes());
            out.extend_from_slice(&r.tod_secs.to_le_bytes());
            out.extend_from_slice(&r.tod_usecs.to_le_bytes());
            out.extend_from_slice(&r.v2_flags.to_le_bytes());
            out.extend_from_slice(&r.tick_frequency.to_le_bytes());
            out.extend(std::iter::repeat_n(r.v2_reserved_byte, 256));
        }
    }
    for t in &r.threads {
        put_thread(&mut out, t, wide);
    }
    let zero = Thread {
        thread: 0,
        pid: 0,
        command: [0; 20],
    };
    for _ in 0..r.extra_zero_threads {
        put_thread(&mut out, &zero, wide);
    }
    let map_end = out.len() as u64;
    if r.version == RawVersion::V1 {
        if let Some(cpus) = &r.cpus {
            out.extend_from_slice(&MAGIC_V1.to_le_bytes());
            let n = r.cpu_count.unwrap_or(cpus.len() as u32);
            out.extend_from_slice(&n.to_le_bytes());
            cpus.iter().for_each(|c| put_cpu(&mut out, c, false));
        }
    }
    if r.version != RawVersion::V0 {
        let events_at = match r.events_gap {
            Some(g) => map_end + u64::from(g),
            None => (map_end + 4095) & !4095,
        };
        let events_at = events_at.min(map_end + MAX_GAP);
        while (out.len() as u64) < events_at {
            out.push(r.gap_byte);
        }
        out.truncate(events_at as usize);
    }
    out.reserve(r.events.len().saturating_mul(64));
    for e in &r.events {
        put_event(&mut out, e, wide);
    }
    out.extend_from_slice(&r.trailing);
    out
}

/// Rebuilds a writer model from a decoded trace of `data` (for round-trip tests): chunk
/// payloads of known tags are decoded, others kept as bytes. Length and padding knobs come
/// out as `Exact`/`Zero` (or the event-length quirk when the decoder recognised it).
pub fn model_from_trace(data: &[u8], t: &Trace) -> Option<File> {
    let events = super::collect_events(data, t);
    match t.version {
        Version::V3 | Version::V3Kernel => {
            let h = t.v3_header.as_ref()?;
            let header = V3Header {
                magic: if h.magic == MAGIC_V3_KERNEL {
                    V3Magic::Kernel
                } else {
                    V3Magic::Libktrace
                },
                major: h.major,
                minor: h.minor,
                header_size: {
                    // The computed size unless the file says otherwise (savekdebugtrace omits
                    // the last sub-chunk's padding).
                    let computed = t
                        .chunks
                        .iter()
                        .filter(|c| c.in_header)
                        .map(|c| 16 + ((c.data.end - c.data.start + 7) & !7))
                        .sum::<u64>()
                        + 40;
                    (h.header_size != computed).then_some(h.header_size)
                },
                numer: h.numer,
                denom: h.denom,
                start_timestamp: h.start_timestamp,
                walltime_secs: h.walltime_secs,
                walltime_usecs: h.walltime_usecs,
                minutes_west: h.minutes_west,
                dst: h.dst,
                flags: h.flags,
            };
            let mut file = V3File {
                header,
                header_chunks: Vec::new(),
                body: Vec::new(),
                trailing: Vec::new(),
            };
            let es = t.event_size();
            let mut ev_iter = events.into_iter();
            // Only the first CPU map chunk of a known version is decoded (later ones are
            // reported and left alone): the others keep their bytes.
            let mut cpu_map_seen = false;
            for c in &t.all_chunks() {
                let bytes = data
                    .get(c.data.start as usize..c.data.end as usize)?
                    .to_vec();
                // Payloads of unknown major versions were not decoded: keep their bytes.
                let mut tag = if c.major <= 1 { c.tag } else { 0 };
                if tag == TAG_CPU_MAP {
                    if cpu_map_seen {
                        tag = 0;
                    }
                    cpu_map_seen = true;
                }
                let (payload, length) = match tag {
                    TAG_CPU_MAP => {
                        let m = t.cpu_map.as_ref()?;
                        let cpus: Vec<Cpu> = m
                            .entries
                            .iter()
                            .map(|e| Cpu {
                                cpu_id: e.cpu_id,
                                flags: e.flags,
                                name: e.name,
                            })
                            .collect();
                        if m.kind == super::model::CpuMapKind::Ext {
                            (Payload::CpuMapExt(cpus), LengthMode::Exact)
                        } else {
                            (Payload::CpuMap(cpus), LengthMode::Exact)
                        }
                    }
                    TAG_THREAD_MAP => {
                        // Threads are in file order: slice out this chunk's.
                        let lo = t.threads.partition_point(|x| x.offset < c.data.start);
                        let hi = t.threads.partition_point(|x| x.offset < c.data.end);
                        let ts = t.threads[lo..hi.max(lo)]
                            .iter()
                            .map(|x| Thread {
                                thread: x.thread,
                                pid: x.pid,
                                command: x.command,
                            })
                            .collect();
                        (Payload::ThreadMap(ts), LengthMode::Exact)
                    }
                    TAG_EVENTS => {
                        // Runs are in file order.
                        let i = t
                            .event_runs
                            .partition_point(|r| r.span.start < c.data.start);
                        let run = t
                            .event_runs
                            .get(i)
                            .filter(|r| r.future_timestamp.map(|f| f.0) == Some(c.data.start))?;
                        let n = (run.span.end - run.span.start) / es;
                        let evs: Vec<Event> = ev_iter.by_ref().take(n as usize).collect();
                        let quirk = c.length.saturating_add(16) < c.data.end - c.offset;
                        (
                            Payload::Events {
                                future_timestamp: run.future_timestamp?.1,
                                events: evs,
                            },
                            if quirk {
                                LengthMode::OmitEventTimestamp
                            } else {
                                LengthMode::Exact
                            },
                        )
                    }
                    _ => (Payload::Bytes(bytes), LengthMode::Exact),
                };
                // Padding is optional at the end of the file, and a file may end inside it
                // (those bytes are kept as trailing bytes).
                let len = data.len() as u64;
                let unpadded_end =
                    c.data.end % 8 != 0 && c.data.end <= len && len < (c.data.end | 7) + 1;
                if unpadded_end {
                    file.trailing = data.get(c.data.end as usize..)?.to_vec();
                }
                let chunk = Chunk {
                    tag: c.tag,
                    major: c.major,
                    minor: c.minor,
                    payload,
                    length,
                    pad: if unpadded_end {
                        PadMode::Omit
                    } else {
                        PadMode::Zero
                    },
                };
                if c.in_header {
                    file.header_chunks.push(chunk);
                } else {
                    file.body.push(chunk);
                }
            }
            Some(File::V3(file))
        }
        v => {
            let h = t.raw_header.as_ref()?;
            let mut threads: Vec<Thread> = t
                .threads
                .iter()
                .map(|x| Thread {
                    thread: x.thread,
                    pid: x.pid,
                    command: x.command,
                })
                .collect();
            let mut extra = 0u8;
            while threads
                .last()
                .is_some_and(|x| x.thread == 0 && x.pid == 0 && x.command == [0; 20])
                && extra < u8::MAX
            {
                threads.pop();
                extra += 1;
            }
            let version = match v {
                Version::V0 => RawVersion::V0,
                Version::V2 => RawVersion::V2,
                _ => RawVersion::V1,
            };
            let cpus = t.cpu_map.as_ref().map(|m| {
                m.entries
                    .iter()
                    .map(|e| Cpu {
                        cpu_id: e.cpu_id,
                        flags: e.flags,
                        name: e.name,
                    })
                    .collect()
            });
            Some(File::Raw(RawFile {
                version,
                thread_count: None,
                tod_secs: h.tod_secs,
                tod_usecs: h.tod_usecs,
                header_pad: if v == Version::V2 { 0 } else { h.pad_or_flags },
                v2_flags: if v == Version::V2 { h.pad_or_flags } else { 1 },
                tick_frequency: h.tick_frequency,
                v2_reserved_byte: 0,
                threads,
                extra_zero_threads: extra,
                cpus,
                cpu_count: None,
                gap_byte: 0,
                events_gap: None,
                events,
                trailing: Vec::new(),
            }))
        }
    }
}

/// Events for generated files: `n` events over `ncpu` CPUs, timestamps rising by 10 per event,
/// threads taken round-robin from `threads`.
pub fn sample_events(n: u64, ncpu: u32, threads: &[u64]) -> Vec<Event> {
    (0..n)
        .map(|i| Event {
            timestamp: 1000 + i * 10,
            args: [i, i * 2, 0, 0xdead],
            thread: threads
                .get((i as usize) % threads.len().max(1))
                .copied()
                .unwrap_or(0),
            debugid: 0x0104_0000 | ((i as u32 % 4) << 2) | 1,
            cpuid: (i as u32) % ncpu.max(1),
            unused: 0,
        })
        .collect()
}

/// The thread entries of generated files.
pub fn sample_threads() -> Vec<Thread> {
    vec![
        Thread::new(0x101, 0, "kernel_task"),
        Thread::new(0x202, 42, "launchd"),
        Thread::new(0x303, 77, "a-very-long-process-name"),
    ]
}

/// A valid V3 file as written by libktrace (`Libktrace`, chunk versions 0.0) or the kernel
/// (`Kernel`, 1.0): CPU map header chunk, thread map, two event chunks.
pub fn sample_v3(magic: V3Magic) -> V3File {
    let major = if magic == V3Magic::Kernel { 1 } else { 0 };
    let tids = [0x101, 0x202, 0x303];
    let mut second = sample_events(5, 2, &[0x202]);
    for e in &mut second {
        e.timestamp += 1000;
    }
    V3File {
        header: V3Header::new(magic),
        header_chunks: vec![Chunk::cpu_map(major, (0..2).map(Cpu::ap).collect())],
        body: vec![
            Chunk::thread_map(major, sample_threads()),
            Chunk::events(major, sample_events(10, 2, &tids)),
            Chunk::events(major, second),
        ],
        trailing: Vec::new(),
    }
}

/// A valid raw file of `version` (3 threads, 20 events on 2 CPUs).
pub fn sample_raw(version: RawVersion) -> RawFile {
    RawFile::new(
        version,
        sample_threads(),
        sample_events(20, 2, &[0x101, 0x202, 0x303]),
    )
}

/// The generated corpus: valid files of every version, by file name.
pub fn sample_files() -> Vec<(&'static str, File)> {
    let mut v1plus = sample_raw(RawVersion::V1);
    v1plus.cpus = Some((0..2).map(Cpu::ap).collect());
    v1plus.extra_zero_threads = 3;
    let mut kernel_quirk = sample_v3(V3Magic::Kernel);
    for c in &mut kernel_quirk.body {
        if c.tag == TAG_EVENTS {
            c.length = LengthMode::OmitEventTimestamp;
        }
    }
    let mut v2_32 = sample_raw(RawVersion::V2);
    v2_32.v2_flags = 0;
    let mut lldb = sample_v3(V3Magic::Libktrace);
    // savekdebugtrace style: a machine header chunk whose padding is not counted.
    lldb.header_chunks = vec![Chunk::new(
        super::model::TAG_MACHINE,
        0,
        Payload::Bytes(b"bplist00 machine".iter().chain(b"!!!").copied().collect()),
    )];
    lldb.header.header_size = Some(40 + 16 + 19);
    lldb.body
        .push(Chunk::new(0x8002, 1, Payload::Bytes(vec![0x30; 21])));
    lldb.body.push(Chunk::new(
        super::model::TAG_NULL,
        0,
        Payload::Bytes(vec![0; 12]),
    ));
    vec![
        (
            "v3-libktrace.ktrace",
            File::V3(sample_v3(V3Magic::Libktrace)),
        ),
        ("v3-kernel.ktrace", File::V3(sample_v3(V3Magic::Kernel))),
        ("v3-kernel-length-quirk.ktrace", File::V3(kernel_quirk)),
        ("v3-lldbmacros-style.ktrace", File::V3(lldb)),
        ("v1.raw", File::Raw(sample_raw(RawVersion::V1))),
        ("v1plus.raw", File::Raw(v1plus)),
        ("v2.raw", File::Raw(sample_raw(RawVersion::V2))),
        ("v2-32bit.raw", File::Raw(v2_32)),
    ]
}
