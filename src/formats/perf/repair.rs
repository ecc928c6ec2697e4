//! Repair of an unfinished or cut perf.data (`tracelint fix`).
//!
//! `perf record` writes `data.size` and the feature sections only when it exits
//! (`builtin-record.c` `record__finish_output`): a recorder killed before then leaves
//! `data.size` 0 and no feature table, and perf 6.1 shows none of the whole samples on disk. A
//! copy cut inside the data section leaves a `data.size` that runs past the end, and perf
//! shows none of them or dies with SIGBUS. Both have the same repair, from the file alone:
//! keep the whole records (the walk's end), write their size into `data.size` and keep the
//! feature sections only if they follow the records whole, as the header announces them.
//! Otherwise the feature bits are cleared, and a file with COMPRESSED records gets the one
//! feature perf needs to decompress them: COMPRESSED, with the `mmap_len` its records need.
//!
//! A recording of tracepoints is refused: perf rejects tracepoint attrs without the
//! TRACING_DATA feature, which only the writer's exit writes.

use super::decode;
use super::model::{feature_name, Mode, PerfData, Section};
use super::rules;
use crate::finding::{Severity, Sink};
use crate::input::DirSource;
use crate::ledger::{Cut, Edit, FilePlan, Invented, Loss, Plan, Refusal, Unit, Verdict};
use crate::reader::{Endian, Reader};

/// `PERF_TYPE_TRACEPOINT`.
const TYPE_TRACEPOINT: u32 = 2;
/// `HEADER_TRACING_DATA`.
const FEAT_TRACING_DATA: u64 = 1;
/// `HEADER_STAT`.
const FEAT_STAT: u64 = 19;
/// `HEADER_DIR_FORMAT`.
const FEAT_DIR_FORMAT: u64 = 24;
/// `HEADER_COMPRESSED`.
const FEAT_COMPRESSED: u64 = 27;
/// Offset of `data.size` in the file header.
const DATA_SIZE_AT: u64 = 48;
/// Offset of `adds_features` in the file header.
const FEATURES_AT: u64 = 72;
/// The COMPRESSED feature's `mmap_len` of a default `perf record -z` (128 data pages and
/// the header page of 4 KiB each).
const DEFAULT_MMAP_LEN: u64 = 129 * 4096;

fn u64_bytes(v: u64, e: Endian) -> [u8; 8] {
    match e {
        Endian::Little => v.to_le_bytes(),
        Endian::Big => v.to_be_bytes(),
    }
}

fn u32_bytes(v: u32, e: Endian) -> [u8; 4] {
    match e {
        Endian::Little => v.to_le_bytes(),
        Endian::Big => v.to_be_bytes(),
    }
}

fn bytes_at(data: &[u8], at: u64, n: u64) -> Vec<u8> {
    let s = usize::try_from(at).unwrap_or(usize::MAX);
    let e = usize::try_from(at.saturating_add(n)).unwrap_or(usize::MAX);
    data.get(s..e).unwrap_or_default().to_vec()
}

/// Whether the feature table and sections at `start` are all on disk and read without an
/// error, for the header's bits.
fn features_whole(data: &[u8], p: &PerfData, start: u64, limits: &crate::limits::Limits) -> bool {
    let mut h = p.header.clone();
    h.data = Section {
        offset: p.data.start,
        size: start.saturating_sub(p.data.start),
    };
    let mut sink = Sink::new(64);
    let (_, feats) = decode::decode_feature_table(data, &h, &mut sink);
    if feats.len() != h.feature_bits().len() {
        return false;
    }
    let mut info = super::model::FeatureInfo::default();
    for f in &feats {
        decode::features::check_feature(
            data,
            h.endian,
            f.bit,
            f.span.clone(),
            p.attrs.len(),
            // bounded by each section, as a stream's features are: the repair wants every
            // section whole, not merely what perf reads past its end
            true,
            &mut info,
            limits,
            &mut sink,
        );
    }
    info.unreadable.is_empty()
        && !sink
            .findings()
            .iter()
            .any(|f| f.severity == Severity::Error || f.rule.code == rules::FEATURE_SECTION.code)
}

/// The TRACING_DATA section of the donor `path` when it describes every tracepoint event id
/// of `p`; why not, otherwise.
fn donor_tracing_data(
    path: &std::path::Path,
    p: &PerfData,
    limits: &crate::limits::Limits,
) -> Result<Vec<u8>, String> {
    let shown = path.display();
    let data = crate::input::load(path, crate::input::LoadMode::Read, limits.max_file_bytes)
        .map_err(|e| format!("the donor {shown} cannot be read: {e}"))?;
    let mut sink = Sink::new(64);
    let d = decode::decode(&data, limits, &mut sink)
        .ok_or_else(|| format!("the donor {shown} is no perf.data"))?;
    if d.header.endian != p.header.endian {
        return Err(format!("the donor {shown} has the other byte order"));
    }
    let f = d
        .features
        .iter()
        .find(|f| f.bit == FEAT_TRACING_DATA)
        .ok_or_else(|| format!("the donor {shown} has no TRACING_DATA feature"))?;
    let ids = d
        .info
        .tracepoint_ids
        .as_ref()
        .ok_or_else(|| format!("the donor {shown}'s TRACING_DATA does not read to its end"))?;
    let missing: Vec<String> = p
        .attrs
        .iter()
        .filter(|a| a.kind == TYPE_TRACEPOINT)
        .filter(|a| u32::try_from(a.config).map_or(true, |c| !ids.contains(&c)))
        .map(|a| a.config.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "the donor {shown}'s TRACING_DATA does not describe the tracepoint id(s) {} of the input: it was recorded with other events or on another kernel",
            missing.join(", ")
        ));
    }
    Ok(bytes_at(
        &data,
        f.span.start,
        f.span.end.saturating_sub(f.span.start),
    ))
}

/// The repair of a file-mode perf.data.
pub fn repair(
    data: &[u8],
    limits: &crate::limits::Limits,
    max_findings: usize,
    ropts: &crate::ledger::RepairOptions,
) -> Verdict {
    repair_file(data, limits, max_findings, ropts, false)
}

/// The repair of a file-mode perf.data; `dir`: the `data` of a `--threads` directory, which
/// keeps the DIR_FORMAT feature (without it perf reads `data` alone, without its streams).
fn repair_file(
    data: &[u8],
    limits: &crate::limits::Limits,
    max_findings: usize,
    ropts: &crate::ledger::RepairOptions,
    dir: bool,
) -> Verdict {
    let mut sink = Sink::new(max_findings);
    let Some(p) = decode::decode(data, limits, &mut sink) else {
        return Verdict::Healthy;
    };
    if p.header.mode != Mode::File {
        return Verdict::Healthy;
    }
    let len = p.size;
    let h = &p.header;
    let past_end =
        h.data.size > 0 && h.data.offset <= len && h.data.range().is_some_and(|r| r.end > len);
    if !p.unfinished && !past_end {
        return repair_features(data, &p, limits, dir);
    }
    let damage = if p.unfinished {
        "unfinished recording: data.size is 0 (a `perf record` killed before it wrote its header)"
            .to_string()
    } else {
        format!(
            "perf.data cut inside its data section: the file ends at 0x{len:x}, the data section at 0x{:x}",
            h.data.offset.saturating_add(h.data.size)
        )
    };
    let tracing = if p.attrs.iter().any(|a| a.kind == TYPE_TRACEPOINT) {
        let Some(donor) = &ropts.metadata_from else {
            return Verdict::Refuse(Refusal {
                damage,
                reason: "the recording has tracepoint events, and perf 6.1 rejects tracepoint attrs without the TRACING_DATA feature (the event formats), which only a finished `perf record` writes; the samples on disk cannot be made readable from this file alone".into(),
                option: Some("--metadata-from"),
            });
        };
        match donor_tracing_data(donor, &p, limits) {
            Ok(t) => Some((t, donor.display().to_string())),
            Err(reason) => {
                return Verdict::Refuse(Refusal {
                    damage,
                    reason,
                    option: Some("--metadata-from"),
                })
            }
        }
    } else {
        None
    };
    let end = p.walk.end.max(p.data.start).min(len);
    if let Some(stop) = p.walk.stopped_at.filter(|s| *s >= end) {
        // The walk stopped where the records end: at a record cut by the end of the file
        // (this repair's), or at damage with whole records after it, which it does not drop.
        let mut r = Reader::new(data, h.endian);
        let size = r
            .seek(stop.saturating_add(6), "record size")
            .ok()
            .and_then(|_| r.u16("record size").ok());
        let cut = size.is_none_or(|s| s >= 8 && stop.saturating_add(u64::from(s)) > len);
        if !cut {
            return Verdict::Refuse(Refusal {
                damage,
                reason: format!("the records stop at 0x{stop:x} at damage that is not the end of the file; this version repairs only an unfinished or cut recording"),
                option: None,
            });
        }
    }
    let samples = p.walk.samples;
    let data_size = end.saturating_sub(p.data.start);
    if data_size == 0 {
        return Verdict::Refuse(Refusal {
            damage,
            reason: "no whole record is on disk: there is nothing to recover".into(),
            option: None,
        });
    }
    let keep_features =
        p.unfinished && !h.feature_bits().is_empty() && features_whole(data, &p, end, limits);
    let tracing = tracing.filter(|_| !keep_features);
    let mut plan = Plan::new(damage);
    for r in [
        &rules::UNFINISHED_RECORDING,
        &rules::SECTION_BOUNDS,
        &rules::RECORD_SIZE,
        &rules::FEATURE_TABLE,
    ] {
        plan.mend(r.code);
    }
    let e = h.endian;
    let keep = if keep_features { len } else { end };
    let mut file = FilePlan::new(None, keep);
    file.edits.push(Edit {
        rule: if p.unfinished {
            rules::UNFINISHED_RECORDING.code
        } else {
            rules::SECTION_BOUNDS.code
        },
        offset: DATA_SIZE_AT,
        old: bytes_at(data, DATA_SIZE_AT, 8),
        new: u64_bytes(data_size, e).to_vec(),
        what: format!("data.size: the {data_size} bytes of whole records ({samples} samples)"),
    });
    if keep_features {
        plan.damage
            .push_str("; the feature sections follow the records whole and are kept");
        plan.files.push(file);
        return Verdict::Repair(plan);
    }
    let rest = len.saturating_sub(end);
    if rest > 0 {
        let mut r = Reader::new(data, e);
        let head = r.seek(end, "record").ok().and_then(|_| {
            let kind = r.u32("record type").ok()?;
            let _ = r.u16("record misc").ok()?;
            let size = r.u16("record size").ok()?;
            Some((kind, size))
        });
        file.cut = Some(Cut {
            rule: rules::RECORD_SIZE.code,
            at: end,
            bytes: rest,
            what: "bytes after the last whole record".into(),
        });
        let what = match head {
            Some((kind, size)) if size >= 8 && u64::from(size) > rest => format!(
                "a {} record cut short at 0x{end:x}: {rest} of its {size} bytes on disk",
                super::model::record_name(kind)
            ),
            _ => format!(
                "{rest} bytes after the last whole record at 0x{end:x}, which are no whole record"
            ),
        };
        plan.losses.push(Loss {
            file: None,
            buffer: None,
            cpu: None,
            task: None,
            count: u64::from(matches!(head, Some((_, s)) if s >= 8)),
            unit: Unit::Records,
            bytes: rest,
            time: None,
            what,
        });
    }
    let bits = h.feature_bits();
    if !p.unfinished && !bits.is_empty() {
        plan.losses.push(features_lost(
            &bits,
            0,
            "the feature sections the header announces, cut away with the end of the file",
        ));
    }
    let wanted = Wanted {
        tracing,
        stat: h.has_feature(FEAT_STAT),
        dir,
    };
    appended_features(&mut plan, &mut file, data, &p, end, wanted);
    plan.files.push(file);
    Verdict::Repair(plan)
}

/// The bits of `bits` as the 32 bytes of `adds_features`.
fn feature_words(bits: &[u64], e: Endian) -> Vec<u8> {
    let mut words = [0u64; 4];
    for b in bits {
        let w = usize::try_from(b / 64).unwrap_or(usize::MAX);
        if let Some(word) = words.get_mut(w) {
            *word |= 1u64 << (b % 64);
        }
    }
    words.iter().flat_map(|w| u64_bytes(*w, e)).collect()
}

/// Whether the feature section of `bit` at `span` reads without an error on its own.
fn feature_reads(
    data: &[u8],
    p: &PerfData,
    bit: u64,
    span: std::ops::Range<u64>,
    limits: &crate::limits::Limits,
) -> bool {
    let mut sink = Sink::new(16);
    let mut info = super::model::FeatureInfo::default();
    decode::features::check_feature(
        data,
        p.header.endian,
        bit,
        span,
        p.attrs.len(),
        false,
        &mut info,
        limits,
        &mut sink,
    );
    info.unreadable.is_empty()
        && !sink
            .findings()
            .iter()
            .any(|f| f.severity == Severity::Error)
}

/// A file whose records are whole and whose feature table or sections the end of the file
/// cuts: the table is rewritten in place with the features whose entry and section are on
/// disk whole and read (perf 6.1 stops reading features at the first one past the end, and
/// without COMPRESSED decompresses nothing), the bytes after the last kept section are cut.
fn repair_features(
    data: &[u8],
    p: &PerfData,
    limits: &crate::limits::Limits,
    dir: bool,
) -> Verdict {
    let h = &p.header;
    let len = p.size;
    let bits = h.feature_bits();
    let Some(start) = h.data.offset.checked_add(h.data.size) else {
        return Verdict::Healthy;
    };
    if bits.is_empty() || start > len {
        return Verdict::Healthy;
    }
    let n = bits.len() as u64;
    let table_end = start.saturating_add(n.saturating_mul(16));
    let mut r = Reader::new(data, h.endian);
    // (bit, entry): the entries on disk, in bit order.
    let mut entries = Vec::new();
    for (i, bit) in bits.iter().enumerate() {
        let at = start.saturating_add((i as u64).saturating_mul(16));
        let Some((off, size)) = r
            .seek(at, "feature table")
            .ok()
            .and_then(|_| Some((r.u64("offset").ok()?, r.u64("size").ok()?)))
        else {
            break;
        };
        entries.push((*bit, off, size));
    }
    let cut_by_end = table_end > len
        || entries.len() < bits.len()
        || entries
            .iter()
            .any(|(_, o, s)| o.checked_add(*s).is_none_or(|e| e > len));
    if !cut_by_end {
        return Verdict::Healthy;
    }
    let damage = format!(
        "perf.data cut inside its features: the file ends at 0x{len:x}, before the end of the feature table or of a feature section"
    );
    // A section that does not run past the end but overlaps the table or another section
    // is other damage: not this repair's.
    let mut kept: Vec<(u64, u64, u64)> = Vec::new();
    let mut dropped: Vec<u64> = Vec::new();
    let mut prev_end = table_end;
    for (bit, off, size) in &entries {
        let end = off.saturating_add(*size);
        if *size == 0 && table_end <= len {
            // A flag feature (STAT): its bit is what perf reads; its empty section is kept
            // and placed at the end of the kept bytes below if it lay past the end.
            kept.push((*bit, *off, 0));
            continue;
        }
        if end > len || table_end > len {
            dropped.push(*bit);
            continue;
        }
        if *off < prev_end {
            return Verdict::Healthy;
        }
        if feature_reads(data, p, *bit, *off..end, limits) {
            kept.push((*bit, *off, *size));
            prev_end = end;
        } else {
            dropped.push(*bit);
        }
    }
    dropped.extend(bits.iter().skip(entries.len()));
    let compressed = p.walk.compressed > 0;
    let need_compressed = compressed && !kept.iter().any(|(b, _, _)| *b == FEAT_COMPRESSED);
    let drop_all = table_end > len
        || need_compressed
        || dir && !kept.iter().any(|(b, _, _)| *b == FEAT_DIR_FORMAT);
    if p.attrs.iter().any(|a| a.kind == TYPE_TRACEPOINT)
        && (drop_all || !kept.iter().any(|(b, _, _)| *b == FEAT_TRACING_DATA))
    {
        return Verdict::Refuse(Refusal {
            damage,
            reason: "the recording has tracepoint events and its TRACING_DATA feature (the event formats) is cut away; perf 6.1 rejects tracepoint attrs without it".into(),
            option: None,
        });
    }
    if drop_all {
        // No room for a table in place (or COMPRESSED must be written anew): the repair of a
        // cut data section, which keeps the records and writes COMPRESSED only.
        return repair_cut_features(data, p, start, damage, &bits, dir);
    }
    let e = h.endian;
    let keep = kept
        .iter()
        .filter(|(_, _, s)| *s > 0)
        .map(|(_, o, s)| o.saturating_add(*s))
        .max()
        .unwrap_or(table_end)
        .max(table_end);
    for k in &mut kept {
        if k.2 == 0 {
            k.1 = k.1.min(keep);
        }
    }
    let mut plan = Plan::new(damage);
    for r in [&rules::FEATURE_TABLE, &rules::FEATURE_SECTION] {
        plan.mend(r.code);
    }
    let mut file = FilePlan::new(None, keep);
    let kept_bits: Vec<u64> = kept.iter().map(|(b, _, _)| *b).collect();
    file.edits.push(Edit {
        rule: rules::FEATURE_TABLE.code,
        offset: FEATURES_AT,
        old: bytes_at(data, FEATURES_AT, 32),
        new: feature_words(&kept_bits, e),
        what: format!(
            "adds_features: the {} of {} features whose sections are on disk whole",
            kept.len(),
            bits.len()
        ),
    });
    let mut table = Vec::with_capacity(usize::try_from(n.saturating_mul(16)).unwrap_or(0));
    for (_, off, size) in &kept {
        table.extend_from_slice(&u64_bytes(*off, e));
        table.extend_from_slice(&u64_bytes(*size, e));
    }
    table.resize(usize::try_from(n.saturating_mul(16)).unwrap_or(0), 0);
    file.edits.push(Edit {
        rule: rules::FEATURE_SECTION.code,
        offset: start,
        old: bytes_at(data, start, n.saturating_mul(16)),
        new: table,
        what: "feature table: the kept features' entries in bit order, the rest zero".into(),
    });
    let rest = len.saturating_sub(keep);
    if rest > 0 {
        file.cut = Some(Cut {
            rule: rules::FEATURE_SECTION.code,
            at: keep,
            bytes: rest,
            what: "a feature section cut short".into(),
        });
    }
    plan.losses.push(features_lost(
        &dropped,
        rest,
        "the feature sections cut away with the end of the file (or unreadable)",
    ));
    plan.files.push(file);
    Verdict::Repair(plan)
}

/// The loss of the feature sections `bits` (`bytes` of them dropped), named after `what`.
fn features_lost(bits: &[u64], bytes: u64, what: &str) -> Loss {
    let names: Vec<&str> = bits.iter().map(|b| feature_name(*b)).collect();
    Loss {
        file: None,
        buffer: None,
        cpu: None,
        task: None,
        count: bits.len() as u64,
        unit: Unit::Features,
        bytes,
        time: None,
        what: format!("{what}: {}", names.join(", ")),
    }
}

/// A cut feature table with no room for the kept entries, or a `-z` file whose COMPRESSED
/// section is cut: every feature is dropped (COMPRESSED written anew for compressed records),
/// the records kept whole.
fn repair_cut_features(
    data: &[u8],
    p: &PerfData,
    start: u64,
    damage: String,
    bits: &[u64],
    dir: bool,
) -> Verdict {
    let len = p.size;
    let mut plan = Plan::new(damage);
    for r in [&rules::FEATURE_TABLE, &rules::FEATURE_SECTION] {
        plan.mend(r.code);
    }
    let mut file = FilePlan::new(None, start);
    file.cut = Some(Cut {
        rule: rules::FEATURE_TABLE.code,
        at: start,
        bytes: len.saturating_sub(start),
        what: "the feature table and sections, cut short".into(),
    });
    plan.losses.push(features_lost(
        bits,
        len.saturating_sub(start),
        "the feature sections, cut away with the end of the file",
    ));
    let wanted = Wanted {
        tracing: None,
        stat: bits.contains(&FEAT_STAT),
        dir,
    };
    appended_features(&mut plan, &mut file, data, p, start, wanted);
    plan.files.push(file);
    Verdict::Repair(plan)
}

/// The features a file whose feature sections are gone gets written back.
struct Wanted {
    /// TRACING_DATA from a donor (`--metadata-from`): its bytes and the donor's name.
    tracing: Option<(Vec<u8>, String)>,
    /// STAT, when the header had it: an empty section, the flag of a `perf stat record` file.
    stat: bool,
    /// DIR_FORMAT: the `data` of a `--threads` directory.
    dir: bool,
}

/// Sets `adds_features` to the features the records need that a finished recorder would have
/// written (in bit order: TRACING_DATA from a donor, STAT, DIR_FORMAT, COMPRESSED for
/// compressed records), and appends their table and sections at `end` (the end of the
/// records), with the ledger's invented fields.
fn appended_features(
    plan: &mut Plan,
    file: &mut FilePlan,
    data: &[u8],
    p: &PerfData,
    end: u64,
    wanted: Wanted,
) {
    let e = p.header.endian;
    let mut sections: Vec<(u64, Vec<u8>, &'static str)> = Vec::new();
    if let Some((bytes, donor)) = wanted.tracing {
        plan.invented.push(Invented {
            file: None,
            field: "TRACING_DATA feature".into(),
            value: format!("{} bytes copied from {donor}", bytes.len()),
            why: "given by --metadata-from: the tracepoint formats of a healthy recording of the same events, which describe every tracepoint id of the input".into(),
        });
        sections.push((
            FEAT_TRACING_DATA,
            bytes,
            "TRACING_DATA feature (from the donor)",
        ));
    }
    if wanted.stat {
        sections.push((FEAT_STAT, Vec::new(), "STAT feature: empty, the flag"));
    }
    if wanted.dir {
        sections.push((
            FEAT_DIR_FORMAT,
            u64_bytes(1, e).to_vec(),
            "DIR_FORMAT feature: version 1, the data.N streams",
        ));
    }
    if p.walk.compressed > 0 {
        let known = p
            .info
            .compressed
            .map(|(_, m)| u64::from(m))
            .filter(|m| *m >= p.walk.max_output);
        let mmap_len = known.unwrap_or_else(|| DEFAULT_MMAP_LEN.max(p.walk.max_output));
        let mmap32 = u32::try_from(mmap_len).unwrap_or(u32::MAX);
        let level = 1;
        let mut sec = Vec::with_capacity(20);
        for v in [0, 1, level, 0, mmap32] {
            sec.extend_from_slice(&u32_bytes(v, e));
        }
        sections.push((
            FEAT_COMPRESSED,
            sec,
            "COMPRESSED feature: version 0, type 1 (zstd), level, ratio 0, mmap_len",
        ));
        plan.mend(rules::COMPRESSED_FEATURE.code);
        if known.is_none() {
            plan.invented.push(Invented {
                file: None,
                field: "COMPRESSED mmap_len".into(),
                value: mmap_len.to_string(),
                why: format!(
                    "the size perf 6.1 decompresses each COMPRESSED record into: the default of `perf record -z` (129 pages of 4 KiB), or the most one record needs ({})",
                    p.walk.max_output
                ),
            });
        }
        plan.invented.push(Invented {
            file: None,
            field: "COMPRESSED level and ratio".into(),
            value: format!("{level}, 0"),
            why: "unknown (a zstd frame does not say its level; perf only prints both): level 1, the default of `perf record -z`, ratio 0".into(),
        });
    }
    let bits: Vec<u64> = sections.iter().map(|(b, _, _)| *b).collect();
    let names: Vec<&str> = bits.iter().map(|b| feature_name(*b)).collect();
    file.edits.push(Edit {
        rule: rules::FEATURE_TABLE.code,
        offset: FEATURES_AT,
        old: bytes_at(data, FEATURES_AT, 32),
        new: feature_words(&bits, e),
        what: if names.is_empty() {
            "adds_features: none (no feature section is on disk whole)".into()
        } else {
            format!(
                "adds_features: {} only (no other feature section is on disk whole)",
                names.join(", ")
            )
        },
    });
    if sections.is_empty() {
        return;
    }
    let mut table = Vec::new();
    let mut at = end.saturating_add((sections.len() as u64).saturating_mul(16));
    for (_, bytes, _) in &sections {
        table.extend_from_slice(&u64_bytes(at, e));
        table.extend_from_slice(&u64_bytes(bytes.len() as u64, e));
        at = at.saturating_add(bytes.len() as u64);
    }
    let mut at = end;
    let n = table.len() as u64;
    file.edits.push(Edit {
        rule: rules::FEATURE_TABLE.code,
        offset: at,
        old: Vec::new(),
        new: table,
        what: format!("feature table: {}", names.join(", ")),
    });
    at = at.saturating_add(n);
    for (bit, bytes, what) in sections {
        let n = bytes.len() as u64;
        if n == 0 {
            continue;
        }
        file.edits.push(Edit {
            rule: if bit == FEAT_COMPRESSED {
                rules::COMPRESSED_FEATURE.code
            } else {
                rules::FEATURE_TABLE.code
            },
            offset: at,
            old: Vec::new(),
            new: bytes,
            what: what.into(),
        });
        at = at.saturating_add(n);
    }
}

/// The repair of a `perf record --threads` directory: `data` as a file, and each `data.<n>`
/// stream (bare records, no header) cut at its last whole record when the end of the file
/// cuts one. The other files are copied as they are.
pub fn repair_dir(
    dir: &dyn DirSource,
    limits: &crate::limits::Limits,
    ropts: &crate::ledger::RepairOptions,
) -> Verdict {
    let max = limits.max_file_bytes;
    let (Ok(entries), Ok(main)) = (dir.list(), dir.load("data", max)) else {
        return Verdict::Healthy;
    };
    let mut sink = Sink::new(64);
    let Some(p) = decode::decode(&main, limits, &mut sink) else {
        return Verdict::Healthy;
    };
    let mut plan = match repair_file(&main, limits, 64, ropts, true) {
        Verdict::Refuse(r) => return Verdict::Refuse(r),
        Verdict::Healthy => None,
        Verdict::Repair(mut plan) => {
            for f in &mut plan.files {
                f.name = Some("data".into());
            }
            for l in &mut plan.losses {
                l.file = Some("data".into());
            }
            for i in &mut plan.invented {
                i.file = Some("data".into());
            }
            Some(plan)
        }
    };
    for e in entries
        .iter()
        .filter(|e| e.name != "data" && super::model::is_stream_name(&e.name))
    {
        let Ok(bytes) = dir.load(&e.name, max) else {
            continue;
        };
        let len = bytes.len() as u64;
        let walk = decode::walk_thread_stream(&bytes, &p, limits, &mut Sink::new(64));
        let end = walk.end.min(len);
        if end >= len {
            continue;
        }
        let mut r = Reader::new(&bytes, p.header.endian);
        let size = r
            .seek(end.saturating_add(6), "record size")
            .ok()
            .and_then(|_| r.u16("record size").ok());
        let cut = size.is_none_or(|s| s >= 8 && end.saturating_add(u64::from(s)) > len);
        let damage = format!("`{}` ends inside a record at 0x{end:x}", e.name);
        if !cut {
            return Verdict::Refuse(Refusal {
                damage,
                reason: format!("the records of `{}` stop at 0x{end:x} at damage that is not the end of the file; this version repairs only a cut", e.name),
                option: None,
            });
        }
        let plan = plan.get_or_insert_with(|| Plan::new(damage.clone()));
        if !plan.damage.contains(&damage) && plan.files.iter().any(|f| f.name.is_some()) {
            plan.damage.push_str("; ");
            plan.damage.push_str(&damage);
        }
        plan.mend(rules::RECORD_SIZE.code);
        let rest = len.saturating_sub(end);
        let mut file = FilePlan::new(Some(e.name.clone()), end);
        file.cut = Some(Cut {
            rule: rules::RECORD_SIZE.code,
            at: end,
            bytes: rest,
            what: "a record cut short".into(),
        });
        plan.files.push(file);
        plan.losses.push(Loss {
            file: Some(e.name.clone()),
            buffer: None,
            cpu: None,
            task: None,
            // As in a file: a record is counted when its header is on disk.
            count: u64::from(size.is_some()),
            unit: Unit::Records,
            bytes: rest,
            time: None,
            what: format!(
                "a record cut short at 0x{end:x}: {rest} of its {} bytes on disk ({} whole samples before it kept)",
                size.map_or_else(|| "unknown".to_string(), |s| s.to_string()),
                walk.samples
            ),
        });
    }
    plan.map_or(Verdict::Healthy, Verdict::Repair)
}
