//! Real uftrace data directories from public repositories (`../shared/samples/wild/uftrace/`),
//! written by uftrace 0.8 to 0.16: every one is read by uftrace, so none may get an error
//! finding; where uftrace is installed, `uftrace dump` must read each one too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;
use std::process::Command;
use tracelint::input::{FsDir, LoadMode};
use tracelint::{CheckOptions, Severity, Sink};

fn wild_dirs() -> Option<Vec<PathBuf>> {
    let root = common::shared("samples/wild/uftrace")?;
    let mut v: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("info").is_file())
        .collect();
    v.sort();
    if v.is_empty() {
        common::skip_or_fail(&format!(
            "{} holds no uftrace data directory",
            root.display()
        ));
        return None;
    }
    Some(v)
}

fn have_uftrace() -> bool {
    let ok = Command::new("uftrace")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        common::skip_or_fail("the reader check: uftrace is not installed");
    }
    ok
}

#[test]
fn wild_directories_have_no_errors() {
    let Some(dirs) = wild_dirs() else { return };
    let mut bad = Vec::new();
    for d in &dirs {
        let opts = CheckOptions::default();
        let mut sink = Sink::with_limits(&opts.limits);
        let dir = FsDir::new(d.clone(), LoadMode::Read);
        tracelint::check_dir(&dir, &opts, &mut sink);
        let (findings, _) = sink.into_parts();
        for f in findings.iter().filter(|f| f.severity == Severity::Error) {
            bad.push(format!(
                "{}: {} {:?}: {}",
                d.display(),
                f.rule.code,
                f.file,
                f.message
            ));
        }
    }
    assert!(bad.is_empty(), "error findings:\n{}", bad.join("\n"));
}

#[test]
fn wild_directories_satisfy_fuzz_invariants() {
    // Spans inside the files, deterministic output, fast paths on and off agree.
    let Some(dirs) = wild_dirs() else { return };
    for d in &dirs {
        let mut files = Vec::new();
        for e in std::fs::read_dir(d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_file() {
                files.push((
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                ));
            }
        }
        files.sort();
        tracelint::fuzzing::run_uftrace(&tracelint::fuzzing::encode_dir_image(&files));
    }
}

#[test]
fn wild_directories_are_read_by_uftrace() {
    let Some(dirs) = wild_dirs() else { return };
    if !have_uftrace() {
        return;
    }
    for d in &dirs {
        // uftrace writes nothing into the directory for `dump`, but a read-only copy is the
        // norm here: point it at a scratch copy all the same.
        let tmp = std::env::temp_dir().join(format!(
            "tracelint-wild-{}-{}",
            std::process::id(),
            d.file_name().unwrap().to_string_lossy()
        ));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).unwrap();
        for e in std::fs::read_dir(d).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), tmp.join(e.file_name())).unwrap();
        }
        let out = Command::new("timeout")
            .args(["-s", "KILL", "60", "uftrace", "dump", "--no-pager", "-d"])
            .arg(&tmp)
            .output()
            .unwrap();
        let _ = std::fs::remove_dir_all(&tmp);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("[entry]"),
            "uftrace dump failed on {}: {}",
            d.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
