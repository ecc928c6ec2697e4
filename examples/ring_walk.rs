//! Walks raw ftrace ring-buffer pages (for example a copy of
//! `/sys/kernel/tracing/per_cpu/cpu0/trace_pipe_raw`) and prints every record and finding.
//!
//! ```text
//! cargo run --example ring_walk -- FILE [PAGE_SIZE [LONG_SIZE]]
//! ```

use tracelint::formats::ftrace_ring::{EventTable, RingParams, Walker};
use tracelint::reader::{Endian, Reader};
use tracelint::Sink;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: ring_walk FILE [PAGE_SIZE [LONG_SIZE]]");
        std::process::exit(2);
    };
    let page_size: u32 = args.next().and_then(|s| s.parse().ok()).unwrap_or(4096);
    let long_size: u8 = args.next().and_then(|s| s.parse().ok()).unwrap_or(8);
    let data = match std::fs::read(&path) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let table = EventTable::new();
    let mut w = Walker::new(
        RingParams::new(page_size, long_size, Endian::Little, 0, ""),
        &table,
    );
    let mut sink = Sink::new(1000);
    let mut off = 0u64;
    for page in data.chunks(page_size.max(1) as usize) {
        w.page_with(
            Reader::with_base(page, off, Endian::Little),
            &mut sink,
            |r| {
                println!(
                    "0x{:06x} ts {} id {:?} payload {} bytes",
                    r.offset,
                    r.ts,
                    r.id,
                    r.payload.len()
                );
            },
        );
        off += u64::from(page_size);
    }
    let stats = w.finish(&mut sink);
    for f in sink.findings() {
        println!(
            "{} {} @0x{:x}+{}: {}",
            f.severity, f.rule.code, f.offset, f.length, f.message
        );
    }
    println!("{stats:?}");
}
