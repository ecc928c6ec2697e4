//! Repairs of trace.dat files cut short (`tracelint fix`), computed from the decoded model.
//!
//! * v6, cut inside the CPU data: trace-cmd rejects the whole file when one CPU's
//!   `offset + size` passes the end ("File possibly truncated", no events). The writer
//!   (`tcmd_out_write_cpu_data`) copies each CPU's pages at a page-aligned offset and then
//!   patches its (offset, size) pair, so every whole page before the cut is a page it wrote:
//!   the damaged CPU's size becomes its whole pages on disk, CPUs whose data is gone become
//!   (0, 0), and the partial page is dropped (ledgered with its timestamp).
//! * v6, a writer stopped while copying the CPU data: the pairs from the CPU being copied on
//!   are still (0, 0) (each is patched right after its CPU's copy); that CPU's whole pages,
//!   at the page boundary after the last patched CPU's data, are given to it.
//! * v7, cut after a whole BUFFER section (the options section with its BUFFER option and the
//!   STRINGS section are gone: trace-cmd reports nothing). The writer keeps the BUFFER option
//!   in memory until the CPU data is written, so it is rebuilt: compressed data carries its
//!   own framing (per CPU: a chunk count, then chunks that must decompress to their declared
//!   size, each CPU at the next page boundary); uncompressed data of one CPU runs to the end
//!   of the section; uncompressed data of several CPUs needs their sizes (`--cpu-sizes`). The
//!   options section (BUFFER, DONE) and STRINGS (the section descriptions, whose offsets the
//!   remaining section headers give) are appended, and the last DONE is pointed at them.
//! * v7, cut inside the compressed CPU data, or a writer stopped while copying it (the
//!   BUFFER section's size still 0, the chunk count of the CPU being copied still 0: the
//!   writer patches both afterwards): the whole chunks of each CPU are kept, the cut CPU's
//!   count and the section's size set to what is kept, and the options and STRINGS sections
//!   rebuilt as above. The streams must be as many as the CPUs, since an empty CPU writes no
//!   stream and the streams do not name their CPU.
//! * v7 with instances (`-B`): trace-cmd writes a CPUSTAT option `"\nBuffer: NAME\n\n"` before
//!   each instance's statistics, so the instance whose BUFFER option (and STRINGS entry) a cut
//!   took is named again from it when it is the only one without a BUFFER option; an instance
//!   the CPUSTAT options name whose data is not on disk is a loss in the ledger, and a DONE
//!   option that points past the cut ends the chain.

use super::decode::compress::Decompressor;
use super::decode::ctx::Ctx;
use super::decode::{header, v6, v7};
use super::model::{opt_id, Algo, OptValue, Section, TraceDat};
use super::rules;
use crate::finding::Sink;
use crate::formats::spec::Subject;
use crate::ledger::{
    Cut, Edit, FilePlan, Invented, Loss, Plan, Refusal, RepairOptions, Unit, Verdict,
};
use crate::options::CheckOptions;
use crate::reader::{u32_at, u64_at, Endian, Endianity};

/// The repair entry of the format table.
pub fn repair(subject: Subject<'_>, opts: &CheckOptions, ropts: &RepairOptions) -> Verdict {
    let Subject::Bytes(data) = subject else {
        return Verdict::Healthy;
    };
    let mut scratch = Sink::new(opts.limits.max_findings);
    let mut ctx = Ctx::new(data, &opts.limits, &mut scratch);
    let Some(h) = header(&mut ctx) else {
        return refuse(
            "the initial header is cut or damaged",
            "nothing of the file can be placed without it",
        );
    };
    let v6_file = h.version == 6;
    let m = if v6_file {
        v6(&mut ctx, h)
    } else {
        v7(&mut ctx, h)
    };
    let damaged = scratch
        .findings()
        .iter()
        .any(|f| f.severity == crate::finding::Severity::Error);
    if damaged && ends_before_data(&m) {
        return refuse(
            "trace.dat cut inside its metadata, before its CPU data",
            &format!(
                "the file ends at 0x{:x}, before the first CPU's data: trace-cmd writes every page of \
                 events after the metadata, so no event of this recording is on disk to recover",
                len_of(data)
            ),
        );
    }
    if v6_file {
        repair_v6(data, &m)
    } else {
        repair_v7(data, &m, opts, ropts)
    }
}

/// Whether the decode never reached a buffer of CPU data (a flyrecord table, a BUFFER or
/// BUFFER_TEXT section, latency text): a file cut inside its metadata.
fn ends_before_data(m: &TraceDat) -> bool {
    m.buffers.is_empty()
        && m.latency.is_none()
        && !m
            .sections
            .iter()
            .any(|s| s.id == opt_id::BUFFER || s.id == opt_id::BUFFER_TEXT)
}

fn refuse(damage: &str, reason: &str) -> Verdict {
    Verdict::Refuse(Refusal {
        damage: damage.to_string(),
        reason: reason.to_string(),
        option: None,
    })
}

fn len_of(data: &[u8]) -> u64 {
    data.len() as u64
}

/// The bytes of `v` in `e`'s order.
fn u64_bytes(e: Endian, v: u64) -> Vec<u8> {
    e.u64_bytes(v).to_vec()
}

/// The timestamp in the header of the ring page at `at`, if it is on disk.
fn page_ts(data: &[u8], at: u64, e: Endian) -> Option<u64> {
    u64_at(data, usize::try_from(at).ok()?, e)
}

fn old_bytes(data: &[u8], at: u64, n: u64) -> Vec<u8> {
    let (Ok(a), Ok(b)) = (usize::try_from(at), usize::try_from(at.saturating_add(n))) else {
        return Vec::new();
    };
    data.get(a..b).map(<[u8]>::to_vec).unwrap_or_default()
}

/// A v6 writer stopped while copying the CPU data: it writes the flyrecord table as zeros
/// and patches each CPU's pair right after copying that CPU's pages (an empty CPU gets its
/// offset and size 0), so the pairs from the CPU being copied on are (0, 0) and its pages
/// follow the last patched CPU's data at the next page boundary. Those pages are given to
/// that CPU; what the writer had not copied yet is unknown, so the repair always says so.
fn repair_v6_unpatched(data: &[u8], m: &TraceDat) -> Option<Verdict> {
    let len = len_of(data);
    let e = m.header.endian;
    let [b] = m.buffers.as_slice() else {
        return None;
    };
    let z = b.cpus.iter().position(|c| c.offset == 0 && c.size == 0)?;
    if b.cpus.iter().skip(z).any(|c| c.offset != 0 || c.size != 0)
        || b.cpus.iter().any(|c| c.span.end > len)
        || m.meta_end > len
    {
        return None;
    }
    let ps = u64::from(b.page_size.max(1));
    let prev_end = match z.checked_sub(1).and_then(|i| b.cpus.get(i)) {
        Some(c) => c.offset.saturating_add(c.size),
        None => m.meta_end,
    };
    let start = align(prev_end.max(m.meta_end), ps)?;
    let whole = len
        .saturating_sub(start)
        .checked_div(ps)
        .unwrap_or(0)
        .saturating_mul(ps);
    if whole == 0 {
        return None;
    }
    let c = b.cpus.get(z)?;
    let damage = "v6 trace.dat whose writer stopped while copying the CPU data (the CPU tables from the CPU being copied on are still zero)";
    let mut plan = Plan::new(damage);
    plan.mend(rules::TRAILING_DATA.code);
    plan.mend(rules::CPU_DATA_RANGE.code);
    let off_at = c.span.end.saturating_sub(16);
    let keep = start.saturating_add(whole);
    let mut file = FilePlan::new(None, keep);
    file.edits.push(Edit {
        rule: rules::TRAILING_DATA.code,
        offset: off_at,
        old: old_bytes(data, off_at, 16),
        new: [u64_bytes(e, start), u64_bytes(e, whole)].concat(),
        what: format!(
            "CPU {} data offset and size: the {} whole page(s) at 0x{start:x} the writer copied before it stopped",
            c.cpu,
            whole.checked_div(ps).unwrap_or(0)
        ),
    });
    let rest = len.saturating_sub(keep);
    if rest > 0 {
        file.cut = Some(Cut {
            rule: rules::TRAILING_DATA.code,
            at: keep,
            bytes: rest,
            what: "the partial page at the end".into(),
        });
    }
    let later: Vec<String> = b
        .cpus
        .iter()
        .skip(z.saturating_add(1))
        .map(|c| c.cpu.to_string())
        .collect();
    let ts = page_ts(data, keep, e);
    plan.losses.push(Loss {
        file: None,
        buffer: Some(b.name.clone()),
        cpu: Some(c.cpu),
        task: None,
        count: u64::from(rest > 0),
        unit: Unit::Pages,
        bytes: rest,
        time: ts.filter(|_| rest >= 8).map(|t| (t, t)),
        what: format!(
            "CPU {}: the pages the writer had not copied when it stopped (unknown){}{}",
            c.cpu,
            if rest > 0 {
                format!("; a partial page of {rest} byte(s) at 0x{keep:x}")
            } else {
                String::new()
            },
            if later.is_empty() {
                String::new()
            } else {
                format!("; CPU(s) {} not copied at all", later.join(", "))
            }
        ),
    });
    plan.files.push(file);
    Some(Verdict::Repair(plan))
}

fn repair_v6(data: &[u8], m: &TraceDat) -> Verdict {
    if let Some(v) = repair_v6_unpatched(data, m) {
        return v;
    }
    let len = len_of(data);
    let e = m.header.endian;
    // trace-cmd skips a CPU of size 0 whatever its offset.
    let past = |c: &super::model::CpuEntry| c.size > 0 && c.offset.saturating_add(c.size) > len;
    let damaged = m.buffers.iter().flat_map(|b| b.cpus.iter()).any(past);
    if !damaged {
        return Verdict::Healthy;
    }
    if m.meta_end > len
        || m.buffers
            .iter()
            .flat_map(|b| b.cpus.iter())
            .any(|c| c.span.end > len)
    {
        return refuse(
            "v6 trace.dat cut inside its metadata or CPU table",
            "the event formats or the CPU table are gone; they are not in the file",
        );
    }
    // An instance whose CPU table (after the top buffer's data) is cut away is named by a
    // BUFFER option inside the options section, which cannot lose it without moving
    // everything after it.
    let ncpus = m.cpu_count.as_ref().map_or(0, |c| c.0) as usize;
    for o in &m.options {
        if let (opt_id::BUFFER, OptValue::Buffer { name, offset, .. }) = (o.id, &o.value) {
            let whole =
                m.buffers.iter().find(|b| &b.name == name).is_some_and(|b| {
                    b.cpus.len() >= ncpus && b.cpus.iter().all(|c| c.span.end <= len)
                });
            if !whole || *offset >= len {
                return refuse(
                    "v6 trace.dat cut before the CPU table of an instance",
                    &format!("the CPU table of buffer `{name}` (at 0x{offset:x}) is cut away, and its BUFFER option cannot be dropped without moving the sections after it"),
                );
            }
        }
    }
    let mut plan = Plan::new("v6 trace.dat cut inside its CPU data");
    plan.mend(rules::CPU_DATA_RANGE.code);
    let mut file = FilePlan::new(None, 0);
    let mut keep = m.meta_end;
    let mut edits = Vec::new();
    for b in &m.buffers {
        let ps = u64::from(b.page_size.max(1));
        for c in &b.cpus {
            let end = c.offset.saturating_add(c.size);
            keep = keep.max(c.span.end);
            if !past(c) {
                if c.size > 0 {
                    keep = keep.max(end);
                }
                continue;
            }
            if end <= len {
                keep = keep.max(end);
                continue;
            }
            // The pair is (u64 offset, u64 size).
            let off_at = c.span.end.saturating_sub(16);
            let size_at = c.span.end.saturating_sub(8);
            let on_disk = len.saturating_sub(c.offset);
            let whole = if c.offset >= len {
                0
            } else {
                on_disk.checked_div(ps).unwrap_or(0).saturating_mul(ps)
            };
            let new_offset = if whole == 0 { 0 } else { c.offset };
            if new_offset != c.offset {
                edits.push(Edit {
                    rule: rules::CPU_DATA_RANGE.code,
                    offset: off_at,
                    old: old_bytes(data, off_at, 8),
                    new: u64_bytes(e, new_offset),
                    what: format!("CPU {} data offset (no data of it is on disk)", c.cpu),
                });
            }
            edits.push(Edit {
                rule: rules::CPU_DATA_RANGE.code,
                offset: size_at,
                old: old_bytes(data, size_at, 8),
                new: u64_bytes(e, whole),
                what: format!(
                    "CPU {} data size: {} → {whole} (its whole pages on disk)",
                    c.cpu, c.size
                ),
            });
            if whole > 0 {
                keep = keep.max(c.offset.saturating_add(whole));
            }
            let lost_from = c.offset.saturating_add(whole);
            let pages = c.size.saturating_sub(whole).div_ceil(ps);
            let ts = page_ts(data, lost_from, e);
            plan.losses.push(Loss {
                file: None,
                buffer: Some(b.name.clone()),
                cpu: Some(c.cpu),
                task: None,
                count: pages,
                unit: Unit::Pages,
                bytes: len.saturating_sub(lost_from.min(len)).min(c.size.saturating_sub(whole)),
                time: ts.map(|t| (t, t)),
                what: format!(
                    "{pages} page(s) of CPU {} from 0x{lost_from:x}: {} byte(s) declared, {} on disk{}",
                    c.cpu,
                    c.size.saturating_sub(whole),
                    len.saturating_sub(lost_from.min(len)).min(c.size.saturating_sub(whole)),
                    match ts {
                        Some(t) => format!(", the first starting at timestamp {t}"),
                        None => String::new(),
                    }
                ),
            });
        }
    }
    edits.sort_by_key(|x| x.offset);
    file.keep = keep.min(len);
    if file.keep < len {
        file.cut = Some(Cut {
            rule: rules::CPU_DATA_RANGE.code,
            at: file.keep,
            bytes: len.saturating_sub(file.keep),
            what: "the partial page at the end".to_string(),
        });
    }
    file.edits = edits;
    plan.files.push(file);
    Verdict::Repair(plan)
}

/// The text of a section's description the writer gives it, by section id.
fn desc_of(id: u16, buffer: &str) -> Option<String> {
    Some(
        match id {
            opt_id::HEADER_INFO => "headers",
            opt_id::FTRACE_EVENTS => "ftrace events",
            opt_id::EVENT_FORMATS => "events format",
            opt_id::KALLSYMS => "kallsyms",
            opt_id::PRINTK => "printk",
            opt_id::CMDLINES => "command lines",
            opt_id::DONE => "options",
            opt_id::STRINGS => "strings",
            opt_id::BUFFER => return Some(format!("buffer flyrecord {buffer}")),
            opt_id::BUFFER_TEXT => return Some(format!("buffer latency {buffer}")),
            _ => return None,
        }
        .to_string(),
    )
}

/// The instances named by the CPUSTAT options (trace-cmd writes a CPUSTAT of
/// `"\nBuffer: NAME\n\n"` before the statistics of each instance's CPUs), in order.
fn cpustat_instances(m: &TraceDat) -> Vec<String> {
    m.options
        .iter()
        .filter(|o| o.id == opt_id::CPUSTAT)
        .filter_map(|o| match &o.value {
            OptValue::Str(s) => s
                .strip_prefix("\nBuffer: ")
                .and_then(|r| r.split('\n').next())
                .map(str::to_string),
            _ => None,
        })
        .collect()
}

/// The names of the BUFFER options wholly before `keep`.
fn buffer_names_before(m: &TraceDat, keep: u64) -> Vec<String> {
    m.options
        .iter()
        .filter(|o| o.id == opt_id::BUFFER && o.span.end <= keep)
        .filter_map(|o| match &o.value {
            OptValue::Buffer { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect()
}

/// The name of the buffer whose BUFFER section `bi` lost its BUFFER option (and the STRINGS
/// section that names it): the top buffer when it is the first BUFFER section and the top
/// buffer has no BUFFER option yet (the writer writes the top buffer first), else the one
/// instance the CPUSTAT options name that has none; `Err` why not.
fn lost_buffer_name(m: &TraceDat, bi: usize) -> Result<String, String> {
    let Some(buf) = m.sections.get(bi) else {
        return Err("no BUFFER section".into());
    };
    let named = buffer_names_before(m, buf.offset);
    let first = !m.sections.iter().take(bi).any(|s| s.id == opt_id::BUFFER);
    if first && !named.iter().any(String::is_empty) {
        return Ok(String::new());
    }
    let left: Vec<String> = cpustat_instances(m)
        .into_iter()
        .filter(|n| !named.contains(n))
        .collect();
    match left.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err("the data is an instance buffer's, whose name was only in the lost STRINGS section (no CPUSTAT option names it)".into()),
        _ => Err(format!(
            "the data is an instance buffer's, whose name was only in the lost STRINGS section ({} instances the CPUSTAT options name have no BUFFER option: {})",
            left.len(),
            left.join(", ")
        )),
    }
}

/// The buffer name a section's description carries: `name` for the BUFFER section at
/// `at` (whose BUFFER option is lost), the name of its BUFFER option for another buffer
/// section, none for the others.
fn section_name(m: &TraceDat, s: &Section, at: u64, name: &str) -> Option<String> {
    if s.offset == at {
        return Some(name.to_string());
    }
    if s.id != opt_id::BUFFER && s.id != opt_id::BUFFER_TEXT {
        return Some(String::new());
    }
    m.options.iter().find_map(|o| match &o.value {
        OptValue::Buffer { offset, name, .. } if *offset == s.offset => Some(name.clone()),
        _ => None,
    })
}

/// The instances the CPUSTAT options name that the output has no BUFFER option of (`kept`
/// names the ones it has): their sections lay past the cut.
fn instances_lost(m: &TraceDat, kept: &[String], len: u64, keep: u64) -> Vec<Loss> {
    cpustat_instances(m)
        .into_iter()
        .filter(|n| !kept.contains(n))
        .map(|n| Loss {
            file: None,
            buffer: Some(n.clone()),
            cpu: None,
            task: None,
            count: 0,
            unit: Unit::Pages,
            bytes: 0,
            time: None,
            what: format!(
                "instance `{n}` (named by the CPUSTAT options): neither a whole chunk or page of its data nor its BUFFER option is before the cut at 0x{keep:x} ({} byte(s) after it): all its events, how many unknown",
                len.saturating_sub(keep)
            ),
        })
        .collect()
}

fn complete(s: &Section) -> bool {
    s.body.end == s.offset.saturating_add(16).saturating_add(s.size)
}

fn align(v: u64, ps: u64) -> Option<u64> {
    v.checked_next_multiple_of(ps.max(1))
}

/// The compressed CPU streams of a BUFFER section body: (offset, length) of each; why not,
/// when a stream does not frame to the end of the body.
fn compressed_streams(
    data: &[u8],
    algo: Algo,
    body: std::ops::Range<u64>,
    ps: u64,
    e: Endian,
    opts: &CheckOptions,
) -> Result<Vec<(u64, u64)>, String> {
    let walk = partial_streams(data, algo, body, ps, e, opts);
    if let Some(c) = walk.cut {
        return Err(format!(
            "chunk {} of the stream at 0x{:x} is cut, runs past the section or does not decompress to its size",
            c.chunks, c.start
        ));
    }
    if walk.started {
        return Err("a stream's chunk count is cut".into());
    }
    Ok(walk.whole)
}

/// The writer's version as (major, minor), from the VERSION option.
fn writer_version(m: &TraceDat) -> Option<(u32, u32)> {
    let v = m.writer_version()?;
    let mut it = v.split(|c: char| !c.is_ascii_digit());
    Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
}

struct Sink16(Vec<u8>, Endian);

impl Sink16 {
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&self.1.u16_bytes(v));
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&self.1.u32_bytes(v));
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&self.1.u64_bytes(v));
    }
    fn cstr(&mut self, s: &str) {
        self.0.extend_from_slice(s.as_bytes());
        self.0.push(0);
    }
}

/// A section header (id, flags, string id, size), as `write_compress_section_header` writes it.
fn section_header(e: Endian, id: u16, string_id: u32, size: u64) -> Vec<u8> {
    let mut w = Sink16(Vec::with_capacity(16), e);
    w.u16(id);
    w.u16(0);
    w.u32(string_id);
    w.u64(size);
    w.0
}

/// What a v7 repair keeps of the CPU data of the last BUFFER section, and what it changes
/// there before the rebuilt options and STRINGS sections are appended.
struct Kept {
    /// Bytes of the input kept (the end of the last whole CPU data).
    keep: u64,
    /// The CPU streams of the BUFFER option.
    streams: Vec<Stream>,
    /// Fields whose value an option brought in or a default gave.
    invented: Vec<Invented>,
    /// In-place edits inside the kept data, in offset order.
    edits: Vec<Edit>,
    /// What the repair drops of the data.
    losses: Vec<Loss>,
    /// What the cut bytes are.
    cut_what: &'static str,
    /// Where the writer's lost options section began (the last DONE may point there).
    old_next: Option<u64>,
    /// The name of the buffer whose BUFFER option is rebuilt (`""`: the top buffer).
    name: String,
}

fn repair_v7(data: &[u8], m: &TraceDat, opts: &CheckOptions, ropts: &RepairOptions) -> Verdict {
    if let Some(v) = repair_v7_cut_in_data(data, m, opts) {
        return v;
    }
    let len = len_of(data);
    let e = m.header.endian;
    let referenced = |off: u64| {
        m.options.iter().any(|o| {
            matches!(&o.value, OptValue::Buffer { offset, .. } if *offset == off)
                && o.id == opt_id::BUFFER
        })
    };
    let Some(bi) = m
        .sections
        .iter()
        .rposition(|s| s.id == opt_id::BUFFER && complete(s))
    else {
        return Verdict::Healthy;
    };
    let Some(buf) = m.sections.get(bi) else {
        return Verdict::Healthy;
    };
    if referenced(buf.offset) {
        return rebuild_strings(data, m);
    }
    let damage = "v7 trace.dat cut after its CPU data: the options section with the BUFFER option and the STRINGS section are gone";
    // Nothing whole may follow the BUFFER section (else this is other damage).
    if m.sections.iter().skip(bi.saturating_add(1)).any(complete) {
        return Verdict::Healthy;
    }
    let keep = buf.body.end;
    // A writer stopped during the CPU copy leaves the section size 0 and the data after the
    // header.
    if buf.size == 0 && keep < len {
        return refuse(
            damage,
            "the writer stopped while copying the CPU data (the BUFFER section's size was never written)",
        );
    }
    // What follows the data must be what the writer writes next: the options section's
    // header (id 0, flags 0, the next string id), or as much of it as is left.
    let name = match lost_buffer_name(m, bi) {
        Ok(n) => n,
        Err(why) => return refuse(damage, &why),
    };
    let options_sid = match tile_strings(m.sections.iter().take(bi.saturating_add(1)), |s| {
        section_name(m, s, buf.offset, &name)
    }) {
        Ok(t) => u32::try_from(t.len()).unwrap_or(u32::MAX),
        Err(why) => return refuse(damage, &why),
    };
    let expected = section_header(e, opt_id::DONE, options_sid, 0);
    let tail = old_bytes(data, keep, len.saturating_sub(keep).min(8));
    if expected.get(..tail.len()) != Some(tail.as_slice()) {
        return refuse(
            damage,
            "the bytes after the CPU data are not the options section the writer writes next",
        );
    }
    let (streams, invented) = match cpu_streams(data, m, buf, damage, opts, ropts) {
        Ok(v) => v,
        Err(v) => return v,
    };
    let kept = Kept {
        keep,
        streams,
        invented,
        edits: Vec::new(),
        losses: Vec::new(),
        cut_what: "what was left of the options and STRINGS sections (rebuilt)",
        old_next: None,
        name,
    };
    rebuild_options(data, m, bi, damage, kept)
}

/// A v7 file cut inside the compressed CPU data of its last BUFFER section (a copy cut short,
/// or a writer stopped while copying, which leaves the section's size 0): the whole chunks of
/// each CPU stream are kept, the cut stream's chunk count and the section's size are set to
/// what is kept, and the options and STRINGS sections are rebuilt as after a cut past the
/// data. `None` when the file is not so damaged.
fn repair_v7_cut_in_data(data: &[u8], m: &TraceDat, opts: &CheckOptions) -> Option<Verdict> {
    let len = len_of(data);
    let e = m.header.endian;
    let bi = m.sections.len().checked_sub(1)?;
    let buf = m.sections.get(bi)?;
    let declared_end = buf.offset.saturating_add(16).saturating_add(buf.size);
    let stopped = buf.size == 0 && buf.body.start < len;
    if buf.id != opt_id::BUFFER || !buf.compressed() || (complete(buf) && !stopped) {
        return None;
    }
    let damage = if stopped {
        "v7 trace.dat whose writer stopped while copying the compressed CPU data (the BUFFER section's size was never written)"
    } else {
        "v7 trace.dat cut inside its compressed CPU data"
    };
    let name = match lost_buffer_name(m, bi) {
        Ok(n) => n,
        Err(why) => return Some(refuse(damage, &why)),
    };
    let Some(algo) = m.header.algo.filter(|a| *a != Algo::None) else {
        return Some(refuse(
            damage,
            "the data is flagged compressed in a file without compression",
        ));
    };
    let ps = u64::from(m.header.page_size.max(1));
    let body = buf.offset.saturating_add(16)..len;
    let walk = partial_streams(data, algo, body, ps, e, opts);
    if walk.whole.is_empty() && walk.cut.as_ref().is_none_or(|c| c.chunks == 0) {
        // An instance's buffer cut before its first whole chunk: the buffers before it are
        // whole with their options, and only it is lost.
        if let v @ Verdict::Repair(_) = rebuild_strings(data, m) {
            return Some(v);
        }
        return Some(refuse(
            damage,
            "no whole compressed chunk is on disk: nothing to recover",
        ));
    }
    let ncpus = m.cpucount().unwrap_or(0);
    let seen =
        (walk.whole.len() as u64).saturating_add(u64::from(walk.cut.is_some() || walk.started));
    if seen != u64::from(ncpus) {
        return Some(Verdict::Refuse(Refusal {
            damage: damage.to_string(),
            reason: format!(
                "{seen} compressed CPU stream(s) on disk among {ncpus} CPUs: the data of the CPUs after the cut is gone and the file does not say which CPUs the streams before it are (an empty CPU writes no stream)"
            ),
            option: None,
        }));
    }
    let short = writer_version(m).is_some_and(|v| v < (3, 2));
    let mut streams: Vec<Stream> = walk
        .whole
        .iter()
        .zip(0u32..)
        .map(|(&(off, l), cpu)| (cpu, off, if short { l.saturating_sub(4) } else { l }))
        .collect();
    let mut keep = walk
        .whole
        .last()
        .map_or(buf.offset.saturating_add(16), |&(o, l)| o.saturating_add(l));
    let mut edits = Vec::new();
    let mut losses = Vec::new();
    let cpu = u32::try_from(walk.whole.len()).unwrap_or(u32::MAX);
    if walk.started {
        losses.push(Loss {
            file: None,
            buffer: Some(name.clone()),
            cpu: Some(cpu),
            task: None,
            count: 0,
            unit: Unit::Chunks,
            bytes: len.saturating_sub(keep),
            time: None,
            what: format!("CPU {cpu}: its data, cut inside its chunk count"),
        });
    }
    if let Some(c) = &walk.cut {
        if c.chunks > 0 {
            keep = c.end;
            let l = c.end.saturating_sub(c.start);
            streams.push((cpu, c.start, if short { l.saturating_sub(4) } else { l }));
            edits.push(Edit {
                rule: rules::SECTION_WALK.code,
                offset: c.start,
                old: old_bytes(data, c.start, 4),
                new: e.u32_bytes(c.chunks).to_vec(),
                what: match c.count {
                    Some(n) => format!(
                        "CPU {cpu}'s chunk count: its {} whole chunk(s) of {n}",
                        c.chunks
                    ),
                    None => format!(
                        "CPU {cpu}'s chunk count, never written: its {} whole chunk(s)",
                        c.chunks
                    ),
                },
            });
        }
        let rest = len.saturating_sub(c.end);
        let (count, what) = match c.count {
            Some(n) => (
                u64::from(n.saturating_sub(c.chunks)),
                format!(
                    "CPU {cpu}: {} of its {n} compressed chunk(s) cut or not on disk ({rest} bytes of the cut one)",
                    n.saturating_sub(c.chunks)
                ),
            ),
            None => (
                u64::from(rest > 0),
                format!("CPU {cpu}: whatever of its data the writer had not written when it stopped (unknown; {rest} bytes of a cut chunk on disk)"),
            ),
        };
        if count > 0 || rest > 0 || c.count.is_none() {
            losses.push(Loss {
                file: None,
                buffer: Some(name.clone()),
                cpu: Some(cpu),
                task: None,
                count,
                unit: Unit::Chunks,
                bytes: len.saturating_sub(keep),
                time: None,
                what,
            });
        }
    }
    if streams.is_empty() {
        return Some(refuse(
            damage,
            "no whole compressed chunk is on disk: nothing to recover",
        ));
    }
    let size = keep.saturating_sub(buf.offset.saturating_add(16));
    edits.insert(
        0,
        Edit {
            rule: rules::SECTION_WALK.code,
            offset: buf.offset.saturating_add(8),
            old: old_bytes(data, buf.offset.saturating_add(8), 8),
            new: u64_bytes(e, size),
            what: format!("the BUFFER section's size: the {size} bytes of whole CPU data"),
        },
    );
    let kept = Kept {
        keep,
        streams,
        invented: Vec::new(),
        edits,
        losses,
        cut_what: "a compressed chunk cut short",
        old_next: (!stopped).then_some(declared_end),
        name,
    };
    Some(rebuild_options(data, m, bi, damage, kept))
}

/// A CPU stream cut by the end of the file: where it starts, its chunk count, its whole
/// chunks and where they end.
struct CutStream {
    start: u64,
    /// `None`: never patched (the writer stopped while writing this stream).
    count: Option<u32>,
    chunks: u32,
    end: u64,
}

/// The compressed CPU streams of a BUFFER section walked to the first chunk that is cut or
/// does not decompress to its size.
struct PartialStreams {
    whole: Vec<(u64, u64)>,
    cut: Option<CutStream>,
    /// Bytes of one more stream are on disk, too few for its chunk count.
    started: bool,
}

fn partial_streams(
    data: &[u8],
    algo: Algo,
    body: std::ops::Range<u64>,
    ps: u64,
    e: Endian,
    opts: &CheckOptions,
) -> PartialStreams {
    let mut dec = Decompressor::new();
    let mut out = Vec::new();
    let mut walk = PartialStreams {
        whole: Vec::new(),
        cut: None,
        started: false,
    };
    let at = |p: u64| usize::try_from(p).ok();
    let Some(mut pos) = align(body.start, ps) else {
        return walk;
    };
    while pos < body.end {
        let Some(count) = at(pos)
            .and_then(|p| u32_at(data, p, e))
            .filter(|_| pos.saturating_add(4) <= body.end)
        else {
            walk.started = true;
            break;
        };
        let start = pos;
        let mut p = pos.saturating_add(4);
        let mut whole = 0u32;
        // The writer writes a count of 0 before the chunks and patches it after the last
        // (`tracecmd_compress_copy_from`): a stream whose count is 0 is the one being
        // copied when the writer stopped, and its chunks run to the first that is cut.
        let unpatched = count == 0;
        let count = if unpatched { u32::MAX } else { count };
        while whole < count {
            let (Some(zs), Some(us)) = (
                at(p).and_then(|x| u32_at(data, x, e)),
                at(p.saturating_add(4)).and_then(|x| u32_at(data, x, e)),
            ) else {
                break;
            };
            let zstart = p.saturating_add(8);
            let zend = zstart.saturating_add(u64::from(zs));
            if zend > body.end || u64::from(us) > opts.limits.max_section_bytes {
                break;
            }
            let chunk = match (at(zstart), at(zend)) {
                (Some(a), Some(b)) => data.get(a..b).unwrap_or_default(),
                _ => &[],
            };
            out.clear();
            out.resize(usize::try_from(us).unwrap_or(0), 0);
            match dec.decompress(algo, chunk, &mut out) {
                Ok(n) if n as u64 == u64::from(us) => {}
                _ => break,
            }
            p = zend;
            whole = whole.saturating_add(1);
        }
        if whole < count {
            walk.cut = Some(CutStream {
                start,
                count: if unpatched { None } else { Some(count) },
                chunks: whole,
                end: p,
            });
            break;
        }
        walk.whole.push((start, p.saturating_sub(start)));
        match align(p, ps) {
            Some(n) => pos = n,
            None => break,
        }
    }
    walk
}

/// The options section (BUFFER, DONE) and the STRINGS section appended after the kept CPU
/// data of the BUFFER section `bi`, the last DONE before it pointed at them.
fn rebuild_options(data: &[u8], m: &TraceDat, bi: usize, damage: &str, kept: Kept) -> Verdict {
    let len = len_of(data);
    let e = m.header.endian;
    let Some(buf) = m.sections.get(bi) else {
        return Verdict::Healthy;
    };
    let keep = kept.keep;
    let (next_at, next) = match last_done(m, bi, keep, kept.old_next, damage) {
        Ok(v) => v,
        Err(v) => return v,
    };
    let streams = kept.streams;
    let mut invented = kept.invented;
    let clock = match m.traceclock() {
        Some(c) => c,
        None => {
            invented.push(Invented {
                file: None,
                field: "BUFFER option: clock".into(),
                value: "local".into(),
                why: "no TRACECLOCK option; trace-cmd's writer uses `local` then".into(),
            });
            "local".to_string()
        }
    };
    // STRINGS: the descriptions by string id, which must tile from 0.
    let name = kept.name;
    let mut strings = match tile_strings(m.sections.iter().take(bi.saturating_add(1)), |s| {
        section_name(m, s, buf.offset, &name)
    }) {
        Ok(s) => s,
        Err(why) => return refuse(damage, &why),
    };
    let options_sid = u32::try_from(strings.len()).unwrap_or(u32::MAX);
    strings.extend_from_slice(b"options\0");
    let strings_sid = u32::try_from(strings.len()).unwrap_or(u32::MAX);
    strings.extend_from_slice(b"strings\0");
    // The options section: BUFFER, DONE.
    let mut opt = Sink16(Vec::new(), e);
    opt.u64(buf.offset);
    opt.cstr(&name);
    opt.cstr(&clock);
    opt.u32(m.header.page_size);
    opt.u32(u32::try_from(streams.len()).unwrap_or(0));
    for &(cpu, off, sz) in &streams {
        opt.u32(cpu);
        opt.u64(off);
        opt.u64(sz);
    }
    let payload = opt.0;
    let mut body_w = Sink16(Vec::new(), e);
    body_w.u16(opt_id::BUFFER);
    body_w.u32(u32::try_from(payload.len()).unwrap_or(0));
    body_w.0.extend_from_slice(&payload);
    body_w.u16(opt_id::DONE);
    body_w.u32(8);
    body_w.u64(0);
    let opt_body = body_w.0;
    let mut plan = Plan::new(damage);
    for r in [
        &rules::MISSING_METADATA,
        &rules::SECTION_REFERENCES,
        &rules::OPTION_LAYOUT,
        &rules::OPTIONS_CHAIN,
        &rules::SECTION_WALK,
    ] {
        plan.mend(r.code);
    }
    let mut file = FilePlan::new(None, keep);
    if next != keep {
        file.edits.push(Edit {
            rule: rules::OPTIONS_CHAIN.code,
            offset: next_at,
            old: old_bytes(data, next_at, 8),
            new: u64_bytes(e, keep),
            what: "the last DONE option's next-options offset: the rebuilt options section".into(),
        });
    }
    file.edits.extend(kept.edits);
    let mut at = keep;
    let opt_sec = section_header(e, opt_id::DONE, options_sid, opt_body.len() as u64);
    let mut new = opt_sec;
    new.extend_from_slice(&opt_body);
    let n = new.len() as u64;
    file.edits.push(Edit {
        rule: rules::MISSING_METADATA.code,
        offset: at,
        old: Vec::new(),
        new,
        what: format!(
            "options section: BUFFER option ({}, clock {clock}, {} CPU stream(s): {}), DONE",
            if name.is_empty() {
                "top buffer".to_string()
            } else {
                format!("instance `{name}`")
            },
            streams.len(),
            streams
                .iter()
                .map(|(c, o, s)| format!("CPU {c} at 0x{o:x} +{s}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    });
    at = at.saturating_add(n);
    let mut new = section_header(e, opt_id::STRINGS, strings_sid, strings.len() as u64);
    new.extend_from_slice(&strings);
    file.edits.push(Edit {
        rule: rules::BAD_STRING_ID.code,
        offset: at,
        old: Vec::new(),
        new,
        what: format!(
            "STRINGS section ({} descriptions, uncompressed)",
            m.sections.len().min(bi.saturating_add(1)).saturating_add(2)
        ),
    });
    plan.mend(rules::BAD_STRING_ID.code);
    if keep < len {
        file.cut = Some(Cut {
            rule: rules::MISSING_METADATA.code,
            at: keep,
            bytes: len.saturating_sub(keep),
            what: kept.cut_what.into(),
        });
    }
    plan.losses = kept.losses;
    let mut names = buffer_names_before(m, keep);
    names.push(name);
    plan.losses.extend(instances_lost(m, &names, len, keep));
    plan.invented = invented;
    plan.files.push(file);
    Verdict::Repair(plan)
}

/// The STRINGS section (written last, by `tracecmd_output_flush`) cut or missing after a whole
/// options section: rebuilt from the ids in the section headers.
fn rebuild_strings(data: &[u8], m: &TraceDat) -> Verdict {
    let len = len_of(data);
    let e = m.header.endian;
    if m.sections
        .iter()
        .any(|s| s.id == opt_id::STRINGS && complete(s))
    {
        return Verdict::Healthy;
    }
    let damage = "v7 trace.dat cut inside or before its STRINGS section";
    let Some(last) = m.sections.iter().rposition(complete) else {
        return Verdict::Healthy;
    };
    // Everything after the last whole section is the cut STRINGS section (or less than a
    // section header), or an instance's BUFFER section cut before any of its data is whole
    // (dropped whole: the caller found nothing in it to keep).
    let after: Vec<&Section> = m.sections.iter().skip(last.saturating_add(1)).collect();
    match after.as_slice() {
        [] => {}
        [s] if s.id == opt_id::STRINGS => {}
        // Only an instance's: the top buffer's data comes first, and without it nothing is
        // left to read.
        [s] if s.id == opt_id::BUFFER
            && m.sections.iter().take(last).any(|b| b.id == opt_id::BUFFER) => {}
        _ => return Verdict::Healthy,
    }
    let damage = if after.iter().any(|s| s.id == opt_id::BUFFER) {
        "v7 trace.dat cut inside an instance's buffer section, before any of its data is whole"
    } else {
        damage
    };
    let Some(ls) = m.sections.get(last) else {
        return Verdict::Healthy;
    };
    // The chain must end in the last section: an options section whose DONE ends it.
    if ls.id != opt_id::DONE || m.options_chain.last() != Some(&ls.offset) {
        return Verdict::Healthy;
    }
    let keep = ls.body.end;
    let buffer_name = |s: &Section| {
        if s.id == opt_id::BUFFER {
            // The buffer's name, from its BUFFER option.
            m.options.iter().find_map(|o| match &o.value {
                OptValue::Buffer { offset, name, .. } if *offset == s.offset => Some(name.clone()),
                _ => None,
            })
        } else {
            Some(String::new())
        }
    };
    let mut strings =
        match tile_strings(m.sections.iter().take(last.saturating_add(1)), buffer_name) {
            Ok(s) => s,
            Err(why) => return refuse(damage, &why),
        };
    let sid = u32::try_from(strings.len()).unwrap_or(u32::MAX);
    if let Some(cut) = m
        .sections
        .get(last.saturating_add(1))
        .filter(|c| c.id == opt_id::STRINGS)
    {
        if cut.string_id != sid {
            return refuse(
                damage,
                "the cut STRINGS section's own id does not follow the others",
            );
        }
    }
    strings.extend_from_slice(b"strings\0");
    let mut plan = Plan::new(damage);
    plan.mend(rules::BAD_STRING_ID.code);
    plan.mend(rules::SECTION_WALK.code);
    plan.mend(rules::TRUNCATED.code);
    plan.mend(rules::SECTION_SIZE.code);
    let mut file = FilePlan::new(None, keep);
    // The last DONE points at the next options section when an instance's buffer followed
    // (trace-cmd patches it as it writes that section): past the cut, it is ended.
    let done = m.options.iter().rfind(|o| {
        o.id == opt_id::DONE && o.span.start >= ls.body.start && o.span.end <= ls.body.end
    });
    if let Some(d) = done {
        match d.value {
            OptValue::U64(0) => {}
            OptValue::U64(next) if next >= keep => {
                let at = d.span.start.saturating_add(6);
                file.edits.push(Edit {
                    rule: rules::OPTIONS_CHAIN.code,
                    offset: at,
                    old: old_bytes(data, at, 8),
                    new: u64_bytes(e, 0),
                    what: format!(
                        "the last DONE option's next-options offset 0x{next:x}, past the cut: 0, the end of the chain"
                    ),
                });
                plan.mend(rules::OPTIONS_CHAIN.code);
            }
            _ => return Verdict::Healthy,
        }
    }
    let mut new = section_header(e, opt_id::STRINGS, sid, strings.len() as u64);
    new.extend_from_slice(&strings);
    file.edits.push(Edit {
        rule: rules::BAD_STRING_ID.code,
        offset: keep,
        old: Vec::new(),
        new,
        what: format!(
            "STRINGS section ({} descriptions, uncompressed)",
            m.sections
                .len()
                .min(last.saturating_add(1))
                .saturating_add(1)
        ),
    });
    if keep < len {
        file.cut = Some(Cut {
            rule: rules::TRUNCATED.code,
            at: keep,
            bytes: len.saturating_sub(keep),
            what: "what was left of the STRINGS section (rebuilt)".into(),
        });
    }
    plan.losses = instances_lost(m, &buffer_names_before(m, keep), len, keep);
    plan.files.push(file);
    Verdict::Repair(plan)
}

/// One CPU's data in a BUFFER option: (cpu, offset, size).
type Stream = (u32, u64, u64);

/// The CPU streams (cpu, offset, size) of the BUFFER section `buf`, as the writer's BUFFER
/// option gave them, and what options brought in; `Err` with the refusal.
fn cpu_streams(
    data: &[u8],
    m: &TraceDat,
    buf: &Section,
    damage: &str,
    opts: &CheckOptions,
    ropts: &RepairOptions,
) -> Result<(Vec<Stream>, Vec<Invented>), Verdict> {
    let e = m.header.endian;
    let ps = u64::from(m.header.page_size.max(1));
    let body = buf.offset.saturating_add(16)..buf.body.end;
    let ncpus = m.cpucount().unwrap_or(0);
    let mut invented = Vec::new();
    let streams: Vec<(u32, u64, u64)> = if buf.compressed() {
        let Some(algo) = m.header.algo.filter(|a| *a != Algo::None) else {
            return Err(refuse(
                damage,
                "the data is flagged compressed in a file without compression",
            ));
        };
        let found = match compressed_streams(data, algo, body.clone(), ps, e, opts) {
            Ok(s) => s,
            Err(why) => {
                return Err(refuse(
                    damage,
                    &format!("the compressed CPU data does not frame: {why}"),
                ))
            }
        };
        let n = found.len() as u64;
        if n != u64::from(ncpus) && n > 1 {
            return Err(Verdict::Refuse(Refusal {
                damage: damage.to_string(),
                reason: format!(
                    "{n} compressed CPU streams among {ncpus} CPUs: the file does not say which CPUs they are"
                ),
                option: Some("--cpu-sizes"),
            }));
        }
        if n == 1 && ncpus != 1 {
            return Err(Verdict::Refuse(Refusal {
                damage: damage.to_string(),
                reason: format!("one compressed CPU stream among {ncpus} CPUs: the file does not say which CPU it is"),
                option: Some("--cpu-sizes"),
            }));
        }
        // trace-cmd before 3.2 recorded a compressed stream's size 4 bytes short.
        let short = writer_version(m).is_some_and(|v| v < (3, 2));
        found
            .iter()
            .zip(0u32..)
            .map(|(&(off, l), cpu)| (cpu, off, if short { l.saturating_sub(4) } else { l }))
            .collect()
    } else {
        let start = match align(body.start, ps) {
            Some(s) => s,
            None => return Err(refuse(damage, "offset overflow")),
        };
        match (&ropts.cpu_sizes, ncpus) {
            (Some(sizes), _) => {
                let mut v = Vec::new();
                let mut pos = start;
                for (cpu, &sz) in (0u32..).zip(sizes.iter()) {
                    if sz > 0 {
                        v.push((cpu, pos, sz));
                    }
                    let end = pos.saturating_add(sz);
                    if end > body.end {
                        return Err(refuse(damage, "--cpu-sizes adds up to more than the section holds"));
                    }
                    pos = align(end, ps).unwrap_or(u64::MAX);
                    invented.push(Invented {
                        file: None,
                        field: format!("BUFFER option: CPU {cpu} size"),
                        value: sz.to_string(),
                        why: "given by --cpu-sizes".into(),
                    });
                }
                if v.last().map(|&(_, o, s)| o.saturating_add(s)) != Some(body.end) {
                    return Err(refuse(damage, "--cpu-sizes does not end where the section ends"));
                }
                v
            }
            (None, 1) if body.end > start => vec![(0, start, body.end.saturating_sub(start))],
            (None, 1) => Vec::new(),
            (None, n) => {
                return Err(Verdict::Refuse(Refusal {
                    damage: damage.to_string(),
                    reason: format!(
                        "the uncompressed data of {n} CPUs has no boundaries in the file (whole pages of different CPUs look alike)"
                    ),
                    option: Some("--cpu-sizes"),
                }))
            }
        }
    };
    Ok((streams, invented))
}

/// The STRINGS body the writer wrote for `sections`: each section's description (with the name
/// `buffer_name` gives a BUFFER section) at the offset its string id says; why not, when a
/// description cannot be rebuilt or the ids do not tile the body from 0.
fn tile_strings<'a>(
    sections: impl Iterator<Item = &'a Section>,
    buffer_name: impl Fn(&Section) -> Option<String>,
) -> Result<Vec<u8>, String> {
    let mut descs: Vec<(u32, String)> = Vec::new();
    for s in sections {
        let Some(d) = buffer_name(s).and_then(|n| desc_of(s.id, &n)) else {
            return Err(format!(
                "section id {} has a description this version cannot rebuild",
                s.id
            ));
        };
        descs.push((s.string_id, d));
    }
    descs.sort_by_key(|d| d.0);
    let mut strings = Vec::new();
    for (id, d) in &descs {
        if u64::from(*id) != strings.len() as u64 {
            return Err("the section description ids do not tile the lost STRINGS section".into());
        }
        strings.extend_from_slice(d.as_bytes());
        strings.push(0);
    }
    Ok(strings)
}

/// The last DONE option before the BUFFER section `bi`: where its `next` is and its value,
/// which must be 0 (never patched), `keep` (the lost options section's place) or `old_next`
/// (where the lost options section was before a cut inside the data).
fn last_done(
    m: &TraceDat,
    bi: usize,
    keep: u64,
    old_next: Option<u64>,
    damage: &str,
) -> Result<(u64, u64), Verdict> {
    let Some(buf) = m.sections.get(bi) else {
        return Err(refuse(damage, "no BUFFER section"));
    };
    // The last DONE before the buffer: its `next` is 0 (never patched) or the lost section.
    let Some(done) = m
        .options
        .iter()
        .rfind(|o| o.id == opt_id::DONE && o.span.end <= buf.offset)
    else {
        return Err(refuse(
            damage,
            "no options section with a DONE option precedes the data",
        ));
    };
    let Some(done_sec) = m
        .sections
        .iter()
        .take(bi)
        .rfind(|s| s.id == opt_id::DONE && s.body.start <= done.span.start)
    else {
        return Err(refuse(damage, "the DONE option lies in no options section"));
    };
    if done_sec.compressed() {
        return Err(refuse(
            damage,
            "the options section before the data is compressed",
        ));
    }
    let next_at = done.span.start.saturating_add(6);
    let next = match done.value {
        OptValue::U64(n) => n,
        _ => return Err(refuse(damage, "the DONE option before the data is damaged")),
    };
    if next != 0 && next != keep && Some(next) != old_next {
        return Err(refuse(
            damage,
            "the last DONE option points elsewhere than the end of the data",
        ));
    }
    Ok((next_at, next))
}
