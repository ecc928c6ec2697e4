#![no_main]
//! Raw bytes written to a temporary file and checked through `check_path` (mapped and read),
//! as the command line does: `tracelint::fuzzing::run_check_path`.
tracelint_fuzz::target!(tracelint::fuzzing::run_check_path);
