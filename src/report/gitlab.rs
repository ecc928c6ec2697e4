//! `--output gitlab`: a GitLab Code Quality report (the subset of the Code Climate issue format
//! GitLab reads): a JSON array of issues with `description`, `check_name`, `fingerprint`,
//! `severity` and `location.path` / `location.lines.begin`.
//!
//! The fingerprint is a hash of the file, the member, the rule and the byte span (never of the
//! message, whose wording may change), so an unchanged finding keeps its fingerprint from one
//! pipeline to the next and GitLab can tell new findings from old ones. Trace files have no
//! lines: `lines.begin` is 1 and the byte offset heads the description.

use crate::check::Report;
use crate::finding::Severity;
use crate::report::{finding_file, finding_place, stable_hash};
use serde::Serialize;

#[derive(Serialize)]
struct Issue {
    #[serde(rename = "type")]
    kind: &'static str,
    description: String,
    check_name: &'static str,
    fingerprint: String,
    severity: &'static str,
    categories: [&'static str; 1],
    location: Location,
}

#[derive(Serialize)]
struct Location {
    path: String,
    lines: Lines,
}

#[derive(Serialize)]
struct Lines {
    begin: u64,
}

/// GitLab's severity: `major` for errors, `minor` for warnings, `info` for info.
fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Info => "info",
    }
}

/// The whole run as one report; `base` makes paths relative to the repository.
pub fn render(reports: &[Report], base: Option<&std::path::Path>) -> String {
    let mut doc = GitlabStream::new(base.map(std::path::Path::to_path_buf));
    let mut out = Vec::new();
    for r in reports {
        doc.report(r, &mut out);
    }
    doc.finish(&mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// The report written as the inputs come: one element of the array per finding, the bytes of
/// the whole array pretty-printed at once. What stays in memory is how often each fingerprint
/// was given (two findings of one rule on one span get distinct fingerprints by their order):
/// one 64-bit key per finding location.
pub struct GitlabStream {
    base: Option<std::path::PathBuf>,
    seen: std::collections::HashMap<u64, u64>,
    issues: u64,
}

impl GitlabStream {
    /// An empty report; `base` makes paths relative to the repository.
    pub fn new(base: Option<std::path::PathBuf>) -> Self {
        GitlabStream {
            base,
            seen: Default::default(),
            issues: 0,
        }
    }

    /// Appends one report's issues to `out`.
    pub fn report(&mut self, r: &Report, out: &mut Vec<u8>) {
        let path = super::relative_path(r, self.base.as_deref());
        for f in &r.findings {
            let file = finding_file(&path, f);
            let member = f.member.as_deref().unwrap_or("");
            let inner = f.member.as_ref().and(f.file.as_deref()).unwrap_or("");
            let span = format!("{}+{}", f.offset, f.length);
            let mut fp = stable_hash(&[
                file.as_bytes(),
                member.as_bytes(),
                inner.as_bytes(),
                f.rule.code.as_bytes(),
                span.as_bytes(),
            ]);
            // The fingerprint is 16 hex digits: its value is the key.
            let key = u64::from_str_radix(&fp, 16).unwrap_or(0);
            let n = self.seen.entry(key).or_insert(0);
            if *n > 0 {
                fp = stable_hash(&[fp.as_bytes(), n.to_string().as_bytes()]);
            }
            *n = n.saturating_add(1);
            let at = match &f.member {
                Some(_) => format!("{} at 0x{:x}", finding_place(&path, f), f.offset),
                None => format!("0x{:x}", f.offset),
            };
            let issue = Issue {
                kind: "issue",
                description: format!("{} {}: {at}: {}", f.rule.code, f.rule.name, f.message),
                check_name: f.rule.code,
                fingerprint: fp,
                severity: severity(f.severity),
                categories: ["Bug Risk"],
                location: Location {
                    path: file,
                    lines: Lines { begin: 1 },
                },
            };
            out.extend_from_slice(if self.issues == 0 { b"[\n" } else { b",\n" });
            let text = serde_json::to_string_pretty(&issue).unwrap_or_default();
            super::indent_into(out, &text, "  ", true);
            self.issues = self.issues.saturating_add(1);
        }
    }

    /// Appends the end of the array to `out`.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(if self.issues == 0 { b"[]" } else { b"\n]" });
    }
}
