//! Shared test support: robustness sweeps and corpus lookup.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use tracelint::{check_bytes, CheckOptions, Finding, Limits, Sink};

/// Every input under `dir` as the CLI finds them, sorted: files (but Markdown notes) and
/// directory-format recordings (a uftrace folder holding `info`, a `perf record --threads`
/// folder) as one input each; other folders are
/// searched. A folder that cannot be read adds nothing.
pub fn inputs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if p.join("info").is_file() || tracelint::formats::detect_dir(&p).is_some() {
                out.push(p);
            } else {
                inputs(&p, out);
            }
        } else if p.is_file() && p.extension().is_none_or(|x| x != "md") {
            out.push(p);
        }
    }
}

/// Every `.rs` file under `dir`, recursively, appended to `out`.
pub fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The project's corpus folder.
pub fn corpus(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(sub)
}

/// `../shared` next to the project, if present.
pub fn shared(sub: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("shared")
        .join(sub);
    if p.exists() {
        Some(p)
    } else {
        skip_or_fail(&format!("{} is not present", p.display()));
        None
    }
}

mod skip;
#[allow(unused_imports)] // not every test binary records a skip of its own
pub use skip::{record_skip, skip_or_fail};

/// One reader of the matrix (`scripts/readers.sh`, `campaign/readers.py`).
#[derive(Debug, Clone)]
pub struct MatrixReader {
    pub name: &'static str,
    pub path: PathBuf,
    /// Reads v7 trace.dat files (trace-cmd 3.x). The 2.x readers exit 0 and print nothing on
    /// a v7 file: "cannot read", never "read nothing".
    pub v7: bool,
    /// Decompresses zlib sections (the matrix's own 3.x builds; Debian's 3.1.6 has zstd only).
    pub zlib: bool,
}

/// The folder `scripts/readers.sh` builds the matrix into: `$TRACELINT_READERS`, else
/// `$XDG_CACHE_HOME/tracelint/readers` or `~/.cache/tracelint/readers`.
pub fn reader_cache() -> PathBuf {
    if let Some(p) = std::env::var_os("TRACELINT_READERS") {
        return PathBuf::from(p);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from("/tmp"));
    base.join("tracelint").join("readers")
}

/// Every reader of the matrix for `tool` ("trace-cmd" or "uftrace") present here: the
/// builds in [`reader_cache`] and Debian's packaged one. A missing reader is skipped with
/// its reason (a failure in CI).
pub fn matrix_readers(tool: &str) -> Vec<MatrixReader> {
    let cache = reader_cache();
    let built: &[(&str, &str, bool, bool)] = match tool {
        "trace-cmd" => &[
            ("trace-cmd 2.4", "trace-cmd-2.4/bin/trace-cmd", false, false),
            (
                "trace-cmd 2.9.5",
                "trace-cmd-2.9.5/bin/trace-cmd",
                false,
                false,
            ),
            (
                "trace-cmd 3.1.6",
                "trace-cmd-3.1.6/bin/trace-cmd",
                true,
                true,
            ),
            (
                "trace-cmd 3.3.4",
                "trace-cmd-3.3.4/bin/trace-cmd",
                true,
                true,
            ),
        ],
        "uftrace" => &[
            ("uftrace 0.9.4", "uftrace-0.9.4/bin/uftrace", true, true),
            ("uftrace 0.16", "uftrace-0.16/bin/uftrace", true, true),
            ("uftrace 0.18.1", "uftrace-0.18.1/bin/uftrace", true, true),
        ],
        _ => &[],
    };
    let mut out = Vec::new();
    for &(name, rel, v7, zlib) in built {
        let p = cache.join(rel);
        if p.is_file() {
            out.push(MatrixReader {
                name,
                path: p,
                v7,
                zlib,
            });
        } else {
            skip_or_fail(&format!(
                "reader {name} is not built at {} (scripts/readers.sh)",
                p.display()
            ));
        }
    }
    let (name, sys) = match tool {
        "trace-cmd" => ("trace-cmd 3.1.6 (Debian)", "/usr/bin/trace-cmd"),
        "uftrace" => ("uftrace 0.13 (Debian)", "/usr/bin/uftrace"),
        _ => ("gdb 13 (Debian)", "/usr/bin/gdb"),
    };
    if Path::new(sys).is_file() {
        out.push(MatrixReader {
            name,
            path: PathBuf::from(sys),
            v7: true,
            zlib: false,
        });
    } else {
        skip_or_fail(&format!("{sys} is not installed"));
    }
    out
}

/// The compression algorithm a trace.dat v7 header names (`none`, `zstd`, `zlib`), read from
/// the header itself (magic, version string, endian, long size, page size, then the name);
/// `None` for a v6 file or a header too short to hold one.
pub fn tracedat_compression(data: &[u8]) -> Option<String> {
    let version = data.get(10..)?;
    let end = version.iter().position(|&b| b == 0)?;
    if version.get(..end)? != b"7" {
        return None;
    }
    let name = data.get(10 + end + 1 + 1 + 1 + 4..)?;
    let len = name.iter().position(|&b| b == 0)?;
    Some(String::from_utf8_lossy(name.get(..len)?).into_owned())
}

/// Checks `data` with `opts` and returns every finding kept.
pub fn check(data: &[u8], opts: &CheckOptions) -> Vec<Finding> {
    let mut sink = Sink::with_limits(&opts.limits);
    let _ = check_bytes(data, opts, &mut sink);
    sink.into_parts().0
}

/// Findings one per line (`CODE severity @offset+length: message`), for assertion messages.
pub fn show(f: &[Finding]) -> String {
    f.iter()
        .map(|f| {
            format!(
                "{} {} @{}+{}: {}\n",
                f.rule.code, f.severity, f.offset, f.length, f.message
            )
        })
        .collect()
}

/// Checks `data` with fuzzing limits and asserts every span lies inside the input.
pub fn check_in_bounds(data: &[u8], opts: &CheckOptions) -> Vec<Finding> {
    let mut sink = Sink::with_limits(&opts.limits);
    let _ = check_bytes(data, opts, &mut sink);
    let (findings, _) = sink.into_parts();
    for f in &findings {
        if f.file.is_none() {
            assert!(
                f.offset.saturating_add(f.length) <= data.len() as u64,
                "finding {} span {}+{} outside input of {} bytes: {}",
                f.rule.code,
                f.offset,
                f.length,
                data.len(),
                f.message
            );
        }
    }
    findings
}

/// Options with small limits, as the fuzz targets use.
pub fn fuzz_opts() -> CheckOptions {
    CheckOptions {
        limits: Limits::fuzzing(),
        ..CheckOptions::default()
    }
}

/// Every truncation point (strided to at most `max_cases` cases) and a sweep of single-byte
/// changes (each position strided, several values) must give findings or a clean verdict,
/// never a panic. The truncated and changed inputs must differ from a clean verdict at least
/// sometimes, which the caller can assert from the returned count of inputs with errors.
pub fn sweep(data: &[u8], max_cases: usize) -> usize {
    let opts = fuzz_opts();
    let mut with_errors = 0usize;
    let n = data.len();
    let stride = (n / max_cases.max(1)).max(1);
    let mut cut = 0;
    while cut < n {
        let f = check_in_bounds(&data[..cut], &opts);
        if f.iter().any(|f| f.severity == tracelint::Severity::Error) {
            with_errors += 1;
        }
        cut += stride;
    }
    let mut buf = data.to_vec();
    let mut pos = 0;
    let mut k = 0u8;
    while pos < n {
        let orig = buf[pos];
        for v in [orig ^ 0xff, orig.wrapping_add(1), 0, 0x7f ^ k] {
            buf[pos] = v;
            let f = check_in_bounds(&buf, &opts);
            if f.iter().any(|f| f.severity == tracelint::Severity::Error) {
                with_errors += 1;
            }
        }
        buf[pos] = orig;
        k = k.wrapping_add(13);
        pos += stride;
    }
    with_errors
}

/// (code, severity, member, file, offset, length, message) of a finding.
pub type Key = (
    String,
    String,
    Option<String>,
    Option<String>,
    u64,
    u64,
    String,
);

/// The [`Key`] of every finding of `r`.
pub fn keys(r: &tracelint::check::Report) -> Vec<Key> {
    r.findings
        .iter()
        .map(|f| {
            (
                f.rule.code.to_string(),
                f.severity.to_string(),
                f.member.clone(),
                f.file.clone(),
                f.offset,
                f.length,
                f.message.clone(),
            )
        })
        .collect()
}

/// The numeric value `key` of a structure map, summed over all its nodes.
pub fn map_total(n: &tracelint::map::MapNode, key: &str) -> u64 {
    let here = n
        .values
        .iter()
        .find(|(k, _)| k == key)
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    here + n.children.iter().map(|c| map_total(c, key)).sum::<u64>()
}

/// The `record runs taken` of a structure map (uftrace task files' runs the walks took).
pub fn runs_taken(n: &tracelint::map::MapNode) -> u64 {
    map_total(n, "record runs taken")
}
