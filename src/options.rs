//! How one input is checked: [`CheckOptions`] (limits, format hint, byte order, load mode).
//!
//! On the ground floor so that every format can take the options without depending on
//! [`check`](crate::check), the entry point that dispatches to the formats.

use crate::detect::Format;
use crate::input::LoadMode;
use crate::limits::Limits;
use crate::reader::Endian;

/// Options for checking one input.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Resource limits.
    pub limits: Limits,
    /// Forced format (`--format-hint`); detection by content otherwise.
    pub format_hint: Option<Format>,
    /// Forced byte order for formats that do not record it (GDB tfile).
    pub endian: Option<Endian>,
    /// How files are brought into memory.
    pub load_mode: LoadMode,
    /// Let record walkers take their fast paths (uftrace task data: runs of well-formed
    /// records handled in a tight loop). With `false` every record takes the full path; the
    /// findings must be the same either way, which the tests and fuzz targets check.
    pub fast_paths: bool,
    /// The input's own file name when the path checked is a renamed copy (the spool daemon's
    /// claimed files): a compressed file's content is named after it (`x.dat.gz` → `x.dat`).
    pub input_name: Option<String>,
    /// The program the traces were recorded from (`--program`, `[check] program`): a GDB
    /// tfile's tracepoints are checked against it as GDB re-creates them.
    pub program: Option<std::sync::Arc<crate::program::Program>>,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            limits: Limits::default(),
            format_hint: None,
            endian: None,
            load_mode: LoadMode::Mmap,
            fast_paths: true,
            input_name: None,
            program: None,
        }
    }
}
