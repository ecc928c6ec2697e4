#![no_main]
//! Raw bytes as a stream (standard input): compression layers, tar and zip,
//! `tracelint::fuzzing::run_archive`.
tracelint_fuzz::target!(tracelint::fuzzing::run_archive);
