//! Writes perf.data files from a model, as `perf record` lays them out: file mode (header, the
//! attrs' id arrays, the attrs, the data section, the feature table and the feature sections)
//! and pipe mode (a 16-byte header, HEADER_ATTR records, then the records), in either byte
//! order. Samples are written in the field order of their attr's `sample_type`, other records
//! with the `sample_id_all` trailer when the attr asks for it. Used by the structure-aware fuzz
//! target and the tests.
//!
//! Writing never fails and never allocates more than the model's own size.
// The writer works on models, not on file data: its arithmetic is on in-memory sizes, and the
// casts narrow model values into the fixed-width fields the format defines.
#![allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::indexing_slicing
)]

use super::model::{st, FLAG_SAMPLE_ID_ALL};

/// The `sample_type` bits the writer lays out (the rest are cleared).
pub const WRITTEN_SAMPLE_TYPE: u64 = st::IDENTIFIER
    | st::IP
    | st::TID
    | st::TIME
    | st::ADDR
    | st::ID
    | st::STREAM_ID
    | st::CPU
    | st::PERIOD
    | st::CALLCHAIN
    | st::RAW;

/// The attr size written (`PERF_ATTR_SIZE_VER7`, perf 6.1's).
pub const ATTR_SIZE: usize = 128;

/// One event attribute.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[derive(Clone, Debug)]
pub struct Attr {
    /// `type` (1: software, 2: tracepoint).
    pub kind: u32,
    /// `config`.
    pub config: u64,
    /// `sample_type`, masked to [`WRITTEN_SAMPLE_TYPE`].
    pub sample_type: u64,
    /// Whether non-sample records carry the `sample_id_all` trailer.
    pub sample_id_all: bool,
    /// How many event ids it has (1 to 4; ids are numbered from 1 across the attrs).
    pub ids: u8,
}

/// One record of the data section.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[derive(Clone, Debug)]
pub enum Record {
    /// PERF_RECORD_SAMPLE of attr `attr` (modulo the attrs).
    Sample {
        /// The attr (index modulo the number of attrs).
        attr: u8,
        /// `ip`.
        ip: u64,
        /// pid and tid.
        pid: u32,
        /// Time.
        time: u64,
        /// CPU.
        cpu: u8,
        /// Period.
        period: u64,
        /// Callchain addresses (at most 16 written).
        callchain: Vec<u64>,
        /// RAW bytes (at most 64 written).
        raw: Vec<u8>,
    },
    /// PERF_RECORD_COMM.
    Comm {
        /// pid and tid.
        pid: u32,
        /// The command (at most 15 bytes written).
        name: String,
    },
    /// PERF_RECORD_MMAP2.
    Mmap2 {
        /// pid.
        pid: u32,
        /// Address and length.
        addr: u64,
        /// Length.
        len: u64,
        /// The file name (at most 64 bytes written).
        file: String,
    },
    /// PERF_RECORD_FORK (`exit`: PERF_RECORD_EXIT).
    Fork {
        /// pid.
        pid: u32,
        /// Parent pid.
        ppid: u32,
        /// Time.
        time: u64,
        /// An EXIT rather than a FORK.
        exit: bool,
    },
    /// PERF_RECORD_LOST.
    Lost {
        /// Events lost.
        lost: u32,
    },
    /// PERF_RECORD_FINISHED_ROUND.
    FinishedRound,
}

/// One feature section.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[derive(Clone, Debug)]
pub enum Feature {
    /// HOSTNAME.
    Hostname(String),
    /// OSRELEASE.
    OsRelease(String),
    /// VERSION.
    Version(String),
    /// ARCH.
    Arch(String),
    /// NRCPUS (available, online).
    NrCpus(u8, u8),
    /// CMDLINE.
    Cmdline(Vec<String>),
    /// SAMPLE_TIME (first, last).
    SampleTime(u64, u64),
    /// EVENT_DESC: one named event per attr.
    EventDesc,
}

impl Feature {
    /// The feature bit.
    pub fn bit(&self) -> u64 {
        match self {
            Feature::Hostname(_) => 3,
            Feature::OsRelease(_) => 4,
            Feature::Version(_) => 5,
            Feature::Arch(_) => 6,
            Feature::NrCpus(..) => 7,
            Feature::Cmdline(_) => 11,
            Feature::EventDesc => 12,
            Feature::SampleTime(..) => 21,
        }
    }
}

/// A perf.data file.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[derive(Clone, Debug)]
pub struct File {
    /// Written by a big-endian machine.
    pub big_endian: bool,
    /// Pipe mode (`perf record -o -`): no sections, attrs as records, no features.
    pub pipe: bool,
    /// The attrs (at least one is written).
    pub attrs: Vec<Attr>,
    /// The records.
    pub records: Vec<Record>,
    /// The features (each bit once, in bit order).
    pub features: Vec<Feature>,
}

/// Bounds that keep a model small and its attrs consistent: 1 to 4 attrs, at most 64 records,
/// ids 1 to 4 per attr, `sample_type` masked to what the writer lays out; with several attrs
/// every one has IDENTIFIER and the same `sample_id_all` (what perf writes), so each record
/// can be attributed.
pub fn normalize(f: &mut File) {
    f.attrs.truncate(4);
    if f.attrs.is_empty() {
        f.attrs.push(Attr {
            kind: 1,
            config: 0,
            sample_type: st::IP | st::TID | st::TIME | st::PERIOD,
            sample_id_all: true,
            ids: 1,
        });
    }
    let several = f.attrs.len() > 1;
    let all = f.attrs.first().is_some_and(|a| a.sample_id_all);
    for a in &mut f.attrs {
        a.sample_type &= WRITTEN_SAMPLE_TYPE;
        a.ids = a.ids.clamp(1, 4);
        // Hardware or software events: tracepoint attrs need TRACING_DATA, which the model
        // does not write.
        a.kind %= 2;
        if several {
            a.sample_type |= st::IDENTIFIER;
            a.sample_id_all = all;
        }
    }
    f.records.truncate(64);
    let mut seen = Vec::new();
    f.features.retain(|x| {
        let b = x.bit();
        let new = !seen.contains(&b);
        seen.push(b);
        new
    });
    f.features.sort_by_key(Feature::bit);
}

struct Out {
    b: Vec<u8>,
    big: bool,
}

impl Out {
    fn u16(&mut self, v: u16) {
        let x = if self.big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        };
        self.b.extend_from_slice(&x);
    }
    fn u32(&mut self, v: u32) {
        let x = if self.big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        };
        self.b.extend_from_slice(&x);
    }
    fn u64(&mut self, v: u64) {
        let x = if self.big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        };
        self.b.extend_from_slice(&x);
    }
    fn put64(&mut self, at: usize, v: u64) {
        let x = if self.big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        };
        if let Some(d) = self.b.get_mut(at..at + 8) {
            d.copy_from_slice(&x);
        }
    }
    fn pad8(&mut self) {
        while self.b.len() % 8 != 0 {
            self.b.push(0);
        }
    }
    /// A perf string: u32 length (NUL included, padded to 64), then the bytes.
    fn string(&mut self, s: &str) {
        let s = s.as_bytes().get(..s.len().min(200)).unwrap_or_default();
        let s: Vec<u8> = s.iter().copied().filter(|c| *c != 0).collect();
        let len = (s.len() + 1).next_multiple_of(64);
        self.u32(len as u32);
        self.b.extend_from_slice(&s);
        self.b.resize(self.b.len() + len - s.len(), 0);
    }
}

/// The first id of each attr (ids run from 1 across the attrs).
fn first_ids(f: &File) -> Vec<u64> {
    let mut next = 1u64;
    f.attrs
        .iter()
        .map(|a| {
            let id = next;
            next += u64::from(a.ids);
            id
        })
        .collect()
}

fn attr_bytes(o: &mut Out, a: &Attr) {
    let start = o.b.len();
    o.u32(a.kind);
    o.u32(ATTR_SIZE as u32);
    o.u64(a.config);
    o.u64(4000); // sample_freq
    o.u64(a.sample_type);
    o.u64(0); // read_format
    let mut flags = 1u64 << 10; // freq
    if a.sample_id_all {
        flags |= FLAG_SAMPLE_ID_ALL;
    }
    o.u64(flags);
    o.b.resize(start + ATTR_SIZE, 0);
}

/// The `sample_id_all` trailer of a non-sample record of attr `a` with id `id`.
fn trailer(o: &mut Out, a: &Attr, id: u64, pid: u32, time: u64) {
    if !a.sample_id_all {
        return;
    }
    let t = a.sample_type;
    if t & st::TID != 0 {
        o.u32(pid);
        o.u32(pid);
    }
    if t & st::TIME != 0 {
        o.u64(time);
    }
    if t & st::ID != 0 {
        o.u64(id);
    }
    if t & st::STREAM_ID != 0 {
        o.u64(id);
    }
    if t & st::CPU != 0 {
        o.u32(0);
        o.u32(0);
    }
    if t & st::IDENTIFIER != 0 {
        o.u64(id);
    }
}

fn sample_body(o: &mut Out, a: &Attr, id: u64, r: &Record) {
    let Record::Sample {
        ip,
        pid,
        time,
        cpu,
        period,
        callchain,
        raw,
        ..
    } = r
    else {
        return;
    };
    let t = a.sample_type;
    if t & st::IDENTIFIER != 0 {
        o.u64(id);
    }
    if t & st::IP != 0 {
        o.u64(*ip);
    }
    if t & st::TID != 0 {
        o.u32(*pid);
        o.u32(*pid);
    }
    if t & st::TIME != 0 {
        o.u64(*time);
    }
    if t & st::ADDR != 0 {
        o.u64(*ip);
    }
    if t & st::ID != 0 {
        o.u64(id);
    }
    if t & st::STREAM_ID != 0 {
        o.u64(id);
    }
    if t & st::CPU != 0 {
        o.u32(u32::from(*cpu % 2));
        o.u32(0);
    }
    if t & st::PERIOD != 0 {
        o.u64(*period);
    }
    if t & st::CALLCHAIN != 0 {
        let n = callchain.len().min(16);
        o.u64(n as u64);
        for x in callchain.iter().take(n) {
            o.u64(*x);
        }
    }
    if t & st::RAW != 0 {
        let raw = raw.get(..raw.len().min(64)).unwrap_or_default();
        // u32 size, then the bytes; size + 4 is a multiple of 8.
        let size = (raw.len() + 4).next_multiple_of(8) - 4;
        o.u32(size as u32);
        o.b.extend_from_slice(raw);
        o.b.resize(o.b.len() + size - raw.len(), 0);
    }
}

/// One record, header included.
fn record(o: &mut Out, f: &File, ids: &[u64], r: &Record) {
    let start = o.b.len();
    let a0 = &f.attrs[0];
    let (kind, misc): (u32, u16) = match r {
        Record::Sample { .. } => (9, 1),
        Record::Comm { .. } => (3, 0),
        Record::Mmap2 { .. } => (10, 2),
        Record::Fork { exit, .. } => (if *exit { 4 } else { 7 }, 0),
        Record::Lost { .. } => (2, 0),
        Record::FinishedRound => (68, 0),
    };
    o.u32(kind);
    o.u16(misc);
    o.u16(0);
    match r {
        Record::Sample { attr, .. } => {
            let i = usize::from(*attr) % f.attrs.len();
            sample_body(o, &f.attrs[i], ids[i], r);
        }
        Record::Comm { pid, name } => {
            o.u32(*pid);
            o.u32(*pid);
            let n: Vec<u8> = name.bytes().filter(|c| *c != 0).take(15).collect();
            o.b.extend_from_slice(&n);
            o.b.push(0);
            o.pad8();
            trailer(o, a0, ids[0], *pid, 0);
        }
        Record::Mmap2 {
            pid,
            addr,
            len,
            file,
        } => {
            o.u32(*pid);
            o.u32(*pid);
            o.u64(*addr);
            o.u64(*len);
            o.u64(0); // pgoff
            o.u32(8); // maj
            o.u32(1); // min
            o.u64(1234); // ino
            o.u64(0); // ino_generation
            o.u32(5); // prot
            o.u32(2); // flags
            let n: Vec<u8> = file.bytes().filter(|c| *c != 0).take(64).collect();
            o.b.extend_from_slice(&n);
            o.b.push(0);
            o.pad8();
            trailer(o, a0, ids[0], *pid, 0);
        }
        Record::Fork {
            pid, ppid, time, ..
        } => {
            o.u32(*pid);
            o.u32(*ppid);
            o.u32(*pid);
            o.u32(*ppid);
            o.u64(*time);
            trailer(o, a0, ids[0], *pid, *time);
        }
        Record::Lost { lost } => {
            o.u64(ids[0]);
            o.u64(u64::from(*lost));
            trailer(o, a0, ids[0], 0, 0);
        }
        Record::FinishedRound => {}
    }
    let size = o.b.len() - start;
    let s = if o.big {
        (size as u16).to_be_bytes()
    } else {
        (size as u16).to_le_bytes()
    };
    o.b[start + 6..start + 8].copy_from_slice(&s);
}

fn feature(o: &mut Out, f: &File, ids: &[u64], x: &Feature) {
    match x {
        Feature::Hostname(s) | Feature::OsRelease(s) | Feature::Version(s) | Feature::Arch(s) => {
            o.string(s);
        }
        Feature::NrCpus(avail, online) => {
            o.u32(u32::from(*avail).max(1));
            o.u32(u32::from(*online).clamp(1, u32::from(*avail).max(1)));
        }
        Feature::Cmdline(args) => {
            let args = args.get(..args.len().min(8)).unwrap_or_default();
            o.u32(args.len() as u32);
            for a in args {
                o.string(a);
            }
        }
        Feature::SampleTime(a, b) => {
            o.u64(*a.min(b));
            o.u64(*a.max(b));
        }
        Feature::EventDesc => {
            o.u32(f.attrs.len() as u32);
            o.u32(ATTR_SIZE as u32);
            for (i, a) in f.attrs.iter().enumerate() {
                attr_bytes(o, a);
                o.u32(u32::from(a.ids));
                o.string(&format!("event{i}"));
                for k in 0..u64::from(a.ids) {
                    o.u64(ids[i] + k);
                }
            }
        }
    }
}

/// The number of SAMPLE records the model writes.
pub fn samples(f: &File) -> u64 {
    f.records
        .iter()
        .filter(|r| matches!(r, Record::Sample { .. }))
        .count() as u64
}

/// Writes the file (call [`normalize`] first for a file perf would write).
pub fn write(f: &File) -> Vec<u8> {
    let mut f = f.clone();
    if f.attrs.is_empty() {
        normalize(&mut f);
    }
    let ids = first_ids(&f);
    let mut o = Out {
        b: Vec::new(),
        big: f.big_endian,
    };
    let magic: &[u8; 8] = if f.big_endian {
        b"2ELIFREP"
    } else {
        b"PERFILE2"
    };
    o.b.extend_from_slice(magic);
    if f.pipe {
        o.u64(16);
        for (i, a) in f.attrs.iter().enumerate() {
            let start = o.b.len();
            o.u32(64); // HEADER_ATTR
            o.u16(0);
            o.u16(0);
            attr_bytes(&mut o, a);
            for k in 0..u64::from(a.ids) {
                o.u64(ids[i] + k);
            }
            let size = (o.b.len() - start) as u16;
            let s = if o.big {
                size.to_be_bytes()
            } else {
                size.to_le_bytes()
            };
            o.b[start + 6..start + 8].copy_from_slice(&s);
        }
        for r in &f.records {
            record(&mut o, &f, &ids, r);
        }
        return o.b;
    }
    o.u64(104);
    o.u64((ATTR_SIZE + 16) as u64);
    // attrs, data, event_types sections and the feature bits, patched below.
    o.b.resize(104, 0);
    // The id arrays, then the attrs with their ids sections.
    let mut id_at = Vec::new();
    for (i, a) in f.attrs.iter().enumerate() {
        id_at.push(o.b.len() as u64);
        for k in 0..u64::from(a.ids) {
            o.u64(ids[i] + k);
        }
    }
    let attrs_at = o.b.len();
    for (i, a) in f.attrs.iter().enumerate() {
        attr_bytes(&mut o, a);
        o.u64(id_at[i]);
        o.u64(u64::from(a.ids) * 8);
    }
    let data_at = o.b.len();
    for r in &f.records {
        record(&mut o, &f, &ids, r);
    }
    let data_end = o.b.len();
    o.put64(24, attrs_at as u64);
    o.put64(32, (data_at - attrs_at) as u64);
    o.put64(40, data_at as u64);
    o.put64(48, (data_end - data_at) as u64);
    let mut words = [0u64; 4];
    for x in &f.features {
        let b = x.bit();
        words[(b / 64) as usize] |= 1 << (b % 64);
    }
    for (w, v) in words.iter().enumerate() {
        o.put64(72 + 8 * w, *v);
    }
    // The feature table, then the sections in bit order.
    let table = o.b.len();
    o.b.resize(table + 16 * f.features.len(), 0);
    for (i, x) in f.features.iter().enumerate() {
        let at = o.b.len();
        feature(&mut o, &f, &ids, x);
        let size = o.b.len() - at;
        o.put64(table + 16 * i, at as u64);
        o.put64(table + 16 * i + 8, size as u64);
    }
    o.b
}
