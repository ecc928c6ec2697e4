//! GDB tracepoint file (tfile) validator.
//!
//! A tfile is what GDB's `tsave` writes: the 8-byte magic `\x7fTRACE0\n`, a text definition
//! section (register block size, trace status, tracepoint and trace state variable
//! definitions, the XML target description) ended by an empty line, then the raw trace frames
//! of gdbserver's buffer in the target's byte order, ended by a 16-bit tracepoint number 0.
//!
//! Layout: [`decode`] (`text` the header and definitions, `tdesc` the target description,
//! `frames` the frames) builds the [`model`]; [`lint`] checks relations over it; [`rules`]
//! declares the `GT` rules. `writer` builds tfiles byte by byte (for tests, benchmarks and
//! fuzzing; feature `testkit`).
#![deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::panic
)]

pub mod decode;
pub mod lint;
pub mod model;
pub mod repair;
pub mod rules;
#[cfg(any(test, feature = "testkit"))]
pub mod writer;

use crate::detect::Format;
use crate::finding::Sink;
use crate::formats::spec::{FileCheck, FormatSpec};
use crate::input::{FileSource, Windowed};
use crate::map::MapNode;
use crate::options::CheckOptions;
use crate::reader::Endian;
use decode::frames::{Probe, Step, Walker};
use decode::tdesc::TdescInfo;
use model::{Block, DescLine, Description, FieldValue, Frame, FramesEnd};

/// Frames shown as children of the frames node of the map.
const MAX_FRAME_NODES: usize = 16;
/// Blocks shown per frame node.
const MAX_BLOCK_NODES: usize = 16;
/// Tracepoints / variables shown as children of the description node.
const MAX_DEF_NODES: usize = 64;
/// Frames walked per byte order when choosing the byte order.
const PROBE_FRAMES: u64 = 256;

/// The GDB tracepoint file format.
pub const FORMAT: Format = Format::new("gdb-tfile");

/// The magic a tfile starts with.
pub const MAGIC: &[u8] = b"\x7fTRACE0\n";

/// The format table's entry (`formats::FORMATS`).
pub static SPEC: FormatSpec = FormatSpec {
    format: FORMAT,
    aliases: &["gdb", "tfile"],
    family: rules::FAMILY,
    rules: &[rules::RULES],
    magics: &[MAGIC],
    extensions: &["tf"],
    bytes: Some(check),
    file: Some(check_open),
    stream: None,
    dir: None,
    corpus: "gdb",
    repair: Some(repair_tfile),
};

/// The repair entry of the format table: the definitions and the byte order as `check` reads
/// them, then [`repair::frames`].
fn repair_tfile(
    subject: crate::formats::spec::Subject<'_>,
    opts: &CheckOptions,
    _ropts: &crate::ledger::RepairOptions,
) -> crate::ledger::Verdict {
    use crate::ledger::{Refusal, Verdict};
    let crate::formats::spec::Subject::Bytes(data) = subject else {
        return Verdict::Healthy;
    };
    let mut sink = Sink::new(opts.limits.max_findings);
    let refuse = |why: &str| {
        Verdict::Refuse(Refusal {
            damage: "tfile cut inside its definition section".into(),
            reason: why.into(),
            option: None,
        })
    };
    if decode::text::decode_header(data, &mut sink).is_none() {
        return refuse("the magic is missing or damaged");
    }
    let d = decode::text::decode_description(data, opts, &mut sink);
    let td = decode::tdesc::check(&d, opts, &mut sink);
    let Some(start) = d.binary_start else {
        return refuse("the definitions end without their empty line: the tracepoint definitions GDB needs are gone");
    };
    let fast: Vec<i16> = d
        .tracepoints
        .iter()
        .filter(|t| t.fast.is_some())
        .filter_map(|t| i16::try_from(t.num).ok())
        .collect();
    let endian = choose_endian(
        &mut Windowed::slice(data),
        start,
        &d,
        &td,
        &fast,
        opts,
        &mut sink,
    );
    repair::frames(
        data,
        start,
        endian,
        d.register_size(),
        fast,
        opts.limits.max_findings,
    )
}

/// Bytes read at a time from a tfile on disk.
pub const WINDOW: u64 = 1 << 20;

/// Reads an open tfile by positioned reads, one window at a time, whatever the load mode: the
/// frames are walked once in file order and a mapping would keep every page it touched.
fn check_open(
    file: &std::fs::File,
    len: u64,
    opts: &CheckOptions,
    sink: &mut Sink,
) -> std::io::Result<FileCheck> {
    if len == 0 {
        return Ok(FileCheck::Whole);
    }
    Ok(FileCheck::Done(Some(check_file(
        file, len, WINDOW, opts, sink,
    ))))
}

/// Checks an open tfile of `len` bytes read `window` bytes at a time: memory stays at a
/// window (and the definitions) whatever the file size.
pub fn check_file(
    file: &std::fs::File,
    len: u64,
    window: u64,
    opts: &CheckOptions,
    sink: &mut Sink,
) -> MapNode {
    let src = FileSource::new(file, len);
    let map = check_in(&mut Windowed::source(&src, window), opts, sink);
    if let Some(e) = src.take_error() {
        sink.report(
            &crate::rules::IO_ERROR,
            0..0,
            format!("reading the file failed: {e}"),
        );
    }
    map
}

/// Checks one tfile.
pub fn check(data: &[u8], opts: &CheckOptions, sink: &mut Sink) -> MapNode {
    check_in(&mut Windowed::slice(data), opts, sink)
}

/// Checks one tfile read through `src`.
pub fn check_in(src: &mut Windowed<'_>, opts: &CheckOptions, sink: &mut Sink) -> MapNode {
    let len = src.len();
    let mut root = MapNode::new("gdb tfile", 0, len);
    if decode::text::decode_header(src.get(0, 8), sink).is_none() {
        root.push(MapNode::new("header", 0, len.min(8)).value("magic", "invalid"));
        return root;
    }
    root.push(
        MapNode::new("header", 0, 8)
            .value("magic", "\\x7fTRACE0\\n")
            .value("version", 0),
    );
    let d = decode::text::decode_description_in(src, opts, sink);
    let td = decode::tdesc::check(&d, opts, sink);
    lint::check_description(&d, &td, sink);
    lint::check_program(&d, opts.program.as_deref(), sink);
    root.push(description_map(&d, &td));
    let Some(start) = d.binary_start else {
        return root;
    };
    let fast: Vec<i16> = d
        .tracepoints
        .iter()
        .filter(|t| t.fast.is_some())
        .filter_map(|t| i16::try_from(t.num).ok())
        .collect();
    let endian = choose_endian(src, start, &d, &td, &fast, opts, sink);
    let mut walker = Walker::new(src, start, endian, d.register_size(), fast.clone());
    walker.defined = d
        .tracepoints
        .iter()
        .filter_map(|t| i16::try_from(t.num).ok())
        .collect();
    let mut frame = Frame::default();
    let mut fl = lint::FrameLint::new(&d);
    let mut kept = Vec::new();
    let end = loop {
        match walker.next(&mut frame, sink) {
            Some(Step::Frame) => {
                fl.frame(&frame, sink);
                if kept.len() < MAX_FRAME_NODES {
                    kept.push(frame_map(&frame));
                }
            }
            Some(Step::End(e)) => break e,
            None => break FramesEnd::Stopped { offset: len },
        }
    };
    let frames_end = match &end {
        FramesEnd::Marker { span, .. } => span.start,
        FramesEnd::Stopped { offset } => *offset,
    };
    let frames_span = start..frames_end.max(start);
    let rsize = d.register_size().unwrap_or(0);
    for inf in &walker.inferred {
        if fast.contains(&inf.tpnum) {
            let r0 = inf.first.start.saturating_add(6);
            sink.push(
                sink.make(
                    &rules::FAST_TRACEPOINT_REGISTER_BLOCK,
                    r0..r0.saturating_add(1).saturating_add(inf.size),
                    format!(
                        "{} frame(s) of fast tracepoint {} hold {}-byte register blocks, but R says 0x{rsize:x} ({rsize}); they were walked with the inferred size",
                        inf.frames, inf.tpnum, inf.size
                    ),
                )
                .note("written by gdbserver's in-process agent (libinproctrace.so, verified with 13.1), which stores its own register layout; GDB 13.1 finds these frames and shows their registers, but reading their collected memory (tdump, print) fails with \"Unknown block type\"")
                .help(format!("for GDB, such a file opens with the R line changed to `R {:x}`", inf.size)),
            );
        }
    }
    walker
        .block_errors
        .finish_at(sink, frames_span.clone(), |n| {
            format!(
                "{n} more frame(s) whose blocks could not be walked were not reported one by one"
            )
        });
    fl.summarize(sink, frames_span.clone());
    let had_errors =
        fl.untiled > 0 || matches!(end, FramesEnd::Stopped { .. }) || fl.counts.static_data > 0;
    lint::check_totals(
        &d,
        &lint::WalkResult {
            lint: &fl,
            end: &end,
            had_errors,
            fast: &fast,
            frames_span: frames_span.clone(),
            file_len: len,
        },
        sink,
    );
    let mut fnode = MapNode::new("frames", start, frames_end.saturating_sub(start))
        .value("count", fl.frames)
        .value("bytes", fl.bytes)
        .value("byte order", walker.endian())
        .value("R blocks", fl.counts.registers)
        .value("M blocks", fl.counts.memory)
        .value("V blocks", fl.counts.tsv);
    if fl.counts.static_data > 0 {
        fnode.set("S blocks", fl.counts.static_data);
    }
    if fl.untiled > 0 {
        fnode.set("frames not walked", fl.untiled);
    }
    let mut tps: Vec<_> = fl.per_tp.iter().collect();
    tps.sort_unstable_by_key(|(k, _)| **k);
    for (tp, s) in tps.iter().take(MAX_DEF_NODES) {
        fnode.set(
            format!("tracepoint {tp}"),
            format!("{} frame(s), {} byte(s)", s.frames, s.bytes),
        );
    }
    if fl.frames > kept.len() as u64 {
        fnode.set("frames shown", kept.len());
    }
    fnode.children = kept;
    root.push(fnode);
    match &end {
        FramesEnd::Marker {
            span,
            tail,
            tail_zero,
            ..
        } => root.push(
            MapNode::new("end marker", span.start, len.saturating_sub(span.start))
                .value("tracepoint", 0)
                .value("padding bytes", tail)
                .value("padding all zero", tail_zero),
        ),
        FramesEnd::Stopped { offset } => root
            .push(MapNode::new("end marker", *offset, 0).value("missing", "the walk stopped here")),
    }
    root
}

fn other(e: Endian) -> Endian {
    match e {
        Endian::Little => Endian::Big,
        Endian::Big => Endian::Little,
    }
}

fn choose_endian(
    src: &mut Windowed<'_>,
    start: u64,
    d: &Description,
    td: &TdescInfo,
    fast: &[i16],
    opts: &CheckOptions,
    sink: &mut Sink,
) -> Endian {
    let no_frames = src.get(start, 2).starts_with(&[0, 0]);
    let len = src.len();
    let nums: std::collections::HashSet<u64> = d.tracepoints.iter().map(|t| t.num).collect();
    let defined = |n: i16| u64::try_from(n).is_ok_and(|n| nums.contains(&n));
    let rsize = d.register_size();
    let mut run = |e: Endian| -> Probe {
        decode::frames::probe(src, start, e, rsize, fast, &defined, PROBE_FRAMES)
    };
    let span = start..start.saturating_add(6).min(len);
    let given = opts
        .endian
        .map(|e| (e, "given by the caller".to_string()))
        .or_else(|| {
            td.architecture.as_deref().and_then(|a| {
                decode::tdesc::arch_endian(a).map(|e| {
                    (
                        e,
                        format!("implied by the target description architecture `{a}`"),
                    )
                })
            })
        });
    if no_frames {
        return given.map(|(e, _)| e).unwrap_or(Endian::Little);
    }
    if let Some((e, why)) = given {
        let p = run(e);
        let q = run(other(e));
        sink.report(
            &rules::BYTE_ORDER,
            span.clone(),
            format!("frames read as {e}, {why}"),
        );
        if !p.clean() && q.clean() {
            sink.push(
                sink.make(
                    &rules::BYTE_ORDER_CONFLICT,
                    span,
                    format!(
                        "the frames do not walk cleanly as {e} ({why}) but do as {}",
                        other(e)
                    ),
                )
                .help("check the byte order of the target that recorded the trace (--endian)"),
            );
        }
        return e;
    }
    let le = run(Endian::Little);
    let be = run(Endian::Big);
    let (e, p, q) = if be.key() > le.key() {
        (Endian::Big, be, le)
    } else {
        (Endian::Little, le, be)
    };
    let msg = match (p.clean(), q.clean()) {
        (true, true) => format!("the file does not record its byte order and the frames walk cleanly in both; assumed {e}"),
        (true, false) => format!("the file does not record its byte order; only {e} walks the frames cleanly, so that was used"),
        _ => format!(
            "the file does not record its byte order and neither order walks the frames cleanly; {e} fits better ({} of {} probed frames good vs {} of {})",
            p.good, p.frames, q.good, q.frames
        ),
    };
    sink.push(
        sink.make(&rules::BYTE_ORDER, span, msg).help(
            "pass the byte order of the traced target explicitly (--endian) to skip the guess",
        ),
    );
    e
}

fn description_map(d: &Description, td: &TdescInfo) -> MapNode {
    let mut n = MapNode::new(
        "definitions",
        d.span.start,
        d.span.end.saturating_sub(d.span.start),
    );
    let count = |k: &str| d.lines.iter().filter(|l| l.kind() == k).count();
    n.set("lines", d.lines.len());
    for k in ["R", "status", "tp", "tsv", "tdesc", "unknown"] {
        let c = count(k);
        if c > 0 || k != "unknown" {
            n.set(format!("{k} lines"), c);
        }
    }
    match d.register_size() {
        Some(r) => n.set("register block size", format!("0x{r:x} ({r})")),
        None => n.set("register block size", "missing"),
    }
    n.set("tdesc bytes", d.tdesc.len());
    if let Some(a) = &td.architecture {
        n.set("architecture", a);
    }
    if let Some(b) = td.register_bytes {
        n.set("tdesc register bytes", b);
    }
    n.set("tracepoints", d.tracepoints.len());
    n.set("trace state variables", d.tsvs.len());
    match &d.binary_start {
        Some(b) => n.set("frames start", format!("0x{b:x}")),
        None => n.set("frames start", "missing (no empty line)"),
    }
    let r_lines = d.lines.iter().filter_map(|l| match l {
        DescLine::Register { span, value } => Some((span, value)),
        _ => None,
    });
    for (span, value) in r_lines.take(MAX_DEF_NODES) {
        let mut c = MapNode::new("R", span.start, span.end.saturating_sub(span.start));
        if let Some(v) = value {
            c.set("size", v);
        }
        n.push(c);
    }
    for st in d.statuses.iter().take(MAX_DEF_NODES) {
        let mut c = MapNode::new(
            "status",
            st.span.start,
            st.span.end.saturating_sub(st.span.start),
        );
        if let Some(r) = st.running {
            c.set("running", u8::from(r));
        }
        if let Some(r) = &st.reason {
            c.set("stop reason", r.kind.name());
            if let Some(tp) = r.tp {
                c.set("stop tracepoint", tp);
            }
            if let Some(t) = &r.text {
                c.set("stop text", String::from_utf8_lossy(t));
            }
        }
        for f in &st.fields {
            match &f.value {
                FieldValue::Num(v) => c.set(f.key.name(), v),
                FieldValue::Text(t) => c.set(f.key.name(), String::from_utf8_lossy(t)),
                FieldValue::Invalid => c.set(f.key.name(), "invalid"),
            }
        }
        n.push(c);
    }
    for t in d.tsvs.iter().take(MAX_DEF_NODES) {
        n.push(
            MapNode::new(
                format!("tsv {}", t.num),
                t.span.start,
                t.span.end.saturating_sub(t.span.start),
            )
            .value("name", format!("${}", String::from_utf8_lossy(&t.name)))
            .value("initial", t.initial)
            .value("builtin", t.builtin),
        );
    }
    for t in d.tracepoints.iter().take(MAX_DEF_NODES) {
        let end = t
            .sources
            .iter()
            .map(|s| s.span.end)
            .chain(t.stats.iter().map(|s| s.span.end))
            .fold(t.span.end, u64::max);
        let mut c = MapNode::new(
            format!("tracepoint {}", t.num),
            t.span.start,
            end.saturating_sub(t.span.start),
        )
        .value("address", format!("0x{:x}", t.addr))
        .value("enabled", t.enabled)
        .value("step", t.step)
        .value("pass", t.pass)
        .value("actions", t.actions)
        .value("step actions", t.step_actions)
        .value("source lines", t.sources.len());
        if let Some(f) = t.fast {
            c.set("fast", f);
        }
        if let Some(l) = t.cond_len {
            c.set("condition bytes", l);
        }
        if let Some(v) = t.stats.last() {
            c.set("hits", String::from_utf8_lossy(&v.hits));
            c.set("usage", String::from_utf8_lossy(&v.usage));
        }
        n.push(c);
    }
    if let (Some(a), Some(b)) = (d.tdesc_lines.first(), d.tdesc_lines.last()) {
        let s = a.start.saturating_sub(6);
        n.push(
            MapNode::new("tdesc", s, b.end.saturating_sub(s))
                .value("lines", d.tdesc_lines.len())
                .value("bytes", d.tdesc.len())
                .value("valid", td.valid),
        );
    }
    n.children.sort_by_key(|c| c.offset);
    n
}

fn frame_map(f: &Frame) -> MapNode {
    let mut n = MapNode::new(
        format!("frame {}", f.index),
        f.span.start,
        f.span.end.saturating_sub(f.span.start),
    )
    .value("tracepoint", f.tpnum)
    .value("size", f.size)
    .value("blocks", f.counts.total());
    if !f.tiled {
        n.set("walked", false);
    }
    for b in f.blocks.iter().take(MAX_BLOCK_NODES) {
        let s = b.span();
        let mut c = MapNode::new(
            format!("{} block", b.letter()),
            s.start,
            s.end.saturating_sub(s.start),
        );
        match b {
            Block::Registers { .. } => {
                c.set("bytes", s.end.saturating_sub(s.start).saturating_sub(1))
            }
            Block::Memory { addr, len, .. } => {
                c.set("address", format!("0x{addr:x}"));
                c.set("length", len);
            }
            Block::Tsv { num, value, .. } => {
                c.set("tsv", num);
                c.set("value", value);
            }
            Block::Static { len, .. } => c.set("length", len),
        }
        n.push(c);
    }
    n
}

/// Number of frames a check found, read from the map `check` returned.
pub fn frame_count(map: &MapNode) -> Option<u64> {
    map.children
        .iter()
        .find(|c| c.label == "frames")
        .and_then(|c| c.values.iter().find(|(k, _)| k == "count"))
        .and_then(|(_, v)| v.parse().ok())
}
