//! The producer-option matrix: every healthy recording of `corpus/` (made here by
//! `scripts/corpus/*.sh` with the options of trace-cmd, uftrace and GDB that change what is
//! written) passes with no error finding, and every reader of the matrix reads it. A rule raised
//! as an error on one of them is wrong, or its case is.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tracelint::{CheckOptions, Severity};

/// The healthy recordings of one corpus folder: every input but `defects/` and `regressions/`.
fn recordings(format: &str) -> Vec<PathBuf> {
    let mut all = Vec::new();
    common::inputs(&common::corpus(format), &mut all);
    all.retain(|p| {
        !p.components()
            .any(|c| c.as_os_str() == "defects" || c.as_os_str() == "regressions")
    });
    all
}

fn run(argv: &[&std::ffi::OsStr], env: &[(&str, &Path)]) -> Output {
    let mut c = Command::new("timeout");
    c.args(["-s", "KILL", "60"]).args(argv);
    c.env("HOME", "/nonexistent").env("LANG", "C");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// (major, minor, patch) of a reader's name (`uftrace 0.18.1`, `uftrace 0.13 (Debian)`).
fn version_of(name: &str) -> (u32, u32, u32) {
    let v = name.split_whitespace().nth(1).unwrap_or("0");
    let mut it = v.split('.').map(|x| x.parse::<u32>().unwrap_or(0));
    (
        it.next().unwrap_or(0),
        it.next().unwrap_or(0),
        it.next().unwrap_or(0),
    )
}

#[test]
fn the_matrix_has_every_producer_s_variants() {
    let n = |f| recordings(f).len();
    assert!(n("uftrace") >= 25, "{} uftrace recordings", n("uftrace"));
    assert!(n("tracecmd") >= 15, "{} trace.dat files", n("tracecmd"));
    assert!(n("gdb") >= 8, "{} tfiles", n("gdb"));
}

#[test]
fn every_matrix_recording_passes() {
    let mut bad = Vec::new();
    for format in ["tracecmd", "uftrace", "gdb", "ktrace"] {
        for p in recordings(format) {
            let r = tracelint::check_path(&p, &CheckOptions::default(), &Default::default());
            for f in r.findings.iter().filter(|f| f.severity == Severity::Error) {
                bad.push(format!(
                    "{}: {} {:?} 0x{:x}: {}",
                    p.display(),
                    f.rule.code,
                    f.file,
                    f.offset,
                    f.message
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "errors on healthy recordings:\n{}",
        bad.join("\n")
    );
}

/// Every trace-cmd of the matrix that claims a file (2.x read v6 only; builds without zlib
/// cannot decompress zlib, `TD073`) reads it: exit 0, and every build reads the same number of
/// event lines as the others of its generation.
#[test]
fn every_trace_cmd_reads_every_matrix_trace_dat() {
    let readers = common::matrix_readers("trace-cmd");
    if readers.is_empty() {
        return;
    }
    let mut bad = Vec::new();
    for p in recordings("tracecmd") {
        let data = std::fs::read(&p).unwrap();
        let v7 = data.get(10) == Some(&b'7');
        let zlib = common::tracedat_compression(&data).as_deref() == Some("zlib");
        for r in &readers {
            if (v7 && !r.v7) || (zlib && !r.zlib) {
                continue;
            }
            let out = run(
                &[
                    r.path.as_os_str(),
                    "report".as_ref(),
                    "-i".as_ref(),
                    p.as_os_str(),
                ],
                &[],
            );
            if !out.status.success() {
                bad.push(format!(
                    "{} on {}: {:?}: {}",
                    r.name,
                    p.display(),
                    out.status,
                    String::from_utf8_lossy(&out.stderr)
                        .lines()
                        .last()
                        .unwrap_or("")
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Every uftrace of the matrix not older than the writer (uftrace 0.13 made the recordings;
/// older readers not knowing a newer feature is an info case) replays and dumps every
/// recording with exit 0.
#[test]
fn every_uftrace_reads_every_matrix_recording() {
    let readers: Vec<_> = common::matrix_readers("uftrace")
        .into_iter()
        .filter(|r| version_of(r.name) >= (0, 13, 0))
        .collect();
    if readers.is_empty() {
        return;
    }
    let mut bad = Vec::new();
    for p in recordings("uftrace") {
        for r in &readers {
            for cmd in ["replay", "dump", "graph", "report"] {
                let out = run(
                    &[
                        r.path.as_os_str(),
                        cmd.as_ref(),
                        "--no-pager".as_ref(),
                        "-d".as_ref(),
                        p.as_os_str(),
                    ],
                    &[],
                );
                if !out.status.success() || out.stdout.is_empty() {
                    bad.push(format!(
                        "{} {cmd} on {}: {:?}: {}",
                        r.name,
                        p.display(),
                        out.status,
                        String::from_utf8_lossy(&out.stderr)
                            .lines()
                            .next()
                            .unwrap_or("")
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// GDB 13 opens every tfile of the matrix and walks every frame (`campaign/gdb_walk.py`:
/// `target tfile`, then `tfind N` and a walk over each frame's blocks).
#[test]
fn gdb_reads_every_matrix_tfile() {
    if !Path::new("/usr/bin/gdb").is_file() {
        common::skip_or_fail("/usr/bin/gdb is not installed");
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("campaign/gdb_walk.py");
    let mut bad = Vec::new();
    for p in recordings("gdb") {
        let out = run(
            &[
                "/usr/bin/gdb".as_ref(),
                "-nx".as_ref(),
                "-batch".as_ref(),
                "-x".as_ref(),
                script.as_os_str(),
            ],
            &[("TFILE", &p)],
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let opened = text.lines().any(|l| l == "OPEN ok=True pushed=True");
        let broken = text
            .lines()
            .filter(|l| l.starts_with("FRAME ") && l.ends_with("walk=error"))
            .count();
        if !out.status.success() || !opened || broken > 0 {
            bad.push(format!(
                "GDB on {}: {:?}, opened {opened}, {broken} frame(s) not walked",
                p.display(),
                out.status
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
