//! The structure-aware model of archives and compressed streams: an `arbitrary` model written by the format's
//! writer, rendered and run.

use super::gdb::*;
use super::mutation::*;
use crate::fuzzing::invariants::*;
use crate::fuzzing::raw::*;
use arbitrary::{Arbitrary, Unstructured};

/// A compression layer of the structured archive model.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum Codec {
    /// gzip.
    Gz,
    /// zstd.
    Zst,
    /// xz.
    Xz,
    /// bzip2.
    Bz2,
    /// lz4.
    Lz4,
}

pub(crate) fn compress(c: Codec, data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let out: std::io::Result<Vec<u8>> = match c {
        Codec::Gz => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(data).and_then(|()| e.finish())
        }
        Codec::Zst => zstd::bulk::compress(data, 1),
        Codec::Xz => {
            let mut e = liblzma::write::XzEncoder::new(Vec::new(), 0);
            e.write_all(data).and_then(|()| e.finish())
        }
        Codec::Bz2 => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
            e.write_all(data).and_then(|()| e.finish())
        }
        Codec::Lz4 => {
            let mut e = lz4_flex::frame::FrameEncoder::new(Vec::new());
            e.write_all(data)
                .map_err(std::io::Error::other)
                .and_then(|()| e.finish().map_err(std::io::Error::other))
        }
    };
    out.unwrap_or_default()
}

/// How a member is named.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum MemberName {
    /// `d<k>/m<n>.tf` (k < 2, n < 8).
    Plain(u8, u8),
    /// `../m<n>.tf`.
    Parent(u8),
    /// `/m<n>.tf`.
    Absolute(u8),
}

/// What kind of entry a member is.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum MemberKind {
    /// A regular file.
    File,
    /// A symbolic link.
    Symlink,
    /// A directory.
    Dir,
}

/// One member: a GDB tfile from the GDB model (or raw bytes), possibly compressed.
#[derive(Arbitrary, Clone, Debug)]
pub struct MemberModel {
    /// Its name.
    pub name: MemberName,
    /// Its kind.
    pub kind: MemberKind,
    /// Input of the GDB model (`render_gdb`); raw bytes when that gives nothing.
    pub content: Vec<u8>,
    /// A compression of the member itself.
    pub codec: Option<Codec>,
}

/// An archive of members, possibly compressed as a whole, then mutated.
#[derive(Arbitrary, Clone, Debug)]
pub struct ArchiveModel {
    /// Zip (else tar).
    pub zip: bool,
    /// Compression of the whole tar.
    pub codec: Option<Codec>,
    /// Members (at most 6 are written).
    pub members: Vec<MemberModel>,
    /// Changes to the final bytes.
    pub mutations: Vec<Mutation>,
}

pub(crate) fn member_name(n: MemberName) -> String {
    match n {
        MemberName::Plain(k, i) => format!("d{}/m{}.tf", k % 2, i % 8),
        MemberName::Parent(i) => format!("../m{}.tf", i % 8),
        MemberName::Absolute(i) => format!("/m{}.tf", i % 8),
    }
}

/// The archive bytes and, per member written, (name, kind, stored bytes, unpacked bytes).
pub(crate) type Written = (Vec<u8>, Vec<(String, MemberKind, Vec<u8>)>);

pub(crate) fn render_archive_parts(data: &[u8]) -> Option<Written> {
    use std::io::Write;
    let m = ArchiveModel::arbitrary_take_rest(Unstructured::new(data)).ok()?;
    let mut written = Vec::new();
    for mm in m.members.iter().take(6) {
        let plain = render_gdb(&mm.content).unwrap_or_else(|| mm.content.clone());
        let stored = match mm.codec {
            Some(c) => compress(c, &plain),
            None => plain.clone(),
        };
        written.push((member_name(mm.name), mm.kind, stored, plain));
    }
    let bytes = if m.zip {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, kind, stored, _) in &written {
            let opts = zip::write::SimpleFileOptions::default();
            let ok = match kind {
                MemberKind::File => {
                    w.start_file(name.as_str(), opts).is_ok() && w.write_all(stored).is_ok()
                }
                MemberKind::Dir => w.add_directory(name.as_str(), opts).is_ok(),
                MemberKind::Symlink => w.add_symlink(name.as_str(), "/etc/passwd", opts).is_ok(),
            };
            if !ok {
                return None;
            }
        }
        w.finish().ok()?.into_inner()
    } else {
        let mut out = Vec::new();
        for (name, kind, stored, _) in &written {
            let mut h = tar::Header::new_gnu();
            let old = h.as_old_mut();
            let nb = name.as_bytes();
            for (d, s) in old.name.iter_mut().zip(nb) {
                *d = *s;
            }
            let (et, body): (_, &[u8]) = match kind {
                MemberKind::File => (tar::EntryType::Regular, stored),
                MemberKind::Dir => (tar::EntryType::Directory, &[]),
                MemberKind::Symlink => (tar::EntryType::Symlink, &[]),
            };
            h.set_entry_type(et);
            h.set_size(body.len() as u64);
            h.set_mode(0o644);
            h.set_cksum();
            out.extend_from_slice(h.as_bytes());
            out.extend_from_slice(body);
            out.resize(out.len().div_ceil(512).saturating_mul(512), 0);
        }
        out.extend_from_slice(&[0u8; 1024]);
        match m.codec {
            Some(c) => compress(c, &out),
            None => out,
        }
    };
    let mut bytes = bytes;
    apply(&mut bytes, &m.mutations);
    let intact = m.mutations.is_empty();
    let members = if intact {
        written.into_iter().map(|(n, k, _, p)| (n, k, p)).collect()
    } else {
        Vec::new()
    };
    Some((bytes, members))
}

/// The archive bytes of a structured archive input.
pub fn render_archive(data: &[u8]) -> Option<Vec<u8>> {
    render_archive_parts(data).map(|(b, _)| b)
}

/// Structured archive: members → tar or zip (optionally compressed) → mutations →
/// [`run_archive`]; with no mutation, every regular member with a safe, unique name must
/// give exactly the findings (codes, spans) of its unpacked bytes checked alone.
pub fn run_archive_structured(data: &[u8]) {
    use crate::check::check_reader;
    use crate::config::Config;
    let Some((bytes, members)) = render_archive_parts(data) else {
        return;
    };
    run_archive(&bytes);
    if members.is_empty() {
        return;
    }
    let opts = fuzz_options(None);
    let r = check_reader(
        std::path::Path::new("-"),
        Box::new(std::io::Cursor::new(bytes)),
        &opts,
        &Config::default(),
    );
    if r.dropped > 0 || r.findings.iter().any(|f| f.rule.code == "TL003") {
        return;
    }
    let mut seen = std::collections::BTreeSet::new();
    for (name, kind, plain) in &members {
        let fresh = seen.insert(name.clone());
        if !matches!(kind, MemberKind::File)
            || !fresh
            || name.starts_with('/')
            || name.starts_with("..")
        {
            continue;
        }
        // A later duplicate of this name is reported under it too.
        if members.iter().filter(|(n, _, _)| n == name).count() > 1 {
            continue;
        }
        if crate::archive::sniff(plain).is_some() || plain.is_empty() {
            continue;
        }
        if crate::formats::detect_bytes(plain).is_none() {
            continue;
        }
        let alone = check_file_once(plain, &opts);
        if alone.dropped > 0 {
            continue;
        }
        // A report lists its findings in offset order, the member's own sink in the order
        // they were found: the same findings, compared as sets.
        let mut got: Vec<_> = r
            .findings
            .iter()
            .filter(|f| f.member.as_deref() == Some(name.as_str()))
            .map(|f| (f.rule.code, f.offset, f.length))
            .collect();
        let mut want: Vec<_> = alone.keys.iter().map(|k| (k.0, k.2, k.3)).collect();
        got.sort_unstable();
        want.sort_unstable();
        assert!(
            got == want,
            "member {name}: the archive gives other findings than the member alone:\n archive: {got:?}\n alone:   {want:?}"
        );
    }
}
