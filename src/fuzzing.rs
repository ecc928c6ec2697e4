//! Entry points and input decoders shared by the fuzz targets and the regression replay test.
//!
//! Every `run_*` function feeds its input through the same entry point the command line uses
//! ([`check_bytes`] / [`check_dir`]) with [`Limits::fuzzing`], and asserts more than "no panic":
//!
//! * every finding's span lies inside the input (for a directory image: inside the named file
//!   of the image; findings about a file that is absent, or about the directory as a whole,
//!   carry an empty span at offset 0);
//! * checking the same input twice gives the same findings (rule codes, files, spans) and the
//!   same structure map;
//! * the structure map accepts the findings (`attach_findings`) and serialises to JSON.
//!
//! The fuzz targets under `fuzz/` are one-line wrappers around these functions, and
//! `tests/fuzz_regressions.rs` replays every file under `corpus/<fmt>/regressions/` through
//! them, so a crash found by fuzzing stays fixed under a plain `cargo test`.

use crate::check::{check_bytes, check_dir, CheckOptions};
use crate::detect::Format;
use crate::finding::{Finding, Sink};
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

/// Checks a directory image twice and asserts the invariants.
pub fn check_dir_invariants(dir: &MemDir, opts: &CheckOptions) {
    let once = || {
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
    let first = once();
    let second = once();
    assert!(
        first == second,
        "checking the same directory twice gave different results:\n first: {:?}\nsecond: {:?}",
        first.keys,
        second.keys
    );
}

/// trace-cmd `trace.dat` bytes.
pub fn run_tracecmd(data: &[u8]) {
    check_file_invariants(data, &fuzz_options(Some(Format::TraceCmd)));
}

/// GDB tfile bytes, read little-endian (the default) and big-endian.
pub fn run_gdb_tfile(data: &[u8]) {
    check_file_invariants(data, &fuzz_options(Some(Format::GdbTfile)));
    let mut big = fuzz_options(Some(Format::GdbTfile));
    big.endian = Some(Endian::Big);
    let _ = check_file_once(data, &big);
}

/// Darwin ktrace bytes, checked as a file with a magic and as raw V0.
pub fn run_ktrace(data: &[u8]) {
    check_file_invariants(data, &fuzz_options(Some(Format::Ktrace)));
    let _ = check_file_once(data, &fuzz_options(Some(Format::KtraceV0)));
}

/// A uftrace data directory given as a directory image (see [`decode_dir_image`]).
pub fn run_uftrace(data: &[u8]) {
    let dir = decode_dir_image(data);
    check_dir_invariants(&dir, &fuzz_options(Some(Format::Uftrace)));
}

/// Any bytes, format detected by content as the command line does.
pub fn run_detect(data: &[u8]) {
    check_file_invariants(data, &fuzz_options(None));
}

/// The `run_*` function for a regression folder name (`corpus/<name>/regressions/`).
pub fn runner_for(corpus_dir: &str) -> Option<fn(&[u8])> {
    match corpus_dir {
        "tracecmd" => Some(run_tracecmd),
        "gdb" => Some(run_gdb_tfile),
        "ktrace" => Some(run_ktrace),
        "uftrace" => Some(run_uftrace),
        "detect" => Some(run_detect),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn image_round_trip() {
        let files = vec![
            ("info".to_string(), b"Ftrace!\0abc".to_vec()),
            ("1.dat".to_string(), vec![0u8; 40]),
            ("task.txt".to_string(), Vec::new()),
        ];
        let img = encode_dir_image(&files);
        let dir = decode_dir_image(&img);
        let mut want = files.clone();
        want.sort();
        assert_eq!(dir.files(), &want[..]);
    }

    #[test]
    fn image_decoder_is_total() {
        for data in [
            &b""[..],
            b"\x05ab",
            b"\x00\xff\xff\xff\xff",
            b"\x02..\x01\x00\x00\x00x\x01/",
        ] {
            let dir = decode_dir_image(data);
            for (name, _) in dir.files() {
                assert!(!name.is_empty() && !name.contains('/') && name != "..");
            }
        }
        let many: Vec<u8> = (0..200u8).flat_map(|i| [1, i, 0, 0, 0, 0]).collect();
        assert!(decode_dir_image(&many).files().len() <= IMAGE_MAX_FILES);
    }

    #[test]
    fn runners_accept_trivial_inputs() {
        for data in [
            &b""[..],
            b"\x7fTRACE0\n",
            b"\x17\x08\x44tracing6\0",
            b"\x00\x03\xaa\x55",
            b"x",
        ] {
            run_detect(data);
            run_tracecmd(data);
            run_gdb_tfile(data);
            run_ktrace(data);
            run_uftrace(data);
        }
    }
}
