//! Source windows for the human renderer.
//!
//! miette renders text; trace files are binary. Handing binary to miette mangles it (and its
//! narratable handler panics on non-UTF-8), so each finding gets an ASCII-only *window*: a hex
//! dump of the rows around the span, or, when the bytes around the span are text (GDB tfile
//! description lines, uftrace text files, ftrace format files), the text lines themselves.
//! miette's `line:col` then counts rows of the window; the row offsets carry the file offsets.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::Path;

const ROW: u64 = 16;
const MAX_ROWS: u64 = 8;
const TEXT_CONTEXT: u64 = 160;

/// A rendered window: its text, and the span of the finding inside that text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Source name, `path @ 0xOFFSET`.
    pub name: String,
    /// ASCII text of the window.
    pub text: String,
    /// Span in `text` to label.
    pub label: Range<usize>,
}

/// Reads `len` bytes at `offset` of `path` (fewer at end of file).
pub fn read_at(path: &Path, offset: u64, len: u64) -> Option<Vec<u8>> {
    let mut f = File::open(path).ok()?;
    f.seek(SeekFrom::Start(offset)).ok()?;
    let mut v = Vec::new();
    f.take(len).read_to_end(&mut v).ok()?;
    Some(v)
}

fn is_text_byte(b: u8) -> bool {
    b == b'\n' || b == b'\t' || b == b'\r' || (0x20..0x7f).contains(&b)
}

/// Builds the window for `span` of file `path` (size `file_len`).
pub fn window(path: &Path, display: &str, file_len: u64, span: Range<u64>) -> Option<Window> {
    if file_len == 0 {
        return None;
    }
    let start = span.start.min(file_len.saturating_sub(1));
    let end = span.end.clamp(start.saturating_add(1), file_len);
    if let Some(w) = text_window(path, display, file_len, start..end) {
        return Some(w);
    }
    hex_window(path, display, file_len, start..end)
}

/// Longest span shown as text lines; a longer one gets a hex window of its first rows.
const MAX_TEXT_SPAN: u64 = 400;

fn text_window(path: &Path, display: &str, file_len: u64, span: Range<u64>) -> Option<Window> {
    // Decided before reading: a span can be gigabytes long, and only what is shown is read.
    if span.end.saturating_sub(span.start) > MAX_TEXT_SPAN {
        return None;
    }
    let from = span.start.saturating_sub(TEXT_CONTEXT);
    let to = span.end.saturating_add(TEXT_CONTEXT).min(file_len);
    let bytes = read_at(path, from, to.saturating_sub(from))?;
    let rel_s = usize::try_from(span.start - from).ok()?;
    let rel_e = usize::try_from(span.end - from).ok()?.min(bytes.len());
    let inner = bytes.get(rel_s..rel_e)?;
    if inner.len() as u64 > MAX_TEXT_SPAN || !inner.iter().all(|&b| is_text_byte(b)) {
        return None;
    }
    // Extend to whole lines, staying within text bytes.
    let mut ls = rel_s;
    while ls > 0
        && bytes
            .get(ls - 1)
            .is_some_and(|&b| b != b'\n' && is_text_byte(b))
    {
        ls -= 1;
    }
    let mut le = rel_e;
    while le < bytes.len()
        && bytes
            .get(le)
            .is_some_and(|&b| b != b'\n' && is_text_byte(b))
    {
        le += 1;
    }
    // One line of context each side when it is text too.
    if ls > 0 && bytes.get(ls - 1) == Some(&b'\n') {
        let mut p = ls - 1;
        while p > 0
            && bytes
                .get(p - 1)
                .is_some_and(|&b| b != b'\n' && is_text_byte(b))
        {
            p -= 1;
        }
        if p == 0 || bytes.get(p - 1) == Some(&b'\n') {
            ls = p;
        }
    }
    let text: String = bytes
        .get(ls..le)?
        .iter()
        .map(|&b| if b == b'\r' { ' ' } else { b as char })
        .collect();
    if text.trim().is_empty() || text.lines().count() > 12 {
        return None;
    }
    let abs = from + ls as u64;
    let label = (rel_s - ls)..(rel_e - ls).max(rel_s - ls + 1).min(text.len());
    Some(Window {
        name: format!("{display} @ 0x{abs:x} (text)"),
        text,
        label,
    })
}

/// Length of the current (last, unfinished) line of `text`.
fn pos_in_row(text: &str) -> usize {
    text.len() - text.rfind('\n').map_or(0, |i| i + 1)
}

fn hex_window(path: &Path, display: &str, file_len: u64, span: Range<u64>) -> Option<Window> {
    let first_row = (span.start / ROW).saturating_sub(1);
    let last_span_row = span.end.saturating_sub(1) / ROW;
    let mut rows = (last_span_row + 2).saturating_sub(first_row);
    let long = rows > MAX_ROWS;
    rows = rows.min(MAX_ROWS);
    let win_start = first_row * ROW;
    let bytes = read_at(path, win_start, rows * ROW)?;
    let mut text = String::new();
    let mut label_start = None;
    let mut label_end = 0;
    for (r, chunk) in bytes.chunks(ROW as usize).enumerate() {
        let row_off = win_start + r as u64 * ROW;
        text.push_str(&format!("{row_off:08x}  "));
        for i in 0..ROW as usize {
            let abs = row_off + i as u64;
            if i == 8 {
                text.push(' ');
            }
            match chunk.get(i) {
                Some(b) => {
                    let pos = text.len();
                    text.push_str(&format!("{b:02x}"));
                    // Label the span's bytes on its first row only: miette draws multi-line
                    // labels by cutting rows apart, which ruins a hex dump. The label text
                    // gives the full extent.
                    let first_row = label_start.is_none_or(|s| s >= text.len() - pos_in_row(&text));
                    if abs >= span.start && abs < span.end && first_row {
                        label_start.get_or_insert(pos);
                        label_end = pos + 2;
                    }
                }
                None => text.push_str("  "),
            }
            text.push(' ');
        }
        text.push_str(" |");
        for &b in chunk {
            text.push(if (0x20..0x7f).contains(&b) {
                b as char
            } else {
                '.'
            });
        }
        text.push_str("|\n");
    }
    if long {
        text.push_str(&format!(
            "          ... span continues to 0x{:x} ({} bytes in all)\n",
            span.end,
            span.end - span.start
        ));
    }
    let _ = file_len;
    let ls = label_start?;
    Some(Window {
        name: format!("{display} @ 0x{win_start:x}"),
        text,
        label: ls..label_end,
    })
}

#[cfg(test)]
#[path = "hexview_tests.rs"]
mod tests;
