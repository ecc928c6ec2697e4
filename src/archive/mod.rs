//! Traces as they are shipped: compressed files (gzip, zstd, xz, bzip2, lz4), archives (tar,
//! plain or compressed, and zip) and standard input, detected by content and nested up to
//! `max_archive_depth` layers.
//!
//! Nothing is ever extracted: each member is unpacked through bounded streaming decoders into
//! memory (up to `unpack_memory_bytes`) or an unnamed temporary file, and handed to the format
//! checker as a [`Leaf`]. A uftrace data directory inside an archive is checked from its
//! members. Findings name the member ([`Sink::set_member`]) and offsets are offsets in the
//! unpacked member. Hostile containers (bombs, `..` paths, links, duplicates, truncation, deep
//! nesting, member floods) get findings and never harm: limits are `TL003`, the rest `TL009`–`TL013`.

mod codec;
mod stash;

pub use codec::{inner_name, sniff, Layer, SNIFF_BYTES};
pub use stash::{ArchiveDir, Stash};

use crate::detect::Format;
use crate::finding::Sink;
use crate::formats;
use crate::formats::tracecmd::PageSieve;
use crate::formats::uftrace::{classify, is_task_file, FileKind, RecordSieve, RUNS_BUDGET};
use crate::input::DirSource;
use crate::limits::Limits;
use crate::map::MapNode;
use crate::rules;
use codec::{Budget, CountIn, Meter};
use serde::Serialize;
use std::cell::Cell;
use std::collections::BTreeSet;
use std::fs::File;
use std::io::{self, Read, Seek};
use std::rc::Rc;

/// One unpacked thing to check.
pub enum Leaf<'a> {
    /// A member held in memory.
    Bytes(&'a [u8]),
    /// A member in a temporary file of this length.
    File(&'a File, u64),
    /// A trace.dat in a temporary file of this length, some of whose pages were left out (they
    /// read as zeros) and summarised by the sieve.
    Sifted(&'a File, u64, &'a PageSieve),
    /// A uftrace data directory made of members, with the first-pass results of its task
    /// files by name.
    Dir(&'a dyn DirSource, &'a [(&'a str, &'a RecordSieve)]),
    /// A member checked as it is unpacked (its format's [`formats::spec::StreamSpec`] takes
    /// it): its first bytes, already read, and the rest.
    Stream(Format, &'a [u8], &'a mut dyn Read),
    /// A directory of a format whose members are gathered by name (`FormatSpec::dir`'s
    /// `group`: a `perf record --threads` directory's `data` and `data.<n>`).
    Group(&'static crate::formats::FormatSpec, &'a dyn DirSource),
}

/// Checks one leaf into the sink (findings already carry the member); returns the format and
/// the leaf's structure map.
pub type LeafCheck<'c> = dyn FnMut(Leaf<'_>, &mut Sink) -> (Option<Format>, MapNode) + 'c;

/// What one member turned out to be.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct MemberInfo {
    /// Path inside the archive (nested archives joined by `!`).
    pub path: String,
    /// Format checked, when it is a trace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<Format>,
    /// Unpacked size in bytes (for a uftrace directory: of all its files).
    pub size: u64,
}

/// The outcome of checking a container input.
pub struct Outcome {
    /// The structure map: the layers, then one node per member.
    pub map: MapNode,
    /// The members, in archive order.
    pub members: Vec<MemberInfo>,
    /// The format of the only trace inside, when there is exactly one.
    pub format: Option<Format>,
    /// True when the content was a plain trace without a member name (standard input).
    pub unnamed: bool,
}

/// Where a container's bytes come from.
pub enum Source {
    /// A file on disk (a zip is read from it directly, with seeks). With `sift`, trace.dat
    /// members are sifted as they are unpacked (see [`PageSieve`]), and the file is read again
    /// without sifting if the sieve's guess turns out wrong.
    File {
        /// The open file.
        file: File,
        /// Sift trace.dat members.
        sift: bool,
    },
    /// A stream (standard input, or a member): a zip in it is first spilled.
    Stream(Box<dyn Read>),
}

struct Walker<'c, 'l> {
    limits: &'l Limits,
    budget: Budget,
    spill_left: u64,
    /// Bytes the first passes over uftrace task files may still keep (all members together).
    runs_left: usize,
    members: Vec<MemberInfo>,
    unnamed: bool,
    /// Sift trace.dat members that are spilled.
    sift: bool,
    /// The input is a file, read again without sifting if a guess turns out wrong.
    rereadable: bool,
    /// Set when a sieve's guess was wrong: the input must be checked again without sifting.
    retry: bool,
    /// The format was forced (`--format-hint`): a stream whose first bytes are no trace is
    /// still unpacked and checked whole.
    hinted: bool,
    check: &'c mut LeafCheck<'c>,
}

/// A reader that counts the bytes read and keeps the error that ended it.
struct Watched<'r> {
    r: &'r mut dyn Read,
    n: u64,
    error: Option<io::Error>,
}

impl Read for Watched<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.r.read(buf) {
            Ok(k) => {
                self.n = self.n.saturating_add(k as u64);
                Ok(k)
            }
            Err(e) => {
                let kept = io::Error::new(e.kind(), e.to_string());
                if e.kind() != io::ErrorKind::Interrupted {
                    self.error = Some(e);
                }
                Err(kept)
            }
        }
    }
}

/// Checks the container `src` whose display name is `name` (its file name: a compressed
/// file's member is named after it, `x.dat.gz` → `x.dat`). `top_plain_unnamed`: a plain trace
/// at the top (standard input) has no member name. Unless `hinted` (the format was forced), an
/// unpacked stream whose first bytes are neither a trace, a container nor a possible uftrace
/// file is judged from those bytes and not unpacked further (never spilled).
pub fn check(
    src: Source,
    name: &str,
    limits: &Limits,
    hinted: bool,
    sink: &mut Sink,
    check: &mut LeafCheck<'_>,
) -> Outcome {
    let mut root = MapNode::new(name, 0, 0);
    let w = match src {
        Source::File { mut file, sift } => {
            let mut w = Walker::new(limits, sift, check);
            w.hinted = hinted;
            w.rereadable = true;
            if sift {
                // Into a scratch sink: a wrong guess throws the first pass away.
                let mut first = sink.child(limits.max_findings);
                first.set_file(sink.current_file().map(str::to_string));
                w.file(&mut file, name, &mut first, &mut root);
                if w.retry && file.rewind().is_ok() {
                    root = MapNode::new(name, 0, 0);
                    let check = w.check;
                    w = Walker::new(limits, false, check);
                    w.hinted = hinted;
                    w.file(&mut file, name, sink, &mut root);
                } else {
                    sink.absorb(first);
                }
            } else {
                w.file(&mut file, name, sink, &mut root);
            }
            w
        }
        Source::Stream(r) => {
            // Sifted too: a stream is read once, so its ring pages are summarised as they
            // pass rather than spilled. A guess that did not hold cannot be checked again
            // without the bytes: the first pass's findings are dropped and TL003 says so.
            let mut w = Walker::new(limits, true, check);
            w.hinted = hinted;
            let mut first = sink.child(limits.max_findings);
            first.set_file(sink.current_file().map(str::to_string));
            w.stream(r, name, None, 0, true, &mut first, &mut root);
            if w.retry {
                sink.set_member(None);
                sink.report(
                    &rules::LIMIT_EXCEEDED,
                    0..0,
                    "a stream is checked in one pass: the ring pages of a trace.dat and the \
                     record runs of a uftrace task file are summarised as they pass and not kept; \
                     here the summaries did not stand for the bytes the check had to read (pages \
                     that looked like ring pages were not all CPU data where the metadata says, \
                     a CPU's data ends inside a run of them, or a task's walk could not take a \
                     run), and a stream cannot be read twice, so it was not checked"
                        .to_string(),
                );
                sink.note_last(
                    &rules::LIMIT_EXCEEDED,
                    "save the stream to a file and check the file: a file is read again without \
                     summaries when they do not fit",
                );
            } else {
                sink.absorb(first);
            }
            w
        }
    };
    sink.set_member(None);
    // The input's format is the format of its only trace, if it holds exactly one.
    let mut traces = w.members.iter().filter_map(|m| m.format);
    let format = match (traces.next(), traces.next()) {
        (Some(f), None) => Some(f),
        _ => None,
    };
    Outcome {
        map: root,
        members: w.members,
        format,
        unnamed: w.unnamed,
    }
}

/// Whether a file starting with `r` is worth checking when found in a directory walk: a trace,
/// an archive (whose members may be traces), or a compressed stream whose first unpacked bytes
/// are one of these (a gzipped log is not; a stream too damaged to tell is, so the damage is
/// reported).
pub fn holds_traces(r: &mut dyn Read) -> bool {
    holds_traces_at(r, 0)
}

fn holds_traces_at(r: &mut dyn Read, depth: u64) -> bool {
    let Ok(head) = read_head(r) else {
        return false;
    };
    if formats::detect_bytes(&head).is_some() {
        return true;
    }
    match sniff(&head) {
        None => false,
        Some(layer) if layer.is_compression() && depth < 4 => {
            let packed: Box<dyn Read + '_> = Box::new(io::Cursor::new(head).chain(r.take(1 << 20)));
            match codec::decoder(layer, packed) {
                Ok(mut d) => holds_traces_at(&mut d, depth + 1),
                Err(_) => true,
            }
        }
        Some(_) => true,
    }
}

/// Reads up to [`SNIFF_BYTES`] from `r`.
fn read_head(r: &mut dyn Read) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    r.take(SNIFF_BYTES as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// `prefix` + `name`: the member path shown to users.
fn join(prefix: &str, name: &str) -> String {
    format!("{prefix}{name}")
}

impl<'c, 'l> Walker<'c, 'l> {
    fn new(limits: &'l Limits, sift: bool, check: &'c mut LeafCheck<'c>) -> Self {
        Walker {
            limits,
            budget: Budget::new(limits.max_unpacked_bytes),
            spill_left: limits.max_spill_bytes,
            runs_left: RUNS_BUDGET,
            members: Vec::new(),
            unnamed: false,
            sift,
            rereadable: false,
            retry: false,
            hinted: false,
            check,
        }
    }

    fn corrupt(&self, sink: &mut Sink, member: Option<&str>, what: String) {
        sink.set_member(member.map(str::to_string));
        sink.report(&rules::ARCHIVE_CORRUPT, 0..0, what);
    }

    /// `TL003` for a member cut short by `cut` after `len` bytes.
    fn cut(&self, sink: &mut Sink, cut: stash::Cut, what: &str, len: u64) {
        let (name, limit) = match cut {
            stash::Cut::Size => ("max_file_bytes", self.limits.max_file_bytes),
            stash::Cut::Spill => ("max_spill_bytes", self.limits.max_spill_bytes),
        };
        sink.limit(0..0, what, len.saturating_add(1), name, limit);
    }

    /// A limit hit (if the budget recorded one) as `TL003`; true if there was one.
    fn limit_hit(&self, sink: &mut Sink, member: Option<&str>) -> bool {
        match self.budget.take_hit() {
            Some(h) => {
                sink.set_member(member.map(str::to_string));
                sink.limit(0..0, h.what, h.value, h.limit_name, h.limit);
                true
            }
            None => false,
        }
    }

    /// A container file on disk at the top.
    fn file(&mut self, f: &mut File, name: &str, sink: &mut Sink, map: &mut MapNode) {
        let head = read_head(f).unwrap_or_default();
        if sniff(&head) == Some(Layer::Zip) {
            if f.rewind().is_err() {
                return self.corrupt(sink, None, "cannot seek in the zip file".into());
            }
            let mut node = MapNode::new("zip", 0, 0).value("layer", "zip");
            self.zip(&mut *f, "", 1, sink, &mut node);
            map.children.push(node);
            return;
        }
        let r: Box<dyn Read> = Box::new(io::Cursor::new(head).chain(f));
        self.stream(r, name, None, 0, false, sink, map);
    }

    /// A stream named `name`: a compression layer, an archive or a leaf. `alias` is its member
    /// path when it is (inside) an archive member; `None` at the top, where a compressed
    /// file's content is named after the file (`x.dat.gz` → `x.dat`) and standard input's
    /// plain content (`top_unnamed`) has no member name.
    #[allow(clippy::too_many_arguments)]
    fn stream(
        &mut self,
        mut r: Box<dyn Read + '_>,
        name: &str,
        alias: Option<String>,
        depth: u64,
        top_unnamed: bool,
        sink: &mut Sink,
        map: &mut MapNode,
    ) {
        let member = alias.clone().unwrap_or_else(|| name.to_string());
        let head = match read_head(&mut r) {
            Ok(h) => h,
            Err(e) => {
                if !self.limit_hit(sink, Some(&member)) {
                    self.corrupt(sink, Some(&member), format!("reading {member} failed: {e}"));
                }
                return;
            }
        };
        let layer = sniff(&head);
        let format = formats::detect_bytes(&head);
        let mut r: Box<dyn Read + '_> = Box::new(io::Cursor::new(head).chain(r));
        let Some(layer) = layer else {
            let shown = if top_unnamed && alias.is_none() {
                None
            } else {
                Some(member.as_str())
            };
            return self.leaf(r, format, shown, &member, sink, map);
        };
        if depth >= self.limits.max_archive_depth {
            sink.set_member(Some(member.clone()));
            sink.limit(
                0..0,
                "the nesting of compression and archive layers",
                depth.saturating_add(1),
                "max_archive_depth",
                self.limits.max_archive_depth,
            );
            return;
        }
        let mut node = MapNode::new(layer.name(), 0, 0).value("layer", layer.name());
        // Members of a nested archive are shown as `outer!inner`.
        let inner_prefix = alias.as_ref().map(|a| format!("{a}!")).unwrap_or_default();
        match layer {
            Layer::Tar => self.tar(r, &inner_prefix, depth + 1, sink, &mut node),
            Layer::Zip => {
                // A zip needs random access: spill the stream, then read it from the file.
                match stash::stash(
                    r.as_mut(),
                    0,
                    self.limits.max_file_bytes,
                    &mut self.spill_left,
                ) {
                    Ok(s) => {
                        if self.limit_hit(sink, Some(&member)) {
                            return;
                        }
                        if let Some(e) = s.error {
                            self.corrupt(
                                sink,
                                Some(&member),
                                format!("reading the zip failed: {e}"),
                            );
                            return;
                        }
                        if let Some(cut) = s.cut {
                            sink.set_member(Some(member.clone()));
                            self.cut(sink, cut, "the zip size (at least)", s.stash.len());
                            return;
                        }
                        match s.stash {
                            Stash::Spill(f, _) => {
                                self.zip(f, &inner_prefix, depth + 1, sink, &mut node)
                            }
                            Stash::Mem(v) => {
                                let c = io::Cursor::new(v);
                                self.zip(c, &inner_prefix, depth + 1, sink, &mut node);
                            }
                            Stash::Counted(_) => {}
                        }
                    }
                    Err(e) => {
                        self.corrupt(sink, Some(&member), format!("spilling the zip failed: {e}"))
                    }
                }
            }
            _ => {
                let packed = Rc::new(Cell::new(0u64));
                let counted = CountIn::new(r, packed.clone());
                let dec = match codec::decoder(layer, Box::new(counted)) {
                    Ok(d) => d,
                    Err(e) => {
                        return self.corrupt(
                            sink,
                            Some(&member),
                            format!("the {} stream cannot be decoded: {e}", layer.name()),
                        )
                    }
                };
                let metered = Meter::new(
                    dec,
                    packed,
                    self.limits.max_unpack_ratio,
                    self.budget.clone(),
                );
                let inner = inner_name(name, layer);
                self.stream(
                    Box::new(metered),
                    &inner,
                    alias,
                    depth + 1,
                    top_unnamed,
                    sink,
                    &mut node,
                );
            }
        }
        map.children.push(node);
    }

    /// Unpacks and checks one member that is not a container; `format` is what its first
    /// bytes look like.
    fn leaf(
        &mut self,
        mut r: Box<dyn Read + '_>,
        format: Option<Format>,
        shown: Option<&str>,
        member: &str,
        sink: &mut Sink,
        map: &mut MapNode,
    ) {
        if format.is_none() && !self.hinted {
            return self.not_a_trace(r, shown, member, sink, map);
        }
        if let Some(st) = format
            .and_then(formats::spec)
            .and_then(|s| s.stream.as_ref())
        {
            let mut head = Vec::with_capacity(formats::spec::STREAM_HEAD);
            let read = r
                .as_mut()
                .take(formats::spec::STREAM_HEAD as u64)
                .read_to_end(&mut head);
            if read.is_ok() && (st.takes)(&head) {
                if let Some(f) = format {
                    return self.streamed(f, &head, r, shown, member, sink, map);
                }
            }
            r = Box::new(io::Cursor::new(head).chain(r));
        }
        let tracedat = format == Some(formats::tracecmd::FORMAT);
        let mut sieve =
            (self.sift && tracedat).then(|| PageSieve::default().with_limits(self.limits.clone()));
        let s = match stash::stash_sifted(
            r.as_mut(),
            self.limits.unpack_memory_bytes,
            self.limits.max_file_bytes,
            &mut self.spill_left,
            sieve.as_mut().map(stash::Sift::Pages),
        ) {
            Ok(s) => s,
            Err(e) => {
                sink.set_member(shown.map(str::to_string));
                sink.report(
                    &rules::IO_ERROR,
                    0..0,
                    format!("cannot spill {member} to a temporary file: {e}"),
                );
                return;
            }
        };
        sink.set_member(shown.map(str::to_string));
        let limited = self.limit_hit(sink, shown);
        if let Some(cut) = s.cut {
            self.cut(
                sink,
                cut,
                "the unpacked member size (at least)",
                s.stash.len(),
            );
        }
        if let Some(e) = &s.error {
            if !limited {
                self.corrupt(
                    sink,
                    shown,
                    format!(
                        "the compressed data ends in error after {} unpacked bytes: {e}",
                        s.stash.len()
                    ),
                );
            }
        }
        sink.set_member(shown.map(str::to_string));
        let (format, node) = match (&s.stash, &sieve) {
            (Stash::Mem(v), _) => (self.check)(Leaf::Bytes(v), sink),
            (Stash::Spill(f, n), Some(sv)) => {
                let (format, mut node) = (self.check)(Leaf::Sifted(f, *n, sv), sink);
                self.retry |= !sv.complete();
                node.set("pages summarised", sv.summarized());
                node.set(
                    "pages summarised against the formats",
                    sv.pages().summarized_against_formats(),
                );
                node.set("page runs", sv.pages().runs());
                (format, node)
            }
            (Stash::Spill(f, n), None) => (self.check)(Leaf::File(f, *n), sink),
            (Stash::Counted(n), _) => (None, MapNode::new("not kept", 0, *n)),
        };
        self.unnamed |= shown.is_none();
        self.members.push(MemberInfo {
            path: member.to_string(),
            format,
            size: s.stash.len(),
        });
        map.children.push(member_node(shown, s.stash.len(), node));
    }

    /// A member whose format checks it as it is unpacked: never held nor spilled.
    #[allow(clippy::too_many_arguments)]
    fn streamed(
        &mut self,
        format: Format,
        head: &[u8],
        mut r: Box<dyn Read + '_>,
        shown: Option<&str>,
        member: &str,
        sink: &mut Sink,
        map: &mut MapNode,
    ) {
        let mut watched = Watched {
            r: r.as_mut(),
            n: head.len() as u64,
            error: None,
        };
        sink.set_member(shown.map(str::to_string));
        let (format, node) = (self.check)(Leaf::Stream(format, head, &mut watched), sink);
        let (n, error) = (watched.n, watched.error);
        let limited = self.limit_hit(sink, shown);
        if let Some(e) = error {
            if !limited {
                self.corrupt(
                    sink,
                    shown,
                    format!("the compressed data ends in error after {n} unpacked bytes: {e}"),
                );
            }
        }
        self.unnamed |= shown.is_none();
        self.members.push(MemberInfo {
            path: member.to_string(),
            format,
            size: n,
        });
        map.children.push(member_node(shown, n, node));
    }

    /// A stream whose first bytes are no trace (nor a container): checked from those bytes,
    /// which gives the detection finding, and neither unpacked further nor spilled, so
    /// endless or random input and decompression bombs of zeros end at once.
    fn not_a_trace(
        &mut self,
        mut r: Box<dyn Read + '_>,
        shown: Option<&str>,
        member: &str,
        sink: &mut Sink,
        map: &mut MapNode,
    ) {
        let mut head = Vec::with_capacity(SNIFF_BYTES);
        let err = r
            .as_mut()
            .take(SNIFF_BYTES as u64)
            .read_to_end(&mut head)
            .err();
        let mut one = [0u8; 1];
        let more = err.is_none() && matches!(r.read(&mut one), Ok(1));
        sink.set_member(shown.map(str::to_string));
        let limited = self.limit_hit(sink, shown);
        if let Some(e) = &err {
            if !limited {
                self.corrupt(
                    sink,
                    shown,
                    format!("the stream ends in error after {} bytes: {e}", head.len()),
                );
            }
        }
        sink.set_member(shown.map(str::to_string));
        let (format, node) = (self.check)(Leaf::Bytes(&head), sink);
        if more {
            sink.note_last(
                &rules::UNKNOWN_FORMAT,
                format!(
                    "judged from its first {} bytes: the rest was not read (nor unpacked, nor spilled)",
                    head.len()
                ),
            );
        }
        self.unnamed |= shown.is_none();
        self.members.push(MemberInfo {
            path: member.to_string(),
            format,
            size: head.len() as u64,
        });
        map.children
            .push(member_node(shown, head.len() as u64, node));
    }

    /// Decides, for a regular archive member, whether it is a trace, a nested container, or
    /// something to keep for a uftrace directory.
    #[allow(clippy::too_many_arguments)]
    fn member(
        &mut self,
        mut r: Box<dyn Read + '_>,
        path: &str,
        prefix: &str,
        depth: u64,
        kept: &mut Vec<Kept>,
        sink: &mut Sink,
        map: &mut MapNode,
    ) {
        let full = join(prefix, path);
        let head = match read_head(&mut r) {
            Ok(h) => h,
            Err(e) => {
                if !self.limit_hit(sink, Some(&full)) {
                    self.corrupt(
                        sink,
                        Some(&full),
                        format!("reading member {full} failed: {e}"),
                    );
                }
                return;
            }
        };
        let format = formats::detect_bytes(&head);
        let is_container = sniff(&head).is_some();
        let r: Box<dyn Read + '_> = Box::new(io::Cursor::new(head).chain(r));
        if is_container {
            return self.stream(r, path, Some(full), depth, false, sink, map);
        }
        // A file that may head a directory of members named by their role (a perf.data named
        // `data`, with `data.<n>` streams) is kept until the archive is read (see `finish`).
        let base = split(path).1;
        let group_head = formats::group_head(base, format).is_some();
        if format.is_some() && !group_head {
            return self.leaf(r, format, Some(&full), &full, sink, map);
        }
        // Named like no uftrace file nor a group's member: its bytes are never needed (a
        // uftrace directory lists it by name and size), so they are counted, not kept or
        // spilled.
        let mut r = r;
        if classify(base) == FileKind::Unknown && !group_head && !formats::group_member(base) {
            let n = io::copy(&mut r.as_mut(), &mut io::sink());
            if self.limit_hit(sink, Some(&full)) {
                return;
            }
            let n = match n {
                Ok(n) => n,
                Err(e) => {
                    self.corrupt(
                        sink,
                        Some(&full),
                        format!("reading member {full} failed: {e}"),
                    );
                    return;
                }
            };
            kept.push(Kept {
                path: path.to_string(),
                stash: Stash::Counted(n),
                runs: None,
            });
            return;
        }
        // Possibly part of a uftrace data directory: keep it until the archive is read. A task
        // file gets its first pass as it is unpacked: the rest of the directory may come later.
        let mut runs = is_task_file(split(path).1).then(|| {
            RecordSieve::default()
                .with_budget(self.runs_left)
                .with_payload_holes(self.sift && self.rereadable)
        });
        match stash::stash_sifted(
            r.as_mut(),
            self.limits.unpack_memory_bytes,
            self.limits.max_file_bytes,
            &mut self.spill_left,
            // Sifting (a file that can be read again, or a stream): the bytes of the runs are
            // left out too.
            runs.as_mut().map(|sv| {
                if self.sift {
                    stash::Sift::HoledRecords(sv)
                } else {
                    stash::Sift::Records(sv)
                }
            }),
        ) {
            Ok(s) => {
                if self.limit_hit(sink, Some(&full)) {
                    return;
                }
                // A member cut short by a limit is checked as far as it was kept, and says so.
                if let Some(cut) = s.cut {
                    sink.set_member(Some(full.clone()));
                    self.cut(
                        sink,
                        cut,
                        "the unpacked member size (at least)",
                        s.stash.len(),
                    );
                }
                if let Some(e) = s.error {
                    self.corrupt(
                        sink,
                        Some(&full),
                        format!("reading member {full} failed: {e}"),
                    );
                }
                if let Some(sv) = &runs {
                    self.runs_left = self.runs_left.saturating_sub(sv.bytes());
                }
                kept.push(Kept {
                    path: path.to_string(),
                    stash: s.stash,
                    runs,
                });
            }
            Err(e) => {
                sink.set_member(Some(full.clone()));
                sink.report(
                    &rules::IO_ERROR,
                    0..0,
                    format!("cannot spill {full} to a temporary file: {e}"),
                );
            }
        }
    }

    /// Screens a member's path and kind; `Some(path)` (normalised) when its data is to be read.
    fn screen(
        &mut self,
        raw: &[u8],
        kind: Kind,
        prefix: &str,
        seen: &mut BTreeSet<String>,
        count: &mut u64,
        sink: &mut Sink,
    ) -> Screen {
        *count = count.saturating_add(1);
        let shown = String::from_utf8_lossy(raw).into_owned();
        let full = join(prefix, &shown);
        if *count > self.limits.max_archive_members {
            sink.set_member(None);
            sink.limit(
                0..0,
                "the number of archive members",
                *count,
                "max_archive_members",
                self.limits.max_archive_members,
            );
            return Screen::Stop;
        }
        // The archive's own top directory (`tar -C dir -cf x.tar .` stores `./`): nothing to
        // check, and no path that leaves the archive.
        let top = !shown.starts_with(['/', '\\'])
            && shown.split(['/', '\\']).all(|c| c.is_empty() || c == ".");
        if matches!(kind, Kind::Dir) && top {
            return Screen::Skip;
        }
        let Some(path) = safe_path(&shown) else {
            sink.set_member(Some(full.clone()));
            sink.report(
                &rules::ARCHIVE_MEMBER_PATH_UNSAFE,
                0..0,
                format!("member path `{shown}` is absolute, empty or leaves the archive with `..`; not checked"),
            );
            return Screen::Skip;
        };
        match kind {
            Kind::Dir => return Screen::Skip,
            Kind::Link(what) => {
                sink.set_member(Some(join(prefix, &path)));
                sink.report(
                    &rules::ARCHIVE_MEMBER_LINK,
                    0..0,
                    format!("member `{path}` is {what}; it was not followed and its target was not checked"),
                );
                return Screen::Skip;
            }
            Kind::File => {}
        }
        if !seen.insert(path.clone()) {
            sink.set_member(Some(join(prefix, &path)));
            sink.report(
                &rules::ARCHIVE_MEMBER_DUPLICATE,
                0..0,
                format!("member `{path}` appears more than once; the first copy was checked, extractors may keep another"),
            );
            return Screen::Skip;
        }
        Screen::Read(path)
    }

    fn tar(
        &mut self,
        r: Box<dyn Read + '_>,
        prefix: &str,
        depth: u64,
        sink: &mut Sink,
        map: &mut MapNode,
    ) {
        let mut ar = tar::Archive::new(r);
        let mut kept = Vec::new();
        let mut seen = BTreeSet::new();
        let mut count = 0u64;
        let entries = match ar.entries() {
            Ok(e) => e,
            Err(e) => {
                return self.corrupt(sink, None, format!("the tar archive cannot be read: {e}"))
            }
        };
        for entry in entries {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    if !self.limit_hit(sink, None) {
                        self.corrupt(sink, None, format!("the tar archive is damaged or truncated after {count} member(s): {e}"));
                    }
                    break;
                }
            };
            let et = entry.header().entry_type();
            let kind = if et.is_dir() {
                Kind::Dir
            } else if et.is_symlink() {
                Kind::Link("a symbolic link")
            } else if et.is_hard_link() {
                Kind::Link("a hard link")
            } else if et.is_file() || et == tar::EntryType::Continuous {
                Kind::File
            } else if et.is_pax_global_extensions()
                || et.is_pax_local_extensions()
                || et.is_gnu_longname()
                || et.is_gnu_longlink()
            {
                continue;
            } else {
                Kind::Link("a special file (device, FIFO or sparse)")
            };
            let raw = entry.path_bytes().into_owned();
            match self.screen(&raw, kind, prefix, &mut seen, &mut count, sink) {
                Screen::Stop => break,
                Screen::Skip => continue,
                Screen::Read(path) => {
                    self.member(Box::new(entry), &path, prefix, depth, &mut kept, sink, map)
                }
            }
            if self.budget.hit.get().is_some() {
                self.limit_hit(sink, None);
                break;
            }
        }
        self.finish(kept, prefix, sink, map);
    }

    fn zip<R: Read + Seek>(
        &mut self,
        r: R,
        prefix: &str,
        depth: u64,
        sink: &mut Sink,
        map: &mut MapNode,
    ) {
        let mut ar = match zip::ZipArchive::new(r) {
            Ok(a) => a,
            Err(e) => {
                return self.corrupt(sink, None, format!("the zip archive cannot be read: {e}"))
            }
        };
        if let Some(why) = zip_overlap(&mut ar, self.limits.max_archive_members) {
            sink.set_member(None);
            sink.report(
                &rules::ARCHIVE_MEMBERS_OVERLAP,
                0..0,
                format!("{why}; a hostile archive: none of its members was unpacked or checked"),
            );
            return;
        }
        let mut kept = Vec::new();
        let mut seen = BTreeSet::new();
        let mut count = 0u64;
        for i in 0..ar.len() {
            let f = match ar.by_index(i) {
                Ok(f) => f,
                Err(e) => {
                    self.corrupt(sink, None, format!("zip member {i} cannot be read: {e}"));
                    continue;
                }
            };
            let kind = if f.is_dir() {
                Kind::Dir
            } else if f.is_symlink() {
                Kind::Link("a symbolic link")
            } else {
                Kind::File
            };
            let raw = f.name_raw().to_vec();
            let packed_size = f.compressed_size();
            match self.screen(&raw, kind, prefix, &mut seen, &mut count, sink) {
                Screen::Stop => break,
                Screen::Skip => continue,
                Screen::Read(path) => {
                    let packed = Rc::new(Cell::new(packed_size));
                    let metered =
                        Meter::new(f, packed, self.limits.max_unpack_ratio, self.budget.clone());
                    self.member(
                        Box::new(metered),
                        &path,
                        prefix,
                        depth,
                        &mut kept,
                        sink,
                        map,
                    );
                    // A bomb in one zip member stops that member only; the input's total
                    // budget stops the archive.
                    if let Some(h) = self.budget.hit.get() {
                        let h: codec::LimitHit = h.into();
                        if h.limit_name == "max_unpacked_bytes" {
                            self.limit_hit(sink, None);
                            break;
                        }
                        self.limit_hit(sink, Some(&join(prefix, &path)));
                    }
                }
            }
        }
        self.finish(kept, prefix, sink, map);
    }

    /// The kept heads of grouped directories (`FormatSpec::dir`'s `group`): with siblings
    /// beside them, each directory is checked as its directory format (a `perf record
    /// --threads` directory); alone, as the head's file format (a perf.data).
    fn grouped_dirs(
        &mut self,
        kept: &[Kept],
        used: &mut [bool],
        prefix: &str,
        sink: &mut Sink,
        map: &mut MapNode,
    ) {
        for (i, k) in kept.iter().enumerate() {
            let (dir, base) = split(&k.path);
            let head = k.stash.head(crate::detect::DETECT_BYTES);
            let Some(spec) = formats::group_head(base, formats::detect_bytes(&head)) else {
                continue;
            };
            let Some(group) = spec.dir.as_ref().and_then(|d| d.group.as_ref()) else {
                continue;
            };
            let member = join(prefix, &k.path);
            let in_dir: Vec<usize> = kept
                .iter()
                .enumerate()
                .filter(|(_, o)| {
                    let (d, b) = split(&o.path);
                    d == dir && (b == group.head || (group.member)(b))
                })
                .map(|(j, _)| j)
                .collect();
            sink.set_member(Some(member.clone()));
            let (format, node, size, shown) = if in_dir.len() > 1 {
                let files: Vec<(String, &Stash)> = in_dir
                    .iter()
                    .filter_map(|&j| kept.get(j))
                    .map(|o| (split(&o.path).1.to_string(), &o.stash))
                    .collect();
                let size = files.iter().map(|(_, s)| s.len()).sum();
                let name = dir.trim_end_matches('/');
                let shown = join(prefix, if name.is_empty() { "." } else { name });
                sink.set_member(Some(shown.clone()));
                let view = ArchiveDir::new(&shown, files);
                let (f, node) = (self.check)(Leaf::Group(spec, &view), sink);
                for &j in &in_dir {
                    if let Some(u) = used.get_mut(j) {
                        *u = true;
                    }
                }
                (f, node, size, shown)
            } else {
                let (f, node) = match &k.stash {
                    Stash::Mem(v) => (self.check)(Leaf::Bytes(v), sink),
                    Stash::Spill(file, n) => (self.check)(Leaf::File(file, *n), sink),
                    Stash::Counted(n) => (None, MapNode::new("not kept", 0, *n)),
                };
                if let Some(u) = used.get_mut(i) {
                    *u = true;
                }
                (f, node, k.stash.len(), member)
            };
            sink.set_file(None);
            self.members.push(MemberInfo {
                path: shown.clone(),
                format,
                size,
            });
            map.children.push(member_node(Some(&shown), size, node));
        }
    }

    /// After an archive level: its perf `--threads` directories and uftrace data directories
    /// are checked from the kept members; the other kept members are listed as not traces.
    fn finish(&mut self, kept: Vec<Kept>, prefix: &str, sink: &mut Sink, map: &mut MapNode) {
        let mut used = vec![false; kept.len()];
        self.grouped_dirs(&kept, &mut used, prefix, sink, map);
        let mut dirs: BTreeSet<String> = BTreeSet::new();
        for Kept {
            path: p, stash: s, ..
        } in &kept
        {
            let (dir, base) = split(p);
            if base == "info" {
                let has_task = kept.iter().any(|k| {
                    let (d, b) = split(&k.path);
                    d == dir && (b == "task.txt" || b.ends_with(".dat"))
                });
                if s.head(8) == formats::uftrace::MAGIC || has_task {
                    dirs.insert(dir.to_string());
                }
            }
        }
        for dir in &dirs {
            let mut files = Vec::new();
            let mut runs: Vec<(&str, &RecordSieve)> = Vec::new();
            let mut size = 0u64;
            for (
                i,
                Kept {
                    path: p,
                    stash: s,
                    runs: sv,
                },
            ) in kept.iter().enumerate()
            {
                let (d, b) = split(p);
                if d == dir {
                    files.push((b.to_string(), s));
                    if let Some(sv) = sv {
                        runs.push((b, sv));
                    }
                    size = size.saturating_add(s.len());
                    if let Some(u) = used.get_mut(i) {
                        *u = true;
                    }
                }
            }
            let name = dir.trim_end_matches('/');
            let name = if name.is_empty() { "." } else { name };
            let member = join(prefix, name);
            let view = ArchiveDir::new(&member, files);
            sink.set_member(Some(member.clone()));
            let (_, mut node) = (self.check)(Leaf::Dir(&view, &runs), sink);
            // A walk that had to read bytes left out: checked again without (or, from a
            // stream, not at all).
            self.retry |= runs.iter().any(|(_, sv)| sv.spoiled());
            let taken: u64 = runs.iter().map(|(_, sv)| sv.taken()).sum();
            let found: usize = runs.iter().map(|(_, sv)| sv.runs().len()).sum();
            if found > 0 {
                node.set("record runs", found);
            }
            if taken > 0 {
                node.set("record runs taken", taken);
            }
            sink.set_file(None);
            self.members.push(MemberInfo {
                path: member.clone(),
                format: Some(formats::uftrace::FORMAT),
                size,
            });
            map.children.push(member_node(Some(&member), size, node));
        }
        for (
            Kept {
                path: p, stash: s, ..
            },
            u,
        ) in kept.iter().zip(used)
        {
            if u {
                continue;
            }
            let full = join(prefix, p);
            sink.set_member(Some(full.clone()));
            sink.report(
                &rules::ARCHIVE_MEMBER_NOT_A_TRACE,
                0..0,
                format!(
                    "member `{full}` ({} bytes) is not a trace; not checked",
                    s.len()
                ),
            );
            self.members.push(MemberInfo {
                path: full,
                format: None,
                size: s.len(),
            });
        }
    }
}

/// Whether members of the zip `ar` overlap: two central-directory entries sharing a local
/// header, or one member's local header and data reaching into the next. Reads the local
/// headers only (nothing is unpacked), at most `max` of them; `Some` says which members.
fn zip_overlap<R: Read + Seek>(ar: &mut zip::ZipArchive<R>, max: u64) -> Option<String> {
    // (start, end, index) of each member's local header and data.
    let mut ranges: Vec<(u64, u64, usize)> = Vec::new();
    let n = ar.len().min(usize::try_from(max).unwrap_or(usize::MAX));
    for i in 0..n {
        // An entry that cannot be read is reported when the members are read.
        let Ok(f) = ar.by_index_raw(i) else { continue };
        let start = f.header_start();
        // A local header is at least 30 bytes.
        let data = f.data_start().unwrap_or(start.saturating_add(30));
        ranges.push((start, data.saturating_add(f.compressed_size()), i));
    }
    ranges.sort_unstable();
    let name = |ar: &mut zip::ZipArchive<R>, i: usize| {
        ar.name_for_index(i)
            .map_or_else(|| format!("#{i}"), |n| format!("`{n}`"))
    };
    let shared = ranges
        .windows(2)
        .filter(|w| matches!(w, [a, b] if a.0 == b.0))
        .count();
    for w in ranges.windows(2) {
        let [a, b] = w else { continue };
        if b.0 < a.1 {
            let (na, nb) = (name(ar, a.2), name(ar, b.2));
            return Some(if a.0 == b.0 {
                format!(
                    "zip members {na} and {nb} share the local header at offset {} ({} entries point at a header another entry uses)",
                    a.0,
                    shared.saturating_add(1)
                )
            } else {
                format!(
                    "zip member {nb} (local header at offset {}) lies inside member {na} (offsets {}..{})",
                    b.0, a.0, a.1
                )
            });
        }
    }
    None
}

/// A member kept until its archive level is read (it may belong to a uftrace directory).
struct Kept {
    path: String,
    stash: Stash,
    /// The first pass over a task file.
    runs: Option<RecordSieve>,
}

enum Kind {
    File,
    Dir,
    Link(&'static str),
}

enum Screen {
    Read(String),
    Skip,
    Stop,
}

/// A member path made relative and normal (`./a//b` → `a/b`); `None` when it is absolute,
/// empty, or has a `..` component.
fn safe_path(p: &str) -> Option<String> {
    if p.starts_with('/') || p.starts_with('\\') || p.contains('\0') {
        return None;
    }
    let mut parts = Vec::new();
    for c in p.split(['/', '\\']) {
        match c {
            "" | "." => {}
            ".." => return None,
            c => parts.push(c),
        }
    }
    if parts.is_empty() {
        return None;
    }
    // A Windows drive (`C:`) is absolute too.
    if parts
        .first()
        .is_some_and(|f| f.len() == 2 && f.ends_with(':'))
    {
        return None;
    }
    Some(parts.join("/"))
}

/// (`dir/` with its slash, or empty; base name).
fn split(p: &str) -> (&str, &str) {
    match p.rfind('/') {
        Some(i) => (p.get(..=i).unwrap_or(""), p.get(i + 1..).unwrap_or("")),
        None => ("", p),
    }
}

fn member_node(member: Option<&str>, size: u64, inner: MapNode) -> MapNode {
    let mut n = MapNode::new(
        match member {
            Some(m) => format!("member {m}"),
            None => "content".to_string(),
        },
        0,
        size,
    );
    n.member = member.map(str::to_string);
    n.children.push(inner);
    n
}

#[cfg(test)]
#[path = "archive_tests.rs"]
mod tests;
