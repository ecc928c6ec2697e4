//! `tracelint map` over every corpus input: a tree that stays inside the input, with findings
//! attached to nodes, and identical JSON from the CLI.

use std::path::{Path, PathBuf};
use tracelint::check::{check_path, CheckOptions};
use tracelint::config::Config;
use tracelint::map::MapNode;

fn inputs() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        let mut v: Vec<_> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
        v.sort();
        for p in v {
            if p.is_dir() {
                if tracelint::formats::uftrace::is_data_dir(&p) {
                    out.push(p);
                } else {
                    walk(&p, out);
                }
            } else {
                let head = std::fs::read(&p).unwrap_or_default();
                if tracelint::formats::detect_bytes(&head).is_some() {
                    out.push(p);
                }
            }
        }
    }
    let mut v = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus"),
        &mut v,
    );
    v
}

/// Sizes of the files a node may refer to.
fn file_len(input: &Path, file: Option<&str>) -> u64 {
    let p = match file {
        Some(f) => input.join(f),
        None => input.to_path_buf(),
    };
    std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
}

fn check_node(
    input: &Path,
    n: &MapNode,
    parent_file: Option<&str>,
    nfindings: usize,
    depth: usize,
) {
    assert!(depth < 64, "map too deep");
    let file = n.file.as_deref().or(parent_file);
    let is_dir_node = input.is_dir() && file.is_none();
    // Size-0 nodes record declared positions, which may lie past the end (trace-cmd v6 puts
    // empty CPUs at a page-aligned offset after the file's end).
    if !is_dir_node && n.size > 0 {
        let len = file_len(input, file);
        assert!(
            n.offset.saturating_add(n.size) <= len,
            "{}: node `{}` {:#x}+{} is outside {:?} ({} bytes)",
            input.display(),
            n.label,
            n.offset,
            n.size,
            file,
            len
        );
    }
    for &i in &n.findings {
        assert!(i < nfindings);
    }
    for c in &n.children {
        check_node(input, c, file, nfindings, depth + 1);
    }
}

fn count_attached(n: &MapNode) -> usize {
    n.findings.len() + n.children.iter().map(count_attached).sum::<usize>()
}

#[test]
fn every_corpus_input_has_a_sound_map() {
    let opts = CheckOptions::default();
    let config = Config::default();
    let all = inputs();
    assert!(all.len() >= 10, "corpus too small: {all:?}");
    for p in all {
        let r = check_path(&p, &opts, &config);
        let map = r
            .map
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no map", p.display()));
        assert!(!map.label.is_empty());
        check_node(&p, map, None, r.findings.len(), 0);
        // Every finding that points into the input lands on some node.
        let attachable = r
            .findings
            .iter()
            .filter(|f| f.offset < file_len(&p, f.file.as_deref()))
            .count();
        assert!(
            count_attached(map) >= attachable.min(1),
            "{}: findings not attached to the map",
            p.display()
        );
    }
}

#[test]
fn cli_map_json_matches_the_library() {
    let Some(p) = inputs().into_iter().next() else {
        return;
    };
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tracelint"))
        .args(["map", "-o", "json"])
        .arg(&p)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = check_path(&p, &CheckOptions::default(), &Config::default());
    let lib = serde_json::to_value(r.map.unwrap()).unwrap();
    assert_eq!(v["map"], lib);
    assert_eq!(v["findings"].as_array().unwrap().len(), r.findings.len());
}
