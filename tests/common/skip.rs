//! The one way a test says it cannot run here.

/// A test (or a part of one) that cannot run here says why; in CI (`CI=true`), where `.ci/run`
/// provides every tool, sample and reader, that is a failure instead.
pub fn skip_or_fail(why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
        panic!("CI=true but {why}");
    }
    eprintln!("skipping: {why}");
}
