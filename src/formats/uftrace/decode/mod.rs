//! One module per file kind of a recording, each decoding its bytes into a typed model with
//! byte spans and reporting structural findings: [`info`], [`task`] (`task.txt`), [`maps`]
//! (`sid-*.map`), [`sym`], [`dbg`](mod@dbg), [`argspec`] (argument specs of `info` and `.dbg`),
//! [`perf`] (`perf-cpuN.dat`), [`kernel`] (the kernel ring files and the smaller text files),
//! [`record`] (the 16-byte record of a task file), [`runs`] (a first pass over a task file that
//! needs no other file), and [`text`], the line helpers they share.

pub mod argspec;
pub mod dbg;
pub mod info;
pub mod kernel;
pub mod maps;
pub mod perf;
pub mod record;
pub mod runs;
pub mod sym;
pub mod task;
pub mod text;
