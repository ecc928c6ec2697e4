#![no_main]
//! Raw bytes of perf.data (file and pipe mode) through `tracelint::fuzzing::run_format`.

fn run(data: &[u8]) {
    tracelint::fuzzing::run_format(&tracelint::formats::perf::SPEC, data);
}

tracelint_fuzz::target!(run);
