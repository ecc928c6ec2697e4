//! Rules of the GDB tracepoint file (tfile) validator.

crate::declare_rules! {
    family: GdbTfile;
}
