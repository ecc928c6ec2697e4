//! Byte writers for building uftrace directory images in memory (tests and fuzz targets):
//! task records, the `info` header and a minimal complete recording.

use crate::input::MemDir;

/// One task record to encode.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
pub struct Record {
    /// Timestamp.
    pub time: u64,
    /// 0 ENTRY, 1 EXIT, 2 LOST, 3 EVENT (masked to 2 bits).
    pub typ: u8,
    /// `more` flag.
    pub more: bool,
    /// Depth (masked to 10 bits).
    pub depth: u16,
    /// Address / id / count (masked to 48 bits).
    pub addr: u64,
    /// Payload bytes written after the record (already framed by the caller).
    pub payload: Vec<u8>,
}

impl Record {
    /// The 16 record bytes, little-endian, with magic 5.
    pub fn encode(&self) -> [u8; 16] {
        let w = u64::from(self.typ & 3)
            | (u64::from(self.more) << 2)
            | (5 << 3)
            | ((u64::from(self.depth) & 0x3ff) << 6)
            | ((self.addr & 0xffff_ffff_ffff) << 16);
        let mut out = [0u8; 16];
        let (a, b) = out.split_at_mut(8);
        a.copy_from_slice(&self.time.to_le_bytes());
        b.copy_from_slice(&w.to_le_bytes());
        out
    }
}

/// Encodes records and their payloads back to back.
pub fn encode_records(recs: &[Record]) -> Vec<u8> {
    let mut v = Vec::with_capacity(recs.len().saturating_mul(16));
    for r in recs {
        v.extend_from_slice(&r.encode());
        v.extend_from_slice(&r.payload);
    }
    v
}

/// A 40-byte `info` header.
pub fn info_header(version: u32, feat: u64, info_mask: u64, max_stack: u16) -> Vec<u8> {
    let mut v = Vec::with_capacity(40);
    v.extend_from_slice(b"Ftrace!\0");
    v.extend_from_slice(&version.to_le_bytes());
    v.extend_from_slice(&40u16.to_le_bytes());
    v.push(1);
    v.push(2);
    v.extend_from_slice(&feat.to_le_bytes());
    v.extend_from_slice(&info_mask.to_le_bytes());
    v.extend_from_slice(&max_stack.to_le_bytes());
    v.extend_from_slice(&[0u8; 6]);
    v
}

/// A minimal valid recording of one task (tid 100) running `main` calling `f` for each
/// record pair, as an in-memory directory. `body` replaces the default records when given.
pub fn minimal(body: Option<&[Record]>) -> MemDir {
    let mut info = info_header(4, 0x62, 0x81, 1024);
    info.extend_from_slice(
        b"exename:/bin/t\ntaskinfo:lines=2\ntaskinfo:nr_tid=1\ntaskinfo:tids=100\n",
    );
    let task = b"SESS timestamp=1.000000000 pid=100 sid=0123456789abcdef exename=\"/bin/t\"\nTASK timestamp=1.000000001 tid=100 pid=100\n".to_vec();
    let map = b"400000-401000 r-xp 00000000 00:00 0                          /bin/t\n7ffe0000-7fff0000 rw-p 00000000 00:00 0                          [stack]\n".to_vec();
    let sym = b"# symbols: 2\n# path name: /bin/t\n0000000000000100 T main\n0000000000000200 T f\n0000000000000300 ? __sym_end\n".to_vec();
    let default = [
        Record {
            time: 1_000_000_010,
            typ: 0,
            more: false,
            depth: 0,
            addr: 0x400110,
            payload: vec![],
        },
        Record {
            time: 1_000_000_020,
            typ: 0,
            more: false,
            depth: 1,
            addr: 0x400210,
            payload: vec![],
        },
        Record {
            time: 1_000_000_030,
            typ: 1,
            more: false,
            depth: 1,
            addr: 0x400210,
            payload: vec![],
        },
        Record {
            time: 1_000_000_040,
            typ: 1,
            more: false,
            depth: 0,
            addr: 0x400110,
            payload: vec![],
        },
    ];
    let recs = encode_records(body.unwrap_or(&default));
    MemDir::new(
        "/mem/uftrace.data",
        vec![
            ("info".into(), info),
            ("task.txt".into(), task),
            ("sid-0123456789abcdef.map".into(), map),
            ("t.sym".into(), sym),
            ("100.dat".into(), recs),
        ],
    )
}

/// A line of `task.txt`.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
pub enum TaskLine {
    /// `SESS`.
    Sess {
        /// Seconds.
        ts: u32,
        /// Pid.
        pid: u16,
        /// Session id (hex, 16 digits).
        sid: u64,
    },
    /// `TASK`.
    Task {
        /// Seconds.
        ts: u32,
        /// Tid.
        tid: u16,
        /// Pid.
        pid: u16,
    },
    /// `FORK`.
    Fork {
        /// Seconds.
        ts: u32,
        /// Pid.
        pid: u16,
        /// Parent.
        ppid: u16,
    },
    /// `EXEC`.
    Exec {
        /// Seconds.
        ts: u32,
        /// Pid.
        pid: u16,
    },
    /// Anything.
    Raw(String),
}

impl TaskLine {
    /// The line as `task.txt` holds it, newline included.
    pub fn text(&self) -> String {
        match self {
            TaskLine::Sess { ts, pid, sid } => {
                format!(
                    "SESS timestamp={ts}.000000000 pid={pid} sid={sid:016x} exename=\"/bin/t\"\n"
                )
            }
            TaskLine::Task { ts, tid, pid } => {
                format!("TASK timestamp={ts}.000000000 tid={tid} pid={pid}\n")
            }
            TaskLine::Fork { ts, pid, ppid } => {
                format!("FORK timestamp={ts}.000000000 pid={pid} ppid={ppid}\n")
            }
            TaskLine::Exec { ts, pid } => {
                format!("EXEC timestamp={ts}.000000000 pid={pid} exename=\"/bin/u\"\n")
            }
            TaskLine::Raw(s) => format!("{s}\n"),
        }
    }
}

/// The kernel side of a uftrace recording (`uftrace record -k`): `kernel_header` (page
/// size, long size and byte order lines, then `TRACEFS: <path>: <length>` blocks holding
/// the tracefs header and event format files) and one `kernel-cpuN.dat` of ring-buffer
/// pages per CPU.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
pub struct Kernel {
    /// Page size 2^(10 + n % 6).
    pub page_shift: u8,
    /// 4-byte longs.
    pub long4: bool,
    /// Big-endian.
    pub big_endian: bool,
    /// Event formats besides funcgraph entry/exit: (name, id, fields as (offset, size)).
    pub events: Vec<KernelEvent>,
    /// Pages of each CPU.
    pub cpus: Vec<Vec<crate::formats::ftrace_ring::writer::PageBuilder>>,
}

/// A kernel event format: (name, id, fields as (offset, size)).
pub type KernelEvent = (String, u16, Vec<(u8, u8)>);

impl Kernel {
    /// The page size, 2^(10 + `page_shift` % 6).
    pub fn page_size(&self) -> u32 {
        1u32 << (10 + u32::from(self.page_shift % 6))
    }

    /// The files of the kernel recording: `kernel_header` and one `kernel-cpuN.dat` per CPU.
    pub fn files(&self) -> Vec<(String, Vec<u8>)> {
        use crate::formats::ftrace_ring::writer as rw;
        use crate::formats::tracecmd::writer as tw;
        use crate::reader::Endian;
        let k = self;
        let ps = k.page_size();
        let long: u8 = if k.long4 { 4 } else { 8 };
        let endian = if k.big_endian {
            Endian::Big
        } else {
            Endian::Little
        };
        let mut h = format!(
            "PAGE_SIZE: {ps}\nLONG_SIZE: {long}\nENDIAN: {}\n",
            if k.big_endian { "BE" } else { "LE" }
        )
        .into_bytes();
        let mut blocks = vec![
            (
                "events/header_page".to_string(),
                tw::header_page_text(u32::from(long), ps),
            ),
            ("events/header_event".to_string(), tw::header_event_text()),
            (
                "events/ftrace/funcgraph_entry/format".to_string(),
                tw::format_text("funcgraph_entry", 11, &[("func", 8, 8), ("depth", 16, 4)]),
            ),
            (
                "events/ftrace/funcgraph_exit/format".to_string(),
                tw::format_text(
                    "funcgraph_exit",
                    10,
                    &[("func", 8, 8), ("depth", 16, 4), ("calltime", 24, 8)],
                ),
            ),
        ];
        for (name, id, fields) in &k.events {
            let name: String = name
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                .take(16)
                .collect();
            let fields: Vec<(String, u32, u32)> = fields
                .iter()
                .take(4)
                .enumerate()
                .map(|(i, (o, sz))| (format!("f{i}"), u32::from(*o), u32::from(*sz)))
                .collect();
            let refs: Vec<(&str, u32, u32)> = fields
                .iter()
                .map(|(n, o, sz)| (n.as_str(), *o, *sz))
                .collect();
            blocks.push((
                format!("events/sys/{name}/format"),
                tw::format_text(&name, u32::from(*id), &refs),
            ));
        }
        for (path, text) in blocks {
            h.extend_from_slice(format!("TRACEFS: {path}: {}\n", text.len()).as_bytes());
            h.extend_from_slice(&text);
        }
        let mut files = vec![("kernel_header".to_string(), h)];
        for (cpu, pages) in k.cpus.iter().enumerate() {
            files.push((
                format!("kernel-cpu{cpu}.dat"),
                rw::pages(pages, ps, long, endian),
            ));
        }
        files
    }
}
