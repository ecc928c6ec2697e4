//! The ledger of `tracelint fix` ([`fix::Ledger`]): a human summary and JSON.

use crate::fix::{Ledger, Outcome};
use crate::ledger::hex_text;

/// The ledger as one JSON document (schema version [`super::SCHEMA_VERSION`]).
pub fn render_json(l: &Ledger) -> String {
    let v = serde_json::json!({
        "schema_version": super::SCHEMA_VERSION,
        "fix": l,
    });
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

fn outcome_text(o: Outcome) -> &'static str {
    match o {
        Outcome::NothingToDo => "nothing to do",
        Outcome::Repaired => "repaired without loss",
        Outcome::RepairedWithLoss => "repaired with loss",
        Outcome::CannotRepair => "cannot repair",
        Outcome::Usage => "usage error",
        Outcome::Io => "I/O error",
    }
}

/// The ledger for people: the damage, each edit, each loss, invented fields, the check of the
/// output, and the outcome.
pub fn render_human(l: &Ledger) -> String {
    let mut s = String::new();
    let fmt = l.format.map(|f| f.name()).unwrap_or("unknown format");
    s.push_str(&format!("{} ({fmt})", l.input));
    if let Some(m) = &l.member {
        s.push_str(&format!(", member {m}"));
    }
    s.push('\n');
    if !l.input_errors.is_empty() {
        let mut codes: Vec<&str> = l.input_errors.iter().map(|b| b.code).collect();
        codes.sort_unstable();
        codes.dedup();
        s.push_str(&format!(
            "  input: {} error finding(s): {}\n",
            l.input_errors.len(),
            codes.join(", ")
        ));
    }
    if let Some(r) = &l.refusal {
        s.push_str(&format!("  damage: {}\n", r.damage));
    }
    if let Some(p) = &l.plan {
        s.push_str(&format!("  damage: {}\n", p.damage));
        for f in &p.files {
            let name = f.name.as_deref().unwrap_or("the file");
            if f.created {
                s.push_str(&format!("  create {name} ({} bytes)\n", f.out_len()));
            }
            for e in &f.edits {
                if e.old.is_empty() {
                    s.push_str(&format!(
                        "  [{}] {name} @0x{:x}: append {} byte(s): {}\n",
                        e.rule,
                        e.offset,
                        e.new.len(),
                        e.what
                    ));
                } else {
                    s.push_str(&format!(
                        "  [{}] {name} @0x{:x}: {} -> {}: {}\n",
                        e.rule,
                        e.offset,
                        hex_text(&e.old),
                        hex_text(&e.new),
                        e.what
                    ));
                }
            }
            if let Some(c) = &f.cut {
                s.push_str(&format!(
                    "  [{}] {name} cut at 0x{:x}: {} byte(s) left out ({})\n",
                    c.rule, c.at, c.bytes, c.what
                ));
            }
        }
        for loss in &p.losses {
            let mut whose = Vec::new();
            if let Some(f) = &loss.file {
                whose.push(f.clone());
            }
            if let Some(b) = loss.buffer.as_deref().filter(|b| !b.is_empty()) {
                whose.push(format!("buffer {b}"));
            }
            if let Some(c) = loss.cpu {
                whose.push(format!("CPU {c}"));
            }
            if let Some(t) = loss.task {
                whose.push(format!("task {t}"));
            }
            s.push_str(&format!(
                "  lost{}: {}\n",
                if whose.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", whose.join(", "))
                },
                loss.what
            ));
        }
        for i in &p.invented {
            s.push_str(&format!(
                "  invented: {}{} = {} ({})\n",
                i.file
                    .as_deref()
                    .map(|f| format!("{f}: "))
                    .unwrap_or_default(),
                i.field,
                i.value,
                i.why
            ));
        }
    }
    for f in &l.output_findings {
        s.push_str(&format!(
            "  output: {} [{}] {}@0x{:x}: {}\n",
            f.code,
            f.severity,
            f.file
                .as_deref()
                .map(|x| format!("{x} "))
                .unwrap_or_default(),
            f.offset,
            f.message
        ));
    }
    if !l.skipped.is_empty() {
        s.push_str(&format!(
            "  not copied (not regular files): {}\n",
            l.skipped.join(", ")
        ));
    }
    if let Some(m) = &l.message {
        s.push_str(&format!("  {m}\n"));
    }
    let wrote = match (&l.output, l.written) {
        (Some(o), true) => format!("; wrote {o}"),
        _ if l.dry_run => "; dry run, nothing written".to_string(),
        _ => "; nothing written".to_string(),
    };
    s.push_str(&format!(
        "fix: {} (exit {}){wrote}\n",
        outcome_text(l.outcome),
        l.exit_code
    ));
    s
}
