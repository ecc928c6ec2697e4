//! Inputs at the edges: directories with no traces, damaged uftrace directories, non-UTF-8
//! names, bad configurations with several mistakes, format names, and `map` of a directory.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run_in(dir: &Path, args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(args)
        .current_dir(dir)
        .env_remove("TRACELINT_CONFIG")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn run(dir: &Path, args: &[&str]) -> Output {
    let a: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
    run_in(dir, &a)
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(rel)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn a_directory_without_traces_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("empty")).unwrap();
    std::fs::create_dir_all(tmp.path().join("docs/sub")).unwrap();
    std::fs::write(tmp.path().join("docs/sub/readme.txt"), "no traces here").unwrap();
    for d in ["empty", "docs"] {
        let o = run(tmp.path(), &[d]);
        let text = out(&o);
        assert!(
            text.contains("warning[TL008]: no trace file"),
            "{d}: {text}"
        );
        assert!(!text.contains("checked 0 input(s)"), "{text}");
        assert_eq!(o.status.code(), Some(0), "a warning: exit 0");
        let o = run(tmp.path(), &[d, "--deny", "warnings"]);
        assert_eq!(o.status.code(), Some(1), "--deny warnings fails the run");
    }
    let o = run(tmp.path(), &["-o", "json", "empty"]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["files"][0]["findings"][0]["code"], "TL008");
}

#[test]
fn uftrace_directory_with_a_damaged_magic_is_checked_as_uftrace() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, info_len) in [("damaged", None), ("truncated", Some(5))] {
        let d = tmp.path().join("spool").join(name);
        copy_dir(&corpus("uftrace/plain"), &d);
        let mut info = std::fs::read(d.join("info")).unwrap();
        info[1] ^= 0x20;
        if let Some(n) = info_len {
            info.truncate(n);
        }
        std::fs::write(d.join("info"), info).unwrap();
        // Given directly and found by searching a parent directory.
        for arg in [format!("spool/{name}"), "spool".to_string()] {
            let o = run(tmp.path(), &[&arg, "-o", "json"]);
            assert_eq!(o.status.code(), Some(1), "{arg}: {}", out(&o));
            let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            let files = doc["files"].as_array().unwrap();
            let f = files
                .iter()
                .find(|f| f["path"].as_str().unwrap().ends_with(name))
                .unwrap_or_else(|| panic!("{arg}: {doc}"));
            assert_eq!(f["format"], "uftrace");
            assert_eq!(f["verdict"], "fail");
        }
    }
}

#[test]
fn non_utf8_names_work_with_the_shorthand_and_stay_exact() {
    let tmp = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"tr\xffce.dat");
    std::fs::copy(corpus("tracecmd/lost-v7-zstd.dat"), tmp.path().join(name)).unwrap();
    // The file's findings are all info: `-v` shows them.
    let o = run_in(tmp.path(), &[name, "-v".as_ref()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
    let text = out(&o);
    assert!(text.contains(" --> tr\\xffce.dat:0x"), "{text}");
    assert!(text.contains("╭─["), "hex window missing: {text}");

    let o = run_in(tmp.path(), &["-o".as_ref(), "json".as_ref(), name]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let f = &doc["files"][0];
    assert_eq!(f["path"], "tr\\xffce.dat");
    let bytes: Vec<u8> = f["path_bytes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap() as u8)
        .collect();
    assert_eq!(bytes, b"tr\xffce.dat");

    let o = run_in(tmp.path(), &["-o".as_ref(), "sarif".as_ref(), name]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let uri = doc["runs"][0]["artifacts"][0]["location"]["uri"]
        .as_str()
        .unwrap();
    assert_eq!(uri, "tr%FFce.dat");
}

#[test]
fn a_bad_configuration_reports_every_problem() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("tracelint.toml"),
        "[rules]\nTD999 = \"allow\"\nGT001 = \"loud\"\nbad-magic = \"deny\"\n\
         [limits]\nmax_entries = \"many\"\nmax_nope = 3\n",
    )
    .unwrap();
    let good = corpus("gdb/empty.tf");
    let o = run(tmp.path(), &[good.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = err(&o);
    assert!(e.contains("4 problems"), "{e}");
    for needle in ["TD999", "\"loud\"", "max_entries", "max_nope"] {
        assert!(e.contains(needle), "{needle} not reported: {e}");
    }
}

#[test]
fn trace_cmd_is_the_format_name_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let f = corpus("tracecmd/v6.dat");
    let f = f.to_str().unwrap();
    let o = run(tmp.path(), &[f]);
    assert!(out(&o).contains("(trace-cmd, "), "{}", out(&o));
    let o = run(tmp.path(), &["-o", "json", f]);
    assert!(out(&o).contains("\"format\": \"trace-cmd\""));
    let o = run(tmp.path(), &["map", f]);
    assert!(out(&o).contains("(trace-cmd, "), "{}", out(&o));
    let o = run(tmp.path(), &["rules"]);
    assert!(out(&o)
        .lines()
        .any(|l| l.starts_with("TD001") && l.contains(" trace-cmd ")));
    for hint in ["trace-cmd", "tracecmd"] {
        let o = run(tmp.path(), &["--format-hint", hint, f]);
        assert_eq!(o.status.code(), Some(0), "{hint}: {}", err(&o));
    }
}

#[test]
fn map_of_a_uftrace_directory_names_the_file_of_every_offset() {
    let o = run(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["map", "corpus/uftrace/plain"],
    );
    let text = out(&o);
    assert!(text.contains("├─ info @info:0x0 +"), "{text}");
    assert!(text.contains("EXE_NAME @info:0x28 +"), "{text}");
    assert!(text.contains("@13424.dat:0x0 +"), "{text}");
}

#[test]
fn demo_shows_a_healthy_corpus_and_labels_the_broken_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = run(root, &["demo"]);
    let text = out(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.contains("Broken on purpose (defects/, "), "{text}");
    assert!(
        text.contains("Fuzzer-found inputs (regressions/, "),
        "{text}"
    );
    assert!(
        text.contains("✓ caught gdb/defects/circular-corrupt.tf"),
        "{text}"
    );
    assert!(!text.contains('✗'), "{text}");
    assert!(text.contains("\nhealthy: "), "{text}");

    // A clean file under defects/ is a miss; a broken file among the good ones a failure.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("c/defects")).unwrap();
    std::fs::copy(
        corpus("gdb/empty.tf"),
        tmp.path().join("c/defects/clean.tf"),
    )
    .unwrap();
    std::fs::copy(corpus("gdb/empty.tf"), tmp.path().join("c/good.tf")).unwrap();
    let o = run(tmp.path(), &["demo", "c"]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    assert!(out(&o).contains("✗ missed defects/clean.tf"), "{}", out(&o));
    // A defect caught only with warnings is a miss too: defects must give an error.
    std::fs::remove_file(tmp.path().join("c/defects/clean.tf")).unwrap();
    std::fs::copy(
        corpus("gdb/defects/circular-corrupt.tf"),
        tmp.path().join("c/defects/corrupt.tf"),
    )
    .unwrap();
    std::fs::write(
        tmp.path().join("tracelint.toml"),
        "[rules]\nGT047 = \"warn\"\nGT055 = \"warn\"\nGT058 = \"warn\"\n",
    )
    .unwrap();
    let o = run(tmp.path(), &["demo", "c"]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    assert!(
        out(&o).contains("✗ missed defects/corrupt.tf"),
        "{}",
        out(&o)
    );
    std::fs::remove_file(tmp.path().join("tracelint.toml")).unwrap();
    std::fs::remove_file(tmp.path().join("c/defects/corrupt.tf")).unwrap();
    std::fs::copy(
        corpus("gdb/defects/circular-corrupt.tf"),
        tmp.path().join("c/bad.tf"),
    )
    .unwrap();
    let o = run(tmp.path(), &["demo", "c"]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    assert!(out(&o).contains("✗ fail   bad.tf"), "{}", out(&o));
}

#[test]
fn a_limit_hit_does_not_cascade_into_follow_on_errors() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("tracelint.toml"),
        "[limits]\nmax_entries = 3\n",
    )
    .unwrap();
    for input in ["gdb/multi.tf", "tracecmd/v7-zstd.dat", "uftrace/plain"] {
        let p = corpus(input);
        let o = run(tmp.path(), &["-o", "json", p.to_str().unwrap()]);
        let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let findings = doc["files"][0]["findings"].as_array().unwrap();
        let mut limited_files = Vec::new();
        for f in findings {
            if f["code"] == "TL003" {
                limited_files.push(f["file"].clone());
            } else if limited_files.contains(&f["file"]) {
                assert_eq!(
                    f["severity"], "info",
                    "{input}: follow-on finding after a limit hit: {f}"
                );
            }
        }
        assert!(!limited_files.is_empty(), "{input}: no limit hit: {doc}");
        let noted = findings.iter().any(|f| {
            f["code"] == "TL003"
                && f["notes"]
                    .as_array()
                    .is_some_and(|n| n.iter().any(|n| n.as_str().unwrap().contains("left out")))
        });
        assert!(
            noted,
            "{input}: the limit finding does not say what was left out: {doc}"
        );
        assert_eq!(doc["files"][0]["verdict"], "fail");
    }
}
