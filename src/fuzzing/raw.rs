//! The raw-bytes runners: one per fuzz target, each feeding its input through the entry point
//! the command line uses and asserting the invariants.

use super::image::*;
use super::invariants::*;
use crate::check::check_bytes;
use crate::detect::Format;
use crate::finding::{Finding, Sink};
use crate::formats::{FormatSpec, FORMATS};
use crate::reader::Endian;

/// trace-cmd `trace.dat` bytes, checked whole and sifted.
pub fn run_tracecmd(data: &[u8]) {
    let opts = fuzz_options(Some(crate::formats::tracecmd::FORMAT));
    check_file_invariants(data, &opts);
    check_sieve_invariant(data, &opts);
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

/// A raw-bytes runner (`run_*`).
pub type Runner = fn(&[u8]);

/// The `run_*` function for a regression folder name (`corpus/<name>/regressions/`): the
/// containers' and detection's, and for a format of the table (by its `corpus` name) the
/// runner that adds the format's own invariants to [`run_format`]'s; `None` for a format that
/// has none of its own yet ([`run_formats`] gives it [`run_format`]).
pub fn runner_for(corpus_dir: &str) -> Option<Runner> {
    match corpus_dir {
        "archive" => return Some(run_archive),
        "detect" => return Some(run_detect),
        _ => {}
    }
    let format = FORMATS.iter().find(|s| s.corpus == corpus_dir)?.format;
    let own: [(Format, Runner); 4] = [
        (crate::formats::tracecmd::FORMAT, run_tracecmd),
        (crate::formats::gdb::FORMAT, run_gdb_tfile),
        (crate::formats::ktrace::FORMAT, run_ktrace),
        (crate::formats::uftrace::FORMAT, run_uftrace),
    ];
    own.iter().find(|(f, _)| *f == format).map(|(_, run)| *run)
}
