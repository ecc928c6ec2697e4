//! Per-CPU data: range checks, chunk streams, and the page walk (one page or one decompressed
//! chunk at a time, so memory stays bounded by the largest chunk whatever the file size).

use super::super::model::{opt_id, Algo, BufferInfo, CpuEntry, CpuResult, TraceDat};
use super::super::rules;
use super::compress::Decompressor;
use super::ctx::{decompress_report, Ctx};
use super::pages::SiftedPages;
use crate::finding::{Levels, Sink};
use crate::formats::ftrace_ring::{EventTable, RingParams, Walker};
use crate::input::{ByteSource, SliceSource};
use crate::reader::Reader;
use std::ops::Range;

/// Bytes of uncompressed CPU data read per step (a whole number of pages).
const WINDOW_PAGES: u64 = 256;

/// Builds the walker's event table from the parsed formats.
pub fn event_table(m: &TraceDat) -> EventTable {
    let mut t = EventTable::new();
    for f in &m.meta.formats {
        t.insert_with_tail(
            f.id,
            format!("{}:{}", f.system, f.name),
            f.min_size(),
            f.tail(),
        );
    }
    t
}

/// Aggregated writer-quirk sightings (reported once per file) and the ranges already walked.
#[derive(Default)]
struct Quirks {
    short4: u64,
    streams: u64,
    first: Option<Range<u64>>,
    /// start → (end, label) of every CPU range claimed so far: a range overlapping one of them
    /// is reported and not walked again (no amplification by aliased ranges).
    walked: std::collections::BTreeMap<u64, (u64, String)>,
    /// Where each CPU's data starts (every buffer): where a CPU's data with a wrapped size can
    /// run to.
    starts: Vec<u64>,
}

impl Quirks {
    /// Claims `r`; returns the label and range of an earlier claim it overlaps.
    fn claim(&mut self, r: Range<u64>, label: &str) -> Option<(String, Range<u64>)> {
        if let Some((&s, (e, l))) = self.walked.range(..=r.start).next_back() {
            if *e > r.start {
                return Some((l.clone(), s..*e));
            }
        }
        if let Some((&s, (e, l))) = self.walked.range(r.start..).next() {
            if s < r.end {
                return Some((l.clone(), s..*e));
            }
        }
        self.walked.insert(r.start, (r.end, label.to_string()));
        None
    }
}

/// Checks and walks every CPU of every buffer; fills `results`.
pub fn check(ctx: &mut Ctx<'_, '_>, m: &mut TraceDat) {
    let mut table = event_table(m);
    for (id, name) in &ctx.unparsed_formats {
        table.insert_unparsed(*id, name);
    }
    if let Some(s) = ctx.sieve {
        s.check_ids(&table);
        let from_file = ctx.cpu_source.is_some();
        s.check_spans(
            metadata_spans(m, from_file).chain(ctx.sink.findings().iter().map(|f| f.span())),
        );
    }
    let mut quirks = Quirks::default();
    let mut bufs = std::mem::take(&mut m.buffers);
    run(ctx, m, &mut bufs, &table, &mut quirks);
    m.buffers = bufs;
    if quirks.short4 > 0 {
        let producer = m.producer();
        let f = ctx
            .sink
            .make(
                &rules::COMPRESSED_SIZE_QUIRK,
                quirks.first.unwrap_or(0..0),
                format!(
                    "{} of {} compressed CPU streams are 4 bytes longer than their declared size: written by {producer}, which does not count the chunk-count field (trace-cmd 3.0–3.1.x, fixed in 3.2 by commit 4b921329)",
                    quirks.short4, quirks.streams
                ),
            )
            .help("readers ignore this size and read the chunks; the data is readable");
        ctx.sink.push(f);
    }
    latency(ctx, m);
}

/// Every span the metadata was decoded from: the header, v6's sequential metadata, instance
/// tables and CPU entries, every v7 section header and every section body but uncompressed ring
/// data (and chunk streams, when `from_file`: the CPU walk reads them from the file), the
/// latency text.
fn metadata_spans(m: &TraceDat, from_file: bool) -> impl Iterator<Item = Range<u64>> + '_ {
    let v6 = (m.header.version == 6).then_some(0..m.meta_end);
    let sections = m.sections.iter().flat_map(move |s| {
        let ring = s.id == opt_id::BUFFER && (!s.compressed() || from_file);
        let header = s.offset..s.offset.saturating_add(16);
        std::iter::once(header).chain((!ring).then(|| s.body.clone()))
    });
    let buffers = m
        .buffers
        .iter()
        .flat_map(|b| std::iter::once(b.span.clone()).chain(b.cpus.iter().map(|e| e.span.clone())));
    std::iter::once(m.header.span.clone())
        .chain(v6)
        .chain(sections)
        .chain(buffers)
        .chain(m.latency.iter().map(|(r, _)| r.clone()))
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

/// Where a CPU's pages come from.
enum Source {
    /// Uncompressed pages at `start..end` of the file.
    Plain(Range<u64>),
    /// Compressed chunks.
    Chunks(Vec<Chunk>),
}

/// One compressed chunk: file range of the compressed bytes, declared size, chunk span.
type Chunk = (Range<u64>, u32, Range<u64>);

/// One CPU's walk, planned sequentially and run in parallel.
struct Job {
    buffer: usize,
    entry: usize,
    params: RingParams,
    what: String,
    span: Range<u64>,
    source: Source,
}

/// What a job produced.
struct JobOut {
    buffer: usize,
    entry: usize,
    stats: crate::formats::ftrace_ring::CpuStats,
    raw: u64,
    chunks: u64,
    /// The job's findings (and those it counted past the cap).
    sink: Sink,
}

/// Checks ranges, chunk tables and limits of every CPU (sequentially, findings in order),
/// then walks the CPUs in parallel and merges their findings in CPU order.
fn run(
    ctx: &mut Ctx<'_, '_>,
    m: &TraceDat,
    bufs: &mut [BufferInfo],
    table: &EventTable,
    quirks: &mut Quirks,
) {
    let mut jobs = Vec::new();
    quirks.starts = bufs
        .iter()
        .flat_map(|b| b.cpus.iter().map(|c| c.offset))
        .collect();
    for (bi, b) in bufs.iter_mut().enumerate() {
        let sec = b
            .section
            .and_then(|i| m.sections.get(i))
            .map(|s| s.body.clone());
        let mut results = Vec::with_capacity(b.cpus.len());
        for (ci, e) in b.cpus.iter().enumerate() {
            let mut res = CpuResult::default();
            if let Some(source) = plan(ctx, m, b, e, sec.clone(), quirks, &mut res) {
                jobs.push(Job {
                    buffer: bi,
                    entry: ci,
                    params: params(m, b, e.cpu),
                    what: label(b, e),
                    span: e.span.clone(),
                    source,
                });
            }
            results.push(res);
        }
        b.results = results;
    }
    if let (Some(sv), Some(_)) = (ctx.sieve, ctx.cpu_source) {
        // Only pages walked from the file may have been left out of the holed bytes.
        sv.check_covered(jobs.iter().filter_map(|j| match &j.source {
            Source::Plain(r) => Some(r.clone()),
            // The count, then every chunk header and body, all read from the file.
            Source::Chunks(chunks) => {
                let first = chunks.first()?.2.start.checked_sub(4)?;
                Some(first..chunks.last()?.2.end)
            }
        }));
    }
    let slice = SliceSource(ctx.data);
    let data: &dyn ByteSource = ctx.cpu_source.unwrap_or(&slice);
    let algo = m.header.algo.unwrap_or(Algo::None);
    let max = ctx.limits.max_findings;
    let len = ctx.len();
    let levels = ctx.sink.levels().clone();
    use rayon::prelude::*;
    let sieve = ctx.sieve;
    let outs: Vec<JobOut> = jobs
        .par_iter()
        .map(|j| run_job(j, data, sieve, len, algo, table, max, &levels))
        .collect();
    for o in outs {
        ctx.sink.absorb(o.sink);
        if let Some(r) = bufs
            .get_mut(o.buffer)
            .and_then(|b| b.results.get_mut(o.entry))
        {
            r.stats = o.stats;
            r.raw = o.raw;
            r.chunks = o.chunks;
        }
    }
}

/// Range, alignment, overlap and chunk-table checks of one CPU; the source to walk if any.
fn plan(
    ctx: &mut Ctx<'_, '_>,
    m: &TraceDat,
    b: &BufferInfo,
    e: &CpuEntry,
    sec: Option<Range<u64>>,
    quirks: &mut Quirks,
    res: &mut CpuResult,
) -> Option<Source> {
    if e.size == 0 {
        return None;
    }
    let what = label(b, e);
    let ps = u64::from(b.page_size);
    let len = ctx.len();
    if ps == 0 || !b.page_size.is_power_of_two() {
        return None;
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
        return None;
    }
    let end = e.offset.checked_add(e.size);
    // trace-cmd checks `offset + size > file size` in unsigned arithmetic: a size that wraps
    // passes, and the data is then read another way (below).
    let wraps = end.is_none() && e.offset < len && e.offset.wrapping_add(e.size) <= len;
    if wraps {
        return wrapped(ctx, m, b, e, res, quirks);
    }
    if end.is_none_or(|x| x > len) || e.offset >= len {
        ctx.sink.report(
            &rules::CPU_DATA_RANGE,
            e.span.clone(),
            format!(
                "{what} data 0x{:x} + {} runs past the end of the file ({len} bytes)",
                e.offset, e.size
            ),
        );
        return None;
    }
    let end = end.unwrap_or(len);
    let mut outside = false;
    if let Some(s) = &sec {
        if e.offset < s.start || e.offset >= s.end {
            outside = true;
            // trace-cmd 3.1.6–3.3.4 read CPU data at the BUFFER option's offset and size and
            // never use the section size: data that lies in no other section reads the same.
            let own = s.clone();
            let elsewhere = m.sections.iter().any(|o| {
                o.body != own
                    && o.offset < end
                    && e.offset < o.body.end.max(o.offset.saturating_add(16))
            });
            let msg = format!(
                "{what} data at 0x{:x} is outside its BUFFER section body 0x{:x}..0x{:x}",
                e.offset, s.start, s.end
            );
            if elsewhere {
                ctx.sink.report(
                    &rules::CPU_DATA_RANGE,
                    e.span.clone(),
                    format!("{msg}, inside another section"),
                );
                return None;
            }
            let f = ctx
                .sink
                .make(
                    &rules::CPU_DATA_RANGE,
                    e.span.clone(),
                    format!("{msg} (the section size is short); trace-cmd 3.1.6–3.3.4 read it at the BUFFER option's offset all the same"),
                )
                .read_same("trace-cmd report", "3.1.6–3.3.4");
            ctx.sink.push(f);
        }
    }
    // Uncompressed data ending inside a page is read up to the end of that page (below).
    let rem = e.size.checked_rem(ps).unwrap_or(0);
    let whole = end.saturating_add(ps.saturating_sub(rem));
    let claim_len = if b.compressed {
        e.size.saturating_add(4)
    } else if rem != 0 && whole <= len {
        whole.saturating_sub(e.offset)
    } else {
        e.size
    };
    if !claim(ctx, quirks, e, &what, claim_len, end) {
        return None;
    }
    // trace-cmd 3.1.6–3.3.4 read CPU data (and a compressed stream's chunks) from the file
    // at the option's offset, by the entry's and the chunks' own sizes, whatever the section
    // size says: data running past the section end reads the same unless another section is
    // there.
    let past_end = |ctx: &mut Ctx<'_, '_>, stop: u64| -> bool {
        let Some(s) = &sec else { return false };
        if outside || stop <= s.end {
            return false;
        }
        let own = s.clone();
        let elsewhere = m.sections.iter().any(|o| {
            o.body != own && o.offset < stop && s.end < o.body.end.max(o.offset.saturating_add(16))
        });
        let msg = format!(
            "{what} data 0x{:x}..0x{stop:x} runs past its BUFFER section end 0x{:x}",
            e.offset, s.end
        );
        if elsewhere {
            ctx.sink.report(
                &rules::CPU_DATA_RANGE,
                e.span.clone(),
                format!("{msg}, into another section"),
            );
            return true;
        }
        let f = ctx
            .sink
            .make(
                &rules::CPU_DATA_RANGE,
                e.span.clone(),
                format!("{msg} (the section size is short); trace-cmd 3.1.6–3.3.4 read it by the BUFFER option's offset and size all the same"),
            )
            .read_same("trace-cmd report", "3.1.6–3.3.4");
        ctx.sink.push(f);
        false
    };
    if b.compressed {
        quirks.streams = quirks.streams.saturating_add(1);
        let chunks = chunk_table(ctx, m, b, e, Some(e.size), res, quirks);
        if chunks.is_some() {
            let stored = if res.stored > 0 { res.stored } else { e.size };
            let stop = e.offset.saturating_add(stored);
            if past_end(ctx, stop) {
                return None;
            }
        }
        return chunks.map(Source::Chunks);
    }
    if past_end(ctx, end) {
        return None;
    }
    res.stored = e.size;
    if rem == 0 {
        return Some(Source::Plain(e.offset..end));
    }
    let msg = format!(
        "{what} data size {} is not a multiple of the page size {ps}",
        e.size
    );
    // trace-cmd maps every page of a CPU whole, the last one too (`get_next_page` goes on
    // while more than a page is left, `get_page` maps `page_size` bytes): a size that ends
    // inside a page whose bytes are all in the file is read as that whole page, and the page
    // is walked whole here too.
    if whole <= len {
        let f = ctx
            .sink
            .make(
                &rules::CPU_DATA_SIZE,
                e.span.clone(),
                format!("{msg}; the page it ends in is in the file up to 0x{whole:x}, and trace-cmd 2.4, 2.9.5, 3.1.6 and 3.3.4 read that page whole: the same report as with the whole page (24 of 24 v6 and v7 sizes one byte short in the campaign, sizes cut to 16 bytes and to the middle of the page)"),
            )
            .read_same("trace-cmd report", "2.4–3.3.4");
        ctx.sink.push(f);
        return Some(Source::Plain(e.offset..whole));
    }
    ctx.sink.report(&rules::CPU_DATA_SIZE, e.span.clone(), msg);
    Some(Source::Plain(e.offset..end))
}

/// Claims `len` bytes of `e`'s data (shown as ending at `end`); false, with the finding, when
/// they overlap data claimed before: that CPU is not walked again.
fn claim(
    ctx: &mut Ctx<'_, '_>,
    quirks: &mut Quirks,
    e: &CpuEntry,
    what: &str,
    len: u64,
    end: u64,
) -> bool {
    let Some((other, r)) = quirks.claim(e.offset..e.offset.saturating_add(len), what) else {
        return true;
    };
    ctx.sink.report(
        &rules::CPU_DATA_OVERLAP,
        e.span.clone(),
        format!(
            "{what} data 0x{:x}..0x{end:x} overlaps {other} data 0x{:x}..0x{:x}; it was not walked again",
            e.offset, r.start, r.end
        ),
    );
    false
}

/// A CPU whose size makes `offset + size` wrap past 2^64 (all ones, typically): trace-cmd's
/// range check passes. A compressed stream is then read by its chunk count (trace-cmd
/// 3.1.6–3.3.4 `init_cpu_zfile` sums the chunks' sizes): the same events. Plain data is read
/// one page: `nr_pages` wraps to 1 and the next page's offset fails `get_page`'s bound, so a
/// CPU with more than one page there loses the rest.
fn wrapped(
    ctx: &mut Ctx<'_, '_>,
    m: &TraceDat,
    b: &BufferInfo,
    e: &CpuEntry,
    res: &mut CpuResult,
    quirks: &mut Quirks,
) -> Option<Source> {
    let what = label(b, e);
    let len = ctx.len();
    let ps = u64::from(b.page_size);
    let msg = format!(
        "{what} data size {} makes 0x{:x} + size wrap past 2^64",
        e.size, e.offset
    );
    if b.compressed {
        quirks.streams = quirks.streams.saturating_add(1);
        let chunks = chunk_table(ctx, m, b, e, None, res, quirks)?;
        let stop = e.offset.saturating_add(res.stored);
        if !claim(ctx, quirks, e, &what, res.stored, stop) {
            return None;
        }
        let f = ctx
            .sink
            .make(
                &rules::CPU_DATA_RANGE,
                e.span.clone(),
                format!("{msg}: trace-cmd's range check passes, and trace-cmd 3.1.6–3.3.4 read the chunk stream by its count and the chunks' sizes, the same events"),
            )
            .read_same("trace-cmd report", "3.1.6–3.3.4");
        ctx.sink.push(f);
        return Some(Source::Chunks(chunks));
    }
    // Where the CPU's data can run to: the next CPU's data or section, or the file end.
    let next = quirks
        .starts
        .iter()
        .copied()
        .chain(m.sections.iter().map(|s| s.offset))
        .filter(|&o| o > e.offset)
        .min()
        .unwrap_or(len)
        .min(len);
    let page_end = e.offset.saturating_add(ps).min(len);
    // Beyond the first page: only zeros there, or pages the readers never reach.
    // At most 1 MiB is looked at; past it the rest counts as data.
    let rest_zero = next.saturating_sub(page_end) <= 1 << 20
        && usize::try_from(page_end)
            .ok()
            .zip(usize::try_from(next).ok())
            .and_then(|(a, z)| ctx.data.get(a..z))
            .is_some_and(|rest| rest.iter().all(|&x| x == 0));
    if let Some(sv) = ctx.sieve {
        sv.check_spans(std::iter::once(page_end..next));
    }
    let _ = quirks.claim(e.offset..next, &what);
    res.stored = next.saturating_sub(e.offset);
    // trace-cmd 2.4 and 2.9.5 also try the next page ("bad page offset") and lose other CPUs'
    // records: they read every v6 file, whoever wrote it, and no v7 file.
    let v7 = ctx.version >= 7;
    // Data running to the file's end: trace-cmd 3.1.6–3.3.4 size the page's mapping from the
    // wrapped end and fail ("failed to init data", campaign); followed by another CPU's data
    // they read the page.
    let one_page = (next <= page_end || rest_zero) && next < len;
    if next >= len && (next <= page_end || rest_zero) {
        let f = ctx
            .sink
            .make(
                &rules::CPU_DATA_RANGE,
                e.span.clone(),
                format!("{msg}: trace-cmd's range check passes, but the data runs to the end of the file and trace-cmd 3.1.6–3.3.4 cannot map its page (\"failed to init data\")"),
            )
            .fails("trace-cmd report", "3.1.6–3.3.4", "reject");
        ctx.sink.push(f);
        return Some(Source::Plain(e.offset..page_end));
    }
    let f = if one_page && v7 {
        ctx.sink
            .make(
                &rules::CPU_DATA_RANGE,
                e.span.clone(),
                format!("{msg}: trace-cmd's range check passes and trace-cmd 3.1.6–3.3.4, the readers of a v7 file, read one page, which is all the data there"),
            )
            .read_same("trace-cmd report", "3.1.6–3.3.4")
    } else if one_page {
        ctx.sink
            .make(
                &rules::CPU_DATA_RANGE,
                e.span.clone(),
                format!("{msg}: trace-cmd's range check passes; 3.1.6–3.3.4 read one page, which is all the data there, but 2.4 and 2.9.5 then fail on the next page (\"bad page offset\") and lose records of other CPUs"),
            )
            .fails("trace-cmd report", "2.4–2.9.5", "loss")
    } else {
        ctx.sink
            .make(
                &rules::CPU_DATA_RANGE,
                e.span.clone(),
                format!("{msg}: trace-cmd's range check passes, but trace-cmd 2.4–3.3.4 read only the page at 0x{:x} and lose the data up to 0x{next:x}", e.offset),
            )
            .fails("trace-cmd report", "2.4–3.3.4", "loss")
    };
    ctx.sink.push(f);
    Some(Source::Plain(e.offset..page_end))
}

/// Reads a chunk stream's table: `u32 count · count × (u32 zsize · u32 usize · zsize bytes)`,
/// reserving the decompression budget, and the stream's length against `declared` (`None`: a
/// wrapped size, read by the count alone). Returns the chunks (possibly fewer after an error).
fn chunk_table(
    ctx: &mut Ctx<'_, '_>,
    m: &TraceDat,
    b: &BufferInfo,
    e: &CpuEntry,
    declared: Option<u64>,
    res: &mut CpuResult,
    quirks: &mut Quirks,
) -> Option<Vec<Chunk>> {
    let what = label(b, e);
    m.header.algo.filter(|a| *a != Algo::None)?;
    let data = ctx.data;
    let region = usize::try_from(ctx.len())
        .ok()
        .and_then(|end| data.get(..end))?;
    let mut r = Reader::new(region, m.header.endian);
    r.seek(e.offset, "chunk stream").ok()?;
    let mut hdr = Vec::new();
    let Ok(count) = chunk_count(&mut r, ctx.cpu_source, &mut hdr) else {
        ctx.sink.report(
            &rules::CHUNK_STREAM,
            e.span.clone(),
            format!("{what}: the chunk count does not fit before the section end"),
        );
        return None;
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
        return None;
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
        return None;
    }
    let ps = u64::from(b.page_size);
    let mut chunks = Vec::new();
    let source = ctx.cpu_source;
    for i in 0..count {
        let cs = r.offset();
        let (Ok(zsize), Ok(usize_)) = chunk_header(&mut r, source, &mut hdr) else {
            ctx.sink.report(
                &rules::CHUNK_STREAM,
                cs..r.end_offset(),
                format!("{what}: chunk {i} header does not fit before the section end"),
            );
            return Some(chunks);
        };
        let zs = r.offset();
        if r.skip(u64::from(zsize), "chunk").is_err() {
            ctx.sink.report(
                &rules::CHUNK_STREAM,
                cs..cs.saturating_add(8),
                format!("{what}: chunk {i} declares {zsize} compressed bytes, only {} remain before the section end", r.remaining()),
            );
            return Some(chunks);
        }
        let cspan = cs..r.offset();
        let last = i.saturating_add(1) == count;
        if u64::from(usize_).checked_rem(ps) != Some(0) {
            let msg = if last {
                format!("{what}: the last chunk holds {usize_} bytes, not a whole number of {ps}-byte pages")
            } else {
                format!(
                    "{what}: chunk {i} holds {usize_} bytes, not a multiple of the page size {ps}"
                )
            };
            ctx.sink.report(&rules::CPU_DATA_SIZE, cspan.clone(), msg);
        }
        if !ctx.reserve(u64::from(usize_), cspan.clone()) {
            return Some(chunks);
        }
        res.raw = res.raw.saturating_add(u64::from(usize_));
        chunks.push((zs..r.offset(), usize_, cspan));
    }
    let stream = r.offset().saturating_sub(e.offset);
    res.stored = stream;
    // No size to compare (a wrapped size): the stream is read by its count.
    let Some(size) = declared else {
        return Some(chunks);
    };
    if stream == size {
        return Some(chunks);
    }
    if stream == size.saturating_add(4) {
        quirks.short4 = quirks.short4.saturating_add(1);
        if quirks.first.is_none() {
            quirks.first = Some(e.span.clone());
        }
        return Some(chunks);
    }
    // Fewer chunks than the declared size holds: another chunk follows the last one counted,
    // and readers, which go by the count, never read its events.
    if stream < size {
        // trace-cmd 3.0–3.1 declare 4 bytes fewer than the stream (the count), see `short4`.
        let rest = size.saturating_add(4).saturating_sub(stream);
        let mut peek = r.clone();
        if let (Ok(zsize), Ok(_)) = chunk_header(&mut peek, source, &mut hdr) {
            if rest >= 8 && u64::from(zsize).saturating_add(8) <= rest {
                let f = ctx
                    .sink
                    .make(
                        &rules::CHUNK_STREAM,
                        e.span.clone(),
                        format!(
                            "{what}: declared size {} but the {count} chunk(s) counted at 0x{:x} end after {stream} bytes, and another chunk header follows: trace-cmd 3.1.6–3.3.4 read only the counted chunks and lose the rest",
                            size, e.offset
                        ),
                    )
                    .fails("trace-cmd report", "3.1.6–3.3.4", "loss");
                ctx.sink.push(f);
                return Some(chunks);
            }
        }
    }
    // The stream itself is whole: trace-cmd 3.1.6–3.3.4 (`tracecmd_load_chunks_info`) read
    // the chunks by their own headers and use the declared size only to skip an empty CPU.
    let msg = format!(
        "{what}: declared size {} but the chunk stream at 0x{:x} is {stream} bytes",
        size, e.offset
    );
    let f = if size > 0 {
        ctx.sink
            .make(
                &rules::CHUNK_STREAM,
                e.span.clone(),
                format!("{msg}; the stream is whole, and trace-cmd 3.1.6–3.3.4 read its chunks by their own headers and the same events"),
            )
            .read_same("trace-cmd report", "3.1.6–3.3.4")
    } else {
        ctx.sink
            .make(&rules::CHUNK_STREAM, e.span.clone(), msg)
            .level(crate::finding::Severity::Error)
    };
    ctx.sink.push(f);
    Some(chunks)
}

/// Reads a chunk header (`u32 csize · u32 usize`). With a file source the 8 bytes are read
/// from the file rather than through the mapping, so walking the chunk table of a large
/// compressed file does not make every page of the mapping resident.
fn chunk_header(
    r: &mut Reader<'_>,
    source: Option<&dyn ByteSource>,
    buf: &mut Vec<u8>,
) -> (Result<u32, ()>, Result<u32, ()>) {
    let Some(src) = source else {
        return (
            r.u32("chunk csize").map_err(|_| ()),
            r.u32("chunk usize").map_err(|_| ()),
        );
    };
    let at = r.offset();
    if r.remaining() < 8 {
        return (Err(()), Err(()));
    }
    let Some(bytes) = src.bytes(at..at.saturating_add(8), buf) else {
        return (Err(()), Err(()));
    };
    let mut h = Reader::with_base(bytes, at, r.endian());
    let out = (
        h.u32("chunk csize").map_err(|_| ()),
        h.u32("chunk usize").map_err(|_| ()),
    );
    if r.skip(8, "chunk header").is_err() {
        return (Err(()), Err(()));
    }
    out
}

/// Reads a chunk stream's count (`u32`), from the file when there is a file source (a
/// positional sieve may have left the stream out of the bytes).
fn chunk_count(
    r: &mut Reader<'_>,
    source: Option<&dyn ByteSource>,
    buf: &mut Vec<u8>,
) -> Result<u32, ()> {
    let Some(src) = source else {
        return r.u32("chunk count").map_err(|_| ());
    };
    let at = r.offset();
    if r.remaining() < 4 {
        return Err(());
    }
    let bytes = src.bytes(at..at.saturating_add(4), buf).ok_or(())?;
    let count = Reader::with_base(bytes, at, r.endian())
        .u32("chunk count")
        .map_err(|_| ())?;
    r.skip(4, "chunk count").map_err(|_| ())?;
    Ok(count)
}

/// Moves findings raised on decompressed bytes to the file span `to`, noting where they were.
fn remap(into: &mut Sink, from: Sink, to: &Range<u64>, note: &dyn Fn(u64) -> String) {
    let (found, dropped) = from.into_parts_by_level();
    into.absorb_dropped(dropped);
    for mut f in found {
        let at = f.offset;
        f.offset = to.start;
        f.length = to.end.saturating_sub(to.start);
        f.notes.push(note(at));
        into.push(f);
    }
}

/// Walks one CPU: pages straight from the file (or from their summaries when the file was
/// sifted), or one decompressed chunk at a time.
#[allow(clippy::too_many_arguments)]
fn run_job(
    j: &Job,
    data: &dyn ByteSource,
    sieve: Option<&SiftedPages>,
    len: u64,
    algo: Algo,
    table: &EventTable,
    max: usize,
    levels: &Levels,
) -> JobOut {
    let mut sink = Sink::new(max).with_levels(levels.clone());
    let mut w = Walker::new(j.params.clone(), table);
    let endian = j.params.endian;
    let ps = u64::from(j.params.page_size);
    let psz = usize::try_from(ps).unwrap_or(4096).max(1);
    let (mut raw, mut nchunks) = (0u64, 0u64);
    let what = &j.what;
    match &j.source {
        Source::Plain(r) => {
            let mut buf = Vec::new();
            let step = ps.saturating_mul(WINDOW_PAGES).max(1);
            let mut off = r.start;
            while off < r.end {
                let mut end = off.saturating_add(step).min(r.end);
                // Only a whole page of the range is taken from its summary.
                let whole = off.saturating_add(ps) <= r.end;
                if let Some(sv) = sieve.filter(|_| whole) {
                    if let Some(run) = sv.take(off, &j.params) {
                        let n = u64::from(run.pages);
                        let next = off.saturating_add(ps.saturating_mul(n));
                        // A run this CPU's data ends inside: the pages after the end were
                        // another CPU's (or none), the guess did not hold.
                        if next > r.end {
                            sv.spoil();
                            break;
                        }
                        w.pages_summary(&run.summary, n, run.end_ts, off, &mut sink);
                        off = next;
                        continue;
                    }
                    // Read up to the next summarised page.
                    if let Some(next) = sv.next_from(off.saturating_add(1)) {
                        end = end.min(next.max(off.saturating_add(1)));
                    }
                }
                let Some(bytes) = data.bytes(off..end, &mut buf) else {
                    break;
                };
                // A trailing partial page is handed over whole: the walker reports it.
                for page in bytes.chunks(psz) {
                    w.page(Reader::with_base(page, off, endian), &mut sink);
                    off = off.saturating_add(ps);
                }
                off = end;
            }
            raw = r.end.saturating_sub(r.start);
            let stats = w.finish(&mut sink);
            return JobOut {
                buffer: j.buffer,
                entry: j.entry,
                stats,
                raw,
                chunks: 0,
                sink,
            };
        }
        Source::Chunks(chunks) => {
            let mut dec = Decompressor::new();
            let mut buf: Vec<u8> = Vec::new();
            let mut inbuf: Vec<u8> = Vec::new();
            let mut raw_off = 0u64;
            for (i, (zr, usize_, cspan)) in chunks.iter().enumerate() {
                let input = data.bytes(zr.clone(), &mut inbuf).unwrap_or(&[]);
                let Ok(un) = usize::try_from(*usize_) else {
                    break;
                };
                // No clear(): a chunk is walked only when it decompressed to exactly `un`
                // bytes, which overwrites the whole buffer, so zeroing it again is wasted.
                buf.resize(un, 0);
                if !decompress_report(
                    &mut dec,
                    &mut sink,
                    len,
                    algo,
                    input,
                    &mut buf,
                    cspan.clone(),
                    &format!("{what} chunk {i}"),
                ) {
                    break;
                }
                nchunks = nchunks.saturating_add(1);
                raw = raw.saturating_add(u64::from(*usize_));
                let mut scratch = sink.child(max);
                let mut pos = raw_off;
                for page in buf.chunks(psz) {
                    w.page(Reader::with_base(page, pos, endian), &mut scratch);
                    pos = pos.saturating_add(ps);
                }
                remap(&mut sink, scratch, cspan, &|at| {
                    format!("at offset {at} of {what}'s decompressed data (chunk {i}; the span shows the compressed chunk)")
                });
                raw_off = raw_off.saturating_add(u64::from(*usize_));
            }
        }
    }
    let mut scratch = sink.child(max);
    let stats = w.finish(&mut scratch);
    remap(&mut sink, scratch, &j.span, &|at| {
        format!("at offset {at} of {what}'s decompressed data")
    });
    JobOut {
        buffer: j.buffer,
        entry: j.entry,
        stats,
        raw,
        chunks: nchunks,
        sink,
    }
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
