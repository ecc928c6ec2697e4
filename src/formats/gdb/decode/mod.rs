//! Bytes to the [`model`](super::model), with spans: [`text`] decodes the header and the
//! definition lines, [`tdesc`] the XML target description, [`frames`] walks the trace frames;
//! [`gdb13`] reads the definition lines as GDB 13 parses them.
//! Findings about malformed input are raised here, as it is read.

pub mod frames;
pub mod gdb13;
pub mod tdesc;
pub mod text;
