//! Format detection by content (magic numbers and directory shape), never by file name.

use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// A supported input format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// GDB tracepoint file (`tsave`).
    GdbTfile,
    /// trace-cmd `trace.dat` (v6 or v7).
    TraceCmd,
    /// uftrace data directory.
    Uftrace,
    /// Darwin ktrace / kdebug file with a magic (V3 chunked, raw V1/V1+/V2).
    Ktrace,
    /// Darwin raw kdebug V0 (no magic; only by explicit hint).
    KtraceV0,
}

impl Format {
    /// Every format, for help texts.
    pub const ALL: [Format; 5] = [
        Format::GdbTfile,
        Format::TraceCmd,
        Format::Uftrace,
        Format::Ktrace,
        Format::KtraceV0,
    ];

    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Format::GdbTfile => "gdb-tfile",
            Format::TraceCmd => "trace-cmd",
            Format::Uftrace => "uftrace",
            Format::Ktrace => "ktrace",
            Format::KtraceV0 => "ktrace-v0",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "gdb-tfile" | "gdb" | "tfile" => Ok(Format::GdbTfile),
            "tracecmd" | "trace-cmd" | "trace.dat" => Ok(Format::TraceCmd),
            "uftrace" => Ok(Format::Uftrace),
            "ktrace" => Ok(Format::Ktrace),
            "ktrace-v0" => Ok(Format::KtraceV0),
            _ => Err(format!(
                "unknown format `{s}`; expected one of gdb-tfile, trace-cmd (or tracecmd), uftrace, ktrace, ktrace-v0"
            )),
        }
    }
}

/// GDB tfile magic.
pub const GDB_MAGIC: &[u8] = b"\x7fTRACE0\n";
/// trace-cmd magic (`\x17\x08\x44` then `tracing`).
pub const TRACECMD_MAGIC: &[u8] = b"\x17\x08\x44tracing";
/// uftrace `info` magic.
pub const UFTRACE_MAGIC: &[u8] = b"Ftrace!\0";
/// ktrace magics as the first little-endian u32.
pub const KTRACE_MAGICS: [u32; 4] = [0x55aa_0300, 0x0000_1000, 0x55aa_0200, 0x55aa_0101];

/// Detects the format of file content. `None` when nothing matches.
pub fn detect_bytes(data: &[u8]) -> Option<Format> {
    if data.starts_with(GDB_MAGIC) {
        return Some(Format::GdbTfile);
    }
    if data.starts_with(TRACECMD_MAGIC) {
        return Some(Format::TraceCmd);
    }
    if let Some(first) = crate::reader::u32_at(data, 0, crate::reader::LittleEndian) {
        if KTRACE_MAGICS.contains(&first) {
            return Some(Format::Ktrace);
        }
    }
    None
}

/// Bytes of a file's start that [`detect_bytes`] looks at.
pub const DETECT_BYTES: usize = 16;

/// Detects the format of an open file of `len` bytes from its first [`DETECT_BYTES`].
pub fn detect_file(file: &std::fs::File, len: u64) -> std::io::Result<Option<Format>> {
    use std::os::unix::fs::FileExt;
    let mut head = [0u8; DETECT_BYTES];
    let n = usize::try_from(len).map_or(DETECT_BYTES, |l| l.min(DETECT_BYTES));
    let head = head.get_mut(..n).unwrap_or_default();
    file.read_exact_at(head, 0)?;
    Ok(detect_bytes(head))
}

/// True when `head` (the first bytes of a file) is a trace magic cut short or damaged in at
/// most two bytes: a file a directory search must not pass over.
pub fn near_magic(head: &[u8]) -> bool {
    const MAGICS: &[&[u8]] = &[
        b"\x17\x08\x44tracing",
        b"\x7fTRACE0\n",
        UFTRACE_MAGIC,
        &[0x00, 0x03, 0xaa, 0x55],
        &[0x00, 0x10, 0x00, 0x00],
        &[0x00, 0x02, 0xaa, 0x55],
        &[0x01, 0x01, 0xaa, 0x55],
    ];
    if head.is_empty() {
        return false;
    }
    MAGICS.iter().any(|m| {
        let n = head.len().min(m.len());
        let differ = head
            .iter()
            .zip(m.iter())
            .take(n)
            .filter(|(a, b)| a != b)
            .count();
        // A cut magic must match exactly (and be long enough to mean something); a whole
        // one may be damaged in two bytes if the rest (at least 6 bytes) holds.
        if head.len() < m.len() {
            differ == 0 && head.len() >= 3
        } else {
            m.len() >= 8 && differ <= 2
        }
    })
}

/// True when `dir` looks like a uftrace data directory: an `info` file with the uftrace magic,
/// or an `info` file (magic damaged or truncated) next to `task.txt` or a `<TID>.dat` file, the
/// shape `uftrace record` writes, or no `info` next to `task.txt` and a `<TID>.dat` file. The
/// second and third kinds are checked as uftrace and fail on their `info`, as uftrace itself
/// does ("invalid magic string found!", or exit 255 without `info`).
pub fn is_uftrace_dir(dir: &std::path::Path) -> bool {
    use std::io::Read;
    let info = dir.join("info");
    let Ok(mut f) = std::fs::File::open(&info) else {
        // No `info` at all, but `task.txt` and a `<TID>.dat`: a recording whose `info` was
        // lost, which every uftrace refuses; it is checked (and fails) as one.
        return !info.exists() && dir.join("task.txt").is_file() && has_task_file(dir);
    };
    let mut magic = [0u8; 8];
    if f.read_exact(&mut magic).is_ok() && magic == UFTRACE_MAGIC {
        return true;
    }
    if !info.is_file() {
        return false;
    }
    dir.join("task.txt").is_file() || has_task_file(dir)
}

/// Whether `dir` holds a `<TID>.dat` file.
fn has_task_file(dir: &std::path::Path) -> bool {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return false;
    };
    rd.filter_map(Result::ok).any(|e| {
        let name = e.file_name();
        let name = name.as_encoded_bytes();
        name.strip_suffix(b".dat")
            .is_some_and(|tid| !tid.is_empty() && tid.iter().all(u8::is_ascii_digit))
            && e.file_type().is_ok_and(|t| t.is_file())
    })
}
