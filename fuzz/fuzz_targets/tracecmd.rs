#![no_main]
//! Raw bytes through `tracelint::fuzzing::run_tracecmd`.
tracelint_fuzz::target!(tracelint::fuzzing::run_tracecmd);
