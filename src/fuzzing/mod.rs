//! Entry points and input decoders shared by the fuzz targets and the regression replay test.
//!
//! Every `run_*` function feeds its input through the same entry point the command line uses
//! ([`check_bytes`] / [`check_dir`]) with [`Limits::fuzzing`], and asserts more than "no panic":
//!
//! * every finding's span lies inside the input (for a directory image: inside the named file
//!   of the image; findings about a file that is absent, or about the directory as a whole,
//!   carry an empty span at offset 0);
//! * checking the same input twice gives the same findings (rule codes, files, spans) and the
//!   same structure map; for a directory, so does a third check with the record walkers' fast
//!   paths switched off ([`CheckOptions::fast_paths`]);
//! * the structure map accepts the findings (`attach_findings`) and serialises to JSON.
//!
//! The fuzz targets under `fuzz/` are one-line wrappers around these functions, and
//! `tests/fuzz_regressions.rs` replays every file under `corpus/<fmt>/regressions/` through
//! them, so a crash found by fuzzing stays fixed under a plain `cargo test`.

mod image;
mod invariants;
mod raw;
#[cfg(feature = "fuzzing")]
pub mod structured;

pub use image::*;
pub use invariants::*;
pub use raw::*;

#[cfg(test)]
mod tests;
