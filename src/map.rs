//! Structure maps: a tree of where everything is in an input, built by each decoder while it
//! checks, rendered by `tracelint map` as text or JSON.

use serde::Serialize;

/// One node of a structure map.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct MapNode {
    /// What this node is (`"header"`, `"section"`, `"frame 3"`, `"cpu 1"`...).
    pub label: String,
    /// File inside a directory input, when it differs from the parent's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Absolute offset of the node's first byte.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// Key facts, in display order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<(String, String)>,
    /// Child nodes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<MapNode>,
    /// Indexes into the input's findings of the findings that concern this node (filled by
    /// [`MapNode::attach_findings`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<usize>,
}

impl MapNode {
    /// A node covering `offset..offset+size`.
    pub fn new(label: impl Into<String>, offset: u64, size: u64) -> Self {
        MapNode {
            label: label.into(),
            offset,
            size,
            ..Default::default()
        }
    }

    /// Adds a key fact.
    pub fn value(mut self, key: impl Into<String>, val: impl ToString) -> Self {
        self.values.push((key.into(), val.to_string()));
        self
    }

    /// Adds a key fact in place.
    pub fn set(&mut self, key: impl Into<String>, val: impl ToString) {
        self.values.push((key.into(), val.to_string()));
    }

    /// Adds a child.
    pub fn child(mut self, c: MapNode) -> Self {
        self.children.push(c);
        self
    }

    /// Adds a child in place.
    pub fn push(&mut self, c: MapNode) {
        self.children.push(c);
    }

    /// Sets the file (directory inputs).
    pub fn in_file(mut self, file: impl Into<String>) -> Self {
        self.file = Some(file.into());
        self
    }

    /// Marks each finding on the deepest node whose range (and file) contains its offset.
    pub fn attach_findings(&mut self, findings: &[crate::finding::Finding]) {
        for (i, f) in findings.iter().enumerate() {
            self.attach_one(i, f.file.as_deref(), f.offset, None);
        }
    }

    fn attach_one(
        &mut self,
        idx: usize,
        file: Option<&str>,
        off: u64,
        parent_file: Option<&str>,
    ) -> bool {
        let my_file = self.file.as_deref().or(parent_file);
        let same_file = my_file == file;
        let end = self.offset.saturating_add(self.size.max(1));
        let inside = same_file && off >= self.offset && off < end;
        // A directory node (size 0, no file) may contain children of other files.
        let is_container = self.size == 0 && self.file.is_none();
        if !inside && !is_container {
            return false;
        }
        for c in &mut self.children {
            if c.attach_one(idx, file, off, my_file) {
                return true;
            }
        }
        if inside {
            self.findings.push(idx);
            return true;
        }
        false
    }
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
