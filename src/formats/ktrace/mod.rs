//! Darwin ktrace / kdebug validator (rule family `KT`).
//!
//! Formats: V3 chunked (`0x55aa0300` libktrace magic and `0x00001000` kernel magic), raw
//! RAW_VERSION1 / V1+ (`0x55aa0101`), RAW_VERSION2 (`0x55aa0200`) and, only by explicit hint,
//! headerless V0. All little-endian.
//!
//! Layout: [`decode`] builds the [`model::Trace`] (headers, chunks, maps, spans of the event
//! arrays) and reports structural findings, reading through an `input::ByteSource` (the mapping
//! or the file, window by window), and `decode::events` walks every event without allocating;
//! [`lint`] checks map entries; [`rules`] declares the `KT` rules. `writer` produces files of
//! every version from a model, with knobs for each defect, for tests, the corpus generator and
//! the fuzz targets (feature `testkit`).
#![deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::panic
)]

pub mod decode;
pub mod lint;
pub mod model;
pub mod rules;
#[cfg(any(test, feature = "testkit"))]
pub mod writer;

use crate::detect::Format;
use crate::finding::Sink;
use crate::formats::spec::{FileCheck, FormatSpec};
use crate::input::{ByteSource, FileSource, SliceSource};
use crate::map::MapNode;
use crate::options::CheckOptions;
use model::*;

/// Darwin ktrace / kdebug with a magic (V3 chunked, raw V1/V1+/V2).
pub const FORMAT: Format = Format::new("ktrace");

/// Darwin raw kdebug V0 (no magic: only by `--format ktrace-v0`).
pub const FORMAT_V0: Format = Format::new("ktrace-v0");

/// The magics of a ktrace file as its first bytes (little-endian `0x55aa0300`, the kernel's
/// `0x00001000`, `0x55aa0200`, `0x55aa0101`).
pub const MAGICS: &[&[u8]] = &[
    &[0x00, 0x03, 0xaa, 0x55],
    &[0x00, 0x10, 0x00, 0x00],
    &[0x00, 0x02, 0xaa, 0x55],
    &[0x01, 0x01, 0xaa, 0x55],
];

/// The format table's entry (`formats::FORMATS`).
pub static SPEC: FormatSpec = FormatSpec {
    format: FORMAT,
    aliases: &[],
    family: rules::FAMILY,
    rules: &[rules::RULES],
    magics: MAGICS,
    extensions: &["ktrace", "trace", "kdbg", "atrc"],
    bytes: Some(check),
    file: Some(check_open),
    stream: None,
    dir: None,
    corpus: "ktrace",
    repair: None,
};

/// The table's entry of raw kdebug V0, which only a hint selects.
pub static SPEC_V0: FormatSpec = FormatSpec {
    format: FORMAT_V0,
    aliases: &[],
    family: rules::FAMILY,
    rules: &[rules::RULES],
    magics: &[],
    extensions: &[],
    bytes: Some(check),
    file: Some(check_open),
    stream: None,
    dir: None,
    corpus: "ktrace",
    repair: None,
};

/// Mostly event records walked once: read window by window.
fn check_open(
    file: &std::fs::File,
    len: u64,
    opts: &CheckOptions,
    sink: &mut Sink,
) -> std::io::Result<FileCheck> {
    if len == 0 {
        return Ok(FileCheck::Whole);
    }
    Ok(FileCheck::Done(Some(check_file(file, len, opts, sink))))
}

/// Checks one file held in memory.
pub fn check(data: &[u8], opts: &CheckOptions, sink: &mut Sink) -> MapNode {
    check_source(&SliceSource::new(data), opts, sink)
}

/// Checks an open file of `len` bytes by positioned reads, window by window: memory use stays
/// flat whatever the file size.
pub fn check_file(file: &std::fs::File, len: u64, opts: &CheckOptions, sink: &mut Sink) -> MapNode {
    let src = FileSource::new(file, len);
    let map = check_source(&src, opts, sink);
    if let Some(e) = src.take_error() {
        sink.report(
            &crate::rules::IO_ERROR,
            0..0,
            format!("reading the file failed: {e}"),
        );
    }
    map
}

/// Decodes `data` into the model (findings go to `sink`), without the entry and event checks.
pub fn decode_bytes(data: &[u8], opts: &CheckOptions, sink: &mut Sink) -> Trace {
    let v0 = opts.format_hint == Some(FORMAT_V0);
    decode::decode(&SliceSource::new(data), v0, &opts.limits, sink)
}

/// Every event of a decoded trace held in `data`, in file order (for tests and tools; the
/// checker itself never collects events).
pub fn collect_events(data: &[u8], trace: &Trace) -> Vec<Event> {
    let mut out = Vec::new();
    let src = SliceSource::new(data);
    for run in &trace.event_runs {
        let _ = src.windows(run.span.clone(), trace.event_size(), &mut |r| {
            if trace.wide {
                for e in r.all_bytes().chunks_exact(64) {
                    if let Some(a) = e.first_chunk::<64>() {
                        out.push(Event::from_64(a));
                    }
                }
            } else {
                for e in r.all_bytes().chunks_exact(32) {
                    if let Some(a) = e.first_chunk::<32>() {
                        out.push(Event::from_32(a));
                    }
                }
            }
        });
    }
    out
}

fn check_source<S: ByteSource + ?Sized>(src: &S, opts: &CheckOptions, sink: &mut Sink) -> MapNode {
    let v0 = opts.format_hint == Some(FORMAT_V0);
    let trace = decode::decode(src, v0, &opts.limits, sink);
    lint::check_threads(&trace, sink);
    lint::check_cpus(&trace, sink);
    let summary = decode::events::check_events(src, &trace, &opts.limits, sink);
    build_map(&trace, &summary)
}

/// Most chunk nodes shown in the structure map.
const MAX_MAP_CHUNKS: usize = 10_000;

fn build_map(t: &Trace, s: &decode::events::EventSummary) -> MapNode {
    let mut root = MapNode::new("ktrace file", 0, t.size)
        .value("version", t.version.name())
        .value("writer", t.writer())
        .value("bits", if t.wide { 64 } else { 32 })
        .value("events", s.events)
        .value("threads", t.threads.len());
    if let Some(c) = s.max_cpu {
        root.set("highest cpu", c);
    }
    if let Some((lo, hi)) = s.time_range {
        root.set("timestamps", format!("{lo}..{hi}"));
    }
    if let Some(h) = &t.raw_header {
        let mut n = MapNode::new("header", h.span.start, span_len(&h.span))
            .value("version_no", format!("0x{:08x}", h.version_no))
            .value("thread_count", h.thread_count);
        if t.version != Version::V0 {
            n.set("tod", format!("{}.{:06}", h.tod_secs, h.tod_usecs));
        }
        if t.version == Version::V2 {
            n.set("flags", h.pad_or_flags);
            n.set("tick frequency", h.tick_frequency);
        }
        root.push(n);
    }
    if let Some(h) = &t.v3_header {
        let variant = if h.magic == MAGIC_V3_KERNEL {
            "kernel-v3"
        } else {
            "libktrace-v3"
        };
        root.push(
            MapNode::new("file header", 0, 56)
                .value("magic", format!("0x{:08x} ({variant})", h.magic))
                .value("version", format!("{}.{}", h.major, h.minor))
                .value("header size", h.header_size)
                .value("timebase", format!("{}/{}", h.numer, h.denom))
                .value("flags", format!("0x{:x}", h.flags)),
        );
    }
    for (i, c) in t.chunks.iter().enumerate() {
        if i >= MAX_MAP_CHUNKS {
            root.set(
                "chunks not shown",
                t.chunks.len().saturating_sub(MAX_MAP_CHUNKS),
            );
            break;
        }
        let name = tag_name(c.tag).unwrap_or("unknown");
        let size = c.data.end.saturating_sub(c.offset);
        let label = if c.in_header {
            format!("header chunk 0x{:x} {name}", c.tag)
        } else {
            format!("chunk 0x{:x} {name}", c.tag)
        };
        root.push(
            MapNode::new(label, c.offset, size)
                .value("version", format!("{}.{}", c.major, c.minor))
                .value("length", c.length),
        );
    }
    for z in t.zero_chunks.iter().take(MAX_MAP_CHUNKS) {
        root.push(
            MapNode::new("all-zero chunk headers", z.offset, span_len(&z.span()))
                .value("chunks", z.count),
        );
    }
    if t.chunks.is_empty() {
        for m in &t.thread_maps {
            let n = span_len(m)
                .checked_div(if t.wide {
                    THREAD_SIZE_64
                } else {
                    THREAD_SIZE_32
                })
                .unwrap_or(0);
            root.push(MapNode::new("thread map", m.start, span_len(m)).value("entries", n));
        }
        if let Some(m) = &t.cpu_map {
            root.push(
                MapNode::new("cpu map", m.span.start, span_len(&m.span))
                    .value("cpus", m.entries.len()),
            );
        }
        for r in &t.event_runs {
            root.push(
                MapNode::new("events", r.span.start, span_len(&r.span)).value(
                    "count",
                    span_len(&r.span).checked_div(t.event_size()).unwrap_or(0),
                ),
            );
        }
    }
    root
}

fn span_len(r: &std::ops::Range<u64>) -> u64 {
    r.end.saturating_sub(r.start)
}
