//! Micro benchmark of the ftrace ring-buffer page walker.
//!
//! Builds synthetic per-CPU data (default 256 MiB of 4 KiB pages full of typical events: 16–64
//! byte payloads, some long events, time extends and padding) and walks it with
//! [`walk_cpu`], printing MB/s. For reference it also times a plain pass over the same bytes.
//!
//! ```text
//! cargo run --release --example ring_bench [MiB]
//! ```

use std::time::Instant;
use tracelint::formats::ftrace_ring::writer::{payload, PageBuilder};
use tracelint::formats::ftrace_ring::{walk_cpu, EventTable, RingParams};
use tracelint::reader::{Endian, Reader};
use tracelint::Sink;

fn main() {
    let mib: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(256);
    let page_size = 4096u32;
    let mut table = EventTable::new();
    for id in 1..400u32 {
        table.insert(id, format!("sys:event{id}"), 16);
    }

    // A handful of distinct pages, repeated.
    let mut protos = Vec::new();
    for k in 0..8u64 {
        let mut p = PageBuilder::new(k * 1_000_000);
        let mut used = 0usize;
        let mut i = 0u16;
        while used < 3900 {
            let len = 16 + usize::from(i % 13) * 4;
            if i % 50 == 49 {
                p = p.time_extend(1 << 28);
                used += 8;
            }
            if i % 37 == 36 {
                p = p.event(7, payload(1 + i % 300, 160));
                used += 168;
            } else {
                p = p.event(100 + u32::from(i % 17), payload(1 + i % 300, len));
                used += 4 + len;
            }
            i += 1;
        }
        let page = p.build(page_size, 8, Endian::Little);
        if page.len() as u32 == page_size {
            protos.push(page);
        }
    }
    let npages = mib * 1024 * 1024 / page_size as usize;
    let mut data = Vec::with_capacity(npages * page_size as usize);
    for n in 0..npages {
        let mut page = protos[n % protos.len()].clone();
        // Monotonic page timestamps.
        page[..8].copy_from_slice(&(n as u64 * 1_000_000_000_000).to_le_bytes());
        data.extend_from_slice(&page);
    }
    let mb = data.len() as f64 / 1e6;

    let t = Instant::now();
    let sum: u64 = data
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .fold(0u64, |a, b| a.wrapping_add(b));
    let base = t.elapsed().as_secs_f64();

    let mut best = f64::MAX;
    let mut stats = None;
    for _ in 0..3 {
        let mut sink = Sink::new(100);
        let t = Instant::now();
        let s = walk_cpu(
            Reader::new(&data, Endian::Little),
            RingParams::new(page_size, 8, Endian::Little, 0, ""),
            &table,
            &mut sink,
        );
        best = best.min(t.elapsed().as_secs_f64());
        if let Some(f) = sink.findings().first() {
            panic!("unexpected finding {}: {}", f.rule.code, f.message);
        }
        stats = Some(s);
    }
    let s = stats.unwrap_or_default();
    println!(
        "{} pages, {} events ({:.1} MB): walk {:.0} MB/s ({:.1} ns/event); plain 8-byte pass {:.0} MB/s [{sum:x}]",
        s.pages,
        s.events,
        mb,
        mb / best,
        best * 1e9 / s.events.max(1) as f64,
        mb / base
    );
}
