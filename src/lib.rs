//! tracelint: a strict validating parser and linter for binary trace files.
//!
//! Four formats: trace-cmd `trace.dat` (v6, v7), uftrace data directories, Darwin ktrace /
//! kdebug (V3 chunked, raw V1/V1+/V2, V0 by hint) and GDB tracepoint files. Each decoder reads
//! bytes only through [`reader::Reader`], builds a model with byte spans, and reports
//! [`finding::Finding`]s with stable rule codes from the [`registry`].
//!
//! The entry points are [`check::check_path`] (a file or directory on disk) and
//! [`check::check_bytes`] / [`check::check_dir`] (in-memory input, used by the fuzz targets).
#![deny(missing_docs)]

pub mod archive;
pub mod check;
pub mod config;
pub mod detect;
pub mod finding;
pub mod fix;
pub mod formats;
#[cfg(any(test, feature = "testkit"))]
#[doc(hidden)]
pub mod fuzzing;
pub mod input;
pub mod ledger;
pub mod limits;
pub mod map;
pub mod options;
pub mod program;
pub mod reader;
pub mod registry;
pub mod report;
pub mod rule;
pub mod rules;
#[cfg(feature = "cli")]
pub mod watch;

pub use check::{check_bytes, check_dir, check_path, CheckOptions, Report};
pub use finding::{Finding, Severity, Sink};
pub use limits::Limits;
