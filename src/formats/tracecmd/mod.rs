//! trace-cmd `trace.dat` validator (file versions 6 and 7; compression none, zstd, zlib).
//!
//! Layout: [`decode`](mod@decode) reads the initial header, the v6 sequential items or the v7 sections and
//! options chain (`decode::options`, the metadata texts in `decode::meta`, compressed blocks in
//! `decode::compress`) into a [`model::TraceDat`] with byte spans, reporting structural
//! findings, and `decode::data` checks every CPU data range and walks its pages through the
//! ftrace ring-buffer walker, one page or one decompressed chunk at a time; [`lint`] inspects
//! the model for cross-reference rules; [`rules`] declares the `TD` rules. `writer` builds files
//! byte by byte for tests and fuzzing (feature `testkit`).
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
pub mod repair;
pub mod rules;
#[cfg(any(test, feature = "testkit"))]
pub mod writer;

use crate::detect::Format;
use crate::finding::Sink;
use crate::formats::spec::{load_whole, FileCheck, FormatSpec};
use crate::map::MapNode;
use crate::options::CheckOptions;
pub use decode::sieve::PageSieve;
use model::{opt_id, TraceDat};

/// Decodes the structure only (header, metadata, options, buffer tables) without walking the
/// CPU data. Used by tools that process the CPU data themselves.
pub fn decode(data: &[u8], opts: &CheckOptions, sink: &mut Sink) -> Option<TraceDat> {
    let mut ctx = decode::ctx::Ctx::new(data, &opts.limits, sink);
    let h = decode::header(&mut ctx)?;
    Some(if h.version == 6 {
        decode::v6(&mut ctx, h)
    } else {
        decode::v7(&mut ctx, h)
    })
}

/// Decodes and checks `data`, returning the model (`None` when the header is unusable).
pub fn analyze(data: &[u8], opts: &CheckOptions, sink: &mut Sink) -> Option<TraceDat> {
    analyze_with(data, None, None, opts, sink)
}

/// [`analyze`], reading the CPU data through `cpu_source` when given.
fn analyze_with(
    data: &[u8],
    cpu_source: Option<&dyn crate::input::ByteSource>,
    sieve: Option<&PageSieve>,
    opts: &CheckOptions,
    sink: &mut Sink,
) -> Option<TraceDat> {
    let mut ctx = decode::ctx::Ctx::new(data, &opts.limits, sink);
    ctx.cpu_source = cpu_source;
    ctx.sieve = sieve.map(PageSieve::pages);
    let h = decode::header(&mut ctx)?;
    let mut m = if h.version == 6 {
        decode::v6(&mut ctx, h)
    } else {
        decode::v7(&mut ctx, h)
    };
    lint::before_data(&mut ctx, &m);
    decode::data::check(&mut ctx, &mut m);
    lint::after_data(&mut ctx, &m);
    Some(m)
}

/// The trace-cmd `trace.dat` format.
pub const FORMAT: Format = Format::new("trace-cmd");

/// The magic a trace.dat starts with (`\x17\x08\x44` then `tracing`).
pub const MAGIC: &[u8] = b"\x17\x08\x44tracing";

/// The format table's entry (`formats::FORMATS`).
pub static SPEC: FormatSpec = FormatSpec {
    format: FORMAT,
    aliases: &["tracecmd", "trace.dat"],
    family: rules::FAMILY,
    rules: &[rules::RULES, crate::formats::ftrace_ring::rules::RULES],
    magics: &[MAGIC],
    extensions: &["dat"],
    bytes: Some(check),
    file: Some(check_open),
    stream: None,
    dir: None,
    corpus: "tracecmd",
    repair: Some(repair::repair),
};

/// Reads an open trace.dat the way that keeps memory flat: mapped, the metadata from the
/// mapping and the ring data (the bulk) by positioned reads; read in windows
/// ([`LoadMode::Windowed`](crate::input::LoadMode)), the metadata kept and the ring pages read
/// again as walked.
fn check_open(
    file: &std::fs::File,
    len: u64,
    opts: &CheckOptions,
    sink: &mut Sink,
) -> std::io::Result<FileCheck> {
    use crate::input::LoadMode;
    match opts.load_mode {
        LoadMode::Mmap => {
            let Some(data) = load_whole(file, len, opts, sink)? else {
                return Ok(FileCheck::Done(None));
            };
            Ok(FileCheck::Done(Some(check_file(
                &data,
                file.try_clone()?,
                opts,
                sink,
            ))))
        }
        // A file no larger than one window (and than max_read_bytes) is read whole, as the
        // windows would read it: the same check as a mapped file's, without the sieve's
        // second pass over the ring pages.
        LoadMode::Windowed
            if len > 0 && len <= WINDOW_BYTES as u64 && len <= opts.limits.max_read_bytes =>
        {
            let Some(data) = load_whole(file, len, opts, sink)? else {
                return Ok(FileCheck::Done(None));
            };
            Ok(FileCheck::Done(Some(check_file(
                &data,
                file.try_clone()?,
                opts,
                sink,
            ))))
        }
        LoadMode::Windowed if len > 0 => match check_windowed(file, len, opts, sink)? {
            Windowed::Checked(map) => Ok(FileCheck::Done(Some(map))),
            // Read whole instead, up to max_read_bytes; past it the limit finding says why.
            Windowed::NotSifted(why) => {
                let Some(data) = load_whole(file, len, opts, sink)? else {
                    sink.note_last(
                        &crate::rules::LIMIT_EXCEEDED,
                        format!("it could not be checked in windows: {why}"),
                    );
                    return Ok(FileCheck::Done(None));
                };
                Ok(FileCheck::Done(Some(check(&data, opts, sink))))
            }
        },
        _ => Ok(FileCheck::Whole),
    }
}

/// Checks one file.
pub fn check(data: &[u8], opts: &CheckOptions, sink: &mut Sink) -> MapNode {
    let len = data.len() as u64;
    match analyze(data, opts, sink) {
        Some(m) => map(&m, len),
        None => MapNode::new("trace.dat (unreadable header)", 0, len),
    }
}

/// Checks a file whose bytes are `data` (a mapping of `file`), reading the CPU ring data with
/// positioned reads from `file`: the metadata is parsed from the mapping, but the gigabytes of
/// ring pages are never touched through it, so they do not stay resident.
pub fn check_file(
    data: &[u8],
    file: std::fs::File,
    opts: &CheckOptions,
    sink: &mut Sink,
) -> MapNode {
    check_sifted(data, file, None, opts, sink)
}

/// [`check_file`] for a file unpacked through `sieve`: its left-out pages read as zeros and are
/// walked from their summaries. The findings are those of the whole file only if
/// [`PageSieve::complete`] holds afterwards.
pub fn check_sifted(
    data: &[u8],
    file: std::fs::File,
    sieve: Option<&PageSieve>,
    opts: &CheckOptions,
    sink: &mut Sink,
) -> MapNode {
    let len = data.len() as u64;
    let src = crate::input::FileSource::new(&file, len);
    match analyze_with(data, Some(&src), sieve, opts, sink) {
        Some(m) => map(&m, len),
        None => MapNode::new("trace.dat (unreadable header)", 0, len),
    }
}

/// Checks `holed`, the bytes of a trace.dat with the pages `sieve` left out zeroed, taking
/// those pages from the sieve: the findings of the whole file if [`PageSieve::complete`] holds
/// afterwards.
pub fn check_sifted_bytes(
    holed: &[u8],
    sieve: &PageSieve,
    opts: &CheckOptions,
    sink: &mut Sink,
) -> MapNode {
    let len = holed.len() as u64;
    match analyze_with(holed, None, Some(sieve), opts, sink) {
        Some(m) => map(&m, len),
        None => MapNode::new("trace.dat (unreadable header)", 0, len),
    }
}

/// Bytes read per step while a file is read in windows (a multiple of every page size).
const WINDOW_BYTES: usize = 1 << 20;

/// What [`check_windowed`] did.
pub enum Windowed {
    /// The file was checked: its findings are in the sink.
    Checked(MapNode),
    /// The metadata could not be told apart from the ring pages (or held more than
    /// `max_read_bytes`): nothing was reported, the file must be checked another way.
    NotSifted(String),
}

/// Checks the trace.dat `file` of `len` bytes without mapping it or holding it whole: it is
/// read once in windows of 1 MiB by positioned reads through a [`PageSieve::positional`], which
/// keeps the pages that are not ring pages (the metadata) in a [`Holed`] image, and then
/// checked from that image with the CPU data read from the file again, window by window, as
/// [`check_file`] does. Memory is the metadata (at most `max_read_bytes`) plus a few windows,
/// whatever the size of the file.
///
/// When the sieve's guess did not hold (a left-out page was read as metadata, or lies outside
/// the CPU data walked) the findings are dropped and [`Windowed::NotSifted`] says why.
///
/// # Errors
///
/// A failed read of the file (one cut short while read is an error of kind `UnexpectedEof`).
///
/// [`Holed`]: crate::input::Holed
pub fn check_windowed(
    file: &std::fs::File,
    len: u64,
    opts: &CheckOptions,
    sink: &mut Sink,
) -> std::io::Result<Windowed> {
    let mut keep: Vec<u64> = Vec::new();
    for _ in 0..WINDOWED_ROUNDS {
        let (image, sieve) = match sift_file(file, len, keep.clone(), opts.limits.max_read_bytes)? {
            Ok(done) => done,
            Err(why) => return Ok(Windowed::NotSifted(why)),
        };
        let mut scratch = sink.child(opts.limits.max_findings);
        scratch.set_file(sink.current_file().map(str::to_string));
        let map = check_sifted(&image, file.try_clone()?, Some(&sieve), opts, &mut scratch);
        if sieve.complete() {
            sink.absorb(scratch);
            return Ok(Windowed::Checked(map));
        }
        // Keep the first page of each left-out range that was no CPU data, and the pages
        // metadata was found in, and try again.
        let before = keep.len();
        keep.extend(sieve.not_covered());
        keep.sort_unstable();
        keep.dedup();
        if keep.len() == before {
            break;
        }
    }
    Ok(Windowed::NotSifted(
        "pages that looked like ring pages were not all CPU data".into(),
    ))
}

/// Bytes read ahead while chunk streams are followed before the windows are read.
const READ_AHEAD: u64 = 1 << 16;

/// Times [`check_windowed`] reads a file before it gives up.
const WINDOWED_ROUNDS: usize = 3;

/// Reads `file` once in windows through a positional sieve keeping the pages at `keep`, into
/// a holed image of what it keeps; `Err` with the reason when the kept bytes pass `max`. The
/// windows are read and sifted in parallel, each into its own part of the image.
#[allow(clippy::type_complexity)]
fn sift_file(
    file: &std::fs::File,
    len: u64,
    keep: Vec<u64>,
    max: u64,
) -> std::io::Result<Result<(crate::input::Holed, PageSieve), String>> {
    use rayon::prelude::*;
    use std::os::unix::fs::FileExt;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let mut head = vec![0u8; usize::try_from(len).map_or(HEAD_BYTES, |l| l.min(HEAD_BYTES))];
    file.read_exact_at(&mut head, 0)?;
    // Chunk headers are read through a small read-ahead buffer: one read per 64 KiB rather
    // than one per chunk.
    let mut ahead: (u64, Vec<u8>) = (0, Vec::new());
    let mut read = |at: u64, buf: &mut [u8]| -> bool {
        let want = at..at.saturating_add(buf.len() as u64);
        let have = ahead.0..ahead.0.saturating_add(ahead.1.len() as u64);
        if !(have.start <= want.start && want.end <= have.end) {
            let n = len.saturating_sub(at).min(READ_AHEAD);
            ahead.1.resize(usize::try_from(n).unwrap_or(0), 0);
            ahead.0 = at;
            if file.read_exact_at(&mut ahead.1, at).is_err() {
                ahead.1.clear();
                return false;
            }
        }
        let from = usize::try_from(at.saturating_sub(ahead.0)).unwrap_or(usize::MAX);
        match ahead.1.get(from..from.saturating_add(buf.len())) {
            Some(src) => {
                buf.copy_from_slice(src);
                true
            }
            None => false,
        }
    };
    let mut sieve = PageSieve::positional(&head)
        .with_chunk_streams(&head, len, &mut read)
        .keeping(keep);
    drop(head);
    let mut image = crate::input::Holed::new(len)?;
    let stored = AtomicU64::new(0);
    let over = AtomicBool::new(false);
    let parts: std::io::Result<Vec<Vec<std::ops::Range<u64>>>> = image
        .par_chunks_mut(WINDOW_BYTES)
        .enumerate()
        .map_init(
            || (vec![0u8; WINDOW_BYTES], Vec::new()),
            |(buf, dropped), (i, part)| {
                let mut left = Vec::new();
                if over.load(Ordering::Relaxed) {
                    return Ok(left);
                }
                let base = (i as u64).saturating_mul(WINDOW_BYTES as u64);
                let end = base.saturating_add(part.len() as u64);
                // A whole window whose first and last pages look like ring pages is left out
                // unseen: the check finds out if it held anything but CPU data.
                let whole = part.len() == WINDOW_BYTES && !sieve.keeps_any(base..end);
                // A window inside one chunk stream of a compressed file too.
                if whole && sieve.in_streams(base..end) {
                    left.push(base..end);
                    return Ok(left);
                }
                if let Some(ps) = sieve.page_size().filter(|&ps| whole && base >= ps) {
                    let (mut first, mut last) = ([0u8; 16], [0u8; 16]);
                    file.read_exact_at(&mut first, base)?;
                    file.read_exact_at(&mut last, end.saturating_sub(ps))?;
                    if sieve.ring_header(&first) && sieve.ring_header(&last) {
                        left.push(base..end);
                        return Ok(left);
                    }
                }
                let Some(window) = buf.get_mut(..part.len()) else {
                    return Ok(left);
                };
                file.read_exact_at(window, base)?;
                dropped.clear();
                sieve.sift_positional(base, window, dropped, &mut left);
                // Store what the sieve kept: the gaps between the dropped ranges.
                let mut from = 0usize;
                let mut kept = 0u64;
                for r in dropped
                    .iter()
                    .cloned()
                    .chain(std::iter::once(part.len()..part.len()))
                {
                    if let (Some(src), Some(dst)) =
                        (window.get(from..r.start), part.get_mut(from..r.start))
                    {
                        dst.copy_from_slice(src);
                        kept = kept.saturating_add(src.len() as u64);
                    }
                    from = r.end;
                }
                if stored
                    .fetch_add(kept, Ordering::Relaxed)
                    .saturating_add(kept)
                    > max
                {
                    over.store(true, Ordering::Relaxed);
                }
                Ok(left)
            },
        )
        .collect();
    if over.load(Ordering::Relaxed) {
        return Ok(Err(format!(
            "more than max_read_bytes = {max} bytes of it are not ring pages"
        )));
    }
    for left in parts? {
        sieve.record_left_out(left);
    }
    Ok(Ok((image, sieve)))
}

/// Bytes looked at for the page layout (the header and header_page are near the start).
const HEAD_BYTES: usize = 1 << 16;

/// Per-CPU results of one buffer, for tools and differential tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuSummary {
    /// Buffer name (`""` = top).
    pub buffer: String,
    /// CPU id.
    pub cpu: u32,
    /// Data records.
    pub events: u64,
    /// First record timestamp (raw ns, no file offsets applied).
    pub first_ts: Option<u64>,
    /// Last record timestamp.
    pub last_ts: Option<u64>,
    /// Stored lost-event counts.
    pub lost_events: u64,
    /// Pages walked.
    pub pages: u64,
}

/// Per buffer, per CPU event counts and timestamps of a trace.dat file.
pub fn summarize(data: &[u8], opts: &CheckOptions) -> Vec<CpuSummary> {
    let mut sink = Sink::with_limits(&opts.limits);
    let Some(m) = analyze(data, opts, &mut sink) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for b in &m.buffers {
        for (e, r) in b.cpus.iter().zip(b.results.iter()) {
            out.push(CpuSummary {
                buffer: b.name.clone(),
                cpu: e.cpu,
                events: r.stats.events,
                first_ts: r.stats.first_ts,
                last_ts: r.stats.last_ts,
                lost_events: r.stats.lost_events,
                pages: r.stats.pages,
            });
        }
    }
    out
}

fn map(m: &TraceDat, len: u64) -> MapNode {
    let h = &m.header;
    let mut root = MapNode::new(format!("trace.dat v{}", h.version), 0, len)
        .value("version", h.version)
        .value("endian", h.endian)
        .value("long size", h.long_size)
        .value("kernel long", m.kernel_long)
        .value("page size", h.page_size)
        .value("writer", m.producer());
    if let Some(k) = m.kernel_release() {
        root.set("kernel", k);
    }
    let mut hdr = MapNode::new(
        "header",
        h.span.start,
        h.span.end.saturating_sub(h.span.start),
    );
    if let Some((n, v)) = &h.compression {
        hdr.set("compression", n);
        hdr.set("compression version", v);
        root.set("compression", n);
    }
    if let Some((o, _)) = &h.first_options {
        hdr.set("first options", format!("0x{o:x}"));
    }
    root.push(hdr);
    for s in &m.sections {
        let mut n = MapNode::new(
            format!(
                "section {} {}",
                s.id,
                s.desc
                    .as_deref()
                    .map(|d| format!("\"{d}\""))
                    .unwrap_or_default()
            ),
            s.offset,
            s.body.end.saturating_sub(s.offset),
        )
        .value("id", s.id)
        .value("flags", format!("0x{:x}", s.flags))
        .value("size", s.size);
        if let Some(u) = s.usize {
            n.set("uncompressed", u);
        }
        for o in m
            .options
            .iter()
            .filter(|o| o.span.start >= s.body.start && o.span.end <= s.body.end && s.id == 0)
        {
            n.push(
                MapNode::new(
                    format!("option {}", opt_id::name(o.id)),
                    o.span.start,
                    o.span.end.saturating_sub(o.span.start),
                )
                .value("id", o.id)
                .value("size", o.size),
            );
        }
        root.push(n);
    }
    if h.version == 6 {
        let mut opts = MapNode::new("options", m.options.first().map_or(0, |o| o.span.start), 0);
        for o in &m.options {
            opts.push(
                MapNode::new(
                    format!("option {}", opt_id::name(o.id)),
                    o.span.start,
                    o.span.end.saturating_sub(o.span.start),
                )
                .value("id", o.id)
                .value("size", o.size),
            );
        }
        opts.size = m
            .options
            .last()
            .map_or(0, |o| o.span.end)
            .saturating_sub(opts.offset);
        root.push(opts);
    }
    let mut meta = MapNode::new("metadata", 0, 0)
        .value("event formats", m.meta.formats.len())
        .value("ftrace formats", m.meta.ftrace_count)
        .value("event systems", m.meta.systems.len())
        .value("kallsyms lines", m.meta.kallsyms_lines)
        .value("printk lines", m.meta.printk_lines)
        .value("cmdline lines", m.meta.cmdline_lines);
    if let Some(hp) = &m.meta.header_page {
        meta.set("header_page commit size", hp.commit_size);
    }
    root.push(meta);
    let (mut stored, mut raw, mut events) = (0u64, 0u64, 0u64);
    for b in &m.buffers {
        let mut bn = MapNode::new(
            format!("buffer \"{}\"", b.name),
            b.span.start,
            b.span.end.saturating_sub(b.span.start),
        )
        .value("clock", b.clock.as_deref().unwrap_or(""))
        .value("page size", b.page_size)
        .value("cpus", b.cpus.len())
        .value("compressed", b.compressed);
        for (e, r) in b.cpus.iter().zip(b.results.iter()) {
            stored = stored.saturating_add(r.stored);
            raw = raw.saturating_add(r.raw);
            events = events.saturating_add(r.stats.events);
            // The node covers what of the declared range lies in the file (the declared size
            // is a value): a range past the end was reported, not walked.
            let size = if r.stored > 0 { r.stored } else { e.size };
            let start = e.offset.min(len);
            let mut c = MapNode::new(
                format!("cpu {}", e.cpu),
                start,
                size.min(len.saturating_sub(start)),
            )
            .value("declared size", e.size)
            .value("pages", r.stats.pages)
            .value("events", r.stats.events)
            .value("lost events", r.stats.lost_events);
            if let Some(t) = r.stats.first_ts {
                c.set("first ts", t);
            }
            if let Some(t) = r.stats.last_ts {
                c.set("last ts", t);
            }
            if b.compressed {
                c.set("chunks", r.chunks);
                c.set("uncompressed", r.raw);
            }
            bn.push(c);
        }
        root.push(bn);
    }
    root.set("events", events);
    if raw > 0 && stored != raw {
        root.set("compression ratio", format!("{:.2}", ratio(raw, stored)));
    }
    if let Some((s, c)) = &m.latency {
        root.push(
            MapNode::new("latency text", s.start, s.end.saturating_sub(s.start))
                .value("compressed", c),
        );
    }
    root
}

#[allow(clippy::cast_precision_loss)]
fn ratio(raw: u64, stored: u64) -> f64 {
    if stored == 0 {
        0.0
    } else {
        raw as f64 / stored as f64
    }
}
