#![no_main]
//! Raw bytes through `tracelint::fuzzing::run_perf`.
tracelint_fuzz::target!(tracelint::fuzzing::run_perf);
