//! Replays every input kept under `corpus/<fmt>/regressions/` (inputs that once crashed or
//! broke an invariant under fuzzing) through the same `tracelint::fuzzing::run_*` functions the
//! fuzz targets call, and every file also through format detection.
//!
//! `corpus/uftrace/regressions/` holds directory images (the fuzz target's input format, see
//! `tracelint::fuzzing::decode_dir_image`) or real directories.

use std::fs;
use std::path::{Path, PathBuf};
use tracelint::fuzzing;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        let readme = p.file_name().is_some_and(|n| n == "README.md");
        if p.is_dir() || (p.is_file() && !readme) {
            out.push(p);
        }
    }
}

/// Files of a real directory as (name, bytes) pairs.
fn dir_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v = Vec::new();
    for e in fs::read_dir(dir)
        .expect("read regression directory")
        .flatten()
    {
        let p = e.path();
        if p.is_file() {
            let name = e.file_name().to_string_lossy().into_owned();
            v.push((name, fs::read(&p).expect("read regression file")));
        }
    }
    v
}

fn replay(fmt: &str, path: &Path) {
    let run = fuzzing::runner_for(fmt).unwrap_or_else(|| panic!("no runner for corpus/{fmt}"));
    if path.is_dir() {
        assert_eq!(
            fmt, "uftrace",
            "only uftrace regressions may be directories: {path:?}"
        );
        let image = fuzzing::encode_dir_image(&dir_files(path));
        run(&image);
    } else {
        let data = fs::read(path).expect("read regression input");
        run(&data);
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        if fmt == "ktrace" && name.is_some_and(|n| n.starts_with("roundtrip-")) {
            fuzzing::run_ktrace_roundtrip_bytes(&data);
        }
        fuzzing::run_detect(&data);
    }
}

/// Entries (files and directory images) of every `corpus/*/regressions/` folder, their
/// README aside, counted straight from the folders.
fn regression_entries() -> usize {
    let mut n = 0;
    for fmt in fs::read_dir(corpus()).expect("corpus/").flatten() {
        let Ok(rd) = fs::read_dir(fmt.path().join("regressions")) else {
            continue;
        };
        n += rd
            .flatten()
            .filter(|e| e.file_name() != "README.md")
            .count();
    }
    n
}

#[test]
fn fuzz_regressions_replay() {
    let mut count = 0usize;
    let rd = fs::read_dir(corpus()).expect("corpus/ ships with the repository");
    let mut fmts: Vec<String> = rd
        .flatten()
        .filter(|e| e.path().join("regressions").is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    fmts.sort();
    for fmt in fmts {
        let mut inputs = Vec::new();
        files_under(&corpus().join(&fmt).join("regressions"), &mut inputs);
        assert!(
            !inputs.is_empty(),
            "corpus/{fmt}/regressions holds no input to replay"
        );
        for input in inputs {
            eprintln!("replaying {}", input.display());
            replay(&fmt, &input);
            count += 1;
        }
    }
    eprintln!("{count} regression input(s) replayed");
    // Every entry of every regressions folder was replayed, and there are some.
    let kept = regression_entries();
    assert!(kept > 0, "corpus/*/regressions holds nothing to replay");
    assert!(
        count >= kept,
        "{count} regression input(s) replayed of the {kept} kept under corpus/*/regressions"
    );
    // Every format with a fuzz target keeps its regressions here.
    assert!(count >= 4, "only {count} regression input(s) replayed");
}

/// The real corpus files also satisfy the fuzz invariants (cheap: one pass per file).
#[test]
fn corpus_files_satisfy_fuzz_invariants() {
    for (fmt, sub) in [
        ("tracecmd", "tracecmd"),
        ("gdb", "gdb"),
        ("gdb", "gdb/defects"),
    ] {
        let run = fuzzing::runner_for(fmt).expect("runner");
        let Ok(rd) = fs::read_dir(corpus().join(sub)) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_file() {
                let data = fs::read(&p).expect("read corpus file");
                run(&data);
                fuzzing::run_detect(&data);
            }
        }
    }
    let Ok(rd) = fs::read_dir(corpus().join("uftrace")) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() && p.join("info").is_file() {
            fuzzing::run_uftrace(&fuzzing::encode_dir_image(&dir_files(&p)));
        }
    }
}

/// Inputs the fuzz targets found that need no folder of their own: each replayed through its
/// target's runner. `uftrace-tar-findings-in-report-order.img` (a directory image): the same
/// findings from the directory and from a tar of it, which the report lists in offset order and
/// the directory's sink in the order the task walks found them.
#[test]
fn fuzz_findings_replay() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-findings");
    let mut inputs = Vec::new();
    files_under(&dir, &mut inputs);
    assert!(!inputs.is_empty(), "tests/fuzz-findings holds no input");
    for p in inputs {
        let name = p
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let fmt = name.split('-').next().unwrap_or_default();
        let run = fuzzing::runner_for(fmt).unwrap_or_else(|| panic!("no runner for {name}"));
        run(&fs::read(&p).expect("read fuzz finding"));
    }
}

/// What the structured archive target found (`archive-tfile-member-findings-in-report-order.zip`):
/// a zip whose GDB tfile member gives GT006 and GT036, which the report lists in offset order
/// and the member checked alone in the order its windowed walk found them. The same findings.
#[test]
fn an_archived_tfile_gives_the_findings_of_the_member_alone() {
    use std::io::Read;
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz-findings/archive-tfile-member-findings-in-report-order.zip");
    let bytes = fs::read(&p).expect("read the zip");
    let mut ar = zip::ZipArchive::new(std::io::Cursor::new(bytes.clone())).expect("a zip");
    let mut member = Vec::new();
    ar.by_name("d0/m0.tf")
        .expect("member d0/m0.tf")
        .read_to_end(&mut member)
        .expect("unzip");
    let opts = fuzzing::fuzz_options(None);
    let mut sink = tracelint::Sink::with_limits(&opts.limits);
    tracelint::check_bytes(&member, &opts, &mut sink);
    let mut alone: Vec<_> = sink
        .findings()
        .iter()
        .map(|f| (f.rule.code, f.offset, f.length))
        .collect();
    let r = tracelint::check::check_reader(
        Path::new("-"),
        Box::new(std::io::Cursor::new(bytes)),
        &opts,
        &tracelint::config::Config::default(),
    );
    let mut got: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.member.as_deref() == Some("d0/m0.tf"))
        .map(|f| (f.rule.code, f.offset, f.length))
        .collect();
    assert!(
        got.iter().any(|k| k.0 == "GT006") && got.iter().any(|k| k.0 == "GT036"),
        "{got:?}"
    );
    alone.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, alone);
}
