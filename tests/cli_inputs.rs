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

fn corpus_file(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(sub)
}

/// Codes of the JSON Lines findings of one file of a run.
fn codes_of(text: &str, file: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|j| j["kind"] == "finding" && j["path"].as_str().is_some_and(|p| p.ends_with(file)))
        .map(|j| {
            (
                j["code"].as_str().unwrap_or("").to_string(),
                j["severity"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// A directory search never hides a broken trace: an empty `trace.dat`, a trace cut to 3
/// bytes, one with a damaged first byte are checked and fail; a symlink and a FIFO are
/// reported, not followed; `-v` says why every other file was left out.
#[test]
fn directory_scans_never_hide_a_broken_trace() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let good = std::fs::read(corpus_file("tracecmd/v6.dat")).unwrap();
    std::fs::write(d.join("good.dat"), &good).unwrap();
    std::fs::write(d.join("trace.dat"), b"").unwrap();
    std::fs::write(d.join("cut3.bin"), &good[..3]).unwrap();
    let mut damaged = good.clone();
    damaged[0] ^= 0x0f;
    std::fs::write(d.join("damaged.bin"), &damaged).unwrap();
    std::os::unix::fs::symlink(corpus_file("tracecmd/v7-zstd.dat"), d.join("link.dat")).unwrap();
    let fifo = d.join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    std::fs::write(d.join("notes.txt"), b"hello\n").unwrap();
    let o = run(d, &["check", "-v", "-o", "jsonl", "."]);
    let text = out(&o);
    assert_eq!(o.status.code(), Some(1), "{text}\n{}", err(&o));
    assert!(codes_of(&text, "good.dat").is_empty(), "{text}");
    assert_eq!(
        codes_of(&text, "trace.dat"),
        [("TL005".into(), "error".into())]
    );
    assert_eq!(
        codes_of(&text, "cut3.bin"),
        [("TL002".into(), "error".into())]
    );
    assert_eq!(
        codes_of(&text, "damaged.bin"),
        [("TL002".into(), "error".into())]
    );
    assert_eq!(
        codes_of(&text, "link.dat"),
        [("TL014".into(), "warning".into())]
    );
    assert_eq!(
        codes_of(&text, "fifo"),
        [("TL014".into(), "warning".into())]
    );
    assert!(codes_of(&text, "notes.txt").is_empty(), "{text}");
    assert!(
        err(&o).contains("skipped ./notes.txt: not a trace"),
        "{}",
        err(&o)
    );
}

/// A file the user cannot read is checked, not passed over: `TL001`, exit 3.
#[test]
fn directory_scans_report_unreadable_files() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(tmp.path(), PermissionsExt::from_mode(0o755)).unwrap();
    let p = tmp.path().join("secret.bin");
    std::fs::write(&p, b"anything").unwrap();
    std::fs::set_permissions(&p, PermissionsExt::from_mode(0o000)).unwrap();
    let o = if std::fs::read(&p).is_ok() {
        // Root reads every file: run as `nobody`, for whom the file is unreadable.
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_tracelint"))
            .args(["check", "-o", "jsonl", "."])
            .current_dir(tmp.path())
            .env_remove("TRACELINT_CONFIG")
            .output()
            .unwrap()
    } else {
        run(tmp.path(), &["check", "-o", "jsonl", "."])
    };
    assert_eq!(o.status.code(), Some(3), "{}", out(&o));
    assert_eq!(
        codes_of(&out(&o), "secret.bin"),
        [("TL001".into(), "error".into())]
    );
}

/// A folder with `task.txt` and a `<TID>.dat` but no `info` is a recording that lost its
/// `info`: checked as uftrace, it fails (every uftrace refuses it).
#[test]
fn a_uftrace_directory_without_info_is_found_and_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("spool").join("uftrace.data");
    std::fs::create_dir_all(&d).unwrap();
    for e in std::fs::read_dir(corpus_file("uftrace/plain")).unwrap() {
        let e = e.unwrap();
        if e.file_name() != "info" {
            std::fs::copy(e.path(), d.join(e.file_name())).unwrap();
        }
    }
    let o = run(tmp.path(), &["check", "-o", "jsonl", "spool"]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    assert!(out(&o).contains("\"code\":\"UF001\""), "{}", out(&o));
}

/// Many inputs checked on several threads: every output lists them in the order of the search
/// (sorted names), whatever order the checks end in; the documents that need the end of the
/// run (SARIF, JUnit, JSON's summary) are complete; and the summary's counts are those of the
/// inputs written, since a run keeps counts, not reports.
#[test]
fn many_inputs_come_out_in_search_order_in_every_document() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("many");
    std::fs::create_dir(&dir).unwrap();
    let good = std::fs::read(corpus("gdb/empty.tf")).unwrap();
    let ktrace = std::fs::read(corpus("ktrace/v2.raw")).unwrap();
    let n = 300usize;
    for i in 0..n {
        let (name, bytes): (String, &[u8]) = match i % 3 {
            0 => (format!("f{i:04}.tf"), &good),
            1 => (format!("f{i:04}.raw"), &ktrace),
            // Named like a trace, holds none: TL002, an error.
            _ => (format!("f{i:04}.dat"), b"not a trace at all"),
        };
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| format!("many/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    names.sort();

    let o = run(tmp.path(), &["check", "-j", "3", "-o", "json", "many"]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let paths: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, names);
    assert_eq!(v["summary"]["files"], n);
    assert_eq!(v["summary"]["failed"], n / 3);
    assert_eq!(v["summary"]["findings"]["error"], n / 3);

    let o = run(tmp.path(), &["check", "-j", "3", "-o", "jsonl", "many"]);
    let lines: Vec<serde_json::Value> = out(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|l: &serde_json::Value| l["kind"] == "file")
        .collect();
    let paths: Vec<&str> = lines.iter().map(|l| l["path"].as_str().unwrap()).collect();
    assert_eq!(paths, names);

    let o = run(tmp.path(), &["check", "-j", "3", "-o", "sarif", "many"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let run0 = &v["runs"][0];
    let rules = run0["tool"]["driver"]["rules"].as_array().unwrap();
    let artifacts: Vec<&str> = run0["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["location"]["uri"].as_str().unwrap())
        .collect();
    let failing: Vec<&String> = names.iter().filter(|p| p.ends_with(".dat")).collect();
    assert_eq!(artifacts, failing);
    let results = run0["results"].as_array().unwrap();
    assert!(results.len() >= n / 3, "{}", results.len());
    for r in results {
        // Each result's rule index points at its rule in the driver, its artifact at its file.
        let rule = &rules[r["ruleIndex"].as_u64().unwrap() as usize];
        assert_eq!(rule["id"], r["ruleId"]);
        let loc = &r["locations"][0]["physicalLocation"]["artifactLocation"];
        assert_eq!(
            artifacts[loc["index"].as_u64().unwrap() as usize],
            loc["uri"]
        );
    }

    let o = run(tmp.path(), &["check", "-j", "3", "-o", "junit", "many"]);
    let xml = out(&o);
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let cases: Vec<&str> = doc
        .descendants()
        .filter(|e| e.has_tag_name("testcase"))
        .map(|e| e.attribute("name").unwrap())
        .collect();
    assert_eq!(cases, names);
    let suite = doc
        .descendants()
        .find(|e| e.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(suite.attribute("tests"), Some("300"));
    assert_eq!(suite.attribute("failures"), Some("100"));
}
