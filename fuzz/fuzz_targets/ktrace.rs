#![no_main]
//! Raw bytes through `tracelint::fuzzing::run_ktrace`.
tracelint_fuzz::target!(tracelint::fuzzing::run_ktrace);
