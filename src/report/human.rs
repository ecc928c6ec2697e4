//! Human output: miette graphical reports with a hex (or text) window around each span.

use super::hexview;
use crate::check::Report;
use crate::finding::{Finding, Severity};
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, NamedSource};

/// Renders options.
#[derive(Clone, Copy, Debug)]
pub struct HumanOptions {
    /// Use colours.
    pub color: bool,
    /// Terminal width.
    pub width: usize,
}

fn miette_severity(s: Severity) -> miette::Severity {
    match s {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Info => miette::Severity::Advice,
    }
}

fn paint(text: &str, code: &str, color: bool) -> String {
    if color {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// `error[CODE]`: the severity as rustc and clippy write it, and the rule's code.
fn heading(f: &Finding, color: bool) -> String {
    let code = match f.severity {
        Severity::Error => "1;31",
        Severity::Warning => "1;33",
        Severity::Info => "1;36",
    };
    paint(&format!("{}[{}]", f.severity, f.rule.code), code, color)
}

/// The path a finding is in (the file inside a directory input, or the input).
pub fn finding_path(report: &Report, f: &Finding) -> String {
    let base = match &f.member {
        Some(m) => format!("{}!{}", report.path, m),
        None => report.path.clone(),
    };
    match &f.file {
        Some(sub) => format!("{base}/{sub}"),
        None => base,
    }
}

/// The location line: ` --> path:0xOFFSET` (just the path for findings about the whole input).
pub fn location_line(report: &Report, f: &Finding) -> String {
    if has_span(f) {
        format!(" --> {}:0x{:x}", finding_path(report, f), f.offset)
    } else {
        format!(" --> {}", finding_path(report, f))
    }
}

fn has_span(f: &Finding) -> bool {
    !(f.offset == 0
        && f.length == 0
        && f.file.is_none()
        && f.member.is_none()
        && f.rule.family == crate::registry::Family::GENERIC)
}

/// Renders one finding of `report`, greppable like rustc's diagnostics:
///
/// ```text
/// error[GT047]: frame 2 (tracepoint 2) has a block of unknown type 0x00 ...
///  --> trace.tf:0x4fef
///    ╭─[trace.tf @ 0x4fd0:2:57]
///  1 │ 00004fd0  00 00 ...
///    ╰────
///   = rule: unknown-block-type
///   = note: ...
/// ```
pub fn render_finding(report: &Report, f: &Finding, opts: HumanOptions) -> String {
    let base = report.os_path.as_path();
    let file_path = match &f.file {
        Some(sub) => base.join(sub),
        None => base.to_path_buf(),
    };
    let display = finding_path(report, f);
    let mut out = format!(
        "{}: {}\n{}\n",
        heading(f, opts.color),
        f.message,
        location_line(report, f)
    );
    let file_len = std::fs::metadata(&file_path).map(|m| m.len()).unwrap_or(0);
    // Offsets in an archive member are offsets in the unpacked member, which is not on disk.
    let window = if has_span(f) && f.member.is_none() && file_path.is_file() {
        hexview::window(&file_path, &display, file_len, f.span())
    } else {
        None
    };
    if let Some(w) = window {
        let label = if f.length == 0 {
            format!("at 0x{:x}", f.offset)
        } else {
            format!(
                "0x{:x}..0x{:x} ({} bytes)",
                f.offset,
                f.offset.saturating_add(f.length),
                f.length
            )
        };
        let theme = if opts.color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        let handler = GraphicalReportHandler::new_themed(theme)
            .with_width(opts.width)
            .with_context_lines(8);
        let diag = MietteDiagnostic::new(String::new())
            .with_severity(miette_severity(f.severity))
            .with_label(LabeledSpan::at(w.label.clone(), label));
        let report = miette::Report::new(diag).with_source_code(NamedSource::new(w.name, w.text));
        let mut snippet = String::new();
        if handler.render_report(&mut snippet, report.as_ref()).is_ok() {
            // miette's own heading (the empty message) is replaced by the lines above.
            if let Some(start) = snippet.find("╭─[") {
                let line_start = snippet[..start].rfind('\n').map_or(0, |i| i + 1);
                out.push_str(snippet[line_start..].trim_end());
                out.push('\n');
            }
        }
    }
    out.push_str(&format!("  = rule: {}\n", f.rule.name));
    for n in &f.notes {
        out.push_str(&format!("  = note: {}\n", indent_continuation(n)));
    }
    if let Some(h) = &f.help {
        out.push_str(&format!("  = help: {}\n", indent_continuation(h)));
    }
    out.push('\n');
    out
}

fn indent_continuation(s: &str) -> String {
    s.replace('\n', "\n          ")
}

/// Repeats of one rule in one input shown in full before the rest are folded into one line.
const SHOWN_PER_RULE: usize = 3;
/// Offsets listed on a folded line.
const FOLDED_OFFSETS: usize = 8;

/// The human findings of one input: the first [`SHOWN_PER_RULE`] findings of each rule in full,
/// then one `... and N more` line per rule; info findings only with `verbose` (the note that
/// findings were cut, TL006, always shows). Returns the text and how many info findings were
/// hidden.
pub fn render_findings(r: &Report, opts: HumanOptions, verbose: bool) -> (String, u64) {
    let mut text = String::new();
    let mut hidden = 0u64;
    let mut shown: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    // Folded findings per rule, in order of first appearance.
    let mut folded: Vec<Vec<&Finding>> = Vec::new();
    for f in &r.findings {
        if !verbose
            && f.severity == Severity::Info
            && f.rule.code != crate::rules::FINDINGS_TRUNCATED.code
        {
            hidden += 1;
            continue;
        }
        let n = shown.entry(f.rule.code).or_insert(0);
        *n += 1;
        if *n <= SHOWN_PER_RULE {
            text.push_str(&render_finding(r, f, opts));
        } else if let Some(group) = folded
            .iter_mut()
            .find(|g| g.first().is_some_and(|g| g.rule.code == f.rule.code))
        {
            group.push(f);
        } else {
            folded.push(vec![f]);
        }
    }
    for group in folded {
        let Some(first) = group.first() else {
            continue;
        };
        // One file: its path once, then offsets; several files (a directory input): each
        // place as `file:offset`.
        let one_file = group
            .iter()
            .all(|f| f.file == first.file && f.member == first.member);
        let mut list: Vec<String> = group
            .iter()
            .take(FOLDED_OFFSETS)
            .map(|f| {
                if one_file {
                    return format!("0x{:x}", f.offset);
                }
                let place = match (&f.member, &f.file) {
                    (Some(m), Some(sub)) => format!("{m}/{sub}"),
                    (Some(m), None) => m.clone(),
                    (None, Some(sub)) => sub.clone(),
                    (None, None) => String::new(),
                };
                format!("{place}:0x{:x}", f.offset)
            })
            .collect();
        if group.len() > FOLDED_OFFSETS {
            list.push("...".into());
        }
        let (place, label) = if one_file {
            (finding_path(r, first), "offsets")
        } else {
            (r.path.clone(), "at")
        };
        text.push_str(&format!(
            "{}: ... and {} more in {place} ({label} {})\n\n",
            heading(first, opts.color),
            group.len(),
            list.join(", ")
        ));
    }
    (text, hidden)
}

/// One line per input, for the end of a human run.
pub fn file_line(r: &Report) -> String {
    let fmt = match (r.format, r.members.len()) {
        (Some(f), 0) => f.name().to_string(),
        (None, 0) => "unknown".to_string(),
        // An archive: how many members, and the format when they are all one.
        (Some(f), n) => format!("{} in {n} member(s)", f.name()),
        (None, n) => format!("archive of {n} member(s)"),
    };
    format!(
        "{}: {} ({}, {} bytes): {} error(s), {} warning(s), {} info{}",
        r.path,
        super::verdict(r),
        fmt,
        r.size,
        r.counts.error,
        r.counts.warning,
        r.counts.info,
        if r.dropped > 0 {
            format!(", {} not shown", r.dropped)
        } else {
            String::new()
        }
    )
}
