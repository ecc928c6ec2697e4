//! Generates ktrace / kdebug files with the crate's writer.
//!
//! `gen_ktrace corpus DIR` writes the small valid files of every version (see
//! `writer::sample_files`); `gen_ktrace big FILE MIB` streams a kernel-style V3 file of about
//! MIB mebibytes (CPU map, thread map, event chunks of 8192 events) for benchmarks.
use std::io::{BufWriter, Write};
use tracelint::formats::ktrace::model::Event;
use tracelint::formats::ktrace::writer::{self, Chunk, Cpu, Thread, V3Header, V3Magic};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let r = match args.get(1).map(String::as_str) {
        Some("corpus") if args.len() == 3 => corpus(&args[2]),
        Some("big") if args.len() == 4 => match args[3].parse::<u64>() {
            Ok(mib) => big(&args[2], mib),
            Err(e) => Err(std::io::Error::other(format!("bad size {}: {e}", args[3]))),
        },
        _ => {
            eprintln!("usage: gen_ktrace corpus DIR | gen_ktrace big FILE MIB");
            std::process::exit(2);
        }
    };
    if let Err(e) = r {
        eprintln!("gen_ktrace: {e}");
        std::process::exit(1);
    }
}

fn corpus(dir: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, model) in writer::sample_files() {
        let path = std::path::Path::new(dir).join(name);
        std::fs::write(&path, writer::write(&model))?;
        println!("{}", path.display());
    }
    Ok(())
}

fn big(path: &str, mib: u64) -> std::io::Result<()> {
    const NCPU: u32 = 8;
    const PER_CHUNK: u64 = 8192;
    let threads: Vec<Thread> = (0..256u64)
        .map(|i| Thread::new(0x1000 + i, (i / 4) as i32, &format!("proc{}", i / 4)))
        .collect();
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    let header = V3Header::new(V3Magic::Kernel);
    let cpus: Vec<Cpu> = (0..NCPU).map(Cpu::ap).collect();
    w.write_all(&writer::v3_header_bytes(
        &header,
        &[Chunk::cpu_map(1, cpus)],
    ))?;
    w.write_all(&writer::chunk_bytes(&Chunk::thread_map(1, threads), true))?;
    let target = mib.saturating_mul(1 << 20);
    let chunk_size = 16 + 8 + PER_CHUNK * 64;
    let chunks = target / chunk_size;
    let mut ts = 1_000_000u64;
    let mut i = 0u64;
    let mut buf = Vec::with_capacity(chunk_size as usize);
    for _ in 0..chunks {
        buf.clear();
        buf.extend_from_slice(&0x1e00u32.to_le_bytes());
        buf.extend_from_slice(&1u16.to_le_bytes());
        buf.extend_from_slice(&0u16.to_le_bytes());
        buf.extend_from_slice(&(8 + PER_CHUNK * 64).to_le_bytes());
        buf.extend_from_slice(&0u64.to_le_bytes());
        for _ in 0..PER_CHUNK {
            ts += 7;
            i += 1;
            let e = Event {
                timestamp: ts,
                args: [i, i ^ 0x5555, 0, 0],
                thread: 0x1000 + (i % 256),
                debugid: 0x0104_0000 | (((i % 64) as u32) << 2) | (i % 3) as u32,
                cpuid: (i % u64::from(NCPU)) as u32,
                unused: 0,
            };
            writer::put_event(&mut buf, &e, true);
        }
        w.write_all(&buf)?;
    }
    w.flush()?;
    println!(
        "{path}: {} event chunks, {} events",
        chunks,
        chunks * PER_CHUNK
    );
    Ok(())
}
