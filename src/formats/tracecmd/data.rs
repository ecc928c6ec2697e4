//! Per-CPU data: range checks, chunk streams, and the page walk (one page or one decompressed
//! chunk at a time, so memory stays bounded by the largest chunk whatever the file size).

use super::ctx::Ctx;
use super::model::{Algo, BufferInfo, CpuEntry, CpuResult, TraceDat};
use super::ring::{EventTable, RingParams, Walker};
use super::rules;
use crate::finding::Sink;
use crate::reader::Reader;
use std::ops::Range;

/// Builds the walker's event table from the parsed formats.
pub fn event_table(m: &TraceDat) -> EventTable {
    let mut t = EventTable::new();
    for f in &m.meta.formats {
        t.insert(f.id, format!("{}:{}", f.system, f.name), f.min_size());
    }
    t
}

/// Aggregated writer-quirk sightings, reported once per file.
#[derive(Default)]
struct Quirks {
    short4: u64,
    streams: u64,
    first: Option<Range<u64>>,
}

/// Checks and walks every CPU of every buffer; fills `results`.
pub fn check(ctx: &mut Ctx<'_, '_>, m: &mut TraceDat) {
    let table = event_table(m);
    let mut quirks = Quirks::default();
    let mut bufs = std::mem::take(&mut m.buffers);
    for b in &mut bufs {
        let sec_body = b
            .section
            .and_then(|i| m.sections.get(i))
            .map(|s| s.body.clone());
        let mut results = Vec::with_capacity(b.cpus.len());
        for e in &b.cpus {
            let r = cpu(ctx, m, b, e, sec_body.clone(), &table, &mut quirks);
            results.push(r);
        }
        b.results = results;
    }
    m.buffers = bufs;
    if quirks.short4 > 0 {
        let ver = m.writer_version().unwrap_or("unknown").to_string();
        let f = ctx
            .sink
            .make(
                &rules::COMPRESSED_SIZE_QUIRK,
                quirks.first.unwrap_or(0..0),
                format!(
                    "{} of {} compressed CPU streams are 4 bytes longer than their declared size (the chunk-count field is not counted)",
                    quirks.short4, quirks.streams
                ),
            )
            .note(format!("writer VERSION option: {ver}"))
            .help("written by trace-cmd before 3.2 (fixed by commit 4b921329); readers ignore this size, the data is readable");
        ctx.sink.push(f);
    }
    latency(ctx, m);
}

fn params(m: &TraceDat, b: &BufferInfo, cpu: u32) -> RingParams {
    RingParams::new(
        b.page_size,
        m.kernel_long,
        m.header.endian,
        cpu,
        b.name.clone(),
    )
}

fn label(b: &BufferInfo, e: &CpuEntry) -> String {
    if b.name.is_empty() {
        format!("CPU {}", e.cpu)
    } else {
        format!("buffer `{}` CPU {}", b.name, e.cpu)
    }
}

fn cpu(
    ctx: &mut Ctx<'_, '_>,
    m: &TraceDat,
    b: &BufferInfo,
    e: &CpuEntry,
    sec: Option<Range<u64>>,
    table: &EventTable,
    quirks: &mut Quirks,
) -> CpuResult {
    let mut res = CpuResult::default();
    if e.size == 0 {
        return res;
    }
    let what = label(b, e);
    let ps = u64::from(b.page_size);
    let len = ctx.len();
    if ps == 0 || !b.page_size.is_power_of_two() {
        return res;
    }
    if e.offset.checked_rem(ps) != Some(0) {
        ctx.sink.report(
            &rules::CPU_DATA_UNALIGNED,
            e.span.clone(),
            format!(
                "{what} data offset 0x{:x} is not a multiple of the page size {ps}",
                e.offset
            ),
        );
        return res;
    }
    let end = e.offset.checked_add(e.size);
    if end.is_none_or(|x| x > len) || e.offset >= len {
        ctx.sink.report(
            &rules::CPU_DATA_RANGE,
            e.span.clone(),
            format!(
                "{what} data 0x{:x} + {} runs past the end of the file ({len} bytes)",
                e.offset, e.size
            ),
        );
        return res;
    }
    if let Some(s) = &sec {
        if e.offset < s.start || e.offset >= s.end {
            ctx.sink.report(
                &rules::CPU_DATA_RANGE,
                e.span.clone(),
                format!(
                    "{what} data at 0x{:x} is outside its BUFFER section body 0x{:x}..0x{:x}",
                    e.offset, s.start, s.end
                ),
            );
            return res;
        }
    }
    let mut w = Walker::new(params(m, b, e.cpu), table);
    if b.compressed {
        quirks.streams = quirks.streams.saturating_add(1);
        let limit_end = sec.as_ref().map_or(len, |s| s.end);
        compressed(ctx, m, b, e, limit_end, &mut w, &mut res, quirks);
    } else {
        let end = end.unwrap_or(len);
        if let Some(s) = &sec {
            if end > s.end {
                ctx.sink.report(
                    &rules::CPU_DATA_RANGE,
                    e.span.clone(),
                    format!(
                        "{what} data 0x{:x}..0x{end:x} runs past its BUFFER section end 0x{:x}",
                        e.offset, s.end
                    ),
                );
                return res;
            }
        }
        if e.size.checked_rem(ps) != Some(0) {
            ctx.sink.report(
                &rules::CPU_DATA_SIZE,
                e.span.clone(),
                format!(
                    "{what} data size {} is not a multiple of the page size {ps}",
                    e.size
                ),
            );
        }
        let (Ok(s), Ok(en)) = (usize::try_from(e.offset), usize::try_from(end)) else {
            return res;
        };
        let Some(bytes) = ctx.data.get(s..en) else {
            return res;
        };
        let Ok(psz) = usize::try_from(ps) else {
            return res;
        };
        let mut off = e.offset;
        for page in bytes.chunks_exact(psz) {
            w.page(Reader::with_base(page, off, m.header.endian), ctx.sink);
            off = off.saturating_add(ps);
        }
        res.stored = e.size;
        res.raw = e.size;
    }
    if b.compressed {
        let mut scratch = Sink::new(ctx.limits.max_findings);
        res.stats = w.finish(&mut scratch);
        let (found, _) = scratch.into_parts();
        for mut f in found {
            let at = f.offset;
            f.offset = e.span.start;
            f.length = e.span.end.saturating_sub(e.span.start);
            f.notes
                .push(format!("at offset {at} of {what}'s decompressed data"));
            ctx.sink.push(f);
        }
    } else {
        res.stats = w.finish(ctx.sink);
    }
    res
}

/// Walks a compressed chunk stream: `u32 count · count × (u32 zsize · u32 usize · zsize bytes)`.
#[allow(clippy::too_many_arguments)]
fn compressed(
    ctx: &mut Ctx<'_, '_>,
    m: &TraceDat,
    b: &BufferInfo,
    e: &CpuEntry,
    limit_end: u64,
    w: &mut Walker<'_>,
    res: &mut CpuResult,
    quirks: &mut Quirks,
) {
    let what = label(b, e);
    let Some(algo) = m.header.algo.filter(|a| *a != Algo::None) else {
        return;
    };
    let data = ctx.data;
    let Some(region) = usize::try_from(limit_end)
        .ok()
        .and_then(|end| data.get(..end))
    else {
        return;
    };
    let mut r = Reader::new(region, m.header.endian);
    if r.seek(e.offset, "chunk stream").is_err() {
        return;
    }
    let Ok(count) = r.u32("chunk count") else {
        ctx.sink.report(
            &rules::CHUNK_STREAM,
            e.span.clone(),
            format!("{what}: the chunk count does not fit before the section end"),
        );
        return;
    };
    let count_span = e.offset..e.offset.saturating_add(4);
    if count == 0 {
        ctx.sink.report(
            &rules::CHUNK_STREAM,
            count_span,
            format!(
                "{what}: the chunk stream has 0 chunks but {} bytes are declared",
                e.size
            ),
        );
        return;
    }
    if u64::from(count).saturating_mul(8) > r.remaining() as u64 {
        ctx.sink.report(
            &rules::CHUNK_STREAM,
            count_span,
            format!(
                "{what}: {count} chunks cannot fit in the {} bytes before the section end",
                r.remaining()
            ),
        );
        return;
    }
    let ps = u64::from(b.page_size);
    let Ok(psz) = usize::try_from(ps) else { return };
    let mut buf: Vec<u8> = Vec::new();
    let mut raw_off: u64 = 0;
    for i in 0..count {
        let cs = r.offset();
        let (Ok(zsize), Ok(usize_)) = (r.u32("chunk csize"), r.u32("chunk usize")) else {
            ctx.sink.report(
                &rules::CHUNK_STREAM,
                cs..r.end_offset(),
                format!("{what}: chunk {i} header does not fit before the section end"),
            );
            return;
        };
        let Ok(input) = r.bytes_u64(u64::from(zsize), "chunk") else {
            ctx.sink.report(
                &rules::CHUNK_STREAM,
                cs..cs.saturating_add(8),
                format!("{what}: chunk {i} declares {zsize} compressed bytes, only {} remain before the section end", r.remaining()),
            );
            return;
        };
        let cspan = cs..r.offset();
        if u64::from(usize_).checked_rem(ps) != Some(0) && i.saturating_add(1) < count {
            ctx.sink.report(
                &rules::CPU_DATA_SIZE,
                cspan.clone(),
                format!(
                    "{what}: chunk {i} holds {usize_} bytes, not a multiple of the page size {ps}"
                ),
            );
        }
        if !ctx.reserve(u64::from(usize_), cspan.clone()) {
            return;
        }
        let Ok(un) = usize::try_from(usize_) else {
            return;
        };
        buf.clear();
        buf.resize(un, 0);
        if !ctx.decompress(
            algo,
            input,
            &mut buf,
            cspan.clone(),
            &format!("{what} chunk {i}"),
        ) {
            return;
        }
        res.chunks = res.chunks.saturating_add(1);
        res.raw = res.raw.saturating_add(u64::from(usize_));
        // Walk the pages of this chunk with a scratch sink, then move the findings to the
        // chunk's file span (decompressed offsets are not file offsets).
        let mut scratch = Sink::new(ctx.limits.max_findings);
        let mut pos = raw_off;
        for page in buf.chunks(psz) {
            w.page(Reader::with_base(page, pos, m.header.endian), &mut scratch);
            pos = pos.saturating_add(ps);
        }
        if u64::from(usize_).checked_rem(ps) != Some(0) && i.saturating_add(1) == count {
            ctx.sink.report(
                &rules::CPU_DATA_SIZE,
                cspan.clone(),
                format!("{what}: the last chunk holds {usize_} bytes, not a whole number of {ps}-byte pages"),
            );
        }
        let (found, _) = scratch.into_parts();
        for mut f in found {
            let at = f.offset;
            f.offset = cspan.start;
            f.length = cspan.end.saturating_sub(cspan.start);
            f.notes.push(format!(
                "at offset {at} of {what}'s decompressed data (chunk {i}; the span shows the compressed chunk)"
            ));
            ctx.sink.push(f);
        }
        raw_off = raw_off.saturating_add(u64::from(usize_));
    }
    let stream = r.offset().saturating_sub(e.offset);
    res.stored = stream;
    if stream == e.size {
        return;
    }
    if stream == e.size.saturating_add(4) {
        quirks.short4 = quirks.short4.saturating_add(1);
        if quirks.first.is_none() {
            quirks.first = Some(e.span.clone());
        }
        return;
    }
    ctx.sink.report(
        &rules::CHUNK_STREAM,
        e.span.clone(),
        format!(
            "{what}: declared size {} but the chunk stream at 0x{:x} is {stream} bytes",
            e.size, e.offset
        ),
    );
}

/// Latency text: NUL bytes (v6 rest of file; v7 section body, a chunk stream when compressed).
fn latency(ctx: &mut Ctx<'_, '_>, m: &TraceDat) {
    let Some((span, compressed)) = m.latency.clone() else {
        return;
    };
    let data = ctx.data;
    let (Ok(s), Ok(e)) = (usize::try_from(span.start), usize::try_from(span.end)) else {
        return;
    };
    let Some(body) = data.get(s..e) else { return };
    if !compressed {
        if let Some(i) = body.iter().position(|&b| b == 0) {
            let at = span.start.saturating_add(i as u64);
            ctx.sink.report(
                &rules::LATENCY_TEXT,
                at..at.saturating_add(1),
                format!("latency text has a NUL byte at 0x{at:x}; readers stop printing there"),
            );
        }
        return;
    }
    let Some(algo) = m.header.algo.filter(|a| *a != Algo::None) else {
        return;
    };
    let mut r = Reader::with_base(body, span.start, m.header.endian);
    let Ok(count) = r.u32("chunk count") else {
        ctx.sink.report(
            &rules::CHUNK_STREAM,
            span.clone(),
            "latency chunk stream has no chunk count",
        );
        return;
    };
    let mut buf = Vec::new();
    for i in 0..count {
        let cs = r.offset();
        let (Ok(z), Ok(u)) = (r.u32("csize"), r.u32("usize")) else {
            ctx.sink.report(
                &rules::CHUNK_STREAM,
                cs..r.end_offset(),
                format!("latency chunk {i} header does not fit in the section"),
            );
            return;
        };
        let Ok(input) = r.bytes_u64(u64::from(z), "chunk") else {
            ctx.sink.report(
                &rules::CHUNK_STREAM,
                cs..cs.saturating_add(8),
                format!("latency chunk {i} declares {z} bytes, fewer remain"),
            );
            return;
        };
        let cspan = cs..r.offset();
        if !ctx.reserve(u64::from(u), cspan.clone()) {
            return;
        }
        let Ok(un) = usize::try_from(u) else { return };
        buf.clear();
        buf.resize(un, 0);
        if !ctx.decompress(
            algo,
            input,
            &mut buf,
            cspan.clone(),
            &format!("latency chunk {i}"),
        ) {
            return;
        }
        if buf.contains(&0) {
            ctx.sink.report(
                &rules::LATENCY_TEXT,
                cspan,
                format!("latency chunk {i} has a NUL byte; readers stop printing there"),
            );
            return;
        }
    }
    if !r.is_empty() {
        ctx.sink.report(
            &rules::CHUNK_STREAM,
            r.offset()..r.end_offset(),
            format!(
                "{} bytes follow the latency chunk stream in its section",
                r.remaining()
            ),
        );
    }
}
