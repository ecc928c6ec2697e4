//! The structure-aware model of trace-cmd trace.dat: an `arbitrary` model written by the format's
//! writer, rendered and run.

use super::mutation::*;
use crate::formats::ftrace_ring::writer as rw;
use crate::formats::tracecmd::writer as tw;
use crate::fuzzing::invariants::*;
use crate::fuzzing::raw::*;
use crate::reader::Endian;
use arbitrary::{Arbitrary, Unstructured};

/// One CPU's data: pages built by the ring writer, or the trace-cmd writer's sound page.
#[derive(Arbitrary, Debug)]
pub enum CpuData {
    /// Pages from ring-buffer items.
    Pages(Vec<rw::PageBuilder>),
    /// A sound page of `n` default events.
    Sound(u8),
    /// Nothing.
    Empty,
    /// Raw bytes.
    Raw(Vec<u8>),
}

/// A trace-cmd option whose payload has a layout of its own, written in the file's byte
/// order.
#[derive(Arbitrary, Debug)]
pub enum TypedOption {
    /// PROCMAPS: per process `PID NLIBS COMM` (hex) then NLIBS `START END PATH` lines.
    ProcMaps {
        /// (pid, comm, libraries as (start, end, path)).
        procs: Vec<Process>,
        /// Added to the announced library count of the first process.
        extra_libs: u8,
    },
    /// TIME_SHIFT: peer, flags, per CPU samples (time, offset, scaling), fraction table.
    TimeShift {
        /// Peer trace id.
        peer: u64,
        /// Flags.
        flags: u32,
        /// Samples per CPU: (time, offset, scaling).
        cpus: Vec<Vec<(u64, u64, u64)>>,
        /// Write the fraction table.
        fractions: bool,
    },
    /// GUEST: name, trace id, (vcpu, host pid) pairs.
    Guest {
        /// Guest name.
        name: String,
        /// Trace id.
        trace_id: u64,
        /// (vcpu, host pid).
        vcpus: Vec<(u32, u32)>,
    },
    /// TSC2NSEC: mult, shift, offset.
    Tsc2Nsec {
        /// Multiplier.
        mult: u32,
        /// Shift.
        shift: u32,
        /// Offset.
        offset: u64,
    },
}

/// A PROCMAPS process: (pid, comm, libraries as (start, end, path)).
pub type Process = (u16, String, Vec<(u32, u32, String)>);

pub(crate) fn put_n(out: &mut Vec<u8>, e: Endian, v: u64, n: usize) {
    let b = match e {
        Endian::Little => v.to_le_bytes(),
        Endian::Big => v.to_be_bytes(),
    };
    let part = match e {
        Endian::Little => b.get(..n),
        Endian::Big => b.get(8usize.saturating_sub(n)..),
    };
    out.extend_from_slice(part.unwrap_or_default());
}

/// The (id, payload) of a typed option.
pub(crate) fn typed_option(o: &TypedOption, e: Endian) -> (u16, Vec<u8>) {
    use crate::formats::tracecmd::model::opt_id;
    let mut p = Vec::new();
    match o {
        TypedOption::ProcMaps { procs, extra_libs } => {
            let mut text = String::new();
            for (i, (pid, comm, libs)) in procs.iter().take(4).enumerate() {
                let libs = libs.get(..libs.len().min(4)).unwrap_or_default();
                let extra = if i == 0 {
                    usize::from(*extra_libs % 3)
                } else {
                    0
                };
                let comm: String = comm
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .take(16)
                    .collect();
                text.push_str(&format!(
                    "{pid:x} {:x} {comm}\n",
                    libs.len().saturating_add(extra)
                ));
                for (start, end, path) in libs {
                    let path: String = path.chars().filter(|c| *c != '\n').take(32).collect();
                    text.push_str(&format!("{start:x} {end:x} {path}\n"));
                }
            }
            p.extend_from_slice(text.as_bytes());
            p.push(0);
            (opt_id::PROCMAPS, p)
        }
        TypedOption::TimeShift {
            peer,
            flags,
            cpus,
            fractions,
        } => {
            put_n(&mut p, e, *peer, 8);
            put_n(&mut p, e, u64::from(*flags), 4);
            let cpus = cpus.get(..cpus.len().min(4)).unwrap_or_default();
            put_n(&mut p, e, cpus.len() as u64, 4);
            for samples in cpus {
                let samples = samples.get(..samples.len().min(8)).unwrap_or_default();
                put_n(&mut p, e, samples.len() as u64, 4);
                for (t, _, _) in samples {
                    put_n(&mut p, e, *t, 8);
                }
                for (_, off, _) in samples {
                    put_n(&mut p, e, *off, 8);
                }
                for (_, _, scale) in samples {
                    put_n(&mut p, e, *scale, 8);
                }
            }
            if *fractions {
                for samples in cpus {
                    for _ in samples.iter().take(8) {
                        put_n(&mut p, e, 0, 8);
                    }
                }
            }
            (opt_id::TIME_SHIFT, p)
        }
        TypedOption::Guest {
            name,
            trace_id,
            vcpus,
        } => {
            p.extend(name.bytes().filter(|b| *b != 0).take(16));
            p.push(0);
            put_n(&mut p, e, *trace_id, 8);
            let vcpus = vcpus.get(..vcpus.len().min(8)).unwrap_or_default();
            put_n(&mut p, e, vcpus.len() as u64, 4);
            for (cpu, pid) in vcpus {
                put_n(&mut p, e, u64::from(*cpu), 4);
                put_n(&mut p, e, u64::from(*pid), 4);
            }
            (opt_id::GUEST, p)
        }
        TypedOption::Tsc2Nsec {
            mult,
            shift,
            offset,
        } => {
            put_n(&mut p, e, u64::from(*mult), 4);
            put_n(&mut p, e, u64::from(*shift), 4);
            put_n(&mut p, e, *offset, 8);
            (opt_id::TSC2NSEC, p)
        }
    }
}

/// An extra event system: (system, event name, id, extra fields as (offset, size)).
pub type EventSystem = (String, String, u16, Vec<(u8, u8)>);

/// A trace-cmd file model, written through [`tw::Builder`].
#[derive(Arbitrary, Debug)]
pub struct TracecmdModel {
    /// Version 7 (else 6).
    pub v7: bool,
    /// v7 compression: 0 none, 1 zstd, 2 zlib.
    pub compression: u8,
    /// Big-endian.
    pub big_endian: bool,
    /// 4-byte longs.
    pub long4: bool,
    /// Page size: `None` 4096, else 2^(10 + n % 6) (other values come from mutations).
    pub page_shift: Option<u8>,
    /// Keep the builder's sound top buffer.
    pub keep_data: bool,
    /// CPUs of the top buffer (cpu id, data).
    pub cpus: Vec<(u8, CpuData)>,
    /// An instance buffer (name).
    pub instance: Option<String>,
    /// Extra options (id, payload).
    pub options: Vec<(u16, Vec<u8>)>,
    /// Options with a payload of their own layout.
    pub typed_options: Vec<TypedOption>,
    /// Drop the builder's default options.
    pub drop_options: bool,
    /// CPU count written (`None`: the number of top-buffer CPUs).
    pub ncpus: Option<u8>,
    /// trace-cmd < 3.2 compressed size quirk.
    pub quirk_short4: bool,
    /// Pages per compressed chunk.
    pub pages_per_chunk: u8,
    /// An extra event system: (system, event name, id, extra fields).
    pub system: Option<EventSystem>,
    /// Replace header_page text.
    pub header_page: Option<Vec<u8>>,
    /// Text appended to kallsyms, printk, cmdlines.
    pub texts: Option<(String, String, String)>,
    /// Latency text instead of flyrecord data.
    pub latency: Option<Vec<u8>>,
    /// Clock name.
    pub clock: Option<String>,
    /// Changes after writing.
    pub mutations: Vec<Mutation>,
}

/// The bytes of a structured trace-cmd input.
pub fn render_tracecmd(data: &[u8]) -> Option<Vec<u8>> {
    tracecmd_build(data).map(|(_, bytes)| bytes)
}

/// What one CPU's data holds: (buffer, cpu, events, pages).
pub type CpuCounts = (String, u32, u64, u64);

/// (events, pages) of ring pages built from `pages`, when every page is a well-formed
/// page a reader must walk as written: no raw bytes or bare headers, no patches, no commit
/// or missed-events override, data events with a payload (4-byte multiple when forced to
/// `type_len 0`), paddings of a 4-byte multiple of at least 4 with a non-zero delta, and
/// data that fits the page.
pub(crate) fn ring_counts(pages: &[rw::PageBuilder], ps: u32, long: u8) -> Option<(u64, u64)> {
    let mut events = 0u64;
    for p in pages {
        if !p.patches.is_empty() || p.commit.is_some() || p.missed.is_some() {
            return None;
        }
        for it in &p.items {
            match it {
                rw::Item::Event { payload, .. } if !payload.is_empty() => {
                    events = events.checked_add(1)?
                }
                rw::Item::LongEvent { payload, .. }
                    if !payload.is_empty() && payload.len() % 4 == 0 =>
                {
                    events = events.checked_add(1)?
                }
                rw::Item::Padding { delta, len }
                    if *delta & ((1 << 27) - 1) != 0 && *len >= 4 && *len % 4 == 0 => {}
                rw::Item::TimeExtend { .. } | rw::Item::TimeStamp { .. } => {}
                _ => return None,
            }
        }
        let used = p
            .data(Endian::Little)
            .len()
            .checked_add(8)?
            .checked_add(usize::from(long))?;
        if used > usize::try_from(ps).ok()? {
            return None;
        }
    }
    Some((events, u64::try_from(pages.len()).ok()?))
}

/// Checks a trace-cmd file and asserts that every CPU of every buffer holds the events and
/// pages the model wrote (`want`, from [`tracecmd_build`]). A CPU without data (no page)
/// may be left out of the summary.
pub fn tracecmd_differential(bytes: &[u8], want: &[CpuCounts]) {
    let opts = fuzz_options(Some(crate::formats::tracecmd::FORMAT));
    let got: Vec<CpuCounts> = crate::formats::tracecmd::summarize(bytes, &opts)
        .into_iter()
        .map(|c| (c.buffer, c.cpu, c.events, c.pages))
        .filter(|c| c.3 > 0)
        .collect();
    let want: Vec<CpuCounts> = want.iter().filter(|c| c.3 > 0).cloned().collect();
    assert!(
        got == want,
        "per-CPU (buffer, cpu, events, pages) read {got:?}, written {want:?}"
    );
}

/// A trace-cmd model's bytes, and the per-CPU counts when the model is written without
/// changes and every buffer's CPUs are 0..n-1 with n the CPU count the file gives.
pub fn tracecmd_build(data: &[u8]) -> Option<(Option<Vec<CpuCounts>>, Vec<u8>)> {
    let m = TracecmdModel::arbitrary_take_rest(Unstructured::new(data)).ok()?;
    // Per top-buffer CPU: (events, pages) when its data is well-formed.
    let mut top_counts: Vec<Option<(u64, u64)>> = Vec::new();
    let comp = match m.compression % 3 {
        0 => tw::Compression::None,
        1 => tw::Compression::Zstd,
        _ => tw::Compression::Zlib,
    };
    let mut b = tw::Builder::new(if m.v7 { 7 } else { 6 }, comp);
    let endian = if m.big_endian {
        Endian::Big
    } else {
        Endian::Little
    };
    let long: u8 = if m.long4 { 4 } else { 8 };
    let ps: u32 = match m.page_shift {
        Some(n) => 1u32 << (10 + u32::from(n % 6)),
        None => 4096,
    };
    b.endian = endian;
    b.long_size = long;
    b.page_size = ps;
    b.header_page = tw::header_page_text(u32::from(long), ps);
    if let Some(h) = &m.header_page {
        b.header_page = cap(h.clone(), 1024);
    }
    if !m.keep_data || m.big_endian || m.long4 || ps != 4096 {
        b.buffers.truncate(0);
        b.buffers.push(tw::BufferSpec {
            name: String::new(),
            cpus: Vec::new(),
        });
    } else if let Some(top) = b.buffers.first() {
        // The builder's default pages: three events each.
        top_counts = top.cpus.iter().map(|_| Some((3, 1))).collect();
    }
    let page_len = usize::try_from(ps).unwrap_or(4096);
    for (cpu, d) in m.cpus.iter().take(4) {
        let (bytes, counts) = match d {
            CpuData::Pages(p) => {
                let pages = bound_pages(p, ps);
                (
                    rw::pages(&pages, ps, long, endian),
                    ring_counts(&pages, ps, long),
                )
            }
            CpuData::Sound(n) => (
                tw::page(
                    ps,
                    long,
                    endian,
                    1_000_000,
                    &vec![(tw::DEFAULT_EVENT_ID, 12); usize::from(*n % 16)],
                ),
                Some((u64::from(*n % 16), 1)),
            ),
            CpuData::Empty => (Vec::new(), Some((0, 0))),
            CpuData::Raw(r) => (cap(r.clone(), page_len), None),
        };
        if let Some(top) = b.buffers.first_mut() {
            top.cpus.push((u32::from(*cpu % 8), bytes));
            top_counts.push(counts);
        }
    }
    if let Some(name) = &m.instance {
        let name: String = name.chars().take(16).collect();
        if m.keep_data && !m.big_endian && !m.long4 && ps == 4096 {
            b = b.with_instance(&name);
        } else {
            b.buffers.push(tw::BufferSpec {
                name,
                cpus: Vec::new(),
            });
        }
    }
    if m.drop_options {
        b.options.clear();
    }
    for o in m.typed_options.iter().take(4) {
        b.options.push(typed_option(o, endian));
    }
    for (id, payload) in m.options.iter().take(6) {
        b.options.push((*id % 32, cap(payload.clone(), 256)));
    }
    match m.ncpus {
        Some(n) => b.ncpus = u32::from(n % 16),
        None => {
            if let Some(top) = b.buffers.first() {
                b.ncpus = u32::try_from(top.cpus.len()).unwrap_or(u32::MAX);
            }
        }
    }
    b.quirk_short4 = m.quirk_short4;
    b.pages_per_chunk = usize::from(m.pages_per_chunk % 12).max(1);
    if let Some((sys, name, id, fields)) = &m.system {
        let fields: Vec<(String, u32, u32)> = fields
            .iter()
            .take(6)
            .enumerate()
            .map(|(i, (o, s))| (format!("f{i}"), u32::from(*o), u32::from(*s)))
            .collect();
        let refs: Vec<(&str, u32, u32)> = fields
            .iter()
            .map(|(n, o, s)| (n.as_str(), *o, *s))
            .collect();
        let sys: String = sys.chars().take(16).collect();
        let name: String = name.chars().take(16).collect();
        b.systems
            .push((sys, vec![tw::format_text(&name, u32::from(*id), &refs)]));
    }
    if let Some((k, p, c)) = &m.texts {
        b.kallsyms.extend(k.bytes().take(256));
        b.printk.extend(p.bytes().take(256));
        b.cmdlines.extend(c.bytes().take(256));
    }
    if let Some(l) = &m.latency {
        b.latency = Some(cap(l.clone(), 1024));
    }
    if let Some(c) = &m.clock {
        b.clock = c.chars().take(16).collect();
    }
    let want = tracecmd_expected(&m, &b, &top_counts);
    let (mut bytes, _) = b.build();
    apply(&mut bytes, &m.mutations);
    Some((want, bytes))
}

/// The per-CPU counts of a built model (see [`tracecmd_build`]): `None` when the model
/// changes the file after writing, replaces the header_page text, writes extra options,
/// latency text, an event system or a clock with a broken name, or when a buffer's CPUs
/// are not 0..n-1 with n the file's CPU count.
pub(crate) fn tracecmd_expected(
    m: &TracecmdModel,
    b: &tw::Builder,
    top_counts: &[Option<(u64, u64)>],
) -> Option<Vec<CpuCounts>> {
    // A system or event name that is empty or holds a NUL or line break breaks the
    // NUL-terminated / line-based metadata around it on purpose.
    let plain = |s: &str| {
        let s: String = s.chars().take(16).collect();
        !s.is_empty() && !s.contains(['\0', '\n'])
    };
    let system_ok = m
        .system
        .as_ref()
        .is_none_or(|(sys, name, _, _)| plain(sys) && plain(name));
    // The clock name is a NUL-terminated string of the buffer records.
    let clock_ok = m.clock.as_ref().is_none_or(|c| {
        let c: String = c.chars().take(16).collect();
        !c.contains(['\0', '\n'])
    });
    if !m.mutations.is_empty()
        || m.header_page.is_some()
        || !m.options.is_empty()
        || !m.typed_options.is_empty()
        || m.latency.is_some()
        || !system_ok
        || !clock_ok
    {
        return None;
    }
    let mut want = Vec::new();
    for (i, buf) in b.buffers.iter().enumerate() {
        let ids_ok = buf
            .cpus
            .iter()
            .enumerate()
            .all(|(k, (cpu, _))| u32::try_from(k).is_ok_and(|k| k == *cpu));
        // An instance needs a name of its own (trace-cmd never writes an empty one).
        let named = i == 0 || !(buf.name.is_empty() || buf.name.contains('\0'));
        if !ids_ok || !named || u32::try_from(buf.cpus.len()).ok()? != b.ncpus {
            return None;
        }
        for (k, (cpu, _)) in buf.cpus.iter().enumerate() {
            let (events, pages) = if i == 0 {
                (*top_counts.get(k)?)?
            } else {
                // An instance from `with_instance`: two events on one page.
                (2, 1)
            };
            want.push((buf.name.clone(), *cpu, events, pages));
        }
    }
    Some(want)
}

/// Structured trace-cmd: model → writer → mutations → [`run_tracecmd`]; a file written
/// without changes is also compared with the model's per-CPU counts
/// ([`tracecmd_differential`]).
pub fn run_tracecmd_structured(data: &[u8]) {
    if let Some((want, b)) = tracecmd_build(data) {
        run_tracecmd(&b);
        if let Some(want) = want {
            tracecmd_differential(&b, &want);
        }
    }
}
