//! The CI outputs, each checked against what its consumer reads: GitHub Actions workflow
//! commands (the toolkit's grammar and escaping), GitLab Code Quality (its fields as a JSON
//! schema), JUnit XML (parsed, and validated against the Jenkins/Surefire schema), concise
//! lines; the order of findings in every output; and `--output-file`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "common/skip.rs"]
mod skip;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tracelint"));
    c.env_remove("TRACELINT_CONFIG").env("NO_COLOR", "1");
    c
}

fn run(dir: &Path, args: &[&str]) -> Output {
    bin().args(args).current_dir(dir).output().unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(rel)
}

/// A folder with a good trace, a broken one (under a name with the characters the outputs
/// must escape) and an unreadable one.
struct Project {
    dir: tempfile::TempDir,
}

const ODD_NAME: &str = "odd, na:me %25 <&\"'>.tf";

impl Project {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(corpus("gdb/memory.tf"), dir.path().join("good.tf")).unwrap();
        std::fs::copy(
            corpus("gdb/defects/circular-corrupt.tf"),
            dir.path().join(ODD_NAME),
        )
        .unwrap();
        Project { dir }
    }
    fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// The findings the JSON output has, for comparison: (code, severity, offset) per finding.
fn json_findings(dir: &Path, args: &[&str]) -> Vec<(String, String, u64)> {
    let mut a = vec!["-o", "json"];
    a.extend_from_slice(args);
    let v: serde_json::Value = serde_json::from_slice(&run(dir, &a).stdout).unwrap();
    let mut all = Vec::new();
    for f in v["files"].as_array().unwrap() {
        for x in f["findings"].as_array().unwrap() {
            all.push((
                x["code"].as_str().unwrap().to_string(),
                x["severity"].as_str().unwrap().to_string(),
                x["offset"].as_u64().unwrap(),
            ));
        }
    }
    all
}

/// Reverses the toolkit's escaping.
fn unescape(s: &str) -> String {
    s.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
}

#[test]
fn github_workflow_commands_follow_the_toolkit_grammar() {
    let p = Project::new();
    // Info findings only with --verbose (good.tf has two).
    let quiet = out(&run(p.path(), &["-o", "github", "good.tf", ODD_NAME]));
    assert!(!quiet.contains("::notice"), "{quiet}");
    let all = json_findings(p.path(), &["good.tf", ODD_NAME]);
    assert!(all.iter().any(|(_, s, _)| s == "info"));
    assert_eq!(
        quiet.lines().count(),
        all.iter().filter(|(_, s, _)| s != "info").count()
    );
    let o = run(p.path(), &["-o", "github", "-v", "good.tf", ODD_NAME]);
    assert_eq!(o.status.code(), Some(1));
    let text = out(&o);
    assert!(text.contains("::notice"), "{text}");
    // @actions/core: `::command key=value,key=value::message`; property values escape `%`,
    // CR, LF, `:` and `,`; the message escapes `%`, CR and LF.
    let prop = r"(?:[^%,:\r\n]|%25|%0D|%0A|%3A|%2C)+";
    let grammar = regex::Regex::new(&format!(
        r"^::(error|warning|notice) file=({prop}),line=1,title=({prop})::((?:[^%\r\n]|%25|%0D|%0A)*)$"
    ))
    .unwrap();
    let expected = json_findings(p.path(), &["good.tf", ODD_NAME]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), expected.len(), "{text}");
    for (line, (code, severity, offset)) in lines.iter().zip(&expected) {
        let c = grammar
            .captures(line)
            .unwrap_or_else(|| panic!("not a workflow command: {line}"));
        let command = match severity.as_str() {
            "error" => "error",
            "warning" => "warning",
            _ => "notice",
        };
        assert_eq!(&c[1], command, "{line}");
        let file = unescape(&c[2]);
        assert!(file == "good.tf" || file == ODD_NAME, "{file}");
        let title = unescape(&c[3]);
        assert!(title.starts_with(&format!("{code} ")), "{title}");
        // Binary files have no lines: the byte offset is in the title and the message.
        assert!(title.contains(&format!("0x{offset:x}")), "{title}");
        assert!(
            unescape(&c[4]).starts_with(&format!("0x{offset:x}: ")),
            "{line}"
        );
    }
    assert!(text.lines().any(|l| l.starts_with("::error ")));
    // The odd name's `,` `:` and `%` are escaped in the property.
    assert!(
        text.contains("file=odd%2C na%3Ame %2525 <&\"'>.tf,line=1"),
        "{text}"
    );
}

fn gitlab_schema() -> serde_json::Value {
    // GitLab's Code Quality report: an array of Code Climate issues, of which GitLab reads
    // description, check_name, fingerprint, severity and location.path + location.lines.begin
    // (docs.gitlab.com/ci/testing/code_quality, "Code Quality report format").
    serde_json::json!({
        "type": "array",
        "items": {
            "type": "object",
            "required": ["description", "check_name", "fingerprint", "severity", "location"],
            "properties": {
                "type": {"const": "issue"},
                "description": {"type": "string", "minLength": 1},
                "check_name": {"type": "string", "minLength": 1},
                "fingerprint": {"type": "string", "minLength": 1},
                "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
                "categories": {"type": "array", "items": {"type": "string"}},
                "location": {
                    "type": "object",
                    "required": ["path", "lines"],
                    "properties": {
                        "path": {"type": "string", "minLength": 1},
                        "lines": {
                            "type": "object",
                            "required": ["begin"],
                            "properties": {"begin": {"type": "integer", "minimum": 1}}
                        }
                    }
                }
            }
        }
    })
}

#[test]
fn gitlab_code_quality_report_has_the_fields_gitlab_reads() {
    let p = Project::new();
    let v = jsonschema::validator_for(&gitlab_schema()).unwrap();
    let o = run(p.path(), &["-o", "gitlab", "good.tf", ODD_NAME]);
    assert_eq!(o.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let errors: Vec<String> = v.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let issues = doc.as_array().unwrap();
    let expected = json_findings(p.path(), &["good.tf", ODD_NAME]);
    assert_eq!(issues.len(), expected.len());
    for (i, (code, severity, _)) in issues.iter().zip(&expected) {
        assert_eq!(i["check_name"], code.as_str());
        let sev = match severity.as_str() {
            "error" => "major",
            "warning" => "minor",
            _ => "info",
        };
        assert_eq!(i["severity"], sev);
    }
    // Fingerprints are unique and stable from run to run.
    let fps: std::collections::BTreeSet<&str> = issues
        .iter()
        .map(|i| i["fingerprint"].as_str().unwrap())
        .collect();
    assert_eq!(fps.len(), issues.len());
    let again: serde_json::Value =
        serde_json::from_slice(&run(p.path(), &["-o", "gitlab", "good.tf", ODD_NAME]).stdout)
            .unwrap();
    assert_eq!(doc, again);
    // A finding keeps its fingerprint when its level (and so its severity) changes.
    let warned: serde_json::Value =
        serde_json::from_slice(&run(p.path(), &["-o", "gitlab", "-W", "GT047", ODD_NAME]).stdout)
            .unwrap();
    let fp_of = |d: &serde_json::Value| {
        d.as_array()
            .unwrap()
            .iter()
            .find(|i| i["check_name"] == "GT047")
            .map(|i| i["fingerprint"].clone())
            .unwrap()
    };
    assert_eq!(fp_of(&doc), fp_of(&warned));
    // ... and not when the same bytes sit in another file.
    std::fs::copy(p.path().join(ODD_NAME), p.path().join("copy.tf")).unwrap();
    let copy: serde_json::Value =
        serde_json::from_slice(&run(p.path(), &["-o", "gitlab", "copy.tf"]).stdout).unwrap();
    assert_ne!(fp_of(&doc), fp_of(&copy));
}

/// The fingerprint is a hash of where the finding is and which rule, not of its wording.
#[test]
fn gitlab_fingerprints_do_not_depend_on_the_message() {
    let path = corpus("gdb/defects/circular-corrupt.tf");
    let config = tracelint::config::Config::default();
    let mut r = tracelint::check::check_path(&path, &Default::default(), &config);
    let before = tracelint::report::gitlab::render(std::slice::from_ref(&r), None);
    for f in &mut r.findings {
        f.message.push_str(" (reworded)");
    }
    let after = tracelint::report::gitlab::render(std::slice::from_ref(&r), None);
    let fps = |s: &str| -> Vec<serde_json::Value> {
        let v: serde_json::Value = serde_json::from_str(s).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|i| i["fingerprint"].clone())
            .collect()
    };
    assert_ne!(before, after);
    assert_eq!(fps(&before), fps(&after));
}

fn child<'a, 'i>(c: roxmltree::Node<'a, 'i>, tag: &str) -> Option<roxmltree::Node<'a, 'i>> {
    c.children().find(|n| n.has_tag_name(tag))
}

#[test]
fn junit_is_well_formed_xml_with_one_case_per_input() {
    let p = Project::new();
    std::fs::write(p.path().join("ctl.dat"), b"\x01\x02 not a trace \x1b[31m").unwrap();
    let args = ["-o", "junit", "good.tf", ODD_NAME, "ctl.dat", "missing.dat"];
    let o = run(p.path(), &args);
    assert_eq!(o.status.code(), Some(3), "an unreadable input");
    let text = out(&o);
    let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{e}:\n{text}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let suites: Vec<_> = root.children().filter(|n| n.is_element()).collect();
    assert_eq!(suites.len(), 1);
    let suite = suites[0];
    assert_eq!(suite.tag_name().name(), "testsuite");
    let cases: Vec<_> = suite
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 4);
    assert_eq!(suite.attribute("tests"), Some("4"));
    let case = |name: &str| {
        *cases
            .iter()
            .find(|c| c.attribute("name") == Some(name))
            .unwrap_or_else(|| panic!("no case {name}"))
    };
    // The good file passes; the broken one (its odd name intact) fails on its first error
    // by offset.
    assert!(child(case("good.tf"), "failure").is_none());
    let bad = case(ODD_NAME);
    let failure = child(bad, "failure").unwrap();
    let first_error = json_findings(p.path(), &[ODD_NAME])
        .into_iter()
        .find(|(_, s, _)| s == "error")
        .unwrap();
    assert_eq!(failure.attribute("type"), Some(first_error.0.as_str()));
    assert!(failure.text().unwrap().contains("GT058 [error]"));
    assert_eq!(bad.attribute("classname"), Some("tracelint.gdb-tfile"));
    // Not a trace: an error finding, its control bytes kept out of the XML.
    assert!(child(case("ctl.dat"), "failure").is_some());
    // Unreadable: a JUnit error, not a failure.
    let missing = case("missing.dat");
    assert_eq!(
        child(missing, "error").unwrap().attribute("type"),
        Some("TL001")
    );
    assert_eq!(suite.attribute("failures"), Some("2"));
    assert_eq!(suite.attribute("errors"), Some("1"));
    // A warnings-only input passes, and fails with --deny warnings (as the exit code says).
    for (deny, fails) in [(false, false), (true, true)] {
        let mut args = vec!["-o", "junit", "-W", "GT", ODD_NAME];
        if deny {
            args.extend(["--deny", "warnings"]);
        }
        let o = run(p.path(), &args);
        assert_eq!(o.status.code(), Some(i32::from(fails)));
        let text = out(&o);
        let doc = roxmltree::Document::parse(&text).unwrap();
        let f = doc.descendants().find(|n| n.has_tag_name("failure"));
        assert_eq!(f.is_some(), fails, "{text}");
        if let Some(f) = f {
            assert!(f.attribute("message").unwrap().contains("finding(s)"));
            assert!(f.text().unwrap().contains("GT047 [warning]"));
        }
    }
}

#[test]
fn concise_is_one_line_per_finding() {
    let p = Project::new();
    let o = run(p.path(), &["-o", "concise", "good.tf", ODD_NAME]);
    assert_eq!(o.status.code(), Some(1));
    let text = out(&o);
    let line = regex::Regex::new(
        r"^(?P<path>.+):0x(?P<off>[0-9a-f]+): (?P<code>[A-Z]{2}[0-9]{3}) \[(?P<sev>error|warning|info)\] \S.*$",
    )
    .unwrap();
    let expected = json_findings(p.path(), &["good.tf", ODD_NAME]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), expected.len(), "{text}");
    for (l, (code, sev, offset)) in lines.iter().zip(&expected) {
        let c = line.captures(l).unwrap_or_else(|| panic!("{l}"));
        assert_eq!(&c["code"], code);
        assert_eq!(&c["sev"], sev);
        assert_eq!(u64::from_str_radix(&c["off"], 16).unwrap(), *offset);
        assert!(&c["path"] == "good.tf" || &c["path"] == ODD_NAME);
    }
    assert!(text.contains(&format!("{ODD_NAME}:0x4fef: GT047 [error] ")));
}

/// `--output-file`: the machine output goes to the file, the summary to the terminal; the exit
/// code is the same.
#[test]
fn output_file_keeps_the_summary_on_stdout() {
    let p = Project::new();
    for kind in [
        "sarif", "gitlab", "junit", "json", "concise", "github", "human",
    ] {
        let file = p.path().join(format!("report.{kind}"));
        let o = run(
            p.path(),
            &[
                "-o",
                kind,
                "--output-file",
                file.to_str().unwrap(),
                ODD_NAME,
            ],
        );
        assert_eq!(o.status.code(), Some(1), "{kind}");
        let stdout = out(&o);
        assert!(
            stdout.starts_with("checked 1 input(s): 0 passed, 1 failed"),
            "{kind}: {stdout}"
        );
        // Only the summary: its counts line, hidden info and findings by code.
        assert!(stdout.lines().count() <= 3, "{kind}: {stdout}");
        assert!(stdout.contains("findings by code: "), "{kind}: {stdout}");
        assert!(
            !stdout.contains("error[GT047]") && !stdout.contains("0x4fef"),
            "{kind}: {stdout}"
        );
        let written = std::fs::read_to_string(&file).unwrap();
        assert!(written.contains("GT047"), "{kind}: {written}");
        assert!(!written.contains('\u{1b}'), "{kind}: colours in a file");
        let q = run(
            p.path(),
            &[
                "-o",
                kind,
                "-q",
                "--output-file",
                file.to_str().unwrap(),
                ODD_NAME,
            ],
        );
        assert_eq!(out(&q), "", "{kind}: --quiet");
    }
    let o = run(
        p.path(),
        &[
            "-o",
            "sarif",
            "--output-file",
            "/nonexistent/dir/x.sarif",
            "good.tf",
        ],
    );
    assert_eq!(o.status.code(), Some(3));
}

/// `--exit-zero`: findings no longer fail the run; an unreadable input still does (exit 3).
#[test]
fn exit_zero_reports_but_does_not_fail() {
    let p = Project::new();
    let o = run(p.path(), &["--exit-zero", "-o", "concise", ODD_NAME]);
    assert_eq!(o.status.code(), Some(0));
    assert!(out(&o).contains("GT047 [error]"));
    let o = run(p.path(), &["--exit-zero", "missing.dat"]);
    assert_eq!(o.status.code(), Some(3));
}

/// FORCE_COLOR and CLICOLOR_FORCE colour a pipe; NO_COLOR wins over both; `--color never`
/// wins over everything.
#[test]
fn force_color_is_honoured() {
    let p = Project::new();
    let colored = |env: &[(&str, &str)], extra: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_tracelint"));
        c.env_remove("TRACELINT_CONFIG")
            .env_remove("NO_COLOR")
            .env_remove("FORCE_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .current_dir(p.path())
            .args(extra)
            .arg(ODD_NAME);
        for (k, v) in env {
            c.env(k, v);
        }
        let o = c.output().unwrap();
        o.stdout.contains(&0x1b)
    };
    assert!(!colored(&[], &[]));
    assert!(colored(&[("FORCE_COLOR", "1")], &[]));
    assert!(colored(&[("CLICOLOR_FORCE", "1")], &[]));
    assert!(!colored(&[("FORCE_COLOR", "0")], &[]));
    assert!(!colored(&[("FORCE_COLOR", "1"), ("NO_COLOR", "1")], &[]));
    assert!(!colored(&[("FORCE_COLOR", "1")], &["--color", "never"]));
}

/// The runner's grammar has escapes for `%`, CR and LF (and `:`, `,` in properties) only; any
/// other control byte of a name is written as `\xNN`, never raw into the log.
#[test]
fn github_commands_carry_no_raw_control_bytes() {
    let p = Project::new();
    let name = "esc\u{1b}[31mred\u{7}.tf";
    std::fs::copy(p.path().join(ODD_NAME), p.path().join(name)).unwrap();
    let o = run(p.path(), &["-o", "github", "-v", name]);
    assert_eq!(o.status.code(), Some(1));
    let text = out(&o);
    assert!(!text.is_empty());
    for l in text.lines() {
        assert!(!l.chars().any(char::is_control), "{l:?}");
        assert!(l.contains(r"file=esc\x1b[31mred\x07.tf,line=1"), "{l}");
    }
}

/// `-o concise` stays one line per finding when a name holds a line break.
#[test]
fn concise_escapes_a_line_break_in_a_name() {
    let p = Project::new();
    let name = "two\nlines.tf";
    std::fs::copy(p.path().join(ODD_NAME), p.path().join(name)).unwrap();
    let o = run(p.path(), &["-o", "concise", name]);
    assert_eq!(o.status.code(), Some(1));
    let text = out(&o);
    let expected = json_findings(p.path(), &[name]);
    assert_eq!(text.lines().count(), expected.len(), "{text}");
    for l in text.lines() {
        assert!(l.starts_with(r"two\x0alines.tf:0x"), "{l}");
    }
}

/// The Jenkins xunit plugin validates a JUnit report against its `junit-10.xsd` (vendored
/// unchanged as tests/junit-10.xsd from jenkinsci/xunit-plugin, commit 8c515de, file
/// src/main/resources/org/jenkinsci/plugins/xunit/types/model/xsd/junit-10.xsd, under the MIT
/// license its header carries; `xmllint` of libxml2 validates):
/// the report of passing, failing, unreadable inputs and names with markup, `,` `:` `%`, a
/// line break and a control byte is valid, and the names come back exactly.
#[test]
fn junit_validates_against_the_jenkins_schema() {
    let Ok(v) = Command::new("xmllint").arg("--version").output() else {
        skip::skip_or_fail("xmllint is not installed (Debian: libxml2-utils)");
        return;
    };
    assert!(v.status.success());
    let p = Project::new();
    let lines = "two\nlines\ttab.tf";
    std::fs::copy(p.path().join(ODD_NAME), p.path().join(lines)).unwrap();
    std::fs::write(p.path().join("ctl.dat"), b"\x01\x02 not a trace \x1b[31m").unwrap();
    for deny in [false, true] {
        let mut args = vec![
            "-o",
            "junit",
            "good.tf",
            ODD_NAME,
            lines,
            "ctl.dat",
            "missing.dat",
        ];
        if deny {
            args.extend(["--deny", "warnings"]);
        }
        let o = run(p.path(), &args);
        assert_eq!(o.status.code(), Some(3));
        let text = out(&o);
        let report = p.path().join("report.xml");
        std::fs::write(&report, &text).unwrap();
        let xsd = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/junit-10.xsd");
        let check = Command::new("xmllint")
            .arg("--noout")
            .arg("--schema")
            .arg(&xsd)
            .arg(&report)
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "{}\n{text}",
            String::from_utf8_lossy(&check.stderr)
        );
        let doc = roxmltree::Document::parse(&text).unwrap();
        let names: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .filter_map(|n| n.attribute("name"))
            .collect();
        assert_eq!(
            names,
            ["good.tf", ODD_NAME, lines, "ctl.dat", "missing.dat"],
            "{text}"
        );
        assert!(text.contains("name=\"two&#10;lines&#9;tab.tf\""), "{text}");
    }
}

/// A root-level file named `x:y.dat` is a relative reference in SARIF, not a URI of scheme
/// `x` (RFC 3986 section 4.2: a colon in a first segment is percent-encoded).
#[test]
fn sarif_uri_of_a_name_with_a_colon_has_no_scheme() {
    let p = Project::new();
    std::fs::copy(p.path().join(ODD_NAME), p.path().join("x:y.dat")).unwrap();
    std::fs::create_dir(p.path().join("sub")).unwrap();
    std::fs::copy(p.path().join(ODD_NAME), p.path().join("sub/a:b.tf")).unwrap();
    let o = run(p.path(), &["-o", "sarif", "x:y.dat", "sub/a:b.tf"]);
    assert_eq!(o.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let uris: std::collections::BTreeSet<&str> = doc["runs"][0]["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["location"]["uri"].as_str().unwrap())
        .collect();
    let scheme = regex::Regex::new(r"^[A-Za-z][A-Za-z0-9+.-]*:").unwrap();
    for u in &uris {
        assert!(!scheme.is_match(u), "{u} reads as a URI with a scheme");
    }
    assert!(uris.contains("x%3Ay.dat"), "{uris:?}");
    // A colon past the first segment needs no escape.
    assert!(uris.contains("sub/a:b.tf"), "{uris:?}");
}

/// Every output lists the findings of one file by offset, the most severe first at one
/// offset: JSON, concise, GitHub, GitLab and SARIF in the same order.
#[test]
fn findings_are_in_offset_order_in_every_output() {
    let p = Project::new();
    let inputs = ["good.tf", ODD_NAME];
    let json = json_findings(p.path(), &inputs);
    let rank = |s: &str| match s {
        "error" => 0,
        "warning" => 1,
        _ => 2,
    };
    for name in inputs {
        let mine = json_findings(p.path(), &[name]);
        assert!(mine.len() > 1, "{name}: too few findings to show an order");
        let keys: Vec<_> = mine.iter().map(|(_, s, o)| (*o, rank(s))).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted, "{name}: {mine:?}");
    }
    let offsets = |v: &[(String, String, u64)]| v.iter().map(|x| x.2).collect::<Vec<_>>();
    let concise: Vec<u64> = out(&run(p.path(), &["-o", "concise", "good.tf", ODD_NAME]))
        .lines()
        .map(|l| {
            let hex = l.rsplit_once(":0x").unwrap().1.split(':').next().unwrap();
            u64::from_str_radix(hex, 16).unwrap()
        })
        .collect();
    assert_eq!(concise, offsets(&json));
    let github: Vec<u64> = out(&run(p.path(), &["-o", "github", "-v", "good.tf", ODD_NAME]))
        .lines()
        .map(|l| {
            let m = l.split_once("::").unwrap().1.split_once("::").unwrap().1;
            let hex = m.strip_prefix("0x").unwrap().split(':').next().unwrap();
            u64::from_str_radix(hex, 16).unwrap()
        })
        .collect();
    assert_eq!(github, offsets(&json));
    let sarif: serde_json::Value =
        serde_json::from_slice(&run(p.path(), &["-o", "sarif", "good.tf", ODD_NAME]).stdout)
            .unwrap();
    let sarif_offsets: Vec<u64> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["region"]["byteOffset"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(sarif_offsets, offsets(&json));
    let gitlab: serde_json::Value =
        serde_json::from_slice(&run(p.path(), &["-o", "gitlab", "good.tf", ODD_NAME]).stdout)
            .unwrap();
    let codes: Vec<&str> = gitlab
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["check_name"].as_str().unwrap())
        .collect();
    assert_eq!(codes, json.iter().map(|x| x.0.as_str()).collect::<Vec<_>>());
}
