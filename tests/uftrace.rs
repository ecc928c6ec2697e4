//! uftrace data directory validator: real recordings, one fixture per rule (each reproducing
//! the defect in a copy of a real recording), the known reader crashes, robustness sweeps and a
//! differential check against `uftrace dump`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tracelint::formats::uftrace::writer::{self, Record};
use tracelint::input::{Data, DirEntry, DirSource, MemDir};
use tracelint::map::MapNode;
use tracelint::{CheckOptions, Finding, Severity, Sink};

type Files = Vec<(String, Vec<u8>)>;

fn corpus_dirs() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(common::corpus("uftrace"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

fn read_dir_files(dir: &Path) -> Files {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            v.push((
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            ));
        }
    }
    v.sort();
    v
}

fn corpus_files(name: &str) -> Files {
    read_dir_files(&common::corpus("uftrace").join(name))
}

fn run_dir(dir: &dyn DirSource, opts: &CheckOptions) -> (Vec<Finding>, MapNode) {
    let mut sink = Sink::with_limits(&opts.limits);
    let map = tracelint::check_dir(dir, opts, &mut sink);
    (sink.into_parts().0, map)
}

fn run(files: Files) -> Vec<Finding> {
    run_dir(
        &MemDir::new("/mem/uftrace.data", files),
        &CheckOptions::default(),
    )
    .0
}

fn get<'a>(files: &'a mut Files, name: &str) -> &'a mut Vec<u8> {
    &mut files
        .iter_mut()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no {name}"))
        .1
}

fn remove(files: &mut Files, name: &str) {
    files.retain(|(n, _)| n != name);
}

fn find(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len())
        .position(|w| w == needle)
        .unwrap_or_else(|| panic!("{:?} not found", String::from_utf8_lossy(needle)))
}

fn replace(data: &mut Vec<u8>, from: &[u8], to: &[u8]) -> usize {
    let at = find(data, from);
    data.splice(at..at + from.len(), to.iter().copied());
    at
}

/// Asserts that a finding of `code` in `file` (None: the directory) has exactly `span`.
#[track_caller]
fn expect(findings: &[Finding], code: &str, file: Option<&str>, span: std::ops::Range<u64>) {
    let ok = findings
        .iter()
        .any(|f| f.rule.code == code && f.file.as_deref() == file && f.span() == span);
    if !ok {
        let list: Vec<String> = findings
            .iter()
            .map(|f| format!("{} {:?} {:?}: {}", f.rule.code, f.file, f.span(), f.message))
            .collect();
        panic!(
            "expected {code} in {file:?} at {span:?}; got:\n{}",
            list.join("\n")
        );
    }
}

fn line_span(data: &[u8], start_of_line: &[u8]) -> std::ops::Range<u64> {
    let at = find(data, start_of_line);
    let end = at
        + data[at..]
            .iter()
            .position(|&c| c == b'\n')
            .unwrap_or(data.len() - at);
    at as u64..end as u64
}

/// The first finding of rule `code`.
#[track_caller]
fn first<'a>(f: &'a [Finding], code: &str) -> &'a Finding {
    f.iter()
        .find(|x| x.rule.code == code)
        .unwrap_or_else(|| panic!("no {code} in {:#?}", errors(f)))
}

fn errors(f: &[Finding]) -> Vec<String> {
    f.iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| format!("{} {:?} {:?}: {}", f.rule.code, f.file, f.span(), f.message))
        .collect()
}

#[test]
fn real_recordings_have_no_errors() {
    let dirs = corpus_dirs();
    assert!(dirs.len() >= 7, "corpus/uftrace has the real recordings");
    for d in dirs {
        let report = tracelint::check_path(&d, &CheckOptions::default(), &Default::default());
        assert_eq!(report.format, Some(tracelint::formats::uftrace::FORMAT));
        let errs = errors(&report.findings);
        assert!(errs.is_empty(), "{}: {errs:#?}", d.display());
        let warns: Vec<_> = report
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Warning)
            .collect();
        assert!(warns.is_empty(), "{}: {warns:#?}", d.display());
        // The map names each file, and task files carry record counts.
        let map = report.map.unwrap();
        assert!(map.children.iter().all(|c| c.file.is_some()));
        let tasks: Vec<_> = map
            .children
            .iter()
            .filter(|c| c.label.starts_with("task "))
            .collect();
        assert!(!tasks.is_empty());
        for t in tasks {
            let recs: u64 = t
                .values
                .iter()
                .find(|(k, _)| k == "records")
                .unwrap()
                .1
                .parse()
                .unwrap();
            assert!(recs > 0);
        }
    }
}

#[test]
fn args_recording_frames_every_payload() {
    let (f, map) = run_dir(
        &MemDir::new("/m", corpus_files("args")),
        &CheckOptions::default(),
    );
    assert!(errors(&f).is_empty());
    let t = map
        .children
        .iter()
        .find(|c| c.label == "task 13435")
        .unwrap();
    let v: BTreeMap<_, _> = t.values.iter().cloned().collect();
    assert_eq!(v["records"], "64");
    assert!(v["arg payloads"].parse::<u64>().unwrap() > 30);
}

#[test]
fn writer_minimal_image_is_clean() {
    let (f, _) = run_dir(&writer::minimal(None), &CheckOptions::default());
    assert!(f.is_empty(), "{f:#?}");
}

// ---------------------------------------------------------------- directory and info rules

#[test]
fn uf001_missing_task_txt() {
    let mut files = corpus_files("plain");
    remove(&mut files, "task.txt");
    expect(&run(files), "UF001", None, 0..0);
}

struct FailDir(MemDir, &'static str);
impl DirSource for FailDir {
    fn path(&self) -> &Path {
        self.0.path()
    }
    fn list(&self) -> io::Result<Vec<DirEntry>> {
        self.0.list()
    }
    fn load(&self, name: &str, max: u64) -> io::Result<Data> {
        if name == self.1 {
            Err(io::Error::from(io::ErrorKind::PermissionDenied))
        } else {
            self.0.load(name, max)
        }
    }
}

#[test]
fn uf002_unreadable_file() {
    let dir = FailDir(MemDir::new("/m", corpus_files("plain")), "task.txt");
    let (f, _) = run_dir(&dir, &CheckOptions::default());
    expect(&f, "UF002", Some("task.txt"), 0..0);
}

#[test]
fn uf003_unknown_file() {
    let mut files = corpus_files("plain");
    files.push(("core.1234".into(), b"x".to_vec()));
    expect(&run(files), "UF003", Some("core.1234"), 0..0);
}

#[test]
fn uf004_no_task_data() {
    let mut files = corpus_files("plain");
    get(&mut files, "13424.dat").clear();
    expect(&run(files), "UF004", None, 0..0);
}

fn info_mut(files: &mut Files) -> &mut Vec<u8> {
    get(files, "info")
}

#[test]
fn uf010_bad_magic() {
    let mut files = corpus_files("plain");
    info_mut(&mut files)[0] = b'X';
    expect(&run(files), "UF010", Some("info"), 0..40);
}

#[test]
fn uf011_version_5() {
    let mut files = corpus_files("plain");
    info_mut(&mut files)[8] = 5;
    expect(&run(files), "UF011", Some("info"), 8..12);
}

#[test]
fn uf012_header_size_41() {
    let mut files = corpus_files("plain");
    info_mut(&mut files)[12] = 41;
    expect(&run(files), "UF012", Some("info"), 12..14);
}

#[test]
fn uf013_bad_endian() {
    let mut files = corpus_files("plain");
    info_mut(&mut files)[14] = 3;
    expect(&run(files), "UF013", Some("info"), 14..15);
}

#[test]
fn uf014_unknown_feature_bit() {
    let mut files = corpus_files("plain");
    info_mut(&mut files)[18] |= 0x10; // bit 20
    expect(&run(files), "UF014", Some("info"), 16..24);
}

#[test]
fn uf015_max_stack_zero() {
    let mut files = corpus_files("plain");
    let i = info_mut(&mut files);
    i[32] = 0;
    i[33] = 0;
    expect(&run(files), "UF015", Some("info"), 32..34);
}

#[test]
fn uf016_reserved_nonzero() {
    let mut files = corpus_files("plain");
    info_mut(&mut files)[36] = 1;
    expect(&run(files), "UF016", Some("info"), 34..40);
}

#[test]
fn uf017_info_line_wrong_count() {
    let mut files = corpus_files("plain");
    let i = info_mut(&mut files);
    let at = replace(i, b"cpuinfo:lines=2", b"cpuinfo:lines=3") as u64;
    expect(&run(files), "UF017", Some("info"), at..at + 15);
}

#[test]
fn uf017_build_id_not_hex() {
    let mut files = corpus_files("plain");
    let i = info_mut(&mut files);
    let span = line_span(i, b"build_id:");
    i[span.start as usize + 9] = b'z';
    expect(&run(files), "UF017", Some("info"), span);
}

#[test]
fn uf018_section_missing() {
    let mut files = corpus_files("plain");
    let i = info_mut(&mut files);
    let at = find(i, b"usageinfo:lines");
    i.truncate(at);
    let end = at as u64;
    expect(&run(files), "UF018", Some("info"), end..end);
}

#[test]
fn uf019_trailing_text() {
    let mut files = corpus_files("plain");
    let i = info_mut(&mut files);
    let len = i.len() as u64;
    i.extend_from_slice(b"stale tail of a header\n");
    expect(&run(files), "UF019", Some("info"), len..len + 23);
}

/// Sets `info_mask` bit `bit` of a corpus `info`.
fn set_info_bit(i: &mut [u8], bit: u32) {
    let mut m = u64::from_le_bytes(i[24..32].try_into().unwrap());
    m |= 1 << bit;
    i[24..32].copy_from_slice(&m.to_le_bytes());
}

#[test]
fn uf024_utc_offset_of_uftrace_0_17_reads_clean() {
    // uftrace 0.17 and later: info_mask bit 14 and a `utc_offset:` line after the version.
    let mut files = corpus_files("plain");
    let i = info_mut(&mut files);
    set_info_bit(i, 14);
    i.extend_from_slice(b"utc_offset:-3600\n");
    let f = run(files);
    assert!(
        f.iter().all(|f| f.severity == Severity::Info),
        "{:?}",
        errors(&f)
    );
    assert!(f.iter().all(|f| f.file.as_deref() != Some("info")));
}

#[test]
fn uf024_newer_lines_after_the_last_section() {
    // A newer writer's section whose bit a reader does not know, and a malformed line of a
    // section newer than uftrace 0.13: at most info.
    let mut files = corpus_files("plain");
    let i = info_mut(&mut files);
    let len = i.len() as u64;
    i.extend_from_slice(b"utc_offset:3600\nfuture_key:1\n");
    let f = run(files);
    expect(&f, "UF024", Some("info"), len..len + 29);
    assert!(errors(&f).is_empty(), "{:?}", errors(&f));
    let mut files = corpus_files("plain");
    let i = info_mut(&mut files);
    set_info_bit(i, 14);
    let len = i.len() as u64;
    i.extend_from_slice(b"utc_offset:+9h\n");
    let f = run(files);
    expect(&f, "UF024", Some("info"), len..len + 14);
    assert!(errors(&f).is_empty(), "{:?}", errors(&f));
}

#[test]
fn uf025_argspec_item_uftrace_ignores() {
    // `-A main@arg1/64`: uftrace accepts the option, parse_argspec drops the item, nothing is
    // recorded for it.
    let mut files = corpus_files("args");
    let i = info_mut(&mut files);
    let at = replace(
        i,
        b"argspec:lines=4\n",
        b"argspec:lines=5\nargspec:main@arg1/64\n",
    ) as u64;
    let f = run(files);
    expect(&f, "UF025", Some("info"), at + 16..at + 16 + 20);
    assert!(errors(&f).is_empty(), "{:?}", errors(&f));
}

#[test]
fn dbg_empty_struct_and_ignored_item() {
    // DWARF of an empty struct gives `t0` (0 bytes recorded); `arg8/64` is skipped by uftrace.
    let mut files = corpus_files("args");
    let d = get(&mut files, "uf_basic.dbg");
    let at = replace(
        d,
        b"A: @arg1/p,arg2\n",
        b"A: @arg1/p,arg2,arg9/t0:Empty%stack+1\n",
    );
    let f = run(files.clone());
    assert!(f.iter().all(|f| f.file.as_deref() != Some("uf_basic.dbg")));
    assert!(errors(&f).is_empty(), "{:?}", errors(&f));
    let d = get(&mut files, "uf_basic.dbg");
    replace(d, b"Empty%stack+1\n", b"Empty%stack+1,arg8/64\n");
    let f = run(files);
    let span = (at as u64 - 15)..(at as u64 + 11);
    assert!(
        f.iter().any(|x| x.rule.code == "UF025"
            && x.file.as_deref() == Some("uf_basic.dbg")
            && x.span().start <= span.end),
        "{f:?}"
    );
    assert!(errors(&f).is_empty(), "{:?}", errors(&f));
}

#[test]
fn uf020_more_tids_than_nr_tid_crash_ti() {
    let mut files = corpus_files("plain");
    let i = info_mut(&mut files);
    replace(
        i,
        b"taskinfo:tids=13424",
        b"taskinfo:tids=13424,13425,13426",
    );
    let span = line_span(i, b"taskinfo:tids=");
    expect(&run(files), "UF020", Some("info"), span);
}

#[test]
fn uf021_taskinfo_differs_from_task_txt() {
    let mut files = corpus_files("plain");
    let i = info_mut(&mut files);
    replace(i, b"taskinfo:tids=13424", b"taskinfo:tids=13425");
    let span = line_span(i, b"taskinfo:tids=");
    expect(&run(files), "UF021", Some("info"), span);
}

#[test]
fn uf022_kernel_bit_without_files() {
    let mut files = corpus_files("plain");
    info_mut(&mut files)[16] |= 0x04;
    expect(&run(files), "UF022", Some("info"), 16..24);
}

/// Every `perf-cpu<N>.dat` removed from a finished recording (local, and through `uftrace
/// recv`): uftrace writes the COMM and EXIT events of every traced task there, so the files
/// held events every reader now loses; an error. A recording without the bit has none: nothing.
#[test]
fn uf022_perf_bit_without_files_in_a_finished_recording() {
    for name in ["args", "recv-host"] {
        let mut files = corpus_files(name);
        assert!(
            files.iter().any(|(n, _)| n.starts_with("perf-cpu")),
            "{name}"
        );
        files.retain(|(n, _)| !n.starts_with("perf-cpu"));
        let f = run(files);
        let x = first(&f, "UF022");
        assert_eq!(x.severity, Severity::Error, "{name}: {}", x.message);
        assert!(x.message.contains("ran to its end"), "{}", x.message);
    }
    let f = run(corpus_files("no-event"));
    assert!(!f.iter().any(|x| x.rule.code == "UF022"));
}

/// In a task whose records are all at depth 0 (`-N main -N worker` leaves only top-level
/// calls), an ENTRY made EXIT: an EXIT with no frame open, which no nesting by record order
/// matches either (every reader shows the record as an EXIT): an error, not the warning of a
/// writer that stores no depth.
#[test]
fn uf064_an_exit_with_no_frame_open_in_a_depth_zero_task() {
    let mut files = corpus_files("notrace-N-main-worker");
    assert!(errors(&run(files.clone())).is_empty());
    let name = files
        .iter()
        .find(|(n, d)| n.ends_with(".dat") && !n.starts_with("perf") && d.len() >= 64)
        .map(|(n, _)| n.clone())
        .unwrap();
    let d = get(&mut files, &name);
    // The third record's word: type 0 (ENTRY) made 1 (EXIT).
    assert_eq!(d[0x28] & 3, 0);
    d[0x28] |= 1;
    let f = run(files);
    let x = first(&f, "UF064");
    assert_eq!(x.severity, Severity::Error, "{}", x.message);
}

#[test]
fn uf023_long_cmdline() {
    let mut files = corpus_files("plain");
    let i = info_mut(&mut files);
    let long = format!("cmdline:uftrace record {}", "a".repeat(5000));
    let at = find(i, b"cmdline:");
    let end = at + i[at..].iter().position(|&c| c == b'\n').unwrap();
    i.splice(at..end, long.bytes());
    let span = at as u64..(at + long.len()) as u64;
    expect(&run(files), "UF023", Some("info"), span);
}

// ---------------------------------------------------------------- task.txt

#[test]
fn uf030_task_timestamp_without_9_digits() {
    let mut files = corpus_files("plain");
    let t = get(&mut files, "task.txt");
    replace(t, b"TASK timestamp=461.319605380", b"TASK timestamp=461.5");
    // uftrace reads it with `%lu.%lu` (461 s + 5 ns): a warning on the field, and the
    // line is read on (it is then earlier than the line before it).
    let at = find(t, b"timestamp=461.5") as u64;
    let f = run(files);
    expect(&f, "UF030", Some("task.txt"), at..at + 15);
    assert!(f
        .iter()
        .any(|x| x.rule.code == "UF030" && x.severity == tracelint::Severity::Warning));
    assert!(f.iter().any(|x| x.rule.code == "UF036"));
}

/// A TASK line stamped after the task's first record.
#[test]
fn uf073_task_line_after_its_records() {
    let mut files = corpus_files("plain");
    let t = get(&mut files, "task.txt");
    replace(t, b"TASK timestamp=461.", b"TASK timestamp=4294967295.");
    let span = line_span(t, b"TASK ");
    let f = run(files);
    expect(&f, "UF073", Some("task.txt"), span);
    // The line alone is a warning; the records no session covers are the loss, one by one.
    assert!(f
        .iter()
        .any(|x| x.rule.code == "UF073" && x.severity == Severity::Warning));
    assert!(
        f.iter()
            .any(|x| x.rule.code == "UF067" && x.severity == Severity::Error),
        "{:#?}",
        errors(&f)
    );
}

/// `uftrace record -e` writes a fork child's FORK line after the child's first records: the
/// readers resolve those in the parent's session, so every name prints.
#[test]
fn uf073_fork_line_after_the_childs_first_records_is_an_info() {
    let mut files = corpus_files("forkexec");
    let t = get(&mut files, "task.txt");
    replace(
        t,
        b"FORK timestamp=461.401136891",
        b"FORK timestamp=461.404000000",
    );
    let span = line_span(t, b"FORK ");
    let f = run(files);
    expect(&f, "UF073", Some("task.txt"), span);
    assert!(errors(&f).is_empty(), "{:#?}", errors(&f));
    assert!(f
        .iter()
        .any(|x| x.rule.code == "UF073" && x.severity == Severity::Info));
}

/// A writer that stores depth 0 in every record: readers nest the calls by ENTRY/EXIT order
/// (verified with uftrace 0.9.4, 0.13, 0.16 and 0.18.1: `replay`, `graph` and `report` print
/// the same as for the original), so the nesting findings are warnings.
#[test]
fn uf064_depth_zero_writer_is_a_warning() {
    let mut files = corpus_files("threads");
    let mut n = 0;
    for (name, data) in files.iter_mut() {
        if name.ends_with(".dat") && !name.starts_with("perf") {
            for rec in data.chunks_exact_mut(16) {
                let mut w = u64::from_le_bytes(rec[8..16].try_into().unwrap());
                w &= !(0x3ff << 6);
                rec[8..16].copy_from_slice(&w.to_le_bytes());
            }
            n += 1;
        }
    }
    assert!(n >= 2);
    let f = run(files);
    assert!(errors(&f).is_empty(), "{:#?}", errors(&f));
    let nest: Vec<_> = f.iter().filter(|x| x.rule.code == "UF064").collect();
    assert!(!nest.is_empty());
    assert!(nest.iter().all(|x| x.severity == Severity::Warning
        && x.message.contains("stores no depth")
        && !x.message.contains("misframe")));
}

/// A task file cut at a record boundary (a killed recorder, a cut copy) looks like a task that
/// left its calls by `exit()`: a note that counts the open calls, no error.
#[test]
fn uf074_task_file_cut_at_a_record_boundary_counts_the_open_calls() {
    let mut files = corpus_files("plain");
    let name = files
        .iter()
        .find(|(n, _)| n.ends_with(".dat") && !n.starts_with("perf"))
        .map(|(n, _)| n.clone())
        .unwrap();
    let d = get(&mut files, &name);
    // The records up to the third ENTRY of a call that is open there.
    let mut depth = 0i32;
    let mut cut = 0;
    for (i, rec) in d.chunks_exact(16).enumerate() {
        let w = u64::from_le_bytes(rec[8..16].try_into().unwrap());
        match w & 3 {
            0 => depth += 1,
            1 => depth -= 1,
            _ => {}
        }
        if depth >= 2 {
            cut = (i + 1) * 16;
            break;
        }
    }
    assert!(cut > 0);
    d.truncate(cut);
    let f = run(files);
    assert!(errors(&f).is_empty(), "{:#?}", errors(&f));
    let x = f
        .iter()
        .find(|x| x.rule.code == "UF074")
        .expect("UF074 on the cut file");
    assert_eq!(x.severity, Severity::Info);
    assert_eq!(x.file.as_deref(), Some(name.as_str()));
    assert_eq!(x.span(), cut as u64..cut as u64);
    assert!(x.message.contains("2 call(s) still open"), "{}", x.message);
}

/// The same nesting break in a task whose records carry depths stays an error.
#[test]
fn uf064_depth_changed_in_a_recording_with_depths_is_an_error() {
    let mut files = corpus_files("threads");
    let (_, data) = files
        .iter_mut()
        .find(|(n, d)| n.ends_with(".dat") && !n.starts_with("perf") && d.len() >= 64)
        .unwrap();
    // Every record at depth 1 moved to depth 3.
    let mut changed = 0;
    for rec in data.chunks_exact_mut(16) {
        let mut w = u64::from_le_bytes(rec[8..16].try_into().unwrap());
        if (w >> 6) & 0x3ff == 1 {
            w = (w & !(0x3ff << 6)) | (3 << 6);
            rec[8..16].copy_from_slice(&w.to_le_bytes());
            changed += 1;
        }
    }
    assert!(changed > 0);
    let f = run(files);
    assert!(f
        .iter()
        .any(|x| x.rule.code == "UF064" && x.severity == Severity::Error));
}

/// A task line uftrace's sscanf cannot read stays an error.
#[test]
fn uf030_task_line_uftrace_cannot_read() {
    let mut files = corpus_files("plain");
    let t = get(&mut files, "task.txt");
    replace(
        t,
        b"TASK timestamp=461.319605380",
        b"TASK time=461.319605380",
    );
    let span = line_span(t, b"TASK ");
    let f = run(files);
    expect(&f, "UF030", Some("task.txt"), span);
    assert!(f
        .iter()
        .any(|x| x.rule.code == "UF030" && x.severity == tracelint::Severity::Error));
}

#[test]
fn uf031_unknown_task_line() {
    let mut files = corpus_files("plain");
    let t = get(&mut files, "task.txt");
    let len = t.len() as u64;
    t.extend_from_slice(b"\x01\x02garbage 461.4 13424\n");
    expect(&run(files), "UF031", Some("task.txt"), len..len + 21);
}

/// A record type of a newer writer (`TYPE key=value ...`) is info: uftrace skips it.
#[test]
fn uf027_newer_task_line() {
    let mut files = corpus_files("plain");
    let t = get(&mut files, "task.txt");
    let len = t.len() as u64;
    t.extend_from_slice(b"EXEC timestamp=461.400000000 tid=13424\n");
    let f = run(files);
    expect(&f, "UF027", Some("task.txt"), len..len + 38);
    assert!(!f.iter().any(|f| f.rule.code == "UF031"), "{f:#?}");
}

#[test]
fn uf032_no_session() {
    let mut files = corpus_files("plain");
    let t = get(&mut files, "task.txt");
    let span = line_span(t, b"SESS ");
    t.drain(span.start as usize..=span.end as usize);
    expect(&run(files), "UF032", Some("task.txt"), 0..0);
}

#[test]
fn uf033_session_map_missing() {
    let mut files = corpus_files("plain");
    remove(&mut files, "sid-f792317490c4e428.map");
    let span = line_span(&get(&mut files, "task.txt").clone(), b"SESS ");
    expect(&run(files), "UF033", Some("task.txt"), span);
}

#[test]
fn uf034_dlop_unknown_session_crash_ds() {
    let mut files = corpus_files("plain");
    let t = get(&mut files, "task.txt");
    let len = t.len() as u64;
    let line = b"DLOP timestamp=461.400000000 tid=13424 sid=0123456789abcdef base=7f0000000000 libname=\"libx.so\"\n";
    t.extend_from_slice(line);
    expect(
        &run(files),
        "UF034",
        Some("task.txt"),
        len..len + line.len() as u64 - 1,
    );
}

#[test]
fn uf035_long_sid_crash_longsid() {
    let mut files = corpus_files("plain");
    let long = "a".repeat(400);
    let t = get(&mut files, "task.txt");
    let at = replace(t, b"f792317490c4e428", long.as_bytes()) as u64;
    let map = files
        .iter()
        .find(|(n, _)| n.starts_with("sid-"))
        .unwrap()
        .1
        .clone();
    remove(&mut files, "sid-f792317490c4e428.map");
    files.push((format!("sid-{long}.map"), map));
    expect(&run(files), "UF035", Some("task.txt"), at..at + 400);
}

#[test]
fn uf036_task_time_goes_back() {
    let mut files = corpus_files("plain");
    let t = get(&mut files, "task.txt");
    replace(
        t,
        b"TASK timestamp=461.319605380",
        b"TASK timestamp=460.319605380",
    );
    let span = line_span(t, b"TASK ");
    expect(&run(files), "UF036", Some("task.txt"), span);
}

#[test]
fn uf037_task_without_data() {
    let mut files = corpus_files("threads");
    remove(&mut files, "13448.dat");
    let span = line_span(
        &get(&mut files, "task.txt").clone(),
        b"TASK timestamp=461.380439614",
    );
    let f = run(files);
    expect(&f, "UF037", Some("task.txt"), span);
    // `threads` filtered nothing: every listed task wrote a record, so the file was lost.
    assert!(f
        .iter()
        .any(|x| x.rule.code == "UF037" && x.severity == Severity::Error));
    // A filtered recording (`-F worker`) has the same shape as uftrace's normal output: an
    // info, and the readers read the other tasks the same.
    let f = run(corpus_files("filter-F-worker"));
    assert!(errors(&f).is_empty(), "{:#?}", errors(&f));
    assert!(f
        .iter()
        .any(|x| x.rule.code == "UF037" && x.severity == Severity::Info));
}

#[test]
fn uf026_sess_with_tid_of_uftrace_0_6() {
    let mut files = corpus_files("plain");
    let t = get(&mut files, "task.txt");
    let at = replace(
        t,
        b"SESS timestamp=461.319556132 pid=",
        b"SESS timestamp=461.319556132 tid=",
    ) as u64;
    let f = run(files);
    expect(&f, "UF026", Some("task.txt"), at + 29..at + 38);
    assert!(errors(&f).is_empty(), "{:?}", errors(&f));
    assert!(!f.iter().any(|x| x.rule.code == "UF030"));
}

#[test]
fn uf038_task_data_without_task_line() {
    // A thread listed in taskinfo:tids whose TASK line is gone: uftrace 0.13 `dump --chrome`
    // and `report --task` crash on it.
    let mut files = corpus_files("threads");
    let t = get(&mut files, "task.txt");
    let span = line_span(t, b"TASK timestamp=461.380439614 tid=13448");
    t.drain(span.start as usize..=span.end as usize);
    let f = run(files);
    expect(&f, "UF038", Some("13448.dat"), 0..0);
    assert!(f
        .iter()
        .any(|x| x.rule.code == "UF038" && x.severity == Severity::Error));
}

#[test]
fn uf038_task_data_of_an_unlisted_tid() {
    // taskinfo:tids does not list the tid: uftrace never opens the file (verified with uftrace
    // 0.13: the thread's records are missing from replay without a word).
    let mut files = corpus_files("threads");
    let i = info_mut(&mut files);
    replace(i, b"taskinfo:nr_tid=3\n", b"taskinfo:nr_tid=2\n");
    replace(i, b"tids=13446,13448,13449\n", b"tids=13446,13449\n");
    expect(&run(files), "UF038", Some("13448.dat"), 0..0);
    // A copy of a data file under a tid nobody lists.
    let mut files = corpus_files("plain");
    let d = get(&mut files, "13424.dat").clone();
    files.push(("99999.dat".into(), d));
    expect(&run(files), "UF038", Some("99999.dat"), 0..0);
}

#[test]
fn uf003_empty_task_data_of_an_unlisted_tid() {
    let mut files = corpus_files("plain");
    files.push(("99999.dat".into(), Vec::new()));
    let f = run(files);
    expect(&f, "UF003", Some("99999.dat"), 0..0);
    assert!(!f.iter().any(|x| x.rule.code == "UF038"));
}

#[test]
fn uf039_fork_of_unknown_parent() {
    let mut files = corpus_files("plain");
    let t = get(&mut files, "task.txt");
    let len = t.len() as u64;
    let line = b"FORK timestamp=461.400000000 pid=13500 ppid=4242\n";
    t.extend_from_slice(line);
    expect(
        &run(files),
        "UF039",
        Some("task.txt"),
        len..len + line.len() as u64 - 1,
    );
}

// ---------------------------------------------------------------- maps, symbols, debug info

const PLAIN_MAP: &str = "sid-f792317490c4e428.map";

#[test]
fn uf040_bad_protection() {
    let mut files = corpus_files("plain");
    let m = get(&mut files, PLAIN_MAP);
    let at = find(m, b"r-xp") as u64;
    m[at as usize + 3] = b'q';
    expect(&run(files), "UF040", Some(PLAIN_MAP), at..at + 4);
}

#[test]
fn uf041_map_without_stack_nostack() {
    let mut files = corpus_files("plain");
    let m = get(&mut files, PLAIN_MAP);
    let span = line_span(m, b"7ff");
    let stack_line_start = span.start as usize;
    m.truncate(stack_line_start);
    let end = m.len() as u64;
    expect(&run(files), "UF041", Some(PLAIN_MAP), end..end);
}

#[test]
fn uf042_overlapping_modules() {
    let mut files = corpus_files("plain");
    let m = get(&mut files, PLAIN_MAP);
    let first = line_span(m, b"5");
    let line = m[first.start as usize..=first.end as usize].to_vec();
    let stack = line_span(m, b"7ff").start as usize;
    m.splice(stack..stack, line.iter().copied());
    let span = stack as u64..(stack + line.len() - 1) as u64;
    expect(&run(files), "UF042", Some(PLAIN_MAP), span);
}

#[test]
fn uf043_exe_not_in_map() {
    let mut files = corpus_files("plain");
    let t = get(&mut files, "task.txt");
    replace(
        t,
        b"exename=\"/tmp/tracelint-uftrace/bin/uf_basic\"",
        b"exename=\"/tmp/other\"",
    );
    expect(&run(files), "UF043", Some(PLAIN_MAP), 0..0);
}

#[test]
fn uf044_module_without_symbols() {
    let mut files = corpus_files("plain");
    remove(&mut files, "libz.so.1.2.13.sym");
    let m = get(&mut files, PLAIN_MAP).clone();
    let at = find(&m, b"/usr/lib/x86_64-linux-gnu/libz.so");
    let start = m[..at]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |p| p + 1);
    let end = at + m[at..].iter().position(|&c| c == b'\n').unwrap();
    expect(
        &run(files),
        "UF044",
        Some(PLAIN_MAP),
        start as u64..end as u64,
    );
}

#[test]
fn uf050_sym_without_path_header() {
    let mut files = corpus_files("plain");
    let s = get(&mut files, "uf_basic.sym");
    let span = line_span(s, b"# path name:");
    s.drain(span.start as usize..=span.end as usize);
    expect(&run(files), "UF050", Some("uf_basic.sym"), 0..0);
}

/// A corpus directory whose `uftrace_version:` line names `version` instead of v0.13.
fn written_by(name: &str, version: &str) -> Files {
    let mut files = corpus_files(name);
    let i = info_mut(&mut files);
    replace(
        i,
        b"uftrace_version:v0.13 ",
        format!("uftrace_version:{version} ").as_bytes(),
    );
    files
}

fn strip_sym_header(s: &mut Vec<u8>, keep_count: bool) {
    for key in [&b"# path name:"[..], b"# build-id:", b"# symbols:"] {
        if keep_count && key == b"# symbols:" {
            continue;
        }
        let span = line_span(s, key);
        s.drain(span.start as usize..=span.end as usize);
    }
}

/// Rewrites a 0.13 `.sym` (end markers, no sizes) in the 0.14-0.18 layout (a size column).
fn sized_sym(data: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(data).into_owned();
    let mut head = Vec::new();
    let mut ents: Vec<(u64, String, String)> = Vec::new();
    for l in text.lines() {
        if l.starts_with('#') {
            head.push(l.to_string());
        } else if l.len() > 19 {
            ents.push((
                u64::from_str_radix(&l[..16], 16).unwrap(),
                l[17..18].to_string(),
                l[19..].to_string(),
            ));
        }
    }
    let mut out = Vec::new();
    for (i, (a, t, n)) in ents.iter().enumerate() {
        if t == "?" {
            continue;
        }
        let next = ents.get(i + 1).map_or(a + 1, |e| e.0);
        out.push(format!("{a:016x} {:08x} {t} {n}", next.saturating_sub(*a)));
    }
    for h in &mut head {
        if h.starts_with("# symbols:") {
            *h = format!("# symbols: {}", out.len());
        }
    }
    let mut all = head;
    all.extend(out);
    (all.join("\n") + "\n").into_bytes()
}

#[test]
fn layouts_of_uftrace_0_16_and_0_17_read_clean() {
    // 0.14-0.16: SYM_SIZE and a size column; 0.17-0.18: also utc_offset (info_mask bit 14).
    for utc in [false, true] {
        let mut files = written_by("plain", if utc { "v0.17" } else { "v0.16" });
        for (name, data) in files.iter_mut() {
            if name.ends_with(".sym") {
                *data = sized_sym(data);
            }
        }
        let i = info_mut(&mut files);
        let mut feat = u64::from_le_bytes(i[16..24].try_into().unwrap());
        feat |= 1 << 12;
        i[16..24].copy_from_slice(&feat.to_le_bytes());
        if utc {
            set_info_bit(i, 14);
            i.extend_from_slice(b"utc_offset:32400\n");
        }
        let f = run(files);
        assert!(f.is_empty(), "{f:?}");
    }
}

#[test]
fn uf057_sym_without_header_of_uftrace_0_9_2() {
    let mut files = written_by("plain", "v0.9.2");
    strip_sym_header(get(&mut files, "uf_basic.sym"), false);
    let f = run(files);
    expect(&f, "UF057", Some("uf_basic.sym"), 0..0);
    let m = f.iter().find(|x| x.rule.code == "UF057").unwrap();
    assert!(
        m.message.contains("written by uftrace v0.9.2"),
        "{}",
        m.message
    );
    assert!(!f
        .iter()
        .any(|x| x.rule.code == "UF054" || x.rule.code == "UF050"));
    assert!(errors(&f).is_empty(), "{:?}", errors(&f));
}

#[test]
fn uf057_sym_count_only_of_uftrace_0_9_4() {
    let mut files = written_by("plain", "v0.9.4-12-gabcdef");
    let s = get(&mut files, "uf_basic.sym");
    strip_sym_header(s, true);
    let count = line_span(s, b"# symbols:");
    let f = run(files);
    expect(&f, "UF057", Some("uf_basic.sym"), count);
    assert!(!f
        .iter()
        .any(|x| x.rule.code == "UF054" || x.rule.code == "UF050"));
    assert!(errors(&f).is_empty(), "{:?}", errors(&f));
}

#[test]
fn uf050_no_header_from_a_writer_that_writes_one() {
    // uftrace 0.13 always writes the header: a header-less table did not come from it.
    let mut files = corpus_files("plain");
    strip_sym_header(get(&mut files, "uf_basic.sym"), false);
    let f = run(files);
    expect(&f, "UF050", Some("uf_basic.sym"), 0..0);
    assert!(!f.iter().any(|x| x.rule.code == "UF057"));
}

#[test]
fn uf058_sym_empty_name_of_uftrace_before_0_9() {
    let mut files = corpus_files("plain");
    let s = get(&mut files, "uf_basic.sym");
    let span = line_span(s, b"00000000000013d2 T main");
    // `0000000000001xxx P ` as uftrace 0.8 wrote IRELATIVE PLT entries.
    let line = b"00000000000013d2 P \n";
    s.splice(
        span.start as usize..span.start as usize,
        line.iter().copied(),
    );
    let at = span.start;
    let f = run(files);
    expect(&f, "UF058", Some("uf_basic.sym"), at..at + 19);
    assert!(!f.iter().any(|x| x.rule.code == "UF051"));
}

#[test]
fn uf045_map_path_with_spaces() {
    let mut files = corpus_files("plain");
    let m = get(&mut files, PLAIN_MAP);
    let at = replace(
        m,
        b"/usr/lib/x86_64-linux-gnu/liblzma.so.5.4.1 build-id",
        b"/usr/lib/x86_64-linux-gnu/my lzma.so build-id",
    ) as u64;
    let f = run(files);
    expect(&f, "UF045", Some(PLAIN_MAP), at..at + 36);
    assert!(!f.iter().any(|x| x.rule.code == "UF040"));
    assert!(errors(&f).is_empty(), "{:?}", errors(&f));
    // uftrace 0.6-0.9 copied /proc/self/maps: ` (deleted)` suffixes and `[heap]` lines.
    let mut files = corpus_files("plain");
    let m = get(&mut files, PLAIN_MAP);
    let at = replace(
        m,
        b"/usr/lib/x86_64-linux-gnu/liblzma.so.5.4.1 build-id:72a44fc3edc93188d045e65d92d28d50e373dbcb",
        b"/usr/lib/x86_64-linux-gnu/liblzma.so.5.4.1 (deleted)",
    ) as u64;
    m.extend_from_slice(b"7ffcd25c0000-7ffcd25e1000 rw-p 00000000 00:00 0 [heap]\n");
    let f = run(files);
    expect(&f, "UF045", Some(PLAIN_MAP), at..at + 52);
    assert!(!f
        .iter()
        .any(|x| x.rule.code == "UF044" && x.message.contains("[heap]")));
    assert!(errors(&f).is_empty(), "{:?}", errors(&f));
}

#[test]
fn short_build_ids_read_clean() {
    // md5 and uuid build-ids are 32 hex digits; uftrace reads any length up to 40.
    let mut files = corpus_files("plain");
    let s = get(&mut files, "libz.so.1.2.13.sym");
    let at = find(s, b"# build-id: ") + 12;
    let old = s[at..at + 40].to_vec();
    s.drain(at + 32..at + 40);
    let m = get(&mut files, PLAIN_MAP);
    let mut needle = b"build-id:".to_vec();
    needle.extend_from_slice(&old);
    let at = find(m, &needle) + 9;
    m.drain(at + 32..at + 40);
    let f = run(files);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn uf051_sym_unknown_type() {
    let mut files = corpus_files("plain");
    let s = get(&mut files, "uf_basic.sym");
    let span = line_span(s, b"00000000000013d2 T main");
    s[span.start as usize + 17] = b'Z';
    expect(&run(files), "UF051", Some("uf_basic.sym"), span);
}

#[test]
fn uf052_huge_symbol_count_crash_sc() {
    let mut files = corpus_files("plain");
    let s = get(&mut files, "uf_basic.sym");
    let at = find(s, b"# symbols: ");
    let end = at + s[at..].iter().position(|&c| c == b'\n').unwrap();
    s.splice(at..end, b"# symbols: 99999999999".iter().copied());
    expect(
        &run(files),
        "UF052",
        Some("uf_basic.sym"),
        at as u64..at as u64 + 22,
    );
}

#[test]
fn uf053_unsorted_symbols() {
    let mut files = corpus_files("plain");
    let s = get(&mut files, "uf_basic.sym");
    let a = line_span(s, b"00000000000013d2 T main");
    let line = s[a.start as usize..=a.end as usize].to_vec();
    s.drain(a.start as usize..=a.end as usize);
    let b = line_span(s, b"0000000000001338 T leaf").start as usize;
    s.splice(b..b, line.iter().copied());
    let moved = line_span(s, b"0000000000001338 T leaf");
    expect(&run(files), "UF053", Some("uf_basic.sym"), moved);
}

#[test]
fn uf054_sym_of_another_build() {
    let mut files = corpus_files("plain");
    let s = get(&mut files, "libz.so.1.2.13.sym");
    let at = find(s, b"# build-id: ") + 12;
    s[at] = if s[at] == b'0' { b'1' } else { b'0' };
    let m = get(&mut files, PLAIN_MAP).clone();
    let at = find(&m, b"/usr/lib/x86_64-linux-gnu/libz.so");
    let start = m[..at]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |p| p + 1);
    let end = at + m[at..].iter().position(|&c| c == b'\n').unwrap();
    expect(
        &run(files),
        "UF054",
        Some(PLAIN_MAP),
        start as u64..end as u64,
    );
}

#[test]
fn uf055_dbg_bad_code() {
    let mut files = corpus_files("args");
    let d = get(&mut files, "uf_basic.dbg");
    let len = d.len() as u64;
    d.extend_from_slice(b"Q: what\n");
    expect(&run(files), "UF055", Some("uf_basic.dbg"), len..len + 7);
}

#[test]
fn uf056_dbg_unknown_function() {
    let mut files = corpus_files("args");
    let d = get(&mut files, "uf_basic.dbg");
    let at = replace(d, b"F: 11f9 fib", b"F: 11f8 fib") as u64;
    expect(&run(files), "UF056", Some("uf_basic.dbg"), at..at + 11);
}

// ---------------------------------------------------------------- task data

fn rec(time: u64, typ: u8, depth: u16, addr: u64) -> Record {
    Record {
        time,
        typ,
        more: false,
        depth,
        addr,
        payload: vec![],
    }
}

fn minimal_files(recs: &[Record]) -> Files {
    writer::minimal(Some(recs)).files().to_vec()
}

#[test]
fn uf060_truncated_record_tr() {
    let mut files = corpus_files("plain");
    let d = get(&mut files, "13424.dat");
    let len = d.len();
    d.truncate(len - 8);
    let n = (len - 8) as u64;
    expect(&run(files), "UF060", Some("13424.dat"), n - 8..n);
}

#[test]
fn uf060_truncated_payload() {
    let mut files = corpus_files("args");
    let d = get(&mut files, "13435.dat");
    // main's ENTRY has a 16-byte argument payload after the record at 0x40.
    d.truncate(0x40 + 16 + 8);
    expect(&run(files), "UF060", Some("13435.dat"), 0x50..0x58);
}

/// A task file over 4 MiB is read ahead on a second thread in 1 MiB blocks; findings far
/// past the first block keep their exact offsets, on the fast and the full path alike.
#[test]
fn large_task_file_read_ahead_keeps_offsets() {
    let pairs = 250_000u64;
    let mut recs = vec![rec(1_000_000_010, 0, 0, 0x400110)];
    for i in 0..pairs {
        let t = 1_000_000_020 + i * 20;
        recs.push(rec(t, 0, 1, 0x400210));
        recs.push(rec(t + 10, 1, 1, 0x400210));
    }
    recs.push(rec(1_000_000_020 + pairs * 20, 1, 0, 0x400110));
    let mut files = minimal_files(&recs);
    let clean = run(files.clone());
    assert!(clean.is_empty(), "{clean:#?}");
    let d = get(&mut files, "100.dat");
    assert!(d.len() > 4 << 20);
    // Record 70_001 (offset 0x11_1770, in the second block) goes back in time.
    let back = 70_001 * 16;
    d[back..back + 8].copy_from_slice(&5u64.to_le_bytes());
    // Record 200_002 is an EXIT of f whose address differs from its ENTRY's.
    let exit = 200_002 * 16;
    let w1 = u64::from_le_bytes(d[exit + 8..exit + 16].try_into().unwrap());
    let w1 = (w1 & 0xffff) | (0x400220u64 << 16);
    d[exit + 8..exit + 16].copy_from_slice(&w1.to_le_bytes());
    // 8 stray bytes at the end.
    d.extend_from_slice(&[0u8; 8]);
    let n = d.len() as u64;
    for fast_paths in [true, false] {
        let opts = CheckOptions {
            fast_paths,
            ..CheckOptions::default()
        };
        let (f, _) = run_dir(&MemDir::new("/mem/uftrace.data", files.clone()), &opts);
        let got: Vec<(&str, u64, u64)> = f
            .iter()
            .map(|x| (x.rule.code, x.offset, x.length))
            .collect();
        assert_eq!(
            got,
            vec![
                ("UF063", back as u64, 8),
                ("UF065", exit as u64 + 8, 8),
                ("UF060", n - 8, 8),
            ],
            "fast_paths {fast_paths}: {f:#?}"
        );
    }
    // A walk that stops early (bad magic in the first block) hangs up on the reader thread.
    let d = get(&mut files, "100.dat");
    d[100 * 16 + 8] ^= 0x08;
    let f = run(files);
    let got: Vec<(&str, u64)> = f.iter().map(|x| (x.rule.code, x.offset)).collect();
    assert_eq!(got, vec![("UF061", 100 * 16 + 8)], "{f:#?}");
}

#[test]
fn uf061_bad_record_magic_bm() {
    let mut files = corpus_files("plain");
    let d = get(&mut files, "13424.dat");
    d[0x28] ^= 0x08;
    expect(&run(files), "UF061", Some("13424.dat"), 0x28..0x29);
}

#[test]
fn uf062_lost_record() {
    let mut files = corpus_files("plain");
    let d = get(&mut files, "13424.dat");
    let lost = Record {
        time: 0,
        typ: 2,
        more: false,
        depth: 0,
        addr: 7,
        payload: vec![],
    }
    .encode();
    d.splice(0x40..0x40, lost);
    expect(&run(files), "UF062", Some("13424.dat"), 0x40..0x50);
}

#[test]
fn uf063_time_goes_back_tb() {
    let mut files = corpus_files("plain");
    let d = get(&mut files, "13424.dat");
    d[0x24..0x28].copy_from_slice(&[0, 0, 0, 0]);
    expect(&run(files), "UF063", Some("13424.dat"), 0x20..0x28);
}

#[test]
fn uf064_entry_skips_a_depth() {
    let files = minimal_files(&[
        rec(1_000_000_010, 0, 0, 0x400110),
        rec(1_000_000_020, 0, 2, 0x400210),
    ]);
    expect(&run(files), "UF064", Some("100.dat"), 24..32);
}

#[test]
fn uf065_exit_address_differs() {
    let files = minimal_files(&[
        rec(1_000_000_010, 0, 0, 0x400110),
        rec(1_000_000_020, 1, 0, 0x400210),
    ]);
    expect(&run(files), "UF065", Some("100.dat"), 24..32);
}

#[test]
fn uf066_depth_reaches_max_stack_ms() {
    let mut files = minimal_files(&[
        rec(1_000_000_010, 0, 0, 0x400110),
        rec(1_000_000_020, 0, 1, 0x400210),
        rec(1_000_000_030, 0, 2, 0x400210),
    ]);
    let i = get(&mut files, "info");
    i[32] = 2;
    i[33] = 0;
    expect(&run(files), "UF066", Some("100.dat"), 40..48);
}

#[test]
fn uf067_address_outside_maps_ad() {
    let files = minimal_files(&[rec(1_000_000_010, 0, 0, 0x123456)]);
    expect(&run(files), "UF067", Some("100.dat"), 8..16);
}

/// Functions of a dlopen'ed library resolve through the DLOP base only from the DLOP
/// timestamp on: moved after every record, the plugin's 10 records (plugin_work and 4
/// plugin_leaf calls, ENTRY and EXIT) no longer resolve, on the fast and the full path alike.
#[test]
fn uf067_dlopen_library_resolves_only_after_its_dlop() {
    let files = corpus_files("dlopen");
    let f = run(files.clone());
    assert!(errors(&f).is_empty(), "{:?}", errors(&f));
    assert!(!f.iter().any(|x| x.rule.code == "UF067"), "{f:#?}");

    let mut late = files;
    let task = get(&mut late, "task.txt");
    let text = String::from_utf8(task.clone()).unwrap();
    let dlop = text.lines().find(|l| l.starts_with("DLOP ")).unwrap();
    let ts = dlop.split_whitespace().nth(1).unwrap();
    let moved = dlop.replace(ts, "timestamp=99999.000000000");
    *task = text.replace(dlop, &moved).into_bytes();
    for fast_paths in [true, false] {
        let opts = CheckOptions {
            fast_paths,
            ..CheckOptions::default()
        };
        let (f, _) = run_dir(&MemDir::new("/mem/uftrace.data", late.clone()), &opts);
        let unres: Vec<&Finding> = f.iter().filter(|x| x.rule.code == "UF067").collect();
        assert_eq!(unres.len(), 9, "8 shown + 1 summary: {unres:#?}");
        assert!(
            unres[8].message.contains("(10 in all)"),
            "{}",
            unres[8].message
        );
        assert!(unres[0].file.as_deref().unwrap().ends_with(".dat"));
        assert_eq!(unres[0].length, 8);
    }
}

#[test]
fn uf068_payload_without_spec_mb() {
    let mut r = rec(1_000_000_010, 0, 0, 0x400110);
    r.more = true;
    r.payload = vec![0; 8];
    let files = minimal_files(&[r]);
    expect(&run(files), "UF068", Some("100.dat"), 0..16);
}

#[test]
fn uf069_string_longer_than_arg_buffer() {
    let mut files = corpus_files("args");
    let d = get(&mut files, "13435.dat");
    let at = find(d, b"\x06\x00corpus");
    d[at] = 0xd0;
    d[at + 1] = 0x07; // 2000
    let pstart = (at - 8) as u64; // strcpy: arg1/p (8 bytes) then arg2/s
    let len = d.len() as u64;
    expect(
        &run(files),
        "UF069",
        Some("13435.dat"),
        pstart..(pstart + 2012).min(len),
    );
}

#[test]
fn uf070_more_on_lost() {
    let lost = Record {
        time: 0,
        typ: 2,
        more: true,
        depth: 0,
        addr: 3,
        payload: vec![],
    };
    let files = minimal_files(&[rec(1_000_000_010, 0, 0, 0x400110), lost]);
    expect(&run(files), "UF070", Some("100.dat"), 24..25);
}

#[test]
fn uf071_event_length_el() {
    let mut files = corpus_files("events");
    let d = get(&mut files, "13493.dat");
    let at = find(d, &[0x2f, 0x00, 0xa1, 0x86, 0x01, 0, 0, 0]) + 8;
    d[at] = 20;
    expect(
        &run(files),
        "UF071",
        Some("13493.dat"),
        at as u64..at as u64 + 2,
    );
}

#[test]
fn uf071_unknown_event_with_data_ue() {
    let mut files = corpus_files("events");
    let d = get(&mut files, "13493.dat");
    let at = find(d, &[0x2f, 0x00, 0xa1, 0x86, 0x01, 0, 0, 0]);
    d[at + 2] = 0x00; // id 0x18600 = 99840: no payload known
    let rec = (at - 8) as u64;
    expect(&run(files), "UF071", Some("13493.dat"), rec..rec + 16);
}

#[test]
fn uf072_user_event_without_events_txt() {
    let mut files = corpus_files("events");
    remove(&mut files, "events.txt");
    // First SDT event record (corpus:begin, id 1000001) is the 6th record.
    expect(&run(files), "UF072", Some("13493.dat"), 0x58..0x60);
}

// ---------------------------------------------------------------- perf, kernel, text files

#[test]
fn uf080_perf_size_zero_hang_pz() {
    let mut files = corpus_files("args");
    let p = get(&mut files, "perf-cpu1.dat");
    p[0] = 0x63; // unknown type
    p[6] = 0;
    p[7] = 0;
    expect(&run(files), "UF080", Some("perf-cpu1.dat"), 6..8);
}

#[test]
fn uf080_perf_oversized_fork_pb() {
    let mut files = corpus_files("args");
    let p = get(&mut files, "perf-cpu1.dat");
    let last = 0xf0;
    p[last] = 7; // FORK
    p[last + 6] = 0xf8;
    p[last + 7] = 0xff;
    let plen = p.len() as u64;
    expect(
        &run(files),
        "UF081",
        Some("perf-cpu1.dat"),
        last as u64..plen,
    );
    let mut files = corpus_files("args");
    let p = get(&mut files, "perf-cpu1.dat");
    p[0] = 7;
    p[4] = 0;
    p[5] = 0;
    p[6] = 0x38; // 56 > 48
    expect(&run(files), "UF080", Some("perf-cpu1.dat"), 6..8);
}

#[test]
fn uf081_perf_truncated() {
    let mut files = corpus_files("args");
    let p = get(&mut files, "perf-cpu1.dat");
    let len = p.len();
    p.truncate(len - 4);
    expect(
        &run(files),
        "UF081",
        Some("perf-cpu1.dat"),
        0xf0..(len - 4) as u64,
    );
}

#[test]
fn uf082_perf_time_goes_back() {
    let mut files = corpus_files("args");
    let p = get(&mut files, "perf-cpu1.dat");
    p[64..72].copy_from_slice(&[0; 8]);
    expect(&run(files), "UF082", Some("perf-cpu1.dat"), 64..72);
}

fn kernel_header(block_len: usize) -> Vec<u8> {
    let mut v = format!(
        "PAGE_SIZE: 4096\nLONG_SIZE: 8\nENDIAN: LE\nTRACEFS: events/header_page: {block_len}\n"
    )
    .into_bytes();
    v.extend(std::iter::repeat_n(b'x', block_len));
    v
}

#[test]
fn uf090_kernel_header_block_too_large_kh() {
    let mut files = corpus_files("plain");
    let kh = kernel_header(20000);
    let span = line_span(&kh, b"TRACEFS");
    files.push(("kernel_header".into(), kh));
    expect(&run(files), "UF090", Some("kernel_header"), span);
}

#[test]
fn uf091_kernel_cpu_partial_page() {
    let mut files = corpus_files("plain");
    files.push(("kernel_header".into(), kernel_header(10)));
    files.push(("kernel-cpu0.dat".into(), vec![0; 100]));
    expect(&run(files), "UF091", Some("kernel-cpu0.dat"), 0..100);
}

#[test]
fn uf095_events_txt_line() {
    let mut files = corpus_files("events");
    let e = get(&mut files, "events.txt");
    let len = e.len() as u64;
    e.extend_from_slice(b"EVENT: x\n");
    expect(&run(files), "UF095", Some("events.txt"), len..len + 8);
}

#[test]
fn uf096_default_opts_foreign_option() {
    let mut files = corpus_files("plain");
    get(&mut files, "default.opts").extend_from_slice(b"--foo\n");
    expect(&run(files), "UF096", Some("default.opts"), 0..5);
}

#[test]
fn cxx_and_longjmp_recordings() {
    // cxx_auto: DWARF specs with an empty struct (`t0`) and auto-args of operator delete
    // applied by demangled name; no finding at all.
    let files = corpus_files("cxx_auto");
    let dbg = &files.iter().find(|(n, _)| n == "uf_cxx.dbg").unwrap().1;
    assert!(find(dbg, b"/t0:Empty") > 0);
    let f = run(files);
    assert!(f.is_empty(), "{f:?}");
    // cxx_spec: `-A worker@arg1/64` is skipped by uftrace: one UF025, nothing else.
    let f = run(corpus_files("cxx_spec"));
    let codes: Vec<&str> = f.iter().map(|x| x.rule.code).collect();
    assert_eq!(codes, ["UF025"], "{f:?}");
    // longjmp: frames unwound by longjmp have no EXIT; that is no nesting defect.
    let files = corpus_files("longjmp");
    let sym = &files.iter().find(|(n, _)| n == "uf_jmp.sym").unwrap().1;
    assert!(find(sym, b" longjmp") > 0);
    let f = run(files);
    assert!(f.is_empty(), "{f:?}");
}

// ---------------------------------------------------------------- robustness sweeps

/// Keeps the program's own tables and drops the large library `.sym` files so each sweep case
/// stays cheap.
fn small(files: Files) -> Files {
    files
        .into_iter()
        .filter(|(n, _)| !(n.starts_with("lib") || n.starts_with("ld-")))
        .collect()
}

/// Checks `files` and asserts every span lies in its file and the findings are the same with
/// the task-data fast path off; true when there was an error.
fn check_spans(files: &Files, opts: &CheckOptions) -> bool {
    let dir = MemDir::new("/m", files.clone());
    let (f, _) = run_dir(&dir, opts);
    let (slow, _) = run_dir(
        &dir,
        &CheckOptions {
            fast_paths: false,
            ..opts.clone()
        },
    );
    let key = |f: &[Finding]| -> Vec<String> {
        f.iter()
            .map(|x| format!("{} {:?} {:?} {}", x.rule.code, x.file, x.span(), x.message))
            .collect()
    };
    assert_eq!(key(&f), key(&slow), "fast path and full path disagree");
    for x in &f {
        if let Some(name) = &x.file {
            if let Some((_, data)) = files.iter().find(|(n, _)| n == name) {
                assert!(
                    x.offset + x.length <= data.len() as u64,
                    "{} span {:?} outside {name} ({} bytes): {}",
                    x.rule.code,
                    x.span(),
                    data.len(),
                    x.message
                );
            }
        }
    }
    f.iter().any(|x| x.severity == Severity::Error)
}

#[test]
fn sweep_truncations_and_byte_changes() {
    let start = Instant::now();
    let opts = common::fuzz_opts();
    let mut with_errors = 0usize;
    let mut cases = 0usize;
    for d in corpus_dirs() {
        let base = small(read_dir_files(&d));
        for fi in 0..base.len() {
            let len = base[fi].1.len();
            if len == 0 {
                continue;
            }
            let stride = (len / 12).max(1);
            let mut cut = 0;
            while cut < len {
                let mut files = base.clone();
                files[fi].1.truncate(cut);
                with_errors += usize::from(check_spans(&files, &opts));
                cases += 1;
                cut += stride;
            }
            let mut pos = 0;
            while pos < len {
                for v in [0u8, 0xff, 0x7f] {
                    let mut files = base.clone();
                    files[fi].1[pos] ^= v | 1;
                    with_errors += usize::from(check_spans(&files, &opts));
                    cases += 1;
                }
                pos += stride;
            }
        }
    }
    eprintln!(
        "{cases} cases, {with_errors} with errors, {:?}",
        start.elapsed()
    );
    assert!(with_errors > cases / 10);
}

#[test]
fn sweep_random_records() {
    // Random 16-byte words over the minimal image: never a panic, spans in bounds.
    let opts = common::fuzz_opts();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..300 {
        let mut recs = Vec::new();
        for _ in 0..8 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut r = rec(
                x >> 20,
                (x & 3) as u8,
                ((x >> 8) & 0x3ff) as u16,
                0x400000 + (x & 0xfff),
            );
            r.more = x & 0x10 != 0;
            r.payload = vec![(x >> 3) as u8; (x % 24) as usize];
            recs.push(r);
        }
        check_spans(&minimal_files(&recs), &opts);
    }
}

// ---------------------------------------------------------------- differential

fn uftrace_counts(uftrace: &Path, dir: &Path) -> Result<BTreeMap<u64, u64>, String> {
    let out = std::process::Command::new("timeout")
        .args(["-s", "KILL", "60"])
        .arg(uftrace)
        .args(["dump", "--no-pager", "-d"])
        .arg(dir)
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut counts = BTreeMap::new();
    let mut in_task = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("reading ") {
            in_task = rest
                .strip_suffix(".dat")
                .is_some_and(|s| s.bytes().all(|c| c.is_ascii_digit()));
            continue;
        }
        if !in_task {
            continue;
        }
        // `<ts>  <tid>: [entry] ...`
        let mut it = line.split_whitespace();
        let (Some(_ts), Some(tid), Some(kind)) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        let Some(tid) = tid.strip_suffix(':').and_then(|t| t.parse::<u64>().ok()) else {
            continue;
        };
        if matches!(kind, "[entry]" | "[exit" | "[lost" | "[event]") {
            *counts.entry(tid).or_insert(0) += 1;
        }
    }
    Ok(counts)
}

/// Every uftrace of the reader matrix dumps, per task, the records tracelint counts.
#[test]
fn differential_record_counts_match_uftrace_dump() {
    let matrix = common::matrix_readers("uftrace");
    for d in corpus_dirs() {
        let report = tracelint::check_path(&d, &CheckOptions::default(), &Default::default());
        let map = report.map.unwrap();
        let mut ours = BTreeMap::new();
        for c in &map.children {
            if let Some(tid) = c
                .label
                .strip_prefix("task ")
                .and_then(|t| t.parse::<u64>().ok())
            {
                let n: u64 = c
                    .values
                    .iter()
                    .find(|(k, _)| k == "records")
                    .unwrap()
                    .1
                    .parse()
                    .unwrap();
                ours.insert(tid, n);
            }
        }
        for r in &matrix {
            match uftrace_counts(&r.path, &d) {
                Ok(theirs) => assert_eq!(ours, theirs, "{} on {}", r.name, d.display()),
                // The corpus is written by uftrace 0.13; 0.9.4, older than the writer, stops
                // on its argument records (an older reader not reading a newer feature).
                Err(e)
                    if r.name == "uftrace 0.9.4" && e.contains("record missing argument info") =>
                {
                    eprintln!("{} cannot read {}: {}", r.name, d.display(), e.trim());
                }
                Err(e) => panic!("{} dump {}: {e}", r.name, d.display()),
            }
        }
    }
}

/// The event formats in `kernel_header` (TRACEFS `.../format` blocks) give the ring walker
/// its event table: records of an event without a format, or shorter than their format, are
/// errors; a format block without `name:`/`ID:` is reported where it lies.
#[test]
fn kernel_records_are_checked_against_kernel_header_formats() {
    use tracelint::formats::ftrace_ring::writer::{pages, payload, PageBuilder};
    use tracelint::reader::Endian;
    let format = b"name: funcgraph_entry\nID: 12\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n";
    let mut kh = kernel_header(10);
    kh.extend_from_slice(
        format!(
            "TRACEFS: events/ftrace/funcgraph_entry/format: {}\n",
            format.len()
        )
        .as_bytes(),
    );
    kh.extend_from_slice(format);
    let mut files = corpus_files("plain");
    info_mut(&mut files)[16] |= 0x04; // KERNEL
    files.push(("kernel_header".into(), kh.clone()));
    files.push(("kallsyms".into(), b"ffffffff81000000 T _stext\n".to_vec()));
    let good = PageBuilder::new(1000)
        .event(10, payload(12, 20))
        .event(5, payload(12, 24));
    files.push((
        "kernel-cpu0.dat".into(),
        pages(std::slice::from_ref(&good), 4096, 8, Endian::Little),
    ));
    let f = run(files.clone());
    assert!(errors(&f).is_empty(), "{:#?}", errors(&f));

    // An unknown id (99) and a funcgraph_entry record of 12 bytes (its format needs 20).
    let bad = PageBuilder::new(2000)
        .event(10, payload(99, 20))
        .event(5, payload(12, 12));
    get(&mut files, "kernel-cpu0.dat").extend(pages(&[bad], 4096, 8, Endian::Little));
    let f = run(files.clone());
    let codes: Vec<(&str, Option<&str>)> = errors_of(&f);
    assert_eq!(
        codes,
        vec![
            ("TD111", Some("kernel-cpu0.dat")),
            ("TD110", Some("kernel-cpu0.dat"))
        ],
        "{f:#?}"
    );
    let unknown = f.iter().find(|x| x.rule.code == "TD111").unwrap();
    assert!(unknown.message.contains("99"), "{}", unknown.message);
    assert!((4096..8192).contains(&unknown.offset));

    // A format block without an ID.
    let broken = String::from_utf8(kh).unwrap().replace("ID: 12", "ID: xy");
    let at = broken.find("name: funcgraph_entry").unwrap() as u64;
    *get(&mut files, "kernel_header") = broken.into_bytes();
    let f = run(files);
    expect(
        &f,
        "UF090",
        Some("kernel_header"),
        at..at + format.len() as u64,
    );
}

fn errors_of(f: &[Finding]) -> Vec<(&'static str, Option<&str>)> {
    f.iter()
        .filter(|x| x.severity == Severity::Error)
        .map(|x| (x.rule.code, x.file.as_deref()))
        .collect()
}

#[test]
fn kernel_pages_go_through_the_ring_walker() {
    use tracelint::formats::ftrace_ring::writer::{pages, payload, PageBuilder};
    use tracelint::reader::Endian;
    let good = PageBuilder::new(1000)
        .event(10, payload(12, 16))
        .event(5, payload(12, 16));
    let bad = PageBuilder::new(2000)
        .event(10, payload(12, 16))
        .commit(0xffff);
    let mut files = corpus_files("plain");
    info_mut(&mut files)[16] |= 0x04; // KERNEL
    files.push(("kernel_header".into(), kernel_header(10)));
    files.push(("kallsyms".into(), b"ffffffff81000000 T _stext\n".to_vec()));
    files.push((
        "kernel-cpu0.dat".into(),
        pages(std::slice::from_ref(&good), 4096, 8, Endian::Little),
    ));
    let f = run(files.clone());
    assert!(errors(&f).is_empty(), "{:#?}", errors(&f));
    files.push((
        "kernel-cpu1.dat".into(),
        pages(&[good, bad], 4096, 8, Endian::Little),
    ));
    get(&mut files, "kallsyms").extend_from_slice(b"zzzz T broken\n");
    let f = run(files);
    expect(&f, "TD101", Some("kernel-cpu1.dat"), 4096 + 8..4096 + 16);
    expect(&f, "UF051", Some("kallsyms"), 26..39);
}
