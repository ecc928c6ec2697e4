//! Linux perf.data validator (rule family `PF`).
//!
//! What `perf record` writes: file mode (`PERFILE2` header, attrs with their ids, the data
//! section of records, the feature table and feature sections), pipe mode (`perf record -o
//! -`: a 16-byte header, then records only, attrs and features as records), both byte
//! orders, records compressed with zstd (`-z`).
//!
//! Layout: [`decode`] builds the [`model::PerfData`] (header and sections here, `attrs`,
//! `features`, `records` for the walk and the samples) and raises structural findings;
//! [`lint`] checks the features against the attrs and samples; [`rules`] declares the `PF`
//! rules.
#![deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::panic
)]

pub mod decode;
pub mod lint;
pub mod model;
pub mod repair;
pub mod rules;
pub mod writer;

pub use model::is_stream_name;

use crate::detect::Format;
use crate::finding::Sink;
use crate::formats::spec::{DirSpec, FileCheck, FormatSpec, StreamSpec};
use crate::input::{DirSource, EntryKind};
use crate::map::MapNode;
use crate::options::CheckOptions;
use decode::source::{Image, Source};
use model::*;

/// Linux perf.data (file and pipe mode).
pub const FORMAT: Format = Format::new("perf");

/// The format table's entry (`formats::FORMATS`).
pub static SPEC: FormatSpec = FormatSpec {
    format: FORMAT,
    aliases: &["perf.data"],
    family: rules::FAMILY,
    rules: &[rules::RULES],
    magics: &[MAGIC, MAGIC_SWAPPED, MAGIC_V1],
    extensions: &["data"],
    bytes: Some(check),
    file: Some(check_open),
    stream: Some(StreamSpec {
        takes: is_pipe_head,
        check: check_stream,
    }),
    dir: None,
    corpus: "perf",
    repair: Some(repair_file),
};

/// The repair entry of the format table ([`repair::repair`]).
fn repair_file(
    subject: crate::formats::spec::Subject<'_>,
    opts: &CheckOptions,
    ropts: &crate::ledger::RepairOptions,
) -> crate::ledger::Verdict {
    match subject {
        crate::formats::spec::Subject::Bytes(data) => {
            repair::repair(data, &opts.limits, opts.limits.max_findings, ropts)
        }
        crate::formats::spec::Subject::Dir(dir) => repair::repair_dir(dir, &opts.limits, ropts),
    }
}

/// A `perf record --threads` directory: `data` plus the streams `data.N`.
pub const FORMAT_DIR: Format = Format::new("perf-dir");

/// The table's entry of directory mode.
pub static SPEC_DIR: FormatSpec = FormatSpec {
    format: FORMAT_DIR,
    aliases: &[],
    family: rules::FAMILY,
    rules: &[rules::RULES],
    magics: &[],
    extensions: &[],
    bytes: None,
    file: None,
    stream: None,
    dir: Some(DirSpec {
        detect: is_threads_dir,
        magic: MAGIC,
        check: check_dir,
        group: Some(crate::formats::spec::Group {
            head: "data",
            head_format: FORMAT,
            member: is_stream_name,
        }),
    }),
    corpus: "perf",
    repair: Some(repair_file),
};

/// Whether `dir` is a `perf record --threads` directory: a `data` file with a perf.data magic
/// and at least one `data.<n>` stream.
pub fn is_threads_dir(dir: &std::path::Path) -> bool {
    use std::io::Read;
    let Ok(mut f) = std::fs::File::open(dir.join("data")) else {
        return false;
    };
    let mut magic = [0u8; 8];
    if f.read_exact(&mut magic).is_err() || decode::magic_endian(&magic).is_none() {
        return false;
    }
    std::fs::read_dir(dir).is_ok_and(|rd| {
        rd.flatten()
            .any(|e| e.file_name().to_str().and_then(stream_number).is_some())
    })
}

/// Checks a `perf record --threads` directory: `data`, then each stream with its attrs.
pub fn check_dir(dir: &dyn DirSource, opts: &CheckOptions, sink: &mut Sink) -> MapNode {
    let mut root = MapNode::new("perf.data directory", 0, 0);
    let entries = match dir.list() {
        Ok(e) => e,
        Err(e) => {
            sink.report(
                &crate::rules::IO_ERROR,
                0..0,
                format!("cannot list {}: {e}", dir.path().display()),
            );
            return root;
        }
    };
    let max = opts.limits.max_file_bytes;
    sink.set_file(Some("data".to_string()));
    let main = match dir.load("data", max) {
        Ok(d) => d,
        Err(e) => {
            sink.report(
                &rules::DIR_FILES,
                0..0,
                format!("the directory has no readable `data` file ({e}): perf 6.1 cannot open it"),
            );
            sink.set_file(None);
            return root;
        }
    };
    let Some(p) = decode::decode(&main, &opts.limits, sink) else {
        sink.set_file(None);
        return root;
    };
    lint::check_event_desc(&p, &main, sink);
    if !p.header.has_feature(24) {
        sink.report(
            &rules::DIR_FILES,
            72..104,
            "`data` has no DIR_FORMAT feature: perf reads it as a plain file, without the data.N streams",
        );
    }
    let mut total = p.walk.samples;
    root.push(build_map(&p).in_file("data"));
    let mut numbers = Vec::new();
    for e in &entries {
        if e.name == "data" {
            continue;
        }
        sink.set_file(Some(e.name.clone()));
        let Some(n) = stream_number(&e.name).filter(|_| e.kind == EntryKind::File) else {
            sink.report(
                &rules::DIR_FILES,
                0..0,
                format!(
                    "`{}` is no `data.<n>` stream file; perf 6.1 does not read it",
                    e.name
                ),
            );
            continue;
        };
        numbers.push(n);
        let bytes = match dir.load(&e.name, max) {
            Ok(d) => d,
            Err(err) => {
                sink.report(
                    &crate::rules::IO_ERROR,
                    0..0,
                    format!("cannot read `{}`: {err}", e.name),
                );
                continue;
            }
        };
        let len = bytes.len() as u64;
        let walk = decode::walk_thread_stream(&bytes, &p, &opts.limits, sink);
        total = total.saturating_add(walk.samples);
        root.push(
            MapNode::new(format!("stream {}", e.name), 0, len)
                .value("samples", walk.samples)
                .in_file(e.name.clone()),
        );
    }
    numbers.sort_unstable();
    if let Some(gap) = numbers
        .iter()
        .enumerate()
        .find(|(i, n)| **n != *i as u64)
        .map(|(i, _)| i)
    {
        sink.set_file(None);
        sink.report(
            &rules::DIR_FILES,
            0..0,
            format!(
                "the streams are not numbered data.0 … data.{}: data.{gap} is missing",
                numbers.len().saturating_sub(1)
            ),
        );
    }
    sink.set_file(None);
    root.set("samples", total);
    root.set("streams", numbers.len());
    root
}

/// Checks one perf.data file (or pipe-mode stream) held in memory.
pub fn check(data: &[u8], opts: &CheckOptions, sink: &mut Sink) -> MapNode {
    let len = data.len() as u64;
    let Some(p) = decode::decode(data, &opts.limits, sink) else {
        return MapNode::new("perf.data", 0, len);
    };
    lint::check_event_desc(&p, data, sink);
    lint::check_metadata(&p, sink);
    build_map(&p)
}

/// Checks an open perf.data file (or pipe-mode stream saved to a file) of `len` bytes by
/// positioned reads, never holding it: the records are walked through a few chunks read ahead
/// ([`decode::source::FileWindow`]), and the
/// header, attrs, ids and feature sections are read into a sparse copy at their offsets (at most
/// `max_read_bytes` of them), so memory does not grow with the data section.
///
/// # Errors
///
/// A read of the file failed.
pub fn check_open(
    file: &std::fs::File,
    len: u64,
    opts: &CheckOptions,
    sink: &mut Sink,
) -> std::io::Result<FileCheck> {
    let mut src = decode::source::FileWindow::new(file, len);
    let image = Image::holed(len, opts.limits.max_read_bytes)?;
    let (map, _) = check_source(image, &mut src, opts, sink);
    if let Some(e) = src.take_error() {
        return Err(e);
    }
    Ok(FileCheck::Done(map))
}

/// Whether a stream starting with `head` is a pipe-mode perf.data (magic, header size 16):
/// walked as it comes. A file-mode perf.data points back and forth (attrs and features after
/// the data) and is unpacked whole first.
pub fn is_pipe_head(head: &[u8]) -> bool {
    decode::magic_endian(head)
        .is_some_and(|e| crate::reader::u64_at(head, 8, e) == Some(model::PIPE_HEADER_SIZE))
}

/// Checks a pipe-mode stream (`perf record -o -`) as it comes, reading it once and keeping one
/// window of it: `head` holds its first bytes, already read from `r`. `None` when a limit
/// stopped the check (a finding says so).
///
/// # Errors
///
/// A read of the stream failed.
pub fn check_stream(
    head: &[u8],
    r: &mut dyn std::io::Read,
    opts: &CheckOptions,
    sink: &mut Sink,
) -> std::io::Result<(u64, Option<MapNode>)> {
    let mut chained = std::io::Read::chain(head, r);
    let mut src = decode::source::Stream::new(&mut chained, 0, opts.limits.max_file_bytes);
    // The stream's length is not known: the copy spans what it may reach.
    let image = match Image::holed(opts.limits.max_file_bytes, opts.limits.max_read_bytes) {
        Ok(i) => i,
        Err(e) => {
            sink.report(
                &crate::rules::IO_ERROR,
                0..0,
                format!("cannot map memory for the stream's attrs and features: {e}"),
            );
            return Ok((head.len() as u64, None));
        }
    };
    let (map, len) = check_source(image, &mut src, opts, sink);
    if let Some(e) = src.take_error() {
        return Err(e);
    }
    if src.capped() {
        sink.limit(
            len..len,
            "stream size (at least)",
            len,
            "max_file_bytes",
            opts.limits.max_file_bytes,
        );
    }
    Ok((len, map))
}

/// Decodes and lints an input; its map (`None`: a limit stopped it) and its length (of a
/// stream: as far as it was read).
fn check_source<S: Source + ?Sized>(
    image: Image<'_>,
    src: &mut S,
    opts: &CheckOptions,
    sink: &mut Sink,
) -> (Option<MapNode>, u64) {
    let res = decode::decode_from(image, src, &opts.limits, sink);
    let len = src.len();
    match res {
        Ok((p, image)) => {
            lint::check_event_desc(&p, image.bytes(), sink);
            lint::check_metadata(&p, sink);
            (Some(build_map(&p)), p.size)
        }
        Err(decode::Stop::Finding) => (Some(MapNode::new("perf.data", 0, len)), len),
        Err(decode::Stop::Limit) => (None, len),
    }
}

/// Most feature nodes shown in the map.
const MAX_MAP_ATTRS: usize = 64;

fn build_map(p: &PerfData) -> MapNode {
    let h = &p.header;
    let mode = match h.mode {
        Mode::File => "file",
        Mode::Pipe => "pipe",
    };
    let mut root = MapNode::new("perf.data", 0, p.size)
        .value("mode", mode)
        .value("byte order", h.endian)
        .value("attrs", p.attrs.len())
        .value("samples", p.walk.samples);
    if let Some(v) = &p.info.version {
        root.set("perf version", v);
    }
    if p.unfinished {
        root.set("unfinished", "data.size is 0");
    }
    root.push(
        MapNode::new("header", 0, h.size)
            .value("size", h.size)
            .value("attr_size", h.attr_size),
    );
    for (i, a) in p.attrs.iter().enumerate().take(MAX_MAP_ATTRS) {
        root.push(
            MapNode::new(
                format!("attr {i}"),
                a.span.start,
                a.span.end.saturating_sub(a.span.start),
            )
            .value("type", a.kind)
            .value("config", a.config)
            .value("size", a.size)
            .value("sample_type", format!("0x{:x}", a.sample_type))
            .value("ids", a.ids.len()),
        );
    }
    let mut data = MapNode::new(
        "data",
        p.data.start,
        p.data.end.saturating_sub(p.data.start),
    )
    .value("samples", p.walk.samples);
    for (kind, n) in &p.walk.by_type {
        data.set(record_name(*kind), n);
    }
    if p.walk.compressed > 0 {
        data.set("decompressed bytes", p.walk.decompressed_bytes);
    }
    root.push(data);
    if let Some(t) = &p.feature_table {
        root.push(MapNode::new(
            "feature table",
            t.start,
            t.end.saturating_sub(t.start),
        ));
    }
    for f in &p.features {
        root.push(MapNode::new(
            format!("feature {} {}", f.bit, feature_name(f.bit)),
            f.span.start,
            f.span.end.saturating_sub(f.span.start),
        ));
    }
    root
}
