//! What a repair does, as data: a [`Plan`] of edits per output file, computed by a format's
//! repair from its decoded model, and the [`Loss`]es and [`Invented`] fields it brings. The
//! plan is the ledger `tracelint fix` prints (human summary, JSON): every edit names the rule
//! whose finding it mends, its offset, the bytes it replaces and the bytes it writes.
//!
//! A plan is applied by copying the input: each [`FilePlan`] keeps the first `keep` bytes of
//! its source, replaces bytes in place where an edit says so, and appends the edits that lie
//! at or past `keep`, in order. Nothing is read whole: the kept bytes are copied in windows.

use serde::{Serialize, Serializer};

/// Bytes shown in full in a ledger: longer runs are shown by their first bytes and length.
pub const SHOWN_BYTES: usize = 64;

/// Facts a repair may need that the input does not hold; each marks what it brought in.
#[derive(Clone, Debug, Default)]
pub struct RepairOptions {
    /// The sizes of the CPU data streams of a v7 trace.dat buffer whose BUFFER option is lost
    /// (`--cpu-sizes`), in CPU order.
    pub cpu_sizes: Option<Vec<u64>>,
    /// A healthy recording of the same session whose metadata a repair may copy where the
    /// input's was never written (`--metadata-from`: a perf.data's TRACING_DATA feature).
    pub metadata_from: Option<std::path::PathBuf>,
    /// A folder of uftrace symbol files (`<module>.sym`, from another recording of the same
    /// binaries: `--with-syms`) for modules a killed recorder wrote none for.
    pub with_syms: Option<std::path::PathBuf>,
}

/// One change of bytes.
#[derive(Clone, Debug, Serialize)]
pub struct Edit {
    /// The code of the rule whose finding this edit mends.
    pub rule: &'static str,
    /// Offset in the output file (equal to the input's for an in-place edit).
    pub offset: u64,
    /// The bytes replaced (empty for appended bytes).
    #[serde(serialize_with = "hex")]
    pub old: Vec<u8>,
    /// The bytes written.
    #[serde(serialize_with = "hex")]
    pub new: Vec<u8>,
    /// What the bytes are.
    pub what: String,
}

/// Bytes of the input left out of the output at its end.
#[derive(Clone, Debug, Serialize)]
pub struct Cut {
    /// The code of the rule whose finding the cut mends.
    pub rule: &'static str,
    /// Where the output stops taking the input's bytes.
    pub at: u64,
    /// Bytes of the input from there to its end.
    pub bytes: u64,
    /// Why.
    pub what: String,
}

/// One output file: its source's first `keep` bytes with `edits` applied.
#[derive(Clone, Debug, Serialize)]
pub struct FilePlan {
    /// The file inside a directory output (`None`: the output is this file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A file the input does not have (written from the edits alone).
    pub created: bool,
    /// Bytes taken from the source.
    pub keep: u64,
    /// The bytes left out at the end, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut: Option<Cut>,
    /// In-place edits (`offset + old.len() <= keep`, same length), then appended bytes
    /// (`old` empty, at the running end of the file), in offset order.
    pub edits: Vec<Edit>,
}

impl FilePlan {
    /// A plan for `name` (`None`: the file itself) keeping `keep` bytes.
    pub fn new(name: Option<String>, keep: u64) -> Self {
        FilePlan {
            name,
            created: false,
            keep,
            cut: None,
            edits: Vec::new(),
        }
    }

    /// The length of the file the plan writes.
    pub fn out_len(&self) -> u64 {
        let appended: u64 = self
            .edits
            .iter()
            .filter(|e| e.offset >= self.keep)
            .map(|e| e.new.len() as u64)
            .sum();
        self.keep.saturating_add(appended)
    }

    /// Whether the edits are in the order and shape [`FilePlan`] documents.
    pub fn well_formed(&self) -> bool {
        let mut end = self.keep;
        let mut last_in_place = 0u64;
        for e in &self.edits {
            let old = e.old.len() as u64;
            if e.offset < self.keep {
                if old != e.new.len() as u64
                    || e.offset.saturating_add(old) > self.keep
                    || e.offset < last_in_place
                {
                    return false;
                }
                last_in_place = e.offset.saturating_add(old);
            } else {
                if !e.old.is_empty() || e.offset != end {
                    return false;
                }
                end = end.saturating_add(e.new.len() as u64);
            }
        }
        true
    }
}

/// What a count of lost things counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Ring-buffer pages (trace.dat).
    Pages,
    /// Compressed chunks (trace.dat v7).
    Chunks,
    /// Records (uftrace `<TID>.dat`).
    Records,
    /// Trace frames (GDB tfile).
    Frames,
    /// Feature sections (perf.data).
    Features,
    /// Bytes that are no whole thing (a partial record or page).
    Bytes,
}

impl Unit {
    /// The unit's name.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Pages => "pages",
            Unit::Chunks => "chunks",
            Unit::Records => "records",
            Unit::Frames => "frames",
            Unit::Features => "features",
            Unit::Bytes => "bytes",
        }
    }
}

/// Something the output does not have that the input's writer wrote (or meant to).
#[derive(Clone, Debug, Serialize)]
pub struct Loss {
    /// The file inside a directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The trace.dat buffer (`""` for the top one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer: Option<String>,
    /// The CPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<u32>,
    /// The task (uftrace tid).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<u64>,
    /// How many things were lost (0 when only part of one).
    pub count: u64,
    /// What `count` counts.
    pub unit: Unit,
    /// Bytes of the input they occupied (what was on disk of them).
    pub bytes: u64,
    /// The first and last timestamp they covered, where known (the writer's clock).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<(u64, u64)>,
    /// What was lost, in words.
    pub what: String,
}

/// A field written whose true value is not known.
#[derive(Clone, Debug, Serialize)]
pub struct Invented {
    /// The file inside a directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The field.
    pub field: String,
    /// The value written.
    pub value: String,
    /// Why this value.
    pub why: String,
}

/// A repair: the output files and what they lose.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    /// The damage, in words (`v6 trace.dat cut inside the data of CPU 1`).
    pub damage: String,
    /// The codes of the rules whose error findings the plan mends: none of them may remain
    /// in the output.
    pub mends: Vec<&'static str>,
    /// The files written differently from the input (for a directory, the others are copied).
    pub files: Vec<FilePlan>,
    /// What the output does not have.
    pub losses: Vec<Loss>,
    /// Fields written whose true value is unknown.
    pub invented: Vec<Invented>,
}

impl Plan {
    /// An empty plan.
    pub fn new(damage: impl Into<String>) -> Self {
        Plan {
            damage: damage.into(),
            mends: Vec::new(),
            files: Vec::new(),
            losses: Vec::new(),
            invented: Vec::new(),
        }
    }

    /// Adds `rule` to the rules mended (once).
    pub fn mend(&mut self, rule: &'static str) {
        if !self.mends.contains(&rule) {
            self.mends.push(rule);
        }
    }

    /// Whether the output loses anything the input's writer wrote (bytes left out and
    /// written again, such as a cut metadata section rebuilt whole, are no loss).
    pub fn lossy(&self) -> bool {
        !self.losses.is_empty()
    }

    /// Bytes of the input the plan leaves out.
    pub fn bytes_lost(&self) -> u64 {
        self.files
            .iter()
            .filter_map(|f| f.cut.as_ref())
            .map(|c| c.bytes)
            .sum()
    }
}

/// Why a format's repair does not repair.
#[derive(Clone, Debug, Serialize)]
pub struct Refusal {
    /// The damage, in words.
    pub damage: String,
    /// Why it cannot be repaired from the input alone.
    pub reason: String,
    /// The option that would supply the missing fact, if one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub option: Option<&'static str>,
}

/// What a format's repair makes of an input.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Nothing the repair knows of is damaged.
    Healthy,
    /// A repair.
    Repair(Plan),
    /// Damage the repair cannot mend.
    Refuse(Refusal),
}

/// Bytes as lowercase hex, the first [`SHOWN_BYTES`] of a longer run followed by `…(N bytes)`.
pub fn hex_text(b: &[u8]) -> String {
    let mut s: String = b
        .iter()
        .take(SHOWN_BYTES)
        .map(|x| format!("{x:02x}"))
        .collect();
    if b.len() > SHOWN_BYTES {
        s.push_str(&format!("…({} bytes)", b.len()));
    }
    s
}

/// Every byte as lowercase hex (the JSON ledger holds the bytes whole).
fn hex<S: Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
    let t: String = b.iter().map(|x| format!("{x:02x}")).collect();
    s.serialize_str(&t)
}
