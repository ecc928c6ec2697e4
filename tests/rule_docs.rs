//! The rule registry: codes are unique, well-formed and locked; `rules/` is generated from it.

use std::collections::HashSet;
use std::path::Path;
use tracelint::registry;

#[test]
fn codes_and_names_are_unique_and_well_formed() {
    let mut codes = HashSet::new();
    let mut names = HashSet::new();
    for r in registry::all() {
        assert!(codes.insert(r.code), "duplicate code {}", r.code);
        assert!(names.insert(r.name), "duplicate name {}", r.name);
        assert!(
            r.code.starts_with(r.family.prefix) && r.code.len() == 5,
            "{} must be {}NNN",
            r.code,
            r.family.prefix
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
    for f in registry::families() {
        let path = dir.join(format!("{}.md", f.slug));
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

/// Rules that no check raises, with the reason they stay published.
const RESERVED: &[(&str, &str)] = &[(
    "TD020",
    "no check finds overlapping sections as such yet; CPU data over the metadata is TD034, and a \
     section read at a wrong place shows as the findings of its content",
)];

/// Rules raised from more than one file, with the reason.
const RAISED_IN_SEVERAL: &[(&str, &str)] = &[
    ("GT031", "one `tp` line's source type is judged as it is parsed (decode/text.rs); repeated sources of one tracepoint after all its lines are read (lint.rs)"),
    ("GT047", "the frame walker (decode/frames.rs) and the tracepoint-aware frame pass, throttled (lint.rs)"),
    ("KT027", "a trailing partial event found from sizes while decoding (decode/mod.rs); a read that fails mid-event in the windowed event walk (decode/events.rs)"),
    ("TD007", "truncation of the header and option records (decode/mod.rs) and of a metadata section's text (decode/meta.rs)"),
    ("TD028", "the header's CPU count against the CPUCOUNT option while decoding (decode/mod.rs); against the flyrecord tables after decoding (lint.rs)"),
    ("TD030", "missing metadata options while decoding (decode/mod.rs); a non-nanosecond top-buffer clock without TRACECLOCK (v6 and v7), judged once the CPU walk has counted events (lint.rs)"),
    ("TD031", "v6 BUFFER options read inline with the header (decode/mod.rs); v7 BUFFER option bodies (decode/options.rs)"),
    ("TD034", "CPU data over other CPU data, found by the data walk that skips it (decode/data.rs); CPU data over metadata structures (lint.rs)"),
    ("TD040", "bytes after the last option section while decoding (decode/mod.rs); bytes after the last structure found by the layout pass (lint.rs)"),
    ("TD041", "section tags of the header and options (decode/mod.rs); the magic words inside metadata sections (decode/meta.rs)"),
    ("TD052", "the header_event text as parsed (decode/meta.rs); a newer layout judged against the writer version (lint.rs)"),
    ("TL001", "the entry point for the command line (check.rs), the windowed ktrace reader (formats/ktrace/mod.rs), the perf.data directory reader (formats/perf/mod.rs) and the daemon (watch/judge.rs) each read files"),
    ("TL002", "detection by content (check.rs); a ktrace hint on a file with another magic (formats/ktrace/decode/mod.rs)"),
    ("TL003", "Sink::limit is the one helper that formats and check_path use (finding.rs); the daemon raises it for a check that runs past max_check_seconds (watch/judge.rs)"),
    ("TL004", "a panic caught by check_path (check.rs); a daemon check thread that ended without a report (watch/judge.rs)"),
    ("TL007", "non-regular inputs refused by check_path (check.rs) and by the daemon before it settles a file (watch/judge.rs)"),
    ("UF002", "the task data files read in parallel (checks/mod.rs), a .dat file that fails mid-walk (checks/dat.rs), and the files read before the checks (mod.rs)"),
    ("UF003", "files the directory walk does not know (mod.rs) and files named after tasks that do not exist (checks/mod.rs)"),
    ("UF022", "info feature bits against the files present (checks/mod.rs) and against the records seen in a .dat walk (checks/dat.rs)"),
    ("UF041", "a map file's own lines (decode/maps.rs) and the maps of a session compared across files (checks/mod.rs)"),
    ("UF051", "a .sym file's lines (decode/sym.rs) and the kernel symbol file of the kernel ring (decode/kernel.rs)"),
    ("UF091", "the kernel directory's files (decode/kernel.rs) and its presence against the info feature bits (checks/mod.rs)"),
];

/// `tracelint explain` and `rules/*.md` name the file that raises each rule; a rule must be
/// raised from exactly one file unless it is listed (with a reason) as reserved or as raised
/// from several.
#[test]
fn every_rule_is_raised_from_one_file() {
    let mut problems = Vec::new();
    for r in registry::all() {
        let files = registry::raised_in(r);
        let reserved = RESERVED.iter().any(|(c, _)| *c == r.code);
        let several = RAISED_IN_SEVERAL.iter().any(|(c, _)| *c == r.code);
        match files.len() {
            0 if !reserved => problems.push(format!("{} is raised nowhere", r.code)),
            1 if reserved || several => problems.push(format!(
                "{} is raised only in {}: drop it from the list in tests/rule_docs.rs",
                r.code, files[0]
            )),
            n if n > 1 && !several => problems.push(format!(
                "{} is raised from {n} files ({files:?}): raise it from one, or list it with a reason",
                r.code
            )),
            n if n > 1 && reserved => {
                problems.push(format!("{} is raised but listed as reserved", r.code))
            }
            _ => {}
        }
        for f in files {
            assert!(
                Path::new(env!("CARGO_MANIFEST_DIR")).join(f).is_file(),
                "{}: {f} does not exist",
                r.code
            );
        }
        let text = registry::explain(r);
        let first = files.first().copied().unwrap_or("nowhere");
        assert!(
            text.contains("- Raised in: ") && text.contains(first),
            "explain {} does not say where it is raised:\n{text}",
            r.code
        );
    }
    for (code, _) in RESERVED.iter().chain(RAISED_IN_SEVERAL) {
        assert!(registry::lookup(code).is_some(), "{code} is not a rule");
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
