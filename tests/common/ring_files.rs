//! Generated trace.dat files of many ring pages, for the tests that read them another way than
//! mapped (windows, sieves) and compare: v6 and v7, 4- and 8-byte longs (also a 32-bit
//! trace-cmd on a 64-bit kernel), both byte orders, 4 and 8 KiB pages.

use tracelint::formats::tracecmd::writer::{
    header_page_text, page, BufferSpec, Builder, Compression, DEFAULT_EVENT_ID,
};
use tracelint::reader::Endian;

/// Two CPUs of `pages` full pages each, and when `instance_pages` > 0 an instance `inst` of two
/// CPUs of that many pages (its metadata then lies between the top buffer's data and its
/// own), each variant named by its parameters.
pub fn ring_files(pages: u64, instance_pages: u64) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for version in [6u8, 7] {
        // (header long size, kernel long size, byte order, page size)
        for (ulong, long, endian, ps) in [
            (8u8, 8u8, Endian::Little, 4096u32),
            (4, 4, Endian::Little, 4096),
            // A 32-bit trace-cmd on a 64-bit kernel.
            (4, 8, Endian::Little, 4096),
            (8, 8, Endian::Big, 4096),
            (8, 8, Endian::Little, 8192),
        ] {
            let mut b = Builder::new(version, Compression::None);
            b.long_size = ulong;
            b.endian = endian;
            b.page_size = ps;
            b.header_page = header_page_text(u32::from(long), ps);
            let cpu = |c: u64, n: u64, t0: u64| {
                let mut data = Vec::new();
                for k in 0..n {
                    let ts = t0 + c * 7 + k * 10_000;
                    data.extend(page(ps, long, endian, ts, &[(DEFAULT_EVENT_ID, 12); 10]));
                }
                data
            };
            b.buffers[0].cpus = vec![(0, cpu(0, pages, 1_000_000)), (1, cpu(1, pages, 1_000_000))];
            if instance_pages > 0 {
                b.buffers.push(BufferSpec {
                    name: "inst".into(),
                    cpus: vec![
                        (0, cpu(0, instance_pages, 9_000_000_000)),
                        (1, cpu(1, instance_pages, 9_000_000_000)),
                    ],
                });
            }
            let name = format!("v{version}-long{ulong}-klong{long}-{endian:?}-{ps}.dat");
            out.push((name, b.build().0));
        }
    }
    out
}
