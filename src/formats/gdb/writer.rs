//! Writes tfiles byte by byte: sound ones shaped like GDB's output, and ones with precise
//! defects. Used by the tests, the benchmark generator and the fuzz targets.
//!
//! [`TfileWriter`] appends raw pieces and returns their offsets; [`Sample`] describes a whole
//! file (definitions and frames) whose counts are filled in to match, and can be edited
//! before [`Sample::build`].
#![allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::indexing_slicing
)]

use crate::reader::Endian;
use std::ops::Range;

/// Appends the pieces of a tfile and returns where each went.
#[derive(Clone, Debug)]
pub struct TfileWriter {
    buf: Vec<u8>,
    endian: Endian,
}

/// A frame whose size is patched by [`TfileWriter::finish_frame`].
#[derive(Clone, Copy, Debug)]
pub struct FrameMark {
    /// Offset of the frame header.
    pub offset: u64,
}

impl TfileWriter {
    /// A writer that has written the magic.
    pub fn new(endian: Endian) -> Self {
        let mut w = Self::bare(endian);
        w.raw(crate::formats::gdb::decode::text::MAGIC);
        w
    }

    /// A writer with nothing written.
    pub fn bare(endian: Endian) -> Self {
        TfileWriter {
            buf: Vec::new(),
            endian,
        }
    }

    /// Current offset.
    pub fn offset(&self) -> u64 {
        self.buf.len() as u64
    }

    /// Appends bytes; returns their offset.
    pub fn raw(&mut self, b: &[u8]) -> u64 {
        let o = self.offset();
        self.buf.extend_from_slice(b);
        o
    }

    /// Appends a definition line and its `\n`; returns the offset of the text.
    pub fn line(&mut self, text: &[u8]) -> u64 {
        let o = self.raw(text);
        self.buf.push(b'\n');
        o
    }

    /// Appends the empty line ending the definitions; returns the offset of the first frame.
    pub fn end_definitions(&mut self) -> u64 {
        self.buf.push(b'\n');
        self.offset()
    }

    fn u16(&mut self, v: u16) {
        let b = match self.endian {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        };
        self.buf.extend_from_slice(&b);
    }

    fn u32(&mut self, v: u32) {
        let b = match self.endian {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        };
        self.buf.extend_from_slice(&b);
    }

    fn u64(&mut self, v: u64) {
        let b = match self.endian {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        };
        self.buf.extend_from_slice(&b);
    }

    /// Starts a frame of tracepoint `tpnum` (size patched by [`TfileWriter::finish_frame`]).
    pub fn frame(&mut self, tpnum: i16) -> FrameMark {
        let offset = self.frame_with_size(tpnum, 0);
        FrameMark { offset }
    }

    /// Sets the frame's size to the bytes written since its header.
    pub fn finish_frame(&mut self, m: FrameMark) {
        let start = m.offset as usize + 6;
        let size = (self.buf.len() - start) as u32;
        let b = match self.endian {
            Endian::Little => size.to_le_bytes(),
            Endian::Big => size.to_be_bytes(),
        };
        self.buf[m.offset as usize + 2..start].copy_from_slice(&b);
    }

    /// Writes a frame header with an explicit size; returns its offset.
    pub fn frame_with_size(&mut self, tpnum: i16, size: u32) -> u64 {
        let o = self.offset();
        self.u16(tpnum as u16);
        self.u32(size);
        o
    }

    /// Writes an `R` block of `size` register bytes (filled with a pattern).
    pub fn r_block(&mut self, size: usize) -> u64 {
        let o = self.raw(b"R");
        self.buf
            .extend((0..size).map(|i| (i as u8).wrapping_mul(7)));
        o
    }

    /// Writes an `M` block.
    pub fn m_block(&mut self, addr: u64, data: &[u8]) -> u64 {
        self.m_block_len(addr, data.len() as u16, data)
    }

    /// Writes an `M` block with an explicit length field.
    pub fn m_block_len(&mut self, addr: u64, len: u16, data: &[u8]) -> u64 {
        let o = self.raw(b"M");
        self.u64(addr);
        self.u16(len);
        self.raw(data);
        o
    }

    /// Writes a `V` block.
    pub fn v_block(&mut self, num: i32, value: i64) -> u64 {
        let o = self.raw(b"V");
        self.u32(num as u32);
        self.u64(value as u64);
        o
    }

    /// Writes the end marker as GDB does (tracepoint number 0 and 2 more zero bytes).
    pub fn end_marker(&mut self) -> u64 {
        self.raw(&[0, 0, 0, 0])
    }

    /// The bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// The bytes so far.
    pub fn bytes(&self) -> &[u8] {
        &self.buf
    }
}

/// A block of a [`Sample`] frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SampleBlock {
    /// `R` with this many register bytes.
    R(usize),
    /// `M` block.
    M(u64, Vec<u8>),
    /// `M` block with a length field that differs from the data.
    MLen(u64, u16, Vec<u8>),
    /// `V` block.
    V(i32, i64),
    /// Raw bytes.
    Raw(Vec<u8>),
}

/// A frame of a [`Sample`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampleFrame {
    /// Tracepoint number.
    pub tpnum: i16,
    /// Blocks.
    pub blocks: Vec<SampleBlock>,
    /// Size field to write instead of the real size.
    pub size: Option<u32>,
}

/// How the status line is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StatusLine {
    /// Computed from the frames, shaped like gdbserver's.
    Auto,
    /// This payload (after `status `).
    Custom(String),
    /// No status line.
    Omit,
}

/// A whole tfile, described by its parts; counts are computed to match in [`Sample::build`].
#[derive(Clone, Debug)]
pub struct Sample {
    /// Byte order of the frames.
    pub endian: Endian,
    /// The header (normally the magic).
    pub header: Vec<u8>,
    /// `R` line payload (`None`: no line).
    pub register_line: Option<String>,
    /// Register bytes per `R` block of [`Sample::standard_frame`].
    pub register_size: usize,
    /// `tdesc` payloads.
    pub tdesc: Vec<String>,
    /// The status line.
    pub status: StatusLine,
    /// `tsv` payloads.
    pub tsvs: Vec<String>,
    /// `tp` payloads (without the `V` line).
    pub tps: Vec<String>,
    /// Append a `tp V` line with matching counts for each tracepoint `(num, addr)`.
    pub tp_stats: Vec<(u64, u64)>,
    /// Further raw lines appended at the end of the definitions.
    pub extra_lines: Vec<Vec<u8>>,
    /// The line ending the definitions (normally `\n`).
    pub section_end: Vec<u8>,
    /// Frames.
    pub frames: Vec<SampleFrame>,
    /// Bytes after the frames (normally 4 zero bytes).
    pub end: Vec<u8>,
}

/// Where the parts of a built [`Sample`] are.
#[derive(Clone, Debug, Default)]
pub struct Built {
    /// The file.
    pub bytes: Vec<u8>,
    /// Every definition line: (span without `\n`, text).
    pub lines: Vec<(Range<u64>, Vec<u8>)>,
    /// Offset of the first frame.
    pub frames_start: u64,
    /// Each frame's span (header included).
    pub frames: Vec<Range<u64>>,
    /// Each frame's block spans.
    pub blocks: Vec<Vec<Range<u64>>>,
    /// Offset of the end bytes.
    pub end: u64,
}

impl Built {
    /// The span of the first line starting with `prefix`.
    pub fn line(&self, prefix: &str) -> Range<u64> {
        self.lines
            .iter()
            .find(|(_, t)| t.starts_with(prefix.as_bytes()))
            .map(|(s, _)| s.clone())
            .unwrap_or(0..0)
    }

    /// The span of `needle` inside the first line starting with `prefix`.
    pub fn field(&self, prefix: &str, needle: &str) -> Range<u64> {
        for (s, t) in &self.lines {
            if t.starts_with(prefix.as_bytes()) {
                if let Some(i) = t
                    .windows(needle.len().max(1))
                    .position(|w| w == needle.as_bytes())
                {
                    let a = s.start + i as u64;
                    return a..a + needle.len() as u64;
                }
            }
        }
        0..0
    }
}

/// A small x86-64 target description whose registers take 32 bytes.
pub const SMALL_TDESC: &[&str] = &[
    "",
    "<!DOCTYPE target SYSTEM \"gdb-target.dtd\">",
    "<target>",
    "  <architecture>i386:x86-64</architecture>",
    "  <osabi>GNU/Linux</osabi>",
    "  <feature name=\"org.gnu.gdb.i386.core\">",
    "    <reg name=\"rax\" bitsize=\"64\" type=\"int64\" regnum=\"0\"/>",
    "    <reg name=\"rbx\" bitsize=\"64\" type=\"int64\"/>",
    "    <reg name=\"rsp\" bitsize=\"64\" type=\"data_ptr\"/>",
    "    <reg name=\"rip\" bitsize=\"64\" type=\"code_ptr\"/>",
    "  </feature>",
    "</target>",
];

fn hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

impl Sample {
    /// A two-frame sample whose definitions are `n` tracepoints with an action each (every
    /// 1000th at another address than its tracepoint: an orphan piece) and `2n` trace state
    /// variables (each number defined twice): many definitions and many findings at once.
    pub fn many_definitions(n: u64) -> Self {
        let mut s = Sample::new(2);
        for i in 0..n {
            let num = 0x10u64.saturating_add(i);
            s.extra_lines.push(
                format!("tp T{num:x}:{:x}:E:0:0", 0x500000u64.saturating_add(i)).into_bytes(),
            );
            let base: u64 = if i % 1000 == 0 { 0x600000 } else { 0x500000 };
            s.extra_lines
                .push(format!("tp A{num:x}:{:x}:R40", base.saturating_add(i)).into_bytes());
            for v in ["v", "w"] {
                s.extra_lines
                    .push(format!("tsv {num:x}:0:0:{}", hex(&format!("{v}{i}"))).into_bytes());
            }
        }
        s
    }

    /// A sound file with `frames` frames of tracepoint 2 (R + M + V each), shaped like
    /// gdbserver's output, register blocks of 32 bytes.
    pub fn new(frames: usize) -> Self {
        let cmd = "collect $regs, i, $hits";
        Sample {
            endian: Endian::Little,
            header: crate::formats::gdb::decode::text::MAGIC.to_vec(),
            register_line: Some("20".into()),
            register_size: 32,
            tdesc: SMALL_TDESC.iter().map(|s| s.to_string()).collect(),
            status: StatusLine::Auto,
            tsvs: vec![
                format!("1:0:1:{}", hex("trace_timestamp")),
                format!("2:5:0:{}", hex("hits")),
            ],
            tps: vec![
                "T2:401145:E:0:0".into(),
                "A2:401145:R0f".into(),
                "A2:401145:M-1,404060,8".into(),
                format!("Z2:401145:at:0:7:{}", hex("tl_step")),
                format!("Z2:401145:cmd:0:{:x}:{}", cmd.len(), hex(cmd)),
            ],
            tp_stats: vec![(2, 0x401145)],
            extra_lines: Vec::new(),
            section_end: b"\n".to_vec(),
            frames: (0..frames)
                .map(|i| Self::standard_frame(2, 32, i as i64))
                .collect(),
            end: vec![0, 0, 0, 0],
        }
    }

    /// One frame: R block, an 8-byte M block and a V block of tsv 2.
    pub fn standard_frame(tpnum: i16, register_size: usize, i: i64) -> SampleFrame {
        SampleFrame {
            tpnum,
            blocks: vec![
                SampleBlock::R(register_size),
                SampleBlock::M(0x404060, (i as u64).to_le_bytes().to_vec()),
                SampleBlock::V(2, 5 + i),
            ],
            size: None,
        }
    }

    fn block_len(b: &SampleBlock) -> usize {
        match b {
            SampleBlock::R(n) => 1 + n,
            SampleBlock::M(_, d) | SampleBlock::MLen(_, _, d) => 11 + d.len(),
            SampleBlock::V(..) => 13,
            SampleBlock::Raw(r) => r.len(),
        }
    }

    fn frame_size(f: &SampleFrame) -> u64 {
        f.blocks.iter().map(Self::block_len).sum::<usize>() as u64
    }

    /// Writes the file.
    pub fn build(&self) -> Built {
        let mut w = TfileWriter::bare(self.endian);
        w.raw(&self.header);
        let mut built = Built::default();
        let mut lines: Vec<Vec<u8>> = Vec::new();
        if let Some(r) = &self.register_line {
            lines.push(format!("R {r}").into_bytes());
        }
        for t in &self.tdesc {
            lines.push(format!("tdesc {t}").into_bytes());
        }
        let total: u64 = self.frames.iter().map(|f| 6 + Self::frame_size(f)).sum();
        match &self.status {
            StatusLine::Auto => {
                let n = self.frames.len();
                let free = 0x10000u64;
                lines.push(
                    format!(
                        "status 0;tstop::0;tframes:{n:x};tcreated:{n:x};tfree:{free:x};tsize:{:x};starttime:1b38c428;stoptime:1b393385;notes:;username:",
                        free + total
                    )
                    .into_bytes(),
                );
            }
            StatusLine::Custom(s) => lines.push(format!("status {s}").into_bytes()),
            StatusLine::Omit => {}
        }
        for t in &self.tsvs {
            lines.push(format!("tsv {t}").into_bytes());
        }
        for t in &self.tps {
            lines.push(format!("tp {t}").into_bytes());
        }
        for (num, addr) in &self.tp_stats {
            let fr: Vec<&SampleFrame> = self
                .frames
                .iter()
                .filter(|f| f.tpnum as i64 as u64 == *num)
                .collect();
            let usage: u64 = fr.iter().map(|f| Self::frame_size(f)).sum();
            lines.push(format!("tp V{num:x}:{addr:x}:{:x}:{usage:x}", fr.len()).into_bytes());
        }
        lines.extend(self.extra_lines.iter().cloned());
        for l in lines {
            let o = w.line(&l);
            built.lines.push((o..o + l.len() as u64, l));
        }
        w.raw(&self.section_end);
        built.frames_start = w.offset();
        for f in &self.frames {
            let o = w.frame_with_size(f.tpnum, f.size.unwrap_or(Self::frame_size(f) as u32));
            let mut bl = Vec::new();
            for b in &f.blocks {
                let s = match b {
                    SampleBlock::R(n) => w.r_block(*n),
                    SampleBlock::M(a, d) => w.m_block(*a, d),
                    SampleBlock::MLen(a, l, d) => w.m_block_len(*a, *l, d),
                    SampleBlock::V(n, v) => w.v_block(*n, *v),
                    SampleBlock::Raw(r) => w.raw(r),
                };
                bl.push(s..w.offset());
            }
            built.frames.push(o..w.offset());
            built.blocks.push(bl);
        }
        built.end = w.raw(&self.end);
        built.bytes = w.into_bytes();
        built
    }

    /// Replaces the first `tp` payload starting with `prefix`.
    pub fn replace_tp(&mut self, prefix: &str, new: &str) {
        if let Some(t) = self.tps.iter_mut().find(|t| t.starts_with(prefix)) {
            *t = new.to_string();
        }
    }
}

/// A sound little-endian file of about `target_bytes`, with frames shaped like real x86-64
/// ones (2420-byte register blocks, several memory blocks, tsv values).
pub fn synthetic(target_bytes: usize) -> Vec<u8> {
    let rsize = 2420usize;
    let frame = |i: i64| SampleFrame {
        tpnum: if i % 4 == 3 { 3 } else { 2 },
        blocks: vec![
            SampleBlock::R(rsize),
            SampleBlock::M(0x404040, vec![0x2a; 64]),
            SampleBlock::M(0x7fff_ffff_e5d8, (i as u64).to_le_bytes().to_vec()),
            SampleBlock::M(0x404080, vec![1; 24]),
            SampleBlock::V(2, 5 + i),
        ],
        size: None,
    };
    let per = 6 + Sample::frame_size(&frame(0)) as usize;
    let n = (target_bytes / per).max(1);
    let mut s = Sample::new(0);
    s.register_line = Some(format!("{rsize:x}"));
    s.register_size = rsize;
    // A description whose registers add up to 2420 bytes: 302 64-bit registers + one 32-bit.
    let mut td: Vec<String> = SMALL_TDESC[..6].iter().map(|s| s.to_string()).collect();
    for r in 0..302 {
        td.push(format!(
            "    <reg name=\"r{r}\" bitsize=\"64\" type=\"int64\"/>"
        ));
    }
    td.push("    <reg name=\"eflags\" bitsize=\"32\" type=\"int32\"/>".into());
    td.extend(SMALL_TDESC[10..].iter().map(|s| s.to_string()));
    s.tdesc = td;
    s.tps.push("T3:40117d:E:0:0".into());
    s.tps.push("A3:40117d:R0f".into());
    s.tp_stats.push((3, 0x40117d));
    s.frames = (0..n as i64).map(frame).collect();
    s.build().bytes
}
