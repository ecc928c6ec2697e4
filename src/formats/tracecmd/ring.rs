//! The ring-buffer page walker used for per-CPU data (temporary local stand-in with the
//! walker's interface; replaced by `crate::formats::ftrace_ring`).
#![allow(missing_docs, dead_code)]

use crate::finding::Sink;
use crate::reader::{Endian, Reader};

#[derive(Clone, Debug, Default)]
pub struct EventTable {
    n: usize,
}
impl EventTable {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn insert(&mut self, _id: u32, _name: impl Into<String>, _min: u32) -> bool {
        self.n = self.n.saturating_add(1);
        true
    }
    pub fn len(&self) -> usize {
        self.n
    }
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RingParams {
    pub page_size: u32,
    pub long_size: u8,
    pub endian: Endian,
    pub cpu: u32,
    pub buffer: String,
    pub data_offset: u32,
}
impl RingParams {
    pub fn new(page_size: u32, long_size: u8, endian: Endian, cpu: u32, buffer: impl Into<String>) -> Self {
        let long_size = if long_size == 4 { 4 } else { 8 };
        RingParams { page_size, long_size, endian, cpu, buffer: buffer.into(), data_offset: 8u32.saturating_add(u32::from(long_size)) }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpuStats {
    pub pages: u64,
    pub events: u64,
    pub padding: u64,
    pub time_extends: u64,
    pub time_stamps: u64,
    pub data_bytes: u64,
    pub first_ts: Option<u64>,
    pub last_ts: Option<u64>,
    pub lost_events: u64,
    pub missed_pages: u64,
    pub missed_unknown_pages: u64,
}

#[derive(Debug)]
pub struct Walker<'t> {
    params: RingParams,
    table: &'t EventTable,
    stats: CpuStats,
}
impl<'t> Walker<'t> {
    pub fn new(params: RingParams, table: &'t EventTable) -> Self {
        Walker { params, table, stats: CpuStats::default() }
    }
    pub fn set_context(&mut self, _c: Option<String>) {}
    pub fn page(&mut self, _page: Reader<'_>, _sink: &mut Sink) {
        self.stats.pages = self.stats.pages.saturating_add(1);
    }
    pub fn finish(self, _sink: &mut Sink) -> CpuStats {
        self.stats
    }
}
