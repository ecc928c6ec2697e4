//! `tracelint watch SPOOL`: a spool-directory daemon that judges every trace that lands in
//! `SPOOL/new/` with the same check as `tracelint check` and moves it, untouched, to
//! `accepted/`, `rejected/` or `quarantine/` with a JSON report next to it.
//!
//! The state of the daemon is the spool itself: an input is in `new/`, claimed in `work/`, or
//! in a verdict folder. Events from the file-system watcher only make things faster; full
//! rescans (at start, after any lost-event signal, and periodically) make them correct. The
//! operator documentation is `docs/watch.md`.
#![deny(clippy::unwrap_used, clippy::expect_used)]

mod judge;
mod metrics;
mod settle;
pub mod spool;
mod util;

use crate::config::Config;
use crate::detect::Format;
use crate::finding::Counts;
use crossbeam_channel::{bounded, select, Receiver, Sender, TrySendError};
use judge::WatchInfo;
use metrics::Metrics;
use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind, RenameMode};
use notify::Watcher;
use serde::Serialize;
use settle::Settler;
use spool::{ClaimName, Liveness, Spool, Verdict};
use std::collections::{HashMap, HashSet, VecDeque};
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

pub use util::parse_duration;

/// How the daemon runs (`tracelint watch` fills it from its command line).
#[derive(Debug, Clone)]
pub struct WatchConfig {
    /// The spool root (holds tmp/, new/, work/, accepted/, rejected/, quarantine/; created if
    /// missing).
    pub spool: PathBuf,
    /// Judge what is in new/ (and dead instances' leftovers in work/) once, then stop.
    pub once: bool,
    /// For producers that write in place in new/: judge a file only after it was closed after
    /// writing and then stayed unchanged (size, mtime) this long.
    pub settle: Option<Duration>,
    /// With `settle`: quiet period for files whose close was not seen (found by a rescan or
    /// the poll watcher). `None`: 4 × `settle`.
    pub settle_unseen: Option<Duration>,
    /// Use the polling watcher with this interval (network file systems, inotify limits).
    pub poll: Option<Duration>,
    /// Full rescan of the spool at this interval, as a safety net for lost events.
    pub rescan_interval: Duration,
    /// Checks run in parallel (`None` or 0: number of CPUs).
    pub jobs: Option<usize>,
    /// Inputs held in memory waiting for a worker; beyond that, events are dropped and a
    /// rescan picks the inputs up later.
    pub queue: usize,
    /// Capacity of the watcher's event channel (events beyond it trigger a rescan).
    pub event_queue: usize,
    /// Write the JSON Lines event log to this file (appended; reopened on SIGHUP) instead of
    /// stdout.
    pub log: Option<PathBuf>,
    /// Keep a Prometheus text file here (rewritten every second through a rename).
    pub metrics_file: Option<PathBuf>,
    /// Serve /metrics and /healthz over HTTP on this address.
    pub metrics: Option<std::net::SocketAddr>,
    /// On SIGTERM/SIGINT, wait this long for running checks before exiting.
    pub shutdown_timeout: Duration,
    /// Reject inputs with warnings too (otherwise only errors reject).
    pub deny_warnings: bool,
    /// Threads that write reports and move inputs (their fsyncs share journal commits).
    pub io_threads: usize,
    /// Skip fsync of reports and folders (faster; a power loss may then lose verdict moves,
    /// never inputs).
    pub no_fsync: bool,
}

/// Runs the daemon; returns the process exit code (0: clean stop, 2: could not start).
/// `color`: whether the log on stderr may carry ANSI colours (the caller decides: only on a
/// terminal or when asked for).
pub fn run(args: &WatchConfig, config_path: Option<&Path>, color: bool) -> i32 {
    if let Err(e) = init_tracing(color) {
        eprintln!("tracelint watch: {e}");
        return 2;
    }
    match Daemon::start(args, config_path) {
        Ok(d) => d.run(),
        Err(e) => {
            tracing::error!("{e}");
            eprintln!("tracelint watch: {e}");
            2
        }
    }
}

/// Level names `TRACELINT_LOG` takes, alone or as `target=level`.
const LOG_LEVELS: [&str; 6] = ["trace", "debug", "info", "warn", "error", "off"];

/// Checks a `TRACELINT_LOG` filter: comma-separated directives, each a level or
/// `target=level`. A bare word that is no level would be taken as a target name and silently
/// turn the log off, so it is an error.
pub fn check_log_filter(filter: &str) -> Result<(), String> {
    for d in filter.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        let level = d.rsplit_once('=').map_or(d, |(_, l)| l);
        if !LOG_LEVELS.iter().any(|l| l.eq_ignore_ascii_case(level)) {
            return Err(format!(
                "TRACELINT_LOG={filter}: `{d}` is not a level or target=level (levels: {})",
                LOG_LEVELS.join(", ")
            ));
        }
    }
    Ok(())
}

/// The log on stderr. Under systemd (`JOURNAL_STREAM` set: stderr is the journal) lines carry
/// no timestamp of their own and start with the sd-daemon(3) priority prefix (`<3>` error,
/// `<4>` warning, `<6>` info, `<7>` debug and trace), so the journal records each line's level.
fn init_tracing(color: bool) -> Result<(), String> {
    let filter = match std::env::var("TRACELINT_LOG") {
        Ok(f) => {
            check_log_filter(&f)?;
            tracing_subscriber::EnvFilter::builder()
                .parse(&f)
                .map_err(|e| format!("TRACELINT_LOG={f}: {e}"))?
        }
        Err(std::env::VarError::NotPresent) => tracing_subscriber::EnvFilter::new("info"),
        Err(e) => return Err(format!("TRACELINT_LOG: {e}")),
    };
    if std::env::var_os("JOURNAL_STREAM").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_writer(io::stderr)
            .with_ansi(false)
            .with_env_filter(filter)
            .event_format(JournalFormat)
            .try_init();
    } else {
        let _ = tracing_subscriber::fmt()
            .with_writer(io::stderr)
            .with_ansi(color)
            .with_env_filter(filter)
            .with_target(false)
            .try_init();
    }
    Ok(())
}

/// Journal lines: `<N>` priority, then the message and fields, no timestamp or level word.
struct JournalFormat;

impl<S, N> tracing_subscriber::fmt::FormatEvent<S, N> for JournalFormat
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    N: for<'a> tracing_subscriber::fmt::FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &tracing_subscriber::fmt::FmtContext<'_, S, N>,
        mut writer: tracing_subscriber::fmt::format::Writer<'_>,
        event: &tracing::Event<'_>,
    ) -> std::fmt::Result {
        let prio = match *event.metadata().level() {
            tracing::Level::ERROR => 3,
            tracing::Level::WARN => 4,
            tracing::Level::INFO => 6,
            _ => 7,
        };
        write!(writer, "<{prio}>")?;
        ctx.field_format().format_fields(writer.by_ref(), event)?;
        writeln!(writer)
    }
}

/// A unit of work for a worker.
#[derive(Clone, Debug)]
enum Job {
    /// Claim `new/<name>`.
    New(OsString),
    /// Take over `work/<file>` left by a dead instance.
    TakeOver(OsString),
}

/// Worker → dispatcher.
enum Msg {
    /// `new/<name>` is no longer ours to watch (claimed, vanished, or skipped on shutdown).
    Released(OsString),
    /// A take-over job ended.
    TakenOver(OsString),
    /// A job ended.
    Done,
    /// A worker thread ended.
    Exited,
}

/// What workers share.
struct Shared {
    spool: Spool,
    config: Mutex<Arc<Config>>,
    config_path: Option<PathBuf>,
    metrics: Arc<Metrics>,
    log: util::EventLog,
    deny_warnings: bool,
    stopping: AtomicBool,
    /// Check slots: `--jobs`, abandoned checks included.
    slots: Arc<judge::Slots>,
    /// Judged inputs whose move failed, with the number of tries and when to try again.
    stuck: Mutex<Vec<(Pending, u32, Instant)>>,
    /// Longest wait between two tries of a stuck input.
    retry_max: Duration,
}

impl Shared {
    fn config(&self) -> Arc<Config> {
        match self.config.lock() {
            Ok(g) => Arc::clone(&g),
            Err(p) => Arc::clone(&p.into_inner()),
        }
    }
}

struct Daemon {
    args: WatchConfig,
    shared: Arc<Shared>,
    jobs: usize,
}

impl Daemon {
    fn start(args: &WatchConfig, config_path: Option<&Path>) -> Result<Daemon, String> {
        let config = Config::discover(config_path).map_err(|e| format!("configuration: {e}"))?;
        let spool = Spool::open(&args.spool, !args.no_fsync)?;
        let log = util::EventLog::open(args.log.as_deref()).map_err(|e| {
            format!(
                "cannot open the event log {}: {e}",
                args.log.as_deref().unwrap_or(Path::new("-")).display()
            )
        })?;
        let metrics = Arc::new(Metrics::new());
        if let Some(addr) = args.metrics {
            metrics::serve(addr, Arc::clone(&metrics))?;
        }
        let jobs = args.jobs.filter(|&j| j > 0).unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2)
        });
        if args.queue == 0 || args.event_queue == 0 {
            return Err("--queue and --event-queue must be at least 1".into());
        }
        Ok(Daemon {
            args: args.clone(),
            shared: Arc::new(Shared {
                spool,
                config: Mutex::new(Arc::new(config)),
                config_path: config_path.map(Path::to_path_buf),
                metrics,
                log,
                deny_warnings: args.deny_warnings,
                stopping: AtomicBool::new(false),
                slots: judge::Slots::new(jobs),
                stuck: Mutex::new(Vec::new()),
                retry_max: args.rescan_interval.max(Duration::from_secs(1)),
            }),
            jobs,
        })
    }

    fn run(self) -> i32 {
        let sh = Arc::clone(&self.shared);
        tracing::info!(
            spool = %sh.spool.root.display(),
            instance = sh.spool.instance_id(),
            jobs = self.jobs,
            "tracelint watch starting"
        );

        // Signals first, so that a stop request during the start-up rescan is honoured.
        let (sig_tx, sig_rx) = bounded::<i32>(16);
        if let Err(e) = spawn_signal_thread(sig_tx) {
            tracing::error!("cannot install signal handlers: {e}");
            return 2;
        }

        // Workers judge; committers write reports and move inputs into place.
        let io_threads = self.args.io_threads.max(1);
        let (job_tx, job_rx) = bounded::<Job>(self.jobs);
        let (msg_tx, msg_rx) = bounded::<Msg>(
            self.jobs
                .saturating_add(io_threads)
                .saturating_mul(4)
                .max(64),
        );
        let (commit_tx, commit_rx) = bounded::<Pending>(io_threads.saturating_mul(2));
        let mut workers = 0usize;
        let mut threads = 0usize;
        for i in 0..io_threads {
            let (rx, tx, sh) = (commit_rx.clone(), msg_tx.clone(), Arc::clone(&sh));
            match std::thread::Builder::new()
                .name(format!("tracelint-commit-{i}"))
                .spawn(move || committer(&sh, &rx, &tx))
            {
                Ok(_) => threads = threads.saturating_add(1),
                Err(e) => tracing::warn!("cannot start committer {i}: {e}"),
            }
        }
        drop(commit_rx);
        if threads > 0 {
            for i in 0..self.jobs {
                let (rx, tx, sh, ctx) = (
                    job_rx.clone(),
                    msg_tx.clone(),
                    Arc::clone(&sh),
                    commit_tx.clone(),
                );
                match std::thread::Builder::new()
                    .name(format!("tracelint-worker-{i}"))
                    .spawn(move || worker(&sh, &rx, &tx, &ctx))
                {
                    Ok(_) => workers = workers.saturating_add(1),
                    Err(e) => tracing::warn!("cannot start worker {i}: {e}"),
                }
            }
        }
        drop(commit_tx);
        drop(job_rx);
        drop(msg_tx);
        let threads = threads.saturating_add(workers);
        if workers == 0 {
            tracing::error!("no worker thread could be started");
            return 2;
        }

        // The watcher is armed before the first rescan, so nothing slips between the two.
        let (ev_tx, ev_rx) = bounded::<notify::Result<notify::Event>>(self.args.event_queue);
        let lost = Arc::new(AtomicBool::new(false));
        let watcher = if self.args.once {
            None
        } else {
            match make_watcher(
                self.args.poll,
                &sh.spool.new,
                ev_tx.clone(),
                Arc::clone(&lost),
            ) {
                Ok(w) => Some(w),
                Err(e) if self.args.poll.is_none() => {
                    // inotify limits (max_user_watches / max_user_instances): poll instead.
                    tracing::warn!(
                        "cannot watch {} with inotify ({e}); polling every 2s instead",
                        sh.spool.new.display()
                    );
                    match make_watcher(
                        Some(Duration::from_secs(2)),
                        &sh.spool.new,
                        ev_tx,
                        Arc::clone(&lost),
                    ) {
                        Ok(w) => Some(w),
                        Err(e) => {
                            tracing::error!("cannot watch {}: {e}", sh.spool.new.display());
                            return 2;
                        }
                    }
                }
                Err(e) => {
                    tracing::error!("cannot watch {}: {e}", sh.spool.new.display());
                    return 2;
                }
            }
        };
        if watcher.is_some() {
            tracing::info!(
                watcher = if self.args.poll.is_some() {
                    "poll"
                } else {
                    "native"
                },
                "watching {}",
                sh.spool.new.display()
            );
        }

        let settle = self.args.settle.map(|s| {
            let unseen = self.args.settle_unseen.unwrap_or(s.saturating_mul(4));
            Settler::new(s, unseen)
        });
        let mut d = Dispatch {
            sh: Arc::clone(&sh),
            cap: self.args.queue,
            pending: VecDeque::new(),
            queued: HashMap::new(),
            dirty: HashSet::new(),
            takeovers: HashSet::new(),
            warned: HashSet::new(),
            in_flight: 0,
            rescan_needed: true,
            last_rescan: None,
            settle,
            once: self.args.once,
            // The watcher may report `new/` by its resolved path (if it is a symlink).
            new_real: std::fs::canonicalize(&sh.spool.new).ok(),
        };
        d.rescan();
        d.feed(&job_tx);

        let tick = crossbeam_channel::tick(Duration::from_millis(50));
        let mut last_periodic = Instant::now();
        let mut last_metrics = Instant::now();
        let mut stop_signal = None;
        let mut failed = false;
        let mut ev_rx = ev_rx;
        let mut sig_rx = sig_rx;
        loop {
            select! {
                recv(ev_rx) -> ev => {
                    match ev {
                        Ok(ev) => {
                            d.on_event(ev);
                            // Drain what is already there before feeding workers.
                            for ev in ev_rx.try_iter().take(4096) {
                                d.on_event(ev);
                            }
                        }
                        Err(_) => {
                            tracing::error!("the watcher stopped; relying on periodic rescans");
                            ev_rx = crossbeam_channel::never();
                        }
                    }
                }
                recv(msg_rx) -> m => {
                    match m {
                        Ok(m) => d.on_msg(m),
                        Err(_) => {
                            tracing::error!("all worker threads ended; exiting");
                            failed = true;
                            break;
                        }
                    }
                }
                recv(sig_rx) -> s => {
                    match s {
                        Ok(signal_hook::consts::SIGHUP) => reload(&sh),
                        Ok(s) => { stop_signal = Some(s); break; }
                        Err(_) => sig_rx = crossbeam_channel::never(),
                    }
                }
                recv(tick) -> _ => {
                    if lost.swap(false, Ordering::Relaxed) {
                        sh.metrics.overflows.fetch_add(1, Ordering::Relaxed);
                        tracing::warn!("file-system events were lost (event channel full); rescanning");
                        d.rescan_needed = true;
                    }
                    if !d.once && last_periodic.elapsed() >= self.args.rescan_interval {
                        d.rescan_needed = true;
                        last_periodic = Instant::now();
                    }
                    if d.rescan_needed && d.may_rescan() {
                        d.rescan();
                    }
                    d.settle_tick();
                    if last_metrics.elapsed() >= Duration::from_secs(1) {
                        last_metrics = Instant::now();
                        d.publish();
                        write_metrics(&self.args, &sh.metrics);
                    }
                }
            }
            d.feed(&job_tx);
            d.publish();
            if d.once && d.idle() && !d.rescan_needed {
                break;
            }
        }

        // Stop: no new claims; running checks get `shutdown_timeout` to finish.
        sh.stopping.store(true, Ordering::SeqCst);
        drop(watcher);
        let left = d.pending.len();
        d.pending.clear();
        drop(job_tx);
        if let Some(s) = stop_signal {
            tracing::info!(
                signal = s,
                queued_left_in_new = left,
                running = d.in_flight,
                "stopping: no new claims; waiting for running checks"
            );
        }
        let deadline = Instant::now() + self.args.shutdown_timeout;
        let mut exited = 0usize;
        while exited < threads {
            let now = Instant::now();
            if now >= deadline {
                tracing::warn!(
                    running = d.in_flight,
                    "shutdown timeout: inputs still being checked stay in work/ and are taken over at the next start"
                );
                break;
            }
            select! {
                recv(msg_rx) -> m => match m {
                    Ok(Msg::Exited) => exited = exited.saturating_add(1),
                    Ok(m) => d.on_msg(m),
                    Err(_) => break,
                },
                recv(sig_rx) -> s => match s {
                    Ok(signal_hook::consts::SIGHUP) => {}
                    Ok(_) => {
                        tracing::warn!("second stop signal: exiting now; running inputs stay in work/");
                        break;
                    }
                    Err(_) => sig_rx = crossbeam_channel::never(),
                },
                default(deadline.saturating_duration_since(now)) => {}
            }
        }
        d.publish();
        write_metrics(&self.args, &sh.metrics);
        tracing::info!("tracelint watch stopped");
        i32::from(failed)
    }
}

fn spawn_signal_thread(tx: Sender<i32>) -> io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP])?;
    std::thread::Builder::new()
        .name("tracelint-signals".into())
        .spawn(move || {
            for s in signals.forever() {
                if tx.send(s).is_err() {
                    break;
                }
            }
        })?;
    Ok(())
}

fn reload(sh: &Shared) {
    match Config::discover(sh.config_path.as_deref()) {
        Ok(c) => {
            if let Ok(mut g) = sh.config.lock() {
                *g = Arc::new(c);
            }
            tracing::info!("SIGHUP: configuration reloaded");
        }
        Err(e) => tracing::error!("SIGHUP: configuration not reloaded, keeping the old one: {e}"),
    }
    if let Err(e) = sh.log.reopen() {
        tracing::error!("SIGHUP: cannot reopen the event log: {e}");
    }
}

fn write_metrics(args: &WatchConfig, m: &Metrics) {
    if let Some(p) = &args.metrics_file {
        if let Err(e) = metrics::write_file(p, &m.render()) {
            tracing::warn!("cannot write {}: {e}", p.display());
        }
    }
}

fn make_watcher(
    poll: Option<Duration>,
    new: &Path,
    tx: Sender<notify::Result<notify::Event>>,
    lost: Arc<AtomicBool>,
) -> notify::Result<Box<dyn Watcher + Send>> {
    let handler = move |ev: notify::Result<notify::Event>| {
        if let Err(TrySendError::Full(_)) = tx.try_send(ev) {
            lost.store(true, Ordering::Relaxed);
        }
    };
    let mut w: Box<dyn Watcher + Send> = match poll {
        Some(every) => Box::new(notify::PollWatcher::new(
            handler,
            notify::Config::default().with_poll_interval(every.max(Duration::from_millis(10))),
        )?),
        None => Box::new(notify::RecommendedWatcher::new(
            handler,
            notify::Config::default(),
        )?),
    };
    w.watch(new, notify::RecursiveMode::NonRecursive)?;
    Ok(w)
}

/// The dispatcher's state (main thread only).
struct Dispatch {
    sh: Arc<Shared>,
    cap: usize,
    pending: VecDeque<Job>,
    /// Names of `new/` inputs queued; `true` once handed to a worker.
    queued: HashMap<OsString, bool>,
    /// Names seen again while their job was with a worker: queue again once released.
    dirty: HashSet<OsString>,
    takeovers: HashSet<OsString>,
    warned: HashSet<OsString>,
    in_flight: usize,
    rescan_needed: bool,
    last_rescan: Option<Instant>,
    settle: Option<Settler>,
    once: bool,
    new_real: Option<PathBuf>,
}

impl Dispatch {
    fn idle(&self) -> bool {
        self.pending.is_empty()
            && self.in_flight == 0
            && self.queued.is_empty()
            && self.takeovers.is_empty()
    }

    fn may_rescan(&self) -> bool {
        let room = self.pending.len() < self.cap / 2 + 1;
        let recent = self
            .last_rescan
            .is_some_and(|t| t.elapsed() < Duration::from_millis(200));
        room && !recent
    }

    fn publish(&self) {
        let settling = self.settle.as_ref().map_or(0, Settler::len);
        let depth = self.pending.len() + self.in_flight + settling;
        self.sh
            .metrics
            .queue_depth
            .store(depth as u64, Ordering::Relaxed);
        self.sh
            .metrics
            .in_flight
            .store(self.in_flight as u64, Ordering::Relaxed);
    }

    /// Queues `new/<name>`; false when the queue is full.
    fn enqueue(&mut self, name: &OsStr) -> bool {
        if let Some(handed) = self.queued.get(name) {
            if *handed {
                self.dirty.insert(name.to_os_string());
            }
            return true;
        }
        if self.pending.len() >= self.cap {
            return false;
        }
        self.queued.insert(name.to_os_string(), false);
        self.pending.push_back(Job::New(name.to_os_string()));
        true
    }

    fn feed(&mut self, tx: &Sender<Job>) {
        while let Some(job) = self.pending.pop_front() {
            let name = match &job {
                Job::New(n) => Some(n.clone()),
                Job::TakeOver(_) => None,
            };
            match tx.try_send(job) {
                Ok(()) => {}
                Err(TrySendError::Full(job)) | Err(TrySendError::Disconnected(job)) => {
                    self.pending.push_front(job);
                    return;
                }
            }
            if let Some(h) = name.and_then(|n| self.queued.get_mut(&n)) {
                *h = true;
            }
            self.in_flight = self.in_flight.saturating_add(1);
        }
    }

    fn on_msg(&mut self, m: Msg) {
        match m {
            Msg::Released(name) => {
                self.queued.remove(&name);
                if self.dirty.remove(&name) {
                    self.route(&name, None);
                }
            }
            Msg::TakenOver(w) => {
                self.takeovers.remove(&w);
            }
            Msg::Done => self.in_flight = self.in_flight.saturating_sub(1),
            Msg::Exited => {}
        }
    }

    /// An input name seen in `new/` (by an event of `kind`, or a rescan when `None`).
    fn route(&mut self, name: &OsStr, kind: Option<&EventKind>) {
        if name.as_bytes().first() == Some(&b'.') {
            return;
        }
        let ok = match self.settle.as_mut() {
            Some(s) => s.observe(&self.sh.spool.new, name, kind, self.cap),
            None => self.enqueue(name),
        };
        if !ok {
            if !self.rescan_needed {
                self.sh.metrics.overflows.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(
                    queue = self.cap,
                    "queue full: further inputs are picked up by a rescan once it drains"
                );
            }
            self.rescan_needed = true;
        }
    }

    fn on_event(&mut self, ev: notify::Result<notify::Event>) {
        let ev = match ev {
            Ok(ev) => ev,
            Err(e) => {
                self.sh.metrics.overflows.fetch_add(1, Ordering::Relaxed);
                tracing::warn!("watcher error: {e}; rescanning");
                self.rescan_needed = true;
                return;
            }
        };
        if ev.need_rescan() || ev.paths.is_empty() {
            if ev.need_rescan() {
                self.sh.metrics.overflows.fetch_add(1, Ordering::Relaxed);
                tracing::warn!("the watcher lost events (kernel queue overflow); rescanning");
            }
            self.rescan_needed = true;
            if ev.paths.is_empty() {
                return;
            }
        }
        let paths: &[PathBuf] = match ev.kind {
            EventKind::Remove(_) => return,
            EventKind::Access(AccessKind::Close(AccessMode::Write)) => &ev.paths,
            EventKind::Access(_) => return,
            EventKind::Modify(ModifyKind::Name(RenameMode::From)) => return,
            EventKind::Modify(ModifyKind::Name(RenameMode::Both)) => {
                ev.paths.get(1..).unwrap_or(&[])
            }
            _ => &ev.paths,
        };
        for p in paths {
            let parent = p.parent();
            if parent != Some(self.sh.spool.new.as_path()) && parent != self.new_real.as_deref() {
                continue;
            }
            if let Some(name) = p.file_name() {
                self.route(name, Some(&ev.kind));
            }
        }
    }

    fn settle_tick(&mut self) {
        let Some(s) = self.settle.as_mut() else {
            return;
        };
        let ready = s.tick(&self.sh.spool.new);
        for name in ready {
            if !self.enqueue(&name) {
                self.rescan_needed = true;
                break;
            }
        }
    }

    /// Full rescan: leftovers of dead instances in `work/`, then everything in `new/`.
    fn rescan(&mut self) {
        self.rescan_needed = false;
        self.last_rescan = Some(Instant::now());
        self.sh.metrics.rescans.fetch_add(1, Ordering::Relaxed);
        retry_stuck(&self.sh);
        self.scan_work();
        let rd = match std::fs::read_dir(&self.sh.spool.new) {
            Ok(rd) => rd,
            Err(e) => {
                tracing::error!("cannot list {}: {e}", self.sh.spool.new.display());
                self.rescan_needed = true;
                return;
            }
        };
        let mut n = 0usize;
        for e in rd {
            let Ok(e) = e else {
                self.rescan_needed = true;
                continue;
            };
            let name = e.file_name();
            if name.as_bytes().first() == Some(&b'.') {
                continue;
            }
            if self.once && self.settle.is_some() {
                // No events to wait for: only inputs already quiet for the unseen period.
                let quiet = self
                    .settle
                    .as_ref()
                    .is_some_and(|s| s.quiet_by_mtime(&e.path()));
                if !quiet {
                    continue;
                }
                if !self.enqueue(&name) {
                    self.rescan_needed = true;
                    break;
                }
            } else {
                self.route(&name, None);
                if self.rescan_needed {
                    break;
                }
            }
            n = n.saturating_add(1);
        }
        tracing::debug!(seen = n, "rescan of new/ done");
    }

    fn scan_work(&mut self) {
        let sp = &self.sh.spool;
        let rd = match std::fs::read_dir(&sp.work) {
            Ok(rd) => rd,
            Err(e) => {
                tracing::error!("cannot list {}: {e}", sp.work.display());
                return;
            }
        };
        let me = sp.instance().clone();
        // Temporary reports of dead owners, and the claims still in work/.
        let mut temps = Vec::new();
        let mut claims = std::collections::HashSet::new();
        let entries: Vec<_> = rd.flatten().collect();
        for e in entries.iter() {
            let file = e.file_name();
            if ClaimName::parse_temp(&file).is_none() {
                if let Some(c) = ClaimName::parse(&file) {
                    claims.insert(c.claim.clone());
                }
            }
        }
        for e in entries {
            let file = e.file_name();
            if let Some(c) = ClaimName::parse_temp(&file) {
                let dead = spool::Instance::parse(&c.owner)
                    .is_some_and(|o| me.is_dead(&o) == Liveness::Dead);
                if dead {
                    temps.push((e.path(), c));
                }
                continue;
            }
            let Some(c) = ClaimName::parse(&file) else {
                if self.warned.len() < 1000 && self.warned.insert(file.clone()) {
                    tracing::warn!(
                        "{} was not put there by tracelint; leaving it alone",
                        e.path().display()
                    );
                }
                continue;
            };
            if c.owner == sp.instance_id() || self.takeovers.contains(&file) {
                continue;
            }
            match spool::Instance::parse(&c.owner).map(|o| me.is_dead(&o)) {
                Some(Liveness::Dead) => {
                    if self.pending.len() < self.cap {
                        self.takeovers.insert(file.clone());
                        self.pending.push_front(Job::TakeOver(file));
                    } else {
                        self.rescan_needed = true;
                    }
                }
                Some(Liveness::Alive) => {}
                Some(Liveness::Unknown) | None => {
                    if self.warned.len() < 1000 && self.warned.insert(file.clone()) {
                        tracing::warn!(
                            owner = %c.owner,
                            "{} is claimed by an instance on another host; it is taken over only by a daemon on that host",
                            e.path().display()
                        );
                    }
                }
            }
        }
        for (path, c) in temps {
            // Its input is gone from work/ (a directory renamed into place): the owner died
            // after the move, maybe before logging the verdict.
            if !claims.contains(&c.claim) {
                if let Ok(Some(placed)) = sp.find_placed(&c) {
                    self.sh.metrics.recovered.fetch_add(1, Ordering::Relaxed);
                    log_recovered(&self.sh, &c, &placed);
                }
            }
            let _ = std::fs::remove_file(path);
        }
    }
}

fn worker(sh: &Shared, rx: &Receiver<Job>, tx: &Sender<Msg>, commit: &Sender<Pending>) {
    let mut checker = judge::Checker::with_slots(Arc::clone(&sh.slots));
    for job in rx.iter() {
        let mut pending = None;
        match &job {
            Job::New(name) => {
                let claim = if sh.stopping.load(Ordering::SeqCst) {
                    None
                } else {
                    claim_new(sh, name)
                };
                // From here on, `new/<name>` may hold a newer input: watch for it again.
                let _ = tx.send(Msg::Released(name.clone()));
                if let Some(c) = claim {
                    guarded(sh, || pending = finish(sh, &c, false, &mut checker));
                }
            }
            Job::TakeOver(file) => {
                if !sh.stopping.load(Ordering::SeqCst) {
                    guarded(sh, || pending = take_over(sh, file, &mut checker));
                }
                let _ = tx.send(Msg::TakenOver(file.clone()));
            }
        }
        match pending {
            // The committer sends `Done` once the input is in place.
            Some(p) => {
                if let Err(e) = commit.send(p) {
                    drop(e);
                    let _ = tx.send(Msg::Done);
                }
            }
            None => {
                let _ = tx.send(Msg::Done);
            }
        }
    }
    let _ = tx.send(Msg::Exited);
}

/// Moves judged inputs into place. Several committers run at once so that their fsyncs share
/// journal commits (one fsync costs milliseconds; concurrent ones cost about the same).
fn committer(sh: &Shared, rx: &Receiver<Pending>, tx: &Sender<Msg>) {
    for p in rx.iter() {
        guarded(sh, || commit(sh, &p));
        let _ = tx.send(Msg::Done);
    }
    let _ = tx.send(Msg::Exited);
}

/// Runs `f`, logging a panic instead of losing the worker (the input stays in `work/`).
fn guarded(sh: &Shared, f: impl FnOnce()) {
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err() {
        sh.metrics.move_errors.fetch_add(1, Ordering::Relaxed);
        tracing::error!("internal error while handling an input; it stays where it was and is retried at the next start");
    }
}

/// Claims `new/<name>` by renaming it into `work/`.
fn claim_new(sh: &Shared, name: &OsStr) -> Option<ClaimName> {
    let sp = &sh.spool;
    let claim = sp.new_claim(name);
    let from = sp.new.join(name);
    let to = sp.work.join(claim.file_name());
    match std::fs::rename(&from, &to) {
        Ok(()) => Some(claim),
        // Claimed by another instance, or withdrawn by the producer.
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => {
            sh.metrics.move_errors.fetch_add(1, Ordering::Relaxed);
            tracing::error!("cannot claim {}: {e}; it stays in new/", from.display());
            None
        }
    }
}

fn take_over(sh: &Shared, file: &OsStr, checker: &mut judge::Checker) -> Option<Pending> {
    let sp = &sh.spool;
    let old = ClaimName::parse(file)?;
    let new = ClaimName {
        owner: sp.instance_id().to_string(),
        ..old.clone()
    };
    match std::fs::rename(sp.work.join(file), sp.work.join(new.file_name())) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
        Err(e) => {
            sh.metrics.move_errors.fetch_add(1, Ordering::Relaxed);
            tracing::error!("cannot take over {}: {e}", sp.work.join(file).display());
            return None;
        }
    }
    sh.metrics.taken_over.fetch_add(1, Ordering::Relaxed);
    tracing::info!(owner = %old.owner, "taking over {} from a dead instance", Path::new(&old.name).display());
    finish(sh, &new, true, checker)
}

/// One line of the event log.
#[derive(Serialize)]
struct EventLine<'a> {
    ts: String,
    unix_ms: f64,
    event: &'static str,
    name: &'a str,
    path: String,
    report: String,
    format: Option<Format>,
    verdict: Verdict,
    reason: Option<&'a str>,
    counts: Counts,
    size: u64,
    duration_ms: f64,
    recovered: bool,
    instance: &'a str,
}

/// A judged input on its way to its verdict folder.
#[derive(Clone)]
struct Pending {
    claim: ClaimName,
    shown: String,
    is_dir: bool,
    verdict: Verdict,
    reason: Option<String>,
    format: Option<Format>,
    counts: Counts,
    size: u64,
    duration: Duration,
    sidecar: Vec<u8>,
}

/// Judges a claimed input (`work/<claim>`); after a take-over, first completes a move the
/// previous owner had started.
fn finish(
    sh: &Shared,
    claim: &ClaimName,
    taken_over: bool,
    checker: &mut judge::Checker,
) -> Option<Pending> {
    let sp = &sh.spool;
    if taken_over {
        match sp.find_placed(claim) {
            Ok(Some(placed)) => {
                match sp.complete_placed(claim, &placed) {
                    Ok(()) => {
                        sh.metrics.recovered.fetch_add(1, Ordering::Relaxed);
                        log_recovered(sh, claim, &placed);
                        if let Err(e) = sp.release(claim, placed.data.is_dir()) {
                            tracing::warn!(
                                "cannot remove the work/ entry of {}: {e}",
                                placed.data.display()
                            );
                        }
                    }
                    Err(e) => {
                        sh.metrics.move_errors.fetch_add(1, Ordering::Relaxed);
                        tracing::error!(
                            "cannot complete the move of {}: {e}",
                            placed.data.display()
                        );
                    }
                }
                return None;
            }
            Ok(None) => {}
            Err(e) => {
                tracing::error!("cannot search the verdict folders: {e}; the input stays in work/");
                return None;
            }
        }
    }
    let wpath = sp.work.join(claim.file_name());
    let shown = claim.name.to_string_lossy().into_owned();
    let is_dir = std::fs::symlink_metadata(&wpath).is_ok_and(|m| m.is_dir());
    let config = sh.config();
    let j = judge::judge(
        &wpath,
        &shown,
        &config,
        sh.deny_warnings,
        checker,
        &sh.metrics.abandoned,
    );
    let ts = util::rfc3339(SystemTime::now());
    let duration_ms = j.report.duration.as_secs_f64() * 1000.0;
    let watch = WatchInfo {
        verdict: j.verdict,
        reason: j.reason.as_deref(),
        name: &shown,
        claim: &claim.claim,
        instance: sp.instance_id(),
        judged_at: &ts,
        duration_ms,
    };
    // The report exactly as `tracelint check --output json` shows one input, plus `watch`.
    let mut doc = crate::report::report_json_value(&j.report);
    if let (Some(o), Ok(w)) = (doc.as_object_mut(), serde_json::to_value(&watch)) {
        o.insert("watch".into(), w);
    }
    let sidecar = match serde_json::to_vec_pretty(&doc) {
        Ok(mut b) => {
            b.push(b'\n');
            b
        }
        Err(e) => {
            tracing::error!("cannot serialise the report of {shown}: {e}");
            return None;
        }
    };
    Some(Pending {
        claim: claim.clone(),
        shown,
        is_dir,
        verdict: j.verdict,
        reason: j.reason,
        format: j.report.format,
        counts: j.report.counts,
        size: j.report.size,
        duration: j.report.duration,
        sidecar,
    })
}

/// Writes the report and moves the input into its verdict folder, then logs the verdict. A
/// move that fails leaves the input in `work/` and on the stuck list, tried again at every
/// rescan ([`retry_stuck`]).
fn commit(sh: &Shared, p: &Pending) {
    if let Err(e) = place_and_log(sh, p) {
        stuck(sh, p, 1, &e);
    }
}

/// Tries again, at a rescan, the stuck inputs whose wait is over: 1 s after the first failure,
/// doubling up to the rescan interval, so a fixed cause (permissions, space, mounts) is seen
/// within one periodic rescan.
fn retry_stuck(sh: &Shared) {
    let now = Instant::now();
    let due: Vec<(Pending, u32, Instant)> = {
        let mut list = match sh.stuck.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        let (due, wait): (Vec<_>, Vec<_>) = list.drain(..).partition(|(_, _, at)| *at <= now);
        *list = wait;
        due
    };
    for (p, tries, _) in due {
        match place_and_log(sh, &p) {
            Ok(()) => tracing::info!(
                "{} placed in {}/ after {tries} failed tr{}",
                p.shown,
                p.verdict.name(),
                if tries == 1 { "y" } else { "ies" }
            ),
            Err(e) => stuck(sh, &p, tries.saturating_add(1), &e),
        }
    }
    publish_stuck(sh);
}

/// Records a failed move (or drops it when the input is gone from `work/`).
fn stuck(sh: &Shared, p: &Pending, tries: u32, e: &io::Error) {
    sh.metrics.move_errors.fetch_add(1, Ordering::Relaxed);
    let wpath = sh.spool.work.join(p.claim.file_name());
    if !spool::exists_nofollow(&wpath).unwrap_or(true) {
        // Taken over or removed by someone else: nothing stays in work/.
        tracing::warn!(
            "cannot move {} to {}/: {e}; it is no longer in work/ (moved by another instance or removed)",
            p.shown,
            p.verdict.name()
        );
        publish_stuck(sh);
        return;
    }
    let cause = if e.raw_os_error() == Some(18) {
        " (EXDEV: the verdict folder is on another mount than work/, a bind mount perhaps)"
    } else {
        ""
    };
    let wait = Duration::from_secs(1u64 << tries.saturating_sub(1).min(16)).min(sh.retry_max);
    tracing::error!(
        "cannot move {} to {}/: {e}{cause}; it stays in work/ and is tried again at the next rescan (in {}s or later, try {tries})",
        p.shown,
        p.verdict.name(),
        wait.as_secs()
    );
    if let Ok(mut list) = sh.stuck.lock() {
        list.push((p.clone(), tries, Instant::now() + wait));
    }
    publish_stuck(sh);
}

fn publish_stuck(sh: &Shared) {
    let n = sh.stuck.lock().map_or(0, |l| l.len());
    sh.metrics.stuck.store(n as u64, Ordering::Relaxed);
}

/// Writes the report, moves the input and logs the verdict line.
fn place_and_log(sh: &Shared, p: &Pending) -> io::Result<()> {
    let sp = &sh.spool;
    let path = sp
        .write_temp(&p.claim, &p.sidecar)
        .and_then(|temp| sp.place_linked(&p.claim, p.verdict, &temp, p.is_dir))?;
    sh.metrics.verdict(p.verdict, p.duration);
    if let Some(r) = &p.reason {
        if p.verdict == Verdict::Quarantine {
            tracing::warn!("quarantined {}: {r}", p.shown);
        }
    }
    let done = SystemTime::now();
    sh.log.line(&EventLine {
        ts: util::rfc3339(done),
        unix_ms: util::unix_ms(done),
        event: "verdict",
        name: &p.shown,
        report: sidecar_of(&path).display().to_string(),
        path: path.display().to_string(),
        format: p.format,
        verdict: p.verdict,
        reason: p.reason.as_deref(),
        counts: p.counts,
        size: p.size,
        duration_ms: p.duration.as_secs_f64() * 1000.0,
        recovered: false,
        instance: sp.instance_id(),
    });
    // Only now is the input's trace in work/ removed: a crash before this line leaves it for a
    // take-over, which finds the placed report and logs the verdict (once).
    if let Err(e) = sp.release(&p.claim, p.is_dir) {
        tracing::warn!(
            "{} is placed and logged, but its work/ entry cannot be removed: {e}",
            p.shown
        );
    }
    Ok(())
}

fn sidecar_of(data: &Path) -> PathBuf {
    let mut s = data.as_os_str().to_os_string();
    s.push(spool::SIDECAR_SUFFIX);
    PathBuf::from(s)
}

fn log_recovered(sh: &Shared, claim: &ClaimName, placed: &spool::Placed) {
    // Logged before the crash (which came before `work/` was cleaned): not again.
    if sh.log.logged(&placed.sidecar.display().to_string()) {
        return;
    }
    let r = &placed.report;
    let count = |k: &str| {
        r.get("counts")
            .and_then(|c| c.get(k))
            .and_then(|v| v.as_u64())
            .unwrap_or(0)
    };
    let format = r
        .get("format")
        .and_then(|f| f.as_str())
        .and_then(|f| f.parse::<Format>().ok());
    let shown = claim.name.to_string_lossy();
    let reason = r
        .get("watch")
        .and_then(|w| w.get("reason"))
        .and_then(|v| v.as_str());
    let done = SystemTime::now();
    sh.log.line(&EventLine {
        ts: util::rfc3339(done),
        unix_ms: util::unix_ms(done),
        event: "verdict",
        name: &shown,
        report: placed.sidecar.display().to_string(),
        path: placed.data.display().to_string(),
        format,
        verdict: placed.verdict,
        reason,
        counts: Counts {
            error: count("error"),
            warning: count("warning"),
            info: count("info"),
        },
        size: r.get("size").and_then(|v| v.as_u64()).unwrap_or(0),
        duration_ms: r
            .get("watch")
            .and_then(|w| w.get("duration_ms"))
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0),
        recovered: true,
        instance: sh.spool.instance_id(),
    });
}
