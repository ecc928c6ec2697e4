//! Shared decoding state: the input, limits, the sink, the decompression budget, and span
//! mapping for bytes that came out of a compressed block.

use super::super::model::Algo;
use super::super::rules;
use super::compress::{DecompError, Decompressor};
use crate::finding::Sink;
use crate::limits::Limits;
use crate::reader::ReadError;
use crate::rule::Rule;
use std::ops::Range;

/// Where bytes being parsed live: directly in the file (spans are exact) or in a decompressed
/// block (every span maps to the compressed block's span in the file).
#[derive(Clone, Debug)]
pub struct Loc {
    /// The file span of the compressed block, when the bytes are decompressed.
    pub block: Option<Range<u64>>,
}

impl Loc {
    /// Bytes read straight from the file.
    pub fn file() -> Self {
        Loc { block: None }
    }
    /// Bytes decompressed from the file span `block`.
    pub fn block(block: Range<u64>) -> Self {
        Loc { block: Some(block) }
    }
    /// The file span of local span `r`.
    pub fn map(&self, r: Range<u64>) -> Range<u64> {
        match &self.block {
            Some(b) => b.clone(),
            None => r,
        }
    }
}

/// Decoding state.
pub struct Ctx<'a, 's> {
    /// The input.
    pub data: &'a [u8],
    /// Limits.
    pub limits: &'a Limits,
    /// Findings.
    pub sink: &'s mut Sink,
    /// Decompressed bytes so far.
    pub decompressed: u64,
    /// Compressed bytes read so far (for the ratio).
    pub compressed: u64,
    /// The decompressor.
    pub dec: Decompressor,
    /// Set once a limit stopped decompression: no more decompression is attempted.
    pub budget_exhausted: bool,
    /// Where CPU data is read from; `None` reads it from `data`. A file source keeps the
    /// mapped pages of multi-GiB ring data out of the process's memory.
    pub cpu_source: Option<&'a dyn crate::input::ByteSource>,
    /// Pages left out of `data` and `cpu_source` (read as zeros) and summarised instead.
    pub sieve: Option<&'a super::pages::SiftedPages>,
    /// The file version once the header is read (0 before): which readers read the file.
    pub version: u32,
    /// Event formats that break before their `common_type` field while libtraceevent keeps
    /// them (rule, id, location, span, message): an error only for the format of the lowest id.
    pub common_type_pending: Vec<(&'static Rule, u32, Loc, Range<u64>, String)>,
    /// Event formats whose name and id libtraceevent reads but whose fields do not parse
    /// (id, `system:name`): it keeps them and prints their records as `[FAILED TO PARSE]`.
    pub unparsed_formats: Vec<(u32, String)>,
    /// While a v6 event format is read: how trace-cmd 2.4 and 2.9.5 fail on it, if they do
    /// (`tep::v2`), and whether a finding about the format said so.
    pub v2_fail: Option<V2Fail>,
    /// Set when a finding carried [`Ctx::v2_fail`].
    pub v2_fail_told: bool,
}

/// How trace-cmd 2.4 and 2.9.5 fail on one event format (`tep::V2`).
#[derive(Clone, Debug)]
pub struct V2Fail {
    /// They hang (else they crash).
    pub hang: bool,
    /// Why, from their parser.
    pub why: String,
    /// Where, in the file.
    pub span: Range<u64>,
}

impl<'a, 's> Ctx<'a, 's> {
    /// New state.
    pub fn new(data: &'a [u8], limits: &'a Limits, sink: &'s mut Sink) -> Self {
        Ctx {
            data,
            limits,
            sink,
            decompressed: 0,
            compressed: 0,
            dec: Decompressor::new(),
            budget_exhausted: false,
            cpu_source: None,
            sieve: None,
            version: 0,
            common_type_pending: Vec::new(),
            unparsed_formats: Vec::new(),
            v2_fail: None,
            v2_fail_told: false,
        }
    }

    /// File length.
    pub fn len(&self) -> u64 {
        self.data.len() as u64
    }

    /// True for an empty input.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Reports `rule` at `span` mapped through `loc`; adds a note when the bytes were
    /// decompressed.
    pub fn report(
        &mut self,
        rule: &'static Rule,
        loc: &Loc,
        span: Range<u64>,
        msg: impl Into<String>,
    ) {
        let f = self.make(rule, loc, span, msg);
        self.sink.push(f);
    }

    /// Builds the finding [`Ctx::report`] records, for leveling it by the case first.
    pub fn make(
        &self,
        rule: &'static Rule,
        loc: &Loc,
        span: Range<u64>,
        msg: impl Into<String>,
    ) -> crate::finding::Finding {
        let f = self.sink.make(rule, loc.map(span.clone()), msg);
        if loc.block.is_some() {
            return f.note(format!(
                "at offset {} of the decompressed block (the span shows the compressed block)",
                span.start
            ));
        }
        f
    }

    /// Reports a read failure as `rule` (usually `TD007 truncated`).
    pub fn read_error(&mut self, rule: &'static Rule, loc: &Loc, err: &ReadError) {
        let span = err.span();
        let span = self.clamp(span);
        self.report(rule, loc, span, err.to_string());
    }

    /// Clamps a span to the file.
    pub fn clamp(&self, r: Range<u64>) -> Range<u64> {
        let len = self.len();
        let s = r.start.min(len);
        s..r.end.min(len).max(s)
    }

    /// Checks that `n` more decompressed bytes fit the per-block and total limits; reports
    /// `TL003` at `span` when not.
    pub fn reserve(&mut self, n: u64, span: Range<u64>) -> bool {
        if self.budget_exhausted {
            return false;
        }
        if n > self.limits.max_section_bytes {
            self.sink.limit(
                self.clamp(span),
                "declared uncompressed block size",
                n,
                "max_section_bytes",
                self.limits.max_section_bytes,
            );
            return false;
        }
        let total = self.decompressed.saturating_add(n);
        if total > self.limits.max_decompressed_bytes {
            self.sink.limit(
                self.clamp(span),
                "total decompressed size",
                total,
                "max_decompressed_bytes",
                self.limits.max_decompressed_bytes,
            );
            self.budget_exhausted = true;
            return false;
        }
        self.decompressed = total;
        true
    }

    /// Reports a section block that decompresses to other than its declared `usize` within
    /// the `cap` = max(usize, csize) bytes trace-cmd decompresses into: readers read the same.
    pub fn usize_only_wrong(
        &mut self,
        span: Range<u64>,
        what: &str,
        n: usize,
        declared: u32,
        cap: u32,
    ) {
        let f = self
            .sink
            .make(
                &rules::DECOMPRESSED_SIZE,
                span,
                format!(
                    "{what} decompresses to {n} bytes, but {declared} are declared; trace-cmd 3.1.6–3.3.4 decompress into max(usize, csize) = {cap} bytes and read the {n} the block holds"
                ),
            )
            .read_same("trace-cmd report", "3.1.6–3.3.4");
        self.sink.push(f);
    }

    /// Reports a section block whose max(usize, csize) is 2^31 or more: trace-cmd 3.1.6–3.3.4
    /// (`tracecmd_uncompress_block`) hold it in an `int`, which is negative, `malloc` fails and
    /// the section is not read. An error, but a warning for the STRINGS section, which readers
    /// ignore when unreadable (campaign `full18`).
    pub fn usize_past_int(
        &mut self,
        span: Range<u64>,
        what: &str,
        (usize_, csize): (u32, u32),
        strings: bool,
    ) {
        let msg = format!(
            "{what}: the larger of usize {usize_} and csize {csize} is 2^31 or more; trace-cmd 3.1.6–3.3.4 hold it in an `int`, which is negative, and cannot allocate the block"
        );
        let f = if strings {
            self.sink
                .make(
                    &rules::DECOMPRESSED_SIZE,
                    span,
                    format!("{msg} (the STRINGS section): they ignore a STRINGS section they cannot read and read the same events"),
                )
                .read_same("trace-cmd report", "3.1.6–3.3.4")
        } else {
            self.sink
                .make(
                    &rules::DECOMPRESSED_SIZE,
                    span,
                    format!("{msg}: the section is lost"),
                )
                .fails("trace-cmd report", "3.1.6–3.3.4", "reject")
        };
        self.sink.push(f);
    }

    /// Decompresses `input` (file span `span`) into `out`, whose length is the declared size.
    /// Reports `TD017`/`TD018` and returns `false` when it does not produce exactly that.
    pub fn decompress(
        &mut self,
        algo: Algo,
        input: &[u8],
        out: &mut [u8],
        span: Range<u64>,
        what: &str,
    ) -> bool {
        self.compressed = self.compressed.saturating_add(input.len() as u64);
        let len = self.len();
        decompress_report(&mut self.dec, self.sink, len, algo, input, out, span, what)
    }
}

/// Decompresses `input` (file span `span`) into `out`, whose length is the declared size;
/// reports `TD017`/`TD018` into `sink` and returns `false` when it does not produce exactly that.
#[allow(clippy::too_many_arguments)]
pub fn decompress_report(
    dec: &mut Decompressor,
    sink: &mut Sink,
    file_len: u64,
    algo: Algo,
    input: &[u8],
    out: &mut [u8],
    span: Range<u64>,
    what: &str,
) -> bool {
    let s = span.start.min(file_len);
    let span = s..span.end.min(file_len).max(s);
    let declared = out.len();
    match dec.decompress(algo, input, out) {
        Ok(n) if n == declared => true,
        Ok(n) | Err(DecompError::Incomplete(n)) => {
            let f = sink
                .make(
                    &rules::DECOMPRESSED_SIZE,
                    span,
                    format!("{what} decompresses to {n} bytes, but {declared} are declared"),
                )
                .help("the declared uncompressed size must equal what the block produces");
            sink.push(f);
            false
        }
        Err(DecompError::TooLarge) => {
            sink.report(
                &rules::DECOMPRESSED_SIZE,
                span,
                format!("{what} decompresses to more than the {declared} bytes declared"),
            );
            false
        }
        Err(DecompError::Failed(m)) => {
            sink.report(
                &rules::DECOMPRESS_FAILED,
                span,
                format!(
                    "{what} ({} {} bytes) does not decompress: {m}",
                    algo.name(),
                    input.len()
                ),
            );
            false
        }
    }
}
