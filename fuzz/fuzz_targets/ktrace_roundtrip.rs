#![no_main]
//! Structure-aware: `tracelint::fuzzing::structured::run_ktrace_roundtrip`.
tracelint_fuzz::target!(tracelint::fuzzing::structured::run_ktrace_roundtrip);
