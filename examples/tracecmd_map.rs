//! Prints the structure map and findings of trace.dat files (debugging aid).
fn main() {
    for p in std::env::args().skip(1) {
        let data = std::fs::read(&p).expect("read");
        let opts = tracelint::CheckOptions::default();
        let mut sink = tracelint::Sink::with_limits(&opts.limits);
        let (_, map) = tracelint::check_bytes(&data, &opts, &mut sink);
        println!("{}", serde_json::to_string_pretty(&map).expect("json"));
        for f in sink.findings() {
            println!(
                "{} {} @{}+{}: {}",
                f.rule.code, f.severity, f.offset, f.length, f.message
            );
        }
    }
}
