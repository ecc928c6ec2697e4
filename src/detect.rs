//! What a format is to the layers below the format table: a name. Detection by content (magic
//! numbers and directory shape, never file names) is the table's (`formats::detect_bytes`,
//! `formats::detect_file`, `formats::near_magic`, `formats::detect_dir`).

use serde::Serialize;
use std::fmt;

/// A supported input format, by the name the command line and JSON use (`trace-cmd`). Each
/// format folder declares its own (`formats::tracecmd::FORMAT`); `formats::FORMATS` lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Format(&'static str);

impl Format {
    /// A format named `name` (kebab-case, as `--format` takes it).
    pub const fn new(name: &'static str) -> Format {
        Format(name)
    }

    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        self.0
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl Serialize for Format {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

/// Bytes of a file's start that format detection looks at.
pub const DETECT_BYTES: usize = 16;
