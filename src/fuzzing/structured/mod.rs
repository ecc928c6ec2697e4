//! Structure-aware inputs: an `arbitrary` model of a mostly-valid file, written by the format's
//! writer, then optionally changed at chosen offsets. `render_*` returns the bytes the
//! matching `run_*` function is given (commit those as regression files); `run_*_structured`
//! renders and runs.

mod archive;
mod gdb;
mod ktrace;
mod mutation;
mod perf;
mod tracecmd;
mod uftrace;

pub use archive::*;
pub use gdb::*;
pub use ktrace::*;
pub use mutation::{apply, Mutation};
pub use perf::*;
pub use tracecmd::*;
pub use uftrace::*;

/// A function turning a structure-aware input into the bytes its `run_*` function sees.
pub type Render = fn(&[u8]) -> Option<Vec<u8>>;

/// The rendering function of a structure-aware target, by target name.
pub fn renderer_for(target: &str) -> Option<Render> {
    match target {
        "ktrace_structured" => Some(render_ktrace),
        "ktrace_roundtrip" => Some(render_ktrace_roundtrip),
        "gdb_structured" => Some(render_gdb),
        "uftrace_structured" => Some(render_uftrace),
        "tracecmd_structured" => Some(render_tracecmd),
        "archive_structured" => Some(render_archive),
        "perf_structured" => Some(render_perf),
        _ => None,
    }
}
