//! `--output concise`: one line per finding, `path:0xOFFSET: CODE [severity] message`, as
//! ruff's concise form (the offset is in hex, as in the human output; it is left out for a
//! finding about a whole input). Lines of one input come in the report's order (by offset,
//! then the most severe first); a control character in a name or message is written as
//! `\xNN` (a line break in a message as a space), so every finding is one line;
//! grep-friendly.

use crate::check::Report;
use crate::report::finding_place;

/// One report's lines; `base` makes paths relative (see [`super::relative_path`]).
pub fn render(r: &Report, base: Option<&std::path::Path>) -> String {
    let path = super::relative_path(r, base);
    let mut out = String::new();
    for f in &r.findings {
        let place = escape_controls(&finding_place(&path, f));
        let at = if f.offset == 0 && f.length == 0 && f.file.is_none() && f.member.is_none() {
            place
        } else {
            format!("{place}:0x{:x}", f.offset)
        };
        let message = one_line(&f.message);
        out.push_str(&format!(
            "{at}: {} [{}] {message}\n",
            f.rule.code, f.severity
        ));
    }
    out
}

/// A message on one line: line breaks become spaces, other control characters `\xNN`.
pub fn one_line(s: &str) -> String {
    escape_controls(&s.replace(['\r', '\n'], " "))
}

/// Control characters as `\xNN`.
pub fn escape_controls(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() {
            out.push_str(&format!("\\x{:02x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}
