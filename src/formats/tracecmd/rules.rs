//! Rules of the trace-cmd trace.dat validator.

crate::declare_rules! {
    family: TraceCmd;
}
