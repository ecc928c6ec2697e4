//! The command line's parts: what a run checks, the demo, writing the output, and the
//! arguments of `watch`.

pub mod demo;
pub mod fix;
pub mod inputs;
pub mod man;
pub mod output;
pub mod stream;
pub mod watch;
