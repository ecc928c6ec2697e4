//! Shared test support: robustness sweeps and corpus lookup.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use tracelint::{check_bytes, CheckOptions, Finding, Limits, Sink};

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
        eprintln!("skipping: {} is not present", p.display());
        None
    }
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
