//! Checks over the decoded file: features against the attrs and the samples.

use super::model::*;
use super::rules;
use crate::finding::Sink;

/// EVENT_DESC against the attrs: one entry per attr, with its size, its ids and an attr equal
/// to the attrs section's (perf writes both from the same `perf_event_attr`; every recording of
/// `corpus/perf` and of the campaign's seeds has them byte for byte the same). linux-perf-data
/// 0.13.0 takes the attrs from EVENT_DESC, not from the attrs section, when the feature is
/// there: what it reads the samples with is EVENT_DESC's.
pub fn check_event_desc(p: &PerfData, data: &[u8], sink: &mut Sink) {
    let samples = p.walk.samples;
    if let Some((_, span)) = p.info.short_sections.iter().find(|(bit, _)| *bit == 12) {
        sink.push(
            sink.make(
                &rules::EVENT_DESC,
                span.clone(),
                format!("EVENT_DESC does not parse within its {} bytes: linux-perf-data 0.13.0 reads the attrs from it and refuses the file (0 of {samples} samples; verified on damaged copies of the corpus)", span.end.saturating_sub(span.start)),
            )
            .fails("linux-perf-data", "0.13.0", "reject"),
        );
        return;
    }
    check_event_names(p, sink);
    let Some((span, evs)) = &p.info.event_desc else {
        return;
    };
    if evs.len() != p.attrs.len() {
        sink.push(
            sink.make(
                &rules::EVENT_DESC,
                span.clone(),
                format!("EVENT_DESC describes {} event(s), the file has {} attr(s); linux-perf-data 0.13.0 takes its attrs from EVENT_DESC and reads the samples with the wrong events or none; perf 6.1 names the events from it and leaves the others unnamed", evs.len(), p.attrs.len()),
            )
            .fails("linux-perf-data", "0.13.0", "loss"),
        );
        return;
    }
    check_stream_names(p, span, evs, sink);
    // The event linux-perf-data 0.13.0 places a record of id `id` under.
    let lpd_place = |id: u64| evs.iter().rposition(|e| e.ids.contains(&id)).unwrap_or(0);
    // linux-perf-data 0.13.0 reads a stream's records with the attrs of its HEADER_ATTR
    // records and takes only the names from EVENT_DESC (verified: a `-z` stream's EVENT_DESC
    // sample_type changed, every sample read the same).
    let stream = p.header.mode != Mode::File;
    for (i, (ev, a)) in evs.iter().zip(&p.attrs).enumerate() {
        let name = &ev.name;
        // What changes how linux-perf-data reads records (it reads them with this attr).
        let mut read_bad = Vec::new();
        // What it reads the same.
        let mut bad = Vec::new();
        if let Some(d) = super::decode::attrs::read_attr(data, p.header.endian, ev.attr_at) {
            if d.size < 64 || d.size > ev.attr_size {
                read_bad.push(format!(
                    "its attr says it is {} bytes in entries of {} (linux-perf-data 0.13.0 refuses the file: \"Inconsistent attribute sizes\")",
                    d.size, ev.attr_size
                ));
            } else if let Some(read) = lpd_attr_bytes(d.size).filter(|n| *n != d.size) {
                read_bad.push(format!(
                    "its attr says it is {} bytes, no attr version's size: linux-perf-data 0.13.0 reads the {read} bytes of the versions up to it, then skips {} bytes to what it takes for the entry's end, {} bytes short of it, and misreads the rest of EVENT_DESC (verified with 127 for 128: it refuses the file, \"failed to fill whole buffer\")",
                    d.size,
                    ev.attr_size.saturating_sub(d.size),
                    d.size.saturating_sub(read)
                ));
            } else if !super::decode::attrs::lpd_knows(d.kind, d.config) {
                read_bad.push(format!(
                    "type {} config {:#x} names no event linux-perf-data 0.13.0 knows (it refuses the file: \"Could not read PerfEventAttr\")",
                    d.kind, d.config
                ));
            }
            // The fields linux-perf-data reads samples and trailers with, each only where
            // the sample_type (of either attr) uses it: a register mask without REGS_USER, a
            // read_format without READ, a branch_sample_type without BRANCH_STACK are read the
            // same (verified: such differences in either attr, every sample read the same by
            // both readers).
            let uses = |bit: u64| (d.sample_type | a.sample_type) & bit != 0;
            // linux-perf-data 0.13.0 drops the bits it does not know (`from_bits_truncate`):
            // sample_type bits above WEIGHT_STRUCT, read_format bits above GROUP (verified:
            // sample_types of lock.data and pipe.data whose high bytes were changed read the
            // same); they are compared apart.
            let lpd_read_format = 0xf;
            let pairs: [(&str, bool, u64, u64); 6] = [
                (
                    "sample_type",
                    true,
                    d.sample_type & st::KNOWN,
                    a.sample_type & st::KNOWN,
                ),
                (
                    "read_format",
                    uses(st::READ),
                    d.read_format & lpd_read_format,
                    a.read_format & lpd_read_format,
                ),
                (
                    "sample_id_all",
                    true,
                    d.flags & FLAG_SAMPLE_ID_ALL,
                    a.flags & FLAG_SAMPLE_ID_ALL,
                ),
                (
                    "branch_sample_type",
                    uses(st::BRANCH_STACK),
                    d.branch_sample_type,
                    a.branch_sample_type,
                ),
                (
                    "sample_regs_user",
                    uses(st::REGS_USER),
                    d.sample_regs_user,
                    a.sample_regs_user,
                ),
                (
                    "sample_regs_intr",
                    uses(st::REGS_INTR),
                    d.sample_regs_intr,
                    a.sample_regs_intr,
                ),
            ];
            for (what, used, x, y) in pairs {
                // A stream's samples are read with its HEADER_ATTR records' attrs: EVENT_DESC
                // only names them (matched by first id) there.
                if x != y && used && !stream {
                    read_bad.push(format!("{what} {x:#x} vs {y:#x}"));
                } else if x != y {
                    bad.push(format!(
                        "{what} {x:#x} vs {y:#x} (not used by its sample_type)"
                    ));
                }
            }
            if d.sample_type != a.sample_type
                && d.sample_type & st::KNOWN == a.sample_type & st::KNOWN
            {
                bad.push(format!(
                    "sample_type {:#x} vs {:#x} (in bits linux-perf-data 0.13.0 does not know)",
                    d.sample_type, a.sample_type
                ));
            }
            if d.read_format != a.read_format
                && d.read_format & lpd_read_format == a.read_format & lpd_read_format
            {
                bad.push(format!(
                    "read_format {:#x} vs {:#x} (in bits linux-perf-data 0.13.0 does not know)",
                    d.read_format, a.read_format
                ));
            }
            if d.kind != a.kind && read_bad.is_empty() {
                bad.push(format!("type {} vs {}", d.kind, a.kind));
            }
            let _ = d.sample_stack_user;
            if d.config != a.config && read_bad.is_empty() {
                bad.push(format!("config {:#x} vs {:#x}", d.config, a.config));
            }
            if d.size != a.size && read_bad.is_empty() {
                bad.push(format!("attr size {} vs {}", d.size, a.size));
            }
            if read_bad.is_empty() && d.kind == a.kind && d.config == a.config && d.size == a.size {
                let mine = data.get(
                    usize::try_from(ev.attr_at).unwrap_or(usize::MAX)
                        ..usize::try_from(ev.attr_at.saturating_add(u64::from(d.size.min(a.size))))
                            .unwrap_or(usize::MAX),
                );
                let theirs = data.get(
                    usize::try_from(a.span.start).unwrap_or(usize::MAX)
                        ..usize::try_from(
                            a.span.start.saturating_add(u64::from(d.size.min(a.size))),
                        )
                        .unwrap_or(usize::MAX),
                );
                if mine.is_some() && theirs.is_some() && mine != theirs {
                    bad.push("other attr bytes (period, wakeup, clock) differ".to_string());
                }
            }
        }
        if ev.attr_size != a.size && read_bad.is_empty() {
            bad.push(format!("attr size {} vs {}", ev.attr_size, a.size));
        }
        if ev.ids != a.ids && !a.ids.is_empty() {
            // linux-perf-data finds each record's event by EVENT_DESC's ids: an id of the attr
            // that EVENT_DESC lacks is a record it cannot place (more ids there are harmless).
            // It places a record whose id no entry lists under the first event (`unwrap_or(0)`
            // in its `process_record`), and an id several list under the last: what matters
            // is the ids records carry that it places under another event than theirs
            // (verified: an id of entry 0 changed in lock.data and syscalls.data, its records
            // read the same by both readers).
            let lacks: Vec<u64> = a
                .ids
                .iter()
                .copied()
                .filter(|id| p.walk.ids_seen.contains(id) && lpd_place(*id) != i)
                .collect();
            if p.attrs.len() > 1 && !lacks.is_empty() && !stream {
                read_bad.push(format!(
                    "ids {:?} vs {:?} (linux-perf-data 0.13.0 finds each record's event by these ids; records carry {lacks:?})",
                    ev.ids, a.ids
                ));
            } else {
                bad.push(format!("ids {:?} vs {:?}", ev.ids, a.ids));
            }
        }
        if name.is_empty() {
            bad.push("an empty name".to_string());
        }
        if !ev.name_utf8 {
            read_bad.push("its name is not UTF-8 (linux-perf-data 0.13.0 then names the event `attr0`, ...: verified, 6 of 6 samples under `attr0` with a byte of `cpu-clock` changed to 0xc3; perf 6.1 prints the bytes written)".to_string());
        }
        if !read_bad.is_empty() {
            sink.push(
                sink.make(
                    &rules::EVENT_DESC,
                    span.clone(),
                    format!(
                        "EVENT_DESC entry {i} (`{name}`) disagrees with attr {i}: {}; linux-perf-data 0.13.0 reads the samples with EVENT_DESC's attr, not the attrs section's (verified on damaged copies of the corpus: it refuses the file or reads other samples than perf 6.1 shows)",
                        read_bad.join(", ")
                    ),
                )
                .fails("linux-perf-data", "0.13.0", "loss"),
            );
        } else if !bad.is_empty() {
            sink.push(
                sink.make(
                    &rules::EVENT_DESC,
                    span.clone(),
                    format!(
                        "EVENT_DESC entry {i} (`{name}`) disagrees with attr {i}: {}",
                        bad.join(", ")
                    ),
                )
                .read_same("perf", "6.1"),
            );
        }
    }
}

/// A finished file without EVENT_DESC in its feature bitmap: the events linux-perf-data
/// 0.13.0 cannot name.
fn check_event_names(p: &PerfData, sink: &mut Sink) {
    // linux-perf-data 0.13.0 names the events from EVENT_DESC, and without it from nothing:
    // `perf record` writes the feature into every file it finishes.
    if p.header.mode == Mode::File
        && p.header.features != [0; 4]
        && !p.header.has_feature(12)
        && !p.attrs.is_empty()
        && !p.unfinished
    {
        let msg = format!("the feature bitmap has no EVENT_DESC (bit 12), which `perf record` writes into every file it finishes: linux-perf-data 0.13.0 names the events from it and shows the samples of the {} event(s) under `attr0`, ... instead of their names (verified with the bitmap's first word made 1: 30 of 30 samples as `attr0`); perf 6.1 names them from the attrs", p.attrs.len());
        let f = sink.make(&rules::EVENT_DESC, 72..104, msg);
        // One event, or no sample: every sample is shown, under one name that is only
        // generic; several events with samples: those are told apart by an index alone.
        let f = if p.attrs.len() == 1 || p.walk.samples == 0 {
            f.note(if p.walk.samples == 0 {
                "the file has no sample to show under another name"
            } else {
                "with one event, every sample is shown, under a generic name"
            })
            .read_same("linux-perf-data", "0.13.0")
        } else {
            f.fails("linux-perf-data", "0.13.0", "loss")
        };
        sink.push(f);
    }
}

/// A stream's attrs that no EVENT_DESC entry names for linux-perf-data 0.13.0.
fn check_stream_names(
    p: &PerfData,
    span: &std::ops::Range<u64>,
    evs: &[EventDesc],
    sink: &mut Sink,
) {
    // In a stream linux-perf-data names each HEADER_ATTR from the EVENT_DESC entry whose
    // first id is the attr's first (`parse_pipe_impl`); without one the event is `attr<N>`.
    if p.header.mode == Mode::Pipe {
        for (i, a) in p.attrs.iter().enumerate() {
            let Some(first) = a.ids.first() else {
                continue;
            };
            if !evs.iter().any(|ev| ev.ids.first() == Some(first)) {
                sink.push(
                    sink.make(
                        &rules::EVENT_DESC,
                        span.clone(),
                        format!("no EVENT_DESC entry starts with the first id ({first}) of the stream's attr {i}: linux-perf-data 0.13.0 names a stream's events by that id and shows the samples of this one under `attr{i}` instead of its name (verified: 36 of 36 samples as `attr0` with the first id of EVENT_DESC halved); perf 6.1 names it from the attr"),
                    )
                    .fails("linux-perf-data", "0.13.0", "loss"),
                );
            }
        }
    }
}

/// The bytes of an attr that linux-perf-data 0.13.0 (linux-perf-event-reader 0.10.2,
/// `PerfEventAttr::parse`) reads for a self-reported `size`: the fields of every ABI version
/// the size reaches (64, 72, 80, 96, 104, 112, 120, 128 bytes), or all of them above 128. It
/// returns `size` as what it read whatever it read. None below 64 (it refuses those).
fn lpd_attr_bytes(size: u32) -> Option<u32> {
    if size > 128 {
        return Some(size);
    }
    [128, 120, 112, 104, 96, 80, 72, 64]
        .into_iter()
        .find(|v| size >= *v)
}

/// Sample CPUs against NRCPUS, sample times against SAMPLE_TIME.
pub fn check_metadata(p: &PerfData, sink: &mut Sink) {
    // perf 6.1 keeps per-CPU tables of MAX_NR_CPUS (4096) entries and `perf report` indexes one
    // with the sample's CPU unchecked; a CPU read as negative (0x80000000 and above: -1 is "any
    // CPU") is not used as an index.
    if let Some((cpu, span)) = &p.walk.max_cpu {
        let avail = p.info.nr_cpus.map_or(0, |(a, _)| a);
        if (4096..0x8000_0000).contains(cpu) && *cpu >= avail {
            sink.push(
                sink.make(
                    &rules::METADATA_MISMATCH,
                    span.clone(),
                    format!("a sample was taken on CPU {cpu}, beyond perf 6.1's 4,096 CPUs (NRCPUS says {avail} available): `perf report` indexes its per-CPU table with it, past its end (verified: SIGSEGV for CPU 33,447 and above on a copy of corpus/perf/regs-period.data; `perf script` shows the sample)"),
                )
                .fails("perf", "6.1", "crash"),
            );
            return;
        }
    }
    if let (Some((avail, online)), Some((cpu, span))) = (p.info.nr_cpus, &p.walk.max_cpu) {
        if *cpu >= avail {
            sink.push(
                sink.make(
                    &rules::METADATA_MISMATCH,
                    span.clone(),
                    format!("a sample was taken on CPU {cpu}, but NRCPUS says {avail} CPUs are available"),
                )
                .read_same("perf", "6.1"),
            );
        }
        if online > avail {
            sink.report(
                &rules::METADATA_MISMATCH,
                span.clone(),
                format!("NRCPUS says {online} CPUs online but only {avail} available"),
            );
        }
    }
    if let (Some((first, last)), Some((lo, hi))) = (p.info.sample_time, p.walk.time_range) {
        // perf writes 0, 0 when it did not process the samples at exit (`--no-buildid`, `-z`,
        // `-a`, pipe mode): nothing to compare.
        let unset = first == 0 && last == 0;
        if !unset && p.walk.stopped_at.is_none() && (lo < first || hi > last) {
            let span = p
                .features
                .iter()
                .find(|f| f.bit == 21)
                .map_or(0..0, |f| f.span.clone());
            sink.push(
                sink.make(
                    &rules::METADATA_MISMATCH,
                    span,
                    format!("SAMPLE_TIME says samples run from {first} to {last} ns, the samples run from {lo} to {hi} ns; perf 6.1 uses SAMPLE_TIME for `--time` percentages"),
                )
                .read_same("perf", "6.1"),
            );
        }
    }
}
