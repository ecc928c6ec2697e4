//! The command line: exit codes, the four outputs, `rules`, `explain`, `map`, configuration.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tracelint"));
    c.env_remove("TRACELINT_CONFIG").env("NO_COLOR", "1");
    c
}

fn run(args: &[&str], dir: &Path) -> Output {
    bin().args(args).current_dir(dir).output().unwrap()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        // Binary garbage that is no trace (non-UTF-8 included).
        std::fs::write(
            dir.path().join("garbage.bin"),
            [0xffu8, 0xfe, 0, 1, 2, 0x80, 0x81, 0x82, 9, 9],
        )
        .unwrap();
        std::fs::write(dir.path().join("empty.dat"), b"").unwrap();
        Fixture { dir }
    }
    fn path(&self) -> &Path {
        self.dir.path()
    }
    fn p(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }
}

fn corpus_file(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(rel)
}

#[test]
fn usage_errors_exit_2() {
    let f = Fixture::new();
    assert_eq!(code(&run(&[], f.path())), 2);
    assert_eq!(code(&run(&["check"], f.path())), 2);
    assert_eq!(code(&run(&["check", "--output", "xml", "x"], f.path())), 2);
    assert_eq!(
        code(&run(
            &["check", "-D", "NOPE123", &f.p("garbage.bin")],
            f.path()
        )),
        2
    );
    assert_eq!(code(&run(&["explain", "NOPE123"], f.path())), 2);
    assert_eq!(
        code(&run(
            &["--format-hint", "nope", &f.p("garbage.bin")],
            f.path()
        )),
        2
    );
    assert_eq!(code(&run(&["--version"], f.path())), 0);
}

#[test]
fn unreadable_path_exits_3() {
    let f = Fixture::new();
    let o = run(&[&f.p("does-not-exist")], f.path());
    assert_eq!(code(&o), 3, "{}", stdout(&o));
    assert!(stdout(&o).contains("TL001"));
}

#[test]
fn unknown_content_is_an_error_with_a_hex_window() {
    let f = Fixture::new();
    let o = run(&[&f.p("garbage.bin")], f.path());
    assert_eq!(code(&o), 1);
    let out = stdout(&o);
    assert!(out.contains("error[TL002]: "), "{out}");
    assert!(out.contains("  = rule: unknown-format"), "{out}");
    assert!(
        out.contains("ff fe 00 01 02 80 81 82"),
        "hex window missing: {out}"
    );
    assert!(
        out.is_ascii() || out.contains('×'),
        "binary leaked into the output"
    );
    let o = run(&[&f.p("empty.dat")], f.path());
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).contains("TL005"));
}

#[test]
fn json_output_is_valid_and_complete() {
    let f = Fixture::new();
    let o = run(
        &[
            "check",
            "-o",
            "json",
            &f.p("garbage.bin"),
            &f.p("empty.dat"),
        ],
        f.path(),
    );
    assert_eq!(code(&o), 1);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["schema_version"], 1);
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    // Results come in argument order.
    assert!(files[0]["path"].as_str().unwrap().ends_with("garbage.bin"));
    let fd = &files[0]["findings"][0];
    assert_eq!(fd["code"], "TL002");
    assert_eq!(fd["name"], "unknown-format");
    assert_eq!(fd["severity"], "error");
    assert_eq!(fd["offset"], 0);
    assert_eq!(fd["length"], 8);
    assert_eq!(files[0]["verdict"], "fail");
    assert_eq!(v["summary"]["files"], 2);
    assert_eq!(v["summary"]["failed"], 2);
}

#[test]
fn jsonl_output_one_object_per_line() {
    let f = Fixture::new();
    let o = run(
        &["-o", "jsonl", &f.p("garbage.bin"), &f.p("empty.dat")],
        f.path(),
    );
    let text = stdout(&o);
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["kind"], "finding");
    assert_eq!(lines[0]["code"], "TL002");
    assert_eq!(lines[1]["kind"], "file");
    assert_eq!(lines[3]["verdict"], "fail");
}

#[test]
fn sarif_output_has_the_2_1_0_shape() {
    let f = Fixture::new();
    let o = run(&["-o", "sarif", &f.p("garbage.bin")], f.path());
    assert_eq!(code(&o), 1);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["version"], "2.1.0");
    assert!(v["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let run0 = &v["runs"][0];
    assert_eq!(run0["tool"]["driver"]["name"], "tracelint");
    // Only the rules that fired are described (`--sarif-all-rules` describes every rule).
    let rules = run0["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 1);
    let res = &run0["results"][0];
    assert_eq!(res["ruleId"], "TL002");
    assert_eq!(res["level"], "error");
    let idx = res["ruleIndex"].as_u64().unwrap() as usize;
    assert_eq!(rules[idx]["id"], "TL002");
    let region = &res["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["byteOffset"], 0);
    assert_eq!(region["byteLength"], 8);
    assert_eq!(region["startLine"], 1);
    let uri = res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        .as_str()
        .unwrap();
    assert!(uri.ends_with("garbage.bin"));
    assert!(res["message"]["text"].as_str().unwrap().contains("ff fe"));
}

#[test]
fn levels_from_flags_and_config() {
    let f = Fixture::new();
    let g = f.p("garbage.bin");
    assert_eq!(code(&run(&["-A", "TL002", &g], f.path())), 0);
    assert_eq!(code(&run(&["-W", "unknown-format", &g], f.path())), 0);
    assert_eq!(
        code(&run(
            &["-W", "unknown-format", "--deny", "warnings", &g],
            f.path()
        )),
        1
    );
    std::fs::write(
        f.path().join("tracelint.toml"),
        "[rules]\nunknown-format = \"warn\"\n",
    )
    .unwrap();
    let o = run(&["-o", "json", &g], f.path());
    assert_eq!(code(&o), 0);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["files"][0]["findings"][0]["severity"], "warning");
    // -D on the command line overrides the file.
    assert_eq!(code(&run(&["-D", "TL002", &g], f.path())), 1);
}

#[test]
fn bad_config_is_a_usage_error_with_a_span() {
    let f = Fixture::new();
    let cfg = f.path().join("bad.toml");
    std::fs::write(&cfg, "[rules]\nTL002 = \"loud\"\n").unwrap();
    let o = run(
        &["--config", cfg.to_str().unwrap(), &f.p("garbage.bin")],
        f.path(),
    );
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(err.contains("bad.toml"), "{err}");
    assert!(
        err.contains("\"loud\""),
        "the TOML source should be shown: {err}"
    );
    std::fs::write(&cfg, "[rules]\nGT999x = \"allow\"\n").unwrap();
    let o = run(
        &["--config", cfg.to_str().unwrap(), &f.p("garbage.bin")],
        f.path(),
    );
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("unknown rule `GT999x`"));
    let o = run(
        &["--config", "/nonexistent/t.toml", &f.p("garbage.bin")],
        f.path(),
    );
    assert_eq!(code(&o), 2);
}

#[test]
fn rules_and_explain() {
    let f = Fixture::new();
    let o = run(&["rules"], f.path());
    assert_eq!(code(&o), 0);
    let out = stdout(&o);
    for r in tracelint::registry::all() {
        assert!(out.contains(r.code), "{} missing from `rules`", r.code);
    }
    let o = run(&["rules", "--json"], f.path());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v.as_array().unwrap().len(),
        tracelint::registry::all().count()
    );
    let o = run(&["explain", "limit-exceeded"], f.path());
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains("# TL003 limit-exceeded"));
    assert!(stdout(&o).contains("## Why it matters"));
    let o = run(&["explain", "TD014"], f.path());
    assert!(
        stdout(&o).contains("- Raised in: `src/formats/tracecmd/decode/mod.rs`"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn directories_are_searched_by_content() {
    let f = Fixture::new();
    let sub = f.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(sub.join("notes.txt"), "hello").unwrap();
    let tf = corpus_file("gdb/regs.tf");
    std::fs::copy(&tf, sub.join("capture.bin")).unwrap();
    let o = run(&["-o", "json", sub.to_str().unwrap()], f.path());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "only the trace is checked: {files:?}");
    assert_eq!(files[0]["format"], "gdb-tfile");
}

#[test]
fn max_findings_truncates_with_a_note() {
    let f = Fixture::new();
    let o = run(
        &["-o", "json", "--max-findings", "1", &f.p("garbage.bin")],
        f.path(),
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["files"][0]["findings"].as_array().unwrap().len(), 1);
    assert_eq!(
        code(&run(
            &["--max-findings", "0", &f.p("garbage.bin")],
            f.path()
        )),
        2
    );
}

/// Allowed rules are dropped as findings arrive, so they do not use up `--max-findings`: the
/// defect file has three findings besides the allowed GT019 and GT038 ones, and with a cap of 2
/// two are shown and one is counted as cut.
#[test]
fn allowed_findings_do_not_use_up_max_findings() {
    let f = Fixture::new();
    let tf = corpus_file("gdb/defects/circular-corrupt.tf");
    let tf = tf.to_str().unwrap();
    let all = run(&["-o", "json", tf], f.path());
    let v: serde_json::Value = serde_json::from_slice(&all.stdout).unwrap();
    let codes: Vec<&str> = v["files"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|x| x["code"].as_str())
        .collect();
    let others = codes
        .iter()
        .filter(|c| !matches!(**c, "GT019" | "GT038"))
        .count();
    assert_eq!(others, 3, "{codes:?}");
    assert!(
        codes.len() > others,
        "the file raises GT019/GT038: {codes:?}"
    );

    let args = [
        "-o",
        "jsonl",
        "--max-findings",
        "2",
        "-A",
        "GT019",
        "-A",
        "GT038",
        tf,
    ];
    let o = run(&args, f.path());
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let shown: Vec<&str> = lines
        .iter()
        .filter(|l| l["kind"] == "finding")
        .filter_map(|l| l["code"].as_str())
        .collect();
    assert_eq!(shown.len(), 3, "two findings and TL006: {shown:?}");
    assert!(!shown.iter().any(|c| matches!(*c, "GT019" | "GT038")));
    assert_eq!(shown.last(), Some(&"TL006"));
    let file = lines.iter().find(|l| l["kind"] == "file").unwrap();
    assert_eq!(file["dropped"], 1, "{file}");
    // The finding past the cap counts at the level it had (a warning here), as without a cap.
    assert_eq!(file["counts"]["error"], 2, "{file}");
    assert_eq!(file["counts"]["warning"], 1, "{file}");
}

#[test]
fn quiet_prints_only_the_summary() {
    let f = Fixture::new();
    let o = run(&["-q", &f.p("garbage.bin")], f.path());
    assert_eq!(code(&o), 1);
    let out = stdout(&o);
    assert!(out.starts_with("checked 1 input(s)"), "{out}");
    assert!(!out.contains("TL002(unknown-format)"));
}

#[test]
fn map_text_and_json() {
    let f = Fixture::new();
    let o = run(&["map", "-o", "json", &f.p("garbage.bin")], f.path());
    assert_eq!(code(&o), 1);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["map"]["label"], "unrecognised file");
    assert_eq!(v["map"]["findings"][0], 0);
    assert_eq!(v["findings"][0]["code"], "TL002");
    let o = run(&["map", &f.p("garbage.bin")], f.path());
    assert!(
        stdout(&o).contains("unrecognised file @0x0 +10  <- TL002(error)"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn completions_and_man_page() {
    let f = Fixture::new();
    let o = run(&["completions", "bash"], f.path());
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains("tracelint"));
    let o = run(&["man"], f.path());
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains(".TH tracelint"));
}

#[test]
fn a_program_that_cannot_be_used_is_exit_2_or_3() {
    let f = Fixture::new();
    let tf = corpus_file("gdb/fast.tf");
    let tf = tf.to_str().unwrap();
    // Missing: an I/O error, exit 3, naming the option and the path.
    let o = run(
        &["check", "--program", &f.p("no-such-program"), tf],
        f.path(),
    );
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    assert!(stderr(&o).contains("--program"), "{}", stderr(&o));
    assert!(stderr(&o).contains("no-such-program"), "{}", stderr(&o));
    // Not an ELF (binary garbage, a directory's worth of text): a usage error, exit 2.
    for name in ["garbage.bin", "empty.dat"] {
        let o = run(&["check", "--program", &f.p(name), tf], f.path());
        assert_eq!(code(&o), 2, "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains("not an ELF"), "{name}: {}", stderr(&o));
    }
    // A truncated ELF header: exit 2, no crash.
    std::fs::write(f.path().join("short.elf"), b"\x7fELF\x02\x01\x01\0\0\0").unwrap();
    let o = run(&["check", "--program", &f.p("short.elf"), tf], f.path());
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    // The same from the configuration's `[check] program`, relative to its folder.
    std::fs::write(
        f.path().join("tracelint.toml"),
        "[check]\nprogram = \"garbage.bin\"\n",
    )
    .unwrap();
    let o = run(&["check", tf], f.path());
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("[check] program"), "{}", stderr(&o));
    assert!(stderr(&o).contains("garbage.bin"), "{}", stderr(&o));
}

#[test]
fn a_program_is_taken_from_the_command_line_or_the_configuration() {
    // An ELF that is not fast.tf's program (the test binary itself): fast.tf's tracepoint is
    // then judged against it, so GT066 (unchecked) is gone and GT064 says that this program has
    // no `tl_tick`, with exit code 1.
    let f = Fixture::new();
    let exe = std::env::current_exe().unwrap();
    let tf = corpus_file("gdb/fast.tf");
    let tf = tf.to_str().unwrap();
    let o = run(&["check", "-o", "concise", "-v", tf], f.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("GT066"), "{}", stdout(&o));
    let o = run(
        &[
            "check",
            "-o",
            "concise",
            "-v",
            "--program",
            exe.to_str().unwrap(),
            tf,
        ],
        f.path(),
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(!stdout(&o).contains("GT066"), "{}", stdout(&o));
    assert!(stdout(&o).contains("GT064"), "{}", stdout(&o));
    std::fs::copy(&exe, f.path().join("prog")).unwrap();
    std::fs::write(
        f.path().join("tracelint.toml"),
        "[check]\nprogram = \"prog\"\n",
    )
    .unwrap();
    let o = run(&["check", "-o", "concise", "-v", tf], f.path());
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stdout(&o).contains("GT064"), "{}", stdout(&o));
}
