//! Running the built `tracelint` binary from a test: the command with the environment that
//! would change its output removed, corpus paths, and the output as text.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_tracelint")
}

/// A command running the binary, without `TRACELINT_CONFIG` and `NO_COLOR` from the caller's
/// environment.
pub fn cmd() -> Command {
    let mut c = Command::new(bin());
    c.env_remove("TRACELINT_CONFIG").env_remove("NO_COLOR");
    c
}

/// A path under `corpus/`.
pub fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(rel)
}

/// Standard output and standard error as text.
pub fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}
