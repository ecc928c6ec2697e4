//! Human output: greppable headings (`error[CODE]: message`, then ` --> path:offset`), golden
//! reports (insta snapshots) for one finding of each format, repeats folded, info findings only
//! with `--verbose`, and the summary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(args)
        .current_dir(dir)
        .env_remove("TRACELINT_CONFIG")
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// The plain uftrace recording with every second record's timestamp moved back: nine
/// identical findings of one rule.
fn uftrace_with_repeats(dir: &Path) -> PathBuf {
    let d = dir.join("repeats.uftrace");
    copy_dir(&corpus().join("uftrace/plain"), &d);
    let dat = d.join("13424.dat");
    let mut b = std::fs::read(&dat).unwrap();
    let mut i = 16;
    while i + 8 <= b.len() {
        let ts = u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        b[i..i + 8].copy_from_slice(&(ts - 0x10_0000).to_le_bytes());
        i += 32;
    }
    std::fs::write(&dat, b).unwrap();
    d
}

/// The findings part of a human report (the summary's timing varies).
fn findings_part(out: &str) -> String {
    out.lines()
        .take_while(|l| !l.starts_with("checked "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn golden_human_report_per_format() {
    let tmp = tempfile::tempdir().unwrap();
    // uftrace: a recording whose `info` magic is damaged is still checked as uftrace.
    let uf = tmp.path().join("damaged.uftrace");
    copy_dir(&corpus().join("uftrace/plain"), &uf);
    let mut info = std::fs::read(uf.join("info")).unwrap();
    info[0] = b'X';
    std::fs::write(uf.join("info"), info).unwrap();
    let uf_out = run_in(tmp.path(), &["check", "damaged.uftrace"]);
    assert_eq!(uf_out.status.code(), Some(1), "{}", stdout(&uf_out));
    insta::assert_snapshot!("uftrace", findings_part(&stdout(&uf_out)));

    let c = corpus();
    for (name, file, args) in [
        (
            "gdb",
            "gdb/defects/circular-corrupt.tf",
            vec!["-A", "GT019", "-A", "GT058", "-A", "GT055", "-A", "GT038"],
        ),
        // Its one finding is an info (a writer quirk): `-v` shows it.
        ("trace-cmd", "tracecmd/v7-zstd.dat", vec!["-v"]),
        (
            "ktrace",
            "ktrace/regressions/roundtrip-cpumap-unknown-major.ktrace",
            vec![],
        ),
    ] {
        let mut a = vec!["check", file];
        a.extend(args);
        let o = run_in(&c, &a);
        let text = findings_part(&stdout(&o));
        let headings = text
            .lines()
            .filter(|l| {
                l.starts_with("error[") || l.starts_with("warning[") || l.starts_with("info[")
            })
            .count();
        assert_eq!(headings, 1, "{name}: one finding: {text}");
        insta::assert_snapshot!(name, text);
    }
}

#[test]
fn findings_are_greppable_like_rustc() {
    let o = run_in(&corpus(), &["gdb/defects/circular-corrupt.tf"]);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    let errors: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("error["))
        .collect();
    assert!(!errors.is_empty(), "{out}");
    for i in errors {
        let l = lines[i];
        assert!(l.starts_with("error[GT") && l.contains("]: "), "{l}");
        let loc = lines[i + 1];
        assert!(
            loc.starts_with(" --> gdb/defects/circular-corrupt.tf:0x"),
            "location line after {l}: {loc}"
        );
    }
    assert!(
        out.lines().any(|l| l.starts_with("warning[GT019]: ")),
        "{out}"
    );
}

/// Folded findings of a directory input spread over several of its files name each place as
/// `file:offset`.
#[test]
fn repeats_in_several_files_name_each_file() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("headless.uftrace");
    copy_dir(&corpus().join("uftrace/plain"), &d);
    let mut syms = 0;
    for e in std::fs::read_dir(&d).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "sym") {
            let text = std::fs::read_to_string(&p).unwrap();
            let body: String = text
                .lines()
                .filter(|l| !l.starts_with("# "))
                .map(|l| format!("{l}\n"))
                .collect();
            std::fs::write(&p, body).unwrap();
            syms += 1;
        }
    }
    assert!(syms > 4, "{syms} symbol files");
    let o = run_in(tmp.path(), &["check", "headless.uftrace"]);
    let out = stdout(&o);
    let folded: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("warning[UF050]: ... and "))
        .collect();
    assert_eq!(folded.len(), 1, "{out}");
    let want = format!("... and {} more in headless.uftrace (at ", syms - 3);
    assert!(folded[0].contains(&want), "{}", folded[0]);
    assert!(folded[0].contains(".sym:0x0"), "{}", folded[0]);
}

#[test]
fn repeats_are_folded_after_three() {
    let tmp = tempfile::tempdir().unwrap();
    uftrace_with_repeats(tmp.path());
    let o = run_in(tmp.path(), &["check", "repeats.uftrace"]);
    let out = stdout(&o);
    let headings = out
        .lines()
        .filter(|l| l.starts_with("error[UF063]: "))
        .count();
    let folded: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("error[UF063]: ... and "))
        .collect();
    assert_eq!(headings, 4, "three in full and one folded line: {out}");
    assert_eq!(folded.len(), 1, "{out}");
    assert!(
        folded[0].contains("... and 6 more in repeats.uftrace/13424.dat (offsets 0x"),
        "{}",
        folded[0]
    );
    // Machine outputs keep every finding.
    let o = run_in(tmp.path(), &["check", "-o", "json", "repeats.uftrace"]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let n = doc["files"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "UF063")
        .count();
    assert_eq!(n, 9);
    assert_eq!(doc["summary"]["by_code"]["UF063"], 9);
}

#[test]
fn info_findings_only_with_verbose() {
    let c = corpus();
    let o = run_in(&c, &["gdb/multi.tf"]);
    let out = stdout(&o);
    assert!(!out.lines().any(|l| l.starts_with("info[")), "{out}");
    assert!(
        out.contains("4 info finding(s) not shown (--verbose shows them)"),
        "{out}"
    );
    assert!(
        out.contains("0 warning(s), 4 info"),
        "info still counted: {out}"
    );
    for flag in ["-v", "--verbose"] {
        let out = stdout(&run_in(&c, &["gdb/multi.tf", flag]));
        assert!(out.lines().any(|l| l.starts_with("info[GT034]: ")), "{out}");
        assert!(!out.contains("not shown (--verbose"), "{out}");
    }
}

#[test]
fn max_findings_keeps_counts_by_code_complete() {
    let c = corpus();
    let args = ["check", "tracecmd/lost-v7-zstd.dat", "--max-findings", "1"];
    let out = stdout(&run_in(&c, &args));
    let line = out
        .lines()
        .find(|l| l.starts_with("findings by code: "))
        .unwrap();
    assert!(
        line.contains("TD036×1") && line.contains("TD113×2"),
        "{out}"
    );
    let mut json_args = args.to_vec();
    json_args.extend(["-o", "json"]);
    let o = run_in(&c, &json_args);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["summary"]["by_code"]["TD113"], 2, "{doc}");
    assert_eq!(doc["files"][0]["findings"].as_array().unwrap().len(), 2);

    // A uftrace directory, whose task files are checked in parallel.
    let tmp = tempfile::tempdir().unwrap();
    uftrace_with_repeats(tmp.path());
    let out = stdout(&run_in(
        tmp.path(),
        &["check", "repeats.uftrace", "--max-findings", "2"],
    ));
    assert!(out.contains("UF063×9"), "{out}");
    assert!(out.contains(": 9 error(s)"), "{out}");
}

#[test]
fn summary_rates_are_sane_for_sparse_files() {
    let tmp = tempfile::tempdir().unwrap();
    let f = std::fs::File::create(tmp.path().join("sparse.dat")).unwrap();
    f.set_len(1 << 40).unwrap();
    std::fs::write(tmp.path().join("tracelint.toml"), "").unwrap();
    let o = run_in(tmp.path(), &["check", "sparse.dat"]);
    let out = stdout(&o);
    let summary = out.lines().find(|l| l.starts_with("checked ")).unwrap();
    if let Some(i) = summary.find(" MB/s)") {
        let start = summary[..i].rfind('(').unwrap() + 1;
        let rate: f64 = summary[start..i].parse().unwrap();
        assert!(rate < 100_000.0, "absurd throughput: {summary}");
    }
}
