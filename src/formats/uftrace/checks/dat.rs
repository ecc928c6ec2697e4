//! `<TID>.dat`: the per-task record stream, walked in a single streaming pass.
//!
//! Records are 16 bytes (`u64 time`, `u64` bitfield: type:2, more:1, magic:3, depth:10,
//! addr:48). Payloads follow records with `more=1`: argument/return-value blobs framed from the
//! argument specs of the function, or `u16 len` + data for events, each padded to 8 bytes.

use super::super::decode::argspec::{align4, align8, Item};
use super::super::decode::info::feat;
use super::super::decode::maps::SessionMap;
use super::super::decode::record::{
    self, record_at, truncated_payload, Head, RecordWord, ENTRY, EVENT, EXIT, LOST, RECORD_LEN,
};
use super::super::decode::runs::{RecordRun, RecordSieve, NO_PAYLOAD};
use super::super::decode::sym::SymTable;
use super::super::decode::task::fmt_ts;
use super::super::rules;
use super::perf_tasks::OutInterval;
use crate::finding::{Capped, Finding, Impact, Severity, Sink};
use crate::input::SeqRead;
use crate::reader::{BigEndian, Endian, Endianity, LittleEndian};
use std::collections::HashMap;
use std::io::{self, Read};
use std::ops::ControlFlow;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// Largest argument payload libmcount can write (`ARGBUF_SIZE - 4`).
pub const MAX_ARG_PAYLOAD: u64 = 1020;
const CHUNK: usize = 1 << 20;
/// Bytes the window keeps beyond a record before the fast path runs (largest fixed payload).
const FAST_SLACK: usize = 1024;

/// One session as the walker sees it.
#[derive(Debug, Default)]
pub struct SessCtx {
    /// The decoded map, if present.
    pub map: Option<SessionMap>,
    /// For each module of the map, the symbol table index.
    pub module_syms: Vec<Option<usize>>,
    /// dlopen'ed libraries: (time, base, symbol table index).
    pub dlopens: Vec<(u64, u64, Option<usize>)>,
    /// Session id (for messages).
    pub sid: String,
}

/// Argument specs resolved for one function.
#[derive(Clone, Debug, Default)]
pub struct FuncArgs {
    /// Items of the ENTRY payload.
    pub entry: Vec<Item>,
    /// Items of the EXIT payload.
    pub exit: Vec<Item>,
    /// Some pattern could not be evaluated.
    pub unsupported: bool,
    /// Padded ENTRY payload length when it has no string (and fits the argument buffer).
    pub entry_fixed: Option<usize>,
    /// Padded EXIT payload length when it has no string (and fits the argument buffer).
    pub exit_fixed: Option<usize>,
}

impl FuncArgs {
    /// Fills `entry_fixed` / `exit_fixed` from the items.
    pub fn compute_fixed(&mut self) {
        let fixed = |items: &[Item]| -> Option<usize> {
            if items.is_empty() || items.iter().any(|i| i.string) {
                return None;
            }
            let sum: u64 = items.iter().map(|i| u64::from(align4(i.size))).sum();
            if sum > MAX_ARG_PAYLOAD {
                return None;
            }
            usize::try_from(align8(sum)).ok()
        };
        self.entry_fixed = fixed(&self.entry);
        self.exit_fixed = fixed(&self.exit);
    }
}

/// Everything the walker needs, shared by all tasks.
pub struct DatCtx<'a> {
    /// Byte order.
    pub endian: Endian,
    /// Header version.
    pub version: u32,
    /// Feature mask.
    pub feat: u64,
    /// Effective max stack.
    pub max_stack: u16,
    /// Sessions in task.txt order.
    pub sessions: &'a [SessCtx],
    /// Symbol tables.
    pub syms: &'a [SymTable],
    /// Per tid: (start time, session index), sorted by time.
    pub timelines: &'a HashMap<u64, Vec<(u64, usize)>>,
    /// Resolves the argument specs of a function (table, symbol).
    pub specs: &'a (dyn Fn(usize, usize) -> FuncArgs + Sync),
    /// User event ids from events.txt (sorted), if the file exists.
    pub user_events: Option<&'a [u64]>,
    /// Take the fast path for runs of well-formed records ([`crate::CheckOptions::fast_paths`]).
    pub fast: bool,
    /// Per symbol table: whether some record address fell in its module (set by the walks of
    /// every task, read once they are done).
    pub entered: &'a [std::sync::atomic::AtomicBool],
    /// Per symbol table: some record address lies where uftrace's own table names another
    /// symbol than was recorded ([`SymTable::misread`]).
    pub misread: &'a [std::sync::atomic::AtomicBool],
    /// Per tid: the stretches the perf files say the task was switched out, in time order
    /// (empty without perf files, after a LOST record, or for a recording that did not run
    /// to its end).
    pub(crate) outs: &'a HashMap<u64, Vec<OutInterval>>,
    /// Names of the perf files the stretches' file indices refer to.
    pub perf_names: &'a [String],
}

impl DatCtx<'_> {
    fn enter(&self, table: usize) {
        if let Some(a) = self.entered.get(table) {
            a.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// A record address of `table` that uftrace may print under another name.
    fn misread(&self, table: usize) {
        if let Some(a) = self.misread.get(table) {
            a.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// What one task file held.
#[derive(Clone, Debug, Default)]
pub struct DatStats {
    /// ENTRY records.
    pub entries: u64,
    /// EXIT records.
    pub exits: u64,
    /// LOST records.
    pub lost: u64,
    /// Records reported lost by LOST records.
    pub lost_count: u64,
    /// EVENT records.
    pub events: u64,
    /// Argument / retval payloads.
    pub arg_payloads: u64,
    /// Event payloads.
    pub event_payloads: u64,
    /// First timestamp.
    pub first_ts: Option<u64>,
    /// Last timestamp.
    pub last_ts: Option<u64>,
    /// Deepest depth seen.
    pub max_depth: u16,
    /// Frames left open at the end.
    pub open_at_end: u64,
    /// Bytes walked.
    pub bytes: u64,
    /// Walk stopped early (bad magic, desync).
    pub stopped: bool,
    /// An EXIT came when no frame was open, after the task's first record: no nesting by the
    /// order of ENTRY and EXIT records matches it either.
    pub unmatched_exit: bool,
}

impl DatStats {
    /// Total records.
    pub fn records(&self) -> u64 {
        self.entries
            .saturating_add(self.exits)
            .saturating_add(self.lost)
            .saturating_add(self.events)
    }
}

/// Where [`Chunks`] gets its bytes.
enum Source<'r> {
    /// `read()` calls on this thread.
    Direct(&'r mut dyn SeqRead),
    /// Blocks read ahead by a [`prefetch`] thread: each holds its data at
    /// `PREFETCH_HEAD..PREFETCH_HEAD + len`; the head room takes the unconsumed tail of the
    /// previous block, so no block is copied. Used blocks go back through `empty`.
    Prefetch {
        full: Receiver<io::Result<(Vec<u8>, usize)>>,
        empty: SyncSender<Vec<u8>>,
    },
}

/// Files larger than this are read ahead on a second thread.
const PREFETCH_MIN: u64 = 4 << 20;
/// Data bytes of one read-ahead block.
const PREFETCH_BLOCK: usize = 1 << 20;
/// Head room of a read-ahead block: more than the largest contiguous request (an event
/// payload: 2 + 65535 bytes, padded to 8).
const PREFETCH_HEAD: usize = 80 << 10;
/// Blocks the read-ahead thread allocates (one being consumed, one queued, one being read).
const PREFETCH_BLOCKS: usize = 3;

/// Body of the read-ahead thread: fills blocks until end of file, an error, or until the
/// walker hangs up.
fn prefetch(
    src: &mut (dyn Read + Send),
    full: &SyncSender<io::Result<(Vec<u8>, usize)>>,
    empty: &Receiver<Vec<u8>>,
) {
    let mut spare = PREFETCH_BLOCKS;
    loop {
        let mut buf = if spare > 0 {
            spare = spare.saturating_sub(1);
            Vec::new()
        } else {
            match empty.recv() {
                Ok(b) => b,
                Err(_) => return,
            }
        };
        let size = PREFETCH_HEAD.saturating_add(PREFETCH_BLOCK);
        if buf.len() != size {
            buf.resize(size, 0);
        }
        let mut n = 0usize;
        let mut error = None;
        loop {
            let dst = buf
                .get_mut(PREFETCH_HEAD.saturating_add(n)..)
                .unwrap_or(&mut []);
            if dst.is_empty() {
                break;
            }
            match src.read(dst) {
                Ok(0) => break,
                Ok(k) => n = n.saturating_add(k),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        let end = error.is_some() || n < PREFETCH_BLOCK;
        if n > 0 && full.send(Ok((buf, n))).is_err() {
            return;
        }
        if let Some(e) = error {
            let _ = full.send(Err(e));
        }
        if end {
            return;
        }
    }
}

/// Buffered sequential reader with absolute offsets.
struct Chunks<'r> {
    src: Source<'r>,
    buf: Vec<u8>,
    base: u64,
    lo: usize,
    hi: usize,
    eof: bool,
    io_error: Option<std::io::Error>,
}

impl<'r> Chunks<'r> {
    fn new(src: Source<'r>, buf_len: usize) -> Self {
        Chunks {
            src,
            buf: vec![0u8; buf_len],
            base: 0,
            lo: 0,
            hi: 0,
            eof: false,
            io_error: None,
        }
    }

    fn avail(&self) -> usize {
        self.hi.saturating_sub(self.lo)
    }

    /// Absolute offset of the next unconsumed byte. `base` is the offset of `buf[0]`, which
    /// for a read-ahead block can lie before the start of the file (the head room of the
    /// first block), hence the modular arithmetic: the sum is always a real offset.
    fn offset(&self) -> u64 {
        self.base.wrapping_add(self.lo as u64)
    }

    /// Makes at least `n` bytes available if the file has them; returns what is available.
    #[inline]
    fn fill(&mut self, n: usize) -> usize {
        if self.avail() >= n || self.eof {
            return self.avail();
        }
        self.refill(n)
    }

    #[cold]
    #[inline(never)]
    fn refill(&mut self, n: usize) -> usize {
        let Source::Direct(src) = &mut self.src else {
            return self.refill_prefetched(n);
        };
        if self.lo > 0 {
            self.buf.copy_within(self.lo..self.hi, 0);
            self.base = self.base.saturating_add(self.lo as u64);
            self.hi = self.hi.saturating_sub(self.lo);
            self.lo = 0;
        }
        if self.buf.len() < n {
            self.buf.resize(n, 0);
        }
        while self.hi < n && !self.eof {
            let dst = self.buf.get_mut(self.hi..).unwrap_or(&mut []);
            match src.read(dst) {
                Ok(0) => self.eof = true,
                Ok(k) => self.hi = self.hi.saturating_add(k),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.io_error = Some(e);
                    self.eof = true;
                }
            }
        }
        self.avail()
    }

    /// [`Chunks::refill`] from read-ahead blocks.
    fn refill_prefetched(&mut self, n: usize) -> usize {
        let Source::Prefetch { full, empty } = &self.src else {
            return self.avail();
        };
        while self.avail() < n && !self.eof {
            match full.recv() {
                Err(_) => self.eof = true,
                Ok(Err(e)) => {
                    self.io_error = Some(e);
                    self.eof = true;
                }
                Ok(Ok((mut block, len))) => {
                    let left = self.avail();
                    let data_end = PREFETCH_HEAD.saturating_add(len);
                    let tail = self.buf.get(self.lo..self.hi).unwrap_or(&[]);
                    let new_lo = PREFETCH_HEAD.saturating_sub(left);
                    let old = if left <= PREFETCH_HEAD && block.len() >= data_end {
                        // The unconsumed tail goes into the head room of the new block.
                        if let Some(dst) = block.get_mut(new_lo..PREFETCH_HEAD) {
                            dst.copy_from_slice(tail);
                        }
                        let offset = self.offset();
                        let old = std::mem::replace(&mut self.buf, block);
                        self.base = offset.wrapping_sub(new_lo as u64);
                        self.lo = new_lo;
                        self.hi = data_end;
                        old
                    } else {
                        // Not reached with requests below the head room: append instead.
                        self.buf.copy_within(self.lo..self.hi, 0);
                        self.base = self.offset();
                        self.buf.truncate(left);
                        self.buf
                            .extend_from_slice(block.get(PREFETCH_HEAD..data_end).unwrap_or(&[]));
                        self.lo = 0;
                        self.hi = self.buf.len();
                        block
                    };
                    if !old.is_empty() {
                        let _ = empty.try_send(old);
                    }
                }
            }
        }
        self.avail()
    }

    fn window(&self) -> &[u8] {
        self.buf.get(self.lo..self.hi).unwrap_or(&[])
    }

    /// Moves `n` bytes forward without reading them where the source allows.
    fn skip(&mut self, n: u64) {
        let avail = self.avail() as u64;
        if n <= avail {
            self.consume(usize::try_from(n).unwrap_or(usize::MAX));
            return;
        }
        let to = self.offset().saturating_add(n);
        let rest = n.saturating_sub(avail);
        self.lo = self.hi;
        match &mut self.src {
            Source::Direct(src) => {
                if let Err(e) = src.skip(rest) {
                    self.io_error = Some(e);
                    self.eof = true;
                }
                self.base = to;
                self.lo = 0;
                self.hi = 0;
            }
            Source::Prefetch { .. } => {
                // Read-ahead blocks come in order: drop them up to `to`.
                while self.offset() < to && !self.eof {
                    let left = to.saturating_sub(self.offset());
                    if self.avail() as u64 >= left {
                        self.consume(usize::try_from(left).unwrap_or(usize::MAX));
                        break;
                    }
                    self.lo = self.hi;
                    self.refill_prefetched(1);
                }
            }
        }
    }

    fn consume(&mut self, n: usize) {
        self.lo = self.lo.saturating_add(n).min(self.hi);
    }
}

/// Findings of one rule reported individually per file; the rest are counted.
const CAP: u64 = 8;

/// Reports how many findings of `c`'s rule were held back in this file, at the first one.
fn finish_capped(c: &Capped, sink: &mut Sink, file_len: u64) {
    if c.hidden() > 0 {
        let off = c.first().map_or(0, |r| r.start);
        sink.report(
            c.rule(),
            off..off.min(file_len),
            format!(
                "{} more {} finding(s) in this file not shown individually ({} in all)",
                c.hidden(),
                c.rule().code,
                c.count()
            ),
        );
    }
}

/// A resolved function: the symbol's absolute range and what is known about its payloads
/// (40 bytes, so that the whole cache stays in the L2 cache).
#[derive(Clone, Copy)]
struct Cache {
    lo: u64,
    hi: u64,
    table: u32,
    sym: u32,
    /// Index into the resolved specs once looked up, [`NONE`] before.
    spec: u32,
    /// Padded fixed ENTRY / EXIT payload lengths once the spec is looked up ([`NONE`] when
    /// unknown or variable).
    fixed: [u32; 2],
}

/// "Not known" in the `u32` fields of [`Cache`].
const NONE: u32 = u32::MAX;

/// Slots of the function cache (direct-mapped by record address).
const CACHE_SLOTS: usize = 4096;

impl Cache {
    const EMPTY: Cache = Cache {
        lo: 1,
        hi: 0,
        table: 0,
        sym: 0,
        spec: NONE,
        fixed: [NONE; 2],
    };

    /// A freshly resolved function (None when the indexes do not fit the compact fields).
    fn new(table: usize, sym: usize, lo: u64, hi: u64) -> Option<Cache> {
        Some(Cache {
            lo,
            hi,
            table: u32::try_from(table).ok().filter(|&t| t != NONE)?,
            sym: u32::try_from(sym).ok().filter(|&t| t != NONE)?,
            spec: NONE,
            fixed: [NONE; 2],
        })
    }

    #[inline]
    fn covers(&self, addr: u64) -> bool {
        addr >= self.lo && addr < self.hi
    }
}

/// The cache slot of a record address (ENTRY and EXIT carry the same address, inside the
/// function's first bytes). Functions are more than 8 bytes apart, so the functions of any
/// 32 KiB of code never share a slot.
#[inline]
fn slot(addr: u64) -> usize {
    ((addr >> 3) as usize) & (CACHE_SLOTS - 1)
}

/// First dlopen of `s` after `time` (resolutions may change there).
fn next_dlopen(s: Option<&SessCtx>, time: u64) -> u64 {
    s.into_iter()
        .flat_map(|s| s.dlopens.iter())
        .map(|&(t, _, _)| t)
        .filter(|&t| t > time)
        .min()
        .unwrap_or(u64::MAX)
}

/// An open frame.
#[derive(Clone, Copy, Default)]
struct Frame {
    depth: u16,
    /// Resolved by the fast path since the last cache flush (its EXIT need not look it up).
    resolved: bool,
    addr: u64,
}

/// Depths have 10 bits and the open frames are strictly increasing in depth, so at most 1024
/// frames are ever open.
const MAX_FRAMES: usize = 1024;

/// The open frames of a task, innermost last (fixed capacity, see [`MAX_FRAMES`]).
struct Frames {
    buf: Vec<Frame>,
    len: usize,
}

impl Frames {
    fn new() -> Self {
        Frames {
            buf: vec![Frame::default(); MAX_FRAMES],
            len: 0,
        }
    }

    #[inline]
    fn last(&self) -> Option<&Frame> {
        self.buf.get(self.len.checked_sub(1)?)
    }

    #[inline]
    fn pop(&mut self) {
        self.len = self.len.saturating_sub(1);
    }

    /// Pushes a frame (callers pop every frame at or below its depth first, so the stack
    /// cannot be full; a push onto a full stack would be dropped).
    #[inline]
    fn push(&mut self, f: Frame) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = f;
            self.len = self.len.saturating_add(1);
        }
    }

    fn clear(&mut self) {
        self.len = 0;
    }

    fn forget_resolved(&mut self) {
        let n = self.len;
        self.buf.iter_mut().take(n).for_each(|f| f.resolved = false);
    }
}

/// State carried through [`fast_run`].
struct Run {
    /// Previous timestamp (`u64::MAX` before the first record: nothing is fast until then).
    prev: u64,
    /// Expected depth of the next ENTRY (`u32::MAX`: unknown).
    cur: u32,
    max_depth: u16,
    entries: u64,
    exits: u64,
    payloads: u64,
}

/// What [`fast_run`] must leave to the full path.
struct RunLimits {
    /// Records at or after this time (next session start or dlopen) take the full path.
    time: u64,
    max_stack: u16,
    /// Payloads are allowed by version and feature bits.
    payload_ok: bool,
}

/// The fast path: consumes the longest prefix of `win` made of ENTRY/EXIT records that can
/// give no finding (magic 5, time order, below `max_stack`, nested as expected, function in
/// the cache, fixed-length payload inside `win`) and returns its length in bytes. The state
/// it updates is exactly what the full path would have updated for those records.
#[inline(never)]
fn fast_run<E: Endianity + Default>(
    win: &[u8],
    fc: &[Cache],
    stack: &mut Frames,
    lim: &RunLimits,
    run: &mut Run,
) -> usize {
    let e = E::default();
    let mut p = 0usize;
    let mut prev = run.prev;
    let mut cur = run.cur;
    let mut max_depth = run.max_depth;
    let (mut entries, mut exits, mut payloads) = (0u64, 0u64, 0u64);
    let mut last = Cache::EMPTY;
    let mut len = stack.len;
    let frames = stack.buf.as_mut_slice();
    while let Some((time, w)) = win.get(p..).and_then(|v| record_at(e, v)) {
        let RecordWord {
            typ,
            more,
            depth,
            addr,
            ..
        } = w;
        if !w.magic_ok() || typ > EXIT || time < prev || time >= lim.time {
            break;
        }
        if depth >= lim.max_stack || (more && !lim.payload_ok) {
            break;
        }
        let top = len.checked_sub(1).and_then(|i| frames.get(i)).copied();
        // The frame this record opens (ENTRY) or closes (EXIT) must nest as expected. A frame
        // pushed here had its address resolved in this session since the last flush, so its
        // EXIT needs the function again only for a payload.
        let need_fn = if typ == ENTRY {
            if cur != u32::from(depth)
                || top.is_some_and(|f| f.depth >= depth)
                || len >= frames.len()
            {
                break;
            }
            true
        } else {
            let Some(f) = top else { break };
            if f.depth != depth || f.addr != addr {
                break;
            }
            !f.resolved || more
        };
        if need_fn && !last.covers(addr) {
            match fc.get(slot(addr)) {
                Some(c) if c.covers(addr) => last = *c,
                _ => break,
            }
        }
        let plen = match (more, typ) {
            (false, _) => 0,
            (true, ENTRY) => last.fixed[0],
            (true, _) => last.fixed[1],
        };
        if plen == NONE || p.saturating_add(RECORD_LEN).saturating_add(plen as usize) > win.len() {
            break;
        }
        if typ == ENTRY {
            if let Some(f) = frames.get_mut(len) {
                *f = Frame {
                    depth,
                    resolved: true,
                    addr,
                };
            }
            len = len.saturating_add(1);
            cur = u32::from(depth).saturating_add(1);
            entries = entries.wrapping_add(1);
        } else {
            len = len.saturating_sub(1);
            cur = u32::from(depth);
            exits = exits.wrapping_add(1);
        }
        if more {
            // A payload may be empty (`t0`, an empty struct): it still counts.
            payloads = payloads.wrapping_add(1);
        }
        max_depth = max_depth.max(depth);
        prev = time;
        p = p.saturating_add(RECORD_LEN).saturating_add(plen as usize);
    }
    stack.len = len;
    run.prev = prev;
    run.cur = cur;
    run.max_depth = max_depth;
    run.entries = entries;
    run.exits = exits;
    run.payloads = payloads;
    p
}

/// Walks one task file.
pub fn walk(
    tid: u64,
    src: &mut dyn SeqRead,
    file_len: u64,
    ctx: &DatCtx<'_>,
    runs: Option<&RecordSieve>,
    sink: &mut Sink,
) -> DatStats {
    let st = walk_records(tid, src, file_len, ctx, runs, sink);
    if ctx.max_stack > 1024 && sink.has(&rules::NESTING_MISMATCH) {
        sink.note_all(
            &rules::NESTING_MISMATCH,
            &format!(
                "max_stack is {}: the record's depth field has 10 bits and libmcount does not mask it, so calls deeper than 1023 wrap around; uftrace 0.9.4–0.18.1 drop or misplace them (record with --max-stack 1024 or less)",
                ctx.max_stack
            ),
        );
    }
    if st.max_depth == 0
        && st.entries > 0
        && !st.unmatched_exit
        && sink.has(&rules::NESTING_MISMATCH)
    {
        // A writer that stores no depth (every record at depth 0: rftrace and other
        // third-party writers). The readers nest calls by the order of ENTRY and EXIT
        // records (fstack.c counts `stack_count` up and down; the recorded depth only seeds
        // it at a task's first record and after LOST). An EXIT with no frame open matches
        // no order either: an ENTRY made EXIT, which every reader shows as written.
        sink.relevel(
            &rules::NESTING_MISMATCH,
            Severity::Warning,
            Impact {
                reader: "uftrace",
                versions: "0.9.4–0.18.1",
                effect: "same",
            },
            |f| {
                if let Some(i) = f.message.find(NESTING_TAIL) {
                    f.message.truncate(i);
                }
                f.message.push_str("; every record of this task has depth 0 (a writer that stores no depth), and uftrace 0.9.4–0.18.1 `replay`, `graph` and `report` nest the calls by ENTRY/EXIT order and read them the same (`dump` prints the depth as recorded)");
            },
        );
    }
    st
}

fn walk_records(
    tid: u64,
    src: &mut dyn SeqRead,
    file_len: u64,
    ctx: &DatCtx<'_>,
    runs: Option<&RecordSieve>,
    sink: &mut Sink,
) -> DatStats {
    // Runs the walker may take (see [`RecordSieve`]): then it reads on this thread, skipping
    // what the runs cover.
    let usable =
        |r: &&RecordSieve| !r.runs().is_empty() && ctx.fast && ctx.endian == Endian::Little;
    if let Some(sv) = runs.filter(|r| !usable(r) && r.has_holes()) {
        // Every byte is read, and some were not kept.
        sv.spoil();
    }
    let runs = runs.filter(usable);
    if file_len <= PREFETCH_MIN || runs.is_some() {
        let ch = Chunks::new(
            Source::Direct(src),
            CHUNK.min(usize::try_from(file_len).unwrap_or(CHUNK).max(64)),
        );
        return walk_in(tid, ch, file_len, ctx, runs, sink);
    }
    // Large file: a second thread reads ahead while this one checks.
    std::thread::scope(|scope| {
        let (full_tx, full_rx) = sync_channel(1);
        let (empty_tx, empty_rx) = sync_channel(PREFETCH_BLOCKS.saturating_add(1));
        scope.spawn(move || prefetch(src, &full_tx, &empty_rx));
        let ch = Chunks::new(
            Source::Prefetch {
                full: full_rx,
                empty: empty_tx,
            },
            0,
        );
        // `ch` (and with it the channels) is dropped when the walk returns, which stops the
        // reader if the walk ended early.
        walk_in(tid, ch, file_len, ctx, None, sink)
    })
}

fn walk_in(
    tid: u64,
    ch: Chunks<'_>,
    file_len: u64,
    ctx: &DatCtx<'_>,
    runs: Option<&RecordSieve>,
    sink: &mut Sink,
) -> DatStats {
    if ctx.endian == Endian::Little {
        Walk::<LittleEndian>::new(tid, ch, file_len, ctx, runs, sink).run()
    } else {
        Walk::<BigEndian>::new(tid, ch, file_len, ctx, None, sink).run()
    }
}

/// The per-rule caps of the walk's findings ([`CAP`] each per file).
struct Caps {
    time: Capped,
    nest: Capped,
    exit: Capped,
    depth: Capped,
    unres: Capped,
    lost: Capped,
    evid: Capped,
    more: Capped,
    evpl: Capped,
}

impl Caps {
    fn new() -> Self {
        Caps {
            time: Capped::new(&rules::TIME_BACKWARDS, CAP),
            nest: Capped::new(&rules::NESTING_MISMATCH, CAP),
            exit: Capped::new(&rules::EXIT_ADDRESS_MISMATCH, CAP),
            depth: Capped::new(&rules::DEPTH_EXCEEDS_MAX_STACK, CAP),
            unres: Capped::new(&rules::UNRESOLVED_ADDRESS, CAP),
            lost: Capped::new(&rules::LOST_RECORDS, CAP),
            evid: Capped::new(&rules::UNKNOWN_EVENT_ID, CAP),
            more: Capped::new(&rules::UNEXPECTED_PAYLOAD_FLAG, CAP),
            evpl: Capped::new(&rules::EVENT_PAYLOAD, CAP),
        }
    }

    /// Reports the findings held back, rule by rule.
    fn finish(&self, sink: &mut Sink, file_len: u64) {
        for c in [
            &self.time,
            &self.nest,
            &self.exit,
            &self.depth,
            &self.unres,
            &self.lost,
            &self.evid,
            &self.more,
            &self.evpl,
        ] {
            finish_capped(c, sink, file_len);
        }
    }
}

/// Argument specs resolved so far, by (table, symbol).
#[derive(Default)]
struct Specs {
    index: HashMap<(usize, usize), usize>,
    list: Vec<FuncArgs>,
}

impl Specs {
    /// The index of the specs of `key` in `list`, resolved on first use.
    fn lookup(&mut self, ctx: &DatCtx<'_>, key: (usize, usize)) -> usize {
        let list = &mut self.list;
        *self.index.entry(key).or_insert_with(|| {
            list.push((ctx.specs)(key.0, key.1));
            list.len().saturating_sub(1)
        })
    }
}

/// Where the next run of the first pass starts, unless one was taken.
enum RunAt {
    /// A run was taken: the walk goes on at its end.
    Taken,
    /// Offset of the next run (`u64::MAX`: none).
    Next(u64),
}

/// The walk over one task file, for one byte order (fixed by type): a state machine over
/// records (call stack, depth, time order, payloads), one method per record type. Records
/// the fast path ([`fast_run`]) or a run of the first pass cannot take go through
/// [`Walk::record`] one at a time.
struct Walk<'c, 'r, 's, E> {
    e: E,
    tid: u64,
    ch: Chunks<'r>,
    file_len: u64,
    ctx: &'c DatCtx<'c>,
    sieve: Option<&'c RecordSieve>,
    /// Frames open by the order of ENTRY and EXIT records alone (what the readers count for
    /// a writer that stores no depth), `None` before the first ENTRY or EXIT and after LOST.
    order: Option<u64>,
    /// The runs of `sieve`.
    runs: &'c [RecordRun],
    /// Index into `runs` of the next run that may start here or later.
    next_run: usize,
    sink: &'s mut Sink,
    st: DatStats,
    /// Records by type.
    counts: [u64; 4],
    /// Per start time, the session in force for the task.
    timeline: &'c [(u64, usize)],
    /// Index into `timeline` of the active session.
    tl_idx: Option<usize>,
    /// Start of the next session of `timeline`.
    next_start: u64,
    /// The task's switched-out stretches, the index of the next one a record may fall in,
    /// and the time from which the full path checks a record against it.
    outs: &'c [OutInterval],
    out_idx: usize,
    next_out: u64,
    out_reported: bool,
    sess: Option<&'c SessCtx>,
    last_ts: Option<u64>,
    /// Open frames.
    stack: Frames,
    /// Expected depth of the next ENTRY.
    cur: Option<u16>,
    /// Resolved functions; cleared when the session changes or a library is dlopen'ed.
    fcache: Vec<Cache>,
    /// Next dlopen of the session.
    next_dl: u64,
    specs: Specs,
    caps: Caps,
    feat_arg_reported: bool,
}

impl<'c, 'r, 's, E: Endianity + Default> Walk<'c, 'r, 's, E> {
    fn new(
        tid: u64,
        ch: Chunks<'r>,
        file_len: u64,
        ctx: &'c DatCtx<'c>,
        sieve: Option<&'c RecordSieve>,
        sink: &'s mut Sink,
    ) -> Self {
        let timeline: &[(u64, usize)] = ctx.timelines.get(&tid).map(Vec::as_slice).unwrap_or(&[]);
        let outs: &[OutInterval] = ctx.outs.get(&tid).map(Vec::as_slice).unwrap_or(&[]);
        Walk {
            e: E::default(),
            tid,
            ch,
            file_len,
            ctx,
            sieve,
            runs: sieve.map_or(&[], RecordSieve::runs),
            next_run: 0,
            sink,
            st: DatStats::default(),
            order: None,
            counts: [0; 4],
            timeline,
            tl_idx: None,
            next_start: timeline.first().map_or(u64::MAX, |&(t, _)| t),
            outs,
            out_idx: 0,
            next_out: outs.first().map_or(u64::MAX, |iv| iv.out),
            out_reported: false,
            sess: None,
            last_ts: None,
            stack: Frames::new(),
            cur: None,
            fcache: vec![Cache::EMPTY; CACHE_SLOTS],
            next_dl: u64::MAX,
            specs: Specs::default(),
            caps: Caps::new(),
            feat_arg_reported: false,
        }
    }

    fn run(mut self) -> DatStats {
        loop {
            let run_at = match self.take_run() {
                RunAt::Taken => continue,
                RunAt::Next(at) => at,
            };
            // Fast path: well-formed ENTRY/EXIT records of the cached function, in time order,
            // nested as expected, with fixed-length payloads, all inside the buffered window.
            // Anything else (including every record that could give a finding) leaves the fast
            // loop and goes through the full path, one record at a time.
            if self.ctx.fast && self.fast(run_at) {
                // Stopped where a run starts: back to the top, which may take it.
                continue;
            }
            if self.record().is_break() {
                break;
            }
        }
        self.finish()
    }

    /// Takes the run of the first pass that starts here, if what it assumed holds.
    fn take_run(&mut self) -> RunAt {
        let runs = self.runs;
        if runs.is_empty() {
            return RunAt::Next(u64::MAX);
        }
        let off = self.ch.offset();
        // A run not taken is read: where its bytes were not kept, the walk reads zeros.
        let sieve = self.sieve;
        let read = |r: &RecordRun| {
            if let Some(sv) = sieve.filter(|sv| !sv.kept(&(r.start..r.end))) {
                sv.spoil();
            }
        };
        while let Some(r) = runs.get(self.next_run).filter(|r| r.start < off) {
            read(r);
            self.next_run = self.next_run.saturating_add(1);
        }
        if let Some(r) = runs.get(self.next_run).filter(|r| r.start == off) {
            self.next_run = self.next_run.saturating_add(1);
            if self.run_holds(r) {
                self.take(r);
                return RunAt::Taken;
            }
            read(r);
        }
        RunAt::Next(runs.get(self.next_run).map_or(u64::MAX, |r| r.start))
    }

    /// Whether the walker, in its state, would read the records of `r` without a finding
    /// and end in the run's end state: the run starts from exactly this state, no session
    /// start or dlopen falls inside, its depths stay below `max_stack`, every address
    /// resolves in the session in effect (resolving them fills the function cache, as
    /// reading the records would), and every payload length it was framed with is the fixed
    /// length of the function's spec.
    fn run_holds(&mut self, r: &RecordRun) -> bool {
        let ctx = self.ctx;
        let same_stack = self.stack.len == r.start_stack.len()
            && self
                .stack
                .buf
                .iter()
                .zip(r.start_stack.iter())
                .all(|(f, &(d, a))| f.depth == d && f.addr == a);
        let Some(s) = self.sess else { return false };
        if self.cur != Some(r.start_cur)
            || self.last_ts.is_none_or(|t| t > r.first_time)
            || !same_stack
            || r.last_time >= self.next_start.min(self.next_dl)
            || r.max_depth >= ctx.max_stack
            || (r.payloads > 0 && !payloads_allowed(ctx, self.feat_arg_reported))
        {
            return false;
        }
        for f in &r.funcs {
            let si = slot(f.addr);
            let key = match self.fcache.get(si) {
                Some(c) if c.covers(f.addr) => (c.table as usize, c.sym as usize),
                _ => match resolve(s, ctx, f.addr, r.first_time) {
                    Ok((table, sym, lo, hi)) => {
                        if let (Some(c), Some(new)) =
                            (self.fcache.get_mut(si), Cache::new(table, sym, lo, hi))
                        {
                            *c = new;
                        }
                        (table, sym)
                    }
                    Err(_) => return false,
                },
            };
            if f.len == [NO_PAYLOAD; 2] {
                continue;
            }
            let i = self.specs.lookup(ctx, key);
            let Some(fa) = self.specs.list.get(i) else {
                return false;
            };
            let fits = |len: u32, fixed: Option<usize>| {
                len == NO_PAYLOAD || fixed.is_some_and(|n| n as u64 == u64::from(len))
            };
            let [le, lx] = f.len;
            if !fits(le, fa.entry_fixed) || !fits(lx, fa.exit_fixed) {
                return false;
            }
        }
        true
    }

    /// Takes run `r` whole: its counts and end state, without reading its bytes.
    fn take(&mut self, r: &RecordRun) {
        self.order = self
            .order
            .map(|o| o.saturating_add(r.entries).saturating_sub(r.exits));
        let [e, x, _, _] = &mut self.counts;
        *e = e.wrapping_add(r.entries);
        *x = x.wrapping_add(r.exits);
        self.st.arg_payloads = self.st.arg_payloads.saturating_add(r.payloads);
        self.st.max_depth = self.st.max_depth.max(r.max_depth);
        self.last_ts = Some(r.last_time);
        // The run's records were verified by the first pass without their times against the
        // switched-out stretches: its first and last records are checked here.
        if r.first_time >= self.next_out {
            self.out_check(r.start, r.first_time);
        }
        if r.last_time >= self.next_out {
            self.out_check(r.end.saturating_sub(RECORD_LEN as u64), r.last_time);
        }
        self.cur = Some(r.end_cur);
        self.stack.clear();
        for &(depth, addr) in &r.end_stack {
            self.stack.push(Frame {
                depth,
                resolved: false,
                addr,
            });
        }
        self.ch.skip(r.end.saturating_sub(r.start));
        if let Some(sv) = self.sieve {
            sv.note_taken(r);
        }
    }

    /// Runs the fast path over the buffered window, up to `run_at` (where the next run starts,
    /// so that the walk can take it); returns whether it stopped there.
    fn fast(&mut self, run_at: u64) -> bool {
        self.ch.fill(RECORD_LEN + FAST_SLACK);
        let mut run = Run {
            prev: self.last_ts.unwrap_or(u64::MAX),
            cur: self.cur.map_or(u32::MAX, u32::from),
            max_depth: self.st.max_depth,
            entries: 0,
            exits: 0,
            payloads: 0,
        };
        let limits = RunLimits {
            time: self.next_start.min(self.next_dl).min(self.next_out),
            max_stack: self.ctx.max_stack,
            payload_ok: payloads_allowed(self.ctx, self.feat_arg_reported),
        };
        let win = self.ch.window();
        let room = usize::try_from(run_at.saturating_sub(self.ch.offset())).unwrap_or(usize::MAX);
        let win = win.get(..room.min(win.len())).unwrap_or(win);
        let p = fast_run::<E>(win, &self.fcache, &mut self.stack, &limits, &mut run);
        if p > 0 {
            self.order = self
                .order
                .map(|o| o.saturating_add(run.entries).saturating_sub(run.exits));
            let [e, x, _, _] = &mut self.counts;
            *e = e.wrapping_add(run.entries);
            *x = x.wrapping_add(run.exits);
            self.st.arg_payloads = self.st.arg_payloads.saturating_add(run.payloads);
            self.st.max_depth = run.max_depth;
            self.last_ts = Some(run.prev);
            self.cur = u16::try_from(run.cur).ok();
            self.ch.consume(p);
        }
        self.ch.offset() == run_at
    }

    /// The full path: one record and its payload. Breaks where the walk stops.
    fn record(&mut self) -> ControlFlow<()> {
        if self.ch.avail() < RECORD_LEN {
            self.ch.fill(RECORD_LEN);
        }
        let off = self.ch.offset();
        let head = record::head(self.e, self.ch.window(), off, self.file_len, self.sink);
        let (time, w) = match head {
            Head::Record(time, w) => (time, w),
            Head::BadMagic => {
                self.ch.consume(RECORD_LEN);
                self.st.stopped = true;
                return ControlFlow::Break(());
            }
            Head::End => return ControlFlow::Break(()),
        };
        self.ch.consume(RECORD_LEN);
        if let Some(c) = self.counts.get_mut(usize::from(w.typ)) {
            *c = c.wrapping_add(1);
        }
        if w.typ == LOST {
            self.lost(off, time, w);
            return ControlFlow::Continue(());
        }
        self.advance(off, time);
        if w.depth > self.st.max_depth {
            self.st.max_depth = w.depth;
        }
        if w.typ == EVENT {
            return self.event(off, w);
        }
        if w.depth >= self.ctx.max_stack && self.caps.depth.hit(&(off..off)) {
            self.sink.report(
                &rules::DEPTH_EXCEEDS_MAX_STACK,
                off.saturating_add(8)..off.saturating_add(16),
                format!(
                    "depth {} is not below max_stack {}",
                    w.depth, self.ctx.max_stack
                ),
            );
        }
        if w.typ == ENTRY {
            self.entry(off, w);
        } else {
            self.exit(off, time, w);
        }
        let func = self.function(off, time, w);
        if !w.more {
            return ControlFlow::Continue(());
        }
        self.payload(off, w, func)
    }

    /// A LOST record: the open frames are forgotten.
    fn lost(&mut self, off: u64, time: u64, w: RecordWord) {
        self.order = None;
        let RecordWord {
            more, depth, addr, ..
        } = w;
        self.st.lost_count = self.st.lost_count.saturating_add(addr);
        if self.caps.lost.hit(&(off..off)) {
            // libmcount (record.c, 0.9.4–0.18.1) writes a LOST record with time 0 and
            // more 0 (it leaves the depth as the buffer had it). One with a time or a
            // payload flag is a damaged ENTRY/EXIT: readers take it for lost records and
            // drop the call it was.
            let damaged = time != 0 || more;
            let odd = damaged || addr == 0;
            let mut msg = format!("the recorder lost {addr} record(s) here");
            if odd {
                msg.push_str(&format!(
                    "; a LOST record should have time 0, more 0 and a positive count (time {time}, depth {depth}, more {})",
                    u8::from(more)
                ));
            }
            let span = off..off.saturating_add(16);
            let f = if damaged {
                msg.push_str(": libmcount never writes one like this, so this is a damaged record, and uftrace 0.9.4–0.18.1 print `LOST` in place of the call it was");
                self.sink.make(&rules::LOST_RECORDS, span, msg).fails(
                    "uftrace",
                    "0.9.4–0.18.1",
                    "loss",
                )
            } else {
                self.sink.make(&rules::LOST_RECORDS, span, msg)
            };
            self.sink.push(f);
        }
        if more && self.caps.more.hit(&(off..off)) {
            self.sink.report(
                &rules::UNEXPECTED_PAYLOAD_FLAG,
                off.saturating_add(8)..off.saturating_add(9),
                "a LOST record has more=1; uftrace reads no payload after it",
            );
        }
        self.stack.clear();
        self.cur = None;
    }

    /// The time of a record other than LOST: its order, and the session and dlopens in
    /// force from it on.
    fn advance(&mut self, off: u64, time: u64) {
        if let Some(prev) = self.last_ts {
            if time < prev && self.caps.time.hit(&(off..off)) {
                self.sink.report(
                    &rules::TIME_BACKWARDS,
                    off..off.saturating_add(8),
                    format!(
                        "timestamp {} is earlier than the previous record's {}",
                        fmt_ts(time),
                        fmt_ts(prev)
                    ),
                );
            }
        }
        self.last_ts = Some(time);
        if self.st.first_ts.is_none() {
            self.st.first_ts = Some(time);
        }
        // Session for this time (re-evaluated only when the next session's start is reached).
        if time >= self.next_start {
            self.enter_session(time);
        }
        if time >= self.next_dl {
            self.fcache.fill(Cache::EMPTY);
            self.stack.forget_resolved();
            self.next_dl = next_dlopen(self.sess, time);
        }
        if time >= self.next_out {
            self.out_check(off, time);
        }
    }

    /// A record at `time` against the task's switched-out stretches: a task switched out
    /// runs no code, so a record strictly inside one means the perf records of where it ran
    /// meanwhile are missing. Reported once per task; moves `next_out` on.
    fn out_check(&mut self, off: u64, time: u64) {
        while let Some(iv) = self.outs.get(self.out_idx) {
            if time >= iv.back {
                self.out_idx = self.out_idx.saturating_add(1);
                continue;
            }
            if time > iv.out && !self.out_reported {
                self.out_reported = true;
                super::perf_tasks::record_while_out(
                    self.sink,
                    (self.tid, off, time),
                    iv,
                    self.ctx.perf_names,
                );
            }
            break;
        }
        self.next_out = match self.outs.get(self.out_idx) {
            Some(iv) if time > iv.out => iv.back,
            Some(iv) => iv.out,
            None => u64::MAX,
        };
    }

    /// Moves to the session of the timeline in force at `time`.
    fn enter_session(&mut self, time: u64) {
        let timeline = self.timeline;
        let prev_idx = self.tl_idx;
        let next = |i: Option<usize>| i.map_or(0, |i| i.saturating_add(1));
        while let Some(&(start, _)) = timeline.get(next(self.tl_idx)) {
            if start <= time {
                self.tl_idx = Some(next(self.tl_idx));
            } else {
                break;
            }
        }
        self.next_start = timeline
            .get(next(self.tl_idx))
            .map_or(u64::MAX, |&(t, _)| t);
        if prev_idx.is_some() && self.tl_idx != prev_idx {
            // exec (or a new session): depths restart.
            self.stack.clear();
            self.cur = None;
            self.fcache.fill(Cache::EMPTY);
        }
        self.sess = self
            .tl_idx
            .and_then(|i| timeline.get(i))
            .and_then(|&(_, s)| self.ctx.sessions.get(s));
        self.next_dl = next_dlopen(self.sess, time);
    }

    /// An EVENT record and its payload.
    fn event(&mut self, off: u64, w: RecordWord) -> ControlFlow<()> {
        let RecordWord {
            more, depth, addr, ..
        } = w;
        if depth != 0 && self.caps.evid.hit(&(off..off)) {
            self.sink.report(
                &rules::UNKNOWN_EVENT_ID,
                off.saturating_add(8)..off.saturating_add(16),
                format!("EVENT record has depth {depth}; events are written with depth 0"),
            );
        }
        check_event_id(addr, off, self.ctx, self.sink, &mut self.caps.evid);
        if !more {
            return ControlFlow::Continue(());
        }
        if self.ctx.version < 4 && self.caps.more.hit(&(off..off)) {
            self.sink.report(
                &rules::UNEXPECTED_PAYLOAD_FLAG,
                off.saturating_add(8)..off.saturating_add(9),
                "a version 3 recording cannot have payloads (more=1)",
            );
        }
        self.st.event_payloads = self.st.event_payloads.saturating_add(1);
        let pstart = self.ch.offset();
        if self.ch.fill(2) < 2 {
            truncated_payload(self.sink, pstart, self.ch.avail(), "event payload length");
            return ControlFlow::Break(());
        }
        let len = match self.ch.window().split_first_chunk::<2>() {
            Some((b, _)) => self.e.read_u16(*b),
            None => 0,
        };
        let total = align8(u64::from(len).saturating_add(2));
        self.event_len(off, pstart, addr, len);
        let need = usize::try_from(total).unwrap_or(usize::MAX);
        if self.ch.fill(need) < need {
            truncated_payload(self.sink, pstart, self.ch.avail(), "event payload");
            return ControlFlow::Break(());
        }
        self.ch.consume(need);
        ControlFlow::Continue(())
    }

    /// The payload length `len` of event `id` (record at `off`, payload at `pstart`) against
    /// what uftrace expects.
    fn event_len(&mut self, off: u64, pstart: u64, id: u64, len: u16) {
        if let Some(expected) = expected_event_len(id) {
            if u64::from(len) != expected && self.caps.evpl.hit(&(off..off)) {
                let f = self
                    .sink
                    .make(
                        &rules::EVENT_PAYLOAD,
                        pstart..pstart.saturating_add(2),
                        format!(
                            "event {id} ({}) has payload length {len}, expected {expected}",
                            event_name(id)
                        ),
                    )
                    .note("uftrace 0.13 aborts on `ASSERT(len == buflen)`");
                self.sink.push(f);
            }
        } else if self.caps.evpl.hit(&(off..off)) {
            self.sink.report(
                &rules::EVENT_PAYLOAD,
                off..off.saturating_add(16),
                format!(
                    "event {id} has a payload but uftrace knows no payload for this id (\"unknown event has data\")"
                ),
            );
        }
    }

    /// An ENTRY record: a frame opens at its depth.
    fn entry(&mut self, off: u64, w: RecordWord) {
        let RecordWord { depth, addr, .. } = w;
        self.order = Some(self.order.unwrap_or(0).saturating_add(1));
        if let Some(c) = self.cur {
            if depth != c && self.caps.nest.hit(&(off..off)) {
                report_nesting(
                    self.sink,
                    off.saturating_add(8)..off.saturating_add(16),
                    format!("ENTRY at depth {depth}, but the current depth is {c}"),
                );
            }
        }
        while self.stack.last().is_some_and(|f| f.depth >= depth) {
            self.stack.pop();
        }
        self.stack.push(Frame {
            depth,
            addr,
            resolved: false,
        });
        self.cur = Some(depth.saturating_add(1));
    }

    /// An EXIT record: the frame at its depth closes.
    fn exit(&mut self, off: u64, time: u64, w: RecordWord) {
        let RecordWord { depth, addr, .. } = w;
        self.order = match self.order {
            Some(0) => {
                self.st.unmatched_exit = true;
                Some(0)
            }
            Some(n) => Some(n.saturating_sub(1)),
            // A task's first records may close frames entered before it was traced (a fork
            // child, a trigger): they match nothing recorded.
            None => None,
        };
        let span = off.saturating_add(8)..off.saturating_add(16);
        match self.stack.last().map(|f| (f.depth, f.addr)) {
            Some((d, a)) if d == depth => {
                self.stack.pop();
                // longjmp under a depth limit (`-D`): the longjmp call itself was not
                // recorded, and the EXIT of the setjmp frame closes the frame at its depth.
                if a != addr
                    && !self.returns_to_setjmp(addr, time)
                    && self.caps.exit.hit(&(off..off))
                {
                    self.exit_mismatch(off, time, w, a);
                }
            }
            Some((d, _)) if depth < d => self.unwind(off, time, w, d),
            Some((d, _)) => {
                if self.caps.nest.hit(&(off..off)) {
                    report_nesting(
                        self.sink,
                        span,
                        format!(
                            "EXIT at depth {depth} but the innermost open frame is at depth {d}"
                        ),
                    );
                }
            }
            None => {
                if let Some(c) = self.cur {
                    if depth >= c && self.caps.nest.hit(&(off..off)) {
                        report_nesting(
                            self.sink,
                            span,
                            format!("EXIT at depth {depth} but no frame at that depth is open"),
                        );
                    }
                }
            }
        }
        self.cur = Some(depth);
    }

    /// Whether an EXIT at `addr` is a longjmp's return: libmcount records the EXIT of the
    /// setjmp frame it returns to while the frames it skips are open, the longjmp call among
    /// them or, under a depth limit (`-D`), not recorded at all. uftrace 0.9.4–0.18.1 close
    /// the skipped frames and print `} /* _setjmp */` for uftrace's own recordings of this.
    fn returns_to_setjmp(&self, addr: u64, time: u64) -> bool {
        self.name_of(addr, time).is_some_and(is_setjmp)
    }

    /// The function (table, symbol) of `addr` at `time` in the session in force.
    fn func_of(&self, addr: u64, time: u64) -> Option<(usize, usize)> {
        self.sess
            .and_then(|s| resolve(s, self.ctx, addr, time).ok())
            .map(|(t, i, _, _)| (t, i))
    }

    /// The name of the function of `addr` at `time`.
    fn name_of(&self, addr: u64, time: u64) -> Option<&'c str> {
        let ctx = self.ctx;
        self.func_of(addr, time)
            .and_then(|(t, i)| ctx.syms.get(t).map(|t| t.name(i)))
    }

    /// An EXIT whose address is not its ENTRY's (`entry_addr`).
    fn exit_mismatch(&mut self, off: u64, time: u64, w: RecordWord, entry_addr: u64) {
        let RecordWord { depth, addr, .. } = w;
        let a = entry_addr;
        // uftrace names an EXIT by its own address: another function there is a call shown
        // under two names.
        let (fe, fx) = (self.func_of(a, time), self.func_of(addr, time));
        let f = self.sink.make(
            &rules::EXIT_ADDRESS_MISMATCH,
            off.saturating_add(8)..off.saturating_add(16),
            format!("EXIT address 0x{addr:x} differs from its ENTRY's 0x{a:x} at depth {depth}"),
        );
        let f = if fe.is_some() && fe == fx {
            f.impact("uftrace", "0.9.4–0.18.1", "same")
        } else {
            let ctx = self.ctx;
            let name = |x: Option<(usize, usize)>| {
                x.and_then(|(t, i)| ctx.syms.get(t).map(|t| t.name(i).to_string()))
                    .unwrap_or_else(|| "no symbol".to_string())
            };
            Finding {
                message: format!(
                    "{}: the ENTRY is `{}` and the EXIT `{}`, and uftrace 0.9.4–0.18.1 print each under its own name",
                    f.message,
                    name(fe),
                    name(fx)
                ),
                ..f
            }
            .fails("uftrace", "0.9.4–0.18.1", "loss")
        };
        self.sink.push(f);
    }

    /// An EXIT below the innermost open frame (at depth `d`): the frames above it close
    /// without their EXIT.
    fn unwind(&mut self, off: u64, time: u64, w: RecordWord, d: u16) {
        let RecordWord { depth, addr, .. } = w;
        if !self.returns_to_setjmp(addr, time) && self.caps.nest.hit(&(off..off)) {
            report_nesting(
                self.sink,
                off.saturating_add(8)..off.saturating_add(16),
                format!(
                    "EXIT at depth {depth} while the innermost open frame is at depth {d}: inner frames never exited"
                ),
            );
        }
        while self.stack.last().is_some_and(|f| f.depth > depth) {
            self.stack.pop();
        }
        if self.stack.last().is_some_and(|f| f.depth == depth) {
            self.stack.pop();
        }
    }

    /// Resolves the record's address (through the function cache): its function, if any.
    fn function(&mut self, off: u64, time: u64, w: RecordWord) -> Option<(usize, usize)> {
        let addr = w.addr;
        let si = slot(addr);
        if let Some(c) = self.fcache.get(si).filter(|c| c.covers(addr)) {
            return Some((c.table as usize, c.sym as usize));
        }
        let Some(s) = self.sess else {
            if self.caps.unres.hit(&(off..off)) {
                let f = self
                    .sink
                    .make(
                        &rules::UNRESOLVED_ADDRESS,
                        off..off.saturating_add(16),
                        format!(
                            "record at {} has no session of task {} in force (none of its TASK/FORK lines, nor its parent's, gives one that early): its address cannot resolve, and uftrace 0.9.4–0.18.1 print its function as `<addr>`",
                            fmt_ts(time),
                            self.tid
                        ),
                    )
                    .fails("uftrace", "0.9.4–0.18.1", "loss");
                self.sink.push(f);
            }
            return None;
        };
        match resolve(s, self.ctx, addr, time) {
            Ok((table, sym, lo, hi)) => {
                if let (Some(c), Some(new)) =
                    (self.fcache.get_mut(si), Cache::new(table, sym, lo, hi))
                {
                    *c = new;
                }
                Some((table, sym))
            }
            Err(why) => {
                // uftrace finds a PLT entry all the same: its payload is framed by that
                // function's spec.
                let func = match why {
                    Unresolved::InsidePlt { table, sym, .. } => Some((table, sym)),
                    _ => None,
                };
                if self.caps.unres.hit(&(off..off)) {
                    report_unresolved(self.sink, off, addr, s, &why);
                }
                func
            }
        }
    }

    /// The argument or return value payload of an ENTRY or EXIT of function `func`.
    fn payload(
        &mut self,
        off: u64,
        w: RecordWord,
        func: Option<(usize, usize)>,
    ) -> ControlFlow<()> {
        let entry = w.typ == ENTRY;
        if self.ctx.version < 4 {
            if self.caps.more.hit(&(off..off)) {
                self.sink.report(
                    &rules::UNEXPECTED_PAYLOAD_FLAG,
                    off.saturating_add(8)..off.saturating_add(9),
                    "a version 3 recording cannot have payloads (more=1)",
                );
            }
            return ControlFlow::Continue(());
        }
        self.payload_feature(off, entry);
        self.st.arg_payloads = self.st.arg_payloads.saturating_add(1);
        let Some(key) = func else {
            let f = self
                .sink
                .make(
                    &rules::PAYLOAD_WITHOUT_SPEC,
                    off..off.saturating_add(16),
                    format!(
                        "{} record at 0x{off:x} has a payload but its address 0x{:x} resolves to no function, so no argument spec frames it",
                        if entry { "ENTRY" } else { "EXIT" },
                        w.addr
                    ),
                )
                .note("the rest of the file was not checked: the payload length is unknown");
            self.sink.push(f);
            self.st.stopped = true;
            return ControlFlow::Break(());
        };
        let idx = self.spec_of(key, w.addr);
        let Some(fa) = self.specs.list.get(idx) else {
            return ControlFlow::Break(());
        };
        let (items, fixed) = if entry {
            (&fa.entry, fa.entry_fixed)
        } else {
            (&fa.exit, fa.exit_fixed)
        };
        if items.is_empty() {
            // With a spec pattern this checker cannot evaluate, the payload length is unknown
            // here, but not to uftrace: the file is left without a verdict.
            if !fa.unsupported {
                no_spec(self.sink, self.ctx, off, entry, key);
            }
            self.st.stopped = true;
            return ControlFlow::Break(());
        }
        let pstart = self.ch.offset();
        // A payload without strings has a fixed length.
        let total = if let Some(total) = fixed {
            if self.ch.fill(total) < total {
                truncated_payload(self.sink, pstart, self.ch.avail(), "argument payload");
                return ControlFlow::Break(());
            }
            total
        } else {
            let want = usize::try_from(MAX_ARG_PAYLOAD.saturating_add(8)).unwrap_or(1028);
            self.ch.fill(want);
            let win = self.ch.window();
            match frame_payload(self.e, win, items, pstart) {
                Framed::Len(total) => usize::try_from(total).unwrap_or(usize::MAX),
                Framed::Short => {
                    truncated_payload(self.sink, pstart, win.len(), "argument payload");
                    return ControlFlow::Break(());
                }
                Framed::TooBig(what, pos) => {
                    let f = self
                        .sink
                        .make(
                            &rules::PAYLOAD_SIZE,
                            pstart..pstart.saturating_add(pos.min(win.len() as u64)),
                            format!(
                                "{what} exceeds the {MAX_ARG_PAYLOAD}-byte argument buffer of the recorder"
                            ),
                        )
                        .note("the stream is out of step; the rest of the file was not checked");
                    self.sink.push(f);
                    self.st.stopped = true;
                    return ControlFlow::Break(());
                }
            }
        };
        self.ch.consume(total);
        ControlFlow::Continue(())
    }

    /// A payload without the feature bit for it (ARGUMENT for an ENTRY, RETVAL for an
    /// EXIT, or AUTO_ARGS): reported once per file.
    fn payload_feature(&mut self, off: u64, entry: bool) {
        let ctx = self.ctx;
        let need_feat = if entry { feat::ARGUMENT } else { feat::RETVAL };
        if ctx.feat & need_feat == 0 && ctx.feat & feat::AUTO_ARGS == 0 && !self.feat_arg_reported {
            self.feat_arg_reported = true;
            let f = self
                .sink
                .make(
                    &rules::FEATURE_FILE_MISMATCH,
                    off..off.saturating_add(16),
                    format!(
                        "{} record has a payload but neither the {} nor the AUTO_ARGS feature is set: uftrace 0.9.4–0.18.1 stop with `record missing argument info`",
                        if entry { "an ENTRY" } else { "an EXIT" },
                        if entry { "ARGUMENT" } else { "RETVAL" }
                    ),
                )
                .fails("uftrace", "0.9.4–0.18.1", "reject");
            self.sink.push(f);
        }
    }

    /// The index of the argument specs of function `key` (record address `addr`), through
    /// the function cache, which learns the fixed payload lengths.
    fn spec_of(&mut self, key: (usize, usize), addr: u64) -> usize {
        let si = slot(addr);
        if let Some(c) = self
            .fcache
            .get(si)
            .filter(|c| c.covers(addr) && c.spec != NONE)
        {
            return c.spec as usize;
        }
        let i = self.specs.lookup(self.ctx, key);
        if let Some(c) = self.fcache.get_mut(si).filter(|c| c.covers(addr)) {
            let fixed = |f: Option<usize>| {
                f.and_then(|n| u32::try_from(n).ok())
                    .filter(|&n| n != NONE)
                    .unwrap_or(NONE)
            };
            if let Some(fa) = self.specs.list.get(i) {
                c.spec = u32::try_from(i).ok().filter(|&i| i != NONE).unwrap_or(NONE);
                c.fixed = [fixed(fa.entry_fixed), fixed(fa.exit_fixed)];
            }
        }
        i
    }

    /// The statistics, and the findings held back or pending.
    fn finish(mut self) -> DatStats {
        let mut st = std::mem::take(&mut self.st);
        st.last_ts = self.last_ts;
        let [entries, exits, lost, events] = self.counts;
        st.entries = entries;
        st.exits = exits;
        st.lost = lost;
        st.events = events;
        st.bytes = self.ch.offset();
        st.open_at_end = self.stack.len as u64;
        if let Some(e) = self.ch.io_error.take() {
            self.sink.report(
                &rules::UNREADABLE_FILE,
                self.ch.offset()..self.ch.offset(),
                format!("read error at 0x{:x}: {e}", self.ch.offset()),
            );
        }
        self.caps.finish(self.sink, self.file_len);
        st
    }
}

/// How [`frame_payload`] framed a payload with strings.
enum Framed {
    /// Its padded length, all of it in view.
    Len(u64),
    /// The file ends inside it.
    Short,
    /// It is larger than the recorder can write: what, and where framing stopped.
    TooBig(String, u64),
}

/// Frames the payload at the start of `win` (at offset `pstart`) by `items`, which have a
/// string: each string is a `u16` length and its bytes, padded to 4.
fn frame_payload<E: Endianity>(e: E, win: &[u8], items: &[Item], pstart: u64) -> Framed {
    let mut pos: u64 = 0;
    for it in items {
        if it.string {
            let p = usize::try_from(pos).unwrap_or(usize::MAX);
            let Some(b) = win.get(p..p.saturating_add(2)) else {
                return Framed::Short;
            };
            let len = e.read_u16([
                b.first().copied().unwrap_or(0),
                b.get(1).copied().unwrap_or(0),
            ]);
            pos = pos.saturating_add(u64::from(align4(u32::from(len).saturating_add(2))));
            if u64::from(len) > MAX_ARG_PAYLOAD {
                let what = format!(
                    "string argument length {len} at 0x{:x}",
                    pstart.saturating_add(pos)
                );
                return Framed::TooBig(what, pos);
            }
        } else {
            pos = pos.saturating_add(u64::from(align4(it.size)));
        }
        if pos > MAX_ARG_PAYLOAD {
            return Framed::TooBig(format!("payload of {pos} bytes"), pos);
        }
    }
    let total = align8(pos);
    if total > win.len() as u64 {
        return Framed::Short;
    }
    Framed::Len(total)
}

/// An address that resolves to no function of session `s` (`why`).
fn report_unresolved(sink: &mut Sink, off: u64, addr: u64, s: &SessCtx, why: &Unresolved<'_>) {
    // A module whose `.sym` file is missing: uftrace falls back to the ELF file at the
    // recorded path, which the machine reading the recording rarely has, and prints `<addr>`
    // without it.
    let level = if matches!(
        why,
        Unresolved::WithoutSymFile(_)
            | Unresolved::OutsideSymbols { .. }
            | Unresolved::OutsideMaps
            | Unresolved::InsidePlt { .. }
    ) {
        crate::finding::Severity::Error
    } else {
        crate::finding::Severity::Warning
    };
    let tail = match why {
        Unresolved::WithoutSymFile(_) => "; uftrace 0.9.4–0.18.1 print it as `<addr>` unless the ELF file at that path is on the reading machine",
        Unresolved::OutsideSymbols { .. } => "; the module's `.sym` has no symbol for it, so uftrace 0.9.4–0.18.1 print it as `<addr>` (its name is lost)",
        Unresolved::OutsideMaps => "; uftrace 0.9.4–0.18.1 find no module for it and print it as `<addr>` (its name is lost)",
        Unresolved::InsidePlt { .. } => "; the `.sym` file does not belong to these records (a PLT entry moved), and uftrace 0.9.4–0.18.1 print the call under the entry that covers the address, another function than was called",
        _ => "",
    };
    let f = sink
        .make(
            &rules::UNRESOLVED_ADDRESS,
            off.saturating_add(8)..off.saturating_add(16),
            format!("address 0x{addr:x} {why} (session {}){tail}", s.sid),
        )
        .level(level);
    let f = if level == crate::finding::Severity::Error {
        f.impact("uftrace", "0.9.4–0.18.1", "loss")
    } else {
        f
    };
    sink.push(f);
}

/// A payload of function `key` that no argument spec frames.
fn no_spec(sink: &mut Sink, ctx: &DatCtx<'_>, off: u64, entry: bool, key: (usize, usize)) {
    let name = ctx.syms.get(key.0).map(|t| t.name(key.1)).unwrap_or("?");
    let f = sink
        .make(
            &rules::PAYLOAD_WITHOUT_SPEC,
            off..off.saturating_add(16),
            format!(
                "{} of `{name}` has a payload but no {} spec matches `{name}` (uftrace: \"record missing argument info for {name}\")",
                if entry { "ENTRY" } else { "EXIT" },
                if entry { "argument" } else { "return value" }
            ),
        )
        .note("the rest of the file was not checked: the payload length is unknown");
    sink.push(f);
}

/// Whether a payload can pass without a finding: version 4 or later, and the ARGUMENT and
/// RETVAL features set (or AUTO_ARGS), or the missing feature already reported.
fn payloads_allowed(ctx: &DatCtx<'_>, feat_arg_reported: bool) -> bool {
    ctx.version >= 4
        && (feat_arg_reported
            || (ctx.feat & (feat::ARGUMENT | feat::AUTO_ARGS) != 0
                && ctx.feat & (feat::RETVAL | feat::AUTO_ARGS) != 0))
}

/// Why an address did not resolve (formatted only when reported).
enum Unresolved<'s> {
    OutsideMaps,
    MissingTable,
    OutsideSymbols {
        rel: u64,
        path: &'s str,
        file: &'s str,
    },
    WithoutSymFile(&'s str),
    /// Inside a PLT entry but not at its start: uftrace's PLT hook records each entry's own
    /// address (`libmcount/plthook.c`: `child_ip = sym->addr`), so the `.sym` file and the
    /// records disagree. uftrace still prints the entry's name: `table`, `sym` are it.
    InsidePlt {
        table: usize,
        sym: usize,
        rel: u64,
        at: u64,
        name: &'s str,
        file: &'s str,
    },
}

impl std::fmt::Display for Unresolved<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unresolved::OutsideMaps => f.write_str("lies in no module of the session map"),
            Unresolved::MissingTable => f.write_str("has no table"),
            Unresolved::OutsideSymbols { rel, path, file } => {
                write!(
                    f,
                    "(offset 0x{rel:x} in {path}) lies in no symbol of {file}"
                )
            }
            Unresolved::WithoutSymFile(path) => write!(f, "lies in {path}, which has no .sym file"),
            Unresolved::InsidePlt { rel, at, name, file, .. } => write!(
                f,
                "(offset 0x{rel:x}) lies 0x{:x} bytes into the PLT entry `{name}` of {file} (at 0x{at:x}), where a PLT call records the entry's own address",
                rel.saturating_sub(*at)
            ),
        }
    }
}

/// The setjmp family, whose frame a longjmp returns to.
fn is_setjmp(name: &str) -> bool {
    matches!(
        name,
        "setjmp" | "_setjmp" | "sigsetjmp" | "__sigsetjmp" | "_sigsetjmp"
    )
}

/// Symbol `i` of `table` (index `t`) found for relative address `rel` of a module loaded at
/// `base`: its absolute range, which for a PLT entry is its address alone (a PLT call
/// records exactly that), or why the address cannot be a record's.
fn found<'s>(
    ctx: &DatCtx<'s>,
    t: usize,
    table: &'s SymTable,
    i: usize,
    rel: u64,
    base: u64,
) -> Result<(usize, usize, u64, u64), Unresolved<'s>> {
    let sy = table.syms.get(i).ok_or(Unresolved::MissingTable)?;
    let lo = base.saturating_add(sy.addr);
    let plt = sy.kind == b'P';
    if plt && rel != sy.addr {
        return Err(Unresolved::InsidePlt {
            table: t,
            sym: i,
            rel,
            at: sy.addr,
            name: table.name(i),
            file: &table.file,
        });
    }
    if table.view.is_some() {
        // A table uftrace builds otherwise: every address is looked at, none cached.
        if table.misread(rel) {
            ctx.misread(t);
        }
        return Ok((t, i, lo, lo));
    }
    if plt {
        return Ok((t, i, lo, lo.saturating_add(1)));
    }
    Ok((t, i, lo, base.saturating_add(sy.end)))
}

/// Resolves `addr` in session `s`: (table, symbol, abs lo, abs hi) or why not.
fn resolve<'s>(
    s: &'s SessCtx,
    ctx: &DatCtx<'s>,
    addr: u64,
    time: u64,
) -> Result<(usize, usize, u64, u64), Unresolved<'s>> {
    let mut why = Unresolved::OutsideMaps;
    if let Some(map) = &s.map {
        if let Some((mi, m)) = map.find(addr) {
            match s.module_syms.get(mi).copied().flatten() {
                Some(t) => {
                    ctx.enter(t);
                    let table = ctx.syms.get(t).ok_or(Unresolved::MissingTable)?;
                    let rel = addr.saturating_sub(m.start);
                    match table.find(rel) {
                        Some(i) => return found(ctx, t, table, i, rel, m.start),
                        None => {
                            why = Unresolved::OutsideSymbols {
                                rel,
                                path: &m.path,
                                file: &table.file,
                            }
                        }
                    }
                }
                None => why = Unresolved::WithoutSymFile(&m.path),
            }
        }
    }
    // dlopen'ed libraries.
    let mut best: Option<(u64, usize)> = None;
    for &(ts, base, t) in &s.dlopens {
        if ts <= time && base <= addr {
            if let Some(t) = t {
                if best.is_none_or(|(b, _)| base > b) {
                    best = Some((base, t));
                }
            }
        }
    }
    if let Some((base, t)) = best {
        ctx.enter(t);
        if let Some(table) = ctx.syms.get(t) {
            let rel = addr.saturating_sub(base);
            if let Some(i) = table.find(rel) {
                if table.syms.get(i).is_some() {
                    return found(ctx, t, table, i, rel, base);
                }
            }
        }
    }
    Err(why)
}

/// Payload length an event id requires, if it has a payload.
pub fn expected_event_len(id: u64) -> Option<u64> {
    match id {
        100001 | 100003 => Some(24),
        100002 | 100004 => Some(16),
        100005..=100010 => Some(16),
        100011 => Some(4),
        100013 => Some(8),
        _ => None,
    }
}

fn event_name(id: u64) -> &'static str {
    match id {
        100001 => "read:proc/statm",
        100002 => "read:page-fault",
        100003 => "diff:proc/statm",
        100004 => "diff:page-fault",
        100005 | 100006 => "pmu-cycle",
        100007 | 100008 => "pmu-cache",
        100009 | 100010 => "pmu-branch",
        100011 => "watch:cpu",
        100012 => "watch:var",
        100013 => "callsite",
        _ => "unknown",
    }
}

fn check_event_id(id: u64, off: u64, ctx: &DatCtx<'_>, sink: &mut Sink, c: &mut Capped) {
    let why = match id {
        100001..=100013 => return,
        1_000_000.. if id != 2_000_000 => match ctx.user_events {
            Some(list) if list.binary_search(&id).is_ok() => return,
            Some(_) => "is a user (SDT) event id not listed in events.txt",
            None => "is a user (SDT) event id but there is no events.txt",
        },
        2_000_000 => "is the extern.dat event id, which never appears in task data",
        0..=99_999 => "is a kernel tracepoint id, which never appears in task data",
        _ => "is in the perf/reserved range, which never appears in task data",
    };
    if c.hit(&(off..off)) {
        sink.report(
            &rules::UNKNOWN_EVENT_ID,
            off.saturating_add(8)..off.saturating_add(16),
            format!("event id {id} {why}"),
        );
    }
}

/// What the readers do with a nesting mismatch in a task whose records carry depths.
const NESTING_TAIL: &str =
    "; uftrace 0.9.4–0.18.1 frame calls by these depths and lose or misframe the calls around it";

/// A nesting break: uftrace (`fstack.c`, 0.9.4–0.18.1) frames calls by the recorded depths, so
/// the calls around it are lost from `dump` and `replay` or shown in the wrong frame.
fn report_nesting(sink: &mut Sink, span: std::ops::Range<u64>, msg: String) {
    let f = sink
        .make(
            &rules::NESTING_MISMATCH,
            span,
            format!("{msg}{NESTING_TAIL}"),
        )
        .fails("uftrace", "0.9.4–0.18.1", "loss");
    sink.push(f);
}

/// Whether some record address resolved to no module (`UF067` among `sink`'s findings).
pub fn any_unresolved(sink: &Sink) -> bool {
    sink.has(&rules::UNRESOLVED_ADDRESS)
}
