//! The ftrace ring-buffer page walker used for per-CPU data.

pub use crate::formats::ftrace_ring::{CpuStats, EventTable, RingParams, Walker};
