//! The rule registry: every rule tracelint can report, with its stable code, kebab-case name,
//! default level, one-line summary and documentation.
//!
//! Rules are declared per format with [`declare_rules!`](crate::declare_rules); the doc comment
//! above each declaration *is* the rule's documentation (`tracelint explain CODE` prints it and
//! `rules/<family>.md` is rendered from it). [`all`] lists every rule of every family.

pub use crate::rule::{Family, Rule, Severity};

/// Every family, in documentation order: the generic rules, then each format's (from the
/// format table, a family shared by two formats once).
pub fn families() -> Vec<Family> {
    let mut out = vec![Family::GENERIC];
    for s in crate::formats::FORMATS {
        if !out.contains(&s.family) {
            out.push(s.family);
        }
    }
    out
}

/// Rules of `family`, in code order of their declaring modules.
pub fn rules_of(family: Family) -> Vec<&'static Rule> {
    if family == Family::GENERIC {
        return crate::rules::RULES.to_vec();
    }
    crate::formats::FORMATS
        .iter()
        .find(|s| s.family == family)
        .map(|s| s.rules.iter().flat_map(|p| p.iter().copied()).collect())
        .unwrap_or_default()
}

include!(concat!(env!("OUT_DIR"), "/raised_in.rs"));

/// The source files (relative to the package, such as `src/formats/gdb/lint.rs`) that raise
/// `rule`, found by the build script; empty for a rule no code raises (reserved).
pub fn raised_in(rule: &Rule) -> &'static [&'static str] {
    RAISED_IN
        .iter()
        .find(|(code, _)| *code == rule.code)
        .map(|(_, files)| *files)
        .unwrap_or(&[])
}

/// `raised_in` as text: `` `a.rs` `` / `` `a.rs`, `b.rs` `` / "nowhere (reserved)".
pub fn raised_in_text(rule: &Rule) -> String {
    let files = raised_in(rule);
    if files.is_empty() {
        return "nowhere (reserved: no check raises it)".to_string();
    }
    files
        .iter()
        .map(|f| format!("`{f}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every rule of every family, in family then declaration order.
pub fn all() -> impl Iterator<Item = &'static Rule> {
    families().into_iter().flat_map(rules_of)
}

/// Finds a rule by code (`GT012`, case-insensitive) or name (`frame-size-mismatch`).
pub fn lookup(key: &str) -> Option<&'static Rule> {
    all().find(|r| r.code.eq_ignore_ascii_case(key) || r.name == key)
}

/// The docs of one rule, as Markdown with a title line.
pub fn explain(rule: &Rule) -> String {
    let docs = dedent(rule.docs);
    format!(
        "# {} {}\n\n{}\n\n- Family: {}\n- Default level: {} ({})\n- Raised in: {}\n\n{}",
        rule.code,
        rule.name,
        rule.summary,
        rule.family.title,
        rule.default_severity,
        rule.default_severity.meaning(),
        raised_in_text(rule),
        docs.trim_end()
    )
}

/// Doc comments arrive with one leading space per line (`/// text` → `" text"`).
fn dedent(s: &str) -> String {
    s.lines()
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Renders `rules/<family>.md` for one family.
pub fn render_family_doc(family: Family) -> String {
    let mut out = format!(
        "# {}\n\n<!-- Generated from the rule registry by `tracelint rules --write-docs`. Do not edit. -->\n\n",
        family.title
    );
    out.push_str("| code | name | default | summary |\n|---|---|---|---|\n");
    for r in rules_of(family).iter() {
        out.push_str(&format!(
            "| [{}](#{}) | `{}` | {} | {} |\n",
            r.code,
            r.code.to_ascii_lowercase(),
            r.name,
            r.default_severity,
            r.summary.replace('|', "\\|")
        ));
    }
    for r in rules_of(family).iter() {
        out.push_str(&format!(
            "\n## {}\n\n`{}` · default level **{}** · raised in {}\n\n{}\n\n{}\n",
            r.code,
            r.name,
            r.default_severity,
            raised_in_text(r),
            r.summary,
            dedent(r.docs).trim()
        ));
    }
    out
}

/// Renders `rules/README.md`, the index of all families.
pub fn render_index_doc() -> String {
    let mut out = String::from(
        "# tracelint rules\n\n<!-- Generated from the rule registry by `tracelint rules --write-docs`. Do not edit. -->\n\n\
         Every finding carries one of these stable codes. Configure levels in `tracelint.toml` \
         (`[rules]` table, by code or name) or with `-A/-W/-D CODE`.\n\n",
    );
    out.push_str(SEVERITY_PRINCIPLE);
    out.push_str("| family | prefix | document |\n|---|---|---|\n");
    for f in families() {
        out.push_str(&format!(
            "| {} | `{}` | [{}.md]({}.md) |\n",
            f.title, f.prefix, f.slug, f.slug
        ));
    }
    out
}

/// How default levels are chosen; the head of `rules/README.md`.
pub const SEVERITY_PRINCIPLE: &str = "\
## Levels: a claim about readers

A level says what the readers of the format do with *this* file. The readers are the reader
matrix of `campaign/README.md`: `trace-cmd report` 2.4, 2.9.5, 3.1.6 (with and without zlib)
and 3.3.4 for trace.dat, `uftrace dump`/`replay` 0.9.4, 0.13, 0.16 and 0.18.1 for uftrace data,
GDB 13's `target tfile` for tracepoint files, and for ktrace a model of libktrace, `trace` and
kperfdata (no Darwin reader runs on Linux).

| level | claim |
|---|---|
| **error** | a mainstream reader *of the writer's version or newer* (or of the file's format version) crashes, hangs, rejects the file, or reads other data than was written (lost or misframed events, frames it cannot open); a file written by a development build that every released reader rejects is an error too, and the message says so |
| **warning** | a stated invariant of the format is broken, but every such reader reads the same data |
| **info** | a recognised quirk of a named writer version, or a note that an *older* reader cannot read a newer feature (\"uftrace 0.9.4 cannot read this\") |

The level is a claim per finding, not per rule: the same broken field can be harmless in one
file and fatal in another (a section size that readers never use, a `csize` they do). Where a
rule's effect depends on the case, its **What readers do** section lists each case and its
level, and the message says what which reader versions do, with numbers. The list is the
rule's default level otherwise.

Fields, options and lines that a *newer* writer adds and an older reader does not know are never
errors: a validator must not break when the producer moves on. Each rule's **What readers do**
section says what the readers do when the rule is broken, verified by running the reader matrix
(`scripts/readers.sh`, the differential campaign in `campaign/`) where it says so, else read from
their source. What each writer version writes differently is in the format notes under `docs/`.

";

/// Every generated document: (file name under `rules/`, content).
pub fn rendered_docs() -> Vec<(String, String)> {
    let mut v = vec![("README.md".to_string(), render_index_doc())];
    for f in families() {
        v.push((format!("{}.md", f.slug), render_family_doc(f)));
    }
    v
}

/// A rule selector as `--select`, `-A/-W/-D` and `tracelint.toml` take it: a code (`TD014`) or
/// name (`timestamp-backwards`), a code prefix (`TD1`, `GT`), a format (`uftrace`,
/// `trace-cmd`, `tracecmd`, `gdb-tfile`, `ktrace`, `generic`) or `ALL`. Returns the rules it
/// names and its specificity (a more specific selector wins over a less specific one, as in
/// ruff: a rule over a prefix, a longer prefix over a shorter one, anything over `ALL`), or
/// `None` when it names no rule.
pub fn select(selector: &str) -> Option<(Vec<&'static Rule>, usize)> {
    if let Some(r) = lookup(selector) {
        return Some((vec![r], usize::MAX));
    }
    if selector.eq_ignore_ascii_case("all") {
        return Some((all().collect(), 0));
    }
    let family = families().into_iter().find(|f| f.is_named(selector));
    if let Some(f) = family {
        return Some((rules_of(f), f.prefix.len()));
    }
    let valid = selector.len() >= 2 && selector.bytes().all(|b| b.is_ascii_alphanumeric());
    if !valid {
        return None;
    }
    let upper = selector.to_ascii_uppercase();
    let rules: Vec<&'static Rule> = all().filter(|r| r.code.starts_with(&upper)).collect();
    (!rules.is_empty()).then_some((rules, selector.len()))
}
