//! The byte-level changes a structure-aware input applies to a written file, and the bounds
//! that keep models small.

use arbitrary::Arbitrary;
/// A change applied to written bytes; offsets wrap around the current length.
#[derive(Arbitrary, Clone, Debug)]
pub enum Mutation {
    /// Sets one byte.
    Set(u32, u8),
    /// Flips bits of one byte.
    Xor(u32, u8),
    /// Overwrites four bytes (little-endian).
    Put32(u32, u32),
    /// Overwrites eight bytes with an extreme value.
    Put64Max(u32),
    /// Cuts the bytes at an offset.
    Truncate(u32),
    /// Inserts bytes.
    Insert(u32, Vec<u8>),
    /// Removes up to 255 bytes.
    Delete(u32, u8),
}

pub(crate) fn at(off: u32, len: usize) -> usize {
    usize::try_from(off).unwrap_or(0) % len.saturating_add(1)
}

pub(crate) fn put(bytes: &mut [u8], i: usize, src: &[u8]) {
    for (d, s) in bytes.iter_mut().skip(i).zip(src) {
        *d = *s;
    }
}

/// Applies at most four mutations.
pub fn apply(bytes: &mut Vec<u8>, muts: &[Mutation]) {
    for m in muts.iter().take(4) {
        let len = bytes.len();
        match m {
            Mutation::Set(o, v) => put(bytes, at(*o, len), &[*v]),
            Mutation::Xor(o, v) => {
                if let Some(b) = bytes.get_mut(at(*o, len)) {
                    *b ^= *v;
                }
            }
            Mutation::Put32(o, v) => put(bytes, at(*o, len), &v.to_le_bytes()),
            Mutation::Put64Max(o) => put(bytes, at(*o, len), &[0xff; 8]),
            Mutation::Truncate(o) => bytes.truncate(at(*o, len)),
            Mutation::Insert(o, ins) => {
                let i = at(*o, len);
                let ins = ins.get(..ins.len().min(64)).unwrap_or_default();
                bytes.splice(i..i, ins.iter().copied());
            }
            Mutation::Delete(o, n) => {
                let i = at(*o, len);
                let end = i.saturating_add(usize::from(*n)).min(len);
                bytes.drain(i..end);
            }
        }
    }
}

/// At most 3 ring pages of at most 32 items and 8 patches, paddings kept page-sized (the
/// writer zero-fills `len` bytes).
pub(crate) fn bound_pages(
    pages: &[crate::formats::ftrace_ring::writer::PageBuilder],
    ps: u32,
) -> Vec<crate::formats::ftrace_ring::writer::PageBuilder> {
    use crate::formats::ftrace_ring::writer as rw;
    cap(pages.to_vec(), 3)
        .into_iter()
        .map(|mut p| {
            p.items.truncate(32);
            for it in &mut p.items {
                if let rw::Item::Padding { len, .. } = it {
                    *len %= ps.saturating_add(64);
                }
            }
            p.patches.truncate(8);
            p
        })
        .collect()
}

pub(crate) fn cap<T>(mut v: Vec<T>, n: usize) -> Vec<T> {
    v.truncate(n);
    v
}
