//! The typed model of a tfile, with absolute byte spans.
//!
//! The text part is kept whole (it is small); the binary part is streamed: a [`Frame`] is
//! reused from one frame to the next and keeps at most [`MAX_KEPT_BLOCKS`] blocks, so checking
//! a large file allocates nothing per frame.

use std::ops::Range;

/// Blocks of one frame kept for inspection; later blocks are only counted.
pub const MAX_KEPT_BLOCKS: usize = 4096;

/// The 8-byte file header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Where it is.
    pub span: Range<u64>,
}

/// One definition line, by kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DescLine {
    /// `R <hex>`: register block size.
    Register {
        /// The line.
        span: Range<u64>,
        /// The value, when canonical hex.
        value: Option<u64>,
    },
    /// `status …`; the parsed status is [`Description::statuses`]`[index]`.
    Status {
        /// The line.
        span: Range<u64>,
        /// Index into [`Description::statuses`].
        index: usize,
    },
    /// `tp …`.
    Tp {
        /// The line.
        span: Range<u64>,
        /// The piece letter (`T`, `A`, `S`, `Z`, `V` or other).
        piece: u8,
    },
    /// `tsv …`; the parsed variable is [`Description::tsvs`]`[index]` when it parsed.
    Tsv {
        /// The line.
        span: Range<u64>,
        /// Index into [`Description::tsvs`].
        index: Option<usize>,
    },
    /// `tdesc …`: one line of the XML target description.
    Tdesc {
        /// The line.
        span: Range<u64>,
    },
    /// Anything else (ignored by GDB).
    Unknown {
        /// The line.
        span: Range<u64>,
    },
}

impl DescLine {
    /// The line's span (without its `\n`).
    pub fn span(&self) -> &Range<u64> {
        match self {
            DescLine::Register { span, .. }
            | DescLine::Status { span, .. }
            | DescLine::Tp { span, .. }
            | DescLine::Tsv { span, .. }
            | DescLine::Tdesc { span }
            | DescLine::Unknown { span } => span,
        }
    }

    /// Short kind name for maps.
    pub fn kind(&self) -> &'static str {
        match self {
            DescLine::Register { .. } => "R",
            DescLine::Status { .. } => "status",
            DescLine::Tp { .. } => "tp",
            DescLine::Tsv { .. } => "tsv",
            DescLine::Tdesc { .. } => "tdesc",
            DescLine::Unknown { .. } => "unknown",
        }
    }
}

/// Stop reasons of the status line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReasonKind {
    /// `tnotrun`
    NotRun,
    /// `tstop` (user stop, optional note)
    Stop,
    /// `tfull`
    Full,
    /// `tdisconnected`
    Disconnected,
    /// `tpasscount`
    PassCount,
    /// `terror`
    Error,
    /// `tunknown`
    Unknown,
}

impl ReasonKind {
    /// Parses an exact key.
    pub fn from_key(key: &[u8]) -> Option<Self> {
        Some(match key {
            b"tnotrun" => ReasonKind::NotRun,
            b"tstop" => ReasonKind::Stop,
            b"tfull" => ReasonKind::Full,
            b"tdisconnected" => ReasonKind::Disconnected,
            b"tpasscount" => ReasonKind::PassCount,
            b"terror" => ReasonKind::Error,
            b"tunknown" => ReasonKind::Unknown,
            _ => return None,
        })
    }

    /// The key as written.
    pub fn name(self) -> &'static str {
        match self {
            ReasonKind::NotRun => "tnotrun",
            ReasonKind::Stop => "tstop",
            ReasonKind::Full => "tfull",
            ReasonKind::Disconnected => "tdisconnected",
            ReasonKind::PassCount => "tpasscount",
            ReasonKind::Error => "terror",
            ReasonKind::Unknown => "tunknown",
        }
    }
}

/// The stop reason item of a status line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopReason {
    /// Which reason.
    pub kind: ReasonKind,
    /// Decoded note (`tstop`) or error text (`terror`).
    pub text: Option<Vec<u8>>,
    /// The tracepoint number (stopping tracepoint).
    pub tp: Option<u64>,
    /// Span of the tracepoint number.
    pub tp_span: Range<u64>,
    /// Span of the whole item.
    pub span: Range<u64>,
}

/// Known status field keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldKey {
    /// Frames in the buffer.
    Tframes,
    /// Frames ever created.
    Tcreated,
    /// Free bytes.
    Tfree,
    /// Buffer size.
    Tsize,
    /// Circular buffer flag.
    Circular,
    /// Disconnected tracing flag.
    Disconn,
    /// Start time (µs, steady clock).
    Starttime,
    /// Stop time.
    Stoptime,
    /// Notes (hex text).
    Notes,
    /// User name (hex text).
    Username,
}

impl FieldKey {
    /// Every key, in GDB's matching order.
    pub const ALL: [FieldKey; 10] = [
        FieldKey::Tframes,
        FieldKey::Tcreated,
        FieldKey::Tfree,
        FieldKey::Tsize,
        FieldKey::Disconn,
        FieldKey::Circular,
        FieldKey::Starttime,
        FieldKey::Stoptime,
        FieldKey::Username,
        FieldKey::Notes,
    ];

    /// The key as written.
    pub fn name(self) -> &'static str {
        match self {
            FieldKey::Tframes => "tframes",
            FieldKey::Tcreated => "tcreated",
            FieldKey::Tfree => "tfree",
            FieldKey::Tsize => "tsize",
            FieldKey::Circular => "circular",
            FieldKey::Disconn => "disconn",
            FieldKey::Starttime => "starttime",
            FieldKey::Stoptime => "stoptime",
            FieldKey::Notes => "notes",
            FieldKey::Username => "username",
        }
    }

    /// Whether the value is a hex-encoded string rather than a number.
    pub fn is_text(self) -> bool {
        matches!(self, FieldKey::Notes | FieldKey::Username)
    }

    /// Parses an exact key.
    pub fn from_key(key: &[u8]) -> Option<Self> {
        FieldKey::ALL
            .into_iter()
            .find(|k| k.name().as_bytes() == key)
    }
}

/// A status field value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldValue {
    /// A hex number.
    Num(u64),
    /// A decoded hex string.
    Text(Vec<u8>),
    /// Malformed (already reported).
    Invalid,
}

/// One `key:value` field of the status line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusField {
    /// The key.
    pub key: FieldKey,
    /// The value.
    pub value: FieldValue,
    /// Span of `key:value`.
    pub span: Range<u64>,
}

/// A parsed `status` line.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Status {
    /// The line.
    pub span: Range<u64>,
    /// `running` flag, when `0` or `1`.
    pub running: Option<bool>,
    /// The stop reason.
    pub reason: Option<StopReason>,
    /// Known fields, in order (duplicates kept).
    pub fields: Vec<StatusField>,
}

impl Status {
    /// The last numeric value of `key` (GDB's "last wins").
    pub fn num(&self, key: FieldKey) -> Option<u64> {
        self.fields
            .iter()
            .rev()
            .find_map(|f| match (&f.value, f.key == key) {
                (FieldValue::Num(v), true) => Some(*v),
                _ => None,
            })
    }

    /// The span of the last field `key`.
    pub fn field_span(&self, key: FieldKey) -> Option<Range<u64>> {
        self.fields
            .iter()
            .rev()
            .find(|f| f.key == key)
            .map(|f| f.span.clone())
    }
}

/// A trace state variable (`tsv` line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tsv {
    /// The line.
    pub span: Range<u64>,
    /// Number.
    pub num: u64,
    /// Initial value (64-bit two's complement).
    pub initial: i64,
    /// Builtin flag as written.
    pub builtin: u64,
    /// Decoded name (without `$`).
    pub name: Vec<u8>,
    /// Span of the hex name.
    pub name_span: Range<u64>,
}

/// Kinds of `tp Z` source lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// Location spec.
    At,
    /// Condition source.
    Cond,
    /// One action command line.
    Cmd,
    /// Anything else (dropped by GDB).
    Other,
}

/// A `tp Z` source line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The line.
    pub span: Range<u64>,
    /// Type.
    pub kind: SourceKind,
    /// Decoded text.
    pub text: Vec<u8>,
}

/// A `tp V` status line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TpStats {
    /// The line.
    pub span: Range<u64>,
    /// Hit count digits as written.
    pub hits: Vec<u8>,
    /// Usage digits as written.
    pub usage: Vec<u8>,
    /// Span of `hits:usage`.
    pub counts_span: Range<u64>,
}

/// A tracepoint: a `tp T` line and the pieces that attach to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tracepoint {
    /// The `T` line.
    pub span: Range<u64>,
    /// Span of the number field.
    pub num_span: Range<u64>,
    /// Number.
    pub num: u64,
    /// Address.
    pub addr: u64,
    /// `E` (true) or `D`.
    pub enabled: bool,
    /// While-stepping count.
    pub step: u64,
    /// Pass count.
    pub pass: u64,
    /// `F<size>`: fast tracepoint, with its original instruction size.
    pub fast: Option<u64>,
    /// `S`: static tracepoint.
    pub is_static: bool,
    /// Condition bytecode length (`X`).
    pub cond_len: Option<u64>,
    /// Number of `A` lines.
    pub actions: u32,
    /// Number of `S` lines.
    pub step_actions: u32,
    /// `Z` lines.
    pub sources: Vec<Source>,
    /// `V` lines.
    pub stats: Vec<TpStats>,
}

/// The definition section.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Description {
    /// From the end of the header to the end of the blank line (or the end of the file).
    pub span: Range<u64>,
    /// Every line, in order.
    pub lines: Vec<DescLine>,
    /// Offset of the first frame byte; `None` when no blank line ends the section.
    pub binary_start: Option<u64>,
    /// Values of the valid `R` lines with their spans (the first 63 and the last).
    pub register_sizes: Vec<(u64, Range<u64>)>,
    /// Every `status` line, parsed.
    pub statuses: Vec<Status>,
    /// Every parsed `tsv` line.
    pub tsvs: Vec<Tsv>,
    /// Tracepoints, in order of their `T` lines.
    pub tracepoints: Vec<Tracepoint>,
    /// The target description text: every `tdesc` payload followed by `\n`.
    pub tdesc: Vec<u8>,
    /// Spans of the `tdesc` payloads (line `i` of [`Description::tdesc`]).
    pub tdesc_lines: Vec<Range<u64>>,
}

impl Description {
    /// The register block size GDB would use (the last valid `R` line).
    pub fn register_size(&self) -> Option<u64> {
        self.register_sizes.last().map(|(v, _)| *v)
    }

    /// The status GDB would use (the last one).
    pub fn status(&self) -> Option<&Status> {
        self.statuses.last()
    }

    /// The tracepoint with number `num`, if any.
    pub fn tracepoint(&self, num: u64) -> Option<&Tracepoint> {
        self.tracepoints.iter().find(|t| t.num == num)
    }

    /// The tsv with number `num`, if any.
    pub fn tsv(&self, num: u64) -> Option<&Tsv> {
        self.tsvs.iter().find(|t| t.num == num)
    }
}

/// One block of a frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    /// `R`: the register cache.
    Registers {
        /// Type byte to end of data.
        span: Range<u64>,
    },
    /// `M`: collected memory.
    Memory {
        /// Type byte to end of data.
        span: Range<u64>,
        /// Target address.
        addr: u64,
        /// Data length.
        len: u16,
    },
    /// `V`: a trace state variable value.
    Tsv {
        /// Type byte to end.
        span: Range<u64>,
        /// Variable number.
        num: i32,
        /// Value.
        value: i64,
    },
    /// `S`: gdbserver UST static tracepoint data (GDB cannot read it).
    Static {
        /// Type byte to end of data.
        span: Range<u64>,
        /// Data length.
        len: u16,
    },
}

impl Block {
    /// The block's span.
    pub fn span(&self) -> &Range<u64> {
        match self {
            Block::Registers { span }
            | Block::Memory { span, .. }
            | Block::Tsv { span, .. }
            | Block::Static { span, .. } => span,
        }
    }

    /// The type letter.
    pub fn letter(&self) -> char {
        match self {
            Block::Registers { .. } => 'R',
            Block::Memory { .. } => 'M',
            Block::Tsv { .. } => 'V',
            Block::Static { .. } => 'S',
        }
    }
}

/// Counts of blocks by type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockCounts {
    /// `R` blocks.
    pub registers: u64,
    /// `M` blocks.
    pub memory: u64,
    /// `V` blocks.
    pub tsv: u64,
    /// `S` blocks.
    pub static_data: u64,
}

impl BlockCounts {
    /// Adds one block.
    pub fn add(&mut self, b: &Block) {
        let c = match b {
            Block::Registers { .. } => &mut self.registers,
            Block::Memory { .. } => &mut self.memory,
            Block::Tsv { .. } => &mut self.tsv,
            Block::Static { .. } => &mut self.static_data,
        };
        *c = c.saturating_add(1);
    }

    /// Adds other counts.
    pub fn merge(&mut self, o: &BlockCounts) {
        self.registers = self.registers.saturating_add(o.registers);
        self.memory = self.memory.saturating_add(o.memory);
        self.tsv = self.tsv.saturating_add(o.tsv);
        self.static_data = self.static_data.saturating_add(o.static_data);
    }

    /// Total.
    pub fn total(&self) -> u64 {
        self.registers
            .saturating_add(self.memory)
            .saturating_add(self.tsv)
            .saturating_add(self.static_data)
    }
}

/// One trace frame (reused between frames by the walker).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    /// Index of the frame in the file (0-based).
    pub index: u64,
    /// Tracepoint number.
    pub tpnum: i16,
    /// Header and data.
    pub span: Range<u64>,
    /// Data size from the header.
    pub size: u32,
    /// The first [`MAX_KEPT_BLOCKS`] blocks.
    pub blocks: Vec<Block>,
    /// Counts of all blocks.
    pub counts: BlockCounts,
    /// Whether the blocks tiled the frame exactly.
    pub tiled: bool,
    /// Register block size used for this frame.
    pub register_size: u64,
}

/// How the frames ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FramesEnd {
    /// A tracepoint number 0 at `span`, followed by `tail` bytes.
    Marker {
        /// The 2-byte marker.
        span: Range<u64>,
        /// Bytes after it.
        tail: u64,
        /// Whether they are all zero.
        tail_zero: bool,
        /// Whether they start with a whole frame (tracepoint number > 0, a size that fits).
        tail_frame: bool,
    },
    /// The walk stopped at `offset` without a marker (reported).
    Stopped {
        /// Where.
        offset: u64,
    },
}

/// What the definition section tells about the program that wrote the file. A tfile names no
/// writer; what GDB's `tsave` added over time (status times, notes and user from the 2013 writer
/// rewrite, `tdesc` lines from 2016) and the variable gdbserver defines show through.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriterHint {
    /// `tdesc` lines are present: GDB's `tsave` since the 2016 change that saves the target
    /// description.
    pub tdesc: bool,
    /// The status has `starttime`, `stoptime`, `notes` or `username`: GDB's `tsave` since its
    /// 2013 rewrite (tracefile-tfile.c); the 2010-2013 writer wrote none of them.
    pub status_times: bool,
    /// The target was gdbserver: it defines the builtin variable `trace_timestamp` as tsv 1.
    pub gdbserver: bool,
}

impl WriterHint {
    /// One phrase for findings, such as "written by GDB tsave (2016 or later: it saved tdesc
    /// lines) from a gdbserver target (builtin tsv 1 `trace_timestamp`)".
    pub fn describe(&self) -> String {
        format!(
            "written by GDB tsave ({}){}",
            if self.tdesc {
                "2016 or later: it saved tdesc lines"
            } else if self.status_times {
                "2013 to 2016: status times, notes or user but no tdesc lines"
            } else {
                "no status times and no tdesc lines: before 2013, or another writer"
            },
            if self.gdbserver {
                " from a gdbserver target (builtin tsv 1 `trace_timestamp`)"
            } else {
                ""
            }
        )
    }
}

impl Description {
    /// What the file shows about its writer (see docs/gdb-tfile.md, writer history).
    pub fn writer_hint(&self) -> WriterHint {
        WriterHint {
            tdesc: !self.tdesc_lines.is_empty(),
            status_times: self.statuses.iter().any(|s| {
                s.fields.iter().any(|f| {
                    matches!(
                        f.key,
                        FieldKey::Starttime
                            | FieldKey::Stoptime
                            | FieldKey::Notes
                            | FieldKey::Username
                    )
                })
            }),
            gdbserver: self
                .tsvs
                .iter()
                .any(|v| v.num == 1 && v.builtin == 1 && v.name == b"trace_timestamp"),
        }
    }
}
