//! The `tracelint` command.

mod cli;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use is_terminal::IsTerminal;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use tracelint::check::{check_path, CheckOptions, Report};
use tracelint::config::{Config, ConfigError, Level};
use tracelint::detect::Format;
use tracelint::formats;
use tracelint::input::LoadMode;
use tracelint::map::MapNode;
use tracelint::reader::Endian;
use tracelint::registry;
use tracelint::report::{self, human, Summary};

use cli::inputs::{check_input, collect_inputs};
use cli::output::{emit_then, write_failed, EXIT_FINDINGS, EXIT_IO, EXIT_OK, EXIT_USAGE};

#[derive(Parser, Debug)]
#[command(
    name = "tracelint",
    version,
    about = "Strict validator and linter for binary trace files: trace-cmd trace.dat, uftrace data, Darwin ktrace, GDB tfile",
    long_about = None,
    after_help = "`tracelint PATH...` is short for `tracelint check PATH...`.\n\
                  Exit codes: 0 no errors, 1 error findings, 2 usage or config error, 3 unreadable input."
)]
struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

/// The options every command takes.
#[derive(Args, Debug)]
struct GlobalArgs {
    /// Configuration file (default: the nearest tracelint.toml or .tracelint.toml from the
    /// current directory, else from the first input's folder, up to the repository root).
    #[arg(long, global = true, env = "TRACELINT_CONFIG", value_name = "FILE")]
    config: Option<PathBuf>,
    /// When to use colours (`auto` respects NO_COLOR, then FORCE_COLOR and CLICOLOR_FORCE).
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check trace files and uftrace data directories (directories are searched for traces).
    Check(CheckArgs),
    /// Show the structure of a trace: where everything is, with findings on the nodes.
    Map(MapArgs),
    /// List every rule.
    Rules(RulesArgs),
    /// Explain one rule (by code or name).
    Explain {
        /// A rule code (GT001) or name (bad-magic).
        rule: String,
    },
    /// Check the shipped corpus: good traces must pass, the ones broken on purpose (under
    /// `defects/`) must be caught with an error, fuzzer-found inputs (under `regressions/`) must
    /// be checked to the end.
    Demo(DemoArgs),
    /// Write a repaired copy of a damaged trace (IN is never written), with a ledger of every
    /// edit and every loss.
    #[command(after_help = cli::fix::EXIT_CODES)]
    Fix(FixFull),
    /// Judge files as they land in a spool directory.
    Watch(cli::watch::WatchArgs),
    /// Print shell completions.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), or write one page per command into a folder.
    Man {
        /// Write tracelint.1 and tracelint-<command>.1 for every command into DIR.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum OutputKind {
    /// miette reports with hex windows (default on a terminal).
    Human,
    /// One JSON document.
    Json,
    /// JSON Lines: one line per finding and one per file.
    Jsonl,
    /// SARIF 2.1.0.
    Sarif,
    /// One line per finding: `path:0xOFFSET: CODE [severity] message`.
    Concise,
    /// GitHub Actions workflow commands (`::error file=...`), shown as annotations.
    Github,
    /// GitLab Code Quality report (JSON).
    Gitlab,
    /// JUnit XML: one test case per input.
    Junit,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum DenyWhat {
    /// Warnings fail the run too.
    Warnings,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum EndianArg {
    Little,
    Big,
}

#[derive(Args, Debug, Clone, Default)]
struct CommonArgs {
    /// Force the input format instead of detecting it by content.
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    format_hint: Option<Format>,
    /// Byte order for formats that do not record it (GDB tfile).
    #[arg(long, value_enum)]
    endian: Option<EndianArg>,
    /// The ELF program the GDB tfiles were recorded from (as `file PROGRAM` gives it to GDB):
    /// their tracepoints are checked against it as GDB re-creates them (fast tracepoint
    /// instruction lengths, locations). Overrides `[check] program`.
    #[arg(long, value_name = "PROGRAM")]
    program: Option<PathBuf>,
    /// Keep at most N findings per input (overrides limits.max_findings).
    #[arg(long, value_name = "N")]
    max_findings: Option<usize>,
    /// Set a rule to allow (not reported). Repeatable, or comma-separated; code, name, code
    /// prefix or format. `--ignore` is the same (ruff's name).
    #[arg(
        short = 'A',
        long = "allow",
        visible_alias = "ignore",
        value_name = "RULE",
        value_delimiter = ','
    )]
    allow: Vec<String>,
    /// Set a rule to warning. Repeatable.
    #[arg(short = 'W', long = "warn", value_name = "RULE")]
    warn: Vec<String>,
    /// Set a rule to error. Repeatable. `--deny warnings` makes warnings fail the run too.
    #[arg(short = 'D', long = "deny", value_name = "RULE", value_parser = parse_deny)]
    deny: Vec<String>,
    /// Same as `--deny warnings`.
    #[arg(long, hide = true)]
    deny_warnings: bool,
    /// Run only these rules (codes, names, code prefixes such as TD1, formats such as uftrace,
    /// or ALL; comma-separated or repeated). The generic TL rules always run.
    #[arg(long, value_name = "RULE", value_delimiter = ',')]
    select: Vec<String>,
    /// Read files by positioned reads in windows instead of memory-mapping them (as the
    /// daemon does): inputs that must be read whole are read up to max_read_bytes.
    #[arg(long)]
    no_mmap: bool,
}

#[derive(Args, Debug)]
struct CheckArgs {
    /// Files or directories to check.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Output format (default: human on a terminal, human otherwise too).
    #[arg(long, short = 'o', value_enum)]
    output: Option<OutputKind>,
    /// Only print the summary (and set the exit code).
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Human and GitHub outputs: also show info findings.
    #[arg(long, short = 'v')]
    verbose: bool,
    /// Print how many findings each rule raised (most first) instead of the findings; the
    /// exit code is the same.
    #[arg(long, conflicts_with = "output")]
    statistics: bool,
    /// Parallel jobs (default: number of cores).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Write the output to FILE instead of stdout; the human summary still goes to stdout
    /// (unless --quiet).
    #[arg(long, value_name = "FILE")]
    output_file: Option<PathBuf>,
    /// SARIF: describe every rule in the driver, not only those that fired.
    #[arg(long)]
    sarif_all_rules: bool,
    /// Exit 0 even when findings fail the run (2 and 3 still report usage and I/O errors).
    #[arg(long)]
    exit_zero: bool,
    /// Leave out paths matched by `[check] exclude` even when named on the command line.
    #[arg(long)]
    force_exclude: bool,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Args, Debug)]
struct FixFull {
    #[command(flatten)]
    fix: cli::fix::FixArgs,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Args, Debug)]
struct MapArgs {
    /// The trace file or uftrace directory.
    path: PathBuf,
    /// Output: text tree or JSON.
    #[arg(long, short = 'o', value_enum, default_value_t = MapOutput::Text)]
    output: MapOutput,
    /// Show at most this many children per node (0 = all).
    #[arg(long, default_value_t = 64)]
    max_children: usize,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum MapOutput {
    Text,
    Json,
}

#[derive(Args, Debug)]
struct DemoArgs {
    /// The corpus folder.
    #[arg(default_value = "corpus", value_name = "DIR")]
    corpus: PathBuf,
}

#[derive(Args, Debug)]
struct RulesArgs {
    /// Output as JSON.
    #[arg(long)]
    json: bool,
    /// Write the rule documents (README.md and one file per format) into DIR.
    #[arg(long, value_name = "DIR")]
    write_docs: Option<PathBuf>,
}

fn parse_format(s: &str) -> Result<Format, String> {
    formats::by_name(s)
}

/// `-D warnings` is the `--deny warnings` switch; anything else is a rule.
fn parse_deny(s: &str) -> Result<String, String> {
    Ok(s.to_string())
}

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let (cli, command, shorthand) = match parse(&args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match &command {
        Command::Check(a) if shorthand => {
            if let Some(e) = mistyped_subcommand(a, &args) {
                eprintln!("{e}");
                return ExitCode::from(EXIT_USAGE);
            }
        }
        _ => {}
    }
    let color = use_color(cli.color, std::io::stdout().is_terminal());
    match &command {
        Command::Check(a) => run_check(&cli, a, color),
        Command::Map(a) => run_map(&cli, a, color),
        Command::Rules(a) => run_rules(a),
        Command::Fix(a) => {
            match setup(&cli, &a.common, std::slice::from_ref(&a.fix.input), color) {
                Ok((config, opts, _)) => {
                    let config = config.for_path(&a.fix.input).unwrap_or(config);
                    cli::fix::run(&a.fix, &opts, &config)
                }
                Err(c) => c,
            }
        }
        Command::Demo(a) => {
            let corpus = std::slice::from_ref(&a.corpus);
            match setup(&cli, &CommonArgs::default(), corpus, false) {
                Ok((config, opts, _)) => cli::demo::run(&a.corpus, &config, &opts),
                Err(c) => c,
            }
        }
        Command::Explain { rule } => match registry::lookup(rule) {
            Some(r) => emit_then(&format!("{}\n", registry::explain(r)), EXIT_OK),
            None => {
                eprintln!("error: unknown rule `{rule}`; `tracelint rules` lists them");
                ExitCode::from(EXIT_USAGE)
            }
        },
        Command::Watch(w) => {
            // The daemon's log goes to stderr: colour only on a terminal (or when asked for).
            let log_color = use_color(cli.color, std::io::stderr().is_terminal());
            let code = tracelint::watch::run(&w.config(), cli.config.as_deref(), log_color);
            ExitCode::from(u8::try_from(code).unwrap_or(EXIT_USAGE))
        }
        Command::Completions { shell } => {
            let mut cmd = Cli::command();
            clap_complete::generate(*shell, &mut cmd, "tracelint", &mut std::io::stdout());
            ExitCode::from(EXIT_OK)
        }
        Command::Man { dir: Some(dir) } => {
            let cmd = Cli::command();
            let written =
                std::fs::create_dir_all(dir).and_then(|()| cli::man::generate_to(cmd, dir));
            match written {
                Ok(()) => ExitCode::from(EXIT_OK),
                Err(e) => {
                    eprintln!("error: {}: {e}", dir.display());
                    ExitCode::from(EXIT_IO)
                }
            }
        }
        Command::Man { dir: None } => {
            let Ok(out) = cli::man::render(Cli::command()) else {
                return ExitCode::from(EXIT_IO);
            };
            match std::io::stdout().write_all(&out) {
                Ok(()) => ExitCode::from(EXIT_OK),
                Err(e) => write_failed(&e, EXIT_OK),
            }
        }
    }
}

/// `--statistics`: one line per rule that raised findings, most first (ties by code): the
/// count (findings past `max_findings` included), the code, the name and the levels it was
/// raised at (`levels`: by code, the rule's name and the levels of the findings shown).
fn statistics_text(
    levels: &std::collections::BTreeMap<&str, (&str, std::collections::BTreeSet<String>)>,
    summary: &Summary,
) -> String {
    let mut rows: Vec<(&str, u64)> = summary.by_code.iter().map(|(c, n)| (*c, *n)).collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut out = String::new();
    for (code, n) in rows {
        let (name, sev) = match levels.get(code) {
            Some((name, sev)) => (*name, sev.iter().cloned().collect::<Vec<_>>().join(",")),
            None => (
                registry::lookup(code).map_or("", |r| r.name),
                "not shown".to_string(),
            ),
        };
        out.push_str(&format!("{n:>7}  {code}  {name}  [{sev}]\n"));
    }
    out
}

/// Whether to colour a stream: `always`, `never`, or with `auto`: never when `NO_COLOR` is
/// set, always when `FORCE_COLOR` or `CLICOLOR_FORCE` is set (to anything but empty or `0`),
/// else when the stream is a terminal.
fn use_color(choice: ColorChoice, is_terminal: bool) -> bool {
    let forced = |name: &str| {
        std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
    };
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none()
                && (forced("FORCE_COLOR") || forced("CLICOLOR_FORCE") || is_terminal)
        }
    }
}

/// Parses the command line. `tracelint PATH...` is `tracelint check PATH...`: the parser is
/// [`Cli`] with the arguments of `check` added to the top level, hidden (the help, completions
/// and man page made from [`Cli`] show them under `check`), and given with a subcommand they
/// are an error. The `bool` says that the command is that shorthand.
fn parse(args: &[std::ffi::OsString]) -> Result<(GlobalArgs, Command, bool), clap::Error> {
    let mut parser = CheckArgs::augment_args(Cli::command())
        .mut_args(|a| if a.is_global_set() { a } else { a.hide(true) })
        .subcommand_required(false)
        .subcommand_negates_reqs(true)
        .override_usage("tracelint [OPTIONS] <COMMAND>");
    let m = parser.try_get_matches_from_mut(args)?;
    if let Some(sub) = m.subcommand_name() {
        let given = parser.get_arguments().find(|a| {
            !a.is_global_set()
                && m.value_source(a.get_id().as_str())
                    == Some(clap::parser::ValueSource::CommandLine)
        });
        if let Some(a) = given {
            let name = a
                .get_long()
                .map_or_else(|| a.get_id().to_string(), |l| format!("--{l}"));
            return Err(parser.error(
                clap::error::ErrorKind::ArgumentConflict,
                format!("'{name}' is an option of `check`; `{sub}`'s options come after it"),
            ));
        }
        let cli = Cli::from_arg_matches(&m)?;
        return Ok((cli.global, cli.command, false));
    }
    let check = CheckArgs::from_arg_matches(&m)?;
    Ok((
        GlobalArgs::from_arg_matches(&m)?,
        Command::Check(check),
        true,
    ))
}

/// `tracelint WORD`: a first operand that is not an existing path but is a typo of a
/// subcommand (`chek`) is a usage error (the message); one written after `--` is a path.
fn mistyped_subcommand(a: &CheckArgs, args: &[std::ffi::OsString]) -> Option<String> {
    let first = a.paths.first()?;
    let word = first.to_str()?;
    let at = args
        .iter()
        .skip(1)
        .position(|s| s.as_os_str() == first.as_os_str())?;
    if args.iter().skip(1).take(at).any(|s| s == "--") || word.starts_with('-') {
        return None;
    }
    if std::fs::symlink_metadata(first).is_ok() {
        return None;
    }
    let sub = near_subcommand(&Cli::command(), word)?;
    Some(format!(
        "error: `{word}` is neither a subcommand nor an existing path\n\n  \
         tip: did you mean `{sub}`? (to check a file of that name, write `./{word}`)\n\n\
         For more information, try '--help'."
    ))
}

/// The subcommand `word` is a typo of: within one edit per four letters (at least one), and
/// closer than any other.
fn near_subcommand(cmd: &clap::Command, word: &str) -> Option<String> {
    let mut best: Option<(usize, String)> = None;
    for c in cmd.get_subcommands() {
        let name = c.get_name();
        let d = edit_distance(word, name);
        let allowed = (name.chars().count() / 4).max(1);
        if d <= allowed && best.as_ref().is_none_or(|(b, _)| d < *b) {
            best = Some((d, name.to_string()));
        }
    }
    best.map(|(_, n)| n)
}

/// Levenshtein distance, with a swap of two neighbours counted as one edit.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let w = b.len().saturating_add(1);
    let mut d = vec![0usize; a.len().saturating_add(1).saturating_mul(w)];
    let at = |i: usize, j: usize| i.saturating_mul(w).saturating_add(j);
    for i in 0..=a.len() {
        d[at(i, 0)] = i;
    }
    for j in 0..=b.len() {
        d[at(0, j)] = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[at(i - 1, j)] + 1)
                .min(d[at(i, j - 1)] + 1)
                .min(d[at(i - 1, j - 1)] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[at(i - 2, j - 2)] + 1);
            }
            d[at(i, j)] = v;
        }
    }
    d[at(a.len(), b.len())]
}

/// `-` on a terminal would wait for typed bytes without a word, and a trace is binary: as
/// `gzip -d` does, refuse (a forgotten pipe or redirection), with exit 2.
fn stdin_is_terminal() -> bool {
    if std::io::stdin().is_terminal() {
        eprintln!(
            "error: standard input is a terminal; `-` reads a trace from a pipe or a redirection \
             (`cat trace.dat.gz | tracelint -`, `tracelint - < trace.dat`)"
        );
        return true;
    }
    false
}

fn print_config_error(e: &ConfigError, color: bool) {
    use miette::{
        GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, NamedSource,
    };
    let headline = if e.problems.len() > 1 {
        format!(
            "invalid configuration {}: {} problems",
            e.path.display(),
            e.problems.len()
        )
    } else {
        format!("invalid configuration {}: {}", e.path.display(), e.message)
    };
    let mut d = MietteDiagnostic::new(headline).with_code("config");
    let mut unplaced = Vec::new();
    for (span, message) in &e.problems {
        match span {
            Some(span) => d = d.and_label(LabeledSpan::at(span.clone(), message.clone())),
            None => unplaced.push(message.clone()),
        }
    }
    if e.problems.is_empty() {
        if let Some(span) = &e.span {
            d = d.with_label(LabeledSpan::at(span.clone(), e.message.clone()));
        }
    }
    if !unplaced.is_empty() {
        d = d.with_help(unplaced.join("\n"));
    }
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme);
    let report = miette::Report::new(d).with_source_code(NamedSource::new(
        e.path.display().to_string(),
        e.text.clone(),
    ));
    let mut s = String::new();
    if handler.render_report(&mut s, report.as_ref()).is_err() {
        s = format!("error: {e}\n");
    }
    eprint!("{s}");
}

/// Loads configuration (found from the current directory, else from the inputs) and applies
/// command-line overrides. Returns (config, options, deny warnings).
fn setup(
    cli: &GlobalArgs,
    common: &CommonArgs,
    inputs: &[PathBuf],
    color: bool,
) -> Result<(Config, CheckOptions, bool), ExitCode> {
    let mut config = match Config::discover_for(cli.config.as_deref(), inputs) {
        Ok(c) => c,
        Err(e) => {
            print_config_error(&e, color);
            return Err(ExitCode::from(EXIT_USAGE));
        }
    };
    if !common.select.is_empty() {
        if let Err(bad) = config.set_select(&common.select) {
            eprintln!("error: --select {bad}: no rule has this code, name, prefix or format; `tracelint rules` lists them");
            return Err(ExitCode::from(EXIT_USAGE));
        }
    }
    let mut deny_warnings = common.deny_warnings;
    let groups: [(&Vec<String>, Level); 3] = [
        (&common.allow, Level::Allow),
        (&common.warn, Level::Warn),
        (&common.deny, Level::Deny),
    ];
    for (list, level) in groups {
        for key in list {
            if level == Level::Deny && key == "warnings" {
                deny_warnings = true;
                continue;
            }
            if !config.set_selector(key, level) {
                eprintln!("error: unknown rule `{key}`: not a code, name, code prefix or format; `tracelint rules` lists them");
                return Err(ExitCode::from(EXIT_USAGE));
            }
        }
    }
    let mut limits = config.limits.clone();
    if let Some(n) = common.max_findings {
        if n == 0 {
            eprintln!("error: --max-findings must be at least 1");
            return Err(ExitCode::from(EXIT_USAGE));
        }
        limits.max_findings = n;
    }
    let mut opts = CheckOptions {
        limits,
        format_hint: common.format_hint,
        endian: common.endian.map(|e| match e {
            EndianArg::Little => Endian::Little,
            EndianArg::Big => Endian::Big,
        }),
        load_mode: if common.no_mmap {
            LoadMode::Windowed
        } else {
            LoadMode::Mmap
        },
        fast_paths: true,
        input_name: None,
        program: None,
    };
    let program = common
        .program
        .as_ref()
        .map(|p| (p, "--program"))
        .or_else(|| {
            config
                .check
                .program
                .as_ref()
                .map(|p| (p, "[check] program"))
        });
    if let Some((path, from)) = program {
        match tracelint::program::Program::load(path, &opts.limits) {
            Ok(p) => opts.program = Some(std::sync::Arc::new(p)),
            Err(e) => {
                eprintln!("error: {from} {}: {e}", path.display());
                let code = match e {
                    tracelint::program::ProgramError::Io(_) => EXIT_IO,
                    tracelint::program::ProgramError::Invalid(_) => EXIT_USAGE,
                };
                return Err(ExitCode::from(code));
            }
        }
    }
    Ok((config, opts, deny_warnings))
}

fn run_check(cli: &GlobalArgs, a: &CheckArgs, color: bool) -> ExitCode {
    let (mut config, opts, deny_warnings) = match setup(cli, &a.common, &a.paths, color) {
        Ok(x) => x,
        Err(c) => return c,
    };
    if a.paths.iter().any(|p| p.as_os_str() == "-") && stdin_is_terminal() {
        return ExitCode::from(EXIT_USAGE);
    }
    config.check.force_exclude |= a.force_exclude;
    let output = a.output.unwrap_or(OutputKind::Human);
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(a.jobs.unwrap_or(0))
        .build()
    {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: cannot start worker threads: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    // The search opens every file it meets: on the run's threads too.
    let inputs = pool.install(|| collect_inputs(&a.paths, opts.format_hint, a.verbose, &config));
    let start = Instant::now();
    // The output is opened before the checks start, so that one that cannot be written
    // stops the run at once.
    let mut out: Box<dyn Write> = match &a.output_file {
        Some(file) => match std::fs::File::create(file) {
            Ok(f) => Box::new(std::io::BufWriter::new(f)),
            Err(e) => {
                eprintln!("error: {}: {e}", file.display());
                return ExitCode::from(EXIT_IO);
            }
        },
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    // Progress goes to stderr, so it shows whenever stderr is a terminal, whatever the output.
    let show_progress = !a.quiet && inputs.len() > 1 && std::io::stderr().is_terminal();
    let pb = show_progress.then(|| {
        let pb = ProgressBar::new(inputs.len() as u64);
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} files {rate} {msg}",
        ) {
            pb.set_style(style.with_key(
                "rate",
                |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{}", rate(s.per_sec(), "files"));
                },
            ));
        }
        pb
    });
    let width = terminal_width();
    let base = source_root();
    // The human form goes to a file without colours (and with its summary); only a terminal
    // gets colours.
    let to_file = a.output_file.is_some();
    let hopts = human::HumanOptions {
        color: color && !to_file,
        width,
    };
    let mut run = RunOutput {
        kind: if a.statistics { None } else { Some(output) },
        summary: Summary::default(),
        levels: Default::default(),
        hidden_info: 0,
        disk_bytes: 0,
        json: report::JsonStream::default(),
        sarif: report::sarif::SarifStream::new(report::sarif::SarifOptions {
            all_rules: a.sarif_all_rules,
            base: base.clone(),
        }),
        gitlab: report::gitlab::GitlabStream::new(base.clone()),
        junit: report::junit::JunitStream::new(deny_warnings, base.clone()),
        failed: None,
    };
    // Each report is rendered and written as soon as those before it are, then dropped: what
    // the run keeps of an input is its counts in the summary.
    let window = pool.current_num_threads().saturating_mul(16).max(64);
    cli::stream::ordered(
        &pool,
        &inputs,
        window,
        |i| {
            let mut r = check_input(i, &opts, &config);
            r.map = None;
            r.deny_warnings = deny_warnings;
            r
        },
        |r| {
            if let Some(pb) = &pb {
                pb.inc(1);
            }
            let mut text = Vec::new();
            run.add(&r, &mut text, a, hopts, base.as_deref());
            run.write(&mut *out, &text);
        },
    );
    if let Some(pb) = &pb {
        pb.finish_and_clear();
    }
    run.summary.seconds = start.elapsed().as_secs_f64();
    let summary_line = summary_text(&run.summary, run.hidden_info, run.disk_bytes);
    run.finish(&mut *out, &summary_line);
    if run.failed.is_none() {
        if let Err(e) = out.flush() {
            run.failed = Some(e);
        }
    }
    drop(out);
    if let Some(e) = &run.failed {
        if let Some(file) = &a.output_file {
            eprintln!("error: {}: {e}", file.display());
            return ExitCode::from(EXIT_IO);
        }
    }
    let res = match (&run.failed, &a.output_file) {
        (Some(e), _) => Err(std::io::Error::new(e.kind(), e.to_string())),
        (None, Some(_)) if !a.quiet => {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{summary_line}").and_then(|()| out.flush())
        }
        (None, _) => Ok(()),
    };
    let mut code = exit_code(&run.summary);
    if a.exit_zero && code != EXIT_IO {
        code = EXIT_OK;
    }
    match res {
        Ok(()) => ExitCode::from(code),
        Err(e) => write_failed(&e, code),
    }
}

/// What a `check` run keeps while its reports stream by: the totals, the levels each rule
/// was raised at (for `--statistics`), and the documents that need the end of the run to be
/// complete; never the reports.
struct RunOutput {
    /// The output form; `None` for `--statistics`.
    kind: Option<OutputKind>,
    summary: Summary,
    levels: std::collections::BTreeMap<
        &'static str,
        (&'static str, std::collections::BTreeSet<String>),
    >,
    hidden_info: u64,
    disk_bytes: u64,
    json: report::JsonStream,
    sarif: report::sarif::SarifStream,
    gitlab: report::gitlab::GitlabStream,
    junit: report::junit::JunitStream,
    /// The first error writing the output: nothing more is written, the checks go on (the
    /// exit code is that of the whole run).
    failed: Option<std::io::Error>,
}

impl RunOutput {
    /// Counts one report and renders what the output shows of it into `text`.
    fn add(
        &mut self,
        r: &Report,
        text: &mut Vec<u8>,
        a: &CheckArgs,
        hopts: human::HumanOptions,
        base: Option<&Path>,
    ) {
        self.summary.add(r);
        self.disk_bytes = self.disk_bytes.saturating_add(bytes_on_disk(r));
        for f in &r.findings {
            self.levels
                .entry(f.rule.code)
                .or_insert_with(|| (f.rule.name, Default::default()))
                .1
                .insert(f.severity.to_string());
        }
        let spilled = match self.kind {
            None => Ok(()),
            Some(OutputKind::Human) => {
                if !a.quiet {
                    let (t, hidden) = human::render_findings(r, hopts, a.verbose);
                    self.hidden_info += hidden;
                    text.extend_from_slice(t.as_bytes());
                    text.extend_from_slice(human::file_line(r).as_bytes());
                    text.push(b'\n');
                }
                Ok(())
            }
            Some(OutputKind::Json) => {
                self.json.report(r, text);
                Ok(())
            }
            Some(OutputKind::Jsonl) => {
                text.extend_from_slice(report::render_jsonl(r).as_bytes());
                Ok(())
            }
            Some(OutputKind::Sarif) => self.sarif.report(r),
            Some(OutputKind::Concise) => {
                text.extend_from_slice(report::concise::render(r, base).as_bytes());
                Ok(())
            }
            Some(OutputKind::Github) => {
                text.extend_from_slice(report::github::render(r, base, a.verbose).as_bytes());
                Ok(())
            }
            Some(OutputKind::Gitlab) => {
                self.gitlab.report(r, text);
                Ok(())
            }
            Some(OutputKind::Junit) => self.junit.report(r),
        };
        if let Err(e) = spilled {
            self.fail(e);
        }
    }

    fn fail(&mut self, e: std::io::Error) {
        if self.failed.is_none() {
            self.failed = Some(e);
        }
    }

    /// Writes `bytes` unless writing failed before.
    fn write(&mut self, out: &mut dyn Write, bytes: &[u8]) {
        if self.failed.is_none() && !bytes.is_empty() {
            if let Err(e) = out.write_all(bytes) {
                self.fail(e);
            }
        }
    }

    /// Writes the end of the output: the summary, or the rest of a document.
    fn finish(&mut self, out: &mut dyn Write, summary_line: &str) {
        let mut text = Vec::new();
        let ended = match self.kind {
            None => {
                text.extend_from_slice(statistics_text(&self.levels, &self.summary).as_bytes());
                text.extend_from_slice(summary_text(&self.summary, 0, self.disk_bytes).as_bytes());
                text.push(b'\n');
                Ok(())
            }
            Some(OutputKind::Human) => {
                text.extend_from_slice(summary_line.as_bytes());
                text.push(b'\n');
                Ok(())
            }
            Some(OutputKind::Json) => {
                self.json.finish(&self.summary, &mut text);
                text.push(b'\n');
                Ok(())
            }
            Some(OutputKind::Sarif) if self.failed.is_none() => {
                let doc = std::mem::replace(
                    &mut self.sarif,
                    report::sarif::SarifStream::new(Default::default()),
                );
                doc.finish(out).and_then(|()| out.write_all(b"\n"))
            }
            Some(OutputKind::Gitlab) => {
                self.gitlab.finish(&mut text);
                text.push(b'\n');
                Ok(())
            }
            Some(OutputKind::Junit) if self.failed.is_none() => {
                let doc = std::mem::replace(
                    &mut self.junit,
                    report::junit::JunitStream::new(false, None),
                );
                doc.finish(self.summary.seconds, out)
            }
            _ => Ok(()),
        };
        if let Err(e) = ended {
            self.fail(e);
        }
        self.write(out, &text);
    }
}

/// The folder machine outputs make paths relative to: the repository root (the nearest folder
/// above the current directory that holds `.git`), else the current directory.
fn source_root() -> Option<PathBuf> {
    let cwd = tracelint::config::normalize(Path::new("."));
    let repo = cwd.ancestors().find(|d| d.join(".git").exists());
    Some(repo.map(Path::to_path_buf).unwrap_or(cwd))
}

fn exit_code(summary: &Summary) -> u8 {
    if summary.unreadable > 0 {
        return EXIT_IO;
    }
    if summary.failed > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}

/// A rate rounded for people: `38.7k files/s`, `512 files/s`, `1.2M files/s`.
fn rate(per_sec: f64, unit: &str) -> String {
    if !per_sec.is_finite() || per_sec <= 0.0 {
        return format!("- {unit}/s");
    }
    if per_sec >= 1e6 {
        format!("{:.1}M {unit}/s", per_sec / 1e6)
    } else if per_sec >= 1e3 {
        format!("{:.1}k {unit}/s", per_sec / 1e3)
    } else if per_sec >= 10.0 {
        format!("{per_sec:.0} {unit}/s")
    } else {
        format!("{per_sec:.1} {unit}/s")
    }
}

/// Bytes an input really occupies (allocated blocks, so a sparse file does not count its holes).
fn bytes_on_disk(r: &Report) -> u64 {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(&r.os_path) {
        Ok(m) if m.is_file() => m.blocks().saturating_mul(512).min(r.size),
        _ => r.size,
    }
}

/// Below this many seconds a throughput figure is noise and is not shown.
const MIN_RATE_SECONDS: f64 = 0.2;

fn summary_text(s: &Summary, hidden_info: u64, disk_bytes: u64) -> String {
    let throughput = if s.seconds >= MIN_RATE_SECONDS {
        let mb = disk_bytes as f64 / 1e6 / s.seconds;
        format!(" ({:.1} MB/s)", mb)
    } else {
        String::new()
    };
    let mut t = format!(
        "checked {} input(s): {} passed, {} failed{}; {} error(s), {} warning(s), {} info; {:.1} MB in {:.2}s{}",
        s.files,
        s.passed,
        s.failed,
        if s.unreadable > 0 {
            format!(" ({} unreadable)", s.unreadable)
        } else {
            String::new()
        },
        s.findings.error,
        s.findings.warning,
        s.findings.info,
        s.bytes as f64 / 1e6,
        s.seconds,
        throughput
    );
    if hidden_info > 0 {
        t.push_str(&format!(
            "\n{hidden_info} info finding(s) not shown (--verbose shows them)"
        ));
    }
    if !s.by_code.is_empty() {
        let codes: Vec<String> = s.by_code.iter().map(|(c, n)| format!("{c}×{n}")).collect();
        t.push_str(&format!("\nfindings by code: {}", codes.join(", ")));
    }
    t
}

fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(100)
}

fn run_rules(a: &RulesArgs) -> ExitCode {
    if let Some(dir) = &a.write_docs {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("error: {}: {e}", dir.display());
            return ExitCode::from(EXIT_IO);
        }
        for (name, text) in registry::rendered_docs() {
            if let Err(e) = std::fs::write(dir.join(&name), text) {
                eprintln!("error: {}: {e}", dir.join(&name).display());
                return ExitCode::from(EXIT_IO);
            }
        }
        return ExitCode::from(EXIT_OK);
    }
    if a.json {
        let rules: Vec<_> = registry::all().collect();
        return emit_then(
            &format!(
                "{}\n",
                serde_json::to_string_pretty(&rules).unwrap_or_default()
            ),
            EXIT_OK,
        );
    }
    let mut t = format!(
        "{:<7} {:<40} {:<8} {:<10} summary\n",
        "code", "name", "level", "format"
    );
    for r in registry::all() {
        t.push_str(&format!(
            "{:<7} {:<40} {:<8} {:<10} {}\n",
            r.code,
            r.name,
            r.default_severity.to_string(),
            r.family.name,
            r.summary
        ));
    }
    emit_then(&t, EXIT_OK)
}

fn run_map(cli: &GlobalArgs, a: &MapArgs, color: bool) -> ExitCode {
    let (config, opts, deny_warnings) =
        match setup(cli, &a.common, std::slice::from_ref(&a.path), color) {
            Ok(x) => x,
            Err(c) => return c,
        };
    let config = config.for_path(&a.path).unwrap_or(config);
    if a.path.as_os_str() == "-" && stdin_is_terminal() {
        return ExitCode::from(EXIT_USAGE);
    }
    let r = if a.path.as_os_str() == "-" {
        cli::inputs::check_stdin(&opts, &config)
    } else {
        check_path(&a.path, &opts, &config)
    };
    let map = r
        .map
        .clone()
        .unwrap_or_else(|| MapNode::new("input", 0, r.size));
    let code = if r.io_failed {
        EXIT_IO
    } else if r.counts.error > 0 || (deny_warnings && r.counts.warning > 0) {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    };
    match a.output {
        MapOutput::Json => emit_then(&report::map::render_json(&r, &map), code),
        MapOutput::Text => {
            let mut s = format!(
                "{} ({}, {} bytes)\n",
                r.path,
                r.format.map(|f| f.name()).unwrap_or("unknown format"),
                r.size
            );
            report::map::render_text(&map, &r.findings, a.max_children, color, &mut s);
            s.push_str(&human::file_line(&r));
            s.push('\n');
            emit_then(&s, code)
        }
    }
}
