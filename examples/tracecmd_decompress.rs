//! Decompress-only pass over the CPU data of a compressed trace.dat: decodes the structure, then
//! decompresses every chunk of every CPU stream into one reused buffer and does nothing else.
//! The benchmark compares tracelint's full check against this floor.
//!
//! Usage: `tracecmd_decompress FILE`
use tracelint::formats::tracecmd::{decode, model::Algo};
use tracelint::reader::Reader;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: tracecmd_decompress FILE");
    // Compressed files are small: read the file into memory.
    let data = std::fs::read(&path).expect("read");
    let opts = tracelint::CheckOptions::default();
    let mut sink = tracelint::Sink::with_limits(&opts.limits);
    let m = decode(&data, &opts, &mut sink).expect("header");
    let algo = m.header.algo.unwrap_or(Algo::None);
    let mut zd = zstd::bulk::Decompressor::new().expect("zstd");
    let mut buf: Vec<u8> = Vec::new();
    let (mut chunks, mut bytes) = (0u64, 0u64);
    for b in &m.buffers {
        if !b.compressed {
            continue;
        }
        for e in &b.cpus {
            if e.size == 0 {
                continue;
            }
            let mut r = Reader::new(&data, m.header.endian);
            r.seek(e.offset, "stream").expect("seek");
            let n = r.u32("count").expect("count");
            for _ in 0..n {
                let z = r.u32("zsize").expect("zsize");
                let u = r.u32("usize").expect("usize") as usize;
                let input = r.bytes(z as usize, "chunk").expect("chunk");
                buf.clear();
                buf.resize(u, 0);
                let got = match algo {
                    Algo::Zstd => zd.decompress_to_buffer(input, &mut buf[..]).expect("zstd"),
                    _ => {
                        let mut d = flate2::Decompress::new(true);
                        d.decompress(input, &mut buf, flate2::FlushDecompress::Finish)
                            .expect("zlib");
                        d.total_out() as usize
                    }
                };
                chunks += 1;
                bytes += got as u64;
            }
        }
    }
    println!("{chunks} chunks, {bytes} bytes decompressed");
}
