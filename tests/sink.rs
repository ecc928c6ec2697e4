//! The finding sink: configured levels are applied as findings arrive (so allowed rules never
//! use up the cap), and `Capped` reports the first N occurrences of a rule, then a summary.

use std::collections::BTreeMap;
use tracelint::finding::{Capped, Levels, Severity, Sink};
use tracelint::rules::{EMPTY_INPUT, IO_ERROR, UNKNOWN_FORMAT};

#[test]
fn allowed_rules_do_not_use_up_the_cap() {
    let mut levels = BTreeMap::new();
    levels.insert(IO_ERROR.code, None);
    levels.insert(EMPTY_INPUT.code, Some(Severity::Warning));
    let mut sink = Sink::new(2).with_levels(Levels::new(levels));
    for _ in 0..5 {
        sink.report(&IO_ERROR, 0..0, "allowed");
    }
    sink.report(&EMPTY_INPUT, 0..0, "kept, as a warning");
    sink.report(&UNKNOWN_FORMAT, 0..1, "kept at its default level");
    sink.report(&UNKNOWN_FORMAT, 0..1, "past the cap");
    let (kept, by_rule) = sink.into_parts_by_rule();
    let codes: Vec<(&str, Severity)> = kept.iter().map(|f| (f.rule.code, f.severity)).collect();
    assert_eq!(
        codes,
        [
            (EMPTY_INPUT.code, Severity::Warning),
            (UNKNOWN_FORMAT.code, Severity::Error)
        ]
    );
    let dropped: Vec<(&str, u64)> = by_rule.iter().map(|(r, n)| (r.code, *n)).collect();
    assert_eq!(dropped, [(UNKNOWN_FORMAT.code, 1)]);
}

#[test]
fn a_child_sink_shares_the_levels_and_absorb_keeps_them() {
    let mut levels = BTreeMap::new();
    levels.insert(IO_ERROR.code, None);
    let mut parent = Sink::new(10).with_levels(Levels::new(levels));
    let mut child = parent.child(1);
    child.report(&IO_ERROR, 0..0, "allowed in the child too");
    child.report(&UNKNOWN_FORMAT, 0..0, "kept");
    child.report(&UNKNOWN_FORMAT, 0..0, "past the child's cap");
    parent.absorb(child);
    assert_eq!(parent.findings().len(), 1);
    assert_eq!(parent.dropped(), 1);
}

#[test]
fn capped_reports_the_first_n_then_a_summary_at_the_first_held_back() {
    let mut sink = Sink::new(100);
    let mut c = Capped::new(&UNKNOWN_FORMAT, 3);
    for i in 0..10u64 {
        c.report(&mut sink, i * 4..i * 4 + 4, || format!("occurrence {i}"));
    }
    assert_eq!((c.count(), c.hidden()), (10, 7));
    assert_eq!(c.first(), Some(&(0..4)));
    assert_eq!(c.first_hidden(), Some(&(12..16)));
    c.finish(&mut sink, "occurrences");
    let f = sink.findings();
    assert_eq!(f.len(), 4);
    assert_eq!(f[3].offset, 12);
    assert!(
        f[3].message
            .starts_with("7 more occurrences (of 10 in total)"),
        "{}",
        f[3].message
    );

    let mut quiet = Sink::new(100);
    let mut few = Capped::new(&UNKNOWN_FORMAT, 3);
    assert!(few.hit(&(0..1)) && few.hit(&(1..2)));
    few.finish(&mut quiet, "occurrences");
    assert!(
        quiet.findings().is_empty(),
        "no summary when nothing was held back"
    );
}

/// `relevel` moves the kept findings of a rule and those counted past the cap to the new
/// level, and leaves a rule whose level is configured alone.
#[test]
fn relevel_moves_kept_and_dropped_findings_unless_configured() {
    let impact = tracelint::finding::Impact {
        reader: "r",
        versions: "1",
        effect: "same",
    };
    let mut sink = Sink::new(1);
    for _ in 0..3 {
        sink.report(&UNKNOWN_FORMAT, 0..1, "a case");
    }
    sink.relevel(&UNKNOWN_FORMAT, Severity::Warning, impact.clone(), |f| {
        f.message.push_str(", read the same")
    });
    assert_eq!(sink.dropped(), 2);
    let (kept, dropped) = sink.into_parts_by_level();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].severity, Severity::Warning);
    assert_eq!(kept[0].message, "a case, read the same");
    assert_eq!(kept[0].impact.as_ref().map(|i| i.effect), Some("same"));
    let dropped: Vec<_> = dropped.iter().map(|(r, s, n)| (r.code, *s, *n)).collect();
    assert_eq!(dropped, [(UNKNOWN_FORMAT.code, Severity::Warning, 2)]);

    let mut levels = BTreeMap::new();
    levels.insert(UNKNOWN_FORMAT.code, Some(Severity::Error));
    let mut sink = Sink::new(10).with_levels(Levels::new(levels));
    sink.report(&UNKNOWN_FORMAT, 0..1, "a case");
    sink.relevel(&UNKNOWN_FORMAT, Severity::Warning, impact, |_| {});
    assert_eq!(sink.findings()[0].severity, Severity::Error);
}
