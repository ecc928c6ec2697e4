//! The functions of `src/` longer than 200 lines are the ones `docs/architecture.md` lists
//! (with the reason each stays long) under "Functions over 200 lines". Run with `--nocapture`
//! to see the current list.

mod common;

use std::path::Path;

const LIMIT: usize = 200;

/// The text with comments, strings and character literals blanked (newlines kept), so that
/// braces count blocks only.
fn blank(text: &str) -> Vec<u8> {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let clear = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in out.iter_mut().take(to.min(b.len())).skip(from) {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        let rest = &b[i..];
        let start = i;
        if rest.starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if rest.starts_with(b"/*") {
            i += 2;
            while i < b.len() && !b[i..].starts_with(b"*/") {
                i += 1;
            }
            i += 2;
        } else if rest.starts_with(b"r#") || rest.starts_with(b"r\"") {
            let hashes = rest[1..].iter().take_while(|&&c| c == b'#').count();
            if rest.get(1 + hashes) != Some(&b'"') {
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            i += 2 + hashes;
            while i < b.len() && !b[i..].starts_with(&close) {
                i += 1;
            }
            i += close.len();
        } else if rest[0] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if rest[0] == b'\'' {
            if rest.get(1) == Some(&b'\\') {
                i += 2;
                while i < b.len() && b[i] != b'\'' {
                    i += 1;
                }
                i += 1;
            } else if rest.get(2) == Some(&b'\'') {
                i += 3;
            } else {
                i += 1; // a lifetime
                continue;
            }
        } else {
            i += 1;
            continue;
        }
        clear(&mut out, start, i);
    }
    out
}

/// (`path::name`, lines) of every function body longer than [`LIMIT`] lines.
fn long_functions() -> Vec<(String, usize)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    common::rs_files(&src, &mut files);
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let code = blank(&text);
        let rel = f.strip_prefix(&src).unwrap().display().to_string();
        let lines: Vec<&[u8]> = code.split(|&c| c == b'\n').collect();
        for (n, line) in lines.iter().enumerate() {
            let s = String::from_utf8_lossy(line);
            let Some(at) = s.find("fn ") else { continue };
            let before = s[..at].trim();
            let words_ok = before.split_whitespace().all(|w| {
                [
                    "pub",
                    "pub(crate)",
                    "pub(super)",
                    "const",
                    "unsafe",
                    "async",
                    "extern",
                ]
                .contains(&w)
                    || w.starts_with("pub(")
            });
            if !words_ok {
                continue;
            }
            let name: String = s[at + 3..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() {
                continue;
            }
            // The body: from the first `{` after the signature to its match (a `;` first means
            // a declaration without a body).
            let mut depth = 0usize;
            let mut opened = None;
            'scan: for (m, l) in lines.iter().enumerate().skip(n) {
                for &c in l.iter() {
                    match c {
                        b';' if opened.is_none() => break 'scan,
                        b'{' => {
                            opened.get_or_insert(m);
                            depth += 1;
                        }
                        b'}' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 && opened.is_some() {
                                let len = m - n + 1;
                                if len > LIMIT {
                                    out.push((format!("{rel}::{name}"), len));
                                }
                                break 'scan;
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    out
}

#[test]
fn long_functions_are_the_ones_the_architecture_lists() {
    let found = long_functions();
    for (f, n) in &found {
        println!("| `{f}` | {n} |");
    }
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md"))
            .unwrap();
    let section = doc
        .split("## Functions over 200 lines")
        .nth(1)
        .expect("docs/architecture.md has a `## Functions over 200 lines` section");
    let section = section.split("\n## ").next().unwrap_or_default();
    let listed: Vec<String> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect();
    let found_names: Vec<String> = found.iter().map(|(f, _)| f.clone()).collect();
    let missing: Vec<&String> = found_names.iter().filter(|f| !listed.contains(f)).collect();
    let stale: Vec<&String> = listed.iter().filter(|f| !found_names.contains(f)).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "not listed in docs/architecture.md: {missing:?}; listed but no longer over {LIMIT} lines: {stale:?}"
    );
}
