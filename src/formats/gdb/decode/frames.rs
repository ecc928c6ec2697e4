//! Decoding of the binary frame section: a streaming walker over frames and their blocks.
//!
//! The walker reports structural findings (truncation, unknown block types, blocks that do not
//! tile their frame). It reuses one [`Frame`] for every frame, so walking allocates nothing
//! per frame.

use super::super::model::{Block, Frame, FramesEnd, MAX_KEPT_BLOCKS};
use super::super::rules;
use crate::finding::{Capped, Sink};
use crate::input::Windowed;
use crate::reader::{Endian, Reader};
use std::ops::Range;

/// Most register-size candidates tried per frame when inferring a larger `R` block.
const MAX_INFER_TRIES: u32 = 64;
/// Most candidates tried over the whole file (bounds the work on hostile input).
const MAX_INFER_TRIES_TOTAL: u32 = 4096;
/// After this many frames where inference failed, stop trying.
const MAX_INFER_FAILURES: u32 = 16;
/// Largest register block size considered when inferring.
const MAX_INFERRED_REGISTER_SIZE: u64 = 1 << 20;

/// What went wrong inside a frame's blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BlockError {
    /// A type byte other than R, M, V, S.
    Unknown {
        /// Offset of the type byte.
        offset: u64,
        /// The byte.
        byte: u8,
    },
    /// A block runs past the end of its frame.
    Straddle {
        /// The block's type letter.
        letter: char,
        /// Where the block starts.
        offset: u64,
        /// Bytes it needs (type byte included).
        needed: u64,
        /// Bytes left in the frame from its start.
        available: u64,
    },
}

/// One step of the walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A frame was decoded into the caller's [`Frame`].
    Frame,
    /// The frames ended.
    End(FramesEnd),
}

/// A frame whose blocks tiled only with a larger register block size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inferred {
    /// Tracepoint number.
    pub tpnum: i16,
    /// Inferred register block size.
    pub size: u64,
    /// Frames walked with it.
    pub frames: u64,
    /// The first such frame.
    pub first: Range<u64>,
}

/// Walks frames from the start of the binary section.
pub struct Walker<'w, 'a> {
    src: &'w mut Windowed<'a>,
    pos: u64,
    endian: Endian,
    register_size: Option<u64>,
    fast: Vec<i16>,
    /// The tracepoint numbers the definition section defines (for telling a frame header in
    /// the bytes after the end marker).
    pub defined: Vec<i16>,
    /// Larger register sizes inferred per tracepoint.
    pub inferred: Vec<Inferred>,
    infer_failures: u32,
    infer_tries: u32,
    index: u64,
    finished: bool,
    /// Frames whose blocks could not be walked: the first [`MAX_BLOCK_ERRORS`] are reported
    /// individually, the others counted.
    pub block_errors: Capped,
}

/// Block-level findings reported individually; later ones are counted.
pub const MAX_BLOCK_ERRORS: u64 = 32;

/// Walks the blocks of the frame data at `body`, calling `each` for every block. Reads the
/// block headers only (at most 13 bytes each); the register and memory payloads are passed
/// over.
fn walk_blocks(
    src: &mut Windowed<'_>,
    body: Range<u64>,
    endian: Endian,
    rsize: u64,
    mut each: impl FnMut(Block),
) -> Result<(), BlockError> {
    let mut pos = body.start;
    while pos < body.end {
        let start = pos;
        let avail = body.end.saturating_sub(pos);
        let head = src.get(pos, avail.min(13));
        let straddle = |letter: char, needed: u64| BlockError::Straddle {
            letter,
            offset: start,
            needed,
            available: avail,
        };
        let mut r = Reader::with_base(head, start, endian);
        let Ok(t) = r.u8("block type") else {
            // The bytes could not be read (the source keeps the error).
            return Err(BlockError::Unknown {
                offset: start,
                byte: 0,
            });
        };
        let need = match t {
            b'R' => {
                let need = rsize.saturating_add(1);
                if need > avail {
                    return Err(straddle('R', need));
                }
                each(Block::Registers {
                    span: start..start.saturating_add(need),
                });
                need
            }
            b'M' => {
                let (Ok(addr), Ok(len)) = (r.u64("memory address"), r.u16("memory length")) else {
                    return Err(straddle('M', 11));
                };
                let need = 11u64.saturating_add(u64::from(len));
                if need > avail {
                    return Err(straddle('M', need));
                }
                each(Block::Memory {
                    span: start..start.saturating_add(need),
                    addr,
                    len,
                });
                need
            }
            b'V' => {
                let (Ok(num), Ok(value)) = (r.i32("tsv number"), r.i64("tsv value")) else {
                    return Err(straddle('V', 13));
                };
                each(Block::Tsv {
                    span: start..start.saturating_add(13),
                    num,
                    value,
                });
                13
            }
            b'S' => {
                let Ok(len) = r.u16("static data length") else {
                    return Err(straddle('S', 3));
                };
                let need = 3u64.saturating_add(u64::from(len));
                if need > avail {
                    return Err(straddle('S', need));
                }
                each(Block::Static {
                    span: start..start.saturating_add(need),
                    len,
                });
                need
            }
            byte => {
                return Err(BlockError::Unknown {
                    offset: start,
                    byte,
                })
            }
        };
        pos = start.saturating_add(need);
    }
    Ok(())
}

/// Whether the frame data at `body` tiles exactly with register blocks of `rsize` bytes.
fn tiles(src: &mut Windowed<'_>, body: Range<u64>, endian: Endian, rsize: u64) -> bool {
    walk_blocks(src, body, endian, rsize, |_| {}).is_ok()
}

impl<'w, 'a> Walker<'w, 'a> {
    /// A walker over `src` whose frames start at `start`. `fast` lists fast tracepoints.
    pub fn new(
        src: &'w mut Windowed<'a>,
        start: u64,
        endian: Endian,
        register_size: Option<u64>,
        fast: Vec<i16>,
    ) -> Self {
        Walker {
            src,
            pos: start,
            endian,
            register_size,
            fast,
            defined: Vec::new(),
            inferred: Vec::new(),
            infer_failures: 0,
            infer_tries: 0,
            index: 0,
            finished: false,
            block_errors: Capped::new(&rules::FRAME_BLOCKS_MISMATCH, MAX_BLOCK_ERRORS),
        }
    }

    /// Byte order of the walk.
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// Frames decoded so far.
    pub fn frames(&self) -> u64 {
        self.index
    }

    fn len(&self) -> u64 {
        self.src.len()
    }

    fn stop(&mut self) -> Option<Step> {
        self.finished = true;
        Some(Step::End(FramesEnd::Stopped { offset: self.pos }))
    }

    /// Decodes the next frame into `frame`, or reports how the frames end.
    pub fn next(&mut self, frame: &mut Frame, sink: &mut Sink) -> Option<Step> {
        if self.finished {
            return None;
        }
        let len = self.len();
        let left = len.saturating_sub(self.pos);
        let endian = self.endian;
        let head = self.src.get(self.pos, 6);
        let mut r = Reader::with_base(head, self.pos, endian);
        let Ok(tpnum) = r.i16("tracepoint number") else {
            let f = sink
                .make(
                    &rules::MISSING_END_MARKER,
                    self.pos..len,
                    format!(
                        "the file ends after {} frame(s) without the end marker (a 2-byte tracepoint number 0){}",
                        self.index,
                        if left == 0 { String::new() } else { format!("; only {left} byte left") }
                    ),
                )
                .note("GDB fails with \"Premature end of file\" once tfind walks past the last frame")
                .help("the file was probably cut off; GDB's writer ends the frames with 4 zero bytes");
            sink.push(f);
            return self.stop();
        };
        let size = r.u32("frame size");
        if tpnum == 0 {
            let at = self.pos.saturating_add(2);
            let tail = len.saturating_sub(at);
            self.finished = true;
            // Frames GDB will never see: the tail starts with a whole frame header.
            let first = self.src.get(at, 6).to_vec();
            let first = first.as_slice();
            // Either a whole frame header, or (a frame whose number was zeroed) the size and
            // data of a frame.
            let mut t = Reader::with_base(first, at, endian);
            let tail_frame = match (t.i16("tracepoint number"), t.u32("frame size")) {
                (Ok(tp), Ok(size)) => tp > 0 && u64::from(size) <= tail.saturating_sub(6),
                _ => false,
            } || {
                let mut z = Reader::with_base(first, at, endian);
                z.u32("frame size")
                    .is_ok_and(|size| size > 0 && u64::from(size) <= tail.saturating_sub(4))
            } || {
                // The size and data of a zeroed frame (size 0: a tracepoint that collects
                // nothing writes those), then the whole header of a frame of a defined
                // tracepoint.
                let mut z = Reader::with_base(first, at, endian);
                z.u32("frame size").is_ok_and(|size| {
                    let next = at.saturating_add(4).saturating_add(u64::from(size));
                    let rest = len.saturating_sub(next);
                    let mut n = Reader::with_base(self.src.get(next, 6), next, endian);
                    matches!(
                        (n.i16("tracepoint number"), n.u32("frame size")),
                        (Ok(tp), Ok(s)) if self.defined.contains(&tp) && u64::from(s) <= rest.saturating_sub(6)
                    )
                })
            };
            // Judged on every byte, read in bounded steps (never kept).
            let tail_zero = self.src.first_nonzero_from(at).is_none();
            return Some(Step::End(FramesEnd::Marker {
                span: self.pos..at,
                tail,
                tail_zero,
                tail_frame,
            }));
        }
        let size = match size {
            Ok(s) => s,
            Err(e) => {
                sink.report(
                    &rules::TRUNCATED_FRAME_HEADER,
                    self.pos..len,
                    format!(
                        "frame {} (tracepoint {tpnum}) header is cut off: {e}",
                        self.index
                    ),
                );
                return self.stop();
            }
        };
        let start = self.pos.saturating_add(6);
        let end = start.saturating_add(u64::from(size));
        if size >= 0x8000_0000 {
            sink.report(
                &rules::FRAME_SIZE_TOO_LARGE,
                self.pos.saturating_add(2)..start,
                format!(
                    "frame {} size is 0x{size:x}; GDB keeps it in a signed int, where it is negative",
                    self.index
                ),
            );
        }
        if end > len {
            let f = sink
                .make(
                    &rules::FRAME_OVERRUNS_FILE,
                    self.pos..len,
                    format!(
                        "frame {} (tracepoint {tpnum}) at 0x{:x} declares {size} data bytes, but only {} remain in the file",
                        self.index,
                        self.pos,
                        len.saturating_sub(start)
                    ),
                )
                .note("either the file was cut off or the size is corrupt; no later frame can be found");
            sink.push(f);
            return self.stop();
        }
        frame.index = self.index;
        frame.tpnum = tpnum;
        frame.span = self.pos..end;
        frame.size = size;
        frame.tiled = true;
        self.decode_frame_blocks(frame, start..end, sink);
        self.pos = end;
        self.index = self.index.saturating_add(1);
        Some(Step::Frame)
    }

    fn decode_into(
        &mut self,
        frame: &mut Frame,
        body: Range<u64>,
        rsize: u64,
    ) -> Result<(), BlockError> {
        frame.blocks.clear();
        frame.counts = Default::default();
        frame.register_size = rsize;
        let blocks = &mut frame.blocks;
        let counts = &mut frame.counts;
        walk_blocks(self.src, body, self.endian, rsize, |b| {
            counts.add(&b);
            if blocks.len() < MAX_KEPT_BLOCKS {
                blocks.push(b);
            }
        })
    }

    fn decode_frame_blocks(&mut self, frame: &mut Frame, body: Range<u64>, sink: &mut Sink) {
        let start = body.start;
        let Some(declared) = self.register_size else {
            // Without a register size the R blocks cannot be walked (reported as GT006).
            frame.blocks.clear();
            frame.counts = Default::default();
            frame.register_size = 0;
            frame.tiled = false;
            return;
        };
        let tpnum = frame.tpnum;
        let known = self
            .inferred
            .iter()
            .find(|i| i.tpnum == tpnum)
            .map(|i| i.size);
        if let Some(k) = known {
            if self.decode_into(frame, body.clone(), k).is_ok() {
                if let Some(i) = self.inferred.iter_mut().find(|i| i.tpnum == tpnum) {
                    i.frames = i.frames.saturating_add(1);
                }
                return;
            }
        }
        let err = match self.decode_into(frame, body.clone(), declared) {
            Ok(()) => return,
            Err(e) => e,
        };
        // The last block of the last frame running past the frame's end onto an end marker:
        // GDB reads every block by its own length (`traceframe_walk_blocks`), so it reads that
        // block whole from the bytes that follow, and finds the end marker at the frame's
        // declared end; the blocks end on a second end marker. The frame size is short; the
        // blocks read as written.
        if let BlockError::Straddle { offset, needed, .. } = err {
            let block_end = offset.saturating_add(needed);
            let marker = self.src.get(frame.span.end, 2) == [0, 0];
            if marker && self.src.get(block_end, 2) == [0, 0] {
                sink.push(
                    sink.make(
                        &rules::FRAME_BLOCKS_MISMATCH,
                        offset..frame.span.end,
                        format!(
                            "frame {} (tracepoint {}): the last block ({} bytes at 0x{offset:x}) runs {} byte(s) past the frame's declared end, onto the end marker, and ends on the 2 zero bytes of an end marker at 0x{block_end:x}; the frame's size is short by that much",
                            frame.index,
                            frame.tpnum,
                            needed,
                            block_end.saturating_sub(frame.span.end)
                        ),
                    )
                    .note("GDB 13 reads each block by its own length (`traceframe_walk_blocks`), so it reads this one whole from the bytes after the frame, and stops at the end marker of the frame's declared end: it shows every frame and block the same (campaign: frame sizes of the last frame cut by 1 and by half)")
                    .read_same("GDB", "13"),
                );
                return;
            }
        }
        let fast = self.fast.contains(&tpnum);
        if let Some(size) = fast.then(|| self.infer(body.clone(), declared)).flatten() {
            let _ = self.decode_into(frame, body, size);
            match self.inferred.iter_mut().find(|i| i.tpnum == tpnum) {
                Some(i) if i.size == size => i.frames = i.frames.saturating_add(1),
                Some(_) => {}
                None => self.inferred.push(Inferred {
                    tpnum,
                    size,
                    frames: 1,
                    first: frame.span.clone(),
                }),
            }
            return;
        }
        frame.tiled = false;
        if self.block_errors.hit(&frame.span) {
            report_block_error(sink, frame, &err, start);
        }
    }

    /// Finds a register block size larger than `declared` with which the frame data at `body`
    /// tiles exactly.
    fn infer(&mut self, body: Range<u64>, declared: u64) -> Option<u64> {
        let start = body.start;
        if self.infer_failures >= MAX_INFER_FAILURES || self.src.get(start, 1) != b"R" {
            return None;
        }
        let body_len = body.end.saturating_sub(start);
        let max = body_len.saturating_sub(1).min(MAX_INFERRED_REGISTER_SIZE);
        let mut tries = 0u32;
        let mut size = declared.saturating_add(1);
        while size <= max {
            let k = size.saturating_add(1);
            if k == body_len {
                return Some(size);
            }
            let at = start.saturating_add(k);
            if matches!(self.src.get(at, 1), [b'R' | b'M' | b'V' | b'S']) {
                tries = tries.saturating_add(1);
                self.infer_tries = self.infer_tries.saturating_add(1);
                if self.infer_tries > MAX_INFER_TRIES_TOTAL {
                    break;
                }
                if tiles(self.src, at..body.end, self.endian, size) {
                    return Some(size);
                }
                if tries >= MAX_INFER_TRIES {
                    break;
                }
            }
            size = size.saturating_add(1);
        }
        self.infer_failures = self.infer_failures.saturating_add(1);
        None
    }
}

fn report_block_error(sink: &mut Sink, frame: &Frame, err: &BlockError, start: u64) {
    let end = frame.span.end;
    match *err {
        BlockError::Unknown { offset, byte } => {
            let shown = if (0x21..0x7f).contains(&byte) {
                format!("'{}' (0x{byte:02x})", char::from(byte))
            } else {
                format!("0x{byte:02x}")
            };
            let mut f = sink.make(
                &rules::UNKNOWN_BLOCK_TYPE,
                offset..offset.saturating_add(1),
                format!(
                    "frame {} (tracepoint {}) has a block of unknown type {shown} at offset {} of its data; expected R, M or V",
                    frame.index,
                    frame.tpnum,
                    offset.saturating_sub(start)
                ),
            );
            if offset > start {
                f = f.note(format!(
                    "the {} block(s) before it end at 0x{offset:x}: a wrong register size or a corrupt length shifts the walk",
                    frame.counts.total()
                ));
            }
            sink.push(
                f.note("GDB: \"Unknown block type\" when the frame's registers or memory are read"),
            );
        }
        BlockError::Straddle {
            letter,
            offset,
            needed,
            available,
        } => {
            sink.push(
                sink.make(
                    &rules::FRAME_BLOCKS_MISMATCH,
                    offset..end,
                    format!(
                        "frame {} (tracepoint {}): the {letter} block at 0x{offset:x} needs {needed} bytes but only {available} remain in the frame",
                        frame.index, frame.tpnum
                    ),
                )
                .note("GDB would read the rest of the block from the next frame's bytes"),
            );
        }
    }
}

/// How well the frames walk in one byte order (for choosing it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Probe {
    /// Frames decoded.
    pub frames: u64,
    /// Frames whose blocks tiled and whose tracepoint is defined.
    pub good: u64,
    /// Error findings raised.
    pub errors: u64,
    /// Whether the walk reached a clean end marker.
    pub clean_end: bool,
}

impl Probe {
    /// True when nothing went wrong.
    pub fn clean(&self) -> bool {
        self.errors == 0 && self.clean_end && self.good == self.frames
    }

    /// Ordering key: cleaner and more good frames first.
    pub fn key(&self) -> (bool, bool, u64, std::cmp::Reverse<u64>) {
        (
            self.clean(),
            self.clean_end,
            self.good,
            std::cmp::Reverse(self.errors),
        )
    }
}

/// Walks at most `max_frames` frames in `endian` without reporting, and scores the walk.
pub fn probe(
    src: &mut Windowed<'_>,
    start: u64,
    endian: Endian,
    register_size: Option<u64>,
    fast: &[i16],
    defined: &dyn Fn(i16) -> bool,
    max_frames: u64,
) -> Probe {
    let mut w = Walker::new(src, start, endian, register_size, fast.to_vec());
    let mut sink = Sink::new(64);
    let mut frame = Frame::default();
    let mut p = Probe::default();
    while p.frames < max_frames {
        match w.next(&mut frame, &mut sink) {
            Some(Step::Frame) => {
                p.frames = p.frames.saturating_add(1);
                if frame.tiled && defined(frame.tpnum) {
                    p.good = p.good.saturating_add(1);
                }
            }
            Some(Step::End(FramesEnd::Marker { tail_zero, .. })) => {
                p.clean_end = tail_zero;
                break;
            }
            Some(Step::End(FramesEnd::Stopped { .. })) | None => break,
        }
    }
    if p.frames >= max_frames {
        p.clean_end = true;
    }
    p.errors = sink
        .findings()
        .iter()
        .filter(|f| f.severity == crate::finding::Severity::Error)
        .count() as u64;
    p.errors = p.errors.saturating_add(sink.dropped());
    p
}
