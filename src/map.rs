//! Structure maps: a tree of where everything is in an input, built by each decoder while it
//! checks; [`report::map`](crate::report::map) renders it for `tracelint map` as text or JSON.

use serde::Serialize;

/// One node of a structure map.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct MapNode {
    /// What this node is (`"header"`, `"section"`, `"frame 3"`, `"cpu 1"`...).
    pub label: String,
    /// Archive member this node and its children are in (member nodes of an archive input).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member: Option<String>,
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
            match &f.member {
                // A finding in an archive member goes into that member's node.
                Some(m) => {
                    if let Some(node) = self.find_member(m) {
                        if !node.attach_one(i, f.file.as_deref(), f.offset, None) {
                            node.findings.push(i);
                        }
                    }
                }
                None => {
                    self.attach_one(i, f.file.as_deref(), f.offset, None);
                }
            }
        }
    }

    fn find_member(&mut self, m: &str) -> Option<&mut MapNode> {
        if self.member.as_deref() == Some(m) {
            return Some(self);
        }
        self.children.iter_mut().find_map(|c| c.find_member(m))
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
