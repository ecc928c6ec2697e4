//! The structure-aware model of perf.data: an `arbitrary` model written by the format's
//! writer, rendered and run.

use super::mutation::*;
use crate::finding::Sink;
use crate::formats::perf::writer as pw;
use crate::fuzzing::fuzz_options;
use crate::fuzzing::raw::*;
use arbitrary::{Arbitrary, Unstructured};

/// A perf.data model.
#[derive(Arbitrary, Debug)]
pub struct PerfModel {
    /// The writer's model.
    pub file: pw::File,
    /// Changes after writing.
    pub mutations: Vec<Mutation>,
}

/// The bytes of a structured perf.data input.
pub fn render_perf(data: &[u8]) -> Option<Vec<u8>> {
    let mut m = PerfModel::arbitrary_take_rest(Unstructured::new(data)).ok()?;
    pw::normalize(&mut m.file);
    let mut bytes = pw::write(&m.file);
    apply(&mut bytes, &m.mutations);
    Some(bytes)
}

/// Structured perf.data: model → writer → mutations → the format's invariants
/// ([`run_format`]); a model written without changes is also decoded and compared with what
/// was written ([`perf_differential`]).
pub fn run_perf_structured(data: &[u8]) {
    let Ok(mut m) = PerfModel::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    pw::normalize(&mut m.file);
    let mut bytes = pw::write(&m.file);
    apply(&mut bytes, &m.mutations);
    run_format(&crate::formats::perf::SPEC, &bytes);
    if m.mutations.is_empty() {
        perf_differential(&m.file, &bytes);
    }
}

/// Decodes `bytes` (written from `file` without changes) and asserts that the walk read
/// every record to the end and found every sample the model wrote.
pub fn perf_differential(file: &pw::File, bytes: &[u8]) {
    let opts = fuzz_options(Some(crate::formats::perf::FORMAT));
    let mut sink = Sink::with_limits(&opts.limits);
    let Some(p) = crate::formats::perf::decode::decode(bytes, &opts.limits, &mut sink) else {
        panic!("a written perf.data does not decode: {:?}", sink.findings());
    };
    assert!(
        p.walk.stopped_at.is_none(),
        "the walk of a written perf.data stopped at {:?}: {:?}",
        p.walk.stopped_at,
        sink.findings()
    );
    assert_eq!(
        p.walk.samples,
        pw::samples(file),
        "decoded samples differ from the model's: {:?}",
        sink.findings()
    );
}
