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
pub mod rules;

use crate::detect::Format;
use crate::finding::Sink;
use crate::formats::spec::FormatSpec;
use crate::map::MapNode;
use crate::options::CheckOptions;
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
    file: None,
    dir: None,
    corpus: "perf",
};

/// Checks one perf.data file (or pipe-mode stream) held in memory.
pub fn check(data: &[u8], opts: &CheckOptions, sink: &mut Sink) -> MapNode {
    let len = data.len() as u64;
    let Some(p) = decode::decode(data, &opts.limits, sink) else {
        return MapNode::new("perf.data", 0, len);
    };
    lint::check_event_desc(&p, sink);
    lint::check_metadata(&p, sink);
    build_map(&p)
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
