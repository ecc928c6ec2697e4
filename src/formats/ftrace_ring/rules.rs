//! Rules of the ftrace ring-buffer page walker (shared by trace.dat and uftrace kernel data).

crate::declare_rules! {
    family: TraceCmd;
}
