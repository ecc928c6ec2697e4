//! Darwin ktrace / kdebug: the real V2 sample, round trips through the writer, corpus files,
//! and sweeps.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::expect_used)]

mod common;

use tracelint::formats::ktrace::writer::*;
use tracelint::formats::ktrace::{decode_bytes, writer};
use tracelint::{check_bytes, CheckOptions, Finding, Severity, Sink};

fn check(data: &[u8]) -> Vec<Finding> {
    check_with(data, &CheckOptions::default())
}

fn check_with(data: &[u8], opts: &CheckOptions) -> Vec<Finding> {
    let mut sink = Sink::with_limits(&opts.limits);
    let _ = check_bytes(data, opts, &mut sink);
    sink.into_parts().0
}

fn errors(f: &[Finding]) -> Vec<String> {
    f.iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| format!("{} @{}+{}: {}", f.rule.code, f.offset, f.length, f.message))
        .collect()
}

/// The real RAW_VERSION2 stream prefix (1 MiB), kept outside the project.
fn sample() -> Option<Vec<u8>> {
    let path = match std::env::var_os("KTRACE_SAMPLE") {
        Some(p) => std::path::PathBuf::from(p),
        None => common::shared("samples/ktrace/coreprofilesessiontap.bin")?,
    };
    match std::fs::read(&path) {
        Ok(d) => Some(d),
        Err(e) => {
            common::skip_or_fail(&format!("cannot read {}: {e}", path.display()));
            None
        }
    }
}

fn raw(version: RawVersion) -> RawFile {
    sample_raw(version)
}

#[test]
fn real_v2_sample_has_no_errors() {
    let Some(data) = sample() else { return };
    let f = check(&data);
    assert!(errors(&f).is_empty(), "{:#?}", errors(&f));
    let back: Vec<_> = f.iter().filter(|f| f.rule.code == "KT032").collect();
    assert_eq!(back.len(), 1, "exactly one backwards timestamp: {back:#?}");
    assert_eq!(back[0].severity, Severity::Warning);
    let t = decode_bytes(&data, &CheckOptions::default(), &mut Sink::new(100));
    assert_eq!(t.threads.len(), 1606);
    assert_eq!(t.event_count(), 15552);
    assert_eq!(t.event_runs[0].span.start, 0xd000);
}

#[test]
fn generated_files_are_clean_and_round_trip() {
    for (name, model) in sample_files() {
        let bytes = writer::write(&model);
        let f = check(&bytes);
        assert!(errors(&f).is_empty(), "{name}: {:#?}", errors(&f));
        let warnings: Vec<_> = f
            .iter()
            .filter(|f| f.severity == Severity::Warning)
            .map(|f| f.rule.code)
            .collect();
        assert!(warnings.is_empty(), "{name}: {f:#?}");
        if name == "v3-kernel-length-quirk.ktrace" {
            // The macOS 13+ kernel's event-chunk length: a named writer quirk, informational.
            let quirks: Vec<_> = f
                .iter()
                .filter(|f| f.rule.code == "KT022" && f.severity == Severity::Info)
                .collect();
            assert_eq!(quirks.len(), 2, "{name}: {f:#?}");
        }
        let t = decode_bytes(&bytes, &CheckOptions::default(), &mut Sink::new(100));
        let back = model_from_trace(&bytes, &t).expect(name);
        assert_eq!(back, model, "{name}: round trip");
        assert_eq!(writer::write(&back), bytes, "{name}: rewrite");
    }
}

#[test]
fn v0_only_by_hint() {
    let mut m = raw(RawVersion::V0);
    m.threads.truncate(2);
    let bytes = writer::write(&File::Raw(m.clone()));
    // Without the hint, a thread count of 2 is no magic.
    assert!(check(&bytes).iter().any(|f| f.rule.code == "TL002"));
    let opts = CheckOptions {
        format_hint: Some(tracelint::formats::ktrace::FORMAT_V0),
        ..CheckOptions::default()
    };
    let f = check_with(&bytes, &opts);
    assert!(errors(&f).is_empty(), "{:#?}", errors(&f));
    let info = f.iter().find(|f| f.rule.code == "KT002").unwrap();
    assert_eq!((info.offset, info.length), (0, 4));
    assert!(info.message.contains("no ktrace magic"));
    let t = decode_bytes(&bytes, &opts, &mut Sink::new(10));
    assert_eq!(model_from_trace(&bytes, &t).unwrap(), File::Raw(m));
    // A V1 file forced to V0 says which magic it saw.
    let v1 = writer::write(&File::Raw(raw(RawVersion::V1)));
    let f = check_with(&v1, &opts);
    let info = f.iter().find(|f| f.rule.code == "KT002").unwrap();
    assert!(info.message.contains("0x55aa0101"), "{}", info.message);
}

#[test]
fn corpus_files_have_no_errors() {
    let dir = common::corpus("ktrace");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        common::skip_or_fail(&format!("{} missing", dir.display()));
        return;
    };
    let mut n = 0;
    for e in rd {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "ktrace" || x == "raw") {
            let data = std::fs::read(&p).unwrap();
            let f = check(&data);
            assert!(errors(&f).is_empty(), "{}: {:#?}", p.display(), errors(&f));
            n += 1;
        }
    }
    assert!(n >= 5, "expected the generated corpus files, found {n}");
}

#[test]
fn sweeps_over_corpus_files() {
    let dir = common::corpus("ktrace");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        common::skip_or_fail(&format!("{} missing", dir.display()));
        return;
    };
    for e in rd {
        let p = e.unwrap().path();
        if !p.extension().is_some_and(|x| x == "ktrace" || x == "raw") {
            continue;
        }
        let bytes = std::fs::read(&p).unwrap();
        let with_errors = common::sweep(&bytes, 150);
        assert!(
            with_errors > 0,
            "{}: no sweep case gave an error",
            p.display()
        );
    }
}

#[test]
fn corpus_is_what_the_generator_writes() {
    for (name, model) in sample_files() {
        let p = common::corpus("ktrace").join(name);
        let Ok(on_disk) = std::fs::read(&p) else {
            common::skip_or_fail(&format!("{} missing", p.display()));
            return;
        };
        assert_eq!(
            on_disk,
            writer::write(&model),
            "{name}: regenerate with scripts/corpus/ktrace.sh"
        );
    }
}

#[test]
fn windows_across_a_large_file() {
    // More than one 4 MiB read window, with defects in the second window.
    let mut m = sample_raw(RawVersion::V1);
    m.events = tracelint::formats::ktrace::writer::sample_events(100_000, 2, &[0x101, 0x202]);
    m.events[90_000].unused = 1;
    m.events[90_001].timestamp = 0;
    m.trailing = vec![0; 3];
    let bytes = writer::write(&File::Raw(m));
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("big.raw");
    std::fs::write(&p, &bytes).unwrap();
    let report = tracelint::check_path(&p, &CheckOptions::default(), &Default::default());
    let got: Vec<_> = report
        .findings
        .iter()
        .map(|f| (f.rule.code, f.offset))
        .collect();
    let at = |i: u64| 4096 + i * 64;
    assert!(got.contains(&("KT030", at(90_000))), "{got:?}");
    assert!(got.contains(&("KT032", at(90_001))), "{got:?}");
    assert!(got.contains(&("KT027", bytes.len() as u64 - 3)), "{got:?}");
    // The report lists findings by offset; the sink in the order found.
    let mut want = check(&bytes);
    tracelint::check::sort_findings(&mut want);
    let want: Vec<_> = want.iter().map(|f| (f.rule.code, f.offset)).collect();
    assert_eq!(got, want);
}

#[test]
fn sweep_over_real_sample() {
    let Some(data) = sample() else { return };
    // The header, the map and the first events carry all the structure; sweep a prefix
    // (cut at an event boundary) densely and the whole file coarsely.
    let prefix = &data[..0xd000 + 64 * 32];
    assert!(common::sweep(prefix, 200) > 0);
    assert!(common::sweep(&data, 30) > 0);
}

#[test]
fn check_path_reads_ktrace_in_windows_with_the_same_findings() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = sample_files();
    let mut bad = sample_v3(V3Magic::Kernel);
    bad.header.denom = 0;
    bad.trailing = vec![1, 2, 3];
    files.push(("bad.ktrace", File::V3(bad)));
    for (name, model) in files {
        let bytes = writer::write(&model);
        let p = dir.path().join(name);
        std::fs::write(&p, &bytes).unwrap();
        let opts = CheckOptions::default();
        let report = tracelint::check_path(&p, &opts, &tracelint::config::Config::default());
        assert_eq!(
            report.format,
            Some(tracelint::formats::ktrace::FORMAT),
            "{name}"
        );
        let got: Vec<_> = report
            .findings
            .iter()
            .map(|f| (f.rule.code, f.offset, f.length))
            .collect();
        let want: Vec<_> = check(&bytes)
            .iter()
            .map(|f| (f.rule.code, f.offset, f.length))
            .collect();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn roundtrip_invariants_under_mutation() {
    // What the round-trip fuzz target asserts, over truncations and byte changes of every
    // generated file, plus files ending in an unpadded chunk or with unknown chunk versions.
    let mut inputs: Vec<Vec<u8>> = sample_files()
        .iter()
        .map(|(_, m)| writer::write(m))
        .collect();
    let mut f = sample_v3(V3Magic::Libktrace);
    let mut c = Chunk::new(0x4242, 0, Payload::Bytes(vec![1; 5]));
    c.pad = PadMode::Omit;
    f.body.push(c);
    inputs.push(writer::write(&File::V3(f)));
    let mut f = sample_v3(V3Magic::Libktrace);
    f.body[0].major = 2;
    f.body[1].major = 3;
    f.header_chunks[0].major = 2;
    inputs.push(writer::write(&File::V3(f)));
    let mut f = sample_v3(V3Magic::Libktrace);
    f.body.clear();
    f.header_chunks
        .push(Chunk::new(0x1a00, 0, Payload::Bytes(b"Mac1".to_vec())));
    f.header_chunks[1].pad = PadMode::Omit;
    inputs.push(writer::write(&File::V3(f)));
    for bytes in inputs {
        tracelint::fuzzing::run_ktrace_roundtrip_bytes(&bytes);
        let step = (bytes.len() / 80).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            tracelint::fuzzing::run_ktrace_roundtrip_bytes(&bytes[..cut]);
        }
        let mut b = bytes.clone();
        for pos in (0..b.len()).step_by(step) {
            let orig = b[pos];
            for v in [orig ^ 0xff, orig.wrapping_add(1), 0, 1] {
                b[pos] = v;
                tracelint::fuzzing::run_ktrace_roundtrip_bytes(&b);
            }
            b[pos] = orig;
        }
    }
}

/// The writer named from the layout: raw version, V3 magic, header sub-chunks.
#[test]
fn writer_is_named_from_the_layout() {
    let want = [
        ("v1.raw", "xnu-1699 to 2050"),
        ("v1plus.raw", "xnu-2422 or later"),
        ("v2.raw", "kperf"),
        ("v3-kernel.ktrace", "xnu-3248 to 8020"),
        ("v3-libktrace.ktrace", "libktrace"),
        ("v3-lldbmacros-style.ktrace", "lldbmacros"),
    ];
    for (name, writer) in want {
        let data = std::fs::read(common::corpus("ktrace").join(name)).unwrap();
        let t = decode_bytes(&data, &CheckOptions::default(), &mut Sink::new(100));
        assert!(t.writer().contains(writer), "{name}: {}", t.writer());
    }
}
