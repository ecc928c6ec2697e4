//! Human output: miette graphical reports with a hex (or text) window around each span.

use super::hexview;
use crate::check::Report;
use crate::finding::{Finding, Severity};
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, NamedSource};
use std::path::Path;

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

/// Renders one finding of `report`.
pub fn render_finding(report: &Report, f: &Finding, opts: HumanOptions) -> String {
    let base = Path::new(&report.path);
    let (file_path, display) = match &f.file {
        Some(sub) => (base.join(sub), format!("{}/{}", report.path, sub)),
        None => (base.to_path_buf(), report.path.clone()),
    };
    let mut diag = MietteDiagnostic::new(format!("{}: {}", display, f.message))
        .with_code(format!("{}({})", f.rule.code, f.rule.name))
        .with_severity(miette_severity(f.severity));
    let mut help = Vec::new();
    for n in &f.notes {
        help.push(format!("note: {n}"));
    }
    if let Some(h) = &f.help {
        help.push(h.clone());
    }
    if !help.is_empty() {
        diag = diag.with_help(help.join("\n"));
    }
    let file_len = std::fs::metadata(&file_path).map(|m| m.len()).unwrap_or(0);
    let has_span = !(f.offset == 0
        && f.length == 0
        && f.file.is_none()
        && f.rule.family == crate::registry::Family::Generic);
    let window = if has_span && file_path.is_file() {
        hexview::window(&file_path, &display, file_len, f.span())
    } else {
        None
    };
    let theme = if opts.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(opts.width)
        .with_context_lines(8);
    let mut out = String::new();
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
    let rendered = match window {
        Some(w) => {
            let diag = diag.with_label(LabeledSpan::at(w.label.clone(), label));
            let report =
                miette::Report::new(diag).with_source_code(NamedSource::new(w.name, w.text));
            handler.render_report(&mut out, report.as_ref())
        }
        None => handler.render_report(&mut out, &diag),
    };
    if rendered.is_err() {
        out = format!(
            "{}[{}] {} at 0x{:x}: {}\n",
            f.severity, f.rule.code, display, f.offset, f.message
        );
    }
    out
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
