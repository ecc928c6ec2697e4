//! The finding model shared by every format, renderer and the daemon.

use crate::limits::Limits;
use crate::rule::Rule;
pub use crate::rule::Severity;
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Arc;

/// One finding: a rule that fired on a byte span of a file.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    /// The rule.
    #[serde(serialize_with = "ser_rule_code", rename = "code")]
    pub rule: &'static Rule,
    /// Effective severity (the rule's default unless configuration changed it).
    pub severity: Severity,
    /// For an archive or compressed input: the member the finding is in (its path inside the
    /// archive; nested archives joined by `!`). Offsets are then offsets in the decompressed
    /// member.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member: Option<String>,
    /// For directory formats (uftrace): the file inside the directory, relative to it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Absolute byte offset of the span in `file` (or the input file).
    pub offset: u64,
    /// Length of the span in bytes (0 for a position, such as end of file).
    pub length: u64,
    /// What is wrong, with the values seen and expected.
    pub message: String,
    /// Extra context lines.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// How to fix or what to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// What the readers do with this very case, when the finding's level was decided from it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impact: Option<Impact>,
}

/// What readers do with the case a finding is about: the evidence for its level, carried as
/// structured data in JSON, JSON Lines and SARIF (`properties.impact`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Impact {
    /// The reader program (`trace-cmd report`, `uftrace`, `GDB`).
    pub reader: &'static str,
    /// The reader versions that behave so (`3.1.6–3.3.4`).
    pub versions: &'static str,
    /// `crash`, `hang`, `reject`, `loss` (events, records or frames lost or misread) or
    /// `same` (every such reader reads the same data).
    pub effect: &'static str,
}

fn ser_rule_code<S: Serializer>(rule: &&'static Rule, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(rule.code)
}

impl Finding {
    /// The span as a range.
    pub fn span(&self) -> Range<u64> {
        self.offset..self.offset.saturating_add(self.length)
    }

    /// Adds a note.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Sets the help text.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Sets this finding's level from its case (what readers do with this very file), in
    /// place of the rule's default; a level configured for the rule still overrides it.
    /// Rules whose level depends on the case list each case and its level in their docs.
    pub fn level(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// A case every reader of `versions` reads the same: a warning with that impact.
    pub fn read_same(self, reader: &'static str, versions: &'static str) -> Self {
        self.level(Severity::Warning)
            .impact(reader, versions, "same")
    }

    /// A case on which readers of `versions` fail (`effect`: crash, hang, reject, loss): an
    /// error with that impact.
    pub fn fails(self, reader: &'static str, versions: &'static str, effect: &'static str) -> Self {
        self.level(Severity::Error).impact(reader, versions, effect)
    }

    /// Records what the readers do with this case (see [`Impact`]).
    pub fn impact(
        mut self,
        reader: &'static str,
        versions: &'static str,
        effect: &'static str,
    ) -> Self {
        self.impact = Some(Impact {
            reader,
            versions,
            effect,
        });
        self
    }
}

/// The configured level of each rule for one run: a severity, or `None` when the rule is
/// allowed. Rules not listed keep their default severity.
#[derive(Clone, Debug, Default)]
pub struct Levels(Arc<BTreeMap<&'static str, Option<Severity>>>);

impl Levels {
    /// Levels from rule codes to severities (`None`: allowed).
    pub fn new(levels: BTreeMap<&'static str, Option<Severity>>) -> Self {
        Levels(Arc::new(levels))
    }

    /// The effective severity of `rule` (`None` when allowed).
    pub fn severity_of(&self, rule: &Rule) -> Option<Severity> {
        match self.0.get(rule.code) {
            None => Some(rule.default_severity),
            Some(level) => *level,
        }
    }

    /// Applies the levels to one finding: `false` when its rule is allowed.
    fn apply(&self, finding: &mut Finding) -> bool {
        match self.0.get(finding.rule.code) {
            None => true,
            Some(None) => false,
            Some(Some(sev)) => {
                finding.severity = *sev;
                true
            }
        }
    }
}

/// Collects the findings of one input, with a cap on how many are kept.
///
/// Decoders call [`Sink::report`] (or [`Sink::push`] for notes and help). The sink applies the
/// configured rule [`Levels`] as findings arrive (allowed rules are dropped and counted nowhere,
/// so they never use up the cap), keeps the first `max_findings` and counts the rest by rule, so
/// a file with a million bad records still gives a bounded report.
#[derive(Debug)]
pub struct Sink {
    findings: Vec<Finding>,
    max: usize,
    levels: Levels,
    dropped: u64,
    /// Dropped findings by rule and by the severity they had, so verdicts still count them.
    dropped_rules: Vec<(&'static Rule, Severity, u64)>,
    /// File inside a directory input that new findings refer to.
    current_file: Option<String>,
    /// Archive member that new findings refer to.
    current_member: Option<String>,
}

impl Sink {
    /// A sink keeping at most `max` findings.
    pub fn new(max: usize) -> Self {
        Sink {
            findings: Vec::new(),
            max,
            levels: Levels::default(),
            dropped: 0,
            dropped_rules: Vec::new(),
            current_file: None,
            current_member: None,
        }
    }

    /// A sink with the cap from `limits`.
    pub fn with_limits(limits: &Limits) -> Self {
        Self::new(limits.max_findings)
    }

    /// This sink applying `levels` to every finding pushed from now on.
    pub fn with_levels(mut self, levels: Levels) -> Self {
        self.levels = levels;
        self
    }

    /// An empty sink keeping at most `max` findings, with this sink's levels (for work done in
    /// parallel and [`Sink::absorb`]ed later).
    pub fn child(&self, max: usize) -> Sink {
        Sink::new(max).with_levels(self.levels.clone())
    }

    /// The levels this sink applies.
    pub fn levels(&self) -> &Levels {
        &self.levels
    }

    /// Findings raised from now on refer to `file` inside a directory input (`None`: the input).
    pub fn set_file(&mut self, file: Option<String>) {
        self.current_file = file;
    }

    /// Findings raised from now on are in `member` of an archive input (`None`: the input).
    pub fn set_member(&mut self, member: Option<String>) {
        self.current_member = member;
    }

    /// The file findings currently refer to.
    pub fn current_file(&self) -> Option<&str> {
        self.current_file.as_deref()
    }

    /// Reports `rule` at `span` with `message`.
    pub fn report(&mut self, rule: &'static Rule, span: Range<u64>, message: impl Into<String>) {
        let f = self.make(rule, span, message);
        self.push(f);
    }

    /// Builds a finding (for adding notes/help) without recording it; pass it to [`Sink::push`].
    pub fn make(
        &self,
        rule: &'static Rule,
        span: Range<u64>,
        message: impl Into<String>,
    ) -> Finding {
        Finding {
            rule,
            severity: rule.default_severity,
            member: self.current_member.clone(),
            file: self.current_file.clone(),
            offset: span.start,
            length: span.end.saturating_sub(span.start),
            message: message.into(),
            notes: Vec::new(),
            help: None,
            impact: None,
        }
    }

    /// Records a finding made with [`Sink::make`], at its rule's configured level; a finding
    /// of an allowed rule is dropped without using up the cap.
    pub fn push(&mut self, mut finding: Finding) {
        if !self.levels.apply(&mut finding) {
            return;
        }
        // Findings made by sinks of work done in parallel are about the member this one is in.
        if finding.member.is_none() {
            finding.member.clone_from(&self.current_member);
        }
        if self.findings.len() < self.max {
            self.findings.push(finding);
        } else {
            self.count_dropped(finding.rule, finding.severity, 1);
        }
    }

    /// Counts `n` findings of `rule` at `severity` that were not kept.
    fn count_dropped(&mut self, rule: &'static Rule, severity: Severity, n: u64) {
        if n == 0 {
            return;
        }
        self.dropped = self.dropped.saturating_add(n);
        match self
            .dropped_rules
            .iter_mut()
            .find(|(r, s, _)| *r == rule && *s == severity)
        {
            Some((_, _, m)) => *m = m.saturating_add(n),
            None => self.dropped_rules.push((rule, severity, n)),
        }
    }

    /// Reports a read failure under `rule`.
    pub fn read_error(&mut self, rule: &'static Rule, err: &crate::reader::ReadError) {
        self.report(rule, err.span(), err.to_string());
    }

    /// Reports that a configured limit was hit (rule `TL003 limit-exceeded`).
    pub fn limit(
        &mut self,
        span: Range<u64>,
        what: &str,
        value: u64,
        limit_name: &str,
        limit: u64,
    ) {
        let f = self
            .make(
                &crate::rules::LIMIT_EXCEEDED,
                span,
                format!("{what} is {value}, above the limit {limit_name} = {limit}; the rest was not checked"),
            )
            .help(format!(
                "raise `{limit_name}` under [limits] in tracelint.toml if this input is trusted"
            ));
        self.push(f);
    }

    /// Adds `note` to the last finding kept if it is of `rule`.
    pub fn note_last(&mut self, rule: &Rule, note: impl Into<String>) {
        if let Some(f) = self.findings.last_mut().filter(|f| f.rule == rule) {
            f.notes.push(note.into());
        }
    }

    /// Re-levels the findings of `rule` recorded so far (and those counted as dropped) to
    /// `severity` with `impact`, rewriting each kept one with `rewrite` (its message says what
    /// the readers do), when what the readers do with them is only known once a whole
    /// structure was read; a level configured for the rule still wins.
    pub fn relevel(
        &mut self,
        rule: &Rule,
        severity: Severity,
        impact: Impact,
        rewrite: impl Fn(&mut Finding),
    ) {
        if self.levels.0.contains_key(rule.code) {
            return;
        }
        for f in self.findings.iter_mut().filter(|f| f.rule == rule) {
            f.severity = severity;
            f.impact = Some(impact.clone());
            rewrite(f);
        }
        let mut moved = Vec::new();
        self.dropped_rules.retain(|&(r, _, n)| {
            let keep = r != rule;
            if !keep {
                moved.push((r, n));
            }
            keep
        });
        for (r, n) in moved {
            self.dropped = self.dropped.saturating_sub(n);
            self.count_dropped(r, severity, n);
        }
    }

    /// Adds `note` to every kept finding of `rule`.
    pub fn note_all(&mut self, rule: &Rule, note: &str) {
        for f in self.findings.iter_mut().filter(|f| f.rule == rule) {
            f.notes.push(note.to_string());
        }
    }

    /// Whether any finding of `rule` was recorded.
    pub fn has(&self, rule: &Rule) -> bool {
        self.findings.iter().any(|f| f.rule == rule)
    }

    /// Findings so far.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// Number of findings that did not fit under the cap.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Moves the findings of `other` (a sink filled in parallel) into this one, under this
    /// sink's cap; what either dropped stays counted by rule.
    pub fn absorb(&mut self, other: Sink) {
        for f in other.findings {
            self.push(f);
        }
        self.absorb_dropped(other.dropped_rules);
    }

    /// Counts findings another sink dropped (as [`Sink::into_parts_by_level`] gave them).
    pub fn absorb_dropped(&mut self, dropped: Vec<(&'static Rule, Severity, u64)>) {
        for (rule, severity, n) in dropped {
            if self.levels.severity_of(rule).is_none() {
                continue;
            }
            self.count_dropped(rule, severity, n);
        }
    }

    /// Consumes the sink; returns the kept findings and the dropped count.
    pub fn into_parts(self) -> (Vec<Finding>, u64) {
        (self.findings, self.dropped)
    }

    /// Consumes the sink; returns the kept findings and the dropped ones counted by rule.
    pub fn into_parts_by_rule(self) -> (Vec<Finding>, Vec<(&'static Rule, u64)>) {
        let mut by_rule: Vec<(&'static Rule, u64)> = Vec::new();
        for (rule, _, n) in self.dropped_rules {
            match by_rule.iter_mut().find(|(r, _)| *r == rule) {
                Some((_, m)) => *m = m.saturating_add(n),
                None => by_rule.push((rule, n)),
            }
        }
        (self.findings, by_rule)
    }

    /// Consumes the sink; returns the kept findings and the dropped ones counted by rule and
    /// by the severity they had (a rule's level can depend on the case).
    pub fn into_parts_by_level(self) -> (Vec<Finding>, Vec<(&'static Rule, Severity, u64)>) {
        (self.findings, self.dropped_rules)
    }
}

/// Counts of findings by severity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Error findings.
    pub error: u64,
    /// Warning findings.
    pub warning: u64,
    /// Info findings.
    pub info: u64,
}

impl Counts {
    /// Counts the findings.
    pub fn of(findings: &[Finding]) -> Self {
        let mut c = Counts::default();
        for f in findings {
            c.add(f.severity);
        }
        c
    }

    /// Adds one finding of severity `s`.
    pub fn add(&mut self, s: Severity) {
        match s {
            Severity::Error => self.error = self.error.saturating_add(1),
            Severity::Warning => self.warning = self.warning.saturating_add(1),
            Severity::Info => self.info = self.info.saturating_add(1),
        }
    }

    /// Adds `n` findings of severity `s`.
    pub fn add_n(&mut self, s: Severity, n: u64) {
        match s {
            Severity::Error => self.error = self.error.saturating_add(n),
            Severity::Warning => self.warning = self.warning.saturating_add(n),
            Severity::Info => self.info = self.info.saturating_add(n),
        }
    }

    /// Adds other counts.
    pub fn merge(&mut self, o: Counts) {
        self.error = self.error.saturating_add(o.error);
        self.warning = self.warning.saturating_add(o.warning);
        self.info = self.info.saturating_add(o.info);
    }
}

/// "The first few, then a summary" for one rule: counts occurrences, says which are reported in
/// full (the first `cap`), and remembers the span of the first occurrence and of the first one
/// held back, for the summary finding.
#[derive(Clone, Debug)]
pub struct Capped {
    rule: &'static Rule,
    cap: u64,
    count: u64,
    first: Option<Range<u64>>,
    first_hidden: Option<Range<u64>>,
}

impl Capped {
    /// Occurrences of `rule`, the first `cap` reported in full.
    pub const fn new(rule: &'static Rule, cap: u64) -> Self {
        Capped {
            rule,
            cap,
            count: 0,
            first: None,
            first_hidden: None,
        }
    }

    /// The rule.
    pub fn rule(&self) -> &'static Rule {
        self.rule
    }

    /// Occurrences so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Occurrences held back (past the cap).
    pub fn hidden(&self) -> u64 {
        self.count.saturating_sub(self.cap)
    }

    /// Span of the first occurrence.
    pub fn first(&self) -> Option<&Range<u64>> {
        self.first.as_ref()
    }

    /// Span of the first occurrence held back.
    pub fn first_hidden(&self) -> Option<&Range<u64>> {
        self.first_hidden.as_ref()
    }

    /// Counts one occurrence at `span`; true when it is within the cap and should be reported.
    pub fn hit(&mut self, span: &Range<u64>) -> bool {
        self.count = self.count.saturating_add(1);
        if self.first.is_none() {
            self.first = Some(span.clone());
        }
        if self.count <= self.cap {
            return true;
        }
        if self.first_hidden.is_none() {
            self.first_hidden = Some(span.clone());
        }
        false
    }

    /// Counts one occurrence and reports it when within the cap; `msg` is only built then.
    #[cold]
    #[inline(never)]
    pub fn report(&mut self, sink: &mut Sink, span: Range<u64>, msg: impl FnOnce() -> String) {
        if self.hit(&span) {
            sink.report(self.rule, span, msg());
        }
    }

    /// Reports how many occurrences were held back, at `span` and in the words of
    /// `msg(held back)`: for a summary that belongs to a region (the frames of a file) rather
    /// than to the first occurrence held back. Nothing when none was held back.
    pub fn finish_at(&self, sink: &mut Sink, span: Range<u64>, msg: impl FnOnce(u64) -> String) {
        let hidden = self.hidden();
        if hidden > 0 {
            sink.report(self.rule, span, msg(hidden));
        }
    }

    /// Reports how many occurrences were held back ("N more `what` (of M in total) not shown
    /// individually"), at the first of them.
    pub fn finish(self, sink: &mut Sink, what: &str) {
        if let Some(span) = self.first_hidden {
            let hidden = self.count.saturating_sub(self.cap);
            sink.report(
                self.rule,
                span,
                format!(
                    "{hidden} more {what} (of {} in total) not shown individually; the first of them is here",
                    self.count
                ),
            );
        }
    }
}
