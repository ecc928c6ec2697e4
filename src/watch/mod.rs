//! `tracelint watch`: the spool-directory daemon (not yet implemented).

use std::path::PathBuf;

/// Command-line arguments of `tracelint watch`.
#[derive(Debug, Clone, clap::Args)]
pub struct WatchArgs {
    /// The spool root (holds tmp/, new/, work/, accepted/, rejected/, quarantine/).
    pub spool: PathBuf,
}

/// Runs the daemon; returns the process exit code.
pub fn run(args: &WatchArgs, config_path: Option<&std::path::Path>) -> i32 {
    let _ = (args, config_path);
    eprintln!("tracelint watch: not available yet");
    2
}
