#![no_main]
//! Every format of the table (`tracelint::formats::FORMATS`): the first byte picks the format,
//! `tracelint::fuzzing::run_formats`.
tracelint_fuzz::target!(tracelint::fuzzing::run_formats);
