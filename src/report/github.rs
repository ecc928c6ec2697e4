//! `--output github`: GitHub Actions workflow commands, one per finding, which the runner turns
//! into annotations on the file:
//!
//! ```text
//! ::error file=corpus/x.dat,line=1,title=TD014 timestamp-backwards (0x1f40)::0x1f40: ...
//! ```
//!
//! Trace files have no lines, so `line` is 1 and the byte offset is in the title and at the
//! head of the message. Values are escaped as the Actions toolkit escapes them: `%`, CR and LF
//! in the message; also `:` and `,` in properties.

use crate::check::Report;
use crate::finding::Severity;
use crate::report::{finding_file, finding_place};

/// The command for a severity: `error`, `warning`, `notice`.
fn command(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    }
}

/// Escapes a command's message (`escapeData`).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value (`escapeProperty`).
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One report's commands; `base` makes paths relative to the repository.
pub fn render(r: &Report, base: Option<&std::path::Path>) -> String {
    let path = super::relative_path(r, base);
    let mut out = String::new();
    for f in &r.findings {
        let file = finding_file(&path, f);
        let inner = match &f.member {
            Some(_) => format!("in {} ", finding_place(&path, f)),
            None => String::new(),
        };
        let title = format!(
            "{} {} ({inner}at 0x{:x})",
            f.rule.code, f.rule.name, f.offset
        );
        let mut message = format!("{inner}0x{:x}: {}", f.offset, f.message);
        for n in &f.notes {
            message.push_str("\nnote: ");
            message.push_str(n);
        }
        out.push_str(&format!(
            "::{} file={},line=1,title={}::{}\n",
            command(f.severity),
            escape_property(&file),
            escape_property(&title),
            escape_data(&message)
        ));
    }
    out
}
