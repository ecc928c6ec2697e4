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

/// The path a finding is in (the file inside a directory input, or the input).
pub fn finding_path(report: &Report, f: &Finding) -> String {
    match &f.file {
        Some(sub) => format!("{}/{}", report.path, sub),
        None => report.path.clone(),
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
        && f.rule.family == crate::registry::Family::Generic)
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
    // The heading word is the severity as rustc and clippy write it.
    let (word, code) = match f.severity {
        Severity::Error => ("error", "1;31"),
        Severity::Warning => ("warning", "1;33"),
        Severity::Info => ("info", "1;36"),
    };
    let mut out = format!(
        "{}: {}\n{}\n",
        paint(&format!("{word}[{}]", f.rule.code), code, opts.color),
        f.message,
        location_line(report, f)
    );
    let file_len = std::fs::metadata(&file_path).map(|m| m.len()).unwrap_or(0);
    let window = if has_span(f) && file_path.is_file() {
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

/// One line per input, for the end of a human run.
pub fn file_line(r: &Report) -> String {
    let fmt = r.format.map(|f| f.name()).unwrap_or("unknown");
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
