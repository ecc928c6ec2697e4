//! Global options (`--config`, `--color`) work before and after any subcommand, the
//! `tracelint PATH` shorthand never swallows a subcommand, and the shipped systemd unit's
//! `ExecStart` line runs as written.

#[path = "common/cli.rs"]
mod cli_support;

use cli_support::{bin, cmd, corpus, text};
use std::path::Path;
use std::process::Command;

#[test]
fn global_options_before_a_subcommand_keep_it_a_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("tracelint.toml");
    std::fs::write(&conf, "[rules]\n").unwrap();
    let conf = conf.to_str().unwrap();
    for args in [
        vec!["--color", "never", "rules"],
        vec!["rules", "--color", "never"],
        vec!["--color=never", "rules"],
        vec!["--config", conf, "rules"],
        vec!["--config", conf, "--color", "never", "rules"],
    ] {
        let o = cmd().args(&args).current_dir(dir.path()).output().unwrap();
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
        assert!(
            out.starts_with("code "),
            "{args:?} did not list rules: {out}"
        );
        assert!(out.contains("TL001"), "{args:?}: {out}");
    }
    for args in [
        vec!["--color", "never", "explain", "TL001"],
        vec!["explain", "TL001", "--color", "never"],
    ] {
        let o = cmd().args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o).1);
        assert!(text(&o).0.contains("io-error"));
    }
    // The shorthand still works with global and check options before the path.
    let good = corpus("tracecmd/v6.dat");
    let good = good.to_str().unwrap();
    for args in [
        vec!["--color", "never", good],
        vec!["--config", conf, good],
        vec!["-o", "json", good],
        vec!["--color", "never", "-o", "json", good],
        vec![good, "--color", "never"],
        vec!["--color", "never", "check", good],
        vec!["check", good, "--config", conf, "--color", "never"],
    ] {
        let o = cmd().args(&args).current_dir(dir.path()).output().unwrap();
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {out}{err}");
        assert!(!out.contains("TL001"), "{args:?}: {out}");
        assert!(
            !out.contains("\x1b["),
            "{args:?}: colour with --color never"
        );
    }
    // A bad config given before the subcommand is read (and rejected).
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[rules]\nTD999 = \"allow\"\n").unwrap();
    let o = cmd()
        .args(["--config", bad.to_str().unwrap(), "check", good])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o).1);
}

/// The `ExecStart=` command of the shipped unit, continuation lines joined.
fn exec_start(unit: &str) -> Vec<String> {
    let mut joined = String::new();
    let mut inside = false;
    for line in unit.lines() {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix("ExecStart=") {
            inside = true;
            joined.push_str(rest);
        } else if inside {
            joined.push(' ');
            joined.push_str(l);
        } else {
            continue;
        }
        if joined.ends_with('\\') {
            joined.pop();
        } else {
            break;
        }
    }
    assert!(!joined.is_empty(), "no ExecStart= in the unit");
    joined.split_whitespace().map(str::to_string).collect()
}

#[test]
fn systemd_unit_exec_start_runs() {
    let unit_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/systemd/tracelint-watch.service");
    let unit = std::fs::read_to_string(unit_path).unwrap();
    let argv = exec_start(&unit);
    let tmp = tempfile::tempdir().unwrap();
    let t = |p: &str| tmp.path().join(p).display().to_string();
    for d in ["etc", "spool/new", "log", "metrics"] {
        std::fs::create_dir_all(tmp.path().join(d)).unwrap();
    }
    std::fs::write(tmp.path().join("etc/tracelint.toml"), "[rules]\n").unwrap();
    let subst = [
        ("/usr/bin/tracelint", bin().to_string()),
        ("/etc/tracelint/tracelint.toml", t("etc/tracelint.toml")),
        ("/var/spool/tracelint", t("spool")),
        ("/var/log/tracelint", t("log")),
        ("/var/lib/tracelint/metrics", t("metrics")),
    ];
    let argv: Vec<String> = argv
        .into_iter()
        .map(|a| {
            let mut a = a;
            for (from, to) in &subst {
                if let Some(rest) = a.strip_prefix(from) {
                    a = format!("{to}{rest}");
                }
            }
            assert!(
                !a.starts_with('/') || a.starts_with(&*tmp.path().to_string_lossy()) || a == bin(),
                "unsubstituted path in ExecStart: {a}"
            );
            a
        })
        .collect();
    std::fs::copy(
        corpus("tracecmd/v6.dat"),
        tmp.path().join("spool/new/a.dat"),
    )
    .unwrap();
    std::fs::write(tmp.path().join("spool/new/junk.bin"), b"not a trace at all").unwrap();
    // The unit's environment: TRACELINT_LOG=info; systemd gives no terminal.
    let o = Command::new(&argv[0])
        .args(&argv[1..])
        .arg("--once")
        .env_remove("TRACELINT_CONFIG")
        .env_remove("NO_COLOR")
        .env("TRACELINT_LOG", "info")
        .current_dir(tmp.path().join("etc"))
        .output()
        .unwrap();
    let (_, err) = text(&o);
    assert_eq!(
        o.status.code(),
        Some(0),
        "ExecStart failed: {argv:?}\n{err}"
    );
    assert!(tmp.path().join("spool/accepted/a.dat").exists(), "{err}");
    assert!(tmp.path().join("spool/rejected/junk.bin").exists(), "{err}");
    let events = std::fs::read_to_string(tmp.path().join("log/events.jsonl")).unwrap();
    assert!(events.contains("a.dat"), "{events}");
    assert!(tmp.path().join("metrics/tracelint.prom").exists());
    // The log on a non-terminal stderr carries no colour.
    assert!(
        !err.contains('\x1b'),
        "ANSI codes in the daemon's log: {err:?}"
    );
}

#[test]
fn daemon_log_has_no_colour_unless_asked() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("new")).unwrap();
    std::fs::write(tmp.path().join("new/junk.bin"), b"not a trace at all").unwrap();
    let spool = tmp.path().to_str().unwrap();
    let run = |args: &[&str]| {
        let o = cmd()
            .args(args)
            .env("TRACELINT_LOG", "info")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o).1);
        text(&o).1
    };
    let plain = run(&["watch", spool, "--once"]);
    assert!(!plain.is_empty(), "the daemon logged nothing");
    assert!(!plain.contains('\x1b'), "colour on a pipe: {plain:?}");
    let never = run(&["--color", "never", "watch", spool, "--once"]);
    assert!(
        !never.contains('\x1b'),
        "colour with --color never: {never:?}"
    );
    let always = run(&["watch", spool, "--once", "--color", "always"]);
    assert!(
        always.contains('\x1b'),
        "no colour with --color always: {always:?}"
    );
}
