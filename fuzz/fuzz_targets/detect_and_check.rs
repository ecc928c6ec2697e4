#![no_main]
//! Raw bytes through `tracelint::fuzzing::run_detect`.
tracelint_fuzz::target!(tracelint::fuzzing::run_detect);
