//! The structure-aware model of GDB tracepoint files: an `arbitrary` model written by the format's
//! writer, rendered and run.

use super::mutation::*;
use crate::check::check_bytes;
use crate::finding::Sink;
use crate::formats::gdb::writer as gw;
use crate::fuzzing::invariants::*;
use crate::fuzzing::raw::*;
use crate::map::MapNode;
use crate::reader::Endian;
use arbitrary::{Arbitrary, Unstructured};

/// A tracepoint number biased towards the ones the sample defines.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum TpNum {
    /// Tracepoint 2 (defined by the sample).
    Two,
    /// Tracepoint 3.
    Three,
    /// Any number.
    Any(i16),
}

impl TpNum {
    fn get(self) -> i16 {
        match self {
            TpNum::Two => 2,
            TpNum::Three => 3,
            TpNum::Any(n) => n,
        }
    }
}

/// A frame block.
#[derive(Arbitrary, Clone, Debug)]
pub enum GdbBlock {
    /// Register block of the declared size.
    R,
    /// Register block of another size.
    RSized(u8),
    /// Memory block.
    M(u64, Vec<u8>),
    /// Memory block with a length field of its own.
    MLen(u64, u16, Vec<u8>),
    /// Trace state variable block.
    V(i32, i64),
    /// Raw bytes.
    Raw(Vec<u8>),
}

/// A frame.
#[derive(Arbitrary, Clone, Debug)]
pub struct GdbFrame {
    /// Tracepoint.
    pub tpnum: TpNum,
    /// Blocks.
    pub blocks: Vec<GdbBlock>,
    /// Size field written instead of the real size.
    pub size: Option<u32>,
}

/// A status reason.
#[derive(Arbitrary, Clone, Debug)]
pub enum Reason {
    /// `tnotrun:N`.
    NotRun(u16),
    /// `tstop:<hex note>:N`.
    Stop(String, u16),
    /// `tstop:N` (old form).
    StopOld(u16),
    /// `tfull:N`.
    Full(u16),
    /// `tpasscount:N`.
    PassCount(u16),
    /// `terror:<hex>:N`.
    Error(String, u16),
    /// `terror:<text>` with no number.
    ErrorBare(String),
    /// Anything.
    Raw(String),
}

/// A status line.
#[derive(Arbitrary, Clone, Debug)]
pub enum GdbStatus {
    /// Computed by the writer.
    Auto,
    /// No line.
    Omit,
    /// Built from parts.
    Parts {
        /// Running flag.
        running: bool,
        /// Reason.
        reason: Reason,
        /// (field index, value) pairs; the index picks a known field name.
        fields: Vec<(u8, u64)>,
        /// `notes:` hex text.
        notes: Option<String>,
    },
}

/// A `tp` line.
#[derive(Arbitrary, Clone, Debug)]
pub enum TpLine {
    /// `T` definition.
    T {
        /// Number.
        num: TpNum,
        /// Address.
        addr: u32,
        /// Enabled.
        enabled: bool,
        /// Step count.
        step: u16,
        /// Pass count.
        pass: u16,
        /// Fast tracepoint original size.
        fast: Option<u8>,
        /// Condition bytecode (length field, bytes).
        cond: Option<(u8, Vec<u8>)>,
    },
    /// `A`/`S` action.
    Action {
        /// While-stepping (`S`).
        stepping: bool,
        /// Number.
        num: TpNum,
        /// Address.
        addr: u32,
        /// Action kind and operands.
        kind: u8,
        /// Operands.
        a: u64,
        /// Operands.
        b: u16,
    },
    /// `Z` source string.
    Z {
        /// Number.
        num: TpNum,
        /// Address.
        addr: u32,
        /// 0 at, 1 cond, 2 cmd, other: unknown kind.
        kind: u8,
        /// Text.
        text: String,
    },
    /// Anything after `tp `.
    Raw(String),
}

/// A GDB tfile model, written through [`gw::Sample`].
#[derive(Arbitrary, Debug)]
pub struct GdbModel {
    /// Big-endian frames.
    pub big_endian: bool,
    /// `R` line: `None` keeps the sample's, else this value in hex.
    pub register_size: Option<u16>,
    /// Omit the `R` line.
    pub no_register_line: bool,
    /// Use a `tdesc` of this many lines of the sample's (all when `None`).
    pub tdesc_lines: Option<u8>,
    /// Extra `tdesc` lines.
    pub tdesc_extra: Vec<String>,
    /// Status line.
    pub status: GdbStatus,
    /// `tsv` lines: (number, initial, builtin, name).
    pub tsvs: Vec<(u16, i64, bool, String)>,
    /// Keep the sample's `tp` lines.
    pub keep_tps: bool,
    /// `tp` lines.
    pub tps: Vec<TpLine>,
    /// `tp V` statistics lines for (tracepoint, address).
    pub tp_stats: Vec<(u8, u32)>,
    /// Raw definition lines.
    pub extra_lines: Vec<Vec<u8>>,
    /// End the definitions with `\r\n` instead of `\n`.
    pub crlf_end: bool,
    /// Frames after the sample's.
    pub frames: Vec<GdbFrame>,
    /// How many of the sample's standard frames to keep (of 3).
    pub standard_frames: u8,
    /// End bytes: `None` = GDB's four zero bytes.
    pub end: Option<Vec<u8>>,
    /// Changes after writing.
    pub mutations: Vec<Mutation>,
}

pub(crate) fn hex(b: &[u8]) -> String {
    b.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) const STATUS_FIELDS: [&str; 10] = [
    "tframes",
    "tcreated",
    "tfree",
    "tsize",
    "circular",
    "disconn",
    "starttime",
    "stoptime",
    "username",
    "t",
];

pub(crate) fn status_line(
    running: bool,
    reason: &Reason,
    fields: &[(u8, u64)],
    notes: &Option<String>,
) -> String {
    let r = match reason {
        Reason::NotRun(n) => format!("tnotrun:{n:x}"),
        Reason::Stop(s, n) => format!("tstop:{}:{n:x}", hex(s.as_bytes())),
        Reason::StopOld(n) => format!("tstop:{n:x}"),
        Reason::Full(n) => format!("tfull:{n:x}"),
        Reason::PassCount(n) => format!("tpasscount:{n:x}"),
        Reason::Error(s, n) => format!("terror:{}:{n:x}", hex(s.as_bytes())),
        Reason::ErrorBare(s) => format!("terror:{s}"),
        Reason::Raw(s) => s.clone(),
    };
    let mut line = format!("{};{r}", u8::from(running));
    for (k, v) in fields.iter().take(12) {
        let name = STATUS_FIELDS
            .get(usize::from(*k) % STATUS_FIELDS.len())
            .copied()
            .unwrap_or("tframes");
        line.push_str(&format!(";{name}:{v:x}"));
    }
    if let Some(n) = notes {
        line.push_str(&format!(";notes:{}", hex(n.as_bytes())));
    }
    line
}

pub(crate) fn tp_line(t: &TpLine) -> String {
    match t {
        TpLine::T {
            num,
            addr,
            enabled,
            step,
            pass,
            fast,
            cond,
        } => {
            let mut s = format!(
                "T{:x}:{addr:x}:{}:{step:x}:{pass:x}",
                num.get(),
                if *enabled { 'E' } else { 'D' }
            );
            if let Some(f) = fast {
                s.push_str(&format!(":F{f:x}"));
            }
            if let Some((len, code)) = cond {
                s.push_str(&format!(":X{len:x},{}", hex(code)));
            }
            s
        }
        TpLine::Action {
            stepping,
            num,
            addr,
            kind,
            a,
            b,
        } => {
            let act = match kind % 4 {
                0 => format!("R{a:x}"),
                1 => format!("M-1,{a:x},{b:x}"),
                2 => format!("M{b:x},{a:x},8"),
                _ => format!("X{b:08X},{}", hex(&a.to_le_bytes())),
            };
            format!(
                "{}{:x}:{addr:x}:{act}",
                if *stepping { 'S' } else { 'A' },
                num.get()
            )
        }
        TpLine::Z {
            num,
            addr,
            kind,
            text,
        } => {
            let k = ["at", "cond", "cmd", "xyz"]
                .get(usize::from(*kind % 4))
                .copied()
                .unwrap_or("at");
            format!(
                "Z{:x}:{addr:x}:{k}:0:{:x}:{}",
                num.get(),
                text.len(),
                hex(text.as_bytes())
            )
        }
        TpLine::Raw(s) => s.clone(),
    }
}

pub(crate) fn gdb_block(b: &GdbBlock, rsize: usize) -> gw::SampleBlock {
    match b {
        GdbBlock::R => gw::SampleBlock::R(rsize),
        GdbBlock::RSized(n) => gw::SampleBlock::R(usize::from(*n)),
        GdbBlock::M(a, d) => gw::SampleBlock::M(*a, cap(d.clone(), 256)),
        GdbBlock::MLen(a, l, d) => gw::SampleBlock::MLen(*a, *l, cap(d.clone(), 256)),
        GdbBlock::V(n, v) => gw::SampleBlock::V(*n, *v),
        GdbBlock::Raw(r) => gw::SampleBlock::Raw(cap(r.clone(), 64)),
    }
}

/// The bytes of a structured GDB tfile input.
pub fn render_gdb(data: &[u8]) -> Option<Vec<u8>> {
    gdb_build(data).map(|(_, bytes)| bytes)
}

/// True when a GDB model writes a well-formed file whose frames a reader must find as
/// written: every definition line is one line, the definitions end with `\n`, the `R`
/// line is there, every frame has its real size, a tracepoint number other than 0 (the end
/// marker) and only blocks of their own size, and the file ends with GDB's end marker.
pub(crate) fn gdb_sound(m: &GdbModel) -> bool {
    let one_line = |s: &str| !s.contains(['\n', '\r']);
    let status = match &m.status {
        GdbStatus::Parts {
            reason: Reason::ErrorBare(s) | Reason::Raw(s),
            ..
        } => one_line(s),
        _ => true,
    };
    let tps = m.tps.iter().take(16).all(|t| match t {
        TpLine::Raw(s) => one_line(s),
        _ => true,
    });
    let rsize = m.register_size.map_or(32, usize::from);
    let frames = m.frames.iter().take(16).all(|f| {
        f.size.is_none()
            && f.tpnum.get() != 0
            && f.blocks.iter().take(8).all(|b| match b {
                GdbBlock::RSized(n) => rsize == usize::from(*n),
                GdbBlock::MLen(_, l, d) => usize::from(*l) == d.len().min(256),
                GdbBlock::Raw(_) => false,
                _ => true,
            })
    });
    m.mutations.is_empty()
        && m.end.is_none()
        && !m.no_register_line
        && !m.crlf_end
        && m.extra_lines.is_empty()
        && m.tdesc_extra.iter().take(8).all(|t| one_line(t))
        && status
        && tps
        && frames
}

/// Checks a GDB tfile written from a sound model (see [`gdb_sound`]) with the model's
/// byte order and asserts that the frames and their blocks are where the writer put them.
pub fn gdb_differential(built: &gw::Built, endian: Endian) {
    let mut opts = fuzz_options(Some(crate::formats::gdb::FORMAT));
    opts.endian = Some(endian);
    let mut sink = Sink::with_limits(&opts.limits);
    let (_, map) = check_bytes(&built.bytes, &opts, &mut sink);
    let Some(frames) = find_node(&map, "frames") else {
        panic!("a well-formed GDB tfile has no frames node: {map:?}");
    };
    let want_count = built.frames.len() as u64;
    assert_eq!(
        crate::formats::gdb::frame_count(&map),
        Some(want_count),
        "frames read from a GDB tfile differ from the frames written"
    );
    assert_eq!(frames.offset, built.frames_start, "frames start elsewhere");
    let nodes: Vec<&MapNode> = frames
        .children
        .iter()
        .filter(|c| c.label.starts_with("frame "))
        .collect();
    for (i, (node, (span, blocks))) in nodes
        .iter()
        .zip(built.frames.iter().zip(built.blocks.iter()))
        .enumerate()
    {
        assert_eq!(
            (node.offset, node.offset.saturating_add(node.size)),
            (span.start, span.end),
            "frame {i} read at another span than written"
        );
        let got: Vec<(u64, u64)> = node
            .children
            .iter()
            .map(|b| (b.offset, b.offset.saturating_add(b.size)))
            .collect();
        let want: Vec<(u64, u64)> = blocks.iter().take(16).map(|b| (b.start, b.end)).collect();
        assert!(
            got == want,
            "blocks of frame {i} read as {got:?}, written as {want:?}"
        );
    }
}

pub(crate) fn find_node<'a>(n: &'a MapNode, label: &str) -> Option<&'a MapNode> {
    if n.label == label {
        return Some(n);
    }
    n.children.iter().find_map(|c| find_node(c, label))
}

/// The writer's record of a sound GDB model's file, and the byte order it was written in.
pub type GdbWritten = (gw::Built, Endian);

/// A GDB model's bytes, and the writer's record of them when the model is sound.
pub fn gdb_build(data: &[u8]) -> Option<(Option<GdbWritten>, Vec<u8>)> {
    let m = GdbModel::arbitrary_take_rest(Unstructured::new(data)).ok()?;
    let sound = gdb_sound(&m);
    let mut s = gw::Sample::new(usize::from(m.standard_frames % 4));
    if m.big_endian {
        s.endian = Endian::Big;
    }
    if let Some(r) = m.register_size {
        s.register_line = Some(format!("{r:x}"));
        s.register_size = usize::from(r);
        for f in &mut s.frames {
            *f = gw::Sample::standard_frame(f.tpnum, usize::from(r), 0);
        }
    }
    if m.no_register_line {
        s.register_line = None;
    }
    if let Some(n) = m.tdesc_lines {
        s.tdesc.truncate(usize::from(n));
    }
    s.tdesc.extend(m.tdesc_extra.iter().take(8).cloned());
    s.status = match &m.status {
        GdbStatus::Auto => gw::StatusLine::Auto,
        GdbStatus::Omit => gw::StatusLine::Omit,
        GdbStatus::Parts {
            running,
            reason,
            fields,
            notes,
        } => gw::StatusLine::Custom(status_line(*running, reason, fields, notes)),
    };
    for (num, init, builtin, name) in m.tsvs.iter().take(8) {
        s.tsvs.push(format!(
            "{num:x}:{:x}:{}:{}",
            *init as u64,
            u8::from(*builtin),
            hex(name.as_bytes())
        ));
    }
    if !m.keep_tps {
        s.tps.clear();
        s.tp_stats.clear();
    }
    s.tps.extend(m.tps.iter().take(16).map(tp_line));
    s.tp_stats.extend(
        m.tp_stats
            .iter()
            .take(4)
            .map(|(n, a)| (u64::from(*n), u64::from(*a))),
    );
    s.extra_lines = cap(m.extra_lines.clone(), 8);
    if m.crlf_end {
        s.section_end = b"\r\n".to_vec();
    }
    let rsize = s.register_size;
    for f in m.frames.iter().take(16) {
        s.frames.push(gw::SampleFrame {
            tpnum: f.tpnum.get(),
            blocks: f
                .blocks
                .iter()
                .take(8)
                .map(|b| gdb_block(b, rsize))
                .collect(),
            size: f.size,
        });
    }
    if let Some(e) = &m.end {
        s.end = cap(e.clone(), 16);
    }
    let built = s.build();
    let mut bytes = built.bytes.clone();
    apply(&mut bytes, &m.mutations);
    Some((sound.then_some((built, s.endian)), bytes))
}

/// Structured GDB tfile: model → writer → mutations → [`run_gdb_tfile`]; a sound model's
/// file is also compared with what was written ([`gdb_differential`]).
pub fn run_gdb_structured(data: &[u8]) {
    if let Some((sound, b)) = gdb_build(data) {
        run_gdb_tfile(&b);
        if let Some((built, endian)) = sound {
            gdb_differential(&built, endian);
        }
    }
}
