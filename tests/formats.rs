//! Every entry of the format table (`tracelint::formats::FORMATS`) is reachable from each place
//! that serves a format: its name (`--format`), detection by content, the check entry points
//! (with and without a hint, on the format's corpus files), the rule registry and its rendered
//! documents, and the fuzz targets. A format added to the table with a folder of its own and
//! nothing else passes this test; one that is missing from any of these places fails it.

mod common;

use std::path::{Path, PathBuf};
use tracelint::config::Config;
use tracelint::formats::{self, FormatSpec, FORMATS};
use tracelint::{check_path, fuzzing, registry, CheckOptions};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The format's good corpus inputs: the files (or, for a directory format, the directories)
/// directly under `corpus/<corpus>/`.
fn corpus_inputs(spec: &FormatSpec) -> Vec<PathBuf> {
    let dir = root().join("corpus").join(spec.corpus);
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            if spec.dir.is_some() {
                formats::detect_dir(p).is_some()
            } else {
                p.is_file()
            }
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_format_has_a_name_the_command_line_takes() {
    let mut names = std::collections::BTreeSet::new();
    for spec in FORMATS {
        let name = spec.format.name();
        assert!(names.insert(name), "{name} is in the table twice");
        assert_eq!(formats::by_name(name), Ok(spec.format));
        for a in spec.aliases {
            assert_eq!(formats::by_name(a), Ok(spec.format), "alias {a}");
        }
        assert!(std::ptr::eq(formats::spec(spec.format).unwrap(), *spec));
        let msg = formats::by_name("no-such-format").unwrap_err();
        assert!(msg.contains(name), "{msg}");
    }
}

#[test]
fn every_format_is_detected_by_content_or_named_only_by_a_hint() {
    for spec in FORMATS {
        for m in spec.magics {
            let mut head = m.to_vec();
            head.resize(32, 0);
            assert_eq!(
                formats::detect_bytes(&head),
                Some(spec.format),
                "{}: magic {m:02x?}",
                spec.format
            );
            // A magic cut short is not passed over by a directory search.
            assert!(
                formats::near_magic(&m[..m.len() - 1]),
                "{}: {m:02x?}",
                spec.format
            );
        }
        if let Some(d) = &spec.dir {
            let dirs = corpus_inputs(spec);
            assert!(!dirs.is_empty(), "{}: no directory in corpus/", spec.format);
            for p in &dirs {
                assert!((d.detect)(p), "{}", p.display());
                assert_eq!(formats::detect_dir(p), Some(spec.format));
            }
            assert!(
                formats::near_magic(&d.magic[..d.magic.len() - 1]),
                "{}",
                spec.format
            );
        }
        if spec.magics.is_empty() && spec.dir.is_none() {
            // Only a hint selects it: detection must never pick it.
            for other in FORMATS {
                for m in other.magics {
                    assert_ne!(formats::detect_bytes(m), Some(spec.format));
                }
            }
        }
    }
}

#[test]
fn every_format_is_checked_through_the_entry_points() {
    let config = Config::default();
    for spec in FORMATS {
        let inputs = corpus_inputs(spec);
        assert!(
            !inputs.is_empty(),
            "{}: nothing in corpus/{}",
            spec.format,
            spec.corpus
        );
        let mut detected = 0;
        for p in &inputs {
            let hinted = CheckOptions {
                format_hint: Some(spec.format),
                ..CheckOptions::default()
            };
            let r = check_path(p, &hinted, &config);
            assert_eq!(r.format, Some(spec.format), "{}", p.display());
            assert!(
                r.findings.iter().all(|f| f.rule.code != "TL004"),
                "{}: {:?}",
                p.display(),
                r.findings
            );
            let r = check_path(p, &CheckOptions::default(), &config);
            if r.format == Some(spec.format) {
                detected += 1;
            }
            // Read rather than mapped, the same verdict.
            let read = CheckOptions {
                format_hint: Some(spec.format),
                load_mode: tracelint::input::LoadMode::Read,
                ..CheckOptions::default()
            };
            assert_eq!(
                check_path(p, &read, &config).counts,
                check_path(p, &hinted, &config).counts,
                "{}",
                p.display()
            );
        }
        let by_content = !spec.magics.is_empty() || spec.dir.is_some();
        assert_eq!(
            detected > 0,
            by_content,
            "{}: {detected} of {} corpus inputs detected without a hint",
            spec.format,
            inputs.len()
        );
    }
}

#[test]
fn every_format_has_its_rules_in_the_registry_and_the_documents() {
    let families = registry::families();
    for spec in FORMATS {
        assert!(families.contains(&spec.family), "{}", spec.format);
        let rules = registry::rules_of(spec.family);
        assert!(!rules.is_empty(), "{}: no rules", spec.format);
        let declared: Vec<_> = spec.rules.iter().flat_map(|t| t.iter()).collect();
        assert_eq!(declared.len(), rules.len(), "{}", spec.format);
        for r in declared {
            assert_eq!(r.family, spec.family, "{}", r.code);
            assert!(r.code.starts_with(spec.family.prefix), "{}", r.code);
            assert_eq!(registry::lookup(r.code).map(|x| x.code), Some(r.code));
        }
        let doc = root()
            .join("rules")
            .join(format!("{}.md", spec.family.slug));
        assert!(doc.is_file(), "{}", doc.display());
        let selected = registry::select(spec.family.name).map(|(r, _)| r.len());
        assert_eq!(selected, Some(rules.len()), "selector {}", spec.family.name);
    }
}

#[test]
fn every_format_is_fuzzed() {
    let target = std::fs::read_to_string(root().join("fuzz/fuzz_targets/formats.rs")).unwrap();
    assert!(target.contains("fuzzing::run_formats"), "{target}");
    let cargo = std::fs::read_to_string(root().join("fuzz/Cargo.toml")).unwrap();
    assert!(cargo.contains("fuzz_targets/formats.rs"));
    for (i, spec) in FORMATS.iter().enumerate() {
        // The first byte picks the entry: each is reached, with the format's own input.
        let pick = u8::try_from(i).unwrap();
        for p in corpus_inputs(spec).iter().take(2) {
            let input = if p.is_dir() {
                let mut files = Vec::new();
                for e in std::fs::read_dir(p).unwrap().flatten() {
                    if e.path().is_file() {
                        let name = e.file_name().to_string_lossy().into_owned();
                        files.push((name, std::fs::read(e.path()).unwrap()));
                    }
                }
                files.sort();
                fuzzing::encode_dir_image(&files)
            } else {
                std::fs::read(p).unwrap()
            };
            if input.len() > 1 << 20 {
                continue;
            }
            let mut data = vec![pick];
            data.extend_from_slice(&input);
            fuzzing::run_formats(&data);
            fuzzing::run_format(spec, &input);
        }
    }
}
