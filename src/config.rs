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

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    rules: BTreeMap<toml::Spanned<String>, toml::Spanned<Level>>,
    #[serde(default)]
    limits: Limits,
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
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl Config {
    /// Parses configuration text.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let err = |span: Option<Range<usize>>, message: String| ConfigError {
            path: path.to_path_buf(),
            text: text.to_string(),
            span,
            message,
        };
        let raw: RawConfig =
            toml::from_str(text).map_err(|e| err(e.span(), e.message().to_string()))?;
        let mut cfg = Config {
            levels: BTreeMap::new(),
            limits: raw.limits,
            source: Some(path.to_path_buf()),
        };
        for (key, level) in raw.rules {
            let Some(rule) = registry::lookup(key.get_ref()) else {
                return Err(err(
                    Some(key.span()),
                    format!(
                        "unknown rule `{}`: expected a code (like GT001) or a name; `tracelint rules` lists them",
                        key.get_ref()
                    ),
                ));
            };
            cfg.levels.insert(rule.code, *level.get_ref());
        }
        if cfg.limits.max_findings == 0 {
            return Err(err(None, "limits.max_findings must be at least 1".into()));
        }
        Ok(cfg)
    }

    /// Loads `path`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            path: path.to_path_buf(),
            text: String::new(),
            span: None,
            message: format!("cannot read: {e}"),
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
mod tests {
    use super::*;

    #[test]
    fn unknown_rule_has_span() {
        let text = "[rules]\nNOPE999 = \"allow\"\n";
        let e = Config::parse(text, Path::new("t.toml")).unwrap_err();
        let span = e.span.clone().unwrap();
        assert_eq!(&text[span], "NOPE999");
    }

    #[test]
    fn bad_level_and_unknown_key() {
        assert!(Config::parse("[rules]\nTL001 = \"loud\"\n", Path::new("t")).is_err());
        assert!(Config::parse("[limitz]\n", Path::new("t")).is_err());
        let c = Config::parse(
            "[rules]\nempty-input = \"warn\"\n[limits]\nmax_findings = 5\n",
            Path::new("t"),
        )
        .unwrap();
        assert_eq!(c.levels.get("TL005"), Some(&Level::Warn));
        assert_eq!(c.limits.max_findings, 5);
    }
}
