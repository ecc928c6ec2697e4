//! The invariants every fuzz runner asserts (spans inside the input, the same findings twice,
//! fast paths and sieves that change nothing) and the options the runners check with.

use crate::check::{check_bytes, check_dir, CheckOptions};
use crate::detect::Format;
use crate::finding::{Finding, Sink};
use crate::input::MemDir;
use crate::limits::Limits;
use crate::map::MapNode;

/// Options the fuzz targets check with: fuzzing limits, the given hint, files read into memory.
pub fn fuzz_options(hint: Option<Format>) -> CheckOptions {
    CheckOptions {
        limits: Limits::fuzzing(),
        format_hint: hint,
        endian: None,
        load_mode: crate::input::LoadMode::Read,
        fast_paths: true,
        input_name: None,
        program: None,
    }
}

/// The outcome of one check, as compared between runs.
#[derive(Debug, PartialEq)]
pub(crate) struct Outcome {
    pub(crate) keys: Vec<(&'static str, Option<String>, u64, u64)>,
    pub(crate) dropped: u64,
    pub(crate) map: MapNode,
}

pub(crate) fn outcome(findings: &[Finding], dropped: u64, mut map: MapNode) -> Outcome {
    map.attach_findings(findings);
    if let Err(e) = serde_json::to_string(&map) {
        panic!("structure map does not serialise: {e}");
    }
    if let Err(e) = serde_json::to_string(findings) {
        panic!("findings do not serialise: {e}");
    }
    Outcome {
        keys: findings
            .iter()
            .map(|f| (f.rule.code, f.file.clone(), f.offset, f.length))
            .collect(),
        dropped,
        map,
    }
}

pub(crate) fn assert_file_spans(findings: &[Finding], len: usize, what: &str) {
    let len = len as u64;
    for f in findings {
        assert!(
            f.file.is_none(),
            "{what}: finding {} names file {:?} in a single-file input: {}",
            f.rule.code,
            f.file,
            f.message
        );
        assert!(
            f.offset.checked_add(f.length).is_some_and(|end| end <= len),
            "{what}: finding {} span {}+{} lies outside the {len}-byte input: {}",
            f.rule.code,
            f.offset,
            f.length,
            f.message
        );
    }
}

pub(crate) fn check_file_once(data: &[u8], opts: &CheckOptions) -> Outcome {
    let mut sink = Sink::with_limits(&opts.limits);
    let (_, map) = check_bytes(data, opts, &mut sink);
    let (findings, dropped) = sink.into_parts();
    assert!(
        findings.len() <= opts.limits.max_findings,
        "more findings kept ({}) than max_findings ({})",
        findings.len(),
        opts.limits.max_findings
    );
    assert_file_spans(&findings, data.len(), "file");
    outcome(&findings, dropped, map)
}

/// Checks one file twice with `opts` and asserts the invariants (spans inside, deterministic).
pub fn check_file_invariants(data: &[u8], opts: &CheckOptions) {
    let first = check_file_once(data, opts);
    let second = check_file_once(data, opts);
    assert!(
        first == second,
        "checking the same bytes twice gave different results:\n first: {:?}\nsecond: {:?}",
        first.keys,
        second.keys
    );
}

/// Checks a directory image twice, then once more with the fast paths toggled, and asserts the
/// invariants.
pub fn check_dir_invariants(dir: &MemDir, opts: &CheckOptions) {
    let once = |opts: &CheckOptions| {
        let mut sink = Sink::with_limits(&opts.limits);
        let map = check_dir(dir, opts, &mut sink);
        let (findings, dropped) = sink.into_parts();
        for f in &findings {
            let file_len = f
                .file
                .as_deref()
                .and_then(|name| dir.files().iter().find(|(n, _)| n == name))
                .map(|(_, d)| d.len() as u64);
            match file_len {
                Some(len) => assert!(
                    f.offset.checked_add(f.length).is_some_and(|end| end <= len),
                    "finding {} span {}+{} lies outside {:?} ({len} bytes): {}",
                    f.rule.code,
                    f.offset,
                    f.length,
                    f.file,
                    f.message
                ),
                None => assert!(
                    f.offset == 0 && f.length == 0,
                    "finding {} about {} has span {}+{} but there are no bytes to point into: {}",
                    f.rule.code,
                    f.file
                        .as_deref()
                        .map_or("the directory".to_string(), |n| format!(
                            "absent file {n:?}"
                        )),
                    f.offset,
                    f.length,
                    f.message
                ),
            }
        }
        outcome(&findings, dropped, map)
    };
    let first = once(opts);
    let second = once(opts);
    assert!(
        first == second,
        "checking the same directory twice gave different results:\n first: {:?}\nsecond: {:?}",
        first.keys,
        second.keys
    );
    let slow = once(&CheckOptions {
        fast_paths: !opts.fast_paths,
        ..opts.clone()
    });
    assert!(
        first == slow,
        "fast paths {} and {} gave different results:\n first: {:?}\nsecond: {:?}",
        if opts.fast_paths { "on" } else { "off" },
        if opts.fast_paths { "off" } else { "on" },
        first.keys,
        slow.keys
    );
}

/// One finding, whole: code, severity, file, span, message.
pub(crate) type Whole = (&'static str, String, Option<String>, u64, u64, String);

/// Every finding of a sink, whole, and the dropped count.
pub(crate) type Full = (Vec<Whole>, u64);

pub(crate) fn whole_of(findings: &[Finding]) -> Vec<Whole> {
    findings
        .iter()
        .map(|f| {
            (
                f.rule.code,
                f.severity.to_string(),
                f.file.clone(),
                f.offset,
                f.length,
                f.message.clone(),
            )
        })
        .collect()
}

pub(crate) fn full(sink: Sink) -> Full {
    let (findings, dropped) = sink.into_parts();
    (whole_of(&findings), dropped)
}

/// Sifts `data` as it would be unpacked (in three blocks, so pages straddle them) and checks
/// the holed bytes with the sieve: when the sieve says its guess held, the findings must be
/// exactly those of the whole file.
pub fn check_sieve_invariant(data: &[u8], opts: &CheckOptions) {
    use crate::formats::tracecmd::{check_sifted_bytes, PageSieve};
    // Guess from the header alone, so that small inputs are sifted too.
    let mut sieve = PageSieve::default().with_head_bytes(64);
    let mut holed = data.to_vec();
    let block = data.len().div_ceil(3).max(1);
    let mut drop = Vec::new();
    for (i, chunk) in data.chunks(block).enumerate() {
        drop.clear();
        let base = i.saturating_mul(block);
        // The bytes stored so far (the holes read as zeros), from which the sieve reads the
        // event formats.
        let stored = &holed;
        sieve.sift_reading(base as u64, chunk, &mut drop, &mut |at, buf| {
            let at = usize::try_from(at).unwrap_or(usize::MAX);
            match stored.get(at..at.saturating_add(buf.len())) {
                Some(b) if at.saturating_add(buf.len()) <= base => {
                    buf.copy_from_slice(b);
                    true
                }
                _ => false,
            }
        });
        for r in &drop {
            let hole = holed.get_mut(base.saturating_add(r.start)..base.saturating_add(r.end));
            let Some(hole) = hole else {
                panic!(
                    "the sieve left out {r:?}, outside its {}-byte block",
                    chunk.len()
                );
            };
            hole.fill(0);
        }
    }
    let mut sifted = Sink::with_limits(&opts.limits);
    check_sifted_bytes(&holed, &sieve, opts, &mut sifted);
    if !sieve.complete() {
        return;
    }
    let mut whole = Sink::with_limits(&opts.limits);
    crate::formats::tracecmd::check(data, opts, &mut whole);
    let (a, b) = (full(whole), full(sifted));
    assert!(
        a == b,
        "the sifted check ({} pages summarised) differs from the whole file's:\n whole: {:?}\nsifted: {:?}",
        sieve.summarized(),
        a,
        b
    );
}

/// Checks `dir` as a tar on standard input with every member over 64 bytes spilled (so that its
/// task files get the first pass on the spill's writer thread): when the archive walk takes it
/// for a uftrace directory (an `info` with the uftrace magic), the findings must be exactly the
/// directory's, file, span and message included.
pub fn check_archived_dir_invariant(dir: &MemDir, opts: &CheckOptions) {
    use crate::check::check_reader;
    use crate::config::Config;
    let is_uftrace = dir
        .files()
        .iter()
        .any(|(n, d)| n == "info" && d.starts_with(crate::formats::uftrace::MAGIC));
    // A `\\` would be a path separator in the archive.
    if !is_uftrace || dir.files().iter().any(|(n, _)| n.contains('\\')) {
        return;
    }
    let mut b = tar::Builder::new(Vec::new());
    for (name, data) in dir.files() {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        if b.append_data(&mut h, format!("d/{name}"), data.as_slice())
            .is_err()
        {
            return;
        }
    }
    let Ok(tar) = b.into_inner() else { return };
    let spilling = CheckOptions {
        limits: Limits {
            unpack_memory_bytes: 64,
            ..opts.limits.clone()
        },
        ..opts.clone()
    };
    let r = check_reader(
        std::path::Path::new("-"),
        Box::new(std::io::Cursor::new(tar)),
        &spilling,
        &Config::default(),
    );
    let mut whole = Sink::with_limits(&opts.limits);
    check_dir(dir, opts, &mut whole);
    let (mut want, dropped) = full(whole);
    if dropped > 0 || r.dropped > 0 || r.findings.iter().any(|f| f.member.as_deref() != Some("d")) {
        return;
    }
    // A report lists its findings in offset order and the directory's sink in the order they
    // were found (task files walked in parallel): the same findings, compared as sets.
    let mut got = whole_of(&r.findings);
    got.sort();
    want.sort();
    assert!(
        got == want,
        "the directory checked from a tar (spilled) differs from the directory:\n    tar: {got:?}\n    dir: {want:?}"
    );
}

/// The first pass over every task file of `dir` fed in blocks of `block` bytes (see
/// [`crate::formats::uftrace::RecordSieve`]), keeping runs of `min_records` or more.
pub fn record_sieves(
    dir: &MemDir,
    block: usize,
    min_records: u64,
) -> Vec<(String, crate::formats::uftrace::RecordSieve)> {
    use crate::formats::uftrace::RecordSieve;
    dir.files()
        .iter()
        .filter(|(n, _)| crate::formats::uftrace::is_task_file(n))
        .map(|(n, d)| {
            let mut sv = RecordSieve::default().with_min_records(min_records);
            for (i, chunk) in d.chunks(block.max(1)).enumerate() {
                sv.feed(i.saturating_mul(block.max(1)) as u64, chunk);
            }
            sv.finish();
            (n.clone(), sv)
        })
        .collect()
}

/// Checks `dir` with the first pass's runs of its task files (fed in large blocks and in
/// blocks smaller than a record's look-ahead): the findings must be exactly those without.
/// Returns the runs the walks took and the payloads in them.
pub fn check_runs_invariant(dir: &MemDir, opts: &CheckOptions, min_records: u64) -> (u64, u64) {
    use crate::formats::uftrace::{check_dir as plain, check_dir_with_runs};
    let mut whole = Sink::with_limits(&opts.limits);
    plain(dir, opts, &mut whole);
    let whole = full(whole);
    let (mut taken, mut payloads) = (0u64, 0u64);
    let biggest = dir.files().iter().map(|(_, d)| d.len()).max().unwrap_or(0);
    for block in [biggest.div_ceil(3).max(1), 100] {
        let sieves = record_sieves(dir, block, min_records);
        let refs: Vec<(&str, &crate::formats::uftrace::RecordSieve)> =
            sieves.iter().map(|(n, s)| (n.as_str(), s)).collect();
        let mut with = Sink::with_limits(&opts.limits);
        check_dir_with_runs(dir, &refs, opts, &mut with);
        let runs: u64 = sieves.iter().map(|(_, s)| s.taken()).sum();
        let found: usize = sieves.iter().map(|(_, s)| s.runs().len()).sum();
        let with = full(with);
        assert!(
            whole == with,
            "the check with runs ({runs} of {found} taken, {block}-byte blocks) differs from the check without:\n without: {whole:?}\n    with: {with:?}"
        );
        taken = taken.saturating_add(runs);
        payloads = payloads.saturating_add(sieves.iter().map(|(_, s)| s.taken_payloads()).sum());
    }
    (taken, payloads)
}
