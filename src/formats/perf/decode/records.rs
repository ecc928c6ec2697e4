//! The record walk: the data section of a file, the whole stream of a pipe, and the records
//! decompressed from COMPRESSED records; every SAMPLE body parsed against its attr.

use super::super::model::*;
use super::super::rules;
use super::attrs;
use super::features;
use super::source::{Image, Source};
use crate::finding::{Finding, Severity, Sink};
use crate::limits::Limits;
use crate::reader::{Endian, ReadResult, Reader};
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

/// Findings of one rule reported one by one before the rest are only counted.
const MAX_EACH: u64 = 8;
/// Bytes of decompressed output produced per decoder call.
const ZSTD_CHUNK: usize = 64 * 1024;
/// Decompressed bytes held before the whole records among them are walked, within one
/// COMPRESSED record: perf writes records of at most its mmap size (a few hundred KiB), which
/// stay below it and are walked once the record is decompressed; past it (a hostile or damaged
/// stream) they are walked as they come, so memory stays bounded.
const PENDING_MAX: usize = 8 << 20;
/// Record types counted in an array (the rest in a map).
const COUNTED: usize = 128;
/// Ids looked up by a scan up to this many.
const FEW_IDS: usize = 16;

/// What a SAMPLE body gave.
#[derive(Default)]
struct Sample {
    time: Option<u64>,
    cpu: Option<u32>,
    /// The first u16 of RAW data: a tracepoint's event id.
    common_type: Option<u16>,
}

/// The record walker. It owns the attrs (pipe mode adds to them) and the feature info.
pub struct Walker<'a> {
    image: Image<'a>,
    endian: Endian,
    attrs: Vec<Attr>,
    info: FeatureInfo,
    limits: &'a Limits,
    walk: Walk,
    ids: HashMap<u64, usize>,
    /// The names MMAP and MMAP2 records mapped so far (at most 65,536).
    map_names: std::collections::HashSet<Vec<u8>>,
    /// Maps of user-space objects with a kernel cpu mode, the first of their object, whose
    /// object has no BUILD_ID entry: (name, record).
    kernel_user_maps: HashMap<Vec<u8>, Range<u64>>,
    /// The ids while they are few: looked up by a scan, faster than hashing.
    few_ids: Vec<(u64, usize)>,
    /// Where a sample's fields are, per attr.
    layouts: Vec<Layout>,
    features: Vec<Feature>,
    zstd: Option<zstd::stream::raw::Decoder<'static>>,
    zstd_failed: bool,
    /// The decoder's output buffer, reused.
    chunk: Vec<u8>,
    /// Records per type below [`COUNTED`], folded into `walk.by_type` when the walk ends.
    by_type: [u64; COUNTED],
    pending: Vec<u8>,
    pending_span: Range<u64>,
    counts: BTreeMap<&'static str, (u64, Range<u64>)>,
    misaligned: bool,
    pipe: bool,
    /// A limit stopped the walk: the rest of a stream is not read.
    limited: bool,
    feature_end: bool,
    open_end: bool,
    rounds: Rounds,
    /// THREAD_MAP and CPU_MAP seen (what `perf script` sets its counters up from).
    stat_maps: (bool, bool),
    /// `perf stat record`'s maps as read: the THREAD_MAP's count and the CPU_MAP's cpus (a
    /// list or a range; `None` for a mask, not checked).
    stat_threads: Option<u64>,
    stat_cpus: Option<Vec<i64>>,
    /// Per attr (by index), whether a SAMPLE of it was walked; only tracepoint attrs are
    /// marked (the one use, `raw_left_effect`).
    sampled: Vec<bool>,
    /// A stream's metadata as linux-perf-data 0.13.0 reads it.
    lpd_meta: LpdMeta,
}

/// linux-perf-data 0.13.0 reads a pipe-mode stream's HEADER_ATTR and HEADER_FEATURE records up
/// to the first record of another type (`PerfFileReader::parse_pipe_impl`), and no further.
#[derive(Default)]
struct LpdMeta {
    /// That first record: (type, offset).
    first_other: Option<(u32, u64)>,
    /// An EVENT_DESC HEADER_FEATURE before it.
    event_desc: bool,
}

/// The size a user record's own fields give it (`rec`: its bytes, as far as they are there),
/// for the types whose size follows from them: FINISHED_ROUND and FINISHED_INIT (8),
/// STAT (48), STAT_ROUND (24), ID_INDEX, THREAD_MAP and STAT_CONFIG (from their count),
/// CPU_MAP lists (type 0, padded to 8) and ranges (type 2), and EVENT_UPDATE units, scales and
/// names.
fn natural_size(rec: &[u8], kind: u32, e: Endian) -> Option<u64> {
    let counted = |each: u64| {
        crate::reader::u64_at(rec, 8, e).and_then(|n| n.checked_mul(each)?.checked_add(16))
    };
    match kind {
        // EVENT_UPDATE: perf 6.1 allocates its record 8 bytes past the struct: a scale is 48
        // bytes, a unit or name 40 plus the string padded to 8 with its NUL (all 75 of the
        // real recordings); a CPU list is left alone.
        78 => match crate::reader::u64_at(rec, 8, e)? {
            1 => Some(48),
            0 | 2 => {
                let nul = rec.get(24..)?.iter().position(|c| *c == 0)? as u64;
                Some((nul.checked_add(8)? & !7).checked_add(40)?)
            }
            _ => None,
        },
        68 | 82 => Some(8),
        76 => Some(48),
        77 => Some(24),
        69 => counted(32),
        73 => counted(24),
        75 => counted(16),
        74 => match crate::reader::u16_at(rec, 8, e)? {
            0 => {
                let nr = u64::from(crate::reader::u16_at(rec, 10, e)?);
                Some(nr.saturating_mul(2).saturating_add(12).saturating_add(7) & !7)
            }
            2 => Some(16),
            _ => None,
        },
        _ => None,
    }
}

/// What perf's ordered-events queue has flushed, followed through the FINISHED_ROUND records
/// (`util/ordered-events.c`): at a round it delivers the records up to `next_flush` (the
/// largest time seen at the round before), then takes the largest time seen so far as the next.
#[derive(Default)]
struct Rounds {
    next_flush: u64,
    last_flush: u64,
    max: u64,
    /// Samples older than `last_flush` when read.
    late: u64,
    /// The first of them: its record, its time and what had been flushed.
    first: Option<(Range<u64>, u64, u64)>,
}

impl Rounds {
    fn sample(&mut self, t: u64, span: &Range<u64>) {
        // Times perf does not queue (`-ETIME`): delivered at once.
        if t == 0 || t == u64::MAX {
            return;
        }
        if t < self.last_flush {
            self.late = self.late.saturating_add(1);
            if self.first.is_none() {
                self.first = Some((span.clone(), t, self.last_flush));
            }
        }
        self.max = self.max.max(t);
    }

    fn round(&mut self) {
        self.last_flush = self.last_flush.max(self.next_flush);
        self.next_flush = self.max;
    }
}

impl<'a> Walker<'a> {
    /// A walker with the attrs and features decoded so far; the bytes that records point to
    /// outside themselves (pipe-mode attrs, features and tracing data) are read into `image`.
    pub fn new(
        image: Image<'a>,
        endian: Endian,
        attrs: Vec<Attr>,
        info: FeatureInfo,
        limits: &'a Limits,
    ) -> Self {
        let mut w = Walker {
            image,
            endian,
            attrs: Vec::new(),
            info,
            limits,
            walk: Walk::default(),
            ids: HashMap::new(),
            map_names: std::collections::HashSet::new(),
            kernel_user_maps: HashMap::new(),
            few_ids: Vec::new(),
            layouts: Vec::new(),
            features: Vec::new(),
            zstd: None,
            zstd_failed: false,
            chunk: Vec::new(),
            by_type: [0; COUNTED],
            pending: Vec::new(),
            pending_span: 0..0,
            counts: BTreeMap::new(),
            misaligned: false,
            pipe: false,
            limited: false,
            feature_end: false,
            open_end: false,
            rounds: Rounds::default(),
            stat_maps: (false, false),
            stat_threads: None,
            stat_cpus: None,
            sampled: Vec::new(),
            lpd_meta: LpdMeta::default(),
        };
        for a in attrs {
            w.add_attr(a);
        }
        w
    }

    fn add_attr(&mut self, a: Attr) {
        let i = self.attrs.len();
        for id in &a.ids {
            if !self.ids.contains_key(id) {
                self.ids.insert(*id, i);
                self.few_ids.push((*id, i));
            }
        }
        self.layouts.push(Layout::of(a.sample_type));
        self.attrs.push(a);
    }

    /// The attr an id belongs to.
    fn id_attr(&self, id: u64) -> Option<usize> {
        if self.few_ids.len() <= FEW_IDS {
            return self.few_ids.iter().find(|(i, _)| *i == id).map(|(_, a)| *a);
        }
        self.ids.get(&id).copied()
    }

    /// Folds the array of counts per record type into the walk's map.
    fn fold_counts(&mut self) {
        for (kind, n) in (0u32..).zip(self.by_type.iter_mut()) {
            if *n > 0 {
                let c = self.walk.by_type.entry(kind).or_insert(0);
                *c = c.saturating_add(*n);
                *n = 0;
            }
        }
    }

    /// The results: the walk, the attrs, the feature info and (pipe mode) the features.
    pub fn finish(mut self) -> (Walk, Vec<Attr>, FeatureInfo, Vec<Feature>) {
        self.fold_counts();
        (self.walk, self.attrs, self.info, self.features)
    }

    /// [`Walker::finish`] of a pipe-mode stream, with the image (its attrs and features).
    pub fn finish_pipe(mut self) -> (Walk, Vec<Attr>, FeatureInfo, Vec<Feature>, Image<'a>) {
        self.fold_counts();
        (self.walk, self.attrs, self.info, self.features, self.image)
    }

    /// [`Walker::finish`] of a file: the walk, the attrs, the feature info and the image back
    /// (more of the file may be read into it).
    pub fn finish_with_image(mut self) -> (Walk, Vec<Attr>, FeatureInfo, Image<'a>) {
        self.fold_counts();
        (self.walk, self.attrs, self.info, self.image)
    }

    /// Reports a per-record finding, the first [`MAX_EACH`] of each rule one by one.
    fn report(&mut self, sink: &mut Sink, f: crate::finding::Finding) {
        let e = self.counts.entry(f.rule.code).or_insert((0, f.span()));
        e.0 = e.0.saturating_add(1);
        if e.0 <= MAX_EACH {
            sink.push(f);
        }
    }

    fn note_stop(&mut self, at: u64) {
        if self.walk.stopped_at.is_none() {
            self.walk.stopped_at = Some(at);
            self.walk.samples_before_stop = self.walk.samples;
        }
    }

    fn summarize(&mut self, sink: &mut Sink) {
        let counts = std::mem::take(&mut self.counts);
        for (code, (n, span)) in counts {
            if n > MAX_EACH {
                let Some(rule) = rules::RULES.iter().copied().find(|r| r.code == code) else {
                    continue;
                };
                sink.push(
                    sink.make(rule, span, format!("{} more records like the above were not reported one by one ({n} in all)", n.saturating_sub(MAX_EACH)))
                        .level(Severity::Info),
                );
            }
        }
    }

    /// How perf 6.1 fares when processing stops at a record: the samples before it.
    fn stop_effect(&self) -> String {
        format!(
            "perf 6.1 stops here and drops what it has queued: `perf report` shows 0 of the {} whole samples before this record (exit 0), `perf script` only those flushed at earlier rounds",
            self.walk.samples
        )
    }

    /// Walks the data section of a file (`range`: as the header says, or to the end of the
    /// file for an unfinished recording).
    pub fn walk_file<S: Source + ?Sized>(
        &mut self,
        src: &mut S,
        range: Range<u64>,
        unfinished: bool,
        sink: &mut Sink,
    ) {
        self.open_end = unfinished;
        self.walk_stream(src, range.clone(), sink);
        self.fold_counts();
        self.report_lost(range, sink);
        self.finish_compressed(sink);
        self.check_tracepoint_attrs(sink);
        self.report_rounds(sink);
        self.summarize(sink);
    }

    /// Walks a pipe-mode stream: every record after the 16-byte header (`range` ends at the
    /// end of the input, `u64::MAX` for a stream whose end is not known yet). Returns the end.
    pub fn walk_pipe<S: Source + ?Sized>(
        &mut self,
        src: &mut S,
        range: Range<u64>,
        sink: &mut Sink,
    ) -> u64 {
        self.pipe = true;
        self.walk_stream(src, range.clone(), sink);
        self.fold_counts();
        let end = if self.limited && src.len() == u64::MAX {
            // A stream is not read on after a limit: it ends, for the report, where the walk did.
            self.walk.end.max(range.start)
        } else {
            src.reach(range.end)
        };
        let range = range.start..range.end.min(end);
        self.check_stream_attrs(range.clone(), sink);
        self.report_lost(range.clone(), sink);
        self.finish_compressed(sink);
        self.check_tracepoint_attrs(sink);
        attrs::check_set(&self.attrs, sink);
        self.report_rounds(sink);
        self.summarize(sink);
        range.end
    }

    /// A stream's attrs as linux-perf-data reads them: at least one HEADER_ATTR, each of an
    /// event it knows.
    fn check_stream_attrs(&mut self, range: Range<u64>, sink: &mut Sink) {
        for (i, a) in self.attrs.iter().enumerate() {
            if !attrs::lpd_knows(a.kind, a.config) {
                sink.push(
                    sink.make(
                        &rules::PIPE_RECORDS,
                        a.span.clone(),
                        format!("the HEADER_ATTR of attr {i} has type {} config {:#x}, no event linux-perf-data 0.13.0 knows: it refuses the stream (\"invalid input parameter\", verified), perf 6.1 reads it", a.kind, a.config),
                    )
                    .fails("linux-perf-data", "0.13.0", "reject"),
                );
            }
        }
        if self.attrs.is_empty() {
            sink.push(
                sink.make(
                    &rules::PIPE_RECORDS,
                    range.clone(),
                    "the stream has no HEADER_ATTR record: linux-perf-data 0.13.0 refuses it (\"The file declares no perf event attributes\", verified), perf 6.1 reads no sample; `perf record -o -` writes one for every event before anything else",
                )
                .fails("linux-perf-data", "0.13.0", "reject"),
            );
        }
        // linux-perf-data reads a stream's metadata from the HEADER_ATTR and HEADER_FEATURE
        // records before the first other record, and names the events from the EVENT_DESC among
        // them; `perf record -o -` sends its attrs, then every feature, before anything else.
        if let (Some((kind, at)), false) = (self.lpd_meta.first_other, self.lpd_meta.event_desc) {
            if !self.attrs.is_empty() && !self.features.is_empty() {
                let why = if self.features.iter().any(|f| f.bit == 12) {
                    "comes after"
                } else {
                    "is missing, and no HEADER_FEATURE may come after"
                };
                sink.push(
                    sink.make(
                        &rules::PIPE_RECORDS,
                        range,
                        format!("the stream's EVENT_DESC feature record {why} its first record that is neither HEADER_ATTR nor HEADER_FEATURE (the {} at 0x{at:x}), where `perf record -o -` sends every feature: linux-perf-data 0.13.0 reads the stream's metadata up to that record only and shows the samples of the {} event(s) under `attr0`, ... instead of their names (verified: the CMDLINE record of a `-z` stream retyped as TIME_CONV, 36 of 36 samples as `attr0`, not `cpu-clock`); perf 6.1 names them from the attrs", record_name(kind), self.attrs.len()),
                    )
                    .fails("linux-perf-data", "0.13.0", "loss"),
                );
            }
        }
    }

    fn report_rounds(&mut self, sink: &mut Sink) {
        let Some((span, t, flushed)) = self.rounds.first.clone() else {
            return;
        };
        let n = self.rounds.late;
        sink.push(
            sink.make(
                &rules::ROUND_ORDER,
                span.clone(),
                format!(
                    "{n} sample(s) are older than what perf had flushed when it reads them, the first at 0x{:x} (time {t}, after a FINISHED_ROUND that flushed up to {flushed}); perf 6.1 reads every sample and warns \"{n} out of order events recorded\" (exit 0), and `perf script` prints them out of time order",
                    span.start
                ),
            )
            .read_same("perf", "6.1"),
        );
    }

    /// Tracepoint attrs (type 2): their `config` is an event id of TRACING_DATA.
    fn check_tracepoint_attrs(&mut self, sink: &mut Sink) {
        if !self.pipe && !self.info.tracing_data && !self.open_end {
            // perf 6.1 prepares every tracepoint attr's format from TRACING_DATA when it opens
            // a file (`evsel__prepare_tracepoint_event`): without the feature it refuses the
            // file. `perf record` writes TRACING_DATA whenever an attr is a tracepoint; a
            // killed recording, which has no features, is PF006's.
            if let Some((i, a)) = self.attrs.iter().enumerate().find(|(_, a)| a.kind == 2) {
                let at = a.span.start;
                sink.push(
                    sink.make(
                        &rules::TRACEPOINT_ID,
                        at..at.saturating_add(4),
                        format!("attr {i} is a tracepoint (type 2, config {}) but the file has no TRACING_DATA feature to describe it; perf 6.1 refuses the file (\"incompatible file format\", `perf script` and `perf report` exit 255, verified with a software attr's type made 2), linux-perf-data 0.13.0 reads it", a.config),
                    )
                    .fails("perf", "6.1", "reject"),
                );
            }
            return;
        }
        let Some(ids) = self.info.tracepoint_ids.clone() else {
            return;
        };
        for a in &self.attrs {
            let known = u32::try_from(a.config).is_ok_and(|c| ids.contains(&c));
            let unparsed =
                u32::try_from(a.config).is_ok_and(|c| self.info.tracepoint_unparsed.contains(&c));
            if a.kind == 2 && !known && unparsed {
                let at = a.span.start.saturating_add(8);
                sink.push(
                    sink.make(
                        &rules::TRACEPOINT_ID,
                        at..at.saturating_add(8),
                        format!("the event format of a tracepoint attr's config {} does not parse (see the TD findings); perf 6.1 reads the recording and prints its samples' fields as \"[FAILED TO PARSE]\" (verified on corpus/perf/trace.data with a `size:` of its `sys_enter` format damaged: `perf script` and `perf report` exit 0; on lock.data, which has no sample, every record read the same)", a.config),
                    )
                    .level(Severity::Warning),
                );
            } else if a.kind == 2 && !known {
                let at = a.span.start.saturating_add(8);
                sink.push(
                    sink.make(
                        &rules::TRACEPOINT_ID,
                        at..at.saturating_add(8),
                        format!("a tracepoint attr's config {} is the id of no event format in TRACING_DATA; perf 6.1 refuses the file (\"incompatible file format\", exit 255, verified)", a.config),
                    )
                    .fails("perf", "6.1", "reject"),
                );
            }
        }
    }

    /// One info for the LOST and LOST_SAMPLES records of the recording.
    fn report_lost(&mut self, range: Range<u64>, sink: &mut Sink) {
        let lost = self.walk.by_type.get(&2).copied().unwrap_or(0);
        let lost_samples = self.walk.by_type.get(&13).copied().unwrap_or(0);
        if lost == 0 && lost_samples == 0 {
            return;
        }
        sink.push(
            sink.make(
                &rules::LOST_EVENTS,
                range,
                format!(
                    "the kernel lost {} event(s) while recording ({lost} LOST and {lost_samples} LOST_SAMPLES record(s)); perf 6.1 reports them as lost chunks and reads on",
                    self.walk.lost
                ),
            )
            .level(Severity::Info),
        );
    }

    fn walk_stream<S: Source + ?Sized>(&mut self, src: &mut S, range: Range<u64>, sink: &mut Sink) {
        let mut o = range.start;
        let mut end = range.end.min(src.len());
        src.sequential(o..end);
        let mut n = 0u64;
        let e = self.endian;
        while o < end {
            n = n.saturating_add(1);
            if n > self.limits.max_entries {
                sink.limit(
                    o..end.min(src.len()),
                    "records",
                    n,
                    "max_entries",
                    self.limits.max_entries,
                );
                self.limited = true;
                break;
            }
            let head = src.get(o, 8);
            let head_kind = crate::reader::u32_at(head, 0, e);
            let hdr = match (
                crate::reader::u32_at(head, 0, e),
                crate::reader::u16_at(head, 4, e),
                crate::reader::u16_at(head, 6, e),
            ) {
                (Some(kind), Some(misc), Some(size)) => Some((kind, misc, size)),
                _ => None,
            };
            // A stream's end is known once a piece asked for reached it.
            end = end.min(src.len());
            if o >= end {
                break;
            }
            let left = end.saturating_sub(o);
            let framed = hdr.filter(|(kind, _, size)| {
                left >= 8
                    && !(self.open_end
                        && (*size < 8 || u64::from(*size) > left || !known_type(*kind)))
            });
            if self.open_end && framed.is_none() {
                // An unfinished recording: the records end where the writer was stopped
                // (a cut record) or where bytes that are no records begin.
                self.walk.end = o;
                return;
            }
            let Some((kind, _misc, size)) = framed else {
                let len = src.len();
                let kind = hdr.map(|h| h.0).or(head_kind);
                self.cut_record(o, end, left, 8, len, kind, None, sink);
                break;
            };
            let size64 = u64::from(size);
            if size < 8 {
                let msg = format!("the {} record at 0x{o:x} has size {size}, below its 8-byte header: the walk cannot go on; {}", record_name(kind), self.stop_effect());
                sink.push(
                    sink.make(&rules::RECORD_SIZE, o..o.saturating_add(8), msg)
                        .fails("perf", "6.1", "loss"),
                );
                self.note_stop(o);
                break;
            }
            let rec = src.get(o, size64);
            let got = rec.len() as u64;
            if size64 > left || got < size64 {
                let natural = match kind {
                    9 => self.natural_sample(rec),
                    1 | 3 | 4 | 7 | 10 => self.natural_kernel(rec, kind),
                    _ => natural_size(rec, kind, e),
                };
                let len = src.len();
                end = end.min(len);
                let left = end.saturating_sub(o);
                self.cut_record(o, end, left, size64, len, Some(kind), natural, sink);
                break;
            }
            let span = o..o.saturating_add(size64);
            // COMPRESSED records, pipe-mode HEADER_FEATUREs and the HEADER_BUILD_ID records of
            // `perf inject -b` are written unpadded.
            if size % 8 != 0
                && kind != 81
                && kind != 67
                && !(self.pipe && kind == 80)
                && !self.misaligned
            {
                self.misaligned = true;
                sink.push(
                    sink.make(&rules::DATA_END, span.clone(), format!("the {} record at 0x{o:x} is {size} bytes, not a multiple of 8: the records after it are not 8-aligned (perf pads them; perf 6.1 reads them the same)", record_name(kind)))
                        .read_same("perf", "6.1"),
                );
            }
            if self.pipe && (kind == 64 || kind == 80) {
                // Read from the image by offset: the attr, its ids, the feature payload.
                self.image.put(o, rec);
            }
            self.compressed_retyped(rec, kind, &span, sink);
            let extra = self.record(rec, span.clone(), true, sink);
            o = o.saturating_add(size64);
            if let Some(extra) = extra {
                let padded = extra.saturating_add(7) & !7;
                // The payload is read through; the walk goes on after it, to the input's end.
                src.reach(o.saturating_add(padded));
                end = end.min(src.len());
                if kind == 66 {
                    self.info.tracing_data = true;
                }
                if kind == 66 && padded <= end.saturating_sub(o) {
                    let payload = o..o.saturating_add(extra);
                    if self.image.fill(src, payload.clone()) {
                        (self.info.tracepoint_ids, self.info.tracepoint_unparsed) =
                            features::tracing_data(
                                self.image.bytes(),
                                payload.clone(),
                                true,
                                self.limits,
                                sink,
                            );
                        self.tracing_data_size(payload, sink);
                    } else {
                        sink.limit(
                            payload,
                            "tracing data",
                            extra,
                            "max_read_bytes",
                            self.limits.max_read_bytes,
                        );
                    }
                }
                if padded > end.saturating_sub(o) {
                    self.report(
                        sink,
                        sink.make(
                            if self.pipe { &rules::PIPE_RECORDS } else { &rules::RECORD_SIZE },
                            span,
                            format!("the {} record at 0x{:x} is followed by {extra} bytes of payload, but only {} are left", record_name(kind), o.saturating_sub(size64), end.saturating_sub(o)),
                        ),
                    );
                    self.note_stop(o);
                    o = end;
                    break;
                }
                o = o.saturating_add(padded);
            }
            self.walk.end = o;
        }
        self.walk.end = self.walk.end.max(o.min(end));
        if o > end {
            self.walk.end = end;
        }
    }

    /// A record cut by the end of the data (or stream); `len`: the input's length.
    #[allow(clippy::too_many_arguments)]
    fn cut_record(
        &mut self,
        o: u64,
        end: u64,
        left: u64,
        need: u64,
        len: u64,
        kind: Option<u32>,
        natural: Option<u64>,
        sink: &mut Sink,
    ) {
        self.walk.end = o;
        if self.pipe && end == len {
            // The record's type, when its 4 bytes are there.
            let kind = kind.filter(|_| left >= 4);
            // The records perf writes before the first kernel record: attrs, features, tracing
            // data, build ids.
            self.fold_counts();
            let prologue = self.walk.by_type.keys().all(|t| matches!(t, 64..=67 | 80));
            let known = kind.is_some_and(|k| matches!(k, 1..=21 | 64..=82));
            // A record whose own fields say it ends before the end of the stream: its size
            // was changed, it was not cut.
            let natural = natural.filter(|n| *n < need && *n <= left);
            let why = if prologue {
                Some(format!("the stream ends inside its {} record at 0x{o:x}, before its first sample ({left} of {need} bytes): linux-perf-data 0.13.0 refuses to open it (\"failed to fill whole buffer\"), perf 6.1 shows no sample", kind.map_or("first", record_name)))
            } else if self.misaligned
                || !known
                || (need % 8 != 0 && !matches!(kind, Some(66 | 80)))
                || natural.is_some()
            {
                // Every record perf and the kernel write is a multiple of 8 bytes, but a
                // HEADER_FEATURE (its payload is not padded) or HEADER_TRACING_DATA.
                let why = if self.misaligned {
                    ", after a misaligned record".to_string()
                } else if known && need % 8 != 0 {
                    ", a size no such record has (perf writes them in multiples of 8)".to_string()
                } else if let Some(n) = natural {
                    format!(", though its own fields make it {n} bytes, all there")
                } else {
                    String::new()
                };
                Some(format!("the stream ends inside a record at 0x{o:x} of type {} claiming {need} bytes ({left} are left){why}: the records before it were framed wrong or its size changed, so this is no record perf wrote; perf 6.1 stops there (\"unexpected end of event stream\") and shows none of the samples it had not flushed, and what the stream holds after the bad size is lost to both readers (verified: a FINISHED_ROUND made 9 bytes, 0 of 12 samples shown; an EVENT_UPDATE's size made 0xffff in a `-z` stream: 0 of 36 samples shown by either reader)", kind.unwrap_or(0)))
            } else {
                None
            };
            if let Some(msg) = why {
                sink.push(
                    sink.make(&rules::TRUNCATED_STREAM, o..end, msg)
                        .fails("perf", "6.1", "loss"),
                );
                return;
            }
            sink.push(
                sink.make(
                    &rules::TRUNCATED_STREAM,
                    o..end,
                    format!("the stream ends inside a record at 0x{o:x}: {left} of its {need} bytes are there; perf 6.1 and linux-perf-data 0.13.0 read the {} whole samples before it and drop the cut record (perf 6.1 says \"unexpected end of event stream\", exit 0)", self.walk.samples),
                )
                .read_same("perf", "6.1"),
            );
            return;
        }
        let effect = if end == len && len % 4096 == 0 {
            "the file ends on a page boundary: perf 6.1 reads past it in its mapping and is killed by SIGBUS (`perf report` and `perf script` exit 135, verified)".to_string()
        } else {
            self.stop_effect()
        };
        let msg = format!("the record at 0x{o:x} needs {need} bytes but the data ends at 0x{end:x} ({left} left); {effect}");
        sink.push(
            sink.make(&rules::RECORD_SIZE, o..end, msg)
                .fails("perf", "6.1", "loss"),
        );
        self.note_stop(o);
    }

    /// The size a SAMPLE's fields give it (`rec`: its bytes, as far as they are there), when
    /// its attr's sample_type has only fixed fields, perhaps a callchain and perhaps RAW data
    /// (a tracepoint's: `u32 size`, then that many bytes, the kernel pads the two to 8).
    fn natural_sample(&self, rec: &[u8]) -> Option<u64> {
        let i = self.attr_of(rec.get(8..)?, true)?;
        let l = self.layouts.get(i)?;
        if !l.simple && !l.raw {
            return None;
        }
        let mut at = u64::try_from(l.prefix).ok()?.checked_add(8)?;
        if l.callchain {
            let nr = crate::reader::u64_at(rec, usize::try_from(at).ok()?, self.endian)?;
            at = nr.checked_mul(8)?.checked_add(8)?.checked_add(at)?;
        }
        if l.raw {
            let n = crate::reader::u32_at(rec, usize::try_from(at).ok()?, self.endian)?;
            at = at.checked_add(4)?.checked_add(u64::from(n))?;
        }
        at.checked_add(u64::try_from(l.suffix).ok()?)
    }

    /// The size the fields of a kernel record give it (`rec`: its bytes, as far as they are
    /// there): MMAP, MMAP2 and COMM end with a NUL-terminated name padded to 8, FORK and EXIT
    /// are fixed; then the `sample_id_all` trailer of the first attr (perf's `id_hdr_size`).
    /// The kernel and perf's synthesized records size them so (every one of 6,518 such records
    /// of the recordings of `corpus/perf` and `campaign/perf_seeds.sh` is that size).
    fn natural_kernel(&self, rec: &[u8], kind: u32) -> Option<u64> {
        let first = self.attrs.first()?;
        let trailer = if first.sample_id_all() {
            first.trailer_size()
        } else {
            0
        };
        let fixed = match kind {
            4 | 7 => return trailer.checked_add(32),
            1 => 40usize,
            3 => 16,
            10 => 72,
            _ => return None,
        };
        let name = rec.get(fixed..)?;
        let nul = name.iter().position(|c| *c == 0)? as u64;
        let padded = nul.checked_add(8)? & !7;
        (fixed as u64).checked_add(padded)?.checked_add(trailer)
    }

    /// The attr a record belongs to: the only one, or by id.
    fn attr_of(&self, body: &[u8], sample: bool) -> Option<usize> {
        if self.attrs.len() <= 1 {
            return if self.attrs.is_empty() { None } else { Some(0) };
        }
        match self.record_id(body, sample)? {
            // Records perf synthesizes carry id 0: perf gives them to the first attr
            // (`evlist__event2evsel`).
            None | Some(0) => Some(0),
            Some(id) => self.id_attr(id),
        }
    }

    /// The id a record carries (a sample's, or a kernel record's `sample_id_all` trailer's):
    /// `Some(None)` when the first attr's sample_type gives it none, `None` when its bytes
    /// are not there.
    fn record_id(&self, body: &[u8], sample: bool) -> Option<Option<u64>> {
        let first = self.attrs.first()?;
        let t = first.sample_type;
        if sample {
            let Some(pos) = attrs::id_pos(t) else {
                return Some(None);
            };
            let at = usize::try_from(pos.checked_mul(8)?).ok()?;
            return crate::reader::u64_at(body, at, self.endian).map(Some);
        }
        if !first.sample_id_all() {
            return Some(None);
        }
        // The trailer ends with IDENTIFIER when set, else: ID, STREAM_ID, CPU from the end.
        let back = if t & st::IDENTIFIER != 0 {
            1u64
        } else if t & st::ID != 0 {
            1u64.saturating_add(u64::from(t & st::STREAM_ID != 0))
                .saturating_add(u64::from(t & st::CPU != 0))
        } else {
            return Some(None);
        };
        let at = body
            .len()
            .checked_sub(usize::try_from(back.checked_mul(8)?).ok()?)?;
        crate::reader::u64_at(body, at, self.endian).map(Some)
    }

    /// Checks one record (`rec` includes its header; `span` is where it is in the file, or
    /// the COMPRESSED record it came from). Returns the size of a payload that follows the
    /// record outside its `size` (HEADER_TRACING_DATA, AUXTRACE).
    fn record(
        &mut self,
        rec: &[u8],
        span: Range<u64>,
        in_file: bool,
        sink: &mut Sink,
    ) -> Option<u64> {
        let e = self.endian;
        let kind = crate::reader::u32_at(rec, 0, e).unwrap_or(0);
        let at = span.start;
        let base = if in_file { at } else { 0 };
        match usize::try_from(kind)
            .ok()
            .and_then(|k| self.by_type.get_mut(k))
        {
            Some(c) => *c = c.saturating_add(1),
            None => {
                let c = self.walk.by_type.entry(kind).or_insert(0);
                *c = c.saturating_add(1);
            }
        }
        let body = rec.get(8..).unwrap_or_default();
        // The attrs' ids records carry (linux-perf-data places records by them).
        if matches!(kind, 1..=21) && self.attrs.len() > 1 {
            if let Some(Some(id)) = self.record_id(body, kind == 9) {
                if self.ids.contains_key(&id) {
                    self.walk.ids_seen.insert(id);
                }
            }
        }
        if self.pipe && in_file && self.lpd_meta.first_other.is_none() {
            match kind {
                64 => {}
                80 => {
                    if crate::reader::u64_at(rec, 8, e) == Some(12) {
                        self.lpd_meta.event_desc = true;
                    }
                }
                _ => self.lpd_meta.first_other = Some((kind, at)),
            }
        }
        let mut r = Reader::with_base(body, base.saturating_add(8), e);
        match kind {
            9 => self.guest_sample(rec, body, span, sink),
            1..=21 => {
                let misc = crate::reader::u16_at(rec, 4, e).unwrap_or(0);
                self.kernel_record(kind, misc, body, span, sink)
            }
            64 => {
                if !self.pipe || !in_file {
                    return None;
                }
                self.header_attr(rec, span, sink);
            }
            66 => {
                let size = r.u32("tracing data size").ok();
                if size.is_none() {
                    self.short(kind, span, 8, sink);
                }
                return size.map(u64::from);
            }
            71 => {
                let size = r.u64("auxtrace size").ok();
                if rec.len() < 8 + 40 {
                    self.short(kind, span, 40, sink);
                    return None;
                }
                return size;
            }
            80 => {
                if in_file && self.pipe {
                    self.header_feature(rec, span, sink);
                }
            }
            81 => self.compressed(body, span, sink),
            78 if body.len() >= 16 && self.attrs.len() > 1 => {
                let id = crate::reader::u64_at(body, 8, e).unwrap_or(0);
                if !self.ids.contains_key(&id) {
                    self.unknown_id(kind, span, sink);
                }
            }
            70 => {
                if (body.len() as u64) < 8 {
                    self.short(kind, span, 8, sink);
                } else {
                    self.auxtrace_info(body, span, sink);
                }
            }
            73 | 75 => {
                if kind == 73 {
                    self.stat_maps.0 = true;
                }
                // THREAD_MAP: u64 nr, nr × {u64 pid, char comm[16]}; STAT_CONFIG: u64 nr,
                // nr × {u64 tag, u64 val}.
                let each: u64 = if kind == 73 { 24 } else { 16 };
                let nr = r.u64("entry count").ok();
                if kind == 73 {
                    self.stat_threads = nr;
                }
                let need = nr.and_then(|n| n.checked_mul(each)?.checked_add(8));
                if need.is_none_or(|n| n > body.len() as u64) {
                    self.counted_short(kind, span, nr.unwrap_or(0), need, sink);
                }
            }
            74 => {
                self.stat_maps.1 = true;
                // CPU_MAP: u16 type; 0: u16 nr, u16 cpu[nr]; 1: u16 nr, u16 long_size, mask.
                let t = r.u16("cpu map type").ok();
                self.stat_cpus = cpu_map_cpus(body, e);
                let nr = r.u16("cpu map count").ok().map(u64::from);
                let need = match (t, nr) {
                    (Some(0), Some(n)) => Some(n.saturating_mul(2).saturating_add(4)),
                    (Some(1), Some(n)) => {
                        let long = r.u16("cpu map long size").ok().map(u64::from).unwrap_or(8);
                        Some(n.saturating_mul(long).saturating_add(6))
                    }
                    (Some(t), _) if t > 2 => {
                        let f = sink
                            .make(&rules::RECORD_FIELDS, span.clone(), format!("the CPU_MAP record at 0x{:x} has type {t}, not 0, 1 or 2; perf 6.1 stops (\"cpu_map__new_data unknown type {t}\", \"failed to process type: 74\"): {}", span.start, self.stop_effect()))
                            .fails("perf", "6.1", "loss");
                        self.report(sink, f);
                        self.note_stop(span.start);
                        return None;
                    }
                    _ => Some(2),
                };
                if t == Some(2) {
                    self.cpu_range(body, span.clone(), sink);
                }
                if need.is_none_or(|n| n > body.len() as u64) {
                    self.counted_short(kind, span, nr.unwrap_or(0), need, sink);
                }
            }
            65 | 67 | 68 | 72 | 76..=79 | 82 => {
                if kind == 68 {
                    self.rounds.round();
                }
                if matches!(kind, 76 | 77) && self.stat_maps != (true, true) {
                    self.stat_before_maps(kind, span.clone(), sink);
                }
                let min: u64 = match kind {
                    65 => 72,
                    67 => 36,
                    69 | 73 | 75 => 8,
                    70 => 8,
                    72 => 96,
                    74 => 2,
                    76 => 40,
                    77 => 16,
                    78 => 16,
                    79 => 24,
                    _ => 0,
                };
                // What perf writes: FINISHED_ROUND and FINISHED_INIT bare headers, STAT_ROUND
                // its type and time, TIME_CONV its five words and two flags (24 bytes before
                // perf 5.10).
                let max: Option<u64> = match kind {
                    68 | 82 => Some(0),
                    77 => Some(16),
                    79 => Some(48),
                    _ => None,
                };
                if (body.len() as u64) < min {
                    self.short(kind, span, min, sink);
                } else if kind == 76 && !self.stat_in_maps(body) {
                    self.stat_outside_maps(body, span, sink);
                } else if let Some(max) = max.filter(|&m| body.len() as u64 > m) {
                    self.user_record_long(kind, body, max, span, sink);
                }
            }
            69 if body.len() < 8 => {
                // No room for its count: perf 6.1 takes the count and the entries from the
                // bytes after the record (the next record's header as the count, never 0).
                let f = sink
                    .make(
                        &rules::RECORD_FIELDS,
                        span.clone(),
                        format!(
                            "the ID_INDEX record at 0x{:x} is {} bytes, too short for its count: perf 6.1 reads the count and the entries from the bytes after it and stops at the first id no attr has (\"failed to process type: 69 [No such file or directory]\", exit 254): {}",
                            span.start,
                            span.end.saturating_sub(span.start),
                            self.stop_effect()
                        ),
                    )
                    .note("verified on a FINISHED_ROUND of corpus/perf/rounds.data, task-clock.data and sched.data made ID_INDEX: `perf script` shows none of their samples")
                    .fails("perf", "6.1", "loss");
                self.report(sink, f);
                self.note_stop(span.start);
            }
            69 => {
                let nr = r.u64("id index count").unwrap_or(0);
                if nr.checked_mul(32).is_none_or(|n| n > r.remaining() as u64) {
                    self.short(kind, span, nr.saturating_mul(32).saturating_add(8), sink);
                } else if !self.attrs.is_empty()
                    && (!self.pipe || self.attrs.iter().all(|a| !a.ids.is_empty()))
                {
                    // File mode: the attrs' ids as perf 6.1 read them from their sections, an
                    // empty section included (verified: ids size 0 or 1, or the offset one byte
                    // early, in a one-attr file: "failed to process type: 69", 0 samples).
                    self.id_index(&mut r, nr, span, sink);
                }
            }
            83..=86 | 32769..=32777 => {
                let who = if kind >= 32769 {
                    "simpleperf"
                } else {
                    "a perf newer than 6.1 (6.15 or later)"
                };
                // A file whose VERSION feature names an older perf cannot hold them: damage.
                let older = kind < 32769
                    && self
                        .info
                        .version
                        .as_deref()
                        .and_then(perf_version)
                        .is_some_and(|v| v < (6, 15));
                if older {
                    let msg = format!(
                        "record type {kind} ({}) at 0x{at:x} is from perf 6.15 or later, but the file was written by perf {}; perf 6.1 stops at it (\"failed to process type: {kind}\"): {}",
                        record_name(kind),
                        self.info.version.as_deref().unwrap_or_default(),
                        self.stop_effect()
                    );
                    let f = sink
                        .make(&rules::RECORD_TYPE, span, msg)
                        .fails("perf", "6.1", "loss");
                    self.report(sink, f);
                    self.note_stop(at);
                } else {
                    let f = sink
                        .make(&rules::RECORD_TYPE, span, format!("record type {kind} ({}) at 0x{at:x} is from {who}; perf 6.1 stops at it (\"failed to process type: {kind}\")", record_name(kind)))
                        .level(Severity::Info);
                    self.report(sink, f);
                }
            }
            _ => {
                let msg = format!("record type {kind} at 0x{at:x} is unknown; perf 6.1 stops with \"failed to process type: {kind}\": {}", self.stop_effect());
                let f = sink
                    .make(&rules::RECORD_TYPE, span, msg)
                    .fails("perf", "6.1", "loss");
                self.report(sink, f);
                self.note_stop(at);
            }
        }
        None
    }

    /// A stream's HEADER_TRACING_DATA size against its block: perf 6.1 checks it against what
    /// it read of the block, padded to 8 (`perf_event__process_tracing_data`).
    fn tracing_data_size(&mut self, payload: Range<u64>, sink: &mut Sink) {
        let Some(len) =
            features::tracing_data_len(self.image.bytes(), payload.clone(), self.limits)
        else {
            return;
        };
        let padded = len.saturating_add(7) & !7;
        let size = payload.end.saturating_sub(payload.start);
        if padded != size {
            let f = sink
                .make(
                    &rules::PIPE_RECORDS,
                    payload,
                    format!("the HEADER_TRACING_DATA record says its block is {size} bytes, the block is {len} ({padded} padded to 8, as `perf record -o -` writes the size); perf 6.1 refuses the stream (\"tracing data size mismatch\", \"failed to process type: 66\", `perf script` exit 234, verified with the unpadded size of corpus/perf/tracepoint.data's block)"),
                )
                .fails("perf", "6.1", "reject");
            self.report(sink, f);
        }
    }

    /// A STAT or STAT_ROUND record before the THREAD_MAP and CPU_MAP records: `perf script`
    /// allocates its counters when it has seen both (`set_maps`), and reads every STAT and
    /// STAT_ROUND into them. `perf stat record` writes both maps before its first count.
    fn stat_before_maps(&mut self, kind: u32, span: Range<u64>, sink: &mut Sink) {
        let missing = match self.stat_maps {
            (false, false) => "THREAD_MAP and CPU_MAP records",
            (false, true) => "THREAD_MAP record",
            _ => "CPU_MAP record",
        };
        let (effect, class) = if kind == 76 {
            ("`perf script` stops there (\"failed to process type: 76\", exit 234) and prints none of the counts (verified with a STAT record first and with the THREAD_MAP record retyped, on copies of corpus/perf/stat.data); `perf report` says the file has no samples, as for a healthy one", "reject")
        } else {
            ("`perf script` reads it into counters it has not allocated and crashes (SIGSEGV, exit 139, verified with a STAT_ROUND record first on a copy of corpus/perf/stat.data)", "crash")
        };
        let f = sink
            .make(
                &rules::RECORD_FIELDS,
                span.clone(),
                format!(
                    "the {} record at 0x{:x} comes before the {missing} that `perf stat record` writes ahead of every count; {effect}",
                    record_name(kind),
                    span.start
                ),
            )
            .fails("perf", "6.1", class);
        self.report(sink, f);
        if kind == 76 {
            self.note_stop(span.start);
        }
    }

    /// AUXTRACE_INFO in a recording of no AUX-area event: `perf record` writes it only for
    /// an event of an AUX PMU (Intel PT, BTS, CoreSight, SPE, ...: a dynamic PMU type, 6 or
    /// above); perf 6.1 hands it to the decoder of the AUX type its first word names
    /// (`perf_event__process_auxtrace_info`), which reads the rest as its parameters.
    fn auxtrace_info(&mut self, body: &[u8], span: Range<u64>, sink: &mut Sink) {
        if self.attrs.is_empty() || self.attrs.iter().any(|a| a.kind >= 6) {
            return;
        }
        let t = crate::reader::u32_at(body, 0, self.endian).unwrap_or(0);
        let (effect, class) = match t {
            2 | 4 => (
                format!("perf 6.1 sets up the {} decoder from the record's bytes and dies of a division by zero (SIGFPE, `perf script` and `perf report` exit 136)", if t == 2 { "Intel BTS" } else { "Arm SPE" }),
                Some("crash"),
            ),
            1 | 5 | 6 => (
                "perf 6.1 sets up a decoder that finds no AUX data and reads the samples the same".to_string(),
                None,
            ),
            _ => (
                format!("perf 6.1 stops there (\"failed to process type: 70 [Invalid argument]\", `perf script` exit 234): {}", self.stop_effect()),
                Some("loss"),
            ),
        };
        let msg = format!(
            "the AUXTRACE_INFO record at 0x{:x} (AUX type {t}) is in a recording of no AUX-area event (every attr is of a core type, below 6): `perf record` writes it only for one; {effect} (verified for types 0 to 7 on copies of corpus/perf/trace.data with its ID_INDEX record retyped)",
            span.start
        );
        let f = sink.make(&rules::RECORD_FIELDS, span.clone(), msg);
        let f = match class {
            Some(c) => f.fails("perf", "6.1", c),
            None => f.read_same("perf", "6.1"),
        };
        self.report(sink, f);
        if class == Some("loss") {
            self.note_stop(span.start);
        }
    }

    /// An MMAP or MMAP2 of a user-space object with a kernel cpu mode (`misc & 7` 1 or 4):
    /// perf 6.1 takes it for a kernel module map (`machine__process_kernel_mmap_event`,
    /// `machine__addnew_module_map`). When it is the first map of an object that has no
    /// BUILD_ID entry, the module DSO it creates is the one the object's later user-space maps
    /// take, and `perf report` aborts: reported at the later map.
    fn map_as_kernel(
        &mut self,
        kind: u32,
        misc: u16,
        body: &[u8],
        span: &Range<u64>,
        sink: &mut Sink,
    ) {
        let fixed = if kind == 1 { 32 } else { 64 };
        let Some(raw) = body.get(fixed..) else {
            return;
        };
        let name = raw
            .get(..raw.iter().position(|c| *c == 0).unwrap_or(raw.len()))
            .unwrap_or_default();
        let kernel_user = matches!(misc & 7, 1 | 4) && user_space_name(name);
        let mapped_before = self.map_names.contains(name);
        if let Some(first) = self.kernel_user_maps.remove(name) {
            let shown = String::from_utf8_lossy(name).into_owned();
            let f = sink
                .make(
                    &rules::RECORD_FIELDS,
                    first.clone(),
                    format!(
                        "the {} record at 0x{:x} maps the user-space object {shown} with a kernel cpu mode, the first map of it, which has no BUILD_ID entry, and the record at 0x{:x} maps it again: perf 6.1 makes the first a kernel module map, whose DSO the later user-space maps take, and `perf report` aborts",
                        record_name(kind),
                        first.start,
                        span.start
                    ),
                )
                .note("verified: each of the 25 such maps of py-cpu.data (22) and regs-period.data (3) given cpu mode 1 aborted `perf report` (SIGABRT or SIGSEGV), and so did such maps of sys-wide.data and system-wide.data; a later map made so is told on its own; the kernel and perf write user-space maps with a user cpu mode (4,465 maps of 39 recordings)")
                .fails("perf", "6.1", "crash");
            self.report(sink, f);
        } else if kernel_user && mapped_before {
            self.later_map_as_kernel(kind, name, span, sink);
        } else if kernel_user
            && !mapped_before
            && !self.info.build_id_names.iter().any(|n| n == name)
            && self.kernel_user_maps.len() < 65_536
        {
            self.kernel_user_maps.insert(name.to_vec(), span.clone());
        }
        if !mapped_before && self.map_names.len() < 65_536 {
            self.map_names.insert(name.to_vec());
        }
    }

    /// A later map of a user-space object, with a kernel cpu mode: perf 6.1 makes a kernel
    /// module DSO whose long name is the object's path, beside the user-space DSO of that
    /// path, and which of the two its later lookups find depends on its DSO tree.
    fn later_map_as_kernel(&mut self, kind: u32, name: &[u8], span: &Range<u64>, sink: &mut Sink) {
        let shown = String::from_utf8_lossy(name).into_owned();
        let f = sink
            .make(
                &rules::RECORD_FIELDS,
                span.clone(),
                format!(
                    "the {} record at 0x{:x} maps the user-space object {shown}, mapped before, with a kernel cpu mode: perf 6.1 makes it a kernel module map whose DSO has the object's path beside the user-space DSO of that path, and `perf report` and `perf script` abort (heap corruption) or show other symbols on some such maps",
                    record_name(kind),
                    span.start
                ),
            )
            .note("verified: of the 411 later maps of user-space objects in corpus/perf/system-wide.data given cpu mode 1, 21 aborted perf 6.1 (\"malloc(): corrupted top size\"; valgrind shows invalid writes on one), 4 changed the symbols shown and 386 read the same (valgrind clean on two), with no rule in the record that tells them apart; the kernel and perf write user-space maps with a user cpu mode (4,465 maps of 39 recordings)")
            .fails("perf", "6.1", "crash");
        self.report(sink, f);
    }

    /// The name of an MMAP or MMAP2 (its bytes from `fixed` to the first NUL) is a path, a
    /// `[...]` name of the kernel, or a pseudo file's `name:...`: the kernel names every map
    /// (`perf_event_mmap_event`: `d_path`, a `vm_ops` name, `[heap]`, `[stack]`, or
    /// `//anon`), and so does perf for the maps it synthesizes from `/proc/PID/maps`. An empty
    /// name, or one that starts with a control byte or a space, is no map's: when the record's
    /// bytes are a sample of its event the sample's type was changed, and both readers lose it.
    fn map_name(
        &mut self,
        kind: u32,
        body: &[u8],
        fixed: u64,
        as_sample: bool,
        span: &Range<u64>,
        sink: &mut Sink,
    ) {
        let Some(raw) = body.get(usize::try_from(fixed).unwrap_or(usize::MAX)..) else {
            return;
        };
        let first = raw.first().copied().unwrap_or(0);
        if (0x21..0x7f).contains(&first) || first >= 0x80 {
            return;
        }
        let shown = if first == 0 {
            "is empty".to_string()
        } else {
            format!("starts with the byte 0x{first:02x}")
        };
        let f = sink.make(
            &rules::RECORD_FIELDS,
            span.clone(),
            format!(
                "the name of the {} record at 0x{:x} {shown}: the kernel and perf name every map (a path, `[vdso]`, `//anon`, ...){}",
                record_name(kind),
                span.start,
                if as_sample {
                    "; its bytes are a sample of its event whose type was changed, which perf 6.1 and linux-perf-data 0.13.0 read as a map and lose (verified: a SAMPLE of a `-g` recording, gzip-task-g.data, made MMAP, missing from both)"
                } else {
                    "; perf 6.1 and linux-perf-data 0.13.0 read it as a map of that name"
                }
            ),
        );
        self.report_sample_made(sink, f, as_sample);
    }

    /// Reports `f`, about a record whose bytes may be a sample of its event (`as_sample`): an
    /// error then (both readers lose the sample), a warning that readers read the same else.
    fn report_sample_made(&mut self, sink: &mut Sink, f: Finding, as_sample: bool) {
        let f = if as_sample {
            f.fails("perf", "6.1", "loss")
        } else {
            f.read_same("perf", "6.1")
        };
        self.report(sink, f);
    }

    /// Whether a STAT's cpu is one of the CPU_MAP's and its thread index below the THREAD_MAP's
    /// count (true when a map was not read or is a mask).
    fn stat_in_maps(&self, body: &[u8]) -> bool {
        let e = self.endian;
        let cpu = crate::reader::u32_at(body, 8, e).map(|c| i64::from(c as i32));
        let thread = crate::reader::u32_at(body, 12, e).map(u64::from);
        let cpu_ok = match (&self.stat_cpus, cpu) {
            (Some(cpus), Some(c)) => cpus.contains(&c),
            _ => true,
        };
        let thread_ok = match (self.stat_threads, thread) {
            (Some(n), Some(t)) => t < n,
            _ => true,
        };
        cpu_ok && thread_ok
    }

    /// A STAT whose cpu is not in the CPU_MAP or whose thread index is past the THREAD_MAP:
    /// `perf stat report` (6.1) looks its counts up by both and stops ("Invalid CPU %d for
    /// event %s", "Failed to find perf count"); perf writes each count at its map's cpu and
    /// thread.
    fn stat_outside_maps(&mut self, body: &[u8], span: Range<u64>, sink: &mut Sink) {
        let e = self.endian;
        let cpu = crate::reader::u32_at(body, 8, e).map_or(0, |c| i64::from(c as i32));
        let thread = crate::reader::u32_at(body, 12, e).unwrap_or(0);
        let why = if self.stat_cpus.as_ref().is_some_and(|c| !c.contains(&cpu)) {
            format!("\"Invalid CPU {cpu} for event ...\"")
        } else {
            format!("\"Failed to find perf count for CPU {cpu} thread {thread} ...\"")
        };
        let f = sink
            .make(
                &rules::RECORD_FIELDS,
                span.clone(),
                format!("the STAT record at 0x{:x} counts cpu {cpu}, thread index {thread}, which the recording's CPU_MAP ({}) and THREAD_MAP ({} thread(s)) do not both hold; perf writes each count at a cpu and thread of its maps, and perf 6.1 stops at it ({why}, exit 234; verified on copies of corpus/perf/stat.data): {}", span.start, self.stat_cpus.as_ref().map_or("not read".to_string(), |c| format!("{c:?}")), self.stat_threads.unwrap_or(0), self.stop_effect()),
            )
            .fails("perf", "6.1", "reject");
        self.report(sink, f);
    }

    /// A CPU_MAP range (type 2) whose first cpu is past its last. perf writes a range only for a
    /// run of cpus, lowest to highest; `perf script` (6.1) allocates `end - start + 1 + any`
    /// cpus for it, so a count below 0 corrupts its heap or fails to allocate.
    fn cpu_range(&mut self, body: &[u8], span: Range<u64>, sink: &mut Sink) {
        let Some((any, start, end)) = cpu_range_fields(body, self.endian) else {
            return;
        };
        let any = i64::from(any);
        if start <= end {
            return;
        }
        let count = i64::from(end)
            .saturating_add(1)
            .saturating_add(any)
            .saturating_sub(i64::from(start));
        let head = format!("the CPU_MAP record at 0x{:x} is a range from cpu {start} to cpu {end}; perf writes a range only for a run of cpus from the lowest to the highest", span.start);
        let f = if count < 0 {
            sink.make(&rules::RECORD_FIELDS, span, format!("{head}, and perf 6.1 `perf script` sizes the map as {count} cpus: it aborts with heap corruption (count -1) or stops (\"failed to process type: 74 [Cannot allocate memory]\", exit 244) and shows none of the samples after it; `perf report` and linux-perf-data 0.13.0 read the same (verified on copies of corpus/perf/group.data)"))
                .fails("perf", "6.1", "reject")
        } else {
            sink.make(&rules::RECORD_FIELDS, span, format!("{head}; it holds no cpu, and perf 6.1 (`perf script`, `perf report`) and linux-perf-data 0.13.0 read the same (verified on a copy of corpus/perf/group.data)"))
                .read_same("perf", "6.1")
        };
        self.report(sink, f);
    }

    /// Whether the bytes of a record's body are exactly a sample of its event (by the id where
    /// the sample has it): a SAMPLE whose type was changed.
    fn is_sample(&self, body: &[u8]) -> bool {
        self.attr_of(body, true)
            .and_then(|i| self.attrs.get(i))
            .is_some_and(|a| {
                let mut r = Reader::new(body, self.endian);
                parse_sample(&mut r, a).is_ok() && r.is_empty()
            })
    }

    /// A FINISHED_ROUND, STAT_ROUND, TIME_CONV or FINISHED_INIT longer than perf writes it
    /// (`max`, its body's bytes): perf 6.1 reads its fields and skips the rest; when the
    /// record's bytes are a sample of its event, a SAMPLE's type was changed and both readers
    /// lose it.
    fn user_record_long(
        &mut self,
        kind: u32,
        body: &[u8],
        max: u64,
        span: Range<u64>,
        sink: &mut Sink,
    ) {
        let as_sample = self.is_sample(body);
        // A COMPRESSED record: its body is the zstd stream (the first starts with the frame's
        // magic), and it is the one record perf leaves unpadded (in a `-z` recording).
        let zstd = crate::reader::u32_at(body, 0, self.endian) == Some(0xfd2f_b528)
            || (self.zstd.is_some() && body.len() % 8 != 0);
        let why = if as_sample {
            ": its bytes are a sample of its event whose type was changed; perf 6.1 and linux-perf-data 0.13.0 read it as that record and lose the sample (verified: a SAMPLE of a `syscalls:sys_enter_openat` and of a `raw_syscalls:sys_enter` recording made TIME_CONV, missing from both)"
        } else if zstd {
            ": its bytes are zstd data (the frame's magic, or an unpadded size in a `-z` recording, which only COMPRESSED records have), a COMPRESSED record whose type was changed; perf 6.1 and linux-perf-data 0.13.0 lose the records compressed in it (verified: a COMPRESSED record of a `-z` recording made FINISHED_INIT)"
        } else if kind == 68 {
            "; perf 6.1 reads on, but linux-perf-data 0.13.0 refuses the file (\"The specified size in the perf event header was smaller than the header itself\", no record read; verified on an ID_INDEX and an MMAP2 made FINISHED_ROUND)"
        } else {
            "; perf 6.1 reads its fields and skips the rest"
        };
        let f = sink.make(
            &rules::RECORD_FIELDS,
            span.clone(),
            format!(
                "the {} record at 0x{:x} is {} bytes, but perf writes it in {}{why}",
                record_name(kind),
                span.start,
                (body.len() as u64).saturating_add(8),
                max.saturating_add(8),
            ),
        );
        if kind == 68 && !as_sample && !zstd {
            let f = f.fails("linux-perf-data", "0.13.0", "reject");
            self.report(sink, f);
        } else {
            self.report_sample_made(sink, f, as_sample || zstd);
        }
    }

    /// ID_INDEX entries `{id, idx, cpu, tid}`: each id must be an attr's.
    fn id_index(&mut self, r: &mut Reader<'_>, nr: u64, span: Range<u64>, sink: &mut Sink) {
        let mut unknown = Vec::new();
        for _ in 0..nr.min(self.limits.max_entries) {
            let at = r.offset();
            let Ok(id) = r.u64("id index id") else { break };
            if r.skip(24, "id index entry").is_err() {
                break;
            }
            if !self.ids.contains_key(&id) {
                unknown.push((id, at));
            }
        }
        let Some((id, at)) = unknown.first().copied() else {
            return;
        };
        let msg = format!(
            "the ID_INDEX record at 0x{:x} lists {} id(s) no attr has (the first: {id} at 0x{at:x}); perf 6.1 stops at it (\"failed to process type: 69\") and shows none of the {} samples",
            span.start,
            unknown.len(),
            "file's"
        );
        let f = sink
            .make(&rules::ID_INDEX, at..at.saturating_add(8), msg)
            .fails("perf", "6.1", "loss");
        self.report(sink, f);
        self.note_stop(span.start);
    }

    /// A record whose id (sample id, `sample_id_all` trailer, EVENT_UPDATE id) is no attr's.
    fn unknown_id(&mut self, kind: u32, span: Range<u64>, sink: &mut Sink) {
        let msg = format!(
            "the {} record at 0x{:x} carries an id that belongs to no attr; perf 6.1 cannot attribute it and stops (\"failed to process type: {kind} [{}]\"): {}",
            record_name(kind),
            span.start,
            if kind == 78 { "Invalid argument" } else { "Bad address" },
            self.stop_effect()
        );
        let f = sink
            .make(&rules::UNKNOWN_ID, span.clone(), msg)
            .fails("perf", "6.1", "loss");
        self.report(sink, f);
        self.note_stop(span.start);
    }

    /// A record whose count of entries runs past its end.
    fn counted_short(
        &mut self,
        kind: u32,
        span: Range<u64>,
        nr: u64,
        need: Option<u64>,
        sink: &mut Sink,
    ) {
        let len = span.end.saturating_sub(span.start);
        let need = need.map_or("more than 2^64".to_string(), |n| n.to_string());
        let f = sink
            .make(
                &rules::RECORD_FIELDS,
                span.clone(),
                format!(
                    "the {} record at 0x{:x} counts {nr} entries, {need} bytes after its header, but it is {len} bytes; perf 6.1 reads the entries past the record (with THREAD_MAP's count changed it was killed by SIGBUS, verified)",
                    record_name(kind),
                    span.start
                ),
            )
            .fails("perf", "6.1", "crash");
        self.report(sink, f);
        self.note_stop(span.start);
    }

    fn short(&mut self, kind: u32, span: Range<u64>, need: u64, sink: &mut Sink) {
        let len = span.end.saturating_sub(span.start);
        let f = sink.make(
            &rules::RECORD_FIELDS,
            span.clone(),
            format!("the {} record at 0x{:x} is {len} bytes, too short for its fields ({} bytes after the 8-byte header needed)", record_name(kind), span.start, need),
        );
        self.report(sink, f);
    }

    /// A record of a type the kernel writes only for events with an attr bit none of the
    /// recording's attrs has: a SAMPLE whose type changed when its bytes are a sample of its
    /// event (both readers lose it), else a warning.
    fn without_attr_bit(
        &mut self,
        kind: u32,
        option: &str,
        as_sample: bool,
        span: Range<u64>,
        sink: &mut Sink,
    ) {
        let f = sink.make(
            &rules::RECORD_FIELDS,
            span.clone(),
            format!("the {} record at 0x{:x} belongs to a recording none of whose events asks for it ({option}), the only events the kernel and perf write it for{}", record_name(kind), span.start, if as_sample { ": its bytes are a sample of its event, whose type was changed; perf 6.1 and linux-perf-data 0.13.0 read it as such and lose the sample (verified: a SAMPLE of corpus/perf/rounds.data made SWITCH, SWITCH_CPU_WIDE, KSYMBOL, CGROUP or TEXT_POKE, 259 of 260 samples shown by perf 6.1; made NAMESPACES, 39)" } else { "" }),
        );
        self.report_sample_made(sink, f, as_sample);
    }

    /// A record of a type that starts with a pid (MMAP, COMM, EXIT, FORK, READ, MMAP2) whose
    /// body starts with a zstd frame's magic (no pid is 0xfd2fb528: `pid_max` is at most
    /// 2^22), or whose size is no multiple of 8, in a `-z` recording: a COMPRESSED record whose
    /// type changed. Its chunk is not
    /// decompressed: every record in it is lost.
    fn compressed_retyped(&mut self, rec: &[u8], kind: u32, span: &Range<u64>, sink: &mut Sink) {
        // Or any such record of a size no kernel record has: COMPRESSED records are the ones
        // perf leaves unpadded (a chunk after the first continues the stream, no magic).
        let magic = rec.get(8..12) == Some(&[0x28, 0xb5, 0x2f, 0xfd][..]);
        if !matches!(kind, 1 | 3 | 4 | 7 | 8 | 10)
            || (self.info.compressed.is_none() && self.walk.compressed == 0)
            || !(magic || rec.len() % 8 != 0)
        {
            return;
        }
        let f = sink
            .make(
                &rules::COMPRESSED_DATA,
                span.clone(),
                format!("the {} record at 0x{:x} {} in a compressed recording: a COMPRESSED record whose type changed; its chunk is not decompressed and the records in it are lost (verified: perf 6.1 and linux-perf-data 0.13.0 lose samples of a `-z` file, and refuse a `-z` stream, with a COMPRESSED record made MMAP)", record_name(kind), span.start, if magic { "starts with a zstd frame (its pid would be 0xfd2fb528, above any pid_max)" } else { "is not a multiple of 8 bytes, as only COMPRESSED records are" }),
            )
            .fails("perf", "6.1", "loss");
        self.report(sink, f);
    }

    /// A READ record shorter than its read values and sample id (see `kernel_record`).
    #[allow(clippy::too_many_arguments)]
    fn short_read(
        &mut self,
        body: &[u8],
        exact: Option<u64>,
        trailer: u64,
        read_format: Option<u64>,
        as_sample: bool,
        span: &Range<u64>,
        sink: &mut Sink,
    ) -> bool {
        let e = self.endian;
        let need = match exact {
            Some(x) => x.saturating_add(trailer),
            None => read_format
                .map_or(0, |rf| read_size(body, rf, e))
                .saturating_add(trailer),
        };
        if (body.len() as u64) < need {
            let f = sink
                .make(
                    &rules::RECORD_FIELDS,
                    span.clone(),
                    format!("the READ record at 0x{:x} is {} bytes, too short for the values its event's read_format gives and its sample id ({} bytes after the 8-byte header): no kernel writes it{}", span.start, body.len().saturating_add(8), need, if as_sample { "; its bytes are a sample of its event, whose type was changed: perf 6.1 and linux-perf-data 0.13.0 read it as READ and lose the sample (verified: a SAMPLE of corpus/perf/branchless-read.data made READ, missing from both)" } else { "" }),
                )
                .fails("perf", "6.1", "loss");
            self.report(sink, f);
            return true;
        }
        false
    }

    fn kernel_record(
        &mut self,
        kind: u32,
        misc: u16,
        body: &[u8],
        span: Range<u64>,
        sink: &mut Sink,
    ) {
        let e = self.endian;
        if matches!(kind, 1 | 10) {
            self.map_as_kernel(kind, misc, body, &span, sink);
        }
        let (fixed, string): (u64, bool) = match kind {
            1 => (32, true),
            2 => (16, false),
            3 => (8, true),
            4 | 7 => (24, false),
            5 | 6 => (24, false),
            8 => (8, false),
            10 => (64, true),
            11 => (24, false),
            12 | 13 => (8, false),
            14 => (0, false),
            15 => (8, false),
            16 => {
                let nr = crate::reader::u64_at(body, 8, e).unwrap_or(u64::MAX);
                (nr.saturating_mul(16).saturating_add(16), false)
            }
            17 => (16, true),
            18 => (16, false),
            19 => (8, true),
            20 => {
                let old = crate::reader::u16_at(body, 8, e).unwrap_or(u16::MAX);
                let new = crate::reader::u16_at(body, 10, e).unwrap_or(u16::MAX);
                (
                    12u64
                        .saturating_add(u64::from(old))
                        .saturating_add(u64::from(new)),
                    false,
                )
            }
            _ => (8, false),
        };
        let idx = self.attr_of(body, false);
        if idx.is_none() && self.attrs.len() > 1 {
            self.unknown_id(kind, span.clone(), sink);
        }
        let attr = idx.and_then(|i| self.attrs.get(i));
        let trailer = attr
            .filter(|a| a.sample_id_all())
            .map_or(0, |a| a.trailer_size());
        let read_format = attr.map(|a| a.read_format);
        let has_attr = attr.is_some();
        // Whether the record's bytes are exactly a sample of its event: a SAMPLE whose type was
        // changed. Other records whose type changed (an MMAP2 made THROTTLE or MMAP, a FORK made
        // LOST) were read the same by both readers (verified); a sample made READ or MMAP is
        // lost to both.
        let as_sample = self.is_sample(body);
        // The kernel writes READ records only for events opened with inherit_stat (`perf
        // record -s`), at a child's exit.
        let inherit_stat = self.attrs.iter().any(|a| a.flags & (1 << 11) != 0);
        let need = fixed
            .saturating_add(trailer)
            .saturating_add(u64::from(string));
        if (body.len() as u64) < need {
            self.short(kind, span, need, sink);
            return;
        }
        if string {
            let s = body
                .get(
                    usize::try_from(fixed).unwrap_or(usize::MAX)
                        ..body
                            .len()
                            .saturating_sub(usize::try_from(trailer).unwrap_or(0)),
                )
                .unwrap_or_default();
            if !s.contains(&0) {
                let f = sink.make(
                    &rules::RECORD_FIELDS,
                    span.clone(),
                    format!(
                        "the {} record at 0x{:x} has no NUL in its name field",
                        record_name(kind),
                        span.start
                    ),
                );
                self.report(sink, f);
            }
            if matches!(kind, 1 | 10) {
                self.map_name(kind, body, fixed, as_sample, &span, sink);
            }
        }
        // The kernel (and perf, for the records it synthesizes) writes these records to the
        // byte: fixed fields, a name padded to 8 with its NUL, the read values, the sample id.
        // A longer record is no record of this type (verified: a SAMPLE whose type was made
        // READ or MMAP is lost to perf 6.1 and linux-perf-data 0.13.0; every record of
        // corpus/perf and of the campaign's recordings has its exact size).
        let exact = match kind {
            1 | 3 | 10 | 17 | 19 => body
                .get(usize::try_from(fixed).unwrap_or(usize::MAX)..)
                .and_then(|s| s.iter().position(|c| *c == 0))
                .map(|n| fixed.saturating_add((n as u64).saturating_add(1).saturating_add(7) & !7)),
            8 => read_format.and_then(|rf| {
                let mut r = Reader::new(body, e);
                r.skip(8, "read pid/tid").ok()?;
                read_values(&mut r, rf).ok()?;
                Some(r.offset())
            }),
            2 | 4..=7 | 11..=15 | 18 => Some(fixed),
            _ => None,
        };
        // The kernel sizes a READ record to its read values and sample id
        // (`perf_event_read_event`): a shorter one is read on into the next record.
        if kind == 8
            && has_attr
            && self.short_read(body, exact, trailer, read_format, as_sample, &span, sink)
        {
            return;
        }
        if let Some((bit, option)) = needs_attr_bit(kind) {
            if has_attr && !self.attrs.iter().any(|a| a.flags >> bit & 1 != 0) {
                self.without_attr_bit(kind, option, as_sample, span.clone(), sink);
            }
        }
        if kind == 8 && has_attr && !inherit_stat {
            let f = sink
                .make(
                    &rules::RECORD_FIELDS,
                    span.clone(),
                    format!("the READ record at 0x{:x} belongs to a recording none of whose events has inherit_stat (`perf record -s`), the only events the kernel writes READ records for{}", span.start, if as_sample { ": its bytes are a sample of its event, whose type was changed; perf 6.1 and linux-perf-data 0.13.0 read it as READ and lose the sample (verified: a SAMPLE of corpus/perf/cpu-clock.data made READ, 11 of its 12 samples shown by both)" } else { "" }),
                );
            let f = if as_sample {
                f.fails("perf", "6.1", "loss")
            } else {
                f.read_same("perf", "6.1")
            };
            self.report(sink, f);
        }
        if let Some(x) = exact.map(|x| x.saturating_add(trailer)) {
            if (body.len() as u64) > x && has_attr {
                let f = sink
                    .make(
                        &rules::RECORD_FIELDS,
                        span.clone(),
                        format!(
                            "the {} record at 0x{:x} is {} bytes, but its fields{} take {}: no writer leaves bytes in it{}",
                            record_name(kind),
                            span.start,
                            (body.len() as u64).saturating_add(8),
                            if trailer > 0 { " and sample id" } else { "" },
                            x.saturating_add(8),
                            if as_sample {
                                format!(": its bytes are a sample of its event whose type was changed; perf 6.1 and linux-perf-data 0.13.0 read it as {} and lose the sample (verified: a SAMPLE made MMAP, missing from both)", record_name(kind))
                            } else {
                                String::new()
                            }
                        ),
                    );
                let f = if as_sample {
                    f.fails("perf", "6.1", "loss")
                } else if let Some(n) = swallowed_records(body, x, e) {
                    grown_over(f, n)
                } else {
                    f.read_same("perf", "6.1")
                };
                self.report(sink, f);
            }
        }
        // MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID: a build id of at most 20 bytes.
        if kind == 10 {
            // `build_id_size` is the first byte of the union after pgoff, 32 bytes in.
            let n = body.get(32).copied().unwrap_or(0);
            if misc & (1 << 14) != 0 && n > 20 {
                let perf = if n >= 29 {
                    "perf 6.1 copies it into a 20-byte build id on its stack and aborts (\"assertion failed at util/build-id.c:1010\", \"*** stack smashing detected ***\", `perf script` and `perf report` exit 134; verified from 29 bytes on)"
                } else {
                    "perf 6.1 prints \"assertion failed at util/build-id.c:1010\" and reads on (verified for 21 to 28 bytes; from 29 on it aborts)"
                };
                let f = sink
                    .make(
                        &rules::RECORD_FIELDS,
                        span.clone(),
                        format!("the MMAP2 record at 0x{:x} says it carries a build id (misc bit 14) of {n} bytes, above 20; linux-perf-data 0.13.0 panics on it (\"assertion failed: build_id_len <= 20\", exit 101, verified); {perf}", span.start),
                    )
                    .fails("linux-perf-data", "0.13.0", "crash");
                self.report(sink, f);
            }
        }
        if kind == 2 {
            let lost = crate::reader::u64_at(body, 8, e).unwrap_or(0);
            self.walk.lost = self.walk.lost.saturating_add(lost);
        } else if kind == 13 {
            let lost = crate::reader::u64_at(body, 0, e).unwrap_or(0);
            self.walk.lost = self.walk.lost.saturating_add(lost);
        }
    }

    /// A SAMPLE with id 0 in a recording of several events. Id 0 is what perf gives the
    /// records it synthesizes, which it attributes to the first attr; the kernel gives every
    /// sample its event's nonzero id.
    fn zero_id_sample(&mut self, body: &[u8], span: &Range<u64>, sink: &mut Sink) {
        if self.attrs.len() < 2 {
            return;
        }
        let id = self
            .attrs
            .first()
            .and_then(|a| attrs::id_pos(a.sample_type))
            .and_then(|p| usize::try_from(p.checked_mul(8)?).ok())
            .and_then(|p| crate::reader::u64_at(body, p, self.endian));
        if id == Some(0) {
            let f = sink
                .make(
                    &rules::UNKNOWN_ID,
                    span.clone(),
                    format!("the SAMPLE at 0x{:x} has id 0 in a recording of {} events, whose samples the kernel gives their event's nonzero id: perf 6.1 and linux-perf-data 0.13.0 read it as a sample of the first event (verified: a `raw_syscalls:sys_exit` sample of corpus/perf/trace.data shown as `sys_enter`)", span.start, self.attrs.len()),
                )
                .fails("perf", "6.1", "loss");
            self.report(sink, f);
        }
    }

    /// A SAMPLE whose bytes are an MMAP2's (or an MMAP's) of its size: after the map's fixed
    /// fields a name that starts with `/` or `[`, printable up to its NUL, zeros to the next
    /// multiple of 8 and then exactly the sample_id_all trailer (`trailer` bytes). A map record
    /// whose type was changed: the map is gone for every reader.
    fn map_made_sample(&mut self, body: &[u8], trailer: u64, span: &Range<u64>, sink: &mut Sink) {
        let shape = [(10u32, 64usize), (1, 32)]
            .into_iter()
            .find_map(|(kind, fixed)| {
                let name = body.get(fixed..)?;
                if !matches!(name.first(), Some(b'/' | b'[')) {
                    return None;
                }
                let nul = memchr::memchr(0, name)?;
                let text = name.get(..nul)?;
                let padded = nul.checked_add(1)?.checked_next_multiple_of(8)?;
                let whole = fixed.checked_add(padded)? as u64;
                let ok = nul >= 2
                    && text.iter().all(|c| (0x20..0x7f).contains(c))
                    && name.get(nul..padded)?.iter().all(|c| *c == 0)
                    && whole.checked_add(trailer) == Some(body.len() as u64);
                ok.then(|| (kind, String::from_utf8_lossy(text).into_owned()))
            });
        let Some((kind, name)) = shape else {
            return;
        };
        let f = sink
            .make(
                &rules::SAMPLE_BODY,
                span.clone(),
                format!("the SAMPLE at 0x{:x} is an {} record of {name} by its bytes (the name after the map's fixed fields, zero-padded, then exactly the sample_id_all trailer): a map record whose type was changed, gone for every reader, which read its bytes as a sample instead; perf 6.1 `perf script` stopped at one (\"failed to process type: 9 [Bad address]\", exit 242, verified on corpus/perf/trace.data) and crashed on another (SIGSEGV: the MMAP2 of /usr/bin/wc in a copy of a `perf record -e sched:sched_switch -o -` recording)", span.start, record_name(kind)),
            )
            .fails("perf", "6.1", "loss");
        self.report(sink, f);
    }

    /// Whether this is the first SAMPLE of a tracepoint attr `idx` (perf 6.1 sets the event's
    /// format up from it), marking it seen.
    fn first_tracepoint_sample(&mut self, idx: Option<usize>) -> bool {
        let Some(i) = idx.filter(|&i| self.attrs.get(i).is_some_and(|a| a.kind == 2)) else {
            return false;
        };
        if self.sampled.len() <= i {
            self.sampled.resize(i.saturating_add(1), false);
        }
        self.sampled
            .get_mut(i)
            .is_some_and(|seen| !std::mem::replace(seen, true))
    }

    /// A SAMPLE attributed to the dummy software event (`perf record` adds one to track maps
    /// and tasks, `dummy:HG`), which counts nothing and never samples: its id was changed.
    fn dummy_sample(&mut self, idx: Option<usize>, span: &Range<u64>, sink: &mut Sink) {
        let dummy = idx
            .and_then(|i| self.attrs.get(i))
            .is_some_and(|a| a.kind == 1 && a.config == 9);
        if dummy && self.attrs.len() > 1 {
            let f = sink
                .make(
                    &rules::UNKNOWN_ID,
                    span.clone(),
                    format!("the SAMPLE at 0x{:x} has the id of the dummy event (software event 9, which counts nothing and never samples): its id was changed; perf 6.1 and linux-perf-data 0.13.0 read it as a dummy sample, lost to the event it was taken for (verified: a `cpu-clock` sample of sys-wide.data given the dummy event's id, missing from both)", span.start),
                )
                .fails("perf", "6.1", "loss");
            self.report(sink, f);
        }
    }

    /// A SAMPLE whose cpu mode is the guest's (kernel 4, user 5) though its event excludes the
    /// guest (`exclude_guest`, which `perf record` sets on every event it is not told to count
    /// in guests): the kernel gives such an event no guest sample, and perf 6.1 finds no guest
    /// machine for it and drops it.
    /// Then checks the SAMPLE (`rec`: with its header) as [`Self::sample`] does.
    fn guest_sample(&mut self, rec: &[u8], body: &[u8], span: Range<u64>, sink: &mut Sink) {
        let misc = crate::reader::u16_at(rec, 4, self.endian).unwrap_or(0);
        let mode = misc & 7;
        let excluded = self
            .attr_of(body, true)
            .and_then(|i| self.attrs.get(i))
            .is_some_and(|a| a.flags & FLAG_EXCLUDE_GUEST != 0);
        if !matches!(mode, 4 | 5) || !excluded {
            return self.sample(body, span, sink);
        }
        let f = sink
            .make(
                &rules::SAMPLE_BODY,
                span.start..span.start.saturating_add(8),
                format!("the SAMPLE at 0x{:x} says it was taken in a guest ({}, misc 0x{misc:x}) though its event excludes the guest (`exclude_guest`): no kernel writes that; perf 6.1 drops the sample (`perf script`: 2651 of 2652 samples shown for one such sample in a `raw_syscalls` recording; cpu modes 0 to 3, 6 and 7 read the same), linux-perf-data 0.13.0 shows it", span.start, if mode == 4 { "guest kernel" } else { "guest user" }),
            )
            .fails("perf", "6.1", "loss");
        self.report(sink, f);
        self.sample(body, span, sink)
    }

    fn sample(&mut self, body: &[u8], span: Range<u64>, sink: &mut Sink) {
        self.zero_id_sample(body, &span, sink);
        let idx = match self.attr_of(body, true) {
            Some(i) => Some(i),
            None if self.attrs.len() > 1 => {
                self.unknown_id(9, span.clone(), sink);
                // Parse it with the first attr when all attrs share one layout.
                let t = self.attrs.first().map(|a| a.sample_type);
                self.attrs
                    .iter()
                    .all(|a| Some(a.sample_type) == t)
                    .then_some(0)
            }
            None => None,
        };
        self.dummy_sample(idx, &span, sink);
        let first = self.first_tracepoint_sample(idx);
        if let Some(trailer) = idx
            .and_then(|i| self.attrs.get(i))
            .map(|a| a.trailer_size())
        {
            self.map_made_sample(body, trailer, &span, sink);
        }
        let Some(attr) = idx.and_then(|i| self.attrs.get(i)) else {
            // A file without attrs is reported by the header checks.
            if self.attrs.is_empty() && self.pipe {
                let f = sink.make(
                    &rules::UNKNOWN_ID,
                    span.clone(),
                    format!("the sample at 0x{:x} comes before any attr", span.start),
                );
                self.report(sink, f);
            }
            return;
        };
        let mut r = Reader::with_base(body, span.start.saturating_add(8), self.endian);
        let fast = idx
            .and_then(|i| self.layouts.get(i))
            .and_then(|l| l.read(body, self.endian));
        let parsed = match fast {
            Some(s) => {
                // The body is exactly the fields: nothing is left.
                let _ = r.skip(body.len() as u64, "sample");
                Ok(s)
            }
            None => parse_sample(&mut r, attr),
        };
        match parsed {
            Ok(s)
                if attr.kind == 2
                    && s.common_type
                        .is_some_and(|t| self.info.tracepoint_unparsed.contains(&u32::from(t))) =>
            {
                let t = s.common_type.unwrap_or_default();
                let f = sink
                    .make(&rules::TRACEPOINT_ID, span.clone(), format!("the tracepoint sample at 0x{:x} has common_type {t}, whose event format does not parse (see the TD findings); perf 6.1 prints its fields as \"[FAILED TO PARSE]\" instead of the values written (verified on corpus/perf/trace.data with a `size:` of its `sys_enter` format damaged)", span.start))
                    .fails("perf", "6.1", "loss");
                self.report(sink, f);
                self.walk.samples = self.walk.samples.saturating_add(1);
            }
            Ok(s)
                if attr.kind == 2
                    && s.common_type.is_some_and(|t| {
                        self.info
                            .tracepoint_ids
                            .as_ref()
                            .is_some_and(|ids| !ids.contains(&u32::from(t)))
                    }) =>
            {
                let t = s.common_type.unwrap_or_default();
                let f = sink
                    .make(&rules::TRACEPOINT_ID, span.clone(), format!("the tracepoint sample at 0x{:x} has common_type {t} in its raw data, the id of no event format in TRACING_DATA; perf 6.1 `perf report` crashes with SIGSEGV on it (verified; `perf script` shows it)", span.start))
                    .fails("perf", "6.1", "crash");
                self.report(sink, f);
                self.walk.samples = self.walk.samples.saturating_add(1);
            }
            Ok(s)
                if attr.kind == 2
                    && s.common_type
                        .is_some_and(|t| u64::from(t) != attr.config && self.attrs.len() > 1) =>
            {
                let t = s.common_type.unwrap_or_default();
                let f = sink
                    .make(&rules::TRACEPOINT_ID, span.clone(), format!("the tracepoint sample at 0x{:x} has common_type {t} in its raw data, but its id names the event of tracepoint {}: the kernel writes a tracepoint's own id into each of its samples, so the sample's id (or its raw data) is damaged; perf 6.1 and linux-perf-data 0.13.0 show it under the other event, perf reading its fields with that event's format", span.start, attr.config))
                    .fails("perf", "6.1", "loss");
                self.report(sink, f);
                self.walk.samples = self.walk.samples.saturating_add(1);
            }
            Ok(s) => {
                self.walk.samples = self.walk.samples.saturating_add(1);
                if let Some(t) = s.time {
                    self.rounds.sample(t, &span);
                    self.walk.time_range = Some(match self.walk.time_range {
                        Some((lo, hi)) => (lo.min(t), hi.max(t)),
                        None => (t, t),
                    });
                }
                if let Some(c) = s.cpu {
                    if self.walk.max_cpu.as_ref().is_none_or(|(m, _)| c > *m) {
                        self.walk.max_cpu = Some((c, span.clone()));
                    }
                }
                // RAW the last field of the sample (no field after it in the sample_type): the
                // bytes left are the raw data past a raw size that became smaller. perf 6.1
                // reads every field before it, and the tracepoint's fields from the raw data at
                // their offsets, without the raw size (verified: `raw_syscalls` and
                // `sched_switch` samples with raw sizes made 0, 1, minus 1 or half theirs,
                // `perf script`, `perf report`, `perf sched latency` and `timehist` the same;
                // linux-perf-data 0.13.0 the same).
                // A tracepoint's raw data too short for its common_type: `perf report` finds
                // no event format for the sample and crashes.
                let no_type = attr.kind == 2 && s.common_type.is_none() && first;
                let raw_last = attr.sample_type & st::RAW != 0
                    && attr.sample_type & st::KNOWN & !((st::RAW << 1) - 1) & !st::IDENTIFIER == 0;
                if !r.is_empty()
                    && raw_last
                    && !(attr.kind == 2 && attr.sample_type & st::TIME == 0)
                {
                    let f = sink
                        .make(
                            &rules::SAMPLE_BODY,
                            span.clone(),
                            format!(
                                "the sample at 0x{:x} leaves {} of its {} body bytes after its raw data, its last field: the raw size is smaller than the bytes the kernel wrote for it; {}",
                                span.start,
                                r.remaining(),
                                body.len(),
                                raw_left_effect(no_type),
                            ),
                        );
                    let f = if no_type {
                        f.fails("perf", "6.1", "crash")
                    } else {
                        f.level(Severity::Warning)
                    };
                    self.report(sink, f);
                } else if !r.is_empty() {
                    let crash = attr.kind == 2 && attr.sample_type & st::TIME == 0;
                    let f = sink
                        .make(
                            &rules::SAMPLE_BODY,
                            span.clone(),
                            format!(
                                "the sample at 0x{:x} leaves {} of its {} body bytes after the fields of sample_type 0x{:x}: the sample_type does not describe it, and the fields are read at other places than written; {}",
                                span.start,
                                r.remaining(),
                                body.len(),
                                attr.sample_type,
                                if crash {
                                    "perf 6.1 `perf report` and `perf script` crash with SIGSEGV on such tracepoint samples without TIME"
                                } else {
                                    "perf 6.1 reads the fields it expects and ignores the rest (values other than written)"
                                }
                            ),
                        )
                        .fails("perf", "6.1", if crash { "crash" } else { "loss" });
                    self.report(sink, f);
                }
            }
            Err(e) => {
                let crash = attr.kind == 2 && attr.sample_type & st::TIME == 0;
                let msg = format!(
                    "the sample at 0x{:x} does not match sample_type 0x{:x}: {e}; {}",
                    span.start,
                    attr.sample_type,
                    if crash {
                        "perf 6.1 `perf report` and `perf script` crash with SIGSEGV on tracepoint samples without TIME".to_string()
                    } else {
                        format!(
                            "perf 6.1 stops with \"Can't parse sample, err = -14\": {}",
                            self.stop_effect()
                        )
                    }
                );
                let f = sink.make(&rules::SAMPLE_BODY, span.clone(), msg).fails(
                    "perf",
                    "6.1",
                    if crash { "crash" } else { "loss" },
                );
                self.report(sink, f);
                self.note_stop(span.start);
            }
        }
    }

    fn header_attr(&mut self, rec: &[u8], span: Range<u64>, sink: &mut Sink) {
        let at = span.start.saturating_add(8);
        let Some(mut a) = attrs::parse_attr(self.image.bytes(), self.endian, at, span.end, sink)
        else {
            let f = sink.make(
                &rules::PIPE_RECORDS,
                span,
                "the HEADER_ATTR record is too short for its attr",
            );
            self.report(sink, f);
            return;
        };
        let ids_start = a.span.end;
        let left = span.end.saturating_sub(ids_start);
        if left % 8 != 0 {
            let f = sink.make(&rules::PIPE_RECORDS, span.clone(), format!("the HEADER_ATTR record leaves {left} bytes after its {}-byte attr, not a whole number of u64 ids", a.size));
            self.report(sink, f);
        }
        let _ = rec;
        a.ids = attrs::read_ids(
            self.image.bytes(),
            self.endian,
            ids_start..ids_start.saturating_add(left & !7),
            self.limits,
        );
        a.ids_span = ids_start..ids_start.saturating_add(left & !7);
        if self.walk.samples > 0 {
            let f = sink.make(
                &rules::PIPE_RECORDS,
                span,
                "a HEADER_ATTR record comes after samples",
            );
            self.report(sink, f);
        }
        self.add_attr(a);
    }

    fn header_feature(&mut self, rec: &[u8], span: Range<u64>, sink: &mut Sink) {
        let Some(id) = crate::reader::u64_at(rec, 8, self.endian) else {
            self.short(80, span, 8, sink);
            return;
        };
        if id == LAST_FEATURE_61 {
            self.feature_end = true;
            return;
        }
        if id == 0 {
            let f = sink
                .make(&rules::PIPE_RECORDS, span, "HEADER_FEATURE with feature id 0 (HEADER_RESERVED): perf 6.1 refuses the stream (\"invalid record type 80 in pipe-mode\", `perf script` exit 234, none of the samples shown; verified on a damaged copy of a `perf record -o -` stream)")
                .fails("perf", "6.1", "reject");
            self.report(sink, f);
            return;
        }
        if id > LAST_FEATURE_61 {
            let f = sink
                .make(&rules::PIPE_RECORDS, span, format!("HEADER_FEATURE with feature id {id}: perf 6.1 refuses the stream (\"failed: wrong feature ID\"), only 32 ends its features"))
                .fails("perf", "6.1", "reject");
            self.report(sink, f);
            return;
        }
        let payload = span.start.saturating_add(16)..span.end;
        let n = self.attrs.len();
        features::check_feature(
            self.image.bytes(),
            self.endian,
            id,
            payload.clone(),
            n,
            true,
            &mut self.info,
            self.limits,
            sink,
        );
        self.features.push(Feature {
            bit: id,
            span: payload,
        });
    }

    fn compressed(&mut self, body: &[u8], span: Range<u64>, sink: &mut Sink) {
        self.walk.compressed = self.walk.compressed.saturating_add(1);
        if self.zstd_failed {
            return;
        }
        if self.zstd.is_none() {
            let blocked = self
                .info
                .unreadable
                .iter()
                .find(|(bit, _)| *bit < 27)
                .cloned();
            match self.info.compressed {
                Some((1, _)) if blocked.is_some() => {
                    let (bit, fspan) = blocked.unwrap_or((0, 0..0));
                    sink.push(
                        sink.make(
                            &rules::COMPRESSED_FEATURE,
                            fspan,
                            format!(
                                "feature {bit} ({}) cannot be read and comes before COMPRESSED: perf 6.1 stops reading features there, never reads COMPRESSED and decompresses none of the samples (\"Couldn't decompress data\", verified with single-byte changes in CPU_TOPOLOGY and CACHE of a `-z` recording)",
                                feature_name(bit)
                            ),
                        )
                        .fails("perf", "6.1", "loss"),
                    );
                    self.note_stop(span.start);
                }
                Some((1, _)) => {}
                Some((t, _)) => {
                    // perf 6.1 and linux-perf-data 0.13.0 decompress with zstd whatever type
                    // the feature names (verified: the COMPRESSED section moved one byte, its
                    // type read as another value, every sample read the same by both).
                    sink.push(
                        sink.make(&rules::COMPRESSED_FEATURE, span.clone(), format!("the COMPRESSED feature names compression type {t}, not 1 (zstd); perf 6.1 and linux-perf-data 0.13.0 decompress the records with zstd all the same"))
                            .read_same("perf", "6.1"),
                    );
                }
                other => {
                    let why = match other {
                        None => "the file has no readable COMPRESSED feature".to_string(),
                        Some((t, _)) => format!(
                            "the COMPRESSED feature names compression type {t}, not 1 (zstd)"
                        ),
                    };
                    sink.push(
                        sink.make(&rules::COMPRESSED_FEATURE, span.clone(), format!("the COMPRESSED record at 0x{:x} needs the COMPRESSED feature to be decompressed but {why}; perf 6.1 prints \"Couldn't decompress data\" and shows none of the samples inside (verified: 0 samples)", span.start))
                            .fails("perf", "6.1", "loss"),
                    );
                    self.note_stop(span.start);
                }
            }
            match zstd::stream::raw::Decoder::new() {
                Ok(d) => self.zstd = Some(d),
                Err(_) => {
                    self.zstd_failed = true;
                    return;
                }
            }
        }
        self.pending_span = span.clone();
        let carried = self.pending.len() as u64;
        let mut produced_here = 0u64;
        let mut input = zstd::stream::raw::InBuffer::around(body);
        let mut chunk = std::mem::take(&mut self.chunk);
        chunk.resize(ZSTD_CHUNK, 0);
        let done = self.decompress(
            &mut input,
            body.len(),
            &mut chunk,
            &span,
            &mut produced_here,
            sink,
        );
        self.chunk = chunk;
        if !done {
            return;
        }
        if produced_here == 0 {
            sink.push(
                sink.make(&rules::COMPRESSED_DATA, span.clone(), format!("the COMPRESSED record at 0x{:x} decompresses to nothing (its zstd data is damaged or cut); perf 6.1 takes an empty result for a failure, prints \"Couldn't decompress data\" and stops: {}", span.start, self.stop_effect()))
                    .fails("perf", "6.1", "loss"),
            );
            self.note_stop(span.start);
            self.zstd_failed = true;
            return;
        }
        self.walk.max_output = self
            .walk
            .max_output
            .max(carried.saturating_add(produced_here));
        if let Some((_, mmap_len)) = self.info.compressed {
            let need = carried.saturating_add(produced_here);
            if need > u64::from(mmap_len) {
                let f = sink
                    .make(&rules::COMPRESSED_DATA, span.clone(), format!("the COMPRESSED record at 0x{:x} needs {need} bytes of output (with {carried} carried from the previous record), more than the COMPRESSED feature's mmap_len {mmap_len} that perf 6.1 sizes its output buffer by; its decompression cannot complete (from source: `zstd_decompress_stream`)", span.start))
                    .fails("perf", "6.1", "loss");
                self.report(sink, f);
            }
        }
        self.frame_pending(sink);
    }

    /// Runs the decoder over one COMPRESSED record's bytes into `pending`; `false` when it
    /// failed or hit a limit (reported). Past [`PENDING_MAX`] the whole records are walked as
    /// they come.
    fn decompress(
        &mut self,
        input: &mut zstd::stream::raw::InBuffer<'_>,
        body_len: usize,
        chunk: &mut [u8],
        span: &Range<u64>,
        produced_here: &mut u64,
        sink: &mut Sink,
    ) -> bool {
        loop {
            let Some(d) = self.zstd.as_mut() else {
                return false;
            };
            let before = input.pos();
            let mut out = zstd::stream::raw::OutBuffer::around(&mut *chunk);
            let res = zstd::stream::raw::Operation::run(d, &mut *input, &mut out);
            let produced = out.pos();
            if let Err(e) = res {
                sink.push(
                    sink.make(&rules::COMPRESSED_DATA, span.clone(), format!("the zstd stream of the COMPRESSED record at 0x{:x} does not decompress ({e}); perf 6.1 prints \"Couldn't decompress data\" and stops: {}", span.start, self.stop_effect()))
                        .fails("perf", "6.1", "loss"),
                );
                self.note_stop(span.start);
                self.zstd_failed = true;
                return false;
            }
            *produced_here = produced_here.saturating_add(produced as u64);
            self.walk.decompressed_bytes =
                self.walk.decompressed_bytes.saturating_add(produced as u64);
            if self.walk.decompressed_bytes > self.limits.max_decompressed_bytes {
                sink.limit(
                    span.clone(),
                    "decompressed records",
                    self.walk.decompressed_bytes,
                    "max_decompressed_bytes",
                    self.limits.max_decompressed_bytes,
                );
                self.zstd_failed = true;
                return false;
            }
            self.pending
                .extend_from_slice(chunk.get(..produced).unwrap_or_default());
            if self.pending.len() > PENDING_MAX {
                self.frame_pending(sink);
                if self.zstd_failed {
                    return false;
                }
            }
            if input.pos() >= body_len && produced < chunk.len() {
                break;
            }
            if produced == 0 && (input.pos() >= body_len || input.pos() == before) {
                // No progress: the rest of this record's bytes wait for the next record.
                break;
            }
        }
        true
    }

    /// Frames the whole records at the front of the decompressed bytes.
    fn frame_pending(&mut self, sink: &mut Sink) {
        let mut pos = 0usize;
        let pending = std::mem::take(&mut self.pending);
        let span = self.pending_span.clone();
        while let Some(size) = crate::reader::u16_at(&pending, pos.saturating_add(6), self.endian) {
            let size = usize::from(size);
            if size < 8 {
                sink.push(
                    sink.make(&rules::COMPRESSED_DATA, span.clone(), format!("a record decompressed from the COMPRESSED record at 0x{:x} has size {size}, below 8: the decompressed stream cannot be walked; {}", span.start, self.stop_effect()))
                        .fails("perf", "6.1", "loss"),
                );
                self.note_stop(span.start);
                self.zstd_failed = true;
                return;
            }
            let Some(rec) = pending.get(pos..pos.saturating_add(size)) else {
                break;
            };
            self.record(rec, span.clone(), false, sink);
            pos = pos.saturating_add(size);
        }
        let mut pending = pending;
        pending.drain(..pos.min(pending.len()));
        self.pending = pending;
    }

    fn finish_compressed(&mut self, sink: &mut Sink) {
        if !self.pending.is_empty() && !self.zstd_failed {
            let span = self.pending_span.clone();
            sink.push(
                sink.make(&rules::COMPRESSED_DATA, span.clone(), format!("the decompressed stream ends with {} bytes of a cut record (after the COMPRESSED record at 0x{:x})", self.pending.len(), span.start))
                    .fails("perf", "6.1", "loss"),
            );
        }
    }
}

/// Where the fields of a SAMPLE are when its sample_type has only 8-byte fields and maybe a
/// callchain (most recordings): a body that is exactly those fields is read from their places,
/// anything else by [`parse_sample`], which says what is wrong.
#[derive(Clone, Copy)]
struct Layout {
    /// Only such fields.
    simple: bool,
    /// Bytes before the callchain (or of all the fields when there is none).
    prefix: usize,
    callchain: bool,
    /// RAW data is the only field of another kind (a tracepoint's sample).
    raw: bool,
    /// Bytes after the callchain.
    suffix: usize,
    time_at: Option<usize>,
    cpu_at: Option<usize>,
}

impl Layout {
    fn of(t: u64) -> Self {
        let complex = st::READ
            | st::RAW
            | st::BRANCH_STACK
            | st::REGS_USER
            | st::STACK_USER
            | st::REGS_INTR
            | st::AUX;
        let mut prefix = 0usize;
        let mut time_at = None;
        let mut cpu_at = None;
        // In the order of `parse_sample`.
        for bit in [
            st::IDENTIFIER,
            st::IP,
            st::TID,
            st::TIME,
            st::ADDR,
            st::ID,
            st::STREAM_ID,
            st::CPU,
            st::PERIOD,
        ] {
            if t & bit != 0 {
                if bit == st::TIME {
                    time_at = Some(prefix);
                } else if bit == st::CPU {
                    cpu_at = Some(prefix);
                }
                prefix = prefix.saturating_add(8);
            }
        }
        let after = [
            st::DATA_SRC,
            st::TRANSACTION,
            st::PHYS_ADDR,
            st::CGROUP,
            st::DATA_PAGE_SIZE,
            st::CODE_PAGE_SIZE,
        ];
        let mut suffix = 8usize.saturating_mul(after.iter().filter(|b| t & **b != 0).count());
        if t & (st::WEIGHT | st::WEIGHT_STRUCT) != 0 {
            suffix = suffix.saturating_add(8);
        }
        Layout {
            simple: t & complex == 0,
            prefix,
            callchain: t & st::CALLCHAIN != 0,
            raw: t & complex == st::RAW,
            suffix,
            time_at,
            cpu_at,
        }
    }

    /// The sample, when `body` is exactly its fields.
    #[inline]
    fn read(&self, body: &[u8], e: Endian) -> Option<Sample> {
        if !self.simple {
            return None;
        }
        let chain = if self.callchain {
            let nr = crate::reader::u64_at(body, self.prefix, e)?;
            usize::try_from(nr).ok()?.checked_mul(8)?.checked_add(8)?
        } else {
            0
        };
        let total = self.prefix.checked_add(chain)?.checked_add(self.suffix)?;
        if total != body.len() {
            return None;
        }
        Some(Sample {
            time: self.time_at.and_then(|a| crate::reader::u64_at(body, a, e)),
            cpu: self.cpu_at.and_then(|a| crate::reader::u32_at(body, a, e)),
            common_type: None,
        })
    }
}

/// `(major, minor)` of a perf version string (`6.1.187`).
fn perf_version(v: &str) -> Option<(u32, u32)> {
    let mut it = v.trim().split(['.', '-', ' ']);
    let major = it.next()?.parse().ok()?;
    let minor = it.next()?.parse().ok()?;
    Some((major, minor))
}

/// Record types some perf or simpleperf writes.
fn known_type(kind: u32) -> bool {
    matches!(kind, 1..=21 | 64..=86 | 32769..=32777)
}

/// Parses a SAMPLE body against its attr; the reader is left after the fields.
fn parse_sample(r: &mut Reader<'_>, a: &Attr) -> Result<Sample, String> {
    let t = a.sample_type;
    let mut s = Sample::default();
    let w = |r: &mut Reader<'_>, what: &'static str| -> Result<u64, String> {
        r.u64(what).map_err(|e| e.to_string())
    };
    if t & st::IDENTIFIER != 0 {
        w(r, "identifier")?;
    }
    if t & st::IP != 0 {
        w(r, "ip")?;
    }
    if t & st::TID != 0 {
        w(r, "pid/tid")?;
    }
    if t & st::TIME != 0 {
        s.time = Some(w(r, "time")?);
    }
    if t & st::ADDR != 0 {
        w(r, "addr")?;
    }
    if t & st::ID != 0 {
        w(r, "id")?;
    }
    if t & st::STREAM_ID != 0 {
        w(r, "stream_id")?;
    }
    if t & st::CPU != 0 {
        let cpu = r.u32("cpu").map_err(|e| e.to_string())?;
        r.u32("cpu reserved").map_err(|e| e.to_string())?;
        s.cpu = Some(cpu);
    }
    if t & st::PERIOD != 0 {
        w(r, "period")?;
    }
    if t & st::READ != 0 {
        read_values(r, a.read_format).map_err(|e| e.to_string())?;
    }
    if t & st::CALLCHAIN != 0 {
        let nr = w(r, "callchain nr")?;
        array(r, nr, 8, "callchain")?;
    }
    if t & st::RAW != 0 {
        let n = r.u32("raw size").map_err(|e| e.to_string())?;
        let raw = r
            .bytes_u64(u64::from(n), "raw data")
            .map_err(|e| e.to_string())?;
        s.common_type = crate::reader::u16_at(raw, 0, r.endian());
    }
    if t & st::BRANCH_STACK != 0 {
        let nr = w(r, "branch stack nr")?;
        if a.branch_sample_type & BRANCH_HW_INDEX != 0 {
            w(r, "branch hw_idx")?;
        }
        array(r, nr, 24, "branch stack")?;
    }
    if t & st::REGS_USER != 0 {
        let abi = w(r, "user regs abi")?;
        if abi != 0 {
            array(
                r,
                u64::from(a.sample_regs_user.count_ones()),
                8,
                "user regs",
            )?;
        }
    }
    if t & st::STACK_USER != 0 {
        let size = w(r, "user stack size")?;
        r.skip(size, "user stack").map_err(|e| e.to_string())?;
        if size != 0 {
            let dyn_size = w(r, "user stack dyn_size")?;
            if dyn_size > size {
                return Err(format!(
                    "user stack dyn_size {dyn_size} exceeds its size {size}"
                ));
            }
        }
    }
    if t & (st::WEIGHT | st::WEIGHT_STRUCT) != 0 {
        w(r, "weight")?;
    }
    if t & st::DATA_SRC != 0 {
        w(r, "data_src")?;
    }
    if t & st::TRANSACTION != 0 {
        w(r, "transaction")?;
    }
    if t & st::REGS_INTR != 0 {
        let abi = w(r, "intr regs abi")?;
        if abi != 0 {
            array(
                r,
                u64::from(a.sample_regs_intr.count_ones()),
                8,
                "intr regs",
            )?;
        }
    }
    if t & st::PHYS_ADDR != 0 {
        w(r, "phys_addr")?;
    }
    if t & st::CGROUP != 0 {
        w(r, "cgroup")?;
    }
    if t & st::DATA_PAGE_SIZE != 0 {
        w(r, "data_page_size")?;
    }
    if t & st::CODE_PAGE_SIZE != 0 {
        w(r, "code_page_size")?;
    }
    if t & st::AUX != 0 {
        let n = w(r, "aux size")?;
        r.skip(n, "aux data").map_err(|e| e.to_string())?;
    }
    Ok(s)
}

fn array(r: &mut Reader<'_>, nr: u64, each: u64, what: &'static str) -> Result<(), String> {
    let Some(n) = nr.checked_mul(each) else {
        return Err(format!("{what} count {nr} overflows"));
    };
    if n > r.remaining() as u64 {
        return Err(format!(
            "{what} of {nr} entries needs {n} bytes at 0x{:x}, only {} are left in the record",
            r.offset(),
            r.remaining()
        ));
    }
    r.skip(n, what).map_err(|e| e.to_string())
}

/// The attr flag bit (and the `perf record` option that sets it) without which neither the
/// kernel nor perf writes records of `kind`: context_switch (SWITCH, SWITCH_CPU_WIDE),
/// namespaces, ksymbol, bpf_event, cgroup, text_poke (`perf record --switch-events`,
/// `--namespaces` and `--all-cgroups` recordings set the bit and have the records; ksymbol and
/// bpf_event are set in every recording of perf 6.1).
fn needs_attr_bit(kind: u32) -> Option<(u32, &'static str)> {
    Some(match kind {
        14 | 15 => (26, "`context_switch`, `--switch-events`"),
        16 => (28, "`namespaces`, `--namespaces`"),
        17 => (29, "`ksymbol`"),
        18 => (30, "`bpf_event`"),
        19 => (32, "`cgroup`, `--all-cgroups`"),
        20 => (33, "`text_poke`"),
        _ => return None,
    })
}

/// The bytes of a READ record's pid, tid and read values (`body`: as far as it is there, for
/// a group's count).
fn read_size(body: &[u8], rf: u64, e: Endian) -> u64 {
    let per = 1u64
        .saturating_add(u64::from(rf & rf::ID != 0))
        .saturating_add(u64::from(rf & rf::LOST != 0));
    let times = u64::from(rf & rf::TOTAL_TIME_ENABLED != 0)
        .saturating_add(u64::from(rf & rf::TOTAL_TIME_RUNNING != 0));
    let values = if rf & rf::GROUP != 0 {
        let nr = crate::reader::u64_at(body, 8, e).unwrap_or(0);
        nr.saturating_mul(per)
            .saturating_add(times)
            .saturating_add(1)
    } else {
        per.saturating_add(times)
    };
    values.saturating_mul(8).saturating_add(8)
}

/// The values of a READ sample field or READ record, per `read_format`.
pub fn read_values(r: &mut Reader<'_>, rf: u64) -> ReadResult<()> {
    let per = 1u64
        .saturating_add(u64::from(rf & rf::ID != 0))
        .saturating_add(u64::from(rf & rf::LOST != 0));
    let times = u64::from(rf & rf::TOTAL_TIME_ENABLED != 0)
        .saturating_add(u64::from(rf & rf::TOTAL_TIME_RUNNING != 0));
    if rf & rf::GROUP != 0 {
        let nr = r.u64("read group nr")?;
        r.skip(times.saturating_mul(8), "read times")?;
        r.skip(
            nr.saturating_mul(per).saturating_mul(8),
            "read group values",
        )?;
    } else {
        r.skip(per.saturating_add(times).saturating_mul(8), "read values")?;
    }
    Ok(())
}

/// Whether a map's name is a user-space object's: a path that is neither a kernel module
/// (`.ko`, compressed or not) nor a vmlinux, or a special user-space mapping.
fn user_space_name(name: &[u8]) -> bool {
    let special = [
        &b"[vdso]"[..],
        b"[vdso32]",
        b"[vdsox32]",
        b"[vsyscall]",
        b"[stack]",
        b"[heap]",
        b"[vvar]",
        b"[vvar_vclock]",
        b"[uprobes]",
    ];
    let has = |needle: &[u8]| memchr::memmem::find(name, needle).is_some();
    special.contains(&name)
        || (name.starts_with(b"/") && !name.ends_with(b".ko") && !has(b".ko.") && !has(b"vmlinux"))
}

/// A CPU_MAP range body's fields (type 2: u8 any_cpu, u8 pad, u16 start, u16 end).
fn cpu_range_fields(body: &[u8], e: Endian) -> Option<(u8, u16, u16)> {
    Some((
        *body.get(2)?,
        crate::reader::u16_at(body, 4, e)?,
        crate::reader::u16_at(body, 6, e)?,
    ))
}

/// The cpus of a CPU_MAP body: a list (type 0: u16 nr, u16 cpu[nr], 0xffff for -1) or a
/// range (type 2: u8 any_cpu, u8 pad, u16 start, u16 end; -1 too when any_cpu); `None` for a
/// mask or a map that does not read.
fn cpu_map_cpus(body: &[u8], e: Endian) -> Option<Vec<i64>> {
    let cpu = |c: u16| if c == u16::MAX { -1 } else { i64::from(c) };
    match crate::reader::u16_at(body, 0, e)? {
        0 => {
            let nr = usize::from(crate::reader::u16_at(body, 2, e)?);
            (0..nr)
                .map(|i| {
                    crate::reader::u16_at(body, 4usize.saturating_add(i.saturating_mul(2)), e)
                        .map(cpu)
                })
                .collect()
        }
        2 => {
            let (any, start, end) = cpu_range_fields(body, e)?;
            let mut v: Vec<i64> = (start..=end).take(65_536).map(i64::from).collect();
            if any != 0 {
                v.push(-1);
            }
            Some(v)
        }
        _ => None,
    }
}

/// What the readers do with a tracepoint sample whose raw size shrank inside it, RAW its last
/// field: `perf report` crashes on the first sample of an event too short for `common_type`
/// (`no_type`); the rest read the same.
fn raw_left_effect(no_type: bool) -> &'static str {
    if no_type {
        "it is the first sample of its event and too small for the tracepoint's 2-byte common_type, and perf 6.1 `perf report` crashes with SIGSEGV (verified on the first sample of each event of corpus/perf/trace.data and syscalls.data with a raw size made 0 or 1; from 2 on, or on a later sample, it reads the same)"
    } else {
        "perf 6.1 and linux-perf-data 0.13.0 read the same (verified on `raw_syscalls` and `sched_switch` samples with raw sizes made 2 or more, one less or half theirs: `perf script`, `perf report`, `perf sched latency` and `timehist` show the same)"
    }
}

/// A record-fields finding for a record whose excess bytes are `n` whole records: an error.
fn grown_over(f: Finding, n: u64) -> Finding {
    let f = f.fails("perf", "6.1", "loss");
    let message = format!("{}; its excess bytes are {n} whole record(s), which perf 6.1 and linux-perf-data 0.13.0 skip with it (verified: an MMAP2 record of sys-wide.data grown over the records after it: linux-perf-data loses samples, perf 6.1 resolves others)", f.message);
    Finding { message, ..f }
}

/// How many perf records of kernel or user types (1..=21, 64..=83), each at least 8 bytes and
/// a multiple of 8, fill `body` from `from` to its end (the excess bytes of a record grown over
/// the records after it); `None` when they do not.
fn swallowed_records(body: &[u8], from: u64, e: Endian) -> Option<u64> {
    let b = body.get(usize::try_from(from).ok()?..)?;
    let mut at: usize = 0;
    let mut n = 0u64;
    while at < b.len() {
        let ty = crate::reader::u32_at(b, at, e);
        let size = crate::reader::u16_at(b, at.saturating_add(6), e).map(usize::from);
        let (Some(ty), Some(size)) = (ty, size) else {
            return None;
        };
        if !(matches!(ty, 1..=21 | 64..=83) && size >= 8 && size % 8 == 0) {
            return None;
        }
        at = at.saturating_add(size);
        n = n.saturating_add(1);
    }
    (at == b.len() && n > 0).then_some(n)
}
