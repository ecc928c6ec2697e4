//! Structural decoding: headers, maps, chunks and the spans of the event arrays. Reports the
//! findings that concern structure (sizes, offsets, padding, placement); entry-level semantics
//! live in [`super::lint`] and the event walk in [`self::events`].

use super::model::*;
use super::rules;
pub mod events;

use crate::finding::Sink;
use crate::input::ByteSource;
use crate::limits::Limits;
use crate::reader::Reader;
use std::ops::Range;

/// `x` rounded up to a multiple of `a` (a power of two); `None` on overflow.
pub fn round_up(x: u64, a: u64) -> Option<u64> {
    let mask = a.checked_sub(1)?;
    x.checked_add(mask).map(|v| v & !mask)
}

/// `a % b`, 0 when `b` is 0.
fn rem(a: u64, b: u64) -> u64 {
    a.checked_rem(b).unwrap_or(0)
}

/// `a / b`, 0 when `b` is 0.
fn div(a: u64, b: u64) -> u64 {
    a.checked_div(b).unwrap_or(0)
}

/// Decoding state.
struct Decoder<'s, S: ByteSource + ?Sized> {
    src: &'s S,
    size: u64,
    limits: &'s Limits,
    buf: Vec<u8>,
    trace: Trace,
    unknown_tags: Vec<u32>,
}

/// Decodes a file. `v0` selects the headerless V0 layout (explicit hint only).
pub fn decode<S: ByteSource + ?Sized>(
    src: &S,
    v0: bool,
    limits: &Limits,
    sink: &mut Sink,
) -> Trace {
    let size = src.len();
    let mut d = Decoder {
        src,
        size,
        limits,
        buf: Vec::new(),
        trace: Trace {
            version: Version::V0,
            size,
            wide: true,
            raw_header: None,
            v3_header: None,
            chunks: Vec::new(),
            zero_chunks: Vec::new(),
            thread_maps: Vec::new(),
            threads: Vec::new(),
            cpu_map: None,
            event_runs: Vec::new(),
        },
        unknown_tags: Vec::new(),
    };
    let first = d.u32_at(0);
    if v0 {
        d.decode_v0(first, sink);
        return d.trace;
    }
    match first {
        Some(MAGIC_V1) => d.decode_v1(sink),
        Some(MAGIC_V2) => d.decode_v2(sink),
        Some(MAGIC_V3) | Some(MAGIC_V3_KERNEL) => d.decode_v3(sink),
        Some(w) => {
            let extra = if w == RAW_VERSION0 {
                " (0x55aa0000 is the RAW_VERSION0 constant, never written as a magic)"
            } else {
                ""
            };
            let f = sink
                .make(
                    &crate::rules::UNKNOWN_FORMAT,
                    0..4,
                    format!("first word 0x{w:08x} is not a ktrace magic{extra}"),
                )
                .help("expected 0x55aa0300 or 0x00001000 (V3), 0x55aa0200 (V2) or 0x55aa0101 (V1); use --format-hint ktrace-v0 for a headerless V0 file");
            sink.push(f);
        }
        None => {
            sink.report(
                &rules::TRUNCATED_HEADER,
                0..size,
                format!("the file has {size} bytes, fewer than the 4-byte magic"),
            );
        }
    }
    d.trace
}

impl<S: ByteSource + ?Sized> Decoder<'_, S> {
    fn bytes_reader(&mut self, range: Range<u64>, what: &'static str) -> Option<Reader<'_>> {
        self.src.read(range, &mut self.buf, what).ok()
    }

    fn u32_at(&mut self, off: u64) -> Option<u32> {
        let end = off.checked_add(4)?;
        self.bytes_reader(off..end, "u32")?.u32("u32").ok()
    }

    /// Span of the non-zero bytes in `range` (first..last+1), if any. Reads in windows.
    fn nonzero_span(&self, range: Range<u64>) -> Option<Range<u64>> {
        let mut first = None;
        let mut last = 0u64;
        let _ = self.src.windows(range, 1, &mut |r| {
            let base = r.base();
            let bytes = r.all_bytes();
            if let Some(i) = bytes.iter().position(|&b| b != 0) {
                if first.is_none() {
                    first = Some(base.saturating_add(i as u64));
                }
                if let Some(j) = bytes.iter().rposition(|&b| b != 0) {
                    last = base.saturating_add(j as u64).saturating_add(1);
                }
            }
        });
        first.map(|f| f..last.max(f))
    }

    fn check_zero(&self, range: Range<u64>, what: &str, sink: &mut Sink) {
        if range.start >= range.end {
            return;
        }
        if let Some(bad) = self.nonzero_span(range.clone()) {
            sink.report(
                &rules::NONZERO_PADDING,
                bad.clone(),
                format!(
                    "{what} at 0x{:x}..0x{:x} should be zero; non-zero bytes at 0x{:x}..0x{:x}",
                    range.start, range.end, bad.start, bad.end
                ),
            );
        }
    }

    /// Reads `count` thread entries starting at `start` (the caller checked they fit).
    fn read_threads(&mut self, start: u64, count: u64, sink: &mut Sink) {
        let es = if self.trace.wide {
            THREAD_SIZE_64
        } else {
            THREAD_SIZE_32
        };
        let total = (self.trace.threads.len() as u64).saturating_add(count);
        if total > self.limits.max_entries {
            sink.limit(
                start
                    ..start
                        .saturating_add(count.saturating_mul(es))
                        .min(self.size),
                "thread entries",
                total,
                "max_entries",
                self.limits.max_entries,
            );
            return;
        }
        let Some(end) = count.checked_mul(es).and_then(|l| start.checked_add(l)) else {
            return;
        };
        self.trace.thread_maps.push(start..end);
        if self
            .trace
            .threads
            .try_reserve(usize::try_from(count).unwrap_or(usize::MAX))
            .is_err()
        {
            sink.limit(start..end, "thread entries", count, "memory", 0);
            return;
        }
        let wide = self.trace.wide;
        let threads = &mut self.trace.threads;
        let res = self.src.windows(start..end, es, &mut |mut r| {
            while r.remaining() as u64 >= es {
                let offset = r.offset();
                let thread = if wide {
                    r.u64("thread id")
                } else {
                    r.u32("thread id").map(u64::from)
                };
                let pid = r.i32("pid");
                let command = r.array::<20>("command");
                if let (Ok(thread), Ok(pid), Ok(command)) = (thread, pid, command) {
                    threads.push(ThreadEntry {
                        offset,
                        thread,
                        pid,
                        command,
                    });
                }
            }
        });
        if let Err(e) = res {
            sink.read_error(&rules::THREADMAP_SIZE, &e);
        }
    }

    /// Reads `count` CPU entries of `entry` bytes (16 or 40) at `start` (the caller checked
    /// they fit).
    fn read_cpus(&mut self, start: u64, count: u64, entry: u64, sink: &mut Sink) -> Vec<CpuEntry> {
        let mut out = Vec::new();
        if count > self.limits.max_entries {
            sink.limit(
                start
                    ..start
                        .saturating_add(count.saturating_mul(entry))
                        .min(self.size),
                "CPU map entries",
                count,
                "max_entries",
                self.limits.max_entries,
            );
            return out;
        }
        let Some(end) = count.checked_mul(entry).and_then(|l| start.checked_add(l)) else {
            return out;
        };
        let res = self.src.windows(start..end, entry, &mut |mut r| {
            while r.remaining() as u64 >= entry {
                let offset = r.offset();
                let (Ok(cpu_id), Ok(flags)) = (r.u32("cpu id"), r.u32("cpu flags")) else {
                    break;
                };
                let mut name = [0u8; 32];
                let width = if entry == CPU_EXT_SIZE { 32 } else { 8 };
                if let (Ok(src), Some(dst)) = (r.bytes(width, "cpu name"), name.get_mut(..width)) {
                    dst.copy_from_slice(src);
                }
                out.push(CpuEntry {
                    offset,
                    cpu_id,
                    flags,
                    name,
                    name_width: if width == 32 { 32 } else { 8 },
                });
            }
        });
        if let Err(e) = res {
            sink.read_error(&rules::CPUMAP_SIZE, &e);
        }
        out
    }

    // ---------------------------------------------------------------- raw formats

    fn decode_v0(&mut self, first: Option<u32>, sink: &mut Sink) {
        self.trace.version = Version::V0;
        let Some(tc) = first else {
            sink.report(
                &rules::TRUNCATED_HEADER,
                0..self.size,
                format!(
                    "a V0 file starts with a 4-byte thread count; the file has {} bytes",
                    self.size
                ),
            );
            return;
        };
        let seen = match tc {
            MAGIC_V3 => {
                "; the first word is the V3 magic 0x55aa0300: this is probably not a V0 file"
            }
            MAGIC_V3_KERNEL => {
                "; the first word is the kernel V3 magic 0x00001000: this is probably not a V0 file"
            }
            MAGIC_V2 => {
                "; the first word is the V2 magic 0x55aa0200: this is probably not a V0 file"
            }
            MAGIC_V1 => {
                "; the first word is the V1 magic 0x55aa0101: this is probably not a V0 file"
            }
            RAW_VERSION0 => {
                "; the first word is the RAW_VERSION0 constant 0x55aa0000, which no writer emits"
            }
            _ => "; no ktrace magic was seen",
        };
        sink.report(
            &rules::V0_BY_HINT,
            0..4,
            format!(
                "checked as headerless V0 (thread count {tc}) because of the format hint{seen}"
            ),
        );
        self.trace.raw_header = Some(RawHeader {
            span: 0..4,
            version_no: tc,
            thread_count: tc,
            tod_secs: 0,
            tod_usecs: 0,
            pad_or_flags: 0,
            tick_frequency: 0,
        });
        let map_len = u64::from(tc).saturating_mul(THREAD_SIZE_64);
        let map_end = 4u64.saturating_add(map_len);
        if map_end > self.size {
            sink.report(
                &rules::THREADMAP_SIZE,
                0..4,
                format!(
                    "thread count {tc} needs {map_len} bytes of thread map at 0x4, only {} remain",
                    self.size.saturating_sub(4)
                ),
            );
            return;
        }
        self.read_threads(4, u64::from(tc), sink);
        // kperfdata reads V0 events at the next 4 KiB boundary instead of right after the map:
        // take that layout when the bytes up to the boundary are all zero and whole events
        // follow it.
        if let Some(aligned) = round_up(map_end, RAW_EVENT_ALIGN) {
            let es = self.trace.event_size();
            if aligned > map_end
                && aligned <= self.size
                && rem(self.size.saturating_sub(aligned), es) == 0
                && self.nonzero_span(map_end..aligned).is_none()
            {
                sink.report(
                    &rules::V0_BY_HINT,
                    map_end..aligned,
                    format!(
                        "the {} zero bytes after the thread map are read as padding: events start at the 4 KiB boundary 0x{aligned:x}, as kperfdata writes V0 (xnu writes them right after the map)",
                        aligned.saturating_sub(map_end)
                    ),
                );
                self.raw_events(aligned, sink);
                return;
            }
        }
        self.raw_events(map_end, sink);
    }

    fn decode_v1(&mut self, sink: &mut Sink) {
        self.trace.version = Version::V1;
        if self.size < 24 {
            sink.report(
                &rules::TRUNCATED_HEADER,
                0..self.size,
                format!(
                    "a V1 file starts with a 24-byte RAW_header; the file has {} bytes",
                    self.size
                ),
            );
            return;
        }
        let Some(mut r) = self.bytes_reader(0..24, "RAW_header") else {
            return;
        };
        let (Ok(version_no), Ok(tc), Ok(tod_secs), Ok(tod_usecs), Ok(pad)) = (
            r.u32("version"),
            r.u32("thread count"),
            r.u64("TOD secs"),
            r.u32("TOD usecs"),
            r.u32("padding"),
        ) else {
            return;
        };
        self.trace.raw_header = Some(RawHeader {
            span: 0..24,
            version_no,
            thread_count: tc,
            tod_secs,
            tod_usecs,
            pad_or_flags: pad,
            tick_frequency: 0,
        });
        if pad != 0 {
            sink.report(
                &rules::NONZERO_PADDING,
                20..24,
                format!("RAW_header tail padding at 0x14..0x18 should be zero, is 0x{pad:08x}"),
            );
        }
        let Some(map_end) = self.raw_thread_map(24, tc, sink) else {
            return;
        };
        let Some(events) = round_up(map_end, RAW_EVENT_ALIGN) else {
            return;
        };
        let gap_end = events.min(self.size);
        let mut zero_from = map_end;
        // V1+: a kd_cpumap_header with the V1 magic right after the thread map.
        if gap_end.saturating_sub(map_end) >= 8 && self.u32_at(map_end) == Some(MAGIC_V1) {
            self.trace.version = Version::V1Plus;
            let count = self
                .u32_at(map_end.saturating_add(4))
                .map(u64::from)
                .unwrap_or(0);
            let room = div(gap_end.saturating_sub(map_end).saturating_sub(8), CPU_SIZE);
            let span_end = map_end
                .saturating_add(8)
                .saturating_add(count.saturating_mul(CPU_SIZE));
            if count == 0 || count > room {
                sink.report(
                    &rules::CPUMAP_SIZE,
                    map_end.saturating_add(4)..map_end.saturating_add(8),
                    format!(
                        "V1+ CPU map at 0x{map_end:x} declares {count} CPUs; the gap before the events has room for {room} (at least 1 required)"
                    ),
                );
                zero_from = map_end.saturating_add(8);
                if count > 0 {
                    // The entries that fit are still read.
                    let entries = self.read_cpus(map_end.saturating_add(8), room, CPU_SIZE, sink);
                    zero_from = gap_end;
                    self.trace.cpu_map = Some(CpuMap {
                        span: map_end..gap_end,
                        kind: CpuMapKind::Raw,
                        entries,
                    });
                }
            } else {
                let entries = self.read_cpus(map_end.saturating_add(8), count, CPU_SIZE, sink);
                self.trace.cpu_map = Some(CpuMap {
                    span: map_end..span_end,
                    kind: CpuMapKind::Raw,
                    entries,
                });
                zero_from = span_end;
            }
        }
        self.check_zero(zero_from..gap_end, "padding before the events", sink);
        self.raw_events_aligned(map_end, events, sink);
    }

    fn decode_v2(&mut self, sink: &mut Sink) {
        self.trace.version = Version::V2;
        if self.size < 288 {
            sink.report(
                &rules::TRUNCATED_HEADER,
                0..self.size,
                format!(
                    "a V2 file starts with a 288-byte header; the file has {} bytes",
                    self.size
                ),
            );
            return;
        }
        let Some(mut r) = self.bytes_reader(0..32, "V2 header") else {
            return;
        };
        let (Ok(version_no), Ok(tc), Ok(tod_secs), Ok(tod_usecs), Ok(flags), Ok(freq)) = (
            r.u32("version"),
            r.u32("thread count"),
            r.u64("TOD secs"),
            r.u32("TOD usecs"),
            r.u32("flags"),
            r.u64("tick frequency"),
        ) else {
            return;
        };
        self.trace.raw_header = Some(RawHeader {
            span: 0..288,
            version_no,
            thread_count: tc,
            tod_secs,
            tod_usecs,
            pad_or_flags: flags,
            tick_frequency: freq,
        });
        self.trace.wide = flags != 0;
        if flags > 1 {
            sink.report(
                &rules::RESERVED_FLAGS,
                20..24,
                format!("V2 flags are 0x{flags:08x}; only 0 (32-bit) and 1 (64-bit) are defined (read as 64-bit)"),
            );
        }
        if freq == 0 {
            sink.report(
                &rules::V2_TICK_FREQUENCY,
                24..32,
                "V2 tick frequency is 0; timestamps cannot be converted to time",
            );
        }
        self.check_zero(32..288, "V2 reserved header bytes", sink);
        let Some(map_end) = self.raw_thread_map(288, tc, sink) else {
            return;
        };
        let Some(events) = round_up(map_end, RAW_EVENT_ALIGN) else {
            return;
        };
        self.check_zero(
            map_end..events.min(self.size),
            "padding before the events",
            sink,
        );
        self.raw_events_aligned(map_end, events, sink);
    }

    /// Checks and reads a raw thread map of `tc` entries at `start`; returns its end.
    fn raw_thread_map(&mut self, start: u64, tc: u32, sink: &mut Sink) -> Option<u64> {
        let es = if self.trace.wide {
            THREAD_SIZE_64
        } else {
            THREAD_SIZE_32
        };
        let map_len = u64::from(tc).saturating_mul(es);
        let map_end = start.saturating_add(map_len);
        if map_end > self.size {
            sink.report(
                &rules::THREADMAP_SIZE,
                4..8,
                format!(
                    "thread_count {tc} needs {map_len} bytes of thread map at 0x{start:x}, only {} remain",
                    self.size.saturating_sub(start)
                ),
            );
            return None;
        }
        self.read_threads(start, u64::from(tc), sink);
        Some(map_end)
    }

    fn raw_events_aligned(&mut self, map_end: u64, events: u64, sink: &mut Sink) {
        if events > self.size {
            sink.report(
                &rules::EVENTS_OFFSET,
                map_end..self.size,
                format!(
                    "events must start at the next 4 KiB boundary 0x{events:x} after the maps (end 0x{map_end:x}), but the file ends at 0x{:x}",
                    self.size
                ),
            );
            return;
        }
        self.raw_events(events, sink);
    }

    fn raw_events(&mut self, start: u64, sink: &mut Sink) {
        let es = self.trace.event_size();
        let len = self.size.saturating_sub(start);
        let tail = rem(len, es);
        let end = self.size.saturating_sub(tail);
        if tail != 0 {
            sink.report(
                &rules::PARTIAL_EVENT,
                end..self.size,
                format!(
                    "the {len} bytes of events from 0x{start:x} are not a multiple of {es}: {tail} bytes of a partial event at the end"
                ),
            );
        }
        if end > start {
            self.trace.event_runs.push(EventRun {
                span: start..end,
                future_timestamp: None,
            });
        }
    }

    // ---------------------------------------------------------------- V3

    fn decode_v3(&mut self, sink: &mut Sink) {
        if self.size < 56 {
            sink.report(
                &rules::TRUNCATED_HEADER,
                0..self.size,
                format!(
                    "a V3 file starts with a 56-byte header (16-byte chunk header + 40 bytes); the file has {} bytes",
                    self.size
                ),
            );
            return;
        }
        let Some(mut r) = self.bytes_reader(0..56, "V3 header") else {
            return;
        };
        let h = (|| {
            Some(V3Header {
                span: 0..56,
                magic: r.u32("magic").ok()?,
                major: r.u16("major").ok()?,
                minor: r.u16("minor").ok()?,
                header_size: r.u64("header size").ok()?,
                numer: r.u32("numer").ok()?,
                denom: r.u32("denom").ok()?,
                start_timestamp: r.u64("timestamp").ok()?,
                walltime_secs: r.u64("walltime secs").ok()?,
                walltime_usecs: r.u32("walltime usecs").ok()?,
                minutes_west: r.u32("minutes west").ok()?,
                dst: r.u32("dst").ok()?,
                flags: r.u32("flags").ok()?,
            })
        })();
        let Some(h) = h else {
            return;
        };
        self.trace.version = if h.magic == MAGIC_V3_KERNEL {
            Version::V3Kernel
        } else {
            Version::V3
        };
        self.trace.wide = h.flags & 1 != 0;
        if h.major > 1 {
            sink.report(
                &rules::HEADER_VERSION,
                4..8,
                format!(
                    "V3 file header version {}.{}; known versions are 0.x (libktrace) and 1.x (kernel); the public readers do not check it and the rest is read as these versions lay it out",
                    h.major, h.minor
                ),
            );
        }
        if h.numer == 0 || h.denom == 0 {
            sink.report(
                &rules::ZERO_TIMEBASE,
                16..24,
                format!(
                    "timebase is {}/{}; both numerator and denominator must be non-zero",
                    h.numer, h.denom
                ),
            );
        }
        if h.flags & !1 != 0 {
            sink.report(
                &rules::RESERVED_FLAGS,
                52..56,
                format!(
                    "V3 header flags 0x{:08x} set bits other than bit 0 (64-bit); they are reserved",
                    h.flags
                ),
            );
        }
        let declared_end = h.header_size.checked_add(16);
        let header_end = match declared_end {
            _ if h.header_size < 40 => {
                sink.report(
                    &rules::HEADER_SIZE,
                    8..16,
                    format!(
                        "header size {} is below the 40 bytes of the fixed header fields",
                        h.header_size
                    ),
                );
                56
            }
            Some(e) if e <= self.size => e,
            _ => {
                sink.report(
                    &rules::HEADER_SIZE,
                    8..16,
                    format!(
                        "header size {} puts the end of the header past the end of the file ({} bytes)",
                        h.header_size, self.size
                    ),
                );
                self.size
            }
        };
        self.trace.v3_header = Some(h);
        let body = self.v3_header_chunks(header_end, sink);
        if let Some(body) = body {
            self.v3_body(body, sink);
        }
    }

    fn read_chunk_header(&mut self, off: u64) -> Option<(u32, u16, u16, u64)> {
        let mut r = self.bytes_reader(off..off.checked_add(16)?, "chunk header")?;
        Some((
            r.u32("tag").ok()?,
            r.u16("major").ok()?,
            r.u16("minor").ok()?,
            r.u64("length").ok()?,
        ))
    }

    /// True when a chunk header could start at `off`: the end of the file, or a known tag.
    fn plausible_chunk(&mut self, off: u64) -> bool {
        if off == self.size {
            return true;
        }
        if off.saturating_add(16) > self.size {
            return false;
        }
        match self.read_chunk_header(off) {
            Some((tag, major, _, _)) => tag_name(tag).is_some() && major <= 1,
            None => false,
        }
    }

    fn room_for_chunk(&mut self, at: u64, sink: &mut Sink) -> bool {
        let count = self.trace.chunk_count();
        if count >= self.limits.max_entries {
            sink.limit(
                at..at.saturating_add(16).min(self.size),
                "chunk count",
                count,
                "max_entries",
                self.limits.max_entries,
            );
            return false;
        }
        true
    }

    /// Walks the header sub-chunks in `[56, header_end)`; returns where the body starts.
    fn v3_header_chunks(&mut self, header_end: u64, sink: &mut Sink) -> Option<u64> {
        let mut off = 56u64;
        while off.saturating_add(16) <= header_end {
            if !self.room_for_chunk(off, sink) {
                return None;
            }
            let (tag, major, minor, length) = self.read_chunk_header(off)?;
            let data_start = off.saturating_add(16);
            if length == u64::MAX {
                sink.report(
                    &rules::UNFINALIZED_CHUNK,
                    off.saturating_add(8)..data_start,
                    format!("header chunk 0x{tag:x} at 0x{off:x} has the unfinalized length 0xFFFFFFFFFFFFFFFF"),
                );
                off = header_end;
                break;
            }
            let room = header_end.saturating_sub(data_start);
            if length > room {
                sink.report(
                    &rules::CHUNK_TRUNCATED,
                    off..header_end,
                    format!(
                        "header chunk 0x{tag:x} at 0x{off:x} declares {length} data bytes, but the header ends {room} bytes later (0x{header_end:x})"
                    ),
                );
                off = header_end;
                break;
            }
            let data_end = data_start.saturating_add(length);
            let next = round_up(data_end, 8).unwrap_or(u64::MAX);
            let chunk = Chunk {
                offset: off,
                tag,
                major,
                minor,
                length,
                data: data_start..data_end,
                in_header: true,
            };
            self.check_zero(data_end..next.min(header_end), "chunk padding", sink);
            if next > header_end && data_end != header_end {
                sink.report(
                    &rules::HEADER_SIZE,
                    data_end..header_end,
                    format!(
                        "the header ends at 0x{header_end:x}, inside the padding of chunk 0x{tag:x} (data ends at 0x{data_end:x}, padding to 0x{next:x})"
                    ),
                );
            }
            self.chunk_payload(chunk, sink);
            off = next;
        }
        if off < header_end {
            sink.report(
                &rules::HEADER_SIZE,
                off..header_end,
                format!(
                    "the header size leaves {} bytes at 0x{off:x} that are too short for a sub-chunk header",
                    header_end.saturating_sub(off)
                ),
            );
        }
        let body = round_up(header_end, 8)?;
        self.check_zero(header_end..body.min(self.size), "header padding", sink);
        // Writers pad the header to 8 bytes before the first chunk: a file that ends inside
        // that padding was cut after its header, and its chunks are gone.
        if body > self.size && header_end < self.size {
            sink.report(
                &rules::CHUNK_TRUNCATED,
                header_end..self.size,
                format!(
                    "the file ends at 0x{:x}, inside the header's padding to 0x{body:x}: it was cut after its header, and no chunk follows",
                    self.size
                ),
            );
        }
        Some(body)
    }

    fn v3_body(&mut self, body: u64, sink: &mut Sink) {
        let mut pos = body;
        let es = self.trace.event_size();
        while pos < self.size {
            let left = self.size.saturating_sub(pos);
            if left < 16 {
                sink.report(
                    &rules::TRAILING_BYTES,
                    pos..self.size,
                    format!("{left} bytes after the last chunk at 0x{pos:x} are too short for a chunk header"),
                );
                return;
            }
            if !self.room_for_chunk(pos, sink) {
                return;
            }
            let Some((tag, major, minor, length)) = self.read_chunk_header(pos) else {
                return;
            };
            if (tag, major, minor, length) == (0, 0, 0, 0) && rem(pos, 8) == 0 {
                if let Some(end) = self.zero_run(pos) {
                    pos = end;
                    continue;
                }
            }
            let data_start = pos.saturating_add(16);
            let avail = self.size.saturating_sub(data_start);
            let mut unfinalized = false;
            let mut eff = length;
            if length == u64::MAX {
                sink.report(
                    &rules::UNFINALIZED_CHUNK,
                    pos.saturating_add(8)..data_start,
                    format!("chunk 0x{tag:x} at 0x{pos:x} has the unfinalized length 0xFFFFFFFFFFFFFFFF; read as extending to the end of the file"),
                );
                unfinalized = true;
                eff = avail;
            }
            let mut truncated = false;
            if eff > avail {
                sink.report(
                    &rules::CHUNK_TRUNCATED,
                    pos..self.size,
                    format!(
                        "chunk 0x{tag:x} at 0x{pos:x} declares {length} data bytes, only {avail} remain in the file"
                    ),
                );
                truncated = true;
                eff = avail;
            }
            let mut data_end = data_start.saturating_add(eff);
            let mut next = round_up(data_end, 8).unwrap_or(u64::MAX);
            let is_events = tag == TAG_EVENTS && major <= 1 && !self.misplaced(tag, false);
            if is_events {
                let mut run_end = data_end;
                if eff >= 8 && rem(eff.saturating_sub(8), es) == 0 {
                    // The documented layout.
                } else if !truncated
                    && !unfinalized
                    && rem(eff, es) == 0
                    && data_end.saturating_add(8) <= self.size
                    && self.plausible_chunk(data_end.saturating_add(8))
                {
                    let mut f = sink
                        .make(
                            &rules::EVENT_LENGTH_QUIRK,
                            pos.saturating_add(8)..data_start,
                            format!(
                                "event chunk at 0x{pos:x} (version {major}.{minor}) has length {length} = {} events without the 8-byte timestamp that is still written; the next chunk is at 0x{:x}",
                                div(eff, es),
                                data_end.saturating_add(8)
                            ),
                        )
                        .note("macOS 13+ kernels (xnu >= 8792, KERN_KDWRITETR_V3) write this length");
                    if major != 1 {
                        f = f.note(format!(
                            "only kernel event chunks (version 1.0) are known to carry this quirk; this one is {major}.{minor}"
                        ));
                    }
                    sink.push(f);
                    data_end = data_end.saturating_add(8);
                    run_end = data_end;
                    next = data_end;
                } else if !truncated {
                    sink.report(
                        &rules::EVENT_CHUNK_SIZE,
                        pos.saturating_add(8)..data_start,
                        format!(
                            "event chunk at 0x{pos:x} has length {length}; expected 8 + a multiple of {es}"
                        ),
                    );
                }
                if truncated {
                    sink.report(
                        &rules::EVENT_CHUNK_SIZE,
                        pos.saturating_add(8)..data_start,
                        format!("event chunk at 0x{pos:x} is cut short: only its whole events are checked"),
                    );
                }
                let ev_start = data_start.saturating_add(8);
                if run_end >= ev_start {
                    let n = div(run_end.saturating_sub(ev_start), es);
                    let end = ev_start.saturating_add(n.saturating_mul(es));
                    let fts = self
                        .bytes_reader(data_start..ev_start, "future timestamp")
                        .and_then(|mut r| r.u64("future timestamp").ok())
                        .unwrap_or(0);
                    self.trace.event_runs.push(EventRun {
                        span: ev_start..end,
                        future_timestamp: Some((data_start, fts)),
                    });
                }
            }
            if rem(data_end, 8) != 0 && !truncated && !unfinalized {
                if next < self.size
                    && !self.plausible_chunk(next)
                    && self.plausible_chunk(data_end)
                    && data_end != self.size
                {
                    sink.report(
                        &rules::MISSING_CHUNK_PADDING,
                        data_end..data_end.saturating_add(16).min(self.size),
                        format!(
                            "chunk 0x{tag:x} at 0x{pos:x} ends at 0x{data_end:x}; the next chunk header was expected at the 8-byte boundary 0x{next:x} but follows unpadded"
                        ),
                    );
                    next = data_end;
                } else {
                    self.check_zero(data_end..next.min(self.size), "chunk padding", sink);
                }
            }
            let chunk = Chunk {
                offset: pos,
                tag,
                major,
                minor,
                length,
                data: data_start..data_end,
                in_header: false,
            };
            self.chunk_payload(chunk, sink);
            if truncated || unfinalized {
                return;
            }
            pos = next;
        }
    }

    /// Takes the all-zero chunk headers from `pos` (8-byte aligned, its header all zero) as one
    /// run, once the first chunk of tag 0 was read and reported: each would be read as an empty
    /// chunk that raises nothing, 16 bytes further. Reads the zeros in bounded steps and keeps
    /// none; stops at the first non-zero byte, the end of the file or the chunk limit (where
    /// the next step of the walk reports it). Returns where the walk goes on, `None` when it
    /// must take this chunk itself.
    fn zero_run(&mut self, pos: u64) -> Option<u64> {
        if !self.unknown_tags.contains(&0) {
            return None;
        }
        let room = self
            .limits
            .max_entries
            .saturating_sub(self.trace.chunk_count());
        let reach = pos.saturating_add(room.saturating_mul(16)).min(self.size);
        let first = crate::input::scan_nonzero(self.src, pos..reach, &mut self.buf)
            .ok()?
            .unwrap_or(reach);
        let count = div(first.saturating_sub(pos), 16);
        if count == 0 {
            return None;
        }
        let end = pos.saturating_add(count.saturating_mul(16));
        match self.trace.zero_chunks.last_mut() {
            Some(z) if z.span().end == pos => z.count = z.count.saturating_add(count),
            _ => self
                .trace
                .zero_chunks
                .push(ZeroChunks { offset: pos, count }),
        }
        Some(end)
    }

    /// Whether `tag` is out of place (header-only in the body, body-only in the header).
    fn misplaced(&self, tag: u32, in_header: bool) -> bool {
        let header_only = matches!(tag, TAG_CPU_MAP | TAG_HW_MODEL | TAG_MACHINE);
        let body_only = matches!(
            tag,
            TAG_THREAD_MAP | TAG_EVENTS | TAG_COMPRESSED_EVENTS | TAG_NULL
        );
        let file_header = matches!(tag, MAGIC_V3 | MAGIC_V3_KERNEL);
        file_header || (header_only && !in_header) || (body_only && in_header)
    }

    /// Records a chunk and checks its payload by tag.
    fn chunk_payload(&mut self, chunk: Chunk, sink: &mut Sink) {
        let tag = chunk.tag;
        let hdr = chunk.offset..chunk.offset.saturating_add(16);
        let data = chunk.data.clone();
        let len = data.end.saturating_sub(data.start);
        let in_header = chunk.in_header;
        let major = chunk.major;
        self.trace.chunks.push(chunk);
        if self.misplaced(tag, in_header) {
            let name = tag_name(tag).unwrap_or("?");
            let why = if matches!(tag, MAGIC_V3 | MAGIC_V3_KERNEL) {
                "the file header tag may only start the file"
            } else if in_header {
                "it is a body chunk but lies inside the header"
            } else {
                "it is a header chunk but lies in the body, after the header"
            };
            sink.report(
                &rules::CHUNK_MISPLACED,
                hdr.clone(),
                format!("{name} chunk 0x{tag:x} at 0x{:x}: {why}", hdr.start),
            );
            if tag == TAG_EVENTS || matches!(tag, MAGIC_V3 | MAGIC_V3_KERNEL) {
                return;
            }
        }
        let decoded = matches!(
            tag,
            TAG_CPU_MAP | TAG_THREAD_MAP | TAG_EVENTS | TAG_COMPRESSED_EVENTS
        );
        if decoded && major > 1 {
            sink.report(
                &rules::CHUNK_VERSION,
                hdr.start.saturating_add(4)..hdr.start.saturating_add(8),
                format!(
                    "{} chunk at 0x{:x} has major version {major}; only 0 and 1 are known, its payload was not validated",
                    tag_name(tag).unwrap_or("?"),
                    hdr.start
                ),
            );
            return;
        }
        match tag {
            TAG_CPU_MAP => self.v3_cpu_map(hdr, data, sink),
            TAG_THREAD_MAP => {
                let es = if self.trace.wide {
                    THREAD_SIZE_64
                } else {
                    THREAD_SIZE_32
                };
                let tail = rem(len, es);
                if tail != 0 {
                    sink.report(
                        &rules::THREADMAP_SIZE,
                        hdr.start.saturating_add(8)..hdr.end,
                        format!(
                            "thread map chunk at 0x{:x} has {len} data bytes, not a multiple of the {es}-byte entry ({tail} left over)",
                            hdr.start
                        ),
                    );
                }
                self.read_threads(data.start, div(len, es), sink);
            }
            TAG_EVENTS => {}
            TAG_COMPRESSED_EVENTS => {
                if len < 12 {
                    sink.report(
                        &rules::EVENT_CHUNK_SIZE,
                        hdr.start.saturating_add(8)..hdr.end,
                        format!(
                            "compressed event chunk at 0x{:x} has {len} data bytes; at least 12 (timestamp + count) are required",
                            hdr.start
                        ),
                    );
                } else {
                    sink.report(
                        &rules::COMPRESSED_EVENTS,
                        hdr,
                        format!("compressed event chunk of {len} bytes: private codec, events not validated"),
                    );
                }
            }
            TAG_NULL => {
                if let Some(bad) = self.nonzero_span(data) {
                    sink.report(
                        &rules::NULL_CHUNK_DATA,
                        bad.clone(),
                        format!(
                            "null chunk at 0x{:x} holds non-zero bytes at 0x{:x}..0x{:x}",
                            hdr.start, bad.start, bad.end
                        ),
                    );
                }
            }
            TAG_CONFIG => sink.report(
                &rules::CONFIG_CHUNK,
                hdr,
                format!("config chunk (0x1b00) of {len} bytes; xnu defines but never writes it, contents not validated"),
            ),
            TAG_HW_MODEL | TAG_MACHINE | MAGIC_V3 | MAGIC_V3_KERNEL => {}
            _ => {
                if !self.unknown_tags.contains(&tag) {
                    if self.unknown_tags.len() < 64 {
                        self.unknown_tags.push(tag);
                    }
                    let what = match tag_name(tag) {
                        Some(n) => format!("{n} chunk 0x{tag:x} (not decoded)"),
                        None => format!("unknown chunk tag 0x{tag:x}"),
                    };
                    sink.report(
                        &rules::UNKNOWN_CHUNK,
                        hdr.clone(),
                        format!("{what} at 0x{:x}, {len} bytes: skipped", hdr.start),
                    );
                }
            }
        }
    }

    fn v3_cpu_map(&mut self, hdr: Range<u64>, data: Range<u64>, sink: &mut Sink) {
        if self.trace.cpu_map.is_some() {
            sink.report(
                &rules::DUPLICATE_CPUMAP,
                hdr.clone(),
                format!(
                    "second CPU map chunk at 0x{:x}; the first one is used",
                    hdr.start
                ),
            );
            return;
        }
        let len = data.end.saturating_sub(data.start);
        let version_no = self.u32_at(data.start);
        let count = self
            .u32_at(data.start.saturating_add(4))
            .map(u64::from)
            .unwrap_or(0);
        let ext_len = count
            .checked_mul(CPU_EXT_SIZE)
            .and_then(|l| l.checked_add(8));
        if len >= 8 + CPU_EXT_SIZE && version_no == Some(1) && count >= 1 && ext_len == Some(len) {
            sink.report(
                &rules::CPUMAP_EXT,
                hdr.clone(),
                format!(
                    "CPU map at 0x{:x} uses kd_cpumap_header + {count} 40-byte kd_cpumap_ext entries (a newer Instruments/kperf writer, as py-ios-device reads them), not the 16-byte entries the kernel writes; trace -R, kdprof and kperfdata read 16-byte entries",
                    hdr.start
                ),
            );
            let entries = self.read_cpus(data.start.saturating_add(8), count, CPU_EXT_SIZE, sink);
            self.trace.cpu_map = Some(CpuMap {
                span: data,
                kind: CpuMapKind::Ext,
                entries,
            });
            return;
        }
        let n = div(len, CPU_SIZE);
        if n == 0 || rem(len, CPU_SIZE) != 0 {
            sink.report(
                &rules::CPUMAP_SIZE,
                hdr.start.saturating_add(8)..hdr.end,
                format!(
                    "CPU map chunk at 0x{:x} has {len} data bytes; expected a non-zero multiple of 16",
                    hdr.start
                ),
            );
            if n == 0 {
                return;
            }
        }
        let entries = self.read_cpus(data.start, n, CPU_SIZE, sink);
        self.trace.cpu_map = Some(CpuMap {
            span: data,
            kind: CpuMapKind::Bare,
            entries,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::round_up;

    #[test]
    fn round_up_is_checked() {
        assert_eq!(round_up(0, 8), Some(0));
        assert_eq!(round_up(1, 8), Some(8));
        assert_eq!(round_up(0xc9e0, 4096), Some(0xd000));
        assert_eq!(round_up(u64::MAX - 2, 8), None);
        assert_eq!(round_up(5, 0), None);
    }
}
