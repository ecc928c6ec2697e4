#![no_main]
//! Structure-aware: `tracelint::fuzzing::structured::run_ktrace_structured`.
tracelint_fuzz::target!(tracelint::fuzzing::structured::run_ktrace_structured);
