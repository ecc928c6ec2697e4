//! Exit codes and totals, each run through the built binary: the verdict agrees with the exit
//! code, `--max-findings` caps the listing and never the totals, output and spill failures are
//! I/O failures (exit 3) said on stderr, an unreadable directory is `TL001`, `-` on a terminal
//! says it is waiting, and a mistyped subcommand gets a suggestion.

#[path = "common/cli.rs"]
mod cli_support;

use cli_support::{bin, cmd, corpus, text};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

#[path = "common/skip.rs"]
mod skip;

use skip::skip_or_fail as skip;

/// A warning and no error (a ktrace file with a CPU map of an unknown major version).
const WARNING_ONLY: &str = "ktrace/regressions/roundtrip-cpumap-unknown-major.ktrace";

#[test]
fn deny_warnings_says_fail_where_it_exits_1() {
    let f = corpus(WARNING_ONLY);
    let o = cmd().arg("-o").arg("json").arg(&f).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["files"][0]["verdict"], "pass");
    assert!(v["files"][0]["counts"]["warning"].as_u64().unwrap() > 0);

    let o = cmd()
        .args(["--deny", "warnings", "-o", "json"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["files"][0]["verdict"], "fail");
    assert_eq!(v["summary"]["failed"], 1);
    assert_eq!(v["summary"]["passed"], 0);

    let o = cmd()
        .args(["-D", "warnings", "-o", "jsonl"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o).0.contains("\"verdict\":\"fail\""),
        "{}",
        text(&o).0
    );

    let o = cmd()
        .args(["--deny", "warnings", "--color", "never"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let (out, _) = text(&o);
    assert!(out.contains(": fail ("), "{out}");
    assert!(!out.contains(": pass ("), "{out}");
    assert!(out.contains("0 passed, 1 failed"), "{out}");
}

fn summary(args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let o = cmd()
        .args(["-o", "json"])
        .args(args)
        .arg(corpus(""))
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    (o.status.code(), v)
}

#[test]
fn max_findings_caps_the_listing_not_the_totals() {
    let (code, all) = summary(&[]);
    for n in ["1", "2", "5"] {
        let (capped_code, capped) = summary(&["--max-findings", n]);
        assert_eq!(capped_code, code, "--max-findings {n}");
        let (s, c) = (&all["summary"], &capped["summary"]);
        for k in ["files", "passed", "failed", "unreadable"] {
            assert_eq!(s[k], c[k], "--max-findings {n}: {k}");
        }
        assert_eq!(
            s["findings"]["error"], c["findings"]["error"],
            "--max-findings {n}"
        );
        assert_eq!(
            s["findings"]["warning"], c["findings"]["warning"],
            "--max-findings {n}"
        );
        // Every code keeps its count; only the note that findings were cut is added.
        let mut by_code = c["by_code"].as_object().unwrap().clone();
        assert!(by_code.remove("TL006").is_some(), "--max-findings {n}");
        assert_eq!(
            &by_code,
            s["by_code"].as_object().unwrap(),
            "--max-findings {n}"
        );
        // Per input too: verdicts and counts of errors and warnings, listing at most n + 1.
        let limit: usize = n.parse().unwrap();
        for (a, b) in all["files"]
            .as_array()
            .unwrap()
            .iter()
            .zip(capped["files"].as_array().unwrap())
        {
            assert_eq!(a["path"], b["path"]);
            assert_eq!(a["verdict"], b["verdict"], "{}", a["path"]);
            assert_eq!(a["counts"]["error"], b["counts"]["error"], "{}", a["path"]);
            assert_eq!(
                a["counts"]["warning"], b["counts"]["warning"],
                "{}",
                a["path"]
            );
            assert!(b["findings"].as_array().unwrap().len() <= limit + 1);
        }
    }
}

#[test]
fn a_full_disk_for_the_report_is_exit_3_with_a_message() {
    if !Path::new("/dev/full").exists() {
        return skip("/dev/full is missing");
    }
    for args in [
        vec!["--color", "never"],
        vec!["-o", "json"],
        vec!["-o", "jsonl"],
        vec!["-o", "sarif"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = cmd()
            .args(&args)
            .arg(corpus("tracecmd/v6.dat"))
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(3), "{args:?}");
        let (_, err) = text(&o);
        assert!(err.starts_with("error: cannot write"), "{args:?}: {err}");
    }
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let o = cmd().arg("rules").stdout(full).output().unwrap();
    assert_eq!(o.status.code(), Some(3));
    assert!(text(&o).1.starts_with("error: cannot write"));
}

#[test]
fn a_closed_pipe_ends_quietly_with_the_verdicts_exit_code() {
    for (file, want) in [
        ("tracecmd/v6.dat", 0),
        ("gdb/defects/circular-corrupt.tf", 1),
    ] {
        let mut child = cmd()
            .args(["--color", "never"])
            .arg(corpus(file))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before anything is written.
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(want), "{file}");
        assert_eq!(text(&o).1, "", "{file}: nothing on stderr");
    }
}

#[test]
fn a_stdin_spill_that_cannot_be_written_is_exit_3() {
    // The spill is cut by a file-size limit (EFBIG, the same path as ENOSPC): SIGXFSZ is
    // ignored, so the write fails instead of killing the process.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("tracelint.toml"),
        "[limits]\nunpack_memory_bytes = 4096\n",
    )
    .unwrap();
    let input = corpus("tracecmd/full-meta-v7-zstd.dat");
    assert!(std::fs::metadata(&input).unwrap().len() > 256 * 1024);
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f 64 && cat '{}' | exec '{}' -",
            input.display(),
            bin()
        ))
        .env("TMPDIR", dir.path())
        .current_dir(dir.path())
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(3), "{out}{err}");
    assert!(out.contains("error[TL001]"), "{out}");
    assert!(out.contains("-: unreadable"), "{out}");
    // The same input with room for the spill passes.
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!("cat '{}' | exec '{}' -", input.display(), bin()))
        .env("TMPDIR", dir.path())
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).0);
    // Redirected from the file, standard input is read in place: no spill, so the limit on
    // the spill's size does not matter, and the report is the named file's under `-`.
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f 64 && exec '{}' check -o json - < '{}'",
            bin(),
            input.display()
        ))
        .env("TMPDIR", dir.path())
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).0);
    let named = cmd()
        .args(["check", "-o", "json"])
        .arg(&input)
        .output()
        .unwrap();
    let strip = |o: &Output| {
        let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let f = &mut v["files"][0];
        f["path"] = serde_json::Value::Null;
        f.clone()
    };
    assert_eq!(strip(&o), strip(&named));
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "only the config"
    );
}

#[test]
fn an_unreadable_directory_is_tl001_exit_3() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    // Everyone may reach it, nobody may list `locked/`.
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::copy(corpus("tracecmd/v6.dat"), locked.join("x.dat")).unwrap();
    std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    // Root reads any directory: run as `nobody` then.
    let root = std::fs::read_dir(&locked).is_ok();
    let mut c = if root {
        if Command::new("setpriv").arg("--version").output().is_err() {
            std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o755))
                .unwrap();
            return skip("running as root without setpriv to drop privileges");
        }
        let mut c = Command::new("setpriv");
        c.args([
            "--reuid",
            "65534",
            "--regid",
            "65534",
            "--clear-groups",
            bin(),
        ]);
        c
    } else {
        Command::new(bin())
    };
    let o = c
        .env_remove("TRACELINT_CONFIG")
        .args(["--color", "never"])
        .arg(&locked)
        .current_dir(dir.path())
        .output()
        .unwrap();
    std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(3), "{out}{err}");
    assert!(out.contains("error[TL001]"), "{out}");
    assert!(!out.contains("TL002"), "{out}");
    assert!(!out.contains("TL008"), "{out}");
}

#[test]
fn dash_on_a_terminal_is_refused_with_exit_2() {
    if Command::new("script").arg("--version").output().is_err() {
        return skip("util-linux `script` is not installed");
    }
    // `script` gives the process a terminal (and `-e` its exit code).
    for args in ["-", "check -", "map -"] {
        let o = Command::new("script")
            .args(["-q", "-e", "-c", &format!("{} {args}", bin()), "/dev/null"])
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let (out, _) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args}: {out}");
        assert!(
            out.contains("standard input is a terminal"),
            "{args}: {out}"
        );
    }
    // Not on a pipe or a redirection.
    let o = cmd()
        .arg("-")
        .stdin(std::fs::File::open(corpus("tracecmd/v6.dat")).unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(text(&o).1, "");
}

#[test]
fn a_mistyped_subcommand_gets_a_suggestion() {
    let dir = tempfile::tempdir().unwrap();
    for (word, sub) in [
        ("chek", "check"),
        ("mapp", "map"),
        ("rulse", "rules"),
        ("wacth", "watch"),
    ] {
        let o = cmd().arg(word).current_dir(dir.path()).output().unwrap();
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{word}: {out}{err}");
        assert!(
            err.contains(&format!("did you mean `{sub}`?")),
            "{word}: {err}"
        );
        assert!(!out.contains("TL001"), "{word}: {out}");
    }
    // A missing path that is no typo stays a missing file (TL001, exit 3).
    let o = cmd()
        .arg("nothing-here.dat")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
    assert!(text(&o).0.contains("TL001"));
    // An existing file of that name is checked.
    std::fs::copy(corpus("tracecmd/v6.dat"), dir.path().join("chek")).unwrap();
    let o = cmd().arg("chek").current_dir(dir.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    assert!(text(&o).0.contains("chek: pass"));
}

/// Feeds `byte` (or pseudo-random bytes) to `tracelint -` without end, until it stops reading.
fn endless_stdin(random: bool, dir: &Path) -> (Output, u64) {
    let mut child = cmd()
        .args(["--color", "never", "-"])
        .current_dir(dir)
        .env("TMPDIR", dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let mut block = vec![0u8; 1 << 16];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut sent = 0u64;
        loop {
            if random {
                for b in block.iter_mut() {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    *b = x as u8;
                }
            }
            // Ends when tracelint closes its standard input (exits).
            if stdin.write_all(&block).is_err() {
                return sent;
            }
            sent += block.len() as u64;
        }
    });
    let o = child.wait_with_output().unwrap();
    (o, writer.join().unwrap())
}

#[test]
fn endless_or_random_stdin_stops_at_its_first_bytes_without_a_spill() {
    let dir = tempfile::tempdir().unwrap();
    // A spill of even one byte would be a TL003 finding.
    std::fs::write(
        dir.path().join("tracelint.toml"),
        "[limits]\nmax_spill_bytes = 1\n",
    )
    .unwrap();
    for random in [false, true] {
        let (o, sent) = endless_stdin(random, dir.path());
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{out}{err}");
        assert!(out.contains("error[TL002]"), "{out}");
        assert!(out.contains("judged from its first 512 bytes"), "{out}");
        assert!(!out.contains("TL003"), "{out}");
        // Far less than the 8 MiB a member may keep in memory was taken.
        assert!(sent < 8 << 20, "{sent} bytes were read");
    }
}

#[test]
fn a_compressed_stream_of_zeros_is_judged_without_unpacking_it() {
    if Command::new("gzip").arg("--version").output().is_err() {
        return skip("gzip is not installed");
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("tracelint.toml"),
        "[limits]\nmax_spill_bytes = 1\nunpack_memory_bytes = 4096\n",
    )
    .unwrap();
    let gz = dir.path().join("z.gz");
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "head -c 67108864 /dev/zero | gzip -1 > '{}'",
            gz.display()
        ))
        .status()
        .unwrap();
    assert!(status.success());
    let o = cmd()
        .args(["--color", "never"])
        .arg(&gz)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("error[TL002]"), "{out}");
    assert!(out.contains("z.gz!z:0x0"), "{out}");
    assert!(!out.contains("TL003"), "no spill, no limit hit: {out}");
    // With the format forced, the stream is unpacked whole (and here hits the spill limit).
    let o = cmd()
        .args(["--color", "never", "--format-hint", "gdb-tfile"])
        .arg(&gz)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(text(&o).0.contains("TL003"), "{}", text(&o).0);
}
