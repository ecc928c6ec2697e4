//! SARIF 2.1.0 output (a hand-written subset, as GitHub code scanning consumes it).
//!
//! The driver lists the rules that fired (every rule with `all_rules`). Artifact URIs are
//! relative to `%SRCROOT%` (the repository root or the current directory, given in
//! `originalUriBaseIds`) for files under it, absolute `file:` URIs otherwise.
//!
//! Locations carry the binary region (`byteOffset`/`byteLength`). GitHub code scanning also
//! requires `region.startLine` on every result; trace files have no lines, so `startLine` is 1
//! and the byte region carries the real position.

use crate::check::Report;
use crate::finding::Severity;
use crate::registry::{self, Rule};
use crate::report::Spill;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Notification {
    level: &'static str,
    message: Text,
    locations: Vec<Location>,
    associated_rule: RuleReference,
}

#[derive(Serialize)]
struct BaseUri {
    uri: String,
}

#[derive(Serialize)]
struct RuleReference {
    id: &'static str,
    index: usize,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    information_uri: &'static str,
    rules: Vec<RuleDescriptor>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Text {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Markdown {
    text: String,
    markdown: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RuleDescriptor {
    id: &'static str,
    name: &'static str,
    short_description: Text,
    full_description: Text,
    help_uri: String,
    help: Markdown,
    default_configuration: DefaultConfiguration,
    properties: RuleProperties,
}

#[derive(Serialize)]
struct DefaultConfiguration {
    level: &'static str,
}

#[derive(Serialize)]
struct RuleProperties {
    tags: Vec<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Artifact {
    location: ArtifactLocation,
    /// Bytes, for files (a directory input has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    length: Option<u64>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    index: Option<usize>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: Vec<Location>,
    partial_fingerprints: BTreeMap<&'static str, String>,
    /// The property bag: what readers do with this case, when its level was decided from it.
    #[serde(skip_serializing_if = "Option::is_none")]
    properties: Option<ResultProperties>,
}

#[derive(Serialize)]
struct ResultProperties {
    impact: crate::finding::Impact,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    logical_locations: Vec<LogicalLocation>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u64,
    /// Absent for a finding inside an archive member: its offset is in the unpacked member,
    /// not in the archive file (it is in the message and the logical location instead).
    #[serde(skip_serializing_if = "Option::is_none")]
    byte_offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    byte_length: Option<u64>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogicalLocation {
    fully_qualified_name: String,
    kind: &'static str,
}

/// Where tracelint lives (`informationUri`); rule documents are under `rules/` there.
pub const INFORMATION_URI: &str = env!("CARGO_PKG_HOMEPAGE");

/// The rule's document: `rules/<family>.md`, anchored at its code.
pub fn help_uri(r: &Rule) -> String {
    format!(
        "{}/blob/main/rules/{}.md#{}",
        INFORMATION_URI.trim_end_matches('/'),
        r.family.slug,
        r.code.to_ascii_lowercase()
    )
}

/// Codes whose findings say the tool could not do its job on an input (not a judgement of the
/// input's content): they are also tool execution notifications.
const EXECUTION_CODES: [&str; 3] = ["TL001", "TL003", "TL004"];

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A relative URI reference for a path: forward slashes, and every byte that may not appear
/// literally in a URI (controls, space, `%#?[]` and so on, non-ASCII bytes, including those of a
/// file name that is not UTF-8) percent-encoded, so no name is lost. A `:` in the first
/// segment of a relative reference is percent-encoded too: `x:y.dat` would be a URI of scheme
/// `x` (RFC 3986, section 4.2).
fn uri(path: &[u8]) -> String {
    let p = path.strip_prefix(b"./").unwrap_or(path);
    let mut out = String::with_capacity(p.len());
    let mut first_segment = !p.starts_with(b"/");
    for &b in p {
        match b {
            b'\\' | b'/' => {
                first_segment = false;
                out.push('/');
            }
            b':' if first_segment => out.push_str("%3A"),
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'-'
            | b'.'
            | b'_'
            | b'~'
            | b'!'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b'+'
            | b','
            | b';'
            | b'='
            | b':'
            | b'@' => out.push(char::from(b)),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The base URIs are relative to.
pub const SRCROOT: &str = "%SRCROOT%";

/// How a SARIF log is written.
#[derive(Clone, Debug, Default)]
pub struct SarifOptions {
    /// Describe every rule in the driver, not only those that fired.
    pub all_rules: bool,
    /// The folder artifact URIs are relative to (`%SRCROOT%`), absolute; `None`: paths as
    /// given.
    pub base: Option<std::path::PathBuf>,
}

/// A `file:` URI for an absolute path (a folder's ends with `/`).
fn file_uri(path: &std::path::Path, folder: bool) -> String {
    let mut u = format!("file://{}", uri(path.as_os_str().as_encoded_bytes()));
    if folder && !u.ends_with('/') {
        u.push('/');
    }
    u
}

/// Renders the whole run as one SARIF log (every rule described, paths as given).
pub fn render(reports: &[Report]) -> String {
    render_with(
        reports,
        &SarifOptions {
            all_rules: true,
            base: None,
        },
    )
}

/// Renders the whole run as one SARIF log.
pub fn render_with(reports: &[Report], opts: &SarifOptions) -> String {
    let mut doc = SarifStream::new(opts.clone());
    let mut out = Vec::new();
    let written = reports
        .iter()
        .try_for_each(|r| doc.report(r))
        .and_then(|()| doc.finish(&mut out));
    match written {
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        Err(_) => String::new(),
    }
}

/// A rule index not known until the run ends (the driver lists the rules that fired, in
/// registry order): written as this number, then replaced when the log is put together.
const PENDING_INDEX: usize = usize::MAX;

/// A SARIF log written as the reports come. The run's head names the rules that fired and
/// whether every input was read, so notifications, artifacts and results go to [`Spill`]s
/// (memory, then an unnamed temporary file) as they are rendered, with the rule's code in
/// front of each element whose rule index is pending; [`SarifStream::finish`] writes the head
/// and copies them, indexes filled in. The bytes are those of the whole log pretty-printed at
/// once. What stays in memory is the set of rules that fired and one entry per artifact
/// (its URI and index: an artifact is listed once however many inputs name it).
pub struct SarifStream {
    opts: SarifOptions,
    fired: std::collections::BTreeSet<&'static str>,
    art_index: std::collections::HashMap<String, usize>,
    execution_successful: bool,
    notifications: (Spill, u64),
    artifacts: (Spill, u64),
    results: (Spill, u64),
}

impl SarifStream {
    /// An empty log.
    pub fn new(opts: SarifOptions) -> Self {
        SarifStream {
            opts,
            fired: Default::default(),
            art_index: Default::default(),
            execution_successful: true,
            notifications: (Spill::default(), 0),
            artifacts: (Spill::default(), 0),
            results: (Spill::default(), 0),
        }
    }

    /// Adds one report's findings.
    pub fn report(&mut self, r: &Report) -> std::io::Result<()> {
        let opts = &self.opts;
        if r.io_failed {
            self.execution_successful = false;
        }
        for f in &r.findings {
            self.fired.insert(f.rule.code);
            // A finding inside an archive member points at the archive file (the artifact a
            // code-scanning view can show) and names the member as a logical location.
            let path = match (&f.member, &f.file) {
                (None, Some(sub)) => r.os_path.join(sub),
                _ => r.os_path.clone(),
            };
            let inner = f.member.as_ref().map(|m| match &f.file {
                Some(sub) => format!("{m}/{sub}"),
                None => m.clone(),
            });
            let (u, base_id) = match &opts.base {
                Some(base) => {
                    let abs = crate::config::normalize(&path);
                    match abs.strip_prefix(base) {
                        Ok(rel) => (uri(rel.as_os_str().as_encoded_bytes()), Some(SRCROOT)),
                        Err(_) => (file_uri(&abs, false), None),
                    }
                }
                None => (uri(path.as_os_str().as_encoded_bytes()), None),
            };
            let ai = match self.art_index.get(&u) {
                Some(i) => *i,
                None => {
                    let len = std::fs::metadata(&path)
                        .ok()
                        .filter(|m| m.is_file())
                        .map(|m| m.len());
                    let a = Artifact {
                        location: ArtifactLocation {
                            uri: u.clone(),
                            uri_base_id: base_id,
                            index: None,
                        },
                        length: len,
                    };
                    let i = usize::try_from(self.artifacts.1).unwrap_or(usize::MAX);
                    element(&mut self.artifacts, None, &a)?;
                    self.art_index.insert(u.clone(), i);
                    i
                }
            };
            let mut fp = BTreeMap::new();
            fp.insert(
                "tracelintFinding/v1",
                match &inner {
                    Some(m) => format!("{}:{}!{}:{}:{}", f.rule.code, u, m, f.offset, f.length),
                    None => format!("{}:{}:{}:{}", f.rule.code, u, f.offset, f.length),
                },
            );
            let mut text = match &inner {
                Some(m) => format!("in member {m} at 0x{:x}: {}", f.offset, f.message),
                None => f.message.clone(),
            };
            for n in &f.notes {
                text.push_str("\nnote: ");
                text.push_str(n);
            }
            let location = || Location {
                physical_location: PhysicalLocation {
                    artifact_location: ArtifactLocation {
                        uri: u.clone(),
                        uri_base_id: base_id,
                        index: Some(ai),
                    },
                    region: Region {
                        start_line: 1,
                        byte_offset: inner.is_none().then_some(f.offset),
                        byte_length: inner.is_none().then_some(f.length),
                    },
                },
                logical_locations: inner
                    .iter()
                    .map(|m| LogicalLocation {
                        fully_qualified_name: m.clone(),
                        kind: "resource",
                    })
                    .collect(),
            };
            if EXECUTION_CODES.contains(&f.rule.code) {
                if f.rule.code == "TL004" {
                    self.execution_successful = false;
                }
                let n = Notification {
                    level: if f.rule.code == "TL003" {
                        "warning"
                    } else {
                        "error"
                    },
                    message: Text { text: text.clone() },
                    locations: vec![location()],
                    associated_rule: RuleReference {
                        id: f.rule.code,
                        index: PENDING_INDEX,
                    },
                };
                element(&mut self.notifications, Some(f.rule.code), &n)?;
            }
            let res = SarifResult {
                rule_id: f.rule.code,
                rule_index: PENDING_INDEX,
                level: level(f.severity),
                message: Text { text },
                locations: vec![location()],
                partial_fingerprints: fp,
                properties: f.impact.clone().map(|impact| ResultProperties { impact }),
            };
            element(&mut self.results, Some(f.rule.code), &res)?;
        }
        Ok(())
    }

    /// Writes the whole log to `out`.
    pub fn finish(self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let opts = &self.opts;
        let rules: Vec<&'static Rule> = registry::all()
            .filter(|r| opts.all_rules || self.fired.contains(r.code))
            .collect();
        let index: BTreeMap<&str, usize> =
            rules.iter().enumerate().map(|(i, r)| (r.code, i)).collect();
        let descriptors: Vec<RuleDescriptor> = rules.iter().map(|r| descriptor(r)).collect();
        let base_ids: BTreeMap<&'static str, BaseUri> = opts
            .base
            .iter()
            .map(|b| {
                (
                    SRCROOT,
                    BaseUri {
                        uri: file_uri(b, true),
                    },
                )
            })
            .collect();
        let tool = Tool {
            driver: Driver {
                name: "tracelint",
                version: env!("CARGO_PKG_VERSION"),
                semantic_version: env!("CARGO_PKG_VERSION"),
                information_uri: INFORMATION_URI,
                rules: descriptors,
            },
        };
        let json = |v: &dyn erased::Json| v.pretty();
        let mut head = Vec::new();
        head.extend_from_slice(
            b"{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"version\": \"2.1.0\",\n  \"runs\": [\n    {\n      \"tool\": ",
        );
        super::indent_into(&mut head, &json(&tool), "      ", false);
        head.extend_from_slice(b",\n");
        if !base_ids.is_empty() {
            head.extend_from_slice(b"      \"originalUriBaseIds\": ");
            super::indent_into(&mut head, &json(&base_ids), "      ", false);
            head.extend_from_slice(b",\n");
        }
        head.extend_from_slice(
            b"      \"invocations\": [\n        {\n          \"executionSuccessful\": ",
        );
        head.extend_from_slice(if self.execution_successful {
            b"true"
        } else {
            b"false"
        });
        head.extend_from_slice(b",\n          \"toolExecutionNotifications\": ");
        out.write_all(&head)?;
        copy_array(self.notifications, "          ", &index, out)?;
        out.write_all(b"\n        }\n      ],\n      \"artifacts\": ")?;
        copy_array(self.artifacts, "      ", &index, out)?;
        out.write_all(b",\n      \"results\": ")?;
        copy_array(self.results, "      ", &index, out)?;
        out.write_all(b",\n      \"columnKind\": \"unicodeCodePoints\"\n    }\n  ]\n}")
    }
}

/// Pretty JSON of any serialisable value, for [`SarifStream::finish`]'s parts.
mod erased {
    pub trait Json {
        fn pretty(&self) -> String;
    }
    impl<T: serde::Serialize> Json for T {
        fn pretty(&self) -> String {
            serde_json::to_string_pretty(self).unwrap_or_default()
        }
    }
}

fn descriptor(r: &'static Rule) -> RuleDescriptor {
    RuleDescriptor {
        id: r.code,
        name: r.name,
        short_description: Text {
            text: r.summary.to_string(),
        },
        full_description: Text {
            text: r.summary.to_string(),
        },
        help_uri: help_uri(r),
        help: Markdown {
            text: registry::explain(r),
            markdown: registry::explain(r),
        },
        default_configuration: DefaultConfiguration {
            level: level(r.default_severity),
        },
        properties: RuleProperties {
            tags: vec![r.family.slug],
        },
    }
}

/// Spills one array element: `code` (its rule, when the element holds [`PENDING_INDEX`]),
/// a NUL, the element's pretty JSON, a NUL. JSON text never holds a NUL byte (it is escaped
/// in strings), so the NULs frame the element.
fn element<T: Serialize>(
    spill: &mut (Spill, u64),
    code: Option<&str>,
    v: &T,
) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(v).map_err(std::io::Error::other)?;
    spill.0.write(code.unwrap_or("").as_bytes())?;
    spill.0.write(b"\0")?;
    spill.0.write(text.as_bytes())?;
    spill.0.write(b"\0")?;
    spill.1 = spill.1.saturating_add(1);
    Ok(())
}

/// Writes a spilled array at the nesting `pad` (the indentation of the line holding its key):
/// `[]` when empty, else one element per line block, the pending rule index of each replaced
/// by its rule's index in the driver.
fn copy_array(
    spill: (Spill, u64),
    pad: &str,
    index: &BTreeMap<&str, usize>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    use std::io::BufRead;
    let (spill, n) = spill;
    if n == 0 {
        return out.write_all(b"[]");
    }
    let inner = format!("{pad}  ");
    let pending = PENDING_INDEX.to_string();
    let mut rd = spill.reader()?;
    let mut code = Vec::new();
    let mut text = Vec::new();
    let mut buf = Vec::new();
    out.write_all(b"[\n")?;
    for i in 0..n {
        code.clear();
        text.clear();
        rd.read_until(0, &mut code)?;
        rd.read_until(0, &mut text)?;
        code.pop();
        text.pop();
        let text = String::from_utf8_lossy(&text);
        // The pending index is the value of the key `ruleIndex` (a result) or `index` (a
        // notification's rule). A key's quotes are bare, while a quote inside a string is
        // escaped, so `"ruleIndex": N` can only be that key, never text from the input.
        let text = match std::str::from_utf8(&code) {
            Ok(c) if !c.is_empty() => {
                let idx = index.get(c).copied().unwrap_or(0);
                text.replacen(
                    &format!("\"ruleIndex\": {pending}"),
                    &format!("\"ruleIndex\": {idx}"),
                    1,
                )
                .replacen(
                    &format!("\"index\": {pending}"),
                    &format!("\"index\": {idx}"),
                    1,
                )
            }
            _ => text.into_owned(),
        };
        buf.clear();
        if i > 0 {
            buf.extend_from_slice(b",\n");
        }
        super::indent_into(&mut buf, &text, &inner, true);
        out.write_all(&buf)?;
    }
    out.write_all(b"\n")?;
    out.write_all(pad.as_bytes())?;
    out.write_all(b"]")
}
