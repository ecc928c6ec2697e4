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
