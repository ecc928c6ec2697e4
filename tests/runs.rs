//! A task file unpacked before the rest of its recording gets a first pass that cuts it into
//! runs of clean records (`RecordSieve`); the walk takes a run whole when what the run assumed
//! holds. The findings must be exactly those of the walk without runs, on real recordings
//! (C and C++, arguments, threads, fork/exec, dlopen, longjmp, events), recordings from the
//! wild, and damaged copies of them: clobbered magics, time going back, depths and addresses
//! changed, records cut short.

use std::fs;
use std::path::{Path, PathBuf};
use tracelint::fuzzing::{check_runs_invariant, fuzz_options};
use tracelint::input::MemDir;

mod common;

fn dir_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let Ok(rd) = fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_file() {
            if let (Some(n), Ok(d)) = (p.file_name().and_then(|n| n.to_str()), fs::read(&p)) {
                out.push((n.to_string(), d));
            }
        }
    }
    out
}

fn recordings() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut add = |root: &Path| {
        if let Ok(rd) = fs::read_dir(root) {
            let mut v: Vec<PathBuf> = rd
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.join("info").is_file())
                .collect();
            v.sort();
            dirs.extend(v);
        }
    };
    add(&common::corpus("uftrace"));
    if let Some(w) = common::shared("samples/wild/uftrace") {
        add(&w);
    }
    dirs
}

fn is_task(n: &str) -> bool {
    tracelint::formats::uftrace::is_task_file(n)
}

#[test]
fn runs_change_no_finding_on_real_recordings() {
    let opts = fuzz_options(Some(tracelint::formats::uftrace::FORMAT));
    let mut with_runs = Vec::new();
    let mut with_payloads = Vec::new();
    for d in recordings() {
        let dir = MemDir::new(&d, dir_files(&d));
        let (t1, p1) = check_runs_invariant(&dir, &opts, 1);
        let (t16, p16) = check_runs_invariant(&dir, &opts, 16);
        let name = d.file_name().map(|n| n.to_string_lossy().to_string());
        if t1 + t16 > 0 {
            with_runs.push(name.clone());
        }
        if p1 + p16 > 0 {
            with_payloads.push(name);
        }
    }
    eprintln!("recordings whose walk took runs: {with_runs:?}");
    eprintln!("... runs with argument payloads: {with_payloads:?}");
    // The corpus recordings are clean: the walk takes runs in them, including runs with
    // argument payloads (string arguments vary in length, so their records stay outside runs).
    for name in [
        "plain", "args", "cxx_auto", "threads", "depth3", "forkexec", "longjmp",
    ] {
        assert!(
            with_runs.iter().flatten().any(|n| n == name),
            "no run was taken in corpus/uftrace/{name}"
        );
    }
    assert!(
        with_payloads.iter().flatten().any(|n| n == "args"),
        "no run with payloads was taken in corpus/uftrace/args"
    );
}

/// A deterministic stream of positions and bytes.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

#[test]
fn runs_change_no_finding_on_damaged_recordings() {
    let opts = fuzz_options(Some(tracelint::formats::uftrace::FORMAT));
    let mut rng = Lcg(0x5eed);
    let mut cases = 0usize;
    let mut taken = 0u64;
    for d in recordings() {
        let files = dir_files(&d);
        for (ti, (name, data)) in files.iter().enumerate() {
            if !is_task(name) || data.len() < 64 {
                continue;
            }
            for kind in 0..7u64 {
                let mut bad = data.clone();
                let recs = bad.len() / 16;
                let at = (rng.next() as usize % recs.max(1)) * 16;
                match kind {
                    // Magic clobbered.
                    0 => {
                        if let Some(b) = bad.get_mut(at + 8) {
                            *b ^= 0x38;
                        }
                    }
                    // Time goes back.
                    1 => {
                        if let Some(b) = bad.get_mut(at + 7) {
                            *b = 0;
                        }
                    }
                    // Depth changed.
                    2 => {
                        if let Some(b) = bad.get_mut(at + 9) {
                            *b ^= 0x01;
                        }
                    }
                    // Address moved far away.
                    3 => {
                        if let Some(b) = bad.get_mut(at + 13) {
                            *b ^= 0x40;
                        }
                    }
                    // Address moved a little (another function, or none).
                    4 => {
                        if let Some(b) = bad.get_mut(at + 11) {
                            *b ^= 0x10;
                        }
                    }
                    // `more` flipped.
                    5 => {
                        if let Some(b) = bad.get_mut(at + 8) {
                            *b ^= 0x04;
                        }
                    }
                    // Cut short inside a record.
                    _ => bad.truncate(at + 5),
                }
                let mut fs = files.clone();
                if let Some(f) = fs.get_mut(ti) {
                    f.1 = bad;
                }
                let dir = MemDir::new(&d, fs);
                taken += check_runs_invariant(&dir, &opts, 1).0;
                cases += 1;
            }
        }
    }
    eprintln!("{cases} damaged recordings, {taken} runs taken");
    assert!(cases >= 50, "only {cases} damaged recordings were checked");
    assert!(taken > 0, "no run was taken in any damaged recording");
}

fn corpus_dir(name: &str) -> (PathBuf, Vec<(String, Vec<u8>)>) {
    let d = common::corpus("uftrace").join(name);
    let files = dir_files(&d);
    (d, files)
}

fn codes(dir: &MemDir) -> Vec<&'static str> {
    let opts = fuzz_options(Some(tracelint::formats::uftrace::FORMAT));
    let mut sink = tracelint::Sink::with_limits(&opts.limits);
    tracelint::formats::uftrace::check_dir(dir, &opts, &mut sink);
    sink.into_parts().0.iter().map(|f| f.rule.code).collect()
}

fn record(time: u64, typ: u64, depth: u64, addr: u64) -> Vec<u8> {
    let w1 = typ | (5 << 3) | (depth << 6) | (addr << 16);
    let mut v = time.to_le_bytes().to_vec();
    v.extend_from_slice(&w1.to_le_bytes());
    v
}

/// The forked child of `forkexec` execs another program: its task file has records of the
/// parent's session and then of the child's. Records after the exec that still call the
/// parent's function resolve in the parent's session but not in the child's, so uftrace
/// cannot name them. A run that starts before the exec must not carry them past it.
#[test]
fn a_run_over_a_session_start_is_not_taken() {
    let (d, mut files) = corpus_dir("forkexec");
    let Some((_, dat)) = files.iter_mut().find(|(n, _)| n == "13461.dat") else {
        panic!("corpus/uftrace/forkexec/13461.dat is missing");
    };
    // Keep the first three records (EXIT of fork, ENTRY/EXIT of a parent function at
    // 0x557abeb4b230), then call that function again after the exec at 461.404191580.
    dat.truncate(48);
    for i in 0..8u64 {
        dat.extend(record(461_404_227_000 + 10 * i, 0, 1, 0x557a_beb4_b230));
        dat.extend(record(461_404_227_005 + 10 * i, 1, 1, 0x557a_beb4_b230));
    }
    let dir = MemDir::new(&d, files);
    assert!(
        codes(&dir).contains(&"UF067"),
        "the calls after the exec should not resolve: {:?}",
        codes(&dir)
    );
    let opts = fuzz_options(Some(tracelint::formats::uftrace::FORMAT));
    check_runs_invariant(&dir, &opts, 1);
}

/// `fib`'s argument spec in the `.dbg` file is made two arguments long (16 bytes) while the
/// records carry one (8 bytes): uftrace frames the payloads by the spec and loses step. A run
/// framed with the 8 bytes it saw must not be taken.
#[test]
fn a_run_framed_otherwise_than_the_spec_is_not_taken() {
    let (d, mut files) = corpus_dir("args");
    let Some((_, dbg)) = files.iter_mut().find(|(n, _)| n == "uf_basic.dbg") else {
        panic!("corpus/uftrace/args/uf_basic.dbg is missing");
    };
    let text = String::from_utf8_lossy(dbg).to_string();
    let longer = text.replacen(
        "F: 11f9 fib\nL: 6 scripts/corpus/src/uf_basic.c\nA: @arg1\n",
        "F: 11f9 fib\nL: 6 scripts/corpus/src/uf_basic.c\nA: @arg1,arg2\n",
        1,
    );
    assert_ne!(text, longer, "fib's spec was not found");
    *dbg = longer.into_bytes();
    let dir = MemDir::new(&d, files);
    let (plain_dir, plain_files) = corpus_dir("args");
    assert_ne!(
        codes(&dir),
        codes(&MemDir::new(&plain_dir, plain_files)),
        "the longer spec should change what the walk finds"
    );
    let opts = fuzz_options(Some(tracelint::formats::uftrace::FORMAT));
    check_runs_invariant(&dir, &opts, 1);
}

/// A fresh recording by the installed uftrace: three threads calling a two-argument function
/// with a return value (fixed payloads) 200,000 times each and, every 1,000th time, a function
/// with a string argument. Its task files are larger than what an archive keeps in memory, so
/// checking its tar.zst spills them and takes runs; the findings must be those of the
/// directory, before and after bytes of one task file are damaged.
#[test]
fn a_fresh_threaded_recording_with_arguments_checks_the_same_archived() {
    use std::process::Command;
    use tracelint::check::{check_path, CheckOptions};
    use tracelint::config::Config;
    for tool in ["uftrace", "gcc"] {
        if Command::new(tool).arg("--version").output().is_err() {
            common::skip_or_fail(&format!("{tool} is not installed"));
            return;
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("t.c");
    fs::write(
        &src,
        r#"#include <pthread.h>
#include <stdio.h>
#include <string.h>
static long add(long a, long b) { return a + b; }
static int slen(const char *s) { return (int)strlen(s); }
static void *work(void *p) {
    long s = 0; const char *w[] = {"a", "bbbb", "cccccccccc"};
    for (long i = 0; i < 200000; i++) { s = add(s, i); if (i % 1000 == 0) s += slen(w[i % 3]); }
    return (void *)s;
}
int main(void) {
    pthread_t t[3];
    for (int i = 0; i < 3; i++) pthread_create(&t[i], 0, work, 0);
    for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
    puts("done");
    return 0;
}
"#,
    )
    .unwrap();
    let exe = tmp.path().join("t");
    let ok = Command::new("gcc")
        .args(["-pg", "-g", "-O0", "-pthread", "-o"])
        .arg(&exe)
        .arg(&src)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "gcc failed");
    let rec = tmp.path().join("rec");
    let out = Command::new("uftrace")
        .args([
            "record",
            "--no-libcall",
            "-A",
            "add@arg1,arg2",
            "-R",
            "add@retval",
        ])
        .args(["-A", "slen@arg1/s", "-d"])
        .arg(&rec)
        .arg(&exe)
        .output()
        .unwrap();
    if !out.status.success() {
        common::skip_or_fail(&format!(
            "uftrace record failed here: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
        return;
    }
    let default = CheckOptions::default();
    let keys_with = |p: &Path, opts: &CheckOptions| {
        let r = check_path(p, opts, &Config::default());
        let mut k: Vec<_> = common::keys(&r)
            .into_iter()
            .map(|mut k| {
                k.2 = None;
                k
            })
            .collect();
        k.sort();
        (k, r)
    };
    let keys = |p: &Path| keys_with(p, &default);
    let archive = |name: &str| {
        let mut b = tar::Builder::new(Vec::new());
        b.append_dir_all("rec", &rec).unwrap();
        let tar = b.into_inner().unwrap();
        let p = tmp.path().join(name);
        fs::write(&p, zstd::bulk::compress(&tar, 3).unwrap()).unwrap();
        p
    };
    let big = dir_files(&rec)
        .iter()
        .filter(|(n, d)| is_task(n) && d.len() > 8 << 20)
        .count();
    assert!(big >= 3, "only {big} task files above 8 MiB");
    for round in 0..2 {
        if round == 1 {
            // Damage one task file: two flipped bits, then 64 zero bytes (which hold a record
            // start whatever the framing: records here are at most 32 bytes apart).
            let (name, mut data) = dir_files(&rec)
                .into_iter()
                .filter(|(n, _)| is_task(n))
                .max_by_key(|(_, d)| d.len())
                .unwrap();
            for off in [3_000_011usize, 4_000_013] {
                if let Some(b) = data.get_mut(off) {
                    *b ^= 0x10;
                }
            }
            if let Some(z) = data.get_mut(7_000_013..7_000_077) {
                z.fill(0);
            }
            fs::write(rec.join(&name), data).unwrap();
        }
        let (plain, _) = keys(&rec);
        let (packed, r) = keys(&archive(&format!("rec{round}.tar.zst")));
        assert_eq!(packed, plain, "round {round}");
        if round == 0 {
            // Read from a file, the runs of `add` (fixed payloads) are left out of the spill
            // too: 4 MiB of spill is room enough for task files of more than 8 MiB each.
            let small = CheckOptions {
                limits: tracelint::Limits {
                    max_spill_bytes: 4 << 20,
                    ..tracelint::Limits::default()
                },
                ..CheckOptions::default()
            };
            let (k, r) = keys_with(&archive("small.tar.zst"), &small);
            assert!(r.findings.iter().all(|f| f.rule.code != "TL003"), "{k:?}");
            assert_eq!(k, plain, "with 4 MiB of spill");
        }
        let taken = r.map.as_ref().map_or(0, common::runs_taken);
        assert!(taken > 0, "round {round}: no run was taken");
        if round == 1 {
            // The zeros give UF061 (error) unless a flipped bit stopped the walk earlier, which
            // is an error too.
            assert!(
                plain.iter().any(|k| k.1 == "error"),
                "the damage gave no error: {plain:?}"
            );
        }
    }
}

/// The task file of `plain` replaced by 400,001 records of `main` calling one function (more
/// than six runs of 65,536 records), with one call in the fourth run made to an address in no
/// module: that run is not taken (its address does not resolve), and the walk, which reads its
/// records, must still take every run after it.
#[test]
fn runs_after_one_that_is_not_taken_are_taken() {
    use tracelint::formats::uftrace::check_dir_with_runs;
    use tracelint::fuzzing::record_sieves;
    let (d, mut files) = corpus_dir("plain");
    let Some((_, dat)) = files.iter_mut().find(|(n, _)| n == "13424.dat") else {
        panic!("corpus/uftrace/plain/13424.dat is missing");
    };
    let (t0, main, f) = (461_319_609_372u64, 0x561e_8d05_13e5u64, 0x561e_8d05_1080u64);
    let mut v = record(t0, 0, 0, main);
    for i in 0..200_000u64 {
        let addr = if i == 110_000 { 0x10 } else { f };
        v.extend(record(t0 + 1 + 2 * i, 0, 1, addr));
        v.extend(record(t0 + 2 + 2 * i, 1, 1, addr));
    }
    *dat = v;
    let dir = MemDir::new(&d, files);
    let opts = fuzz_options(Some(tracelint::formats::uftrace::FORMAT));
    check_runs_invariant(&dir, &opts, 16);
    let sieves = record_sieves(&dir, 1 << 20, 16);
    let refs: Vec<_> = sieves.iter().map(|(n, s)| (n.as_str(), s)).collect();
    let mut sink = tracelint::Sink::with_limits(&opts.limits);
    check_dir_with_runs(&dir, &refs, &opts, &mut sink);
    let found: usize = sieves.iter().map(|(_, s)| s.runs().len()).sum();
    let taken: u64 = sieves.iter().map(|(_, s)| s.taken()).sum();
    assert!(found >= 7, "{found} runs");
    assert_eq!(taken, found as u64 - 1, "{taken} of {found} runs taken");
}

/// The recording of `plain` with 400,001 records (6.4 MB) in its task file, archived as
/// `tar.zst` and read from a stream: the records of the runs are summarised as they pass
/// and not kept, so far less than the task file is spilled (`max_spill_bytes` of 1 MiB is
/// not hit) and the findings are those of the directory. One record resolving nowhere makes
/// a run the walk cannot take: then its bytes are needed, which a stream cannot give again,
/// and one `TL003` says so (the directory has its error); from a file on disk the archive
/// is read again and gives the directory's findings.
#[test]
fn a_streamed_archive_keeps_no_bytes_of_its_runs() {
    use tracelint::check::{check_path, check_reader, CheckOptions};
    use tracelint::config::Config;
    use tracelint::Limits;
    let tmp = tempfile::tempdir().unwrap();
    for bad in [false, true] {
        let (_, mut files) = corpus_dir("plain");
        let Some((_, dat)) = files.iter_mut().find(|(n, _)| n == "13424.dat") else {
            panic!("corpus/uftrace/plain/13424.dat is missing");
        };
        let (t0, main, f) = (461_319_609_372u64, 0x561e_8d05_13e5u64, 0x561e_8d05_1080u64);
        let mut v = record(t0, 0, 0, main);
        for i in 0..200_000u64 {
            let addr = if bad && i == 110_000 { 0x10 } else { f };
            v.extend(record(t0 + 1 + 2 * i, 0, 1, addr));
            v.extend(record(t0 + 2 + 2 * i, 1, 1, addr));
        }
        *dat = v;
        let rec = tmp.path().join(format!("rec{bad}"));
        fs::create_dir_all(&rec).unwrap();
        for (n, d) in &files {
            fs::write(rec.join(n), d).unwrap();
        }
        let mut b = tar::Builder::new(Vec::new());
        b.append_dir_all("rec", &rec).unwrap();
        let packed = zstd::bulk::compress(&b.into_inner().unwrap(), 3).unwrap();
        let zst = tmp.path().join(format!("rec{bad}.tar.zst"));
        fs::write(&zst, &packed).unwrap();
        let opts = CheckOptions {
            limits: Limits {
                unpack_memory_bytes: 64,
                max_spill_bytes: 1 << 20,
                ..Limits::default()
            },
            ..CheckOptions::default()
        };
        let unmembered = |r: &tracelint::check::Report| {
            let mut k: Vec<_> = common::keys(r)
                .into_iter()
                .map(|mut k| {
                    k.2 = None;
                    k
                })
                .collect();
            k.sort();
            k
        };
        let dir = check_path(&rec, &CheckOptions::default(), &Config::default());
        // Read again from the file, the whole task file is spilled (with room for it).
        let room = CheckOptions {
            limits: Limits {
                unpack_memory_bytes: 64,
                ..Limits::default()
            },
            ..CheckOptions::default()
        };
        let from_file = check_path(&zst, if bad { &room } else { &opts }, &Config::default());
        let streamed = check_reader(
            Path::new("-"),
            Box::new(std::io::Cursor::new(packed)),
            &opts,
            &Config::default(),
        );
        assert_eq!(unmembered(&from_file), unmembered(&dir), "bad={bad}");
        if bad {
            assert!(dir.counts.error > 0);
            // With the 1 MiB budget the file's second reading cuts the task file: said, not
            // checked as if the records ended there.
            let cut = check_path(&zst, &opts, &Config::default());
            assert!(
                cut.findings
                    .iter()
                    .any(|f| f.rule.code == "TL003" && f.message.contains("max_spill_bytes")),
                "{:?}",
                unmembered(&cut)
            );
            let codes: Vec<_> = streamed.findings.iter().map(|f| f.rule.code).collect();
            assert_eq!(codes, ["TL003"], "{:?}", unmembered(&streamed));
        } else {
            assert_eq!(unmembered(&streamed), unmembered(&dir));
            let taken = streamed.map.as_ref().map_or(0, common::runs_taken);
            assert!(taken >= 6, "{taken} runs taken");
        }
    }
}
