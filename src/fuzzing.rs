//! Entry points and input decoders shared by the fuzz targets and the regression replay test.
//!
//! Every `run_*` function feeds its input through the same entry point the command line uses
//! ([`check_bytes`] / [`check_dir`]) with [`Limits::fuzzing`], and asserts more than "no panic":
//!
//! * every finding's span lies inside the input (for a directory image: inside the named file
//!   of the image; findings about a file that is absent, or about the directory as a whole,
//!   carry an empty span at offset 0);
//! * checking the same input twice gives the same findings (rule codes, files, spans) and the
//!   same structure map; for a directory, so does a third check with the record walkers' fast
//!   paths switched off ([`CheckOptions::fast_paths`]);
//! * the structure map accepts the findings (`attach_findings`) and serialises to JSON.
//!
//! The fuzz targets under `fuzz/` are one-line wrappers around these functions, and
//! `tests/fuzz_regressions.rs` replays every file under `corpus/<fmt>/regressions/` through
//! them, so a crash found by fuzzing stays fixed under a plain `cargo test`.

use crate::check::{check_bytes, check_dir, CheckOptions};
use crate::detect::Format;
use crate::finding::{Finding, Sink};
use crate::formats::{FormatSpec, FORMATS};
use crate::input::MemDir;
use crate::limits::Limits;
use crate::map::MapNode;
use crate::reader::Endian;

/// Most files a directory image holds; later entries are ignored.
pub const IMAGE_MAX_FILES: usize = 64;
/// Largest total of file bytes a directory image holds; file data beyond it is cut.
pub const IMAGE_MAX_BYTES: usize = 4 << 20;

/// Options the fuzz targets check with: fuzzing limits, the given hint, files read into memory.
pub fn fuzz_options(hint: Option<Format>) -> CheckOptions {
    CheckOptions {
        limits: Limits::fuzzing(),
        format_hint: hint,
        endian: None,
        load_mode: crate::input::LoadMode::Read,
        fast_paths: true,
        input_name: None,
    }
}

/// Decodes a directory image: repeated `[u8 name_len][name][u32 LE data_len][data]`.
///
/// The decoder is total: a truncated entry keeps the bytes that are there, names are made
/// valid (lossy UTF-8, `/` and NUL replaced by `_`, empty / `.` / `..` renamed), duplicates keep
/// the first occurrence, and at most [`IMAGE_MAX_FILES`] files and [`IMAGE_MAX_BYTES`] bytes are
/// kept. Any byte string is therefore a directory.
pub fn decode_dir_image(data: &[u8]) -> MemDir {
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut total = 0usize;
    let mut rest = data;
    while files.len() < IMAGE_MAX_FILES {
        let Some((&name_len, after)) = rest.split_first() else {
            break;
        };
        let name_len = usize::from(name_len).min(after.len());
        let (name, after) = after.split_at(name_len);
        let mut len_bytes = [0u8; 4];
        let take = after.len().min(4);
        let (lb, after) = after.split_at(take);
        len_bytes
            .iter_mut()
            .zip(lb.iter())
            .for_each(|(d, s)| *d = *s);
        let want = usize::try_from(u32::from_le_bytes(len_bytes)).unwrap_or(usize::MAX);
        let budget = IMAGE_MAX_BYTES.saturating_sub(total);
        let len = want.min(after.len()).min(budget);
        let (body, after) = after.split_at(len);
        rest = after;
        total = total.saturating_add(len);
        let name = sanitize_name(name);
        if files.iter().any(|(n, _)| *n == name) {
            continue;
        }
        files.push((name, body.to_vec()));
    }
    MemDir::new("image", files)
}

fn sanitize_name(raw: &[u8]) -> String {
    let s: String = String::from_utf8_lossy(raw)
        .chars()
        .map(|c| if c == '/' || c == '\0' { '_' } else { c })
        .collect();
    match s.as_str() {
        "" => "_empty".into(),
        "." => "_dot".into(),
        ".." => "_dotdot".into(),
        _ => s,
    }
}

/// Encodes files as a directory image that [`decode_dir_image`] reads back (names longer than
/// 255 bytes are cut; used to make seeds and regression files).
pub fn encode_dir_image(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, data) in files {
        let name = name.as_bytes();
        let name = name.get(..name.len().min(255)).unwrap_or_default();
        out.push(u8::try_from(name.len()).unwrap_or(u8::MAX));
        out.extend_from_slice(name);
        out.extend_from_slice(&u32::try_from(data.len()).unwrap_or(u32::MAX).to_le_bytes());
        out.extend_from_slice(data);
    }
    out
}

/// The outcome of one check, as compared between runs.
#[derive(Debug, PartialEq)]
struct Outcome {
    keys: Vec<(&'static str, Option<String>, u64, u64)>,
    dropped: u64,
    map: MapNode,
}

fn outcome(findings: &[Finding], dropped: u64, mut map: MapNode) -> Outcome {
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

fn assert_file_spans(findings: &[Finding], len: usize, what: &str) {
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

fn check_file_once(data: &[u8], opts: &CheckOptions) -> Outcome {
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

/// trace-cmd `trace.dat` bytes, checked whole and sifted.
pub fn run_tracecmd(data: &[u8]) {
    let opts = fuzz_options(Some(crate::formats::tracecmd::FORMAT));
    check_file_invariants(data, &opts);
    check_sieve_invariant(data, &opts);
}

/// One finding, whole: code, severity, file, span, message.
type Whole = (&'static str, String, Option<String>, u64, u64, String);

/// Every finding of a sink, whole, and the dropped count.
type Full = (Vec<Whole>, u64);

fn whole_of(findings: &[Finding]) -> Vec<Whole> {
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

fn full(sink: Sink) -> Full {
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
        sieve.sift(base as u64, chunk, &mut drop);
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

/// GDB tfile bytes, read little-endian (the default) and big-endian.
pub fn run_gdb_tfile(data: &[u8]) {
    check_file_invariants(data, &fuzz_options(Some(crate::formats::gdb::FORMAT)));
    let mut big = fuzz_options(Some(crate::formats::gdb::FORMAT));
    big.endian = Some(Endian::Big);
    let _ = check_file_once(data, &big);
}

/// Darwin ktrace bytes, checked as a file with a magic and as raw V0.
pub fn run_ktrace(data: &[u8]) {
    check_file_invariants(data, &fuzz_options(Some(crate::formats::ktrace::FORMAT)));
    let _ = check_file_once(data, &fuzz_options(Some(crate::formats::ktrace::FORMAT_V0)));
}

/// A uftrace data directory given as a directory image (see [`decode_dir_image`]).
pub fn run_uftrace(data: &[u8]) {
    let dir = decode_dir_image(data);
    let opts = fuzz_options(Some(crate::formats::uftrace::FORMAT));
    check_dir_invariants(&dir, &opts);
    let _ = check_runs_invariant(&dir, &opts, 1);
    check_archived_dir_invariant(&dir, &opts);
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
    let (want, dropped) = full(whole);
    if dropped > 0 || r.dropped > 0 || r.findings.iter().any(|f| f.member.as_deref() != Some("d")) {
        return;
    }
    let got = whole_of(&r.findings);
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

/// Any bytes, format detected by content as the command line does.
pub fn run_detect(data: &[u8]) {
    check_file_invariants(data, &fuzz_options(None));
}

/// Round trip of ktrace bytes: a file checked without errors decodes to a writer model that
/// writes a file without errors and decodes back to the same model; when the file had no
/// warnings either, the rewrite is byte-identical. (Regression files of the `ktrace_roundtrip`
/// target are named `roundtrip-*`.)
pub fn run_ktrace_roundtrip_bytes(bytes: &[u8]) {
    use crate::finding::Severity;
    use crate::formats::ktrace::writer as kw;
    let opts = fuzz_options(Some(crate::formats::ktrace::FORMAT));
    let worst = |b: &[u8]| {
        let mut sink = Sink::with_limits(&opts.limits);
        let _ = check_bytes(b, &opts, &mut sink);
        sink.findings().iter().map(|f| f.severity).max()
    };
    let sev = worst(bytes);
    if sev == Some(Severity::Error) {
        return;
    }
    let decode = |b: &[u8]| {
        let mut sink = Sink::with_limits(&opts.limits);
        let t = crate::formats::ktrace::decode_bytes(b, &opts, &mut sink);
        kw::model_from_trace(b, &t)
    };
    // `model_from_trace` gives no model when a known chunk's payload was not decoded (for
    // example a CPU map chunk of an unknown major version, reported as info): nothing to compare.
    let Some(back) = decode(bytes) else {
        return;
    };
    let bytes2 = kw::write(&back);
    assert_ne!(
        worst(&bytes2),
        Some(Severity::Error),
        "the rewrite of an error-free ktrace file has errors"
    );
    let back2 = decode(&bytes2);
    assert!(
        back2.as_ref() == Some(&back),
        "decode(write(model)) differs from model:\n model: {back:?}\n again: {back2:?}"
    );
    if sev.is_none() || sev == Some(Severity::Info) {
        assert!(
            bytes2 == bytes,
            "a ktrace file without warnings rewrites differently ({} vs {} bytes)",
            bytes2.len(),
            bytes.len()
        );
    }
}

/// Any bytes written to a temporary file and checked through [`check_path`], the entry point of
/// the command line, once with the file mapped and once read into memory: so the file-reading
/// paths (trace.dat ring data by positioned reads, ktrace window by window) are exercised too.
/// Asserts that every span lies inside the file and that both load modes give the same findings.
pub fn run_check_path(data: &[u8]) {
    use crate::check::check_path;
    use crate::config::Config;
    use crate::input::LoadMode;
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("tracelint-fuzz-{}-{n}.bin", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let config = Config::default();
    let run = |mode: LoadMode| {
        let mut opts = fuzz_options(None);
        opts.load_mode = mode;
        let report = check_path(&path, &opts, &config);
        assert!(
            !report.io_failed,
            "{mode:?}: the temporary file could not be read"
        );
        // Findings inside archive members have spans in the unpacked member.
        let outer: Vec<Finding> = report
            .findings
            .iter()
            .filter(|f| f.member.is_none())
            .cloned()
            .collect();
        assert_file_spans(&outer, data.len(), &format!("{mode:?}"));
        report
            .findings
            .iter()
            .map(|f| (f.rule.code, f.member.clone(), f.offset, f.length))
            .collect::<Vec<_>>()
    };
    let mapped = run(LoadMode::Mmap);
    let read = run(LoadMode::Read);
    let _ = std::fs::remove_file(&path);
    assert!(
        mapped == read,
        "check_path gives different findings mapped and read:\n mmap: {mapped:?}\n read: {read:?}"
    );
}

/// Raw bytes as a stream (what standard input gives): compression layers, tar and zip
/// (spilled, as from a pipe) are unpacked with the fuzzing limits. Checking twice gives the
/// same findings; findings outside members lie inside the input; every member finding names a
/// member the report lists (or one that was screened out by its path or kind).
pub fn run_archive(data: &[u8]) {
    use crate::check::check_reader;
    use crate::config::Config;
    let config = Config::default();
    let once = || {
        let opts = fuzz_options(None);
        let r = check_reader(
            std::path::Path::new("-"),
            Box::new(std::io::Cursor::new(data.to_vec())),
            &opts,
            &config,
        );
        let outer: Vec<Finding> = r
            .findings
            .iter()
            .filter(|f| f.member.is_none())
            .cloned()
            .collect();
        if crate::archive::sniff(data).is_none() {
            // A plain input: every span is in the input itself (a compressed stream's spans
            // are in its unpacked content, which has no member name on standard input).
            assert_file_spans(
                &outer
                    .into_iter()
                    .filter(|f| f.file.is_none())
                    .collect::<Vec<_>>(),
                data.len(),
                "plain stream",
            );
        }
        for m in &r.members {
            assert!(
                m.size
                    <= opts
                        .limits
                        .max_unpacked_bytes
                        .saturating_add(opts.limits.max_file_bytes)
            );
        }
        r.findings
            .iter()
            .map(|f| {
                (
                    f.rule.code,
                    f.member.clone(),
                    f.file.clone(),
                    f.offset,
                    f.length,
                )
            })
            .collect::<Vec<_>>()
    };
    let a = once();
    let b = once();
    assert!(
        a == b,
        "checking the same stream twice differs:\n{a:?}\n{b:?}"
    );
}

/// Bytes of one format of the table, checked with the invariants every format gets: a file
/// format's bytes as a file with the format hinted, a directory format's as a directory image
/// (see [`decode_dir_image`]).
pub fn run_format(spec: &FormatSpec, data: &[u8]) {
    let opts = fuzz_options(Some(spec.format));
    if spec.dir.is_some() {
        check_dir_invariants(&decode_dir_image(data), &opts);
    } else {
        check_file_invariants(data, &opts);
    }
}

/// Any format of the table: the first byte picks the format, the rest is its input for the
/// format's own runner ([`runner_for`] of its corpus folder).
pub fn run_formats(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Some(spec) = FORMATS.get(usize::from(pick) % FORMATS.len().max(1)) else {
        return;
    };
    match runner_for(spec.corpus) {
        Some(run) => run(rest),
        None => run_format(spec, rest),
    }
}

/// The `run_*` function for a regression folder name (`corpus/<name>/regressions/`): the
/// containers' and detection's, and for a format of the table (by its `corpus` name) the
/// runner that adds the format's own invariants to [`run_format`]'s; `None` for a format that
/// has none of its own yet ([`run_formats`] gives it [`run_format`]).
pub fn runner_for(corpus_dir: &str) -> Option<fn(&[u8])> {
    match corpus_dir {
        "archive" => return Some(run_archive),
        "detect" => return Some(run_detect),
        _ => {}
    }
    let spec = FORMATS.iter().find(|s| s.corpus == corpus_dir)?;
    match spec.format.name() {
        "trace-cmd" => Some(run_tracecmd),
        "gdb-tfile" => Some(run_gdb_tfile),
        "ktrace" => Some(run_ktrace),
        "uftrace" => Some(run_uftrace),
        _ => None,
    }
}

#[cfg(test)]
#[path = "fuzzing_tests.rs"]
mod tests;

/// Structure-aware inputs: an `arbitrary` model of a mostly-valid file, written by the format's
/// writer, then optionally changed at chosen offsets. `render_*` returns the bytes the
/// matching `run_*` function is given (commit those as regression files); `run_*_structured`
/// renders and runs.
#[cfg(feature = "fuzzing")]
pub mod structured {
    use super::*;
    use arbitrary::{Arbitrary, Unstructured};

    /// A change applied to written bytes; offsets wrap around the current length.
    #[derive(Arbitrary, Clone, Debug)]
    pub enum Mutation {
        /// Sets one byte.
        Set(u32, u8),
        /// Flips bits of one byte.
        Xor(u32, u8),
        /// Overwrites four bytes (little-endian).
        Put32(u32, u32),
        /// Overwrites eight bytes with an extreme value.
        Put64Max(u32),
        /// Cuts the bytes at an offset.
        Truncate(u32),
        /// Inserts bytes.
        Insert(u32, Vec<u8>),
        /// Removes up to 255 bytes.
        Delete(u32, u8),
    }

    fn at(off: u32, len: usize) -> usize {
        usize::try_from(off).unwrap_or(0) % len.saturating_add(1)
    }

    fn put(bytes: &mut [u8], i: usize, src: &[u8]) {
        for (d, s) in bytes.iter_mut().skip(i).zip(src) {
            *d = *s;
        }
    }

    /// Applies at most four mutations.
    pub fn apply(bytes: &mut Vec<u8>, muts: &[Mutation]) {
        for m in muts.iter().take(4) {
            let len = bytes.len();
            match m {
                Mutation::Set(o, v) => put(bytes, at(*o, len), &[*v]),
                Mutation::Xor(o, v) => {
                    if let Some(b) = bytes.get_mut(at(*o, len)) {
                        *b ^= *v;
                    }
                }
                Mutation::Put32(o, v) => put(bytes, at(*o, len), &v.to_le_bytes()),
                Mutation::Put64Max(o) => put(bytes, at(*o, len), &[0xff; 8]),
                Mutation::Truncate(o) => bytes.truncate(at(*o, len)),
                Mutation::Insert(o, ins) => {
                    let i = at(*o, len);
                    let ins = ins.get(..ins.len().min(64)).unwrap_or_default();
                    bytes.splice(i..i, ins.iter().copied());
                }
                Mutation::Delete(o, n) => {
                    let i = at(*o, len);
                    let end = i.saturating_add(usize::from(*n)).min(len);
                    bytes.drain(i..end);
                }
            }
        }
    }

    /// At most 3 ring pages of at most 32 items and 8 patches, paddings kept page-sized (the
    /// writer zero-fills `len` bytes).
    fn bound_pages(
        pages: &[crate::formats::ftrace_ring::writer::PageBuilder],
        ps: u32,
    ) -> Vec<crate::formats::ftrace_ring::writer::PageBuilder> {
        use crate::formats::ftrace_ring::writer as rw;
        cap(pages.to_vec(), 3)
            .into_iter()
            .map(|mut p| {
                p.items.truncate(32);
                for it in &mut p.items {
                    if let rw::Item::Padding { len, .. } = it {
                        *len %= ps.saturating_add(64);
                    }
                }
                p.patches.truncate(8);
                p
            })
            .collect()
    }

    fn cap<T>(mut v: Vec<T>, n: usize) -> Vec<T> {
        v.truncate(n);
        v
    }

    // ---------------------------------------------------------------- ktrace

    use crate::formats::ktrace::model as km;
    use crate::formats::ktrace::writer as kw;

    /// A ktrace file model.
    #[derive(Arbitrary, Debug)]
    pub struct KtraceModel {
        /// The writer's model.
        pub file: kw::File,
        /// Give each chunk the tag its payload kind has.
        pub fix_tags: bool,
        /// Changes after writing.
        pub mutations: Vec<Mutation>,
    }

    fn ktrace_fix(file: &mut kw::File, fix_tags: bool) {
        if let kw::File::V3(v) = file {
            v.header_chunks.truncate(8);
            v.body.truncate(16);
            if fix_tags {
                for c in v.header_chunks.iter_mut().chain(v.body.iter_mut()) {
                    c.tag = match c.payload {
                        kw::Payload::CpuMap(_) | kw::Payload::CpuMapExt(_) => km::TAG_CPU_MAP,
                        kw::Payload::ThreadMap(_) => km::TAG_THREAD_MAP,
                        kw::Payload::Events { .. } => km::TAG_EVENTS,
                        kw::Payload::Bytes(_) => [
                            km::TAG_NULL,
                            km::TAG_HW_MODEL,
                            km::TAG_CONFIG,
                            km::TAG_COMPRESSED_EVENTS,
                            km::TAG_MACHINE,
                            c.tag,
                        ]
                        .get(usize::try_from(c.tag % 6).unwrap_or(0))
                        .copied()
                        .unwrap_or(c.tag),
                    };
                }
            }
        }
    }

    /// The bytes of a structured ktrace input.
    pub fn render_ktrace(data: &[u8]) -> Option<Vec<u8>> {
        let mut m = KtraceModel::arbitrary_take_rest(Unstructured::new(data)).ok()?;
        ktrace_fix(&mut m.file, m.fix_tags);
        let mut bytes = kw::write(&m.file);
        apply(&mut bytes, &m.mutations);
        Some(bytes)
    }

    /// Structured ktrace: model → writer → mutations → [`run_ktrace`]; a model written without
    /// changes is also decoded and compared with what was written ([`ktrace_differential`]).
    pub fn run_ktrace_structured(data: &[u8]) {
        let Ok(mut m) = KtraceModel::arbitrary_take_rest(Unstructured::new(data)) else {
            return;
        };
        ktrace_fix(&mut m.file, m.fix_tags);
        let mut bytes = kw::write(&m.file);
        apply(&mut bytes, &m.mutations);
        run_ktrace(&bytes);
        if m.mutations.is_empty() {
            ktrace_differential(&m.file, &bytes);
        }
    }

    /// The bytes of a ktrace round-trip input (a writer model, tags fixed, no mutations).
    pub fn render_ktrace_roundtrip(data: &[u8]) -> Option<Vec<u8>> {
        let mut file = kw::File::arbitrary_take_rest(Unstructured::new(data)).ok()?;
        ktrace_fix(&mut file, true);
        Some(kw::write(&file))
    }

    /// Round trip: model → writer → [`run_ktrace`], [`ktrace_differential`] and
    /// [`super::run_ktrace_roundtrip_bytes`].
    pub fn run_ktrace_roundtrip(data: &[u8]) {
        let Ok(mut file) = kw::File::arbitrary_take_rest(Unstructured::new(data)) else {
            return;
        };
        ktrace_fix(&mut file, true);
        let b = kw::write(&file);
        run_ktrace(&b);
        ktrace_differential(&file, &b);
        run_ktrace_roundtrip_bytes(&b);
    }

    /// What a V3 model says the decoder must find: per chunk (offset, tag, major, minor,
    /// length, data span) in file order, and the count of events in body event chunks. `None` when the model breaks
    /// the chunk layout on purpose (a length other than the payload size, an unpadded chunk, a
    /// header size of its own, bytes after the last chunk) or gives a tag whose payload is
    /// decoded (CPU map, thread map, events) a payload of another kind, or for raw (V0-V2)
    /// files.
    pub fn ktrace_expected(file: &kw::File) -> Option<KtraceExpect> {
        let kw::File::V3(v) = file else {
            return None;
        };
        if v.header.header_size.is_some() || !v.trailing.is_empty() {
            return None;
        }
        let wide = v.header.flags & 1 != 0;
        let mut at: u64 = 56;
        let mut chunks = Vec::new();
        let mut events = 0u64;
        let in_body =
            std::iter::repeat_n(false, v.header_chunks.len()).chain(std::iter::repeat(true));
        for (c, body) in v.header_chunks.iter().chain(v.body.iter()).zip(in_body) {
            // A tag whose payload is decoded must carry a payload of that kind.
            let kind_ok = match c.tag {
                km::TAG_EVENTS => matches!(c.payload, kw::Payload::Events { .. }),
                km::TAG_THREAD_MAP => matches!(c.payload, kw::Payload::ThreadMap(_)),
                km::TAG_CPU_MAP => matches!(
                    c.payload,
                    kw::Payload::CpuMap(_) | kw::Payload::CpuMapExt(_)
                ),
                _ => true,
            };
            if !kind_ok {
                return None;
            }
            // Events are read from body chunks of major version 0 or 1 only (a header
            // sub-chunk holds metadata; a newer version's payload is not decoded).
            if let kw::Payload::Events { events: e, .. } = &c.payload {
                if body && c.tag == km::TAG_EVENTS && c.major <= 1 {
                    events = events.checked_add(u64::try_from(e.len()).ok()?)?;
                }
            }
            if c.length != kw::LengthMode::Exact || c.pad == kw::PadMode::Omit {
                return None;
            }
            let bare = kw::Chunk {
                pad: kw::PadMode::Omit,
                ..c.clone()
            };
            let len = u64::try_from(kw::chunk_bytes(&bare, wide).len())
                .ok()?
                .checked_sub(16)?;
            let data = at.checked_add(16)?..at.checked_add(16)?.checked_add(len)?;
            chunks.push((at, c.tag, c.major, c.minor, len, data));
            at = at.checked_add(16)?.checked_add(len.next_multiple_of(8))?;
        }
        Some(KtraceExpect { chunks, events })
    }

    /// The decoded chunks and event count of a V3 file a model describes (see
    /// [`ktrace_expected`]).
    #[derive(Debug, PartialEq)]
    pub struct KtraceExpect {
        /// (offset, tag, major, minor, length field, data span) per chunk, in file order.
        pub chunks: Vec<(u64, u32, u16, u16, u64, std::ops::Range<u64>)>,
        /// Events in event chunks.
        pub events: u64,
    }

    /// Decodes `bytes` (written from `file` without changes) and asserts that the chunks and
    /// the event count are the ones the model wrote.
    pub fn ktrace_differential(file: &kw::File, bytes: &[u8]) {
        let Some(want) = ktrace_expected(file) else {
            return;
        };
        let opts = fuzz_options(Some(crate::formats::ktrace::FORMAT));
        let mut sink = Sink::with_limits(&opts.limits);
        let t = crate::formats::ktrace::decode_bytes(bytes, &opts, &mut sink);
        let size = t.event_size();
        let got = KtraceExpect {
            chunks: t
                .chunks
                .iter()
                .map(|c| (c.offset, c.tag, c.major, c.minor, c.length, c.data.clone()))
                .collect(),
            events: t
                .event_runs
                .iter()
                .map(|r| r.span.end.saturating_sub(r.span.start) / size.max(1))
                .sum(),
        };
        assert!(
            got == want,
            "decoded ktrace differs from the model it was written from:\n model: {want:?}\n  read: {got:?}"
        );
    }

    // ---------------------------------------------------------------- GDB tfile

    use crate::formats::gdb::writer as gw;

    /// A tracepoint number biased towards the ones the sample defines.
    #[derive(Arbitrary, Clone, Copy, Debug)]
    pub enum TpNum {
        /// Tracepoint 2 (defined by the sample).
        Two,
        /// Tracepoint 3.
        Three,
        /// Any number.
        Any(i16),
    }

    impl TpNum {
        fn get(self) -> i16 {
            match self {
                TpNum::Two => 2,
                TpNum::Three => 3,
                TpNum::Any(n) => n,
            }
        }
    }

    /// A frame block.
    #[derive(Arbitrary, Clone, Debug)]
    pub enum GdbBlock {
        /// Register block of the declared size.
        R,
        /// Register block of another size.
        RSized(u8),
        /// Memory block.
        M(u64, Vec<u8>),
        /// Memory block with a length field of its own.
        MLen(u64, u16, Vec<u8>),
        /// Trace state variable block.
        V(i32, i64),
        /// Raw bytes.
        Raw(Vec<u8>),
    }

    /// A frame.
    #[derive(Arbitrary, Clone, Debug)]
    pub struct GdbFrame {
        /// Tracepoint.
        pub tpnum: TpNum,
        /// Blocks.
        pub blocks: Vec<GdbBlock>,
        /// Size field written instead of the real size.
        pub size: Option<u32>,
    }

    /// A status reason.
    #[derive(Arbitrary, Clone, Debug)]
    pub enum Reason {
        /// `tnotrun:N`.
        NotRun(u16),
        /// `tstop:<hex note>:N`.
        Stop(String, u16),
        /// `tstop:N` (old form).
        StopOld(u16),
        /// `tfull:N`.
        Full(u16),
        /// `tpasscount:N`.
        PassCount(u16),
        /// `terror:<hex>:N`.
        Error(String, u16),
        /// `terror:<text>` with no number.
        ErrorBare(String),
        /// Anything.
        Raw(String),
    }

    /// A status line.
    #[derive(Arbitrary, Clone, Debug)]
    pub enum GdbStatus {
        /// Computed by the writer.
        Auto,
        /// No line.
        Omit,
        /// Built from parts.
        Parts {
            /// Running flag.
            running: bool,
            /// Reason.
            reason: Reason,
            /// (field index, value) pairs; the index picks a known field name.
            fields: Vec<(u8, u64)>,
            /// `notes:` hex text.
            notes: Option<String>,
        },
    }

    /// A `tp` line.
    #[derive(Arbitrary, Clone, Debug)]
    pub enum TpLine {
        /// `T` definition.
        T {
            /// Number.
            num: TpNum,
            /// Address.
            addr: u32,
            /// Enabled.
            enabled: bool,
            /// Step count.
            step: u16,
            /// Pass count.
            pass: u16,
            /// Fast tracepoint original size.
            fast: Option<u8>,
            /// Condition bytecode (length field, bytes).
            cond: Option<(u8, Vec<u8>)>,
        },
        /// `A`/`S` action.
        Action {
            /// While-stepping (`S`).
            stepping: bool,
            /// Number.
            num: TpNum,
            /// Address.
            addr: u32,
            /// Action kind and operands.
            kind: u8,
            /// Operands.
            a: u64,
            /// Operands.
            b: u16,
        },
        /// `Z` source string.
        Z {
            /// Number.
            num: TpNum,
            /// Address.
            addr: u32,
            /// 0 at, 1 cond, 2 cmd, other: unknown kind.
            kind: u8,
            /// Text.
            text: String,
        },
        /// Anything after `tp `.
        Raw(String),
    }

    /// A GDB tfile model, written through [`gw::Sample`].
    #[derive(Arbitrary, Debug)]
    pub struct GdbModel {
        /// Big-endian frames.
        pub big_endian: bool,
        /// `R` line: `None` keeps the sample's, else this value in hex.
        pub register_size: Option<u16>,
        /// Omit the `R` line.
        pub no_register_line: bool,
        /// Use a `tdesc` of this many lines of the sample's (all when `None`).
        pub tdesc_lines: Option<u8>,
        /// Extra `tdesc` lines.
        pub tdesc_extra: Vec<String>,
        /// Status line.
        pub status: GdbStatus,
        /// `tsv` lines: (number, initial, builtin, name).
        pub tsvs: Vec<(u16, i64, bool, String)>,
        /// Keep the sample's `tp` lines.
        pub keep_tps: bool,
        /// `tp` lines.
        pub tps: Vec<TpLine>,
        /// `tp V` statistics lines for (tracepoint, address).
        pub tp_stats: Vec<(u8, u32)>,
        /// Raw definition lines.
        pub extra_lines: Vec<Vec<u8>>,
        /// End the definitions with `\r\n` instead of `\n`.
        pub crlf_end: bool,
        /// Frames after the sample's.
        pub frames: Vec<GdbFrame>,
        /// How many of the sample's standard frames to keep (of 3).
        pub standard_frames: u8,
        /// End bytes: `None` = GDB's four zero bytes.
        pub end: Option<Vec<u8>>,
        /// Changes after writing.
        pub mutations: Vec<Mutation>,
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|b| format!("{b:02x}")).collect()
    }

    const STATUS_FIELDS: [&str; 10] = [
        "tframes",
        "tcreated",
        "tfree",
        "tsize",
        "circular",
        "disconn",
        "starttime",
        "stoptime",
        "username",
        "t",
    ];

    fn status_line(
        running: bool,
        reason: &Reason,
        fields: &[(u8, u64)],
        notes: &Option<String>,
    ) -> String {
        let r = match reason {
            Reason::NotRun(n) => format!("tnotrun:{n:x}"),
            Reason::Stop(s, n) => format!("tstop:{}:{n:x}", hex(s.as_bytes())),
            Reason::StopOld(n) => format!("tstop:{n:x}"),
            Reason::Full(n) => format!("tfull:{n:x}"),
            Reason::PassCount(n) => format!("tpasscount:{n:x}"),
            Reason::Error(s, n) => format!("terror:{}:{n:x}", hex(s.as_bytes())),
            Reason::ErrorBare(s) => format!("terror:{s}"),
            Reason::Raw(s) => s.clone(),
        };
        let mut line = format!("{};{r}", u8::from(running));
        for (k, v) in fields.iter().take(12) {
            let name = STATUS_FIELDS
                .get(usize::from(*k) % STATUS_FIELDS.len())
                .copied()
                .unwrap_or("tframes");
            line.push_str(&format!(";{name}:{v:x}"));
        }
        if let Some(n) = notes {
            line.push_str(&format!(";notes:{}", hex(n.as_bytes())));
        }
        line
    }

    fn tp_line(t: &TpLine) -> String {
        match t {
            TpLine::T {
                num,
                addr,
                enabled,
                step,
                pass,
                fast,
                cond,
            } => {
                let mut s = format!(
                    "T{:x}:{addr:x}:{}:{step:x}:{pass:x}",
                    num.get(),
                    if *enabled { 'E' } else { 'D' }
                );
                if let Some(f) = fast {
                    s.push_str(&format!(":F{f:x}"));
                }
                if let Some((len, code)) = cond {
                    s.push_str(&format!(":X{len:x},{}", hex(code)));
                }
                s
            }
            TpLine::Action {
                stepping,
                num,
                addr,
                kind,
                a,
                b,
            } => {
                let act = match kind % 4 {
                    0 => format!("R{a:x}"),
                    1 => format!("M-1,{a:x},{b:x}"),
                    2 => format!("M{b:x},{a:x},8"),
                    _ => format!("X{b:08X},{}", hex(&a.to_le_bytes())),
                };
                format!(
                    "{}{:x}:{addr:x}:{act}",
                    if *stepping { 'S' } else { 'A' },
                    num.get()
                )
            }
            TpLine::Z {
                num,
                addr,
                kind,
                text,
            } => {
                let k = ["at", "cond", "cmd", "xyz"]
                    .get(usize::from(*kind % 4))
                    .copied()
                    .unwrap_or("at");
                format!(
                    "Z{:x}:{addr:x}:{k}:0:{:x}:{}",
                    num.get(),
                    text.len(),
                    hex(text.as_bytes())
                )
            }
            TpLine::Raw(s) => s.clone(),
        }
    }

    fn gdb_block(b: &GdbBlock, rsize: usize) -> gw::SampleBlock {
        match b {
            GdbBlock::R => gw::SampleBlock::R(rsize),
            GdbBlock::RSized(n) => gw::SampleBlock::R(usize::from(*n)),
            GdbBlock::M(a, d) => gw::SampleBlock::M(*a, cap(d.clone(), 256)),
            GdbBlock::MLen(a, l, d) => gw::SampleBlock::MLen(*a, *l, cap(d.clone(), 256)),
            GdbBlock::V(n, v) => gw::SampleBlock::V(*n, *v),
            GdbBlock::Raw(r) => gw::SampleBlock::Raw(cap(r.clone(), 64)),
        }
    }

    /// The bytes of a structured GDB tfile input.
    pub fn render_gdb(data: &[u8]) -> Option<Vec<u8>> {
        gdb_build(data).map(|(_, bytes)| bytes)
    }

    /// True when a GDB model writes a well-formed file whose frames a reader must find as
    /// written: every definition line is one line, the definitions end with `\n`, the `R`
    /// line is there, every frame has its real size, a tracepoint number other than 0 (the end
    /// marker) and only blocks of their own size, and the file ends with GDB's end marker.
    fn gdb_sound(m: &GdbModel) -> bool {
        let one_line = |s: &str| !s.contains(['\n', '\r']);
        let status = match &m.status {
            GdbStatus::Parts {
                reason: Reason::ErrorBare(s) | Reason::Raw(s),
                ..
            } => one_line(s),
            _ => true,
        };
        let tps = m.tps.iter().take(16).all(|t| match t {
            TpLine::Raw(s) => one_line(s),
            _ => true,
        });
        let rsize = m.register_size.map_or(32, usize::from);
        let frames = m.frames.iter().take(16).all(|f| {
            f.size.is_none()
                && f.tpnum.get() != 0
                && f.blocks.iter().take(8).all(|b| match b {
                    GdbBlock::RSized(n) => rsize == usize::from(*n),
                    GdbBlock::MLen(_, l, d) => usize::from(*l) == d.len().min(256),
                    GdbBlock::Raw(_) => false,
                    _ => true,
                })
        });
        m.mutations.is_empty()
            && m.end.is_none()
            && !m.no_register_line
            && !m.crlf_end
            && m.extra_lines.is_empty()
            && m.tdesc_extra.iter().take(8).all(|t| one_line(t))
            && status
            && tps
            && frames
    }

    /// Checks a GDB tfile written from a sound model (see [`gdb_sound`]) with the model's
    /// byte order and asserts that the frames and their blocks are where the writer put them.
    pub fn gdb_differential(built: &gw::Built, endian: Endian) {
        let mut opts = fuzz_options(Some(crate::formats::gdb::FORMAT));
        opts.endian = Some(endian);
        let mut sink = Sink::with_limits(&opts.limits);
        let (_, map) = check_bytes(&built.bytes, &opts, &mut sink);
        let Some(frames) = find_node(&map, "frames") else {
            panic!("a well-formed GDB tfile has no frames node: {map:?}");
        };
        let want_count = built.frames.len() as u64;
        assert_eq!(
            crate::formats::gdb::frame_count(&map),
            Some(want_count),
            "frames read from a GDB tfile differ from the frames written"
        );
        assert_eq!(frames.offset, built.frames_start, "frames start elsewhere");
        let nodes: Vec<&MapNode> = frames
            .children
            .iter()
            .filter(|c| c.label.starts_with("frame "))
            .collect();
        for (i, (node, (span, blocks))) in nodes
            .iter()
            .zip(built.frames.iter().zip(built.blocks.iter()))
            .enumerate()
        {
            assert_eq!(
                (node.offset, node.offset.saturating_add(node.size)),
                (span.start, span.end),
                "frame {i} read at another span than written"
            );
            let got: Vec<(u64, u64)> = node
                .children
                .iter()
                .map(|b| (b.offset, b.offset.saturating_add(b.size)))
                .collect();
            let want: Vec<(u64, u64)> = blocks.iter().take(16).map(|b| (b.start, b.end)).collect();
            assert!(
                got == want,
                "blocks of frame {i} read as {got:?}, written as {want:?}"
            );
        }
    }

    fn find_node<'a>(n: &'a MapNode, label: &str) -> Option<&'a MapNode> {
        if n.label == label {
            return Some(n);
        }
        n.children.iter().find_map(|c| find_node(c, label))
    }

    /// The writer's record of a sound GDB model's file, and the byte order it was written in.
    pub type GdbWritten = (gw::Built, Endian);

    /// A GDB model's bytes, and the writer's record of them when the model is sound.
    pub fn gdb_build(data: &[u8]) -> Option<(Option<GdbWritten>, Vec<u8>)> {
        let m = GdbModel::arbitrary_take_rest(Unstructured::new(data)).ok()?;
        let sound = gdb_sound(&m);
        let mut s = gw::Sample::new(usize::from(m.standard_frames % 4));
        if m.big_endian {
            s.endian = Endian::Big;
        }
        if let Some(r) = m.register_size {
            s.register_line = Some(format!("{r:x}"));
            s.register_size = usize::from(r);
            for f in &mut s.frames {
                *f = gw::Sample::standard_frame(f.tpnum, usize::from(r), 0);
            }
        }
        if m.no_register_line {
            s.register_line = None;
        }
        if let Some(n) = m.tdesc_lines {
            s.tdesc.truncate(usize::from(n));
        }
        s.tdesc.extend(m.tdesc_extra.iter().take(8).cloned());
        s.status = match &m.status {
            GdbStatus::Auto => gw::StatusLine::Auto,
            GdbStatus::Omit => gw::StatusLine::Omit,
            GdbStatus::Parts {
                running,
                reason,
                fields,
                notes,
            } => gw::StatusLine::Custom(status_line(*running, reason, fields, notes)),
        };
        for (num, init, builtin, name) in m.tsvs.iter().take(8) {
            s.tsvs.push(format!(
                "{num:x}:{:x}:{}:{}",
                *init as u64,
                u8::from(*builtin),
                hex(name.as_bytes())
            ));
        }
        if !m.keep_tps {
            s.tps.clear();
            s.tp_stats.clear();
        }
        s.tps.extend(m.tps.iter().take(16).map(tp_line));
        s.tp_stats.extend(
            m.tp_stats
                .iter()
                .take(4)
                .map(|(n, a)| (u64::from(*n), u64::from(*a))),
        );
        s.extra_lines = cap(m.extra_lines.clone(), 8);
        if m.crlf_end {
            s.section_end = b"\r\n".to_vec();
        }
        let rsize = s.register_size;
        for f in m.frames.iter().take(16) {
            s.frames.push(gw::SampleFrame {
                tpnum: f.tpnum.get(),
                blocks: f
                    .blocks
                    .iter()
                    .take(8)
                    .map(|b| gdb_block(b, rsize))
                    .collect(),
                size: f.size,
            });
        }
        if let Some(e) = &m.end {
            s.end = cap(e.clone(), 16);
        }
        let built = s.build();
        let mut bytes = built.bytes.clone();
        apply(&mut bytes, &m.mutations);
        Some((sound.then_some((built, s.endian)), bytes))
    }

    /// Structured GDB tfile: model → writer → mutations → [`run_gdb_tfile`]; a sound model's
    /// file is also compared with what was written ([`gdb_differential`]).
    pub fn run_gdb_structured(data: &[u8]) {
        if let Some((sound, b)) = gdb_build(data) {
            run_gdb_tfile(&b);
            if let Some((built, endian)) = sound {
                gdb_differential(&built, endian);
            }
        }
    }

    // ---------------------------------------------------------------- uftrace

    use crate::formats::uftrace::writer as uw;

    /// A line of `task.txt`.
    #[derive(Arbitrary, Clone, Debug)]
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

    fn task_line(t: &TaskLine) -> String {
        match t {
            TaskLine::Sess { ts, pid, sid } => format!(
                "SESS timestamp={ts}.000000000 pid={pid} sid={sid:016x} exename=\"/bin/t\"\n"
            ),
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

    const INFO_KEYS: [&str; 16] = [
        "exename:",
        "build_id:",
        "exit_status:",
        "cmdline:",
        "cpuinfo:lines=",
        "cpuinfo:nr_cpus=",
        "cpuinfo:desc=",
        "meminfo:",
        "osinfo:lines=",
        "taskinfo:lines=",
        "taskinfo:nr_tid=",
        "taskinfo:tids=",
        "usageinfo:lines=",
        "argspec:lines=",
        "record_date:",
        "pattern_type:",
    ];

    const FILE_NAMES: [&str; 10] = [
        "100.dat",
        "101.dat",
        "perf-cpu0.dat",
        "events.txt",
        "t.sym",
        "t.dbg",
        "extern.dat",
        "kernel_header",
        "default.opts",
        "sid-0123456789abcdef.map",
    ];

    /// A uftrace data directory model, written through [`uw::minimal`] and edited.
    #[derive(Arbitrary, Debug)]
    pub struct UftraceModel {
        /// Records of task 100 (`None`: the writer's sound default).
        pub records: Option<Vec<uw::Record>>,
        /// `info` header fields: version, feature mask, info mask, max stack.
        pub header: Option<(u32, u64, u64, u16)>,
        /// Extra `info` lines: (key index, value).
        pub info_lines: Vec<(u8, String)>,
        /// Extra `task.txt` lines.
        pub task_lines: Vec<TaskLine>,
        /// Records of a second task (file `101.dat`).
        pub second_task: Option<Vec<uw::Record>>,
        /// Remove the file at this index (sorted by name).
        pub drop_file: Option<u8>,
        /// Files replaced or added: (name index, content).
        pub files: Vec<(u8, Vec<u8>)>,
        /// A kernel recording (`kernel_header`, `kernel-cpuN.dat`).
        pub kernel: Option<KernelModel>,
        /// Changes to one file: (file index, mutations).
        pub mutations: Vec<(u8, Vec<Mutation>)>,
    }

    /// The kernel side of a uftrace recording (`uftrace record -k`): `kernel_header` (page
    /// size, long size and byte order lines, then `TRACEFS: <path>: <length>` blocks holding
    /// the tracefs header and event format files) and one `kernel-cpuN.dat` of ring-buffer
    /// pages per CPU.
    #[derive(Arbitrary, Debug)]
    pub struct KernelModel {
        /// Page size 2^(10 + n % 6).
        pub page_shift: u8,
        /// 4-byte longs.
        pub long4: bool,
        /// Big-endian.
        pub big_endian: bool,
        /// Event formats besides funcgraph entry/exit: (name, id, fields as (offset, size)).
        pub events: Vec<KernelEvent>,
        /// Pages of each CPU.
        pub cpus: Vec<Vec<rw::PageBuilder>>,
    }

    /// A kernel event format: (name, id, fields as (offset, size)).
    pub type KernelEvent = (String, u16, Vec<(u8, u8)>);

    /// The files of a kernel recording.
    fn kernel_files(k: &KernelModel) -> Vec<(String, Vec<u8>)> {
        let ps = 1u32 << (10 + u32::from(k.page_shift % 6));
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
        for (name, id, fields) in k.events.iter().take(4) {
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
        for (cpu, pages) in k.cpus.iter().take(4).enumerate() {
            let pages = bound_pages(pages, ps);
            files.push((
                format!("kernel-cpu{cpu}.dat"),
                rw::pages(&pages, ps, long, endian),
            ));
        }
        files
    }

    /// The directory image of a structured uftrace input.
    pub fn render_uftrace(data: &[u8]) -> Option<Vec<u8>> {
        uftrace_build(data).map(|(_, image)| image)
    }

    /// Record counts of one task: (tid, records, entries, exits, events, lost).
    pub type TaskCounts = (u32, u64, u64, u64, u64, u64);

    /// The counts a task's records give, when every record is a bare 16-byte record (no
    /// payload, no `more` flag: what is read then does not depend on argument specs).
    fn task_counts(tid: u32, recs: &[uw::Record]) -> Option<TaskCounts> {
        let mut c = (tid, 0u64, 0u64, 0u64, 0u64, 0u64);
        for r in recs {
            if r.more || !r.payload.is_empty() {
                return None;
            }
            c.1 = c.1.checked_add(1)?;
            match r.typ & 3 {
                0 => c.2 = c.2.checked_add(1)?,
                1 => c.3 = c.3.checked_add(1)?,
                3 => c.4 = c.4.checked_add(1)?,
                _ => c.5 = c.5.checked_add(1)?,
            }
        }
        Some(c)
    }

    /// What a uftrace model says the check must count per task, when the directory is written
    /// without changes (the writer's `info` header, no file replaced, dropped or edited) and
    /// the model gives the records of task 100 and/or task 101 as bare records.
    fn uftrace_expected(m: &UftraceModel) -> Option<Vec<TaskCounts>> {
        if m.header.is_some()
            || !m.files.is_empty()
            || m.drop_file.is_some()
            || m.mutations.iter().any(|(_, v)| !v.is_empty())
        {
            return None;
        }
        let mut want = Vec::new();
        if let Some(r) = &m.records {
            want.push(task_counts(100, r.get(..r.len().min(64))?)?);
        }
        if let Some(r) = &m.second_task {
            want.push(task_counts(101, r.get(..r.len().min(64))?)?);
        }
        (!want.is_empty()).then_some(want)
    }

    /// Checks a directory image written from a model and asserts the per-task record counts
    /// the model gives ([`uftrace_expected`]).
    pub fn uftrace_differential(image: &[u8], want: &[TaskCounts]) {
        let dir = decode_dir_image(image);
        let opts = fuzz_options(Some(crate::formats::uftrace::FORMAT));
        let mut sink = Sink::with_limits(&opts.limits);
        let map = check_dir(&dir, &opts, &mut sink);
        for &(tid, records, entry, exit, event, lost) in want {
            let label = format!("task {tid}");
            let Some(n) = find_node(&map, &label) else {
                panic!("no {label} in the structure map of a directory written with its records");
            };
            let val = |k: &str| -> Option<u64> {
                n.values
                    .iter()
                    .find(|(key, _)| key == k)
                    .and_then(|(_, v)| v.parse().ok())
            };
            let got = (
                tid,
                val("records"),
                val("entry"),
                val("exit"),
                val("event"),
                val("lost"),
            );
            let want = (
                tid,
                Some(records),
                Some(entry),
                Some(exit),
                Some(event),
                Some(lost),
            );
            assert!(
                got == want,
                "{label}: records read (records, entry, exit, event, lost) {got:?}, written {want:?}"
            );
        }
    }

    /// A uftrace model's directory image, and the per-task counts when the model is sound.
    pub fn uftrace_build(data: &[u8]) -> Option<(Option<Vec<TaskCounts>>, Vec<u8>)> {
        let m = UftraceModel::arbitrary_take_rest(Unstructured::new(data)).ok()?;
        let want = uftrace_expected(&m);
        let records = m.records.map(|r| cap(r, 64));
        let dir = uw::minimal(records.as_deref());
        let mut files: Vec<(String, Vec<u8>)> = dir.files().to_vec();
        let find = |files: &mut Vec<(String, Vec<u8>)>, name: &str| -> usize {
            match files.iter().position(|(n, _)| n == name) {
                Some(i) => i,
                None => {
                    files.push((name.to_string(), Vec::new()));
                    files.len().saturating_sub(1)
                }
            }
        };
        let info = find(&mut files, "info");
        if let Some(f) = files.get_mut(info) {
            if let Some((v, feat, mask, stack)) = m.header {
                let text = f.1.get(40..).unwrap_or_default().to_vec();
                f.1 = uw::info_header(v, feat, mask, stack);
                f.1.extend_from_slice(&text);
            }
            for (k, v) in m.info_lines.iter().take(12) {
                let key = INFO_KEYS
                    .get(usize::from(*k) % INFO_KEYS.len())
                    .copied()
                    .unwrap_or("exename:");
                f.1.extend_from_slice(format!("{key}{v}\n").as_bytes());
            }
        }
        let task = find(&mut files, "task.txt");
        if let Some(f) = files.get_mut(task) {
            for t in m.task_lines.iter().take(8) {
                f.1.extend_from_slice(task_line(t).as_bytes());
            }
        }
        if let Some(r) = m.second_task {
            let i = find(&mut files, "101.dat");
            if let Some(f) = files.get_mut(i) {
                f.1 = uw::encode_records(&cap(r, 64));
            }
        }
        for (k, content) in m.files.iter().take(4) {
            let name = FILE_NAMES
                .get(usize::from(*k) % FILE_NAMES.len())
                .copied()
                .unwrap_or("100.dat");
            let i = find(&mut files, name);
            if let Some(f) = files.get_mut(i) {
                f.1 = cap(content.clone(), 4096);
            }
        }
        if let Some(k) = &m.kernel {
            for (name, data) in kernel_files(k) {
                let i = find(&mut files, &name);
                if let Some(f) = files.get_mut(i) {
                    f.1 = data;
                }
            }
        }
        files.sort();
        if let Some(d) = m.drop_file {
            let i = usize::from(d);
            if i < files.len() {
                files.remove(i);
            }
        }
        for (k, muts) in m.mutations.iter().take(3) {
            let n = files.len().max(1);
            if let Some(f) = files.get_mut(usize::from(*k) % n) {
                apply(&mut f.1, muts);
            }
        }
        Some((want, encode_dir_image(&files)))
    }

    /// Structured uftrace: model → writer → edits → [`run_uftrace`]; a directory written
    /// without changes is also compared with the model's records ([`uftrace_differential`]).
    pub fn run_uftrace_structured(data: &[u8]) {
        if let Some((want, b)) = uftrace_build(data) {
            run_uftrace(&b);
            if let Some(want) = want {
                uftrace_differential(&b, &want);
            }
        }
    }

    // ---------------------------------------------------------------- trace-cmd

    use crate::formats::ftrace_ring::writer as rw;
    use crate::formats::tracecmd::writer as tw;

    /// One CPU's data: pages built by the ring writer, or the trace-cmd writer's sound page.
    #[derive(Arbitrary, Debug)]
    pub enum CpuData {
        /// Pages from ring-buffer items.
        Pages(Vec<rw::PageBuilder>),
        /// A sound page of `n` default events.
        Sound(u8),
        /// Nothing.
        Empty,
        /// Raw bytes.
        Raw(Vec<u8>),
    }

    /// A trace-cmd option whose payload has a layout of its own, written in the file's byte
    /// order.
    #[derive(Arbitrary, Debug)]
    pub enum TypedOption {
        /// PROCMAPS: per process `PID NLIBS COMM` (hex) then NLIBS `START END PATH` lines.
        ProcMaps {
            /// (pid, comm, libraries as (start, end, path)).
            procs: Vec<Process>,
            /// Added to the announced library count of the first process.
            extra_libs: u8,
        },
        /// TIME_SHIFT: peer, flags, per CPU samples (time, offset, scaling), fraction table.
        TimeShift {
            /// Peer trace id.
            peer: u64,
            /// Flags.
            flags: u32,
            /// Samples per CPU: (time, offset, scaling).
            cpus: Vec<Vec<(u64, u64, u64)>>,
            /// Write the fraction table.
            fractions: bool,
        },
        /// GUEST: name, trace id, (vcpu, host pid) pairs.
        Guest {
            /// Guest name.
            name: String,
            /// Trace id.
            trace_id: u64,
            /// (vcpu, host pid).
            vcpus: Vec<(u32, u32)>,
        },
        /// TSC2NSEC: mult, shift, offset.
        Tsc2Nsec {
            /// Multiplier.
            mult: u32,
            /// Shift.
            shift: u32,
            /// Offset.
            offset: u64,
        },
    }

    /// A PROCMAPS process: (pid, comm, libraries as (start, end, path)).
    pub type Process = (u16, String, Vec<(u32, u32, String)>);

    fn put_n(out: &mut Vec<u8>, e: Endian, v: u64, n: usize) {
        let b = match e {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        };
        let part = match e {
            Endian::Little => b.get(..n),
            Endian::Big => b.get(8usize.saturating_sub(n)..),
        };
        out.extend_from_slice(part.unwrap_or_default());
    }

    /// The (id, payload) of a typed option.
    fn typed_option(o: &TypedOption, e: Endian) -> (u16, Vec<u8>) {
        use crate::formats::tracecmd::model::opt_id;
        let mut p = Vec::new();
        match o {
            TypedOption::ProcMaps { procs, extra_libs } => {
                let mut text = String::new();
                for (i, (pid, comm, libs)) in procs.iter().take(4).enumerate() {
                    let libs = libs.get(..libs.len().min(4)).unwrap_or_default();
                    let extra = if i == 0 {
                        usize::from(*extra_libs % 3)
                    } else {
                        0
                    };
                    let comm: String = comm
                        .chars()
                        .filter(|c| !c.is_whitespace())
                        .take(16)
                        .collect();
                    text.push_str(&format!(
                        "{pid:x} {:x} {comm}\n",
                        libs.len().saturating_add(extra)
                    ));
                    for (start, end, path) in libs {
                        let path: String = path.chars().filter(|c| *c != '\n').take(32).collect();
                        text.push_str(&format!("{start:x} {end:x} {path}\n"));
                    }
                }
                p.extend_from_slice(text.as_bytes());
                p.push(0);
                (opt_id::PROCMAPS, p)
            }
            TypedOption::TimeShift {
                peer,
                flags,
                cpus,
                fractions,
            } => {
                put_n(&mut p, e, *peer, 8);
                put_n(&mut p, e, u64::from(*flags), 4);
                let cpus = cpus.get(..cpus.len().min(4)).unwrap_or_default();
                put_n(&mut p, e, cpus.len() as u64, 4);
                for samples in cpus {
                    let samples = samples.get(..samples.len().min(8)).unwrap_or_default();
                    put_n(&mut p, e, samples.len() as u64, 4);
                    for (t, _, _) in samples {
                        put_n(&mut p, e, *t, 8);
                    }
                    for (_, off, _) in samples {
                        put_n(&mut p, e, *off, 8);
                    }
                    for (_, _, scale) in samples {
                        put_n(&mut p, e, *scale, 8);
                    }
                }
                if *fractions {
                    for samples in cpus {
                        for _ in samples.iter().take(8) {
                            put_n(&mut p, e, 0, 8);
                        }
                    }
                }
                (opt_id::TIME_SHIFT, p)
            }
            TypedOption::Guest {
                name,
                trace_id,
                vcpus,
            } => {
                p.extend(name.bytes().filter(|b| *b != 0).take(16));
                p.push(0);
                put_n(&mut p, e, *trace_id, 8);
                let vcpus = vcpus.get(..vcpus.len().min(8)).unwrap_or_default();
                put_n(&mut p, e, vcpus.len() as u64, 4);
                for (cpu, pid) in vcpus {
                    put_n(&mut p, e, u64::from(*cpu), 4);
                    put_n(&mut p, e, u64::from(*pid), 4);
                }
                (opt_id::GUEST, p)
            }
            TypedOption::Tsc2Nsec {
                mult,
                shift,
                offset,
            } => {
                put_n(&mut p, e, u64::from(*mult), 4);
                put_n(&mut p, e, u64::from(*shift), 4);
                put_n(&mut p, e, *offset, 8);
                (opt_id::TSC2NSEC, p)
            }
        }
    }

    /// An extra event system: (system, event name, id, extra fields as (offset, size)).
    pub type EventSystem = (String, String, u16, Vec<(u8, u8)>);

    /// A trace-cmd file model, written through [`tw::Builder`].
    #[derive(Arbitrary, Debug)]
    pub struct TracecmdModel {
        /// Version 7 (else 6).
        pub v7: bool,
        /// v7 compression: 0 none, 1 zstd, 2 zlib.
        pub compression: u8,
        /// Big-endian.
        pub big_endian: bool,
        /// 4-byte longs.
        pub long4: bool,
        /// Page size: `None` 4096, else 2^(10 + n % 6) (other values come from mutations).
        pub page_shift: Option<u8>,
        /// Keep the builder's sound top buffer.
        pub keep_data: bool,
        /// CPUs of the top buffer (cpu id, data).
        pub cpus: Vec<(u8, CpuData)>,
        /// An instance buffer (name).
        pub instance: Option<String>,
        /// Extra options (id, payload).
        pub options: Vec<(u16, Vec<u8>)>,
        /// Options with a payload of their own layout.
        pub typed_options: Vec<TypedOption>,
        /// Drop the builder's default options.
        pub drop_options: bool,
        /// CPU count written (`None`: the number of top-buffer CPUs).
        pub ncpus: Option<u8>,
        /// trace-cmd < 3.2 compressed size quirk.
        pub quirk_short4: bool,
        /// Pages per compressed chunk.
        pub pages_per_chunk: u8,
        /// An extra event system: (system, event name, id, extra fields).
        pub system: Option<EventSystem>,
        /// Replace header_page text.
        pub header_page: Option<Vec<u8>>,
        /// Text appended to kallsyms, printk, cmdlines.
        pub texts: Option<(String, String, String)>,
        /// Latency text instead of flyrecord data.
        pub latency: Option<Vec<u8>>,
        /// Clock name.
        pub clock: Option<String>,
        /// Changes after writing.
        pub mutations: Vec<Mutation>,
    }

    /// The bytes of a structured trace-cmd input.
    pub fn render_tracecmd(data: &[u8]) -> Option<Vec<u8>> {
        tracecmd_build(data).map(|(_, bytes)| bytes)
    }

    /// What one CPU's data holds: (buffer, cpu, events, pages).
    pub type CpuCounts = (String, u32, u64, u64);

    /// (events, pages) of ring pages built from `pages`, when every page is a well-formed
    /// page a reader must walk as written: no raw bytes or bare headers, no patches, no commit
    /// or missed-events override, data events with a payload (4-byte multiple when forced to
    /// `type_len 0`), paddings of a 4-byte multiple of at least 4 with a non-zero delta, and
    /// data that fits the page.
    fn ring_counts(pages: &[rw::PageBuilder], ps: u32, long: u8) -> Option<(u64, u64)> {
        let mut events = 0u64;
        for p in pages {
            if !p.patches.is_empty() || p.commit.is_some() || p.missed.is_some() {
                return None;
            }
            for it in &p.items {
                match it {
                    rw::Item::Event { payload, .. } if !payload.is_empty() => {
                        events = events.checked_add(1)?
                    }
                    rw::Item::LongEvent { payload, .. }
                        if !payload.is_empty() && payload.len() % 4 == 0 =>
                    {
                        events = events.checked_add(1)?
                    }
                    rw::Item::Padding { delta, len }
                        if *delta & ((1 << 27) - 1) != 0 && *len >= 4 && *len % 4 == 0 => {}
                    rw::Item::TimeExtend { .. } | rw::Item::TimeStamp { .. } => {}
                    _ => return None,
                }
            }
            let used = p
                .data(Endian::Little)
                .len()
                .checked_add(8)?
                .checked_add(usize::from(long))?;
            if used > usize::try_from(ps).ok()? {
                return None;
            }
        }
        Some((events, u64::try_from(pages.len()).ok()?))
    }

    /// Checks a trace-cmd file and asserts that every CPU of every buffer holds the events and
    /// pages the model wrote (`want`, from [`tracecmd_build`]). A CPU without data (no page)
    /// may be left out of the summary.
    pub fn tracecmd_differential(bytes: &[u8], want: &[CpuCounts]) {
        let opts = fuzz_options(Some(crate::formats::tracecmd::FORMAT));
        let got: Vec<CpuCounts> = crate::formats::tracecmd::summarize(bytes, &opts)
            .into_iter()
            .map(|c| (c.buffer, c.cpu, c.events, c.pages))
            .filter(|c| c.3 > 0)
            .collect();
        let want: Vec<CpuCounts> = want.iter().filter(|c| c.3 > 0).cloned().collect();
        assert!(
            got == want,
            "per-CPU (buffer, cpu, events, pages) read {got:?}, written {want:?}"
        );
    }

    /// A trace-cmd model's bytes, and the per-CPU counts when the model is written without
    /// changes and every buffer's CPUs are 0..n-1 with n the CPU count the file gives.
    pub fn tracecmd_build(data: &[u8]) -> Option<(Option<Vec<CpuCounts>>, Vec<u8>)> {
        let m = TracecmdModel::arbitrary_take_rest(Unstructured::new(data)).ok()?;
        // Per top-buffer CPU: (events, pages) when its data is well-formed.
        let mut top_counts: Vec<Option<(u64, u64)>> = Vec::new();
        let comp = match m.compression % 3 {
            0 => tw::Compression::None,
            1 => tw::Compression::Zstd,
            _ => tw::Compression::Zlib,
        };
        let mut b = tw::Builder::new(if m.v7 { 7 } else { 6 }, comp);
        let endian = if m.big_endian {
            Endian::Big
        } else {
            Endian::Little
        };
        let long: u8 = if m.long4 { 4 } else { 8 };
        let ps: u32 = match m.page_shift {
            Some(n) => 1u32 << (10 + u32::from(n % 6)),
            None => 4096,
        };
        b.endian = endian;
        b.long_size = long;
        b.page_size = ps;
        b.header_page = tw::header_page_text(u32::from(long), ps);
        if let Some(h) = &m.header_page {
            b.header_page = cap(h.clone(), 1024);
        }
        if !m.keep_data || m.big_endian || m.long4 || ps != 4096 {
            b.buffers.truncate(0);
            b.buffers.push(tw::BufferSpec {
                name: String::new(),
                cpus: Vec::new(),
            });
        } else if let Some(top) = b.buffers.first() {
            // The builder's default pages: three events each.
            top_counts = top.cpus.iter().map(|_| Some((3, 1))).collect();
        }
        let page_len = usize::try_from(ps).unwrap_or(4096);
        for (cpu, d) in m.cpus.iter().take(4) {
            let (bytes, counts) = match d {
                CpuData::Pages(p) => {
                    let pages = bound_pages(p, ps);
                    (
                        rw::pages(&pages, ps, long, endian),
                        ring_counts(&pages, ps, long),
                    )
                }
                CpuData::Sound(n) => (
                    tw::page(
                        ps,
                        long,
                        endian,
                        1_000_000,
                        &vec![(tw::DEFAULT_EVENT_ID, 12); usize::from(*n % 16)],
                    ),
                    Some((u64::from(*n % 16), 1)),
                ),
                CpuData::Empty => (Vec::new(), Some((0, 0))),
                CpuData::Raw(r) => (cap(r.clone(), page_len), None),
            };
            if let Some(top) = b.buffers.first_mut() {
                top.cpus.push((u32::from(*cpu % 8), bytes));
                top_counts.push(counts);
            }
        }
        if let Some(name) = &m.instance {
            let name: String = name.chars().take(16).collect();
            if m.keep_data && !m.big_endian && !m.long4 && ps == 4096 {
                b = b.with_instance(&name);
            } else {
                b.buffers.push(tw::BufferSpec {
                    name,
                    cpus: Vec::new(),
                });
            }
        }
        if m.drop_options {
            b.options.clear();
        }
        for o in m.typed_options.iter().take(4) {
            b.options.push(typed_option(o, endian));
        }
        for (id, payload) in m.options.iter().take(6) {
            b.options.push((*id % 32, cap(payload.clone(), 256)));
        }
        match m.ncpus {
            Some(n) => b.ncpus = u32::from(n % 16),
            None => {
                if let Some(top) = b.buffers.first() {
                    b.ncpus = u32::try_from(top.cpus.len()).unwrap_or(u32::MAX);
                }
            }
        }
        b.quirk_short4 = m.quirk_short4;
        b.pages_per_chunk = usize::from(m.pages_per_chunk % 12).max(1);
        if let Some((sys, name, id, fields)) = &m.system {
            let fields: Vec<(String, u32, u32)> = fields
                .iter()
                .take(6)
                .enumerate()
                .map(|(i, (o, s))| (format!("f{i}"), u32::from(*o), u32::from(*s)))
                .collect();
            let refs: Vec<(&str, u32, u32)> = fields
                .iter()
                .map(|(n, o, s)| (n.as_str(), *o, *s))
                .collect();
            let sys: String = sys.chars().take(16).collect();
            let name: String = name.chars().take(16).collect();
            b.systems
                .push((sys, vec![tw::format_text(&name, u32::from(*id), &refs)]));
        }
        if let Some((k, p, c)) = &m.texts {
            b.kallsyms.extend(k.bytes().take(256));
            b.printk.extend(p.bytes().take(256));
            b.cmdlines.extend(c.bytes().take(256));
        }
        if let Some(l) = &m.latency {
            b.latency = Some(cap(l.clone(), 1024));
        }
        if let Some(c) = &m.clock {
            b.clock = c.chars().take(16).collect();
        }
        let want = tracecmd_expected(&m, &b, &top_counts);
        let (mut bytes, _) = b.build();
        apply(&mut bytes, &m.mutations);
        Some((want, bytes))
    }

    /// The per-CPU counts of a built model (see [`tracecmd_build`]): `None` when the model
    /// changes the file after writing, replaces the header_page text, writes extra options,
    /// latency text, an event system or a clock with a broken name, or when a buffer's CPUs
    /// are not 0..n-1 with n the file's CPU count.
    fn tracecmd_expected(
        m: &TracecmdModel,
        b: &tw::Builder,
        top_counts: &[Option<(u64, u64)>],
    ) -> Option<Vec<CpuCounts>> {
        // A system or event name that is empty or holds a NUL or line break breaks the
        // NUL-terminated / line-based metadata around it on purpose.
        let plain = |s: &str| {
            let s: String = s.chars().take(16).collect();
            !s.is_empty() && !s.contains(['\0', '\n'])
        };
        let system_ok = m
            .system
            .as_ref()
            .is_none_or(|(sys, name, _, _)| plain(sys) && plain(name));
        // The clock name is a NUL-terminated string of the buffer records.
        let clock_ok = m.clock.as_ref().is_none_or(|c| {
            let c: String = c.chars().take(16).collect();
            !c.contains(['\0', '\n'])
        });
        if !m.mutations.is_empty()
            || m.header_page.is_some()
            || !m.options.is_empty()
            || !m.typed_options.is_empty()
            || m.latency.is_some()
            || !system_ok
            || !clock_ok
        {
            return None;
        }
        let mut want = Vec::new();
        for (i, buf) in b.buffers.iter().enumerate() {
            let ids_ok = buf
                .cpus
                .iter()
                .enumerate()
                .all(|(k, (cpu, _))| u32::try_from(k).is_ok_and(|k| k == *cpu));
            // An instance needs a name of its own (trace-cmd never writes an empty one).
            let named = i == 0 || !(buf.name.is_empty() || buf.name.contains('\0'));
            if !ids_ok || !named || u32::try_from(buf.cpus.len()).ok()? != b.ncpus {
                return None;
            }
            for (k, (cpu, _)) in buf.cpus.iter().enumerate() {
                let (events, pages) = if i == 0 {
                    (*top_counts.get(k)?)?
                } else {
                    // An instance from `with_instance`: two events on one page.
                    (2, 1)
                };
                want.push((buf.name.clone(), *cpu, events, pages));
            }
        }
        Some(want)
    }

    /// Structured trace-cmd: model → writer → mutations → [`run_tracecmd`]; a file written
    /// without changes is also compared with the model's per-CPU counts
    /// ([`tracecmd_differential`]).
    pub fn run_tracecmd_structured(data: &[u8]) {
        if let Some((want, b)) = tracecmd_build(data) {
            run_tracecmd(&b);
            if let Some(want) = want {
                tracecmd_differential(&b, &want);
            }
        }
    }

    // ---------------------------------------------------------------- archives

    /// A compression layer of the structured archive model.
    #[derive(Arbitrary, Clone, Copy, Debug)]
    pub enum Codec {
        /// gzip.
        Gz,
        /// zstd.
        Zst,
        /// xz.
        Xz,
        /// bzip2.
        Bz2,
        /// lz4.
        Lz4,
    }

    fn compress(c: Codec, data: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let out: std::io::Result<Vec<u8>> = match c {
            Codec::Gz => {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(data).and_then(|()| e.finish())
            }
            Codec::Zst => zstd::bulk::compress(data, 1),
            Codec::Xz => {
                let mut e = liblzma::write::XzEncoder::new(Vec::new(), 0);
                e.write_all(data).and_then(|()| e.finish())
            }
            Codec::Bz2 => {
                let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
                e.write_all(data).and_then(|()| e.finish())
            }
            Codec::Lz4 => {
                let mut e = lz4_flex::frame::FrameEncoder::new(Vec::new());
                e.write_all(data)
                    .map_err(std::io::Error::other)
                    .and_then(|()| e.finish().map_err(std::io::Error::other))
            }
        };
        out.unwrap_or_default()
    }

    /// How a member is named.
    #[derive(Arbitrary, Clone, Copy, Debug)]
    pub enum MemberName {
        /// `d<k>/m<n>.tf` (k < 2, n < 8).
        Plain(u8, u8),
        /// `../m<n>.tf`.
        Parent(u8),
        /// `/m<n>.tf`.
        Absolute(u8),
    }

    /// What kind of entry a member is.
    #[derive(Arbitrary, Clone, Copy, Debug)]
    pub enum MemberKind {
        /// A regular file.
        File,
        /// A symbolic link.
        Symlink,
        /// A directory.
        Dir,
    }

    /// One member: a GDB tfile from the GDB model (or raw bytes), possibly compressed.
    #[derive(Arbitrary, Clone, Debug)]
    pub struct MemberModel {
        /// Its name.
        pub name: MemberName,
        /// Its kind.
        pub kind: MemberKind,
        /// Input of the GDB model (`render_gdb`); raw bytes when that gives nothing.
        pub content: Vec<u8>,
        /// A compression of the member itself.
        pub codec: Option<Codec>,
    }

    /// An archive of members, possibly compressed as a whole, then mutated.
    #[derive(Arbitrary, Clone, Debug)]
    pub struct ArchiveModel {
        /// Zip (else tar).
        pub zip: bool,
        /// Compression of the whole tar.
        pub codec: Option<Codec>,
        /// Members (at most 6 are written).
        pub members: Vec<MemberModel>,
        /// Changes to the final bytes.
        pub mutations: Vec<Mutation>,
    }

    fn member_name(n: MemberName) -> String {
        match n {
            MemberName::Plain(k, i) => format!("d{}/m{}.tf", k % 2, i % 8),
            MemberName::Parent(i) => format!("../m{}.tf", i % 8),
            MemberName::Absolute(i) => format!("/m{}.tf", i % 8),
        }
    }

    /// The archive bytes and, per member written, (name, kind, stored bytes, unpacked bytes).
    type Written = (Vec<u8>, Vec<(String, MemberKind, Vec<u8>)>);

    fn render_archive_parts(data: &[u8]) -> Option<Written> {
        use std::io::Write;
        let m = ArchiveModel::arbitrary_take_rest(Unstructured::new(data)).ok()?;
        let mut written = Vec::new();
        for mm in m.members.iter().take(6) {
            let plain = render_gdb(&mm.content).unwrap_or_else(|| mm.content.clone());
            let stored = match mm.codec {
                Some(c) => compress(c, &plain),
                None => plain.clone(),
            };
            written.push((member_name(mm.name), mm.kind, stored, plain));
        }
        let bytes = if m.zip {
            let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
            for (name, kind, stored, _) in &written {
                let opts = zip::write::SimpleFileOptions::default();
                let ok = match kind {
                    MemberKind::File => {
                        w.start_file(name.as_str(), opts).is_ok() && w.write_all(stored).is_ok()
                    }
                    MemberKind::Dir => w.add_directory(name.as_str(), opts).is_ok(),
                    MemberKind::Symlink => {
                        w.add_symlink(name.as_str(), "/etc/passwd", opts).is_ok()
                    }
                };
                if !ok {
                    return None;
                }
            }
            w.finish().ok()?.into_inner()
        } else {
            let mut out = Vec::new();
            for (name, kind, stored, _) in &written {
                let mut h = tar::Header::new_gnu();
                let old = h.as_old_mut();
                let nb = name.as_bytes();
                for (d, s) in old.name.iter_mut().zip(nb) {
                    *d = *s;
                }
                let (et, body): (_, &[u8]) = match kind {
                    MemberKind::File => (tar::EntryType::Regular, stored),
                    MemberKind::Dir => (tar::EntryType::Directory, &[]),
                    MemberKind::Symlink => (tar::EntryType::Symlink, &[]),
                };
                h.set_entry_type(et);
                h.set_size(body.len() as u64);
                h.set_mode(0o644);
                h.set_cksum();
                out.extend_from_slice(h.as_bytes());
                out.extend_from_slice(body);
                out.resize(out.len().div_ceil(512).saturating_mul(512), 0);
            }
            out.extend_from_slice(&[0u8; 1024]);
            match m.codec {
                Some(c) => compress(c, &out),
                None => out,
            }
        };
        let mut bytes = bytes;
        apply(&mut bytes, &m.mutations);
        let intact = m.mutations.is_empty();
        let members = if intact {
            written.into_iter().map(|(n, k, _, p)| (n, k, p)).collect()
        } else {
            Vec::new()
        };
        Some((bytes, members))
    }

    /// The archive bytes of a structured archive input.
    pub fn render_archive(data: &[u8]) -> Option<Vec<u8>> {
        render_archive_parts(data).map(|(b, _)| b)
    }

    /// Structured archive: members → tar or zip (optionally compressed) → mutations →
    /// [`run_archive`]; with no mutation, every regular member with a safe, unique name must
    /// give exactly the findings (codes, spans) of its unpacked bytes checked alone.
    pub fn run_archive_structured(data: &[u8]) {
        use crate::check::check_reader;
        use crate::config::Config;
        let Some((bytes, members)) = render_archive_parts(data) else {
            return;
        };
        run_archive(&bytes);
        if members.is_empty() {
            return;
        }
        let opts = fuzz_options(None);
        let r = check_reader(
            std::path::Path::new("-"),
            Box::new(std::io::Cursor::new(bytes)),
            &opts,
            &Config::default(),
        );
        if r.dropped > 0 || r.findings.iter().any(|f| f.rule.code == "TL003") {
            return;
        }
        let mut seen = std::collections::BTreeSet::new();
        for (name, kind, plain) in &members {
            let fresh = seen.insert(name.clone());
            if !matches!(kind, MemberKind::File)
                || !fresh
                || name.starts_with('/')
                || name.starts_with("..")
            {
                continue;
            }
            // A later duplicate of this name is reported under it too.
            if members.iter().filter(|(n, _, _)| n == name).count() > 1 {
                continue;
            }
            if crate::archive::sniff(plain).is_some() || plain.is_empty() {
                continue;
            }
            if crate::formats::detect_bytes(plain).is_none() {
                continue;
            }
            let alone = check_file_once(plain, &opts);
            if alone.dropped > 0 {
                continue;
            }
            let got: Vec<_> = r
                .findings
                .iter()
                .filter(|f| f.member.as_deref() == Some(name.as_str()))
                .map(|f| (f.rule.code, f.offset, f.length))
                .collect();
            let want: Vec<_> = alone.keys.iter().map(|k| (k.0, k.2, k.3)).collect();
            assert!(
                got == want,
                "member {name}: the archive gives other findings than the member alone:\n archive: {got:?}\n alone:   {want:?}"
            );
        }
    }

    /// A function turning a structure-aware input into the bytes its `run_*` function sees.
    pub type Render = fn(&[u8]) -> Option<Vec<u8>>;

    /// The rendering function of a structure-aware target, by target name.
    pub fn renderer_for(target: &str) -> Option<Render> {
        match target {
            "ktrace_structured" => Some(render_ktrace),
            "ktrace_roundtrip" => Some(render_ktrace_roundtrip),
            "gdb_structured" => Some(render_gdb),
            "uftrace_structured" => Some(render_uftrace),
            "tracecmd_structured" => Some(render_tracecmd),
            "archive_structured" => Some(render_archive),
            _ => None,
        }
    }
}
