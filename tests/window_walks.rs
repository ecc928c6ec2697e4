//! GDB tfiles and ktrace files read from disk in bounded windows give the findings and the
//! structure map of the whole read: every generated GDB case (one per rule), the corpus, and
//! copies with a tail after the end marker (zeros, garbage, a frame), each read with windows
//! from 1 byte up so that windows end inside every frame header, block header and definition
//! line. A ktrace body of all-zero chunk headers, kept as one run, gives the findings of the
//! chunk-by-chunk walk (one unknown tag 0, the trailing bytes, the chunk limit at the very
//! chunk it is reached).

mod common;
#[path = "common/gdb_cases.rs"]
mod gdb_cases;

use std::io::Write;
use std::path::{Path, PathBuf};
use tracelint::check::{check_bytes, check_path, check_reader, CheckOptions};
use tracelint::config::Config;
use tracelint::finding::{Finding, Sink};
use tracelint::formats::gdb;
use tracelint::formats::gdb::rules as gt;
use tracelint::formats::ktrace;
use tracelint::formats::ktrace::rules as kt;
use tracelint::formats::ktrace::writer::{self as kw, V3Magic};
use tracelint::input::LoadMode;
use tracelint::map::MapNode;
use tracelint::Limits;

/// (code, offset, length, message, notes) of every finding.
fn shown(f: &[Finding]) -> Vec<(String, u64, u64, String, Vec<String>)> {
    f.iter()
        .map(|f| {
            (
                f.rule.code.to_string(),
                f.offset,
                f.length,
                f.message.clone(),
                f.notes.clone(),
            )
        })
        .collect()
}

fn whole(data: &[u8], opts: &CheckOptions) -> (Vec<Finding>, MapNode) {
    let mut sink = Sink::with_limits(&opts.limits);
    let (_, map) = check_bytes(data, opts, &mut sink);
    (sink.into_parts().0, map)
}

fn temp_file(data: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(data).unwrap();
    f.flush().unwrap();
    f
}

/// Window sizes: one byte (a piece at a time), sizes around the 6-byte frame header and the
/// 13-byte block header, and larger ones.
const WINDOWS: &[u64] = &[1, 2, 5, 6, 7, 13, 64, 4096, gdb::WINDOW];

/// Asserts that `data`, written to a file and read in every window size of [`WINDOWS`], gives
/// the findings and map of the whole read, and so do `check_path`'s mapped and windowed modes.
fn same_in_windows(name: &str, data: &[u8], opts: &CheckOptions) -> Vec<Finding> {
    let opts = &CheckOptions {
        format_hint: Some(gdb::FORMAT),
        ..opts.clone()
    };
    let (want, want_map) = whole(data, opts);
    let file = temp_file(data);
    for &w in WINDOWS {
        let mut sink = Sink::with_limits(&opts.limits);
        let map = gdb::check_file(file.as_file(), data.len() as u64, w, opts, &mut sink);
        let got = sink.into_parts().0;
        assert_eq!(
            shown(&got),
            shown(&want),
            "{name}, window {w}:\n{}\nwhole:\n{}",
            common::show(&got),
            common::show(&want)
        );
        assert_eq!(map, want_map, "{name}, window {w}: map");
    }
    // The reports of the command line and the daemon against that of the same bytes read
    // from a stream (held in memory, checked whole).
    let config = Config::default();
    let streamed = check_reader(
        file.path(),
        Box::new(std::io::Cursor::new(data.to_vec())),
        opts,
        &config,
    );
    for mode in [LoadMode::Mmap, LoadMode::Windowed, LoadMode::Read] {
        let o = CheckOptions {
            load_mode: mode,
            ..opts.clone()
        };
        let r = check_path(file.path(), &o, &config);
        assert_eq!(
            shown(&r.findings),
            shown(&streamed.findings),
            "{name}, {mode:?}"
        );
    }
    want
}

fn corpus_tfiles() -> Vec<PathBuf> {
    let mut v = Vec::new();
    common::inputs(&common::corpus("gdb"), &mut v);
    v.retain(|p| p.extension().is_some_and(|e| e == "tf"));
    v.sort();
    assert!(v.len() >= 10, "corpus/gdb: {v:?}");
    v
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

#[test]
fn tfiles_read_in_windows_give_the_findings_of_the_whole_read() {
    let small_lines = CheckOptions {
        limits: Limits {
            max_line_bytes: 40,
            ..Limits::default()
        },
        ..CheckOptions::default()
    };
    let mut rules_seen = std::collections::BTreeSet::new();
    for (rule, data, _) in gdb_cases::fixtures() {
        let f = same_in_windows(rule.code, &data, &CheckOptions::default());
        rules_seen.extend(f.iter().map(|f| f.rule.code));
        same_in_windows(rule.code, &data, &small_lines);
    }
    for p in corpus_tfiles() {
        let name = p.display().to_string();
        same_in_windows(&name, &read(&p), &CheckOptions::default());
        same_in_windows(&name, &read(&p), &small_lines);
    }
    // The cases reach the frame walk's findings, not only the definitions'.
    for code in [
        gt::MISSING_END_MARKER.code,
        gt::FRAME_OVERRUNS_FILE.code,
        gt::UNKNOWN_BLOCK_TYPE.code,
        gt::FRAME_BLOCKS_MISMATCH.code,
        gt::DATA_AFTER_END_MARKER.code,
        gt::LINE_TOO_LONG.code,
    ] {
        assert!(
            rules_seen.contains(code),
            "{code} not raised: {rules_seen:?}"
        );
    }
}

/// What follows the end marker of a corpus file: zeros across several scan steps, zeros with
/// one non-zero byte at the very end, garbage, a whole frame.
#[test]
fn a_tail_after_the_end_marker_is_judged_on_every_byte() {
    let base = read(&common::corpus("gdb").join("full.tf"));
    let (base_findings, _) = whole(&base, &CheckOptions::default());
    assert!(
        !base_findings
            .iter()
            .any(|f| f.rule.code == gt::DATA_AFTER_END_MARKER.code),
        "{}",
        common::show(&base_findings)
    );
    let step = tracelint::input::SCAN_STEP as usize;
    let zeros = [base.clone(), vec![0; 2 * step + 77]].concat();
    let f = same_in_windows("zeros", &zeros, &CheckOptions::default());
    let pad: Vec<_> = f
        .iter()
        .filter(|f| f.rule.code == gt::END_MARKER_PADDING.code)
        .collect();
    assert_eq!(pad.len(), 1, "{}", common::show(&f));
    assert!(!f
        .iter()
        .any(|f| f.rule.code == gt::DATA_AFTER_END_MARKER.code));

    let mut last = zeros.clone();
    *last.last_mut().unwrap() = 1;
    let f = same_in_windows("zeros, then one byte", &last, &CheckOptions::default());
    assert!(
        f.iter()
            .any(|f| f.rule.code == gt::DATA_AFTER_END_MARKER.code
                && f.message.contains("not all are zero")),
        "{}",
        common::show(&f)
    );

    let garbage: Vec<u8> = (0..3 * step as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    same_in_windows(
        "garbage",
        &[base.clone(), garbage].concat(),
        &CheckOptions::default(),
    );
    // A copy of the whole frame section after the marker: frames GDB never shows.
    let (_, map) = whole(&base, &CheckOptions::default());
    let frames = map.children.iter().find(|c| c.label == "frames").unwrap();
    let start = usize::try_from(frames.offset).unwrap();
    let f = same_in_windows(
        "frames after the marker",
        &[base[..base.len() - 2].to_vec(), base[start..].to_vec()].concat(),
        &CheckOptions::default(),
    );
    assert!(
        f.iter()
            .any(|f| f.rule.code == gt::DATA_AFTER_END_MARKER.code
                && f.message.contains("whole frame")),
        "{}",
        common::show(&f)
    );
}

fn v3_file() -> Vec<u8> {
    kw::write(&kw::File::V3(kw::sample_v3(V3Magic::Kernel)))
}

/// Checks `data` whole and from a file (in windows); asserts the same findings and returns
/// them with the decoded model.
fn ktrace_both(
    name: &str,
    data: &[u8],
    opts: &CheckOptions,
) -> (Vec<Finding>, ktrace::model::Trace) {
    let (want, want_map) = whole(data, opts);
    let file = temp_file(data);
    let mut sink = Sink::with_limits(&opts.limits);
    let map = ktrace::check_file(file.as_file(), data.len() as u64, opts, &mut sink);
    let got = sink.into_parts().0;
    assert_eq!(shown(&got), shown(&want), "{name}");
    assert_eq!(map, want_map, "{name}: map");
    let mut sink = Sink::with_limits(&opts.limits);
    let trace = ktrace::decode_bytes(data, opts, &mut sink);
    (want, trace)
}

#[test]
fn ktrace_zero_chunk_headers_give_the_findings_of_each_chunk() {
    let base = v3_file();
    assert_eq!(base.len() % 8, 0);
    let opts = CheckOptions::default();
    let (base_findings, base_trace) = ktrace_both("base", &base, &opts);
    let real = base_trace.chunk_count();
    let step = tracelint::input::SCAN_STEP as usize;
    // Zeros over several scan steps, then a null chunk (a known tag: a non-zero header), then
    // zeros again with 9 bytes too short for a chunk header.
    let zeros1 = 2 * step + 48;
    let mut null = vec![0u8; 16];
    null[..4].copy_from_slice(&0x2000u32.to_le_bytes());
    let zeros2 = 160;
    let data = [base.clone(), vec![0; zeros1], null, vec![0; zeros2 + 9]].concat();
    let (f, t) = ktrace_both("zeros", &data, &opts);
    let at = base.len() as u64;
    let expected_chunks = real + (zeros1 / 16) as u64 + 1 + (zeros2 / 16) as u64;
    assert_eq!(t.chunk_count(), expected_chunks);
    let all = t.all_chunks();
    assert_eq!(all.len() as u64, expected_chunks);
    // Every chunk where the walk chunk by chunk finds it, 16 bytes apart in the zeros.
    let body: Vec<u64> = all
        .iter()
        .filter(|c| !c.in_header)
        .map(|c| c.offset)
        .collect();
    let mut want_offsets: Vec<u64> = base_trace
        .chunks
        .iter()
        .filter(|c| !c.in_header)
        .map(|c| c.offset)
        .collect();
    want_offsets.extend((0..(zeros1 / 16) as u64).map(|i| at + 16 * i));
    let null_at = at + zeros1 as u64;
    want_offsets.push(null_at);
    want_offsets.extend((0..(zeros2 / 16) as u64).map(|i| null_at + 16 + 16 * i));
    assert_eq!(body, want_offsets);
    // The first chunk of tag 0 is reported, once; the 9 bytes at the end are trailing bytes.
    let new: Vec<_> = f
        .iter()
        .filter(|x| !base_findings.iter().any(|b| b.message == x.message))
        .collect();
    assert_eq!(new.len(), 2, "{}", common::show(&f));
    assert_eq!(new[0].rule.code, kt::UNKNOWN_CHUNK.code);
    assert_eq!(new[0].offset, at);
    assert_eq!(new[1].rule.code, kt::TRAILING_BYTES.code);
    assert_eq!(new[1].offset, data.len() as u64 - 9);
    assert_eq!(new[1].length, 9);

    // The chunk limit is reached inside the run: reported at the chunk that is one too many.
    let extra = 1000u64;
    let limited = CheckOptions {
        limits: Limits {
            max_entries: real + extra,
            ..Limits::default()
        },
        ..CheckOptions::default()
    };
    let (f, t) = ktrace_both("limited", &data, &limited);
    assert_eq!(t.chunk_count(), real + extra);
    let limit: Vec<_> = f
        .iter()
        .filter(|f| f.rule.code == tracelint::rules::LIMIT_EXCEEDED.code)
        .collect();
    assert_eq!(limit.len(), 1, "{}", common::show(&f));
    assert_eq!(limit[0].offset, at + 16 * extra);
    assert!(
        limit[0].message.contains(&(real + extra).to_string()),
        "{}",
        limit[0].message
    );
}
