//! `--output github`: GitHub Actions workflow commands, one per finding, which the runner turns
//! into annotations on the file:
//!
//! ```text
//! ::warning file=corpus/x.dat,line=1,title=TD112 ring-timestamp-backwards (at 0x1f40)::0x1f40: ...
//! ```
//!
//! Trace files have no lines, so `line` is 1 and the byte offset is in the title and at the
//! head of the message. Values are escaped as the Actions toolkit escapes them: `%`, CR and LF
//! in the message; also `:` and `,` in properties. Other control characters, which the
//! toolkit leaves raw and a log view would act on, are written as `\xNN`.
//!
//! Info findings are left out unless asked for (`--verbose`): GitHub shows 10 annotations of
//! each kind per step, and notes about writers' quirks would crowd out the warnings and
//! errors.

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

/// Escapes a command's message (`escapeData`), and control characters other than CR and LF
/// as `\xNN`.
pub fn escape_data(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

/// Escapes a property value (`escapeProperty`).
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One report's commands; `base` makes paths relative to the repository; `info`: info
/// findings too (as `::notice`).
pub fn render(r: &Report, base: Option<&std::path::Path>, info: bool) -> String {
    let path = super::relative_path(r, base);
    let mut out = String::new();
    for f in r
        .findings
        .iter()
        .filter(|f| info || f.severity != Severity::Info)
    {
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
