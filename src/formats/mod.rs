//! Format decoders. Each decodes its input into a typed model with byte spans, reports findings
//! into a [`Sink`](crate::finding::Sink) and returns a structure map.

pub mod ftrace_ring;
pub mod gdb;
pub mod ktrace;
pub mod tracecmd;
pub mod uftrace;
