//! ftrace ring-buffer pages (not yet implemented).

pub mod rules;
