//! What a rule is: its [`Severity`], [`Family`], metadata ([`Rule`]) and the
//! [`declare_rules!`](crate::declare_rules) macro each family declares its rules with.
//!
//! This module is on the ground floor: it knows no format. The catalogue of every rule
//! (lookup, `explain`, rendered docs) is [`registry`](crate::registry).

use serde::Serialize;
use std::fmt;

/// How serious a finding is.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A recognised quirk of a named writer version; never fails a run.
    Info,
    /// A stated invariant of the format is broken, but every reader reads the same data; fails
    /// only with `--deny warnings`.
    Warning,
    /// Some mainstream reader (of any version) crashes, hangs, rejects the file, or reads other
    /// data than was written; exit code 1.
    Error,
}

impl Severity {
    /// What a default level claims about readers (the severity principle, see `rules/README.md`).
    pub fn meaning(self) -> &'static str {
        match self {
            Severity::Error => {
                "a mainstream reader of the writer's version or newer crashes, hangs, rejects \
                 the file, or reads other data than was written"
            }
            Severity::Warning => {
                "a stated invariant of the format is broken, but every reader reads the same data"
            }
            Severity::Info => {
                "a recognised quirk of a named writer version, or an older reader that cannot \
                 read a newer feature"
            }
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// Which part of tracelint a rule belongs to: the generic rules ([`Family::GENERIC`]) or one
/// format's. A format declares its family next to its rules (`formats/<fmt>/rules.rs`); the
/// list of every family is the format table's (`registry::families`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Family {
    /// The name in JSON and in the format column of `tracelint rules` (`trace-cmd`).
    pub name: &'static str,
    /// Code prefix of the family's rules (`TD`).
    pub prefix: &'static str,
    /// Short name used for `rules/<slug>.md` and in tables (`tracecmd`).
    pub slug: &'static str,
    /// Human title.
    pub title: &'static str,
    /// Other names a rule selector may give the family (`gdb` for `gdb-tfile`).
    pub aliases: &'static [&'static str],
}

impl Family {
    /// `TL`: input/output, limits, detection, internal errors.
    pub const GENERIC: Family = Family {
        name: "generic",
        prefix: "TL",
        slug: "generic",
        title: "Generic: input, limits, detection",
        aliases: &[],
    };

    /// Whether a rule selector (`trace-cmd`, `tracecmd`, `gdb`) names this family.
    pub fn is_named(self, selector: &str) -> bool {
        self.slug == selector || self.name == selector || self.aliases.contains(&selector)
    }
}

impl Serialize for Family {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name)
    }
}

/// One rule's metadata.
#[derive(Debug, Serialize)]
pub struct Rule {
    /// Stable code such as `GT012`. Never reused, never renamed.
    pub code: &'static str,
    /// Stable kebab-case name such as `frame-size-mismatch`.
    pub name: &'static str,
    /// The family (and so the format) the rule belongs to.
    pub family: Family,
    /// Level used when no configuration changes it.
    pub default_severity: Severity,
    /// One line: what a finding of this rule means.
    pub summary: &'static str,
    /// Markdown documentation: what it checks, why it matters, the spec reference.
    #[serde(skip)]
    pub docs: &'static str,
}

impl PartialEq for Rule {
    fn eq(&self, other: &Self) -> bool {
        self.code == other.code
    }
}
impl Eq for Rule {}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}({})", self.code, self.name)
    }
}

/// Declares rules of one family:
///
/// ```ignore
/// declare_rules! {
///     family: FAMILY;
///     /// ## What it checks
///     /// ...
///     pub BAD_MAGIC = ("GT001", "bad-magic", Error, "the file does not start with ...");
/// }
/// ```
///
/// Each entry becomes a `pub static NAME: Rule`, and the module gets `pub static RULES`.
#[macro_export]
macro_rules! declare_rules {
    (
        family: $family:expr;
        $(
            $(#[doc = $doc:literal])*
            pub $ident:ident = ($code:literal, $name:literal, $sev:ident, $summary:literal);
        )*
    ) => {
        $(
            #[doc = $summary]
            pub static $ident: $crate::rule::Rule = $crate::rule::Rule {
                code: $code,
                name: $name,
                family: $family,
                default_severity: $crate::rule::Severity::$sev,
                summary: $summary,
                docs: concat!($($doc, "\n",)*),
            };
        )*
        /// Every rule declared in this module, in declaration order.
        pub static RULES: &[&$crate::rule::Rule] = &[$(&$ident,)*];
    };
}
