//! The structure-aware model of Darwin ktrace: an `arbitrary` model written by the format's
//! writer, rendered and run.

use super::mutation::*;
use crate::finding::Sink;
use crate::formats::ktrace::model as km;
use crate::formats::ktrace::writer as kw;
use crate::fuzzing::invariants::*;
use crate::fuzzing::raw::*;
use arbitrary::{Arbitrary, Unstructured};

/// A ktrace file model.
#[derive(Arbitrary, Debug)]
pub struct KtraceModel {
    /// The writer's model.
    pub file: kw::File,
    /// Give each chunk the tag its payload kind has.
    pub fix_tags: bool,
    /// Changes after writing.
    pub mutations: Vec<Mutation>,
}

pub(crate) fn ktrace_fix(file: &mut kw::File, fix_tags: bool) {
    if let kw::File::V3(v) = file {
        v.header_chunks.truncate(8);
        v.body.truncate(16);
        if fix_tags {
            for c in v.header_chunks.iter_mut().chain(v.body.iter_mut()) {
                c.tag = match c.payload {
                    kw::Payload::CpuMap(_) | kw::Payload::CpuMapExt(_) => km::TAG_CPU_MAP,
                    kw::Payload::ThreadMap(_) => km::TAG_THREAD_MAP,
                    kw::Payload::Events { .. } => km::TAG_EVENTS,
                    kw::Payload::Bytes(_) => [
                        km::TAG_NULL,
                        km::TAG_HW_MODEL,
                        km::TAG_CONFIG,
                        km::TAG_COMPRESSED_EVENTS,
                        km::TAG_MACHINE,
                        c.tag,
                    ]
                    .get(usize::try_from(c.tag % 6).unwrap_or(0))
                    .copied()
                    .unwrap_or(c.tag),
                };
            }
        }
    }
}

/// The bytes of a structured ktrace input.
pub fn render_ktrace(data: &[u8]) -> Option<Vec<u8>> {
    let mut m = KtraceModel::arbitrary_take_rest(Unstructured::new(data)).ok()?;
    ktrace_fix(&mut m.file, m.fix_tags);
    let mut bytes = kw::write(&m.file);
    apply(&mut bytes, &m.mutations);
    Some(bytes)
}

/// Structured ktrace: model → writer → mutations → [`run_ktrace`]; a model written without
/// changes is also decoded and compared with what was written ([`ktrace_differential`]).
pub fn run_ktrace_structured(data: &[u8]) {
    let Ok(mut m) = KtraceModel::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    ktrace_fix(&mut m.file, m.fix_tags);
    let mut bytes = kw::write(&m.file);
    apply(&mut bytes, &m.mutations);
    run_ktrace(&bytes);
    if m.mutations.is_empty() {
        ktrace_differential(&m.file, &bytes);
    }
}

/// The bytes of a ktrace round-trip input (a writer model, tags fixed, no mutations).
pub fn render_ktrace_roundtrip(data: &[u8]) -> Option<Vec<u8>> {
    let mut file = kw::File::arbitrary_take_rest(Unstructured::new(data)).ok()?;
    ktrace_fix(&mut file, true);
    Some(kw::write(&file))
}

/// Round trip: model → writer → [`run_ktrace`], [`ktrace_differential`] and
/// [`super::run_ktrace_roundtrip_bytes`].
pub fn run_ktrace_roundtrip(data: &[u8]) {
    let Ok(mut file) = kw::File::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    ktrace_fix(&mut file, true);
    let b = kw::write(&file);
    run_ktrace(&b);
    ktrace_differential(&file, &b);
    run_ktrace_roundtrip_bytes(&b);
}

/// What a V3 model says the decoder must find: per chunk (offset, tag, major, minor,
/// length, data span) in file order, and the count of events in body event chunks. `None` when the model breaks
/// the chunk layout on purpose (a length other than the payload size, an unpadded chunk, a
/// header size of its own, bytes after the last chunk) or gives a tag whose payload is
/// decoded (CPU map, thread map, events) a payload of another kind, or for raw (V0-V2)
/// files.
pub fn ktrace_expected(file: &kw::File) -> Option<KtraceExpect> {
    let kw::File::V3(v) = file else {
        return None;
    };
    if v.header.header_size.is_some() || !v.trailing.is_empty() {
        return None;
    }
    let wide = v.header.flags & 1 != 0;
    let mut at: u64 = 56;
    let mut chunks = Vec::new();
    let mut events = 0u64;
    let in_body = std::iter::repeat_n(false, v.header_chunks.len()).chain(std::iter::repeat(true));
    for (c, body) in v.header_chunks.iter().chain(v.body.iter()).zip(in_body) {
        // A tag whose payload is decoded must carry a payload of that kind.
        let kind_ok = match c.tag {
            km::TAG_EVENTS => matches!(c.payload, kw::Payload::Events { .. }),
            km::TAG_THREAD_MAP => matches!(c.payload, kw::Payload::ThreadMap(_)),
            km::TAG_CPU_MAP => matches!(
                c.payload,
                kw::Payload::CpuMap(_) | kw::Payload::CpuMapExt(_)
            ),
            _ => true,
        };
        if !kind_ok {
            return None;
        }
        // Events are read from body chunks of major version 0 or 1 only (a header
        // sub-chunk holds metadata; a newer version's payload is not decoded).
        if let kw::Payload::Events { events: e, .. } = &c.payload {
            if body && c.tag == km::TAG_EVENTS && c.major <= 1 {
                events = events.checked_add(u64::try_from(e.len()).ok()?)?;
            }
        }
        if c.length != kw::LengthMode::Exact || c.pad == kw::PadMode::Omit {
            return None;
        }
        let bare = kw::Chunk {
            pad: kw::PadMode::Omit,
            ..c.clone()
        };
        let len = u64::try_from(kw::chunk_bytes(&bare, wide).len())
            .ok()?
            .checked_sub(16)?;
        let data = at.checked_add(16)?..at.checked_add(16)?.checked_add(len)?;
        chunks.push((at, c.tag, c.major, c.minor, len, data));
        at = at.checked_add(16)?.checked_add(len.next_multiple_of(8))?;
    }
    Some(KtraceExpect { chunks, events })
}

/// The decoded chunks and event count of a V3 file a model describes (see
/// [`ktrace_expected`]).
#[derive(Debug, PartialEq)]
pub struct KtraceExpect {
    /// (offset, tag, major, minor, length field, data span) per chunk, in file order.
    pub chunks: Vec<(u64, u32, u16, u16, u64, std::ops::Range<u64>)>,
    /// Events in event chunks.
    pub events: u64,
}

/// Decodes `bytes` (written from `file` without changes) and asserts that the chunks and
/// the event count are the ones the model wrote.
pub fn ktrace_differential(file: &kw::File, bytes: &[u8]) {
    let Some(want) = ktrace_expected(file) else {
        return;
    };
    let opts = fuzz_options(Some(crate::formats::ktrace::FORMAT));
    let mut sink = Sink::with_limits(&opts.limits);
    let t = crate::formats::ktrace::decode_bytes(bytes, &opts, &mut sink);
    let size = t.event_size();
    let got = KtraceExpect {
        chunks: t
            .all_chunks()
            .iter()
            .map(|c| (c.offset, c.tag, c.major, c.minor, c.length, c.data.clone()))
            .collect(),
        events: t
            .event_runs
            .iter()
            .map(|r| r.span.end.saturating_sub(r.span.start) / size.max(1))
            .sum(),
    };
    assert!(
        got == want,
        "decoded ktrace differs from the model it was written from:\n model: {want:?}\n  read: {got:?}"
    );
}
