//! Attrs (`perf_file_attr` in file mode, HEADER_ATTR records in pipe mode) and their ids.

use super::super::model::*;
use super::super::rules;
use crate::finding::{Severity, Sink};
use crate::limits::Limits;
use crate::reader::{Endian, Reader};
use std::collections::HashMap;

/// The fields of the `perf_event_attr` whose bytes start at `at` (ids empty), as every reader
/// takes them; `None` when its first 64 bytes are not there. No finding.
pub fn read_attr(data: &[u8], endian: Endian, at: u64) -> Option<Attr> {
    let mut r = Reader::new(data, endian);
    r.seek(at, "attr").ok()?;
    let kind = r.u32("attr type").ok()?;
    let size = r.u32("attr size").ok()?;
    let config = r.u64("attr config").ok()?;
    let _period = r.u64("attr sample_period").ok()?;
    let sample_type = r.u64("attr sample_type").ok()?;
    let read_format = r.u64("attr read_format").ok()?;
    let flags = r.u64("attr flags").ok()?;
    let field = |off: u64, w: u8| -> u64 {
        if off.saturating_add(u64::from(w)) > u64::from(size) {
            return 0;
        }
        let mut q = Reader::new(data, endian);
        if q.seek(at.saturating_add(off), "attr field").is_err() {
            return 0;
        }
        match w {
            4 => q.u32("attr field").map(u64::from).unwrap_or(0),
            _ => q.u64("attr field").unwrap_or(0),
        }
    };
    Some(Attr {
        span: at..at.saturating_add(u64::from(size.max(64))),
        kind,
        size,
        config,
        sample_type,
        read_format,
        flags,
        branch_sample_type: field(72, 8),
        sample_regs_user: field(80, 8),
        sample_stack_user: u32::try_from(field(88, 4)).unwrap_or(0),
        sample_regs_intr: field(96, 8),
        ids: Vec::new(),
        ids_span: 0..0,
    })
}

/// Reads one `perf_event_attr` whose bytes start at `at` (its `size` decides its length).
/// Returns the attr (ids empty) or `None` when its first 64 bytes are not there.
pub fn parse_attr(
    data: &[u8],
    endian: Endian,
    at: u64,
    limit: u64,
    sink: &mut Sink,
) -> Option<Attr> {
    let attr = read_attr(data, endian, at)?;
    let size = attr.size;
    if attr.span.end > limit {
        sink.push(
            sink.make(
                &rules::ATTR_VERSION,
                at.saturating_add(4)..at.saturating_add(8),
                format!(
                    "the attr at 0x{at:x} claims {size} bytes but only {} are left in its section; perf 6.1 refuses the file (\"incompatible file format\", exit 255, verified)",
                    limit.saturating_sub(at)
                ),
            )
            .fails("perf", "6.1", "reject"),
        );
        return None;
    }
    check_attr(&attr, sink);
    Some(attr)
}

/// The checks of one attr on its own.
fn check_attr(a: &Attr, sink: &mut Sink) {
    let at = a.span.start;
    let size_span = at.saturating_add(4)..at.saturating_add(8);
    if a.size < 64 {
        sink.push(
            sink.make(
                &rules::ATTR_VERSION,
                size_span,
                format!("the attr's size is {}, below the 64 bytes of the first ABI version; perf 6.1 misreads this attr and every later one (0 samples)", a.size),
            )
            .fails("perf", "6.1", "loss"),
        );
    } else if a.size > ATTR_SIZE_61 {
        let who = if a.size == 136 {
            "perf 6.3 and newer write it (config3); perf 6.1 and older refuse the whole file (\"incompatible file format\", 0 samples)"
        } else {
            "a perf newer than 6.1 wrote it; perf 6.1 and older refuse the whole file (\"incompatible file format\", 0 samples)"
        };
        sink.push(
            sink.make(
                &rules::ATTR_VERSION,
                size_span,
                format!(
                    "the attr's size is {}, larger than the 128 bytes perf 6.1 knows: {who}",
                    a.size
                ),
            )
            .level(Severity::Info),
        );
    } else if !ATTR_SIZES.contains(&a.size) {
        sink.report(
            &rules::ATTR_VERSION,
            size_span,
            format!(
                "the attr's size is {}, not one of the ABI versions ({ATTR_SIZES:?})",
                a.size
            ),
        );
    }
    if a.flags & FLAGS_RESERVED != 0 {
        sink.push(
            sink.make(
                &rules::ATTR_RESERVED_BITS,
                at.saturating_add(40)..at.saturating_add(48),
                format!("reserved attr flag bits are set (0x{:x}); perf 6.1 warns \"Reserved bits are set unexpectedly\" and reads on", a.flags & FLAGS_RESERVED),
            )
            .read_same("perf", "6.1"),
        );
    }
    let t = a.sample_type;
    let ts = at.saturating_add(24)..at.saturating_add(32);
    let mut bad = Vec::new();
    if t & !st::KNOWN != 0 {
        bad.push(format!("bits 0x{:x} unknown to perf 6.1", t & !st::KNOWN));
    }
    if t & st::WEIGHT != 0 && t & st::WEIGHT_STRUCT != 0 {
        bad.push("both WEIGHT and WEIGHT_STRUCT".to_string());
    }
    if t & st::REGS_USER != 0 && a.sample_regs_user == 0 {
        bad.push("REGS_USER with an empty sample_regs_user".to_string());
    }
    if t & st::REGS_INTR != 0 && a.sample_regs_intr == 0 {
        bad.push("REGS_INTR with an empty sample_regs_intr".to_string());
    }
    if t & st::STACK_USER != 0 && (a.sample_stack_user == 0 || a.sample_stack_user % 8 != 0) {
        bad.push(format!(
            "STACK_USER with sample_stack_user {}",
            a.sample_stack_user
        ));
    }
    if !bad.is_empty() {
        sink.report(
            &rules::SAMPLE_TYPE,
            ts,
            format!("the attr's sample_type 0x{t:x} has {}", bad.join(", ")),
        );
    }
}

/// Checks that several attrs agree on where a record's id is (all IDENTIFIER, or ID at one
/// position) and on `sample_id_all`, and that no id belongs to two attrs.
pub fn check_set(attrs: &[Attr], sink: &mut Sink) {
    for (i, a) in attrs.iter().enumerate() {
        // LBR call stacks (PERF_SAMPLE_BRANCH_CALL_STACK) for callchains without a branch
        // stack in the samples: perf 6.1 crashes (verified: `perf script` and `perf report`
        // SIGSEGV on corpus/perf/callchain-fp.data with that bit set, 0 of 6 samples).
        if a.branch_sample_type & (1 << 11) != 0
            && a.sample_type & st::CALLCHAIN != 0
            && a.sample_type & st::BRANCH_STACK == 0
        {
            sink.push(
                sink.make(
                    &rules::SAMPLE_TYPE,
                    a.span.clone(),
                    format!("attr {i} asks for LBR call stacks (branch_sample_type {:#x} has CALL_STACK) but its samples carry no branch stack: perf 6.1 merges callchains with a branch stack that is not there and crashes (SIGSEGV in `perf script` and `perf report`, verified)", a.branch_sample_type),
                )
                .fails("perf", "6.1", "crash"),
            );
        }
    }
    if let Some(first) = attrs.first() {
        let all_identifier = attrs.iter().all(|a| a.sample_type & st::IDENTIFIER != 0);
        if !all_identifier && attrs.len() > 1 {
            let pos0 = id_pos(first.sample_type);
            for a in attrs.iter().skip(1) {
                if id_pos(a.sample_type) != pos0 {
                    sink.report(
                        &rules::SAMPLE_TYPE,
                        a.span.start.saturating_add(24)..a.span.start.saturating_add(32),
                        format!("this attr's sample id is at another position than the first attr's (sample_type 0x{:x} vs 0x{:x}) and not all attrs carry IDENTIFIER: samples cannot be attributed; linux-perf-data refuses such files", a.sample_type, first.sample_type),
                    );
                    break;
                }
            }
        }
        if attrs
            .iter()
            .any(|a| a.sample_id_all() != first.sample_id_all())
        {
            sink.report(
                &rules::SAMPLE_TYPE,
                first.span.start.saturating_add(40)..first.span.start.saturating_add(48),
                "the attrs disagree on sample_id_all; linux-perf-data refuses such files (InconsistentSampleIdAllWithMultiEvent)",
            );
        }
    }
    let mut seen: HashMap<u64, usize> = HashMap::new();
    for (i, a) in attrs.iter().enumerate() {
        for (k, id) in a.ids.iter().enumerate() {
            if let Some(j) = seen.insert(*id, i) {
                let at = a
                    .ids_span
                    .start
                    .saturating_add((k as u64).saturating_mul(8));
                sink.report(
                    &rules::IDS,
                    at..at.saturating_add(8),
                    if j == i {
                        format!("id {id} appears twice in attr {i}'s ids")
                    } else {
                        format!("id {id} of attr {i} is also an id of attr {j}: perf 6.1 attributes its samples to one of them")
                    },
                );
            }
        }
    }
}

/// The index, in u64 words from the body start, of the ID field of a SAMPLE.
pub fn id_pos(t: u64) -> Option<u64> {
    if t & st::IDENTIFIER != 0 {
        return Some(0);
    }
    if t & st::ID == 0 {
        return None;
    }
    Some(
        [st::IP, st::TID, st::TIME, st::ADDR]
            .iter()
            .filter(|b| t & **b != 0)
            .count() as u64,
    )
}

/// Reads a list of u64 ids.
pub fn read_ids(
    data: &[u8],
    endian: Endian,
    span: std::ops::Range<u64>,
    limits: &Limits,
) -> Vec<u64> {
    let mut r = Reader::new(data, endian);
    let mut out = Vec::new();
    if r.seek(span.start, "ids").is_err() {
        return out;
    }
    let n = span.end.saturating_sub(span.start) / 8;
    for _ in 0..n.min(limits.max_entries) {
        match r.u64("id") {
            Ok(v) => out.push(v),
            Err(_) => break,
        }
    }
    out
}

/// Decodes the attrs section of a file-mode header, with the ids of each attr.
pub fn decode_attrs(data: &[u8], h: &Header, limits: &Limits, sink: &mut Sink) -> Vec<Attr> {
    let len = data.len() as u64;
    let mut out = Vec::new();
    let Some(range) = h.attrs.range() else {
        return out;
    };
    if range.start >= len {
        return out;
    }
    if h.attr_size == 0 {
        sink.push(
            sink.make(
                &rules::ATTR_SIZE,
                16..24,
                "the header's attr_size is 0; perf 6.1 refuses the file (\"attr size field is 0\")",
            )
            .fails("perf", "6.1", "reject"),
        );
        return out;
    }
    let claimed = h.attrs.size.checked_div(h.attr_size).unwrap_or(0);
    if claimed == 0 {
        sink.push(
            sink.make(
                &rules::ATTR_SIZE,
                16..24,
                format!("the attrs section's {} bytes hold no whole {}-byte attr: perf 6.1 reads no attr and stops at the first record that names one (\"failed to process type: 69\", 0 samples, verified)", h.attrs.size, h.attr_size),
            )
            .fails("perf", "6.1", "loss"),
        );
    } else if h.attrs.size.checked_rem(h.attr_size) != Some(0) {
        sink.push(
            sink.make(
                &rules::ATTR_SIZE,
                16..24,
                format!("the attrs section's {} bytes are not a whole number of {}-byte attrs; perf 6.1 reads {claimed} and ignores the rest (verified)", h.attrs.size, h.attr_size),
            )
            .read_same("perf", "6.1"),
        );
    }
    let mut at = range.start;
    let mut i = 0u64;
    while i < claimed.min(limits.max_entries) {
        let Some(mut a) = parse_attr(data, h.endian, at, len, sink) else {
            break;
        };
        let stride = u64::from(a.size.max(64)).saturating_add(16);
        if stride != h.attr_size {
            sink.push(
                sink.make(
                    &rules::ATTR_SIZE,
                    16..24,
                    format!(
                        "the header's attr_size is {} but attr {i} at 0x{at:x} is {} bytes + 16 bytes of ids section = {stride}; perf 6.1 counts {claimed} attr(s) from attr_size but steps by the attr's own size, so it reads {} attr(s) and cannot attribute the records (verified with +8: \"failed to process type: 69\", 0 samples)",
                        h.attr_size, a.size, h.attrs.size.checked_div(stride).unwrap_or(0)
                    ),
                )
                .fails("perf", "6.1", "loss"),
            );
        }
        let ids_at = a.span.end;
        let mut r = Reader::new(data, h.endian);
        let ids = r.seek(ids_at, "attr ids").ok().and_then(|_| {
            Some(Section {
                offset: r.u64("ids offset").ok()?,
                size: r.u64("ids size").ok()?,
            })
        });
        if let Some(ids) = ids {
            match ids.range() {
                Some(ir)
                    if ir.end <= len
                        && ids.size % 8 == 0
                        && (ids.size == 0 || ir.start >= FILE_HEADER_SIZE.min(h.size)) =>
                {
                    a.ids = read_ids(data, h.endian, ir.clone(), limits);
                    a.ids_span = ir;
                }
                Some(ir) if ir.end <= len => {
                    // perf 6.1 reads `size / 8` ids from the offset, whatever the alignment:
                    // these are the ids it attributes records and ID_INDEX entries by (an
                    // ID_INDEX id it does not find is `id-index`).
                    a.ids = read_ids(
                        data,
                        h.endian,
                        ir.start..ir.start.saturating_add(ids.size & !7),
                        limits,
                    );
                    a.ids_span = ir;
                    sink.push(
                        sink.make(
                            &rules::IDS,
                            ids_at..ids_at.saturating_add(16),
                            format!("attr {i}'s ids section {{0x{:x}, {}}} is not a whole number of u64 ids after the header; perf 6.1 reads {} id(s) from there", ids.offset, ids.size, ids.size / 8),
                        )
                        .read_same("perf", "6.1"),
                    );
                }
                _ => {
                    let f = sink.make(
                        &rules::IDS,
                        ids_at..ids_at.saturating_add(16),
                        format!("attr {i}'s ids section {{0x{:x}, {}}} runs past the end of the file; perf 6.1 cannot read the ids and refuses the file (\"incompatible file format\", verified with the size all ones)", ids.offset, ids.size),
                    );
                    sink.push(f.fails("perf", "6.1", "reject"));
                }
            }
        }
        out.push(a);
        at = at.saturating_add(stride);
        i = i.saturating_add(1);
    }
    out
}

/// Whether linux-perf-data 0.13.0 can parse an attr of this type and config: it refuses a
/// hardware, software or cache event whose config names no event it knows ("Could not read
/// PerfEventAttr").
pub fn lpd_knows(kind: u32, config: u64) -> bool {
    match kind {
        // PERF_TYPE_HARDWARE: PERF_COUNT_HW_CPU_CYCLES .. PERF_COUNT_HW_REF_CPU_CYCLES
        0 => config & 0xff <= 9,
        // PERF_TYPE_SOFTWARE: PERF_COUNT_SW_CPU_CLOCK .. PERF_COUNT_SW_CGROUP_SWITCHES
        1 => config <= 11,
        // PERF_TYPE_HW_CACHE: cache id <= NODE, op <= PREFETCH, result <= MISS
        3 => config & 0xff <= 6 && (config >> 8) & 0xff <= 2 && (config >> 16) & 0xff <= 1,
        _ => true,
    }
}
