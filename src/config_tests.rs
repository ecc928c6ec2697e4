//! Unit tests of `config`.

use super::*;

#[test]
fn unknown_rule_has_span() {
    let text = "[rules]\nNOPE999 = \"allow\"\n";
    let e = Config::parse(text, Path::new("t.toml")).unwrap_err();
    let span = e.span.clone().unwrap();
    assert_eq!(&text[span], "NOPE999");
}

#[test]
fn bad_level_and_unknown_key() {
    assert!(Config::parse("[rules]\nTL001 = \"loud\"\n", Path::new("t")).is_err());
    assert!(Config::parse("[limitz]\n", Path::new("t")).is_err());
    let c = Config::parse(
        "[rules]\nempty-input = \"warn\"\n[limits]\nmax_findings = 5\n",
        Path::new("t"),
    )
    .unwrap();
    assert_eq!(c.levels.get("TL005"), Some(&Level::Warn));
    assert_eq!(c.limits.max_findings, 5);
}

#[test]
fn selectors_by_prefix_and_format_with_specificity() {
    let c = Config::parse(
        "[rules]\nGT047 = \"deny\"\nGT = \"allow\"\nuftrace = \"warn\"\nTD1 = \"info\"\n",
        Path::new("t"),
    )
    .unwrap();
    assert_eq!(c.levels.get("GT047"), Some(&Level::Deny));
    assert_eq!(c.levels.get("GT001"), Some(&Level::Allow));
    assert!(registry::rules_of(crate::formats::uftrace::rules::FAMILY)
        .iter()
        .all(|r| c.levels.get(r.code) == Some(&Level::Warn)));
    assert_eq!(c.levels.get("TD100"), Some(&Level::Info));
    assert_eq!(c.levels.get("TD014"), None);
    assert!(Config::parse("[rules]\nZZ = \"allow\"\n", Path::new("t")).is_err());
}

#[test]
fn path_patterns_match_names_anywhere_and_paths_from_the_root() {
    let m = PathMatcher::new(["defects", "corpus/**/regressions", "*.tmp"]).unwrap();
    assert!(m.matches_entry(Path::new("a/b/defects")));
    assert!(!m.matches_entry(Path::new("a/defects/x.tf")));
    assert!(m.matches_path(Path::new("a/defects/x.tf")));
    assert!(m.matches_entry(Path::new("corpus/gdb/regressions")));
    assert!(m.matches_entry(Path::new("corpus/regressions")));
    assert!(!m.matches_entry(Path::new("other/gdb/regressions")));
    assert!(m.matches_entry(Path::new("x/y.tmp")));
    assert!(!m.matches_entry(Path::new("x/y.tmpx")));
    assert!(PathMatcher::new(["a[b"]).is_err());
}

/// The sinks' level table, built once and kept, follows every change of the levels: a
/// selector set afterwards, or the levels changed directly.
#[test]
fn sink_levels_follow_the_levels() {
    let mut c = Config::parse("[rules]\nempty-input = \"warn\"\n", Path::new("t")).unwrap();
    let rule = &crate::rules::EMPTY_INPUT;
    assert_eq!(c.levels().severity_of(rule), Some(Severity::Warning));
    assert_eq!(c.levels().severity_of(rule), Some(Severity::Warning));
    assert!(c.set_selector("TL005", Level::Deny));
    assert_eq!(c.levels().severity_of(rule), Some(Severity::Error));
    c.levels.insert("TL005", Level::Allow);
    assert_eq!(c.levels().severity_of(rule), None);
}

#[test]
fn program_is_relative_to_the_configuration_folder() {
    let c = Config::parse(
        "[check]\nprogram = \"build/app\"\n",
        Path::new("/work/proj/tracelint.toml"),
    )
    .unwrap();
    assert_eq!(
        c.check.program.as_deref(),
        Some(Path::new("/work/proj/build/app"))
    );
    let c = Config::parse("[check]\nprogram = \"/opt/app\"\n", Path::new("/w/t.toml")).unwrap();
    assert_eq!(c.check.program.as_deref(), Some(Path::new("/opt/app")));
    let e = Config::parse("[check]\nprogram = \"\"\n", Path::new("t.toml")).unwrap_err();
    assert!(e.message.contains("check.program"), "{}", e.message);
    assert!(Config::parse("[check]\nprogram = 3\n", Path::new("t.toml")).is_err());
}
