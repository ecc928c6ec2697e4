//! SARIF output validates against the official SARIF 2.1.0 JSON schema
//! (tests/sarif-schema-2.1.0.json, the OASIS 2.1.0 schema as shipped in the MIT-licensed
//! `@microsoft/jest-sarif` npm package, `lib/schemas/sarif-2.1.0-rtm.5.json`), for every
//! corpus input, and carries invocations, notifications and documentation links.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn validator() -> jsonschema::Validator {
    // The 2.1.0 schema's `language` pattern has a stray `]` that a strict regex engine
    // rejects; the OASIS errata (2.1.0 errata01) corrects it to this.
    let text = include_str!("sarif-schema-2.1.0.json").replace(
        r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#,
        r#""^[a-zA-Z]{2}(-[a-zA-Z]{2})?$""#,
    );
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

fn sarif(args: &[&str]) -> serde_json::Value {
    let o = Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(["check", "-o", "sarif"])
        .args(args)
        .env_remove("TRACELINT_CONFIG")
        .output()
        .unwrap();
    assert!(
        matches!(o.status.code(), Some(0 | 1 | 3)),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

fn assert_valid(v: &jsonschema::Validator, doc: &serde_json::Value, what: &str) {
    let errors: Vec<String> = v
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what}: SARIF invalid:\n{}",
        errors.join("\n")
    );
}

/// Every input the CLI would find in the corpus: trace files and uftrace directories.
fn corpus_inputs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    common::inputs(&common::corpus(""), &mut out);
    out
}

#[test]
fn sarif_of_every_corpus_input_is_valid() {
    let v = validator();
    let inputs = corpus_inputs();
    assert!(inputs.len() > 10, "corpus not found");
    for p in &inputs {
        let doc = sarif(&[p.to_str().unwrap()]);
        assert_valid(&v, &doc, &p.display().to_string());
        let run = &doc["runs"][0];
        assert!(run["invocations"][0]["executionSuccessful"]
            .as_bool()
            .unwrap());
    }
    // And the whole corpus in one log.
    let all: Vec<&str> = inputs.iter().map(|p| p.to_str().unwrap()).collect();
    let doc = sarif(&all);
    assert_valid(&v, &doc, "whole corpus");
    assert!(!doc["runs"][0]["results"].as_array().unwrap().is_empty());
}

#[test]
fn sarif_links_rules_to_their_documents() {
    let doc = sarif(&[Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/tracecmd/v6.dat")
        .to_str()
        .unwrap()]);
    let driver = &doc["runs"][0]["tool"]["driver"];
    assert!(driver["informationUri"]
        .as_str()
        .unwrap()
        .starts_with("https://"));
    for rule in driver["rules"].as_array().unwrap() {
        let id = rule["id"].as_str().unwrap();
        let help = rule["helpUri"].as_str().unwrap();
        assert!(
            help.contains("/rules/") && help.ends_with(&format!(".md#{}", id.to_lowercase())),
            "{id}: {help}"
        );
        // The document named exists in the repository and has the rule's heading.
        let rel = &help[help.find("rules/").unwrap()..help.find('#').unwrap()];
        let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel))
            .unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert!(text.contains(&format!("## {id}\n")), "{rel} lacks {id}");
    }
}

#[test]
fn unreadable_inputs_and_limits_are_execution_notifications() {
    let v = validator();
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.dat");
    let doc = sarif(&[missing.to_str().unwrap()]);
    assert_valid(&v, &doc, "missing input");
    let inv = &doc["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    let n = &inv["toolExecutionNotifications"][0];
    assert_eq!(n["associatedRule"]["id"], "TL001");
    assert_eq!(n["level"], "error");

    // A directory with no traces in it (TL008) and a damaged uftrace directory.
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let doc = sarif(&[empty.to_str().unwrap()]);
    assert_valid(&v, &doc, "directory without traces");
    assert_eq!(doc["runs"][0]["results"][0]["ruleId"], "TL008");
    assert!(doc["runs"][0]["artifacts"][0].get("length").is_none());

    let big = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/tracecmd/v6.dat");
    let conf = dir.path().join("tracelint.toml");
    std::fs::write(&conf, "[limits]\nmax_file_bytes = 16\n").unwrap();
    let doc = sarif(&[big.to_str().unwrap(), "--config", conf.to_str().unwrap()]);
    assert_valid(&v, &doc, "limit hit");
    let inv = &doc["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], true);
    let n = &inv["toolExecutionNotifications"][0];
    assert_eq!(n["associatedRule"]["id"], "TL003");
    assert_eq!(n["level"], "warning");
}

/// Findings inside archive members (a logical location, no byte region on the archive) are
/// valid SARIF too.
#[test]
fn sarif_of_an_archive_is_valid() {
    let v = validator();
    let dir = tempfile::tempdir().unwrap();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut b = tar::Builder::new(Vec::new());
    b.append_dir_all("defects", corpus.join("gdb/defects"))
        .unwrap();
    b.append_dir_all("args", corpus.join("uftrace/args"))
        .unwrap();
    let a = dir.path().join("upload.tar");
    std::fs::write(&a, b.into_inner().unwrap()).unwrap();
    let doc = sarif(&[a.to_str().unwrap()]);
    assert_valid(&v, &doc, "archive");
    let results = doc["runs"][0]["results"].as_array().unwrap();
    assert!(!results.is_empty());
    assert!(results
        .iter()
        .all(|r| r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"].is_string()));
}
