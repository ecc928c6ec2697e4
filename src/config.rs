//! `tracelint.toml`: per-rule levels and limits.
//!
//! ```toml
//! [rules]
//! GT012 = "allow"                 # by code
//! frame-size-mismatch = "deny"    # or by name
//!
//! [limits]
//! max_section_bytes = 268435456
//! ```

use crate::finding::{Finding, Severity};
use crate::limits::Limits;
use crate::registry::{self, Rule};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Level a rule is configured to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Do not report.
    Allow,
    /// Report as info.
    Info,
    /// Report as a warning.
    Warn,
    /// Report as an error.
    Deny,
}

/// The file as written: values are checked one by one afterwards, so every mistake is reported
/// at once, each with its own span.
#[derive(Deserialize, Default)]
struct RawConfig {
    #[serde(default)]
    rules: BTreeMap<toml::Spanned<String>, toml::Spanned<toml::Value>>,
    #[serde(default)]
    limits: BTreeMap<toml::Spanned<String>, toml::Spanned<toml::Value>>,
    #[serde(flatten)]
    other: BTreeMap<String, toml::Value>,
}

/// A loaded configuration.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// Per-rule overrides, keyed by code.
    pub levels: BTreeMap<&'static str, Level>,
    /// Resource limits.
    pub limits: Limits,
    /// Where it came from, if from a file.
    pub source: Option<PathBuf>,
}

/// A configuration that could not be loaded, with a span into its text when known.
#[derive(Debug, Clone)]
pub struct ConfigError {
    /// File name.
    pub path: PathBuf,
    /// The file's text (empty if it could not be read).
    pub text: String,
    /// Byte span of the problem in `text`.
    pub span: Option<Range<usize>>,
    /// What is wrong (the first problem).
    pub message: String,
    /// Every problem found, the first included: span into `text` (when known) and message.
    pub problems: Vec<(Option<Range<usize>>, String)>,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)?;
        for (_, m) in self.problems.iter().skip(1) {
            write!(f, "; {m}")?;
        }
        Ok(())
    }
}

impl Config {
    /// Parses configuration text. Reports every problem in it, not just the first.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let fail = |mut problems: Vec<(Option<Range<usize>>, String)>| {
            problems.sort_by_key(|(span, _)| span.as_ref().map_or(usize::MAX, |r| r.start));
            let (span, message) = problems.first().cloned().unwrap_or_default();
            ConfigError {
                path: path.to_path_buf(),
                text: text.to_string(),
                span,
                message,
                problems,
            }
        };
        let raw: RawConfig =
            toml::from_str(text).map_err(|e| fail(vec![(e.span(), e.message().to_string())]))?;
        let mut problems = Vec::new();
        for key in raw.other.keys() {
            let span = text.find(&format!("[{key}]")).map(|i| i..i + key.len() + 2);
            problems.push((
                span,
                format!("unknown section or key `{key}`: expected `[rules]` or `[limits]`"),
            ));
        }
        let mut cfg = Config {
            levels: BTreeMap::new(),
            limits: Limits::default(),
            source: Some(path.to_path_buf()),
        };
        for (key, value) in raw.rules {
            let rule = registry::lookup(key.get_ref());
            if rule.is_none() {
                problems.push((
                    Some(key.span()),
                    format!(
                        "unknown rule `{}`: expected a code (like GT001) or a name; `tracelint rules` lists them",
                        key.get_ref()
                    ),
                ));
            }
            let level = value
                .get_ref()
                .as_str()
                .and_then(|v| Level::deserialize(toml::Value::String(v.to_string())).ok());
            match (rule, level) {
                (Some(rule), Some(level)) => {
                    cfg.levels.insert(rule.code, level);
                }
                (_, None) => problems.push((
                    Some(value.span()),
                    format!(
                        "`{}` is not a level: expected \"allow\", \"info\", \"warn\" or \"deny\"",
                        value.get_ref()
                    ),
                )),
                (None, Some(_)) => {}
            }
        }
        let mut limits = toml::Table::new();
        for (key, value) in raw.limits {
            let mut one = toml::Table::new();
            one.insert(key.get_ref().clone(), value.get_ref().clone());
            match Limits::deserialize(toml::Value::Table(one)) {
                Ok(_) => {
                    limits.insert(key.get_ref().clone(), value.get_ref().clone());
                }
                Err(e) => {
                    let span = if e.to_string().contains("unknown field") {
                        key.span()
                    } else {
                        value.span()
                    };
                    problems.push((
                        Some(span),
                        format!("limits.{}: {}", key.get_ref(), e.message()),
                    ));
                }
            }
        }
        match Limits::deserialize(toml::Value::Table(limits)) {
            Ok(l) => cfg.limits = l,
            Err(e) => problems.push((None, e.message().to_string())),
        }
        if cfg.limits.max_findings == 0 {
            problems.push((None, "limits.max_findings must be at least 1".into()));
        }
        if problems.is_empty() {
            Ok(cfg)
        } else {
            Err(fail(problems))
        }
    }

    /// Loads `path`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            path: path.to_path_buf(),
            text: String::new(),
            span: None,
            message: format!("cannot read: {e}"),
            problems: vec![(None, format!("cannot read: {e}"))],
        })?;
        Self::parse(&text, path)
    }

    /// Loads `explicit` if given, else `tracelint.toml` in the current directory if present,
    /// else defaults.
    pub fn discover(explicit: Option<&Path>) -> Result<Config, ConfigError> {
        match explicit {
            Some(p) => Self::load(p),
            None => {
                let p = Path::new("tracelint.toml");
                if p.is_file() {
                    Self::load(p)
                } else {
                    Ok(Config::default())
                }
            }
        }
    }

    /// Sets a rule's level (command-line overrides).
    pub fn set_level(&mut self, rule: &'static Rule, level: Level) {
        self.levels.insert(rule.code, level);
    }

    /// The effective severity of `rule` (`None` when allowed).
    pub fn severity_of(&self, rule: &Rule) -> Option<Severity> {
        match self.levels.get(rule.code) {
            None => Some(rule.default_severity),
            Some(Level::Allow) => None,
            Some(Level::Info) => Some(Severity::Info),
            Some(Level::Warn) => Some(Severity::Warning),
            Some(Level::Deny) => Some(Severity::Error),
        }
    }

    /// The levels for a [`Sink`](crate::finding::Sink), which applies them as findings arrive.
    pub fn levels(&self) -> crate::finding::Levels {
        let mut map = std::collections::BTreeMap::new();
        for (code, level) in &self.levels {
            let sev = match level {
                Level::Allow => None,
                Level::Info => Some(Severity::Info),
                Level::Warn => Some(Severity::Warning),
                Level::Deny => Some(Severity::Error),
            };
            map.insert(*code, sev);
        }
        crate::finding::Levels::new(map)
    }

    /// Applies rule levels to findings: drops allowed ones, changes severities.
    pub fn apply(&self, findings: &mut Vec<Finding>) {
        if self.levels.is_empty() {
            return;
        }
        findings.retain_mut(|f| match self.levels.get(f.rule.code) {
            None => true,
            Some(Level::Allow) => false,
            Some(Level::Info) => {
                f.severity = Severity::Info;
                true
            }
            Some(Level::Warn) => {
                f.severity = Severity::Warning;
                true
            }
            Some(Level::Deny) => {
                f.severity = Severity::Error;
                true
            }
        });
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
