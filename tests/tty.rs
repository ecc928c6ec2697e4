//! Progress bar and summary on a terminal, never in machine outputs or pipes.
//! Uses util-linux `script` to give the process a pseudo-terminal; skips without it.

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
        eprintln!("skipping: util-linux `script` is not installed");
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
fn no_progress_in_machine_output_or_pipes() {
    if let Some(out) = under_pty(&format!("-o json {}", corpus())) {
        assert!(!out.contains(" files "), "progress bar in JSON output");
        assert!(!out.contains("\x1b[2K"));
        let start = out.find('{').unwrap();
        let json: serde_json::Value = serde_json::from_str(out[start..].trim()).unwrap();
        assert!(json["summary"]["files"].as_u64().unwrap() > 1);
    }
    let piped = Command::new(bin()).arg(corpus()).output().unwrap();
    let all = [piped.stdout, piped.stderr].concat();
    let text = String::from_utf8_lossy(&all);
    assert!(!text.contains("\x1b[2K"), "progress bar drawn into a pipe");
    assert!(text.contains("checked "), "summary missing in a pipe");
}
