//! A byte builder for trace.dat files (v6 and v7; none, zstd and zlib), laid out the way
//! trace-cmd writes them. Used by the tests (valid files, then precise defects by patching
//! bytes at the recorded [`Layout`] positions), the benchmark and the fuzz targets.
//!
//! ```
//! use tracelint::formats::tracecmd::writer::{Builder, Compression};
//! let (bytes, layout) = Builder::new(7, Compression::Zstd).build();
//! assert!(layout.get("section 16").is_some());
//! assert_eq!(&bytes[..3], b"\x17\x08\x44");
//! ```
#![allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::indexing_slicing,
    clippy::panic
)]

use crate::reader::Endian;
use std::ops::Range;

/// Compression of a v7 file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// `none`.
    None,
    /// `zstd`.
    Zstd,
    /// `zlib`.
    Zlib,
}

/// One buffer (top = name `""`) with per-CPU page data.
#[derive(Clone, Debug)]
pub struct BufferSpec {
    /// Name.
    pub name: String,
    /// (cpu id, raw page bytes — a multiple of the page size, or empty).
    pub cpus: Vec<(u32, Vec<u8>)>,
}

/// The file description. Every field is public: tests change one thing and build.
#[derive(Clone, Debug)]
pub struct Builder {
    /// 6 or 7.
    pub version: u8,
    /// Byte order.
    pub endian: Endian,
    /// Long size byte.
    pub long_size: u8,
    /// Page size.
    pub page_size: u32,
    /// v7 compression.
    pub compression: Compression,
    /// header_page text.
    pub header_page: Vec<u8>,
    /// header_event text.
    pub header_event: Vec<u8>,
    /// ftrace format texts.
    pub ftrace_formats: Vec<Vec<u8>>,
    /// (system, format texts).
    pub systems: Vec<(String, Vec<Vec<u8>>)>,
    /// kallsyms text.
    pub kallsyms: Vec<u8>,
    /// printk text.
    pub printk: Vec<u8>,
    /// saved_cmdlines text.
    pub cmdlines: Vec<u8>,
    /// CPU count (v6 header item, CPUCOUNT option).
    pub ncpus: u32,
    /// Extra options written before CPUCOUNT: (id, payload).
    pub options: Vec<(u16, Vec<u8>)>,
    /// Buffers; the first is the top buffer (name `""`).
    pub buffers: Vec<BufferSpec>,
    /// Latency text instead of flyrecord data.
    pub latency: Option<Vec<u8>>,
    /// Clock name.
    pub clock: String,
    /// Write compressed per-CPU sizes 4 bytes short, as trace-cmd < 3.2 does.
    pub quirk_short4: bool,
    /// Pages per compressed chunk.
    pub pages_per_chunk: usize,
    /// v6 clock record text instead of `[clock]` (trace-cmd 2.x write the whole trace_clock
    /// file).
    pub clock_record: Option<Vec<u8>>,
    /// v6 without the options section (trace-cmd before 1.0); `options` and instances are then
    /// not written.
    pub no_options_section: bool,
}

/// Where things went: named spans.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// (name, span) in write order.
    pub spans: Vec<(String, Range<u64>)>,
}

impl Layout {
    /// The span of `name` (first match).
    pub fn get(&self, name: &str) -> Option<Range<u64>> {
        self.spans
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s.clone())
    }
    /// The start offset of `name`; panics when absent (tests only).
    pub fn at(&self, name: &str) -> usize {
        match self.get(name) {
            Some(s) => s.start as usize,
            None => panic!(
                "layout has no {name:?}: {:?}",
                self.spans.iter().map(|(n, _)| n).collect::<Vec<_>>()
            ),
        }
    }
    fn add(&mut self, name: impl Into<String>, s: Range<usize>) {
        self.spans.push((name.into(), s.start as u64..s.end as u64));
    }
}

/// The standard header_page text for `long` = 8.
pub fn header_page_text(long: u32, page_size: u32) -> Vec<u8> {
    let data_off = 8 + long;
    format!(
        "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\tfield: local_t commit;\toffset:8;\tsize:{long};\tsigned:1;\n\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n\tfield: char data;\toffset:{data_off};\tsize:{};\tsigned:0;\n",
        page_size - data_off
    )
    .into_bytes()
}

/// The standard header_event text.
pub fn header_event_text() -> Vec<u8> {
    b"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n\ttime_stamp : type == 31\n\tdata max type_len  == 28\n".to_vec()
}

/// An event format with the four common fields and `extra` (name, offset, size) fields.
pub fn format_text(name: &str, id: u32, extra: &[(&str, u32, u32)]) -> Vec<u8> {
    let mut s = format!(
        "name: {name}\nID: {id}\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    );
    for (n, o, sz) in extra {
        s.push_str(&format!(
            "\tfield:int {n};\toffset:{o};\tsize:{sz};\tsigned:1;\n"
        ));
    }
    s.push_str("\nprint fmt: \"x\"\n");
    s.into_bytes()
}

/// One page of `events` data events (id, 4-byte-multiple payload ≤ 112 bytes), 1000 ns apart.
pub fn page(page_size: u32, long: u8, endian: Endian, ts: u64, events: &[(u16, usize)]) -> Vec<u8> {
    let mut data = Vec::new();
    for (i, &(id, len)) in events.iter().enumerate() {
        let tl = (len / 4) as u32;
        let delta: u32 = if i == 0 { 0 } else { 1000 };
        let hdr = match endian {
            Endian::Little => (tl & 31) | (delta << 5),
            Endian::Big => (tl << 27) | (delta & 0x07ff_ffff),
        };
        put_u32(&mut data, endian, hdr);
        let mut p = vec![0u8; len];
        let idb = match endian {
            Endian::Little => id.to_le_bytes(),
            Endian::Big => id.to_be_bytes(),
        };
        p[..2].copy_from_slice(&idb);
        data.extend_from_slice(&p);
    }
    let mut pg = Vec::with_capacity(page_size as usize);
    put_u64(&mut pg, endian, ts);
    if long == 4 {
        put_u32(&mut pg, endian, data.len() as u32);
    } else {
        put_u64(&mut pg, endian, data.len() as u64);
    }
    pg.extend_from_slice(&data);
    pg.resize(page_size as usize, 0);
    pg
}

fn put_u16(v: &mut Vec<u8>, e: Endian, x: u16) {
    v.extend_from_slice(&match e {
        Endian::Little => x.to_le_bytes(),
        Endian::Big => x.to_be_bytes(),
    });
}
fn put_u32(v: &mut Vec<u8>, e: Endian, x: u32) {
    v.extend_from_slice(&match e {
        Endian::Little => x.to_le_bytes(),
        Endian::Big => x.to_be_bytes(),
    });
}
fn put_u64(v: &mut Vec<u8>, e: Endian, x: u64) {
    v.extend_from_slice(&match e {
        Endian::Little => x.to_le_bytes(),
        Endian::Big => x.to_be_bytes(),
    });
}
fn patch_u64(v: &mut [u8], at: usize, e: Endian, x: u64) {
    let b = match e {
        Endian::Little => x.to_le_bytes(),
        Endian::Big => x.to_be_bytes(),
    };
    v[at..at + 8].copy_from_slice(&b);
}

/// Appends `s` (NUL-terminated) to the strings section; returns its offset there.
fn string_id(s: &str, strings: &mut Vec<u8>) -> u32 {
    let at = strings.len() as u32;
    strings.extend_from_slice(s.as_bytes());
    strings.push(0);
    at
}

/// Compresses one block.
pub fn compress(c: Compression, data: &[u8]) -> Vec<u8> {
    match c {
        Compression::None => data.to_vec(),
        Compression::Zstd => zstd::bulk::compress(data, 3).unwrap_or_default(),
        Compression::Zlib => {
            use std::io::Write;
            let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
            let _ = e.write_all(data);
            e.finish().unwrap_or_default()
        }
    }
}

/// One metadata item: (id, bytes, named spans relative to its start).
type MetaItem = (u16, Vec<u8>, Vec<(String, Range<usize>)>);

/// Event id of the default event format.
pub const DEFAULT_EVENT_ID: u16 = 316;

impl Builder {
    /// A small valid file: one ftrace format, one `sched` system with `sched_switch` (id 316),
    /// 2 CPUs with one page of 3 events each, TRACECLOCK/UNAME/VERSION options.
    pub fn new(version: u8, compression: Compression) -> Self {
        let endian = Endian::Little;
        let ps = 4096;
        let mk = |ts| {
            page(
                ps,
                8,
                endian,
                ts,
                &[
                    (DEFAULT_EVENT_ID, 12),
                    (DEFAULT_EVENT_ID, 12),
                    (DEFAULT_EVENT_ID, 12),
                ],
            )
        };
        Builder {
            version,
            endian,
            long_size: 8,
            page_size: ps,
            compression,
            header_page: header_page_text(8, ps),
            header_event: header_event_text(),
            ftrace_formats: vec![format_text("function", 1, &[("ip", 8, 8), ("parent_ip", 16, 8)])],
            systems: vec![("sched".into(), vec![format_text("sched_switch", u32::from(DEFAULT_EVENT_ID), &[("prev_pid", 8, 4)])])],
            kallsyms: b"ffffffff81000000 T _stext\nffffffffc0203000 t ftrace_trampoline\t[__builtin__ftrace]\n".to_vec(),
            printk: b"0xffffffff82818cca : \"thaw_processes\"\n".to_vec(),
            cmdlines: b"7453 cc1\n15 rcu_preempt\n".to_vec(),
            ncpus: 2,
            options: vec![
                (4, b"[local] global counter\n\0".to_vec()),
                (5, b"Linux test 6.1 x86_64\0".to_vec()),
                (9, b"3.1.6 test\0".to_vec()),
            ],
            buffers: vec![BufferSpec { name: String::new(), cpus: vec![(0, mk(1_000_000)), (1, mk(1_000_500))] }],
            latency: None,
            clock: "local".into(),
            quirk_short4: false,
            pages_per_chunk: 10,
            clock_record: None,
            no_options_section: false,
        }
    }

    /// Adds an instance buffer with one page of 2 events on each CPU.
    pub fn with_instance(mut self, name: &str) -> Self {
        let mk = |ts| {
            page(
                self.page_size,
                self.long_size,
                self.endian,
                ts,
                &[(DEFAULT_EVENT_ID, 12), (DEFAULT_EVENT_ID, 12)],
            )
        };
        let cpus = vec![(0, mk(2_000_000)), (1, mk(2_000_100))];
        self.buffers.push(BufferSpec {
            name: name.into(),
            cpus,
        });
        self
    }

    /// Builds the file.
    pub fn build(&self) -> (Vec<u8>, Layout) {
        if self.version == 6 {
            self.build_v6()
        } else {
            self.build_v7()
        }
    }

    fn initial(&self, out: &mut Vec<u8>, lay: &mut Layout) -> usize {
        out.extend_from_slice(b"\x17\x08\x44tracing");
        let v = out.len();
        out.extend_from_slice(format!("{}\0", self.version).as_bytes());
        lay.add("version", v..out.len());
        lay.add("endian", out.len()..out.len() + 1);
        out.push(if self.endian == Endian::Big { 1 } else { 0 });
        lay.add("long size", out.len()..out.len() + 1);
        out.push(self.long_size);
        lay.add("page size", out.len()..out.len() + 4);
        put_u32(out, self.endian, self.page_size);
        let mut first = 0;
        if self.version == 7 {
            let (n, ver) = match self.compression {
                Compression::None => ("none", ""),
                Compression::Zstd => ("zstd", "1.5.4"),
                Compression::Zlib => ("zlib", "1.2.13"),
            };
            let s = out.len();
            out.extend_from_slice(n.as_bytes());
            out.push(0);
            lay.add("compression", s..out.len());
            let s = out.len();
            out.extend_from_slice(ver.as_bytes());
            out.push(0);
            lay.add("compression version", s..out.len());
            first = out.len();
            lay.add("first options", first..first + 8);
            put_u64(out, self.endian, 0);
        }
        lay.add("header", 0..out.len());
        first
    }

    /// Metadata items 1–7 as separate blobs (16 HEADER_INFO .. 21 CMDLINES), with named
    /// spans relative to the blob start.
    fn meta_items(&self) -> Vec<MetaItem> {
        let e = self.endian;
        let mut items = Vec::new();
        let mut hi = Vec::new();
        let mut names = Vec::new();
        hi.extend_from_slice(b"header_page\0");
        put_u64(&mut hi, e, self.header_page.len() as u64);
        names.push((
            "header_page text".to_string(),
            hi.len()..hi.len() + self.header_page.len(),
        ));
        hi.extend_from_slice(&self.header_page);
        names.push(("header_event tag".to_string(), hi.len()..hi.len() + 13));
        hi.extend_from_slice(b"header_event\0");
        put_u64(&mut hi, e, self.header_event.len() as u64);
        names.push((
            "header_event text".to_string(),
            hi.len()..hi.len() + self.header_event.len(),
        ));
        hi.extend_from_slice(&self.header_event);
        items.push((16, hi, names));
        let mut ft = Vec::new();
        let mut names = Vec::new();
        put_u32(&mut ft, e, self.ftrace_formats.len() as u32);
        for (i, f) in self.ftrace_formats.iter().enumerate() {
            put_u64(&mut ft, e, f.len() as u64);
            names.push((format!("ftrace format {i}"), ft.len()..ft.len() + f.len()));
            ft.extend_from_slice(f);
        }
        items.push((17, ft, names));
        let mut ev = Vec::new();
        let mut names = Vec::new();
        put_u32(&mut ev, e, self.systems.len() as u32);
        for (s, fs) in &self.systems {
            names.push((format!("system {s}"), ev.len()..ev.len() + s.len() + 1));
            ev.extend_from_slice(s.as_bytes());
            ev.push(0);
            put_u32(&mut ev, e, fs.len() as u32);
            for (i, f) in fs.iter().enumerate() {
                put_u64(&mut ev, e, f.len() as u64);
                names.push((format!("format {s} {i}"), ev.len()..ev.len() + f.len()));
                ev.extend_from_slice(f);
            }
        }
        items.push((18, ev, names));
        for (id, text, wide, name) in [
            (19u16, &self.kallsyms, false, "kallsyms"),
            (20, &self.printk, false, "printk"),
            (21, &self.cmdlines, true, "cmdlines"),
        ] {
            let mut b = Vec::new();
            if wide {
                put_u64(&mut b, e, text.len() as u64);
            } else {
                put_u32(&mut b, e, text.len() as u32);
            }
            let names = vec![(format!("{name} text"), b.len()..b.len() + text.len())];
            b.extend_from_slice(text);
            items.push((id, b, names));
        }
        items
    }

    fn put_option(&self, out: &mut Vec<u8>, lay: &mut Layout, id: u16, payload: &[u8], name: &str) {
        let s = out.len();
        put_u16(out, self.endian, id);
        put_u32(out, self.endian, payload.len() as u32);
        out.extend_from_slice(payload);
        lay.add(format!("option {name}"), s..out.len());
    }

    fn pad_to_page(&self, out: &mut Vec<u8>) {
        let ps = self.page_size.max(1) as usize;
        let n = out.len().div_ceil(ps) * ps;
        out.resize(n, 0);
    }

    /// The v6 options section: tag, `options`, CPUCOUNT, one BUFFER per instance (offsets
    /// patched later at `buffer_opt_at`), DONE.
    fn v6_options(&self, out: &mut Vec<u8>, lay: &mut Layout, buffer_opt_at: &mut Vec<usize>) {
        let e = self.endian;
        lay.add("options tag", out.len()..out.len() + 10);
        out.extend_from_slice(b"options  \0");
        for (id, p) in &self.options {
            self.put_option(
                out,
                lay,
                *id,
                p,
                crate::formats::tracecmd::model::opt_id::name(*id),
            );
        }
        let mut cc = Vec::new();
        put_u32(&mut cc, e, self.ncpus);
        self.put_option(out, lay, 8, &cc, "CPUCOUNT");
        for b in self.buffers.iter().skip(1) {
            let mut p = Vec::new();
            put_u64(&mut p, e, 0);
            p.extend_from_slice(b.name.as_bytes());
            p.push(0);
            buffer_opt_at.push(out.len() + 6);
            self.put_option(out, lay, 3, &p, &format!("BUFFER {}", b.name));
        }
        lay.add("option DONE", out.len()..out.len() + 2);
        put_u16(out, e, 0);
    }

    fn build_v6(&self) -> (Vec<u8>, Layout) {
        let e = self.endian;
        let mut out = Vec::new();
        let mut lay = Layout::default();
        self.initial(&mut out, &mut lay);
        for (id, blob, names) in self.meta_items() {
            let base = out.len();
            lay.add(format!("item {id}"), base..base + blob.len());
            for (n, r) in names {
                lay.add(n, base + r.start..base + r.end);
            }
            out.extend_from_slice(&blob);
        }
        lay.add("cpu count", out.len()..out.len() + 4);
        put_u32(&mut out, e, self.ncpus);
        let mut buffer_opt_at = Vec::new();
        let buffers = if self.no_options_section {
            1
        } else {
            self.buffers.len()
        };
        if !self.no_options_section {
            self.v6_options(&mut out, &mut lay, &mut buffer_opt_at);
        }
        if let Some(text) = &self.latency {
            lay.add("data tag", out.len()..out.len() + 10);
            out.extend_from_slice(b"latency  \0");
            lay.add("latency text", out.len()..out.len() + text.len());
            out.extend_from_slice(text);
            return (out, lay);
        }
        for (bi, b) in self.buffers.iter().take(buffers).enumerate() {
            let prefix = if bi == 0 {
                String::new()
            } else {
                format!("{} ", b.name)
            };
            if bi > 0 {
                let here = out.len() as u64;
                patch_u64(&mut out, buffer_opt_at[bi - 1], e, here);
            }
            lay.add(format!("{prefix}data tag"), out.len()..out.len() + 10);
            out.extend_from_slice(b"flyrecord\0");
            let mut entry_at = Vec::new();
            for (cpu, _) in &b.cpus {
                entry_at.push(out.len());
                lay.add(
                    format!("{prefix}cpu {cpu} entry"),
                    out.len()..out.len() + 16,
                );
                put_u64(&mut out, e, 0);
                put_u64(&mut out, e, 0);
            }
            let clk = match &self.clock_record {
                Some(t) => t.clone(),
                None => format!("[{}]", self.clock).into_bytes(),
            };
            lay.add(
                format!("{prefix}clock record"),
                out.len()..out.len() + 8 + clk.len(),
            );
            put_u64(&mut out, e, clk.len() as u64);
            out.extend_from_slice(&clk);
            self.pad_to_page(&mut out);
            for ((cpu, d), at) in b.cpus.iter().zip(entry_at) {
                let off = out.len();
                patch_u64(&mut out, at, e, off as u64);
                patch_u64(&mut out, at + 8, e, d.len() as u64);
                lay.add(
                    format!("{prefix}cpu {cpu} data"),
                    out.len()..out.len() + d.len(),
                );
                out.extend_from_slice(d);
            }
        }
        (out, lay)
    }

    fn build_v7(&self) -> (Vec<u8>, Layout) {
        let e = self.endian;
        let c = self.compression;
        let mut out = Vec::new();
        let mut lay = Layout::default();
        let first_at = self.initial(&mut out, &mut lay);
        // Strings: the descriptions in section order.
        let mut strings: Vec<u8> = Vec::new();
        let flag = u16::from(c != Compression::None);
        let mut meta_off = Vec::new();
        for (id, blob, names) in self.meta_items() {
            let desc = match id {
                16 => "headers",
                17 => "ftrace events",
                18 => "events format",
                19 => "kallsyms",
                20 => "printk",
                _ => "command lines",
            };
            let s = string_id(desc, &mut strings);
            let body = self.v7_section_body(&blob);
            let at = self.v7_section(&mut out, &mut lay, id, flag, s, &body);
            if c == Compression::None {
                for (n, r) in names {
                    lay.add(n, at + 16 + r.start..at + 16 + r.end);
                }
            }
            meta_off.push((id, at));
        }
        // OPTIONS #1.
        let opt_sid = string_id("options", &mut strings);
        let mut body = Vec::new();
        let mut olay = Layout::default();
        for (id, at) in &meta_off {
            let mut p = Vec::new();
            put_u64(&mut p, e, *at as u64);
            self.put_option(
                &mut body,
                &mut olay,
                *id,
                &p,
                crate::formats::tracecmd::model::opt_id::name(*id),
            );
        }
        for (id, p) in &self.options {
            self.put_option(
                &mut body,
                &mut olay,
                *id,
                p,
                crate::formats::tracecmd::model::opt_id::name(*id),
            );
        }
        let mut cc = Vec::new();
        put_u32(&mut cc, e, self.ncpus);
        self.put_option(&mut body, &mut olay, 8, &cc, "CPUCOUNT");
        let done_rel = body.len() + 6;
        self.put_option(&mut body, &mut olay, 0, &[0; 8], "DONE");
        let opt1 = self.v7_section(&mut out, &mut lay, 0, 0, opt_sid, &body);
        for (n, r) in olay.spans {
            lay.spans
                .push((n, r.start + opt1 as u64 + 16..r.end + opt1 as u64 + 16));
        }
        patch_u64(&mut out, first_at, e, opt1 as u64);
        let mut prev_done = opt1 + 16 + done_rel;
        if let Some(text) = &self.latency {
            let s = string_id("buffer latency", &mut strings);
            let body = if c == Compression::None {
                text.clone()
            } else {
                self.chunk_stream(text, text.len().max(1)).0
            };
            let at = self.v7_section(&mut out, &mut lay, 22, flag, s, &body);
            let osid = string_id("options", &mut strings);
            let mut p = Vec::new();
            put_u64(&mut p, e, at as u64);
            p.extend_from_slice(b"\0");
            p.extend_from_slice(self.clock.as_bytes());
            p.push(0);
            let mut ob = Vec::new();
            let mut olay = Layout::default();
            self.put_option(&mut ob, &mut olay, 22, &p, "BUFFER_TEXT");
            self.put_option(&mut ob, &mut olay, 0, &[0; 8], "DONE");
            let o = self.v7_section(&mut out, &mut lay, 0, 0, osid, &ob);
            for (n, r) in olay.spans {
                lay.spans
                    .push((n, r.start + o as u64 + 16..r.end + o as u64 + 16));
            }
            patch_u64(&mut out, prev_done, e, o as u64);
        } else {
            for b in &self.buffers {
                prev_done =
                    self.v7_flyrecord_buffer(&mut out, &mut lay, &mut strings, b, prev_done);
            }
        }
        let ssid = string_id("strings", &mut strings);
        let body = self.v7_section_body(&strings);
        self.v7_section(&mut out, &mut lay, 15, flag, ssid, &body);
        (out, lay)
    }

    /// A v7 section: header (id, flags, description string, size) and `body`; returns where
    /// it starts.
    fn v7_section(
        &self,
        out: &mut Vec<u8>,
        lay: &mut Layout,
        id: u16,
        flags: u16,
        sid: u32,
        body: &[u8],
    ) -> usize {
        let e = self.endian;
        let s = out.len();
        put_u16(out, e, id);
        put_u16(out, e, flags);
        put_u32(out, e, sid);
        put_u64(out, e, body.len() as u64);
        out.extend_from_slice(body);
        lay.add(format!("section {id}"), s..out.len());
        s
    }

    /// A metadata or strings section's body: `data` as is, or compressed as one block (u32
    /// compressed size, u32 size, the block).
    fn v7_section_body(&self, data: &[u8]) -> Vec<u8> {
        let e = self.endian;
        let c = self.compression;
        if c == Compression::None {
            return data.to_vec();
        }
        let z = compress(c, data);
        let mut b = Vec::new();
        put_u32(&mut b, e, z.len() as u32);
        put_u32(&mut b, e, data.len() as u32);
        b.extend_from_slice(&z);
        b
    }

    /// One flyrecord buffer: its section (the per-CPU data, page-aligned) and the OPTIONS
    /// section with its BUFFER option, linked from the previous options' DONE at `prev_done`.
    /// Returns where this options' DONE is.
    fn v7_flyrecord_buffer(
        &self,
        out: &mut Vec<u8>,
        lay: &mut Layout,
        strings: &mut Vec<u8>,
        b: &BufferSpec,
        prev_done: usize,
    ) -> usize {
        let e = self.endian;
        let c = self.compression;
        let flag = u16::from(c != Compression::None);
        let prefix = if b.name.is_empty() {
            String::new()
        } else {
            format!("{} ", b.name)
        };
        let s = string_id(&format!("buffer flyrecord {}", b.name), strings);
        let sec_at = out.len();
        put_u16(out, e, 3);
        put_u16(out, e, flag);
        put_u32(out, e, s);
        put_u64(out, e, 0);
        let body_start = out.len();
        let mut entries = Vec::new();
        for (cpu, d) in &b.cpus {
            if d.is_empty() {
                continue;
            }
            self.pad_to_page(out);
            let off = out.len();
            let (bytes, declared) = if c == Compression::None {
                (d.clone(), d.len())
            } else {
                let ppc = self.pages_per_chunk.max(1) * self.page_size as usize;
                let (z, _) = self.chunk_stream(d, ppc);
                let n = z.len();
                (z, if self.quirk_short4 { n - 4 } else { n })
            };
            lay.add(format!("{prefix}cpu {cpu} data"), off..off + bytes.len());
            out.extend_from_slice(&bytes);
            entries.push((*cpu, off, declared));
        }
        let size = (out.len() - body_start) as u64;
        patch_u64(out, sec_at + 8, e, size);
        lay.add(format!("{prefix}buffer section"), sec_at..out.len());
        // OPTIONS with the BUFFER option.
        let osid = string_id("options", strings);
        let mut p = Vec::new();
        put_u64(&mut p, e, sec_at as u64);
        p.extend_from_slice(b.name.as_bytes());
        p.push(0);
        p.extend_from_slice(self.clock.as_bytes());
        p.push(0);
        put_u32(&mut p, e, self.page_size);
        put_u32(&mut p, e, entries.len() as u32);
        let mut entry_rel = Vec::new();
        for (cpu, off, sz) in &entries {
            entry_rel.push((*cpu, p.len()));
            put_u32(&mut p, e, *cpu);
            put_u64(&mut p, e, *off as u64);
            put_u64(&mut p, e, *sz as u64);
        }
        let mut ob = Vec::new();
        let mut olay = Layout::default();
        self.put_option(&mut ob, &mut olay, 3, &p, &format!("BUFFER {}", b.name));
        let done_rel = ob.len() + 6;
        self.put_option(&mut ob, &mut olay, 0, &[0; 8], "DONE");
        let o = self.v7_section(out, lay, 0, 0, osid, &ob);
        for (n, r) in olay.spans {
            lay.spans
                .push((n, r.start + o as u64 + 16..r.end + o as u64 + 16));
        }
        for (cpu, rel) in entry_rel {
            let at = o + 16 + 6 + rel;
            lay.add(format!("{prefix}cpu {cpu} entry"), at..at + 20);
        }
        patch_u64(out, prev_done, e, o as u64);
        o + 16 + done_rel
    }

    /// A chunk stream: u32 count · (u32 zsize · u32 usize · data)*.
    pub fn chunk_stream(&self, data: &[u8], chunk: usize) -> (Vec<u8>, usize) {
        let e = self.endian;
        let chunks: Vec<&[u8]> = data.chunks(chunk.max(1)).collect();
        let mut out = Vec::new();
        put_u32(&mut out, e, chunks.len() as u32);
        for ch in &chunks {
            let z = compress(self.compression, ch);
            put_u32(&mut out, e, z.len() as u32);
            put_u32(&mut out, e, ch.len() as u32);
            out.extend_from_slice(&z);
        }
        (out, chunks.len())
    }
}
