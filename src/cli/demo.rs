//! `tracelint demo`: checks the shipped corpus and says whether every good trace passes,
//! every trace broken on purpose is caught and every fuzzer-found input is checked to the end.

use super::inputs::{check_input, walk};
use super::output::{emit_then, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE};
use rayon::prelude::*;
use std::path::Path;
use std::process::ExitCode;
use tracelint::check::{CheckOptions, Report};
use tracelint::config::Config;
use tracelint::finding::Severity;
use tracelint::report;

/// Where a corpus input sits: good traces, `defects/` (real producer output broken on purpose,
/// which must give an error) or `regressions/` (fuzzer-found inputs, which must be checked to
/// the end without a crash).
#[derive(Clone, Copy, PartialEq, Eq)]
enum CorpusKind {
    Good,
    Defect,
    Regression,
}

fn corpus_kind(p: &Path) -> CorpusKind {
    let mut kind = CorpusKind::Good;
    for c in p.components() {
        match c.as_os_str().to_str() {
            Some("defects") => kind = CorpusKind::Defect,
            Some("regressions") => kind = CorpusKind::Regression,
            _ => {}
        }
    }
    kind
}

/// Checks every input under `corpus` (with the configuration and options the command line
/// gave) and prints the verdict per kind; exit 1 when the corpus is not healthy.
pub fn run(corpus: &Path, config: &Config, opts: &CheckOptions) -> ExitCode {
    if !corpus.is_dir() {
        eprintln!(
            "error: {} is not a directory; run from the source tree or pass the corpus folder",
            corpus.display()
        );
        return ExitCode::from(EXIT_USAGE);
    }
    let mut inputs = Vec::new();
    walk(corpus, &mut inputs, false, None);
    let reports: Vec<Report> = inputs
        .par_iter()
        .map(|i| check_input(i, opts, config))
        .collect();
    let rel = |r: &Report| {
        r.os_path
            .strip_prefix(corpus)
            .map(tracelint::check::escape_path)
            .unwrap_or_else(|_| r.path.clone())
    };
    let fmt = |r: &Report| r.format.map(|f| f.name()).unwrap_or("unknown");
    let of_kind = |k: CorpusKind| -> Vec<&Report> {
        reports
            .iter()
            .filter(|r| corpus_kind(&r.os_path) == k)
            .collect()
    };
    let (good, broken, regressions) = (
        of_kind(CorpusKind::Good),
        of_kind(CorpusKind::Defect),
        of_kind(CorpusKind::Regression),
    );
    let mut t = format!(
        "Good traces in {} ({}): each must pass\n",
        corpus.display(),
        good.len()
    );
    let mut good_ok = 0;
    for r in &good {
        let ok = r.counts.error == 0 && !r.io_failed;
        good_ok += usize::from(ok);
        t.push_str(&format!(
            "  {} {:<6} {} ({}){}\n",
            if ok { "✓" } else { "✗" },
            report::verdict(r),
            rel(r),
            fmt(r),
            if r.counts.warning > 0 {
                format!(", {} warning(s)", r.counts.warning)
            } else {
                String::new()
            }
        ));
    }
    t.push_str(&format!(
        "\nBroken on purpose (defects/, {}): each must be caught with an error\n",
        broken.len()
    ));
    let mut caught = 0;
    for r in &broken {
        let ok = r.counts.error > 0;
        caught += usize::from(ok);
        let mut codes: Vec<String> = Vec::new();
        for f in r.findings.iter().filter(|f| f.severity != Severity::Info) {
            let c = format!("{} {}", f.rule.code, f.severity);
            if !codes.contains(&c) {
                codes.push(c);
            }
        }
        t.push_str(&format!(
            "  {} {:<6} {} ({}): {}\n",
            if ok { "✓" } else { "✗" },
            if ok { "caught" } else { "missed" },
            rel(r),
            fmt(r),
            if codes.is_empty() {
                "no error or warning".to_string()
            } else {
                codes.join(", ")
            }
        ));
    }
    t.push_str(&format!(
        "\nFuzzer-found inputs (regressions/, {}): each must be checked to the end\n",
        regressions.len()
    ));
    let mut replayed = 0;
    for r in &regressions {
        let ok = !r.io_failed && !r.findings.iter().any(|f| f.rule.code == "TL004");
        replayed += usize::from(ok);
        t.push_str(&format!(
            "  {} {:<6} {} ({}): {} error(s), {} warning(s)\n",
            if ok { "✓" } else { "✗" },
            if ok { "checked" } else { "failed" },
            rel(r),
            fmt(r),
            r.counts.error,
            r.counts.warning
        ));
    }
    let healthy = good_ok == good.len() && caught == broken.len() && replayed == regressions.len();
    t.push_str(&format!(
        "\n{}: {good_ok} of {} good traces pass, {caught} of {} broken ones caught, \
         {replayed} of {} fuzzer-found inputs checked. \
         `tracelint check PATH` shows every finding with its bytes.\n",
        if healthy { "healthy" } else { "NOT HEALTHY" },
        good.len(),
        broken.len(),
        regressions.len()
    ));
    emit_then(&t, if healthy { EXIT_OK } else { EXIT_FINDINGS })
}
