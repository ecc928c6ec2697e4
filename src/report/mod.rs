//! Renderers: one finding model, several views (human via miette, JSON, JSON Lines, SARIF,
//! and the CI forms: concise lines, GitHub Actions workflow commands, GitLab Code Quality,
//! JUnit XML).

pub mod concise;
pub mod github;
pub mod gitlab;
pub mod hexview;
pub mod human;
pub mod junit;
pub mod ledger;
pub mod map;
pub mod sarif;

use crate::check::Report;
use crate::finding::{Counts, Finding};
use serde::Serialize;
use std::collections::BTreeMap;

/// Version of the JSON output schema.
pub const SCHEMA_VERSION: u32 = 1;

/// Totals over a run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// Inputs checked.
    pub files: u64,
    /// Inputs with no error finding.
    pub passed: u64,
    /// Inputs with at least one error finding.
    pub failed: u64,
    /// Inputs that could not be read.
    pub unreadable: u64,
    /// Findings by severity.
    pub findings: Counts,
    /// Findings by rule code.
    pub by_code: BTreeMap<&'static str, u64>,
    /// Bytes checked.
    pub bytes: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl Summary {
    /// Adds one report.
    pub fn add(&mut self, r: &Report) {
        self.files += 1;
        if r.io_failed {
            self.unreadable += 1;
        }
        if r.failed() {
            self.failed += 1;
        } else {
            self.passed += 1;
        }
        self.findings.merge(r.counts);
        for f in &r.findings {
            *self.by_code.entry(f.rule.code).or_insert(0) += 1;
        }
        // Findings past `max_findings` were not kept but still count.
        for (code, n) in &r.dropped_by_code {
            let e = self.by_code.entry(code).or_insert(0);
            *e = e.saturating_add(*n);
        }
        self.bytes = self.bytes.saturating_add(r.size);
    }
}

/// A finding with its rule's name, as JSON and JSON Lines show it.
#[derive(Serialize)]
struct JsonFinding<'a> {
    #[serde(flatten)]
    finding: &'a Finding,
    name: &'static str,
}

impl<'a> JsonFinding<'a> {
    fn of(finding: &'a Finding) -> Self {
        JsonFinding {
            finding,
            name: finding.rule.name,
        }
    }
}

/// What JSON (one element of `files`) and JSON Lines (the `file` line) say about one input.
#[derive(Serialize)]
struct FileRecord<'a> {
    path: &'a str,
    /// The path's bytes, when it is not UTF-8 (`path` then shows them as `\xNN`).
    #[serde(skip_serializing_if = "Option::is_none")]
    path_bytes: Option<&'a [u8]>,
    format: Option<crate::detect::Format>,
    size: u64,
    verdict: &'static str,
    counts: Counts,
    dropped: u64,
    /// Archive members, for an archive or compressed input.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    members: &'a [crate::archive::MemberInfo],
}

impl<'a> FileRecord<'a> {
    fn of(r: &'a Report) -> Self {
        FileRecord {
            path: &r.path,
            path_bytes: path_bytes(r),
            format: r.format,
            size: r.size,
            verdict: verdict(r),
            counts: r.counts,
            dropped: r.dropped,
            members: &r.members,
        }
    }
}

/// One input in `--output json`: its record and its findings.
#[derive(Serialize)]
struct JsonReport<'a> {
    #[serde(flatten)]
    file: FileRecord<'a>,
    findings: Vec<JsonFinding<'a>>,
}

/// The path's bytes when they are not UTF-8.
fn path_bytes(r: &Report) -> Option<&[u8]> {
    let s = r.os_path.as_os_str();
    if s.to_str().is_some() {
        None
    } else {
        Some(s.as_encoded_bytes())
    }
}

/// The verdict word for a report (`fail` for a warning under `--deny warnings`).
pub fn verdict(r: &Report) -> &'static str {
    if r.io_failed {
        "unreadable"
    } else if r.failed() {
        "fail"
    } else {
        "pass"
    }
}

fn json_report(r: &Report) -> JsonReport<'_> {
    JsonReport {
        file: FileRecord::of(r),
        findings: r.findings.iter().map(JsonFinding::of).collect(),
    }
}

/// One report as a JSON value (used by `--output json` and the daemon's report sidecars).
pub fn report_json_value(r: &Report) -> serde_json::Value {
    let mut v = serde_json::to_value(json_report(r)).unwrap_or(serde_json::Value::Null);
    if let Some(o) = v.as_object_mut() {
        o.insert("schema_version".into(), SCHEMA_VERSION.into());
    }
    v
}

/// `--output json`: one document for the whole run ([`JsonStream`] over every report).
pub fn render_json(reports: &[Report], summary: &Summary) -> String {
    let mut out = Vec::new();
    let mut doc = JsonStream::default();
    for r in reports {
        doc.report(r, &mut out);
    }
    doc.finish(summary, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// `--output json` written as the reports come: the document's head, one element of `files`
/// per report, then the summary. The bytes are those of the whole document pretty-printed at
/// once (`schema_version`, `tool`, `version`, `files`, `summary`, two spaces per level), so a
/// run keeps no report once it is written.
#[derive(Debug, Default)]
pub struct JsonStream {
    /// Elements of `files` written so far.
    files: u64,
}

impl JsonStream {
    fn head(out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\n  \"schema_version\": ");
        out.extend_from_slice(SCHEMA_VERSION.to_string().as_bytes());
        out.extend_from_slice(b",\n  \"tool\": \"tracelint\",\n  \"version\": ");
        let version = serde_json::to_string(env!("CARGO_PKG_VERSION")).unwrap_or_default();
        out.extend_from_slice(version.as_bytes());
        out.extend_from_slice(b",\n  \"files\": [");
    }

    /// Appends one report to `out`.
    pub fn report(&mut self, r: &Report, out: &mut Vec<u8>) {
        if self.files == 0 {
            Self::head(out);
            out.push(b'\n');
        } else {
            out.extend_from_slice(b",\n");
        }
        let text = serde_json::to_string_pretty(&json_report(r)).unwrap_or_default();
        indent_into(out, &text, "    ", true);
        self.files = self.files.saturating_add(1);
    }

    /// Appends the end of the document (the summary) to `out`.
    pub fn finish(&mut self, summary: &Summary, out: &mut Vec<u8>) {
        if self.files == 0 {
            Self::head(out);
            out.extend_from_slice(b"],\n");
        } else {
            out.extend_from_slice(b"\n  ],\n");
        }
        out.extend_from_slice(b"  \"summary\": ");
        let text = serde_json::to_string_pretty(summary).unwrap_or_default();
        indent_into(out, &text, "  ", false);
        out.extend_from_slice(b"\n}");
    }
}

/// Appends pretty-printed JSON `text` to `out` one level deeper: `pad` before every line (but
/// the first when `first` is false, which follows a key on its line). A JSON text holds no
/// line break inside a string (they are escaped), so its lines are its layout.
pub fn indent_into(out: &mut Vec<u8>, text: &str, pad: &str, first: bool) {
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        if i > 0 || first {
            out.extend_from_slice(pad.as_bytes());
        }
        out.extend_from_slice(line.as_bytes());
    }
}

/// Bytes of a document kept until its head can be written (SARIF and JUnit name totals and
/// the rules that fired before the results): in memory up to [`Spill::MEMORY`], then in an
/// unnamed temporary file (in `$TMPDIR`, gone when dropped), so a run of any length holds at
/// most that much of its output.
pub struct Spill {
    file: std::io::BufWriter<tempfile::SpooledTempFile>,
}

impl Default for Spill {
    fn default() -> Self {
        Spill {
            file: std::io::BufWriter::new(tempfile::spooled_tempfile(Self::MEMORY)),
        }
    }
}

impl Spill {
    /// Bytes held in memory before the spill goes to a temporary file.
    pub const MEMORY: usize = 256 << 10;

    /// Appends bytes.
    pub fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        use std::io::Write;
        self.file.write_all(bytes)
    }

    /// Reads everything written, from the start.
    pub fn reader(self) -> std::io::Result<impl std::io::BufRead> {
        use std::io::Seek;
        let mut f = self.file.into_inner().map_err(|e| e.into_error())?;
        f.rewind()?;
        Ok(std::io::BufReader::new(f))
    }
}

/// `--output jsonl`: one line per finding, then one `file` line per input.
pub fn render_jsonl(r: &Report) -> String {
    #[derive(Serialize)]
    struct Line<'a> {
        kind: &'static str,
        path: &'a str,
        #[serde(flatten)]
        finding: JsonFinding<'a>,
    }
    #[derive(Serialize)]
    struct FileLine<'a> {
        kind: &'static str,
        #[serde(flatten)]
        file: FileRecord<'a>,
    }
    let mut out = String::new();
    for f in &r.findings {
        let l = Line {
            kind: "finding",
            path: &r.path,
            finding: JsonFinding::of(f),
        };
        out.push_str(&serde_json::to_string(&l).unwrap_or_default());
        out.push('\n');
    }
    let fl = FileLine {
        kind: "file",
        file: FileRecord::of(r),
    };
    out.push_str(&serde_json::to_string(&fl).unwrap_or_default());
    out.push('\n');
    out
}

/// The path of an input relative to `base` (a repository root or the current directory) when
/// it lies under it, else as given; for display, any byte that is not UTF-8 as `\xNN`.
pub fn relative_path(r: &Report, base: Option<&std::path::Path>) -> String {
    match base.and_then(|b| {
        crate::config::normalize(&r.os_path)
            .strip_prefix(b)
            .ok()
            .map(std::path::Path::to_path_buf)
    }) {
        Some(rel) if !rel.as_os_str().is_empty() => crate::check::escape_path(&rel),
        _ => r.path.clone(),
    }
}

/// Where a finding is, for one-line forms: `path`, `path/file` inside a directory input,
/// `archive!member` inside an archive; `path` is the input's display path.
pub fn finding_place(path: &str, f: &Finding) -> String {
    let base = match &f.member {
        Some(m) => format!("{path}!{m}"),
        None => path.to_string(),
    };
    match &f.file {
        Some(sub) => format!("{base}/{sub}"),
        None => base,
    }
}

/// The file a CI view should point at for a finding: the file inside a directory input, else
/// the input (an archive member's findings point at the archive).
pub fn finding_file(path: &str, f: &Finding) -> String {
    match (&f.member, &f.file) {
        (None, Some(sub)) => format!("{path}/{sub}"),
        _ => path.to_string(),
    }
}

/// A stable 64-bit hash (FNV-1a) as 16 hex digits: for fingerprints that must not change
/// between runs, builds or platforms.
pub fn stable_hash(parts: &[&[u8]]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in part.iter().chain(std::iter::once(&0xffu8)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}
