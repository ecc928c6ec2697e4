//! `tracelint map`: a structure map with the findings on its nodes, as an indented text tree or
//! as a JSON document.

use crate::check::Report;
use crate::map::MapNode;
use serde::Serialize;

/// The JSON document of `tracelint map -o json` for report `r` and its map.
pub fn render_json(r: &Report, map: &MapNode) -> String {
    #[derive(Serialize)]
    struct Doc<'a> {
        schema_version: u32,
        path: &'a str,
        format: Option<crate::detect::Format>,
        size: u64,
        map: &'a MapNode,
        findings: Vec<serde_json::Value>,
    }
    let findings = r
        .findings
        .iter()
        .map(|f| {
            let mut v = serde_json::to_value(f).unwrap_or_default();
            if let Some(o) = v.as_object_mut() {
                o.insert("name".into(), f.rule.name.into());
            }
            v
        })
        .collect();
    let doc = Doc {
        schema_version: super::SCHEMA_VERSION,
        path: &r.path,
        format: r.format,
        size: r.size,
        map,
        findings,
    };
    format!(
        "{}\n",
        serde_json::to_string_pretty(&doc).unwrap_or_default()
    )
}

/// Renders a map as an indented tree; nodes with findings list their codes.
pub fn render_text(
    node: &MapNode,
    findings: &[crate::finding::Finding],
    max_children: usize,
    color: bool,
    out: &mut String,
) {
    let style = Style {
        findings,
        max_children,
        color,
    };
    render_node(node, &style, "", "", None, out);
}

/// What every node of one rendering shares.
struct Style<'a> {
    findings: &'a [crate::finding::Finding],
    max_children: usize,
    color: bool,
}

fn render_node(
    node: &MapNode,
    style: &Style<'_>,
    first_prefix: &str,
    prefix: &str,
    inherited_file: Option<&str>,
    out: &mut String,
) {
    use std::fmt::Write;
    // Inside a directory input every offset says which file it is in: `@info:0x28`.
    let Style {
        findings,
        max_children,
        color,
    } = *style;
    let file = node.file.as_deref().or(inherited_file);
    let _ = match file {
        Some(f) => write!(
            out,
            "{first_prefix}{} @{f}:0x{:x} +{}",
            node.label, node.offset, node.size
        ),
        None => write!(
            out,
            "{first_prefix}{} @0x{:x} +{}",
            node.label, node.offset, node.size
        ),
    };
    if !node.values.is_empty() {
        let vals: Vec<String> = node
            .values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let _ = write!(out, "  {}", vals.join(" "));
    }
    if !node.findings.is_empty() {
        // Group by code: "KT033×10(info), KT032(warning)".
        let mut groups: Vec<(&str, crate::finding::Severity, usize)> = Vec::new();
        for f in node.findings.iter().filter_map(|&i| findings.get(i)) {
            match groups
                .iter_mut()
                .find(|g| g.0 == f.rule.code && g.1 == f.severity)
            {
                Some(g) => g.2 += 1,
                None => groups.push((f.rule.code, f.severity, 1)),
            }
        }
        let codes: Vec<String> = groups
            .iter()
            .map(|(c, s, n)| {
                if *n > 1 {
                    format!("{c}×{n}({s})")
                } else {
                    format!("{c}({s})")
                }
            })
            .collect();
        let (on, off) = if color {
            ("\x1b[31m", "\x1b[0m")
        } else {
            ("", "")
        };
        let _ = write!(out, "  {on}<- {}{off}", codes.join(", "));
    }
    out.push('\n');
    let n = node.children.len();
    let shown = if max_children == 0 {
        n
    } else {
        n.min(max_children)
    };
    for (i, c) in node.children.iter().take(shown).enumerate() {
        let last = i + 1 == shown && shown == n;
        let (fp, np) = if last {
            ("└─ ", "   ")
        } else {
            ("├─ ", "│  ")
        };
        render_node(
            c,
            style,
            &format!("{prefix}{fp}"),
            &format!("{prefix}{np}"),
            file,
            out,
        );
    }
    if shown < n {
        let _ = writeln!(out, "{prefix}└─ ... {} more", n - shown);
    }
}
