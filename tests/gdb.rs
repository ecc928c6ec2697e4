//! GDB tfile validator: real corpus files, real defects, one fixture per rule, crash inputs of
//! GDB 13.1, robustness sweeps and a differential check against GDB itself.

mod common;

use std::ops::Range;
use tracelint::formats::gdb::writer::{Sample, SampleBlock, SampleFrame, StatusLine};
use tracelint::formats::gdb::{frame_count, rules as gt};
use tracelint::reader::Endian;
use tracelint::{check_bytes, CheckOptions, Finding, Severity, Sink};

fn check_opts(data: &[u8], opts: &CheckOptions) -> (Vec<Finding>, Option<u64>) {
    let mut sink = Sink::new(10_000);
    let (_, map) = check_bytes(data, opts, &mut sink);
    let (f, _) = sink.into_parts();
    for x in &f {
        assert!(
            x.offset + x.length <= data.len() as u64,
            "{} span outside input: {}",
            x.rule.code,
            x.message
        );
    }
    (f, frame_count(&map))
}

fn check(data: &[u8]) -> Vec<Finding> {
    check_opts(data, &CheckOptions::default()).0
}

fn dump(f: &[Finding]) -> String {
    f.iter()
        .map(|f| {
            format!(
                "  {} {} {}..{}: {}\n",
                f.severity,
                f.rule.code,
                f.offset,
                f.offset + f.length,
                f.message
            )
        })
        .collect()
}

#[track_caller]
fn expect(f: &[Finding], rule: &tracelint::registry::Rule, span: Range<u64>) {
    assert!(
        f.iter().any(|x| x.rule == rule && x.span() == span),
        "expected {} at {}..{}, got:\n{}",
        rule.code,
        span.start,
        span.end,
        dump(f)
    );
}

#[track_caller]
fn expect_code(f: &[Finding], rule: &tracelint::registry::Rule) {
    assert!(
        f.iter().any(|x| x.rule == rule),
        "expected {}, got:\n{}",
        rule.code,
        dump(f)
    );
}

#[track_caller]
fn no_errors(f: &[Finding]) {
    let e: Vec<Finding> = f
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .cloned()
        .collect();
    assert!(e.is_empty(), "unexpected errors:\n{}", dump(&e));
}

#[track_caller]
fn clean(f: &[Finding]) {
    let e: Vec<Finding> = f
        .iter()
        .filter(|f| f.severity != Severity::Info)
        .cloned()
        .collect();
    assert!(e.is_empty(), "unexpected findings:\n{}", dump(&e));
}

fn corpus_files() -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(common::corpus("gdb"))
        .expect("corpus/gdb")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "tf"))
        .collect();
    v.sort();
    assert!(v.len() >= 6, "corpus/gdb has {} files", v.len());
    v
}

#[test]
fn real_corpus_files_have_no_errors() {
    for p in corpus_files() {
        let data = std::fs::read(&p).unwrap();
        let (f, frames) = check_opts(&data, &CheckOptions::default());
        clean(&f);
        assert!(frames.is_some(), "{}: no frame count", p.display());
    }
}

#[test]
fn real_corpus_frame_counts() {
    let want = [
        ("circular-wrapped.tf", 2),
        ("empty.tf", 0),
        ("memory.tf", 4),
        ("multi.tf", 16),
        ("regs.tf", 12),
        ("tsv.tf", 12),
    ];
    for (name, n) in want {
        let data = std::fs::read(common::corpus("gdb").join(name)).unwrap();
        let (f, frames) = check_opts(&data, &CheckOptions::default());
        assert_eq!(frames, Some(n), "{name}:\n{}", dump(&f));
    }
}

#[test]
fn real_quirks_are_named() {
    let data = std::fs::read(common::corpus("gdb/regs.tf")).unwrap();
    let f = check(&data);
    expect_code(&f, &gt::DECIMAL_TP_STATUS);
    let data = std::fs::read(common::corpus("gdb/circular-wrapped.tf")).unwrap();
    let f = check(&data);
    expect_code(&f, &gt::CIRCULAR_BUFFER_WRAPPED);
}

#[test]
fn defect_fast_tracepoint() {
    let data = std::fs::read(common::corpus("gdb/defects/fast.tf")).unwrap();
    let (f, frames) = check_opts(&data, &CheckOptions::default());
    no_errors(&f);
    let x = f
        .iter()
        .find(|x| x.rule == &gt::FAST_TRACEPOINT_REGISTER_BLOCK)
        .unwrap_or_else(|| panic!("no GT049:\n{}", dump(&f)));
    assert!(x.message.contains("2500"), "{}", x.message);
    assert!(x.message.contains("2420"), "{}", x.message);
    assert!(x.message.contains("12 frame"), "{}", x.message);
    assert_eq!(frames, Some(12));
}

#[test]
fn defect_circular_corrupt() {
    let data = std::fs::read(common::corpus("gdb/defects/circular-corrupt.tf")).unwrap();
    let f = check(&data);
    expect_code(&f, &gt::CORRUPT_CIRCULAR_IMAGE);
    expect_code(&f, &gt::UNKNOWN_BLOCK_TYPE);
    expect_code(&f, &gt::DATA_AFTER_END_MARKER);
    expect_code(&f, &gt::BUFFER_USAGE_INCONSISTENT);
    assert!(f.iter().any(|x| x.severity == Severity::Error));
}

#[test]
fn sample_is_clean() {
    let b = Sample::new(5).build();
    let (f, n) = check_opts(&b.bytes, &CheckOptions::default());
    clean(&f);
    assert_eq!(n, Some(5));
    let mut s = Sample::new(3);
    s.endian = Endian::Big;
    s.tdesc.clear();
    let b = s.build();
    let (f, n) = check_opts(&b.bytes, &CheckOptions::default());
    clean(&f);
    assert_eq!(n, Some(3));
    let x = f.iter().find(|x| x.rule == &gt::BYTE_ORDER).unwrap();
    assert!(x.message.contains("big-endian"), "{}", x.message);
}

#[test]
fn sweep_corpus() {
    for p in corpus_files().into_iter().chain([
        common::corpus("gdb/defects/fast.tf"),
        common::corpus("gdb/defects/circular-corrupt.tf"),
    ]) {
        let data = std::fs::read(&p).unwrap();
        let bad = common::sweep(&data, 150);
        assert!(bad > 0, "{}: no sweep case gave an error", p.display());
    }
}

#[test]
fn fixture_tframes_mismatch() {
    let mut s = Sample::new(3);
    s.status = StatusLine::Custom("0;tstop::0;tframes:7;tcreated:7".into());
    let b = s.build();
    let f = check(&b.bytes);
    expect(&f, &gt::TFRAMES_MISMATCH, b.field("status ", "tframes:7"));
}

#[test]
fn fixture_unknown_block_type() {
    let mut s = Sample::new(2);
    s.frames[1] = SampleFrame {
        tpnum: 2,
        blocks: vec![SampleBlock::R(32), SampleBlock::Raw(b"Q".to_vec())],
        size: None,
    };
    let b = s.build();
    let f = check(&b.bytes);
    let q = b.blocks[1][1].clone();
    expect(&f, &gt::UNKNOWN_BLOCK_TYPE, q.start..q.start + 1);
}
