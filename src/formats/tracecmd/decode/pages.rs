//! The pages a [`PageSieve`] left out of an unpacked trace.dat, with their summaries: what the
//! CPU walk reads instead of the bytes, and the checks that tell whether the guess held.
//!
//! [`PageSieve`]: super::sieve::PageSieve

use crate::formats::ftrace_ring::{EventTable, PageSummary, RingParams};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Event ids are `u16`.
const IDS: usize = 1 << 16;

/// The summarised pages of one unpacked trace.dat.
#[derive(Default)]
pub struct SiftedPages {
    /// The page layout guessed from the file header; `None` until it is read (or when the
    /// header is not usable, in which case nothing is sifted).
    params: Option<RingParams>,
    /// Summaries of the pages left out, by ascending offset.
    pages: Vec<(u64, PageSummary)>,
    /// Shortest payload seen per event id in a summarised page (`u32::MAX`: not seen).
    min_payload: Vec<u32>,
    /// Summaries taken by CPU walks.
    taken: AtomicUsize,
    /// Which summaries were taken (made at the first take, once sifting is over).
    taken_flags: OnceLock<Vec<AtomicBool>>,
    /// Set when a walk met a summary it could not take.
    spoiled: AtomicBool,
}

impl SiftedPages {
    /// The page layout pages are sifted with, once guessed.
    pub fn params(&self) -> Option<&RingParams> {
        self.params.as_ref()
    }

    /// Sets the page layout guessed from the file header.
    pub fn set_params(&mut self, params: Option<RingParams>) {
        self.params = params;
    }

    /// Records the page at `off` as left out, with its summary and the (event id, payload
    /// length) of its records.
    pub fn push(&mut self, off: u64, summary: PageSummary, seen: &[(u16, u32)]) {
        // Only a page left out counts: a stored page is walked for real.
        if self.min_payload.is_empty() {
            self.min_payload.resize(IDS, u32::MAX);
        }
        for &(id, len) in seen {
            if let Some(m) = self.min_payload.get_mut(usize::from(id)) {
                *m = (*m).min(len);
            }
        }
        self.pages.push((off, summary));
    }

    /// Pages left out with a summary.
    pub fn summarized(&self) -> usize {
        self.pages.len()
    }

    /// The summary of the page at `off`, walked with `params`; `None` when the page was
    /// stored. A summary made for another layout spoils the sieve.
    pub fn take(&self, off: u64, params: &RingParams) -> Option<&PageSummary> {
        let i = self.pages.binary_search_by_key(&off, |(o, _)| *o).ok()?;
        let s = self.pages.get(i).map(|(_, s)| s)?;
        let same = self.params.as_ref().is_some_and(|p| {
            p.page_size == params.page_size
                && p.long_size == params.long_size
                && p.endian == params.endian
                && p.data_offset == params.data_offset
        });
        if !same {
            self.spoiled.store(true, Ordering::Relaxed);
            return None;
        }
        // Each page counts once, however often it is asked for.
        let flags = self
            .taken_flags
            .get_or_init(|| self.pages.iter().map(|_| AtomicBool::new(false)).collect());
        if flags
            .get(i)
            .is_some_and(|f| !f.swap(true, Ordering::Relaxed))
        {
            self.taken.fetch_add(1, Ordering::Relaxed);
        }
        Some(s)
    }

    /// Offset of the first summarised page at or after `off`.
    pub fn next_from(&self, off: u64) -> Option<u64> {
        let i = self.pages.partition_point(|(o, _)| *o < off);
        self.pages.get(i).map(|(o, _)| *o)
    }

    /// Spoils the sieve when a summarised page overlaps one of `spans`: bytes the metadata was
    /// decoded from, or that a finding points at, were read as zeros there.
    pub fn check_spans(&self, spans: impl IntoIterator<Item = Range<u64>>) {
        let Some(ps) = self.params.as_ref().map(|p| u64::from(p.page_size)) else {
            return;
        };
        for r in spans {
            // The first page ending after the span starts.
            let i = self
                .pages
                .partition_point(|(o, _)| o.saturating_add(ps) <= r.start);
            let hit = self.pages.get(i).is_some_and(|(o, _)| {
                *o < r.end || (r.start == r.end && *o <= r.start && r.start < o.saturating_add(ps))
            });
            if hit {
                self.spoil();
                return;
            }
        }
    }

    /// Checks the ids seen in summarised pages against the event formats: an id without a
    /// format, or a payload shorter than its format, would have given a finding.
    pub fn check_ids(&self, table: &EventTable) {
        if table.is_empty() {
            return;
        }
        for (id, &m) in self.min_payload.iter().enumerate() {
            if m == u32::MAX {
                continue;
            }
            let ok = u32::try_from(id)
                .ok()
                .and_then(|id| table.get(id))
                .is_some_and(|info| m >= info.min_payload);
            if !ok {
                self.spoiled.store(true, Ordering::Relaxed);
                return;
            }
        }
    }

    /// Marks the pages as not seen, so the input is checked again without it.
    pub fn spoil(&self) {
        self.spoiled.store(true, Ordering::Relaxed);
    }

    /// True when the check that used this sieve saw every left-out page as it was: each
    /// summary was taken by a CPU walk with the guessed layout, and the event ids fit.
    pub fn complete(&self) -> bool {
        !self.spoiled.load(Ordering::Relaxed)
            && self.taken.load(Ordering::Relaxed) == self.pages.len()
    }
}
