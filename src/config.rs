//! `tracelint.toml` (or `.tracelint.toml`): per-rule levels, limits, and what `check` searches.
//!
//! ```toml
//! [rules]
//! GT012 = "allow"                 # by code
//! frame-size-mismatch = "deny"    # or by name
//! GT = "warn"                     # or by code prefix or format (`uftrace`, `trace-cmd`, ...)
//!
//! [limits]
//! max_section_bytes = 268435456
//!
//! [check]
//! extend-exclude = ["defects", "corpus/**/regressions"]
//! select = ["TD", "UF"]
//! program = "build/app"           # the ELF GDB tfiles were recorded from (`--program`)
//!
//! [[check.overrides]]
//! paths = ["legacy/**"]
//! rules = { TD031 = "allow" }
//! ```
//!
//! Found like ruff finds its configuration: the nearest file from the current directory up to
//! the repository root (a folder holding `.git`) or the file-system root, else the nearest
//! from the first input's folder. Paths in `[check]` are relative to the file's folder.

use crate::finding::{Finding, Severity};
use crate::limits::Limits;
use crate::registry::{self, Family, Rule};
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
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
    #[serde(default)]
    check: Option<RawCheck>,
    #[serde(flatten)]
    other: BTreeMap<String, toml::Value>,
}

/// `[check]`: which files a search takes, which rules run, per-path levels.
#[derive(Deserialize, Default)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawCheck {
    exclude: Option<Vec<toml::Spanned<String>>>,
    #[serde(default)]
    extend_exclude: Vec<toml::Spanned<String>>,
    #[serde(default)]
    force_exclude: bool,
    select: Option<Vec<toml::Spanned<String>>>,
    program: Option<toml::Spanned<String>>,
    #[serde(default)]
    overrides: Vec<RawOverride>,
}

/// `[[check.overrides]]`: rule levels for the inputs under some paths.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOverride {
    paths: Vec<toml::Spanned<String>>,
    #[serde(default)]
    rules: BTreeMap<toml::Spanned<String>, toml::Spanned<toml::Value>>,
}

/// File names a configuration is found under, in order of preference.
pub const CONFIG_NAMES: [&str; 2] = ["tracelint.toml", ".tracelint.toml"];

/// What a search of a directory leaves out when `exclude` is not set.
pub const DEFAULT_EXCLUDE: [&str; 3] = [".git", ".hg", ".svn"];

/// One level setting: the rules a selector names, its specificity, the level.
#[derive(Clone, Debug)]
pub struct LevelSetting {
    /// Codes of the rules the selector names.
    pub codes: Vec<&'static str>,
    /// More specific settings are applied later, so they win.
    pub specificity: usize,
    /// The level.
    pub level: Level,
}

impl LevelSetting {
    /// The setting for a selector (see [`registry::select`]), `None` when it names no rule.
    pub fn new(selector: &str, level: Level) -> Option<LevelSetting> {
        let (rules, specificity) = registry::select(selector)?;
        Some(LevelSetting {
            codes: rules.iter().map(|r| r.code).collect(),
            specificity,
            level,
        })
    }
}

/// Glob patterns over paths, as `exclude` and `paths` take them: a pattern without `/` matches
/// a file or folder name anywhere (`defects`, `*.tmp`); one with `/` matches the path relative
/// to the configuration's folder (`corpus/**/defects`). `*` does not cross `/`, `**` does.
#[derive(Clone, Debug, Default)]
pub struct PathMatcher {
    names: GlobSet,
    paths: GlobSet,
    /// The patterns as written.
    pub patterns: Vec<String>,
}

impl PathMatcher {
    /// Compiles `patterns`; `Err` names the first bad one and why.
    pub fn new<'a>(
        patterns: impl IntoIterator<Item = &'a str>,
    ) -> Result<PathMatcher, (String, String)> {
        let mut names = GlobSetBuilder::new();
        let mut paths = GlobSetBuilder::new();
        let mut written = Vec::new();
        for p in patterns {
            let trimmed = p.trim_start_matches("./").trim_end_matches('/');
            let glob = GlobBuilder::new(trimmed)
                .literal_separator(true)
                .build()
                .map_err(|e| (p.to_string(), e.kind().to_string()))?;
            if trimmed.contains('/') {
                paths.add(glob);
            } else {
                names.add(glob);
            }
            written.push(p.to_string());
        }
        let build = |b: GlobSetBuilder| b.build().map_err(|e| (String::new(), e.to_string()));
        Ok(PathMatcher {
            names: build(names)?,
            paths: build(paths)?,
            patterns: written,
        })
    }

    /// Whether `rel` (relative to the configuration's folder) itself matches: its name or the
    /// whole relative path. A directory search asks this of every entry it meets.
    pub fn matches_entry(&self, rel: &Path) -> bool {
        rel.file_name().is_some_and(|n| self.names.is_match(n)) || self.paths.is_match(rel)
    }

    /// Whether `rel` or any folder above it (up to the configuration's folder) matches.
    pub fn matches_path(&self, rel: &Path) -> bool {
        rel.ancestors()
            .filter(|a| !a.as_os_str().is_empty())
            .any(|a| self.matches_entry(a))
    }

    /// True when there are no patterns.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }
}

/// `[[check.overrides]]` compiled.
#[derive(Clone, Debug)]
pub struct Override {
    /// The inputs it applies to.
    pub paths: PathMatcher,
    /// The levels it sets (applied after `[rules]`, before the command line).
    pub levels: Vec<LevelSetting>,
}

/// `[check]` compiled.
#[derive(Clone, Debug)]
pub struct CheckSettings {
    /// The folder relative paths are taken from: the configuration file's, else the current
    /// directory (absolute; `None` when it cannot be known).
    pub root: Option<PathBuf>,
    /// What a directory search leaves out (`exclude` and `extend-exclude`).
    pub exclude: PathMatcher,
    /// Leave out excluded paths even when named on the command line (for pre-commit and
    /// other tools that pass every changed file).
    pub force_exclude: bool,
    /// Codes of the selected rules (`select`), `None` for every rule.
    pub select: Option<Vec<&'static str>>,
    /// Per-path levels.
    pub overrides: Vec<Override>,
    /// `program`: the ELF the GDB tfiles were recorded from (relative to the configuration's
    /// folder), as `check --program` gives it; the command line's wins.
    pub program: Option<PathBuf>,
}

impl Default for CheckSettings {
    fn default() -> Self {
        CheckSettings {
            root: std::env::current_dir().ok(),
            exclude: PathMatcher::new(DEFAULT_EXCLUDE).unwrap_or_default(),
            force_exclude: false,
            select: None,
            overrides: Vec::new(),
            program: None,
        }
    }
}

/// `path` made absolute (against the current directory) and without `.` or `..` components,
/// without touching the file system (links are not resolved).
pub fn normalize(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `pyproject.toml`, whose `[tool.tracelint]` table is refused (see [`Config::load`]).
const PYPROJECT: &str = "pyproject.toml";

/// The byte span of the `[tool.tracelint]` header (or of the first `[tool.tracelint.` one) in a
/// `pyproject.toml`, if it has that table.
fn pyproject_table(path: &Path) -> Option<Range<usize>> {
    let text = std::fs::read_to_string(path).ok()?;
    let doc: toml::Table = toml::from_str(&text).ok()?;
    doc.get("tool")?.get("tracelint")?;
    let at = text
        .find("[tool.tracelint]")
        .or_else(|| text.find("[tool.tracelint."))
        .unwrap_or(0);
    Some(at..at.saturating_add("[tool.tracelint]".len()).min(text.len()))
}

/// The nearest configuration file from `start` (a folder) upwards: `tracelint.toml` or
/// `.tracelint.toml` (or a `pyproject.toml` with a `[tool.tracelint]` table, which
/// [`Config::load`] refuses), stopping after a repository root (a folder holding `.git`) or at the
/// file-system root.
pub fn find_config(start: &Path) -> Option<PathBuf> {
    let mut dir = normalize(start);
    loop {
        for name in CONFIG_NAMES {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
        // ruff's users write `[tool.<name>]` into pyproject.toml: such a table is found where a
        // tracelint.toml would be, so that loading it says it is not read (never silently).
        let py = dir.join(PYPROJECT);
        if py.is_file() && pyproject_table(&py).is_some() {
            return Some(py);
        }
        if dir.join(".git").exists() || !dir.pop() {
            return None;
        }
    }
}

/// A loaded configuration.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// Per-rule levels in effect, keyed by code (`select`, `[rules]` and the command line
    /// resolved; per-path overrides come in through [`Config::for_path`]).
    pub levels: BTreeMap<&'static str, Level>,
    /// Resource limits.
    pub limits: Limits,
    /// Where it came from, if from a file.
    pub source: Option<PathBuf>,
    /// `[check]`.
    pub check: CheckSettings,
    /// `[rules]`, in the order written.
    rule_levels: Vec<LevelSetting>,
    /// Levels set on the command line (`-A/-W/-D`), which win over the file.
    cli_levels: Vec<LevelSetting>,
    /// [`Config::levels`] as built from `levels`, so that a run of many inputs builds the
    /// sinks' table once (it is built again, not kept, when `levels` changed since).
    sink_levels: std::sync::OnceLock<(BTreeMap<&'static str, Level>, crate::finding::Levels)>,
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
                format!(
                    "unknown section or key `{key}`: expected `[rules]`, `[limits]` or `[check]`"
                ),
            ));
        }
        let mut cfg = Config {
            source: Some(path.to_path_buf()),
            ..Config::default()
        };
        if let Some(dir) = path.parent() {
            cfg.check.root = Some(normalize(dir));
        }
        cfg.rule_levels = rule_table(raw.rules, &mut problems);
        if let Some(check) = raw.check {
            check_section(check, &mut cfg.check, &mut problems);
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
            cfg.resolve();
            Ok(cfg)
        } else {
            Err(fail(problems))
        }
    }

    /// Loads `path`. A `pyproject.toml` is refused with an error naming its `[tool.tracelint]`
    /// table: tracelint reads its configuration from tracelint.toml only.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        if path.file_name().is_some_and(|n| n == PYPROJECT) {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            let span = pyproject_table(path);
            let message = "[tool.tracelint] in pyproject.toml is not read: move its keys into a \
                           tracelint.toml next to it (same keys, without the `tool.tracelint` prefix)"
                .to_string();
            return Err(ConfigError {
                path: path.to_path_buf(),
                text,
                span: span.clone(),
                message: message.clone(),
                problems: vec![(span, message)],
            });
        }
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            path: path.to_path_buf(),
            text: String::new(),
            span: None,
            message: format!("cannot read: {e}"),
            problems: vec![(None, format!("cannot read: {e}"))],
        })?;
        Self::parse(&text, path)
    }

    /// Loads `explicit` if given, else the nearest configuration from the current directory
    /// up (see [`find_config`]), else defaults.
    pub fn discover(explicit: Option<&Path>) -> Result<Config, ConfigError> {
        Self::discover_for(explicit, &[])
    }

    /// Loads `explicit` if given, else the nearest configuration from the current directory
    /// up, else the nearest from the first input's folder up (a directory input is its own
    /// folder), else defaults.
    pub fn discover_for(
        explicit: Option<&Path>,
        inputs: &[PathBuf],
    ) -> Result<Config, ConfigError> {
        if let Some(p) = explicit {
            return Self::load(p);
        }
        let from_cwd = find_config(Path::new("."));
        let found = from_cwd.or_else(|| {
            inputs
                .iter()
                .filter(|p| p.as_os_str() != "-")
                .find_map(|p| {
                    let dir = if p.is_dir() {
                        p.as_path()
                    } else {
                        p.parent()
                            .filter(|d| !d.as_os_str().is_empty())
                            .unwrap_or(Path::new("."))
                    };
                    find_config(dir)
                })
        });
        match found {
            Some(p) => Self::load(&p),
            None => Ok(Config::default()),
        }
    }

    /// Sets a rule's level (command-line overrides).
    pub fn set_level(&mut self, rule: &'static Rule, level: Level) {
        self.cli_levels.push(LevelSetting {
            codes: vec![rule.code],
            specificity: usize::MAX,
            level,
        });
        self.resolve();
    }

    /// Sets the level of every rule a selector names (a code, name, prefix, format or `ALL`);
    /// `false` when it names none. Command-line settings win over the file's.
    pub fn set_selector(&mut self, selector: &str, level: Level) -> bool {
        match LevelSetting::new(selector, level) {
            Some(s) => {
                self.cli_levels.push(s);
                self.resolve();
                true
            }
            None => false,
        }
    }

    /// Runs only the rules the selectors name (`--select`, replacing the file's `select`);
    /// the generic `TL` rules (unreadable input, detection, limits) always run. Returns the
    /// first selector that names no rule.
    pub fn set_select(&mut self, selectors: &[String]) -> Result<(), String> {
        let mut codes = Vec::new();
        for s in selectors {
            let (rules, _) = registry::select(s).ok_or_else(|| s.clone())?;
            codes.extend(rules.iter().map(|r| r.code));
        }
        self.check.select = Some(codes);
        self.resolve();
        Ok(())
    }

    /// Recomputes `levels`: `[rules]`, then the command line; rules `select` leaves out are
    /// allowed whatever their level.
    fn resolve(&mut self) {
        self.levels = self.levels_with(&[]);
        self.sink_levels = std::sync::OnceLock::new();
    }

    /// The levels with some per-path settings applied between the file's and the command
    /// line's. Within each layer a more specific selector wins; `select` has the last word.
    fn levels_with(&self, path_levels: &[&LevelSetting]) -> BTreeMap<&'static str, Level> {
        let mut levels = BTreeMap::new();
        let layers: [Vec<&LevelSetting>; 3] = [
            self.rule_levels.iter().collect(),
            path_levels.to_vec(),
            self.cli_levels.iter().collect(),
        ];
        for mut layer in layers {
            layer.sort_by_key(|s| s.specificity);
            for s in layer {
                for code in &s.codes {
                    levels.insert(*code, s.level);
                }
            }
        }
        // `select` decides which rules run; levels only set how those report.
        if let Some(selected) = &self.check.select {
            for r in registry::all() {
                if r.family != Family::GENERIC && !selected.contains(&r.code) {
                    levels.insert(r.code, Level::Allow);
                }
            }
        }
        levels
    }

    /// `path` relative to the configuration's folder (when under it), else made absolute.
    pub fn relative(&self, path: &Path) -> PathBuf {
        let abs = normalize(path);
        match &self.check.root {
            Some(root) => abs
                .strip_prefix(root)
                .map(Path::to_path_buf)
                .unwrap_or(abs.clone()),
            None => abs,
        }
    }

    /// Whether a directory search leaves `path` out (the entry's own name or relative path
    /// matches `exclude`).
    pub fn excludes_entry(&self, path: &Path) -> bool {
        !self.check.exclude.is_empty() && self.check.exclude.matches_entry(&self.relative(path))
    }

    /// Whether a path named on the command line is left out: only with `force-exclude`, when
    /// it or a folder above it matches `exclude`.
    pub fn force_excludes(&self, path: &Path) -> bool {
        self.check.force_exclude
            && path.as_os_str() != "-"
            && self.check.exclude.matches_path(&self.relative(path))
    }

    /// The configuration for one input: with the levels of every `[[check.overrides]]` whose
    /// paths match it (or a folder above it); `None` when none does.
    pub fn for_path(&self, path: &Path) -> Option<Config> {
        if self.check.overrides.is_empty() || path.as_os_str() == "-" {
            return None;
        }
        let rel = self.relative(path);
        let matching: Vec<&LevelSetting> = self
            .check
            .overrides
            .iter()
            .filter(|o| o.paths.matches_path(&rel))
            .flat_map(|o| o.levels.iter())
            .collect();
        if matching.is_empty() {
            return None;
        }
        let mut c = self.clone();
        c.levels = self.levels_with(&matching);
        c.sink_levels = std::sync::OnceLock::new();
        Some(c)
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
        let (from, built) = self
            .sink_levels
            .get_or_init(|| (self.levels.clone(), self.build_levels()));
        if *from == self.levels {
            return built.clone();
        }
        self.build_levels()
    }

    fn build_levels(&self) -> crate::finding::Levels {
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

/// A table of levels by selector (`[rules]`, an override's `rules`), problems pushed with spans.
fn rule_table(
    table: BTreeMap<toml::Spanned<String>, toml::Spanned<toml::Value>>,
    problems: &mut Vec<(Option<Range<usize>>, String)>,
) -> Vec<LevelSetting> {
    let mut out = Vec::new();
    for (key, value) in table {
        let level = value
            .get_ref()
            .as_str()
            .and_then(|v| Level::deserialize(toml::Value::String(v.to_string())).ok());
        let Some(level) = level else {
            problems.push((
                Some(value.span()),
                format!(
                    "`{}` is not a level: expected \"allow\", \"info\", \"warn\" or \"deny\"",
                    value.get_ref()
                ),
            ));
            if registry::select(key.get_ref()).is_none() {
                problems.push((Some(key.span()), unknown_rule(key.get_ref())));
            }
            continue;
        };
        match LevelSetting::new(key.get_ref(), level) {
            Some(s) => out.push(s),
            None => problems.push((Some(key.span()), unknown_rule(key.get_ref()))),
        }
    }
    out
}

fn unknown_rule(key: &str) -> String {
    format!(
        "unknown rule `{key}`: expected a code (like GT001), a name, a code prefix (like TD1), a format (like uftrace) or ALL; `tracelint rules` lists them"
    )
}

/// Compiles a list of path patterns, problems pushed with the span of the bad pattern.
fn patterns(
    list: &[toml::Spanned<String>],
    problems: &mut Vec<(Option<Range<usize>>, String)>,
) -> PathMatcher {
    match PathMatcher::new(list.iter().map(|p| p.get_ref().as_str())) {
        Ok(m) => m,
        Err((bad, why)) => {
            let span = list.iter().find(|p| *p.get_ref() == bad).map(|p| p.span());
            problems.push((span, format!("bad path pattern `{bad}`: {why}")));
            PathMatcher::default()
        }
    }
}

/// Compiles `[check]` into `settings`.
fn check_section(
    raw: RawCheck,
    settings: &mut CheckSettings,
    problems: &mut Vec<(Option<Range<usize>>, String)>,
) {
    let mut exclude: Vec<toml::Spanned<String>> = match raw.exclude {
        Some(list) => list,
        None => DEFAULT_EXCLUDE
            .iter()
            .map(|p| toml::Spanned::new(0..0, (*p).to_string()))
            .collect(),
    };
    exclude.extend(raw.extend_exclude);
    settings.exclude = patterns(&exclude, problems);
    settings.force_exclude = raw.force_exclude;
    if let Some(program) = raw.program {
        if program.get_ref().is_empty() {
            problems.push((
                Some(program.span()),
                "check.program: empty path".to_string(),
            ));
        } else {
            let path = Path::new(program.get_ref());
            settings.program = Some(match &settings.root {
                Some(root) => root.join(path),
                None => path.to_path_buf(),
            });
        }
    }
    if let Some(select) = raw.select {
        let mut codes = Vec::new();
        for s in select {
            match registry::select(s.get_ref()) {
                Some((rules, _)) => codes.extend(rules.iter().map(|r| r.code)),
                None => problems.push((Some(s.span()), unknown_rule(s.get_ref()))),
            }
        }
        settings.select = Some(codes);
    }
    for o in raw.overrides {
        if o.paths.is_empty() {
            problems.push((None, "[[check.overrides]]: `paths` is empty".to_string()));
        }
        let paths = patterns(&o.paths, problems);
        let levels = rule_table(o.rules, problems);
        settings.overrides.push(Override { paths, levels });
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
