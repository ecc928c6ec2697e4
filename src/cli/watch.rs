//! The command line of `tracelint watch`, turned into the daemon's [`WatchConfig`].

use clap::Args;
use std::path::PathBuf;
use std::time::Duration;
use tracelint::watch::WatchConfig;

/// Command-line arguments of `tracelint watch`.
#[derive(Debug, Clone, Args)]
pub struct WatchArgs {
    /// The spool root (holds tmp/, new/, work/, accepted/, rejected/, quarantine/; created if missing).
    pub spool: PathBuf,

    /// Judge what is in new/ (and dead instances' leftovers in work/) once, then exit 0.
    #[arg(long)]
    pub once: bool,

    /// For producers that write in place in new/: judge a file only after it was closed after
    /// writing and then stayed unchanged (size, mtime) for SECS.
    #[arg(long, value_name = "SECS", value_parser = tracelint::watch::parse_duration)]
    pub settle: Option<Duration>,

    /// With --settle: quiet period for files whose close was not seen (found by a rescan or
    /// the poll watcher). Default: 4 × --settle.
    #[arg(long, value_name = "SECS", value_parser = tracelint::watch::parse_duration, requires = "settle")]
    pub settle_unseen: Option<Duration>,

    /// Use the polling watcher with this interval (network file systems, inotify limits).
    #[arg(long, value_name = "INTERVAL", value_parser = tracelint::watch::parse_duration)]
    pub poll: Option<Duration>,

    /// Full rescan of the spool at this interval, as a safety net for lost events.
    #[arg(long, value_name = "INTERVAL", value_parser = tracelint::watch::parse_duration, default_value = "60s")]
    pub rescan_interval: Duration,

    /// Checks run in parallel (default: number of CPUs).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,

    /// Inputs held in memory waiting for a worker; beyond that, events are dropped and a
    /// rescan picks the inputs up later.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub queue: usize,

    /// Capacity of the watcher's event channel (events beyond it trigger a rescan).
    #[arg(long, value_name = "N", default_value_t = 65_536, hide = true)]
    pub event_queue: usize,

    /// Write the JSON Lines event log to FILE (appended; reopened on SIGHUP) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,

    /// Keep a Prometheus text file at PATH (rewritten every second through a rename).
    #[arg(long, value_name = "PATH")]
    pub metrics_file: Option<PathBuf>,

    /// Serve /metrics and /healthz over HTTP on this address (e.g. 127.0.0.1:9464; any other
    /// address exposes them, unauthenticated, to whoever can reach it).
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<std::net::SocketAddr>,

    /// On SIGTERM/SIGINT, wait this long for running checks before exiting.
    #[arg(long, value_name = "SECS", value_parser = tracelint::watch::parse_duration, default_value = "10s")]
    pub shutdown_timeout: Duration,

    /// `--deny warnings`: reject inputs with warnings too (default: only errors reject).
    #[arg(short = 'D', long = "deny", value_name = "WHAT", value_parser = ["warnings"])]
    pub deny: Vec<String>,

    /// Same as `--deny warnings`.
    #[arg(long, hide = true)]
    pub deny_warnings: bool,

    /// Threads that write reports and move inputs, each a batch at a time (their fsyncs share
    /// journal commits).
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub io_threads: usize,

    /// Skip fsync of reports and folders (faster; a power loss may then lose verdict moves,
    /// never inputs).
    #[arg(long)]
    pub no_fsync: bool,

    /// Put a repaired copy of each rejected input that `tracelint fix` can repair, with its
    /// ledger (`NAME.fix.json`), in salvaged/; the input itself stays in rejected/.
    #[arg(long)]
    pub salvage: bool,
}

impl WatchArgs {
    /// The daemon's configuration: `--deny warnings` and `--deny-warnings` are one switch.
    pub fn config(&self) -> WatchConfig {
        WatchConfig {
            spool: self.spool.clone(),
            once: self.once,
            settle: self.settle,
            settle_unseen: self.settle_unseen,
            poll: self.poll,
            rescan_interval: self.rescan_interval,
            jobs: self.jobs,
            queue: self.queue,
            event_queue: self.event_queue,
            log: self.log.clone(),
            metrics_file: self.metrics_file.clone(),
            metrics: self.metrics,
            shutdown_timeout: self.shutdown_timeout,
            deny_warnings: self.deny_warnings || self.deny.iter().any(|d| d == "warnings"),
            io_threads: self.io_threads,
            no_fsync: self.no_fsync,
            salvage: self.salvage,
        }
    }
}
