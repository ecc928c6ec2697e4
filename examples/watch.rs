//! Runs the spool daemon on its own: `cargo run --example watch -- SPOOL [OPTIONS]`
//! (the same arguments as `tracelint watch`; `--config FILE` selects tracelint.toml).

use clap::Parser;
use std::path::PathBuf;

/// The arguments of `tracelint watch`, from the command line's own source.
#[path = "../src/cli/watch.rs"]
mod watch_args;

#[derive(Parser)]
struct Cli {
    /// tracelint.toml to use (default: ./tracelint.toml if present).
    #[arg(long)]
    config: Option<PathBuf>,
    #[command(flatten)]
    watch: watch_args::WatchArgs,
}

fn main() {
    use is_terminal::IsTerminal;
    let cli = Cli::parse();
    // The log goes to stderr: colours only on a terminal.
    let color = std::env::var_os("NO_COLOR").is_none() && std::io::stderr().is_terminal();
    std::process::exit(tracelint::watch::run(
        &cli.watch.config(),
        cli.config.as_deref(),
        color,
    ));
}
