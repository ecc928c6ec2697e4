//! Decoding of perf.data into the [`model`](super::model): the header and its sections
//! (here), attrs and ids ([`attrs`]), feature payloads ([`features`]) and the record walk
//! ([`records`]). Findings are raised as the bytes are read.

pub mod attrs;
pub mod features;
pub mod records;
pub mod source;

use super::model::*;
use super::rules;
use crate::finding::Sink;
use crate::limits::Limits;
use crate::reader::{Endian, Reader};
use source::{Image, Source};
use std::ops::Range;

/// The byte order a perf.data magic says, `None` for anything else.
pub fn magic_endian(data: &[u8]) -> Option<Endian> {
    let m = data.get(..8)?;
    if m == MAGIC {
        Some(Endian::Little)
    } else if m == MAGIC_SWAPPED {
        Some(Endian::Big)
    } else {
        None
    }
}

fn read_section(r: &mut Reader<'_>, what: &'static str) -> Option<Section> {
    Some(Section {
        offset: r.u64(what).ok()?,
        size: r.u64(what).ok()?,
    })
}

/// Decodes the header; `None` (after a finding) when nothing more can be read.
pub fn decode_header(data: &[u8], sink: &mut Sink) -> Option<Header> {
    let len = data.len() as u64;
    if data.get(..8) == Some(MAGIC_V1.as_slice()) {
        sink.report(
            &rules::LEGACY_MAGIC,
            0..8,
            "the file starts with `PERFFILE`, the magic of perf.data version 1 (perf before 2.6.37); perf 6.1 still reads it, linux-perf-data and perfparser do not; tracelint does not check this version",
        );
        return None;
    }
    let Some(endian) = magic_endian(data) else {
        sink.report(
            &rules::PERF_BAD_MAGIC,
            0..len.min(8),
            "the file does not start with `PERFILE2` in either byte order; perf 6.1 refuses it (\"incompatible file format\")",
        );
        return None;
    };
    let mut r = Reader::new(data, endian);
    let _ = r.skip(8, "magic");
    let Ok(size) = r.u64("header size") else {
        sink.report(
            &rules::PERF_TRUNCATED_HEADER,
            0..len,
            format!("the file is {len} bytes, shorter than the 16 bytes of a perf.data header"),
        );
        return None;
    };
    let mode = match size {
        PIPE_HEADER_SIZE => Mode::Pipe,
        FILE_HEADER_SIZE | OLD_HEADER_SIZE => Mode::File,
        _ => {
            sink.report(
                &rules::PERF_HEADER_SIZE,
                8..16,
                format!("the header size field is {size}, neither 104 (file) nor 16 (pipe); perf 6.1 refuses the file (\"incompatible file format\")"),
            );
            return None;
        }
    };
    let mut h = Header {
        endian,
        mode,
        size,
        attr_size: 0,
        attrs: Section::default(),
        data: Section::default(),
        event_types: Section::default(),
        features: [0; 4],
    };
    if mode == Mode::Pipe {
        return Some(h);
    }
    if len < size {
        sink.report(
            &rules::PERF_TRUNCATED_HEADER,
            0..len,
            format!("the file is {len} bytes, shorter than its {size}-byte perf.data header; perf 6.1 refuses it"),
        );
        return None;
    }
    let fields = (|| {
        let attr_size = r.u64("attr_size").ok()?;
        let attrs = read_section(&mut r, "attrs section")?;
        let data = read_section(&mut r, "data section")?;
        let event_types = read_section(&mut r, "event_types section")?;
        Some((attr_size, attrs, data, event_types))
    })();
    let (attr_size, attrs, data_sec, event_types) = fields?;
    h.attr_size = attr_size;
    h.attrs = attrs;
    h.data = data_sec;
    h.event_types = event_types;
    if size == FILE_HEADER_SIZE {
        for w in &mut h.features {
            *w = r.u64("adds_features").unwrap_or(0);
        }
    } else {
        sink.push(
            sink.make(
                &rules::PERF_HEADER_SIZE,
                8..16,
                "the header size field is 72, the header of perf before the feature bitmap (2.6.37): perf 6.1 reads it as a file without features",
            )
            .level(crate::finding::Severity::Info),
        );
    }
    Some(h)
}

/// Checks the header's sections against the file and each other; returns the data range to
/// walk (to the end of the file for an unfinished recording) and whether it is unfinished.
pub fn check_sections(data: &[u8], h: &Header, sink: &mut Sink) -> Option<(Range<u64>, bool)> {
    let len = data.len() as u64;
    let hsize = h.size;
    let mut ok = true;
    // perf reads attrs.size / attr_size attrs: bytes after the last whole one are not read.
    let whole = h
        .attrs
        .size
        .checked_rem(h.attr_size)
        .map_or(h.attrs.size, |r| h.attrs.size.saturating_sub(r));
    let attrs = Section {
        offset: h.attrs.offset,
        size: whole,
    };
    for (name, s, at) in [("attrs", attrs, 24u64), ("data", h.data, 40u64)] {
        let Some(r) = s.range() else {
            sink.report(
                &rules::SECTION_BOUNDS,
                at..at.saturating_add(16),
                format!(
                    "the {name} section's offset 0x{:x} + size {} overflows",
                    s.offset, s.size
                ),
            );
            ok = false;
            continue;
        };
        if r.start < hsize || r.end > len {
            let msg = format!(
                "the {name} section [0x{:x}, 0x{:x}) lies outside the file's [0x{hsize:x}, 0x{len:x})",
                r.start, r.end
            );
            if name == "data" && r.end > len && r.start >= hsize && r.start <= len {
                // Reported after the walk, with the samples that are on disk.
                continue;
            }
            sink.report(&rules::SECTION_BOUNDS, at..at.saturating_add(16), msg);
            ok = false;
        } else if s.offset % 8 != 0 {
            sink.push(
                sink.make(
                    &rules::SECTION_BOUNDS,
                    at..at.saturating_add(8),
                    format!("the {name} section starts at 0x{:x}, not 8-aligned (perf writes it aligned; perf 6.1 reads it the same)", s.offset),
                )
                .read_same("perf", "6.1"),
            );
        }
    }
    if let (Some(a), Some(d)) = (attrs.range(), h.data.range()) {
        if a.start < d.end && d.start < a.end && !a.is_empty() && !d.is_empty() {
            sink.report(
                &rules::SECTION_BOUNDS,
                24..56,
                format!(
                    "the attrs section [0x{:x}, 0x{:x}) and the data section [0x{:x}, 0x{:x}) overlap",
                    a.start, a.end, d.start, d.end
                ),
            );
        }
    }
    if h.event_types != Section::default() {
        sink.push(
            sink.make(
                &rules::SECTION_BOUNDS,
                56..72,
                format!("the deprecated event_types section is {{0x{:x}, {}}}, not empty as perf writes it; perf 6.1 ignores it", h.event_types.offset, h.event_types.size),
            )
            .read_same("perf", "6.1"),
        );
    }
    if !ok && h.data.range().is_none_or(|r| r.start > len) {
        return None;
    }
    let start = h.data.offset.min(len);
    if h.data.size == 0 {
        if start < len {
            return Some((start..len, true));
        }
        return Some((start..start, false));
    }
    let end = h.data.offset.saturating_add(h.data.size).min(len);
    Some((start..end, false))
}

/// Reports a data section that runs past the end of the file, once the walk has counted the
/// whole samples that are there.
pub fn report_data_past_end(h: &Header, len: u64, walk: &Walk, sink: &mut Sink) {
    let Some(end) = h.data.range().map(|r| r.end) else {
        return;
    };
    if end <= len || h.data.offset > len || h.data.size == 0 {
        return;
    }
    let missing = end.saturating_sub(len);
    let n = walk.samples;
    let (effect, what) = if len % 4096 == 0 {
        (
            format!("the file ends on a page boundary: perf 6.1 maps the claimed range and is killed by SIGBUS when it reads past the end (`perf report` and `perf script` exit 135, verified), showing none of the {n} whole samples on disk"),
            "crash",
        )
    } else {
        (
            format!("perf 6.1 maps the claimed range, reads zeros after the end of the file (\"failed to process type: 0\") and shows 0 of the {n} whole samples on disk, exit 0 (verified)"),
            "loss",
        )
    };
    sink.push(
        sink.make(
            &rules::SECTION_BOUNDS,
            40..56,
            format!(
                "the data section [0x{:x}, 0x{end:x}) runs {missing} bytes past the end of the file (0x{len:x}): the file was cut; {effect}",
                h.data.offset
            ),
        )
        .fails("perf", "6.1", what)
        .help(format!("the whole records can be kept: `tracelint fix` cuts the file after them, sets data.size to {} and drops the feature bits (verified: perf 6.1 then shows all {n})", walk.end.saturating_sub(h.data.offset))),
    );
}

/// Reports an unfinished recording once the walk has counted its samples.
pub fn report_unfinished(h: &Header, walk: &Walk, data: &Range<u64>, sink: &mut Sink) {
    let whole = walk.end.saturating_sub(data.start);
    let mut f = sink
        .make(
            &rules::UNFINISHED_RECORDING,
            40..56,
            format!(
                "data.size is 0 but {} bytes of whole records follow the data offset 0x{:x}: an unfinished recording (a `perf record` that was killed or crashed); {} whole samples are on disk and perf 6.1 shows 0 of {} (\"data size field is 0 ... Was the 'perf record' command properly terminated?\", exit 0)",
                whole,
                h.data.offset,
                walk.samples,
                walk.samples
            ),
        )
        .fails("perf", "6.1", "loss")
        .help(format!(
            "the samples can be recovered: `tracelint fix` writes the data size {whole} (0x{whole:x}, the whole records) into the header's data.size at offset 48 (and the COMPRESSED feature of a `-z` recording); perf 6.1 then shows every one of them (verified on SIGKILLed recordings)"
        ));
    if walk.end < data.end {
        f = f.note(format!(
            "the {} bytes after the last whole record are no records (a record cut when the writer was stopped, or the feature sections of a finished file)",
            data.end.saturating_sub(walk.end)
        ));
    }
    sink.push(f);
}

/// Reads the feature table and checks where each section lies. Returns the features.
pub fn decode_feature_table(
    data: &[u8],
    h: &Header,
    sink: &mut Sink,
) -> (Option<Range<u64>>, Vec<Feature>) {
    let len = data.len() as u64;
    let bits = h.feature_bits();
    if h.has_feature(0) {
        sink.push(
            sink.make(
                &rules::FEATURE_TABLE,
                72..80,
                "feature bit 0 (reserved) is set; perf never sets it and perf 6.1 skips it",
            )
            .read_same("perf", "6.1"),
        );
    }
    if bits.is_empty() {
        return (None, Vec::new());
    }
    let Some(start) = h.data.offset.checked_add(h.data.size) else {
        return (None, Vec::new());
    };
    let n = bits.len() as u64;
    let end = start.saturating_add(n.saturating_mul(16));
    if end > len {
        let whole = len.saturating_sub(start) / 16;
        sink.push(
            sink.make(
                &rules::FEATURE_TABLE,
                start.min(len)..len,
                format!(
                    "the feature table at 0x{start:x} needs {} bytes for the {n} features the header announces, the file ends at 0x{len:x}: {whole} of {n} entries are there; perf 6.1 silently stops reading features at the first missing one",
                    n.saturating_mul(16)
                ),
            )
            .fails("perf", "6.1", "loss"),
        );
    }
    let mut r = Reader::new(data, h.endian);
    let mut out: Vec<Feature> = Vec::new();
    let mut prev_end = end;
    for (i, bit) in bits.iter().enumerate() {
        let at = start.saturating_add((i as u64).saturating_mul(16));
        if r.seek(at, "feature table").is_err() {
            break;
        }
        let Some(s) = read_section(&mut r, "feature table entry") else {
            break;
        };
        let name = feature_name(*bit);
        let Some(range) = s.range() else {
            sink.report(
                &rules::FEATURE_SECTION,
                at..at.saturating_add(16),
                format!("feature {bit} ({name}): offset 0x{:x} + size {} overflows; perf 6.1 loses it and every later feature", s.offset, s.size),
            );
            continue;
        };
        if range.end <= len && range.start < end {
            // Inside the file but not among the feature sections (over the header, the attrs,
            // the data or the table): perf 6.1 and linux-perf-data 0.13.0 read the feature from
            // there, so it is checked as that feature; what they then read wrong is the
            // feature's own finding (an EVENT_DESC, TRACING_DATA or COMPRESSED that does not
            // parse, a feature before COMPRESSED perf cannot read). Verified: HOSTNAME,
            // TOTAL_MEM, NRCPUS, CPUID, NUMA_TOPOLOGY, BUILD_ID and SAMPLE_TIME moved to offset
            // 0, 1 or half theirs, every sample read the same by both (BUILD_ID at offset 0
            // of a file above 8,236 bytes is the feature's crash: `build_id_name_overrun`).
            sink.push(
                sink.make(
                    &rules::FEATURE_SECTION,
                    at..at.saturating_add(16),
                    format!(
                        "feature {bit} ({name}) lies at [0x{:x}, 0x{:x}), outside the feature sections [0x{end:x}, 0x{len:x}); perf 6.1 and linux-perf-data 0.13.0 read it from there",
                        range.start, range.end
                    ),
                )
                .read_same("perf", "6.1"),
            );
            prev_end = prev_end.max(range.end);
            out.push(Feature {
                bit: *bit,
                span: range,
            });
            continue;
        }
        if range.end > len {
            let lost: Vec<&str> = bits.iter().skip(i).map(|b| feature_name(*b)).collect();
            let mut f = sink
                .make(
                    &rules::FEATURE_SECTION,
                    at..at.saturating_add(16),
                    format!(
                        "feature {bit} ({name}) lies at [0x{:x}, 0x{:x}), past the end of the file (0x{len:x}); linux-perf-data 0.13.0 reads every feature section whole and refuses the file, perf 6.1 does not read it{}",
                        range.start,
                        range.end,
                        if *bit == 27 {
                            ": without COMPRESSED it cannot decompress any record (\"Couldn't decompress data\", 0 samples)"
                        } else if *bit == 2 {
                            " (no build ids: symbols cannot be matched to the binaries)"
                        } else {
                            ""
                        }
                    ),
                )
                .fails("perf", "6.1", "loss");
            if lost.len() > 1 {
                f = f.note(format!("features from here on: {}", lost.join(", ")));
            }
            sink.push(f);
            continue;
        }
        if range.start < prev_end {
            // Verified: VERSION, OSRELEASE, HOSTNAME, CACHE, PMU_MAPPINGS, BPF_BTF sections one
            // byte early or 8 bytes long, every sample read the same by perf 6.1 and
            // linux-perf-data 0.13.0; what the overlap makes them misread is the feature's own
            // finding.
            sink.push(
                sink.make(
                    &rules::FEATURE_SECTION,
                    at..at.saturating_add(16),
                    format!(
                        "feature {bit} ({name}) at [0x{:x}, 0x{:x}) overlaps the previous feature section (ending at 0x{prev_end:x}); perf 6.1 and linux-perf-data 0.13.0 read each section from its own offset",
                        range.start, range.end
                    ),
                )
                .read_same("perf", "6.1"),
            );
        }
        prev_end = prev_end.max(range.end);
        out.push(Feature {
            bit: *bit,
            span: range,
        });
    }
    (Some(start..end.min(len)), out)
}

/// Decodes a whole file: header, sections, attrs, features and the record walk.
pub fn decode(data: &[u8], limits: &Limits, sink: &mut Sink) -> Option<PerfData> {
    let mut src = data;
    decode_from(Image::Whole(data), &mut src, limits, sink)
        .ok()
        .map(|(p, _)| p)
}

/// Why [`decode_from`] read no further.
#[derive(Debug)]
pub enum Stop {
    /// The file cannot be read on (a finding says why).
    Finding,
    /// Its header, attrs, ids and feature sections together are over `max_read_bytes` (a
    /// finding says so).
    Limit,
}

/// How far past a feature section its bytes are read into a sparse image: perf 6.1 reads a
/// file-mode feature bounded by the end of the file, not by its section, and the checks
/// follow it there (a payload whose section size alone is wrong).
const PAST_SECTION: u64 = 64 << 10;

/// Reads up to [`PAST_SECTION`] bytes after a feature section into the image, as far as its
/// budget allows (what is not read stays a hole: the checks then see less, never more).
fn read_past<S: Source + ?Sized>(image: &mut Image<'_>, src: &mut S, span: &Range<u64>) {
    let end = span.start.saturating_add(PAST_SECTION);
    if end > span.end {
        let _ = image.fill(src, span.end..end);
    }
}

/// Decodes an input: the header, attrs, ids, feature table and feature sections read into
/// `image` (nothing to read for a whole input) from `src`, and the records walked from `src`
/// in file order. `src.len()` is the input's length (a stream's: not known before its end).
///
/// # Errors
///
/// [`Stop`]: why nothing more was decoded.
pub fn decode_from<'a, S: Source + ?Sized>(
    mut image: Image<'a>,
    src: &mut S,
    limits: &'a Limits,
    sink: &mut Sink,
) -> Result<(PerfData, Image<'a>), Stop> {
    let fill = |image: &mut Image<'_>, src: &mut S, r: Range<u64>, sink: &mut Sink| {
        if image.fill(src, r.clone()) {
            return Ok(());
        }
        sink.limit(
            r.clone(),
            "header, attrs, ids and feature sections",
            r.end.saturating_sub(r.start),
            "max_read_bytes",
            limits.max_read_bytes,
        );
        Err(Stop::Limit)
    };
    fill(&mut image, src, 0..FILE_HEADER_SIZE, sink)?;
    let header = decode_header(image.bytes(), sink).ok_or(Stop::Finding)?;
    if header.mode == Mode::Pipe {
        let mut walker = records::Walker::new(
            image,
            header.endian,
            Vec::new(),
            FeatureInfo::default(),
            limits,
        );
        let end = walker.walk_pipe(src, PIPE_HEADER_SIZE..src.len(), sink);
        let (walk, attrs, info, features, image) = walker.finish_pipe();
        return Ok((
            PerfData {
                size: end,
                header,
                attrs,
                feature_table: None,
                features,
                info,
                walk,
                data: PIPE_HEADER_SIZE..end,
                unfinished: false,
            },
            image,
        ));
    }
    let len = src.len();
    let (range, unfinished) = check_sections(image.bytes(), &header, sink).ok_or(Stop::Finding)?;
    if let Image::Holed { .. } = image {
        // What `decode_attrs` and the lints read: each attr (at most [`ATTR_READ`] bytes), the
        // ids section header after it, and the ids.
        let claimed = header.attrs.size.checked_div(header.attr_size).unwrap_or(0);
        let mut at = header.attrs.offset;
        for _ in 0..claimed.min(limits.max_entries) {
            if at >= len {
                break;
            }
            fill(&mut image, src, at..at.saturating_add(8), sink)?;
            let size = crate::reader::u32_at(
                image.bytes(),
                usize::try_from(at.saturating_add(4)).unwrap_or(usize::MAX),
                header.endian,
            )
            .unwrap_or(0);
            let ids_at = at.saturating_add(u64::from(size.max(64)));
            fill(
                &mut image,
                src,
                at..ids_at.min(at.saturating_add(ATTR_READ)),
                sink,
            )?;
            fill(&mut image, src, ids_at..ids_at.saturating_add(16), sink)?;
            let mut r = Reader::new(image.bytes(), header.endian);
            let ids = r.seek(ids_at, "attr ids").ok().and_then(|_| {
                Some(Section {
                    offset: r.u64("ids offset").ok()?,
                    size: r.u64("ids size").ok()?,
                })
            });
            if let Some(ir) = ids.and_then(|s| s.range()) {
                let most = limits.max_entries.saturating_mul(8);
                let end = ir.end.min(len).min(ir.start.saturating_add(most));
                if ir.start < end {
                    fill(&mut image, src, ir.start..end, sink)?;
                }
            }
            at = ids_at.saturating_add(16);
        }
    }
    let attrs = attrs::decode_attrs(image.bytes(), &header, limits, sink);
    attrs::check_set(&attrs, sink);
    let (feature_table, features) = if unfinished {
        (None, Vec::new())
    } else {
        if let Some(start) = header.data.offset.checked_add(header.data.size) {
            let n = header.feature_bits().len() as u64;
            fill(
                &mut image,
                src,
                start..start.saturating_add(n.saturating_mul(16)),
                sink,
            )?;
        }
        decode_feature_table(image.bytes(), &header, sink)
    };
    for f in &features {
        fill(&mut image, src, f.span.clone(), sink)?;
        read_past(&mut image, src, &f.span);
    }
    let mut info = FeatureInfo::default();
    for f in &features {
        features::check_feature(
            image.bytes(),
            header.endian,
            f.bit,
            f.span.clone(),
            attrs.len(),
            false,
            &mut info,
            limits,
            sink,
        );
    }
    let mut walker = records::Walker::new(image, header.endian, attrs, info, limits);
    walker.walk_file(src, range.clone(), unfinished, sink);
    let (walk, attrs, mut info, mut image) = walker.finish_with_image();
    let (mut unfinished, mut range, mut feature_table, mut features) =
        (unfinished, range, feature_table, features);
    if unfinished && walk.end <= range.start {
        // No whole record follows the data offset: a recording with no records (what
        // follows is its feature table), or one killed before its first record was whole.
        // Nothing is lost either way; the features, if any, are read as in a finished file.
        unfinished = false;
        range = range.start..range.start;
        if let Some(start) = header.data.offset.checked_add(header.data.size) {
            let n = header.feature_bits().len() as u64;
            fill(
                &mut image,
                src,
                start..start.saturating_add(n.saturating_mul(16)),
                sink,
            )?;
        }
        (feature_table, features) = decode_feature_table(image.bytes(), &header, sink);
        for f in &features {
            fill(&mut image, src, f.span.clone(), sink)?;
            read_past(&mut image, src, &f.span);
        }
        for f in &features {
            features::check_feature(
                image.bytes(),
                header.endian,
                f.bit,
                f.span.clone(),
                attrs.len(),
                false,
                &mut info,
                limits,
                sink,
            );
        }
    }
    if unfinished {
        report_unfinished(&header, &walk, &range, sink);
    }
    report_data_past_end(&header, len, &walk, sink);
    Ok((
        PerfData {
            size: len,
            header,
            attrs,
            feature_table,
            features,
            info,
            walk,
            data: range,
            unfinished,
        },
        image,
    ))
}

/// The bytes of an attr read into the image at most: `attrs::parse_attr` reads its first 104
/// (`perf_event_attr` up to `sample_regs_intr`), `lint::check_event_desc` compares it whole
/// with EVENT_DESC's copy (136 bytes since perf 6.3).
const ATTR_READ: u64 = 4096;

/// Walks a `data.<n>` stream of a `perf record --threads` directory (bare records, no header)
/// with the attrs and features of its `data` file `p`.
pub fn walk_thread_stream(bytes: &[u8], p: &PerfData, limits: &Limits, sink: &mut Sink) -> Walk {
    let len = bytes.len() as u64;
    let mut w = records::Walker::new(
        source::Image::Whole(bytes),
        p.header.endian,
        p.attrs.clone(),
        p.info.clone(),
        limits,
    );
    w.walk_file(&mut &bytes[..], 0..len, false, sink);
    w.finish().0
}
