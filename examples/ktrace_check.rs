//! Checks one ktrace file with flat memory use (positioned reads) and prints the findings.
//! Usage: `cargo run --release --example ktrace_check -- FILE`
use tracelint::{CheckOptions, Sink};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: ktrace_check FILE");
        std::process::exit(2);
    };
    let file = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(3);
        }
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let opts = CheckOptions::default();
    let mut sink = Sink::with_limits(&opts.limits);
    let map = tracelint::formats::ktrace::check_file(&file, len, &opts, &mut sink);
    for f in sink.findings() {
        println!(
            "{} {} [{}] 0x{:x}+{}: {}",
            f.severity, f.rule.code, f.rule.name, f.offset, f.length, f.message
        );
    }
    for (k, v) in &map.values {
        println!("{k}: {v}");
    }
    let errors = sink
        .findings()
        .iter()
        .filter(|f| f.severity == tracelint::Severity::Error)
        .count();
    std::process::exit(i32::from(errors > 0));
}
