//! A trace.dat read in windows (the daemon, `check --no-mmap`) gives the findings of the
//! mapped file, with its ring pages never held in memory: generated files of several windows
//! (an instance's metadata between two CPUs' data, v6 and v7, both byte orders, 32-bit
//! kernels, 8 KiB pages), damaged copies of them, and every real file of the corpus.
//!
//! The windowed checks run with `max_read_bytes` far below the file size: had the file been
//! read whole instead (the fallback when the sieve's guess does not hold), the limit finding
//! would differ from the mapped check's findings.

mod common;
#[path = "common/ring_files.rs"]
mod ring_files;

use std::path::Path;
use tracelint::check::{check_path, CheckOptions, Report};
use tracelint::config::Config;
use tracelint::formats::tracecmd::writer::{
    page, BufferSpec, Builder, Compression, DEFAULT_EVENT_ID,
};
use tracelint::input::LoadMode;
use tracelint::reader::Endian;
use tracelint::Limits;

use common::keys;

fn opts(mode: LoadMode, max_read: u64) -> CheckOptions {
    CheckOptions {
        limits: Limits {
            max_read_bytes: max_read,
            ..Limits::default()
        },
        load_mode: mode,
        ..CheckOptions::default()
    }
}

/// Checks `path` mapped and in windows (reading whole at most `max_read` bytes); asserts the
/// same findings and counts, and returns the mapped report.
fn same_findings(path: &Path, max_read: u64) -> Report {
    let config = Config::default();
    let mapped = check_path(path, &opts(LoadMode::Mmap, u64::MAX), &config);
    let windowed = check_path(path, &opts(LoadMode::Windowed, max_read), &config);
    let name = path.display();
    assert_eq!(windowed.format, mapped.format, "{name}");
    assert_eq!(keys(&windowed), keys(&mapped), "{name}");
    assert_eq!(windowed.counts, mapped.counts, "{name}");
    assert_eq!(windowed.io_failed, mapped.io_failed, "{name}");
    mapped
}

/// Files of several 1 MiB windows: two CPUs of `pages` pages each, then an instance with two
/// CPUs of `pages / 2` pages (in v6 its `flyrecord` page lies between the top buffer's data
/// and its own).
fn large_files(pages: u64) -> Vec<(String, Vec<u8>)> {
    ring_files::ring_files(pages, pages / 2)
}

/// Compressed v7 files of several 1 MiB windows of chunk streams: two CPUs of `pages` full
/// pages each and an instance, every event with 4 random payload bytes so that the streams
/// stay large.
fn large_compressed_files(pages: u64) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for compression in [Compression::Zstd, Compression::Zlib] {
        for endian in [Endian::Little, Endian::Big] {
            let mut b = Builder::new(7, compression);
            b.endian = endian;
            let ps = b.page_size;
            let mut cpu = |c: u64, n: u64, t0: u64| {
                let mut data = Vec::new();
                for k in 0..n {
                    let ts = t0 + c * 7 + k * 1_000_000;
                    let mut pg = page(ps, 8, endian, ts, &[(DEFAULT_EVENT_ID, 12); 250]);
                    // Record k: a 4-byte header and 12 bytes of payload from offset 16.
                    for r in 0..250 {
                        let at = 16 + r * 16 + 4 + 8;
                        let x = rng.next().to_le_bytes();
                        pg[at..at + 4].copy_from_slice(&x[..4]);
                    }
                    data.extend(pg);
                }
                data
            };
            b.buffers[0].cpus = vec![(0, cpu(0, pages, 1_000_000)), (1, cpu(1, pages, 1_000_000))];
            b.buffers.push(BufferSpec {
                name: "inst".into(),
                cpus: vec![(0, cpu(0, pages / 2, 9_000_000_000))],
            });
            let name = format!("v7-{compression:?}-{endian:?}.dat");
            out.push((name, b.build().0));
        }
    }
    out
}

#[test]
fn large_compressed_files_read_in_windows_give_the_mapped_findings() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, data) in large_compressed_files(1500) {
        assert!(data.len() > 2 << 20, "{name}: {} bytes", data.len());
        let p = tmp.path().join(&name);
        std::fs::write(&p, &data).unwrap();
        // The chunk streams are left out and read from the file: only the metadata and the
        // page where each stream ends are kept, far below 256 KiB.
        let r = same_findings(&p, 256 << 10);
        assert_eq!(r.counts.error, 0, "{name}: {:?}", keys(&r));
        // Damaged copies: a chunk's bytes, a chunk header, the section chain.
        let mut rng = Rng(data.len() as u64);
        for i in 0..4 {
            let mut bad = data.clone();
            let at = (1 << 20) + rng.below(bad.len() - (1 << 20));
            match i {
                0 => bad[at] ^= 0x40,
                1 => bad[at..at + 4096].fill(0),
                2 => bad.truncate(at),
                _ => {
                    let x = rng.next().to_le_bytes();
                    bad[at..at + 8].copy_from_slice(&x);
                }
            }
            let q = tmp.path().join(format!("{i}-{name}"));
            std::fs::write(&q, &bad).unwrap();
            same_findings(&q, u64::MAX);
        }
    }
}

#[test]
fn large_generated_files_read_in_windows_give_the_mapped_findings() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, data) in large_files(700) {
        assert!(data.len() > 4 << 20, "{name}: {} bytes", data.len());
        let p = tmp.path().join(&name);
        std::fs::write(&p, &data).unwrap();
        // The metadata is a few pages: far below 256 KiB.
        let r = same_findings(&p, 256 << 10);
        assert_eq!(r.counts.error, 0, "{name}: {:?}", keys(&r));
    }
}

/// A small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn damaged_large_files_read_in_windows_give_the_mapped_findings() {
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut with_errors = 0;
    for (base, orig) in large_files(400) {
        for i in 0..6u64 {
            let mut data = orig.clone();
            for _ in 0..=(i % 3) {
                let at = rng.below(data.len());
                match rng.next() % 4 {
                    // A byte anywhere changes (metadata or ring data).
                    0 => data[at] ^= 1 << rng.below(8),
                    // A page-sized run of zeros anywhere.
                    1 => {
                        let end = (at + 4096).min(data.len());
                        data[at..end].fill(0);
                    }
                    // A run of text over a page boundary.
                    2 => {
                        let text = b"flyrecord\0options  \0ffffffff81000000 T _stext\n";
                        let end = (at + text.len()).min(data.len());
                        data[at..end].copy_from_slice(&text[..end - at]);
                    }
                    // The file is cut short.
                    _ => data.truncate(at.max(1)),
                }
            }
            let p = tmp.path().join(format!("{i}-{base}"));
            std::fs::write(&p, &data).unwrap();
            // Whole reads allowed: a guess that does not hold checks the file whole.
            let r = same_findings(&p, u64::MAX);
            if r.counts.error > 0 {
                with_errors += 1;
            }
        }
    }
    assert!(
        with_errors > 10,
        "only {with_errors} damaged files had errors"
    );
}

#[test]
fn real_files_read_in_windows_give_the_mapped_findings() {
    let mut dirs = vec![
        common::corpus("tracecmd"),
        common::corpus("ktrace"),
        common::corpus("gdb"),
    ];
    dirs.extend(common::shared("samples/wild/tracecmd"));
    dirs.extend(common::shared("samples/ktrace"));
    let mut files = Vec::new();
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() > 50, "{} files", files.len());
    for p in &files {
        same_findings(p, Limits::default().max_read_bytes);
    }
}

#[test]
fn a_file_that_must_be_read_whole_past_max_read_bytes_gets_the_limit_finding() {
    let tmp = tempfile::tempdir().unwrap();
    // A GDB tfile is walked in windows, never read whole: past max_read_bytes it is checked
    // all the same, with the findings of the mapped file.
    let gdb = std::fs::read_dir(common::corpus("gdb"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tf"))
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap();
    let len = std::fs::metadata(&gdb).unwrap().len();
    let r = same_findings(&gdb, len / 4);
    assert!(
        !r.findings.iter().any(|f| f.rule.code == "TL003"),
        "{:?}",
        keys(&r)
    );
    // A trace.dat whose pages are not ring pages (all text) is read whole: the limit finding
    // says why it could not be read in windows.
    let (mut data, _) = Builder::new(6, Compression::None).build();
    let text: Vec<u8> = b"ffffffff81000000 T _stext\n"
        .iter()
        .copied()
        .cycle()
        .take(1 << 20)
        .collect();
    data.extend(text);
    let p = tmp.path().join("texty.dat");
    std::fs::write(&p, &data).unwrap();
    let r = check_path(&p, &opts(LoadMode::Windowed, 64 << 10), &Config::default());
    let limit = r
        .findings
        .iter()
        .find(|f| f.rule.code == "TL003")
        .unwrap_or_else(|| panic!("{:?}", keys(&r)));
    assert!(
        limit
            .notes
            .iter()
            .any(|n| n.contains("could not be checked in windows")),
        "{limit:?}"
    );
    assert!(r.failed());
}
