//! Rules of the Darwin ktrace / kdebug validator.

crate::declare_rules! {
    family: Ktrace;
}
