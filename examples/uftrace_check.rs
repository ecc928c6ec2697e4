//! Checks uftrace data directories and prints the findings (used by bench/uftrace.sh).
use std::path::Path;
use tracelint::config::Config;
use tracelint::{check_path, CheckOptions};

fn main() {
    let mut status = 0;
    let quiet = std::env::args().any(|a| a == "-q");
    for arg in std::env::args().skip(1).filter(|a| a != "-q") {
        let report = check_path(
            Path::new(&arg),
            &CheckOptions::default(),
            &Config::default(),
        );
        for f in &report.findings {
            if !quiet {
                println!(
                    "{}: {} {} {}@{}+{}: {}",
                    arg,
                    f.severity,
                    f.rule.code,
                    f.file.as_deref().unwrap_or("-"),
                    f.offset,
                    f.length,
                    f.message
                );
                for n in &f.notes {
                    println!("    note: {n}");
                }
            }
        }
        if !quiet {
            if let Some(m) = &report.map {
                println!("{}", serde_json::to_string(&m.values).unwrap_or_default());
            }
        }
        println!(
            "{arg}: {} error(s), {} warning(s), {} info, {:?}",
            report.counts.error, report.counts.warning, report.counts.info, report.duration
        );
        if report.counts.error > 0 {
            status = 1;
        }
    }
    std::process::exit(status);
}
