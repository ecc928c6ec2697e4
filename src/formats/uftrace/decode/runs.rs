//! A first pass over a `<TID>.dat` that needs nothing else of the recording: it can run while
//! the file is still being unpacked, before `info`, `task.txt` and the symbol tables (which
//! an archive often stores after the task files) have arrived.
//!
//! The pass cuts the record stream into [`RecordRun`]s: stretches of ENTRY/EXIT records that are in
//! time order and nested exactly as the open frames before them say, with their payloads
//! framed by a length learnt from the record that follows. A run is summarised (counts, time
//! range, open frames before and after, every function address with the payload lengths it
//! was framed with) and the bytes are dropped. What a run assumed about the rest of the
//! recording is checked later, when the walker (`checks::dat`) reaches the run's first byte
//! in exactly the state the run starts from: every address resolves in the session in effect,
//! each payload length is the fixed length of the function's argument spec, no session start
//! or dlopen falls inside, the depths stay below `max_stack`, payloads are allowed. Then the
//! walker takes the run whole instead of reading its records; otherwise it reads them. A run
//! can therefore never change a finding, only save the reading.
//!
//! Everything is bounded: a record is at most 16 + 1024 bytes, the bytes carried between
//! blocks are a few KiB, the summaries together stay under [`RUNS_BUDGET`].

use super::argspec::align8;
use super::record::{record_at, RecordWord, ENTRY, EVENT, EXIT, LOST};
use crate::reader::{Endianity, LittleEndian};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Largest payload framed (the recorder's argument buffer, padded to 8).
const MAX_PAYLOAD: usize = 1024;
/// Bytes a record needs in view to be framed: itself, a payload, the record after it.
const LOOK: usize = 16 + MAX_PAYLOAD + 16;
/// Records of one run at most (a run the walker cannot take is read, so runs are kept short
/// enough that one bad stretch costs little).
const RUN_RECORDS: u64 = 1 << 16;
/// Payload lengths learnt per file at most (functions with payloads, by ENTRY and EXIT).
const MAX_LENS: usize = 1 << 16;
/// Distinct functions of one run at most.
const RUN_FUNCS: usize = 64;
/// Bytes the summaries may take by default (an archive shares this among its task files).
pub const RUNS_BUDGET: usize = 8 << 20;
/// Payload length of a function that has no payload of that kind in the run.
pub const NO_PAYLOAD: u32 = u32::MAX;
/// A learnt payload length that turned out to vary (string arguments).
const VARIABLE: u32 = u32::MAX - 1;

/// A function a run calls, with the payload lengths its records were framed with
/// (`[ENTRY, EXIT]`, [`NO_PAYLOAD`] when none of that kind occurs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunFunc {
    /// Record address.
    pub addr: u64,
    /// Padded payload lengths.
    pub len: [u32; 2],
}

/// A stretch of records that the walker may take whole (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordRun {
    /// Offset of the first record.
    pub start: u64,
    /// Offset just past the last record (and its payload).
    pub end: u64,
    /// Time of the first record.
    pub first_time: u64,
    /// Time of the last record.
    pub last_time: u64,
    /// Expected depth of the next ENTRY before the run.
    pub start_cur: u16,
    /// ... and after it.
    pub end_cur: u16,
    /// Open frames (depth, address) before the run, innermost last.
    pub start_stack: Box<[(u16, u64)]>,
    /// ... and after it.
    pub end_stack: Box<[(u16, u64)]>,
    /// ENTRY records.
    pub entries: u64,
    /// EXIT records.
    pub exits: u64,
    /// Records with a payload.
    pub payloads: u64,
    /// Deepest depth.
    pub max_depth: u16,
    /// Every address of the run's records, sorted.
    pub funcs: Box<[RunFunc]>,
    /// A function of the run had a first payload that looked like a string argument (see
    /// [`looks_textual`]): the walk will not take the run, so its bytes are kept.
    pub textual: bool,
}

impl RecordRun {
    fn bytes(&self) -> usize {
        std::mem::size_of::<RecordRun>()
            .saturating_add(
                self.start_stack
                    .len()
                    .saturating_add(self.end_stack.len())
                    .saturating_mul(16),
            )
            .saturating_add(self.funcs.len().saturating_mul(16))
    }
}

/// A run being built.
struct Building {
    start: u64,
    first_time: u64,
    start_cur: u16,
    start_stack: Box<[(u16, u64)]>,
    records: u64,
    entries: u64,
    exits: u64,
    payloads: u64,
    max_depth: u16,
    funcs: Vec<RunFunc>,
    textual: bool,
}

/// What one record looked like to the pass.
enum Step {
    /// The record and its payload take this many bytes.
    Next(usize),
    /// More bytes are needed than are in view.
    Wait,
    /// The pass cannot go on (bad magic, a payload it cannot frame, the end).
    Stop,
}

/// The first pass over one task file, fed block by block ([`RecordSieve::feed`]), closed by
/// [`RecordSieve::finish`]. Little-endian recordings only (the walker checks the byte order
/// before it takes a run).
pub struct RecordSieve {
    /// Offset the next fed block must start at.
    pos: u64,
    /// Unscanned bytes just before `pos`.
    carry: Vec<u8>,
    /// Offset of the next record.
    next: u64,
    stopped: bool,
    finished: bool,
    stack: Vec<(u16, u64)>,
    cur: Option<u16>,
    prev: Option<u64>,
    /// Payload lengths learnt per (address, type).
    lens: HashMap<(u64, u8), u32>,
    /// The last entry of `lens` looked up or learnt, per record type (ENTRY, EXIT): a walk
    /// meets the same function many times in a row.
    /// (address, length, whether its first payload looked textual).
    recent: [Option<(u64, u32, bool)>; 2],
    /// The (address, type) pairs whose first payload looked like a string argument.
    textual: HashSet<(u64, u8)>,
    building: Option<Building>,
    runs: Vec<RecordRun>,
    bytes: usize,
    budget: usize,
    min_records: u64,
    taken: AtomicU64,
    taken_payloads: AtomicU64,
    /// Ranges of the file whose bytes were not kept because runs cover them (merged,
    /// ascending); a walk that has to read any of them spoils the sieve.
    holes: Vec<std::ops::Range<u64>>,
    /// Set when a walk had to read bytes that were not kept.
    spoiled: AtomicBool,
    /// Whether the bytes of runs with payloads may be left out too (see
    /// [`RecordSieve::with_payload_holes`]).
    payload_holes: bool,
}

impl Default for RecordSieve {
    fn default() -> Self {
        RecordSieve {
            pos: 0,
            carry: Vec::new(),
            next: 0,
            stopped: false,
            finished: false,
            stack: Vec::new(),
            cur: None,
            prev: None,
            lens: HashMap::new(),
            recent: [None; 2],
            textual: HashSet::new(),
            building: None,
            runs: Vec::new(),
            bytes: 0,
            budget: RUNS_BUDGET,
            min_records: 16,
            taken: AtomicU64::new(0),
            taken_payloads: AtomicU64::new(0),
            holes: Vec::new(),
            spoiled: AtomicBool::new(false),
            payload_holes: false,
        }
    }
}

impl RecordSieve {
    /// A sieve whose summaries may take at most `budget` bytes.
    #[must_use]
    pub fn with_budget(mut self, budget: usize) -> Self {
        self.budget = budget;
        self
    }

    /// A sieve whose runs with payloads may be left out of a spill as well as the others.
    /// The walk takes such a run only where every payload has the fixed length of its
    /// function's argument spec, which the spill cannot know (string arguments of one length
    /// frame alike), so a run it then has to read spoils the sieve: only for an input that
    /// can be read again without it.
    #[must_use]
    pub fn with_payload_holes(mut self, on: bool) -> Self {
        self.payload_holes = on;
        self
    }

    /// Whether runs with payloads may be left out.
    pub fn payload_holes(&self) -> bool {
        self.payload_holes
    }

    /// A sieve that keeps runs of at least `n` records (shorter ones are left to the walker).
    #[must_use]
    pub fn with_min_records(mut self, n: u64) -> Self {
        self.min_records = n.max(1);
        self
    }

    /// The runs found, in file order. Empty until [`RecordSieve::finish`].
    pub fn runs(&self) -> &[RecordRun] {
        if self.finished {
            &self.runs
        } else {
            &[]
        }
    }

    /// Bytes the summaries take.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Counts a run the walker took.
    pub fn note_taken(&self, run: &RecordRun) {
        self.taken.fetch_add(1, Ordering::Relaxed);
        self.taken_payloads
            .fetch_add(run.payloads, Ordering::Relaxed);
    }

    /// Payloads of the runs the walker took so far.
    pub fn taken_payloads(&self) -> u64 {
        self.taken_payloads.load(Ordering::Relaxed)
    }

    /// Runs the walker took so far.
    pub fn taken(&self) -> u64 {
        self.taken.load(Ordering::Relaxed)
    }

    /// Where no byte can still join a run: records before it are settled, either in a
    /// closed run ([`RecordSieve::closed`]) or in none. Bytes before it that no run covers
    /// must be kept; the bytes of closed runs need not.
    pub fn settled(&self) -> u64 {
        match &self.building {
            Some(b) => b.start.min(self.next),
            None if self.finished || self.stopped => u64::MAX,
            None => self.next,
        }
    }

    /// The runs closed so far, in file order (all of them once finished).
    pub fn closed(&self) -> &[RecordRun] {
        &self.runs
    }

    /// Records that the bytes of `r` (part of a closed run) were not kept.
    pub fn add_hole(&mut self, r: std::ops::Range<u64>) {
        if r.start >= r.end {
            return;
        }
        match self.holes.last_mut() {
            Some(last) if last.end == r.start => last.end = r.end,
            _ => self.holes.push(r),
        }
    }

    /// Whether the bytes of `r` were all kept.
    pub fn kept(&self, r: &std::ops::Range<u64>) -> bool {
        let i = self.holes.partition_point(|h| h.end <= r.start);
        self.holes.get(i).is_none_or(|h| h.start >= r.end)
    }

    /// Whether any bytes were left out.
    pub fn has_holes(&self) -> bool {
        !self.holes.is_empty()
    }

    /// Notes that a walk had to read bytes that were not kept: its findings do not hold.
    pub fn spoil(&self) {
        self.spoiled.store(true, Ordering::Relaxed);
    }

    /// True when a walk had to read bytes that were not kept.
    pub fn spoiled(&self) -> bool {
        self.spoiled.load(Ordering::Relaxed)
    }

    /// Scans `block`, the bytes of the file at `pos`. Blocks must come in order without gaps
    /// (a gap stops the pass).
    pub fn feed(&mut self, pos: u64, block: &[u8]) {
        if self.stopped || self.finished || block.is_empty() {
            self.pos = self.pos.max(pos.saturating_add(block.len() as u64));
            return;
        }
        if pos != self.pos {
            self.stop();
            return;
        }
        self.pos = pos.saturating_add(block.len() as u64);
        // Records that start in the carried bytes: scanned in a small joined buffer.
        if !self.carry.is_empty() {
            let mut joined = std::mem::take(&mut self.carry);
            let head = block.len().min(LOOK.saturating_mul(2));
            joined.extend_from_slice(block.get(..head).unwrap_or(&[]));
            let base = pos.saturating_sub(joined.len().saturating_sub(head) as u64);
            self.scan(&joined, base, pos, false);
            if self.stopped {
                return;
            }
            if self.next < pos {
                // Only when the block is shorter than the look-ahead (then `head` is all of
                // it): keep what is not scanned.
                let from = usize::try_from(self.next.saturating_sub(base)).unwrap_or(usize::MAX);
                self.carry = joined.get(from..).unwrap_or(&[]).to_vec();
                self.carry
                    .extend_from_slice(block.get(head..).unwrap_or(&[]));
                return;
            }
        }
        self.scan(block, pos, self.pos, false);
        if !self.stopped {
            let from = usize::try_from(self.next.saturating_sub(pos)).unwrap_or(usize::MAX);
            self.carry = block.get(from..).unwrap_or(&[]).to_vec();
        }
    }

    /// Ends the pass: scans what is carried and closes the last run.
    pub fn finish(&mut self) {
        if self.finished {
            return;
        }
        if !self.stopped && !self.carry.is_empty() {
            let carried = std::mem::take(&mut self.carry);
            let cpos = self.pos.saturating_sub(carried.len() as u64);
            self.scan(&carried, cpos, self.pos, true);
        }
        self.close(self.next);
        self.carry = Vec::new();
        self.finished = true;
    }

    fn stop(&mut self) {
        self.close(self.next);
        self.stopped = true;
        self.carry = Vec::new();
    }

    /// Scans the records of `buf` (the bytes at `base`) that start before `limit`.
    fn scan(&mut self, buf: &[u8], base: u64, limit: u64, last: bool) {
        while !self.stopped && self.next < limit {
            let Some(i) = usize::try_from(self.next.saturating_sub(base))
                .ok()
                .filter(|_| self.next >= base)
            else {
                self.stop();
                return;
            };
            let Some(view) = buf.get(i..) else {
                self.stop();
                return;
            };
            if self.building.is_some() {
                let end = usize::try_from(limit.saturating_sub(base)).unwrap_or(usize::MAX);
                let n = self.fast_scan(view, end.saturating_sub(i));
                if n > 0 {
                    self.next = self.next.saturating_add(n as u64);
                    continue;
                }
            }
            if !last && view.len() < LOOK {
                return;
            }
            match self.step(view, last) {
                Step::Next(n) => self.next = self.next.saturating_add(n as u64),
                Step::Wait => return,
                Step::Stop => {
                    self.stop();
                    return;
                }
            }
        }
    }

    /// The common case of [`RecordSieve::step`] in a tight loop: records without payload that
    /// extend the run being built, starting in the first `starts` bytes of `view`. Returns the
    /// bytes consumed; anything else is left to `step`.
    fn fast_scan(&mut self, view: &[u8], starts: usize) -> usize {
        let (Some(b), Some(mut cur), Some(mut prev)) =
            (self.building.as_mut(), self.cur, self.prev)
        else {
            return 0;
        };
        let stack = &mut self.stack;
        let room = RUN_RECORDS.saturating_sub(b.records).saturating_sub(1);
        let (mut entries, mut exits, mut n) = (0u64, 0u64, 0u64);
        let mut max_depth = b.max_depth;
        let mut hit = usize::MAX;
        let mut p = 0usize;
        while p < starts && n < room {
            let Some((time, w)) = view.get(p..).and_then(|v| record_at(LittleEndian, v)) else {
                break;
            };
            if !w.magic_ok() || w.more || w.typ > EXIT || time < prev {
                break;
            }
            let (depth, addr) = (w.depth, w.addr);
            let top = stack.last().copied();
            if w.typ == ENTRY {
                if cur != depth || top.is_some_and(|(d, _)| d >= depth) {
                    break;
                }
            } else if top != Some((depth, addr)) {
                break;
            }
            if b.funcs.get(hit).is_none_or(|f| f.addr != addr) {
                match b.funcs.iter().position(|f| f.addr == addr) {
                    Some(k) => hit = k,
                    None if b.funcs.len().saturating_add(1) < RUN_FUNCS => {
                        b.funcs.push(RunFunc {
                            addr,
                            len: [NO_PAYLOAD; 2],
                        });
                        hit = b.funcs.len().saturating_sub(1);
                    }
                    None => break,
                }
            }
            if w.typ == ENTRY {
                stack.push((depth, addr));
                cur = depth.saturating_add(1);
                entries = entries.saturating_add(1);
            } else {
                stack.pop();
                cur = depth;
                exits = exits.saturating_add(1);
            }
            max_depth = max_depth.max(depth);
            prev = time;
            n = n.saturating_add(1);
            p = p.saturating_add(16);
        }
        b.records = b.records.saturating_add(n);
        b.entries = b.entries.saturating_add(entries);
        b.exits = b.exits.saturating_add(exits);
        b.max_depth = max_depth;
        self.cur = Some(cur);
        self.prev = Some(prev);
        p
    }

    /// One record at the start of `view`.
    fn step(&mut self, view: &[u8], last: bool) -> Step {
        let Some((time, w)) = record_at(LittleEndian, view) else {
            return if last { Step::Stop } else { Step::Wait };
        };
        let RecordWord {
            typ,
            more,
            depth,
            addr,
            ..
        } = w;
        if !w.magic_ok() {
            return Step::Stop;
        }
        let at = self.next;
        // Payload length. The first payload of a function is left to the walker: a function
        // met once may have string arguments, which would spoil the whole run.
        // What was learnt of this function's payloads (one lookup per record).
        let learnt_len = if more && typ <= EXIT {
            let slot = self.recent.get(usize::from(typ)).copied().flatten();
            match slot {
                Some((a, l, _)) if a == addr => Some(l),
                _ => {
                    let l = self.lens.get(&(addr, typ)).copied();
                    if let Some(l) = l {
                        self.remember(addr, typ, l);
                    }
                    l
                }
            }
        } else {
            None
        };
        let first_sight = more && typ <= EXIT && learnt_len.is_none();
        // Set when the length is learnt to vary (now or before).
        let mut variable = learnt_len == Some(VARIABLE);
        let plen = if !more || typ == LOST {
            0
        } else if typ == EVENT {
            let Some(&[a, b]) = view.get(16..18) else {
                return Step::Stop;
            };
            let len = LittleEndian.read_u16([a, b]);
            usize::try_from(align8(u64::from(len).saturating_add(2))).unwrap_or(usize::MAX)
        } else {
            let fits = |l: usize| {
                // The end of the file, or a record the walker could take next.
                (last && view.len() == l.saturating_add(16))
                    || self.fits_after(view, l, time, typ, depth, addr)
            };
            match learnt_len {
                Some(l) if l != VARIABLE && fits(l as usize) => l as usize,
                known => {
                    // First payload of this function, or one the learnt length does not
                    // frame: the shortest length after which a record fits.
                    let Some(l) = (8..=MAX_PAYLOAD).step_by(8).find(|&l| fits(l)) else {
                        return Step::Stop;
                    };
                    if known.is_none() && self.lens.len() >= MAX_LENS {
                        return Step::Stop;
                    }
                    let learnt = match known {
                        Some(_) => VARIABLE,
                        None => u32::try_from(l).unwrap_or(VARIABLE),
                    };
                    if known.is_none()
                        && view
                            .get(16..l.saturating_add(16))
                            .is_some_and(looks_textual)
                    {
                        self.textual.insert((addr, typ));
                    }
                    self.lens.insert((addr, typ), learnt);
                    self.remember(addr, typ, learnt);
                    variable = learnt == VARIABLE;
                    l
                }
            }
        };
        // A payload whose length varies is framed, but its record is left to the walker.
        let variable = more && variable;
        let total = plen.saturating_add(16);
        if view.len() < total {
            return Step::Stop;
        }
        // Could the walker take this record in a run? Mirrors its fast path.
        let top = self.stack.last().copied();
        let runnable = typ <= EXIT
            && !variable
            && !first_sight
            && self.prev.is_some_and(|p| time >= p)
            && match (typ, self.cur, top) {
                (ENTRY, Some(c), t) => c == depth && t.is_none_or(|(d, _)| d < depth),
                (EXIT, Some(_), Some((d, a))) => d == depth && a == addr,
                _ => false,
            };
        if runnable {
            if self.building.is_none() {
                self.building = Some(Building {
                    start: at,
                    first_time: time,
                    start_cur: self.cur.unwrap_or(0),
                    start_stack: self.stack.clone().into_boxed_slice(),
                    records: 0,
                    entries: 0,
                    exits: 0,
                    payloads: 0,
                    max_depth: 0,
                    funcs: Vec::new(),
                    textual: false,
                });
            }
            let mut full = false;
            if let Some(b) = self.building.as_mut() {
                b.records = b.records.saturating_add(1);
                if typ == ENTRY {
                    b.entries = b.entries.saturating_add(1);
                } else {
                    b.exits = b.exits.saturating_add(1);
                }
                b.max_depth = b.max_depth.max(depth);
                let k = usize::from(typ);
                let f = match b.funcs.iter_mut().rev().find(|f| f.addr == addr) {
                    Some(f) => f,
                    None => {
                        b.funcs.push(RunFunc {
                            addr,
                            len: [NO_PAYLOAD; 2],
                        });
                        match b.funcs.last_mut() {
                            Some(f) => f,
                            None => return Step::Stop,
                        }
                    }
                };
                if more {
                    b.payloads = b.payloads.saturating_add(1);
                    let recent = self.recent.get(k).copied().flatten();
                    b.textual |= match recent {
                        Some((a, _, t)) if a == addr => t,
                        _ => self.textual.contains(&(addr, typ)),
                    };
                    if let Some(l) = f.len.get_mut(k) {
                        *l = u32::try_from(plen).unwrap_or(NO_PAYLOAD);
                    }
                }
                full = b.records >= RUN_RECORDS || b.funcs.len() >= RUN_FUNCS;
            }
            self.transition(typ, depth, addr, time);
            if full {
                self.close(at.saturating_add(total as u64));
            }
        } else {
            self.close(at);
            self.transition(typ, depth, addr, time);
        }
        Step::Next(total)
    }

    /// Keeps `len`, learnt for the function at `addr` with records of type `typ`, as the
    /// last one of that type (`recent`), with whether its first payload looked textual.
    fn remember(&mut self, addr: u64, typ: u8, len: u32) {
        let textual = self.textual.contains(&(addr, typ));
        if let Some(r) = self.recent.get_mut(usize::from(typ)) {
            *r = Some((addr, len, textual));
        }
    }

    /// The walker's state change for a record (its full path, findings aside).
    fn transition(&mut self, typ: u8, depth: u16, addr: u64, time: u64) {
        match typ {
            LOST => {
                self.stack.clear();
                self.cur = None;
                return;
            }
            EVENT => {}
            ENTRY => {
                while self.stack.last().is_some_and(|&(d, _)| d >= depth) {
                    self.stack.pop();
                }
                self.stack.push((depth, addr));
                self.cur = Some(depth.saturating_add(1));
            }
            _ => {
                match self.stack.last().copied() {
                    Some((d, _)) if d == depth => {
                        self.stack.pop();
                    }
                    Some((d, _)) if depth < d => {
                        while self.stack.last().is_some_and(|&(d, _)| d > depth) {
                            self.stack.pop();
                        }
                        if self.stack.last().is_some_and(|&(d, _)| d == depth) {
                            self.stack.pop();
                        }
                    }
                    _ => {}
                }
                self.cur = Some(depth);
            }
        }
        self.prev = Some(time);
    }

    /// Whether, after this record and a payload of `l` bytes, a record follows that the walker
    /// could take next (in time order, nested as the state after this record says).
    fn fits_after(&self, view: &[u8], l: usize, time: u64, typ: u8, depth: u16, addr: u64) -> bool {
        let Some((ntime, n)) = view
            .get(l.saturating_add(16)..)
            .and_then(|v| record_at(LittleEndian, v))
        else {
            return false;
        };
        let (ndepth, naddr) = (n.depth, n.addr);
        if !n.magic_ok() || ntime < time {
            return false;
        }
        match n.typ {
            ENTRY => {
                let cur = if typ == ENTRY {
                    depth.saturating_add(1)
                } else {
                    depth
                };
                ndepth == cur
            }
            EXIT => {
                let top = if typ == ENTRY {
                    Some((depth, addr))
                } else {
                    self.stack
                        .len()
                        .checked_sub(2)
                        .and_then(|i| self.stack.get(i))
                        .copied()
                };
                top.is_some_and(|(d, a)| d == ndepth && a == naddr)
            }
            _ => false,
        }
    }

    /// Ends the run being built at `end` (kept if long enough and within the budget).
    fn close(&mut self, end: u64) {
        let Some(b) = self.building.take() else {
            return;
        };
        if b.records < self.min_records {
            return;
        }
        let mut funcs = b.funcs;
        funcs.sort_by_key(|f| f.addr);
        let run = RecordRun {
            start: b.start,
            end,
            first_time: b.first_time,
            last_time: self.prev.unwrap_or(b.first_time),
            start_cur: b.start_cur,
            end_cur: self.cur.unwrap_or(0),
            start_stack: b.start_stack,
            end_stack: self.stack.clone().into_boxed_slice(),
            entries: b.entries,
            exits: b.exits,
            payloads: b.payloads,
            max_depth: b.max_depth,
            funcs: funcs.into_boxed_slice(),
            textual: b.textual,
        };
        let n = run.bytes();
        if self.bytes.saturating_add(n) > self.budget {
            // Out of budget: no more runs for this file.
            self.stopped = true;
            return;
        }
        self.bytes = self.bytes.saturating_add(n);
        self.runs.push(run);
    }
}

/// Whether a payload holds what uftrace writes for a string argument at one of its 4-byte
/// aligned argument slots: a 16-bit length of at least 1 followed by that many bytes of text
/// (`05 00 'h' 'e' 'l' 'l' 'o'`). Only a guess, used to keep the bytes of a run the walk will
/// not take: a string it misses costs a second reading of the input, never a finding.
pub fn looks_textual(payload: &[u8]) -> bool {
    (0..payload.len()).step_by(4).any(|k| {
        let Some(&[a, b]) = payload.get(k..k.saturating_add(2)) else {
            return false;
        };
        let n = usize::from(LittleEndian.read_u16([a, b]));
        let from = k.saturating_add(2);
        n > 0
            && payload.get(from..from.saturating_add(n)).is_some_and(|t| {
                t.iter()
                    .all(|&c| c == b'\t' || c == b'\n' || (0x20..0x7f).contains(&c))
            })
    })
}

#[cfg(test)]
#[path = "runs_tests.rs"]
mod tests;
