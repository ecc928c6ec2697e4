//! The one way a test says it cannot run here.

use std::io::Write;

/// A test (or a part of one) that cannot run here says why; in CI (`CI=true`), where `.ci/run`
/// provides every tool, sample and reader, that is a failure instead.
///
/// The test harness captures what a passing test prints, so the reason is also appended, as
/// one line naming the test, to the file `TRACELINT_SKIP_LOG` names: `scripts/test.sh` sets it
/// and lists the skips after the summary.
pub fn skip_or_fail(why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
        panic!("CI=true but {why}");
    }
    record_skip(why);
}

/// A test that cannot run on this machine for a reason CI cannot change either (the file
/// systems it was given): says why and records it like [`skip_or_fail`], without failing.
#[allow(dead_code)] // not every test binary has such a test
pub fn record_skip(why: &str) {
    eprintln!("skipping: {why}");
    let Some(log) = std::env::var_os("TRACELINT_SKIP_LOG") else {
        return;
    };
    let line = format!("{}: {}\n", test_name(), why.replace('\n', " "));
    // One `write` of an O_APPEND file: lines of tests running at once do not interleave.
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = written {
        panic!("cannot record the skip in {}: {e}", log.to_string_lossy());
    }
}

/// The running test: nextest names it in the environment, libtest in the thread's name.
fn test_name() -> String {
    let bin = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .map(|s| s.rsplit_once('-').map_or(s.clone(), |(b, _)| b.to_string()))
        .unwrap_or_default();
    let test = std::env::var("NEXTEST_TEST_NAME")
        .ok()
        .or_else(|| std::thread::current().name().map(str::to_string))
        .unwrap_or_default();
    format!("{bin}::{test}")
}
