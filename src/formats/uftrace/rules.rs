//! Rules of the uftrace data directory validator.

crate::declare_rules! {
    family: Uftrace;
}
