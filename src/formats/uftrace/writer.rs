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
