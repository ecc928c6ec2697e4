//! The rule registry: codes are unique, well-formed and locked; `rules/` is generated from it.

use std::collections::HashSet;
use std::path::Path;
use tracelint::registry::{self, Family};

#[test]
fn codes_and_names_are_unique_and_well_formed() {
    let mut codes = HashSet::new();
    let mut names = HashSet::new();
    for r in registry::all() {
        assert!(codes.insert(r.code), "duplicate code {}", r.code);
        assert!(names.insert(r.name), "duplicate name {}", r.name);
        assert!(
            r.code.starts_with(r.family.prefix()) && r.code.len() == 5,
            "{} must be {}NNN",
            r.code,
            r.family.prefix()
        );
        assert!(
            r.code[2..].chars().all(|c| c.is_ascii_digit()),
            "{}",
            r.code
        );
        assert!(
            r.name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && !r.name.starts_with('-')
                && !r.name.ends_with('-'),
            "{} name `{}` is not kebab-case",
            r.code,
            r.name
        );
        assert!(!r.summary.is_empty(), "{} has no summary", r.code);
        assert!(
            r.docs.contains("## What it checks") && r.docs.contains("## Why it matters"),
            "{} docs need `## What it checks` and `## Why it matters` sections",
            r.code
        );
        assert_eq!(registry::lookup(r.code), Some(r));
        assert_eq!(registry::lookup(r.name), Some(r));
    }
}

/// (code, name) pairs listed in a committed family document.
fn committed_pairs(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| {
            let l = l.strip_prefix("| [")?;
            let (code, rest) = l.split_once(']')?;
            let name = rest.split('`').nth(1)?;
            Some((code.to_string(), name.to_string()))
        })
        .collect()
}

/// Rule codes are stable: a code in the committed docs may never disappear or change its name.
/// The committed `rules/*.md` must equal what the registry renders
/// (`UPDATE_RULE_DOCS=1 cargo test --test rule_docs` rewrites them, but never drops a code).
#[test]
fn rule_docs_are_fresh_and_codes_locked() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
    let update = std::env::var_os("UPDATE_RULE_DOCS").is_some();
    for f in Family::ALL {
        let path = dir.join(format!("{}.md", f.slug()));
        if let Ok(old) = std::fs::read_to_string(&path) {
            for (code, name) in committed_pairs(&old) {
                let r = registry::lookup(&code).unwrap_or_else(|| {
                    panic!("rule {code} ({name}) was removed: codes are stable")
                });
                assert_eq!(
                    r.name, name,
                    "rule {code} was renamed: codes and names are stable"
                );
            }
        }
    }
    let mut stale = Vec::new();
    for (name, text) in registry::rendered_docs() {
        let path = dir.join(&name);
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        if old != text {
            if update {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, text).unwrap();
            } else {
                stale.push(name);
            }
        }
    }
    assert!(
        stale.is_empty(),
        "rules/ is stale ({stale:?}): run `UPDATE_RULE_DOCS=1 cargo test --test rule_docs`"
    );
}

/// Every rule says what the readers do when it is broken: the ground for its level.
#[test]
fn every_rule_says_what_readers_do() {
    let missing: Vec<&str> = registry::all()
        .filter(|r| !r.docs.contains("## What readers do"))
        .map(|r| r.code)
        .collect();
    assert!(
        missing.is_empty(),
        "{} rules lack a `## What readers do` section: {missing:?}",
        missing.len()
    );
}
