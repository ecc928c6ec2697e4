//! Writes a synthetic GDB tfile for benchmarks, or checks files and prints the findings.
//!
//! `gen_tfile OUT [MEGABYTES]` writes a sound little-endian tfile of about that size (100 MB
//! by default). `gen_tfile --check FILE...` checks files with the library and prints the
//! findings and the frame count (used by the benchmark when no CLI binary is available).
//! `gen_tfile --definitions OUT N` writes a small tfile whose header defines N tracepoints,
//! each with an action, and 2N trace state variables (every number defined twice; one
//! action in 1000 names a tracepoint that does not exist): the definitions' benchmark.

use std::path::Path;
use tracelint::config::Config;
use tracelint::formats::gdb::{frame_count, writer};
use tracelint::{check_path, CheckOptions};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--check") => {
            let config = Config::default();
            let opts = CheckOptions::default();
            for p in args.iter().skip(1) {
                let r = check_path(Path::new(p), &opts, &config);
                for f in &r.findings {
                    println!(
                        "{p}: {} {} {}+{}: {}",
                        f.severity, f.rule.code, f.offset, f.length, f.message
                    );
                    for n in &f.notes {
                        println!("    note: {n}");
                    }
                }
                let frames = r.map.as_ref().and_then(frame_count);
                println!(
                    "{p}: {} error(s), {} warning(s), {} info, frames {:?}, {:?}",
                    r.counts.error, r.counts.warning, r.counts.info, frames, r.duration
                );
            }
        }
        Some("--definitions") => {
            let (Some(out), Some(n)) = (args.get(1), args.get(2).and_then(|s| s.parse().ok()))
            else {
                eprintln!("usage: gen_tfile --definitions OUT N");
                std::process::exit(2);
            };
            let bytes = definitions(n);
            std::fs::write(out, &bytes).unwrap_or_else(|e| {
                eprintln!("gen_tfile: cannot write {out}: {e}");
                std::process::exit(2);
            });
            println!("{out}: {} bytes, {n} tracepoints", bytes.len());
        }
        Some(out) => {
            let mb: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100);
            let bytes = writer::synthetic(mb * 1_000_000);
            std::fs::write(out, &bytes).unwrap_or_else(|e| {
                eprintln!("gen_tfile: cannot write {out}: {e}");
                std::process::exit(2);
            });
            println!("{out}: {} bytes", bytes.len());
        }
        None => {
            eprintln!(
                "usage: gen_tfile OUT [MEGABYTES] | gen_tfile --definitions OUT N | gen_tfile --check FILE..."
            );
            std::process::exit(2);
        }
    }
}

/// A two-frame tfile whose definitions are `n` tracepoints with an action each and `2n` trace
/// state variables (`Sample::many_definitions`, as `tests/gdb.rs::many_definitions_are_all_checked`
/// checks them).
fn definitions(n: u64) -> Vec<u8> {
    writer::Sample::many_definitions(n).build().bytes
}
