//! `tracelint fix IN -o OUT`: the arguments, and the run.

use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use tracelint::check::CheckOptions;
use tracelint::config::Config;
use tracelint::fix::{fix, Outcome, Request};
use tracelint::ledger::RepairOptions;
use tracelint::report::ledger::{render_human, render_json};

use super::output::{emit_then, EXIT_IO};

/// Exit codes of `fix`, as `--help` and the man page give them.
pub const EXIT_CODES: &str = "Exit codes: 0 nothing to do (nothing written), 1 cannot repair \
     (nothing written), 2 usage error, 3 I/O error, 4 repaired without loss, 5 repaired with loss \
     (the ledger lists what was lost).";

/// How the ledger is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FixOutput {
    /// A summary for people.
    Human,
    /// The ledger as JSON.
    Json,
}

/// Command-line arguments of `tracelint fix`.
#[derive(Debug, Args)]
pub struct FixArgs {
    /// The damaged trace: a trace file, a compressed file or archive holding one, or a uftrace
    /// data directory. Only ever read.
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// Where the repaired copy goes: a new name (never an existing file, never IN); written
    /// under a temporary name beside it, checked, then renamed into place.
    #[arg(
        long = "out",
        short = 'o',
        value_name = "OUT",
        required_unless_present = "dry_run"
    )]
    pub out: Option<PathBuf>,
    /// Print the plan (edits, losses) and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Write the ledger as JSON to FILE as well.
    #[arg(long, value_name = "FILE")]
    pub ledger: Option<PathBuf>,
    /// How the ledger is printed on stdout (`-o` names OUT here, so the form is
    /// `--output-format json`).
    #[arg(long = "output-format", value_enum, default_value_t = FixOutput::Human)]
    pub output: FixOutput,
    /// Sizes in bytes of the CPU data of a v7 trace.dat buffer whose BUFFER option is lost,
    /// in CPU order (0 for a CPU without data): the boundaries of uncompressed data of several
    /// CPUs are not in the file. Marked as supplied in the ledger.
    #[arg(long, value_name = "SIZES", value_delimiter = ',')]
    pub cpu_sizes: Vec<u64>,
    /// A healthy recording made on the same machine with the same program, events and
    /// options, whose metadata is copied where the input's was never written: the
    /// TRACING_DATA feature (the tracepoint formats) of a killed `perf record -e` of
    /// tracepoints, the argument specs of a uftrace recording without `info`. Only read;
    /// marked as supplied in the ledger, and used only if it fits the input.
    #[arg(long, value_name = "DONOR")]
    pub metadata_from: Option<PathBuf>,
    /// A folder of uftrace symbol files (`<module>.sym`, say the uftrace.data of another
    /// recording of the same binaries) for the modules of a killed `uftrace record`, which
    /// writes them only at its end. Only read; the copies are marked as supplied.
    #[arg(long, value_name = "DIR")]
    pub with_syms: Option<PathBuf>,
}

/// Runs `fix`.
pub fn run(a: &FixArgs, opts: &CheckOptions, config: &Config) -> ExitCode {
    let ropts = RepairOptions {
        cpu_sizes: (!a.cpu_sizes.is_empty()).then(|| a.cpu_sizes.clone()),
        metadata_from: a.metadata_from.clone(),
        with_syms: a.with_syms.clone(),
    };
    let req = Request {
        input: &a.input,
        output: a.out.as_deref(),
        dry_run: a.dry_run,
        opts,
        config,
        repair: &ropts,
    };
    let ledger = fix(&req);
    let mut code = ledger.exit_code;
    if let Some(path) = &a.ledger {
        if let Err(e) = std::fs::write(path, format!("{}\n", render_json(&ledger))) {
            eprintln!("error: {}: {e}", path.display());
            code = EXIT_IO;
        }
    }
    let text = match a.output {
        FixOutput::Human => render_human(&ledger),
        FixOutput::Json => format!("{}\n", render_json(&ledger)),
    };
    if matches!(ledger.outcome, Outcome::Usage) && a.output == FixOutput::Human {
        eprint!("{text}");
        return ExitCode::from(code);
    }
    emit_then(&text, code)
}
