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
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    original_uri_base_ids: BTreeMap<&'static str, BaseUri>,
    invocations: Vec<Invocation>,
    artifacts: Vec<Artifact>,
    results: Vec<SarifResult>,
    column_kind: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    tool_execution_notifications: Vec<Notification>,
}

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
    let fired: std::collections::BTreeSet<&str> = reports
        .iter()
        .flat_map(|r| r.findings.iter().map(|f| f.rule.code))
        .collect();
    let rules: Vec<&'static Rule> = registry::all()
        .filter(|r| opts.all_rules || fired.contains(r.code))
        .collect();
    let index: BTreeMap<&str, usize> = rules.iter().enumerate().map(|(i, r)| (r.code, i)).collect();
    let descriptors = rules
        .iter()
        .map(|r| RuleDescriptor {
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
        })
        .collect();
    let mut artifacts: Vec<Artifact> = Vec::new();
    let mut art_index: BTreeMap<String, usize> = BTreeMap::new();
    let mut results = Vec::new();
    let mut notifications = Vec::new();
    let mut execution_successful = true;
    for r in reports {
        if r.io_failed {
            execution_successful = false;
        }
        for f in &r.findings {
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
            let ai = *art_index.entry(u.clone()).or_insert_with(|| {
                let len = std::fs::metadata(&path)
                    .ok()
                    .filter(|m| m.is_file())
                    .map(|m| m.len());
                artifacts.push(Artifact {
                    location: ArtifactLocation {
                        uri: u.clone(),
                        uri_base_id: base_id,
                        index: None,
                    },
                    length: len,
                });
                artifacts.len() - 1
            });
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
            let rule_index = index.get(f.rule.code).copied().unwrap_or(0);
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
                    execution_successful = false;
                }
                notifications.push(Notification {
                    level: if f.rule.code == "TL003" {
                        "warning"
                    } else {
                        "error"
                    },
                    message: Text { text: text.clone() },
                    locations: vec![location()],
                    associated_rule: RuleReference {
                        id: f.rule.code,
                        index: rule_index,
                    },
                });
            }
            results.push(SarifResult {
                rule_id: f.rule.code,
                rule_index,
                level: level(f.severity),
                message: Text { text },
                locations: vec![location()],
                partial_fingerprints: fp,
                properties: f.impact.clone().map(|impact| ResultProperties { impact }),
            });
        }
    }
    let log = Log {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: vec![Run {
            original_uri_base_ids: opts
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
                .collect(),
            tool: Tool {
                driver: Driver {
                    name: "tracelint",
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    information_uri: INFORMATION_URI,
                    rules: descriptors,
                },
            },
            invocations: vec![Invocation {
                execution_successful,
                tool_execution_notifications: notifications,
            }],
            artifacts,
            results,
            column_kind: "unicodeCodePoints",
        }],
    };
    serde_json::to_string_pretty(&log).unwrap_or_default()
}
