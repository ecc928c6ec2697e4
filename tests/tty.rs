//! Progress bar and summary on a terminal, never in machine outputs or pipes.
//! Uses util-linux `script` to give the process a pseudo-terminal; skips without it.

#[path = "common/skip.rs"]
mod skip;

use std::path::Path;
use std::process::Command;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_tracelint")
}

fn corpus() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .display()
        .to_string()
}

fn under_pty(args: &str) -> Option<String> {
    let have = Command::new("script").arg("--version").output().is_ok();
    if !have {
        skip::skip_or_fail("util-linux `script` is not installed");
        return None;
    }
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &format!("{} {args}", bin()), "/dev/null"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn progress_and_summary_on_a_terminal() {
    let Some(out) = under_pty(&format!("{} {}", corpus(), corpus())) else {
        return;
    };
    assert!(out.contains(" files "), "no progress bar drawn: {out}");
    assert!(
        out.contains("\x1b[2K"),
        "the progress bar is cleared: {out}"
    );
    assert!(out.contains("checked "), "no summary: {out}");
}

#[test]
fn progress_on_a_terminal_stderr_whatever_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let json_path = dir.path().join("out.json");
    // stdout to a file, stderr on the terminal: progress shows, the JSON file is clean.
    if let Some(out) = under_pty(&format!(
        "-o json {} {} > {}",
        corpus(),
        corpus(),
        json_path.display()
    )) {
        assert!(
            out.contains(" files "),
            "no progress bar with -o json: {out}"
        );
        assert!(out.contains("files/s"), "no rate: {out}");
        // Rates are rounded: no long fractions like 38734.1230/s.
        for w in out.split_whitespace().filter(|w| w.ends_with("/s")) {
            let digits = w.chars().filter(|c| c.is_ascii_digit()).count();
            assert!(digits <= 4, "unrounded rate {w}: {out}");
        }
        let text = std::fs::read_to_string(&json_path).unwrap();
        assert!(!text.contains('\x1b'), "terminal codes in the JSON file");
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(json["summary"]["files"].as_u64().unwrap() > 1);
    }
    // Quiet runs draw nothing.
    if let Some(out) = under_pty(&format!("-q -o json {} {}", corpus(), corpus())) {
        assert!(!out.contains("\x1b[2K"), "progress with --quiet: {out}");
    }
}

#[test]
fn no_progress_in_pipes() {
    let piped = Command::new(bin()).arg(corpus()).output().unwrap();
    let all = [piped.stdout, piped.stderr].concat();
    let text = String::from_utf8_lossy(&all);
    assert!(!text.contains("\x1b[2K"), "progress bar drawn into a pipe");
    assert!(text.contains("checked "), "summary missing in a pipe");
}
