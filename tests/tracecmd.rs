//! trace-cmd trace.dat validator: corpus files, fixtures per rule, crash inputs, sweeps,
//! and a differential test against `trace-cmd report`.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use std::path::PathBuf;
use tracelint::formats::tracecmd::writer::{Builder, Compression, Layout};
use tracelint::{check_bytes, CheckOptions, Finding, Severity, Sink};

fn corpus_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(common::corpus("tracecmd"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "dat"))
        .collect();
    v.sort();
    v
}

fn run(data: &[u8]) -> Vec<Finding> {
    common::check(data, &CheckOptions::default())
}

use common::show;

#[test]
fn corpus_has_no_errors() {
    for p in corpus_files() {
        let data = std::fs::read(&p).unwrap();
        let f = run(&data);
        eprintln!("== {}\n{}", p.display(), show(&f));
        assert!(
            !f.iter().any(|f| f.severity == Severity::Error),
            "{}: {}",
            p.display(),
            show(&f)
        );
        // trace-cmd 3.1.6 writes compressed CPU sizes 4 bytes short: TD036 is info.
        let warnings: std::collections::BTreeSet<&str> = f
            .iter()
            .filter(|f| f.severity == Severity::Warning)
            .map(|f| f.rule.code)
            .collect();
        assert!(warnings.is_empty(), "{}: {}", p.display(), show(&f));
        // Info expected: TD036 on every compressed file of trace-cmd 3.1.6, TD113 (lost
        // events, which the kernel recorded and readers report) where the capture lost some.
        let name = p.file_name().unwrap().to_string_lossy();
        let mut expected: std::collections::BTreeSet<&str> = Default::default();
        if name.contains("zstd") {
            expected.insert("TD036");
        }
        if name.starts_with("lost") {
            expected.insert("TD113");
        }
        // TD073: zlib, which trace-cmd builds without zlib cannot read.
        if common::tracedat_compression(&data).as_deref() == Some("zlib") {
            expected.insert("TD073");
        }
        let all: std::collections::BTreeSet<&str> = f.iter().map(|f| f.rule.code).collect();
        assert_eq!(all, expected, "{}: {}", p.display(), show(&f));
    }
}

// ------------------------------------------------------------------------------------------
// Helpers for fixtures

fn run_tc(data: &[u8]) -> Vec<Finding> {
    let opts = CheckOptions {
        format_hint: Some(tracelint::formats::tracecmd::FORMAT),
        ..CheckOptions::default()
    };
    let mut sink = Sink::with_limits(&opts.limits);
    let _ = check_bytes(data, &opts, &mut sink);
    let f = sink.into_parts().0;
    for x in &f {
        assert!(
            x.offset + x.length <= data.len() as u64,
            "span outside input: {}",
            show(std::slice::from_ref(x))
        );
    }
    f
}

#[track_caller]
fn expect(f: &[Finding], code: &str, span: std::ops::Range<usize>) {
    assert!(
        f.iter().any(|x| x.rule.code == code
            && x.offset == span.start as u64
            && x.length == (span.end - span.start) as u64),
        "expected {code} at {}+{}; got:\n{}",
        span.start,
        span.end - span.start,
        show(f)
    );
}

#[track_caller]
fn expect_code(f: &[Finding], code: &str) {
    assert!(
        f.iter().any(|x| x.rule.code == code),
        "expected {code}; got:\n{}",
        show(f)
    );
}

#[track_caller]
fn clean(f: &[Finding]) {
    assert!(
        !f.iter().any(|x| x.severity >= Severity::Warning),
        "expected no findings, got:\n{}",
        show(f)
    );
}

fn find(data: &[u8], needle: &[u8]) -> usize {
    data.windows(needle.len())
        .position(|w| w == needle)
        .unwrap()
}

fn span(l: &Layout, name: &str) -> std::ops::Range<usize> {
    let s = l
        .get(name)
        .unwrap_or_else(|| panic!("no {name} in {:?}", l.spans));
    s.start as usize..s.end as usize
}

fn put32(d: &mut [u8], at: usize, v: u32) {
    d[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
fn put64(d: &mut [u8], at: usize, v: u64) {
    d[at..at + 8].copy_from_slice(&v.to_le_bytes());
}
fn get64(d: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(d[at..at + 8].try_into().unwrap())
}

fn v6() -> (Vec<u8>, Layout) {
    Builder::new(6, Compression::None).build()
}
fn v7n() -> (Vec<u8>, Layout) {
    Builder::new(7, Compression::None).build()
}
fn v7z() -> (Vec<u8>, Layout) {
    Builder::new(7, Compression::Zstd).build()
}

// ------------------------------------------------------------------------------------------
// Writer output is valid in every variant

fn codes(f: &[Finding]) -> Vec<&'static str> {
    f.iter().map(|f| f.rule.code).collect()
}

/// What a clean file of the writer gets: nothing, or with zlib the one TD073 info (trace-cmd
/// builds without zlib cannot read it).
fn zlib_note(c: Compression) -> Vec<&'static str> {
    if c == Compression::Zlib {
        vec!["TD073"]
    } else {
        Vec::new()
    }
}

#[test]
fn writer_files_are_clean() {
    for v in [6u8, 7] {
        for c in [Compression::None, Compression::Zstd, Compression::Zlib] {
            if v == 6 && c != Compression::None {
                continue;
            }
            for inst in [false, true] {
                for endian in [
                    tracelint::reader::Endian::Little,
                    tracelint::reader::Endian::Big,
                ] {
                    let mut b = Builder::new(v, c);
                    if endian == tracelint::reader::Endian::Big {
                        b.endian = endian;
                        let pg = |ts| {
                            tracelint::formats::tracecmd::writer::page(
                                4096,
                                8,
                                endian,
                                ts,
                                &[(316, 12)],
                            )
                        };
                        b.buffers[0].cpus = vec![(0, pg(5)), (1, pg(6))];
                    }
                    if inst {
                        b = b.with_instance("foo");
                    }
                    let (d, _) = b.build();
                    let f = run_tc(&d);
                    assert_eq!(
                        codes(&f),
                        zlib_note(c),
                        "v{v} {c:?} inst={inst} {endian:?}:\n{}",
                        show(&f)
                    );
                }
            }
        }
    }
    // Latency files.
    for (v, c) in [
        (6u8, Compression::None),
        (7, Compression::None),
        (7, Compression::Zstd),
        (7, Compression::Zlib),
    ] {
        let mut b = Builder::new(v, c);
        b.latency = Some(b"# tracer: wakeup\n#\n  <idle>-0  0d... 1us : foo\n".to_vec());
        let (d, _) = b.build();
        let f = run_tc(&d);
        assert_eq!(codes(&f), zlib_note(c), "latency v{v} {c:?}:\n{}", show(&f));
    }
}

#[test]
fn writer_summary_counts_events() {
    for (d, _) in [
        v6(),
        v7n(),
        v7z(),
        Builder::new(7, Compression::Zlib).build(),
    ] {
        let s = tracelint::formats::tracecmd::summarize(&d, &CheckOptions::default());
        assert_eq!(s.len(), 2);
        assert!(s.iter().all(|c| c.pages == 1), "{s:?}");
    }
}

// ------------------------------------------------------------------------------------------
// Header rules

#[test]
fn td001_bad_magic() {
    let (mut d, _) = v6();
    d[9] = b'X';
    let f = run_tc(&d);
    expect(&f, "TD001", 0..10);
}

#[test]
fn td002_unsupported_version() {
    let (mut d, l) = v6();
    d[l.at("version")] = b'8';
    expect(&run_tc(&d), "TD002", span(&l, "version"));
}

#[test]
fn td003_bad_endian() {
    let (mut d, l) = v6();
    d[l.at("endian")] = 2;
    expect(&run_tc(&d), "TD003", span(&l, "endian"));
}

#[test]
fn td004_bad_long_size() {
    let (mut d, l) = v6();
    d[l.at("long size")] = 5;
    expect(&run_tc(&d), "TD004", span(&l, "long size"));
}

#[test]
fn td005_bad_page_size_zero_is_reported_not_a_crash() {
    let (mut d, l) = v7n();
    put32(&mut d, l.at("page size"), 0);
    expect(&run_tc(&d), "TD005", span(&l, "page size"));
    put32(&mut d, l.at("page size"), 5000);
    expect(&run_tc(&d), "TD005", span(&l, "page size"));
}

#[test]
fn td006_bad_compression() {
    let (mut d, l) = v7z();
    d[l.at("compression") + 3] = b'x';
    expect(&run_tc(&d), "TD006", span(&l, "compression"));
    let (mut d, l) = v7n();
    // "none" with a version: rebuild the header bytes by hand.
    let at = l.at("compression version");
    d.insert(at, b'1');
    let f = run_tc(&d);
    expect(&f, "TD006", at..at + 2);
}

#[test]
fn td007_truncated() {
    let (d, l) = v6();
    let at = l.at("cpu count") + 2;
    let f = run_tc(&d[..at]);
    expect(&f, "TD007", at - 2..at);
}

#[test]
fn td008_bad_options_offset() {
    let (mut d, l) = v7n();
    put64(&mut d, l.at("first options"), 0);
    expect(&run_tc(&d), "TD008", span(&l, "first options"));
    put64(&mut d, l.at("first options"), l.at("section 17") as u64);
    expect(&run_tc(&d), "TD008", span(&l, "first options"));
}

// ------------------------------------------------------------------------------------------
// v7 sections

fn append_section(d: &mut Vec<u8>, id: u16, size: u64) -> std::ops::Range<usize> {
    let at = d.len();
    d.extend_from_slice(&id.to_le_bytes());
    d.extend_from_slice(&0u16.to_le_bytes());
    d.extend_from_slice(&u32::MAX.to_le_bytes());
    d.extend_from_slice(&size.to_le_bytes());
    d.resize(d.len() + size as usize, 0);
    at..at + 16
}

#[test]
fn td010_section_walk() {
    let (mut d, l) = v7n();
    let s = l.at("section 16");
    put64(&mut d, s + 8, 1 << 40);
    expect(&run_tc(&d), "TD010", s..s + 16);
}

#[test]
fn td011_unknown_section_and_td014_unreferenced() {
    let (mut d, _) = v7n();
    let s = append_section(&mut d, 99, 4);
    let f = run_tc(&d);
    expect(&f, "TD011", s.clone());
    expect(&f, "TD014", s);
}

#[test]
fn td014_duplicate_section() {
    let (mut d, _) = v7n();
    let s = append_section(&mut d, 20, 0);
    expect(&run_tc(&d), "TD014", s);
}

#[test]
fn td012_section_flags() {
    let (mut d, l) = v7n();
    let s = l.at("section 16");
    d[s + 2] = 2;
    let f = run_tc(&d);
    expect(&f, "TD071", s + 2..s + 4);
    assert!(
        !f.iter().any(|x| x.severity == Severity::Error),
        "{}",
        show(&f)
    );
    // compressed flag in a `none` file
    d[s + 2] = 1;
    expect(&run_tc(&d), "TD012", s + 2..s + 4);
}

#[test]
fn td013_bad_string_id() {
    let (mut d, l) = v7n();
    let s = l.at("section 16");
    put32(&mut d, s + 4, 3);
    expect(&run_tc(&d), "TD013", s + 4..s + 8);
}

#[test]
fn td015_section_mismatch() {
    let (mut d, l) = v7n();
    let o = span(&l, "option HEADER_INFO");
    put64(&mut d, o.start + 6, l.at("section 17") as u64);
    expect(&run_tc(&d), "TD015", o.clone());
    put64(&mut d, o.start + 6, l.at("section 17") as u64 + 1);
    expect(&run_tc(&d), "TD015", o);
}

#[test]
fn td016_section_size() {
    let (mut d, l) = v7n();
    let t = span(&l, "cmdlines text");
    let size_at = t.start - 8;
    put64(&mut d, size_at, (t.len() - 2) as u64);
    expect(&run_tc(&d), "TD016", t.end - 2..t.end);
    // compressed: size != 8 + csize
    let (mut d, l) = v7z();
    let s = l.at("section 21");
    let csize = u32::from_le_bytes(d[s + 16..s + 20].try_into().unwrap());
    put32(&mut d, s + 16, csize - 1);
    expect(&run_tc(&d), "TD016", s + 16..s + 20);
}

#[test]
fn td017_decompress_failed() {
    for c in [Compression::Zstd, Compression::Zlib] {
        let (mut d, l) = Builder::new(7, c).build();
        let s = span(&l, "section 17");
        d[s.start + 16 + 8] ^= 0xff;
        d[s.start + 16 + 9] ^= 0xff;
        expect(&run_tc(&d), "TD017", s.start + 16..s.end);
    }
}

#[test]
fn td018_decompressed_size() {
    for c in [Compression::Zstd, Compression::Zlib] {
        for delta in [1i64, -1] {
            let (mut d, l) = Builder::new(7, c).build();
            let s = span(&l, "section 16");
            let u = u32::from_le_bytes(d[s.start + 20..s.start + 24].try_into().unwrap());
            put32(&mut d, s.start + 20, (i64::from(u) + delta) as u32);
            let f = run_tc(&d);
            if delta > 0 {
                // The block fits the max(usize, csize) buffer trace-cmd decompresses into.
                expect(&f, "TD018", s.start + 20..s.start + 24);
                assert!(f
                    .iter()
                    .all(|x| x.rule.code != "TD018" || x.severity == tracelint::Severity::Warning));
            } else {
                expect(&f, "TD018", s.start + 16..s.end);
            }
        }
    }
}

// ------------------------------------------------------------------------------------------
// Options

#[test]
fn td021_option_layout_huge_size() {
    let (mut d, l) = v7n();
    let o = l.at("option UNAME");
    put32(&mut d, o + 2, 0xFFFF_FFF0);
    expect(&run_tc(&d), "TD021", o..o + 6);
    let (mut d, l) = v6();
    let o = l.at("option UNAME");
    put32(&mut d, o + 2, 0xFFFF_FFF0);
    expect(&run_tc(&d), "TD021", o..o + 6);
}

#[test]
fn td022_options_chain_loop_is_reported_not_a_crash() {
    let (mut d, l) = v7n();
    let done = l
        .spans
        .iter()
        .filter(|(n, _)| n == "option DONE")
        .map(|(_, s)| s.clone())
        .next_back()
        .unwrap();
    put64(&mut d, done.start as usize + 6, l.at("section 0") as u64);
    expect(
        &run_tc(&d),
        "TD022",
        done.start as usize + 6..done.end as usize,
    );
    // points into nowhere
    put64(&mut d, done.start as usize + 6, 12345);
    expect(
        &run_tc(&d),
        "TD022",
        done.start as usize + 6..done.end as usize,
    );
}

fn with_option(v: u8, id: u16, payload: &[u8]) -> (Vec<u8>, std::ops::Range<usize>) {
    let mut b = Builder::new(v, Compression::None);
    b.options.push((id, payload.to_vec()));
    let (d, l) = b.build();
    let name = tracelint::formats::tracecmd::model::opt_id::name(id);
    let s = l
        .spans
        .iter()
        .filter(|(n, _)| n == &format!("option {name}"))
        .map(|(_, s)| s.clone())
        .next_back()
        .unwrap();
    (d, s.start as usize..s.end as usize)
}

#[test]
fn td023_option_size() {
    for v in [6, 7] {
        let (d, s) = with_option(v, 11, &[1, 2, 3, 4]);
        expect(&run_tc(&d), "TD023", s);
        let (d, s) = with_option(v, 14, &[1; 8]);
        expect(&run_tc(&d), "TD023", s);
    }
}

#[test]
fn td024_option_string_cpustat_size_zero_is_reported_not_a_crash() {
    for v in [6, 7] {
        let (d, s) = with_option(v, 2, b"");
        expect(&run_tc(&d), "TD024", s);
        let (d, s) = with_option(v, 5, b"Linux");
        expect(&run_tc(&d), "TD024", s);
        let (d, s) = with_option(v, 10, b"");
        expect(&run_tc(&d), "TD024", s);
        let (d, s) = with_option(v, 9, b"a\0b\0");
        expect(&run_tc(&d), "TD024", s);
    }
}

#[test]
fn td025_unknown_option() {
    let (d, s) = with_option(7, 77, b"x");
    let f = run_tc(&d);
    expect(&f, "TD025", s);
    assert!(
        !f.iter().any(|x| x.severity == Severity::Error),
        "{}",
        show(&f)
    );
}

#[test]
fn td026_option_payload() {
    let cases: Vec<(u16, Vec<u8>)> = vec![
        (6, b"garbage\0".to_vec()), // HOOK: segfaults trace-cmd 3.1.6
        (1, b"12abc\0".to_vec()),   // DATE
        (7, b"0x\0".to_vec()),      // OFFSET
        (10, b"1f 2 bash\n7f00 7f10 /lib/x.so\n\0".to_vec()), // PROCMAPS: 2 libs announced, 1 given
        (4, b"local global\0".to_vec()), // TRACECLOCK without [..]
        (14, [0u8; 16].to_vec()),   // TSC2NSEC mult 0
        // TIME_SHIFT with a huge cpu count
        (
            12,
            [
                &1u64.to_le_bytes()[..],
                &0u32.to_le_bytes(),
                &0xFFFF_FFFFu32.to_le_bytes(),
            ]
            .concat(),
        ),
        // TIME_SHIFT with n = 0
        (
            12,
            [
                &1u64.to_le_bytes()[..],
                &0u32.to_le_bytes(),
                &1u32.to_le_bytes(),
                &0u32.to_le_bytes(),
            ]
            .concat(),
        ),
        // GUEST with an out-of-range (negative) cpu
        (
            13,
            [
                &b"vm\0"[..],
                &7u64.to_le_bytes(),
                &1u32.to_le_bytes(),
                &(-1i32).to_le_bytes(),
                &5u32.to_le_bytes(),
            ]
            .concat(),
        ),
        // GUEST without a NUL in the name
        (13, b"vmvmvmvm".to_vec()),
    ];
    for (id, p) in cases {
        for v in [6, 7] {
            let (d, s) = with_option(v, id, &p);
            expect(&run_tc(&d), "TD026", s.start + 6..s.end);
        }
    }
    // Valid structured options are accepted.
    let good: Vec<(u16, Vec<u8>)> = vec![
        (
            6,
            b"sched:sched_switch,prev_pid/sched:sched_wakeup,pid\0".to_vec(),
        ),
        (1, b"0x1234\0".to_vec()),
        (7, b"-42\0".to_vec()),
        (10, b"1f 1 bash\n7f00 7f10 /lib/x.so\n\0".to_vec()),
        (
            14,
            [
                &1000u32.to_le_bytes()[..],
                &10u32.to_le_bytes(),
                &0u64.to_le_bytes(),
            ]
            .concat(),
        ),
        (
            12,
            [
                &1u64.to_le_bytes()[..],
                &0u32.to_le_bytes(),
                &1u32.to_le_bytes(),
                &1u32.to_le_bytes(),
                &[0u8; 24],
            ]
            .concat(),
        ),
        (
            13,
            [
                &b"vm\0"[..],
                &7u64.to_le_bytes(),
                &1u32.to_le_bytes(),
                &0u32.to_le_bytes(),
                &5u32.to_le_bytes(),
            ]
            .concat(),
        ),
    ];
    for (id, p) in good {
        let (d, _) = with_option(7, id, &p);
        clean(&run_tc(&d));
    }
}

#[test]
fn td027_duplicate_option() {
    let (d, s) = with_option(7, 5, b"Linux other\0");
    expect(&run_tc(&d), "TD027", s);
}

#[test]
fn td028_cpu_count() {
    let (mut d, l) = v6();
    put32(&mut d, l.at("cpu count"), 3);
    expect(&run_tc(&d), "TD028", span(&l, "cpu count"));
    // v7: CPU id not below CPUCOUNT
    let (mut d, l) = v7n();
    let e = span(&l, "cpu 1 entry");
    put32(&mut d, e.start, 7);
    expect(&run_tc(&d), "TD028", e);
}

#[test]
fn td030_missing_metadata() {
    let (mut d, l) = v7n();
    let o = l.at("option PRINTK");
    d[o] = 26; // becomes an unknown option: no PRINTK reference
    let f = run_tc(&d);
    let s = l.at("section 0");
    expect(&f, "TD030", s..s + 16);
    expect_code(&f, "TD025");
}

// ------------------------------------------------------------------------------------------
// Buffers and CPU data

#[test]
fn td031_buffer_option() {
    let (mut d, l) = v7n();
    let e = span(&l, "cpu 1 entry");
    put32(&mut d, e.start, 0);
    expect(&run_tc(&d), "TD031", e.start..e.start + 4);
    // v6 instance BUFFER offset not at a flyrecord tag
    let (mut d, l) = Builder::new(6, Compression::None)
        .with_instance("foo")
        .build();
    let o = span(&l, "option BUFFER foo");
    let at = o.start + 6;
    let v = get64(&d, at);
    put64(&mut d, at, v + 1);
    expect(&run_tc(&d), "TD031", o);
    // duplicate buffer names
    let (d, l) = Builder::new(7, Compression::None)
        .with_instance("foo")
        .with_instance("foo")
        .build();
    let second = l
        .spans
        .iter()
        .filter(|(n, _)| n == "option BUFFER foo")
        .nth(1)
        .unwrap()
        .1
        .clone();
    expect(
        &run_tc(&d),
        "TD031",
        second.start as usize..second.end as usize,
    );
}

#[test]
fn td032_cpu_data_unaligned() {
    for (d, l) in [v7n(), v6(), v7z()] {
        let mut d = d;
        let e = span(&l, "cpu 0 entry");
        let off_at = if e.len() == 20 { e.start + 4 } else { e.start };
        let v = get64(&d, off_at);
        put64(&mut d, off_at, v + 8);
        expect(&run_tc(&d), "TD032", e);
    }
}

#[test]
fn td033_cpu_data_range_wrap() {
    for (d, l) in [v7n(), v6()] {
        let mut d = d;
        let e = span(&l, "cpu 1 entry");
        let size_at = if e.len() == 20 {
            e.start + 12
        } else {
            e.start + 8
        };
        put64(&mut d, size_at, u64::MAX - 4000); // offset + size wraps
        expect(&run_tc(&d), "TD033", e.clone());
        put64(&mut d, size_at, 1 << 30);
        expect(&run_tc(&d), "TD033", e);
    }
}

#[test]
fn td034_cpu_data_overlap() {
    for (d, l) in [v7n(), v6()] {
        let mut d = d;
        let e0 = span(&l, "cpu 0 entry");
        let e1 = span(&l, "cpu 1 entry");
        let (o0, o1) = if e0.len() == 20 {
            (e0.start + 4, e1.start + 4)
        } else {
            (e0.start, e1.start)
        };
        let v = get64(&d, o0);
        put64(&mut d, o1, v);
        expect(&run_tc(&d), "TD034", e1);
    }
    // v6 data over the metadata
    let (mut d, l) = v6();
    let e = span(&l, "cpu 0 entry");
    put64(&mut d, e.start, 0);
    expect(&run_tc(&d), "TD034", e);
}

#[test]
fn td035_cpu_data_size() {
    for (d, l) in [v7n(), v6()] {
        let mut d = d;
        let e = span(&l, "cpu 0 entry");
        let size_at = if e.len() == 20 {
            e.start + 12
        } else {
            e.start + 8
        };
        put64(&mut d, size_at, 4000);
        expect(&run_tc(&d), "TD035", e);
    }
    // a compressed chunk that is not whole pages
    let mut b = Builder::new(7, Compression::Zstd);
    b.pages_per_chunk = 1;
    let two = [
        tracelint::formats::tracecmd::writer::page(4096, 8, b.endian, 1, &[(316, 12)]),
        tracelint::formats::tracecmd::writer::page(4096, 8, b.endian, 2, &[(316, 12)]),
    ]
    .concat();
    b.buffers[0].cpus[0].1 = two[..6000].to_vec();
    let (d, l) = b.build();
    let data = span(&l, "cpu 0 data");
    let f = run_tc(&d);
    expect_code(&f, "TD035");
    assert!(
        f.iter()
            .any(|x| x.rule.code == "TD035" && x.offset >= data.start as u64),
        "{}",
        show(&f)
    );
}

#[test]
fn td036_compressed_size_quirk() {
    for c in [Compression::Zstd, Compression::Zlib] {
        let mut b = Builder::new(7, c);
        b.quirk_short4 = true;
        let (d, l) = b.build();
        let f = run_tc(&d);
        expect(&f, "TD036", span(&l, "cpu 0 entry"));
        assert!(
            !f.iter().any(|x| x.severity == Severity::Error),
            "{}",
            show(&f)
        );
    }
}

#[test]
fn td037_chunk_stream() {
    // chunk count 0
    let (mut d, l) = v7z();
    let s = l.at("cpu 0 data");
    put32(&mut d, s, 0);
    expect(&run_tc(&d), "TD037", s..s + 4);
    // huge chunk count (trace-cmd: ENOMEM)
    put32(&mut d, s, 0x4000_0000);
    expect(&run_tc(&d), "TD037", s..s + 4);
    // declared size off by more than the quirk
    let (mut d, l) = v7z();
    let e = span(&l, "cpu 0 entry");
    let v = get64(&d, e.start + 12);
    put64(&mut d, e.start + 12, v - 9);
    expect(&run_tc(&d), "TD037", e);
    // chunk zsize past the section
    let (mut d, l) = v7z();
    let s = l.at("cpu 1 data");
    put32(&mut d, s + 4, 1 << 30);
    expect(&run_tc(&d), "TD037", s + 4..s + 12);
}

#[test]
fn td017_td018_cpu_chunks() {
    for c in [Compression::Zstd, Compression::Zlib] {
        // usize too large (trace-cmd parses uninitialised memory as pages)
        let (mut d, l) = Builder::new(7, c).build();
        let s = span(&l, "cpu 0 data");
        put32(&mut d, s.start + 8, 8192);
        expect(&run_tc(&d), "TD018", s.start + 4..s.end);
        // corrupt chunk
        let (mut d, l) = Builder::new(7, c).build();
        let s = span(&l, "cpu 0 data");
        d[s.start + 12] ^= 0xff;
        d[s.start + 13] ^= 0xff;
        expect(&run_tc(&d), "TD017", s.start + 4..s.end);
    }
}

#[test]
fn td039_nonzero_padding() {
    let (mut d, l) = v7n();
    let sec = l.at("buffer section");
    let data = l.at("cpu 0 data");
    d[sec + 20] = 0xAA;
    expect(&run_tc(&d), "TD039", sec + 20..data);
    let (mut d, l) = v6();
    let clk = span(&l, "clock record");
    let data = l.at("cpu 0 data");
    d[clk.end + 3] = 1;
    expect(&run_tc(&d), "TD039", clk.end + 3..data);
}

#[test]
fn td040_trailing_data() {
    let (mut d, _) = v6();
    let n = d.len();
    d.extend_from_slice(b"junk");
    expect(&run_tc(&d), "TD040", n..n + 4);
}

#[test]
fn v6_empty_cpu_past_eof_is_accepted() {
    let mut b = Builder::new(6, Compression::None);
    b.buffers[0].cpus[1].1.clear();
    let (mut d, l) = b.build();
    let e = span(&l, "cpu 1 entry");
    let past = d.len() as u64 + 8192;
    put64(&mut d, e.start, past);
    clean(&run_tc(&d));
    // v7 BUFFER listing only CPUs with data
    let mut b = Builder::new(7, Compression::None);
    b.buffers[0].cpus.remove(0);
    let (d, _) = b.build();
    clean(&run_tc(&d));
}

// ------------------------------------------------------------------------------------------
// v6 tags and clock

#[test]
fn td041_bad_tag() {
    let (mut d, l) = v6();
    let s = l.at("item 16");
    d[s + 3] = b'X';
    expect(&run_tc(&d), "TD041", s..s + 12);
    let (mut d, l) = v6();
    let t = span(&l, "data tag");
    d[t.start] = b'g';
    expect(&run_tc(&d), "TD041", t);
    // trace-cmd compares only `options` and `flyrecord`: a different tail is TD072, a warning.
    let (mut d, l) = v6();
    let o = span(&l, "options tag");
    d[o.start + 7] = b'X';
    let t = span(&l, "data tag");
    d[t.end - 1] = b'!';
    let f = run_tc(&d);
    expect(&f, "TD072", o);
    expect(&f, "TD072", t);
    assert!(
        !f.iter().any(|x| x.severity == Severity::Error),
        "{}",
        show(&f)
    );
}

#[test]
fn td043_clock_record() {
    let (mut d, l) = v6();
    let c = span(&l, "clock record");
    d[c.start + 9] = b'x';
    expect(&run_tc(&d), "TD043", c);
}

// ------------------------------------------------------------------------------------------
// Metadata text

fn meta_variant(v: u8, f: impl Fn(&mut Builder)) -> Vec<u8> {
    let mut b = Builder::new(v, Compression::None);
    f(&mut b);
    b.build().0
}

#[test]
fn td050_header_page() {
    for v in [6, 7] {
        let d = meta_variant(v, |b| b.header_page = b.header_page.clone().replace_size());
        let line = b"\tfield: local_t commit;\toffset:8;\tsize:3;\tsigned:1;";
        let at = find(&d, line);
        expect(&run_tc(&d), "TD050", at..at + line.len());
        let d = meta_variant(v, |b| {
            b.header_page = b"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n".to_vec()
        });
        let at = find(&d, b"\tfield: u64 timestamp");
        expect(&run_tc(&d), "TD050", at..at + 51);
    }
}

trait ReplaceSize {
    fn replace_size(self) -> Vec<u8>;
}
impl ReplaceSize for Vec<u8> {
    fn replace_size(self) -> Vec<u8> {
        String::from_utf8(self)
            .unwrap()
            .replace("commit;\toffset:8;\tsize:8;", "commit;\toffset:8;\tsize:3;")
            .into_bytes()
    }
}

#[test]
fn td051_header_page_mismatch() {
    let d = meta_variant(6, |b| {
        b.header_page = tracelint::formats::tracecmd::writer::header_page_text(8, 8192)
    });
    let t = find(&d, b"\tfield: u64 timestamp");
    let len = tracelint::formats::tracecmd::writer::header_page_text(8, 8192).len();
    expect(&run_tc(&d), "TD051", t..t + len);
}

#[test]
fn td052_header_event() {
    let d = meta_variant(6, |b| b.header_event = b"# nothing\n".to_vec());
    let t = find(&d, b"# nothing");
    expect(&run_tc(&d), "TD052", t..t + 10);
}

#[test]
fn td053_event_format() {
    for v in [6, 7] {
        let text = b"name: foo\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\nprint fmt: \"\"\n".to_vec();
        let d = meta_variant(v, |b| b.systems[0].1.push(text.clone()));
        // No `ID:` line: libtraceevent gives up at `format:`, which comes before it.
        let at = find(&d, b"name: foo\nformat:") + b"name: foo\n".len();
        expect(&run_tc(&d), "TD053", at..at + b"format".len());
        let text =
            b"name: foo\nID: 9\nformat:\n\tfield:int x;\toffset:zz;\tsize:2;\n\nprint fmt: \"\"\n"
                .to_vec();
        let d = meta_variant(v, |b| b.systems[0].1.push(text.clone()));
        let at = find(&d, b"\tfield:int x;");
        expect(&run_tc(&d), "TD053", at..at + 32);
    }
}

#[test]
fn td054_event_fields() {
    let text = tracelint::formats::tracecmd::writer::format_text("foo", 77, &[("a", 4, 4)]);
    let d = meta_variant(6, |b| b.systems[0].1.push(text.clone()));
    let at = find(&d, b"\tfield:int a;");
    let line = b"\tfield:int a;\toffset:4;\tsize:4;\tsigned:1;";
    expect(&run_tc(&d), "TD054", at..at + line.len());
    let text = b"name: bar\nID: 78\nformat:\n\tfield:int x;\toffset:0;\tsize:4;\tsigned:1;\n\nprint fmt: \"\"\n".to_vec();
    let d = meta_variant(6, |b| b.systems[0].1.push(text.clone()));
    let at = find(&d, b"\tfield:int x;");
    expect(&run_tc(&d), "TD054", at..at + 41);
}

#[test]
fn td055_duplicate_event_id() {
    let text = tracelint::formats::tracecmd::writer::format_text("other", 316, &[]);
    let d = meta_variant(7, |b| b.systems.push(("irq".into(), vec![text.clone()])));
    let at = find(&d, b"name: other\nID: 316") + 12;
    expect(&run_tc(&d), "TD055", at..at + 7);
    let d = meta_variant(6, |b| b.systems.push(("sched".into(), vec![])));
    let first = find(&d, b"sched\0");
    let second = first + 1 + find(&d[first + 1..], b"sched\0");
    expect(&run_tc(&d), "TD055", second..second + 6);
}

#[test]
fn td056_metadata_size() {
    let (mut d, l) = v6();
    let s = l.at("item 17");
    put32(&mut d, s, 1_000_000);
    expect(&run_tc(&d), "TD056", s..s + 4);
    let (mut d, l) = v6();
    let t = span(&l, "kallsyms text");
    put32(&mut d, t.start - 4, 0xFFFF_FF00);
    expect(&run_tc(&d), "TD056", t.start - 4..t.start);
}

#[test]
fn td057_td058_td059_text_lines() {
    let d = meta_variant(6, |b| b.kallsyms.extend_from_slice(b"nothex T sym\n"));
    let at = find(&d, b"nothex T sym");
    expect(&run_tc(&d), "TD057", at..at + 12);
    let d = meta_variant(7, |b| b.printk.extend_from_slice(b"0xffff thaw\n"));
    let at = find(&d, b"0xffff thaw");
    expect(&run_tc(&d), "TD058", at..at + 11);
    let d = meta_variant(6, |b| b.cmdlines.extend_from_slice(b"bash 12\n"));
    let at = find(&d, b"bash 12");
    expect(&run_tc(&d), "TD059", at..at + 7);
}

#[test]
fn td065_latency_text() {
    let mut b = Builder::new(6, Compression::None);
    b.latency = Some(b"# tracer\0 x\n".to_vec());
    let (d, l) = b.build();
    let t = l.at("latency text");
    expect(&run_tc(&d), "TD065", t + 8..t + 9);
    let mut b = Builder::new(7, Compression::Zstd);
    b.latency = Some(b"# tracer\0 x\n".to_vec());
    let (d, _) = b.build();
    expect_code(&run_tc(&d), "TD065");
}

#[test]
fn td066_bad_cpu_count() {
    let (mut d, l) = v6();
    put32(&mut d, l.at("cpu count"), 0);
    expect(&run_tc(&d), "TD066", span(&l, "cpu count"));
}

// ------------------------------------------------------------------------------------------
// §8 inputs that crash, hang or silently misread with trace-cmd 3.1.6 (those not covered by a
// rule fixture above): each gives a clear error here.

#[test]
fn crash_inputs_give_clear_errors() {
    // endian byte 2: trace-cmd prints nothing, rc 0
    let (mut d, l) = v7z();
    d[l.at("endian")] = 2;
    expect_code(&run_tc(&d), "TD003");
    // version 8
    let (mut d, l) = v7z();
    d[l.at("version")] = b'8';
    expect_code(&run_tc(&d), "TD002");
    // page size 0 in a compressed file (SIGFPE in trace-cmd)
    let (mut d, l) = v7z();
    put32(&mut d, l.at("page size"), 0);
    expect_code(&run_tc(&d), "TD005");
    // DONE self-loop (unbounded recursion in trace-cmd)
    let (mut d, l) = v7z();
    let first = l.at("section 0");
    let done = span(&l, "option DONE");
    put64(&mut d, done.start + 6, first as u64);
    expect_code(&run_tc(&d), "TD022");
    // header section size one short: trace-cmd 3.1.6–3.3.4 read the section by its own sizes
    // and read the same (checked with the reader matrix in tests/campaign.rs): a warning
    let (mut d, l) = v7n();
    let s = l.at("section 16");
    let v = get64(&d, s + 8);
    put64(&mut d, s + 8, v - 1);
    let f = run_tc(&d);
    assert!(
        f.iter()
            .any(|x| x.rule.code == "TD016" && x.severity == Severity::Warning)
            && f.iter().all(|x| x.severity != Severity::Error),
        "{}",
        show(&f)
    );
    // compressed section csize/usize wrong (trace-cmd: rc 0, empty output)
    let (mut d, l) = v7z();
    let s = l.at("section 18");
    put32(&mut d, s + 20, 5);
    expect_code(&run_tc(&d), "TD018");
}

#[test]
fn ring_data_defects_do_not_hang() {
    // padding with array[0] = 0xFFFFFFFC hangs trace-cmd 3.1.6; commit = page size; unknown id.
    for patch in [0u8, 1, 2] {
        for (v, c) in [
            (6u8, Compression::None),
            (7, Compression::None),
            (7, Compression::Zstd),
        ] {
            let mut b = Builder::new(v, c);
            let pg = &mut b.buffers[0].cpus[0].1;
            match patch {
                0 => {
                    pg[16..20].copy_from_slice(&29u32.to_le_bytes());
                    pg[20..24].copy_from_slice(&0xFFFF_FFFCu32.to_le_bytes());
                }
                1 => pg[8..16].copy_from_slice(&4096u64.to_le_bytes()),
                _ => pg[20..22].copy_from_slice(&9999u16.to_le_bytes()),
            }
            let (d, _) = b.build();
            let _ = run_tc(&d);
        }
    }
}

// ------------------------------------------------------------------------------------------
// Robustness sweeps over the real files and the writer's files

fn sweep_file(name: &str) {
    let p = common::corpus("tracecmd").join(name);
    let data = std::fs::read(&p).unwrap();
    // Bounded: the big file gets few cases (each check decompresses megabytes of metadata).
    let cases = if data.len() > 500_000 { 6 } else { 40 };
    let errs = common::sweep(&data, cases);
    assert!(errs > 0, "{}: no mutation was ever reported", p.display());
}

/// One sweep test per corpus file, and [`SWEPT`], the files they cover.
macro_rules! sweeps {
    ($($t:ident => $f:literal,)*) => {
        $(
            #[test]
            fn $t() {
                sweep_file($f);
            }
        )*
        /// The corpus files the sweeps cover.
        const SWEPT: &[&str] = &[$($f,)*];
    };
}

sweeps! {
    sweep_bigmarker_v6 => "bigmarker-v6.dat",
    sweep_bigmarker_v7_none => "bigmarker-v7-none.dat",
    sweep_bufsize_big_v7_zstd => "bufsize-big-v7-zstd.dat",
    sweep_clock_boot_v6 => "clock-boot-v6.dat",
    sweep_clock_boot_v7_zstd => "clock-boot-v7-zstd.dat",
    sweep_clock_counter_inst_v7_zstd => "clock-counter-inst-v7-zstd.dat",
    sweep_clock_counter_v6 => "clock-counter-v6.dat",
    sweep_clock_global_v6 => "clock-global-v6.dat",
    sweep_clock_global_v7_zstd => "clock-global-v7-zstd.dat",
    sweep_clock_local_v6 => "clock-local-v6.dat",
    sweep_clock_local_v7_zstd => "clock-local-v7-zstd.dat",
    sweep_clock_mono_v6 => "clock-mono-v6.dat",
    sweep_clock_mono_v7_zstd => "clock-mono-v7-zstd.dat",
    sweep_clock_mono_raw_v6 => "clock-mono_raw-v6.dat",
    sweep_clock_mono_raw_v7_zstd => "clock-mono_raw-v7-zstd.dat",
    sweep_clock_perf_v6 => "clock-perf-v6.dat",
    sweep_clock_perf_v7_zstd => "clock-perf-v7-zstd.dat",
    sweep_clock_tai_v6 => "clock-tai-v6.dat",
    sweep_clock_tai_v7_zstd => "clock-tai-v7-zstd.dat",
    sweep_clock_uptime_v6 => "clock-uptime-v6.dat",
    sweep_clock_uptime_v7_zstd => "clock-uptime-v7-zstd.dat",
    sweep_clock_x86_tsc_v6 => "clock-x86-tsc-v6.dat",
    sweep_clock_x86_tsc_v7_zstd => "clock-x86-tsc-v7-zstd.dat",
    sweep_empty_cpu_v6 => "empty-cpu-v6.dat",
    sweep_empty_cpu_v7_none => "empty-cpu-v7-none.dat",
    sweep_empty_cpu_v7_zstd => "empty-cpu-v7-zstd.dat",
    sweep_full_meta_v7_zstd => "full-meta-v7-zstd.dat",
    sweep_instances_v6 => "instances-v6.dat",
    sweep_instances_v7_zlib => "instances-v7-zlib.dat",
    sweep_instances_v7_zstd => "instances-v7-zstd.dat",
    sweep_instonly_v6 => "instonly-v6.dat",
    sweep_instonly_v7_zstd => "instonly-v7-zstd.dat",
    sweep_kernel_stack_v6 => "kernel-stack-v6.dat",
    sweep_kernel_stack_v7_zstd => "kernel-stack-v7-zstd.dat",
    sweep_lost_bufsize_tiny_v6 => "lost-bufsize-tiny-v6.dat",
    sweep_lost_bufsize_tiny_v7_zstd => "lost-bufsize-tiny-v7-zstd.dat",
    sweep_lost_v6 => "lost-v6.dat",
    sweep_lost_v7_none => "lost-v7-none.dat",
    sweep_lost_v7_zstd => "lost-v7-zstd.dat",
    sweep_marker_v6 => "marker-v6.dat",
    sweep_marker_v7_none => "marker-v7-none.dat",
    sweep_marker_v7_zstd => "marker-v7-zstd.dat",
    sweep_subbuf_8k_v6 => "subbuf-8k-v6.dat",
    sweep_subbuf_8k_v7_zstd => "subbuf-8k-v7-zstd.dat",
    sweep_ustack_v6 => "ustack-v6.dat",
    sweep_ustack_v7_zstd => "ustack-v7-zstd.dat",
    sweep_v6 => "v6.dat",
    sweep_v7_none => "v7-none.dat",
    sweep_v7_zstd => "v7-zstd.dat",
    sweep_zlib_v7 => "zlib-v7.dat",
}

/// Every trace.dat of corpus/tracecmd has its sweep, and every sweep its file.
#[test]
fn every_corpus_file_is_swept() {
    let names: Vec<String> = corpus_files()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let mut swept: Vec<String> = SWEPT.iter().map(|s| s.to_string()).collect();
    swept.sort();
    assert_eq!(
        names, swept,
        "each corpus file needs a sweep (and each sweep a corpus file)"
    );
}

#[test]
fn sweep_writer_files() {
    for (d, _) in [
        v6(),
        v7n(),
        v7z(),
        Builder::new(7, Compression::Zlib)
            .with_instance("x")
            .build(),
    ] {
        assert!(common::sweep(&d, 300) > 0);
    }
}

// ------------------------------------------------------------------------------------------
// Differential: per-CPU event counts and first/last timestamps against trace-cmd report

#[derive(Default, Debug, PartialEq, Eq, Clone, Copy)]
struct Seen {
    events: u64,
    first: Option<u64>,
    last: Option<u64>,
}

fn parse_report(text: &str) -> std::collections::BTreeMap<(String, u32), Seen> {
    let mut m: std::collections::BTreeMap<(String, u32), Seen> = Default::default();
    for line in text.lines() {
        if line.starts_with("cpus=") || line.trim().is_empty() || line.starts_with("CPU:") {
            continue;
        }
        let inst = if line.starts_with(char::is_whitespace) {
            String::new()
        } else {
            line.split(':').next().unwrap_or("").to_string()
        };
        let b = line.as_bytes();
        let mut i = 0;
        let mut found = None;
        while i + 6 < b.len() {
            if b[i] == b'['
                && b[i + 4] == b']'
                && b[i + 1..i + 4].iter().all(u8::is_ascii_digit)
                && (b[i + 5].is_ascii_digit() || b[i + 5] == b' ')
            {
                found = Some(i);
                break;
            }
            i += 1;
        }
        let Some(i) = found else { continue };
        let cpu: u32 = line[i + 1..i + 4].parse().unwrap();
        // trace-cmd 3.3 prints five latency flag characters (`d..2.`) between the CPU and
        // the timestamp, glued to a timestamp that fills its column.
        let mut rest = &line[i + 5..];
        if let Some(after) = rest.strip_prefix(' ') {
            if !after.starts_with(|c: char| c.is_ascii_digit() || c == ' ') {
                rest = after.get(5..).unwrap_or("");
            }
        }
        // `--raw-ts` (3.x) prints nanoseconds; 2.x prints `secs.nanos` with `-t`.
        let ts: u64 = rest[..rest.find(':').unwrap()]
            .trim()
            .replace('.', "")
            .parse()
            .unwrap_or_else(|e| panic!("{e}: {line}"));
        let e = m.entry((inst, cpu)).or_default();
        e.events += 1;
        e.first.get_or_insert(ts);
        e.last = Some(ts);
    }
    m
}

/// Every trace-cmd of the reader matrix that reads the file's version and compression reads
/// the events tracelint counts, per buffer and CPU, with the same first and last timestamps;
/// the others are shown to read nothing. A file no reader here can read is skipped with its
/// reason (a failure in CI).
#[test]
fn differential_against_trace_cmd_report() {
    let matrix = common::matrix_readers("trace-cmd");
    for p in corpus_files() {
        let data = std::fs::read(&p).unwrap();
        let v7 = data.get(10) == Some(&b'7');
        let zlib = common::tracedat_compression(&data).as_deref() == Some("zlib");
        let mut read_by = 0;
        for r in &matrix {
            if v7 && !r.v7 {
                // trace-cmd 2.x exits 0 and prints nothing on a v7 file: it cannot read it.
                let out = std::process::Command::new(&r.path)
                    .args(["report", "-i"])
                    .arg(&p)
                    .output()
                    .unwrap();
                let text = String::from_utf8_lossy(&out.stdout);
                assert!(
                    !text.contains(": sched_") && !text.contains("cpus="),
                    "{} read the v7 file {}: {text}",
                    r.name,
                    p.display()
                );
                continue;
            }
            if zlib && !r.zlib {
                // Built without zlib (Debian's 3.1.6 has zstd only): "error reading header",
                // exit 2, no event: it cannot read the file.
                let out = std::process::Command::new("timeout")
                    .arg("60")
                    .arg(&r.path)
                    .args(["report", "-i"])
                    .arg(&p)
                    .output()
                    .unwrap();
                let text = String::from_utf8_lossy(&out.stdout);
                assert!(
                    !out.status.success() && parse_report(&text).is_empty(),
                    "{} (built without zlib) read the zlib file {}: {:?}",
                    r.name,
                    p.display(),
                    out
                );
                continue;
            }
            differential_one(r, &p, &data);
            read_by += 1;
        }
        if read_by == 0 {
            common::skip_or_fail(&format!(
                "no trace-cmd of the matrix reads {} (zlib: {zlib})",
                p.display()
            ));
        }
    }
}

fn differential_one(r: &common::MatrixReader, p: &std::path::Path, data: &[u8]) {
    let ts_flag: &[&str] = if r.v7 { &["--raw-ts"] } else { &[] };
    let out = std::process::Command::new("timeout")
        .arg("60")
        .arg(&r.path)
        .args(["report", "-N"])
        .args(ts_flag)
        .args(["-t", "-i"])
        .arg(p)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} on {}: {:?}",
        r.name,
        p.display(),
        out
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let theirs = parse_report(&text);
    let ours = tracelint::formats::tracecmd::summarize(data, &CheckOptions::default());
    let mut mine: std::collections::BTreeMap<(String, u32), Seen> = Default::default();
    for c in ours {
        if c.events == 0 {
            continue;
        }
        mine.insert(
            (c.buffer, c.cpu),
            Seen {
                events: c.events,
                first: c.first_ts,
                last: c.last_ts,
            },
        );
    }
    assert_eq!(mine, theirs, "{} on {}", r.name, p.display());
    // Lost events of the top buffer: `CPU:N [K EVENTS DROPPED]` lines for pages that store
    // their count, `CPU:N [EVENTS DROPPED]` for pages flagged without room for it.
    let mut dropped: std::collections::BTreeMap<u32, u64> = Default::default();
    let mut unknown: std::collections::BTreeMap<u32, u64> = Default::default();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("CPU:") else {
            continue;
        };
        let Some((cpu, rest)) = rest.split_once(" [") else {
            continue;
        };
        let cpu: u32 = cpu.trim().parse().unwrap();
        if rest.starts_with("EVENTS DROPPED]") {
            *unknown.entry(cpu).or_default() += 1;
            continue;
        }
        let n = rest
            .split_whitespace()
            .next()
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("{}: drop marker {line:?}", r.name));
        *dropped.entry(cpu).or_default() += n;
    }
    let lost: std::collections::BTreeMap<u32, u64> =
        tracelint::formats::tracecmd::summarize(data, &CheckOptions::default())
            .into_iter()
            .filter(|c| c.buffer.is_empty() && c.lost_events > 0)
            .map(|c| (c.cpu, c.lost_events))
            .collect();
    assert_eq!(lost, dropped, "lost events of {} ({})", p.display(), r.name);
    assert_eq!(
        unknown_drops(data),
        unknown,
        "pages with drops of unknown count in {} ({})",
        p.display(),
        r.name
    );
}

/// Per CPU of the top buffer, the pages flagged RB_MISSED_EVENTS without a stored count, as
/// tracelint's TD113 says them ("... lost on CPU N (before K page(s) without room to store
/// the count)" or "... on CPU N, plus an unknown number before K page(s) ...").
fn unknown_drops(data: &[u8]) -> std::collections::BTreeMap<u32, u64> {
    let mut out = std::collections::BTreeMap::new();
    for f in run(data).iter().filter(|f| f.rule.code == "TD113") {
        let Some(rest) = f.message.split(" lost on CPU ").nth(1) else {
            continue;
        };
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let (cpu, tail) = rest.split_at(digits);
        if tail.starts_with(" of buffer") {
            continue;
        }
        let Some(k) = tail.split("before ").nth(1) else {
            continue;
        };
        let k: u64 = k.split(' ').next().unwrap().parse().unwrap();
        *out.entry(cpu.parse().unwrap()).or_default() += k;
    }
    out
}

/// A field of `sched_switch` whose type has a byte libtraceevent's tokenizer reads as no
/// token: the format does not parse (`TD053`), and its records are printed as
/// `[FAILED TO PARSE]` without the fields from the broken one on (`TD111` says so, by name).
#[test]
fn records_of_a_format_whose_fields_do_not_parse_are_named() {
    let mut b = std::fs::read(common::corpus("tracecmd").join("v6.dat")).unwrap();
    let i = b
        .windows(20)
        .position(|w| w == b"field:pid_t next_pid")
        .unwrap();
    b[i + 8] = 0xf8;
    let f = common::check_in_bounds(&b, &tracelint::options::CheckOptions::default());
    let bad = f
        .iter()
        .find(|x| x.rule.code == "TD053")
        .unwrap_or_else(|| panic!("no TD053"));
    assert!(bad.message.contains("no token"), "{}", bad.message);
    let rec = f
        .iter()
        .find(|x| x.rule.code == "TD111")
        .unwrap_or_else(|| panic!("no TD111"));
    assert!(
        rec.message.contains("`sched:sched_switch` does not parse"),
        "{}",
        rec.message
    );
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("t.dat");
    std::fs::write(&p, &b).unwrap();
    match std::process::Command::new("trace-cmd")
        .arg("report")
        .arg(&p)
        .output()
    {
        Ok(o) => {
            let out = String::from_utf8_lossy(&o.stdout);
            let line = out
                .lines()
                .find(|l| l.contains("sched_switch:"))
                .expect("a sched_switch line");
            assert!(line.contains("[FAILED TO PARSE]"), "{line}");
            assert!(!line.contains("next_pid="), "{line}");
        }
        Err(_) => common::skip_or_fail("trace-cmd is not installed"),
    }
}
