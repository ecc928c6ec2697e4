//! Configuration as a project uses it: found by walking up from the current directory (or the
//! inputs) to the repository root, `[check]` excludes, `select`, per-path overrides, rule
//! selectors by prefix and format, `--deny warnings` spellings, man pages for every command.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tracelint"));
    c.env_remove("TRACELINT_CONFIG").env("NO_COLOR", "1");
    c
}

fn run(dir: &Path, args: &[&str]) -> Output {
    bin().args(args).current_dir(dir).output().unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn corpus(rel: &str) -> PathBuf {
    repo().join("corpus").join(rel)
}

/// The committed `tracelint.toml` leaves the files broken on purpose out of a search, so
/// `tracelint check corpus/` passes, from the repository root and from a folder below it
/// (the configuration found by walking up). Without it the same search fails.
#[test]
fn the_repository_corpus_passes_through_its_committed_configuration() {
    let o = run(&repo(), &["check", "corpus/"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
    let sub = repo().join("corpus/uftrace");
    let o = run(&sub, &["check", "..", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
    let summary = out(&o);
    let n: usize = summary
        .strip_prefix("checked ")
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{summary}"));
    assert!(n > 30, "{summary}");
    // The defects are still there, and still caught when named or searched without the file.
    let empty = tempfile::NamedTempFile::new().unwrap();
    let o = run(
        &sub,
        &[
            "--config",
            empty.path().to_str().unwrap(),
            "check",
            "..",
            "-q",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    let o = run(&sub, &["check", "../gdb/defects/circular-corrupt.tf", "-q"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a file named on the command line is checked"
    );
    let o = run(
        &sub,
        &[
            "check",
            "--force-exclude",
            "../gdb/defects/circular-corrupt.tf",
            "-q",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "--force-exclude: {}", out(&o));
    assert!(out(&o).starts_with("checked 0 input(s)"));
}

/// A project: `outer/` holds a broken configuration above the repository `outer/proj/` (with
/// `.git`), which holds a good and a broken trace under `data/`.
struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let outer = dir.path().join("outer");
        let data = outer.join("proj/data");
        std::fs::create_dir_all(&data).unwrap();
        std::fs::create_dir_all(outer.join("proj/.git")).unwrap();
        std::fs::write(outer.join("tracelint.toml"), "[rules\nnot toml").unwrap();
        std::fs::copy(corpus("gdb/memory.tf"), data.join("good.tf")).unwrap();
        std::fs::create_dir_all(data.join("legacy")).unwrap();
        std::fs::copy(
            corpus("gdb/defects/circular-corrupt.tf"),
            data.join("legacy/bad.tf"),
        )
        .unwrap();
        Project { dir }
    }
    fn proj(&self) -> PathBuf {
        self.dir.path().join("outer/proj")
    }
    fn data(&self) -> PathBuf {
        self.proj().join("data")
    }
    fn config(&self, name: &str, text: &str) {
        std::fs::write(self.proj().join(name), text).unwrap();
    }
}

#[test]
fn discovery_walks_up_to_the_repository_root_and_no_further() {
    let p = Project::new();
    // No configuration in the repository: the broken one above it is never read.
    let o = run(&p.data(), &["check", ".", "-q"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", out(&o), err(&o));
    // `.tracelint.toml` at the root, found from data/ (cwd) ...
    p.config(
        ".tracelint.toml",
        "[check]\nextend-exclude = [\"legacy\"]\n",
    );
    let o = run(&p.data(), &["check", ".", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
    assert!(out(&o).starts_with("checked 1 input(s)"), "{}", out(&o));
    // ... and from the input's folder when the current directory has none.
    let elsewhere = tempfile::tempdir().unwrap();
    let o = run(
        elsewhere.path(),
        &["check", p.data().to_str().unwrap(), "-q"],
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
    // tracelint.toml is preferred over .tracelint.toml in one folder; patterns with `/` are
    // relative to the configuration's folder.
    p.config(
        "tracelint.toml",
        "[check]\nextend-exclude = [\"data/legacy/*.tf\"]\n",
    );
    let o = run(&p.data().join("legacy"), &["check", ".", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
    assert!(
        out(&o).starts_with("checked 1 input(s)"),
        "TL008 for the empty search: {}",
        out(&o)
    );
    assert!(out(&o).contains("TL008"), "{}", out(&o));
    // `exclude` replaces the defaults; -v says what was left out.
    p.config("tracelint.toml", "[check]\nexclude = [\"bad.tf\"]\n");
    let o = run(&p.data(), &["check", ".", "-v"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        err(&o).contains("legacy/bad.tf: excluded by the configuration"),
        "{}",
        err(&o)
    );
}

#[test]
fn per_path_overrides_set_levels_for_the_inputs_under_them() {
    let p = Project::new();
    std::fs::copy(
        corpus("gdb/defects/circular-corrupt.tf"),
        p.data().join("current.tf"),
    )
    .unwrap();
    p.config(
        "tracelint.toml",
        "[[check.overrides]]\npaths = [\"data/legacy\"]\nrules = { gdb-tfile = \"warn\", GT055 = \"allow\" }\n",
    );
    let json = |args: &[&str]| -> serde_json::Value {
        let mut a = vec!["check", "-o", "json"];
        a.extend_from_slice(args);
        serde_json::from_slice(&run(&p.data(), &a).stdout).unwrap()
    };
    let v = json(&["legacy/bad.tf", "current.tf"]);
    let legacy = &v["files"][0];
    assert_eq!(legacy["verdict"], "pass", "{legacy}");
    assert_eq!(legacy["counts"]["error"], 0);
    let codes: Vec<&str> = legacy["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert!(
        codes.contains(&"GT047") && !codes.contains(&"GT055"),
        "{codes:?}"
    );
    assert_eq!(v["files"][1]["verdict"], "fail", "the same bytes elsewhere");
    // The command line wins over the override.
    let v = json(&["-D", "GT047", "legacy/bad.tf"]);
    assert_eq!(v["files"][0]["verdict"], "fail");
    // A searched directory's inputs get the override too.
    let o = run(&p.data(), &["check", "legacy", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
}

#[test]
fn rules_are_selected_by_prefix_and_format() {
    let bad = corpus("gdb/defects/circular-corrupt.tf");
    let bad = bad.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let codes = |args: &[&str]| -> (i32, Vec<String>) {
        let mut a = vec!["check", "-o", "concise"];
        a.extend_from_slice(args);
        a.push(bad);
        let o = run(dir.path(), &a);
        let codes = out(&o)
            .lines()
            .map(|l| {
                l.split(": ")
                    .nth(1)
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect();
        (o.status.code().unwrap(), codes)
    };
    let (code, all) = codes(&[]);
    assert_eq!(code, 1);
    assert!(all.iter().any(|c| c == "GT047") && all.iter().any(|c| c == "GT019"));
    // --select: only those rules (comma-separated or repeated).
    let (code, some) = codes(&["--select", "GT04,GT05"]);
    assert_eq!(code, 1);
    assert!(!some.is_empty());
    assert!(
        some.iter()
            .all(|c| c.starts_with("GT04") || c.starts_with("GT05")),
        "{some:?}"
    );
    assert!(!some.contains(&"GT019".to_string()));
    let (code, none) = codes(&["--select", "TD"]);
    assert_eq!((code, none.len()), (0, 0));
    // -A by prefix and by format.
    for sel in ["GT", "gdb-tfile", "gdb", "ALL"] {
        let (code, left) = codes(&["-A", sel]);
        assert_eq!((code, left.len()), (0, 0), "-A {sel}: {left:?}");
    }
    // A more specific selector wins whatever the order.
    let (code, left) = codes(&["-D", "GT047", "-A", "GT"]);
    assert_eq!((code, left), (1, vec!["GT047".to_string()]));
    // The same in the file, and `select` there.
    std::fs::write(
        dir.path().join("tracelint.toml"),
        "[rules]\nGT = \"warn\"\nGT058 = \"deny\"\n[check]\nselect = [\"GT05\"]\n",
    )
    .unwrap();
    let o = run(dir.path(), &["check", "-o", "json", bad]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let f: Vec<(String, String)> = v["files"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(f.contains(&("GT058".into(), "error".into())), "{f:?}");
    assert!(f.contains(&("GT055".into(), "warning".into())), "{f:?}");
    assert!(!f.iter().any(|(c, _)| c == "GT047"), "{f:?}");
    // Unknown selectors are usage errors.
    for args in [&["--select", "XX9"][..], &["-A", "nope"], &["-W", "TD9999"]] {
        let mut a = vec!["check"];
        a.extend_from_slice(args);
        a.push(bad);
        assert_eq!(run(dir.path(), &a).status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn bad_check_sections_are_configuration_errors() {
    let dir = tempfile::tempdir().unwrap();
    let good = corpus("gdb/memory.tf");
    for (text, needle) in [
        ("[check]\nexclude = [\"a[b\"]\n", "bad path pattern `a[b`"),
        ("[check]\nexclud = []\n", "exclud"),
        ("[check]\nselect = [\"QQ\"]\n", "unknown rule `QQ`"),
        (
            "[[check.overrides]]\npaths = [\"x\"]\nrules = { GT = \"loud\" }\n",
            "not a level",
        ),
    ] {
        std::fs::write(dir.path().join("tracelint.toml"), text).unwrap();
        let o = run(dir.path(), &["check", good.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{text}");
        assert!(err(&o).contains(needle), "{text}: {}", err(&o));
    }
}

/// `--deny warnings` is the spelling; `--deny-warnings` (the daemon's old one) is accepted too.
#[test]
fn deny_warnings_has_one_spelling_everywhere() {
    let bad = corpus("gdb/defects/circular-corrupt.tf");
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["-W", "GT"][..],
        &["-W", "GT", "--deny", "warnings"],
        &["-W", "GT", "-D", "warnings"],
        &["-W", "GT", "--deny-warnings"],
    ] {
        let mut a = vec!["check"];
        a.extend_from_slice(args);
        a.push(bad.to_str().unwrap());
        let expected = if args.len() > 2 { 1 } else { 0 };
        assert_eq!(
            run(dir.path(), &a).status.code(),
            Some(expected),
            "{args:?}"
        );
        // `map` takes the same spelling.
        a[0] = "map";
        assert_eq!(
            run(dir.path(), &a).status.code(),
            Some(expected),
            "map {args:?}"
        );
    }
}

/// `tracelint man --dir DIR` writes a page for the program and one for every command, as the
/// top page's SEE ALSO names them.
#[test]
fn man_pages_for_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(dir.path(), &["man", "--dir", "pages"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let top = std::fs::read_to_string(dir.path().join("pages/tracelint.1")).unwrap();
    for sub in [
        "check",
        "map",
        "rules",
        "explain",
        "demo",
        "watch",
        "completions",
        "man",
    ] {
        let page = dir.path().join(format!("pages/tracelint-{sub}.1"));
        let text =
            std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        assert!(text.starts_with(".ie") || text.contains(".TH"), "{sub}");
        assert!(
            top.contains(&format!("tracelint\\-{sub}(1)")),
            "{sub} not in SEE ALSO"
        );
    }
    let check = std::fs::read_to_string(dir.path().join("pages/tracelint-check.1")).unwrap();
    assert!(check.contains("output\\-file"), "options documented");
    // The sections a page is read for, which clap does not write.
    for (page, sections) in [
        (
            "tracelint",
            &["EXIT STATUS", "FILES", "ENVIRONMENT", "EXAMPLES"][..],
        ),
        (
            "tracelint-check",
            &["EXIT STATUS", "FILES", "ENVIRONMENT", "EXAMPLES"][..],
        ),
        (
            "tracelint-watch",
            &[
                "THE SPOOL",
                "SIGNALS",
                "EXIT STATUS",
                "FILES",
                "ENVIRONMENT",
                "EXAMPLES",
            ][..],
        ),
        ("tracelint-map", &["EXIT STATUS", "EXAMPLES"][..]),
    ] {
        let text = std::fs::read_to_string(dir.path().join(format!("pages/{page}.1"))).unwrap();
        for sec in sections {
            assert!(text.contains(&format!(".SH \"{sec}\"")), "{page}: no {sec}");
        }
    }
    let watch = std::fs::read_to_string(dir.path().join("pages/tracelint-watch.1")).unwrap();
    for needle in ["SIGHUP", "new/", "tmp/", "TRACELINT_LOG", "quarantine/"] {
        assert!(
            watch.contains(needle),
            "tracelint-watch(1) says nothing of {needle}"
        );
    }
    // man(1) renders them: every page formats without a warning where man is installed.
    if Command::new("man").arg("--version").output().is_ok() {
        for page in ["tracelint-check", "tracelint-watch"] {
            let o = Command::new("man")
                .arg("--warnings")
                .arg("-l")
                .arg(dir.path().join(format!("pages/{page}.1")))
                .env("MANPAGER", "cat")
                .env("MANWIDTH", "80")
                .output()
                .unwrap();
            assert!(o.status.success(), "{page}: {}", err(&o));
            assert!(out(&o).contains("EXIT STATUS"), "{page}");
        }
    }
    // Without --dir: the top page on stdout, as before.
    let o = run(dir.path(), &["man"]);
    assert!(out(&o).contains(".TH tracelint 1"));
}

/// `[tool.tracelint]` in a pyproject.toml is not read: found on the walk up where a
/// tracelint.toml would be, it stops the run with a usage error naming the file, instead of
/// being silently ignored. A pyproject.toml without that table is no configuration.
#[test]
fn tool_tracelint_in_pyproject_is_rejected_loudly() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::copy(corpus("gdb/memory.tf"), dir.path().join("good.tf")).unwrap();
    std::fs::write(
        dir.path().join("pyproject.toml"),
        "[project]\nname = \"x\"\n[tool.ruff]\nline-length = 100\n",
    )
    .unwrap();
    let o = run(dir.path(), &["check", "good.tf"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    std::fs::write(
        dir.path().join("pyproject.toml"),
        "[project]\nname = \"x\"\n[tool.tracelint.rules]\nGT038 = \"allow\"\n",
    )
    .unwrap();
    let o = run(dir.path(), &["check", "good.tf"]);
    assert_eq!(o.status.code(), Some(2), "{}{}", out(&o), err(&o));
    let e = err(&o);
    assert!(
        e.contains("pyproject.toml") && e.contains("tracelint.toml"),
        "{e}"
    );
    // A tracelint.toml next to it is the configuration; the table is then not looked at.
    std::fs::write(dir.path().join("tracelint.toml"), "[rules]\n").unwrap();
    let o = run(dir.path(), &["check", "good.tf"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
}

/// ruff's spellings: `--ignore` (comma-separated) is `-A`, and `--statistics` prints a count
/// per rule instead of the findings, most first, with the same exit code.
#[test]
fn ruff_spellings_ignore_and_statistics() {
    let broken = corpus("gdb/defects/circular-corrupt.tf");
    let broken = broken.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let codes = |args: &[&str]| -> Vec<String> {
        let mut a = vec!["check", "-o", "json", broken];
        a.extend_from_slice(args);
        let v: serde_json::Value = serde_json::from_slice(&run(dir.path(), &a).stdout).unwrap();
        v["files"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap().to_string())
            .collect()
    };
    let all = codes(&[]);
    assert!(
        all.iter().any(|c| c == "GT047") && all.iter().any(|c| c == "GT058"),
        "{all:?}"
    );
    let ignored = codes(&["--ignore", "GT047,GT058"]);
    assert!(
        !ignored.iter().any(|c| c == "GT047" || c == "GT058"),
        "{ignored:?}"
    );
    assert_eq!(ignored, codes(&["-A", "GT047", "-A", "GT058"]));

    let o = run(dir.path(), &["check", "--statistics", broken]);
    assert_eq!(o.status.code(), Some(1));
    let text = out(&o);
    let row = regex::Regex::new(r"^ *([0-9]+)  ([A-Z]{2}[0-9]{3})  ([a-z0-9-]+)  \[([a-z,]+)\]$")
        .unwrap();
    let rows: Vec<(u64, String)> = text
        .lines()
        .filter_map(|l| row.captures(l))
        .map(|c| (c[1].parse().unwrap(), c[2].to_string()))
        .collect();
    let mut expected: std::collections::BTreeMap<String, u64> = Default::default();
    for c in &all {
        *expected.entry(c.clone()).or_default() += 1;
    }
    assert_eq!(rows.len(), expected.len(), "{text}");
    for (n, code) in &rows {
        assert_eq!(expected.get(code), Some(n), "{text}");
    }
    assert!(
        rows.windows(2).all(|w| w[0].0 >= w[1].0),
        "most first: {text}"
    );
    assert!(text.contains("checked 1 input(s)"), "{text}");
    assert!(!text.contains("frame 2"), "no findings printed: {text}");
}
