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
    let opts = CheckOptions::default();
    let mut sink = Sink::with_limits(&opts.limits);
    let _ = check_bytes(data, &opts, &mut sink);
    sink.into_parts().0
}

fn show(f: &[Finding]) -> String {
    f.iter()
        .map(|f| format!("{} {} @{}+{}: {}\n", f.rule.code, f.severity, f.offset, f.length, f.message))
        .collect()
}

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
    }
}
