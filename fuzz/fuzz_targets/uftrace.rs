#![no_main]
//! Raw bytes through `tracelint::fuzzing::run_uftrace`.
tracelint_fuzz::target!(tracelint::fuzzing::run_uftrace);
