//! The library's modules form layers with no upward arrows: the `crate::` paths each module
//! uses are collected from the source, and a cycle between top-level modules, or between any two
//! files (a folder's `mod.rs` included), fails the test (with the edges that close it).
//!
//! Test code (`*tests.rs`, `#[cfg(test)]` modules) is left out: tests may reach anywhere.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path of a source file: `src/a/b.rs` and `src/a/b/mod.rs` are `["a", "b"]`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

/// The source without comments, string literals and `#[cfg(test)]` items.
fn code_of(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            i += 2;
            while i < b.len() && !b[i..].starts_with(b"*/") {
                i += 1;
            }
            i += 2;
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i..].starts_with(b"#[cfg(test)]") {
            // Skip the item: up to the end of its first `{ ... }` block or `;`.
            i += b"#[cfg(test)]".len();
            let mut depth = 0usize;
            while i < b.len() {
                match b[i] {
                    b'{' => depth += 1,
                    b'}' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    b';' if depth == 0 => {
                        i += 1;
                        break;
                    }
                    _ => {}
                }
                i += 1;
            }
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Expands a `use` tree (`a::{b, c::{d, e}}`) into its paths.
fn expand(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        return vec![tree];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.len().saturating_sub(1)];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .flat_map(|p| expand(p).into_iter().map(move |x| format!("{prefix}{x}")))
        .collect()
}

/// Absolute module paths (`crate::`-relative segments) named by the code of module `me`, whose
/// child modules are `children` (a path may start with one: `decode::header`).
fn paths_used(code: &str, me: &[String], children: &[String]) -> Vec<Vec<String>> {
    let resolve = |p: &str| -> Option<Vec<String>> {
        let segs: Vec<&str> = p.split("::").filter(|s| !s.is_empty()).collect();
        let mut base: Vec<String>;
        let mut rest = &segs[..];
        match rest.first() {
            Some(&"crate") | Some(&"$crate") => {
                base = Vec::new();
                rest = &rest[1..];
            }
            Some(&"super") => {
                base = me.to_vec();
                while rest.first() == Some(&"super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
            }
            Some(&"self") => {
                base = me.to_vec();
                rest = &rest[1..];
            }
            Some(first) if children.iter().any(|c| c == first) => {
                base = me.to_vec();
            }
            _ => return None,
        }
        base.extend(
            rest.iter()
                .map(|s| s.to_string())
                .filter(|s| s != "self" && s != "*"),
        );
        Some(base)
    };
    let mut out = Vec::new();
    // `use` statements (with brace groups).
    for stmt in code.split(';') {
        let s = stmt.trim();
        let s = s
            .rsplit_once("use ")
            .filter(|(before, _)| {
                before.is_empty() || before.ends_with(char::is_whitespace) || before.ends_with('}')
            })
            .map(|(_, u)| u);
        if let Some(tree) = s {
            let t = tree.trim();
            let relative = children.iter().any(|c| {
                t.strip_prefix(c.as_str())
                    .is_some_and(|r| r.starts_with("::"))
            });
            if relative
                || t.starts_with("crate::")
                || t.starts_with("super::")
                || t.starts_with("self::")
            {
                for p in expand(t) {
                    let p = p.split(" as ").next().unwrap_or("").to_string();
                    if let Some(r) = resolve(&p) {
                        out.push(r);
                    }
                }
            }
        }
    }
    // Inline paths: `crate::a::b`, `super::x`, `child::x`.
    let keys: Vec<String> = ["$crate", "crate", "super"]
        .iter()
        .map(|k| k.to_string())
        .chain(children.iter().cloned())
        .map(|k| format!("{k}::"))
        .collect();
    for key in &keys {
        let key = key.as_str();
        let mut from = 0;
        while let Some(at) = code[from..].find(key) {
            let start = from + at;
            from = start + key.len();
            // Inside an identifier, or the tail of a longer path (`super::super::x`).
            if start > 0
                && (code[..start].chars().last().is_some_and(is_ident)
                    || code[..start].ends_with("::"))
            {
                continue;
            }
            let mut end = from;
            let bytes = code.as_bytes();
            while end < code.len()
                && (is_ident(bytes[end] as char) || code[end..].starts_with("::"))
            {
                end += if code[end..].starts_with("::") { 2 } else { 1 };
            }
            if let Some(r) = resolve(&code[start..end]) {
                out.push(r);
            }
        }
    }
    out
}

struct Graph {
    /// Module -> the modules it uses, with one file that does (for the message).
    edges: BTreeMap<String, BTreeMap<String, String>>,
}

impl Graph {
    fn add(&mut self, from: &str, to: &str, file: &str) {
        if from != to {
            self.edges
                .entry(from.to_string())
                .or_default()
                .entry(to.to_string())
                .or_insert_with(|| file.to_string());
        }
    }

    /// Every cycle found by a depth-first search, as a list of nodes.
    fn cycles(&self) -> Vec<Vec<String>> {
        let mut found = Vec::new();
        let nodes: BTreeSet<&String> = self.edges.keys().collect();
        for start in nodes {
            let mut stack = vec![(start.clone(), vec![start.clone()])];
            let mut seen = BTreeSet::new();
            while let Some((n, path)) = stack.pop() {
                for next in self.edges.get(&n).into_iter().flat_map(|m| m.keys()) {
                    if next == start {
                        let mut c = path.clone();
                        c.push(start.clone());
                        found.push(c);
                    } else if next > start && seen.insert(next.clone()) {
                        let mut p = path.clone();
                        p.push(next.clone());
                        stack.push((next.clone(), p));
                    }
                }
            }
        }
        found
    }

    fn describe(&self, cycle: &[String]) -> String {
        cycle
            .windows(2)
            .map(|w| {
                let file = &self.edges[&w[0]][&w[1]];
                format!("{} -> {} (in {file})", w[0], w[1])
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The graph between top-level modules, and the graph between files: each source file is a
/// node of its own, named by its module path (`formats::tracecmd::decode::ctx`; a folder's
/// `mod.rs` is the folder's module), and a path it uses goes to the file that declares the
/// longest module prefix of that path.
fn graphs() -> (Graph, Graph) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    common::rs_files(&src, &mut files);
    let mut top = Graph {
        edges: BTreeMap::new(),
    };
    let mut by_file = Graph {
        edges: BTreeMap::new(),
    };
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with("tests.rs") || name == "main.rs" || name == "lib.rs" {
            continue;
        }
        let me = module_of(&src, &f);
        let code = code_of(&std::fs::read_to_string(&f).unwrap());
        let rel = f.strip_prefix(&src).unwrap().display().to_string();
        // The modules declared inside this one: files of its folder (`a/` for `a.rs` or
        // `a/mod.rs`).
        let dir = if name == "mod.rs" {
            f.parent().unwrap().to_path_buf()
        } else {
            f.with_extension("")
        };
        let children: Vec<String> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .filter_map(|e| {
                let p = e.ok()?.path();
                let n = p.file_name()?.to_string_lossy().into_owned();
                if p.is_dir() {
                    Some(n)
                } else {
                    n.strip_suffix(".rs")
                        .filter(|s| *s != "mod")
                        .map(str::to_string)
                }
            })
            .collect();
        for used in paths_used(&code, &me, &children) {
            let Some(first) = used.first() else { continue };
            if !is_module(&src, &used[..1]) {
                continue; // a macro or item at the crate root
            }
            top.add(&me[0], first, &rel);
            let file = (1..=used.len())
                .rev()
                .find(|&n| is_module(&src, &used[..n]))
                .map(|n| used[..n].join("::"));
            if let Some(to) = file {
                by_file.add(&me.join("::"), &to, &rel);
            }
        }
    }
    (top, by_file)
}

fn is_module(src: &Path, path: &[String]) -> bool {
    let mut p = src.to_path_buf();
    for s in path {
        p.push(s);
    }
    p.is_dir() || p.with_extension("rs").is_file()
}

#[test]
fn no_cycle_between_top_level_modules() {
    let (top, _) = graphs();
    let cycles = top.cycles();
    let msgs: Vec<String> = cycles.iter().map(|c| top.describe(c)).collect();
    assert!(
        msgs.is_empty(),
        "import cycles between top-level modules:\n{}",
        msgs.join("\n")
    );
}

/// Every file is a node, folders are not merged (`decode/ctx.rs` and `decode/sieve.rs` are two
/// nodes), and a folder's `mod.rs` is a node like any other: a part that uses an item its
/// `mod.rs` declares while the `mod.rs` uses the part closes a cycle too.
#[test]
fn no_cycle_between_files() {
    let (_, files) = graphs();
    let msgs: Vec<String> = files.cycles().iter().map(|c| files.describe(c)).collect();
    assert!(
        msgs.is_empty(),
        "import cycles between files:\n{}",
        msgs.join("\n")
    );
}

/// The layers, lowest first; a module may use modules of its own layer (without a cycle) or of a
/// lower one, never of a higher one. A new top-level module must be placed here.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "ground",
        &[
            "limits", "reader", "detect", "input", "rule", "rules", "options", "program",
        ],
    ),
    ("findings", &["finding", "map", "ledger"]),
    ("formats", &["formats"]),
    (
        "entry",
        &["registry", "config", "check", "archive", "fuzzing", "fix"],
    ),
    ("output", &["report"]),
    ("daemon", &["watch"]),
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, ms)| ms.contains(&module))
}

#[test]
fn every_module_uses_only_its_own_or_lower_layers() {
    let (top, _) = graphs();
    let mut msgs = Vec::new();
    for (from, tos) in &top.edges {
        let Some(lf) = layer_of(from) else {
            msgs.push(format!(
                "module `{from}` is in no layer of LAYERS (tests/layers.rs)"
            ));
            continue;
        };
        for (to, file) in tos {
            match layer_of(to) {
                None => msgs.push(format!(
                    "module `{to}` is in no layer of LAYERS (tests/layers.rs)"
                )),
                Some(lt) if lt > lf => msgs.push(format!(
                    "{from} ({}) uses {to} ({}), a higher layer, in {file}",
                    LAYERS[lf].0, LAYERS[lt].0
                )),
                _ => {}
            }
        }
    }
    assert!(msgs.is_empty(), "{}", msgs.join("\n"));
}

/// Every format folder has the same top level: `mod.rs` (entry and the format's doc), `decode/`
/// or `decode.rs` (bytes to model, malformed findings), `model.rs`, `rules.rs` (declarations
/// and docs), `lint.rs` or `checks/` (passes over the model), `writer.rs` (feature `testkit`),
/// `repair.rs` or `repair/` (`tracelint fix`: a plan of edits from the model) and nothing else. `ftrace_ring` is the ring-buffer page walker the trace-cmd format uses,
/// not a format of its own: its `mod.rs` is the walker. uftrace is a directory of a dozen file
/// kinds: its `model.rs` says which kind a file is, and each kind's model is declared next to
/// its decoder under `decode/`.
#[test]
fn format_folders_share_one_layout() {
    let formats = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/formats");
    let allowed = [
        "mod.rs",
        "decode",
        "decode.rs",
        "model.rs",
        "rules.rs",
        "lint.rs",
        "checks",
        "writer.rs",
        "repair.rs",
        "repair",
        "tests.rs",
    ];
    let mut problems = Vec::new();
    for e in std::fs::read_dir(&formats).unwrap() {
        let dir = e.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let fmt = dir.file_name().unwrap().to_string_lossy().into_owned();
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        for n in &names {
            if !allowed.contains(&n.as_str()) {
                problems.push(format!("formats/{fmt}/{n} is not part of the layout"));
            }
        }
        let has = |n: &str| names.iter().any(|x| x == n);
        let mut required = vec!["mod.rs", "rules.rs"];
        if fmt != "ftrace_ring" {
            if !(has("decode") || has("decode.rs")) {
                problems.push(format!("formats/{fmt} has no decode/ or decode.rs"));
            }
            if !(has("lint.rs") || has("checks")) {
                problems.push(format!("formats/{fmt} has no lint.rs or checks/"));
            }
            required.push("model.rs");
        }
        for r in required {
            if !has(r) {
                problems.push(format!("formats/{fmt} has no {r}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
