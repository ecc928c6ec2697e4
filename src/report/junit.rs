//! `--output junit`: JUnit XML, as Jenkins, GitLab, Buildkite and most CI test views read it.
//!
//! One `<testsuite>` for the run, one `<testcase>` per checked input (its path is the name,
//! its format the class; the Jenkins/Surefire schema, `junit-10.xsd`, has no `file` on a
//! test case). An input with error findings (or warnings, with `--deny warnings`)
//! has a `<failure>` whose `type` is the first failing rule and whose text lists every
//! finding, one line each; an input that could not be read has an `<error>`. The other
//! findings of an input are in its `<system-out>`.

use crate::check::Report;
use crate::finding::Severity;
use crate::report::{concise, Spill};

/// Escapes text for XML 1.0 content: markup characters as entities, characters XML 1.0 cannot
/// carry (most control characters) as `\xNN`.
pub fn escape(s: &str) -> String {
    escape_in(s, false)
}

/// Escapes an attribute value as [`escape`] does, and tab and line feed as character
/// references (`&#9;`, `&#10;`): a parser normalises literal ones in an attribute to spaces.
pub fn escape_attr(s: &str) -> String {
    escape_in(s, true)
}

fn escape_in(s: &str, attr: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' if attr => out.push_str("&#9;"),
            '\n' if attr => out.push_str("&#10;"),
            '\t' | '\n' => out.push(c),
            '\r' => out.push_str("&#13;"),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

/// The whole run as one document. `deny_warnings`: warnings fail a test case too, as they
/// fail the run.
pub fn render(
    reports: &[Report],
    seconds: f64,
    deny_warnings: bool,
    base: Option<&std::path::Path>,
) -> String {
    let mut doc = JunitStream::new(deny_warnings, base.map(std::path::Path::to_path_buf));
    let mut out = Vec::new();
    let written = reports
        .iter()
        .try_for_each(|r| doc.report(r))
        .and_then(|()| doc.finish(seconds, &mut out));
    match written {
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        Err(_) => String::new(),
    }
}

/// A JUnit document written as the reports come: the totals head the document, so the test
/// cases go to a [`Spill`] (memory, then an unnamed temporary file) and
/// [`JunitStream::finish`] writes the head and copies them; only the counts stay in memory.
pub struct JunitStream {
    deny_warnings: bool,
    base: Option<std::path::PathBuf>,
    tests: u64,
    failures: u64,
    errors: u64,
    cases: Spill,
}

impl JunitStream {
    /// An empty document; `base` makes paths relative to the repository.
    pub fn new(deny_warnings: bool, base: Option<std::path::PathBuf>) -> Self {
        JunitStream {
            deny_warnings,
            base,
            tests: 0,
            failures: 0,
            errors: 0,
            cases: Spill::default(),
        }
    }

    /// Adds one report's test case.
    pub fn report(&mut self, r: &Report) -> std::io::Result<()> {
        let deny_warnings = self.deny_warnings;
        let base = self.base.as_deref();
        let fails = !r.io_failed && (r.counts.error > 0 || (deny_warnings && r.counts.warning > 0));
        self.tests = self.tests.saturating_add(1);
        if fails {
            self.failures = self.failures.saturating_add(1);
        }
        if r.io_failed {
            self.errors = self.errors.saturating_add(1);
        }
        let mut cases = String::new();
        let name = escape_attr(&super::relative_path(r, base));
        let class = format!(
            "tracelint.{}",
            r.format.map(|f| f.name()).unwrap_or("unknown")
        );
        cases.push_str(&format!(
            "    <testcase classname=\"{}\" name=\"{name}\" time=\"{:.6}\"",
            escape_attr(&class),
            r.duration.as_secs_f64()
        ));
        let lines = concise::render(r, base);
        let failing: Vec<_> = r
            .findings
            .iter()
            .filter(|f| {
                f.severity == Severity::Error || (deny_warnings && f.severity == Severity::Warning)
            })
            .collect();
        let element = if r.io_failed {
            Some("error")
        } else if fails {
            Some("failure")
        } else {
            None
        };
        match (element, failing.first()) {
            (Some(el), first) => {
                let (kind, headline) = match first {
                    Some(f) => (f.rule.code, concise::one_line(&f.message)),
                    None => ("tracelint", "the input failed".to_string()),
                };
                let count = if deny_warnings {
                    r.counts.error.saturating_add(r.counts.warning)
                } else {
                    r.counts.error
                };
                cases.push_str(&format!(
                    ">\n      <{el} message=\"{} finding(s): {}\" type=\"{}\">{}</{el}>\n",
                    count,
                    escape_attr(&headline),
                    escape_attr(kind),
                    escape(&lines)
                ));
                cases.push_str("    </testcase>\n");
            }
            (None, _) if !lines.is_empty() => {
                cases.push_str(&format!(
                    ">\n      <system-out>{}</system-out>\n    </testcase>\n",
                    escape(&lines)
                ));
            }
            (None, _) => cases.push_str("/>\n"),
        }
        self.cases.write(cases.as_bytes())
    }

    /// Writes the whole document to `out`; `seconds` is the run's time.
    pub fn finish(self, seconds: f64, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let (tests, failures, errors) = (self.tests, self.failures, self.errors);
        write!(
            out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <testsuites name=\"tracelint\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{seconds:.3}\">\n  \
             <testsuite name=\"tracelint\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"0\" time=\"{seconds:.3}\">\n"
        )?;
        std::io::copy(&mut self.cases.reader()?, out)?;
        out.write_all(b"  </testsuite>\n</testsuites>\n")
    }
}
