#![no_main]
//! Structure-aware: `tracelint::fuzzing::structured::run_perf_structured`.
tracelint_fuzz::target!(tracelint::fuzzing::structured::run_perf_structured);
