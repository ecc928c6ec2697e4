//! Checks over the decoded file: features against the attrs and the samples.

use super::model::*;
use super::rules;
use crate::finding::Sink;

/// EVENT_DESC against the attrs: one entry per attr, with its size and ids.
pub fn check_event_desc(p: &PerfData, sink: &mut Sink) {
    let Some((span, evs)) = &p.info.event_desc else {
        return;
    };
    if evs.len() != p.attrs.len() {
        sink.push(
            sink.make(
                &rules::EVENT_DESC,
                span.clone(),
                format!("EVENT_DESC describes {} event(s), the file has {} attr(s); perf 6.1 names the events from it and leaves the others unnamed", evs.len(), p.attrs.len()),
            )
            .read_same("perf", "6.1"),
        );
        return;
    }
    for (i, (ev, a)) in evs.iter().zip(&p.attrs).enumerate() {
        let (size, ids, name) = (&ev.attr_size, &ev.ids, &ev.name);
        let mut bad = Vec::new();
        if *size != a.size {
            bad.push(format!("attr size {size} vs {}", a.size));
        }
        if *ids != a.ids && !a.ids.is_empty() {
            bad.push(format!("ids {ids:?} vs {:?}", a.ids));
        }
        if name.is_empty() {
            bad.push("an empty name".to_string());
        }
        if !bad.is_empty() {
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

/// Sample CPUs against NRCPUS, sample times against SAMPLE_TIME.
pub fn check_metadata(p: &PerfData, sink: &mut Sink) {
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
