#![no_main]
//! Raw bytes through `tracelint::fuzzing::run_gdb_tfile`.
tracelint_fuzz::target!(tracelint::fuzzing::run_gdb_tfile);
