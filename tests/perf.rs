//! perf.data validator: the real recordings of `corpus/perf/` (made by perf 6.1 with
//! `scripts/corpus/perf.sh`), their damaged copies in `corpus/perf/defects/`, copies damaged
//! here, robustness sweeps, and perf itself as the reference for the sample counts.

mod common;

use common::{check, show, skip_or_fail};
use std::path::{Path, PathBuf};
use tracelint::formats::perf::rules as pf;
use tracelint::registry::Rule;
use tracelint::{check_bytes, CheckOptions, Finding, Severity, Sink};

fn good_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(common::corpus("perf"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    assert!(v.len() >= 15, "{v:?}");
    v
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(common::corpus("perf").join(name)).unwrap()
}

fn findings(data: &[u8]) -> Vec<Finding> {
    let f = common::check_in_bounds(data, &CheckOptions::default());
    assert_eq!(check(data, &CheckOptions::default()).len(), f.len());
    f
}

fn samples(data: &[u8]) -> u64 {
    let mut sink = Sink::new(10_000);
    let (_, map) = check_bytes(data, &CheckOptions::default(), &mut sink);
    map.values
        .iter()
        .find(|(k, _)| k == "samples")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap()
}

#[track_caller]
fn find<'a>(f: &'a [Finding], rule: &Rule, sev: Severity) -> &'a Finding {
    f.iter()
        .find(|x| x.rule == rule && x.severity == sev)
        .unwrap_or_else(|| panic!("expected {} at {sev}, got:\n{}", rule.code, show(f)))
}

/// The finding of `rule` whose message holds `text`.
#[track_caller]
fn find_text<'a>(f: &'a [Finding], rule: &Rule, text: &str) -> &'a Finding {
    f.iter()
        .find(|x| x.rule == rule && x.message.contains(text))
        .unwrap_or_else(|| panic!("expected {} with {text:?}, got:\n{}", rule.code, show(f)))
}

fn errors(f: &[Finding]) -> usize {
    f.iter().filter(|x| x.severity == Severity::Error).count()
}

fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().unwrap())
}

fn put64(b: &mut [u8], o: usize, v: u64) {
    b[o..o + 8].copy_from_slice(&v.to_le_bytes());
}

/// (offset, type, size) of every record of a little-endian file-mode data section.
fn records(b: &[u8]) -> Vec<(usize, u32, usize)> {
    let mut o = u64_at(b, 40) as usize;
    let end = o + u64_at(b, 48) as usize;
    let mut out = Vec::new();
    while o < end {
        let t = u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        let s = u16::from_le_bytes(b[o + 6..o + 8].try_into().unwrap()) as usize;
        out.push((o, t, s));
        o += s;
    }
    out
}

/// The file as perf ≥ 6.3 writes it: a 136-byte attr (`config3`), 8 bytes inserted after the
/// attr and every offset after them moved. perf 6.1 refuses it ("incompatible file format",
/// exit 255, run on such a copy).
fn newer_attr(good: &[u8]) -> Vec<u8> {
    let mut b = good.to_vec();
    let a = u64_at(&b, 24) as usize;
    let ft = (u64_at(&b, 40) + u64_at(&b, 48)) as usize;
    let n: u32 = (0..4).map(|i| u64_at(&b, 72 + 8 * i).count_ones()).sum();
    for i in 0..n as usize {
        let o = u64_at(&b, ft + 16 * i);
        put64(&mut b, ft + 16 * i, o + 8);
    }
    b[a + 4..a + 8].copy_from_slice(&136u32.to_le_bytes());
    put64(&mut b, 16, 152);
    let attrs = u64_at(&b, 32);
    put64(&mut b, 32, attrs + 8);
    let data = u64_at(&b, 40);
    put64(&mut b, 40, data + 8);
    b.splice(a + 128..a + 128, [0u8; 8]);
    b
}

#[test]
fn every_real_recording_passes_without_errors_or_warnings() {
    for p in good_files() {
        let data = std::fs::read(&p).unwrap();
        let f = findings(&data);
        let bad: Vec<&Finding> = f.iter().filter(|x| x.severity != Severity::Info).collect();
        assert!(bad.is_empty(), "{}:\n{}", p.display(), show(&f));
    }
}

#[test]
fn real_recordings_are_detected_and_walked() {
    for p in good_files() {
        let data = std::fs::read(&p).unwrap();
        assert_eq!(
            tracelint::formats::detect_bytes(&data),
            Some(tracelint::formats::perf::FORMAT),
            "{}",
            p.display()
        );
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let n = samples(&data);
        // perf stat record writes no samples, and the workload takes no contended lock under
        // perf lock record; every other recording has some.
        assert_eq!(
            n == 0,
            name == "stat.data" || name == "lock.data",
            "{name}: {n} samples"
        );
    }
    // The byte-swapped magic of a big-endian writer is perf.data too.
    let mut be = b"2ELIFREP".to_vec();
    be.resize(104, 0);
    assert_eq!(
        tracelint::formats::detect_bytes(&be),
        Some(tracelint::formats::perf::FORMAT)
    );
}

/// perf 6.1 is the reference: the samples tracelint walks are the samples `perf script`
/// prints, one line each.
#[test]
fn sample_counts_match_perf_script() {
    if std::process::Command::new("perf")
        .arg("version")
        .output()
        .is_err()
    {
        skip_or_fail("perf is not installed");
        return;
    }
    for p in good_files() {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if name == "stat.data" {
            continue;
        }
        let data = std::fs::read(&p).unwrap();
        let mut cmd = std::process::Command::new("perf");
        cmd.args(["script", "-F", "time", "-i"]);
        if name == "pipe.data" {
            cmd.arg("-").stdin(std::fs::File::open(&p).unwrap());
        } else {
            cmd.arg(&p);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{name}: {out:?}");
        let lines = out.stdout.iter().filter(|c| **c == b'\n').count() as u64;
        assert_eq!(samples(&data), lines, "{name}");
    }
}

#[test]
fn killed_recording_is_an_error_that_counts_the_samples_on_disk() {
    let data = read("defects/killed.data");
    let f = findings(&data);
    let e = find(&f, &pf::UNFINISHED_RECORDING, Severity::Error);
    assert_eq!((e.offset, e.length), (40, 16));
    let n = samples(&data);
    assert!(n > 100, "{n}");
    assert!(
        e.message.contains(&format!("perf 6.1 shows 0 of {n}")),
        "{}",
        e.message
    );
    assert!(e.help.as_deref().unwrap().contains("recovered"));
    assert_eq!(errors(&f), 1, "{}", show(&f));
    // Writing the data size the help gives makes it a clean file.
    let size: u64 = e
        .help
        .as_deref()
        .unwrap()
        .split("data size ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap();
    let mut fixed = data.clone();
    put64(&mut fixed, 48, size);
    for i in 0..4 {
        put64(&mut fixed, 72 + 8 * i, 0);
    }
    let f2 = findings(&fixed);
    assert_eq!(errors(&f2), 0, "{}", show(&f2));
    assert_eq!(samples(&fixed), n);
}

#[test]
fn finished_recording_with_data_size_zero_is_unfinished_too() {
    let good = read("cpu-clock.data");
    let n = samples(&good);
    let f = findings(&read("defects/data-size-zero.data"));
    let e = find(&f, &pf::UNFINISHED_RECORDING, Severity::Error);
    assert!(
        e.message
            .contains(&format!("{n} whole samples are on disk")),
        "{}",
        e.message
    );
    // The feature sections after the records are not taken for records.
    assert!(
        !f.iter().any(|x| x.rule == &pf::RECORD_SIZE),
        "{}",
        show(&f)
    );
}

#[test]
fn each_defect_gets_its_verdict() {
    let cases: &[(&str, &Rule, Severity, &str)] = &[
        (
            "attr-size.data",
            &pf::ATTR_SIZE,
            Severity::Error,
            "failed to process type: 69",
        ),
        (
            "cut-mid.data",
            &pf::SECTION_BOUNDS,
            Severity::Error,
            "shows 0 of the",
        ),
        (
            "cut-page.data",
            &pf::SECTION_BOUNDS,
            Severity::Error,
            "SIGBUS",
        ),
        (
            "feature-offset.data",
            &pf::FEATURE_SECTION,
            Severity::Error,
            "BUILD_ID",
        ),
        (
            "record-size-zero.data",
            &pf::RECORD_SIZE,
            Severity::Error,
            "has size 0",
        ),
        (
            "record-type.data",
            &pf::RECORD_TYPE,
            Severity::Error,
            "failed to process type: 200",
        ),
        (
            "sample-type.data",
            &pf::SAMPLE_BODY,
            Severity::Error,
            "leaves 8 of its",
        ),
        (
            "tracepoint-no-time.data",
            &pf::SAMPLE_BODY,
            Severity::Error,
            "SIGSEGV",
        ),
        (
            "zstd-feature.data",
            &pf::COMPRESSED_FEATURE,
            Severity::Error,
            "Couldn't decompress data",
        ),
        (
            "tracing-data.data",
            &pf::FEATURE_PAYLOAD,
            Severity::Error,
            "incompatible file format",
        ),
    ];
    for (name, rule, sev, text) in cases {
        let data = read(&format!("defects/{name}"));
        let f = findings(&data);
        assert!(
            f.iter()
                .any(|x| x.rule == *rule && x.severity == *sev && x.message.contains(text)),
            "{name}: no {} at {sev} saying `{text}`:\n{}",
            rule.code,
            show(&f)
        );
    }
    // The tracing data block is checked by the trace.dat v6 metadata checks.
    let f = findings(&read("defects/tracing-data.data"));
    let td = f
        .iter()
        .find(|x| x.rule.code == "TD041")
        .expect("a TD041 finding");
    assert_eq!(td.length, 12, "{}", show(&f));
    // A newer attr is no error: perf ≥ 6.3 reads it.
    let newer = newer_attr(&read("cpu-clock.data"));
    let f = findings(&newer);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    let attr = u64_at(&newer, 24);
    let x = find(&f, &pf::ATTR_VERSION, Severity::Info);
    assert!(
        x.message.contains("perf 6.1 and older refuse"),
        "{}",
        x.message
    );
    assert_eq!((x.offset, x.length), (attr + 4, 4));
}

#[test]
fn the_cut_counts_the_whole_samples_before_it() {
    let good = read("cpu-clock-999.data");
    let data = read("defects/cut-mid.data");
    let n = samples(&data);
    assert!(n > 0 && n < samples(&good), "{n}");
    let f = findings(&data);
    let x = find(&f, &pf::SECTION_BOUNDS, Severity::Error);
    assert!(
        x.message.contains(&format!("0 of the {n} whole samples")),
        "{}",
        x.message
    );
    let cut = read("defects/cut-page.data");
    assert_eq!(cut.len() % 4096, 0);
    let f = findings(&cut);
    let x = find(&f, &pf::RECORD_SIZE, Severity::Error);
    assert_eq!(x.offset + x.length, cut.len() as u64);
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("loss"));
}

#[test]
fn header_damage() {
    let good = read("cpu-clock.data");
    // Cut inside the header.
    let f = findings(&good[..50]);
    find(&f, &pf::PERF_TRUNCATED_HEADER, Severity::Error);
    // Another header size.
    let mut b = good.clone();
    put64(&mut b, 8, 200);
    let f = findings(&b);
    let x = find(&f, &pf::PERF_HEADER_SIZE, Severity::Error);
    assert_eq!((x.offset, x.length), (8, 8));
    // The legacy magic.
    let mut b = good.clone();
    b[..8].copy_from_slice(b"PERFFILE");
    let f = findings(&b);
    find(&f, &pf::LEGACY_MAGIC, Severity::Info);
    assert_eq!(errors(&f), 0);
    // attr_size 0.
    let mut b = good.clone();
    put64(&mut b, 16, 0);
    find(&findings(&b), &pf::ATTR_SIZE, Severity::Error);
    // An attrs section past the end, with an offset that overflows.
    let mut b = good.clone();
    put64(&mut b, 24, u64::MAX - 4);
    let f = findings(&b);
    let x = find(&f, &pf::SECTION_BOUNDS, Severity::Error);
    assert!(x.message.contains("overflows"), "{}", x.message);
    // A hint on something else.
    let opts = CheckOptions {
        format_hint: Some(tracelint::formats::perf::FORMAT),
        ..CheckOptions::default()
    };
    let f = check(b"not a perf file at all, just text.......", &opts);
    find(&f, &pf::PERF_BAD_MAGIC, Severity::Error);
}

#[test]
fn attr_and_id_damage() {
    let good = read("cpu-clock.data");
    let attr = u64_at(&good, 24) as usize;
    // Reserved flag bits.
    let mut b = good.clone();
    let flags = u64_at(&b, attr + 40);
    put64(&mut b, attr + 40, flags | (1 << 60));
    let x = find(&findings(&b), &pf::ATTR_RESERVED_BITS, Severity::Warning).clone();
    assert_eq!(x.offset, attr as u64 + 40);
    // Both weight kinds.
    let mut b = good.clone();
    let t = u64_at(&b, attr + 24);
    put64(&mut b, attr + 24, t | (1 << 14) | (1 << 24));
    find(&findings(&b), &pf::SAMPLE_TYPE, Severity::Warning);
    // Two ids the same.
    let mut b = good.clone();
    let ids = u64_at(&b, attr + 128) as usize;
    assert_eq!(u64_at(&b, attr + 136), 16, "two ids");
    let first = u64_at(&b, ids);
    put64(&mut b, ids + 8, first);
    let f = findings(&b);
    let x = find(&f, &pf::IDS, Severity::Error);
    assert_eq!((x.offset, x.length), (ids as u64 + 8, 8));
    // EVENT_DESC (bit 12) with an id the attr does not have: its ids are its last bytes.
    let bits = u64_at(&good, 72);
    assert!(bits & (1 << 12) != 0);
    let table = (u64_at(&good, 40) + u64_at(&good, 48)) as usize;
    let slot = (bits & ((1 << 12) - 1)).count_ones() as usize;
    let (ed, ed_size) = (
        u64_at(&good, table + 16 * slot),
        u64_at(&good, table + 16 * slot + 8),
    );
    let mut b = good.clone();
    put64(&mut b, (ed + ed_size) as usize - 8, 4242);
    let f = findings(&b);
    let x = find(&f, &pf::EVENT_DESC, Severity::Warning);
    assert_eq!((x.offset, x.length), (ed, ed_size));
    // An attr id changed: the ID_INDEX record lists an id no attr has.
    let mut b = good.clone();
    let ids = u64_at(&b, attr + 128) as usize;
    let id = u64_at(&b, ids);
    put64(&mut b, ids, id ^ 0x100);
    let f = findings(&b);
    let x = find(&f, &pf::ID_INDEX, Severity::Error);
    assert!(
        x.message.contains(&format!("the first: {id}")),
        "{}",
        x.message
    );
    // An ids section past the end: perf 6.1 cannot read the ids and refuses the file, with
    // one attr ("incompatible file format", `perf script` exit 255, 0 of 12 samples: run on
    // this copy) as with several.
    let mut b = good.clone();
    put64(&mut b, attr + 128, 1 << 40);
    let f = findings(&b);
    let x = find(&f, &pf::IDS, Severity::Error);
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("reject"));
    let group = read("group.data");
    let a2 = u64_at(&group, 24) as usize + u64_at(&group, 16) as usize;
    let mut b = group.clone();
    put64(&mut b, a2 + 136, 1 << 40);
    find(&findings(&b), &pf::IDS, Severity::Error);
}

#[test]
fn record_damage() {
    let good = read("cpu-clock.data");
    let recs = records(&good);
    let samples_at: Vec<usize> = recs.iter().filter(|r| r.1 == 9).map(|r| r.0).collect();
    // A sample grown into the next record: the walk is misframed from there.
    let mut b = good.clone();
    let o = samples_at[3];
    b[o + 6..o + 8].copy_from_slice(&(41u16).to_le_bytes());
    let f = findings(&b);
    assert!(errors(&f) > 0, "{}", show(&f));
    find(&f, &pf::DATA_END, Severity::Warning);
    // A MMAP2 record too short for its fields.
    let (o, _, s) = *recs.iter().find(|r| r.1 == 10).unwrap();
    let mut b = good.clone();
    b[o + 6..o + 8].copy_from_slice(&(24u16).to_le_bytes());
    // Pad the rest of the old record with a FINISHED_ROUND chain (8-byte records).
    for k in (o + 24..o + s).step_by(8) {
        b[k..k + 4].copy_from_slice(&68u32.to_le_bytes());
        b[k + 4..k + 6].copy_from_slice(&0u16.to_le_bytes());
        b[k + 6..k + 8].copy_from_slice(&8u16.to_le_bytes());
    }
    let f = findings(&b);
    let x = find(&f, &pf::RECORD_FIELDS, Severity::Error);
    assert_eq!((x.offset, x.length), (o as u64, 24));
    // A THREAD_MAP whose count runs past the record (perf 6.1: SIGBUS).
    let (o, _, s) = *recs.iter().find(|r| r.1 == 73).unwrap();
    let mut b = good.clone();
    b[o + 12] ^= 1;
    let f = findings(&b);
    let x = find(&f, &pf::RECORD_FIELDS, Severity::Error);
    assert_eq!((x.offset, x.length), (o as u64, s as u64));
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("crash"));
    // A record type of a newer perf is an info, of nobody an error.
    let mut b = good.clone();
    let o = samples_at[0];
    b[o..o + 4].copy_from_slice(&83u32.to_le_bytes());
    let f = findings(&b);
    // cpu-clock.data names perf 6.1 in VERSION: a type of perf 6.15 in it is damage.
    find(&f, &pf::RECORD_TYPE, Severity::Error);
    let pipe = read("pipe.data");
    let mut o = 16;
    let mut b = pipe.clone();
    while o < b.len() {
        let t = u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        let s = u16::from_le_bytes(b[o + 6..o + 8].try_into().unwrap()) as usize;
        if t == 82 {
            // FINISHED_INIT, before the records; without a VERSION feature record
            // (dropped below) the type is a newer perf's.
            b[o..o + 4].copy_from_slice(&84u32.to_le_bytes());
            break;
        }
        o += s;
    }
    let mut q = 16;
    while q < b.len() {
        let t = u32::from_le_bytes(b[q..q + 4].try_into().unwrap());
        let s = u16::from_le_bytes(b[q + 6..q + 8].try_into().unwrap()) as usize;
        if t == 80 && u64_at(&b, q + 8) == 5 {
            put64(&mut b, q + 8, 6);
            break;
        }
        q += s;
    }
    let f = findings(&b);
    find(&f, &pf::RECORD_TYPE, Severity::Info);
}

#[test]
fn feature_damage() {
    let good = read("cpu-clock.data");
    let table = (u64_at(&good, 40) + u64_at(&good, 48)) as usize;
    // The first feature with a set bit after BUILD_ID is HOSTNAME (bit 3): a string whose
    // length runs past its section.
    let bits = u64_at(&good, 72);
    assert!(bits & (1 << 3) != 0 && bits & (1 << 2) != 0 && bits & (1 << 1) == 0);
    let host = u64_at(&good, table + 16) as usize;
    let mut b = good.clone();
    b[host..host + 4].copy_from_slice(&1000u32.to_le_bytes());
    let f = findings(&b);
    let x = find(&f, &pf::FEATURE_PAYLOAD, Severity::Warning);
    assert_eq!(x.offset, host as u64);
    // The table cut off by the end of the file.
    let f = findings(&good[..table + 20]);
    find(&f, &pf::FEATURE_TABLE, Severity::Error);
    // A feature bit perf 6.1 does not know, with its table entry.
    let mut b = good.clone();
    let n = (0..4)
        .map(|i| u64_at(&b, 72 + 8 * i).count_ones())
        .sum::<u32>() as usize;
    // Bit 72: a new last table slot, pointing at an empty section at the end.
    put64(&mut b, 80, u64_at(&good, 80) | (1 << 8));
    let mut c = b[..table + 16 * n].to_vec();
    c.extend_from_slice(&[0u8; 16]);
    // Move every section 16 bytes on.
    for i in 0..n {
        let at = table + 16 * i;
        let o = u64_at(&c, at);
        put64(&mut c, at, o + 16);
    }
    c.extend_from_slice(&b[table + 16 * n..]);
    let last_entry = table + 16 * n;
    let end = c.len() as u64;
    put64(&mut c, last_entry, end);
    let f = findings(&c);
    let x = find(&f, &pf::UNKNOWN_FEATURE, Severity::Info);
    assert!(x.message.contains("feature 72"), "{}", x.message);
    assert_eq!(errors(&f), 0, "{}", show(&f));
}

#[test]
fn zstd_damage() {
    let good = read("zstd.data");
    let recs = records(&good);
    let (o, _, s) = *recs.iter().find(|r| r.1 == 81).unwrap();
    let mut b = good.clone();
    // The zstd frame header of the first COMPRESSED record.
    b[o + 8] ^= 0xff;
    b[o + 9] ^= 0xff;
    let f = findings(&b);
    let x = find(&f, &pf::COMPRESSED_DATA, Severity::Error);
    assert_eq!((x.offset, x.length), (o as u64, s as u64));
    assert!(samples(&good) > samples(&b));
}

#[test]
fn pipe_mode() {
    let good = read("pipe.data");
    assert_eq!(u64_at(&good, 8), 16);
    let n = samples(&good);
    // Cut inside the last record: a warning (perf reads the rest without a message).
    let cut = &good[..good.len() - 3];
    let f = findings(cut);
    let x = find(&f, &pf::TRUNCATED_STREAM, Severity::Warning);
    assert_eq!(x.offset + x.length, cut.len() as u64);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    // A feature id above perf 6.1's end marker.
    let mut b = good.clone();
    let mut o = 16;
    while o < b.len() {
        let t = u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        let s = u16::from_le_bytes(b[o + 6..o + 8].try_into().unwrap()) as usize;
        if t == 80 {
            put64(&mut b, o + 8, 40);
            break;
        }
        o += s;
    }
    let f = findings(&b);
    find(&f, &pf::PIPE_RECORDS, Severity::Error);
    assert_eq!(samples(&b), n);
}

#[test]
fn stdin_pipe_stream_is_checked_as_a_stream() {
    let good = read("pipe.data");
    let r = tracelint::check::check_reader(
        Path::new("-"),
        Box::new(std::io::Cursor::new(good)),
        &CheckOptions::default(),
        &tracelint::config::Config::default(),
    );
    assert_eq!(r.format, Some(tracelint::formats::perf::FORMAT));
    assert!(
        r.findings.iter().all(|f| f.severity == Severity::Info),
        "{:?}",
        r.findings
    );
}

#[test]
fn damaged_copies_never_crash_and_often_fail() {
    for name in [
        "cpu-clock.data",
        "pipe.data",
        "zstd.data",
        "tracepoint.data",
        "callchain-dwarf.data",
    ] {
        let data = read(name);
        let bad = common::sweep(&data, 400);
        assert!(bad > 0, "{name}: no damaged copy gave an error");
    }
}

#[test]
fn unknown_ids_and_lost_events() {
    // group.data: two attrs sharing one sample_type with ID; a sample whose id is no attr's.
    let good = read("group.data");
    let attr = u64_at(&good, 24) as usize;
    let ids_at = u64_at(&good, attr + 128) as usize;
    let ids: Vec<u64> = (0..4).map(|i| u64_at(&good, ids_at + 8 * i)).collect();
    let (o, _, s) = *records(&good).iter().find(|r| r.1 == 9).unwrap();
    let k = (o + 8..o + s)
        .step_by(8)
        .find(|k| ids.contains(&u64_at(&good, *k)))
        .unwrap();
    let mut b = good.clone();
    put64(&mut b, k, 0xdead_beef);
    let f = findings(&b);
    let x = find(&f, &pf::UNKNOWN_ID, Severity::Error);
    assert_eq!((x.offset, x.length), (o as u64, s as u64));
    // A COMM record turned into a LOST record that lost 77 events: an info.
    let good = read("cpu-clock.data");
    let (o, _, _) = *records(&good).iter().find(|r| r.1 == 3).unwrap();
    let mut b = good.clone();
    b[o..o + 4].copy_from_slice(&2u32.to_le_bytes());
    put64(&mut b, o + 16, 77);
    let f = findings(&b);
    let x = find(&f, &pf::LOST_EVENTS, Severity::Info);
    assert!(x.message.contains("lost 77 event"), "{}", x.message);
}

fn check_dir_path(p: &Path) -> tracelint::check::Report {
    tracelint::check_path(
        p,
        &CheckOptions::default(),
        &tracelint::config::Config::default(),
    )
}

fn map_samples(r: &tracelint::check::Report) -> u64 {
    r.map
        .as_ref()
        .and_then(|m| m.values.iter().find(|(k, _)| k == "samples"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap()
}

#[test]
fn threads_directory_is_one_recording() {
    let dir = common::corpus("perf").join("threads.data");
    assert!(tracelint::formats::perf::is_threads_dir(&dir));
    let r = check_dir_path(&dir);
    assert_eq!(r.format, Some(tracelint::formats::perf::FORMAT_DIR));
    assert!(r.findings.is_empty(), "{}", show(&r.findings));
    let n = map_samples(&r);
    assert!(n > 0);
    // The samples are in the streams, not in `data`.
    assert_eq!(samples(&std::fs::read(dir.join("data")).unwrap()), 0);
    if std::process::Command::new("perf")
        .arg("version")
        .output()
        .is_err()
    {
        skip_or_fail("perf is not installed");
        return;
    }
    let out = std::process::Command::new("perf")
        .args(["script", "-F", "time", "-i"])
        .arg(&dir)
        .output()
        .unwrap();
    let lines = out.stdout.iter().filter(|c| **c == b'\n').count() as u64;
    assert_eq!(lines, n);
}

#[test]
fn a_cut_stream_of_a_threads_directory_is_an_error_in_that_file() {
    let dir = common::corpus("perf").join("defects/threads-cut.data");
    let r = check_dir_path(&dir);
    assert_eq!(r.format, Some(tracelint::formats::perf::FORMAT_DIR));
    let x = find(&r.findings, &pf::RECORD_SIZE, Severity::Error);
    let file = x.file.clone().unwrap();
    assert!(file.starts_with("data."), "{file}");
    let len = std::fs::metadata(dir.join(&file)).unwrap().len();
    assert_eq!(x.offset + x.length, len);
    // A file perf does not read, and a gap in the numbering.
    let tmp = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(common::corpus("perf").join("threads.data")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), tmp.path().join(e.file_name())).unwrap();
    }
    std::fs::rename(tmp.path().join("data.0"), tmp.path().join("data.5")).unwrap();
    std::fs::write(tmp.path().join("notes.txt"), b"x").unwrap();
    let r = check_dir_path(tmp.path());
    let w: Vec<&Finding> = r
        .findings
        .iter()
        .filter(|f| f.rule == &pf::DIR_FILES)
        .collect();
    assert_eq!(w.len(), 2, "{}", show(&r.findings));
    assert!(w.iter().any(|f| f.file.as_deref() == Some("notes.txt")));
    assert!(w.iter().any(|f| f.message.contains("data.0 is missing")));
}

/// The fuzz target's runner (every invariant the fuzzers assert: spans inside the input, the
/// same findings twice, limits honoured) on cut and changed copies of every recording.
#[test]
fn fuzz_runner_invariants_hold_on_damaged_copies() {
    let mut runs = 0;
    for p in good_files() {
        let data = std::fs::read(&p).unwrap();
        if data.len() > 20_000 {
            continue;
        }
        let stride = (data.len() / 60).max(1);
        for (k, pos) in (0..data.len()).step_by(stride).enumerate() {
            tracelint::fuzzing::run_format(&tracelint::formats::perf::SPEC, &data[..pos]);
            let mut b = data.clone();
            b[pos] ^= [0x01, 0x80, 0xff, 0x10][k % 4];
            tracelint::fuzzing::run_format(&tracelint::formats::perf::SPEC, &b);
            runs += 2;
        }
    }
    assert!(runs > 1000, "{runs}");
}

#[test]
fn tracepoint_ids_against_tracing_data() {
    let good = read("tracepoint.data");
    let attr = u64_at(&good, 24) as usize;
    assert_eq!(
        u32::from_le_bytes(good[attr..attr + 4].try_into().unwrap()),
        2
    );
    // The attr's config is no format's id: perf 6.1 refuses the file.
    let mut b = good.clone();
    put64(&mut b, attr + 8, 999);
    let f = findings(&b);
    let x = find(&f, &pf::TRACEPOINT_ID, Severity::Error);
    assert_eq!((x.offset, x.length), (attr as u64 + 8, 8));
    // A sample's common_type is no format's id: perf report crashes.
    let (o, _, s) = *records(&good).iter().find(|r| r.1 == 9).unwrap();
    let t = u64_at(&good, attr + 24);
    // IP, TID, TIME, CPU, PERIOD before RAW in this recording.
    assert_eq!(t & 0xffff, 0x587);
    let raw = o + 8 + 40 + 4;
    let mut b = good.clone();
    b[raw..raw + 2].copy_from_slice(&999u16.to_le_bytes());
    let f = findings(&b);
    let x = find(&f, &pf::TRACEPOINT_ID, Severity::Error);
    assert_eq!((x.offset, x.length), (o as u64, s as u64));
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("crash"));
    // A CPU_MAP of an unknown type.
    let good = read("cpu-clock.data");
    let (o, _, _) = *records(&good).iter().find(|r| r.1 == 74).unwrap();
    let mut b = good.clone();
    b[o + 9] ^= 4;
    let f = findings(&b);
    let x = find(&f, &pf::RECORD_FIELDS, Severity::Error);
    assert!(x.message.contains("unknown type"), "{}", x.message);
}

/// A `perf record --threads` directory packed in a tar (plain, zstd, and from a stream) is
/// checked as the directory: its `data.<n>` streams too, with the findings of the directory
/// (a cut stream is the same error in the same file). A lone perf.data named `data` in an
/// archive is checked as a perf.data.
#[test]
fn threads_directories_in_archives_are_checked_as_directories() {
    let tmp = tempfile::tempdir().unwrap();
    let keys = |r: &tracelint::check::Report| {
        let mut k: Vec<_> = r
            .findings
            .iter()
            .map(|f| {
                (
                    f.rule.code,
                    f.severity,
                    f.file.clone(),
                    f.offset,
                    f.message.clone(),
                )
            })
            .collect();
        k.sort();
        k
    };
    for name in ["threads.data", "defects/threads-cut.data"] {
        let dir = common::corpus("perf").join(name);
        let plain = check_dir_path(&dir);
        assert_eq!(plain.format, Some(tracelint::formats::perf::FORMAT_DIR));
        let mut b = tar::Builder::new(Vec::new());
        b.append_dir_all("rec", &dir).unwrap();
        let tar = b.into_inner().unwrap();
        let zst = zstd::bulk::compress(&tar, 3).unwrap();
        for (file, bytes) in [("rec.tar", &tar), ("rec.tar.zst", &zst)] {
            let p = tmp.path().join(file);
            std::fs::write(&p, bytes).unwrap();
            let r = check_dir_path(&p);
            assert_eq!(
                keys(&r),
                keys(&plain),
                "{name} as {file}: {}",
                show(&r.findings)
            );
            assert_eq!(
                r.format,
                Some(tracelint::formats::perf::FORMAT_DIR),
                "{name} {file}"
            );
            assert!(
                r.findings.iter().all(|f| f.rule.code != "TL009"),
                "{name} {file}"
            );
        }
        let streamed = tracelint::check::check_reader(
            Path::new("-"),
            Box::new(std::io::Cursor::new(zst)),
            &CheckOptions::default(),
            &tracelint::config::Config::default(),
        );
        assert_eq!(keys(&streamed), keys(&plain), "{name} from a stream");
    }
    // One perf.data named `data`, no streams beside it.
    let mut b = tar::Builder::new(Vec::new());
    let one = read("cpu-clock.data");
    let mut h = tar::Header::new_gnu();
    h.set_size(one.len() as u64);
    h.set_mode(0o644);
    b.append_data(&mut h, "rec/data", one.as_slice()).unwrap();
    let p = tmp.path().join("one.tar");
    std::fs::write(&p, b.into_inner().unwrap()).unwrap();
    let r = check_dir_path(&p);
    assert_eq!(r.format, Some(tracelint::formats::perf::FORMAT));
    assert!(r.findings.is_empty(), "{}", show(&r.findings));
}

/// `rounds.data` (a one-page ring buffer: six FINISHED_ROUNDs) with one sample of its third
/// round given the first sample's time: older than what perf flushed at the round before.
/// PF032 warns once; perf 6.1 reads all 260 samples and warns "1 out of order events recorded".
#[test]
fn a_sample_older_than_an_earlier_round_is_a_warning() {
    let good = read("rounds.data");
    assert!(findings(&good).iter().all(|f| f.rule != &pf::ROUND_ORDER));
    let recs = records(&good);
    let rounds: Vec<usize> = recs.iter().filter(|r| r.1 == 68).map(|r| r.0).collect();
    assert!(rounds.len() >= 4, "{} rounds", rounds.len());
    // sample_type IP|TID|TIME|PERIOD: the time is the third word of the body.
    let samples: Vec<usize> = recs.iter().filter(|r| r.1 == 9).map(|r| r.0).collect();
    let first_time = u64_at(&good, samples[0] + 8 + 16);
    let late = *samples.iter().find(|&&o| o > rounds[2]).unwrap();
    let mut bad = good.clone();
    put64(&mut bad, late + 8 + 16, first_time);
    let f = findings(&bad);
    let w = find(&f, &pf::ROUND_ORDER, Severity::Warning);
    assert_eq!(w.offset, late as u64);
    assert!(w.message.starts_with("1 sample(s)"), "{}", w.message);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    if std::process::Command::new("perf")
        .arg("version")
        .output()
        .is_err()
    {
        return skip_or_fail("perf is not installed");
    }
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("late.data");
    std::fs::write(&p, &bad).unwrap();
    let out = std::process::Command::new("perf")
        .args(["script", "-F", "time", "-i"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(out.status.success());
    let lines = out.stdout.iter().filter(|c| **c == b'\n').count() as u64;
    assert_eq!(lines, samples.len() as u64);
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 out of order events recorded"));
}

// ---- Classes of the differential campaign (campaign/run.py --formats perf): each a damaged
// copy of a real recording, with the level perf 6.1 and linux-perf-data 0.13.0 justify.

/// (table entry, section offset, section size) of feature `bit` of a file-mode recording.
fn feature_at(b: &[u8], bit: u32) -> (usize, usize, usize) {
    let words: Vec<u64> = (0..4).map(|i| u64_at(b, 72 + 8 * i)).collect();
    assert!(
        words[(bit / 64) as usize] >> (bit % 64) & 1 == 1,
        "no feature {bit}"
    );
    let below: u32 = (0..bit)
        .map(|k| (words[(k / 64) as usize] >> (k % 64) & 1) as u32)
        .sum();
    let e = (u64_at(b, 40) + u64_at(b, 48)) as usize + 16 * below as usize;
    (e, u64_at(b, e) as usize, u64_at(b, e + 8) as usize)
}

/// (offset, type, size) of every record of a little-endian pipe-mode stream.
fn stream_records(b: &[u8]) -> Vec<(usize, u32, usize)> {
    let mut o = 16;
    let mut out = Vec::new();
    while o + 8 <= b.len() {
        let t = u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        let s = u16::from_le_bytes(b[o + 6..o + 8].try_into().unwrap()) as usize;
        out.push((o, t, s));
        o += s;
    }
    out
}

#[test]
fn event_desc_is_what_linux_perf_data_reads_the_samples_with() {
    let good = read("cpu-clock.data");
    let (_, off, _) = feature_at(&good, 12);
    let attr = off + 8;
    // EVENT_DESC's sample_type without PERIOD: linux-perf-data parses every sample with it.
    let mut b = good.clone();
    let st = u64_at(&b, attr + 24);
    put64(&mut b, attr + 24, st & !0x100);
    let f = findings(&b);
    let x = find(&f, &pf::EVENT_DESC, Severity::Error);
    assert!(
        x.message.contains("linux-perf-data 0.13.0"),
        "{}",
        x.message
    );
    assert_eq!(x.impact.as_ref().map(|i| i.reader), Some("linux-perf-data"));
    // A register mask its sample_type does not use: both readers read the same.
    let mut b = good.clone();
    put64(&mut b, attr + 96, u64::MAX);
    let f = findings(&b);
    find(&f, &pf::EVENT_DESC, Severity::Warning);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    // A name length one past its bytes: linux-perf-data cannot read EVENT_DESC and refuses
    // the file.
    let mut b = good.clone();
    let nids = u32::from_le_bytes(b[attr + 128..attr + 132].try_into().unwrap());
    assert_eq!(nids, 2);
    let len_at = attr + 132;
    let len = u32::from_le_bytes(b[len_at..len_at + 4].try_into().unwrap());
    b[len_at..len_at + 4].copy_from_slice(&(len + 1).to_le_bytes());
    let f = findings(&b);
    let x = find(&f, &pf::EVENT_DESC, Severity::Error);
    assert!(x.message.contains("refuses the file"), "{}", x.message);
    // A software config linux-perf-data does not know.
    let mut b = good.clone();
    put64(&mut b, attr + 8, 99);
    let f = findings(&b);
    find(&f, &pf::EVENT_DESC, Severity::Error);
}

/// The offsets of the ids of each EVENT_DESC entry of a little-endian file.
fn event_desc_ids(b: &[u8]) -> Vec<Vec<usize>> {
    let (_, off, _) = feature_at(b, 12);
    let n = u32::from_le_bytes(b[off..off + 4].try_into().unwrap()) as usize;
    let sz = u32::from_le_bytes(b[off + 4..off + 8].try_into().unwrap()) as usize;
    let mut at = off + 8;
    let mut out = Vec::new();
    for _ in 0..n {
        at += sz;
        let nr = u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize;
        let len = u32::from_le_bytes(b[at + 4..at + 8].try_into().unwrap()) as usize;
        at += 8 + len;
        out.push((0..nr).map(|k| at + 8 * k).collect());
        at += 8 * nr;
    }
    out
}

#[test]
fn event_desc_ids_matter_where_linux_perf_data_places_records_elsewhere() {
    // group.data: two events, samples of both. linux-perf-data places a record whose id no
    // EVENT_DESC entry lists under the first event.
    let good = read("group.data");
    let ids = event_desc_ids(&good);
    assert_eq!(ids.len(), 2);
    // The ids of the second event, which its samples carry, changed: they go to the first.
    let mut second = good.clone();
    for o in &ids[1] {
        put64(&mut second, *o, 0x8000_0000_0000_0000 + *o as u64);
    }
    let f = findings(&second);
    let x = find(&f, &pf::EVENT_DESC, Severity::Error);
    assert!(x.message.contains("records carry"), "{}", x.message);
    // The same change in the first event's entry: its records fall back to it.
    let mut first = good.clone();
    for o in &ids[0] {
        put64(&mut first, *o, 0x8000_0000_0000_0000 + *o as u64);
    }
    let f = findings(&first);
    find(&f, &pf::EVENT_DESC, Severity::Warning);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    let Some((code, out)) = lpd_read(&good) else {
        return skip_or_fail("linux-perf-data 0.13.0 is not built (python3 campaign/readers.py)");
    };
    assert_eq!(code, 0);
    assert_eq!(lpd_read(&first).unwrap(), (0, out.clone()));
    assert_ne!(lpd_read(&second).unwrap().1, out);
}

#[test]
fn feature_sections_perf_reads_from_where_they_are_are_warnings() {
    let good = read("cpu-clock.data");
    // HOSTNAME moved to offset 1 (into the header): read from there, samples the same.
    let mut b = good.clone();
    let (e, _, _) = feature_at(&b, 3);
    put64(&mut b, e, 1);
    let f = findings(&b);
    find(&f, &pf::FEATURE_SECTION, Severity::Warning);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    // VERSION 8 bytes longer, over the next section.
    let mut b = good.clone();
    let (e, _, s) = feature_at(&b, 5);
    put64(&mut b, e + 8, s as u64 + 8);
    let f = findings(&b);
    find(&f, &pf::FEATURE_SECTION, Severity::Warning);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    // Past the end of the file: linux-perf-data refuses the file.
    let mut b = good.clone();
    let (e, _, _) = feature_at(&b, 3);
    put64(&mut b, e, good.len() as u64 + 4096);
    let f = findings(&b);
    let x = find(&f, &pf::FEATURE_SECTION, Severity::Error);
    assert!(
        x.message.contains("linux-perf-data 0.13.0"),
        "{}",
        x.message
    );
    // A feature before COMPRESSED whose section size alone is wrong: perf 6.1 reads it past
    // its section and decompresses every sample.
    let z = read("zstd.data");
    for (bit, size) in [(13u32, 0u64), (20, 0), (16, 1), (7, 1)] {
        let mut b = z.clone();
        let (e, _, _) = feature_at(&b, bit);
        put64(&mut b, e + 8, size);
        let f = findings(&b);
        assert_eq!(errors(&f), 0, "feature {bit} size {size}:\n{}", show(&f));
        assert_eq!(samples(&b), samples(&z));
    }
    // COMPRESSED naming another type: both readers decompress with zstd.
    let mut b = z.clone();
    let (_, off, _) = feature_at(&b, 27);
    b[off + 4..off + 8].copy_from_slice(&2u32.to_le_bytes());
    let f = findings(&b);
    find(&f, &pf::COMPRESSED_FEATURE, Severity::Warning);
    assert_eq!(errors(&f), 0, "{}", show(&f));
}

#[test]
fn feature_payloads_perf_crashes_on_are_errors() {
    let good = read("cpu-clock.data");
    // CMDLINE in a 1-byte section: perf copies the strings into a buffer of that size.
    let mut b = good.clone();
    let (e, _, _) = feature_at(&b, 11);
    put64(&mut b, e + 8, 1);
    let f = findings(&b);
    let x = find(&f, &pf::FEATURE_PAYLOAD, Severity::Error);
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("crash"));
    // A CMDLINE string length one too many: misframed strings that still fit, read the same.
    let mut b = good.clone();
    let (_, off, _) = feature_at(&b, 11);
    let len = u32::from_le_bytes(b[off + 4..off + 8].try_into().unwrap());
    b[off + 4..off + 8].copy_from_slice(&(len + 1).to_le_bytes());
    let f = findings(&b);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    // A BUILD_ID entry (with BUILD_ID_SIZE in misc) saying its id is 128 bytes: an assertion.
    let mut b = good.clone();
    let (_, off, _) = feature_at(&b, 2);
    assert_ne!(
        u16::from_le_bytes(b[off + 4..off + 6].try_into().unwrap()) & 0x8000,
        0
    );
    b[off + 32] = 0x80;
    let f = findings(&b);
    let x = find(&f, &pf::FEATURE_PAYLOAD, Severity::Error);
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("crash"));
}

#[test]
fn ids_as_perf_reads_them() {
    let good = read("cpu-clock.data");
    let ids_at = u64_at(&good, 24) as usize
        + u32::from_le_bytes(
            good[u64_at(&good, 24) as usize + 4..u64_at(&good, 24) as usize + 8]
                .try_into()
                .unwrap(),
        ) as usize;
    // No ids (size 0 or 1) in a one-attr file: perf stops at ID_INDEX, 0 samples.
    for size in [0u64, 1] {
        let mut b = good.clone();
        put64(&mut b, ids_at + 8, size);
        let f = findings(&b);
        find(&f, &pf::ID_INDEX, Severity::Error);
    }
    // The ids one byte early: other ids, the same.
    let mut b = good.clone();
    let o = u64_at(&b, ids_at);
    put64(&mut b, ids_at, o - 1);
    let f = findings(&b);
    find(&f, &pf::ID_INDEX, Severity::Error);
    // Ids past the end of the file: perf refuses the file.
    let mut b = good.clone();
    put64(&mut b, ids_at + 8, u64::MAX);
    let f = findings(&b);
    let x = find(&f, &pf::IDS, Severity::Error);
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("reject"));
}

#[test]
fn records_longer_than_their_layout_and_bad_cpus() {
    let good = read("cpu-clock.data");
    let recs = records(&good);
    // A SAMPLE made READ or MMAP: lost to both readers.
    for t in [8u32, 1] {
        let (o, _, _) = recs.iter().filter(|r| r.1 == 9).nth(4).copied().unwrap();
        let mut b = good.clone();
        b[o..o + 4].copy_from_slice(&t.to_le_bytes());
        let f = findings(&b);
        find(&f, &pf::RECORD_FIELDS, Severity::Error);
    }
    // An MMAP2 claiming a build id of 32 bytes: linux-perf-data panics.
    let (o, _, _) = *recs.iter().find(|r| r.1 == 10).unwrap();
    let mut b = good.clone();
    let misc = u16::from_le_bytes(b[o + 4..o + 6].try_into().unwrap()) | 1 << 14;
    b[o + 4..o + 6].copy_from_slice(&misc.to_le_bytes());
    // `build_id_size` is the first byte after pgoff (8 + 32 bytes in); the inode after it
    // is no build id size.
    let mut ino = b.clone();
    b[o + 8 + 32] = 32;
    ino[o + 8 + 32] = 20;
    ino[o + 8 + 40] = 32;
    let f = findings(&b);
    let x = find(&f, &pf::RECORD_FIELDS, Severity::Error);
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("crash"));
    assert!(x.message.contains("of 32 bytes"), "{}", x.message);
    assert_eq!(errors(&findings(&ino)), 0, "{}", show(&findings(&ino)));
    let lpd = lpd_read(&b);
    let perf = perf_script(&b);
    // A FINISHED_ROUND made ID_INDEX: no room for the count, which perf reads from the next
    // record's header.
    let rounds = read("rounds.data");
    let (o, _, _) = *records(&rounds).iter().find(|r| r.1 == 68).unwrap();
    let mut idx = rounds.clone();
    idx[o..o + 4].copy_from_slice(&69u32.to_le_bytes());
    let f = findings(&idx);
    let x = find(&f, &pf::RECORD_FIELDS, Severity::Error);
    assert!(
        x.message.contains("too short for its count"),
        "{}",
        x.message
    );
    // A sample CPU past perf's 4,096: `perf report` indexes its per-CPU table with it.
    let regs = read("regs-period.data");
    let (o, _, _) = *records(&regs).iter().find(|r| r.1 == 9).unwrap();
    // sample_type IP|TID|TIME|ADDR|CPU|PERIOD|...: the CPU follows ip, pid/tid, time, addr
    let st = u64_at(&regs, u64_at(&regs, 24) as usize + 24);
    assert_eq!(st & 0x1cf, 0x18f, "{st:#x}");
    let cpu_at = o + 8 + 8 + 8 + 8 + 8;
    for (cpu, sev) in [(0x10000u32, Severity::Error), (3, Severity::Warning)] {
        let mut b = regs.clone();
        b[cpu_at..cpu_at + 4].copy_from_slice(&cpu.to_le_bytes());
        let f = findings(&b);
        find(&f, &pf::METADATA_MISMATCH, sev);
    }
    match lpd {
        Some((code, _)) => assert_eq!(code, 101, "linux-perf-data on a 32-byte MMAP2 build id"),
        None => skip_or_fail("linux-perf-data 0.13.0 is not built (python3 campaign/readers.py)"),
    }
    let Some((code, _)) = perf else {
        return skip_or_fail("perf is not installed");
    };
    assert_eq!(code, -6, "perf 6.1 on a 32-byte MMAP2 build id");
    let (code, lines) = perf_script(&idx).unwrap();
    assert_eq!((code, lines), (254, 0), "ID_INDEX without its count");
}

#[test]
fn pipe_streams_cut_or_misframed_before_their_samples() {
    let good = read("pipe.data");
    let recs = stream_records(&good);
    // Cut inside a HEADER_FEATURE record: linux-perf-data refuses to open the stream.
    let (o, t, s) = *recs.iter().find(|r| r.1 == 80).unwrap();
    assert_eq!(t, 80);
    let f = findings(&good[..o + s / 2]);
    find(&f, &pf::TRUNCATED_STREAM, Severity::Error);
    // Cut inside the last sample: both read the whole samples before it.
    let (o, _, s) = *recs.iter().rev().find(|r| r.1 == 9).unwrap();
    let f = findings(&good[..o + s / 2]);
    find(&f, &pf::TRUNCATED_STREAM, Severity::Warning);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    // A FINISHED_ROUND made 9 bytes: perf 6.1 shows none of the samples.
    let (o, _, _) = *recs.iter().find(|r| r.1 == 68).unwrap();
    let mut b = good.clone();
    b[o + 6..o + 8].copy_from_slice(&9u16.to_le_bytes());
    let f = findings(&b);
    assert!(errors(&f) > 0, "{}", show(&f));
    // Nothing but the header: no attrs.
    let f = findings(&good[..16]);
    find(&f, &pf::PIPE_RECORDS, Severity::Error);
    // A HEADER_FEATURE whose string length runs past its record: perf stops the stream.
    let hf: Vec<_> = recs.iter().filter(|r| r.1 == 80).collect();
    let (o, _, _) = **hf.iter().find(|r| u64_at(&good, r.0 + 8) == 3).unwrap(); // HOSTNAME
    let mut b = good.clone();
    b[o + 16..o + 20].copy_from_slice(&0x8000_0000u32.to_le_bytes());
    let f = findings(&b);
    let x = find(&f, &pf::FEATURE_PAYLOAD, Severity::Error);
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("reject"));
}

/// A model of the perf.data writer (`formats::perf::writer`), drawn from `seed`.
fn writer_model(seed: u64, pipe: bool) -> tracelint::formats::perf::writer::File {
    use tracelint::formats::perf::writer as pw;
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let nattrs = 1 + next() % 3;
    let attrs = (0..nattrs)
        .map(|i| pw::Attr {
            kind: 1,
            config: i,
            sample_type: next(),
            sample_id_all: next() % 2 == 0,
            ids: 1 + (next() % 3) as u8,
        })
        .collect();
    let mut t = 1_000_000u64;
    let records = (0..(next() % 40))
        .map(|_| {
            t += next() % 1000;
            match next() % 6 {
                0 => pw::Record::Comm {
                    pid: 100,
                    name: "work".into(),
                },
                1 => pw::Record::Mmap2 {
                    pid: 100,
                    addr: 0x40_0000,
                    len: 0x1000,
                    file: "/usr/bin/work".into(),
                },
                2 => pw::Record::Fork {
                    pid: 101,
                    ppid: 100,
                    time: t,
                    exit: next() % 2 == 0,
                },
                _ => pw::Record::Sample {
                    attr: (next() % 4) as u8,
                    ip: 0x40_1000 + next() % 0x100,
                    pid: 100,
                    time: t,
                    cpu: 0,
                    period: 1 + next() % 100,
                    callchain: (0..next() % 5).map(|k| 0x40_1000 + k * 16).collect(),
                    raw: (0..next() % 20).map(|k| k as u8).collect(),
                },
            }
        })
        .collect();
    let features = if pipe {
        Vec::new()
    } else {
        vec![
            pw::Feature::Hostname("host".into()),
            pw::Feature::OsRelease("6.1.0".into()),
            pw::Feature::Version("6.1.187".into()),
            pw::Feature::Arch("x86_64".into()),
            pw::Feature::NrCpus(2, 2),
            pw::Feature::Cmdline(vec!["perf".into(), "record".into()]),
            pw::Feature::EventDesc,
        ]
    };
    let mut f = pw::File {
        big_endian: false,
        pipe,
        attrs,
        records,
        features,
    };
    pw::normalize(&mut f);
    f
}

/// The perf.data writer (what the structure-aware fuzz target renders) writes files perf 6.1
/// reads, sample for sample, and that tracelint passes: the writer, the decoder and perf agree.
#[test]
fn writer_files_are_read_by_perf_and_pass() {
    use tracelint::formats::perf::writer as pw;
    let have = std::process::Command::new("perf")
        .arg("--version")
        .output()
        .is_ok();
    if !have {
        skip_or_fail("perf is not installed");
    }
    let tmp = tempfile::tempdir().unwrap();
    for seed in 1..=40u64 {
        for pipe in [false, true] {
            let model = writer_model(seed, pipe);
            let bytes = pw::write(&model);
            let f = findings(&bytes);
            assert_eq!(errors(&f), 0, "seed {seed} pipe {pipe}: {}", show(&f));
            let mut sink = Sink::new(1000);
            let p = tracelint::formats::perf::decode::decode(
                &bytes,
                &tracelint::Limits::default(),
                &mut sink,
            )
            .unwrap();
            assert_eq!(
                p.walk.samples,
                pw::samples(&model),
                "seed {seed} pipe {pipe}"
            );
            tracelint::fuzzing::run_format(&tracelint::formats::perf::SPEC, &bytes);
            if have && seed <= 12 {
                let path = tmp.path().join(format!("w{seed}-{pipe}.data"));
                std::fs::write(&path, &bytes).unwrap();
                let o = std::process::Command::new("perf")
                    .args(["report", "--stdio", "-i"])
                    .arg(&path)
                    .output()
                    .unwrap();
                // `# Samples: N  of event '...'` per event.
                let shown: u64 = String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .filter_map(|l| l.strip_prefix("# Samples: "))
                    .filter_map(|r| r.split_whitespace().next()?.parse::<u64>().ok())
                    .sum();
                assert_eq!(
                    shown,
                    pw::samples(&model),
                    "seed {seed} pipe {pipe}: perf report shows {shown}: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
            }
        }
    }
}

/// The findings of an input as `(code, severity, offset, length, message)`, in report order.
fn keyed(f: &[Finding]) -> Vec<(String, Severity, u64, u64, String)> {
    let mut v: Vec<_> = f
        .iter()
        .map(|f| {
            (
                f.rule.code.to_string(),
                f.severity,
                f.offset,
                f.length,
                f.message.clone(),
            )
        })
        .collect();
    v.sort();
    v
}

#[track_caller]
fn assert_same(
    got: &[(String, Severity, u64, u64, String)],
    want: &[(String, Severity, u64, u64, String)],
    what: &str,
) {
    if let Some(i) = (0..got.len().max(want.len())).find(|i| got.get(*i) != want.get(*i)) {
        panic!(
            "{what}: {} findings, {} expected; first difference at {i}: {:?} instead of {:?}",
            got.len(),
            want.len(),
            got.get(i),
            want.get(i)
        );
    }
}

/// A pipe-mode stream of at least `size` bytes: `pipe` followed by copies of its SAMPLE records.
fn longer_pipe(pipe: &[u8], size: usize) -> Vec<u8> {
    let mut samples = Vec::new();
    let mut o = 16;
    while o + 8 <= pipe.len() {
        let t = u32::from_le_bytes(pipe[o..o + 4].try_into().unwrap());
        let s = u16::from_le_bytes(pipe[o + 6..o + 8].try_into().unwrap()) as usize;
        if t == 9 {
            samples.extend_from_slice(&pipe[o..o + s]);
        }
        o += s;
    }
    assert!(!samples.is_empty());
    let mut b = pipe.to_vec();
    while b.len() < size {
        b.extend_from_slice(&samples);
    }
    b
}

/// `good`'s data section repeated `times` times, the feature table and sections moved after it.
fn grown(good: &[u8], times: usize) -> Vec<u8> {
    let d0 = u64_at(good, 40) as usize;
    let ds = u64_at(good, 48) as usize;
    let n: u32 = (0..4).map(|i| u64_at(good, 72 + 8 * i).count_ones()).sum();
    let mut b = good[..d0].to_vec();
    for _ in 0..times {
        b.extend_from_slice(&good[d0..d0 + ds]);
    }
    b.extend_from_slice(&good[d0 + ds..]);
    put64(&mut b, 48, (ds * times) as u64);
    let ft = d0 + ds * times;
    for i in 0..n as usize {
        let o = u64_at(&b, ft + 16 * i);
        put64(&mut b, ft + 16 * i, o + (ds * (times - 1)) as u64);
    }
    b
}

/// Checks `data` as a file on disk (read in chunks by positioned reads, in both load modes)
/// and, for a pipe-mode stream, as standard input (walked as it comes); each must find what
/// the check of the bytes in memory finds.
#[track_caller]
fn same_by_every_path(name: &str, data: &[u8]) {
    let whole = keyed(&check(data, &CheckOptions::default()));
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.data");
    std::fs::write(&p, data).unwrap();
    for mode in [
        tracelint::input::LoadMode::Mmap,
        tracelint::input::LoadMode::Windowed,
    ] {
        let opts = CheckOptions {
            load_mode: mode,
            ..CheckOptions::default()
        };
        let r = tracelint::check_path(&p, &opts, &tracelint::config::Config::default());
        assert!(!r.io_failed, "{name}");
        assert_same(
            &keyed(&r.findings),
            &whole,
            &format!("{name}: file, {mode:?}"),
        );
    }
    if tracelint::formats::perf::is_pipe_head(data) {
        let r = tracelint::check::check_reader(
            Path::new("-"),
            Box::new(std::io::Cursor::new(data.to_vec())),
            &CheckOptions::default(),
            &tracelint::config::Config::default(),
        );
        assert_same(&keyed(&r.findings), &whole, &format!("{name}: stream"));
        assert_eq!(r.size, data.len() as u64, "{name}: stream size");
    }
}

#[test]
fn files_and_streams_read_in_windows_find_what_the_whole_bytes_find() {
    let mut inputs: Vec<(String, Vec<u8>)> = good_files()
        .iter()
        .chain(
            std::fs::read_dir(common::corpus("perf").join("defects"))
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect::<Vec<_>>()
                .iter(),
        )
        .map(|p| (p.display().to_string(), std::fs::read(p).unwrap()))
        .collect();
    // Larger than several read chunks (1 MiB): records straddle the chunk boundaries.
    let cpu = read("cpu-clock.data");
    let big = grown(&cpu, (3 << 20) / u64_at(&cpu, 48) as usize + 1);
    assert!(big.len() > 3 << 20);
    inputs.push(("cpu-clock.data grown".into(), big.clone()));
    let pipe = read("pipe.data");
    let long_pipe = longer_pipe(&pipe, 3 << 20);
    inputs.push(("pipe.data repeated".into(), long_pipe.clone()));
    // Cut inside a record past the first chunk, as a file and as a stream.
    inputs.push((
        "pipe.data repeated, cut".into(),
        long_pipe[..long_pipe.len() - 5].to_vec(),
    ));
    let d0 = u64_at(&big, 40) as usize;
    inputs.push((
        "cpu-clock.data grown, cut".into(),
        big[..d0 + (2 << 20) + 3].to_vec(),
    ));
    // Single bytes changed here and there.
    for (name, good) in [("zstd.data", read("zstd.data")), ("pipe.data", pipe)] {
        for k in (0..good.len()).step_by(good.len() / 37 + 1) {
            let mut b = good.clone();
            b[k] ^= 0x5a;
            inputs.push((format!("{name} ^ at {k}"), b));
        }
    }
    for (name, data) in &inputs {
        same_by_every_path(name, data);
    }
}

#[test]
fn a_large_pipe_stream_is_not_spilled_and_a_cut_one_is_reported() {
    let long_pipe = longer_pipe(&read("pipe.data"), 12 << 20);
    // Over `unpack_memory_bytes` (8 MiB): held or spilled, it would be checked whole; as a
    // stream it is walked as it comes and cut at the end like the bytes.
    let cut = &long_pipe[..long_pipe.len() - 3];
    let r = tracelint::check::check_reader(
        Path::new("-"),
        Box::new(std::io::Cursor::new(cut.to_vec())),
        &CheckOptions::default(),
        &tracelint::config::Config::default(),
    );
    let x = find(&r.findings, &pf::TRUNCATED_STREAM, Severity::Warning);
    assert_eq!(x.offset + x.length, cut.len() as u64);
    assert_same(
        &keyed(&r.findings),
        &keyed(&check(cut, &CheckOptions::default())),
        "a cut stream",
    );
}

// ---- Classes of the fresh draw `pf3`: each damaged copy is also read by perf 6.1 and
// linux-perf-data 0.13.0 (when present), which show what the level claims.

/// What perf 6.1's `perf script` does with `bytes`: (exit code, or minus the signal; lines
/// printed), or None without perf.
fn perf_script(bytes: &[u8]) -> Option<(i32, usize)> {
    use std::os::unix::process::ExitStatusExt;
    let o = perf_script_with(bytes, &[])?;
    let code = o
        .status
        .code()
        .unwrap_or_else(|| -o.status.signal().unwrap_or(0));
    let lines = o.stdout.iter().filter(|c| **c == b'\n').count();
    Some((code, lines))
}

/// The exit of `perf report --stdio -n --no-children` on `bytes` (`Some(-signal)` when killed),
/// or None without perf.
fn perf_report_status(bytes: &[u8]) -> Option<Option<i32>> {
    use std::os::unix::process::ExitStatusExt;
    let o = perf_with(&["report", "--stdio", "-n", "--no-children"], bytes)?;
    Some(o.status.code().or_else(|| o.status.signal().map(|s| -s)))
}

/// `perf script ARGS -i` on `bytes` (written to a temporary file), or None without perf.
fn perf_script_with(bytes: &[u8], args: &[&str]) -> Option<std::process::Output> {
    let mut cmd = vec!["script"];
    cmd.extend_from_slice(args);
    perf_with(&cmd, bytes)
}

/// `perf CMD -i` on `bytes` (written to a temporary file), or None without perf.
fn perf_with(cmd: &[&str], bytes: &[u8]) -> Option<std::process::Output> {
    std::process::Command::new("perf")
        .arg("version")
        .output()
        .ok()?;
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("in.data");
    std::fs::write(&p, bytes).unwrap();
    let o = std::process::Command::new("perf")
        .args(cmd)
        .arg("-i")
        .arg(&p)
        .env("HOME", "/nonexistent")
        .output()
        .unwrap();
    Some(o)
}

/// linux-perf-data 0.13.0 shows one sample fewer of `bad` than of `good` (skipped when it is
/// not built, failed in CI).
fn assert_lpd_loses_one(good: &[u8], bad: &[u8]) {
    match (lpd_read(good), lpd_read(bad)) {
        (Some((_, a)), Some((_, c))) => assert_eq!(
            c.matches("SAMPLE ").count() + 1,
            a.matches("SAMPLE ").count()
        ),
        _ => skip_or_fail("linux-perf-data 0.13.0 is not built (python3 campaign/readers.py)"),
    }
}

/// What linux-perf-data 0.13.0 (the campaign's `campaign/perf-reader`, built by
/// `campaign/readers.py` into the reader cache) does with `bytes`: (exit code, its output), or
/// None when it is not built.
fn lpd_read(bytes: &[u8]) -> Option<(i32, String)> {
    let bin = common::reader_cache()
        .join("linux-perf-data-0.13.0")
        .join("tracelint-perf-reader");
    if !bin.exists() {
        return None;
    }
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("in.data");
    std::fs::write(&p, bytes).unwrap();
    let o = std::process::Command::new(&bin).arg(&p).output().unwrap();
    Some((
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    ))
}

fn put32(b: &mut [u8], o: usize, v: u32) {
    b[o..o + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn feature_payloads_perf_61_fails_on() {
    // CMDLINE with a count of 0xffffffff: argv of count + 1 = 0 entries (u32), then written.
    let mut b = read("callchain-fp.data");
    let (_, off, _) = feature_at(&b, 11);
    put32(&mut b, off, u32::MAX);
    let f = findings(&b);
    let x = find(&f, &pf::FEATURE_PAYLOAD, Severity::Error);
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("crash"));
    let crash = perf_script(&b);
    // One string fewer than the count says: perf fails the feature and reads on.
    let mut c = read("callchain-fp.data");
    let n = u32::from_le_bytes(c[off..off + 4].try_into().unwrap());
    put32(&mut c, off, n + 1);
    assert_eq!(errors(&findings(&c)), 0, "{}", show(&findings(&c)));
    let fine = perf_script(&c);
    // MEM_TOPOLOGY with a node bitmap of 2^32 + 200 bits: 4 words allocated (the count cut to
    // an int), 5 read up to the end of the file.
    let inj = read("inject.data");
    let (_, off, _) = feature_at(&inj, 22);
    let mut m = inj.clone();
    assert_eq!(u64_at(&m, off + 40), 200);
    put64(&mut m, off + 40, (1 << 32) | 200);
    let f = findings(&m);
    let x = find(&f, &pf::FEATURE_PAYLOAD, Severity::Error);
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("crash"));
    // 0x80000000 bits: a negative int, the allocation fails and perf reads on.
    let mut m2 = inj.clone();
    put64(&mut m2, off + 40, 0x8000_0000);
    assert_eq!(errors(&findings(&m2)), 0, "{}", show(&findings(&m2)));
    // CACHE and MEM_TOPOLOGY versions other than 1 before COMPRESSED: perf stops reading
    // features there and decompresses nothing.
    let z = read("zstd.data");
    let mut versions = Vec::new();
    for (bit, width) in [(20u32, 4usize), (22, 8)] {
        let mut v = z.clone();
        let (_, off, _) = feature_at(&v, bit);
        if width == 4 {
            put32(&mut v, off, 2);
        } else {
            put64(&mut v, off, 2);
        }
        let f = findings(&v);
        find(&f, &pf::FEATURE_PAYLOAD, Severity::Warning);
        let x = find(&f, &pf::COMPRESSED_FEATURE, Severity::Error);
        assert!(x.message.contains("before COMPRESSED"), "{}", x.message);
        versions.push(v);
    }
    let Some((code, _)) = crash else {
        skip_or_fail("perf is not installed");
        return;
    };
    assert_eq!(code, -6, "CMDLINE count 0xffffffff: SIGABRT");
    assert_eq!(fine.unwrap().0, 0);
    assert_eq!(perf_script(&m).unwrap().0, -6, "MEM_TOPOLOGY bitmap");
    assert_eq!(perf_script(&m2).unwrap().0, 0);
    let whole = perf_script(&z).unwrap();
    assert!(whole.1 > 0);
    for v in &versions {
        let (code, lines) = perf_script(v).unwrap();
        assert_ne!(code, 0);
        assert_eq!(lines, 0);
    }
}

#[test]
fn build_id_names_past_perfs_stack_buffer() {
    // The BUILD_ID section moved to offset 0: perf 6.1 reads the file header as an entry whose
    // size is the magic's last two bytes ("E2", 12,869), and its name into `filename[4096]`
    // on the stack, up to the end of the file.
    let big = read("trace.data");
    assert!(big.len() > 8236 + 36);
    let (e, _, _) = feature_at(&big, 2);
    let mut at0 = big.clone();
    put64(&mut at0, e, 0);
    let f = findings(&at0);
    let x = find(&f, &pf::FEATURE_PAYLOAD, Severity::Error);
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("crash"));
    assert!(x.message.contains("12869 bytes"), "{}", x.message);
    // In a file of fewer than 8,236 bytes the name stops short of the canary: a warning.
    let small = read("read-children.data");
    assert!(small.len() < 8236);
    let (e, _, _) = feature_at(&small, 2);
    let mut small0 = small.clone();
    put64(&mut small0, e, 0);
    let f = findings(&small0);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    assert!(
        f.iter()
            .any(|x| x.rule == &pf::FEATURE_PAYLOAD
                && x.message.contains("stack buffer of 4096 bytes")),
        "{}",
        show(&f)
    );
    // An entry of the section (moved into the data, 256 bytes in) whose name is 8,200 bytes
    // (reads) or 8,202 (past the canary), the bytes there in the file.
    let entry = |size: u16| {
        let mut b = big.clone();
        let (e, _, _) = feature_at(&b, 2);
        put64(&mut b, e, 256);
        b[256 + 6..256 + 8].copy_from_slice(&size.to_le_bytes());
        b
    };
    let (fits, over) = (entry(36 + 8200), entry(36 + 8202));
    assert_eq!(errors(&findings(&fits)), 0, "{}", show(&findings(&fits)));
    let f = findings(&over);
    let x = find(&f, &pf::FEATURE_PAYLOAD, Severity::Error);
    assert!(x.message.contains("at 0x100"), "{}", x.message);
    // Every real recording's entries are far below the buffer.
    for p in good_files() {
        let f = findings(&std::fs::read(&p).unwrap());
        assert!(
            !f.iter().any(|x| x.message.contains("stack buffer")),
            "{}: {}",
            p.display(),
            show(&f)
        );
    }
    let Some((code, _)) = perf_script(&at0) else {
        skip_or_fail("perf is not installed");
        return;
    };
    assert_eq!(code, -6, "BUILD_ID at offset 0 of trace.data: SIGABRT");
    assert_eq!(perf_script(&small0).unwrap().0, 0);
    assert_eq!(perf_script(&fits).unwrap().0, 0);
    assert_eq!(perf_script(&over).unwrap().0, -6);
}

#[test]
fn raw_sizes_shrunk_inside_their_samples_read_the_same() {
    // `raw_syscalls` samples of syscalls.data (RAW their last field) whose raw size became 0,
    // 1 or half its value: the bytes after it are left inside the sample.
    let good = read("syscalls.data");
    let mut copies = Vec::new();
    for (at, was, now) in [
        (0x880usize, 0x1cu32, 0u32),
        (0x880, 0x1c, 0x1b),
        (0x5e8, 0x34, 0x1a),
    ] {
        assert_eq!(
            u32::from_le_bytes(good[at..at + 4].try_into().unwrap()),
            was
        );
        let mut b = good.clone();
        put32(&mut b, at, now);
        let f = findings(&b);
        let x = find(&f, &pf::SAMPLE_BODY, Severity::Warning);
        assert!(x.message.contains("after its raw data"), "{}", x.message);
        assert_eq!(errors(&f), 0, "{}", show(&f));
        copies.push(b);
    }
    // The first sample of its event with a raw size of 0 or 1, too small for common_type:
    // `perf report` crashes (SIGSEGV); an error.
    let mut first = good.clone();
    assert_eq!(
        u32::from_le_bytes(good[0x520..0x524].try_into().unwrap()),
        52
    );
    put32(&mut first, 0x520, 1);
    let ff = findings(&first);
    let x = find(&ff, &pf::SAMPLE_BODY, Severity::Error);
    assert!(
        x.message.contains("first sample of its event"),
        "{}",
        x.message
    );
    if let Some(o) = perf_report_status(&first) {
        assert_eq!(o, Some(-11));
    }
    // Grown past the sample: an error.
    let mut b = good.clone();
    put32(&mut b, 0x880, 0x1c + 8);
    find(&findings(&b), &pf::SAMPLE_BODY, Severity::Error);
    let Some(whole) = perf_script(&good) else {
        return skip_or_fail("perf is not installed");
    };
    for b in &copies {
        assert_eq!(perf_script(b), Some(whole));
    }
}

#[test]
fn tracepoint_formats_perf_cannot_parse() {
    // A field of trace.data's `sys_enter` format whose `size:` reads `siz6`: libtraceevent
    // keeps the event (its name and ID read) but cannot parse its fields.
    let damage = |name: &str, event: &[u8], field: &[u8]| {
        let mut b = read(name);
        let i = b.windows(event.len()).position(|w| w == event).unwrap();
        let f = i + b[i..]
            .windows(field.len())
            .position(|w| w == field)
            .unwrap();
        let j = f + b[f..].windows(6).position(|w| w == b"\tsize:").unwrap();
        b[j + 4] = b'6';
        b
    };
    let b = damage("trace.data", b"name: sys_enter", b"field:long id");
    let f = findings(&b);
    let x = find(&f, &pf::TRACEPOINT_ID, Severity::Error);
    assert!(x.message.contains("FAILED TO PARSE"), "{}", x.message);
    find(&f, &pf::TRACEPOINT_ID, Severity::Warning);
    // lock.data has no sample: the attr's warning alone.
    let l = damage(
        "lock.data",
        b"name: contention_begin",
        b"field:int common_pid",
    );
    let f = findings(&l);
    find(&f, &pf::TRACEPOINT_ID, Severity::Warning);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    // A byte of the `unsigned` of `common_type` made 0xf8: libtraceevent's tokenizer reads no
    // token from it ("event_read_fields: no type found").
    let mut t = read("trace.data");
    let i = t.windows(15).position(|w| w == b"name: sys_enter").unwrap();
    let j = i + t[i..]
        .windows(23)
        .position(|w| w == b"field:unsigned short co")
        .unwrap();
    t[j + 10] = 0xf8;
    let f = findings(&t);
    let x = find(&f, &pf::TRACEPOINT_ID, Severity::Error);
    assert!(x.message.contains("does not parse"), "{}", x.message);
    let Some((code, lines)) = perf_script(&b) else {
        return skip_or_fail("perf is not installed");
    };
    assert_eq!((code, lines), perf_script(&read("trace.data")).unwrap());
    // perf 6.1 prints other lines than written for that recording.
    let shown = |b: &[u8]| perf_script_with(b, &[]).unwrap().stdout;
    assert_ne!(shown(&t), shown(&read("trace.data")));
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("in.data");
    std::fs::write(&p, &b).unwrap();
    let out = std::process::Command::new("perf")
        .args(["script", "-i"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("[FAILED TO PARSE]"));
}

#[test]
fn pmu_mapping_counts_and_stream_event_desc() {
    // A PMU_MAPPINGS count two past its entries: perf fails the feature and reads on; one of
    // 0x7fffffff: it crashes.
    let good = read("regs-period.data");
    let (_, off, _) = feature_at(&good, 16);
    let n = u32::from_le_bytes(good[off..off + 4].try_into().unwrap());
    let mut past = good.clone();
    put32(&mut past, off, n + 2);
    let f = findings(&past);
    find(&f, &pf::FEATURE_PAYLOAD, Severity::Warning);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    let mut huge = good.clone();
    put32(&mut huge, off, 0x7fff_ffff);
    let x = find(&findings(&huge), &pf::FEATURE_PAYLOAD, Severity::Error).clone();
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("crash"));
    // A stream's EVENT_DESC sample_type changed: linux-perf-data reads the samples with the
    // HEADER_ATTR records' attrs and takes only the names from EVENT_DESC.
    let pipe = read("pipe.data");
    let (o, _, _) = *stream_records(&pipe)
        .iter()
        .find(|r| r.1 == 80 && u64_at(&pipe, r.0 + 8) == 12)
        .unwrap();
    let mut desc = pipe.clone();
    let st = u64_at(&desc, o + 24 + 24);
    put64(&mut desc, o + 24 + 24, st ^ 0x8);
    let f = findings(&desc);
    find(&f, &pf::EVENT_DESC, Severity::Warning);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    let lpd = lpd_read(&pipe).map(|(c, o)| (c, o, lpd_read(&desc).unwrap()));
    let Some((code, _)) = perf_script(&good) else {
        return skip_or_fail("perf is not installed");
    };
    assert_eq!(code, 0);
    assert_eq!(perf_script(&past).unwrap(), perf_script(&good).unwrap());
    assert_eq!(perf_script(&huge).unwrap().0, -11);
    let Some((code, out, changed)) = lpd else {
        return skip_or_fail("linux-perf-data 0.13.0 is not built (python3 campaign/readers.py)");
    };
    assert_eq!(code, 0);
    assert_eq!(changed, (0, out));
}

#[test]
fn tracing_data_sections_whose_size_alone_is_wrong() {
    // perf reads the block from the file, not bounded by its section.
    let good = read("tracepoint.data");
    let (e, _, size) = feature_at(&good, 1);
    let mut copies = Vec::new();
    for s in [0u64, 1, size as u64 / 2, size as u64 - 1] {
        let mut b = good.clone();
        put64(&mut b, e + 8, s);
        let f = findings(&b);
        let x = find(&f, &pf::FEATURE_PAYLOAD, Severity::Warning);
        assert!(
            x.message.contains("not bounded by the section"),
            "{}",
            x.message
        );
        assert_eq!(errors(&f), 0, "size {s}: {}", show(&f));
        copies.push(b);
    }
    let Some(whole) = perf_script(&good) else {
        return skip_or_fail("perf is not installed");
    };
    for b in &copies {
        assert_eq!(perf_script(b), Some(whole));
    }
}

#[test]
fn numa_cpu_lists_perf_cannot_parse() {
    // The NUMA node's CPU list "0-1" made "0}1": perf 6.1's `perf_cpu_map__new` refuses it
    // and fails the feature. In a stream that stops perf at the HEADER_FEATURE record.
    let pipe = read("pipe.data");
    let (o, _, size) = *stream_records(&pipe)
        .iter()
        .find(|r| r.1 == 80 && u64_at(&pipe, r.0 + 8) == 14)
        .unwrap();
    let dash = o
        + pipe[o..o + size]
            .windows(4)
            .position(|w| w == b"0-1\0")
            .unwrap()
        + 1;
    let mut b = pipe.clone();
    b[dash] = b'}';
    let f = findings(&b);
    let x = find(&f, &pf::FEATURE_PAYLOAD, Severity::Error);
    assert!(x.message.contains("CPU list"), "{}", x.message);
    // In a file perf fails the feature and reads on: a warning.
    let good = read("cpu-clock.data");
    let (_, off, size) = feature_at(&good, 14);
    let dash = off
        + good[off..off + size]
            .windows(4)
            .position(|w| w == b"0-1\0")
            .unwrap()
        + 1;
    let mut c = good.clone();
    c[dash] = b'}';
    let f = findings(&c);
    find(&f, &pf::FEATURE_PAYLOAD, Severity::Warning);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    let Some((code, lines)) = perf_script(&b) else {
        return skip_or_fail("perf is not installed");
    };
    let whole = perf_script(&pipe).unwrap();
    assert!(whole.1 > 0);
    assert!(code != 0 || lines < whole.1, "{code} {lines}");
    assert_eq!(perf_script(&c), perf_script(&good));
    // A node count one more in a `-z` recording: the second node is read from PMU_MAPPINGS,
    // its CPU list 0 bytes long; perf fails the feature, never reads COMPRESSED.
    let z = read("zstd.data");
    let (_, off, _) = feature_at(&z, 14);
    let mut two = z.clone();
    put32(&mut two, off, 2);
    let f = findings(&two);
    find(&f, &pf::COMPRESSED_FEATURE, Severity::Error);
    assert_eq!(perf_script(&two).unwrap().1, 0);
    assert!(perf_script(&z).unwrap().1 > 0);
}

#[test]
fn a_user_map_made_kernel_before_its_object_is_mapped_again() {
    // regs-period.data's first map of ld.so (no BUILD_ID entry, mapped three times more)
    // given cpu mode 1 (kernel).
    let good = read("regs-period.data");
    let maps: Vec<(usize, u32, usize)> = records(&good).into_iter().filter(|r| r.1 == 10).collect();
    let name = |o: usize, s: usize| {
        let raw = &good[o + 8 + 64..o + s];
        raw[..raw.iter().position(|c| *c == 0).unwrap()].to_vec()
    };
    let ld = |n: &[u8]| n.ends_with(b"ld-linux-x86-64.so.2");
    let (first, _, _) = *maps.iter().find(|r| ld(&name(r.0, r.2))).unwrap();
    let mark = |o: usize| {
        let mut b = good.clone();
        let misc = u16::from_le_bytes(b[o + 4..o + 6].try_into().unwrap());
        b[o + 4..o + 6].copy_from_slice(&((misc & !7) | 1).to_le_bytes());
        b
    };
    let b = mark(first);
    let f = findings(&b);
    let x = find(&f, &pf::RECORD_FIELDS, Severity::Error);
    assert!(x.message.contains("kernel cpu mode"), "{}", x.message);
    // Its second map made so: perf reads on here, but aborts on other later maps
    // (`a_later_user_map_with_a_kernel_cpu_mode_is_an_error`) by no rule the record shows.
    let (second, _, _) = *maps.iter().filter(|r| ld(&name(r.0, r.2))).nth(1).unwrap();
    let c = mark(second);
    let f = findings(&c);
    let x = find_text(
        &f,
        &pf::RECORD_FIELDS,
        "mapped before, with a kernel cpu mode",
    );
    assert_eq!(x.severity, Severity::Error, "{}", x.message);
    let report = |bytes: &[u8]| {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("in.data");
        std::fs::write(&p, bytes).unwrap();
        std::process::Command::new("perf")
            .args(["report", "--stdio", "-i"])
            .arg(&p)
            .output()
            .ok()
            .map(|o| o.status.success())
    };
    let Some(fine) = report(&good) else {
        return skip_or_fail("perf is not installed");
    };
    assert!(fine);
    assert_eq!(report(&b), Some(false));
    assert_eq!(report(&c), Some(true));
}

#[test]
fn attrs_and_event_desc_perf_61_or_linux_perf_data_fail_on() {
    // A software attr made a tracepoint in a file without TRACING_DATA.
    let mut b = read("stat.data");
    let attrs = u64_at(&b, 24) as usize;
    put32(&mut b, attrs + 144, 2);
    let f = findings(&b);
    let x = find(&f, &pf::TRACEPOINT_ID, Severity::Error);
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("reject"));
    // EVENT_DESC's attr one byte shorter than its entries: linux-perf-data reads 120 bytes of
    // it and the rest of the section 7 bytes early.
    let mut e = read("zstd.data");
    let (_, off, _) = feature_at(&e, 12);
    assert_eq!(
        u32::from_le_bytes(e[off + 12..off + 16].try_into().unwrap()),
        128
    );
    put32(&mut e, off + 12, 127);
    let f = findings(&e);
    let x = find(&f, &pf::EVENT_DESC, Severity::Error);
    assert!(x.message.contains("120 bytes"), "{}", x.message);
    // 120 of 128 (an attr version's size): read exactly, then the 8 bytes skipped.
    let mut e2 = read("zstd.data");
    put32(&mut e2, off + 12, 120);
    let f = findings(&e2);
    assert!(
        !f.iter()
            .any(|x| x.rule == &pf::EVENT_DESC && x.severity == Severity::Error),
        "{}",
        show(&f)
    );
    match perf_script(&b) {
        Some((code, _)) => assert_eq!(code, 255, "incompatible file format"),
        None => skip_or_fail("perf is not installed"),
    }
    match (lpd_read(&e), lpd_read(&e2)) {
        (Some((code, out)), Some((code2, _))) => {
            assert_eq!(code, 1, "{out}");
            assert!(out.contains("ERROR"), "{out}");
            assert_eq!(code2, 0);
        }
        _ => skip_or_fail("linux-perf-data 0.13.0 is not built (python3 campaign/readers.py)"),
    }
}

#[test]
fn user_records_out_of_their_place() {
    let stat = read("stat.data");
    let first = records(&stat)[0].0;
    // The first record (an EVENT_UPDATE) made STAT_ROUND, then STAT: before THREAD_MAP and
    // CPU_MAP, which `perf script` sets its counters up from.
    let mut round = stat.clone();
    put32(&mut round, first, 77);
    let f = findings(&round);
    let x = find(&f, &pf::RECORD_FIELDS, Severity::Error);
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("crash"));
    let mut count = stat.clone();
    put32(&mut count, first, 76);
    let f = findings(&count);
    let x = find(&f, &pf::RECORD_FIELDS, Severity::Error);
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("reject"));
    // ID_INDEX made AUXTRACE_INFO in a recording of tracepoints: its count (4) read as the AUX
    // type, Arm SPE.
    let tr = read("trace.data");
    let (o, _, _) = *records(&tr).iter().find(|r| r.1 == 69).unwrap();
    assert_eq!(u64_at(&tr, o + 8), 4);
    let mut aux = tr.clone();
    put32(&mut aux, o, 70);
    let f = findings(&aux);
    let x = find(&f, &pf::RECORD_FIELDS, Severity::Error);
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("crash"));
    // AUX type 1 (Intel PT): a decoder that finds no AUX data, the samples read the same.
    let mut pt = aux.clone();
    put32(&mut pt, o + 8, 1);
    let f = findings(&pt);
    find(&f, &pf::RECORD_FIELDS, Severity::Warning);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    let Some((healthy, _)) = perf_script(&stat) else {
        skip_or_fail("perf is not installed");
        return;
    };
    assert_eq!(healthy, 0);
    assert_eq!(perf_script(&round).unwrap().0, -11, "SIGSEGV");
    assert_eq!(perf_script(&count).unwrap().0, 234);
    assert_eq!(perf_script(&aux).unwrap().0, -8, "SIGFPE");
    assert_eq!(perf_script(&pt).unwrap(), perf_script(&tr).unwrap());
}

#[test]
fn pipe_streams_perf_61_or_linux_perf_data_misread() {
    let good = read("pipe.data");
    let recs = stream_records(&good);
    let hf = |id: u64| {
        recs.iter()
            .find(|r| r.1 == 80 && u64_at(&good, r.0 + 8) == id)
            .copied()
            .unwrap()
    };
    // A HEADER_FEATURE id made 0 (HEADER_RESERVED): perf refuses the stream.
    let (o, _, _) = hf(3);
    let mut zero = good.clone();
    put64(&mut zero, o + 8, 0);
    let f = findings(&zero);
    let x = find(&f, &pf::PIPE_RECORDS, Severity::Error);
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("reject"));
    // The EVENT_DESC record retyped (TIME_CONV): linux-perf-data names the events attr0...
    let (o, _, _) = hf(12);
    let mut nodesc = good.clone();
    put32(&mut nodesc, o, 79);
    let f = findings(&nodesc);
    let x = find(&f, &pf::PIPE_RECORDS, Severity::Error);
    assert_eq!(x.impact.as_ref().map(|i| i.reader), Some("linux-perf-data"));
    // A COMM before the samples claiming 0xffff bytes, past the end: no record perf writes
    // (an odd size), and every sample after it is lost.
    let (o, _, _) = *recs.iter().find(|r| r.1 == 3).unwrap();
    let mut long = good.clone();
    long[o + 6..o + 8].copy_from_slice(&0xffffu16.to_le_bytes());
    let f = findings(&long);
    find(&f, &pf::TRUNCATED_STREAM, Severity::Error);
    // The same record cut by the end of the stream at a size perf could write: a cut, read
    // as it is.
    let f = findings(&good[..o + 24]);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    let Some((code, lines)) = perf_script(&good) else {
        skip_or_fail("perf is not installed");
        return;
    };
    assert_eq!((code, lines), (0, 12));
    assert_eq!(perf_script(&zero).unwrap().0, 234);
    assert_eq!(perf_script(&nodesc).unwrap(), (0, 12));
    assert_eq!(perf_script(&long).unwrap().1, 0);
    match (lpd_read(&good), lpd_read(&nodesc)) {
        (Some((_, a)), Some((_, b))) => {
            assert!(a.contains("SAMPLE cpu-clock "), "{a}");
            assert!(!b.contains("SAMPLE cpu-clock "), "{b}");
            assert!(b.contains("SAMPLE attr0 "), "{b}");
        }
        _ => skip_or_fail("linux-perf-data 0.13.0 is not built (python3 campaign/readers.py)"),
    }
}

/// A pipe-mode stream of a file-mode recording, as `perf record -o -` sends it: the header,
/// one HEADER_ATTR per attr (with its ids), HEADER_TRACING_DATA with the TRACING_DATA feature
/// as its payload (padded to 8) when the file has one, then the data section's records.
fn as_stream(file: &[u8]) -> Vec<u8> {
    as_stream_sized(file, true)
}

/// [`as_stream`]; `padded`: the HEADER_TRACING_DATA size padded to 8, as perf writes it.
fn as_stream_sized(file: &[u8], padded: bool) -> Vec<u8> {
    let mut out = b"PERFILE2".to_vec();
    out.extend_from_slice(&16u64.to_le_bytes());
    let attr_size = u64_at(file, 16) as usize;
    let (attrs, n) = (
        u64_at(file, 24) as usize,
        (u64_at(file, 32) / attr_size as u64) as usize,
    );
    for i in 0..n {
        let a = attrs + i * attr_size;
        let size = u32::from_le_bytes(file[a + 4..a + 8].try_into().unwrap()) as usize;
        let (ids_at, ids_len) = (
            u64_at(file, a + attr_size - 16) as usize,
            u64_at(file, a + attr_size - 8) as usize,
        );
        let total = 8 + size + ids_len;
        out.extend_from_slice(&64u32.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&(total as u16).to_le_bytes());
        out.extend_from_slice(&file[a..a + size]);
        out.extend_from_slice(&file[ids_at..ids_at + ids_len]);
    }
    if u64_at(file, 72) >> 1 & 1 == 1 {
        let (_, off, len) = feature_at(file, 1);
        out.extend_from_slice(&66u32.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&16u16.to_le_bytes());
        let size = if padded { len.div_ceil(8) * 8 } else { len };
        out.extend_from_slice(&(size as u32).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&file[off..off + len]);
        out.resize(out.len() + (8 - len % 8) % 8, 0);
    }
    let (d, dl) = (u64_at(file, 40) as usize, u64_at(file, 48) as usize);
    out.extend_from_slice(&file[d..d + dl]);
    out
}

#[test]
fn a_pipe_stream_is_walked_past_its_tracing_data() {
    let file = read("tracepoint.data");
    let stream = as_stream(&file);
    let f = findings(&stream);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    assert!(samples(&file) > 0);
    assert_eq!(samples(&stream), samples(&file));
    // A record after the tracing data damaged: seen.
    let (o, _, _) = *stream_records_after_tracing_data(&stream)
        .iter()
        .find(|r| r.1 == 9)
        .unwrap();
    let mut b = stream.clone();
    b[o + 6..o + 8].copy_from_slice(&0xfff9u16.to_le_bytes());
    assert!(errors(&findings(&b)) > 0, "{}", show(&findings(&b)));
    // The block's size unpadded: perf checks it against what it read, padded.
    let (_, _, len) = feature_at(&file, 1);
    assert_ne!(len % 8, 0);
    let unpadded = as_stream_sized(&file, false);
    let f = findings(&unpadded);
    let x = find(&f, &pf::PIPE_RECORDS, Severity::Error);
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("reject"));
    match perf_script(&stream) {
        Some((code, lines)) => {
            assert_eq!((code, lines as u64), (0, samples(&file)));
            assert_eq!(perf_script(&unpadded).unwrap(), (234, 0));
        }
        None => skip_or_fail("perf is not installed"),
    }
}

/// [`stream_records`], stepping over a HEADER_TRACING_DATA payload.
fn stream_records_after_tracing_data(b: &[u8]) -> Vec<(usize, u32, usize)> {
    let mut o = 16;
    let mut out = Vec::new();
    while o + 8 <= b.len() {
        let t = u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        let mut s = u16::from_le_bytes(b[o + 6..o + 8].try_into().unwrap()) as usize;
        out.push((o, t, s));
        if t == 66 {
            s +=
                (u32::from_le_bytes(b[o + 8..o + 12].try_into().unwrap()) as usize).div_ceil(8) * 8;
        }
        o += s;
    }
    out
}

// ---- Classes of the fresh draw `pf4`.

#[test]
fn features_as_perf_61_reads_them() {
    let z = read("zstd.data");
    // NRCPUS available made 0x80000000: perf 6.1 cannot allocate CPU_TOPOLOGY's table for a
    // negative count, fails that feature and never reads COMPRESSED.
    let mut b = z.clone();
    let (_, off, _) = feature_at(&b, 7);
    put32(&mut b, off, 0x8000_0000);
    let f = findings(&b);
    let x = find(&f, &pf::COMPRESSED_FEATURE, Severity::Error);
    assert!(x.message.contains("CPU_TOPOLOGY"), "{}", x.message);
    // A CMDLINE string 8 bytes shorter: perf reads the next lengths from its padding (empty
    // strings) and reads on: every sample decompressed.
    let mut c = z.clone();
    let (_, off, _) = feature_at(&c, 11);
    let len = u32::from_le_bytes(c[off + 4..off + 8].try_into().unwrap());
    put32(&mut c, off + 4, len - 8);
    let f = findings(&c);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    // No EVENT_DESC in the bitmap (the first word made 1): linux-perf-data names the events
    // attr0, attr1, ...: with several events their samples are told apart by that index
    // alone (an error); the one event of a file is shown whole under a generic name.
    let good = read("cpu-clock.data");
    let mut d = good.clone();
    put64(&mut d, 72, 1);
    let f = findings(&d);
    find(&f, &pf::EVENT_DESC, Severity::Warning);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    let mut g = read("group.data");
    put64(&mut g, 72, 1);
    let f = findings(&g);
    find(&f, &pf::EVENT_DESC, Severity::Error);
    // An event name that is not UTF-8: the same.
    let mut n = good.clone();
    let (_, off, _) = feature_at(&n, 12);
    let name_at = off + 8 + 128 + 4 + 4;
    assert_eq!(&n[name_at..name_at + 9], b"cpu-clock");
    n[name_at + 6] = 0xc3;
    let f = findings(&n);
    find(&f, &pf::EVENT_DESC, Severity::Error);
    match perf_script(&z) {
        Some((0, lines)) => {
            assert!(lines > 0);
            assert_eq!(perf_script(&b).unwrap().1, 0);
            assert_eq!(perf_script(&c).unwrap(), (0, lines));
        }
        Some(other) => panic!("perf script on zstd.data: {other:?}"),
        None => skip_or_fail("perf is not installed"),
    }
    match (lpd_read(&good), lpd_read(&d), lpd_read(&n)) {
        (Some((_, a)), Some((_, b)), Some((_, c))) => {
            assert!(a.contains("SAMPLE cpu-clock "), "{a}");
            assert!(
                b.contains("SAMPLE attr0 ") && !b.contains("SAMPLE cpu-clock "),
                "{b}"
            );
            assert!(c.contains("SAMPLE attr0 "), "{c}");
        }
        _ => skip_or_fail("linux-perf-data 0.13.0 is not built (python3 campaign/readers.py)"),
    }
}

#[test]
fn a_cut_stream_record_whose_fields_end_before_the_cut_was_resized() {
    let good = read("pipe.data");
    let recs = stream_records(&good);
    // A SAMPLE (fixed fields only), the CPU_MAP and an EVENT_UPDATE made 0x8000 bytes: the readers lose every
    // record after them; a cut record has the size its fields give it.
    for t in [9u32, 74, 78] {
        let (o, _, s) = *recs.iter().find(|r| r.1 == t).unwrap();
        let mut b = good.clone();
        b[o + 6..o + 8].copy_from_slice(&0x8000u16.to_le_bytes());
        let f = findings(&b);
        let x = find(&f, &pf::TRUNCATED_STREAM, Severity::Error);
        assert!(
            x.message.contains(&format!("make it {s} bytes")),
            "{}",
            x.message
        );
        if let Some((_, lines)) = perf_script(&b) {
            assert!(lines < 12, "type {t}: {lines}");
        }
    }
    // In a stream, EVENT_DESC's first id changed: linux-perf-data finds no entry for the attr.
    let (o, _, _) = *recs
        .iter()
        .find(|r| r.1 == 80 && u64_at(&good, r.0 + 8) == 12)
        .unwrap();
    let name_len_at = o + 16 + 8 + 128 + 4;
    let len = u32::from_le_bytes(good[name_len_at..name_len_at + 4].try_into().unwrap()) as usize;
    let first = name_len_at + 4 + len;
    let mut b = good.clone();
    let id = u64_at(&b, first);
    put64(&mut b, first, id / 2);
    let f = findings(&b);
    find(&f, &pf::EVENT_DESC, Severity::Error);
    match lpd_read(&b) {
        Some((_, out)) => assert!(out.contains("SAMPLE attr0 "), "{out}"),
        None => skip_or_fail("linux-perf-data 0.13.0 is not built (python3 campaign/readers.py)"),
    }
}

// ---- Classes of the fresh draw `pf7`.

/// perf 6.1's `perf script` on `bytes`, stopped after `secs` seconds if still running: (its
/// exit code, or None when stopped; its peak resident memory in KiB, read from
/// `/proc/<pid>/status` while it ran), or None without perf.
fn perf_script_peak(bytes: &[u8], secs: u64) -> Option<(Option<i32>, u64)> {
    std::process::Command::new("perf")
        .arg("version")
        .output()
        .ok()?;
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("in.data");
    std::fs::write(&p, bytes).unwrap();
    let mut child = std::process::Command::new("perf")
        .args(["script", "-i"])
        .arg(&p)
        .env("HOME", "/nonexistent")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    let start = std::time::Instant::now();
    loop {
        if let Ok(s) = std::fs::read_to_string(&status) {
            if let Some(kb) = s
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak = peak.max(kb);
            }
        }
        if let Some(st) = child.try_wait().unwrap() {
            return Some((st.code(), peak));
        }
        if start.elapsed().as_secs() >= secs {
            child.kill().unwrap();
            child.wait().unwrap();
            return Some((None, peak));
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// A GROUP_DESC count far above the events: perf 6.1 `calloc`s 16 bytes per group and clears
/// every entry when the groups are not there, its time and memory growing with the count (a
/// count of 0x52000000, the draw's, took it over 60 s and 13 GB). From 2^28 groups (4 GiB)
/// an error; below it the warning of a payload perf fails.
#[test]
fn a_group_count_perf_61_allocates_and_clears_for() {
    let good = read("stat.data");
    let (_, off, _) = feature_at(&good, 17);
    let with = |n: u32| {
        let mut b = good.clone();
        put32(&mut b, off, n);
        b
    };
    for n in [0x5200_0000u32, 1 << 28] {
        let f = findings(&with(n));
        let x = find(&f, &pf::FEATURE_PAYLOAD, Severity::Error);
        assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("hang"), "{n:#x}");
    }
    let small = with(1 << 26);
    let f = findings(&small);
    find(&f, &pf::FEATURE_PAYLOAD, Severity::Warning);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    // group.data's GROUP_DESC moved to offset 1: the count is "ERFI" (0x49465245).
    let mut g = read("group.data");
    let (ge, _, _) = feature_at(&g, 17);
    put64(&mut g, ge, 1);
    let f = findings(&g);
    let x = find(&f, &pf::FEATURE_PAYLOAD, Severity::Error);
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("hang"));
    // perf 6.1 on 2^26 groups (a 1 GiB array): it runs to its end, its peak memory that of
    // the array it cleared (the healthy file needs a few MB).
    match (perf_script_peak(&good, 60), perf_script_peak(&small, 60)) {
        (Some((Some(0), base)), Some((code, peak))) => {
            assert_eq!(code, Some(0));
            assert!(peak > base + (1 << 20) / 2, "{base} KiB, then {peak} KiB");
        }
        (Some(other), _) => panic!("perf script on stat.data: {other:?}"),
        _ => skip_or_fail("perf is not installed"),
    }
}

/// CPU_TOPOLOGY's per-CPU ids: perf 6.1 fails the feature on a socket id above the CPU count
/// NRCPUS gives (but 0xffffffff): a stream stops there (exit 234, no sample), a file's
/// feature walk stops before COMPRESSED (none of a `-z` recording's samples).
#[test]
fn a_socket_id_above_the_cpus_stops_perf_61() {
    // The per-CPU (core, socket) ids after the two sibling lists.
    fn ids_at(b: &[u8], mut p: usize) -> usize {
        for _ in 0..2 {
            let n = u32::from_le_bytes(b[p..p + 4].try_into().unwrap());
            p += 4;
            for _ in 0..n {
                p += 4 + u32::from_le_bytes(b[p..p + 4].try_into().unwrap()) as usize;
            }
        }
        p
    }
    let good = read("pipe.data");
    let (o, _, _) = *stream_records(&good)
        .iter()
        .find(|r| r.1 == 80 && u64_at(&good, r.0 + 8) == 13)
        .unwrap();
    let socket = ids_at(&good, o + 16) + 4;
    let (n, _, _) = *stream_records(&good)
        .iter()
        .find(|r| r.1 == 80 && u64_at(&good, r.0 + 8) == 7)
        .unwrap();
    let cpus = u32::from_le_bytes(good[n + 16..n + 20].try_into().unwrap());
    let with = |v: u32| {
        let mut b = good.clone();
        put32(&mut b, socket, v);
        b
    };
    let above = with(cpus + 1);
    let f = findings(&above);
    let x = find(&f, &pf::FEATURE_PAYLOAD, Severity::Error);
    assert!(x.message.contains("socket id"), "{}", x.message);
    for v in [cpus, u32::MAX] {
        let f = findings(&with(v));
        assert!(
            errors(&f) == 0 && !f.iter().any(|x| x.rule == &pf::FEATURE_PAYLOAD),
            "{v}: {}",
            show(&f)
        );
    }
    let z = read("zstd.data");
    let (_, off, _) = feature_at(&z, 13);
    let mut zb = z.clone();
    put32(&mut zb, ids_at(&z, off) + 4, 200);
    let f = findings(&zb);
    find(&f, &pf::COMPRESSED_FEATURE, Severity::Error);
    match perf_script(&good) {
        Some((0, lines)) => {
            assert!(lines > 0);
            assert_eq!(perf_script(&above), Some((234, 0)));
            assert_eq!(perf_script(&with(cpus)), Some((0, lines)));
            assert_eq!(perf_script(&with(u32::MAX)), Some((0, lines)));
            assert_eq!(perf_script(&zb).map(|r| r.1), Some(0));
        }
        Some(other) => panic!("perf script on pipe.data: {other:?}"),
        None => skip_or_fail("perf is not installed"),
    }
}

/// A cut stream's MMAP, MMAP2, COMM or EXIT record whose name (or fixed fields) and
/// `sample_id_all` trailer end before its size: its size was changed, the stream was not cut
/// there (perf 6.1 loses every record after it; pf7: an MMAP2 of a sched stream made 0x8000
/// and 0xd998 bytes).
#[test]
fn a_cut_stream_kernel_record_whose_fields_end_before_the_cut_was_resized() {
    let good = read("pipe.data");
    let recs = stream_records(&good);
    let whole = perf_script(&good);
    for t in [1u32, 3, 4, 10] {
        let (o, _, s) = *recs.iter().rfind(|r| r.1 == t).unwrap();
        let mut b = good.clone();
        b[o + 6..o + 8].copy_from_slice(&0x8000u16.to_le_bytes());
        let f = findings(&b);
        let x = find(&f, &pf::TRUNCATED_STREAM, Severity::Error);
        assert!(
            x.message.contains(&format!("make it {s} bytes")),
            "type {t}: {}",
            x.message
        );
        // Samples after it are lost (pipe.data's EXIT comes after the last sample).
        let after = recs.iter().any(|r| r.1 == 9 && r.0 > o);
        if let (Some((_, all)), Some((_, lines)), true) = (whole, perf_script(&b), after) {
            assert!(lines < all, "type {t}: {lines} of {all}");
        }
        // A real cut inside that record: a warning, every whole sample before it read.
        let cut = &good[..o + s - 1];
        let f = findings(cut);
        assert_eq!(errors(&f), 0, "type {t} cut: {}", show(&f));
    }
}

// ---- Classes of the fresh draw `pf8`.

/// A BUILD_ID entry of a user-space object given the kernel cpu mode: perf 6.1 marks the
/// object as kernel and corrupts the heap (every such entry of the real recordings tried:
/// SIGABRT or SIGSEGV); the kernel's own entry is a kernel one.
#[test]
fn a_user_build_id_entry_made_kernel_crashes_perf_61() {
    let good = read("task-clock.data");
    let (_, off, size) = feature_at(&good, 2);
    let mut entries = Vec::new();
    let mut o = off;
    while o + 36 <= off + size {
        let misc = u16::from_le_bytes(good[o + 4..o + 6].try_into().unwrap());
        let s = u16::from_le_bytes(good[o + 6..o + 8].try_into().unwrap()) as usize;
        let name = good[o + 36..o + s]
            .split(|c| *c == 0)
            .next()
            .unwrap()
            .to_vec();
        entries.push((o, misc, String::from_utf8(name).unwrap()));
        o += s;
    }
    let kernel = entries.iter().find(|e| e.2 == "[kernel.kallsyms]").unwrap();
    assert_eq!(kernel.1 & 7, 1);
    let (at, misc, name) = entries.iter().find(|e| e.2.starts_with('/')).unwrap();
    assert_eq!(misc & 7, 2, "{name}");
    let mut b = good.clone();
    b[at + 4..at + 6].copy_from_slice(&((misc & !7) | 1).to_le_bytes());
    let f = findings(&b);
    let x = find(&f, &pf::FEATURE_PAYLOAD, Severity::Error);
    assert_eq!(x.impact.as_ref().map(|i| i.effect), Some("crash"));
    assert!(x.message.contains(name.as_str()), "{}", x.message);
    // Guest kernel (4): the same; hypervisor (3): perf skips the entry.
    let mut g = good.clone();
    g[at + 4..at + 6].copy_from_slice(&((misc & !7) | 4).to_le_bytes());
    find(&findings(&g), &pf::FEATURE_PAYLOAD, Severity::Error);
    let mut h = good.clone();
    h[at + 4..at + 6].copy_from_slice(&((misc & !7) | 3).to_le_bytes());
    assert_eq!(errors(&findings(&h)), 0);
    match perf_script(&b) {
        Some((code, _)) => assert!(code < 0, "perf script exit {code}"),
        None => skip_or_fail("perf is not installed"),
    }
}

/// A SAMPLE given a guest cpu mode (guest kernel 4, guest user 5) while its event excludes
/// the guest: the kernel writes no such sample, and perf 6.1 drops it (no guest machine).
#[test]
fn a_guest_sample_of_an_event_that_excludes_the_guest_is_dropped_by_perf_61() {
    for name in ["cpu-clock.data", "syscalls.data"] {
        let good = read(name);
        let (o, _, _) = *records(&good).iter().find(|r| r.1 == 9).unwrap();
        let misc = u16::from_le_bytes(good[o + 4..o + 6].try_into().unwrap());
        let with = |mode: u16| {
            let mut b = good.clone();
            b[o + 4..o + 6].copy_from_slice(&((misc & !7) | mode).to_le_bytes());
            b
        };
        let guest = with(4);
        let f = findings(&guest);
        let x = find(&f, &pf::SAMPLE_BODY, Severity::Error);
        assert!(x.message.contains("guest kernel"), "{}", x.message);
        find(&findings(&with(5)), &pf::SAMPLE_BODY, Severity::Error);
        let host = with(3);
        assert_eq!(errors(&findings(&host)), 0, "{name}");
        match perf_script(&good) {
            Some((0, lines)) => {
                assert_eq!(perf_script(&guest), Some((0, lines - 1)), "{name}");
                assert_eq!(perf_script(&host), Some((0, lines)), "{name}");
            }
            Some(other) => panic!("perf script on {name}: {other:?}"),
            None => skip_or_fail("perf is not installed"),
        }
    }
}

/// A SAMPLE made READ in a recording of `perf record -s` (inherit_stat, where READ records are
/// healthy): shorter than the read values and sample id the kernel gives every READ record,
/// and lost to both readers.
#[test]
fn a_read_record_shorter_than_its_values_is_a_sample_made_read() {
    let good = read("branchless-read.data");
    let (o, _, _) = *records(&good).iter().find(|r| r.1 == 9).unwrap();
    let mut b = good.clone();
    put32(&mut b, o, 8);
    let f = findings(&b);
    let x = find(&f, &pf::RECORD_FIELDS, Severity::Error);
    assert!(
        x.message.contains("too short for the values"),
        "{}",
        x.message
    );
    match perf_script(&good) {
        Some((0, lines)) => assert_eq!(perf_script(&b), Some((0, lines - 1))),
        Some(other) => panic!("perf script on branchless-read.data: {other:?}"),
        None => skip_or_fail("perf is not installed"),
    }
    assert_lpd_loses_one(&good, &b);
}

/// A SAMPLE made CGROUP, SWITCH or NAMESPACES (records the kernel writes only for events with
/// `cgroup`, `context_switch`, `namespaces`) in a recording without those bits: lost to perf
/// 6.1. A recording made with the option has them, and the bit.
#[test]
fn a_record_of_a_type_no_attr_asks_for_is_a_sample_whose_type_changed() {
    let good = read("rounds.data");
    let (o, _, _) = *records(&good).iter().find(|r| r.1 == 9).unwrap();
    let whole = perf_script(&good);
    for t in [14u32, 16, 19] {
        let mut b = good.clone();
        put32(&mut b, o, t);
        let f = findings(&b);
        let x = find(&f, &pf::RECORD_FIELDS, Severity::Error);
        // A NAMESPACES count read from the sample's bytes: too short for it first.
        assert!(
            x.message
                .contains(if t == 16 { "too short" } else { "asks for it" }),
            "{t}: {}",
            x.message
        );
        if let (Some((0, all)), Some((_, lines))) = (whole, perf_script(&b)) {
            assert!(lines < all, "type {t}: {lines} of {all}");
        }
    }
    if whole.is_none() {
        skip_or_fail("perf is not installed");
    }
}

// ---- Classes of the fresh draw `pf10`.

/// A COMPRESSED record of a `-z` recording made MMAP: its chunk is not decompressed. The
/// first chunk starts with the zstd magic (a pid above any pid_max); any chunk is unpadded (no
/// kernel record is). perf 6.1 loses the samples in it.
#[test]
fn a_compressed_record_made_mmap_loses_its_chunk() {
    let good = read("zstd.data");
    let recs = records(&good);
    let (o, _, _) = *recs.iter().find(|r| r.1 == 81).unwrap();
    let mut b = good.clone();
    put32(&mut b, o, 1);
    let f = findings(&b);
    let x = find(&f, &pf::COMPRESSED_DATA, Severity::Error);
    assert!(
        x.message.contains("COMPRESSED record whose type changed"),
        "{}",
        x.message
    );
    match perf_script(&good) {
        Some((0, lines)) => {
            let (_, after) = perf_script(&b).unwrap();
            assert!(after < lines, "{after} of {lines}");
        }
        Some(other) => panic!("perf script on zstd.data: {other:?}"),
        None => skip_or_fail("perf is not installed"),
    }
}

/// A `sched_waking` sample's identifier changed into the `sched_migrate_task` event's
/// (`sched.data`, the sample at 0x1ecf0): its raw data still says common_type 375 (the
/// tracepoint it was), its id names tracepoint 371, and perf 6.1 shows it as
/// `sched_migrate_task`. The kernel writes a tracepoint's own id into each of its samples.
#[test]
fn a_tracepoint_sample_under_another_tracepoints_id_is_an_error() {
    let good = read("sched.data");
    assert_eq!(u64_at(&good, 0x1ecf8), 0x5d8);
    let mut bad = good.clone();
    put64(&mut bad, 0x1ecf8, 0x5d7);
    let f = findings(&bad);
    let e = find(&f, &pf::TRACEPOINT_ID, Severity::Error);
    assert_eq!(e.offset, 0x1ecf0);
    assert!(e.message.contains("common_type 375"), "{}", e.message);
    assert_eq!(errors(&findings(&good)), 0);
    let script = |b: &[u8]| {
        perf_script_with(b, &[]).map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    };
    let (Some(a), Some(b)) = (script(&good), script(&bad)) else {
        return skip_or_fail("perf is not installed");
    };
    assert_eq!(
        a.matches("sched:sched_migrate_task:").count() + 1,
        b.matches("sched:sched_migrate_task:").count()
    );
}

/// An MMAP2 record's size grown over the records after it (`system-wide.data`, the first
/// MMAP2 followed by two more records): its excess bytes are whole records, which both readers
/// skip with it, so the file is read other than written: a `PF015` error. No writer leaves
/// bytes in a record.
#[test]
fn a_record_grown_over_the_records_after_it_is_an_error() {
    let good = read("system-wide.data");
    let recs = records(&good);
    let i = recs
        .iter()
        .position(|r| r.1 == 10)
        .expect("system-wide.data has an MMAP2 record");
    let (at, _, size) = recs[i];
    let grown = size + recs[i + 1].2 + recs[i + 2].2;
    let mut bad = good.clone();
    bad[at + 6..at + 8].copy_from_slice(&u16::try_from(grown).unwrap().to_le_bytes());
    let f = findings(&bad);
    let e = find(&f, &pf::RECORD_FIELDS, Severity::Error);
    assert!(e.message.contains("2 whole record(s)"), "{}", e.message);
    assert_eq!(errors(&findings(&good)), 0);
    let script = |b: &[u8]| {
        perf_script_with(b, &["--show-mmap-events"])
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    };
    let (Some(a), Some(b)) = (script(&good), script(&bad)) else {
        return skip_or_fail("perf is not installed");
    };
    assert_ne!(a, b);
}

/// A SAMPLE of a `-g` recording made MMAP: its callchain's bytes fill the map's name, which
/// then starts with a control byte; no kernel or perf names a map so, and both readers lose
/// the sample. A real map whose name is emptied reads the same: a warning.
#[test]
fn a_map_named_by_a_control_byte_is_a_sample_made_map() {
    let good = read("callchain-fp.data");
    let recs = records(&good);
    // A sample whose bytes, read as an MMAP (32 fixed bytes after the header), name nothing
    // printable: the callchain's length or context word.
    let (o, _, _) = *recs
        .iter()
        .find(|r| r.1 == 9 && r.2 > 48 && good[r.0 + 40] < 0x21)
        .expect("a sample whose MMAP name would start with a control byte");
    let mut b = good.clone();
    put32(&mut b, o, 1);
    let f = findings(&b);
    let x = find_text(&f, &pf::RECORD_FIELDS, "the name of the MMAP");
    assert_eq!(x.severity, Severity::Error, "{}", x.message);
    assert!(x.message.contains("a sample of its event"), "{}", x.message);
    // A real MMAP with its name's first byte made NUL: a map with an empty name.
    let (m, _, _) = *recs.iter().find(|r| r.1 == 1 || r.1 == 10).unwrap();
    let fixed = if u32::from_le_bytes(good[m..m + 4].try_into().unwrap()) == 1 {
        40
    } else {
        72
    };
    let mut e = good.clone();
    e[m + fixed] = 0;
    let f = findings(&e);
    let x = find_text(&f, &pf::RECORD_FIELDS, "is empty");
    assert_eq!(x.severity, Severity::Warning, "{}", x.message);
    assert_eq!(errors(&f), 0, "{}", show(&f));
    match perf_script(&good) {
        Some((0, lines)) => {
            assert_eq!(perf_script(&e).map(|s| s.0), Some(0));
            let (code, shown) = perf_script(&b).unwrap();
            assert_eq!(code, 0);
            // perf script prints a sample's callchain on lines of their own: count samples
            // by the lines that are not callchain lines.
            assert!(shown < lines, "{shown} of {lines} lines");
        }
        Some(other) => panic!("perf script on callchain-fp.data: {other:?}"),
        None => skip_or_fail("perf is not installed"),
    }
    assert_lpd_loses_one(&good, &b);
}

/// The ids of each attr of a little-endian file-mode recording, in attr order.
fn attr_ids(b: &[u8]) -> Vec<Vec<u64>> {
    let attr_size = u64_at(b, 16) as usize;
    let (off, size) = (u64_at(b, 24) as usize, u64_at(b, 32) as usize);
    // Each entry is the attr and then its ids' file section: `attr_size` is both.
    let stride = attr_size;
    (0..size / stride)
        .map(|k| {
            let e = off + k * stride + attr_size - 16;
            let (io, is) = (u64_at(b, e) as usize, u64_at(b, e + 8) as usize);
            (0..is / 8).map(|j| u64_at(b, io + 8 * j)).collect()
        })
        .collect()
}

/// A `cpu-clock` sample of a `perf record -a` recording given the id of its `dummy:HG` event
/// (software event 9, which never samples): both readers lose it from `cpu-clock`.
#[test]
fn a_sample_with_the_dummy_events_id_is_lost() {
    let good = read("system-wide.data");
    let ids = attr_ids(&good);
    assert_eq!(ids.len(), 2);
    let (o, _, _) = *records(&good).iter().find(|r| r.1 == 9).unwrap();
    // IP|TID|TIME|ID|CPU|PERIOD: the id is the fourth word of the body.
    let id = u64_at(&good, o + 32);
    assert!(ids[0].contains(&id), "{id} {ids:?}");
    let mut b = good.clone();
    put64(&mut b, o + 32, ids[1][0]);
    let f = findings(&b);
    let x = find(&f, &pf::UNKNOWN_ID, Severity::Error);
    assert!(x.message.contains("dummy event"), "{}", x.message);
    // Another id of the same event (another CPU's) is no dummy's.
    let mut c = good.clone();
    put64(&mut c, o + 32, *ids[0].iter().find(|&&i| i != id).unwrap());
    assert!(
        !findings(&c)
            .iter()
            .any(|x| x.message.contains("dummy event")),
        "{}",
        show(&findings(&c))
    );
    match (lpd_read(&good), lpd_read(&b)) {
        (Some((_, a)), Some((_, d))) => assert!(
            d.matches("SAMPLE cpu-clock").count() < a.matches("SAMPLE cpu-clock").count(),
            "{d}"
        ),
        _ => skip_or_fail("linux-perf-data 0.13.0 is not built (python3 campaign/readers.py)"),
    }
}

/// A SAMPLE made TIME_CONV, FINISHED_ROUND or STAT_ROUND: longer than perf writes those, and
/// its bytes are a sample of its event; both readers lose it. An MMAP2 made FINISHED_ROUND
/// is only longer: a warning.
#[test]
fn a_user_record_longer_than_perf_writes_it_is_a_sample_made_so() {
    let good = read("syscalls.data");
    let recs = records(&good);
    let (o, _, _) = *recs.iter().find(|r| r.1 == 9 && r.2 > 64).unwrap();
    for t in [79u32, 68, 77] {
        let mut b = good.clone();
        put32(&mut b, o, t);
        let f = findings(&b);
        let x = find_text(&f, &pf::RECORD_FIELDS, "but perf writes it in");
        assert_eq!(x.severity, Severity::Error, "{}", x.message);
        if t == 79 {
            match perf_script(&good) {
                Some((0, lines)) => assert_eq!(perf_script(&b), Some((0, lines - 1))),
                Some(other) => panic!("perf script on syscalls.data: {other:?}"),
                None => skip_or_fail("perf is not installed"),
            }
            match (lpd_read(&good), lpd_read(&b)) {
                (Some((_, a)), Some((_, c))) => assert_eq!(
                    c.matches("SAMPLE ").count() + 1,
                    a.matches("SAMPLE ").count()
                ),
                _ => skip_or_fail(
                    "linux-perf-data 0.13.0 is not built (python3 campaign/readers.py)",
                ),
            }
        }
    }
    // An MMAP2 made STAT_ROUND is only longer (perf 6.1 reads its fields): a warning; made
    // FINISHED_ROUND, linux-perf-data refuses the file: an error.
    let (m, _, _) = *recs.iter().find(|r| r.1 == 10).unwrap();
    let mut b = good.clone();
    put32(&mut b, m, 77);
    let f = findings(&b);
    let x = find_text(&f, &pf::RECORD_FIELDS, "but perf writes it in");
    assert_eq!(x.severity, Severity::Warning, "{}", x.message);
    put32(&mut b, m, 68);
    let f = findings(&b);
    let x = find_text(&f, &pf::RECORD_FIELDS, "but perf writes it in");
    assert_eq!(x.severity, Severity::Error, "{}", x.message);
    assert!(x.message.contains("refuses the file"), "{}", x.message);
    match lpd_read(&b) {
        Some((_, out)) => assert!(
            out.contains("smaller than the header itself") && !out.contains("SAMPLE "),
            "{out}"
        ),
        None => skip_or_fail("linux-perf-data 0.13.0 is not built (python3 campaign/readers.py)"),
    }
    // A COMPRESSED record of a `-z` recording (not the first: no zstd magic, an unpadded
    // size) made FINISHED_INIT: the records compressed in it are lost.
    let z = read("zstd.data");
    let (c, _, _) = *records(&z).iter().filter(|r| r.1 == 81).nth(1).unwrap();
    let mut b = z.clone();
    put32(&mut b, c, 82);
    let f = findings(&b);
    let x = find_text(&f, &pf::RECORD_FIELDS, "zstd data");
    assert_eq!(x.severity, Severity::Error, "{}", x.message);
}

/// `perf stat record`'s STAT_CONFIG made STAT: a count at cpu 0 where the CPU_MAP holds only
/// -1; perf 6.1 stops ("Invalid CPU 0 for event cpu-clock", exit 234). A count's thread index
/// past the THREAD_MAP too; the counts as written pass.
#[test]
fn a_stat_count_outside_its_maps_stops_perf_61() {
    let good = read("stat.data");
    assert_eq!(errors(&findings(&good)), 0);
    let recs = records(&good);
    let (o, _, _) = *recs.iter().find(|r| r.1 == 75).unwrap();
    let mut b = good.clone();
    put32(&mut b, o, 76);
    let f = findings(&b);
    let x = find(&f, &pf::RECORD_FIELDS, Severity::Error);
    assert!(x.message.contains("Invalid CPU 0"), "{}", x.message);
    let (s, _, _) = *recs.iter().find(|r| r.1 == 76).unwrap();
    let mut t = good.clone();
    put32(&mut t, s + 20, 1);
    let f = findings(&t);
    let x = find(&f, &pf::RECORD_FIELDS, Severity::Error);
    assert!(x.message.contains("thread index 1"), "{}", x.message);
    match perf_script(&b) {
        Some((code, _)) => assert_eq!(code, 234),
        None => skip_or_fail("perf is not installed"),
    }
}

/// A CPU_MAP range whose first cpu is past its last: perf writes ranges lowest to highest, and
/// perf 6.1 `perf script` sizes the map `end - start + 1`: below 0 it stops (exit 244) with no
/// sample shown; at 0 it reads the same, a warning.
#[test]
fn a_cpu_map_range_backwards_stops_perf_script_61() {
    let good = read("group.data");
    assert_eq!(errors(&findings(&good)), 0);
    let (o, _, _) = *records(&good).iter().find(|r| r.1 == 74).unwrap();
    assert_eq!(u16::from_le_bytes([good[o + 8], good[o + 9]]), 2, "a range");
    let end = u16::from_le_bytes([good[o + 14], good[o + 15]]);
    let mut b = good.clone();
    b[o + 12..o + 14].copy_from_slice(&(end + 3).to_le_bytes());
    let f = findings(&b);
    let x = find_text(&f, &pf::RECORD_FIELDS, "CPU_MAP");
    assert_eq!(x.severity, Severity::Error, "{}", x.message);
    assert_eq!(x.span(), o as u64..o as u64 + 16);
    let mut w = good.clone();
    w[o + 12..o + 14].copy_from_slice(&(end + 1).to_le_bytes());
    let f = findings(&w);
    let x = find_text(&f, &pf::RECORD_FIELDS, "CPU_MAP");
    assert_eq!(x.severity, Severity::Warning, "{}", x.message);
    match (perf_script(&good), perf_script(&b), perf_script(&w)) {
        (Some((0, n)), Some((code, 0)), Some((0, m))) => {
            assert!(n > 0);
            assert_eq!(m, n);
            assert_eq!(code, 244);
        }
        (None, ..) => skip_or_fail("perf is not installed"),
        other => panic!("perf script: {other:?}"),
    }
}

/// A later map of a user-space object given a kernel cpu mode (`misc & 7` = 1): perf 6.1 makes
/// a kernel module DSO of the object's path beside its user-space DSO, and aborts on some such
/// maps (this one: the MMAP2 of ld-linux at 0xc220 of system-wide.data).
#[test]
fn a_later_user_map_with_a_kernel_cpu_mode_is_an_error() {
    let good = read("system-wide.data");
    assert_eq!(errors(&findings(&good)), 0);
    let (o, t, _) = *records(&good).iter().find(|r| r.0 == 0xc220).unwrap();
    assert_eq!(t, 10, "an MMAP2");
    assert_eq!(
        u16::from_le_bytes([good[o + 4], good[o + 5]]) & 7,
        2,
        "user cpu mode"
    );
    let mut b = good.clone();
    b[o + 4] = (b[o + 4] & !7) | 1;
    let f = findings(&b);
    let x = find_text(
        &f,
        &pf::RECORD_FIELDS,
        "mapped before, with a kernel cpu mode",
    );
    assert_eq!(x.severity, Severity::Error, "{}", x.message);
    assert_eq!(x.span(), o as u64..o as u64 + 152);
    match perf_report_status(&b) {
        Some(code) => assert_eq!(code, Some(-6), "perf report aborts"),
        None => skip_or_fail("perf is not installed"),
    }
}

/// An MMAP2 retyped SAMPLE: its bytes are still the map's (name, padding, sample_id_all
/// trailer), an error; the map is gone for perf 6.1 (`--show-mmap-events` lists fewer: here
/// perf stops at it, "failed to process type: 9 [Bad address]").
#[test]
fn a_map_record_retyped_sample_is_told_by_its_bytes() {
    let good = read("trace.data");
    assert_eq!(errors(&findings(&good)), 0);
    let (o, _, _) = *records(&good)
        .iter()
        .find(|r| r.1 == 10 && good.get(r.0 + 8 + 64) == Some(&b'/'))
        .unwrap();
    let mut b = good.clone();
    put32(&mut b, o, 9);
    let f = findings(&b);
    let x = find_text(&f, &pf::SAMPLE_BODY, "is an MMAP2 record of /");
    assert_eq!(x.severity, Severity::Error, "{}", x.message);
    assert_eq!(x.span().start, o as u64);
    let maps = |bytes: &[u8]| {
        perf_script_with(bytes, &["--show-mmap-events"]).map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .matches("PERF_RECORD_MMAP2")
                .count()
        })
    };
    match (maps(&good), maps(&b)) {
        (Some(a), Some(c)) => assert!(c < a, "{c} of {a} maps"),
        _ => skip_or_fail("perf is not installed"),
    }
}
